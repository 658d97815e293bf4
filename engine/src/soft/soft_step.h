/* The soft-body part of a step (internal): particle states, candidate
 * collision pairs, prediction, collisions and the velocity pass. The step
 * (world/step.c) calls these at the points of the step docs/architecture.md lists. */
#ifndef SN_SOFT_STEP_H
#define SN_SOFT_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/plugin.h"

#include "base/alloc.h"
#include "rigid/contact_wide.h"

/// Particle state of one step (arena memory, indexed by particle slot).
typedef struct sn_soft_context {
  int32_t count;             ///< particle slots (w->particles.count)
  sn_solver_body *states;    ///< v, dp (w = 0, dq = identity)
  sn_constraint_body *views; ///< what constraints see of each particle
  sn_vec2 *prev;             ///< dp at the start of the current substep
  sn_vec2 *rigid_dp0;        ///< rigid dp at the start of the current substep
  sn_body_state *rigid;      ///< the rigid solver's states (dummy at rigid_count)
  int32_t rigid_count;
  float dt, h, inv_h;
  int32_t substeps;
  float restitution_threshold;
  float max_speed;
  bool active; ///< there are particles
  /* the batched XPBD types' view (sn_particle_batch): 4 floats per particle
   * each, filled from states and views by sn_soft_pack, dx, dy copied back by
   * sn_soft_unpack */
  float *position;      ///< x, y (centre at the substep start), dx, dy
  float *mass_velocity; ///< inverse mass, vx, vy, 0
  /* per particle, fixed for the step (sn_soft_begin): what the substep
   * passes do with it, and the damping factor 1 / (1 + h damping) of its
   * soft body, so they need not read the particle and its body each time */
  uint8_t *kind;      ///< SN_SOFT_FREE_SLOT, SN_SOFT_STILL, SN_SOFT_KINEMATIC or SN_SOFT_DYNAMIC
  float *damp_factor; ///< dynamic particles' velocity factor per substep
  /// Prediction also packs position and mass_velocity (the first sweep's
  /// full pack): set by the solver when nothing runs between the two that
  /// could move a particle (no impulse joints, a batched type first).
  bool prepack;
  /// The velocity pass copies dx, dy back first (the last sweep's unpack):
  /// set by the solver when nothing would run between the two (no particle
  /// collisions this step, a batched type last).
  bool unpack_late;
} sn_soft_context;

/// sn_soft_context.kind: a free slot; a particle that does not predict
/// (fixed or frozen); a kinematic one; a dynamic one.
enum { SN_SOFT_FREE_SLOT = 0, SN_SOFT_STILL = 1, SN_SOFT_KINEMATIC = 2, SN_SOFT_DYNAMIC = 3 };

/// Finds particle-shape and particle-particle candidate pairs for the step,
/// in the step's reservations (sn_solve_reserve): it changes nothing but the
/// candidate lists and their scratch. False when out of memory.
bool sn_soft_find_candidates(sn_world *w, float dt);
/// Wakes the sleeping bodies a moving particle may hit (their sleep timers
/// start again), in candidate order: where the solver gathers awake bodies.
void sn_soft_wake_candidates(sn_world *w);
/// Arena bytes sn_soft_begin takes (it reads the capacity of the awake
/// body list, reserved before).
size_t sn_soft_scratch_bytes(const sn_world *w);
/// Fills the particle states and views (arena memory reserved by the caller).
bool sn_soft_begin(sn_world *w, sn_soft_context *s, float dt, int32_t substeps, sn_body_state *rigid,
                   int32_t rigid_count);
/// Step 5a for particles: v += g h (damped), remember dp, dp += v h.
void sn_soft_predict(sn_world *w, sn_soft_context *s, int32_t substep);
/// The two parts of sn_soft_predict: rigid centres at the substep start (one
/// thread), then particles [begin, end) (any split).
void sn_soft_predict_rigid(sn_soft_context *s);
void sn_soft_predict_range(sn_world *w, sn_soft_context *s, int32_t substep, int32_t begin, int32_t end);
/// Fills the batched types' particle arrays: dx, dy from the states, and
/// with `full` (first sweep of a substep) the centres, inverse masses and
/// velocities too.
void sn_soft_pack(sn_soft_context *s, bool full);
void sn_soft_pack_range(sn_soft_context *s, bool full, int32_t begin, int32_t end);
/// Copies the batched types' dx, dy back into the states.
void sn_soft_unpack(sn_soft_context *s);
void sn_soft_unpack_range(sn_soft_context *s, int32_t begin, int32_t end);
/// Collisions of one sweep of the XPBD stage (first sweep resets lambdas).
void sn_soft_collide(sn_world *w, sn_soft_context *s, bool first_sweep);
/// v = (p - x) / h, then friction and restitution of the touching pairs.
void sn_soft_finish_substep(sn_world *w, sn_soft_context *s);
/// Its two parts: v = (p - x) / h of particles [begin, end) (any split),
/// then the velocity pass over the touching pairs (one thread, in order).
void sn_soft_velocities_range(sn_world *w, sn_soft_context *s, int32_t begin, int32_t end);
void sn_soft_velocity_pass(sn_world *w, sn_soft_context *s);
/// Writes positions and velocities back; rigid-mode damping.
void sn_soft_end(sn_world *w, sn_soft_context *s);

/// Pairs (i < j) of points whose reach discs overlap: |p_i - p_j| <
/// reach_i + reach_j, found with a sorted spatial hash. Appends to *pairs
/// (grown with mem; pairs[2k], pairs[2k+1]); deterministic order. Returns
/// the number of pairs, or -1 when out of memory. scratch holds the cell
/// entries (grown as needed, kept by the caller). Stops at max_pairs pairs,
/// then sets *cut (if not NULL) when there were more.
int32_t sn_find_close_pairs(sn_mem *mem, const sn_vec2 *points, const float *reach, int32_t count, int32_t **pairs,
                            int32_t *capacity, sn_scratch *scratch, int32_t max_pairs, bool *cut);

#endif /* SN_SOFT_STEP_H */
