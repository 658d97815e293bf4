/* Joint springs (revolute, prismatic, wheel target) against closed forms,
 * no gravity unless said, dt = 1/60 with the default 8 substeps.
 *
 * The spring of a revolute joint is a soft row on the relative angle with
 * effective mass I_axial = 1 / (1/I_A + 1/I_B) (inertias about the centres
 * of mass): a torsion spring k = I_axial (2 pi hertz)^2. A prismatic
 * spring's effective mass is the axial row's, m_axial (the body's mass for
 * a slider on the ground anchored at its centre): k = m_axial (2 pi
 * hertz)^2. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

static sn_registry *registry(void) {
  return js_registry((const char *const[]){"revolute", "prismatic", "wheel", NULL});
}

static sn_world *world(sn_registry *r, bool gravity) {
  sn_world *w = js_world(r);
  if (!gravity) sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  return w;
}

static double state(sn_world *w, sn_constraint_id k, const char *name) {
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(w, k, name, &x, &y), SN_OK);
  return x;
}

/* The mean period of an oscillation of q(t) about `centre`: upward
 * crossings found by linear interpolation between steps, over `steps`. */
static double period(sn_world *w, sn_constraint_id k, const char *name, double centre, int steps) {
  double prev = state(w, k, name) - centre, first = -1.0, last = -1.0;
  int crossings = 0;
  for (int i = 1; i <= steps; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    double q = state(w, k, name) - centre;
    if (prev < 0.0 && q >= 0.0) {
      double t = (i - 1 + prev / (prev - q)) * (double)DT;
      if (crossings == 0) first = t;
      last = t;
      crossings++;
    }
    prev = q;
  }
  ck_assert_msg(crossings >= 3, "only %d crossings", crossings);
  return (last - first) / (crossings - 1);
}

/* A disc (radius R = 0.5, density 2) pinned 0.3 m from its centre to the
 * ground, spring at 1 Hz, no damping, let go 0.2 rad from the target: it
 * swings about the pivot with period 2 pi sqrt(I_pivot / k), I_pivot =
 * I + m d^2, k = I (2 pi hertz)^2 (the ground's inverse inertia is 0):
 * T = sqrt(1 + 2 d^2 / R^2) / hertz = 1.31149 s, within 1 %. */
START_TEST(test_revolute_spring_period) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w), d = js_ball(w, (sn_vec2){0.3f, 0.0f}, 0.5f, 2.0f);
  sn_param_value v[5] = {{"anchor", 0.0, 0.0},
                         {"enable_spring", 1, 0},
                         {"hertz", 1.0, 0},
                         {"damping_ratio", 0.0, 0},
                         {"target_angle", 0.2, 0}};
  sn_constraint_id k = js_joint(w, "revolute", g, d, v, 5);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  double m = sn_body_get_mass(w, d), inertia = sn_body_get_rotational_inertia(w, d);
  double stiffness = inertia * pow(2.0 * PI * 1.0, 2.0), i_pivot = inertia + m * 0.09;
  double expected = 2.0 * PI * sqrt(i_pivot / stiffness);
  ck_assert(fabs(expected - sqrt(1.72)) < 1e-3);
  double t = period(w, k, "angle", 0.2, 600);
  ck_assert_msg(fabs(t - expected) < 0.01 * expected, "period %.5f s, expected %.5f s", t, expected);
  /* the spring torque is -k (angle - target) */
  double angle = state(w, k, "angle"), torque = state(w, k, "spring_torque");
  ck_assert_msg(fabs(torque + stiffness * (angle - 0.2)) < 0.05 * stiffness * 0.2, "spring torque %g, -k C = %g",
                torque, -stiffness * (angle - 0.2));
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A box (m = 0.48 kg) on a horizontal prismatic joint to the ground, spring
 * at 1.5 Hz, no damping, 0.3 m from its target: period 2 pi sqrt(m / k)
 * with k = m (2 pi 1.5)^2, within 1 %. */
START_TEST(test_prismatic_spring_period) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w);
  sn_body_id b = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.3f, 0.2f, (sn_vec2){0.0f, 0.0f}, 2.0f);
  sn_param_value v[6] = {{"anchor", 0.0, 0.0}, {"axis", 1.0, 0.0},        {"enable_spring", 1, 0},
                         {"hertz", 1.5, 0},    {"damping_ratio", 0.0, 0}, {"target_translation", 0.3, 0}};
  sn_constraint_id k = js_joint(w, "prismatic", g, b, v, 6);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  double m = sn_body_get_mass(w, b), stiffness = m * pow(2.0 * PI * 1.5, 2.0);
  double expected = 2.0 * PI * sqrt(m / stiffness);
  double t = period(w, k, "translation", 0.3, 600);
  ck_assert_msg(fabs(t - expected) < 0.01 * expected, "period %.5f s, expected %.5f s", t, expected);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Damping ratio 1 (critical): from rest 0.5 m short of the target, the
 * slider approaches x(t) = 0.5 (1 - (1 + w t) e^(-w t)) without ever
 * passing the target (never more than 0.1 % of the distance beyond it),
 * and is within 1 % of it after 1.5 s (w t = 14: the closed form is
 * within 1e-5). The same for the revolute joint's angle. */
START_TEST(test_critical_damping) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w);
  sn_body_id b = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.3f, 0.2f, (sn_vec2){0.0f, 0.0f}, 2.0f);
  sn_param_value v[6] = {{"anchor", 0.0, 0.0}, {"axis", 0.0, 1.0},        {"enable_spring", 1, 0},
                         {"hertz", 1.5, 0},    {"damping_ratio", 1.0, 0}, {"target_translation", 0.5, 0}};
  sn_constraint_id k = js_joint(w, "prismatic", g, b, v, 6);
  ck_assert(sn_constraint_is_valid(w, k));
  sn_body_id d = js_ball(w, (sn_vec2){4.0f, 0.0f}, 0.5f, 1.0f);
  sn_param_value rv[5] = {{"anchor", 4.0, 0.0},
                          {"enable_spring", 1, 0},
                          {"hertz", 1.5, 0},
                          {"damping_ratio", 1.0, 0},
                          {"target_angle", 0.5, 0}};
  sn_constraint_id kr = js_joint(w, "revolute", g, d, rv, 5);
  ck_assert(sn_constraint_is_valid(w, kr));
  double most = 0.0, most_angle = 0.0;
  for (int i = 0; i < 90; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    most = fmax(most, state(w, k, "translation"));
    most_angle = fmax(most_angle, state(w, kr, "angle"));
  }
  ck_assert_msg(most <= 0.5 * 1.001, "overshot to %g m (target 0.5)", most);
  ck_assert_msg(most_angle <= 0.5 * 1.001, "overshot to %g rad (target 0.5)", most_angle);
  double x = state(w, k, "translation"), a = state(w, kr, "angle");
  ck_assert_msg(fabs(x - 0.5) < 0.005, "translation %g after 1.5 s, target 0.5", x);
  ck_assert_msg(fabs(a - 0.5) < 0.005, "angle %g after 1.5 s, target 0.5", a);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The target moves the rest position. A vertical slider under gravity
 * settles at target - m g / k (k = m (2 pi 2)^2: 0.0633 m below), within
 * 1 mm, carrying spring force m g; moved to a new target at run time it
 * settles there. A wheel with target_translation 0.2 rests 0.2 - m g / k
 * along its suspension axis (the chassis static). */
START_TEST(test_target_moves_rest) {
  sn_registry *r = registry();
  sn_world *w = world(r, true);
  sn_body_id g = js_ground(w);
  sn_body_id b = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.3f, 0.2f, (sn_vec2){0.0f, 0.0f}, 2.0f);
  sn_param_value v[6] = {{"anchor", 0.0, 0.0}, {"axis", 0.0, 1.0},        {"enable_spring", 1, 0},
                         {"hertz", 2.0, 0},    {"damping_ratio", 1.0, 0}, {"target_translation", 0.3, 0}};
  sn_constraint_id k = js_joint(w, "prismatic", g, b, v, 6);
  ck_assert(sn_constraint_is_valid(w, k));
  double m = sn_body_get_mass(w, b), sag = 10.0 / pow(2.0 * PI * 2.0, 2.0);
  for (int i = 0; i < 180; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double x = state(w, k, "translation");
  ck_assert_msg(fabs(x - (0.3 - sag)) < 1e-3, "rest at %g m, expected %g", x, 0.3 - sag);
  double f = state(w, k, "spring_force");
  ck_assert_msg(fabs(f - m * 10.0) < 0.01 * m * 10.0, "spring force %g N, expected m g = %g", f, m * 10.0);
  ck_assert_int_eq(sn_constraint_set_param(w, k, "target_translation", -0.4, 0), SN_OK);
  for (int i = 0; i < 180; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  x = state(w, k, "translation");
  ck_assert_msg(fabs(x - (-0.4 - sag)) < 1e-3, "rest at %g m, expected %g", x, -0.4 - sag);
  /* switched off: the slider falls freely (the spring force reads 0) */
  ck_assert_int_eq(sn_constraint_set_param(w, k, "enable_spring", 0, 0), SN_OK);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert(state(w, k, "spring_force") == 0.0);
  /* the wheel */
  sn_body_id wh = js_ball(w, (sn_vec2){3.0f, 0.0f}, 0.3f, 1.0f);
  sn_param_value wv[5] = {{"anchor", 3.0, 0.0},
                          {"axis", 0.0, 1.0},
                          {"hertz", 2.0, 0},
                          {"damping_ratio", 1.0, 0},
                          {"target_translation", 0.2, 0}};
  sn_constraint_id kw = js_joint(w, "wheel", g, wh, wv, 5);
  ck_assert(sn_constraint_is_valid(w, kw));
  for (int i = 0; i < 180; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  x = state(w, kw, "translation");
  ck_assert_msg(fabs(x - (0.2 - sag)) < 1e-3, "wheel rests at %g m, expected %g", x, 0.2 - sag);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Limits and motors stay settable at run time: a motor switched off stops
 * pushing (its torque reads 0 and the disc coasts at constant speed), a
 * limit switched on holds the angle at its bound within 0.02 rad. */
START_TEST(test_runtime_motor_limit) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w), d = js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 1.0f);
  sn_param_value v[4] = {
      {"anchor", 0.0, 0.0}, {"enable_motor", 1, 0}, {"motor_speed", 2.0, 0}, {"max_motor_torque", 10.0, 0}};
  sn_constraint_id k = js_joint(w, "revolute", g, d, v, 4);
  ck_assert(sn_constraint_is_valid(w, k));
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_msg(fabs(state(w, k, "speed") - 2.0) < 1e-3, "speed %g", state(w, k, "speed"));
  ck_assert_int_eq(sn_constraint_set_param(w, k, "motor_speed", 0.5, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, k, "enable_motor", 0, 0), SN_OK);
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_msg(fabs(state(w, k, "speed") - 2.0) < 1e-4, "coasting at %g rad/s, expected 2", state(w, k, "speed"));
  ck_assert(state(w, k, "motor_torque") == 0.0);
  /* a limit on: [-0.5, 0.5] around the angle it has reached (it turns at 2 rad/s) */
  double a0 = state(w, k, "angle");
  ck_assert_int_eq(sn_constraint_set_param(w, k, "lower_angle", a0 - 0.5, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, k, "upper_angle", a0 + 0.5, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, k, "enable_limit", 1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, k, "enable_motor", 1, 0), SN_OK); /* pushing on at 0.5 rad/s */
  for (int i = 0; i < 120; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double a = state(w, k, "angle");
  ck_assert_msg(fabs(a - (a0 + 0.5)) < 0.02, "angle %g held at the upper bound %g", a, a0 + 0.5);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joint_springs");
  TCase *tc = tcase_create("springs");
  tcase_add_test(tc, test_revolute_spring_period);
  tcase_add_test(tc, test_prismatic_spring_period);
  tcase_add_test(tc, test_critical_damping);
  tcase_add_test(tc, test_target_moves_rest);
  tcase_add_test(tc, test_runtime_motor_limit);
  suite_add_tcase(s, tc);
  return s;
}
