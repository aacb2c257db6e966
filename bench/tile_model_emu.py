#!/usr/bin/env python3
"""The GPU tile model's instructions and DRAM bytes per update against the emulator's counts
for the code the compiler prints now, with the sizes and blocks the model picks.

For each stencil and tiling (values in shared memory, JIT_STAGE=1, and in global memory,
JIT_STAGE=0) it reads the model's line of the chosen candidate from `stenciljit schedule`,
runs the same kernel with `stenciljit run --device emu --check`, sums the emulator's
per-launch counters (JIT_EMU_STATS) and writes a Markdown table. Every figure is a model:
the tile model's, or the emulator's (no GPU). Usage: tile_model_emu.py BUILD_DIR RESULTS.md
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, kernel file, sizes, interior points per step): small enough for the emulator
CASES = [
    ("jacobi-1d 2^18, T=64", "jacobi1d_3pt.c", {"T": 64, "N": 1 << 18}, (1 << 18) - 2),
    ("jacobi-2d 1024², T=16", "jacobi2d_5pt.c", {"T": 16, "N": 1024, "M": 1024}, 1022 * 1022),
    ("heat-2d 1024², T=16", "heat2d_9pt.c", {"T": 16, "N": 1024, "M": 1024}, 1022 * 1022),
    ("heat-3d 96³, T=8", "heat3d_27pt.c", {"T": 8, "N": 96, "M": 96, "K": 96}, 94 ** 3),
]
# the model's line of its best candidate of a tiling in the explanation
MODEL = r"^    %s (h=\S+ w=\S+)( staged)?: ([0-9.]+) B/update, ([0-9.]+) instr/update.*\(([0-9x]+)\)"


def cli(build, command, kernel, sizes, env):
    cmd = [os.path.join(build, "stenciljit"), command, "--device", "emu"]
    cmd += ["--check"] if command == "run" else []
    cmd.append(os.path.join(ROOT, "tests", "kernels", kernel))
    for k, v in sizes.items():
        cmd += ["-D", "%s=%d" % (k, v)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


def main():
    build, results = sys.argv[1], sys.argv[2]
    rows = []
    for label, kernel, sizes, points in CASES:
        updates = sizes["T"] * points
        for tiling in ("hybrid", "split"):
            for stage in ("1", "0"):
                env = dict(os.environ, JIT_CACHE="off", JIT_EXPLAIN_DEPS="0", JIT_STAGE=stage,
                           JIT_TILING=tiling)
                env.pop("JIT_TILE", None)
                model = re.search(MODEL % tiling, cli(build, "schedule", kernel, sizes, env).stdout,
                                  re.M)
                with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
                    stats = f.name
                env["JIT_EMU_STATS"] = stats
                p = cli(build, "run", kernel, sizes, env)
                instr = dram = 0
                with open(stats) as f:
                    for line in f:
                        rec = json.loads(line)
                        instr += rec["instructions"]
                        dram += rec.get("l2_model_dram_bytes", 0)
                os.unlink(stats)
                ok = p.returncode == 0 and "bit-identical" in p.stdout + p.stderr
                rows.append((label, tiling, model, instr / updates, dram / updates, ok))
                print(label, tiling, stage, model.group(0) if model else None, flush=True)
    load = open("/proc/loadavg").read().split()[0]
    with open(results, "w") as out:
        out.write("# The tile model against the emulator, on the code printed now\n\n"
                  "Written by `bench/tile_model_emu.py`. No GPU: the tile model's figures "
                  "(sched/tile_model.c) beside the emulator's counts (instructions summed over "
                  "threads, DRAM bytes through its 50 MB L2 model) for the kernels the compiler "
                  "prints with the sizes and blocks the model picks under JIT_TILING=hybrid or "
                  "split, values in shared memory (the default) or in global memory "
                  "(JIT_STAGE=0). Every run bit-identical to the C function (`--check`). "
                  "This CPU's load: %s.\n\n" % load)
        out.write("| stencil | tiling | sizes, block | staged | model instr/update | "
                  "emulator instr/update | model DRAM B/update | emulator L2-model DRAM "
                  "B/update | bit-identical |\n|---|---|---|---|---|---|---|---|---|\n")
        for label, tiling, m, instr, dram, ok in rows:
            sizes_block = "%s, %s" % (m.group(1), m.group(5)) if m else "?"
            staged = "yes" if m and m.group(2) else "no"
            out.write("| %s | %s | %s | %s | %s | %.1f | %s | %.3f | %s |\n" % (
                label, tiling, sizes_block, staged, m.group(4) if m else "?", instr,
                m.group(3) if m else "?", dram, "yes" if ok else "NO"))


if __name__ == "__main__":
    main()
