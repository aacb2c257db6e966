/* Compiled artifacts of kernels in the on-disk cache (see artifact.h). */
#include "jit/artifact.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/buildid.h"
#include "base/sha256.h"
#include "jit/diskcache.h"
#include "jit/jit.h"

static const char *const device_names[] = {"auto", "cpu", "emu", "cuda"};

char *sj_artifact_key(const jit_kernel *k, const char *kind, const char *extra) {
  const char *build = sj_build_id();
  if (!k->ctx->cache.disk || !k->key || !build) return NULL;
  sj_buf b = {0};
  sj_buf_printf(&b, "stenciljit artifact 1|build %s|kind %s|extra %s|", build, kind,
                extra ? extra : "");
  if (k->ctx->cuda) {
    const sj_cuda_props *p = sj_cuda_get_props(k->ctx->cuda);
    sj_buf_printf(&b, "device %s|sm_%d%d|target %s|isa %s|driver %d|", p->name, p->cc_major,
                  p->cc_minor, p->ptx_target, p->ptx_version, p->driver_version);
  }
  sj_buf_puts(&b, k->key);
  return sj_buf_take(&b);
}

/* What `stenciljit cache list` shows: entry, shape, device. */
static char *label(const jit_kernel *k) {
  sj_buf b = {0};
  sj_buf_printf(&b, "%s", k->fn->name);
  for (int i = 0; i < k->nparams; i++)
    if (k->fn->params[i]->kind == SJ_SYM_SHAPE)
      sj_buf_printf(&b, " %s=%ld", k->fn->params[i]->name, k->shape[i]);
  sj_buf_printf(&b, " on %s", device_names[k->device]);
  if (k->ctx->cuda) sj_buf_printf(&b, " %s", sj_cuda_get_props(k->ctx->cuda)->ptx_target);
  return sj_buf_take(&b);
}

static void count(const jit_kernel *k, unsigned long *counter) {
  pthread_mutex_lock(&k->ctx->lock);
  (*counter)++;
  pthread_mutex_unlock(&k->ctx->lock);
}

void *sj_artifact_load(const jit_kernel *k, const char *kind, const char *extra, size_t *len) {
  char *key = sj_artifact_key(k, kind, extra);
  if (!key) return NULL;
  void *data = sj_disk_get(k->ctx->cache.disk, kind, key, len);
  free(key);
  if (data) count(k, &k->ctx->stats.disk_hits);
  return data;
}

void sj_artifact_store(const jit_kernel *k, const char *kind, const char *extra, const void *data,
                       size_t len) {
  char *key = sj_artifact_key(k, kind, extra);
  if (!key) return;
  char *text = label(k);
  if (sj_disk_put(k->ctx->cache.disk, kind, key, text, data, len) == 0)
    count(k, &k->ctx->stats.disk_writes);
  free(text);
  free(key);
}

int sj_gpu_load_module(jit_kernel *k, sj_error *err) {
  sj_cuda *c = k->ctx->cuda;
  if (!k->ctx->cache.disk || !sj_cuda_can_link(c)) return sj_cuda_load(c, k->ptx, &k->module, err);
  /* Keyed by the PTX text itself, not only by the call's key: a compile's decisions are not
   * all a function of that key (isl's work is bounded by CPU time), and an image of another
   * compile's kernels would not match this compile's host loop. */
  char extra[8 + 65];
  memcpy(extra, "ptx sha ", 8);
  sj_sha256_hex(k->ptx, strlen(k->ptx), extra + 8);
  size_t len = 0;
  void *cubin = sj_artifact_load(k, "cubin", extra, &len);
  if (!cubin) {
    /* On a link failure the PTX load below reports the driver's own error log. */
    sj_error ignored = {0, {0}};
    if (sj_cuda_link(c, k->ptx, &cubin, &len, &ignored) == 0)
      sj_artifact_store(k, "cubin", extra, cubin, len);
  }
  int rc = cubin ? sj_cuda_load(c, cubin, &k->module, err) : -1;
  free(cubin);
  /* A cubin the driver refuses is not fatal while the PTX it came from loads. */
  return rc ? sj_cuda_load(c, k->ptx, &k->module, err) : 0;
}
