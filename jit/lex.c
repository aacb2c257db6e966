/* The lexer: C99 tokens with line:col, literal types and values as C gives them. */
#define _POSIX_C_SOURCE 200809L /* newlocale, uselocale */
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"
#include "jit/lex.h"

#define SJ_TOKEN_TEXT(name, text) text,
static const char *const keywords[] = {SJ_KEYWORDS(SJ_TOKEN_TEXT)};
static const char *const puncts[] = {SJ_PUNCTS(SJ_TOKEN_TEXT)};
#undef SJ_TOKEN_TEXT
enum { NKEYWORDS = sizeof keywords / sizeof *keywords, NPUNCTS = sizeof puncts / sizeof *puncts };

/* GCC's alternate spellings of keywords, which C code written for GCC and Clang uses. */
static const struct {
  const char *text;
  int kind;
} gnu_spellings[] = {{"__restrict", SJ_K_RESTRICT}, {"__restrict__", SJ_K_RESTRICT},
                     {"__inline", SJ_K_INLINE},     {"__inline__", SJ_K_INLINE},
                     {"__const", SJ_K_CONST},       {"__volatile__", SJ_K_VOLATILE},
                     {"__signed__", SJ_K_SIGNED}};

static const char singles[] = "+-*/%<>=!&|^~?:;,.()[]{}#";
/* singles[i] spelled as a string: the i-th pair of singles_str. */
static const char singles_str[] =
    "+\0-\0*\0/\0%\0<\0>\0=\0!\0&\0|\0^\0~\0?\0:\0;\0,\0.\0(\0)\0[\0]\0{"
    "\0}\0#";

const char *sj_tok_spelling(int kind) {
  const char *s;
  if (kind > 0 && kind < 128 && (s = strchr(singles, kind))) return singles_str + 2 * (s - singles);
  if (kind >= SJ_T_SHLEQ && kind < SJ_T_SHLEQ + NPUNCTS) return puncts[kind - SJ_T_SHLEQ];
  if (kind >= SJ_K_AUTO && kind < SJ_K_AUTO + NKEYWORDS) return keywords[kind - SJ_K_AUTO];
  switch (kind) {
  case SJ_T_EOF:
    return "end of input";
  case SJ_T_IDENT:
    return "identifier";
  case SJ_T_INT:
    return "integer constant";
  case SJ_T_FLOAT:
    return "floating constant";
  case SJ_T_STRING:
    return "string literal";
  case SJ_T_CHAR:
    return "character constant";
  case SJ_T_DIRECTIVE:
    return "preprocessor directive";
  }
  return "token";
}

/* ASCII only: <ctype.h> depends on the locale and is undefined for bytes above 127. */
static int is_digit(int c) {
  return c >= '0' && c <= '9';
}
static int is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_alnum(int c) {
  return is_alpha(c) || is_digit(c);
}
static int is_hex(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static int hex_value(int c) {
  return is_digit(c) ? c - '0' : (c | 32) - 'a' + 10;
}

void sj_lex_init(sj_lexer *lx, const char *src, const char *source_name, sj_arena *arena,
                 sj_error *err) {
  memset(lx, 0, sizeof *lx);
  lx->p = lx->line_start = src;
  lx->line = 1;
  lx->at_line_start = 1;
  lx->source_name = source_name;
  lx->arena = arena;
  lx->err = err;
}

static sj_loc here(const sj_lexer *lx, const char *p) {
  sj_loc l;
  l.line = lx->line;
  l.col = (int)(p - lx->line_start) + 1;
  return l;
}

static void newline(sj_lexer *lx, const char *after) {
  lx->line++;
  lx->line_start = after;
  lx->at_line_start = 1;
}

/* Errors of the token t, from functions holding lx and t. */
#define FAIL(status, ...) sj_error_at(lx->err, status, lx->source_name, t->loc, __VA_ARGS__)
#define TEXT (int)t->len, t->text

/* text (its trailing blanks cut) onto a list of the lexer's, in its arena. */
static void keep(sj_lexer *lx, sj_pragma **list, int *n, int *cap, const char *text, size_t len,
                 sj_loc loc) {
  while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r')) len--;
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 4;
    sj_pragma *v = sj_arena_alloc(lx->arena, (size_t)*cap * sizeof *v);
    if (*n) memcpy(v, *list, (size_t)*n * sizeof *v);
    *list = v;
  }
  (*list)[*n].text = sj_arena_strndup(lx->arena, text, len);
  (*list)[(*n)++].loc = loc;
}

static int word_is(const char *w, size_t n, const char *s) {
  return strlen(s) == n && !memcmp(w, s, n);
}

/* Skipped: `#include <...>` and `#include "..."` (users include math.h), line markers of
 * preprocessed text, the null directive, and pragmas, which are kept for the explanation
 * unless they are the scop / endscop that delimit a PolyBench kernel (the whole function is
 * the region). Any other directive is left for the preprocessor layer: lx->p stays at '#'. */
static int directive(sj_lexer *lx, sj_token *t) {
  const char *p = lx->p + 1, *name;
  t->loc = here(lx, lx->p);
  while (*p == ' ' || *p == '\t') p++;
  name = p;
  while (is_alnum((unsigned char)*p)) p++;
  size_t n = (size_t)(p - name);
  if (word_is(name, n, "include")) {
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '<' && *p != '"')
      return FAIL(JIT_ERR_UNSUPPORTED, "#include of a macro name is not supported");
    const char *header = ++p;
    while (*p && *p != '\n' && *p != '>' && *p != '"') p++;
    keep(lx, &lx->includes, &lx->nincludes, &lx->capincludes, header, (size_t)(p - header), t->loc);
  } else if (word_is(name, n, "pragma")) {
    while (*p == ' ' || *p == '\t') p++;
    const char *text = p, *w = p;
    while (*p && *p != '\n') p++;
    while (is_alnum((unsigned char)*w)) w++;
    size_t wn = (size_t)(w - text);
    if (!word_is(text, wn, "scop") && !word_is(text, wn, "endscop"))
      keep(lx, &lx->pragmas, &lx->npragmas, &lx->cappragmas, text, (size_t)(p - text), t->loc);
  } else if (!word_is(name, n, "line") && !(n && is_digit((unsigned char)*name)) &&
             (n || (*p != '\n' && *p != '\0'))) {
    return 0;
  }
  while (*p && *p != '\n') p++;
  lx->p = p;
  return 0;
}

/* Blanks, comments and skipped directives; leaves lx->p at the next token (DIRECTIVE_TOKEN
 * where it is a directive of the preprocessor layer). A backslash before a newline splices
 * lines, as in C's translation phase 2. */
static int skip(sj_lexer *lx, sj_token *t) {
  for (;;) {
    const char *p = lx->p;
    if (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
      p += p[1] == '\r' ? 3 : 2;
      newline(lx, p);
      lx->at_line_start = 0;
      lx->p = p;
    } else if (*p == '\n') {
      newline(lx, p + 1);
      lx->p = p + 1;
    } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
      lx->p = p + 1;
    } else if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') p++;
      lx->p = p;
    } else if (p[0] == '/' && p[1] == '*') {
      t->loc = here(lx, p);
      for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
        if (*p == '\n') newline(lx, p + 1);
      if (!*p) return FAIL(JIT_ERR_SYNTAX, "unterminated comment");
      lx->p = p + 2;
    } else if (*p == '#' && lx->at_line_start) {
      int r = directive(lx, t);
      if (r) return r;
      if (lx->p == p) return 0; /* a directive token */
    } else {
      return 0;
    }
  }
}

void sj_lex_skip_lines(sj_lexer *lx) {
  const char *p = lx->p;
  for (;;) {
    if (lx->at_line_start) {
      const char *q = p;
      while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v') q++;
      if (*q == '#' || !*q) break;
    }
    if (!*p) break;
    if (p[0] == '/' && p[1] == '*') { /* a comment may hide a newline and a '#' */
      for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
        if (*p == '\n') newline(lx, p + 1), lx->at_line_start = 0;
      p += *p ? 2 : 0;
      lx->at_line_start = 0;
    } else if (*p == '\n') {
      newline(lx, ++p);
    } else {
      p += p[0] == '\\' && p[1] == '\n' ? 2 : 1;
      lx->at_line_start = 0;
    }
  }
  lx->p = p;
}

/* strtod/strtof in the "C" locale: the host program may have set one with a decimal comma. */
static double to_double(const char *s, char **end, int as_float) {
  locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  locale_t old = c ? uselocale(c) : (locale_t)0;
  double v = as_float ? (double)strtof(s, end) : strtod(s, end);
  if (c) {
    uselocale(old);
    freelocale(c);
  }
  return v;
}

static int floating(sj_lexer *lx, sj_token *t, int hex) {
  const char *s = t->text;
  size_t n = t->len;
  char last = s[n - 1], *copy, *end;
  int as_float = last == 'f' || last == 'F';
  if (last == 'l' || last == 'L')
    return FAIL(JIT_ERR_UNSUPPORTED,
                "floating constant '%.*s' has type long double, which is not supported", TEXT);
  if (as_float) n--;
  if (hex && !memchr(s, 'p', n) && !memchr(s, 'P', n))
    return FAIL(JIT_ERR_SYNTAX, "hexadecimal floating constant '%.*s' needs an exponent (p)", TEXT);
  copy = sj_arena_strndup(lx->arena, s, n);
  t->fval = to_double(copy, &end, as_float);
  if (end != copy + n) return FAIL(JIT_ERR_SYNTAX, "invalid floating constant '%.*s'", TEXT);
  t->kind = SJ_T_FLOAT;
  t->type = as_float ? SJ_TY_FLOAT : SJ_TY_DOUBLE;
  return 0;
}

/* C99 6.4.4.1: the first type of the constant's list that holds its value; long long is
 * long (both 64-bit on the platforms we support). */
static int integer(sj_lexer *lx, sj_token *t, int hex) {
  const char *s = t->text, *p = s, *q, *end = s + t->len;
  unsigned long v = 0;
  int base = hex ? 16 : (s[0] == '0' ? 8 : 10), too_big = 0, nl = 0, nu = 0;
  if (hex) p += 2;
  for (; p < end && (base == 16 ? is_hex(*p) : is_digit(*p)); p++) {
    int d = base == 16 ? hex_value(*p) : *p - '0';
    if (d >= base) return FAIL(JIT_ERR_SYNTAX, "invalid digit '%c' in octal constant", *p);
    if (v > (ULONG_MAX - (unsigned long)d) / (unsigned long)base) too_big = 1;
    v = v * (unsigned long)base + (unsigned long)d;
  }
  if (hex && p == s + 2) return FAIL(JIT_ERR_SYNTAX, "invalid hexadecimal constant '%.*s'", TEXT);
  /* Suffix: u? (l | L | ll | LL)? u?, with at most one u. */
  q = p;
  if (q < end && (*q == 'u' || *q == 'U')) nu++, q++;
  if (q < end && (*q == 'l' || *q == 'L')) nl++, q++;
  if (nl && q < end && *q == q[-1]) nl++, q++;
  if (!nu && q < end && (*q == 'u' || *q == 'U')) nu++, q++;
  if (q != end)
    return FAIL(JIT_ERR_SYNTAX, "invalid suffix '%.*s' on integer constant", (int)(end - p), p);
  int unsigned_ok = nu || base != 10;
  if (too_big || (!unsigned_ok && v > (unsigned long)LONG_MAX))
    return FAIL(JIT_ERR_UNSUPPORTED, "integer constant '%.*s' is too large", TEXT);
  t->kind = SJ_T_INT;
  if (!nl && !nu && v <= INT_MAX)
    t->type = SJ_TY_INT;
  else if (!nl && unsigned_ok && v <= UINT_MAX)
    t->type = SJ_TY_UINT;
  else if (!nu && v <= (unsigned long)LONG_MAX)
    t->type = SJ_TY_LONG;
  else
    t->type = SJ_TY_ULONG;
  t->ival = (long)v;
  return 0;
}

/* A C preprocessing number, then classified: the text decides int or floating. */
static int number(sj_lexer *lx, sj_token *t) {
  const char *p = lx->p;
  int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X'), is_float = 0;
  for (;;) {
    char c = *p;
    if ((c == '+' || c == '-') &&
        (hex ? (p[-1] == 'p' || p[-1] == 'P') : (p[-1] == 'e' || p[-1] == 'E')))
      is_float = 1;
    else if (c == '.')
      is_float = 1;
    else if ((c == 'e' || c == 'E') && !hex)
      is_float = 1;
    else if ((c == 'p' || c == 'P') && hex)
      is_float = 1;
    else if (!is_alnum((unsigned char)c))
      break;
    p++;
  }
  t->len = (size_t)(p - t->text);
  lx->p = p;
  return is_float ? floating(lx, t, hex) : integer(lx, t, hex);
}

/* The value of the escape sequence at *pp (after the backslash); -1 if unknown. */
static int escape(const char **pp) {
  const char *p = *pp;
  static const char simple[] = "n\nt\tr\rv\vf\fa\ab\b\\\\''\"\"??"; /* pairs */
  int v = -1;
  if (*p == 'x' && is_hex((unsigned char)p[1])) {
    v = 0;
    for (p++; is_hex((unsigned char)*p) && v < 256; p++) v = v * 16 + hex_value(*p);
  } else if (*p >= '0' && *p <= '7') {
    v = 0;
    for (int k = 0; k < 3 && *p >= '0' && *p <= '7'; k++, p++) v = v * 8 + (*p - '0');
  } else {
    for (const char *s = simple; *s; s += 2)
      if (*s == *p) v = (unsigned char)s[1], p++;
  }
  *pp = p;
  return v;
}

/* Strings are tokens only to be refused; a character constant has type int and, for one
 * plain character or escape, the value of a char converted to int as the platform does. */
static int quoted(sj_lexer *lx, sj_token *t) {
  char q = *lx->p;
  const char *p = lx->p + 1;
  while (*p && *p != q && *p != '\n') p += p[0] == '\\' && p[1] && p[1] != '\n' ? 2 : 1;
  if (*p != q) return FAIL(JIT_ERR_SYNTAX, "missing terminating %c character", q);
  lx->p = p + 1;
  t->kind = q == '"' ? SJ_T_STRING : SJ_T_CHAR;
  t->len = (size_t)(lx->p - t->text);
  if (q == '"') return 0;
  const char *c = t->text + 1;
  int v = *c == '\\' ? (c++, escape(&c)) : (unsigned char)*c++;
  if (v < 0 || v > 255 || c != p || c == t->text + 1)
    return FAIL(JIT_ERR_UNSUPPORTED, "character constant %.*s is not supported", TEXT);
  t->type = SJ_TY_INT;
  t->ival = (long)(char)v;
  return 0;
}

int sj_lex_next(sj_lexer *lx, sj_token *t) {
  const char *p;
  int r, i;
  memset(t, 0, sizeof *t);
  if ((r = skip(lx, t))) return r;
  p = lx->p;
  t->loc = here(lx, p);
  t->text = p;
  int directive_here = *p == '#' && lx->at_line_start;
  lx->at_line_start = 0;
  if (!*p) {
    t->kind = SJ_T_EOF;
    return 0;
  }
  if (directive_here) { /* the whole line, its splices included */
    while (*p && *p != '\n')
      if (p[0] == '\\' && p[1] == '\n')
        p += 2, newline(lx, p), lx->at_line_start = 0;
      else
        p++;
    t->kind = SJ_T_DIRECTIVE;
    t->len = (size_t)(p - t->text);
    lx->p = p;
    return 0;
  }
  if (is_alpha((unsigned char)*p)) {
    while (is_alnum((unsigned char)*p)) p++;
    t->len = (size_t)(p - t->text);
    lx->p = p;
    t->kind = SJ_T_IDENT;
    for (i = 0; i < NKEYWORDS; i++)
      if (strlen(keywords[i]) == t->len && !memcmp(keywords[i], t->text, t->len))
        t->kind = SJ_K_AUTO + i;
    for (i = 0; i < (int)(sizeof gnu_spellings / sizeof *gnu_spellings); i++)
      if (strlen(gnu_spellings[i].text) == t->len &&
          !memcmp(gnu_spellings[i].text, t->text, t->len))
        t->kind = gnu_spellings[i].kind;
    return 0;
  }
  if (is_digit((unsigned char)*p) || (*p == '.' && is_digit((unsigned char)p[1])))
    return number(lx, t);
  if (*p == '"' || *p == '\'') return quoted(lx, t);
  for (i = 0; i < NPUNCTS; i++) {
    size_t n = strlen(puncts[i]);
    if (!strncmp(p, puncts[i], n)) {
      t->kind = SJ_T_SHLEQ + i;
      t->len = n;
      lx->p = p + n;
      return 0;
    }
  }
  if (strchr(singles, *p)) {
    t->kind = (unsigned char)*p;
    t->len = 1;
    lx->p = p + 1;
    return 0;
  }
  if ((unsigned char)*p >= 32 && (unsigned char)*p < 127)
    return FAIL(JIT_ERR_SYNTAX, "unexpected character '%c'", *p);
  return FAIL(JIT_ERR_SYNTAX, "unexpected byte 0x%02x", (unsigned char)*p);
}
