/* Prismatic and wheel joint plugins, loaded as real shared objects from the
 * build tree (linked in, in a build without file loading), checked against
 * analytic results (g = (0, -10), dt = 1/60). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

static sn_registry *registry(void) { return js_registry((const char *const[]){"prismatic", "wheel", NULL}); }
static sn_body_id box(sn_world *w, sn_vec2 p, float hx, float hy, float density) {
  return js_box(w, p, 0.0f, hx, hy, (sn_vec2){0.0f, 0.0f}, density);
}
#define world_with js_world
#define ground     js_ground
#define disc       js_ball
#define joint      js_joint

static const double c30 = 0.86602540378443865, s30 = 0.5;

/* A box on a prismatic joint tilted 30 degrees, from rest under gravity,
 * anchored 0.5 m below its centre (so the angle row carries a torque):
 * along-axis acceleration g sin 30 = 5 m/s^2 (from the along-axis velocity
 * after 2 s, within 2 %); the perpendicular offset stays below 1 mm and the
 * rotation below 1e-3 rad at every step; the reaction holds the weight's
 * normal part m g cos 30 (within 2 %). */
START_TEST(test_prismatic_incline) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b = box(w, (sn_vec2){1.0f, 2.5f}, 0.3f, 0.1f, 2.0f);
  sn_param_value v[2] = {{"anchor", 1.0, 2.0}, {"axis", c30, s30}};
  sn_constraint_id j = joint(w, "prismatic", g, b, v, 2);
  ck_assert_msg(sn_constraint_is_valid(w, j), "%s", sn_world_last_error(w));
  double max_perp = 0.0, max_angle = 0.0;
  const int steps = 120;
  for (int i = 0; i < steps; ++i) {
    sn_world_step(w, 1.0f / 60.0f);
    sn_vec2 p = sn_body_get_position(w, b);
    double dx = p.x - 1.0, dy = p.y - 2.5;
    max_perp = fmax(max_perp, fabs(-s30 * dx + c30 * dy));
    max_angle = fmax(max_angle, fabs(sn_body_get_angle(w, b)));
  }
  sn_vec2 v1 = sn_body_get_linear_velocity(w, b);
  double along = c30 * v1.x + s30 * v1.y, accel = -along / 2.0;
  ck_assert_msg(fabs(accel - 5.0) < 0.02 * 5.0, "along-axis acceleration %.4f, expected 5", accel);
  ck_assert_msg(max_perp < 1e-3, "perpendicular offset %g m", max_perp);
  ck_assert_msg(max_angle < 1e-3, "relative angle %g rad", max_angle);
  sn_vec2 f;
  float tq;
  ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &tq), SN_OK);
  double normal = sn_body_get_mass(w, b) * 10.0 * c30, fn = hypot(f.x, f.y);
  ck_assert_msg(fabs(fn - normal) < 0.02 * normal, "reaction %g N, expected %g N", fn, normal);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* No gravity: the motor drives the slider to 2 m/s along the axis within 2 %
 * when the force suffices (m = 0.48 kg, 50 N). A zero axis is refused with a
 * message naming it. */
START_TEST(test_prismatic_motor) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id g = ground(w);
  sn_body_id b = box(w, (sn_vec2){0.0f, 0.0f}, 0.3f, 0.2f, 2.0f);
  sn_param_value v[5] = {{"anchor", 0.0, 0.0},
                         {"axis", c30, s30},
                         {"enable_motor", 1.0, 0.0},
                         {"motor_speed", 2.0, 0.0},
                         {"max_motor_force", 50.0, 0.0}};
  sn_constraint_id j = joint(w, "prismatic", g, b, v, 5);
  ck_assert_msg(sn_constraint_is_valid(w, j), "%s", sn_world_last_error(w));
  for (int i = 0; i < 60; ++i) sn_world_step(w, 1.0f / 60.0f);
  sn_vec2 vel = sn_body_get_linear_velocity(w, b);
  double along = c30 * vel.x + s30 * vel.y;
  ck_assert_msg(fabs(along - 2.0) < 0.02 * 2.0, "slider speed %.4f m/s, expected 2", along);
  /* runtime change of the speed */
  ck_assert_int_eq(sn_constraint_set_param(w, j, "motor_speed", -1.0, 0), SN_OK);
  for (int i = 0; i < 60; ++i) sn_world_step(w, 1.0f / 60.0f);
  vel = sn_body_get_linear_velocity(w, b);
  along = c30 * vel.x + s30 * vel.y;
  ck_assert_msg(fabs(along + 1.0) < 0.02 * 1.0, "slider speed %.4f m/s, expected -1", along);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "axis", 1.0, 0.0), SN_ERR_INVALID_ARGUMENT); /* not runtime */
  sn_param_value zero[1] = {{"axis", 0.0, 0.0}};
  ck_assert_int_eq(joint(w, "prismatic", g, b, zero, 1).index1, 0);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "axis"));
  ck_assert_int_eq(joint(w, "wheel", g, b, zero, 1).index1, 0);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "axis"));
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Limits: sliding down the 30 degree axis the box stops at the lower limit
 * (-0.5 m) within 1 cm and stays there; driven up by the motor it stops at
 * the upper limit (+0.3 m) within 1 cm. */
START_TEST(test_prismatic_limits) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b = box(w, (sn_vec2){0.0f, 0.0f}, 0.3f, 0.1f, 2.0f);
  sn_param_value v[5] = {{"anchor", 0.0, 0.0},
                         {"axis", c30, s30},
                         {"enable_limit", 1.0, 0.0},
                         {"lower_translation", -0.5, 0.0},
                         {"upper_translation", 0.3, 0.0}};
  sn_constraint_id j = joint(w, "prismatic", g, b, v, 5);
  ck_assert_msg(sn_constraint_is_valid(w, j), "%s", sn_world_last_error(w));
  double min_x = 0.0;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, 1.0f / 60.0f);
    sn_vec2 p = sn_body_get_position(w, b);
    min_x = fmin(min_x, c30 * p.x + s30 * p.y);
  }
  sn_vec2 p = sn_body_get_position(w, b);
  double x = c30 * p.x + s30 * p.y;
  ck_assert_msg(fabs(x + 0.5) < 0.01 && min_x > -0.51, "at %.4f m (min %.4f), lower limit -0.5", x, min_x);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "enable_motor", 1.0, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "motor_speed", 3.0, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "max_motor_force", 100.0, 0), SN_OK);
  double max_x = -1.0;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, 1.0f / 60.0f);
    p = sn_body_get_position(w, b);
    max_x = fmax(max_x, c30 * p.x + s30 * p.y);
  }
  x = c30 * p.x + s30 * p.y;
  ck_assert_msg(fabs(x - 0.3) < 0.01 && max_x < 0.31, "at %.4f m (max %.4f), upper limit 0.3", x, max_x);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A wheel hanging from a static body on a vertical-axis wheel joint whose
 * anchor is the wheel's centre: the spring's effective mass is the wheel's,
 * so k = m (2 pi f)^2 and the static deflection is m g / k = g / (2 pi f)^2
 * (0.2533 m for f = 1 Hz); after 6 s (damping ratio 1) within 2 %, and the
 * wheel stays on the line within 1 mm. The reaction then equals the weight
 * within 2 %. */
START_TEST(test_wheel_spring_deflection) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b = disc(w, (sn_vec2){0.0f, 0.0f}, 0.3f, 1.0f);
  sn_param_value v[4] = {{"anchor", 0.0, 0.0}, {"axis", 0.0, 1.0}, {"hertz", 1.0, 0.0}, {"damping_ratio", 1.0, 0.0}};
  sn_constraint_id j = joint(w, "wheel", g, b, v, 4);
  ck_assert_msg(sn_constraint_is_valid(w, j), "%s", sn_world_last_error(w));
  double max_perp = 0.0;
  for (int i = 0; i < 360; ++i) {
    sn_world_step(w, 1.0f / 60.0f);
    max_perp = fmax(max_perp, fabs(sn_body_get_position(w, b).x));
  }
  double expected = 10.0 / ((2.0 * PI) * (2.0 * PI)), deflection = -sn_body_get_position(w, b).y;
  ck_assert_msg(fabs(deflection - expected) < 0.02 * expected, "deflection %.5f m, expected %.5f m", deflection,
                expected);
  ck_assert_msg(max_perp < 1e-3, "off the line by %g m", max_perp);
  sn_vec2 f;
  float tq;
  ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &tq), SN_OK);
  double weight = sn_body_get_mass(w, b) * 10.0;
  ck_assert_msg(fabs(f.y - weight) < 0.02 * weight && fabs(f.x) < 0.02 * weight, "reaction (%g, %g), weight %g",
                (double)f.x, (double)f.y, weight);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A wheel on a hanging suspension under gravity: its motor brings it to
 * 5 rad/s within 2 % (10 N m is ample) while the spring carries the weight;
 * the translation limits then hold it within 1 cm of -0.1 m when the spring
 * is switched off. */
START_TEST(test_wheel_motor_and_limit) {
  sn_registry *r = registry();
  sn_world *w = world_with(r);
  sn_body_id g = ground(w);
  sn_body_id b = disc(w, (sn_vec2){0.0f, 0.0f}, 0.3f, 1.0f);
  sn_param_value v[7] = {{"anchor", 0.0, 0.0},         {"axis", 0.0, 1.0},     {"hertz", 4.0, 0.0},
                         {"damping_ratio", 0.7, 0.0},  {"enable_motor", 1, 0}, {"motor_speed", 5.0, 0.0},
                         {"max_motor_torque", 10.0, 0}};
  sn_constraint_id j = joint(w, "wheel", g, b, v, 7);
  ck_assert_msg(sn_constraint_is_valid(w, j), "%s", sn_world_last_error(w));
  for (int i = 0; i < 120; ++i) sn_world_step(w, 1.0f / 60.0f);
  double omega = sn_body_get_angular_velocity(w, b);
  ck_assert_msg(fabs(omega - 5.0) < 0.02 * 5.0, "wheel spin %.4f rad/s, expected 5", omega);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "lower_translation", -0.1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "upper_translation", 0.1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "enable_limit", 1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "enable_spring", 0, 0), SN_OK);
  for (int i = 0; i < 120; ++i) sn_world_step(w, 1.0f / 60.0f);
  double y = sn_body_get_position(w, b).y;
  ck_assert_msg(fabs(y + 0.1) < 0.01, "wheel at %.4f m, lower limit -0.1", y);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joints_prismatic");
  TCase *tc = tcase_create("prismatic");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_prismatic_incline);
  tcase_add_test(tc, test_prismatic_motor);
  tcase_add_test(tc, test_prismatic_limits);
  suite_add_tcase(s, tc);
  TCase *tw = tcase_create("wheel");
  tcase_set_timeout(tw, 120);
  tcase_add_test(tw, test_wheel_spring_deflection);
  tcase_add_test(tw, test_wheel_motor_and_limit);
  suite_add_tcase(s, tw);
  return s;
}
