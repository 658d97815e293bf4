/* Plugin constraints in the step (internal): constraint_step.c. */
#ifndef SN_CONSTRAINTS_CONSTRAINT_STEP_H
#define SN_CONSTRAINTS_CONSTRAINT_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/plugin.h"

#include "constraints/constraint.h"
#include "rigid/solver.h"
#include "soft/soft_step.h"

/// A rigid body's pose change before the XPBD part of the position stage.
typedef struct sn_body_pose {
  sn_vec2 dp;
  sn_rot dq;
} sn_body_pose;

/// The impulse joints' items come in levels (sn_build_joint_batches): the
/// items of a level share no body the step moves. A level with fewer items
/// runs on one thread, with its neighbours of that size (a stage each would
/// cost more than it solves); a larger one in blocks of SN_BLOCK_JOINTS.
#define SN_JOINT_LEVEL_MIN 128
#define SN_BLOCK_JOINTS    64
/// A type with at least this many items whose levels average fewer than
/// SN_JOINT_LEVEL_MIN items is solved in greedy colours instead (at most
/// SN_JOINT_COLOURS, then an item alone per level): the levels would run
/// on one thread.
#define SN_JOINT_COLOUR_MIN 2048
#define SN_JOINT_COLOURS    63

/// Plugin constraints of one type, solved as a batch.
typedef struct sn_joint_batch {
  const sn_constraint_type *type;
  bool impulse, xpbd; /* runs in the velocity passes / the XPBD stage */
  bool batched;       /* the XPBD stage calls solve_particles (no items) */
  bool resident;      /* the items' params and instances are the constraints' own (nothing to copy back) */
  sn_constraint_item *items;
  int32_t count;
  int32_t first; /* the first item's entry in the owners list */
  /* impulse types: the items in levels, level l is items
   * [level_start[l], level_start[l + 1]) (NULL for other types) */
  const int32_t *level_start;
  int32_t level_count;
  sn_particle_batch particles; /* batched: the type's constraints and the particles */
} sn_joint_batch;

/// What plugin callbacks need to blame a constraint (sn_world_def.check_plugins).
typedef struct sn_plugin_caller {
  sn_world *w;
  const sn_step_context *ctx;
  const sn_soft_context *soft;
  const int32_t *owners; ///< constraint slot of each item
} sn_plugin_caller;

/* The position stage of a substep (after relax; docs/architecture.md, the step):
 * 1. rigid joint rows project their remaining position error away
 *    (non-linear Gauss-Seidel, position_iterations sweeps) and give the
 *    bodies that motion over h as velocity, as XPBD would (the plugin does
 *    it from the correction: sn_pm_project_point). Without the projection
 *    the soft rows leave a 100-link chain under its own weight 1.2 % open;
 *    with it 0.5 %, and a falling chain loses less energy. Without the
 *    velocity the next substep's soft rows re-open the gap (1.1 %).
 * 2. XPBD: position-type constraints (soft_iterations sweeps, lambda reset
 *    at sweep 0) and particle collisions.
 * 3. Every rigid body's velocity takes its displacement in 2 over h
 *    (Delta x / h, Delta theta / h); particles take v = (p - x) / h, then
 *    the velocity pass (friction, restitution). */
typedef struct sn_position_setup {
  sn_body_pose *pose0;
  int32_t project_count, xpbd_count;
  int32_t position_iterations, soft_iterations;
} sn_position_setup;

/// A plugin callback over a batch's items; with check_plugins one item at a
/// time (the same order, so the same result), each checked after its call.
void sn_run_plugin(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info, int32_t callback);
/// sn_run_plugin over count items of the batch at items, their constraint
/// slots at owners.
void sn_run_plugin_on(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
                      int32_t callback, sn_constraint_item *items, const int32_t *owners, int32_t count);
/// sn_run_plugin over items [begin, end) of the batch.
void sn_run_plugin_range(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
                         int32_t callback, int32_t begin, int32_t end);
/// The position stage's first piece after the joint projection (the rigid
/// poses before XPBD) and its last (rigid velocities from the motion, the
/// particles' velocity pass); see sn_position_setup.
void sn_position_begin(sn_step_context *ctx, const sn_soft_context *soft, sn_step_info *info,
                       const sn_position_setup *stage);
void sn_position_end(sn_world *w, sn_step_context *ctx, sn_soft_context *soft, const sn_position_setup *stage);
/// Whether a constraint takes part in the step (a particle or an awake body).
bool sn_constraint_active(const sn_world *w, const sn_constraint *k);
/// Wakes the sleeping bodies joined to awake ones (before the solver
/// gathers the awake bodies).
void sn_wake_joined(sn_world *w);
/// The active plugin constraints of a step, their bodies and particles and
/// their packed params and instance bytes (with alignment).
typedef struct sn_joint_count {
  int32_t constraints, endpoints;
  size_t packed;
  int32_t types; ///< plugin types that may have constraints (a bound on the batches)
} sn_joint_count;
/// The step's batches (arena memory, sn_joint_scratch_bytes) of the active
/// constraints counted in n; owners gets the
/// constraint slot of each item. Returns the number of batches (0 when the
/// arena is short).
int32_t sn_build_joint_batches(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batches,
                               sn_joint_count n, int32_t *owners);
/// World memory for keeping the impulse types' levels (sn_build_joint_batches
/// keeps them while the constraints and the awake bodies stay the same) for
/// nb awake bodies and nj constraints of the given number of types, and for
/// their params and instances resident in level order (packed: the bytes
/// sn_joint_count_active counts for them); false when memory is short
/// (sn_solve_reserve).
bool sn_joint_levels_reserve(sn_world *w, int32_t nb, int32_t nj, int32_t types, size_t packed);
/// Arena memory for the batches of nj constraints and the owner of each
/// item (NULL when the arena is short).
void sn_joint_batches_alloc(sn_world *w, int32_t nj, sn_joint_batch **batches, int32_t **owners);
/// Arena memory for the rigid poses of the position stage (nb bodies).
bool sn_position_setup_alloc(sn_world *w, sn_position_setup *stage, int32_t nb);
/// Sets each batch's passes and runs prepare on the impulse types; counts
/// the constraints of the position stage.
void sn_joint_batches_prepare(const sn_plugin_caller *pc, sn_joint_batch *batches, int32_t batch_count,
                              const sn_step_info *info, sn_position_setup *stage);
/// After the substeps: the packed instances go back to their constraints.
void sn_joint_batches_end(sn_world *w, const sn_joint_batch *batches, int32_t batch_count, const int32_t *owners);
/// Counts the active plugin constraints (sn_joint_count).
sn_joint_count sn_joint_count_active(const sn_world *w);
/// Arena bytes the step's plugin constraints use, for nb solver bodies and
/// the constraints counted (each term grows with each count, so bounds give
/// a bound).
size_t sn_joint_scratch_bytes(int32_t nb, sn_joint_count n);

#endif /* SN_CONSTRAINTS_CONSTRAINT_STEP_H */
