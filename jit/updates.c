/* The work of one run: statement instances, counted by isl on the model for the kernel's
 * shape (isl counts whole rows at once, so 10^9 instances take about 0.1 s). For reports
 * of throughput, not for the compile: the model is built again when asked. */
#include "jit/jit.h"

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/val.h>

#include "sched/sched.h"

long long jit_kernel_updates(const jit_kernel *k) {
  if (!k) return -1;
  sj_error err = {0, {0}};
  sj_model *m = NULL;
  long long total = -1;
  isl_ctx *ictx = isl_ctx_alloc();
  isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
  pthread_rwlock_rdlock(&k->ctx->calls); /* the source name */
  int rc = sj_model_build(ictx, k->fn, k->shape, k->ctx->source_name, &m, &err);
  pthread_rwlock_unlock(&k->ctx->calls);
  if (rc == 0) {
    total = 0;
    for (int i = 0; i < m->nstmts && total >= 0; i++) {
      isl_val *n = isl_set_count_val(m->stmts[i]->domain);
      total = n && isl_val_is_int(n) ? total + isl_val_get_num_si(n) : -1;
      isl_val_free(n);
    }
  }
  sj_model_free(m);
  isl_ctx_free(ictx);
  return total;
}
