/* The public low-level collision functions (sinew/collision.h) against
 * closed forms: ray casts on each shape kind placed by a transform, GJK
 * distance with witness points, shape casts (time of impact), manifolds in
 * either order, the mover's plane solver and velocity clipping; and every
 * refusal of bad input. */
#include <check.h>
#include <float.h>
#include <math.h>

#include "test_main.h"
#include "sinew/sinew.h"

#define EPS 1.0e-5f

static sn_transform xf_make(float x, float y, float angle) {
  sn_transform xf = {{x, y}, sn_make_rot(angle)};
  return xf;
}

static const sn_transform identity = {{0.0f, 0.0f}, {1.0f, 0.0f}};

static void assert_vec(sn_vec2 v, float x, float y, float tol) {
  ck_assert_msg(fabsf(v.x - x) <= tol && fabsf(v.y - y) <= tol, "(%g, %g) != (%g, %g)", (double)v.x, (double)v.y,
                (double)x, (double)y);
}

/* ------------------------------------------------------------------ rays */

START_TEST(test_ray_circle_closed_form) {
  // circle r = 1 centred at (5, 0) (local centre 0 placed by xf): the ray
  // from the origin along +x (10 m) enters at x = 4: fraction 4 / 10
  sn_circle c = {{0.0f, 0.0f}, 1.0f};
  sn_ray_input in = {{0.0f, 0.0f}, {10.0f, 0.0f}, 1.0f};
  sn_cast_output o;
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, xf_make(5.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq_tol(o.fraction, 0.4f, EPS);
  assert_vec(o.point, 4.0f, 0.0f, 1e-4f);
  assert_vec(o.normal, -1.0f, 0.0f, EPS);
  // a ray 0.6 m off axis enters at x = 5 - sqrt(1 - 0.36) = 4.2
  in.origin = (sn_vec2){0.0f, 0.6f};
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, xf_make(5.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert_float_eq_tol(o.fraction, 0.42f, 1e-5f);
  assert_vec(o.normal, -0.8f, 0.6f, 1e-5f);
  // max_fraction before the circle: no hit; starting inside: no hit
  in.origin = (sn_vec2){0.0f, 0.0f};
  in.max_fraction = 0.39f;
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, xf_make(5.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert(!o.hit);
  in.max_fraction = 1.0f;
  in.origin = (sn_vec2){5.2f, 0.0f};
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, xf_make(5.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert(!o.hit);
}
END_TEST

START_TEST(test_ray_capsule_polygon_segment) {
  sn_cast_output o;
  // capsule (-1,0)-(1,0) r 0.5 turned 90 degrees at (0, 5): vertical, its
  // side at x = -0.5; ray from (-3, 5) along +x 6 m: fraction 2.5 / 6
  sn_capsule cap = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.5f};
  sn_ray_input in = {{-3.0f, 5.0f}, {6.0f, 0.0f}, 1.0f};
  ck_assert_int_eq(sn_cast_ray_capsule(&in, &cap, xf_make(0.0f, 5.0f, 0.5f * 3.14159265f), &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq_tol(o.fraction, 2.5f / 6.0f, 1e-5f);
  assert_vec(o.normal, -1.0f, 0.0f, 1e-5f);
  // box hx 2, hy 0.5 turned 90 degrees at (3, 0): its left face at x = 2.5;
  // ray from the origin along +x 10 m: fraction 0.25
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(2.0f, 0.5f, &box), SN_OK);
  in = (sn_ray_input){{0.0f, 0.0f}, {10.0f, 0.0f}, 1.0f};
  ck_assert_int_eq(sn_cast_ray_polygon(&in, &box, xf_make(3.0f, 0.0f, 0.5f * 3.14159265f), &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq_tol(o.fraction, 0.25f, 1e-5f);
  assert_vec(o.point, 2.5f, 0.0f, 1e-4f);
  assert_vec(o.normal, -1.0f, 0.0f, 1e-5f);
  // segment (0,-1)-(0,1) at (4, 0), two-sided: 0.4 from either side
  sn_segment seg = {{0.0f, -1.0f}, {0.0f, 1.0f}};
  ck_assert_int_eq(sn_cast_ray_segment(&in, &seg, xf_make(4.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq_tol(o.fraction, 0.4f, 1e-6f);
  assert_vec(o.normal, -1.0f, 0.0f, 1e-6f);
  in = (sn_ray_input){{8.0f, 0.0f}, {-10.0f, 0.0f}, 1.0f};
  ck_assert_int_eq(sn_cast_ray_segment(&in, &seg, xf_make(4.0f, 0.0f, 0.0f), &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq_tol(o.fraction, 0.4f, 1e-6f);
  assert_vec(o.normal, 1.0f, 0.0f, 1e-6f);
}
END_TEST

START_TEST(test_ray_refusals) {
  sn_circle c = {{0.0f, 0.0f}, 1.0f};
  sn_ray_input in = {{0.0f, 0.0f}, {10.0f, 0.0f}, 1.0f};
  sn_cast_output o = {{7.0f, 7.0f}, {7.0f, 7.0f}, 7.0f, 7, true};
  ck_assert_int_eq(sn_cast_ray_circle(NULL, &c, identity, &o), SN_ERR_NULL);
  ck_assert_int_eq(sn_cast_ray_circle(&in, NULL, identity, &o), SN_ERR_NULL);
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, identity, NULL), SN_ERR_NULL);
  in.origin.x = NAN;
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, identity, &o), SN_ERR_NOT_FINITE);
  in.origin.x = 0.0f;
  in.max_fraction = 1.5f;
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, identity, &o), SN_ERR_INVALID_ARGUMENT);
  in.max_fraction = 1.0f;
  sn_transform bad_rot = {{0.0f, 0.0f}, {2.0f, 0.0f}};
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, bad_rot, &o), SN_ERR_INVALID_ARGUMENT);
  c.radius = -1.0f;
  ck_assert_int_eq(sn_cast_ray_circle(&in, &c, identity, &o), SN_ERR_INVALID_ARGUMENT);
  sn_capsule cap = {{0.0f, 0.0f}, {INFINITY, 0.0f}, 0.5f};
  ck_assert_int_eq(sn_cast_ray_capsule(&in, &cap, identity, &o), SN_ERR_NOT_FINITE);
  sn_segment seg = {{2e6f, 0.0f}, {0.0f, 1.0f}};
  ck_assert_int_eq(sn_cast_ray_segment(&in, &seg, identity, &o), SN_ERR_INVALID_ARGUMENT);
  sn_polygon poly;
  ck_assert_int_eq(sn_make_box(1.0f, 1.0f, &poly), SN_OK);
  poly.count = 2; // a hand-filled polygon the validator refuses
  ck_assert_int_ne(sn_cast_ray_polygon(&in, &poly, identity, &o), SN_OK);
  // the output is untouched on error
  ck_assert_float_eq(o.fraction, 7.0f);
  ck_assert(o.hit);
}
END_TEST

/* ------------------------------------------------------- distance, proxies */

START_TEST(test_distance_witness_points) {
  // box hx 1 at the origin, circle r 0.5 at (3, 0.2): the hulls are 2 apart
  // (face x = 1 to the centre), the rounded shapes 1.5; witnesses (1, 0.2)
  // and (2.5, 0.2)
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(1.0f, 1.0f, &box), SN_OK);
  sn_distance_input in;
  ck_assert_int_eq(sn_make_proxy(box.vertices, box.count, 0.0f, &in.proxy_a), SN_OK);
  sn_vec2 zero = {0.0f, 0.0f};
  ck_assert_int_eq(sn_make_proxy(&zero, 1, 0.5f, &in.proxy_b), SN_OK);
  in.transform_a = identity;
  in.transform_b = xf_make(3.0f, 0.2f, 0.0f);
  in.use_radii = true;
  sn_distance_output o;
  ck_assert_int_eq(sn_compute_distance(&in, &o), SN_OK);
  ck_assert_float_eq_tol(o.distance, 1.5f, 1e-5f);
  assert_vec(o.point_a, 1.0f, 0.2f, 1e-5f);
  assert_vec(o.point_b, 2.5f, 0.2f, 1e-5f);
  assert_vec(o.normal, 1.0f, 0.0f, 1e-5f);
  // without radii: 2; a point at (2, 2) off the corner: sqrt(2), witness (1, 1)
  in.use_radii = false;
  in.transform_b = xf_make(2.0f, 2.0f, 0.0f);
  ck_assert_int_eq(sn_compute_distance(&in, &o), SN_OK);
  ck_assert_float_eq_tol(o.distance, sqrtf(2.0f), 1e-5f);
  assert_vec(o.point_a, 1.0f, 1.0f, 1e-5f);
  // overlapping: distance 0
  in.use_radii = true;
  in.transform_b = xf_make(1.2f, 0.0f, 0.0f);
  ck_assert_int_eq(sn_compute_distance(&in, &o), SN_OK);
  ck_assert_float_eq(o.distance, 0.0f);
  // refusals
  ck_assert_int_eq(sn_compute_distance(NULL, &o), SN_ERR_NULL);
  in.proxy_b.count = 0;
  ck_assert_int_eq(sn_compute_distance(&in, &o), SN_ERR_INVALID_ARGUMENT);
  in.proxy_b.count = 1;
  in.proxy_b.radius = NAN;
  ck_assert_int_eq(sn_compute_distance(&in, &o), SN_ERR_NOT_FINITE);
}
END_TEST

START_TEST(test_proxy_refusals) {
  sn_vec2 pts[9] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}};
  sn_shape_proxy p;
  ck_assert_int_eq(sn_make_proxy(pts, 4, 0.1f, &p), SN_OK);
  ck_assert_int_eq(p.count, 4);
  ck_assert_float_eq(p.radius, 0.1f);
  ck_assert_int_eq(sn_make_proxy(NULL, 4, 0.1f, &p), SN_ERR_NULL);
  ck_assert_int_eq(sn_make_proxy(pts, 4, 0.1f, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_make_proxy(pts, 0, 0.1f, &p), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_make_proxy(pts, 9, 0.1f, &p), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_make_proxy(pts, 4, -0.1f, &p), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_make_proxy(pts, 4, NAN, &p), SN_ERR_NOT_FINITE);
  sn_vec2 far = {2e6f, 0.0f};
  ck_assert_int_eq(sn_make_proxy(&far, 1, 0.1f, &p), SN_ERR_INVALID_ARGUMENT);
  // placed: (1, 0) turned 90 degrees about the origin, then moved by (2, 3)
  ck_assert_int_eq(sn_make_offset_proxy(pts + 1, 1, 0.0f, xf_make(2.0f, 3.0f, 0.5f * 3.14159265f), &p), SN_OK);
  assert_vec(p.points[0], 2.0f, 4.0f, 1e-6f);
  sn_transform nan_xf = {{NAN, 0.0f}, {1.0f, 0.0f}};
  ck_assert_int_eq(sn_make_offset_proxy(pts, 1, 0.0f, nan_xf, &p), SN_ERR_NOT_FINITE);
  // a single point without radius has no extent
  ck_assert_int_eq(sn_make_proxy(pts, 1, 0.0f, &p), SN_OK);
  ck_assert_int_eq(sn_proxy_check(&p), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_proxy_check(NULL), SN_ERR_NULL);
}
END_TEST

/* ------------------------------------------------------------ shape casts */

static sn_shape_cast_input cast_against_box(const sn_vec2 *points, int32_t count, float radius, sn_vec2 translation) {
  sn_shape_cast_input in;
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(1.0f, 1.0f, &box), SN_OK);
  ck_assert_int_eq(sn_make_proxy(box.vertices, box.count, 0.0f, &in.proxy_a), SN_OK);
  ck_assert_int_eq(sn_make_proxy(points, count, radius, &in.proxy_b), SN_OK);
  in.transform_a = identity;
  in.transform_b = identity;
  in.translation_b = translation;
  in.max_fraction = 1.0f;
  return in;
}

START_TEST(test_shape_cast_closed_forms) {
  sn_cast_output o;
  // circle r = 0.25 at (4, 0.3) moving (-5, 0) at the box face x = 1:
  // fraction = (d - r) / |t| = (3 - 0.25) / 5 = 0.55, within 1e-4 m
  sn_vec2 c = {4.0f, 0.3f};
  sn_shape_cast_input in = cast_against_box(&c, 1, 0.25f, (sn_vec2){-5.0f, 0.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_le(fabsf(o.fraction * 5.0f - 2.75f), 1e-4f);
  assert_vec(o.point, 1.0f, 0.3f, 1e-4f);
  assert_vec(o.normal, 1.0f, 0.0f, 1e-4f);
  // vertical capsule (4, -0.5)-(4, 0.5) r 0.2 moving (-4, 0): (3 - 0.2) / 4 = 0.7
  sn_vec2 cap[2] = {{4.0f, -0.5f}, {4.0f, 0.5f}};
  in = cast_against_box(cap, 2, 0.2f, (sn_vec2){-4.0f, 0.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_le(fabsf(o.fraction * 4.0f - 2.8f), 1e-4f);
  // triangle tip (4, 0) first, moving (-4, 0): 3 / 4 = 0.75 (sharp on sharp)
  sn_vec2 tri[3] = {{4.0f, 0.0f}, {5.0f, -1.0f}, {5.0f, 1.0f}};
  in = cast_against_box(tri, 3, 0.0f, (sn_vec2){-4.0f, 0.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_le(fabsf(o.fraction * 4.0f - 3.0f), 1e-4f);
  // diagonal: circle r 0.5 at (3, 3) moving (-3, -3) meets the corner (1, 1)
  // when its centre is 0.5 from it: (2 sqrt 2 - 0.5) / (3 sqrt 2)
  c = (sn_vec2){3.0f, 3.0f};
  in = cast_against_box(&c, 1, 0.5f, (sn_vec2){-3.0f, -3.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(o.hit);
  float len = 3.0f * sqrtf(2.0f);
  ck_assert_float_le(fabsf(o.fraction * len - (2.0f * sqrtf(2.0f) - 0.5f)), 1e-4f);
  assert_vec(o.point, 1.0f, 1.0f, 1e-3f);
  // overlapping at the start: fraction 0
  c = (sn_vec2){1.2f, 0.0f};
  in = cast_against_box(&c, 1, 0.5f, (sn_vec2){5.0f, 0.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(o.hit);
  ck_assert_float_eq(o.fraction, 0.0f);
  // moving away, or stopping short: no hit, fraction max_fraction
  c = (sn_vec2){4.0f, 0.0f};
  in = cast_against_box(&c, 1, 0.5f, (sn_vec2){5.0f, 0.0f});
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(!o.hit);
  in = cast_against_box(&c, 1, 0.5f, (sn_vec2){-5.0f, 0.0f});
  in.max_fraction = 0.4f; // the hit is at 2.5 / 5 = 0.5
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_OK);
  ck_assert(!o.hit);
  ck_assert_float_eq(o.fraction, 0.4f);
  // refusals
  in.max_fraction = -0.1f;
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_ERR_INVALID_ARGUMENT);
  in.max_fraction = 1.0f;
  in.translation_b.y = NAN;
  ck_assert_int_eq(sn_compute_shape_cast(&in, &o), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_compute_shape_cast(&in, NULL), SN_ERR_NULL);
}
END_TEST

/* -------------------------------------------------------------- manifolds */

START_TEST(test_manifold_closed_forms) {
  sn_shape_geometry a = {.type = SN_SHAPE_CIRCLE, .circle = {{0.0f, 0.0f}, 1.0f}};
  sn_shape_geometry b = a;
  sn_contact_manifold m;
  // two unit circles 1.5 apart: one point midway, separation -0.5
  ck_assert_int_eq(sn_compute_manifold(&a, identity, &b, xf_make(1.5f, 0.0f, 0.0f), &m), SN_OK);
  ck_assert_int_eq(m.point_count, 1);
  assert_vec(m.normal, 1.0f, 0.0f, 1e-6f);
  ck_assert_float_eq_tol(m.points[0].separation, -0.5f, 1e-5f);
  assert_vec(m.points[0].point, 0.75f, 0.0f, 1e-5f);
  // a box 0.5 x 0.5 (half) overlapping a plank (2, 0.5) by 0.05: two points
  // at x = +-0.5, separation -0.05, normal up from the plank
  sn_shape_geometry plank = {.type = SN_SHAPE_POLYGON};
  sn_shape_geometry box = {.type = SN_SHAPE_POLYGON};
  ck_assert_int_eq(sn_make_box(2.0f, 0.5f, &plank.polygon), SN_OK);
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box.polygon), SN_OK);
  ck_assert_int_eq(sn_compute_manifold(&plank, identity, &box, xf_make(0.0f, 0.95f, 0.0f), &m), SN_OK);
  ck_assert_int_eq(m.point_count, 2);
  assert_vec(m.normal, 0.0f, 1.0f, 1e-6f);
  for (int i = 0; i < 2; ++i) {
    ck_assert_float_eq_tol(m.points[i].separation, -0.05f, 1e-5f);
    ck_assert_float_eq_tol(fabsf(m.points[i].point.x), 0.5f, 1e-5f);
  }
  // circle (A) over a polygon (B): the engine takes polygon first; the
  // normal is turned back to point from A to B (down)
  sn_shape_geometry ball = {.type = SN_SHAPE_CIRCLE, .circle = {{0.0f, 0.0f}, 0.5f}};
  ck_assert_int_eq(sn_compute_manifold(&ball, xf_make(0.0f, 0.9f, 0.0f), &plank, identity, &m), SN_OK);
  ck_assert_int_eq(m.point_count, 1);
  assert_vec(m.normal, 0.0f, -1.0f, 1e-6f);
  ck_assert_float_eq_tol(m.points[0].separation, -0.1f, 1e-5f);
  // capsule on a segment, 0.3 above it with radius 0.25: separation 0.05 (speculative)
  sn_shape_geometry seg = {.type = SN_SHAPE_SEGMENT, .segment = {{-5.0f, 0.0f}, {5.0f, 0.0f}}};
  sn_shape_geometry cap = {.type = SN_SHAPE_CAPSULE, .capsule = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.25f}};
  ck_assert_int_eq(sn_compute_manifold(&seg, identity, &cap, xf_make(0.0f, 0.26f, 0.0f), &m), SN_OK);
  ck_assert_int_eq(m.point_count, 2);
  ck_assert_float_eq_tol(m.points[0].separation, 0.01f, 1e-5f);
  // far apart: no points
  ck_assert_int_eq(sn_compute_manifold(&seg, identity, &cap, xf_make(0.0f, 3.0f, 0.0f), &m), SN_OK);
  ck_assert_int_eq(m.point_count, 0);
  // refusals: two segments, an unknown type, a bad polygon, NULL
  ck_assert_int_eq(sn_compute_manifold(&seg, identity, &seg, identity, &m), SN_ERR_INVALID_ARGUMENT);
  sn_shape_geometry chain = {.type = SN_SHAPE_CHAIN_SEGMENT};
  ck_assert_int_eq(sn_compute_manifold(&chain, identity, &ball, identity, &m), SN_ERR_INVALID_ARGUMENT);
  box.polygon.normals[0].x = 3.0f;
  ck_assert_int_ne(sn_compute_manifold(&box, identity, &ball, identity, &m), SN_OK);
  ck_assert_int_eq(sn_compute_manifold(NULL, identity, &ball, identity, &m), SN_ERR_NULL);
}
END_TEST

/* ------------------------------------------------------------ plane solver */

static sn_collision_plane plane(float nx, float ny, float separation) {
  sn_collision_plane p = {{nx, ny}, separation, FLT_MAX, 0.0f, true};
  return p;
}

START_TEST(test_solve_planes) {
  sn_plane_solver_result r;
  // ground (0, 1) touching: the wanted (1, -0.5) loses its downward part,
  // pushed 0.5
  sn_collision_plane p[3] = {plane(0.0f, 1.0f, 0.0f)};
  ck_assert_int_eq(sn_solve_planes((sn_vec2){1.0f, -0.5f}, p, 1, &r), SN_OK);
  assert_vec(r.translation, 1.0f, 0.0f, 1e-6f);
  ck_assert_float_eq_tol(p[0].push, 0.5f, 1e-6f);
  // ground 0.1 below and overlapping by 0.1: the translation lifts to gap 0
  p[0] = plane(0.0f, 1.0f, -0.1f);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, 1, &r), SN_OK);
  assert_vec(r.translation, 0.0f, 0.1f, 1e-6f);
  // a gap is kept: nothing pulls the mover towards a plane
  p[0] = plane(0.0f, 1.0f, 0.2f);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.3f, -0.1f}, p, 1, &r), SN_OK);
  assert_vec(r.translation, 0.3f, -0.1f, 1e-6f);
  // corner of ground and a wall facing -x: (1, -1) stops
  p[0] = plane(0.0f, 1.0f, 0.0f);
  p[1] = plane(-1.0f, 0.0f, 0.0f);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){1.0f, -1.0f}, p, 2, &r), SN_OK);
  assert_vec(r.translation, 0.0f, 0.0f, 1e-4f);
  ck_assert_int_ge(r.iteration_count, 1);
  // a push limit of 0.1 lets the mover 0.4 into the plane
  p[0] = plane(0.0f, 1.0f, 0.0f);
  p[0].push_limit = 0.1f;
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, -0.5f}, p, 1, &r), SN_OK);
  assert_vec(r.translation, 0.0f, -0.4f, 1e-6f);
  // two slopes of a V (normals (+-sin 30, cos 30)): the wanted fall stops in it
  float s = 0.5f, c = sqrtf(3.0f) / 2.0f;
  p[0] = plane(s, c, 0.0f);
  p[1] = plane(-s, c, 0.0f);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, -1.0f}, p, 2, &r), SN_OK);
  assert_vec(r.translation, 0.0f, 0.0f, 1e-4f);
  // no planes: the target as it is
  ck_assert_int_eq(sn_solve_planes((sn_vec2){2.0f, 3.0f}, NULL, 0, &r), SN_OK);
  assert_vec(r.translation, 2.0f, 3.0f, 0.0f);
}
END_TEST

START_TEST(test_clip_vector) {
  sn_vec2 v;
  sn_collision_plane p[2] = {plane(0.0f, 1.0f, 0.0f), plane(-1.0f, 0.0f, 0.0f)};
  // ground: the fall goes, the run stays
  ck_assert_int_eq(sn_clip_vector((sn_vec2){3.0f, -2.0f}, p, 1, &v), SN_OK);
  assert_vec(v, 3.0f, 0.0f, 0.0f);
  // wall facing -x: running into it stops, the jump stays (tangential part)
  ck_assert_int_eq(sn_clip_vector((sn_vec2){2.0f, 1.0f}, p + 1, 1, &v), SN_OK);
  assert_vec(v, 0.0f, 1.0f, 0.0f);
  // moving away from a plane is kept whole
  ck_assert_int_eq(sn_clip_vector((sn_vec2){-2.0f, 1.0f}, p, 2, &v), SN_OK);
  assert_vec(v, -2.0f, 1.0f, 0.0f);
  // a plane with clip_velocity false is ignored
  p[0].clip_velocity = false;
  ck_assert_int_eq(sn_clip_vector((sn_vec2){3.0f, -2.0f}, p, 1, &v), SN_OK);
  assert_vec(v, 3.0f, -2.0f, 0.0f);
  // a wedge of two slopes at 60 degrees to each other stops a fall into it
  float s = 0.5f, c = sqrtf(3.0f) / 2.0f;
  p[0] = plane(s, c, 0.0f);
  p[1] = plane(-s, c, 0.0f);
  ck_assert_int_eq(sn_clip_vector((sn_vec2){0.3f, -2.0f}, p, 2, &v), SN_OK);
  ck_assert_float_ge(v.x * p[0].normal.x + v.y * p[0].normal.y, -1e-5f);
  ck_assert_float_ge(v.x * p[1].normal.x + v.y * p[1].normal.y, -1e-5f);
  ck_assert_float_le(fabsf(v.x) + fabsf(v.y), 1e-5f);
}
END_TEST

START_TEST(test_plane_refusals) {
  sn_plane_solver_result r = {{9.0f, 9.0f}, 9};
  sn_vec2 v = {9.0f, 9.0f};
  sn_collision_plane p[1] = {plane(0.0f, 1.0f, 0.0f)};
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, -1, &r), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, NULL, 1, &r), SN_ERR_NULL);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, 1, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){NAN, 0.0f}, p, 1, &r), SN_ERR_NOT_FINITE);
  p[0].normal = (sn_vec2){0.0f, 2.0f};
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, 1, &r), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_clip_vector((sn_vec2){0.0f, 0.0f}, p, 1, &v), SN_ERR_INVALID_ARGUMENT);
  p[0] = plane(0.0f, 1.0f, NAN);
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, 1, &r), SN_ERR_NOT_FINITE);
  p[0] = plane(0.0f, 1.0f, 0.0f);
  p[0].push_limit = -1.0f;
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, p, 1, &r), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_clip_vector((sn_vec2){INFINITY, 0.0f}, p, 0, &v), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_clip_vector((sn_vec2){0.0f, 0.0f}, p, 0, NULL), SN_ERR_NULL);
  // outputs untouched on error
  ck_assert_int_eq(r.iteration_count, 9);
  ck_assert_float_eq(v.x, 9.0f);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("collision_api");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_ray_circle_closed_form);
  tcase_add_test(tc, test_ray_capsule_polygon_segment);
  tcase_add_test(tc, test_ray_refusals);
  tcase_add_test(tc, test_distance_witness_points);
  tcase_add_test(tc, test_proxy_refusals);
  tcase_add_test(tc, test_shape_cast_closed_forms);
  tcase_add_test(tc, test_manifold_closed_forms);
  tcase_add_test(tc, test_solve_planes);
  tcase_add_test(tc, test_clip_vector);
  tcase_add_test(tc, test_plane_refusals);
  suite_add_tcase(s, tc);
  return s;
}
