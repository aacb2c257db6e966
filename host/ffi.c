/* Calls a function with the user's own signature through libffi: the reference path, and
 * any entry whose parameter list is the user's. */
#include "host/host.h"

#include <ffi.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"

/* The libffi type of a value of type t, passed or returned. */
static ffi_type *value_type(sj_type t) {
  switch (t) {
  case SJ_TY_SCHAR:
    return &ffi_type_schar;
  case SJ_TY_UCHAR:
    return &ffi_type_uchar;
  case SJ_TY_SHORT:
    return &ffi_type_sshort;
  case SJ_TY_USHORT:
    return &ffi_type_ushort;
  case SJ_TY_INT:
    return &ffi_type_sint;
  case SJ_TY_UINT:
    return &ffi_type_uint;
  case SJ_TY_LONG:
    return &ffi_type_slong;
  case SJ_TY_ULONG:
    return &ffi_type_ulong;
  case SJ_TY_FLOAT:
    return &ffi_type_float;
  default:
    return &ffi_type_double;
  }
}

/* A returned value r of type t stored at to, as an element of that type. */
static void store_result(sj_type t, const void *r, void *to) {
  const ffi_arg *word = r;
  switch (t) {
  case SJ_TY_FLOAT:
  case SJ_TY_DOUBLE:
    memcpy(to, r, sj_type_size(t));
    return;
  case SJ_TY_LONG:
  case SJ_TY_ULONG:
    memcpy(to, r, sizeof(long));
    return;
  default: { /* the low bytes of the widened register, little-endian */
    unsigned long long v = (unsigned long long)*word;
    memcpy(to, &v, sj_type_size(t));
  }
  }
}

int sj_ffi_call(const sj_func *f, void *fn, const sj_value *values, sj_error *err) {
  int n = f->nparams - f->returns;
  ffi_type **types = calloc(n + 1, sizeof *types);
  void **ptrs = calloc(n + 1, sizeof *ptrs);
  for (int i = 0; i < n; i++) {
    types[i] =
        f->params[i]->kind == SJ_SYM_ARRAY ? &ffi_type_pointer : value_type(f->params[i]->type);
    ptrs[i] = (void *)&values[i];
  }
  ffi_cif cif;
  int rc = 0;
  const sj_sym *result = f->returns ? f->params[n] : NULL;
  ffi_type *rtype = result ? value_type(result->type) : &ffi_type_void;
  union {
    ffi_arg word; /* integers narrower than a register come back widened */
    long l;
    float f;
    double d;
  } r;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)n, rtype, types) != FFI_OK) {
    rc = sj_error_set(err, JIT_ERR_INTERNAL, "libffi cannot call '%s'", f->name);
  } else {
    ffi_call(&cif, FFI_FN(fn), result ? &r : NULL, ptrs);
    if (result) store_result(result->type, &r, values[n].p);
  }
  free(types);
  free(ptrs);
  return rc;
}
