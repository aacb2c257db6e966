/* Lowering the structure of the isl AST: loops, ifs and statements into IR functions.
 *
 * CPU: one SPMD function every worker runs. Loops under a `parallel` mark are spread over
 * the workers; code outside them that runs statements runs on worker 0, and a barrier
 * follows; loops and ifs that contain spread loops run on every worker alike.
 * GPU: a host function with the loops outside kernels, a launch for each `kernel` mark,
 * and one function per kernel. Block and thread ids are isl parameters the schedule bound
 * in the tree: here they are just special values, so the mapping is whatever the tree
 * says and the printers know nothing of it. */
#include "astgen/astgen.h"
#include "astgen/lower.h"
#include "base/buf.h"
#include "base/sha256.h"
#include "stenciljit.h"

#include <stdlib.h>
#include <string.h>

static int mark_kind(__isl_keep isl_ast_node *node) {
  if (isl_ast_node_get_type(node) != isl_ast_node_mark) return 0;
  isl_id *id = isl_ast_node_mark_get_id(node);
  const sj_id_kind *tag = isl_id_get_user(id);
  int kind = tag ? (int)*tag : 0;
  isl_id_free(id);
  return kind;
}

static const void *mark_data(__isl_keep isl_ast_node *node) {
  isl_id *id = isl_ast_node_mark_get_id(node);
  const void *data = isl_id_get_user(id);
  isl_id_free(id);
  return data;
}

static const sj_kernel *mark_kernel(__isl_keep isl_ast_node *node) {
  return mark_data(node);
}

static const sj_reduce *mark_reduce(__isl_keep isl_ast_node *node) {
  return mark_data(node);
}

/* CPU: innermost loops run UNROLL copies per iteration and then the rest one at a time.
 * TinyCC keeps no value in a register, so copies sharing one pointer advanced once per
 * iteration save most of the address work; the copies are bound to iter + k * step, so
 * their accesses differ only by constants. GPU: so do the loops of staged copies that would
 * make too long a line unrolled whole (lower_full.c, sj_lower.roll_copies). */
enum { UNROLL = 4 };

static isl_bool find_for(__isl_keep isl_ast_node *node, void *found) {
  if (isl_ast_node_get_type(node) == isl_ast_node_for) *(int *)found = 1;
  return *(int *)found ? isl_bool_false : isl_bool_true;
}

/* The unrolled loop and its remainder, when node is a loop of that form (and innermost unless
 * any_depth). */
static int lower_unrolled(sj_lower *l, __isl_keep isl_ast_node *node, int any_depth,
                          sj_lw_fn body) {
  int found = 0, strict;
  isl_ast_node *child = isl_ast_node_for_get_body(node);
  if (!any_depth) isl_ast_node_foreach_descendant_top_down(child, find_for, &found);
  isl_ast_expr *it = isl_ast_node_for_get_iterator(node), *inc = isl_ast_node_for_get_inc(node);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
  isl_id *id = isl_ast_expr_get_id(it);
  isl_ast_expr *bound = found ? NULL : sj_lw_upper_bound(cond, id, &strict);
  sj_ir_val step = bound ? sj_lw_iexpr(l, inc) : sj_ir_int(SJ_IR_S64, 0);
  if (bound && step.kind == SJ_V_INT && step.i > 0) {
    sj_irb *b = &l->b;
    isl_ast_expr *init = isl_ast_node_for_get_init(node);
    sj_ir_node *wide = sj_irb_loop(b, sj_lw_iexpr(l, init), sj_ir_int(SJ_IR_S64, UNROLL * step.i));
    isl_ast_expr_free(init);
    sj_irb_pos pos = sj_irb_enter(b, &wide->head, 1);
    sj_ir_val last = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, sj_ir_reg_val(b->f, wide->iter),
                               sj_ir_int(SJ_IR_S64, (UNROLL - 1) * step.i));
    wide->cond = sj_irb_setp(b, strict ? SJ_CMP_LT : SJ_CMP_LE, last, sj_lw_iexpr(l, bound));
    b->cur = &wide->body;
    long copy_run = l->copy_run;
    l->copy_run = UNROLL; /* a line of its own */
    for (int k = 0; k < UNROLL && sj_lw_going(l); k++) {
      sj_lw_bind(l, id, sj_ir_reg_val(b->f, wide->iter), k * step.i);
      body(l, child);
      sj_lw_unbind(l);
    }
    sj_irb_leave(b, pos);
    sj_ir_node *rest = sj_irb_loop(b, sj_ir_reg_val(b->f, wide->iter), step);
    pos = sj_irb_enter(b, &rest->head, 1);
    sj_lw_bind(l, id, sj_ir_reg_val(b->f, rest->iter), 0);
    rest->cond = sj_lw_icond(l, cond);
    b->cur = &rest->body;
    l->copy_run = 1;
    body(l, child);
    l->copy_run = copy_run;
    sj_lw_unbind(l);
    sj_irb_leave(b, pos);
    found = -1; /* done */
  }
  isl_ast_expr_free(bound);
  isl_ast_expr_free(it);
  isl_ast_expr_free(inc);
  isl_ast_expr_free(cond);
  isl_ast_node_free(child);
  isl_id_free(id);
  return found == -1;
}

/* How a loop's iterations are shared: by all (SHARE_NONE), over the CPU workers, or over the GPU
 * threads of block dimension d (SHARE_THREADS + d). */
enum { SHARE_NONE, SHARE_WORKERS, SHARE_THREADS };

/* A for node as a loop, its iterations shared as distributed says. Over GPU threads each takes
 * those whose iterator is congruent to its id modulo the block size (for a unit step): the
 * congruence of the thread filters, which isl then need not carry through its bounds. */
static void lower_for(sj_lower *l, __isl_keep isl_ast_node *node, int distributed, sj_lw_fn body) {
  sj_irb *b = &l->b;
  if (!distributed && l->unroll_innermost && lower_unrolled(l, node, 0, body)) return;
  if (distributed != SHARE_WORKERS &&
      sj_lw_unroll_full(l, node, distributed ? distributed - SHARE_THREADS : -1, body))
    return;
  int roll = l->roll_copies;
  l->roll_copies = 0;
  if (roll && lower_unrolled(l, node, 1, body)) return;
  isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
  isl_ast_expr *init_e = isl_ast_node_for_get_init(node), *inc_e = isl_ast_node_for_get_inc(node);
  isl_ast_expr *cond_e = isl_ast_node_for_get_cond(node);
  isl_id *id = isl_ast_expr_get_id(it);
  sj_ir_val init = sj_lw_iexpr(l, init_e), step = sj_lw_iexpr(l, inc_e);
  int once = distributed >= SHARE_THREADS && l->spread_once;
  l->spread_once = 0;
  if (distributed >= SHARE_THREADS) {
    int d = distributed - SHARE_THREADS;
    sj_ir_val width = sj_ir_int(SJ_IR_S64, (long)b->f->block[d]), r;
    sj_ir_val tid = sj_irb_special(b, (sj_ir_special)(SJ_SPECIAL_TID_X + d));
    init = sj_lw_spread_first(l, tid, init, step, width.i, &r);
    step = sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, step, width);
  } else if (distributed == SHARE_WORKERS) {
    sj_ir_val tid = sj_irb_special(b, SJ_SPECIAL_CPU_TID),
              nth = sj_irb_special(b, SJ_SPECIAL_CPU_NTH);
    init = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, init, sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, tid, step));
    step = sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, nth, step);
  }
  sj_irb_pos pos;
  if (once) { /* the thread's first iteration, if any: a branch, not a loop */
    sj_lw_bind(l, id, init, 0);
    pos = sj_irb_enter(b, &sj_irb_if(b, sj_lw_icond(l, cond_e))->then, 0);
  } else {
    sj_ir_node *loop = sj_irb_loop(b, init, step);
    pos = sj_irb_enter(b, &loop->head, 1);
    sj_lw_bind(l, id, sj_ir_reg_val(b->f, loop->iter), 0);
    loop->cond = sj_lw_icond(l, cond_e);
    b->cur = &loop->body;
  }
  isl_ast_node *child = isl_ast_node_for_get_body(node);
  long weight = l->weight, copy_run = l->copy_run;
  if (l->spread_copies) l->weight *= l->spread_copies, l->spread_copies = 0;
  l->copy_run = 1; /* a loop's body is a line of its own */
  body(l, child);
  l->weight = weight;
  l->copy_run = copy_run;
  isl_ast_node_free(child);
  sj_lw_unbind(l);
  sj_irb_leave(b, pos);
  isl_id_free(id);
  isl_ast_expr_free(it);
  isl_ast_expr_free(init_e);
  isl_ast_expr_free(inc_e);
  isl_ast_expr_free(cond_e);
}

static void lower_if(sj_lower *l, __isl_keep isl_ast_node *node, sj_lw_fn branch) {
  sj_irb *b = &l->b;
  isl_ast_expr *cond = isl_ast_node_if_get_cond(node);
  sj_ir_node *n = sj_irb_if(b, sj_lw_icond(l, cond));
  isl_ast_expr_free(cond);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  isl_ast_node *child = isl_ast_node_if_get_then_node(node);
  branch(l, child);
  isl_ast_node_free(child);
  sj_irb_leave(b, pos);
  if (isl_ast_node_if_has_else_node(node)) {
    pos = sj_irb_enter(b, &n->other, 0);
    child = isl_ast_node_if_get_else_node(node);
    branch(l, child);
    isl_ast_node_free(child);
    sj_irb_leave(b, pos);
  }
}

static void lower_children(sj_lower *l, __isl_keep isl_ast_node *node, sj_lw_fn each) {
  isl_ast_node_list *list = isl_ast_node_block_get_children(node);
  int n = isl_ast_node_list_n_ast_node(list);
  for (int i = 0; i < n && sj_lw_going(l); i++) {
    isl_ast_node *child = isl_ast_node_list_get_ast_node(list, i);
    each(l, child);
    isl_ast_node_free(child);
  }
  isl_ast_node_list_free(list);
}

/* Binds the parameters of e to their values; returns how many. */
static int bind_params(sj_lower *l, const sj_param_exprs *e) {
  int bound = 0;
  for (int i = 0; i < SJ_PARAM_EXPRS_MAX; i++)
    if (e->values[i]) sj_lw_bind(l, e->ids[i], sj_lw_iexpr(l, e->values[i]), 0), bound++;
  return bound;
}

static void lower_mark_child(sj_lower *l, __isl_keep isl_ast_node *node, sj_lw_fn fn) {
  isl_ast_node *child = isl_ast_node_mark_get_node(node);
  fn(l, child);
  isl_ast_node_free(child);
}

static void lower_user(sj_lower *l, __isl_keep isl_ast_node *node) {
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  const sj_id_kind *tag = sj_lw_callee(call);
  /* the code's size in the stencil's statements: a copy (one load, one store) counts for
   * little beside them, and a tile's flow-in is many short copies */
  if (!(tag && *tag == SJ_ID_COPY)) {
    /* a level less, only where unrolled code may be what is too long: a kernel with nothing
     * to lower again needs all its statements (tests/kernels/red_many_statements.c lost those
     * past the bound) */
    if (++l->stmts > l->max_stmts && l->full_level >= 2 && l->unrollable) l->too_big = 1;
    l->predicted += l->weight;
  }
  if (tag && *tag == SJ_ID_SYNC)
    sj_irb_barrier(&l->b);
  else if (tag && *tag == SJ_ID_COPY)
    sj_lw_copy(l, call, (const sj_copy *)tag);
  else
    sj_lw_stmt(l, call, node);
  isl_ast_expr_free(call);
}

static void plain(sj_lower *l, __isl_keep isl_ast_node *node);

static void spread_over(sj_lower *l, __isl_keep isl_ast_node *node, int d);

static void spread_branch(sj_lower *l, __isl_keep isl_ast_node *node) {
  spread_over(l, node, l->spread_dim);
}

/* A GPU loop spread over the threads of block dimension d: each thread its share of the
 * iterations. isl may put the loop in the branches of an if (statements of several nests
 * folded into one step: a loop per nest), whose condition holds the same for every thread of
 * the row: each branch is spread. No loop at all: isl dropped it (one iteration), and the
 * first thread along the dimension runs it. */
static void spread_over(sj_lower *l, __isl_keep isl_ast_node *node, int d) {
  if (isl_ast_node_get_type(node) == isl_ast_node_for) {
    lower_for(l, node, SHARE_THREADS + d, plain);
  } else if (isl_ast_node_get_type(node) == isl_ast_node_if) {
    int outer = l->spread_dim;
    l->spread_dim = d;
    lower_if(l, node, spread_branch);
    l->spread_dim = outer;
  } else {
    sj_irb *b = &l->b;
    sj_ir_val first =
        sj_irb_setp(b, SJ_CMP_EQ, sj_irb_special(b, (sj_ir_special)(SJ_SPECIAL_TID_X + d)),
                    sj_ir_int(SJ_IR_S64, 0));
    sj_ir_node *n = sj_irb_if(b, first);
    sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
    plain(l, node);
    sj_irb_leave(b, pos);
  }
}

/* A `spread` mark: its loop over the threads of the mark's block dimension. */
static void lower_spread(sj_lower *l, __isl_keep isl_ast_node *mark) {
  isl_id *id = isl_ast_node_mark_get_id(mark);
  const sj_mapped_id *spread = isl_id_get_user(id);
  int d = spread->dim, once = l->spread_once;
  l->spread_once = spread->once;
  isl_id_free(id);
  isl_ast_node *child = isl_ast_node_mark_get_node(mark);
  sj_ir_val outer = l->spread_align;
  l->spread_align = (sj_ir_val){0};
  if (d == 0 && isl_ast_node_get_type(child) == isl_ast_node_for) {
    isl_ast_node *body = isl_ast_node_for_get_body(child);
    l->spread_align = sj_lw_copy_align(l, body);
    isl_ast_node_free(body);
  }
  spread_over(l, child, d);
  l->spread_align = outer;
  l->spread_once = once;
  isl_ast_node_free(child);
}

/* Code that runs on the thread that reached it (a kernel's, or below a spread loop). */
static void plain(sj_lower *l, __isl_keep isl_ast_node *node) {
  if (l->failed || l->too_big) return;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    lower_for(l, node, 0, plain);
    break;
  case isl_ast_node_if:
    lower_if(l, node, plain);
    break;
  case isl_ast_node_block:
    lower_children(l, node, plain);
    break;
  case isl_ast_node_mark:
    if (mark_kind(node) == SJ_ID_SPREAD) {
      lower_spread(l, node);
      break;
    }
    if (mark_kind(node) == SJ_ID_FULL) {
      sj_lw_full_tiles(l, node, plain);
      break;
    }
    if (mark_kind(node) == SJ_ID_VERSION) {
      sj_lw_version(l, node, ((const sj_mapped_id *)mark_data(node))->dim, plain);
      break;
    }
    if (mark_kind(node) == SJ_ID_ORIGIN_EXPRS) {
      int bound = bind_params(l, mark_data(node));
      lower_mark_child(l, node, plain);
      while (bound--) sj_lw_unbind(l);
      break;
    }
    if (mark_kind(node) == SJ_ID_REDUCE) sj_lw_reduce_start(l, mark_reduce(node));
    lower_mark_child(l, node, plain);
    break;
  case isl_ast_node_user:
    lower_user(l, node);
    break;
  default:
    sj_lw_fail(l, "an AST node of an unknown type");
  }
}

/* --- CPU --- */

static isl_bool find_parallel(__isl_keep isl_ast_node *node, void *found) {
  if (mark_kind(node) == SJ_ID_PARALLEL) *(int *)found = 1;
  return *(int *)found ? isl_bool_false : isl_bool_true;
}

static int has_parallel(__isl_keep isl_ast_node *node) {
  int found = 0;
  isl_ast_node_foreach_descendant_top_down(node, find_parallel, &found);
  return found;
}

/* On worker 0, then a barrier. */
static void single(sj_lower *l, __isl_keep isl_ast_node *node) {
  sj_irb *b = &l->b;
  sj_ir_val first =
      sj_irb_setp(b, SJ_CMP_EQ, sj_irb_special(b, SJ_SPECIAL_CPU_TID), sj_ir_int(SJ_IR_S64, 0));
  sj_ir_node *n = sj_irb_if(b, first);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  plain(l, node);
  sj_irb_leave(b, pos);
  sj_irb_barrier(b);
}

static void spmd(sj_lower *l, __isl_keep isl_ast_node *node) {
  if (l->failed) return;
  if (!has_parallel(node)) {
    single(l, node);
    return;
  }
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    lower_for(l, node, 0, spmd);
    break;
  case isl_ast_node_if:
    lower_if(l, node, spmd);
    break;
  case isl_ast_node_block:
    lower_children(l, node, spmd);
    break;
  case isl_ast_node_mark: {
    isl_ast_node *child = isl_ast_node_mark_get_node(node);
    if (mark_kind(node) != SJ_ID_PARALLEL) {
      spmd(l, child);
    } else if (isl_ast_node_get_type(child) == isl_ast_node_for) {
      lower_for(l, child, SHARE_WORKERS, plain);
      sj_irb_barrier(&l->b);
    } else {
      single(l, child); /* the spread loop had one iteration and isl dropped it */
    }
    isl_ast_node_free(child);
    break;
  }
  default:
    single(l, node);
  }
}

/* --- shared by both --- */

static void mark_writes(const sj_stmt *st, int *written) {
  if (!st) return;
  if (st->lhs && st->lhs->kind == SJ_E_INDEX && st->lhs->sym->kind == SJ_SYM_ARRAY)
    written[st->lhs->sym->id] = 1;
  for (int i = 0; i < st->nbody; i++) mark_writes(st->body[i], written);
}

/* The arrays of the C function, the arrays of its locals kept in memory, and its scalars,
 * in that order. */
static void add_user_params(const sj_model *m, sj_ir_func *f) {
  const sj_func *fn = m->fn;
  int *written = calloc((size_t)fn->narrays + 1, sizeof *written);
  if (!written) abort();
  mark_writes(fn->body, written);
  for (int a = 0; a < fn->narrays; a++)
    for (int p = 0; p < fn->nparams; p++) {
      const sj_sym *s = fn->params[p];
      if (s->kind == SJ_SYM_ARRAY && s->id == a) {
        sj_ir_param prm = {SJ_PARAM_ARRAY, sj_lw_type(s->type), a, !written[a], s->name};
        sj_ir_add_param(f, prm);
      }
    }
  free(written);
  for (int t = 0; t < m->ntemps; t++) {
    sj_ir_param prm = {SJ_PARAM_ARRAY, sj_lw_type(m->temps[t]->type), m->temps[t]->id, 0,
                       m->temps[t]->name};
    sj_ir_add_param(f, prm);
  }
  for (int p = 0, k = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_SCALAR) continue;
    sj_ir_param prm = {SJ_PARAM_SCALAR, sj_lw_type(s->type), k++, 0, s->name};
    sj_ir_add_param(f, prm);
  }
}

static void start(sj_lower *l, const sj_model *m, sj_ir_module *mod, sj_ir_func *f, sj_error *err) {
  memset(l, 0, sizeof *l);
  l->m = m;
  l->mod = mod;
  l->err = err;
  l->local_var = calloc((size_t)m->fn->nlocals + 1, sizeof *l->local_var);
  if (!l->local_var) abort();
  sj_irb_init(&l->b, f, m->fn->narrays + m->ntemps);
}

static void finish(sj_lower *l) {
  if (l->b.f) sj_irb_finish(&l->b);
  free(l->partial);
  free(l->target);
  free(l->local_var);
  free(l->ranges);
  free(l->binds);
  free(l->host_ids);
  free(l->staged_base);
}

static void add_func(sj_ir_module *mod, sj_ir_func *f) {
  mod->funcs = realloc(mod->funcs, (size_t)(mod->nfuncs + 1) * sizeof *mod->funcs);
  if (!mod->funcs) abort();
  mod->funcs[mod->nfuncs++] = f;
}

static sj_ir_module *new_module(const sj_model *m) {
  sj_ir_module *mod = calloc(1, sizeof *mod);
  if (!mod) abort();
  mod->source_fn = m->fn->name;
  return mod;
}

static int done(sj_lower *l, sj_ir_module *mod, sj_ir_module **out) {
  int failed = l->failed;
  finish(l);
  if (failed) {
    sj_ir_module_free(mod);
    *out = NULL;
    return l->err->status ? l->err->status : JIT_ERR_INTERNAL;
  }
  *out = mod;
  return 0;
}

int sj_lower_cpu(const sj_model *m, __isl_keep isl_ast_node *ast, int unroll, sj_ir_module **out,
                 sj_error *err) {
  sj_ir_module *mod = new_module(m);
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_CPU, "__sj_kernel");
  add_func(mod, f);
  add_user_params(m, f);
  sj_lower l;
  start(&l, m, mod, f, err);
  l.unroll_innermost = unroll;
  if (ast) spmd(&l, ast);
  return done(&l, mod, out);
}

/* --- GPU --- */

typedef struct access_scan {
  const sj_ir_func *f;
  char *written;
} access_scan;

static void find_stores(sj_ir_ins *ins, void *user) {
  access_scan *s = user;
  const sj_ir_reg *p = &s->f->regs[ins->a.reg];
  if ((ins->op == SJ_IR_ST || ins->op == SJ_IR_ATOM) && p->space == SJ_SPACE_GLOBAL &&
      p->array >= 0)
    s->written[p->array] = 1;
}

static void set_nc(sj_ir_ins *ins, void *user) {
  access_scan *s = user;
  const sj_ir_reg *p = ins->op == SJ_IR_LD ? &s->f->regs[ins->a.reg] : NULL;
  if (p && p->space == SJ_SPACE_GLOBAL && p->array >= 0 && !s->written[p->array]) ins->nc = 1;
}

/* Loads of arrays the kernel never writes go through the read-only cache. */
static void read_only_loads(sj_ir_func *f, int narrays) {
  access_scan s = {f, calloc((size_t)narrays + 1, 1)};
  if (!s.written) abort();
  sj_ir_foreach_ins(&f->body, find_stores, &s);
  sj_ir_foreach_ins(&f->body, set_nc, &s);
  free(s.written);
}

static void host(sj_lower *l, __isl_keep isl_ast_node *node);

/* The name of kernel INDEX of the function fn: fn_kINDEX. A long fn keeps its first
 * SJ_NAME_KEEP characters and a digest of the whole name before _kINDEX, so that the kernels
 * of one function stay distinct and every name stays short enough for the printers' lines and
 * the tools that show it (ptxas, profilers). */
enum { SJ_NAME_KEEP = 48 };
static char *kernel_name(const char *fn, int index) {
  sj_buf b = {0};
  size_t n = strlen(fn);
  if (n <= 2 * SJ_NAME_KEEP) {
    sj_buf_printf(&b, "%s_k%d", fn, index);
  } else {
    char hex[65];
    sj_sha256_hex(fn, n, hex);
    sj_buf_printf(&b, "%.*s_%.16s_k%d", (int)SJ_NAME_KEEP, fn, hex, index);
  }
  return sj_buf_take(&b);
}

/* What a kernel with full tiles' code may hold: MAX_REGS registers per thread, of which the
 * estimate of astgen/pressure.c may take MAX_PRESSURE, and the statement instances that keep
 * its code within the instruction cache. The bound is measured, not derived: every kernel of
 * tests/kernels, hybrid and split, at the tile choice's sizes and the benchmarks' (529
 * kernels), unrolled with no bound on the estimate, assembled at .maxnreg 128 with no spill
 * (estimates up to 127, ptxas 62 to 128). At 96, fdtd-2d's tiles (estimated 104 to 116, ptxas
 * 80 to 103) ran their steps in loops: 58.9 instructions per update at 768^2, 26.5 unrolled. */
enum { MAX_REGS = SJ_UNROLL_MAX_REGS, MAX_PRESSURE = 120, MAX_STMTS = SJ_UNROLL_MAX_STMTS };

/* The most copies an iteration of a grouped loop may run (sj_lower.group): as many as a step's
 * rows in most tiles, where level 3 unrolls them all */
enum { MAX_GROUP = 32 };

/* The function of kernel mark at the given level of unrolling full tiles (lower_full.c);
 * kl is left for the launch (the host iterators). */
static sj_ir_func *kernel_func(sj_lower *l, __isl_keep isl_ast_node *mark, int level,
                               sj_lower *kl) {
  const sj_kernel *k = mark_kernel(mark);
  char *name = kernel_name(l->m->fn->name, l->mod->nfuncs - 1);
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, name);
  free(name);
  memcpy(f->grid, k->grid, sizeof f->grid);
  memcpy(f->block, k->block, sizeof f->block);
  add_user_params(l->m, f);
  start(kl, l->m, l->mod, f, l->err);
  kl->contract = l->contract;
  kl->approx_div = l->approx_div;
  kl->free_ids_are_params = 1;
  kl->kernel = k;
  kl->full_level = level;
  kl->plain_spread = l->plain_spread;
  kl->group = l->group ? l->group : SJ_LW_GROUP;
  f->share_near = l->share_near;
  kl->reanchor = l->reanchor;
  memcpy(kl->seen, l->seen, sizeof kl->seen);
  kl->nseen = l->nseen;
  kl->unroll_any = l->unroll_any;
  kl->max_stmts = MAX_STMTS;
  kl->weight = 1;
  kl->copy_run = 1;
  kl->staged_base = calloc((size_t)k->nstaged + 1, sizeof *kl->staged_base);
  if (!kl->staged_base) abort();
  for (int i = 0; i < k->nstaged; i++) {
    long count = 1;
    for (int d = 0; d < k->staged[i].rank; d++) count *= k->staged[i].size[d];
    int pos = sj_ir_find_param(f, SJ_PARAM_ARRAY, k->staged[i].array);
    sj_ir_add_shared(f, (sj_ir_shared){f->params[pos].type, count});
  }
  lower_mark_child(kl, mark, plain);
  if (kl->reduce) sj_lw_reduce_finish(kl); /* every lane of every warp, at the end */
  if (f->traps) {
    sj_ir_param err = {SJ_PARAM_ERROR, SJ_IR_S32, 0, 0, "error"};
    sj_ir_add_param(f, err);
  }
  sj_ir_expand_math(f); /* PTX has no math library */
  read_only_loads(f, l->m->fn->narrays + l->m->ntemps);
  sj_irb_finish(&kl->b);
  if (!kl->too_big) { /* too long, it is dropped (kernel) */
    sj_ir_unswitch(f);
    sj_ir_optimize(f);
  }
  return f;
}

/* A kernel's function lowered at one level, with its lowering state and register estimate. */
typedef struct lowered {
  sj_ir_func *f;
  sj_lower kl;
  int pressure;
} lowered;

static void lower_at(sj_lower *l, __isl_keep isl_ast_node *mark, int level, lowered *c) {
  c->f = kernel_func(l, mark, level, &c->kl);
  c->pressure = sj_ir_pressure(c->f);
}

/* Whether a kernel's lowering is within what it may hold. */
static int fits(const lowered *c) {
  return c->pressure <= MAX_PRESSURE && !c->kl.too_big;
}

/* Frees a lowering; the traps it noted since ntraps go with it. */
static void drop(sj_lower *l, lowered *c, int ntraps) {
  sj_ir_func_free(c->f);
  finish(&c->kl);
  l->mod->ntraps = ntraps;
}

/* Keeps alt in place of cur where keep holds (the traps of the one dropped then stay unused)
 * and frees the other; ntraps is the count before alt was lowered. Returns keep. */
static int prefer(sj_lower *l, lowered *cur, lowered *alt, int ntraps, int keep) {
  if (keep) {
    lowered swap = *cur;
    *cur = *alt, *alt = swap;
    ntraps = l->mod->ntraps;
  }
  drop(l, alt, ntraps);
  return keep;
}

/* A lowering at level, lowered again with windows anchored anew (l->reanchor, left set) where
 * it is too long only for windows anchored to the tile's first: a split color growing along a
 * row (its window starts a point lower each step) takes two copies a row from one anchor where
 * one covers it. ntraps is the count before. */
static void lower_anchored(sj_lower *l, __isl_keep isl_ast_node *mark, int level, lowered *c,
                           int ntraps) {
  lower_at(l, mark, level, c);
  if (!l->reanchor && !c->kl.failed && c->kl.too_big && c->kl.grew) {
    drop(l, c, ntraps);
    l->reanchor = 1;
    lower_at(l, mark, level, c);
  }
}

/* Level 2, and where its grouped spread loops do not fit, every spread loop a loop; ntraps is
 * the count before. Anchored anew first where that makes it fit: split jacobi-2d with a copy
 * back at 3072^2 x 16 ran its two growing colors' spread loops plain, 36.75 instructions per
 * update against 23.18 grouped. */
static void lower_level2(sj_lower *l, __isl_keep isl_ast_node *mark, lowered *c, int ntraps) {
  lower_anchored(l, mark, 2, c, ntraps);
  if (!c->kl.failed && c->kl.grouped && !fits(c)) {
    drop(l, c, ntraps);
    l->plain_spread = 1;
    lower_at(l, mark, 2, c);
    l->plain_spread = 0;
  }
  l->reanchor = 0;
}

/* A kernel mark: a function of its own, and a launch passing the host iterators it uses. The
 * code of full tiles is unrolled as far as the registers and the size allow, never spilled:
 * level 2 first (a tile's steps), which counts what level 3 (their rows too) would make; level
 * 3 where that fits, else level 2 with its spread loops plain and levels 1 and 0 where level 2
 * does not (sj_lower.full_level). Where level 2 holds too many registers it is tried again
 * with cheap values computed anew (sj_lower.share_near) before a level less. */
static void kernel(sj_lower *l, __isl_keep isl_ast_node *mark) {
  const sj_kernel *k = mark_kernel(mark);
  int index = l->mod->nfuncs, ntraps = l->mod->ntraps, level = 2;
  lowered cur, alt;
  lower_level2(l, mark, &cur, ntraps);
  /* the windows it saw anchor the lowerings after it */
  memcpy(l->seen, cur.kl.reach, sizeof l->seen);
  l->nseen = cur.kl.nreach;
  if (!cur.kl.failed && cur.kl.unrollable && !cur.kl.too_big && !fits(&cur)) {
    int ntraps2 = l->mod->ntraps; /* too many registers: cheap values computed again */
    l->share_near = 1;
    lower_level2(l, mark, &alt, ntraps2);
    if (!prefer(l, &cur, &alt, ntraps2, !alt.kl.failed && fits(&alt))) l->share_near = 0;
  }
  /* level 2 unrolled every spread loop: level 3's code. Else level 3 is tried also where level
   * 2 holds too many registers: its loops over a step's rows may hold more than their copies
   * unrolled (jacobi-1d hybrid h=24 w=384 at T=100, phase 1: about 124 at level 2, 48 at level
   * 3, which ran 23.6 -> 12.3 instructions per update where level 1 took its place) */
  int same = !cur.kl.plain_spread && !cur.kl.ngroups && !cur.kl.rolled;
  if (!cur.kl.failed && cur.kl.unrollable && fits(&cur) && same) {
    level = 3;
  } else if (!cur.kl.failed && cur.kl.unrollable && !cur.kl.too_big && !same &&
             (cur.kl.predicted <= MAX_STMTS || cur.kl.grew)) {
    /* level 3 as long as its anchored windows would make it (the prediction, anchored as level 2
     * was), else with the fewest copies its windows need: split heat-2d 3072^2 x 16, the colors
     * that grow along a row (its window's start moves by a point a step) took two copies a row
     * from one anchor, 263 statements predicted, and 147 made with windows anchored anew, which
     * ran 34.8 -> 18.4 instructions per point at level 3 */
    int ntraps2 = l->mod->ntraps;
    l->reanchor = cur.kl.reanchor || cur.kl.predicted > MAX_STMTS;
    lower_anchored(l, mark, 3, &alt, ntraps2);
    l->reanchor = 0;
    if (prefer(l, &cur, &alt, ntraps2, alt.kl.failed || fits(&alt))) level = 3;
  }
  /* level 3 too long: level 2's grouped loops run twice the copies an iteration while the
   * kernel fits (heat-2d hybrid h=5, 40 rows a step: 8 rows, 22.8 -> 20.9 instructions per
   * update), tried where twice its statements would (a lowering costs some 30 us a statement) */
  for (long g = 2 * cur.kl.group; level == 2 && !cur.kl.failed && fits(&cur) && cur.kl.ngroups &&
                                  g <= MAX_GROUP && 2 * cur.kl.stmts <= MAX_STMTS;
       g *= 2) {
    int ntraps2 = l->mod->ntraps;
    l->group = g, l->reanchor = cur.kl.reanchor;
    lower_at(l, mark, 2, &alt);
    l->group = l->reanchor = 0;
    if (!prefer(l, &cur, &alt, ntraps2, !alt.kl.failed && fits(&alt))) break;
  }
  while (!cur.kl.failed && cur.kl.unrollable && !fits(&cur) && level > 0) {
    drop(l, &cur, ntraps); /* too large */
    lower_at(l, mark, --level, &cur);
  }
  /* the partial tiles' code unrolled as well where the schedule asks for it and the kernel
   * still fits at that level: a partial split tile's rolled steps ran 2.6 times a full one's
   * instructions, and split jacobi-2d at 768^2 has 30% of its tiles partial (the edges of the
   * grid). A try that does not fit stops at the statement bound (lower_children). */
  if (!cur.kl.failed && k->unroll_partial && cur.kl.versions && level >= 2) {
    int ntraps2 = l->mod->ntraps;
    l->plain_spread = cur.kl.plain_spread, l->reanchor = cur.kl.reanchor, l->unroll_any = 1;
    l->group = cur.kl.group;
    lower_at(l, mark, level, &alt);
    l->plain_spread = l->reanchor = l->unroll_any = 0;
    l->group = 0;
    prefer(l, &cur, &alt, ntraps2, !alt.kl.failed && fits(&alt));
  }
  sj_buf why = {0};
  sj_buf_puts(&why, k->why);
  if (cur.kl.unrollable) {
    /* ptxas may hold a block of 256 threads or more to 40 registers, spilling what unrolled
     * code needs beyond; its own needs can be twice the estimate (64-bit divisions by
     * constants), and a bound from the estimate made it spill: the bound */
    cur.f->max_regs = MAX_REGS;
    sj_buf_printf(&why, "; %s unrolled at level %d of 3, about %d registers",
                  !cur.kl.versions    ? "tiles' steps"
                  : cur.kl.unroll_any ? "full and partial tiles' code"
                                      : "full tiles' code",
                  level, cur.pressure);
    if (level == 2 && cur.kl.group != SJ_LW_GROUP)
      sj_buf_printf(&why,
                    cur.kl.ngroups ? ", inner loops %ld copies an iteration"
                                   : ", inner loops of up to %ld copies unrolled",
                    cur.kl.group);
  }
  cur.f->why = sj_buf_take(&why);
  add_func(l->mod, cur.f);
  l->share_near = 0;
  l->nseen = 0;
  sj_ir_ins *launch = sj_irb_emit(&l->b, SJ_IR_LAUNCH, SJ_IR_PRED);
  launch->imm = index;
  launch->nargs = cur.kl.nhost_ids;
  launch->args = calloc((size_t)cur.kl.nhost_ids + 1, sizeof *launch->args);
  if (!launch->args) abort();
  for (int i = 0; i < cur.kl.nhost_ids; i++) launch->args[i] = sj_lw_id(l, cur.kl.host_ids[i]);
  if (cur.kl.failed) l->failed = 1;
  finish(&cur.kl);
}

/* A kernel mark whose grid starts at tiles that are functions of the launch (its annotation,
 * astgen/build.c): their values, computed by the host, are parameters of the kernel. */
static void launch_kernel(sj_lower *l, __isl_keep isl_ast_node *mark) {
  isl_id *note = isl_ast_node_get_annotation(mark);
  const sj_param_exprs *e = note ? isl_id_get_user(note) : NULL;
  int bound = e && e->tag == SJ_ID_FIRST_EXPRS ? bind_params(l, e) : 0;
  kernel(l, mark);
  while (bound--) sj_lw_unbind(l);
  isl_id_free(note);
}

static void host(sj_lower *l, __isl_keep isl_ast_node *node) {
  if (l->failed) return;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    lower_for(l, node, 0, host);
    break;
  case isl_ast_node_if:
    lower_if(l, node, host);
    break;
  case isl_ast_node_block:
    lower_children(l, node, host);
    break;
  case isl_ast_node_mark:
    if (mark_kind(node) == SJ_ID_KERNEL)
      launch_kernel(l, node);
    else
      lower_mark_child(l, node, host);
    break;
  default:
    sj_lw_fail(l, "a statement outside every GPU kernel");
  }
}

int sj_lower_gpu(const sj_model *m, __isl_keep isl_ast_node *ast, int fast_math, sj_ir_module **out,
                 sj_error *err) {
  sj_ir_module *mod = new_module(m);
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_HOST, "__sj_host");
  add_func(mod, f);
  sj_lower l;
  start(&l, m, mod, f, err);
  l.contract = l.approx_div = fast_math;
  if (ast) host(&l, ast);
  return done(&l, mod, out);
}
