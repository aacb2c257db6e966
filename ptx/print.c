/* The PTX target of the AST walk: kernels (mapped loops, unrolled points with a full-tile
 * path, guards, statements) and the module. Virtual registers are typed and never reused
 * except for loop iterators and locals; the driver's register allocator does the rest. */
#include "ptx/ptx.h"
#include "ptx/print.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "base/buf.h"

/* --- walk hooks --- */

static opnd special(ptx *x, const char *reg, int dim) {
  opnd r32 = sj_px_fresh(x, B32), r64 = sj_px_fresh(x, B64);
  sj_px_emit(x, "mov.u32 %s, %s.%c", r32.s, reg, "xyz"[dim]);
  sj_px_emit(x, "cvt.u64.u32 %s, %s", r64.s, r32.s);
  return r64;
}

/* The predicate of one point of a mapped loop: in its bounds and on its stride. */
static opnd point_valid(ptx *x, __isl_keep isl_ast_node *loop) {
  isl_ast_expr *init = isl_ast_node_for_get_init(loop), *cond = isl_ast_node_for_get_cond(loop);
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  isl_ast_expr *it = isl_ast_node_for_get_iterator(loop);
  opnd value = sj_px_in_reg64(x, sj_px_iexpr(x, it));
  isl_ast_expr_free(it);
  opnd lo = sj_px_iexpr(x, init), p = sj_px_fresh(x, PRED), q = sj_px_icond(x, cond);
  sj_px_emit(x, "setp.ge.s64 %s, %s, %s", p.s, value.s, lo.s);
  sj_px_emit(x, "and.pred %s, %s, %s", p.s, p.s, q.s);
  opnd step = sj_px_iexpr(x, inc);
  if (strcmp(step.s, "1")) {
    opnd r = sj_px_binop64(x, "rem", sj_px_binop64(x, "sub", value, lo), step),
         s = sj_px_fresh(x, PRED);
    sj_px_emit(x, "setp.eq.s64 %s, %s, 0", s.s, r.s);
    sj_px_emit(x, "and.pred %s, %s, %s", p.s, p.s, s.s);
  }
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  isl_ast_expr_free(inc);
  return p;
}

/* Point u of the unrolled member, run only where it lies in the loop. */
static void guarded_copy(ptx *x, __isl_keep isl_ast_node *loop, int u) {
  x->nmemos = x->unroll_memos; /* each guarded copy starts from what dominates it */
  x->iter_off[x->unroll_depth] = u * (long)x->map->block[0];
  x->unroll_skip = sj_px_new_label(x);
  opnd p = point_valid(x, loop);
  sj_px_emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, x->unroll_skip);
}

/* A mapped member: lo + ctaid * tile + tid, then ppt points a block width apart along the
 * innermost member.
 * The body is visited 2 * ppt times: ppt unguarded copies when the thread's points all lie
 * in the loop (a full tile), ppt guarded copies otherwise. */
static int mapped_begin(ptx *x, __isl_keep isl_ast_node *loop, int member) {
  const sj_kernel_map *k = x->map;
  int d = sj_ast_loop_depth(loop), dim = k->dim[member];
  opnd block = special(x, "%ctaid", dim), thread = special(x, "%tid", dim);
  opnd base = sj_px_binop64(x, "mul.lo", block, sj_px_imm(k->tile[member]));
  base = sj_px_binop64(x, "add", base, thread);
  base = sj_px_binop64(x, "add", base, sj_px_imm(k->lo[member]));
  x->iter[d] = atoi(base.s + 3);
  x->iter_off[d] = 0;
  int end = sj_px_new_label(x);
  x->loop_end[x->nloops] = end;
  x->loop_memos[x->nloops++] = x->nmemos;
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  opnd step = sj_px_iexpr(x, inc);
  isl_ast_expr_free(inc);
  if (member != k->nmapped - 1 || k->ppt == 1) {
    opnd p = point_valid(x, loop);
    sj_px_emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, end);
    return 1;
  }
  x->unroll_depth = d;
  x->unroll_end = end;
  x->unroll_memos = x->nmemos;
  x->unroll_full = !strcmp(step.s, "1");
  if (!x->unroll_full) { /* a strided loop: every point guarded */
    sj_px_hoist_addresses(x, loop);
    guarded_copy(x, loop, 0);
    return k->ppt;
  }
  /* full: the first point is past the start and the last one satisfies the bound */
  x->unroll_partial = sj_px_new_label(x);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop), *cond = isl_ast_node_for_get_cond(loop);
  opnd first = sj_px_fresh(x, PRED), last;
  sj_px_emit(x, "setp.ge.s64 %s, %s, %s", first.s, base.s, sj_px_iexpr(x, init).s);
  x->iter_off[d] = (long)(k->ppt - 1) * k->block[dim];
  last = sj_px_icond(x, cond);
  x->iter_off[d] = 0;
  sj_px_emit(x, "and.pred %s, %s, %s", first.s, first.s, last.s);
  sj_px_emit(x, "@!%s bra $L__%s_%d", first.s, x->kname, x->unroll_partial);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  return 2 * k->ppt;
}

static int for_begin(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member) {
  ptx *x = t;
  if (kind == SJ_LOOP_MAPPED) return mapped_begin(x, loop, member);
  int d = sj_ast_loop_depth(loop);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(loop);
  int head = sj_px_new_label(x), end = sj_px_new_label(x);
  x->loop_head[x->nloops] = head;
  x->loop_memos[x->nloops] = x->nmemos;
  x->loop_end[x->nloops++] = end;
  int r = sj_px_new_reg(x, B64);
  sj_px_emit(x, "mov.b64 %%rd%d, %s", r, sj_px_iexpr(x, init).s);
  x->iter[d] = r;
  x->iter_off[d] = 0;
  sj_px_reduce_loop(x, loop, d, x->nloops - 1);
  sj_px_place_label(x, head);
  opnd p = sj_px_icond(x, cond);
  sj_px_emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, end);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  return 1;
}

static void for_copy(void *t, __isl_keep isl_ast_node *loop, int copy) {
  ptx *x = t;
  const sj_kernel_map *k = x->map;
  int ppt = k->ppt;
  if (x->unroll_full && copy < ppt) { /* full tile: straight-line copies share values */
    x->iter_off[x->unroll_depth] = copy * (long)k->block[0];
    return;
  }
  if (x->unroll_full && copy == ppt) {
    sj_px_emit(x, "bra.uni $L__%s_%d", x->kname, x->unroll_end);
    sj_px_place_label(x, x->unroll_partial);
    x->nmemos = x->unroll_memos; /* nothing of the full path is known here */
    sj_px_hoist_addresses(x, loop);
  } else {
    sj_px_place_label(x, x->unroll_skip);
  }
  guarded_copy(x, loop, x->unroll_full ? copy - ppt : copy);
}

static void for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  ptx *x = t;
  x->nloops--;
  x->nmemos = x->loop_memos[x->nloops]; /* values of the loop body are not defined after it */
  if (kind == SJ_LOOP_MAPPED) {
    if (x->unroll_depth == sj_ast_loop_depth(loop)) {
      sj_px_place_label(x, x->unroll_skip);
      x->iter_off[x->unroll_depth] = 0;
      x->unroll_depth = -1;
    }
    sj_px_place_label(x, x->loop_end[x->nloops]);
    return;
  }
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  int r = x->iter[sj_ast_loop_depth(loop)];
  for (int i = 0; i < x->nreduced[x->nloops]; i++)
    sj_px_emit(x, "add.s64 %%rd%d, %%rd%d, %ld", x->reduced_reg[x->nloops][i],
               x->reduced_reg[x->nloops][i], x->reduced_step[x->nloops][i]);
  sj_px_emit(x, "add.s64 %%rd%d, %%rd%d, %s", r, r, sj_px_iexpr(x, inc).s);
  sj_px_emit(x, "bra.uni $L__%s_%d", x->kname, x->loop_head[x->nloops]);
  isl_ast_expr_free(inc);
  sj_px_place_label(x, x->loop_end[x->nloops]);
}

static void if_begin(void *t, __isl_keep isl_ast_expr *cond) {
  ptx *x = t;
  int other = sj_px_new_label(x), end = sj_px_new_label(x);
  x->if_else[x->nifs] = other;
  x->if_end[x->nifs] = end;
  x->if_memos[x->nifs] = x->nmemos;
  x->if_has_else[x->nifs++] = 0;
  opnd p = sj_px_icond(x, cond);
  sj_px_emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, other);
}

static void if_else(void *t) {
  ptx *x = t;
  sj_px_emit(x, "bra.uni $L__%s_%d", x->kname, x->if_end[x->nifs - 1]);
  x->nmemos = x->if_memos[x->nifs - 1];
  sj_px_place_label(x, x->if_else[x->nifs - 1]);
  x->if_has_else[x->nifs - 1] = 1;
}

static void if_end(void *t) {
  ptx *x = t;
  x->nifs--;
  x->nmemos = x->if_memos[x->nifs];
  if (!x->if_has_else[x->nifs]) sj_px_place_label(x, x->if_else[x->nifs]);
  sj_px_place_label(x, x->if_end[x->nifs]);
}

static void store(ptx *x, const sj_stmt *st) {
  const sj_expr *lhs = st->lhs;
  opnd v = sj_px_uval(x, st->rhs);
  if (lhs->kind == SJ_E_VAR) {
    sj_px_emit(x, "mov.%s %s, %s", sj_px_ty(lhs->type),
               sj_px_reg_opnd(sj_px_cls_of(lhs->type), x->local[lhs->sym->id]).s, v.s);
    return;
  }
  char where[96];
  sj_px_address(x, lhs, where, sizeof where);
  sj_px_emit(x, "st.global.%s %s, %s", sj_px_ty(lhs->type), where, sj_px_in_reg(x, v, lhs->type).s);
}

static void stmt(void *t, __isl_keep isl_ast_expr *callx) {
  ptx *x = t;
  x->stmt = x->m->stmts[sj_ast_call_stmt(callx)];
  x->call = callx;
  memset(x->call_iter, 0, sizeof x->call_iter);
  for (int k = 0; k < x->stmt->nbody; k++) {
    const sj_stmt *st = x->stmt->body[k];
    if (st->kind == SJ_S_DECL) {
      int id = st->sym->id;
      if (!x->local[id]) x->local[id] = sj_px_new_reg(x, sj_px_cls_of(st->sym->type));
      if (st->rhs)
        sj_px_emit(x, "mov.%s %s, %s", sj_px_ty(st->sym->type),
                   sj_px_reg_opnd(sj_px_cls_of(st->sym->type), x->local[id]).s,
                   sj_px_uval(x, st->rhs).s);
    } else {
      store(x, st);
    }
  }
}

static void nothing(void *t) {
  (void)t;
}

static const sj_walk_ops kernel_ops = {for_begin, for_copy, for_end, if_begin, if_else, if_end,
                                       stmt,      nothing,  nothing, nothing,  NULL};

/* --- entries --- */

static void mark_written(ptx *x, __isl_keep isl_ast_node *mark);

static isl_bool find_writes(__isl_keep isl_ast_node *node, void *user) {
  ptx *x = user;
  if (isl_ast_node_get_type(node) != isl_ast_node_user) return isl_bool_true;
  isl_ast_expr *c = isl_ast_node_user_get_expr(node);
  const sj_pstmt *s = x->m->stmts[sj_ast_call_stmt(c)];
  isl_ast_expr_free(c);
  for (int k = 0; k < s->nbody; k++)
    if (s->body[k]->lhs && s->body[k]->lhs->kind == SJ_E_INDEX)
      x->written[s->body[k]->lhs->sym->id] = 1;
  return isl_bool_true;
}

static void mark_written(ptx *x, __isl_keep isl_ast_node *mark) {
  memset(x->written, 0, (x->m->fn->narrays + 1) * sizeof *x->written);
  isl_ast_node_foreach_descendant_top_down(mark, find_writes, x);
}

/* Guards as predicates where the guarded code is short: `@!p bra L; a; b; L:` becomes
 * `@p a; @p b;` when the few instructions between carry no predicate, branch or label and
 * nothing else jumps to L. Longer guarded code keeps its branch. */
static char *predicate_short_guards(char *body) {
  enum { MAX_GUARDED = 6 };
  int n = 0;
  for (char *c = body; *c; c++) n += *c == '\n';
  char **lines = malloc((size_t)(n + 1) * sizeof *lines);
  int count = 0;
  for (char *c = strtok(body, "\n"); c; c = strtok(NULL, "\n")) lines[count++] = c;
  sj_buf out = {0};
  for (int i = 0; i < count; i++) {
    char pred[32], label[96];
    int j = i + 1;
    if (sscanf(lines[i], "\t@!%31[%a-z0-9] bra %95[^;];", pred, label) == 2) {
      size_t len = strlen(label);
      while (j < count && j - i - 1 <= MAX_GUARDED && lines[j][0] == '\t' &&
             !strchr(lines[j], '@') && !strstr(lines[j], "bra"))
        j++;
      int uses = 0;
      for (int k = 0; k < count; k++) {
        const char *at = strstr(lines[k], label);
        uses += at && k != j && (at[len] == ';' || at[len] == ':');
      }
      if (j < count && j > i + 1 && !strncmp(lines[j], label, len) && lines[j][len] == ':' &&
          uses == 1) {
        for (int k = i + 1; k < j; k++) sj_buf_printf(&out, "\t@%s %s\n", pred, lines[k] + 1);
        i = j;
        continue;
      }
    }
    sj_buf_printf(&out, "%s\n", lines[i]);
  }
  free(lines);
  return sj_buf_take(&out);
}

static void entry(void *t, __isl_keep isl_ast_node *mark, const sj_kernel_map *k) {
  ptx *x = t;
  const sj_func *fn = x->m->fn;
  char name[96];
  snprintf(name, sizeof name, "%s_k%d", fn->name, k->id);
  x->kname = name;
  memset(x->nreg, 0, sizeof x->nreg);
  x->nlabel = x->nloops = x->nifs = x->nmemos = 0;
  memset(x->local, 0, (fn->nlocals + 1) * sizeof *x->local);
  for (int d = 0; d < 256; d++) x->iter[d] = -1, x->iter_off[d] = 0;
  x->map = k;
  x->unroll_depth = -1;
  mark_written(x, mark);

  sj_buf params = {0};
  int np = 0;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_ARRAY) continue;
    sj_buf_printf(&params, "%s\t.param .u64 %s_param_%d", np ? ",\n" : "", name, np);
    int raw = sj_px_new_reg(x, B64);
    x->array_base[s->id] = sj_px_new_reg(x, B64);
    sj_px_emit(x, "ld.param.u64 %%rd%d, [%s_param_%d]", raw, name, np++);
    sj_px_emit(x, "cvta.to.global.u64 %%rd%d, %%rd%d", x->array_base[s->id], raw);
  }
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_SCALAR) continue;
    sj_buf_printf(&params, "%s\t.param .%s %s_param_%d", np ? ",\n" : "", sj_px_ty(s->type), name,
                  np);
    x->scalar[p] = sj_px_new_reg(x, sj_px_cls_of(s->type));
    sj_px_emit(x, "ld.param.%s %s, [%s_param_%d]", sj_px_ty(s->type),
               sj_px_reg_opnd(sj_px_cls_of(s->type), x->scalar[p]).s, name, np++);
  }
  int host[64];
  int nhost = sj_ast_kernel_host_iters(mark, host, 64);
  for (int i = 0; i < nhost; i++) {
    sj_buf_printf(&params, "%s\t.param .s64 %s_param_%d", np ? ",\n" : "", name, np);
    x->iter[host[i]] = sj_px_new_reg(x, B64);
    sj_px_emit(x, "ld.param.s64 %%rd%d, [%s_param_%d]", x->iter[host[i]], name, np++);
  }
  sj_ast_walk_kernel(mark, &kernel_ops, x);
  sj_px_emit(x, "ret");

  sj_buf_printf(&x->out, "\n// %s\n.visible .entry %s(\n%s\n)\n.reqntid %u, %u, %u\n{\n", k->why,
                name, params.data ? params.data : "", k->block[0], k->block[1], k->block[2]);
  for (int c = 0; c < NCLASS; c++)
    if (x->nreg[c])
      sj_buf_printf(&x->out, "\t.reg %s %s<%d>;\n", sj_px_reg_type[c], sj_px_reg_prefix[c],
                    x->nreg[c] + 1);
  sj_buf_puts(&x->out, "\n");
  char *body = predicate_short_guards(x->body.data ? x->body.data : (char[1]){0});
  sj_buf_puts(&x->out, body);
  free(body);
  sj_buf_puts(&x->out, "}\n");
  sj_buf_free(&x->body);
  sj_buf_free(&params);
}

static int host_for(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member) {
  (void)t, (void)loop, (void)kind, (void)member;
  return 1;
}
static void host_for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  (void)t, (void)loop, (void)kind;
}
static void host_if(void *t, __isl_keep isl_ast_expr *cond) {
  (void)t, (void)cond;
}
static void host_stmt(void *t, __isl_keep isl_ast_expr *c) {
  (void)t, (void)c;
}

/* The module walk visits host code only to find the kernels. */
static const sj_walk_ops module_ops = {host_for,  NULL,    host_for_end, host_if, nothing, nothing,
                                       host_stmt, nothing, nothing,      nothing, entry};

char *sj_print_ptx(const sj_model *m, __isl_keep isl_ast_node *ast, const char *version,
                   const char *target, int fast_math) {
  ptx x;
  memset(&x, 0, sizeof x);
  x.m = m;
  x.fast = fast_math;
  int n = m->fn->narrays + m->fn->nparams + m->fn->nlocals + 1;
  x.array_base = calloc((size_t)n, sizeof *x.array_base);
  x.written = calloc((size_t)n, sizeof *x.written);
  x.scalar = calloc((size_t)n, sizeof *x.scalar);
  x.local = calloc((size_t)n, sizeof *x.local);
  sj_buf_printf(&x.out,
                "//\n// generated by stenciljit %s from '%s'\n//\n\n.version %s\n"
                ".target %s\n.address_size 64\n",
                SJ_VERSION, m->fn->name, version, target);
  sj_ast_walk_host(ast, &module_ops, &x);
  free(x.array_base);
  free(x.written);
  free(x.scalar);
  free(x.local);
  free(x.memos);
  return sj_buf_take(&x.out);
}
