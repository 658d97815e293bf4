/* Soft bodies in scene files (scenefile/, docs/scene-format.md): builder
 * entries (rope, cloth, ring, lattice) make what the builders make with the
 * same settings, and their defaults are the sn_default_*_def values; the
 * issue's jelly loads; a world with a rope tied to a box (attach), a cloth,
 * a jelly, a lattice and an explicit soft body saves, loads and saves to the
 * same text and steps bit for bit like the original; scenes/mixed.json loads
 * and steps; every class of malformed soft-body entry and particle reference
 * is refused with its status, file:line:column and message, leaving nothing
 * behind; a missing xpbd plugin is reported at the entry. */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_main.h"
#include "scene_support.h"
#include "shipped.h"
#include "sinew/scene_file.h"

#define DT (1.0f / 60.0f)

/// A registry with the soft-body plugins, attach and revolute.
static sn_registry *soft_registry(void) {
  sn_registry *reg = sn_create_registry(NULL);
  static const char *const names[] = {"xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach", "revolute"};
  char msg[512];
  ck_assert_msg(sn_shipped_add(reg, SN_PLUGIN_DIR, names, 6, msg, sizeof msg) == SN_OK, "%s", msg);
  return reg;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

static char *save_or_fail(sn_world *w, const sn_scene_names *names) {
  sn_scene_error e;
  char *text = sn_scene_save_string(w, names, &e);
  ck_assert_msg(text != NULL, "save: %s", e.message);
  ck_assert_int_eq(e.status, SN_SCENE_OK);
  return text;
}

/// Loads text; into reg if not NULL (else a registry of its own).
static void load_or_fail(const char *text, const char *name, sn_registry *reg, sn_loaded_scene *out) {
  sn_scene_load_options o = test_options();
  o.registry = reg;
  sn_scene_error e;
  sn_scene_status st = sn_scene_load_string(text, strlen(text), name, &o, out, &e);
  if (st != SN_SCENE_OK) fprintf(stderr, "%s\n", text);
  ck_assert_msg(st == SN_SCENE_OK, "load: %s", e.message);
}

/// Every rigid body's pose and velocities, and every soft body's material,
/// particles, edges and constraint count are the same bits in both worlds.
static void assert_same_world(sn_world *a, sn_world *b, const char *when) {
  int32_t n = sn_world_get_body_count(a);
  ck_assert_int_eq(n, sn_world_get_body_count(b));
  sn_body_id *ba = malloc(((size_t)n + 1) * sizeof *ba), *bb = malloc(((size_t)n + 1) * sizeof *bb);
  ck_assert_int_eq(sn_world_get_bodies(a, ba, n), n);
  ck_assert_int_eq(sn_world_get_bodies(b, bb, n), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_transform xa = sn_body_get_transform(a, ba[i]), xb = sn_body_get_transform(b, bb[i]);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa), "%s: body %d pose", when, (int)i);
    sn_vec2 va = sn_body_get_linear_velocity(a, ba[i]), vb = sn_body_get_linear_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&va, &vb, sizeof va), "%s: body %d velocity", when, (int)i);
    float wa = sn_body_get_angular_velocity(a, ba[i]), wb = sn_body_get_angular_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&wa, &wb, sizeof wa), "%s: body %d angular velocity", when, (int)i);
  }
  free(ba);
  free(bb);
  n = sn_world_get_soft_body_count(a);
  ck_assert_int_eq(n, sn_world_get_soft_body_count(b));
  sn_soft_body_id *sa = malloc(((size_t)n + 1) * sizeof *sa), *sb = malloc(((size_t)n + 1) * sizeof *sb);
  ck_assert_int_eq(sn_world_get_soft_bodies(a, sa, n), n);
  ck_assert_int_eq(sn_world_get_soft_bodies(b, sb, n), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_soft_body_def ma = sn_soft_body_get_material(a, sa[i]), mb = sn_soft_body_get_material(b, sb[i]);
    ma.user_data = mb.user_data = NULL;
    ck_assert_msg(same_bits(&ma, &mb, sizeof ma), "%s: soft body %d material", when, (int)i);
    int32_t pc = sn_soft_body_get_particle_count(a, sa[i]);
    ck_assert_int_eq(pc, sn_soft_body_get_particle_count(b, sb[i]));
    sn_particle_id *pa = malloc(((size_t)pc + 1) * sizeof *pa), *pb = malloc(((size_t)pc + 1) * sizeof *pb);
    ck_assert_int_eq(sn_soft_body_get_particles(a, sa[i], pa, pc), pc);
    ck_assert_int_eq(sn_soft_body_get_particles(b, sb[i], pb, pc), pc);
    for (int32_t j = 0; j < pc; ++j) {
      sn_vec2 xa = sn_particle_get_position(a, pa[j]), xb = sn_particle_get_position(b, pb[j]);
      ck_assert_msg(same_bits(&xa, &xb, sizeof xa),
                    "%s: soft body %d particle %d position (%.9g, %.9g) vs (%.9g, %.9g)", when, (int)i, (int)j,
                    (double)xa.x, (double)xa.y, (double)xb.x, (double)xb.y);
      sn_vec2 va = sn_particle_get_velocity(a, pa[j]), vb = sn_particle_get_velocity(b, pb[j]);
      ck_assert_msg(same_bits(&va, &vb, sizeof va), "%s: soft body %d particle %d velocity", when, (int)i, (int)j);
      float fa = sn_particle_get_mass(a, pa[j]), fb = sn_particle_get_mass(b, pb[j]);
      ck_assert_msg(same_bits(&fa, &fb, sizeof fa), "%s: particle mass", when);
      fa = sn_particle_get_radius(a, pa[j]);
      fb = sn_particle_get_radius(b, pb[j]);
      ck_assert_msg(same_bits(&fa, &fb, sizeof fa), "%s: particle radius", when);
      ck_assert(sn_particle_is_kinematic(a, pa[j]) == sn_particle_is_kinematic(b, pb[j]));
    }
    int32_t ec = sn_soft_body_get_edge_count(a, sa[i]);
    ck_assert_int_eq(ec, sn_soft_body_get_edge_count(b, sb[i]));
    sn_particle_id *ea = malloc(((size_t)ec + 1) * 2 * sizeof *ea), *eb = malloc(((size_t)ec + 1) * 2 * sizeof *eb);
    ck_assert_int_eq(sn_soft_body_get_edges(a, sa[i], ea, ec), ec);
    ck_assert_int_eq(sn_soft_body_get_edges(b, sb[i], eb, ec), ec);
    for (int32_t j = 0; j < 2 * ec; ++j) {
      /* the same particle by position in its soft body */
      int32_t ka = -1, kb = -1;
      for (int32_t q = 0; q < pc; ++q) {
        if (pa[q].index1 == ea[j].index1) ka = q;
        if (pb[q].index1 == eb[j].index1) kb = q;
      }
      ck_assert_int_ge(ka, 0);
      ck_assert_int_eq(ka, kb);
    }
    ck_assert_int_eq(sn_soft_body_get_constraints(a, sa[i], NULL, 0), 0);
    sn_constraint_id ka[4096], kb[4096];
    ck_assert_int_eq(sn_soft_body_get_constraints(a, sa[i], ka, 4096),
                     sn_soft_body_get_constraints(b, sb[i], kb, 4096));
    free(pa);
    free(pb);
    free(ea);
    free(eb);
  }
  free(sa);
  free(sb);
  ck_assert_int_eq(sn_world_get_constraint_count(a), sn_world_get_constraint_count(b));
}

/// The text a world saves to equals the text expected.
static void assert_saves_as(sn_world *w, const sn_scene_names *names, const char *expected, const char *what) {
  char *text = save_or_fail(w, names);
  if (strcmp(text, expected) != 0) fprintf(stderr, "%s:\n%s\n--- expected ---\n%s\n", what, text, expected);
  ck_assert_msg(strcmp(text, expected) == 0, "%s: the saved texts differ", what);
  sn_scene_free_text(text);
}

/* ------------------------------------------------------------------------ */
/* Builder entries make what the builders make                              */

typedef enum kind { ROPE, CLOTH, RING, LATTICE } kind;

/// A world loaded from an empty scene (the format's settings) in reg, with
/// one soft body of that name built by the builder of kind from def.
static char *builder_text(sn_registry *reg, kind k, const void *def, const char *name) {
  const char *empty = "{\"sinew_scene\": 1}";
  sn_loaded_scene s;
  load_or_fail(empty, "empty.json", reg, &s);
  sn_soft_body_id id = SN_NULL_SOFT_BODY;
  switch (k) {
  case ROPE:
    id = sn_create_rope(s.world, def);
    break;
  case CLOTH:
    id = sn_create_cloth(s.world, def);
    break;
  case RING:
    id = sn_create_ring(s.world, def);
    break;
  case LATTICE:
    id = sn_create_lattice(s.world, def);
    break;
  }
  ck_assert_msg(sn_soft_body_is_valid(s.world, id), "%s", sn_world_last_error(s.world));
  ck_assert_int_eq(sn_scene_names_set_soft_body(s.names, id, name), SN_SCENE_OK);
  char *text = save_or_fail(s.world, s.names);
  sn_scene_unload(&s);
  return text;
}

/// The file's entry loads to the world the builder makes from def.
static void check_entry(sn_registry *reg, const char *entry, kind k, const void *def, const char *what) {
  char file[4096];
  snprintf(file, sizeof file, "{\"sinew_scene\": 1, \"soft_bodies\": [%s]}", entry);
  sn_loaded_scene s;
  load_or_fail(file, what, reg, &s);
  char *expected = builder_text(reg, k, def, "s");
  assert_saves_as(s.world, s.names, expected, what);
  sn_scene_free_text(expected);
  sn_scene_unload(&s);
}

START_TEST(test_builder_defaults) {
  /* an entry with only its kind is the builder's default def */
  sn_registry *reg = soft_registry();
  sn_rope_def rope = sn_default_rope_def();
  check_entry(reg, "{\"name\": \"s\", \"kind\": \"rope\"}", ROPE, &rope, "rope defaults");
  sn_cloth_def cloth = sn_default_cloth_def();
  check_entry(reg, "{\"name\": \"s\", \"kind\": \"cloth\"}", CLOTH, &cloth, "cloth defaults");
  sn_ring_def ring = sn_default_ring_def();
  check_entry(reg, "{\"name\": \"s\", \"kind\": \"ring\"}", RING, &ring, "ring defaults");
  sn_lattice_def lattice = sn_default_lattice_def();
  check_entry(reg, "{\"name\": \"s\", \"kind\": \"lattice\"}", LATTICE, &lattice, "lattice defaults");
  /* the material defaults too */
  sn_loaded_scene s;
  load_or_fail("{\"sinew_scene\": 1, \"soft_bodies\": [{\"name\": \"r\", \"kind\": \"rope\"}]}", "m.json", reg, &s);
  sn_soft_body_def m = sn_soft_body_get_material(s.world, sn_scene_names_find_soft_body(s.names, "r"));
  sn_soft_body_def d = sn_default_soft_body_def();
  ck_assert(same_bits(&m, &d, sizeof m));
  sn_scene_unload(&s);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_builder_keys) {
  /* every key lands in its def field */
  sn_registry *reg = soft_registry();
  sn_rope_def rope = sn_default_rope_def();
  rope.start = (sn_vec2){1.0f, 2.0f};
  rope.end = (sn_vec2){3.0f, 2.5f};
  rope.count = 9;
  rope.mass = 2.5f;
  rope.radius = 0.07f;
  rope.pin_start = true;
  rope.pin_end = true;
  rope.tethers = true;
  rope.material.compliance = 1e-4f;
  rope.material.damping = 0.01f;
  rope.material.bend_compliance = 0.5f;
  rope.material.tear_force = 300.0f;
  rope.body.friction = 0.7f;
  rope.body.restitution = 0.25f;
  rope.body.damping = 0.1f;
  rope.body.rigid_damping = 0.05f;
  rope.body.collide_rigid = false;
  rope.body.collide_soft = false;
  rope.body.self_collision = true;
  check_entry(
      reg,
      "{\"name\": \"s\", \"kind\": \"rope\", \"start\": [1, 2], \"end\": [3, 2.5], \"count\": 9, \"mass\": 2.5, "
      "\"radius\": 0.07, \"pin_start\": true, \"pin_end\": true, \"tethers\": true, \"compliance\": 1e-4, "
      "\"damping\": 0.01, \"bend_compliance\": 0.5, \"tear_force\": 300, \"friction\": 0.7, "
      "\"restitution\": 0.25, \"linear_damping\": 0.1, \"rigid_damping\": 0.05, \"collide_rigid\": false, "
      "\"collide_soft\": false, \"self_collision\": true}",
      ROPE, &rope, "rope keys");
  sn_cloth_def cloth = sn_default_cloth_def();
  cloth.top_left = (sn_vec2){-1.0f, 4.0f};
  cloth.columns = 6;
  cloth.rows = 4;
  cloth.spacing = 0.15f;
  cloth.mass = 0.5f;
  cloth.radius = 0.03f;
  cloth.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT | SN_PIN_BOTTOM_LEFT | SN_PIN_BOTTOM_RIGHT;
  cloth.tethers = false;
  cloth.material.shear_compliance = 1e-3f;
  cloth.material.bend_compliance = 2.0f;
  check_entry(reg,
              "{\"name\": \"s\", \"kind\": \"cloth\", \"top_left\": [-1, 4], \"columns\": 6, \"rows\": 4, "
              "\"spacing\": 0.15, \"mass\": 0.5, \"radius\": 0.03, \"pins\": [\"top_left\", \"top_right\", "
              "\"bottom_left\", \"bottom_right\"], \"tethers\": false, \"shear_compliance\": 1e-3, "
              "\"bend_compliance\": 2}",
              CLOTH, &cloth, "cloth keys");
  cloth = sn_default_cloth_def();
  cloth.columns = 3;
  cloth.rows = 3;
  cloth.pins = SN_PIN_TOP_ROW;
  check_entry(reg, "{\"name\": \"s\", \"kind\": \"cloth\", \"columns\": 3, \"rows\": 3, \"pins\": [\"top_row\"]}",
              CLOTH, &cloth, "cloth top row");
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){2.0f, 1.0f};
  ring.radius = 0.8f;
  ring.count = 16;
  ring.mass = 3.0f;
  ring.particle_radius = 0.04f;
  ring.pressure = 1.5f;
  ring.area_compliance = 1e-3f;
  ring.material.compliance = 0.0f;
  ring.material.bend_compliance = 0.1f;
  check_entry(reg,
              "{\"name\": \"s\", \"kind\": \"ring\", \"center\": [2, 1], \"radius\": 0.8, \"count\": 16, \"mass\": 3, "
              "\"particle_radius\": 0.04, \"pressure\": 1.5, \"area_compliance\": 1e-3, \"compliance\": 0, "
              "\"bend_compliance\": 0.1}",
              RING, &ring, "ring keys");
  sn_lattice_def lattice = sn_default_lattice_def();
  lattice.center = (sn_vec2){-2.0f, 3.0f};
  lattice.columns = 3;
  lattice.rows = 6;
  lattice.spacing = 0.2f;
  lattice.mass = 4.0f;
  lattice.radius = 0.05f;
  lattice.area_compliance = -1.0f;
  lattice.material.shear_compliance = -1.0f;
  check_entry(reg,
              "{\"name\": \"s\", \"kind\": \"lattice\", \"center\": [-2, 3], \"columns\": 3, \"rows\": 6, "
              "\"spacing\": 0.2, \"mass\": 4, \"radius\": 0.05, \"area_compliance\": -1, \"shear_compliance\": -1}",
              LATTICE, &lattice, "lattice keys");
  sn_destroy_registry(reg);
}
END_TEST

static const char *issue_jelly =
    "{\"sinew_scene\": 1,\n"
    " \"soft_bodies\": [\n"
    "  { \"name\": \"jelly\", \"kind\": \"ring\", \"center\": [3, 5], \"radius\": 0.5, \"count\": 24, \"mass\": 1, "
    "\"compliance\": 0, \"pressure\": 1 }\n"
    " ]}\n";

START_TEST(test_issue_jelly) {
  /* the issue's example, without a "plugins" list: xpbd_distance and
   * xpbd_area load implicitly from the search path */
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(issue_jelly, strlen(issue_jelly), "jelly.json", &o, &s, &e) == SN_SCENE_OK, "%s",
                e.message);
  ck_assert_ptr_nonnull(sn_registry_find_type(s.registry, "xpbd_distance"));
  ck_assert_ptr_nonnull(sn_registry_find_type(s.registry, "xpbd_area"));
  sn_soft_body_id jelly = sn_scene_names_find_soft_body(s.names, "jelly");
  ck_assert(sn_soft_body_is_valid(s.world, jelly));
  ck_assert_str_eq(sn_scene_names_get_soft_body(s.names, jelly), "jelly");
  ck_assert_int_eq(sn_soft_body_get_particle_count(s.world, jelly), 24);
  ck_assert_float_eq_tol(sn_soft_body_get_mass(s.world, jelly), 1.0f, 1e-5f);
  sn_vec2 c = sn_soft_body_get_center(s.world, jelly);
  ck_assert_float_eq_tol(c.x, 3.0f, 1e-5f);
  ck_assert_float_eq_tol(c.y, 5.0f, 1e-5f);
  /* exactly what sn_create_ring makes of the same settings */
  sn_registry *reg = soft_registry();
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){3.0f, 5.0f};
  ring.radius = 0.5f;
  ring.count = 24;
  ring.mass = 1.0f;
  ring.material.compliance = 0.0f;
  ring.pressure = 1.0f;
  char *expected = builder_text(reg, RING, &ring, "jelly");
  sn_loaded_scene again;
  load_or_fail(issue_jelly, "jelly.json", reg, &again);
  assert_saves_as(again.world, again.names, expected, "the issue's jelly");
  /* a ring round-trips to the explicit form */
  char *text = save_or_fail(s.world, s.names);
  ck_assert_ptr_nonnull(strstr(text, "{\"name\": \"jelly\", \"kind\": \"custom\""));
  ck_assert_ptr_nonnull(strstr(text, "\"plugins\": [\"xpbd_distance\", \"xpbd_area\"]"));
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
  ck_assert(isfinite(sn_soft_body_get_center(s.world, jelly).y));
  sn_scene_free_text(text);
  sn_scene_free_text(expected);
  sn_scene_unload(&again);
  sn_scene_unload(&s);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Round trip                                                               */

static sn_body_id add_box(sn_world *w, sn_body_type type, sn_vec2 p, float hx, float hy) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert(sn_body_is_valid(w, b));
  sn_polygon poly;
  sn_make_box(hx, hy, &poly);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &poly)));
  return b;
}

static sn_particle_id nth_particle(sn_world *w, sn_soft_body_id s, int32_t i) {
  sn_particle_id ids[4096];
  ck_assert_int_gt(sn_soft_body_get_particles(w, s, ids, 4096), i);
  return ids[i];
}

static sn_constraint_id add_constraint(sn_world *w, const char *type, sn_body_id body, const sn_particle_id *p,
                                       int32_t n, const sn_param_value *v, int32_t nv, float break_force) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.bodies[0] = body;
  cd.particles = p;
  cd.particle_count = n;
  cd.params = v;
  cd.param_count = nv;
  cd.break_force = break_force;
  sn_constraint_id k = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  return k;
}

/// A rope tied to a box (attach), a cloth, a jelly, a lattice, an explicit
/// soft body (kinematic particle, velocities, a named and a breakable
/// constraint, every material field) and a constraint joining two soft
/// bodies; created in the loader's order (bodies, each soft body with its
/// constraints, then the constraints between them).
static sn_world *build_soft_world(const sn_registry *reg, sn_scene_names *names) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  wd.substeps = 6;
  wd.soft_iterations = 2;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_id ground = add_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f);
  sn_body_id box = add_box(w, SN_BODY_DYNAMIC, (sn_vec2){-2.0f, 3.0f}, 0.3f, 0.3f);
  ck_assert_int_eq(sn_scene_names_set_body(names, ground, "ground"), SN_SCENE_OK);
  ck_assert_int_eq(sn_scene_names_set_body(names, box, "box"), SN_SCENE_OK);

  sn_rope_def rd = sn_default_rope_def();
  rd.start = (sn_vec2){0.0f, 4.0f};
  rd.end = (sn_vec2){-2.0f, 3.0f};
  rd.count = 12;
  rd.pin_start = true;
  rd.tethers = true;
  rd.material.bend_compliance = 1.0f;
  sn_soft_body_id rope = sn_create_rope(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_scene_names_set_soft_body(names, rope, "rope"), SN_SCENE_OK);

  sn_cloth_def cd = sn_default_cloth_def();
  cd.top_left = (sn_vec2){2.0f, 5.0f};
  cd.columns = 8;
  cd.rows = 6;
  cd.spacing = 0.15f;
  cd.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT;
  cd.material.shear_compliance = 1e-4f;
  cd.material.bend_compliance = 10.0f;
  sn_soft_body_id cloth = sn_create_cloth(w, &cd); /* unnamed: saved as "soft1" */
  ck_assert_msg(sn_soft_body_is_valid(w, cloth), "%s", sn_world_last_error(w));

  sn_ring_def gd = sn_default_ring_def();
  gd.center = (sn_vec2){-5.0f, 2.0f};
  gd.count = 20;
  gd.pressure = 1.2f;
  sn_soft_body_id jelly = sn_create_ring(w, &gd);
  ck_assert_msg(sn_soft_body_is_valid(w, jelly), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_scene_names_set_soft_body(names, jelly, "jelly"), SN_SCENE_OK);

  sn_lattice_def ld = sn_default_lattice_def();
  ld.center = (sn_vec2){5.0f, 1.0f};
  ld.columns = 4;
  ld.rows = 3;
  ld.spacing = 0.2f;
  ld.area_compliance = 1e-4f;
  sn_soft_body_id lattice = sn_create_lattice(w, &ld);
  ck_assert_msg(sn_soft_body_is_valid(w, lattice), "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_scene_names_set_soft_body(names, lattice, "lat"), SN_SCENE_OK);

  sn_soft_body_def bd = sn_default_soft_body_def();
  bd.friction = 0.7f;
  bd.restitution = 0.2f;
  bd.damping = 0.05f;
  bd.rigid_damping = 0.1f;
  bd.collide_soft = false;
  bd.self_collision = true;
  sn_soft_body_id blob = sn_create_soft_body(w, &bd);
  ck_assert(sn_soft_body_is_valid(w, blob));
  ck_assert_int_eq(sn_scene_names_set_soft_body(names, blob, "blob"), SN_SCENE_OK);
  sn_particle_id bp[3];
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){7.0f, 3.0f};
  pd.kinematic = true;
  pd.radius = 0.05f;
  bp[0] = sn_create_particle(w, blob, &pd);
  pd = sn_default_particle_def();
  pd.position = (sn_vec2){7.3f, 3.0f};
  pd.velocity = (sn_vec2){0.5f, 0.0f};
  pd.mass = 0.2f;
  pd.radius = 0.05f;
  bp[1] = sn_create_particle(w, blob, &pd);
  pd.position = (sn_vec2){7.6f, 3.1f};
  pd.mass = 0.3f;
  bp[2] = sn_create_particle(w, blob, &pd);
  for (int i = 0; i < 3; ++i) ck_assert(sn_particle_is_valid(w, bp[i]));
  ck_assert_int_eq(sn_soft_body_add_edge(w, blob, bp[0], bp[1]), SN_OK);
  ck_assert_int_eq(sn_soft_body_add_edge(w, blob, bp[1], bp[2]), SN_OK);
  const sn_param_value spring[2] = {{"compliance", 1e-3, 0.0}, {"damping", 0.02, 0.0}};
  sn_constraint_id k = add_constraint(w, "xpbd_distance", SN_NULL_BODY, bp, 2, spring, 2, 0.0f);
  ck_assert_int_eq(sn_scene_names_set_constraint(names, k, "spring"), SN_SCENE_OK);
  add_constraint(w, "xpbd_distance", SN_NULL_BODY, bp + 1, 2, NULL, 0, 50.0f);

  /* the rope's last particle tied to the box, and a link between two soft bodies */
  sn_particle_id end = nth_particle(w, rope, 11);
  k = add_constraint(w, "attach", box, &end, 1, NULL, 0, 0.0f);
  ck_assert_int_eq(sn_scene_names_set_constraint(names, k, "tie"), SN_SCENE_OK);
  const sn_particle_id cross[2] = {nth_particle(w, jelly, 3), nth_particle(w, lattice, 0)};
  const sn_param_value loose[1] = {{"compliance", 0.01, 0.0}};
  add_constraint(w, "xpbd_distance", SN_NULL_BODY, cross, 2, loose, 1, 0.0f);
  return w;
}

START_TEST(test_round_trip_soft_world) {
  sn_registry *reg = soft_registry();
  sn_scene_names *names = sn_create_scene_names();
  sn_world *original = build_soft_world(reg, names);

  char *text1 = save_or_fail(original, names);
  sn_loaded_scene s;
  load_or_fail(text1, "saved.json", NULL, &s);
  char *text2 = save_or_fail(s.world, s.names);
  if (strcmp(text1, text2) != 0) fprintf(stderr, "%s\n---\n%s\n", text1, text2);
  ck_assert_msg(strcmp(text1, text2) == 0, "save -> load -> save changed the text");
  /* what the text says */
  ck_assert_ptr_nonnull(strstr(text1, "\"plugins\": [\"xpbd_distance\", \"xpbd_bend\", \"xpbd_tether\", \"xpbd_area\", "
                                      "\"attach\"]"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"name\": \"rope\", \"kind\": \"custom\""));
  ck_assert_ptr_nonnull(strstr(text1, "{\"name\": \"soft1\", \"kind\": \"custom\""));
  ck_assert_ptr_nonnull(strstr(text1, "{\"name\": \"blob\", \"kind\": \"custom\", \"friction\": 0.7, \"restitution\": "
                                      "0.2, \"linear_damping\": 0.05, \"rigid_damping\": 0.1, \"collide_soft\": false, "
                                      "\"self_collision\": true"));
  if (strstr(text1, "{\"position\": [7, 3], \"kinematic\": true}") == NULL) fprintf(stderr, "%s\n", text1);
  ck_assert_ptr_nonnull(strstr(text1, "{\"position\": [7, 3], \"kinematic\": true}"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"position\": [7.3, 3], \"velocity\": [0.5, 0]"));
  ck_assert_ptr_nonnull(strstr(text1, "\"edges\": [[0, 1], [1, 2]]"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"name\": \"spring\", \"type\": \"xpbd_distance\""));
  ck_assert_ptr_nonnull(strstr(text1, "\"break_force\": 50, \"particles\": [[1, 2]]}"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"name\": \"tie\", \"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": "
                                      "[[\"rope\", 11]]"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"type\": \"xpbd_distance\", \"particles\": [[\"jelly\", 3], [\"lat\", 0]]"));
  ck_assert_ptr_null(strstr(text1, "e+"));

  /* names come back */
  ck_assert(sn_soft_body_is_valid(s.world, sn_scene_names_find_soft_body(s.names, "jelly")));
  ck_assert(sn_soft_body_is_valid(s.world, sn_scene_names_find_soft_body(s.names, "soft1")));
  ck_assert(sn_constraint_is_valid(s.world, sn_scene_names_find_constraint(s.names, "spring")));
  ck_assert(sn_constraint_is_valid(s.world, sn_scene_names_find_constraint(s.names, "tie")));

  /* the same world, bit for bit, stepping the same */
  assert_same_world(original, s.world, "after load");
  assert_same_definitions(original, s.world, "after load");
  for (int step = 1; step <= 120; ++step) {
    ck_assert_int_eq(sn_world_step(original, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    if (step % 20 == 0) {
      char when[32];
      snprintf(when, sizeof when, "step %d", step);
      assert_same_world(original, s.world, when);
    }
  }
  /* saved after stepping: the state comes back exactly, the text is a fixed point */
  char *text3 = save_or_fail(original, names);
  sn_loaded_scene s3;
  load_or_fail(text3, "stepped.json", NULL, &s3);
  assert_same_world(original, s3.world, "stepped save");
  /* the constraints as they were made, not as the deformed shapes are now */
  assert_same_definitions(original, s3.world, "stepped save");
  char *text4 = save_or_fail(s3.world, s3.names);
  ck_assert_msg(strcmp(text3, text4) == 0, "stepped world: save -> load -> save changed the text");

  sn_scene_free_text(text1);
  sn_scene_free_text(text2);
  sn_scene_free_text(text3);
  sn_scene_free_text(text4);
  sn_scene_unload(&s);
  sn_scene_unload(&s3);
  sn_destroy_world(original);
  sn_destroy_scene_names(names);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* scenes/mixed.json                                                        */

START_TEST(test_mixed_file) {
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_file(SN_SCENES_DIR "/mixed.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  sn_soft_body_id jelly = sn_scene_names_find_soft_body(s.names, "jelly");
  sn_soft_body_id bridge = sn_scene_names_find_soft_body(s.names, "bridge");
  ck_assert(sn_soft_body_is_valid(s.world, jelly));
  ck_assert(sn_soft_body_is_valid(s.world, bridge));
  ck_assert(sn_soft_body_is_valid(s.world, sn_scene_names_find_soft_body(s.names, "soft_crate")));
  ck_assert(sn_constraint_is_valid(s.world, sn_scene_names_find_constraint(s.names, "tie_left")));
  ck_assert(sn_constraint_is_valid(s.world, sn_scene_names_find_constraint(s.names, "tie_right")));
  ck_assert_int_eq(sn_soft_body_get_particle_count(s.world, jelly), 24);
  int32_t n = sn_soft_body_get_particle_count(s.world, bridge);
  ck_assert_int_eq(n, 14);
  for (int i = 0; i < 180; ++i) ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
  /* the jelly rests on the pyramid (top at y = 2), the bridge hangs between its posts */
  sn_vec2 c = sn_soft_body_get_center(s.world, jelly);
  ck_assert_msg(c.y > 2.0f && c.y < 3.0f && c.x > -4.0f && c.x < -2.0f, "jelly at (%g, %g)", (double)c.x, (double)c.y);
  sn_vec2 first = sn_particle_get_position(s.world, nth_particle(s.world, bridge, 0));
  sn_vec2 mid = sn_particle_get_position(s.world, nth_particle(s.world, bridge, n / 2));
  sn_vec2 last = sn_particle_get_position(s.world, nth_particle(s.world, bridge, n - 1));
  ck_assert_msg(fabsf(first.x - 0.8f) < 0.02f && fabsf(first.y - 2.0f) < 0.02f, "left end at (%g, %g)", (double)first.x,
                (double)first.y);
  ck_assert_msg(fabsf(last.x - 3.2f) < 0.02f && fabsf(last.y - 2.0f) < 0.02f, "right end at (%g, %g)", (double)last.x,
                (double)last.y);
  ck_assert_msg(mid.y < 2.0f && mid.y > 0.5f, "bridge middle at (%g, %g)", (double)mid.x, (double)mid.y);
  /* and it saves and loads */
  char *t1 = save_or_fail(s.world, s.names);
  sn_loaded_scene s2;
  load_or_fail(t1, "mixed-saved.json", NULL, &s2);
  char *t2 = save_or_fail(s2.world, s2.names);
  ck_assert_msg(strcmp(t1, t2) == 0, "mixed.json: save -> load -> save changed the text");
  sn_scene_free_text(t1);
  sn_scene_free_text(t2);
  sn_scene_unload(&s2);
  sn_scene_unload(&s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Malformed soft-body entries and particle references                      */
/* Each fixture marks the expected error position with a backquote, which   */
/* is removed before loading.                                                */

#define HEAD                                                                                                           \
  "{\"sinew_scene\": 1,\n \"plugins\": [\"attach\", \"revolute\"],\n"                                                  \
  " \"bodies\": [{\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"box\": [20, 1]}]},\n"                    \
  "            {\"name\": \"box\", \"type\": \"dynamic\", \"position\": [0, 4], \"shapes\": [{\"box\": [0.5, "         \
  "0.5]}]}],\n"
#define SOFT(entry)     HEAD " \"soft_bodies\": [\n  " entry "\n ]}\n"
#define JELLY           "{\"name\": \"jelly\", \"kind\": \"ring\", \"center\": [3, 5], \"radius\": 0.5, \"count\": 24}"
#define REF(constraint) HEAD " \"soft_bodies\": [" JELLY "],\n \"constraints\": [\n  " constraint "\n ]}\n"
#define CUSTOM(rest)                                                                                                   \
  "{\"sinew_scene\": 1, \"plugins\": [\"xpbd_distance\", \"xpbd_area\", \"attach\"],\n \"soft_bodies\": [{\"name\": "  \
  "\"c\", \"kind\": \"custom\",\n  \"particles\": [{\"position\": [0, 0]}, {\"position\": [1, 0]}, {\"position\": "    \
  "[0, 1]}]" rest "}]}\n"

static const fixture fixtures[] = {
    /* kinds and keys */
    {"unknown_kind", SOFT("{\"kind\": `\"jello\"}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].kind: expected \"rope\", \"cloth\", \"ring\", \"lattice\" or \"custom\", got \"jello\"", SN_OK},
    {"missing_kind", SOFT("`{\"name\": \"x\"}"), SN_SCENE_ERR_MISSING_KEY,
     "soft_bodies[0]: missing required key \"kind\"", SN_OK},
    {"kind_not_string", SOFT("{\"kind\": `3}"), SN_SCENE_ERR_TYPE, "expected \"rope\", \"cloth\"", SN_OK},
    {"entry_not_object", SOFT("`[1]"), SN_SCENE_ERR_TYPE, "soft_bodies[0]: expected a soft body object, got an array",
     SN_OK},
    {"unknown_key", SOFT("{\"kind\": \"ring\", `\"presure\": 1}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "soft_bodies[0].presure: unknown key \"presure\" in a ring soft body; expected one of: name, kind, friction",
     SN_OK},
    {"key_of_other_kind", SOFT("{\"kind\": \"rope\", `\"shear_compliance\": 0}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "unknown key \"shear_compliance\" in a rope soft body", SN_OK},
    {"key_twice", SOFT("{\"kind\": \"rope\", \"count\": 3, `\"count\": 4}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "key \"count\" is given twice", SN_OK},
    /* wrong types */
    {"count_string", SOFT("{\"kind\": \"ring\", \"count\": `\"many\"}"), SN_SCENE_ERR_TYPE,
     "soft_bodies[0].count: expected a whole number in [3, 4096], got the string \"many\"", SN_OK},
    {"start_not_vector", SOFT("{\"kind\": \"rope\", \"start\": `0}"), SN_SCENE_ERR_TYPE,
     "soft_bodies[0].start: expected [x, y] (an array of 2 numbers), got 0", SN_OK},
    {"pin_not_bool", SOFT("{\"kind\": \"rope\", \"pin_start\": `1}"), SN_SCENE_ERR_TYPE,
     "soft_bodies[0].pin_start: expected true or false, got 1", SN_OK},
    {"pins_not_array", SOFT("{\"kind\": \"cloth\", \"pins\": `\"top_left\"}"), SN_SCENE_ERR_TYPE,
     "soft_bodies[0].pins: expected an array of pins", SN_OK},
    {"friction_string", SOFT("{\"kind\": \"lattice\", \"friction\": `\"high\"}"), SN_SCENE_ERR_TYPE,
     "soft_bodies[0].friction: expected a number >= 0, got the string \"high\"", SN_OK},
    /* ranges */
    {"ring_count_low", SOFT("{\"kind\": \"ring\", \"count\": `2}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].count: expected a whole number in [3, 4096], got 2", SN_OK},
    {"rope_count_low", SOFT("{\"kind\": \"rope\", \"count\": `1}"), SN_SCENE_ERR_RANGE,
     "expected a whole number in [2, 1048576], got 1", SN_OK},
    {"count_fraction", SOFT("{\"kind\": \"rope\", \"count\": `2.5}"), SN_SCENE_ERR_RANGE,
     "expected a whole number in [2, 1048576], got 2.5", SN_OK},
    {"mass_zero", SOFT("{\"kind\": \"ring\", \"mass\": `0}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].mass: expected a number > 0, got 0", SN_OK},
    {"mass_negative", SOFT("{\"kind\": \"lattice\", \"mass\": `-1}"), SN_SCENE_ERR_RANGE,
     "expected a number > 0, got -1", SN_OK},
    {"grid_too_big", SOFT("{\"kind\": \"cloth\", \"columns\": 2000, \"rows\": `2000}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].rows: columns x rows = 4000000 particles; expected at most 1048576", SN_OK},
    {"columns_one", SOFT("{\"kind\": \"lattice\", \"columns\": `1}"), SN_SCENE_ERR_RANGE,
     "expected a whole number in [2, 1048576], got 1", SN_OK},
    {"restitution_high", SOFT("{\"kind\": \"rope\", \"restitution\": `2}"), SN_SCENE_ERR_RANGE,
     "expected a number in [0, 1], got 2", SN_OK},
    {"compliance_high", SOFT("{\"kind\": \"rope\", \"compliance\": `2e6}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].compliance: expected a number in [0, 1e+06], got 2e6", SN_OK},
    {"compliance_negative", SOFT("{\"kind\": \"rope\", \"compliance\": `-1}"), SN_SCENE_ERR_RANGE,
     "expected a number in [0, 1e+06], got -1", SN_OK},
    {"bend_high", SOFT("{\"kind\": \"cloth\", \"bend_compliance\": `2e6}"), SN_SCENE_ERR_RANGE,
     "expected a number <= 1e+06, got 2e6", SN_OK},
    {"pressure_high", SOFT("{\"kind\": \"ring\", \"pressure\": `200}"), SN_SCENE_ERR_RANGE,
     "expected a number in [0, 100], got 200", SN_OK},
    {"pin_word", SOFT("{\"kind\": \"cloth\", \"pins\": [\"top_left\", `\"middle\"]}"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].pins[1]: expected one of \"top_left\", \"top_right\", \"top_row\", \"bottom_left\", "
     "\"bottom_right\", got \"middle\"",
     SN_OK},
    {"pin_twice", SOFT("{\"kind\": \"cloth\", \"pins\": [\"top_row\", `\"top_row\"]}"), SN_SCENE_ERR_RANGE,
     "pin \"top_row\" is listed twice", SN_OK},
    {"soft_name_empty", SOFT("{\"name\": `\"\", \"kind\": \"rope\"}"), SN_SCENE_ERR_RANGE,
     "expected a name of 1 to 255 bytes", SN_OK},
    {"soft_name_of_body", SOFT("{\"name\": `\"box\", \"kind\": \"rope\"}"), SN_SCENE_ERR_DUPLICATE_NAME,
     "duplicate body name \"box\" (first used at 4:22)", SN_OK},
    /* the builders' own refusals, at the entry */
    {"rope_ends_coincide", SOFT("`{\"kind\": \"rope\", \"start\": [1, 1], \"end\": [1, 1]}"), SN_SCENE_ERR_ENGINE,
     "soft_bodies[0]: the engine refused this rope soft body: SN_ERR_INVALID_ARGUMENT: sn_create_rope: start and end "
     "coincide",
     SN_ERR_INVALID_ARGUMENT},
    {"cloth_far_corner", SOFT("`{\"kind\": \"cloth\", \"top_left\": [3e38, 0], \"spacing\": 1e38}"),
     SN_SCENE_ERR_ENGINE, "sn_create_cloth: the far corner must be finite", SN_ERR_NOT_FINITE},
    /* particle references of constraints */
    {"dangling_soft_name", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[`\"jely\", 3]]}"),
     SN_SCENE_ERR_DANGLING_REFERENCE,
     "constraints[0].particles[0][0]: no soft body named \"jely\"; expected the name of a soft body", SN_OK},
    {"rigid_body_as_soft", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[`\"ground\", 0]]}"),
     SN_SCENE_ERR_DANGLING_REFERENCE, "\"ground\" is a rigid body; expected the name of a soft body", SN_OK},
    {"soft_as_rigid_body", REF("{\"type\": \"attach\", \"bodies\": [`\"jelly\"], \"particles\": [[\"jelly\", 0]]}"),
     SN_SCENE_ERR_DANGLING_REFERENCE, "\"jelly\" is a soft body; expected the name of a rigid body", SN_OK},
    {"particle_index_high", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[\"jelly\", `24]]}"),
     SN_SCENE_ERR_RANGE, "constraints[0].particles[0][1]: expected a whole number in [0, 23], got 24", SN_OK},
    {"particle_index_negative", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[\"jelly\", `-1]]}"),
     SN_SCENE_ERR_RANGE, "expected a whole number in [0, 23], got -1", SN_OK},
    {"particle_index_string",
     REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[\"jelly\", `\"3\"]]}"), SN_SCENE_ERR_TYPE,
     "expected a particle index (a whole number), got the string \"3\"", SN_OK},
    {"particle_ref_shape", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [`\"jelly\"]}"),
     SN_SCENE_ERR_TYPE, "expected a particle reference [\"soft body name\", index], got the string", SN_OK},
    {"particles_not_array", REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": `{}}"), SN_SCENE_ERR_TYPE,
     "expected an array of particle references", SN_OK},
    {"attach_two_particles",
     REF("{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": `[[\"jelly\", 1], [\"jelly\", 2]]}"),
     SN_SCENE_ERR_RANGE, "constraints[0].particles: expected 1 particle for a attach, got 2", SN_OK},
    {"attach_without_particles", REF("`{\"type\": \"attach\", \"bodies\": [\"box\"]}"), SN_SCENE_ERR_MISSING_KEY,
     "constraints[0]: missing required key \"particles\"", SN_OK},
    {"attach_without_body", REF("`{\"type\": \"attach\", \"particles\": [[\"jelly\", 0]]}"), SN_SCENE_ERR_MISSING_KEY,
     "missing required key \"bodies\"; expected 1 body name for a attach", SN_OK},
    {"particles_on_rigid_joint",
     REF("{\"type\": \"revolute\", \"bodies\": [\"ground\", \"box\"], \"particles\": `[[\"jelly\", 0]]}"),
     SN_SCENE_ERR_RANGE, "a revolute joins rigid bodies only; expected no \"particles\"", SN_OK},
    /* explicit ("custom") soft bodies */
    {"custom_particle_without_position",
     "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"custom\", \"particles\": [`{\"mass\": 1}]}]}",
     SN_SCENE_ERR_MISSING_KEY, "soft_bodies[0].particles[0]: missing required key \"position\"", SN_OK},
    {"custom_particle_mass_type",
     "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"custom\", \"particles\": [{\"position\": [0, 0], "
     "\"mass\": `\"heavy\"}]}]}",
     SN_SCENE_ERR_TYPE, "soft_bodies[0].particles[0].mass: expected a number >= 0", SN_OK},
    {"custom_particle_radius_negative",
     "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"custom\", \"particles\": [{\"position\": [0, 0], "
     "\"radius\": `-1}]}]}",
     SN_SCENE_ERR_RANGE, "expected a number >= 0, got -1", SN_OK},
    {"custom_particle_unknown_key",
     "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"custom\", \"particles\": [{\"position\": [0, 0], "
     "`\"pinned\": true}]}]}",
     SN_SCENE_ERR_UNKNOWN_KEY, "unknown key \"pinned\" in a particle; expected one of: position, velocity", SN_OK},
    {"custom_builder_key", CUSTOM(", `\"count\": 3"), SN_SCENE_ERR_UNKNOWN_KEY,
     "unknown key \"count\" in a custom soft body", SN_OK},
    {"custom_edge_to_itself", CUSTOM(", \"edges\": [[0, 1], `[1, 1]]"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].edges[1]: edge [1, 1] joins a particle to itself", SN_OK},
    {"custom_edge_index_high", CUSTOM(", \"edges\": [[0, `5]]"), SN_SCENE_ERR_RANGE,
     "soft_bodies[0].edges[0][1]: expected a whole number in [0, 2], got 5", SN_OK},
    {"custom_group_index_high", CUSTOM(", \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": [[0, `3]]}]"),
     SN_SCENE_ERR_RANGE, "soft_bodies[0].constraints[0].particles[0][1]: expected a whole number in [0, 2], got 3",
     SN_OK},
    {"custom_group_without_particles", CUSTOM(", \"constraints\": [`{\"type\": \"xpbd_distance\"}]"),
     SN_SCENE_ERR_MISSING_KEY, "soft_bodies[0].constraints[0]: missing required key \"particles\"", SN_OK},
    {"custom_group_empty", CUSTOM(", \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": `[]}]"),
     SN_SCENE_ERR_RANGE, "got an empty array", SN_OK},
    {"custom_group_arity",
     CUSTOM(", \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": [[0, 1], `[0, 1, 2]]}]"),
     SN_SCENE_ERR_RANGE, "soft_bodies[0].constraints[0].particles[1]: expected 2 particles for a xpbd_distance, got 3",
     SN_OK},
    {"custom_group_unknown_type", CUSTOM(", \"constraints\": [{\"type\": `\"xpbd_bend\", \"particles\": [[0, 1, 2]]}]"),
     SN_SCENE_ERR_UNKNOWN_TYPE, "soft_bodies[0].constraints[0].type: no constraint type \"xpbd_bend\" in the registry",
     SN_OK},
    {"custom_group_with_body", CUSTOM(", \"constraints\": [{\"type\": `\"attach\", \"particles\": [[0]]}]"),
     SN_SCENE_ERR_RANGE, "a attach joins 1 rigid body; expected a type that joins particles only", SN_OK},
    {"custom_group_unknown_param",
     CUSTOM(", \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": [[0, 1]], \"params\": {`\"stifness\": "
            "1}}]"),
     SN_SCENE_ERR_UNKNOWN_PARAM, "xpbd_distance has no parameter \"stifness\"", SN_OK},
    {"custom_group_param_range",
     CUSTOM(", \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": [[0, 1]], \"compliance\": `-1}]"),
     SN_SCENE_ERR_RANGE, "soft_bodies[0].constraints[0].compliance: expected a number in [0, 1e+06], got -1", SN_OK},
    {"custom_named_group_of_two",
     CUSTOM(", \"constraints\": [{\"name\": `\"g\", \"type\": \"xpbd_distance\", \"particles\": [[0, 1], [1, 2]]}]"),
     SN_SCENE_ERR_RANGE, "a named group is one constraint; expected exactly one particle list, got 2", SN_OK},
    {"custom_group_plugin_refuses",
     CUSTOM(", \"constraints\": [{\"type\": \"xpbd_area\", \"particles\": [`[0, 2, 1]]}]"), SN_SCENE_ERR_ENGINE,
     "soft_bodies[0].constraints[0].particles[0]: the engine refused this constraint", SN_ERR_PLUGIN_INIT_FAILED},
};

START_TEST(test_malformed_soft) { check_fixture(fixtures + _i); }
END_TEST

START_TEST(test_missing_xpbd_plugin) {
  /* a builder entry whose xpbd type no folder of the search path has (a
   * build without file loading searches none: the type comes linked in) */
  char dir[] = "/tmp/sinew_scene_soft_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const char *dirs[1] = {dir};
  sn_scene_load_options o = sn_default_scene_load_options();
  o.plugin_dirs = dirs;
  o.plugin_dir_count = 1;
  o.search_default_dirs = false;
  const char *text = "{\"sinew_scene\": 1,\n \"soft_bodies\": [\n  {\"name\": \"jelly\", \"kind\": \"ring\"}]}";
  sn_loaded_scene s;
  sn_scene_error e;
  if (sn_shipped_from_files()) {
    ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "noplugin.json", &o, &s, &e),
                     SN_SCENE_ERR_UNKNOWN_PLUGIN);
    ck_assert_msg(strstr(e.message, "noplugin.json:3:3: soft_bodies[0]: a ring needs the constraint type "
                                    "\"xpbd_distance\", which no listed plugin provides") == e.message,
                  "%s", e.message);
    ck_assert_ptr_nonnull(strstr(e.message, dir));
    ck_assert_ptr_null(s.world);
  } else {
    ck_assert_msg(sn_scene_load_string(text, strlen(text), "noplugin.json", &o, &s, &e) == SN_SCENE_OK, "%s",
                  e.message);
    ck_assert_str_eq(sn_registry_get_type_origin(s.registry, "xpbd_distance"), "linked-in plugin sinew.xpbd_distance");
    sn_scene_unload(&s);
  }
  /* a caller's registry that has the types needs no plugin file */
  sn_registry *reg = soft_registry();
  o.registry = reg;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "registry.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  sn_scene_unload(&s);
  /* listing the xpbd plugins explicitly is fine too */
  sn_scene_load_options t = test_options();
  const char *listed = "{\"sinew_scene\": 1, \"plugins\": [\"xpbd_distance\", \"xpbd_area\"],\n \"soft_bodies\": "
                       "[{\"kind\": \"ring\"}]}";
  ck_assert_msg(sn_scene_load_string(listed, strlen(listed), "listed.json", &t, &s, &e) == SN_SCENE_OK, "%s",
                e.message);
  sn_scene_unload(&s);
  sn_destroy_registry(reg);
  rmdir(dir);
}
END_TEST

START_TEST(test_soft_names) {
  sn_scene_names *n = sn_create_scene_names();
  sn_body_id b = {1, 7, 1};
  sn_soft_body_id s = {1, 7, 1}, s2 = {2, 7, 1};
  ck_assert_int_eq(sn_scene_names_set_body(n, b, "ball"), SN_SCENE_OK);
  ck_assert_int_eq(sn_scene_names_set_soft_body(n, s, "jelly"), SN_SCENE_OK);
  ck_assert_str_eq(sn_scene_names_get_soft_body(n, s), "jelly");
  ck_assert_int_eq(sn_scene_names_find_soft_body(n, "jelly").index1, 1);
  ck_assert_int_eq(sn_scene_names_find_soft_body(n, "ball").index1, 0);
  /* one namespace for bodies and soft bodies */
  ck_assert_int_eq(sn_scene_names_set_soft_body(n, s2, "ball"), SN_SCENE_ERR_DUPLICATE_NAME);
  ck_assert_int_eq(sn_scene_names_set_body(n, (sn_body_id){2, 7, 1}, "jelly"), SN_SCENE_ERR_DUPLICATE_NAME);
  ck_assert_int_eq(sn_scene_names_set_soft_body(n, s2, "jelly"), SN_SCENE_ERR_DUPLICATE_NAME);
  ck_assert_int_eq(sn_scene_names_set_soft_body(n, s, NULL), SN_SCENE_OK);
  ck_assert_ptr_null(sn_scene_names_get_soft_body(n, s));
  ck_assert_int_eq(sn_scene_names_set_body(n, (sn_body_id){2, 7, 1}, "jelly"), SN_SCENE_OK);
  ck_assert_int_eq(sn_scene_names_set_soft_body(n, s, ""), SN_SCENE_ERR_ARGUMENT);
  ck_assert_int_eq(sn_scene_names_set_soft_body(NULL, s, "x"), SN_SCENE_ERR_ARGUMENT);
  ck_assert_ptr_null(sn_scene_names_get_soft_body(NULL, s));
  sn_destroy_scene_names(n);
}
END_TEST

START_TEST(test_soft_mutations) {
  /* every prefix of a document with each kind of soft entry and reference is
   * refused; random byte edits give any status, never a crash or a leak */
  static const char doc[] =
      "{\"sinew_scene\": 1, \"plugins\": [\"attach\", \"xpbd_distance\"],\n"
      " \"bodies\": [{\"name\": \"box\", \"type\": \"dynamic\", \"shapes\": [{\"box\": [0.5, 0.5]}]}],\n"
      " \"soft_bodies\": [\n"
      "  {\"name\": \"r\", \"kind\": \"rope\", \"count\": 4, \"pin_start\": true, \"tethers\": true},\n"
      "  {\"name\": \"c\", \"kind\": \"cloth\", \"columns\": 3, \"rows\": 2, \"pins\": [\"top_row\"]},\n"
      "  {\"name\": \"j\", \"kind\": \"ring\", \"count\": 6},\n"
      "  {\"name\": \"l\", \"kind\": \"lattice\", \"columns\": 2, \"rows\": 2},\n"
      "  {\"name\": \"x\", \"kind\": \"custom\", \"particles\": [{\"position\": [0, 0]}, {\"position\": [1, 0], "
      "\"mass\": 0}],\n"
      "   \"edges\": [[0, 1]], \"constraints\": [{\"type\": \"xpbd_distance\", \"particles\": [[0, 1]]}]}],\n"
      " \"constraints\": [{\"type\": \"attach\", \"bodies\": [\"box\"], \"particles\": [[\"r\", 3]]},\n"
      "  {\"type\": \"xpbd_distance\", \"particles\": [[\"j\", 0], [\"x\", 1]]}]}\n";
  const size_t n = sizeof doc - 1;
  sn_registry *reg = soft_registry();
  sn_scene_load_options o = test_options();
  o.registry = reg;
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(doc, n, "doc.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  sn_scene_unload(&s);
  for (size_t k = 0; k + 1 < n; k += 7) {
    sn_scene_status st = sn_scene_load_string(doc, k, "cut.json", &o, &s, &e);
    ck_assert_msg(st == SN_SCENE_ERR_SYNTAX, "prefix %zu: %s", k, e.message);
  }
  char *text = malloc(n);
  uint32_t seed = 777u;
  int loaded = 0;
  for (int round = 0; round < 2000; ++round) {
    memcpy(text, doc, n);
    int edits = 1 + round % 3;
    for (int j = 0; j < edits; ++j) {
      seed = seed * 1664525u + 1013904223u;
      size_t at = (seed >> 8) % n;
      seed = seed * 1664525u + 1013904223u;
      static const char pool[] = "{}[]\",:0123456789.-+eE \ntfnaxyz\\";
      text[at] = pool[(seed >> 8) % (sizeof pool - 1)];
    }
    counting mem = {0, 0};
    o.allocator = (sn_allocator){count_alloc, count_free, &mem};
    sn_scene_status st = sn_scene_load_string(text, n, "fuzz.json", &o, &s, &e);
    if (st == SN_SCENE_OK) {
      loaded++;
      sn_world_step(s.world, DT);
      sn_scene_unload(&s);
    } else {
      ck_assert_msg(strncmp(e.message, "fuzz.json:", 10) == 0, "%s", e.message);
      ck_assert_ptr_null(s.world);
    }
    ck_assert_msg(mem.live_bytes == 0, "round %d: %lld bytes left", round, mem.live_bytes);
  }
  ck_assert_int_gt(loaded, 0);
  free(text);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("scene_soft");
  TCase *load = tcase_create("load_save");
  tcase_set_timeout(load, 300);
  tcase_add_test(load, test_builder_defaults);
  tcase_add_test(load, test_builder_keys);
  tcase_add_test(load, test_issue_jelly);
  tcase_add_test(load, test_round_trip_soft_world);
  tcase_add_test(load, test_mixed_file);
  tcase_add_test(load, test_soft_names);
  suite_add_tcase(s, load);
  TCase *bad = tcase_create("malformed");
  tcase_set_timeout(bad, 300);
  tcase_add_loop_test(bad, test_malformed_soft, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
  tcase_add_test(bad, test_missing_xpbd_plugin);
  tcase_add_test(bad, test_soft_mutations);
  suite_add_tcase(s, bad);
  return s;
}
