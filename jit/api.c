/* The public API: contexts, calls, validation of the caller's arguments, accessors. */
#include "jit/jit.h"
#include "jit/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread char last_error[1024];

const char *jit_last_error(void) {
  return last_error;
}

static int fail(jit_context *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(jit_context *ctx, int status, const char *fmt, ...) {
  sj_error err = {status, {0}};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err.msg, sizeof err.msg, fmt, ap);
  va_end(ap);
  if (ctx) sj_context_fail(ctx, &err);
  return status;
}

static int default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static jit_device device_from_env(jit_device asked, const char **why) {
  const char *env = getenv("JIT_DEVICE");
  *why = asked == JIT_DEVICE_AUTO ? "JIT_DEVICE_AUTO" : "the caller";
  if (asked != JIT_DEVICE_AUTO || !env || !*env) return asked;
  *why = "JIT_DEVICE in the environment";
  if (!strcmp(env, "cpu")) return JIT_DEVICE_CPU;
  if (!strcmp(env, "emu")) return JIT_DEVICE_EMU;
  if (!strcmp(env, "cuda")) return JIT_DEVICE_CUDA;
  if (!strcmp(env, "auto")) return JIT_DEVICE_AUTO;
  return (jit_device)-1;
}

jit_context *jit_context_create(jit_device device) {
  const char *why;
  jit_device d = device_from_env(device, &why);
  last_error[0] = 0;
  if ((int)d < 0 || d > JIT_DEVICE_CUDA) {
    snprintf(last_error, sizeof last_error,
             "unknown device (JIT_DEVICE must be auto, cpu, emu or cuda)");
    return NULL;
  }
  sj_cuda *cuda = NULL;
  sj_error err = {0, {0}};
  char info[sizeof((jit_context *)0)->info];
  if (d == JIT_DEVICE_CPU) {
    snprintf(info, sizeof info, "cpu: asked by %s", why);
  } else if (d == JIT_DEVICE_EMU || d == JIT_DEVICE_CUDA) {
    const char *lib = d == JIT_DEVICE_EMU ? sj_cuda_emulator_path() : NULL;
    if (sj_cuda_open(lib, &cuda, &err)) {
      snprintf(last_error, sizeof last_error, "%s device: %.900s",
               d == JIT_DEVICE_EMU ? "emu" : "cuda", err.msg);
      return NULL;
    }
    snprintf(info, sizeof info, "%s: %.100s (sm_%d%d, %d multiprocessors), asked by %s",
             d == JIT_DEVICE_EMU ? "emu" : "cuda", sj_cuda_get_props(cuda)->name,
             sj_cuda_get_props(cuda)->cc_major, sj_cuda_get_props(cuda)->cc_minor,
             sj_cuda_get_props(cuda)->multiprocessors, why);
  } else if (sj_cuda_open(NULL, &cuda, &err) == 0) {
    d = JIT_DEVICE_CUDA;
    snprintf(info, sizeof info, "cuda: %.100s answered, chosen by %s",
             sj_cuda_get_props(cuda)->name, why);
  } else {
    d = JIT_DEVICE_CPU;
    snprintf(info, sizeof info, "cpu: chosen by %s because no CUDA device answered (%.300s)", why,
             err.msg);
  }
  jit_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    sj_cuda_close(cuda);
    snprintf(last_error, sizeof last_error, "out of memory");
    return NULL;
  }
  ctx->device = d;
  ctx->cuda = cuda;
  snprintf(ctx->info, sizeof ctx->info, "%s", info);
  pthread_mutex_init(&ctx->lock, NULL);
  sj_cache_init(&ctx->cache);
  ctx->pool = sj_pool_new(default_threads());
  return ctx;
}

void jit_context_destroy(jit_context *ctx) {
  if (!ctx) return;
  sj_cache_clear(&ctx->cache);
  sj_cuda_close(ctx->cuda);
  sj_pool_free(ctx->pool);
  sj_program_free(ctx->params_program);
  free(ctx->source_name);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

const char *jit_context_error(const jit_context *ctx) {
  return ctx ? ctx->error : last_error;
}
const char *jit_context_info(const jit_context *ctx) {
  return ctx ? ctx->info : "";
}
jit_device jit_context_device(const jit_context *ctx) {
  return ctx->device;
}

void jit_context_set_options(jit_context *ctx, const jit_options *opts) {
  jit_options o = {0};
  if (opts) o = *opts;
  pthread_mutex_lock(&ctx->lock);
  free(ctx->source_name);
  ctx->source_name = o.source_name ? strdup(o.source_name) : NULL;
  o.source_name = NULL;
  int threads = o.threads > 0 ? o.threads : default_threads();
  if (threads != sj_pool_size(ctx->pool)) {
    sj_pool_free(ctx->pool);
    ctx->pool = sj_pool_new(threads);
  }
  ctx->opts = o;
  pthread_mutex_unlock(&ctx->lock);
}

void jit_context_stats(const jit_context *ctx, jit_stats *out) {
  pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
  *out = ctx->stats;
  pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
}

/* --- validation of a call against a compiled kernel --- */

static int validate(jit_kernel *k, const jit_arg *args, int nargs) {
  jit_context *ctx = k->ctx;
  const sj_func *fn = k->fn;
  sj_error err = {0, {0}};
  if (sj_check_signature(k, args, nargs, &err)) {
    sj_context_fail(ctx, &err);
    return err.status;
  }
  for (int i = 0; i < nargs; i++) {
    const char *name = fn->params[i]->name;
    long v = args[i].kind == JIT_ARG_INT    ? args[i].v.i
             : args[i].kind == JIT_ARG_LONG ? args[i].v.l
                                            : 0;
    if (v != k->shape[i])
      return fail(ctx, JIT_ERR_ARGS,
                  "argument %d ('%s') is %ld but the kernel was compiled for %ld", i + 1, name, v,
                  k->shape[i]);
    if (args[i].kind == JIT_ARG_PTR && !args[i].v.p)
      return fail(ctx, JIT_ERR_ARGS, "argument %d ('%s') is a NULL pointer", i + 1, name);
  }
  /* The model assumes distinct arrays: refuse any two whose bytes overlap. */
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind != JIT_ARG_PTR || !k->bytes[i]) continue;
    const char *a = args[i].v.p;
    for (int j = i + 1; j < nargs; j++) {
      if (args[j].kind != JIT_ARG_PTR || !k->bytes[j]) continue;
      const char *b = args[j].v.p;
      if (a < b + k->bytes[j] && b < a + k->bytes[i])
        return fail(ctx, JIT_ERR_ARGS,
                    "arrays '%s' and '%s' overlap in memory; pass distinct arrays",
                    fn->params[i]->name, fn->params[j]->name);
    }
  }
  return 0;
}

/* A call whose arrays are plain pointers; caller is the caller's own argument array when
 * some of them are jit_buffers (NULL otherwise). */
static int run_plain(jit_kernel *k, const jit_arg *args, int nargs, const jit_arg *caller) {
  int rc = validate(k, args, nargs);
  if (rc) return rc;
  void *arrays[k->narrays + 1];
  double scalars[k->nscalars + 1];
  for (int i = 0; i < nargs; i++) {
    const sj_sym *p = k->fn->params[i];
    if (p->kind == SJ_SYM_ARRAY) arrays[p->id] = args[i].v.p;
  }
  for (int i = 0, s = 0; i < nargs; i++)
    if (k->fn->params[i]->kind == SJ_SYM_SCALAR)
      scalars[s++] = args[i].kind == JIT_ARG_FLOAT ? args[i].v.f : args[i].v.d;
  sj_error err = {0, {0}};
  if (k->device != JIT_DEVICE_CPU) {
    sj_devptr resident[k->narrays + 1];
    if (caller) sj_call_args_resident(k, caller, resident);
    rc = sj_gpu_run_kernel(k, arrays, caller ? resident : NULL, scalars, &err);
  } else {
    rc = sj_cpu_run_kernel(k, arrays, scalars, &err);
  }
  if (rc) {
    sj_context_fail(k->ctx, &err);
    return rc;
  }
  pthread_mutex_lock(&k->ctx->lock);
  k->ctx->stats.runs++;
  pthread_mutex_unlock(&k->ctx->lock);
  return 0;
}

/* The call with checked and device-resident arrays as plain pointers (see jit/buffer.c). */
static int plain_args(jit_context *ctx, const jit_arg *args, int nargs, sj_call_args *call) {
  sj_error err = {0, {0}};
  int rc = sj_call_args_plain(ctx, args, nargs, call, &err);
  if (rc) sj_context_fail(ctx, &err);
  return rc;
}

int jit_kernel_run(jit_kernel *k, const jit_arg *args, int nargs) {
  if (!k) return JIT_ERR_ARGS;
  sj_call_args call;
  sj_error err = {0, {0}};
  int rc = plain_args(k->ctx, args, nargs, &call);
  if (!rc && (rc = sj_call_args_check(k, args, nargs, &err))) sj_context_fail(k->ctx, &err);
  if (!rc) rc = run_plain(k, call.args, nargs, call.resident ? args : NULL);
  sj_call_args_free(&call);
  return rc;
}

static int get_kernel(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                      int nargs, jit_kernel **k) {
  sj_error err = {0, {0}};
  int rc = sj_cache_get(ctx, source, entry, args, nargs, k, &err);
  if (rc) {
    sj_context_fail(ctx, &err);
    return rc;
  }
  return 0;
}

int jit_stencil_run(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                    int nargs) {
  if (!ctx) return JIT_ERR_ARGS;
  jit_kernel *k;
  sj_call_args call;
  int rc = plain_args(ctx, args, nargs, &call);
  if (!rc) rc = get_kernel(ctx, source, entry, call.args, nargs, &k);
  sj_call_args_free(&call);
  if (rc) return rc;
  rc = jit_kernel_run(k, args, nargs);
  sj_kernel_release(k);
  return rc;
}

int jit_kernel_compile(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, jit_kernel **out) {
  if (!out) return fail(ctx, JIT_ERR_ARGS, "out is NULL");
  *out = NULL;
  if (!ctx) return JIT_ERR_ARGS;
  sj_call_args call;
  int rc = plain_args(ctx, args, nargs, &call);
  if (!rc) rc = get_kernel(ctx, source, entry, call.args, nargs, out);
  sj_call_args_free(&call);
  return rc;
}

void jit_kernel_release(jit_kernel *k) {
  if (k) sj_kernel_release(k);
}

int sj_kernel_for_call(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, sj_call_args *call, jit_kernel **out) {
  sj_error err = {0, {0}};
  *out = NULL;
  int rc = sj_call_args_host(ctx, args, nargs, call, &err);
  if (rc) {
    sj_context_fail(ctx, &err);
    return rc;
  }
  rc = get_kernel(ctx, source, entry, call->args, nargs, out);
  if (rc) return rc;
  if ((rc = sj_call_args_check(*out, args, nargs, &err)))
    sj_context_fail(ctx, &err);
  else
    rc = validate(*out, call->args, nargs);
  if (rc) {
    sj_kernel_release(*out);
    *out = NULL;
  }
  return rc;
}

/* --- accessors --- */

const char *jit_kernel_code(const jit_kernel *k, jit_code_kind kind) {
  if (!k) return NULL;
  return kind == JIT_CODE_C ? k->c_code : kind == JIT_CODE_PTX ? k->ptx : k->host_code;
}
const char *jit_kernel_schedule(const jit_kernel *k) {
  if (!k) return NULL;
  jit_kernel *mk = (jit_kernel *)k; /* the text is completed once, on first use */
  pthread_mutex_lock(&mk->ctx->lock);
  if (!mk->explained) {
    char *deps = sj_explain_dependences(k);
    size_t n = strlen(mk->schedule), d = strlen(deps);
    mk->schedule = realloc(mk->schedule, n + d + 1);
    memcpy(mk->schedule + n, deps, d + 1);
    free(deps);
    mk->explained = 1;
  }
  pthread_mutex_unlock(&mk->ctx->lock);
  return mk->schedule;
}
jit_device jit_kernel_device(const jit_kernel *k) {
  return k->device;
}
int jit_kernel_tile_sizes(const jit_kernel *k, int *sizes, int max) {
  for (int i = 0; i < k->ntiles && i < max; i++) sizes[i] = k->tiles[i];
  return k->ntiles;
}
void jit_kernel_stage_times(const jit_kernel *k, jit_stage_times *out) {
  *out = k->times;
}
int jit_kernel_param_count(const jit_kernel *k) {
  return k->nparams;
}
const jit_param_info *jit_kernel_param(const jit_kernel *k, int i) {
  return i >= 0 && i < k->nparams ? &k->params[i] : NULL;
}

int jit_function_params(jit_context *ctx, const char *source, const char *entry,
                        jit_param_info *out, int max, int *count) {
  if (!ctx) return JIT_ERR_ARGS;
  sj_error err = {0, {0}};
  if (!source) return fail(ctx, JIT_ERR_ARGS, "source is NULL");
  sj_program *p = sj_parse(source, ctx->source_name, &err);
  sj_func *fn = p ? sj_program_entry(p, entry, &err) : NULL;
  if (!fn) {
    sj_program_free(p);
    sj_context_fail(ctx, &err);
    return err.status;
  }
  int n = 0;
  for (int i = 0; i < fn->nparams && i < max; i++, n++) {
    sj_param_info(fn->params[i], &out[i]);
  }
  if (count) *count = n;
  pthread_mutex_lock(&ctx->lock);
  sj_program_free(ctx->params_program);
  ctx->params_program = p;
  pthread_mutex_unlock(&ctx->lock);
  return 0;
}
