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
time (the L2 model's bytes at the H100's streaming bandwidth) and the busiest
multiprocessor's time (see roofline_ms). Every figure is a model: the tile model's, or a
roofline of the emulator's counts; no GPU is involved.

Usage: tiling_choice.py BUILD_DIR RESULTS.md [--quick] [--only KERNEL[,KERNEL...]]
(--only: those kernels of tests/kernels, without .c, and no others)
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
# the H100's limits on resident blocks per multiprocessor: blocks, threads, shared memory
# (bytes, and what the system reserves per block)
SM_BLOCKS, SM_THREADS, SM_SHARED, BLOCK_RESERVED = 32, 2048, 228 << 10, 1 << 10
# clocks between two dependent instructions of one warp (an integer or float operation's
# latency): a warp issues at most one instruction every DEP_CLK clocks, so a multiprocessor's
# 4 schedulers issue at full rate only with 4 x DEP_CLK warps or more resident
DEP_CLK = 4
# a multiprocessor's shared memory and L1 move 128 bytes a clock: a warp's shared load or
# store (4-byte lanes) a clock, one more per bank conflict, 4 global sectors a clock
MIO_SECTORS_CLK = 4
MAPPINGS = [("per step", "baseline"), ("hybrid", "hybrid"), ("split", "split")]


def cli(build, kernel, sizes, env_extra):
    env = dict(os.environ, JIT_CACHE="off", JIT_EXPLAIN_DEPS="0", **env_extra)
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
    """The tile model's best candidate of each mapping: time in ms, (B/update, instr/update).
    A kernel of several nests has a model line for each: their times add up (a nest without
    candidates of a mapping runs per step there); the figures per update are those of the first
    nest with a candidate of the mapping."""
    nests, best = [], {}
    for part in re.split(r"^tile model ", explain, flags=re.M)[1:]:
        mine = {}
        for name, _ in MAPPINGS:
            c = re.search(r"^    %s(?: h=\S+ w=\S+)?(?: staged)?: ([0-9.]+) B/update, ([0-9.]+) "
                          r"instr/update.*?([0-9.]+) ms" % name, part, re.M)
            if c:
                best.setdefault(name, (float(c.group(1)), float(c.group(2))))
                mine[name] = float(c.group(3))
        nests.append(mine)
    times = {}
    for name in best:
        if all(name in mine or "per step" in mine for mine in nests):
            times[name] = sum(mine.get(name, mine.get("per step", 0)) for mine in nests)
    return times, best


def chosen(explain):
    line = re.search(r"^GPU schedule: (.*)$", explain, re.M).group(1)
    if line.startswith("hybrid"):
        return "hybrid"
    if line.startswith("split"):
        return "split"
    return "per step"


def resident(rec):
    """Blocks of the launch resident at once on a multiprocessor (the H100's limits)."""
    threads = rec["block"][0] * rec["block"][1] * rec["block"][2]
    shared = rec.get("dynamic_shared_bytes", 0) or rec.get("shared_bytes", 0)
    limit = min(SM_BLOCKS, SM_THREADS // threads)
    if shared:
        limit = min(limit, SM_SHARED // (shared + BLOCK_RESERVED))
    return max(1, limit)


def launch_s(rec):
    """One launch: the launch cost + the larger of its DRAM time and its busiest
    multiprocessor's time. A block runs on one multiprocessor, so a launch of B blocks
    occupies min(B, 132) of them, ceil(B / 132) blocks on each, of which `resident` run at
    once (waves of them); a multiprocessor issues 4 warp instructions a clock at most, and a
    warp one every DEP_CLK clocks, so fewer than 4 x DEP_CLK resident warps issue less. Its
    time is at least the launch's instructions spread over the occupied multiprocessors at
    that rate, and at least the busiest block's alone on one (blocks outside a tiled launch's
    wavefront exit at once: the work is on fewer blocks than the grid); and each wave takes at
    least the busiest block's chain of barriers (BARRIER_CLK each)."""
    blocks = rec["grid"][0] * rec["grid"][1] * rec["grid"][2]
    warps = -(-rec["block"][0] * rec["block"][1] * rec["block"][2] // 32)
    per_sm = -(-blocks // SMS)
    at_once = min(per_sm, resident(rec))
    waves = -(-per_sm // at_once)
    spread = rec.get("instructions", 0) / 32 / min(blocks, SMS) / min(
        ISSUE_CLK, at_once * warps / DEP_CLK)
    alone = rec.get("busiest_block_instructions", 0) / 32 / min(ISSUE_CLK, warps / DEP_CLK)
    chain = waves * rec.get("busiest_block_barriers", 0) * BARRIER_CLK
    # the shared-memory and L1 pipe, spread as the instructions are (the busiest block's share)
    mio = (rec.get("shared_loads", 0) + rec.get("shared_stores", 0) + rec.get("bank_conflicts", 0)
           + rec.get("global_sectors", 0) / MIO_SECTORS_CLK)
    busiest = rec.get("busiest_block_instructions", 0) / max(1, rec.get("instructions", 0))
    pipe = mio * max(1 / min(blocks, SMS), busiest)
    dram = rec.get("l2_model_dram_bytes", 0) / DRAM_BW
    return LAUNCH_S + max(dram, max(spread, alone, chain, pipe) / CLOCK_HZ)


def roofline_ms(r):
    return 1e3 * sum(launch_s(rec) for rec in r["records"])


def main():
    build, results = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    rows, agree, compared = [], 0, 0
    for kernel in sorted(os.listdir(os.path.join(ROOT, "tests", "kernels"))):
        if only and kernel[:-2] not in only:
            continue
        sizes = kernel.endswith(".c") and sizes_for(build, kernel, quick)
        if not sizes:
            continue
        explain = cli(build, kernel, sizes, {})
        # the model's best of each tiling: forced, as the automatic choice searches no sizes
        # where the per-step run is modeled below the 1 ms a tiling must save
        times, best = model_times(cli(build, kernel, sizes, {"JIT_TILING": "hybrid"}))
        if "hybrid" not in times and "split" not in times:
            continue
        n = instances(explain)
        auto = chosen(explain)
        emu = {}
        for name, tiling in MAPPINGS:
            r = run(build, kernel, sizes, tiling, "1")
            emu[name] = r
            print(kernel, name, {k: v for k, v in r.items() if k != "records"}, flush=True)
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
                  "a roofline of those counts, launch by launch: %.1f us + the larger of the L2 "
                  "model's DRAM bytes at %.0f GB/s and the busiest multiprocessor's time at %.2f "
                  "GHz: **models, not GPU times**. The automatic choice is marked with *. Every "
                  "run checked against the C function (`--check`). This CPU's load: %s.\n\n"
                  "The busiest multiprocessor: a block runs on one multiprocessor, so a launch of "
                  "B blocks occupies min(B, %d) of them, ceil(B / %d) blocks on each, of which as "
                  "many run at once as its limits allow (%d blocks, %d threads, %d KB of shared "
                  "memory less 1 KB a block). A multiprocessor issues %d warp instructions a "
                  "clock at most, and a warp one every %d clocks (a dependent operation's "
                  "latency), so fewer resident warps issue less. Its time is at least the "
                  "launch's instructions spread over the occupied multiprocessors at that rate, "
                  "at least the busiest block's instructions alone on one (the emulator's "
                  "`busiest_block_instructions`: blocks outside a tiled launch's wavefront exit "
                  "at once, so the work is on fewer blocks than the grid), and per wave at least "
                  "the busiest block's chain of barriers (%d clocks each), and at least its "
                  "shared-memory and L1 traffic at 128 bytes a clock (a warp's shared load or "
                  "store a clock, one more per bank conflict, %d global sectors a clock), spread "
                  "as the instructions are. An earlier yardstick "
                  "spread every launch's instructions over all %d multiprocessors: a launch whose "
                  "work is on 57 blocks (hybrid tiles of the 3-D stencils at 96^3) cannot use "
                  "more than 57 of them.\n\n" % (
                      " --quick" if quick else "", LAUNCH_S * 1e6, DRAM_BW / 1e9,
                      CLOCK_HZ / 1e9, load, SMS, SMS, SM_BLOCKS, SM_THREADS, SM_SHARED >> 10,
                      ISSUE_CLK, DEP_CLK, BARRIER_CLK, MIO_SECTORS_CLK, SMS))
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
