/* The on-disk store (jit/diskcache.c) on its own: round trip, corrupt and torn entries,
 * eviction, the environment, and two processes writing and reading one directory at once.
 *
 *   diskcache_test CASE     (each case works in a fresh directory under $TMPDIR or /tmp) */
#include "jit/diskcache.h"
#include "cache_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t dir_bytes(size_t *entries) {
  sj_disk *d = sj_disk_open(dir, 1);
  sj_disk_entry *v;
  size_t n;
  uint64_t total;
  if (sj_disk_list(d, &v, &n, &total)) total = (uint64_t)-1;
  free(v);
  sj_disk_close(d);
  if (entries) *entries = n;
  return total;
}

static void case_roundtrip(void) {
  sj_disk *d = sj_disk_open(dir, 1 << 20);
  const char blob[] = "binary\0blob with a NUL";
  CHECK(sj_disk_get(d, "ptx", "key one", NULL) == NULL, "hit in an empty store");
  CHECK(sj_disk_put(d, "ptx", "key one", "the label", blob, sizeof blob) == 0, "put: %s",
        strerror(errno));
  size_t len = 0;
  char *got = sj_disk_get(d, "ptx", "key one", &len);
  CHECK(got && len == sizeof blob && !memcmp(got, blob, sizeof blob), "round trip (len %zu)", len);
  CHECK(got && got[len] == 0, "no NUL after the blob");
  free(got);
  CHECK(!sj_disk_get(d, "ptx", "key one ", NULL), "another key hit");
  CHECK(!sj_disk_get(d, "cubin", "key one", NULL), "another kind hit");
  CHECK(sj_disk_put(d, "Bad", "k", NULL, "x", 1) < 0 && errno == EINVAL, "kind 'Bad' accepted");
  CHECK(!sj_disk_get(d, "../x", "k", NULL), "kind '../x' accepted");
  /* An empty blob, and a second kind under the same key. */
  CHECK(sj_disk_put(d, "obj", "key one", NULL, "", 0) == 0, "empty put");
  got = sj_disk_get(d, "obj", "key one", &len);
  CHECK(got && len == 0, "empty blob");
  free(got);
  sj_disk_entry *v;
  size_t n;
  uint64_t total;
  CHECK(sj_disk_list(d, &v, &n, &total) == 0 && n == 2, "list: %zu entries", n);
  CHECK(n == 2 && !strcmp(v[0].kind, "obj") && !strcmp(v[1].kind, "ptx") &&
            !strcmp(v[1].label, "the label"),
        "most recently used first: %s, %s '%s'", n ? v[0].kind : "", n ? v[1].kind : "",
        n ? v[1].label : "");
  CHECK(n == 2 && total == v[0].bytes + v[1].bytes, "total %llu", (unsigned long long)total);
  free(v);
  sj_disk_counts c;
  sj_disk_get_counts(d, &c);
  CHECK(c.hits == 2 && c.writes == 2 && c.corrupt == 0, "counts: %lu hits %lu writes", c.hits,
        c.writes);
  CHECK(sj_disk_clear(d) == 2, "clear");
  CHECK(dir_bytes(&n) == 0 && n == 0, "not empty after clear");
  sj_disk_close(d);
}

/* Damages the only .ptx entry with f, then expects a miss that removes the file. */
static void damaged(const char *what, void (*f)(const char *path)) {
  sj_disk *d = sj_disk_open(dir, 1 << 20);
  char blob[3000], path[1024];
  for (size_t i = 0; i < sizeof blob; i++) blob[i] = (char)(i * 7);
  CHECK(sj_disk_put(d, "ptx", "damaged key", "", blob, sizeof blob) == 0, "put");
  CHECK(files_of("ptx", path, sizeof path) == 1, "no entry file");
  f(path);
  CHECK(!sj_disk_get(d, "ptx", "damaged key", NULL), "%s entry used", what);
  sj_disk_counts c;
  sj_disk_get_counts(d, &c);
  CHECK(c.corrupt == 1, "%s: corrupt count %lu", what, c.corrupt);
  CHECK(access(path, F_OK) != 0, "%s entry not removed", what);
  /* Rebuilt: the next store and load work again. */
  CHECK(sj_disk_put(d, "ptx", "damaged key", "", blob, sizeof blob) == 0, "put again");
  size_t len;
  char *got = sj_disk_get(d, "ptx", "damaged key", &len);
  CHECK(got && len == sizeof blob && !memcmp(got, blob, len), "%s: not rebuilt", what);
  free(got);
  sj_disk_close(d);
}

static void flip_byte(const char *path) {
  int fd = open(path, O_RDWR);
  unsigned char c;
  off_t at = lseek(fd, 0, SEEK_END) / 2;
  CHECK(pread(fd, &c, 1, at) == 1, "read");
  c ^= 0x10;
  CHECK(pwrite(fd, &c, 1, at) == 1, "write");
  close(fd);
}

static void truncate_half(const char *path) {
  struct stat st;
  stat(path, &st);
  CHECK(truncate(path, st.st_size / 2) == 0, "truncate");
}

static void truncate_header(const char *path) {
  CHECK(truncate(path, 5) == 0, "truncate");
}

static void case_corrupt(void) {
  damaged("bit-flipped", flip_byte);
  damaged("torn (half written)", truncate_half);
  damaged("torn (header cut)", truncate_header);
  /* A crashed writer's temporary file is never an entry; clear takes it away. */
  char temp[1024];
  snprintf(temp, sizeof temp, "%s/.tmp-1-2-3", dir);
  FILE *f = fopen(temp, "w");
  fputs("SJCACHE1 partial", f);
  fclose(f);
  sj_disk *d = sj_disk_open(dir, 1 << 20);
  size_t n;
  dir_bytes(&n);
  CHECK(n == 1, "%zu entries listed (the temporary file is not one)", n);
  CHECK(sj_disk_clear(d) == 2 && access(temp, F_OK) != 0, "clear left the temporary file");
  sj_disk_close(d);
}

static void case_evict(void) {
  enum { BOUND = 64 << 10, BLOB = 4000, N = 60 };
  sj_disk *d = sj_disk_open(dir, BOUND);
  char blob[BLOB], key[32];
  memset(blob, 'e', sizeof blob);
  for (int i = 0; i < N; i++) {
    snprintf(key, sizeof key, "entry %d", i);
    CHECK(sj_disk_put(d, "blob", key, key, blob, sizeof blob) == 0, "put %d", i);
    uint64_t total = dir_bytes(NULL);
    CHECK(total <= BOUND, "after %d puts the store holds %llu bytes, above %d", i + 1,
          (unsigned long long)total, BOUND);
    /* Entry 0 is used after every store: the least recently used are the others. */
    void *hot = sj_disk_get(d, "blob", "entry 0", NULL);
    CHECK(hot, "entry 0 (used after every store) evicted after %d puts", i + 1);
    free(hot);
  }
  sj_disk_counts c;
  sj_disk_get_counts(d, &c);
  CHECK(c.evictions > 0, "nothing evicted");
  void *old = sj_disk_get(d, "blob", "entry 1", NULL), *last = sj_disk_get(d, "blob", key, NULL);
  CHECK(!old, "entry 1 (least recently used) survived");
  CHECK(last, "the newest entry was evicted");
  free(old);
  free(last);
  sj_disk_close(d);
}

static void case_env(void) {
  unsetenv("JIT_CACHE");
  unsetenv("JIT_CACHE_SIZE");
  setenv("JIT_CACHE_DIR", dir, 1);
  sj_disk *d = sj_disk_open_env(0);
  CHECK(d && !strcmp(sj_disk_dir(d), dir), "JIT_CACHE_DIR: %s", d ? sj_disk_dir(d) : "NULL");
  CHECK(d && sj_disk_bound(d) == SJ_DISK_DEFAULT_BYTES, "default bound");
  sj_disk_close(d);
  static const struct {
    const char *value;
    uint64_t bytes;
  } sizes[] = {{"12345", 12345},
               {"64K", 64 << 10},
               {"3m", (uint64_t)3 << 20},
               {"2G", (uint64_t)2 << 30},
               {"lots", 0},
               {"-5", 0},
               {"7T", 0}};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    setenv("JIT_CACHE_SIZE", sizes[i].value, 1);
    d = sj_disk_open_env(0);
    uint64_t want = sizes[i].bytes ? sizes[i].bytes : SJ_DISK_DEFAULT_BYTES;
    CHECK(d && sj_disk_bound(d) == want, "JIT_CACHE_SIZE=%s: %llu", sizes[i].value,
          d ? (unsigned long long)sj_disk_bound(d) : 0ull);
    sj_disk_close(d);
  }
  unsetenv("JIT_CACHE_SIZE");
  static const char *const off[] = {"off", "OFF", "0", "no", "false"};
  for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
    setenv("JIT_CACHE", off[i], 1);
    d = sj_disk_open_env(0);
    CHECK(!d, "JIT_CACHE=%s left the cache on", off[i]);
    sj_disk_close(d);
    d = sj_disk_open_env(1); /* the tools still find the directory */
    CHECK(d && !strcmp(sj_disk_dir(d), dir), "JIT_CACHE=%s: no directory for tools", off[i]);
    sj_disk_close(d);
  }
  setenv("JIT_CACHE", "on", 1);
  unsetenv("JIT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x/y", 1);
  d = sj_disk_open_env(0);
  CHECK(d && !strcmp(sj_disk_dir(d), "/x/y/stenciljit"), "XDG: %s", d ? sj_disk_dir(d) : "NULL");
  sj_disk_close(d);
  setenv("XDG_CACHE_HOME", "relative", 1); /* ignored, as the XDG spec says */
  setenv("HOME", "/home/someone", 1);
  d = sj_disk_open_env(0);
  CHECK(d && !strcmp(sj_disk_dir(d), "/home/someone/.cache/stenciljit"), "HOME: %s",
        d ? sj_disk_dir(d) : "NULL");
  sj_disk_close(d);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  CHECK(!sj_disk_open_env(0), "a store without any directory");
  /* Nothing is created before the first store; a nested directory is made then. */
  char nested[600];
  snprintf(nested, sizeof nested, "%s/a/b", dir);
  d = sj_disk_open(nested, 1 << 20);
  CHECK(!sj_disk_get(d, "ptx", "k", NULL) && access(nested, F_OK) != 0, "made on a lookup");
  CHECK(sj_disk_put(d, "ptx", "k", NULL, "v", 1) == 0 && access(nested, F_OK) == 0,
        "not made on the first store");
  sj_disk_close(d);
}

/* The blob writer w stores at step s for key k: self-describing, so a reader can tell a
 * whole blob from a torn one without the store's help. */
enum { TORN_BLOB = 192 << 10, KEYS = 6, STEPS = 150 };
static void make_blob(unsigned char *b, int w, int s, int k) {
  unsigned x = (unsigned)(w * 1000003 + s * 7919 + k * 104729) | 1;
  memcpy(b, &x, sizeof x);
  for (size_t i = sizeof x; i < TORN_BLOB; i++)
    b[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
}
static int whole_blob(const unsigned char *b, size_t len) {
  unsigned x;
  if (len != TORN_BLOB) return 0;
  memcpy(&x, b, sizeof x);
  for (size_t i = sizeof x; i < TORN_BLOB; i++)
    if (b[i] != (unsigned char)((x = x * 1103515245u + 12345u) >> 16)) return 0;
  return 1;
}

/* One of two processes: store and load the same keys as fast as possible, with a bound that
 * keeps eviction running. The exit code is the number of problems seen. */
static int worker(int w) {
  sj_disk *d = sj_disk_open(dir, (uint64_t)TORN_BLOB * 4);
  unsigned char *b = malloc(TORN_BLOB);
  int bad = 0, hits = 0;
  char key[32];
  for (int s = 0; s < STEPS; s++) {
    int k = (s * 5 + w) % KEYS;
    snprintf(key, sizeof key, "shared key %d", k);
    make_blob(b, w, s, k);
    if (sj_disk_put(d, "blob", key, "", b, TORN_BLOB)) bad++;
    snprintf(key, sizeof key, "shared key %d", (s * 3 + 1) % KEYS);
    size_t len;
    unsigned char *got = sj_disk_get(d, "blob", key, &len);
    if (got && !whole_blob(got, len)) bad++;
    hits += got != NULL;
    free(got);
  }
  sj_disk_counts c;
  sj_disk_get_counts(d, &c);
  fprintf(stderr, "worker %d: %d hits, %lu corrupt, %lu evictions, %d bad\n", w, hits, c.corrupt,
          c.evictions, bad);
  free(b);
  sj_disk_close(d);
  return bad + (int)c.corrupt + (hits == 0);
}

static void case_processes(void) {
  pid_t pid[2];
  for (int w = 0; w < 2; w++) {
    pid[w] = fork();
    if (pid[w] == 0) _exit(worker(w));
    CHECK(pid[w] > 0, "fork");
  }
  for (int w = 0; w < 2; w++) {
    int st = 0;
    waitpid(pid[w], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker %d: status %d", w, st);
  }
  /* Each process bounds what it knows of; the next store of any process brings the whole
   * directory back under the bound. */
  sj_disk *d = sj_disk_open(dir, (uint64_t)TORN_BLOB * 4);
  unsigned char *b = malloc(TORN_BLOB);
  make_blob(b, 2, 0, 0);
  CHECK(sj_disk_put(d, "blob", "one more", "", b, TORN_BLOB) == 0, "put");
  uint64_t total = dir_bytes(NULL);
  CHECK(total <= (uint64_t)TORN_BLOB * 4, "%llu bytes left, above the bound",
        (unsigned long long)total);
  free(b);
  sj_disk_close(d);
}

static const struct {
  const char *name;
  void (*run)(void);
} cases[] = {{"roundtrip", case_roundtrip},
             {"corrupt", case_corrupt},
             {"evict", case_evict},
             {"env", case_env},
             {"processes", case_processes}};

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: diskcache_test CASE\n"), 2;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (strcmp(cases[i].name, argv[1])) continue;
    make_dir();
    cases[i].run();
    remove_tree(dir);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
  }
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
