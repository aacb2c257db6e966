"""Device-resident buffers and arrays of other libraries (__cuda_array_interface__, DLPack)."""

import numpy as np
import pytest
from conftest import AXPY, JACOBI, grid, numpy_jacobi2d

import stenciljit


def test_time_loop_in_chunks(device):
    k = stenciljit.compile(JACOBI, device=device)
    A = grid(33, 31)
    want = A.copy()
    B = stenciljit.Buffer(A, device=device)
    assert B.device == device and B.shape == A.shape and B.nbytes == A.nbytes
    for _ in range(10):  # even steps per call: the newest grid stays in A[0]
        k(10, 33, 31, B)
    numpy_jacobi2d(100, want)
    assert np.array_equal(B.download(), want)
    assert np.array_equal(A, grid(33, 31)), "the uploaded host array must not change"


def test_buffer_checks(device):
    k = stenciljit.compile(JACOBI, device=device)
    with pytest.raises(ValueError, match=r"'A' must have shape \(2, 8, 8\)"):
        k(1, 8, 8, stenciljit.Buffer.empty((2, 8, 7), np.float32, device=device))
    with pytest.raises(TypeError, match="'A' must have dtype float32"):
        k(1, 8, 8, stenciljit.Buffer.empty((2, 8, 8), np.float64, device=device))
    other = "emu" if device == "cpu" else "cpu"
    with pytest.raises(stenciljit.ArgumentError, match="device"):
        k(1, 8, 8, stenciljit.Buffer(grid(8, 8), device=other))
    b = stenciljit.Buffer.empty((2, 8, 8), np.float32, device=device)
    with pytest.raises(ValueError, match="expected a float32 array of shape"):
        b.upload(np.zeros((2, 8, 9), np.float32))


def test_buffer_beside_host_array(device):
    k = stenciljit.compile(AXPY, device=device)
    x = np.arange(50, dtype=np.float64)
    y = np.ones(50)
    k(50, 3.0, stenciljit.Buffer(x, device=device), y)
    assert np.array_equal(y, 3.0 * x + 1.0)


class FakeCudaArray:
    """What CuPy or PyTorch expose for a GPU array, over memory this test allocated on the
    emulator's device: the kernel must use it in place."""

    def __init__(self, address, shape, typestr, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (address, False), "strides": strides,
                                         "version": 3}


def test_cuda_array_interface_in_place():
    k = stenciljit.compile(JACOBI, device="emu")
    A = grid(24, 20)
    owner = stenciljit.Buffer(A, device="emu")  # the "other library's" allocation
    fake = FakeCudaArray(owner.address, A.shape, "<f4")
    for _ in range(3):
        k(2, 24, 20, fake)
    want = A.copy()
    numpy_jacobi2d(6, want)
    assert np.array_equal(owner.download(), want)


def test_cuda_array_interface_checks():
    k = stenciljit.compile(JACOBI, device="emu")
    owner = stenciljit.Buffer(grid(8, 8), device="emu")
    with pytest.raises(ValueError, match="'A' is not C-contiguous"):
        k(1, 8, 8, FakeCudaArray(owner.address, (2, 8, 8), "<f4", strides=(4, 64, 8)))
    with pytest.raises(TypeError, match="'A' must have dtype float32"):
        k(1, 8, 8, FakeCudaArray(owner.address, (2, 8, 8), "<f8"))
    cpu = stenciljit.compile(JACOBI, device="cpu")
    with pytest.raises(TypeError, match="'A' is a CUDA device array, the kernel runs on cpu"):
        cpu(1, 8, 8, FakeCudaArray(owner.address, (2, 8, 8), "<f4"))


class DLPackOnly:
    """An array known only through DLPack (here NumPy's own capsule, on the CPU)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_in_place():
    k = stenciljit.compile(JACOBI, device="cpu")
    A = grid(16, 16)
    want = A.copy()
    k(4, 16, 16, DLPackOnly(A))  # A itself must change: no copy was made
    numpy_jacobi2d(4, want)
    assert np.array_equal(A, want)
    emu = stenciljit.compile(JACOBI, device="emu")
    with pytest.raises(TypeError, match="DLPack array on device type 1"):
        emu(4, 16, 16, DLPackOnly(A))


def test_arrays_and_buffers_alternate(device):
    """One cached shape called with host arrays and buffers in turn: each call passes its own
    argument kind (the per-call path reuses argument arrays)."""
    k = stenciljit.compile(JACOBI, device=device)
    A = grid(20, 18)
    want = A.copy()
    B = stenciljit.Buffer(A, device=device)
    for _ in range(3):
        k(2, 20, 18, A)
        k(2, 20, 18, B)
    numpy_jacobi2d(6, want)
    assert np.array_equal(A, want) and np.array_equal(B.download(), want)
    other = "emu" if device == "cpu" else "cpu"
    with pytest.raises(stenciljit.ArgumentError, match="device"):
        k(2, 20, 18, stenciljit.Buffer(A, device=other))
