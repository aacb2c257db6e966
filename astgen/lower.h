/* Lowering the isl AST to the kernel IR: the shared state of astgen/lower.c (structure:
 * loops, ifs, kernels, the CPU's threads) and astgen/lower_expr.c (isl and user
 * expressions, addresses, statements). Internal to astgen/. */
#ifndef SJ_LOWER_H
#define SJ_LOWER_H

#include <isl/ast.h>
#include <isl/id.h>

#include "astgen/ir.h"
#include "astgen/irbuild.h"
#include "sched/sched.h"

typedef struct sj_binding {
  isl_id *id; /* borrowed: the AST keeps it alive */
  sj_ir_val val;
  long offset; /* the id's value is val + offset (copies of an unrolled loop) */
  /* a copy of a loop spread over the threads: val is base + r, r (a register) between 0 and
   * span, base the value of the isl expression base (borrowed) or, base NULL, the constant
   * base_const (what the guards of the write-through decide per copy: astgen/lower_expr.c) */
  isl_ast_expr *base;
  long base_const, span;
  sj_ir_val r;
  int copies; /* of an unrolled loop of several copies: what reads it differs from copy to copy */
} sj_binding;

typedef struct sj_range {
  int known; /* 0: not yet, 1: lo .. hi, -1: unbounded */
  long lo, hi;
} sj_range;

/* Level 2 runs an innermost spread loop of more copies than this in a loop over groups of
 * this many copies (lower_full.c): a split tile's rows lie between a color's bounds, 16 to 31
 * of them a thread at h=16, more than the code may unroll at each step, and as a plain loop each
 * row cost its test, latch and pointers (8 instructions beside a 13-instruction point,
 * jacobi-2d). */
enum { SJ_LW_GROUP = 4 };

typedef struct sj_lower {
  const sj_model *m;
  sj_ir_module *mod;
  sj_error *err;
  int failed;
  int contract;         /* fast math on the GPU: a * b + c may become one fma */
  int approx_div;       /* fast math on the GPU: approximate f32 division */
  int unroll_innermost; /* CPU: innermost loops unrolled (see astgen/lower.c) */
  /* GPU kernels: what the code of full tiles unrolls (see astgen/lower.c, sj_full_level) */
  int full_level;
  int in_full;    /* lowering the code of a full tile, or unrolled code of any tile */
  int unroll_any; /* any tile's version unrolled too, with guards where the instances cut it */
  int ran_full;   /* under a `full_tiles` mark: the variable set where the full tile's code ran */
  int unrollable; /* marks of code the level of unrolling applies to, lowered */
  int versions;   /* of them, `full_tiles` marks */
  long stmts;     /* statement instances lowered */
  long max_stmts; /* past this many in unrolled code, too_big: the kernel is tried a level lower */
  int too_big;
  /* at level 2: the statement instances level 3 would make, each lowered statement counting
   * the copies of the spread loops around it (spread_copies: of the loop at hand) */
  long predicted, weight, spread_copies;
  /* the copies of a staged box a thread runs in one line of unrolled code (lower_full.c): ptxas
   * issues all their loads before the first store, a register each */
  long copy_run;
  int roll_copies; /* the loop at hand: such copies, run UNROLL to an iteration (lower.c) */
  /* the spread loops bound to the tile (lower_full.c): by block dimension and the terms of
   * their starts, the constant of the first window, where the threads' values start */
  struct sj_anchor {
    int dim;
    unsigned long terms; /* a hash of the terms (sj_lw_iexpr_terms) */
    long c;
  } anchors[8];
  int nanchors;
  /* the windows of full tiles' spread loops a lowering saw, by block dimension and the terms of
   * their starts: the constants of their least first and greatest last values (lower_full.c);
   * reach, this lowering's, and seen, the kernel's first lowering's: where all of a dimension's
   * windows fit in its threads, the anchor is their least first value (astgen/lower.c) */
  struct sj_reach {
    int dim;
    unsigned long terms;
    long lo, hi;
  } reach[8], seen[8];
  int nreach, nseen;
  int reanchor; /* a window that would take a copy more from its anchor is one */
  int grew;     /* a window took a copy more than it needs */
  /* added to a spread loop's start for the congruence of its values with the thread ids: the
   * origin of a copy whose values are offsets from it (sj_copy.offsets), so that a warp's
   * threads copy elements aligned as their addresses are; none elsewhere */
  sj_ir_val spread_align;
  int spread_dim;  /* the block dimension of the spread loop being lowered (astgen/lower.c) */
  int spread_once; /* and whether each thread runs at most one of its iterations */
  /* level 2: spread loops it unrolled or grouped (lower_full.c), and, plain_spread, none: the
   * kernel lowered again so where those do not fit the registers */
  int grouped, plain_spread;
  /* of them, innermost loops of more than group copies, run as a loop over groups of that many:
   * SJ_LW_GROUP, or more where level 3 is too long (astgen/lower.c) */
  int ngroups;
  long group;
  int rolled;     /* level 2: spread loops kept as loops (level 3 unrolls them, and the groups) */
  int share_near; /* the kernel lowered again so, with sj_ir_func.share_near */
  sj_irb b;       /* the function being built */
  sj_binding *binds; /* loop iterators in scope, innermost last */
  int nbinds, capbinds;
  int free_ids_are_params; /* in a kernel: an unbound id is a host iterator passed in */
  isl_id **host_ids;       /* those ids, in parameter order */
  int nhost_ids;
  const sj_kernel *kernel; /* the GPU kernel being lowered, or NULL */
  /* the statement instance's guard on its write-through (astgen/live_ast.c), or NULL: always
   * written through; store_known: its condition once lowered, 1 or 0 where known for every
   * thread, else -1 and store_ok its predicate (-2: not yet lowered) */
  const struct sj_store_guard *guard;
  int store_known;
  sj_ir_val store_ok;
  int expand_ranges;      /* linear forms see the spread copies' offsets (decide, lower_expr.c) */
  sj_ir_val *staged_base; /* by staged array of the kernel: its shared array, once used */
  /* under a `reduce` mark (GPU): its reductions, and for each its partial (a variable of
   * this thread) and the address of the element it accumulates into (a pointer variable, 0
   * until an instance ran); see astgen/lower_reduce.c */
  const sj_reduce *reduce;
  int *partial, *target;
  /* the statement instance being lowered */
  const sj_pstmt *stmt;
  isl_ast_expr *call; /* borrowed */
  int *local_var;     /* by local id: its variable, 0 until first assigned */
  sj_range *ranges;   /* by statement and iterator: its values over the domain, once asked */
} sj_lower;

typedef void (*sj_lw_fn)(sj_lower *l, __isl_keep isl_ast_node *node);

/* Whether lowering goes on: it failed, or its code is too long and will be dropped. */
static inline int sj_lw_going(const sj_lower *l) {
  return !l->failed && !l->too_big;
}

/* lower_expr.c */
sj_ir_type sj_lw_type(sj_type t);                               /* the IR type of a C type */
sj_ir_val sj_lw_iexpr(sj_lower *l, __isl_keep isl_ast_expr *e); /* an isl integer, S64 */
sj_ir_val sj_lw_icond(sj_lower *l, __isl_keep isl_ast_expr *e); /* an isl condition */
sj_ir_val sj_lw_floor_mod(sj_lower *l, sj_ir_val x, long m);    /* x mod m in 0 .. m - 1 */
/* An isl integer as its terms (the same terms give the same register) and *constant; where key
 * is not NULL, a hash of the terms (FNV-1a, from *key's value). */
sj_ir_val sj_lw_iexpr_terms(sj_lower *l, __isl_keep isl_ast_expr *e, long *constant,
                            unsigned long *key);
/* The first value a thread of id tid takes of a loop from start by step spread over width
 * threads: start + step * r, r in 0 .. width - 1 (into *r) congruent to tid less start (and
 * l->spread_align). */
sj_ir_val sj_lw_spread_first(sj_lower *l, sj_ir_val tid, sj_ir_val start, sj_ir_val step,
                             long width, sj_ir_val *r);
/* The origin along the last dimension of the copy that is body's (a spread loop's body: marks
 * and the copy's inner loops, then the call), where its values are offsets from it; none
 * otherwise. */
sj_ir_val sj_lw_copy_align(sj_lower *l, __isl_keep isl_ast_node *body);
/* one statement instance, node its AST node (its annotation: sj_store_guard) */
/* What a user node's call calls (a statement, a copy, a barrier: sched/sched.h), or NULL. */
const sj_id_kind *sj_lw_callee(__isl_keep isl_ast_expr *call);
void sj_lw_stmt(sj_lower *l, __isl_keep isl_ast_expr *call, __isl_keep isl_ast_node *node);
void sj_lw_copy(sj_lower *l, __isl_keep isl_ast_expr *call, const sj_copy *c); /* one copy */
sj_ir_val sj_lw_id(sj_lower *l, __isl_keep isl_id *id); /* an isl id's value */
/* E of a loop condition `iter <= E` or `iter < E` with E free of iter (*strict for <), or
 * NULL. */
__isl_give isl_ast_expr *sj_lw_upper_bound(__isl_keep isl_ast_expr *cond, __isl_keep isl_id *iter,
                                           int *strict);
/* Whether b - a is a constant, *diff (their terms computed as values where not linear). */
int sj_lw_const_diff(sj_lower *l, __isl_keep isl_ast_expr *a, __isl_keep isl_ast_expr *b,
                     long *diff);
/* Whether e mod m is the same for every value e takes, *r (in 0 .. m - 1). */
int sj_lw_residue(sj_lower *l, __isl_keep isl_ast_expr *e, long m, long *r);
void sj_lw_bind(sj_lower *l, __isl_keep isl_id *id, sj_ir_val val, long offset);
/* The last binding made: a copy of a spread loop whose val is base + r, r in 0 .. span. */
void sj_lw_bind_range(sj_lower *l, __isl_keep isl_ast_expr *base, long base_const, sj_ir_val r,
                      long span);
void sj_lw_unbind(sj_lower *l);
void sj_lw_fail(sj_lower *l, const char *what);
/* How a reduction's terms combine, and its type (its element's). */
sj_ir_op sj_lw_red_op(sj_red_op op);
/* x op identity == x for every x: -0.0 for a float sum (+0.0 would turn a sum of -0.0 into
 * +0.0), NaN for fmin and fmax (which ignore a NaN operand), the extremes for integers. */
sj_ir_val sj_lw_red_identity(sj_red_op op, sj_ir_type t);
sj_ir_type sj_lw_red_type(const sj_reduction *r);

/* lower_full.c: the code of full tiles. unroll_full: a for node of a full tile's code unrolled
 * (threads_dim: the block dimension its iterations are spread over, or -1), 0 when it stays a
 * loop; full_tiles and version: the marks of sched/full_tiles.c (kind: the version mark's
 * dimension, sched.h). */
int sj_lw_unroll_full(sj_lower *l, __isl_keep isl_ast_node *node, int threads_dim, sj_lw_fn body);
void sj_lw_full_tiles(sj_lower *l, __isl_keep isl_ast_node *mark, sj_lw_fn body);
void sj_lw_version(sj_lower *l, __isl_keep isl_ast_node *mark, int kind, sj_lw_fn body);

/* lower_reduce.c: reductions in parallel. start: at the `reduce` mark, the partials and
 * targets (the statements' lowering then accumulates into them); finish: at the end of the
 * kernel, every partial combined across the warp and into its element by one atomic per
 * warp. */
void sj_lw_reduce_start(sj_lower *l, const sj_reduce *red);
void sj_lw_reduce_finish(sj_lower *l);

#endif
