/* Stage runner: a step's parallel work as a list of stages (internal).
 *
 * A stage is a range of items cut into blocks. Stages run strictly one after
 * the other; the blocks of one stage may run on any worker in any order, so a
 * stage's blocks must touch disjoint data (bodies of one graph colour, one
 * contact each, ...). A main-only stage is one block that only the calling
 * thread runs (plugin callbacks, serial passes).
 *
 * The caller is worker 0 and drives the stages; worker_count - 1 helpers are
 * started through the application's enqueue_task once per run and join
 * whatever stage is current when they start. The caller never waits for a
 * helper to start: if none ever runs, it does every block itself. So the
 * results cannot depend on the schedule, and a job system that runs tasks
 * late, inline or one at a time cannot deadlock the step.
 *
 * Affinity: worker k starts on its own share of a stage's blocks (the k-th
 * of worker_count equal runs) and only then takes what is left of the
 * others', from their far end. The stages of a substep are graph colours
 * whose contacts are laid out in the same order, so a worker keeps solving
 * the same region of the world and its bodies stay in its core's cache
 * instead of moving between cores at every colour (two workers: pyramid
 * 100 1.75 -> 1.64 ms per step, cloth 128 2.12 -> 2.04 ms, against blocks
 * claimed first come first served).
 *
 * Synchronisation: a block is claimed with an atomic bit (or, past 64
 * blocks, an atomic counter) of its stage and counted done with a release increment; the caller waits (acquire) for
 * every block of a stage, then publishes the next stage (release), which the
 * helpers read with acquire. Waiting spins with a pause, then yields.
 *
 * Oversubscription: a helper that claimed a block and then lost its core
 * (more runnable threads than cores) holds up the stage until the OS runs
 * it again, a whole time slice. When the caller has waited SN_STALL_SPINS
 * for a stage, the rest of the run goes solo (helpers take no more blocks)
 * and the world stays solo for a backoff of runs that doubles with each
 * stall. Results do not change: which thread runs a block never matters. */
#ifndef SN_BASE_TASKS_H
#define SN_BASE_TASKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sinew/sinew.h" /* the task callbacks */

#include "base/alloc.h"
#include "platform/platform.h" /* sn_clock_ms */

/// The task system a world's runs use (sn_world_def's callbacks) and the
/// stall backoff kept between runs.
typedef struct sn_task_system {
  sn_enqueue_task_callback *enqueue_task;
  sn_finish_task_callback *finish_task;
  void *user_task_context;
  int32_t solo_runs, solo_backoff; ///< stage runs left to do alone after a helper stalled
  int64_t helper_blocks;           ///< blocks run by helpers so far (tests, statistics)
} sn_task_system;

typedef struct sn_stage {
  int32_t kind;  ///< what to run (meaning is the caller's)
  int32_t arg;   ///< e.g. a colour or a substep
  int32_t first; ///< first item of the stage
  int32_t count; ///< items in the stage
  int32_t block_size;
  int32_t block_count;
  bool main_only;
  atomic_int claimed;              ///< next block (stages of more than 64 blocks)
  _Atomic uint64_t claimed_blocks; ///< bit b: block b is taken (64 blocks or fewer)
  atomic_int done;
} sn_stage;

/// Runs items [begin, end) of a stage.
typedef void sn_stage_fn(void *context, const sn_stage *stage, int32_t begin, int32_t end);

typedef struct sn_stage_runner {
  sn_stage *stages;
  int32_t count, capacity;
  int32_t workers;
  sn_stage_fn *fn;
  void *context;
  atomic_int current;
  atomic_int state;         ///< starting, driving, finished (tasks.c)
  atomic_int solo;          ///< helpers take no more blocks (none launched, or one stalled)
  atomic_int helper_blocks; ///< blocks helpers ran in this run
} sn_stage_runner;

/// Stage list of up to capacity stages in arena memory; false if the arena
/// is short (reserve first: sn_stage_runner_bytes).
bool sn_stage_runner_init(sn_stage_runner *r, sn_arena *arena, int32_t capacity, int32_t workers, sn_stage_fn *fn,
                          void *context);
size_t sn_stage_runner_bytes(int32_t capacity);
/// The same on caller memory (capacity stages).
void sn_stage_runner_init_on(sn_stage_runner *r, sn_stage *stages, int32_t capacity, int32_t workers, sn_stage_fn *fn,
                             void *context);

/// Appends a stage of count items in blocks of at least min_block items
/// (rounded up to a multiple of `multiple`); one block when the runner has
/// one worker. Stages of zero items are skipped; a stage of one block is
/// run by the caller.
void sn_stage_add(sn_stage_runner *r, int32_t kind, int32_t arg, int32_t first, int32_t count, int32_t min_block,
                  int32_t multiple);
/// Appends a stage of count items whose every item is a block of its own
/// (items of much work each: the workers balance them one by one). Zero
/// items are skipped; with one worker, or one item, the caller runs them.
void sn_stage_add_each(sn_stage_runner *r, int32_t kind, int32_t arg, int32_t first, int32_t count);
/// Appends a main-only stage (one block, the calling thread).
void sn_stage_add_main(sn_stage_runner *r, int32_t kind, int32_t arg);

/// Work (bodies, contacts, particle constraints, ...) below which a step
/// runs on the calling thread only: small worlds lose more to handing
/// stages between cores than they gain.
#define SN_PARALLEL_MIN_ITEMS 2048

/// The substep loop runs on the workers from SN_LOOP_PARALLEL_FACTOR times
/// SN_PARALLEL_MIN_ITEMS contacts, or SN_PARALLEL_MIN_ITEMS /
/// SN_LOOP_JOINT_WEIGHT joints, or SN_PARALLEL_MIN_ITEMS particles
/// (world/step.c). Measured on two cores at 2 workers: smash (12,400
/// contacts), the pyramids (15,000 and 58,000), rain's ragdolls and
/// joint_grid run their loops faster on both.
#define SN_LOOP_PARALLEL_FACTOR 4
#define SN_LOOP_JOINT_WEIGHT    8
/// From SN_LOOP_MEASURE_FACTOR times SN_PARALLEL_MIN_ITEMS contacts up to
/// the bar above, which is faster depends on the machine and the world: the
/// step measures both and runs the loop the faster way, trying the other
/// every SN_LOOP_PROBE_EVERY steps (world/step.c). On one two-core machine
/// tumbler's loop (4,000 contacts, a frame touching 100 boxes) took 0.78
/// of its time on the calling thread alone when run on both, and
/// spinner's (5,700) 0.71; on another, tumbler's took 1.4 times as long.
#define SN_LOOP_MEASURE_FACTOR 1
#define SN_LOOP_PROBE_EVERY    16

/// Minimum items per block: enough work to pay for claiming a block.
#define SN_BLOCK_BODIES               128
#define SN_BLOCK_CONTACTS             64
#define SN_BLOCK_GROUPS               4
#define SN_BLOCK_PARTICLE_CONSTRAINTS 512
#define SN_BLOCK_PARTICLES            256

/// Runs every stage on the runner's workers (helpers through the task
/// system); returns when all are done. With no helper to start (one worker,
/// or a stall backoff) the caller runs the blocks in order with no atomics.
void sn_stage_run(sn_task_system *tasks, sn_stage_runner *r);

#endif /* SN_BASE_TASKS_H */
