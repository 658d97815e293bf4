/* The public low-level collision functions (sinew/collision.h): proxies,
 * single-shape ray casts, GJK distance, shape casts and manifolds, each
 * checking its input before it calls the engine's own routines; and the
 * translational shape cast the world queries share (sn_shape_cast). */
#include <float.h>
#include <string.h>

#include "sinew/collision.h"

#include "base/constants.h"
#include "base/math.h"
#include "collision/distance.h"
#include "collision/manifold.h"
#include "geometry/geometry.h"

/// Conservative advancement steps before the cast settles for the last
/// safe fraction.
#define SN_CAST_MAX_ITERATIONS 50

/* ----------------------------------------------------------------- checks */

static sn_result sn_vec2_check(sn_vec2 v) {
  if (!sn_vec2_is_finite(v)) return SN_ERR_NOT_FINITE;
  if (sn_absf(v.x) > SN_MAX_COORDINATE || sn_absf(v.y) > SN_MAX_COORDINATE) return SN_ERR_INVALID_ARGUMENT;
  return SN_OK;
}

static sn_result sn_transform_check(sn_transform xf) {
  if (!sn_vec2_is_finite(xf.p) || !sn_is_finite(xf.q.c) || !sn_is_finite(xf.q.s)) return SN_ERR_NOT_FINITE;
  sn_result r = sn_vec2_check(xf.p);
  if (r != SN_OK) return r;
  float len_sq = xf.q.c * xf.q.c + xf.q.s * xf.q.s;
  if (sn_absf(len_sq - 1.0f) > 1.0e-3f) return SN_ERR_INVALID_ARGUMENT; // not a rotation
  return SN_OK;
}

static sn_result sn_radius_check(float radius) {
  if (!sn_is_finite(radius)) return SN_ERR_NOT_FINITE;
  if (radius < 0.0f || radius > SN_MAX_COORDINATE) return SN_ERR_INVALID_ARGUMENT;
  return SN_OK;
}

static sn_result sn_points_check(const sn_vec2 *points, int32_t count, float radius) {
  if (points == NULL) return SN_ERR_NULL;
  if (count < 1 || count > SN_MAX_POLYGON_VERTICES) return SN_ERR_INVALID_ARGUMENT;
  sn_result worst = SN_OK;
  for (int32_t i = 0; i < count; ++i) {
    sn_result r = sn_vec2_check(points[i]);
    if (r == SN_ERR_NOT_FINITE) return r;
    if (r != SN_OK) worst = r;
  }
  sn_result r = sn_radius_check(radius);
  if (r == SN_ERR_NOT_FINITE) return r;
  return worst != SN_OK ? worst : r;
}

sn_result sn_make_proxy(const sn_vec2 *points, int32_t count, float radius, sn_shape_proxy *out) {
  if (out == NULL) return SN_ERR_NULL;
  sn_result r = sn_points_check(points, count, radius);
  if (r != SN_OK) return r;
  *out = sn_make_proxy_points(points, count, radius);
  return SN_OK;
}

sn_result sn_make_offset_proxy(const sn_vec2 *points, int32_t count, float radius, sn_transform xf,
                               sn_shape_proxy *out) {
  if (out == NULL) return SN_ERR_NULL;
  sn_result r = sn_points_check(points, count, radius);
  if (r == SN_OK) r = sn_transform_check(xf);
  if (r != SN_OK) return r;
  sn_vec2 placed[SN_MAX_POLYGON_VERTICES];
  for (int32_t i = 0; i < count; ++i) {
    placed[i] = sn_transform_point(xf, points[i]);
    r = sn_vec2_check(placed[i]);
    if (r != SN_OK) return r;
  }
  *out = sn_make_proxy_points(placed, count, radius);
  return SN_OK;
}

sn_result sn_proxy_check(const sn_shape_proxy *proxy) {
  if (proxy == NULL) return SN_ERR_NULL;
  sn_result r = sn_points_check(proxy->points, proxy->count, proxy->radius);
  if (r != SN_OK) return r;
  if (proxy->radius > 0.0f) return SN_OK;
  for (int32_t i = 1; i < proxy->count; ++i) {
    if (proxy->points[i].x != proxy->points[0].x || proxy->points[i].y != proxy->points[0].y) return SN_OK;
  }
  return SN_ERR_INVALID_ARGUMENT; // a single point without radius has no extent
}

/* -------------------------------------------------------------- ray casts */

static sn_result sn_ray_check(const sn_ray_input *input, sn_transform xf, sn_cast_output *out) {
  if (input == NULL || out == NULL) return SN_ERR_NULL;
  if (!sn_vec2_is_finite(input->origin) || !sn_vec2_is_finite(input->translation) || !sn_is_finite(input->max_fraction))
    return SN_ERR_NOT_FINITE;
  sn_result r = sn_vec2_check(input->origin);
  if (r != SN_OK) return r;
  if (sn_absf(input->translation.x) > 2.0f * SN_MAX_COORDINATE ||
      sn_absf(input->translation.y) > 2.0f * SN_MAX_COORDINATE)
    return SN_ERR_INVALID_ARGUMENT;
  if (input->max_fraction < 0.0f || input->max_fraction > 1.0f) return SN_ERR_INVALID_ARGUMENT;
  return sn_transform_check(xf);
}

/// The geometry's ray cast with the ray brought into its frame and the
/// result taken back to the world.
static sn_result sn_cast_ray_geometry(const sn_ray_input *input, const sn_geometry *g, sn_transform xf,
                                      sn_cast_output *out) {
  sn_ray_input local = {sn_inv_transform_point(xf, input->origin), sn_inv_rotate(xf.q, input->translation),
                        input->max_fraction};
  sn_cast_output o = sn_geometry_ray_cast(g, &local);
  if (o.hit) {
    o.point = sn_transform_point(xf, o.point);
    o.normal = sn_rotate(xf.q, o.normal);
  } else {
    memset(&o, 0, sizeof o);
  }
  *out = o;
  return SN_OK;
}

sn_result sn_cast_ray_circle(const sn_ray_input *input, const sn_circle *circle, sn_transform xf, sn_cast_output *out) {
  sn_result r = sn_ray_check(input, xf, out);
  if (r != SN_OK) return r;
  if (circle == NULL) return SN_ERR_NULL;
  r = sn_points_check(&circle->center, 1, circle->radius);
  if (r != SN_OK) return r;
  sn_geometry g = {.type = SN_SHAPE_CIRCLE, .circle = *circle};
  return sn_cast_ray_geometry(input, &g, xf, out);
}

sn_result sn_cast_ray_capsule(const sn_ray_input *input, const sn_capsule *capsule, sn_transform xf,
                              sn_cast_output *out) {
  sn_result r = sn_ray_check(input, xf, out);
  if (r != SN_OK) return r;
  if (capsule == NULL) return SN_ERR_NULL;
  sn_vec2 c[2] = {capsule->center1, capsule->center2};
  r = sn_points_check(c, 2, capsule->radius);
  if (r != SN_OK) return r;
  sn_geometry g = {.type = SN_SHAPE_CAPSULE, .capsule = *capsule};
  return sn_cast_ray_geometry(input, &g, xf, out);
}

sn_result sn_cast_ray_segment(const sn_ray_input *input, const sn_segment *segment, sn_transform xf,
                              sn_cast_output *out) {
  sn_result r = sn_ray_check(input, xf, out);
  if (r != SN_OK) return r;
  if (segment == NULL) return SN_ERR_NULL;
  sn_vec2 p[2] = {segment->point1, segment->point2};
  r = sn_points_check(p, 2, 0.0f);
  if (r != SN_OK) return r;
  sn_geometry g = {.type = SN_SHAPE_SEGMENT, .segment = *segment};
  return sn_cast_ray_geometry(input, &g, xf, out);
}

sn_result sn_cast_ray_polygon(const sn_ray_input *input, const sn_polygon *polygon, sn_transform xf,
                              sn_cast_output *out) {
  sn_result r = sn_ray_check(input, xf, out);
  if (r != SN_OK) return r;
  if (polygon == NULL) return SN_ERR_NULL;
  r = sn_polygon_validate(polygon);
  if (r != SN_OK) return r;
  sn_geometry g = {.type = SN_SHAPE_POLYGON, .polygon = *polygon};
  return sn_cast_ray_geometry(input, &g, xf, out);
}

/* --------------------------------------------------- distance, shape cast */

static sn_result sn_proxy_pair_check(const sn_shape_proxy *a, sn_transform xf_a, const sn_shape_proxy *b,
                                     sn_transform xf_b) {
  sn_result r = sn_points_check(a->points, a->count, a->radius);
  if (r == SN_OK) r = sn_points_check(b->points, b->count, b->radius);
  if (r == SN_OK) r = sn_transform_check(xf_a);
  if (r == SN_OK) r = sn_transform_check(xf_b);
  return r;
}

sn_result sn_compute_distance(const sn_distance_input *input, sn_distance_output *out) {
  if (input == NULL || out == NULL) return SN_ERR_NULL;
  sn_result r = sn_proxy_pair_check(&input->proxy_a, input->transform_a, &input->proxy_b, input->transform_b);
  if (r != SN_OK) return r;
  *out = sn_shape_distance(input, NULL);
  return SN_OK;
}

/// Acceptance band of the cast: 2e-5 m, wider far from the origin where
/// floats are coarser.
static float sn_shape_cast_tolerance(const sn_shape_cast_input *in) {
  float scale = sn_maxf(sn_maxf(sn_absf(in->transform_a.p.x), sn_absf(in->transform_a.p.y)),
                        sn_maxf(sn_absf(in->transform_b.p.x), sn_absf(in->transform_b.p.y)));
  scale = sn_maxf(scale, sn_maxf(sn_absf(in->proxy_b.points[0].x), sn_absf(in->proxy_b.points[0].y)));
  return 2.0e-5f + 4.0f * FLT_EPSILON * scale;
}

sn_cast_output sn_shape_cast(const sn_shape_cast_input *input, bool encroach) {
  sn_cast_output out;
  memset(&out, 0, sizeof out);
  const float max_fraction = sn_clampf(input->max_fraction, 0.0f, 1.0f);
  out.fraction = max_fraction;
  if (input->proxy_a.count < 1 || input->proxy_b.count < 1) return out;

  sn_distance_input di;
  di.proxy_a = input->proxy_a;
  di.proxy_b = input->proxy_b;
  di.transform_a = input->transform_a;
  di.transform_b = input->transform_b;
  di.use_radii = false;
  sn_simplex_cache cache;
  memset(&cache, 0, sizeof cache);

  const float radius_a = input->proxy_a.radius;
  const float total_radius = radius_a + input->proxy_b.radius;
  const float tolerance = sn_shape_cast_tolerance(input);
  const sn_vec2 translation = input->translation_b;

  sn_distance_output o = sn_shape_distance(&di, &cache);
  float target = total_radius;
  if (encroach) {
    if (o.distance < total_radius + SN_LINEAR_SLOP) {
      // resting on it: only going deeper than it is now (by a slop) counts
      target = o.distance - SN_LINEAR_SLOP;
      if (target < tolerance) return out; // the hulls are (nearly) inside: left to the planes
    }
  } else if (o.distance <= target + tolerance) {
    // overlapping (or touching) at the start
    out.hit = true;
    out.fraction = 0.0f;
    out.normal = o.normal;
    out.point =
        o.simplex_count == 3 || o.distance < FLT_EPSILON ? o.point_a : sn_mul_add(o.point_a, radius_a, o.normal);
    return out;
  }

  float t = 0.0f;
  for (int32_t iter = 0; iter < SN_CAST_MAX_ITERATIONS; ++iter) {
    out.iterations = iter + 1;
    // The hull distance of two convex sets, one translating, is convex in
    // t with slope dot(normal, translation) at t: a step to where that
    // tangent meets the target never passes the true time of impact.
    float approach = -sn_dot(o.normal, translation);
    if (approach <= FLT_EPSILON * sn_length(translation)) return out; // separating or parallel
    float t_next = t + (o.distance - target) / approach;
    if (t_next > max_fraction) return out;
    sn_vec2 normal = o.normal;
    di.transform_b.p = sn_mul_add(input->transform_b.p, t_next, translation);
    o = sn_shape_distance(&di, &cache);
    t = t_next;
    if (o.distance <= target + tolerance) {
      if (o.simplex_count == 3 || o.distance < FLT_EPSILON) o.normal = normal; // rounding went inside
      out.hit = true;
      out.fraction = t;
      out.normal = o.normal;
      out.point = sn_mul_add(o.point_a, radius_a, o.normal);
      return out;
    }
  }
  // not converged: report the last safe fraction as the hit
  out.hit = true;
  out.fraction = t;
  out.normal = o.normal;
  out.point = sn_mul_add(o.point_a, radius_a, o.normal);
  return out;
}

sn_result sn_compute_shape_cast(const sn_shape_cast_input *input, sn_cast_output *out) {
  if (input == NULL || out == NULL) return SN_ERR_NULL;
  sn_result r = sn_proxy_pair_check(&input->proxy_a, input->transform_a, &input->proxy_b, input->transform_b);
  if (r != SN_OK) return r;
  if (!sn_vec2_is_finite(input->translation_b) || !sn_is_finite(input->max_fraction)) return SN_ERR_NOT_FINITE;
  if (sn_absf(input->translation_b.x) > 2.0f * SN_MAX_COORDINATE ||
      sn_absf(input->translation_b.y) > 2.0f * SN_MAX_COORDINATE || input->max_fraction < 0.0f ||
      input->max_fraction > 1.0f)
    return SN_ERR_INVALID_ARGUMENT;
  *out = sn_shape_cast(input, false);
  return SN_OK;
}

/* -------------------------------------------------------------- manifolds */

static sn_result sn_shape_geometry_convert(const sn_shape_geometry *in, sn_geometry *g) {
  memset(g, 0, sizeof *g);
  g->type = in->type;
  sn_result r = SN_ERR_INVALID_ARGUMENT; /* any value no case accepts */
  switch (in->type) {
  case SN_SHAPE_CIRCLE:
    g->circle = in->circle;
    r = sn_points_check(&in->circle.center, 1, in->circle.radius);
    break;
  case SN_SHAPE_CAPSULE: {
    g->capsule = in->capsule;
    sn_vec2 c[2] = {in->capsule.center1, in->capsule.center2};
    r = sn_points_check(c, 2, in->capsule.radius);
    if (r == SN_OK && sn_distance_sq(c[0], c[1]) <= SN_LINEAR_SLOP * SN_LINEAR_SLOP) r = SN_ERR_INVALID_ARGUMENT;
    break;
  }
  case SN_SHAPE_SEGMENT: {
    g->segment = in->segment;
    sn_vec2 p[2] = {in->segment.point1, in->segment.point2};
    r = sn_points_check(p, 2, 0.0f);
    if (r == SN_OK && sn_distance_sq(p[0], p[1]) <= SN_LINEAR_SLOP * SN_LINEAR_SLOP) r = SN_ERR_INVALID_ARGUMENT;
    break;
  }
  case SN_SHAPE_POLYGON:
    g->polygon = in->polygon;
    r = sn_polygon_validate(&in->polygon);
    break;
  case SN_SHAPE_CHAIN_SEGMENT: /* not a cast proxy */
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return r;
}

sn_result sn_compute_manifold(const sn_shape_geometry *a, sn_transform xf_a, const sn_shape_geometry *b,
                              sn_transform xf_b, sn_contact_manifold *out) {
  if (a == NULL || b == NULL || out == NULL) return SN_ERR_NULL;
  sn_geometry ga, gb;
  sn_result r = sn_shape_geometry_convert(a, &ga);
  if (r == SN_OK) r = sn_shape_geometry_convert(b, &gb);
  if (r == SN_OK) r = sn_transform_check(xf_a);
  if (r == SN_OK) r = sn_transform_check(xf_b);
  if (r != SN_OK) return r;
  bool swap = !sn_collide_supported(ga.type, gb.type);
  if (swap && !sn_collide_supported(gb.type, ga.type)) return SN_ERR_INVALID_ARGUMENT; // two segments
  sn_manifold m = swap ? sn_collide(&gb, xf_b, &ga, xf_a, NULL) : sn_collide(&ga, xf_a, &gb, xf_b, NULL);
  sn_contact_manifold result;
  memset(&result, 0, sizeof result);
  result.point_count = m.point_count;
  result.normal = m.point_count > 0 ? (swap ? sn_neg(m.normal) : m.normal) : sn_v2(0.0f, 0.0f);
  for (int32_t i = 0; i < m.point_count; ++i) {
    result.points[i].point = m.points[i].point;
    result.points[i].separation = m.points[i].separation;
    result.points[i].id = m.points[i].id;
  }
  *out = result;
  return SN_OK;
}
