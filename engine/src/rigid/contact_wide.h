/* Contact solver data shared by the step (solver.c) and the wide contact
 * kernel (contact_wide.c). Internal. */
#ifndef SN_RIGID_CONTACT_WIDE_H
#define SN_RIGID_CONTACT_WIDE_H

#include "core/alloc.h"
#include "sinew/types.h"

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
  sn_softness soft;
  int32_t point_count;
  int32_t contact;
  sn_constraint_point points[2];
  float k11, k12, k22; ///< 2x2 normal mass matrix of a two-point manifold
  float n11, n12, n22; ///< its inverse
} sn_contact_constraint;

/// Contacts packed four to a group, SoA, coloured so that no dynamic body
/// appears twice in a group: a group's four lanes are solved at once with
/// SIMD (SSE2 where available, plain C otherwise) and give exactly the result
/// of solving them one after the other.
typedef struct sn_wide_group sn_wide_group;

typedef struct sn_wide_set {
  sn_wide_group *groups;
  int32_t group_count;
  int32_t *lane_constraint; ///< constraint index per lane (-1 = padding), 4 per group
  int32_t color_first[66];  ///< first group of each colour (64 = overflow), then the end
  bool use_avx2;            ///< two groups of a colour at once (same results bit for bit)
} sn_wide_set;

/// True if this CPU runs the 8-lane AVX2 kernel.
bool sn_wide_cpu_has_avx2(void);

/// Colours the constraints (per-contact colour in colors[], body masks in
/// masks[] of body_count entries, both caller scratch) and returns the
/// number of groups needed.
int32_t sn_wide_color(const sn_contact_constraint *cs, int32_t count, int32_t body_count, int32_t *colors,
                      uint64_t *masks);
/// Bytes of arena memory sn_wide_build needs for group_count groups.
size_t sn_wide_bytes(int32_t group_count);
/// Assigns coloured constraints to groups and lanes (arena memory); the
/// groups are filled by sn_wide_fill. dummy is the static slot of the state
/// array.
bool sn_wide_build(sn_wide_set *set, sn_arena *arena, const sn_contact_constraint *cs, int32_t count,
                   const int32_t *colors, int32_t group_count, int32_t dummy);
/// Packs the constraints of groups [begin, end) into their SoA lanes.
void sn_wide_fill(const sn_wide_set *set, const sn_contact_constraint *cs, int32_t begin, int32_t end, int32_t dummy);
/// Number of colours in color_first (the last one, SN_WIDE_OVERFLOW, holds
/// contacts that found no colour: its groups share bodies and must run in
/// order, on one thread).
#define SN_WIDE_COLORS   65
#define SN_WIDE_OVERFLOW 64
/// Warm start / solve groups [begin, end) of colour `color`; begin must be an
/// even offset from the colour's first group (pairs run 8 lanes wide), so any
/// such cut of a colour gives the same bits as one pass over it.
void sn_wide_warm_range(const sn_wide_set *set, sn_body_state *states, int32_t color, int32_t begin, int32_t end);
void sn_wide_solve_range(const sn_wide_set *set, sn_body_state *states, int32_t color, int32_t begin, int32_t end,
                         float inv_h, float push, bool use_bias);
void sn_wide_warm_start(const sn_wide_set *set, sn_body_state *states);
/// One Gauss-Seidel pass over all groups in colour order. (Fusing the warm
/// start into the first pass was tried: later colours then see velocities
/// without their warm start and pyramids explode.)
void sn_wide_solve(const sn_wide_set *set, sn_body_state *states, float inv_h, float push, bool use_bias);
/// Copies accumulated impulses, peak impulses and approach speeds back.
void sn_wide_store(const sn_wide_set *set, sn_contact_constraint *cs);
/// The same for groups [begin, end) (each lane is one constraint: any cut is safe).
void sn_wide_store_range(const sn_wide_set *set, sn_contact_constraint *cs, int32_t begin, int32_t end);

#endif /* SN_RIGID_CONTACT_WIDE_H */
