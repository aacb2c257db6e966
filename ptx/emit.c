/* PTX for one IR instruction: a table of (operation, integer or float) -> format and a
 * small format interpreter, with the few instructions that need more than one PTX
 * instruction in one switch. In exact mode every float operation rounds to nearest
 * (.rn): no contraction, no approximation. */
#include "ptx/emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

const char *const sj_px_class_type[PX_NCLASS] = {".pred", ".b32", ".b64", ".f32", ".f64"};
const char *const sj_px_class_prefix[PX_NCLASS] = {"%p", "%r", "%rd", "%f", "%fd"};

/* Formats: %d destination, %a %b %c operands, %t the type suffix, %w the bit type of the
 * same size, %m the comparison, %s the state space of a load or store, %o its byte offset,
 * %P the parameter's name, %j a setp's joined predicate.
 * Operand %a is a register except for mov and selp (an immediate is moved first). */
typedef struct px_format {
  const char *ints, *floats;
} px_format;

static const px_format formats[SJ_IR_NOPS] = {
    [SJ_IR_MOV] = {"mov%t %d, %a", "mov%t %d, %a"},
    [SJ_IR_ADD] = {"add%t %d, %a, %b", "add.rn%t %d, %a, %b"},
    [SJ_IR_SUB] = {"sub%t %d, %a, %b", "sub.rn%t %d, %a, %b"},
    [SJ_IR_MUL] = {"mul.lo%t %d, %a, %b", "mul.rn%t %d, %a, %b"},
    [SJ_IR_DIV] = {"div%t %d, %a, %b", "div.rn%t %d, %a, %b"},
    [SJ_IR_REM] = {"rem%t %d, %a, %b", NULL},
    [SJ_IR_MIN] = {"min%t %d, %a, %b", "min%t %d, %a, %b"},
    [SJ_IR_MAX] = {"max%t %d, %a, %b", "max%t %d, %a, %b"},
    [SJ_IR_NEG] = {"neg%t %d, %a", "neg%t %d, %a"},
    [SJ_IR_ABS] = {"abs%t %d, %a", "abs%t %d, %a"},
    [SJ_IR_SQRT] = {NULL, "sqrt.rn%t %d, %a"},
    [SJ_IR_FMA] = {NULL, "fma.rn%t %d, %a, %b, %c"},
    [SJ_IR_AND] = {"and.pred %d, %a, %b", NULL},
    [SJ_IR_OR] = {"or.pred %d, %a, %b", NULL},
    [SJ_IR_NOT] = {"not.pred %d, %a", NULL},
    [SJ_IR_SETP] = {"setp%m%t %d, %a, %b%j", "setp%m%t %d, %a, %b%j"},
    [SJ_IR_SELP] = {"selp%t %d, %a, %b, %c", "selp%t %d, %a, %b, %c"},
    [SJ_IR_PARAM] = {"ld.param%t %d, [%P]", "ld.param%t %d, [%P]"},
    [SJ_IR_LD] = {"ld%s%t %d, [%a%o]", "ld%s%t %d, [%a%o]"},
    [SJ_IR_ST] = {"st%s%t [%a%o], %b", "st%s%t [%a%o], %b"},
    [SJ_IR_BARRIER] = {"bar.sync 0", "bar.sync 0"},
    [SJ_IR_SHL] = {"shl%w %d, %a, %b", NULL},
    [SJ_IR_SHR] = {"shr%t %d, %a, %b", NULL},
    [SJ_IR_BAND] = {"and%w %d, %a, %b", NULL},
    [SJ_IR_BOR] = {"or%w %d, %a, %b", NULL},
    [SJ_IR_XOR] = {"xor%w %d, %a, %b", NULL},
    [SJ_IR_BITCAST] = {"mov%w %d, %a", "mov%w %d, %a"},
};

static const char *const type_suffix[SJ_IR_NTYPES] = {
    ".pred", ".s32", ".s64", ".f32", ".f64", ".u64", ".s8", ".u8", ".s16", ".u16", ".u32", ".u64"};
/* Where a PTX instruction other than ld, st and cvt names the type of a storage type's
 * register: the 32-bit register's own type. */
static const char *const reg_suffix[SJ_IR_NTYPES] = {".pred", ".s32", ".s64", ".f32",
                                                     ".f64",  ".u64", ".s32", ".u32",
                                                     ".s32",  ".u32", ".u32", ".u64"};
static const int classes[SJ_IR_NTYPES] = {PX_PRED, PX_B32, PX_B64, PX_F32, PX_F64, PX_B64,
                                          PX_B32,  PX_B32, PX_B32, PX_B32, PX_B32, PX_B64};

int sj_px_class(const sj_ir_func *f, int reg) {
  return classes[f->regs[reg].type];
}

int sj_px_temp(px *x, int cls) {
  return ++x->count[cls];
}

/* Written by hand: a large kernel's text is mostly register names, and snprintf was a third of
 * printing it. */
void sj_px_reg_text(int cls, int n, char *out, size_t size) {
  char digits[12];
  int nd = 0;
  unsigned u = (unsigned)n;
  do digits[nd++] = (char)('0' + u % 10);
  while (u /= 10);
  const char *prefix = sj_px_class_prefix[cls];
  size_t len = strlen(prefix);
  if (len + (size_t)nd + 1 > size) abort();
  memcpy(out, prefix, len);
  while (nd) out[len++] = digits[--nd];
  out[len] = 0;
}

static void reg(px *x, int r, char *out, size_t size) {
  sj_px_reg_text(sj_px_class(x->f, r), x->num[r], out, size);
}

static void value(px *x, sj_ir_val v, char *out, size_t size) {
  if (v.kind == SJ_V_REG) {
    reg(x, v.reg, out, size);
  } else if (v.kind == SJ_V_INT && v.type == SJ_IR_U64) {
    snprintf(out, size, "%luU", (unsigned long)v.i); /* may exceed the signed range */
  } else if (v.kind == SJ_V_INT) {
    snprintf(out, size, "%ld", v.i);
  } else if (v.type == SJ_IR_F32) {
    float f = (float)v.f;
    unsigned bits;
    memcpy(&bits, &f, sizeof bits);
    snprintf(out, size, "0f%08X", bits);
  } else {
    unsigned long long bits;
    memcpy(&bits, &v.f, sizeof bits);
    snprintf(out, size, "0d%016llX", bits);
  }
}

static void put_line(px *x, const char *guard, const char *text) {
  sj_buf_puts(&x->body, "\t");
  sj_buf_puts(&x->body, guard);
  sj_buf_puts(&x->body, text);
  sj_buf_puts(&x->body, ";\n");
}

static void line(px *x, const char *guard, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(px *x, const char *guard, const char *fmt, ...) {
  char text[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  put_line(x, guard, text);
}

/* v in a register of class cls: immediates are moved into a temporary. */
static void in_reg(px *x, const char *guard, sj_ir_val v, sj_ir_type t, char *out, size_t size) {
  if (v.kind == SJ_V_REG) {
    value(x, v, out, size);
    return;
  }
  char imm[40];
  value(x, v, imm, sizeof imm);
  sj_px_reg_text(classes[t], sj_px_temp(x, classes[t]), out, size);
  line(x, guard, "mov%s %s, %s", reg_suffix[t], out, imm);
}

static const char *compare_name(sj_ir_cmp cmp, sj_ir_type t) {
  static const char *const names[] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge"};
  return cmp == SJ_CMP_NE && sj_ir_type_is_float(t) ? ".neu"
                                                    : names[cmp]; /* C's != holds for NaN */
}

static void format(px *x, const char *guard, const char *fmt, const sj_ir_ins *ins) {
  char text[256], operand[160]; /* operand: a kernel name (at most 102 characters) and _param_N */
  size_t n = 0;
  sj_ir_type t = ins->op == SJ_IR_SETP ? ins->a.type : ins->type;
  const sj_ir_reg *ptr =
      ins->op == SJ_IR_LD || ins->op == SJ_IR_ST ? &x->f->regs[ins->a.reg] : NULL;
  for (const char *c = fmt; *c && n < sizeof text - 64; c++) {
    if (*c != '%') {
      text[n++] = *c;
      continue;
    }
    operand[0] = 0;
    switch (*++c) {
    case 'd':
      reg(x, ins->dst, operand, sizeof operand);
      break;
    case 'a': /* mov and selp take immediates; the others a register first */
      if (ins->op == SJ_IR_MOV || ins->op == SJ_IR_SELP)
        value(x, ins->a, operand, sizeof operand);
      else
        in_reg(x, guard, ins->a,
               ins->op == SJ_IR_LD || ins->op == SJ_IR_ST ? SJ_IR_PTR : ins->a.type, operand,
               sizeof operand);
      break;
    case 'b':
      if (ins->op == SJ_IR_ST)
        in_reg(x, guard, ins->b, ins->type, operand, sizeof operand);
      else
        value(x, ins->b, operand, sizeof operand);
      break;
    case 'c':
      value(x, ins->c, operand, sizeof operand);
      break;
    case 't': /* loads and stores name the element's type; the rest the register's */
      strcpy(operand, ptr ? type_suffix[t] : reg_suffix[t]);
      break;
    case 'w':
      snprintf(operand, sizeof operand, ".b%d",
               8 * sj_ir_type_size(t) < 32 ? 32 : 8 * sj_ir_type_size(t));
      break;
    case 'm': /* and a setp's boolean operation */
      strcpy(operand, compare_name(ins->cmp, t));
      if (ins->red) strcat(operand, ins->red == SJ_IR_AND ? ".and" : ".or");
      break;
    case 'j': /* the predicate a setp's boolean operation joins */
      if (ins->red) {
        strcpy(operand, ", ");
        value(x, ins->c, operand + 2, sizeof operand - 2);
      }
      break;
    case 's':
      strcpy(operand, ptr->space == SJ_SPACE_SHARED ? ".shared" : ".global");
      if (ins->nc) strcat(operand, ".nc");
      break;
    case 'o': {
      long bytes = ins->imm * sj_ir_type_size(ptr->elem);
      if (bytes) snprintf(operand, sizeof operand, "+%ld", bytes); /* ptxas wants +-8 */
      break;
    }
    case 'P':
      snprintf(operand, sizeof operand, "%s_param_%ld", x->f->name, ins->imm);
      break;
    }
    size_t len = strlen(operand);
    memcpy(text + n, operand, len);
    n += len;
  }
  text[n] = 0;
  put_line(x, guard, text);
}

static void convert(px *x, const char *guard, const sj_ir_ins *ins) {
  sj_ir_type from = ins->a.type, to = ins->type;
  int ffrom = sj_ir_type_is_float(from), fto = sj_ir_type_is_float(to);
  const char *rnd = "";
  if (!ffrom && fto) rnd = ".rn";                        /* int to float: nearest */
  if (ffrom && !fto) rnd = ".rzi";                       /* float to int: truncated, as C */
  if (from == SJ_IR_F64 && to == SJ_IR_F32) rnd = ".rn"; /* narrowing */
  char d[40], a[40];
  reg(x, ins->dst, d, sizeof d);
  in_reg(x, guard, ins->a, from, a, sizeof a);
  line(x, guard, "cvt%s%s%s %s, %s", rnd, type_suffix[to], type_suffix[from], d, a);
}

/* Floor division by a positive constant: the truncated quotient, one less where the
 * remainder is negative (its sign bit spread over the register: -1 or 0). No predicate of
 * its own: under a guard, a predicated use of one would read it where the guard is false. */
static void floor_div(px *x, const char *guard, const sj_ir_ins *ins) {
  const char *t = type_suffix[ins->type];
  int cls = sj_px_class(x->f, ins->dst);
  char d[40], a[40], b[40], r[40];
  reg(x, ins->dst, d, sizeof d);
  in_reg(x, guard, ins->a, ins->type, a, sizeof a);
  if (ins->b.kind == SJ_V_INT && ins->b.i > 0 && (ins->b.i & (ins->b.i - 1)) == 0) {
    int k = 0; /* an arithmetic shift rounds down */
    while ((1L << k) < ins->b.i) k++;
    line(x, guard, "shr%s %s, %s, %d", t, d, a, k);
    return;
  }
  value(x, ins->b, b, sizeof b);
  sj_px_reg_text(cls, sj_px_temp(x, cls), r, sizeof r);
  line(x, guard, "div%s %s, %s, %s", t, d, a, b);
  line(x, guard, "rem%s %s, %s, %s", t, r, a, b);
  line(x, guard, "shr%s %s, %s, %d", t, r, r, 8 * sj_ir_type_size(ins->type) - 1);
  line(x, guard, "add%s %s, %s, %s", t, d, d, r);
}

/* fmin and fmax as the C library computes them: a where a < b (a > b) or b is NaN, else b.
 * PTX's min and max agree but on two zeros (they prefer -0, the library goes by position). */
static void float_min_max(px *x, const char *guard, const sj_ir_ins *ins) {
  const char *t = type_suffix[ins->type];
  char d[40], a[40], b[40], p[40], q[40];
  reg(x, ins->dst, d, sizeof d);
  in_reg(x, guard, ins->a, ins->type, a, sizeof a);
  in_reg(x, guard, ins->b, ins->type, b, sizeof b);
  sj_px_reg_text(PX_PRED, sj_px_temp(x, PX_PRED), p, sizeof p);
  sj_px_reg_text(PX_PRED, sj_px_temp(x, PX_PRED), q, sizeof q);
  line(x, guard, "setp%s%s %s, %s, %s", ins->op == SJ_IR_MIN ? ".lt" : ".gt", t, p, a, b);
  line(x, guard, "setp.nan%s %s, %s, %s", t, q, b, b);
  line(x, guard, "or.pred %s, %s, %s", p, p, q);
  line(x, guard, "selp%s %s, %s, %s, %s", t, d, a, b, p);
}

/* A pointer plus elements: one mad (or add for a constant) on byte addresses. */
static void ptradd(px *x, const char *guard, const sj_ir_ins *ins) {
  int size = sj_ir_type_size(x->f->regs[ins->dst].elem);
  char d[40], a[40], b[40];
  reg(x, ins->dst, d, sizeof d);
  in_reg(x, guard, ins->a, SJ_IR_PTR, a, sizeof a);
  if (ins->b.kind == SJ_V_INT) {
    line(x, guard, "add.s64 %s, %s, %ld", d, a, ins->b.i * size);
    return;
  }
  value(x, ins->b, b, sizeof b);
  line(x, guard, "mad.lo.s64 %s, %s, %d, %s", d, b, size, a);
}

static void special(px *x, const char *guard, const sj_ir_ins *ins) {
  static const char *const names[] = {"%tid.x",   "%tid.y",   "%tid.z",
                                      "%ctaid.x", "%ctaid.y", "%ctaid.z"};
  char d[40], t[40];
  if (ins->imm > SJ_SPECIAL_CTAID_Z) {
    x->failed = 1;
    snprintf(x->why, sizeof x->why, "a CPU worker number in a GPU kernel");
    return;
  }
  reg(x, ins->dst, d, sizeof d);
  sj_px_reg_text(PX_B32, sj_px_temp(x, PX_B32), t, sizeof t);
  line(x, guard, "mov.u32 %s, %s", t, names[ins->imm]);
  line(x, guard, "cvt.u64.u32 %s, %s", d, t);
}

/* a * b + c for an add whose operand is a product used nowhere else. */
static void multiply_add(px *x, const char *guard, const sj_ir_ins *add, const sj_ir_ins *mul) {
  sj_ir_val other = add->a.kind == SJ_V_REG && add->a.reg == mul->dst ? add->b : add->a;
  char d[40], a[40], b[40], c[40];
  reg(x, add->dst, d, sizeof d);
  in_reg(x, guard, mul->a, mul->type, a, sizeof a);
  value(x, mul->b, b, sizeof b);
  value(x, other, c, sizeof c);
  line(x, guard, "mad.lo%s %s, %s, %s, %s", type_suffix[add->type], d, a, b, c);
}

/* --- warps (reductions in parallel, astgen/lower_reduce.c) --- */

static void place_label(px *x, int label) {
  sj_buf_printf(&x->body, "$L__%s_%d:\n", x->f->name, label);
}

/* A butterfly shuffle over the whole warp; 64-bit values as their two 32-bit halves. */
static void shuffle(px *x, const sj_ir_ins *ins) {
  char d[40], a[40];
  reg(x, ins->dst, d, sizeof d);
  in_reg(x, "", ins->a, ins->type, a, sizeof a);
  if (sj_ir_type_size(ins->type) == 4) {
    line(x, "", "shfl.sync.bfly.b32 %s, %s, %ld, 31, -1", d, a, ins->imm);
    return;
  }
  char h[4][40];
  for (int k = 0; k < 4; k++) sj_px_reg_text(PX_B32, sj_px_temp(x, PX_B32), h[k], sizeof h[k]);
  line(x, "", "mov.b64 {%s, %s}, %s", h[0], h[1], a);
  line(x, "", "shfl.sync.bfly.b32 %s, %s, %ld, 31, -1", h[2], h[0], ins->imm);
  line(x, "", "shfl.sync.bfly.b32 %s, %s, %ld, 31, -1", h[3], h[1], ins->imm);
  line(x, "", "mov.b64 %s, {%s, %s}", d, h[2], h[3]);
}

/* fmin or fmax into a float element (or a choice's minimum or maximum, ins->imm): a
 * compare-and-swap loop on its bits (no float atomic has C's NaN rule), skipped when the element
 * would not change. */
static void atomic_float_min_max(px *x, const char *guard, const sj_ir_ins *ins, const char *a,
                                 const char *b) {
  int wide = ins->type == SJ_IR_F64, fcls = wide ? PX_F64 : PX_F32, bcls = wide ? PX_B64 : PX_B32;
  const char *t = wide ? ".f64" : ".f32", *w = wide ? ".b64" : ".b32";
  char old[40], val[40], ob[40], nb[40], got[40], p[40], q[40];
  sj_px_reg_text(fcls, sj_px_temp(x, fcls), old, sizeof old);
  sj_px_reg_text(fcls, sj_px_temp(x, fcls), val, sizeof val);
  sj_px_reg_text(bcls, sj_px_temp(x, bcls), ob, sizeof ob);
  sj_px_reg_text(bcls, sj_px_temp(x, bcls), nb, sizeof nb);
  sj_px_reg_text(bcls, sj_px_temp(x, bcls), got, sizeof got);
  sj_px_reg_text(PX_PRED, sj_px_temp(x, PX_PRED), p, sizeof p);
  sj_px_reg_text(PX_PRED, sj_px_temp(x, PX_PRED), q, sizeof q);
  int again = x->labels++, done = x->labels++;
  if (*guard)
    sj_buf_printf(&x->body, "\t@!%.*s bra $L__%s_%d;\n", (int)strlen(guard) - 2, guard + 1,
                  x->f->name, done);
  line(x, "", "ld.global%s %s, [%s]", t, old, a);
  place_label(x, again);
  if (ins->imm) { /* a choice's test: b where b cmp old holds, else old (NaN fails it) */
    static const char *const cmp[] = {
        [SJ_CMP_LT] = ".lt", [SJ_CMP_LE] = ".le", [SJ_CMP_GT] = ".gt", [SJ_CMP_GE] = ".ge"};
    line(x, "", "setp%s%s %s, %s, %s", cmp[ins->cmp], t, p, b, old);
    line(x, "", "selp%s %s, %s, %s, %s", t, val, b, old, p);
  } else {
    line(x, "", "setp%s%s %s, %s, %s", ins->red == SJ_IR_MIN ? ".lt" : ".gt", t, p, old, b);
    line(x, "", "setp.nan%s %s, %s, %s", t, q, b, b);
    line(x, "", "or.pred %s, %s, %s", p, p, q);
    line(x, "", "selp%s %s, %s, %s, %s", t, val, old, b, p);
  }
  line(x, "", "mov%s %s, %s", w, ob, old);
  line(x, "", "mov%s %s, %s", w, nb, val);
  line(x, "", "setp.eq%s %s, %s, %s", w, p, ob, nb);
  sj_buf_printf(&x->body, "\t@%s bra $L__%s_%d;\n", p, x->f->name, done);
  line(x, "", "atom.global.cas%s %s, [%s], %s, %s", w, got, a, ob, nb);
  line(x, "", "setp.ne%s %s, %s, %s", w, p, got, ob);
  line(x, "", "mov%s %s, %s", w, old, got);
  sj_buf_printf(&x->body, "\t@%s bra $L__%s_%d;\n", p, x->f->name, again);
  place_label(x, done);
}

/* One atomic combination into a global element: red (no result) where PTX has the
 * operation at the type, else the loop above. */
static void atomic(px *x, const char *guard, const sj_ir_ins *ins) {
  static const char *const op_name[SJ_IR_NOPS] = {
      [SJ_IR_ADD] = "add",  [SJ_IR_MIN] = "min", [SJ_IR_MAX] = "max",
      [SJ_IR_BAND] = "and", [SJ_IR_BOR] = "or",  [SJ_IR_XOR] = "xor"};
  /* atom.add has no .s64: the same bits as .u64 */
  static const char *const add_type[SJ_IR_NTYPES] = {
      [SJ_IR_S32] = ".s32", [SJ_IR_U32] = ".u32", [SJ_IR_S64] = ".u64",
      [SJ_IR_U64] = ".u64", [SJ_IR_F32] = ".f32", [SJ_IR_F64] = ".f64"};
  static const char *const order_type[SJ_IR_NTYPES] = {
      [SJ_IR_S32] = ".s32", [SJ_IR_U32] = ".u32", [SJ_IR_S64] = ".s64", [SJ_IR_U64] = ".u64"};
  static const char *const bits_type[SJ_IR_NTYPES] = {
      [SJ_IR_S32] = ".b32", [SJ_IR_U32] = ".b32", [SJ_IR_S64] = ".b64", [SJ_IR_U64] = ".b64"};
  char a[40], b[40];
  in_reg(x, guard, ins->a, SJ_IR_PTR, a, sizeof a);
  in_reg(x, guard, ins->b, ins->type, b, sizeof b);
  int bits = ins->red == SJ_IR_BAND || ins->red == SJ_IR_BOR || ins->red == SJ_IR_XOR;
  const char *type = (ins->red == SJ_IR_ADD ? add_type : bits ? bits_type : order_type)[ins->type];
  if (type && op_name[ins->red]) {
    line(x, guard, "red.global.%s%s [%s], %s", op_name[ins->red], type, a, b);
  } else if (sj_ir_type_is_float(ins->type) && (ins->red == SJ_IR_MIN || ins->red == SJ_IR_MAX)) {
    atomic_float_min_max(x, guard, ins, a, b);
  } else {
    x->failed = 1;
    snprintf(x->why, sizeof x->why, "no atomic for operation %d on type %d", ins->red, ins->type);
  }
}

void sj_px_ins(px *x, const sj_ir_ins *ins) {
  char guard[48] = "", p[40];
  if (ins->dst && x->folded[ins->dst]) return; /* printed inside its add */
  if (ins->guard) {
    reg(x, ins->guard, p, sizeof p);
    snprintf(guard, sizeof guard, "@%s ", p);
  }
  int fl =
      sj_ir_type_is_float(ins->type) || (ins->op == SJ_IR_SETP && sj_ir_type_is_float(ins->a.type));
  if (ins->dst && x->mad[ins->dst]) {
    multiply_add(x, guard, ins, x->mad[ins->dst]);
    return;
  }
  switch (ins->op) {
  case SJ_IR_CVT:
    convert(x, guard, ins);
    return;
  case SJ_IR_FDIV:
    floor_div(x, guard, ins);
    return;
  case SJ_IR_PTRADD:
    ptradd(x, guard, ins);
    return;
  case SJ_IR_MIN:
  case SJ_IR_MAX:
    if (fl) {
      float_min_max(x, guard, ins);
      return;
    }
    break;
  case SJ_IR_SPECIAL:
    special(x, guard, ins);
    return;
  case SJ_IR_SHFL:
    shuffle(x, ins);
    return;
  case SJ_IR_ATOM:
    atomic(x, guard, ins);
    return;
  case SJ_IR_ARRAY: {
    char d[40];
    reg(x, ins->dst, d, sizeof d);
    line(x, guard, "ld.param.u64 %s, [%s_param_%ld]", d, x->f->name, ins->imm);
    line(x, guard, "cvta.to.global.u64 %s, %s", d, d);
    return;
  }
  case SJ_IR_SHARED: {
    char d[40];
    reg(x, ins->dst, d, sizeof d);
    line(x, guard, "mov.u64 %s, %s", d, SJ_PTX_SHARED);
    long at = sj_ptx_shared_offset(x->f, (int)ins->imm);
    if (at) line(x, guard, "add.s64 %s, %s, %ld", d, d, at);
    return;
  }
  case SJ_IR_TRAP: { /* the first failed check of the run reports */
    char a[40], e[40], old[40];
    value(x, ins->a, a, sizeof a);
    sj_px_reg_text(PX_B64, x->error_reg, e, sizeof e);
    sj_px_reg_text(PX_B32, sj_px_temp(x, PX_B32), old, sizeof old);
    line(x, "", "@%s atom.global.cas.b32 %s, [%s], 0, %ld", a, old, e, ins->imm);
    return;
  }
  case SJ_IR_DIV:
    if (ins->approx) {
      format(x, guard, "div.full.f32 %d, %a, %b", ins);
      return;
    }
    break;
  case SJ_IR_SELP:
    if (ins->type == SJ_IR_PRED) { /* no selp for predicates: (c and a) or (not c and b) */
      x->failed = 1;
      snprintf(x->why, sizeof x->why, "a selection between predicates");
      return;
    }
    break;
  case SJ_IR_LAUNCH:
    x->failed = 1;
    snprintf(x->why, sizeof x->why, "a launch inside a kernel");
    return;
  case SJ_IR_NEG: /* negation modulo 2^n: the same bits as the signed one */
    if (sj_ir_type_is_unsigned(ins->type)) {
      format(x, guard, ins->type == SJ_IR_U32 ? "neg.s32 %d, %a" : "neg.s64 %d, %a", ins);
      return;
    }
    break;
  case SJ_IR_MATH: { /* the rest was expanded into arithmetic (astgen/mathexp.c) */
    static const char *const rounding[SJ_MATH_N] = {[SJ_MATH_FLOOR] = "cvt.rmi%t%t %d, %a",
                                                    [SJ_MATH_CEIL] = "cvt.rpi%t%t %d, %a",
                                                    [SJ_MATH_TRUNC] = "cvt.rzi%t%t %d, %a"};
    if ((unsigned long)ins->imm < SJ_MATH_N && rounding[ins->imm]) {
      format(x, guard, rounding[ins->imm], ins);
      return;
    }
    x->failed = 1;
    snprintf(x->why, sizeof x->why, "%s was not expanded", sj_ir_math_name(ins->imm, ins->type));
    return;
  }
  default:
    break;
  }
  const char *fmt = fl ? formats[ins->op].floats : formats[ins->op].ints;
  if (!fmt) {
    x->failed = 1;
    snprintf(x->why, sizeof x->why, "no PTX for operation %d on type %d", ins->op, ins->type);
    return;
  }
  format(x, guard, fmt, ins);
}
