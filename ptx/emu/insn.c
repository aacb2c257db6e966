/* Instructions: operands (registers, constants, addresses, vectors), modifiers, and one
 * builder per family of operations (ops.h), which checks types and modifiers as ptxas does
 * and fills the pre-decoded instruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

/* ---------- operands ---------- */

static int parse_int_expr(P *p, int64_t *v) {
  int neg = 0;
  while (emu_accept(p, "-")) neg = !neg;
  if (emu_cur(p)->kind != EMU_TOK_INT) return 0;
  *v = neg ? -(int64_t)emu_cur(p)->i : (int64_t)emu_cur(p)->i;
  p->i++;
  return 1;
}

static int parse_operand(P *p, opnd *o) {
  memset(o, 0, sizeof *o);
  emu_tok *t = emu_cur(p);
  o->tok = t;
  if (emu_accept(p, "[")) {
    o->kind = O_ADDR;
    emu_tok *b = emu_cur(p);
    if (b->kind == EMU_TOK_ID) {
      uint32_t slot;
      regdecl *r = emu_find_reg(p, b->s, b->len, &slot);
      if (r) {
        o->has_base = 1;
        o->slot = slot;
        o->type = r->type;
      } else {
        emu_var *v = emu_find_var(p, b->s, b->len);
        if (!v) {
          emu_perr(p, b->line, "Unknown symbol '%.*s'", b->len, b->s);
          return 0;
        }
        o->var = v;
      }
      p->i++;
      if (emu_accept(p, "+")) {
        if (!parse_int_expr(p, &o->off)) goto bad;
      } else if (emu_is(emu_cur(p), "-")) {
        if (!parse_int_expr(p, &o->off)) goto bad;
      }
    } else if (!parse_int_expr(p, &o->off))
      goto bad;
    if (!emu_accept(p, "]")) goto bad;
    return 1;
  }
  if (emu_accept(p, "{")) {
    o->kind = O_VEC;
    do {
      emu_tok *r = emu_cur(p);
      if (o->n == 4) goto bad;
      if (emu_is(r, "_")) {
        o->vsink[o->n] = 1;
        o->vslot[o->n] = TAG_SINK;
        o->vtype[o->n++] = EMU_T_NONE;
        p->i++;
        continue;
      }
      uint32_t slot;
      regdecl *d = r->kind == EMU_TOK_ID ? emu_find_reg(p, r->s, r->len, &slot) : NULL;
      if (!d) {
        emu_perr(p, r->line, "Unknown symbol '%.*s'", r->len, r->s);
        return 0;
      }
      o->vslot[o->n] = slot;
      o->vtype[o->n++] = d->type;
      p->i++;
    } while (emu_accept(p, ","));
    if (!emu_accept(p, "}")) goto bad;
    return 1;
  }
  int neg = 0;
  if (emu_accept(p, "!")) {
    o->neg = 1;
    t = emu_cur(p);
  }
  while (emu_is(emu_cur(p), "-") && emu_cur(p)->kind == EMU_TOK_PUNCT) {
    neg = !neg;
    p->i++;
  }
  t = emu_cur(p);
  o->tok = t;
  if (t->kind == EMU_TOK_INT) {
    o->kind = O_INT;
    o->i = neg ? 0 - (uint64_t)t->i : t->i; /* two's complement: -9223372036854775808 too */
  } else if (t->kind == EMU_TOK_FLOAT) {
    o->kind = O_FLT;
    o->f = neg ? -t->f : t->f;
  } else if (t->kind == EMU_TOK_F32) {
    o->kind = O_F32;
    o->i = t->i ^ (neg ? 0x80000000u : 0);
  } else if (t->kind == EMU_TOK_F64) {
    o->kind = O_F64;
    o->i = t->i ^ (neg ? 0x8000000000000000ull : 0);
  } else if (t->kind == EMU_TOK_ID && !neg) {
    uint32_t slot;
    regdecl *r;
    if (emu_is(t, "_"))
      o->kind = O_SINK;
    else if ((r = emu_find_reg(p, t->s, t->len, &slot))) {
      o->kind = O_REG;
      o->slot = slot;
      o->type = r->type;
    } else if (t->s[0] == '%') {
      int k;
      for (k = 0; k < EMU_SP_COUNT; k++)
        if (emu_is(t, emu_special_name(k))) break;
      if (k == EMU_SP_COUNT) {
        emu_perr(p, t->line, "Unknown symbol '%.*s'", t->len, t->s);
        p->i++;
        return 0;
      }
      o->kind = O_SPECIAL;
      o->slot = TAG_SPECIAL | (uint32_t)k;
      o->type = EMU_T_U32;
    } else {
      emu_var *v = emu_find_var(p, t->s, t->len);
      if (v) {
        o->kind = O_VAR;
        o->var = v;
      } else
        o->kind = O_NAME;
    }
  } else
    goto bad;
  p->i++;
  return 1;
bad:
  emu_perr(p, emu_cur(p)->line, "syntax error: malformed operand near '%.*s'", emu_cur(p)->len,
           emu_cur(p)->s);
  return 0;
}

/* ---------- type compatibility ---------- */

/* Is a register of type rt usable where the instruction type is it?  `wide`: the register may
 * be wider than the instruction type (ld, st, cvt), as the ISA allows for integer types. */
static int compat(int it, int rt, int wide) {
  int ik = emu_type_kind(it), rk = emu_type_kind(rt);
  int is = emu_type_size(it), rs = emu_type_size(rt);
  if (ik == EMU_K_PRED || rk == EMU_K_PRED) return ik == rk;
  if (ik == EMU_K_F) {
    if (rk == EMU_K_F) return it == rt;
    return rk == EMU_K_BIT && rs == is;
  }
  /* bit or integer instruction type */
  if (rk == EMU_K_F) return ik == EMU_K_BIT && rs == is;
  return rs == is || (wide && rs > is);
}

static void mismatch(P *p) {
  emu_perr(p, p->line, "Arguments mismatch for instruction '%s'", p->opname);
}

/* Source operand -> slot; checks it against instruction type it. */
static int src(P *p, opnd *o, int it, int wide, uint32_t *slot) {
  int ik = emu_type_kind(it), sz = emu_type_size(it);
  switch (o->kind) {
  case O_REG:
    if (!compat(it, o->type, wide)) break;
    *slot = o->slot;
    return 1;
  case O_SPECIAL:
    if ((ik != EMU_K_BIT && ik != EMU_K_U && ik != EMU_K_S) || sz < 2 || sz > 4) break;
    *slot = o->slot;
    return 1;
  case O_INT:
    if (ik == EMU_K_PRED) {
      if (o->i > 1) break;
      *slot = emu_const_slot(p, o->i);
      return 1;
    }
    if (ik != EMU_K_BIT && ik != EMU_K_U && ik != EMU_K_S) break;
    *slot = emu_const_slot(p, sz == 8 ? o->i : o->i & ((1ull << (8 * sz)) - 1));
    return 1;
  case O_FLT:
  case O_F32:
  case O_F64: {
    if (ik == EMU_K_BIT && ((o->kind == O_F32 && sz == 4) || (o->kind == O_F64 && sz == 8))) {
      *slot = emu_const_slot(p, o->i);
      return 1;
    }
    if (ik != EMU_K_F || it == EMU_T_F16) break;
    double d = o->f;
    if (o->kind == O_F32) {
      uint32_t u = (uint32_t)o->i;
      float fl;
      memcpy(&fl, &u, 4);
      d = fl;
    } else if (o->kind == O_F64)
      memcpy(&d, &o->i, 8);
    uint64_t bits;
    if (it == EMU_T_F32) {
      float fl = (float)d;
      uint32_t u;
      memcpy(&u, &fl, 4);
      bits = u;
      if (o->kind == O_F32) bits = (uint32_t)o->i; /* keep NaN payloads exactly */
    } else {
      memcpy(&bits, &d, 8);
      if (o->kind == O_F64) bits = o->i;
    }
    *slot = emu_const_slot(p, bits);
    return 1;
  }
  case O_VAR:
    if ((ik != EMU_K_BIT && ik != EMU_K_U && ik != EMU_K_S) || sz < 4) break;
    *slot = emu_var_slot(p, o->var, 0);
    return 1;
  case O_NAME:
    emu_perr(p, o->tok->line, "Unknown symbol '%.*s'", o->tok->len, o->tok->s);
    return 0;
  default:
    break;
  }
  mismatch(p);
  return 0;
}

static int dst(P *p, opnd *o, int it, int wide, uint32_t *slot) {
  if (o->kind == O_SINK) {
    *slot = TAG_SINK;
    return 1;
  }
  if (o->kind == O_NAME) {
    emu_perr(p, o->tok->line, "Unknown symbol '%.*s'", o->tok->len, o->tok->s);
    return 0;
  }
  if (o->kind != O_REG || o->neg || !compat(it, o->type, wide)) {
    mismatch(p);
    return 0;
  }
  *slot = o->slot;
  return 1;
}

/* Address operand: base register (32- or 64-bit integer) + offset, or variable + offset. */
static int addr(P *p, opnd *o, emu_insn *in) {
  if (o->kind != O_ADDR) {
    mismatch(p);
    return 0;
  }
  in->off = o->off;
  if (o->has_base) {
    int k = emu_type_kind(o->type), sz = emu_type_size(o->type);
    if ((k != EMU_K_BIT && k != EMU_K_U && k != EMU_K_S) || (sz != 4 && sz != 8)) {
      mismatch(p);
      return 0;
    }
    in->s[0] = o->slot;
  } else {
    in->s[0] = emu_const_slot(p, 0);
    if (o->var) {
      GROW(p->fix, p->nfix, p->capfix);
      p->fix[p->nfix++] = (fixup){p->ncode, 0, o->var, 0};
    }
  }
  return 1;
}

/* ---------- modifiers ---------- */

static int take(mods *md, const char *s) {
  for (int k = 0; k < md->n; k++)
    if (!md->used[k] && (int)strlen(s) == md->len[k] && !memcmp(md->s[k], s, (size_t)md->len[k])) {
      md->used[k] = 1;
      return 1;
    }
  return 0;
}
static int take_one(mods *md, const char *const *names, int n) {
  for (int k = 0; k < n; k++)
    if (names[k] && take(md, names[k])) return k;
  return -1;
}
static int take_types(mods *md, int *out, int max) {
  int n = 0;
  for (int k = 0; k < md->n; k++) {
    if (md->used[k]) continue;
    int t = emu_type_parse(md->s[k], md->len[k]);
    if (t) {
      if (n < max) out[n] = t;
      n++;
      md->used[k] = 1;
    }
  }
  return n;
}
static int take_space(mods *md) {
  static const char *const sp[] = {NULL, "global", "shared", "local", "param", "const"};
  int s = take_one(md, sp, 6);
  if (take(md, "cta") && s == EMU_SP_SHARED) return s; /* .shared::cta */
  return s < 0 ? EMU_SP_GENERIC : s;
}
static int take_rnd(mods *md) {
  static const char *const r[] = {NULL, "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
  int k = take_one(md, r, 9);
  return k < 0 ? EMU_RND_NONE : k;
}
static int leftover(P *p, mods *md) {
  for (int k = 0; k < md->n; k++)
    if (!md->used[k]) {
      emu_perr(p, p->line, "Unknown modifier '.%.*s' for instruction '%s'", md->len[k], md->s[k],
               p->opname);
      return 1;
    }
  return 0;
}

/* ---------- instructions ---------- */

static int is_int(int t) {
  int k = emu_type_kind(t);
  return k == EMU_K_BIT || k == EMU_K_U || k == EMU_K_S;
}
static int is_sint(int t) {
  return emu_type_kind(t) == EMU_K_S;
}
static int is_flt(int t) {
  return t == EMU_T_F32 || t == EMU_T_F64;
}
static int int_arith(int t) {
  return (emu_type_kind(t) == EMU_K_U || is_sint(t)) && emu_type_size(t) >= 2;
}
static int wider(int t) {
  switch (t) {
  case EMU_T_U16:
    return EMU_T_U32;
  case EMU_T_S16:
    return EMU_T_S32;
  case EMU_T_U32:
    return EMU_T_U64;
  case EMU_T_S32:
    return EMU_T_S64;
  default:
    return EMU_T_NONE;
  }
}

#define NEED(c)                                                                                    \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      mismatch(p);                                                                                 \
      return 0;                                                                                    \
    }                                                                                              \
  } while (0)
#define ILLEGAL(what)                                                                              \
  do {                                                                                             \
    emu_perr(p, p->line, "Illegal modifier '%s' for instruction '%s'", what, p->opname);           \
    return 0;                                                                                      \
  } while (0)
/* An error of the instruction: the message, then `return 0`. */
#define REFUSE(...)                                                                                \
  do {                                                                                             \
    emu_perr(p, p->line, __VA_ARGS__);                                                             \
    return 0;                                                                                      \
  } while (0)

static const char *const cmp_names[] = {
#define CMP_NAME(id, name, ik, ie, fk, fe) name,
    EMU_CMPS(CMP_NAME)
#undef CMP_NAME
};

static int nops(P *p, int n, int want) {
  if (n != want) {
    mismatch(p);
    return 0;
  }
  return 1;
}

/* The one type an instruction must have, into in->type. */
static int one_type(P *p, mods *md, emu_insn *in) {
  int ty[3];
  int nt = take_types(md, ty, 3);
  if (nt != 1) REFUSE("%s type for instruction '%s'", nt ? "Too many" : "Missing", p->opname);
  in->type = (uint8_t)ty[0];
  return 1;
}

/* Destination o[0] of type dt, sources o[1..n-1] of type st. */
static int dst_srcs(P *p, emu_insn *in, opnd *o, int n, int dt, int st) {
  if (!dst(p, &o[0], dt, 0, &in->d[0])) return 0;
  for (int k = 1; k < n; k++)
    if (!src(p, &o[k], st, 0, &in->s[k - 1])) return 0;
  in->nsrc = (uint8_t)(n - 1);
  in->ndst = 1;
  return 1;
}

/* Float arithmetic: the rounding, .ftz, .sat and .approx rules. */
static int arith_float(P *p, emu_insn *in, opnd *o, int n, int rnd, int ftz, int sat, int approx) {
  int op = in->op, t = in->type;
  if (op == EMU_OP_REM) NEED(0);
  if (rnd > EMU_RND_RP) ILLEGAL(".rni");
  if ((ftz || sat) && t == EMU_T_F64) ILLEGAL(".ftz");
  if (op == EMU_OP_DIV) {
    if (t == EMU_T_F32 && !rnd && !approx)
      REFUSE("Rounding modifier or '.approx' modifier required for instruction 'div'");
    if (t == EMU_T_F64 && !rnd) REFUSE("Rounding modifier required for instruction 'div'");
    if (approx) in->flags |= EMU_F_APPROX;
  } else if (approx)
    ILLEGAL(".approx");
  if (op == EMU_OP_FMA && !rnd)
    REFUSE("Rounding modifier required for instruction '%s'", p->opname);
  int exact = op == EMU_OP_MIN || op == EMU_OP_MAX || op == EMU_OP_COPYSIGN;
  if (exact && rnd) ILLEGAL(".rn");
  if (op == EMU_OP_COPYSIGN && (ftz || sat)) ILLEGAL(".ftz");
  if (!rnd && !exact) in->rnd = EMU_RND_RN;
  if (op == EMU_OP_MAD) in->op = EMU_OP_FMA; /* mad.rn.f32 is fma.rn.f32 */
  in->flags |= (uint8_t)((ftz ? EMU_F_FTZ : 0) | (sat ? EMU_F_SAT : 0));
  in->cls = EMU_CLS_FLOAT;
  return dst_srcs(p, in, o, n, t, t);
}

/* add sub mul div rem min max mad fma copysign */
static int b_ARITH(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int op = in->op;
  int three = op == EMU_OP_MAD || op == EMU_OP_FMA;
  int rnd = take_rnd(md), ftz = take(md, "ftz"), sat = take(md, "sat");
  int lo = take(md, "lo"), hi = take(md, "hi"), wide = take(md, "wide");
  int approx = take(md, "approx") | take(md, "full");
  if (!one_type(p, md, in)) return 0;
  int t = in->type;
  if (!nops(p, n, three ? 4 : 3)) return 0;
  in->rnd = (uint8_t)rnd;
  if (is_flt(t)) {
    if (lo || hi || wide)
      REFUSE("Unexpected instruction types specified for '%s.%s'", p->opname,
             lo   ? "lo"
             : hi ? "hi"
                  : "wide");
    return arith_float(p, in, o, n, rnd, ftz, sat, approx);
  }
  if (op == EMU_OP_FMA || op == EMU_OP_COPYSIGN)
    REFUSE("Unexpected instruction types specified for '%s'", p->opname);
  if (rnd) REFUSE("Illegal rounding modifier for instruction '%s'", p->opname);
  if (ftz || approx) ILLEGAL(".ftz");
  if (sat &&
      !(t == EMU_T_S32 && (op == EMU_OP_ADD || op == EMU_OP_SUB || (op == EMU_OP_MAD && hi))))
    ILLEGAL(".sat");
  if (!int_arith(t)) REFUSE("Unexpected instruction types specified for '%s'", p->opname);
  int dt = t;
  if (op == EMU_OP_MUL || op == EMU_OP_MAD) {
    if (lo + hi + wide != 1)
      REFUSE("'.lo', '.hi' or '.wide' required for instruction '%s'", p->opname);
    if (wide && !(dt = wider(t)))
      REFUSE("Unexpected instruction types specified for '%s.wide'", p->opname);
    int m = op == EMU_OP_MUL;
    in->op = lo   ? (m ? EMU_OP_MUL : EMU_OP_MAD)
             : hi ? (m ? EMU_OP_MULHI : EMU_OP_MADHI)
                  : (m ? EMU_OP_MULWIDE : EMU_OP_MADWIDE);
  } else if (lo || hi || wide)
    ILLEGAL(".lo");
  if (sat)
    in->op = in->op == EMU_OP_ADD   ? EMU_OP_ADDSAT
             : in->op == EMU_OP_SUB ? EMU_OP_SUBSAT
                                    : EMU_OP_MADHISAT;
  if (!dst(p, &o[0], dt, 0, &in->d[0])) return 0;
  if (!src(p, &o[1], t, 0, &in->s[0]) || !src(p, &o[2], t, 0, &in->s[1])) return 0;
  if (three && !src(p, &o[3], dt, 0, &in->s[2])) return 0;
  in->nsrc = (uint8_t)(n - 1);
  in->ndst = 1;
  return 1;
}

/* sqrt rcp rsqrt sin cos lg2 ex2: the rounding and .approx rules. */
static int unary_float(P *p, emu_insn *in, int rnd, int ftz, int approx) {
  int op = in->op, t = in->type;
  if (!is_flt(t)) REFUSE("Unexpected instruction types specified for '%s'", p->opname);
  if (rnd > EMU_RND_RP) ILLEGAL(".rni");
  if (op == EMU_OP_SQRT || op == EMU_OP_RCP) {
    if (!rnd && !approx)
      REFUSE("Rounding modifier or '.approx' modifier required for instruction '%s'", p->opname);
    if (approx && rnd) ILLEGAL(".approx");
    if (t == EMU_T_F64 && approx && op == EMU_OP_SQRT) ILLEGAL(".approx");
    if (t == EMU_T_F64 && approx && !ftz)
      REFUSE("'.ftz' modifier required for instruction '%s.approx.f64'", p->opname);
    if (t == EMU_T_F64 && ftz && !approx) ILLEGAL(".ftz");
  } else {
    if (!approx) REFUSE("'.approx' modifier required for instruction '%s'", p->opname);
    if (rnd) ILLEGAL(".rn");
    if (t == EMU_T_F64 && op != EMU_OP_RSQRT)
      REFUSE("Unexpected instruction types specified for '%s'", p->opname);
    if (t == EMU_T_F64 && !ftz)
      REFUSE("'.ftz' modifier required for instruction '%s.approx.f64'", p->opname);
  }
  in->rnd = (uint8_t)(rnd ? rnd : EMU_RND_RN);
  if (approx) in->flags |= EMU_F_APPROX;
  in->cls = EMU_CLS_FLOAT;
  return 1;
}

/* abs neg sqrt rcp rsqrt sin cos lg2 ex2 */
static int b_UNARY(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int rnd = take_rnd(md), ftz = take(md, "ftz"), approx = take(md, "approx");
  if (!one_type(p, md, in) || !nops(p, n, 2)) return 0;
  int t = in->type;
  if (in->op == EMU_OP_ABS || in->op == EMU_OP_NEG) {
    if (rnd || approx) ILLEGAL(".rn");
    if (!is_flt(t) && !is_sint(t))
      REFUSE("Instruction '%s' applies only to signed numeric types", p->opname);
    if (ftz && t != EMU_T_F32) ILLEGAL(".ftz");
    if (is_flt(t)) in->cls = EMU_CLS_FLOAT;
  } else if (!unary_float(p, in, rnd, ftz, approx))
    return 0;
  if (ftz) in->flags |= EMU_F_FTZ;
  return dst_srcs(p, in, o, n, t, t);
}

/* and or xor not cnot shl shr popc clz brev bfe bfi lop3 */
static int b_LOGIC(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  if (!one_type(p, md, in)) return 0;
  int op = in->op, t = in->type;
  int un = op == EMU_OP_NOT || op == EMU_OP_CNOT || op == EMU_OP_POPC || op == EMU_OP_CLZ ||
           op == EMU_OP_BREV;
  int want = un ? 2 : op == EMU_OP_BFE ? 4 : op == EMU_OP_BFI ? 5 : op == EMU_OP_LOP3 ? 5 : 3;
  if (!nops(p, n, want)) return 0;
  int bits = emu_type_kind(t) == EMU_K_BIT, sz = emu_type_size(t), okt;
  if (op == EMU_OP_AND || op == EMU_OP_OR || op == EMU_OP_XOR || op == EMU_OP_NOT)
    okt = t == EMU_T_PRED || (bits && sz >= 2);
  else if (op == EMU_OP_SHR)
    okt = is_int(t) && sz >= 2;
  else if (op == EMU_OP_BFE)
    okt = (emu_type_kind(t) == EMU_K_U || is_sint(t)) && sz >= 4;
  else if (op == EMU_OP_LOP3)
    okt = t == EMU_T_B32;
  else if (op == EMU_OP_SHL || op == EMU_OP_CNOT)
    okt = bits && sz >= 2;
  else
    okt = bits && sz >= 4;
  if (!okt) REFUSE("Unexpected instruction types specified for '%s'", p->opname);
  int dt = op == EMU_OP_POPC || op == EMU_OP_CLZ ? EMU_T_U32 : t;
  if (!dst(p, &o[0], dt, 0, &in->d[0])) return 0;
  for (int k = 1; k < n; k++) {
    int st = t;
    if ((op == EMU_OP_SHL || op == EMU_OP_SHR) && k == 2) st = EMU_T_U32;
    if (op == EMU_OP_BFE && k >= 2) st = EMU_T_U32;
    if (op == EMU_OP_BFI && k >= 3) st = EMU_T_U32;
    if (op == EMU_OP_LOP3 && k == 4) {
      NEED(o[k].kind == O_INT && o[k].i < 256);
      in->mode = (uint8_t)o[k].i;
      continue;
    }
    if (!src(p, &o[k], st, 0, &in->s[k - 1])) return 0;
  }
  in->nsrc = (uint8_t)(op == EMU_OP_LOP3 ? 3 : n - 1);
  in->ndst = 1;
  return 1;
}

static int b_TESTP(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  static const char *const tp[] = {"finite",     "infinite", "number",
                                   "notanumber", "normal",   "subnormal"};
  int m = take_one(md, tp, 6);
  if (!one_type(p, md, in)) return 0;
  if (m < 0 || !is_flt(in->type)) NEED(0);
  if (!nops(p, n, 2)) return 0;
  in->mode = (uint8_t)m;
  if (!dst(p, &o[0], EMU_T_PRED, 0, &in->d[0]) || !src(p, &o[1], in->type, 0, &in->s[0])) return 0;
  in->nsrc = 1;
  in->ndst = 1;
  return 1;
}

static int b_SETP(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int cmp = take_one(md, cmp_names, EMU_CMP_COUNT);
  static const char *const bops[] = {NULL, "and", "or", "xor"};
  int bop = take_one(md, bops, 4);
  int ftz = take(md, "ftz");
  if (!one_type(p, md, in)) return 0;
  int t = in->type;
  if (cmp < 0) REFUSE("Comparison operator required for instruction 'setp'");
  if (t == EMU_T_PRED || t == EMU_T_F16 || emu_type_size(t) < 2)
    REFUSE("Unexpected instruction types specified for 'setp'");
  if (!is_flt(t) && cmp >= EMU_CMP_EQU)
    REFUSE("Illegal comparison operator '.%s' for integer type", cmp_names[cmp]);
  if (is_flt(t) && cmp >= EMU_CMP_LO && cmp <= EMU_CMP_HS)
    REFUSE("Illegal comparison operator '.%s' for floating-point type", cmp_names[cmp]);
  if (emu_type_kind(t) == EMU_K_BIT && cmp != EMU_CMP_EQ && cmp != EMU_CMP_NE)
    REFUSE("Illegal comparison operator '.%s' for bit-size type", cmp_names[cmp]);
  if (ftz && t != EMU_T_F32) ILLEGAL(".ftz");
  int pipe = n >= 2 && o[1].pipe;
  if (!nops(p, n, 3 + pipe + (bop > 0))) return 0;
  in->cmp = (uint8_t)cmp;
  in->bop = (uint8_t)(bop < 0 ? 0 : bop);
  if (ftz) in->flags |= EMU_F_FTZ;
  if (is_flt(t)) in->cls = EMU_CLS_FLOAT;
  if (!dst(p, &o[0], EMU_T_PRED, 0, &in->d[0])) return 0;
  in->ndst = 1;
  int k = 1;
  if (pipe) {
    if (!dst(p, &o[1], EMU_T_PRED, 0, &in->d[1])) return 0;
    in->ndst = 2;
    k = 2;
  }
  if (!src(p, &o[k], t, 0, &in->s[0]) || !src(p, &o[k + 1], t, 0, &in->s[1])) return 0;
  in->nsrc = 2;
  if (bop > 0) {
    if (!src(p, &o[k + 2], EMU_T_PRED, 0, &in->s[2])) return 0;
    if (o[k + 2].neg) in->sneg |= 4;
    in->nsrc = 3;
  }
  return 1;
}

static int b_SELP(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  if (!one_type(p, md, in) || !nops(p, n, 4)) return 0;
  int t = in->type;
  if (t == EMU_T_PRED || emu_type_size(t) < 2 || t == EMU_T_F16) NEED(0);
  if (!dst(p, &o[0], t, 0, &in->d[0]) || !src(p, &o[1], t, 0, &in->s[0]) ||
      !src(p, &o[2], t, 0, &in->s[1]) || !src(p, &o[3], EMU_T_PRED, 0, &in->s[2]))
    return 0;
  if (o[3].neg) NEED(0);
  in->nsrc = 3;
  in->ndst = 1;
  return 1;
}

/* mov.b64 d, {a, b} (pack) and mov.b64 {a, b}, d (unpack) */
static int pack(P *p, emu_insn *in, opnd *o) {
  int t = in->type, vi = o[0].kind == O_VEC ? 0 : 1;
  int nv = o[vi].n, es = emu_type_size(t) / (nv ? nv : 1);
  NEED(emu_type_kind(t) == EMU_K_BIT && (nv == 2 || nv == 4) && es * nv == emu_type_size(t) &&
       es >= 2);
  int et = es == 2 ? EMU_T_B16 : es == 4 ? EMU_T_B32 : EMU_T_B64;
  in->vec = (uint8_t)nv;
  in->type2 = (uint8_t)et;
  if (vi == 1) {
    in->op = EMU_OP_PACK;
    if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
    for (int k = 0; k < nv; k++) {
      NEED(!o[1].vsink[k] && compat(et, o[1].vtype[k], 0));
      in->s[k] = o[1].vslot[k];
    }
    in->nsrc = (uint8_t)nv;
    in->ndst = 1;
    return 1;
  }
  in->op = EMU_OP_UNPACK;
  if (!src(p, &o[1], t, 0, &in->s[0])) return 0;
  for (int k = 0; k < nv; k++) {
    NEED(o[0].vsink[k] || compat(et, o[0].vtype[k], 0));
    in->d[k] = o[0].vslot[k];
  }
  in->nsrc = 1;
  in->ndst = (uint8_t)nv;
  return 1;
}

static int b_MOV(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  if (!one_type(p, md, in) || !nops(p, n, 2)) return 0;
  int t = in->type;
  if (t == EMU_T_F16 || emu_type_size(t) == 1) NEED(0);
  if (o[0].kind == O_VEC || o[1].kind == O_VEC) return pack(p, in, o);
  if (o[1].kind == O_VAR && emu_type_size(t) < 4) NEED(0);
  return dst_srcs(p, in, o, n, t, t);
}

/* The rounding and .sat rules of cvt from type at to type dt. */
static int cvt_rules(P *p, int dt, int at, int rnd, int ftz, int sat) {
  int df = is_flt(dt), af = is_flt(at);
  const char *need = rnd ? "Illegal rounding modifier" : "Rounding modifier required";
  if (!df && !af) {
    if (rnd) REFUSE("Illegal rounding modifier for instruction 'cvt'");
    /* .sat only where the destination range does not contain the source range */
    int ds = emu_type_size(dt), as = emu_type_size(at);
    int superset =
        (is_sint(dt) == is_sint(at) && ds >= as) || (is_sint(dt) && !is_sint(at) && ds > as);
    if (sat && superset) ILLEGAL(".sat");
  } else if (af && !df) {
    if (rnd < EMU_RND_RNI)
      REFUSE("%s rounding modifier for instruction 'cvt'",
             rnd ? "Illegal" : "Rounding modifier required:");
    if (ftz && at != EMU_T_F32) ILLEGAL(".ftz");
  } else if (!af) {
    if (!rnd || rnd > EMU_RND_RP) REFUSE("%s for instruction 'cvt'", need);
    if (ftz) ILLEGAL(".ftz");
  } else {
    if (dt == EMU_T_F32 && at == EMU_T_F64) {
      if (!rnd || rnd > EMU_RND_RP) REFUSE("%s for instruction 'cvt'", need);
    } else if (dt == EMU_T_F64 && at == EMU_T_F32) {
      if (rnd) REFUSE("Illegal rounding modifier for instruction 'cvt'");
    } else if (rnd && rnd < EMU_RND_RNI)
      REFUSE("Illegal rounding modifier for instruction 'cvt'");
    if (ftz && dt != EMU_T_F32 && at != EMU_T_F32) ILLEGAL(".ftz");
  }
  return 1;
}

static int b_CVT(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int rnd = take_rnd(md), ftz = take(md, "ftz"), sat = take(md, "sat");
  int ty[3];
  if (take_types(md, ty, 3) != 2) REFUSE("Two types required for instruction 'cvt'");
  int dt = ty[0], at = ty[1];
  if (!nops(p, n, 2)) return 0;
  if (dt == EMU_T_PRED || at == EMU_T_PRED || dt == EMU_T_F16 || at == EMU_T_F16 ||
      emu_type_kind(dt) == EMU_K_BIT || emu_type_kind(at) == EMU_K_BIT)
    REFUSE("Unexpected instruction types specified for 'cvt'");
  if (!cvt_rules(p, dt, at, rnd, ftz, sat)) return 0;
  in->type = (uint8_t)dt;
  in->type2 = (uint8_t)at;
  in->rnd = (uint8_t)rnd;
  in->flags |= (uint8_t)((ftz ? EMU_F_FTZ : 0) | (sat ? EMU_F_SAT : 0));
  if (!dst(p, &o[0], dt, 1, &in->d[0]) || !src(p, &o[1], at, 1, &in->s[0])) return 0;
  in->rsz = (uint8_t)(o[0].kind == O_REG ? emu_type_size(o[0].type) : 8);
  in->nsrc = 1;
  in->ndst = 1;
  return 1;
}

static int b_CVTA(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int to = take(md, "to");
  int sp = take_space(md);
  if (!one_type(p, md, in)) return 0;
  int t = in->type;
  if (sp == EMU_SP_GENERIC) REFUSE("State space required for instruction 'cvta'");
  if (t != EMU_T_U32 && t != EMU_T_U64) REFUSE("Unexpected instruction types specified for 'cvta'");
  if (!nops(p, n, 2)) return 0;
  if (to) in->op = EMU_OP_CVTA_TO;
  in->space = (uint8_t)sp;
  return dst_srcs(p, in, o, n, t, t);
}

/* The data operand of ld/st: a register or a vector of them. */
static int mem_data(P *p, emu_insn *in, opnd *r, int isld) {
  int vec = in->vec, t = in->type;
  if (vec > 1) {
    NEED(r->kind == O_VEC && r->n == vec);
    for (int k = 0; k < vec; k++) {
      if (r->vsink[k]) {
        NEED(isld);
        in->d[k] = TAG_SINK;
        continue;
      }
      NEED(compat(t, r->vtype[k], 1));
      in->rsz = (uint8_t)emu_type_size(r->vtype[k]);
      if (isld)
        in->d[k] = r->vslot[k];
      else
        in->s[1 + k] = r->vslot[k];
    }
    if (isld)
      in->ndst = (uint8_t)vec;
    else
      in->nsrc = (uint8_t)(1 + vec);
  } else if (isld) {
    if (!dst(p, r, t, 1, &in->d[0])) return 0;
    in->ndst = 1;
    in->rsz = (uint8_t)(r->kind == O_REG ? emu_type_size(r->type) : 8);
  } else {
    if (!src(p, r, t, 1, &in->s[1])) return 0;
    in->nsrc = 2;
  }
  return 1;
}

static int b_MEM(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int isld = in->op == EMU_OP_LD;
  take(md, "weak");
  take(md, "volatile");
  if (take(md, "relaxed") || take(md, "acquire") || take(md, "release")) {
    static const char *const sc[] = {"cta", "gpu", "sys"};
    if (take_one(md, sc, 3) < 0) REFUSE("Scope required with memory-ordering qualifier");
  }
  int sp = take_space(md);
  int nc = take(md, "nc");
  static const char *const ldc[] = {"ca", "cg", "cs", "lu", "cv"};
  static const char *const stc[] = {"wb", "cg", "cs", "wt"};
  if (isld)
    take_one(md, ldc, 5);
  else
    take_one(md, stc, 4);
  if (!isld && (take(md, "ca") || take(md, "lu") || take(md, "cv"))) ILLEGAL(".ca");
  int vec = take(md, "v2") ? 2 : take(md, "v4") ? 4 : 1;
  if (!one_type(p, md, in)) return 0;
  int t = in->type;
  if (nc && (!isld || sp != EMU_SP_GLOBAL)) {
    if (!isld) ILLEGAL(".nc");
    REFUSE("Modifier '.nc' requires .global space");
  }
  if (t == EMU_T_PRED || t == EMU_T_F16) NEED(0);
  if (vec * emu_type_size(t) > 16) NEED(0);
  if (!nops(p, n, 2)) return 0;
  in->space = (uint8_t)sp;
  in->vec = (uint8_t)vec;
  in->cls = sp == EMU_SP_SHARED  ? EMU_CLS_MEM_SHARED
            : sp == EMU_SP_LOCAL ? EMU_CLS_MEM_LOCAL
            : sp == EMU_SP_PARAM ? EMU_CLS_MEM_PARAM
            : sp == EMU_SP_CONST ? EMU_CLS_MEM_CONST
                                 : EMU_CLS_MEM_GLOBAL;
  opnd *a = isld ? &o[1] : &o[0], *r = isld ? &o[0] : &o[1];
  if (a->kind == O_ADDR && !a->has_base && a->var && a->var->space != sp && sp != EMU_SP_GENERIC)
    REFUSE("State space mismatch for variable '%s' in instruction '%s'", a->var->name, p->opname);
  if (!addr(p, a, in)) return 0;
  in->nsrc = 1;
  return mem_data(p, in, r, isld);
}

/* Which types an atomic operation takes. */
static int atom_type_ok(int aop, int t) {
  int k = emu_type_kind(t), sz = emu_type_size(t);
  switch (aop) {
  case EMU_ATOM_ADD:
    return (k == EMU_K_U && sz >= 4) || t == EMU_T_S32 || is_flt(t);
  case EMU_ATOM_MIN:
  case EMU_ATOM_MAX:
    return (k == EMU_K_U || k == EMU_K_S) && sz >= 4;
  case EMU_ATOM_INC:
  case EMU_ATOM_DEC:
    return t == EMU_T_U32;
  default: /* exch, cas, and, or, xor */
    return k == EMU_K_BIT && sz >= 4;
  }
}

/* atom and red */
static int b_ATOM(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int isred = p->opname[0] == 'r';
  static const char *const sem[] = {"relaxed", "acquire", "release", "acq_rel"};
  static const char *const sc[] = {"cta", "gpu", "sys"};
  take_one(md, sem, 4);
  int sp = take_space(md);
  take_one(md, sc, 3);
  static const char *const aops[] = {"add", "min", "max", "exch", "cas",
                                     "and", "or",  "xor", "inc",  "dec"};
  int aop = take_one(md, aops, 10);
  take(md, "noftz");
  if (!one_type(p, md, in)) return 0;
  int t = in->type;
  if (aop < 0) REFUSE("Operation required for instruction '%s'", p->opname);
  if (sp != EMU_SP_GENERIC && sp != EMU_SP_GLOBAL && sp != EMU_SP_SHARED)
    REFUSE("Illegal state space for instruction '%s'", p->opname);
  if (!atom_type_ok(aop, t))
    REFUSE("Unexpected instruction types specified for '%s.%s'", p->opname, aops[aop]);
  if (isred && aop == EMU_ATOM_CAS) NEED(0);
  if (!nops(p, n, (isred ? 2 : 3) + (aop == EMU_ATOM_CAS))) return 0;
  in->mode = (uint8_t)aop;
  in->space = (uint8_t)sp;
  int a0 = isred ? 0 : 1;
  if (!addr(p, &o[a0], in)) return 0;
  if (!isred) {
    if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
  } else
    in->d[0] = TAG_SINK;
  in->ndst = 1;
  for (int j = a0 + 1; j < n; j++)
    if (!src(p, &o[j], t, 0, &in->s[j - a0])) return 0;
  in->nsrc = (uint8_t)(n - a0);
  return 1;
}

/* bra ret exit */
static int b_CONTROL(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  take(md, "uni");
  int ty[3];
  if (take_types(md, ty, 3)) NEED(0);
  if (in->op != EMU_OP_BRA) return nops(p, n, 0);
  if (!nops(p, n, 1)) return 0;
  if (o[0].kind != O_NAME) REFUSE("Label expected for instruction 'bra'");
  GROW(p->lrefs, p->nlrefs, p->caplrefs);
  p->lrefs[p->nlrefs++] = (labelref){p->ncode, o[0].tok->line, emu_tokdup(o[0].tok)};
  return 1;
}

/* bar.sync, barrier.sync, bar.warp.sync */
static int b_BAR(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int warp = take(md, "warp");
  take(md, "cta");
  int sync = take(md, "sync");
  take(md, "aligned");
  if (!sync) REFUSE("Only the .sync form of '%s' is supported", p->opname);
  if (warp) {
    if (!nops(p, n, 1)) return 0;
    in->op = EMU_OP_BARWARP;
    in->cls = EMU_CLS_WARP;
  } else if (n < 1 || n > 2)
    NEED(0);
  for (int k = 0; k < n; k++)
    if (!src(p, &o[k], EMU_T_B32, 0, &in->s[k])) return 0;
  in->nsrc = (uint8_t)n;
  return 1;
}

/* The .sync form's mode (one of names) and type; -1 on an error. */
static int sync_mode(P *p, emu_insn *in, mods *md, const char *const names[4]) {
  if (!take(md, "sync")) {
    emu_perr(p, p->line, "Instruction '%s' without '.sync' is not supported on sm_70 and higher",
             p->opname);
    return -1;
  }
  int mode = take_one(md, names, 4);
  if (!one_type(p, md, in)) return -1;
  if (mode < 0) {
    mismatch(p);
    return -1;
  }
  in->mode = (uint8_t)mode;
  return mode;
}

static int b_SHFL(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  static const char *const sm[] = {"up", "down", "bfly", "idx"};
  if (sync_mode(p, in, md, sm) < 0) return 0;
  if (in->type != EMU_T_B32) NEED(0);
  int pipe = n >= 2 && o[1].pipe;
  if (!nops(p, n, 5 + pipe)) return 0;
  if (!dst(p, &o[0], EMU_T_B32, 0, &in->d[0])) return 0;
  in->ndst = 1;
  int k = 1;
  if (pipe) {
    if (!dst(p, &o[1], EMU_T_PRED, 0, &in->d[1])) return 0;
    in->ndst = 2;
    in->flags |= EMU_F_HASP;
    k = 2;
  }
  for (int j = 0; j < 4; j++)
    if (!src(p, &o[k + j], EMU_T_B32, 0, &in->s[j])) return 0;
  in->nsrc = 4;
  return 1;
}

static int b_VOTE(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  static const char *const vm[] = {"all", "any", "uni", "ballot"};
  int mode = sync_mode(p, in, md, vm), t = in->type;
  if (mode < 0) return 0;
  if ((mode == EMU_VOTE_BALLOT) != (t == EMU_T_B32) || (mode != EMU_VOTE_BALLOT && t != EMU_T_PRED))
    NEED(0);
  if (!nops(p, n, 3)) return 0;
  if (!dst(p, &o[0], t, 0, &in->d[0]) || !src(p, &o[1], EMU_T_PRED, 0, &in->s[0]) ||
      !src(p, &o[2], EMU_T_B32, 0, &in->s[1]))
    return 0;
  if (o[1].neg) in->sneg |= 1;
  in->nsrc = 2;
  in->ndst = 1;
  return 1;
}

static int b_ACTIVEMASK(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  if (!one_type(p, md, in)) return 0;
  if (in->type != EMU_T_B32 || !nops(p, n, 1)) NEED(0);
  if (!dst(p, &o[0], EMU_T_B32, 0, &in->d[0])) return 0;
  in->ndst = 1;
  return 1;
}

/* membar and fence */
static int b_MEMBAR(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  (void)in, (void)o;
  static const char *const lv[] = {"cta", "gl", "sys", "gpu", "sc", "acq_rel"};
  while (take_one(md, lv, 6) >= 0) {
  }
  return nops(p, n, 0);
}

typedef int (*builder)(P *p, emu_insn *in, mods *md, opnd *o, int n);
#define b_NONE NULL
static const struct {
  const char *name, *alias;
  builder build;
  uint8_t cls;
} ops[] = {
#define OP_ROW(ID, name, alias, family, class, it, ie, ft, fe)                                     \
  {name, alias, b_##family, EMU_CLS_##class},
    EMU_OPS(OP_ROW)
#undef OP_ROW
};

/* The operation a mnemonic introduces, or -1. */
static int op_named(const char *s) {
  for (int k = 0; k < EMU_OP_COUNT; k++)
    if ((ops[k].name[0] && !strcmp(ops[k].name, s)) ||
        (ops[k].alias[0] && !strcmp(ops[k].alias, s)))
      return k;
  return -1;
}

/* Builds one instruction from its mnemonic parts and operands; 1 on success. */
static int build(P *p, emu_insn *in, mods *md, opnd *o, int n) {
  int op = op_named(p->opname);
  if (op < 0) REFUSE("Not a name of any known instruction: '%s'", p->opname);
  in->op = (uint8_t)op;
  in->cls = ops[op].cls;
  return ops[op].build(p, in, md, o, n);
}

void emu_parse_instruction(P *p) {
  emu_insn in;
  memset(&in, 0, sizeof in);
  in.guard = -1;
  p->line = emu_cur(p)->line;
  in.line = p->line;
  if (emu_accept(p, "@")) {
    int neg = emu_accept(p, "!");
    emu_tok *g = emu_cur(p);
    uint32_t slot;
    regdecl *r = g->kind == EMU_TOK_ID ? emu_find_reg(p, g->s, g->len, &slot) : NULL;
    if (!r || r->type != EMU_T_PRED) {
      emu_perr(p, g->line, r ? "Guard must be a predicate" : "Unknown symbol '%.*s'", g->len, g->s);
      emu_skip_stmt(p);
      return;
    }
    in.guard = (int32_t)slot;
    if (neg) in.flags |= EMU_F_GNEG;
    p->i++;
  }
  emu_tok *mt = emu_cur(p);
  if (mt->kind != EMU_TOK_ID || mt->s[0] == '.' || mt->s[0] == '%') {
    emu_perr(p, mt->line, "syntax error: instruction expected, found '%.*s'", mt->len, mt->s);
    emu_skip_stmt(p);
    return;
  }
  p->i++;
  char opname[64];
  mods md;
  memset(&md, 0, sizeof md);
  int k = 0;
  while (k < mt->len && mt->s[k] != '.') k++;
  if (k >= (int)sizeof opname) k = (int)sizeof opname - 1;
  memcpy(opname, mt->s, (size_t)k);
  opname[k] = 0;
  while (k < mt->len) {
    int j = k + 1;
    while (j < mt->len && mt->s[j] != '.') j++;
    if (md.n == 16 || j == k + 1) {
      emu_perr(p, mt->line, "syntax error: malformed instruction '%.*s'", mt->len, mt->s);
      emu_skip_stmt(p);
      return;
    }
    md.s[md.n] = mt->s + k + 1;
    md.len[md.n++] = j - k - 1;
    k = j;
  }
  /* shared::cta style modifiers come as ".shared::cta" -> lexed separately; not supported */
  p->opname = opname;
  opnd o[8];
  int n = 0;
  if (!emu_is(emu_cur(p), ";")) {
    for (;;) {
      if (n == 8) {
        emu_perr(p, p->line, "too many operands");
        emu_skip_stmt(p);
        return;
      }
      int pipe = 0;
      if (n > 0 && emu_accept(p, "|")) pipe = 1;
      if (!parse_operand(p, &o[n])) {
        emu_skip_stmt(p);
        return;
      }
      o[n].pipe = pipe;
      n++;
      if (emu_is(emu_cur(p), "|")) continue;
      if (!emu_accept(p, ",")) break;
    }
  }
  if (!emu_is(emu_cur(p), ";")) {
    emu_perr(p, emu_cur(p)->line, "syntax error: expected ';' but found '%.*s'", emu_cur(p)->len,
             emu_cur(p)->s);
    emu_skip_stmt(p);
    return;
  }
  p->i++;
  int nerr = p->nerr;
  if (!build(p, &in, &md, o, n) || leftover(p, &md)) {
    if (p->nerr == nerr) mismatch(p);
    return;
  }
  in.tk = (uint8_t)emu_type_tk(in.type);
  in.code = (uint16_t)(in.op * EMU_TK_N + in.tk);
  GROW(p->code, p->ncode, p->capcode);
  p->code[p->ncode++] = in;
}
