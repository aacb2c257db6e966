/* A fixed set of worker threads that run one function together, SPMD style: the caller is
 * thread 0, workers 1..n-1 sleep between runs. One run at a time; a second concurrent
 * caller runs alone instead of waiting (the generated code is correct for any nth). */
#include "host/host.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The barrier between parallel loops. A sleeping barrier (pthread_barrier) costs a futex
 * wake-up per step, which on virtual machines takes long enough to halve the throughput of
 * two threads; threads spin for a while instead, then yield so that an oversubscribed
 * machine is not burned. Sense reversal: the last thread to arrive flips the sense; its
 * release and the arrivals' acq_rel make every write before the barrier visible after. */
typedef struct spin_barrier {
  atomic_int count, sense;
  int n;
} spin_barrier;

enum { SPINS = 1 << 16 };

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void sj_barrier_wait(void *bar) {
  spin_barrier *b = bar;
  if (!b) return;
  int sense = atomic_load_explicit(&b->sense, memory_order_acquire);
  if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
    atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    atomic_store_explicit(&b->sense, !sense, memory_order_release);
    return;
  }
  for (long i = 0; atomic_load_explicit(&b->sense, memory_order_acquire) == sense; i++) {
    if (i < SPINS)
      relax();
    else
      sched_yield();
  }
}

typedef void (*job_fn)(void *arg, int tid, int nth, void *bar);

struct sj_pool {
  int n;
  pthread_t *threads;
  pthread_mutex_t run_lock; /* held by the caller whose job the workers run */
  pthread_mutex_t mu;
  pthread_cond_t start, done;
  unsigned long generation;
  int pending, quit;
  job_fn fn;
  void *arg;
  spin_barrier bar;
};

typedef struct worker_arg {
  sj_pool *pool;
  int tid;
} worker_arg;

static void *worker(void *p) {
  worker_arg *w = p;
  sj_pool *pool = w->pool;
  int tid = w->tid;
  free(w);
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (pool->generation == seen && !pool->quit) pthread_cond_wait(&pool->start, &pool->mu);
    if (pool->quit) break;
    seen = pool->generation;
    job_fn fn = pool->fn;
    void *arg = pool->arg;
    pthread_mutex_unlock(&pool->mu);
    fn(arg, tid, pool->n, &pool->bar);
    pthread_mutex_lock(&pool->mu);
    if (--pool->pending == 0) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

sj_pool *sj_pool_new(int nthreads) {
  sj_pool *p = calloc(1, sizeof *p);
  p->n = nthreads < 1 ? 1 : nthreads;
  pthread_mutex_init(&p->run_lock, NULL);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->start, NULL);
  pthread_cond_init(&p->done, NULL);
  p->threads = calloc(p->n, sizeof *p->threads);
  for (int t = 1; t < p->n; t++) {
    worker_arg *w = malloc(sizeof *w);
    w->pool = p;
    w->tid = t;
    if (pthread_create(&p->threads[t], NULL, worker, w)) {
      free(w);
      p->n = t; /* run with the threads we got */
      break;
    }
  }
  p->bar.n = p->n;
  return p;
}

int sj_pool_size(const sj_pool *p) {
  return p->n;
}

void sj_pool_run(sj_pool *p, job_fn fn, void *arg) {
  if (p->n == 1 || pthread_mutex_trylock(&p->run_lock) != 0) {
    fn(arg, 0, 1, NULL);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->arg = arg;
  p->pending = p->n - 1;
  p->generation++;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->mu);
  fn(arg, 0, p->n, &p->bar);
  pthread_mutex_lock(&p->mu);
  while (p->pending) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
  pthread_mutex_unlock(&p->run_lock);
}

void sj_pool_free(sj_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->start);
  pthread_mutex_unlock(&p->mu);
  for (int t = 1; t < p->n; t++) pthread_join(p->threads[t], NULL);
  pthread_cond_destroy(&p->start);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->run_lock);
  free(p->threads);
  free(p);
}
