#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

static int vset(sj_error *err, int status, const char *prefix, const char *fmt, va_list ap) {
  size_t n;
  if (!err) return status;
  err->status = status;
  n = (size_t)snprintf(err->msg, sizeof err->msg, "%s", prefix);
  if (n < sizeof err->msg) vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
  return status;
}

int sj_error_at(sj_error *err, int status, const char *source_name, sj_loc loc, const char *fmt,
                ...) {
  /* The prefix is bounded separately so a long source name cannot hide the line:col. */
  char prefix[256];
  va_list ap;
  int r;
  snprintf(prefix, sizeof prefix, "%.200s:%d:%d: ", source_name ? source_name : "<source>",
           loc.line, loc.col);
  va_start(ap, fmt);
  r = vset(err, status, prefix, fmt, ap);
  va_end(ap);
  return r;
}

int sj_error_set(sj_error *err, int status, const char *fmt, ...) {
  va_list ap;
  int r;
  va_start(ap, fmt);
  r = vset(err, status, "", fmt, ap);
  va_end(ap);
  return r;
}
