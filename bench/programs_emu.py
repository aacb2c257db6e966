#!/usr/bin/env python3
"""Real programs as their authors wrote them (tests/kernels: Rodinia's hotspot, Parboil's
stencil, a time loop between a copy and a sum), per step against hybrid and split time tiling,
side by side in one run on the emulator. Each run is checked bit for bit against the C function (`--check`). Every figure is
the emulator's MODEL, not a GPU measurement; the compile time is the CLI's, CPU side.

usage: programs_emu.py BUILD_DIR RESULTS.md [LABEL]  (only the programs whose label holds LABEL)
"""
import sys

from tiling_emu import run

# (label, kernel file, sizes, updates per run: statement instances of the stencil)
CASES = [
    ("Rodinia hotspot 512², 16 iterations", "rodinia_hotspot.c",
     {"num_iterations": 16, "row": 512, "col": 512}, 16 * 512 * 512),
    ("Parboil stencil 96³, 8 iterations", "parboil_stencil.c",
     {"iteration": 8, "nx": 96, "ny": 96, "nz": 96}, 8 * 94 ** 3),
    ("heat-2d with a copy before and a sum after 1024², 32 steps", "parts_heat2d.c",
     {"T": 32, "N": 1024}, 32 * 2 * 1022 ** 2),
    ("heat-2d with a copy before and a sum after 3072², 64 steps", "parts_heat2d.c",
     {"T": 64, "N": 3072}, 64 * 2 * 3070 ** 2),
]
MAPPINGS = [("the library's choice", None), ("per step (JIT_TILING=none)", "none"),
            ("hybrid (forced)", "hybrid"), ("split (forced)", "split")]


def main():
    build, results = sys.argv[1], sys.argv[2]
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    lines = ["# Real programs as written (emulator model)\n\n", __doc__.split("\n\n")[0] + "\n\n",
             "| program | mapping | bit-identical | launches | instr/update "
             "| global sectors/update | L2-model DRAM B/update | compile ms |\n",
             "|---|---|---|---:|---:|---:|---:|---:|\n"]
    ok = True
    for label, kernel, sizes, n in (c for c in CASES if only in c[0]):
        for mode, tiling in MAPPINGS:
            r = run(build, kernel, sizes, tiling, "1")
            ok &= r["ok"]
            lines.append("| %s | %s | %s | %d | %.1f | %.3f | %.3f | %.1f |\n" % (
                label, mode, "yes" if r["ok"] else "**NO**", r["launches"],
                r.get("instructions", 0) / n, r.get("global_sectors", 0) / n,
                r.get("l2_model_dram_bytes", 0) / n, r["compile_ms"]))
            print(lines[-1], end="", flush=True)
    with open(results, "w") as out:
        out.writelines(lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
