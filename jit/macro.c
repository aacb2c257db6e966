/* Macros and conditional groups on the lexer's tokens (jit/macro.h). Expansion follows C's
 * rescanning, with one simplification: a macro is off from the start of its expansion until
 * the last token of it is read (C's hide sets are per token). Arguments are substituted as
 * written and expanded when the result is rescanned. */
#include "jit/macro.h"

#include <string.h>

#include "stenciljit.h"

#define MAX_PARAMS 64
/* Tokens all expansions may produce: a chain of macros each using the next twice grows
 * exponentially, and a hostile source must not take the process's memory. */
#define MAX_EXPANDED (1 << 20)

struct sj_macro {
  const char *name;
  size_t len;
  int function_like, nparams;
  sj_token *params; /* their names */
  sj_token *body;
  int nbody;
  sj_macro *next;
};

#define FAIL(loc, status, ...) sj_error_at(pp->lx.err, status, pp->lx.source_name, loc, __VA_ARGS__)

void sj_pp_init(sj_pp *pp, const char *src, const char *source_name, sj_arena *arena,
                sj_error *err) {
  memset(pp, 0, sizeof *pp);
  sj_lex_init(&pp->lx, src, source_name, arena, err);
}

static int same_name(const sj_token *t, const char *name, size_t len) {
  return t->len == len && !memcmp(t->text, name, len);
}

static sj_macro *find(sj_pp *pp, const sj_token *t) {
  for (sj_macro *m = pp->macros; m; m = m->next)
    if (same_name(t, m->name, m->len)) return m;
  return NULL;
}

static int is_active(const sj_pp *pp, const sj_macro *m) {
  for (int i = 0; i < pp->nactive; i++)
    if (pp->active[i].m == m) return 1;
  return 0;
}

static void push(sj_pp *pp, const sj_token *t) {
  if (pp->npending == pp->cappending) {
    int cap = pp->cappending ? 2 * pp->cappending : 64;
    sj_token *v = sj_arena_alloc(pp->lx.arena, (size_t)cap * sizeof *v);
    if (pp->npending) memcpy(v, pp->pending, (size_t)pp->npending * sizeof *v);
    pp->pending = v, pp->cappending = cap;
  }
  pp->pending[pp->npending++] = *t;
}

static int directive(sj_pp *pp, const sj_token *d);
static int standard_macros(sj_pp *pp, const char *header);

static int dead(const sj_pp *pp) {
  return pp->ncond && !pp->cond[pp->ncond - 1].live;
}

/* The next token before expansion: pending ones first, then the lexer's, directives done and
 * the tokens of groups that do not count dropped. */
static int raw(sj_pp *pp, sj_token *t) {
  while (pp->nactive && pp->npending <= pp->active[pp->nactive - 1].floor) pp->nactive--;
  if (pp->npending) {
    *t = pp->pending[--pp->npending];
    return 0;
  }
  for (;;) {
    if (dead(pp)) sj_lex_skip_lines(&pp->lx);
    int r = sj_lex_next(&pp->lx, t);
    if (r) return r;
    for (; pp->includes_seen < pp->lx.nincludes; pp->includes_seen++)
      if (!dead(pp) && (r = standard_macros(pp, pp->lx.includes[pp->includes_seen].text))) return r;
    if (t->kind == SJ_T_DIRECTIVE) {
      if ((r = directive(pp, t))) return r;
    } else if (t->kind == SJ_T_EOF && pp->ncond) {
      return FAIL(pp->cond[pp->ncond - 1].loc, JIT_ERR_SYNTAX, "unterminated conditional group");
    } else if (!dead(pp)) {
      return 0;
    }
  }
}

/* --- expansion --- */

typedef struct span {
  int start, n; /* in a token vector */
} span;

typedef struct tokvec {
  sj_token *v;
  int n, cap;
  sj_arena *a;
} tokvec;

static void add(tokvec *out, const sj_token *t) {
  if (out->n == out->cap) {
    int cap = out->cap ? 2 * out->cap : 32;
    sj_token *v = sj_arena_alloc(out->a, (size_t)cap * sizeof *v);
    if (out->n) memcpy(v, out->v, (size_t)out->n * sizeof *v);
    out->v = v, out->cap = cap;
  }
  out->v[out->n++] = *t;
}

/* The arguments of a call of m whose '(' was just read, into args (one span each). */
static int arguments(sj_pp *pp, const sj_macro *m, const sj_token *use, tokvec *toks, span *args) {
  int depth = 0, n = 0, r;
  sj_token t;
  args[0].start = 0, args[0].n = 0;
  for (;;) {
    if ((r = raw(pp, &t))) return r;
    if (t.kind == SJ_T_EOF)
      return FAIL(use->loc, JIT_ERR_SYNTAX, "unterminated argument list of macro '%.*s'",
                  (int)m->len, m->name);
    if (depth == 0 && (t.kind == ')' || t.kind == ',')) {
      n++;
      if (t.kind == ')') break;
      if (n < MAX_PARAMS) args[n].start = toks->n, args[n].n = 0;
      continue;
    }
    depth += t.kind == '(' ? 1 : t.kind == ')' ? -1 : 0;
    add(toks, &t);
    if (n < MAX_PARAMS) args[n].n++;
  }
  if (n == 1 && m->nparams == 0 && args[0].n == 0) return 0;
  if (n != m->nparams)
    return FAIL(use->loc, JIT_ERR_SYNTAX, "macro '%.*s' takes %d argument%s, given %d", (int)m->len,
                m->name, m->nparams, m->nparams == 1 ? "" : "s", n);
  return 0;
}

/* Pushes the expansion of m at use (its arguments read) to be read next. */
static int expand(sj_pp *pp, sj_macro *m, const sj_token *use) {
  tokvec toks = {.a = pp->lx.arena}, out = {.a = pp->lx.arena};
  span args[MAX_PARAMS];
  int r;
  if (m->function_like && (r = arguments(pp, m, use, &toks, args))) return r;
  for (int i = 0; i < m->nbody; i++) {
    const sj_token *b = &m->body[i];
    int param = -1;
    for (int k = 0; b->kind == SJ_T_IDENT && k < m->nparams; k++)
      if (same_name(b, m->params[k].text, m->params[k].len)) param = k;
    if (param < 0) {
      sj_token t = *b;
      t.loc = use->loc;
      add(&out, &t);
    } else {
      for (int k = 0; k < args[param].n; k++) add(&out, &toks.v[args[param].start + k]);
    }
  }
  if (pp->nactive == (int)(sizeof pp->active / sizeof *pp->active))
    return FAIL(use->loc, JIT_ERR_UNSUPPORTED, "macros nest deeper than %d expansions",
                (int)(sizeof pp->active / sizeof *pp->active));
  if ((pp->expanded += out.n) > MAX_EXPANDED)
    return FAIL(use->loc, JIT_ERR_UNSUPPORTED, "macros expand to more than %d tokens",
                MAX_EXPANDED);
  pp->active[pp->nactive].m = m;
  pp->active[pp->nactive++].floor = pp->npending;
  for (int i = out.n - 1; i >= 0; i--) push(pp, &out.v[i]);
  return 0;
}

/* The next token, macros expanded; with `defined` kept for #if when in_if. */
static int next(sj_pp *pp, sj_token *t, int in_if) {
  for (;;) {
    int r = raw(pp, t);
    if (r || t->replayed || (t->kind != SJ_T_IDENT && t->kind < SJ_K_AUTO))
      return r; /* keywords too */
    if (in_if && same_name(t, "defined", 7)) return 0;
    sj_macro *m = find(pp, t);
    if (!m || is_active(pp, m)) return 0;
    if (m->function_like) {
      sj_token paren;
      if ((r = raw(pp, &paren))) return r;
      if (paren.kind != '(') { /* a function-like macro's name alone is a name */
        push(pp, &paren);
        return 0;
      }
    }
    if ((r = expand(pp, m, t))) return r;
  }
}

int sj_pp_next(sj_pp *pp, sj_token *t) {
  return next(pp, t, 0);
}

void sj_pp_unread(sj_pp *pp, const sj_token *t, int n) {
  for (int i = n - 1; i >= 0; i--) {
    sj_token back = t[i];
    back.replayed = 1;
    push(pp, &back);
  }
}

/* --- directives --- */

/* A lexer over the directive's own text, at its line and column (splices become blanks). */
static void directive_lexer(sj_pp *pp, const sj_token *d, sj_lexer *sub) {
  size_t pad = (size_t)d->loc.col - 1;
  char *copy = sj_arena_alloc(pp->lx.arena, pad + d->len + 1);
  memset(copy, ' ', pad);
  memcpy(copy + pad, d->text, d->len);
  for (size_t i = pad; i + 1 < pad + d->len; i++)
    if (copy[i] == '\\' && copy[i + 1] == '\n') copy[i] = copy[i + 1] = ' ';
  sj_lex_init(sub, copy, pp->lx.source_name, pp->lx.arena, pp->lx.err);
  sub->line = d->loc.line;
  sub->at_line_start = 0;
}

static int define(sj_pp *pp, sj_lexer *sub, const sj_token *name) {
  sj_macro *m = sj_arena_alloc(pp->lx.arena, sizeof *m);
  tokvec params = {.a = pp->lx.arena}, body = {.a = pp->lx.arena};
  sj_token t;
  int r;
  m->name = name->text, m->len = name->len;
  if (name->text[name->len] == '(') { /* no blank before '(': function-like */
    m->function_like = 1;
    if ((r = sj_lex_next(sub, &t))) return r;
    for (int first = 1;; first = 0) {
      if ((r = sj_lex_next(sub, &t))) return r;
      if (first && t.kind == ')') break;
      if (t.kind == SJ_T_ELLIPSIS)
        return FAIL(t.loc, JIT_ERR_UNSUPPORTED, "variadic macros are not supported");
      if (t.kind != SJ_T_IDENT)
        return FAIL(t.loc, JIT_ERR_SYNTAX, "expected a parameter name in macro '%.*s'", (int)m->len,
                    m->name);
      add(&params, &t);
      if ((r = sj_lex_next(sub, &t))) return r;
      if (t.kind == ')') break;
      if (t.kind != ',')
        return FAIL(t.loc, JIT_ERR_SYNTAX, "expected ',' or ')' in the parameters of macro '%.*s'",
                    (int)m->len, m->name);
    }
    if (params.n > MAX_PARAMS)
      return FAIL(name->loc, JIT_ERR_UNSUPPORTED, "macro '%.*s' has more than %d parameters",
                  (int)m->len, m->name, MAX_PARAMS);
  }
  for (;;) {
    if ((r = sj_lex_next(sub, &t))) return r;
    if (t.kind == SJ_T_EOF) break;
    if (t.kind == '#')
      return FAIL(t.loc, JIT_ERR_UNSUPPORTED,
                  "the # and ## operators of macros are not supported (in macro '%.*s')",
                  (int)m->len, m->name);
    add(&body, &t);
  }
  m->params = params.v, m->nparams = params.n;
  m->body = body.v, m->nbody = body.n;
  m->next = pp->macros;
  pp->macros = m; /* a redefinition hides the old one */
  return 0;
}

/* The macros of the standard headers that kernels use (limits, constants): an `#include` of
 * one defines them, with the values of the LP64 C library that compiles the reference. */
static const char *const float_h[] = {"FLT_RADIX 2",
                                      "FLT_MANT_DIG 24",
                                      "DBL_MANT_DIG 53",
                                      "FLT_DIG 6",
                                      "DBL_DIG 15",
                                      "FLT_MAX 3.40282346638528859811704183484516925e+38F",
                                      "DBL_MAX 1.79769313486231570814527423731704357e+308",
                                      "FLT_MIN 1.17549435082228750796873653722224568e-38F",
                                      "DBL_MIN 2.22507385850720138309023271733240406e-308",
                                      "FLT_EPSILON 1.19209289550781250000000000000000000e-7F",
                                      "DBL_EPSILON 2.22044604925031308084726333618164062e-16",
                                      NULL};
static const char *const limits_h[] = {"CHAR_BIT 8",
                                       "SCHAR_MIN (-128)",
                                       "SCHAR_MAX 127",
                                       "UCHAR_MAX 255",
                                       "CHAR_MIN (-128)",
                                       "CHAR_MAX 127",
                                       "SHRT_MIN (-32768)",
                                       "SHRT_MAX 32767",
                                       "USHRT_MAX 65535",
                                       "INT_MIN (-2147483647 - 1)",
                                       "INT_MAX 2147483647",
                                       "UINT_MAX 4294967295U",
                                       "LONG_MIN (-9223372036854775807L - 1L)",
                                       "LONG_MAX 9223372036854775807L",
                                       "ULONG_MAX 18446744073709551615UL",
                                       "LLONG_MIN (-9223372036854775807LL - 1LL)",
                                       "LLONG_MAX 9223372036854775807LL",
                                       "ULLONG_MAX 18446744073709551615ULL",
                                       NULL};
static const char *const stdint_h[] = {"INT8_MIN (-128)",
                                       "INT8_MAX 127",
                                       "UINT8_MAX 255",
                                       "INT16_MIN (-32767 - 1)",
                                       "INT16_MAX 32767",
                                       "UINT16_MAX 65535",
                                       "INT32_MIN (-2147483647 - 1)",
                                       "INT32_MAX 2147483647",
                                       "UINT32_MAX 4294967295U",
                                       "INT64_MIN (-9223372036854775807L - 1)",
                                       "INT64_MAX 9223372036854775807L",
                                       "UINT64_MAX 18446744073709551615UL",
                                       "SIZE_MAX 18446744073709551615UL",
                                       "PTRDIFF_MIN (-9223372036854775807L - 1)",
                                       "PTRDIFF_MAX 9223372036854775807L",
                                       NULL};
static const char *const math_h[] = {
    "M_E 2.7182818284590452354", "M_LOG2E 1.4426950408889634074", "M_LOG10E 0.43429448190325182765",
    "M_LN2 0.69314718055994530942", "M_LN10 2.30258509299404568402", "M_PI 3.14159265358979323846",
    "M_PI_2 1.57079632679489661923", "M_PI_4 0.78539816339744830962",
    "M_1_PI 0.31830988618379067154", "M_2_PI 0.63661977236758134308",
    "M_2_SQRTPI 1.12837916709551257390", "M_SQRT2 1.41421356237309504880",
    "M_SQRT1_2 0.70710678118654752440",
    /* the infinities as an overflow, and the classification macros from the IEEE
     * comparisons: the same bits on every device (a NaN's bits differ, so no NAN) */
    "HUGE_VAL (1e300 * 1e300)", "HUGE_VALF ((float)(1e300 * 1e300))",
    "INFINITY ((float)(1e300 * 1e300))", "isnan(x) ((x) != (x))",
    "isinf(x) ((x) == (x) && (x) - (x) != 0)", "isfinite(x) ((x) - (x) == 0)", NULL};
static const char *const stdbool_h[] = {"bool _Bool", "true 1", "false 0",
                                        "__bool_true_false_are_defined 1", NULL};
static const struct {
  const char *header;
  const char *const *macros;
} standard[] = {{"float.h", float_h},     {"limits.h", limits_h}, {"stdint.h", stdint_h},
                {"inttypes.h", stdint_h}, {"math.h", math_h},     {"tgmath.h", math_h},
                {"stdbool.h", stdbool_h}};

const char *const *sj_pp_header_macros(const char *header) {
  for (size_t i = 0; i < sizeof standard / sizeof *standard; i++)
    if (!strcmp(header, standard[i].header)) return standard[i].macros;
  return NULL;
}

static int standard_macros(sj_pp *pp, const char *header) {
  const char *const *m = sj_pp_header_macros(header);
  for (; m && *m; m++) {
    sj_lexer sub;
    sj_token name;
    int r;
    sj_lex_init(&sub, *m, pp->lx.source_name, pp->lx.arena, pp->lx.err);
    if ((r = sj_lex_next(&sub, &name)) || (r = define(pp, &sub, &name))) return r;
  }
  return 0;
}

/* Every definition of name goes: an older one a redefinition hid must not come back. */
static void undefine(sj_pp *pp, const sj_token *name) {
  for (sj_macro **m = &pp->macros; *m;)
    if (same_name(name, (*m)->name, (*m)->len))
      *m = (*m)->next;
    else
      m = &(*m)->next;
}

/* --- #if expressions: integer constants, defined, ! - + ~, * / % + -, comparisons, && ||,
 * parentheses; identifiers left after expansion are 0, as in C --- */

typedef struct ifexpr {
  sj_pp *pp;
  sj_token t; /* the current token */
  int r;      /* a jit_status once something failed */
} ifexpr;

static void advance(ifexpr *e) {
  if (!e->r) e->r = next(e->pp, &e->t, 1);
}

static long condition(ifexpr *e);

static long primary(ifexpr *e) {
  sj_pp *pp = e->pp;
  sj_token t = e->t;
  long v = 0;
  if (e->r) return 0;
  if (t.kind == '(') {
    advance(e);
    v = condition(e);
    if (!e->r && e->t.kind != ')') e->r = FAIL(e->t.loc, JIT_ERR_SYNTAX, "expected ')' in #if");
    advance(e);
    return v;
  }
  if (t.kind == '!' || t.kind == '-' || t.kind == '+' || t.kind == '~') {
    advance(e);
    v = primary(e);
    return t.kind == '!' ? !v : t.kind == '-' ? -v : t.kind == '~' ? ~v : v;
  }
  if (t.kind == SJ_T_IDENT && same_name(&t, "defined", 7)) {
    int paren;
    if (!e->r) e->r = raw(pp, &e->t);
    if ((paren = e->t.kind == '(') && !e->r) e->r = raw(pp, &e->t);
    if (!e->r && e->t.kind != SJ_T_IDENT)
      e->r = FAIL(e->t.loc, JIT_ERR_SYNTAX, "expected a macro name after 'defined'");
    v = !e->r && find(pp, &e->t);
    if (paren && !e->r) e->r = raw(pp, &e->t);
    if (paren && !e->r && e->t.kind != ')')
      e->r =
          FAIL(e->t.loc, JIT_ERR_SYNTAX, "expected ')' after 'defined(%.*s'", (int)t.len, t.text);
    advance(e);
    return v;
  }
  if (t.kind == SJ_T_INT || t.kind == SJ_T_CHAR || t.kind == SJ_T_IDENT) {
    advance(e);
    return t.kind == SJ_T_IDENT ? 0 : t.ival;
  }
  e->r = FAIL(t.loc, JIT_ERR_SYNTAX, "expected an integer constant expression in #if, found '%s'",
              sj_tok_spelling(t.kind));
  return 0;
}

/* Binary operators by precedence, loosest first; C's table restricted to what #if needs. */
static const struct {
  int kind, level;
} binops[] = {{SJ_T_OROR, 0}, {SJ_T_ANDAND, 1}, {SJ_T_EQ, 2}, {SJ_T_NE, 2}, {'<', 3},
              {'>', 3},       {SJ_T_LE, 3},     {SJ_T_GE, 3}, {'+', 4},     {'-', 4},
              {'*', 5},       {'/', 5},         {'%', 5}};

static int level_of(int kind) {
  for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
    if (binops[i].kind == kind) return binops[i].level;
  return -1;
}

static long binary(ifexpr *e, int level) {
  if (level > 5) return primary(e);
  long v = binary(e, level + 1);
  while (!e->r && level_of(e->t.kind) == level) {
    sj_token op = e->t;
    advance(e);
    long w = binary(e, level + 1);
    switch (op.kind) {
    case SJ_T_OROR:
      v = v || w;
      break;
    case SJ_T_ANDAND:
      v = v && w;
      break;
    case SJ_T_EQ:
      v = v == w;
      break;
    case SJ_T_NE:
      v = v != w;
      break;
    case '<':
      v = v < w;
      break;
    case '>':
      v = v > w;
      break;
    case SJ_T_LE:
      v = v <= w;
      break;
    case SJ_T_GE:
      v = v >= w;
      break;
    case '+':
      v = (long)((unsigned long)v + (unsigned long)w);
      break;
    case '-':
      v = (long)((unsigned long)v - (unsigned long)w);
      break;
    case '*':
      v = (long)((unsigned long)v * (unsigned long)w);
      break;
    default:
      if (w == 0 || (v == -__LONG_MAX__ - 1 && w == -1)) {
        sj_pp *pp = e->pp;
        e->r = FAIL(op.loc, JIT_ERR_SYNTAX, "division by zero (or overflow) in #if");
        return 0;
      }
      v = op.kind == '/' ? v / w : v % w;
    }
  }
  return v;
}

static long condition(ifexpr *e) {
  return binary(e, 0);
}

/* The value of the #if or #elif whose text sub still holds: its tokens are read through the
 * expansion, an end marker below them. */
static int if_value(sj_pp *pp, sj_lexer *sub, const sj_token *d, long *value) {
  sj_token t, end = {.kind = SJ_T_EOF, .loc = d->loc};
  tokvec toks = {.a = pp->lx.arena};
  int r;
  for (;;) {
    if ((r = sj_lex_next(sub, &t))) return r;
    if (t.kind == SJ_T_EOF) break;
    add(&toks, &t);
  }
  if (!toks.n) return FAIL(d->loc, JIT_ERR_SYNTAX, "#if with no expression");
  int floor = pp->npending;
  push(pp, &end);
  for (int i = toks.n - 1; i >= 0; i--) push(pp, &toks.v[i]);
  ifexpr e = {.pp = pp};
  advance(&e);
  *value = condition(&e);
  if (!e.r && e.t.kind != SJ_T_EOF)
    e.r = FAIL(e.t.loc, JIT_ERR_SYNTAX, "unexpected '%s' in #if", sj_tok_spelling(e.t.kind));
  pp->npending = floor; /* what is left of the line, the end marker included */
  return e.r;
}

static int directive(sj_pp *pp, const sj_token *d) {
  sj_lexer sub;
  sj_token hash, word, name;
  int r;
  directive_lexer(pp, d, &sub);
  if ((r = sj_lex_next(&sub, &hash)) || (r = sj_lex_next(&sub, &word))) return r;
  int live = !dead(pp), n = pp->ncond;
  if (same_name(&word, "ifdef", 5) || same_name(&word, "ifndef", 6) || same_name(&word, "if", 2)) {
    if (n == (int)(sizeof pp->cond / sizeof *pp->cond))
      return FAIL(d->loc, JIT_ERR_UNSUPPORTED, "conditional groups nest deeper than %d", n);
    long v = 0;
    if (live && word.len == 2) {
      if ((r = if_value(pp, &sub, d, &v))) return r;
    } else if (live) {
      if ((r = sj_lex_next(&sub, &name))) return r;
      if (name.kind != SJ_T_IDENT)
        return FAIL(name.loc, JIT_ERR_SYNTAX, "expected a macro name after #%.*s", (int)word.len,
                    word.text);
      v = (find(pp, &name) != NULL) == (word.len == 5);
    }
    pp->cond[n].live = live && v;
    pp->cond[n].taken = !live || v; /* in a dead group no branch may be taken */
    pp->cond[n].in_else = 0;
    pp->cond[n].loc = d->loc;
    pp->ncond++;
    return 0;
  }
  if (same_name(&word, "elif", 4) || same_name(&word, "else", 4) || same_name(&word, "endif", 5)) {
    if (!n) return FAIL(d->loc, JIT_ERR_SYNTAX, "#%.*s without #if", (int)word.len, word.text);
    if (pp->cond[n - 1].in_else && word.len == 4)
      return FAIL(d->loc, JIT_ERR_SYNTAX, "#%.*s after #else", (int)word.len, word.text);
    if (word.len == 5) {
      pp->ncond--;
      return 0;
    }
    long v = 1;
    pp->cond[n - 1].live = 0; /* while #elif's expression is read */
    if (word.text[2] == 'i' && !pp->cond[n - 1].taken && (r = if_value(pp, &sub, d, &v))) return r;
    pp->cond[n - 1].in_else = word.text[2] == 's';
    pp->cond[n - 1].live = !pp->cond[n - 1].taken && v;
    pp->cond[n - 1].taken |= pp->cond[n - 1].live;
    return 0;
  }
  if (!live) return 0;
  if (same_name(&word, "error", 5)) {
    const char *text = word.text + word.len;
    while (*text == ' ' || *text == '\t') text++;
    return FAIL(d->loc, JIT_ERR_SYNTAX, "#error %s", text);
  }
  if (!same_name(&word, "define", 6) && !same_name(&word, "undef", 5)) {
    size_t n = word.kind == SJ_T_EOF ? 0 : word.len ? word.len : 1;
    return FAIL(d->loc, JIT_ERR_UNSUPPORTED, "preprocessor directive '#%.*s' is not supported",
                (int)n, word.text);
  }
  if ((r = sj_lex_next(&sub, &name))) return r;
  if (name.kind != SJ_T_IDENT && !(name.kind >= SJ_K_AUTO))
    return FAIL(name.loc, JIT_ERR_SYNTAX, "expected a macro name after #%.*s", (int)word.len,
                word.text);
  if (same_name(&word, "undef", 5)) {
    undefine(pp, &name);
    return 0;
  }
  return define(pp, &sub, &name);
}
