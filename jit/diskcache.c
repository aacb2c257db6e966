/* The on-disk cache (see diskcache.h). File layout, in host byte order (the directory
 * belongs to one machine; another byte order fails the checksum and is rebuilt):
 *
 *   "SJCACHE1" | u32 kind | u32 label | u64 key | u64 blob   lengths of what follows
 *   32-byte SHA-256 of everything after it | kind | label | key | blob
 *
 * Eviction needs the directory's size, which other processes change too: each handle scans
 * the directory on its first store and whenever its own estimate (the last scan plus what it
 * wrote since) passes the bound. */
#include "jit/diskcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sha256.h"

enum { HEADER = 8 + 4 + 4 + 8 + 8 + 32, MAX_KIND = 15, NAME_HEX = 64 };
static const char magic[8] = {'S', 'J', 'C', 'A', 'C', 'H', 'E', '1'};
/* A temporary file this old is a crashed writer's: scans remove it. */
static const time_t stale_temp_seconds = 600;

struct sj_disk {
  char *dir;
  uint64_t max_bytes;
  pthread_mutex_t lock; /* the estimate, the counters and the temp-file sequence */
  int64_t estimate;     /* bytes in the directory as far as this handle knows; -1: unknown */
  unsigned long seq;
  sj_disk_counts counts;
};

sj_disk *sj_disk_open(const char *dir, uint64_t max_bytes) {
  sj_disk *d = calloc(1, sizeof *d);
  if (!d || !(d->dir = strdup(dir))) {
    free(d);
    return NULL;
  }
  d->max_bytes = max_bytes;
  d->estimate = -1;
  pthread_mutex_init(&d->lock, NULL);
  return d;
}

static int is_off(const char *v) {
  static const char *const off[] = {"off", "0", "no", "false"};
  for (size_t i = 0; i < sizeof off / sizeof *off; i++)
    if (!strcasecmp(v, off[i])) return 1;
  return 0;
}

/* "123", "64K", "512M", "2G"; 0 when unreadable. */
static uint64_t parse_bytes(const char *s) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *s == '-') return 0;
  int shift = 0;
  if (*end) {
    const char *units = "KMG", *u = strchr(units, *end & ~0x20);
    if (!u || end[1]) return 0;
    shift = 10 * (int)(u - units + 1);
  }
  return v > UINT64_MAX >> shift ? 0 : (uint64_t)v << shift;
}

int sj_disk_off_env(void) {
  const char *mode = getenv("JIT_CACHE");
  return mode && is_off(mode);
}

sj_disk *sj_disk_open_env(int even_when_off) {
  if (!even_when_off && sj_disk_off_env()) return NULL;
  const char *dir = getenv("JIT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
             *home = getenv("HOME");
  char path[4096];
  if (dir && *dir)
    snprintf(path, sizeof path, "%s", dir);
  else if (xdg && *xdg == '/') /* the XDG spec: a relative value is to be ignored */
    snprintf(path, sizeof path, "%s/stenciljit", xdg);
  else if (home && *home)
    snprintf(path, sizeof path, "%s/.cache/stenciljit", home);
  else
    return NULL;
  const char *size = getenv("JIT_CACHE_SIZE");
  uint64_t max = size && *size ? parse_bytes(size) : 0;
  return sj_disk_open(path, max ? max : SJ_DISK_DEFAULT_BYTES);
}

void sj_disk_close(sj_disk *d) {
  if (!d) return;
  pthread_mutex_destroy(&d->lock);
  free(d->dir);
  free(d);
}

const char *sj_disk_dir(const sj_disk *d) {
  return d->dir;
}
uint64_t sj_disk_bound(const sj_disk *d) {
  return d->max_bytes;
}

void sj_disk_get_counts(sj_disk *d, sj_disk_counts *out) {
  pthread_mutex_lock(&d->lock);
  *out = d->counts;
  pthread_mutex_unlock(&d->lock);
}

static void count(sj_disk *d, unsigned long *counter, int64_t bytes) {
  pthread_mutex_lock(&d->lock);
  (*counter)++;
  if (d->estimate >= 0) d->estimate += bytes;
  pthread_mutex_unlock(&d->lock);
}

static int valid_kind(const char *kind) {
  size_t n = strlen(kind);
  if (n < 1 || n > MAX_KIND) return 0;
  for (const char *c = kind; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) return 0;
  return 1;
}

/* dir/<sha256(kind NUL key)>.<kind> */
static void entry_path(const sj_disk *d, const char *kind, const char *key, char *path,
                       size_t size) {
  sj_sha256 s;
  unsigned char h[32];
  sj_sha256_init(&s);
  sj_sha256_update(&s, kind, strlen(kind) + 1);
  sj_sha256_update(&s, key, strlen(key));
  sj_sha256_final(&s, h);
  int n = snprintf(path, size, "%s/", d->dir);
  for (int i = 0; i < 32 && n + 2 < (int)size; i++, n += 2) snprintf(path + n, 3, "%02x", h[i]);
  snprintf(path + n, size - (size_t)n, ".%s", kind);
}

static struct timespec now_real(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t;
}

/* Sets the last-use time explicitly: the file system's own clock ticks in milliseconds,
 * too coarse to order uses a few microseconds apart. */
static void mark_used(int fd) {
  struct timespec t[2] = {{0, UTIME_OMIT}, now_real()};
  futimens(fd, t);
}

typedef struct header {
  uint32_t kind, label;
  uint64_t key, blob;
} header;

static void digest(const header *h, const char *const parts[4], unsigned char out[32]) {
  const uint64_t len[4] = {h->kind, h->label, h->key, h->blob};
  sj_sha256 s;
  sj_sha256_init(&s);
  sj_sha256_update(&s, h, sizeof *h);
  for (int i = 0; i < 4; i++) sj_sha256_update(&s, parts[i], len[i]);
  sj_sha256_final(&s, out);
}

/* The header of a file's first bytes; 0 when the sizes do not add up to file_size. */
static int read_header(const unsigned char *p, uint64_t file_size, header *h) {
  if (file_size < HEADER || memcmp(p, magic, 8)) return 0;
  memcpy(&h->kind, p + 8, 4);
  memcpy(&h->label, p + 12, 4);
  memcpy(&h->key, p + 16, 8);
  memcpy(&h->blob, p + 24, 8);
  uint64_t rest = file_size - HEADER;
  return h->kind <= MAX_KIND && h->label <= rest && h->key <= rest && h->blob <= rest &&
         (uint64_t)h->kind + h->label + h->key + h->blob == rest;
}

static int read_all(int fd, void *buf, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t n = read(fd, (char *)buf + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

static int write_all(int fd, const void *buf, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t n = write(fd, (const char *)buf + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

/* The whole file, checked: 1 a valid entry of (kind, key) with *blob its copy, 0 no such
 * entry, -1 a corrupt one. */
static int load(int fd, const char *kind, const char *key, void **blob, size_t *len) {
  struct stat st;
  if (fstat(fd, &st)) return 0;
  if (st.st_size < HEADER) return -1; /* a torn or truncated file */
  unsigned char *p = malloc((size_t)st.st_size + 1);
  if (!p) return 0;
  header h;
  int ok = read_all(fd, p, (size_t)st.st_size) == 0 && read_header(p, (uint64_t)st.st_size, &h);
  unsigned char sum[32];
  const char *parts[4];
  if (ok) {
    parts[0] = (const char *)p + HEADER;
    parts[1] = parts[0] + h.kind;
    parts[2] = parts[1] + h.label;
    parts[3] = parts[2] + h.key;
    digest(&h, parts, sum);
    ok = !memcmp(sum, p + HEADER - 32, 32);
  }
  if (!ok) {
    free(p);
    return -1;
  }
  /* A valid entry of another key would be a SHA-256 collision: a miss, never its blob. */
  if (h.kind != strlen(kind) || memcmp(parts[0], kind, h.kind) || h.key != strlen(key) ||
      memcmp(parts[2], key, h.key)) {
    free(p);
    return 0;
  }
  memmove(p, parts[3], h.blob);
  p[h.blob] = 0;
  *blob = p;
  *len = h.blob;
  return 1;
}

void *sj_disk_get(sj_disk *d, const char *kind, const char *key, size_t *len) {
  char path[4096 + 96];
  void *blob = NULL;
  size_t n = 0;
  if (!valid_kind(kind)) return NULL;
  entry_path(d, kind, key, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  int found = fd < 0 ? 0 : load(fd, kind, key, &blob, &n);
  if (found > 0) mark_used(fd);
  if (fd >= 0) close(fd);
  if (found < 0) {
    /* Removed so that the rebuilt entry replaces it; a whole entry another process renamed
     * over it meanwhile may go too, which costs one more build and nothing else. */
    unlink(path);
    count(d, &d->counts.corrupt, 0);
  }
  count(d, found > 0 ? &d->counts.hits : &d->counts.misses, 0);
  if (found > 0 && len) *len = n;
  return found > 0 ? blob : NULL;
}

static int is_entry_name(const char *name) {
  size_t n = strlen(name);
  if (n < NAME_HEX + 2 || name[NAME_HEX] != '.') return 0;
  for (int i = 0; i < NAME_HEX; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
  return valid_kind(name + NAME_HEX + 1);
}

static int is_temp_name(const char *name) {
  return !strncmp(name, ".tmp-", 5);
}

typedef struct file_info {
  char name[80];
  uint64_t bytes;
  struct timespec used;
  int temp;
} file_info;

/* The directory's entries and temporary files. */
static int scan(const sj_disk *d, file_info **out, size_t *count_out) {
  *out = NULL;
  *count_out = 0;
  DIR *dir = opendir(d->dir);
  if (!dir) return errno == ENOENT ? 0 : -1;
  size_t n = 0, cap = 0;
  file_info *v = NULL;
  struct dirent *e;
  while ((e = readdir(dir))) {
    int temp = is_temp_name(e->d_name);
    if (!temp && !is_entry_name(e->d_name)) continue;
    size_t len = strlen(e->d_name);
    if (len >= sizeof v->name) continue;
    struct stat st;
    if (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
      continue; /* gone meanwhile, or not ours */
    if (n == cap) {
      file_info *w = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
      if (!w) break;
      v = w;
    }
    memcpy(v[n].name, e->d_name, len + 1); /* fits: checked above */
    v[n].bytes = (uint64_t)st.st_size;
    v[n].used = st.st_mtim;
    v[n].temp = temp;
    n++;
  }
  closedir(dir);
  *out = v;
  *count_out = n;
  return 0;
}

static int older(const void *a, const void *b) {
  const file_info *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int remove_file(const sj_disk *d, const char *name) {
  char path[4096 + 96];
  snprintf(path, sizeof path, "%s/%s", d->dir, name);
  return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Scans, removes stale temporary files, and evicts the least recently used entries while
 * the total exceeds the bound; the estimate becomes what is left. */
static void evict(sj_disk *d) {
  file_info *v;
  size_t n;
  if (scan(d, &v, &n)) return;
  if (n) qsort(v, n, sizeof *v, older);
  uint64_t total = 0, low = d->max_bytes / 4 * 3;
  time_t stale = now_real().tv_sec - stale_temp_seconds;
  unsigned long evicted = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].temp && v[i].used.tv_sec < stale && !remove_file(d, v[i].name)) v[i].bytes = 0;
    total += v[i].bytes;
  }
  if (total > d->max_bytes)
    for (size_t i = 0; i < n && total > low; i++) {
      if (v[i].temp || remove_file(d, v[i].name)) continue;
      total -= v[i].bytes;
      evicted++;
    }
  free(v);
  pthread_mutex_lock(&d->lock);
  d->estimate = (int64_t)total;
  d->counts.evictions += evicted;
  pthread_mutex_unlock(&d->lock);
}

static int make_dirs(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1;; p++) {
    if (*p && *p != '/') continue;
    char c = *p;
    *p = 0;
    if (mkdir(path, 0700) && errno != EEXIST) return -1;
    if (!(*p = c)) break;
  }
  return 0;
}

static int write_entry(int fd, const header *h, const char *const parts[4]) {
  unsigned char head[HEADER];
  memcpy(head, magic, 8);
  memcpy(head + 8, &h->kind, 4);
  memcpy(head + 12, &h->label, 4);
  memcpy(head + 16, &h->key, 8);
  memcpy(head + 24, &h->blob, 8);
  digest(h, parts, head + HEADER - 32);
  const uint64_t len[4] = {h->kind, h->label, h->key, h->blob};
  if (write_all(fd, head, sizeof head)) return -1;
  for (int i = 0; i < 4; i++)
    if (write_all(fd, parts[i], (size_t)len[i])) return -1;
  mark_used(fd);
  return 0;
}

int sj_disk_put(sj_disk *d, const char *kind, const char *key, const char *label, const void *blob,
                size_t len) {
  if (!valid_kind(kind)) {
    errno = EINVAL;
    return -1;
  }
  if (!label) label = "";
  header h = {(uint32_t)strlen(kind), (uint32_t)strnlen(label, 150), strlen(key), len};
  const char *parts[4] = {kind, label, key, blob};
  char path[4096 + 96], temp[4096 + 96];
  entry_path(d, kind, key, path, sizeof path);
  pthread_mutex_lock(&d->lock);
  unsigned long seq = d->seq++;
  pthread_mutex_unlock(&d->lock);
  snprintf(temp, sizeof temp, "%s/.tmp-%ld-%lu-%p", d->dir, (long)getpid(), seq, (void *)d);
  int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT && make_dirs(d->dir) == 0)
    fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int rc = write_entry(fd, &h, parts);
  if (close(fd)) rc = -1;
  if (!rc) rc = rename(temp, path);
  if (rc) {
    int e = errno;
    unlink(temp);
    errno = e;
    return -1;
  }
  count(d, &d->counts.writes, HEADER + (int64_t)(h.kind + h.label + h.key + h.blob));
  pthread_mutex_lock(&d->lock);
  int full = d->estimate < 0 || (uint64_t)d->estimate > d->max_bytes;
  pthread_mutex_unlock(&d->lock);
  if (full) evict(d);
  return 0;
}

static int newer(const void *a, const void *b) {
  return older(b, a);
}

/* Kind and label of an entry file, from its first bytes; "?" when it is not one. */
static void describe(const sj_disk *d, const char *name, sj_disk_entry *e) {
  char path[4096 + 96];
  snprintf(path, sizeof path, "%s/%s", d->dir, name);
  snprintf(e->kind, sizeof e->kind, "?");
  e->label[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  unsigned char p[HEADER + MAX_KIND + sizeof e->label];
  ssize_t got = read(fd, p, sizeof p);
  close(fd);
  header h;
  if (got < HEADER || !read_header(p, e->bytes, &h) || HEADER + h.kind + h.label > (size_t)got ||
      h.label >= sizeof e->label)
    return;
  snprintf(e->kind, sizeof e->kind, "%.*s", (int)h.kind, (const char *)p + HEADER);
  snprintf(e->label, sizeof e->label, "%.*s", (int)h.label, (const char *)p + HEADER + h.kind);
}

int sj_disk_list(sj_disk *d, sj_disk_entry **out, size_t *count_out, uint64_t *total) {
  file_info *v;
  size_t n;
  *out = NULL;
  *count_out = 0;
  *total = 0;
  if (scan(d, &v, &n)) return -1;
  if (n) qsort(v, n, sizeof *v, newer); /* v is NULL when n is 0 */
  sj_disk_entry *e = calloc(n + 1, sizeof *e);
  if (!e) {
    free(v);
    return -1;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    *total += v[i].bytes;
    if (v[i].temp) continue;
    snprintf(e[m].file, sizeof e[m].file, "%s", v[i].name);
    e[m].bytes = v[i].bytes;
    e[m].used = v[i].used;
    describe(d, v[i].name, &e[m]);
    m++;
  }
  free(v);
  *out = e;
  *count_out = m;
  return 0;
}

long sj_disk_clear(sj_disk *d) {
  file_info *v;
  size_t n;
  if (scan(d, &v, &n)) return -1;
  long removed = 0;
  for (size_t i = 0; i < n; i++) removed += remove_file(d, v[i].name) == 0;
  free(v);
  pthread_mutex_lock(&d->lock);
  d->estimate = -1;
  pthread_mutex_unlock(&d->lock);
  return removed;
}
