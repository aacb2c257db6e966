"""The C library through ctypes: its types, its functions and the contexts kernels share."""

import ctypes
import os
import threading
from ctypes import (POINTER, Structure, Union, c_char_p, c_double, c_float, c_int, c_long,
                    c_size_t, c_ulonglong, c_void_p)

from . import errors

_HERE = os.path.dirname(os.path.abspath(__file__))

# jit_status
OK, ERR_SYNTAX, ERR_UNSUPPORTED, ERR_ARGS, ERR_DEVICE, ERR_NOMEM, ERR_INTERNAL = range(7)
# jit_arg_kind, and the two kinds only arguments have
ARG_INT, ARG_LONG, ARG_FLOAT, ARG_DOUBLE, ARG_PTR, ARG_BUF, ARG_BUFFER = range(7)
# element kinds of arrays only (JIT_ELEM_*)
ELEM_INT8, ELEM_UINT8, ELEM_INT16, ELEM_UINT16, ELEM_UINT32, ELEM_UINT64, ELEM_BOOL = range(7, 14)
# jit_device
DEVICES = {"auto": 0, "cpu": 1, "emu": 2, "cuda": 3}
DEVICE_NAMES = {v: k for k, v in DEVICES.items()}
# jit_code_kind
CODE_KINDS = {"c": 0, "ptx": 1, "host": 2}


class _BufRef(Structure):
    _fields_ = [("p", c_void_p), ("bytes", c_size_t)]


class _Value(Union):
    _fields_ = [("i", c_int), ("l", c_long), ("f", c_float), ("d", c_double), ("p", c_void_p),
                ("buf", _BufRef), ("buffer", c_void_p)]


class Arg(Structure):
    """jit_arg"""
    _fields_ = [("kind", c_int), ("v", _Value)]


class ParamInfo(Structure):
    """jit_param_info"""
    _fields_ = [("name", c_char_p), ("kind", c_int), ("elem_kind", c_int), ("rank", c_int),
                ("is_const", c_int), ("elems", c_size_t), ("open_extent", c_int)]


class Options(Structure):
    """jit_options"""
    _fields_ = [("fast_math", c_int), ("threads", c_int), ("source_name", c_char_p),
                ("cache_bytes", c_size_t), ("max_compile_ops", ctypes.c_ulong),
                ("tile", c_char_p), ("reassociate", c_int)]


STAGES = ("parse", "model", "dependences", "schedule", "ast", "print", "compile", "total")


class StageTimes(Structure):
    """jit_stage_times, microseconds"""
    _fields_ = [(name, c_double) for name in STAGES]


class Stats(Structure):
    """jit_stats"""
    _fields_ = [("compiles", ctypes.c_ulong), ("cache_hits", ctypes.c_ulong),
                ("runs", ctypes.c_ulong), ("evictions", ctypes.c_ulong),
                ("cache_bytes", c_size_t), ("cache_kernels", c_size_t),
                ("disk_hits", ctypes.c_ulong), ("disk_writes", ctypes.c_ulong)]


# Word offsets (8 bytes) of a jit_arg's parts: the call path writes them in place.
ARG_WORDS = ctypes.sizeof(Arg) // 8
VALUE_WORD = Arg.v.offset // 8
BYTES_WORD = VALUE_WORD + _BufRef.bytes.offset // 8
assert ctypes.sizeof(Arg) % 8 == 0 and Arg.v.offset % 8 == 0


def _load():
    path = os.environ.get("STENCILJIT_LIBRARY") or os.path.join(_HERE, "libstenciljit.so")
    lib = ctypes.CDLL(path)
    sig = {
        "jit_context_create": (c_void_p, [c_int]),
        "jit_context_destroy": (None, [c_void_p]),
        "jit_context_error": (c_char_p, [c_void_p]),
        "jit_last_error": (c_char_p, []),
        "jit_context_info": (c_char_p, [c_void_p]),
        "jit_context_device": (c_int, [c_void_p]),
        "jit_context_set_options": (c_int, [c_void_p, POINTER(Options)]),
        "jit_context_stats": (c_int, [c_void_p, POINTER(Stats)]),
        "jit_function_params": (c_int, [c_void_p, c_char_p, c_char_p, POINTER(ParamInfo), c_int,
                                        POINTER(c_int)]),
        "jit_kernel_compile": (c_int, [c_void_p, c_char_p, c_char_p, POINTER(Arg), c_int,
                                       POINTER(c_void_p)]),
        # the argument array is passed as its address: no conversion on the per-call path
        "jit_kernel_run": (c_int, [c_void_p, c_void_p, c_int]),
        "jit_reference_run": (c_int, [c_void_p, c_char_p, c_char_p, c_void_p, c_int]),
        "jit_kernel_release": (None, [c_void_p]),
        "jit_kernel_code": (c_char_p, [c_void_p, c_int]),
        "jit_kernel_schedule": (c_char_p, [c_void_p]),
        "jit_kernel_device": (c_int, [c_void_p]),
        "jit_kernel_stage_times": (None, [c_void_p, POINTER(StageTimes)]),
        "jit_kernel_tile_sizes": (c_int, [c_void_p, POINTER(c_int), c_int]),
        "jit_kernel_param_shape": (c_int, [c_void_p, c_int, POINTER(c_long), c_int]),
        "jit_buffer_create": (c_void_p, [c_void_p, c_size_t]),
        "jit_buffer_wrap": (c_void_p, [c_void_p, c_ulonglong, c_size_t]),
        "jit_buffer_destroy": (None, [c_void_p]),
        "jit_buffer_size": (c_size_t, [c_void_p]),
        "jit_buffer_address": (c_ulonglong, [c_void_p]),
        "jit_buffer_upload": (c_int, [c_void_p, c_void_p, c_size_t]),
        "jit_buffer_download": (c_int, [c_void_p, c_void_p, c_size_t]),
    }
    for name, (restype, argtypes) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes
    return lib


lib = _load()


def text(b):
    return b.decode("utf-8", "replace") if b else ""


class Context:
    """A jit_context: one per (device, fast_math), shared by the kernels and buffers made with
    those settings and kept for the life of the process (buffers must not outlive it)."""

    def __init__(self, device, fast_math):
        if device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {device!r}")
        emulator = os.path.join(_HERE, "libstenciljit_cudaemu.so")
        if device in ("emu", "auto") and os.path.exists(emulator):
            # the emulator of this package, unless the environment names another
            os.environ.setdefault("JIT_EMU_LIBRARY", emulator)
        handle = lib.jit_context_create(DEVICES[device])
        if not handle:
            raise errors.DeviceError(f"cannot create a {device} context: "
                                     f"{text(lib.jit_last_error())}")
        self.handle = handle
        self.device = DEVICE_NAMES[lib.jit_context_device(handle)]
        self.info = text(lib.jit_context_info(handle))
        opts = Options(1 if fast_math else 0, 0, None)
        lib.jit_context_set_options(handle, ctypes.byref(opts))
        self.fast_math = bool(fast_math)

    def error(self):
        return text(lib.jit_context_error(self.handle))

    def fail(self, status, what=None):
        """The exception for a failed call's status and this context's message."""
        msg = self.error()
        return errors.from_status(status, f"{what}: {msg}" if what else msg)

    def stats(self):
        s = Stats()
        lib.jit_context_stats(self.handle, ctypes.byref(s))
        return {"compiles": s.compiles, "cache_hits": s.cache_hits, "runs": s.runs}


_contexts = {}
_contexts_lock = threading.Lock()


def context(device="auto", fast_math=False):
    """The shared context for these settings (created on first use)."""
    key = (device, bool(fast_math))
    with _contexts_lock:
        ctx = _contexts.get(key)
        if ctx is None:
            ctx = _contexts[key] = Context(device, fast_math)
        return ctx
