#!/usr/bin/env python3
"""Random stencils on flat arrays indexed by hand, each checked bit for bit against the C
function itself: the arrays that sched/view.c sees in rows, and those it must leave flat.

Every kernel is drawn from a seed: 1 to 3 space dimensions written as one flat index, with rows
of the loop's extent (`i * M + j`), padded rows with ghost cells (`i * (M + 2) + j + 1`) or a
constant length (`i * 40 + j`); records of 2 or 3 interleaved fields (`A[2 * (i * M + j) + 1]`);
the subscripts written nested (`((i + 1) * M + j) * K + k`), expanded
(`(i + 1) * M * K + j * K + k`), with the row offsets as constants (`i * M + j + M - 1`) or
commuted, some through `(long)i`; two or three planes of one array (`(t % 2) * N * M`,
`(t & 1) * ...`, the wave equation's `(t + 1) % 3`) or a plane a step (`(t + 1) * N * M`), read
and written directly or through local pointers to a plane (set in the nest or once a step) or
to a row (`u = A + (t % 2) * N * M + i * M`, `u[j - M]`), sometimes one element apart
(`N * M + 1`: no rows); copy-back between two flat arrays (over the same elements or its own
loops), pointers swapped each step, in-place and `+=` updates, reads of the array being written
at an earlier element (dependences within a step); ghost columns set each step from the row's
other end (periodic rows: `A[i * (M + 2) + M + 1] = A[i * (M + 2) + 1]`); a read-only
coefficient array in the same rows, its last dimension only, mirrored (`C[(N - 1 - i) * M + j]`)
or transposed (`C[j * M + i]`); loops whose bounds cross a row's end on purpose (`j + 1` at
`j = M - 1`: the array stays flat) or stop short of it; a term read only in part of the last
rows (`i < N - 2 || 2 * j < M ? ... : 0`); arrays passed as pointers (their length what the
accesses reach) or declared with a length of the reach or a little more
(`float A[2 * N * M - 3]`): the last row partial; int, float and double; T = 0 and 1 among the
step counts, one-point interiors and sizes that are not multiples of a tile. The sizes are the
kernel's `// run:` line. Each runs through `stenciljit run --check` on the emulator or the CPU
with the time tiling the seed draws (tile sizes forced for some) and JIT_CHECK_TILES=1. A forced
tiling that does not apply is refused and counts as a pass; anything else but a bit-identical
result fails. `stenciljit schedule` tells which arrays were seen in rows (a count at the end).

usage: random_flat.py STENCILJIT FIRST_SEED COUNT [WORK_DIR]
"""
import itertools
import os
import subprocess
import sys

from check_run import check, seeds

WEIGHTS = [0.125, 0.25, 0.5, 0.0625, 0.375]
ITERS = ["i", "j", "k"]
NAMES = ["N", "M", "K"]
STYLES = ["nested", "expanded", "constants", "commuted"]


def shifted(v, o):
    return v if o == 0 else f"{v} {'+' if o > 0 else '-'} {abs(o)}"


def paren(x):
    return f"({x})" if " " in x else x


def signed(terms):
    """terms joined by + and -, a term a string that may start with '-'"""
    out = terms[0]
    for x in terms[1:]:
        out += f" - {x[1:]}" if x.startswith("-") else f" + {x}"
    return out


def evaluate(expr, env):
    return eval(expr.replace("(long)", ""), {"__builtins__": {}}, dict(env))


class Rows:
    """The flat layout: its dimensions' row lengths (text and value), ghost shifts, fields, and
    the ways its indices are written."""

    def __init__(self, rng, dims, sizes):
        self.rng, self.dims, self.lens, self.lvals, self.ghost = rng, dims, [None], [None], [0]
        for d in range(1, dims):
            kind = rng.choice(["exact", "exact", "pad", "const"])
            n, v = NAMES[d], sizes[NAMES[d]]
            if kind == "pad":
                p = rng.randint(1, 2)
                self.lens.append(f"({n} + {p})")
                self.lvals.append(v + p)
            elif kind == "const":
                self.lvals.append(v + rng.choice([0, 1, 3]))
                self.lens.append(str(self.lvals[-1]))
            else:
                self.lens.append(n)
                self.lvals.append(v)
            self.ghost.append(rng.randint(0, self.lvals[-1] - v))
        self.fields = rng.choice([1, 1, 1, 2, 3])
        self.style = rng.choice(STYLES)
        self.cast = rng.random() < 0.15

    def stride(self, d):
        """the text of dimension d's stride in records, None for 1"""
        return " * ".join(self.lens[d + 1:]) or None

    def index(self, off, f, style=None, first=None, last=None, inner=False):
        """the flat index of the element at offsets off, field f; first replaces the outer
        iterator, last the inner one and its offset (a column); inner: from the start of the
        row (a row pointer's index), with the offsets as constants"""
        rng = self.rng
        if inner:
            style = "constants"
        if not style:  # mostly the kernel's, some accesses another
            style = self.style if rng.random() < 0.7 else rng.choice(STYLES)
        it = [ITERS[d] for d in range(self.dims)]
        o = [off[d] + self.ghost[d] for d in range(self.dims)]
        if first:
            it[0] = first
        elif self.cast and self.dims > 1 and rng.random() < 0.5:
            it[0] = "(long)i"
        if last:
            it[-1], o[-1] = last, 0
        if style == "nested":
            x = shifted(it[0], o[0])
            for d in range(1, self.dims):
                x = f"{paren(x)} * {self.lens[d]} + {shifted(it[d], o[d])}"
        elif style in ("expanded", "commuted"):
            parts = []
            for d in range(self.dims):
                s, e = self.stride(d), shifted(it[d], o[d])
                if s is None:
                    parts.append(e)
                elif style == "commuted":
                    parts.append(f"{s} * {paren(e)}")
                else:
                    parts.append(f"{paren(e)} * {s}")
            x = " + ".join(parts[::-1] if style == "commuted" else parts)
        else:  # the iterators, then each offset a constant: i * M + j + M - 1
            parts = [f"{paren(it[d])} * {self.stride(d)}" if self.stride(d) else it[d]
                     for d in range(self.dims)][-1 if inner else 0:]
            for d in range(self.dims):
                if o[d]:
                    s, mag = self.stride(d), abs(o[d])
                    t = (f"{mag} * {s}" if mag > 1 else s) if s else str(mag)
                    parts.append(t if o[d] > 0 else "-" + t)
            x = signed(parts)
        if self.fields == 1:
            return x
        if style == "constants":
            return f"{self.fields} * {paren(x)}" + (f" + {f}" if f else "")
        return f"{paren(x)} * {self.fields}" + (f" + {f}" if f else "")

    def row_start(self):
        """the flat index of the row's first element"""
        outer = "i"
        for d in range(1, self.dims - 1):
            outer = f"{outer} * {self.lens[d]} + {ITERS[d]}"
        return " * ".join([paren(outer), self.lens[-1]] +
                          ([str(self.fields)] if self.fields > 1 else []))

    def full(self):
        """the text of the records' element count, rows times the last dimensions"""
        return " * ".join([NAMES[0]] + self.lens[1:] + ([str(self.fields)] if self.fields > 1
                                                         else []))

    def plane(self):
        """the text of the elements between two planes: the rows', a row more (still rows) or
        one element more (no rows)"""
        rest = self.lens[1:] + ([str(self.fields)] if self.fields > 1 else [])
        gap = self.rng.choice(["", "", "", "", "row", "one"])
        text = " * ".join([f"({NAMES[0]} + 1)" if gap == "row" else NAMES[0]] + rest)
        return f"({text} + 1)" if gap == "one" else text


def draw_sizes(rng, dims, margin):
    top = {1: [130, 100, 64], 2: [64, 40, 33], 3: [16, 12, 9]}[dims]
    sizes = {"T": rng.choice([0, 1, 2, 3, 5, 8, 12])}
    for d in range(dims):
        m = margin[d]
        sizes[NAMES[d]] = rng.choice([2 * m + 1, 2 * m + 1, 2 * m + 2, 7, 13, 16] + top)
    return sizes


def offsets(rng, dims):
    reach = rng.randint(1, 2)
    offs = {(0,) * dims}
    for _ in range(rng.randint(1, 2 * dims + 2)):
        if rng.random() < 0.6:  # an axis neighbour
            o = [0] * dims
            o[rng.randrange(dims)] = rng.choice([-1, 1, -reach, reach])
            offs.add(tuple(o))
        else:
            offs.add(tuple(rng.randint(-reach, reach) for _ in range(dims)))
    return sorted(offs)


def bounds(rng, rows, offs, sizes):
    """each loop's [first, distance of its end from the extent]: within the rows, or crossing
    a row's end on purpose (the innermost), or stopping short"""
    out = []
    for d in range(rows.dims):
        lo_off = min(o[d] for o in offs) + rows.ghost[d]
        hi_off = max(o[d] for o in offs) + rows.ghost[d]
        spare = (rows.lvals[d] - sizes[NAMES[d]]) if d else 0
        lo, hi = max(0, -lo_off), max(0, hi_off - spare)
        pick = rng.random()
        if d == rows.dims - 1 and d > 0 and pick < 0.25:  # crosses the row's ends
            lo, hi = max(0, lo - 1), max(0, hi - 1)
        elif pick < 0.4:
            lo, hi = lo + rng.randint(0, 1), hi + rng.randint(0, 2)
        out.append([lo, hi])
    return out


def loops(rng, bnd, at):
    """the loop headers of bounds bnd, the first indented at level at"""
    text = ""
    for d, (lo, hi) in enumerate(bnd):
        v, n, ind = ITERS[d], NAMES[d], "  " * (at + d)
        if hi > 0 and rng.random() < 0.2:
            text += f"{ind}for (int {v} = {lo}; {v} <= {n} - {hi + 1}; {v}++)\n"
        else:
            text += f"{ind}for (int {v} = {lo}; {v} < {shifted(n, -hi)}; {v}++)\n"
    return text


def nest(rng, bnd, stmts):
    """the loops of bnd around stmts, in the time loop"""
    text, ind = loops(rng, bnd, 2), "  " * (2 + len(bnd))
    if len(stmts) == 1:
        return text + f"{ind}{stmts[0]}\n"
    return (text[:-1] + " {\n" + "".join(f"{ind}{s}\n" for s in stmts) +
            f"{'  ' * (1 + len(bnd))}}}\n")


def corners(exprs, bnd, sizes, tvals):
    """the elements at the loops' corners at every plane (each index is affine in the
    iterators): none where the loops run no iteration"""
    ranges = []
    for d, (lo, hi) in enumerate(bnd):
        ranges.append((lo, sizes[NAMES[d]] - hi - 1))
        if ranges[-1][1] < lo:
            return []
    vals = []
    for corner in itertools.product(*ranges, tvals):
        env = dict(sizes, **{ITERS[d]: corner[d] for d in range(len(ranges))}, t=corner[-1])
        vals += [evaluate(e, env) for e in exprs]
    return vals


class Kernel:
    """One drawn kernel: its rows, loops and statements, and the elements each array touches
    (index expressions that are both C and Python, with the loops they run in)."""

    def __init__(self, rng, name):
        self.rng, self.name = rng, name
        self.dims = rng.choice([1, 2, 2, 2, 3, 3])
        self.ty = rng.choice(["float", "double", "int", "float"])
        self.offs = offsets(rng, self.dims)
        margin = [max(abs(o[d]) for o in self.offs) for d in range(self.dims)]
        self.sizes = draw_sizes(rng, self.dims, margin)
        self.rows = Rows(rng, self.dims, self.sizes)
        self.style = rng.choice(["planes", "planes", "local", "local", "wave", "tarray", "copy",
                                 "copy", "swap", "inplace"])
        if self.style == "wave" and self.rows.fields > 1:
            self.style = "planes"
        self.bnd = bounds(rng, self.rows, self.offs, self.sizes)
        self.touched = []  # (array, index, bounds)
        self.plane_t, self.write_ptr, self.row_ptr = None, False, False
        self.tvals = [0, 1, 2]  # the steps whose planes bound the elements touched
        self.time_loop = rng.choice(["for (int t = 0; t < T; t++)", "for (int t = T; t > 0; t--)",
                                     "for (int t = 1; t <= T; t++)", "for (int t = 0; t < T; t++)"])
        self.pre_loop, self.step_top, self.edges = "", "", ""

    def note(self, arr, index, bnd=None):
        self.touched.append((arr, index, bnd or self.bnd))

    def weight(self):
        if self.ty == "int":
            return self.rng.choice([1, 2, 3])
        w = self.rng.choice(WEIGHTS)
        return f"{w}f" if self.ty == "float" else f"{w}"

    def planed(self, p, idx):
        if self.order < 0.5:
            return f"({p}) * {self.plane_t} + {idx}"
        if self.order < 0.75:
            return f"{idx} + {self.plane_t} * ({p})"
        return f"{self.plane_t} * ({p}) + {idx}"

    def setup_planes(self):
        rng = self.rng
        self.plane_t, self.order = self.rows.plane(), rng.random()
        if self.style == "wave":
            self.cur, self.prev, self.nxt = "(t + 1) % 3", "t % 3", "(t + 2) % 3"
            return
        if self.style == "tarray":  # a plane a step, A[t + 1][..] from A[t][..]
            T = self.sizes["T"]
            if rng.random() < 0.5:
                self.cur, self.nxt, self.tvals = "t", "t + 1", [0, max(T - 1, 0)]
                self.time_loop = "for (int t = 0; t < T; t++)"
            else:
                self.cur, self.nxt, self.tvals = "t - 1", "t", [1, max(T, 1)]
                self.time_loop = "for (int t = 1; t <= T; t++)"
            return
        self.cur, self.nxt = rng.choice([("t % 2", "(t + 1) % 2"), ("t & 1", "(t & 1) ^ 1"),
                                         ("t % 2", "1 - t % 2"), ("(t + 1) & 1", "t & 1")])
        if rng.random() < 0.3:  # the two written differently
            self.cur = rng.choice(["t % 2", "t & 1"])
            self.nxt = rng.choice(["(t + 1) % 2", "(t & 1) ^ 1", "1 - t % 2", "(t + 1) & 1"])
        if self.style != "local":
            return
        ty = self.ty
        self.write_ptr = rng.random() < 0.4
        self.row_ptr = self.dims > 1 and rng.random() < 0.4  # to the row's start
        row = f" + {self.rows.row_start()}" if self.row_ptr else ""
        ptrs = [f"const {ty} *u = A + ({self.cur}) * {self.plane_t}{row};"]
        if self.write_ptr:
            ptrs.append(f"{ty} *v = A + ({self.nxt}) * {self.plane_t}{row};")
        if self.row_ptr or rng.random() < 0.5:  # in the nest, or once a step
            self.body_top = ptrs
        else:
            self.step_top = "".join(f"    {x}\n" for x in ptrs)

    def setup(self):
        self.body_top = []
        if self.style in ("planes", "local", "wave", "tarray"):
            self.setup_planes()
        if self.style == "swap":
            ty = self.ty
            self.pre_loop = f"  {ty} *a = A, *b = B;\n"
            self.edges = f"    {ty} *w = a;\n    a = b;\n    b = w;\n"

    def read(self, o, f, plane=None):
        """the read of the source at offsets o, field f (of plane plane of the planes)"""
        idx = self.rows.index(o, f)
        if self.plane_t:
            full = self.planed(plane or self.cur, idx)
            self.note("A", full)
            if self.style == "local" and not plane:
                return f"u[{self.rows.index(o, f, inner=True) if self.row_ptr else idx}]"
            return f"A[{full}]"
        self.note("A", idx)
        if self.style == "swap":
            self.note("B", idx)
            return f"a[{idx}]"
        return f"A[{idx}]"

    def written(self, o, f, style=None):
        """the element at offsets o, field f, of the array written"""
        idx = self.rows.index(o, f, style)
        if self.plane_t:
            self.note("A", self.planed(self.nxt, idx))
            if self.write_ptr:
                return f"v[{self.rows.index(o, f, inner=True) if self.row_ptr else idx}]"
            return f"A[{self.planed(self.nxt, idx)}]"
        arr = {"copy": "B", "swap": "b"}.get(self.style, "A")
        self.note("B" if arr == "B" else "A", idx)
        if self.style == "swap":
            self.note("B", idx)
        return f"{arr}[{idx}]"

    def coefficient(self):
        """a read of C: in the rows, its last dimension only, or mirrored along the first"""
        rng, rows, dims = self.rng, self.rows, self.dims
        pick = rng.random()
        if pick < 0.2:
            idx = ITERS[dims - 1]
        elif pick < 0.35 and dims > 1:
            idx = rows.index((0,) * dims, 0, first="(N - 1 - i)")
        elif pick < 0.45 and dims == 2:  # transposed: rows only where N fits the row
            idx = f"j * {rows.lens[1]} + i"
        else:
            idx = rows.index((0,) * dims, 0)
        self.note("C", idx)
        return f"(C[{idx}] & 1)" if self.ty == "int" else f"C[{idx}]"

    def field(self, fw, coef, earlier):
        """the value of field fw of the element written"""
        rng, dims, F = self.rng, self.dims, self.rows.fields
        terms, wsum = [], 0
        for o in self.offs:
            w = self.weight()
            wsum += w if self.ty == "int" else 0
            terms.append(f"{w} * {self.read(o, rng.randrange(F) if rng.random() < 0.5 else fw)}")
        extra = []
        if self.style == "wave":
            extra.append(self.read((0,) * dims, fw, self.prev))
        if earlier:  # an element written before in this step
            extra.append(self.written(earlier, fw))
        for x in extra:
            w = self.weight()
            wsum += w if self.ty == "int" else 0
            terms.append(f"{w} * {x}")
        if coef:
            terms[0] = f"{self.coefficient()} * {terms[0]}"
        if rng.random() < 0.2:  # the last term only in part of the last rows: a short array
            last = ITERS[dims - 1]
            cond = (f"i < N - {self.bnd[0][1] + 1} || 2 * {last} < {NAMES[dims - 1]}"
                    if dims > 1 else "2 * i < N")
            terms[-1] = f"({cond} ? {terms[-1]} : 0)"
        s = " + ".join(terms)
        return f"({s}) / {wsum}" if self.ty == "int" else s

    def statements(self):
        rng, dims, F = self.rng, self.dims, self.rows.fields
        coef = rng.random() < 0.25
        before = [o for o in self.offs if o < (0,) * dims]
        earlier = (rng.choice(before) if before and self.style != "wave" and
                   rng.random() < 0.15 else None)
        body = list(self.body_top)
        values = [self.field(fw, coef, earlier) for fw in range(F)]
        if F == 1:
            op = "+=" if self.style in ("inplace", "copy") and rng.random() < 0.2 else "="
            return body + [f"{self.written((0,) * dims, 0, 'nested')} {op} {values[0]};"]
        body += [f"{self.ty} s{fw} = {v};" for fw, v in enumerate(values)]
        return body + [f"{self.written((0,) * dims, fw)} = s{fw};" for fw in range(F)]

    def copy_back(self):
        """B back into A: the elements written, or over loops of its own"""
        rng, dims = self.rng, self.dims
        bnd = self.bnd
        if rng.random() < 0.25:
            bnd = bounds(rng, self.rows, self.offs, self.sizes)
            self.fix(bnd, [self.rows.index((0,) * dims, 0, "nested")])
        style = rng.choice(STYLES)
        stmts = []
        for f in range(self.rows.fields):
            x = self.rows.index((0,) * dims, f, style)
            self.note("A", x, bnd)
            self.note("B", x, bnd)
            stmts.append(f"A[{x}] = B[{x}];")
        return nest(rng, bnd, stmts)

    def halo(self):
        """the ghost columns of the array written, each step, from the row's other end"""
        rows, dims = self.rows, self.dims
        spare = rows.lvals[-1] - self.sizes[NAMES[dims - 1]] if dims > 1 else 0
        if not spare or self.style == "wave" or self.rng.random() < 0.5:
            return ""
        g, n = rows.ghost[-1], NAMES[dims - 1]
        cols = [(c, c + self.sizes[n]) for c in range(g)] + \
            [(c, c - self.sizes[n]) for c in range(g + self.sizes[n], rows.lvals[-1])]
        bnd = self.bnd[:-1] + [[0, 0]]  # the inner loop is not there
        stmts = []
        for c, src in cols:
            for f in range(rows.fields):
                to, at = self.column(c, f, bnd), self.column(src, f, bnd)
                stmts.append(f"{to} = {at};")
        return nest(self.rng, bnd[:-1], stmts) if stmts else ""

    def column(self, c, f, bnd):
        """the written array's element of column c (text relative to the extent), field f"""
        n, size = NAMES[self.dims - 1], self.sizes[NAMES[self.dims - 1]]
        text = str(c) if c < size else shifted(n, c - size)
        idx = self.rows.index((0,) * self.dims, f, last=text)
        arr = {"copy": "A", "swap": "b"}.get(self.style, "A")
        if self.plane_t:
            self.note("A", self.planed(self.nxt, idx), bnd)
            return f"A[{self.planed(self.nxt, idx)}]"
        self.note("B" if arr == "b" else "A", idx, bnd)
        if arr == "b":
            self.note("A", idx, bnd)
        return f"{arr}[{idx}]"

    def fix(self, bnd, exprs):
        """bounds whose first loop starts late enough that no index is negative (a row's end
        crossed at i = 0)"""
        while min(corners(exprs, bnd, self.sizes, self.tvals), default=0) < 0:
            bnd[0][0] += 1

    def reach(self, arr):
        return max((v for a, x, b in self.touched if a == arr
                    for v in corners([x], b, self.sizes, self.tvals)), default=-1) + 1

    def param(self, arr):
        rng, ty = self.rng, self.ty
        cty = f"const {ty}" if arr == "C" else ty
        decl = rng.choice(["ptr", "ptr", "restrict", "len", "len"])
        if decl == "restrict" and self.style == "swap" and arr != "C":
            decl = "ptr"
        if decl == "restrict":
            return f"{cty} *restrict {arr}"
        if decl == "ptr":
            return f"{cty} *{arr}"
        base = self.rows.full()
        if arr == "A" and self.plane_t:
            planes = {"wave": "3", "tarray": "(T + 1)"}.get(self.style, "2")
            base = f"{planes} * {self.plane_t}"
        want = self.reach(arr)
        diff = evaluate(base, self.sizes) - want - rng.choice([0, 0, 1, 5]) if want else 0
        return f"{cty} {arr}[{shifted(base, -diff)}]"

    def source(self):
        rng = self.rng
        self.setup()
        body = self.statements()
        self.fix(self.bnd, [x for _, x, b in self.touched if b is self.bnd])
        text = nest(rng, self.bnd, body)
        if self.style == "copy":
            text += self.copy_back()
        text += self.halo()
        loop = f"  {self.time_loop} {{\n{self.step_top}{text}{self.edges}  }}\n"
        arrays = [a for a in ["A", "B", "C"] if any(x[0] == a for x in self.touched)]
        params = (["int T"] + [f"int {n}" for n in NAMES[:self.dims]] +
                  [self.param(a) for a in arrays])
        run = " ".join(f"{n}={v}" for n, v in self.sizes.items())
        return (f"// random_flat: {self.style}, {self.dims}-D, rows {self.rows.lens[1:]}, "
                f"{self.rows.fields} field(s), loops {self.bnd}\n// run: {run}\n"
                f"void {self.name}({', '.join(params)}) {{\n{self.pre_loop}{loop}}}\n")


def seen_in_rows(cli, path, sizes):
    """the arrays `stenciljit schedule` lists as seen in rows"""
    cmd = [cli, "schedule", path] + [f"-D{n}={v}" for n, v in sizes.items()]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, JIT_CACHE="off"))
    lines = p.stdout.splitlines()
    if "flat arrays seen in rows:" not in lines:
        return []
    at = lines.index("flat arrays seen in rows:") + 1
    return [line.split(" as ")[-1] for line in lines[at:] if line.startswith("  '")]


def main():
    cli, draws = seeds("flat")
    failures, viewed, count = 0, 0, len(draws)
    for rng, name, path in draws:
        k = Kernel(rng, name)
        src = k.source()
        with open(path, "w") as f:
            f.write(src)
        device = rng.choice(["cpu", "emu", "emu", "emu"])
        tiling = rng.choice(["auto", "hybrid", "split", "none", "hybrid", "split"] +
                            (["time", "time"] if device == "cpu" else []))
        cmd = [cli, "run", path] + [a for n, v in k.sizes.items() for a in ("-D", f"{n}={v}")]
        cmd += ["--device", device, "--tiling", tiling, "--check"]
        if tiling in ("hybrid", "split", "time") and rng.random() < 0.5:
            widths = [rng.choice([2, 3, 4, 7, 8]) for _ in range(k.dims - 1)] + \
                [rng.choice([8, 16, 32, 32, 64])]
            cmd += ["--tile", f"h={rng.randint(1, 12)},w=" + "x".join(map(str, widths))]
        failures += not check(cmd, src, name, refusable=tiling != "auto")
        views = seen_in_rows(cli, path, k.sizes)
        viewed += bool(views)
        if views:
            print(f"     {name}: seen in rows as {', '.join(views)}", flush=True)
    print(f"{count - failures} of {count} random flat kernels bit-identical (or refused); "
          f"{viewed} with an array seen in rows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
