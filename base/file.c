#include "base/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

char *sj_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 0, n = 0, got = 1;
  char *text = NULL;
  while (got) {
    if (cap - n < 2) {
      char *bigger = realloc(text, cap = cap ? 2 * cap : 16384);
      if (!bigger) {
        free(text);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      text = bigger;
    }
    got = fread(text + n, 1, cap - 1 - n, f);
    n += got;
  }
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    free(text);
    errno = EIO;
    return NULL;
  }
  text[n] = 0;
  if (len) *len = n;
  return text;
}
