/* stenciljit: command-line front end of the library.
 *
 *   stenciljit run FILE.c [options]       run on deterministic pseudo-random data, time it
 *   stenciljit c FILE.c [options]         print the generated C
 *   stenciljit ptx FILE.c [options]       print the generated PTX
 *   stenciljit schedule FILE.c [options]  explain the chosen schedule
 *   stenciljit cache list|clear|size      the on-disk kernel cache
 *   stenciljit help [COMMAND], COMMAND --help, --version
 *
 * Exit codes: 0 ok, 1 usage, 2 bad input (syntax, arguments, unreadable file), 3 kernel
 * outside the supported subset, 4 --check found a difference, 5 device or internal error. */
#include <stenciljit.h>
#include "base/file.h"
#include "jit/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_PARAMS = 64, MAX_DEFINES = 64 };

typedef struct define {
  const char *name; /* points into argv; '=' replaced by a copy */
  size_t name_len;
  const char *value;
  int used;
} define;

/* --fill NAME=LO..HI: the values of an array's elements */
typedef struct fill_range {
  const char *name; /* points into argv, name_len long */
  size_t name_len;
  long lo, hi;
} fill_range;

typedef struct cli {
  const char *cmd, *file, *entry;
  jit_device device;
  int device_given, check, repeat, corrupt, fast_math, reassociate, threads;
  const char *tile;
  define defs[MAX_DEFINES];
  int ndefs;
  fill_range fills[MAX_PARAMS];
  int nfills;
} cli;

/* The message, then the help of the command at fault (the overview before one is known). */
static int usage_error(const cli *c, const char *what, const char *arg) {
  fprintf(stderr, "stenciljit: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  sj_cli_help(stderr, c->cmd);
  return SJ_EXIT_USAGE;
}

static int is_help(const char *a) {
  return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* Commands that take no kernel file; *code is their exit code. */
static int other_command(int argc, char **argv, int *code) {
  const char *a = argv[1];
  if (is_help(a) || !strcmp(a, "help")) {
    const char *topic = strcmp(a, "help") || argc < 3 ? NULL : argv[2];
    if (sj_cli_help(stdout, topic) == 0) return *code = 0, 1;
    fprintf(stderr, "stenciljit: help: unknown command: %s\n", topic);
    sj_cli_help(stderr, NULL);
    return *code = SJ_EXIT_USAGE, 1;
  }
  if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
    printf("stenciljit %s (library %s)\n", STENCILJIT_VERSION, jit_version());
    return *code = 0, 1;
  }
  if (!strcmp(a, "cache")) return *code = sj_cli_cache(argc - 1, argv + 1), 1;
  return 0;
}

static int status_exit(int st) {
  switch (st) {
  case JIT_OK:
    return 0;
  case JIT_ERR_SYNTAX:
  case JIT_ERR_ARGS:
    return SJ_EXIT_INPUT;
  case JIT_ERR_UNSUPPORTED:
  case JIT_ERR_LIMIT:
    return SJ_EXIT_UNSUPPORTED;
  default:
    return SJ_EXIT_DEVICE;
  }
}

static int parse_device(const char *s, jit_device *out) {
  static const struct {
    const char *name;
    jit_device dev;
  } devs[] = {{"auto", JIT_DEVICE_AUTO},
              {"cpu", JIT_DEVICE_CPU},
              {"emu", JIT_DEVICE_EMU},
              {"cuda", JIT_DEVICE_CUDA}};
  for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++)
    if (strcmp(s, devs[i].name) == 0) {
      *out = devs[i].dev;
      return 1;
    }
  return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* NAME=LO..HI, LO <= HI, into *f; 0 if malformed. */
static int parse_fill(const char *s, fill_range *f) {
  const char *eq = strchr(s, '='), *dots = eq ? strstr(eq, "..") : NULL;
  if (!eq || eq == s || !dots) return 0;
  char lo[32], *end;
  size_t n = (size_t)(dots - eq - 1);
  if (n == 0 || n >= sizeof lo) return 0;
  memcpy(lo, eq + 1, n);
  lo[n] = '\0';
  errno = 0;
  f->lo = strtol(lo, &end, 10);
  if (errno || *end) return 0;
  f->hi = strtol(dots + 2, &end, 10);
  if (errno || *end || end == dots + 2 || f->hi < f->lo) return 0;
  f->name = s;
  f->name_len = (size_t)(eq - s);
  return 1;
}

static int parse_args(int argc, char **argv, cli *c) {
  memset(c, 0, sizeof *c);
  c->repeat = 1;
  c->device = JIT_DEVICE_AUTO;
  if (argc < 2) return usage_error(c, "no command", NULL);
  c->cmd = argv[1];
  if (strcmp(c->cmd, "run") && strcmp(c->cmd, "c") && strcmp(c->cmd, "ptx") &&
      strcmp(c->cmd, "schedule")) {
    c->cmd = NULL;
    return usage_error(c, "unknown command", argv[1]);
  }
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    long v;
    if (strncmp(a, "-D", 2) == 0) {
      const char *d = a[2] ? a + 2 : next;
      if (!a[2]) i++;
      if (!d) return usage_error(c, "-D needs NAME=VALUE", NULL);
      const char *eq = strchr(d, '=');
      if (!eq || eq == d || !eq[1]) return usage_error(c, "-D needs NAME=VALUE", d);
      if (c->ndefs == MAX_DEFINES) return usage_error(c, "too many -D", NULL);
      c->defs[c->ndefs].name = d;
      c->defs[c->ndefs].name_len = (size_t)(eq - d);
      c->defs[c->ndefs].value = eq + 1;
      c->ndefs++;
    } else if (strcmp(a, "--entry") == 0) {
      if (!next) return usage_error(c, "--entry needs a function name", NULL);
      c->entry = argv[++i];
    } else if (strcmp(a, "--device") == 0) {
      if (!next || !parse_device(next, &c->device))
        return usage_error(c, "--device needs auto|cpu|emu|cuda", next);
      c->device_given = 1;
      i++;
    } else if (strcmp(a, "--repeat") == 0) {
      if (!next || !parse_int(next, 1, 1000000, &v))
        return usage_error(c, "--repeat needs a positive count", next);
      c->repeat = (int)v;
      i++;
    } else if (strcmp(a, "--threads") == 0) {
      if (!next || !parse_int(next, 0, 4096, &v))
        return usage_error(c, "--threads needs a count", next);
      c->threads = (int)v;
      i++;
    } else if (strcmp(a, "--tier") == 0 || strcmp(a, "--tiling") == 0) {
      /* the library reads these when a context is made: the tool's own run only */
      if (!next)
        return usage_error(c, "--tier needs tcc|cc|auto, --tiling auto|time|hybrid|split|none",
                           NULL);
      setenv(a[6] ? "JIT_TILING" : "JIT_TIER", argv[++i], 1);
    } else if (strcmp(a, "--tile") == 0) {
      if (!next) return usage_error(c, "--tile needs h=H,w=W0xW1... or none", NULL);
      c->tile = argv[++i];
    } else if (strcmp(a, "--fill") == 0) {
      if (!next || c->nfills == MAX_PARAMS || !parse_fill(next, &c->fills[c->nfills]))
        return usage_error(c, "--fill needs NAME=LO..HI (integers, LO <= HI)", next);
      c->nfills++;
      i++;
    } else if (strcmp(a, "--check") == 0) {
      c->check = 1;
    } else if (strcmp(a, "--fast-math") == 0) {
      c->fast_math = 1;
    } else if (strcmp(a, "--reassociate") == 0) {
      c->reassociate = 1;
    } else if (strcmp(a, "--corrupt-result") == 0) {
      c->corrupt = 1;
    } else if (is_help(a)) {
      sj_cli_help(stdout, c->cmd);
      exit(0);
    } else if (a[0] == '-' && a[1]) {
      return usage_error(c, "unknown option", a);
    } else if (!c->file) {
      c->file = a;
    } else {
      return usage_error(c, "more than one input file", a);
    }
  }
  if (!c->file) return usage_error(c, "no input file", NULL);
  if (strcmp(c->cmd, "run") && (c->check || c->repeat != 1 || c->corrupt || c->nfills))
    return usage_error(c, "--check, --repeat, --fill and --corrupt-result apply to run only", NULL);
  return 0;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Deterministic data: integers lo..hi (of any element size), floating values in [lo, hi);
 * range NULL: integers 0..9 (a bool 0..1), floating values in [-1, 1). */
static void fill(void *p, jit_arg_kind k, size_t n, uint64_t seed, const fill_range *range) {
  size_t es = jit_elem_size(k);
  /* the span in doubles and the count in unsigned: hi - lo may not fit in a long */
  double lo = range ? (double)range->lo : -1.0,
         span = range ? (double)range->hi - (double)range->lo : 2.0;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = splitmix(&seed);
    if (k == JIT_ARG_FLOAT) {
      ((float *)p)[i] = (float)(lo + span * (double)(r >> 40) * 0x1p-24);
    } else if (k == JIT_ARG_DOUBLE) {
      ((double *)p)[i] = lo + span * (double)(r >> 11) * 0x1p-53;
    } else {
      uint64_t count = range                ? (uint64_t)range->hi - (uint64_t)range->lo + 1
                       : k == JIT_ELEM_BOOL ? 2
                                            : 10;
      uint64_t v = (range ? (uint64_t)range->lo : 0) + (count ? r % count : r);
      unsigned char *e = (unsigned char *)p + i * es;
      for (size_t b = 0; b < es; b++) e[b] = (unsigned char)(v >> (8 * b)); /* little-endian */
    }
  }
}

/* The --fill range of the parameter named name, or NULL. */
static const fill_range *fill_of(const cli *c, const char *name) {
  for (int i = 0; i < c->nfills; i++)
    if (strlen(name) == c->fills[i].name_len &&
        !strncmp(name, c->fills[i].name, c->fills[i].name_len))
      return &c->fills[i];
  return NULL;
}

static double elem_value(const void *p, jit_arg_kind k, size_t i) {
  switch ((int)k) {
  case JIT_ARG_INT:
    return ((const int *)p)[i];
  case JIT_ARG_LONG:
    return (double)((const long *)p)[i];
  case JIT_ARG_FLOAT:
    return ((const float *)p)[i];
  case JIT_ARG_DOUBLE:
    return ((const double *)p)[i];
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
    return ((const unsigned *)p)[i];
  default:
    return (double)((const unsigned long *)p)[i];
  }
}

static int fail_ctx(jit_context *ctx, int st) {
  const char *msg = jit_context_error(ctx);
  fprintf(stderr, "%s\n", msg && *msg ? msg : "stenciljit: failed without a message");
  return status_exit(st);
}

/* Builds the argument list from the -D definitions; pointers stay NULL. */
static int build_args(const cli *c, const jit_param_info *params, int np, jit_arg *args,
                      define *defs) {
  for (int i = 0; i < np; i++) {
    const char *v = NULL;
    for (int d = 0; d < c->ndefs; d++)
      if (strlen(params[i].name) == defs[d].name_len &&
          strncmp(params[i].name, defs[d].name, defs[d].name_len) == 0) {
        v = defs[d].value;
        defs[d].used = 1;
      }
    char *end;
    long l;
    switch (params[i].kind) {
    case JIT_ARG_INT:
    case JIT_ARG_LONG:
      if (!v) {
        fprintf(stderr, "%s: no value for parameter %s: add -D %s=VALUE\n", c->file, params[i].name,
                params[i].name);
        return SJ_EXIT_INPUT;
      }
      if (!parse_int(v, params[i].kind == JIT_ARG_INT ? INT_MIN : LONG_MIN,
                     params[i].kind == JIT_ARG_INT ? INT_MAX : LONG_MAX, &l)) {
        fprintf(stderr, "%s: parameter %s is %s: %s is not a valid value\n", c->file,
                params[i].name, params[i].kind == JIT_ARG_INT ? "int" : "long", v);
        return SJ_EXIT_INPUT;
      }
      args[i] = params[i].kind == JIT_ARG_INT ? JIT_INT((int)l) : JIT_LONG(l);
      break;
    case JIT_ARG_FLOAT:
    case JIT_ARG_DOUBLE: {
      double x = 0.75;
      if (v) {
        x = strtod(v, &end);
        if (end == v || *end) {
          fprintf(stderr, "%s: parameter %s: %s is not a number\n", c->file, params[i].name, v);
          return SJ_EXIT_INPUT;
        }
      }
      args[i] = params[i].kind == JIT_ARG_FLOAT ? JIT_FLOAT((float)x) : JIT_DOUBLE(x);
      break;
    }
    case JIT_ARG_PTR:
      if (v) {
        fprintf(stderr, "%s: parameter %s is an array and takes no -D value\n", c->file,
                params[i].name);
        return SJ_EXIT_INPUT;
      }
      args[i] = JIT_PTR(NULL);
      break;
    }
  }
  for (int d = 0; d < c->ndefs; d++)
    if (!defs[d].used) {
      fprintf(stderr, "%s: -D %.*s: the function has no such parameter\n", c->file,
              (int)defs[d].name_len, defs[d].name);
      return SJ_EXIT_INPUT;
    }
  return 0;
}

static const char *device_name(jit_device d) {
  switch (d) {
  case JIT_DEVICE_CPU:
    return "cpu";
  case JIT_DEVICE_EMU:
    return "emu";
  case JIT_DEVICE_CUDA:
    return "cuda";
  default:
    return "auto";
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The medians of both sides and what they make per second. */
static void throughput(long long updates, double jit_ms, double ref_ms) {
  printf("check: %lld updates per run (statement instances)\n", updates);
  printf("check:              median time    updates/s\n");
  const char *who[] = {"stenciljit", "reference"};
  const double ms[] = {jit_ms, ref_ms};
  for (int i = 0; i < 2; i++) {
    if (updates >= 0 && ms[i] > 0)
      printf("check: %-10s %12.3f ms %12.4g\n", who[i], ms[i], (double)updates / (ms[i] * 1e-3));
    else
      printf("check: %-10s %12.3f ms %12s\n", who[i], ms[i], "-");
  }
  printf("check: (the reference is the function itself, compiled by TinyCC on each run and "
         "run on one thread)\n");
}

static int do_run(const cli *c, jit_context *ctx, const char *src, jit_kernel *k, jit_arg *args,
                  int np) {
  void *data[MAX_PARAMS] = {0}, *ref[MAX_PARAMS] = {0};
  double *times = NULL, *ref_times = NULL;
  size_t bytes[MAX_PARAMS] = {0};
  int code = 0;
  size_t total_bytes = 0;
  for (int f = 0; f < c->nfills; f++) {
    int found = 0;
    for (int i = 0; i < np && !found; i++)
      found = jit_kernel_param(k, i)->kind == JIT_ARG_PTR &&
              fill_of(c, jit_kernel_param(k, i)->name) == &c->fills[f];
    if (!found) {
      fprintf(stderr, "stenciljit: --fill: the kernel has no array %.*s\n",
              (int)c->fills[f].name_len, c->fills[f].name);
      return SJ_EXIT_USAGE;
    }
  }
  for (int i = 0; i < np; i++) {
    const jit_param_info *p = jit_kernel_param(k, i);
    if (p->kind != JIT_ARG_PTR) continue;
    bytes[i] = p->elems * jit_elem_size(p->elem_kind);
    total_bytes += bytes[i];
    data[i] = malloc(bytes[i] ? bytes[i] : 1);
    if (c->check) ref[i] = malloc(bytes[i] ? bytes[i] : 1);
    if (!data[i] || (c->check && !ref[i])) {
      fprintf(stderr, "stenciljit: out of memory for %s (%zu bytes)\n", p->name, bytes[i]);
      code = SJ_EXIT_DEVICE;
      goto out;
    }
    fill(data[i], p->elem_kind, p->elems, 0x5eed0000u + (uint64_t)i, fill_of(c, p->name));
    if (c->check) memcpy(ref[i], data[i], bytes[i]);
    args[i] = JIT_PTR(data[i]);
  }
  printf("arrays: %.1f MiB\n", (double)total_bytes / (1024.0 * 1024.0));

  times = malloc(sizeof(double) * (size_t)c->repeat * 2);
  ref_times = times ? times + c->repeat : NULL;
  if (!times) {
    code = SJ_EXIT_DEVICE;
    goto out;
  }
  for (int r = 0; r < c->repeat; r++) {
    int tier = jit_kernel_tier(k); /* what the run starts with, read just before */
    double t0 = now_ms();
    int st = jit_stencil_run(ctx, src, c->entry, args, np);
    times[r] = now_ms() - t0;
    if (st != JIT_OK) {
      code = fail_ctx(ctx, st);
      goto out;
    }
    printf("run %d: time %.3f ms", r + 1, times[r]);
    /* the cache serves k itself: its events time the launches alone */
    double device = jit_kernel_last_device_time(k);
    if (device >= 0) printf(", device %.3f ms", device);
    printf(tier ? " (tier %d)\n" : "\n", tier);
  }
  qsort(times, (size_t)c->repeat, sizeof(double), cmp_double);
  printf("time per run: min %.3f ms, median %.3f ms (%d run%s)\n", times[0], times[c->repeat / 2],
         c->repeat, c->repeat > 1 ? "s" : "");
  jit_stats stats;
  jit_context_stats(ctx, &stats);
  printf("context: %lu compile(s), %lu cache hit(s), %lu run(s)\n", stats.compiles,
         stats.cache_hits, stats.runs);

  if (c->check) {
    jit_arg rargs[MAX_PARAMS];
    memcpy(rargs, args, sizeof(jit_arg) * (size_t)np);
    for (int i = 0; i < np; i++)
      if (ref[i]) rargs[i] = JIT_PTR(ref[i]);
    for (int r = 0; r < c->repeat; r++) {
      double t0 = now_ms();
      int st = jit_reference_run(ctx, src, c->entry, rargs, np);
      ref_times[r] = now_ms() - t0;
      if (st != JIT_OK) {
        code = fail_ctx(ctx, st);
        goto out;
      }
    }
    qsort(ref_times, (size_t)c->repeat, sizeof(double), cmp_double);
    throughput(jit_kernel_updates(k), times[c->repeat / 2], ref_times[c->repeat / 2]);
    if (c->corrupt) /* flip the lowest bit of the first element of the first non-empty array */
      for (int i = 0; i < np; i++)
        if (data[i] && bytes[i]) {
          ((unsigned char *)data[i])[0] ^= 1;
          break;
        }
    int identical = 1;
    double maxdiff = 0;
    for (int i = 0; i < np; i++) {
      if (!data[i]) continue;
      const jit_param_info *p = jit_kernel_param(k, i);
      size_t es = jit_elem_size(p->elem_kind), ndiff = 0;
      double arrdiff = 0;
      for (size_t e = 0; e < p->elems; e++) {
        if (memcmp((char *)data[i] + e * es, (char *)ref[i] + e * es, es) == 0) continue;
        ndiff++;
        double d = fabs(elem_value(data[i], p->elem_kind, e) - elem_value(ref[i], p->elem_kind, e));
        if (d > arrdiff || d != d) arrdiff = d;
      }
      if (ndiff) {
        identical = 0;
        printf("check: %s: %zu of %zu elements differ, largest absolute difference %.9g\n", p->name,
               ndiff, p->elems, arrdiff);
      }
      if (arrdiff > maxdiff || arrdiff != arrdiff) maxdiff = arrdiff;
    }
    printf("check: largest absolute difference %.9g; %s\n", maxdiff,
           identical ? "bit-identical to the reference" : "NOT bit-identical to the reference");
    if (!identical) code = SJ_EXIT_CHECK;
    /* only on a difference: the explanation computes the exact dependences, which can cost
     * more than the compile (seconds for a nest of 64 statements) */
    const char *sched = identical ? NULL : jit_kernel_schedule(k);
    const char *note = sched ? strstr(sched, "\nmath: ") : NULL;
    if (note) /* expected: the explanation says which functions, and why */
      printf("check: the kernel calls %.*s\n", (int)strcspn(note + 7, "\n"), note + 7);
  }
out:
  free(times);
  for (int i = 0; i < np; i++) {
    free(data[i]);
    free(ref[i]);
  }
  return code;
}

int main(int argc, char **argv) {
  cli c;
  int code;
  if (argc >= 2 && other_command(argc, argv, &code)) return code;
  code = parse_args(argc, argv, &c);
  if (code) return code;

  char *src = sj_read_file(c.file, NULL);
  if (!src) {
    fprintf(stderr, "stenciljit: %s: cannot read: %s\n", c.file, strerror(errno));
    return SJ_EXIT_INPUT;
  }
  jit_device dev = c.device;
  jit_context *ctx = jit_context_create(dev);
  if (!ctx) {
    fprintf(stderr, "stenciljit: device %s: %s\n", device_name(dev), jit_last_error());
    free(src);
    return SJ_EXIT_DEVICE;
  }
  jit_options opts;
  memset(&opts, 0, sizeof opts);
  opts.source_name = c.file;
  opts.fast_math = c.fast_math;
  opts.reassociate = c.reassociate;
  opts.threads = c.threads;
  opts.tile = c.tile;
  if (jit_context_set_options(ctx, &opts)) {
    fprintf(stderr, "stenciljit: %s\n", jit_context_error(ctx));
    jit_context_destroy(ctx);
    free(src);
    return SJ_EXIT_USAGE;
  }

  jit_param_info params[MAX_PARAMS];
  jit_arg args[MAX_PARAMS];
  int np = 0;
  jit_kernel *k = NULL;
  int st = jit_function_params(ctx, src, c.entry, params, MAX_PARAMS, &np);
  if (st != JIT_OK) {
    code = fail_ctx(ctx, st);
    goto out;
  }
  if (np > MAX_PARAMS) {
    fprintf(stderr, "%s: more than %d parameters\n", c.file, MAX_PARAMS);
    code = SJ_EXIT_INPUT;
    goto out;
  }
  code = build_args(&c, params, np, args, c.defs);
  if (code) goto out;

  double t0 = now_ms();
  st = jit_kernel_compile(ctx, src, c.entry, args, np, &k);
  double t_compile = now_ms() - t0;
  if (st != JIT_OK) {
    code = fail_ctx(ctx, st);
    goto out;
  }

  if (strcmp(c.cmd, "ptx") == 0 && !jit_kernel_code(k, JIT_CODE_PTX) && !c.device_given &&
      jit_context_device(ctx) != JIT_DEVICE_EMU) {
    /* The default device runs C: print what the emulator device (the GPU path) would load. */
    jit_kernel_release(k);
    k = NULL;
    jit_context_destroy(ctx);
    ctx = jit_context_create(JIT_DEVICE_EMU);
    if (!ctx) {
      fprintf(stderr, "stenciljit: no PTX on the default device and device emu: %s\n",
              jit_last_error());
      code = SJ_EXIT_DEVICE;
      goto out;
    }
    jit_context_set_options(ctx, &opts);
    st = jit_kernel_compile(ctx, src, c.entry, args, np, &k);
    if (st != JIT_OK) {
      code = fail_ctx(ctx, st);
      goto out;
    }
  }

  if (strcmp(c.cmd, "run") == 0) {
    jit_stage_times tm;
    jit_kernel_stage_times(k, &tm);
    printf("device: %s\n", jit_context_info(ctx));
    printf("compile: %.3f ms (parse %.0f, model %.0f, dependences %.0f, schedule %.0f, ast %.0f, "
           "print %.0f, compile %.0f us)\n",
           t_compile, tm.parse, tm.model, tm.dependences, tm.schedule, tm.ast, tm.print,
           tm.compile);
    code = do_run(&c, ctx, src, k, args, np);
  } else if (strcmp(c.cmd, "schedule") == 0) {
    const char *s = jit_kernel_schedule(k);
    if (!s) {
      fprintf(stderr, "stenciljit: no schedule description\n");
      code = SJ_EXIT_DEVICE;
    } else {
      fputs(s, stdout);
      if (*s && s[strlen(s) - 1] != '\n') putchar('\n');
    }
  } else {
    int want_ptx = strcmp(c.cmd, "ptx") == 0;
    const char *s = jit_kernel_code(k, want_ptx ? JIT_CODE_PTX : JIT_CODE_C);
    if (!s) {
      fprintf(stderr, "stenciljit: no %s code for device %s\n", want_ptx ? "PTX" : "C",
              device_name(jit_kernel_device(k)));
      code = SJ_EXIT_DEVICE;
    } else {
      fputs(s, stdout);
      if (*s && s[strlen(s) - 1] != '\n') putchar('\n');
    }
  }
out:
  if (k) jit_kernel_release(k);
  if (ctx) jit_context_destroy(ctx);
  free(src);
  return code;
}
