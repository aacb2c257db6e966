/* The user data of the isl ids the schedulers make without data of their own. */
#include "sched/sched.h"

#include <isl/id.h>

const sj_mapped_id sj_block_ids[3] = {
    {SJ_ID_BLOCK, 0, 0}, {SJ_ID_BLOCK, 1, 0}, {SJ_ID_BLOCK, 2, 0}};
const sj_mapped_id sj_thread_ids[3] = {
    {SJ_ID_THREAD, 0, 0}, {SJ_ID_THREAD, 1, 0}, {SJ_ID_THREAD, 2, 0}};
const sj_mapped_id sj_spread_ids[3] = {
    {SJ_ID_SPREAD, 0, 0}, {SJ_ID_SPREAD, 1, 0}, {SJ_ID_SPREAD, 2, 0}};
const sj_mapped_id sj_spread_once_ids[3] = {
    {SJ_ID_SPREAD, 0, 1}, {SJ_ID_SPREAD, 1, 1}, {SJ_ID_SPREAD, 2, 1}};
const sj_mapped_id sj_first_ids[3] = {
    {SJ_ID_FIRST, 0, 0}, {SJ_ID_FIRST, 1, 0}, {SJ_ID_FIRST, 2, 0}};
const sj_mapped_id sj_origin_ids[SJ_STAGE_MAX_RANK] = {
    {SJ_ID_ORIGIN, 0, 0}, {SJ_ID_ORIGIN, 1, 0}, {SJ_ID_ORIGIN, 2, 0}, {SJ_ID_ORIGIN, 3, 0}};
const sj_mapped_id sj_version_ids[3] = {
    {SJ_ID_VERSION, 0, 0}, {SJ_ID_VERSION, 1, 0}, {SJ_ID_VERSION, 2, 0}};
const sj_id_kind sj_parallel_tag = SJ_ID_PARALLEL;
const sj_id_kind sj_threads_tag = SJ_ID_THREADS;
const sj_id_kind sj_sync_tag = SJ_ID_SYNC;
const sj_id_kind sj_spread_end_tag = SJ_ID_SPREAD_END;
const sj_id_kind sj_full_tag = SJ_ID_FULL;

__isl_give isl_id *sj_origin_id(isl_ctx *ctx, int d) {
  static const char *const names[SJ_STAGE_MAX_RANK] = {"origin0", "origin1", "origin2", "origin3"};
  return isl_id_alloc(ctx, names[d], (void *)&sj_origin_ids[d]);
}

/* An id that owns user: free_user runs when the id goes, or at once if it cannot be made
 * (ctx NULL after an earlier failure, or out of memory), so no path leaks user. */
__isl_give isl_id *sj_id_owning(isl_ctx *ctx, const char *name, void *user,
                                void (*free_user)(void *user)) {
  isl_id *id = ctx ? isl_id_alloc(ctx, name, user) : NULL;
  if (!id) {
    free_user(user);
    return NULL;
  }
  return isl_id_set_free_user(id, free_user);
}
