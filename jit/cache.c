/* The shape cache. The key is the whole normalized call description (library version,
 * device, options, entry, argument kinds, integer values, source without comments and with
 * runs of blanks collapsed), compared byte for byte on a hit: a hash collision can never
 * return another kernel, so the cache is never stale. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

struct sj_cache_entry {
  uint64_t hash;
  char *key;
  size_t keylen;
  int compiling;
  jit_kernel *kernel;
  sj_cache_entry *next;
};

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Comments removed, blank runs collapsed to one space: edits to layout or comments keep
 * the kernel; any change to the tokens makes a new one. Runs on every call: a plain loop. */
static void normalize(sj_buf *b, const char *s) {
  size_t n = strlen(s);
  sj_buf_reserve(b, n + 1);
  char *out = b->data + b->len;
  int blank = 0;
  while (*s) {
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
      blank = 1;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *end = strstr(s + 2, "*/");
      s = end ? end + 2 : s + strlen(s);
      blank = 1;
    } else if (is_blank(*s)) {
      s++;
      blank = 1;
    } else {
      if (blank && out != b->data) *out++ = ' ';
      blank = 0;
      *out++ = *s++;
    }
  }
  *out = 0;
  b->len = (size_t)(out - b->data);
}

static void make_key(sj_buf *b, const jit_context *ctx, const char *source, const char *entry,
                     const jit_arg *args, int nargs) {
  sj_buf_printf(b, "stenciljit %s|dev %d|fast %d|threads %d|entry %s|", SJ_VERSION, ctx->device,
                ctx->opts.fast_math, ctx->opts.threads, entry ? entry : "");
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind == JIT_ARG_INT)
      sj_buf_printf(b, "i%d,", args[i].v.i);
    else if (args[i].kind == JIT_ARG_LONG)
      sj_buf_printf(b, "l%ld,", args[i].v.l);
    else
      sj_buf_printf(b, "k%d,", (int)args[i].kind);
  }
  sj_buf_puts(b, "|");
  normalize(b, source);
}

void sj_cache_init(sj_cache *c) {
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->ready, NULL);
  c->nbuckets = 64;
  c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
}

void sj_cache_clear(sj_cache *c) {
  for (size_t i = 0; i < c->nbuckets; i++) {
    for (sj_cache_entry *e = c->buckets[i], *next; e; e = next) {
      next = e->next;
      if (e->kernel) sj_kernel_release(e->kernel);
      free(e->key);
      free(e);
    }
  }
  free(c->buckets);
  pthread_cond_destroy(&c->ready);
  pthread_mutex_destroy(&c->lock);
}

static sj_cache_entry **find(sj_cache *c, uint64_t h, const char *key, size_t len) {
  sj_cache_entry **p = &c->buckets[h % c->nbuckets];
  while (*p && !((*p)->hash == h && (*p)->keylen == len && !memcmp((*p)->key, key, len)))
    p = &(*p)->next;
  return p;
}

static void grow(sj_cache *c) {
  size_t n = c->nbuckets * 2;
  sj_cache_entry **b = calloc(n, sizeof *b);
  for (size_t i = 0; i < c->nbuckets; i++)
    for (sj_cache_entry *e = c->buckets[i], *next; e; e = next) {
      next = e->next;
      e->next = b[e->hash % n];
      b[e->hash % n] = e;
    }
  free(c->buckets);
  c->buckets = b;
  c->nbuckets = n;
}

int sj_cache_get(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                 int nargs, jit_kernel **out, sj_error *err) {
  sj_cache *c = &ctx->cache;
  sj_buf key = {0};
  make_key(&key, ctx, source, entry, args, nargs);
  uint64_t h = fnv1a(key.data, key.len);
  *out = NULL;

  pthread_mutex_lock(&c->lock);
  for (;;) {
    sj_cache_entry *e = *find(c, h, key.data, key.len);
    if (!e) break;
    if (!e->compiling) {
      e->kernel->refs++;
      *out = e->kernel;
      pthread_mutex_unlock(&c->lock);
      sj_buf_free(&key);
      pthread_mutex_lock(&ctx->lock);
      ctx->stats.cache_hits++;
      pthread_mutex_unlock(&ctx->lock);
      return 0;
    }
    pthread_cond_wait(&c->ready, &c->lock); /* another caller compiles this key */
  }
  sj_cache_entry *e = calloc(1, sizeof *e);
  e->hash = h;
  e->keylen = key.len;
  e->key = sj_buf_take(&key);
  e->compiling = 1;
  sj_cache_entry **slot = &c->buckets[h % c->nbuckets];
  e->next = *slot;
  *slot = e;
  c->count++;
  pthread_mutex_unlock(&c->lock);

  jit_kernel *k = NULL;
  int rc = sj_compile(ctx, source, entry, args, nargs, &k, err);

  pthread_mutex_lock(&c->lock);
  sj_cache_entry **p = find(c, h, e->key, e->keylen);
  if (rc) { /* failures are not cached: waiters retry and report their own error */
    *p = e->next;
    c->count--;
    free(e->key);
    free(e);
  } else {
    e->kernel = k;
    e->compiling = 0;
    k->refs++; /* the cache's reference */
    pthread_mutex_lock(&ctx->lock);
    ctx->stats.compiles++;
    pthread_mutex_unlock(&ctx->lock);
    *out = k;
    if (c->count > 2 * c->nbuckets) grow(c);
  }
  pthread_cond_broadcast(&c->ready);
  pthread_mutex_unlock(&c->lock);
  return rc;
}

/* References are counted under the cache's lock: the cache holds one of them. */
void sj_kernel_release(jit_kernel *k) {
  sj_cache *c = &k->ctx->cache;
  pthread_mutex_lock(&c->lock);
  int last = --k->refs == 0;
  pthread_mutex_unlock(&c->lock);
  if (last) sj_kernel_free(k);
}
