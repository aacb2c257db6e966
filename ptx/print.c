/* The PTX module: one .entry per kernel function, registers declared per class, loops and
 * ifs as branches. */
#include "ptx/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/emit.h"
#include "stenciljit.h"

static int new_label(px *x) {
  return x->labels++;
}

static void place(px *x, int label) {
  sj_buf_printf(&x->body, "$L__%s_%d:\n", x->f->name, label);
}

static void branch(px *x, sj_ir_val pred, int negate, int label) {
  char p[40];
  sj_px_reg_text(PX_PRED, x->num[pred.reg], p, sizeof p);
  sj_buf_printf(&x->body, "\t@%s%s bra $L__%s_%d;\n", negate ? "!" : "", p, x->f->name, label);
}

static void jump(px *x, int label) {
  sj_buf_printf(&x->body, "\tbra.uni $L__%s_%d;\n", x->f->name, label);
}

static void block(px *x, const sj_ir_block *b);

static void loop(px *x, const sj_ir_node *n) {
  int head = new_label(x), end = new_label(x);
  sj_ir_ins set = {0};
  set.op = SJ_IR_MOV;
  set.type = x->f->regs[n->iter].type;
  set.dst = n->iter;
  set.a = n->init;
  sj_px_ins(x, &set);
  place(x, head);
  block(x, &n->head);
  branch(x, n->cond, 1, end);
  block(x, &n->body);
  block(x, &n->latch);
  sj_ir_ins step = {0};
  step.op = SJ_IR_ADD;
  step.type = set.type;
  step.dst = n->iter;
  step.a = sj_ir_reg_val(x->f, n->iter);
  step.b = n->step;
  sj_px_ins(x, &step);
  jump(x, head);
  place(x, end);
}

static void branch_if(px *x, const sj_ir_node *n) {
  int other = new_label(x), end = n->other.n ? new_label(x) : other;
  branch(x, n->cond, 1, other);
  block(x, &n->then);
  if (n->other.n) {
    jump(x, end);
    place(x, other);
    block(x, &n->other);
  }
  place(x, end);
}

static void block(px *x, const sj_ir_block *b) {
  for (int i = 0; i < b->n && !x->failed; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS)
      sj_px_ins(x, &n->ins);
    else if (n->kind == SJ_IR_LOOP)
      loop(x, n);
    else
      branch_if(x, n);
  }
}

static int is_int(sj_ir_type t) {
  return t == SJ_IR_S32 || t == SJ_IR_S64 || t == SJ_IR_U32 || t == SJ_IR_U64;
}

/* Whether v is a register one of the instructions between (after, before) assigns. */
static int assigned_between(const sj_ir_block *b, int after, int before, sj_ir_val v) {
  for (int k = after + 1; k < before && v.kind == SJ_V_REG; k++)
    if (b->v[k]->ins.dst == v.reg) return 1;
  return 0;
}

/* Integer adds whose operand is a product made just before in the same block and used only
 * there become one mad.lo (exact for integers): fewer instructions, same values. The product
 * is then computed where the add is: not where an instruction between assigns one of its
 * factors (a value a loop carries in one register, astgen/promote.c, loaded anew between a
 * product of the last iteration's value and its add). */
static void find_multiply_adds(px *x, const sj_ir_block *b, const int *uses) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) find_multiply_adds(x, blocks[k], uses);
      continue;
    }
    const sj_ir_ins *add = &n->ins;
    if (add->op != SJ_IR_ADD || !is_int(add->type) || add->guard) continue;
    for (int j = i - 1; j >= 0 && j >= i - 8; j--) {
      const sj_ir_node *m = b->v[j];
      if (m->kind != SJ_IR_INS) break;
      const sj_ir_ins *mul = &m->ins;
      int operand = (add->a.kind == SJ_V_REG && add->a.reg == mul->dst) ||
                    (add->b.kind == SJ_V_REG && add->b.reg == mul->dst);
      if (mul->op == SJ_IR_MUL && mul->type == add->type && !mul->guard && operand &&
          uses[mul->dst] == 1 && !x->folded[mul->dst] && !assigned_between(b, j, i, mul->a) &&
          !assigned_between(b, j, i, mul->b)) {
        x->mad[add->dst] = mul;
        x->folded[mul->dst] = 1;
        break;
      }
    }
  }
}

static const char *param_type(const sj_ir_param *p) {
  static const char *const scalar[SJ_IR_NTYPES] = {".pred", ".s32", ".s64", ".f32", ".f64", ".u64",
                                                   ".s8",   ".u8",  ".s16", ".u16", ".u32", ".u64"};
  return p->kind == SJ_PARAM_SCALAR || p->kind == SJ_PARAM_HOST_ITER ? scalar[p->type] : ".u64";
}

static int kernel(sj_buf *out, sj_ir_func *f, sj_error *err) {
  px x;
  memset(&x, 0, sizeof x);
  x.f = f;
  x.num = calloc((size_t)f->nregs + 1, sizeof *x.num);
  x.mad = calloc((size_t)f->nregs + 1, sizeof *x.mad);
  x.folded = calloc((size_t)f->nregs + 1, 1);
  if (!x.num || !x.mad || !x.folded) {
    free(x.num);
    free(x.mad);
    free(x.folded);
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory printing PTX for %s", f->name);
  }
  for (int r = 1; r < f->nregs; r++) x.num[r] = sj_px_temp(&x, sj_px_class(f, r));
  int *uses = sj_ir_count_uses(f);
  find_multiply_adds(&x, &f->body, uses);
  free(uses);
  int error_param = sj_ir_find_param(f, SJ_PARAM_ERROR, 0);
  if (error_param >= 0) { /* the error word's address, for TRAP */
    x.error_reg = sj_px_temp(&x, PX_B64);
    sj_buf_printf(&x.body, "\tld.param.u64 %%rd%d, [%s_param_%d];\n", x.error_reg, f->name,
                  error_param);
    sj_buf_printf(&x.body, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", x.error_reg, x.error_reg);
  }
  block(&x, &f->body);
  sj_buf_puts(&x.body, "\tret;\n");
  free(x.mad);
  free(x.folded);
  if (x.failed) {
    free(x.num);
    sj_buf_free(&x.body);
    return sj_error_set(err, JIT_ERR_INTERNAL, "printing PTX for %s: %s", f->name, x.why);
  }
  if (f->why) sj_buf_printf(out, "\n// %s\n", f->why);
  sj_buf_printf(out, ".visible .entry %s(\n", f->name);
  for (int i = 0; i < f->nparams; i++)
    sj_buf_printf(out, "\t.param %s %s_param_%d%s\n", param_type(&f->params[i]), f->name, i,
                  i + 1 < f->nparams ? "," : "");
  sj_buf_printf(out, ")\n.reqntid %u, %u, %u\n", f->block[0], f->block[1], f->block[2]);
  if (f->max_regs) sj_buf_printf(out, ".maxnreg %d\n", f->max_regs);
  sj_buf_puts(out, "{\n");
  for (int c = 0; c < PX_NCLASS; c++)
    if (x.count[c])
      sj_buf_printf(out, "\t.reg %s %s<%d>;\n", sj_px_class_type[c], sj_px_class_prefix[c],
                    x.count[c] + 1);
  sj_buf_printf(out, "\n%s}\n", x.body.data ? x.body.data : "");
  free(x.num);
  sj_buf_free(&x.body);
  return 0;
}

int sj_print_ptx(sj_ir_module *mod, const char *version, const char *target, char **out,
                 sj_error *err) {
  /* Short guards: a few predicated instructions cost less than a branch around them. */
  enum { MAX_PREDICATED = 6 };
  sj_buf text = {0};
  sj_buf_printf(&text,
                "//\n// generated by stenciljit %s from '%s'\n//\n\n.version %s\n.target %s\n"
                ".address_size 64\n",
                SJ_VERSION, mod->source_fn, version, target);
  int shared = 0;
  for (int i = 0; i < mod->nfuncs; i++) shared |= mod->funcs[i]->nshared > 0;
  if (shared) /* every kernel's dynamic shared memory (sj_ptx_shared_offset) */
    sj_buf_printf(&text, "\n.extern .shared .align 16 .b8 %s[];\n", SJ_PTX_SHARED);
  int rc = 0;
  for (int i = 0; i < mod->nfuncs && !rc; i++) {
    if (mod->funcs[i]->kind != SJ_FUNC_KERNEL) continue;
    sj_ir_reload(mod->funcs[i]);
    sj_ir_predicate(mod->funcs[i], MAX_PREDICATED);
    sj_ir_fuse_compares(mod->funcs[i]);
    rc = kernel(&text, mod->funcs[i], err);
  }
  if (rc) {
    sj_buf_free(&text);
    return rc;
  }
  *out = sj_buf_take(&text);
  return 0;
}
