/* Soft bodies at the world's defaults (8 substeps x 1 XPBD sweep, dt = 1/60,
 * g = (0, -10)) against stated tolerances: particles never inside a thin
 * rigid plank nor through it, a self-colliding rope keeps its particles
 * apart, an inextensible rope carries a heavy box without stretching or
 * bouncing, and an attached particle does not collide with its body. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "test_main.h"
#include "soft_support.h"

static inline sn_particle_id *particles_of(sn_world *w, sn_soft_body_id s, int32_t *n) {
  *n = sn_soft_body_get_particle_count(w, s);
  sn_particle_id *p = malloc((size_t)*n * sizeof *p);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(sn_soft_body_get_particles(w, s, p, *n), *n);
  return p;
}

/* A static plank 2 m long and 0.05 m thick, centred at (cx, 0). */
#define PLANK_HALF_LENGTH 1.0f
#define PLANK_HALF_THICK  0.025f
static void plank(sn_world *w, float cx) {
  sn_body_id ground = js_ground(w);
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(PLANK_HALF_LENGTH, PLANK_HALF_THICK, (sn_vec2){cx, 0.0f}, 0.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
}

/* Particle centre strictly inside the plank. */
static bool in_plank(sn_vec2 x, float cx) {
  return fabsf(x.x - cx) < PLANK_HALF_LENGTH && fabsf(x.y) < PLANK_HALF_THICK;
}

/* The step's motion a -> b went from above the plank to below it, both ends
 * over the plank and at least 0.15 m in from its ends: a particle that
 * wraps round an end must reach beyond it, more than 0.34 m there and back
 * in one step (over 20 m/s), so this counts crossings through the plank. */
static bool crossed_plank(sn_vec2 a, sn_vec2 b, float cx) {
  const float inner = PLANK_HALF_LENGTH - 0.15f;
  return a.y >= PLANK_HALF_THICK && b.y <= -PLANK_HALF_THICK && fabsf(a.x - cx) < inner && fabsf(b.x - cx) < inner;
}

/* Steps (of 300) that end with a particle centre inside the plank, and
 * particles that crossed it, for a particle set stepped at the defaults. */
static void plank_watch(sn_world *w, const sn_particle_id *p, int32_t n, float cx, int steps, int *inside_steps,
                        int *crossings) {
  sn_vec2 *prev = malloc((size_t)n * sizeof *prev);
  ck_assert_ptr_nonnull(prev);
  for (int32_t i = 0; i < n; ++i) prev[i] = sn_particle_get_position(w, p[i]);
  *inside_steps = *crossings = 0;
  for (int s = 0; s < steps; ++s) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    bool inside = false;
    for (int32_t i = 0; i < n; ++i) {
      sn_vec2 x = sn_particle_get_position(w, p[i]);
      inside = inside || in_plank(x, cx);
      *crossings += crossed_plank(prev[i], x, cx) ? 1 : 0;
      prev[i] = x;
    }
    *inside_steps += inside ? 1 : 0;
  }
  free(prev);
}

/* A 32 x 32 cloth (0.1 m spacing, particle radius 0.02 m, no pins) dropped
 * from 3 m onto the plank, at five placements of the plank under it: no
 * step ends with a particle centre inside the plank and no particle crosses
 * it. (The cloth drapes over the plank; particles pulled by their links
 * move much farther in a step than their own velocity says.) */
START_TEST(test_cloth_on_plank) {
  sn_registry *r = ss_registry();
  const float placements[5] = {0.0f, 0.23f, -0.41f, 0.77f, 1.13f};
  for (int k = 0; k < 5; ++k) {
    sn_world *w = ss_world(r, 8, 1);
    plank(w, placements[k]);
    sn_cloth_def cd = sn_default_cloth_def();
    cd.columns = 32;
    cd.rows = 32;
    cd.spacing = 0.1f;
    cd.radius = 0.02f;
    cd.top_left = (sn_vec2){-1.55f, 3.0f + 3.1f}; /* bottom row 3 m above the plank */
    sn_soft_body_id cloth = sn_create_cloth(w, &cd);
    ck_assert_msg(sn_soft_body_is_valid(w, cloth), "%s", sn_world_last_error(w));
    int32_t n;
    sn_particle_id *p = particles_of(w, cloth, &n);
    int inside, crossings;
    plank_watch(w, p, n, placements[k], 300, &inside, &crossings);
    printf("measured: cloth on plank at %+.2f m: %d steps end with a centre "
           "inside, %d crossings\n",
           (double)placements[k], inside, crossings);
    ck_assert_msg(inside == 0, "plank at %g: %d steps end with a particle centre inside", (double)placements[k],
                  inside);
    ck_assert_msg(crossings == 0, "plank at %g: %d particles crossed", (double)placements[k], crossings);
    free(p);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* 100 free particles (radius 0.02 m) shot down at the plank at 20 m/s, at
 * angles up to 60 degrees off vertical: none crosses, none ends a step
 * inside. */
START_TEST(test_particles_shot_at_plank) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 8, 1);
  plank(w, 0.0f);
  sn_soft_body_id soft = ss_soft(w);
  sn_particle_id p[100];
  for (int i = 0; i < 100; ++i) {
    double a = -1.05 + 2.1 * (double)i / 99.0;
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){(float)(-0.9 + 0.018 * i - 0.5 * sin(a)), (float)(0.5 + 0.3 * cos(a))};
    pd.velocity = (sn_vec2){(float)(20.0 * sin(a)), (float)(-20.0 * cos(a))};
    pd.mass = 0.01f;
    pd.radius = 0.02f;
    p[i] = sn_create_particle(w, soft, &pd);
    ck_assert(sn_particle_is_valid(w, p[i]));
  }
  int inside, crossings;
  plank_watch(w, p, 100, 0.0f, 60, &inside, &crossings);
  printf("measured: 100 particles at 20 m/s: %d steps end with a centre "
         "inside, %d crossings\n",
         inside, crossings);
  ck_assert_int_eq(inside, 0);
  ck_assert_int_eq(crossings, 0);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Smallest distance between non-adjacent particles (|i - j| >= 2) of a
 * self-colliding 60-particle rope (radius 0.05 m, spacing 0.1 m = 2 r),
 * let go at rest from 2 m above the ground, tilted by `tilt` from hanging
 * straight down, over 4 s in which it falls, coils and settles; as a
 * fraction of 2 r. */
static double rope_coil_gap(const sn_registry *r, float tilt) {
  sn_world *w = ss_world(r, 8, 1);
  sn_body_id ground = js_ground(w);
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
  const float length = 5.9f, low = 2.0f;
  sn_rope_def rd = sn_default_rope_def();
  rd.count = 60;
  rd.radius = 0.05f;
  rd.body.self_collision = true;
  sn_vec2 dir = {sinf(tilt), -cosf(tilt)};
  float top = low + (dir.y < 0.0f ? -dir.y * length : 0.0f);
  rd.start = (sn_vec2){0.0f, top};
  rd.end = (sn_vec2){length * dir.x, top + length * dir.y};
  sn_soft_body_id rope = sn_create_rope(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));
  int32_t n;
  sn_particle_id *p = particles_of(w, rope, &n);
  ck_assert_int_eq(n, 60);
  double worst = INFINITY;
  sn_vec2 x[60];
  for (int s = 0; s < 240; ++s) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    for (int i = 0; i < n; ++i) x[i] = sn_particle_get_position(w, p[i]);
    for (int i = 0; i < n; ++i)
      for (int j = i + 2; j < n; ++j) worst = fmin(worst, ss_dist(x[i], x[j]));
  }
  free(p);
  sn_destroy_world(w);
  return worst / 0.1;
}

/* At every step, for tilts 0.1 .. 2.5 rad, the non-adjacent particles of the
 * coiling rope stay at least 0.9 x 2 r apart. */
START_TEST(test_rope_coil_keeps_distance) {
  sn_registry *r = ss_registry();
  double worst = INFINITY;
  for (int k = 0; k <= 12; ++k) {
    float tilt = 0.1f + 0.2f * (float)k;
    double gap = rope_coil_gap(r, tilt);
    printf("measured: coiling rope, tilt %.1f rad: closest non-adjacent "
           "particles %.4f x 2r\n",
           (double)tilt, gap);
    worst = fmin(worst, gap);
    ck_assert_msg(gap >= 0.9, "tilt %.1f: closest non-adjacent particles %.4f x 2r", (double)tilt, gap);
  }
  printf("measured: coiling rope, worst over the tilts %.4f x 2r\n", worst);
  sn_destroy_registry(r);
}
END_TEST

/* The force the pinned particle p0 exerts on the rope: the sum over the
 * rope's constraints that join it (its first link and every tether; each
 * reports the force on its second particle) of that force's y component. */
static double support_force(sn_world *w, const sn_constraint_id *c, int32_t nc, sn_particle_id p0) {
  double fy = 0.0;
  for (int32_t k = 0; k < nc; ++k) {
    sn_particle_id q[2];
    if (sn_constraint_get_particles(w, c[k], q, 2) != 2 || q[0].index1 != p0.index1) continue;
    sn_vec2 f;
    float t;
    ck_assert_int_eq(sn_constraint_get_reaction(w, c[k], &f, &t), SN_OK);
    fy += f.y;
  }
  return fy;
}

/* An inextensible rope (the builder's defaults: compliance 0, no damping)
 * of 20 free particles of 0.05 kg, 0.1 m apart, pinned at the top, carries
 * a 10 kg box attached off-centre (0.15 m right of and 0.25 m above its
 * centre, the box turned so that its centre hangs straight below). At the
 * defaults, without any damping, after 10 s: the rope (links plus the
 * attachment's gap) is less than 2 % longer than at rest, the pin holds
 * 110 N within 1 %, and the box moves slower than 1 mm/s. */
START_TEST(test_heavy_load_on_rope) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 8, 1);
  enum { FREE = 20 };
  const float spacing = 0.1f, top = 4.0f;
  sn_rope_def rd = sn_default_rope_def();
  rd.count = FREE + 1;
  rd.mass = 0.05f * (float)(FREE + 1); /* 0.05 kg each; the pinned one's share goes to the pin */
  rd.pin_start = true;
  rd.start = (sn_vec2){0.0f, top};
  rd.end = (sn_vec2){0.0f, top - spacing * (float)FREE};
  sn_soft_body_id rope = sn_create_rope(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));
  int32_t n;
  sn_particle_id *p = particles_of(w, rope, &n);
  ck_assert_int_eq(n, FREE + 1);
  ck_assert_float_eq_tol(sn_particle_get_mass(w, p[1]), 0.05f, 1e-7f);
  /* box 0.5 x 0.5 m of 10 kg; anchor at (0.15, 0.25) in its frame, turned
   * so that the anchor is straight above the centre */
  const sn_vec2 local = {0.15f, 0.25f};
  const float angle = (float)(0.5 * PI - atan2(local.y, local.x)), arm = hypotf(local.x, local.y);
  const sn_vec2 anchor = sn_particle_get_position(w, p[FREE]);
  sn_body_id box = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.25f, 0.25f, (sn_vec2){0.0f, 0.0f}, 40.0f); /* 10 kg */
  ck_assert_float_eq_tol(sn_body_get_mass(w, box), 10.0f, 1e-4f);
  /* origin = centre: place it so that R(angle) local lands on the anchor */
  ck_assert_int_eq(sn_body_set_transform(w, box, (sn_vec2){anchor.x, anchor.y - arm}, angle), SN_OK);
  sn_vec2 world_anchor = sn_body_get_world_point(w, box, local);
  ck_assert_float_eq_tol(world_anchor.x, anchor.x, 1e-5f);
  ck_assert_float_eq_tol(world_anchor.y, anchor.y, 1e-5f);
  sn_constraint_id attach = ss_constraint(w, "attach", box, p + FREE, 1, NULL, 0, 0.0f);
  sn_constraint_id c[256];
  int32_t nc = sn_soft_body_get_constraints(w, rope, c, 256);
  ck_assert_int_lt(nc, 256);
  double lo = INFINITY, hi = -INFINITY;
  for (int s = 0; s < 600; ++s) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    double f = support_force(w, c, nc, p[0]);
    lo = fmin(lo, f);
    hi = fmax(hi, f);
  }
  double length = 0.0;
  for (int i = 0; i < FREE; ++i)
    length += ss_dist(sn_particle_get_position(w, p[i]), sn_particle_get_position(w, p[i + 1]));
  length += ss_dist(sn_particle_get_position(w, p[FREE]), sn_body_get_world_point(w, box, local));
  const double rest = spacing * FREE, stretch = length / rest - 1.0;
  const double support = support_force(w, c, nc, p[0]);
  sn_vec2 v = sn_body_get_linear_velocity(w, box);
  const double speed = hypot(v.x, v.y);
  printf("measured: rope carrying 10 kg at 10 s: stretch %.3f %%, support %.3f "
         "N (110 expected; %.1f .. %.1f N over "
         "the 10 s), box speed %.2e m/s\n",
         100.0 * stretch, support, lo, hi, speed);
  ck_assert_msg(stretch < 0.02, "rope %.3f %% longer than at rest", 100.0 * stretch);
  ck_assert_msg(fabs(support - 110.0) <= 0.01 * 110.0, "support force %.3f N", support);
  ck_assert_msg(speed < 1e-3, "box still moving at %.2e m/s", speed);
  ck_assert(sn_constraint_is_valid(w, attach));
  free(p);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* No gravity: a particle (radius 0.05 m) attached to a free box at a point
 * of its top face stays on that point (within 1e-5 m): it does not collide
 * with the body it is attached to. With collide_connected it does, and is
 * pushed at least 0.9 radius out. */
START_TEST(test_attach_does_not_collide_with_its_body) {
  sn_registry *r = ss_registry();
  for (int connected = 0; connected < 2; ++connected) {
    sn_world *w = ss_world(r, 8, 1);
    ck_assert_int_eq(sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f}), SN_OK);
    sn_body_id box = js_box(w, (sn_vec2){0.0f, 1.0f}, 0.0f, 0.25f, 0.25f, (sn_vec2){0.0f, 0.0f}, 4.0f);
    sn_soft_body_id soft = ss_soft(w);
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){0.1f, 1.25f}; /* on the top face */
    pd.mass = 0.1f;
    pd.radius = 0.05f;
    sn_particle_id q = sn_create_particle(w, soft, &pd);
    ck_assert(sn_particle_is_valid(w, q));
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "attach";
    cd.bodies[0] = box;
    cd.particles = &q;
    cd.particle_count = 1;
    cd.collide_connected = connected != 0;
    sn_constraint_id k = sn_create_constraint(w, &cd);
    ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
    ck_assert(sn_constraint_get_collide_connected(w, k) == (connected != 0));
    for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    double off = ss_dist(sn_particle_get_position(w, q), sn_body_get_world_point(w, box, (sn_vec2){0.1f, 0.25f}));
    printf("measured: attached particle %.2e m off its anchor "
           "(collide_connected %d)\n",
           off, connected);
    if (connected)
      ck_assert_msg(off >= 0.9 * 0.05, "collide_connected: only %g m off", off);
    else
      ck_assert_msg(off <= 1e-5, "the particle is %g m off its anchor", off);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* A soft body with rigid_damping 1 whose particles move at the world's
 * speed limit, translating and spinning: its rigid motion (centre-of-mass
 * velocity plus rotation) is faster than the limit at the far side of the
 * rim, and the damping, which pulls every particle onto that motion after the
 * step's clamp, handed particles on above maximum_linear_speed (soak: jelly
 * particles at 50.9 m/s under a 50 m/s limit). Every particle leaves every
 * step at no more than the limit. */
START_TEST(test_rigid_damping_keeps_speed_limit) {
  sn_registry *r = ss_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.maximum_linear_speed = 10.0f;
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_soft_body_def body = sn_default_soft_body_def();
  body.rigid_damping = 1.0f;
  sn_soft_body_id soft = sn_create_soft_body(w, &body);
  ck_assert(sn_soft_body_is_valid(w, soft));
  enum { N = 16 };
  sn_particle_id ps[N];
  for (int i = 0; i < N; ++i) {
    float a = 2.0f * 3.14159265f * (float)i / (float)N;
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){cosf(a), sinf(a)};
    pd.radius = 0.0f;
    /* 6 m/s to the right plus a spin of 6 rad/s: 12 m/s at the top */
    pd.velocity = (sn_vec2){6.0f - 6.0f * sinf(a), 6.0f * cosf(a)};
    ps[i] = sn_create_particle(w, soft, &pd);
    ck_assert(sn_particle_is_valid(w, ps[i]));
  }
  float fastest = 0.0f;
  for (int step = 0; step < 30; ++step) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    for (int i = 0; i < N; ++i) {
      sn_vec2 v = sn_particle_get_velocity(w, ps[i]);
      fastest = fmaxf(fastest, sqrtf(v.x * v.x + v.y * v.y));
    }
  }
  printf("measured: fastest particle %.4f m/s under a 10 m/s limit (rigid_damping 1)\n", (double)fastest);
  ck_assert_msg(fastest <= 10.0f * 1.0001f, "a particle left a step at %g m/s", (double)fastest);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Ten particles (1 kg) hang below a fixed one on links L = 0.1 m, alpha =
 * 1e-4 m/N: link k from the bottom carries k m g, so the settled chain is
 * alpha m g N (N + 1) / 2 = 0.055 m longer than at rest. The chain settles
 * through the soft body's rigid_damping (deformation only, no static bias).
 * Within 1 % at the defaults (8 substeps x 1 sweep), and within the stated
 * bound of each other row: fewer substeps or the links' own damping (beta)
 * leave a single sweep further from the exact answer (a damped link sees
 * the motion a later link gives its particles as a rate). */
static double chain_stretch(const sn_registry *r, int32_t substeps, int32_t iterations, double beta) {
  sn_world *w = ss_world(r, substeps, iterations);
  sn_soft_body_id soft = ss_soft_damped(w, 0.2f);
  enum { N = 10 };
  sn_particle_id p[N + 1];
  for (int i = 0; i <= N; ++i) p[i] = ss_particle(w, soft, (sn_vec2){0.0f, -0.1f * (float)i}, i == 0 ? 0.0f : 1.0f);
  sn_param_value v[2] = {{"compliance", 1e-4, 0.0}, {"damping", beta, 0.0}};
  for (int i = 0; i < N; ++i) ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p + i, 2, v, 2, 0.0f);
  for (int i = 0; i < 600; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double total = 0.0;
  for (int i = 0; i < N; ++i)
    total += ss_dist(sn_particle_get_position(w, p[i]), sn_particle_get_position(w, p[i + 1])) - 0.1;
  sn_destroy_world(w);
  return total;
}

START_TEST(test_compliant_chain_stretch) {
  sn_registry *r = ss_registry();
  const double exact = 1e-4 * 1.0 * 10.0 * 10.0 * 11.0 / 2.0;
  static const struct {
    int32_t substeps, sweeps;
    double beta, bound;
  } rows[] = {
      {8, 1, 0.0, 0.01}, {8, 2, 0.0, 0.01},   {20, 1, 0.0, 0.01},  {20, 2, 0.0, 0.01},   {4, 2, 0.0, 0.01},
      {4, 1, 0.0, 0.04}, {20, 2, 0.01, 0.01}, {8, 2, 0.01, 0.015}, {20, 1, 0.01, 0.015}, {8, 1, 0.01, 0.075},
  };
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; ++k) {
    double total = chain_stretch(r, rows[k].substeps, rows[k].sweeps, rows[k].beta);
    double err = total / exact - 1.0;
    printf("measured: compliant chain %d substeps x %d sweeps, beta %.2f s: stretch %.6f m (%+.3f %%, bound %.1f "
           "%%)\n",
           (int)rows[k].substeps, (int)rows[k].sweeps, rows[k].beta, total, 100.0 * err, 100.0 * rows[k].bound);
    ck_assert_msg(fabs(err) <= rows[k].bound, "chain stretch %.6f m, exact %.6f m (%d x %d, beta %g)", total, exact,
                  (int)rows[k].substeps, (int)rows[k].sweeps, rows[k].beta);
  }
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("soft_correctness");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_cloth_on_plank);
  tcase_add_test(tc, test_particles_shot_at_plank);
  tcase_add_test(tc, test_rope_coil_keeps_distance);
  tcase_add_test(tc, test_heavy_load_on_rope);
  tcase_add_test(tc, test_attach_does_not_collide_with_its_body);
  tcase_add_test(tc, test_rigid_damping_keeps_speed_limit);
  tcase_add_test(tc, test_compliant_chain_stretch);
  suite_add_tcase(s, tc);
  return s;
}
