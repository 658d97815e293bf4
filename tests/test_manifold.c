/* Contact manifolds: every supported shape pair against hand-computed points,
 * normals and separations; reference/incident edge choice and clipping;
 * feature-id persistence; speculative distance; one-sided smooth chains.
 * Tolerance: 1e-5 m on unit-sized shapes unless a check says otherwise. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#include "collision/manifold.h"
#include "geometry/geometry.h"
#include "base/constants.h"
#include "base/math.h"

#define TOL   1.0e-5f
#define SQRT2 1.41421356f
#define PI_F  3.14159265f

#define ck_assert_near(a, b, tol)                                                                                      \
  ck_assert_msg(fabsf((float)(a) - (float)(b)) <= (tol), "%s = %.9g, expected %.9g (tol %g)", #a, (double)(a),         \
                (double)(b), (double)(tol))

static sn_transform xf_make(float x, float y, float angle) {
  return (sn_transform){{x, y}, {cosf(angle), sinf(angle)}};
}

static sn_polygon box(float hx, float hy) {
  sn_polygon p;
  ck_assert_int_eq(sn_make_box(hx, hy, &p), SN_OK);
  return p;
}

static sn_polygon rounded_box(float hx, float hy, float r) {
  sn_polygon p;
  ck_assert_int_eq(sn_make_rounded_box(hx, hy, r, &p), SN_OK);
  return p;
}

/// Checks point, separation and the anchor contract of one manifold point.
static void check_point(const sn_manifold_point *p, sn_transform xa, sn_transform xb, float x, float y, float sep,
                        float tol) {
  ck_assert_near(p->point.x, x, tol);
  ck_assert_near(p->point.y, y, tol);
  ck_assert_near(p->separation, sep, tol);
  ck_assert_near(p->anchor_a.x, p->point.x - xa.p.x, 1.0e-5f);
  ck_assert_near(p->anchor_a.y, p->point.y - xa.p.y, 1.0e-5f);
  ck_assert_near(p->anchor_b.x, p->point.x - xb.p.x, 1.0e-5f);
  ck_assert_near(p->anchor_b.y, p->point.y - xb.p.y, 1.0e-5f);
  ck_assert_near(p->normal_impulse, 0.0f, 0.0f);
  ck_assert_near(p->tangent_impulse, 0.0f, 0.0f);
}

static void check_normal(const sn_manifold *m, float x, float y) {
  ck_assert_near(m->normal.x, x, TOL);
  ck_assert_near(m->normal.y, y, TOL);
}

/// Point of m with the given id (fails if absent).
static const sn_manifold_point *point_with_id(const sn_manifold *m, uint16_t id) {
  for (int i = 0; i < m->point_count; ++i) {
    if (m->points[i].id == id) return m->points + i;
  }
  ck_abort_msg("no point with id 0x%04x", id);
  return NULL;
}

/// Point of m with the smaller x (for two-point manifolds).
static const sn_manifold_point *left_point(const sn_manifold *m) {
  if (m->point_count < 2 || m->points[0].point.x <= m->points[1].point.x) return m->points;
  return m->points + 1;
}

static const sn_manifold_point *right_point(const sn_manifold *m) {
  if (m->point_count < 2 || m->points[0].point.x > m->points[1].point.x) return m->points;
  return m->points + 1;
}

/* --------------------------------------------------- circles and capsules */

START_TEST(test_circles) {
  // r 1 at the origin, r 0.5 at x = 1.4: overlap 0.1, surfaces at x = 1 and
  // 0.9, point midway at 0.95
  sn_circle a = {{0.0f, 0.0f}, 1.0f}, b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(1.4f, 0, 0);
  sn_manifold m = sn_collide_circles(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 1.0f, 0.0f);
  check_point(&m.points[0], xa, xb, 0.95f, 0.0f, -0.1f, TOL);
  ck_assert_near(m.points[0].anchor_b.x, -0.45f, TOL);

  // A's centre is off its origin and A is turned 90 degrees: world centre
  // (2, 3) + R90 (0.5, 0) = (2, 3.5); B 1.4 above it
  a.center = sn_v2(0.5f, 0.0f);
  xa = xf_make(2.0f, 3.0f, 0.5f * PI_F);
  xb = xf_make(2.0f, 4.9f, 0.3f);
  m = sn_collide_circles(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 2.0f, 4.45f, -0.1f, TOL);

  // speculative: 0.01 apart gives a point at +0.01, 0.05 apart none
  xb = xf_make(2.0f, 3.5f + 1.5f + 0.01f, 0);
  m = sn_collide_circles(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  xb = xf_make(2.0f, 3.5f + 1.5f + 0.05f, 0);
  m = sn_collide_circles(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_capsule_circle) {
  sn_capsule a = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.25f};
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0);
  // above the core at x = 0.5: centre 0.7 up, surfaces at 0.25 and 0.2
  sn_transform xb = xf_make(0.5f, 0.7f, 0);
  sn_manifold m = sn_collide_capsule_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 0.5f, 0.225f, -0.05f, TOL);
  // beyond the end cap: centre (1.3, 0.4), 0.5 from (1, 0) along (0.6, 0.8);
  // surfaces (1.15, 0.2) and (1.0, 0.0)
  xb = xf_make(1.3f, 0.4f, 0);
  m = sn_collide_capsule_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.6f, 0.8f);
  check_point(&m.points[0], xa, xb, 1.075f, 0.1f, -0.25f, TOL);
  // far: none
  xb = xf_make(1.6f, 0.8f, 0);
  m = sn_collide_capsule_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_capsules) {
  sn_capsule a = {{-1.0f, 0.0f}, {1.0f, 0.0f}, 0.25f};
  sn_capsule b = {{0.0f, 0.0f}, {2.0f, 0.0f}, 0.25f};
  sn_transform xa = xf_make(0, 0, 0);
  // parallel, cores 0.45 apart, overlapping for x in [0, 1]: two points
  sn_transform xb = xf_make(0.0f, 0.45f, 0);
  sn_manifold m = sn_collide_capsules(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, 0.0f, 0.225f, -0.05f, TOL);
  check_point(right_point(&m), xa, xb, 1.0f, 0.225f, -0.05f, TOL);
  ck_assert_int_ne(m.points[0].id, m.points[1].id);

  // the same seen in a turned and shifted frame
  sn_transform base = xf_make(3.0f, -2.0f, 1.1f);
  sn_manifold m2 = sn_collide_capsules(&a, base, &b, sn_mul_transforms(base, xb));
  ck_assert_int_eq(m2.point_count, 2);
  sn_vec2 n_local = sn_inv_rotate(base.q, m2.normal);
  ck_assert_near(n_local.x, 0.0f, TOL);
  ck_assert_near(n_local.y, 1.0f, TOL);
  for (int i = 0; i < 2; ++i) {
    sn_vec2 p = sn_inv_transform_point(base, m2.points[i].point);
    ck_assert_near(p.y, 0.225f, 4.0f * TOL);
    ck_assert_near(m2.points[i].separation, -0.05f, 4.0f * TOL);
  }

  // crossing at right angles: B vertical at x = 0.3, starting 0.4 up
  sn_capsule v = {{0.0f, 0.0f}, {0.0f, 2.0f}, 0.25f};
  xb = xf_make(0.3f, 0.4f, 0);
  m = sn_collide_capsules(&a, xa, &v, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 0.3f, 0.2f, -0.1f, TOL);

  // collinear end to end: cores 0.3 apart, surfaces at x = 1.25 and 1.05
  xb = xf_make(1.3f, 0.0f, 0);
  m = sn_collide_capsules(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 1.0f, 0.0f);
  check_point(&m.points[0], xa, xb, 1.15f, 0.0f, -0.2f, TOL);

  // speculative
  xb = xf_make(0.0f, 0.51f, 0);
  m = sn_collide_capsules(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  xb = xf_make(0.0f, 0.55f, 0);
  m = sn_collide_capsules(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_segment_circle) {
  sn_segment a = {{-1.0f, 0.0f}, {1.0f, 0.0f}};
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0);
  sn_transform xb = xf_make(0.2f, 0.49f, 0);
  sn_manifold m = sn_collide_segment_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 0.2f, -0.005f, -0.01f, TOL);
  // two-sided: from below
  xb = xf_make(0.2f, -0.49f, 0);
  m = sn_collide_segment_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, -1.0f);
  check_point(&m.points[0], xa, xb, 0.2f, 0.005f, -0.01f, TOL);
}
END_TEST

START_TEST(test_segment_capsule) {
  sn_segment a = {{-2.0f, 0.0f}, {2.0f, 0.0f}};
  sn_capsule b = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.0f, 0.24f, 0);
  sn_manifold m = sn_collide_segment_and_capsule(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.5f, -0.005f, -0.01f, TOL);
  check_point(right_point(&m), xa, xb, 0.5f, -0.005f, -0.01f, TOL);
}
END_TEST

/* ------------------------------------------------------------- polygons */

START_TEST(test_segment_polygon) {
  sn_segment a = {{-2.0f, 0.0f}, {2.0f, 0.0f}};
  sn_polygon b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.0f, 0.49f, 0);
  sn_manifold m = sn_collide_segment_and_polygon(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.5f, -0.005f, -0.01f, TOL);
  check_point(right_point(&m), xa, xb, 0.5f, -0.005f, -0.01f, TOL);

  // through the dispatcher as (polygon, segment): normal from the polygon to the segment
  sn_geometry gp = {.type = SN_SHAPE_POLYGON, .polygon = b};
  sn_geometry gs = {.type = SN_SHAPE_SEGMENT, .segment = a};
  ck_assert(sn_collide_supported(SN_SHAPE_POLYGON, SN_SHAPE_SEGMENT));
  ck_assert(!sn_collide_supported(SN_SHAPE_SEGMENT, SN_SHAPE_POLYGON));
  sn_manifold f = sn_collide(&gp, xb, &gs, xa, NULL);
  ck_assert_int_eq(f.point_count, 2);
  check_normal(&f, 0.0f, -1.0f);
  check_point(left_point(&f), xb, xa, -0.5f, -0.005f, -0.01f, TOL);
  check_point(right_point(&f), xb, xa, 0.5f, -0.005f, -0.01f, TOL);
}
END_TEST

START_TEST(test_polygon_circle) {
  sn_polygon a = box(1.0f, 1.0f);
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0);
  // face region: surfaces y = 1 and 0.9
  sn_transform xb = xf_make(0.0f, 1.4f, 0);
  sn_manifold m = sn_collide_polygon_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 0.0f, 0.95f, -0.1f, TOL);
  // vertex region: centre (1.3, 1.4) is 0.5 from the corner (1, 1): touching
  xb = xf_make(1.3f, 1.4f, 0);
  m = sn_collide_polygon_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.6f, 0.8f);
  check_point(&m.points[0], xa, xb, 1.0f, 1.0f, 0.0f, TOL);
  // centre inside: the nearest face pushes it out (top face, 0.5 deep)
  xb = xf_make(0.2f, 0.5f, 0);
  m = sn_collide_polygon_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  ck_assert_near(m.points[0].separation, -1.0f, TOL);
  // rounded box (r 0.1): surfaces y = 1.1 and 1.0
  sn_polygon r = rounded_box(1.0f, 1.0f, 0.1f);
  xb = xf_make(0.0f, 1.5f, 0);
  m = sn_collide_polygon_and_circle(&r, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_point(&m.points[0], xa, xb, 0.0f, 1.05f, -0.1f, TOL);
  // speculative
  xb = xf_make(0.0f, 1.51f, 0);
  m = sn_collide_polygon_and_circle(&a, xa, &b, xb);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  xb = xf_make(0.0f, 1.55f, 0);
  m = sn_collide_polygon_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_polygon_capsule) {
  sn_polygon a = box(1.0f, 1.0f);
  sn_capsule b = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
  sn_transform xa = xf_make(0, 0, 0);
  // lying flat: core 0.24 above the face, surfaces y = 1 and 0.99
  sn_transform xb = xf_make(0.0f, 1.24f, 0);
  sn_manifold m = sn_collide_polygon_and_capsule(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.5f, 0.995f, -0.01f, TOL);
  check_point(right_point(&m), xa, xb, 0.5f, 0.995f, -0.01f, TOL);
  // tilted 30 degrees: only the low end (x = -0.5 cos 30) touches
  float c30 = cosf(PI_F / 6.0f), s30 = sinf(PI_F / 6.0f);
  xb = xf_make(0.0f, 1.0f + 0.25f + 0.5f * s30 - 0.01f, PI_F / 6.0f);
  m = sn_collide_polygon_and_capsule(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, -0.5f * c30, 0.995f, -0.01f, TOL);
  // deep (cores overlap): SAT on the cores, still the face normal
  xb = xf_make(0.2f, 0.95f, 0);
  m = sn_collide_polygon_and_capsule(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  ck_assert_near(m.points[0].separation, -0.05f - 0.25f, TOL);
  // midway between the face (y = 1) and the capsule bottom (0.7)
  ck_assert_near(m.points[0].point.y, 0.85f, TOL);
}
END_TEST

START_TEST(test_box_resting) {
  // box (half 0.5) 0.005 into a wide ground (half 5 x 0.5); ground is the
  // reference (edge 2 = top, from vertex 2 on the right to vertex 3), B's
  // bottom edge (vertex 0 left, vertex 1 right) is incident. Ids pair the
  // vertices at each end: (A 2, B 1) on the right, (A 3, B 0) on the left.
  sn_polygon ground = box(5.0f, 0.5f), b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.3f, 0.995f, 0);
  sn_manifold m = sn_collide_polygons(&ground, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(point_with_id(&m, SN_MAKE_ID(3, 0)), xa, xb, -0.2f, 0.4975f, -0.005f, TOL);
  check_point(point_with_id(&m, SN_MAKE_ID(2, 1)), xa, xb, 0.8f, 0.4975f, -0.005f, TOL);
}
END_TEST

START_TEST(test_box_tilted_on_flat) {
  // B (half 0.5) turned by 0.01 rad; its lowest corner (local (-0.5,-0.5)) is
  // 0.01 into A's top face; the other bottom corner is sin(0.01) higher.
  const float th = 0.01f, c = cosf(th), s = sinf(th);
  sn_polygon a = box(2.0f, 0.5f), b = box(0.5f, 0.5f);
  sn_vec2 centre = {0.2f, 0.5f + 0.5f * s + 0.5f * c - 0.01f};
  sn_transform xa = xf_make(0, 0, 0), xb = {centre, {c, s}};
  sn_vec2 low = {centre.x - 0.5f * c + 0.5f * s, 0.49f};             // B vertex 0: -0.2949751, 0.49
  sn_vec2 high = {centre.x + 0.5f * c + 0.5f * s, 0.49f + 1.0f * s}; // B vertex 1: 0.7049749, 0.4999998
  sn_manifold m = sn_collide_polygons(&a, xa, &b, xb);
  // reference: A's top edge (index 2), so the normal is exactly +y and not
  // B's tilted face normal; incident: B's bottom edge (vertices 0, 1)
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  const sn_manifold_point *p0 = point_with_id(&m, SN_MAKE_ID(3, 0));
  const sn_manifold_point *p1 = point_with_id(&m, SN_MAKE_ID(2, 1));
  check_point(p0, xa, xb, low.x, 0.5f * (low.y + 0.5f), low.y - 0.5f, TOL);
  check_point(p1, xa, xb, high.x, 0.5f * (high.y + 0.5f), high.y - 0.5f, TOL);
  ck_assert_near(p0->point.x, -0.2949751f, 2.0f * TOL);
  ck_assert_near(p1->point.x, 0.7049749f, 2.0f * TOL);

  // roles swapped: the tilted box is A, the flat box B is still the
  // reference (normal exactly -y); ids are (A vertex, B vertex)
  sn_manifold f = sn_collide_polygons(&b, xb, &a, xa);
  ck_assert_int_eq(f.point_count, 2);
  check_normal(&f, 0.0f, -1.0f);
  const sn_manifold_point *q0 = point_with_id(&f, SN_MAKE_ID(0, 3));
  const sn_manifold_point *q1 = point_with_id(&f, SN_MAKE_ID(1, 2));
  check_point(q0, xb, xa, low.x, 0.5f * (low.y + 0.5f), low.y - 0.5f, TOL);
  check_point(q1, xb, xa, high.x, 0.5f * (high.y + 0.5f), high.y - 0.5f, TOL);

  // steeper tilt (0.1 rad): the high corner is 0.09 up, beyond the
  // speculative distance, so one point
  const float th2 = 0.1f, c2 = cosf(th2), s2 = sinf(th2);
  xb = (sn_transform){{0.2f, 0.5f + 0.5f * s2 + 0.5f * c2 - 0.01f}, {c2, s2}};
  m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  ck_assert_int_eq(m.points[0].id, SN_MAKE_ID(3, 0));
  check_point(&m.points[0], xa, xb, 0.2f - 0.5f * c2 + 0.5f * s2, 0.495f, -0.01f, TOL);
}
END_TEST

START_TEST(test_box_overhang_clipped) {
  // B's bottom spans x in [0.7, 1.7]; A's top face ends at x = 1: the
  // incident edge is clipped by the side plane x = 1
  sn_polygon a = box(1.0f, 0.5f), b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(1.2f, 0.99f, 0);
  sn_manifold m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(point_with_id(&m, SN_MAKE_ID(3, 0)), xa, xb, 0.7f, 0.495f, -0.01f, TOL);
  check_point(point_with_id(&m, SN_MAKE_ID(2, 1)), xa, xb, 1.0f, 0.495f, -0.01f, TOL);
}
END_TEST

START_TEST(test_box_speculative) {
  sn_polygon a = box(1.0f, 0.5f), b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0);
  sn_manifold m = sn_collide_polygons(&a, xa, &b, xf_make(0.1f, 1.01f, 0));
  ck_assert_int_eq(m.point_count, 2);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  ck_assert_near(m.points[1].separation, 0.01f, TOL);
  check_normal(&m, 0.0f, 1.0f);
  m = sn_collide_polygons(&a, xa, &b, xf_make(0.1f, 1.05f, 0));
  ck_assert_int_eq(m.point_count, 0);
  // side by side, 0.01 apart horizontally
  m = sn_collide_polygons(&a, xa, &b, xf_make(1.51f, 0.0f, 0));
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 1.0f, 0.0f);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
}
END_TEST

START_TEST(test_box_feature_ids_persist) {
  // A box resting on a box, jittered by up to 1e-4 m and 1e-3 rad: the two
  // ids never change (both for a wide ground and for equal boxes, either order).
  srand(12345);
  const sn_polygon ground = box(5.0f, 0.5f), same = box(0.5f, 0.5f), b = box(0.5f, 0.5f);
  const sn_polygon *bases[2] = {&ground, &same};
  for (int base_index = 0; base_index < 2; ++base_index) {
    for (int order = 0; order < 2; ++order) {
      if (base_index == 0 && order == 1) continue; // small A on a wide B may switch faces (documented)
      const sn_polygon *bottom = bases[base_index];
      sn_transform x_bottom = xf_make(0, 0, 0), x_top0 = xf_make(0.1f, 0.997f, 0);
      sn_manifold m0 = order == 0 ? sn_collide_polygons(bottom, x_bottom, &b, x_top0)
                                  : sn_collide_polygons(&b, x_top0, bottom, x_bottom);
      ck_assert_int_eq(m0.point_count, 2);
      for (int k = 0; k < 100; ++k) {
        float dx = 2.0e-4f * ((float)rand() / (float)RAND_MAX - 0.5f);
        float dy = 2.0e-4f * ((float)rand() / (float)RAND_MAX - 0.5f);
        float da = 2.0e-3f * ((float)rand() / (float)RAND_MAX - 0.5f);
        sn_transform x_top = xf_make(0.1f + dx, 0.997f + dy, da);
        sn_manifold m = order == 0 ? sn_collide_polygons(bottom, x_bottom, &b, x_top)
                                   : sn_collide_polygons(&b, x_top, bottom, x_bottom);
        ck_assert_int_eq(m.point_count, 2);
        for (int i = 0; i < 2; ++i) {
          ck_assert_msg(m.points[i].id == m0.points[0].id || m.points[i].id == m0.points[1].id,
                        "sample %d: id 0x%04x not in {0x%04x, 0x%04x}", k, m.points[i].id, m0.points[0].id,
                        m0.points[1].id);
        }
        ck_assert_int_ne(m.points[0].id, m.points[1].id);
        ck_assert(fabsf(m.normal.y) > 0.999f);
      }
    }
  }
}
END_TEST

START_TEST(test_reference_switch_keeps_ids) {
  // A box straddling the corner of another (offset 0.5, as in a pyramid)
  // while it rocks by +-3e-3 rad: the reference face switches between A's top
  // and B's bottom (seen in the normal), the two ids stay (A 2, B 1) and (A 3, B 0).
  sn_polygon a = box(0.5f, 0.5f), b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0);
  int a_reference = 0, b_reference = 0;
  for (int k = -30; k <= 30; ++k) {
    float angle = 1.0e-4f * (float)k;
    sn_transform xb = xf_make(0.5f, 0.998f, angle);
    sn_manifold m = sn_collide_polygons(&a, xa, &b, xb);
    ck_assert_int_eq(m.point_count, 2);
    if (m.normal.x == 0.0f)
      a_reference++;
    else
      b_reference++;
    point_with_id(&m, SN_MAKE_ID(2, 1));
    point_with_id(&m, SN_MAKE_ID(3, 0));
    // the right point is A's corner (x = 0.5), the left one B's (x = 0.5 - 0.5 cos +- 0.5 sin)
    ck_assert_near(right_point(&m)->point.x, 0.5f, 1.0e-3f);
    ck_assert_near(left_point(&m)->point.x, 0.0f, 2.0e-3f);
  }
  ck_assert_int_gt(a_reference, 0);
  ck_assert_int_gt(b_reference, 0);
}
END_TEST

START_TEST(test_rounded_polygons) {
  sn_polygon a = rounded_box(1.0f, 0.5f, 0.1f), b = rounded_box(0.5f, 0.5f, 0.1f);
  sn_transform xa = xf_make(0, 0, 0);
  // cores 0.19 apart, surfaces y = 0.6 and 0.59: GJK path, clipped to two points
  sn_transform xb = xf_make(0.0f, 1.19f, 0);
  sn_manifold m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(point_with_id(&m, SN_MAKE_ID(3, 0)), xa, xb, -0.5f, 0.595f, -0.01f, TOL);
  check_point(point_with_id(&m, SN_MAKE_ID(2, 1)), xa, xb, 0.5f, 0.595f, -0.01f, TOL);
  // cores overlap (B's core bottom at 0.45): SAT on the cores, radii subtracted;
  // midway between the surfaces 0.6 and 0.35; same ids as above
  xb = xf_make(0.0f, 0.95f, 0);
  m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_point(point_with_id(&m, SN_MAKE_ID(3, 0)), xa, xb, -0.5f, 0.475f, -0.25f, TOL);
  check_point(point_with_id(&m, SN_MAKE_ID(2, 1)), xa, xb, 0.5f, 0.475f, -0.25f, TOL);
  // corner to corner: core corners (0.5, 0.5) and (0.6, 0.6), one point on the diagonal
  sn_polygon c = rounded_box(0.5f, 0.5f, 0.1f);
  xb = xf_make(1.1f, 1.1f, 0);
  m = sn_collide_polygons(&c, xa, &c, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 1.0f / SQRT2, 1.0f / SQRT2);
  check_point(&m.points[0], xa, xb, 0.55f, 0.55f, 0.1f * SQRT2 - 0.2f, TOL);
  // speculative on rounded: surfaces 0.01 apart, then 0.05
  xb = xf_make(0.0f, 1.21f, 0);
  m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  xb = xf_make(0.0f, 1.25f, 0);
  m = sn_collide_polygons(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_hexagon_on_box) {
  // hexagon with a flat bottom (circumradius 1, apothem sqrt(3)/2) resting
  // 0.01 into a box: two points at x = +-0.5 (bottom edge)
  sn_vec2 pts[6];
  for (int i = 0; i < 6; ++i) {
    float ang = (float)i * PI_F / 3.0f;
    pts[i] = sn_v2(cosf(ang), sinf(ang));
  }
  sn_polygon hex;
  ck_assert_int_eq(sn_make_polygon(pts, 6, 0.0f, &hex), SN_OK);
  sn_polygon a = box(3.0f, 0.5f);
  float apothem = 0.5f * sqrtf(3.0f);
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.25f, 0.5f + apothem - 0.01f, 0);
  sn_manifold m = sn_collide_polygons(&a, xa, &hex, xb);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.25f, 0.495f, -0.01f, 2.0f * TOL);
  check_point(right_point(&m), xa, xb, 0.75f, 0.495f, -0.01f, 2.0f * TOL);
}
END_TEST

/* ------------------------------------------------------- chain segments */

static sn_chain_segment chain_segment(sn_vec2 g1, sn_vec2 p1, sn_vec2 p2, sn_vec2 g2) {
  sn_chain_segment c;
  c.ghost1 = g1;
  c.segment = (sn_segment){p1, p2};
  c.ghost2 = g2;
  c.chain_id = 0;
  return c;
}

/// Flat floor at y = 0 seen from above: the normal is the right
/// perpendicular of point1 -> point2, so the points run right to left.
static sn_chain_segment floor_segment(float x_right, float x_left, float step) {
  return chain_segment(sn_v2(x_right + step, 0), sn_v2(x_right, 0), sn_v2(x_left, 0), sn_v2(x_left - step, 0));
}

START_TEST(test_chain_circle) {
  sn_chain_segment a = floor_segment(1.0f, -1.0f, 1.0f);
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.2f, 0.49f, 0);
  sn_manifold m = sn_collide_chain_segment_and_circle(&a, xa, &b, xb);
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  check_point(&m.points[0], xa, xb, 0.2f, -0.005f, -0.01f, TOL);
  // one-sided: nothing from below
  m = sn_collide_chain_segment_and_circle(&a, xa, &b, xf_make(0.2f, -0.49f, 0));
  ck_assert_int_eq(m.point_count, 0);
  // beyond the end over a flat seam: the neighbour's business
  m = sn_collide_chain_segment_and_circle(&a, xa, &b, xf_make(1.3f, 0.45f, 0));
  ck_assert_int_eq(m.point_count, 0);
  // exactly over the seam vertex: face normal
  m = sn_collide_chain_segment_and_circle(&a, xa, &b, xf_make(1.0f, 0.49f, 0));
  ck_assert_int_eq(m.point_count, 1);
  check_normal(&m, 0.0f, 1.0f);
  ck_assert_near(m.points[0].separation, -0.01f, TOL);
}
END_TEST

START_TEST(test_chain_capsule) {
  sn_chain_segment a = floor_segment(2.0f, -2.0f, 1.0f);
  sn_capsule b = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.0f, 0.24f, 0);
  sn_manifold m = sn_collide_chain_segment_and_capsule(&a, xa, &b, xb, NULL);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.5f, -0.005f, -0.01f, TOL);
  check_point(right_point(&m), xa, xb, 0.5f, -0.005f, -0.01f, TOL);
  // with a cache, twice: same answer
  sn_simplex_cache cache = {0, {0, 0, 0}, {0, 0, 0}};
  sn_manifold c1 = sn_collide_chain_segment_and_capsule(&a, xa, &b, xb, &cache);
  sn_manifold c2 = sn_collide_chain_segment_and_capsule(&a, xa, &b, xb, &cache);
  ck_assert_int_eq(c1.point_count, 2);
  ck_assert_int_eq(c2.point_count, 2);
  ck_assert_int_eq(c1.points[0].id, c2.points[0].id);
  ck_assert_near(c1.points[0].separation, c2.points[0].separation, 1.0e-6f);
  // from below: nothing
  m = sn_collide_chain_segment_and_capsule(&a, xa, &b, xf_make(0.0f, -0.24f, 0), NULL);
  ck_assert_int_eq(m.point_count, 0);
}
END_TEST

START_TEST(test_chain_polygon) {
  sn_chain_segment a = floor_segment(2.0f, -2.0f, 1.0f);
  sn_polygon b = box(0.5f, 0.5f);
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.0f, 0.49f, 0);
  sn_manifold m = sn_collide_chain_segment_and_polygon(&a, xa, &b, xb, NULL);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, -0.5f, -0.005f, -0.01f, TOL);
  check_point(right_point(&m), xa, xb, 0.5f, -0.005f, -0.01f, TOL);
  // speculative 0.01 above, none at 0.05
  m = sn_collide_chain_segment_and_polygon(&a, xa, &b, xf_make(0.0f, 0.51f, 0), NULL);
  ck_assert_int_eq(m.point_count, 2);
  ck_assert_near(m.points[0].separation, 0.01f, TOL);
  m = sn_collide_chain_segment_and_polygon(&a, xa, &b, xf_make(0.0f, 0.55f, 0), NULL);
  ck_assert_int_eq(m.point_count, 0);
  // from below: nothing
  m = sn_collide_chain_segment_and_polygon(&a, xa, &b, xf_make(0.0f, -0.49f, 0), NULL);
  ck_assert_int_eq(m.point_count, 0);
  // straddling the right end (x = 2): only the part over this segment
  xb = xf_make(1.8f, 0.49f, 0);
  m = sn_collide_chain_segment_and_polygon(&a, xa, &b, xb, NULL);
  ck_assert_int_eq(m.point_count, 2);
  check_normal(&m, 0.0f, 1.0f);
  check_point(left_point(&m), xa, xb, 1.3f, -0.005f, -0.01f, TOL);
  ck_assert_near(right_point(&m)->point.x, 2.0f, TOL);
}
END_TEST

START_TEST(test_chain_sliding_box_no_snag) {
  // Flat floor of 0.25 m segments from x = 5 down to x = -5 (normal +y). A box
  // (half 0.5 x 0.25) slides along it: 0.003 deep, touching, or 0.01 above,
  // sampled every 2.5 mm and close around every seam. Every manifold normal
  // must be straight up and the box always supported by >= 2 points.
  enum { N = 40 };
  const float step = 0.25f;
  sn_chain_segment segs[N];
  for (int k = 0; k < N; ++k) {
    float x_right = 5.0f - step * (float)k;
    segs[k] = floor_segment(x_right, x_right - step, step);
  }
  sn_polygon b = box(0.5f, 0.25f);
  sn_simplex_cache caches[N];
  for (int k = 0; k < N; ++k) caches[k] = (sn_simplex_cache){0, {0, 0, 0}, {0, 0, 0}};
  const float heights[3] = {0.25f - 0.003f, 0.25f, 0.25f + 0.01f};
  const float angles[3] = {0.0f, 1.0e-4f, -1.0e-4f};
  const float nudges[7] = {0.0f, 1.0e-6f, -1.0e-6f, 1.0e-4f, -1.0e-4f, 2.0e-3f, -2.0e-3f};
  sn_transform xa = xf_make(0, 0, 0);
  int samples = 0;
  for (int h = 0; h < 3; ++h) {
    for (int r = 0; r < 3; ++r) {
      for (int i = 0; i <= 1600; ++i) {
        for (int j = 0; j < 7; ++j) {
          if (j > 0 && i % 100 != 0) continue; // nudges around every seam (every 0.25 m)
          float x = -2.0f + 0.0025f * (float)i + nudges[j];
          sn_transform xb = xf_make(x, heights[h], angles[r]);
          int points = 0;
          for (int k = 0; k < N; ++k) {
            sn_manifold m = sn_collide_chain_segment_and_polygon(&segs[k], xa, &b, xb, &caches[k]);
            if (m.point_count == 0) continue;
            points += m.point_count;
            ck_assert_msg(fabsf(m.normal.x) < 1.0e-3f && m.normal.y > 0.999f,
                          "snag at x = %.6f, height %.4f, angle %g: segment %d normal (%g, %g)", (double)x,
                          (double)heights[h], (double)angles[r], k, (double)m.normal.x, (double)m.normal.y);
            for (int p = 0; p < m.point_count; ++p) {
              ck_assert(m.points[p].separation < SN_SPECULATIVE_DISTANCE);
              ck_assert(m.points[p].separation > -0.004f);
            }
          }
          ck_assert_msg(points >= 2, "unsupported at x = %.6f (%d points)", (double)x, points);
          ++samples;
        }
      }
    }
  }
  ck_assert_int_gt(samples, 10000);
}
END_TEST

START_TEST(test_chain_sliding_round_shapes_no_snag) {
  // A lying capsule, a rounded box and a disc slide over the seams of a flat
  // chain (0.25 m segments): every normal is straight up, always supported.
  enum { N = 24 };
  const float step = 0.25f;
  sn_chain_segment segs[N];
  for (int k = 0; k < N; ++k) {
    float x_right = 3.0f - step * (float)k;
    segs[k] = floor_segment(x_right, x_right - step, step);
  }
  sn_geometry shapes[3];
  shapes[0].type = SN_SHAPE_CAPSULE;
  shapes[0].capsule = (sn_capsule){{-0.4f, 0.0f}, {0.4f, 0.0f}, 0.1f};
  shapes[1].type = SN_SHAPE_POLYGON;
  shapes[1].polygon = rounded_box(0.4f, 0.15f, 0.05f);
  shapes[2].type = SN_SHAPE_CIRCLE;
  shapes[2].circle = (sn_circle){{0.0f, 0.0f}, 0.3f};
  const float half_height[3] = {0.1f, 0.2f, 0.3f};
  sn_geometry ga = {.type = SN_SHAPE_CHAIN_SEGMENT};
  sn_transform xa = xf_make(0, 0, 0);
  for (int sh = 0; sh < 3; ++sh) {
    for (int h = 0; h < 2; ++h) {
      float y = half_height[sh] + (h == 0 ? -0.003f : 0.01f);
      for (int i = 0; i <= 800; ++i) {
        float x = -1.0f + 0.0025f * (float)i;
        sn_transform xb = xf_make(x, y, 0.0f);
        int points = 0;
        for (int k = 0; k < N; ++k) {
          ga.chain_segment = segs[k];
          sn_manifold m = sn_collide(&ga, xa, &shapes[sh], xb, NULL);
          if (m.point_count == 0) continue;
          points += m.point_count;
          ck_assert_msg(fabsf(m.normal.x) < 1.0e-3f && m.normal.y > 0.999f,
                        "shape %d snags at x = %.4f: normal (%g, %g)", sh, (double)x, (double)m.normal.x,
                        (double)m.normal.y);
        }
        ck_assert_msg(points >= 1, "shape %d unsupported at x = %.4f", sh, (double)x);
      }
    }
  }
}
END_TEST

START_TEST(test_chain_convex_corner) {
  // Hilltop at the origin: S0 runs up the right slope (1,-1) -> (0,0), S1
  // down the left slope (0,0) -> (-1,-1). Normals (1,1)/sqrt2 and (-1,1)/sqrt2.
  sn_chain_segment s0 = chain_segment(sn_v2(2, -2), sn_v2(1, -1), sn_v2(0, 0), sn_v2(-1, -1));
  sn_chain_segment s1 = chain_segment(sn_v2(1, -1), sn_v2(0, 0), sn_v2(-1, -1), sn_v2(-2, -2));
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0);
  // centre 0.49 from the top along (0.6, 0.8), closer to S0's normal, so S0
  // owns it and S1 stays silent
  sn_transform xb = xf_make(0.49f * 0.6f, 0.49f * 0.8f, 0);
  sn_manifold m0 = sn_collide_chain_segment_and_circle(&s0, xa, &b, xb);
  sn_manifold m1 = sn_collide_chain_segment_and_circle(&s1, xa, &b, xb);
  ck_assert_int_eq(m0.point_count, 1);
  ck_assert_int_eq(m1.point_count, 0);
  check_normal(&m0, 0.6f, 0.8f);
  ck_assert_near(m0.points[0].separation, -0.01f, TOL);
  // mirrored: S1 owns it
  xb = xf_make(-0.49f * 0.6f, 0.49f * 0.8f, 0);
  m0 = sn_collide_chain_segment_and_circle(&s0, xa, &b, xb);
  m1 = sn_collide_chain_segment_and_circle(&s1, xa, &b, xb);
  ck_assert_int_eq(m0.point_count, 0);
  ck_assert_int_eq(m1.point_count, 1);
  check_normal(&m1, -0.6f, 0.8f);

  // a box balanced on the hilltop, bottom 0.01 above it: a corner contact
  // with normal +y from at least one slope, nothing sideways
  sn_polygon box_b = box(0.5f, 0.5f);
  xb = xf_make(0.1f, 0.51f, 0);
  m0 = sn_collide_chain_segment_and_polygon(&s0, xa, &box_b, xb, NULL);
  m1 = sn_collide_chain_segment_and_polygon(&s1, xa, &box_b, xb, NULL);
  ck_assert_int_ge(m0.point_count + m1.point_count, 1);
  if (m0.point_count > 0) {
    check_normal(&m0, 0.0f, 1.0f);
    ck_assert_near(m0.points[0].separation, 0.01f, TOL);
  }
  if (m1.point_count > 0) check_normal(&m1, 0.0f, 1.0f);

  // a box lying on the right slope, turned 45 degrees to sit flat on it
  sn_vec2 n0 = {1.0f / SQRT2, 1.0f / SQRT2};
  sn_vec2 on = {0.5f, -0.5f};
  xb = (sn_transform){sn_mul_add(on, 0.5f - 0.01f, n0), {cosf(PI_F / 4.0f), sinf(PI_F / 4.0f)}};
  m0 = sn_collide_chain_segment_and_polygon(&s0, xa, &box_b, xb, NULL);
  ck_assert_int_eq(m0.point_count, 2);
  check_normal(&m0, n0.x, n0.y);
  ck_assert_near(m0.points[0].separation, -0.01f, TOL);
  ck_assert_near(m0.points[1].separation, -0.01f, TOL);
}
END_TEST

START_TEST(test_chain_concave_corner) {
  // V valley at the origin: S0 comes down the right side (1,1) -> (0,0),
  // S1 goes up the left (0,0) -> (-1,1). Normals (-1,1)/sqrt2 and (1,1)/sqrt2.
  sn_chain_segment s0 = chain_segment(sn_v2(2, 2), sn_v2(1, 1), sn_v2(0, 0), sn_v2(-1, 1));
  sn_chain_segment s1 = chain_segment(sn_v2(1, 1), sn_v2(0, 0), sn_v2(-1, 1), sn_v2(-2, 2));
  // a circle sitting in the valley touches both faces with the face normals
  sn_circle b = {{0.0f, 0.0f}, 0.5f};
  sn_transform xa = xf_make(0, 0, 0), xb = xf_make(0.0f, 0.5f * SQRT2 - 0.01f, 0);
  sn_manifold m0 = sn_collide_chain_segment_and_circle(&s0, xa, &b, xb);
  sn_manifold m1 = sn_collide_chain_segment_and_circle(&s1, xa, &b, xb);
  ck_assert_int_eq(m0.point_count, 1);
  ck_assert_int_eq(m1.point_count, 1);
  check_normal(&m0, -1.0f / SQRT2, 1.0f / SQRT2);
  check_normal(&m1, 1.0f / SQRT2, 1.0f / SQRT2);
  ck_assert_near(m0.points[0].separation, -0.01f / SQRT2, TOL);
  // a box wedged in the valley: each face pushes along its own normal
  sn_polygon box_b = box(0.3f, 0.3f);
  xb = xf_make(0.0f, 0.3f * SQRT2 - 0.005f, PI_F / 4.0f);
  m0 = sn_collide_chain_segment_and_polygon(&s0, xa, &box_b, xb, NULL);
  m1 = sn_collide_chain_segment_and_polygon(&s1, xa, &box_b, xb, NULL);
  ck_assert_int_ge(m0.point_count, 1);
  ck_assert_int_ge(m1.point_count, 1);
  check_normal(&m0, -1.0f / SQRT2, 1.0f / SQRT2);
  check_normal(&m1, 1.0f / SQRT2, 1.0f / SQRT2);
}
END_TEST

/* ------------------------------------------------------------- dispatch */

START_TEST(test_dispatch_table) {
  // a new shape kind needs a row and a column in each table below
  _Static_assert(SN_SHAPE_TYPE_COUNT == 5, "the tables of this test name every shape kind");
  // exactly the pairs sn_collide handles, in this order
  const bool expect[SN_SHAPE_TYPE_COUNT][SN_SHAPE_TYPE_COUNT] = {
      /* circle  */ {true, false, false, false, false},
      /* capsule */ {true, true, false, false, false},
      /* segment */ {true, true, false, false, false},
      /* polygon */ {true, true, true, true, false},
      /* chain   */ {true, true, false, true, false},
  };
  for (int a = 0; a < SN_SHAPE_TYPE_COUNT; ++a) {
    for (int b = 0; b < SN_SHAPE_TYPE_COUNT; ++b) {
      ck_assert_msg(sn_collide_supported((sn_shape_type)a, (sn_shape_type)b) == expect[a][b], "pair (%d, %d)", a, b);
    }
  }

  // every supported pair through sn_collide: overlapping shapes give points,
  // and the normal points from A to B (B is above A)
  sn_geometry g[SN_SHAPE_TYPE_COUNT];
  g[SN_SHAPE_CIRCLE].type = SN_SHAPE_CIRCLE;
  g[SN_SHAPE_CIRCLE].circle = (sn_circle){{0.0f, 0.0f}, 0.5f};
  g[SN_SHAPE_CAPSULE].type = SN_SHAPE_CAPSULE;
  g[SN_SHAPE_CAPSULE].capsule = (sn_capsule){{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.5f};
  g[SN_SHAPE_SEGMENT].type = SN_SHAPE_SEGMENT;
  g[SN_SHAPE_SEGMENT].segment = (sn_segment){{-1.0f, 0.0f}, {1.0f, 0.0f}};
  g[SN_SHAPE_POLYGON].type = SN_SHAPE_POLYGON;
  g[SN_SHAPE_POLYGON].polygon = box(0.5f, 0.5f);
  g[SN_SHAPE_CHAIN_SEGMENT].type = SN_SHAPE_CHAIN_SEGMENT;
  g[SN_SHAPE_CHAIN_SEGMENT].chain_segment = floor_segment(1.0f, -1.0f, 1.0f);
  // B is placed so that its lowest point is 0.01 below A's highest point
  const float top[SN_SHAPE_TYPE_COUNT] = {0.5f, 0.5f, 0.0f, 0.5f, 0.0f};
  const float bottom[SN_SHAPE_TYPE_COUNT] = {0.5f, 0.5f, 0.0f, 0.5f, 0.0f};
  for (int a = 0; a < SN_SHAPE_TYPE_COUNT; ++a) {
    for (int b = 0; b < SN_SHAPE_TYPE_COUNT; ++b) {
      if (!sn_collide_supported((sn_shape_type)a, (sn_shape_type)b)) continue;
      sn_transform xa = xf_make(0.0f, 0.0f, 0.0f), xb = xf_make(0.0f, top[a] + bottom[b] - 0.01f, 0.0f);
      sn_simplex_cache cache = {0, {0, 0, 0}, {0, 0, 0}};
      sn_manifold m = sn_collide(&g[a], xa, &g[b], xb, &cache);
      ck_assert_msg(m.point_count >= 1, "pair (%d, %d): no points", a, b);
      ck_assert_msg(fabsf(m.normal.x) < TOL && fabsf(m.normal.y - 1.0f) < TOL, "pair (%d, %d): normal (%g, %g)", a, b,
                    (double)m.normal.x, (double)m.normal.y);
      for (int i = 0; i < m.point_count; ++i) {
        ck_assert_msg(fabsf(m.points[i].separation + 0.01f) < TOL, "pair (%d, %d): separation %g", a, b,
                      (double)m.points[i].separation);
        check_point(&m.points[i], xa, xb, m.points[i].point.x, top[a] - 0.005f, -0.01f, TOL);
      }
    }
  }
}
END_TEST

START_TEST(test_large_coordinates) {
  // the same resting box far from the origin, A turned: same local numbers
  sn_polygon ground = box(5.0f, 0.5f), b = box(0.5f, 0.5f);
  sn_transform base = xf_make(1000.0f, -2000.0f, 0.7f);
  sn_transform xb = sn_mul_transforms(base, xf_make(0.3f, 0.995f, 0));
  sn_manifold m = sn_collide_polygons(&ground, base, &b, xb);
  ck_assert_int_eq(m.point_count, 2);
  const sn_manifold_point *p = point_with_id(&m, SN_MAKE_ID(2, 1));
  ck_assert_near(p->separation, -0.005f, 1.0e-4f);
  sn_vec2 local = sn_inv_rotate(base.q, p->anchor_a);
  ck_assert_near(local.x, 0.8f, 1.0e-4f);
  ck_assert_near(local.y, 0.4975f, 1.0e-4f);
}
END_TEST

/// Uniform float in [lo, hi) from rand().
static float frand(float lo, float hi) { return lo + (hi - lo) * ((float)rand() / ((float)RAND_MAX + 1.0f)); }

/// A random shape of the given type, about a metre across.
static sn_geometry random_geometry(sn_shape_type type) {
  sn_geometry g;
  memset(&g, 0, sizeof g);
  g.type = type;
  switch (type) {
  case SN_SHAPE_CIRCLE:
    g.circle = (sn_circle){{frand(-0.2f, 0.2f), frand(-0.2f, 0.2f)}, frand(0.05f, 0.6f)};
    break;
  case SN_SHAPE_CAPSULE:
    g.capsule = (sn_capsule){
        {frand(-0.6f, -0.1f), frand(-0.2f, 0.2f)}, {frand(0.1f, 0.6f), frand(-0.2f, 0.2f)}, frand(0.05f, 0.4f)};
    break;
  case SN_SHAPE_SEGMENT:
    g.segment = (sn_segment){{frand(-1.0f, -0.2f), frand(-0.3f, 0.3f)}, {frand(0.2f, 1.0f), frand(-0.3f, 0.3f)}};
    break;
  case SN_SHAPE_POLYGON: {
    sn_vec2 pts[8];
    int n = 3 + rand() % 6;
    for (int i = 0; i < n; ++i) {
      float ang = 6.2831853f * ((float)i + frand(0.1f, 0.9f)) / (float)n;
      float r = frand(0.3f, 0.7f);
      pts[i] = sn_v2(r * cosf(ang), r * sinf(ang));
    }
    float radius = (rand() % 3 == 0) ? frand(0.02f, 0.2f) : 0.0f;
    if (sn_compute_hull(pts, n, radius, &g.polygon) != SN_OK)
      ck_assert_int_eq(sn_make_box(0.4f, 0.3f, &g.polygon), SN_OK);
    break;
  }
  case SN_SHAPE_CHAIN_SEGMENT: {
    // a segment along -x (normal +y) with random bends at both ends
    float x1 = frand(0.3f, 1.0f), x2 = frand(-1.0f, -0.3f);
    g.chain_segment.segment = (sn_segment){{x1, 0.0f}, {x2, 0.0f}};
    g.chain_segment.ghost1 = sn_v2(x1 + frand(0.2f, 1.0f), frand(-0.8f, 0.8f));
    g.chain_segment.ghost2 = sn_v2(x2 - frand(0.2f, 1.0f), frand(-0.8f, 0.8f));
    break;
  }
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return g;
}

START_TEST(test_random_pairs_are_sane) {
  // Random shapes of every supported pair at random poses: finite output, at
  // most two points below the speculative distance, unit normal, consistent
  // anchors; shapes closer than half the speculative distance always give a
  // contact (two-sided pairs); the
  // normal agrees with the GJK direction from A to B when they are apart;
  // chains never push towards their solid side.
  srand(2024);
  int checked = 0, touching = 0, near_band = 0;
  for (int ta = 0; ta < SN_SHAPE_TYPE_COUNT; ++ta) {
    for (int tb = 0; tb < SN_SHAPE_TYPE_COUNT; ++tb) {
      if (!sn_collide_supported((sn_shape_type)ta, (sn_shape_type)tb)) continue;
      for (int k = 0; k < 3000; ++k) {
        sn_geometry a = random_geometry((sn_shape_type)ta), b = random_geometry((sn_shape_type)tb);
        sn_transform xa = xf_make(frand(-1.0f, 1.0f), frand(-1.0f, 1.0f), frand(-3.2f, 3.2f));
        if (ta == SN_SHAPE_CHAIN_SEGMENT) xa = xf_make(frand(-1.0f, 1.0f), frand(-1.0f, 1.0f), 0.0f);
        sn_transform xb = xf_make(xa.p.x + frand(-1.8f, 1.8f), xa.p.y + frand(-1.8f, 1.8f), frand(-3.2f, 3.2f));
        sn_simplex_cache cache = {0, {0, 0, 0}, {0, 0, 0}};
        sn_manifold m = sn_collide(&a, xa, &b, xb, &cache);
        ck_assert(m.point_count >= 0 && m.point_count <= 2);

        sn_distance_input in;
        in.proxy_a = sn_geometry_proxy(&a);
        in.proxy_b = sn_geometry_proxy(&b);
        in.transform_a = xa;
        in.transform_b = xb;
        in.use_radii = false;
        sn_distance_output core = sn_shape_distance(&in, NULL);
        if ((k & 1) && core.distance > 1.0e-3f) {
          // every other sample: slide B along the closest direction to a gap
          // near the speculative band
          float target = frand(-0.03f, 0.03f) + in.proxy_a.radius + in.proxy_b.radius;
          if (target > 0.0f) {
            xb.p = sn_mul_sub(xb.p, core.distance - target, core.normal);
            in.transform_b = xb;
            m = sn_collide(&a, xa, &b, xb, &cache);
            core = sn_shape_distance(&in, NULL);
          }
        }
        float gap = core.distance - in.proxy_a.radius - in.proxy_b.radius;

        if (m.point_count > 0) {
          ++touching;
          ck_assert(sn_vec2_is_finite(m.normal));
          ck_assert_near(sn_length(m.normal), 1.0f, 1.0e-4f);
          for (int i = 0; i < m.point_count; ++i) {
            const sn_manifold_point *p = m.points + i;
            ck_assert(sn_vec2_is_finite(p->point) && sn_is_finite(p->separation));
            ck_assert(p->separation < SN_SPECULATIVE_DISTANCE);
            ck_assert_near(p->anchor_a.x, p->point.x - xa.p.x, 1.0e-4f);
            ck_assert_near(p->anchor_b.y, p->point.y - xb.p.y, 1.0e-4f);
          }
          if (core.distance > 1.0e-3f) {
            ck_assert_msg(sn_dot(m.normal, core.normal) > 0.0f, "pair (%d, %d) #%d: normal against A->B", ta, tb, k);
          }
          if (ta == SN_SHAPE_CHAIN_SEGMENT) ck_assert_msg(m.normal.y > 0.0f, "chain pushes into its solid side");
        } else if (ta != SN_SHAPE_CHAIN_SEGMENT) {
          ck_assert_msg(gap > 0.5f * SN_SPECULATIVE_DISTANCE, "pair (%d, %d) #%d: gap %g but no contact", ta, tb, k,
                        (double)gap);
        }
        if (gap > 0.0f && gap < SN_SPECULATIVE_DISTANCE) ++near_band;
        ++checked;
      }
    }
  }
  ck_assert_int_gt(touching, checked / 10);
  ck_assert_int_gt(near_band, checked / 20);
}
END_TEST

/* ------------------------------------- fast paths against the general code */

/// True if the two floats have the same bits (the fast paths promise
/// identical results, not merely close ones: tolerance zero).
static bool same_bits(float a, float b) {
  uint32_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}

/// Fails unless got and want have the same count, normal and points below
/// the count, field by field and bit for bit.
static void check_same_manifold(const sn_manifold *got, const sn_manifold *want, const char *what, int k) {
  ck_assert_msg(got->point_count == want->point_count, "%s #%d: %d points, expected %d", what, k, got->point_count,
                want->point_count);
  ck_assert_msg(same_bits(got->normal.x, want->normal.x) && same_bits(got->normal.y, want->normal.y),
                "%s #%d: normal (%.9g, %.9g), expected (%.9g, %.9g)", what, k, (double)got->normal.x,
                (double)got->normal.y, (double)want->normal.x, (double)want->normal.y);
  for (int i = 0; i < want->point_count; ++i) {
    const sn_manifold_point *p = got->points + i, *q = want->points + i;
    ck_assert_msg(p->id == q->id, "%s #%d point %d: id 0x%04x, expected 0x%04x", what, k, i, p->id, q->id);
    const float gf[] = {p->point.x,        p->point.y,    p->anchor_a.x,     p->anchor_a.y,      p->anchor_b.x,
                        p->anchor_b.y,     p->separation, p->normal_impulse, p->tangent_impulse, p->max_normal_impulse,
                        p->normal_velocity};
    const float wf[] = {q->point.x,        q->point.y,    q->anchor_a.x,     q->anchor_a.y,      q->anchor_b.x,
                        q->anchor_b.y,     q->separation, q->normal_impulse, q->tangent_impulse, q->max_normal_impulse,
                        q->normal_velocity};
    for (size_t f = 0; f < sizeof gf / sizeof gf[0]; ++f) {
      ck_assert_msg(same_bits(gf[f], wf[f]), "%s #%d point %d field %d: %.9g, expected %.9g", what, k, i, (int)f,
                    (double)gf[f], (double)wf[f]);
    }
    ck_assert_msg(p->persisted == q->persisted, "%s #%d point %d: persisted differs", what, k, i);
  }
}

/// A random quadrilateral about a metre across: a box, an offset and turned
/// box, a rounded box, or a random convex quad (sharp or rounded).
static sn_polygon random_quad(void) {
  sn_polygon p;
  float hx = frand(0.05f, 0.8f), hy = frand(0.05f, 0.8f);
  switch (rand() % 4) {
  case 0:
    ck_assert_int_eq(sn_make_box(hx, hy, &p), SN_OK);
    break;
  case 1:
    ck_assert_int_eq(sn_make_offset_box(hx, hy, sn_v2(frand(-0.3f, 0.3f), frand(-0.3f, 0.3f)), frand(-3.2f, 3.2f), &p),
                     SN_OK);
    break;
  case 2:
    ck_assert_int_eq(sn_make_rounded_box(hx, hy, frand(0.01f, 0.15f), &p), SN_OK);
    break;
  default: {
    sn_vec2 pts[4];
    for (int i = 0; i < 4; ++i) {
      float ang = 6.2831853f * ((float)i + frand(0.15f, 0.85f)) / 4.0f;
      float r = frand(0.2f, 0.8f);
      pts[i] = sn_v2(r * cosf(ang), r * sinf(ang));
    }
    float radius = rand() % 3 == 0 ? frand(0.01f, 0.1f) : 0.0f;
    if (sn_compute_hull(pts, 4, radius, &p) != SN_OK || p.count != 4) ck_assert_int_eq(sn_make_box(hx, hy, &p), SN_OK);
    break;
  }
  }
  ck_assert_int_eq(p.count, 4);
  return p;
}

/// B's pose near A: anywhere around it, stacked on one of A's faces (a box
/// on a box, slightly apart, touching or sunk, level or tilted, so that
/// both faces tie or nearly tie), or slid along the closest direction into
/// the speculative band.
static sn_transform near_pose(const sn_geometry *a, sn_transform xa, const sn_geometry *b, int kind) {
  sn_transform xb = xf_make(xa.p.x + frand(-1.6f, 1.6f), xa.p.y + frand(-1.6f, 1.6f), frand(-3.2f, 3.2f));
  if (kind == 1 && a->type == SN_SHAPE_POLYGON) {
    // on face f of A: B's angle is A's plus a quarter turn or a small tilt
    const sn_polygon *pa = &a->polygon;
    int f = rand() % pa->count;
    sn_vec2 n = sn_rotate(xa.q, pa->normals[f]);
    sn_vec2 mid = sn_transform_point(xa, sn_lerp(pa->vertices[f], pa->vertices[(f + 1) % pa->count], 0.5f));
    float turn = 1.5707963f * (float)(rand() % 4) + (rand() % 3 == 0 ? 0.0f : frand(-0.05f, 0.05f));
    float angle = atan2f(xa.q.s, xa.q.c) + turn;
    xb = xf_make(0.0f, 0.0f, angle);
    // B's extent along -n from its origin, then the gap
    float reach = 0.0f;
    if (b->type == SN_SHAPE_POLYGON) {
      for (int i = 0; i < b->polygon.count; ++i)
        reach = sn_maxf(reach, -sn_dot(sn_rotate(xb.q, b->polygon.vertices[i]), n));
      reach += b->polygon.radius + (a->type == SN_SHAPE_POLYGON ? pa->radius : 0.0f);
    } else if (b->type == SN_SHAPE_CIRCLE) {
      reach = b->circle.radius - sn_dot(sn_rotate(xb.q, b->circle.center), n) + pa->radius;
    }
    sn_vec2 t = sn_left_perp(n);
    xb.p = sn_add(sn_mul_add(mid, reach + frand(-0.03f, 0.03f), n), sn_scale(frand(-0.4f, 0.4f), t));
  } else if (kind == 2) {
    sn_distance_input in;
    in.proxy_a = sn_geometry_proxy(a);
    in.proxy_b = sn_geometry_proxy(b);
    in.transform_a = xa;
    in.transform_b = xb;
    in.use_radii = false;
    sn_distance_output core = sn_shape_distance(&in, NULL);
    float target = frand(-0.03f, 0.03f) + in.proxy_a.radius + in.proxy_b.radius;
    if (core.distance > 1.0e-3f && target > 0.0f) xb.p = sn_mul_sub(xb.p, core.distance - target, core.normal);
  }
  return xb;
}

/// Random pose k of two quadrilaterals near each other (srand(77) first: the
/// poses of the quad path tests); every fifth pair is two equal boxes, whose
/// faces then tie exactly.
static void quad_pair_pose(int k, sn_geometry *a, sn_transform *xa, sn_geometry *b, sn_transform *xb) {
  *a = (sn_geometry){.type = SN_SHAPE_POLYGON};
  *b = (sn_geometry){.type = SN_SHAPE_POLYGON};
  a->polygon = random_quad();
  b->polygon = k % 5 == 0 ? a->polygon : random_quad();
  *xa = xf_make(frand(-50.0f, 50.0f), frand(-50.0f, 50.0f), frand(-3.2f, 3.2f));
  *xb = near_pose(a, *xa, b, k % 3);
}

START_TEST(test_quad_path_matches_general) {
  // Two quadrilaterals take a four-lane path (SSE2 here; AVX2 in
  // test_quad_path_avx2_matches_general); on 20000 random poses it gives
  // exactly (bit for bit) what the general polygon code gives: count,
  // normal, points, anchors, separations and feature ids.
  srand(77);
  int touching = 0, two = 0, one = 0;
  for (int k = 0; k < 20000; ++k) {
    sn_geometry a, b;
    sn_transform xa, xb;
    quad_pair_pose(k, &a, &xa, &b, &xb);
    sn_simplex_cache c1 = {0, {0, 0, 0}, {0, 0, 0}}, c2 = c1, c3 = c1;
    sn_manifold fast = sn_collide_polygons(&a.polygon, xa, &b.polygon, xb);
    sn_manifold fast_cached = sn_collide(&a, xa, &b, xb, &c1);
    sn_manifold general = sn_collide_polygons_general(&a.polygon, xa, &b.polygon, xb, &c2);
    check_same_manifold(&fast, &general, "quad pair", k);
    check_same_manifold(&fast_cached, &general, "quad pair (cached)", k);
    ck_assert(memcmp(&c1, &c2, sizeof c1) == 0);
    // in place, over leftovers
    sn_manifold into;
    memset(&into, 0x5A, sizeof into);
    sn_collide_into(&a, &xa, &b, &xb, &c3, false, &into);
    check_same_manifold(&into, &general, "quad pair (in place)", k);
    ck_assert(memcmp(&c3, &c2, sizeof c3) == 0);
    touching += general.point_count > 0;
    two += general.point_count == 2;
    one += general.point_count == 1;
  }
  // the poses cover every outcome
  ck_assert_int_gt(touching, 8000);
  ck_assert_int_gt(two, 3000);
  ck_assert_int_gt(one, 3000);
}
END_TEST

START_TEST(test_quad_path_avx2_matches_general) {
  // The four-lane quadrilateral path compiled for AVX2 (sn_collide_into with
  // use_avx2, the narrowphase's path where the CPU has AVX2), in place over
  // leftovers, on the same 20000 poses: the general polygon code's manifold
  // bit for bit. (The part that needs AVX2: test_manifold.avx2.)
  srand(77);
  int touching = 0;
  for (int k = 0; k < 20000; ++k) {
    sn_geometry a, b;
    sn_transform xa, xb;
    quad_pair_pose(k, &a, &xa, &b, &xb);
    sn_simplex_cache c1 = {0, {0, 0, 0}, {0, 0, 0}}, c2 = c1;
    sn_manifold general = sn_collide_polygons_general(&a.polygon, xa, &b.polygon, xb, &c1);
    sn_manifold into;
    memset(&into, 0x5A, sizeof into);
    sn_collide_into(&a, &xa, &b, &xb, &c2, true, &into);
    check_same_manifold(&into, &general, "quad pair (in place, AVX2)", k);
    ck_assert(memcmp(&c1, &c2, sizeof c1) == 0);
    touching += general.point_count > 0;
  }
  ck_assert_int_gt(touching, 8000);
}
END_TEST

START_TEST(test_polygon_circle_lanes_match_loop) {
  // A quadrilateral tests its edges against a circle four lanes wide: the
  // same manifold bit for bit as the edge loop, on 15000 random poses.
  srand(78);
  int touching = 0;
  for (int k = 0; k < 15000; ++k) {
    sn_geometry a = {.type = SN_SHAPE_POLYGON}, b = random_geometry(SN_SHAPE_CIRCLE);
    a.polygon = random_quad();
    sn_transform xa = xf_make(frand(-50.0f, 50.0f), frand(-50.0f, 50.0f), frand(-3.2f, 3.2f));
    sn_transform xb = near_pose(&a, xa, &b, k % 3);
    sn_manifold lanes = sn_collide_polygon_and_circle(&a.polygon, xa, &b.circle, xb);
    sn_manifold loop = sn_collide_polygon_and_circle_loop(&a.polygon, xa, &b.circle, xb);
    check_same_manifold(&lanes, &loop, "polygon-circle", k);
    touching += loop.point_count > 0;
  }
  ck_assert_int_gt(touching, 6000);
}
END_TEST

/// The narrowphase builds manifolds in place (sn_collide_into) over last
/// step's: for every supported pair on random poses it must leave the same
/// count, normal and points as sn_collide returns, whatever was there. With
/// use_avx2, two quadrilaterals take the AVX2 build of their path.
static void check_collide_into_matches_collide(bool use_avx2) {
  srand(79);
  int checked = 0, touching = 0;
  for (int ta = 0; ta < SN_SHAPE_TYPE_COUNT; ++ta) {
    for (int tb = 0; tb < SN_SHAPE_TYPE_COUNT; ++tb) {
      if (!sn_collide_supported((sn_shape_type)ta, (sn_shape_type)tb)) continue;
      for (int k = 0; k < 3000; ++k) {
        sn_geometry a = random_geometry((sn_shape_type)ta), b = random_geometry((sn_shape_type)tb);
        if (ta == SN_SHAPE_POLYGON && k % 2 == 0) a.polygon = random_quad();
        if (tb == SN_SHAPE_POLYGON && k % 2 == 0) b.polygon = random_quad();
        sn_transform xa = xf_make(frand(-1.0f, 1.0f), frand(-1.0f, 1.0f), frand(-3.2f, 3.2f));
        if (ta == SN_SHAPE_CHAIN_SEGMENT) xa = xf_make(frand(-1.0f, 1.0f), frand(-1.0f, 1.0f), 0.0f);
        sn_transform xb = near_pose(&a, xa, &b, k % 3);
        sn_simplex_cache c1 = {0, {0, 0, 0}, {0, 0, 0}}, c2 = c1;
        sn_manifold want = sn_collide(&a, xa, &b, xb, &c1);
        sn_manifold got;
        memset(&got, 0xA5, sizeof got); // last step's leftovers
        got.point_count = k % 3;
        sn_collide_into(&a, &xa, &b, &xb, &c2, use_avx2, &got);
        check_same_manifold(&got, &want, use_avx2 ? "in place (AVX2)" : "in place", k);
        ck_assert(memcmp(&c1, &c2, sizeof c1) == 0);
        touching += want.point_count > 0;
        ++checked;
      }
    }
  }
  ck_assert_int_gt(touching, checked / 5);
}

START_TEST(test_collide_into_matches_collide) { check_collide_into_matches_collide(false); }
END_TEST

/* The same with the AVX2 path (the part that needs AVX2: test_manifold.avx2). */
START_TEST(test_collide_into_avx2_matches_collide) { check_collide_into_matches_collide(true); }
END_TEST

/* Closest-feature reference in double precision, in the world frame: the
 * polygon's core (vertices placed by xa) and the disc centre. Outside the core
 * the contact follows the closest boundary point; inside it, the face of least
 * penetration. */
typedef struct disc_reference {
  double nx, ny;     ///< normal from A to B
  double separation; ///< surface gap (negative overlapping)
  double px, py;     ///< point midway between the surfaces
  double margin;     ///< distance of the sample from an ambiguity (two faces equally shallow)
} disc_reference;

static disc_reference polygon_disc_reference(const sn_polygon *a, sn_transform xa, sn_vec2 centre, double rb) {
  double vx[SN_MAX_POLYGON_VERTICES], vy[SN_MAX_POLYGON_VERTICES];
  double c = xa.q.c, s = xa.q.s;
  for (int i = 0; i < a->count; ++i) {
    vx[i] = xa.p.x + c * a->vertices[i].x - s * a->vertices[i].y;
    vy[i] = xa.p.y + s * a->vertices[i].x + c * a->vertices[i].y;
  }
  double cx = centre.x, cy = centre.y;
  double best_d2 = 1e300, qx = 0.0, qy = 0.0;
  double face_sep = -1e300, second_sep = -1e300, fnx = 0.0, fny = 0.0;
  for (int i = 0; i < a->count; ++i) {
    int j = i + 1 < a->count ? i + 1 : 0;
    double ex = vx[j] - vx[i], ey = vy[j] - vy[i];
    double len = sqrt(ex * ex + ey * ey);
    double nx = ey / len, ny = -ex / len; // outward for counter-clockwise vertices
    double sep = nx * (cx - vx[i]) + ny * (cy - vy[i]);
    if (sep > face_sep) {
      second_sep = face_sep;
      face_sep = sep;
      fnx = nx;
      fny = ny;
    } else if (sep > second_sep) {
      second_sep = sep;
    }
    double t = ((cx - vx[i]) * ex + (cy - vy[i]) * ey) / (len * len);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double px = vx[i] + t * ex, py = vy[i] + t * ey;
    double d2 = (cx - px) * (cx - px) + (cy - py) * (cy - py);
    if (d2 < best_d2) {
      best_d2 = d2;
      qx = px;
      qy = py;
    }
  }
  disc_reference r;
  double ra = a->radius;
  if (face_sep > 0.0) { // outside the core: closest point
    double d = sqrt(best_d2);
    r.nx = (cx - qx) / d;
    r.ny = (cy - qy) / d;
    r.separation = d - ra - rb;
    r.margin = 1e300;
  } else { // inside: least penetration
    r.nx = fnx;
    r.ny = fny;
    qx = cx - face_sep * fnx;
    qy = cy - face_sep * fny;
    r.separation = face_sep - ra - rb;
    r.margin = face_sep - second_sep;
  }
  r.px = 0.5 * ((qx + ra * r.nx) + (cx - rb * r.nx));
  r.py = 0.5 * ((qy + ra * r.ny) + (cy - rb * r.ny));
  return r;
}

/// A zero point or an empty manifold must be all zero (the in-place builds).
static void check_clean(const sn_manifold *m) {
  static const sn_manifold_point zero;
  for (int i = m->point_count; i < 2; ++i) {
    const sn_manifold_point *p = m->points + i;
    ck_assert(p->point.x == 0.0f && p->point.y == 0.0f && p->anchor_a.x == 0.0f && p->anchor_b.y == 0.0f);
    ck_assert(p->separation == zero.separation && p->id == 0 && !p->persisted);
  }
  for (int i = 0; i < m->point_count; ++i) {
    ck_assert(m->points[i].normal_impulse == 0.0f && m->points[i].tangent_impulse == 0.0f);
    ck_assert(m->points[i].max_normal_impulse == 0.0f && m->points[i].normal_velocity == 0.0f);
    ck_assert(!m->points[i].persisted);
  }
  if (m->point_count == 0) ck_assert(m->normal.x == 0.0f && m->normal.y == 0.0f);
}

/// The narrowphase gives a pair the empty manifold without calling sn_collide
/// when sn_round_pair_far_apart says its tight boxes are beyond the
/// speculative distance: sn_collide must then return no points and leave the
/// simplex cache as it was. Round pairs at random poses, many of them just
/// beyond the threshold (surfaces within 0.1 m of the speculative distance),
/// chain segments also against large circles (radius up to 20 m: the
/// allowance's share of the radius); other pairs are never skipped.
START_TEST(test_round_pair_far_apart) {
  srand(83);
  static const sn_shape_type round[][2] = {{SN_SHAPE_CAPSULE, SN_SHAPE_CIRCLE},
                                           {SN_SHAPE_CAPSULE, SN_SHAPE_CAPSULE},
                                           {SN_SHAPE_SEGMENT, SN_SHAPE_CIRCLE},
                                           {SN_SHAPE_SEGMENT, SN_SHAPE_CAPSULE},
                                           {SN_SHAPE_CHAIN_SEGMENT, SN_SHAPE_CIRCLE}};
  for (int kind = 0; kind < 5; ++kind) {
    const sn_shape_type ta = round[kind][0], tb = round[kind][1];
    int skipped = 0, near = 0;
    for (int k = 0; k < 4000; ++k) {
      sn_geometry a = random_geometry(ta), b = random_geometry(tb);
      if (tb == SN_SHAPE_CIRCLE && k % 2 == 1) b.circle.radius = frand(1.0f, 20.0f);
      sn_transform xa = xf_make(frand(-50.0f, 50.0f), frand(-50.0f, 50.0f), frand(-3.2f, 3.2f));
      if (ta == SN_SHAPE_CHAIN_SEGMENT) xa.q = sn_make_rot(0.0f);
      // B's origin at a random direction from A's, the surfaces about the
      // speculative distance apart (0.05 m nearer to 0.2 m farther)
      sn_transform xb = xf_make(0.0f, 0.0f, frand(-3.2f, 3.2f));
      const float angle = frand(-3.2f, 3.2f);
      const sn_vec2 d = sn_v2(cosf(angle), sinf(angle));
      sn_distance_input in;
      memset(&in, 0, sizeof in);
      in.proxy_a = sn_geometry_proxy(&a);
      in.proxy_b = sn_geometry_proxy(&b);
      in.transform_a = xa;
      in.use_radii = true;
      float lo = 0.0f, hi = 4.0f + 2.0f * in.proxy_b.radius, gap = 0.0f;
      const float target = SN_SPECULATIVE_DISTANCE + frand(-0.05f, 0.2f);
      for (int it = 0; it < 40; ++it) { // bisection on the distance along d
        const float mid = 0.5f * (lo + hi);
        xb.p = sn_mul_add(xa.p, mid, d);
        in.transform_b = xb;
        gap = sn_shape_distance(&in, NULL).distance;
        if (gap < target)
          lo = mid;
        else
          hi = mid;
      }
      const sn_aabb box_a = sn_geometry_compute_aabb(&a, xa), box_b = sn_geometry_compute_aabb(&b, xb);
      if (!sn_round_pair_far_apart(&a, box_a, &b, box_b)) continue;
      sn_simplex_cache cache = {2, {1, 0, 0}, {0, 1, 0}}, before = cache;
      sn_manifold m = sn_collide(&a, xa, &b, xb, &cache);
      ck_assert_msg(m.point_count == 0, "kinds %d-%d case %d: %d points, surfaces %g apart", (int)ta, (int)tb, k,
                    m.point_count, (double)gap);
      ck_assert(memcmp(&cache, &before, sizeof cache) == 0);
      skipped += 1;
      near += gap < SN_SPECULATIVE_DISTANCE + 0.1f;
    }
    ck_assert_int_gt(skipped, 600);
    ck_assert_int_gt(near, 200);
  }
  // the other pairs are never skipped, however far apart
  static const sn_shape_type other[][2] = {
      {SN_SHAPE_CIRCLE, SN_SHAPE_CIRCLE},        {SN_SHAPE_POLYGON, SN_SHAPE_CIRCLE},
      {SN_SHAPE_POLYGON, SN_SHAPE_CAPSULE},      {SN_SHAPE_POLYGON, SN_SHAPE_SEGMENT},
      {SN_SHAPE_POLYGON, SN_SHAPE_POLYGON},      {SN_SHAPE_CHAIN_SEGMENT, SN_SHAPE_CAPSULE},
      {SN_SHAPE_CHAIN_SEGMENT, SN_SHAPE_POLYGON}};
  for (int kind = 0; kind < 7; ++kind) {
    sn_geometry a = random_geometry(other[kind][0]), b = random_geometry(other[kind][1]);
    const sn_aabb box_a = sn_geometry_compute_aabb(&a, xf_make(0.0f, 0.0f, 0.0f));
    const sn_aabb box_b = sn_geometry_compute_aabb(&b, xf_make(10.0f, 0.0f, 0.0f));
    ck_assert(!sn_round_pair_far_apart(&a, box_a, &b, box_b));
  }
}
END_TEST

START_TEST(test_polygon_circle_reference) {
  // Random convex polygons (some rounded) against random discs at random
  // poses, compared with the double-precision closest-feature reference:
  // normal within 1e-4, separation and point within 2e-5 m (shapes about a
  // metre across, poses within 5 m of the origin), feature id 0, one point
  // exactly when the reference separation is below the speculative distance.
  // Samples within 1e-4 m of an ambiguity (the speculative threshold, or two
  // faces equally shallow for a centre inside the core) are skipped.
  srand(77);
  int compared = 0, inside = 0, vertex = 0, speculative = 0;
  for (int k = 0; k < 20000; ++k) {
    sn_geometry ga = random_geometry(SN_SHAPE_POLYGON);
    const sn_polygon *a = &ga.polygon;
    sn_circle b = {{frand(-0.2f, 0.2f), frand(-0.2f, 0.2f)}, frand(0.05f, 0.6f)};
    sn_transform xa = xf_make(frand(-5.0f, 5.0f), frand(-5.0f, 5.0f), frand(-3.2f, 3.2f));
    float reach = 0.7f + a->radius + b.radius;
    sn_transform xb = xf_make(xa.p.x + frand(-reach, reach), xa.p.y + frand(-reach, reach), frand(-3.2f, 3.2f));
    sn_vec2 centre = sn_transform_point(xb, b.center);
    disc_reference r = polygon_disc_reference(a, xa, centre, b.radius);
    sn_manifold m = sn_collide_polygon_and_circle(a, xa, &b, xb);
    check_clean(&m);
    if (fabs(r.separation - SN_SPECULATIVE_DISTANCE) < 1e-4 || r.margin < 1e-4) continue;
    bool hit = r.separation < SN_SPECULATIVE_DISTANCE;
    ck_assert_int_eq(m.point_count, hit ? 1 : 0);
    if (!hit) continue;
    const sn_manifold_point *p = m.points;
    ck_assert_int_eq(p->id, 0);
    ck_assert_near(m.normal.x, r.nx, 1.0e-4f);
    ck_assert_near(m.normal.y, r.ny, 1.0e-4f);
    ck_assert_near(p->separation, r.separation, 2.0e-5f);
    ck_assert_near(p->point.x, r.px, 2.0e-5f);
    ck_assert_near(p->point.y, r.py, 2.0e-5f);
    ck_assert_near(p->anchor_a.x, p->point.x - xa.p.x, 1.0e-5f);
    ck_assert_near(p->anchor_b.y, p->point.y - xb.p.y, 1.0e-5f);
    compared += 1;
    inside += r.margin < 1e300;
    // a vertex contact: the normal is no face normal of A
    bool face = r.margin < 1e300;
    for (int i = 0; i < a->count && !face; ++i) {
      sn_vec2 n = sn_rotate(xa.q, a->normals[i]);
      face = n.x * r.nx + n.y * r.ny > 0.99999;
    }
    vertex += !face;
    speculative += r.separation > 0.0;
  }
  // every region was exercised
  ck_assert_int_gt(compared, 3000);
  ck_assert_int_gt(inside, 300);
  ck_assert_int_gt(vertex, 300);
  ck_assert_int_gt(speculative, 20);
}
END_TEST

START_TEST(test_capsule_circle_reference) {
  // Capsules, segments and discs against random discs: the closest point of
  // the core segment in double precision gives normal, separation and point
  // (same tolerances as above).
  srand(78);
  int compared = 0;
  for (int k = 0; k < 20000; ++k) {
    sn_geometry ga = random_geometry(k % 3 == 0 ? SN_SHAPE_SEGMENT : SN_SHAPE_CAPSULE);
    sn_vec2 p1 = ga.type == SN_SHAPE_CAPSULE ? ga.capsule.center1 : ga.segment.point1;
    sn_vec2 p2 = ga.type == SN_SHAPE_CAPSULE ? ga.capsule.center2 : ga.segment.point2;
    double ra = ga.type == SN_SHAPE_CAPSULE ? ga.capsule.radius : 0.0;
    sn_circle b = {{frand(-0.2f, 0.2f), frand(-0.2f, 0.2f)}, frand(0.05f, 0.6f)};
    sn_transform xa = xf_make(frand(-5.0f, 5.0f), frand(-5.0f, 5.0f), frand(-3.2f, 3.2f));
    float reach = 1.0f + (float)ra + b.radius;
    sn_transform xb = xf_make(xa.p.x + frand(-reach, reach), xa.p.y + frand(-reach, reach), frand(-3.2f, 3.2f));
    sn_manifold m = ga.type == SN_SHAPE_CAPSULE ? sn_collide_capsule_and_circle(&ga.capsule, xa, &b, xb)
                                                : sn_collide_segment_and_circle(&ga.segment, xa, &b, xb);
    check_clean(&m);
    double c = xa.q.c, s = xa.q.s;
    double ax = xa.p.x + c * p1.x - s * p1.y, ay = xa.p.y + s * p1.x + c * p1.y;
    double bx = xa.p.x + c * p2.x - s * p2.y, by = xa.p.y + s * p2.x + c * p2.y;
    sn_vec2 centre = sn_transform_point(xb, b.center);
    double ex = bx - ax, ey = by - ay;
    double t = ((centre.x - ax) * ex + (centre.y - ay) * ey) / (ex * ex + ey * ey);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double qx = ax + t * ex, qy = ay + t * ey;
    double d = sqrt((centre.x - qx) * (centre.x - qx) + (centre.y - qy) * (centre.y - qy));
    double sep = d - ra - b.radius;
    if (fabs(sep - SN_SPECULATIVE_DISTANCE) < 1e-4 || d < 1e-3) continue;
    bool hit = sep < SN_SPECULATIVE_DISTANCE;
    ck_assert_int_eq(m.point_count, hit ? 1 : 0);
    if (!hit) continue;
    double nx = (centre.x - qx) / d, ny = (centre.y - qy) / d;
    ck_assert_int_eq(m.points[0].id, 0);
    ck_assert_near(m.normal.x, nx, 1.0e-4f);
    ck_assert_near(m.normal.y, ny, 1.0e-4f);
    ck_assert_near(m.points[0].separation, sep, 2.0e-5f);
    ck_assert_near(m.points[0].point.x, 0.5 * ((qx + ra * nx) + (centre.x - b.radius * nx)), 2.0e-5f);
    ck_assert_near(m.points[0].point.y, 0.5 * ((qy + ra * ny) + (centre.y - b.radius * ny)), 2.0e-5f);
    compared += 1;
  }
  ck_assert_int_gt(compared, 3000);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("manifold");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_circles);
  tcase_add_test(tc, test_capsule_circle);
  tcase_add_test(tc, test_capsules);
  tcase_add_test(tc, test_segment_circle);
  tcase_add_test(tc, test_segment_capsule);
  tcase_add_test(tc, test_segment_polygon);
  tcase_add_test(tc, test_polygon_circle);
  tcase_add_test(tc, test_polygon_capsule);
  tcase_add_test(tc, test_box_resting);
  tcase_add_test(tc, test_box_tilted_on_flat);
  tcase_add_test(tc, test_box_overhang_clipped);
  tcase_add_test(tc, test_box_speculative);
  tcase_add_test(tc, test_box_feature_ids_persist);
  tcase_add_test(tc, test_reference_switch_keeps_ids);
  tcase_add_test(tc, test_rounded_polygons);
  tcase_add_test(tc, test_hexagon_on_box);
  tcase_add_test(tc, test_chain_circle);
  tcase_add_test(tc, test_chain_capsule);
  tcase_add_test(tc, test_chain_polygon);
  tcase_add_test(tc, test_chain_sliding_box_no_snag);
  tcase_add_test(tc, test_chain_sliding_round_shapes_no_snag);
  tcase_add_test(tc, test_chain_convex_corner);
  tcase_add_test(tc, test_chain_concave_corner);
  tcase_add_test(tc, test_dispatch_table);
  tcase_add_test(tc, test_large_coordinates);
  tcase_add_test(tc, test_random_pairs_are_sane);
  tcase_add_test(tc, test_quad_path_matches_general);
  tcase_add_test(tc, test_polygon_circle_lanes_match_loop);
  tcase_add_test(tc, test_collide_into_matches_collide);
  tcase_add_test(tc, test_round_pair_far_apart);
  tcase_add_test(tc, test_polygon_circle_reference);
  tcase_add_test(tc, test_capsule_circle_reference);
  suite_add_tcase(s, tc);
  TCase *avx2 = tcase_create("avx2");
  tcase_add_test(avx2, test_quad_path_avx2_matches_general);
  tcase_add_test(avx2, test_collide_into_avx2_matches_collide);
  sn_test_add_part(&sn_need_avx2, avx2);
  return s;
}
