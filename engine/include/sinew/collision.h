/* Sinew: a 2D physics engine for rigid and soft bodies.
 * collision.h: low-level collision functions that need no world: ray casts
 * against single shapes, distance between convex shapes (GJK), shape casts
 * (time of impact of a moving shape), contact manifolds, and the plane
 * solver of the character mover. Pure functions of their arguments.
 *
 * Every function validates its input and returns sn_result: SN_ERR_NULL for
 * a missing pointer, SN_ERR_NOT_FINITE for NaN or infinity,
 * SN_ERR_INVALID_ARGUMENT for a value out of range (a proxy of 0 or more
 * than SN_MAX_POLYGON_VERTICES points, a negative radius, a coordinate
 * beyond SN_MAX_COORDINATE); the output is untouched on error.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_COLLISION_H
#define SINEW_COLLISION_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Shape proxies                                                             */

/// A convex shape for distance, cast and overlap queries: the convex hull of
/// 1..SN_MAX_POLYGON_VERTICES points inflated by radius. One point and a
/// radius is a circle, two points a capsule, more a (rounded) polygon. The
/// world queries take the points in world coordinates.
typedef struct sn_shape_proxy {
  sn_vec2 points[SN_MAX_POLYGON_VERTICES];
  int32_t count;
  float radius;
} sn_shape_proxy;

/// Fills *out with count points (1..SN_MAX_POLYGON_VERTICES, else
/// SN_ERR_INVALID_ARGUMENT) and radius (>= 0). Points beyond
/// SN_MAX_COORDINATE are refused (SN_ERR_INVALID_ARGUMENT), NaN/Inf
/// SN_ERR_NOT_FINITE. A proxy with no extent (all points equal and radius 0)
/// is accepted here but refused by the world's shape queries.
SN_API sn_result sn_make_proxy(const sn_vec2 *points, int32_t count, float radius, sn_shape_proxy *out);

/// As sn_make_proxy with every point moved by xf (local points placed in the
/// world).
SN_API sn_result sn_make_offset_proxy(const sn_vec2 *points, int32_t count, float radius, sn_transform xf,
                                      sn_shape_proxy *out);

/// Checks a proxy filled by hand: as sn_make_proxy, plus
/// SN_ERR_INVALID_ARGUMENT for a proxy without extent (every point equal and
/// radius 0). The world's shape queries run this check.
SN_API sn_result sn_proxy_check(const sn_shape_proxy *proxy);

/* ------------------------------------------------------------------------ */
/* Ray casts against one shape                                               */

/// Casts the ray input->origin -> origin + translation, up to
/// input->max_fraction (0..1) of it, against a shape placed by xf; the ray
/// and the result are in world coordinates. A hit sets out->hit, the
/// fraction of translation at the hit, the point and the outward surface
/// normal there. A ray starting inside a solid shape does not hit it.
/// Segments are two-sided. max_fraction outside [0, 1] or a shape value out
/// of range: SN_ERR_INVALID_ARGUMENT (a polygon is checked as
/// sn_create_polygon_shape does).
SN_API sn_result sn_cast_ray_circle(const sn_ray_input *input, const sn_circle *circle, sn_transform xf,
                                    sn_cast_output *out);
SN_API sn_result sn_cast_ray_capsule(const sn_ray_input *input, const sn_capsule *capsule, sn_transform xf,
                                     sn_cast_output *out);
SN_API sn_result sn_cast_ray_segment(const sn_ray_input *input, const sn_segment *segment, sn_transform xf,
                                     sn_cast_output *out);
SN_API sn_result sn_cast_ray_polygon(const sn_ray_input *input, const sn_polygon *polygon, sn_transform xf,
                                     sn_cast_output *out);

/* ------------------------------------------------------------------------ */
/* Distance and shape casts                                                  */

/// Two proxies, each placed by its transform.
typedef struct sn_distance_input {
  sn_shape_proxy proxy_a, proxy_b;
  sn_transform transform_a, transform_b;
  bool use_radii; ///< true: distance between the rounded shapes; false: between the point hulls
} sn_distance_input;

/// Closest points of two convex shapes (world coordinates).
typedef struct sn_distance_output {
  sn_vec2 point_a; ///< closest point on A (with radii: on A's rounded surface)
  sn_vec2 point_b; ///< closest point on B
  sn_vec2 normal;  ///< unit, from A to B; zero when the point hulls overlap
  float distance;  ///< >= 0; 0 when the shapes overlap (both points then lie midway)
  int32_t iterations;
  int32_t simplex_count; ///< 3: the point hulls overlap
} sn_distance_output;

/// GJK distance between two proxies (Gilbert-Johnson-Keerthi). The witness
/// points are exact to about 1e-6 of the shapes' size.
SN_API sn_result sn_compute_distance(const sn_distance_input *input, sn_distance_output *out);

/// Proxy B moving by translation_b while A stays.
typedef struct sn_shape_cast_input {
  sn_shape_proxy proxy_a, proxy_b;
  sn_transform transform_a, transform_b;
  sn_vec2 translation_b; ///< B's motion (world)
  float max_fraction;    ///< 0..1 of translation_b
} sn_shape_cast_input;

/// Time of impact of a moving proxy (conservative advancement on the GJK
/// distance): out->fraction is the first fraction of translation_b at which
/// the rounded shapes touch (to within 2e-5 m), out->point the touching
/// point on A's surface and out->normal A's outward surface normal there
/// (from A towards B). Shapes that overlap at the start hit at fraction 0
/// (normal zero when the point hulls overlap). No hit within max_fraction:
/// out->hit false, fraction max_fraction.
SN_API sn_result sn_compute_shape_cast(const sn_shape_cast_input *input, sn_cast_output *out);

/* ------------------------------------------------------------------------ */
/* Contact manifolds                                                         */

/// Geometry of one shape, tagged by type (chain segments are not accepted:
/// pass a segment).
typedef struct sn_shape_geometry {
  sn_shape_type type; ///< SN_SHAPE_CIRCLE, SN_SHAPE_CAPSULE, SN_SHAPE_SEGMENT or SN_SHAPE_POLYGON
  sn_circle circle;
  sn_capsule capsule;
  sn_segment segment;
  sn_polygon polygon;
} sn_shape_geometry;

/* sn_contact_manifold and sn_contact_point are in sinew/types.h (the world's
 * contacts report them too); sn_compute_manifold sets the normal, the point
 * count (0: the shapes are farther apart than the speculative distance) and
 * each point's point, separation and id, and leaves the anchors, impulses
 * and the rest zero. */

/// The manifold the engine's narrowphase computes for shape A placed by xf_a
/// and B by xf_b: points within the speculative distance (2 cm, 4 linear
/// slops) are reported, so a point may have a positive separation. Any
/// order of the types works, but two segments do not collide
/// (SN_ERR_INVALID_ARGUMENT). Polygons are checked as
/// sn_create_polygon_shape does.
SN_API sn_result sn_compute_manifold(const sn_shape_geometry *a, sn_transform xf_a, const sn_shape_geometry *b,
                                     sn_transform xf_b, sn_contact_manifold *out);

/* ------------------------------------------------------------------------ */
/* Plane solver of the character mover                                       */

/// A contact plane of the mover (sn_world_collide_mover): the mover may move
/// by delta while separation + dot(normal, delta) >= 0.
typedef struct sn_collision_plane {
  sn_vec2 normal;     ///< unit, pointing from the obstacle towards the mover
  float separation;   ///< gap between the mover and the obstacle (m), negative when overlapping
  float push_limit;   ///< most the solver may push along normal (m); FLT_MAX for rigid obstacles
  float push;         ///< output of sn_solve_planes: how far this plane pushed (m)
  bool clip_velocity; ///< sn_clip_vector removes velocity into this plane
} sn_collision_plane;

/// Result of sn_solve_planes.
typedef struct sn_plane_solver_result {
  sn_vec2 translation;     ///< the corrected translation
  int32_t iteration_count; ///< sweeps over the planes (at most 20)
} sn_plane_solver_result;

/// Finds the translation closest to target_delta (the motion the mover
/// wants from where the planes were collected) that satisfies every plane:
/// separation + dot(normal, translation) >= 0, each plane pushing at most its
/// push_limit. Gauss-Seidel sweeps with clamped accumulated pushes, until
/// the pushes of a sweep add up to less than 1e-4 m or 20 sweeps. Writes
/// each plane's push. Planes with a non-finite or non-unit normal (|n| not
/// within 1e-3 of 1), NaN separation or negative push_limit:
/// SN_ERR_INVALID_ARGUMENT / SN_ERR_NOT_FINITE; count < 0:
/// SN_ERR_INVALID_ARGUMENT; planes may be NULL when count is 0.
SN_API sn_result sn_solve_planes(sn_vec2 target_delta, sn_collision_plane *planes, int32_t count,
                                 sn_plane_solver_result *out);

/// The vector closest to v that does not go into any plane with
/// clip_velocity set (dot(result, normal) >= 0 for each): v itself when it
/// goes into none, v less its part into one plane when that satisfies the
/// others, else zero (v points into a wedge). The tangential part stays, so
/// a mover walking into a wall keeps sliding along it. The planes' push is
/// not read. Errors as sn_solve_planes.
SN_API sn_result sn_clip_vector(sn_vec2 v, const sn_collision_plane *planes, int32_t count, sn_vec2 *out);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_COLLISION_H */
