/* The preprocessor layer between the lexer and the parser: object-like and function-like
 * macros (#define, #undef) expanded as C does, and conditional groups (#ifdef, #ifndef, #if,
 * #elif, #else, #endif; #if takes an integer constant expression with defined). Not
 * supported, and refused with line:col: the # and ## operators, variadic macros. Tokens of
 * an expansion are located at the macro's use, where an error in them is reported. */
#ifndef SJ_MACRO_H
#define SJ_MACRO_H

#include "jit/lex.h"

typedef struct sj_macro sj_macro;

typedef struct sj_pp {
  sj_lexer lx;
  sj_macro *macros;
  sj_token *pending; /* tokens to read before the lexer's: the next one last */
  int npending, cappending;
  struct {
    sj_macro *m;
    int floor; /* m's expansion lies in pending[floor..]: m is off until it is read */
  } active[64];
  int nactive;
  long expanded; /* tokens produced by expansions so far */
  /* open conditional groups, innermost last: whether its tokens count, whether a branch
   * of it was taken, whether #else was seen */
  struct {
    int live, taken, in_else;
    sj_loc loc;
  } cond[64];
  int ncond;
  int includes_seen; /* of lx.includes */
} sj_pp;

void sj_pp_init(sj_pp *pp, const char *src, const char *source_name, sj_arena *arena,
                sj_error *err);
/* The next token after preprocessing into t; 0, or a jit_status with err filled. */
int sj_pp_next(sj_pp *pp, sj_token *t);
/* Gives back the n tokens of t, read through sj_pp_next, to be read again first, in order and
 * as they are (not expanded again). */
void sj_pp_unread(sj_pp *pp, const sj_token *t, int n);
/* The macros an `#include` of the standard header (as "math.h") defines, each "NAME body";
 * NULL-terminated, NULL for a header without such macros. */
const char *const *sj_pp_header_macros(const char *header);

#endif
