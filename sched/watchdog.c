/* A time bound for isl: the operation count bounds the pivots of isl's simplex, not their
 * cost, which grows with the numbers in the tableau; isl's scheduler on a nest with large
 * constant bounds (a LU decomposition at n = 2000) runs for minutes within the count. A
 * thread waits for the deadline and calls isl_ctx_abort, which isl checks at every pivot:
 * the computation then fails with isl_error_abort, and the caller goes on without it. On
 * time (every ordinary kernel), the thread is woken and joined and nothing else happens.
 * Once stopped, the context computes again: the compile's own context can be watched too,
 * as long as the caller drops what was computed while the abort was set.
 *
 * The time is the CPU time of the thread that started the watchdog (the one computing),
 * not wall time: a compile on a loaded machine (a parallel build, a test run under a
 * sanitizer) then makes the same decisions as on an idle one. Wall time is never shorter
 * than CPU time, so the watcher sleeps for what is left of the budget and looks again. */
#include "sched/sched.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* A sanitizer's build runs isl 2-4 times (AddressSanitizer) to 5-15 times (ThreadSanitizer)
 * slower. The deadlines are for runaway computations: they grow with it, so that its test
 * runs make a plain build's decisions, and an abort mid-computation (after which isl itself
 * may leak what it was building) stays as rare as in a plain build. */
#if defined(__SANITIZE_THREAD__)
#define SLOWDOWN 10
#elif defined(__SANITIZE_ADDRESS__)
#define SLOWDOWN 4
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLOWDOWN 10
#elif __has_feature(address_sanitizer)
#define SLOWDOWN 4
#endif
#endif
#ifndef SLOWDOWN
#define SLOWDOWN 1
#endif

struct sj_watchdog {
  isl_ctx *ctx;
  clockid_t cpu; /* the watched thread's CPU clock */
  double until;  /* on that clock, in milliseconds */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int done, fired;
  pthread_t thread;
};

static double clock_ms(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static void *watch(void *arg) {
  sj_watchdog *w = arg;
  pthread_mutex_lock(&w->lock);
  while (!w->done) {
    double left = w->until - clock_ms(w->cpu);
    if (left <= 0) {
      isl_ctx_abort(w->ctx);
      w->fired = 1;
      break;
    }
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    long ns = at.tv_nsec + (long)(left * 1e6) % 1000000000L + 1000000L;
    at.tv_sec += (time_t)(left / 1e3) + ns / 1000000000L;
    at.tv_nsec = ns % 1000000000L;
    while (!w->done && pthread_cond_timedwait(&w->wake, &w->lock, &at) != ETIMEDOUT) {
    }
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

sj_watchdog *sj_watchdog_start(isl_ctx *ctx, long ms) {
  sj_watchdog *w = calloc(1, sizeof *w);
  pthread_condattr_t attr;
  if (!w) return NULL;
  w->ctx = ctx;
  if (pthread_getcpuclockid(pthread_self(), &w->cpu)) w->cpu = CLOCK_MONOTONIC;
  w->until = clock_ms(w->cpu) + (double)ms * SLOWDOWN;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->wake, &attr);
  pthread_condattr_destroy(&attr);
  if (pthread_create(&w->thread, NULL, watch, w)) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return NULL;
  }
  return w;
}

int sj_watchdog_stop(sj_watchdog *w) {
  if (!w) return 0;
  pthread_mutex_lock(&w->lock);
  w->done = 1;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  int fired = w->fired;
  if (fired) {
    /* whatever failed once it fired failed for it: a text being read back stopped midway
     * reports a syntax error, not the abort (step_ast under ASan on a loaded machine) */
    isl_ctx_resume(w->ctx);
    isl_ctx_reset_error(w->ctx);
  }
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w);
  return fired;
}

double sj_clock_ms(void) {
  clockid_t cpu;
  return clock_ms(pthread_getcpuclockid(pthread_self(), &cpu) ? CLOCK_MONOTONIC : cpu);
}
