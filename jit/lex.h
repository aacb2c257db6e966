/* Tokens of C99 source text, produced one at a time.
 *
 * The lexer knows all of C's tokens, including the ones the subset refuses (strings, `<<`,
 * `->` ...), so the parser can name the refused construct. `#include` lines and the line
 * markers of preprocessed text (`# 12 "file.c"`, `#line`) are skipped; `#pragma` lines are
 * skipped and kept (scop and endscop aside) for the explanation; the directives of macros
 * and conditionals come out as SJ_T_DIRECTIVE tokens for jit/macro.c; others are refused
 * here. Locations are 1-based line:col of the
 * token's first byte; a tab counts as one column. */
#ifndef SJ_LEX_H
#define SJ_LEX_H

#include "base/ast.h"

/* Keywords: SJ_K_INT ... */
// clang-format off
#define SJ_KEYWORDS(X)                                                                     \
  X(AUTO, "auto") X(BREAK, "break") X(CASE, "case") X(CHAR, "char") X(CONST, "const")     \
  X(CONTINUE, "continue") X(DEFAULT, "default") X(DO, "do") X(DOUBLE, "double")          \
  X(ELSE, "else") X(ENUM, "enum") X(EXTERN, "extern") X(FLOAT, "float") X(FOR, "for")     \
  X(GOTO, "goto") X(IF, "if") X(INLINE, "inline") X(INT, "int") X(LONG, "long")           \
  X(REGISTER, "register") X(RESTRICT, "restrict") X(RETURN, "return") X(SHORT, "short")  \
  X(SIGNED, "signed") X(SIZEOF, "sizeof") X(STATIC, "static") X(STRUCT, "struct")        \
  X(SWITCH, "switch") X(TYPEDEF, "typedef") X(UNION, "union") X(UNSIGNED, "unsigned")     \
  X(VOID, "void") X(VOLATILE, "volatile") X(WHILE, "while") X(BOOL, "_Bool")             \
  X(COMPLEX, "_Complex") X(IMAGINARY, "_Imaginary")

/* Punctuators of more than one character (SJ_T_*), longest first for the lexer; single
 * characters are their own kind. */
#define SJ_PUNCTS(X)                                                                       \
  X(SHLEQ, "<<=") X(SHREQ, ">>=") X(ELLIPSIS, "...") X(ARROW, "->") X(INC, "++")          \
  X(DEC, "--") X(SHL, "<<") X(SHR, ">>") X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=")  \
  X(ANDAND, "&&") X(OROR, "||") X(ADDEQ, "+=") X(SUBEQ, "-=") X(MULEQ, "*=")              \
  X(DIVEQ, "/=") X(REMEQ, "%=") X(ANDEQ, "&=") X(OREQ, "|=") X(XOREQ, "^=")
// clang-format on

#define SJ_TOKEN_ENUM(name, text) SJ_T_##name,
#define SJ_KEYWORD_ENUM(name, text) SJ_K_##name,
enum {
  SJ_T_EOF = 256,
  SJ_T_IDENT,
  SJ_T_INT,    /* ival, type int, long, unsigned int or unsigned long (bits in ival) */
  SJ_T_FLOAT,  /* fval, type float or double */
  SJ_T_STRING, /* only to refuse it */
  SJ_T_CHAR,   /* a character constant: ival, type int */
  /* a #define, #undef, #ifdef, #ifndef, #if, #elif, #else or #endif line, whole (text, len),
   * for the preprocessor layer (jit/macro.c): the parser never sees one */
  SJ_T_DIRECTIVE,
  SJ_PUNCTS(SJ_TOKEN_ENUM) SJ_KEYWORDS(SJ_KEYWORD_ENUM)
};
#undef SJ_TOKEN_ENUM
#undef SJ_KEYWORD_ENUM

typedef struct sj_token {
  int kind; /* a character for one-character punctuators, else SJ_T_* */
  sj_loc loc;
  const char *text; /* into the source, len bytes */
  size_t len;
  sj_type type; /* literals */
  long ival;
  double fval;
  int replayed; /* given back to the preprocessor once read (sj_pp_unread): not expanded again */
} sj_token;

typedef struct sj_lexer {
  const char *p, *line_start;
  int line;
  int at_line_start; /* only blanks and comments since the last newline: '#' is a directive */
  const char *source_name;
  sj_arena *arena; /* scratch copies of floating literals, pragmas */
  sj_error *err;
  sj_pragma *pragmas; /* the ignored ones, in the arena */
  int npragmas, cappragmas;
  sj_pragma *includes; /* the headers skipped `#include`s named, whose standard macros the
                          preprocessor defines */
  int nincludes, capincludes;
} sj_lexer;

void sj_lex_init(sj_lexer *lx, const char *src, const char *source_name, sj_arena *arena,
                 sj_error *err);
/* Next token into t; returns 0, or a jit_status with err filled (t->loc set). */
int sj_lex_next(sj_lexer *lx, sj_token *t);
/* Skips the text of a conditional group that does not count, whole lines, up to the next
 * directive (or the end): it need not be made of C tokens. */
void sj_lex_skip_lines(sj_lexer *lx);
/* Spelling of a token kind for messages: ";", "<=", "for", "identifier". */
const char *sj_tok_spelling(int kind);

#endif
