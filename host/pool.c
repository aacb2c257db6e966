/* A fixed set of worker threads that run one function together, SPMD style: the caller is
 * thread 0, workers 1..n-1 sleep between runs. One run at a time; a second concurrent
 * caller runs alone instead of waiting (the generated code is correct for any nth). A
 * child process forked after the pool was made has none of its workers: its first run
 * starts them again. */
#include "host/host.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --- fork --- */

static atomic_uint fork_gen;
/* Serializes what a child rebuilds after the fork (pools, the tier thread); made anew
 * there, as a parent thread may have held it when the process forked. */
static pthread_mutex_t restart_lock = PTHREAD_MUTEX_INITIALIZER;

void sj_fork_lock(void) {
  pthread_mutex_lock(&restart_lock);
}

void sj_fork_unlock(void) {
  pthread_mutex_unlock(&restart_lock);
}

static void after_fork_child(void) {
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  restart_lock = fresh;
  atomic_fetch_add(&fork_gen, 1);
}

static void watch_forks(void) {
  pthread_atfork(NULL, NULL, after_fork_child);
}

unsigned sj_fork_generation(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, watch_forks);
  return atomic_load(&fork_gen);
}

/* --- the barrier --- */

/* The barrier between parallel loops. A sleeping barrier (pthread_barrier) costs a futex
 * wake-up per step, which on virtual machines takes long enough to halve the throughput of
 * two threads, so waiters spin first. But a spinning waiter holds its CPU from the thread it
 * waits for when the two share one CPU (an affinity mask narrower than the threads, a busy
 * machine): the spin is bounded by a budget that halves each time it ran out and doubles
 * each time it sufficed, then the waiter yields a few times and then sleeps on the sense
 * word. Sense reversal: the last thread to arrive flips the sense; its release and the
 * arrivals' acq_rel make every write before the barrier visible after. */
typedef struct spin_barrier {
  void (*wait)(void *self); /* first: what generated code calls (host.h) */
  atomic_int count, sense, sleepers, budget;
  int n;
} spin_barrier;

enum { SPIN_MIN = 32, SPIN_START = 2048, SPIN_MAX = 16384, YIELDS = 8 };

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void futex(atomic_int *word, int op, int val) {
  syscall(SYS_futex, (int *)word, op, val, NULL, NULL, 0);
}

static int released(spin_barrier *b, int sense) {
  return atomic_load_explicit(&b->sense, memory_order_acquire) != sense;
}

static void barrier_wait(void *bar) {
  spin_barrier *b = bar;
  int sense = atomic_load_explicit(&b->sense, memory_order_acquire);
  if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
    atomic_store_explicit(&b->count, 0, memory_order_relaxed);
    atomic_store(&b->sense, !sense); /* seq_cst: ordered before the load of sleepers */
    if (atomic_load(&b->sleepers)) futex(&b->sense, FUTEX_WAKE_PRIVATE, b->n);
    return;
  }
  int budget = atomic_load_explicit(&b->budget, memory_order_relaxed);
  for (int i = 0; i < budget; i++) {
    if (released(b, sense)) {
      if (budget < SPIN_MAX) atomic_store_explicit(&b->budget, 2 * budget, memory_order_relaxed);
      return;
    }
    relax();
  }
  if (budget > SPIN_MIN) atomic_store_explicit(&b->budget, budget / 2, memory_order_relaxed);
  for (int i = 0; i < YIELDS; i++) {
    if (released(b, sense)) return;
    sched_yield();
  }
  atomic_fetch_add(&b->sleepers, 1);
  while (!released(b, sense)) futex(&b->sense, FUTEX_WAIT_PRIVATE, sense);
  atomic_fetch_sub(&b->sleepers, 1);
}

static void barrier_init(spin_barrier *b, int n) {
  b->wait = barrier_wait;
  atomic_init(&b->count, 0);
  atomic_init(&b->sense, 0);
  atomic_init(&b->sleepers, 0);
  atomic_init(&b->budget, SPIN_START);
  b->n = n;
}

/* --- the pool --- */

typedef void (*job_fn)(void *arg, int tid, int nth, void *bar);

struct sj_pool {
  int n, asked;
  unsigned gen; /* the fork generation its workers belong to */
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

/* Fresh synchronization and workers 1..asked-1 (as many as can be started). */
static void start(sj_pool *p) {
  pthread_mutex_init(&p->run_lock, NULL);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->start, NULL);
  pthread_cond_init(&p->done, NULL);
  p->generation = 0;
  p->pending = p->quit = 0;
  p->n = p->asked;
  for (int t = 1; t < p->asked; t++) {
    worker_arg *w = malloc(sizeof *w);
    if (w) w->pool = p, w->tid = t;
    if (!w || pthread_create(&p->threads[t], NULL, worker, w)) {
      free(w);
      p->n = t; /* run with the threads we got */
      break;
    }
  }
  barrier_init(&p->bar, p->n);
}

sj_pool *sj_pool_new(int nthreads) {
  sj_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->asked = nthreads < 1 ? 1 : nthreads;
  p->threads = calloc((size_t)p->asked, sizeof *p->threads);
  if (!p->threads) {
    free(p);
    return NULL;
  }
  p->gen = sj_fork_generation();
  start(p);
  return p;
}

int sj_pool_size(const sj_pool *p) {
  return p->n;
}

/* In a forked child: the parent's workers are gone and its locks may look held. */
static void restart_after_fork(sj_pool *p, unsigned gen) {
  sj_fork_lock();
  if (p->gen != gen) {
    start(p);
    p->gen = gen;
  }
  sj_fork_unlock();
}

void sj_pool_run(sj_pool *p, job_fn fn, void *arg) {
  unsigned gen = sj_fork_generation();
  if (p->gen != gen) restart_after_fork(p, gen);
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
  if (p->gen == sj_fork_generation()) { /* else the workers were the parent's */
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t < p->n; t++) pthread_join(p->threads[t], NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->run_lock);
  }
  free(p->threads);
  free(p);
}
