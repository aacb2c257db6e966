/* A fixed set of worker threads that run one function together, SPMD style: the caller is
 * thread 0, workers 1..n-1 sleep between runs. One run at a time; a second concurrent
 * caller runs alone instead of waiting (the generated code is correct for any nth). */
#include "host/host.h"

#include <pthread.h>
#include <stdlib.h>

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
  pthread_barrier_t bar;
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
  pthread_barrier_init(&p->bar, NULL, (unsigned)p->n);
  p->threads = calloc(p->n, sizeof *p->threads);
  for (int t = 1; t < p->n; t++) {
    worker_arg *w = malloc(sizeof *w);
    w->pool = p;
    w->tid = t;
    if (pthread_create(&p->threads[t], NULL, worker, w)) {
      free(w);
      p->n = t; /* run with the threads we got */
      pthread_barrier_destroy(&p->bar);
      pthread_barrier_init(&p->bar, NULL, (unsigned)p->n);
      break;
    }
  }
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
  pthread_barrier_destroy(&p->bar);
  pthread_cond_destroy(&p->start);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->run_lock);
  free(p->threads);
  free(p);
}

void sj_barrier_wait(void *bar) {
  if (bar) pthread_barrier_wait(bar);
}
