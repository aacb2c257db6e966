/* The parser's shared helpers: tokens, ptxas-style errors, type names, register and
 * variable lookup, slots for registers and constants. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

void emu_perr(P *p, int line, const char *fmt, ...) {
  p->nerr++;
  if (p->errused + 1 >= p->errlen) return;
  int k =
      snprintf(p->err + p->errused, p->errlen - p->errused,
               "%sptxas application ptx input, line %d; error   : ", p->errused ? "\n" : "", line);
  if (k > 0) p->errused += (size_t)k;
  if (p->errused >= p->errlen) {
    p->errused = p->errlen - 1;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  k = vsnprintf(p->err + p->errused, p->errlen - p->errused, fmt, ap);
  va_end(ap);
  if (k > 0) p->errused += (size_t)k;
  if (p->errused >= p->errlen) p->errused = p->errlen - 1;
}

emu_tok *emu_cur(P *p) {
  return &p->t[p->i];
}
int emu_is(const emu_tok *t, const char *s) {
  return (int)strlen(s) == t->len && memcmp(t->s, s, (size_t)t->len) == 0;
}
int emu_accept(P *p, const char *s) {
  if (emu_cur(p)->kind != EMU_TOK_EOF && emu_is(emu_cur(p), s)) {
    p->i++;
    return 1;
  }
  return 0;
}
char *emu_tokdup(const emu_tok *t) {
  char *s = malloc((size_t)t->len + 1);
  if (!s) abort();
  memcpy(s, t->s, (size_t)t->len);
  s[t->len] = 0;
  return s;
}
int emu_expect(P *p, const char *s) {
  if (emu_accept(p, s)) return 1;
  emu_perr(p, emu_cur(p)->line, "syntax error: expected '%s' but found '%.*s'", s, emu_cur(p)->len,
           emu_cur(p)->s);
  return 0;
}
void emu_skip_stmt(P *p) {
  while (emu_cur(p)->kind != EMU_TOK_EOF && !emu_is(emu_cur(p), ";") && !emu_is(emu_cur(p), "}"))
    p->i++;
  emu_accept(p, ";");
}

int emu_type_parse(const char *s, int len) {
  for (int t = EMU_T_PRED; t < EMU_T_COUNT; t++)
    if ((int)strlen(emu_type_name(t)) == len && memcmp(emu_type_name(t), s, (size_t)len) == 0)
      return t;
  return EMU_T_NONE;
}
int emu_tok_type(const emu_tok *t) {
  if (t->kind != EMU_TOK_ID || t->s[0] != '.') return EMU_T_NONE;
  return emu_type_parse(t->s + 1, t->len - 1);
}

uint32_t emu_new_slots(P *p, uint32_t n, int type) {
  uint32_t base = p->nslots;
  p->slot_types = realloc(p->slot_types, (p->nslots + n) * sizeof *p->slot_types);
  if (!p->slot_types) abort();
  for (uint32_t k = 0; k < n; k++) p->slot_types[base + k] = type;
  p->nslots += n;
  return base;
}

regdecl *emu_find_reg(P *p, const char *s, int len, uint32_t *slot) {
  for (int k = p->nregs - 1; k >= 0; k--) {
    regdecl *r = &p->regs[k];
    if (r->depth < 0) continue;
    int nl = (int)strlen(r->name);
    if (r->count == 0) {
      if (nl == len && memcmp(r->name, s, (size_t)len) == 0) {
        *slot = r->base;
        return r;
      }
    } else if (len > nl && memcmp(r->name, s, (size_t)nl) == 0) {
      uint64_t v = 0;
      int ok = 1;
      for (int j = nl; j < len; j++) {
        if (s[j] < '0' || s[j] > '9' || v > 100000000) ok = 0;
        v = v * 10 + (uint64_t)(s[j] - '0');
      }
      if (ok && (s[nl] != '0' || len == nl + 1) && v < r->count) {
        *slot = r->base + (uint32_t)v;
        return r;
      }
    }
  }
  return NULL;
}

emu_var *emu_find_var(P *p, const char *s, int len) {
  for (int k = p->nfvars - 1; k >= 0; k--)
    if ((int)strlen(p->fvars[k]->name) == len && !memcmp(p->fvars[k]->name, s, (size_t)len))
      return p->fvars[k];
  for (int k = 0; k < p->m->nvars; k++)
    if ((int)strlen(p->m->vars[k]->name) == len && !memcmp(p->m->vars[k]->name, s, (size_t)len))
      return p->m->vars[k];
  return NULL;
}

uint32_t emu_const_slot(P *p, uint64_t v) {
  for (int k = 0; k < p->nconsts; k++)
    if (p->consts[k] == v) return TAG_CONST | (uint32_t)k;
  GROW(p->consts, p->nconsts, p->capconsts);
  p->consts[p->nconsts] = v;
  return TAG_CONST | (uint32_t)p->nconsts++;
}
uint32_t emu_var_slot(P *p, emu_var *v, int64_t add) {
  GROW(p->consts, p->nconsts, p->capconsts);
  p->consts[p->nconsts] = 0;
  GROW(p->fix, p->nfix, p->capfix);
  p->fix[p->nfix++] = (fixup){-1, (uint32_t)p->nconsts, v, add};
  return TAG_CONST | (uint32_t)p->nconsts++;
}
