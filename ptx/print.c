/* The PTX target of the AST walk.
 *
 * Virtual registers are typed and never reused except for loop iterators and locals; the
 * driver's register allocator does the rest. Addresses are the array base plus the
 * variable part of the access's linear offset, computed once per statement instance and
 * shared by every access with the same variable part; the constant part is folded into
 * [reg+imm]. In exact mode every float operation carries its IEEE rounding (.rn), so the
 * kernel computes what the C function computes, bit for bit. */
#include "ptx/ptx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "jit/buf.h"

enum { PRED, B32, B64, F32, F64, NCLASS };
static const char *const reg_prefix[NCLASS] = {"%p", "%r", "%rd", "%f", "%fd"};
static const char *const reg_type[NCLASS] = {".pred", ".b32", ".b64", ".f32", ".f64"};

typedef struct opnd {
  char s[40]; /* a register or an immediate */
} opnd;

typedef struct memo {
  char key[96];
  opnd val;
} memo;

typedef struct ptx {
  const sj_model *m;
  int fast; /* fast math: contraction and approximate division */
  sj_buf out;  /* the module */
  sj_buf body; /* the current kernel's instructions */
  const char *kname;
  int nreg[NCLASS];
  int nlabel;
  int iter[256];      /* register of iterator c<d>, -1 if none */
  long iter_off[256]; /* its value is that register plus this constant (unrolled copies) */
  const sj_kernel_map *map;
  /* the unrolled mapped loop being printed (kernels map at most one: member 0) */
  int unroll_depth, unroll_full, unroll_partial, unroll_skip, unroll_end, unroll_memos;
  int *array_base; /* by array id */
  int *written;    /* by array id: stored to in this kernel */
  int *scalar;     /* by parameter position */
  int *local;      /* by local id */
  /* open loops and ifs */
  int loop_head[64], loop_end[64], loop_memos[64], nloops;
  /* addresses strength-reduced in the loop: pointer registers advanced at the latch */
  int reduced_reg[64][16];
  long reduced_step[64][16];
  int nreduced[64];
  int if_else[64], if_end[64], if_has_else[64], if_memos[64], nifs;
  /* the statement instance being printed */
  const sj_pstmt *stmt;
  int call_iter[32];
  isl_ast_expr *call; /* the instance's call: iterator values as expressions */
  memo *memos;
  int nmemos;
} ptx;

static void emit(ptx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(ptx *x, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  sj_buf_printf(&x->body, "\t%s;\n", line);
}

static int new_label(ptx *x) {
  return x->nlabel++;
}
static void place_label(ptx *x, int l) {
  sj_buf_printf(&x->body, "$L__%s_%d:\n", x->kname, l);
}

static int new_reg(ptx *x, int cls) {
  return ++x->nreg[cls];
}

static opnd reg_opnd(int cls, int n) {
  opnd o;
  snprintf(o.s, sizeof o.s, "%s%d", reg_prefix[cls], n);
  return o;
}

static opnd fresh(ptx *x, int cls) {
  return reg_opnd(cls, new_reg(x, cls));
}

static opnd imm(long v) {
  opnd o;
  snprintf(o.s, sizeof o.s, "%ld", v);
  return o;
}

static int is_imm(opnd o) {
  return o.s[0] != '%';
}

/* --- integer expressions of the isl AST: 64-bit --- */

static opnd iexpr(ptx *x, __isl_keep isl_ast_expr *e);
static opnd icond(ptx *x, __isl_keep isl_ast_expr *e);

static opnd iarg(ptx *x, __isl_keep isl_ast_expr *e, int i) {
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
  opnd o = iexpr(x, a);
  isl_ast_expr_free(a);
  return o;
}

static opnd in_reg64(ptx *x, opnd v) {
  if (!is_imm(v)) return v;
  opnd r = fresh(x, B64);
  emit(x, "mov.b64 %s, %s", r.s, v.s);
  return r;
}

static opnd binop64(ptx *x, const char *op, opnd a, opnd b) {
  int commutes =
      !strcmp(op, "add") || !strcmp(op, "mul.lo") || !strcmp(op, "min") || !strcmp(op, "max");
  if (is_imm(a) && commutes && !is_imm(b)) {
    opnd t = a;
    a = b, b = t;
  }
  a = in_reg64(x, a);
  opnd d = fresh(x, B64);
  emit(x, "%s.s64 %s, %s, %s", op, d.s, a.s, b.s);
  return d;
}

static opnd iexpr(ptx *x, __isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
    isl_val *v = isl_ast_expr_get_val(e);
    opnd o = imm(isl_val_get_num_si(v));
    isl_val_free(v);
    return o;
  }
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    int d = sj_ast_id_depth(e);
    if (!x->iter_off[d]) return reg_opnd(B64, x->iter[d]);
    return binop64(x, "add", reg_opnd(B64, x->iter[d]), imm(x->iter_off[d]));
  }
  opnd a, b, d;
  int n = isl_ast_expr_op_get_n_arg(e);
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_add:
    return binop64(x, "add", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_sub:
    return binop64(x, "sub", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_mul:
    return binop64(x, "mul.lo", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q:
    return binop64(x, "div", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    return binop64(x, "rem", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_minus:
    a = in_reg64(x, iarg(x, e, 0));
    d = fresh(x, B64);
    emit(x, "neg.s64 %s, %s", d.s, a.s);
    return d;
  case isl_ast_expr_op_fdiv_q: { /* floor division by a positive constant */
    a = iarg(x, e, 0);
    b = iarg(x, e, 1);
    d = binop64(x, "div", a, b);
    opnd r = binop64(x, "rem", a, b);
    opnd p = fresh(x, PRED);
    emit(x, "setp.lt.s64 %s, %s, 0", p.s, r.s);
    emit(x, "@%s sub.s64 %s, %s, 1", p.s, d.s, d.s);
    return d;
  }
  case isl_ast_expr_op_min:
  case isl_ast_expr_op_max: {
    const char *op = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_min ? "min" : "max";
    d = iarg(x, e, 0);
    for (int i = 1; i < n; i++) d = binop64(x, op, d, iarg(x, e, i));
    return d;
  }
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select: {
    isl_ast_expr *c = isl_ast_expr_op_get_arg(e, 0);
    opnd p = icond(x, c);
    isl_ast_expr_free(c);
    a = iarg(x, e, 1);
    b = iarg(x, e, 2);
    d = fresh(x, B64);
    emit(x, "selp.s64 %s, %s, %s, %s", d.s, a.s, b.s, p.s);
    return d;
  }
  default: { /* a comparison used as a value */
    opnd p = icond(x, e);
    d = fresh(x, B64);
    emit(x, "selp.s64 %s, 1, 0, %s", d.s, p.s);
    return d;
  }
  }
}

static opnd icond(ptx *x, __isl_keep isl_ast_expr *e) {
  opnd p = fresh(x, PRED);
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) {
    emit(x, "setp.ne.s64 %s, %s, 0", p.s, in_reg64(x, iexpr(x, e)).s);
    return p;
  }
  const char *cmp = NULL, *logic = NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_eq:
    cmp = "eq";
    break;
  case isl_ast_expr_op_le:
    cmp = "le";
    break;
  case isl_ast_expr_op_lt:
    cmp = "lt";
    break;
  case isl_ast_expr_op_ge:
    cmp = "ge";
    break;
  case isl_ast_expr_op_gt:
    cmp = "gt";
    break;
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    logic = "and";
    break;
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    logic = "or";
    break;
  default:
    break;
  }
  if (cmp) {
    opnd a = in_reg64(x, iarg(x, e, 0)), b = iarg(x, e, 1);
    emit(x, "setp.%s.s64 %s, %s, %s", cmp, p.s, a.s, b.s);
  } else if (logic) {
    isl_ast_expr *l = isl_ast_expr_op_get_arg(e, 0), *r = isl_ast_expr_op_get_arg(e, 1);
    opnd a = icond(x, l), b = icond(x, r);
    isl_ast_expr_free(l);
    isl_ast_expr_free(r);
    emit(x, "%s.pred %s, %s, %s", logic, p.s, a.s, b.s);
  } else {
    emit(x, "setp.ne.s64 %s, %s, 0", p.s, in_reg64(x, iexpr(x, e)).s);
  }
  return p;
}

/* --- the user's expressions --- */

static int cls_of(sj_type t) {
  switch (t) {
  case SJ_TY_INT:
    return B32;
  case SJ_TY_LONG:
    return B64;
  case SJ_TY_FLOAT:
    return F32;
  default:
    return F64;
  }
}

static const char *ty(sj_type t) {
  switch (t) {
  case SJ_TY_INT:
    return "s32";
  case SJ_TY_LONG:
    return "s64";
  case SJ_TY_FLOAT:
    return "f32";
  default:
    return "f64";
  }
}

static int size_of(sj_type t) {
  return t == SJ_TY_INT || t == SJ_TY_FLOAT ? 4 : 8;
}

static opnd uval(ptx *x, const sj_expr *e);

static int has_access(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (has_access(e->args[i])) return 1;
  return 0;
}

static opnd *find_memo(ptx *x, const char *key) {
  for (int i = 0; i < x->nmemos; i++)
    if (!strcmp(x->memos[i].key, key)) return &x->memos[i].val;
  return NULL;
}

static void add_memo(ptx *x, const char *key, opnd v) {
  x->memos = realloc(x->memos, (x->nmemos + 1) * sizeof *x->memos);
  snprintf(x->memos[x->nmemos].key, sizeof x->memos[x->nmemos].key, "%s", key);
  x->memos[x->nmemos++].val = v;
}

/* The value of the instance's k-th iterator, computed when first needed. */
static opnd iter_value(ptx *x, int k) {
  if (!x->call_iter[k]) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(x->call, k + 1);
    x->call_iter[k] = atoi(in_reg64(x, iexpr(x, a)).s + 3);
    isl_ast_expr_free(a);
  }
  return reg_opnd(B64, x->call_iter[k]);
}

/* Values computed on one path of a branch are not defined after it: a region remembers
 * what was known before it. */
typedef struct region {
  int nmemos;
  int call_iter[32];
} region;

static region enter(const ptx *x) {
  region r;
  r.nmemos = x->nmemos;
  memcpy(r.call_iter, x->call_iter, sizeof r.call_iter);
  return r;
}

static void leave(ptx *x, const region *r) {
  x->nmemos = r->nmemos;
  memcpy(x->call_iter, r->call_iter, sizeof r->call_iter);
}

/* An integer atom of an offset as a 64-bit value. */
static opnd atom64(ptx *x, const sj_expr *a) {
  for (int k = 0; a->kind == SJ_E_VAR && k < x->stmt->depth; k++)
    if (x->stmt->iters[k] == a->sym) return iter_value(x, k);
  char key[96];
  int keyed = sj_expr_key(a, key, sizeof key) > 0;
  if (keyed) {
    opnd *v = find_memo(x, key);
    if (v) return *v;
  }
  opnd v = uval(x, a);
  if (a->type == SJ_TY_INT) {
    opnd w = fresh(x, B64);
    emit(x, "cvt.s64.s32 %s, %s", w.s, v.s);
    v = w;
  }
  if (keyed) add_memo(x, key, v);
  return v;
}

typedef struct term {
  long coef;
  opnd reg;
} term;

static void add_term(term *t, int *n, long coef, opnd reg) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(t[i].reg.s, reg.s)) {
      t[i].coef += coef;
      return;
    }
  if (*n < 32) t[(*n)++] = (term){coef, reg};
}

/* coef * e as terms over registers plus a constant: loop iterators stay separate, so the
 * unrolled copies of an instance share their terms and differ only in the constant. */
static void expand(ptx *x, __isl_keep isl_ast_expr *e, long coef, term *t, int *n, long *c) {
  enum isl_ast_expr_type type = isl_ast_expr_get_type(e);
  if (type == isl_ast_expr_int) {
    isl_val *v = isl_ast_expr_get_val(e);
    *c += coef * isl_val_get_num_si(v);
    isl_val_free(v);
    return;
  }
  if (type == isl_ast_expr_id) { /* register + constant: copies share the register */
    int d = sj_ast_id_depth(e);
    *c += coef * x->iter_off[d];
    add_term(t, n, coef, reg_opnd(B64, x->iter[d]));
    return;
  }
  if (type == isl_ast_expr_op) {
    enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0);
    isl_ast_expr *b = isl_ast_expr_op_get_n_arg(e) > 1 ? isl_ast_expr_op_get_arg(e, 1) : NULL;
    int done = 1;
    if (op == isl_ast_expr_op_add || op == isl_ast_expr_op_sub) {
      expand(x, a, coef, t, n, c);
      expand(x, b, op == isl_ast_expr_op_add ? coef : -coef, t, n, c);
    } else if (op == isl_ast_expr_op_minus) {
      expand(x, a, -coef, t, n, c);
    } else if (op == isl_ast_expr_op_mul && isl_ast_expr_get_type(a) == isl_ast_expr_int) {
      isl_val *v = isl_ast_expr_get_val(a);
      expand(x, b, coef * isl_val_get_num_si(v), t, n, c);
      isl_val_free(v);
    } else {
      done = 0;
    }
    isl_ast_expr_free(a);
    isl_ast_expr_free(b);
    if (done) return;
  }
  add_term(t, n, coef, iexpr(x, e));
}

static int by_register(const void *a, const void *b) {
  return strcmp(((const term *)a)->reg.s, ((const term *)b)->reg.s);
}

/* The offset of ref in elements as terms over registers (sorted) plus a constant. */
static int offset_terms(ptx *x, const sj_expr *ref, term *terms, long *constant) {
  sj_linear lin;
  sj_linearize(ref, x->m->extents[ref->sym->id], x->m->shape, &lin);
  int n = 0;
  *constant = lin.constant;
  for (int i = 0; i < lin.n; i++) {
    const sj_expr *a = lin.terms[i].atom;
    int k = 0;
    while (a->kind == SJ_E_VAR && k < x->stmt->depth && x->stmt->iters[k] != a->sym) k++;
    if (a->kind == SJ_E_VAR && k < x->stmt->depth) {
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(x->call, k + 1);
      expand(x, arg, lin.terms[i].coef, terms, &n, constant);
      isl_ast_expr_free(arg);
    } else {
      add_term(terms, &n, lin.terms[i].coef, atom64(x, a));
    }
  }
  sj_linear_free(&lin);
  qsort(terms, (size_t)n, sizeof *terms, by_register);
  return n;
}

/* [address] of an access: base + size * variable part; the constant part is the immediate.
 * Accesses with the same variable part share one address register while it is valid.
 * Returns the register. */
static opnd address(ptx *x, const sj_expr *ref, char *out, size_t size) {
  int bytes = size_of(ref->sym->type);
  term terms[32];
  long constant;
  int n = offset_terms(x, ref, terms, &constant);
  char key[96];
  int len = snprintf(key, sizeof key, "@%d", ref->sym->id);
  for (int i = 0; i < n && len < (int)sizeof key; i++)
    len += snprintf(key + len, sizeof key - (size_t)len, "+%ld*%s", terms[i].coef, terms[i].reg.s);
  int keyed = len < (int)sizeof key - 1 && n < 32;
  opnd *known = keyed ? find_memo(x, key) : NULL;
  opnd addr;
  if (known) {
    addr = *known;
  } else {
    opnd sum = imm(0);
    for (int i = 0; i < n; i++) {
      if (!terms[i].coef) continue;
      opnd t = terms[i].reg;
      if (terms[i].coef != 1) t = binop64(x, "mul.lo", t, imm(terms[i].coef));
      sum = is_imm(sum) ? t : binop64(x, "add", sum, t);
    }
    opnd base = reg_opnd(B64, x->array_base[ref->sym->id]);
    if (is_imm(sum)) {
      addr = base;
    } else {
      opnd scaled = fresh(x, B64);
      emit(x, "shl.b64 %s, %s, %d", scaled.s, sum.s, bytes == 4 ? 2 : 3);
      addr = binop64(x, "add", base, scaled);
    }
    if (keyed) add_memo(x, key, addr);
  }
  opnd reg = addr;
  long offset = constant * bytes;
  if (offset > 0x7fffffffL || offset < -0x7fffffffL) {
    addr = binop64(x, "add", addr, imm(offset));
    offset = 0;
  }
  if (offset)
    snprintf(out, size, "[%s+%ld]", addr.s, offset);
  else
    snprintf(out, size, "[%s]", addr.s);
  return reg;
}

static opnd literal(const sj_expr *e) {
  opnd o;
  if (e->kind == SJ_E_INT) return imm(e->ival);
  if (e->type == SJ_TY_FLOAT) {
    float f = (float)e->fval;
    unsigned bits;
    memcpy(&bits, &f, 4);
    snprintf(o.s, sizeof o.s, "0f%08X", bits);
  } else {
    unsigned long long bits;
    memcpy(&bits, &e->fval, 8);
    snprintf(o.s, sizeof o.s, "0d%016llX", bits);
  }
  return o;
}

/* A value in a register (immediates must be moved for some instructions). */
static opnd in_reg(ptx *x, opnd v, sj_type t) {
  if (!is_imm(v)) return v;
  opnd r = fresh(x, cls_of(t));
  emit(x, "mov.%s %s, %s", ty(t), r.s, v.s);
  return r;
}

static opnd convert(ptx *x, opnd v, sj_type from, sj_type to) {
  if (from == to) return v;
  opnd d = fresh(x, cls_of(to));
  int ffrom = sj_type_is_float(from), fto = sj_type_is_float(to);
  const char *rnd = "";
  if (!ffrom && fto) rnd = ".rn";                             /* int to float: nearest */
  if (ffrom && !fto) rnd = ".rzi";                            /* float to int: truncate, as C */
  if (from == SJ_TY_DOUBLE && to == SJ_TY_FLOAT) rnd = ".rn"; /* narrowing */
  emit(x, "cvt%s.%s.%s %s, %s", rnd, ty(to), ty(from), d.s, in_reg(x, v, from).s);
  return d;
}

static opnd ucond(ptx *x, const sj_expr *e);

static opnd compare(ptx *x, const sj_expr *e) {
  static const char *const names[] = {"lt", "le", "gt", "ge", "eq", "ne"};
  sj_type t = e->args[0]->type;
  const char *cmp = names[e->op - SJ_OP_LT];
  if (sj_type_is_float(t) && e->op == SJ_OP_NE) cmp = "neu"; /* C's != holds for NaN */
  opnd a = uval(x, e->args[0]), b = uval(x, e->args[1]);
  opnd p = fresh(x, PRED);
  emit(x, "setp.%s.%s %s, %s, %s", cmp, ty(t), p.s, in_reg(x, a, t).s, b.s);
  return p;
}

/* && and ||: the right side only where C evaluates it when it reads memory. */
static opnd logic(ptx *x, const sj_expr *e) {
  int is_and = e->op == SJ_OP_AND;
  opnd l = ucond(x, e->args[0]);
  opnd p = fresh(x, PRED);
  if (!has_access(e->args[1])) {
    opnd r = ucond(x, e->args[1]);
    emit(x, "%s.pred %s, %s, %s", is_and ? "and" : "or", p.s, l.s, r.s);
    return p;
  }
  int skip = new_label(x);
  region saved = enter(x);
  emit(x, "mov.pred %s, %s", p.s, l.s);
  emit(x, "@%s%s bra $L__%s_%d", is_and ? "!" : "", l.s, x->kname, skip);
  opnd r = ucond(x, e->args[1]);
  emit(x, "mov.pred %s, %s", p.s, r.s);
  place_label(x, skip);
  leave(x, &saved);
  return p;
}

static opnd ucond(ptx *x, const sj_expr *e) {
  if (e->kind == SJ_E_BINARY && e->op >= SJ_OP_LT && e->op <= SJ_OP_NE) return compare(x, e);
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR)) return logic(x, e);
  if (e->kind == SJ_E_UNARY && e->op == '!') {
    opnd a = ucond(x, e->args[0]), p = fresh(x, PRED);
    emit(x, "not.pred %s, %s", p.s, a.s);
    return p;
  }
  opnd v = uval(x, e), p = fresh(x, PRED);
  emit(x, "setp.ne.%s %s, %s, 0", ty(e->type), p.s, in_reg(x, v, e->type).s);
  return p;
}

static int is_mul(const sj_expr *e, sj_type t) {
  return e->kind == SJ_E_BINARY && e->op == SJ_OP_MUL && e->type == t;
}

/* Fast math: a * b + c, c + a * b and a * b - c as one fma (one rounding instead of two). */
static int contract(ptx *x, const sj_expr *e, opnd *out) {
  sj_type t = e->type;
  if (!x->fast || !sj_type_is_float(t) || (e->op != SJ_OP_ADD && e->op != SJ_OP_SUB)) return 0;
  int left = is_mul(e->args[0], t);
  if (!left && !(e->op == SJ_OP_ADD && is_mul(e->args[1], t))) return 0;
  const sj_expr *mul = e->args[left ? 0 : 1], *other = e->args[left ? 1 : 0];
  opnd a = in_reg(x, uval(x, mul->args[0]), t), b = uval(x, mul->args[1]);
  opnd c = uval(x, other);
  if (e->op == SJ_OP_SUB) {
    opnd n = fresh(x, cls_of(t));
    emit(x, "neg.%s %s, %s", ty(t), n.s, in_reg(x, c, t).s);
    c = n;
  }
  *out = fresh(x, cls_of(t));
  emit(x, "fma.rn.%s %s, %s, %s, %s", ty(t), out->s, a.s, b.s, c.s);
  return 1;
}

static opnd arith(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  int fl = sj_type_is_float(t);
  opnd fused;
  if (contract(x, e, &fused)) return fused;
  const char *op;
  switch (e->op) {
  case SJ_OP_ADD:
    op = fl ? "add.rn" : "add";
    break;
  case SJ_OP_SUB:
    op = fl ? "sub.rn" : "sub";
    break;
  case SJ_OP_MUL:
    op = fl ? "mul.rn" : "mul.lo";
    break;
  case SJ_OP_DIV:
    op = fl ? "div.rn" : "div";
    break;
  default:
    op = "rem";
    break;
  }
  opnd a = uval(x, e->args[0]), b = uval(x, e->args[1]);
  if (is_imm(a) && !is_imm(b) && (e->op == SJ_OP_ADD || e->op == SJ_OP_MUL)) {
    opnd swap = a; /* exact: IEEE and two's complement + and * commute */
    a = b, b = swap;
  }
  opnd d = fresh(x, cls_of(t));
  emit(x, "%s.%s %s, %s, %s", op, ty(t), d.s, in_reg(x, a, t).s, b.s);
  return d;
}

static opnd select_value(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  opnd p = ucond(x, e->args[0]);
  opnd d = fresh(x, cls_of(t));
  if (!has_access(e->args[1]) && !has_access(e->args[2])) {
    opnd a = uval(x, e->args[1]), b = uval(x, e->args[2]);
    emit(x, "selp.%s %s, %s, %s, %s", ty(t), d.s, a.s, b.s, p.s);
    return d;
  }
  /* only the side C evaluates may read memory */
  int other = new_label(x), done = new_label(x);
  region saved = enter(x);
  emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, other);
  emit(x, "mov.%s %s, %s", ty(t), d.s, uval(x, e->args[1]).s);
  emit(x, "bra.uni $L__%s_%d", x->kname, done);
  leave(x, &saved);
  place_label(x, other);
  emit(x, "mov.%s %s, %s", ty(t), d.s, uval(x, e->args[2]).s);
  place_label(x, done);
  leave(x, &saved);
  return d;
}

static opnd call(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  opnd d = fresh(x, cls_of(t));
  opnd a = in_reg(x, uval(x, e->args[0]), t);
  switch (e->op) {
  case SJ_FN_SQRT:
  case SJ_FN_SQRTF:
    emit(x, "sqrt.rn.%s %s, %s", ty(t), d.s, a.s);
    break;
  case SJ_FN_FABS:
  case SJ_FN_FABSF:
    emit(x, "abs.%s %s, %s", ty(t), d.s, a.s);
    break;
  default: {
    const char *op = e->op == SJ_FN_FMIN || e->op == SJ_FN_FMINF ? "min" : "max";
    emit(x, "%s.%s %s, %s, %s", op, ty(t), d.s, a.s, uval(x, e->args[1]).s);
  }
  }
  return d;
}

static opnd uval(ptx *x, const sj_expr *e) {
  opnd d;
  switch (e->kind) {
  case SJ_E_INT:
  case SJ_E_FLOAT:
    return literal(e);
  case SJ_E_VAR:
    switch (e->sym->kind) {
    case SJ_SYM_SHAPE:
      return imm(x->m->shape[e->sym->param]);
    case SJ_SYM_SCALAR:
      return reg_opnd(cls_of(e->type), x->scalar[e->sym->param]);
    case SJ_SYM_LOCAL:
      return reg_opnd(cls_of(e->type), x->local[e->sym->id]);
    default: { /* an iterator: an int in C */
      opnd v = atom64(x, e), d32 = fresh(x, B32);
      emit(x, "cvt.s32.s64 %s, %s", d32.s, v.s);
      return d32;
    }
    }
  case SJ_E_INDEX: {
    char where[96];
    address(x, e, where, sizeof where);
    d = fresh(x, cls_of(e->type));
    emit(x, "ld.global%s.%s %s, %s", x->written[e->sym->id] ? "" : ".nc", ty(e->type), d.s, where);
    return d;
  }
  case SJ_E_UNARY:
    if (e->op == '-') {
      opnd a = in_reg(x, uval(x, e->args[0]), e->type);
      d = fresh(x, cls_of(e->type));
      emit(x, "neg.%s %s, %s", ty(e->type), d.s, a.s);
      return d;
    }
    break; /* ! is a condition */
  case SJ_E_BINARY:
    if (e->op <= SJ_OP_REM) return arith(x, e);
    break;
  case SJ_E_COND:
    return select_value(x, e);
  case SJ_E_CAST:
    return convert(x, uval(x, e->args[0]), e->args[0]->type, e->type);
  case SJ_E_CALL:
    return call(x, e);
  }
  opnd p = ucond(x, e); /* a condition as an int value */
  d = fresh(x, cls_of(e->type));
  emit(x, "selp.%s %s, 1, 0, %s", ty(e->type), d.s, p.s);
  return d;
}

/* --- walk hooks --- */

static opnd special(ptx *x, const char *reg, int dim) {
  opnd r32 = fresh(x, B32), r64 = fresh(x, B64);
  emit(x, "mov.u32 %s, %s.%c", r32.s, reg, "xyz"[dim]);
  emit(x, "cvt.u64.u32 %s, %s", r64.s, r32.s);
  return r64;
}

/* The predicate of one point of a mapped loop: in its bounds and on its stride. */
static opnd point_valid(ptx *x, __isl_keep isl_ast_node *loop) {
  isl_ast_expr *init = isl_ast_node_for_get_init(loop), *cond = isl_ast_node_for_get_cond(loop);
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  isl_ast_expr *it = isl_ast_node_for_get_iterator(loop);
  opnd value = in_reg64(x, iexpr(x, it));
  isl_ast_expr_free(it);
  opnd lo = iexpr(x, init), p = fresh(x, PRED), q = icond(x, cond);
  emit(x, "setp.ge.s64 %s, %s, %s", p.s, value.s, lo.s);
  emit(x, "and.pred %s, %s, %s", p.s, p.s, q.s);
  opnd step = iexpr(x, inc);
  if (strcmp(step.s, "1")) {
    opnd r = binop64(x, "rem", binop64(x, "sub", value, lo), step), s = fresh(x, PRED);
    emit(x, "setp.eq.s64 %s, %s, 0", s.s, r.s);
    emit(x, "and.pred %s, %s, %s", p.s, p.s, s.s);
  }
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  isl_ast_expr_free(inc);
  return p;
}

static void hoist_addresses(ptx *x, __isl_keep isl_ast_node *loop);

/* Point u of the unrolled member, run only where it lies in the loop. */
static void guarded_copy(ptx *x, __isl_keep isl_ast_node *loop, int u) {
  x->nmemos = x->unroll_memos; /* each guarded copy starts from what dominates it */
  x->iter_off[x->unroll_depth] = u * (long)x->map->block[0];
  x->unroll_skip = new_label(x);
  opnd p = point_valid(x, loop);
  emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, x->unroll_skip);
}

/* A mapped member: lo + ctaid * tile + tid, then ppt points a block width apart along the
 * innermost member.
 * The body is visited 2 * ppt times: ppt unguarded copies when the thread's points all lie
 * in the loop (a full tile), ppt guarded copies otherwise. */
static int mapped_begin(ptx *x, __isl_keep isl_ast_node *loop, int member) {
  const sj_kernel_map *k = x->map;
  int d = sj_ast_loop_depth(loop), dim = k->dim[member];
  opnd block = special(x, "%ctaid", dim), thread = special(x, "%tid", dim);
  opnd base = binop64(x, "mul.lo", block, imm(k->tile[member]));
  base = binop64(x, "add", base, thread);
  base = binop64(x, "add", base, imm(k->lo[member]));
  x->iter[d] = atoi(base.s + 3);
  x->iter_off[d] = 0;
  int end = new_label(x);
  x->loop_end[x->nloops] = end;
  x->loop_memos[x->nloops++] = x->nmemos;
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  opnd step = iexpr(x, inc);
  isl_ast_expr_free(inc);
  if (member != k->nmapped - 1 || k->ppt == 1) {
    opnd p = point_valid(x, loop);
    emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, end);
    return 1;
  }
  x->unroll_depth = d;
  x->unroll_end = end;
  x->unroll_memos = x->nmemos;
  x->unroll_full = !strcmp(step.s, "1");
  if (!x->unroll_full) { /* a strided loop: every point guarded */
    hoist_addresses(x, loop);
    guarded_copy(x, loop, 0);
    return k->ppt;
  }
  /* full: the first point is past the start and the last one satisfies the bound */
  x->unroll_partial = new_label(x);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop), *cond = isl_ast_node_for_get_cond(loop);
  opnd first = fresh(x, PRED), last;
  emit(x, "setp.ge.s64 %s, %s, %s", first.s, base.s, iexpr(x, init).s);
  x->iter_off[d] = (long)(k->ppt - 1) * k->block[dim];
  last = icond(x, cond);
  x->iter_off[d] = 0;
  emit(x, "and.pred %s, %s, %s", first.s, first.s, last.s);
  emit(x, "@!%s bra $L__%s_%d", first.s, x->kname, x->unroll_partial);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  return 2 * k->ppt;
}

/* --- strength reduction of addresses in innermost sequential loops --- */

static isl_bool find_inner_loop(__isl_keep isl_ast_node *node, void *found) {
  if (isl_ast_node_get_type(node) == isl_ast_node_for) *(int *)found = 1;
  return *(int *)found ? isl_bool_false : isl_bool_true;
}

static int mentions_depth(__isl_keep isl_ast_expr *e, int depth) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) return sj_ast_id_depth(e) == depth;
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  int n = isl_ast_expr_op_get_n_arg(e), found = 0;
  for (int i = 0; i < n && !found; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    found = mentions_depth(a, depth);
    isl_ast_expr_free(a);
  }
  return found;
}

typedef struct reduce_scan {
  ptx *x;
  int depth, level; /* level < 0: hoist the addresses only, the loop is unrolled */
  long step;        /* the loop's increment */
  int inner_loop;
} reduce_scan;

static int varies_in_loop(const sj_sym *iter, void *user) {
  reduce_scan *r = user;
  const sj_pstmt *s = r->x->stmt;
  for (int k = 0; k < s->depth; k++)
    if (s->iters[k] == iter) {
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(r->x->call, k + 1);
      int yes = mentions_depth(arg, r->depth);
      isl_ast_expr_free(arg);
      return yes;
    }
  return 0;
}

/* An access whose offset is affine in the loop's iterator: its address is computed before
 * the loop and advanced by a constant each iteration. Others are left to the body. */
static void reduce_access(reduce_scan *r, const sj_expr *ref) {
  ptx *x = r->x;
  sj_linear lin;
  sj_linearize(ref, x->m->extents[ref->sym->id], x->m->shape, &lin);
  int opaque = 0;
  for (int i = 0; i < lin.n; i++)
    if (lin.terms[i].atom->kind != SJ_E_VAR || lin.terms[i].atom->sym->kind != SJ_SYM_ITER)
      opaque |= sj_expr_depends(lin.terms[i].atom, varies_in_loop, r);
  sj_linear_free(&lin);
  if (opaque) return;
  term terms[32];
  long constant;
  int n = offset_terms(x, ref, terms, &constant);
  long coef = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(terms[i].reg.s, reg_opnd(B64, x->iter[r->depth]).s)) coef = terms[i].coef;
  char where[96];
  opnd p = address(x, ref, where, sizeof where); /* now in the preheader, memoized */
  if (r->level < 0 || !coef || p.s[1] != 'r' || p.s[2] != 'd') return;
  int reg = atoi(p.s + 3), *count = &x->nreduced[r->level];
  for (int i = 0; i < *count; i++)
    if (x->reduced_reg[r->level][i] == reg) return;
  if (*count == 16 || reg == x->array_base[ref->sym->id]) return;
  x->reduced_reg[r->level][*count] = reg;
  x->reduced_step[r->level][(*count)++] = coef * r->step * size_of(ref->sym->type);
}

static void reduce_refs(reduce_scan *r, const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) reduce_access(r, e);
  /* only what every iteration evaluates: not the lazy sides of ?:, && and || */
  int lazy = e->kind == SJ_E_COND ||
             (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR));
  for (int i = 0; i < (lazy ? 1 : e->nargs); i++) reduce_refs(r, e->args[i]);
}

static isl_bool scan_loop(__isl_keep isl_ast_node *node, void *user) {
  reduce_scan *r = user;
  enum isl_ast_node_type type = isl_ast_node_get_type(node);
  if (type == isl_ast_node_for) r->inner_loop = 1;
  if (type != isl_ast_node_user || r->inner_loop) return isl_bool_true;
  ptx *x = r->x;
  x->call = isl_ast_node_user_get_expr(node);
  x->stmt = x->m->stmts[sj_ast_call_stmt(x->call)];
  memset(x->call_iter, 0, sizeof x->call_iter);
  for (int k = 0; k < x->stmt->nbody; k++) {
    const sj_stmt *st = x->stmt->body[k];
    if (st->lhs && st->lhs->kind == SJ_E_INDEX) reduce_access(r, st->lhs);
    if (st->lhs) /* subscripts of the left side */
      for (int i = 0; i < st->lhs->nargs; i++) reduce_refs(r, st->lhs->args[i]);
    if (st->rhs) reduce_refs(r, st->rhs);
  }
  isl_ast_expr_free(x->call); /* the node keeps it alive */
  x->call = NULL;
  return isl_bool_true;
}

/* Before an innermost loop with a constant step: pointers for the accesses inside. */
static void reduce_loop(ptx *x, __isl_keep isl_ast_node *loop, int depth, int level) {
  x->nreduced[level] = 0;
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  int constant_step = isl_ast_expr_get_type(inc) == isl_ast_expr_int;
  isl_val *v = constant_step ? isl_ast_expr_get_val(inc) : NULL;
  reduce_scan r = {x, depth, level, v ? isl_val_get_num_si(v) : 0, 0};
  isl_val_free(v);
  isl_ast_expr_free(inc);
  if (!constant_step) return;
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  isl_ast_node_foreach_descendant_top_down(body, find_inner_loop, &r.inner_loop);
  if (!r.inner_loop) isl_ast_node_foreach_descendant_top_down(body, scan_loop, &r);
  isl_ast_node_free(body);
}

/* Before the guarded copies of an unrolled loop: their addresses, computed once and shared
 * (they differ only in the immediate), so each guard covers little more than loads and
 * stores. */
static void hoist_addresses(ptx *x, __isl_keep isl_ast_node *loop) {
  reduce_scan r = {x, sj_ast_loop_depth(loop), -1, 0, 0};
  long off = x->iter_off[r.depth];
  x->iter_off[r.depth] = 0;
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  isl_ast_node_foreach_descendant_top_down(body, find_inner_loop, &r.inner_loop);
  if (!r.inner_loop) isl_ast_node_foreach_descendant_top_down(body, scan_loop, &r);
  isl_ast_node_free(body);
  x->iter_off[r.depth] = off;
  x->unroll_memos = x->nmemos;
}

static int for_begin(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member) {
  ptx *x = t;
  if (kind == SJ_LOOP_MAPPED) return mapped_begin(x, loop, member);
  int d = sj_ast_loop_depth(loop);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(loop);
  int head = new_label(x), end = new_label(x);
  x->loop_head[x->nloops] = head;
  x->loop_memos[x->nloops] = x->nmemos;
  x->loop_end[x->nloops++] = end;
  int r = new_reg(x, B64);
  emit(x, "mov.b64 %%rd%d, %s", r, iexpr(x, init).s);
  x->iter[d] = r;
  x->iter_off[d] = 0;
  reduce_loop(x, loop, d, x->nloops - 1);
  place_label(x, head);
  opnd p = icond(x, cond);
  emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, end);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  return 1;
}

static void for_copy(void *t, __isl_keep isl_ast_node *loop, int copy) {
  ptx *x = t;
  const sj_kernel_map *k = x->map;
  int ppt = k->ppt;
  if (x->unroll_full && copy < ppt) { /* full tile: straight-line copies share values */
    x->iter_off[x->unroll_depth] = copy * (long)k->block[0];
    return;
  }
  if (x->unroll_full && copy == ppt) {
    emit(x, "bra.uni $L__%s_%d", x->kname, x->unroll_end);
    place_label(x, x->unroll_partial);
    x->nmemos = x->unroll_memos; /* nothing of the full path is known here */
    hoist_addresses(x, loop);
  } else {
    place_label(x, x->unroll_skip);
  }
  guarded_copy(x, loop, x->unroll_full ? copy - ppt : copy);
}

static void for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  ptx *x = t;
  x->nloops--;
  x->nmemos = x->loop_memos[x->nloops]; /* values of the loop body are not defined after it */
  if (kind == SJ_LOOP_MAPPED) {
    if (x->unroll_depth == sj_ast_loop_depth(loop)) {
      place_label(x, x->unroll_skip);
      x->iter_off[x->unroll_depth] = 0;
      x->unroll_depth = -1;
    }
    place_label(x, x->loop_end[x->nloops]);
    return;
  }
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  int r = x->iter[sj_ast_loop_depth(loop)];
  for (int i = 0; i < x->nreduced[x->nloops]; i++)
    emit(x, "add.s64 %%rd%d, %%rd%d, %ld", x->reduced_reg[x->nloops][i],
         x->reduced_reg[x->nloops][i], x->reduced_step[x->nloops][i]);
  emit(x, "add.s64 %%rd%d, %%rd%d, %s", r, r, iexpr(x, inc).s);
  emit(x, "bra.uni $L__%s_%d", x->kname, x->loop_head[x->nloops]);
  isl_ast_expr_free(inc);
  place_label(x, x->loop_end[x->nloops]);
}

static void if_begin(void *t, __isl_keep isl_ast_expr *cond) {
  ptx *x = t;
  int other = new_label(x), end = new_label(x);
  x->if_else[x->nifs] = other;
  x->if_end[x->nifs] = end;
  x->if_memos[x->nifs] = x->nmemos;
  x->if_has_else[x->nifs++] = 0;
  opnd p = icond(x, cond);
  emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, other);
}

static void if_else(void *t) {
  ptx *x = t;
  emit(x, "bra.uni $L__%s_%d", x->kname, x->if_end[x->nifs - 1]);
  x->nmemos = x->if_memos[x->nifs - 1];
  place_label(x, x->if_else[x->nifs - 1]);
  x->if_has_else[x->nifs - 1] = 1;
}

static void if_end(void *t) {
  ptx *x = t;
  x->nifs--;
  x->nmemos = x->if_memos[x->nifs];
  if (!x->if_has_else[x->nifs]) place_label(x, x->if_else[x->nifs]);
  place_label(x, x->if_end[x->nifs]);
}

static void store(ptx *x, const sj_stmt *st) {
  const sj_expr *lhs = st->lhs;
  opnd v = uval(x, st->rhs);
  if (lhs->kind == SJ_E_VAR) {
    emit(x, "mov.%s %s, %s", ty(lhs->type), reg_opnd(cls_of(lhs->type), x->local[lhs->sym->id]).s,
         v.s);
    return;
  }
  char where[96];
  address(x, lhs, where, sizeof where);
  emit(x, "st.global.%s %s, %s", ty(lhs->type), where, in_reg(x, v, lhs->type).s);
}

static void stmt(void *t, __isl_keep isl_ast_expr *callx) {
  ptx *x = t;
  x->stmt = x->m->stmts[sj_ast_call_stmt(callx)];
  x->call = callx;
  memset(x->call_iter, 0, sizeof x->call_iter);
  for (int k = 0; k < x->stmt->nbody; k++) {
    const sj_stmt *st = x->stmt->body[k];
    if (st->kind == SJ_S_DECL) {
      int id = st->sym->id;
      if (!x->local[id]) x->local[id] = new_reg(x, cls_of(st->sym->type));
      if (st->rhs)
        emit(x, "mov.%s %s, %s", ty(st->sym->type), reg_opnd(cls_of(st->sym->type), x->local[id]).s,
             uval(x, st->rhs).s);
    } else {
      store(x, st);
    }
  }
}

static void nothing(void *t) {
  (void)t;
}

static const sj_walk_ops kernel_ops = {for_begin, for_copy, for_end, if_begin, if_else, if_end,
                                       stmt,      nothing,  nothing, nothing,  NULL};

/* --- entries --- */

static void mark_written(ptx *x, __isl_keep isl_ast_node *mark);

static isl_bool find_writes(__isl_keep isl_ast_node *node, void *user) {
  ptx *x = user;
  if (isl_ast_node_get_type(node) != isl_ast_node_user) return isl_bool_true;
  isl_ast_expr *c = isl_ast_node_user_get_expr(node);
  const sj_pstmt *s = x->m->stmts[sj_ast_call_stmt(c)];
  isl_ast_expr_free(c);
  for (int k = 0; k < s->nbody; k++)
    if (s->body[k]->lhs && s->body[k]->lhs->kind == SJ_E_INDEX)
      x->written[s->body[k]->lhs->sym->id] = 1;
  return isl_bool_true;
}

static void mark_written(ptx *x, __isl_keep isl_ast_node *mark) {
  memset(x->written, 0, (x->m->fn->narrays + 1) * sizeof *x->written);
  isl_ast_node_foreach_descendant_top_down(mark, find_writes, x);
}

/* Guards as predicates where the guarded code is short: `@!p bra L; a; b; L:` becomes
 * `@p a; @p b;` when the few instructions between carry no predicate, branch or label and
 * nothing else jumps to L. Longer guarded code keeps its branch. */
static char *predicate_short_guards(char *body) {
  enum { MAX_GUARDED = 6 };
  int n = 0;
  for (char *c = body; *c; c++) n += *c == '\n';
  char **lines = malloc((size_t)(n + 1) * sizeof *lines);
  int count = 0;
  for (char *c = strtok(body, "\n"); c; c = strtok(NULL, "\n")) lines[count++] = c;
  sj_buf out = {0};
  for (int i = 0; i < count; i++) {
    char pred[32], label[96];
    int j = i + 1;
    if (sscanf(lines[i], "\t@!%31[%a-z0-9] bra %95[^;];", pred, label) == 2) {
      size_t len = strlen(label);
      while (j < count && j - i - 1 <= MAX_GUARDED && lines[j][0] == '\t' &&
             !strchr(lines[j], '@') && !strstr(lines[j], "bra"))
        j++;
      int uses = 0;
      for (int k = 0; k < count; k++) {
        const char *at = strstr(lines[k], label);
        uses += at && k != j && (at[len] == ';' || at[len] == ':');
      }
      if (j < count && j > i + 1 && !strncmp(lines[j], label, len) && lines[j][len] == ':' &&
          uses == 1) {
        for (int k = i + 1; k < j; k++) sj_buf_printf(&out, "\t@%s %s\n", pred, lines[k] + 1);
        i = j;
        continue;
      }
    }
    sj_buf_printf(&out, "%s\n", lines[i]);
  }
  free(lines);
  return sj_buf_take(&out);
}

static void entry(void *t, __isl_keep isl_ast_node *mark, const sj_kernel_map *k) {
  ptx *x = t;
  const sj_func *fn = x->m->fn;
  char name[96];
  snprintf(name, sizeof name, "%s_k%d", fn->name, k->id);
  x->kname = name;
  memset(x->nreg, 0, sizeof x->nreg);
  x->nlabel = x->nloops = x->nifs = x->nmemos = 0;
  memset(x->local, 0, (fn->nlocals + 1) * sizeof *x->local);
  for (int d = 0; d < 256; d++) x->iter[d] = -1, x->iter_off[d] = 0;
  x->map = k;
  x->unroll_depth = -1;
  mark_written(x, mark);

  sj_buf params = {0};
  int np = 0;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_ARRAY) continue;
    sj_buf_printf(&params, "%s\t.param .u64 %s_param_%d", np ? ",\n" : "", name, np);
    int raw = new_reg(x, B64);
    x->array_base[s->id] = new_reg(x, B64);
    emit(x, "ld.param.u64 %%rd%d, [%s_param_%d]", raw, name, np++);
    emit(x, "cvta.to.global.u64 %%rd%d, %%rd%d", x->array_base[s->id], raw);
  }
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_SCALAR) continue;
    sj_buf_printf(&params, "%s\t.param .%s %s_param_%d", np ? ",\n" : "", ty(s->type), name, np);
    x->scalar[p] = new_reg(x, cls_of(s->type));
    emit(x, "ld.param.%s %s, [%s_param_%d]", ty(s->type), reg_opnd(cls_of(s->type), x->scalar[p]).s,
         name, np++);
  }
  int host[64];
  int nhost = sj_ast_kernel_host_iters(mark, host, 64);
  for (int i = 0; i < nhost; i++) {
    sj_buf_printf(&params, "%s\t.param .s64 %s_param_%d", np ? ",\n" : "", name, np);
    x->iter[host[i]] = new_reg(x, B64);
    emit(x, "ld.param.s64 %%rd%d, [%s_param_%d]", x->iter[host[i]], name, np++);
  }
  sj_ast_walk_kernel(mark, &kernel_ops, x);
  emit(x, "ret");

  sj_buf_printf(&x->out, "\n// %s\n.visible .entry %s(\n%s\n)\n.reqntid %u, %u, %u\n{\n", k->why,
                name, params.data ? params.data : "", k->block[0], k->block[1], k->block[2]);
  for (int c = 0; c < NCLASS; c++)
    if (x->nreg[c])
      sj_buf_printf(&x->out, "\t.reg %s %s<%d>;\n", reg_type[c], reg_prefix[c], x->nreg[c] + 1);
  sj_buf_puts(&x->out, "\n");
  char *body = predicate_short_guards(x->body.data ? x->body.data : (char[1]){0});
  sj_buf_puts(&x->out, body);
  free(body);
  sj_buf_puts(&x->out, "}\n");
  sj_buf_free(&x->body);
  sj_buf_free(&params);
}

static int host_for(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member) {
  (void)t, (void)loop, (void)kind, (void)member;
  return 1;
}
static void host_for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  (void)t, (void)loop, (void)kind;
}
static void host_if(void *t, __isl_keep isl_ast_expr *cond) {
  (void)t, (void)cond;
}
static void host_stmt(void *t, __isl_keep isl_ast_expr *c) {
  (void)t, (void)c;
}

/* The module walk visits host code only to find the kernels. */
static const sj_walk_ops module_ops = {host_for,  NULL,    host_for_end, host_if, nothing, nothing,
                                       host_stmt, nothing, nothing,      nothing, entry};

char *sj_print_ptx(const sj_model *m, __isl_keep isl_ast_node *ast, const char *version,
                   const char *target, int fast_math) {
  ptx x;
  memset(&x, 0, sizeof x);
  x.m = m;
  x.fast = fast_math;
  int n = m->fn->narrays + m->fn->nparams + m->fn->nlocals + 1;
  x.array_base = calloc((size_t)n, sizeof *x.array_base);
  x.written = calloc((size_t)n, sizeof *x.written);
  x.scalar = calloc((size_t)n, sizeof *x.scalar);
  x.local = calloc((size_t)n, sizeof *x.local);
  sj_buf_printf(&x.out,
                "//\n// generated by stenciljit %s from '%s'\n//\n\n.version %s\n"
                ".target %s\n.address_size 64\n",
                SJ_VERSION, m->fn->name, version, target);
  sj_ast_walk_host(ast, &module_ops, &x);
  free(x.array_base);
  free(x.written);
  free(x.scalar);
  free(x.local);
  free(x.memos);
  return sj_buf_take(&x.out);
}
