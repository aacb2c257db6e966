/* The user data of the isl ids the schedulers make without data of their own. */
#include "sched/sched.h"

const sj_mapped_id sj_block_ids[3] = {{SJ_ID_BLOCK, 0}, {SJ_ID_BLOCK, 1}, {SJ_ID_BLOCK, 2}};
const sj_mapped_id sj_thread_ids[3] = {{SJ_ID_THREAD, 0}, {SJ_ID_THREAD, 1}, {SJ_ID_THREAD, 2}};
const sj_mapped_id sj_spread_ids[3] = {{SJ_ID_SPREAD, 0}, {SJ_ID_SPREAD, 1}, {SJ_ID_SPREAD, 2}};
const sj_id_kind sj_parallel_tag = SJ_ID_PARALLEL;
const sj_id_kind sj_threads_tag = SJ_ID_THREADS;
const sj_id_kind sj_sync_tag = SJ_ID_SYNC;
const sj_id_kind sj_spread_end_tag = SJ_ID_SPREAD_END;
