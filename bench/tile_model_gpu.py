#!/usr/bin/env python3
"""The tile model against GPU times: each candidate of a sweep that `scripts/device-run.sh`
measured on a GPU (its tile-sweep table: stencil, sizes, candidate, the model's ms then, the GPU's
ms) is modeled again by the tool at hand, forced as it ran (JIT_TILING, JIT_TILE), on the emulator
device presenting the measured GPU's memory system (JIT_EMU_MEM_CLOCK_KHZ, JIT_EMU_BUS_BITS). It
prints each candidate's figures, then per stencil the pairs of candidates the model orders as the
GPU did and how much slower than the fastest measured the model's first candidate ran. The model
figures are models; only the GPU column is a measurement.

usage: tile_model_gpu.py STENCILJIT KERNEL_DIR SWEEP.md [--mem-clock-khz K --bus-bits B]
(defaults: an H200's 3201000 kHz and 6144 bits; the sweep of bench/results/gpu-NVIDIA-H200.md)
"""
import argparse
import itertools
import os
import re
import subprocess
import sys


def sweep_rows(path):
    """The rows of the first table whose header starts with '| stencil | sizes | candidate'."""
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("| stencil | sizes | candidate"):
            inside = True
            continue
        if not inside or line.startswith("|---"):
            continue
        if not line.startswith("| "):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        try:
            rows.append((cells[0], cells[1], cells[2], float(cells[3]), float(cells[4])))
        except (IndexError, ValueError):
            continue
    return rows


def modeled(tool, kernels, stencil, sizes, candidate, env):
    """The model's ms for candidate, forced, from `stenciljit schedule`'s candidate lines."""
    defs = []
    for kv in sizes.split():
        defs += ["-D", kv]
    env = dict(env)
    key = "per step"
    if candidate == "per step":
        env["JIT_TILING"] = "hybrid"  # the per-step line comes with the candidates
    else:
        m = re.match(r"(hybrid|split) h=(\d+) w=(\S+)", candidate)
        if not m:
            return None
        env["JIT_TILING"], env["JIT_TILE"] = m.group(1), "h=%s,w=%s" % (m.group(2), m.group(3))
        key = "%s h=%s w=%s" % m.groups()
    out = subprocess.run([tool, "schedule", os.path.join(kernels, stencil + ".c")] + defs +
                         ["--device", "emu"], env=env, capture_output=True, text=True,
                         timeout=900).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith(key + ":") or line.startswith(key + " staged:"):
            m = re.search(r"([0-9.]+) ms", line)
            return float(m.group(1)) if m else None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("kernels")
    ap.add_argument("sweep")
    ap.add_argument("--mem-clock-khz", default="3201000")
    ap.add_argument("--bus-bits", default="6144")
    a = ap.parse_args()
    env = dict(os.environ, JIT_EMU_MEM_CLOCK_KHZ=a.mem_clock_khz, JIT_EMU_BUS_BITS=a.bus_bits,
               JIT_CACHE="off")
    env.pop("JIT_TILE", None)
    rows = sweep_rows(a.sweep)
    if not rows:
        sys.exit("no tile-sweep table in %s" % a.sweep)
    print("| stencil | sizes | candidate | model ms then | model ms now | GPU ms |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for stencil, sizes, cand, then, gpu in rows:
        now = modeled(a.tool, a.kernels, stencil, sizes, cand, env)
        print("| %s | %s | %s | %.3f | %s | %.3f |" %
              (stencil, sizes, cand, then, "%.3f" % now if now else "?", gpu))
        groups.setdefault((stencil, sizes), []).append((cand, then, now, gpu))
    agree = {"then": [0, 0], "now": [0, 0]}
    print()
    for (stencil, sizes), g in groups.items():
        line = []
        for which, col in (("then", 1), ("now", 2)):
            known = [r for r in g if r[col] is not None]
            pairs = [(p, q) for p, q in itertools.combinations(known, 2) if p[3] != q[3]]
            same = sum((p[col] < q[col]) == (p[3] < q[3]) for p, q in pairs)
            agree[which][0] += same
            agree[which][1] += len(pairs)
            first = min(known, key=lambda r: r[col])
            line.append("%s %d/%d pairs, first %s at %.2fx the fastest" %
                        (which, same, len(pairs), first[0], first[3] / min(r[3] for r in g)))
        print("- %s %s: %s" % (stencil, sizes, "; ".join(line)))
    for which in ("then", "now"):
        same, total = agree[which]
        print("pairs ordered as the GPU, model %s: %d of %d (%.0f%%)" %
              (which, same, total, 100.0 * same / max(total, 1)))


if __name__ == "__main__":
    main()
