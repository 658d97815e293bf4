/* sinew/thread_pool.h - a small default thread pool for sn_world_def's task
 * callbacks (library sinew::threads; the engine core itself has no threads).
 *
 *   sn_thread_pool *pool = sn_thread_pool_create(2); // the caller + 1 thread
 *   sn_world_def def = sn_default_world_def();
 *   sn_thread_pool_apply(pool, &def);               // worker_count = 2, callbacks
 *   sn_world *world = sn_create_world(&def, NULL);
 *   ...
 *   sn_destroy_world(world);
 *   sn_thread_pool_destroy(pool);                   // after every world using it
 *
 * A game engine with its own job system passes its own callbacks instead
 * (see sn_enqueue_task_callback in sinew/types.h). One pool may serve several
 * worlds, stepped from one thread or several.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_THREAD_POOL_H
#define SINEW_THREAD_POOL_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_thread_pool sn_thread_pool;

/// A pool for worker_count workers: the thread that steps a world is one of
/// them, so worker_count - 1 threads are started (1..SN_MAX_WORKERS; 1 starts
/// none). NULL if threads or memory cannot be had.
sn_thread_pool *sn_thread_pool_create(int32_t worker_count);

/// Joins the threads and frees the pool. No world may be stepping with it.
void sn_thread_pool_destroy(sn_thread_pool *pool);

/// Workers of the pool, the caller included.
int32_t sn_thread_pool_worker_count(const sn_thread_pool *pool);

/// Fills def's worker_count, enqueue_task, finish_task and user_task_context.
void sn_thread_pool_apply(sn_thread_pool *pool, sn_world_def *def);

/// The callbacks themselves (user_context is the pool).
void *sn_thread_pool_enqueue(sn_task_callback *task, int32_t item_count, int32_t min_range, void *task_context,
                             void *user_context);
void sn_thread_pool_finish(void *user_task, void *user_context);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_THREAD_POOL_H */
