/* Contact solver data shared by the step (solver.c) and the wide contact
 * kernel (contact_wide.c). Internal. */
#ifndef SN_RIGID_CONTACT_WIDE_H
#define SN_RIGID_CONTACT_WIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "sinew/types.h"

#include "base/alloc.h"

/// What the contact colouring needs of a solver contact (solver.c,
/// contact_wide.c): its solver bodies (the static slot for bodies that are
/// not awake) and which of them the contact can change.
typedef struct sn_wide_key {
  int32_t ia, ib;
  uint32_t dynamic; ///< bit 0: body a can move, bit 1: body b
} sn_wide_key;

typedef struct sn_softness {
  float bias_rate, mass_scale, impulse_scale;
} sn_softness;

/// Solver state of one body: 32 bytes, contiguous. The last slot of the
/// array is a static dummy (zero velocity, identity motion).
typedef struct sn_body_state {
  sn_vec2 v;
  float w;
  float pad;
  sn_vec2 dp; ///< position change of the centre of mass this step
  sn_rot dq;  ///< rotation change this step
} sn_body_state;

typedef struct sn_constraint_point {
  sn_vec2 ra, rb;        ///< anchors from the centres of mass (world frame, fixed for the step)
  float base_separation; ///< separation - dot(rb - ra, n)
  float normal_impulse, tangent_impulse, max_normal_impulse;
  float normal_mass, tangent_mass;
  float relative_velocity; ///< normal approach velocity at the start of the step
} sn_constraint_point;

typedef struct sn_contact_constraint {
  int32_t ia, ib; ///< solver indices (dummy slot for static)
  sn_vec2 normal;
  float ma, ia_inv, mb, ib_inv;
  float friction, restitution;
  float tangent_speed;      ///< conveyor surface speed along the tangent (sn_contact.tangent_speed)
  float rolling_resistance; ///< coefficient times rolling radius (sn_contact.rolling_resistance)
  sn_softness soft;
  int32_t point_count;
  int32_t contact;
  sn_constraint_point points[2];
  float k11, k12, k22; ///< 2x2 normal mass matrix of a two-point manifold
  float n11, n12, n22; ///< its inverse
} sn_contact_constraint;

/// Contacts packed eight to a group, SoA, coloured so that no dynamic body
/// appears twice in a group: a group's lanes are solved at once with SIMD
/// (8 lanes with AVX2, two halves of 4 with SSE2, plain C otherwise) and give
/// exactly the result of solving them one after the other.
typedef struct sn_wide_group sn_wide_group;

/// Lanes per group.
#define SN_WIDE_LANES 8

typedef struct sn_wide_set {
  sn_wide_group *groups;
  int32_t group_count;
  int32_t *lane_constraint; ///< constraint index per lane (-1 = padding), SN_WIDE_LANES per group
  int32_t *contact_slot;    ///< per constraint: its lane, SN_WIDE_LANES x group + lane (the inverse)
  int32_t color_first[66];  ///< first group of each colour (64 = overflow), then the end
  bool use_avx2;            ///< 8 lanes at once (same results bit for bit)
  /// Batch-major layout (sn_wide_build_batches) when batch_count > 0: batch b
  /// holds the solver bodies of runs batch_run_first[b] .. batch_run_first[b
  /// + 1] - 1 (run r: [batch_runs[2 r], batch_runs[2 r + 1])) and its colour
  /// c the groups from batch_groups[SN_WIDE_COLORS b + c] to the next entry
  /// (batch_groups[SN_WIDE_COLORS batch_count] = group_count). color_first
  /// is then unused.
  int32_t batch_count;
  const int32_t *batch_runs;
  const int32_t *batch_run_first;
  const int32_t *batch_groups;
} sn_wide_set;

/// What contact preparation reads of an awake body, by solver index (filled
/// with the solver states, so the contacts never touch sn_body for them).
typedef struct sn_wide_body {
  float inv_mass, inv_inertia;
  sn_vec2 offset; ///< centre of mass minus body origin (world frame)
} sn_wide_body;

/// What a solved lane hands back (accumulated and peak impulses, approach
/// speeds) for warm starting, restitution and hit events.
typedef struct sn_wide_result {
  int32_t point_count; ///< points solved (both of a two-point manifold)
  float normal_impulse[2], tangent_impulse[2], max_normal_impulse[2], relative_velocity[2];
} sn_wide_result;

/// True if this CPU runs the 8-lane AVX2 kernel.
bool sn_wide_cpu_has_avx2(void);

/// The colouring key of a prepared constraint (dummy = the static slot).
sn_wide_key sn_wide_key_of(const sn_contact_constraint *c, int32_t dummy);
/// Colours the contacts (per-contact colour in colors[], body masks in
/// masks[] of body_count entries, both caller scratch) and returns the
/// number of groups needed.
int32_t sn_wide_color(const sn_wide_key *keys, int32_t count, int32_t body_count, int32_t *colors, uint64_t *masks);
/// Bytes of arena memory sn_wide_build needs for group_count groups.
size_t sn_wide_bytes(int32_t group_count);
/// Assigns coloured contacts to groups and lanes (arena memory); the lanes
/// are then filled with sn_wide_set_lane (or sn_wide_fill).
bool sn_wide_build(sn_wide_set *set, sn_arena *arena, int32_t count, const int32_t *colors, int32_t group_count);
/// A contact joins bodies far apart in the solver order when their indices
/// differ by more than SN_WIDE_BATCH_SPAN; more than one contact in
/// SN_WIDE_BATCH_FAR_SHARE doing so, and sn_wide_batches cuts nothing.
#define SN_WIDE_BATCH_SPAN      64
#define SN_WIDE_BATCH_FAR_SHARE 8
/// Cuts solver bodies [0, body_count) into batches that no contact joins:
/// whole islands (bodies joined by contacts, the static slot body_count
/// joining nothing), taken in the order of their lowest bodies, a batch
/// closed once it holds at least `target` contacts. batch_of (body_count
/// entries) gets each body's batch; each batch's bodies as runs of
/// consecutive indices go to runs (pairs: first, one past the last; at most
/// body_count runs), batch b's runs from run_first[b] to run_first[b + 1]
/// (max_batches + 1 entries); parent is scratch of body_count entries.
/// Returns the batch count, 0 when fewer than two come out, when they would
/// be more than max_batches, when one would hold more than half of the
/// contacts, or when the contacts join bodies far apart (above).
int32_t sn_wide_batches(const sn_wide_key *keys, int32_t count, int32_t body_count, int32_t target, int32_t max_batches,
                        int32_t *runs, int32_t *run_first, int32_t *batch_of, int32_t *parent);
/// The group count of the batch-major layout, and each batch's and colour's
/// first group in batch_groups (SN_WIDE_COLORS batch_count + 1 entries).
/// sn_wide_build_batches then assigns the lanes: a batch's colours in
/// order, each colour's contacts in contact order and its last group padded,
/// so a batch's groups are contiguous. The lanes of every colour hold the contacts they
/// would in the colour-major layout's order within the batch: a contact's
/// bodies are all in its batch, so solving batch by batch, each batch's
/// colours in order, gives exactly the bits of the colour-major passes.
int32_t sn_wide_batched_groups(const int32_t *colors, const sn_wide_key *keys, int32_t count, const int32_t *batch_of,
                               int32_t batch_count, int32_t *batch_groups);
bool sn_wide_build_batches(sn_wide_set *set, sn_arena *arena, int32_t count, const int32_t *colors,
                           const sn_wide_key *keys, const int32_t *batch_of, int32_t batch_count,
                           const int32_t *batch_runs, const int32_t *batch_run_first, const int32_t *batch_groups,
                           int32_t group_count);
/// Only the groups (arena memory, 32-byte aligned) of a set whose lanes are
/// assigned already (a colouring kept from the last step).
bool sn_wide_alloc_groups(sn_wide_set *set, sn_arena *arena, int32_t group_count);
/// The lane of each of the count contacts (contact_slot, arena memory) from
/// the contact of each lane (lane_constraint) of a set whose lanes are
/// assigned already.
bool sn_wide_index_contacts(sn_wide_set *set, sn_arena *arena, int32_t count);
/// Packs one prepared constraint (NULL: padding) into lane `lane` of group
/// `group`; dummy is the static slot of the state array. Every lane of a
/// group must be set before it is solved.
void sn_wide_set_lane(const sn_wide_set *set, int32_t group, int lane, const sn_contact_constraint *c, int32_t dummy);
/// Prepares solver contacts [begin, end) straight from the world into
/// their lanes (contact_slot): contact k is contacts[k] with colouring key
/// keys[k] (anchors, effective masses, the 2x2 block, softness: static for
/// contacts with a body that cannot move). Awake bodies come from
/// states/bodies by solver index, others (the static slot `dummy`) from the
/// world. Any cut of the contacts gives the same lanes; a group whose
/// contacts all lie in [begin, end) is complete on return, the others after
/// sn_wide_prepare_lanes.
void sn_wide_prepare_range(const sn_wide_set *set, const sn_world *w, const int32_t *contacts, const sn_wide_key *keys,
                           const sn_body_state *states, const sn_wide_body *bodies, int32_t begin, int32_t end,
                           int32_t dummy, const sn_softness *soft, const sn_softness *static_soft);
/// As sn_wide_prepare_range, group by group: groups [begin, end) take their
/// lanes' contacts (read wherever they are) and are complete on return. The
/// same bytes as the contact order; it writes one group at a time, and
/// reads the contacts out of order (while they stay in the caches).
void sn_wide_prepare_groups(const sn_wide_set *set, const sn_world *w, const int32_t *contacts, const sn_wide_key *keys,
                            const sn_body_state *states, const sn_wide_body *bodies, int32_t begin, int32_t end,
                            int32_t dummy, const sn_softness *soft, const sn_softness *static_soft);
/// Groups [begin, end), once every contact is prepared: the lane masks
/// from each lane's findings, padding lanes, zeros in the lanes without a
/// surface speed or rolling resistance of a group where some lane has one.
/// block > 0: the contacts were prepared in calls of `block` from 0, and a
/// group within one call, complete already, is skipped; 0: every group
/// (again for those complete: the same bytes).
void sn_wide_prepare_lanes(const sn_wide_set *set, int32_t begin, int32_t end, int32_t dummy, int32_t block);
/// Packs constraints cs[lane_constraint] of groups [begin, end) into their lanes.
void sn_wide_fill(const sn_wide_set *set, const sn_contact_constraint *cs, int32_t begin, int32_t end, int32_t dummy);
/// Number of colours in color_first (the last one, SN_WIDE_OVERFLOW, holds
/// contacts that found no colour: its groups share bodies and must run in
/// order, on one thread).
#define SN_WIDE_COLORS   65
#define SN_WIDE_OVERFLOW 64
/// Warm start / solve groups [begin, end) (of one colour: any cut of a colour
/// gives the same bits as one pass over it).
void sn_wide_warm_range(const sn_wide_set *set, sn_body_state *states, int32_t begin, int32_t end);
void sn_wide_solve_range(const sn_wide_set *set, sn_body_state *states, int32_t begin, int32_t end, float inv_h,
                         float push, bool use_bias);
/// One Gauss-Seidel pass over all groups in colour order. (Fusing the warm
/// start into the first pass was tried: later colours then see velocities
/// without their warm start and pyramids explode.)
void sn_wide_solve(const sn_wide_set *set, sn_body_state *states, float inv_h, float push, bool use_bias);
/// Restitution after the substeps over groups [begin, end), in order
/// (lanes with restitution 0 are skipped): points that approached faster
/// than `threshold` and pushed get the normal velocity -e v_approach. The
/// step runs it colour by colour like the solve (a colour's groups touch no
/// common body that moves), or over each batch's groups.
void sn_wide_restitution_range(const sn_wide_set *set, sn_body_state *states, int32_t begin, int32_t end,
                               float threshold);
/// The results of lane `lane` of group `group`.
void sn_wide_get_result(const sn_wide_set *set, int32_t group, int lane, sn_wide_result *out);
/// The results of solver contacts [begin, end) back to their manifolds in
/// contact order (contact k is w->contacts[contacts[k]], its lane
/// contact_slot[k]): accumulated impulses for warm starting, peak impulses
/// and approach speeds for hit events; points past the lane's are zeroed.
/// True if one of them reports hit events.
bool sn_wide_store_range(const sn_wide_set *set, sn_world *w, const int32_t *contacts, int32_t begin, int32_t end);
/// Copies accumulated impulses, peak impulses and approach speeds back to
/// cs[lane_constraint] (tests; the step stores straight to the manifolds).
void sn_wide_store(const sn_wide_set *set, sn_contact_constraint *cs);

/// The position part of a substep for bodies [begin, end): rotation bounded
/// to max_rotation per substep, speed to sqrt(max_speed_sq), then dq and dp
/// advanced by h. Four bodies at a time where no bound applies (same bits
/// as one at a time).
void sn_wide_integrate_positions(sn_body_state *states, int32_t begin, int32_t end, float h, float max_rotation,
                                 float max_speed_sq);

#endif /* SN_RIGID_CONTACT_WIDE_H */
