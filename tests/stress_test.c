/* stress_test: many threads, many shapes, many repetitions, every result bit for bit
 * against the same function compiled by gcc.
 *
 *   stress_test [--device cpu|emu] [--contexts 1|per-thread] [--threads N] [--shapes M]
 *               [--reps K] [--set-options]
 *
 * All threads start together (a barrier), so the first calls of each shape race to compile
 * it. Each thread runs every shape K times, starting at a shape of its own, on fresh copies
 * of the shape's input. With one context every shape must be compiled exactly once; with a
 * context per thread, exactly once per context. --set-options adds a thread that changes the
 * context's options (threads, source name) while the others run: results must stay exact
 * (the compile count is then not checked: the thread count is part of the cache key). */
#include <stenciljit.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

/* Two nests per step with a dependence between them, and a scalar at run time. */
KERNEL(
    two, void two_nests(int T, int n, double w, double u[n], double v[n]) {
      for (int t = 0; t < T; t++) {
        for (int i = 1; i < n - 1; i++) v[i] = w * (u[i - 1] + u[i + 1]) + (1.0 - w) * u[i];
        for (int i = 1; i < n - 1; i++) u[i] = 0.5 * (v[i] + v[i - 1]);
      }
    })

typedef struct shape {
  int kernel; /* 0 jacobi2d, 1 two_nests */
  int T, a, b;
  size_t bytes;
  unsigned char *input, *want;
} shape;

static void fill(unsigned char *p, size_t bytes, int as_double, unsigned seed) {
  uint32_t s = seed * 2654435761u + 17;
  size_t n = bytes / (as_double ? 8 : 4);
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    double x = (double)(s >> 8) * 0x1p-24 - 0.5;
    if (as_double)
      ((double *)p)[i] = x;
    else
      ((float *)p)[i] = (float)x;
  }
}

static const double W = 0.375;

/* The shape's arguments over data (the buffer of the shape's size). */
static int make_args(const shape *s, unsigned char *data, jit_arg *args) {
  if (s->kernel == 0) {
    args[0] = JIT_INT(s->T), args[1] = JIT_INT(s->a), args[2] = JIT_INT(s->b);
    args[3] = JIT_PTR(data);
    return 4;
  }
  args[0] = JIT_INT(s->T), args[1] = JIT_INT(s->a), args[2] = JIT_DOUBLE(W);
  args[3] = JIT_PTR(data), args[4] = JIT_PTR(data + (size_t)s->a * sizeof(double));
  return 5;
}

static void reference(const shape *s, unsigned char *data) {
  if (s->kernel == 0)
    jacobi2d(s->T, s->a, s->b, (float(*)[s->a][s->b])data);
  else
    two_nests(s->T, s->a, W, (double *)data, (double *)data + s->a);
}

static void make_shape(shape *s, int index) {
  s->kernel = index % 2;
  s->T = 2 + index % 3;
  if (s->kernel == 0) {
    s->a = 9 + 5 * index, s->b = 13 + 3 * index;
    s->bytes = 2 * (size_t)s->a * (size_t)s->b * sizeof(float);
  } else {
    s->a = 40 + 17 * index, s->b = 0;
    s->bytes = 2 * (size_t)s->a * sizeof(double);
  }
  s->input = malloc(s->bytes);
  s->want = malloc(s->bytes);
  fill(s->input, s->bytes, s->kernel == 1, (unsigned)index + 1);
  memcpy(s->want, s->input, s->bytes);
  reference(s, s->want);
}

typedef struct config {
  jit_device device;
  int per_thread, nthreads, nshapes, reps, set_options;
} config;

typedef struct worker {
  const config *cfg;
  jit_context *ctx;
  shape *shapes;
  int id;
  pthread_barrier_t *start;
  int failures;
  volatile int *stop;
} worker;

static void *work(void *p) {
  worker *w = p;
  const config *c = w->cfg;
  size_t most = 0;
  for (int s = 0; s < c->nshapes; s++)
    if (w->shapes[s].bytes > most) most = w->shapes[s].bytes;
  unsigned char *data = malloc(most);
  pthread_barrier_wait(w->start);
  for (int r = 0; r < c->reps; r++)
    for (int k = 0; k < c->nshapes; k++) {
      const shape *s = &w->shapes[(k + w->id) % c->nshapes];
      jit_arg args[5];
      memcpy(data, s->input, s->bytes);
      int n = make_args(s, data, args);
      int rc = jit_stencil_run(w->ctx, s->kernel ? two_src : jac_src, NULL, args, n);
      if (rc != JIT_OK) {
        fprintf(stderr, "thread %d rep %d shape %d: status %d: %s\n", w->id, r,
                (k + w->id) % c->nshapes, rc, jit_last_error());
        w->failures++;
      } else if (memcmp(data, s->want, s->bytes)) {
        fprintf(stderr, "thread %d rep %d shape %d: result differs from gcc\n", w->id, r,
                (k + w->id) % c->nshapes);
        w->failures++;
      }
    }
  free(data);
  return NULL;
}

/* Changes the options of ctx back and forth until the workers are done. */
static void *options_changer(void *p) {
  worker *w = p;
  pthread_barrier_wait(w->start);
  for (int i = 0; !__atomic_load_n(w->stop, __ATOMIC_ACQUIRE); i++) {
    jit_options o;
    memset(&o, 0, sizeof o);
    o.threads = 1 + i % 3;
    o.source_name = i % 2 ? "stress-a.c" : "stress-b.c";
    if (jit_context_set_options(w->ctx, &o) != JIT_OK) {
      fprintf(stderr, "set_options: %s\n", jit_last_error());
      w->failures++;
    }
  }
  return NULL;
}

static jit_context *new_context(jit_device dev) {
  jit_context *ctx = jit_context_create(dev);
  if (!ctx) {
    fprintf(stderr, "jit_context_create: %s\n", jit_last_error());
    exit(1);
  }
  return ctx;
}

static int parse(int argc, char **argv, config *c) {
  *c = (config){JIT_DEVICE_CPU, 0, 8, 4, 3, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--set-options")) {
      c->set_options = 1;
      continue;
    }
    if (!v) return -1;
    i++;
    if (!strcmp(a, "--device"))
      c->device = !strcmp(v, "emu") ? JIT_DEVICE_EMU : JIT_DEVICE_CPU;
    else if (!strcmp(a, "--contexts"))
      c->per_thread = !strcmp(v, "per-thread");
    else if (!strcmp(a, "--threads"))
      c->nthreads = atoi(v);
    else if (!strcmp(a, "--shapes"))
      c->nshapes = atoi(v);
    else if (!strcmp(a, "--reps"))
      c->reps = atoi(v);
    else
      return -1;
  }
  return c->nthreads < 1 || c->nshapes < 1 || c->reps < 1 ? -1 : 0;
}

int main(int argc, char **argv) {
  config c;
  if (parse(argc, argv, &c)) {
    fprintf(stderr, "usage: stress_test [--device cpu|emu] [--contexts 1|per-thread] "
                    "[--threads N] [--shapes M] [--reps K] [--set-options]\n");
    return 2;
  }
  shape *shapes = calloc((size_t)c.nshapes, sizeof *shapes);
  for (int s = 0; s < c.nshapes; s++) make_shape(&shapes[s], s);
  int nctx = c.per_thread ? c.nthreads : 1;
  jit_context **ctxs = calloc((size_t)nctx, sizeof *ctxs);
  for (int i = 0; i < nctx; i++) ctxs[i] = new_context(c.device);

  int extra = c.set_options ? 1 : 0;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)(c.nthreads + extra));
  volatile int stop = 0;
  worker *ws = calloc((size_t)(c.nthreads + extra), sizeof *ws);
  pthread_t *th = calloc((size_t)(c.nthreads + extra), sizeof *th);
  for (int t = 0; t < c.nthreads + extra; t++) {
    ws[t] = (worker){&c, ctxs[c.per_thread && t < c.nthreads ? t : 0], shapes, t, &start, 0, &stop};
    pthread_create(&th[t], NULL, t < c.nthreads ? work : options_changer, &ws[t]);
  }
  int failures = 0;
  for (int t = 0; t < c.nthreads; t++) pthread_join(th[t], NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  if (extra) pthread_join(th[c.nthreads], NULL);
  for (int t = 0; t < c.nthreads + extra; t++) failures += ws[t].failures;

  unsigned long want_runs = (unsigned long)c.reps * c.nshapes * (c.per_thread ? 1 : c.nthreads);
  for (int i = 0; i < nctx; i++) {
    jit_stats st;
    jit_context_stats(ctxs[i], &st);
    if (!c.set_options && st.compiles != (unsigned long)c.nshapes) {
      fprintf(stderr, "context %d: %lu compiles for %d shapes (want exactly one each)\n", i,
              st.compiles, c.nshapes);
      failures++;
    }
    if (st.runs != want_runs || st.compiles + st.cache_hits != want_runs) {
      fprintf(stderr, "context %d: %lu runs, %lu compiles + %lu hits (want %lu)\n", i, st.runs,
              st.compiles, st.cache_hits, want_runs);
      failures++;
    }
    jit_context_destroy(ctxs[i]);
  }
  printf("stress: %s, %d thread%s on %s, %d shapes x %d reps%s: %d failure%s\n",
         c.device == JIT_DEVICE_EMU ? "emu" : "cpu", c.nthreads, c.nthreads > 1 ? "s" : "",
         c.per_thread ? "a context each" : "one context", c.nshapes, c.reps,
         c.set_options ? ", options changing" : "", failures, failures == 1 ? "" : "s");
  for (int s = 0; s < c.nshapes; s++) {
    free(shapes[s].input);
    free(shapes[s].want);
  }
  pthread_barrier_destroy(&start);
  free(shapes);
  free(ctxs);
  free(ws);
  free(th);
  return failures ? 1 : 0;
}
