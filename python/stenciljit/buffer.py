"""Device-resident arrays (jit_buffer) and arrays other libraries hold on a device."""

import ctypes
from ctypes import POINTER, Structure, c_int, c_int64, c_uint8, c_uint16, c_uint64, c_void_p

import numpy as np

from . import _lib
from ._lib import lib


class Buffer:
    """An array kept on a device between calls (host memory on the CPU device).

    Buffer(array, device=...) allocates and uploads a copy of a NumPy array;
    Buffer.empty(shape, dtype, device=...) allocates without uploading. Pass it to a kernel in
    place of the array: the call copies nothing between the host and the device, so a time loop
    called in chunks moves its data once each way (the upload here and download())."""

    def __init__(self, array=None, device="auto", *, shape=None, dtype=None):
        if array is not None:
            array = np.ascontiguousarray(array)
            shape, dtype = array.shape, array.dtype
        if shape is None or dtype is None:
            raise TypeError("Buffer needs an array, or shape and dtype")
        self.shape = tuple(int(n) for n in (shape if isinstance(shape, tuple) else (shape,)))
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self._ctx = _lib.context(device)
        self.handle = lib.jit_buffer_create(self._ctx.handle, self.nbytes)
        if not self.handle:
            raise self._ctx.fail(_lib.ERR_DEVICE, "cannot allocate the buffer")
        if array is not None:
            self.upload(array)

    @classmethod
    def empty(cls, shape, dtype, device="auto"):
        return cls(None, device, shape=shape, dtype=dtype)

    @property
    def device(self):
        return self._ctx.device

    @property
    def address(self):
        """The buffer's address on its device (a CUdeviceptr on emu and cuda)."""
        return lib.jit_buffer_address(self.handle)

    def _host_view(self, array, writable):
        if not isinstance(array, np.ndarray) or array.dtype != self.dtype or \
                array.shape != self.shape:
            raise ValueError(f"expected a {self.dtype} array of shape {self.shape}, got "
                             f"{describe(array)}")
        if not array.flags.c_contiguous or (writable and not array.flags.writeable):
            raise ValueError("the array must be C-contiguous" + (" and writable" * writable))
        return array.__array_interface__["data"][0]

    def upload(self, array):
        """Copies array (same shape and dtype) to the buffer."""
        array = np.ascontiguousarray(array)
        status = lib.jit_buffer_upload(self.handle, self._host_view(array, False), self.nbytes)
        if status:
            raise self._ctx.fail(status)

    def download(self, out=None):
        """The buffer's contents as a new array, or copied into out."""
        if out is None:
            out = np.empty(self.shape, self.dtype)
        status = lib.jit_buffer_download(self.handle, self._host_view(out, True), self.nbytes)
        if status:
            raise self._ctx.fail(status)
        return out

    @property
    def __cuda_array_interface__(self):
        if self._ctx.device != "cuda":
            raise AttributeError("__cuda_array_interface__: only buffers on the cuda device")
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.address, False),
                "strides": None, "version": 3}

    def __repr__(self):
        return f"<stenciljit.Buffer {self.dtype}{list(self.shape)} on {self.device}>"

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.jit_buffer_destroy(self.handle)
            self.handle = None


def describe(obj):
    """What an argument is, for error messages."""
    if isinstance(obj, (np.ndarray, Buffer)):
        return f"{type(obj).__name__} of {obj.dtype} with shape {obj.shape}"
    return type(obj).__name__


class Wrapped:
    """Another library's device array as a jit_buffer for one call: the memory is not copied
    and not freed; keep holds what must stay alive while it is used."""

    def __init__(self, ctx, address, nbytes, keep):
        self.handle = lib.jit_buffer_wrap(ctx.handle, address, nbytes)
        if not self.handle:
            raise ctx.fail(_lib.ERR_ARGS, "cannot use the array")
        self.keep = keep

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.jit_buffer_destroy(self.handle)


def _c_contiguous(shape, strides, itemsize):
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def cuda_array(obj, ctx):
    """(dtype, shape, address, readonly, keep) of an object with __cuda_array_interface__."""
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    dtype = np.dtype(cai["typestr"])
    address, readonly = cai["data"]
    strides = cai.get("strides")
    if strides is not None and not _c_contiguous(shape, strides, dtype.itemsize):
        raise ValueError("is not C-contiguous")
    if ctx.device not in ("cuda", "emu"):
        raise TypeError(f"is a CUDA device array, the kernel runs on {ctx.device}")
    return dtype, shape, address, readonly, obj


# DLPack (dlpack.h): the tensor a producer's capsule points to.
_DL_CPU, _DL_CUDA = 1, 2


class _DLDevice(Structure):
    _fields_ = [("device_type", c_int), ("device_id", c_int)]


class _DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class _DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", _DLDevice), ("ndim", c_int),
                ("dtype", _DLDataType), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = c_void_p, [ctypes.py_object, ctypes.c_char_p]
_DL_KINDS = {0: "i", 1: "u", 2: "f"}


def dlpack_array(obj, ctx):
    """(dtype, shape, address, readonly, keep) of an object with __dlpack__: the capsule is
    kept (not consumed) so that its deleter runs when it is collected, after the call."""
    device_type, device_id = obj.__dlpack_device__()
    want = _DL_CPU if ctx.device == "cpu" else _DL_CUDA
    if device_type != want or device_id != 0:
        raise TypeError(f"is a DLPack array on device type {device_type} (id {device_id}), "
                        f"the kernel runs on {ctx.device}")
    capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.dtype.lanes != 1 or t.dtype.code not in _DL_KINDS:
        raise TypeError("has a DLPack element type without a NumPy equivalent")
    dtype = np.dtype(f"{_DL_KINDS[t.dtype.code]}{t.dtype.bits // 8}")
    shape = tuple(t.shape[d] for d in range(t.ndim))
    if t.strides and not _c_contiguous(shape, [t.strides[d] * dtype.itemsize
                                               for d in range(t.ndim)], dtype.itemsize):
        raise ValueError("is not C-contiguous")
    return dtype, shape, (t.data or 0) + t.byte_offset, False, capsule
