/* Arrays that carry their size (JIT_BUF) and arrays that live on the device (jit_buffer).
 *
 * Both are rewritten as plain pointers at the entry of a call, so that the cache key, the
 * signature check and the overlap check see one kind for every array; their sizes are then
 * checked against the kernel's declaration. A jit_buffer's pointer is its address on its
 * device (host memory on the CPU; with a GPU, unified addressing keeps device and host
 * addresses apart, so the overlap check stays meaningful). */
#include "jit/jit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct jit_buffer {
  jit_context *ctx; /* the context that allocated it: its driver frees it */
  jit_device device;
  size_t bytes;
  void *host;    /* JIT_DEVICE_CPU */
  sj_devptr dev; /* JIT_DEVICE_EMU and JIT_DEVICE_CUDA */
  int owned;     /* allocated here, not wrapped */
};

static jit_buffer *buffer_fail(jit_context *ctx, sj_error *err, jit_buffer *b) {
  sj_context_fail(ctx, err);
  free(b);
  return NULL;
}

static jit_buffer *buffer_new(jit_context *ctx, size_t bytes, const char *call, sj_error *err) {
  if (!ctx) {
    sj_error_set(err, JIT_ERR_ARGS, "%s: the context is NULL", call);
    return buffer_fail(NULL, err, NULL);
  }
  jit_buffer *b = calloc(1, sizeof *b);
  if (!b) {
    sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    return buffer_fail(ctx, err, NULL);
  }
  b->ctx = ctx;
  b->device = ctx->device;
  b->bytes = bytes;
  return b;
}

jit_buffer *jit_buffer_create(jit_context *ctx, size_t bytes) {
  sj_error err = {0, {0}};
  jit_buffer *b = buffer_new(ctx, bytes, "jit_buffer_create", &err);
  if (!b) return NULL;
  b->owned = 1;
  size_t alloc = bytes ? bytes : 1; /* a zero-size array still gets a distinct address */
  if (ctx->device == JIT_DEVICE_CPU) {
    if (posix_memalign(&b->host, 64, alloc)) { /* cache-line aligned, as on a device */
      b->host = NULL;
      sj_error_set(&err, JIT_ERR_NOMEM, "out of memory for a buffer of %zu bytes", bytes);
      return buffer_fail(ctx, &err, b);
    }
  } else if (sj_cuda_alloc(ctx->cuda, alloc, &b->dev, &err)) {
    return buffer_fail(ctx, &err, b);
  }
  return b;
}

jit_buffer *jit_buffer_wrap(jit_context *ctx, unsigned long long address, size_t bytes) {
  sj_error err = {0, {0}};
  if (ctx && !address) {
    sj_error_set(&err, JIT_ERR_ARGS, "jit_buffer_wrap: the address is 0");
    return buffer_fail(ctx, &err, NULL);
  }
  jit_buffer *b = buffer_new(ctx, bytes, "jit_buffer_wrap", &err);
  if (!b) return NULL;
  if (ctx->device == JIT_DEVICE_CPU)
    b->host = (void *)(uintptr_t)address;
  else
    b->dev = (sj_devptr)address;
  return b;
}

void jit_buffer_destroy(jit_buffer *b) {
  if (!b) return;
  if (b->owned && b->device == JIT_DEVICE_CPU) free(b->host);
  if (b->owned && b->device != JIT_DEVICE_CPU) {
    sj_error ignored = {0, {0}}; /* nothing to report to: the memory goes with the context */
    sj_cuda_free(b->ctx->cuda, b->dev, &ignored);
  }
  free(b);
}

size_t jit_buffer_size(const jit_buffer *b) {
  return b ? b->bytes : 0;
}

unsigned long long jit_buffer_address(const jit_buffer *b) {
  if (!b) return 0;
  return b->device == JIT_DEVICE_CPU ? (unsigned long long)(uintptr_t)b->host : b->dev;
}

/* One transfer between host memory and the start of the buffer: to_device or back. */
static int transfer(jit_buffer *b, void *host, size_t bytes, int to_device) {
  sj_error err = {0, {0}};
  const char *what = to_device ? "jit_buffer_upload" : "jit_buffer_download";
  if (!b) { /* no context to tell: the message is this thread's */
    sj_error_set(&err, JIT_ERR_ARGS, "%s: the buffer is NULL", what);
    sj_context_fail(NULL, &err);
    return err.status;
  }
  if (bytes > b->bytes)
    sj_error_set(&err, JIT_ERR_ARGS, "%s: %zu bytes asked, the buffer holds %zu", what, bytes,
                 b->bytes);
  else if (bytes && !host)
    sj_error_set(&err, JIT_ERR_ARGS, "%s: the host pointer is NULL", what);
  else if (!bytes)
    return JIT_OK;
  else if (b->device == JIT_DEVICE_CPU)
    memcpy(to_device ? b->host : host, to_device ? host : b->host, bytes);
  else if (to_device)
    sj_cuda_to_device(b->ctx->cuda, b->dev, host, bytes, &err);
  else
    sj_cuda_to_host(b->ctx->cuda, host, b->dev, bytes, &err);
  if (err.status) sj_context_fail(b->ctx, &err);
  return err.status;
}

int jit_buffer_upload(jit_buffer *b, const void *src, size_t bytes) {
  return transfer(b, (void *)src, bytes, 1);
}

int jit_buffer_download(jit_buffer *b, void *dst, size_t bytes) {
  return transfer(b, dst, bytes, 0);
}

/* --- calls --- */

static const char *const device_names[] = {"auto", "cpu", "emu", "cuda"};

int sj_call_args_plain(jit_context *ctx, const jit_arg *args, int nargs, sj_call_args *out,
                       sj_error *err) {
  memset(out, 0, sizeof *out);
  out->args = args;
  int rewrite = 0;
  for (int i = 0; args && i < nargs; i++)
    rewrite |= args[i].kind == JIT_ARG_BUF || args[i].kind == JIT_ARG_BUFFER;
  if (!rewrite) return 0;
  jit_arg *plain = out->small;
  if ((size_t)nargs > sizeof out->small / sizeof out->small[0]) {
    plain = out->owned = malloc((size_t)nargs * sizeof *plain);
    if (!plain) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < nargs; i++) {
    plain[i] = args[i];
    if (args[i].kind == JIT_ARG_BUF) plain[i] = JIT_PTR(args[i].v.buf.p);
    if (args[i].kind != JIT_ARG_BUFFER) continue;
    const jit_buffer *b = args[i].v.buffer;
    if (b && b->device != ctx->device)
      return sj_error_set(err, JIT_ERR_ARGS,
                          "argument %d is a jit_buffer on the %s device, the context runs on %s",
                          i + 1, device_names[b->device], device_names[ctx->device]);
    plain[i] = JIT_PTR(b ? (void *)(uintptr_t)jit_buffer_address(b) : NULL);
    out->resident = 1;
  }
  out->args = plain;
  return 0;
}

int sj_call_args_host(jit_context *ctx, const jit_arg *args, int nargs, sj_call_args *out,
                      sj_error *err) {
  int rc = sj_call_args_plain(ctx, args, nargs, out, err);
  for (int i = 0; !rc && out->resident && ctx->device != JIT_DEVICE_CPU && i < nargs; i++)
    if (args[i].kind == JIT_ARG_BUFFER)
      rc = sj_error_set(err, JIT_ERR_ARGS,
                        "argument %d is a jit_buffer on the %s device: this call reads host "
                        "memory (download the buffer first)",
                        i + 1, device_names[ctx->device]);
  return rc;
}

static const char *elem_name(jit_arg_kind k) {
  static const char *const names[] = {"int",
                                      "long",
                                      "float",
                                      "double",
                                      "?",
                                      "?",
                                      "?",
                                      "signed char",
                                      "unsigned char",
                                      "short",
                                      "unsigned short",
                                      "unsigned int",
                                      "unsigned long"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

int sj_call_args_check(const jit_kernel *k, const jit_arg *args, int nargs, sj_error *err) {
  if (!args || nargs != k->nparams) return 0; /* the signature check reports it */
  for (int i = 0; i < nargs; i++) {
    size_t have;
    if (args[i].kind == JIT_ARG_BUF)
      have = args[i].v.buf.bytes;
    else if (args[i].kind == JIT_ARG_BUFFER && args[i].v.buffer)
      have = args[i].v.buffer->bytes;
    else
      continue;
    const jit_param_info *p = &k->params[i];
    if (p->kind == JIT_ARG_PTR && have < k->bytes[i])
      return sj_error_set(err, JIT_ERR_ARGS,
                          "argument %d ('%s') holds %zu bytes but its declaration needs %zu "
                          "(%zu elements of %s)",
                          i + 1, p->name, have, k->bytes[i], p->elems, elem_name(p->elem_kind));
  }
  return 0;
}

void sj_call_args_resident(const jit_kernel *k, const jit_arg *args, sj_devptr *by_array) {
  for (int i = 0; i < k->nparams; i++) {
    const sj_sym *p = k->fn->params[i];
    if (p->kind != SJ_SYM_ARRAY) continue;
    by_array[p->id] = args[i].kind == JIT_ARG_BUFFER ? args[i].v.buffer->dev : 0;
  }
}

void sj_call_args_free(sj_call_args *a) {
  free(a->owned);
  a->owned = NULL;
}
