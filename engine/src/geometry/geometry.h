/* Shape geometry (internal): the shape union, bounding boxes, mass, ray casts
 * and point tests. Pure functions of geometry + transform; no world access.
 * The public polygon/mass builders (sn_make_polygon, sn_compute_hull,
 * sn_make_box, sn_compute_*_mass) are implemented in geometry/ as well. */
#ifndef SN_GEOMETRY_H
#define SN_GEOMETRY_H

#include "sinew/types.h"

/// One segment of a chain with its neighbours' far vertices (ghost1 before
/// point1, ghost2 after point2), so a manifold can ignore the seam. One-sided:
/// shapes collide from the right side of point1 -> point2 (the normal is the
/// right perpendicular); the left side is solid.
typedef struct sn_chain_segment {
  sn_vec2 ghost1;
  sn_segment segment;
  sn_vec2 ghost2;
  int32_t chain_id;
} sn_chain_segment;

/// Geometry of any shape, tagged by type.
typedef struct sn_geometry {
  sn_shape_type type;
  union {
    sn_circle circle;
    sn_capsule capsule;
    sn_segment segment;
    sn_polygon polygon;
    sn_chain_segment chain_segment;
  };
} sn_geometry;

/// Bounding box of the shape placed by xf (tight, no margin).
sn_aabb sn_geometry_compute_aabb(const sn_geometry *g, sn_transform xf);

/// Mass properties at density (segments and chain segments: zero mass).
sn_mass_data sn_geometry_compute_mass(const sn_geometry *g, float density);

/// Centroid in local coordinates.
sn_vec2 sn_geometry_centroid(const sn_geometry *g);

/// Extent from the centroid (largest distance of any point of the shape),
/// used for continuous collision thresholds.
float sn_geometry_extent(const sn_geometry *g);

/// A disc inside the shape (body frame): its radius and, at center, its
/// centre; negative for segments and chain segments, which enclose no area.
/// A polygon's is about its centroid, as far as its nearest edge plus its
/// rounding.
float sn_geometry_inscribed_disc(const sn_geometry *g, sn_vec2 *center);
/// That disc's radius, 0 for segments: how far the shape may move into
/// another before its centre is past the other's near side (a body's
/// min_extent, continuous collision's limits).
float sn_geometry_inner_radius(const sn_geometry *g);

/// True if the local point lies in the solid shape (segments: never).
bool sn_geometry_test_point(const sn_geometry *g, sn_vec2 local_point);

/// Ray cast in the shape's local frame (input already transformed into it).
/// Rays starting inside a solid shape report no hit.
sn_cast_output sn_geometry_ray_cast(const sn_geometry *g, const sn_ray_input *local_input);

/// Individual ray casts (local frame).
sn_cast_output sn_ray_cast_circle(const sn_ray_input *input, const sn_circle *shape);
sn_cast_output sn_ray_cast_capsule(const sn_ray_input *input, const sn_capsule *shape);
sn_cast_output sn_ray_cast_segment(const sn_ray_input *input, const sn_segment *shape, bool one_sided);
sn_cast_output sn_ray_cast_polygon(const sn_ray_input *input, const sn_polygon *shape);

/// Validation of a polygon that arrives through the API (already built):
/// finite, 3..8 vertices, counter-clockwise, strictly convex, normals unit and
/// consistent, radius finite and >= 0. Returns SN_OK or the reason.
sn_result sn_polygon_validate(const sn_polygon *p);

/// A polygon from a capsule (2 vertices, rounded) for the generic GJK path.
sn_polygon sn_make_capsule_polygon(sn_vec2 p1, sn_vec2 p2, float radius);

#endif /* SN_GEOMETRY_H */
