/* The compile pipeline of one kernel: parse, model, dependences, schedule, AST, print,
 * compile; each stage timed. */
#include "jit/jit.h"
#include "jit/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/schedule_node.h>

#include "astgen/astgen.h"
#include "base/buf.h"
#include "base/env.h"
#include "ptx/ptx.h"
#include "sched/affine.h"
#include "sched/sched.h"

/* About 10 s of isl work on a 2020s core (5 to 15 operations per microsecond). The test
 * kernels need at most 0.2 M; a function of 1000 loop nests 25 to 70 M. */
#define SJ_DEFAULT_COMPILE_OPS 100000000ul

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static const char *kind_name(jit_arg_kind k) {
  static const char *names[] = {"JIT_INT", "JIT_LONG", "JIT_FLOAT", "JIT_DOUBLE", "JIT_PTR"};
  return (unsigned)k < 5 ? names[k] : "an unknown kind";
}

jit_arg_kind sj_scalar_kind(sj_type t) {
  switch (t) {
  case SJ_TY_INT:
  case SJ_TY_UINT: /* its bits: JIT_INT(-1) is UINT_MAX, as C converts it */
    return JIT_ARG_INT;
  case SJ_TY_LONG:
  case SJ_TY_ULONG: /* size_t: up to LONG_MAX */
    return JIT_ARG_LONG;
  case SJ_TY_FLOAT:
    return JIT_ARG_FLOAT;
  default:
    return JIT_ARG_DOUBLE;
  }
}

static jit_arg_kind expected_kind(const sj_sym *p) {
  return p->kind == SJ_SYM_ARRAY ? JIT_ARG_PTR : sj_scalar_kind(p->type);
}

/* The element kind of an array of type t. */
static jit_arg_kind elem_kind(sj_type t) {
  switch (t) {
  case SJ_TY_SCHAR:
    return JIT_ELEM_INT8;
  case SJ_TY_UCHAR:
    return JIT_ELEM_UINT8;
  case SJ_TY_SHORT:
    return JIT_ELEM_INT16;
  case SJ_TY_USHORT:
    return JIT_ELEM_UINT16;
  case SJ_TY_UINT:
    return JIT_ELEM_UINT32;
  case SJ_TY_ULONG:
    return JIT_ELEM_UINT64;
  default:
    return sj_scalar_kind(t);
  }
}

size_t jit_elem_size(jit_arg_kind k) {
  static const size_t sizes[] = {4, 8, 4, 8, 0, 0, 0, 1, 1, 2, 2, 4, 8, 1};
  return (unsigned)k < sizeof sizes / sizeof *sizes ? sizes[k] : 0;
}

void sj_param_info(const sj_sym *p, jit_param_info *info) {
  memset(info, 0, sizeof *info);
  info->name = p->name;
  info->kind = expected_kind(p);
  if (p->kind != SJ_SYM_ARRAY) return;
  info->elem_kind = p->is_bool ? JIT_ELEM_BOOL : elem_kind(p->type);
  info->rank = p->rank;
  info->is_const = p->is_const;
  info->open_extent = p->rank > 0 && !p->extents[0];
}

int sj_check_signature(const jit_kernel *k, const jit_arg *args, int nargs, sj_error *err) {
  const sj_func *fn = k->fn;
  if (nargs != fn->nparams || (nargs && !args))
    return sj_error_set(err, JIT_ERR_ARGS, "'%s' takes %d argument%s, %d given%s", fn->name,
                        fn->nparams, fn->nparams == 1 ? "" : "s", nargs,
                        fn->returns ? " (the last, a pointer to one element, receives the value "
                                      "it returns: JIT_PTR(&result))"
                                    : "");
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind != k->kinds[i])
      return sj_error_set(err, JIT_ERR_ARGS, "argument %d of '%s' ('%s') must be %s, not %s", i + 1,
                          fn->name, fn->params[i]->name, kind_name(k->kinds[i]),
                          kind_name(args[i].kind));
    if (fn->params[i]->type == SJ_TY_ULONG && fn->params[i]->kind == SJ_SYM_SHAPE &&
        args[i].v.l < 0)
      return sj_error_set(err, JIT_ERR_ARGS,
                          "argument %d of '%s' ('%s', unsigned long) is %ld: values past "
                          "LONG_MAX are not supported",
                          i + 1, fn->name, fn->params[i]->name, args[i].v.l);
  }
  return 0;
}

long sj_shape_value(const sj_sym *p, const jit_arg *a) {
  if (a->kind == JIT_ARG_LONG) return a->v.l;
  return p->type == SJ_TY_UINT ? (long)(unsigned)a->v.i : a->v.i;
}

/* The functions whose results on a GPU are within bounds rather than bit-identical. */
static void math_note(sj_buf *b, const jit_kernel *k) {
  int any = 0;
  for (int fn = 0; fn < SJ_NFUNCS && k->device != JIT_DEVICE_CPU; fn++)
    if ((k->fn->calls >> fn & 1) && sj_func_inexact_on_gpu(fn))
      sj_buf_printf(b, "%s%s", any++ ? ", " : "math: ", sj_func_name(fn));
  if (any)
    sj_buf_puts(b, ": on a GPU within the ULP bounds of doc/math.md, not bit for bit the C "
                   "library's\n");
}

/* " N=64, M=32": the integer arguments (" no integer arguments" where there is none). */
static void describe_sizes(sj_buf *b, const jit_kernel *k) {
  int any = 0;
  for (int i = 0; i < k->nparams; i++)
    if (k->fn->params[i]->kind == SJ_SYM_SHAPE)
      sj_buf_printf(b, "%s %s=%ld", any++ ? "," : "", k->fn->params[i]->name, k->shape[i]);
  if (!any) sj_buf_puts(b, " no integer arguments");
}

static char *describe(const jit_kernel *k, const sj_model *m, const sj_stencil *st,
                      const sj_plan *plan) {
  sj_buf b = {0};
  static const char *const devices[] = {"auto", "cpu", "emu", "cuda"};
  sj_buf_printf(&b, "kernel '%s' on %s, specialized for", k->fn->name, devices[k->device]);
  describe_sizes(&b, k);
  sj_buf_puts(&b, "\nstatements:\n");
  for (int i = 0; i < m->nstmts; i++) {
    char *dom = isl_set_to_str(m->stmts[i]->domain);
    sj_buf_printf(&b, "  %s (line %d): %s\n", m->stmts[i]->name, m->stmts[i]->body[0]->loc.line,
                  dom);
    free(dom);
  }
  if (m->locals_why) sj_buf_printf(&b, "locals:\n%s", m->locals_why);
  if (m->views_why) sj_buf_printf(&b, "flat arrays seen in rows:\n%s", m->views_why);
  const sj_program *prog = k->program;
  for (int i = 0; i < prog->npragmas; i++)
    sj_buf_printf(&b, "ignored: #pragma %s (line %d)\n", prog->pragmas[i].text,
                  prog->pragmas[i].loc.line);
  math_note(&b, k);
  sj_buf_printf(&b, "%s\n%s", st->why, plan->explain);
  char *tree = isl_schedule_to_str(plan->schedule);
  sj_buf_printf(&b, "schedule tree: %s\n", tree);
  free(tree);
  return sj_buf_take(&b);
}

/* The isl operations one compile may use: jit_options.max_compile_ops, else
 * $JIT_MAX_COMPILE_OPS, else the default. Every compile has an isl_ctx of its own, so the
 * count starts at zero. */
static unsigned long compile_budget(const jit_context *ctx, const char **from) {
  *from = "jit_options.max_compile_ops";
  if (ctx->opts.max_compile_ops) return ctx->opts.max_compile_ops;
  const char *env = getenv("JIT_MAX_COMPILE_OPS");
  char *end;
  unsigned long v = env && *env ? strtoul(env, &end, 10) : 0;
  *from = "JIT_MAX_COMPILE_OPS";
  if (v && !*end) return v;
  *from = "the default";
  return SJ_DEFAULT_COMPILE_OPS;
}

static __isl_give isl_ctx *new_isl_ctx(unsigned long budget) {
  isl_ctx *ictx = isl_ctx_alloc();
  if (!ictx) return NULL;
  isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
  /* tile loops count tiles and point loops start at 0: what the schedulers expect */
  isl_options_set_tile_scale_tile_loops(ictx, 0);
  isl_options_set_tile_shift_point_loops(ictx, 1);
  isl_ctx_set_max_operations(ictx, budget);
  return ictx;
}

static __isl_give isl_ctx *budgeted_ctx(const jit_context *ctx, unsigned long *budget,
                                        const char **from) {
  *budget = compile_budget(ctx, from);
  return new_isl_ctx(*budget);
}

/* What a compile reads of its context, taken when it starts under the calls lock: the second
 * tier's compile runs on the tier thread while options may change. */
static void take_settings(jit_kernel *k) {
  const jit_context *ctx = k->ctx;
  sj_settings *s = &k->settings;
  s->source_name = ctx->source_name ? strdup(ctx->source_name) : NULL;
  s->tile = ctx->tile ? strdup(ctx->tile) : NULL;
  s->nthreads = sj_pool_size(ctx->pool);
  s->tiling = ctx->tiling;
  s->fast_math = ctx->opts.fast_math;
  s->reassociate = sj_reassociates(ctx);
  s->budget = compile_budget(ctx, &s->budget_from);
}

/* Whatever a stage made of isl's refusal, a compile that ran out of its budget is refused
 * as such: the message names the limit and how to raise it. */
static int over_budget(isl_ctx *ictx, const jit_kernel *k, unsigned long budget, const char *from,
                       sj_error *err) {
  if (isl_ctx_last_error(ictx) != isl_error_quota) return 0;
  return sj_error_at(err, JIT_ERR_LIMIT, k->settings.source_name, k->fn->loc,
                     "compiling '%s' for these arguments needs more than %lu isl operations "
                     "(the limit from %s); raise jit_options.max_compile_ops or set "
                     "JIT_MAX_COMPILE_OPS, or split the function",
                     k->fn->name, budget, from);
}

/* A stage may have taken a failed isl operation for an answer: never keep that code. */
static int isl_verdict(isl_ctx *ictx, const jit_kernel *k, int rc, sj_error *err) {
  if (over_budget(ictx, k, k->settings.budget, k->settings.budget_from, err)) return JIT_ERR_LIMIT;
  if (isl_ctx_last_error(ictx) == isl_error_alloc) /* whatever a stage made of it */
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory in isl while compiling '%s'",
                        k->fn->name);
  if (!rc && isl_ctx_last_error(ictx) != isl_error_none)
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed while compiling '%s' (error %d)",
                        k->fn->name, (int)isl_ctx_last_error(ictx));
  return rc;
}

/* The exact dependences, for explanations only: they cost more than the whole compile, so
 * they are computed from the kept program and shape when first asked for, within a time
 * budget (a few seconds for heat-3d at 40^3 under ASan; minutes for some nests). The budget
 * leaves a wide margin: isl leaks a few bytes when it is stopped in the middle, and at 10 s
 * heat-3d's explanation at 256^3 (tests/vectorize_test.c) hit it under ASan on a machine
 * loaded 6 times over its cores. */
#define EXPLAIN_DEPS_MS 30000
char *sj_explain_dependences(const jit_kernel *k) {
  sj_buf b = {0};
  const char *wanted = getenv("JIT_EXPLAIN_DEPS");
  if (wanted && !strcmp(wanted, "0")) { /* a tool that reads many explanations, not these */
    sj_buf_puts(&b, "exact dependences: not computed (JIT_EXPLAIN_DEPS=0)\n");
    return sj_buf_take(&b);
  }
  sj_error err = {0, {0}};
  unsigned long budget;
  const char *from;
  isl_ctx *ictx = budgeted_ctx(k->ctx, &budget, &from);
  sj_watchdog *dog = ictx ? sj_watchdog_start(ictx, EXPLAIN_DEPS_MS) : NULL;
  sj_model *m = NULL;
  int rc = !ictx ? sj_error_set(&err, JIT_ERR_NOMEM, "isl could not start")
           : sj_model_build(ictx, k->fn, k->shape, k->ctx->source_name, &m, &err)
               ? err.status
               : sj_model_exact_dependences(m, &err);
  if (sj_watchdog_stop(dog) && rc)
    sj_error_set(&err, JIT_ERR_LIMIT, "isl stopped after %d ms (the time budget of an explanation)",
                 EXPLAIN_DEPS_MS);
  else if (rc)
    over_budget(ictx, k, budget, from, &err);
  if (rc) {
    sj_buf_printf(&b, "exact dependences: not available (%s)\n", err.msg);
  } else {
    const char *names[] = {"flow", "anti", "output"};
    isl_union_map *maps[] = {m->dep_flow, m->dep_anti, m->dep_output};
    for (int i = 0; i < 3; i++) {
      char *text = isl_union_map_to_str(maps[i]);
      sj_buf_printf(&b, "exact %s dependences: %s\n", names[i], text);
      free(text);
    }
  }
  sj_model_free(m);
  isl_ctx_free(ictx);
  return sj_buf_take(&b);
}

/* Parameter descriptions with element counts from the model's extents for this shape. */
static void describe_params(jit_kernel *k, const sj_model *m) {
  const sj_func *fn = k->fn;
  for (int i = 0; i < fn->nparams; i++) {
    const sj_sym *p = fn->params[i];
    jit_param_info *info = &k->params[i];
    sj_param_info(p, info);
    if (p->kind != SJ_SYM_ARRAY) continue;
    size_t elems = 1;
    for (int d = 0; d < p->rank; d++) elems *= (size_t)m->extents[p->id][d];
    info->elems = elems;
    k->first_extent[i] = m->extents[p->id][0];
    k->bytes[i] = elems * (size_t)sj_type_size(p->type);
  }
}

/* The bytes of each array of a local kept in memory. */
static int temp_sizes(jit_kernel *k, const sj_model *m, sj_error *err) {
  k->ntemps = m->ntemps;
  k->temp_bytes = calloc((size_t)m->ntemps + 1, sizeof *k->temp_bytes);
  if (!k->temp_bytes) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  for (int t = 0; t < m->ntemps; t++) {
    const sj_sym *a = m->temps[t];
    size_t bytes = (size_t)sj_type_size(a->type);
    for (int d = 0; d < a->rank; d++) bytes *= (size_t)m->extents[a->id][d];
    k->temp_bytes[t] = bytes;
  }
  return 0;
}

/* The IR of the schedule's AST, optimized: the GPU host and kernels. */
static int lower(jit_kernel *k, const sj_model *m, __isl_keep isl_ast_node *ast, sj_error *err) {
  int rc = sj_lower_gpu(m, ast, k->settings.fast_math, &k->ir, err);
  for (int i = 0; !rc && i < k->ir->nfuncs; i++) sj_ir_optimize(k->ir->funcs[i]);
  return rc;
}

/* Prints the code: PTX and the host loop. */
static int print_code(jit_kernel *k, sj_error *err) {
  k->host_code = sj_print_c(k->ir);
  const sj_cuda_props *props = sj_cuda_get_props(k->ctx->cuda);
  return sj_print_ptx(k->ir, props->ptx_version, props->ptx_target, &k->ptx, err);
}

static void mark_writes(const sj_stmt *st, int *written) {
  if (!st) return;
  if (st->lhs && st->lhs->kind == SJ_E_INDEX && st->lhs->sym->kind == SJ_SYM_ARRAY)
    written[st->lhs->sym->id] = 1;
  for (int i = 0; i < st->nbody; i++) mark_writes(st->body[i], written);
}

/* Time tiling is for the second tier: TinyCC's scalar code is bound by its arithmetic, not
 * by memory, and the tiled AST costs more to build than TinyCC to compile. */
static void cpu_options(const jit_kernel *k, int second, sj_cpu_options *o) {
  o->nthreads = k->settings.nthreads;
  o->tiling = (sj_tiling)k->settings.tiling;
  if (o->tiling == SJ_TILING_HYBRID || o->tiling == SJ_TILING_SPLIT) o->tiling = SJ_TILING_TIME;
  o->tile = k->settings.tile;
  o->why_not = "JIT_TILING=none";
  if (!second && o->tiling == SJ_TILING_AUTO) {
    o->tiling = SJ_TILING_NONE;
    o->why_not = "the first tier (TinyCC's scalar code is bound by its arithmetic, not by "
                 "memory); the second tier is time-tiled where that pays";
  }
}

/* The device as the GPU schedules see it: the driver's attributes, an H100's figures for those
 * it does not report. */
static void gpu_device(const sj_cuda_props *p, sj_gpu_device *d) {
  sj_gpu_device_h100(d);
  for (int i = 0; i < 3; i++) d->max_grid[i] = (unsigned)p->max_grid[i];
  d->sms = p->multiprocessors;
  d->threads_per_block = p->max_threads_per_block;
  /* the opt-in maximum: kernels that stage more than 48 KB use dynamic shared memory */
  d->shared_per_block = p->shared_per_block_optin > p->shared_per_block ? p->shared_per_block_optin
                                                                        : p->shared_per_block;
  d->shared_reserved = p->shared_reserved;
  if (p->threads_per_sm > 0) d->threads_per_sm = p->threads_per_sm;
  if (p->blocks_per_sm > 0) d->blocks_per_sm = p->blocks_per_sm;
  if (p->shared_per_sm > 0) d->shared_per_sm = p->shared_per_sm;
  if (p->l2_bytes > 0) d->l2_bytes = p->l2_bytes;
  if (p->clock_khz > 0) d->clock_hz = p->clock_khz * 1e3;
  if (p->mem_clock_khz > 0 && p->bus_bits > 0) /* double data rate */
    d->dram_bw = 2.0 * p->mem_clock_khz * 1e3 * (p->bus_bits / 8.0);
}

/* The scheduler of the parts of a model (sched/parts.c) on the kernel's device. */
typedef struct part_device {
  const jit_kernel *k;
  int second;
  sj_gpu_device gpu;
} part_device;

static int schedule_part(sj_model *part, const sj_stencil *st, int untiled, void *user,
                         sj_plan *plan, sj_error *err) {
  const part_device *d = user;
  if (d->k->device == JIT_DEVICE_CPU) {
    sj_cpu_options o;
    cpu_options(d->k, d->second, &o);
    if (untiled) {
      o.tiling = SJ_TILING_NONE;
      o.why_not = "runs between time-tiled parts";
    }
    return sj_schedule_cpu(part, st, &o, plan, err);
  }
  if (untiled) return sj_schedule_untiled(part, st, d->gpu.max_grid, plan, err);
  return sj_schedule_gpu(part, st, (sj_tiling)d->k->settings.tiling, d->k->settings.tile, &d->gpu,
                         plan, err);
}

/* The schedule of m: of the whole, or of its parts where the whole is no stencil but a part
 * is time-tiled. */
static int schedule(jit_kernel *k, int second, sj_model *m, const sj_stencil *st, sj_plan *plan,
                    sj_error *err) {
  part_device d;
  memset(&d, 0, sizeof d);
  d.k = k;
  d.second = second;
  if (k->device != JIT_DEVICE_CPU) gpu_device(sj_cuda_get_props(k->ctx->cuda), &d.gpu);
  sj_tiling tiling = (sj_tiling)k->settings.tiling;
  if (k->device == JIT_DEVICE_CPU) {
    sj_cpu_options o;
    cpu_options(k, second, &o);
    tiling = o.tiling;
  }
  int forced = k->device != JIT_DEVICE_CPU && tiling != SJ_TILING_AUTO && tiling != SJ_TILING_NONE;
  int rc = st->is_stencil || tiling == SJ_TILING_NONE
               ? -1
               : sj_schedule_parts(m, schedule_part, &d, forced, plan, err);
  return rc < 0 ? schedule_part(m, st, 0, &d, plan, err) : rc;
}

/* The asserts of the function (sj_func.asserts) for the sizes of this call: one that fails,
 * or that C could not evaluate (a division by zero), fails the call before anything runs. */
static int check_asserts(const jit_kernel *k, sj_error *err) {
  for (int i = 0; i < k->fn->nasserts; i++) {
    const sj_assert *a = &k->fn->asserts[i];
    long v;
    if (!sj_const_value(a->cond, k->shape, &v) && v) continue;
    sj_buf b = {0};
    describe_sizes(&b, k);
    int rc =
        sj_error_at(err, JIT_ERR_ARGS, k->settings.source_name, a->loc, "%s for these arguments:%s",
                    a->what ? a->what : "assertion fails", b.data ? b.data : "");
    free(b.data);
    return rc;
  }
  return 0;
}

/* Model, schedule, AST and code of one tier: the first (TinyCC's, or the GPU's), or the
 * second (the system compiler's: c_code2, schedule2, tiles2), which is not compiled here. */
static int build(jit_kernel *k, isl_ctx *ictx, int second, jit_stage_times *t, sj_error *err) {
  double t0 = now_us();
  sj_model *m = NULL;
  int rc = sj_model_build(ictx, k->fn, k->shape, k->settings.source_name, &m, err);
  double t1 = now_us();
  t->model = t1 - t0;
  if (rc) return rc;
  if (t == &k->times) { /* the compile the caller waits for */
    describe_params(k, m);
    rc = temp_sizes(k, m, err);
    if (rc) {
      sj_model_free(m);
      return rc;
    }
  }
  rc = sj_model_dependences(m, err);
  double t2 = now_us();
  t->dependences = t2 - t1;
  sj_stencil st;
  sj_plan plan;
  int cpu = k->device == JIT_DEVICE_CPU;
  if (!rc) {
    sj_stencil_recognize(m, &st);
    m->reassociate = k->settings.reassociate;
    rc = schedule(k, second, m, &st, &plan, err);
    if (rc) sj_stencil_clear(&st);
  }
  double t3 = now_us();
  t->schedule = t3 - t2;
  if (rc) {
    sj_model_free(m);
    return rc;
  }
  isl_ast_node *ast = sj_ast_generate(plan.schedule);
  double t4 = now_us();
  t->ast = t4 - t3;
  if (!ast) rc = sj_error_set(err, JIT_ERR_INTERNAL, "isl could not generate the AST");
  if (!rc) rc = cpu ? sj_cpu_lower(k, m, ast, second, err) : lower(k, m, ast, err);
  if (!rc && !cpu) rc = print_code(k, err);
  if (!rc) {
    if (cpu) (second ? &k->tier2 : &k->tier1)->nthreads = plan.nthreads;
    *(second ? &k->ntiles2 : &k->ntiles) = plan.ntiles;
    *(second ? &k->tiles2 : &k->tiles) = plan.tile;
    plan.tile = NULL;
    *(second ? &k->schedule2 : &k->schedule) = describe(k, m, &st, &plan);
  }
  double t5 = now_us();
  t->print = t5 - t4;
  if (!rc && sj_env_flag("JIT_DEBUG")) /* before compiling it */
    fprintf(stderr, "[stenciljit] %s[stenciljit] generated code:\n%s%s%s",
            second ? k->schedule2 : k->schedule, cpu ? (second ? k->c_code2 : k->c_code) : k->ptx,
            "", k->host_code ? k->host_code : "");
  if (!rc && !second) rc = cpu ? sj_cpu_compile(k, err) : sj_gpu_build(k, err);
  if (!rc && !cpu && k->ir->ntraps) {
    k->traps = malloc((size_t)k->ir->ntraps * sizeof *k->traps);
    if (!k->traps)
      rc = sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    else
      memcpy(k->traps, k->ir->traps, (size_t)k->ir->ntraps * sizeof *k->traps);
    k->ntraps = k->traps ? k->ir->ntraps : 0;
  }
  sj_ir_module_free(k->ir); /* what runs need was copied */
  k->ir = NULL;
  t->compile = now_us() - t5;
  isl_ast_node_free(ast);
  sj_plan_clear(&plan);
  sj_stencil_clear(&st);
  sj_model_free(m);
  return rc;
}

/* The second tier's C, on the tier thread (sj_tier_later): a compile of its own. */
static int second_tier(jit_kernel *k, sj_error *err) {
  isl_ctx *ictx = new_isl_ctx(k->settings.budget);
  jit_stage_times times;
  int rc = ictx ? build(k, ictx, 1, &times, err)
                : sj_error_set(err, JIT_ERR_NOMEM, "isl could not start");
  if (ictx) rc = isl_verdict(ictx, k, rc, err);
  isl_ctx_free(ictx);
  return rc;
}

int sj_compile(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
               int nargs, jit_kernel **out, sj_error *err) {
  double start = now_us();
  *out = NULL;
  if (!source) return sj_error_set(err, JIT_ERR_ARGS, "source is NULL");
  jit_kernel *k = calloc(1, sizeof *k);
  k->ctx = ctx;
  k->refs = 1;
  k->device = ctx->device;
  take_settings(k);
  k->program = sj_parse_for(source, ctx->source_name, entry, err);
  if (k->program) { /* the AST the model reads: values named by locals and windows spelled out */
    sj_scalar_cells(k->program);
    sj_fold_const_locals(k->program);
    sj_if_convert(k->program);
    sj_unroll_windows(k->program);
  }
  k->fn = k->program ? sj_program_entry(k->program, entry, err) : NULL;
  k->times.parse = now_us() - start;
  if (!k->fn) {
    sj_kernel_free(k);
    return err->status;
  }
  int n = k->nparams = k->fn->nparams;
  k->kinds = calloc(n + 1, sizeof *k->kinds);
  k->shape = calloc(n + 1, sizeof *k->shape);
  k->params = calloc(n + 1, sizeof *k->params);
  k->bytes = calloc(n + 1, sizeof *k->bytes);
  k->first_extent = calloc(n + 1, sizeof *k->first_extent);
  for (int i = 0; i < n; i++) {
    const sj_sym *p = k->fn->params[i];
    k->kinds[i] = expected_kind(p);
    if (p->kind == SJ_SYM_ARRAY) k->narrays++;
    if (p->kind == SJ_SYM_SCALAR) k->nscalars++;
  }
  int rc = sj_check_signature(k, args, nargs, err);
  for (int i = 0; !rc && i < n; i++)
    k->shape[i] =
        k->fn->params[i]->kind == SJ_SYM_SHAPE ? sj_shape_value(k->fn->params[i], &args[i]) : 0;
  if (!rc) /* the sizes tell more subscripts apart */
    sj_forward_values(k->program->arena, k->fn, k->shape);
  if (!rc) rc = check_asserts(k, err);
  if (!rc) {
    k->key = sj_call_key(ctx, source, entry, args, nargs, NULL);
    k->written = calloc((size_t)k->fn->narrays + 1, sizeof *k->written);
    mark_writes(k->fn->body, k->written);
    /* JIT_TIER=cc: the second tier alone, compiled now */
    int only_second = k->device == JIT_DEVICE_CPU && ctx->tiers.policy == SJ_POLICY_CC;
    isl_ctx *ictx = new_isl_ctx(k->settings.budget);
    rc = ictx ? build(k, ictx, only_second, &k->times, err)
              : sj_error_set(err, JIT_ERR_NOMEM, "isl could not start");
    if (ictx) rc = isl_verdict(ictx, k, rc, err);
    isl_ctx_free(ictx);
    double t0 = now_us();
    if (!rc && only_second) rc = sj_tier_now(k, err);
    k->times.compile += now_us() - t0;
  }
  k->times.total = now_us() - start;
  if (rc) {
    sj_kernel_free(k);
    return rc;
  }
  if (sj_env_flag("JIT_DEBUG")) {
    char *deps = sj_explain_dependences(k);
    fprintf(stderr, "[stenciljit] %s", deps);
    free(deps);
  }
  if (k->device == JIT_DEVICE_CPU && ctx->tiers.policy == SJ_POLICY_AUTO && sj_cc_path(NULL))
    sj_tier_later(k, second_tier);
  *out = k;
  return 0;
}

void sj_kernel_free(jit_kernel *k) {
  if (!k) return;
  sj_gpu_release(k);
  sj_tcc_free(k->code);
  sj_cc_free(k->obj);
  free(k->tier1.traps);
  free(k->tier2.traps);
  free(k->c_code2);
  free(k->schedule2);
  free(k->tiles2);
  free(k->deps);
  free(k->settings.source_name);
  free(k->settings.tile);
  for (int i = 0; i < SJ_TIER_NSTATES; i++) free(k->shown[i]);
  free(k->key);
  free(k->c_code);
  free(k->schedule);
  free(k->kinds);
  free(k->shape);
  free(k->params);
  free(k->bytes);
  free(k->first_extent);
  free(k->tiles);
  free(k->written);
  free(k->temp_bytes);
  sj_ir_module_free(k->ir);
  free(k->traps);
  sj_program_free(k->program);
  free(k);
}
