/* Threads: the world def's task callbacks, the stage runner and the default
 * pool (sinew/thread_pool.h).
 *
 * The contract under test: results are bit-identical for every worker count
 * and every schedule a job system may choose (ranges run in parallel, late,
 * inline, in reverse, one after another on one thread), and a step never
 * waits on a helper that has not started. Timing is the benchmark's business
 * (sinew-bench --threads N); nothing here measures speed. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_main.h"
#include "base/tasks.h"
#include "world/world.h"
#include "rigid/solver.h"
#include "report.h"
#include "scenes.h"
#include "sinew/thread_pool.h"
#include "sinew/soft.h"

/* ---------------------------------------------------------- schedulers */

/* Runs the whole task before returning (allowed: returns NULL). */
static void *inline_enqueue(sn_task_callback *task, int32_t count, int32_t min_range, void *task_context, void *user) {
  (void)min_range, (void)user;
  task(0, count, 0, task_context);
  return NULL;
}
static void inline_finish(void *task, void *user) { (void)task, (void)user; }

/* Defers every range to finish_task, which runs them in reverse order on the
 * caller: helpers start only after the step has done all the work. */
typedef struct deferred {
  sn_task_callback *task;
  void *context;
  int32_t count;
  int used;
  int ranges_run;
} deferred;

static void *deferred_enqueue(sn_task_callback *task, int32_t count, int32_t min_range, void *task_context,
                              void *user) {
  (void)min_range;
  deferred *d = user;
  ck_assert_int_eq(d->used, 0); /* the engine finishes a task before it enqueues the next */
  d->task = task;
  d->context = task_context;
  d->count = count;
  d->used = 1;
  return d;
}
static void deferred_finish(void *handle, void *user) {
  deferred *d = user;
  ck_assert_ptr_eq(handle, d);
  for (int32_t i = d->count - 1; i >= 0; --i) {
    d->task(i, i + 1, (uint32_t)i + 1, d->context);
    d->ranges_run++;
  }
  d->used = 0;
}

/* One extra thread runs the ranges one after another, after a short sleep:
 * helpers join late, in the middle of the stages. */
typedef struct late_thread {
  pthread_t thread;
  sn_task_callback *task;
  void *context;
  int32_t count;
} late_thread;

static void *late_main(void *arg) {
  late_thread *t = arg;
  struct timespec pause = {0, 200000}; /* 0.2 ms */
  nanosleep(&pause, NULL);
  for (int32_t i = 0; i < t->count; ++i) t->task(i, i + 1, (uint32_t)i + 1, t->context);
  return NULL;
}
static void *late_enqueue(sn_task_callback *task, int32_t count, int32_t min_range, void *task_context, void *user) {
  (void)min_range;
  late_thread *t = user;
  t->task = task;
  t->context = task_context;
  t->count = count;
  ck_assert_int_eq(pthread_create(&t->thread, NULL, late_main, t), 0);
  return t;
}
static void late_finish(void *handle, void *user) {
  (void)user;
  late_thread *t = handle;
  pthread_join(t->thread, NULL);
}

/* ------------------------------------------------ same bits, any schedule */

typedef struct scene_case {
  const char *name;
  int32_t size, steps;
  bool sleep;
  float drop_height; ///< with sleep: a box dropped on the sleeping pile from here
} scene_case;

/* rigid (pyramid, rain), joints (chain), XPBD (cloth, jelly), all of it
 * (mixed); with sleeping on, rain's boxes fall asleep and later ones wake
 * them (wake-ups happen in the narrowphase's ordered pass) */
static const scene_case cases[] = {
    {"pyramid", 20, 120, false, 0.0f}, {"rain", 200, 120, false, 0.0f},   {"chain", 20, 120, false, 0.0f},
    {"cloth", 16, 120, false, 0.0f},   {"jelly", 5, 120, false, 0.0f},    {"mixed", 1, 120, false, 0.0f},
    {"rain", 200, 500, true, 3.0f},    {"pyramid", 20, 400, true, 22.0f},
};
#define CASE_COUNT ((int)(sizeof cases / sizeof cases[0]))

enum { SCHED_SINGLE, SCHED_POOL2, SCHED_POOL4, SCHED_INLINE, SCHED_DEFERRED, SCHED_LATE, SCHED_COUNT };
static const char *const sched_names[SCHED_COUNT] = {"1 worker", "pool of 2", "pool of 4",
                                                     "inline",   "deferred",  "late thread"};

static uint64_t run_case(const scene_case *c, int sched, int32_t *stage_helpers_ran) {
  sn_scene scene;
  ck_assert_msg(sn_scene_build(&scene, c->name, c->size, 0, c->sleep), "cannot build %s", c->name);
  sn_thread_pool *pool = NULL;
  deferred d;
  memset(&d, 0, sizeof d);
  late_thread late;
  memset(&late, 0, sizeof late);
  sn_result r = SN_OK;
  switch (sched) {
  case SCHED_POOL2:
  case SCHED_POOL4:
    pool = sn_thread_pool_create(sched == SCHED_POOL2 ? 2 : 4);
    ck_assert_ptr_nonnull(pool);
    r = sn_world_set_task_system(scene.world, sn_thread_pool_worker_count(pool), sn_thread_pool_enqueue,
                                 sn_thread_pool_finish, pool);
    break;
  case SCHED_INLINE:
    r = sn_world_set_task_system(scene.world, 3, inline_enqueue, inline_finish, NULL);
    break;
  case SCHED_DEFERRED:
    r = sn_world_set_task_system(scene.world, 3, deferred_enqueue, deferred_finish, &d);
    break;
  case SCHED_LATE:
    r = sn_world_set_task_system(scene.world, 2, late_enqueue, late_finish, &late);
    break;
  default:
    break;
  }
  ck_assert_int_eq(r, SN_OK);
  /* these scenes are small: split them anyway (white box) */
  scene.world->parallel_min_items = 0;
  int32_t fewest_awake = INT32_MAX, woken = 0;
  for (int32_t i = 0; i < c->steps; ++i) {
    if (c->sleep && i == c->steps - 100) {
      /* once the pile sleeps, drop a box on it */
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){0.3f, c->drop_height};
      sn_body_id b = sn_create_body(scene.world, &bd);
      sn_polygon box;
      ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
      sn_shape_def sd = sn_default_shape_def();
      ck_assert_int_ne(sn_create_polygon_shape(scene.world, b, &sd, &box).index1, 0);
    }
    ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
    sn_debug_counts dc;
    sn_world_get_debug_counts(scene.world, &dc);
    if (dc.awake_bodies > fewest_awake) woken = 1;
    if (dc.awake_bodies < fewest_awake) fewest_awake = dc.awake_bodies;
  }
  if (c->sleep) {
    /* the case does what it is for: bodies slept, and some woke again */
    sn_debug_counts dc;
    sn_world_get_debug_counts(scene.world, &dc);
    ck_assert_msg(fewest_awake < dc.dynamic_bodies && woken, "%s: no sleep (%d of %d awake) or no wake-up", c->name,
                  (int)fewest_awake, (int)dc.dynamic_bodies);
  }
  if (stage_helpers_ran) *stage_helpers_ran = d.ranges_run;
  sn_scene_metrics m;
  sn_scene_measure(&scene, &m);
  sn_scene_destroy(&scene);
  sn_thread_pool_destroy(pool);
  return m.state_hash;
}

START_TEST(test_same_bits_any_schedule) {
  const scene_case *c = &cases[_i];
  uint64_t single = run_case(c, SCHED_SINGLE, NULL);
  for (int s = SCHED_POOL2; s < SCHED_COUNT; ++s) {
    int32_t ran = 0;
    uint64_t h = run_case(c, s, &ran);
    ck_assert_msg(h == single, "%s %d: %s gives 0x%016" PRIx64 ", one worker 0x%016" PRIx64, c->name, (int)c->size,
                  sched_names[s], h, single);
    if (s == SCHED_DEFERRED) ck_assert_int_gt(ran, 0); /* the engine did enqueue, and went on without them */
  }
}
END_TEST

/* A small world stays on the calling thread: handing its stages between
 * cores costs more than it saves (SN_PARALLEL_MIN_ITEMS). */
START_TEST(test_small_world_stays_on_caller) {
  sn_scene scene;
  ck_assert(sn_scene_build(&scene, "pyramid", 10, 0, false)); /* 55 boxes */
  deferred d;
  memset(&d, 0, sizeof d);
  ck_assert_int_eq(sn_world_set_task_system(scene.world, 2, deferred_enqueue, deferred_finish, &d), SN_OK);
  ck_assert_int_eq(scene.world->parallel_min_items, SN_PARALLEL_MIN_ITEMS);
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(d.ranges_run, 0); /* never enqueued */
  scene.world->parallel_min_items = 0;
  ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
  ck_assert_int_gt(d.ranges_run, 0);
  sn_scene_destroy(&scene);
}
END_TEST

/* ------------------------------------------------------------ the API */

START_TEST(test_def_and_setter_validation) {
  sn_world_def def = sn_default_world_def();
  ck_assert_int_eq(def.worker_count, 1);
  sn_result r;
  def.worker_count = 0;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  def.worker_count = SN_MAX_WORKERS + 1;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  def.worker_count = 2; /* no callbacks */
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);

  sn_thread_pool *pool = sn_thread_pool_create(2);
  ck_assert_ptr_nonnull(pool);
  def = sn_default_world_def();
  sn_thread_pool_apply(pool, &def);
  ck_assert_int_eq(def.worker_count, 2);
  sn_world *w = sn_create_world(&def, &r);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(sn_world_get_worker_count(w), 2);
  sn_world_def back;
  ck_assert_int_eq(sn_world_get_def(w, &back), SN_OK);
  ck_assert_int_eq(back.worker_count, 2);
  ck_assert(back.enqueue_task == sn_thread_pool_enqueue && back.finish_task == sn_thread_pool_finish);
  ck_assert_ptr_eq(back.user_task_context, pool);
  /* refused settings leave the world as it was */
  ck_assert_int_eq(sn_world_set_task_system(w, 0, NULL, NULL, NULL), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_task_system(w, 3, sn_thread_pool_enqueue, NULL, pool), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_task_system(w, SN_MAX_WORKERS + 1, sn_thread_pool_enqueue, sn_thread_pool_finish, pool),
                   SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_get_worker_count(w), 2);
  ck_assert_int_eq(sn_world_set_task_system(w, 1, NULL, NULL, NULL), SN_OK);
  ck_assert_int_eq(sn_world_get_worker_count(w), 1);
  ck_assert_int_eq(sn_world_set_task_system(NULL, 1, NULL, NULL, NULL), SN_ERR_NULL);
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);

  ck_assert_ptr_null(sn_thread_pool_create(0));
  ck_assert_ptr_null(sn_thread_pool_create(SN_MAX_WORKERS + 1));
  sn_thread_pool_destroy(NULL); /* no-op */
}
END_TEST

/* --------------------------------------------------------- stage runner */

#define RUN_ITEMS  1000
#define RUN_STAGES 40

typedef struct runner_probe {
  int32_t value[RUN_ITEMS]; ///< stage k sets value[i] = value[i] + k + 1 (each item once per stage)
  atomic_int visits[RUN_STAGES];
  atomic_int order_errors;
  atomic_int main_only_off_main;
  pthread_t main_thread;
} runner_probe;

static void probe_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  runner_probe *p = context;
  int32_t k = stage->arg;
  if (stage->main_only) {
    if (!pthread_equal(pthread_self(), p->main_thread)) atomic_fetch_add(&p->main_only_off_main, 1);
    begin = 0; /* one block standing for every item */
    end = RUN_ITEMS;
  }
  for (int32_t i = begin; i < end; ++i) {
    /* every item must have seen every earlier stage: value = sum of 1..k */
    if (p->value[i] != k * (k + 1) / 2) atomic_fetch_add(&p->order_errors, 1);
    p->value[i] += k + 1;
    atomic_fetch_add(&p->visits[k], 1);
  }
}

START_TEST(test_stage_runner_order_and_coverage) {
  static runner_probe probe;
  for (int workers = 1; workers <= 4; workers += 3) {
    memset(&probe, 0, sizeof probe);
    probe.main_thread = pthread_self();
    sn_thread_pool *pool = sn_thread_pool_create(workers);
    ck_assert_ptr_nonnull(pool);
    sn_world_def def = sn_default_world_def();
    sn_thread_pool_apply(pool, &def);
    sn_world *w = sn_create_world(&def, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert(sn_arena_reserve(&w->arena, &w->mem, sn_stage_runner_bytes(RUN_STAGES)));
    sn_stage_runner r;
    ck_assert(sn_stage_runner_init(&r, &w->arena, RUN_STAGES, workers, probe_stage, &probe));
    for (int32_t k = 0; k < RUN_STAGES; ++k) {
      if (k % 7 == 3) {
        sn_stage_add_main(&r, 0, k);
        continue;
      }
      sn_stage_add(&r, 0, k, 0, RUN_ITEMS, 1 + k % 5, k % 3 == 0 ? 2 : 1);
    }
    sn_stage_add(&r, 0, 0, 0, 0, 1, 1); /* empty: skipped */
    ck_assert_int_eq(r.count, RUN_STAGES);
    sn_stage_run(&w->tasks, &r);
    ck_assert_int_eq(atomic_load(&probe.main_only_off_main), 0);
    ck_assert_int_eq(atomic_load(&probe.order_errors), 0);
    for (int32_t i = 0; i < RUN_ITEMS; ++i) ck_assert_int_eq(probe.value[i], RUN_STAGES * (RUN_STAGES + 1) / 2);
    for (int32_t k = 0; k < RUN_STAGES; ++k) ck_assert_int_eq(atomic_load(&probe.visits[k]), RUN_ITEMS);
    /* blocks: multiples honoured, at least min_block, cover the range */
    for (int32_t k = 0; k < r.count; ++k) {
      const sn_stage *s = r.stages + k;
      if (s->main_only) continue;
      ck_assert_int_ge(s->block_count * s->block_size, s->count);
      ck_assert_int_lt((s->block_count - 1) * s->block_size, s->count);
      if (workers > 1 && s->block_size < s->count) {
        ck_assert_int_ge(s->block_size, 1 + s->arg % 5);
        if (s->arg % 3 == 0) ck_assert_int_eq(s->block_size % 2, 0);
      }
      if (workers == 1) ck_assert_int_eq(s->block_count, 1);
    }
    sn_destroy_world(w);
    sn_thread_pool_destroy(pool);
  }
}
END_TEST

/* A helper that loses its core in the middle of a block (here: sleeps 20 ms
 * in its first block) sends the run solo: the caller does the remaining
 * blocks, the values are right, and the world backs off for later runs. */
typedef struct stall_probe {
  atomic_int helper_blocks, main_blocks, slept;
  sn_stage_runner *runner;
  int32_t value[RUN_ITEMS];
  pthread_t main_thread;
} stall_probe;

static void stall_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  stall_probe *p = context;
  bool on_main = pthread_equal(pthread_self(), p->main_thread) != 0;
  atomic_fetch_add(on_main ? &p->main_blocks : &p->helper_blocks, 1);
  if (on_main) {
    /* the caller's blocks take 1 ms: the helper has time to join every stage,
     * and a stall is a wait of more than 8 of them */
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  } else if (stage->arg >= 2 && atomic_exchange(&p->slept, 1) == 0) {
    /* a lost time slice: hold the block until the caller gives up on this
     * helper (it must, after 8x its own block time), at most 5 s */
    for (int i = 0; i < 5000 && !atomic_load(&p->runner->solo); ++i) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
    }
  }
  for (int32_t i = begin; i < end; ++i) p->value[i] += stage->arg + 1;
}

START_TEST(test_stalled_helper_goes_solo) {
  static stall_probe probe;
  sn_thread_pool *pool = sn_thread_pool_create(2);
  ck_assert_ptr_nonnull(pool);
  sn_world_def def = sn_default_world_def();
  sn_thread_pool_apply(pool, &def);
  /* On a loaded machine the helper may not get a core in time at all (then
   * the caller rightly does everything): try a few fresh worlds. */
  int attempt = 0;
  sn_world *w = NULL;
  sn_stage_runner r;
  for (; attempt < 8; ++attempt) {
    memset(&probe, 0, sizeof probe);
    probe.main_thread = pthread_self();
    if (w != NULL) sn_destroy_world(w);
    w = sn_create_world(&def, NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert(sn_array_reserve(&w->mem, w->stages, 8));
    sn_stage_runner_init_on(&r, w->stages.data, 8, 2, stall_stage, &probe);
    probe.runner = &r;
    for (int32_t k = 0; k < 8; ++k) sn_stage_add(&r, 0, k, 0, RUN_ITEMS, 1, 1);
    sn_stage_run(&w->tasks, &r);
    /* whoever ran what, every item saw every stage once */
    for (int32_t i = 0; i < RUN_ITEMS; ++i) ck_assert_int_eq(probe.value[i], 8 * 9 / 2);
    if (atomic_load(&probe.slept)) break;
  }
  /* the pool's helper did start and take a block (with 2 workers the pool
   * once ran the step's only helper inline, which then gave up), and stalled */
  ck_assert_msg(atomic_load(&probe.slept) == 1, "the helper never ran a block of stage 2+ in %d tries", attempt);
  /* the caller then did the rest alone and the world backs off... */
  ck_assert_int_gt(w->tasks.solo_runs, 0);
  ck_assert_int_gt(atomic_load(&probe.main_blocks), atomic_load(&probe.helper_blocks));
  /* ...so the next run starts no helper */
  int32_t before = atomic_load(&probe.helper_blocks);
  int32_t solo = w->tasks.solo_runs;
  sn_stage_runner_init_on(&r, w->stages.data, 8, 2, stall_stage, &probe);
  sn_stage_add(&r, 0, 0, 0, RUN_ITEMS, 1, 1);
  sn_stage_run(&w->tasks, &r);
  ck_assert_int_eq(atomic_load(&probe.helper_blocks), before);
  ck_assert_int_eq(w->tasks.solo_runs, solo - 1);
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}
END_TEST

/* A run that starts no helper (here: the world backing off after a stall,
 * with stages cut into blocks for four workers) runs every block of every
 * stage on the caller, in order: block after block from the stage's first
 * item, each item once per stage, stage after stage. */
typedef struct solo_probe {
  int32_t value[RUN_ITEMS];
  int32_t next_begin[RUN_STAGES]; ///< where the next block of stage k must start
  int32_t blocks, out_of_order, off_main;
  pthread_t main_thread;
} solo_probe;

static void solo_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  solo_probe *p = context;
  int32_t k = stage->arg;
  p->blocks++;
  if (!pthread_equal(pthread_self(), p->main_thread)) p->off_main++;
  if (begin != p->next_begin[k] || end <= begin || end - begin > stage->block_size) p->out_of_order++;
  p->next_begin[k] = end;
  for (int32_t i = begin; i < end; ++i) {
    if (p->value[i] != k * (k + 1) / 2) p->out_of_order++;
    p->value[i] += k + 1;
  }
}

START_TEST(test_solo_run_blocks_in_order) {
  static solo_probe probe;
  memset(&probe, 0, sizeof probe);
  probe.main_thread = pthread_self();
  sn_thread_pool *pool = sn_thread_pool_create(4);
  ck_assert_ptr_nonnull(pool);
  sn_world_def def = sn_default_world_def();
  sn_thread_pool_apply(pool, &def);
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  ck_assert(sn_array_reserve(&w->mem, w->stages, RUN_STAGES));
  sn_stage_runner r;
  sn_stage_runner_init_on(&r, w->stages.data, RUN_STAGES, 4, solo_stage, &probe);
  int32_t expected_blocks = 0;
  for (int32_t k = 0; k < RUN_STAGES; ++k) {
    sn_stage_add(&r, 0, k, 0, RUN_ITEMS, 1 + k % 5, 1);
    expected_blocks += r.stages[k].block_count;
  }
  ck_assert_int_gt(expected_blocks, RUN_STAGES); /* stages of several blocks each */
  w->tasks.solo_runs = 1;                        /* a stall's backoff: this run starts no helper */
  int64_t helper_blocks = w->tasks.helper_blocks;
  sn_stage_run(&w->tasks, &r);
  ck_assert_int_eq(w->tasks.solo_runs, 0);
  ck_assert_int_eq(w->tasks.helper_blocks, helper_blocks);
  ck_assert_int_eq(probe.off_main, 0);
  ck_assert_int_eq(probe.out_of_order, 0);
  ck_assert_int_eq(probe.blocks, expected_blocks);
  for (int32_t k = 0; k < RUN_STAGES; ++k) ck_assert_int_eq(probe.next_begin[k], RUN_ITEMS);
  for (int32_t i = 0; i < RUN_ITEMS; ++i) ck_assert_int_eq(probe.value[i], RUN_STAGES * (RUN_STAGES + 1) / 2);
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}
END_TEST

/* ------------------------------------------------------------- the pool */

typedef struct cover_probe {
  atomic_int hits[4096];
  atomic_int ranges;
  atomic_int too_small;
  int32_t min_range;
  int32_t count;
} cover_probe;

static void cover_task(int32_t begin, int32_t end, uint32_t worker, void *context) {
  cover_probe *p = context;
  (void)worker;
  atomic_fetch_add(&p->ranges, 1);
  if (end - begin < p->min_range && end != p->count) atomic_fetch_add(&p->too_small, 1);
  for (int32_t i = begin; i < end; ++i) atomic_fetch_add(&p->hits[i], 1);
}

START_TEST(test_pool_covers_each_item_once) {
  static cover_probe p;
  sn_thread_pool *pool = sn_thread_pool_create(3);
  ck_assert_ptr_nonnull(pool);
  ck_assert_int_eq(sn_thread_pool_worker_count(pool), 3);
  static const int32_t counts[] = {1, 2, 3, 7, 100, 4096};
  static const int32_t mins[] = {1, 1, 2, 3, 40, 1};
  for (int c = 0; c < 6; ++c) {
    memset(&p, 0, sizeof p);
    p.count = counts[c];
    p.min_range = mins[c];
    void *h = sn_thread_pool_enqueue(cover_task, counts[c], mins[c], &p, pool);
    sn_thread_pool_finish(h, pool);
    for (int32_t i = 0; i < counts[c]; ++i) ck_assert_int_eq(atomic_load(&p.hits[i]), 1);
    ck_assert_int_le(atomic_load(&p.ranges), 3); /* at most one range per worker */
    ck_assert_int_eq(atomic_load(&p.too_small), 0);
  }
  /* many tasks in flight at once, finished in reverse */
  static cover_probe many[8];
  void *handles[8];
  for (int t = 0; t < 8; ++t) {
    memset(&many[t], 0, sizeof many[t]);
    many[t].count = 500;
    many[t].min_range = 1;
    handles[t] = sn_thread_pool_enqueue(cover_task, 500, 1, &many[t], pool);
  }
  for (int t = 7; t >= 0; --t) sn_thread_pool_finish(handles[t], pool);
  for (int t = 0; t < 8; ++t) {
    for (int32_t i = 0; i < 500; ++i) ck_assert_int_eq(atomic_load(&many[t].hits[i]), 1);
  }
  sn_thread_pool_destroy(pool);
}
END_TEST

/* A pool of workers stepping w (NULL, and w left alone, for one worker). */
static sn_thread_pool *attach_pool(sn_world *w, int32_t workers) {
  if (workers <= 1) return NULL;
  sn_thread_pool *pool = sn_thread_pool_create(workers);
  ck_assert_ptr_nonnull(pool);
  ck_assert_int_eq(sn_world_set_task_system(w, sn_thread_pool_worker_count(pool), sn_thread_pool_enqueue,
                                            sn_thread_pool_finish, pool),
                   SN_OK);
  return pool;
}

/* A world without gravity or sleep on a pool of `workers`, split however
 * small (white box: parallel_min_items 0). */
static sn_world *zero_gravity_world(int32_t workers, sn_thread_pool **pool) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  *pool = attach_pool(w, workers);
  w->parallel_min_items = 0;
  return w;
}

/* A volley of fast boxes (60 to 88 m/s, 1 to 1.5 m a step, ten times their
 * half width) at a wall 0.5 m thick, rows crossing each other's paths
 * (+-10 m/s up and down): the continuous pass sweeps ahead in parallel
 * (white box: parallel_min_items 0) and keeps the results whose fast bodies
 * met and handled before them were not stopped by their turn; the others
 * are swept in turn. Returns how many boxes are beyond the wall (centre
 * past its far face, x > 10.25) after 10 steps, when every box has reached
 * it. rest: the sweeps ahead may rest after a step where few of them held
 * (else they run every step); *rested counts the steps after which they
 * rest; *held and *redone sum the world's counts of sweeps ahead that met
 * such bodies and held, and of those dropped because one was stopped. */
enum { VOLLEY_BOXES = 80 };

static int32_t volley(int32_t workers, bool continuous, bool rest, sn_vec2 *pos, sn_vec2 *vel, int32_t *stopped_steps,
                      int32_t *rested, int32_t *held, int32_t *redone) {
  sn_thread_pool *pool = NULL;
  sn_world *w = zero_gravity_world(workers, &pool);
  ck_assert_int_eq(sn_world_enable_continuous(w, continuous), SN_OK);
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){10.0f, 0.0f};
  sn_body_id wall = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.25f, 20.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &box)));
  ck_assert_int_eq(sn_make_box(0.1f, 0.1f, &box), SN_OK);
  sn_body_id ids[VOLLEY_BOXES];
  for (int32_t i = 0; i < VOLLEY_BOXES; ++i) {
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){-6.0f + 3.0f * (float)(i % 2), -15.0f + 0.25f * (float)(i / 2)};
    bd.linear_velocity = (sn_vec2){60.0f + 7.0f * (float)(i % 5), (i / 2) % 2 == 0 ? 10.0f : -10.0f};
    ids[i] = sn_create_body(w, &bd);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ids[i], &sd, &box)));
  }
  *stopped_steps = 0;
  *rested = 0;
  *held = *redone = 0;
  for (int32_t step = 0; step < 10; ++step) {
    if (!rest) w->toi_ahead_rest = 0;
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    *rested += w->toi_ahead_rest > 0;
    *held += w->toi_ahead_held;
    *redone += w->toi_ahead_redone;
    int32_t stopped = 0;
    for (int32_t k = 0; k < w->awake_bodies.count; ++k) {
      const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
      stopped += b->is_fast && b->toi_fraction < 1.0f;
    }
    *stopped_steps += stopped > 0;
  }
  int32_t beyond = 0;
  for (int32_t i = 0; i < VOLLEY_BOXES; ++i) {
    pos[i] = sn_body_get_position(w, ids[i]);
    vel[i] = sn_body_get_linear_velocity(w, ids[i]);
    beyond += pos[i].x > 10.25f;
  }
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
  return beyond;
}

START_TEST(test_continuous_ahead_same_bits) {
  static sn_vec2 pos1[VOLLEY_BOXES], vel1[VOLLEY_BOXES], pos2[VOLLEY_BOXES], vel2[VOLLEY_BOXES];
  int32_t stopped1 = 0, stopped2 = 0, rested = 0, held = 0, redone = 0;
  ck_assert_int_eq(volley(1, true, true, pos1, vel1, &stopped1, &rested, &held, &redone), 0); /* nothing tunnels */
  ck_assert_int_eq(rested, 0);        /* one worker: no sweeps ahead */
  ck_assert_int_eq(held + redone, 0); /* (none) */
  ck_assert_int_gt(stopped1, 0);      /* continuous collision did stop boxes */
  /* 2 workers, the sweeps ahead every step, then allowed to rest: the same bits */
  for (int32_t pass = 0; pass < 2; ++pass) {
    ck_assert_int_eq(volley(2, true, pass == 1, pos2, vel2, &stopped2, &rested, &held, &redone), 0);
    if (pass == 0) {
      /* both fates of a sweep ahead that met a fast body handled before it */
      ck_assert_int_gt(held, 0);
      ck_assert_int_gt(redone, 0);
    }
    if (pass == 1) ck_assert_int_gt(rested, 0); /* crossing rows: many stop each other */
    ck_assert_int_eq(stopped2, stopped1);
    for (int32_t i = 0; i < VOLLEY_BOXES; ++i) {
      ck_assert_msg(memcmp(pos1 + i, pos2 + i, sizeof(sn_vec2)) == 0 &&
                        memcmp(vel1 + i, vel2 + i, sizeof(sn_vec2)) == 0,
                    "box %d: (%g, %g) on 2 workers, (%g, %g) on 1", (int)i, (double)pos2[i].x, (double)pos2[i].y,
                    (double)pos1[i].x, (double)pos1[i].y);
    }
  }
  /* the scene does test tunnelling: without continuous collision boxes pass */
  int32_t unused = 0;
  ck_assert_int_gt(volley(2, false, true, pos2, vel2, &unused, &rested, &held, &redone), 10);
}
END_TEST

/* Islands apart in the solver order run batch by batch (sn_wide_batches):
 * 16 pyramids of 36 boxes on one ground, with a bouncy ball (restitution
 * 0.7) dropped on every other one, stepped with batches on one worker, on
 * two workers, and colour-major (white box: solve_batches_off). The three
 * give the same bits, and the batches ran: several every step. Created
 * box by box in turn across the pyramids, the islands interleave in the
 * solver order and nothing is cut; so does a particle in the world
 * (batches solve contacts only). */
enum { BATCH_PYRAMIDS = 16, BATCH_ROWS = 8, BATCH_BOXES = BATCH_ROWS * (BATCH_ROWS + 1) / 2 };

typedef struct batch_run {
  sn_transform xf[BATCH_PYRAMIDS * (BATCH_BOXES + 1)];
  sn_vec2 v[BATCH_PYRAMIDS * (BATCH_BOXES + 1)];
  float w[BATCH_PYRAMIDS * (BATCH_BOXES + 1)];
  int32_t fewest_batches, most_batches, contacts;
  float ball_rise; /* the fastest a ball moved up after it fell */
} batch_run;

static void batch_pyramids(int32_t workers, bool off, bool interleaved, bool particle, batch_run *out) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_thread_pool *pool = attach_pool(w, workers);
  w->parallel_min_items = 0;
  w->solve_batches_off = off;
  sn_body_def bd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &bd);
  sn_shape_def sd = sn_default_shape_def();
  const sn_segment floor = {{-10.0f, 0.0f}, {200.0f, 0.0f}};
  ck_assert(sn_shape_is_valid(w, sn_create_segment_shape(w, ground, &sd, &floor)));
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  sn_body_id ids[BATCH_PYRAMIDS * (BATCH_BOXES + 1)];
  int32_t n = 0;
  /* box k of pyramid p: pyramid after pyramid, or box k of each in turn */
  for (int32_t outer = 0; outer < (interleaved ? BATCH_BOXES : BATCH_PYRAMIDS); ++outer) {
    for (int32_t inner = 0; inner < (interleaved ? BATCH_PYRAMIDS : BATCH_BOXES); ++inner) {
      const int32_t p = interleaved ? inner : outer, k = interleaved ? outer : inner;
      int32_t row = 0, first = 0;
      while (first + (BATCH_ROWS - row) <= k) first += BATCH_ROWS - row++;
      const int32_t col = k - first;
      bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){12.0f * (float)p + (float)col + 0.5f * (float)row, 0.5f + (float)row};
      ids[n] = sn_create_body(w, &bd);
      ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ids[n], &sd, &box)));
      n++;
    }
  }
  /* the balls, on the even pyramids' tops */
  const int32_t first_ball = n;
  sn_shape_def bouncy = sn_default_shape_def();
  bouncy.restitution = 0.7f;
  const sn_circle ball = {{0.0f, 0.0f}, 0.3f};
  for (int32_t p = 0; p < BATCH_PYRAMIDS; p += 2) {
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){12.0f * (float)p + 0.5f * (float)(BATCH_ROWS - 1), (float)BATCH_ROWS + 2.0f};
    ids[n] = sn_create_body(w, &bd);
    ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, ids[n], &bouncy, &ball)));
    n++;
  }
  if (particle) {
    sn_soft_body_def sbd = sn_default_soft_body_def();
    sn_soft_body_id soft = sn_create_soft_body(w, &sbd);
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){-5.0f, 3.0f};
    ck_assert(sn_particle_is_valid(w, sn_create_particle(w, soft, &pd)));
  }
  out->fewest_batches = INT32_MAX;
  out->most_batches = 0;
  out->ball_rise = 0.0f;
  for (int32_t step = 0; step < 90; ++step) {
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    if (step == 0) continue; /* (the first step's contacts are new: none touch yet) */
    if (w->solve_batches < out->fewest_batches) out->fewest_batches = w->solve_batches;
    if (w->solve_batches > out->most_batches) out->most_batches = w->solve_batches;
    for (int32_t i = first_ball; i < n; ++i) {
      const float vy = sn_body_get_linear_velocity(w, ids[i]).y;
      if (vy > out->ball_rise) out->ball_rise = vy;
    }
  }
  out->contacts = w->solver_contacts.count;
  for (int32_t i = 0; i < n; ++i) {
    out->xf[i] = sn_body_get_transform(w, ids[i]);
    out->v[i] = sn_body_get_linear_velocity(w, ids[i]);
    out->w[i] = sn_body_get_angular_velocity(w, ids[i]);
  }
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}

START_TEST(test_batches_same_bits) {
  static batch_run one, two, off, mixed, particle;
  batch_pyramids(1, false, false, false, &one);
  batch_pyramids(2, false, false, false, &two);
  batch_pyramids(1, true, false, false, &off);
  /* enough contacts to cut, cut every step into several batches (none
   * holding more than half of the contacts, sn_wide_batches) */
  ck_assert_int_ge(one.contacts, 2 * SN_SOLVE_BATCH_CONTACTS);
  ck_assert_int_ge(one.fewest_batches, 2);
  ck_assert_int_ge(two.fewest_batches, 2);
  ck_assert_int_eq(off.most_batches, 0);
  /* the balls bounced (restitution ran, batch by batch) */
  ck_assert_float_gt(one.ball_rise, 1.0f);
  const size_t n = BATCH_PYRAMIDS * BATCH_BOXES + BATCH_PYRAMIDS / 2;
  ck_assert_mem_eq(one.xf, off.xf, n * sizeof(sn_transform));
  ck_assert_mem_eq(one.v, off.v, n * sizeof(sn_vec2));
  ck_assert_mem_eq(one.w, off.w, n * sizeof(float));
  ck_assert_mem_eq(one.xf, two.xf, n * sizeof(sn_transform));
  ck_assert_mem_eq(one.v, two.v, n * sizeof(sn_vec2));
  ck_assert_mem_eq(one.w, two.w, n * sizeof(float));
  /* the islands interleaved in the solver order: no cut; nor with a particle */
  batch_pyramids(1, false, true, false, &mixed);
  ck_assert_int_ge(mixed.contacts, 2 * SN_SOLVE_BATCH_CONTACTS);
  ck_assert_int_eq(mixed.most_batches, 0);
  batch_pyramids(1, false, false, true, &particle);
  ck_assert_int_eq(particle.most_batches, 0);
}
END_TEST

/* Fast bodies are swept in groups of neighbours, each group's tree leaves
 * collected once. A crowd of 120 small boxes (0.1 m half width) flies at
 * 40 to 68 m/s through itself (rows crossing at +-12 m/s) at a wall 0.5 m
 * thick. Created row by row, body order follows space and groups are
 * formed in it; created in a scrambled order, they are formed in Morton
 * order. The results are the same bits with the groups, with every body
 * querying the trees itself, with every candidate taking the full test (no
 * candidate passed over by the noted motions: a box of the same row moves
 * with the swept one, fast or not, and one of the other rows is met; the
 * notes' stamp wraps during the run), and on two workers (sweeps ahead,
 * group by group). */
enum { SWARM_SIDE = 12, SWARM_BOXES = SWARM_SIDE * 10 };

typedef struct swarm_run {
  sn_vec2 pos[SWARM_BOXES], vel[SWARM_BOXES];
  int32_t groups, fast, kept, stopped, beyond, spatial_steps, passed;
} swarm_run;

static void swarm(int32_t workers, bool ungrouped, bool unfiltered, int32_t stride, swarm_run *out) {
  sn_thread_pool *pool = NULL;
  sn_world *w = zero_gravity_world(workers, &pool);
  w->toi_ungrouped = ungrouped;
  w->toi_unfiltered = unfiltered;
  /* the notes' stamp wraps in the run (every entry cleared then) */
  w->toi_stamp = UINT32_MAX - 4u;
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){12.0f, 0.0f};
  sn_body_id wall = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.25f, 20.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &box)));
  ck_assert_int_eq(sn_make_box(0.1f, 0.1f, &box), SN_OK);
  sn_body_id ids[SWARM_BOXES];
  for (int32_t n = 0; n < SWARM_BOXES; ++n) {
    const int32_t i = (n * stride) % SWARM_BOXES; /* stride prime to 120: each slot once */
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){-8.0f + 0.3f * (float)(i % SWARM_SIDE), -1.5f + 0.3f * (float)(i / SWARM_SIDE)};
    bd.linear_velocity = (sn_vec2){40.0f + 7.0f * (float)(i % 5), (i / SWARM_SIDE) % 2 == 0 ? 12.0f : -12.0f};
    bd.angular_velocity = (float)(i % 7) - 3.0f;
    ids[i] = sn_create_body(w, &bd);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ids[i], &sd, &box)));
  }
  out->groups = out->fast = out->kept = out->stopped = out->spatial_steps = out->passed = 0;
  for (int32_t step = 0; step < 12; ++step) {
    w->toi_ahead_rest = 0;
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    out->groups += w->toi_groups;
    out->kept += w->toi_kept_leaves;
    out->spatial_steps += w->toi_spatial;
    out->passed += w->toi_passed;
    for (int32_t k = 0; k < w->awake_bodies.count; ++k) {
      const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
      out->fast += b->is_fast;
      out->stopped += b->is_fast && b->toi_fraction < 1.0f;
    }
  }
  if (!unfiltered) ck_assert_uint_lt(w->toi_stamp, 16u); /* it wrapped */
  out->beyond = 0;
  for (int32_t i = 0; i < SWARM_BOXES; ++i) {
    out->pos[i] = sn_body_get_position(w, ids[i]);
    out->vel[i] = sn_body_get_linear_velocity(w, ids[i]);
    out->beyond += out->pos[i].x > 12.25f;
  }
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}

START_TEST(test_continuous_groups_same_bits) {
  static swarm_run grouped, alone, full, two;
  for (int pass = 0; pass < 2; ++pass) {
    const int32_t stride = pass == 0 ? 1 : 37; /* 37: scrambled */
    swarm(1, false, false, stride, &grouped);
    swarm(1, true, false, stride, &alone);
    swarm(1, false, true, stride, &full);
    swarm(2, false, false, stride, &two);
    ck_assert_int_gt(grouped.fast, 300);  /* most boxes are fast most steps */
    ck_assert_int_gt(grouped.stopped, 0); /* and continuous collision stops some */
    ck_assert_int_eq(grouped.beyond, 0);  /* nothing passes the wall */
    /* groups hold several bodies on average, and kept leaves; none without them */
    ck_assert_int_gt(grouped.groups, 0);
    ck_assert_int_le(3 * grouped.groups, grouped.fast);
    ck_assert_int_gt(grouped.kept, 0);
    ck_assert_int_eq(alone.groups, 0);
    ck_assert_int_eq(alone.kept, 0);
    ck_assert_int_eq(two.groups, grouped.groups); /* (the groups depend on the bodies only) */
    /* row by row: body order at first; scrambled: Morton order at first */
    if (pass == 0) ck_assert_int_lt(grouped.spatial_steps, 12);
    if (pass == 1) ck_assert_int_gt(grouped.spatial_steps, 0);
    /* most candidates are passed over by the motions; none when every one
     * takes the full test */
    ck_assert_int_gt(grouped.passed, grouped.fast);
    ck_assert_int_eq(full.passed, 0);
    const swarm_run *other[3] = {&alone, &full, &two};
    const char *names[3] = {"ungrouped", "unfiltered", "on 2 workers"};
    for (int r = 0; r < 3; ++r) {
      ck_assert_int_eq(other[r]->fast, grouped.fast);
      ck_assert_int_eq(other[r]->stopped, grouped.stopped);
      for (int32_t i = 0; i < SWARM_BOXES; ++i) {
        ck_assert_msg(memcmp(grouped.pos + i, other[r]->pos + i, sizeof(sn_vec2)) == 0 &&
                          memcmp(grouped.vel + i, other[r]->vel + i, sizeof(sn_vec2)) == 0,
                      "stride %d, box %d: (%g, %g) %s, (%g, %g) grouped", (int)stride, (int)i,
                      (double)other[r]->pos[i].x, (double)other[r]->pos[i].y, names[r], (double)grouped.pos[i].x,
                      (double)grouped.pos[i].y);
      }
    }
  }
}
END_TEST

/* The substep loop's bar: a pyramid of 20 rows (210 boxes, about 600
 * contacts) on two workers runs its loop on the calling thread (under
 * SN_LOOP_MEASURE_FACTOR x the parallel minimum, 1000 here); with the
 * minimum 0, on both. The same bits either way. */
START_TEST(test_small_loop_stays_on_caller) {
  uint64_t hash[2];
  for (int pass = 0; pass < 2; ++pass) {
    sn_scene scene;
    ck_assert(sn_scene_build(&scene, "pyramid", 20, 0, false));
    sn_thread_pool *pool = attach_pool(scene.world, 2);
    scene.world->parallel_min_items = pass == 0 ? 1000 : 0;
    for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
    const int32_t contacts = scene.world->solver_contacts.count;
    ck_assert_int_gt(contacts, 400);
    ck_assert_int_lt(contacts, SN_LOOP_MEASURE_FACTOR * 1000);
    ck_assert_int_eq(scene.world->loop_workers, pass == 0 ? 1 : 2);
    sn_scene_metrics m;
    sn_scene_measure(&scene, &m);
    hash[pass] = m.state_hash;
    sn_scene_destroy(&scene);
    sn_thread_pool_destroy(pool);
  }
  ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* One body touching many: a plank on the ground under a row of 72 boxes,
 * each with two more on it. Every box on the plank needs a colour the
 * plank has not used, so the plank's contacts fill the colours one group
 * each and the rest overflow; on two workers each run of such one-block
 * colours is one stage (sn_add_color_stages). Returns a hash of the
 * bodies' poses after 40 steps (sleep off), the colours holding a single
 * contact and the contacts in the overflow at the end. */
static uint64_t plank_row(int32_t workers, int32_t *single_colors, int32_t *overflow, int32_t *loop_workers) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_thread_pool *pool = attach_pool(w, workers);
  w->parallel_min_items = 0; /* split however small (white box) */
  sn_shape_def sd = sn_default_shape_def();
  sn_body_def bd = sn_default_body_def();
  sn_polygon ground, plank, box;
  ck_assert_int_eq(sn_make_box(50.0f, 1.0f, &ground), SN_OK);
  ck_assert_int_eq(sn_make_box(40.0f, 0.25f, &plank), SN_OK);
  ck_assert_int_eq(sn_make_box(0.25f, 0.25f, &box), SN_OK);
  bd.position = (sn_vec2){0.0f, -1.0f};
  ck_assert_int_ne(sn_create_polygon_shape(w, sn_create_body(w, &bd), &sd, &ground).index1, 0);
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 0.25f};
  ck_assert_int_ne(sn_create_polygon_shape(w, sn_create_body(w, &bd), &sd, &plank).index1, 0);
  for (int32_t i = 0; i < 72; ++i) {
    for (int32_t j = 0; j < 3; ++j) {
      bd.position = (sn_vec2){-36.0f + (float)i, 0.75f + 0.5f * (float)j};
      ck_assert_int_ne(sn_create_polygon_shape(w, sn_create_body(w, &bd), &sd, &box).index1, 0);
    }
  }
  for (int i = 0; i < 40; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  int32_t per_color[SN_WIDE_COLORS] = {0};
  for (int32_t k = 0; k < w->solver_contacts.count; ++k) per_color[w->contact_colors.data[k]]++;
  *single_colors = 0;
  for (int32_t c = 0; c < SN_WIDE_OVERFLOW; ++c) *single_colors += per_color[c] == 1;
  *overflow = per_color[SN_WIDE_OVERFLOW];
  *loop_workers = w->loop_workers;
  uint64_t h = 1469598103934665603ull;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    const float f[4] = {b->xf.p.x, b->xf.p.y, b->xf.q.c, b->xf.q.s};
    uint32_t u[4];
    memcpy(u, f, sizeof u);
    for (int k = 0; k < 4; ++k) h = (h ^ u[k]) * 1099511628211ull;
  }
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
  return h;
}

START_TEST(test_one_block_colors_same_bits) {
  int32_t single[2], overflow[2], loop_workers[2];
  const uint64_t one = plank_row(1, &single[0], &overflow[0], &loop_workers[0]);
  const uint64_t two = plank_row(2, &single[1], &overflow[1], &loop_workers[1]);
  /* the case does what it is for: colours of one contact, an overflow, and
   * the loop on both workers */
  ck_assert_int_ge(single[1], 40);
  ck_assert_int_gt(overflow[1], 0);
  ck_assert_int_eq(loop_workers[1], 2);
  ck_assert_int_eq(single[0], single[1]);
  ck_assert_int_eq(overflow[0], overflow[1]);
  ck_assert_uint_eq(one, two);
}
END_TEST

/* The solver's contact list found in parallel (each block writes its
 * matches at the front of its own range, the gaps closed after) is the
 * list found in one pass. Boxes in zero gravity, in pairs that touch with
 * 0.1 m between pairs and rows (inside the fat boxes' margin, beyond the
 * speculative distance): contacts that touch and contacts that do not,
 * over several blocks. */
START_TEST(test_solver_list_blocks) {
  sn_thread_pool *pool = NULL;
  sn_world *w = zero_gravity_world(2, &pool);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.25f, 0.25f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  for (int32_t row = 0; row < 24; ++row) {
    for (int32_t col = 0; col < 32; ++col) {
      bd.position = (sn_vec2){1.1f * (float)(col / 2) + 0.5f * (float)(col % 2), 0.6f * (float)row};
      ck_assert_int_ne(sn_create_polygon_shape(w, sn_create_body(w, &bd), &sd, &box).index1, 0);
    }
  }
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  /* in blocks on both workers */
  ck_assert(sn_list_solver_contacts(w));
  const int32_t n = w->solver_contacts.count, contacts = w->contacts.count;
  int32_t *list = malloc((size_t)n * sizeof(int32_t));
  sn_wide_key *keys = malloc((size_t)n * sizeof(sn_wide_key));
  ck_assert(list != NULL && keys != NULL);
  memcpy(list, w->solver_contacts.data, (size_t)n * sizeof(int32_t));
  memcpy(keys, w->solver_keys.data, (size_t)n * sizeof(sn_wide_key));
  /* the case does what it is for: blocks of 256, gaps between the matches */
  ck_assert_int_gt(contacts, 4 * SN_BLOCK_CONTACTS * 4);
  ck_assert_int_gt(n, contacts / 8);
  ck_assert_int_lt(n, contacts / 2);
  /* in one pass on the calling thread */
  w->parallel_min_items = INT32_MAX;
  ck_assert(sn_list_solver_contacts(w));
  ck_assert_int_eq(w->solver_contacts.count, n);
  ck_assert(memcmp(list, w->solver_contacts.data, (size_t)n * sizeof(int32_t)) == 0);
  ck_assert(memcmp(keys, w->solver_keys.data, (size_t)n * sizeof(sn_wide_key)) == 0);
  free(list);
  free(keys);
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}
END_TEST

/* Between SN_LOOP_MEASURE_FACTOR and SN_LOOP_PARALLEL_FACTOR times the
 * minimum the step measures the loop both ways: the same pyramid (about 600
 * contacts, the minimum 200) on two workers over 40 steps has a cost for
 * each way (every SN_LOOP_PROBE_EVERY steps it tries the one it does not
 * prefer), and the one-worker bits. */
START_TEST(test_loop_measured_both_ways) {
  uint64_t hash[2];
  for (int pass = 0; pass < 2; ++pass) {
    sn_scene scene;
    ck_assert(sn_scene_build(&scene, "pyramid", 20, 0, false));
    sn_thread_pool *pool = pass == 1 ? attach_pool(scene.world, 2) : NULL;
    scene.world->parallel_min_items = 200;
    for (int i = 0; i < 40; ++i) ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
    const int32_t contacts = scene.world->solver_contacts.count;
    ck_assert_int_ge(contacts, SN_LOOP_MEASURE_FACTOR * 200);
    ck_assert_int_lt(contacts, SN_LOOP_PARALLEL_FACTOR * 200);
    if (pass == 1) {
      ck_assert_msg(scene.world->loop_cost[0] > 0.0f && scene.world->loop_cost[1] > 0.0f,
                    "the loop was measured alone %g and on the workers %g ms per contact",
                    (double)scene.world->loop_cost[0], (double)scene.world->loop_cost[1]);
    } else {
      ck_assert(scene.world->loop_cost[0] == 0.0f && scene.world->loop_cost[1] == 0.0f); /* one worker: no choice */
    }
    sn_scene_metrics m;
    sn_scene_measure(&scene, &m);
    hash[pass] = m.state_hash;
    sn_scene_destroy(&scene);
    if (pool != NULL) sn_thread_pool_destroy(pool);
  }
  ck_assert_uint_eq(hash[0], hash[1]);
}
END_TEST

/* Two fast boxes side by side at 30 m/s (0.5 m a step), 0.1 m apart,
 * towards a wall the leading one reaches in mid-step, on two workers with
 * the sweeps ahead on (white box). When the trailing box comes later in
 * body order, its sweep ahead met the leader unstopped and found nothing;
 * in turn the leader is stopped at the wall, so the sweep ahead is dropped
 * and the box swept in turn, stopping behind the leader. Positions are the
 * one-worker bits, and the boxes never overlap. */
static void stopped_leader(int32_t workers, int order, sn_vec2 *pos, int32_t *redone) {
  sn_thread_pool *pool = NULL;
  sn_world *w = zero_gravity_world(workers, &pool);
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){1.6f, 0.0f};
  sn_body_id wall = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.1f, 2.0f, &box), SN_OK); /* face at x = 1.5 */
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &box)));
  ck_assert_int_eq(sn_make_box(0.2f, 0.2f, &box), SN_OK);
  sn_body_id b[2];
  for (int i = 0; i < 2; ++i) {
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.fixed_rotation = true;
    bd.position = (sn_vec2){(i == order) ? 0.5f : 1.0f, 0.0f}; /* trailing: faces 0.3 .. 0.7; leading 0.8 .. 1.2 */
    bd.linear_velocity = (sn_vec2){30.0f, 0.0f};
    b[i] = sn_create_body(w, &bd);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b[i], &sd, &box)));
  }
  *redone = 0;
  for (int step = 0; step < 10; ++step) {
    w->toi_ahead_rest = 0;
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    *redone += w->toi_ahead_redone;
    const float xt = sn_body_get_position(w, b[order]).x, xl = sn_body_get_position(w, b[1 - order]).x;
    ck_assert_msg((xl - 0.2f) - (xt + 0.2f) > -0.01f, "order %d step %d: the boxes overlap by %.3f m", order, step,
                  (double)((xt + 0.2f) - (xl - 0.2f)));
  }
  pos[0] = sn_body_get_position(w, b[0]);
  pos[1] = sn_body_get_position(w, b[1]);
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}

START_TEST(test_continuous_ahead_stopped_leader) {
  for (int order = 0; order < 2; ++order) {
    sn_vec2 pos1[2], pos2[2];
    int32_t redone = 0;
    stopped_leader(1, order, pos1, &redone);
    stopped_leader(2, order, pos2, &redone);
    ck_assert_msg(memcmp(pos1, pos2, sizeof pos1) == 0, "order %d: not the one-worker bits", order);
    /* trailing box later in body order (order 0 puts it first) */
    if (order == 1) ck_assert_int_gt(redone, 0);
  }
}
END_TEST

/* A long fast body leads the pass: a bar 8 m long spinning at 30 rad/s
 * (its tips at 120 m/s) through a ring of small fast boxes (0.2 m, 25 m/s
 * along the ring). The boxes' sweeps ahead meet the bar, and the bar,
 * first in body order, is stopped at a box in its turn most steps. It is
 * swept in turn before the sweeps ahead start (sn_toi_plan.lead), so they
 * see it where it ends up: none is dropped for its stop. The same bits as
 * one worker. *bar_stops counts the steps the bar was stopped, *redone the
 * sweeps ahead dropped. */
enum { RING_BOXES = 48 };

static void bar_in_ring(int32_t workers, sn_vec2 *pos, float *bar_angle, int32_t *bar_stops, int32_t *redone) {
  sn_thread_pool *pool = NULL;
  sn_world *w = zero_gravity_world(workers, &pool);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.angular_velocity = 30.0f;
  sn_body_id bar = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(4.0f, 0.1f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, bar, &sd, &box)));
  ck_assert_int_eq(sn_make_box(0.1f, 0.1f, &box), SN_OK);
  sn_body_id ids[RING_BOXES];
  for (int32_t i = 0; i < RING_BOXES; ++i) {
    /* three rings of 16, at 2, 2.8 and 3.6 m, offset in angle */
    const float r = 2.0f + 0.8f * (float)(i / 16), a = 0.3927f * (float)(i % 16) + 0.13f * (float)(i / 16) + 0.2f;
    const sn_vec2 u = {cosf(a), sinf(a)};
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){r * u.x, r * u.y};
    bd.linear_velocity = (sn_vec2){-25.0f * u.y, 25.0f * u.x};
    ids[i] = sn_create_body(w, &bd);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ids[i], &sd, &box)));
  }
  *bar_stops = *redone = 0;
  for (int32_t step = 0; step < 12; ++step) {
    w->toi_ahead_rest = 0;
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    const sn_body *b = w->bodies.data + (bar.index1 - 1);
    *bar_stops += b->is_fast && b->toi_fraction < 1.0f;
    *redone += w->toi_ahead_redone;
  }
  for (int32_t i = 0; i < RING_BOXES; ++i) pos[i] = sn_body_get_position(w, ids[i]);
  *bar_angle = sn_rot_get_angle(sn_body_get_rotation(w, bar));
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}

START_TEST(test_continuous_long_leader) {
  static sn_vec2 pos1[RING_BOXES], pos2[RING_BOXES];
  float angle1 = 0.0f, angle2 = 0.0f;
  int32_t stops1 = 0, stops2 = 0, redone1 = 0, redone2 = 0;
  bar_in_ring(1, pos1, &angle1, &stops1, &redone1);
  bar_in_ring(2, pos2, &angle2, &stops2, &redone2);
  ck_assert_int_ge(stops1, 3); /* the scene does what it is for: the bar is stopped in turn */
  ck_assert_int_eq(stops2, stops1);
  /* No sweep ahead keeps the bar: those dropped are the few that kept a box
   * which another box stopped (5 here). Swept ahead like the boxes, the bar
   * dropped 115 in its stops. */
  ck_assert_int_le(redone2, 10);
  ck_assert_msg(memcmp(&angle1, &angle2, sizeof angle1) == 0, "bar at %g on 2 workers, %g on 1", (double)angle2,
                (double)angle1);
  for (int32_t i = 0; i < RING_BOXES; ++i)
    ck_assert_msg(memcmp(pos1 + i, pos2 + i, sizeof(sn_vec2)) == 0, "box %d: (%g, %g) on 2 workers, (%g, %g) on 1",
                  (int)i, (double)pos2[i].x, (double)pos2[i].y, (double)pos1[i].x, (double)pos1[i].y);
}
END_TEST

/* The pair search on two workers: each worker lists its groups' pairs that
 * may be new, the stepping thread adds them in move-buffer order. A crowd
 * dropped into a heap of overlapping boxes (up to 40 new pairs per shape:
 * longer than a worker's list, so some groups search again on the stepping
 * thread) with every third shape asking for the custom filter, which refuses
 * pairs of shape indices summing to a multiple of 5, and a contact limit the
 * crowd reaches (searches cut short, searching again later). Every step's
 * contacts (their slots and shapes, in order), the custom filter's calls in
 * order, and the limit hits are those of one worker, and those of one
 * worker with every moved shape querying the trees itself (no groups of
 * neighbours). Created in order, the shapes move in an order that follows
 * space and are grouped in it; created in a scrambled order, they are
 * grouped in Morton order. */
enum { CROWD_BOXES = 120, CROWD_STEPS = 40, CROWD_CALLS = 200000 };

typedef struct crowd_log {
  int32_t calls[CROWD_CALLS][2];
  int32_t call_count;
  uint64_t contacts_hash; ///< FNV-1a over each step's contact slots and shapes
  int32_t limit_hits, most_contacts;
  int32_t groups, spatial_steps;
} crowd_log;

static bool crowd_filter(sn_shape_id a, sn_shape_id b, void *context) {
  crowd_log *log = context;
  if (log->call_count < CROWD_CALLS) {
    log->calls[log->call_count][0] = a.index1;
    log->calls[log->call_count][1] = b.index1;
  }
  log->call_count++;
  return (a.index1 + b.index1) % 5 != 0;
}

static void crowd_hash(uint64_t *h, int32_t v) {
  for (int k = 0; k < 4; ++k) {
    *h ^= (uint8_t)((uint32_t)v >> (8 * k));
    *h *= 1099511628211ull;
  }
}

static void crowd(int32_t workers, bool ungrouped, int32_t stride, crowd_log *log) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  wd.max_contacts = 900;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_thread_pool *pool = attach_pool(w, workers);
  w->parallel_min_items = 0; /* white box: the parallel search for every step */
  w->pair_ungrouped = ungrouped;
  ck_assert_int_eq(sn_world_set_custom_filter(w, crowd_filter, log), SN_OK);
  sn_body_def bd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(20.0f, 0.5f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  for (int32_t n = 0; n < CROWD_BOXES; ++n) {
    const int32_t i = (n * stride) % CROWD_BOXES; /* stride prime to 120: each place once */
    bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    /* a heap: 40 boxes within 1 m of each other, the rest in a loose column */
    if (i < 40)
      bd.position = (sn_vec2){0.025f * (float)(i % 8), 1.0f + 0.03f * (float)(i / 8)};
    else
      bd.position = (sn_vec2){0.4f * (float)(i % 5) - 0.8f, 3.0f + 0.6f * (float)(i / 5)};
    sn_body_id b = sn_create_body(w, &bd);
    sd = sn_default_shape_def();
    sd.enable_custom_filtering = i % 3 == 0;
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
  }
  log->call_count = 0;
  log->contacts_hash = 14695981039346656037ull;
  log->limit_hits = 0;
  log->most_contacts = 0;
  log->groups = log->spatial_steps = 0;
  for (int32_t step = 0; step < CROWD_STEPS; ++step) {
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    log->groups += w->pair_groups;
    log->spatial_steps += w->pair_spatial;
    sn_world_counters c = sn_world_get_counters(w);
    log->limit_hits += c.contact_limit_hits;
    if (c.contact_count > log->most_contacts) log->most_contacts = c.contact_count;
    for (int32_t ci = 0; ci < w->contacts.count; ++ci) {
      const sn_contact *k = w->contacts.data + ci;
      if (!k->in_use) continue;
      crowd_hash(&log->contacts_hash, ci);
      crowd_hash(&log->contacts_hash, k->shape_a);
      crowd_hash(&log->contacts_hash, k->shape_b);
    }
  }
  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
}

START_TEST(test_pair_search_same_pairs) {
  static crowd_log one, two, alone;
  for (int pass = 0; pass < 2; ++pass) {
    const int32_t stride = pass == 0 ? 1 : 37; /* 37: scrambled */
    crowd(1, false, stride, &one);
    crowd(2, false, stride, &two);
    crowd(1, true, stride, &alone);
    /* the scene does what it is for: the filter was asked, the limit met */
    ck_assert_int_gt(one.call_count, 100);
    ck_assert_int_le(one.call_count, CROWD_CALLS);
    ck_assert_int_gt(one.limit_hits, 0);
    ck_assert_int_eq(one.most_contacts, 900);
    /* groups were formed, in move-buffer order at first, else in Morton order */
    ck_assert_int_gt(one.groups, 0);
    ck_assert_int_eq(alone.groups, 0);
    if (pass == 0) ck_assert_int_lt(one.spatial_steps, CROWD_STEPS);
    if (pass == 1) ck_assert_int_gt(one.spatial_steps, 0);
    const crowd_log *other[2] = {&two, &alone};
    for (int r = 0; r < 2; ++r) {
      const char *how = r == 0 ? "on 2 workers" : "ungrouped";
      ck_assert_int_eq(other[r]->call_count, one.call_count);
      ck_assert_int_eq(other[r]->limit_hits, one.limit_hits);
      ck_assert_int_eq(other[r]->most_contacts, one.most_contacts);
      ck_assert_msg(memcmp(other[r]->calls, one.calls, (size_t)one.call_count * sizeof one.calls[0]) == 0,
                    "stride %d: the custom filter was called in another order %s", (int)stride, how);
      ck_assert_msg(other[r]->contacts_hash == one.contacts_hash,
                    "stride %d: contacts 0x%016" PRIx64 " %s, 0x%016" PRIx64 " grouped on 1", (int)stride,
                    other[r]->contacts_hash, how, one.contacts_hash);
    }
  }
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_same_bits_any_schedule, 0, CASE_COUNT);
  tcase_add_test(tc, test_small_world_stays_on_caller);
  tcase_add_test(tc, test_def_and_setter_validation);
  tcase_add_test(tc, test_stage_runner_order_and_coverage);
  tcase_add_test(tc, test_stalled_helper_goes_solo);
  tcase_add_test(tc, test_solo_run_blocks_in_order);
  tcase_add_test(tc, test_pool_covers_each_item_once);
  tcase_add_test(tc, test_continuous_ahead_same_bits);
  tcase_add_test(tc, test_small_loop_stays_on_caller);
  tcase_add_test(tc, test_loop_measured_both_ways);
  tcase_add_test(tc, test_one_block_colors_same_bits);
  tcase_add_test(tc, test_solver_list_blocks);
  tcase_add_test(tc, test_continuous_ahead_stopped_leader);
  tcase_add_test(tc, test_continuous_groups_same_bits);
  tcase_add_test(tc, test_batches_same_bits);
  tcase_add_test(tc, test_continuous_long_leader);
  tcase_add_test(tc, test_pair_search_same_pairs);
  suite_add_tcase(s, tc);
  return s;
}
