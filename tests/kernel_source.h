/* A file of tests/kernels read, parsed and its entry function found, for the tests that drive
 * the library's stages themselves. */
#ifndef SJ_KERNEL_SOURCE_H
#define SJ_KERNEL_SOURCE_H

#include <stdio.h>
#include <stdlib.h>

#include "base/file.h"
#include "jit/parse.h"

typedef struct sj_kernel_source {
  char *src;
  sj_program *prog;
  sj_func *fn; /* NULL when the file cannot be read or parsed: err says why */
  sj_error err;
} sj_kernel_source;

static inline void sj_kernel_source_load(sj_kernel_source *ks, const char *dir, const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  ks->err = (sj_error){0, {0}};
  ks->src = sj_read_file(path, NULL);
  ks->prog = ks->src ? sj_parse(ks->src, file, &ks->err) : NULL;
  ks->fn = ks->prog ? sj_program_entry(ks->prog, NULL, &ks->err) : NULL;
}

static inline void sj_kernel_source_free(sj_kernel_source *ks) {
  sj_program_free(ks->prog);
  free(ks->src);
}

#endif
