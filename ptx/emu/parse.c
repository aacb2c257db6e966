/* PTX parser and checker: text -> module of functions with pre-decoded instructions.
 *
 * Every operand becomes a register slot: declared registers first, then the special
 * registers (%tid.x ...), then one slot per distinct constant, then a sink slot for `_`.
 * Operand types are checked against the instruction type with the ISA's compatibility
 * rules (as ptxas applies them), and every error is reported ptxas-style with its line. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define TAG_SPECIAL 0x40000000u
#define TAG_CONST 0x80000000u
#define TAG_SINK 0xC0000000u
#define TAG_MASK 0xC0000000u

enum {
  SP_TID_X,
  SP_TID_Y,
  SP_TID_Z,
  SP_NTID_X,
  SP_NTID_Y,
  SP_NTID_Z,
  SP_CTAID_X,
  SP_CTAID_Y,
  SP_CTAID_Z,
  SP_NCTAID_X,
  SP_NCTAID_Y,
  SP_NCTAID_Z,
  SP_LANEID,
  SP_WARPID,
  SP_NWARPID,
  SP_LANEMASK_EQ,
  SP_LANEMASK_LT,
  SP_LANEMASK_LE,
  SP_LANEMASK_GT,
  SP_LANEMASK_GE,
  SP_SMID,
  SP_NSMID,
  SP_GRIDID,
  SP_DSMEM,
  SP_TSMEM,
  SP_COUNT
};
static const char *const special_names[SP_COUNT] = {
    "%tid.x",          "%tid.y",       "%tid.z",       "%ntid.x",
    "%ntid.y",         "%ntid.z",      "%ctaid.x",     "%ctaid.y",
    "%ctaid.z",        "%nctaid.x",    "%nctaid.y",    "%nctaid.z",
    "%laneid",         "%warpid",      "%nwarpid",     "%lanemask_eq",
    "%lanemask_lt",    "%lanemask_le", "%lanemask_gt", "%lanemask_ge",
    "%smid",           "%nsmid",       "%gridid",      "%dynamic_smem_size",
    "%total_smem_size"};
int emu_special_count(void) {
  return SP_COUNT;
}

void emu_slot_name(const emu_func *f, uint32_t slot, char *buf, size_t len) {
  for (int k = 0; k < f->nrnames; k++) {
    const emu_regname *r = &f->rnames[k];
    if (r->count == 0 && slot == r->base) {
      snprintf(buf, len, "%s", r->name);
      return;
    }
    if (r->count && slot >= r->base && slot < r->base + r->count) {
      snprintf(buf, len, "%s%u", r->name, slot - r->base);
      return;
    }
  }
  if (slot >= f->special_base && slot < f->special_base + SP_COUNT)
    snprintf(buf, len, "%s", special_names[slot - f->special_base]);
  else
    snprintf(buf, len, "(slot %u)", slot);
}

typedef struct {
  char *name;
  int type, depth;
  uint32_t base, count; /* count 0: a single register */
} regdecl;

typedef struct {
  char *name;
  int pc, line;
} label;

typedef struct {
  int insn, line;
  char *name;
} labelref;

typedef struct {
  int insn;   /* instruction index; -1: constant */
  uint32_t k; /* constant index for a constant fix-up */
  emu_var *var;
  int64_t add;
} fixup;

enum { O_NONE, O_REG, O_SPECIAL, O_INT, O_FLT, O_F32, O_F64, O_VAR, O_NAME, O_ADDR, O_VEC, O_SINK };
typedef struct {
  int kind, neg, pipe, type;
  uint32_t slot;
  uint64_t i;
  double f;
  emu_var *var;
  const emu_tok *tok;
  /* address */
  int has_base;
  int64_t off;
  int n;
  uint32_t vslot[4];
  int vtype[4], vsink[4];
} opnd;

typedef struct {
  const char *s[16];
  int len[16], used[16], n;
} mods;

typedef struct {
  emu_tok *t;
  int i;
  char *err;
  size_t errlen, errused;
  int nerr;
  emu_module *m;
  /* current function */
  emu_func *f;
  int depth;
  regdecl *regs;
  int nregs, capregs;
  uint32_t nslots;
  int *slot_types;
  emu_var **fvars;
  int nfvars, capfvars;
  label *labels;
  int nlabels, caplabels;
  labelref *lrefs;
  int nlrefs, caplrefs;
  fixup *fix;
  int nfix, capfix;
  uint64_t *consts;
  int nconsts, capconsts;
  emu_insn *code;
  int ncode, capcode;
  uint32_t fshared; /* function-level static shared bytes */
  uint32_t flocal;
  const char *opname; /* current instruction's opcode name */
  int line;
} P;

#define GROW(arr, n, cap)                                                                          \
  do {                                                                                             \
    if ((n) >= (cap)) {                                                                            \
      (cap) = (cap) ? 2 * (cap) : 16;                                                              \
      void *np_ = realloc((arr), (size_t)(cap) * sizeof *(arr));                                   \
      if (!np_) abort();                                                                           \
      (arr) = np_;                                                                                 \
    }                                                                                              \
  } while (0)

static void perr(P *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void perr(P *p, int line, const char *fmt, ...) {
  p->nerr++;
  if (p->errused + 1 >= p->errlen) return;
  int k =
      snprintf(p->err + p->errused, p->errlen - p->errused,
               "%sptxas application ptx input, line %d; error   : ", p->errused ? "\n" : "", line);
  if (k > 0) p->errused += (size_t)k;
  if (p->errused >= p->errlen) {
    p->errused = p->errlen - 1;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  k = vsnprintf(p->err + p->errused, p->errlen - p->errused, fmt, ap);
  va_end(ap);
  if (k > 0) p->errused += (size_t)k;
  if (p->errused >= p->errlen) p->errused = p->errlen - 1;
}

static emu_tok *cur(P *p) {
  return &p->t[p->i];
}
static int is(const emu_tok *t, const char *s) {
  return (int)strlen(s) == t->len && memcmp(t->s, s, (size_t)t->len) == 0;
}
static int accept(P *p, const char *s) {
  if (cur(p)->kind != EMU_TOK_EOF && is(cur(p), s)) {
    p->i++;
    return 1;
  }
  return 0;
}
static char *tokdup(const emu_tok *t) {
  char *s = malloc((size_t)t->len + 1);
  if (!s) abort();
  memcpy(s, t->s, (size_t)t->len);
  s[t->len] = 0;
  return s;
}
static int expect(P *p, const char *s) {
  if (accept(p, s)) return 1;
  perr(p, cur(p)->line, "syntax error: expected '%s' but found '%.*s'", s, cur(p)->len, cur(p)->s);
  return 0;
}
/* Skips to the end of the current statement (after ';'), for error recovery. */
static void skip_stmt(P *p) {
  while (cur(p)->kind != EMU_TOK_EOF && !is(cur(p), ";") && !is(cur(p), "}")) p->i++;
  accept(p, ";");
}

static int parse_type_name(const char *s, int len) {
  for (int t = EMU_T_PRED; t < EMU_T_COUNT; t++)
    if ((int)strlen(emu_type_name(t)) == len && memcmp(emu_type_name(t), s, (size_t)len) == 0)
      return t;
  return EMU_T_NONE;
}
static int tok_type(const emu_tok *t) {
  if (t->kind != EMU_TOK_ID || t->s[0] != '.') return EMU_T_NONE;
  return parse_type_name(t->s + 1, t->len - 1);
}

/* ---------- declarations ---------- */

static uint32_t new_slots(P *p, uint32_t n, int type) {
  uint32_t base = p->nslots;
  p->slot_types = realloc(p->slot_types, (p->nslots + n) * sizeof *p->slot_types);
  if (!p->slot_types) abort();
  for (uint32_t k = 0; k < n; k++) p->slot_types[base + k] = type;
  p->nslots += n;
  return base;
}

static regdecl *find_reg_decl(P *p, const char *s, int len, uint32_t *slot) {
  for (int k = p->nregs - 1; k >= 0; k--) {
    regdecl *r = &p->regs[k];
    if (r->depth < 0) continue;
    int nl = (int)strlen(r->name);
    if (r->count == 0) {
      if (nl == len && memcmp(r->name, s, (size_t)len) == 0) {
        *slot = r->base;
        return r;
      }
    } else if (len > nl && memcmp(r->name, s, (size_t)nl) == 0) {
      uint64_t v = 0;
      int ok = 1;
      for (int j = nl; j < len; j++) {
        if (s[j] < '0' || s[j] > '9' || v > 100000000) ok = 0;
        v = v * 10 + (uint64_t)(s[j] - '0');
      }
      if (ok && (s[nl] != '0' || len == nl + 1) && v < r->count) {
        *slot = r->base + (uint32_t)v;
        return r;
      }
    }
  }
  return NULL;
}

static emu_var *find_var(P *p, const char *s, int len) {
  for (int k = p->nfvars - 1; k >= 0; k--)
    if ((int)strlen(p->fvars[k]->name) == len && !memcmp(p->fvars[k]->name, s, (size_t)len))
      return p->fvars[k];
  for (int k = 0; k < p->m->nvars; k++)
    if ((int)strlen(p->m->vars[k]->name) == len && !memcmp(p->m->vars[k]->name, s, (size_t)len))
      return p->m->vars[k];
  return NULL;
}

static void parse_reg_decl(P *p) {
  int line = cur(p)->line;
  int vec = 1;
  if (accept(p, ".v2"))
    vec = 2;
  else if (accept(p, ".v4"))
    vec = 4;
  int type = tok_type(cur(p));
  if (!type || type == EMU_T_F16) {
    perr(p, line, "unsupported or missing register type '%.*s'", cur(p)->len, cur(p)->s);
    skip_stmt(p);
    return;
  }
  if (vec != 1) {
    perr(p, line, "vector registers are not supported");
    skip_stmt(p);
    return;
  }
  p->i++;
  do {
    emu_tok *nt = cur(p);
    if (nt->kind != EMU_TOK_ID || nt->s[0] == '.') {
      perr(p, nt->line, "syntax error: register name expected");
      skip_stmt(p);
      return;
    }
    p->i++;
    uint32_t count = 0, dummy;
    if (accept(p, "<")) {
      if (cur(p)->kind != EMU_TOK_INT || cur(p)->i == 0 || cur(p)->i > 1000000) {
        perr(p, cur(p)->line, "syntax error: bad register count");
        skip_stmt(p);
        return;
      }
      count = (uint32_t)cur(p)->i;
      p->i++;
      if (!expect(p, ">")) {
        skip_stmt(p);
        return;
      }
    }
    for (int k = 0; k < p->nregs; k++)
      if (p->regs[k].depth == p->depth && !strncmp(p->regs[k].name, nt->s, (size_t)nt->len) &&
          (int)strlen(p->regs[k].name) == nt->len)
        perr(p, nt->line, "Duplicate definition of register '%.*s'", nt->len, nt->s);
    (void)dummy;
    GROW(p->regs, p->nregs, p->capregs);
    regdecl *r = &p->regs[p->nregs++];
    r->name = tokdup(nt);
    r->type = type;
    r->depth = p->depth;
    r->count = count;
    r->base = new_slots(p, count ? count : 1, type);
  } while (accept(p, ","));
  expect(p, ";");
}

/* Parses `[.align N] [.vN] .type name[N]... [= init]` after the state space. */
static emu_var *parse_var_decl(P *p, int space, int is_extern, int module_level) {
  int line = cur(p)->line;
  uint32_t align = 0;
  int vec = 1;
  for (;;) {
    if (accept(p, ".align")) {
      if (cur(p)->kind != EMU_TOK_INT || (cur(p)->i & (cur(p)->i - 1)) || cur(p)->i == 0 ||
          cur(p)->i > 4096) {
        perr(p, cur(p)->line, "bad alignment");
        skip_stmt(p);
        return NULL;
      }
      align = (uint32_t)cur(p)->i;
      p->i++;
    } else if (accept(p, ".v2"))
      vec = 2;
    else if (accept(p, ".v4"))
      vec = 4;
    else if (accept(p, ".ptr") || accept(p, ".global") || accept(p, ".shared") ||
             accept(p, ".const") || accept(p, ".local")) {
    } else
      break;
  }
  int type = tok_type(cur(p));
  if (!type || type == EMU_T_PRED || type == EMU_T_F16) {
    perr(p, line, "unsupported or missing variable type '%.*s'", cur(p)->len, cur(p)->s);
    skip_stmt(p);
    return NULL;
  }
  p->i++;
  for (;;) {
    if (accept(p, ".align")) {
      if (cur(p)->kind == EMU_TOK_INT) align = (uint32_t)cur(p)->i, p->i++;
    } else if (accept(p, ".ptr") || accept(p, ".global") || accept(p, ".shared") ||
               accept(p, ".const") || accept(p, ".local")) {
    } else
      break;
  }
  emu_tok *nt = cur(p);
  if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
    perr(p, nt->line, "syntax error: variable name expected");
    skip_stmt(p);
    return NULL;
  }
  p->i++;
  uint32_t esize = (uint32_t)emu_type_size(type) * (uint32_t)vec;
  uint64_t n = 1;
  int unsized = 0;
  while (accept(p, "[")) {
    if (accept(p, "]")) {
      unsized = 1;
      continue;
    }
    if (cur(p)->kind != EMU_TOK_INT || cur(p)->i > (1ull << 32)) {
      perr(p, cur(p)->line, "bad array size");
      skip_stmt(p);
      return NULL;
    }
    n *= cur(p)->i;
    p->i++;
    if (!expect(p, "]")) {
      skip_stmt(p);
      return NULL;
    }
  }
  emu_var *o = find_var(p, nt->s, nt->len);
  if (o && (module_level || o->space != EMU_SP_GLOBAL) && !(module_level && o->is_extern))
    perr(p, nt->line, "Duplicate definition of symbol '%.*s'", nt->len, nt->s);
  emu_var *v = calloc(1, sizeof *v);
  if (!v) abort();
  v->name = tokdup(nt);
  v->space = space;
  v->is_extern = is_extern || unsized;
  v->line = nt->line;
  v->size = unsized ? 0 : n * esize;
  v->align = align ? align : esize;
  if (accept(p, "=")) {
    if (space != EMU_SP_GLOBAL && space != EMU_SP_CONST)
      perr(p, cur(p)->line, "initializer not allowed in this state space");
    v->init = calloc(1, v->size ? v->size : 1);
    if (!v->init) abort();
    int brace = accept(p, "{");
    uint64_t k = 0;
    do {
      int neg = accept(p, "-");
      emu_tok *it = cur(p);
      if (brace && is(it, "}")) break;
      uint64_t bits = 0;
      int kind = emu_type_kind(type);
      if (it->kind == EMU_TOK_INT && kind != EMU_K_F)
        bits = neg ? (uint64_t) - (int64_t)it->i : it->i;
      else if (kind == EMU_K_F &&
               (it->kind == EMU_TOK_FLOAT || it->kind == EMU_TOK_F32 || it->kind == EMU_TOK_F64)) {
        double d = it->kind == EMU_TOK_FLOAT ? it->f : 0;
        if (it->kind == EMU_TOK_F32) {
          uint32_t u = (uint32_t)it->i;
          float fl;
          memcpy(&fl, &u, 4);
          d = fl;
        } else if (it->kind == EMU_TOK_F64)
          memcpy(&d, &it->i, 8);
        if (neg) d = -d;
        if (type == EMU_T_F32) {
          float fl = (float)d;
          uint32_t u;
          memcpy(&u, &fl, 4);
          bits = u;
        } else
          memcpy(&bits, &d, 8);
      } else {
        perr(p, it->line, "unsupported initializer '%.*s'", it->len, it->s);
        skip_stmt(p);
        return v;
      }
      p->i++;
      if ((k + 1) * (uint64_t)emu_type_size(type) > v->size) {
        perr(p, it->line, "too many initializers");
        skip_stmt(p);
        return v;
      }
      memcpy(v->init + k * (uint64_t)emu_type_size(type), &bits, (size_t)emu_type_size(type));
      k++;
    } while (brace && accept(p, ","));
    if (brace) expect(p, "}");
  }
  expect(p, ";");
  return v;
}

/* ---------- constants and operands ---------- */

static uint32_t const_slot(P *p, uint64_t v) {
  for (int k = 0; k < p->nconsts; k++)
    if (p->consts[k] == v) return TAG_CONST | (uint32_t)k;
  GROW(p->consts, p->nconsts, p->capconsts);
  p->consts[p->nconsts] = v;
  return TAG_CONST | (uint32_t)p->nconsts++;
}
/* A constant slot whose value is a variable's address (plus add), filled at function end. */
static uint32_t var_slot(P *p, emu_var *v, int64_t add) {
  GROW(p->consts, p->nconsts, p->capconsts);
  p->consts[p->nconsts] = 0;
  GROW(p->fix, p->nfix, p->capfix);
  p->fix[p->nfix++] = (fixup){-1, (uint32_t)p->nconsts, v, add};
  return TAG_CONST | (uint32_t)p->nconsts++;
}

static int parse_int_expr(P *p, int64_t *v) {
  int neg = 0;
  while (accept(p, "-")) neg = !neg;
  if (cur(p)->kind != EMU_TOK_INT) return 0;
  *v = neg ? -(int64_t)cur(p)->i : (int64_t)cur(p)->i;
  p->i++;
  return 1;
}

static int parse_operand(P *p, opnd *o) {
  memset(o, 0, sizeof *o);
  emu_tok *t = cur(p);
  o->tok = t;
  if (accept(p, "[")) {
    o->kind = O_ADDR;
    emu_tok *b = cur(p);
    if (b->kind == EMU_TOK_ID) {
      uint32_t slot;
      regdecl *r = find_reg_decl(p, b->s, b->len, &slot);
      if (r) {
        o->has_base = 1;
        o->slot = slot;
        o->type = r->type;
      } else {
        emu_var *v = find_var(p, b->s, b->len);
        if (!v) {
          perr(p, b->line, "Unknown symbol '%.*s'", b->len, b->s);
          return 0;
        }
        o->var = v;
      }
      p->i++;
      if (accept(p, "+")) {
        if (!parse_int_expr(p, &o->off)) goto bad;
      } else if (is(cur(p), "-")) {
        if (!parse_int_expr(p, &o->off)) goto bad;
      }
    } else if (!parse_int_expr(p, &o->off))
      goto bad;
    if (!accept(p, "]")) goto bad;
    return 1;
  }
  if (accept(p, "{")) {
    o->kind = O_VEC;
    do {
      emu_tok *r = cur(p);
      if (o->n == 4) goto bad;
      if (is(r, "_")) {
        o->vsink[o->n] = 1;
        o->vslot[o->n] = TAG_SINK;
        o->vtype[o->n++] = EMU_T_NONE;
        p->i++;
        continue;
      }
      uint32_t slot;
      regdecl *d = r->kind == EMU_TOK_ID ? find_reg_decl(p, r->s, r->len, &slot) : NULL;
      if (!d) {
        perr(p, r->line, "Unknown symbol '%.*s'", r->len, r->s);
        return 0;
      }
      o->vslot[o->n] = slot;
      o->vtype[o->n++] = d->type;
      p->i++;
    } while (accept(p, ","));
    if (!accept(p, "}")) goto bad;
    return 1;
  }
  int neg = 0;
  if (accept(p, "!")) {
    o->neg = 1;
    t = cur(p);
  }
  while (is(cur(p), "-") && cur(p)->kind == EMU_TOK_PUNCT) {
    neg = !neg;
    p->i++;
  }
  t = cur(p);
  o->tok = t;
  if (t->kind == EMU_TOK_INT) {
    o->kind = O_INT;
    o->i = neg ? (uint64_t) - (int64_t)t->i : t->i;
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
    if (is(t, "_"))
      o->kind = O_SINK;
    else if ((r = find_reg_decl(p, t->s, t->len, &slot))) {
      o->kind = O_REG;
      o->slot = slot;
      o->type = r->type;
    } else if (t->s[0] == '%') {
      int k;
      for (k = 0; k < SP_COUNT; k++)
        if (is(t, special_names[k])) break;
      if (k == SP_COUNT) {
        perr(p, t->line, "Unknown symbol '%.*s'", t->len, t->s);
        p->i++;
        return 0;
      }
      o->kind = O_SPECIAL;
      o->slot = TAG_SPECIAL | (uint32_t)k;
      o->type = EMU_T_U32;
    } else {
      emu_var *v = find_var(p, t->s, t->len);
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
  perr(p, cur(p)->line, "syntax error: malformed operand near '%.*s'", cur(p)->len, cur(p)->s);
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
  perr(p, p->line, "Arguments mismatch for instruction '%s'", p->opname);
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
      *slot = const_slot(p, o->i);
      return 1;
    }
    if (ik != EMU_K_BIT && ik != EMU_K_U && ik != EMU_K_S) break;
    *slot = const_slot(p, sz == 8 ? o->i : o->i & ((1ull << (8 * sz)) - 1));
    return 1;
  case O_FLT:
  case O_F32:
  case O_F64: {
    if (ik == EMU_K_BIT && ((o->kind == O_F32 && sz == 4) || (o->kind == O_F64 && sz == 8))) {
      *slot = const_slot(p, o->i);
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
    *slot = const_slot(p, bits);
    return 1;
  }
  case O_VAR:
    if ((ik != EMU_K_BIT && ik != EMU_K_U && ik != EMU_K_S) || sz < 4) break;
    *slot = var_slot(p, o->var, 0);
    return 1;
  case O_NAME:
    perr(p, o->tok->line, "Unknown symbol '%.*s'", o->tok->len, o->tok->s);
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
    perr(p, o->tok->line, "Unknown symbol '%.*s'", o->tok->len, o->tok->s);
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
    in->s[0] = const_slot(p, 0);
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
    int t = parse_type_name(md->s[k], md->len[k]);
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
      perr(p, p->line, "Unknown modifier '.%.*s' for instruction '%s'", md->len[k], md->s[k],
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
    perr(p, p->line, "Illegal modifier '%s' for instruction '%s'", what, p->opname);               \
    return 0;                                                                                      \
  } while (0)

static const char *const cmp_names[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                        "lo",  "ls",  "hi",  "hs",  "equ", "neu",
                                        "ltu", "leu", "gtu", "geu", "num", "nan"};

static int nops(P *p, int n, int want) {
  if (n != want) {
    mismatch(p);
    return 0;
  }
  return 1;
}

/* Builds one instruction from its mnemonic parts and operands; 1 on success. */
static int build(P *p, emu_insn *in, const char *op, mods *md, opnd *o, int n) {
  int ty[3] = {0, 0, 0};
  int nt;
#define ONE_TYPE()                                                                                 \
  do {                                                                                             \
    nt = take_types(md, ty, 3);                                                                    \
    if (nt != 1) {                                                                                 \
      perr(p, p->line, "%s type for instruction '%s'", nt ? "Too many" : "Missing", op);           \
      return 0;                                                                                    \
    }                                                                                              \
    in->type = (uint8_t)ty[0];                                                                     \
  } while (0)

  /* integer/float binary arithmetic */
  if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") || !strcmp(op, "div") ||
      !strcmp(op, "rem") || !strcmp(op, "min") || !strcmp(op, "max") || !strcmp(op, "mad") ||
      !strcmp(op, "fma") || !strcmp(op, "copysign")) {
    int three = !strcmp(op, "mad") || !strcmp(op, "fma");
    int rnd = take_rnd(md), ftz = take(md, "ftz"), sat = take(md, "sat");
    int lo = take(md, "lo"), hi = take(md, "hi"), wide = take(md, "wide");
    int approx = take(md, "approx"), full = take(md, "full");
    ONE_TYPE();
    int t = ty[0];
    if (!nops(p, n, three ? 4 : 3)) return 0;
    in->rnd = (uint8_t)rnd;
    if (is_flt(t)) {
      if (lo || hi || wide) {
        perr(p, p->line, "Unexpected instruction types specified for '%s.%s'", op,
             lo   ? "lo"
             : hi ? "hi"
                  : "wide");
        return 0;
      }
      if (!strcmp(op, "rem")) NEED(0);
      if (rnd > EMU_RND_RP) ILLEGAL(".rni");
      if ((ftz || sat) && t == EMU_T_F64) ILLEGAL(".ftz");
      if (!strcmp(op, "div")) {
        if (t == EMU_T_F32 && !rnd && !approx && !full) {
          perr(p, p->line,
               "Rounding modifier or '.approx' modifier required for instruction 'div'");
          return 0;
        }
        if (t == EMU_T_F64 && !rnd) {
          perr(p, p->line, "Rounding modifier required for instruction 'div'");
          return 0;
        }
        if (approx || full) in->flags |= EMU_F_APPROX;
      } else if (approx || full)
        ILLEGAL(".approx");
      if (three && !rnd && !strcmp(op, "fma")) {
        perr(p, p->line, "Rounding modifier required for instruction '%s'", op);
        return 0;
      }
      if ((!strcmp(op, "min") || !strcmp(op, "max") || !strcmp(op, "copysign")) && rnd)
        ILLEGAL(".rn");
      if (!strcmp(op, "copysign") && (ftz || sat)) ILLEGAL(".ftz");
      if (!rnd && strcmp(op, "min") && strcmp(op, "max") && strcmp(op, "copysign"))
        in->rnd = EMU_RND_RN;
      in->flags |= (uint8_t)((ftz ? EMU_F_FTZ : 0) | (sat ? EMU_F_SAT : 0));
      in->op = !strcmp(op, "add")        ? EMU_OP_ADD
               : !strcmp(op, "sub")      ? EMU_OP_SUB
               : !strcmp(op, "mul")      ? EMU_OP_MUL
               : !strcmp(op, "div")      ? EMU_OP_DIV
               : !strcmp(op, "min")      ? EMU_OP_MIN
               : !strcmp(op, "max")      ? EMU_OP_MAX
               : !strcmp(op, "copysign") ? EMU_OP_COPYSIGN
                                         : EMU_OP_FMA;
      in->cls = EMU_CLS_FLOAT;
      if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
      for (int k = 1; k < n; k++)
        if (!src(p, &o[k], t, 0, &in->s[k - 1])) return 0;
      in->nsrc = (uint8_t)(n - 1);
      in->ndst = 1;
      return 1;
    }
    if (!strcmp(op, "fma") || !strcmp(op, "copysign")) {
      perr(p, p->line, "Unexpected instruction types specified for '%s'", op);
      return 0;
    }
    if (rnd) {
      perr(p, p->line, "Illegal rounding modifier for instruction '%s'", op);
      return 0;
    }
    if (ftz || approx || full) ILLEGAL(".ftz");
    if (sat && !(t == EMU_T_S32 &&
                 (!strcmp(op, "add") || !strcmp(op, "sub") || (!strcmp(op, "mad") && hi))))
      ILLEGAL(".sat");
    if (!int_arith(t)) {
      perr(p, p->line, "Unexpected instruction types specified for '%s'", op);
      return 0;
    }
    int dt = t;
    in->cls = EMU_CLS_INT;
    if (!strcmp(op, "mul") || !strcmp(op, "mad")) {
      if (lo + hi + wide != 1) {
        perr(p, p->line, "'.lo', '.hi' or '.wide' required for instruction '%s'", op);
        return 0;
      }
      if (wide) {
        dt = wider(t);
        if (!dt) {
          perr(p, p->line, "Unexpected instruction types specified for '%s.wide'", op);
          return 0;
        }
      }
      int m = !strcmp(op, "mul");
      in->op = lo   ? (m ? EMU_OP_MUL : EMU_OP_MAD)
               : hi ? (m ? EMU_OP_MULHI : EMU_OP_MADHI)
                    : (m ? EMU_OP_MULWIDE : EMU_OP_MADWIDE);
    } else {
      if (lo || hi || wide) ILLEGAL(".lo");
      in->op = !strcmp(op, "add")   ? EMU_OP_ADD
               : !strcmp(op, "sub") ? EMU_OP_SUB
               : !strcmp(op, "div") ? EMU_OP_DIV
               : !strcmp(op, "rem") ? EMU_OP_REM
               : !strcmp(op, "min") ? EMU_OP_MIN
                                    : EMU_OP_MAX;
    }
    if (sat) in->flags |= EMU_F_SAT;
    if (!dst(p, &o[0], dt, 0, &in->d[0])) return 0;
    if (!src(p, &o[1], t, 0, &in->s[0]) || !src(p, &o[2], t, 0, &in->s[1])) return 0;
    if (three && !src(p, &o[3], dt, 0, &in->s[2])) return 0;
    in->nsrc = (uint8_t)(n - 1);
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "abs") || !strcmp(op, "neg") || !strcmp(op, "sqrt") || !strcmp(op, "rcp") ||
      !strcmp(op, "rsqrt") || !strcmp(op, "sin") || !strcmp(op, "cos") || !strcmp(op, "lg2") ||
      !strcmp(op, "ex2")) {
    int rnd = take_rnd(md), ftz = take(md, "ftz"), approx = take(md, "approx");
    int full = 0;
    ONE_TYPE();
    int t = ty[0];
    if (!nops(p, n, 2)) return 0;
    if (!strcmp(op, "abs") || !strcmp(op, "neg")) {
      if (rnd || approx) ILLEGAL(".rn");
      if (!is_flt(t) && !is_sint(t)) {
        perr(p, p->line, "Instruction '%s' applies only to signed numeric types", op);
        return 0;
      }
      if (ftz && t != EMU_T_F32) ILLEGAL(".ftz");
      in->op = !strcmp(op, "abs") ? EMU_OP_ABS : EMU_OP_NEG;
      in->cls = is_flt(t) ? EMU_CLS_FLOAT : EMU_CLS_INT;
    } else {
      if (!is_flt(t)) {
        perr(p, p->line, "Unexpected instruction types specified for '%s'", op);
        return 0;
      }
      if (rnd > EMU_RND_RP) ILLEGAL(".rni");
      int needs_rnd = !strcmp(op, "sqrt") || !strcmp(op, "rcp");
      if (needs_rnd) {
        if (!rnd && !approx) {
          perr(p, p->line, "Rounding modifier or '.approx' modifier required for instruction '%s'",
               op);
          return 0;
        }
        if (approx && rnd) ILLEGAL(".approx");
        if (t == EMU_T_F64 && approx && !strcmp(op, "sqrt")) ILLEGAL(".approx");
        if (t == EMU_T_F64 && approx && !ftz) {
          perr(p, p->line, "'.ftz' modifier required for instruction '%s.approx.f64'", op);
          return 0;
        }
        if (t == EMU_T_F64 && ftz && !approx) ILLEGAL(".ftz");
      } else {
        if (!approx) {
          perr(p, p->line, "'.approx' modifier required for instruction '%s'", op);
          return 0;
        }
        if (rnd) ILLEGAL(".rn");
        if (t == EMU_T_F64 && strcmp(op, "rsqrt")) {
          perr(p, p->line, "Unexpected instruction types specified for '%s'", op);
          return 0;
        }
        if (t == EMU_T_F64 && !ftz) {
          perr(p, p->line, "'.ftz' modifier required for instruction '%s.approx.f64'", op);
          return 0;
        }
      }
      (void)full;
      in->op = !strcmp(op, "sqrt")    ? EMU_OP_SQRT
               : !strcmp(op, "rcp")   ? EMU_OP_RCP
               : !strcmp(op, "rsqrt") ? EMU_OP_RSQRT
               : !strcmp(op, "sin")   ? EMU_OP_SIN
               : !strcmp(op, "cos")   ? EMU_OP_COS
               : !strcmp(op, "lg2")   ? EMU_OP_LG2
                                      : EMU_OP_EX2;
      in->rnd = (uint8_t)(rnd ? rnd : EMU_RND_RN);
      if (approx) in->flags |= EMU_F_APPROX;
      in->cls = EMU_CLS_FLOAT;
    }
    if (ftz) in->flags |= EMU_F_FTZ;
    if (!dst(p, &o[0], t, 0, &in->d[0]) || !src(p, &o[1], t, 0, &in->s[0])) return 0;
    in->nsrc = 1;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor") || !strcmp(op, "not") ||
      !strcmp(op, "cnot") || !strcmp(op, "shl") || !strcmp(op, "shr") || !strcmp(op, "popc") ||
      !strcmp(op, "clz") || !strcmp(op, "brev") || !strcmp(op, "bfe") || !strcmp(op, "bfi") ||
      !strcmp(op, "lop3")) {
    ONE_TYPE();
    int t = ty[0];
    int un = !strcmp(op, "not") || !strcmp(op, "cnot") || !strcmp(op, "popc") ||
             !strcmp(op, "clz") || !strcmp(op, "brev");
    int want = un                    ? 2
               : !strcmp(op, "bfe")  ? 4
               : !strcmp(op, "bfi")  ? 5
               : !strcmp(op, "lop3") ? 5
                                     : 3;
    if (!nops(p, n, want)) return 0;
    int okt;
    if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor") || !strcmp(op, "not"))
      okt = t == EMU_T_PRED || (emu_type_kind(t) == EMU_K_BIT && emu_type_size(t) >= 2);
    else if (!strcmp(op, "shr"))
      okt = is_int(t) && emu_type_size(t) >= 2;
    else if (!strcmp(op, "bfe"))
      okt = (emu_type_kind(t) == EMU_K_U || is_sint(t)) && emu_type_size(t) >= 4;
    else if (!strcmp(op, "lop3"))
      okt = t == EMU_T_B32;
    else if (!strcmp(op, "shl") || !strcmp(op, "cnot"))
      okt = emu_type_kind(t) == EMU_K_BIT && emu_type_size(t) >= 2;
    else
      okt = emu_type_kind(t) == EMU_K_BIT && emu_type_size(t) >= 4;
    if (!okt) {
      perr(p, p->line, "Unexpected instruction types specified for '%s'", op);
      return 0;
    }
    in->op = !strcmp(op, "and")    ? EMU_OP_AND
             : !strcmp(op, "or")   ? EMU_OP_OR
             : !strcmp(op, "xor")  ? EMU_OP_XOR
             : !strcmp(op, "not")  ? EMU_OP_NOT
             : !strcmp(op, "cnot") ? EMU_OP_CNOT
             : !strcmp(op, "shl")  ? EMU_OP_SHL
             : !strcmp(op, "shr")  ? EMU_OP_SHR
             : !strcmp(op, "popc") ? EMU_OP_POPC
             : !strcmp(op, "clz")  ? EMU_OP_CLZ
             : !strcmp(op, "brev") ? EMU_OP_BREV
             : !strcmp(op, "bfe")  ? EMU_OP_BFE
             : !strcmp(op, "bfi")  ? EMU_OP_BFI
                                   : EMU_OP_LOP3;
    in->cls = EMU_CLS_INT;
    int dt = (in->op == EMU_OP_POPC || in->op == EMU_OP_CLZ) ? EMU_T_U32 : t;
    if (!dst(p, &o[0], dt, 0, &in->d[0])) return 0;
    for (int k = 1; k < n; k++) {
      int st = t;
      if ((in->op == EMU_OP_SHL || in->op == EMU_OP_SHR) && k == 2) st = EMU_T_U32;
      if (in->op == EMU_OP_BFE && k >= 2) st = EMU_T_U32;
      if (in->op == EMU_OP_BFI && k >= 3) st = EMU_T_U32;
      if (in->op == EMU_OP_LOP3 && k == 4) {
        NEED(o[k].kind == O_INT && o[k].i < 256);
        in->mode = (uint8_t)o[k].i;
        continue;
      }
      if (!src(p, &o[k], st, 0, &in->s[k - 1])) return 0;
    }
    in->nsrc = (uint8_t)(in->op == EMU_OP_LOP3 ? 3 : n - 1);
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "testp")) {
    static const char *const tp[] = {"finite",     "infinite", "number",
                                     "notanumber", "normal",   "subnormal"};
    int m = take_one(md, tp, 6);
    ONE_TYPE();
    if (m < 0 || !is_flt(ty[0])) NEED(0);
    if (!nops(p, n, 2)) return 0;
    in->op = EMU_OP_TESTP;
    in->mode = (uint8_t)m;
    in->cls = EMU_CLS_FLOAT;
    if (!dst(p, &o[0], EMU_T_PRED, 0, &in->d[0]) || !src(p, &o[1], ty[0], 0, &in->s[0])) return 0;
    in->nsrc = 1;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "setp")) {
    int cmp = take_one(md, cmp_names, 18);
    static const char *const bops[] = {NULL, "and", "or", "xor"};
    int bop = take_one(md, bops, 4);
    int ftz = take(md, "ftz");
    ONE_TYPE();
    int t = ty[0];
    if (cmp < 0) {
      perr(p, p->line, "Comparison operator required for instruction 'setp'");
      return 0;
    }
    if (t == EMU_T_PRED || t == EMU_T_F16 || emu_type_size(t) < 2) {
      perr(p, p->line, "Unexpected instruction types specified for 'setp'");
      return 0;
    }
    if (!is_flt(t) && cmp >= EMU_CMP_EQU) {
      perr(p, p->line, "Illegal comparison operator '.%s' for integer type", cmp_names[cmp]);
      return 0;
    }
    if (is_flt(t) && cmp >= EMU_CMP_LO && cmp <= EMU_CMP_HS) {
      perr(p, p->line, "Illegal comparison operator '.%s' for floating-point type", cmp_names[cmp]);
      return 0;
    }
    if (emu_type_kind(t) == EMU_K_BIT && cmp != EMU_CMP_EQ && cmp != EMU_CMP_NE) {
      perr(p, p->line, "Illegal comparison operator '.%s' for bit-size type", cmp_names[cmp]);
      return 0;
    }
    if (ftz && t != EMU_T_F32) ILLEGAL(".ftz");
    int pipe = n >= 2 && o[1].pipe;
    int want = 3 + pipe + (bop > 0);
    if (!nops(p, n, want)) return 0;
    in->op = EMU_OP_SETP;
    in->cmp = (uint8_t)cmp;
    in->bop = (uint8_t)(bop < 0 ? 0 : bop);
    in->type = (uint8_t)t;
    if (ftz) in->flags |= EMU_F_FTZ;
    in->cls = is_flt(t) ? EMU_CLS_FLOAT : EMU_CLS_INT;
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

  if (!strcmp(op, "selp")) {
    ONE_TYPE();
    int t = ty[0];
    if (!nops(p, n, 4)) return 0;
    if (t == EMU_T_PRED || emu_type_size(t) < 2 || t == EMU_T_F16) NEED(0);
    in->op = EMU_OP_SELP;
    in->cls = EMU_CLS_MOVE;
    if (!dst(p, &o[0], t, 0, &in->d[0]) || !src(p, &o[1], t, 0, &in->s[0]) ||
        !src(p, &o[2], t, 0, &in->s[1]) || !src(p, &o[3], EMU_T_PRED, 0, &in->s[2]))
      return 0;
    if (o[3].neg) NEED(0);
    in->nsrc = 3;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "mov")) {
    ONE_TYPE();
    int t = ty[0];
    if (!nops(p, n, 2)) return 0;
    if (t == EMU_T_F16 || emu_type_size(t) == 1) NEED(0);
    in->cls = EMU_CLS_MOVE;
    if (o[0].kind == O_VEC || o[1].kind == O_VEC) {
      /* mov.b64 d, {a, b} (pack) and mov.b64 {a, b}, d (unpack) */
      int vi = o[0].kind == O_VEC ? 0 : 1;
      int nv = o[vi].n, es = emu_type_size(t) / (nv ? nv : 1);
      NEED(emu_type_kind(t) == EMU_K_BIT && (nv == 2 || nv == 4) && es >= 1 &&
           es * nv == emu_type_size(t) && es >= 2);
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
      } else {
        in->op = EMU_OP_UNPACK;
        if (!src(p, &o[1], t, 0, &in->s[0])) return 0;
        for (int k = 0; k < nv; k++) {
          NEED(o[0].vsink[k] || compat(et, o[0].vtype[k], 0));
          in->d[k] = o[0].vslot[k];
        }
        in->nsrc = 1;
        in->ndst = (uint8_t)nv;
      }
      return 1;
    }
    in->op = EMU_OP_MOV;
    if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
    if (o[1].kind == O_VAR && emu_type_size(t) < 4) NEED(0);
    if (!src(p, &o[1], t, 0, &in->s[0])) return 0;
    in->nsrc = 1;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "cvt")) {
    int rnd = take_rnd(md), ftz = take(md, "ftz"), sat = take(md, "sat");
    nt = take_types(md, ty, 3);
    if (nt != 2) {
      perr(p, p->line, "Two types required for instruction 'cvt'");
      return 0;
    }
    int dt = ty[0], at = ty[1];
    if (!nops(p, n, 2)) return 0;
    if (dt == EMU_T_PRED || at == EMU_T_PRED || dt == EMU_T_F16 || at == EMU_T_F16 ||
        emu_type_kind(dt) == EMU_K_BIT || emu_type_kind(at) == EMU_K_BIT) {
      perr(p, p->line, "Unexpected instruction types specified for 'cvt'");
      return 0;
    }
    int df = is_flt(dt), af = is_flt(at);
    if (!df && !af) {
      if (rnd) {
        perr(p, p->line, "Illegal rounding modifier for instruction 'cvt'");
        return 0;
      }
      /* .sat only where the destination range does not contain the source range */
      int ds = emu_type_size(dt), as = emu_type_size(at);
      int superset =
          (is_sint(dt) == is_sint(at) && ds >= as) || (is_sint(dt) && !is_sint(at) && ds > as);
      if (sat && superset) ILLEGAL(".sat");
    } else if (af && !df) {
      if (rnd < EMU_RND_RNI) {
        perr(p, p->line, "%s rounding modifier for instruction 'cvt'",
             rnd ? "Illegal" : "Rounding modifier required:");
        return 0;
      }
      if (ftz && at != EMU_T_F32) ILLEGAL(".ftz");
    } else if (!af && df) {
      if (!rnd || rnd > EMU_RND_RP) {
        perr(p, p->line, "%s for instruction 'cvt'",
             rnd ? "Illegal rounding modifier" : "Rounding modifier required");
        return 0;
      }
      if (ftz) ILLEGAL(".ftz");
    } else {
      if (dt == EMU_T_F32 && at == EMU_T_F64) {
        if (!rnd || rnd > EMU_RND_RP) {
          perr(p, p->line, "%s for instruction 'cvt'",
               rnd ? "Illegal rounding modifier" : "Rounding modifier required");
          return 0;
        }
      } else if (dt == EMU_T_F64 && at == EMU_T_F32) {
        if (rnd) {
          perr(p, p->line, "Illegal rounding modifier for instruction 'cvt'");
          return 0;
        }
      } else if (rnd && rnd < EMU_RND_RNI) {
        perr(p, p->line, "Illegal rounding modifier for instruction 'cvt'");
        return 0;
      }
      if (ftz && dt != EMU_T_F32 && at != EMU_T_F32) ILLEGAL(".ftz");
    }
    in->op = EMU_OP_CVT;
    in->type = (uint8_t)dt;
    in->type2 = (uint8_t)at;
    in->rnd = (uint8_t)rnd;
    in->flags |= (uint8_t)((ftz ? EMU_F_FTZ : 0) | (sat ? EMU_F_SAT : 0));
    in->cls = EMU_CLS_CONV;
    if (!dst(p, &o[0], dt, 1, &in->d[0]) || !src(p, &o[1], at, 1, &in->s[0])) return 0;
    in->rsz = (uint8_t)(o[0].kind == O_REG ? emu_type_size(o[0].type) : 8);
    in->nsrc = 1;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "cvta")) {
    int to = take(md, "to");
    int sp = take_space(md);
    ONE_TYPE();
    int t = ty[0];
    if (sp == EMU_SP_GENERIC) {
      perr(p, p->line, "State space required for instruction 'cvta'");
      return 0;
    }
    if (t != EMU_T_U32 && t != EMU_T_U64) {
      perr(p, p->line, "Unexpected instruction types specified for 'cvta'");
      return 0;
    }
    if (!nops(p, n, 2)) return 0;
    in->op = to ? EMU_OP_CVTA_TO : EMU_OP_CVTA;
    in->space = (uint8_t)sp;
    in->cls = EMU_CLS_MOVE;
    if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
    if (!src(p, &o[1], t, 0, &in->s[0])) return 0;
    in->nsrc = 1;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "ld") || !strcmp(op, "st")) {
    int isld = op[0] == 'l';
    take(md, "weak");
    take(md, "volatile");
    int relaxed = take(md, "relaxed") || take(md, "acquire") || take(md, "release");
    if (relaxed) {
      static const char *const sc[] = {"cta", "gpu", "sys"};
      if (take_one(md, sc, 3) < 0) {
        perr(p, p->line, "Scope required with memory-ordering qualifier");
        return 0;
      }
    }
    int sp = take_space(md);
    int nc = take(md, "nc");
    static const char *const ldc[] = {"ca", "cg", "cs", "lu", "cv"};
    static const char *const stc[] = {"wb", "cg", "cs", "wt"};
    int cop = isld ? take_one(md, ldc, 5) : take_one(md, stc, 4);
    if (!isld && (take(md, "ca") || take(md, "lu") || take(md, "cv"))) ILLEGAL(".ca");
    int vec = take(md, "v2") ? 2 : take(md, "v4") ? 4 : 1;
    ONE_TYPE();
    int t = ty[0];
    (void)cop;
    if (nc && (!isld || sp != EMU_SP_GLOBAL)) {
      if (!isld) ILLEGAL(".nc");
      perr(p, p->line, "Modifier '.nc' requires .global space");
      return 0;
    }
    if (t == EMU_T_PRED || t == EMU_T_F16) NEED(0);
    if (vec * emu_type_size(t) > 16) NEED(0);
    if (!nops(p, n, 2)) return 0;
    in->op = isld ? EMU_OP_LD : EMU_OP_ST;
    in->space = (uint8_t)sp;
    in->vec = (uint8_t)vec;
    in->cls = sp == EMU_SP_SHARED  ? EMU_CLS_MEM_SHARED
              : sp == EMU_SP_LOCAL ? EMU_CLS_MEM_LOCAL
              : sp == EMU_SP_PARAM ? EMU_CLS_MEM_PARAM
              : sp == EMU_SP_CONST ? EMU_CLS_MEM_CONST
                                   : EMU_CLS_MEM_GLOBAL;
    opnd *a = isld ? &o[1] : &o[0], *r = isld ? &o[0] : &o[1];
    if (a->kind == O_ADDR && !a->has_base && a->var && a->var->space != sp &&
        !(sp == EMU_SP_GENERIC)) {
      perr(p, p->line, "State space mismatch for variable '%s' in instruction '%s'", a->var->name,
           op);
      return 0;
    }
    if (!addr(p, a, in)) return 0;
    in->nsrc = 1;
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
    in->type = (uint8_t)t;
    return 1;
  }

  if (!strcmp(op, "atom") || !strcmp(op, "red")) {
    int isred = op[0] == 'r';
    static const char *const sem[] = {"relaxed", "acquire", "release", "acq_rel"};
    static const char *const sc[] = {"cta", "gpu", "sys"};
    take_one(md, sem, 4);
    int sp = take_space(md);
    take_one(md, sc, 3);
    static const char *const aops[] = {"add", "min", "max", "exch", "cas",
                                       "and", "or",  "xor", "inc",  "dec"};
    int aop = take_one(md, aops, 10);
    take(md, "noftz");
    ONE_TYPE();
    int t = ty[0];
    if (aop < 0) {
      perr(p, p->line, "Operation required for instruction '%s'", op);
      return 0;
    }
    if (sp != EMU_SP_GENERIC && sp != EMU_SP_GLOBAL && sp != EMU_SP_SHARED) {
      perr(p, p->line, "Illegal state space for instruction '%s'", op);
      return 0;
    }
    int k = emu_type_kind(t), sz = emu_type_size(t);
    int ok;
    switch (aop) {
    case EMU_ATOM_ADD:
      ok = (k == EMU_K_U && sz >= 4) || t == EMU_T_S32 || is_flt(t);
      break;
    case EMU_ATOM_MIN:
    case EMU_ATOM_MAX:
      ok = (k == EMU_K_U || k == EMU_K_S) && sz >= 4;
      break;
    case EMU_ATOM_INC:
    case EMU_ATOM_DEC:
      ok = t == EMU_T_U32;
      break;
    case EMU_ATOM_EXCH:
    case EMU_ATOM_CAS:
      ok = k == EMU_K_BIT && sz >= 4;
      break;
    default:
      ok = k == EMU_K_BIT && sz >= 4;
      break;
    }
    if (!ok) {
      perr(p, p->line, "Unexpected instruction types specified for '%s.%s'", op, aops[aop]);
      return 0;
    }
    if (isred && aop == EMU_ATOM_CAS) NEED(0);
    int want = (isred ? 2 : 3) + (aop == EMU_ATOM_CAS);
    if (!nops(p, n, want)) return 0;
    in->op = EMU_OP_ATOM;
    in->mode = (uint8_t)aop;
    in->space = (uint8_t)sp;
    in->type = (uint8_t)t;
    in->cls = EMU_CLS_ATOMIC;
    int a0 = isred ? 0 : 1;
    if (!addr(p, &o[a0], in)) return 0;
    if (!isred) {
      if (!dst(p, &o[0], t, 0, &in->d[0])) return 0;
      in->ndst = 1;
    } else
      in->d[0] = TAG_SINK, in->ndst = 1;
    for (int j = a0 + 1; j < n; j++)
      if (!src(p, &o[j], t, 0, &in->s[j - a0])) return 0;
    in->nsrc = (uint8_t)(n - a0);
    return 1;
  }

  if (!strcmp(op, "bra") || !strcmp(op, "ret") || !strcmp(op, "exit")) {
    take(md, "uni");
    if (nt = take_types(md, ty, 3), nt) NEED(0);
    in->cls = EMU_CLS_CONTROL;
    if (op[0] == 'b') {
      if (!nops(p, n, 1)) return 0;
      if (o[0].kind != O_NAME) {
        perr(p, p->line, "Label expected for instruction 'bra'");
        return 0;
      }
      in->op = EMU_OP_BRA;
      GROW(p->lrefs, p->nlrefs, p->caplrefs);
      p->lrefs[p->nlrefs++] = (labelref){p->ncode, o[0].tok->line, tokdup(o[0].tok)};
      return 1;
    }
    if (!nops(p, n, 0)) return 0;
    in->op = op[0] == 'r' ? EMU_OP_RET : EMU_OP_EXIT;
    return 1;
  }

  if (!strcmp(op, "bar") || !strcmp(op, "barrier")) {
    int warp = take(md, "warp");
    take(md, "cta");
    int sync = take(md, "sync");
    int aligned = take(md, "aligned");
    (void)aligned;
    if (!sync) {
      perr(p, p->line, "Only the .sync form of '%s' is supported", op);
      return 0;
    }
    in->cls = EMU_CLS_SYNC;
    if (warp) {
      if (!nops(p, n, 1)) return 0;
      in->op = EMU_OP_BARWARP;
      in->cls = EMU_CLS_WARP;
      if (!src(p, &o[0], EMU_T_B32, 0, &in->s[0])) return 0;
      in->nsrc = 1;
      return 1;
    }
    if (n < 1 || n > 2) NEED(0);
    in->op = EMU_OP_BAR;
    if (!src(p, &o[0], EMU_T_B32, 0, &in->s[0])) return 0;
    in->nsrc = 1;
    if (n == 2) {
      if (!src(p, &o[1], EMU_T_B32, 0, &in->s[1])) return 0;
      in->nsrc = 2;
    }
    return 1;
  }

  if (!strcmp(op, "shfl")) {
    if (!take(md, "sync")) {
      perr(p, p->line, "Instruction 'shfl' without '.sync' is not supported on sm_70 and higher");
      return 0;
    }
    static const char *const sm[] = {"up", "down", "bfly", "idx"};
    int mode = take_one(md, sm, 4);
    ONE_TYPE();
    if (mode < 0 || ty[0] != EMU_T_B32) NEED(0);
    int pipe = n >= 2 && o[1].pipe;
    if (!nops(p, n, 5 + pipe)) return 0;
    in->op = EMU_OP_SHFL;
    in->mode = (uint8_t)mode;
    in->cls = EMU_CLS_WARP;
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

  if (!strcmp(op, "vote")) {
    if (!take(md, "sync")) {
      perr(p, p->line, "Instruction 'vote' without '.sync' is not supported on sm_70 and higher");
      return 0;
    }
    static const char *const vm[] = {"all", "any", "uni", "ballot"};
    int mode = take_one(md, vm, 4);
    ONE_TYPE();
    if (mode < 0 || (mode == EMU_VOTE_BALLOT) != (ty[0] == EMU_T_B32) ||
        (mode != EMU_VOTE_BALLOT && ty[0] != EMU_T_PRED))
      NEED(0);
    if (!nops(p, n, 3)) return 0;
    in->op = EMU_OP_VOTE;
    in->mode = (uint8_t)mode;
    in->cls = EMU_CLS_WARP;
    if (!dst(p, &o[0], ty[0], 0, &in->d[0]) || !src(p, &o[1], EMU_T_PRED, 0, &in->s[0]) ||
        !src(p, &o[2], EMU_T_B32, 0, &in->s[1]))
      return 0;
    if (o[1].neg) in->sneg |= 1;
    in->nsrc = 2;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "activemask")) {
    ONE_TYPE();
    if (ty[0] != EMU_T_B32 || !nops(p, n, 1)) NEED(0);
    in->op = EMU_OP_ACTIVEMASK;
    in->cls = EMU_CLS_WARP;
    if (!dst(p, &o[0], EMU_T_B32, 0, &in->d[0])) return 0;
    in->ndst = 1;
    return 1;
  }

  if (!strcmp(op, "membar") || !strcmp(op, "fence")) {
    static const char *const lv[] = {"cta", "gl", "sys", "gpu", "sc", "acq_rel"};
    while (take_one(md, lv, 6) >= 0) {
    }
    if (!nops(p, n, 0)) return 0;
    in->op = EMU_OP_MEMBAR;
    in->cls = EMU_CLS_SYNC;
    return 1;
  }

  perr(p, p->line, "Not a name of any known instruction: '%s'", op);
  return 0;
}

static void parse_instruction(P *p) {
  emu_insn in;
  memset(&in, 0, sizeof in);
  in.guard = -1;
  p->line = cur(p)->line;
  in.line = p->line;
  if (accept(p, "@")) {
    int neg = accept(p, "!");
    emu_tok *g = cur(p);
    uint32_t slot;
    regdecl *r = g->kind == EMU_TOK_ID ? find_reg_decl(p, g->s, g->len, &slot) : NULL;
    if (!r || r->type != EMU_T_PRED) {
      perr(p, g->line, r ? "Guard must be a predicate" : "Unknown symbol '%.*s'", g->len, g->s);
      skip_stmt(p);
      return;
    }
    in.guard = (int32_t)slot;
    if (neg) in.flags |= EMU_F_GNEG;
    p->i++;
  }
  emu_tok *mt = cur(p);
  if (mt->kind != EMU_TOK_ID || mt->s[0] == '.' || mt->s[0] == '%') {
    perr(p, mt->line, "syntax error: instruction expected, found '%.*s'", mt->len, mt->s);
    skip_stmt(p);
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
      perr(p, mt->line, "syntax error: malformed instruction '%.*s'", mt->len, mt->s);
      skip_stmt(p);
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
  if (!is(cur(p), ";")) {
    for (;;) {
      if (n == 8) {
        perr(p, p->line, "too many operands");
        skip_stmt(p);
        return;
      }
      int pipe = 0;
      if (n > 0 && accept(p, "|")) pipe = 1;
      if (!parse_operand(p, &o[n])) {
        skip_stmt(p);
        return;
      }
      o[n].pipe = pipe;
      n++;
      if (is(cur(p), "|")) continue;
      if (!accept(p, ",")) break;
    }
  }
  if (!is(cur(p), ";")) {
    perr(p, cur(p)->line, "syntax error: expected ';' but found '%.*s'", cur(p)->len, cur(p)->s);
    skip_stmt(p);
    return;
  }
  p->i++;
  int nerr = p->nerr;
  if (!build(p, &in, opname, &md, o, n) || leftover(p, &md)) {
    if (p->nerr == nerr) mismatch(p);
    return;
  }
  in.tk = (uint8_t)emu_type_tk(in.type);
  in.code = (uint16_t)(in.op * EMU_TK_N + in.tk);
  GROW(p->code, p->ncode, p->capcode);
  p->code[p->ncode++] = in;
}

/* ---------- functions ---------- */

static uint32_t align_up(uint32_t v, uint32_t a) {
  return a ? (v + a - 1) / a * a : v;
}

static void free_func_state(P *p) {
  for (int k = 0; k < p->nregs; k++) free(p->regs[k].name);
  for (int k = 0; k < p->nlabels; k++) free(p->labels[k].name);
  for (int k = 0; k < p->nlrefs; k++) free(p->lrefs[k].name);
  free(p->regs);
  free(p->labels);
  free(p->lrefs);
  free(p->fix);
  free(p->consts);
  free(p->code);
  free(p->slot_types);
  p->regs = NULL, p->labels = NULL, p->lrefs = NULL, p->fix = NULL, p->consts = NULL;
  p->code = NULL, p->slot_types = NULL;
  p->nregs = p->capregs = p->nlabels = p->caplabels = p->nlrefs = p->caplrefs = 0;
  p->nfix = p->capfix = p->nconsts = p->capconsts = p->ncode = p->capcode = 0;
  p->nslots = 0;
}

static uint32_t remap(const emu_func *f, uint32_t s) {
  switch (s & TAG_MASK) {
  case TAG_SPECIAL:
    return f->special_base + (s & ~TAG_MASK);
  case TAG_CONST:
    return f->const_base + (s & ~TAG_MASK);
  case TAG_SINK:
    return f->nslots - 1;
  default:
    return s;
  }
}

static void finish_function(P *p) {
  emu_func *f = p->f;
  /* labels */
  for (int k = 0; k < p->nlrefs; k++) {
    int found = -1;
    for (int j = 0; j < p->nlabels; j++)
      if (!strcmp(p->labels[j].name, p->lrefs[k].name)) found = p->labels[j].pc;
    if (found < 0)
      perr(p, p->lrefs[k].line, "Unknown symbol '%s'", p->lrefs[k].name);
    else
      p->code[p->lrefs[k].insn].target = (uint32_t)found;
  }
  /* layout: module-level shared first, then this function's, then the dynamic (extern) part */
  uint32_t off = p->m->shared_module;
  for (int k = 0; k < p->nfvars; k++) {
    emu_var *v = p->fvars[k];
    if (v->space == EMU_SP_SHARED && !v->is_extern) {
      off = align_up(off, v->align);
      v->addr = off;
      off += (uint32_t)v->size;
    }
  }
  f->shared_static = off;
  uint32_t ea = p->m->extern_shared_align > 16 ? p->m->extern_shared_align : 16;
  for (int k = 0; k < p->nfvars; k++)
    if (p->fvars[k]->space == EMU_SP_SHARED && p->fvars[k]->is_extern && p->fvars[k]->align > ea)
      ea = p->fvars[k]->align;
  f->dyn_shared_off = align_up(off, ea);
  uint32_t loff = 0;
  for (int k = 0; k < p->nfvars; k++) {
    emu_var *v = p->fvars[k];
    if (v->space == EMU_SP_LOCAL) {
      loff = align_up(loff, v->align);
      v->addr = loff;
      loff += (uint32_t)v->size;
    }
  }
  f->local_size = align_up(loff, 8);
  /* fix-ups: variable addresses */
  for (int k = 0; k < p->nfix; k++) {
    fixup *x = &p->fix[k];
    uint64_t a = x->var->addr;
    if (x->var->space == EMU_SP_SHARED && x->var->is_extern) a = f->dyn_shared_off;
    if (x->insn < 0)
      p->consts[x->k] = a + (uint64_t)x->add;
    else
      p->code[x->insn].off += (int64_t)a;
  }
  /* slots */
  f->nregs = p->nslots;
  f->special_base = p->nslots;
  f->const_base = f->special_base + SP_COUNT;
  f->nconsts = (uint32_t)p->nconsts;
  f->nslots = f->const_base + f->nconsts + 1;
  f->consts = malloc((p->nconsts + 1) * sizeof *f->consts);
  if (!f->consts) abort();
  if (p->nconsts) memcpy(f->consts, p->consts, (size_t)p->nconsts * sizeof *f->consts);
  for (int k = 0; k < p->ncode; k++) {
    emu_insn *in = &p->code[k];
    if (in->guard >= 0) in->guard = (int32_t)remap(f, (uint32_t)in->guard);
    for (int j = 0; j < 4; j++) in->d[j] = remap(f, in->d[j]);
    for (int j = 0; j < EMU_MAX_SRC; j++) in->s[j] = remap(f, in->s[j]);
  }
  /* an implicit exit at the end, so execution can never run off the code */
  GROW(p->code, p->ncode, p->capcode);
  emu_insn *e = &p->code[p->ncode++];
  memset(e, 0, sizeof *e);
  e->op = EMU_OP_EXIT;
  e->guard = -1;
  e->tk = EMU_TK_OTHER;
  e->code = (uint16_t)(EMU_OP_EXIT * EMU_TK_N + EMU_TK_OTHER);
  e->cls = EMU_CLS_CONTROL;
  e->flags = EMU_F_NOSTAT;
  e->line = cur(p)->line;
  f->rnames = malloc((size_t)(p->nregs + 1) * sizeof *f->rnames);
  if (!f->rnames) abort();
  for (int k = 0; k < p->nregs; k++) {
    f->rnames[k] = (emu_regname){p->regs[k].name, p->regs[k].base, p->regs[k].count};
    p->regs[k].name = NULL;
  }
  f->nrnames = p->nregs;
  f->code = p->code;
  f->ncode = p->ncode;
  p->code = NULL;
  free_func_state(p);
  /* function-level variables become owned by the module */
  for (int k = 0; k < p->nfvars; k++) {
    emu_module *m = p->m;
    m->vars = realloc(m->vars, (size_t)(m->nvars + 1) * sizeof *m->vars);
    if (!m->vars) abort();
    /* keep them out of module-level name lookup by prefixing an impossible character */
    char *nn = malloc(strlen(p->fvars[k]->name) + 2);
    if (!nn) abort();
    nn[0] = '\x01';
    strcpy(nn + 1, p->fvars[k]->name);
    free(p->fvars[k]->name);
    p->fvars[k]->name = nn;
    m->vars[m->nvars++] = p->fvars[k];
  }
  free(p->fvars);
  p->fvars = NULL;
  p->nfvars = p->capfvars = 0;
}

static void add_fvar(P *p, emu_var *v) {
  GROW(p->fvars, p->nfvars, p->capfvars);
  p->fvars[p->nfvars++] = v;
}

/* Device functions (.func) are refused: nvcc -O3 inlines everything stenciljit needs. */
static void skip_func(P *p) {
  perr(p, cur(p)->line, "device functions (.func) are not supported by the emulator");
  while (cur(p)->kind != EMU_TOK_EOF && !is(cur(p), ";") && !is(cur(p), "{")) p->i++;
  if (accept(p, "{")) {
    int d = 1;
    while (d && cur(p)->kind != EMU_TOK_EOF) {
      if (is(cur(p), "{")) d++;
      if (is(cur(p), "}")) d--;
      p->i++;
    }
  } else
    accept(p, ";");
}

/* Parameters are parsed separately because they end with ',' or ')' instead of ';'. */
static int parse_params(P *p, emu_func *f) {
  if (!accept(p, "(")) return 1;
  if (accept(p, ")")) return 1;
  uint32_t off = 0;
  do {
    int line = cur(p)->line;
    if (!expect(p, ".param")) return 0;
    uint32_t align = 0;
    int type = 0;
    for (;;) {
      if (accept(p, ".align")) {
        if (cur(p)->kind != EMU_TOK_INT || !cur(p)->i || (cur(p)->i & (cur(p)->i - 1))) {
          perr(p, line, "bad alignment");
          return 0;
        }
        align = (uint32_t)cur(p)->i;
        p->i++;
      } else if (accept(p, ".ptr") || accept(p, ".global") || accept(p, ".shared") ||
                 accept(p, ".const") || accept(p, ".local")) {
      } else if (!type && (type = tok_type(cur(p)))) {
        p->i++;
      } else
        break;
    }
    if (!type || type == EMU_T_PRED || type == EMU_T_F16) {
      perr(p, line, "unsupported or missing parameter type");
      return 0;
    }
    emu_tok *nt = cur(p);
    if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
      perr(p, nt->line, "syntax error: parameter name expected");
      return 0;
    }
    p->i++;
    uint64_t count = 1;
    while (accept(p, "[")) {
      if (cur(p)->kind != EMU_TOK_INT || !cur(p)->i || cur(p)->i > 65536) {
        perr(p, line, "bad parameter array size");
        return 0;
      }
      count *= cur(p)->i;
      p->i++;
      if (!expect(p, "]")) return 0;
    }
    uint32_t es = (uint32_t)emu_type_size(type);
    if (!align) align = es;
    uint32_t size = (uint32_t)(es * count);
    off = align_up(off, align);
    emu_var *v = calloc(1, sizeof *v);
    if (!v) abort();
    v->name = tokdup(nt);
    v->space = EMU_SP_PARAM;
    v->line = nt->line;
    v->size = size;
    v->align = align;
    v->addr = off;
    add_fvar(p, v);
    f->params = realloc(f->params, (size_t)(f->nparams + 1) * sizeof *f->params);
    if (!f->params) abort();
    f->params[f->nparams++] = (emu_param){strdup(v->name), off, size, align};
    off += size;
  } while (accept(p, ","));
  f->param_size = off;
  if (off > 32764) perr(p, f->line, "Kernel parameters exceed 32764 bytes");
  return expect(p, ")");
}

static int parse_dims(P *p, uint32_t d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int k = 0; k < 3; k++) {
    if (cur(p)->kind != EMU_TOK_INT || cur(p)->i == 0 || cur(p)->i > 1024) {
      perr(p, cur(p)->line, "bad thread count");
      return 0;
    }
    d[k] = (uint32_t)cur(p)->i;
    p->i++;
    if (!accept(p, ",")) break;
  }
  return 1;
}

static void parse_body(P *p) {
  while (cur(p)->kind != EMU_TOK_EOF) {
    emu_tok *t = cur(p);
    if (accept(p, "}")) {
      for (int k = p->nregs - 1; k >= 0; k--)
        if (p->regs[k].depth == p->depth) p->regs[k].depth = -1;
      if (--p->depth == 0) return;
      continue;
    }
    if (accept(p, "{")) {
      p->depth++;
      continue;
    }
    if (accept(p, ";")) continue;
    if (is(t, ".reg")) {
      p->i++;
      parse_reg_decl(p);
    } else if (is(t, ".shared") || is(t, ".local")) {
      p->i++;
      emu_var *v = parse_var_decl(p, is(t, ".shared") ? EMU_SP_SHARED : EMU_SP_LOCAL, 0, 0);
      if (v) add_fvar(p, v);
    } else if (is(t, ".pragma")) {
      skip_stmt(p);
    } else if (is(t, ".loc") || is(t, ".file")) {
      int line = t->line;
      while (cur(p)->kind != EMU_TOK_EOF && cur(p)->line == line) p->i++;
    } else if (is(t, ".param") || is(t, ".const") || is(t, ".global")) {
      perr(p, t->line, "'%.*s' declarations inside a kernel are not supported", t->len, t->s);
      skip_stmt(p);
    } else if (t->kind == EMU_TOK_ID && t->s[0] != '.' && p->t[p->i + 1].kind == EMU_TOK_PUNCT &&
               is(&p->t[p->i + 1], ":")) {
      for (int k = 0; k < p->nlabels; k++)
        if ((int)strlen(p->labels[k].name) == t->len &&
            !memcmp(p->labels[k].name, t->s, (size_t)t->len))
          perr(p, t->line, "Duplicate definition of label '%.*s'", t->len, t->s);
      GROW(p->labels, p->nlabels, p->caplabels);
      p->labels[p->nlabels++] = (label){tokdup(t), p->ncode, t->line};
      p->i += 2;
    } else if (t->kind == EMU_TOK_ID && t->s[0] == '.') {
      perr(p, t->line, "Unknown directive '%.*s'", t->len, t->s);
      skip_stmt(p);
    } else {
      parse_instruction(p);
    }
  }
  perr(p, cur(p)->line, "syntax error: unexpected end of file in kernel body");
}

static void parse_kernel(P *p) {
  emu_tok *nt = cur(p);
  if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
    perr(p, nt->line, "syntax error: kernel name expected");
    skip_stmt(p);
    return;
  }
  p->i++;
  emu_func *f = calloc(1, sizeof *f);
  if (!f) abort();
  f->name = tokdup(nt);
  f->line = nt->line;
  f->mod = p->m;
  for (int k = 0; k < p->m->nfuncs; k++)
    if (!strcmp(p->m->funcs[k]->name, f->name))
      perr(p, nt->line, "Duplicate definition of function '%s'", f->name);
  p->m->funcs = realloc(p->m->funcs, (size_t)(p->m->nfuncs + 1) * sizeof *p->m->funcs);
  if (!p->m->funcs) abort();
  p->m->funcs[p->m->nfuncs++] = f;
  p->f = f;
  if (!parse_params(p, f)) {
    finish_function(p);
    skip_stmt(p);
    return;
  }
  for (;;) {
    emu_tok *t = cur(p);
    if (accept(p, ".maxntid"))
      parse_dims(p, f->maxntid);
    else if (accept(p, ".reqntid"))
      parse_dims(p, f->reqntid);
    else if (accept(p, ".minnctapersm") || accept(p, ".maxnreg") || accept(p, ".maxnctapersm")) {
      if (cur(p)->kind == EMU_TOK_INT) p->i++;
    } else if (accept(p, ".pragma")) {
      if (cur(p)->kind == EMU_TOK_STR) p->i++;
      accept(p, ";");
    } else if (is(t, ".noreturn"))
      p->i++;
    else
      break;
  }
  if (f->reqntid[0] && f->maxntid[0] &&
      (uint64_t)f->reqntid[0] * f->reqntid[1] * f->reqntid[2] >
          (uint64_t)f->maxntid[0] * f->maxntid[1] * f->maxntid[2])
    perr(p, f->line, ".reqntid exceeds .maxntid");
  if (!expect(p, "{")) {
    finish_function(p);
    return;
  }
  p->depth = 1;
  parse_body(p);
  finish_function(p);
}

static int parse_version(P *p, emu_tok *t) {
  const char *s = t->s;
  int k = 0, maj = 0, min = 0;
  if (t->kind != EMU_TOK_FLOAT) return 0;
  while (k < t->len && s[k] >= '0' && s[k] <= '9') maj = maj * 10 + (s[k++] - '0');
  if (k >= t->len || s[k] != '.') return 0;
  k++;
  if (k >= t->len) return 0;
  while (k < t->len && s[k] >= '0' && s[k] <= '9') min = min * 10 + (s[k++] - '0');
  if (k != t->len) return 0;
  p->m->ptx_major = maj;
  p->m->ptx_minor = min;
  return 1;
}

CUresult emu_parse(const char *text, emu_module **out, char *err, size_t errlen) {
  *out = NULL;
  if (errlen) err[0] = 0;
  emu_tok *toks = emu_lex(text, err, errlen);
  if (!toks) return CUDA_ERROR_INVALID_PTX;
  P pp, *p = &pp;
  memset(p, 0, sizeof *p);
  p->t = toks;
  p->err = err;
  p->errlen = errlen;
  p->m = calloc(1, sizeof *p->m);
  if (!p->m) abort();
  CUresult rc = CUDA_SUCCESS;
  int seen_version = 0, seen_target = 0;
  while (cur(p)->kind != EMU_TOK_EOF) {
    emu_tok *t = cur(p);
    if (is(t, ".version")) {
      p->i++;
      if (seen_version || !parse_version(p, cur(p)))
        perr(p, t->line, "syntax error in .version");
      else if (p->m->ptx_major > 9 || (p->m->ptx_major == 9 && p->m->ptx_minor > 0)) {
        perr(p, t->line, "Unsupported .version %d.%d; current version is '9.0'", p->m->ptx_major,
             p->m->ptx_minor);
        rc = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
      } else if (p->m->ptx_major < 6) {
        perr(p, t->line, "PTX .version %d.%d is too old for this emulator (6.0 or newer)",
             p->m->ptx_major, p->m->ptx_minor);
      }
      seen_version = 1;
      p->i++;
      continue;
    }
    if (!seen_version) {
      perr(p, t->line, "PTX must begin with a .version directive");
      break;
    }
    if (is(t, ".target")) {
      p->i++;
      do {
        emu_tok *a = cur(p);
        if (a->kind == EMU_TOK_ID && a->len > 3 && !memcmp(a->s, "sm_", 3)) {
          int sm = 0, k = 3;
          while (k < a->len && a->s[k] >= '0' && a->s[k] <= '9') sm = sm * 10 + (a->s[k++] - '0');
          if (k < a->len && !(k + 1 == a->len && (a->s[k] == 'a' || a->s[k] == 'f')))
            perr(p, a->line, "Unknown target '%.*s'", a->len, a->s);
          p->m->sm = sm;
          if (sm > 90)
            perr(p, a->line, "target %.*s is newer than the emulated device (sm_90)", a->len, a->s);
          if (sm < 70)
            perr(p, a->line, "target %.*s is not supported (sm_70 or newer)", a->len, a->s);
          if (sm >= 90 && p->m->ptx_major * 10 + p->m->ptx_minor < 78)
            perr(p, a->line, "Target %.*s requires PTX ISA .version 7.8 or later", a->len, a->s);
          if (sm >= 80 && sm < 90 && p->m->ptx_major < 7)
            perr(p, a->line, "Target %.*s requires PTX ISA .version 7.0 or later", a->len, a->s);
        } else if (!(a->kind == EMU_TOK_ID &&
                     (is(a, "texmode_independent") || is(a, "texmode_unified") || is(a, "debug") ||
                      is(a, "map_f64_to_f32")))) {
          perr(p, a->line, "Unknown target '%.*s'", a->len, a->s);
        }
        p->i++;
      } while (accept(p, ","));
      seen_target = 1;
      continue;
    }
    if (!seen_target) {
      perr(p, t->line, "PTX must have a .target directive after .version");
      break;
    }
    if (is(t, ".address_size")) {
      p->i++;
      if (cur(p)->kind != EMU_TOK_INT || cur(p)->i != 64)
        perr(p, t->line, "only .address_size 64 is supported");
      p->i++;
      continue;
    }
    if (is(t, ".file") || is(t, ".loc")) {
      int line = t->line;
      while (cur(p)->kind != EMU_TOK_EOF && cur(p)->line == line) p->i++;
      continue;
    }
    if (is(t, ".section")) {
      perr(p, t->line, "debug sections are not supported");
      break;
    }
    int is_extern = 0;
    while (is(cur(p), ".visible") || is(cur(p), ".extern") || is(cur(p), ".weak")) {
      if (is(cur(p), ".extern")) is_extern = 1;
      p->i++;
    }
    t = cur(p);
    if (accept(p, ".entry")) {
      parse_kernel(p);
    } else if (accept(p, ".func")) {
      skip_func(p);
    } else if (is(t, ".global") || is(t, ".const") || is(t, ".shared")) {
      p->i++;
      int sp = is(t, ".global") ? EMU_SP_GLOBAL : is(t, ".const") ? EMU_SP_CONST : EMU_SP_SHARED;
      p->f = NULL;
      emu_var *v = parse_var_decl(p, sp, is_extern, 1);
      if (!v) continue;
      emu_module *m = p->m;
      if (sp == EMU_SP_SHARED) {
        if (v->is_extern) {
          if (v->align > m->extern_shared_align) m->extern_shared_align = v->align;
        } else {
          m->shared_module = align_up(m->shared_module, v->align);
          v->addr = m->shared_module;
          m->shared_module += (uint32_t)v->size;
        }
      } else if (is_extern) {
        perr(p, v->line, "external global variables are not supported");
      } else {
        uint64_t dev;
        if (emu_mem_alloc(v->size ? v->size : 1, &dev) != CUDA_SUCCESS) {
          perr(p, v->line, "out of memory for variable '%s'", v->name);
        } else {
          v->addr = dev;
          if (v->init) memcpy(emu_mem_host(dev, v->size), v->init, v->size);
        }
      }
      m->vars = realloc(m->vars, (size_t)(m->nvars + 1) * sizeof *m->vars);
      if (!m->vars) abort();
      m->vars[m->nvars++] = v;
    } else {
      perr(p, t->line, "syntax error: unexpected '%.*s' at module scope", t->len, t->s);
      skip_stmt(p);
    }
  }
  if (!seen_version && !p->nerr) perr(p, 1, "PTX must begin with a .version directive");
  free(toks);
  free_func_state(p);
  if (p->nerr) {
    emu_module_free(p->m);
    return rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_PTX;
  }
  *out = p->m;
  return CUDA_SUCCESS;
}

void emu_module_free(emu_module *m) {
  if (!m) return;
  for (int k = 0; k < m->nfuncs; k++) {
    emu_func *f = m->funcs[k];
    for (int j = 0; j < f->nparams; j++) free(f->params[j].name);
    free(f->params);
    for (int j = 0; j < f->nrnames; j++) free(f->rnames[j].name);
    free(f->rnames);
    free(f->code);
    free(f->consts);
    free(f->name);
    free(f);
  }
  for (int k = 0; k < m->nvars; k++) {
    emu_var *v = m->vars[k];
    if ((v->space == EMU_SP_GLOBAL || v->space == EMU_SP_CONST) && v->addr && v->name[0] != '\x01')
      emu_mem_free(v->addr);
    free(v->name);
    free(v->init);
    free(v);
  }
  free(m->funcs);
  free(m->vars);
  free(m);
}
