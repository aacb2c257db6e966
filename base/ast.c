/* The AST's arena, programs and names, shared by every stage that handles the AST. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ast.h"
#include "stenciljit.h"

/* Chunks are zeroed by calloc, so allocation never clears memory itself. A request larger
 * than a chunk gets a chunk of its own; the current chunk keeps its free space. */
enum { CHUNK = 64 * 1024, ALIGN = 16 };

typedef struct chunk {
  struct chunk *next;
  size_t used, size;
  /* data follows, ALIGN-aligned */
} chunk;

struct sj_arena {
  chunk *head;
};

#define HDR ((sizeof(chunk) + ALIGN - 1) / ALIGN * ALIGN)

static void out_of_memory(void) {
  fputs("stenciljit: out of memory\n", stderr);
  abort();
}

static chunk *new_chunk(size_t size, chunk *next) {
  chunk *c;
  if (size > SIZE_MAX - HDR) out_of_memory();
  c = calloc(1, HDR + size);
  if (!c) out_of_memory();
  c->next = next;
  c->size = size;
  return c;
}

sj_arena *sj_arena_new(void) {
  sj_arena *a = calloc(1, sizeof *a);
  if (!a) out_of_memory();
  return a;
}

void *sj_arena_alloc(sj_arena *a, size_t size) {
  chunk *c = a->head;
  if (size > SIZE_MAX - ALIGN) out_of_memory();
  size = (size + ALIGN - 1) / ALIGN * ALIGN;
  if (size > CHUNK / 4) {
    /* Big blocks go behind the head so the head's free space stays usable. */
    chunk *big = new_chunk(size, c ? c->next : NULL);
    if (c)
      c->next = big;
    else
      a->head = big;
    big->used = size;
    return (char *)big + HDR;
  }
  if (!c || c->size - c->used < size) c = a->head = new_chunk(CHUNK, c);
  c->used += size;
  return (char *)c + HDR + c->used - size;
}

char *sj_arena_strndup(sj_arena *a, const char *s, size_t n) {
  size_t len = 0;
  char *d;
  while (len < n && s[len]) len++;
  d = sj_arena_alloc(a, len + 1);
  memcpy(d, s, len);
  return d;
}

void sj_arena_free(sj_arena *a) {
  chunk *c, *next;
  if (!a) return;
  for (c = a->head; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

size_t sj_arena_bytes(const sj_arena *a) {
  size_t n = a ? sizeof *a : 0;
  for (const chunk *c = a ? a->head : NULL; c; c = c->next) n += HDR + c->size;
  return n;
}

const char *sj_type_name(sj_type t) {
  static const char *names[] = {"void",           "int",          "long",          "float",
                                "double",         "signed char",  "unsigned char", "short",
                                "unsigned short", "unsigned int", "unsigned long"};
  return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

const char *sj_binop_text(sj_binop op) {
  static const char *names[] = {"+",  "-", "*",  "/", "%",  "&",  "|",  "^",  "<<",
                                ">>", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  return (unsigned)op < sizeof names / sizeof *names ? names[op] : "?";
}

#define SJ_FN_NAMES(id, name, nargs) name, name "f",
#define SJ_FN_NARGS(id, name, nargs) nargs, nargs,
static const char *const func_names[] = {SJ_MATH_FUNCS(SJ_FN_NAMES)};
static const int func_nargs[] = {SJ_MATH_FUNCS(SJ_FN_NARGS)};
#undef SJ_FN_NAMES
#undef SJ_FN_NARGS

const char *sj_func_name(sj_func_id fn) {
  return (unsigned)fn < SJ_NFUNCS ? func_names[fn] : "?";
}

int sj_func_nargs(sj_func_id fn) {
  return (unsigned)fn < SJ_NFUNCS ? func_nargs[fn] : 0;
}

int sj_func_inexact_on_gpu(sj_func_id fn) {
  switch (fn & ~1) { /* the double form of fn */
  case SJ_FN_SQRT:
  case SJ_FN_FABS:
  case SJ_FN_FMIN:
  case SJ_FN_FMAX:
  case SJ_FN_FLOOR:
  case SJ_FN_CEIL:
  case SJ_FN_TRUNC:
  case SJ_FN_COPYSIGN:
  case SJ_FN_FMA:
  case SJ_FN_ROUND:
  case SJ_FN_FMOD:
    return 0;
  default:
    return (unsigned)fn < SJ_NFUNCS;
  }
}

const char *sj_stdint_name(int k, sj_type *t) {
  static const char *const names[] = {"int8_t",   "uint8_t", "int16_t",  "uint16_t", "int32_t",
                                      "uint32_t", "int64_t", "uint64_t", "size_t",   "ptrdiff_t"};
  static const sj_type types[] = {SJ_TY_SCHAR, SJ_TY_UCHAR, SJ_TY_SHORT, SJ_TY_USHORT, SJ_TY_INT,
                                  SJ_TY_UINT,  SJ_TY_LONG,  SJ_TY_ULONG, SJ_TY_ULONG,  SJ_TY_LONG};
  if (k < 0 || k >= (int)(sizeof types / sizeof *types)) return NULL;
  if (t) *t = types[k];
  return names[k];
}

int sj_type_is_float(sj_type t) {
  return t == SJ_TY_FLOAT || t == SJ_TY_DOUBLE;
}

int sj_type_is_integer(sj_type t) {
  return t == SJ_TY_INT || t == SJ_TY_LONG || (t >= SJ_TY_SCHAR && t <= SJ_TY_ULONG);
}

int sj_type_is_unsigned(sj_type t) {
  return t == SJ_TY_UCHAR || t == SJ_TY_USHORT || t == SJ_TY_UINT || t == SJ_TY_ULONG;
}

int sj_type_size(sj_type t) {
  static const int sizes[] = {0, 4, 8, 4, 8, 1, 1, 2, 2, 4, 8};
  return (unsigned)t < sizeof sizes / sizeof *sizes ? sizes[t] : 0;
}

sj_type sj_type_promote(sj_type t) {
  return t >= SJ_TY_SCHAR && t <= SJ_TY_USHORT ? SJ_TY_INT : t;
}

sj_expr *sj_expr_copy(sj_arena *a, const sj_expr *e) {
  sj_expr *c = sj_arena_alloc(a, sizeof *c);
  *c = *e;
  if (e->nargs) {
    c->args = sj_arena_alloc(a, (size_t)e->nargs * sizeof *c->args);
    for (int i = 0; i < e->nargs; i++) c->args[i] = sj_expr_copy(a, e->args[i]);
  }
  return c;
}

int sj_expr_same(const sj_expr *a, const sj_expr *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->type != b->type || a->op != b->op || a->ival != b->ival ||
      a->fval != b->fval || a->sym != b->sym || a->nargs != b->nargs)
    return 0;
  for (int i = 0; i < a->nargs; i++)
    if (!sj_expr_same(a->args[i], b->args[i])) return 0;
  return 1;
}

int sj_expr_key(const sj_expr *e, char *buf, size_t size) {
  int n;
  switch (e->kind) {
  case SJ_E_INT:
    n = snprintf(buf, size, "%ld", e->ival);
    break;
  case SJ_E_VAR:
    n = snprintf(buf, size, "v%d.%d", (int)e->sym->kind, e->sym->id);
    break;
  case SJ_E_UNARY:
  case SJ_E_BINARY:
  case SJ_E_CAST:
  case SJ_E_COND:
    n = snprintf(buf, size, "(%d.%d.%d", (int)e->kind, e->op, (int)e->type);
    for (int i = 0; i < e->nargs && n > 0 && (size_t)n < size; i++) {
      int k = sj_expr_key(e->args[i], buf + n, size - (size_t)n);
      if (k < 0) return -1;
      n += k;
    }
    if (n > 0 && (size_t)n + 1 < size) buf[n++] = ')', buf[n] = 0;
    break;
  default:
    return -1;
  }
  return n > 0 && (size_t)n < size ? n : -1;
}

void sj_program_free(sj_program *p) {
  if (p) sj_arena_free(p->arena);
}

sj_func *sj_program_entry(sj_program *p, const char *entry, sj_error *err) {
  char names[512] = "";
  size_t n = 0;
  int i;
  if (!p) {
    sj_error_set(err, JIT_ERR_ARGS, "no program");
    return NULL;
  }
  /* the one function nobody calls (the others are inlined into it); of several, the one that
   * returns nothing (a value function beside it is a helper it does not use) */
  sj_func *uncalled = NULL, *uncalled_void = NULL;
  int nuncalled = 0, nvoid = 0;
  for (i = 0; i < p->nfuncs; i++)
    if (!p->funcs[i]->called) {
      uncalled = p->funcs[i], nuncalled++;
      if (!uncalled->returns) uncalled_void = uncalled, nvoid++;
    }
  if (!entry && nuncalled == 1) return uncalled;
  if (!entry && nvoid == 1) return uncalled_void;
  for (i = 0; i < p->nfuncs; i++) {
    if (entry && !strcmp(p->funcs[i]->name, entry)) return p->funcs[i];
    if (n < sizeof names)
      n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", p->funcs[i]->name);
  }
  if (!entry)
    sj_error_set(err, JIT_ERR_ARGS, "source has %d functions; name the entry (one of: %s)",
                 p->nfuncs, names);
  else
    sj_error_set(err, JIT_ERR_ARGS, "no function named '%s' (one of: %s)", entry, names);
  return NULL;
}
