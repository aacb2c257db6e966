/* What the files of the public API share about a context: its last error. */
#include "jit/jit.h"

#include <stdio.h>

void sj_context_fail(jit_context *ctx, const sj_error *err) {
  pthread_mutex_lock(&ctx->lock);
  snprintf(ctx->error, sizeof ctx->error, "%s", err->msg);
  pthread_mutex_unlock(&ctx->lock);
}
