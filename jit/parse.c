/* The parser: recursive descent with precedence climbing. It resolves names and applies
 * C's typing rules while it parses, so the tree it returns is fully typed (see ast.h).
 *
 * Locations: a node carries its first token, except operator nodes (SJ_E_BINARY,
 * SJ_E_COND) which carry the operator's, so messages about an operator point at it; an
 * implicit cast or `x != 0` inserted by the parser carries its operand's location.
 * Errors longjmp out of the parse; everything lives in the program's arena. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stenciljit.h"
#include "jit/parse.h"
#include "jit/macro.h"

/* Deeper input is refused rather than risking the stack, here and in the later stages
 * that walk the tree recursively. */
enum { MAX_NEST = 200, MAX_HEIGHT = 1000, MAX_SIZE = 1 << 18 };

#define SYNTAX JIT_ERR_SYNTAX
#define UNSUP JIT_ERR_UNSUPPORTED
/* A token's text for "%.*s", bounded so a huge token cannot crowd out the message. */
#define TOKTEXT(t) (int)((t)->len < 64 ? (t)->len : 64), (t)->text

/* An `int i;` declared without initializer is a candidate until its first use. Used as
 * the init of a for loop it becomes a placeholder: each such loop gets an SJ_SYM_ITER of
 * its own and the declaration leaves the tree. Any other first use makes it a local. */
typedef enum role { PLAIN, CANDIDATE, PLACEHOLDER } role;

typedef struct psym {
  sj_sym s; /* first: a psym * is an sj_sym * */
  role role;
  int is_typedef;          /* a type name (s.type), not a variable */
  const sj_expr *value;    /* a named constant at file scope: each use is a copy of it */
  sj_expr **table;         /* a table (an array with an initializer list): its elements,
                              row-major; s.extents are literals */
  sj_loc use;              /* initializer or first use outside a for header, for messages */
  int depth;               /* of its scope */
  struct psym *outer;      /* next in the scope chain */
  int pointer;             /* a local pointer: to an array, or a swap's temporary */
  int reshape;             /* rows over a flat array, `double (*a)[n] = (double (*)[n])p;`: its
                              subscripts are linearized onto the flat array's one */
  struct psym *start;      /* a local pointer's initial array (NULL: none) */
  const sj_expr *alias;    /* a local pointer to rows or an address of an array (T *row = A[i],
                              T *p = &A[i][1]): what it holds, as a call's argument */
  sj_loc moved;            /* an array parameter swapped in a loop above (line 0: never) */
  int brackets;            /* an array parameter: how many of its extents are in brackets */
  sj_loc ext_from, ext_to; /* and where those brackets are */
  /* a name swapped in a loop above: the rotation that moved it (NULL: it holds no array) */
  struct rotation *rotated;
  /* the counter of a while or do loop (the iterator of a for loop declared before it): the
   * loop, and the statement before it that set its first value, emptied (and what it was), for
   * a use after the loop (revive_counter()); whether the body runs under a test of the data */
  sj_stmt *counted, *set_first, was_set;
  int guarded;
  sj_sym *broken; /* and the flag its `break` sets (NULL: none) */
  int unset;      /* a helper's local not yet assigned (helper_locals()) */
  int enumerator; /* an enumeration constant: a constant expression, unlike a const local */
} psym;

typedef struct pexpr {
  sj_expr e; /* first */
  int height;
  long size; /* nodes: what inlining a value read twice per assignment may double */
} pexpr;

typedef struct vec {
  void **v;
  int n, cap;
} vec;

typedef struct spec {
  sj_type type;
  int is_const, is_static, is_inline, is_typedef;
  int is_bool; /* _Bool: type is unsigned char, conversions to it are `!= 0` */
  sj_loc loc;  /* first token */
} spec;

/* A function that returns the value of one expression over its scalar parameters: each
 * call is replaced by the expression, the arguments (converted to the parameters' types) in
 * place of the parameters. Expressions have no side effects, so an argument used twice has
 * the one value C would pass. */
typedef struct helper {
  const char *name;
  sj_func *f;     /* its parameters */
  sj_expr *value; /* converted to the return type */
  unsigned long long calls;
} helper;

typedef struct parser {
  sj_pp pp;
  sj_token tok[4]; /* ring of lookahead tokens */
  int head, ntok;
  sj_arena *a;
  sj_error *err;
  const char *name;
  jmp_buf fail;
  int nest;
  psym *scope;
  int depth;
  vec syms;      /* of the current function, in order of declaration */
  vec funcs;     /* sj_func * */
  vec helpers;   /* helper *: functions that return a value, inlined where called */
  vec continues; /* the `continue;` statements not yet made a guard (empty blocks) */
  vec breaks;    /* those of them that stand for a `break;` (break_statement()) */
  vec returns;   /* the `return;` statements of the function's body, as continues */
  vec unread;    /* where for loops' iterators declared before them get their value after
                    them, empty blocks until a use does (for_loop(), drop_unread()) */
  int loop_body; /* the next block is a for loop's body */
  sj_stmt *loop; /* the for loop whose body is being parsed, innermost */
  /* the innermost while or do loop being parsed (as a for loop): its counter, whose step
   * must be the last statement of the loop's body, at nesting level counter_nest */
  sj_stmt *counted;
  psym *counter;
  int counter_nest;
  int loops;     /* for loops around what is being parsed */
  psym *broken;  /* the flag a `break` in the innermost loop being parsed sets (NULL: none) */
  int returning; /* that flag also stands for a `return;` (return_statement()) */
  int in_switch; /* parsing a switch's cases outside any loop of theirs: a break ends a case */
  vec moves;     /* pointer assignments of the loop body being parsed (move *) */
  vec vm;        /* the function's variably modified pointer types (sj_vm_type *) */
  unsigned stdint_used;
  unsigned long long calls; /* of the current function: its sj_func.calls */
  int file_init;            /* parsing a file-scope constant's initializer */
  int call_arg;    /* parsing an argument of a void function: arrays may be passed (rows too);
                      2: of memcpy, where an offset may follow (A + i) */
  int step_target; /* parsing the left side of a statement: `x++;` may follow it */
  vec call_names;  /* const char *: the callee of each call placeholder (call_statement()) */
  vec pfuncs;      /* pfunc *: the functions defined, as inline_calls() needs them */
  vec protos;      /* sj_loc *: where the prototypes' names are */
  vec rotations;   /* rotation *: the swaps' rotations of the function */
  /* the rotation whose names the statement being parsed uses after their loop */
  struct rotation *after;
  /* Calls of functions that compute their value with loops (value_function()): each is its
   * body's statements, put before the statement that calls it, and a read of its result. */
  vec hoisted;          /* sj_stmt *: those the statement being parsed calls for */
  const char *no_hoist; /* what is being parsed where no such call may be (NULL: a statement) */
  struct psym *result;  /* in such a function's body: the parameter its value goes to */
  vec value_protos;     /* sj_func *: the prototypes of functions that return a value */
  int tail_return;      /* the function's body ended with a return (block()) */
  /* a block statement being parsed: the statements it stands among, into which it is spliced
   * where it holds a swap (`{ double *t = u; u = v; v = t; }`, as a SWAP macro writes it) */
  vec *splice_into;
  int spliced; /* block() moved the swap of the block it parsed into splice_into */
  /* the flag a `continue;` or `break;` in a block nested in the body of the loop being parsed
   * sets (NULL: none yet), and that a block just parsed set it: 1, or 2 where only breaks did
   * (the statements after the one holding that block are skipped too: skip_after()) */
  struct psym *skip;
  int skip_pending;
  /* the same for a `return;` in a block nested in the function's body, outside loops */
  struct psym *return_skip;
  int return_pending;
  vec asserts; /* sj_assert *: those of the function being parsed */
  /* sj_parse_for: the declarations refused so far (sj_failure *), and what a refusal does in each
   * phase: skip the declaration from where it began (the parser as it was then: before), leave
   * out the function whose calls were being inlined, or end the parse */
  vec failed;
  enum { PARSING, SKIPPING, INLINING } phase;
  int next_inline; /* INLINING: the index in pfuncs of the next function */
  struct parser *before;
} parser;

/* A function defined in the source, its calls not yet inlined. */
typedef struct pfunc {
  sj_func *f;
  vec syms;  /* as parser.syms: numbered again once calls brought their bodies' locals */
  int state; /* 0: calls not inlined, 1: inlining them, 2: done, 3: refused (sj_parse_for) */
  vec vm;    /* sj_vm_type *: the brackets of the callees' array parameters, as f calls them */
  vec callees;
  int value; /* a function that returns a value: through its last parameter, an array of 1 */
} pfunc;
static int is_assign_op(int k);
static sj_expr *negate(parser *p, sj_expr *e, sj_loc loc);

static sj_expr *expr(parser *p);
static sj_expr *conditional(parser *p);
static sj_expr *unary(parser *p);
static sj_expr *binary(parser *p, int min);
static sj_stmt *statement(parser *p);
static void used_after(parser *p, psym *x, sj_loc loc);
static int mentions_local(const sj_expr *e);
static void address_local(parser *p, const spec *s, const sj_token *name);
static sj_stmt *stmt(parser *p, sj_stmt_kind k, sj_loc loc);
static void pointer_local(parser *p, const spec *s, vec *body);
static void pointer_cast(parser *p, const spec *s, const sj_token *name, const sj_vm_type *decl);
typedef struct binding binding;
typedef struct symmap symmap;
static void bind_args(parser *p, const sj_func *g, sj_expr **args, binding *b, symmap *m, vec *out);
static void call_vm(parser *p, const sj_func *g, symmap *m, vec *into);
static void check_extent(parser *p, const sj_expr *e);
static int is_rows(const sj_expr *e);
static void no_rows(parser *p, const sj_expr *e);
static int literal_value(const sj_expr *e, long *v);
static const sj_func *loop_helper(parser *p, const sj_token *name);
static sj_expr *hoisted_call(parser *p, const sj_func *g, const sj_token *name);
static void dropped_call(parser *p, const sj_func *g);

/* --- errors, tokens, memory --- */

static void fail(parser *p, int status, sj_loc loc, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
static void fail(parser *p, int status, sj_loc loc, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  sj_error_at(p->err, status, p->name, loc, "%s", msg);
  longjmp(p->fail, 1);
}

/* The declaration refused under name (len bytes), or NULL. */
static const sj_failure *refused(const parser *p, const char *name, size_t len) {
  for (int i = 0; i < p->failed.n; i++) {
    const sj_failure *f = p->failed.v[i];
    if (f->name && strlen(f->name) == len && !memcmp(f->name, name, len)) return f;
  }
  return NULL;
}

/* A use of a refused declaration fails as the declaration did. */
static void reraise(parser *p, const sj_failure *f) __attribute__((noreturn));
static void reraise(parser *p, const sj_failure *f) {
  *p->err = f->err;
  longjmp(p->fail, 1);
}

static sj_token *peek(parser *p, int k) {
  while (p->ntok <= k) {
    if (sj_pp_next(&p->pp, &p->tok[(p->head + p->ntok) & 3])) longjmp(p->fail, 1);
    p->ntok++;
  }
  return &p->tok[(p->head + k) & 3];
}

static int kind(parser *p) {
  return peek(p, 0)->kind;
}

static sj_token next(parser *p) {
  sj_token t = *peek(p, 0);
  p->head = (p->head + 1) & 3;
  p->ntok--;
  return t;
}

static int accept(parser *p, int k) {
  if (kind(p) != k) return 0;
  next(p);
  return 1;
}

static void __attribute__((noreturn)) found(parser *p, const char *expected) {
  sj_token *t = peek(p, 0);
  if (t->kind == SJ_T_EOF) fail(p, SYNTAX, t->loc, "expected %s before end of input", expected);
  fail(p, SYNTAX, t->loc, "expected %s, found '%.*s'", expected, TOKTEXT(t));
}

static sj_token expect(parser *p, int k) {
  if (kind(p) != k) {
    char what[32];
    snprintf(what, sizeof what, "'%s'", sj_tok_spelling(k));
    found(p, what);
  }
  return next(p);
}

/* After an expression: a ',' there is C's comma operator, which the subset refuses. */
static void close_with(parser *p, int k) {
  if (kind(p) == ',') fail(p, UNSUP, peek(p, 0)->loc, "the comma operator is not supported");
  expect(p, k);
}

static void enter(parser *p, sj_loc loc) {
  if (++p->nest > MAX_NEST)
    fail(p, UNSUP, loc, "nesting deeper than %d levels is not supported", MAX_NEST);
}

static void *alloc(parser *p, size_t n) {
  return sj_arena_alloc(p->a, n);
}

static void push(parser *p, vec *v, void *x) {
  if (v->n == v->cap) {
    int cap = v->cap ? 2 * v->cap : 8;
    void **nv = alloc(p, (size_t)cap * sizeof *nv);
    if (v->n) memcpy(nv, v->v, (size_t)v->n * sizeof *nv);
    v->v = nv;
    v->cap = cap;
  }
  v->v[v->n++] = x;
}

/* The statements that the calls of value functions in the statement(s) parsed into out from
 * index from put before them: those hoisted from index since. */
static void put_hoisted(parser *p, vec *out, int from, int since) {
  int n = p->hoisted.n - since;
  if (!n) return;
  for (int i = 0; i < n; i++) push(p, out, NULL);
  memmove(&out->v[from + n], &out->v[from], (size_t)(out->n - n - from) * sizeof *out->v);
  memcpy(&out->v[from], &p->hoisted.v[since], (size_t)n * sizeof *out->v);
  p->hoisted.n = since;
}

/* Where a value function's call would run only under a condition, or not once per statement
 * (value_function()). */
static const char UNDER_CONDITION[] =
    "an operand that C evaluates only under a condition (of ?:, && or ||)";

/* Sets where no call of a value function may be (NULL: anywhere); returns what it was. */
static const char *hoisting(parser *p, const char *no_hoist) {
  const char *was = p->no_hoist;
  p->no_hoist = no_hoist;
  return was;
}

/* --- tokens read ahead, then given back to be parsed (the preprocessor reads them first) --- */

/* Reads ahead, into toks, the tokens up to the end of the first brace group (or up to a ';'
 * outside any group); whether a brace group was read. */
static int read_ahead(parser *p, vec *toks) {
  int depth = 0, braces = 0;
  while (kind(p) != SJ_T_EOF && (depth || kind(p) != ';')) {
    sj_token *t = alloc(p, sizeof *t);
    *t = next(p);
    push(p, toks, t);
    depth += t->kind == '(' || t->kind == '[' || t->kind == '{';
    depth -= t->kind == ')' || t->kind == ']' || t->kind == '}';
    braces |= t->kind == '{';
    if (braces && depth <= 0) break;
  }
  return braces;
}

/* Gives back the tokens read ahead (toks, then those peeked at after them): read next. */
static void give_back(parser *p, vec *toks) {
  while (p->ntok) {
    sj_token *t = alloc(p, sizeof *t);
    *t = next(p);
    push(p, toks, t);
  }
  sj_token *all = alloc(p, (size_t)(toks->n + 1) * sizeof *all);
  for (int i = 0; i < toks->n; i++) all[i] = *(sj_token *)toks->v[i];
  sj_pp_unread(&p->pp, all, toks->n);
  toks->n = 0;
}

static int read_has(const vec *toks, int from, int k0, int k1, int k2) {
  for (int i = from; i < toks->n; i++) {
    int k = ((const sj_token *)toks->v[i])->kind;
    if (k == k0 || k == k1 || k == k2) return 1;
  }
  return 0;
}

/* --- expression nodes and C's conversions --- */

static int height(const sj_expr *e) {
  return ((const pexpr *)e)->height;
}

static sj_expr *node(parser *p, sj_expr_kind k, sj_type t, sj_loc loc, int nargs,
                     sj_expr *const *args) {
  pexpr *x = alloc(p, sizeof *x);
  int i, h = 0;
  long size = 1;
  x->e.kind = k;
  x->e.type = t;
  x->e.loc = loc;
  x->e.nargs = nargs;
  if (nargs) x->e.args = alloc(p, (size_t)nargs * sizeof *x->e.args);
  for (i = 0; i < nargs; i++) {
    x->e.args[i] = args[i];
    if (height(args[i]) > h) h = height(args[i]);
    size += ((const pexpr *)args[i])->size;
  }
  x->height = h + 1;
  x->size = size;
  if (x->height > MAX_HEIGHT)
    fail(p, UNSUP, loc, "expression nested deeper than %d levels is not supported", MAX_HEIGHT);
  if (size > MAX_SIZE)
    fail(p, UNSUP, loc,
         "expression of more than %d operations (its helpers inlined) is not supported", MAX_SIZE);
  return &x->e;
}

static sj_expr *node1(parser *p, sj_expr_kind k, sj_type t, sj_loc loc, sj_expr *a) {
  return node(p, k, t, loc, 1, &a);
}

static sj_expr *int_lit(parser *p, sj_type t, long v, sj_loc loc) {
  sj_expr *e = node(p, SJ_E_INT, t, loc, 0, NULL);
  e->ival = v;
  return e;
}

/* A use of the variable x, of its type. */
static sj_expr *var_ref(parser *p, sj_sym *x, sj_loc loc) {
  sj_expr *e = node(p, SJ_E_VAR, x->type, loc, 0, NULL);
  e->sym = x;
  return e;
}

static sj_expr *float_lit(parser *p, sj_type t, double v, sj_loc loc) {
  sj_expr *e = node(p, SJ_E_FLOAT, t, loc, 0, NULL);
  e->fval = v;
  return e;
}

static sj_expr *copy(parser *p, const sj_expr *e) {
  pexpr *x = alloc(p, sizeof *x);
  int i;
  *x = *(const pexpr *)e;
  if (e->nargs) x->e.args = alloc(p, (size_t)e->nargs * sizeof *x->e.args);
  for (i = 0; i < e->nargs; i++) x->e.args[i] = copy(p, e->args[i]);
  return &x->e;
}

/* Shapes, iterators and extents: the signed integer types of index arithmetic. */
static int is_int(sj_type t) {
  return t == SJ_TY_INT || t == SJ_TY_LONG;
}

/* The types a loop iterator may have: the integer types of C's arithmetic (int, long and
 * their unsigned forms, and what names them: int64_t, size_t, ...). The model keeps an
 * iterator within its type (sched/model.c): a signed one may not leave it, an unsigned one
 * wraps. */
static int iter_type(sj_type t) {
  return is_int(t) || t == SJ_TY_UINT || t == SJ_TY_ULONG;
}

/* Integer conversion rank among the promoted types: int and unsigned 1, long and unsigned
 * long 2. */
static int rank(sj_type t) {
  return t == SJ_TY_LONG || t == SJ_TY_ULONG ? 2 : 1;
}

/* The usual arithmetic conversions (C99 6.3.1.8) on LP64: after the integer promotions,
 * the common type of the operands. */
static sj_type common(sj_type a, sj_type b) {
  if (a == SJ_TY_DOUBLE || b == SJ_TY_DOUBLE) return SJ_TY_DOUBLE;
  if (a == SJ_TY_FLOAT || b == SJ_TY_FLOAT) return SJ_TY_FLOAT;
  a = sj_type_promote(a);
  b = sj_type_promote(b);
  if (a == b) return a;
  int ua = sj_type_is_unsigned(a), ub = sj_type_is_unsigned(b);
  if (ua == ub) return rank(a) >= rank(b) ? a : b;
  sj_type u = ua ? a : b, sg = ua ? b : a;
  if (rank(u) >= rank(sg)) return u;
  return sg; /* long holds every unsigned int */
}

static sj_expr *conv(parser *p, sj_expr *e, sj_type t) {
  if (e->type == t) return e;
  e = node1(p, SJ_E_CAST, t, e->loc, e);
  e->implicit = 1;
  return e;
}

static sj_expr *binop(parser *p, sj_binop op, sj_expr *l, sj_expr *r, sj_loc loc);

/* A scalar used as a truth value: C compares it with 0. */
/* C's conversion to _Bool: 0 or 1, as e != 0, stored as an unsigned char. */
static sj_expr *as_bool(parser *p, sj_expr *e) {
  int test =
      (e->kind == SJ_E_BINARY && e->op >= SJ_OP_LT) || (e->kind == SJ_E_UNARY && e->op == '!');
  if (!test)
    e = binop(p, SJ_OP_NE, e,
              sj_type_is_float(e->type) ? float_lit(p, e->type, 0, e->loc)
                                        : int_lit(p, sj_type_promote(e->type), 0, e->loc),
              e->loc);
  return conv(p, e, SJ_TY_UCHAR);
}

/* e converted for a variable of type t, declared _Bool where boolean is set. */
static sj_expr *conv_to(parser *p, sj_expr *e, sj_type t, int boolean) {
  return boolean ? as_bool(p, e) : conv(p, e, t);
}

static sj_expr *truth(parser *p, sj_expr *e) {
  if (e->type == SJ_TY_INT) return e;
  return binop(p, SJ_OP_NE, e,
               sj_type_is_float(e->type) ? float_lit(p, e->type, 0, e->loc)
                                         : int_lit(p, sj_type_promote(e->type), 0, e->loc),
               e->loc);
}

static sj_expr *binop(parser *p, sj_binop op, sj_expr *l, sj_expr *r, sj_loc loc) {
  sj_type t = common(l->type, r->type), result = t;
  sj_expr *e;
  int integers_only = op >= SJ_OP_REM && op <= SJ_OP_SHR;
  if (integers_only && (!sj_type_is_integer(l->type) || !sj_type_is_integer(r->type)))
    fail(p, SYNTAX, loc, "operands of '%s' must be integers, not '%s'", sj_binop_text(op),
         sj_type_name(sj_type_is_integer(l->type) ? r->type : l->type));
  /* A shift has the type of its promoted left operand (C99 6.5.7); the count is converted
   * to it too, which keeps every count the operation defines. */
  if (op == SJ_OP_SHL || op == SJ_OP_SHR) t = result = sj_type_promote(l->type);
  if (op == SJ_OP_AND || op == SJ_OP_OR) {
    l = truth(p, l);
    r = truth(p, r);
    result = SJ_TY_INT;
  } else {
    l = conv(p, l, t);
    r = conv(p, r, t);
    if (op >= SJ_OP_LT) result = SJ_TY_INT;
  }
  e = node(p, SJ_E_BINARY, result, loc, 2, (sj_expr *[]){l, r});
  e->op = (int)op;
  return e;
}

static int mentions(const sj_expr *e, const sj_sym *s) {
  int i;
  if (e->kind == SJ_E_VAR && e->sym == s) return 1;
  for (i = 0; i < e->nargs; i++)
    if (mentions(e->args[i], s)) return 1;
  return 0;
}

/* --- names and scopes --- */

static psym *lookup(parser *p, const char *name, size_t len) {
  psym *x;
  for (x = p->scope; x; x = x->outer)
    if (!strncmp(x->s.name, name, len) && !x->s.name[len]) return x;
  return NULL;
}

static psym *declare(parser *p, sj_sym_kind k, sj_type t, const sj_token *name) {
  psym *x;
  for (x = p->scope; x && x->depth == p->depth; x = x->outer)
    if (!strncmp(x->s.name, name->text, name->len) && !x->s.name[name->len])
      fail(p, SYNTAX, name->loc, "redeclaration of '%s' (declared at %d:%d)", x->s.name,
           x->s.loc.line, x->s.loc.col);
  x = alloc(p, sizeof *x);
  x->s.kind = k;
  x->s.type = t;
  x->s.name = sj_arena_strndup(p->a, name->text, name->len);
  x->s.loc = name->loc;
  x->s.param = -1;
  x->depth = p->depth;
  x->outer = p->scope;
  p->scope = x;
  push(p, &p->syms, x);
  return x;
}

static void open_scope(parser *p) {
  p->depth++;
}

static void close_scope(parser *p) {
  while (p->scope && p->scope->depth == p->depth) p->scope = p->scope->outer;
  p->depth--;
}

static void revive_counter(parser *p, psym *x);

static void use(parser *p, psym *x, sj_loc loc) {
  if (x->role == PLACEHOLDER && x->counted) revive_counter(p, x);
  if (x->role == PLACEHOLDER) fail(p, UNSUP, loc, "iterator '%s' used outside its loop", x->s.name);
  if (x->role == CANDIDATE) {
    x->role = PLAIN;
    x->use = loc;
  }
}

/* --- declaration specifiers --- */

/* Whether the identifier t names a type: a typedef in scope, or a fixed-width integer type
 * name (int8_t ... uint64_t) that nothing in scope redeclares. */
static int type_name(parser *p, const sj_token *t, sj_type *out) {
  if (t->kind != SJ_T_IDENT) return 0;
  psym *x = lookup(p, t->text, t->len);
  if (x) {
    if (x->is_typedef && out) *out = x->s.type;
    return x->is_typedef;
  }
  sj_type ty;
  for (int k = 0; sj_stdint_name(k, &ty); k++) {
    const char *name = sj_stdint_name(k, NULL);
    if (strlen(name) == t->len && !memcmp(name, t->text, t->len)) {
      if (out) {
        *out = ty;
        p->stdint_used |= 1u << k;
      }
      return 1;
    }
  }
  return 0;
}

/* Whether token k ahead starts declaration specifiers. */
static int starts_type(parser *p, int k) {
  sj_token *t = peek(p, k);
  switch (t->kind) {
  case SJ_K_AUTO:
  case SJ_K_CHAR:
  case SJ_K_CONST:
  case SJ_K_DOUBLE:
  case SJ_K_ENUM:
  case SJ_K_EXTERN:
  case SJ_K_FLOAT:
  case SJ_K_INLINE:
  case SJ_K_INT:
  case SJ_K_LONG:
  case SJ_K_REGISTER:
  case SJ_K_RESTRICT:
  case SJ_K_SHORT:
  case SJ_K_SIGNED:
  case SJ_K_STATIC:
  case SJ_K_STRUCT:
  case SJ_K_TYPEDEF:
  case SJ_K_UNION:
  case SJ_K_UNSIGNED:
  case SJ_K_VOID:
  case SJ_K_VOLATILE:
  case SJ_K_BOOL:
  case SJ_K_COMPLEX:
  case SJ_K_IMAGINARY:
    return 1;
  case SJ_T_IDENT:
    return type_name(p, t, NULL);
  }
  return 0;
}

/* Counts of the type specifier keywords of one declaration. */
typedef struct words {
  int nchar, nshort, nint, nlong, nsigned, nunsigned, base; /* base: float, double, void */
  int named;                                                /* a typedef name gave the type */
} words;

static int any_word(const words *w) {
  return w->nchar || w->nshort || w->nint || w->nlong || w->nsigned || w->nunsigned || w->base ||
         w->named;
}

/* The type the specifier keywords name, or a message why they name none. */
static sj_type word_type(parser *p, const words *w, sj_loc loc) {
  int sized = w->nchar + w->nshort + (w->nlong > 0);
  if (w->nsigned && w->nunsigned)
    fail(p, SYNTAX, loc, "both 'signed' and 'unsigned' in declaration");
  if (w->base == SJ_K_DOUBLE && w->nlong)
    fail(p, UNSUP, loc, "type 'long double' is not supported");
  if ((w->base && (sized || w->nint || w->nsigned || w->nunsigned)) || sized > 1 || w->nint > 1 ||
      w->nsigned > 1 || w->nunsigned > 1 || (w->nchar && w->nint))
    fail(p, SYNTAX, loc, "two or more data types in declaration");
  if (w->base)
    return w->base == SJ_K_FLOAT ? SJ_TY_FLOAT : w->base == SJ_K_DOUBLE ? SJ_TY_DOUBLE : SJ_TY_VOID;
  if (w->nchar) {
    if (w->nsigned) return SJ_TY_SCHAR;
    if (w->nunsigned) return SJ_TY_UCHAR;
    return (char)-1 < 0 ? SJ_TY_SCHAR : SJ_TY_UCHAR; /* plain char as this platform's C */
  }
  if (w->nshort) return w->nunsigned ? SJ_TY_USHORT : SJ_TY_SHORT;
  if (w->nlong) return w->nunsigned ? SJ_TY_ULONG : SJ_TY_LONG; /* long long is long */
  return w->nunsigned ? SJ_TY_UINT : SJ_TY_INT;
}

/* `enum [tag] { A, B = e, ... }` (at its `enum`) in declaration specifiers: the enumeration
 * constants, named values of type int, declared in the scope around; its type is int. The
 * specifier's last token (the tag, or the '}') is left to read. */
static void enum_specifier(parser *p) {
  next(p);
  if (kind(p) == SJ_T_IDENT && peek(p, 1)->kind != '{') return; /* a tag declared elsewhere */
  if (kind(p) == SJ_T_IDENT) next(p);
  if (kind(p) != '{') found(p, "an enumeration's name or '{'");
  next(p);
  long value = -1;
  while (kind(p) != '}') {
    if (kind(p) != SJ_T_IDENT) found(p, "an enumeration constant");
    sj_token name = next(p);
    value++;
    if (accept(p, '=')) {
      int file_init = p->file_init;
      p->file_init = 1; /* a constant expression */
      sj_loc at = peek(p, 0)->loc;
      sj_expr *e = conditional(p);
      p->file_init = file_init;
      if (!sj_type_is_integer(e->type) || !literal_value(e, &value))
        fail(p, UNSUP, at,
             "the value of enumeration constant '%.*s' must be an integer constant expression "
             "of literals and + - *",
             TOKTEXT(&name));
    }
    if (value < INT_MIN || value > INT_MAX)
      fail(p, SYNTAX, name.loc, "enumeration constant '%.*s' (%ld) does not fit in an int",
           TOKTEXT(&name), value);
    psym *x = declare(p, SJ_SYM_LOCAL, SJ_TY_INT, &name);
    x->s.is_const = 1;
    x->enumerator = 1;
    x->value = int_lit(p, SJ_TY_INT, value, name.loc);
    if (!accept(p, ',')) break;
  }
  if (kind(p) != '}') found(p, "'}'");
}

static spec specifiers(parser *p) {
  spec s;
  words w;
  memset(&s, 0, sizeof s);
  memset(&w, 0, sizeof w);
  s.loc = peek(p, 0)->loc;
  for (;; next(p)) {
    sj_token *t = peek(p, 0);
    switch (t->kind) {
    case SJ_K_CONST:
      s.is_const = 1;
      continue;
    case SJ_K_STATIC:
      s.is_static = 1;
      continue;
    case SJ_K_INLINE:
      s.is_inline = 1;
      continue;
    case SJ_K_TYPEDEF:
      s.is_typedef = 1;
      continue;
    case SJ_K_INT:
      w.nint++;
      continue;
    case SJ_K_SIGNED:
      w.nsigned++;
      continue;
    case SJ_K_UNSIGNED:
      w.nunsigned++;
      continue;
    case SJ_K_CHAR:
      w.nchar++;
      continue;
    case SJ_K_SHORT:
      w.nshort++;
      continue;
    case SJ_K_LONG:
      if (++w.nlong > 2) fail(p, SYNTAX, t->loc, "'long long long' is too long");
      continue;
    case SJ_K_FLOAT:
    case SJ_K_DOUBLE:
    case SJ_K_VOID:
      if (w.base || w.named) fail(p, SYNTAX, t->loc, "two or more data types in declaration");
      w.base = t->kind;
      continue;
    case SJ_T_IDENT:
      /* a typedef name is the type only where no other type word came before */
      if (any_word(&w) || !type_name(p, t, &s.type)) break;
      s.is_bool = lookup(p, t->text, t->len) && lookup(p, t->text, t->len)->s.is_bool;
      w.named = 1;
      continue;
    case SJ_K_BOOL:
      if (any_word(&w)) fail(p, SYNTAX, t->loc, "two or more data types in declaration");
      s.type = SJ_TY_UCHAR;
      s.is_bool = 1;
      w.named = 1;
      continue;
    case SJ_K_COMPLEX:
    case SJ_K_IMAGINARY:
      fail(p, UNSUP, t->loc, "type '%s' is not supported (use the integer types, float or double)",
           sj_tok_spelling(t->kind));
    case SJ_K_ENUM:
      if (any_word(&w)) fail(p, SYNTAX, t->loc, "two or more data types in declaration");
      enum_specifier(p);
      s.type = SJ_TY_INT;
      w.named = 1;
      continue;
    case SJ_K_STRUCT:
    case SJ_K_UNION:
    case SJ_K_VOLATILE:
    case SJ_K_RESTRICT:
    case SJ_K_EXTERN:
      fail(p, UNSUP, t->loc, "'%s' is not supported", sj_tok_spelling(t->kind));
    case SJ_K_REGISTER: /* storage hints that change nothing here */
    case SJ_K_AUTO:
      continue;
    }
    break;
  }
  if (!any_word(&w)) found(p, "a type");
  if (w.named) {
    if (w.nchar || w.nshort || w.nint || w.nlong || w.nsigned || w.nunsigned || w.base)
      fail(p, SYNTAX, s.loc, "two or more data types in declaration");
  } else {
    s.type = word_type(p, &w, s.loc);
  }
  return s;
}

/* `typedef T name, ...;` of a scalar type, at file or block scope. */
static void typedef_decl(parser *p, const spec *s) {
  if (s->is_static || s->is_inline) fail(p, SYNTAX, s->loc, "storage class in a typedef");
  do {
    if (kind(p) == '*') fail(p, UNSUP, peek(p, 0)->loc, "typedefs of pointers are not supported");
    if (kind(p) != SJ_T_IDENT) found(p, "a type name");
    sj_token name = next(p);
    if (kind(p) == '[' || kind(p) == '(')
      fail(p, UNSUP, name.loc, "typedef '%.*s': only typedefs of scalar types are supported",
           TOKTEXT(&name));
    for (psym *x = p->scope; x && x->depth == p->depth; x = x->outer)
      if (!strncmp(x->s.name, name.text, name.len) && !x->s.name[name.len] &&
          !(x->is_typedef && x->s.type == s->type))
        fail(p, SYNTAX, name.loc, "redeclaration of '%s' (declared at %d:%d)", x->s.name,
             x->s.loc.line, x->s.loc.col);
    psym *x = alloc(p, sizeof *x);
    x->s.type = s->type;
    x->s.is_bool = s->is_bool;
    x->s.name = sj_arena_strndup(p->a, name.text, name.len);
    x->s.loc = name.loc;
    x->s.param = -1;
    x->is_typedef = 1;
    x->depth = p->depth;
    x->outer = p->scope;
    p->scope = x;
  } while (accept(p, ','));
  expect(p, ';');
}

static void no_pointer(parser *p) {
  if (kind(p) == '*') fail(p, UNSUP, peek(p, 0)->loc, "pointers are not supported");
}

/* --- expressions --- */

static sj_expr **exprs(parser *p, const vec *v) {
  sj_expr **r = alloc(p, (size_t)v->n * sizeof *r);
  int i;
  for (i = 0; i < v->n; i++) r[i] = v->v[i];
  return r;
}

/* --- copies of code: a body once per position of a swap's rotation, a function's body in
 * place of a call --- */

/* What the parameters of a called function stand for at one call: a scalar's argument (an
 * expression of the caller), an array's argument (the caller's array as a partial
 * SJ_E_INDEX: the subscripts before the callee's own, often none). */
struct binding {
  const sj_func *g;
  sj_expr **scalar, **array;
};

/* Syms of from replaced by the one at the same place in to; fresh locals and iterators for
 * those a copied body declares (sj_sym ids are per symbol); with call, the parameters of
 * call->g replaced by the arguments. */
struct symmap {
  vec from, to;
  const binding *call;
};

static sj_sym *mapped(const symmap *m, sj_sym *s) {
  for (int i = 0; i < m->from.n; i++)
    if (m->from.v[i] == s) return m->to.v[i];
  return s;
}

static void remap(sj_expr *e, const symmap *m) {
  if (e->sym) e->sym = mapped(m, e->sym);
  for (int i = 0; i < e->nargs; i++) remap(e->args[i], m);
}

static int is_param_of(const sj_sym *s, const sj_func *g) {
  return s && s->param >= 0 && s->param < g->nparams && g->params[s->param] == s;
}

static sj_expr *clone_expr(parser *p, const sj_expr *e, const symmap *m) {
  if (!e) return NULL;
  const binding *b = m->call;
  if (b && is_param_of(e->sym, b->g)) {
    if (e->kind == SJ_E_VAR) return copy(p, b->scalar[e->sym->param]);
    /* an element of an array parameter: of the caller's array, its row subscripts first (an
     * address's last one plus the element's first) */
    const sj_expr *rows = b->array[e->sym->param];
    int shared = rows->op == '&', first = rows->nargs - shared, n = first + e->nargs;
    sj_expr **idx = alloc(p, (size_t)n * sizeof *idx);
    for (int i = 0; i < first; i++) idx[i] = copy(p, rows->args[i]);
    for (int i = 0; i < e->nargs; i++) idx[first + i] = clone_expr(p, e->args[i], m);
    if (shared)
      idx[first] =
          binop(p, SJ_OP_ADD, copy(p, rows->args[first]), conv(p, idx[first], SJ_TY_LONG), e->loc);
    sj_expr *c = node(p, SJ_E_INDEX, e->type, e->loc, n, idx);
    c->sym = rows->sym;
    return c;
  }
  sj_expr **args = e->nargs ? alloc(p, (size_t)e->nargs * sizeof *args) : NULL;
  for (int i = 0; i < e->nargs; i++) args[i] = clone_expr(p, e->args[i], m);
  sj_expr *c = node(p, e->kind, e->type, e->loc, e->nargs, args);
  *c = *e; /* every field but the copied operands (and the height node() measured) */
  c->args = args;
  if (c->sym) c->sym = mapped(m, c->sym);
  return c;
}

static sj_sym *fresh(parser *p, symmap *m, sj_sym *s) {
  psym *x = alloc(p, sizeof *x);
  *x = *(psym *)s;
  push(p, &p->syms, x);
  push(p, &m->from, s);
  push(p, &m->to, &x->s);
  if (m->call && x->s.rank) { /* a local array's extents may name the callee's parameters */
    x->s.extents = alloc(p, (size_t)x->s.rank * sizeof *x->s.extents);
    for (int d = 0; d < x->s.rank; d++) x->s.extents[d] = clone_expr(p, s->extents[d], m);
  }
  return &x->s;
}

static sj_stmt *clone_stmt(parser *p, const sj_stmt *st, symmap *m) {
  if (!st) return NULL;
  sj_stmt *c = stmt(p, st->kind, st->loc);
  *c = *st;
  if (st->kind == SJ_S_DECL) c->sym = fresh(p, m, st->sym);
  if (st->kind == SJ_S_FOR) {
    c->init = clone_expr(p, st->init, m);
    c->iter = fresh(p, m, st->iter);
  }
  c->cond = clone_expr(p, st->cond, m);
  c->lhs = clone_expr(p, st->lhs, m);
  c->rhs = clone_expr(p, st->rhs, m);
  if (st->nbody) c->body = alloc(p, (size_t)st->nbody * sizeof *c->body);
  for (int i = 0; i < st->nbody; i++) c->body[i] = clone_stmt(p, st->body[i], m);
  return c;
}

static sj_expr *call_in(parser *p, const sj_token *name) {
  vec args = {0};
  sj_expr *e;
  sj_type t;
  int fn, i, n;
  const sj_func *g = loop_helper(p, name);
  if (g) return hoisted_call(p, g, name);
  for (i = 0; i < p->helpers.n; i++) {
    const helper *h = p->helpers.v[i];
    if (strlen(h->name) != name->len || memcmp(h->name, name->text, name->len)) continue;
    next(p);
    if (kind(p) != ')') do {
        p->call_arg = 1; /* arrays may be passed (an expression's arguments are its value) */
        push(p, &args, expr(p));
        p->call_arg = 0;
      } while (accept(p, ','));
    expect(p, ')');
    if (args.n != h->f->nparams)
      fail(p, SYNTAX, name->loc, "function '%s' takes %d argument%s, %d given", h->name,
           h->f->nparams, h->f->nparams == 1 ? "" : "s", args.n);
    p->calls |= h->calls;
    binding b;
    symmap m = {.call = &b};
    bind_args(p, h->f, (sj_expr **)args.v, &b, &m, NULL);
    call_vm(p, h->f, &m, &p->vm);
    e = clone_expr(p, h->value, &m);
    e->loc = name->loc;
    return e;
  }
  /* abs, labs, llabs: |x| of int or long as a choice (abs(INT_MIN) has no value in C) */
  static const struct {
    const char *name;
    sj_type type;
  } iabs[] = {{"abs", SJ_TY_INT}, {"labs", SJ_TY_LONG}, {"llabs", SJ_TY_LONG}};
  for (i = 0; i < 3; i++) {
    if (strlen(iabs[i].name) != name->len || memcmp(iabs[i].name, name->text, name->len)) continue;
    next(p);
    sj_expr *x = conv(p, expr(p), iabs[i].type);
    if (kind(p) == ',') fail(p, SYNTAX, name->loc, "function '%s' takes 1 argument", iabs[i].name);
    expect(p, ')');
    sj_expr *below =
        binop(p, SJ_OP_LT, copy(p, x), int_lit(p, iabs[i].type, 0, name->loc), name->loc);
    sj_expr *args3[] = {below, negate(p, copy(p, x), name->loc), x};
    return node(p, SJ_E_COND, iabs[i].type, name->loc, 3, args3);
  }
  for (fn = 0; fn < SJ_NFUNCS; fn++)
    if (strlen(sj_func_name(fn)) == name->len && !memcmp(sj_func_name(fn), name->text, name->len))
      break;
  for (i = 0; fn == SJ_NFUNCS && i < p->funcs.n; i++)
    if (!strncmp(((sj_func *)p->funcs.v[i])->name, name->text, name->len) &&
        !((sj_func *)p->funcs.v[i])->name[name->len])
      fail(p, UNSUP, name->loc, "'%.*s' returns no value: call it as a statement, '%.*s(...);'",
           TOKTEXT(name), TOKTEXT(name));
  const sj_failure *gone = fn == SJ_NFUNCS ? refused(p, name->text, name->len) : NULL;
  if (gone) reraise(p, gone);
  if (fn == SJ_NFUNCS)
    fail(p, UNSUP, name->loc,
         "call to '%.*s' is not supported (the supported functions are sqrt, fabs, fmin, fmax, "
         "exp, exp2, expm1, log, log2, log10, log1p, pow, sin, cos, tan, sinh, cosh, tanh, "
         "floor, ceil, trunc, round, fmod, copysign, fma and their float forms: sqrtf, ...; "
         "abs, labs and llabs)",
         TOKTEXT(name));
  next(p);
  if (kind(p) != ')') do
      push(p, &args, expr(p));
    while (accept(p, ','));
  expect(p, ')');
  n = sj_func_nargs(fn);
  if (args.n != n)
    fail(p, SYNTAX, name->loc, "function '%s' takes %d argument%s, %d given", sj_func_name(fn), n,
         n == 1 ? "" : "s", args.n);
  /* sj_func_id alternates the double and the float form of each function. */
  t = fn & 1 ? SJ_TY_FLOAT : SJ_TY_DOUBLE;
  for (i = 0; i < n; i++) args.v[i] = conv(p, args.v[i], t);
  e = node(p, SJ_E_CALL, t, name->loc, n, exprs(p, &args));
  e->op = fn;
  p->calls |= 1ull << fn;
  return e;
}

/* A call in an expression: of a helper (inlined), abs and its kin, or a math function. */
static sj_expr *call(parser *p, const sj_token *name) {
  int outer = p->call_arg; /* arrays are passed only to void functions */
  p->call_arg = 0;
  sj_expr *e = call_in(p, name);
  p->call_arg = outer;
  return e;
}

/* --- tables: arrays declared with an initializer list, never written --- */

enum { MAX_TABLE = 4096, MAX_TABLE_SELECT = 64 };

/* The value of an integer expression of literals (and the operators a subscript uses). */
static int literal_value(const sj_expr *e, long *v) {
  long a, b;
  switch (e->kind) {
  case SJ_E_INT:
    return *v = e->ival, 1;
  case SJ_E_CAST:
    return sj_type_is_integer(e->type) && literal_value(e->args[0], v);
  case SJ_E_UNARY:
    return e->op == '-' && literal_value(e->args[0], &a) && (*v = -a, 1);
  case SJ_E_BINARY:
    if (!literal_value(e->args[0], &a) || !literal_value(e->args[1], &b)) return 0;
    if (e->op == SJ_OP_ADD) return *v = a + b, 1;
    if (e->op == SJ_OP_SUB) return *v = a - b, 1;
    if (e->op == SJ_OP_MUL) return *v = a * b, 1;
    return 0;
  default:
    return 0;
  }
}

/* Elements [lo, hi) of table x chosen by flat index f: halves compared with f, so that a
 * subscript that becomes a constant (a window loop's iterator, jit/window.c) folds to one. */
static sj_expr *select_element(parser *p, const psym *x, const sj_expr *f, long lo, long hi,
                               sj_loc loc) {
  if (hi - lo == 1) {
    sj_expr *e = copy(p, x->table[lo]);
    e->loc = loc;
    return e;
  }
  long mid = lo + (hi - lo) / 2;
  sj_expr *below = binop(p, SJ_OP_LT, copy(p, f), int_lit(p, f->type, mid, loc), loc);
  sj_expr *args[] = {below, select_element(p, x, f, lo, mid, loc),
                     select_element(p, x, f, mid, hi, loc)};
  return node(p, SJ_E_COND, x->s.type, loc, 3, args);
}

/* The use x[i]...: the element itself where the subscripts are literals, else a selection
 * among the elements (a subscript outside the table has no value in C: it gets one of them). */
static sj_expr *table_element(parser *p, const psym *x, const vec *idx, sj_loc loc) {
  long flat = 0, n = 1, v;
  int literal = 1;
  for (int d = 0; d < x->s.rank; d++) {
    long ext = x->s.extents[d]->ival;
    n *= ext;
    if (!literal_value(idx->v[d], &v)) {
      literal = 0;
    } else if (v < 0 || v >= ext) {
      fail(p, SYNTAX, ((sj_expr *)idx->v[d])->loc,
           "subscript %ld of table '%s' is outside its extent %ld", v, x->s.name, ext);
    }
    if (literal) flat = flat * ext + v; /* v is not set where a subscript is not a literal */
  }
  if (literal) return select_element(p, x, NULL, flat, flat + 1, loc);
  if (n > MAX_TABLE_SELECT)
    fail(p, UNSUP, loc,
         "table '%s' has %ld elements: a subscript that is not a constant may choose among at "
         "most %d (pass a larger table as an array parameter)",
         x->s.name, n, MAX_TABLE_SELECT);
  sj_expr *f = NULL;
  sj_type t = SJ_TY_INT; /* int subscripts stay int: a window's iterators fold then */
  for (int d = 0; d < x->s.rank; d++)
    if (((sj_expr *)idx->v[d])->type != SJ_TY_INT) t = SJ_TY_LONG;
  for (int d = 0; d < x->s.rank; d++) {
    sj_expr *i = conv(p, idx->v[d], t);
    f = f ? binop(p, SJ_OP_ADD,
                  binop(p, SJ_OP_MUL, f, int_lit(p, t, x->s.extents[d]->ival, loc), loc), i, loc)
          : i;
  }
  return select_element(p, x, f, 0, n, loc);
}

/* Whether an element of a table may be e: literals, operators, parameters (shape and scalar:
 * they do not change during a call) and iterators in scope (named constants are literals by
 * now). */
static int table_value(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL) return 0;
  if (e->kind == SJ_E_VAR && e->sym->kind != SJ_SYM_SHAPE && e->sym->kind != SJ_SYM_SCALAR &&
      e->sym->kind != SJ_SYM_ITER)
    return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!table_value(e->args[i])) return 0;
  return 1;
}

/* One brace-enclosed list at dimension d of table x, its elements from base on: nested braces
 * start a sub-array at the next row (padded with zeros), elements without braces fill in
 * order (C's brace elision). span: the elements the list may hold (-1: the first extent is
 * open). */
static void init_list(parser *p, psym *x, int d, const long *ext, long span, long base, vec *out) {
  expect(p, '{');
  long pos = 0, sub = 1;
  for (int k = d + 1; k < x->s.rank; k++) sub *= ext[k];
  while (kind(p) != '}') {
    if (span >= 0 && pos >= span)
      fail(p, SYNTAX, peek(p, 0)->loc, "excess elements in the initializer of '%s'", x->s.name);
    if (base + pos >= MAX_TABLE)
      fail(p, UNSUP, peek(p, 0)->loc, "table '%s' has more than %d elements", x->s.name, MAX_TABLE);
    if (kind(p) == '{' && d + 1 < x->s.rank) {
      pos = (pos + sub - 1) / sub * sub;
      init_list(p, x, d + 1, ext, sub, base + pos, out);
      pos += sub;
    } else {
      sj_expr *e = conditional(p);
      if (!table_value(e))
        fail(p, UNSUP, e->loc,
             "an element of table '%s' must be an expression of literals, parameters and "
             "iterators",
             x->s.name);
      while (out->n <= base + pos) push(p, out, NULL);
      out->v[base + pos++] = conv_to(p, e, x->s.type, x->s.is_bool);
    }
    if (!accept(p, ',')) break;
  }
  if (!accept(p, '}')) found(p, "'}' or ','");
  while (span >= 0 && out->n < base + span) push(p, out, NULL);
}

/* The initializer list of x (after `=`): its elements (zeros where none is given), its
 * extents (an open first one counted). */
static void table(parser *p, psym *x, const vec *ext, sj_loc loc) {
  long e[8], span = 1;
  if (ext->n > 8) fail(p, UNSUP, loc, "table '%s' has more than 8 dimensions", x->s.name);
  for (int d = 0; d < ext->n; d++) {
    long v = 0;
    if (d > 0 || ext->v[0]) {
      sj_loc at = ((sj_expr *)ext->v[d])->loc;
      if (!literal_value(ext->v[d], &v))
        fail(p, UNSUP, at,
             "the extents of table '%s' (an array with an initializer) must be constants",
             x->s.name);
      if (v > MAX_TABLE / span)
        fail(p, UNSUP, at, "table '%s' has more than %d elements", x->s.name, MAX_TABLE);
      span *= v;
    }
    e[d] = v;
  }
  vec elems = {0};
  x->s.rank = ext->n;
  init_list(p, x, 0, e, ext->v[0] ? span : -1, 0, &elems);
  long row = ext->v[0] ? span / e[0] : span;
  if (!ext->v[0]) e[0] = (elems.n + row - 1) / row;
  if (e[0] <= 0) fail(p, SYNTAX, loc, "table '%s' is empty", x->s.name);
  long n = e[0] * row;
  x->table = alloc(p, (size_t)n * sizeof *x->table);
  for (long i = 0; i < n; i++)
    x->table[i] =
        i < elems.n && elems.v[i] ? elems.v[i] : conv(p, int_lit(p, SJ_TY_INT, 0, loc), x->s.type);
  x->s.extents = alloc(p, (size_t)ext->n * sizeof *x->s.extents);
  for (int d = 0; d < ext->n; d++) x->s.extents[d] = int_lit(p, SJ_TY_LONG, e[d], loc);
  x->s.is_const = 1;
}

/* The offset of `*(a + i - 1)` after the array's name, up to the parenthesis: the terms
 * added to and subtracted from the pointer. */
static sj_expr *pointer_offset(parser *p, sj_loc loc) {
  sj_expr *offset = NULL;
  while (kind(p) == '+' || kind(p) == '-') {
    sj_token op = next(p);
    sj_expr *term = binary(p, 10); /* a multiplicative expression: what binds tighter than + */
    if (!sj_type_is_integer(term->type))
      fail(p, SYNTAX, term->loc, "pointer offset has type '%s', not an integer type",
           sj_type_name(term->type));
    term = conv(p, term, sj_type_promote(term->type));
    offset = !offset ? (op.kind == '+' ? term : negate(p, term, op.loc))
                     : binop(p, op.kind == '+' ? SJ_OP_ADD : SJ_OP_SUB, offset, term, op.loc);
  }
  close_with(p, ')');
  return offset ? offset : int_lit(p, SJ_TY_INT, 0, loc);
}

/* A variable, or an element of an array: `a[i][j]`, or, with deref (after a `*`), `*a` and
 * `*(a + i)` as a[0] and a[i] of a one-dimensional one. */
static sj_expr *reference(parser *p, int deref) {
  sj_loc star = peek(p, 0)->loc;
  int paren = deref && accept(p, '(');
  if (deref && kind(p) != SJ_T_IDENT) {
    if (paren) fail(p, UNSUP, star, "'*' applies to an array here: *a, *(a + i)");
    fail(p, UNSUP, star, "pointer dereference '*' applies to an array here: *a, *(a + i)");
  }
  sj_token t = next(p);
  psym *x = lookup(p, t.text, t.len);
  vec idx = {0};
  sj_expr *e;
  if (deref && (!x || x->s.rank != 1 || x->value))
    fail(p, UNSUP, t.loc, "'*' applies to a one-dimensional array here, as *%.*s or *(%.*s + i)",
         TOKTEXT(&t), TOKTEXT(&t));
  if (deref) push(p, &idx, paren ? pointer_offset(p, t.loc) : int_lit(p, SJ_TY_INT, 0, t.loc));
  if (!deref && kind(p) == '(') {
    if (x) fail(p, SYNTAX, t.loc, "called object '%s' is not a function", x->s.name);
    return call(p, &t);
  }
  if (!x && refused(p, t.text, t.len)) reraise(p, refused(p, t.text, t.len));
  if (!x) fail(p, SYNTAX, t.loc, "undeclared identifier '%.*s'", TOKTEXT(&t));
  if (x->is_typedef) fail(p, SYNTAX, t.loc, "'%s' is a type name, not a value", x->s.name);
  if (x->unset) fail(p, UNSUP, t.loc, "'%s' is read before it is assigned", x->s.name);
  if (x->value) {
    if (p->file_init && !x->enumerator) /* as C has it: a const object is none */
      fail(p, UNSUP, t.loc,
           "'%s' is not a constant expression in C: a file-scope "
           "initializer may use only literals and operators",
           x->s.name);
    e = copy(p, x->value);
    e->loc = t.loc;
    return e;
  }
  if (x->moved.line) used_after(p, x, t.loc);
  if (!x->pointer && !x->alias) use(p, x, t.loc);
  if (!x->s.rank) {
    e = node(p, SJ_E_VAR, x->s.type, t.loc, 0, NULL);
    e->sym = &x->s;
    return e;
  }
  while (!deref && accept(p, '[')) {
    sj_expr *i = expr(p);
    if (!sj_type_is_integer(i->type))
      fail(p, SYNTAX, i->loc, "array index has type '%s', not an integer type",
           sj_type_name(i->type));
    close_with(p, ']');
    push(p, &idx, i);
  }
  if (x->alias) { /* through a local pointer: the array's own subscripts (address_local) */
    const sj_expr *a = x->alias;
    if (!idx.n) { /* the pointer itself: only as an argument */
      if (!p->call_arg ||
          (kind(p) != ',' && kind(p) != ')' && kind(p) != ';' && kind(p) != '+' && kind(p) != '-'))
        fail(p, UNSUP, t.loc,
             "'%s' points into '%s': use it as %s[i], *%s or *(%s + i), or pass it to a "
             "function (moving it or assigning it is not supported)",
             x->s.name, a->sym->name, x->s.name, x->s.name, x->s.name);
      for (int i = 0; i < a->nargs; i++) push(p, &idx, copy(p, a->args[i]));
      e = node(p, SJ_E_INDEX, a->type, t.loc, idx.n, exprs(p, &idx));
      e->sym = a->sym;
      e->implicit = 1;
      e->op = a->op;
      return e;
    }
    if (x->s.is_const && (is_assign_op(kind(p)) || kind(p) == SJ_T_INC || kind(p) == SJ_T_DEC))
      fail(p, SYNTAX, t.loc, "assignment through '%s', a pointer to const", x->s.name);
    int shared = a->op == '&', first = a->nargs - shared;
    vec all = {0};
    for (int i = 0; i < first; i++) push(p, &all, copy(p, a->args[i]));
    for (int i = 0; i < idx.n; i++) push(p, &all, idx.v[i]);
    if (shared)
      all.v[first] = binop(p, SJ_OP_ADD, conv(p, copy(p, a->args[first]), SJ_TY_LONG),
                           conv(p, all.v[first], SJ_TY_LONG), t.loc);
    x = (psym *)a->sym;
    idx = all;
  }
  if (idx.n < x->s.rank && p->call_arg &&
      (kind(p) == ',' || kind(p) == ')' || kind(p) == ';' || kind(p) == '+' || kind(p) == '-') &&
      !x->table && !x->reshape) {
    /* an array, or rows of one, passed to a function: inline_call() binds it (A + i: an
     * address, binary()); or a local pointer's (address_local) */
    e = node(p, SJ_E_INDEX, x->s.type, t.loc, idx.n, exprs(p, &idx));
    e->sym = &x->s;
    e->implicit = 1;
    return e;
  }
  if (idx.n != x->s.rank)
    fail(p, UNSUP, t.loc, "array '%s' has %d dimension%s, %d ind%s given", x->s.name, x->s.rank,
         x->s.rank == 1 ? "" : "s", idx.n, idx.n == 1 ? "ex" : "ices");
  if (x->table && is_assign_op(kind(p)))
    fail(p, UNSUP, t.loc,
         "'%s' has an initializer list, which makes it a table of constants: it cannot be "
         "written (declare it without the initializer and assign its elements)",
         x->s.name);
  if (x->table) return table_element(p, x, &idx, t.loc);
  if (x->reshape) { /* onto the flat array: ((i0 * M1 + i1) * M2 + i2)... */
    sj_expr *flat = idx.v[0];
    for (int d = 1; d < idx.n; d++)
      flat = binop(p, SJ_OP_ADD, binop(p, SJ_OP_MUL, flat, copy(p, x->s.extents[d]), t.loc),
                   idx.v[d], t.loc);
    idx.v[0] = flat;
    idx.n = 1;
  }
  e = node(p, SJ_E_INDEX, x->s.type, t.loc, idx.n, exprs(p, &idx));
  e->sym = &x->s;
  return e;
}

/* An address in an array passed to a function, A + i or &A[i] (rows marked '&'): the
 * callee's first subscript is added to the address's last, so its p[k] is A[i + k]. */
static sj_expr *element_address(parser *p, const sj_expr *e) {
  sj_expr *a = node(p, SJ_E_INDEX, e->type, e->loc, e->nargs, e->args);
  a->sym = e->sym;
  a->implicit = 1;
  a->op = '&';
  return a;
}

/* rows + off or rows - off: the address off elements on along rows' next dimension (along its
 * last when rows is an address). */
static sj_expr *address_plus(parser *p, sj_expr *rows, int op, sj_expr *off, sj_loc loc) {
  if (!sj_type_is_integer(off->type))
    fail(p, SYNTAX, off->loc, "pointer offset has type '%s', not an integer type",
         sj_type_name(off->type));
  no_rows(p, off);
  int n = rows->nargs + (rows->op != '&');
  sj_expr **idx = alloc(p, (size_t)n * sizeof *idx);
  for (int i = 0; i < rows->nargs; i++) idx[i] = rows->args[i];
  sj_expr *base = rows->op == '&' ? idx[n - 1] : int_lit(p, SJ_TY_LONG, 0, loc);
  idx[n - 1] = binop(p, op == SJ_OP_ADD ? SJ_OP_ADD : SJ_OP_SUB, conv(p, base, SJ_TY_LONG),
                     conv(p, off, SJ_TY_LONG), loc);
  rows->args = idx;
  rows->nargs = n;
  rows->op = '&';
  return rows;
}

static sj_expr *postfix(parser *p) {
  sj_token *t = peek(p, 0);
  sj_loc start = t->loc;
  sj_expr *e;
  switch (t->kind) {
  case SJ_T_IDENT:
    e = reference(p, 0);
    break;
  case SJ_T_INT:
    e = int_lit(p, t->type, t->ival, t->loc), next(p);
    break;
  case SJ_T_FLOAT:
    e = float_lit(p, t->type, t->fval, t->loc), next(p);
    break;
  case SJ_T_STRING:
    fail(p, UNSUP, start, "string literals are not supported");
  case SJ_T_CHAR:
    e = int_lit(p, SJ_TY_INT, t->ival, t->loc), next(p);
    break;
  case '(':
    next(p);
    e = expr(p);
    close_with(p, ')');
    break;
  default:
    found(p, "an expression");
  }
  t = peek(p, 0);
  switch (t->kind) {
  case '[':
    fail(p, SYNTAX, start, "subscripted value is not an array");
  case '(':
    fail(p, SYNTAX, start, "called object is not a function");
  case SJ_T_INC:
  case SJ_T_DEC:
    if (p->step_target && peek(p, 1)->kind == ';') break; /* `x++;`: assignment() reads it */
    fail(p, UNSUP, start,
         "'%s' is only supported as a statement of its own (x%s;) or a for loop's increment",
         sj_tok_spelling(t->kind), sj_tok_spelling(t->kind));
  case '.':
  case SJ_T_ARROW:
    fail(p, UNSUP, start, "member access '%s' is not supported", sj_tok_spelling(t->kind));
  }
  return e;
}

/* Folding `-` into a literal gives C's value: signed literals are never below -LONG_MAX, so
 * the negation cannot overflow; unsigned ones wrap (ival holds an unsigned long's bits). */
static sj_expr *negate(parser *p, sj_expr *e, sj_loc loc) {
  if (e->kind == SJ_E_INT || e->kind == SJ_E_FLOAT) {
    if (e->kind == SJ_E_FLOAT)
      e->fval = -e->fval;
    else if (e->type == SJ_TY_UINT)
      e->ival = (long)(unsigned)(0u - (unsigned)e->ival);
    else
      e->ival = (long)(0ul - (unsigned long)e->ival);
    e->loc = loc;
    return e;
  }
  e = node1(p, SJ_E_UNARY, e->type, loc, e);
  e->op = '-';
  return e;
}

static sj_expr *unary(parser *p) {
  sj_token *t = peek(p, 0);
  sj_loc loc = t->loc;
  sj_expr *e;
  spec s;
  enter(p, loc);
  switch (t->kind) {
  case '-':
    next(p), e = unary(p);
    e = negate(p, conv(p, e, sj_type_promote(e->type)), loc);
    break;
  case '+':
    next(p), e = unary(p);
    e = conv(p, e, sj_type_promote(e->type));
    break;
  case '!':
    next(p);
    e = node1(p, SJ_E_UNARY, SJ_TY_INT, loc, truth(p, unary(p)));
    e->op = '!';
    break;
  case '~':
    next(p), e = unary(p);
    if (!sj_type_is_integer(e->type))
      fail(p, SYNTAX, loc, "the operand of '~' must be an integer, not '%s'",
           sj_type_name(e->type));
    e = conv(p, e, sj_type_promote(e->type));
    if (e->kind == SJ_E_INT) { /* a literal: its value, as '-' folds */
      e->ival = e->type == SJ_TY_UINT ? (long)(unsigned)~e->ival : ~e->ival;
      e->loc = loc;
      break;
    }
    e = node1(p, SJ_E_UNARY, e->type, loc, e);
    e->op = '~';
    break;
  case '*':
    next(p);
    e = reference(p, 1);
    break;
  case '&':
    next(p);
    e = p->call_arg && kind(p) == SJ_T_IDENT ? postfix(p) : NULL;
    if (!e || e->kind != SJ_E_INDEX || !e->sym || e->sym->kind != SJ_SYM_ARRAY || !e->nargs)
      fail(p, UNSUP, loc,
           "address-of operator '&' is supported on an array element passed to a function "
           "(&A[i], &A[i][0])");
    e = element_address(p, e);
    break;
  case SJ_T_INC:
  case SJ_T_DEC:
    fail(p, UNSUP, loc,
         "'%s' is only supported as a statement of its own (%sx;) or a for loop's increment",
         sj_tok_spelling(t->kind), sj_tok_spelling(t->kind));
  case SJ_K_SIZEOF:
    fail(p, UNSUP, loc, "'sizeof' is not supported");
  case '(':
    if (starts_type(p, 1)) {
      next(p);
      s = specifiers(p);
      if (s.is_static || s.is_inline || s.is_typedef)
        fail(p, SYNTAX, s.loc, "storage class in a cast");
      if (s.type == SJ_TY_VOID) fail(p, UNSUP, s.loc, "cast to 'void' is not supported");
      no_pointer(p);
      expect(p, ')');
      e = s.is_bool ? as_bool(p, unary(p)) : node1(p, SJ_E_CAST, s.type, loc, unary(p));
      break;
    }
    e = postfix(p);
    break;
  default:
    e = postfix(p);
  }
  p->nest--;
  return e;
}

/* Binary operators by C precedence; 0: not one. */
static int precedence(int k, int *op) {
  *op = -1;
  switch (k) {
  case SJ_T_OROR:
    *op = SJ_OP_OR;
    return 1;
  case SJ_T_ANDAND:
    *op = SJ_OP_AND;
    return 2;
  case '|':
    *op = SJ_OP_BOR;
    return 3;
  case '^':
    *op = SJ_OP_XOR;
    return 4;
  case '&':
    *op = SJ_OP_BAND;
    return 5;
  case SJ_T_EQ:
    *op = SJ_OP_EQ;
    return 6;
  case SJ_T_NE:
    *op = SJ_OP_NE;
    return 6;
  case '<':
    *op = SJ_OP_LT;
    return 7;
  case '>':
    *op = SJ_OP_GT;
    return 7;
  case SJ_T_LE:
    *op = SJ_OP_LE;
    return 7;
  case SJ_T_GE:
    *op = SJ_OP_GE;
    return 7;
  case SJ_T_SHL:
    *op = SJ_OP_SHL;
    return 8;
  case SJ_T_SHR:
    *op = SJ_OP_SHR;
    return 8;
  case '+':
    *op = SJ_OP_ADD;
    return 9;
  case '-':
    *op = SJ_OP_SUB;
    return 9;
  case '*':
    *op = SJ_OP_MUL;
    return 10;
  case '/':
    *op = SJ_OP_DIV;
    return 10;
  case '%':
    *op = SJ_OP_REM;
    return 10;
  }
  return 0;
}

static sj_expr *binary(parser *p, int min) {
  sj_expr *l = unary(p);
  for (;;) {
    sj_token t = *peek(p, 0);
    int op, prec = precedence(t.kind, &op);
    if (!prec || prec < min) return l;
    next(p);
    const char *no_hoist = p->no_hoist;
    if (op == SJ_OP_AND || op == SJ_OP_OR) hoisting(p, UNDER_CONDITION);
    sj_expr *r = binary(p, prec + 1);
    if (is_rows(l) && (op == SJ_OP_ADD || op == SJ_OP_SUB))
      l = address_plus(p, l, op, r, t.loc);
    else
      l = binop(p, (sj_binop)op, l, r, t.loc);
    p->no_hoist = no_hoist;
  }
}

static sj_expr *conditional(parser *p) {
  sj_expr *c = binary(p, 1), *a, *b, *e;
  sj_token q;
  sj_type t;
  if (kind(p) != '?') return c;
  q = next(p);
  enter(p, q.loc);
  const char *no_hoist = hoisting(p, UNDER_CONDITION);
  a = expr(p);
  close_with(p, ':');
  b = conditional(p);
  p->no_hoist = no_hoist;
  p->nest--;
  t = common(a->type, b->type);
  e = node(p, SJ_E_COND, t, q.loc, 3, (sj_expr *[]){truth(p, c), conv(p, a, t), conv(p, b, t)});
  return e;
}

static int is_assign_op(int k) {
  switch (k) {
  case '=':
  case SJ_T_ADDEQ:
  case SJ_T_SUBEQ:
  case SJ_T_MULEQ:
  case SJ_T_DIVEQ:
  case SJ_T_REMEQ:
  case SJ_T_ANDEQ:
  case SJ_T_OREQ:
  case SJ_T_XOREQ:
  case SJ_T_SHLEQ:
  case SJ_T_SHREQ:
    return 1;
  }
  return 0;
}

static sj_expr *expr(parser *p) {
  sj_expr *e = conditional(p);
  if (is_assign_op(kind(p)))
    fail(p, UNSUP, peek(p, 0)->loc, "assignment inside an expression is not supported");
  return e;
}

/* --- statements --- */

static sj_stmt *stmt(parser *p, sj_stmt_kind k, sj_loc loc) {
  sj_stmt *s = alloc(p, sizeof *s);
  s->kind = k;
  s->loc = loc;
  return s;
}

static void check_target(parser *p, const sj_expr *lhs, const sj_token *op) {
  const sj_sym *s = lhs->sym;
  if (lhs->kind == SJ_E_INDEX) {
    if (s->is_const)
      fail(p, SYNTAX, lhs->loc, "assignment to an element of const array '%s'", s->name);
    return;
  }
  if (lhs->kind == SJ_E_VAR) switch (s->kind) {
    case SJ_SYM_SHAPE:
    case SJ_SYM_SCALAR:
      fail(p, UNSUP, lhs->loc, "assignment to parameter '%s' is not supported", s->name);
    case SJ_SYM_ITER:
      fail(p, UNSUP, lhs->loc, "assignment to loop iterator '%s' is not supported", s->name);
    case SJ_SYM_LOCAL:
      if (s->is_const) fail(p, SYNTAX, lhs->loc, "assignment to const variable '%s'", s->name);
      return;
    case SJ_SYM_ARRAY:
      break;
    }
  fail(p, SYNTAX, lhs->loc, "the left side of '%s' cannot be assigned", sj_tok_spelling(op->kind));
}

/* The operator of a compound assignment; -1 for `=`. */
static int compound_op(int k) {
  switch (k) {
  case SJ_T_ANDEQ:
    return SJ_OP_BAND;
  case SJ_T_OREQ:
    return SJ_OP_BOR;
  case SJ_T_XOREQ:
    return SJ_OP_XOR;
  case SJ_T_SHLEQ:
    return SJ_OP_SHL;
  case SJ_T_SHREQ:
    return SJ_OP_SHR;
  case SJ_T_ADDEQ:
    return SJ_OP_ADD;
  case SJ_T_SUBEQ:
    return SJ_OP_SUB;
  case SJ_T_MULEQ:
    return SJ_OP_MUL;
  case SJ_T_DIVEQ:
    return SJ_OP_DIV;
  case SJ_T_REMEQ:
    return SJ_OP_REM;
  }
  return -1;
}

/* `x++;`, `++x;` (or --) as the statement x = x + 1 (C's conversions: a float x adds 1.0f). */
static void step_statement(parser *p, sj_expr *target, const sj_token *op, sj_loc loc, vec *out) {
  check_target(p, target, op);
  close_with(p, ';');
  sj_stmt *s = stmt(p, SJ_S_ASSIGN, loc);
  s->lhs = target;
  s->rhs = conv_to(p,
                   binop(p, op->kind == SJ_T_INC ? SJ_OP_ADD : SJ_OP_SUB, copy(p, target),
                         int_lit(p, SJ_TY_INT, 1, op->loc), op->loc),
                   target->type, target->sym->is_bool);
  push(p, out, s);
}

/* One assignment statement, or a chain `a = b op= e;`, as statements in out: the rightmost
 * assignment first, each further left one assigning the value of the one to its right read
 * back (what C's assignment expression yields: the left operand after the assignment). */
static void assignment(parser *p, vec *out) {
  sj_loc loc = peek(p, 0)->loc;
  if (kind(p) == SJ_T_INC || kind(p) == SJ_T_DEC) {
    sj_token op = next(p);
    step_statement(p, unary(p), &op, loc, out);
    return;
  }
  p->step_target = 1;
  sj_expr *lhs = conditional(p), *rhs;
  p->step_target = 0;
  sj_token op = *peek(p, 0);
  vec targets = {0}, ops = {0};
  if (op.kind == SJ_T_INC || op.kind == SJ_T_DEC) {
    next(p);
    step_statement(p, lhs, &op, loc, out);
    return;
  }
  if (op.kind == ';')
    fail(p, UNSUP, loc,
         "a statement must assign to an array element or a local variable (expression "
         "statements are not supported)");
  if (!is_assign_op(op.kind)) close_with(p, ';'); /* fails: names a comma or the stray token */
  for (;;) {
    int bin = compound_op(op.kind);
    if (bin < 0 && op.kind != '=')
      fail(p, UNSUP, op.loc, "operator '%s' is not supported", sj_tok_spelling(op.kind));
    check_target(p, lhs, &op);
    sj_token *keep = alloc(p, sizeof *keep);
    *keep = next(p);
    push(p, &targets, lhs);
    push(p, &ops, keep);
    rhs = conditional(p);
    if (!is_assign_op(kind(p))) break;
    lhs = rhs;
    op = *peek(p, 0);
  }
  close_with(p, ';');
  for (int k = targets.n - 1; k >= 0; k--) {
    sj_expr *target = targets.v[k];
    const sj_token *o = ops.v[k];
    sj_stmt *s = stmt(p, SJ_S_ASSIGN, k ? target->loc : loc);
    /* L op= e is L = (T_L)(L op e): the copy of L is the read the model must see. */
    if (o->kind != '=')
      rhs = binop(p, (sj_binop)compound_op(o->kind), copy(p, target), rhs, o->loc);
    s->lhs = target;
    s->rhs = conv_to(p, rhs, target->type, target->sym->is_bool);
    push(p, out, s);
    rhs = copy(p, target);
  }
}

/* `[e]...` after a declared name: extents over shape parameters and integer constants. A
 * parameter's first may be left open (`[]`, or a pointer before the name): a NULL extent. */
static void extents(parser *p, const char *what, const sj_token *name, int open, vec *ext) {
  while (kind(p) == '[') {
    sj_token lb = next(p);
    int k = kind(p);
    /* a parameter's first brackets may hold qualifiers (`float A[restrict N]`, `[static N]`),
     * which change nothing here */
    while (!strcmp(what, "array parameter") && ext->n == 0 &&
           (k == SJ_K_STATIC || k == SJ_K_CONST || k == SJ_K_RESTRICT || k == SJ_K_VOLATILE)) {
      next(p);
      k = kind(p);
    }
    if (k == ']' && open && ext->n == 0) {
      next(p);
      push(p, ext, NULL);
      continue;
    }
    if (k == ']' || (k == '*' && peek(p, 1)->kind == ']'))
      fail(p, UNSUP, lb.loc, "%s '%.*s': give every extent%s", what, TOKTEXT(name),
           open ? " but the first" : "");
    if (k == SJ_K_STATIC || k == SJ_K_CONST || k == SJ_K_RESTRICT || k == SJ_K_VOLATILE)
      fail(p, UNSUP, peek(p, 0)->loc, "'%s' inside the brackets of an %s is not supported",
           sj_tok_spelling(k), what);
    sj_expr *e = expr(p);
    if (!sj_type_is_integer(e->type))
      fail(p, SYNTAX, e->loc, "array extent has type '%s', not an integer type",
           sj_type_name(e->type));
    if (e->kind == SJ_E_INT && e->ival <= 0)
      fail(p, SYNTAX, e->loc, "array extent %ld is not positive", e->ival);
    check_extent(p, e);
    close_with(p, ']');
    push(p, ext, e);
  }
}

static void set_extents(parser *p, psym *x, const vec *ext) {
  x->s.rank = ext->n;
  x->s.extents = alloc(p, (size_t)ext->n * sizeof *x->s.extents);
  for (int i = 0; i < ext->n; i++) x->s.extents[i] = ext->v[i];
}

static void declaration(parser *p, vec *body) {
  spec s = specifiers(p);
  if (s.is_typedef) {
    typedef_decl(p, &s);
    return;
  }
  if (s.is_inline) fail(p, SYNTAX, s.loc, "'inline' applies to functions, not to variables");
  if (s.type == SJ_TY_VOID) fail(p, SYNTAX, s.loc, "variable declared void");
  if (accept(p, ';')) return; /* `enum { R = 2 };` declares its constants only */
  do {
    sj_token name;
    sj_stmt *d;
    psym *x;
    vec ext = {0};
    if (kind(p) == '*' || (kind(p) == '(' && peek(p, 1)->kind == '*')) { /* a swap's temporary */
      pointer_local(p, &s, body);
      continue;
    }
    if (kind(p) != SJ_T_IDENT) found(p, "a variable name");
    name = next(p);
    extents(p, "local array", &name, 1, &ext);
    x = declare(p, SJ_SYM_LOCAL, s.type, &name);
    if (ext.n && kind(p) == '=' && peek(p, 1)->kind == '{') { /* a table: no statement */
      next(p);
      table(p, x, &ext, name.loc);
      continue;
    }
    /* a static local keeps its value from call to call: a constant or a table (never written)
     * is the same in every call */
    if (s.is_static && !s.is_const)
      fail(p, UNSUP, s.loc,
           "static local '%.*s' keeps its value between calls: a static local is supported as a "
           "constant or a table (static const double c = 0.5; static double w[3] = {...})",
           TOKTEXT(&name));
    if (ext.n && !ext.v[0])
      fail(p, UNSUP, name.loc, "local array '%.*s': give every extent", TOKTEXT(&name));
    x->s.is_const = s.is_const;
    x->s.is_bool = s.is_bool;
    if (ext.n) set_extents(p, x, &ext);
    d = stmt(p, SJ_S_DECL, name.loc);
    d->sym = &x->s;
    if (accept(p, '=')) {
      x->use = name.loc;
      if (kind(p) == '{' || ext.n)
        fail(p, UNSUP, peek(p, 0)->loc, "initializer lists are not supported");
      int since = p->hoisted.n;
      d->rhs = conv_to(p, expr(p), s.type, s.is_bool);
      put_hoisted(p, body, body->n, since); /* the calls of its initializer, before it */
    } else if (iter_type(s.type) && !s.is_const && !ext.n) {
      x->role = CANDIDATE;
    }
    push(p, body, d);
  } while (accept(p, ','));
  expect(p, ';');
}

static void statement_to(parser *p, vec *out);
static void statement_kind(parser *p, sj_token *t, sj_loc loc, int loop_body, vec *out);

/* --- arrays swapped between time steps: `double *w = u; u = v; v = w;` ending the body of
 * the outermost loop. The body is kept once per position of the rotation, each copy with the
 * arrays the names hold at that iteration, under an affine if on the iteration's parity: no
 * pointer is left, and the accesses are the model's as ever. --- */

typedef struct move {
  psym *to, *from; /* to = from: a local pointer or an array parameter */
  const vec *body; /* the statements the assignment stands among */
  int after;       /* how many of them precede it */
  sj_loc loc;
} move;

static void add_move(parser *p, psym *to, psym *from, const vec *body, sj_loc loc) {
  if (from->s.kind != SJ_SYM_ARRAY && !from->pointer)
    fail(p, UNSUP, loc, "'%s' is not an array: only arrays may be swapped", from->s.name);
  move *m = alloc(p, sizeof *m);
  *m = (move){to, from, body, body->n, loc};
  push(p, &p->moves, m);
}

/* Whether e reads a variable that may change while a pointer made from it lives: a local
 * that is not const. */
static int reads_variable(const sj_expr *e) {
  if (e->kind == SJ_E_VAR && e->sym->kind == SJ_SYM_LOCAL && !e->sym->is_const) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_variable(e->args[i])) return 1;
  return 0;
}

/* `T *name = A[i]`, `= &A[i][1]`, `= B[i] + 1`, `= x + k` (after the `=`): a name for rows of
 * an array or an address in one, whose p[j] is what a function given that argument reads there
 * (address_element). Its subscripts may read iterators, parameters and const locals, which stay
 * as they are while it lives. */
static void address_local(parser *p, const spec *s, const sj_token *name) {
  int outer = p->call_arg;
  p->call_arg = 1;
  sj_expr *a = conditional(p);
  p->call_arg = outer;
  if (!is_rows(a))
    fail(p, UNSUP, a->loc,
         "a local pointer takes an array, rows of one or an address in one (T *p = A[i], "
         "&A[i][1], A[i] + 1), or is the temporary of a swap");
  for (int i = 0; i < a->nargs; i++)
    if (reads_variable(a->args[i]))
      fail(p, UNSUP, a->args[i]->loc,
           "the address '%.*s' takes may not depend on a variable that can change while it lives "
           "(a const local, an iterator or a parameter may)",
           TOKTEXT(name));
  if (a->sym->type != s->type)
    fail(p, SYNTAX, name->loc, "'%.*s' points to '%s', not to '%s'", TOKTEXT(name),
         sj_type_name(s->type), sj_type_name(a->sym->type));
  psym *x = declare(p, SJ_SYM_LOCAL, s->type, name);
  x->role = PLACEHOLDER; /* no local of the function: its uses become the array's */
  x->alias = a;
  x->s.rank = a->sym->rank - a->nargs + (a->op == '&');
  x->s.extents = a->sym->extents + (a->sym->rank - x->s.rank);
  x->s.is_const = s->is_const || a->sym->is_const;
}

/* `T *w;`, `T *w = a;` or `T (*w)[M] = a;` (after the specifiers): the temporary of a swap. */
static void pointer_local(parser *p, const spec *s, vec *body) {
  int paren = accept(p, '(');
  sj_loc star = next(p).loc;
  while (kind(p) == SJ_K_RESTRICT || kind(p) == SJ_K_CONST) next(p);
  if (kind(p) != SJ_T_IDENT)
    fail(p, UNSUP, star,
         "local pointers are supported only as the temporary of a swap of two arrays "
         "(T *w = u; u = v; v = w; at the end of the time loop's body)");
  sj_token name = next(p);
  if (paren) {
    vec rows = {0}; /* what the arrays it holds have: same_shape() checks those */
    expect(p, ')');
    sj_vm_type *vm = alloc(p, sizeof *vm);
    vm->from = peek(p, 0)->loc;
    extents(p, "pointer", &name, 0, &rows);
    vm->to = peek(p, 0)->loc;
    vm->n = rows.n;
    vm->extents = (sj_expr **)exprs(p, &rows);
    push(p, &p->vm, vm);
  }
  int init = kind(p) == '=';
  int cast = init && paren && peek(p, 1)->kind == '(';
  if (init && !cast && !paren &&
      (peek(p, 1)->kind != SJ_T_IDENT || (peek(p, 2)->kind != ';' && peek(p, 2)->kind != ','))) {
    next(p);
    address_local(p, s, &name);
    return;
  }
  psym *x = declare(p, SJ_SYM_LOCAL, s->type, &name);
  x->pointer = 1;
  x->role = PLACEHOLDER; /* no local of the function: its uses become the array's */
  if (!init) return;
  next(p);
  if (cast) /* `(T (*)[M]) p`: the same type as the declaration's */
    pointer_cast(p, s, &name, (sj_vm_type *)p->vm.v[p->vm.n - 1]);
  sj_token src = next(p);
  if (src.kind != SJ_T_IDENT) fail(p, UNSUP, src.loc, "a pointer to rows takes an array");
  psym *from = lookup(p, src.text, src.len);
  if (!from) fail(p, SYNTAX, src.loc, "undeclared identifier '%.*s'", TOKTEXT(&src));
  if (p->loops) { /* in a loop: part of a swap */
    add_move(p, x, from, body, name.loc);
    return;
  }
  /* before the loops: it stands for the array (`double *cur = u;`) until a swap moves it */
  x->start = from->pointer ? from->start : from;
  if (!x->start) fail(p, UNSUP, src.loc, "'%.*s' holds no array here", TOKTEXT(&src));
  if (x->start->s.type != s->type)
    fail(p, SYNTAX, name.loc, "'%.*s' points to '%s', not to '%s'", TOKTEXT(&name),
         sj_type_name(s->type), sj_type_name(x->start->s.type));
  x->s.rank = x->start->s.rank;
  x->s.extents = x->start->s.extents;
  x->s.is_const = x->start->s.is_const;
  const sj_vm_type *rows = paren ? p->vm.v[p->vm.n - 1 - cast] : NULL;
  if (rows && x->start->s.rank == 1 && !from->reshape) { /* rows over a flat array */
    x->reshape = 1;
    x->s.rank = 1 + rows->n;
    x->s.extents = alloc(p, (size_t)x->s.rank * sizeof *x->s.extents);
    for (int d = 0; d < rows->n; d++) x->s.extents[1 + d] = rows->extents[d];
  } else if (from->reshape) {
    x->reshape = 1;
  }
}

/* `(T (*)[M]...)` after the `=` of `T (*w)[M]... =`: the brackets' extents must be the
 * declaration's (decl); the reference writes them as constants too. */
static void pointer_cast(parser *p, const spec *s, const sj_token *name, const sj_vm_type *decl) {
  sj_loc at = next(p).loc;
  spec c = specifiers(p);
  expect(p, '(');
  expect(p, '*');
  while (kind(p) == SJ_K_RESTRICT || kind(p) == SJ_K_CONST) next(p);
  expect(p, ')');
  vec rows = {0};
  sj_vm_type *vm = alloc(p, sizeof *vm);
  vm->from = peek(p, 0)->loc;
  extents(p, "cast", name, 0, &rows);
  vm->to = peek(p, 0)->loc;
  vm->n = rows.n;
  vm->extents = (sj_expr **)exprs(p, &rows);
  push(p, &p->vm, vm);
  close_with(p, ')');
  int same = c.type == s->type && rows.n == decl->n;
  for (int d = 0; same && d < rows.n; d++) same = sj_expr_same(vm->extents[d], decl->extents[d]);
  if (!same)
    fail(p, UNSUP, at, "the cast to a pointer to rows must give '%.*s''s own type", TOKTEXT(name));
}

/* `a = b;` between array parameters and local pointers; 0 where the statement is not one. */
static int pointer_assignment(parser *p, vec *out) {
  if (peek(p, 1)->kind != '=' || peek(p, 2)->kind != SJ_T_IDENT || peek(p, 3)->kind != ';')
    return 0;
  const sj_token *t = peek(p, 0);
  psym *to = lookup(p, t->text, t->len);
  if (!to || (to->s.kind != SJ_SYM_ARRAY && !to->pointer)) return 0;
  sj_token name = next(p);
  next(p);
  sj_token src = next(p);
  next(p);
  psym *from = lookup(p, src.text, src.len);
  if (!from) fail(p, SYNTAX, src.loc, "undeclared identifier '%.*s'", TOKTEXT(&src));
  add_move(p, to, from, out, name.loc);
  return 1;
}

/* Whether arrays a and b are interchangeable: the same element type, constness, rank and inner
 * extents (a const array that a swap would let the kernel write is not). */
static int same_shape(const sj_sym *a, const sj_sym *b) {
  if (a->type != b->type || a->is_const != b->is_const || a->rank != b->rank) return 0;
  for (int d = 1; d < a->rank; d++)
    if (!sj_expr_same(a->extents[d], b->extents[d])) return 0;
  return 1;
}

/* The array name n holds where the loop starts: a parameter itself, a local pointer what it
 * was initialized with (NULL: nothing yet). */
static psym *start_of(psym *n) {
  return n->pointer ? n->start : n;
}

static void remap_stmt(sj_stmt *st, const symmap *m) {
  if (!st) return;
  sj_expr *es[] = {st->init, st->cond, st->lhs, st->rhs};
  for (int i = 0; i < 4; i++)
    if (es[i]) remap(es[i], m);
  for (int i = 0; i < st->nbody; i++) remap_stmt(st->body[i], m);
}

/* The arrays a swap's names hold at each step of its loop's period: after the loop, at the
 * step its iteration count gives. */
typedef struct rotation {
  sj_stmt *loop;
  int period;
  symmap versions[4];
  /* a loop under a test of the data: the local counting the steps that ran, and its
   * declaration until it stands before the loop (steps_counter) */
  sj_expr *steps;
  sj_stmt *decl;
  /* the flag a `break` (before the swap) sets: the step it ends does not swap */
  sj_sym *broken;
} rotation;

/* The loop's iteration count as (runs, count): `runs` whether it runs at all, `count` how many
 * times where it does; NULL unless its condition is one comparison of the iterator with a bound
 * free of it, `t < E`, `t <= E` (counting up) or `t > E`, `t >= E` (down), or a do loop's with
 * one (at least once). */
static sj_expr *iterations(parser *p, const sj_stmt *loop, sj_expr **runs) {
  const sj_expr *c = loop->cond;
  if (c->kind == SJ_E_BINARY && c->op == SJ_OP_OR && c->args[1]->kind == SJ_E_BINARY &&
      c->args[1]->op == SJ_OP_EQ && c->args[1]->args[0]->kind == SJ_E_VAR &&
      c->args[1]->args[0]->sym == loop->iter && sj_expr_same(c->args[1]->args[1], loop->init)) {
    /* a do loop's, `cond || t == first`: it runs once, then as cond counts */
    sj_stmt rest = *loop;
    rest.cond = c->args[0];
    sj_expr *more, *count = iterations(p, &rest, &more);
    if (!count) return NULL;
    *runs = int_lit(p, SJ_TY_INT, 1, loop->loc);
    sj_expr *args[3] = {more, count, int_lit(p, SJ_TY_LONG, 1, loop->loc)};
    return node(p, SJ_E_COND, SJ_TY_LONG, loop->loc, 3, args);
  }
  if (c->kind != SJ_E_BINARY || c->op < SJ_OP_LT || c->op > SJ_OP_GE) return NULL;
  const sj_expr *side[2] = {c->args[0], c->args[1]};
  for (int k = 0; k < 2; k++) /* an int iterator compared as a long keeps its order */
    if (side[k]->kind == SJ_E_CAST && side[k]->implicit && side[k]->type == SJ_TY_LONG &&
        side[k]->args[0]->type == SJ_TY_INT)
      side[k] = side[k]->args[0];
  int flip = !(side[0]->kind == SJ_E_VAR && side[0]->sym == loop->iter);
  const sj_expr *bound = c->args[!flip], *it = side[flip];
  if (it->kind != SJ_E_VAR || it->sym != loop->iter || mentions(bound, loop->iter)) return NULL;
  static const sj_binop mirror[] = {
      [SJ_OP_LT] = SJ_OP_GT, [SJ_OP_LE] = SJ_OP_GE, [SJ_OP_GT] = SJ_OP_LT, [SJ_OP_GE] = SJ_OP_LE};
  sj_binop op = flip ? mirror[c->op] : (sj_binop)c->op;
  int up = loop->step > 0;
  if (up != (op == SJ_OP_LT || op == SJ_OP_LE)) return NULL;
  sj_loc loc = loop->loc;
  sj_expr *e = conv(p, copy(p, bound), SJ_TY_LONG),
          *init = conv(p, copy(p, loop->init), SJ_TY_LONG);
  *runs = binop(p, op, copy(p, init), copy(p, e), loc);
  sj_expr *span = up ? binop(p, SJ_OP_SUB, e, init, loc) : binop(p, SJ_OP_SUB, init, e, loc);
  long stride = up ? loop->step : -loop->step;
  if (op == SJ_OP_LE || op == SJ_OP_GE) /* t <= E runs as t < E + 1 */
    span = binop(p, SJ_OP_ADD, span, int_lit(p, SJ_TY_LONG, 1, loc), loc);
  if (stride == 1) return span;
  span = binop(p, SJ_OP_ADD, span, int_lit(p, SJ_TY_LONG, stride - 1, loc), loc);
  return binop(p, SJ_OP_DIV, span, int_lit(p, SJ_TY_LONG, stride, loc), loc);
}

static void swapped_in_test(parser *p, const psym *x, sj_loc loc) {
  fail(p, UNSUP, loc,
       "the loop's test reads '%s', which the loop swaps with another array: test a variable "
       "the loop sets instead",
       x->s.name);
}

/* A use of x, swapped in a loop above: the statement is versioned by the arrays the loop left
 * in its names (finish_after). */
static void used_after(parser *p, psym *x, sj_loc loc) {
  sj_expr *runs;
  if (x->rotated && !x->rotated->loop->cond) /* a do loop's test, read after its body swapped */
    swapped_in_test(p, x, loc);
  if (!x->rotated || (!x->rotated->steps && !iterations(p, x->rotated->loop, &runs)))
    fail(p, UNSUP, loc,
         "'%s' was swapped with another array in the loop at %d:%d; using it after that loop is "
         "supported where the loop's condition compares its iterator with a bound (t < T)",
         x->s.name, x->moved.line, x->moved.col);
  if (p->after && p->after != x->rotated)
    fail(p, UNSUP, loc, "arrays swapped in two different loops in one statement: not supported");
  p->after = x->rotated;
}

/* whole once per position k of a rotation of period steps, each copy with the arrays of
 * versions[k], under `q == k`: an if chain. With runs (after the loop): `runs && q == k`, and
 * position 0 also where the loop never runs. */
static sj_stmt *by_position(parser *p, sj_stmt *whole, symmap *versions, int period, sj_expr *q,
                            sj_expr *runs, sj_loc loc) {
  sj_stmt *chain = NULL, **link = &chain;
  for (int k = 0; k < period; k++) {
    sj_stmt *version = k < period - 1 ? clone_stmt(p, whole, &versions[k]) : whole;
    if (k == period - 1) remap_stmt(whole, &versions[k]);
    sj_expr *here = binop(p, SJ_OP_EQ, copy(p, q), int_lit(p, q->type, k, loc), loc);
    if (runs) here = binop(p, SJ_OP_AND, copy(p, runs), here, loc);
    if (runs && k == 0) /* a loop that never runs leaves every name with its array */
      here =
          binop(p, SJ_OP_OR, binop(p, SJ_OP_EQ, copy(p, runs), int_lit(p, SJ_TY_INT, 0, loc), loc),
                here, loc);
    sj_stmt *when = stmt(p, SJ_S_IF, loc);
    when->cond = here;
    when->nbody = 2;
    when->body = alloc(p, 2 * sizeof *when->body);
    when->body[0] = version;
    *link = when;
    link = &when->body[1];
  }
  return chain;
}

/* The statements from..out->n-1 just parsed, which use names of the rotation p->after: once per
 * step of its period, each under the test that the loop's iteration count leaves the names
 * holding that step's arrays. */
static void finish_after(parser *p, vec *out, int from, sj_loc loc) {
  rotation *r = p->after;
  p->after = NULL;
  sj_stmt *whole = stmt(p, SJ_S_BLOCK, loc);
  whole->nbody = out->n - from;
  whole->body = alloc(p, (size_t)(whole->nbody + 1) * sizeof *whole->body);
  vec decls = {0}; /* `T x = e;` stays `T x;` before the versions, each assigning x = e */
  for (int i = from; i < out->n; i++) {
    sj_stmt *s = out->v[i];
    if (s->kind == SJ_S_DECL) {
      if (s->sym->rank)
        fail(p, UNSUP, s->loc,
             "a local array initialized from arrays swapped in a loop above: not supported");
      push(p, &decls, s);
      sj_stmt *set = stmt(p, SJ_S_ASSIGN, s->loc);
      set->lhs = var_ref(p, s->sym, s->loc);
      set->rhs = s->rhs;
      s->rhs = NULL;
      s = set;
    }
    whole->body[i - from] = s;
  }
  out->n = from;
  for (int i = 0; i < decls.n; i++) push(p, out, decls.v[i]);
  if (r->period == 1) {
    remap_stmt(whole, &r->versions[0]);
    push(p, out, whole);
    return;
  }
  if (r->decl)
    fail(p, UNSUP, loc, "arrays swapped in the loop at %d:%d are used after it: not supported here",
         r->loop->loc.line, r->loop->loc.col);
  sj_expr *runs = NULL, *count = r->steps ? copy(p, r->steps) : iterations(p, r->loop, &runs);
  if (r->broken) { /* the step a break ended did not swap */
    count = binop(p, SJ_OP_SUB, count, conv(p, var_ref(p, r->broken, loc), count->type), loc);
  }
  sj_expr *at = binop(p, SJ_OP_REM, count, int_lit(p, count->type, r->period, loc), loc);
  symmap versions[4];
  memcpy(versions, r->versions, sizeof versions);
  sj_stmt *chain = by_position(p, whole, versions, r->period, at, runs, loc);
  push(p, out, chain);
}

static void guard_rest(parser *p, vec *body, vec *marks, int nested);

static void swap_arrays(parser *p, vec *body, int loop_body) {
  vec mine = {0};
  int kept = 0;
  for (int i = 0; i < p->moves.n; i++) {
    move *m = p->moves.v[i];
    if (m->body == body)
      push(p, &mine, m);
    else
      p->moves.v[kept++] = m;
  }
  p->moves.n = kept;
  if (!mine.n) return;
  const move *first = mine.v[0];
  int skips = p->continues.n; /* continues, which would skip the swap of a step that goes on */
  for (int i = 0; i < p->continues.n; i++)
    for (int k = 0; k < p->breaks.n; k++) skips -= p->continues.v[i] == p->breaks.v[k];
  if (!loop_body || p->loops != 1 || skips)
    fail(p, UNSUP, first->loc,
         "pointer assignments are supported only as a swap of arrays ending the body of the "
         "outermost loop (with no continue in it)");
  for (int i = 0; i < mine.n; i++)
    if (((move *)mine.v[i])->after != body->n)
      fail(p, UNSUP, ((move *)mine.v[i])->loc,
           "a swap of arrays must end the loop's body: a statement follows it");
  guard_rest(p, body, &p->continues, 0); /* a break's guard, before the body is kept per step */
  /* each name's value after the assignments, as the name whose value at the start it is */
  vec names = {0};
  int held[64];
  for (int i = 0; i < mine.n; i++) {
    const move *m = mine.v[i];
    psym *pair[] = {m->from, m->to};
    int at[2];
    for (int j = 0; j < 2; j++) {
      at[j] = 0;
      while (at[j] < names.n && names.v[at[j]] != pair[j]) at[j]++;
      if (at[j] == names.n) {
        if (names.n == 64) fail(p, UNSUP, m->loc, "too many pointer assignments");
        held[names.n] = names.n;
        push(p, &names, pair[j]);
      }
    }
    held[at[1]] = held[at[0]];
  }
  /* the arrays the names hold at each step of the period: step k holds start(end^k(n)) */
  int period = 0, step[64];
  for (int i = 0; i < names.n; i++) step[i] = i;
  symmap versions[4];
  for (;;) {
    symmap map = {0};
    int back = period > 0;
    for (int i = 0; i < names.n; i++) {
      psym *n = names.v[i], *a = start_of(names.v[step[i]]);
      if (!start_of(n)) continue; /* a temporary: its start does not matter */
      if (!a) fail(p, UNSUP, first->loc, "'%s' would hold no array at the next step", n->s.name);
      if (!same_shape(&start_of(n)->s, &a->s))
        fail(p, UNSUP, first->loc,
             "'%s' and '%s' differ in element type, constness or inner extents: they cannot be "
             "swapped",
             start_of(n)->s.name, a->s.name);
      back &= a == start_of(n);
      push(p, &map.from, n);
      push(p, &map.to, a);
    }
    if (back) break;
    if (period == 4)
      fail(p, UNSUP, first->loc, "a rotation of arrays longer than 4 is not supported");
    versions[period++] = map;
    for (int i = 0; i < names.n; i++) step[i] = held[step[i]];
  }
  rotation *rot = alloc(p, sizeof *rot);
  *rot = (rotation){p->loop, period, {versions[0], versions[1], versions[2], versions[3]},
                    NULL,    NULL,   NULL};
  push(p, &p->rotations, rot);
  for (int i = 0; i < names.n; i++) {
    psym *n = names.v[i];
    if (n->moved.line)
      fail(p, UNSUP, first->loc, "'%s' is swapped in a second loop: not supported", n->s.name);
    if (n->pointer || start_of(names.v[held[i]]) != n) n->moved = first->loc;
    n->rotated = start_of(n) ? rot : NULL;
  }
  if (period == 1) { /* nothing rotates: the names stand for their arrays */
    for (int i = 0; i < body->n; i++) remap_stmt(body->v[i], &versions[0]);
    return;
  }
  const sj_stmt *loop = p->loop;
  sj_stmt *whole = stmt(p, SJ_S_BLOCK, loop->loc);
  whole->nbody = body->n;
  whole->body = alloc(p, (size_t)body->n * sizeof *whole->body);
  for (int i = 0; i < body->n; i++) whole->body[i] = body->v[i];
  /* the step's place in the period: ((t - init) / step) % period */
  sj_loc loc = loop->loc;
  sj_expr *t = var_ref(p, loop->iter, loc);
  /* (init - t) / -step counting down: never negative, so unsigned iterators need no wrap */
  long stride = loop->step > 0 ? loop->step : -loop->step;
  sj_expr *q = loop->step > 0 ? binop(p, SJ_OP_SUB, t, copy(p, loop->init), loc)
                              : binop(p, SJ_OP_SUB, copy(p, loop->init), t, loc);
  if (stride != 1) q = binop(p, SJ_OP_DIV, q, int_lit(p, q->type, stride, loc), loc);
  q = binop(p, SJ_OP_REM, q, int_lit(p, q->type, period, loc), loc);
  body->n = 0;
  push(p, body, by_position(p, whole, versions, period, q, NULL, loc));
}

static void resolve_in(sj_expr *e) {
  psym *x = (psym *)e->sym;
  if (x && x->pointer && x->start) e->sym = &x->start->s;
  for (int i = 0; i < e->nargs; i++) resolve_in(e->args[i]);
}

/* Uses through a local pointer that never moved: of the array it holds. */
static void resolve_pointers(sj_stmt *st) {
  if (!st) return;
  sj_expr *es[] = {st->init, st->cond, st->lhs, st->rhs};
  for (int i = 0; i < 4; i++)
    if (es[i]) resolve_in(es[i]);
  for (int i = 0; i < st->nbody; i++) resolve_pointers(st->body[i]);
}

/* A pointer assignment swap_arrays() did not take (in a statement that is no block, or in a
 * block that is no outermost loop's body). */
static void stray_moves(parser *p, const vec *body) {
  for (int i = 0; i < p->moves.n; i++)
    if (!body || ((move *)p->moves.v[i])->body == body)
      fail(p, UNSUP, ((move *)p->moves.v[i])->loc,
           "pointer assignments are supported only as a swap of arrays ending the body of the "
           "outermost loop");
}

static void unguarded_continue(parser *p) {
  fail(p, UNSUP, ((sj_stmt *)p->continues.v[p->continues.n - 1])->loc,
       "'continue', 'break' and 'return' are supported in a loop only at the end of one branch "
       "of an 'if' (in its body or a block in it)");
}

static void unguarded_return(parser *p, sj_loc loc) {
  fail(p, UNSUP, loc,
       "'return;' is supported only as the last statement of the function, or at the end of one "
       "branch of an 'if' (in its body, a block in it or a loop's)");
}

/* Whether s is a placeholder (of `continue;` or `return;`, in marks) waiting for its guard;
 * taken off the list if so. */
static int takes_mark(vec *marks, const sj_stmt *s) {
  for (int i = 0; i < marks->n; i++)
    if (marks->v[i] == s) {
      marks->v[i] = marks->v[--marks->n];
      return 1;
    }
  return 0;
}

/* For the placeholder mark of a `continue;` or `break;` in a block nested in a loop's body:
 * the loop's skip flag set, which the statements after the one holding the block then test. */
static sj_stmt *skip_set(parser *p, const sj_stmt *mark) {
  sj_loc loc = mark->loc;
  psym **flag = p->loop ? &p->skip : &p->return_skip;
  if (!*flag) {
    char name[48];
    sj_loc at = p->loop ? p->loop->loc : loc;
    snprintf(name, sizeof name, "sj_skip_%d_%d", at.line, at.col);
    sj_token tok = {.kind = SJ_T_IDENT, .text = name, .len = strlen(name), .loc = loc};
    *flag = declare(p, SJ_SYM_LOCAL, SJ_TY_INT, &tok);
    (*flag)->role = PLAIN;
  }
  int is_break = 0;
  for (int i = 0; i < p->breaks.n; i++) is_break |= p->breaks.v[i] == mark;
  if (!p->loop)
    p->return_pending = 1;
  else
    p->skip_pending = (!p->skip_pending || p->skip_pending == 2) && is_break ? 2 : 1;
  sj_stmt *set = stmt(p, SJ_S_ASSIGN, loc);
  set->lhs = var_ref(p, &(*flag)->s, loc);
  set->rhs = int_lit(p, SJ_TY_INT, 1, loc);
  return set;
}

/* After a statement holding a block that set the loop's skip flag (skip_set()): `if (skip)`
 * around a placeholder, which the block around makes guard what follows (guard_rest()). */
static void skip_after(parser *p, vec *body) {
  sj_loc loc = ((sj_stmt *)body->v[body->n - 1])->loc;
  psym *flag = p->loop ? p->skip : p->return_skip;
  sj_stmt *g = stmt(p, SJ_S_IF, loc);
  g->cond = binop(p, SJ_OP_NE, var_ref(p, &flag->s, loc), int_lit(p, SJ_TY_INT, 0, loc), loc);
  g->nbody = 2;
  g->body = alloc(p, 2 * sizeof *g->body);
  g->body[0] = stmt(p, SJ_S_BLOCK, loc);
  push(p, p->loop ? &p->continues : &p->returns, g->body[0]);
  if (p->skip_pending == 2) push(p, &p->breaks, g->body[0]);
  p->skip_pending = p->return_pending = 0;
  push(p, body, g);
}

/* The placeholder of marks that branch b of an if is, or ends its block with (NULL: none). */
static sj_stmt *exit_of(const vec *marks, sj_stmt *b) {
  sj_stmt *last = b && b->kind == SJ_S_BLOCK && b->nbody ? b->body[b->nbody - 1] : b;
  for (int i = 0; last && i < marks->n; i++)
    if (marks->v[i] == last) return last;
  return NULL;
}

/* Branch *b without its exit mark (exit_of()); in a block nested in the loop's body, the loop's
 * skip flag set in its place. */
static void take_exit(parser *p, vec *marks, sj_stmt **b, sj_stmt *mark, int nested) {
  takes_mark(marks, mark);
  sj_stmt *instead = nested ? skip_set(p, mark) : NULL;
  if (*b == mark)
    *b = instead ? instead : stmt(p, SJ_S_BLOCK, mark->loc);
  else if (instead)
    (*b)->body[(*b)->nbody - 1] = instead;
  else
    (*b)->nbody--;
}

/* In a loop's body, `if (c) { S; continue; }` (S may be empty, the braces absent) followed by
 * statements R becomes `if (c) { S } else { R }`, and `if (c) T else { S; continue; }` R
 * becomes `if (c) { T R } else { S }`; so do those that end with `return;` in the function's
 * body. marks: the placeholders of the one or the other. nested: body is a block nested in the
 * loop's (or function's) body, and the exit also sets a skip flag (skip_set()). */
static void guard_rest(parser *p, vec *body, vec *marks, int nested) {
  for (int k = body->n - 1; k >= 0; k--) {
    sj_stmt *g = body->v[k];
    if (g->kind != SJ_S_IF) continue;
    sj_stmt *then = exit_of(marks, g->body[0]), *other = exit_of(marks, g->body[1]);
    if (!then == !other) continue; /* both branches exit: the error names it */
    take_exit(p, marks, &g->body[then ? 0 : 1], then ? then : other, nested);
    sj_stmt *rest = stmt(p, SJ_S_BLOCK, g->loc);
    int to = then ? 1 : 0, keep = g->body[to] != NULL;
    rest->nbody = body->n - k - 1 + keep;
    rest->body = rest->nbody ? alloc(p, (size_t)rest->nbody * sizeof *rest->body) : NULL;
    if (keep) rest->body[0] = g->body[to];
    for (int i = keep; i < rest->nbody; i++) rest->body[i] = body->v[k + 1 + i - keep];
    g->body[to] = rest;
    body->n = k + 1;
  }
}

/* The swap in body (a block's statements, spliced into into after them) as into's. */
static void splice_moves(parser *p, const vec *body, vec *into) {
  p->spliced = 0;
  for (int i = 0; i < p->moves.n; i++) {
    move *m = p->moves.v[i];
    if (m->body != body) continue;
    int kept = 0; /* the statements before it that the block keeps (placeholders are none) */
    for (int k = 0; k < m->after; k++) {
      const sj_stmt *b = body->v[k];
      kept += b->kind != SJ_S_DECL || ((psym *)b->sym)->role != PLACEHOLDER;
    }
    m->body = into;
    m->after = into->n + kept;
    p->spliced = 1;
  }
}

static sj_stmt *block(parser *p, int scoped) {
  int loop_body = p->loop_body;
  vec *into = p->splice_into;
  p->loop_body = 0;
  p->splice_into = NULL;
  sj_token lb = expect(p, '{');
  sj_stmt *s = stmt(p, SJ_S_BLOCK, lb.loc);
  vec body = {0};
  int i;
  if (scoped) open_scope(p);
  while (!accept(p, '}')) {
    if (kind(p) == SJ_T_EOF) found(p, "'}'");
    /* the function's body (the one block that shares the parameters' scope) may end with
     * `return;`: it returns where the body ends anyway */
    if (!scoped && kind(p) == SJ_K_RETURN && peek(p, 1)->kind == ';' && peek(p, 2)->kind == '}') {
      next(p), next(p);
      continue;
    }
    /* what an if's branch parsed before this block left pending is the if's (an else) */
    int skip = p->skip_pending, return_skip = p->return_pending;
    p->skip_pending = p->return_pending = 0;
    if (starts_type(p, 0)) {
      rotation *outer = p->after;
      int from = body.n, since = p->hoisted.n;
      const char *no_hoist = hoisting(p, NULL);
      p->after = NULL;
      declaration(p, &body);
      if (p->after) finish_after(p, &body, from, peek(p, 0)->loc);
      p->after = outer;
      put_hoisted(p, &body, from, since);
      p->no_hoist = no_hoist;
    } else {
      statement_to(p, &body);
    }
    if (p->skip_pending || p->return_pending) skip_after(p, &body);
    p->skip_pending = skip;
    p->return_pending = return_skip;
  }
  if (scoped) close_scope(p);
  /* the function's body ends with a return (its value set before it): it returns there */
  p->tail_return = !scoped && body.n && takes_mark(&p->returns, body.v[body.n - 1]);
  body.n -= p->tail_return;
  if (into) splice_moves(p, &body, into);
  swap_arrays(p, &body, loop_body);
  if (loop_body || p->loop) guard_rest(p, &body, &p->continues, !loop_body);
  if (!scoped || !p->loop) guard_rest(p, &body, &p->returns, scoped);
  s->body = body.n ? alloc(p, (size_t)body.n * sizeof *s->body) : NULL;
  for (i = 0; i < body.n; i++) {
    sj_stmt *b = body.v[i];
    /* A placeholder's declaration is no statement: its loops have their own iterators. */
    if (b->kind != SJ_S_DECL || ((psym *)b->sym)->role != PLACEHOLDER) s->body[s->nbody++] = b;
  }
  return s;
}

static void check_iter_type(parser *p, sj_loc loc, const sj_token *name, sj_type t) {
  if (!iter_type(t))
    fail(p, UNSUP, loc, "loop iterator '%.*s' must be int, long or unsigned, not '%s'",
         TOKTEXT(name), sj_type_name(t));
}

/* A variable declared beside a for loop's iterator (`for (int i = 0, j = n - 1; ...; i++, j--)`):
 * its value at each iteration is first + step * (i - i's first) / i's step. */
typedef struct companion {
  psym *x;
  sj_expr *first;
  long step;
} companion;

/* The iterator of a for loop: `int i = e` (or long, unsigned, ...), or `i = e` on such a
 * variable declared before (*outer); its companions, if declared. */
static psym *for_init(parser *p, sj_stmt *s, psym **outer, vec *companions) {
  sj_token *t = peek(p, 0), name;
  psym *x, *it;
  if (starts_type(p, 0)) {
    spec sp = specifiers(p);
    if (sp.is_static || sp.is_inline || sp.is_typedef)
      fail(p, UNSUP, sp.loc, "storage classes on loop iterators are not supported");
    no_pointer(p);
    if (kind(p) != SJ_T_IDENT) found(p, "an iterator name");
    name = next(p);
    check_iter_type(p, sp.loc, &name, sp.type);
    if (sp.is_const)
      fail(p, SYNTAX, sp.loc, "loop iterator '%.*s' is const and cannot be stepped",
           TOKTEXT(&name));
    it = declare(p, SJ_SYM_ITER, sp.type, &name);
    if (kind(p) != '=')
      fail(p, UNSUP, name.loc, "loop iterator '%s' needs an initial value", it->s.name);
    next(p);
    s->init = conv(p, expr(p), sp.type);
    if (mentions(s->init, &it->s))
      fail(p, UNSUP, s->init->loc, "the initial value of iterator '%s' uses the iterator",
           it->s.name);
    while (accept(p, ',')) {
      no_pointer(p);
      if (kind(p) != SJ_T_IDENT) found(p, "a variable's name");
      name = next(p);
      check_iter_type(p, sp.loc, &name, sp.type);
      if (kind(p) != '=')
        fail(p, UNSUP, name.loc, "'%.*s' declared in a for loop's header needs an initial value",
             TOKTEXT(&name));
      next(p);
      companion *c = alloc(p, sizeof *c);
      c->first = conv(p, expr(p), sp.type);
      c->x = declare(p, SJ_SYM_LOCAL, sp.type, &name);
      c->x->role = PLAIN;
      push(p, companions, c);
    }
    return it;
  }
  if (t->kind == SJ_T_IDENT && peek(p, 1)->kind == '=') {
    name = next(p);
    x = lookup(p, name.text, name.len);
    if (!x) fail(p, SYNTAX, name.loc, "undeclared identifier '%.*s'", TOKTEXT(&name));
    switch (x->s.kind) {
    case SJ_SYM_LOCAL:
      check_iter_type(p, name.loc, &name, x->s.type);
      if (x->s.is_const) fail(p, SYNTAX, name.loc, "assignment to const variable '%s'", x->s.name);
      if (x->s.rank)
        fail(p, UNSUP, name.loc, "local array '%s' cannot be a loop iterator", x->s.name);
      if (x->role != PLAIN) x->role = PLACEHOLDER; /* a local already stays one (for_loop) */
      *outer = x;
      break;
    case SJ_SYM_ITER:
      fail(p, UNSUP, name.loc, "assignment to loop iterator '%s' is not supported", x->s.name);
    default:
      fail(p, UNSUP, name.loc, "'%s' cannot be a loop iterator: declare an int in the loop",
           x->s.name);
    }
    next(p);
    /* Parsed before the iterator exists: the placeholder refuses `for (i = i; ...)`. */
    s->init = conv(p, expr(p), x->s.type);
    return declare(p, SJ_SYM_ITER, x->s.type, &name);
  }
  fail(p, UNSUP, t->loc, "a for loop must begin by declaring or assigning its integer iterator");
}

static const sj_expr *strip(const sj_expr *e) {
  while (e->kind == SJ_E_CAST && e->implicit && iter_type(e->type)) e = e->args[0];
  return e;
}

static long increment(parser *p, const psym *it) {
  sj_token t = *peek(p, 0), op, name;
  const sj_expr *e, *a, *b;
  long step = 0;
  int constant = 0; /* the step is a constant, maybe 0 */
  if (t.kind == SJ_T_INC || t.kind == SJ_T_DEC) {
    next(p);
    name = next(p);
    if (name.kind == SJ_T_IDENT && lookup(p, name.text, name.len) == it)
      step = t.kind == SJ_T_INC ? 1 : -1, constant = 1;
  } else if (t.kind == SJ_T_IDENT && lookup(p, t.text, t.len) == it) {
    next(p);
    op = next(p);
    if (op.kind == SJ_T_INC || op.kind == SJ_T_DEC) {
      step = op.kind == SJ_T_INC ? 1 : -1, constant = 1;
    } else if (op.kind == SJ_T_ADDEQ || op.kind == SJ_T_SUBEQ) {
      e = expr(p);
      if (e->kind == SJ_E_INT) step = op.kind == SJ_T_ADDEQ ? e->ival : -e->ival, constant = 1;
    } else if (op.kind == '=') {
      e = expr(p);
      if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB)) {
        a = strip(e->args[0]);
        b = strip(e->args[1]);
        if (a->kind == SJ_E_VAR && a->sym == &it->s && b->kind == SJ_E_INT)
          step = e->op == SJ_OP_ADD ? b->ival : -b->ival, constant = 1;
        else if (e->op == SJ_OP_ADD && b->kind == SJ_E_VAR && b->sym == &it->s &&
                 a->kind == SJ_E_INT)
          step = a->ival, constant = 1;
      }
    }
  }
  if (!constant)
    fail(p, UNSUP, t.loc, "loop increment must be a constant step of '%s' (%s++, %s += 2, ...)",
         it->s.name, it->s.name, it->s.name);
  if (!step) fail(p, UNSUP, t.loc, "the loop step is zero");
  if (step < INT_MIN || step > INT_MAX)
    fail(p, UNSUP, t.loc, "the loop step %ld does not fit in an int", step);
  return step;
}

/* The body of a loop (or function) with a skip flag (skip_set()): the flag declared 0 first,
 * in each iteration. */
static sj_stmt *skip_cleared(parser *p, sj_stmt *body, psym *flag) {
  sj_stmt *decl = stmt(p, SJ_S_DECL, body->loc), *b = body;
  decl->sym = &flag->s;
  decl->rhs = int_lit(p, SJ_TY_INT, 0, body->loc);
  if (b->kind != SJ_S_BLOCK) {
    b = stmt(p, SJ_S_BLOCK, body->loc);
    b->nbody = 1;
    b->body = alloc(p, sizeof *b->body);
    b->body[0] = body;
  }
  sj_stmt **all = alloc(p, (size_t)(b->nbody + 1) * sizeof *all);
  all[0] = decl;
  for (int i = 0; i < b->nbody; i++) all[i + 1] = b->body[i];
  b->body = all;
  b->nbody++;
  return b;
}

/* The body of the loop s, one statement; the flag a `break` in it sets (NULL: none). */
static psym *loop_statement(parser *p, sj_stmt *s, int *returns) {
  s->nbody = 1;
  s->body = alloc(p, sizeof *s->body);
  int waiting = p->continues.n; /* those of the loops around this one */
  sj_stmt *outer = p->loop;
  psym *outer_flag = p->broken, *flag, *outer_skip = p->skip;
  int outer_returning = p->returning, outer_switch = p->in_switch;
  p->in_switch = 0;
  p->loop_body = 1;
  p->loop = s;
  p->broken = NULL;
  p->skip = NULL;
  p->returning = 0;
  p->loops++;
  s->body[0] = statement(p);
  p->loops--;
  p->skip_pending = 0; /* nothing follows in the body */
  if (p->skip) s->body[0] = skip_cleared(p, s->body[0], p->skip);
  p->skip = outer_skip;
  p->loop = outer;
  flag = p->broken;
  *returns = p->returning;
  p->broken = outer_flag;
  p->returning = outer_returning;
  p->in_switch = outer_switch;
  if (p->continues.n > waiting) { /* a body of one `if (c) continue;` (or break): nothing follows;
                                     or statements without a block, as a loop's return adds */
    sj_stmt *b = s->body[0];
    vec v = {(void **)&s->body[0], 1, 1};
    if (b->kind == SJ_S_BLOCK && b->nbody) v = (vec){(void **)b->body, b->nbody, b->nbody};
    guard_rest(p, &v, &p->continues, 0);
    if (v.v == (void **)b->body) b->nbody = v.n;
  }
  if (p->continues.n > waiting) unguarded_continue(p);
  return flag;
}

/* `break;` in the loop being parsed: a flag set, then what `continue;` is (the rest of the
 * body guarded); the flag, declared 0 before the loop, joins its condition (not_broken()), a
 * test of the data that guards the body from then on. */
static void break_statement(parser *p, sj_loc loc, vec *out) {
  if (p->in_switch)
    fail(p, UNSUP, loc, "'break' is supported in a switch only as the last statement of a case");
  if (!p->loop) fail(p, SYNTAX, loc, "'break' outside a loop");
  if (!p->broken) {
    char name[48];
    snprintf(name, sizeof name, "sj_break_%d_%d", p->loop->loc.line, p->loop->loc.col);
    sj_token tok = {.kind = SJ_T_IDENT, .text = name, .len = strlen(name), .loc = loc};
    p->broken = declare(p, SJ_SYM_LOCAL, SJ_TY_INT, &tok);
    p->broken->role = PLAIN;
  }
  sj_stmt *set = stmt(p, SJ_S_ASSIGN, loc);
  set->lhs = var_ref(p, &p->broken->s, loc);
  set->rhs = int_lit(p, SJ_TY_INT, 1, loc);
  push(p, out, set);
  push(p, &p->continues, stmt(p, SJ_S_BLOCK, loc));
  push(p, &p->breaks, p->continues.v[p->continues.n - 1]);
  push(p, out, p->continues.v[p->continues.n - 1]);
}

/* The loop s's condition bound, and that its flag (broken, if any) is not set; the flag's
 * declaration pushed onto out, before the loop. */
static sj_expr *not_broken(parser *p, vec *out, const sj_stmt *s, psym *broken, sj_expr *bound) {
  if (!broken) return bound;
  for (int i = 0; i < p->rotations.n; i++) {
    rotation *r = p->rotations.v[i];
    if (r->loop == s) r->broken = &broken->s;
  }
  sj_loc loc = bound->loc;
  sj_stmt *decl = stmt(p, SJ_S_DECL, loc);
  decl->sym = &broken->s;
  decl->rhs = int_lit(p, SJ_TY_INT, 0, loc);
  push(p, out, decl);
  sj_expr *clear =
      binop(p, SJ_OP_EQ, var_ref(p, &broken->s, loc), int_lit(p, SJ_TY_INT, 0, loc), loc);
  return binop(p, SJ_OP_AND, bound, clear, loc);
}

/* `return;`: in a loop, a `break;` whose flag also ends the loops around (return_after());
 * in the function's body, a placeholder until block() makes its `if` guard what follows. */
static void return_statement(parser *p, sj_loc loc, vec *out) {
  if (p->loop) {
    break_statement(p, loc, out);
    p->returning = 1;
    return;
  }
  push(p, &p->returns, stmt(p, SJ_S_BLOCK, loc));
  push(p, out, p->returns.v[p->returns.n - 1]);
}

/* After a loop that a `return;` in its body ended: `if (flag) return;`, the return going on
 * from the loop around it or the function. */
static void return_after(parser *p, psym *flag, sj_loc loc, vec *out) {
  sj_stmt *g = stmt(p, SJ_S_IF, loc);
  g->cond = binop(p, SJ_OP_NE, var_ref(p, &flag->s, loc), int_lit(p, SJ_TY_INT, 0, loc), loc);
  g->nbody = 2;
  g->body = alloc(p, 2 * sizeof *g->body);
  vec then = {0};
  return_statement(p, loc, &then);
  g->body[0] = stmt(p, SJ_S_BLOCK, loc);
  g->body[0]->nbody = then.n;
  g->body[0]->body = (sj_stmt **)then.v;
  push(p, out, g);
}

/* x[0], x an array of one element: where a function returning a value with loops sets it
 * (its result parameter), and where its caller reads it. */
static sj_expr *first_element(parser *p, psym *x, sj_loc loc) {
  sj_expr *zero = int_lit(p, SJ_TY_INT, 0, loc);
  sj_expr *e = node(p, SJ_E_INDEX, x->s.type, loc, 1, &zero);
  e->sym = &x->s;
  return e;
}

static void one_element(parser *p, psym *x, sj_loc loc) {
  vec one = {0};
  push(p, &one, int_lit(p, SJ_TY_INT, 1, loc));
  set_extents(p, x, &one);
}

/* `return e;` in a function that computes its value with statements: the value set, then
 * what `return;` is. */
static void result_return(parser *p, sj_loc loc, vec *out) {
  if (kind(p) == ';')
    fail(p, SYNTAX, loc, "'return' without a value in a function returning '%s'",
         sj_type_name(p->result->s.type));
  sj_expr *e = expr(p);
  close_with(p, ';');
  sj_stmt *set = stmt(p, SJ_S_ASSIGN, loc);
  set->lhs = first_element(p, p->result, loc);
  set->rhs = conv_to(p, e, p->result->s.type, p->result->s.is_bool);
  push(p, out, set);
  return_statement(p, loc, out);
}

/* Whether e reads data: an array element, a floating-point value, a call. */
static int reads_data(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL || sj_type_is_float(e->type)) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_data(e->args[i])) return 1;
  return 0;
}

/* Splits the conjuncts of e between *bound (those that do not read data) and *data. */
static void split_conjuncts(parser *p, sj_expr *e, sj_expr **bound, sj_expr **data) {
  if (e->kind == SJ_E_BINARY && e->op == SJ_OP_AND) {
    split_conjuncts(p, e->args[0], bound, data);
    split_conjuncts(p, e->args[1], bound, data);
    return;
  }
  sj_expr **to = reads_data(e) ? data : bound;
  *to = *to ? binop(p, SJ_OP_AND, *to, e, e->loc) : e;
}

/* The condition of the loop s over its iterator s->iter (a for loop's, a while loop's
 * counter): the conjuncts that bound the iterator, and those that read data (*data, NULL if
 * none): a test of convergence, `iter < maxit && err > tol`. Once such a test fails, the body
 * no longer changes what it reads, so later iterations would fail it too: the loop may run to
 * its bound with the body under the test (guard_body()), provided the test does not read the
 * iterator. what names the loop in messages. */
static sj_expr *loop_cond(parser *p, const sj_stmt *s, sj_expr *cond, sj_loc at, sj_expr **data,
                          const char *what) {
  sj_expr *bound = NULL;
  *data = NULL;
  split_conjuncts(p, truth(p, cond), &bound, data);
  if (*data && mentions(*data, s->iter))
    fail(p, UNSUP, (*data)->loc,
         "a test of the loop's condition reads data and its iterator '%s': a loop may end "
         "early only on a test that does not read its iterator",
         s->iter->name);
  if (!bound || !mentions(bound, s->iter))
    fail(p, UNSUP, at, "the condition of the %s does not test its iterator '%s'", what,
         s->iter->name);
  return bound;
}

/* Whether st assigns the local x. */
static int assigns(const sj_stmt *st, const sj_sym *x) {
  if (st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR && st->lhs->sym == x) return 1;
  for (int i = 0; i < st->nbody; i++)
    if (st->body[i] && assigns(st->body[i], x)) return 1;
  return 0;
}

/* Whether e reads a local that the statement st assigns. */
static int reads_set_local(const sj_expr *e, const sj_stmt *st) {
  if (e->kind == SJ_E_VAR && e->sym->kind == SJ_SYM_LOCAL && assigns(st, e->sym)) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_set_local(e->args[i], st)) return 1;
  return 0;
}

/* The conjuncts of e, the bound of the loop s whose body is parsed now, that read a local the
 * body assigns and not the iterator (a flag: `while (t < T && changed)`): a test of the data
 * like one that reads an array, known as such only once the body is (loop_cond()). Moved from
 * e to *data; returns what is left of e. */
static sj_expr *flags_to_data(parser *p, const sj_stmt *s, sj_expr *e, sj_expr **data) {
  if (e->kind == SJ_E_BINARY && e->op == SJ_OP_AND) {
    sj_expr *l = flags_to_data(p, s, e->args[0], data), *r = flags_to_data(p, s, e->args[1], data);
    return !l ? r : !r ? l : binop(p, SJ_OP_AND, l, r, e->loc);
  }
  if (mentions(e, s->iter) || !reads_set_local(e, s->body[0])) return e;
  *data = *data ? binop(p, SJ_OP_AND, *data, e, e->loc) : e;
  return NULL;
}

/* A name of e that the loop just parsed swapped with another array, or NULL. */
static const psym *moved_in(const sj_expr *e) {
  const psym *x = (const psym *)e->sym;
  if (x && (x->moved.line || x->pointer)) return x;
  for (int i = 0; i < e->nargs; i++) {
    const psym *y = moved_in(e->args[i]);
    if (y) return y;
  }
  return NULL;
}

/* For the rotation r of the loop s, whose body runs under a test of the data (which may end
 * it early): a local counting the steps that ran, (t - first) / step + 1 at each step under
 * the test, and 0 before the loop, so that the names' arrays after the loop follow
 * the steps that ran (finish_after); statement_to puts its declaration before the loop. */
static void steps_counter(parser *p, rotation *r, sj_stmt *s) {
  if (r->loop != s || r->period < 2 || r->steps) return;
  sj_loc loc = s->loc;
  char name[48];
  snprintf(name, sizeof name, "sj_steps_%d_%d", loc.line, loc.col);
  sj_token tok = {.kind = SJ_T_IDENT, .text = name, .len = strlen(name), .loc = loc};
  psym *n = declare(p, SJ_SYM_LOCAL, SJ_TY_LONG, &tok);
  n->role = PLAIN;
  r->steps = var_ref(p, &n->s, loc);
  r->decl = stmt(p, SJ_S_DECL, loc);
  r->decl->sym = &n->s;
  r->decl->rhs = int_lit(p, SJ_TY_LONG, 0, loc);
  sj_expr *t = var_ref(p, s->iter, loc);
  sj_expr *ran =
      binop(p, SJ_OP_SUB, conv(p, t, SJ_TY_LONG), conv(p, copy(p, s->init), SJ_TY_LONG), loc);
  ran = binop(p, SJ_OP_DIV, ran, int_lit(p, SJ_TY_LONG, s->step, loc), loc);
  sj_stmt *step = stmt(p, SJ_S_ASSIGN, loc);
  step->lhs = copy(p, r->steps);
  step->rhs = binop(p, SJ_OP_ADD, ran, int_lit(p, SJ_TY_LONG, 1, loc), loc);
  /* first in the block under the test: beside the test, in its kernel */
  sj_stmt *body = s->body[0]->body[0];
  sj_stmt **all = alloc(p, (size_t)(body->nbody + 1) * sizeof *all);
  all[0] = step;
  for (int i = 0; i < body->nbody; i++) all[i + 1] = body->body[i];
  body->nbody++;
  body->body = all;
}

/* The body of the loop s under the test data of its condition (none if NULL). The test was
 * read before the body, so it names the arrays as they are before the loop: one that the
 * loop swaps would be the wrong one at every other step. */
static void guard_body(parser *p, sj_stmt *s, sj_expr *data) {
  if (!data) return;
  const psym *x = moved_in(data);
  if (x) swapped_in_test(p, x, data->loc);
  sj_stmt *test = stmt(p, SJ_S_IF, data->loc);
  test->cond = data;
  test->nbody = 2;
  test->body = alloc(p, 2 * sizeof *test->body);
  test->body[0] = s->body[0];
  s->body[0] = test;
  for (int i = 0; i < p->rotations.n; i++) steps_counter(p, p->rotations.v[i], s);
}

/* The increments of a for loop, comma-separated: the iterator's step (returned) and those of
 * its companions, each at most once. */
static long for_steps(parser *p, psym *it, vec *companions) {
  long step = 0;
  do {
    sj_token *t = peek(p, 0), *name = t->kind == SJ_T_INC || t->kind == SJ_T_DEC ? peek(p, 1) : t;
    psym *x = name->kind == SJ_T_IDENT ? lookup(p, name->text, name->len) : NULL;
    companion *c = NULL;
    for (int i = 0; i < companions->n; i++)
      if (((companion *)companions->v[i])->x == x) c = companions->v[i];
    if (c ? c->step : step && x == it)
      fail(p, UNSUP, t->loc, "'%s' is stepped twice in the loop's increment", x->s.name);
    if (c)
      c->step = increment(p, x);
    else
      step = increment(p, it);
  } while (accept(p, ','));
  if (!step)
    fail(p, UNSUP, peek(p, 0)->loc, "the for loop's increment does not step its iterator '%s'",
         it->s.name);
  return step;
}

/* Replaces the uses of x in e by value (a copy each); e's root too. */
static sj_expr *substitute(parser *p, sj_expr *e, const sj_sym *x, const sj_expr *value) {
  if (e->kind == SJ_E_VAR && e->sym == x) return copy(p, value);
  for (int i = 0; i < e->nargs; i++) e->args[i] = substitute(p, e->args[i], x, value);
  return e;
}

/* Gives companion c of loop s its value (each use in the body reads a copy), and puts it in
 * place of c in the loop's condition cond, parsed before the steps were known. */
static sj_expr *companion_value(parser *p, const sj_stmt *s, companion *c, sj_expr *cond) {
  sj_loc at = c->first->loc;
  if (reads_data(c->first) || mentions_local(c->first) || mentions(c->first, s->iter))
    fail(p, UNSUP, at,
         "the initial value of '%s' may use only parameters, outer iterators and constants (it "
         "is computed again where the loop uses '%s')",
         c->x->s.name, c->x->s.name);
  sj_expr *n = binop(p, SJ_OP_SUB, conv(p, var_ref(p, s->iter, at), SJ_TY_LONG),
                     conv(p, copy(p, s->init), SJ_TY_LONG), at);
  if (s->step != 1) n = binop(p, SJ_OP_DIV, n, int_lit(p, SJ_TY_LONG, s->step, at), at);
  sj_expr *v = binop(p, SJ_OP_ADD, conv(p, copy(p, c->first), SJ_TY_LONG),
                     binop(p, SJ_OP_MUL, n, int_lit(p, SJ_TY_LONG, c->step, at), at), at);
  c->x->value = conv(p, v, c->x->s.type);
  c->x->s.is_const = 1;
  return substitute(p, cond, &c->x->s, c->x->value);
}

/* The for loop at the head, pushed onto out (with what its iterator's use after it wants). */
static void for_loop(parser *p, vec *out) {
  sj_token kw = next(p);
  sj_stmt *s = stmt(p, SJ_S_FOR, kw.loc);
  sj_loc cond;
  psym *it, *outer = NULL;
  vec companions = {0};
  expect(p, '(');
  open_scope(p);
  const char *no_hoist = hoisting(p, "a loop's header");
  it = for_init(p, s, &outer, &companions);
  s->iter = &it->s;
  close_with(p, ';');
  cond = peek(p, 0)->loc;
  if (kind(p) == ';') fail(p, UNSUP, cond, "a for loop without a condition is not supported");
  sj_expr *data, *raw = expr(p);
  close_with(p, ';');
  if (kind(p) == ')')
    fail(p, UNSUP, peek(p, 0)->loc, "a for loop without an increment is not supported");
  s->step = for_steps(p, it, &companions);
  close_with(p, ')');
  p->no_hoist = no_hoist;
  for (int i = 0; i < companions.n; i++) raw = companion_value(p, s, companions.v[i], raw);
  s->cond = loop_cond(p, s, raw, cond, &data, "for loop");
  int returns;
  psym *broken = loop_statement(p, s, &returns);
  s->cond = flags_to_data(p, s, not_broken(p, out, s, broken, s->cond), &data);
  guard_body(p, s, data);
  close_scope(p);
  if (outer) { /* C leaves it its last value: what a use after the loop reads */
    sj_stmt *set = stmt(p, SJ_S_BLOCK, kw.loc);
    push(p, out, set);
    push(p, &p->unread, set);
    outer->was_set = (sj_stmt){.kind = SJ_S_ASSIGN, .loc = kw.loc, .rhs = copy(p, s->init)};
    outer->was_set.lhs = var_ref(p, &outer->s, kw.loc);
    outer->set_first = set;
    outer->counted = s;
    outer->guarded = data != NULL;
    outer->broken = broken ? &broken->s : NULL;
    if (outer->role == PLAIN) { /* used before the loop: given its value after it at once */
      outer->role = PLACEHOLDER;
      revive_counter(p, outer);
    }
  }
  push(p, out, s);
  if (returns) return_after(p, broken, kw.loc, out);
}

/* --- while and do loops that count: `int t = 0; while (t < T) { ...; t++; }` is the for
 * loop `for (int t = 0; t < T; t++) { ... }`, and `do { ...; t++; } while (t < T);` the for
 * loop whose condition also holds at the first value. The counter's first value is set by a
 * statement before the loop (counter_start()); its step is the last statement of the body.
 * The loop counts with an iterator of its own; a use of the counter after it makes the counter
 * a local again (revive_counter()). --- */

static int stmt_mentions(const sj_stmt *st, const sj_sym *x) {
  const sj_expr *es[] = {st->init, st->cond, st->lhs, st->rhs};
  for (int i = 0; i < 4; i++)
    if (es[i] && mentions(es[i], x)) return 1;
  for (int i = 0; i < st->nbody; i++)
    if (st->body[i] && stmt_mentions(st->body[i], x)) return 1;
  return st->sym == x;
}

static int mentions_local(const sj_expr *e) {
  if (e->kind == SJ_E_VAR && e->sym->kind == SJ_SYM_LOCAL) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (mentions_local(e->args[i])) return 1;
  return 0;
}

/* Where in out the counter x of a loop gets its first value: `int t = e;` or `t = e;` (the
 * first use of a local declared before), -1 if nowhere. Statements after it may not use the
 * counter; unless it is the last, its value may not depend on a local, which they could
 * change. */
static int counter_set(const vec *out, const psym *x) {
  for (int i = out->n - 1; i >= 0; i--) {
    const sj_stmt *st = out->v[i];
    int set = (st->kind == SJ_S_DECL && st->sym == &x->s && st->rhs) ||
              (st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR && st->lhs->sym == &x->s &&
               x->use.line == st->loc.line && x->use.col == st->loc.col);
    if (set) return i == out->n - 1 || !mentions_local(st->rhs) ? i : -1;
    if (stmt_mentions(st, &x->s)) return -1;
  }
  return -1;
}

/* The local a statement sets: `int t = e;` or `t = e;`; NULL for any other. */
static psym *set_local(const sj_stmt *st) {
  if (st->kind == SJ_S_DECL && st->rhs) return (psym *)st->sym;
  if (st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR && st->lhs->sym->kind == SJ_SYM_LOCAL)
    return (psym *)st->lhs->sym;
  return NULL;
}

static int may_count(const psym *x) {
  return x && x->s.kind == SJ_SYM_LOCAL && !x->s.rank && !x->pointer && !x->s.is_const &&
         iter_type(x->s.type);
}

/* The counter of the loop at kw, and its first value (*init): for a while loop, the variable
 * its condition begins with; for a do loop, the one the statement before it sets; or else the
 * only integer local whose first value out sets as counter_set() wants it. It is a
 * placeholder from then on, as a for loop's iterator declared before it is. */
static psym *counter_start(parser *p, vec *out, const sj_token *kw, sj_expr **init) {
  psym *x = NULL;
  int at = -1;
  if (kw->kind == SJ_K_WHILE) {
    sj_token *name = peek(p, 1);
    if (kind(p) == '(' && name->kind == SJ_T_IDENT) x = lookup(p, name->text, name->len);
    if (may_count(x)) at = counter_set(out, x);
  } else if (out->n) {
    x = set_local(out->v[out->n - 1]);
    if (x && x->s.kind == SJ_SYM_LOCAL) at = counter_set(out, x);
  }
  for (int i = out->n - 1; at < 0 && i >= 0; i--) {
    psym *y = set_local(out->v[i]);
    if (!may_count(y) || counter_set(out, y) != i) continue;
    for (int j = i - 1; j >= 0; j--) { /* a second one: which counts is unclear */
      psym *z = set_local(out->v[j]);
      if (z != y && may_count(z) && counter_set(out, z) == j) y = NULL;
    }
    x = y;
    at = y ? i : -1;
    break;
  }
  if (at < 0)
    fail(p, UNSUP, kw->loc,
         "a %s loop must count: set its counter before it (int t = 0; %s) and step it at the "
         "end of its body (t++;), or write a for loop",
         sj_tok_spelling(kw->kind),
         kw->kind == SJ_K_WHILE ? "while (t < T) { ... t++; }"
                                : "just before do { ... t++; } while (t < T);");
  if (!may_count(x))
    fail(p, UNSUP, kw->loc,
         "the counter '%s' of a %s loop must be a non-const int, long or unsigned variable",
         x->s.name, sj_tok_spelling(kw->kind));
  sj_stmt *set = out->v[at];
  *init = set->rhs;
  x->set_first = set;
  x->was_set = *set;
  if (set->kind == SJ_S_DECL)
    set->rhs = NULL; /* the declaration leaves the tree with the placeholder */
  else
    *set = (sj_stmt){.kind = SJ_S_BLOCK, .loc = set->loc}; /* nothing, in the assignment's place */
  x->role = PLACEHOLDER;
  return x;
}

/* The counter x of a while or do loop used after it (or a for loop's iterator declared before
 * the loop): a local again, with C's value when the loop ends. A while loop that runs to its bound
 * (t < T ...) sets it where its first value was set to the value it ends with; otherwise it is set
 * to its first value there, and to its next value at the end of each iteration that runs (under the
 * loop's test of convergence, where it has one). The loop itself still counts with its iterator. */
static void revive_counter(parser *p, psym *x) {
  sj_stmt *loop = x->counted;
  x->counted = NULL;
  x->role = PLAIN;
  *x->set_first = x->was_set;
  sj_loc loc = loop->loc;
  sj_expr *runs, *count = x->guarded || (x->s.type != SJ_TY_INT && x->s.type != SJ_TY_LONG)
                              ? NULL
                              : iterations(p, loop, &runs);
  if (count && !mentions_local(runs) && !mentions_local(count)) {
    /* a loop that counts to its bound: the value it ends with, set where the first was (the
     * loop and what comes between use no other), and no statement in the loop */
    sj_expr *end = binop(p, SJ_OP_MUL, count, int_lit(p, SJ_TY_LONG, loop->step, loc), loc);
    end = binop(p, SJ_OP_ADD, conv(p, copy(p, loop->init), SJ_TY_LONG), end, loc);
    sj_expr *choice[] = {runs, end, conv(p, copy(p, loop->init), SJ_TY_LONG)};
    x->set_first->rhs = conv(p, node(p, SJ_E_COND, SJ_TY_LONG, loc, 3, choice), x->s.type);
    return;
  }
  sj_expr *t = var_ref(p, loop->iter, loc);
  sj_stmt *next = stmt(p, SJ_S_ASSIGN, loc);
  next->lhs = var_ref(p, &x->s, loc);
  next->rhs =
      conv(p, binop(p, SJ_OP_ADD, t, int_lit(p, SJ_TY_LONG, loop->step, loc), loc), x->s.type);
  /* the body's block (under the convergence test's if if any) ends with it: a statement
   * directly in the time loop, as the stencil form wants it */
  sj_stmt **at = x->guarded ? &loop->body[0]->body[0] : &loop->body[0];
  if ((*at)->kind != SJ_S_BLOCK) { /* a for loop's one statement */
    sj_stmt *block = stmt(p, SJ_S_BLOCK, (*at)->loc);
    block->nbody = 1;
    block->body = alloc(p, sizeof *block->body);
    block->body[0] = *at;
    *at = block;
  }
  sj_stmt *body = *at;
  if (x->broken) { /* not where a `break` ended the loop: C skips the step there */
    sj_stmt *clear = stmt(p, SJ_S_IF, loc);
    clear->cond =
        binop(p, SJ_OP_EQ, var_ref(p, x->broken, loc), int_lit(p, SJ_TY_INT, 0, loc), loc);
    clear->nbody = 2;
    clear->body = alloc(p, 2 * sizeof *clear->body);
    clear->body[0] = next;
    next = clear;
  }
  sj_stmt **all = alloc(p, (size_t)(body->nbody + 1) * sizeof *all);
  for (int i = 0; i < body->nbody; i++) all[i] = body->body[i];
  all[body->nbody++] = next;
  body->body = all;
}

/* The condition of a while or do loop, in parentheses. */
static sj_expr *counter_cond(parser *p, const sj_stmt *s, sj_expr **data, int kw) {
  expect(p, '(');
  sj_loc at = peek(p, 0)->loc;
  sj_expr *bound = loop_cond(p, s, expr(p), at, data, kw == SJ_K_WHILE ? "while loop" : "do loop");
  close_with(p, ')');
  return bound;
}

static void counted_loop(parser *p, vec *out) {
  sj_token kw = next(p);
  sj_stmt *s = stmt(p, SJ_S_FOR, kw.loc);
  sj_expr *init;
  psym *x = counter_start(p, out, &kw, &init);
  s->init = conv(p, init, x->s.type);
  open_scope(p);
  sj_token name = {
      .kind = SJ_T_IDENT, .loc = x->s.loc, .text = x->s.name, .len = strlen(x->s.name)};
  s->iter = &declare(p, SJ_SYM_ITER, x->s.type, &name)->s;
  sj_expr *data = NULL; /* a convergence test, the body's guard */
  const char *no_hoist = hoisting(p, "a loop's header");
  if (kw.kind == SJ_K_WHILE) s->cond = counter_cond(p, s, &data, kw.kind);
  p->no_hoist = no_hoist;
  if (kind(p) != '{')
    fail(p, UNSUP, peek(p, 0)->loc,
         "the body of a %s loop must be a block that ends by stepping its counter '%s'",
         sj_tok_spelling(kw.kind), x->s.name);
  sj_stmt *counted = p->counted;
  psym *counter = p->counter;
  int counter_nest = p->counter_nest;
  p->counted = s;
  p->counter = (psym *)s->iter;
  p->counter_nest = p->nest + 2; /* the statements of the body's block */
  int returns;
  psym *broken = loop_statement(p, s, &returns);
  p->counted = counted;
  p->counter = counter;
  p->counter_nest = counter_nest;
  if (!s->step)
    fail(p, UNSUP, kw.loc, "the %s loop does not end its body by stepping its counter '%s'",
         sj_tok_spelling(kw.kind), x->s.name);
  if (kw.kind == SJ_K_WHILE)
    s->cond = flags_to_data(p, s, not_broken(p, out, s, broken, s->cond), &data);
  if (kw.kind == SJ_K_DO) {
    if (kind(p) != SJ_K_WHILE) found(p, "'while'");
    next(p);
    /* the body runs once before the condition is tested: at the first value */
    sj_expr *t = var_ref(p, s->iter, kw.loc);
    sj_expr *first = binop(p, SJ_OP_EQ, t, copy(p, s->init), kw.loc);
    hoisting(p, "a loop's header");
    sj_expr *bound = counter_cond(p, s, &data, kw.kind);
    p->no_hoist = no_hoist;
    bound = flags_to_data(p, s, not_broken(p, out, s, broken, bound), &data);
    s->cond = binop(p, SJ_OP_OR, bound, first, kw.loc);
    if (data) data = binop(p, SJ_OP_OR, copy(p, first), data, kw.loc);
    close_with(p, ';');
  }
  guard_body(p, s, data);
  close_scope(p);
  x->counted = s;
  x->guarded = data != NULL;
  x->broken = broken ? &broken->s : NULL;
  push(p, out, s);
  if (returns) return_after(p, broken, kw.loc, out);
}

/* `t++;` (or ++t, t += 2, t = t + 2 ...) ending the body of the while or do loop being
 * parsed: its step. Whether the statement at the head was that. */
static int counter_step(parser *p) {
  sj_token *t = peek(p, 0);
  int at = t->kind == SJ_T_INC || t->kind == SJ_T_DEC;
  sj_token *name = peek(p, at);
  if (!p->counter || name->kind != SJ_T_IDENT || lookup(p, name->text, name->len) != p->counter)
    return 0;
  if (!at && peek(p, 1)->kind != SJ_T_INC && peek(p, 1)->kind != SJ_T_DEC &&
      !is_assign_op(peek(p, 1)->kind))
    return 0; /* a use of the counter, not its step */
  sj_loc loc = t->loc;
  if (p->nest != p->counter_nest || p->loop != p->counted)
    fail(p, UNSUP, loc,
         "the counter '%s' may be stepped only by the last statement of its loop's body",
         p->counter->s.name);
  p->counted->step = increment(p, p->counter);
  close_with(p, ';');
  if (kind(p) != '}')
    fail(p, UNSUP, loc,
         "the counter '%s' may be stepped only by the last statement of its loop's body",
         p->counter->s.name);
  return 1;
}

static sj_stmt *if_stmt(parser *p) {
  sj_token kw = next(p);
  sj_stmt *s = stmt(p, SJ_S_IF, kw.loc);
  expect(p, '(');
  s->cond = truth(p, expr(p));
  close_with(p, ')');
  s->nbody = 2;
  s->body = alloc(p, 2 * sizeof *s->body);
  s->body[0] = statement(p);
  if (accept(p, SJ_K_ELSE)) s->body[1] = statement(p);
  return s;
}

/* One statement into out: an assignment chain may give several. */
/* Whether `name(` calls a function of an expression: a helper, abs and its kin, a math
 * function. */
static int value_function(parser *p, const sj_token *name) {
  static const char *const iabs[] = {"abs", "labs", "llabs"};
  if (loop_helper(p, name)) return 1;
  for (int i = 0; i < p->helpers.n; i++)
    if (!strncmp(((helper *)p->helpers.v[i])->name, name->text, name->len) &&
        !((helper *)p->helpers.v[i])->name[name->len])
      return 1;
  for (int i = 0; i < 3; i++)
    if (strlen(iabs[i]) == name->len && !memcmp(iabs[i], name->text, name->len)) return 1;
  for (int fn = 0; fn < SJ_NFUNCS; fn++)
    if (strlen(sj_func_name(fn)) == name->len && !memcmp(sj_func_name(fn), name->text, name->len))
      return 1;
  return 0;
}

/* A call of one of the source's functions, defined above or below, with args: a placeholder,
 * an empty block whose rhs is the call (SJ_E_CALL, op -1, ival the callee's place in
 * call_names), until inline_calls() puts the callee's body there. Arrays are arguments as
 * SJ_E_INDEX nodes marked implicit, with the subscripts of the rows passed (often none). */
static sj_stmt *call_placeholder(parser *p, const char *callee, const vec *args, sj_loc loc) {
  sj_expr *c = node(p, SJ_E_CALL, SJ_TY_VOID, loc, args->n, exprs(p, args));
  c->op = -1;
  c->ival = p->call_names.n;
  push(p, &p->call_names, (void *)callee);
  sj_stmt *s = stmt(p, SJ_S_BLOCK, loc);
  s->rhs = c;
  return s;
}

/* The arguments of a call of a function of the source, `(a, ...)`, into args. */
static void call_args(parser *p, vec *args) {
  expect(p, '(');
  if (kind(p) != ')') do {
      p->call_arg = 1;
      push(p, args, expr(p));
      p->call_arg = 0;
    } while (accept(p, ','));
  expect(p, ')');
}

/* `f(args);` calling a void function of the source. */
static void call_statement(parser *p, vec *out) {
  sj_token name = next(p);
  vec args = {0};
  call_args(p, &args);
  close_with(p, ';');
  push(p, out, call_placeholder(p, sj_arena_strndup(p->a, name.text, name.len), &args, name.loc));
}

/* --- memcpy and memmove between arrays: a loop nest copying in row-major order --- */

/* One `sizeof` factor of a byte count, into *bytes (its constant part) and *count (the
 * extents it multiplies by): `sizeof(T)`, `sizeof A[i]` (a row), `sizeof *A`, `sizeof A` (a
 * local array whole; a parameter or a pointer is a pointer, as C has it). */
static void size_factor(parser *p, long *bytes, sj_expr **count) {
  sj_loc at = next(p).loc;
  int paren = accept(p, '(');
  if (paren && starts_type(p, 0)) {
    spec s = specifiers(p);
    if (kind(p) == '*') fail(p, UNSUP, at, "sizeof of a pointer type is not supported here");
    *bytes *= sj_type_size(s.type);
    expect(p, ')');
    return;
  }
  int rows = accept(p, '*');
  if (kind(p) != SJ_T_IDENT) fail(p, UNSUP, at, "sizeof takes a type or an array here");
  sj_token name = next(p);
  psym *x = lookup(p, name.text, name.len);
  if (!x) fail(p, SYNTAX, name.loc, "undeclared identifier '%.*s'", TOKTEXT(&name));
  while (accept(p, '[')) { /* not evaluated, as C does not */
    expr(p);
    close_with(p, ']');
    rows++;
  }
  if (paren) expect(p, ')');
  if (rows > x->s.rank) fail(p, UNSUP, at, "sizeof of more subscripts than '%s' has", x->s.name);
  if (!rows && (x->s.kind == SJ_SYM_ARRAY || x->pointer)) {
    *bytes *= (long)sizeof(void *);
    return;
  }
  *bytes *= sj_type_size(x->s.type);
  for (int d = rows; d < x->s.rank; d++)
    *count = *count ? binop(p, SJ_OP_MUL, *count, copy(p, x->s.extents[d]), at)
                    : copy(p, x->s.extents[d]);
}

/* The third argument of memcpy, a product of factors with one sizeof or more, as a count of
 * elements of type elem (long). */
static sj_expr *element_count(parser *p, sj_type elem, sj_loc loc) {
  long bytes = 1;
  int sized = 0;
  sj_expr *count = NULL;
  do {
    if (kind(p) == SJ_K_SIZEOF) {
      size_factor(p, &bytes, &count);
      sized = 1;
      continue;
    }
    sj_expr *f = unary(p);
    if (!sj_type_is_integer(f->type))
      fail(p, SYNTAX, f->loc, "a byte count has type '%s', not an integer type",
           sj_type_name(f->type));
    f = conv(p, f, SJ_TY_LONG);
    count = count ? binop(p, SJ_OP_MUL, count, f, f->loc) : f;
  } while (accept(p, '*'));
  long size = sj_type_size(elem);
  if (!sized || bytes % size)
    fail(p, UNSUP, loc,
         "the byte count of a copy must be a product with sizeof, of whole elements of type '%s' "
         "(n * sizeof(%s))",
         sj_type_name(elem), sj_type_name(elem));
  sj_expr *whole = int_lit(p, SJ_TY_LONG, bytes / size, loc);
  return count ? binop(p, SJ_OP_MUL, conv(p, count, SJ_TY_LONG), whole, loc) : whole;
}

/* An operand of memcpy: an array or rows of one (`A`, `A[t % 2]`), or an address in one
 * (`&A[i][j]`, `&A[r]`, `A + e`, `A[r] - e`): then flat is its row-major position in the
 * array, in elements. */
typedef struct copy_end {
  sj_expr *rows;
  sj_expr *flat; /* NULL: rows, from their start */
} copy_end;

/* The row-major position of A[idx...] (missing subscripts 0), as a long. */
static sj_expr *flat_position(parser *p, const sj_sym *a, sj_expr *const *idx, int n, sj_loc loc) {
  sj_expr *pos = NULL;
  for (int d = 0; d < a->rank; d++) {
    sj_expr *i = d < n ? conv(p, copy(p, idx[d]), SJ_TY_LONG) : int_lit(p, SJ_TY_LONG, 0, loc);
    pos = pos ? binop(p, SJ_OP_ADD,
                      binop(p, SJ_OP_MUL, pos, conv(p, copy(p, a->extents[d]), SJ_TY_LONG), loc), i,
                      loc)
              : i;
  }
  return pos;
}

static copy_end copy_operand(parser *p, const char *what) {
  sj_loc loc = peek(p, 0)->loc;
  int address = accept(p, '&');
  if (kind(p) != SJ_T_IDENT) found(p, "an array");
  p->call_arg = 2;
  sj_expr *e = postfix(p);
  p->call_arg = 0;
  if (e->kind != SJ_E_INDEX || !e->sym || e->sym->kind != SJ_SYM_ARRAY || (!address && !is_rows(e)))
    fail(p, UNSUP, loc,
         "the %s of a copy must be an array, rows of one or an address in one (A, A[t %% 2], "
         "&A[i][0], A + i)",
         what);
  sj_expr *off = NULL;
  while (kind(p) == '+' || kind(p) == '-') {
    sj_token op = next(p);
    sj_expr *term = binary(p, 10); /* above + and -: the next term */
    if (!sj_type_is_integer(term->type))
      fail(p, SYNTAX, term->loc, "pointer offset has type '%s', not an integer type",
           sj_type_name(term->type));
    term = conv(p, term, SJ_TY_LONG);
    off = off              ? binop(p, op.kind == '+' ? SJ_OP_ADD : SJ_OP_SUB, off, term, op.loc)
          : op.kind == '+' ? term
                           : binop(p, SJ_OP_SUB, int_lit(p, SJ_TY_LONG, 0, op.loc), term, op.loc);
  }
  copy_end end = {e, NULL};
  if (address || off) {
    end.flat = flat_position(p, e->sym, e->args, e->nargs, loc);
    if (off) end.flat = binop(p, SJ_OP_ADD, end.flat, off, loc);
  }
  return end;
}

static psym *loop_iter(parser *p, sj_loc loc, int d) {
  static const char *const names[] = {"__sj_c0", "__sj_c1", "__sj_c2", "__sj_c3"};
  psym *x = alloc(p, sizeof *x);
  x->s = (sj_sym){.kind = SJ_SYM_ITER,
                  .type = SJ_TY_LONG,
                  .loc = loc,
                  .param = -1,
                  .name = names[d < 3 ? d : 3]};
  push(p, &p->syms, x);
  return x;
}

/* for (it = 0; it < bound; it++) body */
static sj_stmt *count_loop(parser *p, psym *it, sj_expr *bound, sj_stmt *body, sj_loc at) {
  sj_stmt *loop = stmt(p, SJ_S_FOR, at);
  loop->iter = &it->s;
  loop->init = int_lit(p, SJ_TY_LONG, 0, at);
  loop->cond = binop(p, SJ_OP_LT, var_ref(p, &it->s, at), bound, at);
  loop->step = 1;
  loop->nbody = 1;
  loop->body = alloc(p, sizeof *loop->body);
  loop->body[0] = body;
  return loop;
}

/* The element of a at row-major position pos (long, within a), its subscripts pos / stride
 * % extent. */
static sj_expr *element_at(parser *p, const sj_sym *a, sj_expr *pos, sj_loc at) {
  sj_expr *idx[4], *stride = NULL;
  for (int d = a->rank - 1; d >= 0; d--) {
    sj_expr *q = stride ? binop(p, SJ_OP_DIV, copy(p, pos), copy(p, stride), at) : copy(p, pos);
    idx[d] = d ? binop(p, SJ_OP_REM, q, conv(p, copy(p, a->extents[d]), SJ_TY_LONG), at) : q;
    if (d) {
      sj_expr *e = conv(p, copy(p, a->extents[d]), SJ_TY_LONG);
      stride = stride ? binop(p, SJ_OP_MUL, stride, e, at) : e;
    }
  }
  sj_expr *e = node(p, SJ_E_INDEX, a->type, at, a->rank, idx);
  e->sym = (sj_sym *)a;
  return e;
}

/* A copy where an operand is an address (copy_end.flat): count elements from dst's position
 * on, each from the position as far into src. One loop along a one-dimensional dst; else a
 * nest over dst's rows up to the last one the copy reaches, under a guard on the position. */
static sj_stmt *flat_copy(parser *p, const sj_token *name, copy_end dst, copy_end src,
                          sj_expr *count, const sj_expr *value) {
  const sj_sym *to = dst.rows->sym, *from = value ? to : src.rows->sym;
  sj_loc at = name->loc;
  if (to == from && !value)
    fail(p, UNSUP, at,
         "'%.*s' within one array at an address is not supported (its parts may "
         "overlap)",
         TOKTEXT(name));
  if (to->rank > 4 || from->rank > 4)
    fail(p, UNSUP, at, "copies of more than 4 dimensions are not supported");
  sj_expr *od = dst.flat ? dst.flat : flat_position(p, to, dst.rows->args, dst.rows->nargs, at);
  sj_expr *os = value      ? NULL
                : src.flat ? src.flat
                           : flat_position(p, from, src.rows->args, src.rows->nargs, at);
  psym *it[4];
  for (int d = 0; d < to->rank; d++) it[d] = loop_iter(p, at, d);
  sj_stmt *assign = stmt(p, SJ_S_ASSIGN, at);
  if (to->rank == 1) {
    sj_expr *k = var_ref(p, &it[0]->s, at);
    assign->lhs = element_at(p, to, binop(p, SJ_OP_ADD, copy(p, od), k, at), at);
    assign->rhs =
        value ? copy(p, value) : element_at(p, from, binop(p, SJ_OP_ADD, os, copy(p, k), at), at);
    return count_loop(p, it[0], count, assign, at);
  }
  sj_expr *idx[4], *q = NULL, *row = NULL;
  for (int d = 0; d < to->rank; d++) {
    idx[d] = var_ref(p, &it[d]->s, at);
    sj_expr *e = d ? conv(p, copy(p, to->extents[d]), SJ_TY_LONG) : NULL;
    q = q ? binop(p, SJ_OP_ADD, binop(p, SJ_OP_MUL, q, e, at), copy(p, idx[d]), at)
          : copy(p, idx[d]);
    if (d) row = row ? binop(p, SJ_OP_MUL, row, copy(p, e), at) : copy(p, e);
  }
  sj_expr *end = binop(p, SJ_OP_ADD, copy(p, od), copy(p, count), at);
  assign->lhs = node(p, SJ_E_INDEX, to->type, at, to->rank, idx);
  assign->lhs->sym = (sj_sym *)to;
  assign->rhs = value ? copy(p, value)
                      : element_at(p, from,
                                   binop(p, SJ_OP_ADD,
                                         binop(p, SJ_OP_SUB, copy(p, q), copy(p, od), at), os, at),
                                   at);
  sj_stmt *body = stmt(p, SJ_S_IF, at);
  body->cond = binop(p, SJ_OP_AND, binop(p, SJ_OP_GE, copy(p, q), od, at),
                     binop(p, SJ_OP_LT, q, copy(p, end), at), at);
  body->nbody = 2;
  body->body = alloc(p, 2 * sizeof *body->body);
  body->body[0] = assign;
  for (int d = to->rank - 1; d >= 0; d--) {
    sj_expr *bound =
        d ? conv(p, copy(p, to->extents[d]), SJ_TY_LONG)
          : binop(p, SJ_OP_DIV,
                  binop(p, SJ_OP_ADD, end,
                        binop(p, SJ_OP_SUB, copy(p, row), int_lit(p, SJ_TY_LONG, 1, at), at), at),
                  row, at);
    body = count_loop(p, it[d], bound, body, at);
  }
  return body;
}

/* `memcpy(dst, src, n * sizeof(T));` (or memmove between different arrays): dst and src of
 * one element type and the same inner extents; the copy is a loop nest over dst's dimensions
 * whose row-major position is below the count (an if the sizes decide where the count is the
 * whole array). */
/* Whether e reads only literals and shape parameters. */
static int on_sizes(const sj_expr *e) {
  if (e->kind == SJ_E_VAR) return e->sym->kind == SJ_SYM_SHAPE;
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL || sj_type_is_float(e->type)) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!on_sizes(e->args[i])) return 0;
  return 1;
}

/* `assert(c);` among the first statements of the function's body (outside loops and ifs, no
 * `return;` before it), c over the sizes: a condition the arguments must meet, checked for
 * each shape before anything runs (jit/compile.c), where the C function would abort. */
static void assert_statement(parser *p) {
  sj_token name = next(p);
  expect(p, '(');
  sj_loc at = peek(p, 0)->loc;
  sj_expr *c = truth(p, expr(p));
  expect(p, ')');
  close_with(p, ';');
  if (p->nest != 1 || p->returns.n)
    fail(p, UNSUP, name.loc,
         "assert is supported only among the statements of the function's body, outside loops "
         "and ifs and before any return");
  if (!on_sizes(c))
    fail(p, UNSUP, at,
         "assert is supported on the sizes only (integer parameters, literals, enumeration "
         "constants): the arguments must meet it before anything runs");
  sj_assert *a = alloc(p, sizeof *a);
  *a = (sj_assert){c, name.loc, NULL};
  push(p, &p->asserts, a);
}

/* The element count of a call of memset, memcpy or memmove at loc on the body's top level, over
 * the sizes: C converts a negative one to a huge size_t and runs past the arrays, so the call is
 * refused for such arguments with message what, as a failed assert is (elsewhere the copy's
 * loops do not run). */
static void check_count(parser *p, sj_loc loc, const sj_expr *count, const char *what) {
  if (p->nest != 1 || p->returns.n || !on_sizes(count)) return;
  sj_expr *zero = int_lit(p, SJ_TY_LONG, 0, loc);
  sj_assert *a = alloc(p, sizeof *a);
  *a = (sj_assert){binop(p, SJ_OP_GE, copy(p, count), zero, loc), loc, what};
  push(p, &p->asserts, a);
}

/* `memset(A, 0, bytes);` (or an address in A, as memcpy takes): a loop nest setting the
 * elements to zero, all bits clear (+0.0 for floating-point ones), as the bytes are. */
static void fill_statement(parser *p, vec *out) {
  sj_token name = next(p);
  expect(p, '(');
  copy_end dst = copy_operand(p, "destination");
  expect(p, ',');
  sj_loc vat = peek(p, 0)->loc;
  long byte;
  if (!literal_value(conditional(p), &byte) || byte)
    fail(p, UNSUP, vat, "memset is supported with the value 0 only");
  expect(p, ',');
  const sj_sym *to = dst.rows->sym;
  sj_expr *count = element_count(p, to->type, name.loc);
  close_with(p, ')');
  close_with(p, ';');
  if (to->is_const) fail(p, SYNTAX, dst.rows->loc, "memset of const array '%s'", to->name);
  check_count(p, name.loc, count, "memset's byte count is negative");
  sj_expr *zero = conv(p, int_lit(p, SJ_TY_INT, 0, vat), to->type);
  push(p, out, flat_copy(p, &name, dst, (copy_end){0}, count, zero));
}

static void copy_statement(parser *p, vec *out) {
  sj_token name = next(p);
  int move = name.len == 7;
  expect(p, '(');
  copy_end dst_end = copy_operand(p, "destination");
  expect(p, ',');
  copy_end src_end = copy_operand(p, "source");
  expect(p, ',');
  sj_expr *dst = dst_end.rows, *src = src_end.rows;
  const sj_sym *to = dst->sym, *from = src->sym;
  if (to->type != from->type)
    fail(p, UNSUP, name.loc,
         "'%.*s' copies between arrays of one element type only ('%s' and '%s')", TOKTEXT(&name),
         to->name, from->name);
  sj_expr *count = element_count(p, to->type, name.loc);
  close_with(p, ')');
  close_with(p, ';');
  if (to->is_const) fail(p, SYNTAX, dst->loc, "copy into const array '%s'", to->name);
  check_count(p, name.loc, count, "the copy's byte count is negative");
  if (dst_end.flat || src_end.flat) {
    push(p, out, flat_copy(p, &name, dst_end, src_end, count, NULL));
    return;
  }
  int rank = to->rank - dst->nargs;
  int same = to->type == from->type && rank == from->rank - src->nargs;
  for (int d = 1; same && d < rank; d++)
    same = sj_expr_same(to->extents[dst->nargs + d], from->extents[src->nargs + d]);
  if (!same)
    fail(p, UNSUP, name.loc,
         "'%.*s' copies between arrays of one element type and the same inner extents only "
         "('%s' and '%s' differ)",
         TOKTEXT(&name), to->name, from->name);
  int apart = 0; /* two halves of one array, told apart by a constant first subscript */
  if (dst->nargs && src->nargs && dst->args[0]->kind == SJ_E_INT && src->args[0]->kind == SJ_E_INT)
    apart = dst->args[0]->ival != src->args[0]->ival;
  if (move && to == from && !apart)
    fail(p, UNSUP, name.loc, "memmove within one array is not supported (its parts may overlap)");
  if (rank > 4) fail(p, UNSUP, name.loc, "copies of more than 4 dimensions are not supported");
  /* i0 < ceil(count / rows), i1 < E1, ...; then the guard on the row-major position */
  sj_expr *row = NULL; /* elements per step of i0 */
  for (int d = 1; d < rank; d++) {
    sj_expr *e = conv(p, copy(p, to->extents[dst->nargs + d]), SJ_TY_LONG);
    row = row ? binop(p, SJ_OP_MUL, row, e, name.loc) : e;
  }
  sj_loc at = name.loc;
  psym *it[4];
  sj_expr *idx_to[8], *idx_from[8], *position = NULL;
  for (int i = 0; i < dst->nargs; i++) idx_to[i] = dst->args[i];
  for (int i = 0; i < src->nargs; i++) idx_from[i] = src->args[i];
  for (int d = 0; d < rank; d++) {
    it[d] = loop_iter(p, at, d);
    sj_expr *v = node(p, SJ_E_VAR, SJ_TY_LONG, at, 0, NULL);
    v->sym = &it[d]->s;
    idx_to[dst->nargs + d] = v;
    idx_from[src->nargs + d] = copy(p, v);
    sj_expr *extent = d ? conv(p, copy(p, to->extents[dst->nargs + d]), SJ_TY_LONG) : NULL;
    position = position
                   ? binop(p, SJ_OP_ADD, binop(p, SJ_OP_MUL, position, extent, at), copy(p, v), at)
                   : copy(p, v);
  }
  sj_stmt *assign = stmt(p, SJ_S_ASSIGN, at);
  assign->lhs = node(p, SJ_E_INDEX, to->type, at, to->rank, idx_to);
  assign->lhs->sym = (sj_sym *)to;
  assign->rhs = node(p, SJ_E_INDEX, from->type, at, from->rank, idx_from);
  assign->rhs->sym = (sj_sym *)from;
  sj_stmt *body = assign;
  if (rank > 1) {
    body = stmt(p, SJ_S_IF, at);
    body->cond = binop(p, SJ_OP_LT, position, copy(p, count), at);
    body->nbody = 2;
    body->body = alloc(p, 2 * sizeof *body->body);
    body->body[0] = assign;
  }
  for (int d = rank - 1; d >= 0; d--) {
    sj_expr *bound =
        d ? conv(p, copy(p, to->extents[dst->nargs + d]), SJ_TY_LONG)
        : row
            ? binop(p, SJ_OP_DIV,
                    binop(p, SJ_OP_ADD, copy(p, count),
                          binop(p, SJ_OP_SUB, copy(p, row), int_lit(p, SJ_TY_LONG, 1, at), at), at),
                    row, at)
            : copy(p, count);
    body = count_loop(p, it[d], bound, body, at);
  }
  push(p, out, body);
}

/* `case K:` and `default:` labels before a case's statements (at least one); the test that
 * the switch's value v matches one of them (NULL for default). */
static sj_expr *case_labels(parser *p, const sj_expr *v, int *is_default) {
  sj_expr *test = NULL;
  *is_default = 0;
  do {
    sj_token kw = next(p);
    if (kw.kind == SJ_K_DEFAULT) {
      *is_default = 1;
    } else {
      sj_expr *k = conditional(p);
      long value;
      if (!literal_value(k, &value))
        fail(p, UNSUP, k->loc, "a case label must be an integer constant");
      sj_expr *eq = binop(p, SJ_OP_EQ, copy(p, v), k, kw.loc);
      test = test ? binop(p, SJ_OP_OR, test, eq, kw.loc) : eq;
    }
    expect(p, ':');
  } while (kind(p) == SJ_K_CASE || kind(p) == SJ_K_DEFAULT);
  return *is_default ? NULL : test;
}

/* The statements of a case into group, up to its `break;` (whether there is one), the next
 * label or the switch's end; braced: those of a block in it, up to its '}'. */
static int case_statements(parser *p, vec *group, int braced) {
  for (;;) {
    int k = kind(p);
    if (k == '}' || (!braced && (k == SJ_K_CASE || k == SJ_K_DEFAULT))) return 0;
    if (k == SJ_T_EOF) found(p, "'}'");
    int ended = 0;
    if (k == SJ_K_BREAK) {
      next(p);
      close_with(p, ';');
      ended = 1;
    } else if (k == '{') {
      enter(p, next(p).loc);
      open_scope(p);
      ended = case_statements(p, group, 1);
      p->nest--;
      close_scope(p);
      expect(p, '}');
    } else if (starts_type(p, 0)) {
      declaration(p, group);
    } else {
      statement_to(p, group);
    }
    if (!ended) continue;
    k = kind(p);
    if (k != '}' && (braced || (k != SJ_K_CASE && k != SJ_K_DEFAULT)))
      fail(p, UNSUP, peek(p, 0)->loc, "a statement after a case's 'break;' never runs");
    return 1;
  }
}

/* `switch (v) { case K: ... break; ... default: ... }` whose cases end with `break;` (the last
 * one may end the switch): an if-else chain testing v, the default last. v is tested again for
 * each case: expressions have no side effects. */
static void switch_statement(parser *p, vec *out) {
  sj_token kw = next(p);
  expect(p, '(');
  sj_expr *v = expr(p);
  if (!sj_type_is_integer(v->type))
    fail(p, SYNTAX, v->loc, "a switch's value has type '%s', not an integer type",
         sj_type_name(v->type));
  v = conv(p, v, sj_type_promote(v->type));
  close_with(p, ')');
  expect(p, '{');
  open_scope(p);
  int outer_switch = p->in_switch;
  p->in_switch = 1;
  vec tests = {0}, bodies = {0};
  sj_stmt *fallback = NULL;
  int open = 0; /* the previous case did not end with break */
  while (!accept(p, '}')) {
    if (kind(p) != SJ_K_CASE && kind(p) != SJ_K_DEFAULT) found(p, "'case' or 'default'");
    if (open)
      fail(p, UNSUP, peek(p, 0)->loc,
           "a case that falls through into the next is not supported: end it with 'break;'");
    int is_default;
    sj_loc at = peek(p, 0)->loc;
    sj_expr *test = case_labels(p, v, &is_default);
    if (is_default && fallback) fail(p, SYNTAX, at, "multiple default labels in one switch");
    sj_stmt *body = stmt(p, SJ_S_BLOCK, peek(p, 0)->loc);
    vec group = {0};
    open = !case_statements(p, &group, 0);
    body->nbody = group.n;
    body->body = (sj_stmt **)group.v;
    if (is_default) {
      fallback = body;
    } else {
      push(p, &tests, test);
      push(p, &bodies, body);
    }
  }
  p->in_switch = outer_switch;
  close_scope(p);
  sj_stmt *chain = fallback ? fallback : stmt(p, SJ_S_BLOCK, kw.loc);
  for (int i = tests.n - 1; i >= 0; i--) {
    sj_stmt *g = stmt(p, SJ_S_IF, kw.loc);
    g->cond = tests.v[i];
    g->nbody = 2;
    g->body = alloc(p, 2 * sizeof *g->body);
    g->body[0] = bodies.v[i];
    g->body[1] = chain;
    chain = g;
  }
  push(p, out, chain);
}

static void statement_to(parser *p, vec *out) {
  sj_token *t = peek(p, 0);
  sj_loc loc = t->loc;
  int loop_body = p->loop_body; /* only a block itself is the loop's body */
  p->loop_body = 0;
  enter(p, loc);
  if (counter_step(p)) {
    p->nest--;
    return;
  }
  rotation *outer = p->after;
  int from = out->n, since = p->hoisted.n;
  const char *no_hoist = hoisting(p, NULL);
  p->after = NULL;
  statement_kind(p, t, loc, loop_body, out);
  for (int i = 0; i < p->rotations.n; i++) { /* a steps counter's declaration (steps_counter) */
    rotation *r = p->rotations.v[i];
    for (int k = from; r->decl && k < out->n; k++)
      if (out->v[k] == r->loop) {
        push(p, out, NULL);
        memmove(&out->v[k + 1], &out->v[k], (size_t)(out->n - 1 - k) * sizeof *out->v);
        out->v[k] = r->decl;
        r->decl = NULL;
      }
  }
  if (p->after) finish_after(p, out, from, loc);
  p->after = outer;
  put_hoisted(p, out, from, since);
  p->no_hoist = no_hoist;
  p->nest--;
}

/* `do { ... } while (0);`, as a macro writes a statement: the block, once (not where it holds
 * a break or continue, which would end it). Whether the do loop was that. */
static int once_block(parser *p, sj_loc loc, vec *out) {
  vec toks = {0};
  sj_token *t = alloc(p, sizeof *t);
  *t = next(p);
  push(p, &toks, t);
  int end = kind(p) == '{' && read_ahead(p, &toks) ? toks.n : 0;
  static const int tail[] = {SJ_K_WHILE, '(', SJ_T_INT, ')', ';'};
  int once = end && !read_has(&toks, 1, SJ_K_BREAK, SJ_K_CONTINUE, SJ_K_BREAK);
  for (int i = 0; once && i < 5; i++) {
    once = kind(p) == tail[i] && (tail[i] != SJ_T_INT || !peek(p, 0)->ival);
    t = alloc(p, sizeof *t);
    *t = next(p);
    push(p, &toks, t);
  }
  if (!once) {
    give_back(p, &toks);
    return 0;
  }
  vec body = {&toks.v[1], end - 1, end - 1};
  give_back(p, &body);
  statement_kind(p, peek(p, 0), loc, 0, out);
  return 1;
}

static void statement_kind(parser *p, sj_token *t, sj_loc loc, int loop_body, vec *out) {
  switch (t->kind) {
  case '{': {
    p->loop_body = loop_body;
    p->splice_into = loop_body ? NULL : out;
    sj_stmt *b = block(p, 1);
    if (!p->spliced) {
      push(p, out, b);
      break;
    }
    p->spliced = 0;
    for (int i = 0; i < b->nbody; i++) push(p, out, b->body[i]);
    break;
  }
  case ';': /* nothing: a swap's macro may end with one (`SWAP(u, v);`) */
    next(p);
    break;
  case SJ_K_FOR:
    for_loop(p, out);
    break;
  case SJ_K_IF:
    push(p, out, if_stmt(p));
    break;
  case SJ_K_ELSE:
    fail(p, SYNTAX, loc, "'else' without a previous 'if'");
  case SJ_K_WHILE:
  case SJ_K_DO:
    if (t->kind == SJ_K_DO && once_block(p, loc, out)) break;
    counted_loop(p, out);
    break;
  case SJ_K_SWITCH:
    switch_statement(p, out);
    break;
  case SJ_K_CASE:
  case SJ_K_DEFAULT:
  case SJ_K_GOTO:
    fail(p, UNSUP, loc, "'%s' is not supported", sj_tok_spelling(t->kind));
  case SJ_K_BREAK:
    next(p);
    close_with(p, ';');
    break_statement(p, loc, out);
    break;
  case SJ_K_CONTINUE: /* a placeholder, until block() makes its `if` guard what follows */
    if (p->loop && p->loop == p->counted) /* C would skip the step */
      fail(p, UNSUP, loc, "'continue' in a while or do loop is not supported");
    next(p);
    close_with(p, ';');
    push(p, &p->continues, stmt(p, SJ_S_BLOCK, loc));
    push(p, out, p->continues.v[p->continues.n - 1]);
    break;
  case SJ_K_RETURN:
    if (p->result) {
      next(p);
      result_return(p, loc, out);
      break;
    }
    if (peek(p, 1)->kind != ';') unguarded_return(p, loc);
    next(p), next(p);
    return_statement(p, loc, out);
    break;
  case '(':
    if (peek(p, 1)->kind == SJ_K_VOID && peek(p, 2)->kind == ')') { /* (void)x;: nothing to do */
      next(p), next(p), next(p);
      if (kind(p) == SJ_T_IDENT && peek(p, 1)->kind == ';') {
        sj_token name = next(p);
        if (!lookup(p, name.text, name.len))
          fail(p, SYNTAX, name.loc, "undeclared identifier '%.*s'", TOKTEXT(&name));
      } else {
        unary(p);
      }
      close_with(p, ';');
      push(p, out, stmt(p, SJ_S_BLOCK, loc));
      break;
    }
    assignment(p, out);
    break;
  case SJ_T_IDENT:
    if (peek(p, 1)->kind == ':') fail(p, UNSUP, loc, "label '%.*s' is not supported", TOKTEXT(t));
    if (pointer_assignment(p, out)) break;
    if (peek(p, 1)->kind == '(' && !lookup(p, t->text, t->len) && loop_helper(p, t)) {
      dropped_call(p, loop_helper(p, t));
      break;
    }
    if (peek(p, 1)->kind == '(' && !lookup(p, t->text, t->len) && !value_function(p, t)) {
      if ((t->len == 6 && !memcmp(t->text, "memcpy", 6)) ||
          (t->len == 7 && !memcmp(t->text, "memmove", 7)))
        copy_statement(p, out);
      else if (t->len == 6 && !memcmp(t->text, "memset", 6))
        fill_statement(p, out);
      else if (t->len == 6 && !memcmp(t->text, "assert", 6))
        assert_statement(p);
      else
        call_statement(p, out);
      break;
    }
    /* fall through */
  default:
    if (starts_type(p, 0))
      fail(p, SYNTAX, loc, "a declaration cannot be the body of 'for', 'if' or 'else': add braces");
    assignment(p, out);
  }
}

/* The body of a for, if or else: one statement (an assignment chain as an unscoped block). */
static sj_stmt *statement(parser *p) {
  vec v = {0};
  sj_loc loc = peek(p, 0)->loc;
  statement_to(p, &v);
  stray_moves(p, &v);
  if (v.n == 1) return v.v[0];
  sj_stmt *s = stmt(p, SJ_S_BLOCK, loc);
  s->nbody = v.n;
  s->body = alloc(p, (size_t)v.n * sizeof *s->body);
  for (int i = 0; i < v.n; i++) s->body[i] = v.v[i];
  return s;
}

/* --- functions --- */

/* Extents are affine-ish expressions the caller's shape arguments determine. */
static void check_extent(parser *p, const sj_expr *e) {
  int i;
  switch (e->kind) {
  case SJ_E_INT:
    return;
  case SJ_E_VAR:
    if (e->sym->kind == SJ_SYM_SHAPE) return;
    break;
  case SJ_E_BINARY:
    if (e->op > SJ_OP_DIV) break;
    for (i = 0; i < 2; i++) check_extent(p, e->args[i]);
    return;
  case SJ_E_UNARY:
    if (e->op != '-') break;
    check_extent(p, e->args[0]);
    return;
  case SJ_E_CAST:
    if (!is_int(e->type) || !is_int(e->args[0]->type)) break;
    check_extent(p, e->args[0]);
    return;
  default:
    break;
  }
  fail(p, UNSUP, e->loc,
       "an array extent may only use int or long parameters, integer constants and + - * /");
}

static sj_sym *param(parser *p, int index) {
  spec s;
  sj_token name;
  vec ext = {0};
  psym *x;
  if (kind(p) == SJ_T_ELLIPSIS)
    fail(p, UNSUP, peek(p, 0)->loc, "variadic functions are not supported");
  s = specifiers(p);
  if (s.is_static || s.is_inline || s.is_typedef)
    fail(p, SYNTAX, s.loc, "storage class in a parameter");
  if (s.type == SJ_TY_VOID) fail(p, SYNTAX, s.loc, "parameter of type void");
  /* `float *A`, `float *restrict A`, `float (*A)[M]`: an array whose first extent is open */
  int paren = kind(p) == '(' && peek(p, 1)->kind == '*', pointer = paren || kind(p) == '*';
  if (pointer) {
    sj_loc star = peek(p, paren)->loc;
    next(p);
    if (paren) next(p);
    while (kind(p) == SJ_K_RESTRICT || kind(p) == SJ_K_CONST || kind(p) == SJ_K_VOLATILE) next(p);
    if (kind(p) == '*' || kind(p) == '(')
      fail(p, UNSUP, star,
           "a pointer to a pointer or a function is not supported: declare an "
           "array (float *A or float A[][M])");
  }
  if (kind(p) != SJ_T_IDENT) found(p, "a parameter name");
  name = next(p);
  if (paren) expect(p, ')');
  if (pointer && !paren && kind(p) == '[')
    fail(p, UNSUP, peek(p, 0)->loc, "'%.*s' is an array of pointers: not supported",
         TOKTEXT(&name));
  if (pointer) push(p, &ext, NULL);
  sj_loc from = peek(p, 0)->loc;
  extents(p, "array parameter", &name, !pointer, &ext);
  if (ext.n) {
    x = declare(p, SJ_SYM_ARRAY, s.type, &name);
    set_extents(p, x, &ext);
    x->brackets = ext.n - pointer;
    x->ext_from = from;
    x->ext_to = peek(p, 0)->loc;
  } else {
    if (!iter_type(s.type) && !sj_type_is_float(s.type))
      fail(p, UNSUP, s.loc,
           "scalar parameter '%.*s' has type '%s': scalar parameters must be int, long, their "
           "unsigned forms (size_t), float or double (arrays may have any of the types)",
           TOKTEXT(&name), s.is_bool ? "_Bool" : sj_type_name(s.type));
    x = declare(p, iter_type(s.type) ? SJ_SYM_SHAPE : SJ_SYM_SCALAR, s.type, &name);
  }
  x->s.is_const = s.is_const;
  x->s.is_bool = s.is_bool;
  x->s.param = index;
  return &x->s;
}

static void params(parser *p, sj_func *f) {
  vec v = {0};
  int i;
  expect(p, '(');
  if (kind(p) == SJ_K_VOID && peek(p, 1)->kind == ')')
    next(p);
  else if (kind(p) != ')')
    do push(p, &v, param(p, v.n));
    while (accept(p, ','));
  expect(p, ')');
  f->nparams = v.n;
  f->params = v.n ? alloc(p, (size_t)v.n * sizeof *f->params) : NULL;
  for (i = 0; i < v.n; i++) f->params[i] = v.v[i];
}

static void number(parser *p, sj_func *f) {
  int count[SJ_SYM_LOCAL + 1] = {0}, i;
  for (i = 0; i < p->syms.n; i++) {
    psym *x = p->syms.v[i];
    if (x->role != PLACEHOLDER && !x->table) x->s.id = count[x->s.kind]++;
  }
  f->narrays = count[SJ_SYM_ARRAY];
  f->niters = count[SJ_SYM_ITER];
  f->nlocals = count[SJ_SYM_LOCAL];
}

/* --- calls of the source's void functions: the callee's body in place of each call --- */

static int is_rows(const sj_expr *e) {
  return e->kind == SJ_E_INDEX && e->implicit;
}

/* Fails where an array is passed inside an argument rather than as the argument. */
static void no_rows(parser *p, const sj_expr *e) {
  if (is_rows(e))
    fail(p, UNSUP, e->loc, "array '%s' has %d dimension%s, %d ind%s given", e->sym->name,
         e->sym->rank, e->sym->rank == 1 ? "" : "s", e->nargs, e->nargs == 1 ? "ex" : "ices");
  for (int i = 0; i < e->nargs; i++) no_rows(p, e->args[i]);
}

static int reads_array(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_array(e->args[i])) return 1;
  return 0;
}

static int writes(const sj_stmt *st, const sj_sym *a) {
  if (!st) return 0;
  if (st->kind == SJ_S_ASSIGN && st->lhs->sym == a) return 1;
  for (int i = 0; i < st->nbody; i++)
    if (writes(st->body[i], a)) return 1;
  return 0;
}

static pfunc *defined(parser *p, const char *name) {
  for (int i = 0; i < p->pfuncs.n; i++)
    if (!strcmp(((pfunc *)p->pfuncs.v[i])->f->name, name)) return p->pfuncs.v[i];
  return NULL;
}

/* --- functions that return a value computed with loops: parsed as void functions whose last
 * parameter, an array of one element, each `return e;` sets (result_return()); a call in an
 * expression is a call statement before the statement that holds it, passing a local array
 * of one element, and a read of that element. C evaluates the call there once, before the
 * rest of the statement, unless it is an operand of ?:, && or ||, or in a loop's header: such
 * calls are refused. --- */

static int named(const sj_func *f, const sj_token *name) {
  return !strncmp(f->name, name->text, name->len) && !f->name[name->len];
}

/* The function returning a value with loops that name names (or its prototype: the
 * definition may come after a call, as it may have loops), or NULL. */
static const sj_func *loop_helper(parser *p, const sj_token *name) {
  for (int i = 0; i < p->pfuncs.n; i++) {
    const pfunc *pf = p->pfuncs.v[i];
    if (pf->value && named(pf->f, name)) return pf->f;
  }
  for (int i = 0; i < p->value_protos.n; i++)
    if (named(p->value_protos.v[i], name)) return p->value_protos.v[i];
  return NULL;
}

static int assignment_op(int k) {
  return k == '=' || (k >= SJ_T_ADDEQ && k <= SJ_T_XOREQ) || k == SJ_T_SHLEQ || k == SJ_T_SHREQ ||
         k == SJ_T_INC || k == SJ_T_DEC;
}

/* Whether token i of toks begins a write to memory: `A[..] =` (or op=, ++, --), `*p =`,
 * `++A[..]`, or a call of memcpy, memmove or memset. */
static int writes_memory(const vec *toks, int i) {
  const sj_token *t = toks->v[i], *u = i + 1 < toks->n ? toks->v[i + 1] : NULL;
  if (t->kind == ']' && u) return assignment_op(u->kind);
  if (t->kind == SJ_T_IDENT)
    return (t->len == 6 && (!memcmp(t->text, "memcpy", 6) || !memcmp(t->text, "memset", 6))) ||
           (t->len == 7 && !memcmp(t->text, "memmove", 7));
  if (t->kind != '*' || !u || u->kind != SJ_T_IDENT || i + 2 >= toks->n) return 0;
  int before = i ? ((const sj_token *)toks->v[i - 1])->kind : ';';
  return (before == ';' || before == '{' || before == '}' || before == ')' ||
          before == SJ_K_ELSE) &&
         assignment_op(((const sj_token *)toks->v[i + 2])->kind);
}

/* Whether the function name, whose parameter list comes next, needs statements for its
 * value: a loop, a write to memory (an expression has no side effects), a call of a function
 * that needs them, or a prototype of one. Its tokens are read ahead, then given back. */
static int needs_statements(parser *p, const sj_token *name) {
  if (loop_helper(p, name)) return 1; /* a prototype's definition (or a redefinition) */
  vec toks = {0};
  int loops = !read_ahead(p, &toks) || read_has(&toks, 0, SJ_K_FOR, SJ_K_WHILE, SJ_K_DO);
  for (int i = 0; i < toks.n && !loops; i++)
    loops = (((sj_token *)toks.v[i])->kind == SJ_T_IDENT && loop_helper(p, toks.v[i])) ||
            writes_memory(&toks, i);
  give_back(p, &toks);
  return loops;
}

/* The parameter a function returning t with loops sets its value in: the last of f's. */
static void result_parameter(parser *p, sj_func *f, sj_type t) {
  sj_token name = {.kind = SJ_T_IDENT, .text = "return", .len = 6, .loc = f->loc};
  p->result = declare(p, SJ_SYM_ARRAY, t, &name);
  one_element(p, p->result, f->loc);
  p->result->s.param = f->nparams;
  sj_sym **params = alloc(p, (size_t)(f->nparams + 1) * sizeof *params);
  for (int i = 0; i < f->nparams; i++) params[i] = f->params[i];
  params[f->nparams++] = &p->result->s;
  f->params = params;
}

/* A call of g, a function returning a value with loops, in an expression: the read of a
 * local array's one element, which the call (put before the statement) sets. */
static sj_expr *hoisted_call(parser *p, const sj_func *g, const sj_token *name) {
  if (p->no_hoist)
    fail(p, UNSUP, name->loc,
         "'%s' computes its value with loops: a call of it is supported where C evaluates it "
         "once per statement, not in %s",
         g->name, p->no_hoist);
  vec args = {0};
  call_args(p, &args);
  const sj_sym *r = g->params[g->nparams - 1];
  if (args.n != g->nparams - 1)
    fail(p, SYNTAX, name->loc, "function '%s' takes %d argument%s, %d given", g->name,
         g->nparams - 1, g->nparams == 2 ? "" : "s", args.n);
  psym *x = alloc(p, sizeof *x);
  x->s = (sj_sym){
      .kind = SJ_SYM_LOCAL, .type = r->type, .name = g->name, .loc = name->loc, .param = -1};
  x->use = name->loc;
  one_element(p, x, name->loc);
  push(p, &p->syms, x);
  sj_stmt *d = stmt(p, SJ_S_DECL, name->loc);
  d->sym = &x->s;
  push(p, &p->hoisted, d);
  sj_expr *slot = node(p, SJ_E_INDEX, r->type, name->loc, 0, NULL);
  slot->sym = &x->s;
  slot->implicit = 1;
  push(p, &args, slot);
  push(p, &p->hoisted, call_placeholder(p, g->name, &args, name->loc));
  return first_element(p, x, name->loc);
}

/* `f(args);` calling g, a function that computes its value with statements, for what else it
 * does: the value goes to a local of its own that nothing reads. */
static void dropped_call(parser *p, const sj_func *g) {
  sj_token name = next(p);
  hoisted_call(p, g, &name);
  if (kind(p) != ';')
    fail(p, UNSUP, name.loc,
         "a statement must assign to an array element or a local variable, or call a function "
         "(expression statements are not supported)");
  next(p);
}

/* The brackets of an array parameter q, declared as x (q itself or its prototype's), with the
 * extents one call gives them: TinyCC takes no variably modified parameter, so the reference
 * writes them as constants (jit/reference.c). */
static void call_brackets(parser *p, vec *into, const psym *x, const sj_sym *q, symmap *m) {
  int literal = 1, first = q->rank - x->brackets;
  if (first < 0) return; /* a prototype of another shape: C's compiler says so */
  for (int d = first; d < q->rank; d++)
    literal &= !q->extents[d] || q->extents[d]->kind == SJ_E_INT;
  if (literal) return;
  sj_vm_type *vm = alloc(p, sizeof *vm);
  *vm = (sj_vm_type){x->ext_from, x->ext_to, x->brackets, NULL};
  vm->extents = alloc(p, (size_t)vm->n * sizeof *vm->extents);
  for (int d = 0; d < vm->n; d++) vm->extents[d] = clone_expr(p, q->extents[first + d], m);
  push(p, into, vm);
}

/* The variably modified types a call of g brings to the caller (into): the brackets of g's
 * array parameters (and of its prototypes'), and g's own and those of the functions g calls,
 * their extents over the caller's names. */
static void call_vm(parser *p, const sj_func *g, symmap *m, vec *into) {
  for (int i = 0; i < g->nparams; i++) {
    if (g->params[i]->kind != SJ_SYM_ARRAY) continue;
    call_brackets(p, into, (psym *)g->params[i], g->params[i], m);
    for (int k = 0; k < p->protos.n; k++) {
      const sj_func *proto = p->protos.v[k];
      if (!strcmp(proto->name, g->name) && proto->nparams == g->nparams &&
          proto->params[i]->kind == SJ_SYM_ARRAY)
        call_brackets(p, into, (psym *)proto->params[i], g->params[i], m);
    }
  }
  for (int i = 0; i < g->nvm; i++) {
    sj_vm_type *vm = alloc(p, sizeof *vm);
    *vm = g->vm[i];
    vm->extents = alloc(p, (size_t)vm->n * sizeof *vm->extents);
    for (int d = 0; d < vm->n; d++) vm->extents[d] = clone_expr(p, g->vm[i].extents[d], m);
    push(p, into, vm);
  }
}

/* What argument a passes for the array parameter q of g: an array of the same element type,
 * rank and inner extents (or rows of one). */
static void check_array_arg(parser *p, const sj_func *g, const sj_sym *q, const sj_expr *a,
                            symmap *m) {
  if (!is_rows(a))
    fail(p, UNSUP, a->loc,
         "parameter '%s' of '%s' is an array: pass an array, or rows of one (A[t %% 2])", q->name,
         g->name);
  const sj_sym *arr = a->sym;
  int skip = a->nargs - (a->op == '&');
  if (arr->rank - skip != q->rank)
    fail(p, UNSUP, a->loc, "'%s' passes %d dimension%s where parameter '%s' of '%s' has %d",
         arr->name, arr->rank - skip, arr->rank - skip == 1 ? "" : "s", q->name, g->name, q->rank);
  if (arr->type != q->type)
    fail(p, SYNTAX, a->loc, "'%s' has elements of type '%s', parameter '%s' of '%s' of type '%s'",
         arr->name, sj_type_name(arr->type), q->name, g->name, sj_type_name(q->type));
  if (arr->is_const && writes(g->body, q))
    fail(p, SYNTAX, a->loc, "'%s' writes its parameter '%s', but '%s' is const", g->name, q->name,
         arr->name);
  for (int d = 1; d < q->rank; d++)
    if (!sj_expr_same(clone_expr(p, q->extents[d], m), arr->extents[skip + d]))
      fail(p, UNSUP, a->loc,
           "dimension %d of parameter '%s' of '%s' is not the extent '%s' has there: pass "
           "arrays of the shape the function declares",
           d + 1, q->name, g->name, arr->name);
}

/* Binds args, the arguments of a call of g, into b: the scalars converted to their
 * parameters' types, the arrays checked. With out, a scalar argument that reads an array goes
 * into a local declared there first (a statement's call: the body may write that element; an
 * expression's call writes nothing). */
static void bind_args(parser *p, const sj_func *g, sj_expr **args, binding *b, symmap *m,
                      vec *out) {
  *b = (binding){g, alloc(p, (size_t)(g->nparams + 1) * sizeof(sj_expr *)),
                 alloc(p, (size_t)(g->nparams + 1) * sizeof(sj_expr *))};
  for (int i = 0; i < g->nparams; i++) {
    const sj_sym *q = g->params[i];
    sj_expr *a = args[i];
    if (q->kind == SJ_SYM_ARRAY) continue;
    if (is_rows(a))
      fail(p, UNSUP, a->loc, "'%s' is an array, but parameter '%s' of '%s' is a scalar",
           a->sym->name, q->name, g->name);
    no_rows(p, a);
    a = conv_to(p, a, q->type, q->is_bool);
    if (out && reads_array(a)) {
      psym *x = alloc(p, sizeof *x);
      x->s = (sj_sym){.kind = SJ_SYM_LOCAL,
                      .type = q->type,
                      .name = q->name,
                      .loc = a->loc,
                      .param = -1,
                      .is_const = 1};
      x->use = a->loc;
      push(p, &p->syms, x);
      sj_stmt *d = stmt(p, SJ_S_DECL, a->loc);
      d->sym = &x->s;
      d->rhs = a;
      push(p, out, d);
      a = node(p, SJ_E_VAR, q->type, a->loc, 0, NULL);
      a->sym = &x->s;
    }
    b->scalar[i] = a;
  }
  for (int i = 0; i < g->nparams; i++)
    if (g->params[i]->kind == SJ_SYM_ARRAY) {
      check_array_arg(p, g, g->params[i], args[i], m);
      b->array[i] = args[i];
    }
}

static void inline_into(parser *p, pfunc *pf);

/* The statements of g's body for the call c (an argument that reads an array first into a
 * local, as C reads it once, before the body writes anything). */
static void inline_call(parser *p, pfunc *caller, const sj_expr *c, vec *out) {
  const char *name = p->call_names.v[c->ival];
  pfunc *pg = defined(p, name);
  const sj_failure *gone = refused(p, name, strlen(name));
  if (gone && (!pg || pg->state == 3)) reraise(p, gone);
  if (!pg)
    fail(p, UNSUP, c->loc,
         "call to '%s' is not supported: the source defines no function '%s' (the source's "
         "void functions are inlined where they are called)",
         name, name);
  if (pg->state == 1) fail(p, UNSUP, c->loc, "recursive calls ('%s') are not supported", name);
  if (!pg->state) {
    vec syms = p->syms;
    inline_into(p, pg);
    p->syms = syms;
  }
  sj_func *g = pg->f;
  for (int i = 0; i < g->nasserts; i++) /* its checks of counts are not kept */
    if (!g->asserts[i].what)
      fail(p, UNSUP, c->loc,
           "'%s' asserts (at %d:%d): assert is supported in the body of the function called "
           "through the API only",
           g->name, g->asserts[i].loc.line, g->asserts[i].loc.col);
  if (c->nargs != g->nparams)
    fail(p, SYNTAX, c->loc, "function '%s' takes %d argument%s, %d given", g->name, g->nparams,
         g->nparams == 1 ? "" : "s", c->nargs);
  binding b;
  symmap m = {.call = &b};
  bind_args(p, g, c->args, &b, &m, out);
  for (int i = 0; i < g->body->nbody; i++) push(p, out, clone_stmt(p, g->body->body[i], &m));
  call_vm(p, g, &m, &caller->vm);
  int known = 0;
  for (int i = 0; i < caller->callees.n; i++) known |= caller->callees.v[i] == g;
  if (!known) push(p, &caller->callees, g);
  g->called = 1;
  caller->f->calls |= g->calls;
}

/* st's statements with each call placeholder replaced by the callee's body: spliced into a
 * block, as a block where the call is a loop's or an if's whole body. */
static void expand(parser *p, pfunc *pf, sj_stmt *st) {
  vec body = {0};
  for (int i = 0; i < st->nbody; i++) {
    sj_stmt *b = st->body[i];
    if (b && b->kind == SJ_S_BLOCK && b->rhs) {
      vec v = {0};
      inline_call(p, pf, b->rhs, &v);
      if (st->kind == SJ_S_BLOCK) {
        for (int j = 0; j < v.n; j++) push(p, &body, v.v[j]);
        continue;
      }
      b->rhs = NULL;
      b->nbody = v.n;
      b->body = (sj_stmt **)v.v;
    } else if (b) {
      expand(p, pf, b);
    }
    push(p, &body, b);
  }
  if (st->kind != SJ_S_BLOCK) return;
  st->nbody = body.n;
  st->body = (sj_stmt **)body.v;
}

static void inline_into(parser *p, pfunc *pf) {
  sj_func *f = pf->f;
  pf->state = 1;
  p->syms = pf->syms;
  expand(p, pf, f->body);
  pf->syms = p->syms;
  number(p, f);
  if (pf->vm.n) {
    sj_vm_type *all = alloc(p, (size_t)(f->nvm + pf->vm.n) * sizeof *all);
    for (int i = 0; i < f->nvm; i++) all[i] = f->vm[i];
    for (int i = 0; i < pf->vm.n; i++) all[f->nvm + i] = *(sj_vm_type *)pf->vm.v[i];
    f->vm = all;
    f->nvm += pf->vm.n;
  }
  f->ncallees = pf->callees.n;
  f->callees = (sj_func **)pf->callees.v;
  pf->state = 2;
}

/* A helper's body as one expression, parsed statement by statement. Its variables (parameters
 * and locals) hold values: an assignment replaces the variable's value (psym.value) by an
 * expression over the parameters, so each later use reads a copy of what C would read there.
 * A return under a path condition (the tests of the `if`s around it) is kept as a pair; the
 * pairs nest as ?: in the order of the text, so that each value and test is evaluated only
 * where C evaluates it. */
typedef struct hbody {
  const helper *h;
  sj_type type; /* the helper's return type */
  int boolean;  /* declared _Bool */
  vec vars;     /* psym *: the parameters, then the locals in scope */
  vec conds;    /* sj_expr *: the path condition of each return (NULL: none) */
  vec values;   /* sj_expr *: the value each returns, converted to type */
  sj_loc close; /* of the last block's closing brace */
} hbody;

static int helper_statement(parser *p, hbody *b, const sj_expr *pc);

/* The condition pc && c, c where there is no pc. */
static sj_expr *path_and(parser *p, const sj_expr *pc, const sj_expr *c, sj_loc loc) {
  return pc ? binop(p, SJ_OP_AND, copy(p, pc), copy(p, c), loc) : copy(p, c);
}

/* The variable x of the helper a statement assigns (x = e, x op= e, x++, ++x). */
static psym *helper_target(parser *p, hbody *b, const sj_token *name) {
  psym *x = lookup(p, name->text, name->len);
  int i = 0;
  while (i < b->vars.n && b->vars.v[i] != x) i++;
  if (!x || i == b->vars.n)
    fail(p, UNSUP, name->loc,
         "function '%s' returns a value: it may assign only its own scalar parameters and "
         "locals",
         b->h->name);
  if (x->s.is_const) fail(p, SYNTAX, name->loc, "assignment to const variable '%s'", x->s.name);
  return x;
}

/* A use of x whose value is v: a copy of v, or the parameter x itself before an assignment. */
static sj_expr *value_or_self(parser *p, psym *x, const sj_expr *v, sj_loc loc) {
  if (!v) return var_ref(p, &x->s, loc);
  sj_expr *e = copy(p, v);
  e->loc = loc;
  return e;
}

/* The value of x where it is read: its last assignment's. */
static sj_expr *helper_value(parser *p, psym *x, sj_loc loc) {
  if (x->unset) fail(p, UNSUP, loc, "'%s' is read before it is assigned", x->s.name);
  return value_or_self(p, x, x->value, loc);
}

static void helper_assignment(parser *p, hbody *b) {
  sj_token pre = *peek(p, 0);
  int prefix = pre.kind == SJ_T_INC || pre.kind == SJ_T_DEC;
  if (prefix) next(p);
  if (kind(p) != SJ_T_IDENT) found(p, "a variable to assign");
  sj_token name = next(p);
  psym *x = helper_target(p, b, &name);
  sj_token op = prefix ? pre : next(p);
  sj_expr *e;
  if (op.kind == SJ_T_INC || op.kind == SJ_T_DEC)
    e = binop(p, op.kind == SJ_T_INC ? SJ_OP_ADD : SJ_OP_SUB, helper_value(p, x, name.loc),
              int_lit(p, SJ_TY_INT, 1, op.loc), op.loc);
  else if (op.kind == '=')
    e = expr(p);
  else if (compound_op(op.kind) >= 0)
    e = binop(p, (sj_binop)compound_op(op.kind), helper_value(p, x, name.loc), expr(p), op.loc);
  else
    found(p, "an assignment");
  expect(p, ';');
  x->value = conv_to(p, e, x->s.type, x->s.is_bool);
  x->unset = 0;
}

/* `float y = e, z;`: a local without an initializer has no value until assigned. */
static void helper_locals(parser *p, hbody *b) {
  spec s = specifiers(p);
  if (s.is_static || s.is_typedef || s.type == SJ_TY_VOID) found(p, "a local of a scalar type");
  do {
    no_pointer(p);
    if (kind(p) != SJ_T_IDENT) found(p, "a local's name");
    sj_token name = next(p);
    sj_expr *e = accept(p, '=') ? conv_to(p, expr(p), s.type, s.is_bool) : NULL;
    if (!e && s.is_const)
      fail(p, SYNTAX, name.loc, "const local '%.*s' needs an initializer", TOKTEXT(&name));
    psym *x = declare(p, SJ_SYM_LOCAL, s.type, &name);
    x->s.is_const = s.is_const;
    x->s.is_bool = s.is_bool;
    x->value = e;
    x->unset = !e;
    push(p, &b->vars, x);
  } while (accept(p, ','));
  expect(p, ';');
}

/* `{ ... }`: whether it returns on every path. Nothing may follow a return in it. */
static int helper_block(parser *p, hbody *b, const sj_expr *pc) {
  int n = b->vars.n, returned = 0;
  expect(p, '{');
  open_scope(p);
  while (kind(p) != '}') {
    if (returned)
      fail(p, UNSUP, peek(p, 0)->loc, "function '%s': nothing may follow a return in its block",
           b->h->name);
    returned = helper_statement(p, b, pc);
  }
  b->close = next(p).loc;
  close_scope(p);
  b->vars.n = n;
  return returned;
}

/* The values of the first n variables, to save them or to set them back. */
typedef struct hvalues {
  const sj_expr **value;
  int *unset;
} hvalues;

static hvalues helper_save(parser *p, const hbody *b, int n) {
  hvalues v = {alloc(p, (size_t)(n + 1) * sizeof *v.value),
               alloc(p, (size_t)(n + 1) * sizeof *v.unset)};
  for (int i = 0; i < n; i++) {
    const psym *x = b->vars.v[i];
    v.value[i] = x->value;
    v.unset[i] = x->unset;
  }
  return v;
}

static void helper_restore(hbody *b, int n, hvalues v) {
  b->vars.n = n;
  for (int i = 0; i < n; i++) {
    psym *x = b->vars.v[i];
    x->value = v.value[i];
    x->unset = v.unset[i];
  }
}

/* `if (c) S else S`: each branch from the values before it; after it, a variable the branches
 * leave different is c ? then : else, unless a branch returned (then the other's values hold:
 * only its path goes on) or left it without a value (C may read it only after the other).
 * Whether both branches return. */
static int helper_if(parser *p, hbody *b, const sj_expr *pc) {
  sj_token kw = next(p);
  expect(p, '(');
  sj_expr *c = truth(p, expr(p));
  expect(p, ')');
  int n = b->vars.n;
  hvalues before = helper_save(p, b, n);
  int then_returns = helper_statement(p, b, path_and(p, pc, c, kw.loc));
  hvalues then = helper_save(p, b, n);
  helper_restore(b, n, before);
  int else_returns = 0;
  if (accept(p, SJ_K_ELSE)) {
    sj_expr *not_c = node1(p, SJ_E_UNARY, SJ_TY_INT, kw.loc, copy(p, c));
    not_c->op = '!';
    else_returns = helper_statement(p, b, path_and(p, pc, not_c, kw.loc));
    b->vars.n = n;
  }
  if (then_returns) return else_returns;
  if (else_returns) {
    helper_restore(b, n, then);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    psym *x = b->vars.v[i];
    if (then.unset[i] || (x->value == then.value[i] && !x->unset)) continue;
    if (x->unset) {
      x->value = then.value[i];
      x->unset = 0;
      continue;
    }
    sj_expr *args[] = {copy(p, c), value_or_self(p, x, then.value[i], kw.loc),
                       value_or_self(p, x, x->value, kw.loc)};
    x->value = node(p, SJ_E_COND, x->s.type, kw.loc, 3, args);
  }
  return 0;
}

/* `return e;` under the path condition pc. */
static void helper_return(parser *p, hbody *b, const sj_expr *pc) {
  expect(p, SJ_K_RETURN);
  push(p, &b->conds, pc ? copy(p, pc) : NULL);
  push(p, &b->values, conv_to(p, expr(p), b->type, b->boolean));
  expect(p, ';');
}

/* One statement of a helper's body under the path condition pc: whether it returns on every
 * path. */
static int helper_statement_kind(parser *p, hbody *b, const sj_expr *pc) {
  sj_token *at = peek(p, 0);
  if (starts_type(p, 0)) {
    helper_locals(p, b);
    return 0;
  }
  switch (at->kind) {
  case '{':
    return helper_block(p, b, pc);
  case ';':
    next(p);
    return 0;
  case SJ_K_IF:
    return helper_if(p, b, pc);
  case SJ_K_RETURN:
    helper_return(p, b, pc);
    return 1;
  case SJ_T_IDENT:
  case SJ_T_INC:
  case SJ_T_DEC:
    helper_assignment(p, b);
    return 0;
  }
  fail(p, UNSUP, at->loc,
       "function '%s' returns '%s': its body may hold locals, assignments to them and to its "
       "parameters, 'if' and 'else', loops, writes to arrays and returns",
       b->h->name, sj_type_name(b->type));
}

static int helper_statement(parser *p, hbody *b, const sj_expr *pc) {
  enter(p, peek(p, 0)->loc); /* blocks and ifs nest: bounded as the kernel's statements are */
  int returns = helper_statement_kind(p, b, pc);
  p->nest--;
  return returns;
}

/* The body of helper h (returning t, declared _Bool where boolean is set), its parameters
 * declared, as one expression. */
static sj_expr *helper_body(parser *p, const helper *h, sj_type t, int boolean) {
  hbody b = {.h = h, .type = t, .boolean = boolean};
  for (psym *x = p->scope; x && x->depth == p->depth; x = x->outer)
    if (!x->s.rank) push(p, &b.vars, x);
  if (!helper_block(p, &b, NULL))
    fail(p, UNSUP, b.close, "function '%s' returns '%s' but may reach its end without a return",
         h->name, sj_type_name(t));
  sj_expr *value = b.values.v[b.values.n - 1];
  for (int i = b.values.n - 2; i >= 0; i--) {
    sj_expr *args[] = {b.conds.v[i], b.values.v[i], value};
    value = node(p, SJ_E_COND, t, ((sj_expr *)b.values.v[i])->loc, 3, args);
  }
  return value;
}

/* The rest of a function that returns a value, from its parameters: a body helper_body()
 * reads, with scalar parameters, kept as a helper for the calls that follow. */
static void helper_function(parser *p, spec s, const sj_token *name) {
  helper *h = alloc(p, sizeof *h);
  h->f = alloc(p, sizeof *h->f);
  h->name = sj_arena_strndup(p->a, name->text, name->len);
  for (int i = 0; i < p->helpers.n; i++)
    if (!strcmp(((helper *)p->helpers.v[i])->name, h->name))
      fail(p, SYNTAX, name->loc, "redefinition of function '%s'", h->name);
  p->calls = 0;
  vec vm = p->vm; /* a helper's own: those of the helpers it calls */
  memset(&p->vm, 0, sizeof p->vm);
  open_scope(p);
  params(p, h->f);
  h->value = helper_body(p, h, s.type, s.is_bool);
  close_scope(p);
  h->calls = p->calls;
  h->f->name = h->name;
  h->f->nvm = p->vm.n;
  h->f->vm = alloc(p, (size_t)(p->vm.n + 1) * sizeof *h->f->vm);
  for (int i = 0; i < p->vm.n; i++) h->f->vm[i] = *(sj_vm_type *)p->vm.v[i];
  p->vm = vm;
  push(p, &p->helpers, h);
}

/* Whether e is a constant expression of literals and operators (what a file-scope constant's
 * initializer may be). */
static int is_constant(const sj_expr *e) {
  if (e->kind == SJ_E_VAR || e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!is_constant(e->args[i])) return 0;
  return 1;
}

/* `const T name = e, ...;` at file scope, after the first name: named constants, each use
 * replaced by its value (converted to T once, as the initialization does). */
static void file_constants(parser *p, const spec *s, sj_token name) {
  for (;;) {
    vec ext = {0};
    extents(p, "file-scope array", &name, 1, &ext);
    if (kind(p) != '=' || (ext.n && peek(p, 1)->kind != '{'))
      fail(p, UNSUP, name.loc, "file-scope constant '%.*s' needs an initializer%s", TOKTEXT(&name),
           ext.n ? " list" : "");
    next(p);
    p->file_init = 1;
    if (ext.n) {
      psym *x = declare(p, SJ_SYM_LOCAL, s->type, &name);
      table(p, x, &ext, name.loc);
      p->file_init = 0;
      if (!accept(p, ',')) break;
      if (kind(p) != SJ_T_IDENT) found(p, "a constant's name");
      name = next(p);
      continue;
    }
    sj_expr *e = conditional(p);
    p->file_init = 0;
    if (!is_constant(e))
      fail(p, UNSUP, e->loc,
           "the initializer of '%.*s' must be a constant expression (literals and operators)",
           TOKTEXT(&name));
    psym *x = declare(p, SJ_SYM_LOCAL, s->type, &name);
    x->s.is_const = 1;
    x->value = conv(p, e, s->type);
    if (!accept(p, ',')) break;
    if (kind(p) != SJ_T_IDENT) found(p, "a constant's name");
    name = next(p);
  }
  expect(p, ';');
}

/* st without the places set aside for iterators' values after their loops that no use filled
 * (still empty), in its blocks; a block that held one beside its one statement is that
 * statement, as statement() would have made it. */
static sj_stmt *drop_unread(parser *p, sj_stmt *st) {
  int n = 0;
  for (int i = 0; i < st->nbody; i++) {
    sj_stmt *b = st->body[i];
    int unread = 0;
    for (int k = 0; k < p->unread.n && b && st->kind == SJ_S_BLOCK && !unread; k++)
      unread = b == p->unread.v[k] && b->kind == SJ_S_BLOCK && !b->nbody;
    if (!unread) st->body[n++] = b ? drop_unread(p, b) : b;
  }
  int dropped = n < st->nbody;
  st->nbody = n;
  return dropped && n == 1 ? st->body[0] : st;
}

/* A kernel, or NULL for a helper (a function that returns a value). */
static sj_func *function(parser *p, spec s) {
  sj_func *f;
  sj_token name;
  no_pointer(p);
  if (kind(p) != SJ_T_IDENT) found(p, "a function name");
  name = next(p);
  if (kind(p) != '(' && s.is_const && s.type != SJ_TY_VOID) {
    file_constants(p, &s, name);
    return NULL;
  }
  if (kind(p) != '(')
    fail(p, UNSUP, name.loc,
         "global variable '%.*s' is not supported; pass it as a parameter (or declare it const "
         "with an initializer)",
         TOKTEXT(&name));
  if (s.type != SJ_TY_VOID && !needs_statements(p, &name)) {
    helper_function(p, s, &name);
    return NULL;
  }
  f = alloc(p, sizeof *f);
  f->name = sj_arena_strndup(p->a, name.text, name.len);
  f->loc = name.loc;
  if (s.type != SJ_TY_VOID &&
      (defined(p, f->name) || (value_function(p, &name) && !loop_helper(p, &name))))
    fail(p, SYNTAX, name.loc, "redefinition of function '%s'", f->name);
  memset(&p->syms, 0, sizeof p->syms);
  memset(&p->vm, 0, sizeof p->vm);
  p->calls = 0;
  open_scope(p);
  params(p, f);
  if (s.type != SJ_TY_VOID) result_parameter(p, f, s.type);
  if (p->result) p->result->s.is_bool = s.is_bool;
  if (accept(p, ';')) { /* a prototype: calls are inlined once every function is parsed */
    close_scope(p);
    push(p, p->result ? &p->value_protos : &p->protos, f);
    p->result = NULL;
    return NULL;
  }
  /* The outermost block shares the parameters' scope, as in C. */
  p->unread.n = 0;
  p->return_skip = NULL;
  p->asserts.n = 0;
  f->body = block(p, 0);
  f->nasserts = p->asserts.n;
  f->asserts = alloc(p, (size_t)(p->asserts.n + 1) * sizeof *f->asserts);
  for (int i = 0; i < p->asserts.n; i++) f->asserts[i] = *(sj_assert *)p->asserts.v[i];
  if (p->return_skip) f->body = skip_cleared(p, f->body, p->return_skip);
  p->return_pending = 0;
  if (p->result && !p->tail_return)
    fail(p, UNSUP, name.loc,
         "function '%s' returns '%s' and has loops: its body must end with a return", f->name,
         sj_type_name(s.type));
  p->result = NULL;
  drop_unread(p, f->body);
  if (p->continues.n) unguarded_continue(p);
  if (p->returns.n) unguarded_return(p, ((sj_stmt *)p->returns.v[0])->loc);
  stray_moves(p, NULL);
  resolve_pointers(f->body);
  f->nvm = p->vm.n;
  f->vm = alloc(p, (size_t)(p->vm.n + 1) * sizeof *f->vm);
  for (int i = 0; i < p->vm.n; i++) f->vm[i] = *(sj_vm_type *)p->vm.v[i];
  close_scope(p);
  number(p, f);
  f->calls = p->calls;
  pfunc *pf = alloc(p, sizeof *pf);
  pf->f = f;
  pf->syms = p->syms;
  pf->value = f->returns = s.type != SJ_TY_VOID;
  push(p, &p->pfuncs, pf);
  return f;
}

/* Skips the declaration that begins here (a function, its body included, or up to its ';'):
 * the name it declares (the last identifier before its first '(', '[', '=', ',' or ';' outside
 * braces: a struct's tag where it declares nothing else) into *name and *loc (NULL where there
 * is none). */
static void skip_declaration(parser *p, sj_failure *f) {
  int parens = 0, named = 0, to_semicolon = 0;
  f->from = f->to = peek(p, 0)->loc;
  for (;;) {
    sj_token t = *peek(p, 0);
    if (t.kind == SJ_T_EOF) return;
    next(p);
    f->to = t.loc;
    f->to.col += t.len;
    if (!parens && !named && t.kind == SJ_T_IDENT)
      f->name = sj_arena_strndup(p->a, t.text, t.len), f->loc = t.loc;
    else if (!parens &&
             (t.kind == '(' || t.kind == '[' || t.kind == '=' || t.kind == ',' || t.kind == ';'))
      named = 1;
    /* braces after `=` (an initializer) or in a struct, union or enum specifier end nothing */
    to_semicolon |= !parens && (t.kind == '=' || t.kind == SJ_K_STRUCT || t.kind == SJ_K_UNION ||
                                t.kind == SJ_K_ENUM);
    if (t.kind == '(' || t.kind == '[') parens++;
    if ((t.kind == ')' || t.kind == ']') && parens > 0) parens--;
    if (!parens && t.kind == ';') return;
    if (!parens && t.kind == '{') { /* a body, or an initializer list or a struct's members */
      for (int depth = 1; depth > 0 && kind(p) != SJ_T_EOF;) {
        sj_token b = next(p);
        depth += (b.kind == '{') - (b.kind == '}');
        f->to = b.loc;
        f->to.col += b.len;
      }
      if (!to_semicolon) return;
    }
  }
}

/* The parser as it is before a declaration, to go back to where it is refused: the pending
 * tokens of the preprocessor are copied, as reading on overwrites them. */
static void keep_state(parser *p) {
  *p->before = *p;
  sj_pp *pp = &p->before->pp;
  if (pp->npending) {
    sj_token *copy = alloc(p, (size_t)pp->cappending * sizeof *copy);
    memcpy(copy, pp->pending, (size_t)pp->npending * sizeof *copy);
    pp->pending = copy;
  }
}

/* A refusal in the current phase, err filled: 0 where the parse goes on, -1 where it ends. */
static int recover(parser *p) {
  sj_failure *f = alloc(p, sizeof *f);
  f->err = *p->err;
  if (p->phase == PARSING) {
    parser *before = p->before;
    *p = *before;
    p->before = before;
    p->phase = SKIPPING;
    skip_declaration(p, f);
    p->phase = PARSING;
  } else if (p->phase == INLINING) { /* the functions being inlined reach the refusal */
    for (int i = 0; i < p->pfuncs.n; i++) {
      pfunc *pf = p->pfuncs.v[i];
      if (pf->state != 1) continue;
      pf->state = 3;
      sj_failure *g = f->name ? alloc(p, sizeof *g) : f;
      *g = (sj_failure){.name = pf->f->name, .loc = pf->f->loc, .err = f->err};
      push(p, &p->failed, g);
    }
    sj_error_set(p->err, 0, "%s", "");
    return 0;
  } else {
    return -1;
  }
  push(p, &p->failed, f);
  sj_error_set(p->err, 0, "%s", "");
  return 0;
}

/* The refusal that ends the parse for entry (NULL: a refused main() alone is left out). */
static const sj_failure *fatal_refusal(const parser *p, const char *entry) {
  for (int i = 0; i < p->failed.n; i++) {
    const sj_failure *f = p->failed.v[i];
    int named = f->name && !strcmp(f->name, entry ? entry : "main");
    if (!f->name || (entry ? named : !named)) return f;
  }
  return NULL;
}

sj_program *sj_parse(const char *source, const char *source_name, sj_error *err) {
  return sj_parse_for(source, source_name, NULL, err);
}

sj_program *sj_parse_for(const char *source, const char *source_name, const char *entry,
                         sj_error *err) {
  sj_arena *a;
  parser *p;
  sj_program *prog;
  sj_error none; /* where the caller keeps no error: refusals are recorded all the same */
  if (!source) {
    sj_error_set(err, JIT_ERR_ARGS, "no source text");
    return NULL;
  }
  a = sj_arena_new();
  p = sj_arena_alloc(a, sizeof *p);
  p->a = a;
  p->err = err ? err : &none;
  p->name = source_name;
  p->no_hoist = "this position"; /* statement_to() allows such calls in statements */
  p->before = sj_arena_alloc(a, sizeof *p->before);
  sj_pp_init(&p->pp, source, source_name, a, p->err);
  if (setjmp(p->fail) && recover(p)) {
    sj_arena_free(a);
    return NULL;
  }
  while (p->phase == PARSING) {
    keep_state(p);
    if (kind(p) == SJ_T_EOF) break;
    spec s = specifiers(p);
    if (s.is_typedef) {
      typedef_decl(p, &s);
      continue;
    }
    if (accept(p, ';')) continue; /* `enum { R = 2 };` declares its constants only */
    sj_func *f = function(p, s);
    if (!f) continue;
    for (int i = 0; i < p->funcs.n; i++)
      if (!strcmp(((sj_func *)p->funcs.v[i])->name, f->name))
        fail(p, SYNTAX, f->loc, "redefinition of function '%s'", f->name);
    push(p, &p->funcs, f);
  }
  if (!p->funcs.n && !p->failed.n) {
    p->phase = SKIPPING; /* a refusal now ends the parse */
    fail(p, SYNTAX, peek(p, 0)->loc, "the source defines no function");
  }
  /* a program's main() drives the kernel, unless it is the entry: it goes before its calls
   * would make the kernel a callee */
  for (int i = 0; i < p->pfuncs.n && (!entry || strcmp(entry, "main")); i++) {
    pfunc *pf = p->pfuncs.v[i];
    if (strcmp(pf->f->name, "main")) continue;
    pf->state = 3;
    sj_failure *f = alloc(p, sizeof *f);
    *f = (sj_failure){.name = pf->f->name, .loc = pf->f->loc};
    sj_error_at(&f->err, JIT_ERR_UNSUPPORTED, p->name, pf->f->loc,
                "'main' is the program's, not a kernel: name the entry, or define the kernel "
                "beside it");
    push(p, &p->failed, f);
  }
  p->phase = INLINING;
  while (p->next_inline < p->pfuncs.n) {
    pfunc *pf = p->pfuncs.v[p->next_inline++];
    if (!pf->state) inline_into(p, pf);
  }
  prog = alloc(p, sizeof *prog);
  prog->arena = a;
  prog->funcs = alloc(p, (size_t)p->funcs.n * sizeof *prog->funcs);
  for (int i = 0; i < p->pfuncs.n; i++) {
    const pfunc *pf = p->pfuncs.v[i];
    for (int k = 0; k < p->funcs.n; k++)
      if (p->funcs.v[k] == pf->f && pf->state != 3) prog->funcs[prog->nfuncs++] = pf->f;
  }
  const sj_failure *fatal = fatal_refusal(p, entry);
  if (fatal || !prog->nfuncs) {
    *p->err = (fatal ? fatal : (const sj_failure *)p->failed.v[0])->err;
    sj_arena_free(a);
    return NULL;
  }
  prog->nfailed = p->failed.n;
  prog->failed = (sj_failure **)p->failed.v;
  prog->npragmas = p->pp.lx.npragmas;
  prog->pragmas = p->pp.lx.pragmas;
  prog->nincludes = p->pp.lx.nincludes;
  prog->includes = p->pp.lx.includes;
  prog->stdint_used = p->stdint_used;
  prog->nprotos = p->protos.n;
  prog->protos = (sj_func **)p->protos.v;
  return prog;
}
