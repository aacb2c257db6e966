/* Reading a whole file, for the tools, tests and benchmarks. */
#ifndef SJ_FILE_H
#define SJ_FILE_H

#include <stddef.h>

/* The contents of path, NUL-terminated, malloc'd; *len (if not NULL) gets the byte count.
 * NULL when it cannot be read (errno tells why). */
char *sj_read_file(const char *path, size_t *len);

#endif
