/* The on-disk cache: a directory of blobs of any kind (PTX, cubins, CPU objects), each
 * stored under a key text that names everything its content depends on.
 *
 * An entry is one file, named by the SHA-256 of its kind and key, holding the kind, a label
 * for people, the key itself and the blob, with a SHA-256 over all of it. It is written to a
 * temporary file and renamed into place, so a reader in any process sees a whole entry or
 * none; an entry that fails its checksum (a crash, a disk error, a hand edit) is removed and
 * reported as a miss, never used. The key is compared byte for byte, so a hit is never
 * another entry's blob. A hit marks the entry used (its modification time); when the
 * directory grows past its bound, the least recently used entries go first. */
#ifndef SJ_DISKCACHE_H
#define SJ_DISKCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct sj_disk sj_disk;

/* The default bound of the directory and that of $JIT_CACHE_SIZE's syntax: bytes with an
 * optional K, M or G (powers of 1024). */
#define SJ_DISK_DEFAULT_BYTES ((uint64_t)256 << 20)

/* The store the environment names: NULL when JIT_CACHE is off (off, 0, no, false; unless
 * even_when_off, for tools that manage the directory) or no directory can be named.
 * Directory: $JIT_CACHE_DIR, else $XDG_CACHE_HOME/stenciljit, else $HOME/.cache/stenciljit;
 * bound: $JIT_CACHE_SIZE (an unreadable value keeps the default). Nothing is created until
 * the first store. */
sj_disk *sj_disk_open_env(int even_when_off);
/* Whether $JIT_CACHE turns the on-disk cache off. */
int sj_disk_off_env(void);
/* The store in dir (created on the first store) holding at most max_bytes. */
sj_disk *sj_disk_open(const char *dir, uint64_t max_bytes);
void sj_disk_close(sj_disk *d);
const char *sj_disk_dir(const sj_disk *d);
uint64_t sj_disk_bound(const sj_disk *d);

/* The blob of (kind, key), malloc'd with a NUL after its len bytes; NULL on a miss. kind is
 * 1 to 15 of [a-z0-9]. */
void *sj_disk_get(sj_disk *d, const char *kind, const char *key, size_t *len);
/* Stores the blob of (kind, key) with a label shown by sj_disk_list, then evicts least
 * recently used entries while the directory exceeds its bound (down to three quarters of
 * it). 0, or -1 with errno set; a failure leaves the directory as it was. */
int sj_disk_put(sj_disk *d, const char *kind, const char *key, const char *label, const void *blob,
                size_t len);

typedef struct sj_disk_entry {
  char file[80];   /* name in the directory */
  char kind[16];   /* "?" when the entry is unreadable */
  char label[160]; /* empty when the entry is unreadable */
  uint64_t bytes;
  struct timespec used;
} sj_disk_entry;

/* Every entry, most recently used first, with the directory's total in *total. A jit_status
 * style 0, or -1 with errno set (a missing directory is an empty store). */
int sj_disk_list(sj_disk *d, sj_disk_entry **out, size_t *count, uint64_t *total);
/* Removes every entry and leftover temporary file; returns how many files went, or -1. */
long sj_disk_clear(sj_disk *d);

/* What this handle did: for tests, tools and jit_stats. */
typedef struct sj_disk_counts {
  unsigned long hits, misses, corrupt, writes, evictions;
} sj_disk_counts;
void sj_disk_get_counts(sj_disk *d, sj_disk_counts *out);

#endif
