/* The shape cache. The key is the whole call description (jit/key.c), compared byte for
 * byte on a hit: a hash collision can never return another kernel, so the cache is never
 * stale. It holds at most jit_options.cache_bytes of kernels by their estimated footprint
 * and drops the least recently used beyond that; a dropped kernel lives on while callers
 * hold it. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

#include "jit/diskcache.h"

struct sj_cache_entry {
  uint64_t hash;
  char *key;
  size_t keylen;
  int compiling;
  jit_kernel *kernel;
  size_t bytes;                  /* footprint charged to the bound, once compiled */
  sj_cache_entry *next;          /* bucket chain */
  sj_cache_entry *newer, *older; /* use order, compiled entries only */
};

static uint64_t fnv1a(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

void sj_cache_init(sj_cache *c) {
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->ready, NULL);
  c->nbuckets = 64;
  c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
  c->disk = sj_disk_open_env(0);
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
  sj_disk_close(c->disk);
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
  if (!b) return; /* a longer chain costs time, not correctness */
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

/* --- use order --- */

static void lru_unlink(sj_cache *c, sj_cache_entry *e) {
  if (e->newer)
    e->newer->older = e->older;
  else
    c->newest = e->older;
  if (e->older)
    e->older->newer = e->newer;
  else
    c->oldest = e->newer;
  e->newer = e->older = NULL;
}

static void lru_push(sj_cache *c, sj_cache_entry *e) {
  e->older = c->newest;
  e->newer = NULL;
  if (c->newest) c->newest->newer = e;
  c->newest = e;
  if (!c->oldest) c->oldest = e;
}

static size_t text_bytes(const char *s) {
  return s ? strlen(s) + 1 : 0;
}

/* What a kernel keeps in memory, by measurement (bench/results/cache.md checks it against
 * the heap): its parsed program, its texts, TinyCC's state for the code it compiled (about
 * 8 KB plus 5 bytes per byte of C), the system compiler's shared object when one is loaded
 * (about as much again), and on a GPU device the loaded module (the emulator keeps about 4
 * bytes per byte of PTX). Rounded up so that the bound holds. */
static size_t kernel_bytes(const jit_kernel *k) {
  size_t texts = text_bytes(k->c_code) + text_bytes(k->ptx) + text_bytes(k->host_code) +
                 text_bytes(k->schedule) + text_bytes(k->key);
  size_t compiled = text_bytes(k->c_code ? k->c_code : k->host_code);
  size_t arrays = (size_t)k->nparams *
                      (sizeof *k->kinds + sizeof *k->shape + sizeof *k->params + sizeof *k->bytes +
                       sizeof *k->first_extent) +
                  (size_t)k->nkernels * sizeof *k->kernels;
  /* a second tier on its way: its texts and the loader's records of its shared object,
   * estimated from the first's (the tier thread writes its own meanwhile): its C is at most
   * twice the first's (two phases when time-tiled) */
  int planned = __atomic_load_n(&k->tier_state, __ATOMIC_ACQUIRE) != SJ_TIER_TCC_ONLY;
  size_t second = planned ? 16384 + 5 * (compiled + text_bytes(k->schedule)) : 0;
  return sizeof *k + (k->program ? sj_arena_bytes(k->program->arena) : 0) + texts + arrays + 16384 +
         8 * compiled + second + 6 * text_bytes(k->ptx);
}

/* Unhooks e from its bucket and the use order onto *gone, to be freed outside the lock
 * (releasing a kernel takes the lock). */
static void drop(sj_cache *c, sj_cache_entry *e, sj_cache_entry **gone) {
  sj_cache_entry **p = find(c, e->hash, e->key, e->keylen);
  *p = e->next;
  lru_unlink(c, e);
  c->count--;
  c->bytes -= e->bytes;
  e->next = *gone;
  *gone = e;
}

static unsigned long free_all(sj_cache_entry *gone) {
  unsigned long n = 0;
  for (sj_cache_entry *next; gone; gone = next, n++) {
    next = gone->next;
    sj_kernel_release(gone->kernel);
    free(gone->key);
    free(gone);
  }
  return n;
}

static void publish_size(jit_context *ctx, unsigned long evicted) {
  pthread_mutex_lock(&ctx->cache.lock); /* the sizes change under the cache's lock */
  size_t bytes = ctx->cache.bytes, count = ctx->cache.count;
  pthread_mutex_unlock(&ctx->cache.lock);
  pthread_mutex_lock(&ctx->lock);
  ctx->stats.cache_bytes = bytes;
  ctx->stats.cache_kernels = count;
  ctx->stats.evictions += evicted;
  pthread_mutex_unlock(&ctx->lock);
}

static size_t bound(jit_context *ctx) {
  pthread_mutex_lock(&ctx->lock);
  size_t b = ctx->opts.cache_bytes ? ctx->opts.cache_bytes : JIT_CACHE_BYTES_DEFAULT;
  pthread_mutex_unlock(&ctx->lock);
  return b;
}

int sj_cache_get(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                 int nargs, jit_kernel **out, sj_error *err) {
  sj_cache *c = &ctx->cache;
  size_t keylen;
  *out = NULL;
  if (!source) return sj_error_set(err, JIT_ERR_ARGS, "source is NULL");
  if (nargs > 0 && !args) return sj_error_set(err, JIT_ERR_ARGS, "args is NULL");
  char *key = sj_call_key(ctx, source, entry, args, nargs, &keylen);
  uint64_t h = fnv1a(key, keylen);

  pthread_mutex_lock(&c->lock);
  for (;;) {
    sj_cache_entry *e = *find(c, h, key, keylen);
    if (!e) break;
    if (!e->compiling) {
      e->kernel->refs++;
      *out = e->kernel;
      lru_unlink(c, e);
      lru_push(c, e);
      pthread_mutex_unlock(&c->lock);
      free(key);
      pthread_mutex_lock(&ctx->lock);
      ctx->stats.cache_hits++;
      pthread_mutex_unlock(&ctx->lock);
      return 0;
    }
    pthread_cond_wait(&c->ready, &c->lock); /* another caller compiles this key */
  }
  sj_cache_entry *e = calloc(1, sizeof *e);
  if (!e) {
    pthread_mutex_unlock(&c->lock);
    free(key);
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory for a cache entry");
  }
  e->hash = h;
  e->keylen = keylen;
  e->key = key;
  e->compiling = 1;
  sj_cache_entry **slot = &c->buckets[h % c->nbuckets];
  e->next = *slot;
  *slot = e;
  c->count++;
  pthread_mutex_unlock(&c->lock);

  jit_kernel *k = NULL;
  int rc = sj_compile(ctx, source, entry, args, nargs, &k, err);
  size_t limit = bound(ctx);

  pthread_mutex_lock(&c->lock);
  sj_cache_entry **p = find(c, h, e->key, e->keylen);
  sj_cache_entry *gone = NULL;
  if (rc) { /* failures are not cached: waiters retry and report their own error */
    *p = e->next;
    c->count--;
    free(e->key);
    free(e);
  } else {
    e->kernel = k;
    e->compiling = 0;
    e->bytes = kernel_bytes(k) + sizeof *e + e->keylen;
    c->bytes += e->bytes;
    lru_push(c, e);
    k->refs++; /* the cache's reference */
    pthread_mutex_lock(&ctx->lock);
    ctx->stats.compiles++;
    pthread_mutex_unlock(&ctx->lock);
    *out = k;
    /* The new kernel stays even when it alone exceeds the bound: the caller uses it. */
    while (c->bytes > limit && c->oldest != e) drop(c, c->oldest, &gone);
    if (c->count > 2 * c->nbuckets) grow(c);
  }
  pthread_cond_broadcast(&c->ready);
  pthread_mutex_unlock(&c->lock);
  unsigned long evicted = free_all(gone);
  if (!rc) publish_size(ctx, evicted);
  return rc;
}

int jit_context_clear_cache(jit_context *ctx) {
  if (!ctx) {
    sj_error err = {0, {0}};
    sj_error_set(&err, JIT_ERR_ARGS, "jit_context_clear_cache: the context is NULL");
    sj_context_fail(NULL, &err);
    return err.status;
  }
  sj_cache *c = &ctx->cache;
  sj_cache_entry *gone = NULL;
  pthread_mutex_lock(&c->lock);
  while (c->oldest) drop(c, c->oldest, &gone); /* kernels being compiled stay */
  pthread_mutex_unlock(&c->lock);
  free_all(gone);
  publish_size(ctx, 0);
  return JIT_OK;
}

/* References are counted under the cache's lock: the cache holds one of them. */
void sj_kernel_release(jit_kernel *k) {
  sj_cache *c = &k->ctx->cache;
  pthread_mutex_lock(&c->lock);
  int last = --k->refs == 0;
  pthread_mutex_unlock(&c->lock);
  if (last) sj_kernel_free(k);
}
