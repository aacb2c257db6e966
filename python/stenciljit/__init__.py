"""stenciljit: run-time compilation of stencils and affine loop nests written as C99 functions.

    kernel = stenciljit.compile(source)      # the C function's text
    kernel(T, N, M, A)                       # as the C function is called; A a NumPy array

See stenciljit.compile, stenciljit.Kernel and stenciljit.Buffer."""

from ._lib import context as _context
from .buffer import Buffer
from .errors import (ArgumentError, DeviceError, InternalError, KernelSyntaxError,
                     OutOfMemoryError, SourceError, StencilJitError, UnsupportedError)
from .kernel import Kernel, Param, compile

__version__ = "0.1.0"
__all__ = ["compile", "Kernel", "Param", "Buffer", "device_info", "StencilJitError",
           "SourceError", "KernelSyntaxError", "UnsupportedError", "ArgumentError",
           "DeviceError", "OutOfMemoryError", "InternalError"]


def device_info(device="auto"):
    """Which device a context for `device` runs on, and why (e.g. 'cpu: chosen by ...')."""
    return _context(device).info
