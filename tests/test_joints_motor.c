/* The motor and mouse joint plugins, loaded as real shared objects from the
 * build tree (linked in, in a build without file loading); dt = 1/60, the
 * world's default substeps, g = (0, -10) unless switched off. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

static sn_registry *registry(void) { return js_registry((const char *const[]){"motor", "mouse", NULL}); }
static sn_world *world_with(const sn_registry *r, float gravity) {
  sn_world *w = js_world(r);
  sn_world_set_gravity(w, (sn_vec2){0.0f, -gravity});
  return w;
}
/* A dynamic box (half extents hx, hy) whose centre sits at `offset` from its origin. */
static sn_body_id box(sn_world *w, sn_vec2 p, float angle, float hx, float hy, sn_vec2 offset) {
  return js_box(w, p, angle, hx, hy, offset, 1.0f);
}

static sn_constraint_id motor(sn_world *w, sn_body_id a, sn_body_id b, sn_vec2 offset, float angle, float max_force,
                              float max_torque) {
  sn_param_value v[5] = {{"linear_offset", offset.x, offset.y},
                         {"angular_offset", angle, 0.0},
                         {"max_force", max_force, 0.0},
                         {"max_torque", max_torque, 0.0},
                         {"correction_factor", 0.3, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "motor";
  cd.bodies[0] = a;
  cd.bodies[1] = b;
  cd.params = v;
  cd.param_count = 5;
  return sn_create_constraint(w, &cd);
}

static sn_constraint_id mouse(sn_world *w, sn_body_id b, sn_vec2 anchor, sn_vec2 target, float max_force) {
  sn_param_value v[5] = {{"anchor", anchor.x, anchor.y},
                         {"target", target.x, target.y},
                         {"hertz", 5.0, 0.0},
                         {"damping_ratio", 0.7, 0.0},
                         {"max_force", max_force, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "mouse";
  cd.bodies[0] = b;
  cd.params = v;
  cd.param_count = 5;
  return sn_create_constraint(w, &cd);
}

/* Pose error of b against the motor target (origin of A + R_A offset, angle A + angle). */
static void motor_error(sn_world *w, sn_body_id a, sn_body_id b, sn_vec2 offset, float angle, double *dist,
                        double *dangle) {
  sn_vec2 target = sn_body_get_world_point(w, a, offset);
  sn_vec2 p = sn_body_get_position(w, b);
  *dist = hypot(p.x - target.x, p.y - target.y);
  double e = sn_body_get_angle(w, b) - sn_body_get_angle(w, a) - angle;
  *dangle = fabs(atan2(sin(e), cos(e)));
}

/* No gravity: a motor from a rotated static body to a 1 x 0.5 box whose centre
 * is off its origin brings B's origin to the target offset within 1 cm and
 * 2 degrees within 3 s, holds it for 2 s more, and follows a runtime change
 * of the offset the same way. */
START_TEST(test_motor_reaches_and_holds) {
  sn_registry *r = registry();
  sn_world *w = world_with(r, 0.0f);
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){1.0f, 0.5f};
  gd.angle = 0.3f;
  sn_body_id ground = sn_create_body(w, &gd);
  sn_body_id b = box(w, (sn_vec2){-1.0f, -1.0f}, 0.0f, 0.5f, 0.25f, (sn_vec2){0.2f, 0.1f});
  float m = sn_body_get_mass(w, b);
  sn_vec2 offset = {2.0f, 1.0f};
  float angle = 0.5f;
  sn_constraint_id j = motor(w, ground, b, offset, angle, 50.0f * m, 50.0f * m);
  ck_assert(sn_constraint_is_valid(w, j));
  const double tol_d = 0.01, tol_a = 2.0 * PI / 180.0;
  for (int phase = 0; phase < 2; ++phase) {
    double arrival = -1.0, worst_d = 0.0, worst_a = 0.0, dist, dangle;
    for (int i = 1; i <= 300; ++i) {
      sn_world_step(w, DT);
      motor_error(w, ground, b, offset, angle, &dist, &dangle);
      if (arrival < 0.0 && dist < tol_d && dangle < tol_a) arrival = i * (double)DT;
      if (arrival >= 0.0) {
        worst_d = fmax(worst_d, dist);
        worst_a = fmax(worst_a, dangle);
      }
    }
    ck_assert_msg(arrival >= 0.0 && arrival <= 3.0, "phase %d: arrival %g s (error %g m, %g rad)", phase, arrival, dist,
                  dangle);
    ck_assert_msg(worst_d < tol_d && worst_a < tol_a, "phase %d: held within %g m, %g rad", phase, worst_d, worst_a);
    /* phase 1: move the target at runtime */
    offset = (sn_vec2){-1.0f, 2.0f};
    angle = -1.0f;
    ck_assert_int_eq(sn_constraint_set_param(w, j, "linear_offset", offset.x, offset.y), SN_OK);
    ck_assert_int_eq(sn_constraint_set_param(w, j, "angular_offset", angle, 0.0), SN_OK);
  }
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Gravity on, max_force = 0.5 m g < m g: the box falls (at least 2 m in 1 s:
 * net downward acceleration >= g / 2), the reaction never exceeds
 * 1.01 max_force, and it saturates at max_force (within 1 %). */
START_TEST(test_motor_force_bound) {
  sn_registry *r = registry();
  sn_world *w = world_with(r, 10.0f);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_body_id b = box(w, (sn_vec2){0.0f, -1.0f}, 0.0f, 0.5f, 0.5f, (sn_vec2){0.0f, 0.0f});
  float m = sn_body_get_mass(w, b), max_force = 0.5f * m * 10.0f;
  sn_constraint_id j = motor(w, ground, b, (sn_vec2){0.0f, -1.0f}, 0.0f, max_force, 1000.0f);
  double worst = 0.0;
  sn_vec2 f = {0.0f, 0.0f};
  float tq;
  for (int i = 0; i < 60; ++i) {
    sn_world_step(w, DT);
    ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &tq), SN_OK);
    worst = fmax(worst, hypot(f.x, f.y));
  }
  double drop = -1.0 - sn_body_get_position(w, b).y;
  ck_assert_msg(drop > 2.0, "fell %g m", drop);
  ck_assert_msg(worst <= 1.01 * max_force, "reaction %g N, max_force %g N", worst, (double)max_force);
  ck_assert_msg(fabs(f.y - max_force) < 0.01 * max_force && fabsf(f.x) < 0.01f * max_force, "reaction (%g, %g)",
                (double)f.x, (double)f.y);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* No gravity: a mouse joint grabbing a 1 x 1 box off its centre drags the grab
 * point to a target 3 m away within 2 s, to within 1 cm; the reaction never
 * exceeds 1.01 max_force. */
START_TEST(test_mouse_drag) {
  sn_registry *r = registry();
  sn_world *w = world_with(r, 0.0f);
  sn_body_id b = box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.5f, 0.5f, (sn_vec2){0.0f, 0.0f});
  float m = sn_body_get_mass(w, b), max_force = 100.0f * m;
  sn_vec2 anchor = {0.1f, 0.05f}, target = {3.0f, 0.0f};
  sn_vec2 local = sn_body_get_local_point(w, b, anchor);
  sn_constraint_id j = mouse(w, b, anchor, target, max_force);
  ck_assert(sn_constraint_is_valid(w, j));
  double arrival = -1.0, worst = 0.0, dist = 0.0;
  for (int i = 1; i <= 120; ++i) {
    sn_world_step(w, DT);
    sn_vec2 g = sn_body_get_world_point(w, b, local);
    dist = hypot(g.x - target.x, g.y - target.y);
    if (arrival < 0.0 && dist < 0.01) arrival = i * (double)DT;
    sn_vec2 f;
    float tq;
    ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &tq), SN_OK);
    worst = fmax(worst, hypot(f.x, f.y));
  }
  ck_assert_msg(arrival >= 0.0 && dist < 0.01, "arrival %g s, final error %g m", arrival, dist);
  ck_assert_msg(worst <= 1.01 * max_force, "reaction %g N, max_force %g N", worst, (double)max_force);
  /* runtime target */
  ck_assert_int_eq(sn_constraint_set_param(w, j, "target", 3.0, 3.0), SN_OK);
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  sn_vec2 g = sn_body_get_world_point(w, b, local);
  ck_assert_msg(hypot(g.x - 3.0, g.y - 3.0) < 0.01, "grab point (%g, %g)", (double)g.x, (double)g.y);
  ck_assert_int_eq(sn_constraint_set_param(w, j, "anchor", 0.0, 0.0), SN_ERR_INVALID_ARGUMENT); /* not runtime */
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Gravity on, a box resting on the ground grabbed at its centre, target 3 m
 * above, max_force = 0.5 m g: it stays on the ground (within 1 cm) and the
 * reaction is the bounded pull, (0, max_force) within 1 %. */
START_TEST(test_mouse_cannot_lift) {
  sn_registry *r = registry();
  sn_world *w = world_with(r, 10.0f);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_offset_box(10.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &slab), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &slab);
  sn_body_id b = box(w, (sn_vec2){0.0f, 0.5f}, 0.0f, 0.5f, 0.5f, (sn_vec2){0.0f, 0.0f});
  for (int i = 0; i < 30; ++i) sn_world_step(w, DT); /* settle */
  float m = sn_body_get_mass(w, b), max_force = 0.5f * m * 10.0f;
  sn_vec2 c = sn_body_get_position(w, b);
  sn_constraint_id j = mouse(w, b, c, (sn_vec2){c.x, c.y + 3.0f}, max_force);
  double worst_dy = 0.0;
  sn_vec2 f = {0.0f, 0.0f};
  float tq;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, DT);
    worst_dy = fmax(worst_dy, fabs(sn_body_get_position(w, b).y - 0.5));
  }
  ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &tq), SN_OK);
  ck_assert_msg(worst_dy < 0.01, "moved %g m off the ground", worst_dy);
  ck_assert_msg(fabs(f.y - max_force) < 0.01 * max_force && fabsf(f.x) < 0.01f * max_force,
                "reaction (%g, %g), max_force %g", (double)f.x, (double)f.y, (double)max_force);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joints_motor");
  TCase *tc = tcase_create("motor_mouse");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_motor_reaches_and_holds);
  tcase_add_test(tc, test_motor_force_bound);
  tcase_add_test(tc, test_mouse_drag);
  tcase_add_test(tc, test_mouse_cannot_lift);
  suite_add_tcase(s, tc);
  return s;
}
