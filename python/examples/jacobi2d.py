"""Jacobi 2-D (5 points, float32, double-buffered) with stenciljit, checked against NumPy.

    python jacobi2d.py [--device auto|cpu|emu|cuda] [--size N] [--steps T]

The C function is the kernel; the NumPy version below computes the same sums in the same
order, so the results are bit-identical (exact mode)."""

import time

import numpy as np

import _args
import stenciljit

SOURCE = """
void jacobi2d(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i+1][j]
                                   + A[t%2][i][j-1] + A[t%2][i][j+1]);
}
"""


def numpy_jacobi2d(steps, A):
    for t in range(steps):
        a, b = A[t % 2], A[(t + 1) % 2]
        b[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1]
                                           + a[1:-1, :-2] + a[1:-1, 2:])


def main():
    args = _args.parse(__doc__, size=512, steps=20)
    n, steps = args.size, args.steps

    kernel = stenciljit.compile(SOURCE, device=args.device)
    rng = np.random.default_rng(0)
    A = rng.random((2, n, n), dtype=np.float32)
    want = A.copy()

    t0 = time.perf_counter()
    kernel(steps, n, n, A)  # the first call with this shape (T, N, M) compiles
    t1 = time.perf_counter()
    numpy_jacobi2d(steps, want)
    same = np.array_equal(A, want)
    print(f"jacobi-2d {n}x{n}, {steps} steps on {kernel.device}: {1e3 * (t1 - t0):.1f} ms "
          f"(compile {1e3 * kernel.specialize(steps, n, n).stage_times()['total']:.1f} ms), "
          f"bit-identical to NumPy: {'yes' if same else 'NO'}")

    # Device-resident: the same time loop in 4 calls, the data moved once each way. An even
    # number of steps per call leaves the newest grid in A[0], where the next call starts.
    chunk = 2 * max(1, steps // 8)
    B = stenciljit.Buffer(rng.random((2, n, n), dtype=np.float32), device=args.device)
    start = B.download()
    for _ in range(4):
        kernel(chunk, n, n, B)
    numpy_jacobi2d(4 * chunk, start)
    same_b = np.array_equal(B.download(), start)
    print(f"{4 * chunk} steps in 4 calls on a stenciljit.Buffer: bit-identical to NumPy: "
          f"{'yes' if same_b else 'NO'}")
    return 0 if same and same_b else 1


if __name__ == "__main__":
    raise SystemExit(main())
