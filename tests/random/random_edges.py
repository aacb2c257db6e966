#!/usr/bin/env python3
"""Random kernels that keep their edge in their body, each checked bit for bit against the C
function itself.

Every kernel is drawn from a seed: 1 or 2 space dimensions over the whole array (no interior
bounds), neighbours at offsets up to 3 read only where a test of the position says they lie in
the array (an if around the read, a ?: clamp of the subscript, a wrap to the other side), a
count of the neighbours read, special cases at one or two edge points (`i == 0`, `j == M - 1`),
int/float/double, a double buffer or a copy back. These are the tests that a per-step kernel's
second version decides (astgen/unswitch.c) and whose branches leave copies to forward
(astgen/copies.c). Each runs through `stenciljit run --check` on the device and with the tiling
the seed draws, at sizes the seed draws: smaller than a warp, one point wide, not multiples of
anything. Anything but a bit-identical result (or a refused forced tiling) fails.

usage: random_edges.py STENCILJIT FIRST_SEED COUNT [WORK_DIR]
"""

from check_run import check, seeds


def subscript(r, var, ext, size, off):
    """The subscript var + off kept in [0, ext) by a clamp or a wrap (where the extent's size
    exceeds any offset), or as it is (the read is then behind a test); and the test, or None."""
    at = f"{var} + {off}" if off >= 0 else f"{var} - {-off}"
    if off == 0:
        return var, None
    how = r.choice(["test", "test", "clamp"] + (["wrap"] if size > 3 else []))
    if how == "clamp":
        bound = f"{ext} - 1" if off > 0 else "0"
        cmp = ">" if off > 0 else "<"
        return f"({at} {cmp} {bound} ? {bound} : {at})", None
    if how == "wrap":
        return (f"({at} >= {ext} ? {at} - {ext} : {at})" if off > 0
                else f"({at} < 0 ? {at} + {ext} : {at})"), None
    return at, (f"{at} < {ext}" if off > 0 else f"{at} >= 0")


def kernel(r, name):
    dims = r.choice([1, 2, 2])
    ty = r.choice(["float", "double", "int"])
    buffered = r.random() < 0.5
    names, exts = ["i", "j"][:dims], ["N", "M"][:dims]
    sizes = {"T": r.choice([0, 1, 2, 3, 5])}
    for e in exts:
        sizes[e] = r.choice([1, 2, 3, 5, 31, 32, 33, 64, 100, 130, 257])
    if dims == 1:
        sizes["N"] = r.choice([1, 2, 7, 33, 100, 1000, 4099])
    params = ", ".join(f"int {e}" for e in exts)
    shape = "".join(f"[{e}]" for e in exts)
    src = f"void {name}(int T, {params}, {ty} A{'[2]' if buffered else ''}{shape}"
    src += "" if buffered else f", {ty} B{shape}"
    src += ") {\n  for (int t = 0; t < T; t++) {\n"
    ind = "    "
    for v, e in zip(names, exts):
        src += f"{ind}for (int {v} = 0; {v} < {e}; {v}++)\n"
        ind += "  "
    src += ind[:-2] + "{\n"
    src += f"{ind}{ty} s = 0;\n{ind}int n = 0;\n"
    read = "A[t % 2]" if buffered else "A"
    for _ in range(r.randint(2, 6)):
        offs = [r.randint(-3, 3) for _ in range(dims)]
        subs, tests = [], []
        for v, e, o in zip(names, exts, offs):
            sub, test = subscript(r, v, e, sizes[e], o)
            subs.append(sub)
            if test:
                tests.append(test)
        ref = read + "".join(f"[{s}]" for s in subs)
        w = r.choice(["", " * 2", " * 3"]) if ty == "int" else r.choice(["", " * 0.5f", " * 0.25"])
        if tests:
            src += f"{ind}if ({' && '.join(tests)}) {{\n{ind}  s += {ref}{w};\n{ind}  n++;\n{ind}}}\n"
        else:
            src += f"{ind}s += {ref}{w};\n{ind}n++;\n"
    here = "".join(f"[{v}]" for v in names)
    # an int sum kept whole over the steps could overflow: ints are averaged
    value = "s / (n > 0 ? n : 1)" if ty == "int" or r.random() < 0.6 else "s"
    if r.random() < 0.5:
        v, e = r.choice(list(zip(names, exts)))
        edge = r.choice(["0", f"{e} - 1", "1"])
        value = f"{v} == {edge} ? {read}{here} : {value}"
    write = "A[(t + 1) % 2]" if buffered else "B"
    src += f"{ind}{write}{here} = {value};\n"
    src += ind[:-2] + "}\n"
    if not buffered:
        ind = "    "
        for v, e in zip(names, exts):
            src += f"{ind}for (int {v} = 0; {v} < {e}; {v}++)\n"
            ind += "  "
        src += f"{ind}A{here} = B{here};\n"
    src += "  }\n}\n"
    fill = "A=-9..9" + ("" if buffered else " B=-9..9")
    return src, sizes, fill


def main():
    cli, draws = seeds("edges")
    failed = 0
    for r, name, path in draws:
        src, sizes, fill = kernel(r, name)
        with open(path, "w") as f:
            f.write(src)
        device = r.choice(["emu", "emu", "cpu"])
        tiling = r.choice(["auto", "none", "none", "hybrid", "split"])
        cmd = [cli, "run", path, "--device", device, "--tiling", tiling]
        for k, v in sizes.items():
            cmd += ["-D", f"{k}={v}"]
        for x in fill.split():
            cmd += ["--fill", x]
        cmd.append("--check")
        failed += not check(cmd, src, name, refusable=tiling in ("hybrid", "split"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
