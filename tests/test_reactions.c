/* Reaction accounting (sinew/plugin_math.h, sn_pm_reaction_*; docs/plugins.md
 * "Reaction accounting"): the helper's arithmetic on a made-up step, and
 * what the five shipped joints that use it (revolute, prismatic, wheel,
 * distance, weld) report against closed forms, with the position stage and
 * without it (position_iterations 0: the last impulse), at 8 substeps and at
 * 3. A body hanging at rest carries its weight m g on every joint (a weld
 * whose anchor is d beside the centre of mass also the torque m g d), and a
 * pendulum on a revolute pin or a distance rod pulls along its arm with
 * m g cos(theta) + m v^2 / L, m g + m v^2 / L at the bottom. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/plugin_math.h"
#include "sinew/sinew.h"

#define G 10.0

/* ------------------------------------------------------------------------ */
/* The helper                                                               */

/* A step of 4 substeps of h = 0.25 s, 3 position sweeps each: the row's
 * accumulated impulse is 1, 2, 3, 4 at the substeps' first sweeps and every
 * sweep corrects by 0.5 kg m, which counts as 0.5 / h = 2 N s. The step's
 * average impulse is (10 + 4 * 3 * 2) / 4 = 8.5 N s, so 34 N (all exact in
 * binary floating point). */
START_TEST(test_helper_arithmetic) {
  sn_step_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  info.substeps = 4;
  info.h = 0.25f;
  info.inv_h = 4.0f;
  info.iterations = 3;
  float sum = 0.0f;
  sn_vec2 sum2 = {0.0f, 0.0f};
  int32_t samples = 0;
  for (int32_t k = 0; k < 4; ++k) {
    info.substep = k;
    for (int32_t it = 0; it < 3; ++it) {
      info.iteration = it;
      bool first = sn_pm_reaction_sample(&info, &samples);
      ck_assert(first == (it == 0));
      if (first) {
        sum += (float)(k + 1);
        sum2 = sn_pm_add(sum2, sn_pm_vec2((float)(k + 1), -(float)(k + 1)));
      }
      sum += sn_pm_reaction_correction(&info, 0.5f);
      sum2 = sn_pm_add(sum2, sn_pm_reaction_correction2(&info, sn_pm_vec2(0.5f, -0.5f)));
    }
  }
  ck_assert_int_eq(samples, 4);
  ck_assert_float_eq(sum, 34.0f);
  ck_assert_float_eq(sn_pm_reaction_average(sum, samples, 99.0f), 8.5f);
  ck_assert_float_eq(info.inv_h * sn_pm_reaction_average(sum, samples, 99.0f), 34.0f);
  sn_vec2 avg = sn_pm_reaction_average2(sum2, samples, sn_pm_vec2(99.0f, 99.0f));
  ck_assert_float_eq(avg.x, 8.5f);
  ck_assert_float_eq(avg.y, -8.5f);
  /* no position stage: nothing sampled, the last accumulated impulse */
  ck_assert_float_eq(sn_pm_reaction_average(0.0f, 0, 3.0f), 3.0f);
  avg = sn_pm_reaction_average2(sn_pm_vec2(0.0f, 0.0f), 0, sn_pm_vec2(3.0f, -1.0f));
  ck_assert(avg.x == 3.0f && avg.y == -1.0f);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The shipped joints                                                       */

static sn_registry *joints(void) {
  return js_registry((const char *const[]){"revolute", "prismatic", "wheel", "distance", "weld", NULL});
}

static sn_world *world(const sn_registry *r, int32_t substeps, int32_t position_iterations) {
  sn_world *w = js_world(r);
  ck_assert_int_eq(sn_world_set_substeps(w, substeps), SN_OK);
  ck_assert_int_eq(sn_world_set_position_iterations(w, position_iterations), SN_OK);
  return w;
}

/* The settings each closed form is checked with: default substeps, 3, and
 * each without the position stage. */
static const int32_t settings[4][2] = {{8, 2}, {3, 2}, {8, 0}, {3, 0}};

/* A box (0.4 x 0.4 m, density 2) at rest at (0, 3) on a joint of `type` to
 * the ground: after 2 s the reaction on the box holds it up. */
START_TEST(test_hanging_weight) {
  static const struct {
    const char *type;
    sn_param_value params[3];
    int32_t count;
    float d; /* the anchor's offset from the centre of mass along x (weld torque) */
  } cases[] = {
      {"revolute", {{"anchor", 0.0, 4.0}}, 1, 0.0f},
      {"distance", {{"anchor_a", 0.0, 4.5}, {"anchor_b", 0.0, 3.0}}, 2, 0.0f},
      {"prismatic", {{"anchor", 0.0, 3.0}, {"axis", 1.0, 0.0}}, 2, 0.0f},
      {"wheel", {{"anchor", 0.0, 3.0}, {"axis", 1.0, 0.0}}, 2, 0.0f},
      {"weld", {{"anchor", -0.5, 3.0}}, 1, 0.5f},
  };
  sn_registry *r = joints();
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    for (int s = 0; s < 4; ++s) {
      sn_world *w = world(r, settings[s][0], settings[s][1]);
      sn_body_id box = js_box(w, (sn_vec2){0.0f, 3.0f}, 0.0f, 0.2f, 0.2f, (sn_vec2){0.0f, 0.0f}, 2.0f);
      sn_constraint_id j = js_joint(w, cases[c].type, js_ground(w), box, cases[c].params, cases[c].count);
      ck_assert_msg(sn_constraint_is_valid(w, j), "%s: %s", cases[c].type, sn_world_last_error(w));
      for (int i = 0; i < 120; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      sn_vec2 f;
      float torque;
      ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &torque), SN_OK);
      double weight = sn_body_get_mass(w, box) * G;
      double want_torque = weight * cases[c].d;
      ck_assert_msg(
          fabs(f.y - weight) < 0.01 * weight && fabs(f.x) < 0.01 * weight && fabs(torque - want_torque) < 0.01 * weight,
          "%s, %d substeps, %d position iterations: force (%g, %g), torque %g; expected (0, %g), %g", cases[c].type,
          (int)settings[s][0], (int)settings[s][1], (double)f.x, (double)f.y, (double)torque, weight, want_torque);
      sn_destroy_world(w);
    }
  }
  sn_destroy_registry(r);
}
END_TEST

/* A disc (r = 0.1, density 1) on an arm of L = 2 m (a revolute pin, or a
 * distance rod between the pivot and the disc's centre) released at rest
 * level with the pivot. The pull along the arm is m g cos(theta) + m v^2 / L
 * (theta from the vertical, v the disc's speed): at the bottom m g + m v^2 /
 * L (3 m g for a point mass), which the reaction matches within 1 % of m g.
 * On the way down the closed form changes by up to 10 % of m g in a step, and
 * the reaction is what the accounting says: with the position stage the
 * step's average (within 2 % of m g of the mean of the closed form at the
 * step's start and end), without it the last substep's impulse (within 2 %
 * of the value at the step's end). */
START_TEST(test_pendulum_arm_tension) {
  static const char *const types[] = {"revolute", "distance"};
  const double L = 2.0;
  const sn_vec2 pivot = {0.0f, 5.0f};
  sn_registry *r = joints();
  for (int t = 0; t < 2; ++t) {
    for (int s = 0; s < 4; ++s) {
      const int32_t substeps = settings[s][0], iterations = settings[s][1];
      sn_world *w = world(r, substeps, iterations);
      sn_body_id bob = js_ball(w, (sn_vec2){(float)L, pivot.y}, 0.1f, 1.0f);
      sn_param_value pin[1] = {{"anchor", pivot.x, pivot.y}};
      sn_param_value rod[2] = {{"anchor_a", pivot.x, pivot.y}, {"anchor_b", L, pivot.y}};
      sn_constraint_id j = js_joint(w, types[t], js_ground(w), bob, t == 0 ? pin : rod, t == 0 ? 1 : 2);
      ck_assert_msg(sn_constraint_is_valid(w, j), "%s: %s", types[t], sn_world_last_error(w));
      const double m = sn_body_get_mass(w, bob), mg = m * G;
      double before = 0.0; /* the closed form at the step's start: at rest, level with the pivot */
      double at_bottom = -1.0;
      float prev_x = (float)L;
      for (int i = 0; i < 150 && at_bottom < 0.0; ++i) {
        ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
        sn_vec2 p = sn_body_get_world_center_of_mass(w, bob), v = sn_body_get_linear_velocity(w, bob), f;
        float torque;
        ck_assert_int_eq(sn_constraint_get_reaction(w, j, &f, &torque), SN_OK);
        double ux = pivot.x - p.x, uy = pivot.y - p.y, arm = hypot(ux, uy);
        double along = (f.x * ux + f.y * uy) / arm; /* towards the pivot */
        double now = mg * uy / arm + m * (v.x * (double)v.x + v.y * (double)v.y) / arm;
        double expected = iterations > 0 ? 0.5 * (before + now) : now;
        ck_assert_msg(fabs(along - expected) < 0.02 * mg,
                      "%s, %d substeps, %d position iterations, step %d: %g N along the arm, expected %g N", types[t],
                      (int)substeps, (int)iterations, i, along, expected);
        if (prev_x > 0.0f && p.x <= 0.0f) {
          at_bottom = along;
          ck_assert_msg(fabs(along - now) < 0.01 * mg,
                        "%s, %d substeps, %d position iterations: %g N along the arm at the bottom, m g + m v^2 / L "
                        "= %g N",
                        types[t], (int)substeps, (int)iterations, along, now);
        }
        before = now;
        prev_x = p.x;
      }
      ck_assert_msg(at_bottom > 2.9 * mg, "%s: the disc did not swing through the bottom (%g N there)", types[t],
                    at_bottom);
      sn_destroy_world(w);
    }
  }
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("reactions");
  TCase *tc = tcase_create("reactions");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_helper_arithmetic);
  tcase_add_test(tc, test_hanging_weight);
  tcase_add_test(tc, test_pendulum_arm_tension);
  suite_add_tcase(s, tc);
  return s;
}
