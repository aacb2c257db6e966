/* A growable text buffer: the printers' output and every explanation. */
#ifndef SJ_BUF_H
#define SJ_BUF_H

#include <stddef.h>

typedef struct sj_buf {
  char *data; /* NUL-terminated; NULL until the first write */
  size_t len, cap;
} sj_buf;

void sj_buf_printf(sj_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sj_buf_puts(sj_buf *b, const char *s);
void sj_buf_reserve(sj_buf *b, size_t extra); /* room for extra more bytes and a NUL */
char *sj_buf_take(sj_buf *b); /* the text (malloc'd, never NULL); b is empty afterwards */
void sj_buf_free(sj_buf *b);

#endif
