/* What the files of the public API share about errors: the context's last one and this
 * thread's. */
#include "jit/jit.h"

#include <stdio.h>

__thread char sj_last_error[1024];

const char *jit_last_error(void) {
  return sj_last_error;
}

/* Every failure is this thread's last error too: the context's message is shared by the
 * threads that use it, this one is not. */
void sj_context_fail(jit_context *ctx, const sj_error *err) {
  snprintf(sj_last_error, sizeof sj_last_error, "%s", err->msg);
  if (!ctx) return;
  pthread_mutex_lock(&ctx->lock);
  snprintf(ctx->error, sizeof ctx->error, "%s", err->msg);
  pthread_mutex_unlock(&ctx->lock);
}
