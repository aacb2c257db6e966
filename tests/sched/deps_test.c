/* Exact dependences (sched/deps.c): where a statement reads an array through many references
 * isl's flow analysis runs on each reference apart (tagged) and the relations are untagged
 * after. Flow and anti dependences of a union of reads are the union of each read's, and the
 * output ones do not depend on the reads: each relation of the whole equals the union of those
 * of its reads one by one (one reference each: the untagged path). Checked for a 2-D 9-point
 * and a 3-D 27-point stencil over two buffers, an asymmetric one with reads two steps back, and
 * two statements that read each other's array.
 * usage: deps_test */
#include <stdio.h>
#include <stdlib.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/schedule.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "sched/sched.h"
#include "test_common.h"

enum { MAX_REFS = 64 };

/* The references of a check, one map each. */
typedef struct refs {
  isl_union_map *each[MAX_REFS];
  int n;
} refs;

static isl_stat add_read(__isl_take isl_basic_map *bm, void *user) {
  refs *r = user;
  if (r->n == MAX_REFS) {
    isl_basic_map_free(bm);
    return isl_stat_error;
  }
  r->each[r->n++] = isl_union_map_from_map(isl_map_from_basic_map(bm));
  return isl_stat_ok;
}

static isl_stat split_reads(__isl_take isl_map *m, void *user) {
  isl_stat r = isl_map_foreach_basic_map(m, add_read, user);
  isl_map_free(m);
  return r;
}

static void check(isl_ctx *ctx, const char *what, const char *domain, const char *order,
                  const char *reads_str, const char *writes_str) {
  isl_union_set *dom = isl_union_set_read_from_str(ctx, domain);
  isl_schedule *sched = isl_schedule_from_domain(isl_union_set_copy(dom));
  sched =
      isl_schedule_insert_partial_schedule(sched, isl_multi_union_pw_aff_read_from_str(ctx, order));
  isl_union_map *reads = isl_union_map_intersect_domain(isl_union_map_read_from_str(ctx, reads_str),
                                                        isl_union_set_copy(dom));
  isl_union_map *writes =
      isl_union_map_intersect_domain(isl_union_map_read_from_str(ctx, writes_str), dom);
  isl_union_map *all[3], *sum[3] = {NULL, NULL, NULL};
  CHECK(sj_exact_dependences(reads, writes, sched, 1, all) == 0, "%s: isl failed", what);
  refs r = {{NULL}, 0};
  CHECK(isl_union_map_foreach_map(reads, split_reads, &r) == isl_stat_ok,
        "%s: more than %d references", what, MAX_REFS);
  CHECK(r.n >= 9, "%s: %s has fewer than 9 references", what, reads_str);
  for (int k = 0; k < r.n; k++) {
    isl_union_map *one[3];
    CHECK(sj_exact_dependences(r.each[k], writes, sched, 0, one) == 0, "%s: isl failed", what);
    for (int i = 0; i < 3; i++) sum[i] = sum[i] ? isl_union_map_union(sum[i], one[i]) : one[i];
    isl_union_map_free(r.each[k]);
  }
  static const char *const names[] = {"flow", "anti", "output"};
  for (int i = 0; i < 3; i++) {
    if (isl_union_map_is_equal(all[i], sum[i]) != isl_bool_true) {
      char *whole = isl_union_map_to_str(all[i]), *parts = isl_union_map_to_str(sum[i]);
      CHECK(0, "%s: %s dependences tagged %s, one reference at a time %s", what, names[i], whole,
            parts);
      free(whole);
      free(parts);
    }
    CHECK(i || isl_union_map_is_empty(all[i]) == isl_bool_false, "%s: no flow dependences", what);
    isl_union_map_free(all[i]);
    isl_union_map_free(sum[i]);
  }
  isl_union_map_free(reads);
  isl_union_map_free(writes);
  isl_schedule_free(sched);
}

/* "{ S[it] -> A[prefix, it + offset..]; ... }" with a reference for each offset in -r..r along
 * each of n dimensions, it the iterators i, j, k. */
static char *box_reads(const char *stmt, const char *prefix, int n, int r) {
  static const char *const it[] = {"i", "j", "k"};
  size_t cap = 16384, len = 0;
  char *s = malloc(cap);
  if (!s) abort();
  len += (size_t)snprintf(s + len, cap - len, "{ ");
  int count = 1;
  for (int d = 0; d < n; d++) count *= 2 * r + 1;
  for (int c = 0; c < count; c++) {
    len += (size_t)snprintf(s + len, cap - len, "%s%s -> A[%s", c ? "; " : "", stmt, prefix);
    for (int d = 0, rest = c; d < n; d++, rest /= 2 * r + 1)
      len += (size_t)snprintf(s + len, cap - len, ", %s + %d", it[d], rest % (2 * r + 1) - r);
    len += (size_t)snprintf(s + len, cap - len, "]");
  }
  snprintf(s + len, cap - len, " }");
  return s;
}

int main(void) {
  isl_ctx *ctx = isl_ctx_alloc();
  char *r2 = box_reads("S[t, i, j]", "t % 2", 2, 1),
       *r3 = box_reads("S[t, i, j, k]", "t % 2", 3, 1);
  check(ctx, "heat-2d 9 points", "{ S[t, i, j] : 0 <= t < 4 and 1 <= i < 7 and 1 <= j < 6 }",
        "[{ S[t, i, j] -> [(t)] }, { S[t, i, j] -> [(i)] }, { S[t, i, j] -> [(j)] }]", r2,
        "{ S[t, i, j] -> A[(t + 1) % 2, i, j] }");
  check(ctx, "heat-3d 27 points",
        "{ S[t, i, j, k] : 0 <= t < 3 and 1 <= i < 5 and 1 <= j < 5 and 1 <= k < 6 }",
        "[{ S[t, i, j, k] -> [(t)] }, { S[t, i, j, k] -> [(i)] }, { S[t, i, j, k] -> [(j)] }, "
        "{ S[t, i, j, k] -> [(k)] }]",
        r3, "{ S[t, i, j, k] -> A[(t + 1) % 2, i, j, k] }");
  free(r2);
  free(r3);
  /* A[t][i] from A[t-1][i+1] and A[t-2][i-3], and more */
  check(ctx, "asymmetric, two steps back", "{ S[t, i] : 2 <= t < 7 and 3 <= i < 12 }",
        "[{ S[t, i] -> [(t)] }, { S[t, i] -> [(i)] }]",
        "{ S[t, i] -> A[t - 1, i + 1]; S[t, i] -> A[t - 2, i - 3]; S[t, i] -> A[t - 1, i - 1]; "
        "S[t, i] -> A[t - 2, i + 2]; S[t, i] -> A[t - 1, i]; S[t, i] -> A[t - 2, i]; "
        "S[t, i] -> A[t - 1, i - 2]; S[t, i] -> A[t - 2, i - 1]; S[t, i] -> A[t - 1, i + 3] }",
        "{ S[t, i] -> A[t, i] }");
  /* two statements, each reading the other's array: flow and anti between them */
  check(ctx, "two statements",
        "{ P[t, i] : 0 <= t < 4 and 4 <= i < 12; Q[t, i] : 0 <= t < 4 and 4 <= i < 12 }",
        "[{ P[t, i] -> [(2t)]; Q[t, i] -> [(2t + 1)] }, { P[t, i] -> [(i)]; Q[t, i] -> [(i)] }]",
        "{ P[t, i] -> B[i - 4]; P[t, i] -> B[i - 3]; P[t, i] -> B[i - 2]; P[t, i] -> B[i - 1]; "
        "P[t, i] -> B[i]; P[t, i] -> B[i + 1]; P[t, i] -> B[i + 2]; P[t, i] -> B[i + 3]; "
        "P[t, i] -> B[i + 4]; P[t, i] -> A[i]; Q[t, i] -> A[i - 1]; Q[t, i] -> A[i + 1] }",
        "{ P[t, i] -> A[i]; Q[t, i] -> B[i] }");
  isl_ctx_free(ctx);
  return g_fail;
}
