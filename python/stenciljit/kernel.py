"""Kernel objects: a C function compiled per shape (its integer arguments), called with NumPy
arrays, Python scalars and device buffers, every argument checked against the declaration.

The per-call path is generated for the function's parameter list (as Numba and dataclasses
generate theirs): for a shape seen before and NumPy arrays that match, a call costs a dict
lookup, a few identity and tuple comparisons per array, one pointer read and one ctypes call.
Everything else (first calls, buffers, device arrays of other libraries, errors) takes the
general path, which explains what does not fit."""

import ctypes
import numbers
import re
from collections import namedtuple
from ctypes import byref, c_char, c_double, c_float, c_int, c_long, c_uint64, c_void_p

import numpy as np

from . import _lib
from ._lib import ARG_BUF, ARG_BUFFER, ARG_DOUBLE, ARG_FLOAT, ARG_INT, ARG_LONG, ARG_PTR, lib
from .buffer import Buffer, Wrapped, cuda_array, describe, dlpack_array

Param = namedtuple("Param", "name kind dtype rank const open")
Param.__doc__ = "A parameter of the kernel's function: kind is 'int', 'long', 'float', " \
                "'double' or 'array' (of dtype, with rank dimensions)."

_KIND_NAMES = {ARG_INT: "int", ARG_LONG: "long", ARG_FLOAT: "float", ARG_DOUBLE: "double",
               ARG_PTR: "array"}
_LONG = "int64" if ctypes.sizeof(c_long) == 8 else "int32"
_DTYPES = {ARG_INT: np.dtype("int32"), ARG_LONG: np.dtype(_LONG), ARG_FLOAT: np.dtype("float32"),
           ARG_DOUBLE: np.dtype("float64"), _lib.ELEM_INT8: np.dtype("int8"),
           _lib.ELEM_UINT8: np.dtype("uint8"), _lib.ELEM_INT16: np.dtype("int16"),
           _lib.ELEM_UINT16: np.dtype("uint16"), _lib.ELEM_UINT32: np.dtype("uint32"),
           _lib.ELEM_UINT64: np.dtype("uint64"), _lib.ELEM_BOOL: np.dtype("bool")}
_INT_RANGE = {ARG_INT: 2 ** 31, ARG_LONG: 2 ** (8 * ctypes.sizeof(c_long) - 1)}
MAX_SHAPES = 64  # specializations a kernel object keeps; the oldest is dropped beyond


def _pointer(array):
    """Address of an ndarray's data (the general path: any array, empty and read-only ones)."""
    return array.__array_interface__["data"][0]


def _template(params, ints):
    """The argument array of a call with these integer arguments (by parameter index): arrays
    as JIT_BUF, pointers and floating values still to be filled in."""
    args = (_lib.Arg * len(params))()
    kinds = {"int": ARG_INT, "long": ARG_LONG, "float": ARG_FLOAT, "double": ARG_DOUBLE,
             "array": ARG_BUF}
    for i, p in enumerate(params):
        args[i].kind = kinds[p.kind]
        if p.kind == "int":
            args[i].v.i = ints[i]
        elif p.kind == "long":
            args[i].v.l = ints[i]
    return args


class _Shape:
    """One specialization: the jit_kernel, what each array must be, and argument arrays ready to
    pass (a pool, so that concurrent calls never share one)."""

    def __init__(self, params, handle, template):
        self.handle = handle
        self.params = params
        self.template = template
        self.arrays = {}  # parameter index -> (dtype, shape, nbytes)
        for i, p in enumerate(params):
            if p.kind != "array":
                continue
            extents = (c_long * 16)()
            rank = lib.jit_kernel_param_shape(handle, i, extents, 16)
            shape = tuple(extents[d] for d in range(rank))
            self.arrays[i] = (p.dtype, shape,
                              int(np.prod(shape, dtype=np.int64)) * p.dtype.itemsize)
        self.pool = [self.slot() for _ in range(2)]

    def slot(self):
        """(address, 8-byte words, float32 view, float64 view, keep-alive) of a fresh copy of the
        argument array."""
        args = (_lib.Arg * len(self.params))()
        ctypes.memmove(args, self.template, ctypes.sizeof(args))
        words = (c_uint64 * (len(args) * _lib.ARG_WORDS)).from_buffer(args)
        floats = (c_float * (len(args) * _lib.ARG_WORDS * 2)).from_buffer(args)
        doubles = (c_double * (len(args) * _lib.ARG_WORDS)).from_buffer(args)
        return ctypes.addressof(args), words, floats, doubles, args

    def __del__(self):
        if self.handle and lib is not None:
            lib.jit_kernel_release(self.handle)
            self.handle = None


class Kernel:
    """A C function compiled per shape on one device: call it as the C function is called.
    Made by stenciljit.compile()."""

    def __init__(self, source, entry, ctx, params, name):
        self.source, self.entry, self.name = source, entry, name
        self._ctx = ctx
        self.params = params
        self._shapes = {}
        self._last = None
        self._int_idx = [i for i, p in enumerate(params) if p.kind in ("int", "long")]

    # --- introspection ---
    @property
    def device(self):
        return self._ctx.device

    @property
    def info(self):
        """Which device the context chose and why."""
        return self._ctx.info

    def _specialization(self):
        if self._last is None:
            raise RuntimeError(f"{self.name}: not compiled yet: call it, or specialize() it for "
                               "its integer arguments first")
        return self._last

    def specialize(self, *ints):
        """Compiles (or finds) the kernel for these integer arguments, in parameter order,
        without running it; code(), schedule() and stage_times() then describe it."""
        if len(ints) != len(self._int_idx):
            raise TypeError(f"{self.name}: specialize() takes the {len(self._int_idx)} integer "
                            f"arguments ({', '.join(self.params[i].name for i in self._int_idx)})")
        args = [None] * len(self.params)
        for i, v in zip(self._int_idx, ints):
            args[i] = v
        self._last = self._shape(self._ints(args))
        return self

    def code(self, kind="c"):
        """The generated code of the last specialization: 'c' (CPU), 'ptx' or 'host' (the GPU
        host loop, as C)."""
        if kind not in _lib.CODE_KINDS:
            raise ValueError(f"code kind must be one of {', '.join(_lib.CODE_KINDS)}, not {kind!r}")
        text = lib.jit_kernel_code(self._specialization().handle, _lib.CODE_KINDS[kind])
        if text is None:
            raise ValueError(f"no {kind} code: the kernel runs on the {self.device} device")
        return _lib.text(text)

    def schedule(self):
        """The chosen schedule of the last specialization, explained."""
        return _lib.text(lib.jit_kernel_schedule(self._specialization().handle))

    def stage_times(self):
        """Seconds spent in each compile stage of the last specialization."""
        t = _lib.StageTimes()
        lib.jit_kernel_stage_times(self._specialization().handle, byref(t))
        return {name: getattr(t, name) * 1e-6 for name in _lib.STAGES}

    def tile_sizes(self):
        sizes = (c_int * 8)()
        n = lib.jit_kernel_tile_sizes(self._specialization().handle, sizes, 8)
        return [sizes[i] for i in range(min(n, 8))]

    def __repr__(self):
        sig = ", ".join(f"{p.kind if p.kind != 'array' else str(p.dtype) + '[]' * p.rank} "
                        f"{p.name}" for p in self.params)
        return f"<stenciljit.Kernel {self.name}({sig}) on {self.device}>"

    # --- the general path ---
    def _ints(self, args):
        """The integer arguments, type- and range-checked, as the shape key."""
        key = []
        for i in self._int_idx:
            p, v = self.params[i], args[i]
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{self.name}: argument '{p.name}' must be an int (it is the C "
                                f"{p.kind} of the shape), not {describe(v)}")
            v = int(v)
            limit = _INT_RANGE[ARG_INT if p.kind == "int" else ARG_LONG]
            if not -limit <= v < limit:
                raise OverflowError(f"{self.name}: argument '{p.name}' = {v} does not fit a C "
                                    f"{p.kind}")
            key.append(v)
        return tuple(key)

    def _shape(self, key):
        e = self._shapes.get(key)
        if e is not None:
            return e
        args = _template(self.params, dict(zip(self._int_idx, key)))
        handle = c_void_p()
        status = lib.jit_kernel_compile(self._ctx.handle, self.source.encode(),
                                        self.entry.encode() if self.entry else None, args,
                                        len(self.params), byref(handle))
        if status:
            raise self._ctx.fail(status)
        e = _Shape(self.params, handle.value, args)
        if len(self._shapes) >= MAX_SHAPES:  # the oldest goes; a call using it keeps it alive
            del self._shapes[next(iter(self._shapes))]
        self._shapes[key] = e
        return e

    def _array(self, i, obj, e, keep):
        """(kind, pointer, bytes) of array argument i, checked against its declaration."""
        p = self.params[i]
        dtype, shape, _ = e.arrays[i]
        where = f"{self.name}: argument '{p.name}'"
        readonly = False
        if isinstance(obj, np.ndarray):
            got_dtype, got_shape = obj.dtype, obj.shape
        elif isinstance(obj, Buffer):
            got_dtype, got_shape = obj.dtype, obj.shape
        elif hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__"):
            try:
                info = (cuda_array if hasattr(obj, "__cuda_array_interface__") else dlpack_array)(
                    obj, self._ctx)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{where} {exc}") from None
            got_dtype, got_shape, address, readonly, holder = info
        else:
            raise TypeError(f"{where} must be a numpy.ndarray of {dtype} with shape {shape}, "
                            f"not {describe(obj)}")
        if got_dtype != dtype or not got_dtype.isnative:
            raise TypeError(f"{where} must have dtype {dtype} (C {p.kind} of {_c_elem(dtype)}), "
                            f"not {got_dtype}")
        if p.open and len(shape) == 1:  # a pointer: any array with enough elements
            got_shape = (int(np.prod(got_shape, dtype=np.int64)),)
        if len(got_shape) != len(shape):
            raise ValueError(f"{where} must have {len(shape)} dimensions (declared "
                             f"{_c_decl(p, shape)}), not {len(got_shape)}")
        if p.open and tuple(got_shape[1:]) == shape[1:] and got_shape[0] >= shape[0]:
            pass  # the first extent is open: what the function reaches, or more
        elif tuple(got_shape) != shape:
            more = " (or more along the first, which is open)" if p.open else ""
            raise ValueError(f"{where} must have shape {shape}{more} for these integer arguments "
                             f"(declared {_c_decl(p, shape)}), not {tuple(got_shape)}")
        if isinstance(obj, Buffer):
            return ARG_BUFFER, obj.handle, obj.nbytes
        if isinstance(obj, np.ndarray):
            if not obj.flags.c_contiguous:
                raise ValueError(f"{where} must be C-contiguous (np.ascontiguousarray makes a "
                                 "copy that is)")
            readonly = not obj.flags.writeable
        if readonly and not p.const:
            raise ValueError(f"{where} is read-only, but the kernel may write it (declare it "
                             "const if it does not)")
        if isinstance(obj, np.ndarray):
            return ARG_BUF, _pointer(obj), obj.nbytes
        size = int(np.prod(got_shape, dtype=np.int64)) * got_dtype.itemsize  # the array's own
        wrapped = Wrapped(self._ctx, address, size, holder)
        keep.append(wrapped)
        return ARG_BUFFER, wrapped.handle, size

    def reference(self, *args):
        """Runs the C function itself (compiled by TinyCC as written, called through libffi)
        with the same arguments and checks: what the kernel's results are compared with."""
        return self._call_general(args, reference=True)

    def _call_general(self, args, reference=False):
        if len(args) != len(self.params):
            raise TypeError(f"{self.name}() takes {len(self.params)} arguments "
                            f"({', '.join(p.name for p in self.params)}), {len(args)} given")
        e = self._shape(self._ints(args))
        self._last = e
        address, words, floats, doubles, _ = slot = e.slot()
        keep = []
        for i, p in enumerate(self.params):
            v, w = args[i], i * _lib.ARG_WORDS + _lib.VALUE_WORD
            if p.kind in ("float", "double"):
                if isinstance(v, bool) or not isinstance(v, numbers.Real):
                    raise TypeError(f"{self.name}: argument '{p.name}' must be a real number "
                                    f"(C {p.kind}), not {describe(v)}")
                if p.kind == "float":
                    floats[2 * w] = float(v)
                else:
                    doubles[w] = float(v)
            elif p.kind == "array":
                kind, pointer, nbytes = self._array(i, v, e, keep)
                words[i * _lib.ARG_WORDS] = kind
                words[w] = pointer
                words[i * _lib.ARG_WORDS + _lib.BYTES_WORD] = nbytes
        if reference:
            status = lib.jit_reference_run(self._ctx.handle, self.source.encode(),
                                           self.entry.encode() if self.entry else None, address,
                                           len(self.params))
        else:
            status = lib.jit_kernel_run(e.handle, address, len(self.params))
        del keep, slot
        if status:
            raise self._ctx.fail(status, self.name)


def _c_elem(dtype):
    return {"int32": "int", "int64": "long", "float32": "float", "float64": "double"}.get(
        dtype.name, dtype.name)


def _c_decl(p, shape):
    return f"{_c_elem(p.dtype)} {p.name}" + "".join(f"[{n}]" for n in shape)


def _fast_path(params):
    """The per-call function for this parameter list (see the module's comment); anything it
    does not handle goes to the general path, which also produces every error message."""
    names = [f"a{i}" for i in range(len(params))]
    ints = [names[i] for i, p in enumerate(params) if p.kind in ("int", "long")]
    src = ["def __call__(self, *args):",
           "    try:",
           f"        [{', '.join(names)}] = args"]  # a wrong count: ValueError, the general path
    if ints:
        src += [f"        if {' or '.join(f'{a}.__class__ is not int' for a in ints)}:",
                "            raise Mismatch"]
    src += [f"        e = self._shapes[({', '.join(ints)}{',' if len(ints) == 1 else ''})]",
            "        arrays = e.arrays",
            "        slot = e.pool.pop() if e.pool else e.slot()",
            "        address, words, floats, doubles, _ = slot"]
    for i, p in enumerate(params):
        a, w = names[i], i * _lib.ARG_WORDS + _lib.VALUE_WORD
        if p.kind == "float":
            src.append(f"        floats[{2 * w}] = {a}")
        elif p.kind == "double":
            src.append(f"        doubles[{w}] = {a}")
        elif p.kind == "array":
            kind, size = i * _lib.ARG_WORDS, w + _lib.BYTES_WORD - _lib.VALUE_WORD
            src += [f"        dt, sh, nb = arrays[{i}]",
                    f"        if {a}.dtype is not dt or {a}.shape != sh:",
                    "            raise Mismatch",
                    f"        if {a}.__class__ is ndarray:",
                    # from_buffer: a writable, C-contiguous buffer or TypeError/ValueError
                    f"            words[{w}] = addressof(from_buffer({a}))",
                    f"            words[{kind}] = {ARG_BUF}",
                    f"        elif {a}.__class__ is Buffer:",
                    f"            words[{w}] = {a}.handle",
                    f"            words[{kind}] = {ARG_BUFFER}",
                    "        else:",
                    "            raise Mismatch",
                    f"        words[{size}] = {a}.nbytes"]
    src += ["    except (Mismatch, KeyError, TypeError, ValueError, OverflowError, AttributeError):",
            "        return self._call_general(args)",
            f"    status = run(e.handle, address, {len(params)})",
            "    e.pool.append(slot)",
            "    self._last = e",
            "    if status:",
            "        raise self._ctx.fail(status, self.name)"]
    scope = {"ndarray": np.ndarray, "addressof": ctypes.addressof,
             "from_buffer": c_char.from_buffer, "run": lib.jit_kernel_run, "Mismatch": _Mismatch,
             "Buffer": Buffer}
    exec("\n".join(src), scope)  # noqa: S102 (generated from the parameter list only)
    return scope["__call__"]


class _Mismatch(Exception):
    """The fast path does not apply: the general path decides."""


def _name(source, entry):
    if entry:
        return entry
    # the entry is the void function that no other calls: its name appears only where it is
    # declared
    found = set(re.findall(r"\bvoid\s+([A-Za-z_]\w*)\s*\(", source))
    uncalled = [f for f in found
                if len(re.findall(r"\b%s\s*\(" % f, source)) ==
                len(re.findall(r"\bvoid\s+%s\s*\(" % f, source))]
    return uncalled[0] if len(uncalled) == 1 else "kernel"


def compile(source, entry=None, device="auto", fast_math=False):  # noqa: A001 (the API's name)
    """A callable kernel for the C99 function in source (entry: its name when the source has
    several). Compilation happens per shape, on the first call with those integer arguments;
    source that is not valid C or outside the subset is refused now when the parser sees it."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a str, not {type(source).__name__}")
    ctx = _lib.context(device, fast_math)
    infos = (_lib.ParamInfo * 256)()
    count = c_int()
    status = lib.jit_function_params(ctx.handle, source.encode(),
                                     entry.encode() if entry else None, infos, 256, byref(count))
    if status:
        raise ctx.fail(status)
    params = []
    for i in range(count.value):
        info = infos[i]
        kind = _KIND_NAMES[info.kind]
        dtype = _DTYPES[info.elem_kind] if kind == "array" else None
        params.append(Param(_lib.text(info.name), kind, dtype, info.rank, bool(info.is_const),
                            bool(info.open_extent)))
    name = _name(source, entry)
    cls = type(f"Kernel[{name}]", (Kernel,), {"__call__": _fast_path(params)})
    return cls(source, entry, ctx, params, name)
