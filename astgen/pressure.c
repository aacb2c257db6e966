/* How many registers a function's values hold at once: the estimate by which the lowering
 * chooses how far to unroll the code of full tiles (astgen/lower.c), so that ptxas never
 * spills. A value lives from its first definition to its last use in program order; one used
 * in a loop it was defined before lives to the loop's end (the next iteration reads it). The
 * count is in 32-bit registers: 64-bit values take two, but pointers into shared memory one
 * (ptxas keeps shared addresses in 32 bits), predicates none (a file of their own). It is no
 * bound: ptxas reorders (a line of loads issued together) and recomputes cheap values, so it
 * needs from a third to twice as many (astgen/lower.c). */
#include "astgen/ir.h"

#include <stdlib.h>

typedef struct span {
  int first, last; /* -1: never defined */
} span;

typedef struct loop_range {
  int start, end;
} loop_range;

typedef struct walk {
  const sj_ir_func *f;
  span *live;
  int pos;
  loop_range stack[64]; /* the loops around the position, outermost first */
  int depth;
  int pass; /* 0: positions of the loops; 1: the spans */
  loop_range *loops;
  int nloops, at;
} walk;

static void use(walk *w, sj_ir_val v) {
  if (w->pass != 1 || v.kind != SJ_V_REG) return;
  span *s = &w->live[v.reg];
  int last = w->pos;
  for (int i = 0; i < w->depth; i++) /* the outermost loop it lives across */
    if (s->first < w->stack[i].start) {
      last = w->stack[i].end;
      break;
    }
  if (last > s->last) s->last = last;
}

static void def(walk *w, int reg) {
  if (w->pass != 1 || !reg) return;
  span *s = &w->live[reg];
  if (s->first < 0) s->first = w->pos;
  if (s->last < w->pos) s->last = w->pos;
}

static void visit_block(walk *w, const sj_ir_block *b);

static void visit_node(walk *w, const sj_ir_node *n) {
  if (n->kind == SJ_IR_INS) {
    const sj_ir_ins *ins = &n->ins;
    use(w, ins->a);
    use(w, ins->b);
    use(w, ins->c);
    for (int k = 0; k < ins->nargs; k++) use(w, ins->args[k]);
    if (ins->guard) use(w, sj_ir_reg_val(w->f, ins->guard));
    def(w, ins->dst);
    w->pos++;
    return;
  }
  if (n->kind == SJ_IR_IF) {
    use(w, n->cond);
    w->pos++;
    visit_block(w, &n->then);
    visit_block(w, &n->other);
    return;
  }
  use(w, n->init);
  use(w, n->step);
  def(w, n->iter);
  int me = w->at++;
  if (w->pass == 0) {
    w->loops = realloc(w->loops, (size_t)w->at * sizeof *w->loops);
    if (!w->loops) abort();
    w->loops[me].start = w->pos;
  } else if (w->depth < 64) {
    w->stack[w->depth++] = w->loops[me];
  }
  w->pos++;
  visit_block(w, &n->head);
  use(w, n->cond);
  visit_block(w, &n->body);
  visit_block(w, &n->latch);
  use(w, sj_ir_reg_val(w->f, n->iter));
  w->pos++;
  if (w->pass == 0)
    w->loops[me].end = w->pos;
  else if (w->depth > 0 && w->stack[w->depth - 1].start == w->loops[me].start)
    w->depth--;
}

static void visit_block(walk *w, const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) visit_node(w, b->v[i]);
}

static int width(const sj_ir_reg *r) {
  if (r->type == SJ_IR_PTR && r->space == SJ_SPACE_SHARED) return 1;
  return r->type == SJ_IR_PRED ? 0 : sj_ir_type_size(r->type) > 4 ? 2 : 1;
}

int sj_ir_pressure(const sj_ir_func *f) {
  walk w = {f, calloc((size_t)f->nregs + 1, sizeof(span)), 0, {{0, 0}}, 0, 0, NULL, 0, 0};
  if (!w.live) abort();
  for (int r = 0; r <= f->nregs; r++) w.live[r].first = w.live[r].last = -1;
  visit_block(&w, &f->body);
  w.pass = 1, w.pos = 0, w.at = 0;
  visit_block(&w, &f->body);
  /* the most live at once: +width where a span starts, -width after it ends */
  int n = w.pos + 2, most = 0, now = 0;
  int *delta = calloc((size_t)n + 1, sizeof *delta);
  if (!delta) abort();
  for (int r = 1; r < f->nregs; r++) {
    const span *s = &w.live[r];
    if (s->first < 0) continue;
    delta[s->first] += width(&f->regs[r]);
    delta[s->last + 1] -= width(&f->regs[r]);
  }
  for (int p = 0; p < n; p++) {
    now += delta[p];
    if (now > most) most = now;
  }
  free(delta);
  free(w.loops);
  free(w.live);
  return most;
}
