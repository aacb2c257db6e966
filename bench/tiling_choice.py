#!/usr/bin/env python3
"""Per step, hybrid and split side by side for every stencil kernel of tests/kernels, the
automatic choice marked, the tile model's prediction beside the emulator's counts, and
whether the model ranks hybrid and split the way the emulator's counts do (issue 10).

For each kernel whose explanation has a tile model line (the stencils), at a size larger
than its test sizes (the last `run:` line of its comment, each space extent raised to RANK
below), it reads the model's time of each mapping and the automatic choice from
`stenciljit schedule`, runs each mapping on the emulator (`stenciljit run --device emu
--check`, bit-identical to the C function or the row says NO) and puts a roofline of the
emulator's counts beside the model: launches x the launch cost + the larger of the DRAM
time (the L2 model's bytes at the H100's streaming bandwidth) and the issue time (warp
instructions and barriers over 132 multiprocessors). Every figure is a model: the tile
model's, or a roofline of the emulator's counts; no GPU is involved.

Usage: tiling_choice.py BUILD_DIR RESULTS.md [--quick]
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiling_emu import ROOT, run  # noqa: E402

# space extents per number of space dimensions (the time loop's extent is T)
RANK = {1: (64, 1 << 18), 2: (32, 768), 3: (12, 96)}

# the H100 the tile model assumes (sched/tile_model.c): launch cost, streaming DRAM
# bandwidth, multiprocessors, warp instructions per multiprocessor and clock, clock,
# multiprocessor clocks per barrier
LAUNCH_S, DRAM_BW, SMS, ISSUE_CLK, CLOCK_HZ, BARRIER_CLK = 2.3e-6, 3.35e12 * 0.83, 132, 4, 1.98e9, 250
MAPPINGS = [("per step", "baseline"), ("hybrid", "hybrid"), ("split", "split")]


def cli(build, kernel, sizes, env_extra):
    env = dict(os.environ, JIT_CACHE="off", **env_extra)
    cmd = [os.path.join(build, "stenciljit"), "schedule", "--device", "emu",
           os.path.join(ROOT, "tests", "kernels", kernel)]
    for k, v in sizes.items():
        cmd += ["-D", "%s=%d" % (k, v)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True).stdout


def space_dims(build, kernel, sizes):
    """Space loops of the deepest statement (a kernel may have fewer size parameters than
    dimensions: jacobi2d_copyback's N x N)."""
    explain = cli(build, kernel, sizes, {})
    iters = re.findall(r"^  S\d+ \(line \d+\): \{ \S+\[([^\]]*)\]", explain, re.M)
    return max((len(v.split(",")) - 1 for v in iters), default=0)


def sizes_for(build, kernel, quick):
    """The last `run:` line of the kernel's comment, with T and the space extents raised to
    RANK by the kernel's space dimensions (--quick: as they are)."""
    text = open(os.path.join(ROOT, "tests", "kernels", kernel)).read()
    runs = re.findall(r"^// run: (.*)$", text, re.M)
    if not runs:
        return None
    sizes = {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", runs[-1])}
    if "T" not in sizes:
        return None
    space = [k for k in sizes if k != "T"]
    dims = space_dims(build, kernel, sizes)
    if dims not in RANK:
        return None
    steps, extent = RANK[dims]
    if not quick:
        sizes["T"] = max(sizes["T"], steps)
        for k in space:
            sizes[k] = max(sizes[k], extent)
    return sizes


def instances(explain):
    """Statement instances, from the explanation's domains when each is a box."""
    total = 0
    for dom in re.findall(r"^  S\d+ \(line \d+\): \{ \S+\[([^\]]*)\] : (.*) \}$", explain, re.M):
        names, cons = [v.strip() for v in dom[0].split(",")], dom[1]
        n = 1
        for v in names:
            m = re.search(r"(-?\d+) (<=?) %s (<=?) (-?\d+)" % re.escape(v), cons)
            if not m:
                return None
            lo = int(m.group(1)) + (m.group(2) == "<")
            hi = int(m.group(4)) - (m.group(3) == "<")
            n *= max(0, hi - lo + 1)
        if " or " in cons:
            return None
        total += n
    return total or None


def model_times(explain):
    """The tile model's best candidate of each mapping: time in ms, (B/update, instr/update)."""
    times, best = {}, {}
    for name, _ in MAPPINGS:
        c = re.search(r"^    %s(?: h=\S+ w=\S+)?(?: staged)?: ([0-9.]+) B/update, ([0-9.]+) "
                      r"instr/update.*?([0-9.]+) ms" % name, explain, re.M)
        if c:
            best[name] = (float(c.group(1)), float(c.group(2)))
            times[name] = float(c.group(3))
    return times, best


def chosen(explain):
    line = re.search(r"^GPU schedule: (.*)$", explain, re.M).group(1)
    if line.startswith("hybrid"):
        return "hybrid"
    if line.startswith("split"):
        return "split"
    return "per step"


def roofline_ms(r):
    dram = r.get("l2_model_dram_bytes", 0) / DRAM_BW
    issue = (r.get("instructions", 0) / 32 / ISSUE_CLK + r.get("barriers", 0) * BARRIER_CLK) / (
        SMS * CLOCK_HZ)
    return 1e3 * (r["launches"] * LAUNCH_S + max(dram, issue))


def main():
    build, results = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    rows, agree, compared = [], 0, 0
    for kernel in sorted(os.listdir(os.path.join(ROOT, "tests", "kernels"))):
        sizes = kernel.endswith(".c") and sizes_for(build, kernel, quick)
        if not sizes:
            continue
        explain = cli(build, kernel, sizes, {})
        times, best = model_times(explain)
        if "hybrid" not in times and "split" not in times:
            continue
        n = instances(explain)
        auto = chosen(explain)
        emu = {}
        for name, tiling in MAPPINGS:
            r = run(build, kernel, sizes, tiling, "1")
            emu[name] = r
            print(kernel, name, r, flush=True)
        label = "%s %s" % (kernel[:-2], " ".join("%s=%d" % kv for kv in sizes.items()))
        for name, _ in MAPPINGS:
            rows.append((label, name, name == auto, times.get(name), best.get(name), emu[name], n))
        if "hybrid" in times and "split" in times and all(emu[k]["ok"] for k in emu):
            compared += 1
            model_order = times["hybrid"] < times["split"]
            emu_order = roofline_ms(emu["hybrid"]) < roofline_ms(emu["split"])
            agree += model_order == emu_order
            rows[-1] = rows[-1] + (model_order == emu_order,)
    load = open("/proc/loadavg").read().split()[0]
    with open(results, "w") as out:
        out.write("# Per step, hybrid and split for every stencil kernel: the tile model against "
                  "the emulator\n\nWritten by `bench/tiling_choice.py`%s. No GPU: the tile "
                  "model's figures (sched/tile_model.c, H100 constants) beside the emulator's "
                  "counts for the code printed now (values in shared memory where they fit), and "
                  "a roofline of those counts (launches x %.1f us + the larger of the L2 model's "
                  "DRAM bytes at %.0f GB/s and the warp instructions and barriers issued on %d "
                  "multiprocessors at %.2f GHz): **models, not GPU times**. The automatic choice "
                  "is marked with *. Every run checked against the C function (`--check`). "
                  "This CPU's load: %s.\n\n" % (
                      " --quick" if quick else "", LAUNCH_S * 1e6, DRAM_BW / 1e9, SMS,
                      CLOCK_HZ / 1e9, load))
        out.write("Ranking: the model orders hybrid and split as the roofline of the emulator's "
                  "counts does on **%d of %d** kernels (%.0f%%; target: 90%%).\n\n" % (
                      agree, compared, 100.0 * agree / compared if compared else 0))
        out.write("| kernel | mapping | model ms | roofline of emulator ms | model B/update | "
                  "emulator L2-model DRAM B/update | model instr/update | emulator instr/update "
                  "| launches | bit-identical | same order as the emulator |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|\n")
        for row in rows:
            label, name, is_auto, t, b, r, n = row[:7]
            same = ("yes" if row[7] else "**no**") if len(row) > 7 else ""
            per = (lambda key: "%.3f" % (r.get(key, 0) / n)) if n else (lambda key: "?")
            out.write("| %s | %s%s | %s | %.3f | %s | %s | %s | %s | %d | %s | %s |\n" % (
                label, name, " *" if is_auto else "", "%.3f" % t if t is not None else "-",
                roofline_ms(r), "%.2f" % b[0] if b else "-", per("l2_model_dram_bytes"),
                "%.1f" % b[1] if b else "-", per("instructions"), r["launches"],
                "yes" if r["ok"] else "**NO**", same))
    return 0 if all(row[5]["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
