/* What every fuzz target requires of a refusal: a status the input can cause, and a
 * message that starts with name:line:col. Anything else aborts, which libFuzzer reports
 * with the input. */
#ifndef SJ_FUZZ_CHECK_H
#define SJ_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"

#define SJ_FUZZ_NAME "fuzz.c"

static inline void sj_fuzz_expect_position(int status, const char *msg) {
  int line = 0, col = 0, n = 0;
  int input_status = status == JIT_ERR_SYNTAX || status == JIT_ERR_UNSUPPORTED ||
                     status == JIT_ERR_ARGS || status == JIT_ERR_LIMIT;
  if (input_status && sscanf(msg, SJ_FUZZ_NAME ":%d:%d: %n", &line, &col, &n) == 2 && n > 0 &&
      line >= 1 && col >= 1 && msg[n])
    return;
  fprintf(stderr, "refusal without a status of the input or without line:col: status %d: %s\n",
          status, msg);
  abort();
}

/* The input as a NUL-terminated string (malloc'd). */
static inline char *sj_fuzz_text(const unsigned char *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  return text;
}

#endif
