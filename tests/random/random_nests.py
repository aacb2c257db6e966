#!/usr/bin/env python3
"""Random affine loop nests that are not stencils, each checked bit for bit against the C
function itself.

Every nest is drawn from a seed: one to three statements over two or three loops, rectangular
or triangular bounds, subscripts with offsets, transposes and a dimension dropped, reductions
into an element (`C[i][j] += A[i][k] * B[k][j]`) and max norms (`fmax(x, fabs(...))`), in-place
updates that carry dependences along a loop, and ifs on the iterators and on data. They go through isl's scheduler and the GPU mapping
(sched/reorder.c, sched/baseline.c) rather than the stencil form. Each runs through
`stenciljit run --check` on the device its seed draws; anything but a bit-identical result
fails.

usage: random_nests.py STENCILJIT FIRST_SEED COUNT [WORK_DIR]
"""
import sys

from check_run import check, seeds


def nest(rng, name):
    ty = rng.choice(["float", "double", "int"])
    depth = rng.choice([2, 2, 3])
    it = ["i", "j", "k"][:depth]
    arrays = {"A": ["N", "N"], "B": ["N", "N"], "C": ["N", "N"], "x": ["N"], "y": ["N"]}
    stmts = []
    for _ in range(rng.randint(1, 3)):
        loops = []
        for d in range(depth):
            lo, hi = "0", "N"
            if d > 0 and rng.random() < 0.35:  # triangular
                lo, hi = rng.choice([("0", it[d - 1]), (f"{it[d - 1]} + 1", "N"), ("0", f"{it[d - 1]} + 1")])
            loops.append((it[d], lo, hi))

        def ref(arr, target=False):
            dims = arrays[arr]
            subs = []
            for _ in dims:
                v = rng.choice(it)
                off = rng.choice([0, 0, 0, 1, -1])
                subs.append((v, off))
            # keep subscripts in [0, N): an offset is taken off the loop's range by min/max guards
            return arr, subs

        target = rng.choice(["C", "C", "A", "y", "x"])
        kind = rng.choice(["assign", "reduce", "inplace"])
        lhs_arr, lhs = ref(target)
        terms = [ref(rng.choice(["A", "B", "x"])) for _ in range(rng.randint(1, 3))]
        cond = None
        if rng.random() < 0.3:
            a, b = rng.sample(it, 2) if depth > 1 else (it[0], it[0])
            cond = f"{a} {rng.choice(['<', '<=', '!=', '>'])} {b}"
        if ty != "int" and rng.random() < 0.25:  # a max norm: fmax(x, fabs(value))
            kind = "max"
        data = ref(rng.choice(["A", "B", "x"])) if rng.random() < 0.2 else None  # an if on data
        stmts.append((loops, lhs_arr, lhs, terms, kind, cond, data))
    params = ["int N"] + [f"{ty} {a}" + "".join(f"[{d}]" for d in dims) for a, dims in arrays.items()]
    body = []
    for loops, lhs_arr, lhs, terms, kind, cond, data in stmts:
        ind = "  "
        for v, lo, hi in loops:
            body.append(f"{ind}for (int {v} = {lo}; {v} < {hi}; {v}++)")
            ind += "  "

        def text(arr, subs):
            out = arr
            for v, off in subs:
                if off == 0:
                    out += f"[{v}]"
                elif off > 0:  # wraps at the edge: (v + 1) % N stays in bounds
                    out += f"[({v} + {off}) % N]"
                else:
                    out += f"[({v} + N - {-off}) % N]"
            return out

        value = " + ".join(f"{rng.choice(['0.5', '0.25', '2', '3'] if ty != 'int' else ['2', '3'])}"
                           f" * {text(a, s)}" for a, s in terms)
        if ty == "float":
            value = value.replace("0.5 ", "0.5f ").replace("0.25 ", "0.25f ")
        if ty == "int":
            value = f"({value}) % 1000"
        target = text(lhs_arr, lhs)
        if kind == "reduce":
            line = f"{target} += {value};"
        elif kind == "max":
            f = "f" if ty == "float" else ""
            line = f"{target} = fmax{f}({target}, fabs{f}({value}));"
        elif kind == "inplace":
            line = f"{target} = {target} * {'0.5' if ty != 'int' else '3'} + {value};"
        else:
            line = f"{target} = {value};"
        if data:
            test = f"{text(*data)} > {'0.5' if ty != 'int' else '4'}"
            cond = f"{cond} && {test}" if cond else test
        if cond:
            line = f"if ({cond}) {line}"
        body.append(f"{ind}{line}")
    return (f"#include <math.h>\nvoid {name}({', '.join(params)}) {{\n" + "\n".join(body) +
            "\n}\n")


def main():
    cli, draws = seeds("nest")
    failures, count = 0, len(draws)
    for rng, name, path in draws:
        src = nest(rng, name)
        with open(path, "w") as f:
            f.write(src)
        n = rng.choice([1, 2, 3, 7, 16, 33, 50])
        device = rng.choice(["cpu", "emu", "emu"])
        cmd = [cli, "run", path, "-D", f"N={n}", "--device", device, "--check"]
        failures += not check(cmd, src, name)
    print(f"{count - failures} of {count} random nests bit-identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
