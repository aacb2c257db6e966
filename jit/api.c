/* The public API: contexts, calls, validation of the caller's arguments, accessors. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "jit/jit.h"
#include "jit/parse.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(jit_context *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(jit_context *ctx, int status, const char *fmt, ...) {
  sj_error err = {status, {0}};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err.msg, sizeof err.msg, fmt, ap);
  va_end(ap);
  sj_context_fail(ctx, &err);
  return status;
}

int sj_check_call(jit_context *ctx, const char *source, const jit_arg *args, int nargs) {
  if (!ctx) return fail(NULL, JIT_ERR_ARGS, "the context is NULL");
  if (!source) return fail(ctx, JIT_ERR_ARGS, "the source is NULL");
  if (nargs < 0) return fail(ctx, JIT_ERR_ARGS, "nargs is %d; it must not be negative", nargs);
  if (nargs > 0 && !args) return fail(ctx, JIT_ERR_ARGS, "args is NULL but nargs is %d", nargs);
  return 0;
}

/* Worker threads: the CPUs of this process's affinity mask by default; a request is
 * clamped to SJ_THREADS_PER_CPU per CPU (and SJ_MAX_THREADS), beyond which threads only
 * cost memory and barrier time. */
enum { SJ_THREADS_PER_CPU = 4, SJ_MAX_THREADS = 256 };

static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > SJ_MAX_THREADS ? SJ_MAX_THREADS : (int)n;
}

static int max_threads(void) {
  long n = (long)usable_cpus() * SJ_THREADS_PER_CPU;
  return n > SJ_MAX_THREADS ? SJ_MAX_THREADS : (int)n;
}

/* $JIT_THREADS when it is a positive count, else 0. */
static int env_threads(void) {
  const char *v = getenv("JIT_THREADS");
  char *end;
  long n = v && *v ? strtol(v, &end, 10) : 0;
  return n > 0 && !*end ? (n > SJ_MAX_THREADS ? SJ_MAX_THREADS : (int)n) : 0;
}

/* jit_options.threads, else $JIT_THREADS, else one per CPU of the affinity mask; clamped. */
static int threads_for(int asked) {
  int limit = max_threads(), n = asked > 0 ? asked : env_threads();
  if (n <= 0) n = usable_cpus();
  return n > limit ? limit : n;
}

/* ctx->info: the device part, then the threads in use and the clamp. */
static void describe_threads(jit_context *ctx, int asked, int used) {
  char clamp[128] = "";
  int env = env_threads();
  if (asked <= 0 && env) asked = env;
  if (asked > used) snprintf(clamp, sizeof clamp, ", %d asked and clamped", asked);
  snprintf(ctx->info + ctx->info_device, sizeof ctx->info - ctx->info_device,
           "; %d worker thread%s%s%s (at most %d: %d per CPU of the %d in the affinity mask, "
           "%d overall); %s",
           used, used == 1 ? "" : "s", clamp,
           ctx->opts.threads > 0 ? " (jit_options.threads)"
           : env                 ? " (JIT_THREADS)"
                                 : "",
           max_threads(), SJ_THREADS_PER_CPU, usable_cpus(), SJ_MAX_THREADS,
           ctx->tiers.policy == SJ_POLICY_TCC ? "tier 1 only (JIT_TIER=tcc)"
           : ctx->tiers.policy == SJ_POLICY_CC
               ? (sj_cc_path(NULL) ? "tier 2 only (JIT_TIER=cc)"
                                   : "tier 2 only (JIT_TIER=cc), but no system compiler: "
                                     "compiles fail")
           : sj_cc_path(NULL) ? "tier 2 by the system compiler in the background"
                              : "tier 1 only (no system compiler)");
}

/* $JIT_TILING: auto (default), time, hybrid, split or none (or baseline); -1 otherwise. */
static int tiling_env(void) {
  const char *v = getenv("JIT_TILING");
  if (!v || !*v || !strcmp(v, "auto")) return SJ_TILING_AUTO;
  if (!strcmp(v, "time")) return SJ_TILING_TIME;
  if (!strcmp(v, "hybrid")) return SJ_TILING_HYBRID;
  if (!strcmp(v, "split")) return SJ_TILING_SPLIT;
  if (!strcmp(v, "none") || !strcmp(v, "baseline")) return SJ_TILING_NONE;
  return -1;
}

/* The time tile sizes of opts (else $JIT_TILE), checked; 0, or a jit_status with *out NULL. */
static int tile_option(jit_context *ctx, const char *asked, char **out) {
  const char *from = asked ? "jit_options.tile" : "JIT_TILE";
  const char *spec = asked ? asked : getenv("JIT_TILE");
  *out = NULL;
  if (!spec || !*spec) return 0;
  sj_tile_spec t;
  char why[256];
  if (sj_tile_spec_parse(spec, &t, why, sizeof why))
    return fail(ctx, JIT_ERR_ARGS, "%s=\"%.100s\": %s", from, spec, why);
  *out = strdup(spec);
  return *out ? 0 : fail(ctx, JIT_ERR_NOMEM, "out of memory");
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
  int tier = sj_tier_policy_env(), tiling = tiling_env();
  sj_last_error[0] = 0;
  if ((int)d < 0 || d > JIT_DEVICE_CUDA || tier < 0 || tiling < 0) {
    snprintf(sj_last_error, sizeof sj_last_error, "%s",
             tier < 0     ? "unknown tier (JIT_TIER must be auto, tcc or cc)"
             : tiling < 0 ? "unknown tiling (JIT_TILING must be auto, time, hybrid, split, none "
                            "or baseline)"
                          : "unknown device (JIT_DEVICE must be auto, cpu, emu or cuda)");
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
      snprintf(sj_last_error, sizeof sj_last_error, "%s device: %.900s",
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
    snprintf(sj_last_error, sizeof sj_last_error, "out of memory");
    return NULL;
  }
  ctx->device = d;
  ctx->cuda = cuda;
  ctx->info_device = (size_t)snprintf(ctx->info, sizeof ctx->info, "%.300s", info);
  pthread_mutex_init(&ctx->lock, NULL);
  /* writers first, so that a stream of calls cannot hold jit_context_set_options off;
   * no call takes the lock twice, which this kind requires */
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&ctx->calls, &attr);
  pthread_rwlockattr_destroy(&attr);
  sj_cache_init(&ctx->cache);
  sj_tiers_init(&ctx->tiers, (sj_tier_policy)tier);
  ctx->tiling = tiling;
  ctx->pool = sj_pool_new(threads_for(0));
  if (!ctx->pool) {
    jit_context_destroy(ctx);
    snprintf(sj_last_error, sizeof sj_last_error, "out of memory");
    return NULL;
  }
  describe_threads(ctx, 0, sj_pool_size(ctx->pool));
  if (tile_option(ctx, NULL, &ctx->tile)) { /* the message is this thread's last error */
    jit_context_destroy(ctx);
    return NULL;
  }
  return ctx;
}

void jit_context_destroy(jit_context *ctx) {
  if (!ctx) return;
  sj_tiers_stop(&ctx->tiers); /* before the cache: it holds kernels */
  sj_cache_clear(&ctx->cache);
  sj_cuda_close(ctx->cuda);
  sj_pool_free(ctx->pool);
  sj_names_clear(&ctx->names);
  free(ctx->source_name);
  free(ctx->tile);
  pthread_rwlock_destroy(&ctx->calls);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx);
}

const char *jit_context_error(const jit_context *ctx) {
  return ctx ? ctx->error : sj_last_error;
}
const char *jit_context_info(const jit_context *ctx) {
  return ctx ? ctx->info : "";
}
jit_device jit_context_device(const jit_context *ctx) {
  if (!ctx) {
    fail(NULL, JIT_ERR_ARGS, "jit_context_device: the context is NULL");
    return JIT_DEVICE_AUTO;
  }
  return ctx->device;
}

/* Takes the calls lock for writing: waits until no call of this context runs, so that
 * nothing a running call uses (pool, source name, options) changes under it. */
int jit_context_set_options(jit_context *ctx, const jit_options *opts) {
  if (!ctx) return fail(NULL, JIT_ERR_ARGS, "jit_context_set_options: the context is NULL");
  jit_options o = {0};
  if (opts) o = *opts;
  if (o.threads < 0)
    return fail(ctx, JIT_ERR_ARGS, "jit_options.threads is %d; it must not be negative", o.threads);
  char *tile;
  if (tile_option(ctx, o.tile, &tile)) return JIT_ERR_ARGS;
  char *name = o.source_name ? strdup(o.source_name) : NULL;
  if (o.source_name && !name) {
    free(tile);
    return fail(ctx, JIT_ERR_NOMEM, "out of memory");
  }
  o.source_name = o.tile = NULL;
  int threads = threads_for(o.threads);
  if (o.threads > 0) o.threads = threads; /* requests beyond the clamp share a cache key */
  pthread_rwlock_wrlock(&ctx->calls);
  sj_pool *pool = threads != sj_pool_size(ctx->pool) ? sj_pool_new(threads) : ctx->pool;
  if (!pool) { /* the context stays as it was */
    pthread_rwlock_unlock(&ctx->calls);
    free(name);
    free(tile);
    return fail(ctx, JIT_ERR_NOMEM, "out of memory");
  }
  if (pool != ctx->pool) sj_pool_free(ctx->pool);
  ctx->pool = pool;
  free(ctx->source_name);
  ctx->source_name = name;
  free(ctx->tile);
  ctx->tile = tile;
  pthread_mutex_lock(&ctx->lock);
  ctx->opts = o;
  describe_threads(ctx, opts ? opts->threads : 0, sj_pool_size(ctx->pool));
  pthread_mutex_unlock(&ctx->lock);
  pthread_rwlock_unlock(&ctx->calls);
  return 0;
}

int jit_context_stats(const jit_context *ctx, jit_stats *out) {
  if (!ctx || !out)
    return fail((jit_context *)ctx, JIT_ERR_ARGS, "jit_context_stats: %s is NULL",
                ctx ? "out" : "the context");
  pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
  *out = ctx->stats;
  pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
  return 0;
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
    long v = fn->params[i]->kind == SJ_SYM_SHAPE ? sj_shape_value(fn->params[i], &args[i]) : 0;
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

/* jit_kernel_run's work; the caller holds the calls lock for reading. */
static int run_kernel(jit_kernel *k, const jit_arg *args, int nargs) {
  sj_call_args call;
  sj_error err = {0, {0}};
  int rc = plain_args(k->ctx, args, nargs, &call);
  if (!rc && (rc = sj_call_args_check(k, args, nargs, &err))) sj_context_fail(k->ctx, &err);
  if (!rc) rc = run_plain(k, call.args, nargs, call.resident ? args : NULL);
  sj_call_args_free(&call);
  return rc;
}

int jit_kernel_run(jit_kernel *k, const jit_arg *args, int nargs) {
  if (!k) return fail(NULL, JIT_ERR_ARGS, "jit_kernel_run: the kernel is NULL");
  pthread_rwlock_rdlock(&k->ctx->calls);
  int rc = run_kernel(k, args, nargs);
  pthread_rwlock_unlock(&k->ctx->calls);
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
  int rc = sj_check_call(ctx, source, args, nargs);
  if (rc) return rc;
  jit_kernel *k;
  sj_call_args call;
  pthread_rwlock_rdlock(&ctx->calls);
  rc = plain_args(ctx, args, nargs, &call);
  if (!rc) rc = get_kernel(ctx, source, entry, call.args, nargs, &k);
  sj_call_args_free(&call);
  if (!rc) {
    rc = run_kernel(k, args, nargs);
    sj_kernel_release(k);
  }
  pthread_rwlock_unlock(&ctx->calls);
  return rc;
}

int jit_kernel_compile(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, jit_kernel **out) {
  if (!out) return fail(ctx, JIT_ERR_ARGS, "jit_kernel_compile: out is NULL");
  *out = NULL;
  int rc = sj_check_call(ctx, source, args, nargs);
  if (rc) return rc;
  sj_call_args call;
  pthread_rwlock_rdlock(&ctx->calls);
  rc = plain_args(ctx, args, nargs, &call);
  if (!rc) rc = get_kernel(ctx, source, entry, call.args, nargs, out);
  sj_call_args_free(&call);
  pthread_rwlock_unlock(&ctx->calls);
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
  switch (kind) {
  case JIT_CODE_C:
    return k->c_code ? k->c_code : k->c_code2;
  case JIT_CODE_PTX:
    return k->ptx;
  case JIT_CODE_HOST:
    return k->host_code;
  }
  return NULL;
}
const char *jit_kernel_schedule(const jit_kernel *k) {
  if (!k) return NULL;
  jit_kernel *mk = (jit_kernel *)k;       /* the text is completed once, on first use */
  pthread_rwlock_rdlock(&mk->ctx->calls); /* the source name */
  pthread_mutex_lock(&mk->ctx->lock);
  int known = mk->deps != NULL;
  pthread_mutex_unlock(&mk->ctx->lock);
  char *deps = known ? NULL : sj_explain_dependences(k); /* outside the lock: it is slow */
  pthread_mutex_lock(&mk->ctx->lock);
  if (!mk->deps) { /* another thread may have been first; no text was shown before */
    mk->deps = deps;
    deps = NULL;
  }
  const char *text = sj_tier_shown(mk);
  pthread_mutex_unlock(&mk->ctx->lock);
  pthread_rwlock_unlock(&mk->ctx->calls);
  free(deps);
  return text;
}
int jit_kernel_tier(const jit_kernel *k) {
  if (!k) {
    fail(NULL, JIT_ERR_ARGS, "jit_kernel_tier: the kernel is NULL");
    return 0;
  }
  if (k->device != JIT_DEVICE_CPU) return 0;
  return __atomic_load_n(&k->running, __ATOMIC_ACQUIRE) == &k->tier2 ? 2 : 1;
}
jit_device jit_kernel_device(const jit_kernel *k) {
  if (!k) {
    fail(NULL, JIT_ERR_ARGS, "jit_kernel_device: the kernel is NULL");
    return JIT_DEVICE_AUTO;
  }
  return k->device;
}
int jit_kernel_tile_sizes(const jit_kernel *k, int *sizes, int max) {
  if (!k || (max > 0 && !sizes)) {
    fail(NULL, JIT_ERR_ARGS, "jit_kernel_tile_sizes: %s is NULL", k ? "sizes" : "the kernel");
    return -1;
  }
  int tier2 = jit_kernel_tier(k) == 2 && k->tiles2;
  int n = tier2 ? k->ntiles2 : k->ntiles;
  for (int i = 0; i < n && i < max; i++) sizes[i] = (tier2 ? k->tiles2 : k->tiles)[i];
  return n;
}
void jit_kernel_stage_times(const jit_kernel *k, jit_stage_times *out) {
  if (!out) return;
  if (k)
    *out = k->times;
  else
    memset(out, 0, sizeof *out);
}
int jit_kernel_param_count(const jit_kernel *k) {
  if (!k) {
    fail(NULL, JIT_ERR_ARGS, "jit_kernel_param_count: the kernel is NULL");
    return -1;
  }
  return k->nparams;
}
const jit_param_info *jit_kernel_param(const jit_kernel *k, int i) {
  return k && i >= 0 && i < k->nparams ? &k->params[i] : NULL;
}

/* The names point into the context's table of names (jit/names.c), which keeps them until
 * the context is destroyed. */
int jit_function_params(jit_context *ctx, const char *source, const char *entry,
                        jit_param_info *out, int max, int *count) {
  if (count) *count = 0;
  int rc = sj_check_call(ctx, source, NULL, 0);
  if (rc) return rc;
  if (max < 0) return fail(ctx, JIT_ERR_ARGS, "max is %d; it must not be negative", max);
  if (max > 0 && !out) return fail(ctx, JIT_ERR_ARGS, "out is NULL but max is %d", max);
  sj_error err = {0, {0}};
  pthread_rwlock_rdlock(&ctx->calls);
  sj_program *p = sj_parse_for(source, ctx->source_name, entry, &err);
  sj_func *fn = p ? sj_program_entry(p, entry, &err) : NULL;
  pthread_rwlock_unlock(&ctx->calls);
  if (!fn) {
    sj_program_free(p);
    sj_context_fail(ctx, &err);
    return err.status;
  }
  int n = 0;
  pthread_mutex_lock(&ctx->lock);
  for (int i = 0; i < fn->nparams && i < max && !rc; i++, n++) {
    sj_param_info(fn->params[i], &out[i]);
    out[i].name = sj_names_intern(&ctx->names, out[i].name);
    if (!out[i].name) rc = JIT_ERR_NOMEM;
  }
  pthread_mutex_unlock(&ctx->lock);
  sj_program_free(p);
  if (rc) return fail(ctx, rc, "out of memory");
  if (count) *count = n;
  return 0;
}
