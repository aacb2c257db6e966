/* stenciljit cache list|clear|size: the on-disk cache's directory as the library names it
 * from the environment. */
#include "jit/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/diskcache.h"

static void human(char *buf, size_t len, unsigned long long bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* The entries, or NULL after saying why not. */
static sj_disk_entry *entries(sj_disk *d, size_t *n, uint64_t *total) {
  sj_disk_entry *e;
  if (sj_disk_list(d, &e, n, total) == 0) return e;
  fprintf(stderr, "stenciljit: cache %s: %s\n", sj_disk_dir(d), strerror(errno));
  return NULL;
}

static int list(sj_disk *d) {
  size_t n;
  uint64_t total;
  sj_disk_entry *e = entries(d, &n, &total);
  if (!e) return SJ_EXIT_DEVICE;
  if (n) printf("%-19s %10s  %-5s  %s\n", "last used", "size", "kind", "kernel");
  for (size_t i = 0; i < n; i++) {
    char when[32], size[32];
    struct tm tm;
    time_t t = e[i].used.tv_sec;
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
    human(size, sizeof size, e[i].bytes);
    printf("%-19s %10s  %-5s  %s\n", when, size, e[i].kind, e[i].label[0] ? e[i].label : "?");
  }
  char sum[32];
  human(sum, sizeof sum, total);
  printf("%zu entr%s, %s in %s\n", n, n == 1 ? "y" : "ies", sum, sj_disk_dir(d));
  free(e);
  return 0;
}

static int size(sj_disk *d) {
  size_t n;
  uint64_t total;
  sj_disk_entry *e = entries(d, &n, &total);
  if (!e) return SJ_EXIT_DEVICE;
  free(e);
  char sum[32], bound[32];
  human(sum, sizeof sum, total);
  human(bound, sizeof bound, sj_disk_bound(d));
  printf("%llu bytes (%s) in %zu entr%s, bound %s: %s\n", (unsigned long long)total, sum, n,
         n == 1 ? "y" : "ies", bound, sj_disk_dir(d));
  return 0;
}

static int clear(sj_disk *d) {
  long n = sj_disk_clear(d);
  if (n < 0) {
    fprintf(stderr, "stenciljit: cache %s: %s\n", sj_disk_dir(d), strerror(errno));
    return SJ_EXIT_DEVICE;
  }
  printf("removed %ld file%s from %s\n", n, n == 1 ? "" : "s", sj_disk_dir(d));
  return 0;
}

int sj_cli_cache(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : NULL;
  if (what && (!strcmp(what, "--help") || !strcmp(what, "-h")))
    return sj_cli_help(stdout, "cache"), 0;
  int (*run)(sj_disk *) = !what                    ? NULL
                          : !strcmp(what, "list")  ? list
                          : !strcmp(what, "clear") ? clear
                          : !strcmp(what, "size")  ? size
                                                   : NULL;
  if (!run || argc > 2) {
    fprintf(stderr, "stenciljit: cache needs one of list, clear, size%s%s\n", what ? ": " : "",
            what ? what : "");
    sj_cli_help(stderr, "cache");
    return SJ_EXIT_USAGE;
  }
  sj_disk *d = sj_disk_open_env(1);
  if (!d) {
    fprintf(stderr, "stenciljit: no cache directory: set JIT_CACHE_DIR, XDG_CACHE_HOME or HOME\n");
    return SJ_EXIT_USAGE;
  }
  if (sj_disk_off_env())
    printf("(JIT_CACHE=%s: the library does not use it)\n", getenv("JIT_CACHE"));
  int code = run(d);
  sj_disk_close(d);
  return code;
}
