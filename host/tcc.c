/* TinyCC in memory. TinyCC keeps global state, so every compile holds one process-wide
 * mutex; the relocated code stays valid after the compile returns. */
#include "host/host.h"

#include <libtcc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/locate.h"
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
#define SJ_LIBM1(name)                                                                             \
  {#name, (const void *)(double (*)(double))name},                                                 \
      {#name "f", (const void *)(float (*)(float))name##f},
#define SJ_LIBM2(name)                                                                             \
  {#name, (const void *)(double (*)(double, double))name},                                         \
      {#name "f", (const void *)(float (*)(float, float))name##f},
#define SJ_LIBM3(name)                                                                             \
  {#name, (const void *)(double (*)(double, double, double))name},                                 \
      {#name "f", (const void *)(float (*)(float, float, float))name##f},
static const struct {
  const char *name;
  const void *fn;
} libm[] = {SJ_LIBM1(sqrt) SJ_LIBM1(fabs) SJ_LIBM2(fmin) SJ_LIBM2(fmax) SJ_LIBM1(exp) SJ_LIBM1(exp2)
                SJ_LIBM1(expm1) SJ_LIBM1(log) SJ_LIBM1(log2) SJ_LIBM1(log10) SJ_LIBM1(log1p)
                    SJ_LIBM2(pow) SJ_LIBM1(sin) SJ_LIBM1(cos) SJ_LIBM1(tan) SJ_LIBM1(sinh)
                        SJ_LIBM1(cosh) SJ_LIBM1(tanh) SJ_LIBM1(floor) SJ_LIBM1(ceil) SJ_LIBM1(trunc)
                            SJ_LIBM1(round) SJ_LIBM2(fmod) SJ_LIBM2(copysign) SJ_LIBM3(fma)};
#undef SJ_LIBM1
#undef SJ_LIBM2
#undef SJ_LIBM3

static void add_symbols(TCCState *s) {
  for (size_t i = 0; i < sizeof libm / sizeof *libm; i++)
    tcc_add_symbol(s, libm[i].name, libm[i].fn);
  tcc_add_symbol(s, "__sj_launch", (const void *)sj_gpu_launch);
  /* what TinyCC calls for a local array's initializer (the reference's tables) */
  tcc_add_symbol(s, "memset", (const void *)memset);
  tcc_add_symbol(s, "memcpy", (const void *)memcpy);
  tcc_add_symbol(s, "memmove", (const void *)memmove); /* the reference's copies */
  tcc_add_symbol(s, "abs", (const void *)abs); /* the reference's integer abs */
  tcc_add_symbol(s, "labs", (const void *)labs);
  tcc_add_symbol(s, "llabs", (const void *)llabs);
}

/* TinyCC's runtime (libtcc1.a and its include/): $JIT_TCC_DIR, else beside this code (tcc/ in
 * the library's directory, or ../lib/tcc from a program in bin/: a bundle, wherever it was
 * moved), else the directory found at build time. */
static char runtime_beside[4096];
static void find_runtime_beside(void) {
  static const char *const rel[] = {"tcc/libtcc1.a", "../lib/tcc/libtcc1.a", NULL};
  if (sj_locate_beside(rel, runtime_beside, sizeof runtime_beside) == 0)
    *strrchr(runtime_beside, '/') = 0;
}

static const char *runtime_dir(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  const char *env = getenv("JIT_TCC_DIR");
  if (env && *env) return env;
  pthread_once(&once, find_runtime_beside);
  return runtime_beside[0] ? runtime_beside : SJ_TCC_RUNTIME_DIR;
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
  const char *dir = runtime_dir();
  char runtime[4200], include[4200];
  snprintf(runtime, sizeof runtime, "%s/libtcc1.a", dir);
  snprintf(include, sizeof include, "%s/include", dir);
  tcc_set_lib_path(s, dir);
  /* Nothing but the runtime directory: no system headers, no libc.so linker script (both
   * come with libc6-dev, absent where nothing is installed). The few libc functions code
   * may call resolve against this process when the code is relocated. */
  tcc_set_options(s, "-nostdinc -nostdlib");
  tcc_set_error_func(s, &d, on_error);
  tcc_set_output_type(s, TCC_OUTPUT_MEMORY);
  tcc_add_sysinclude_path(s, include);
  add_symbols(s);
  int rc = tcc_compile_string(s, source);
  /* After the code: an archive contributes only the members that resolve what is undefined. */
  if (rc == 0 && tcc_add_file(s, runtime) < 0) {
    snprintf(d.text, sizeof d.text,
             "cannot read its runtime %.600s (JIT_TCC_DIR names the directory of libtcc1.a)",
             runtime);
    rc = -1;
  }
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
