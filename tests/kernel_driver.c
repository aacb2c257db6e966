/* kernel_driver: runs one test kernel (tests/kernels/NAME.c) at every `// run:` configuration
 * on a device and requires results bit-identical to the same file compiled by the system C
 * compiler (a module loaded with dlopen and called through libffi).
 *
 *   kernel_driver --device cpu|emu|cuda|auto [--tier tcc|cc|auto] [--tiling auto|time|none]
 *                 [--tile SPEC] [--expect-tiled] [--expect-dynamic-shared] [--expect-flow-in]
 *                 [--reassociate] FILE.c MODULE.so
 *
 * --tier, --tiling and --tile set JIT_TIER, JIT_TILING and jit_options.tile: the CPU tiers and
 * time tiling (forced with small tiles: sizes smaller than a tile, T shorter than its height).
 * --expect-tiled fails unless some configuration ran time-tiled (so that a stencil's tiled
 * test cannot pass on the untiled schedule). Without it, JIT_TILING=hybrid|split|time on a
 * GPU device may refuse a configuration (JIT_ERR_UNSUPPORTED: time tiling does not apply):
 * that configuration is reported and counts as passing. --expect-dynamic-shared (on the emulator)
 * fails unless some configuration staged more than 48 KB per block in dynamic shared memory (the
 * explanation says the kernel opts in) and its launches passed those bytes: the most a launch
 * asked for (JIT_EMU_STATS' dynamic_shared_bytes) is the most the explanation staged.
 * --expect-flow-in fails unless some configuration's full tiles copy in their flow-in
 * (sched/flow_in.c), so that the flow-in's copies are checked bit-identical. With
 * --tier cc and no system compiler the
 * driver exits with 77, which ctest counts as skipped.
 *
 * --reassociate sets jit_options.reassociate: floating arrays are then compared with the bound
 * of the file's `// reassociate:` line (kernel_bound.h), every other array bit for bit.
 *
 * Kernel file conventions:
 *   // run: T=0 N=5 M=7 alpha=0.5   one configuration: every int/long parameter by name;
 *                                   float/double parameters optional (default 0.75)
 *   // fill: A=0..1 B=-5..5         value range of integer arrays (default 0..9; bool: 0..1);
 *                                   floating arrays get pseudo-random values in [-1, 1)
 *   // reassociate: terms=N*M expect=parallel   see kernel_bound.h
 */
#include <stenciljit.h>

#include <dlfcn.h>
#include <ffi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/file.h"
#include "kernel_bound.h"

#define MAX_PARAMS 64
#define MAX_KV 64

typedef struct kv {
  char name[64];
  char value[64];
} kv;

typedef struct fill_range {
  char name[64];
  long lo, hi;
} fill_range;

static const char *g_file;
static char g_entry[1024]; /* fe_long_name.c: over 500 characters */
static int g_tiled;        /* configurations that ran time-tiled */
static int g_opted_in;     /* configurations that staged more than 48 KB per block */
static int g_flow_in;      /* configurations whose full tiles copied their flow-in */
static long g_staged;      /* the most bytes of shared memory an explanation staged */
static int g_reassociate;  /* --reassociate */
static kb_spec g_bound;    /* the file's `// reassociate:` line */
static int g_parallel;     /* configurations that ran a reduction in parallel */
/* JIT_TILING=hybrid|split|time on a GPU refuses a configuration where time tiling is illegal
 * (not in stencil form at those sizes): that counts as passing unless --expect-tiled */
static int g_refusals_ok, g_refused;

static void die(const char *fmt, const char *a) {
  fprintf(stderr, "kernel_driver: %s: ", g_file ? g_file : "?");
  fprintf(stderr, fmt, a);
  fputc('\n', stderr);
  exit(1);
}

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The entry: the function named as the file (the others are the functions it calls), else
 * the first `void NAME(` outside comments. */
static void find_entry(const char *src) {
  const char *base = strrchr(g_file, '/');
  base = base ? base + 1 : g_file;
  size_t stem = strcspn(base, ".");
  if (stem < sizeof g_entry) {
    memcpy(g_entry, base, stem);
    g_entry[stem] = '\0';
    for (const char *at = strstr(src, g_entry); at; at = strstr(at + 1, g_entry))
      if (at > src && !is_ident(at[-1]) && at[stem] == '(') return;
  }
  const char *p = src;
  while (*p) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
      continue;
    }
    if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
      continue;
    }
    if (strncmp(p, "void", 4) == 0 && (p == src || !is_ident(p[-1])) && !is_ident(p[4])) {
      const char *q = p + 4;
      while (*q == ' ' || *q == '\t' || *q == '\n') q++;
      const char *name = q;
      while (is_ident(*q)) q++;
      size_t len = (size_t)(q - name);
      while (*q == ' ' || *q == '\t') q++;
      if (len > 0 && len < sizeof g_entry && *q == '(') {
        memcpy(g_entry, name, len);
        g_entry[len] = '\0';
        return;
      }
    }
    p++;
  }
  die("no `void NAME(` function found%s", "");
}

/* Splits the text after a `// run:` or `// fill:` marker into NAME=VALUE tokens. */
static int parse_kv(const char *line, kv *out, int max) {
  int n = 0;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\0' || *p == '\n' || *p == '\r') break;
    const char *tok = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
    const char *eq = memchr(tok, '=', (size_t)(p - tok));
    if (!eq || eq == tok || n == max) die("malformed token in a run/fill line: %.40s", tok);
    size_t nl = (size_t)(eq - tok), vl = (size_t)(p - eq - 1);
    if (nl >= sizeof out[n].name || vl >= sizeof out[n].value || vl == 0)
      die("token too long or empty: %.40s", tok);
    memcpy(out[n].name, tok, nl);
    out[n].name[nl] = '\0';
    memcpy(out[n].value, eq + 1, vl);
    out[n].value[vl] = '\0';
    n++;
  }
  return n;
}

static const char *kv_get(const kv *kvs, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(kvs[i].name, name) == 0) return kvs[i].value;
  return NULL;
}

static size_t elem_size(jit_arg_kind k) {
  return k == JIT_ARG_PTR ? 0 : jit_elem_size(k);
}

static const char *kind_name(jit_arg_kind k) {
  static const char *const names[] = {"int",
                                      "long",
                                      "float",
                                      "double",
                                      "pointer",
                                      "?",
                                      "?",
                                      "signed char",
                                      "unsigned char",
                                      "short",
                                      "unsigned short",
                                      "unsigned int",
                                      "unsigned long"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

static int is_integer_kind(jit_arg_kind k) {
  return k == JIT_ARG_INT || k == JIT_ARG_LONG || (k >= JIT_ELEM_INT8 && k <= JIT_ELEM_UINT64);
}

/* Integer element i of an array of kind k, as a long (unsigned long's bits). */
static long int_elem(const void *p, jit_arg_kind k, size_t i) {
  switch ((int)k) {
  case JIT_ARG_INT:
    return ((const int *)p)[i];
  case (int)JIT_ELEM_INT8:
    return ((const signed char *)p)[i];
  case (int)JIT_ELEM_UINT8:
  case (int)JIT_ELEM_BOOL:
    return ((const unsigned char *)p)[i];
  case (int)JIT_ELEM_INT16:
    return ((const short *)p)[i];
  case (int)JIT_ELEM_UINT16:
    return ((const unsigned short *)p)[i];
  case (int)JIT_ELEM_UINT32:
    return (long)((const unsigned *)p)[i];
  default:
    return ((const long *)p)[i];
  }
}

/* Stores v converted to the element type (modulo its width, as C does for unsigned types). */
static void set_int_elem(void *p, jit_arg_kind k, size_t i, long v) {
  switch (jit_elem_size(k)) {
  case 1:
    ((unsigned char *)p)[i] = (unsigned char)v;
    break;
  case 2:
    ((unsigned short *)p)[i] = (unsigned short)v;
    break;
  case 4:
    ((unsigned *)p)[i] = (unsigned)v;
    break;
  default:
    ((unsigned long *)p)[i] = (unsigned long)v;
  }
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t hash_str(uint64_t h, const char *s) {
  while (*s) h = (h ^ (unsigned char)*s++) * 0x100000001B3ull;
  return h;
}

static void fill_array(void *p, jit_arg_kind k, size_t n, uint64_t seed, long lo, long hi) {
  uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix(&s);
    if (k == JIT_ARG_FLOAT)
      ((float *)p)[i] = (float)(r >> 40) * 0x1p-23f - 1.0f;
    else if (k == JIT_ARG_DOUBLE)
      ((double *)p)[i] = (double)(r >> 11) * 0x1p-52 - 1.0;
    else if (is_integer_kind(k))
      set_int_elem(p, k, i, lo + (long)(r % (uint64_t)(hi - lo + 1)));
  }
}

static void print_elem(const void *p, jit_arg_kind k, size_t i) {
  if (k == JIT_ARG_FLOAT) {
    float v = ((const float *)p)[i];
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    fprintf(stderr, "%.9g (0x%08x)", (double)v, (unsigned)b);
  } else if (k == JIT_ARG_DOUBLE) {
    double v = ((const double *)p)[i];
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    fprintf(stderr, "%.17g (0x%016llx)", v, (unsigned long long)b);
  } else if (k == JIT_ELEM_UINT64) {
    fprintf(stderr, "%lu", (unsigned long)int_elem(p, k, i));
  } else if (is_integer_kind(k)) {
    fprintf(stderr, "%ld", int_elem(p, k, i));
  }
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Compares one array; on a difference prints where and returns 1. */
static int compare(const char *what, const char *cfg, const jit_param_info *pi, const void *want,
                   const void *got, size_t elems) {
  size_t es = elem_size(pi->elem_kind);
  if (memcmp(want, got, elems * es) == 0) return 0;
  size_t first = 0, ndiff = 0;
  for (size_t i = 0; i < elems; i++)
    if (memcmp((const char *)want + i * es, (const char *)got + i * es, es) != 0) {
      if (ndiff++ == 0) first = i;
    }
  fprintf(stderr,
          "MISMATCH %s: kernel %s (%s) [%s], array %s (%s, %zu elements): %zu elements differ, "
          "first at flat index %zu: expected ",
          what, g_entry, g_file, cfg, pi->name, kind_name(pi->elem_kind), elems, ndiff, first);
  print_elem(want, pi->elem_kind, first);
  fprintf(stderr, ", got ");
  print_elem(got, pi->elem_kind, first);
  fputc('\n', stderr);
  return 1;
}

static long run_value(const char *name, void *user) {
  const kv *run = ((const kv *const *)user)[0];
  int n = *((const int *const *)user)[1];
  const char *v = kv_get(run, n, name);
  return v ? strtol(v, NULL, 10) : -1;
}

/* got against want: with --reassociate and a bound, floating arrays within it (abs_want: the
 * function on the absolute values); else bit for bit. */
static int check(const char *what, const char *cfg, const jit_param_info *pi, const void *want,
                 const void *got, const void *abs_want, size_t elems, long terms) {
  int floating = pi->elem_kind == JIT_ARG_FLOAT || pi->elem_kind == JIT_ARG_DOUBLE;
  if (!abs_want || !floating) return compare(what, cfg, pi, want, got, elems);
  size_t over = kb_compare(what, pi->elem_kind, want, got, abs_want, elems, terms);
  if (over)
    fprintf(stderr, "MISMATCH %s: kernel %s [%s], array %s: %zu elements over the bound\n", what,
            g_entry, cfg, pi->name, over);
  return over != 0;
}

static jit_device parse_device(const char *s) {
  if (strcmp(s, "cpu") == 0) return JIT_DEVICE_CPU;
  if (strcmp(s, "emu") == 0) return JIT_DEVICE_EMU;
  if (strcmp(s, "cuda") == 0) return JIT_DEVICE_CUDA;
  if (strcmp(s, "auto") == 0) return JIT_DEVICE_AUTO;
  die("unknown device %s (cpu|emu|cuda|auto)", s);
  return JIT_DEVICE_AUTO;
}

static ffi_type *ffi_kind(jit_arg_kind k) {
  switch (k) {
  case JIT_ARG_INT:
    return &ffi_type_sint;
  case JIT_ARG_LONG:
    return &ffi_type_slong;
  case JIT_ARG_FLOAT:
    return &ffi_type_float;
  case JIT_ARG_DOUBLE:
    return &ffi_type_double;
  case JIT_ARG_PTR:
    return &ffi_type_pointer;
  }
  return NULL;
}

/* The libffi type of a returned value of element kind k. */
static ffi_type *return_type(jit_arg_kind k) {
  switch ((int)k) {
  case JIT_ARG_FLOAT:
    return &ffi_type_float;
  case JIT_ARG_DOUBLE:
    return &ffi_type_double;
  case JIT_ARG_LONG:
  case JIT_ELEM_UINT64:
    return &ffi_type_slong;
  default: /* narrower integers come back widened to a register */
    return &ffi_type_sint;
  }
}

/* A returned value r of element kind k stored as the one element at to. */
static void store_returned(jit_arg_kind k, const void *r, void *to) {
  if (k == JIT_ARG_FLOAT || k == JIT_ARG_DOUBLE || k == JIT_ARG_LONG || k == JIT_ELEM_UINT64) {
    memcpy(to, r, elem_size(k));
    return;
  }
  unsigned long long v = (unsigned long long)*(const ffi_arg *)r; /* low bytes first */
  memcpy(to, &v, elem_size(k));
}

/* Runs one configuration; returns the number of failures. */
static int run_config(jit_context *ctx, const char *src, void (*ref)(void), const kv *run, int nrun,
                      const fill_range *fills, int nfill, int cfg_index) {
  char cfg[512] = "";
  for (int i = 0; i < nrun; i++) {
    size_t l = strlen(cfg);
    snprintf(cfg + l, sizeof cfg - l, "%s%.63s=%.63s", i ? " " : "", run[i].name, run[i].value);
  }

  jit_param_info params[MAX_PARAMS];
  int np = 0;
  int st = jit_function_params(ctx, src, g_entry, params, MAX_PARAMS, &np);
  if (st != JIT_OK) {
    fprintf(stderr, "FAIL %s [%s]: jit_function_params returned %d: %s\n", g_entry, cfg, st,
            jit_context_error(ctx));
    return 1;
  }
  for (int i = 0; i < nrun; i++) {
    int found = 0;
    for (int j = 0; j < np; j++) found |= strcmp(params[j].name, run[i].name) == 0;
    if (!found) die("run line names %s, which is not a parameter", run[i].name);
  }

  jit_arg args[MAX_PARAMS];
  for (int i = 0; i < np; i++) {
    const char *v = kv_get(run, nrun, params[i].name);
    char *end = NULL;
    switch (params[i].kind) {
    case JIT_ARG_INT:
    case JIT_ARG_LONG: {
      if (!v) die("run line lacks integer parameter %s", params[i].name);
      long x = strtol(v, &end, 10);
      if (*end) die("bad integer value %s", v);
      args[i] = params[i].kind == JIT_ARG_INT ? JIT_INT((int)x) : JIT_LONG(x);
      break;
    }
    case JIT_ARG_FLOAT:
    case JIT_ARG_DOUBLE: {
      double x = 0.75;
      if (v) {
        x = strtod(v, &end);
        if (*end) die("bad floating value %s", v);
      }
      args[i] = params[i].kind == JIT_ARG_FLOAT ? JIT_FLOAT((float)x) : JIT_DOUBLE(x);
      break;
    }
    case JIT_ARG_PTR:
      args[i] = JIT_PTR(NULL);
      break;
    }
  }

  /* Element counts come from the kernel specialized for these integer arguments. */
  jit_kernel *k = NULL;
  double t0 = now_ms();
  st = jit_kernel_compile(ctx, src, g_entry, args, np, &k);
  double t_compile = now_ms() - t0;
  if (st == JIT_ERR_UNSUPPORTED && g_refusals_ok &&
      strstr(jit_context_error(ctx), "time tiling does not apply")) {
    printf("refused [%s]: %s\n", cfg, jit_context_error(ctx));
    g_refused++;
    return 0;
  }
  if (st != JIT_OK || !k) {
    fprintf(stderr, "FAIL %s [%s]: jit_kernel_compile returned %d: %s\n", g_entry, cfg, st,
            jit_context_error(ctx));
    return 1;
  }
  size_t elems[MAX_PARAMS] = {0};
  const char *tier = getenv("JIT_TIER");
  if (tier && !strcmp(tier, "cc") && jit_kernel_tier(k) != 2) {
    fprintf(stderr, "FAIL %s [%s]: JIT_TIER=cc, but tier %d runs\n", g_entry, cfg,
            jit_kernel_tier(k));
    jit_kernel_release(k);
    return 1;
  }
  const char *why = jit_kernel_schedule(k);
  if (why && (strstr(why, "\n  time-tiled") || strstr(why, " time tiling:\n"))) g_tiled++;
  if (why && strstr(why, "(above 48 KB: the kernel opts in)")) g_opted_in++;
  if (why && strstr(why, "(full tiles: flow-in in ")) g_flow_in++;
  for (const char *p = why ? strstr(why, " staged in ") : NULL; p;
       p = strstr(p + 1, " staged in ")) {
    long bytes;
    if (sscanf(p, " staged in %ld bytes of dynamic shared memory", &bytes) == 1 && bytes > g_staged)
      g_staged = bytes;
  }
  if (why && strstr(why, "reductions in parallel")) g_parallel++;
  if (jit_kernel_param_count(k) != np) {
    fprintf(stderr, "FAIL %s [%s]: jit_kernel_param_count %d, jit_function_params %d\n", g_entry,
            cfg, jit_kernel_param_count(k), np);
    jit_kernel_release(k);
    return 1;
  }
  for (int i = 0; i < np; i++) {
    const jit_param_info *pi = jit_kernel_param(k, i);
    if (!pi || pi->kind != params[i].kind || strcmp(pi->name, params[i].name) != 0 ||
        (pi->kind == JIT_ARG_PTR &&
         (pi->elem_kind != params[i].elem_kind || pi->rank != params[i].rank))) {
      fprintf(stderr, "FAIL %s [%s]: jit_kernel_param(%d) disagrees with jit_function_params\n",
              g_entry, cfg, i);
      jit_kernel_release(k);
      return 1;
    }
    elems[i] = pi->elems;
  }
  jit_kernel_release(k);

  /* Four copies of every array: initial data, reference, first run, second run; with a bound,
   * a fifth: the reference on the absolute values. */
  void *init[MAX_PARAMS] = {0}, *refd[MAX_PARAMS] = {0}, *jit1[MAX_PARAMS] = {0},
       *jit2[MAX_PARAMS] = {0}, *absd[MAX_PARAMS] = {0};
  int bounded = g_reassociate && g_bound.terms[0];
  const void *lookup[2] = {run, &nrun};
  long terms = bounded ? kb_terms(&g_bound, run_value, lookup) : 0;
  if (terms < 0) die("the reassociate line names an unknown parameter: %s", g_bound.terms);
  int failures = 0;
  for (int i = 0; i < np; i++) {
    if (params[i].kind != JIT_ARG_PTR) continue;
    size_t bytes = elems[i] * elem_size(params[i].elem_kind);
    size_t alloc = bytes ? bytes : 1;
    init[i] = malloc(alloc);
    refd[i] = malloc(alloc);
    jit1[i] = malloc(alloc);
    jit2[i] = malloc(alloc);
    if (!init[i] || !refd[i] || !jit1[i] || !jit2[i]) die("out of memory%s", "");
    long lo = 0, hi = params[i].elem_kind == JIT_ELEM_BOOL ? 1 : 9;
    for (int f = 0; f < nfill; f++)
      if (strcmp(fills[f].name, params[i].name) == 0) lo = fills[f].lo, hi = fills[f].hi;
    uint64_t seed = hash_str(hash_str(0xcbf29ce484222325ull, g_entry), params[i].name) +
                    (uint64_t)cfg_index * 7919u;
    fill_array(init[i], params[i].elem_kind, elems[i], seed, lo, hi);
    memcpy(refd[i], init[i], bytes);
    memcpy(jit1[i], init[i], bytes);
    memcpy(jit2[i], init[i], bytes);
    if (bounded) {
      absd[i] = malloc(alloc);
      if (!absd[i]) die("out of memory%s", "");
      memcpy(absd[i], init[i], bytes);
      for (size_t e = 0; e < elems[i] && params[i].elem_kind == JIT_ARG_FLOAT; e++)
        ((float *)absd[i])[e] = fabsf(((float *)absd[i])[e]);
      for (size_t e = 0; e < elems[i] && params[i].elem_kind == JIT_ARG_DOUBLE; e++)
        ((double *)absd[i])[e] = fabs(((double *)absd[i])[e]);
    }
  }

  /* Reference: the kernel compiled by the system compiler, called through libffi. */
  ffi_cif cif;
  ffi_type *types[MAX_PARAMS];
  void *values[MAX_PARAMS];
  for (int i = 0; i < np; i++) {
    types[i] = ffi_kind(params[i].kind);
    switch (params[i].kind) {
    case JIT_ARG_INT:
      values[i] = &args[i].v.i;
      break;
    case JIT_ARG_LONG:
      values[i] = &args[i].v.l;
      break;
    case JIT_ARG_FLOAT:
      values[i] = &args[i].v.f;
      break;
    case JIT_ARG_DOUBLE:
      values[i] = &args[i].v.d;
      break;
    case JIT_ARG_PTR:
      values[i] = &refd[i];
      break;
    }
  }
  /* a function returning a value: its last parameter, `return`, receives what it returns */
  int returns = np > 0 && !strcmp(params[np - 1].name, "return");
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)(np - returns),
                   returns ? return_type(params[np - 1].elem_kind) : &ffi_type_void,
                   types) != FFI_OK)
    die("ffi_prep_cif failed%s", "");
  union {
    ffi_arg word;
    float f;
    double d;
  } r;
  double t1 = now_ms();
  ffi_call(&cif, ref, &r, values);
  double t_ref = now_ms() - t1;
  if (returns) store_returned(params[np - 1].elem_kind, &r, refd[np - 1]);
  if (bounded) {
    for (int i = 0; i < np; i++)
      if (params[i].kind == JIT_ARG_PTR) values[i] = &absd[i];
    ffi_call(&cif, ref, &r, values);
    if (returns) store_returned(params[np - 1].elem_kind, &r, absd[np - 1]);
  }

  /* First run: may compile (or hit what jit_kernel_compile put in the cache). */
  jit_arg run_args[MAX_PARAMS];
  memcpy(run_args, args, sizeof(jit_arg) * (size_t)np);
  for (int i = 0; i < np; i++)
    if (params[i].kind == JIT_ARG_PTR) run_args[i] = JIT_PTR(jit1[i]);
  jit_stats s0, s1, s2;
  jit_context_stats(ctx, &s0);
  double t2 = now_ms();
  st = jit_stencil_run(ctx, src, g_entry, run_args, np);
  double t_run1 = now_ms() - t2;
  jit_context_stats(ctx, &s1);
  if (st != JIT_OK) {
    fprintf(stderr, "FAIL %s [%s]: jit_stencil_run returned %d: %s\n", g_entry, cfg, st,
            jit_context_error(ctx));
    failures++;
    goto out;
  }
  if (s1.compiles - s0.compiles > 1) {
    fprintf(stderr, "FAIL %s [%s]: first jit_stencil_run compiled %lu kernels\n", g_entry, cfg,
            s1.compiles - s0.compiles);
    failures++;
  }
  for (int i = 0; i < np; i++)
    if (params[i].kind == JIT_ARG_PTR)
      failures +=
          check("vs reference", cfg, &params[i], refd[i], jit1[i], absd[i], elems[i], terms);

  /* Second run of the same shape on fresh data: a cache hit with the same result. */
  for (int i = 0; i < np; i++)
    if (params[i].kind == JIT_ARG_PTR) run_args[i] = JIT_PTR(jit2[i]);
  double t3 = now_ms();
  st = jit_stencil_run(ctx, src, g_entry, run_args, np);
  double t_run2 = now_ms() - t3;
  jit_context_stats(ctx, &s2);
  if (st != JIT_OK) {
    fprintf(stderr, "FAIL %s [%s]: second jit_stencil_run returned %d: %s\n", g_entry, cfg, st,
            jit_context_error(ctx));
    failures++;
    goto out;
  }
  if (s2.compiles != s1.compiles) {
    fprintf(stderr, "FAIL %s [%s]: second call of the same shape compiled again (%lu -> %lu)\n",
            g_entry, cfg, s1.compiles, s2.compiles);
    failures++;
  }
  if (s2.cache_hits != s1.cache_hits + 1) {
    fprintf(stderr, "FAIL %s [%s]: second call of the same shape: cache_hits %lu -> %lu\n", g_entry,
            cfg, s1.cache_hits, s2.cache_hits);
    failures++;
  }
  /* reassociated: atomics may combine in another order each run */
  for (int i = 0; i < np; i++)
    if (params[i].kind == JIT_ARG_PTR && bounded)
      failures += check("second run vs reference", cfg, &params[i], refd[i], jit2[i], absd[i],
                        elems[i], terms);
    else if (params[i].kind == JIT_ARG_PTR)
      failures += compare("second run vs first run", cfg, &params[i], jit1[i], jit2[i], elems[i]);

  printf("%s %-20s [%s] compile %.1f ms, run %.2f ms, cached run %.2f ms, gcc %.2f ms\n",
         failures ? "FAIL" : "ok  ", g_entry, cfg, t_compile, t_run1, t_run2, t_ref);
out:
  for (int i = 0; i < np; i++) {
    free(init[i]);
    free(refd[i]);
    free(jit1[i]);
    free(jit2[i]);
    free(absd[i]);
  }
  return failures;
}

/* The most dynamic shared memory a launch recorded in the JIT_EMU_STATS file asked for; -1 when
 * none is recorded. */
static long most_dynamic_shared(const char *stats) {
  FILE *f = fopen(stats, "r");
  char line[8192];
  long most = -1;
  while (f && fgets(line, sizeof line, f)) {
    const char *p = strstr(line, "\"dynamic_shared_bytes\":");
    long v = p ? strtol(p + strlen("\"dynamic_shared_bytes\":"), NULL, 10) : -1;
    if (v > most) most = v;
  }
  if (f) fclose(f);
  return most;
}

/* --expect-dynamic-shared: what the configurations staged, against what their launches asked
 * for; the number of failures. */
static int check_dynamic_shared(const char *stats) {
  long most = most_dynamic_shared(stats);
  printf("%s: %d configuration(s) over 48 KB of shared memory; the most staged %ld bytes, the "
         "most a launch asked for %ld\n",
         g_entry, g_opted_in, g_staged, most);
  if (g_opted_in && most > 48 * 1024 && most == g_staged) return 0;
  fprintf(stderr,
          "FAIL %s: no configuration staged more than 48 KB in dynamic shared memory, or "
          "its launches did not ask for it\n",
          g_entry);
  return 1;
}

int main(int argc, char **argv) {
  const char *device = "cpu", *file = NULL, *module = NULL, *tile = NULL;
  int expect_tiled = 0, expect_dynamic = 0, expect_flow_in = 0;
  /* the explanations are read for the mapping, not for the exact dependences, which cost more
   * than the compile (seconds for heat-3d at 40^3) */
  setenv("JIT_EXPLAIN_DEPS", "0", 0);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      device = argv[++i];
    else if (strcmp(argv[i], "--tier") == 0 && i + 1 < argc)
      setenv("JIT_TIER", argv[++i], 1);
    else if (strcmp(argv[i], "--tiling") == 0 && i + 1 < argc)
      setenv("JIT_TILING", argv[++i], 1);
    else if (strcmp(argv[i], "--tile") == 0 && i + 1 < argc)
      tile = argv[++i];
    else if (strcmp(argv[i], "--expect-tiled") == 0)
      expect_tiled = 1;
    else if (strcmp(argv[i], "--expect-dynamic-shared") == 0)
      expect_dynamic = 1;
    else if (strcmp(argv[i], "--expect-flow-in") == 0)
      expect_flow_in = 1;
    else if (strcmp(argv[i], "--reassociate") == 0)
      g_reassociate = 1;
    else if (!file)
      file = argv[i];
    else if (!module)
      module = argv[i];
    else
      file = NULL, module = NULL, i = argc;
  }
  if (!file || !module) {
    fprintf(stderr, "usage: kernel_driver [--device cpu|emu|cuda|auto] [--tier tcc|cc|auto] "
                    "[--tiling auto|time|none] [--tile SPEC] [--expect-tiled] "
                    "[--expect-dynamic-shared] [--expect-flow-in] [--reassociate] FILE.c "
                    "MODULE.so\n");
    return 2;
  }
  g_file = file;
  char *src = sj_read_file(file, NULL);
  if (!src) die("cannot read %s", file);
  find_entry(src);

  kv runs[MAX_KV][MAX_KV];
  int nkv[MAX_KV], nruns = 0;
  fill_range fills[MAX_KV];
  int nfill = 0;
  for (const char *p = src; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, "// run:", 7) == 0) {
      if (nruns == MAX_KV) die("too many run lines%s", "");
      nkv[nruns] = parse_kv(p + 7, runs[nruns], MAX_KV);
      nruns++;
    } else if (strncmp(p, "// reassociate:", 15) == 0) {
      if (kb_parse(p + 15, &g_bound)) die("malformed reassociate line: %.60s", p);
    } else if (strncmp(p, "// fill:", 8) == 0) {
      kv f[MAX_KV];
      int n = parse_kv(p + 8, f, MAX_KV);
      for (int i = 0; i < n && nfill < MAX_KV; i++) {
        char *dots = strstr(f[i].value, "..");
        if (!dots) die("fill range needs LO..HI: %s", f[i].value);
        snprintf(fills[nfill].name, sizeof fills[nfill].name, "%s", f[i].name);
        fills[nfill].lo = strtol(f[i].value, NULL, 10);
        fills[nfill].hi = strtol(dots + 2, NULL, 10);
        if (fills[nfill].hi < fills[nfill].lo) die("empty fill range %s", f[i].value);
        nfill++;
      }
    }
  }
  if (nruns == 0) die("no `// run:` lines%s", "");

  char stats[] = "/tmp/kernel_driver_stats_XXXXXX";
  if (expect_dynamic) { /* before the context: the emulator reads it at each launch */
    int fd = mkstemp(stats);
    if (fd < 0) die("cannot create %s", stats);
    close(fd);
    setenv("JIT_EMU_STATS", stats, 1);
  }
  void *mod = dlopen(module, RTLD_NOW | RTLD_LOCAL);
  if (!mod) die("dlopen: %s", dlerror());
  void *sym = dlsym(mod, g_entry);
  if (!sym) die("dlsym: %s", dlerror());
  void (*ref)(void);
  memcpy(&ref, &sym, sizeof ref); /* object pointer -> function pointer without a cast warning */

  jit_context *ctx = jit_context_create(parse_device(device));
  if (!ctx) {
    fprintf(stderr, "FAIL: jit_context_create(%s): %s\n", device, jit_last_error());
    return 1;
  }
  jit_options opts;
  memset(&opts, 0, sizeof opts);
  opts.source_name = file;
  opts.tile = tile;
  opts.reassociate = g_reassociate;
  if (jit_context_set_options(ctx, &opts)) {
    fprintf(stderr, "FAIL: jit_context_set_options: %s\n", jit_context_error(ctx));
    return 1;
  }
  printf("kernel %s from %s on %s\n", g_entry, file, jit_context_info(ctx));
  const char *tier = getenv("JIT_TIER");
  if (tier && !strcmp(tier, "cc") && strstr(jit_context_info(ctx), "no system compiler")) {
    printf("SKIP: JIT_TIER=cc and no system compiler\n");
    jit_context_destroy(ctx);
    dlclose(mod);
    free(src);
    return 77;
  }
  const char *tiling = getenv("JIT_TILING");
  g_refusals_ok =
      !expect_tiled && strcmp(device, "cpu") && tiling &&
      (!strcmp(tiling, "hybrid") || !strcmp(tiling, "split") || !strcmp(tiling, "time"));
  int failures = 0;
  for (int r = 0; r < nruns; r++)
    failures += run_config(ctx, src, ref, runs[r], nkv[r], fills, nfill, r);
  if (expect_tiled && !g_tiled) {
    fprintf(stderr, "FAIL %s: no configuration ran time-tiled\n", g_entry);
    failures++;
  }
  if (expect_flow_in && !g_flow_in) {
    fprintf(stderr, "FAIL %s: no configuration copied a full tile's flow-in\n", g_entry);
    failures++;
  }
  if (expect_dynamic) {
    failures += check_dynamic_shared(stats);
    unlink(stats);
  }
  if (g_reassociate && g_bound.expect_parallel && jit_context_device(ctx) != JIT_DEVICE_CPU &&
      !g_parallel) {
    fprintf(stderr, "FAIL %s: no configuration ran a reduction in parallel\n", g_entry);
    failures++;
  }
  jit_context_destroy(ctx);
  dlclose(mod);
  free(src);
  if (failures) {
    fprintf(stderr, "%s: %d failure(s)\n", file, failures);
    return 1;
  }
  if (g_reassociate && g_bound.terms[0])
    printf("%s: all %d configurations within the bound (%d with reductions in parallel)\n", g_entry,
           nruns, g_parallel);
  else
    printf("%s: all %d configurations bit-identical (%d time-tiled, %d refused time tiling)\n",
           g_entry, nruns - g_refused, g_tiled, g_refused);
  return 0;
}
