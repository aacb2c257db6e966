"""Heat 3-D (PolyBench's heat-3d: 7 points, float64, two arrays) with stenciljit, checked
against NumPy and against the C function itself (kernel.reference).

    python heat3d.py [--device auto|cpu|emu|cuda] [--size N] [--steps T]"""

import time

import numpy as np

import _args
import stenciljit

SOURCE = """
void heat3d(int T, int N, double A[N][N][N], double B[N][N][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] - 2.0 * A[i][j][k] + A[i-1][j][k])
                     + 0.125 * (A[i][j+1][k] - 2.0 * A[i][j][k] + A[i][j-1][k])
                     + 0.125 * (A[i][j][k+1] - 2.0 * A[i][j][k] + A[i][j][k-1])
                     + A[i][j][k];
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = 0.125 * (B[i+1][j][k] - 2.0 * B[i][j][k] + B[i-1][j][k])
                     + 0.125 * (B[i][j+1][k] - 2.0 * B[i][j][k] + B[i][j-1][k])
                     + 0.125 * (B[i][j][k+1] - 2.0 * B[i][j][k] + B[i][j][k-1])
                     + B[i][j][k];
  }
}
"""


def numpy_step(src, dst):
    c = src[1:-1, 1:-1, 1:-1]
    dst[1:-1, 1:-1, 1:-1] = (0.125 * (src[2:, 1:-1, 1:-1] - 2.0 * c + src[:-2, 1:-1, 1:-1])
                             + 0.125 * (src[1:-1, 2:, 1:-1] - 2.0 * c + src[1:-1, :-2, 1:-1])
                             + 0.125 * (src[1:-1, 1:-1, 2:] - 2.0 * c + src[1:-1, 1:-1, :-2])
                             + c)


def numpy_heat3d(steps, A, B):
    for _ in range(steps):
        numpy_step(A, B)
        numpy_step(B, A)


def main():
    args = _args.parse(__doc__, size=64, steps=10)
    n, steps = args.size, args.steps

    kernel = stenciljit.compile(SOURCE, device=args.device)
    rng = np.random.default_rng(1)
    A, B = rng.random((n, n, n)), rng.random((n, n, n))
    A_np, B_np, A_ref, B_ref = A.copy(), B.copy(), A.copy(), B.copy()

    t0 = time.perf_counter()
    kernel(steps, n, A, B)
    t1 = time.perf_counter()
    numpy_heat3d(steps, A_np, B_np)
    kernel.reference(steps, n, A_ref, B_ref)
    same_np = np.array_equal(A, A_np) and np.array_equal(B, B_np)
    same_ref = np.array_equal(A, A_ref) and np.array_equal(B, B_ref)
    print(f"heat-3d {n}^3, {steps} steps on {kernel.device}: {1e3 * (t1 - t0):.1f} ms with the "
          f"compile; bit-identical to NumPy: {'yes' if same_np else 'NO'}, to the C function: "
          f"{'yes' if same_ref else 'NO'}")
    print(kernel.schedule().splitlines()[0])
    return 0 if same_np and same_ref else 1


if __name__ == "__main__":
    raise SystemExit(main())
