/* XPBD distance constraints (plugins/xpbd_distance) against analytic
 * results: static stretch and force of a compliant link for every
 * substep/iteration split and time step, a soft chain's total stretch, the
 * Small Steps strain of an inextensible chain, the period of an undamped
 * oscillator, and tearing at the force limit. g = (0, -10). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "test_main.h"
#include "soft_support.h"

/* A particle of mass 2 hanging 0.5 m below a fixed particle on an
 * xpbd_distance link (alpha = 1e-3 m/N, damping beta = 0.02 s) settles at the
 * stretch m g alpha = 0.0200 m with the reported force m g = 20 N, within
 * 1e-4 relative, for (substeps, iterations) in {(1,1), (1,10), (4,1),
 * (20,1)} and dt in {1/30, 1/60, 1/240}: lambda per substep makes the
 * static answer independent of the split (XPBD's promise). The particle
 * sits near the origin (float spacing 6e-8 m there) and beta is light
 * (damping ratio 0.22), so its last approach is not frozen by rounding. */
START_TEST(test_static_stretch) {
  const int32_t splits[4][2] = {{1, 1}, {1, 10}, {4, 1}, {20, 1}};
  const float dts[3] = {1.0f / 30.0f, 1.0f / 60.0f, 1.0f / 240.0f};
  sn_registry *r = ss_registry();
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 3; ++d) {
      sn_world *w = ss_world(r, splits[s][0], splits[s][1]);
      sn_soft_body_id soft = ss_soft(w);
      sn_particle_id p[2] = {ss_particle(w, soft, (sn_vec2){0.0f, 0.0f}, 0.0f),
                             ss_particle(w, soft, (sn_vec2){0.0f, -0.5f}, 2.0f)};
      sn_param_value v[2] = {{"compliance", 1e-3, 0.0}, {"damping", 0.02, 0.0}};
      sn_constraint_id c = ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p, 2, v, 2, 0.0f);
      int steps = (int)lroundf(8.0f / dts[d]);
      for (int i = 0; i < steps; ++i) ck_assert_int_eq(sn_world_step(w, dts[d]), SN_OK);
      double stretch = ss_dist(sn_particle_get_position(w, p[0]), sn_particle_get_position(w, p[1])) - 0.5;
      sn_vec2 f;
      float tq;
      ck_assert_int_eq(sn_constraint_get_reaction(w, c, &f, &tq), SN_OK);
      double force = hypot(f.x, f.y);
      printf("measured: static stretch (%d substeps, %d iterations, dt 1/%.0f): %.7f m, force %.5f N\n",
             (int)splits[s][0], (int)splits[s][1], 1.0 / dts[d], stretch, force);
      ck_assert_msg(fabs(stretch - 0.02) <= 1e-4 * 0.02, "stretch %.8f m (split %d x %d, dt 1/%.0f)", stretch,
                    (int)splits[s][0], (int)splits[s][1], 1.0 / dts[d]);
      ck_assert_msg(fabs(force - 20.0) <= 1e-4 * 20.0, "force %.6f N", force);
      ck_assert_msg(f.y > 0.0f, "the link pulls the particle up");
      sn_destroy_world(w);
    }
  }
  sn_destroy_registry(r);
}
END_TEST

/* Ten particles (m = 1) hang below a fixed one on links L = 0.1 m, alpha =
 * 1e-4 m/N: link k from the bottom carries k m g, so the total stretch is
 * alpha m g N (N + 1) / 2 = 0.055 m; within 2 % at 20 substeps. The chain
 * settles through the soft body's rigid_damping (deformation only), not
 * the links' beta: in a single Gauss-Seidel sweep a link whose particles a
 * later link moves sees that motion as a rate and its damping shifts the
 * static stretch (see "Damping" in docs/soft-bodies.md). */
START_TEST(test_soft_chain) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 20, 1);
  sn_soft_body_id soft = ss_soft_damped(w, 0.2f);
  enum { N = 10 };
  sn_particle_id p[N + 1];
  for (int i = 0; i <= N; ++i) p[i] = ss_particle(w, soft, (sn_vec2){0.0f, -0.1f * (float)i}, i == 0 ? 0.0f : 1.0f);
  sn_param_value v[1] = {{"compliance", 1e-4, 0.0}};
  for (int i = 0; i < N; ++i) ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p + i, 2, v, 1, 0.0f);
  for (int i = 0; i < 600; ++i) sn_world_step(w, DT);
  double total = 0.0;
  for (int i = 0; i < N; ++i)
    total += ss_dist(sn_particle_get_position(w, p[i]), sn_particle_get_position(w, p[i + 1])) - 0.1;
  printf("measured: soft chain total stretch %.6f m (expected 0.055)\n", total);
  ck_assert_msg(fabs(total - 0.055) <= 0.02 * 0.055, "total stretch %.6f m", total);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Largest |length - L| / L over the links of a 20-particle inextensible
 * chain (L = 0.1 m, m = 0.05 each) hanging from a fixed end, over the
 * second second after it is let go straight at rest. */
static double chain_strain(const sn_registry *r, int32_t substeps, int32_t iterations) {
  sn_world *w = ss_world(r, substeps, iterations);
  sn_soft_body_id soft = ss_soft(w);
  enum { N = 20 };
  sn_particle_id p[N];
  for (int i = 0; i < N; ++i) p[i] = ss_particle(w, soft, (sn_vec2){0.0f, -0.1f * (float)i}, i == 0 ? 0.0f : 0.05f);
  for (int i = 0; i + 1 < N; ++i) ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p + i, 2, NULL, 0, 0.0f);
  double worst = 0.0;
  for (int s = 0; s < 120; ++s) {
    sn_world_step(w, DT);
    if (s < 60) continue;
    for (int i = 0; i + 1 < N; ++i) {
      double e = fabs(ss_dist(sn_particle_get_position(w, p[i]), sn_particle_get_position(w, p[i + 1])) - 0.1) / 0.1;
      if (e > worst) worst = e;
    }
  }
  sn_destroy_world(w);
  return worst;
}

/* Small Steps (Macklin et al. 2019): at equal cost, 20 substeps x 1
 * iteration leave a strain <= 2e-3 and at least 5x lower than 1 substep x
 * 20 iterations. */
START_TEST(test_small_steps) {
  sn_registry *r = ss_registry();
  double small = chain_strain(r, 20, 1), iter = chain_strain(r, 1, 20);
  printf("measured: inextensible chain strain: 20x1 %.3e, 1x20 %.3e (ratio %.1f)\n", small, iter, iter / small);
  ck_assert_msg(small <= 2e-3, "20 substeps x 1 iteration: strain %g", small);
  ck_assert_msg(iter >= 5.0 * small, "1 x 20: %g is not 5x worse than 20 x 1: %g", iter, small);
  sn_destroy_registry(r);
}
END_TEST

/* No gravity: a particle (m = 1) on a link L = 1, alpha = 1e-3, released
 * at x = 1.5 from a fixed one oscillates with period 2 pi sqrt(m alpha)
 * (0.19869 s), within 1 % over 10 periods (20 substeps). */
START_TEST(test_oscillator_period) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 20, 1);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_soft_body_id soft = ss_soft(w);
  sn_particle_id p[2] = {ss_particle(w, soft, (sn_vec2){0.0f, 0.0f}, 0.0f),
                         ss_particle(w, soft, (sn_vec2){1.5f, 0.0f}, 1.0f)};
  sn_param_value v[2] = {{"rest_length", 1.0, 0.0}, {"compliance", 1e-3, 0.0}};
  ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p, 2, v, 2, 0.0f);
  const double expected = 2.0 * PI * sqrt(1e-3);
  /* time the downward crossings of x = 1 (linear interpolation) */
  double t = 0.0, first = -1.0, last = -1.0;
  int crossings = 0;
  double prev = 0.5;
  while (crossings < 11 && t < 10.0) {
    sn_world_step(w, DT);
    t += DT;
    double e = sn_particle_get_position(w, p[1]).x - 1.0;
    if (prev > 0.0 && e <= 0.0) {
      double tc = t - DT * e / (e - prev);
      if (first < 0.0) first = tc;
      last = tc;
      crossings++;
    }
    prev = e;
  }
  ck_assert_int_eq(crossings, 11);
  double period = (last - first) / 10.0;
  printf("measured: oscillator period %.5f s (expected %.5f)\n", period, expected);
  ck_assert_msg(fabs(period - expected) <= 0.01 * expected, "period %.5f s, expected %.5f s", period, expected);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The hanging particle of test_static_stretch, started at its rest
 * stretch: a link whose break_force is 1 % below the load (20 N) breaks in
 * the first step, with a "constraint broken" event; 1 % above, it holds
 * for 5 s. */
static bool hang_breaks(const sn_registry *r, float break_force, float *reported) {
  sn_world *w = ss_world(r, 8, 1);
  sn_soft_body_id soft = ss_soft(w);
  sn_particle_id p[2] = {ss_particle(w, soft, (sn_vec2){0.0f, 0.0f}, 0.0f),
                         ss_particle(w, soft, (sn_vec2){0.0f, -1.02f}, 2.0f)};
  sn_param_value v[3] = {{"rest_length", 1.0, 0.0}, {"compliance", 1e-3, 0.0}, {"damping", 0.1, 0.0}};
  sn_constraint_id c = ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p, 2, v, 3, break_force);
  bool broke = false;
  for (int i = 0; i < 300 && !broke; ++i) {
    sn_world_step(w, DT);
    const sn_constraint_broken_event *events;
    int32_t n = sn_world_get_broken_constraints(w, &events);
    if (n > 0) {
      ck_assert_int_eq(n, 1);
      ck_assert_int_eq(events[0].constraint.index1, c.index1);
      *reported = events[0].force;
      broke = true;
      ck_assert(!sn_constraint_is_valid(w, c));
    }
  }
  sn_destroy_world(w);
  return broke;
}

START_TEST(test_tearing) {
  sn_registry *r = ss_registry();
  float f = 0.0f;
  ck_assert_msg(hang_breaks(r, 0.99f * 20.0f, &f), "a link 1 %% below its load must break");
  ck_assert_msg(fabsf(f - 20.0f) < 0.2f, "broken at %g N", (double)f);
  ck_assert_msg(!hang_breaks(r, 1.01f * 20.0f, &f), "a link 1 %% above its load must hold");
  sn_destroy_registry(r);
}
END_TEST

/* Plain PBD stiffness mode (use_stiffness, k = 0.5): each sweep corrects
 * k' = 1 - (1 - k)^(1/n) of the error, n = substeps x iterations, so over
 * one step of 1 substep the stretch of a released link shrinks by exactly
 * the factor 1 - k, whatever the iteration count (no gravity). */
START_TEST(test_pbd_stiffness) {
  sn_registry *r = ss_registry();
  const int32_t iterations[3] = {1, 4, 10};
  for (int k = 0; k < 3; ++k) {
    sn_world *w = ss_world(r, 1, iterations[k]);
    sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
    sn_soft_body_id soft = ss_soft(w);
    sn_particle_id p[2] = {ss_particle(w, soft, (sn_vec2){0.0f, 0.0f}, 0.0f),
                           ss_particle(w, soft, (sn_vec2){0.55f, 0.0f}, 1.0f)};
    sn_param_value v[3] = {{"rest_length", 0.5, 0.0}, {"use_stiffness", 1.0, 0.0}, {"stiffness", 0.5, 0.0}};
    ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p, 2, v, 3, 0.0f);
    sn_world_step(w, DT);
    double stretch = sn_particle_get_position(w, p[1]).x - 0.5;
    printf("measured: PBD stiffness 0.5, %d iterations: stretch 0.05 -> %.6f m\n", (int)iterations[k], stretch);
    ck_assert_msg(fabs(stretch - 0.025) <= 1e-6, "%d iterations: stretch %.7f m, expected 0.025", (int)iterations[k],
                  stretch);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("soft");
  TCase *tc = tcase_create("xpbd_distance");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_static_stretch);
  tcase_add_test(tc, test_soft_chain);
  tcase_add_test(tc, test_small_steps);
  tcase_add_test(tc, test_oscillator_period);
  tcase_add_test(tc, test_tearing);
  tcase_add_test(tc, test_pbd_stiffness);
  suite_add_tcase(s, tc);
  return s;
}
