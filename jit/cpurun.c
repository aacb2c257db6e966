/* Runs of CPU kernels on the thread pool. A kernel whose checks can fail (integer division
 * by a value that may be zero) runs on copies of the arrays it writes, which replace the
 * caller's only when no check failed: a failed run leaves the caller's memory untouched. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

typedef struct run_job {
  sj_cpu_fn fn;
  void **arrays;
  const double *scalars;
  int error;
} run_job;

static void run_thread(void *arg, int tid, int nth, void *bar) {
  run_job *j = arg;
  j->fn(j->arrays, j->scalars, tid, nth, bar, &j->error);
}

static int trap_error(const jit_kernel *k, const sj_trap *traps, int ntraps, int code,
                      sj_error *err) {
  if (code < 1 || code > ntraps)
    return sj_error_set(err, JIT_ERR_INTERNAL, "the kernel failed with unknown code %d", code);
  const sj_trap *t = &traps[code - 1];
  return sj_error_at(err, JIT_ERR_ARGS, k->ctx->source_name, t->loc,
                     "%s for these arguments; no array was changed",
                     t->kind == SJ_TRAP_SHIFT
                         ? "shift count negative or not below the width of the shifted type"
                         : "integer division by zero (or of the smallest value by -1)");
}

int sj_trap_error(const jit_kernel *k, int code, sj_error *err) {
  return trap_error(k, k->traps, k->ntraps, code, err);
}

int sj_cpu_run_kernel(jit_kernel *k, void **arrays, const double *scalars, sj_error *err) {
  sj_tiers_revive(&k->ctx->tiers); /* a forked child's kernels still reach tier 2 */
  /* one tier for the whole run: the tier thread may swap it meanwhile */
  const sj_cpu_code *code = __atomic_load_n(&k->running, __ATOMIC_ACQUIRE);
  int checked = code->ntraps > 0, na = k->fn->narrays, nt = k->ntemps;
  void *copies[na + 1];
  size_t bytes[na + 1];
  memset(copies, 0, sizeof copies);
  for (int p = 0; p < k->fn->nparams; p++)
    if (k->fn->params[p]->kind == SJ_SYM_ARRAY) bytes[k->fn->params[p]->id] = k->bytes[p];
  int rc = 0;
  void *run_arrays[na + nt + 1];
  memset(run_arrays, 0, sizeof run_arrays);
  for (int a = 0; a < na; a++) {
    run_arrays[a] = arrays[a];
    if (!checked || !k->written[a] || !bytes[a]) continue;
    copies[a] = malloc(bytes[a]);
    if (!copies[a]) {
      rc = sj_error_set(err, JIT_ERR_NOMEM, "out of memory for a copy of %zu bytes", bytes[a]);
      break;
    }
    memcpy(copies[a], arrays[a], bytes[a]);
    run_arrays[a] = copies[a];
  }
  for (int t = 0; t < nt && !rc; t++) /* the locals kept in memory: this run's own */
    if (!(run_arrays[na + t] = calloc(1, k->temp_bytes[t] ? k->temp_bytes[t] : 1)))
      rc = sj_error_set(err, JIT_ERR_NOMEM, "out of memory for %zu bytes of locals",
                        k->temp_bytes[t]);
  run_job job = {code->fn, run_arrays, scalars, 0};
  if (!rc) {
    if (code->nthreads > 1)
      sj_pool_run(k->ctx->pool, run_thread, &job);
    else
      run_thread(&job, 0, 1, NULL);
    if (job.error) rc = trap_error(k, code->traps, code->ntraps, job.error, err);
  }
  for (int a = 0; a < na; a++) {
    if (copies[a] && !rc) memcpy(arrays[a], copies[a], bytes[a]);
    free(copies[a]);
  }
  for (int t = 0; t < nt; t++) free(run_arrays[na + t]);
  return rc;
}
