/* sched/: the polyhedral model of one function specialized for its shape values, its
 * dependences, and the schedules the backends run.
 *
 * Ownership follows isl: fields of the structs below are owned by the struct that holds
 * them; functions say __isl_give / __isl_take / __isl_keep where objects cross. */
#ifndef SJ_SCHED_H
#define SJ_SCHED_H

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/union_set.h>
#include <isl/union_map.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>

#include "base/ast.h"
#include "base/buf.h"

/* What the user data of an isl_id made here is: each such struct starts with this tag.
 * Ids without user data are isl's own (loop iterators) or name arrays. */
typedef enum sj_id_kind {
  SJ_ID_STMT = 1,   /* a statement of the C function: sj_pstmt */
  SJ_ID_KERNEL,     /* mark: the subtree is one GPU kernel (sj_kernel) */
  SJ_ID_PARALLEL,   /* mark: the loop below is spread over the CPU workers */
  SJ_ID_THREADS,    /* mark: the band below is mapped to GPU threads */
  SJ_ID_BLOCK,      /* parameter: a block id (sj_mapped_id) */
  SJ_ID_THREAD,     /* parameter: a thread id (sj_mapped_id) */
  SJ_ID_SYNC,       /* statement: a barrier of the GPU block (extension node) */
  SJ_ID_COPY,       /* statement: a copy from global to shared memory (sj_copy) */
  SJ_ID_SPREAD_END, /* mark: right below a `parallel` or `spread` mark's band, so that when isl
                       drops that band's loop (one iteration) no inner loop takes its place
                       under it */
  /* mark: below it, the reductions of an sj_reduce accumulate in registers and are combined
   * once per warp (GPU, reassociation allowed) */
  SJ_ID_REDUCE,
  SJ_ID_SPREAD, /* mark (sj_mapped_id): the GPU loop below is spread over the threads of one
                   block dimension, each taking the iterations congruent to its id */
  /* mark: the sequence below holds two versions of the same instances of a block's tile, the
   * code for a full tile (its loops of constant trip counts, to unroll) and the code for any
   * tile, each below an SJ_ID_VERSION mark; a thread runs the second only where it ran no part
   * of the first (sched/full_tiles.c) */
  SJ_ID_FULL,
  /* mark (sj_mapped_id): dim 1, the full tiles' version; 0, any tile's; 2, loops whose bounds
   * lie in windows of constant size (a box copied to shared memory, a tile's steps and their
   * points where the instances may cut them), to unroll with a guard where cut */
  SJ_ID_VERSION,
  /* mark (sj_live): statement instances of the time-tiled kernel below whose results only
   * their own tile reads (sched/liveout.c): the global stores of their staged results are dead */
  SJ_ID_LIVE,
  /* annotation of a statement's AST node (sj_store_guard, astgen/live_ast.c): where its staged
   * results are written through to global memory */
  SJ_ID_STORE_GUARD,
  /* parameter (sj_mapped_id): the tile of block id 0 along a grid dimension of a time-tiled
   * kernel, a function of its launch (sj_kernel.first) that the host computes */
  SJ_ID_FIRST,
  /* annotation of a kernel mark's AST node (sj_param_exprs, astgen/astgen.h): the values of
   * its SJ_ID_FIRST parameters */
  SJ_ID_FIRST_EXPRS,
  /* parameter (sj_mapped_id, dim: an array dimension): a copy's origin along it, which bounds
   * the loops of its elements to the array (sj_copy.clamp) */
  SJ_ID_ORIGIN,
  /* mark in the AST (sj_param_exprs, astgen/build.c): the values of the SJ_ID_ORIGIN
   * parameters of a copy's loops below it */
  SJ_ID_ORIGIN_EXPRS
} sj_id_kind;

typedef struct sj_live {
  sj_id_kind tag;       /* SJ_ID_LIVE */
  isl_union_set *local; /* tiled instances S[x, L, p, T, S..] */
} sj_live;

typedef struct sj_mapped_id {
  sj_id_kind tag;
  int dim;  /* 0: x, 1: y, 2: z */
  int once; /* a `spread` mark: its loop has at most as many iterations as threads */
} sj_mapped_id;

/* The user data of the block and thread ids and of the other tags without data. */
extern const sj_mapped_id sj_block_ids[3], sj_thread_ids[3], sj_spread_ids[3],
    sj_spread_once_ids[3], sj_version_ids[3], sj_first_ids[3];
extern const sj_id_kind sj_parallel_tag, sj_threads_tag, sj_sync_tag, sj_spread_end_tag,
    sj_full_tag;

/* One polyhedral statement: a maximal run of straight-line assignments and declarations
 * of one block. Locals used only in the run, and written there before they are read, are
 * private to each instance, so the run is one instance of the statement; other locals live
 * in arrays of their own (sched/locals.c). C order inside the run is kept by printing it
 * whole. The statement's tuple id carries it as user data. */
typedef struct sj_pstmt {
  sj_id_kind tag; /* SJ_ID_STMT */
  int id;         /* S<id> */
  char name[16];
  int depth;      /* number of enclosing loops */
  sj_sym **iters; /* enclosing iterators, outermost first */
  sj_stmt **body;
  int nbody;
  isl_set *domain; /* owned */
  /* owned, NULL until sj_model_dependences: this statement's accesses */
  isl_union_map *reads, *writes;
} sj_pstmt;

/* One array reference of a statement, for error messages and bounds checks. */
typedef struct sj_access {
  sj_pstmt *stmt;
  const sj_expr *ref; /* the SJ_E_INDEX node (of a local: the element that replaces it) */
  int is_write;
  isl_map *rel; /* owned; statement instance -> array element */
  int again;    /* rel is an earlier access's (the same reference again in its statement) */
} sj_access;

typedef struct sj_model {
  isl_ctx *ctx; /* borrowed: the caller owns the isl_ctx and frees it after the model */
  const sj_func *fn;
  const char *source_name;
  const long *shape; /* value of each integer parameter, indexed by parameter position */
  long **extents;    /* per array (sym->id, temporaries included): its extents for this shape */
  /* Locals that outlive a statement instance, in arrays of their own after the parameters'
   * (ids fn->narrays ..): scalars (rank 0, or expanded along loops), local arrays. */
  int ntemps;
  sj_sym **temps;  /* the symbols in arena */
  sj_arena *arena; /* owned: temporaries and the expressions that address them */
  /* owned, sorted by node: the element the generated code uses instead of a reference (a
   * local's in memory, a flat array's in its view), read by sj_model_replaced */
  int nreplaced;
  struct sj_replaced *replaced;
  char *locals_why; /* owned: what became of them, for the explanation; or NULL */
  /* owned, or NULL: per parameter array (sym->id < fn->narrays), the extents of the rows a
   * flat array's accesses are seen in (sched/view.c), NULL for the others; and what the
   * explanation says of them. The declared extents stay in extents: they are what the caller
   * passes. */
  long **views;
  char *views_why;
  /* owned, or NULL: the iterator of the one-point loop a statement directly in a time loop
   * gets (sched/model.c) */
  sj_sym *point;
  int nstmts;
  sj_pstmt **stmts;
  int naccesses;
  sj_access *accesses;    /* one by reference and use: a use of a local's value again (x * x with
                           * x = A[i]) shares the relation of the one before it */
  isl_union_set *domain;  /* owned: all statement instances */
  isl_union_map *reads;   /* owned */
  isl_union_map *writes;  /* owned: every write is a must-write in this subset */
  isl_schedule *original; /* owned: the order of the C function */
  /* owned, exact (value-based) relations: NULL until sj_model_exact_dependences */
  isl_union_map *dep_flow, *dep_anti, *dep_output;
  int max_depth;
  /* set by sj_stencil_recognize: no two instances of one (folded) time step conflict, so
   * every loop below schedule depth 0 is parallel */
  int stencil;
  /* set by the caller before scheduling: reductions may be reassociated (jit_options
   * reassociate or fast_math), so the GPU mapping may run them in parallel */
  int reassociate;
  /* The schedules of the function body's top-level statements in C order (owned; none when
   * the body is one statement), and the first statement id of each (nparts + 1 entries): a
   * part's statements have consecutive ids. */
  int nparts;
  isl_schedule **parts;
  int *part_first;
  /* set in a part (sj_model_part): the model it is part of, which owns all it shares */
  const struct sj_model *whole;
} sj_model;

/* Builds domains, accesses and the original schedule; checks that every access stays in the
 * declared extents for these shape values. Returns a jit_status; on failure *out is NULL. */
int sj_model_build(isl_ctx *ctx, const sj_func *fn, const long *shape, const char *source_name,
                   sj_model **out, sj_error *err);
/* Indexes the accesses by statement for sj_model_conflicts. */
int sj_model_dependences(sj_model *m, sj_error *err);
/* The conflicts among the instances of among: every pair touching one element, at least one
 * writing, in both orders (an instance conflicts with itself when it reads what it writes).
 * The memory-based dependences are these pairs in original order; the exact ones a subset.
 * Composed from the accesses of the statements among names only: the relation of the whole
 * model has a map per pair of statements sharing an array, quadratic in their number, so
 * no stage builds it unless it asks for m->domain. NULL when isl fails. */
__isl_give isl_union_map *sj_model_conflicts(const sj_model *m, __isl_keep isl_union_set *among);
/* The statement whose instances set holds (tuple S<id>), or NULL. */
sj_pstmt *sj_model_stmt(const sj_model *m, __isl_keep isl_set *set);
/* The element the generated code reads or writes instead of node, or NULL where node stays:
 * for a use of a local kept in memory (its SJ_E_VAR or SJ_E_INDEX node, or its SJ_S_DECL
 * statement with an initializer), the element of its temporary array (an SJ_E_INDEX of a
 * symbol in m->temps); for an element of a flat array seen in rows, the element of the view
 * (an SJ_E_INDEX of a symbol with the array's id and the view's rank); NULL for a local
 * private to its statement instance. */
const sj_expr *sj_model_replaced(const sj_model *m, const void *node);
/* The extents the model's accesses of array id index: a flat array's view, or its declared
 * extents. */
const long *sj_model_extents(const sj_model *m, int id);
/* Sees each flat parameter array (A[i * M + j]) whose every access reads as an element of
 * row-major rows (A[i][j] of A[..][M]), subscripts in range, through those rows: its accesses'
 * references and relations become the view's (sched/view.c). 0, or a jit_status. */
int sj_model_view_flat(sj_model *m, sj_error *err);
/* The exact flow, anti and output dependences from isl's access-info API. */
int sj_model_exact_dependences(sj_model *m, sj_error *err);
/* The same for reads and writes in the order given, into dep[0] (flow), dep[1] (anti) and
 * dep[2] (output), which the caller frees: 0, or -1 when isl fails (then all NULL). By
 * reference: a statement's many reads of an array analysed one by one (sched/deps.c), the
 * same relations in fewer isl operations where they are many. */
int sj_exact_dependences(__isl_keep isl_union_map *reads, __isl_keep isl_union_map *writes,
                         __isl_keep isl_schedule *order, int by_reference, isl_union_map **dep);
void sj_model_free(sj_model *m);
/* Parts first..first+n-1 of m (their statements, accesses and schedule) as a model of their own
 * that shares m's statements, arrays and locals; m outlives it. NULL when out of memory. The
 * dependences are the part's own: what it reads of earlier parts comes from memory. */
sj_model *sj_model_part(const sj_model *m, int first, int n);
/* The number of statement ids (S0..): a part's statements keep the whole model's ids. */
int sj_model_nids(const sj_model *m);

/* parallel[k] = whether band member k is parallel: every conflict not separated by the
 * schedule outside band nor by the members before k has distance 0 along k. One pass over
 * the conflicts for the whole band, none in stencil form. 0 on success. */
int sj_band_parallel(const sj_model *m, __isl_keep isl_schedule_node *band, int *parallel);

/* Smallest and largest value of band member over the instances below band (lo > hi when
 * there are none); 0 on success. */
int sj_member_range(__isl_keep isl_schedule_node *band, int member, long *lo, long *hi);
int sj_set_dim_range(__isl_keep isl_set *set, int pos, long *lo, long *hi);
/* The time steps of a statement's instances domain (their first iterator), as an anonymous
 * 1-D set. */
__isl_give isl_set *sj_steps_of(__isl_keep isl_set *domain);
/* The integer affine function aff of its first ncoords inputs into row (the constant, then a
 * coefficient each: sj_staged's origin), or -1 where it has divisions or a denominator. */
int sj_aff_row(__isl_keep isl_aff *aff, int ncoords, long *row);

/* The stencil form (seed digest 1): an outer loop carrying every dependence over k >= 1
 * levels of nests whose loops are all parallel. Folding puts level i of time step t at k*t + i
 * (nests that touch nothing in common in a step share a level). */
typedef struct sj_stencil {
  int is_stencil;
  int nests;             /* k, the levels */
  int step_nests;        /* the nests of a step */
  int *launch;           /* malloc'd, by statement id: the per-step mapping's launch of a step
                          * that runs the statement, where nests share launches (they touch
                          * nothing in common in a step) and every statement has a place
                          * (sj_place_of); else NULL: a launch per nest */
  int launches;          /* the launches of a step where launch is set */
  const sj_sym *time;    /* the outer loop's iterator */
  isl_union_map *folded; /* owned: S[t, s..] -> [k*t + i, s..] */
  char *why;             /* malloc'd: why the kernel is or is not in stencil form */
} sj_stencil;
int sj_stencil_recognize(sj_model *m, sj_stencil *out);
void sj_stencil_clear(sj_stencil *s);

/* Where the time tilings put a statement's instances in the space [s0, .., sn] of a stencil
 * with n + 1 space dimensions (sched/place.c): along dimension f, loop dim_of[f] of the
 * statement (1 the first after time) where that is >= 1, else the constant cst[f]. */
enum { SJ_PLACE_MAX = 4 };
typedef struct sj_place {
  int dim_of[SJ_PLACE_MAX];
  long cst[SJ_PLACE_MAX];
} sj_place;
/* A statement with every space loop sits at its loops. One with fewer (or whose only loop is
 * the one point of an assignment directly in the time loop: a 1-D source) sits where it reads a
 * value that a statement before it computed in the same step (a boundary column
 * A[(t + 1) % 2][i][M - 1] = A[(t + 1) % 2][i][M - 2] at (i, M - 2)), where that read is each
 * loop or a constant along the space dimensions. Else it sits where it writes, where its write
 * says so (a source A[N / 2][M / 2] at that point): its dependences on the others then reach as
 * far as theirs. Where its writes do not say one (S[i] += A[t % 2][i][1]),
 * it sits where its first read that says one reads. Else its loops are the innermost
 * dimensions and it sits at 0 along the others. -1 where n + 1 is above SJ_PLACE_MAX or the
 * statement has more loops. */
int sj_place_of(const sj_model *m, const sj_pstmt *s, int n, sj_place *out);
/* That place as a function S -> [s0, .., sn]; NULL where it has none. */
__isl_give isl_multi_aff *sj_place_aff(const sj_model *m, const sj_pstmt *s, int n);

/* An array a kernel stages in its block's shared memory (sched/stage.c): the box of what a
 * tile touches, size[d] elements along dimension d from an origin that moves with the tile.
 * Along d the origin is origin[d][0] + sum over k of origin[d][1 + k] * c_k, where c is the
 * tile coordinates (L, S0, .., Sn) of the instance (sched/hybrid.h): a statement's follow its
 * own coordinates and p, T; a copy's come first. */
enum { SJ_STAGE_MAX_RANK = 4, SJ_STAGE_COEFS = 5 };
/* The staged arrays lie in the block's dynamic shared memory one after the other, each at a
 * multiple of SJ_SHARED_ALIGN bytes (as ptx/ lays them out: sj_ptx_shared_offset); more than
 * SJ_SHARED_STATIC bytes (every kernel's without opting in) and the kernel opts in. */
enum { SJ_SHARED_ALIGN = 16, SJ_SHARED_STATIC = 48 * 1024 };
/* The bytes an array of `bytes` takes there. */
static inline long sj_shared_bytes(long bytes) {
  return (bytes + SJ_SHARED_ALIGN - 1) / SJ_SHARED_ALIGN * SJ_SHARED_ALIGN;
}
typedef struct sj_staged {
  int array; /* the model's array id */
  int rank;
  int ncoords; /* n + 2 */
  long size[SJ_STAGE_MAX_RANK];
  long origin[SJ_STAGE_MAX_RANK][SJ_STAGE_COEFS];
} sj_staged;

/* The most statements of a kernel's unrolled code (astgen/lower.c unrolls less beyond, and the
 * tile search takes no taller band than fits): about what keeps it within the instruction
 * cache. Copies to shared memory do not count. */
#define SJ_UNROLL_MAX_STMTS 256

/* The registers per thread a kernel with unrolled full tiles may use: astgen/lower.c gives it
 * to ptxas as .maxnreg, and the tile model bounds its register estimate with it. */
#define SJ_UNROLL_MAX_REGS 128

/* A copy statement: its instances copy[L, S0, .., Sn, a0, .., a(rank-1)] copy element a of
 * the kernel's staged array `staged` from global to shared memory. Where `mod` is not 0, a0
 * is a time step t and the element's plane (a double buffer's t % 2) is (t + shift) mod mod
 * (sched/flow_in.c). Where `offsets` is set, a is an offset from `origin` (affine in L, S0, ..
 * as sj_staged's): the element (or step) is a plus the origin. With `clip`, only the elements
 * in the array are copied. Offsets keep the copy's loops free of the tile's position (constant
 * bounds), which is what makes them cheap for isl's AST generator. Where the offsets are the
 * same for every tile, the schedule has one instance copy[L, S0, .., Sn] per tile and
 * `elements` the copy's loops over a (copy[a0, ..]: marks and bands as a copy of its own): the
 * AST generator builds them apart, outside the kernel's context, where each band of the
 * kernel's tree cost it as much as a loop of the tile's (astgen/build.c). */
typedef struct sj_copy {
  sj_id_kind tag; /* SJ_ID_COPY */
  int staged;
  int mod, shift;
  int offsets, clip;
  /* isl found no element of the copy past the end of a flat array whose view's last row is
   * partial (sched/flow_in.c): its elements need no test against the array's end */
  int within;
  /* the dimensions (a mask) along which the loops of `elements` keep to the array, bounded by
   * the copy's origin there (parameters sj_origin_ids[d]): the elements need no test there */
  int clamp;
  long origin[SJ_STAGE_MAX_RANK][SJ_STAGE_COEFS];
  isl_schedule *elements; /* owned by the statement's id; NULL: a in the instance */
} sj_copy;
extern const sj_mapped_id sj_origin_ids[SJ_STAGE_MAX_RANK];
/* Whether a window of size elements from the origin o (sj_copy.origin[d]: affine in ncoords
 * tile coordinates) may leave the array's extent ext for some tile. */
static inline int sj_window_may_leave(const long *o, int ncoords, long size, long ext) {
  for (int k = 0; k < ncoords; k++)
    if (o[1 + k]) return 1;
  return o[0] < 0 || o[0] + size > ext;
}
/* The parameter sj_origin_ids[d]. */
__isl_give isl_id *sj_origin_id(isl_ctx *ctx, int d);

/* A GPU kernel: the user data of its kernel mark (freed with the mark's id). */
typedef struct sj_kernel {
  sj_id_kind tag; /* SJ_ID_KERNEL */
  int id;
  unsigned grid[3], block[3];
  char why[256]; /* for the explanation */
  /* its partial tiles' version (sj_full_versions) unrolled too where the kernel fits: split
   * tiles, cut along whole faces by the instances (astgen/lower.c) */
  int unroll_partial;
  /* a step's points along y and z go to the threads in blocks of consecutive ones, which read
   * each other's neighbours (astgen/lower_full.c): split tiles, whose rows change by the
   * cone's slope from step to step. A hybrid tile's rows change in number, and a thread's
   * block with them: each size its own addresses (fdtd-2d ran 4% more instructions). */
  int blocked_rows;
  int nstaged;
  sj_staged *staged; /* malloc'd, freed with the kernel */
  /* where not NULL, grid dimension d's block id 0 is the tile first[d](L) of launch L (the
   * host loop, a time tiling's wavefront): the parameter sj_first_ids[d]; owned */
  isl_aff *first[3];
} sj_kernel;

/* What a schedule decided, for jit_kernel_schedule() and jit_kernel_tile_sizes(). */
typedef struct sj_plan {
  isl_schedule *schedule; /* owned */
  int nthreads;           /* CPU: threads the schedule was made for */
  int ntiles;
  int *tile;     /* malloc'd */
  char *explain; /* malloc'd text */
  int nkernels;
  int time_tiled; /* some time loop is tiled */
} sj_plan;

/* --- GPU mappings (sched/gpu_map.c) --- */
/* Puts k on a kernel mark above node (the mark's id owns k). */
__isl_give isl_schedule_node *sj_mark_kernel(__isl_take isl_schedule_node *node, sj_kernel *k);
/* Each instance's coordinate at position from_end counted from the end (1: the last), on the
 * whole space of each set of dom: schedules and filters made of it carry no copy of dom (which
 * costs the AST generator in every set it derives from them). */
__isl_give isl_union_pw_aff *sj_coordinate(__isl_keep isl_union_set *dom, int from_end);
/* The instances where v - offset - id (a block or thread id, v taken modulo mod when mod is
 * not 0) is 0. */
__isl_give isl_union_set *sj_bound_to(__isl_take isl_union_pw_aff *v, long offset, long mod,
                                      __isl_take isl_id *id);
/* The instances where v is the tile of block id dim of kernel k: v - lo - id, or where
 * k->first[dim] is set, v - sj_first_ids[dim] - id, is 0. */
__isl_give isl_union_set *sj_bound_block(__isl_take isl_union_pw_aff *v, long lo,
                                         const sj_kernel *k, int dim);
/* The parameter sj_first_ids[dim]. */
__isl_give isl_id *sj_first_id(isl_ctx *ctx, int dim);
/* The block (thread = 0) or thread id of dimension dim (0: x). */
__isl_give isl_id *sj_map_id(isl_ctx *ctx, int thread, int dim);
__isl_give isl_id *sj_id_owning(isl_ctx *ctx, const char *name, void *user,
                                void (*free_user)(void *user));
/* 0 <= block id < grid and 0 <= thread id < block for the n dimensions dim[], as the
 * context of a node at schedule depth depth (a set of its outer schedule dimensions). */
__isl_give isl_set *sj_id_bounds(isl_ctx *ctx, int depth, int n, const int *dim,
                                 const unsigned *grid, const unsigned *block);
/* Inserts at node (below a kernel mark) the kernel's context: its block ids bounded, and the
 * thread ids that filters below bind, bounded by a context just above each such filter (where
 * the block has more than one thread): isl then carries them only through the loops below it,
 * not through every set of the kernel, and no id the kernel never names (heat-3d hybrid: AST
 * generation 150 -> 83 ms, the same AST). Returns the context node. */
__isl_give isl_schedule_node *sj_insert_kernel_context(__isl_take isl_schedule_node *node, int n,
                                                       const int *dim, const unsigned *grid,
                                                       const unsigned *block);
/* Replaces the band of nm parallel members by the binding of its points to blocks and
 * threads: member k's value is lo[k] + tile[k] * block id + thread id of dim[k], and along
 * x each thread takes `points` values a block width apart, a filter each in a sequence.
 * Returns the filter in the band's place: filter - threads mark - [sequence] - child. */
__isl_give isl_schedule_node *sj_bind_points(__isl_take isl_schedule_node *band, int nm,
                                             const long *lo, const long *tile, const int *dim,
                                             const unsigned *block, int points);

/* Records a tile size in the plan. */
void sj_plan_add_tile(sj_plan *plan, long size);

/* Shifts every member k of band by -lo[k]: its values start at 0 (tiles at the bounds). */
__isl_give isl_schedule_node *sj_band_start_at(__isl_take isl_schedule_node *band, const long *lo);
/* Replaces each child of node by fn(user, child), which must return the node at the
 * child's position; returns node. */
__isl_give isl_schedule_node *
sj_each_child(__isl_take isl_schedule_node *node,
              __isl_give isl_schedule_node *(*fn)(void *user, __isl_take isl_schedule_node *child),
              void *user);

/* Tiles band by size (one per member; tile loops count tiles, point loops start at 0) and
 * returns the point band. */
__isl_give isl_schedule_node *sj_tile(__isl_take isl_schedule_node *band, const long *size);

/* Time tiling: whether to, and its sizes ($JIT_TILING, and JIT_TILE's syntax:
 * "h=H,w=W0xW1..." or "none"). */
/* HYBRID and SPLIT name the GPU's tiles (sched/gpu_choice.c); on the CPU they are TIME. */
typedef enum sj_tiling {
  SJ_TILING_AUTO,
  SJ_TILING_TIME,
  SJ_TILING_NONE,
  SJ_TILING_HYBRID,
  SJ_TILING_SPLIT
} sj_tiling;
typedef struct sj_tile_spec {
  int off; /* "none" */
  long h;  /* 0: chosen */
  int nw;  /* widths given, outermost first */
  long w[3];
} sj_tile_spec;
/* 0, or -1 with why (cap bytes) saying what is wrong. */
int sj_tile_spec_parse(const char *s, sj_tile_spec *out, char *why, size_t cap);

typedef struct sj_cpu_options {
  int nthreads;
  sj_tiling tiling;
  const char *tile;    /* JIT_TILE's syntax, or NULL */
  const char *why_not; /* tiling NONE: why, for the explanation */
} sj_cpu_options;

/* CPU schedule: a stencil time-tiled when that is legal and pays (sched/cpu_tiled.c); else
 * the original order with the outermost parallel loops of every nest tiled, and the tile
 * loop marked for distribution over the threads. */
int sj_schedule_cpu(sj_model *m, const sj_stencil *st, const sj_cpu_options *o, sj_plan *plan,
                    sj_error *err);
/* The time-tiled schedule into plan (schedule, tiles: h, then the width of each space
 * dimension) with its lines of explanation: 0; or 1, with why it was not (why); isl's
 * failures are declines too. Spends at most its own budget of isl operations. */
int sj_schedule_cpu_tiled(sj_model *m, const sj_stencil *st, const sj_cpu_options *o, sj_plan *plan,
                          sj_buf *explain, sj_buf *why);
/* Whether the time-tiled schedule s runs every conflict of the stencil after its source
 * (composed through the whole schedule: for tests); 1 yes, 0 no, -1 when isl fails. */
int sj_cpu_tiled_check(const sj_model *m, const sj_stencil *st, __isl_keep isl_schedule *s);
void sj_plan_clear(sj_plan *plan);

/* A device's scheduler of one part of a model (sched/parts.c): the time-tiled schedule where
 * st is a stencil and tiling pays, else the untiled one (always that one when untiled is set). */
typedef int (*sj_part_scheduler)(sj_model *part, const sj_stencil *st, int untiled, void *user,
                                 sj_plan *plan, sj_error *err);
/* For a model whose body is not in stencil form as a whole: each top-level part that is a time
 * loop in stencil form scheduled by fn on its own, the runs of other parts between them
 * together, one after another. 0 with plan set when some part is time-tiled, or when forced
 * (time tiling forced) and a time loop accepted it without being tiled (no steps); -1 (plan
 * untouched) otherwise, or the jit_status of a part's refusal when no part is tiled. */
int sj_schedule_parts(sj_model *m, sj_part_scheduler fn, void *user, int forced, sj_plan *plan,
                      sj_error *err);

/* The untiled GPU schedule (sched/gpu.c): the C order for a stencil (a launch per nest and time
 * step), or where nests share launches (st->launch) a launch per group of them; otherwise the C
 * order or isl's schedule, whichever the time model of sj_map_gpu finds faster. st: the model's
 * stencil form, or NULL. max_grid: the device's grid limit per dimension. */
int sj_schedule_untiled(sj_model *m, const sj_stencil *st, const unsigned max_grid[3],
                        sj_plan *plan, sj_error *err);

/* What the GPU schedules need to know of the device (from the driver's attributes; the
 * tile model's inputs, sched/tile_model.h). */
typedef struct sj_gpu_device {
  unsigned max_grid[3];
  int sms; /* multiprocessors */
  int threads_per_block, threads_per_sm, blocks_per_sm;
  long shared_per_block; /* shared memory a block may use, bytes: the opt-in maximum (kernels
                            that stage more than 48 KB use dynamic shared memory) */
  long shared_per_sm;
  long shared_reserved; /* of shared_per_sm, what the system takes per resident block */
  long l2_bytes;
  double dram_bw;  /* bytes per second */
  double clock_hz; /* multiprocessor clock */
} sj_gpu_device;
/* An H100 SXM's figures: for what the driver does not tell. */
void sj_gpu_device_h100(sj_gpu_device *d);

/* The GPU schedule (sched/gpu_choice.c). tiling AUTO: the per-step mapping, hybrid or split
 * tiles, whichever the tile model (sched/tile_model.h) finds fastest on dev; HYBRID or SPLIT
 * (TIME: the faster of the two) forces time tiling and fails with JIT_ERR_UNSUPPORTED where
 * it is illegal for the kernel; NONE: sj_schedule_untiled. tile: sizes in JIT_TILE's syntax
 * or NULL (then the model chooses them). */
int sj_schedule_gpu(sj_model *m, const sj_stencil *st, sj_tiling tiling, const char *tile,
                    const sj_gpu_device *dev, sj_plan *plan, sj_error *err);

/* The GPU mapping of a tree (sched/baseline.c, PPCG's default for stencils): host loops
 * outside, one kernel per parallel band and launch, the parallel loops tiled into blocks of
 * threads with the coalesced member on x, several points per thread unrolled; a nest with
 * no parallel loop is a kernel of one thread. coincident: the tree is isl's scheduler's,
 * whose coincidence flags tell the parallel members (else they are computed). *cost: the
 * modeled time of the kernels, to compare trees. */
int sj_map_gpu(sj_model *m, __isl_take isl_schedule *schedule, int coincident,
               const unsigned max_grid[3], sj_plan *plan, double *cost, sj_error *err);

/* Kernel shapes (sched/gpu_shape.c). dim[k]: the block/thread dimension of member k of the
 * nm parallel members of band: x for the member along which the accesses below step through
 * contiguous elements (ties: the innermost), then the others from the inside out. 0 on
 * success, JIT_ERR_NOMEM out of memory, -1 when isl fails. */
int sj_gpu_dims(const sj_model *m, __isl_keep isl_schedule_node *band, int nm, int *dim);
/* Threads per block and points per thread along x for the parallel extents ext[d] (by
 * dimension, x first): blocks of up to 256 threads shrink, down to one warp, until the grid
 * has enough blocks to fill a GPU. */
void sj_gpu_block_shape(int nm, const long *ext, unsigned *block, int *ppt);
/* The same with x at least a warp wide (so that a warp never spans two values of y or z). */
void sj_gpu_block_shape_warp_x(int nm, const long *ext, unsigned *block, int *ppt);

/* isl's scheduler (sched/reorder.c) on the exact dependences: up to SJ_REORDER_MAX
 * schedules (isl's options for outer parallelism, for deep bands, and with statements split
 * where they read what they write through another iterator), each with wavefronts where a
 * permutable band has no parallel member; label[i] (malloc'd) says which and what was done.
 * The dependences and each run have a budget of isl operations (at most a 16th of the
 * compile's) and stop at deadline (a time of sj_clock_ms): when they give up, the compile
 * goes on without them. Says in note why there is none. Returns the number of schedules in
 * out. */
#define SJ_REORDER_MAX 3
/* CPU time for isl's scheduler in one compile, in milliseconds: the dependences it needs,
 * its runs and the GPU mapping of its trees (sched/gpu.c). Ordinary kernels need under a
 * tenth of it (a hundredth, mostly), pathological ones minutes */
#define SJ_REORDER_MS 2000
/* beyond this many statements the scheduler is not tried: its cost grows with the square
 * of the number of dependence relations */
#define SJ_REORDER_MAX_STMTS 40
struct sj_buf;
int sj_schedule_reorder(sj_model *m, double deadline, isl_schedule **out, char **label,
                        struct sj_buf *note);

/* A deadline for isl (sched/watchdog.c): after ms milliseconds of the calling thread's CPU
 * time (the same decisions on a loaded machine as on an idle one; 4 or 10 times that in a
 * sanitizer's build), isl_ctx_abort on ctx, whose computations then fail (isl_ctx_aborted
 * tells). sj_watchdog_stop (before ctx is freed) returns whether it fired, and leaves ctx
 * computing again, without the abort's error. NULL when no thread could be started: then
 * nothing is bounded. */
typedef struct sj_watchdog sj_watchdog;
sj_watchdog *sj_watchdog_start(isl_ctx *ctx, long ms);
int sj_watchdog_stop(sj_watchdog *w);
/* The calling thread's CPU clock in milliseconds, for deadlines. */
double sj_clock_ms(void);

/* Reductions (sched/reduce.c): assignments x[f] = x[f] op e (op associative and commutative,
 * f not involving a loop) whose accumulated elements nothing else touches in one run of
 * that loop. Appends "x over loop 'j' (S1)" for each, comma-separated, to note; 0 on
 * success. Exact mode keeps their order; the list explains where reassociation would
 * apply. */
int sj_reductions_explain(const sj_model *m, struct sj_buf *note);

/* How a reduction combines: x + e (x - e is x + (-e)), x * e, fmin(x, e), fmax(x, e), the
 * integers' x & e, x | e, x ^ e; SET: x = g ? K : x with K a constant (a flag: `if (d > tol)
 * changed = 1;`), which every instance under its guard sets alike. */
typedef enum sj_red_op {
  SJ_RED_ADD,
  SJ_RED_MUL,
  SJ_RED_MIN,
  SJ_RED_MAX,
  SJ_RED_AND,
  SJ_RED_OR,
  SJ_RED_XOR,
  SJ_RED_SET
} sj_red_op;

/* One reduction: assignment body of stmt, x[f] = x[f] op e, accumulating over loop `loop`
 * (an index into stmt->iters). */
typedef struct sj_reduction {
  const sj_pstmt *stmt;
  int body; /* index into stmt->body */
  int loop; /* the loop it accumulates over */
  sj_red_op op;
  int negate;                    /* x - e: the terms are -e */
  int operand;                   /* which argument of acc is e (the other reads x[f]) */
  const sj_access *write, *read; /* of x[f] */
  /* x[f] op e: the right-hand side, or its branch where the assignment is under a guard that
   * does not read x (x[f] = g ? x[f] op e : x[f], as data ifs become; guard_else: the other
   * way round), whose other branch reads x[f] through keep */
  const sj_expr *acc, *guard;
  int guard_else;
  const sj_access *keep;
  /* a maximum (minimum) written as a choice, x[f] = e > x[f] ? e : x[f] (>=, <, <=: the
   * sj_binop): the element is replaced only where the test holds, so it stays where it is NaN
   * (and on a tie, for > and <); 0 for fmax (fmin), which keeps the element where e is larger
   * or NaN. acc is then the choice, keep the test's read of x[f] */
  int chosen;
} sj_reduction;

/* Every reduction of the model, one per (statement, assignment, loop), in statement order:
 * *out is malloc'd (NULL when there is none). 0 on success, -1 when isl fails,
 * JIT_ERR_NOMEM out of memory. */
int sj_reductions_find(const sj_model *m, sj_reduction **out, int *n);
/* Keeps of r[0 .. *n) those that give the same bits in any order: integer accumulators (+,
 * * wrap modulo 2^n; min and max choose one of the values). */
void sj_reductions_exact(sj_reduction *r, int *n);

/* The user data of a `reduce` mark (freed with its id): the reductions whose assignments,
 * under the mark, accumulate into a private partial per thread, combined once per warp
 * (every lane of a warp accumulates into the same element: sj_reduce_uniform). */
typedef struct sj_reduce {
  sj_id_kind tag; /* SJ_ID_REDUCE */
  int n;
  sj_reduction *r; /* owned */
} sj_reduce;

/* Whether every instance of r's statement below band that agrees with another on the
 * prefix schedule and on every member of band but member x writes the same element (the
 * lanes and points of one warp, whose only difference is x, share a target): 1 yes, 0 no,
 * -1 when isl fails. */
int sj_reduce_uniform(__isl_keep isl_schedule_node *band, int x, const sj_reduction *r);

/* Like sj_band_parallel, with the conflicts between the accumulations of the reductions red
 * (their read and write of x[f], among themselves) ignored: the members along which only
 * reductions accumulate come out parallel too. */
int sj_band_parallel_reduced(const sj_model *m, __isl_keep isl_schedule_node *band,
                             const sj_reduction *red, int nred, int *parallel);

#endif
