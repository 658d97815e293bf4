/* Shape geometry: bounding boxes, centroids, extents, point tests and ray
 * casts, all in the shape's local frame (the AABB takes a transform).
 *
 * Ray casts share these rules: the ray is origin + t * translation with t in
 * [0, max_fraction]; a zero translation or a max_fraction that is not > 0
 * misses; a ray whose origin is strictly inside a solid shape misses (one on
 * the surface moving inwards hits at fraction 0); the normal is the outward
 * unit normal of the surface at the hit, so it faces against the ray.
 *
 * One-sided (chain) segments follow the chain convention of geometry.h: the
 * collision normal is the right perpendicular of point1 -> point2, and only a
 * ray that arrives from that side (travelling against the normal) hits. */
#include <float.h>
#include <string.h>

#include "sinew/sinew.h"

#include "base/math.h"
#include "geometry/geometry.h"

/* ------------------------------------------------------------------------ */
/* Bounding boxes, centroids, extents                                        */

static sn_aabb points_aabb(const sn_vec2 *points, int32_t count, float radius, sn_transform xf) {
  sn_vec2 lower = sn_transform_point(xf, points[0]);
  sn_vec2 upper = lower;
  for (int32_t i = 1; i < count; ++i) {
    sn_vec2 p = sn_transform_point(xf, points[i]);
    lower = sn_vmin(lower, p);
    upper = sn_vmax(upper, p);
  }
  sn_vec2 r = {radius, radius};
  return (sn_aabb){sn_sub(lower, r), sn_add(upper, r)};
}

sn_aabb sn_geometry_compute_aabb(const sn_geometry *g, sn_transform xf) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return points_aabb(&g->circle.center, 1, g->circle.radius, xf);
  case SN_SHAPE_CAPSULE: {
    sn_vec2 pts[2] = {g->capsule.center1, g->capsule.center2};
    return points_aabb(pts, 2, g->capsule.radius, xf);
  }
  case SN_SHAPE_SEGMENT: {
    sn_vec2 pts[2] = {g->segment.point1, g->segment.point2};
    return points_aabb(pts, 2, 0.0f, xf);
  }
  case SN_SHAPE_POLYGON:
    return points_aabb(g->polygon.vertices, sn_maxi(1, g->polygon.count), g->polygon.radius, xf);
  case SN_SHAPE_CHAIN_SEGMENT: {
    sn_vec2 pts[2] = {g->chain_segment.segment.point1, g->chain_segment.segment.point2};
    return points_aabb(pts, 2, 0.0f, xf);
  }
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return (sn_aabb){xf.p, xf.p};
}

sn_vec2 sn_geometry_centroid(const sn_geometry *g) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return g->circle.center;
  case SN_SHAPE_CAPSULE:
    return sn_lerp(g->capsule.center1, g->capsule.center2, 0.5f);
  case SN_SHAPE_SEGMENT:
    return sn_lerp(g->segment.point1, g->segment.point2, 0.5f);
  case SN_SHAPE_POLYGON:
    return g->polygon.centroid;
  case SN_SHAPE_CHAIN_SEGMENT:
    return sn_lerp(g->chain_segment.segment.point1, g->chain_segment.segment.point2, 0.5f);
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return (sn_vec2){0.0f, 0.0f};
}

float sn_geometry_extent(const sn_geometry *g) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return g->circle.radius;
  case SN_SHAPE_CAPSULE:
    return 0.5f * sn_distance(g->capsule.center1, g->capsule.center2) + g->capsule.radius;
  case SN_SHAPE_SEGMENT:
    return 0.5f * sn_distance(g->segment.point1, g->segment.point2);
  case SN_SHAPE_POLYGON: {
    const sn_polygon *p = &g->polygon;
    float max_sq = 0.0f;
    for (int32_t i = 0; i < p->count; ++i) max_sq = sn_maxf(max_sq, sn_distance_sq(p->centroid, p->vertices[i]));
    return sqrtf(max_sq) + p->radius;
  }
  case SN_SHAPE_CHAIN_SEGMENT:
    return 0.5f * sn_distance(g->chain_segment.segment.point1, g->chain_segment.segment.point2);
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return 0.0f;
}

/* ------------------------------------------------------------------------ */
/* Point tests                                                               */

/// Squared distance from p to the segment a-b.
static float segment_distance_sq(sn_vec2 a, sn_vec2 b, sn_vec2 p) {
  sn_vec2 e = sn_sub(b, a);
  float ee = sn_dot(e, e);
  float t = ee > 0.0f ? sn_clampf(sn_dot(sn_sub(p, a), e) / ee, 0.0f, 1.0f) : 0.0f;
  return sn_distance_sq(sn_mul_add(a, t, e), p);
}

/// Squared distance from p to the core (radius 0) of a polygon; zero inside.
/// Handles 1- and 2-vertex polygons (a point, a segment).
static float polygon_core_distance_sq(const sn_polygon *poly, sn_vec2 p) {
  const int32_t n = poly->count;
  if (n == 1) return sn_distance_sq(poly->vertices[0], p);
  if (n == 2) return segment_distance_sq(poly->vertices[0], poly->vertices[1], p);
  bool inside = true;
  for (int32_t i = 0; i < n; ++i) {
    if (sn_dot(poly->normals[i], sn_sub(p, poly->vertices[i])) > 0.0f) {
      inside = false;
      break;
    }
  }
  if (inside) return 0.0f;
  float best = segment_distance_sq(poly->vertices[n - 1], poly->vertices[0], p);
  for (int32_t i = 0; i + 1 < n; ++i)
    best = sn_minf(best, segment_distance_sq(poly->vertices[i], poly->vertices[i + 1], p));
  return best;
}

bool sn_geometry_test_point(const sn_geometry *g, sn_vec2 p) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE: {
    float r = g->circle.radius;
    return sn_distance_sq(g->circle.center, p) <= r * r;
  }
  case SN_SHAPE_CAPSULE: {
    float r = g->capsule.radius;
    return segment_distance_sq(g->capsule.center1, g->capsule.center2, p) <= r * r;
  }
  case SN_SHAPE_POLYGON: {
    const sn_polygon *poly = &g->polygon;
    if (poly->count < 1) return false;
    float r = poly->radius;
    return polygon_core_distance_sq(poly, p) <= r * r;
  }
  case SN_SHAPE_SEGMENT:
  case SN_SHAPE_CHAIN_SEGMENT:
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return false;
}

/* ------------------------------------------------------------------------ */
/* Ray casts                                                                 */

static sn_cast_output no_hit(void) {
  sn_cast_output out;
  memset(&out, 0, sizeof out);
  return out;
}

static sn_cast_output make_hit(const sn_ray_input *input, float fraction, sn_vec2 normal) {
  sn_cast_output out = no_hit();
  out.hit = true;
  out.fraction = fraction;
  out.normal = normal;
  out.point = sn_mul_add(input->origin, fraction, input->translation);
  return out;
}

/// True if the ray can hit anything at all.
static bool ray_is_usable(const sn_ray_input *input) {
  return input->max_fraction > 0.0f && sn_length_sq(input->translation) > 0.0f;
}

/// Ray against a solid disc. The caller has checked ray_is_usable. A ray
/// starting strictly inside misses.
static sn_cast_output cast_disc(const sn_ray_input *input, sn_vec2 center, float radius) {
  float length = 0.0f;
  sn_vec2 u = sn_get_length_and_normalize(&length, input->translation);
  if (length == 0.0f) return no_hit();
  sn_vec2 s = sn_sub(input->origin, center);
  float rr = radius * radius;
  if (sn_length_sq(s) < rr) return no_hit();

  // distance along the ray to the point closest to the centre
  float t_closest = -sn_dot(s, u);
  if (t_closest < 0.0f) return no_hit(); // moving away (or tangent at the start)
  sn_vec2 closest = sn_mul_add(s, t_closest, u);
  float hh = sn_length_sq(closest);
  if (hh > rr) return no_hit();
  float t = sn_maxf(t_closest - sqrtf(rr - hh), 0.0f);
  float fraction = t / length;
  if (fraction > input->max_fraction) return no_hit();
  sn_vec2 offset = sn_mul_add(s, t, u);
  sn_vec2 normal = sn_normalize(offset);
  if (normal.x == 0.0f && normal.y == 0.0f) normal = sn_neg(u); // zero radius: face the ray
  return make_hit(input, fraction, normal);
}

/// Ray against the outer face of a segment a-b whose outward unit normal is
/// normal: hits only a ray travelling against the normal.
static sn_cast_output cast_face(const sn_ray_input *input, sn_vec2 a, sn_vec2 b, sn_vec2 normal) {
  float denominator = sn_dot(normal, input->translation);
  if (!(denominator < 0.0f)) return no_hit();
  float numerator = sn_dot(normal, sn_sub(a, input->origin));
  // numerator > 0: the origin is behind the face
  if (numerator > 0.0f) return no_hit();
  float fraction = numerator / denominator;
  if (fraction > input->max_fraction) return no_hit();
  sn_vec2 point = sn_mul_add(input->origin, fraction, input->translation);
  sn_vec2 e = sn_sub(b, a);
  float ee = sn_dot(e, e);
  if (!(ee > 0.0f)) return no_hit();
  float s = sn_dot(sn_sub(point, a), e);
  if (s < 0.0f || s > ee) return no_hit();
  return make_hit(input, fraction, normal);
}

/// Keeps the earlier of two results.
static sn_cast_output earlier(sn_cast_output best, sn_cast_output candidate) {
  if (candidate.hit && (!best.hit || candidate.fraction < best.fraction)) return candidate;
  return best;
}

sn_cast_output sn_ray_cast_circle(const sn_ray_input *input, const sn_circle *shape) {
  if (!ray_is_usable(input)) return no_hit();
  return cast_disc(input, shape->center, shape->radius);
}

/// Capsule (or a 2-vertex rounded polygon) as the union of two discs and the
/// two long faces. The first entry into the union is the earliest entry into
/// any part, because the ray starts outside all of them.
static sn_cast_output cast_capsule(const sn_ray_input *input, sn_vec2 c1, sn_vec2 c2, float radius) {
  if (!ray_is_usable(input)) return no_hit();
  if (segment_distance_sq(c1, c2, input->origin) < radius * radius) return no_hit();

  sn_cast_output best = cast_disc(input, c1, radius);
  best = earlier(best, cast_disc(input, c2, radius));
  sn_vec2 n = sn_normalize(sn_right_perp(sn_sub(c2, c1)));
  if (n.x != 0.0f || n.y != 0.0f) {
    best = earlier(best, cast_face(input, sn_mul_add(c1, radius, n), sn_mul_add(c2, radius, n), n));
    sn_vec2 m = sn_neg(n);
    best = earlier(best, cast_face(input, sn_mul_add(c1, radius, m), sn_mul_add(c2, radius, m), m));
  }
  return best;
}

sn_cast_output sn_ray_cast_capsule(const sn_ray_input *input, const sn_capsule *shape) {
  return cast_capsule(input, shape->center1, shape->center2, shape->radius);
}

sn_cast_output sn_ray_cast_segment(const sn_ray_input *input, const sn_segment *shape, bool one_sided) {
  if (!ray_is_usable(input)) return no_hit();
  sn_vec2 p1 = shape->point1, p2 = shape->point2;
  sn_vec2 n = sn_normalize(sn_right_perp(sn_sub(p2, p1)));
  if (n.x == 0.0f && n.y == 0.0f) return no_hit();
  if (one_sided) return cast_face(input, p1, p2, n);
  // two-sided: use the face that looks at the ray
  if (sn_dot(n, input->translation) > 0.0f) {
    // swap the ends so that the face normal flips and stays outward-facing
    return cast_face(input, p2, p1, sn_neg(n));
  }
  return cast_face(input, p1, p2, n);
}

/// Sharp polygon: clip the ray by the half-planes of the edges (Cyrus-Beck).
/// The hit is the last entering plane; with no entering plane the origin is
/// strictly inside and the ray misses.
static sn_cast_output cast_sharp_polygon(const sn_ray_input *input, const sn_polygon *poly) {
  float lower = 0.0f, upper = input->max_fraction;
  int32_t index = -1;
  for (int32_t i = 0; i < poly->count; ++i) {
    // the ray is inside half-plane i while numerator - t * denominator >= 0
    float numerator = sn_dot(poly->normals[i], sn_sub(poly->vertices[i], input->origin));
    float denominator = sn_dot(poly->normals[i], input->translation);
    if (denominator == 0.0f) {
      if (numerator < 0.0f) return no_hit(); // parallel and outside
    } else if (denominator < 0.0f) {
      // entering: t >= numerator / denominator (an origin on the surface
      // moving inwards enters at 0)
      if (numerator < lower * denominator || (index < 0 && numerator <= lower * denominator)) {
        lower = numerator / denominator;
        index = i;
      }
    } else if (numerator < upper * denominator) {
      // leaving: t <= numerator / denominator
      upper = numerator / denominator;
    }
    if (upper < lower) return no_hit();
  }
  if (index < 0) return no_hit();
  return make_hit(input, lower, poly->normals[index]);
}

sn_cast_output sn_ray_cast_polygon(const sn_ray_input *input, const sn_polygon *shape) {
  if (!ray_is_usable(input) || shape->count < 1) return no_hit();
  const int32_t n = shape->count;
  const float r = shape->radius;
  if (n == 1) return cast_disc(input, shape->vertices[0], r);
  if (n == 2) return cast_capsule(input, shape->vertices[0], shape->vertices[1], r);
  if (r == 0.0f) return cast_sharp_polygon(input, shape);

  // Rounded: the solid is the union of the vertex discs and the polygon whose
  // edges are pushed out by r, so the earliest entry among the offset faces
  // and the discs is exact once the origin is known to be outside.
  if (polygon_core_distance_sq(shape, input->origin) < r * r) return no_hit();
  sn_cast_output best = no_hit();
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 normal = shape->normals[i];
    sn_vec2 a = sn_mul_add(shape->vertices[i], r, normal);
    sn_vec2 b = sn_mul_add(shape->vertices[i + 1 == n ? 0 : i + 1], r, normal);
    best = earlier(best, cast_face(input, a, b, normal));
    best = earlier(best, cast_disc(input, shape->vertices[i], r));
  }
  return best;
}

sn_cast_output sn_geometry_ray_cast(const sn_geometry *g, const sn_ray_input *local_input) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return sn_ray_cast_circle(local_input, &g->circle);
  case SN_SHAPE_CAPSULE:
    return sn_ray_cast_capsule(local_input, &g->capsule);
  case SN_SHAPE_SEGMENT:
    return sn_ray_cast_segment(local_input, &g->segment, false);
  case SN_SHAPE_POLYGON:
    return sn_ray_cast_polygon(local_input, &g->polygon);
  case SN_SHAPE_CHAIN_SEGMENT:
    return sn_ray_cast_segment(local_input, &g->chain_segment.segment, true);
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return no_hit();
}

float sn_geometry_inscribed_disc(const sn_geometry *g, sn_vec2 *center) {
  *center = (sn_vec2){0.0f, 0.0f};
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    *center = g->circle.center;
    return g->circle.radius;
  case SN_SHAPE_CAPSULE:
    *center = sn_lerp(g->capsule.center1, g->capsule.center2, 0.5f);
    return g->capsule.radius;
  case SN_SHAPE_POLYGON: {
    const sn_polygon *p = &g->polygon;
    float inner = FLT_MAX;
    for (int32_t i = 0; i < p->count; ++i)
      inner = sn_minf(inner, sn_dot(p->normals[i], sn_sub(p->vertices[i], p->centroid)));
    *center = p->centroid;
    return inner + p->radius;
  }
  case SN_SHAPE_SEGMENT:
  case SN_SHAPE_CHAIN_SEGMENT:
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return -1.0f;
}

float sn_geometry_inner_radius(const sn_geometry *g) {
  sn_vec2 center;
  return sn_maxf(sn_geometry_inscribed_disc(g, &center), 0.0f);
}
