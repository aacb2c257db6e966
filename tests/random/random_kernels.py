#!/usr/bin/env python3
"""Random stencils, each checked bit for bit against the C function itself.

Every kernel is drawn from a seed: 1 to 3 space dimensions, radius 1 to 3 with asymmetric
offsets, int/float/double, double buffers written t % 2, t & 1 and (t & 1) ^ 1, arrays indexed by
the time step, copy-back and in-place updates, flat pointers with i * M + j subscripts, tables of
coefficients, helpers with early returns or assignments under ifs, x++ statements, ifs on data (masks, upwind choices), continue, bit
operators, the nest in a void function the time loop calls, nests before and after the time
loop (a body in parts, sched/parts.c), a test of the data that ends the time loop early (a
solver's convergence test on a sum or a flag, or a break or return; 1-D), the time loop's iterator declared before it
and written out after it. Each runs through
`stenciljit run --check` on the device and with the time tiling the seed draws (tile sizes
forced for some), at sizes that are and are not multiples of a tile, with
T = 0 and T = 1 among the step counts, and JIT_CHECK_TILES=1 (isl checks every tiling against
the exact dependences). A forced tiling that does not apply is refused and counts as a pass;
anything else but a bit-identical result fails.

usage: random_kernels.py STENCILJIT FIRST_SEED COUNT [WORK_DIR]
"""
import re
import sys

from check_run import check, seeds

WEIGHTS = [0.125, 0.25, 0.5, 0.0625, 0.375]


def literal(ty, w):
    return {"float": f"{w}f", "double": f"{w}"}.get(ty, str(max(1, int(w * 8))))


def subscript(it, off, flat_m=None):
    parts = [v if o == 0 else f"{v} {'+' if o > 0 else '-'} {abs(o)}" for v, o in zip(it, off)]
    if flat_m:  # one flat index, row-major
        return "[" + " + ".join(f"({p}) * {m}" for p, m in zip(parts, flat_m)) + "]"
    return "".join(f"[{p}]" for p in parts)


def kernel(rng, name):
    """(source, names of the extents, radius)"""
    dims = rng.choice([1, 1, 2, 2, 2, 3])
    ty = rng.choice(["float", "double", "int", "float"])
    names = ["N", "M", "K"][:dims]
    it = ["i", "j", "k"][:dims]
    offs = {(0,) * dims}
    reach = rng.randint(1, 3)
    for _ in range(rng.randint(1, 2 * dims + 3)):
        offs.add(tuple(rng.randint(-reach, reach) for _ in range(dims)))
    offs = sorted(offs)
    r = max(max(abs(c) for c in o) for o in offs)
    style = rng.choice(["mod", "and", "xor", "tarray", "copy", "inplace", "flat", "pingpong",
                        "wave", "mod", "swap"])
    if style == "flat" and dims == 1:
        style = "mod"
    pre, params, body = [], ["int T"] + [f"int {n}" for n in names], []
    ext = "".join(f"[{n}]" for n in names)
    if rng.random() < 0.3:
        pre.append(f"static const {ty} W[{len(WEIGHTS)}] = {{" +
                   ", ".join(literal(ty, w) for w in WEIGHTS) + "};")
        weight = lambda: f"W[{rng.randrange(len(WEIGHTS))}]"
    else:
        weight = lambda: literal(ty, rng.choice(WEIGHTS))
    if style in ("mod", "and", "xor"):
        cur, nxt = {"mod": ("t % 2", "(t + 1) % 2"), "and": ("t & 1", "(t + 1) & 1"),
                    "xor": ("t & 1", "(t & 1) ^ 1")}[style]
        params.append(f"{ty} A[2]{ext}")
        src = lambda o: f"A[{cur}]" + subscript(it, o)
        dst = f"A[{nxt}]" + subscript(it, (0,) * dims)
    elif style == "wave":  # three time levels
        params.append(f"{ty} A[3]{ext}")
        src = lambda o: f"A[(t + {1 - sum(o) % 2}) % 3]" + subscript(it, o)
        dst = "A[(t + 2) % 3]" + subscript(it, (0,) * dims)
    elif style == "tarray":
        params.append(f"{ty} A[T + 1]{ext}")
        src = lambda o: "A[t]" + subscript(it, o)
        dst = "A[t + 1]" + subscript(it, (0,) * dims)
    elif style == "flat":
        strides = [" * ".join(names[d + 1:]) or "1" for d in range(dims)]
        params.append(f"{ty} *restrict A")
        params.append(f"{ty} *restrict B")
        src = lambda o: "A" + subscript(it, o, strides)
        dst = "B" + subscript(it, (0,) * dims, strides)
    elif style == "swap":  # two arrays swapped through pointers at the end of each step
        params += [f"{ty} A{ext}", f"{ty} B{ext}"]
        names_ab = ("cur", "nxt") if rng.random() < 0.5 else ("A", "B")
        src = lambda o: names_ab[0] + subscript(it, o)
        dst = names_ab[1] + subscript(it, (0,) * dims)
    elif style in ("copy", "pingpong"):
        params += [f"{ty} A{ext}", f"{ty} B{ext}"]
        src = lambda o: "A" + subscript(it, o)
        dst = "B" + subscript(it, (0,) * dims)
    else:  # in place: Gauss-Seidel order
        params.append(f"{ty} A{ext}")
        src = lambda o: "A" + subscript(it, o)
        dst = "A" + subscript(it, (0,) * dims)
    masked = rng.random() < 0.4
    if masked:
        params.append("const int mask" + ext)
    terms = " + ".join(f"{weight()} * {src(o)}" for o in offs)
    if ty == "int":
        terms = f"({terms}) / {len(offs) + rng.randint(0, 3)}"
    body.append(f"{ty} s = {terms};")
    here = src((0,) * dims)
    if ty == "int" and rng.random() < 0.5:
        body.append(f"s = s ^ ({here} >> {rng.randint(1, 3)});")
    if masked:
        mask = "mask" + subscript(it, (0,) * dims)
        body.append(rng.choice([
            f"if ({mask} > 0 && {it[-1]} > {r + 1}) s = s - {src((0,) * (dims - 1) + (-1,))};",
            f"if ({here} > s) {{ s = {here}; }} else if ({mask} == 0) s = s / 2;",
            f"if ({mask} != 0) s = {here};"]))
    if rng.random() < 0.3:
        bound = "1" if ty != "int" else "1000"
        pre.append(f"static inline {ty} clampv({ty} x, {ty} lo, {ty} hi) {{\n" + rng.choice([
            "  if (x < lo) return lo;\n  if (x > hi) return hi;\n  return x;\n}",
            f"  {ty} y;\n  if (x < lo) y = lo;\n  else {{\n    y = x;\n"
            "    if (y > hi) y = hi;\n  }\n  return y;\n}",
            f"  if (x > hi) {{\n    {ty} d = x - hi;\n    x -= d;\n  }} else if (x < lo) {{\n"
            "    x = lo;\n    return x;\n  }\n  return x;\n}"]))
        body.append(f"s = clampv(s, -{bound}, {bound});")
    if rng.random() < 0.2:
        body.append(f"s = s + {literal(ty, 0.001) if ty != 'int' else '1'} * t;")
    if rng.random() < 0.15:
        body.append(f"if ({here} > s) s++;\n{'  ' * (2 + dims)}else --s;")
    if rng.random() < 0.2:
        body.append(f"if ({it[-1]} % 5 == 1) {{ {dst} = {here}; continue; }}")
    body.append(f"{dst} = s;")
    lo = [r] * dims
    if rng.random() < 0.3:
        lo[rng.randrange(dims)] += rng.randint(1, 2)
    loops = "".join(f"{'  ' * (2 + d)}for (int {it[d]} = {lo[d]}; {it[d]} < {names[d]} - {r}; "
                    f"{it[d]}++)\n" for d in range(dims - 1))
    d = dims - 1
    loops += (f"{'  ' * (2 + d)}for (int {it[d]} = {lo[d]}; {it[d]} < {names[d]} - {r}; "
              f"{it[d]}++) {{\n")
    ind = "  " * (3 + d)
    text = "".join(f"{ind}{b}\n" for b in body) + f"{'  ' * (2 + d)}}}\n"
    copy_back = ""
    if style == "pingpong":  # the second nest computes A from B as the first B from A
        back = " + ".join(f"{weight()} * B{subscript(it, o)}" for o in offs)
        if ty == "int":
            back = f"({back}) / {len(offs) + 1}"
        copy_back = "".join(f"{'  ' * (2 + e)}for (int {it[e]} = {lo[e]}; {it[e]} < "
                            f"{names[e]} - {r}; {it[e]}++)\n" for e in range(dims))
        copy_back += f"{'  ' * (2 + dims)}A{subscript(it, (0,) * dims)} = {back};\n"
    elif style in ("copy", "flat"):
        copy_back = "".join(f"{'  ' * (2 + e)}for (int {it[e]} = {lo[e]}; {it[e]} < "
                            f"{names[e]} - {r}; {it[e]}++)\n" for e in range(dims))
        if style == "flat":
            copy_back += f"{'  ' * (2 + dims)}A{subscript(it, (0,) * dims, strides)} = {dst};\n"
        else:
            copy_back += f"{'  ' * (2 + dims)}A{subscript(it, (0,) * dims)} = {dst};\n"
    if rng.random() < 0.3:  # the nest as a void function the time loop calls
        def pname(decl):
            return re.search(r"(\w+)\s*(\[.*)?$", decl).group(1)
        cparams = ["int t"] + params
        if style == "swap" and names_ab[0] == "cur":
            cparams = [c.replace(" A[", " cur[").replace(" B[", " nxt[") for c in cparams]
        pre.append(f"static void step_{name}({', '.join(cparams)}) {{\n{loops}{text}}}")
        loops = f"    step_{name}({', '.join(pname(c) for c in cparams)});\n"
        text = ""
    edges, pre_loop = "", ""
    # the time loop's form: upwards from 0 or 1, or downwards (A[t + 1] only from 0 up to T)
    forms = ["for (int t = 0; t < T; t++)", "for (int t = 1; t <= T; t++)",
             "for (int t = T; t > 0; t--)", "for (int t = 2 * T; t > 0; t -= 2)"]
    time_loop = rng.choice(forms[:1] if style == "tarray" else forms + forms[:1])
    if style == "swap":
        a, b = names_ab
        rows = "".join(f"[{n}]" for n in names[1:])
        ptr = (lambda v: f"*{v}") if dims == 1 else (lambda v: f"(*{v}){rows}")
        edges = f"    {ty} {ptr('w')} = {a};\n    {a} = {b};\n    {b} = w;\n"
        if a == "cur":
            pre_loop = f"  {ty} {ptr('cur')} = A;\n  {ty} {ptr('nxt')} = B;\n"
    if style in ("mod", "and", "xor") and dims == 1 and rng.random() < 0.5:
        # boundary values set directly in the time loop, after the nest
        edges = (f"    {dst.replace('[i]', '[0]')} = {src((0,)).replace('[i]', f'[{r}]')};\n"
                 f"    {dst.replace('[i]', '[N - 1]')} = {src((0,)).replace('[i]', '[N - 1]')};\n")
    body = f"{loops}{text}{copy_back}{edges}"
    init, cond, step = re.match(r"for \(int t = (.*); (.*); (.*)\)", time_loop).groups()
    form = "for"
    if rng.random() < 0.2:  # the same loop written as a while or do loop that counts
        form = "do" if style != "tarray" and rng.random() < 0.3 else "while"  # do: once more
    elif rng.random() < 0.2:  # its iterator declared before it, its value after it written out
        form = "for before"
        params.append("int steps[1]")

    def make_loop(body, cond):
        if form == "do":
            return f"  int t = {init};\n  do {{\n{body}    {step};\n  }} while ({cond});\n"
        if form == "while":
            return f"  int t = {init};\n  while ({cond}) {{\n{body}    {step};\n  }}\n"
        if form == "for before":
            return (f"  int t;\n  for (t = {init}; {cond}; {step}) {{\n{body}  }}\n"
                    f"  steps[0] = t;\n")
        return f"  for (int t = {init}; {cond}; {step}) {{\n{body}  }}\n"
    loop = make_loop(body, cond)
    before, after = "", ""
    if style != "flat" and rng.random() < 0.25:  # statements around the time loop: parts
        shape = {"mod": ["2"], "and": ["2"], "xor": ["2"], "wave": ["3"],
                 "tarray": ["T + 1"]}.get(style, []) + names
        full = ["p", "q", "u", "v"][:len(shape)]
        idx = "".join(f"[{v}]" for v in full)

        def nest(stmt):
            return "".join(f"{'  ' * (1 + e)}for (int {full[e]} = 0; {full[e]} < {shape[e]}; "
                           f"{full[e]}++)\n" for e in range(len(shape))) + \
                f"{'  ' * (1 + len(shape))}{stmt}\n"
        one = literal(ty, 0.125)
        scaled = f"A{idx} / 2 + 1" if ty == "int" else f"A{idx} * {literal(ty, 0.5)} + {one}"
        if rng.random() < 0.7:
            before = nest(f"A{idx} = {scaled};")
        if not before or rng.random() < 0.6:
            params.append(f"{ty} R" + "".join(f"[{e}]" for e in shape))
            after = nest(f"R{idx} = A{idx} + {one};")
    if style != "tarray" and rng.random() < 0.2:
        # a test of the data ends the loop early (a solver's convergence test), on a local the
        # loop sets from the step's first interior element; arrays swapped in it used after it
        first = dst.replace(f"[{it[-1]}]", f"[{r}]") if dims == 1 else None
        if first and "[" in first and style in ("swap", "copy", "pingpong", "mod", "and", "xor"):
            # a floating local, or an integer flag the body sets
            cty = "double" if ty != "float" else ty
            limit = literal(cty, rng.choice([0.5, 1.5, 2.5, 4.5] if ty != "int" else
                                            [2.5, 10.5, 50.5]))
            test = None
            if rng.random() < 0.3:
                fresh = f"    if ({first} > {limit} || {first} < -{limit}) stop = 1;\n"
                pre_loop += "  int stop = 0;\n"
                test = "!stop"
            elif rng.random() < 0.4:  # or a break (a return: nothing after), before the swap
                fresh = (f"    chk = chk + ({first} < 0 ? -{first} : {first});\n"
                         f"    if (chk >= {limit}) {rng.choice(['break', 'return'])};\n")
                pre_loop += f"  {cty} chk = 0;\n"
            else:
                fresh = f"    chk = chk + ({first} < 0 ? -{first} : {first});\n"
                pre_loop += f"  {cty} chk = 0;\n"
                test = f"chk < {limit}"
            k = body.rfind(edges) if edges else len(body)
            body = body[:k] + fresh + body[k:]
            loop = make_loop(body, f"{cond} && {test}" if test else cond)
    src_text = "\n".join(pre) + (f"\nvoid {name}({', '.join(params)}) {{\n{before}{pre_loop}"
                                  f"{loop}{after}}}\n")
    return src_text, names, r, dims


def main():
    cli, draws = seeds("random")
    failures, count = 0, len(draws)
    for rng, name, path in draws:
        src, names, r, dims = kernel(rng, name)
        with open(path, "w") as f:
            f.write(src)
        sizes = ["-D", f"T={rng.choice([0, 1, 2, 3, 5, 8, 13, 21])}"]
        for n in names:
            choices = [2 * r + 1, 2 * r + 2, 7, 16, 33, 64, 100, 130][: 8 if dims < 3 else 5]
            sizes += ["-D", f"{n}={rng.choice(choices)}"]
        device = rng.choice(["cpu", "emu", "emu"])
        tiling = rng.choice(["auto", "hybrid", "split", "none", "hybrid", "split"] +
                            (["time", "time"] if device == "cpu" else []))
        cmd = [cli, "run", path] + sizes + ["--device", device, "--tiling", tiling, "--check"]
        if tiling in ("hybrid", "split", "time") and rng.random() < 0.5:
            widths = [rng.choice([2, 3, 4, 8]) for _ in range(dims - 1)] + [rng.choice([32, 64])]
            cmd += ["--tile", f"h={rng.randint(1, 12)},w=" + "x".join(map(str, widths))]
        failures += not check(cmd, src, name, refusable=tiling != "auto")
    print(f"{count - failures} of {count} random kernels bit-identical (or refused)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
