/* The printer's last passes on a kernel (astgen/reload.c, astgen/opt.c): loads of an element
 * known from before go, unless something between may write it; a guard common to a nest of
 * branches moves above it; a comparison read only by an or joins it; a loop's pointer variables
 * with the same start and step are one; a loop that only runs an inner loop the same in every
 * iteration is skipped where that loop is empty. */
#include <stdio.h>

#include "astgen/irbuild.h"
#include "test_common.h"

/* Instructions of operation op (joined by red: SETP), or with op -1 branches. */
static int count_as(const sj_ir_block *b, int op, sj_ir_op red) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) {
      n += (int)x->ins.op == op && x->ins.red == red;
      continue;
    }
    n += op < 0 && x->kind == SJ_IR_IF;
    const sj_ir_block *in[] = {&x->head, &x->body, &x->latch, &x->then, &x->other};
    for (int k = 0; k < 5; k++) n += count_as(in[k], op, red);
  }
  return n;
}

static int count(const sj_ir_block *b, int op) {
  return count_as(b, op, 0);
}

/* if (cond) B[at] = A[0]; the if */
static sj_ir_node *copy_if(sj_irb *b, sj_ir_val cond, sj_ir_val a, sj_ir_val out, long at) {
  sj_ir_node *n = sj_irb_if(b, cond);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  sj_irb_store(b, out, at, sj_irb_load(b, a, 0));
  sj_irb_leave(b, pos);
  return n;
}

static sj_ir_func *kernel(sj_irb *b, sj_ir_val *a, sj_ir_val *out, sj_ir_val *tid) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, "reload");
  f->block[0] = 32;
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_ARRAY, SJ_IR_F32, 0, 0, "A"});
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_ARRAY, SJ_IR_F32, 1, 0, "B"});
  sj_irb_init(b, f, 2);
  *a = sj_irb_param(b, 0);
  *out = sj_irb_param(b, 1);
  *tid = sj_irb_special(b, SJ_SPECIAL_TID_X);
  return f;
}

static void reloads(void) {
  sj_irb b;
  sj_ir_val a, out, tid;
  sj_ir_func *f = kernel(&b, &a, &out, &tid);
  sj_ir_val p = sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 5));
  sj_ir_val q = sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 3));
  copy_if(&b, p, a, out, 0); /* loads A[0] under p */
  sj_ir_node *outer = sj_irb_if(&b, q);
  sj_irb_pos pos = sj_irb_enter(&b, &outer->then, 0);
  copy_if(&b, p, a, out, 1); /* p holds again: the value known */
  sj_irb_leave(&b, pos);
  copy_if(&b, q, a, out, 2);                       /* q alone: A[0] not known here */
  sj_irb_store(&b, out, 3, sj_irb_load(&b, a, 0)); /* nor here, outside the branches */
  sj_irb_store(&b, a, 0, sj_ir_float(SJ_IR_F32, 7));
  copy_if(&b, p, a, out, 4); /* written since: loaded again */
  sj_irb_barrier(&b);
  copy_if(&b, p, a, out, 5); /* another thread may have written it: loaded again */
  sj_irb_finish(&b);
  CHECK(count(&f->body, SJ_IR_LD) == 6, "built: %d loads", count(&f->body, SJ_IR_LD));
  sj_ir_reload(f);
  CHECK(count(&f->body, SJ_IR_LD) == 5, "%d loads left, not 5", count(&f->body, SJ_IR_LD));
  sj_ir_func_free(f);
}

static void hoists_and_fuses(void) {
  sj_irb b;
  sj_ir_val a, out, tid;
  sj_ir_func *f = kernel(&b, &a, &out, &tid);
  sj_ir_val c = sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 20));
  sj_ir_val r = sj_irb_setp(&b, SJ_CMP_GT, tid, sj_ir_int(SJ_IR_S64, 2));
  sj_ir_val s = sj_irb_setp(&b, SJ_CMP_GT, tid, sj_ir_int(SJ_IR_S64, 4));
  /* if (r) { if (c) B[0] = A[0]; if (s) { if (c) B[1] = A[0] } } */
  sj_ir_node *rows = sj_irb_if(&b, r);
  sj_irb_pos pos = sj_irb_enter(&b, &rows->then, 0);
  copy_if(&b, c, a, out, 0);
  sj_irb_pos inner = sj_irb_enter(&b, &sj_irb_if(&b, s)->then, 0);
  copy_if(&b, c, a, out, 1);
  sj_irb_leave(&b, inner);
  sj_irb_leave(&b, pos);
  /* B[2] = 1 where tid < 9 or tid > 30 */
  sj_ir_val either =
      sj_irb_op(&b, SJ_IR_OR, SJ_IR_PRED, sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 9)),
                sj_irb_setp(&b, SJ_CMP_GT, tid, sj_ir_int(SJ_IR_S64, 30)));
  sj_irb_pos last = sj_irb_enter(&b, &sj_irb_if(&b, either)->then, 0);
  sj_irb_store(&b, out, 2, sj_ir_float(SJ_IR_F32, 1));
  sj_irb_leave(&b, last);
  sj_irb_finish(&b);
  CHECK(count(&f->body, SJ_IR_OR) == 1 && count(&f->body, SJ_IR_SETP) == 5, "built: %d or, %d setp",
        count(&f->body, SJ_IR_OR), count(&f->body, SJ_IR_SETP));
  sj_ir_optimize(f);
  const sj_ir_node *top = NULL;
  for (int i = 0; i < f->body.n && !top; i++)
    if (f->body.v[i]->kind == SJ_IR_IF) top = f->body.v[i];
  CHECK(top && top->cond.reg == c.reg && top->then.n == 1 && top->then.v[0]->cond.reg == r.reg,
        "the column's guard c is not above the rows' nest");
  CHECK(count(&f->body, -1) == 4, "%d branches, not 4 (c, r, s, the or)", count(&f->body, -1));
  sj_ir_fuse_compares(f);
  CHECK(count(&f->body, SJ_IR_OR) == 0 && count(&f->body, SJ_IR_SETP) == 4 &&
            count_as(&f->body, SJ_IR_SETP, SJ_IR_OR) == 1,
        "fused: %d or, %d setp and %d setp.or, not 0, 4 and 1", count(&f->body, SJ_IR_OR),
        count(&f->body, SJ_IR_SETP), count_as(&f->body, SJ_IR_SETP, SJ_IR_OR));
  sj_ir_func_free(f);
}

/* A pointer variable of the loop, set to start before it and advanced by step in its latch, as
 * strength reduction leaves it. */
static int loop_pointer(sj_irb *b, sj_ir_node *loop, sj_ir_val start, long step) {
  int p = sj_irb_var(b, SJ_IR_PTR, NULL);
  b->f->regs[p].elem = b->f->regs[start.reg].elem;
  b->f->regs[p].space = b->f->regs[start.reg].space;
  b->f->regs[p].array = b->f->regs[start.reg].array;
  sj_ir_block_insert(b->cur, b->cur->n - 1,
                     sj_ir_ins_node(SJ_IR_MOV, SJ_IR_PTR, p, start, (sj_ir_val){0}));
  sj_ir_block_push(&loop->latch, sj_ir_ins_node(SJ_IR_PTRADD, SJ_IR_PTR, p, sj_ir_reg_val(b->f, p),
                                                sj_ir_int(SJ_IR_S64, step)));
  return p;
}

static int latch_adds(const sj_ir_node *loop) {
  return count(&loop->latch, SJ_IR_PTRADD);
}

/* Pointer variables of a loop with the same start and step are one; another step is not. */
static void merges_pointers(void) {
  sj_irb b;
  sj_ir_val a, out, tid;
  sj_ir_func *f = kernel(&b, &a, &out, &tid);
  sj_ir_val start = sj_irb_ptradd(&b, a, tid);
  sj_ir_node *loop = sj_irb_loop(&b, sj_ir_int(SJ_IR_S64, 0), sj_ir_int(SJ_IR_S64, 4));
  int p = loop_pointer(&b, loop, start, 64), q = loop_pointer(&b, loop, start, 64);
  int r = loop_pointer(&b, loop, start, 32);
  sj_irb_pos pos = sj_irb_enter(&b, &loop->head, 1);
  sj_ir_val i = sj_ir_reg_val(f, loop->iter);
  loop->cond = sj_irb_setp(&b, SJ_CMP_LT, i, sj_ir_int(SJ_IR_S64, 40));
  b.cur = &loop->body;
  sj_ir_val x = sj_irb_load(&b, sj_ir_reg_val(f, p), 0),
            y = sj_irb_load(&b, sj_ir_reg_val(f, q), 4);
  sj_ir_val z = sj_irb_load(&b, sj_ir_reg_val(f, r), 8);
  sj_ir_val sum = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_F32, sj_irb_op(&b, SJ_IR_ADD, SJ_IR_F32, x, y), z);
  sj_irb_store(&b, out, 0, sum);
  sj_irb_leave(&b, pos);
  sj_irb_finish(&b);
  CHECK(latch_adds(loop) == 3, "built: %d pointers advanced", latch_adds(loop));
  sj_ir_optimize(f);
  CHECK(latch_adds(loop) == 2, "%d pointers advanced, not 2 (p and q one)", latch_adds(loop));
  sj_ir_func_free(f);
}

enum { NEST_PLAIN, NEST_MOVING, NEST_STORE, NEST_BARRIER, NEST_BRANCH, NEST_ROW_BRANCH };

/* for (i = 0; i < 8; i++) { [B[i] = 0;] for (j = tid [+ i]; j < 40; j += 32) { B[64 i + j] =
 * A[j]; [barrier] } }, as kind says, or with a branch if (tid [+ i] < 20) in place of the inner
 * loop: whether the outer loop was put in a branch on the inner node's test, after optimizing
 * (twice: jit/compile.c optimizes kernels again), the inner branch gone. */
static int skipped(int kind) {
  sj_irb b;
  sj_ir_val a, out, tid;
  sj_ir_func *f = kernel(&b, &a, &out, &tid);
  sj_ir_node *rows = sj_irb_loop(&b, sj_ir_int(SJ_IR_S64, 0), sj_ir_int(SJ_IR_S64, 1));
  sj_irb_pos pos = sj_irb_enter(&b, &rows->head, 1);
  sj_ir_val i = sj_ir_reg_val(f, rows->iter);
  rows->cond = sj_irb_setp(&b, SJ_CMP_LT, i, sj_ir_int(SJ_IR_S64, 8));
  b.cur = &rows->body;
  if (kind == NEST_STORE) sj_irb_store(&b, sj_irb_ptradd(&b, out, i), 0, sj_ir_float(SJ_IR_F32, 0));
  int moving = kind == NEST_MOVING || kind == NEST_ROW_BRANCH;
  sj_ir_val start = moving ? sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, tid, i) : tid;
  sj_ir_val row = sj_irb_op(&b, SJ_IR_MUL, SJ_IR_S64, i, sj_ir_int(SJ_IR_S64, 64)), j = start;
  sj_irb_pos inner;
  if (kind >= NEST_BRANCH) {
    inner = sj_irb_enter(
        &b, &sj_irb_if(&b, sj_irb_setp(&b, SJ_CMP_LT, start, sj_ir_int(SJ_IR_S64, 20)))->then, 0);
  } else {
    sj_ir_node *cols = sj_irb_loop(&b, start, sj_ir_int(SJ_IR_S64, 32));
    inner = sj_irb_enter(&b, &cols->head, 1);
    j = sj_ir_reg_val(f, cols->iter);
    cols->cond = sj_irb_setp(&b, SJ_CMP_LT, j, sj_ir_int(SJ_IR_S64, 40));
    b.cur = &cols->body;
  }
  sj_ir_val at = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, row, j);
  sj_irb_store(&b, sj_irb_ptradd(&b, out, at), 0, sj_irb_load(&b, sj_irb_ptradd(&b, a, j), 0));
  if (kind == NEST_BARRIER) sj_irb_barrier(&b);
  sj_irb_leave(&b, inner);
  sj_irb_leave(&b, pos);
  sj_irb_finish(&b);
  sj_ir_optimize(f);
  sj_ir_optimize(f);
  int branches = count(&f->body, -1), top = -1;
  for (int k = 0; k < f->body.n; k++)
    if (f->body.v[k]->kind != SJ_IR_INS) top = f->body.v[k]->kind;
  sj_ir_func_free(f);
  int skips = top == SJ_IR_IF;
  CHECK(branches == skips || (kind >= NEST_BRANCH && !skips && branches == 1),
        "%d branches, the outer loop %s one", branches, skips ? "in" : "not in");
  return skips;
}

/* The outer loop put in a branch where its body does nothing but its inner node, which the
 * test of the first iteration says is empty. */
static void skips_empty_rows(void) {
  CHECK(skipped(NEST_PLAIN), "the rows' loop is not skipped where its columns' loop is empty");
  CHECK(!skipped(NEST_MOVING), "skipped on the first row's test, though the columns move");
  CHECK(!skipped(NEST_STORE), "skipped, though each row stores outside the columns' loop");
  CHECK(!skipped(NEST_BARRIER), "skipped around a barrier");
  CHECK(skipped(NEST_BRANCH), "the rows' loop is not skipped where its one branch is not taken");
  CHECK(!skipped(NEST_ROW_BRANCH), "skipped on the first row's branch, though it moves");
}

int main(void) {
  reloads();
  skips_empty_rows();
  hoists_and_fuses();
  merges_pointers();
  if (!g_fail) printf("reload: ok\n");
  return g_fail;
}
