/* Building IR: instructions appended where the builder stands, with constant folding and
 * value numbering, so that equal computations in one region share one register. Internal
 * to astgen/. */
#ifndef SJ_IRBUILD_H
#define SJ_IRBUILD_H

#include "astgen/ir.h"

typedef struct sj_vn_entry sj_vn_entry;

typedef struct sj_irb {
  sj_ir_func *f;
  sj_ir_block *cur;     /* where instructions go */
  sj_ir_block prologue; /* parameters, array bases, special values: before everything */
  int depth;            /* loops around cur */
  /* value numbering: entries in a stack of scopes, chained per hash bucket */
  sj_vn_entry *vn;
  int nvn, capvn;
  int *buckets;
  /* memory versions: a load matches only a load of the same version of its array */
  int *epoch; /* by array id */
  int narrays;
  int world; /* bumped by barriers and loops: every array changes */
  /* the value numbers of the loads since, each dropped when a store may write its element */
  int *loads, nloads, caploads;
  /* by register: a S64 value made as base + offset (base a value or a loop's iterator; 0:
   * none), so that sums of sums and their minimums and maximums fold */
  int *lin_base;
  long *lin_off;
  int caplin;
  /* prologue values, made once */
  int *param_reg, nparam_reg; /* by parameter position */
  int special[8];
} sj_irb;

void sj_irb_init(sj_irb *b, sj_ir_func *f, int narrays);
/* Puts the prologue in front of the body and frees the builder. */
void sj_irb_finish(sj_irb *b);

/* Scopes: values made after sj_irb_scope are forgotten by sj_irb_unscope. */
int sj_irb_scope(const sj_irb *b);
void sj_irb_unscope(sj_irb *b, int mark);

sj_ir_val sj_irb_op(sj_irb *b, sj_ir_op op, sj_ir_type type, sj_ir_val x, sj_ir_val y);
sj_ir_val sj_irb_op3(sj_irb *b, sj_ir_op op, sj_ir_type type, sj_ir_val x, sj_ir_val y,
                     sj_ir_val z);
/* Fast-math f32 division: approximate. */
sj_ir_val sj_irb_approx_div(sj_irb *b, sj_ir_val x, sj_ir_val y);
sj_ir_val sj_irb_setp(sj_irb *b, sj_ir_cmp cmp, sj_ir_val x, sj_ir_val y);
/* Math function m of x (and y for two arguments, else a SJ_V_NONE value). */
sj_ir_val sj_irb_math(sj_irb *b, sj_ir_math m, sj_ir_type t, sj_ir_val x, sj_ir_val y);
sj_ir_val sj_irb_cvt(sj_irb *b, sj_ir_type to, sj_ir_val x);
sj_ir_val sj_irb_ptradd(sj_irb *b, sj_ir_val ptr, sj_ir_val index);
sj_ir_val sj_irb_load(sj_irb *b, sj_ir_val ptr, long offset);
void sj_irb_store(sj_irb *b, sj_ir_val ptr, long offset, sj_ir_val value);
void sj_irb_barrier(sj_irb *b);
/* A variable of type (not value-numbered) and an assignment to it. */
int sj_irb_var(sj_irb *b, sj_ir_type type, const char *name);
void sj_irb_assign(sj_irb *b, int var, sj_ir_val value);
/* A raw instruction appended as is (no numbering). */
sj_ir_ins *sj_irb_emit(sj_irb *b, sj_ir_op op, sj_ir_type type);

/* Prologue values: the parameter at position pos of the function (arrays: a pointer to
 * their first element), and special values. */
sj_ir_val sj_irb_param(sj_irb *b, int pos);
/* A pointer to the start of the function's shared array index (in the prologue), the staged
 * copy of the model's array (or -1: an array of its own). The shared arrays do not overlap. */
sj_ir_val sj_irb_shared(sj_irb *b, int index, int array);
sj_ir_val sj_irb_special(sj_irb *b, sj_ir_special which);

/* Control: loop and if nodes appended where the builder stands; the builder moves into
 * their blocks with sj_irb_enter and back with sj_irb_leave. */
sj_ir_node *sj_irb_loop(sj_irb *b, sj_ir_val init, sj_ir_val step);
sj_ir_node *sj_irb_if(sj_irb *b, sj_ir_val cond);
typedef struct sj_irb_pos {
  sj_ir_block *block;
  int scope, depth;
} sj_irb_pos;
sj_irb_pos sj_irb_enter(sj_irb *b, sj_ir_block *block, int loop);
void sj_irb_leave(sj_irb *b, sj_irb_pos pos);

#endif
