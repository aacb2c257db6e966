/* What the API tests share: CHECK (records a failure and goes on), KERNEL (one text that is
 * both compiled by gcc as the reference and handed to the library as source) and the
 * jacobi-2d kernel written that way. Include once per test program. */
#ifndef SJ_TEST_COMMON_H
#define SJ_TEST_COMMON_H

#include <stdio.h>

#include <string.h>

static int g_fail __attribute__((unused));
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      g_fail = 1;                                                                                  \
    }                                                                                              \
  } while (0)

#define KERNEL(name, ...)                                                                          \
  static const char name##_src[] = #__VA_ARGS__;                                                   \
  __VA_ARGS__

KERNEL(
    jac, void jacobi2d(int T, int rows, int cols, float grid[2][rows][cols]) {
      for (int t = 0; t < T; t++)
        for (int i = 1; i < rows - 1; i++)
          for (int j = 1; j < cols - 1; j++)
            grid[(t + 1) % 2][i][j] =
                0.2f * (grid[t % 2][i][j] + grid[t % 2][i - 1][j] + grid[t % 2][i + 1][j] +
                        grid[t % 2][i][j - 1] + grid[t % 2][i][j + 1]);
    })

typedef struct test_case {
  const char *name;
  int (*fn)(void);
} test_case;

/* Runs the case called name: 0 when it passes, 1 when it fails, 2 (with usage and the list
 * of cases on stderr) when there is no such case. */
static inline int run_case(const test_case *cases, size_t n, const char *name, const char *usage) {
  for (size_t i = 0; name && i < n; i++)
    if (!strcmp(name, cases[i].name)) {
      int r = cases[i].fn();
      if (!r) printf("%s: ok\n", name);
      return r ? 1 : 0;
    }
  fprintf(stderr, "usage: %s\ncases:", usage);
  for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", cases[i].name);
  fputc('\n', stderr);
  return 2;
}

#endif
