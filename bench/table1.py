#!/usr/bin/env python3
"""The thesis's Table 1 (GTX 470, GStencils/s) beside stenciljit on an H100, as a model.

For each of the seven kernels of the thesis at its sizes (2-D 3072^2 x 512 steps, 3-D 384^3 x
128 steps, fp32), `stenciljit schedule --device emu` gives the library's choice and the tile
model's prediction of its time (sched/tile_model.c, calibrated on an H100). The emulator then
runs the chosen mapping (the same tiling and tile sizes, forced) and the per-step mapping at
the sizes EMU_SIZES (fewer steps: a full-size run of the emulator takes hours), checked
bit-identical against the C function; from its counts a roofline gives an upper bound on the
rate: an update costs the longer of its L2-model DRAM bytes at 3.35 TB/s and its instructions
at 132 multiprocessors x 128 lanes x 1.98 GHz. Nothing here ran on a GPU: every stenciljit
figure is a MODEL. Usage: table1.py BUILD_DIR RESULTS.md [--only KERNEL]
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiling_emu  # noqa: E402  (run(): the emulator's counters summed over launches)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRAM_BPS = 3.35e12
INSTR_PS = 132 * 128 * 1.98e9

TWO_D = {"T": 512, "N": 3072, "M": 3072}
THREE_D = {"T": 128, "N": 384, "M": 384, "K": 384}
# (column of Table 1, kernel file, thesis sizes, emulator sizes, PPCG, Overtile, hybrid)
KERNELS = [
    ("lap 2D", "laplacian2d_iter.c", TWO_D, {"T": 16, "N": 3072, "M": 3072}, 5.4, 10.6, 15.0),
    ("heat 2D", "heat2d_9pt.c", TWO_D, {"T": 16, "N": 3072, "M": 3072}, 5.1, 6.9, 15.0),
    ("grad 2D", "gradient2d.c", TWO_D, {"T": 16, "N": 3072, "M": 3072}, 3.9, 6.7, 7.3),
    ("fdtd 2D", "fdtd2d.c", {"T": 512, "NX": 3072, "NY": 3072},
     {"T": 16, "NX": 3072, "NY": 3072}, 0.76, 5.3, 7.3),
    ("lap 3D", "laplacian3d_7pt.c", THREE_D, {"T": 8, "N": 192, "M": 192, "K": 192}, 2.0, 3.1,
     4.3),
    ("heat 3D", "heat3d_27pt.c", THREE_D, {"T": 8, "N": 192, "M": 192, "K": 192}, 1.8, 2.6, 3.9),
    ("grad 3D", "gradient3d.c", THREE_D, {"T": 8, "N": 192, "M": 192, "K": 192}, 2.1, 3.6, 3.6),
]

CHOICE = re.compile(r"^tile model [^:]*: (per step|the per-step mapping|hybrid tiles|split tiles)"
                    r"[^0-9]*modeled ([0-9.]+) ms")
CANDIDATE = re.compile(r"^    (per step|hybrid|split)( h=(\d+) w=([0-9x]+))?[^:]*: ([0-9.]+) "
                       r"B/update, ([0-9.]+) instr/update.*, ([0-9.]+) ms")


def choice(build, kernel, sizes):
    """(tiling, JIT_TILE, modeled ms, modeled B/update, modeled instr/update) of the library's
    choice at sizes."""
    cmd = [os.path.join(build, "stenciljit"), "schedule", "--device", "emu",
           os.path.join(ROOT, "tests", "kernels", kernel)]
    for k, v in sizes.items():
        cmd += ["-D", "%s=%d" % (k, v)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    head = next(CHOICE.match(l) for l in out if CHOICE.match(l))
    kind = {"hybrid tiles": "hybrid", "split tiles": "split"}.get(head.group(1), "per step")
    for line in out:
        m = CANDIDATE.match(line)
        if m and m.group(1) == kind:
            tile = "h=%s,w=%s" % (m.group(3), m.group(4)) if m.group(3) else ""
            return kind, tile, float(m.group(7)), float(m.group(5)), float(m.group(6))
    raise RuntimeError("no candidate of the chosen kind in the explanation of " + kernel)


def updates(kernel, sizes):
    return tiling_emu.updates(sizes, kernel)


def roofline(r, n):
    """GStencils/s bound from the emulator's counts r over n updates."""
    per_update = max(r.get("l2_model_dram_bytes", 0) / n / DRAM_BPS,
                     r.get("instructions", 0) / n / INSTR_PS)
    return 1e-9 / per_update, r.get("l2_model_dram_bytes", 0) / n, r.get("instructions", 0) / n


def measure(build, label, kernel, thesis, emu, ppcg, overtile, hybrid):
    kind, tile, ms, model_bytes, model_instr = choice(build, kernel, thesis)
    mapping = kind + (" " + tile.replace(",", " ") if tile else "")
    n = updates(kernel, emu)
    chosen = tiling_emu.run(build, kernel, emu, "none" if kind == "per step" else kind, "1", tile)
    step = tiling_emu.run(build, kernel, emu, "none", "1")
    ok = chosen["ok"] and step["ok"]
    rate, dram, instr = roofline(chosen, n)
    step_rate, step_dram, step_instr = roofline(step, n)
    emu_sizes = " ".join("%s=%d" % kv for kv in emu.items())
    return ("| %s | %.2f | %.1f | %.1f | %s | %.2f / %.1f | **%.1f** | %s | %.2f / %.1f | %.1f "
            "| %.2f / %.1f | %.1f | %s |\n" % (
                label, ppcg, overtile, hybrid, mapping, model_bytes, model_instr,
                updates(kernel, thesis) / (ms * 1e-3) * 1e-9, emu_sizes, dram, instr, rate,
                step_dram, step_instr, step_rate, "yes" if ok else "**NO**"))


def main():
    build, results = sys.argv[1], sys.argv[2]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    rows = []
    for row in KERNELS:
        if only and row[1] != only + ".c":
            continue
        rows.append(measure(build, *row))
        print(rows[-1], end="", flush=True)
    load = open("/proc/loadavg").read().split()[0]
    with open(results, "w") as out:
        out.write(
            "# The thesis's Table 1 beside stenciljit on an H100: a model, not a measurement\n\n"
            "Written by `bench/table1.py`. The GTX 470 columns are the thesis's measured "
            "GStencils/s (Grosser, Table 1; 2-D 3072² × 512 steps, 3-D 384³ × 128, fp32). No "
            "GPU ran the stenciljit columns: **every stenciljit figure is a model**. *Tile "
            "model*: the library's choice at the thesis's sizes and its predicted rate "
            "(sched/tile_model.c, calibrated on an H100). *Emulator roofline*: the PTX "
            "emulator's counts of that mapping (same tiling and tile sizes, forced) and of the "
            "per-step mapping at the smaller sizes named (fewer steps: a full-size emulator run "
            "takes hours), each checked bit-identical against the C function; the rate bound "
            "is updates over the longer of L2-model DRAM bytes at 3.35 TB/s and instructions at "
            "132 × 128 lanes × 1.98 GHz, with no latency, launch or barrier cost, so it is an "
            "upper bound. B / instr: L2-model DRAM bytes and instructions per update. "
            "Load average at the end of the run: %s (it changes no count).\n\n" % load)
        out.write("| kernel | PPCG (GTX 470) | Overtile (GTX 470) | hybrid (GTX 470) | stenciljit's "
                  "choice | tile model B / instr | tile model GStencils/s (H100) | emulator "
                  "sizes | chosen: emulator B / instr | chosen: roofline GStencils/s | per "
                  "step: emulator B / instr | per step: roofline GStencils/s | bit-identical |\n"
                  "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---|\n")
        out.writelines(rows)
    return 0 if all("**NO**" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
