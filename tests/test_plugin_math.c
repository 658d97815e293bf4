/* The shared solver steps of sinew/plugin_math.h on made-up rows, against
 * their closed forms (numbers chosen exact in binary floating point): the
 * XPBD multiplier step with compliance and damping, plain PBD's per-sweep
 * stiffness, and one side of a limit row (speculative while open, soft once
 * closed in the biased pass, rigid in the relax pass, never pulling). The
 * plugins built on them are pinned in test_determinism.c and checked
 * against physics in the joint and soft-body suites; reaction accounting is
 * test_reactions.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/plugin_math.h"

static sn_step_info step(float h, int32_t substeps, int32_t iterations) {
  sn_step_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  info.h = h;
  info.inv_h = 1.0f / h;
  info.substeps = substeps;
  info.iterations = iterations;
  return info;
}

START_TEST(test_xpbd_delta_lambda) {
  const sn_step_info info = step(0.5f, 4, 1); /* 1 / h^2 = 4 */
  /* inextensible: the whole error, -c / wsum, whatever lambda and damping */
  ck_assert_float_eq(sn_pm_xpbd_delta_lambda(&info, 0.5f, 2.0f, 3.0f, 0.25f, 0.0f, 7.0f), -0.25f);
  /* compliant: alpha~ = 0.25 * 4 = 1; (-0.5 - 1 * 3) / (2 + 1) */
  ck_assert_float_eq(sn_pm_xpbd_delta_lambda(&info, 0.5f, 2.0f, 3.0f, 0.25f, 0.25f, 0.0f), -3.5f / 3.0f);
  /* damped: gamma = 1 / 0.5 = 2; (-0.5 - 3 - 2 (0.5 - 0.25)) / (3 * 2 + 1) = -4 / 7 */
  ck_assert_float_eq(sn_pm_xpbd_delta_lambda(&info, 0.5f, 2.0f, 3.0f, 0.25f, 0.25f, 1.0f), -4.0f / 7.0f);
}
END_TEST

START_TEST(test_pbd_sweep_stiffness) {
  /* one sweep per step: the user's stiffness; full stiffness stays full */
  sn_step_info info = step(0.25f, 1, 1);
  ck_assert_float_eq(sn_pm_pbd_sweep_stiffness(&info, 0.75f), 0.75f);
  info = step(0.25f, 4, 2);
  ck_assert_float_eq(sn_pm_pbd_sweep_stiffness(&info, 1.0f), 1.0f);
  /* 8 sweeps of k' leave (1 - k')^8 = 1 - k of the error */
  const float k = sn_pm_pbd_sweep_stiffness(&info, 0.75f);
  ck_assert_double_eq_tol(pow(1.0 - (double)k, 8.0), 0.25, 1e-6);
  /* iterations 0 counts as one sweep per substep */
  sn_step_info none = step(0.25f, 4, 0), one = step(0.25f, 4, 1);
  ck_assert_float_eq(sn_pm_pbd_sweep_stiffness(&none, 0.5f), sn_pm_pbd_sweep_stiffness(&one, 0.5f));
}
END_TEST

START_TEST(test_limit_impulse) {
  const sn_pm_softness soft = {2.0f, 0.5f, 0.25f};
  const float mass = 2.0f, inv_h = 10.0f;
  float acc = 0.0f;
  /* open gap 0.1 m closing at 3 m/s: may close it within the substep
   * (1 m/s), no faster: -2 (-3 + 1) = 4 */
  ck_assert_float_eq(sn_pm_limit_impulse(0.1f, -3.0f, mass, 1, inv_h, soft, &acc), 4.0f);
  ck_assert_float_eq(acc, 4.0f);
  /* at rest: the gap may close by 1 m/s, so -2 of the 4 back */
  ck_assert_float_eq(sn_pm_limit_impulse(0.1f, 0.0f, mass, 1, inv_h, soft, &acc), -2.0f);
  ck_assert_float_eq(acc, 2.0f);
  /* opening: all of it back, never below 0 (a limit never pulls) */
  ck_assert_float_eq(sn_pm_limit_impulse(0.1f, 5.0f, mass, 1, inv_h, soft, &acc), -2.0f);
  ck_assert_float_eq(acc, 0.0f);
  /* closed, violated by 0.5, biased pass: soft, bias 2 * -0.5 = -1, mass_scale
   * 0.5: -0.5 * 2 (0 - 1) - 0.25 * 0 = 1 */
  ck_assert_float_eq(sn_pm_limit_impulse(-0.5f, 0.0f, mass, 1, inv_h, soft, &acc), 1.0f);
  ck_assert_float_eq(acc, 1.0f);
  /* closing at 1 m/s in the relax pass: rigid, no bias: -2 * -1 = 2 more */
  ck_assert_float_eq(sn_pm_limit_impulse(-0.5f, -1.0f, mass, 0, inv_h, soft, &acc), 2.0f);
  ck_assert_float_eq(acc, 3.0f);
  /* touching (c 0), biased pass: the soft row gives back impulse_scale of
   * the accumulated impulse: -1 * 0 - 0.25 * 3 */
  ck_assert_float_eq(sn_pm_limit_impulse(0.0f, 0.0f, mass, 1, inv_h, soft, &acc), -0.75f);
  ck_assert_float_eq(acc, 2.25f);
  /* separating fast: the accumulated impulse goes to 0, never below */
  ck_assert_float_eq(sn_pm_limit_impulse(-0.5f, 10.0f, mass, 0, inv_h, soft, &acc), -2.25f);
  ck_assert_float_eq(acc, 0.0f);
}
END_TEST

/* sn_pm_atan2 against the double-precision atan2: within 4e-7 rad over
 * every direction (a fine sweep of angles, radii from 1e-3 to 1e3, and the
 * axes and diagonals), the octants' edges and signed zeros exact; and the
 * relative angle of two rotations. */
START_TEST(test_atan2) {
  double worst = 0.0;
  for (int k = -200000; k <= 200000; ++k) {
    const double angle = 3.14159265358979323846 * (double)k / 200000.0;
    for (int e = -3; e <= 3; ++e) {
      const float r = (float)pow(10.0, e), x = r * (float)cos(angle), y = r * (float)sin(angle);
      const double err = fabs((double)sn_pm_atan2(y, x) - atan2((double)y, (double)x));
      if (err > worst) worst = err;
    }
  }
  ck_assert_msg(worst < 4e-7, "worst error %g rad", worst);
  ck_assert_float_eq(sn_pm_atan2(0.0f, 1.0f), 0.0f);
  ck_assert(signbit(sn_pm_atan2(-0.0f, 1.0f)));
  ck_assert_float_eq(sn_pm_atan2(1.0f, 0.0f), SN_PM_HALF_PI);
  ck_assert_float_eq(sn_pm_atan2(-2.0f, 0.0f), -SN_PM_HALF_PI);
  ck_assert_float_eq(sn_pm_atan2(0.0f, -1.0f), SN_PM_PI);
  ck_assert_float_eq(sn_pm_atan2(-0.0f, -1.0f), -SN_PM_PI);
  ck_assert_float_eq(sn_pm_atan2(0.0f, 0.0f), 0.0f);
  ck_assert_double_eq_tol(sn_pm_atan2(1.0f, 1.0f), 0.78539816339744831, 2e-7);
  /* a small angle keeps its relative precision */
  ck_assert_double_eq_tol(sn_pm_atan2(1e-4f, 1.0f) / atan2(1e-4, 1.0), 1.0, 3e-7);
  ck_assert_double_eq_tol(sn_pm_atan2(-1.0f, -1.0f), -2.35619449019234492, 4e-7);
  /* b turned 0.3 rad past a, both far from the axes */
  const sn_rot a = {cosf(2.0f), sinf(2.0f)}, b = {cosf(2.3f), sinf(2.3f)};
  ck_assert_double_eq_tol(sn_pm_rel_angle(a, b), 0.3, 1e-6);
  ck_assert_double_eq_tol(sn_pm_rel_angle(b, a), -0.3, 1e-6);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("plugin_math");
  TCase *tc = tcase_create("helpers");
  tcase_add_test(tc, test_xpbd_delta_lambda);
  tcase_add_test(tc, test_pbd_sweep_stiffness);
  tcase_add_test(tc, test_limit_impulse);
  tcase_add_test(tc, test_atan2);
  suite_add_tcase(s, tc);
  return s;
}
