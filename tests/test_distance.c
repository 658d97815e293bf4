/* Narrowphase distance: shape proxies, GJK closest points (with and without
 * radii, warm-started by the simplex cache), segment closest points, sweeps
 * and time of impact, all against hand-computed values.
 * Tolerances: 1e-5 m for GJK/segment results of unit-sized shapes, the TOI
 * target band (0.25 * SN_LINEAR_SLOP) for times of impact. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#include "collision/continuous.h"
#include "collision/distance.h"
#include "base/constants.h"
#include "base/math.h"

#define TOL       1.0e-5f
#define PI_F      3.14159265f
#define SQRT2     1.41421356f
#define TOI_TOL   (0.25f * SN_LINEAR_SLOP)
#define TOI_SLACK 1.0e-5f

#define ck_assert_near(a, b, tol)                                                                                      \
  ck_assert_msg(fabsf((float)(a) - (float)(b)) <= (tol), "%s = %.9g, expected %.9g (tol %g)", #a, (double)(a),         \
                (double)(b), (double)(tol))

static sn_transform xf_make(float x, float y, float angle) {
  return (sn_transform){{x, y}, {cosf(angle), sinf(angle)}};
}

static sn_shape_proxy box_proxy(float hx, float hy) {
  sn_polygon p;
  ck_assert_int_eq(sn_make_box(hx, hy, &p), SN_OK);
  sn_geometry g;
  g.type = SN_SHAPE_POLYGON;
  g.polygon = p;
  return sn_geometry_proxy(&g);
}

static sn_distance_output distance(sn_shape_proxy a, sn_transform xa, sn_shape_proxy b, sn_transform xb, bool use_radii,
                                   sn_simplex_cache *cache) {
  sn_distance_input in;
  in.proxy_a = a;
  in.proxy_b = b;
  in.transform_a = xa;
  in.transform_b = xb;
  in.use_radii = use_radii;
  return sn_shape_distance(&in, cache);
}

/* ------------------------------------------------------------------ proxies */

START_TEST(test_proxies) {
  sn_geometry g;
  g.type = SN_SHAPE_CIRCLE;
  g.circle = (sn_circle){{1.0f, 2.0f}, 0.5f};
  sn_shape_proxy p = sn_geometry_proxy(&g);
  ck_assert_int_eq(p.count, 1);
  ck_assert_near(p.radius, 0.5f, 0.0f);
  ck_assert_near(p.points[0].y, 2.0f, 0.0f);

  g.type = SN_SHAPE_CAPSULE;
  g.capsule = (sn_capsule){{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.25f};
  p = sn_geometry_proxy(&g);
  ck_assert_int_eq(p.count, 2);
  ck_assert_near(p.radius, 0.25f, 0.0f);
  ck_assert_near(p.points[1].x, 1.0f, 0.0f);

  g.type = SN_SHAPE_SEGMENT;
  g.segment = (sn_segment){{0.0f, 0.0f}, {3.0f, 4.0f}};
  p = sn_geometry_proxy(&g);
  ck_assert_int_eq(p.count, 2);
  ck_assert_near(p.radius, 0.0f, 0.0f);

  g.type = SN_SHAPE_CHAIN_SEGMENT;
  g.chain_segment.ghost1 = sn_v2(-1.0f, 0.0f);
  g.chain_segment.segment = (sn_segment){{0.0f, 0.0f}, {1.0f, 0.0f}};
  g.chain_segment.ghost2 = sn_v2(2.0f, 0.0f);
  p = sn_geometry_proxy(&g);
  ck_assert_int_eq(p.count, 2);
  ck_assert_near(p.points[1].x, 1.0f, 0.0f);

  p = box_proxy(0.5f, 0.25f);
  ck_assert_int_eq(p.count, 4);
  ck_assert_near(p.radius, 0.0f, 0.0f);

  sn_vec2 many[12];
  for (int i = 0; i < 12; ++i) many[i] = sn_v2((float)i, 0.0f);
  p = sn_make_proxy_points(many, 12, 0.1f);
  ck_assert_int_eq(p.count, SN_MAX_POLYGON_VERTICES);
}
END_TEST

/* -------------------------------------------------------------------- GJK */

START_TEST(test_gjk_boxes_face) {
  // unit boxes 3 apart (centres), B raised by 0.2: gap 2, normal +x
  sn_distance_output o =
      distance(box_proxy(0.5f, 0.5f), xf_make(0, 0, 0), box_proxy(0.5f, 0.5f), xf_make(3.0f, 0.2f, 0), false, NULL);
  ck_assert_near(o.distance, 2.0f, TOL);
  ck_assert_near(o.normal.x, 1.0f, TOL);
  ck_assert_near(o.normal.y, 0.0f, TOL);
  ck_assert_near(o.point_a.x, 0.5f, TOL);
  ck_assert_near(o.point_b.x, 2.5f, TOL);
  // the witness points face each other
  ck_assert_near(o.point_a.y, o.point_b.y, TOL);
  ck_assert(o.point_a.y >= -0.3f - TOL && o.point_a.y <= 0.5f + TOL);
}
END_TEST

START_TEST(test_gjk_boxes_corner) {
  // corners (0.5, 0.5) and (1.5, 1.5): distance sqrt(2), normal (1, 1)/sqrt(2)
  sn_distance_output o =
      distance(box_proxy(0.5f, 0.5f), xf_make(0, 0, 0), box_proxy(0.5f, 0.5f), xf_make(2.0f, 2.0f, 0), false, NULL);
  ck_assert_near(o.distance, SQRT2, TOL);
  ck_assert_near(o.normal.x, 1.0f / SQRT2, TOL);
  ck_assert_near(o.normal.y, 1.0f / SQRT2, TOL);
  ck_assert_near(o.point_a.x, 0.5f, TOL);
  ck_assert_near(o.point_a.y, 0.5f, TOL);
  ck_assert_near(o.point_b.x, 1.5f, TOL);
  ck_assert_near(o.point_b.y, 1.5f, TOL);
  ck_assert_int_eq(o.simplex_count, 1);
}
END_TEST

START_TEST(test_gjk_rotated_box) {
  // B (half 0.5) turned 45 degrees: its left corner sits at x = 3 - sqrt(2)/2;
  // A (half 1) face at x = 1: distance 2 - sqrt(2)/2
  sn_distance_output o = distance(box_proxy(1.0f, 1.0f), xf_make(0, 0, 0), box_proxy(0.5f, 0.5f),
                                  xf_make(3.0f, 0.0f, 0.25f * PI_F), false, NULL);
  ck_assert_near(o.distance, 2.0f - 0.5f * SQRT2, TOL);
  ck_assert_near(o.normal.x, 1.0f, TOL);
  ck_assert_near(o.point_b.x, 3.0f - 0.5f * SQRT2, TOL);
  ck_assert_near(o.point_b.y, 0.0f, TOL);
  // both transforms moved and turned: the same numbers
  sn_transform base = xf_make(-4.0f, 7.0f, 0.7f);
  sn_transform xa = base;
  sn_transform xb = sn_mul_transforms(base, xf_make(3.0f, 0.0f, 0.25f * PI_F));
  sn_distance_output o2 = distance(box_proxy(1.0f, 1.0f), xa, box_proxy(0.5f, 0.5f), xb, false, NULL);
  ck_assert_near(o2.distance, 2.0f - 0.5f * SQRT2, 4.0f * TOL);
  sn_vec2 n_local = sn_inv_rotate(base.q, o2.normal);
  ck_assert_near(n_local.x, 1.0f, TOL);
  sn_vec2 pb_local = sn_inv_transform_point(base, o2.point_b);
  ck_assert_near(pb_local.x, 3.0f - 0.5f * SQRT2, 4.0f * TOL);
}
END_TEST

START_TEST(test_gjk_circles_radii) {
  sn_vec2 c = {0.0f, 0.0f};
  sn_shape_proxy a = sn_make_proxy_points(&c, 1, 1.0f);
  sn_shape_proxy b = sn_make_proxy_points(&c, 1, 0.5f);
  // centres 4 apart along (0.6, 0.8)
  sn_distance_output o = distance(a, xf_make(1.0f, 1.0f, 0), b, xf_make(1.0f + 2.4f, 1.0f + 3.2f, 0), true, NULL);
  ck_assert_near(o.distance, 2.5f, TOL);
  ck_assert_near(o.normal.x, 0.6f, TOL);
  ck_assert_near(o.normal.y, 0.8f, TOL);
  ck_assert_near(o.point_a.x, 1.6f, TOL);
  ck_assert_near(o.point_a.y, 1.8f, TOL);
  ck_assert_near(o.point_b.x, 3.4f - 0.3f, TOL);
  ck_assert_near(o.point_b.y, 4.2f - 0.4f, TOL);
  // without radii: the centre distance
  o = distance(a, xf_make(1.0f, 1.0f, 0), b, xf_make(3.4f, 4.2f, 0), false, NULL);
  ck_assert_near(o.distance, 4.0f, TOL);
  // overlapping discs: distance 0, one point midway
  o = distance(a, xf_make(0, 0, 0), b, xf_make(1.0f, 0, 0), true, NULL);
  ck_assert_near(o.distance, 0.0f, 0.0f);
  ck_assert_near(o.point_a.x, 0.5f, TOL);
}
END_TEST

START_TEST(test_gjk_capsules) {
  sn_vec2 h[2] = {{-1.0f, 0.0f}, {1.0f, 0.0f}};
  sn_vec2 v[2] = {{0.0f, -1.0f}, {0.0f, 1.0f}};
  sn_shape_proxy a = sn_make_proxy_points(h, 2, 0.25f);
  // parallel, offset: gap 2 - 0.5 = 1.5
  sn_distance_output o = distance(a, xf_make(0, 0, 0), a, xf_make(1.0f, 2.0f, 0), true, NULL);
  ck_assert_near(o.distance, 1.5f, TOL);
  ck_assert_near(o.normal.y, 1.0f, TOL);
  ck_assert_near(o.point_a.y, 0.25f, TOL);
  ck_assert_near(o.point_b.y, 1.75f, TOL);
  ck_assert(o.point_a.x >= -TOL && o.point_a.x <= 1.0f + TOL);
  // T: vertical capsule r 0.1 at x = 3: 3 - 1 - 0.25 - 0.1 = 1.65
  sn_shape_proxy b = sn_make_proxy_points(v, 2, 0.1f);
  o = distance(a, xf_make(0, 0, 0), b, xf_make(3.0f, 0.5f, 0), true, NULL);
  ck_assert_near(o.distance, 1.65f, TOL);
  ck_assert_near(o.point_a.x, 1.25f, TOL);
  ck_assert_near(o.point_a.y, 0.0f, TOL);
  ck_assert_near(o.point_b.x, 2.9f, TOL);
  // skew: end point (1, 0) against the line x + y = 4 through (2, 2)-(4, 0):
  // distance 3 / sqrt(2) between the cores
  sn_vec2 s[2] = {{2.0f, 2.0f}, {4.0f, 0.0f}};
  o = distance(sn_make_proxy_points(h, 2, 0.0f), xf_make(0, 0, 0), sn_make_proxy_points(s, 2, 0.0f), xf_make(0, 0, 0),
               false, NULL);
  ck_assert_near(o.distance, 3.0f / SQRT2, TOL);
  ck_assert_near(o.point_b.x, 2.5f, TOL);
  ck_assert_near(o.point_b.y, 1.5f, TOL);
}
END_TEST

START_TEST(test_gjk_polygon_circle) {
  sn_vec2 c = {0.0f, 0.0f};
  sn_shape_proxy disc = sn_make_proxy_points(&c, 1, 0.5f);
  // box corner (1, 1), disc centre (3, 3): 2 sqrt(2) - 0.5
  sn_distance_output o = distance(box_proxy(1.0f, 1.0f), xf_make(0, 0, 0), disc, xf_make(3.0f, 3.0f, 0), true, NULL);
  ck_assert_near(o.distance, 2.0f * SQRT2 - 0.5f, TOL);
  ck_assert_near(o.point_a.x, 1.0f, TOL);
  ck_assert_near(o.point_a.y, 1.0f, TOL);
  ck_assert_near(o.point_b.x, 3.0f - 0.5f / SQRT2, TOL);
  // hexagon (circumradius 1) against a disc on its flat side: apothem sqrt(3)/2
  sn_vec2 hex[6];
  for (int i = 0; i < 6; ++i) hex[i] = sn_v2(cosf((float)i * PI_F / 3.0f), sinf((float)i * PI_F / 3.0f));
  sn_shape_proxy hp = sn_make_proxy_points(hex, 6, 0.0f);
  o = distance(hp, xf_make(0, 0, 0), disc, xf_make(0.0f, 3.0f, 0), true, NULL);
  ck_assert_near(o.distance, 3.0f - 0.5f - 0.5f * sqrtf(3.0f), TOL);
  ck_assert_near(o.normal.y, 1.0f, TOL);
}
END_TEST

START_TEST(test_gjk_overlap) {
  sn_distance_output o =
      distance(box_proxy(1.0f, 1.0f), xf_make(0, 0, 0), box_proxy(0.5f, 0.5f), xf_make(0.8f, 0.3f, 0.3f), false, NULL);
  ck_assert_near(o.distance, 0.0f, 0.0f);
  ck_assert_near(o.normal.x, 0.0f, 0.0f);
  ck_assert_near(o.normal.y, 0.0f, 0.0f);
  ck_assert(o.iterations < 32);
}
END_TEST

START_TEST(test_gjk_cache) {
  sn_shape_proxy a = box_proxy(1.0f, 0.5f), b = box_proxy(0.5f, 0.5f);
  sn_simplex_cache cache = {0, {0, 0, 0}, {0, 0, 0}};
  sn_transform xb = xf_make(0.3f, 1.7f, 0.1f);
  sn_distance_output cold = distance(a, xf_make(0, 0, 0), b, xb, false, &cache);
  ck_assert_int_gt(cache.count, 0);
  sn_distance_output warm = distance(a, xf_make(0, 0, 0), b, xb, false, &cache);
  ck_assert_near(warm.distance, cold.distance, 1.0e-6f);
  ck_assert_int_le(warm.iterations, cold.iterations);
  ck_assert_int_le(warm.iterations, 1);
  // the answer: lowest corner of B above A's top face at y = 0.5
  float lowest = 1.7f - 0.5f * cosf(0.1f) - 0.5f * sinf(0.1f);
  ck_assert_near(cold.distance, lowest - 0.5f, TOL);
  // a cache from another pair (indices out of range) is ignored
  sn_simplex_cache junk = {3, {7, 6, 5}, {7, 6, 5}};
  sn_distance_output o = distance(a, xf_make(0, 0, 0), b, xb, false, &junk);
  ck_assert_near(o.distance, cold.distance, 1.0e-6f);
  // a degenerate cache (same vertex twice) too
  sn_simplex_cache twice = {2, {1, 1, 0}, {2, 2, 0}};
  o = distance(a, xf_make(0, 0, 0), b, xb, false, &twice);
  ck_assert_near(o.distance, cold.distance, 1.0e-6f);
}
END_TEST

START_TEST(test_gjk_random_against_brute_force) {
  // random convex polygons far and near; compare with brute-force vertex/edge distances
  srand(7);
  sn_shape_proxy a = box_proxy(0.7f, 0.3f);
  sn_vec2 tri[3] = {{0.0f, 0.0f}, {1.0f, 0.2f}, {0.3f, 0.9f}};
  sn_shape_proxy b = sn_make_proxy_points(tri, 3, 0.0f);
  sn_simplex_cache cache = {0, {0, 0, 0}, {0, 0, 0}};
  for (int k = 0; k < 500; ++k) {
    float x = 6.0f * ((float)rand() / (float)RAND_MAX) - 3.0f;
    float y = 6.0f * ((float)rand() / (float)RAND_MAX) - 3.0f;
    float ang = 6.28f * ((float)rand() / (float)RAND_MAX);
    sn_transform xa = xf_make(0.1f, -0.2f, 0.3f), xb = xf_make(x, y, ang);
    sn_distance_output o = distance(a, xa, b, xb, false, (k & 1) ? &cache : NULL);
    // brute force: min over vertex-edge pairs both ways (valid when apart)
    float best = 1e30f;
    for (int i = 0; i < a.count; ++i) {
      sn_vec2 p = sn_transform_point(xa, a.points[i]);
      for (int j = 0; j < b.count; ++j) {
        sn_vec2 q1 = sn_transform_point(xb, b.points[j]), q2 = sn_transform_point(xb, b.points[(j + 1) % b.count]);
        sn_segment_distance_result r = sn_segment_distance(p, p, q1, q2);
        best = fminf(best, sqrtf(r.distance_squared));
      }
    }
    for (int j = 0; j < b.count; ++j) {
      sn_vec2 p = sn_transform_point(xb, b.points[j]);
      for (int i = 0; i < a.count; ++i) {
        sn_vec2 q1 = sn_transform_point(xa, a.points[i]), q2 = sn_transform_point(xa, a.points[(i + 1) % a.count]);
        sn_segment_distance_result r = sn_segment_distance(p, p, q1, q2);
        best = fminf(best, sqrtf(r.distance_squared));
      }
    }
    if (o.distance > 0.0f) {
      ck_assert_near(o.distance, best, 1.0e-4f);
      ck_assert_near(sn_distance(o.point_a, o.point_b), o.distance, 1.0e-4f);
    }
    ck_assert(o.iterations < 32);
  }
}
END_TEST

/* ------------------------------------------------------- segment distance */

START_TEST(test_segment_distance_cases) {
  // parallel, overlapping in x: distance 1 (any common x)
  sn_segment_distance_result r = sn_segment_distance(sn_v2(0, 0), sn_v2(2, 0), sn_v2(1, 1), sn_v2(3, 1));
  ck_assert_near(r.distance_squared, 1.0f, TOL);
  ck_assert(r.closest1.x >= 1.0f - TOL && r.closest1.x <= 2.0f + TOL);
  ck_assert_near(r.closest2.x, r.closest1.x, TOL);
  // parallel, disjoint in x: end to end, (2,0)-(3,1)
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(2, 0), sn_v2(3, 1), sn_v2(5, 1));
  ck_assert_near(r.distance_squared, 2.0f, TOL);
  ck_assert_near(r.fraction1, 1.0f, TOL);
  ck_assert_near(r.fraction2, 0.0f, TOL);
  // crossing: X through (1, 1)
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(2, 2), sn_v2(0, 2), sn_v2(2, 0));
  ck_assert_near(r.distance_squared, 0.0f, TOL);
  ck_assert_near(r.closest1.x, 1.0f, TOL);
  ck_assert_near(r.closest1.y, 1.0f, TOL);
  ck_assert_near(r.fraction1, 0.5f, TOL);
  ck_assert_near(r.fraction2, 0.5f, TOL);
  // endpoint against interior: T, (1, 2) above (1, 0)
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(4, 0), sn_v2(1, 2), sn_v2(1, 5));
  ck_assert_near(r.distance_squared, 4.0f, TOL);
  ck_assert_near(r.fraction1, 0.25f, TOL);
  ck_assert_near(r.fraction2, 0.0f, TOL);
  // endpoint against endpoint, skew: (4,0) and (5,1)
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(4, 0), sn_v2(5, 1), sn_v2(7, 4));
  ck_assert_near(r.distance_squared, 2.0f, TOL);
  ck_assert_near(r.closest1.x, 4.0f, TOL);
  ck_assert_near(r.closest2.x, 5.0f, TOL);
  // degenerate: point against segment, point against point
  r = sn_segment_distance(sn_v2(1, 3), sn_v2(1, 3), sn_v2(0, 0), sn_v2(2, 0));
  ck_assert_near(r.distance_squared, 9.0f, TOL);
  ck_assert_near(r.fraction2, 0.5f, TOL);
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(2, 0), sn_v2(3, 4), sn_v2(3, 4));
  ck_assert_near(r.distance_squared, 17.0f, TOL);
  ck_assert_near(r.fraction1, 1.0f, TOL);
  r = sn_segment_distance(sn_v2(0, 0), sn_v2(0, 0), sn_v2(3, 4), sn_v2(3, 4));
  ck_assert_near(r.distance_squared, 25.0f, TOL);
}
END_TEST

/* ------------------------------------------------------------------ sweeps */

START_TEST(test_sweep_transform) {
  // centre of mass at local (1, 0); the body turns by 90 degrees while the centre moves (0,0) -> (2,0)
  sn_sweep s = {{1.0f, 0.0f}, {0.0f, 0.0f}, {2.0f, 0.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}};
  sn_transform x0 = sn_sweep_get_transform(&s, 0.0f);
  ck_assert_near(x0.p.x, -1.0f, TOL);
  ck_assert_near(x0.p.y, 0.0f, TOL);
  sn_transform x1 = sn_sweep_get_transform(&s, 1.0f);
  ck_assert_near(x1.q.c, 0.0f, TOL);
  ck_assert_near(x1.q.s, 1.0f, TOL);
  ck_assert_near(x1.p.x, 2.0f, TOL);
  ck_assert_near(x1.p.y, -1.0f, TOL);
  // halfway: 45 degrees (normalised interpolation is exact at the midpoint)
  sn_transform xh = sn_sweep_get_transform(&s, 0.5f);
  ck_assert_near(xh.q.c, 1.0f / SQRT2, TOL);
  ck_assert_near(xh.q.s, 1.0f / SQRT2, TOL);
  // the centre of mass follows the straight line
  sn_vec2 c = sn_transform_point(xh, s.local_center);
  ck_assert_near(c.x, 1.0f, TOL);
  ck_assert_near(c.y, 0.0f, TOL);
}
END_TEST

/* ------------------------------------------------------------- time of impact */

static sn_sweep still(float x, float y) { return (sn_sweep){{0.0f, 0.0f}, {x, y}, {x, y}, {1.0f, 0.0f}, {1.0f, 0.0f}}; }

static float distance_at(const sn_toi_input *in, float t) {
  sn_transform xa = sn_sweep_get_transform(&in->sweep_a, t), xb = sn_sweep_get_transform(&in->sweep_b, t);
  return distance(in->proxy_a, xa, in->proxy_b, xb, false, NULL).distance;
}

START_TEST(test_toi_box_into_thin_wall) {
  // thin static wall (half 0.05 x 1) at x = 3; box (half 0.1) moves from x = 0 to x = 5.
  // The gap 3 - 0.05 - 0.1 = 2.85 closes to the target SN_LINEAR_SLOP at t = (2.85 - slop) / 5.
  sn_toi_input in;
  in.proxy_a = box_proxy(0.05f, 1.0f);
  in.proxy_b = box_proxy(0.1f, 0.1f);
  in.sweep_a = still(3.0f, 0.0f);
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {0.0f, 0.0f}, {5.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  in.max_fraction = 1.0f;
  sn_toi_output out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  float expected = (2.85f - SN_LINEAR_SLOP) / 5.0f;
  // the gap at the reported fraction is within the target band
  ck_assert_near(5.0f * out.fraction, 5.0f * expected, TOI_TOL + TOI_SLACK);
  float gap = distance_at(&in, out.fraction);
  ck_assert_near(gap, SN_LINEAR_SLOP, TOI_TOL + TOI_SLACK);

  // the same but moving away: separated, fraction = max_fraction
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {0.0f, 0.0f}, {-5.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_SEPARATED);
  ck_assert_near(out.fraction, 1.0f, 0.0f);

  // stops short: max_fraction before the hit
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {0.0f, 0.0f}, {5.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  in.max_fraction = 0.5f;
  out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_SEPARATED);
  ck_assert_near(out.fraction, 0.5f, 0.0f);

  // already overlapping at t = 0
  in.max_fraction = 1.0f;
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {2.95f, 0.0f}, {5.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_OVERLAPPED);
  ck_assert_near(out.fraction, 0.0f, 0.0f);
}
END_TEST

START_TEST(test_toi_circles) {
  // discs r = 0.5 and 0.25; B from x = 10 to x = 0 towards A at the origin.
  // Target: centres 0.75 - slop apart; the centre distance is 10 - 10 t.
  sn_vec2 c = {0.0f, 0.0f};
  sn_toi_input in;
  in.proxy_a = sn_make_proxy_points(&c, 1, 0.5f);
  in.proxy_b = sn_make_proxy_points(&c, 1, 0.25f);
  in.sweep_a = still(0.0f, 0.0f);
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {10.0f, 0.0f}, {0.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  in.max_fraction = 1.0f;
  sn_toi_output out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  float expected = (10.0f - (0.75f - SN_LINEAR_SLOP)) / 10.0f;
  ck_assert_near(10.0f * out.fraction, 10.0f * expected, TOI_TOL + TOI_SLACK);
}
END_TEST

/* ------------------------------------------- continuous collision's shortcuts */

static uint32_t lcg_next(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}
static float lcg_range(uint32_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)lcg_next(state) / 16777216.0f;
}
static sn_rot rot_of(float angle) { return (sn_rot){cosf(angle), sinf(angle)}; }
static float core_reach(const sn_shape_proxy *p, sn_vec2 center) {
  float r = 0.0f;
  for (int32_t i = 0; i < p->count; ++i) r = fmaxf(r, sn_length(sn_sub(p->points[i], center)));
  return r;
}
static sn_shape_proxy random_proxy(uint32_t *state) {
  if (lcg_next(state) % 2u == 0u) {
    sn_vec2 c = {0.0f, 0.0f};
    return sn_make_proxy_points(&c, 1, lcg_range(state, 0.05f, 0.5f));
  }
  sn_shape_proxy p = box_proxy(lcg_range(state, 0.05f, 0.6f), lcg_range(state, 0.05f, 0.6f));
  p.radius = lcg_range(state, 0.0f, 1.0f) < 0.5f ? 0.0f : 0.02f;
  return p;
}
static sn_sweep random_sweep(uint32_t *state) {
  sn_vec2 lc = {lcg_range(state, -0.1f, 0.1f), lcg_range(state, -0.1f, 0.1f)};
  sn_vec2 c1 = {lcg_range(state, -2.0f, 2.0f), lcg_range(state, -2.0f, 2.0f)};
  sn_vec2 c2 = {c1.x + lcg_range(state, -3.0f, 3.0f), c1.y + lcg_range(state, -3.0f, 3.0f)};
  float a1 = lcg_range(state, -3.0f, 3.0f), a2 = a1 + lcg_range(state, -2.0f, 2.0f);
  return (sn_sweep){lc, c1, c2, rot_of(a1), rot_of(a2)};
}

START_TEST(test_toi_with_matches_plain) {
  // sn_time_of_impact_with given B's rotation term and no near limit gives
  // sn_time_of_impact's result bit for bit, over 300 random sweeps.
  uint32_t state = 12345u;
  int hits = 0;
  for (int k = 0; k < 300; ++k) {
    sn_toi_input in;
    in.proxy_a = random_proxy(&state);
    in.proxy_b = random_proxy(&state);
    in.sweep_a = random_sweep(&state);
    in.sweep_b = random_sweep(&state);
    in.max_fraction = 1.0f;
    sn_toi_output plain = sn_time_of_impact(&in);
    sn_toi_output with = sn_time_of_impact_with(&in, sn_sweep_rotation_reach(&in.sweep_b, &in.proxy_b), -FLT_MAX);
    ck_assert_int_eq(with.state, plain.state);
    ck_assert(memcmp(&with.fraction, &plain.fraction, sizeof(float)) == 0);
    ck_assert(memcmp(&with.separation0, &plain.separation0, sizeof(float)) == 0);
    hits += plain.state == SN_TOI_HIT && plain.fraction > 0.0f;
  }
  ck_assert_int_gt(hits, 10); // both outcomes were met
}
END_TEST

START_TEST(test_toi_with_near_limit) {
  // box (half 0.1) 0.01 m from a thin wall (half 0.05 x 1), moving into it:
  // gap 0.01 is above the target band (slop + slop/4 = 0.00625) and below a
  // limit of 4 slop (0.02), so the sweep stops at once with SN_TOI_NEAR and
  // separation0 = 0.01; without the limit it hits.
  sn_toi_input in;
  in.proxy_a = box_proxy(0.05f, 1.0f);
  in.proxy_b = box_proxy(0.1f, 0.1f);
  in.sweep_a = still(3.0f, 0.0f);
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {2.84f, 0.0f}, {5.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  in.max_fraction = 1.0f;
  sn_toi_output out = sn_time_of_impact_with(&in, -1.0f, 4.0f * SN_LINEAR_SLOP);
  ck_assert_int_eq(out.state, SN_TOI_NEAR);
  ck_assert_near(out.separation0, 0.01f, TOL);
  out = sn_time_of_impact_with(&in, -1.0f, -FLT_MAX);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  // 0.01 - slop of 2.16 m closes at t = 0.005 / 2.16
  ck_assert_near(2.16f * out.fraction, 0.01f - SN_LINEAR_SLOP, TOI_TOL + TOI_SLACK);
}
END_TEST

START_TEST(test_continuous_may_touch_is_conservative) {
  // Random pairs of swept proxies, A stopped at a random split or not. When
  // sn_continuous_may_touch says no, the cores never come within the radii
  // plus 1.25 slop (the time of impact's stop band) at 400 sampled times,
  // and (unsplit) the time of impact does not hit. Both answers are met.
  uint32_t state = 777u;
  int refused = 0, accepted_hits = 0;
  for (int k = 0; k < 2000; ++k) {
    sn_shape_proxy pa = random_proxy(&state), pb = random_proxy(&state);
    sn_sweep sa = random_sweep(&state), sb = random_sweep(&state);
    float split = lcg_next(&state) % 2u == 0u ? 1.0f : lcg_range(&state, 0.05f, 0.95f);
    bool may = sn_continuous_may_touch(sa, core_reach(&pa, sa.local_center), split, sb,
                                       core_reach(&pb, sb.local_center), pa.radius + pb.radius);
    if (split == 1.0f) {
      sn_toi_input in = {pa, pb, sa, sb, 1.0f};
      sn_toi_output out = sn_time_of_impact(&in);
      if (!may) ck_assert_int_ne(out.state, SN_TOI_HIT);
      if (may && out.state == SN_TOI_HIT) accepted_hits++;
    }
    if (may) continue;
    refused++;
    for (int i = 0; i <= 400; ++i) {
      float t = (float)i / 400.0f;
      // A moves until split, then rests where it stopped (at sa.c2, q2)
      sn_transform xa = sn_sweep_get_transform(&sa, t < split ? t / split : 1.0f);
      sn_transform xb = sn_sweep_get_transform(&sb, t);
      float d = distance(pa, xa, pb, xb, false, NULL).distance;
      ck_assert_msg(d > pa.radius + pb.radius + 1.25f * SN_LINEAR_SLOP, "pair %d at t %g: %g", k, (double)t, (double)d);
    }
  }
  ck_assert_int_gt(refused, 100);
  ck_assert_int_gt(accepted_hits, 20);
}
END_TEST

START_TEST(test_continuous_may_touch_any_split_covers_every_split) {
  // Random pairs of swept proxies. When sn_continuous_may_touch_any_split
  // says no, sn_continuous_may_touch says no for A unstopped and for A
  // stopped at 40 fractions f in (0, 1): its sweep cut at f (centre and
  // rotation where sn_sweep_get_transform puts it, as the pass stops a
  // body), resting there after. Both answers are met.
  uint32_t state = 4242u;
  int refused = 0, accepted = 0;
  for (int k = 0; k < 3000; ++k) {
    sn_shape_proxy pa = random_proxy(&state), pb = random_proxy(&state);
    sn_sweep sa = random_sweep(&state), sb = random_sweep(&state);
    const float ra = core_reach(&pa, sa.local_center), rb = core_reach(&pb, sb.local_center);
    const float radius = pa.radius + pb.radius;
    if (sn_continuous_may_touch_any_split(sa, ra, sb, rb, radius)) {
      accepted++;
      continue;
    }
    refused++;
    ck_assert(!sn_continuous_may_touch(sa, ra, 1.0f, sb, rb, radius));
    for (int i = 1; i < 40; ++i) {
      const float f = (float)i / 40.0f;
      sn_transform xf = sn_sweep_get_transform(&sa, f);
      sn_sweep cut = {sa.local_center, sa.c1, sn_transform_point(xf, sa.local_center), sa.q1, xf.q};
      ck_assert_msg(!sn_continuous_may_touch(cut, ra, f, sb, rb, radius), "pair %d at split %g", k, (double)f);
    }
  }
  ck_assert_int_gt(refused, 100);
  ck_assert_int_gt(accepted, 100);
}
END_TEST

/* A random shape for sn_continuous_may_close: a circle, a capsule, a
 * segment, or a box (short or long, some rounded). */
static sn_geometry random_geometry(uint32_t *state) {
  sn_geometry g;
  memset(&g, 0, sizeof g);
  switch (lcg_next(state) % 4u) {
  case 0:
    g.type = SN_SHAPE_CIRCLE;
    g.circle =
        (sn_circle){{lcg_range(state, -0.1f, 0.1f), lcg_range(state, -0.1f, 0.1f)}, lcg_range(state, 0.05f, 0.5f)};
    break;
  case 1:
    g.type = SN_SHAPE_CAPSULE;
    g.capsule = (sn_capsule){
        {lcg_range(state, -1.5f, -0.1f), 0.0f}, {lcg_range(state, 0.1f, 1.5f), 0.1f}, lcg_range(state, 0.05f, 0.3f)};
    break;
  case 2:
    g.type = SN_SHAPE_SEGMENT;
    g.segment = (sn_segment){{lcg_range(state, -2.0f, -0.2f), -0.1f}, {lcg_range(state, 0.2f, 2.0f), 0.2f}};
    break;
  default: {
    const bool long_box = lcg_next(state) % 2u == 0u;
    const float hx = long_box ? lcg_range(state, 1.0f, 3.0f) : lcg_range(state, 0.05f, 0.6f);
    ck_assert_int_eq(sn_make_box(hx, lcg_range(state, 0.05f, 0.4f), &g.polygon), SN_OK);
    g.polygon.radius = lcg_next(state) % 2u == 0u ? 0.0f : lcg_range(state, 0.01f, 0.2f);
    g.type = SN_SHAPE_POLYGON;
    break;
  }
  }
  return g;
}

START_TEST(test_continuous_may_close_is_conservative) {
  // Random pairs of swept shapes (long boxes among them, turning up to 2
  // rad), over the whole step or a part of it. When sn_continuous_may_close
  // says no, the time of impact (with and without a near limit) finds the
  // pair apart at the end of the fraction, bit for bit, or near at the
  // start with the limit, and the cores stay apart by more than the stop
  // band at 200 sampled times. Both answers are met.
  uint32_t state = 9001u;
  int refused = 0, accepted = 0;
  for (int k = 0; k < 4000; ++k) {
    const sn_geometry ga = random_geometry(&state), gb = random_geometry(&state);
    const sn_shape_proxy pa = sn_geometry_proxy(&ga), pb = sn_geometry_proxy(&gb);
    const sn_sweep sa = random_sweep(&state), sb = random_sweep(&state);
    const float max_fraction = lcg_next(&state) % 2u == 0u ? 1.0f : lcg_range(&state, 0.1f, 1.0f);
    float radius;
    const float ra = sn_geometry_core_reach(&ga, sa.local_center, &radius);
    const float rb = sn_geometry_core_reach(&gb, sb.local_center, &radius);
    const float rotation_b = sn_sweep_rotation_reach(&sb, &pb);
    if (sn_continuous_may_close(&ga, &pa, &sa, ra, &gb, &pb, &sb, rb, rotation_b, max_fraction)) {
      accepted++;
      continue;
    }
    refused++;
    sn_toi_input in = {pa, pb, sa, sb, max_fraction};
    const sn_toi_output plain = sn_time_of_impact_with(&in, rotation_b, -FLT_MAX);
    ck_assert_msg(plain.state == SN_TOI_SEPARATED, "pair %d: state %d", k, (int)plain.state);
    ck_assert(memcmp(&plain.fraction, &max_fraction, sizeof(float)) == 0);
    const sn_toi_output limited = sn_time_of_impact_with(&in, rotation_b, 4.0f * SN_LINEAR_SLOP);
    ck_assert(limited.state == SN_TOI_NEAR ||
              (limited.state == SN_TOI_SEPARATED && memcmp(&limited.fraction, &max_fraction, sizeof(float)) == 0));
    for (int i = 0; i <= 200; ++i) {
      const float t = max_fraction * (float)i / 200.0f;
      const float d =
          distance(pa, sn_sweep_get_transform(&sa, t), pb, sn_sweep_get_transform(&sb, t), false, NULL).distance;
      ck_assert_msg(d > pa.radius + pb.radius - SN_LINEAR_SLOP + TOI_TOL, "pair %d at t %g: %g", k, (double)t,
                    (double)d);
    }
  }
  ck_assert_int_gt(refused, 300);
  ck_assert_int_gt(accepted, 300);
}
END_TEST

START_TEST(test_geometry_core_reach_same_bits) {
  // sn_geometry_core_reach of each shape kind is, bit for bit, the farthest
  // of sn_geometry_proxy's points (by squared distance, then one sqrtf) and
  // its radius: continuous collision reads it in place of the proxy.
  sn_geometry g[5];
  memset(g, 0, sizeof g);
  g[0].type = SN_SHAPE_CIRCLE;
  g[0].circle = (sn_circle){{0.3f, -0.2f}, 0.45f};
  g[1].type = SN_SHAPE_CAPSULE;
  g[1].capsule = (sn_capsule){{-0.7f, 0.1f}, {0.9f, 0.35f}, 0.15f};
  g[2].type = SN_SHAPE_SEGMENT;
  g[2].segment = (sn_segment){{-1.3f, 0.2f}, {0.4f, 1.7f}};
  g[3].type = SN_SHAPE_POLYGON;
  ck_assert_int_eq(sn_make_box(0.7f, 0.3f, &g[3].polygon), SN_OK);
  g[3].polygon.radius = 0.02f;
  g[4].type = SN_SHAPE_CHAIN_SEGMENT;
  g[4].chain_segment.segment = (sn_segment){{2.0f, -0.5f}, {-0.25f, 0.75f}};
  const sn_vec2 centers[3] = {{0.0f, 0.0f}, {0.123f, -0.456f}, {-1.1f, 0.9f}};
  for (int i = 0; i < 5; ++i) {
    for (int c = 0; c < 3; ++c) {
      sn_shape_proxy p = sn_geometry_proxy(&g[i]);
      float reach_sq = 0.0f;
      for (int32_t j = 0; j < p.count; ++j) reach_sq = fmaxf(reach_sq, sn_distance_sq(p.points[j], centers[c]));
      const float expected = sqrtf(reach_sq);
      float radius = -1.0f;
      const float reach = sn_geometry_core_reach(&g[i], centers[c], &radius);
      ck_assert_msg(memcmp(&reach, &expected, sizeof(float)) == 0, "kind %d: %g, proxy %g", i, (double)reach,
                    (double)expected);
      ck_assert(memcmp(&radius, &p.radius, sizeof(float)) == 0);
      ck_assert_float_gt(reach, 0.1f); // every case has extent
    }
  }
}
END_TEST

START_TEST(test_toi_rotating_bar) {
  // A long bar (half 2 x 0.05) spins half a turn while its centre passes a
  // small box; the result must be a fraction where the gap is in the target
  // band (or the box is missed), never a tunnel, and the call must end.
  sn_toi_input in;
  in.proxy_a = box_proxy(0.1f, 0.1f);
  in.proxy_b = box_proxy(2.0f, 0.05f);
  in.sweep_a = still(0.0f, 0.25f);
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {-3.0f, 0.0f}, {3.0f, 0.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}};
  in.max_fraction = 1.0f;
  sn_toi_output out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  float gap = distance_at(&in, out.fraction);
  ck_assert_near(gap, SN_LINEAR_SLOP, TOI_TOL + TOI_SLACK);
  // nothing touched before: sample the motion up to the hit
  for (int k = 0; k < 200; ++k) {
    float t = out.fraction * (float)k / 200.0f;
    ck_assert(distance_at(&in, t) > SN_LINEAR_SLOP - TOI_TOL);
  }

  // spinning in place next to the box: hits when the bar end sweeps by
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {0.0f, -0.5f}, {0.0f, -0.5f}, {1.0f, 0.0f}, {0.0f, 1.0f}};
  in.sweep_a = still(1.2f, 0.4f);
  out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  gap = distance_at(&in, out.fraction);
  ck_assert(gap >= SN_LINEAR_SLOP - TOI_TOL - TOI_SLACK && gap <= SN_LINEAR_SLOP + TOI_TOL + TOI_SLACK);
}
END_TEST

START_TEST(test_toi_grazing_terminates) {
  // A fast box passes a thin wall's corner with a clearance just above the
  // target: it must answer (separated or a hit in the band) in bounded time.
  sn_toi_input in;
  in.proxy_a = box_proxy(0.05f, 1.0f);
  in.proxy_b = box_proxy(0.1f, 0.1f);
  in.sweep_a = still(0.0f, 0.0f);
  float y = 1.0f + 0.1f + SN_LINEAR_SLOP + 2.0f * TOI_TOL;
  in.sweep_b = (sn_sweep){{0.0f, 0.0f}, {-50.0f, y}, {50.0f, y}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  in.max_fraction = 1.0f;
  sn_toi_output out = sn_time_of_impact(&in);
  ck_assert(out.state == SN_TOI_SEPARATED || out.state == SN_TOI_HIT || out.state == SN_TOI_FAILED);
  if (out.state == SN_TOI_HIT) ck_assert(distance_at(&in, out.fraction) > SN_LINEAR_SLOP - TOI_TOL - TOI_SLACK);
  // grazing below the target: hits the corner region
  y = 1.0f + 0.1f;
  in.sweep_b.c1.y = y;
  in.sweep_b.c2.y = y;
  out = sn_time_of_impact(&in);
  ck_assert_int_eq(out.state, SN_TOI_HIT);
  ck_assert_near(distance_at(&in, out.fraction), SN_LINEAR_SLOP, TOI_TOL + TOI_SLACK);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("distance");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_proxies);
  tcase_add_test(tc, test_gjk_boxes_face);
  tcase_add_test(tc, test_gjk_boxes_corner);
  tcase_add_test(tc, test_gjk_rotated_box);
  tcase_add_test(tc, test_gjk_circles_radii);
  tcase_add_test(tc, test_gjk_capsules);
  tcase_add_test(tc, test_gjk_polygon_circle);
  tcase_add_test(tc, test_gjk_overlap);
  tcase_add_test(tc, test_gjk_cache);
  tcase_add_test(tc, test_gjk_random_against_brute_force);
  tcase_add_test(tc, test_segment_distance_cases);
  tcase_add_test(tc, test_sweep_transform);
  tcase_add_test(tc, test_toi_box_into_thin_wall);
  tcase_add_test(tc, test_toi_circles);
  tcase_add_test(tc, test_toi_rotating_bar);
  tcase_add_test(tc, test_toi_with_matches_plain);
  tcase_add_test(tc, test_toi_with_near_limit);
  tcase_add_test(tc, test_continuous_may_touch_is_conservative);
  tcase_add_test(tc, test_continuous_may_touch_any_split_covers_every_split);
  tcase_add_test(tc, test_continuous_may_close_is_conservative);
  tcase_add_test(tc, test_geometry_core_reach_same_bits);
  tcase_add_test(tc, test_toi_grazing_terminates);
  suite_add_tcase(s, tc);
  return s;
}
