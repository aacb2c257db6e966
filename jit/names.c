/* A set of strings kept until it is cleared: names handed to callers whose lifetime is the
 * context's, whatever later calls do. Open addressing, FNV-1a; grows at half full. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s) {
  size_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static char **slot(char **slots, size_t nslots, const char *s) {
  size_t i = hash(s) & (nslots - 1);
  while (slots[i] && strcmp(slots[i], s)) i = (i + 1) & (nslots - 1);
  return &slots[i];
}

static int grow(sj_names *t) {
  size_t n = t->nslots ? 2 * t->nslots : 64;
  char **slots = calloc(n, sizeof *slots);
  if (!slots) return -1;
  for (size_t i = 0; i < t->nslots; i++)
    if (t->slots[i]) *slot(slots, n, t->slots[i]) = t->slots[i];
  free(t->slots);
  t->slots = slots;
  t->nslots = n;
  return 0;
}

const char *sj_names_intern(sj_names *t, const char *s) {
  if (2 * (t->count + 1) > t->nslots && grow(t)) return NULL;
  char **p = slot(t->slots, t->nslots, s);
  if (!*p) {
    if (!(*p = strdup(s))) return NULL;
    t->count++;
  }
  return *p;
}

void sj_names_clear(sj_names *t) {
  for (size_t i = 0; i < t->nslots; i++) free(t->slots[i]);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
