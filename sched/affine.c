/* Affine expressions and conditions of the C subset as isl objects.
 *
 * Shape parameters are replaced by their values, so everything here is a piecewise
 * quasi-affine function of loop iterators only. C's truncating division and remainder map
 * to isl_pw_aff_tdiv_q / tdiv_r, `?:` to isl_pw_aff_cond. */
#include "sched/affine.h"

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/val.h>

#include <limits.h>

#include "stenciljit.h"

static int not_affine(sj_affine_env *env, const sj_expr *e, const char *what) {
  if (!env->failed && !env->quiet)
    sj_error_at(env->err, JIT_ERR_UNSUPPORTED, env->source_name, e->loc,
                "%s is not affine in the loop iterators: %s", env->what, what);
  env->failed = 1;
  return -1;
}

/* *v as a value of type t: unsigned int arithmetic wraps; an unsigned long past long's
 * range is not a constant here (-1). */
static int in_type(sj_type t, long *v) {
  if (t == SJ_TY_UINT) *v = (long)(unsigned)*v;
  return t == SJ_TY_ULONG && *v < 0 ? -1 : 0;
}

/* a << b and a >> b of type t as C defines them (a shift a signed type cannot hold, a
 * negative value shifted left or a count outside the type's width: -1). */
static int shift_value(int op, sj_type t, long a, long b, long *out) {
  int bits = 8 * sj_type_size(t);
  if (b < 0 || b >= bits) return -1;
  if (op == SJ_OP_SHR) {
    *out = a >> b; /* arithmetic on negative values, as gcc and clang do */
    return 0;
  }
  if (sj_type_is_unsigned(t)) {
    *out = (long)((unsigned long)a << b);
    return in_type(t, out);
  }
  if (a < 0 || (bits == 32 ? a > (INT_MAX >> b) : a > (LONG_MAX >> b))) return -1;
  *out = a << b;
  return 0;
}

/* Integer value of e when it does not depend on iterators: literals, shapes and C's integer
 * operators. */
int sj_const_value(const sj_expr *e, const long *shape, long *out) {
  long a, b;
  switch (e->kind) {
  case SJ_E_INT:
    *out = e->ival;
    return 0;
  case SJ_E_VAR:
    if (e->sym->kind != SJ_SYM_SHAPE) return -1;
    *out = shape[e->sym->param];
    return 0;
  case SJ_E_CAST:
    if (sj_type_is_float(e->type) || sj_type_is_float(e->args[0]->type)) return -1;
    if (sj_const_value(e->args[0], shape, &a)) return -1;
    if (e->type == SJ_TY_ULONG && a < 0) return -1; /* beyond long */
    *out = e->type == SJ_TY_INT ? (long)(int)a : e->type == SJ_TY_UINT ? (long)(unsigned)a : a;
    return 0;
  case SJ_E_UNARY:
    if (sj_const_value(e->args[0], shape, &a)) return -1;
    *out = e->op == '!' ? !a : e->op == '-' ? -a : ~a;
    return in_type(e->type, out);
  case SJ_E_COND:
    if (sj_const_value(e->args[0], shape, &a)) return -1;
    return sj_const_value(e->args[a ? 1 : 2], shape, out);
  case SJ_E_BINARY:
    if (sj_const_value(e->args[0], shape, &a)) return -1;
    if ((e->op == SJ_OP_AND && !a) || (e->op == SJ_OP_OR && a)) /* C evaluates no further */
      return *out = e->op == SJ_OP_OR, 0;
    if (sj_const_value(e->args[1], shape, &b)) return -1;
    switch (e->op) {
    case SJ_OP_AND:
    case SJ_OP_OR:
      return *out = b != 0, 0;
    case SJ_OP_LT:
      return *out = a < b, 0;
    case SJ_OP_GT:
      return *out = a > b, 0;
    case SJ_OP_LE:
      return *out = a <= b, 0;
    case SJ_OP_GE:
      return *out = a >= b, 0;
    case SJ_OP_EQ:
      return *out = a == b, 0;
    case SJ_OP_NE:
      return *out = a != b, 0;
    case SJ_OP_ADD:
      return __builtin_add_overflow(a, b, out) ? -1 : in_type(e->type, out);
    case SJ_OP_SUB:
      return __builtin_sub_overflow(a, b, out) ? -1 : in_type(e->type, out);
    case SJ_OP_MUL:
      return __builtin_mul_overflow(a, b, out) ? -1 : in_type(e->type, out);
    case SJ_OP_DIV:
      if (b == 0 || (a == LONG_MIN && b == -1)) return -1;
      *out = a / b;
      return 0;
    case SJ_OP_REM:
      if (b == 0 || (a == LONG_MIN && b == -1)) return -1;
      *out = a % b;
      return 0;
    case SJ_OP_BAND:
      *out = a & b;
      return in_type(e->type, out);
    case SJ_OP_BOR:
      *out = a | b;
      return in_type(e->type, out);
    case SJ_OP_XOR:
      *out = a ^ b;
      return in_type(e->type, out);
    case SJ_OP_SHL:
    case SJ_OP_SHR:
      return shift_value(e->op, e->type, a, b, out);
    default:
      return -1;
    }
  default:
    return -1;
  }
}

static __isl_give isl_pw_aff *cst(__isl_keep isl_space *space, long v) {
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
  isl_val *val = isl_val_int_from_si(isl_space_get_ctx(space), v);
  return isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val));
}

static __isl_give isl_pw_aff *divide(sj_affine_env *env, const sj_expr *e,
                                     __isl_keep isl_space *space) {
  long d;
  if (sj_const_value(e->args[1], env->shape, &d)) {
    not_affine(env, e->args[1], "the divisor is not a constant");
    return NULL;
  }
  if (d == 0) {
    if (!env->failed && !env->quiet)
      sj_error_at(env->err, JIT_ERR_ARGS, env->source_name, e->args[1]->loc, "division by zero");
    env->failed = 1;
    return NULL;
  }
  isl_pw_aff *a = sj_affine(env, e->args[0], space);
  if (!a) return NULL;
  isl_val *dv = isl_val_int_from_si(isl_space_get_ctx(space), d < 0 ? -d : d);
  /* Where the dividend is never negative, C's truncation is isl's floor: one piece, simpler
   * for every later operation than the general piecewise form. */
  if (env->context) {
    isl_set *nonneg = isl_pw_aff_nonneg_set(isl_pw_aff_copy(a));
    isl_bool floor_ok = isl_set_is_subset(env->context, nonneg);
    isl_set_free(nonneg);
    if (floor_ok == isl_bool_true) {
      isl_pw_aff *r = e->op == SJ_OP_DIV ? isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, dv))
                                         : isl_pw_aff_mod_val(a, dv);
      return e->op == SJ_OP_DIV && d < 0 ? isl_pw_aff_neg(r) : r;
    }
  }
  isl_val_free(dv);
  /* C truncates: a / -d == -(a / d) and a % -d == a % d. */
  isl_pw_aff *r;
  if (e->op == SJ_OP_DIV) {
    r = isl_pw_aff_tdiv_q(a, cst(space, d < 0 ? -d : d));
    if (d < 0) r = isl_pw_aff_neg(r);
  } else {
    r = isl_pw_aff_tdiv_r(a, cst(space, d < 0 ? -d : d));
  }
  return r;
}

/* a, the value of an expression of type t, as C has it: unsigned arithmetic and conversions
 * to an unsigned type are modulo 2^bits. The modulo is left out where a stays in range on
 * the points it is evaluated at, as it mostly does (i - 1 in a loop from 1). */
static __isl_give isl_pw_aff *wrap(sj_affine_env *env, sj_type t, __isl_take isl_pw_aff *a) {
  if (!a || !sj_type_is_unsigned(t)) return a;
  isl_ctx *ctx = isl_pw_aff_get_ctx(a);
  isl_val *span = isl_val_2exp(isl_val_int_from_si(ctx, 8 * sj_type_size(t)));
  isl_pw_aff *top =
      isl_pw_aff_val_on_domain(isl_pw_aff_domain(isl_pw_aff_copy(a)), isl_val_copy(span));
  isl_set *in = isl_set_intersect(isl_pw_aff_nonneg_set(isl_pw_aff_copy(a)),
                                  isl_pw_aff_lt_set(isl_pw_aff_copy(a), top));
  isl_set *where =
      env->context ? isl_set_copy(env->context) : isl_pw_aff_domain(isl_pw_aff_copy(a));
  isl_bool inside = isl_set_is_subset(where, in);
  isl_set_free(where);
  isl_set_free(in);
  if (inside == isl_bool_true) {
    isl_val_free(span);
    return a;
  }
  return isl_pw_aff_mod_val(a, span);
}

/* Whether lo <= a < hi wherever a is evaluated. */
static int within(sj_affine_env *env, __isl_keep isl_pw_aff *a, long lo, long hi) {
  isl_space *space = isl_pw_aff_get_domain_space(a);
  isl_set *in = isl_set_intersect(isl_pw_aff_ge_set(isl_pw_aff_copy(a), cst(space, lo)),
                                  isl_pw_aff_lt_set(isl_pw_aff_copy(a), cst(space, hi)));
  isl_space_free(space);
  isl_set *where =
      env->context ? isl_set_copy(env->context) : isl_pw_aff_domain(isl_pw_aff_copy(a));
  isl_bool inside = isl_set_is_subset(where, in);
  isl_set_free(where);
  isl_set_free(in);
  return inside == isl_bool_true;
}

/* r op c for r in [0, 2^bits) and 0 <= c < 2^bits: affine where c has every bit set, else
 * a piece per value of r (at most 16). */
static __isl_give isl_pw_aff *low_bits(sj_affine_env *env, const sj_expr *e, int op,
                                       __isl_take isl_pw_aff *r, long c, int bits) {
  isl_space *space = isl_pw_aff_get_domain_space(r);
  isl_pw_aff *out = NULL;
  if (c == (1l << bits) - 1) {
    out = op == SJ_OP_BAND  ? r
          : op == SJ_OP_BOR ? (isl_pw_aff_free(r), cst(space, c))
                            : isl_pw_aff_sub(cst(space, c), r);
  } else if (bits <= 4) {
    long last = (1l << bits) - 1;
    out = cst(space, op == SJ_OP_BAND ? (last & c) : op == SJ_OP_BOR ? (last | c) : (last ^ c));
    for (long v = 0; v < last; v++) {
      long y = op == SJ_OP_BAND ? (v & c) : op == SJ_OP_BOR ? (v | c) : (v ^ c);
      isl_set *at = isl_pw_aff_eq_set(isl_pw_aff_copy(r), cst(space, v));
      out = isl_pw_aff_cond(isl_set_indicator_function(at), cst(space, y), out);
    }
    isl_pw_aff_free(r);
  } else {
    isl_pw_aff_free(r);
    not_affine(env, e,
               "a bitwise operation with a constant whose low bits are neither all set "
               "nor fewer than 5");
  }
  isl_space_free(space);
  return out;
}

/* x op c (op one of & | ^, c >= 0) on the values of x: with x = 2^K q + r, 0 <= r < 2^K
 * and c < 2^K, x & c = r & c and x op c = 2^K q + (r op c) for | and ^. */
static __isl_give isl_pw_aff *mask(sj_affine_env *env, const sj_expr *e, int op,
                                   __isl_take isl_pw_aff *x, long c) {
  int bits = 0;
  while (bits < 62 && (c >> bits) != 0) bits++;
  isl_ctx *ctx = isl_pw_aff_get_ctx(x);
  long span = 1l << bits;
  if (within(env, x, 0, span)) return low_bits(env, e, op, x, c, bits);
  isl_pw_aff *r = isl_pw_aff_mod_val(isl_pw_aff_copy(x), isl_val_int_from_si(ctx, span));
  isl_pw_aff *low = low_bits(env, e, op, r, c, bits);
  if (op == SJ_OP_BAND || !low) {
    isl_pw_aff_free(x);
    return low;
  }
  isl_pw_aff *q = isl_pw_aff_floor(isl_pw_aff_scale_down_val(x, isl_val_int_from_si(ctx, span)));
  return isl_pw_aff_add(isl_pw_aff_scale_val(q, isl_val_int_from_si(ctx, span)), low);
}

/* ~a, which is -1 - a on two's complement values. */
static __isl_give isl_pw_aff *complement(__isl_take isl_pw_aff *a) {
  if (!a) return NULL;
  isl_space *space = isl_pw_aff_get_domain_space(a);
  isl_pw_aff *r = isl_pw_aff_sub(cst(space, -1), a);
  isl_space_free(space);
  return r;
}

/* & | ^ with a constant operand, << and >> by a constant count: quasi-affine in the other
 * operand. Two operands that both depend on the iterators are not. */
static __isl_give isl_pw_aff *bitwise(sj_affine_env *env, const sj_expr *e,
                                      __isl_keep isl_space *space) {
  const sj_expr *x = e->args[0], *k = e->args[1];
  int shift = e->op == SJ_OP_SHL || e->op == SJ_OP_SHR;
  long c;
  if (!shift && sj_const_value(x, env->shape, &c) == 0) x = e->args[1], k = e->args[0];
  if (sj_const_value(k, env->shape, &c)) {
    not_affine(env, e,
               shift ? "a shift by a count that is not a constant"
                     : "a bitwise operation of two iterator-dependent values");
    return NULL;
  }
  if (shift && (c < 0 || c >= 8 * sj_type_size(e->type))) {
    if (!env->failed && !env->quiet)
      sj_error_at(env->err, JIT_ERR_ARGS, env->source_name, k->loc,
                  "shift count %ld is outside the width of '%s'", c, sj_type_name(e->type));
    env->failed = 1;
    return NULL;
  }
  isl_pw_aff *a = sj_affine(env, x, space);
  if (!a) return NULL;
  isl_ctx *ctx = isl_pw_aff_get_ctx(a);
  if (e->op == SJ_OP_SHL)
    return wrap(env, e->type, isl_pw_aff_scale_val(a, isl_val_2exp(isl_val_int_from_si(ctx, c))));
  if (e->op == SJ_OP_SHR) /* arithmetic: the floor */
    return isl_pw_aff_floor(
        isl_pw_aff_scale_down_val(a, isl_val_2exp(isl_val_int_from_si(ctx, c))));
  if (c >= 0) return mask(env, e, e->op, a, c);
  /* a negative mask (signed types): x & c = x - (x & ~c), x | c = ~(~x & ~c),
   * x ^ c = ~(x ^ ~c) */
  if (e->op == SJ_OP_BAND) {
    isl_pw_aff *low = mask(env, e, SJ_OP_BAND, isl_pw_aff_copy(a), ~c);
    return low ? isl_pw_aff_sub(a, low) : (isl_pw_aff_free(a), NULL);
  }
  if (e->op == SJ_OP_BOR) return complement(mask(env, e, SJ_OP_BAND, complement(a), ~c));
  return complement(mask(env, e, SJ_OP_XOR, a, ~c));
}

__isl_give isl_pw_aff *sj_affine(sj_affine_env *env, const sj_expr *e,
                                 __isl_keep isl_space *space) {
  isl_pw_aff *a, *b;
  isl_set *c;
  if (env->failed) return NULL;
  switch (e->kind) {
  case SJ_E_INT:
    return cst(space, e->ival);
  case SJ_E_VAR:
    switch (e->sym->kind) {
    case SJ_SYM_SHAPE:
      return cst(space, env->shape[e->sym->param]);
    case SJ_SYM_ITER: {
      int pos = env->iter_pos[e->sym->id];
      if (pos < 0 || pos >= (int)isl_space_dim(space, isl_dim_set)) {
        not_affine(env, e, "iterator used outside its loop");
        return NULL;
      }
      isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
      return isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, pos));
    }
    case SJ_SYM_SCALAR:
      not_affine(env, e, "it depends on the floating-point parameter");
      return NULL;
    default:
      not_affine(env, e, "it depends on a local variable");
      return NULL;
    }
  case SJ_E_CAST:
    if (sj_type_is_float(e->type) || sj_type_is_float(e->args[0]->type)) {
      not_affine(env, e, "it converts through a floating-point type");
      return NULL;
    }
    return wrap(env, e->type, sj_affine(env, e->args[0], space));
  case SJ_E_UNARY:
    if (e->op == '-') return wrap(env, e->type, isl_pw_aff_neg(sj_affine(env, e->args[0], space)));
    if (e->op == '~') return wrap(env, e->type, complement(sj_affine(env, e->args[0], space)));
    c = sj_condition(env, e, space);
    return c ? isl_set_indicator_function(c) : NULL;
  case SJ_E_COND:
    c = sj_condition(env, e->args[0], space);
    a = c ? sj_affine(env, e->args[1], space) : NULL;
    b = a ? sj_affine(env, e->args[2], space) : NULL;
    if (!b) {
      isl_set_free(c);
      isl_pw_aff_free(a);
      return NULL;
    }
    return isl_pw_aff_cond(isl_set_indicator_function(c), a, b);
  case SJ_E_BINARY:
    switch (e->op) {
    case SJ_OP_ADD:
    case SJ_OP_SUB:
    case SJ_OP_MUL:
      a = sj_affine(env, e->args[0], space);
      b = a ? sj_affine(env, e->args[1], space) : NULL;
      if (!b) {
        isl_pw_aff_free(a);
        return NULL;
      }
      if (e->op == SJ_OP_ADD) return wrap(env, e->type, isl_pw_aff_add(a, b));
      if (e->op == SJ_OP_SUB) return wrap(env, e->type, isl_pw_aff_sub(a, b));
      if (!isl_pw_aff_is_cst(a) && !isl_pw_aff_is_cst(b)) {
        isl_pw_aff_free(a);
        isl_pw_aff_free(b);
        not_affine(env, e, "a product of two iterator-dependent values");
        return NULL;
      }
      return wrap(env, e->type, isl_pw_aff_mul(a, b));
    case SJ_OP_DIV:
    case SJ_OP_REM:
      return divide(env, e, space);
    case SJ_OP_BAND:
    case SJ_OP_BOR:
    case SJ_OP_XOR:
    case SJ_OP_SHL:
    case SJ_OP_SHR:
      return wrap(env, e->type, bitwise(env, e, space));
    default:
      c = sj_condition(env, e, space);
      return c ? isl_set_indicator_function(c) : NULL;
    }
  case SJ_E_FLOAT:
    not_affine(env, e, "a floating-point value");
    return NULL;
  case SJ_E_INDEX:
    not_affine(env, e, "it reads an array element");
    return NULL;
  case SJ_E_CALL:
    not_affine(env, e, "it calls a math function");
    return NULL;
  }
  not_affine(env, e, "unexpected expression");
  return NULL;
}

static __isl_give isl_set *compare(int op, __isl_take isl_pw_aff *a, __isl_take isl_pw_aff *b) {
  switch (op) {
  case SJ_OP_LT:
    return isl_pw_aff_lt_set(a, b);
  case SJ_OP_LE:
    return isl_pw_aff_le_set(a, b);
  case SJ_OP_GT:
    return isl_pw_aff_gt_set(a, b);
  case SJ_OP_GE:
    return isl_pw_aff_ge_set(a, b);
  case SJ_OP_EQ:
    return isl_pw_aff_eq_set(a, b);
  default:
    return isl_pw_aff_ne_set(a, b);
  }
}

__isl_give isl_set *sj_condition(sj_affine_env *env, const sj_expr *e,
                                 __isl_keep isl_space *space) {
  isl_set *a, *b;
  isl_pw_aff *x, *y;
  if (env->failed) return NULL;
  if (e->kind == SJ_E_UNARY && e->op == '!') {
    a = sj_condition(env, e->args[0], space);
    return a ? isl_set_complement(a) : NULL;
  }
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR)) {
    a = sj_condition(env, e->args[0], space);
    b = a ? sj_condition(env, e->args[1], space) : NULL;
    if (!b) {
      isl_set_free(a);
      return NULL;
    }
    return e->op == SJ_OP_AND ? isl_set_intersect(a, b) : isl_set_union(a, b);
  }
  if (e->kind == SJ_E_BINARY && e->op >= SJ_OP_LT && e->op <= SJ_OP_NE) {
    if (sj_type_is_float(e->args[0]->type)) {
      not_affine(env, e, "a floating-point comparison");
      return NULL;
    }
    x = sj_affine(env, e->args[0], space);
    y = x ? sj_affine(env, e->args[1], space) : NULL;
    if (!y) {
      isl_pw_aff_free(x);
      return NULL;
    }
    return compare(e->op, x, y);
  }
  x = sj_affine(env, e, space);
  return x ? isl_pw_aff_non_zero_set(x) : NULL;
}

/* Through isl_multi_aff where every function is one affine piece, which isl turns into a map
 * at a fraction of a multi_pw_aff's cost. */
__isl_give isl_map *sj_index_relation(__isl_take isl_space *space,
                                      __isl_take isl_pw_aff_list *index) {
  isl_size n = isl_pw_aff_list_size(index);
  int plain = n >= 0;
  for (int k = 0; k < n && plain; k++) {
    isl_pw_aff *pa = isl_pw_aff_list_get_at(index, k);
    plain = isl_pw_aff_isa_aff(pa) == isl_bool_true;
    isl_pw_aff_free(pa);
  }
  if (!plain) return isl_map_from_multi_pw_aff(isl_multi_pw_aff_from_pw_aff_list(space, index));
  isl_aff_list *affs = isl_aff_list_alloc(isl_space_get_ctx(space), n);
  for (int k = 0; k < n; k++)
    affs = isl_aff_list_add(affs, isl_pw_aff_as_aff(isl_pw_aff_list_get_at(index, k)));
  isl_pw_aff_list_free(index);
  return isl_map_from_multi_aff(isl_multi_aff_from_aff_list(space, affs));
}

/* As the union of set's cuts by one half-space per side of each extent. Subtracting the box instead
 * would make isl give the existential variables of the access ranges explicit forms: far costlier,
 * and not bounded by the compile budget, which counts simplex pivots only. */
__isl_give isl_set *sj_outside_extents(__isl_take isl_set *set, int rank, const long *ext) {
  isl_ctx *ctx = isl_set_get_ctx(set);
  isl_set *out = isl_set_empty(isl_set_get_space(set));
  for (int k = 0; k < rank; k++) {
    isl_val *extent = isl_val_int_from_si(ctx, ext[k]);
    out = isl_set_union(out, isl_set_upper_bound_si(isl_set_copy(set), isl_dim_set, k, -1));
    out = isl_set_union(out, isl_set_lower_bound_val(isl_set_copy(set), isl_dim_set, k, extent));
  }
  isl_set_free(set);
  return out;
}
