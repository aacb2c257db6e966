import numpy as np
import pytest

JACOBI = """
void jacobi2d(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i+1][j]
                                   + A[t%2][i][j-1] + A[t%2][i][j+1]);
}
"""

AXPY = """
void axpy(int n, double a, const double x[n], double y[n]) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""


def numpy_jacobi2d(steps, A):
    """The kernel's sums in the kernel's order: bit-identical in exact mode."""
    for t in range(steps):
        a, b = A[t % 2], A[(t + 1) % 2]
        b[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1]
                                           + a[1:-1, :-2] + a[1:-1, 2:])


def grid(n, m, seed=0):
    return np.random.default_rng(seed).random((2, n, m), dtype=np.float32)


@pytest.fixture(params=["cpu", "emu"])
def device(request):
    return request.param
