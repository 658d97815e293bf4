/* The distance and weld plugins, loaded as real shared objects from the
 * build tree (linked in, in a build without file loading), checked against
 * analytic results (g = (0, -10), dt = 1/60, the world's default 8
 * substeps). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

static sn_registry *registry(void) { return js_registry((const char *const[]){"distance", "weld", NULL}); }
static sn_body_id box(sn_world *w, sn_vec2 p, float hx, float hy) {
  return js_box(w, p, 0.0f, hx, hy, (sn_vec2){0.0f, 0.0f}, 1.0f);
}
#define world_with js_world
#define ball       js_ball
#define ground     js_ground
#define joint      js_joint

static double dist(sn_vec2 a, sn_vec2 b) { return hypot((double)b.x - a.x, (double)b.y - a.y); }

/* A rigid rod (default mode, length = the distance at creation, L = 1)
 * holding a disc to a static pivot, released horizontally: over 5 s of
 * swinging the length stays within 1 mm, and the disc does swing through the
 * bottom (energy: it passes below the pivot by more than 0.9 L). */
START_TEST(test_rod_pendulum) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_vec2 pivot = {0.0f, 2.0f};
  sn_body_id bob = ball(w, (sn_vec2){1.0f, 2.0f}, 0.1f, 1.0f);
  sn_param_value v[2] = {{"anchor_a", 0.0, 2.0}, {"anchor_b", 1.0, 2.0}};
  sn_constraint_id j = joint(w, "distance", g, bob, v, 2);
  ck_assert(sn_constraint_is_valid(w, j));
  double max_error = 0.0, lowest = 2.0;
  for (int i = 0; i < 300; ++i) {
    sn_world_step(w, DT);
    sn_vec2 p = sn_body_get_position(w, bob);
    max_error = fmax(max_error, fabs(dist(pivot, p) - 1.0));
    lowest = fmin(lowest, p.y);
  }
  ck_assert_msg(max_error < 1e-3, "rod length error %g m", max_error);
  ck_assert_msg(lowest < 2.0 - 0.9, "lowest point %g", lowest);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A spring (hertz f = 2, damping ratio 1) holding a disc of mass m at its
 * centre below a static anchor. The soft step is an implicit spring
 * k = m_eff omega^2 with omega = 2 pi f; with A static and the anchor at B's
 * centre (no lever arm) m_eff = m, so k = m (2 pi f)^2. At rest the warm-
 * started impulse per substep balances gravity, m g h, and the row's
 * update is zero when that impulse equals h k C, hence C = m g / k =
 * g / (2 pi f)^2 = 63.3 mm: the settled stretch matches within 2 %. The
 * reaction is the weight within 1 %. */
START_TEST(test_spring_static_stretch) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id bob = ball(w, (sn_vec2){0.0f, 1.0f}, 0.2f, 3.0f);
  const double f = 2.0, m = sn_body_get_mass(w, bob), k = m * (2.0 * PI * f) * (2.0 * PI * f);
  sn_param_value v[5] = {{"anchor_a", 0.0, 2.0},
                         {"anchor_b", 0.0, 1.0},
                         {"enable_spring", 1, 0},
                         {"hertz", f, 0},
                         {"damping_ratio", 1.0, 0}};
  sn_constraint_id j = joint(w, "distance", g, bob, v, 5);
  ck_assert(sn_constraint_is_valid(w, j));
  for (int i = 0; i < 300; ++i) sn_world_step(w, DT);
  double stretch = 1.0 - sn_body_get_position(w, bob).y, expected = m * 10.0 / k;
  ck_assert_msg(fabs(stretch - expected) < 0.02 * expected, "stretch %.5f m, expected %.5f m", stretch, expected);
  sn_vec2 force;
  float torque;
  ck_assert_int_eq(sn_constraint_get_reaction(w, j, &force, &torque), SN_OK);
  ck_assert_msg(fabs(force.y - m * 10.0) < 0.01 * m * 10.0 && fabsf(force.x) < 1e-3f, "reaction (%g, %g)",
                (double)force.x, (double)force.y);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A rope (enable_limit, min 0, max 1.5) from a static anchor to a disc
 * released 0.5 m below it: the disc falls freely (velocity -g t within
 * 1e-4 m/s) until the rope is taut after 1 m, t = sqrt(2 / g) = 0.447 s;
 * then the rope is never longer than max + 5 mm and ends taut. */
START_TEST(test_rope_free_fall) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_vec2 anchor = {0.0f, 2.0f};
  sn_body_id bob = ball(w, (sn_vec2){0.0f, 1.5f}, 0.1f, 1.0f);
  sn_param_value v[5] = {{"anchor_a", 0.0, 2.0},
                         {"anchor_b", 0.0, 1.5},
                         {"enable_limit", 1, 0},
                         {"min_length", 0.0, 0},
                         {"max_length", 1.5, 0}};
  sn_constraint_id j = joint(w, "distance", g, bob, v, 5);
  ck_assert(sn_constraint_is_valid(w, j));
  double max_len = 0.0;
  for (int i = 1; i <= 240; ++i) {
    sn_world_step(w, DT);
    double t = i * (double)DT, len = dist(anchor, sn_body_get_position(w, bob));
    max_len = fmax(max_len, len);
    if (i == 24) { /* t = 0.4 s, before the rope is taut */
      ck_assert_double_eq_tol(sn_body_get_linear_velocity(w, bob).y, -10.0 * t, 1e-4);
      ck_assert_double_lt(len, 1.5 - 0.1);
    }
  }
  ck_assert_msg(max_len < 1.5 + 5e-3, "rope stretched to %g m", max_len);
  ck_assert_double_eq_tol(dist(anchor, sn_body_get_position(w, bob)), 1.5, 5e-3);
  /* a range with min > max is refused, at creation and at run time */
  sn_param_value bad[3] = {{"enable_limit", 1, 0}, {"min_length", 2.0, 0}, {"max_length", 1.0, 0}};
  ck_assert_int_eq(joint(w, "distance", g, bob, bad, 3).index1, 0);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "min_length", 2.0, 0), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "length", -2.0, 0), SN_ERR_INVALID_ARGUMENT);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Two free discs (no gravity, masses 1 : 2) on a rod with off-centre
 * anchors, thrown with different velocities and spins: the joint's
 * impulses are equal and opposite, so total linear momentum is conserved to
 * 1e-5 relative over 2 s while the rod keeps its length within 1 mm. */
START_TEST(test_momentum) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id a = ball(w, (sn_vec2){0.0f, 0.0f}, 0.2f, 1.0f);
  sn_body_id b = ball(w, (sn_vec2){2.0f, 0.0f}, 0.2f, 2.0f);
  sn_param_value v[2] = {{"anchor_a", 0.1, 0.05}, {"anchor_b", 1.9, -0.05}};
  sn_constraint_id j = joint(w, "distance", a, b, v, 2);
  ck_assert(sn_constraint_is_valid(w, j));
  sn_body_set_linear_velocity(w, a, (sn_vec2){1.0f, 2.0f});
  sn_body_set_linear_velocity(w, b, (sn_vec2){-3.0f, 0.5f});
  sn_body_set_angular_velocity(w, a, 1.0f);
  sn_body_set_angular_velocity(w, b, -2.0f);
  double ma = sn_body_get_mass(w, a), mb = sn_body_get_mass(w, b);
  sn_vec2 va = sn_body_get_linear_velocity(w, a), vb = sn_body_get_linear_velocity(w, b);
  double p0x = ma * va.x + mb * vb.x, p0y = ma * va.y + mb * vb.y, p0 = hypot(p0x, p0y);
  double rest = hypot(1.8, -0.1), max_error = 0.0, max_drift = 0.0;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, DT);
    va = sn_body_get_linear_velocity(w, a);
    vb = sn_body_get_linear_velocity(w, b);
    double px = ma * va.x + mb * vb.x, py = ma * va.y + mb * vb.y;
    max_drift = fmax(max_drift, hypot(px - p0x, py - p0y) / p0);
    sn_vec2 pa = sn_body_get_world_point(w, a, (sn_vec2){0.1f, 0.05f});
    sn_vec2 pb = sn_body_get_world_point(w, b, (sn_vec2){-0.1f, -0.05f});
    max_error = fmax(max_error, fabs(dist(pa, pb) - rest));
  }
  ck_assert_msg(max_drift < 1e-5, "momentum drift %g (relative)", max_drift);
  ck_assert_msg(max_error < 1e-3, "rod length error %g m", max_error);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A cantilever of two 1 m x 0.25 m boxes: the first welded to a static body
 * at its left end, the second welded to the first end to end; gravity on.
 * Over 2 s each weld keeps its relative angle within 1e-3 rad and its
 * anchors together within 1 mm, and the second box stays within 1 mm of
 * its place in the first box's frame. */
START_TEST(test_weld_cantilever) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b1 = box(w, (sn_vec2){0.5f, 0.0f}, 0.5f, 0.125f);
  sn_body_id b2 = box(w, (sn_vec2){1.5f, 0.0f}, 0.5f, 0.125f);
  sn_param_value v1[1] = {{"anchor", 0.0, 0.0}}, v2[1] = {{"anchor", 1.0, 0.0}};
  ck_assert(sn_constraint_is_valid(w, joint(w, "weld", g, b1, v1, 1)));
  ck_assert(sn_constraint_is_valid(w, joint(w, "weld", b1, b2, v2, 1)));
  double max_angle = 0.0, max_gap = 0.0, max_drift = 0.0;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, DT);
    float a1 = sn_body_get_angle(w, b1), a2 = sn_body_get_angle(w, b2);
    max_angle = fmax(max_angle, fmax(fabsf(a1), fabsf(a2 - a1)));
    /* anchors: (-0.5, 0) on b1 vs the static (0, 0); (0.5, 0) on b1 vs (-0.5, 0) on b2 */
    sn_vec2 p1 = sn_body_get_world_point(w, b1, (sn_vec2){-0.5f, 0.0f});
    sn_vec2 q1 = sn_body_get_world_point(w, b1, (sn_vec2){0.5f, 0.0f});
    sn_vec2 q2 = sn_body_get_world_point(w, b2, (sn_vec2){-0.5f, 0.0f});
    max_gap = fmax(max_gap, fmax(dist(p1, (sn_vec2){0.0f, 0.0f}), dist(q1, q2)));
    sn_vec2 local = sn_body_get_local_point(w, b1, sn_body_get_position(w, b2));
    max_drift = fmax(max_drift, dist(local, (sn_vec2){1.0f, 0.0f}));
  }
  ck_assert_msg(max_angle < 1e-3, "relative angle %g rad", max_angle);
  ck_assert_msg(max_gap < 1e-3, "anchor gap %g m", max_gap);
  ck_assert_msg(max_drift < 1e-3, "relative position drift %g m", max_drift);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A soft weld (linear and angular hertz 4, damping ratio 1) lets the box
 * sag visibly under its weight, unlike the rigid default. */
START_TEST(test_weld_soft) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b1 = box(w, (sn_vec2){0.5f, 0.0f}, 0.5f, 0.125f);
  sn_param_value v[4] = {
      {"anchor", 0.0, 0.0}, {"linear_hertz", 4.0, 0}, {"angular_hertz", 4.0, 0}, {"damping_ratio", 1.0, 0}};
  sn_constraint_id j = joint(w, "weld", g, b1, v, 4);
  ck_assert(sn_constraint_is_valid(w, j));
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  ck_assert_msg(sn_body_get_angle(w, b1) < -0.01f, "soft weld angle %g", (double)sn_body_get_angle(w, b1));
  ck_assert_int_eq(sn_constraint_set_param(w, j, "angular_hertz", 0.0, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "linear_hertz", 0.0, 0), SN_OK);
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  ck_assert_msg(fabsf(sn_body_get_angle(w, b1)) < 1e-3f, "rigid again: angle %g", (double)sn_body_get_angle(w, b1));
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joints_distance");
  TCase *tc = tcase_create("distance");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rod_pendulum);
  tcase_add_test(tc, test_spring_static_stretch);
  tcase_add_test(tc, test_rope_free_fall);
  tcase_add_test(tc, test_momentum);
  suite_add_tcase(s, tc);
  TCase *tw = tcase_create("weld");
  tcase_set_timeout(tw, 120);
  tcase_add_test(tw, test_weld_cantilever);
  tcase_add_test(tw, test_weld_soft);
  suite_add_tcase(s, tw);
  return s;
}
