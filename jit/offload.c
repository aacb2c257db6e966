/* GPU kernels: the module loaded through the driver, the host loop compiled by TinyCC,
 * and a run: copy in exactly the declared extents, run the host loop, copy back what the
 * kernel writes. The caller's arrays are written only after everything succeeded.
 * Device-resident arrays (jit_buffer) are used in place: no copy either way. */
#include "jit/jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/artifact.h"
#include "ptx/ptx.h"

int sj_gpu_build(jit_kernel *k, sj_error *err) {
  sj_cuda *c = k->ctx->cuda;
  const sj_ir_module *mod = k->ir;
  k->device_ms = -1;
  k->nkernels = mod->nfuncs - 1; /* the host function first */
  k->kernels = calloc((size_t)k->nkernels + 1, sizeof *k->kernels);
  if (!k->kernels) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  int rc = sj_gpu_load_module(k, err);
  for (int i = 0; !rc && i < k->nkernels; i++) {
    const sj_ir_func *f = mod->funcs[i + 1];
    sj_gpu_kernel *g = &k->kernels[i];
    memcpy(g->grid, f->grid, sizeof g->grid);
    memcpy(g->block, f->block, sizeof g->block);
    g->nparams = f->nparams;
    g->params = malloc((size_t)f->nparams * sizeof *g->params + 1);
    if (!g->params) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    memcpy(g->params, f->params, (size_t)f->nparams * sizeof *g->params);
    g->function = sj_cuda_function(c, k->module, f->name, err);
    g->shared = (unsigned)sj_ptx_shared_offset(f, f->nshared);
    rc = g->function ? sj_cuda_allow_shared(c, g->function, g->shared, err) : err->status;
  }
  if (rc) return rc;
  k->code = sj_tcc_compile(k->host_code, "host loop", err);
  k->host = k->code ? (int (*)(void *))sj_tcc_symbol(k->code, "__sj_host") : NULL;
  if (!k->host)
    return err->status ? err->status : sj_error_set(err, JIT_ERR_INTERNAL, "no host loop symbol");
  return 0;
}

void sj_gpu_release(jit_kernel *k) {
  if (k->module) sj_cuda_unload(k->ctx->cuda, k->module);
  for (int i = 0; k->kernels && i < k->nkernels; i++) free(k->kernels[i].params);
  free(k->kernels);
  free(k->ptx);
  free(k->host_code);
}

/* A sticky error (a failed launch, as on a GPU) leaves the device context unusable: the
 * jit_context says so on every later call instead of failing somewhere in the driver. */
static const char unusable[] =
    "; the device context is unusable after a failed launch: destroy this jit_context and "
    "create a new one";

int sj_gpu_run_kernel(jit_kernel *k, void *const *arrays, const sj_devptr *resident,
                      const double *scalars, sj_error *err) {
  sj_cuda *c = k->ctx->cuda;
  if (__atomic_load_n(&k->ctx->device_failed, __ATOMIC_ACQUIRE))
    return sj_error_set(err, JIT_ERR_DEVICE, "an earlier launch failed%s", unusable);
  const sj_func *fn = k->fn;
  int na = fn->narrays, nt = k->ntemps;
  sj_devptr dev[na + nt + 1];
  size_t bytes[na + 1];
  void *staging[na + 1];
  memset(dev, 0, sizeof dev);
  memset(staging, 0, sizeof staging);
  for (int p = 0; p < fn->nparams; p++)
    if (fn->params[p]->kind == SJ_SYM_ARRAY) bytes[fn->params[p]->id] = k->bytes[p];
  int rc = 0, code = 0;
  sj_devptr error = 0;
  if (k->ntraps) { /* the word a failed check writes its code to */
    rc = sj_cuda_alloc(c, sizeof code, &error, err);
    if (!rc) rc = sj_cuda_to_device(c, error, &code, sizeof code, err);
  }
  for (int a = 0; !rc && a < na; a++) {
    if (!bytes[a]) continue;
    if (resident && resident[a]) {
      dev[a] = resident[a];
      continue;
    }
    rc = sj_cuda_alloc(c, bytes[a], &dev[a], err);
    if (!rc) rc = sj_cuda_to_device(c, dev[a], arrays[a], bytes[a], err);
  }
  for (int t = 0; !rc && t < nt; t++) /* the locals kept in memory: written before read */
    rc = sj_cuda_alloc(c, k->temp_bytes[t] ? k->temp_bytes[t] : 1, &dev[na + t], err);
  double device_ms = -1;
  if (!rc) {
    sj_gpu_run run = {c, k->kernels, dev, scalars, error, err};
    /* Timing never fails a run: without events the time is "not measured". */
    sj_error timer_err = {0, {0}};
    sj_cuda_timer timer;
    int timed = sj_cuda_timer_start(c, &timer, &timer_err) == 0;
    if (k->host(&run)) rc = err->status ? err->status : JIT_ERR_DEVICE;
    if (!rc) rc = sj_cuda_synchronize(c, err);
    float ms;
    if (!rc && timed && sj_cuda_timer_stop(c, &timer, &ms, &timer_err) == 0) device_ms = ms;
    sj_cuda_timer_free(c, &timer);
  }
  if (!rc && error) rc = sj_cuda_to_host(c, &code, error, sizeof code, err);
  if (!rc && code) rc = sj_trap_error(k, code, err);
  for (int a = 0; !rc && a < na; a++) {
    if (!bytes[a] || !k->written[a] || (resident && resident[a])) continue;
    staging[a] = malloc(bytes[a]);
    if (!staging[a])
      rc = sj_error_set(err, JIT_ERR_NOMEM, "out of memory for %zu bytes", bytes[a]);
    else
      rc = sj_cuda_to_host(c, staging[a], dev[a], bytes[a], err);
  }
  /* Device memory goes first: a failed free fails the call, before the arrays are written. */
  for (int a = 0; a <= na + nt; a++) {
    sj_error ferr = {0};
    sj_devptr p = a == na + nt ? error : a < na && resident && resident[a] ? 0 : dev[a];
    if (p && sj_cuda_free(c, p, &ferr) && !rc) *err = ferr, rc = ferr.status;
  }
  if (rc && sj_cuda_lost(c) && !__atomic_exchange_n(&k->ctx->device_failed, 1, __ATOMIC_ACQ_REL)) {
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, "%s", unusable);
  }
  for (int a = 0; a < na; a++) {
    if (!rc && staging[a]) memcpy(arrays[a], staging[a], bytes[a]);
    free(staging[a]);
  }
  if (!rc) {
    pthread_mutex_lock(&k->ctx->lock);
    k->device_ms = device_ms;
    pthread_mutex_unlock(&k->ctx->lock);
  }
  return rc;
}

double jit_kernel_last_device_time(const jit_kernel *k) {
  if (!k || k->device == JIT_DEVICE_CPU) return -1;
  pthread_mutex_lock(&k->ctx->lock);
  double ms = k->device_ms;
  pthread_mutex_unlock(&k->ctx->lock);
  return ms;
}
