/* Contact manifolds (internal): closed forms for circles and capsules, SAT +
 * reference/incident edge clipping for polygons, GJK for rounded polygons,
 * one-sided smooth chain segments. Every point carries a feature id that is
 * stable while the same features touch, for warm starting. */
#ifndef SN_COLLISION_MANIFOLD_H
#define SN_COLLISION_MANIFOLD_H

#include "collision/distance.h"

/// Feature id of a point: which features of A and B made it. Packed so that
/// the same vertex/edge pair gives the same id every step.
#define SN_MAKE_ID(a, b) ((uint16_t)(((uint8_t)(a)) << 8 | (uint8_t)(b)))

/// One contact point. Written by the collide functions (geometry part) and
/// by the solver (impulse part).
typedef struct sn_manifold_point {
  sn_vec2 point;            ///< world point, midway between the surfaces
  sn_vec2 anchor_a;         ///< point - xf_a.p (world orientation, relative to A's origin)
  sn_vec2 anchor_b;         ///< point - xf_b.p (world orientation, relative to B's origin)
  float separation;         ///< negative when overlapping (m)
  float normal_impulse;     ///< accumulated, for warm starting (solver)
  float tangent_impulse;    ///< accumulated, for warm starting (solver)
  float max_normal_impulse; ///< largest normal impulse of the step (solver)
  float normal_velocity;    ///< relative approach velocity before the solve (solver)
  uint16_t id;              ///< feature id
  bool persisted;           ///< matched last step's point (warm started)
} sn_manifold_point;

/// Up to two points sharing one normal (from A to B, world frame).
typedef struct sn_manifold {
  sn_manifold_point points[2];
  sn_vec2 normal;
  int32_t point_count;
} sn_manifold;

/* All collide functions: shape A placed by xf_a, shape B by xf_b. They return
 * points with separation < SN_SPECULATIVE_DISTANCE (speculative contacts), and
 * point_count = 0 if the shapes are farther apart. Impulse fields are zero. */
sn_manifold sn_collide_circles(const sn_circle *a, sn_transform xf_a, const sn_circle *b, sn_transform xf_b);
sn_manifold sn_collide_capsule_and_circle(const sn_capsule *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b);
sn_manifold sn_collide_capsules(const sn_capsule *a, sn_transform xf_a, const sn_capsule *b, sn_transform xf_b);
sn_manifold sn_collide_segment_and_circle(const sn_segment *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b);
sn_manifold sn_collide_segment_and_capsule(const sn_segment *a, sn_transform xf_a, const sn_capsule *b,
                                           sn_transform xf_b);
sn_manifold sn_collide_segment_and_polygon(const sn_segment *a, sn_transform xf_a, const sn_polygon *b,
                                           sn_transform xf_b);
sn_manifold sn_collide_polygon_and_circle(const sn_polygon *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b);
sn_manifold sn_collide_polygon_and_capsule(const sn_polygon *a, sn_transform xf_a, const sn_capsule *b,
                                           sn_transform xf_b);
sn_manifold sn_collide_polygons(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b, sn_transform xf_b);
sn_manifold sn_collide_chain_segment_and_circle(const sn_chain_segment *a, sn_transform xf_a, const sn_circle *b,
                                                sn_transform xf_b);
sn_manifold sn_collide_chain_segment_and_capsule(const sn_chain_segment *a, sn_transform xf_a, const sn_capsule *b,
                                                 sn_transform xf_b, sn_simplex_cache *cache);
sn_manifold sn_collide_chain_segment_and_polygon(const sn_chain_segment *a, sn_transform xf_a, const sn_polygon *b,
                                                 sn_transform xf_b, sn_simplex_cache *cache);

/// Dispatch by type. Requires sn_collide_supported(a->type, b->type): the
/// contact code orders each pair so that a->type >= b->type (polygon before
/// capsule before circle; segments and chain segments always A).
/// cache: per-contact GJK cache (may be NULL).
sn_manifold sn_collide(const sn_geometry *a, sn_transform xf_a, const sn_geometry *b, sn_transform xf_b,
                       sn_simplex_cache *cache);

/// sn_collide writing into *m, for the narrowphase: the same normal,
/// point_count and points below point_count, bit for bit (impulse fields
/// zero); points at and above point_count may be left as they were. Polygon
/// pairs (two boxes take a four-lane SAT), polygon-circle, polygon-capsule,
/// circle, capsule-circle and capsule pairs are built in place, the other
/// pairs computed by sn_collide and copied.
/// use_avx2: the CPU has AVX2 (the world's use_avx2): two boxes then run a
/// build of their path for it, with the same results.
void sn_collide_into(const sn_geometry *a, const sn_transform *xf_a, const sn_geometry *b, const sn_transform *xf_b,
                     sn_simplex_cache *cache, bool use_avx2, sn_manifold *m);

/// For tests: the general polygon pair code, which two quadrilaterals
/// otherwise bypass for their four-lane path (same results bit for bit).
sn_manifold sn_collide_polygons_general(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b, sn_transform xf_b,
                                        sn_simplex_cache *cache);
/// For tests: sn_collide_polygon_and_circle with the edge loop for every
/// vertex count (a quadrilateral otherwise tests its edges four lanes wide).
sn_manifold sn_collide_polygon_and_circle_loop(const sn_polygon *a, sn_transform xf_a, const sn_circle *b,
                                               sn_transform xf_b);

/// True if a pair of round shapes, a circle, capsule or segment against a
/// circle or capsule, or a chain segment against a circle (in sn_collide's
/// order), has tight boxes (box_a, box_b: at the poses it is collided at)
/// farther apart along x or y than the speculative distance plus a rounding
/// allowance: sn_collide then returns no points and leaves the simplex cache
/// alone, so the narrowphase gives such a pair the empty manifold without
/// the call. False for every other pair.
bool sn_round_pair_far_apart(const sn_geometry *a, sn_aabb box_a, const sn_geometry *b, sn_aabb box_b);

/// True if sn_collide handles (type_a, type_b) in this order.
bool sn_collide_supported(sn_shape_type type_a, sn_shape_type type_b);

#endif /* SN_COLLISION_MANIFOLD_H */
