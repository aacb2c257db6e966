/* vectorize_test: the second tier's C must let the system compiler vectorize the innermost
 * loops. jacobi-2d and heat-3d at the benchmark's sizes, time-tiled and untiled, are compiled
 * under JIT_TIER=cc; their C is compiled again by the same compiler with the same flags plus
 * -fopt-info-vec-optimized, and every innermost loop of the text must be reported vectorized.
 *
 *   vectorize_test KERNEL_DIR
 *
 * Exits 77 (skipped) when there is no system compiler, or it is not one that knows
 * -fopt-info-vec (gcc). */
#include <stenciljit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"

#define SKIP 77

typedef struct vcase {
  const char *file, *entry;
  int nargs;
  long ints[5]; /* T, then the sizes */
} vcase;

static const vcase cases[] = {
    {"jacobi2d_5pt.c", "jacobi2d", 3, {64, 4096, 4096}},
    {"heat3d_27pt.c", "heat3d_27pt", 4, {64, 256, 256, 256}},
};

/* The compiler and its flags, from the explanation's tier line:
 * "... as JIT_TIER=cc asks: CC's code (compiled ...; FLAGS)". 0, or -1 when absent. */
static int compiler_of(const char *why, char *cc, size_t cc_cap, char *flags, size_t fl_cap) {
  const char *a = strstr(why, "asks: "), *b = a ? strstr(a, "'s code (") : NULL;
  const char *line_end = b ? strchr(b, '\n') : NULL;
  if (!b || !line_end) return -1;
  const char *semi = NULL;
  for (const char *p = b; p < line_end; p++)
    if (*p == ';') semi = p;
  if (!semi || line_end[-1] != ')') return -1;
  snprintf(cc, cc_cap, "%.*s", (int)(b - (a + 6)), a + 6);
  snprintf(flags, fl_cap, "%.*s", (int)(line_end - 1 - (semi + 2)), semi + 2);
  return 0;
}

/* Whether the loop whose `for (` starts at p has a loop in its body. */
static int has_inner_loop(const char *p) {
  const char *open = strchr(p, '{');
  int depth = 0;
  for (const char *q = open; q && *q; q++) {
    if (*q == '{') depth++;
    if (*q == '}' && --depth == 0) return 0;
    if (q > open && !strncmp(q, "for (", 5)) return 1;
  }
  return 0;
}

/* Every innermost loop of c must be reported vectorized in log (gcc's "FILE:LINE:COL:
 * optimized: loop vectorized"); returns how many innermost loops there were, -1 if one was
 * not. */
static int check_loops(const char *c, const char *log, const char *name) {
  int line = 1, n = 0, bad = 0;
  for (const char *p = c; *p; p++) {
    if (*p == '\n') line++;
    if (strncmp(p, "for (", 5) || has_inner_loop(p)) continue;
    n++;
    char want[64];
    snprintf(want, sizeof want, ".c:%d:", line);
    int ok = 0;
    for (const char *l = log; (l = strstr(l, want)) && !ok; l++) {
      const char *e = strchr(l, '\n');
      const char *v = strstr(l, "optimized: loop vectorized");
      ok = v && (!e || v < e);
    }
    if (!ok) {
      fprintf(stderr, "FAIL %s: the innermost loop at line %d is not vectorized\n", name, line);
      bad = 1;
    }
  }
  return bad ? -1 : n;
}

/* vc compiled under JIT_TILING=tiling in a context of its own; 0 when its loops vectorize. */
static int run_case(const char *dir, const vcase *vc, const char *tiling) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, vc->file);
  char *src = sj_read_file(path, NULL);
  if (!src) {
    fprintf(stderr, "FAIL: cannot read %s\n", path);
    return 1;
  }
  setenv("JIT_TILING", tiling, 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "FAIL: jit_context_create: %s\n", jit_last_error());
    free(src);
    return 1;
  }
  jit_arg args[6];
  int na = 0;
  for (int i = 0; i < vc->nargs; i++) args[na++] = JIT_INT((int)vc->ints[i]);
  args[na++] = JIT_PTR(NULL);
  jit_kernel *k = NULL;
  int fails = 1;
  char name[128];
  snprintf(name, sizeof name, "%s (tiling %s)", vc->entry, tiling);
  if (jit_kernel_compile(ctx, src, vc->entry, args, na, &k) != JIT_OK) {
    fprintf(stderr, "FAIL %s: %s\n", name, jit_context_error(ctx));
    jit_context_destroy(ctx);
    free(src);
    return 1;
  }
  const char *why = jit_kernel_schedule(k), *c = jit_kernel_code(k, JIT_CODE_C);
  char cc[1024], flags[512], dirname[] = "/tmp/sj-vectorize-XXXXXX";
  if (!why || !c || compiler_of(why, cc, sizeof cc, flags, sizeof flags)) {
    fprintf(stderr, "FAIL %s: no tier-2 line in the explanation:\n%s\n", name, why ? why : "");
    goto out;
  }
  int tiled = strstr(why, "\n  time-tiled") != NULL;
  if (tiled != !strcmp(tiling, "time")) {
    fprintf(stderr, "FAIL %s: the schedule is %stime-tiled\n", name, tiled ? "" : "not ");
    goto out;
  }
  if (!mkdtemp(dirname)) goto out;
  char cfile[256], ofile[256], logfile[256], cmd[8192];
  snprintf(cfile, sizeof cfile, "%s/k.c", dirname);
  snprintf(ofile, sizeof ofile, "%s/k.so", dirname);
  snprintf(logfile, sizeof logfile, "%s/log", dirname);
  FILE *f = fopen(cfile, "w");
  if (f) fputs(c, f);
  if (!f || fclose(f)) goto clean;
  snprintf(cmd, sizeof cmd, "'%s' %s -fopt-info-vec-optimized '%s' -o '%s' 2>'%s'", cc, flags,
           cfile, ofile, logfile);
  if (system(cmd) != 0) {
    fprintf(stderr, "FAIL %s: %s failed\n", name, cmd);
    goto clean;
  }
  char *log = sj_read_file(logfile, NULL);
  int n = log ? check_loops(c, log, name) : -1;
  if (n > 0) {
    printf("ok   %s: %d innermost loop%s vectorized by %s\n", name, n, n == 1 ? "" : "s", cc);
    fails = 0;
  } else if (n == 0)
    fprintf(stderr, "FAIL %s: no innermost loop found in the C\n", name);
  free(log);
clean:
  unlink(cfile);
  unlink(ofile);
  unlink(logfile);
  rmdir(dirname);
out:
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  free(src);
  return fails;
}

/* Whether the system compiler ("cc", as the library looks first) takes -fopt-info-vec. */
static int compiler_knows_opt_info(void) {
  const char *cc = getenv("JIT_CC");
  char cmd[1200];
  snprintf(cmd, sizeof cmd,
           "echo 'int x;' | '%s' -fopt-info-vec-optimized -x c -c - -o /dev/null "
           ">/dev/null 2>&1",
           cc && *cc ? cc : "cc");
  return system(cmd) == 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: vectorize_test KERNEL_DIR\n");
    return 2;
  }
  setenv("JIT_TIER", "cc", 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "FAIL: jit_context_create: %s\n", jit_last_error());
    return 1;
  }
  if (strstr(jit_context_info(ctx), "no system compiler") || !compiler_knows_opt_info()) {
    printf("SKIP: no system compiler that knows -fopt-info-vec\n");
    jit_context_destroy(ctx);
    return SKIP;
  }
  jit_context_destroy(ctx);
  int fails = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fails += run_case(argv[1], &cases[i], "time");
    fails += run_case(argv[1], &cases[i], "none");
  }
  return fails ? 1 : 0;
}
