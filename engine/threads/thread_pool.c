/* The default thread pool (sinew/thread_pool.h).
 *
 * A task's items are cut into at most one range per worker (never below
 * min_range items) and the ranges go on a queue. Threads take ranges off the
 * queue; finish_task makes the calling thread take the task's own ranges
 * that no thread has taken yet, then wait for the rest. Threads that run out
 * of work spin for a short while before sleeping on a condition variable:
 * a step launches its parallel parts back to back, and waking a sleeping
 * thread costs tens of microseconds on a virtual machine.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include "sinew/thread_pool.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/threads.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SN_POOL_PAUSE() _mm_pause()
#else
#define SN_POOL_PAUSE() ((void)0)
#endif

#define SN_POOL_TASKS  64
#define SN_POOL_RANGES (SN_POOL_TASKS * 4)
/// Pauses an idle thread spins for new work before it sleeps (a few hundred
/// microseconds: a pause is 10 to 150 cycles depending on the CPU). A step
/// launches several parallel parts with short serial gaps between them
/// (pair finding, colouring); with 2000 pauses the helper fell asleep in
/// those gaps and a futex wake-up cost more than the gap (pyramid 100 on two
/// workers: 3.9 to 4.6 ms per step with 2000, 3.9 steadily with 20000).
#define SN_POOL_IDLE_SPINS 20000

typedef struct sn_pool_task {
  sn_task_callback *fn;
  void *context;
  int32_t pending; ///< ranges not finished yet (under the lock)
  bool in_use;
} sn_pool_task;

typedef struct sn_pool_range {
  int32_t task;
  int32_t begin, end;
} sn_pool_range;

struct sn_thread_pool {
  sn_mutex lock;
  sn_cond work; ///< a range was queued, or the pool stops
  sn_cond done; ///< a task's last range finished
  sn_pool_task tasks[SN_POOL_TASKS];
  sn_pool_range queue[SN_POOL_RANGES]; ///< ring buffer
  int32_t head, size;
  atomic_int queued; ///< size, readable without the lock (idle spinning)
  bool stop;
  int32_t worker_count;
  int32_t thread_count;
  sn_thread *threads;
  struct sn_pool_start {
    sn_thread_pool *pool;
    uint32_t index;
  } * starts;
};

/* Takes the first queued range (of task `only`, or any if only < 0). Lock held. */
static bool sn_pool_take(sn_thread_pool *p, int32_t only, sn_pool_range *out) {
  for (int32_t k = 0; k < p->size; ++k) {
    int32_t at = (p->head + k) % SN_POOL_RANGES;
    if (only >= 0 && p->queue[at].task != only) continue;
    *out = p->queue[at];
    /* close the gap: move the ranges before it one place on */
    for (int32_t j = k; j > 0; --j) {
      p->queue[(p->head + j) % SN_POOL_RANGES] = p->queue[(p->head + j - 1) % SN_POOL_RANGES];
    }
    p->head = (p->head + 1) % SN_POOL_RANGES;
    p->size--;
    atomic_store_explicit(&p->queued, p->size, memory_order_relaxed);
    return true;
  }
  return false;
}

/* Runs a range outside the lock and counts it done. Lock held on entry and exit. */
static void sn_pool_run(sn_thread_pool *p, sn_pool_range r, uint32_t worker) {
  sn_pool_task *t = p->tasks + r.task;
  sn_mutex_unlock(&p->lock);
  t->fn(r.begin, r.end, worker, t->context);
  sn_mutex_lock(&p->lock);
  if (--t->pending == 0) sn_cond_broadcast(&p->done);
}

static void sn_pool_thread(void *arg) {
  struct sn_pool_start *start = arg;
  sn_thread_pool *p = start->pool;
  sn_mutex_lock(&p->lock);
  for (;;) {
    sn_pool_range r;
    if (sn_pool_take(p, -1, &r)) {
      sn_pool_run(p, r, start->index);
      continue;
    }
    if (p->stop) break;
    /* spin a little before sleeping: the next launch is usually near */
    sn_mutex_unlock(&p->lock);
    for (int32_t i = 0; i < SN_POOL_IDLE_SPINS && atomic_load_explicit(&p->queued, memory_order_relaxed) == 0; ++i)
      SN_POOL_PAUSE();
    sn_mutex_lock(&p->lock);
    if (p->size == 0 && !p->stop) sn_cond_wait(&p->work, &p->lock);
  }
  sn_mutex_unlock(&p->lock);
}

sn_thread_pool *sn_thread_pool_create(int32_t worker_count) {
  if (worker_count < 1 || worker_count > SN_MAX_WORKERS) return NULL;
  sn_thread_pool *p = calloc(1, sizeof(*p));
  if (p == NULL) return NULL;
  p->worker_count = worker_count;
  atomic_init(&p->queued, 0);
  if (!sn_mutex_init(&p->lock)) {
    free(p);
    return NULL;
  }
  sn_cond_init(&p->work);
  sn_cond_init(&p->done);
  int32_t n = worker_count - 1;
  p->threads = calloc((size_t)(n > 0 ? n : 1), sizeof(sn_thread));
  p->starts = calloc((size_t)(n > 0 ? n : 1), sizeof(*p->starts));
  if (p->threads == NULL || p->starts == NULL) {
    sn_thread_pool_destroy(p);
    return NULL;
  }
  for (int32_t i = 0; i < n; ++i) {
    p->starts[i].pool = p;
    p->starts[i].index = (uint32_t)i + 1;
    if (!sn_thread_start(p->threads + i, sn_pool_thread, p->starts + i)) {
      sn_thread_pool_destroy(p);
      return NULL;
    }
    p->thread_count++;
  }
  return p;
}

void sn_thread_pool_destroy(sn_thread_pool *p) {
  if (p == NULL) return;
  sn_mutex_lock(&p->lock);
  p->stop = true;
  sn_cond_broadcast(&p->work);
  sn_mutex_unlock(&p->lock);
  for (int32_t i = 0; i < p->thread_count; ++i) sn_thread_join(p->threads + i);
  sn_cond_destroy(&p->work);
  sn_cond_destroy(&p->done);
  sn_mutex_destroy(&p->lock);
  free(p->threads);
  free(p->starts);
  free(p);
}

int32_t sn_thread_pool_worker_count(const sn_thread_pool *p) { return p ? p->worker_count : 0; }

void sn_thread_pool_apply(sn_thread_pool *p, sn_world_def *def) {
  if (p == NULL || def == NULL) return;
  def->worker_count = p->worker_count;
  def->enqueue_task = sn_thread_pool_enqueue;
  def->finish_task = sn_thread_pool_finish;
  def->user_task_context = p;
}

void *sn_thread_pool_enqueue(sn_task_callback *task, int32_t item_count, int32_t min_range, void *task_context,
                             void *user_context) {
  sn_thread_pool *p = user_context;
  if (item_count <= 0) return NULL;
  if (min_range < 1) min_range = 1;
  int32_t ranges = item_count / min_range; /* every range at least min_range */
  if (ranges < 1) ranges = 1;
  if (ranges > p->worker_count) ranges = p->worker_count;
  if (p->thread_count == 0) {
    task(0, item_count, 0, task_context);
    return NULL;
  }
  sn_mutex_lock(&p->lock);
  int32_t slot = -1;
  for (int32_t i = 0; i < SN_POOL_TASKS && slot < 0; ++i) slot = p->tasks[i].in_use ? -1 : i;
  if (slot < 0 || p->size + ranges > SN_POOL_RANGES) {
    /* full: run it here */
    sn_mutex_unlock(&p->lock);
    task(0, item_count, 0, task_context);
    return NULL;
  }
  sn_pool_task *t = p->tasks + slot;
  t->fn = task;
  t->context = task_context;
  t->pending = ranges;
  t->in_use = true;
  for (int32_t k = 0; k < ranges; ++k) {
    sn_pool_range *r = p->queue + (p->head + p->size) % SN_POOL_RANGES;
    r->task = slot;
    r->begin = (int32_t)((int64_t)item_count * k / ranges);
    r->end = (int32_t)((int64_t)item_count * (k + 1) / ranges);
    p->size++;
  }
  atomic_store_explicit(&p->queued, p->size, memory_order_relaxed);
  sn_cond_broadcast(&p->work);
  sn_mutex_unlock(&p->lock);
  return t;
}

void sn_thread_pool_finish(void *user_task, void *user_context) {
  sn_thread_pool *p = user_context;
  sn_pool_task *t = user_task;
  if (p == NULL || t == NULL) return;
  int32_t slot = (int32_t)(t - p->tasks);
  sn_mutex_lock(&p->lock);
  sn_pool_range r;
  while (t->pending > 0 && sn_pool_take(p, slot, &r)) sn_pool_run(p, r, 0);
  while (t->pending > 0) sn_cond_wait(&p->done, &p->lock);
  t->in_use = false;
  sn_mutex_unlock(&p->lock);
}
