#!/usr/bin/env python3
"""Where a kernel's instructions go: the PTX with the emulator's count beside each line.

  JIT_EMU_PROFILE=prof.jsonl stenciljit run K.c ... --device emu
  stenciljit ptx K.c ... > k.ptx        (the same options: the same PTX)
  bench/emu/profile.py k.ptx prof.jsonl [UPDATES]

Counts are threads that ran the line, summed over every launch; with UPDATES, per update.
Each line of the PTX is printed with its count; lines that never ran are left blank, and a
label's line carries the count of the code up to the next label, so a region's share reads
off at its label. The emulator's counters, a model: not GPU time."""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().split("\n")
    per = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    count = [0] * (len(lines) + 2)
    for row in open(sys.argv[2]):
        for line, n in json.loads(row)["lines"].items():
            if int(line) > len(lines):
                sys.exit(f"line {line} is past the PTX's end: not the PTX that ran")
            count[int(line)] += n
    total = sum(count)
    region, start = 0, None
    regions = {}
    for i, text in enumerate(lines, 1):
        if text.startswith("$L") or text.startswith(".visible .entry"):
            if start is not None:
                regions[start] = region
            start, region = i, 0
        region += count[i]
    if start is not None:
        regions[start] = region
    fmt = (lambda v: f"{v / per:10.4f}") if per != 1.0 else (lambda v: f"{v:10d}")
    for i, text in enumerate(lines, 1):
        c = fmt(count[i]) if count[i] else " " * 10
        if i in regions and regions[i]:
            c = fmt(regions[i]) + " >"
            print(f"{c} {text}")
        else:
            print(f"{c}   {text}")
    print(f"# total {fmt(total).strip()}" + (" per update" if per != 1.0 else " instructions"))


if __name__ == "__main__":
    main()
