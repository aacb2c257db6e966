/* The reference path: the user's function compiled by TinyCC as written and called through
 * libffi with the caller's arguments.
 *
 * TinyCC runs here without system headers and does not accept variably modified parameters
 * (float A[2][N][M]), so the text is adjusted, keeping every line where it was: the entry's
 * array parameters get the extents of this call as constants, and so do the variably modified
 * types of the functions it calls (their extents as the calls give them, the same at every
 * call); the functions it does not call are blanked;
 * a `static` or `inline` before the entry goes, so that it can be found; #include and #pragma
 * lines go (the parser skipped them too), and in front of line 1 (renumbered) come the
 * declarations that <math.h> and <stdint.h> would give: every math function of the subset
 * with its prototype (else C would call it as returning int), and the fixed-width types the
 * source uses, and memcpy, memmove and memset; and the macros of the standard headers it includes
 * (FLT_MAX, INT_MAX, M_PI: jit/macro.c). */
#include "jit/jit.h"
#include "jit/macro.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "sched/affine.h"

static size_t offset_of(const char *src, sj_loc loc) {
  size_t off = 0;
  for (int line = 1; line < loc.line && src[off]; off++)
    if (src[off] == '\n') line++;
  return off + (size_t)(loc.col - 1);
}

/* Index just past the bracket matching the one at i ('(' or '{'), skipping comments. */
static size_t match(const char *s, size_t i) {
  char open = s[i], close = open == '(' ? ')' : '}';
  int depth = 0;
  for (; s[i]; i++) {
    if (s[i] == '/' && s[i + 1] == '/') {
      while (s[i] && s[i] != '\n') i++;
      if (!s[i]) break;
    } else if (s[i] == '/' && s[i + 1] == '*') {
      const char *end = strstr(s + i + 2, "*/");
      i = end ? (size_t)(end - s) + 1 : strlen(s) - 1;
    } else if (s[i] == open) {
      depth++;
    } else if (s[i] == close && --depth == 0) {
      return i + 1;
    }
  }
  return i;
}

static void blank(char *s, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (s[i] != '\n') s[i] = ' ';
}

/* The entry's parameter list with this call's extents. */
static void params(sj_buf *b, const jit_kernel *k) {
  const sj_func *fn = k->fn;
  sj_buf_puts(b, "(");
  for (int i = 0; i < fn->nparams - fn->returns; i++) {
    const sj_sym *p = fn->params[i];
    sj_buf_printf(b, "%s%s%s %s", i ? ", " : "", p->is_const ? "const " : "",
                  p->is_bool ? "_Bool" : sj_type_name(p->type), p->name);
    if (p->kind != SJ_SYM_ARRAY) continue;
    for (int d = 0; d < p->rank; d++) {
      long e = k->first_extent[i];
      /* extents were validated (an open first one inferred) when the kernel was built */
      if (d) sj_const_value(p->extents[d], k->shape, &e);
      sj_buf_printf(b, "[%ld]", e > 0 ? e : 1);
    }
  }
  sj_buf_puts(b, ")");
}

/* Blanks the #include and #pragma lines (with their continuations): there are no system
 * headers here, and the other directives (macros, conditional groups) are TinyCC's to
 * expand as the parser's preprocessor did. */
static void blank_directives(char *s) {
  for (char *line = s; *line; line++) {
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#') {
      char *word = p + 1;
      while (*word == ' ' || *word == '\t') word++;
      if (!strncmp(word, "include", 7) || !strncmp(word, "pragma", 6))
        for (; *p && (*p != '\n' || p[-1] == '\\'); p++)
          if (*p != '\n') *p = ' ';
    }
    line = strchr(p, '\n');
    if (!line) break;
  }
}

/* Blanks the words static and inline in s[from, to). */
static void blank_storage(char *s, size_t from, size_t to) {
  static const char *const words[] = {"static", "inline"};
  for (size_t i = from; i < to; i++)
    for (int w = 0; w < 2; w++) {
      size_t n = strlen(words[w]);
      if (i + n <= to && !strncmp(s + i, words[w], n) &&
          (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
          !(isalnum((unsigned char)s[i + n]) || s[i + n] == '_'))
        blank(s, i, i + n);
    }
}

static void prelude(sj_buf *b, const sj_program *prog) {
  for (int i = 0; i < prog->nincludes; i++) /* what the parser's preprocessor defined too */
    for (const char *const *m = sj_pp_header_macros(prog->includes[i].text); m && *m; m++)
      sj_buf_printf(b, "#define %s\n", *m);
  sj_buf_puts(b, "#define assert(c) ((void)(c))\n"); /* <assert.h>'s: checked before it runs */
  for (int fn = 0; fn < SJ_NFUNCS; fn++) {
    const char *t = fn & 1 ? "float" : "double";
    sj_buf_printf(b, "%s %s(%s", t, sj_func_name(fn), t);
    for (int a = 1; a < sj_func_nargs(fn); a++) sj_buf_printf(b, ", %s", t);
    sj_buf_puts(b, "); ");
  }
  sj_buf_puts(b, "int abs(int); long labs(long); long long llabs(long long); ");
  sj_buf_puts(b, "void *memcpy(void *, const void *, unsigned long); "
                 "void *memmove(void *, const void *, unsigned long); "
                 "void *memset(void *, int, unsigned long); ");
  sj_type type;
  for (int i = 0; sj_stdint_name(i, &type); i++)
    if (prog->stdint_used & (1u << i))
      sj_buf_printf(b, "typedef %s %s; ", sj_type_name(type), sj_stdint_name(i, NULL));
}

/* Where the declaration that ends with the function name at name begins. */
static size_t decl_start(const char *text, size_t name) {
  size_t start = name;
  while (start > 0 && (isalnum((unsigned char)text[start - 1]) || text[start - 1] == '_' ||
                       isspace((unsigned char)text[start - 1])))
    start--;
  return start;
}

/* Whether fn is the entry or one of the functions it calls (their calls were inlined into the
 * kernel; the reference calls them as the source does). */
static int kept(const sj_func *fn, const sj_func *entry) {
  if (fn == entry) return 1;
  for (int i = 0; i < entry->ncallees; i++)
    if (kept(fn, entry->callees[i])) return 1;
  return 0;
}

/* A variably modified type's brackets at [from, to) of the source, written as constants. */
typedef struct bracket_edit {
  size_t from, to;
  char text[160];
} bracket_edit;

static int by_offset(const void *a, const void *b) {
  const bracket_edit *x = a, *y = b;
  return x->from < y->from ? -1 : x->from > y->from;
}

/* The edits of fn's variably modified types, sorted, each place once; -1 where two calls give
 * a function's parameter different extents (the reference cannot write both). */
static int bracket_edits(const char *text, const jit_kernel *k, bracket_edit *edits) {
  int n = 0;
  for (int i = 0; i < k->fn->nvm; i++) {
    const sj_vm_type *vm = &k->fn->vm[i];
    bracket_edit *e = &edits[n];
    e->from = offset_of(text, vm->from), e->to = offset_of(text, vm->to);
    size_t len = 0;
    for (int d = 0; d < vm->n; d++) {
      long v = 1;
      if (vm->extents[d]) sj_const_value(vm->extents[d], k->shape, &v);
      len +=
          (size_t)snprintf(e->text + len, sizeof e->text - len, vm->extents[d] ? "[%ld]" : "[]", v);
      if (len >= sizeof e->text) return -1;
    }
    snprintf(e->text + len, sizeof e->text - len, " ");
    int same = -1;
    for (int j = 0; j < n; j++)
      if (edits[j].from == e->from) same = j;
    if (same < 0)
      n++;
    else if (strcmp(edits[same].text, e->text))
      return -1;
  }
  qsort(edits, (size_t)n, sizeof *edits, by_offset);
  return n;
}

static char *reference_source(const char *source, const jit_kernel *k, sj_error *err) {
  char *text = strdup(source);
  blank_directives(text);
  const sj_program *prog = k->program;
  size_t entry_open = 0, entry_close = 0;
  for (int f = 0; f < prog->nfuncs + prog->nprotos; f++) {
    int proto = f >= prog->nfuncs;
    const sj_func *fn = proto ? prog->protos[f - prog->nfuncs] : prog->funcs[f];
    size_t name = offset_of(text, fn->loc);
    size_t open = name + strlen(fn->name);
    while (text[open] && text[open] != '(') open++;
    size_t close = match(text, open);
    size_t start = decl_start(text, name);
    if (fn == k->fn) {
      blank_storage(text, start, name);
      entry_open = open, entry_close = close;
      continue;
    }
    int keep = 0; /* a callee's prototype too: the call may come before the definition */
    for (int i = 0; i < prog->nfuncs; i++)
      keep |= !strcmp(prog->funcs[i]->name, fn->name) && prog->funcs[i] != k->fn &&
              kept(prog->funcs[i], k->fn);
    if (keep) continue;
    size_t end = close;
    while (text[end] && text[end] != (proto ? ';' : '{')) end++;
    blank(text, start, !text[end] ? end : proto ? end + 1 : match(text, end));
  }
  for (int f = 0; f < prog->nfailed; f++) { /* left out of the program: out of the reference */
    const sj_failure *gone = prog->failed[f];
    if (gone->from.line) {
      blank(text, offset_of(text, gone->from), offset_of(text, gone->to));
    } else if (gone->name) { /* a function whose calls reach a refusal: to its body's end */
      size_t name = offset_of(text, gone->loc), end = name + strlen(gone->name);
      while (text[end] && text[end] != '(') end++;
      end = text[end] ? match(text, end) : end;
      while (text[end] && text[end] != ';' && text[end] != '{') end++;
      blank(text, decl_start(text, name), text[end] == '{' ? match(text, end) : end + !!text[end]);
    }
  }
  bracket_edit *edits = calloc((size_t)k->fn->nvm + 1, sizeof *edits);
  int nedits = bracket_edits(text, k, edits);
  if (nedits < 0) {
    free(edits);
    free(text);
    sj_error_set(err, JIT_ERR_UNSUPPORTED,
                 "the reference cannot be compiled: a function is called with arrays of "
                 "different shapes, and TinyCC takes no variably modified parameter");
    return NULL;
  }
  sj_buf b = {0};
  prelude(&b, prog);
  sj_buf_puts(&b, "\n#line 1\n"); /* the source's own lines from here, directives at their start */
  size_t at = 0;
  for (int i = 0; i <= nedits; i++) {
    size_t from = i < nedits ? edits[i].from : strlen(text);
    if (at <= entry_open && entry_open < from) { /* the entry's parameters, this call's extents */
      sj_buf_printf(&b, "%.*s", (int)(entry_open - at), text + at);
      params(&b, k);
      for (size_t j = entry_open; j < entry_close; j++)
        if (text[j] == '\n') sj_buf_puts(&b, "\n"); /* keep the body's line numbers */
      at = entry_close;
    }
    if (i == nedits || from < at || edits[i].to < from) continue;
    sj_buf_printf(&b, "%.*s%s", (int)(from - at), text + at, edits[i].text);
    at = edits[i].to;
  }
  sj_buf_puts(&b, text + at);
  free(edits);
  free(text);
  return sj_buf_take(&b);
}

int jit_reference_run(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                      int nargs) {
  int rc = sj_check_call(ctx, source, args, nargs);
  if (rc) return rc;
  pthread_rwlock_rdlock(&ctx->calls);
  jit_kernel *k;
  sj_call_args call;
  rc = sj_kernel_for_call(ctx, source, entry, args, nargs, &call, &k);
  if (rc) {
    sj_call_args_free(&call);
    pthread_rwlock_unlock(&ctx->calls);
    return rc;
  }
  args = call.args; /* arrays as plain host pointers */
  sj_error err = {0, {0}};
  char *text = reference_source(source, k, &err);
  sj_tcc *code = text ? sj_tcc_compile(text, "reference function", &err) : NULL;
  free(text);
  void *fn = code ? sj_tcc_symbol(code, k->fn->name) : NULL;
  if (code && !fn)
    sj_error_set(&err, JIT_ERR_UNSUPPORTED,
                 "the reference function '%s' is not visible (is it static?)", k->fn->name);
  if (fn) {
    sj_value values[nargs + 1];
    for (int i = 0; i < nargs; i++) memcpy(&values[i], &args[i].v, sizeof values[i]);
    rc = sj_ffi_call(k->fn, fn, values, &err);
  }
  if (!fn || rc) {
    rc = err.status;
    sj_context_fail(ctx, &err);
  }
  sj_tcc_free(code);
  sj_kernel_release(k);
  sj_call_args_free(&call);
  pthread_rwlock_unlock(&ctx->calls);
  return rc;
}
