/* Errors of every stage: a status and one formatted message, with the source position
 * where the source is at fault. */
#ifndef SJ_ERROR_H
#define SJ_ERROR_H

typedef struct sj_loc {
  int line, col; /* 1-based */
} sj_loc;

/* Error of any stage: a status (jit_status values) and one formatted message. */
typedef struct sj_error {
  int status;
  char msg[1024];
} sj_error;

/* "name:line:col: message" into err; returns err->status. */
int sj_error_at(sj_error *err, int status, const char *source_name, sj_loc loc, const char *fmt,
                ...) __attribute__((format(printf, 5, 6)));
int sj_error_set(sj_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
