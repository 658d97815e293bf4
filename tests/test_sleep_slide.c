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

Suite *sn_test_suite(void) {
  Suite *s = suite_create("sleep_slide");
  TCase *tc = tcase_create("sleep");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_slope_threshold_with_sleep);
  tcase_add_test(tc, test_piles_still_sleep);
  suite_add_tcase(s, tc);
  return s;
}
