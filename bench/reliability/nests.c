/* nests: compile time and peak memory of kernels with many loop nests.
 *
 *   nests [--form flat|time|inplace] [--device cpu|emu] [--print] COUNT...
 *
 * For each COUNT, a child process generates a kernel of COUNT 2-D loop nests over four
 * arrays (each nest reads the array the previous one wrote, a 5-point stencil or a
 * pointwise update in turn), compiles it once on a fresh context and reports the
 * library's stage times, the wall clock and the child's peak resident memory
 * (getrusage). `flat` puts the nests one after the other; `time` puts them all inside one
 * time loop (the stencil form with COUNT nests); `inplace` is `time` with every nest updating its
 * array in place (not in stencil form: every pair of nests conflicts). A compile refused by the
 * compile budget (JIT_ERR_LIMIT) is reported as such with the time it took to refuse. --print
 * writes the generated kernel to stdout instead. */
#include <stenciljit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* form: 0 flat, 1 time (stencil form), 2 time with in-place nests (Gauss-Seidel-like, not
 * in stencil form: the time band's conflicts span all pairs of nests). */
static char *generate(int count, int form) {
  static const char *const arrays[] = {"A", "B", "C", "D"};
  sj_buf b = {0};
  sj_buf_printf(&b, "void nests(int T, int N, float A[N][N], float B[N][N], float C[N][N], "
                    "float D[N][N]) {\n");
  if (form) sj_buf_puts(&b, "  for (int t = 0; t < T; t++) {\n");
  for (int k = 0; k < count; k++) {
    const char *in = arrays[k % 4], *out = arrays[(k + 1) % 4];
    sj_buf_printf(&b, "  for (int i = 1; i < N - 1; i++)\n    for (int j = 1; j < N - 1; j++)\n");
    if (form == 2)
      sj_buf_printf(&b, "      %s[i][j] = 0.25f * (%s[i - 1][j] + %s[i][j - 1] + %s[i][j]);\n", out,
                    out, out, in);
    else if (k % 2 == 0)
      sj_buf_printf(&b,
                    "      %s[i][j] = 0.2f * (%s[i][j] + %s[i - 1][j] + %s[i + 1][j] + "
                    "%s[i][j - 1] + %s[i][j + 1]);\n",
                    out, in, in, in, in, in);
    else
      sj_buf_printf(&b, "      %s[i][j] = %s[i][j] * 0.5f + %d.0f;\n", out, in, k % 7);
  }
  if (form) sj_buf_puts(&b, "  }\n");
  sj_buf_puts(&b, "}\n");
  return sj_buf_take(&b);
}

typedef struct result {
  int status;
  double wall, model, deps, sched, ast, print, compile;
  long peak_kb;
  char msg[256];
} result;

/* In the child: one compile on a fresh context; the result goes back through a pipe. */
static void measure(int count, int form, jit_device dev, result *r) {
  char *src = generate(count, form);
  jit_context *ctx = jit_context_create(dev);
  if (!ctx) {
    r->status = -1;
    snprintf(r->msg, sizeof r->msg, "%s", jit_last_error());
    free(src);
    return;
  }
  jit_arg args[] = {JIT_INT(2),    JIT_INT(64),   JIT_PTR(NULL),
                    JIT_PTR(NULL), JIT_PTR(NULL), JIT_PTR(NULL)};
  jit_kernel *k = NULL;
  double t0 = now_s();
  r->status = jit_kernel_compile(ctx, src, NULL, args, 6, &k);
  r->wall = now_s() - t0;
  if (k) {
    jit_stage_times t;
    jit_kernel_stage_times(k, &t);
    r->model = t.model / 1e6, r->deps = t.dependences / 1e6, r->sched = t.schedule / 1e6;
    r->ast = t.ast / 1e6, r->print = t.print / 1e6, r->compile = t.compile / 1e6;
  } else {
    snprintf(r->msg, sizeof r->msg, "%s", jit_context_error(ctx));
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  free(src);
}

static int run_child(int count, int form, jit_device dev, result *r) {
  int fd[2];
  if (pipe(fd)) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    result cr;
    memset(&cr, 0, sizeof cr);
    measure(count, form, dev, &cr);
    ssize_t w = write(fd[1], &cr, sizeof cr);
    _exit(w == (ssize_t)sizeof cr ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = read(fd[0], r, sizeof *r);
  close(fd[0]);
  int st;
  struct rusage ru;
  if (wait4(pid, &st, 0, &ru) < 0) return -1;
  r->peak_kb = ru.ru_maxrss;
  if (got != (ssize_t)sizeof *r) {
    memset(r, 0, sizeof *r);
    r->status = -2;
    r->peak_kb = ru.ru_maxrss;
    snprintf(r->msg, sizeof r->msg, "child died (status 0x%x)", st);
  }
  return 0;
}

int main(int argc, char **argv) {
  static const char *const forms[] = {"flat", "time", "inplace"};
  int form = 0, print = 0;
  jit_device dev = JIT_DEVICE_CPU;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--form") && first + 1 < argc) {
      first++;
      form = !strcmp(argv[first], "time") ? 1 : !strcmp(argv[first], "inplace") ? 2 : 0;
    } else if (!strcmp(argv[first], "--device") && first + 1 < argc)
      dev = !strcmp(argv[++first], "emu") ? JIT_DEVICE_EMU : JIT_DEVICE_CPU;
    else if (!strcmp(argv[first], "--print"))
      print = 1;
    else
      break;
  }
  if (first >= argc) {
    fprintf(stderr,
            "usage: nests [--form flat|time|inplace] [--device cpu|emu] [--print] COUNT...\n");
    return 2;
  }
  if (print) {
    char *src = generate(atoi(argv[first]), form);
    fputs(src, stdout);
    free(src);
    return 0;
  }
  printf("| nests | form | status | wall (s) | model | deps | schedule | ast | print | compile "
         "| peak RSS (MB) |\n|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  fflush(stdout);
  int bad = 0;
  for (int a = first; a < argc; a++) {
    int count = atoi(argv[a]);
    result r;
    memset(&r, 0, sizeof r);
    if (count < 1 || run_child(count, form, dev, &r)) {
      fprintf(stderr, "nests: bad count %s\n", argv[a]);
      return 2;
    }
    const char *status = r.status == JIT_OK          ? "ok"
                         : r.status == JIT_ERR_LIMIT ? "refused (limit)"
                                                     : "FAILED";
    printf("| %d | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f |\n", count,
           forms[form], status, r.wall, r.model, r.deps, r.sched, r.ast, r.print, r.compile,
           r.peak_kb / 1024.0);
    if (r.status) fprintf(stderr, "nests %d: status %d: %s\n", count, r.status, r.msg);
    if (r.status && r.status != JIT_ERR_LIMIT) bad = 1;
    fflush(stdout);
  }
  return bad;
}
