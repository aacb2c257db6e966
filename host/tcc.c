/* TinyCC in memory. TinyCC keeps global state, so every compile holds one process-wide
 * mutex; the relocated code stays valid after the compile returns. */
#include "host/host.h"

#include <libtcc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"

struct sj_tcc {
  TCCState *state;
};

static pthread_mutex_t tcc_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct diag {
  char text[768];
} diag;

static void on_error(void *opaque, const char *msg) {
  diag *d = opaque;
  if (!d->text[0]) snprintf(d->text, sizeof d->text, "%s", msg);
}

/* The math functions the subset allows, resolved against this process's libm so that the
 * generated code and the reference call the very same implementations. */
static void add_symbols(TCCState *s) {
  tcc_add_symbol(s, "sqrt", (const void *)(double (*)(double))sqrt);
  tcc_add_symbol(s, "sqrtf", (const void *)(float (*)(float))sqrtf);
  tcc_add_symbol(s, "fabs", (const void *)(double (*)(double))fabs);
  tcc_add_symbol(s, "fabsf", (const void *)(float (*)(float))fabsf);
  tcc_add_symbol(s, "fmin", (const void *)(double (*)(double, double))fmin);
  tcc_add_symbol(s, "fminf", (const void *)(float (*)(float, float))fminf);
  tcc_add_symbol(s, "fmax", (const void *)(double (*)(double, double))fmax);
  tcc_add_symbol(s, "fmaxf", (const void *)(float (*)(float, float))fmaxf);
  tcc_add_symbol(s, "__sj_barrier", (const void *)sj_barrier_wait);
  tcc_add_symbol(s, "__sj_launch", (const void *)sj_gpu_launch);
}

sj_tcc *sj_tcc_compile(const char *source, const char *what, sj_error *err) {
  diag d = {{0}};
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = tcc_new();
  if (!s) {
    pthread_mutex_unlock(&tcc_lock);
    sj_error_set(err, JIT_ERR_NOMEM, "TinyCC could not start");
    return NULL;
  }
  tcc_set_lib_path(s, SJ_TCC_RUNTIME_DIR);
  tcc_set_error_func(s, &d, on_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  add_symbols(s);
  int rc = tcc_compile_string(s, source);
  if (rc == 0) rc = tcc_relocate(s, TCC_RELOCATE_AUTO);
  pthread_mutex_unlock(&tcc_lock);
  if (rc < 0) {
    tcc_delete(s);
    sj_error_set(err, JIT_ERR_INTERNAL, "TinyCC failed on the %s: %s", what,
                 d.text[0] ? d.text : "unknown error");
    return NULL;
  }
  sj_tcc *c = malloc(sizeof *c);
  c->state = s;
  return c;
}

void *sj_tcc_symbol(sj_tcc *c, const char *name) {
  return tcc_get_symbol(c->state, name);
}

void sj_tcc_free(sj_tcc *c) {
  if (!c) return;
  pthread_mutex_lock(&tcc_lock);
  tcc_delete(c->state);
  pthread_mutex_unlock(&tcc_lock);
  free(c);
}
