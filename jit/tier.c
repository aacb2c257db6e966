/* The CPU's second tier: generated C compiled by the system compiler (host/cc.c), in the
 * background, while TinyCC's code runs. Its C is made on the tier thread too (the time-tiled
 * AST costs more than the first tier's whole compile). Once the shared object is
 * loaded the kernel's entry is swapped; a run reads the entry once, so each run is wholly one
 * tier, and the caller never waits. Objects go to the on-disk cache under the C text, the
 * compiler's identity and its flags, so that another process loads instead of compiling.
 *
 * A kernel waiting for its second tier is held by the tier thread: released by everyone else
 * meanwhile, it is freed when its job ends (and its compile is skipped when it has not begun).
 * A forked child has no tier thread: its first submission starts one, and the job the
 * parent's thread was compiling is queued again. */
#include "jit/jit.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/sha256.h"
#include "jit/artifact.h"

struct sj_tier_job {
  jit_kernel *k;
  sj_tier_make make;
  sj_tier_job *next;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int sj_tier_policy_env(void) {
  const char *v = getenv("JIT_TIER");
  if (!v || !*v || !strcmp(v, "auto")) return SJ_POLICY_AUTO;
  if (!strcmp(v, "tcc")) return SJ_POLICY_TCC;
  if (!strcmp(v, "cc")) return SJ_POLICY_CC;
  return -1;
}

void sj_tier_set(jit_kernel *k, sj_tier_state state, const char *fmt, ...) {
  pthread_mutex_lock(&k->ctx->lock);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(k->tier_why, sizeof k->tier_why, fmt, ap);
  va_end(ap);
  __atomic_store_n(&k->tier_state, (int)state, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&k->ctx->lock);
}

const char *sj_tier_shown(jit_kernel *k) {
  int state = __atomic_load_n(&k->tier_state, __ATOMIC_ACQUIRE);
  if (k->shown[state]) return k->shown[state];
  const char *base = state == SJ_TIER_CC && k->schedule2 ? k->schedule2
                     : k->schedule                       ? k->schedule
                                                         : k->schedule2;
  /* the tier goes after the first line, which names the kernel */
  size_t head = strcspn(base, "\n");
  sj_buf b = {0};
  sj_buf_printf(&b, "%.*s\n", (int)head, base);
  if (k->tier_why[0]) sj_buf_printf(&b, "%s\n", k->tier_why);
  sj_buf_printf(&b, "%s%s", base[head] ? base + head + 1 : "", k->deps ? k->deps : "");
  return k->shown[state] = sj_buf_take(&b);
}

/* --- compiling and loading --- */

/* The shared object of text: from the on-disk cache, else compiled (and stored). *from says
 * which. */
static sj_cc_obj *object(jit_kernel *k, const char *text, sj_cc_watch watch, void *user,
                         const char **from, sj_error *err) {
  const char *id = sj_cc_identity();
  if (!id) {
    const char *why, *path = sj_cc_path(&why);
    sj_error_set(err, JIT_ERR_DEVICE, "%s%s", path ? path : why,
                 path ? " does not answer --version" : "");
    return NULL;
  }
  char hex[65];
  sj_sha256_hex(text, strlen(text), hex);
  sj_buf key = {0};
  sj_buf_printf(&key, "%s|%s|C %s", id, sj_cc_flags(), hex);
  char *extra = sj_buf_take(&key);
  size_t len = 0;
  void *so = sj_artifact_load(k, "obj", extra, &len);
  *from = "the on-disk cache";
  if (!so) {
    so = sj_cc_compile(text, &len, watch, user, err);
    if (so) sj_artifact_store(k, "obj", extra, so, len);
    *from = "compiled";
  }
  free(extra);
  sj_cc_obj *obj = so ? sj_cc_load(so, len, err) : NULL;
  free(so);
  return obj;
}

/* Loads the second tier of k and makes it what runs (forced: by JIT_TIER=cc, with no first);
 * a jit_status. */
static int go_to_cc(jit_kernel *k, int forced, sj_cc_watch watch, void *user, sj_error *err) {
  const char *from = "";
  double t0 = now_ms();
  sj_cc_obj *obj = object(k, k->c_code2, watch, user, &from, err);
  sj_cpu_fn fn = obj ? (sj_cpu_fn)sj_cc_symbol(obj, "__sj_kernel") : NULL;
  if (!fn) {
    if (obj) sj_error_set(err, JIT_ERR_INTERNAL, "no __sj_kernel in the shared object");
    sj_cc_free(obj);
    return err->status;
  }
  k->obj = obj;
  k->tier2.fn = fn;
  __atomic_store_n(&k->running, &k->tier2, __ATOMIC_RELEASE);
  double t1 = now_ms();
  if (forced)
    sj_tier_set(k, SJ_TIER_CC, "tier 2 runs, as JIT_TIER=cc asks: %s's code (%s in %.0f ms; %s)",
                sj_cc_path(NULL), from, t1 - t0, sj_cc_flags());
  else
    sj_tier_set(k, SJ_TIER_CC,
                "tier 2 runs: %s's code (%s in %.0f ms, ready %.0f ms after "
                "TinyCC's; %s)",
                sj_cc_path(NULL), from, t1 - t0, t1 - k->compiled_at, sj_cc_flags());
  return 0;
}

int sj_tier_now(jit_kernel *k, sj_error *err) {
  if (!sj_cc_path(NULL)) {
    const char *why;
    sj_cc_path(&why);
    return sj_error_set(err, JIT_ERR_DEVICE, "JIT_TIER=cc, but there is no system C compiler (%s)",
                        why);
  }
  return go_to_cc(k, 1, NULL, NULL, err);
}

/* --- the thread --- */

static void watch(void *user, int pid) {
  sj_tiers *t = user;
  pthread_mutex_lock(&t->mu);
  t->child = pid;
  if (pid && t->quit) kill(pid, SIGKILL);
  pthread_mutex_unlock(&t->mu);
}

/* Whether the tier thread holds the only reference: nobody would run what it compiles. */
static int abandoned(jit_kernel *k) {
  pthread_mutex_lock(&k->ctx->cache.lock);
  int alone = k->refs == 1;
  pthread_mutex_unlock(&k->ctx->cache.lock);
  return alone;
}

static void compile_job(sj_tiers *t, sj_tier_job *job) {
  sj_error err = {0, {0}};
  jit_kernel *k = job->k;
  if (abandoned(k)) return;
  if (job->make(k, &err))
    sj_tier_set(k, SJ_TIER_FAILED, "tier 1 runs: TinyCC's code; the second tier's C: %s", err.msg);
  else if (go_to_cc(k, 0, watch, t, &err))
    sj_tier_set(k, SJ_TIER_FAILED, "tier 1 runs: TinyCC's code; the system compiler failed: %s",
                err.msg);
}

static void *tier_thread(void *arg) {
  sj_tiers *t = arg;
  pthread_mutex_lock(&t->mu);
  for (;;) {
    while (!t->head && !t->quit) pthread_cond_wait(&t->wake, &t->mu);
    if (t->quit) break;
    sj_tier_job *job = t->head;
    t->head = job->next;
    if (!t->head) t->tail = NULL;
    t->current = job;
    pthread_mutex_unlock(&t->mu);
    compile_job(t, job);
    pthread_mutex_lock(&t->mu);
    t->current = NULL;
    pthread_mutex_unlock(&t->mu);
    sj_kernel_release(job->k); /* may free it: outside the lock */
    free(job);
    pthread_mutex_lock(&t->mu);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

void sj_tiers_init(sj_tiers *t, sj_tier_policy policy) {
  memset(t, 0, sizeof *t);
  t->policy = policy;
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->wake, NULL);
  t->gen = sj_fork_generation();
}

/* In a forked child: no thread, locks that may look held, the parent's job to do again;
 * a thread for the jobs when run says so (not when the context is being destroyed). */
static void after_fork(sj_tiers *t, int run) {
  unsigned gen = sj_fork_generation();
  if (__atomic_load_n(&t->gen, __ATOMIC_ACQUIRE) == gen) return;
  sj_fork_lock();
  if (t->gen != gen) {
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->wake, NULL);
    t->started = 0;
    t->child = 0;
    if (t->current) {
      t->current->next = t->head;
      t->head = t->current;
      if (!t->tail) t->tail = t->current;
      t->current = NULL;
    }
    if (run && t->head) t->started = pthread_create(&t->thread, NULL, tier_thread, t) == 0;
    __atomic_store_n(&t->gen, gen, __ATOMIC_RELEASE);
  }
  sj_fork_unlock();
}

void sj_tiers_revive(sj_tiers *t) {
  after_fork(t, 1);
}

void sj_tier_later(jit_kernel *k, sj_tier_make make) {
  sj_tiers *t = &k->ctx->tiers;
  sj_tier_job *job = calloc(1, sizeof *job);
  if (!job) { /* the kernel stays on tier 1 */
    sj_tier_set(k, SJ_TIER_FAILED, "tier 1 runs: TinyCC's code; no memory for the second tier");
    return;
  }
  job->k = k;
  job->make = make;
  k->refs++; /* the job's: k is not shared yet */
  k->compiled_at = now_ms();
  sj_tier_set(k, SJ_TIER_WAITING,
              "tier 1 runs: TinyCC's code, until the second tier is ready: %s's code (%s), "
              "time-tiled where that pays, compiled in the background",
              sj_cc_path(NULL), sj_cc_flags());
  after_fork(t, 1);
  pthread_mutex_lock(&t->mu);
  /* kernels the cache dropped meanwhile go now, not when their turn comes: memory stays
   * within the cache's bound however many shapes come while the compiler works */
  sj_tier_job *gone = NULL, **p = &t->head;
  t->tail = NULL;
  while (*p) {
    sj_tier_job *j = *p;
    if (abandoned(j->k)) {
      *p = j->next;
      j->next = gone;
      gone = j;
    } else {
      t->tail = j;
      p = &j->next;
    }
  }
  if (t->tail)
    t->tail->next = job;
  else
    t->head = job;
  t->tail = job;
  if (!t->started) t->started = pthread_create(&t->thread, NULL, tier_thread, t) == 0;
  pthread_cond_signal(&t->wake);
  int orphan = !t->started;
  if (orphan) t->head = t->tail = NULL;
  pthread_mutex_unlock(&t->mu);
  for (sj_tier_job *next; gone; gone = next) {
    next = gone->next;
    sj_kernel_release(gone->k);
    free(gone);
  }
  if (orphan) { /* no thread: the kernel stays on tier 1 */
    sj_tier_set(k, SJ_TIER_FAILED, "tier 1 runs: TinyCC's code; no thread for the system compiler");
    k->refs--;
    free(job);
  }
}

void sj_tiers_stop(sj_tiers *t) {
  after_fork(t, 0); /* the parent's thread is not ours to join */
  pthread_mutex_lock(&t->mu);
  t->quit = 1;
  if (t->child) kill(t->child, SIGKILL);
  pthread_cond_broadcast(&t->wake);
  pthread_mutex_unlock(&t->mu);
  if (t->started) pthread_join(t->thread, NULL);
  for (sj_tier_job *job = t->head, *next; job; job = next) {
    next = job->next;
    sj_kernel_release(job->k);
    free(job);
  }
  pthread_cond_destroy(&t->wake);
  pthread_mutex_destroy(&t->mu);
}
