import os
import sys

import numpy as np
import pytest

# The jacobi-2d kernel and its NumPy twin are the example's own.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "examples"))
from jacobi2d import SOURCE as JACOBI  # noqa: E402,F401
from jacobi2d import numpy_jacobi2d  # noqa: E402,F401

AXPY = """
void axpy(int n, double a, const double x[n], double y[n]) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""


def grid(n, m, seed=0):
    return np.random.default_rng(seed).random((2, n, m), dtype=np.float32)


@pytest.fixture(params=["cpu", "emu"])
def device(request):
    return request.param
