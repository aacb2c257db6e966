/* Modules (PTX text only, with ptxas-style error and info logs), links, functions, globals
 * and function attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"

static const uint32_t fatbin_magic = 0xBA55ED50u;

typedef struct logs {
  char *elog, *ilog;
  int eidx, iidx, tidx; /* option index of each size value, of the wall time; -1: none */
  size_t elen, ilen;
} logs;

static CUresult read_options(unsigned n, const CUjit_option *options, void **values, logs *lg) {
  memset(lg, 0, sizeof *lg);
  lg->eidx = lg->iidx = lg->tidx = -1;
  if (n && (!options || !values)) return CUDA_ERROR_INVALID_VALUE;
  for (unsigned k = 0; k < n; k++) {
    switch (options[k]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      lg->elog = values[k];
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      lg->elen = (size_t)(uintptr_t)values[k];
      lg->eidx = (int)k;
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      lg->ilog = values[k];
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      lg->ilen = (size_t)(uintptr_t)values[k];
      lg->iidx = (int)k;
      break;
    case CU_JIT_WALL_TIME:
      lg->tidx = (int)k;
      break;
    case CU_JIT_MAX_REGISTERS:
    case CU_JIT_THREADS_PER_BLOCK:
    case CU_JIT_OPTIMIZATION_LEVEL:
    case CU_JIT_TARGET_FROM_CUCONTEXT:
    case CU_JIT_TARGET:
    case CU_JIT_FALLBACK_STRATEGY:
    case CU_JIT_GENERATE_DEBUG_INFO:
    case CU_JIT_LOG_VERBOSE:
    case CU_JIT_GENERATE_LINE_INFO:
    case CU_JIT_CACHE_MODE:
      break;
    default:
      emu_set_error("cuModuleLoadDataEx: JIT option %d is not supported", (int)options[k]);
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

/* The log text, and the bytes written (terminator included) into the in/out size value. */
static void write_log(char *buf, size_t len, int idx, void **values, const char *text) {
  if (!buf || idx < 0 || !len) return;
  snprintf(buf, len, "%s", text);
  values[idx] = (void *)(uintptr_t)(text[0] ? strlen(buf) + 1 : 0);
}

/* "emu info : Function properties for f: ..." lines, one per kernel. */
static void info_log(const emu_module *m, char *info, size_t cap) {
  size_t used = 0;
  info[0] = 0;
  for (int k = 0; k < m->nfuncs; k++) {
    const emu_func *f = m->funcs[k];
    int n = snprintf(info + used, cap - used,
                     "%semu info    : Function properties for %s: %d instructions, %u "
                     "registers, %u bytes static shared, %u bytes local",
                     used ? "\n" : "", f->name, f->ncode - 1, f->nregs, f->shared_static,
                     f->local_size);
    if (n > 0 && (size_t)n < cap - used) used += (size_t)n;
  }
}

static CUresult parse_image(const void *image, emu_module **m, char *err, size_t cap) {
  uint32_t magic;
  memcpy(&magic, image, 4);
  if (!memcmp(image,
              "\x7f"
              "ELF",
              4) ||
      magic == fatbin_magic) {
    snprintf(err, cap, "the emulator loads PTX text only, not cubin or fatbin images");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  return emu_parse(image, m, err, cap);
}

static CUresult load(CUmodule *module, const void *image, unsigned n, CUjit_option *options,
                     void **values) {
  double t0 = emu_now_ms();
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  logs lg;
  CUresult rc = read_options(n, options, values, &lg);
  if (rc) return rc;
  char err[4096] = "", info[1024] = "";
  emu_module *m = NULL;
  rc = parse_image(image, &m, err, sizeof err);
  if (rc == CUDA_SUCCESS) {
    struct CUmod_st *h = calloc(1, sizeof *h);
    struct CUfunc_st *funcs = calloc((size_t)m->nfuncs + 1, sizeof *funcs);
    if (!h || !funcs) {
      free(h);
      free(funcs);
      emu_module_free(m);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    struct CUctx_st *ctx = emu_current();
    h->m = m;
    h->funcs = funcs;
    for (int k = 0; k < m->nfuncs; k++) funcs[k] = (struct CUfunc_st){m->funcs[k], h};
    h->next = ctx->mods;
    ctx->mods = h;
    *module = h;
    info_log(m, info, sizeof info);
  } else
    emu_set_error("%s", err);
  write_log(lg.elog, lg.elen, lg.eidx, values, err);
  write_log(lg.ilog, lg.ilen, lg.iidx, values, info);
  if (lg.tidx >= 0) {
    float ms = (float)(emu_now_ms() - t0);
    values[lg.tidx] = NULL;
    memcpy(&values[lg.tidx], &ms, sizeof ms);
  }
  return rc;
}

EMU_EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
                                               unsigned int numOptions, CUjit_option *options,
                                               void **optionValues) {
  CUresult rc = emu_enter(EMU_FAULT_LOAD, "cuModuleLoadDataEx");
  if (rc == CUDA_ERROR_INVALID_PTX) {
    /* an injected failure: the error log says so, as ptxas would say what went wrong */
    logs lg;
    if (!read_options(numOptions, options, optionValues, &lg)) {
      char log[512];
      snprintf(log, sizeof log, "ptxas application ptx input, line 1; error   : %s",
               emuGetLastErrorMessage());
      write_log(lg.elog, lg.elen, lg.eidx, optionValues, log);
    }
  }
  if (!rc) rc = load(module, image, numOptions, options, optionValues);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  CUresult rc = emu_enter(EMU_FAULT_LOAD, "cuModuleLoadData");
  if (!rc) rc = load(module, image, 0, NULL, NULL);
  return emu_leave(rc);
}

static int mod_valid(const struct CUmod_st *h) {
  for (const struct CUmod_st *m = emu_current()->mods; m; m = m->next)
    if (m == h) return 1;
  return 0;
}

EMU_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  CUresult rc = emu_enter_ctx();
  if (!rc && (!hmod || !mod_valid(hmod))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    for (struct CUmod_st **pp = &emu_current()->mods; *pp; pp = &(*pp)->next)
      if (*pp == hmod) {
        *pp = hmod->next;
        break;
      }
    emu_module_free(hmod->m);
    free(hmod->funcs);
    free(hmod);
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                                                const char *name) {
  CUresult rc = emu_enter(EMU_FAULT_FUNCTION, "cuModuleGetFunction");
  if (!rc && (!hfunc || !name)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && (!hmod || !mod_valid(hmod))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    rc = CUDA_ERROR_NOT_FOUND;
    for (int k = 0; k < hmod->m->nfuncs; k++)
      if (!strcmp(hmod->m->funcs[k]->name, name)) {
        *hfunc = &hmod->funcs[k];
        rc = CUDA_SUCCESS;
      }
    if (rc) emu_set_error("cuModuleGetFunction: the module has no kernel '%s'", name);
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                                 const char *name) {
  CUresult rc = emu_enter(EMU_FAULT_FUNCTION, "cuModuleGetGlobal_v2");
  if (!rc && !name) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && (!hmod || !mod_valid(hmod))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    rc = CUDA_ERROR_NOT_FOUND;
    for (int k = 0; k < hmod->m->nvars; k++) {
      const emu_var *v = hmod->m->vars[k];
      if ((v->space == EMU_SP_GLOBAL || v->space == EMU_SP_CONST) && !strcmp(v->name, name)) {
        if (dptr) *dptr = v->addr;
        if (bytes) *bytes = v->size;
        rc = CUDA_SUCCESS;
      }
    }
  }
  return emu_leave(rc);
}

/* Is f a function of a module of the current context? */
int emu_func_valid(const struct CUfunc_st *f) {
  if (!f) return 0;
  for (const struct CUmod_st *m = emu_current()->mods; m; m = m->next)
    if (f >= m->funcs && f < m->funcs + m->m->nfuncs) return 1;
  return 0;
}

static int max_threads(const emu_func *f) {
  if (f->reqntid[0]) return (int)(f->reqntid[0] * f->reqntid[1] * f->reqntid[2]);
  if (f->maxntid[0]) return (int)(f->maxntid[0] * f->maxntid[1] * f->maxntid[2]);
  return 1024;
}

static CUresult func_attribute(const emu_func *f, CUfunction_attribute attrib, int *pi) {
  uint64_t cbytes = 0;
  for (int k = 0; k < f->mod->nvars; k++)
    if (f->mod->vars[k]->space == EMU_SP_CONST) cbytes += f->mod->vars[k]->size;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = max_threads(f);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *pi = (int)f->shared_static;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *pi = (int)cbytes;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *pi = (int)f->local_size;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *pi = f->nregs > 255 ? 255 : (int)f->nregs;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *pi = f->mod->ptx_major * 10 + f->mod->ptx_minor;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *pi = 90;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *pi = 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = f->max_dyn_shared;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

EMU_EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                                               CUfunction hfunc) {
  CUresult rc = emu_enter(EMU_FAULT_ATTR, "cuFuncGetAttribute");
  if (!rc && !pi) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && !emu_func_valid(hfunc)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) rc = func_attribute(hfunc->f, attrib, pi);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                               int value) {
  CUresult rc = emu_enter(EMU_FAULT_ATTR, "cuFuncSetAttribute");
  if (!rc && !emu_func_valid(hfunc)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc && attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    emu_set_error("cuFuncSetAttribute: attribute %d is not settable in the emulator", (int)attrib);
    rc = CUDA_ERROR_INVALID_VALUE;
  }
  /* as a driver does: static and dynamic together within the device's opt-in maximum */
  const emu_func *f = rc ? NULL : hfunc->f;
  if (f && (value < 0 || (uint64_t)value + f->shared_static > EMU_BLOCK_SHARED_OPTIN)) {
    emu_set_error("cuFuncSetAttribute: kernel '%s': %d bytes of dynamic shared memory (with %u "
                  "of static) exceed the device's opt-in maximum per block (%d bytes)",
                  f->name, value, f->shared_static, EMU_BLOCK_SHARED_OPTIN);
    rc = CUDA_ERROR_INVALID_VALUE;
  }
  if (!rc) hfunc->f->max_dyn_shared = value;
  return emu_leave(rc);
}

/* ---------- links ---------- */

/* The emulator links one PTX input into an image that is that PTX text: what cuLinkComplete
 * gives, cuModuleLoadData loads. A program that caches linked images so works unchanged. */

static struct CUlinkState_st **find_link(CUlinkState state) {
  struct CUlinkState_st **pp = &emu_current()->links;
  while (*pp && *pp != state) pp = &(*pp)->next;
  return state && *pp ? pp : NULL;
}

EMU_EXPORT CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                            void **optionValues, CUlinkState *stateOut) {
  CUresult rc = emu_enter(EMU_FAULT_LINK, "cuLinkCreate_v2");
  logs lg;
  if (!rc && !stateOut) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) rc = read_options(numOptions, options, optionValues, &lg);
  struct CUlinkState_st *k = rc ? NULL : calloc(1, sizeof *k);
  if (!rc && !k) rc = CUDA_ERROR_OUT_OF_MEMORY;
  if (!rc) {
    k->elog = lg.elog, k->elen = lg.elen, k->ilog = lg.ilog, k->ilen = lg.ilen;
    k->next = emu_current()->links;
    emu_current()->links = k;
    *stateOut = k;
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                                             size_t size, const char *name, unsigned int numOptions,
                                             CUjit_option *options, void **optionValues) {
  (void)name, (void)numOptions, (void)options, (void)optionValues;
  CUresult rc = emu_enter(EMU_FAULT_LINK, "cuLinkAddData_v2");
  if (!rc && !find_link(state)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc && (!data || !size)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && (type != CU_JIT_INPUT_PTX && type != CU_JIT_INPUT_CUBIN)) {
    emu_set_error("cuLinkAddData: the emulator links PTX (and its own images) only");
    rc = CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!rc && state->ptx) {
    emu_set_error("cuLinkAddData: the emulator links one input, without relocations");
    rc = CUDA_ERROR_NOT_SUPPORTED;
  }
  char *text = rc ? NULL : malloc(size + 1);
  if (!rc && !text) rc = CUDA_ERROR_OUT_OF_MEMORY;
  if (!rc) {
    memcpy(text, data, size);
    text[size] = 0; /* PTX sizes may or may not count the terminator */
    char err[4096] = "";
    emu_module *m = NULL;
    rc = parse_image(text, &m, err, sizeof err);
    emu_module_free(m);
    if (rc) {
      emu_set_error("%s", err);
      if (state->elog && state->elen) snprintf(state->elog, state->elen, "%s", err);
      free(text);
    } else
      state->ptx = text;
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut) {
  CUresult rc = emu_enter(EMU_FAULT_LINK, "cuLinkComplete");
  if (!rc && !find_link(state)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc && (!cubinOut || !sizeOut)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && !state->ptx) {
    emu_set_error("cuLinkComplete: nothing was added to the link");
    rc = CUDA_ERROR_INVALID_VALUE;
  }
  if (!rc) {
    *cubinOut = state->ptx;
    *sizeOut = strlen(state->ptx) + 1;
    if (state->ilog && state->ilen)
      snprintf(state->ilog, state->ilen, "emu info    : linked one PTX input");
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuLinkDestroy(CUlinkState state) {
  CUresult rc = emu_enter_ctx();
  struct CUlinkState_st **pp = rc ? NULL : find_link(state);
  if (!rc && !pp) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    *pp = state->next;
    free(state->ptx);
    free(state);
  }
  return emu_leave(rc);
}
