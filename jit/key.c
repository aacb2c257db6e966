/* The key of a call: the whole normalized call description (library version, device,
 * options, entry, argument kinds, integer values, source without comments and with runs of
 * blanks collapsed). The in-memory cache compares it byte for byte; the on-disk cache adds
 * what else its artifacts depend on. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/env.h"

static int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Comments removed, blank runs collapsed to one space: edits to layout or comments keep
 * the kernel; any change to the tokens makes a new one. Runs on every call: a plain loop. */
static void normalize(sj_buf *b, const char *s) {
  size_t n = strlen(s);
  sj_buf_reserve(b, n + 1);
  char *out = b->data + b->len;
  int blank = 0;
  while (*s) {
    if (s[0] == '/' && s[1] == '/') {
      while (*s && *s != '\n') s++;
      blank = 1;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *end = strstr(s + 2, "*/");
      s = end ? end + 2 : s + strlen(s);
      blank = 1;
    } else if (is_blank(*s)) {
      s++;
      blank = 1;
    } else {
      if (blank && out != b->data) *out++ = ' ';
      blank = 0;
      *out++ = *s++;
    }
  }
  *out = 0;
  b->len = (size_t)(out - b->data);
}

int sj_reassociates(const jit_context *ctx) {
  return ctx->opts.reassociate || ctx->opts.fast_math || sj_env_flag("JIT_REASSOCIATE");
}

char *sj_call_key(const jit_context *ctx, const char *source, const char *entry,
                  const jit_arg *args, int nargs, size_t *len) {
  sj_buf b = {0};
  sj_buf_printf(&b,
                "stenciljit %s|dev %d|fast %d|reassoc %d|threads %d|tiling %d|tile %s|entry %s|",
                SJ_VERSION, ctx->device, ctx->opts.fast_math, sj_reassociates(ctx),
                ctx->opts.threads, ctx->tiling, ctx->tile ? ctx->tile : "", entry ? entry : "");
  /* read by sched/ from the environment */
  const char *check = getenv("JIT_CHECK_TILES"), *stage = getenv("JIT_STAGE");
  const char *live = getenv("JIT_LIVEOUT"), *flow = getenv("JIT_FLOWIN");
  sj_buf_printf(&b, "check tiles %s|stage %s|liveout %s|flowin %s|", check ? check : "",
                stage ? stage : "", live ? live : "", flow ? flow : "");
  for (int i = 0; i < nargs; i++) {
    if (args[i].kind == JIT_ARG_INT)
      sj_buf_printf(&b, "i%d,", args[i].v.i);
    else if (args[i].kind == JIT_ARG_LONG)
      sj_buf_printf(&b, "l%ld,", args[i].v.l);
    else
      sj_buf_printf(&b, "k%d,", (int)args[i].kind);
  }
  sj_buf_puts(&b, "|");
  normalize(&b, source);
  if (len) *len = b.len;
  return sj_buf_take(&b);
}
