/* The step: sn_world_step and the order of its stages, each a call into
 * its module. Everything that may fail (memory) is reserved first; after
 * that nothing allocates and nothing fails.
 *
 *   stage                                   file                          function
 *   reserve (nothing a caller sees changes; sn_step_reserve, sn_solve_reserve):
 *    body extents                           rigid/body.c                  sn_body_refresh_extents
 *    broadphase: moved proxies rebuilt      collision/tree.c              sn_tree_rebuild_moved
 *      (what moved between steps: the step's own moves are rebuilt at its end)
 *    broadphase: the trees' query copies    collision/tree.c              sn_tree_refresh_wide
 *    broadphase: new pairs                  collision/contact.c           sn_find_new_pairs
 *    constraint scans                       constraints/constraint.c      sn_constraint_lists_update
 *    particle candidate pairs               soft/soft_step.c              sn_soft_find_candidates
 *    XPBD schedule                          soft/xpbd_schedule.c          sn_xpbd_schedule_reserve
 *    room for contacts, events, scratch     this file                     sn_solve_reserve
 *    sensor overlaps and events             world/sensor.c                sn_sensor_find
 *   new contacts                            collision/contact.c           sn_create_new_pairs
 *   narrowphase, begin and end events       collision/contact.c           sn_update_contacts
 *   solver setup (sn_solve):
 *    wake joined bodies, hit candidates     constraints/constraint_step.c sn_wake_joined
 *                                           soft/soft_step.c              sn_soft_wake_candidates
 *    awake bodies, solver contacts          rigid/solver.c                sn_gather_awake_bodies
 *                                           rigid/solver.c                sn_list_solver_contacts
 *    contact colours and groups             rigid/solver.c                sn_color_contacts, sn_build_wide_set
 *    body states, contact preparation       rigid/solver.c                sn_init_bodies, sn_prepare_contacts,
 *                                                                         sn_prepare_lanes
 *    particle states                        soft/soft_step.c              sn_soft_begin
 *    plugin constraint batches, prepare     constraints/constraint_step.c sn_build_joint_batches
 *                                           constraints/constraint_step.c sn_joint_batches_prepare
 *   substeps (the stage list, sn_solver_stage), each:
 *    integrate velocities                   rigid/solver.c                sn_integrate_velocities
 *    particle prediction                    soft/soft_step.c              sn_soft_predict_range
 *    warm start, solve (joints after each)  rigid/contact_wide.c          sn_wide_warm_range, sn_wide_solve_range
 *    integrate positions                    rigid/solver.c                sn_integrate_positions
 *    relax                                  rigid/contact_wide.c          sn_wide_solve_range
 *    position stage: joint projection       constraints/constraint_step.c sn_position_begin
 *      XPBD sweeps (batched by colour)      soft/soft_step.c, plugins     sn_soft_pack_range, solve_particles
 *      particle collisions                  soft/soft_step.c              sn_soft_collide
 *      velocities from the motion           soft/soft_step.c              sn_soft_velocities_range
 *                                           constraints/constraint_step.c sn_position_end
 *   after the substeps:
 *    particles back, instances home         soft/soft_step.c              sn_soft_end
 *                                           constraints/constraint_step.c sn_joint_batches_end
 *    restitution (per colour)               rigid/contact_wide.c          sn_wide_restitution_range
 *    impulses stored, hit events            rigid/solver.c                sn_store_impulses, sn_report_hits
 *    bodies written back, frozen events     rigid/solver.c                sn_write_back, sn_report_frozen
 *   continuous collision                    collision/continuous.c        sn_continuous_solve
 *   proxies move (ancestors marked only)    rigid/solver.c                sn_move_proxies
 *   broadphase: the moved part rebuilt      this file                     sn_rebuild_after_moves
 *   constraints break                       constraints/constraint.c      sn_constraints_check_breaking
 *   islands and sleep                       rigid/island.c                sn_update_sleep
 *   body move events                        this file                     sn_report_body_moves
 *
 * Scratch memory: the step's arena is reset between the narrowphase, the
 * solve, breaking and the islands, and each module reports the bytes its
 * part takes from it (sn_narrowphase_scratch_bytes,
 * sn_contact_solver_scratch_bytes, sn_soft_scratch_bytes,
 * sn_joint_scratch_bytes, sn_continuous_scratch_bytes,
 * sn_breaking_scratch_bytes, sn_island_scratch_bytes, next to the code that
 * allocates); sn_solve_reserve reserves the largest phase, the solve's parts
 * summed (sn_solve_scratch_bytes). */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "base/tasks.h"
#include "collision/continuous.h"
#include "constraints/constraint_step.h"
#include "platform/platform.h"
#include "rigid/island.h"
#include "rigid/solver.h"
#include "soft/soft_step.h"
#include "soft/xpbd_schedule.h"
#include "world/step.h"
#include "world/world.h"

static size_t sn_maxz(size_t a, size_t b) { return a > b ? a : b; }

/* ------------------------------------------------------ substep stages */

/// Solver contacts up to which the preparation goes group by group (each
/// group's contacts gathered wherever they are, the group written at once),
/// beyond which in contact order (the contacts read front to back, each
/// group filled as its contacts come). Group order writes less scattered
/// memory but reads the contacts out of order, which costs once they no
/// longer stay in the caches: measured on a 2-core AMD EPYC (32 MB L3),
/// 15,000 contacts (3.5 MB) prepared faster by group, 58,000 (13.5 MB)
/// faster by contact. Either gives the same bytes.
#define SN_PREPARE_BY_GROUP_MAX 24576

/* The substep loop as stages (base/tasks.h): parallel stages cut bodies,
 * contacts or one colour's groups into blocks; plugin callbacks and the
 * position stage run on the calling thread. The list is the serial order of
 * the passes, so every worker count gives the same bits. */
enum {
  SN_STAGE_INIT,           /* bodies: solver state and motion */
  SN_STAGE_PREPARE,        /* solver contacts: prepared into their SoA lanes */
  SN_STAGE_PREPARE_LANES,  /* groups: lane masks and padding */
  SN_STAGE_PREPARE_GROUPS, /* groups: their contacts prepared, and the lanes */
  SN_STAGE_INTEGRATE_V,    /* bodies */
  SN_STAGE_SUBSTEP,        /* main: step info, rigid centres for particle contacts (arg = substep) */
  SN_STAGE_PREDICT,        /* particles: prediction (arg = substep) */
  SN_STAGE_WARM,           /* groups of colour arg */
  SN_STAGE_JOINT_WARM,     /* levels of impulse type arg (sn_add_joint_stages) */
  SN_STAGE_SOLVE,          /* groups of colour arg, with bias */
  SN_STAGE_JOINT_SOLVE,    /* levels of impulse type arg */
  SN_STAGE_INTEGRATE_P,    /* bodies */
  SN_STAGE_RELAX,          /* groups of colour arg, no bias */
  SN_STAGE_JOINT_RELAX,    /* levels of impulse type arg */
  SN_STAGE_JOINT_SWEEP,    /* main: projection sweep arg (info->iteration) */
  SN_STAGE_JOINT_PROJECT,  /* levels of impulse type arg: projection */
  SN_STAGE_POS_BEGIN,      /* main: rigid poses before XPBD */
  SN_STAGE_POS_SWEEP,      /* main: info->iteration = arg */
  SN_STAGE_POS_PACK,       /* particles: arrays for batched types (arg: first sweep) */
  SN_STAGE_POS_UNPACK,     /* particles: their motion back to the states */
  SN_STAGE_POS_ITEMS,      /* main: per-item XPBD type arg */
  SN_STAGE_POS_START,      /* main: begin_particles of batched type arg (sweep 0) */
  SN_STAGE_POS_COLOUR,     /* constraints of one colour of batched type arg */
  SN_STAGE_POS_COLLIDE,    /* main: particle collisions (arg: first sweep) */
  SN_STAGE_POS_VELOCITIES, /* particles: v = (p - x) / h */
  SN_STAGE_POS_END,        /* main: rigid velocities from the motion, velocity pass */
  SN_STAGE_BATCH,          /* batches (sn_wide_set.batch_count): every substep of each, and restitution */
  SN_STAGE_POST,           /* main: particles, plugin instances */
  SN_STAGE_RESTITUTION,    /* groups of colour arg: restitution (colour-major sets) */
  SN_STAGE_STORE,          /* solver contacts: impulses back to the manifolds */
  SN_STAGE_WRITE_BACK      /* bodies */
};

typedef struct sn_solver_run {
  sn_world *w;
  sn_step_context *ctx;
  sn_wide_set *wide;
  sn_soft_context *soft;
  sn_joint_batch *batches;
  int32_t batch_count;
  sn_step_info *info;
  const sn_position_setup *position;
  const int32_t *owners; ///< constraint index of each packed item
  const sn_plugin_caller *caller;
  float h, dt;
  atomic_int frozen; ///< a body state was not finite (events after the run)
  atomic_int fast;   ///< a body is fast (continuous collision after the run)
  atomic_int hits;   ///< a contact reports hit events (after the run)
} sn_solver_run;

/* After the substeps, on the calling thread: particles write back, packed
 * plugin instances go home. (Restitution follows, colour by colour, or in
 * each batch's own stage.) */
static void sn_post_substeps(sn_solver_run *run) {
  sn_soft_end(run->w, run->soft);
  sn_joint_batches_end(run->w, run->batches, run->batch_count, run->owners);
}

/* Batch b of a batch-major set, alone: every substep (the velocities, the
 * warm start, the solve, the positions and the relax pass over its bodies
 * and groups), then its restitution. No contact joins it to another batch
 * (sn_wide_batches), so it takes just the passes the colour-major stages
 * give its bodies, in their order: the same bits, with its groups and
 * bodies in the core's caches from the first substep to the last. */
static void sn_solve_batch(const sn_solver_run *run, int32_t b) {
  sn_step_context *ctx = run->ctx;
  const sn_wide_set *wide = run->wide;
  const int32_t *runs = wide->batch_runs, r0 = wide->batch_run_first[b], r1 = wide->batch_run_first[b + 1];
  const int32_t g0 = wide->batch_groups[SN_WIDE_COLORS * b], g1 = wide->batch_groups[SN_WIDE_COLORS * (b + 1)];
  for (int32_t i = 0; i < run->info->substeps; ++i) {
    for (int32_t r = r0; r < r1; ++r) sn_integrate_velocities(ctx, runs[2 * r], runs[2 * r + 1]);
    sn_wide_warm_range(wide, ctx->states, g0, g1);
    sn_wide_solve_range(wide, ctx->states, g0, g1, ctx->inv_h, ctx->push_max_velocity, true);
    for (int32_t r = r0; r < r1; ++r) sn_integrate_positions(ctx, runs[2 * r], runs[2 * r + 1]);
    sn_wide_solve_range(wide, ctx->states, g0, g1, ctx->inv_h, ctx->push_max_velocity, false);
  }
  sn_wide_restitution_range(wide, ctx->states, g0, g1, ctx->restitution_threshold);
}

/* Items [begin, end) of batch arg (whole levels, or part of one) through
 * the stage's callback, level by level: a level's items share no body
 * state, and the call says so (SN_STEP_INDEPENDENT_ITEMS; not with the
 * plugin checks, which call one item at a time). */
static void sn_run_joints(const sn_solver_run *run, const sn_stage *st, int32_t begin, int32_t end) {
  const sn_joint_batch *batch = run->batches + st->arg;
  int32_t callback = SN_CALLBACK_PROJECT;
  if (st->kind == SN_STAGE_JOINT_WARM) callback = SN_CALLBACK_WARM_START;
  if (st->kind == SN_STAGE_JOINT_SOLVE) callback = SN_CALLBACK_SOLVE_VELOCITY;
  if (st->kind == SN_STAGE_JOINT_RELAX) callback = SN_CALLBACK_RELAX;
  const int32_t *start = batch->level_start;
  int32_t lo = 0, hi = batch->level_count; /* the level holding begin: start[lo] <= begin < start[lo + 1] */
  while (hi - lo > 1) {
    int32_t mid = lo + (hi - lo) / 2;
    if (start[mid] <= begin)
      lo = mid;
    else
      hi = mid;
  }
  sn_step_info info = *run->info;
  /* (every call of the step, plugin checks too: the same bits either way) */
  if (batch->type->project != NULL && run->position->position_iterations > 0) info.flags |= SN_STEP_PROJECTED;
  if (!run->w->joint_lanes_off && !run->w->check_plugins) {
    info.flags |= SN_STEP_INDEPENDENT_ITEMS;
    if (run->w->use_avx2) info.flags |= SN_STEP_WIDE_LANES; /* (the world's AVX2 switch, as the contacts') */
  }
  for (int32_t l = lo; begin < end; ++l) {
    const int32_t stop = start[l + 1] < end ? start[l + 1] : end;
    sn_run_plugin_range(run->caller, batch, &info, callback, begin, stop);
    begin = stop;
  }
}

static void sn_solver_stage(void *context, const sn_stage *st, int32_t begin, int32_t end) {
  sn_solver_run *run = context;
  sn_step_context *ctx = run->ctx;
  switch (st->kind) {
  case SN_STAGE_INIT:
    sn_init_bodies(run->w, ctx, run->h, begin, end);
    break;
  case SN_STAGE_PREPARE:
  case SN_STAGE_PREPARE_GROUPS:
    sn_prepare_contacts(run->w, ctx, run->wide, begin, end, st->kind == SN_STAGE_PREPARE_GROUPS);
    break;
  case SN_STAGE_PREPARE_LANES:
    sn_prepare_lanes(ctx, run->wide, begin, end);
    break;
  case SN_STAGE_INTEGRATE_V:
    sn_integrate_velocities(ctx, begin, end);
    break;
  case SN_STAGE_SUBSTEP:
    run->info->substep = st->arg;
    run->info->iterations = 1;
    run->info->iteration = 0;
    sn_soft_predict_rigid(run->soft);
    break;
  case SN_STAGE_PREDICT:
    sn_soft_predict_range(run->w, run->soft, st->arg, begin, end);
    break;
  case SN_STAGE_POS_VELOCITIES:
    sn_soft_velocities_range(run->w, run->soft, begin, end);
    break;
  case SN_STAGE_WARM:
    sn_wide_warm_range(run->wide, ctx->states, begin, end);
    break;
  case SN_STAGE_SOLVE:
  case SN_STAGE_RELAX:
    sn_wide_solve_range(run->wide, ctx->states, begin, end, ctx->inv_h, ctx->push_max_velocity,
                        st->kind == SN_STAGE_SOLVE);
    break;
  case SN_STAGE_JOINT_WARM:
  case SN_STAGE_JOINT_SOLVE:
  case SN_STAGE_JOINT_RELAX:
  case SN_STAGE_JOINT_PROJECT:
    sn_run_joints(run, st, begin, end);
    break;
  case SN_STAGE_JOINT_SWEEP:
    run->info->iterations = run->position->position_iterations;
    run->info->iteration = st->arg;
    break;
  case SN_STAGE_INTEGRATE_P:
    sn_integrate_positions(ctx, begin, end);
    break;
  case SN_STAGE_POS_BEGIN:
    sn_position_begin(ctx, run->soft, run->info, run->position);
    break;
  case SN_STAGE_POS_SWEEP:
    run->info->iteration = st->arg;
    break;
  case SN_STAGE_POS_PACK:
    sn_soft_pack_range(run->soft, st->arg != 0, begin, end);
    break;
  case SN_STAGE_POS_UNPACK:
    sn_soft_unpack_range(run->soft, begin, end);
    break;
  case SN_STAGE_POS_ITEMS: {
    const sn_joint_batch *batch = run->batches + st->arg;
    if (run->info->iteration == 0 && batch->type->begin_position)
      sn_run_plugin(run->caller, batch, run->info, SN_CALLBACK_BEGIN_POSITION);
    sn_run_plugin(run->caller, batch, run->info, SN_CALLBACK_SOLVE_POSITION);
    break;
  }
  case SN_STAGE_POS_START: {
    const sn_joint_batch *batch = run->batches + st->arg;
    batch->type->begin_particles(run->info, &batch->particles, 0, batch->particles.count);
    break;
  }
  case SN_STAGE_POS_COLOUR: {
    const sn_joint_batch *batch = run->batches + st->arg;
    batch->type->solve_particles(run->info, &batch->particles, begin, end);
    break;
  }
  case SN_STAGE_POS_COLLIDE:
    sn_soft_collide(run->w, run->soft, st->arg != 0);
    break;
  case SN_STAGE_POS_END:
    sn_position_end(run->w, ctx, run->soft, run->position);
    break;
  case SN_STAGE_BATCH:
    for (int32_t b = begin; b < end; ++b) sn_solve_batch(run, b);
    break;
  case SN_STAGE_POST:
    sn_post_substeps(run);
    break;
  case SN_STAGE_RESTITUTION:
    sn_wide_restitution_range(run->wide, ctx->states, begin, end, ctx->restitution_threshold);
    break;
  case SN_STAGE_STORE:
    if (sn_store_impulses(run->w, run->wide, begin, end)) atomic_store_explicit(&run->hits, 1, memory_order_relaxed);
    break;
  default: /* SN_STAGE_WRITE_BACK */
  {
    const uint8_t found = sn_write_back(run->w, ctx, run->dt, begin, end);
    if (found & SN_WRITE_BACK_FROZEN) atomic_store_explicit(&run->frozen, 1, memory_order_relaxed);
    if (found & SN_WRITE_BACK_FAST) atomic_store_explicit(&run->fast, 1, memory_order_relaxed);
  } break;
  }
}

/* One pass over every colour's groups (the overflow colour as one block).
 * On one worker the colours run one after the other anyway: one stage over
 * all groups in colour order does the same passes in the same order.
 *
 * On more, a colour of at most SN_BLOCK_GROUPS groups is one block, which
 * the calling thread runs while the others wait, and so is the overflow.
 * A run of such colours (one body touching many others gives a colour per
 * contact: a tumbler's frame fills 50 colours with a group each) becomes
 * one stage, one block over the run's groups in colour order: the same
 * passes in the same order on the same thread, without a hand-over per
 * colour. */
static void sn_add_color_stages(sn_stage_runner *r, const sn_wide_set *wide, int32_t kind) {
  if (r->workers == 1) {
    int32_t count = wide->color_first[SN_WIDE_COLORS] - wide->color_first[0];
    sn_stage_add(r, kind, 0, wide->color_first[0], count, count, 1);
    return;
  }
  int32_t run_first = -1; /* first group of the run of one-block colours, or -1 */
  for (int32_t c = 0; c <= SN_WIDE_COLORS; ++c) {
    const int32_t first = wide->color_first[c];
    const int32_t count = c < SN_WIDE_COLORS ? wide->color_first[c + 1] - first : 0;
    const bool one_block = c < SN_WIDE_COLORS && (count <= SN_BLOCK_GROUPS || c == SN_WIDE_OVERFLOW);
    if (one_block) {
      if (run_first < 0) run_first = first;
      continue;
    }
    if (run_first >= 0) sn_stage_add(r, kind, 0, run_first, first - run_first, first - run_first, 1);
    run_first = -1;
    if (c < SN_WIDE_COLORS) sn_stage_add(r, kind, c, first, count, SN_BLOCK_GROUPS, 1);
  }
}

/* One pass of the impulse joints (kind: warm start, solve, relax or
 * projection): each type in order, level by level, a large level in
 * parallel blocks and each run of small ones between them as one block
 * (sn_run_joints walks its levels). Returns the stages added. */
static int32_t sn_add_joint_stages(sn_stage_runner *r, const sn_joint_batch *batches, int32_t batch_count,
                                   int32_t kind) {
  int32_t added = 0;
  for (int32_t b = 0; b < batch_count; ++b) {
    const sn_joint_batch *batch = batches + b;
    if (!batch->impulse || batch->count == 0 || batch->level_start == NULL) continue;
    if (kind == SN_STAGE_JOINT_WARM && !batch->type->warm_start) continue;
    if (kind == SN_STAGE_JOINT_PROJECT && !batch->type->project) continue;
    int32_t small = -1;
    for (int32_t l = 0; l < batch->level_count; ++l) {
      int32_t first = batch->level_start[l], count = batch->level_start[l + 1] - first;
      if (count < SN_JOINT_LEVEL_MIN) {
        if (small < 0) small = first;
        continue;
      }
      if (small >= 0 && r != NULL) sn_stage_add(r, kind, b, small, first - small, first - small, 1);
      added += small >= 0;
      small = -1;
      if (r != NULL) sn_stage_add(r, kind, b, first, count, SN_BLOCK_JOINTS, 1);
      added++;
    }
    if (small >= 0 && r != NULL) sn_stage_add(r, kind, b, small, batch->count - small, batch->count - small, 1);
    added += small >= 0;
  }
  return added;
}

/* The position stage of one substep (the serial order of the old loop). */
static void sn_add_position_stages(sn_stage_runner *r, const sn_joint_batch *batches, int32_t batch_count,
                                   const sn_position_setup *stage, const sn_soft_context *soft, int32_t substep) {
  const bool soft_active = soft->active;
  const int32_t np = soft->active ? soft->count : 0;
  for (int32_t it = 0; stage->project_count > 0 && it < stage->position_iterations; ++it) {
    sn_stage_add_main(r, SN_STAGE_JOINT_SWEEP, it);
    sn_add_joint_stages(r, batches, batch_count, SN_STAGE_JOINT_PROJECT);
  }
  sn_stage_add_main(r, SN_STAGE_POS_BEGIN, substep);
  if (stage->xpbd_count == 0 && !soft_active) return;
  for (int32_t it = 0; it < stage->soft_iterations; ++it) {
    sn_stage_add_main(r, SN_STAGE_POS_SWEEP, it);
    bool packed = false, items_ran = false;
    for (int32_t b = 0; b < batch_count; ++b) {
      const sn_joint_batch *batch = batches + b;
      if (!batch->xpbd || batch->count == 0) continue;
      if (batch->batched) {
        /* (the first pack of the first sweep may be the prediction's) */
        if (!packed && !(it == 0 && soft->prepack && !items_ran))
          sn_stage_add(r, SN_STAGE_POS_PACK, it == 0, 0, np, SN_BLOCK_PARTICLES, 1);
        packed = true;
        if (it == 0 && batch->type->begin_particles) sn_stage_add_main(r, SN_STAGE_POS_START, b);
        const sn_particle_batch *pb = &batch->particles;
        for (int32_t c = 0; c < pb->colour_count; ++c) {
          int32_t first = pb->colour_start[c], count = pb->colour_start[c + 1] - first;
          sn_stage_add(r, SN_STAGE_POS_COLOUR, b, first, count, SN_BLOCK_PARTICLE_CONSTRAINTS, 8);
        }
        continue;
      }
      if (packed) sn_stage_add(r, SN_STAGE_POS_UNPACK, 0, 0, np, SN_BLOCK_PARTICLES, 1);
      packed = false;
      items_ran = true;
      sn_stage_add_main(r, SN_STAGE_POS_ITEMS, b);
    }
    /* (the last copy back may be the velocities') */
    if (packed && !(it == stage->soft_iterations - 1 && soft->unpack_late))
      sn_stage_add(r, SN_STAGE_POS_UNPACK, 0, 0, np, SN_BLOCK_PARTICLES, 1);
    sn_stage_add_main(r, SN_STAGE_POS_COLLIDE, it == 0);
  }
  sn_stage_add(r, SN_STAGE_POS_VELOCITIES, substep, 0, np, SN_BLOCK_PARTICLES, 1);
  sn_stage_add_main(r, SN_STAGE_POS_END, substep);
}

/* Stages of the position stage of one substep: an upper bound (the joint
 * projection's sweeps: projection_stages each and one to start it). */
static int32_t sn_position_stage_capacity(const sn_joint_batch *batches, int32_t batch_count, int32_t sweeps,
                                          int32_t projection_sweeps, int32_t projection_stages) {
  int32_t per_sweep = 3;
  for (int32_t b = 0; b < batch_count; ++b) {
    per_sweep += 2;
    if (batches[b].batched) per_sweep += batches[b].particles.colour_count;
  }
  /* + the batched types' starts */
  return 3 + sweeps * per_sweep + batch_count + projection_sweeps * (1 + projection_stages);
}

/// Stages of the substep loop: an upper bound for the arena.
static int32_t sn_stage_capacity(int32_t substeps) { return 4 + SN_WIDE_COLORS + substeps * (7 + 3 * SN_WIDE_COLORS); }

/* ------------------------------------------------------------- the solve */

/* A reservation of the solve, made by sn_solve_reserve: true (nothing
 * allocated). False only for a bound that was wrong: asserted. */
static inline bool sn_reserved(bool ok) {
  assert(ok && "a bound of sn_solve_reserve is too small");
  return ok;
}

/* Arena bytes of the solve (solver setup to the proxies' move, no reset in
 * between): each module's part for nb solver bodies, groups contact groups
 * and the plugin constraints counted, and the setup's stage runner here. */
static size_t sn_solve_scratch_bytes(const sn_world *w, int32_t nb, int32_t groups, sn_joint_count joints) {
  return sn_contact_solver_scratch_bytes(nb, groups) + sn_soft_scratch_bytes(w) + sn_joint_scratch_bytes(nb, joints) +
         sn_continuous_scratch_bytes(w) + sn_stage_runner_bytes(3);
}

/* Bounds, from the world before the narrowphase, on what the rest of the
 * step uses: every contact in use after the new pairs' (live) may touch,
 * every body may be awake, every listed constraint active; a contact colour
 * holds its contacts eight to a group but the overflow one each, and at
 * most w->contact_excess contacts overflow (SN_COLOR_FREE_CONTACTS). */
bool sn_solve_reserve(sn_world *w, float dt) {
  if (!sn_constraint_lists_update(w)) return false;
  if (!sn_soft_find_candidates(w, dt)) return false;
  if (!sn_xpbd_schedule_reserve(w)) return false;
  if (!sn_reserve_new_contacts(w)) return false;
  const sn_constraint_lists *l = &w->constraint_lists;
  const int32_t fresh = w->new_pairs.count / 2, unused = w->contacts.count - w->contact_count;
  const int32_t slots = w->contacts.count + (fresh > unused ? fresh - unused : 0);
  const int32_t live = w->contact_count + fresh;
  const int32_t nb = w->bodies.count;
  /* the new contacts' share: their events, and w->contact_excess as linking
   * them will leave it (each body's count goes up by one a pair, for the
   * count, then back) */
  int32_t fresh_events = 0, fresh_hits = 0, excess = w->contact_excess;
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t k = 0; k < w->new_pairs.count; k += 2) {
      const sn_shape *a = w->shapes.data + w->new_pairs.data[k], *b = w->shapes.data + w->new_pairs.data[k + 1];
      if (pass == 0) {
        fresh_events += a->enable_contact_events || b->enable_contact_events;
        fresh_hits += a->enable_hit_events || b->enable_hit_events;
      }
      sn_body *ends[2] = {w->bodies.data + a->body, w->bodies.data + b->body};
      for (int e = 0; e < 2; ++e) {
        if (ends[e]->type == SN_BODY_STATIC) continue;
        if (pass == 1) {
          ends[e]->contact_count -= 1;
          continue;
        }
        ends[e]->contact_count += 1;
        if (ends[e]->contact_count > SN_COLOR_FREE_CONTACTS) excess++;
      }
    }
  }
  const int32_t overflow = excess < live ? excess : live;
  /* (either layout: the batches pad a group per colour at most) */
  const int32_t groups =
      sn_solve_batched_groups_bound(live, sn_mini(live, overflow + live / SN_WIDE_LANES + SN_WIDE_COLORS));
  const int32_t batches = sn_solve_batch_bound(live);
  const int32_t nj = l->batched_count + l->items.count;
  const int32_t endpoints = l->batched_endpoints + l->items_endpoints;
  const size_t packed = l->batched_packed + l->items_packed;
  /* stages: the substep loop, with the position stage (sn_position_stage_capacity) */
  int32_t types = l->batched.count + l->item_types.count, colours = 0;
  for (int32_t r = 0; w->xpbd.valid && r < w->xpbd.ranges.count; ++r) colours += w->xpbd.ranges.data[r].level_count;
  const int64_t position = 3 + (int64_t)w->settings.soft_iterations * (3 + 2 * (int64_t)types + colours) + types;
  /* the impulse joints: warm start, solve, relax and the projection sweeps
   * (one more stage each), each a stage per large level and per run of
   * small ones between them (sn_add_joint_stages) */
  const int64_t joint_stages = 1 + (int64_t)l->item_types.count + 2 * (int64_t)nj / SN_JOINT_LEVEL_MIN;
  const int64_t projection = (int64_t)w->settings.position_iterations * (1 + joint_stages);
  const int64_t stages = sn_stage_capacity(w->settings.substeps) +
                         (int64_t)w->settings.substeps * (position + projection + 3 * joint_stages);
  /* (counts past an int32 are memory no allocator has: refused as such) */
  const int64_t frozen = (int64_t)nb + w->particles.count, lanes = (int64_t)SN_WIDE_LANES * groups;
  if (stages > INT32_MAX || frozen > INT32_MAX || lanes > INT32_MAX) return false;
  /* events: in the narrowphase a contact with events that does not touch
   * may begin, one that touches may end (or go); the end events held since
   * the last step lead */
  bool ok =
      sn_array_reserve(&w->mem, w->contact_status, slots) &&
      sn_array_reserve(&w->mem, w->begin_events, w->event_contacts - w->touching_event_contacts + fresh_events) &&
      sn_array_reserve(&w->mem, w->end_events, w->pending_end_events.count + w->touching_event_contacts) &&
      sn_array_reserve(&w->mem, w->hit_events, w->hit_contacts + fresh_hits) &&
      sn_array_reserve(&w->mem, w->frozen_events, (int32_t)frozen) && sn_array_reserve(&w->mem, w->body_events, nb) &&
      sn_array_reserve(&w->mem, w->broken_events, l->breakable.count) &&
      sn_array_reserve(&w->mem, w->awake_bodies, nb) && sn_array_reserve(&w->mem, w->body_solver_index, nb) &&
      sn_array_reserve(&w->mem, w->solver_contacts, slots) && sn_array_reserve(&w->mem, w->solver_keys, slots) &&
      sn_array_reserve(&w->mem, w->list_counts, slots / (SN_BLOCK_CONTACTS * 4) + 1) &&
      sn_array_reserve(&w->mem, w->contact_colors, live) && sn_array_reserve(&w->mem, w->body_color_masks, nb + 1) &&
      sn_array_reserve(&w->mem, w->wide_cache_contacts, live) && sn_array_reserve(&w->mem, w->wide_cache_keys, live) &&
      sn_array_reserve(&w->mem, w->wide_cache_lanes, (int32_t)lanes) &&
      sn_array_reserve(&w->mem, w->wide_cache_batch_runs, 2 * nb) &&
      sn_array_reserve(&w->mem, w->wide_cache_batch_run_first, batches + 1) &&
      sn_array_reserve(&w->mem, w->wide_cache_batch_groups, batches * SN_WIDE_COLORS + 1) &&
      sn_array_reserve(&w->mem, w->move_buffer, w->shapes.count) &&
      sn_array_reserve(&w->mem, w->stages, sn_maxi(3, (int32_t)stages)) &&
      (!w->settings.enable_continuous || !w->toi_had_fast ||
       (sn_array_reserve(&w->mem, w->toi_motions, nb) && sn_array_reserve(&w->mem, w->toi_owners, w->shapes.count)));
  if (!ok || !sn_joint_levels_reserve(w, nb, nj, types, l->items_packed)) return false;
  /* the arena, reset between the narrowphase, the solve, breaking and the
   * islands: the largest of them (sn_soft_scratch_bytes reads the awake
   * list's capacity, reserved above) */
  const sn_joint_count joints = {nj, endpoints, packed, types};
  size_t bytes = sn_narrowphase_scratch_bytes();
  bytes = sn_maxz(bytes, sn_solve_scratch_bytes(w, nb, groups, joints));
  bytes = sn_maxz(bytes, sn_breaking_scratch_bytes(w));
  bytes = sn_maxz(bytes, sn_island_scratch_bytes(nb));
  return sn_arena_reserve(&w->arena, &w->mem, bytes);
}

static void sn_rebuild_after_moves(sn_world *w);

/* The solve: solver setup, the substeps, continuous collision, the proxies'
 * move and the dynamic tree's rebuild (memory reserved by sn_solve_reserve
 * and sn_step_reserve: no allocation). */
static void sn_solve(sn_world *w, float dt) {
  double t_setup = w->profile_clock; /* the world's clock read just before */
  /* every reservation below was made by sn_solve_reserve: none allocates
   * (and none fails: the early returns are for a broken bound, asserted) */
  if (w->constraint_count > 0) sn_wake_joined(w);
  sn_soft_wake_candidates(w);
  /* gather awake bodies */
  if (!sn_reserved(sn_array_reserve(&w->mem, w->awake_bodies, w->bodies.count) &&
                   sn_array_reserve(&w->mem, w->body_solver_index, w->bodies.count)))
    return;
  sn_gather_awake_bodies(w);
  /* touching contacts with an awake body, in contact order (deterministic) */
  if (!sn_reserved(sn_list_solver_contacts(w))) return;
  int32_t nb = w->awake_bodies.count, nc = w->solver_contacts.count;
  /* active plugin constraints, their endpoints and packed bytes */
  const sn_joint_count joints_active = sn_joint_count_active(w);
  int32_t nj = joints_active.constraints;
  /* all step memory up front: nothing is allocated inside the substeps */
  if (!sn_reserved(sn_array_reserve(&w->mem, w->contact_colors, nc) &&
                   sn_array_reserve(&w->mem, w->body_color_masks, nb + 1)))
    return;
  /* colour the contacts (see contact_wide.c): the group count sizes the
   * step. The colouring is a function of the solver contacts and their keys
   * alone: while those stay the same (a resting pile), last step's is kept. */
  /* Without joints and particles, awake bodies in batches that no contact
   * joins (islands apart in the solver order) are solved batch by batch
   * (sn_solve_batch): the colouring is the same, the groups batch-major. */
  const bool batching = nj == 0 && w->particle_count == 0 && !w->solve_batches_off;
  bool reuse = sn_color_reuse(w, batching);
  int32_t groups = sn_color_contacts(w, reuse);
  const int32_t room = batching && !reuse ? sn_solve_batched_groups_bound(nc, groups) : groups;
  size_t bytes = sn_solve_scratch_bytes(w, nb, room, joints_active);
  if (!sn_reserved(sn_arena_reserve(&w->arena, &w->mem, bytes))) return;
  if (!sn_reserved(sn_array_reserve(&w->mem, w->move_buffer, w->shapes.count))) return;
  sn_step_context ctx;
  if (!sn_reserved(sn_step_context_init(w, &ctx, dt))) return;
  int32_t substeps = w->settings.substeps;
  float h = ctx.h;

  sn_solver_run run;
  memset(&run, 0, sizeof(run));
  run.w = w;
  run.ctx = &ctx;
  run.h = h;
  /* the contacts eight to a group, prepared straight into their lanes */
  sn_wide_set wide;
  if (!sn_reserved(sn_build_wide_set(w, &wide, reuse, &groups, batching))) return;
  run.wide = &wide;
  w->solve_batches = wide.batch_count;
  sn_stage_runner runner;
  int32_t workers = nb + nc + nj + w->particle_count >= w->parallel_min_items ? w->worker_count : 1;
  if (!sn_reserved(sn_stage_runner_init(&runner, &w->arena, 3, workers, sn_solver_stage, &run))) return;
  sn_stage_add(&runner, SN_STAGE_INIT, 0, 0, nb, SN_BLOCK_BODIES, 1);
  if (nc <= SN_PREPARE_BY_GROUP_MAX) {
    /* group by group: the same bytes, each group written at once */
    sn_stage_add(&runner, SN_STAGE_PREPARE_GROUPS, 0, 0, wide.group_count, SN_BLOCK_GROUPS, 1);
  } else {
    sn_stage_add(&runner, SN_STAGE_PREPARE, 0, 0, nc, SN_BLOCK_CONTACTS, 1);
    /* a block of contacts completes the groups it holds whole; the others
     * after it (one block: all of them) */
    ctx.prepare_block = nc > 0 ? runner.stages[runner.count - 1].block_size : 1;
    if (workers > 1) sn_stage_add(&runner, SN_STAGE_PREPARE_LANES, 0, 0, wide.group_count, SN_BLOCK_GROUPS * 4, 1);
  }
  sn_stage_run(&w->tasks, &runner);

  /* particles (their views are what particle constraints see) */
  sn_soft_context soft;
  if (!sn_reserved(sn_soft_begin(w, &soft, dt, substeps, ctx.states, nb))) return;
  /* plugin constraints, batched per type */
  sn_joint_batch *batches = NULL;
  int32_t *owners = NULL;
  sn_joint_batches_alloc(w, nj, &batches, &owners);
  if (nj > 0 && !sn_reserved(sn_xpbd_schedule_update(w))) return;
  int32_t batch_count =
      nj > 0 && batches && owners ? sn_build_joint_batches(w, &ctx, &soft, batches, joints_active, owners) : 0;
  const sn_plugin_caller caller = {w, &ctx, &soft, owners};
  sn_step_info info;
  memset(&info, 0, sizeof(info));
  info.size = (uint32_t)sizeof(info);
  info.dt = dt;
  info.inv_dt = 1.0f / dt;
  info.h = h;
  info.inv_h = ctx.inv_h;
  info.substeps = substeps;
  info.contact_hertz = w->settings.contact_hertz;
  info.contact_damping_ratio = w->settings.contact_damping_ratio;
  const float joint_rate = 0.25f * ctx.inv_h; /* a quarter of the substep rate */
  info.joint_hertz = w->settings.joint_hertz > 0.0f ? sn_minf(w->settings.joint_hertz, joint_rate) : joint_rate;
  info.joint_damping_ratio = w->settings.joint_damping_ratio;
  info.iterations = 1;
  sn_position_setup stage = {NULL, 0, 0, w->settings.position_iterations, w->settings.soft_iterations};
  sn_joint_batches_prepare(&caller, batches, batch_count, &info, &stage);
  bool position_stage = stage.project_count > 0 || stage.xpbd_count > 0 || soft.active;
  if (position_stage && !sn_reserved(sn_position_setup_alloc(w, &stage, nb))) return;

  /* the substep loop as stages (serial order; see sn_solver_stage) */
  bool joints = false;
  for (int32_t b = 0; b < batch_count; ++b) joints = joints || (batches[b].impulse && batches[b].count > 0);
  /* the first sweep's full pack rides on the prediction when nothing between
   * them moves a particle: no impulse joints (their passes and projection
   * may) and a batched type first among the XPBD types (an item type would
   * run before the pack) */
  for (int32_t b = 0; b < batch_count && soft.active && !joints; ++b) {
    if (!batches[b].xpbd || batches[b].count == 0) continue;
    soft.prepack = batches[b].batched;
    break;
  }
  /* and the last sweep's copy back rides on the velocities when only the
   * particle collisions would run between them and there are none this step
   * (a batched type last among the XPBD types) */
  if (soft.active && w->settings.soft_iterations > 0 && w->particle_shape_pairs.count == 0 &&
      w->particle_pairs.count == 0 && w->edge_pairs.count == 0) {
    for (int32_t b = batch_count - 1; b >= 0; --b) {
      if (!batches[b].xpbd || batches[b].count == 0) continue;
      soft.unpack_late = batches[b].batched;
      break;
    }
  }
  run.soft = &soft;
  run.batches = batches;
  run.batch_count = batch_count;
  run.info = &info;
  run.position = &stage;
  run.owners = owners;
  run.caller = &caller;
  run.dt = dt;
  atomic_init(&run.frozen, 0);
  atomic_init(&run.fast, 0);
  atomic_init(&run.hits, 0);
  const int32_t joint_stages = sn_add_joint_stages(NULL, batches, batch_count, SN_STAGE_JOINT_SOLVE);
  const int32_t projection_stages = sn_add_joint_stages(NULL, batches, batch_count, SN_STAGE_JOINT_PROJECT);
  int32_t capacity = sn_stage_capacity(substeps) + substeps * 3 * joint_stages;
  if (position_stage)
    capacity += substeps * sn_position_stage_capacity(batches, batch_count, w->settings.soft_iterations,
                                                      stage.project_count > 0 ? stage.position_iterations : 0,
                                                      projection_stages);
  if (!sn_reserved(sn_array_reserve(&w->mem, w->stages, capacity))) return;
  /* The substep loop's stages are many and short (every colour of every
   * substep, each a hand-over between the cores). With few contacts (under
   * SN_LOOP_PARALLEL_FACTOR times the parallel minimum) and few joints and
   * particles, the hand-overs cost more than the second core saves, and the
   * calling thread runs the loop alone (the same passes in the same order:
   * the same bits). Joints weigh SN_LOOP_JOINT_WEIGHT contacts (several
   * rows and passes each, and whole ragdolls' levels run in parallel). */
  const int64_t min_items = w->parallel_min_items;
  bool loop_parallel = (int64_t)nc >= SN_LOOP_PARALLEL_FACTOR * min_items ||
                       (int64_t)nj * SN_LOOP_JOINT_WEIGHT >= min_items || w->particle_count >= min_items;
  /* Between SN_LOOP_MEASURE_FACTOR and SN_LOOP_PARALLEL_FACTOR times the
   * minimum, the machine decides: each way's cost per contact is measured
   * (a running mean), the cheaper one runs, and every SN_LOOP_PROBE_EVERY
   * steps the other is tried again (what a core hand-over costs differs
   * from machine to machine, and with the load) */
  const bool measured =
      wide.batch_count == 0 && !loop_parallel && workers > 1 && (int64_t)nc >= SN_LOOP_MEASURE_FACTOR * min_items;
  if (measured) {
    w->loop_probe += 1;
    if (w->loop_cost[0] == 0.0f)
      loop_parallel = false;
    else if (w->loop_cost[1] == 0.0f)
      loop_parallel = true;
    else
      loop_parallel = (w->loop_cost[1] < w->loop_cost[0]) != (w->loop_probe % SN_LOOP_PROBE_EVERY == 0);
  }
  /* (batches hand over nothing between substeps: the workers take them) */
  const int32_t loop_workers = loop_parallel || wide.batch_count > 0 ? workers : 1;
  w->loop_workers = loop_workers;
  sn_stage_runner_init_on(&runner, w->stages.data, capacity, loop_workers, sn_solver_stage, &run);
  if (wide.batch_count > 0) {
    assert(!joints && !position_stage && !soft.active);
    sn_stage_add_each(&runner, SN_STAGE_BATCH, 0, 0, wide.batch_count);
  }
  for (int32_t i = 0; i < substeps && wide.batch_count == 0; ++i) {
    sn_stage_add(&runner, SN_STAGE_INTEGRATE_V, i, 0, nb, SN_BLOCK_BODIES, 1);
    /* step info and rigid centres for the plugins and particles (a main-only
     * stage, which every worker waits for: only when someone reads it) */
    if (joints || position_stage || soft.active) sn_stage_add_main(&runner, SN_STAGE_SUBSTEP, i);
    if (soft.active) sn_stage_add(&runner, SN_STAGE_PREDICT, i, 0, soft.count, SN_BLOCK_PARTICLES, 1);
    sn_add_color_stages(&runner, &wide, SN_STAGE_WARM);
    sn_add_joint_stages(&runner, batches, batch_count, SN_STAGE_JOINT_WARM);
    sn_add_color_stages(&runner, &wide, SN_STAGE_SOLVE);
    sn_add_joint_stages(&runner, batches, batch_count, SN_STAGE_JOINT_SOLVE);
    sn_stage_add(&runner, SN_STAGE_INTEGRATE_P, i, 0, nb, SN_BLOCK_BODIES, 1);
    sn_add_color_stages(&runner, &wide, SN_STAGE_RELAX);
    sn_add_joint_stages(&runner, batches, batch_count, SN_STAGE_JOINT_RELAX);
    if (position_stage) sn_add_position_stages(&runner, batches, batch_count, &stage, &soft, i);
  }
  sn_stage_add_main(&runner, SN_STAGE_POST, 0);
  /* restitution per colour as the solve (its lanes of a colour touch no
   * common body: the same bits on any number of workers) */
  if (wide.batch_count == 0) sn_add_color_stages(&runner, &wide, SN_STAGE_RESTITUTION);
  sn_stage_add(&runner, SN_STAGE_STORE, 0, 0, nc, SN_BLOCK_CONTACTS, 1);
  sn_stage_add(&runner, SN_STAGE_WRITE_BACK, 0, 0, nb, SN_BLOCK_BODIES, 1);
  /* the motions continuous collision reads, noted by the write back when
   * the last step had fast bodies (only then is their memory taken) */
  w->toi_notes = false;
  if (w->settings.enable_continuous && w->toi_had_fast) sn_toi_begin_notes(w);
  double t_loop = sn_clock_ms();
  sn_stage_run(&w->tasks, &runner);
  double t_finish = sn_clock_ms();
  if (measured) {
    /* (never 0, which means "not measured") */
    const float cost = sn_maxf((float)(t_finish - t_loop) / (float)nc, 1e-9f), old = w->loop_cost[loop_parallel];
    w->loop_cost[loop_parallel] = old == 0.0f ? cost : old + 0.25f * (cost - old);
  }
  if (atomic_load_explicit(&run.hits, memory_order_relaxed)) sn_report_hits(w);
  if (atomic_load_explicit(&run.frozen, memory_order_relaxed)) sn_report_frozen(w, &ctx);
  /* continuous collision, then proxies move, in body order (the tree, and so
   * the pair order, does not depend on the worker count); the write back
   * flagged the bodies with something to do */
  if (w->settings.enable_continuous)
    sn_continuous_solve(w, ctx.post, SN_POST_FAST | SN_POST_MOVED,
                        atomic_load_explicit(&run.fast, memory_order_relaxed) != 0);
  sn_move_proxies(w, &ctx);
  sn_rebuild_after_moves(w);
  double t_end = sn_clock_ms();
  w->profile_clock = t_end;
  w->profile.solve_setup = (float)(t_loop - t_setup);
  w->profile.substeps = (float)(t_finish - t_loop);
  w->profile.solve_finish = (float)(t_end - t_finish);
}

/* -------------------------------------------------------------- the step */

/* The body events: every body the solver moved this step (the awake
 * bodies, in body slot order), with whether the islands put it to sleep.
 * The write back notes each one while the body is at hand
 * (rigid/solver.c, sn_note_move), continuous collision amends the
 * transforms it changes and the islands the bodies they put to sleep: here
 * they are published (room reserved by sn_step_reserve). */
static void sn_report_body_moves(sn_world *w) { w->body_events.count = w->awake_bodies.count; }

/* The dynamic tree's rebuild on the workers (sn_tree_rebuild_moved_with):
 * its subtree jobs as one stage. */
enum { SN_TREE_PROXY_WEIGHT = 4 };
typedef struct sn_tree_jobs {
  void (*job)(void *context, int32_t i);
  void *context;
} sn_tree_jobs;

static void sn_tree_jobs_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  (void)stage;
  const sn_tree_jobs *jobs = context;
  for (int32_t i = begin; i < end; ++i) jobs->job(jobs->context, i);
}

static void sn_run_tree_jobs(void *runner, int32_t count, void (*job)(void *context, int32_t i), void *context) {
  sn_world *w = runner;
  sn_tree_jobs jobs = {job, context};
  _Alignas(64) sn_stage stages[1];
  sn_stage_runner r;
  sn_stage_runner_init_on(&r, stages, 1, w->worker_count, sn_tree_jobs_stage, &jobs);
  sn_stage_add(&r, 0, 0, 0, count, 1, 1);
  sn_stage_run(&w->tasks, &r);
}

/* The dynamic tree's marked part rebuilt, the subtrees below its first
 * levels on the workers in a large world (the same tree; a proxy weighs
 * SN_TREE_PROXY_WEIGHT items, as the build bins it once per level). */
static void sn_rebuild_dynamic_tree(sn_world *w) {
  const bool parallel =
      w->worker_count > 1 && (int64_t)w->dynamic_tree.proxy_count * SN_TREE_PROXY_WEIGHT >= w->parallel_min_items;
  sn_tree_rebuild_moved_with(&w->dynamic_tree, parallel ? sn_run_tree_jobs : NULL, w);
}

/* The moved part of the dynamic tree rebuilt right after the step's moves,
 * which only marked it (sn_tree_move_proxy_marked): the same marks and
 * leaves, so the same tree as the rebuild at the next step's start would
 * make when nothing changes in between, and queries between steps see it
 * rebuilt. Its room was reserved at the step's start
 * (sn_tree_reserve_rebuild) for as many proxies as now, so it runs; should
 * it not, every leaf in the move buffer (the step's moves among them) grows
 * its path, and queries are exact as after deferred moves. */
static void sn_rebuild_after_moves(sn_world *w) {
  sn_tree *tree = &w->dynamic_tree;
  sn_rebuild_dynamic_tree(w);
  if (tree->root == SN_NULL_NODE || !(tree->nodes[tree->root].flags & SN_TREE_NODE_MOVED)) return;
  assert(false && "the rebuild's room is reserved at the step's start");
  for (int32_t e = 0; e < w->move_buffer.count; ++e) {
    const sn_shape *s = w->shapes.data + w->move_buffer.data[e];
    if (!s->is_static_tree && s->proxy != SN_NULL_NODE)
      sn_tree_move_proxy_deferred(tree, s->proxy, sn_tree_get_aabb(tree, s->proxy));
  }
}

/* Whether a tree's query copy (sn_tree_refresh_wide) is worth making for
 * the step: the pair search descends the trees once for each group of
 * moved shapes (about four shapes) and continuous collision once for each
 * group of fast bodies (last step's count), and the copy pays when there
 * are at least a sixth as many descents as leaves. Below that (a lattice
 * whose swinging moves a quarter of its leaves, a settling pyramid) making
 * it costs more than the descents save; they walk the binary tree, with the
 * same results. */
static bool sn_tree_copy_pays(const sn_world *w, const sn_tree *t) {
  const int64_t descents = (int64_t)w->move_buffer.count / 4 + w->toi_groups;
  return descents * 6 >= (int64_t)t->proxy_count;
}

/* The first part of a step: everything that may fail (memory), before
 * anything a caller can see changes. The extents and the constraint lists
 * are caches (a snapshot refreshes the extents before it reads them), the
 * dynamic tree's rebuild is recorded to be undone, the new pairs wait in
 * w->new_pairs; the rest only grows memory (sn_solve_reserve). */
static bool sn_step_reserve(sn_world *w, float dt) {
  w->step_limit_hits = 0;
  w->dynamic_tree.undo_items = -1; /* nothing rebuilt yet */
  sn_body_refresh_extents(w);      /* the step's first stage: the extents are read from here on */
  if (!sn_tree_reserve_rebuild(&w->dynamic_tree)) return false;
  sn_rebuild_dynamic_tree(w);
  /* the trees' query copies for the pair search and continuous collision */
  if ((sn_tree_copy_pays(w, &w->static_tree) && !sn_tree_refresh_wide(&w->static_tree)) ||
      (sn_tree_copy_pays(w, &w->dynamic_tree) && !sn_tree_refresh_wide(&w->dynamic_tree)))
    return false;
  return sn_find_new_pairs(w) && sn_solve_reserve(w, dt) && sn_sensor_find(w);
}

/* A step that ran out of memory: what sn_step_reserve did goes back. */
static void sn_step_undo(sn_world *w) {
  sn_forget_new_pairs(w);
  sn_tree_undo_rebuild(&w->dynamic_tree);
}

sn_result sn_world_step(sn_world *w, float dt) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->locked) return sn_world_locked_error(w, __func__);
  if (!sn_is_finite(dt)) return sn_world_error(w, SN_ERR_NOT_FINITE, "dt must be finite");
  if (!(dt >= SN_MIN_TIME_STEP && dt <= SN_MAX_TIME_STEP))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "dt must be in [1e-6, 10] s (got %g)", (double)dt);
  sn_world_lock(w);
  w->stepping = true;
  double t0 = sn_clock_ms();
  /* 0: all the memory the step needs, or nothing changes (the last step's
   * events, counters and profile stay too) */
  if (!sn_step_reserve(w, dt)) {
    sn_step_undo(w);
    w->stepping = false;
    sn_world_unlock(w);
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "sn_world_step: out of memory; the world did not step");
  }
  /* from here on nothing is allocated (debug builds assert it) */
  w->mem.forbid += 1;
  w->begin_events.count = 0;
  w->hit_events.count = 0;
  w->broken_events.count = 0;
  w->frozen_events.count = 0;
  /* End events raised since the last step (a touching body or shape
   * destroyed, a body type changed) went to the pending array, so the last
   * step's arrays stayed as the caller got them; they lead this step's
   * report (end_events has room for them: sn_solve_reserve). */
  if (w->pending_end_events.count > 0)
    memcpy(w->end_events.data, w->pending_end_events.data,
           (size_t)w->pending_end_events.count * sizeof(*w->pending_end_events.data));
  w->end_events.count = w->pending_end_events.count;
  w->pending_end_events.count = 0;
  sn_sensor_commit(w);
  memset(&w->profile, 0, sizeof(w->profile));
  /* 1-2: contacts of the new pairs, narrowphase manifolds (warm-start matching) */
  sn_create_new_pairs(w);
  sn_update_contacts(w);
  w->contact_limit_hits = w->step_limit_hits;
  double t1 = sn_clock_ms();
  /* 4-7: prepare, substeps, restitution, store impulses, continuous (the
   * solver fills in its three parts of the profile, from t1 to its end) */
  w->profile_clock = t1;
  sn_solve(w, dt);
  double t2 = w->profile_clock; /* where the solver's last part ended, so the parts meet */
  sn_constraints_check_breaking(w, dt);
  /* 3: islands and sleeping, on the state just solved */
  if (w->settings.enable_sleep) sn_update_sleep(w, dt);
  sn_report_body_moves(w);
  w->mem.forbid -= 1;
  w->stepping = false;
  sn_world_unlock(w);
  double t3 = sn_clock_ms();
  w->profile.collide = (float)(t1 - t0);
  w->profile.sleep = (float)(t3 - t2);
  w->profile.step = (float)(t3 - t0);
  return SN_OK;
}
