/* The parser of the C99 subset: source text to the typed AST of base/ast.h. */
#ifndef SJ_PARSE_H
#define SJ_PARSE_H

#include "base/ast.h"

/* Parses source; on failure returns NULL and fills err (JIT_ERR_SYNTAX for malformed C,
 * JIT_ERR_UNSUPPORTED for C outside the subset), with "name:line:col: message". */
sj_program *sj_parse(const char *source, const char *source_name, sj_error *err);
/* The same for the entry named entry: a declaration the parser refuses is left out (recorded in
 * sj_program.failed) where the entry does not reach it, as a program's main() beside the
 * kernel; NULL with its error where the entry is one or reaches one. Without an entry (NULL),
 * only a refused main() is left out. */
sj_program *sj_parse_for(const char *source, const char *source_name, const char *entry,
                         sj_error *err);

/* Makes each local array of one element accessed only as element 0 a scalar local, and
 * writes the values of scalars read only by the statements after their declarations where they
 * are read (sj_forward_values); in place (jit/scalar.c; first, before sj_fold_const_locals). */
void sj_scalar_cells(sj_program *p);

/* Writes the value of each scalar local that only assignments and declarations after it in its
 * block read where they read it, and drops the declaration, where nothing before the last
 * reader writes what the value reads; shape (the sizes by parameter index, or NULL) tells
 * subscripts apart (`A[0]` is not `A[N - 2]` where N is 5). */
void sj_forward_values(sj_arena *a, sj_func *fn, const long *shape);

/* Replaces the locals that only name a value by their initializers, in place
 * (jit/constants.c; before sj_unroll_windows). */
void sj_fold_const_locals(sj_program *p);

/* Turns ifs whose condition reads data, over straight-line code, and affine ifs that only
 * choose locals' values, into assignments that choose their value; then moves declarations
 * into the loops that write them first (jit/ifconv.c; after sj_fold_const_locals, before
 * sj_unroll_windows). */
void sj_if_convert(sj_program *p);

/* Moves the declarations of scalar locals that every iteration of a loop writes before it
 * reads them into that loop's body (jit/sink.c; sj_if_convert's last step but one). */
void sj_sink_locals(sj_arena *a, sj_stmt *body);

/* Unrolls the window loops of every function in place (jit/window.c):
 * loops with constant bounds inside another loop whose bodies only update locals. */
void sj_unroll_windows(sj_program *p);

#endif
