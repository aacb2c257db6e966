/* GPU kernels: the module loaded through the driver, the host loop compiled by TinyCC,
 * and a run: copy in exactly the declared extents, run the host loop, copy back what the
 * kernel writes. The caller's arrays are written only after everything succeeded.
 * Device-resident arrays (jit_buffer) are used in place: no copy either way. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

#include "astgen/astgen.h"
#include "jit/artifact.h"

static void mark_writes(const sj_stmt *st, int *written) {
  if (!st) return;
  if (st->lhs && st->lhs->kind == SJ_E_INDEX) written[st->lhs->sym->id] = 1;
  for (int i = 0; i < st->nbody; i++) mark_writes(st->body[i], written);
}

static isl_bool find_kernels(__isl_keep isl_ast_node *node, void *user) {
  jit_kernel *k = user;
  const sj_kernel_map *map = sj_ast_kernel_map(node);
  if (!map || map->id >= k->nkernels) return isl_bool_true;
  int depths[64];
  k->kernels[map->id].nhost = sj_ast_kernel_host_iters(node, depths, 64);
  return isl_bool_false; /* kernels do not nest */
}

int sj_gpu_build(jit_kernel *k, const sj_plan *plan, __isl_keep isl_ast_node *ast, sj_error *err) {
  sj_cuda *c = k->ctx->cuda;
  k->device_ms = -1;
  k->written = calloc((size_t)k->fn->narrays + 1, sizeof *k->written);
  mark_writes(k->fn->body, k->written);
  k->nkernels = plan->nkernels;
  k->kernels = calloc((size_t)k->nkernels + 1, sizeof *k->kernels);
  for (int i = 0; i < k->nkernels; i++) {
    k->kernels[i].nhost = -1; /* not in the AST (no instances): never launched */
    memcpy(k->kernels[i].grid, plan->kernels[i]->grid, sizeof k->kernels[i].grid);
    memcpy(k->kernels[i].block, plan->kernels[i]->block, sizeof k->kernels[i].block);
  }
  isl_ast_node_foreach_descendant_top_down(ast, find_kernels, k);
  int rc = sj_gpu_load_module(k, err);
  for (int i = 0; !rc && i < k->nkernels; i++) {
    if (k->kernels[i].nhost < 0) continue;
    char name[96];
    snprintf(name, sizeof name, "%s_k%d", k->fn->name, i);
    k->kernels[i].function = sj_cuda_function(c, k->module, name, err);
    if (!k->kernels[i].function) rc = err->status;
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
  free(k->kernels);
  free(k->written);
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
  int na = fn->narrays;
  sj_devptr dev[na + 1];
  size_t bytes[na + 1];
  void *staging[na + 1];
  sj_type types[k->nscalars + 1];
  memset(dev, 0, sizeof dev);
  memset(staging, 0, sizeof staging);
  for (int p = 0, s = 0; p < fn->nparams; p++) {
    if (fn->params[p]->kind == SJ_SYM_ARRAY) bytes[fn->params[p]->id] = k->bytes[p];
    if (fn->params[p]->kind == SJ_SYM_SCALAR) types[s++] = fn->params[p]->type;
  }
  int rc = 0;
  for (int a = 0; !rc && a < na; a++) {
    if (!bytes[a]) continue;
    if (resident && resident[a]) {
      dev[a] = resident[a];
      continue;
    }
    rc = sj_cuda_alloc(c, bytes[a], &dev[a], err);
    if (!rc) rc = sj_cuda_to_device(c, dev[a], arrays[a], bytes[a], err);
  }
  double device_ms = -1;
  if (!rc) {
    sj_gpu_run run = {c, k->kernels, na, dev, k->nscalars, scalars, types, err};
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
  for (int a = 0; !rc && a < na; a++) {
    if (!bytes[a] || !k->written[a] || (resident && resident[a])) continue;
    staging[a] = malloc(bytes[a]);
    if (!staging[a])
      rc = sj_error_set(err, JIT_ERR_NOMEM, "out of memory for %zu bytes", bytes[a]);
    else
      rc = sj_cuda_to_host(c, staging[a], dev[a], bytes[a], err);
  }
  /* Device memory goes first: a failed free fails the call, before the arrays are written. */
  for (int a = 0; a < na; a++) {
    sj_error ferr = {0};
    if (dev[a] && !(resident && resident[a]) && sj_cuda_free(c, dev[a], &ferr) && !rc)
      *err = ferr, rc = ferr.status;
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
