/* The parser of the C99 subset: source text to the typed AST of base/ast.h. */
#ifndef SJ_PARSE_H
#define SJ_PARSE_H

#include "base/ast.h"

/* Parses source; on failure returns NULL and fills err (JIT_ERR_SYNTAX for malformed C,
 * JIT_ERR_UNSUPPORTED for C outside the subset), with "name:line:col: message". */
sj_program *sj_parse(const char *source, const char *source_name, sj_error *err);

/* Replaces the locals that only name a value by their initializers, in place
 * (jit/constants.c; before sj_unroll_windows). */
void sj_fold_const_locals(sj_program *p);

/* Turns ifs whose condition reads data, over straight-line code, into assignments that
 * choose their value (jit/ifconv.c; after sj_fold_const_locals, before sj_unroll_windows). */
void sj_if_convert(sj_program *p);

/* Unrolls the window loops of every function in place (jit/window.c):
 * loops with constant bounds inside another loop whose bodies only update locals. */
void sj_unroll_windows(sj_program *p);

#endif
