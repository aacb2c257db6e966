/* Front-end tests: the typed AST of representative kernels, and every negative case in
 * tests/errors (status and "line:col: fragment" from the file's first two lines).
 * Usage: test_parse ast | errors | robust */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"
#include "jit/parse.h"
#include "base/file.h"

static int failures, checks;

#define CHECK(c)                                                                                   \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(c)) {                                                                                    \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                        \
    }                                                                                              \
  } while (0)

#define CHECK_STR(got, want)                                                                       \
  do {                                                                                             \
    checks++;                                                                                      \
    if (strcmp((got), (want))) {                                                                   \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: got  %s\n%*swant %s\n", __FILE__, __LINE__, (got),                   \
              (int)strlen(__FILE__) + 8, "", (want));                                              \
    }                                                                                              \
  } while (0)

/* --- printing the tree: implicit casts as {T}x, explicit ones as (T)x --- */

typedef struct buf {
  char s[4096];
  size_t n;
} buf;

static void put(buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (b->n < sizeof b->s) b->n += (size_t)vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
}

static void expr(buf *b, const sj_expr *e) {
  int i;
  switch (e->kind) {
  case SJ_E_INT:
    put(b, "%ld%s", e->ival, e->type == SJ_TY_LONG ? "L" : "");
    break;
  case SJ_E_FLOAT:
    put(b, e->type == SJ_TY_FLOAT ? "%.9gf" : "%.17g", e->fval);
    if (e->type == SJ_TY_DOUBLE && e->fval == (long)e->fval) put(b, ".0");
    break;
  case SJ_E_VAR:
    put(b, "%s", e->sym->name);
    break;
  case SJ_E_INDEX:
    put(b, "%s", e->sym->name);
    for (i = 0; i < e->nargs; i++) put(b, "["), expr(b, e->args[i]), put(b, "]");
    break;
  case SJ_E_UNARY:
    put(b, "(%c", e->op), expr(b, e->args[0]), put(b, ")");
    break;
  case SJ_E_BINARY:
    put(b, "("), expr(b, e->args[0]), put(b, " %s ", sj_binop_text((sj_binop)e->op));
    expr(b, e->args[1]), put(b, ")");
    break;
  case SJ_E_COND:
    put(b, "("), expr(b, e->args[0]), put(b, " ? "), expr(b, e->args[1]), put(b, " : ");
    expr(b, e->args[2]), put(b, ")");
    break;
  case SJ_E_CAST:
    put(b, e->implicit ? "{%s}" : "(%s)", sj_type_name(e->type)), expr(b, e->args[0]);
    break;
  case SJ_E_CALL:
    put(b, "%s(", sj_func_name((sj_func_id)e->op));
    for (i = 0; i < e->nargs; i++) put(b, i ? ", " : ""), expr(b, e->args[i]);
    put(b, ")");
    break;
  }
}

static void stmt(buf *b, const sj_stmt *s) {
  int i;
  switch (s->kind) {
  case SJ_S_BLOCK:
    put(b, "{");
    for (i = 0; i < s->nbody; i++) put(b, i ? " " : ""), stmt(b, s->body[i]);
    put(b, "}");
    break;
  case SJ_S_FOR:
    put(b, "for %s = ", s->iter->name), expr(b, s->init), put(b, "; "), expr(b, s->cond);
    put(b, "; %+ld ", s->step), stmt(b, s->body[0]);
    break;
  case SJ_S_IF:
    put(b, "if "), expr(b, s->cond), put(b, " "), stmt(b, s->body[0]);
    if (s->body[1]) put(b, " else "), stmt(b, s->body[1]);
    break;
  case SJ_S_ASSIGN:
    expr(b, s->lhs), put(b, " = "), expr(b, s->rhs), put(b, ";");
    break;
  case SJ_S_DECL:
    put(b, "%s %s", sj_type_name(s->sym->type), s->sym->name);
    if (s->rhs) put(b, " = "), expr(b, s->rhs);
    put(b, ";");
    break;
  }
}

static const char *show_expr(const sj_expr *e) {
  static buf b;
  b.n = 0;
  b.s[0] = 0;
  expr(&b, e);
  return b.s;
}

static const char *show_stmt(const sj_stmt *s) {
  static buf b;
  b.n = 0;
  b.s[0] = 0;
  stmt(&b, s);
  return b.s;
}

/* Every arithmetic node has operands of its own type; comparisons and logic are int. */
static int well_typed(const sj_expr *e) {
  int i;
  for (i = 0; i < e->nargs; i++)
    if (!well_typed(e->args[i])) return 0;
  if (e->kind == SJ_E_BINARY) {
    if (e->op >= SJ_OP_LT)
      return e->type == SJ_TY_INT &&
             (e->op >= SJ_OP_AND ? e->args[0]->type == SJ_TY_INT && e->args[1]->type == SJ_TY_INT
                                 : e->args[0]->type == e->args[1]->type);
    return e->args[0]->type == e->type && e->args[1]->type == e->type;
  }
  if (e->kind == SJ_E_COND)
    return e->args[0]->type == SJ_TY_INT && e->args[1]->type == e->type &&
           e->args[2]->type == e->type;
  if (e->kind == SJ_E_CALL)
    for (i = 0; i < e->nargs; i++)
      if (e->args[i]->type != e->type) return 0;
  if (e->kind == SJ_E_INDEX)
    for (i = 0; i < e->nargs; i++)
      if (e->args[i]->type != SJ_TY_INT && e->args[i]->type != SJ_TY_LONG) return 0;
  return 1;
}

static int stmt_typed(const sj_stmt *s) {
  int i, ok = 1;
  if (s->kind == SJ_S_ASSIGN)
    ok = well_typed(s->lhs) && well_typed(s->rhs) && s->lhs->type == s->rhs->type;
  if (s->kind == SJ_S_DECL && s->rhs) ok = well_typed(s->rhs) && s->rhs->type == s->sym->type;
  if (s->kind == SJ_S_FOR)
    ok = well_typed(s->init) && s->init->type == SJ_TY_INT && well_typed(s->cond) &&
         s->cond->type == SJ_TY_INT;
  if (s->kind == SJ_S_IF) ok = well_typed(s->cond) && s->cond->type == SJ_TY_INT;
  for (i = 0; i < s->nbody; i++)
    if (s->body[i] && !stmt_typed(s->body[i])) ok = 0;
  return ok;
}

static sj_program *parse(const char *src) {
  sj_error err;
  sj_program *p = sj_parse(src, "test.c", &err);
  if (!p) fprintf(stderr, "unexpected parse error: %s\n", err.msg);
  CHECK(p != NULL);
  if (p) {
    int i;
    for (i = 0; i < p->nfuncs; i++) CHECK(stmt_typed(p->funcs[i]->body));
  }
  return p;
}

/* The innermost statement of a perfect nest: follow body[0] through blocks and loops. */
static const sj_stmt *inner(const sj_stmt *s) {
  while ((s->kind == SJ_S_BLOCK && s->nbody == 1) || s->kind == SJ_S_FOR) s = s->body[0];
  return s;
}

/* --- the AST of representative kernels --- */

static void test_jacobi(void) {
  const char *src = "#include <math.h>\n"
                    "void jacobi2d(int T, int N, int M, float A[2][N][M]) {\n"
                    "  for (int t = 0; t < T; t++)\n"
                    "    for (int i = 1; i < N - 1; i++)\n"
                    "      for (int j = 1; j < M - 1; j++)\n"
                    "        A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j]\n"
                    "                     + A[t%2][i+1][j] + A[t%2][i][j-1] + A[t%2][i][j+1]);\n"
                    "}\n";
  sj_error err;
  sj_program *p = parse(src);
  const sj_func *f;
  const sj_stmt *s;
  if (!p) return;
  f = sj_program_entry(p, NULL, &err);
  CHECK(f && f == p->funcs[0]);
  CHECK(!strcmp(f->name, "jacobi2d") && f->loc.line == 2 && f->loc.col == 6);
  CHECK(f->nparams == 4 && f->narrays == 1 && f->niters == 3 && f->nlocals == 0);
  CHECK(f->params[0]->kind == SJ_SYM_SHAPE && f->params[0]->type == SJ_TY_INT);
  CHECK(f->params[0]->param == 0 && f->params[2]->param == 2 && f->params[3]->param == 3);
  CHECK(f->params[3]->kind == SJ_SYM_ARRAY && f->params[3]->rank == 3 && f->params[3]->id == 0);
  CHECK(f->params[3]->type == SJ_TY_FLOAT && !f->params[3]->is_const);
  CHECK_STR(show_expr(f->params[3]->extents[0]), "2");
  CHECK(f->params[3]->extents[1]->kind == SJ_E_VAR &&
        f->params[3]->extents[1]->sym == f->params[1]);
  CHECK(f->params[3]->extents[2]->sym == f->params[2]);
  s = f->body->body[0];
  CHECK(s->kind == SJ_S_FOR && s->step == 1 && s->iter->kind == SJ_SYM_ITER && s->iter->id == 0);
  CHECK(s->iter->param == -1 && s->loc.line == 3 && s->loc.col == 3);
  CHECK_STR(show_expr(s->cond), "(t < T)");
  CHECK(s->body[0]->iter->id == 1 && s->body[0]->body[0]->iter->id == 2);
  CHECK_STR(show_expr(s->body[0]->cond), "(i < (N - 1))");
  s = inner(f->body);
  CHECK(s->kind == SJ_S_ASSIGN && s->loc.line == 6 && s->loc.col == 9);
  CHECK_STR(show_expr(s->lhs), "A[((t + 1) % 2)][i][j]");
  /* 0.2f * float: no conversion anywhere; the sum is left-associative. */
  CHECK_STR(show_expr(s->rhs), "(0.200000003f * ((((A[(t % 2)][i][j] + A[(t % 2)][(i - 1)][j]) + "
                               "A[(t % 2)][(i + 1)][j]) + A[(t % 2)][i][(j - 1)]) + "
                               "A[(t % 2)][i][(j + 1)]))");
  CHECK(s->rhs->type == SJ_TY_FLOAT && s->rhs->args[0]->fval == (double)strtof("0.2", NULL));
  /* Operators carry the operator's location, other nodes their first token. */
  CHECK(s->rhs->loc.line == 6 && s->rhs->loc.col == 33);
  CHECK(s->rhs->args[0]->loc.line == 6 && s->rhs->args[0]->loc.col == 28);
  CHECK(s->lhs->loc.col == 9 && s->lhs->args[0]->loc.col == 16);
  CHECK(s->lhs->args[1]->loc.col == 20 && s->lhs->args[1]->sym == f->body->body[0]->body[0]->iter);
  sj_program_free(p);
}

static void test_iterator_declared_before(void) {
  sj_program *p = parse("void k(int N, double A[N][N]) {\n"
                        "  int i, j;\n"
                        "  for (i = 0; i < N; i++)\n"
                        "    for (j = N - 1; j >= 0; j -= 2) A[i][j] = 1;\n"
                        "  for (i = 0; i <= N - 1; i = i + 3) A[i][0] = -A[i][0];\n"
                        "}\n");
  const sj_func *f;
  if (!p) return;
  f = p->funcs[0];
  /* The declarations leave the tree; each loop has an iterator of its own. */
  CHECK_STR(show_stmt(f->body), "{for i = 0; (i < N); +1 for j = (N - 1); (j >= 0); -2 "
                                "A[i][j] = {double}1; "
                                "for i = 0; (i <= (N - 1)); +3 A[i][0] = (-A[i][0]);}");
  CHECK(f->niters == 3 && f->nlocals == 0);
  CHECK(f->body->body[0]->iter != f->body->body[1]->iter);
  CHECK(f->body->body[1]->iter->id == 2 && f->body->body[0]->body[0]->iter->id == 1);
  CHECK(f->body->body[0]->iter->kind == SJ_SYM_ITER);
  sj_program_free(p);
}

static void test_locals_and_minmax(void) {
  sj_program *p =
      parse("static inline void blur(int N, int M, const float A[N][M], float B[N][M], float w) {\n"
            "  for (int i = 0; i < N; i += 4)\n"
            "    for (int j = (i > 2 ? i : 2); j < (N < M ? N : M) && j < i + 4; ++j) {\n"
            "      float t = A[i][j] * w, u;\n"
            "      double d = 1;\n"
            "      u = t - 1.5f;\n"
            "      { float t = 2; u += t; }\n"
            "      if (j % 2 == 0 || !(i / 3)) B[i][j] = t * u; else ;\n"
            "    }\n"
            "}\n");
  const sj_func *f;
  const sj_stmt *loop, *body;
  if (!p) return;
  f = p->funcs[0];
  CHECK(f->nparams == 5 && f->narrays == 2 && f->nlocals == 4 && f->niters == 2);
  CHECK(f->params[2]->is_const && !f->params[3]->is_const && f->params[3]->id == 1);
  CHECK(f->params[4]->kind == SJ_SYM_SCALAR && f->params[4]->type == SJ_TY_FLOAT);
  loop = f->body->body[0];
  CHECK(loop->step == 4);
  loop = loop->body[0];
  CHECK(loop->step == 1);
  CHECK_STR(show_expr(loop->init), "((i > 2) ? i : 2)");
  CHECK(loop->init->kind == SJ_E_COND && loop->init->loc.line == 3 && loop->init->loc.col == 25);
  CHECK_STR(show_expr(loop->cond), "((j < ((N < M) ? N : M)) && (j < (i + 4)))");
  body = loop->body[0];
  CHECK_STR(show_stmt(body), "{float t = (A[i][j] * w); float u; double d = {double}1; "
                             "u = (t - 1.5f); {float t = {float}2; u = (u + t);} "
                             "if (((j % 2) == 0) || (!(i / 3))) B[i][j] = (t * u); else {}}");
  CHECK(body->body[0]->sym->kind == SJ_SYM_LOCAL && body->body[0]->sym->id == 0);
  CHECK(body->body[1]->sym->id == 1 && body->body[2]->sym->id == 2);
  CHECK(body->body[4]->body[0]->sym != body->body[0]->sym);
  CHECK(body->body[4]->body[0]->sym->id == 3);
  /* The inner t shadows the outer one: u += t reads the inner. */
  CHECK(body->body[4]->body[1]->rhs->args[1]->sym == body->body[4]->body[0]->sym);
  CHECK(body->body[3]->lhs->kind == SJ_E_VAR && body->body[3]->lhs->sym == body->body[1]->sym);
  CHECK(body->body[0]->loc.line == 4 && body->body[0]->loc.col == 13);
  CHECK(body->body[1]->loc.col == 30);
  sj_program_free(p);
}

static void test_conversions(void) {
  sj_program *p = parse(
      "void mix(int N, long L, float x, double y, float A[N], double D[N], int I[N], long J[N]) {\n"
      "  for (int i = 0; i < N; i++) {\n"
      "    A[i] = 0.2 * x;\n"
      "    A[i] = 0.2f * x;\n"
      "    A[i] += 0.5;\n"
      "    D[i] = L + x;\n"
      "    D[i] = i + y;\n"
      "    I[i] = 3000000000 + L;\n"
      "    J[i] = 2147483647 + 2147483648 + 0x7fffffff + 0x100000000 + 017 + 10L;\n"
      "    I[i] %= 3;\n"
      "    I[i] /= 2.5f;\n"
      "    I[i] = I[i] / -2 % 3;\n"
      "    D[i] = -2147483648 + -0.0 + (-x) - -1e300 + 0x1p-2;\n"
      "    A[i] = (float)(int)x + (double)N + (long)1.9;\n"
      "    I[i] = x && y || !I[i];\n"
      "    I[i] = x ? i : L;\n"
      "    J[L * 2] = L > x;\n"
      "    A[i] = sqrtf(x) + sqrt(x) + fabsf(i) + fabs(y) + fminf(x, 1) + fmin(x, y)\n"
      "         + fmaxf(x, 2.0) + fmax(1, 2);\n"
      "    if (x) A[i] = 1.f;\n"
      "    if (L) A[i] = 1e3F;\n"
      "  }\n"
      "}\n");
  const sj_stmt *b;
  const char *want[] = {
      "A[i] = {float}(0.20000000000000001 * {double}x);",
      "A[i] = (0.200000003f * x);",
      "A[i] = {float}({double}A[i] + 0.5);",
      "D[i] = {double}({float}L + x);",
      "D[i] = ({double}i + y);",
      "I[i] = {int}(3000000000L + L);",
      "J[i] = ((((({long}2147483647 + 2147483648L) + {long}2147483647) + 4294967296L) + {long}15) "
      "+ 10L);",
      "I[i] = (I[i] % 3);",
      "I[i] = {int}({float}I[i] / 2.5f);",
      "I[i] = ((I[i] / -2) % 3);",
      "D[i] = (((({double}-2147483648L + -0.0) + {double}(-x)) - -1.0000000000000001e+300) + "
      "0.25);",
      "A[i] = {float}(({double}(float)(int)x + (double)N) + {double}(long)1.8999999999999999);",
      "I[i] = (((x != 0f) && (y != 0.0)) || (!I[i]));",
      "I[i] = {int}((x != 0f) ? {long}i : L);",
      "J[(L * {long}2)] = {long}({float}L > x);",
      "A[i] = {float}((((((({double}sqrtf(x) + sqrt({double}x)) + {double}fabsf({float}i)) + "
      "fabs(y)) + {double}fminf(x, {float}1)) + fmin({double}x, y)) + {double}fmaxf(x, "
      "{float}2.0)) + fmax({double}1, {double}2));",
      "if (x != 0f) A[i] = 1f;",
      "if (L != 0L) A[i] = 1000f;",
  };
  int i;
  if (!p) return;
  b = p->funcs[0]->body->body[0]->body[0];
  CHECK(b->nbody == (int)(sizeof want / sizeof *want));
  for (i = 0; i < b->nbody && i < (int)(sizeof want / sizeof *want); i++)
    CHECK_STR(show_stmt(b->body[i]), want[i]);
  /* Literal values and types, computed as C does. */
  CHECK(b->body[5]->rhs->args[0]->args[0]->type == SJ_TY_LONG);
  CHECK(b->body[5]->rhs->args[0]->args[0]->ival == 3000000000L);
  CHECK(b->body[0]->rhs->args[0]->args[0]->fval == 0.2);
  CHECK(b->body[1]->rhs->args[0]->type == SJ_TY_FLOAT);
  CHECK(b->body[1]->rhs->args[0]->fval == (double)strtof("0.2", NULL));
  /* The copied read of a compound assignment is a node of its own. */
  CHECK(b->body[2]->rhs->args[0]->args[0]->args[0] != b->body[2]->lhs);
  CHECK(b->body[2]->rhs->args[0]->args[0]->args[0]->args[0] != b->body[2]->lhs->args[0]);
  CHECK(b->body[2]->rhs->args[0]->op == SJ_OP_ADD && b->body[2]->rhs->implicit);
  sj_program_free(p);
}

static void test_float_literal_rounding(void) {
  /* A decimal value between two floats whose double rounding differs from strtof's. */
  const char *lit = "1.00000005960464477550";
  char src[256];
  sj_program *p;
  snprintf(src, sizeof src, "void f(int N, float A[N]) { A[0] = %sf; A[1] = 0.1f; A[2] = 0.1; }",
           lit);
  p = parse(src);
  if (!p) return;
  CHECK(strtof(lit, NULL) != (float)strtod(lit, NULL)); /* the case is a real one */
  CHECK(p->funcs[0]->body->body[0]->rhs->fval == (double)strtof(lit, NULL));
  CHECK(p->funcs[0]->body->body[1]->rhs->fval == (double)strtof("0.1", NULL));
  CHECK(p->funcs[0]->body->body[2]->rhs->args[0]->fval == 0.1);
  sj_program_free(p);
}

static void test_extents_and_entry(void) {
  sj_program *p = parse("// two kernels\n"
                        "void a(int N, long M, float X[N + 1][(M - 1) / 2][2 * N]) {\n"
                        "  /* a block comment */ for (int i = 0; i < N; i++) X[i][0][0] = 0;\n"
                        "}\n"
                        "void b(void) { }\n");
  sj_error err;
  const sj_sym *x;
  if (!p) return;
  CHECK(p->nfuncs == 2);
  x = p->funcs[0]->params[2];
  CHECK(x->rank == 3 && p->funcs[0]->params[1]->kind == SJ_SYM_SHAPE);
  CHECK(p->funcs[0]->params[1]->type == SJ_TY_LONG);
  CHECK_STR(show_expr(x->extents[0]), "(N + 1)");
  CHECK_STR(show_expr(x->extents[1]), "((M - {long}1) / {long}2)");
  CHECK_STR(show_expr(x->extents[2]), "(2 * N)");
  CHECK(x->loc.line == 2 && x->loc.col == 29);
  CHECK(p->funcs[1]->nparams == 0 && p->funcs[1]->body->nbody == 0);
  CHECK(sj_program_entry(p, "b", &err) == p->funcs[1]);
  CHECK(sj_program_entry(p, NULL, &err) == NULL && err.status == JIT_ERR_ARGS);
  CHECK(strstr(err.msg, "source has 2 functions") && strstr(err.msg, "one of: a, b"));
  CHECK(sj_program_entry(p, "c", &err) == NULL && err.status == JIT_ERR_ARGS);
  CHECK(strstr(err.msg, "no function named 'c'") != NULL);
  sj_program_free(p);
}

/* A call of a void function is its body with the arguments in place of the parameters (rows
 * of an array before the callee's subscripts); the entry is the function nobody calls. */
static void test_void_calls(void) {
  sj_program *p = parse("void step(int n, const float in[][n], float out[][n]);\n"
                        "void k(int T, int N, float A[2][N][N]) {\n"
                        "  for (int t = 0; t < T; t++) step(N, A[t % 2], A[1 - t % 2]);\n"
                        "}\n"
                        "void step(int n, const float in[][n], float out[][n]) {\n"
                        "  for (int i = 1; i < n; i++) out[i][0] = in[i - 1][0];\n"
                        "}\n");
  sj_error err;
  if (!p) return;
  CHECK(p->nfuncs == 2 && p->nprotos == 1);
  sj_func *k = sj_program_entry(p, NULL, &err);
  CHECK(k == p->funcs[0] && p->funcs[1]->called && !k->called);
  CHECK(k->ncallees == 1 && k->callees[0] == p->funcs[1]);
  CHECK_STR(show_stmt(k->body), "{for t = 0; (t < T); +1 {for i = 1; (i < N); +1 "
                                "A[(1 - (t % 2))][i][0] = A[(t % 2)][(i - 1)][0];}}");
  CHECK(k->nvm == 4); /* the brackets of both parameters, in the definition and the prototype */
  sj_program_free(p);
}

static void test_error_format(void) {
  sj_error err;
  sj_program *p;
  CHECK(sj_parse("void f(int N) {\n\tN = 1;\n}", NULL, &err) == NULL);
  CHECK(err.status == JIT_ERR_UNSUPPORTED);
  CHECK(strstr(err.msg, "<source>:2:2: assignment to parameter 'N'") == err.msg);
  CHECK(sj_parse("void f(int N) { x; }", "k.c", &err) == NULL && err.status == JIT_ERR_SYNTAX);
  CHECK(strstr(err.msg, "k.c:1:17: undeclared identifier 'x'") == err.msg);
  CHECK(sj_parse("", "k.c", &err) == NULL && err.status == JIT_ERR_SYNTAX);
  p = sj_parse("void f(void) {}", "k.c", NULL); /* no error record: tolerated */
  CHECK(p != NULL);
  sj_program_free(p);
  CHECK(sj_parse("void f(void) { x; }", "k.c", NULL) == NULL);
  CHECK(!strcmp(sj_type_name(SJ_TY_DOUBLE), "double") && sj_type_is_float(SJ_TY_FLOAT));
  CHECK(!sj_type_is_float(SJ_TY_LONG) && !strcmp(sj_binop_text(SJ_OP_LE), "<="));
  CHECK(!strcmp(sj_func_name(SJ_FN_FMAXF), "fmaxf"));
}

static void test_arena(void) {
  sj_arena *a = sj_arena_new();
  char *s, *big;
  int i, zero = 1;
  for (i = 0; i < 10000; i++) {
    int *x = sj_arena_alloc(a, (size_t)(i % 97) + 1);
    zero &= *x == 0 || i % 97 < 3;
    memset(x, 0xff, (size_t)(i % 97) + 1);
  }
  big = sj_arena_alloc(a, 1 << 20);
  CHECK(big[0] == 0 && big[(1 << 20) - 1] == 0 && ((size_t)big & 15) == 0);
  s = sj_arena_strndup(a, "abcdef", 3);
  CHECK(!strcmp(s, "abc") && zero);
  sj_arena_free(a);
}

/* The leak-free release of a program is checked by ASan; this one must not crash. */
static void test_free_null(void) {
  sj_program_free(NULL);
}

/* --- tests/errors: one construct a file --- */

static int error_case(const char *dir, const char *file) {
  char path[PATH_MAX], fragment[256], status[32], pos[32];
  int line, col, want, ok;
  char *src;
  sj_error err;
  sj_program *p;
  snprintf(path, sizeof path, "%s/%s", dir, file);
  src = sj_read_file(path, NULL);
  if (!src || sscanf(src, "// error: %d:%d: %255[^\n]\n// status: %31s", &line, &col, fragment,
                     status) != 4) {
    fprintf(stderr, "%s: missing '// error: L:C: text' and '// status:' lines\n", file);
    free(src);
    return 0;
  }
  want = !strcmp(status, "syntax")        ? JIT_ERR_SYNTAX
         : !strcmp(status, "unsupported") ? JIT_ERR_UNSUPPORTED
                                          : -1;
  snprintf(pos, sizeof pos, ":%d:%d: ", line, col);
  p = sj_parse(src, file, &err);
  ok = !p && err.status == want && strstr(err.msg, pos) && strstr(err.msg, fragment);
  if (!ok)
    fprintf(stderr, "%s: want %s at%s\"%s\", got %s\n", file, status, pos, fragment,
            p ? "success" : err.msg);
  sj_program_free(p);
  free(src);
  return ok;
}

static void test_errors(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  CHECK(d != NULL);
  if (!d) return;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".c")) continue;
    n++;
    CHECK(error_case(dir, e->d_name));
  }
  closedir(d);
  CHECK(n >= 30);
  printf("%d error cases\n", n);
}

/* --- robustness: prefixes, mutations and deep nesting never crash or leak --- */

static void parse_quietly(const char *src) {
  sj_error err;
  sj_program *p = sj_parse(src, "fuzz.c", &err);
  CHECK(p || (err.status >= JIT_ERR_SYNTAX && err.status <= JIT_ERR_UNSUPPORTED));
  CHECK(p || strstr(err.msg, "fuzz.c:") == err.msg);
  if (p) CHECK(stmt_typed(p->funcs[0]->body));
  sj_program_free(p);
}

/* Random sequences of C tokens after a valid function head reach deeper into the parser
 * than byte mutations do. */
static void soup(int rounds, unsigned seed) {
  static const char *toks[] = {"for",
                               "(",
                               ")",
                               "int",
                               "long",
                               "float",
                               "double",
                               "const",
                               "i",
                               "j",
                               "N",
                               "A",
                               "A[i]",
                               "x",
                               "=",
                               "+=",
                               "-=",
                               "%=",
                               "++",
                               "--",
                               "+",
                               "-",
                               "*",
                               "/",
                               "%",
                               "<",
                               "<=",
                               "&&",
                               "||",
                               "!",
                               "?",
                               ":",
                               ";",
                               ",",
                               "{",
                               "}",
                               "[",
                               "]",
                               "if",
                               "else",
                               "0",
                               "1",
                               "2L",
                               "0.5f",
                               "1e3",
                               "sqrt",
                               "fminf",
                               "(float)",
                               "(int)",
                               "t",
                               "while",
                               "#define",
                               "\n#include <x>\n",
                               "&",
                               "<<",
                               "\"s\"",
                               "'c'",
                               "0x7fffffff",
                               "-2147483648",
                               "return",
                               "static",
                               "/* c */"};
  char src[2048];
  int r;
  for (r = 0; r < rounds; r++) {
    size_t n = (size_t)sprintf(src, "void k(int N, float A[N], float x) { ");
    int k, len = 1 + (int)(seed >> 16) % 60;
    for (k = 0; k < len; k++) {
      seed = seed * 1103515245u + 12345u;
      n += (size_t)sprintf(src + n, "%s ", toks[(seed >> 8) % (sizeof toks / sizeof *toks)]);
    }
    parse_quietly(src);
  }
}

static void test_robust(void) {
  const char *kernel = "#include <math.h>\n"
                       "void k(int T, int N, const float B[N], double A[2][N], float w) {\n"
                       "  int s;\n"
                       "  for (s = 0; s < T; s++)\n"
                       "    for (int i = 1; i < N - 1 && i < 3 * T; i += 2) {\n"
                       "      double t = (i > 2 ? 0.5 : 1e-3f) * fmax(w, -1);\n"
                       "      if (i % 3 != 0 || !w) A[(s+1)%2][i] += t * B[i] / 2L; /* c */\n"
                       "      else A[s%2][i] = sqrtf(w) - (float)i;\n"
                       "    }\n"
                       "}\n";
  size_t n = strlen(kernel), i;
  char *s = malloc(n + 1), *deep;
  unsigned seed = 12345;
  int k, depth = 100000;
  for (i = 0; i <= n; i++) { /* every prefix */
    memcpy(s, kernel, i);
    s[i] = 0;
    parse_quietly(s);
  }
  for (k = 0; k < 20000; k++) { /* random byte mutations */
    memcpy(s, kernel, n + 1);
    for (i = 0; i < 3; i++) {
      seed = seed * 1103515245u + 12345u;
      s[(seed >> 8) % n] = (char)(seed >> 20 & 0xff ? seed >> 20 & 0xff : ' ');
    }
    parse_quietly(s);
  }
  free(s);
  soup(20000, 1);
  /* Deep nesting of parentheses, unary minus, blocks and a long chain of + . */
  deep = malloc((size_t)depth * 4 + 100);
  for (k = 0; k < 4; k++) {
    char *q = deep;
    int j;
    q += sprintf(q, "void f(int N, float A[N]) { A[0] = ");
    for (j = 0; j < depth; j++) *q++ = k == 0 ? '(' : k == 1 ? '-' : k == 2 ? '!' : '1';
    if (k == 3) {
      q = deep + sprintf(deep, "void f(int N, float A[N]) { A[0] = 1");
      for (j = 0; j < depth; j++) q += sprintf(q, "+1");
    } else {
      *q++ = '1';
    }
    if (k == 0)
      for (j = 0; j < depth; j++) *q++ = ')';
    strcpy(q, "; }");
    parse_quietly(deep);
  }
  {
    char *q = deep;
    int j;
    q += sprintf(q, "void f(int N, float A[N]) ");
    for (j = 0; j < depth; j++) *q++ = '{';
    for (j = 0; j < depth; j++) *q++ = '}';
    strcpy(q, "");
    parse_quietly(deep);
  }
  free(deep);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ast";
  if (!strcmp(mode, "soup")) { /* a long run, by hand */
    soup(argc > 2 ? atoi(argv[2]) : 1000000, (unsigned)(argc > 3 ? atoi(argv[3]) : 7));
  } else if (!strcmp(mode, "ast")) {
    test_jacobi();
    test_iterator_declared_before();
    test_locals_and_minmax();
    test_conversions();
    test_float_literal_rounding();
    test_extents_and_entry();
    test_void_calls();
    test_error_format();
    test_arena();
    test_free_null();
  } else if (!strcmp(mode, "errors")) {
    test_errors(argc > 2 ? argv[2] : SJ_ERRORS_DIR);
  } else if (!strcmp(mode, "robust")) {
    test_robust();
  } else {
    fprintf(stderr, "usage: test_parse ast | errors [dir] | robust\n");
    return 2;
  }
  printf("%s: %d checks, %d failed\n", mode, checks, failures);
  return failures != 0;
}
