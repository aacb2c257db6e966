/* A wall-clock bound for isl: the operation count bounds the pivots of isl's simplex, not
 * their cost, which grows with the numbers in the tableau; isl's scheduler on a nest with
 * large constant bounds (a LU decomposition at n = 2000) runs for minutes within the
 * count. A thread waits for the deadline and calls isl_ctx_abort, which isl checks at every
 * pivot: the computation then fails with isl_error_abort, and the caller goes on without it.
 * On time (every ordinary kernel), the thread is woken and joined and nothing else
 * happens. Once stopped, the context computes again: the compile's own context can be
 * watched too, as long as the caller drops what was computed while the abort was set. */
#include "sched/sched.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct sj_watchdog {
  isl_ctx *ctx;
  long ms;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int done, fired;
  pthread_t thread;
};

static void *watch(void *arg) {
  sj_watchdog *w = arg;
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += w->ms / 1000;
  until.tv_nsec += w->ms % 1000 * 1000000L;
  if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&w->lock);
  int rc = 0;
  while (!w->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->wake, &w->lock, &until);
  if (!w->done) {
    isl_ctx_abort(w->ctx);
    w->fired = 1;
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

sj_watchdog *sj_watchdog_start(isl_ctx *ctx, long ms) {
  sj_watchdog *w = calloc(1, sizeof *w);
  pthread_condattr_t attr;
  if (!w) return NULL;
  w->ctx = ctx;
  w->ms = ms;
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
    isl_ctx_resume(w->ctx);
    if (isl_ctx_last_error(w->ctx) == isl_error_abort) isl_ctx_reset_error(w->ctx);
  }
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
  free(w);
  return fired;
}

double sj_clock_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}
