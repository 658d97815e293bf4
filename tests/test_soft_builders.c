/* Soft-body builders (engine/src/soft/builders.c): what they create, the
 * physics of a jelly ring and a cloth built with them, and the refusal of
 * every bad input with nothing left in the world. g = (0, -10), dt = 1/60. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "soft_support.h"

/* Nothing soft in the world: no soft body, particle or constraint. */
static void assert_empty(sn_world *w) {
  sn_world_counters c = sn_world_get_counters(w);
  ck_assert_int_eq(c.soft_body_count, 0);
  ck_assert_int_eq(c.particle_count, 0);
  ck_assert_int_eq(c.constraint_count, 0);
}

static sn_particle_id *particles_of(sn_world *w, sn_soft_body_id s, int32_t *n) {
  *n = sn_soft_body_get_particle_count(w, s);
  sn_particle_id *p = malloc((size_t)*n * sizeof *p);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(sn_soft_body_get_particles(w, s, p, *n), *n);
  return p;
}

/* Counts: a rope of 10 has 9 links, 8 bends and a tether from its pinned
 * start to each of its 9 free particles (tethers are on by default); the
 * default rope, unpinned, only its 10 links; a 4 x 3 cloth 17 links, 12 shear diagonals; a 3 x 3 lattice 4
 * cell areas; a ring of 24 has 24 edges and one area. Masses: the total,
 * pinned particles fixed. */
START_TEST(test_builder_counts) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 8, 1);
  sn_rope_def rd = sn_default_rope_def();
  rd.count = 10;
  rd.pin_start = true;
  ck_assert(rd.tethers);
  rd.material.bend_compliance = 0.1f;
  sn_soft_body_id rope = sn_create_rope(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_soft_body_get_particle_count(w, rope), 10);
  sn_constraint_id ids[64];
  ck_assert_int_eq(sn_soft_body_get_constraints(w, rope, ids, 64), 9 + 8 + 9);
  sn_rope_def loose = sn_default_rope_def();
  loose.start = (sn_vec2){0.0f, 5.0f};
  loose.end = (sn_vec2){1.0f, 5.0f};
  sn_soft_body_id unpinned = sn_create_rope(w, &loose);
  ck_assert_msg(sn_soft_body_is_valid(w, unpinned), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_soft_body_get_constraints(w, unpinned, ids, 64), 10);
  ck_assert_msg(fabsf(sn_soft_body_get_mass(w, rope) - 0.9f) < 1e-5f, "rope mass %g",
                (double)sn_soft_body_get_mass(w, rope));

  sn_cloth_def cd = sn_default_cloth_def();
  cd.columns = 4;
  cd.rows = 3;
  cd.material.shear_compliance = 0.0f;
  cd.pins = SN_PIN_TOP_ROW;
  sn_soft_body_id cloth = sn_create_cloth(w, &cd);
  ck_assert_msg(sn_soft_body_is_valid(w, cloth), "%s", sn_world_last_error(w));
  /* links, shear, and a tether from each of the 4 pins to each of the 8 free particles */
  ck_assert_int_eq(sn_soft_body_get_constraints(w, cloth, ids, 64), 3 * 3 + 4 * 2 + 2 * 3 * 2 + 4 * 8);
  ck_assert_int_eq(sn_soft_body_get_edge_count(w, cloth), 2 * 3 + 2 * 2); /* the outline */
  ck_assert_int_eq(sn_soft_body_get_edge_count(w, rope), 9);
  ck_assert_msg(fabsf(sn_soft_body_get_mass(w, cloth) - 8.0f / 12.0f) < 1e-5f, "cloth mass");

  sn_lattice_def ld = sn_default_lattice_def();
  ld.columns = 3;
  ld.rows = 3;
  sn_soft_body_id lattice = sn_create_lattice(w, &ld);
  ck_assert_msg(sn_soft_body_is_valid(w, lattice), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_soft_body_get_constraints(w, lattice, ids, 64), 6 + 6 + 8 + 4);
  sn_vec2 c = sn_soft_body_get_center(w, lattice);
  ck_assert(fabsf(c.x) < 1e-6f && fabsf(c.y) < 1e-6f);

  sn_ring_def gd = sn_default_ring_def();
  sn_soft_body_id ring = sn_create_ring(w, &gd);
  ck_assert_msg(sn_soft_body_is_valid(w, ring), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_soft_body_get_constraints(w, ring, ids, 64), 25);
  ck_assert_int_eq(sn_constraint_get_particles(w, ids[24], NULL, 0), 0);
  sn_particle_id all[24];
  ck_assert_int_eq(sn_constraint_get_particles(w, ids[24], all, 24), 24);
  ck_assert_msg(fabsf(sn_soft_body_get_mass(w, ring) - 1.0f) < 1e-5f, "ring mass");
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A jelly ring (24 particles, r = 0.5 m, 1 kg, the default soft edges
 * alpha = 1e-3 m/N, incompressible area) dropped from 1 m onto a static
 * ground box keeps its area within 0.5 % during the impact and within
 * 0.1 % at rest (after 5 s: vertical motion settled). */
START_TEST(test_jelly_ring) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 8, 1);
  sn_body_id ground = js_ground(w);
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(5.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
  sn_ring_def rd = sn_default_ring_def();
  rd.center = (sn_vec2){0.0f, 1.55f}; /* lowest particle surface 1 m above the ground */
  rd.body.rigid_damping = 0.05f;
  sn_soft_body_id ring = sn_create_ring(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, ring), "%s", sn_world_last_error(w));
  int32_t n;
  sn_particle_id *p = particles_of(w, ring, &n);
  ck_assert_int_eq(n, 24);
  const double a0 = ss_area(w, p, n);
  double worst = 0.0, lowest = 10.0;
  for (int i = 0; i < 300; ++i) {
    sn_world_step(w, DT);
    worst = fmax(worst, fabs(ss_area(w, p, n) - a0) / a0);
    lowest = fmin(lowest, sn_soft_body_get_center(w, ring).y);
  }
  double rest = fabs(ss_area(w, p, n) - a0) / a0;
  sn_vec2 v = sn_soft_body_get_linear_velocity(w, ring);
  printf("measured: jelly ring area error: impact %.3f %%, rest %.4f %% (centre height %.4f m, velocity (%.2e, "
         "%.2e) m/s)\n",
         100.0 * worst, 100.0 * rest, (double)sn_soft_body_get_center(w, ring).y, (double)v.x, (double)v.y);
  ck_assert_msg(lowest < 0.6 && lowest > 0.3, "the ring landed (centre %g m)", lowest);
  ck_assert_msg(worst <= 5e-3, "area error during the impact %.4f %%", 100.0 * worst);
  ck_assert_msg(rest <= 1e-3, "area error at rest %.4f %%", 100.0 * rest);
  ck_assert_msg(fabsf(v.y) < 0.02f, "the ring settles vertically: %g m/s", (double)v.y);
  free(p);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Worst structural strain of a 32 x 32 cloth (spacing 0.1 m, 1 kg, pinned
 * at its two top corners, inextensible links) after 5 s (settled by the
 * soft body's rigid_damping), and a hash of every particle position. With
 * tethers, every particle also hangs from both pins on an xpbd_tether as
 * long as their distance at creation. */
static double cloth_run(const sn_registry *r, int32_t substeps, int32_t iterations, bool tethers, uint64_t *hash) {
  sn_world *w = ss_world(r, substeps, iterations);
  sn_cloth_def cd = sn_default_cloth_def();
  cd.columns = 32;
  cd.rows = 32;
  cd.spacing = 0.1f;
  cd.mass = 1.0f;
  cd.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT;
  cd.body.rigid_damping = 0.3f;
  cd.top_left = (sn_vec2){-1.55f, 3.0f};
  cd.tethers = tethers;
  sn_soft_body_id cloth = sn_create_cloth(w, &cd);
  ck_assert_msg(sn_soft_body_is_valid(w, cloth), "%s", sn_world_last_error(w));
  int32_t n;
  sn_particle_id *p = particles_of(w, cloth, &n);
  ck_assert_int_eq(n, 32 * 32);
  for (int i = 0; i < 300; ++i) sn_world_step(w, DT);
  double worst = 0.0;
  *hash = 1469598103934665603ull;
  for (int i = 0; i < n; ++i) {
    sn_vec2 x = sn_particle_get_position(w, p[i]);
    const unsigned char *b = (const unsigned char *)&x;
    for (size_t k = 0; k < sizeof x; ++k) *hash = (*hash ^ b[k]) * 1099511628211ull;
    int c = i % 32, row = i / 32;
    if (c + 1 < 32) worst = fmax(worst, fabs(ss_dist(x, sn_particle_get_position(w, p[i + 1])) - 0.1) / 0.1);
    if (row + 1 < 32) worst = fmax(worst, fabs(ss_dist(x, sn_particle_get_position(w, p[i + 32])) - 0.1) / 0.1);
  }
  free(p);
  sn_destroy_world(w);
  return worst;
}

/* The builder's default cloth (tethers from every particle to each pin) at
 * the world's default 8 substeps x 1 iteration: worst structural strain at
 * rest under 1 % (measured 0.07 %); two runs bit-identical. Without the
 * tethers the corner links, which hold half the cloth's weight on 1 g
 * particles, stretch at least 5x more (measured 18 %; links alone need
 * 64 x 2 for 1 %). */
START_TEST(test_cloth32) {
  sn_registry *r = ss_registry();
  uint64_t h1, h2, h3;
  double strain = cloth_run(r, 8, 1, true, &h1);
  double again = cloth_run(r, 8, 1, true, &h2);
  double loose = cloth_run(r, 8, 1, false, &h3);
  printf("measured: cloth 32x32 worst structural strain %.3f %% (8 x 1, tethers), %.3f %% (8 x 1, links only), "
         "hash %016llx\n",
         100.0 * strain, 100.0 * loose, (unsigned long long)h1);
  ck_assert_msg(strain < 0.01, "worst strain %.3f %%", 100.0 * strain);
  ck_assert_msg(h1 == h2 && strain == again, "two runs differ");
  ck_assert_msg(loose > 5.0 * strain, "without tethers %.3f %%, with %.3f %%", 100.0 * loose, 100.0 * strain);
  sn_destroy_registry(r);
}
END_TEST

/* Every bad def is refused with a message, and nothing is left. */
START_TEST(test_builder_refusals) {
  sn_registry *r = ss_registry();
  sn_world *w = ss_world(r, 8, 1);
  const float nan = (float)NAN;
/* the plugin a refusal names: its file, or in a build without file loading its linked-in name */
#define MISSING(type) (sn_shipped_from_files() ? "plugins/" type ".so" : "linked-in plugin " type)
#define REFUSE(call, code_text)                                                                                        \
  do {                                                                                                                 \
    ck_assert_msg(!sn_soft_body_is_valid(w, (call)), "%s was accepted", #call);                                        \
    ck_assert_msg(strstr(sn_world_last_error(w), code_text) != NULL, "%s: '%s' lacks '%s'", #call,                     \
                  sn_world_last_error(w), code_text);                                                                  \
    assert_empty(w);                                                                                                   \
  } while (0)

  sn_rope_def rd = sn_default_rope_def();
  rd.count = 1;
  REFUSE(sn_create_rope(w, &rd), "count");
  rd = sn_default_rope_def();
  rd.mass = -1.0f;
  REFUSE(sn_create_rope(w, &rd), "mass");
  rd = sn_default_rope_def();
  rd.end = (sn_vec2){nan, 0.0f};
  REFUSE(sn_create_rope(w, &rd), "SN_ERR_NOT_FINITE");
  rd = sn_default_rope_def();
  rd.end = rd.start;
  REFUSE(sn_create_rope(w, &rd), "coincide");
  rd = sn_default_rope_def();
  rd.material.compliance = -1.0f;
  REFUSE(sn_create_rope(w, &rd), "material.compliance");
  rd = sn_default_rope_def();
  rd.material.damping = nan;
  REFUSE(sn_create_rope(w, &rd), "material.damping");
  rd = sn_default_rope_def();
  rd.body.friction = -1.0f; /* the soft body def is checked by sn_create_soft_body */
  REFUSE(sn_create_rope(w, &rd), "SN_ERR");
  rd = sn_default_rope_def();
  rd.cookie = 0;
  REFUSE(sn_create_rope(w, &rd), "SN_ERR_UNINITIALIZED_DEF");
  REFUSE(sn_create_rope(w, NULL), "SN_ERR_NULL");

  sn_cloth_def cd = sn_default_cloth_def();
  cd.rows = 1;
  REFUSE(sn_create_cloth(w, &cd), "rows");
  cd = sn_default_cloth_def();
  cd.spacing = nan;
  REFUSE(sn_create_cloth(w, &cd), "spacing");
  cd = sn_default_cloth_def();
  cd.spacing = -0.1f;
  REFUSE(sn_create_cloth(w, &cd), "spacing");
  cd = sn_default_cloth_def();
  cd.pins = 1u << 7;
  REFUSE(sn_create_cloth(w, &cd), "pins");
  cd = sn_default_cloth_def();
  cd.columns = 2000;
  cd.rows = 2000;
  REFUSE(sn_create_cloth(w, &cd), "columns x rows");

  sn_ring_def gd = sn_default_ring_def();
  gd.count = 2;
  REFUSE(sn_create_ring(w, &gd), "count");
  gd = sn_default_ring_def();
  gd.mass = -1.0f;
  REFUSE(sn_create_ring(w, &gd), "mass");
  gd = sn_default_ring_def();
  gd.radius = 0.0f;
  REFUSE(sn_create_ring(w, &gd), "radius");
  gd = sn_default_ring_def();
  gd.pressure = nan;
  REFUSE(sn_create_ring(w, &gd), "pressure");

  sn_lattice_def ld = sn_default_lattice_def();
  ld.columns = 1;
  REFUSE(sn_create_lattice(w, &ld), "columns");
  ld = sn_default_lattice_def();
  ld.spacing = -0.1f;
  REFUSE(sn_create_lattice(w, &ld), "spacing");
  ld = sn_default_lattice_def();
  ld.radius = -1.0f;
  REFUSE(sn_create_lattice(w, &ld), "radius");
  ld = sn_default_lattice_def();
  ld.center = (sn_vec2){0.0f, INFINITY};
  REFUSE(sn_create_lattice(w, &ld), "center");
  sn_destroy_world(w);
  sn_destroy_registry(r);

  /* a registry without xpbd_area: the ring names the type and its plugin;
   * without xpbd_bend, a rope asking for bending is refused the same way */
  r = js_registry((const char *const[]){"xpbd_distance", NULL});
  w = ss_world(r, 8, 1);
  gd = sn_default_ring_def();
  REFUSE(sn_create_ring(w, &gd), MISSING("xpbd_area"));
  ck_assert(strstr(sn_world_last_error(w), "'xpbd_area'") != NULL);
  rd = sn_default_rope_def();
  rd.material.bend_compliance = 0.0f;
  REFUSE(sn_create_rope(w, &rd), MISSING("xpbd_bend"));
  rd = sn_default_rope_def();
  ck_assert_msg(sn_soft_body_is_valid(w, sn_create_rope(w, &rd)), "%s", sn_world_last_error(w));
  sn_destroy_world(w);
  sn_destroy_registry(r);

  /* a world with no registry at all */
  sn_world_def wd = sn_default_world_def();
  w = sn_create_world(&wd, NULL);
  rd = sn_default_rope_def();
  REFUSE(sn_create_rope(w, &rd), MISSING("xpbd_distance"));
  sn_destroy_world(w);
#undef REFUSE
#undef MISSING
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("soft_builders");
  TCase *tc = tcase_create("builders");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_builder_counts);
  tcase_add_test(tc, test_jelly_ring);
  tcase_add_test(tc, test_cloth32);
  tcase_add_test(tc, test_builder_refusals);
  suite_add_tcase(s, tc);
  return s;
}
