/* What the cache tests share: CHECK, a fresh temporary directory and its removal, and the
 * entries of one kind in it. Header-only: each test is one program. */
#ifndef SJ_TESTS_CACHE_UTIL_H
#define SJ_TESTS_CACHE_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

static char dir[512]; /* the test's directory */

static void make_dir(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/sj_cache_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(2);
  }
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    struct stat st;
    if (!lstat(p, &st) && S_ISDIR(st.st_mode))
      remove_tree(p);
    else
      unlink(p);
  }
  closedir(d);
  rmdir(path);
}

/* The number of files in dir named *.kind; path gets the last one's path. */
static int files_of(const char *kind, char *path, size_t size) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  size_t k = strlen(kind);
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len > k + 1 && e->d_name[len - k - 1] == '.' && !strcmp(e->d_name + len - k, kind)) {
      if (path) snprintf(path, size, "%s/%s", dir, e->d_name);
      n++;
    }
  }
  if (d) closedir(d);
  return n;
}

#endif
