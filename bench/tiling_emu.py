#!/usr/bin/env python3
"""Per-step mapping against hybrid and split time tiling, side by side in one run, on the
emulator.

Runs each stencil of tests/kernels through `stenciljit run --device emu --check` twice
(JIT_TILING unset, then hybrid, then split), sums the emulator's per-launch counters
(JIT_EMU_STATS) and writes a Markdown table. Every figure is the emulator's MODEL, not a
GPU measurement. Usage: tiling_emu.py BUILD_DIR RESULTS.md [--quick | --medium] [--only KERNEL]

--only KERNEL (a file name of tests/kernels without .c) runs that kernel's rows alone and
replaces them in RESULTS.md, keeping the other rows as they were measured.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, kernel file, sizes, updates per run); sizes large enough that the per-step
# mapping's working set exceeds the modeled 50 MB L2 where the row says so
CASES = [
    ("jacobi-1d 2^20, T=64", "jacobi1d_3pt.c", {"T": 64, "N": 1 << 20}),
    ("jacobi-2d 3072², T=16", "jacobi2d_5pt.c", {"T": 16, "N": 3072, "M": 3072}),
    ("heat-2d 9pt 3072², T=16", "heat2d_9pt.c", {"T": 16, "N": 3072, "M": 3072}),
    ("fdtd-2d 2048², T=16", "fdtd2d.c", {"T": 16, "NX": 2048, "NY": 2048}),
    ("heat-3d 27pt 192³, T=12", "heat3d_27pt.c", {"T": 12, "N": 192, "M": 192, "K": 192}),
]
QUICK = {"T": 4, "N": 64, "M": 64, "K": 32, "NX": 64, "NY": 64}
# --medium: sizes a loaded 2-core machine runs in minutes (the arrays fit the modeled L2)
MEDIUM = {
    "jacobi1d_3pt.c": {"T": 64, "N": 1 << 18},
    "jacobi2d_5pt.c": {"T": 32, "N": 1024, "M": 1024},
    "heat2d_9pt.c": {"T": 32, "N": 1024, "M": 1024},
    "fdtd2d.c": {"T": 16, "NX": 512, "NY": 512},
    "heat3d_27pt.c": {"T": 12, "N": 64, "M": 64, "K": 64},
}


def updates(sizes, kernel):
    """Statement instances: interior points times steps (the kernels' loops start at 1)."""
    t = sizes["T"]
    if kernel.startswith("fdtd"):  # ey row 0, ey, ex, hz
        nx, ny = sizes["NX"], sizes["NY"]
        return t * (ny + (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1))
    dims = [sizes[k] for k in ("N", "M", "K") if k in sizes]
    n = 1
    for d in dims:
        n *= d - 2
    return t * n


# (row label, JIT_TILING, JIT_STAGE, JIT_TILE, other variables): the steps of the thesis's
# Table 4 side by side, at the tile model's sizes: values in global memory; staged in shared
# memory with the whole box copied in and every value written through; with only the live-out
# values stored (interleaved copy-out); with a full tile copying only its flow-in (the default)
STEPS = [("global memory", "0", {}),
         ("shared: box in, all written through", "1", {"JIT_LIVEOUT": "0", "JIT_FLOWIN": "0"}),
         ("shared: box in, live-out stores", "1", {"JIT_FLOWIN": "0"}),
         ("shared: flow-in, live-out stores", "1", {})]
MODES = [("per step", "", "1", "", {})] + [
    ("%s, %s" % (tiling, step), tiling, stage, "", extra)
    for tiling in ("hybrid", "split") for step, stage, extra in STEPS]
# and at sizes whose boxes exceed the 48 KB of static shared memory (staged in dynamic shared
# memory, the kernel opting in), the same tiles with their values in global memory beside them
FORCED = {
    "heat3d_27pt.c": [("hybrid", "h=1,w=4x16x32"), ("hybrid", "h=3,w=8x8x32"),
                      ("split", "h=2,w=8x16x32")],
}


def modes(kernel):
    rows = list(MODES)
    for tiling, tile in FORCED.get(kernel, []):
        sizes = tile.replace(",", " ")
        rows += [("%s %s, global memory" % (tiling, sizes), tiling, "0", tile, {}),
                 ("%s %s, shared memory" % (tiling, sizes), tiling, "1", tile, {})]
    return rows


def run(build, kernel, sizes, tiling, stage, tile=None, extra=None):
    env = dict(os.environ, JIT_CACHE="off", JIT_STAGE=stage)
    for var in ("JIT_TILING", "JIT_TILE", "JIT_LIVEOUT", "JIT_FLOWIN"):
        env.pop(var, None)
    env.update(extra or {})
    if tiling:
        env["JIT_TILING"] = tiling
    if tile:
        env["JIT_TILE"] = tile
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        stats = f.name
    env["JIT_EMU_STATS"] = stats
    cmd = [os.path.join(build, "stenciljit"), "run", "--device", "emu", "--check",
           os.path.join(ROOT, "tests", "kernels", kernel)]
    for k, v in sizes.items():
        cmd += ["-D", "%s=%d" % (k, v)]
    t0 = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    out = p.stdout + p.stderr
    sums, launches, blocks, shared, records = {}, 0, 0, 0, []
    with open(stats) as f:
        for line in f:
            rec = json.loads(line)
            rec.pop("instructions_by_class", None)
            records.append(rec)
            launches += 1
            blocks = max(blocks, rec["grid"][0] * rec["grid"][1] * rec["grid"][2])
            shared = max(shared, rec.get("dynamic_shared_bytes", 0))
            for key in ("instructions", "global_sectors", "unique_sectors",
                        "l2_model_dram_bytes", "barriers", "shared_loads", "shared_stores",
                        "bank_conflicts"):
                sums[key] = sums.get(key, 0) + rec.get(key, 0)
    os.unlink(stats)
    compile_ms = re.search(r"compile: ([0-9.]+) ms", out)
    return {
        "ok": p.returncode == 0 and "bit-identical" in out,
        "compile_ms": float(compile_ms.group(1)) if compile_ms else -1,
        "launches": launches,
        "blocks": blocks,
        "shared": shared,
        "wall": wall,
        "records": records,  # per launch, as the emulator wrote them
        **sums,
    }


def row_text(label, mode, n, r):
    if r["shared"] > 48 * 1024:
        mode += " (%d B dynamic)" % r["shared"]
    return ("| %s | %s | %s | %d | %d | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %.1f |\n" % (
        label, mode, "yes" if r["ok"] else "**NO**", r["launches"], r["blocks"],
        r.get("instructions", 0) / n, r.get("global_sectors", 0) / n,
        (r.get("shared_loads", 0) + r.get("shared_stores", 0)) / n,
        r.get("bank_conflicts", 0) / n,
        32.0 * r.get("unique_sectors", 0) / n, r.get("l2_model_dram_bytes", 0) / n,
        r.get("barriers", 0), r["compile_ms"]))


def header(load):
    """The paragraph above the table; load: the load average of the run."""
    return ("Written by `bench/tiling_emu.py`. No GPU: every count is the project's PTX "
            "emulator's **model** (instructions summed over threads; global sectors "
            "touched; unique 32-byte sectors per launch; DRAM bytes through the modeled "
            "50 MB L2 with the blocks of a wave advancing together). Time-tiled kernels run "
            "in the steps of the thesis's Table 4: their values in global memory "
            "(JIT_STAGE=0); staged in shared memory, each block copying the box its tile "
            "touches in and writing every result through to global memory (JIT_LIVEOUT=0 "
            "JIT_FLOWIN=0); storing to global memory only the values another tile or the "
            "caller reads (live-out stores, interleaved with the steps: JIT_FLOWIN=0); and a "
            "full tile copying in only its flow-in (the default). All mappings of a "
            "kernel run in the same invocation, on the same data, each checked "
            "bit-identical against the C function (`--check`). Compile: cold, JIT_CACHE=off, "
            "this CPU (load %s). Blocks: the largest grid of a launch; in a hybrid launch "
            "the blocks whose tile lies outside the wavefront exit at once. Tile sizes: "
            "the tile model's (sched/tile_model.c) for each tiling, and where a row names "
            "them, forced (JIT_TILE) at sizes whose boxes exceed the 48 KB of static "
            "shared memory: staged in dynamic shared memory (the bytes per block in the "
            "row), beside the same tiles in global memory.\n" % load)


def merge(results, kernel, texts, load):
    """Replaces kernel's rows of the table in results by texts, in their place, and says so
    below the table; the other rows and the run's load are kept."""
    with open(results) as f:
        lines = f.readlines()
    stem = "| %s " % kernel[:-2]
    at = next((i for i, l in enumerate(lines) if l.startswith(stem)), len(lines))
    out = []
    for i, line in enumerate(lines):
        if i == at:
            out += texts
        if line.startswith(stem) or line.startswith("Measured again on their own"):
            continue
        if line.startswith("Written by"):
            old = re.search(r"\(load ([0-9.]+)\)", line)
            line = header(old.group(1) if old else "?")
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    out.append("\nMeasured again on their own (load %s): the %s rows; the others are those of "
               "the whole run.\n" % (load, kernel[:-2]))
    with open(results, "w") as f:
        f.writelines(out)


def main():
    build, results = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    medium = "--medium" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] + ".c" if "--only" in sys.argv else None
    rows = []
    for label, kernel, sizes in CASES:
        if only and kernel != only:
            continue
        if quick:
            sizes = {k: QUICK[k] for k in sizes}
            label = kernel + " (quick)"
        elif medium:
            sizes = MEDIUM[kernel]
            label = "%s %s" % (kernel[:-2], " ".join("%s=%d" % kv for kv in sizes.items()))
        n = updates(sizes, kernel)
        for mode, tiling, stage, tile, extra in modes(kernel):
            r = run(build, kernel, sizes, tiling, stage, tile, extra)
            rows.append((label, mode, n, r))
            print(label, mode, r, flush=True)
    load = open("/proc/loadavg").read().split()[0]
    if only:
        merge(results, only, [row_text(*row) for row in rows], load)
        return 0 if all(r["ok"] for _, _, _, r in rows) else 1
    with open(results, "w") as out:
        out.write("# Per-step mapping against hybrid and split time tiling (emulator model)\n\n")
        out.write(header(load) + "\n")
        out.write("| kernel | mapping | bit-identical | launches | blocks/launch | instr/update "
                  "| global sectors/update | shared requests/update | bank conflicts/update "
                  "| unique B/update "
                  "| L2-model DRAM B/update | barriers | compile ms |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for row in rows:
            out.write(row_text(*row))
    return 0 if all(r["ok"] for _, _, _, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
