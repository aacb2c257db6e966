"""Kernels from Python: results, the checks of every argument, errors, introspection."""

import threading

import numpy as np
import pytest
from conftest import AXPY, JACOBI, grid, numpy_jacobi2d

import stenciljit


def test_jacobi_bit_identical(device):
    k = stenciljit.compile(JACOBI, device=device)
    A = grid(37, 29)
    want, ref = A.copy(), A.copy()
    k(7, 37, 29, A)
    numpy_jacobi2d(7, want)
    k.reference(7, 37, 29, ref)
    assert np.array_equal(A, want)
    assert np.array_equal(A, ref)
    assert k.device == device


def test_scalars_and_const(device):
    k = stenciljit.compile(AXPY, device=device)
    x = np.arange(100, dtype=np.float64)
    x.flags.writeable = False  # const: a read-only array is fine
    y = np.linspace(0, 1, 100)
    want = 2.5 * x + y
    k(100, 2.5, x, y)
    assert np.array_equal(y, want)
    k(100, np.float64(0.5), x, y)  # NumPy scalars are numbers too
    assert np.array_equal(y, 0.5 * x + want)


def test_same_shape_compiles_once():
    k = stenciljit.compile(JACOBI, device="cpu")
    A = grid(20, 20)
    before = k._ctx.stats()["compiles"]
    for _ in range(5):
        k(2, 20, 20, A)
    k(2, 21, 20, grid(21, 20))
    assert k._ctx.stats()["compiles"] - before == 2


def unchanged_after(exc_type, match, call, *arrays):
    saved = [a.copy() for a in arrays]
    with pytest.raises(exc_type, match=match):
        call()
    for a, s in zip(arrays, saved):
        assert np.array_equal(a, s), "a refused call modified an array"


@pytest.mark.parametrize("bad, exc, match", [
    (lambda A: A.astype(np.float64), TypeError, r"'A' must have dtype float32.*not float64"),
    (lambda A: A[0], ValueError, r"'A' must have 3 dimensions"),
    (lambda A: A[:, :-1, :], ValueError, r"'A' must have shape \(2, 16, 12\).*float A\[2\]\[16\]"
                                         r"\[12\].*not \(2, 15, 12\)"),
    (lambda A: np.asfortranarray(A), ValueError, r"'A' must be C-contiguous"),
    (lambda A: A.tolist(), TypeError, r"'A' must be a numpy.ndarray of float32.*not list"),
])
def test_array_checks(bad, exc, match):
    k = stenciljit.compile(JACOBI, device="cpu")
    A = grid(16, 12)
    k(1, 16, 12, A)  # the shape is cached: the fast path must refuse as well
    arg = bad(A)
    unchanged_after(exc, match, lambda: k(1, 16, 12, arg), A)


def test_read_only_refused_unless_const():
    k = stenciljit.compile(JACOBI, device="cpu")
    k(1, 16, 12, grid(16, 12))  # the shape is cached: the per-call path must refuse too
    A = grid(16, 12)
    A.flags.writeable = False
    unchanged_after(ValueError, r"'A' is read-only", lambda: k(1, 16, 12, A), A)


def test_scalar_checks():
    k = stenciljit.compile(AXPY, device="cpu")
    x, y = np.ones(8), np.ones(8)
    unchanged_after(TypeError, r"'n' must be an int", lambda: k(8.0, 1.0, x, y), y)
    unchanged_after(TypeError, r"'a' must be a real number", lambda: k(8, "1", x, y), y)
    unchanged_after(OverflowError, r"'n' = 4294967296 does not fit a C int",
                    lambda: k(2 ** 32, 1.0, x, y), y)
    unchanged_after(TypeError, r"axpy\(\) takes 4 arguments \(n, a, x, y\), 3 given",
                    lambda: k(8, 1.0, x), y)
    # the C library's own checks reach Python too: overlapping arrays
    z = np.ones(16)
    unchanged_after(stenciljit.ArgumentError, r"overlap", lambda: k(8, 1.0, z[:8], z[:8]), z)


def test_syntax_error_position():
    src = "void f(int N, float A[N]) {\n  for (int i = 0; i < N; i++)\n    A[i] = 2.0f * A[i]\n}\n"
    with pytest.raises(stenciljit.KernelSyntaxError) as info:
        stenciljit.compile(src, device="cpu")
    e = info.value
    assert isinstance(e, SyntaxError)
    assert (e.lineno, e.offset) == (4, 1), str(e)
    assert str(e).startswith("<source>:4:1:")


def test_unsupported_position():
    src = ("void f(int N, float A[N]) {\n  int i = 0;\n  goto done;\n"
           "  A[i] = 0.0f;\ndone:;\n}\n")
    with pytest.raises(stenciljit.UnsupportedError) as info:
        stenciljit.compile(src, device="cpu")
    assert info.value.lineno == 3 and info.value.offset is not None, str(info.value)


def test_introspection(device):
    k = stenciljit.compile(JACOBI, device=device)
    with pytest.raises(RuntimeError, match="not compiled yet"):
        k.code()
    k.specialize(4, 64, 64)
    times = k.stage_times()
    assert set(times) >= {"parse", "model", "schedule", "compile", "total"}
    assert 0 < times["total"] < 10
    assert "jacobi2d" in k.schedule()
    assert [p.name for p in k.params] == ["T", "N", "M", "A"]
    assert k.params[3].dtype == np.float32 and k.params[3].rank == 3
    if device == "cpu":
        assert "__sj_kernel" in k.code("c")
        with pytest.raises(ValueError, match="no ptx code"):
            k.code("ptx")
    else:
        assert ".entry" in k.code("ptx") and "__sj_host" in k.code("host")
    with pytest.raises(ValueError, match="code kind"):
        k.code("sass")


def test_fast_math_compiles():
    k = stenciljit.compile(JACOBI, device="cpu", fast_math=True)
    A = grid(16, 16)
    want = A.copy()
    k(3, 16, 16, A)
    numpy_jacobi2d(3, want)
    np.testing.assert_allclose(A, want, rtol=1e-5)


def test_concurrent_calls():
    k = stenciljit.compile(JACOBI, device="cpu")
    arrays = [grid(30, 30, seed) for seed in range(4)]
    wants = [a.copy() for a in arrays]
    for w in wants:
        numpy_jacobi2d(4, w)
    errors = []

    def work(a, w):
        for _ in range(50):
            b = a.copy()
            k(4, 30, 30, b)
            if not np.array_equal(b, w):
                errors.append("wrong result")

    threads = [threading.Thread(target=work, args=aw) for aw in zip(arrays, wants)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_stats_struct_matches_the_library():
    """The C side writes exactly the fields the binding declares (no write past them)."""
    import ctypes

    from stenciljit import _lib

    ctx = _lib.context("cpu")
    size = ctypes.sizeof(_lib.Stats)
    raw = (ctypes.c_ubyte * (size + 64))(*([0xA5] * (size + 64)))
    _lib.lib.jit_context_stats(ctx.handle, ctypes.cast(raw, ctypes.POINTER(_lib.Stats)))
    assert all(b == 0xA5 for b in raw[size:]), "jit_stats is larger than _lib.Stats"


POINTERS = """
void smooth(int N, int M, const float *restrict src, float (*dst)[M]) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 0; j < M; j++)
      dst[i][j] = 0.25f * src[(i - 1) * M + j] + 0.5f * src[i * M + j] + 0.25f * src[(i + 1) * M + j];
}
"""


def test_open_first_extent(device):
    """A pointer parameter takes any contiguous array with at least the elements the function
    reaches; a pointer to rows takes rows of the declared length, at least as many as it
    reaches."""
    k = stenciljit.compile(POINTERS, device=device)
    n, m = 9, 7
    src = np.random.default_rng(1).random((n, m), dtype=np.float32)  # 2-D data for a pointer
    dst, ref = np.zeros((n + 3, m), np.float32), np.zeros((n + 3, m), np.float32)
    k(n, m, src, dst)
    k.reference(n, m, src, ref)
    assert np.array_equal(dst, ref)
    assert np.array_equal(dst[1:n - 1], 0.25 * src[:-2] + 0.5 * src[1:-1] + 0.25 * src[2:])
    assert k.params[2].open and k.params[3].open and not k.params[0].open
    with pytest.raises(ValueError, match="or more along the first"):
        k(n, m, src, np.zeros((n - 2, m), np.float32))  # row n - 2 is written
    with pytest.raises(ValueError, match="shape"):
        k(n, m, src.ravel()[:n * m - 1], dst)  # one element short of src[(n - 1) * M + M - 1]


CALLS = """
static void step(int n, const float *in, float *out) {
  for (int i = 1; i < n - 1; i++) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}
void smooth(int T, int N, float *a, float *b) {
  for (int t = 0; t < T; t++) {
    step(N, a, b);
    step(N, b, a);
  }
}
"""


def test_void_function_calls(device):
    """A time loop that calls a void function of the source: the entry is the function that
    no other calls, and the result is the reference's."""
    k = stenciljit.compile(CALLS, device=device)
    assert k.name == "smooth" and [p.name for p in k.params] == ["T", "N", "a", "b"]
    a = np.random.default_rng(2).random(50, dtype=np.float32)
    b = a.copy()
    ra, rb = a.copy(), b.copy()
    k(4, 50, a, b)
    k.reference(4, 50, ra, rb)
    assert np.array_equal(a, ra) and np.array_equal(b, rb)


def test_bool_arrays_and_returned_value(device):
    # bool arrays are numpy bool arrays; a function returning a value takes one more argument,
    # an array of one element (its parameter `return`), which receives it
    src = """
#include <stdbool.h>
int count_positive(int n, const double *x, bool *pos) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    pos[i] = x[i] * 3;
    c += x[i] > 0;
  }
  return c;
}
"""
    k = stenciljit.compile(src, device=device)
    assert [p.name for p in k.params] == ["n", "x", "pos", "return"]
    x = np.array([0.5, -1.0, 0.0, 2.0, 0.25])
    pos = np.zeros(5, dtype=bool)
    count = np.zeros(1, dtype=np.int32)
    k(5, x, pos, count)
    assert pos.tolist() == [True, True, False, True, True]
    assert count[0] == 3
    ref_pos, ref_count = np.zeros(5, dtype=bool), np.zeros(1, dtype=np.int32)
    k.reference(5, x, ref_pos, ref_count)
    assert np.array_equal(pos, ref_pos) and np.array_equal(count, ref_count)
