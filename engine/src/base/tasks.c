/* Stage runner (see tasks.h). */
#include "base/tasks.h"

#include <stddef.h>

#include "platform/platform.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SN_PAUSE() _mm_pause()
#else
#define SN_PAUSE() ((void)0)
#endif

#define SN_YIELD() sn_thread_yield()

/// Spins before a waiting thread starts yielding its core: long enough to
/// cover a stage of a few microseconds, short enough that a helper that
/// shares its core with the caller gets out of the way.
#define SN_SPINS_BEFORE_YIELD 1024
/// When the caller has waited for a helper's block this long, and more than
/// SN_STALL_FACTOR times what its own blocks of the stage took, it decides
/// the helper lost its core (an oversubscribed machine): the rest of the run
/// goes solo, and the world's next runs too, for a backoff that doubles with
/// each stall (up to SN_MAX_SOLO_RUNS) and halves with each clean parallel
/// run. Checked every SN_STALL_CHECK spins (a clock read).
#define SN_STALL_MIN_NS  300000.0
#define SN_STALL_FACTOR  8.0
#define SN_STALL_CHECK   64
#define SN_MAX_SOLO_RUNS 256

static double sn_now_ns(void) { return sn_clock_ms() * 1e6; }
/// Waits a helper makes for the caller to start driving (see sn_stage_helper).
#define SN_SPINS_BEFORE_GIVING_UP (SN_SPINS_BEFORE_YIELD + 256)

enum { SN_RUNNER_STARTING = 0, SN_RUNNER_DRIVING = 1, SN_RUNNER_FINISHED = 2 };

size_t sn_stage_runner_bytes(int32_t capacity) { return (size_t)capacity * sizeof(sn_stage) + 64; }

bool sn_stage_runner_init(sn_stage_runner *r, sn_arena *arena, int32_t capacity, int32_t workers, sn_stage_fn *fn,
                          void *context) {
  uintptr_t p = (uintptr_t)sn_arena_alloc(arena, (size_t)capacity * sizeof(sn_stage) + 64);
  if (p == 0) return false;
  /* own cache line for the counters of the first stage */
  p = (p + 63) & ~(uintptr_t)63;
  sn_stage_runner_init_on(r, (sn_stage *)p, capacity, workers, fn, context);
  return true;
}

void sn_stage_runner_init_on(sn_stage_runner *r, sn_stage *stages, int32_t capacity, int32_t workers, sn_stage_fn *fn,
                             void *context) {
  r->stages = stages;
  r->count = 0;
  r->capacity = capacity;
  r->workers = workers < 1 ? 1 : workers;
  r->fn = fn;
  r->context = context;
  atomic_init(&r->current, 0);
  atomic_init(&r->state, SN_RUNNER_STARTING);
  atomic_init(&r->solo, 0);
  atomic_init(&r->helper_blocks, 0);
}

static sn_stage *sn_stage_push(sn_stage_runner *r) {
  if (r->count >= r->capacity) return NULL; /* sized by the caller: never */
  sn_stage *s = r->stages + r->count++;
  atomic_init(&s->claimed, 0);
  atomic_init(&s->claimed_blocks, 0u);
  atomic_init(&s->done, 0);
  return s;
}

/* Appends a stage of count items in blocks of block items. */
static void sn_stage_add_blocks(sn_stage_runner *r, int32_t kind, int32_t arg, int32_t first, int32_t count,
                                int32_t block) {
  if (count <= 0) return;
  sn_stage *s = sn_stage_push(r);
  if (s == NULL) return;
  s->kind = kind;
  s->arg = arg;
  s->first = first;
  s->count = count;
  s->block_size = block;
  s->block_count = (count + block - 1) / block;
  /* one block: the caller runs it (handing it to a helper only adds a trip
   * of the data between cores) */
  s->main_only = s->block_count == 1;
}

void sn_stage_add(sn_stage_runner *r, int32_t kind, int32_t arg, int32_t first, int32_t count, int32_t min_block,
                  int32_t multiple) {
  int32_t block = count;
  if (r->workers > 1 && count > 0) {
    /* about four blocks per worker, so a late or slow worker costs little */
    int32_t target = (count + 4 * r->workers - 1) / (4 * r->workers);
    block = target > min_block ? target : min_block;
    if (multiple > 1) block = (block + multiple - 1) / multiple * multiple;
    if (block > count) block = count;
  }
  sn_stage_add_blocks(r, kind, arg, first, count, block);
}

void sn_stage_add_each(sn_stage_runner *r, int32_t kind, int32_t arg, int32_t first, int32_t count) {
  sn_stage_add_blocks(r, kind, arg, first, count, r->workers > 1 ? 1 : count);
}

void sn_stage_add_main(sn_stage_runner *r, int32_t kind, int32_t arg) {
  sn_stage *s = sn_stage_push(r);
  if (s == NULL) return;
  s->kind = kind;
  s->arg = arg;
  s->first = 0;
  s->count = 1;
  s->block_size = 1;
  s->block_count = 1;
  s->main_only = true;
}

/* Runs block b of a stage and counts it done. */
static void sn_stage_block(sn_stage_runner *r, sn_stage *s, int32_t b, bool is_main) {
  int32_t begin = s->first + b * s->block_size;
  int32_t end = begin + s->block_size;
  if (end > s->first + s->count) end = s->first + s->count;
  r->fn(r->context, s, begin, end);
  if (!is_main) atomic_fetch_add_explicit(&r->helper_blocks, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->done, 1, memory_order_release);
}

/* The n-th block worker tries: its own share first, then the others' from the
 * far end (see Affinity in tasks.h). */
static inline int32_t sn_stage_block_order(int32_t n, int32_t own_begin, int32_t own_end, int32_t count) {
  int32_t own = own_end - own_begin;
  if (n < own) return own_begin + n;
  int32_t back = count - 1 - (n - own); /* count-1, count-2, ... skipping [own_begin, own_end) */
  return back >= own_end ? back : back - own;
}

/* Claims and runs blocks of stage index until none is left; returns how many. */
static int32_t sn_stage_work(sn_stage_runner *r, int32_t index, int32_t worker) {
  sn_stage *s = r->stages + index;
  bool is_main = worker == 0;
  int32_t ran = 0;
  if (s->main_only && !is_main) return 0;
  if (s->block_count <= 64) {
    int32_t count = s->block_count;
    int32_t own_begin = (int32_t)((int64_t)worker * count / r->workers);
    int32_t own_end = (int32_t)((int64_t)(worker + 1) * count / r->workers);
    for (int32_t n = 0; n < count; ++n) {
      if (!is_main && atomic_load_explicit(&r->solo, memory_order_relaxed)) return ran;
      int32_t b = sn_stage_block_order(n, own_begin, own_end, count);
      uint64_t bit = 1ull << b;
      if (atomic_load_explicit(&s->claimed_blocks, memory_order_relaxed) & bit) continue;
      if (atomic_fetch_or_explicit(&s->claimed_blocks, bit, memory_order_relaxed) & bit) continue;
      sn_stage_block(r, s, b, is_main);
      ++ran;
    }
    return ran;
  }
  for (;; ++ran) {
    if (!is_main && atomic_load_explicit(&r->solo, memory_order_relaxed)) return ran;
    int32_t b = atomic_fetch_add_explicit(&s->claimed, 1, memory_order_relaxed);
    if (b >= s->block_count) return ran;
    sn_stage_block(r, s, b, is_main);
  }
}

/* A helper: works on whatever stage is current until the runner ends. */
static void sn_stage_helper(int32_t begin, int32_t end, uint32_t worker, void *context) {
  (void)worker;
  sn_stage_runner *r = context;
  /* The caller starts driving once enqueue_task has returned. A helper run
   * inline by enqueue_task itself (allowed: it then returns NULL) would wait
   * for a caller that is blocked in enqueue_task, so a helper that does not
   * see the caller drive within a bounded wait leaves: nothing is lost, the
   * caller does every block. */
  for (int32_t spins = 0;; ++spins) {
    int32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
    if (state == SN_RUNNER_DRIVING) break;
    if (state == SN_RUNNER_FINISHED || spins >= SN_SPINS_BEFORE_GIVING_UP) return;
    if (spins < SN_SPINS_BEFORE_YIELD) {
      SN_PAUSE();
    } else {
      SN_YIELD();
    }
  }
  for (int32_t item = begin; item < end; ++item) {
    int32_t last = -1;
    int32_t spins = 0;
    for (;;) {
      int32_t current = atomic_load_explicit(&r->current, memory_order_acquire);
      if (current >= r->count || atomic_load_explicit(&r->solo, memory_order_relaxed)) break;
      if (current != last) {
        sn_stage_work(r, current, item + 1);
        last = current;
        spins = 0;
        continue;
      }
      if (++spins < SN_SPINS_BEFORE_YIELD) {
        SN_PAUSE();
      } else {
        SN_YIELD();
      }
    }
  }
}

/* A run without helpers: the caller runs every block of every stage in
 * order, with none of the claiming and counting that sharing needs (a small
 * world's step is hundreds of stages of one block each). */
static void sn_stage_run_solo(sn_stage_runner *r) {
  for (int32_t i = 0; i < r->count; ++i) {
    const sn_stage *s = r->stages + i;
    const int32_t last = s->first + s->count;
    for (int32_t begin = s->first; begin < last; begin += s->block_size) {
      int32_t end = begin + s->block_size;
      r->fn(r->context, s, begin, end < last ? end : last);
    }
  }
}

void sn_stage_run(sn_task_system *tasks, sn_stage_runner *r) {
  void *handle = NULL;
  bool started = false;
  int32_t helpers = r->workers - 1;
  if (helpers > 0 && tasks->solo_runs > 0) {
    /* a helper stalled recently: stay solo for a while */
    tasks->solo_runs--;
    helpers = 0;
  }
  if (helpers <= 0 || r->count == 0 || tasks->enqueue_task == NULL) {
    sn_stage_run_solo(r);
    return;
  }
  bool stalled = false;
  atomic_store_explicit(&r->solo, helpers > 0 ? 0 : 1, memory_order_relaxed);
  atomic_store_explicit(&r->current, 0, memory_order_release);
  atomic_store_explicit(&r->state, SN_RUNNER_STARTING, memory_order_release);
  if (helpers > 0 && r->count > 0 && tasks->enqueue_task != NULL) {
    handle = tasks->enqueue_task(sn_stage_helper, helpers, 1, r, tasks->user_task_context);
    started = true;
  }
  atomic_store_explicit(&r->state, SN_RUNNER_DRIVING, memory_order_release);
  for (int32_t i = 0; i < r->count; ++i) {
    sn_stage *s = r->stages + i;
    atomic_store_explicit(&r->current, i, memory_order_release);
    bool watch = helpers > 0 && !stalled && s->block_count > 1;
    double t0 = watch ? sn_now_ns() : 0.0;
    int32_t ran = sn_stage_work(r, i, 0);
    if (atomic_load_explicit(&s->done, memory_order_acquire) >= s->block_count) continue;
    double t1 = watch ? sn_now_ns() : 0.0;
    double limit = ran > 0 ? SN_STALL_FACTOR * (t1 - t0) / (double)ran : 0.0;
    if (limit < SN_STALL_MIN_NS) limit = SN_STALL_MIN_NS;
    int32_t spins = 0;
    while (atomic_load_explicit(&s->done, memory_order_acquire) < s->block_count) {
      if (++spins < SN_SPINS_BEFORE_YIELD) {
        SN_PAUSE();
      } else {
        SN_YIELD();
      }
      if (watch && !stalled && spins % SN_STALL_CHECK == 0 && sn_now_ns() - t1 > limit) {
        /* a helper holds a block and has lost its core: it finishes that
         * block when it runs again, but takes no more */
        stalled = true;
        atomic_store_explicit(&r->solo, 1, memory_order_relaxed);
      }
    }
  }
  atomic_store_explicit(&r->current, r->count, memory_order_release);
  atomic_store_explicit(&r->state, SN_RUNNER_FINISHED, memory_order_release);
  if (started && handle != NULL) tasks->finish_task(handle, tasks->user_task_context);
  tasks->helper_blocks += atomic_load_explicit(&r->helper_blocks, memory_order_relaxed);
  if (stalled) {
    tasks->solo_backoff = tasks->solo_backoff == 0 ? 1 : tasks->solo_backoff * 2;
    if (tasks->solo_backoff > SN_MAX_SOLO_RUNS) tasks->solo_backoff = SN_MAX_SOLO_RUNS;
    tasks->solo_runs = tasks->solo_backoff;
  } else if (helpers > 0) {
    tasks->solo_backoff /= 2;
  }
}
