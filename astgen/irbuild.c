/* The IR builder: constant folding of integer operations, value numbering scoped by the
 * regions of control flow, memory and variable versions so that no value is reused
 * after what it read may have changed. */
#include "astgen/irbuild.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arith.h"

enum { NBUCKETS = 1 << 14 }; /* unrolled kernels number tens of thousands of values */

typedef struct vn_operand {
  int kind, type, reg, version;
  long i;
  uint64_t fbits;
} vn_operand;

typedef struct vn_key {
  int op, type, cmp, approx;
  long imm;
  int world, epoch;
  vn_operand v[3];
} vn_key;

struct sj_vn_entry {
  vn_key key;
  int dst;
  int next; /* the bucket's previous head */
  unsigned bucket;
};

static void *grow(void *p, int *cap, int need, size_t size) {
  if (need <= *cap) return p;
  int n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  p = realloc(p, (size_t)n * size);
  if (!p) abort();
  *cap = n;
  return p;
}

void sj_irb_init(sj_irb *b, sj_ir_func *f, int narrays) {
  memset(b, 0, sizeof *b);
  b->f = f;
  b->cur = &f->body;
  b->buckets = malloc(NBUCKETS * sizeof *b->buckets);
  b->epoch = calloc((size_t)narrays + 1, sizeof *b->epoch);
  if (!b->buckets || !b->epoch) abort();
  for (int i = 0; i < NBUCKETS; i++) b->buckets[i] = -1;
  b->narrays = narrays;
}

void sj_irb_finish(sj_irb *b) {
  for (int i = b->prologue.n - 1; i >= 0; i--) sj_ir_block_insert(&b->f->body, 0, b->prologue.v[i]);
  free(b->prologue.v);
  free(b->vn);
  free(b->buckets);
  free(b->epoch);
  free(b->loads);
  free(b->param_reg);
  free(b->lin_base);
  free(b->lin_off);
  memset(b, 0, sizeof *b);
}

int sj_irb_scope(const sj_irb *b) {
  return b->nvn;
}

void sj_irb_unscope(sj_irb *b, int mark) {
  while (b->nvn > mark) {
    sj_vn_entry *e = &b->vn[--b->nvn];
    b->buckets[e->bucket] = e->next;
  }
}

static vn_operand operand(const sj_irb *b, sj_ir_val v) {
  vn_operand o;
  memset(&o, 0, sizeof o);
  o.kind = v.kind;
  o.type = v.type;
  if (v.kind == SJ_V_REG) {
    o.reg = v.reg;
    o.version = b->f->regs[v.reg].version;
  } else if (v.kind == SJ_V_INT) {
    o.i = v.i;
  } else if (v.kind == SJ_V_FLOAT) {
    memcpy(&o.fbits, &v.f, sizeof o.fbits);
  }
  return o;
}

/* FNV-1a over 8-byte words (a key is some 100 bytes; byte by byte it took more time than the
 * table's other work), the high bits folded in. */
static unsigned hash(const vn_key *k) {
  const unsigned char *p = (const unsigned char *)k;
  uint64_t h = 14695981039346656037u;
  size_t i = 0;
  for (; i + sizeof h <= sizeof *k; i += sizeof h) {
    uint64_t w;
    memcpy(&w, p + i, sizeof w);
    h = (h ^ w) * 1099511628211u;
    h ^= h >> 31;
  }
  for (; i < sizeof *k; i++) h = (h ^ p[i]) * 1099511628211u;
  return (unsigned)(h ^ (h >> 32)) & (NBUCKETS - 1);
}

static int lookup(const sj_irb *b, const vn_key *k) {
  for (int i = b->buckets[hash(k)]; i >= 0; i = b->vn[i].next)
    if (!memcmp(&b->vn[i].key, k, sizeof *k)) return b->vn[i].dst;
  return 0;
}

static void remember(sj_irb *b, const vn_key *k, int dst) {
  b->vn = grow(b->vn, &b->capvn, b->nvn + 1, sizeof *b->vn);
  sj_vn_entry *e = &b->vn[b->nvn];
  e->key = *k;
  e->dst = dst;
  e->bucket = hash(k);
  e->next = b->buckets[e->bucket];
  b->buckets[e->bucket] = b->nvn++;
}

static int level_of(const sj_irb *b, sj_ir_val v) {
  return v.kind == SJ_V_REG ? b->f->regs[v.reg].level : 0;
}

static sj_ir_node *append(sj_ir_block *block, sj_ir_op op, sj_ir_type type) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_INS);
  n->ins.op = op;
  n->ins.type = type;
  sj_ir_block_push(block, n);
  return n;
}

sj_ir_ins *sj_irb_emit(sj_irb *b, sj_ir_op op, sj_ir_type type) {
  return &append(b->cur, op, type)->ins;
}

/* --- folding --- */

/* v as a value of integer type t: signed types keep their value, unsigned ones their bits
 * (an unsigned long's bits as a long). */
static long wrap(sj_ir_type t, long v) {
  unsigned long u = (unsigned long)v;
  switch (t) {
  case SJ_IR_S32:
    return (int32_t)(uint32_t)u;
  case SJ_IR_U32:
    return (long)(uint32_t)u;
  case SJ_IR_S16:
    return (int16_t)(uint16_t)u;
  case SJ_IR_U16:
    return (long)(uint16_t)u;
  case SJ_IR_S8:
    return (int8_t)(uint8_t)u;
  case SJ_IR_U8:
    return (long)(uint8_t)u;
  default:
    return v;
  }
}

/* The unsigned operations whose result differs from the signed one's. */
static int fold_unsigned(sj_ir_op op, unsigned long a, unsigned long c, unsigned long *out) {
  switch (op) {
  case SJ_IR_DIV:
  case SJ_IR_REM:
    if (c == 0) return 0; /* left to trap at run time */
    *out = op == SJ_IR_DIV ? a / c : a % c;
    return 1;
  case SJ_IR_MIN:
    *out = a < c ? a : c;
    return 1;
  case SJ_IR_MAX:
    *out = a > c ? a : c;
    return 1;
  default:
    return 0;
  }
}

/* The value of an integer operation on constants; 0 when it is not folded. */
static int fold(sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y, long *out) {
  if (t != SJ_IR_S32 && t != SJ_IR_S64 && t != SJ_IR_U32 && t != SJ_IR_U64) return 0;
  if (x.kind != SJ_V_INT || (y.kind != SJ_V_INT && y.kind != SJ_V_NONE)) return 0;
  long a = x.i, c = y.i, min = t == SJ_IR_S32 ? INT_MIN : LONG_MIN;
  unsigned long ua = (unsigned long)a, uc = (unsigned long)c, u;
  if (sj_ir_type_is_unsigned(t) && (op == SJ_IR_DIV || op == SJ_IR_REM || op == SJ_IR_MIN ||
                                    op == SJ_IR_MAX || op == SJ_IR_FDIV)) {
    if (op == SJ_IR_FDIV || !fold_unsigned(op, ua, uc, &u)) return 0;
    *out = wrap(t, (long)u);
    return 1;
  }
  switch (op) {
  case SJ_IR_ADD:
    *out = wrap(t, (long)(ua + uc));
    return 1;
  case SJ_IR_SUB:
    *out = wrap(t, (long)(ua - uc));
    return 1;
  case SJ_IR_MUL:
    *out = wrap(t, (long)(ua * uc));
    return 1;
  case SJ_IR_DIV:
  case SJ_IR_REM:
  case SJ_IR_FDIV:
    if (c == 0 || (c == -1 && a == min)) return 0; /* left to trap at run time */
    *out = op == SJ_IR_DIV ? a / c : op == SJ_IR_REM ? a % c : sj_floor_div(a, c);
    return 1;
  case SJ_IR_MIN:
    *out = a < c ? a : c;
    return 1;
  case SJ_IR_MAX:
    *out = a > c ? a : c;
    return 1;
  case SJ_IR_NEG:
    *out = wrap(t, (long)(0ul - ua));
    return 1;
  case SJ_IR_BAND:
    *out = wrap(t, (long)(ua & uc));
    return 1;
  case SJ_IR_BOR:
    *out = wrap(t, (long)(ua | uc));
    return 1;
  case SJ_IR_XOR:
    *out = wrap(t, (long)(ua ^ uc));
    return 1;
  case SJ_IR_SHL:
  case SJ_IR_SHR:
    if (c < 0 || c >= 8 * sj_ir_type_size(t)) return 0; /* left to trap at run time */
    if (op == SJ_IR_SHL)
      *out = wrap(t, (long)(ua << c));
    else /* a holds the value: an unsigned one is never negative but in 64 bits */
      *out = t == SJ_IR_U64 ? (long)(ua >> c) : a >> c;
    return 1;
  default:
    return 0;
  }
}

int sj_ir_fold(sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y, sj_ir_val *out) {
  long v;
  if (op == SJ_IR_CVT) {
    if (x.kind != SJ_V_INT || (x.type != SJ_IR_S32 && x.type != SJ_IR_S64)) return 0;
    if (sj_ir_type_is_int(t)) return *out = sj_ir_int(t, wrap(t, x.i)), 1;
    if (t == SJ_IR_F32) return *out = sj_ir_float(t, (double)(float)x.i), 1; /* one rounding */
    return t == SJ_IR_F64 ? (*out = sj_ir_float(t, (double)x.i), 1) : 0;
  }
  if (!fold(op, t, x, y, &v)) return 0;
  *out = sj_ir_int(t, v);
  return 1;
}

/* fmin and fmax do not commute: of two zeros, or two NaNs, the C library picks by position. */
static int commutes(sj_ir_op op, sj_ir_type t) {
  if (op == SJ_IR_MIN || op == SJ_IR_MAX) return !sj_ir_type_is_float(t);
  return op == SJ_IR_ADD || op == SJ_IR_MUL || op == SJ_IR_AND || op == SJ_IR_OR ||
         op == SJ_IR_BAND || op == SJ_IR_BOR || op == SJ_IR_XOR;
}

static int is_int(sj_ir_val v, long c) {
  return v.kind == SJ_V_INT && v.i == c;
}

/* x op y when an identity gives it without an instruction (integers only). */
static int identity(sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y, sj_ir_val *out) {
  if (t != SJ_IR_S32 && t != SJ_IR_S64 && t != SJ_IR_U32 && t != SJ_IR_U64) return 0;
  if ((op == SJ_IR_ADD || op == SJ_IR_SUB) && is_int(y, 0)) return *out = x, 1;
  if (op == SJ_IR_MUL && is_int(y, 1)) return *out = x, 1;
  if (op == SJ_IR_MUL && is_int(y, 0)) return *out = y, 1;
  if ((op == SJ_IR_DIV || op == SJ_IR_FDIV) && is_int(y, 1)) return *out = x, 1;
  if ((op == SJ_IR_BOR || op == SJ_IR_XOR || op == SJ_IR_SHL || op == SJ_IR_SHR) && is_int(y, 0))
    return *out = x, 1;
  if (op == SJ_IR_BAND && y.kind == SJ_V_INT && y.i == wrap(t, -1)) return *out = x, 1;
  /* x mod 1 (sj_lw_floor_mod) and x % 1: the low zero bits, no remainder */
  if ((op == SJ_IR_BAND && is_int(y, 0)) ||
      (op == SJ_IR_REM && (is_int(y, 1) || (is_int(y, -1) && !sj_ir_type_is_unsigned(t)))))
    return *out = sj_ir_int(t, 0), 1;
  return 0;
}

static sj_ir_val numbered(sj_irb *b, vn_key *k, sj_ir_ins proto, int level) {
  int dst = lookup(b, k);
  if (dst) return sj_ir_reg_val(b->f, dst);
  sj_ir_type rtype = proto.op == SJ_IR_SETP ? SJ_IR_PRED : proto.type;
  dst = sj_ir_new_reg(b->f, rtype, level);
  if (proto.op == SJ_IR_PTRADD) { /* the pointer keeps what it points into */
    sj_ir_reg *from = &b->f->regs[proto.a.reg];
    b->f->regs[dst].elem = from->elem;
    b->f->regs[dst].space = from->space;
    b->f->regs[dst].array = from->array;
  }
  if (proto.op == SJ_IR_LD) level = b->depth;
  b->f->regs[dst].level = level;
  sj_ir_node *n = append(b->cur, proto.op, proto.type);
  proto.dst = dst;
  n->ins = proto;
  remember(b, k, dst);
  return sj_ir_reg_val(b->f, dst);
}

static sj_ir_val make_flagged(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_cmp cmp, long imm,
                              int approx, sj_ir_val x, sj_ir_val y, sj_ir_val z) {
  vn_key k;
  memset(&k, 0, sizeof k);
  k.op = op;
  k.type = t;
  k.cmp = cmp;
  k.imm = imm;
  k.approx = approx;
  k.v[0] = operand(b, x);
  k.v[1] = operand(b, y);
  k.v[2] = operand(b, z);
  sj_ir_ins proto = {
      .op = op, .type = t, .cmp = cmp, .imm = imm, .approx = approx, .a = x, .b = y, .c = z};
  int level = level_of(b, x);
  if (level_of(b, y) > level) level = level_of(b, y);
  if (level_of(b, z) > level) level = level_of(b, z);
  return numbered(b, &k, proto, level);
}

static sj_ir_val make(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_cmp cmp, long imm, sj_ir_val x,
                      sj_ir_val y, sj_ir_val z) {
  return make_flagged(b, op, t, cmp, imm, 0, x, y, z);
}

static const sj_ir_val none = {SJ_V_NONE, SJ_IR_PRED, 0, 0, 0};

sj_ir_val sj_irb_approx_div(sj_irb *b, sj_ir_val x, sj_ir_val y) {
  return make_flagged(b, SJ_IR_DIV, SJ_IR_F32, SJ_CMP_EQ, 0, 1, x, y, none);
}

/* --- base + offset --- */

/* Into *base and *off: x as base + off, x itself with offset 0 where it is no such sum (0 where
 * x is not a register that keeps its value: a variable other than a loop's iterator). */
static int linear(const sj_irb *b, sj_ir_val x, int *base, long *off) {
  if (x.kind != SJ_V_REG || x.type != SJ_IR_S64) return 0;
  if (x.reg < b->caplin && b->lin_base[x.reg]) {
    *base = b->lin_base[x.reg], *off = b->lin_off[x.reg];
    return 1;
  }
  const sj_ir_reg *r = &b->f->regs[x.reg];
  if (r->is_var && !r->is_iter) return 0;
  *base = x.reg, *off = 0;
  return 1;
}

static void note_linear(sj_irb *b, sj_ir_val v, int base, long off) {
  if (v.kind != SJ_V_REG || v.reg == base) return;
  if (v.reg >= b->caplin) {
    int cap = b->caplin;
    b->lin_base = grow(b->lin_base, &cap, v.reg + 1, sizeof *b->lin_base);
    cap = b->caplin;
    b->lin_off = grow(b->lin_off, &cap, v.reg + 1, sizeof *b->lin_off);
    memset(b->lin_base + b->caplin, 0, (size_t)(cap - b->caplin) * sizeof *b->lin_base);
    b->caplin = cap;
  }
  b->lin_base[v.reg] = base, b->lin_off[v.reg] = off;
}

/* base + off as a value (S64). */
static sj_ir_val at_offset(sj_irb *b, int base, long off) {
  sj_ir_val v = sj_ir_reg_val(b->f, base);
  if (!off) return v;
  v = make(b, SJ_IR_ADD, SJ_IR_S64, SJ_CMP_EQ, 0, v, sj_ir_int(SJ_IR_S64, off), none);
  note_linear(b, v, base, off);
  return v;
}

/* x op y (S64) where both are one base plus constants: (a + c) + d is a + (c + d), of a + c
 * and a + d the difference is c - d, and the minimum or maximum a plus that of c and d (index
 * arithmetic, far from overflow: the window bounds of a tile's steps are such sums). */
static int fold_linear(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y,
                       sj_ir_val *out) {
  int bx, by;
  long cx, cy, c;
  if (t != SJ_IR_S64 || !linear(b, x, &bx, &cx)) return 0;
  if ((op == SJ_IR_ADD || op == SJ_IR_SUB) && y.kind == SJ_V_INT) {
    if (cx == 0 || y.i == LONG_MIN) return 0; /* x itself, or -y beyond a long */
    if (__builtin_add_overflow(cx, op == SJ_IR_ADD ? y.i : -y.i, &c)) return 0;
    return *out = at_offset(b, bx, c), 1;
  }
  if (!linear(b, y, &by, &cy) || bx != by) return 0;
  switch (op) {
  case SJ_IR_SUB:
    return __builtin_sub_overflow(cx, cy, &c) ? 0 : (*out = sj_ir_int(t, c), 1);
  case SJ_IR_MIN:
    return *out = at_offset(b, bx, cx < cy ? cx : cy), 1;
  case SJ_IR_MAX:
    return *out = at_offset(b, bx, cx > cy ? cx : cy), 1;
  default:
    return 0;
  }
}

sj_ir_val sj_irb_op(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y) {
  long v;
  if (fold(op, t, x, y, &v)) return sj_ir_int(t, v);
  if (commutes(op, t) && ((sj_ir_is_imm(x) && !sj_ir_is_imm(y)) ||
                          (x.kind == SJ_V_REG && y.kind == SJ_V_REG && y.reg < x.reg))) {
    sj_ir_val s = x;
    x = y, y = s;
  }
  sj_ir_val out;
  /* x + 0 as an unsigned add of a signed x is x unsigned: the type asked for is kept, as
   * comparisons take theirs from their operands (sj_irb_setp) */
  if (identity(op, t, x, y, &out)) return sj_irb_cvt(b, t, out);
  if (fold_linear(b, op, t, x, y, &out)) return out;
  out = make(b, op, t, SJ_CMP_EQ, 0, x, y, none);
  int base;
  long off;
  if ((op == SJ_IR_ADD || op == SJ_IR_SUB) && y.kind == SJ_V_INT && y.i != LONG_MIN &&
      linear(b, x, &base, &off) && !off)
    note_linear(b, out, base, op == SJ_IR_ADD ? y.i : -y.i);
  return out;
}

sj_ir_val sj_irb_op3(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y, sj_ir_val z) {
  return make(b, op, t, SJ_CMP_EQ, 0, x, y, z);
}

sj_ir_val sj_irb_math(sj_irb *b, sj_ir_math m, sj_ir_type t, sj_ir_val x, sj_ir_val y) {
  return make(b, SJ_IR_MATH, t, SJ_CMP_EQ, m, x, y, none);
}

sj_ir_val sj_irb_setp(sj_irb *b, sj_ir_cmp cmp, sj_ir_val x, sj_ir_val y) {
  if (sj_ir_is_imm(x) && !sj_ir_is_imm(y)) { /* a register first, as PTX wants */
    static const sj_ir_cmp mirror[] = {SJ_CMP_EQ, SJ_CMP_NE, SJ_CMP_GT,
                                       SJ_CMP_GE, SJ_CMP_LT, SJ_CMP_LE};
    sj_ir_val s = x;
    x = y, y = s;
    cmp = mirror[cmp];
  }
  return make(b, SJ_IR_SETP, x.type, cmp, 0, x, y, none);
}

sj_ir_val sj_irb_cvt(sj_irb *b, sj_ir_type to, sj_ir_val x) {
  if (x.type == to) return x;
  if (x.kind == SJ_V_INT && sj_ir_type_is_int(to)) return sj_ir_int(to, wrap(to, x.i));
  return make(b, SJ_IR_CVT, to, SJ_CMP_EQ, 0, x, none, none);
}

sj_ir_val sj_irb_ptradd(sj_irb *b, sj_ir_val ptr, sj_ir_val index) {
  if (is_int(index, 0)) return ptr;
  return make(b, SJ_IR_PTRADD, SJ_IR_PTR, SJ_CMP_EQ, 0, ptr, index, none);
}

static int array_of(const sj_irb *b, sj_ir_val ptr) {
  return b->f->regs[ptr.reg].array;
}

static void load_key(const sj_irb *b, sj_ir_val ptr, long offset, vn_key *k) {
  int array = array_of(b, ptr);
  memset(k, 0, sizeof *k);
  k->op = SJ_IR_LD;
  k->type = b->f->regs[ptr.reg].elem;
  k->imm = offset;
  k->world = b->world;
  k->epoch = array >= 0 && array < b->narrays ? b->epoch[array] : 0;
  k->v[0] = operand(b, ptr);
}

sj_ir_val sj_irb_load(sj_irb *b, sj_ir_val ptr, long offset) {
  vn_key k;
  load_key(b, ptr, offset, &k);
  int dst = lookup(b, &k);
  if (dst) return sj_ir_reg_val(b->f, dst);
  sj_ir_ins proto;
  memset(&proto, 0, sizeof proto);
  proto.op = SJ_IR_LD;
  proto.type = k.type;
  proto.a = ptr;
  proto.imm = offset;
  sj_ir_val v = numbered(b, &k, proto, b->depth);
  b->loads = grow(b->loads, &b->caploads, b->nloads + 1, sizeof *b->loads);
  b->loads[b->nloads++] = b->nvn - 1;
  return v;
}

void sj_irb_store(sj_irb *b, sj_ir_val ptr, long offset, sj_ir_val value) {
  /* a variable's value as it is now: a later read of the element gets this value, not what
   * the variable holds by then (an in-place update unrolled: A[i + 1] reads A[i]'s new value
   * after the variable that held it has moved on) */
  if (value.kind == SJ_V_REG && b->f->regs[value.reg].is_var)
    value = make(b, SJ_IR_MOV, value.type, SJ_CMP_EQ, 0, value, none, none);
  sj_ir_ins *ins = sj_irb_emit(b, SJ_IR_ST, b->f->regs[ptr.reg].elem);
  ins->a = ptr;
  ins->b = value;
  ins->imm = offset;
  int kept = 0;
  for (int i = 0; i < b->nloads; i++) {
    int e = b->loads[i];
    sj_vn_entry *entry = e < b->nvn ? &b->vn[e] : NULL;
    if (!entry || entry->key.op != SJ_IR_LD) continue; /* gone with its scope, or dropped */
    if (sj_ir_may_alias(b->f, ptr.reg, offset, entry->key.v[0].reg, entry->key.imm))
      entry->key.op = -1; /* never matches again */
    else
      b->loads[kept++] = e;
  }
  b->nloads = kept;
  if (value.kind == SJ_V_REG && value.type == b->f->regs[ptr.reg].elem) { /* read back: value */
    vn_key k;
    load_key(b, ptr, offset, &k);
    remember(b, &k, value.reg);
    b->loads = grow(b->loads, &b->caploads, b->nloads + 1, sizeof *b->loads);
    b->loads[b->nloads++] = b->nvn - 1;
  }
}

void sj_irb_barrier(sj_irb *b) {
  sj_irb_emit(b, SJ_IR_BARRIER, SJ_IR_PRED);
  b->world++;
}

int sj_irb_var(sj_irb *b, sj_ir_type type, const char *name) {
  int r = sj_ir_new_reg(b->f, type, b->depth);
  b->f->regs[r].is_var = 1;
  b->f->regs[r].name = name;
  return r;
}

void sj_irb_assign(sj_irb *b, int var, sj_ir_val value) {
  sj_ir_ins *ins = sj_irb_emit(b, SJ_IR_MOV, b->f->regs[var].type);
  ins->dst = var;
  ins->a = value;
  b->f->regs[var].version++;
  if (b->f->regs[var].level < b->depth) b->f->regs[var].level = b->depth;
}

sj_ir_val sj_irb_param(sj_irb *b, int pos) {
  if (pos >= b->nparam_reg) {
    b->param_reg = realloc(b->param_reg, (size_t)(pos + 1) * sizeof *b->param_reg);
    if (!b->param_reg) abort();
    while (b->nparam_reg <= pos) b->param_reg[b->nparam_reg++] = 0;
  }
  if (b->param_reg[pos]) return sj_ir_reg_val(b->f, b->param_reg[pos]);
  const sj_ir_param *p = &b->f->params[pos];
  int array = p->kind == SJ_PARAM_ARRAY;
  int r = sj_ir_new_reg(b->f, array ? SJ_IR_PTR : p->type, 0);
  if (array) {
    b->f->regs[r].elem = p->type;
    b->f->regs[r].space = SJ_SPACE_GLOBAL;
    b->f->regs[r].array = p->index;
  }
  sj_ir_node *n = append(&b->prologue, array ? SJ_IR_ARRAY : SJ_IR_PARAM, b->f->regs[r].type);
  n->ins.dst = r;
  n->ins.imm = pos;
  b->param_reg[pos] = r;
  return sj_ir_reg_val(b->f, r);
}

sj_ir_val sj_irb_shared(sj_irb *b, int index, int array) {
  int r = sj_ir_new_reg(b->f, SJ_IR_PTR, 0);
  b->f->regs[r].elem = b->f->shared[index].elem;
  b->f->regs[r].space = SJ_SPACE_SHARED;
  b->f->regs[r].array = array;
  sj_ir_node *n = append(&b->prologue, SJ_IR_SHARED, SJ_IR_PTR);
  n->ins.dst = r;
  n->ins.imm = index;
  return sj_ir_reg_val(b->f, r);
}

sj_ir_val sj_irb_special(sj_irb *b, sj_ir_special which) {
  if (!b->special[which]) {
    int r = sj_ir_new_reg(b->f, SJ_IR_S64, 0);
    sj_ir_node *n = append(&b->prologue, SJ_IR_SPECIAL, SJ_IR_S64);
    n->ins.dst = r;
    n->ins.imm = which;
    b->special[which] = r;
  }
  return sj_ir_reg_val(b->f, b->special[which]);
}

sj_ir_node *sj_irb_loop(sj_irb *b, sj_ir_val init, sj_ir_val step) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_LOOP);
  n->iter = sj_ir_new_reg(b->f, init.type, b->depth + 1);
  b->f->regs[n->iter].is_var = b->f->regs[n->iter].is_iter = 1;
  n->init = init;
  n->step = step;
  sj_ir_block_push(b->cur, n);
  return n;
}

sj_ir_node *sj_irb_if(sj_irb *b, sj_ir_val cond) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_IF);
  n->cond = cond;
  sj_ir_block_push(b->cur, n);
  return n;
}

sj_irb_pos sj_irb_enter(sj_irb *b, sj_ir_block *block, int loop) {
  sj_irb_pos pos = {b->cur, sj_irb_scope(b), b->depth};
  b->cur = block;
  if (loop) {
    /* a later iteration sees what earlier ones stored and assigned */
    b->depth++;
    b->world++;
    for (int r = 1; r < b->f->nregs; r++)
      if (b->f->regs[r].is_var && !b->f->regs[r].is_iter) b->f->regs[r].version++;
  }
  return pos;
}

void sj_irb_leave(sj_irb *b, sj_irb_pos pos) {
  sj_irb_unscope(b, pos.scope);
  b->cur = pos.block;
  b->depth = pos.depth;
}
