/* Sleeping and sliding: with sleep on (the default) a box on a slope just
 * past its friction angle slides as the closed form says instead of falling
 * asleep while it is still slow, a box just below it stops and sleeps, and
 * resting piles go to sleep as fast as they did. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_main.h"
#include "scenes.h"
#include "sinew/sinew.h"

#define PI_D 3.14159265358979323846

static const float dt = 1.0f / 60.0f;

typedef struct slide_result {
  double along;  /* distance slid down the slope (m) */
  bool awake;    /* the box at the end */
  double asleep; /* time the box fell asleep (s), or -1 */
} slide_result;

/* A 1 m box resting on a static ramp tilted theta, friction mu on both, from
 * rest, stepped `seconds` at the defaults (sleep on unless told). */
static slide_result slope_run(float mu, double theta, double seconds, bool sleep) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = sleep;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def rd = sn_default_body_def();
  rd.angle = (float)theta;
  sn_body_id ramp = sn_create_body(w, &rd);
  sn_polygon board, box;
  ck_assert_int_eq(sn_make_box(50.0f, 0.5f, &board), SN_OK);
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = mu;
  ck_assert(sn_create_polygon_shape(w, ramp, &sd, &board).index1 != 0);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.angle = (float)theta;
  bd.position = (sn_vec2){-sinf((float)theta), cosf((float)theta)}; /* on the ramp's top face */
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert(sn_create_polygon_shape(w, b, &sd, &box).index1 != 0);
  sn_vec2 p0 = sn_body_get_position(w, b);
  slide_result r = {0.0, true, -1.0};
  int steps = (int)lround(seconds / (double)dt);
  for (int i = 0; i < steps; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    if (r.asleep < 0.0 && !sn_body_is_awake(w, b)) r.asleep = (i + 1) * (double)dt;
  }
  sn_vec2 p1 = sn_body_get_position(w, b);
  /* down the slope is (-cos, -sin) */
  r.along = -((double)(p1.x - p0.x) * cos(theta) + (double)(p1.y - p0.y) * sin(theta));
  r.awake = sn_body_is_awake(w, b);
  sn_destroy_world(w);
  return r;
}

/* mu = 0.5 (friction angle atan 0.5 = 26.57 degrees), sleep on: 0.5 degree
 * above it the box slides 0.5 a t^2 (a = g (sin - mu cos)) within 10 % over
 * 3 s, and at 27.0 degrees 0.38 m; 0.5 degree below it the box stays put and
 * falls asleep. A sleep test on speed alone lets the box at 27.0 degrees
 * slide 11 mm and sleep (it stays under 0.05 m/s for the first 0.5 s). */
START_TEST(test_slope_threshold_with_sleep) {
  const float mu = 0.5f;
  const double crit = atan((double)mu), half = 0.5 * PI_D / 180.0;
  const double angles[] = {crit + half, 27.0 * PI_D / 180.0};
  for (int k = 0; k < 2; ++k) {
    double theta = angles[k];
    slide_result r = slope_run(mu, theta, 3.0, true);
    double a = 10.0 * (sin(theta) - (double)mu * cos(theta));
    double expected = 0.5 * a * 3.0 * 3.0;
    printf("slope %.2f deg, sleep on: slid %.4f m, closed form %.4f m, awake %d\n", theta * 180.0 / PI_D, r.along,
           expected, (int)r.awake);
    ck_assert_msg(fabs(r.along - expected) < 0.10 * expected, "%.2f deg: slid %.4f m, expected %.4f m",
                  theta * 180.0 / PI_D, r.along, expected);
    ck_assert_msg(r.awake && r.asleep < 0.0, "%.2f deg: the sliding box fell asleep at %.2f s", theta * 180.0 / PI_D,
                  r.asleep);
  }
  slide_result stay = slope_run(mu, crit - half, 3.0, true);
  printf("slope %.2f deg, sleep on: moved %.5f m, asleep at %.2f s\n", (crit - half) * 180.0 / PI_D, stay.along,
         stay.asleep);
  ck_assert_msg(fabs(stay.along) < 0.002, "below the friction angle the box moved %.4f m", stay.along);
  ck_assert_msg(!stay.awake && stay.asleep > 0.0 && stay.asleep < 1.5, "below the friction angle: asleep at %.2f s",
                stay.asleep);
}
END_TEST

/* Time until every body of a pyramid of `rows` rows (sleep on) is asleep,
 * in steps (-1 if not within the limit). */
static int pyramid_sleep_steps(int32_t rows, int limit) {
  sn_scene s;
  ck_assert(sn_scene_build(&s, "pyramid", rows, 0, true));
  int asleep_at = -1;
  for (int i = 0; i < limit && asleep_at < 0; ++i) {
    ck_assert_int_eq(sn_world_step(s.world, dt), SN_OK);
    bool all = true;
    for (int32_t k = 0; k < s.body_count && all; ++k) all = !sn_body_is_awake(s.world, s.bodies[k]);
    if (all) asleep_at = i + 1;
  }
  sn_scene_destroy(&s);
  return asleep_at;
}

/* Resting piles go to sleep quickly: a pyramid of 10 rows is wholly asleep
 * by step 36 and one of 20 rows by step 54 (measured: steps 30 and 45, the
 * same steps as a sleep test on speed alone; holding an accelerating body
 * awake must not hold a settling pile awake). */
START_TEST(test_piles_still_sleep) {
  int p10 = pyramid_sleep_steps(10, 600), p20 = pyramid_sleep_steps(20, 600);
  printf("pyramid 10 asleep at step %d, pyramid 20 at step %d\n", p10, p20);
  ck_assert_msg(p10 > 0 && p10 <= 36, "pyramid 10 asleep at step %d", p10);
  ck_assert_msg(p20 > 0 && p20 <= 54, "pyramid 20 asleep at step %d", p20);
}
END_TEST

/* A drifting body in zero gravity, nothing to touch: the sleep rule alone.
 * The rule (rigid/solver.c): a body is at rest while |v| < t and
 * |w| < (2 deg/s) x t / 0.05, t its sleep threshold (m/s); its island sleeps
 * once it has been at rest for SN_TIME_TO_SLEEP = 0.5 s, i.e. at step
 * ceil(0.5 / dt) = 30 at dt = 1/60 (the float sum of 30 dt is 0.5 within
 * 1 ulp, so step 30 or 31). */
static sn_body_id drifter(sn_world *w, float y, sn_vec2 v, float spin, float threshold) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, y};
  bd.linear_velocity = v;
  bd.angular_velocity = spin;
  bd.sleep_threshold = threshold;
  sn_body_id b = sn_create_body(w, &bd);
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_create_circle_shape(w, b, &sd, &c).index1 != 0);
  return b;
}

/* The step at which b fell asleep (1-based), or -1 within `steps`. */
static int asleep_step(sn_world *w, sn_body_id b, int *first, int steps) {
  for (int i = 0; i < steps; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    if (*first < 0 && !sn_body_is_awake(w, b)) *first = i + 1;
  }
  return *first;
}

START_TEST(test_sleep_threshold_per_body) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  ck_assert(sn_default_body_def().sleep_threshold == 0.05f);
  /* 0.08 m/s: below 0.1, above the default 0.05 */
  sn_body_id high = drifter(w, 0.0f, (sn_vec2){0.08f, 0.0f}, 0.0f, 0.1f);
  sn_body_id low = drifter(w, 10.0f, (sn_vec2){0.08f, 0.0f}, 0.0f, 0.05f);
  /* 0.05 rad/s: below 2 deg/s x 0.1 / 0.05 = 0.0698 rad/s, above 2 deg/s = 0.0349 rad/s */
  sn_body_id spin_high = drifter(w, 20.0f, (sn_vec2){0.0f, 0.0f}, 0.05f, 0.1f);
  sn_body_id spin_low = drifter(w, 30.0f, (sn_vec2){0.0f, 0.0f}, 0.05f, 0.05f);
  /* 0.03 m/s with the default threshold: at rest by the default rule */
  sn_body_id slow = drifter(w, 40.0f, (sn_vec2){0.03f, 0.0f}, 0.0f, SN_DEFAULT_SLEEP_THRESHOLD);
  ck_assert(sn_body_get_sleep_threshold(w, high) == 0.1f);
  ck_assert(sn_body_get_sleep_threshold(w, low) == 0.05f);
  sn_body_def got;
  ck_assert_int_eq(sn_body_get_def(w, high, &got), SN_OK);
  ck_assert(got.sleep_threshold == 0.1f);
  int first[5] = {-1, -1, -1, -1, -1};
  const sn_body_id all[5] = {high, low, spin_high, spin_low, slow};
  for (int i = 0; i < 120; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    for (int k = 0; k < 5; ++k)
      if (first[k] < 0 && !sn_body_is_awake(w, all[k])) first[k] = i + 1;
  }
  printf("asleep at steps: high %d, low %d, spin high %d, spin low %d, slow %d\n", first[0], first[1], first[2],
         first[3], first[4]);
  ck_assert_msg(first[0] >= 30 && first[0] <= 31, "threshold 0.1 at 0.08 m/s asleep at step %d", first[0]);
  ck_assert_msg(first[2] >= 30 && first[2] <= 31, "threshold 0.1 at 0.05 rad/s asleep at step %d", first[2]);
  ck_assert_msg(first[4] >= 30 && first[4] <= 31, "default threshold at 0.03 m/s asleep at step %d", first[4]);
  ck_assert_msg(first[1] < 0, "default threshold at 0.08 m/s fell asleep at step %d", first[1]);
  ck_assert_msg(first[3] < 0, "default threshold at 0.05 rad/s fell asleep at step %d", first[3]);
  /* the awake ones keep their speed: no gravity, no damping, nothing touched */
  ck_assert_float_eq_tol(sn_body_get_linear_velocity(w, low).x, 0.08f, 1e-6f);
  ck_assert_float_eq_tol(sn_body_get_angular_velocity(w, spin_low), 0.05f, 1e-6f);
  /* raising the awake body's threshold lets it sleep 30 steps later (the
   * setter wakes nothing and keeps the running timer at 0) */
  ck_assert_int_eq(sn_body_set_sleep_threshold(w, low, 0.1f), SN_OK);
  ck_assert(sn_body_get_sleep_threshold(w, low) == 0.1f);
  int later = -1;
  asleep_step(w, low, &later, 40);
  ck_assert_msg(later >= 30 && later <= 31, "raised threshold: asleep after %d more steps", later);
  /* threshold 0: never at rest, even at 0.03 m/s */
  ck_assert_int_eq(sn_body_set_awake(w, slow, true), SN_OK);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, slow, (sn_vec2){0.03f, 0.0f}), SN_OK);
  ck_assert_int_eq(sn_body_set_sleep_threshold(w, slow, 0.0f), SN_OK);
  int never = -1;
  asleep_step(w, slow, &never, 120);
  ck_assert_msg(never < 0, "threshold 0 fell asleep at step %d", never);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("sleep_slide");
  TCase *tc = tcase_create("sleep");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_slope_threshold_with_sleep);
  tcase_add_test(tc, test_piles_still_sleep);
  tcase_add_test(tc, test_sleep_threshold_per_body);
  suite_add_tcase(s, tc);
  return s;
}
