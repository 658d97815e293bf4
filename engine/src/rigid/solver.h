/* The rigid solver (internal): solver.c, the contact kernel in
 * contact_wide.c. The stage list of the step (world/step.c) calls these;
 * the functions over [begin, end) run on any cut of their range. */
#ifndef SN_RIGID_SOLVER_H
#define SN_RIGID_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

#include "rigid/body.h"
#include "rigid/contact_wide.h"

typedef struct sn_body_motion {
  sn_vec2 dv;               ///< velocity change per substep from gravity and forces
  float dw;                 ///< angular velocity change per substep from torque
  float lin_damp, ang_damp; ///< 1 / (1 + h damping)
  float max_speed_sq;
} sn_body_motion;

typedef struct sn_step_context {
  sn_body_state *states;
  uint8_t *post; ///< per solver body: SN_POST_* flags from the write back
  sn_body_motion *motions;
  sn_wide_body *bodies; ///< per solver body: what contact preparation reads
  int32_t body_count;
  float h, inv_h;
  float push_max_velocity;
  float restitution_threshold;
  float max_rotation;
  int32_t prepare_block; ///< solver contacts per block of the preparation (sn_prepare_lanes)
} sn_step_context;

/// What a body needs after the parallel write back (sn_step_context.post):
/// FAST, continuous collision sweeps it (its shapes' boxes, sn_shape.aabb,
/// are at the write back's pose, their proxies not moved yet); ESCAPED, a
/// shape's box left its proxy's; MOVED, continuous collision moved it after
/// the write back (sn_toi_stop_joined), so its shapes' boxes are computed
/// again.
enum { SN_POST_FAST = 1, SN_POST_ESCAPED = 2, SN_POST_MOVED = 4 };

/// The touching contacts with an awake body, in contact order, into
/// w->solver_contacts with their colouring keys (w->solver_keys); false
/// when out of memory (the step reserved it).
bool sn_list_solver_contacts(sn_world *w);
/// The awake bodies in slot order (w->awake_bodies), their solver indices
/// (room reserved by the step).
void sn_gather_awake_bodies(sn_world *w);
/// Solver contacts a batch gathers before it closes (sn_wide_batches): its
/// groups and bodies stay in a core's caches through the substeps.
#define SN_SOLVE_BATCH_CONTACTS 512
/// Most batches of count solver contacts (each but the last holds
/// SN_SOLVE_BATCH_CONTACTS or more).
static inline int32_t sn_solve_batch_bound(int32_t count) { return count / SN_SOLVE_BATCH_CONTACTS + 1; }
/// Most groups of count solver contacts in either layout, given the
/// colour-major layout's groups (a batch pads a group per colour at most).
static inline int32_t sn_solve_batched_groups_bound(int32_t count, int32_t groups) {
  const int64_t bound = (int64_t)groups + SN_WIDE_COLORS * (int64_t)sn_solve_batch_bound(count);
  return bound < count ? (int32_t)bound : (groups > count ? groups : count);
}
/// Whether the last step's colouring holds for this step's solver contacts
/// and keys (the colouring is a function of them alone), in the layout
/// batches asks for (sn_build_wide_set).
bool sn_color_reuse(const sn_world *w, bool batches);
/// Colours the solver contacts (or takes the last step's when reuse) and
/// returns the number of contact groups.
int32_t sn_color_contacts(sn_world *w, bool reuse);
/// The contacts eight to a group (arena memory), the colouring kept for the
/// next step; false when the arena is short. batches: batch-major when the
/// awake bodies fall into batches (sn_wide_batches; the caller solves no
/// joints or particles then), with the group count that layout takes in
/// *groups (groups in: the colour-major count, sn_color_contacts).
bool sn_build_wide_set(sn_world *w, sn_wide_set *wide, bool reuse, int32_t *groups, bool batches);
/// The solver state of the awake bodies (arena memory); false when the
/// arena is short.
bool sn_step_context_init(sn_world *w, sn_step_context *ctx, float dt);
/// Solver state of bodies [begin, end): velocities, step-start pose, the
/// per-substep velocity change from gravity and forces, damping factors.
void sn_init_bodies(sn_world *w, sn_step_context *ctx, float h, int32_t begin, int32_t end);
/// Solver contacts [begin, end), in contact order: each prepared straight
/// into its lane (then sn_prepare_lanes completes the groups). by_group:
/// groups [begin, end) of the wide set instead, each complete on return (no
/// sn_prepare_lanes); the same bytes.
void sn_prepare_contacts(const sn_world *w, const sn_step_context *ctx, const sn_wide_set *wide, int32_t begin,
                         int32_t end, bool by_group);
/// Groups [begin, end), once every contact is prepared: lane masks, padding
/// (those within one block of ctx->prepare_block contacts are done).
void sn_prepare_lanes(const sn_step_context *ctx, const sn_wide_set *wide, int32_t begin, int32_t end);
void sn_integrate_velocities(sn_step_context *ctx, int32_t begin, int32_t end);
void sn_integrate_positions(sn_step_context *ctx, int32_t begin, int32_t end);
/// The accumulated impulses of solver contacts [begin, end) back to their manifolds;
/// true if one of them reports hit events (then sn_report_hits).
bool sn_store_impulses(sn_world *w, const sn_wide_set *wide, int32_t begin, int32_t end);
/// Hit events, in contact order.
void sn_report_hits(sn_world *w);
/// What sn_write_back found among its bodies.
enum {
  SN_WRITE_BACK_FROZEN = 1, ///< a state was contained (then sn_report_frozen)
  SN_WRITE_BACK_FAST = 2    ///< a body is fast (then continuous collision)
};
/// Bodies [begin, end) take their solver state (SN_POST_* flags in
/// ctx->post); returns SN_WRITE_BACK_* flags.
uint8_t sn_write_back(sn_world *w, const sn_step_context *ctx, float dt, int32_t begin, int32_t end);
bool sn_state_is_finite(const sn_body_state *s);
/// A state the write back does not take (not finite, or beyond the
/// coordinate limit).
bool sn_state_contained(const sn_body *b, const sn_body_state *s);
/// Frozen events of the bodies the write back contained, in body order.
void sn_report_frozen(sn_world *w, const sn_step_context *ctx);
/// Proxies move, in body order (the tree, and so the pair order, does not
/// depend on the worker count): the fast bodies' shapes after continuous
/// collision, the escaped ones of the others. The moves only mark the
/// dynamic tree (sn_tree_move_proxy_marked): the caller rebuilds it before
/// any query.
void sn_move_proxies(sn_world *w, const sn_step_context *ctx);
/// Arena bytes of the rigid solver for nb solver bodies and groups contact
/// groups (sn_step_context_init, sn_build_wide_set).
/// groups is the most of either layout (sn_solve_batched_groups_bound).
size_t sn_contact_solver_scratch_bytes(int32_t nb, int32_t groups);

#endif /* SN_RIGID_SOLVER_H */
