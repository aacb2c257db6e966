/* Files the library ships beside itself (the emulator, TinyCC's runtime), found from where
 * its own code was loaded: a moved install or bundle keeps working, and no build-tree path
 * is needed. */
#ifndef SJ_LOCATE_H
#define SJ_LOCATE_H

#include <stddef.h>

/* Writes to out the first dir/rel[i] (rel ends with NULL) that exists, where dir is the
 * directory of the shared library or program this code is part of. 0 when one was found,
 * -1 otherwise (out is then empty). */
int sj_locate_beside(const char *const *rel, char *out, size_t cap);

#endif
