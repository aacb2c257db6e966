/* PTX tokenizer: identifiers (with dots, % and $), numbers, strings and punctuation. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int id_start(int c) {
  return isalpha(c) || c == '_' || c == '$' || c == '%' || c == '.';
}
static int id_char(int c) {
  return isalnum(c) || c == '_' || c == '$' || c == '.';
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Lexes one number at p; returns the length or 0 on a malformed number. */
static int lex_number(const char *p, emu_tok *t) {
  const char *q = p;
  if (p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D')) {
    int n = (p[1] == 'f' || p[1] == 'F') ? 8 : 16;
    uint64_t v = 0;
    for (int k = 0; k < n; k++) {
      int h = hexval((unsigned char)p[2 + k]);
      if (h < 0) return 0;
      v = v << 4 | (uint64_t)h;
    }
    if (id_char((unsigned char)p[2 + n])) return 0;
    t->kind = n == 8 ? EMU_TOK_F32 : EMU_TOK_F64;
    t->i = v;
    return 2 + n;
  }
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    uint64_t v = 0;
    q = p + 2;
    if (hexval((unsigned char)*q) < 0) return 0;
    while (hexval((unsigned char)*q) >= 0) v = v << 4 | (uint64_t)hexval((unsigned char)*q++);
    if (*q == 'U') q++;
    if (id_char((unsigned char)*q)) return 0;
    t->kind = EMU_TOK_INT;
    t->i = v;
    return (int)(q - p);
  }
  if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
    uint64_t v = 0;
    q = p + 2;
    if (*q != '0' && *q != '1') return 0;
    while (*q == '0' || *q == '1') v = v << 1 | (uint64_t)(*q++ - '0');
    if (*q == 'U') q++;
    if (id_char((unsigned char)*q)) return 0;
    t->kind = EMU_TOK_INT;
    t->i = v;
    return (int)(q - p);
  }
  while (isdigit((unsigned char)*q)) q++;
  if (*q == '.' || *q == 'e' || *q == 'E') {
    char *end;
    t->f = strtod(p, &end);
    if (end == p || id_char((unsigned char)*end)) return 0;
    t->kind = EMU_TOK_FLOAT;
    return (int)(end - p);
  }
  uint64_t v = 0;
  int octal = p[0] == '0' && q - p > 1;
  for (const char *r = p; r < q; r++) {
    if (octal && *r > '7') return 0;
    v = v * (octal ? 8 : 10) + (uint64_t)(*r - '0');
  }
  if (*q == 'U') q++;
  if (id_char((unsigned char)*q)) return 0;
  t->kind = EMU_TOK_INT;
  t->i = v;
  return (int)(q - p);
}

emu_tok *emu_lex(const char *text, char *err, size_t errlen) {
  size_t cap = 1024, n = 0;
  emu_tok *v = malloc(cap * sizeof *v);
  if (!v) return NULL;
  int line = 1;
  const char *p = text;
  for (;;) {
    if (n + 1 >= cap) {
      cap *= 2;
      emu_tok *nv = realloc(v, cap * sizeof *nv);
      if (!nv) {
        free(v);
        return NULL;
      }
      v = nv;
    }
    while (*p) {
      if (*p == '\n')
        line++, p++;
      else if (isspace((unsigned char)*p))
        p++;
      else if (p[0] == '/' && p[1] == '/') {
        while (*p && *p != '\n') p++;
      } else if (p[0] == '/' && p[1] == '*') {
        p += 2;
        while (*p && !(p[0] == '*' && p[1] == '/')) line += *p++ == '\n';
        if (*p) p += 2;
      } else
        break;
    }
    emu_tok *t = &v[n];
    memset(t, 0, sizeof *t);
    t->line = line;
    t->s = p;
    if (!*p) {
      t->kind = EMU_TOK_EOF;
      return v;
    }
    int c = (unsigned char)*p;
    if (isdigit(c)) {
      int len = lex_number(p, t);
      if (!len) {
        snprintf(err, errlen, "ptxas application ptx input, line %d; error   : malformed number",
                 line);
        free(v);
        return NULL;
      }
      t->len = len;
    } else if (id_start(c)) {
      const char *q = p + 1;
      while (id_char((unsigned char)*q)) q++;
      t->kind = EMU_TOK_ID;
      t->len = (int)(q - p);
    } else if (c == '"') {
      const char *q = p + 1;
      while (*q && *q != '"' && *q != '\n') q++;
      if (*q != '"') {
        snprintf(err, errlen, "ptxas application ptx input, line %d; error   : unterminated string",
                 line);
        free(v);
        return NULL;
      }
      t->kind = EMU_TOK_STR;
      t->len = (int)(q + 1 - p);
    } else if (strchr(",;:[](){}<>+-!@|=", c)) {
      t->kind = EMU_TOK_PUNCT;
      t->len = 1;
    } else {
      snprintf(err, errlen,
               "ptxas application ptx input, line %d; error   : unexpected character '%c'", line,
               isprint(c) ? c : '?');
      free(v);
      return NULL;
    }
    p += t->len;
    n++;
  }
}
