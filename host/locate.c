/* The directory of the object holding this code, by dladdr. For a program linked with the
 * static library that object is the main program, whose dladdr name is only its argv[0]
 * (possibly without a directory), so its path is read from /proc/self/exe instead. */
#define _GNU_SOURCE /* dladdr1 */
#include "host/locate.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int own_dir(char *dir, size_t cap) {
  Dl_info info;
  struct link_map *map = NULL;
  if (!dladdr1((void *)own_dir, &info, (void **)&map, RTLD_DL_LINKMAP) || !map) return -1;
  char path[PATH_MAX];
  if (!map->l_prev) { /* the first object of the chain is the main program */
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return -1;
    path[n] = 0;
  } else if (info.dli_fname && info.dli_fname[0]) {
    snprintf(path, sizeof path, "%s", info.dli_fname);
  } else {
    return -1;
  }
  char *slash = strrchr(path, '/');
  if (!slash) return -1;
  *slash = 0;
  return snprintf(dir, cap, "%s", path[0] ? path : "/") < (int)cap ? 0 : -1;
}

int sj_locate_beside(const char *const *rel, char *out, size_t cap) {
  char dir[PATH_MAX];
  out[0] = 0;
  if (own_dir(dir, sizeof dir)) return -1;
  for (int i = 0; rel[i]; i++) {
    if (snprintf(out, cap, "%s/%s", dir, rel[i]) >= (int)cap) continue;
    if (access(out, R_OK) == 0) return 0;
  }
  out[0] = 0;
  return -1;
}
