/* SHA-256 (FIPS 180-4): the names and checksums of the on-disk cache's entries. */
#ifndef SJ_SHA256_H
#define SJ_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sj_sha256 {
  uint32_t h[8];
  uint64_t bytes; /* message length so far */
  unsigned char block[64];
  size_t fill; /* bytes in block */
} sj_sha256;

void sj_sha256_init(sj_sha256 *s);
void sj_sha256_update(sj_sha256 *s, const void *data, size_t len);
void sj_sha256_final(sj_sha256 *s, unsigned char digest[32]);
/* The digest of data as 64 lowercase hex digits and a NUL. */
void sj_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
