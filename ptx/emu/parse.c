/* PTX parser and checker: text -> module of functions with pre-decoded instructions.
 *
 * Every operand becomes a register slot: declared registers first, then the special
 * registers (%tid.x ...), then one slot per distinct constant, then a sink slot for `_`.
 * Operand types are checked against the instruction type with the ISA's compatibility
 * rules (as ptxas applies them), and every error is reported ptxas-style with its line.
 * This file: modules, kernels, declarations; insn.c: instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

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
  if (slot >= f->special_base && slot < f->special_base + EMU_SP_COUNT)
    snprintf(buf, len, "%s", emu_special_name((int)(slot - f->special_base)));
  else
    snprintf(buf, len, "(slot %u)", slot);
}

/* ---------- declarations ---------- */

static void parse_reg_decl(P *p) {
  int line = emu_cur(p)->line;
  int vec = 1;
  if (emu_accept(p, ".v2"))
    vec = 2;
  else if (emu_accept(p, ".v4"))
    vec = 4;
  int type = emu_tok_type(emu_cur(p));
  if (!type || type == EMU_T_F16) {
    emu_perr(p, line, "unsupported or missing register type '%.*s'", emu_cur(p)->len,
             emu_cur(p)->s);
    emu_skip_stmt(p);
    return;
  }
  if (vec != 1) {
    emu_perr(p, line, "vector registers are not supported");
    emu_skip_stmt(p);
    return;
  }
  p->i++;
  do {
    emu_tok *nt = emu_cur(p);
    if (nt->kind != EMU_TOK_ID || nt->s[0] == '.') {
      emu_perr(p, nt->line, "syntax error: register name expected");
      emu_skip_stmt(p);
      return;
    }
    p->i++;
    uint32_t count = 0, dummy;
    if (emu_accept(p, "<")) {
      if (emu_cur(p)->kind != EMU_TOK_INT || emu_cur(p)->i == 0 || emu_cur(p)->i > 1000000) {
        emu_perr(p, emu_cur(p)->line, "syntax error: bad register count");
        emu_skip_stmt(p);
        return;
      }
      count = (uint32_t)emu_cur(p)->i;
      p->i++;
      if (!emu_expect(p, ">")) {
        emu_skip_stmt(p);
        return;
      }
    }
    for (int k = 0; k < p->nregs; k++)
      if (p->regs[k].depth == p->depth && !strncmp(p->regs[k].name, nt->s, (size_t)nt->len) &&
          (int)strlen(p->regs[k].name) == nt->len)
        emu_perr(p, nt->line, "Duplicate definition of register '%.*s'", nt->len, nt->s);
    (void)dummy;
    GROW(p->regs, p->nregs, p->capregs);
    regdecl *r = &p->regs[p->nregs++];
    r->name = emu_tokdup(nt);
    r->type = type;
    r->depth = p->depth;
    r->count = count;
    r->base = emu_new_slots(p, count ? count : 1, type);
  } while (emu_accept(p, ","));
  emu_expect(p, ";");
}

/* Parses `[.align N] [.vN] .type name[N]... [= init]` after the state space. */
static emu_var *parse_var_decl(P *p, int space, int is_extern, int module_level) {
  int line = emu_cur(p)->line;
  uint32_t align = 0;
  int vec = 1;
  for (;;) {
    if (emu_accept(p, ".align")) {
      if (emu_cur(p)->kind != EMU_TOK_INT || (emu_cur(p)->i & (emu_cur(p)->i - 1)) ||
          emu_cur(p)->i == 0 || emu_cur(p)->i > 4096) {
        emu_perr(p, emu_cur(p)->line, "bad alignment");
        emu_skip_stmt(p);
        return NULL;
      }
      align = (uint32_t)emu_cur(p)->i;
      p->i++;
    } else if (emu_accept(p, ".v2"))
      vec = 2;
    else if (emu_accept(p, ".v4"))
      vec = 4;
    else if (emu_accept(p, ".ptr") || emu_accept(p, ".global") || emu_accept(p, ".shared") ||
             emu_accept(p, ".const") || emu_accept(p, ".local")) {
    } else
      break;
  }
  int type = emu_tok_type(emu_cur(p));
  if (!type || type == EMU_T_PRED || type == EMU_T_F16) {
    emu_perr(p, line, "unsupported or missing variable type '%.*s'", emu_cur(p)->len,
             emu_cur(p)->s);
    emu_skip_stmt(p);
    return NULL;
  }
  p->i++;
  for (;;) {
    if (emu_accept(p, ".align")) {
      if (emu_cur(p)->kind == EMU_TOK_INT) align = (uint32_t)emu_cur(p)->i, p->i++;
    } else if (emu_accept(p, ".ptr") || emu_accept(p, ".global") || emu_accept(p, ".shared") ||
               emu_accept(p, ".const") || emu_accept(p, ".local")) {
    } else
      break;
  }
  emu_tok *nt = emu_cur(p);
  if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
    emu_perr(p, nt->line, "syntax error: variable name expected");
    emu_skip_stmt(p);
    return NULL;
  }
  p->i++;
  uint32_t esize = (uint32_t)emu_type_size(type) * (uint32_t)vec;
  uint64_t n = 1;
  int unsized = 0;
  while (emu_accept(p, "[")) {
    if (emu_accept(p, "]")) {
      unsized = 1;
      continue;
    }
    if (emu_cur(p)->kind != EMU_TOK_INT || emu_cur(p)->i > (1ull << 32)) {
      emu_perr(p, emu_cur(p)->line, "bad array size");
      emu_skip_stmt(p);
      return NULL;
    }
    n *= emu_cur(p)->i;
    p->i++;
    if (!emu_expect(p, "]")) {
      emu_skip_stmt(p);
      return NULL;
    }
  }
  emu_var *o = emu_find_var(p, nt->s, nt->len);
  if (o && (module_level || o->space != EMU_SP_GLOBAL) && !(module_level && o->is_extern))
    emu_perr(p, nt->line, "Duplicate definition of symbol '%.*s'", nt->len, nt->s);
  emu_var *v = calloc(1, sizeof *v);
  if (!v) abort();
  v->name = emu_tokdup(nt);
  v->space = space;
  v->is_extern = is_extern || unsized;
  v->line = nt->line;
  v->size = unsized ? 0 : n * esize;
  v->align = align ? align : esize;
  if (emu_accept(p, "=")) {
    if (space != EMU_SP_GLOBAL && space != EMU_SP_CONST)
      emu_perr(p, emu_cur(p)->line, "initializer not allowed in this state space");
    v->init = calloc(1, v->size ? v->size : 1);
    if (!v->init) abort();
    int brace = emu_accept(p, "{");
    uint64_t k = 0;
    do {
      int neg = emu_accept(p, "-");
      emu_tok *it = emu_cur(p);
      if (brace && emu_is(it, "}")) break;
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
        emu_perr(p, it->line, "unsupported initializer '%.*s'", it->len, it->s);
        emu_skip_stmt(p);
        return v;
      }
      p->i++;
      if ((k + 1) * (uint64_t)emu_type_size(type) > v->size) {
        emu_perr(p, it->line, "too many initializers");
        emu_skip_stmt(p);
        return v;
      }
      memcpy(v->init + k * (uint64_t)emu_type_size(type), &bits, (size_t)emu_type_size(type));
      k++;
    } while (brace && emu_accept(p, ","));
    if (brace) emu_expect(p, "}");
  }
  emu_expect(p, ";");
  return v;
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
      emu_perr(p, p->lrefs[k].line, "Unknown symbol '%s'", p->lrefs[k].name);
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
  /* the dynamic part a launch may ask for until cuFuncSetAttribute raises it */
  f->max_dyn_shared = off < EMU_BLOCK_SHARED ? (int)(EMU_BLOCK_SHARED - off) : 0;
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
  f->const_base = f->special_base + EMU_SP_COUNT;
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
  e->line = emu_cur(p)->line;
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
  emu_perr(p, emu_cur(p)->line, "device functions (.func) are not supported by the emulator");
  while (emu_cur(p)->kind != EMU_TOK_EOF && !emu_is(emu_cur(p), ";") && !emu_is(emu_cur(p), "{"))
    p->i++;
  if (emu_accept(p, "{")) {
    int d = 1;
    while (d && emu_cur(p)->kind != EMU_TOK_EOF) {
      if (emu_is(emu_cur(p), "{")) d++;
      if (emu_is(emu_cur(p), "}")) d--;
      p->i++;
    }
  } else
    emu_accept(p, ";");
}

/* Parameters are parsed separately because they end with ',' or ')' instead of ';'. */
static int parse_params(P *p, emu_func *f) {
  if (!emu_accept(p, "(")) return 1;
  if (emu_accept(p, ")")) return 1;
  uint32_t off = 0;
  do {
    int line = emu_cur(p)->line;
    if (!emu_expect(p, ".param")) return 0;
    uint32_t align = 0;
    int type = 0;
    for (;;) {
      if (emu_accept(p, ".align")) {
        if (emu_cur(p)->kind != EMU_TOK_INT || !emu_cur(p)->i ||
            (emu_cur(p)->i & (emu_cur(p)->i - 1))) {
          emu_perr(p, line, "bad alignment");
          return 0;
        }
        align = (uint32_t)emu_cur(p)->i;
        p->i++;
      } else if (emu_accept(p, ".ptr") || emu_accept(p, ".global") || emu_accept(p, ".shared") ||
                 emu_accept(p, ".const") || emu_accept(p, ".local")) {
      } else if (!type && (type = emu_tok_type(emu_cur(p)))) {
        p->i++;
      } else
        break;
    }
    if (!type || type == EMU_T_PRED || type == EMU_T_F16) {
      emu_perr(p, line, "unsupported or missing parameter type");
      return 0;
    }
    emu_tok *nt = emu_cur(p);
    if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
      emu_perr(p, nt->line, "syntax error: parameter name expected");
      return 0;
    }
    p->i++;
    uint64_t count = 1;
    while (emu_accept(p, "[")) {
      if (emu_cur(p)->kind != EMU_TOK_INT || !emu_cur(p)->i || emu_cur(p)->i > 65536) {
        emu_perr(p, line, "bad parameter array size");
        return 0;
      }
      count *= emu_cur(p)->i;
      p->i++;
      if (!emu_expect(p, "]")) return 0;
    }
    uint32_t es = (uint32_t)emu_type_size(type);
    if (!align) align = es;
    uint32_t size = (uint32_t)(es * count);
    off = align_up(off, align);
    emu_var *v = calloc(1, sizeof *v);
    if (!v) abort();
    v->name = emu_tokdup(nt);
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
  } while (emu_accept(p, ","));
  f->param_size = off;
  if (off > 32764) emu_perr(p, f->line, "Kernel parameters exceed 32764 bytes");
  return emu_expect(p, ")");
}

static int parse_dims(P *p, uint32_t d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int k = 0; k < 3; k++) {
    if (emu_cur(p)->kind != EMU_TOK_INT || emu_cur(p)->i == 0 || emu_cur(p)->i > 1024) {
      emu_perr(p, emu_cur(p)->line, "bad thread count");
      return 0;
    }
    d[k] = (uint32_t)emu_cur(p)->i;
    p->i++;
    if (!emu_accept(p, ",")) break;
  }
  return 1;
}

static void parse_body(P *p) {
  while (emu_cur(p)->kind != EMU_TOK_EOF) {
    emu_tok *t = emu_cur(p);
    if (emu_accept(p, "}")) {
      for (int k = p->nregs - 1; k >= 0; k--)
        if (p->regs[k].depth == p->depth) p->regs[k].depth = -1;
      if (--p->depth == 0) return;
      continue;
    }
    if (emu_accept(p, "{")) {
      p->depth++;
      continue;
    }
    if (emu_accept(p, ";")) continue;
    if (emu_is(t, ".reg")) {
      p->i++;
      parse_reg_decl(p);
    } else if (emu_is(t, ".shared") || emu_is(t, ".local")) {
      p->i++;
      emu_var *v = parse_var_decl(p, emu_is(t, ".shared") ? EMU_SP_SHARED : EMU_SP_LOCAL, 0, 0);
      if (v) add_fvar(p, v);
    } else if (emu_is(t, ".pragma")) {
      emu_skip_stmt(p);
    } else if (emu_is(t, ".loc") || emu_is(t, ".file")) {
      int line = t->line;
      while (emu_cur(p)->kind != EMU_TOK_EOF && emu_cur(p)->line == line) p->i++;
    } else if (emu_is(t, ".param") || emu_is(t, ".const") || emu_is(t, ".global")) {
      emu_perr(p, t->line, "'%.*s' declarations inside a kernel are not supported", t->len, t->s);
      emu_skip_stmt(p);
    } else if (t->kind == EMU_TOK_ID && t->s[0] != '.' && p->t[p->i + 1].kind == EMU_TOK_PUNCT &&
               emu_is(&p->t[p->i + 1], ":")) {
      for (int k = 0; k < p->nlabels; k++)
        if ((int)strlen(p->labels[k].name) == t->len &&
            !memcmp(p->labels[k].name, t->s, (size_t)t->len))
          emu_perr(p, t->line, "Duplicate definition of label '%.*s'", t->len, t->s);
      GROW(p->labels, p->nlabels, p->caplabels);
      p->labels[p->nlabels++] = (label){emu_tokdup(t), p->ncode, t->line};
      p->i += 2;
    } else if (t->kind == EMU_TOK_ID && t->s[0] == '.') {
      emu_perr(p, t->line, "Unknown directive '%.*s'", t->len, t->s);
      emu_skip_stmt(p);
    } else {
      emu_parse_instruction(p);
    }
  }
  emu_perr(p, emu_cur(p)->line, "syntax error: unexpected end of file in kernel body");
}

static void parse_kernel(P *p) {
  emu_tok *nt = emu_cur(p);
  if (nt->kind != EMU_TOK_ID || nt->s[0] == '.' || nt->s[0] == '%') {
    emu_perr(p, nt->line, "syntax error: kernel name expected");
    emu_skip_stmt(p);
    return;
  }
  p->i++;
  emu_func *f = calloc(1, sizeof *f);
  if (!f) abort();
  f->name = emu_tokdup(nt);
  f->line = nt->line;
  f->mod = p->m;
  for (int k = 0; k < p->m->nfuncs; k++)
    if (!strcmp(p->m->funcs[k]->name, f->name))
      emu_perr(p, nt->line, "Duplicate definition of function '%s'", f->name);
  p->m->funcs = realloc(p->m->funcs, (size_t)(p->m->nfuncs + 1) * sizeof *p->m->funcs);
  if (!p->m->funcs) abort();
  p->m->funcs[p->m->nfuncs++] = f;
  p->f = f;
  if (!parse_params(p, f)) {
    finish_function(p);
    emu_skip_stmt(p);
    return;
  }
  for (;;) {
    emu_tok *t = emu_cur(p);
    if (emu_accept(p, ".maxntid"))
      parse_dims(p, f->maxntid);
    else if (emu_accept(p, ".reqntid"))
      parse_dims(p, f->reqntid);
    else if (emu_accept(p, ".minnctapersm") || emu_accept(p, ".maxnreg") ||
             emu_accept(p, ".maxnctapersm")) {
      if (emu_cur(p)->kind == EMU_TOK_INT) p->i++;
    } else if (emu_accept(p, ".pragma")) {
      if (emu_cur(p)->kind == EMU_TOK_STR) p->i++;
      emu_accept(p, ";");
    } else if (emu_is(t, ".noreturn"))
      p->i++;
    else
      break;
  }
  if (f->reqntid[0] && f->maxntid[0] &&
      (uint64_t)f->reqntid[0] * f->reqntid[1] * f->reqntid[2] >
          (uint64_t)f->maxntid[0] * f->maxntid[1] * f->maxntid[2])
    emu_perr(p, f->line, ".reqntid exceeds .maxntid");
  if (!emu_expect(p, "{")) {
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
  while (emu_cur(p)->kind != EMU_TOK_EOF) {
    emu_tok *t = emu_cur(p);
    if (emu_is(t, ".version")) {
      p->i++;
      if (seen_version || !parse_version(p, emu_cur(p)))
        emu_perr(p, t->line, "syntax error in .version");
      else if (p->m->ptx_major > 9 || (p->m->ptx_major == 9 && p->m->ptx_minor > 0)) {
        emu_perr(p, t->line, "Unsupported .version %d.%d; current version is '9.0'",
                 p->m->ptx_major, p->m->ptx_minor);
        rc = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
      } else if (p->m->ptx_major < 6) {
        emu_perr(p, t->line, "PTX .version %d.%d is too old for this emulator (6.0 or newer)",
                 p->m->ptx_major, p->m->ptx_minor);
      }
      seen_version = 1;
      p->i++;
      continue;
    }
    if (!seen_version) {
      emu_perr(p, t->line, "PTX must begin with a .version directive");
      break;
    }
    if (emu_is(t, ".target")) {
      p->i++;
      do {
        emu_tok *a = emu_cur(p);
        if (a->kind == EMU_TOK_ID && a->len > 3 && !memcmp(a->s, "sm_", 3)) {
          int sm = 0, k = 3;
          while (k < a->len && a->s[k] >= '0' && a->s[k] <= '9') sm = sm * 10 + (a->s[k++] - '0');
          if (k < a->len && !(k + 1 == a->len && (a->s[k] == 'a' || a->s[k] == 'f')))
            emu_perr(p, a->line, "Unknown target '%.*s'", a->len, a->s);
          p->m->sm = sm;
          if (sm > 90)
            emu_perr(p, a->line, "target %.*s is newer than the emulated device (sm_90)", a->len,
                     a->s);
          if (sm < 70)
            emu_perr(p, a->line, "target %.*s is not supported (sm_70 or newer)", a->len, a->s);
          if (sm >= 90 && p->m->ptx_major * 10 + p->m->ptx_minor < 78)
            emu_perr(p, a->line, "Target %.*s requires PTX ISA .version 7.8 or later", a->len,
                     a->s);
          if (sm >= 80 && sm < 90 && p->m->ptx_major < 7)
            emu_perr(p, a->line, "Target %.*s requires PTX ISA .version 7.0 or later", a->len,
                     a->s);
        } else if (!(a->kind == EMU_TOK_ID &&
                     (emu_is(a, "texmode_independent") || emu_is(a, "texmode_unified") ||
                      emu_is(a, "debug") || emu_is(a, "map_f64_to_f32")))) {
          emu_perr(p, a->line, "Unknown target '%.*s'", a->len, a->s);
        }
        p->i++;
      } while (emu_accept(p, ","));
      seen_target = 1;
      continue;
    }
    if (!seen_target) {
      emu_perr(p, t->line, "PTX must have a .target directive after .version");
      break;
    }
    if (emu_is(t, ".address_size")) {
      p->i++;
      if (emu_cur(p)->kind != EMU_TOK_INT || emu_cur(p)->i != 64)
        emu_perr(p, t->line, "only .address_size 64 is supported");
      p->i++;
      continue;
    }
    if (emu_is(t, ".file") || emu_is(t, ".loc")) {
      int line = t->line;
      while (emu_cur(p)->kind != EMU_TOK_EOF && emu_cur(p)->line == line) p->i++;
      continue;
    }
    if (emu_is(t, ".section")) {
      emu_perr(p, t->line, "debug sections are not supported");
      break;
    }
    int is_extern = 0;
    while (emu_is(emu_cur(p), ".visible") || emu_is(emu_cur(p), ".extern") ||
           emu_is(emu_cur(p), ".weak")) {
      if (emu_is(emu_cur(p), ".extern")) is_extern = 1;
      p->i++;
    }
    t = emu_cur(p);
    if (emu_accept(p, ".entry")) {
      parse_kernel(p);
    } else if (emu_accept(p, ".func")) {
      skip_func(p);
    } else if (emu_is(t, ".global") || emu_is(t, ".const") || emu_is(t, ".shared")) {
      p->i++;
      int sp = emu_is(t, ".global")  ? EMU_SP_GLOBAL
               : emu_is(t, ".const") ? EMU_SP_CONST
                                     : EMU_SP_SHARED;
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
        emu_perr(p, v->line, "external global variables are not supported");
      } else {
        uint64_t dev;
        if (emu_mem_alloc(v->size ? v->size : 1, &dev) != CUDA_SUCCESS) {
          emu_perr(p, v->line, "out of memory for variable '%s'", v->name);
        } else {
          v->addr = dev;
          if (v->init) memcpy(emu_mem_host(dev, v->size), v->init, v->size);
        }
      }
      m->vars = realloc(m->vars, (size_t)(m->nvars + 1) * sizeof *m->vars);
      if (!m->vars) abort();
      m->vars[m->nvars++] = v;
    } else {
      emu_perr(p, t->line, "syntax error: unexpected '%.*s' at module scope", t->len, t->s);
      emu_skip_stmt(p);
    }
  }
  if (!seen_version && !p->nerr) emu_perr(p, 1, "PTX must begin with a .version directive");
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
