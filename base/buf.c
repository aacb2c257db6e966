#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sj_buf_reserve(sj_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = realloc(b->data, cap);
  if (!b->data) abort();
  b->cap = cap;
}

void sj_buf_printf(sj_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  sj_buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void sj_buf_puts(sj_buf *b, const char *s) {
  size_t n = strlen(s);
  sj_buf_reserve(b, n);
  memcpy(b->data + b->len, s, n + 1);
  b->len += n;
}

char *sj_buf_take(sj_buf *b) {
  char *s = b->data ? b->data : calloc(1, 1);
  b->data = NULL;
  b->len = b->cap = 0;
  return s;
}

void sj_buf_free(sj_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
