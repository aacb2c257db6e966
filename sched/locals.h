/* Local variables that outlive one statement (sched/locals.c): what sched/model.c records
 * of each use while it builds the statements, and the promotion of those locals to arrays
 * of their own. Internal to sched/. */
#ifndef SJ_LOCALS_H
#define SJ_LOCALS_H

#include "sched/sched.h"

/* One use of a local in a statement: a read or write of a scalar or of a local array's
 * element, or the declaration with an initializer (a write). */
typedef struct sj_site {
  sj_pstmt *stmt;
  const sj_sym *sym;  /* the local */
  const void *node;   /* the SJ_E_VAR or SJ_E_INDEX node, or the SJ_S_DECL statement */
  const sj_expr *ref; /* the node as an expression; NULL for a declaration */
  int is_write;
  int order;           /* evaluation order inside one instance of the statement */
  isl_set *guard;      /* owned: the instances where it happens; NULL for all */
  const sj_expr *repl; /* out: the element of the local's array it becomes, or NULL */
} sj_site;

/* Decides which locals stay private to a statement instance (registers: every use in one
 * statement, the first a write) and turns the others into arrays of their own: a scalar
 * becomes one array per web of its values (reads and the writes that reach them), expanded
 * along the enclosing loops no value crosses (so that their iterations stay independent), a
 * local array one array, expanded along the loops around its declaration. Sets m->temps,
 * their extents, the table sj_model_replaced reads and m->locals_why, and repl of every
 * site of a promoted local. decl[id]: the statement that declares local id. A jit_status. */
int sj_locals_promote(sj_model *m, sj_site *sites, int n, sj_pstmt *const *decl, sj_error *err);

/* A reference and the element that replaces it, as sj_model_replaced finds them. */
typedef struct sj_replaced {
  const void *node;
  const sj_expr *repl;
} sj_replaced;

/* A node of nargs arguments in m's arena, for the references that replace others. */
sj_expr *sj_model_expr(sj_model *m, sj_expr_kind kind, sj_type type, sj_loc loc, int nargs);

/* Adds n pairs to the table of m's replaced references. 0, or -1 out of memory. */
int sj_model_add_replaced(sj_model *m, const sj_replaced *pairs, int n);

#endif
