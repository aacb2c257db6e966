"""Exceptions: one class per jit_status, the source's position on those about the source."""

import re

_POSITION = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.S)


class StencilJitError(Exception):
    """Base class of the library's errors; status is the C library's jit_status."""
    status = None


class SourceError(StencilJitError):
    """The kernel's source is at fault: filename, lineno and offset (1-based column) say
    where, msg says what; str() is the compiler-style 'file:line:col: message'."""

    def __init__(self, message):
        m = _POSITION.match(message)
        if m:
            self.filename, self.lineno, self.offset, self.msg = (
                m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))
        else:
            self.filename = self.lineno = self.offset = None
            self.msg = message
        self.text = None
        self.message = message
        Exception.__init__(self, message)

    def __str__(self):
        return self.message


class KernelSyntaxError(SourceError, SyntaxError):
    """The source is not valid C (JIT_ERR_SYNTAX)."""
    status = 1


class UnsupportedError(SourceError):
    """Valid C outside the supported subset (JIT_ERR_UNSUPPORTED)."""
    status = 2


class ArgumentError(StencilJitError, ValueError):
    """The call does not fit the function (JIT_ERR_ARGS), found by the C library."""
    status = 3


class DeviceError(StencilJitError, RuntimeError):
    """The device or its driver failed or is not available (JIT_ERR_DEVICE)."""
    status = 4


class OutOfMemoryError(StencilJitError, MemoryError):
    status = 5


class InternalError(StencilJitError, RuntimeError):
    status = 6


_BY_STATUS = {c.status: c for c in (KernelSyntaxError, UnsupportedError, ArgumentError,
                                    DeviceError, OutOfMemoryError, InternalError)}


def from_status(status, message):
    return _BY_STATUS.get(status, InternalError)(message)
