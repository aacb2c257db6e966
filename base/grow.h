/* Appending to an array one element at a time. */
#ifndef SJ_GROW_H
#define SJ_GROW_H

#include <stdlib.h>

/* The array p of n elements of size bytes with room for one more: its capacity doubles, and is
 * implied by n (the least power of two not below it), where a realloc per element would copy
 * the whole array each time (quadratic under AddressSanitizer, whose realloc always moves: a
 * kernel with 20000 reads compiled for seconds). NULL when out of memory, p left as it was. */
static inline void *sj_grow(void *p, size_t n, size_t size) {
  if (n & (n - 1)) return p;
  return realloc(p, (n ? 2 * n : 1) * size);
}

#endif
