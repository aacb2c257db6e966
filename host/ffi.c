/* Calls a function with the user's own signature through libffi: the reference path, and
 * any entry whose parameter list is the user's. */
#include "host/host.h"

#include <ffi.h>
#include <stdlib.h>

#include "stenciljit.h"

static ffi_type *param_type(const sj_sym *p) {
  if (p->kind == SJ_SYM_ARRAY) return &ffi_type_pointer;
  switch (p->type) {
  case SJ_TY_INT:
    return &ffi_type_sint;
  case SJ_TY_LONG:
    return &ffi_type_slong;
  case SJ_TY_UINT:
    return &ffi_type_uint;
  case SJ_TY_ULONG:
    return &ffi_type_ulong;
  case SJ_TY_FLOAT:
    return &ffi_type_float;
  default:
    return &ffi_type_double;
  }
}

int sj_ffi_call(const sj_func *f, void *fn, const sj_value *values, sj_error *err) {
  int n = f->nparams;
  ffi_type **types = calloc(n + 1, sizeof *types);
  void **ptrs = calloc(n + 1, sizeof *ptrs);
  for (int i = 0; i < n; i++) {
    types[i] = param_type(f->params[i]);
    ptrs[i] = (void *)&values[i];
  }
  ffi_cif cif;
  int rc = 0;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_void, types) != FFI_OK)
    rc = sj_error_set(err, JIT_ERR_INTERNAL, "libffi cannot call '%s'", f->name);
  else
    ffi_call(&cif, FFI_FN(fn), NULL, ptrs);
  free(types);
  free(ptrs);
  return rc;
}
