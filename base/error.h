/* Errors of every stage: a status and one formatted message, with the source position
 * where the source is at fault. */
#ifndef SJ_ERROR_H
#define SJ_ERROR_H

typedef struct sj_loc {
  int line, col; /* 1-based */
} sj_loc;

/* A run-time check of the generated code: where it is in the source and what it checks
 * (the operations C leaves undefined that the targets would not agree on). */
typedef enum sj_trap_kind { SJ_TRAP_DIVISION, SJ_TRAP_SHIFT } sj_trap_kind;
typedef struct sj_trap {
  sj_loc loc;
  sj_trap_kind kind;
} sj_trap;

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
