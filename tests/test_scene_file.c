/* Scene files (scenefile/, docs/scene-format.md): an example scene loads
 * with every value in place; save -> load -> save gives the same text and a
 * world that steps bit for bit like the original (bodies of every shape kind,
 * revolute and distance constraints with parameters); the example files in
 * scenes/ load (pyramid10 steps exactly like the bench's pyramid 10 and is
 * its own canonical save); every class of malformed file is refused with its
 * status, file:line:column and an "expected ..." message, leaves nothing
 * behind (no world, no live bytes) and never crashes; name tables and the
 * caller's registry behave as documented. Soft bodies in scene files:
 * test_scene_soft.c; where the plugins a file lists come from:
 * test_scene_plugins.c. */
#define _DEFAULT_SOURCE

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_main.h"
#include "world/world.h"
#include "scene_support.h"
#include "sinew/scene_file.h"

#include "scenes.h"
#include "shipped.h"

#define DT (1.0f / 60.0f)

/* ------------------------------------------------------------------------ */
/* An example scene: a value of every kind in place                         */

static const char *example_scene =
    "{ \"sinew_scene\": 1, \"gravity\": [0, -10], \"settings\": { \"substeps\": 4, \"sleep\": true },\n"
    "  \"plugins\": [\"revolute\", \"distance\"],\n"
    "  \"bodies\": [ { \"name\": \"ground\", \"type\": \"static\", \"position\": [0, -1], \"angle\": 0,\n"
    "                \"shapes\": [ { \"box\": [200, 1], \"friction\": 0.6 } ] },\n"
    "              { \"name\": \"ball\", \"type\": \"dynamic\", \"position\": [0, 4], \"velocity\": [1, 0],\n"
    "                \"angular_velocity\": 0, \"bullet\": false,\n"
    "                \"shapes\": [ { \"circle\": 0.5, \"density\": 1, \"friction\": 0.6, \"restitution\": 0.2 } ] } "
    "],\n"
    "  \"soft_bodies\": [],\n"
    "  \"constraints\": [ { \"type\": \"revolute\", \"bodies\": [\"ground\", \"ball\"], \"anchor\": [0, 6],\n"
    "                     \"params\": { \"motor_speed\": 1, \"max_motor_torque\": 50 } } ] }\n";

START_TEST(test_example_loads) {
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(example_scene, strlen(example_scene), "example.json", &o, &s, &e) == SN_SCENE_OK,
                "%s", e.message);
  ck_assert_int_eq(e.status, SN_SCENE_OK);
  ck_assert_ptr_nonnull(s.world);
  ck_assert(s.owns_registry);
  ck_assert_ptr_nonnull(sn_registry_find_type(s.registry, "revolute"));
  ck_assert_ptr_nonnull(sn_registry_find_type(s.registry, "distance"));
  sn_vec2 g = sn_world_get_gravity(s.world);
  ck_assert(g.x == 0.0f && g.y == -10.0f);
  ck_assert_int_eq(sn_world_get_substeps(s.world), 4);
  ck_assert(sn_world_is_sleeping_enabled(s.world));
  ck_assert_int_eq(sn_world_get_body_count(s.world), 2);

  sn_body_id ground = sn_scene_names_find_body(s.names, "ground");
  sn_body_id ball = sn_scene_names_find_body(s.names, "ball");
  ck_assert(sn_body_is_valid(s.world, ground) && sn_body_is_valid(s.world, ball));
  ck_assert_str_eq(sn_scene_names_get_body(s.names, ball), "ball");
  ck_assert_int_eq(sn_body_get_type(s.world, ground), SN_BODY_STATIC);
  ck_assert_int_eq(sn_body_get_type(s.world, ball), SN_BODY_DYNAMIC);
  sn_vec2 p = sn_body_get_position(s.world, ground);
  ck_assert(p.x == 0.0f && p.y == -1.0f);
  p = sn_body_get_position(s.world, ball);
  ck_assert(p.x == 0.0f && p.y == 4.0f);
  sn_vec2 v = sn_body_get_linear_velocity(s.world, ball);
  ck_assert(v.x == 1.0f && v.y == 0.0f);
  ck_assert(!sn_body_is_bullet(s.world, ball));

  sn_shape_id shape;
  ck_assert_int_eq(sn_body_get_shapes(s.world, ground, &shape, 1), 1);
  sn_polygon box, expect;
  ck_assert_int_eq(sn_shape_get_polygon(s.world, shape, &box), SN_OK);
  sn_make_box(200.0f, 1.0f, &expect);
  ck_assert(same_bits(box.vertices, expect.vertices, sizeof box.vertices));
  ck_assert(sn_shape_get_friction(s.world, shape) == 0.6f);
  ck_assert_int_eq(sn_body_get_shapes(s.world, ball, &shape, 1), 1);
  sn_circle c;
  ck_assert_int_eq(sn_shape_get_circle(s.world, shape, &c), SN_OK);
  ck_assert(c.radius == 0.5f && c.center.x == 0.0f && c.center.y == 0.0f);
  ck_assert(sn_shape_get_density(s.world, shape) == 1.0f);
  ck_assert(sn_shape_get_restitution(s.world, shape) == 0.2f);
  ck_assert_float_eq_tol(sn_body_get_mass(s.world, ball), 3.14159265f * 0.25f, 1e-6f);

  ck_assert_int_eq(sn_world_get_constraint_count(s.world), 1);
  sn_constraint_id k;
  ck_assert_int_eq(sn_world_get_constraints(s.world, &k, 1), 1);
  ck_assert_str_eq(sn_constraint_get_type_name(s.world, k), "revolute");
  sn_body_id jb[2];
  ck_assert_int_eq(sn_constraint_get_bodies(s.world, k, jb), 2);
  ck_assert(same_bits(&jb[0], &ground, sizeof ground) && same_bits(&jb[1], &ball, sizeof ball));
  double x, y;
  ck_assert_int_eq(sn_constraint_get_param(s.world, k, "anchor", &x, &y), SN_OK);
  ck_assert(x == 0.0 && y == 6.0);
  ck_assert_int_eq(sn_constraint_get_param(s.world, k, "motor_speed", &x, &y), SN_OK);
  ck_assert(x == 1.0);
  ck_assert_int_eq(sn_constraint_get_param(s.world, k, "max_motor_torque", &x, &y), SN_OK);
  ck_assert(x == 50.0);
  ck_assert_int_eq(sn_constraint_get_param(s.world, k, "enable_motor", &x, &y), SN_OK);
  ck_assert(x == 0.0);                                           /* the default */
  ck_assert_ptr_null(sn_scene_names_get_constraint(s.names, k)); /* unnamed in the file */

  /* a loaded world steps */
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
  sn_scene_unload(&s);
  ck_assert_ptr_null(s.world);
  ck_assert_ptr_null(s.names);
  sn_scene_unload(&s); /* twice is harmless */
  /* a length that counts the terminating NUL is fine too */
  ck_assert_int_eq(sn_scene_load_string(example_scene, strlen(example_scene) + 1, "nul.json", &o, &s, &e), SN_SCENE_OK);
  sn_scene_unload(&s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Round trip                                                               */

static sn_body_id add_body(sn_world *w, sn_body_type type, sn_vec2 p, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = p;
  bd.angle = angle;
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert(sn_body_is_valid(w, b));
  return b;
}

/// A world with every shape kind, body flag and two kinds of constraint.
static sn_world *build_rich_world(const sn_registry *reg, sn_scene_names *names) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.5f, -9.81f};
  wd.substeps = 6;
  wd.position_iterations = 3;
  wd.soft_iterations = 2;
  wd.enable_sleep = false;
  wd.contact_hertz = 50.0f;
  wd.contact_damping_ratio = 7.0f;
  wd.contact_push_max_velocity = 2.5f;
  wd.contact_reuse_distance = 0.002f;
  wd.restitution_threshold = 0.75f;
  wd.maximum_linear_speed = 250.0f;
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_world_set_hit_event_threshold(w, 0.5f);
  sn_shape_def sd = sn_default_shape_def();

  sn_body_id ground = add_body(w, SN_BODY_STATIC, (sn_vec2){0.0f, -1.0f}, 0.0f);
  sn_polygon poly;
  sn_make_box(40.0f, 1.0f, &poly);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &poly)));
  sn_segment seg = {{-10.0f, 2.0f}, {-8.0f, 3.1f}};
  ck_assert(sn_shape_is_valid(w, sn_create_segment_shape(w, ground, &sd, &seg)));
  sn_scene_names_set_body(names, ground, "ground");

  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){-3.0f, 3.0f};
  bd.angle = 0.3f;
  bd.linear_velocity = (sn_vec2){1.0f, 0.5f};
  bd.angular_velocity = 2.0f;
  sn_body_id disc = sn_create_body(w, &bd);
  sn_shape_def dd = sn_default_shape_def();
  dd.density = 2.0f;
  dd.friction = 0.3f;
  dd.restitution = 0.5f;
  sn_circle circle = {{0.1f, 0.0f}, 0.4f};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, disc, &dd, &circle)));
  sn_scene_names_set_body(names, disc, "disc");

  bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 3.0f};
  bd.angle = -1.2f;
  bd.linear_damping = 0.1f;
  bd.angular_damping = 0.2f;
  bd.gravity_scale = 0.8f;
  sn_body_id plank = sn_create_body(w, &bd);
  ck_assert_int_eq(sn_make_offset_box(0.5f, 0.25f, (sn_vec2){0.1f, -0.2f}, 0.7f, &poly), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, plank, &sd, &poly)));
  sn_scene_names_set_body(names, plank, "plank \"quoted\" \\ name");

  bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){2.0f, 3.0f};
  bd.is_bullet = true;
  bd.enable_sleep = false;
  sn_body_id rounded = sn_create_body(w, &bd);
  sn_shape_def fd = sn_default_shape_def();
  fd.category_bits = 0x2;
  fd.mask_bits = 0xfffffffffffffffdull;
  fd.enable_contact_events = false;
  fd.enable_hit_events = true;
  fd.group_index = -5;
  fd.enable_custom_filtering = true;
  fd.enable_pre_solve_events = true;
  fd.enable_sensor_events = false;
  ck_assert_int_eq(sn_make_rounded_box(0.3f, 0.3f, 0.05f, &poly), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, rounded, &fd, &poly)));
  sn_shape_def zd = sn_default_shape_def(); /* a massless sensor riding on the same body */
  zd.is_sensor = true;
  zd.density = 0.0f;
  sn_circle zone = {{0.0f, 0.5f}, 0.75f};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, rounded, &zd, &zone)));
  sn_scene_names_set_body(names, rounded, "r\xc3\xa9sum\xc3\xa9"); /* UTF-8 */

  bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){4.0f, 3.0f};
  bd.fixed_rotation = true;
  sn_body_id hull = sn_create_body(w, &bd);
  sn_vec2 pts[6] = {{0.4f, 0.0f}, {0.1f, 0.37f}, {-0.33f, 0.21f}, {-0.35f, -0.2f}, {0.05f, -0.41f}, {0.0f, 0.0f}};
  ck_assert_int_eq(sn_compute_hull(pts, 6, 0.0f, &poly), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, hull, &sd, &poly)));
  sn_scene_names_set_body(names, hull, "hull");

  sn_body_id pill = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){-5.0f, 4.0f}, 2.5f);
  sn_capsule cap = {{-0.5f, 0.0f}, {0.5f, 0.1f}, 0.2f};
  ck_assert(sn_shape_is_valid(w, sn_create_capsule_shape(w, pill, &sd, &cap)));
  sn_circle second = {{0.0f, 0.3f}, 0.1f};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, pill, &sd, &second)));
  sn_scene_names_set_body(names, pill, "pill");

  bd = sn_default_body_def();
  bd.type = SN_BODY_KINEMATIC;
  bd.position = (sn_vec2){0.0f, 8.0f};
  bd.linear_velocity = (sn_vec2){0.5f, 0.0f};
  bd.angular_velocity = 0.3f;
  sn_body_id mover = sn_create_body(w, &bd);
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, mover, &sd, &circle)));
  sn_scene_names_set_body(names, mover, "mover");

  /* unnamed: gets a generated name that must not clash with "body7" below */
  sn_body_id anon = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){6.0f, 2.0f}, 0.0f);
  sn_make_box(0.5f, 0.5f, &poly);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, anon, &sd, &poly)));
  sn_body_id decoy = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){8.0f, 2.0f}, 0.0f);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, decoy, &sd, &poly)));
  sn_scene_names_set_body(names, decoy, "body7");

  sn_param_value rv[6] = {{"anchor", 0.0, 3.5},       {"enable_motor", 1.0, 0.0},
                          {"motor_speed", 1.5, 0.0},  {"max_motor_torque", 20.0, 0.0},
                          {"enable_limit", 1.0, 0.0}, {"upper_angle", 0.7, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "revolute";
  cd.bodies[0] = ground;
  cd.bodies[1] = plank;
  cd.params = rv;
  cd.param_count = 6;
  cd.break_force = 1000.0f;
  sn_constraint_id hinge = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, hinge), "%s", sn_world_last_error(w));
  sn_scene_names_set_constraint(names, hinge, "hinge");
  sn_param_value dv[5] = {{"anchor_a", -2.9, 3.0},
                          {"anchor_b", -5.0, 4.0},
                          {"enable_spring", 1.0, 0.0},
                          {"hertz", 3.0, 0.0},
                          {"damping_ratio", 0.4, 0.0}};
  cd = sn_default_constraint_def();
  cd.type = "distance";
  cd.bodies[0] = disc;
  cd.bodies[1] = pill;
  cd.params = dv;
  cd.param_count = 5;
  cd.collide_connected = true;
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)), "%s", sn_world_last_error(w));
  return w;
}

/// Every body's pose, velocities, flags, mass and shapes are the same bits in both worlds.
static void assert_same_world(sn_world *a, sn_world *b, const char *when) {
  int32_t n = sn_world_get_body_count(a);
  ck_assert_int_eq(n, sn_world_get_body_count(b));
  sn_body_id *ba = malloc((size_t)n * sizeof *ba), *bb = malloc((size_t)n * sizeof *bb);
  ck_assert_int_eq(sn_world_get_bodies(a, ba, n), n);
  ck_assert_int_eq(sn_world_get_bodies(b, bb, n), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_transform xa = sn_body_get_transform(a, ba[i]), xb = sn_body_get_transform(b, bb[i]);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa), "%s: body %d pose (%.9g, %.9g) vs (%.9g, %.9g)", when, (int)i,
                  (double)xa.p.x, (double)xa.p.y, (double)xb.p.x, (double)xb.p.y);
    sn_vec2 va = sn_body_get_linear_velocity(a, ba[i]), vb = sn_body_get_linear_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&va, &vb, sizeof va), "%s: body %d velocity", when, (int)i);
    float wa = sn_body_get_angular_velocity(a, ba[i]), wb = sn_body_get_angular_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&wa, &wb, sizeof wa), "%s: body %d angular velocity", when, (int)i);
    sn_body_def da, db;
    sn_body_get_def(a, ba[i], &da);
    sn_body_get_def(b, bb[i], &db);
    da.user_data = db.user_data = NULL;
    ck_assert_msg(same_bits(&da, &db, sizeof da), "%s: body %d def", when, (int)i);
    sn_mass_data ma = sn_body_get_mass_data(a, ba[i]), mb = sn_body_get_mass_data(b, bb[i]);
    ck_assert_msg(same_bits(&ma, &mb, sizeof ma), "%s: body %d mass", when, (int)i);
    sn_shape_id sa[8], sb[8];
    int32_t k = sn_body_get_shapes(a, ba[i], sa, 8);
    ck_assert_int_eq(k, sn_body_get_shapes(b, bb[i], sb, 8));
    for (int32_t j = 0; j < k; ++j) {
      sn_shape_type t = sn_shape_get_type(a, sa[j]);
      ck_assert_int_eq(t, sn_shape_get_type(b, sb[j]));
      sn_shape_def fa, fb;
      sn_shape_get_def(a, sa[j], &fa);
      sn_shape_get_def(b, sb[j], &fb);
      ck_assert_msg(same_bits(&fa, &fb, sizeof fa), "%s: body %d shape %d def", when, (int)i, (int)j);
      if (t == SN_SHAPE_POLYGON) {
        sn_polygon pa, pb;
        sn_shape_get_polygon(a, sa[j], &pa);
        sn_shape_get_polygon(b, sb[j], &pb);
        ck_assert_msg(same_bits(&pa, &pb, sizeof pa), "%s: body %d polygon %d", when, (int)i, (int)j);
      } else if (t == SN_SHAPE_CIRCLE) {
        sn_circle pa, pb;
        sn_shape_get_circle(a, sa[j], &pa);
        sn_shape_get_circle(b, sb[j], &pb);
        ck_assert(same_bits(&pa, &pb, sizeof pa));
      } else if (t == SN_SHAPE_CAPSULE) {
        sn_capsule pa, pb;
        sn_shape_get_capsule(a, sa[j], &pa);
        sn_shape_get_capsule(b, sb[j], &pb);
        ck_assert(same_bits(&pa, &pb, sizeof pa));
      } else if (t == SN_SHAPE_SEGMENT) {
        sn_segment pa, pb;
        sn_shape_get_segment(a, sa[j], &pa);
        sn_shape_get_segment(b, sb[j], &pb);
        ck_assert(same_bits(&pa, &pb, sizeof pa));
      }
    }
  }
  free(ba);
  free(bb);
}

static char *save_or_fail(sn_world *w, const sn_scene_names *names) {
  sn_scene_error e;
  char *text = sn_scene_save_string(w, names, &e);
  ck_assert_msg(text != NULL, "save: %s", e.message);
  ck_assert_int_eq(e.status, SN_SCENE_OK);
  return text;
}

static void load_or_fail(const char *text, const char *name, sn_loaded_scene *out) {
  sn_scene_load_options o = test_options();
  sn_scene_error e;
  sn_scene_status st = sn_scene_load_string(text, strlen(text), name, &o, out, &e);
  if (st != SN_SCENE_OK) fprintf(stderr, "%s\n", text);
  ck_assert_msg(st == SN_SCENE_OK, "load: %s", e.message);
}

START_TEST(test_round_trip_bit_identical) {
  sn_registry *reg = sn_create_registry(NULL);
  static const char *const plugins[] = {"revolute", "distance"};
  char msg[512];
  ck_assert_msg(sn_shipped_add(reg, SN_PLUGIN_DIR, plugins, 2, msg, sizeof msg) == SN_OK, "%s", msg);
  sn_scene_names *names = sn_create_scene_names();
  sn_world *original = build_rich_world(reg, names);

  char *text1 = save_or_fail(original, names);
  sn_loaded_scene s;
  load_or_fail(text1, "saved.json", &s);
  char *text2 = save_or_fail(s.world, s.names);
  if (strcmp(text1, text2) != 0) fprintf(stderr, "%s\n---\n%s\n", text1, text2);
  ck_assert_msg(strcmp(text1, text2) == 0, "save -> load -> save changed the text");
  /* what the text says */
  ck_assert_ptr_nonnull(strstr(text1, "\"plugins\": [\"revolute\", \"distance\"]"));
  ck_assert_ptr_nonnull(strstr(text1, "\"name\": \"plank \\\"quoted\\\" \\\\ name\""));
  ck_assert_ptr_nonnull(strstr(text1, "\"name\": \"body7_2\"")); /* generated, avoiding the given "body7" */
  ck_assert_ptr_nonnull(strstr(text1, "\"name\": \"hinge\""));
  ck_assert_ptr_nonnull(strstr(text1,
                               "\"mask_bits\": \"0xfffffffffffffffd\", \"group_index\": -5, "
                               "\"sensor_events\": false, \"custom_filtering\": true, \"pre_solve_events\": true"));
  ck_assert_ptr_nonnull(strstr(text1, "\"density\": 0, \"sensor\": true}"));
  ck_assert_ptr_nonnull(strstr(text1, "\"break_force\": 1000"));
  ck_assert_ptr_nonnull(strstr(text1, "\"collide_connected\": true"));
  ck_assert_ptr_nonnull(strstr(text1, "\"box\": [0.5, 0.25], \"offset\": [0.1, -0.2], \"angle\": 0.7"));
  ck_assert_ptr_nonnull(strstr(text1, "\"box\": [0.3, 0.3], \"radius\": 0.05"));
  ck_assert_ptr_nonnull(strstr(text1, "\"polygon\": ["));
  ck_assert_ptr_nonnull(strstr(text1, "\"capsule\": [[-0.5, 0], [0.5, 0.1], 0.2]"));
  ck_assert_ptr_nonnull(strstr(text1, "\"segment\": [[-10, 2], [-8, 3.1]]"));
  ck_assert_ptr_null(strstr(text1, "e+")); /* no exponents for ordinary numbers */

  /* the loaded world is the original, bit for bit, and stays so */
  assert_same_world(original, s.world, "after load");
  /* the same constraints: each is defined as the original (exported params
   * bit for bit: pinned local anchors and reference angle), and its user
   * settings are the original's */
  ck_assert_int_eq(assert_same_definitions(original, s.world, "after load"), 2);
  sn_constraint_id ka[2], kb[2];
  ck_assert_int_eq(sn_world_get_constraints(original, ka, 2), 2);
  ck_assert_int_eq(sn_world_get_constraints(s.world, kb, 2), 2);
  for (int i = 0; i < 2; ++i) {
    const sn_constraint_type *t = sn_constraint_get_type(original, ka[i]);
    for (uint32_t j = 0; j < t->param_count; ++j) {
      if (strcmp(t->params[j].name, "pinned") == 0 || strncmp(t->params[j].name, "local_", 6) == 0 ||
          strcmp(t->params[j].name, "reference_angle") == 0 || strcmp(t->params[j].name, "creation_length") == 0)
        continue; /* the pinning parameters: the original derived them at creation */
      double x1, y1, x2, y2;
      sn_constraint_get_param(original, ka[i], t->params[j].name, &x1, &y1);
      sn_constraint_get_param(s.world, kb[i], t->params[j].name, &x2, &y2);
      ck_assert_msg(x1 == x2 && y1 == y2, "%s.%s", t->name, t->params[j].name);
    }
  }
  for (int step = 1; step <= 120; ++step) {
    ck_assert_int_eq(sn_world_step(original, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    if (step % 20 == 0) {
      char when[32];
      snprintf(when, sizeof when, "step %d", step);
      assert_same_world(original, s.world, when);
    }
  }
  ck_assert_int_eq(sn_world_get_counters(original).touching_contact_count,
                   sn_world_get_counters(s.world).touching_contact_count);

  /* a world saved after stepping: poses (rotations the solver integrated
   * too) and velocities come back exactly, and the text is a fixed point of
   * save -> load -> save */
  char *text3 = save_or_fail(original, names);
  sn_loaded_scene s3;
  load_or_fail(text3, "stepped.json", &s3);
  char *text4 = save_or_fail(s3.world, s3.names);
  ck_assert_msg(strcmp(text3, text4) == 0, "stepped world: save -> load -> save changed the text");
  sn_body_id b1[16], b3[16];
  int32_t n = sn_world_get_bodies(original, b1, 16);
  ck_assert_int_eq(sn_world_get_bodies(s3.world, b3, 16), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 p1 = sn_body_get_position(original, b1[i]), p3 = sn_body_get_position(s3.world, b3[i]);
    ck_assert(same_bits(&p1, &p3, sizeof p1));
    sn_vec2 v1 = sn_body_get_linear_velocity(original, b1[i]), v3 = sn_body_get_linear_velocity(s3.world, b3[i]);
    ck_assert(same_bits(&v1, &v3, sizeof v1));
    sn_transform x1 = sn_body_get_transform(original, b1[i]), x3 = sn_body_get_transform(s3.world, b3[i]);
    ck_assert(same_bits(&x1, &x3, sizeof x1));
  }

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
/* Chains                                                                    */

static sn_chain_id add_chain(sn_world *w, sn_body_id body, const sn_vec2 *pts, int32_t n, bool loop) {
  sn_chain_def d = sn_default_chain_def();
  d.points = pts;
  d.count = n;
  d.is_loop = loop;
  sn_chain_id c = sn_create_chain(w, body, &d);
  ck_assert(sn_chain_is_valid(w, c));
  return c;
}

/* Every body's shapes in both worlds: the same types in the same order, and
 * each chain (found from its first segment) with the same def and points. */
static void assert_same_chains(sn_world *a, sn_world *b, int32_t expected_chains) {
  int32_t n = sn_world_get_body_count(a), chains = 0;
  ck_assert_int_eq(n, sn_world_get_body_count(b));
  sn_body_id ba[16], bb[16];
  ck_assert_int_le(n, 16);
  sn_world_get_bodies(a, ba, 16);
  sn_world_get_bodies(b, bb, 16);
  for (int32_t i = 0; i < n; ++i) {
    sn_shape_id sa[64], sb[64];
    int32_t k = sn_body_get_shapes(a, ba[i], sa, 64);
    ck_assert_int_eq(k, sn_body_get_shapes(b, bb[i], sb, 64));
    sn_chain_id last = SN_NULL_CHAIN;
    for (int32_t j = 0; j < k; ++j) {
      ck_assert_int_eq(sn_shape_get_type(a, sa[j]), sn_shape_get_type(b, sb[j]));
      sn_chain_id ca = sn_shape_get_parent_chain(a, sa[j]), cb = sn_shape_get_parent_chain(b, sb[j]);
      ck_assert_int_eq(ca.index1 != 0, cb.index1 != 0);
      if (ca.index1 == 0 || ca.index1 == last.index1) continue;
      last = ca;
      chains++;
      sn_chain_def da, db;
      ck_assert_int_eq(sn_chain_get_def(a, ca, &da), SN_OK);
      ck_assert_int_eq(sn_chain_get_def(b, cb, &db), SN_OK);
      da.user_data = db.user_data = NULL;
      ck_assert_msg(same_bits(&da, &db, sizeof da), "body %d shape %d: chain def", (int)i, (int)j);
      sn_vec2 pa[64], pb[64];
      int32_t m = sn_chain_get_points(a, ca, pa, 64);
      ck_assert_int_eq(m, sn_chain_get_points(b, cb, pb, 64));
      ck_assert_msg(same_bits(pa, pb, (size_t)m * sizeof *pa), "body %d shape %d: chain points", (int)i, (int)j);
    }
  }
  ck_assert_int_eq(chains, expected_chains);
}

/* Chains in scene files: a world with an open chain with every field of its
 * def set (between a box and a segment on the ground), a loop on a spinning
 * kinematic body, a loop between two circles of a dynamic body, and boxes
 * (with their own sleep thresholds) falling on them. Saved, loaded and saved
 * again it gives the same text; the loaded world has the same shapes in the
 * same order and the same chains, and steps bit for bit like the original
 * (120 steps, every body's pose and velocity compared every 20). */
START_TEST(test_chains_round_trip) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_shape_def sd = sn_default_shape_def();
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(1.0f, 0.5f, (sn_vec2){-14.0f, 4.0f}, 0.0f, &box), SN_OK);
  ck_assert(sn_create_polygon_shape(w, ground, &sd, &box).index1 != 0);
  const sn_vec2 valley[7] = {{-14, 6}, {-12, 5}, {-6, 0.5f}, {0, 0}, {6, 0.5f}, {12, 5}, {14, 6}};
  sn_chain_def vd = sn_default_chain_def();
  vd.points = valley;
  vd.count = 7;
  vd.friction = 0.3f;
  vd.restitution = 0.1f;
  vd.rolling_resistance = 0.02f;
  vd.tangent_speed = 0.5f;
  vd.material = 7;
  vd.category_bits = 0x2;
  vd.mask_bits = 0xff;
  vd.group_index = -3;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &vd)));
  sn_segment seg = {{12, 8}, {14, 9}};
  ck_assert(sn_create_segment_shape(w, ground, &sd, &seg).index1 != 0);
  /* a spinning kinematic island */
  sn_body_def kd = sn_default_body_def();
  kd.type = SN_BODY_KINEMATIC;
  kd.position = (sn_vec2){3.0f, 3.0f};
  kd.angular_velocity = 0.4f;
  sn_body_id spinner = sn_create_body(w, &kd);
  const sn_vec2 square[4] = {{-1, -0.5f}, {1, -0.5f}, {1, 0.5f}, {-1, 0.5f}};
  add_chain(w, spinner, square, 4, true);
  /* a dynamic body: circle, loop, circle */
  sn_body_def dd = sn_default_body_def();
  dd.type = SN_BODY_DYNAMIC;
  dd.position = (sn_vec2){-4.0f, 6.0f};
  dd.sleep_threshold = 0.1f;
  sn_body_id wheel = sn_create_body(w, &dd);
  sn_circle c1 = {{-0.3f, 0.0f}, 0.3f}, c2 = {{0.3f, 0.0f}, 0.25f};
  ck_assert(sn_create_circle_shape(w, wheel, &sd, &c1).index1 != 0);
  const sn_vec2 tri[3] = {{-0.6f, -0.4f}, {0.6f, -0.4f}, {0.0f, 0.6f}};
  add_chain(w, wheel, tri, 3, true);
  ck_assert(sn_create_circle_shape(w, wheel, &sd, &c2).index1 != 0);
  /* boxes: thresholds 0.05 (default), 0.1 and 0 */
  const float thresholds[3] = {0.05f, 0.1f, 0.0f};
  sn_polygon small;
  ck_assert_int_eq(sn_make_box(0.3f, 0.3f, &small), SN_OK);
  for (int i = 0; i < 6; ++i) {
    dd.position = (sn_vec2){-3.0f + 1.3f * (float)i, 8.0f + 0.5f * (float)i};
    dd.sleep_threshold = thresholds[i % 3];
    sn_body_id b = sn_create_body(w, &dd);
    ck_assert(sn_create_polygon_shape(w, b, &sd, &small).index1 != 0);
  }

  char *text1 = save_or_fail(w, NULL);
  sn_loaded_scene s;
  load_or_fail(text1, "chains.json", &s);
  char *text2 = save_or_fail(s.world, s.names);
  if (strcmp(text1, text2) != 0) fprintf(stderr, "%s\n---\n%s\n", text1, text2);
  ck_assert_msg(strcmp(text1, text2) == 0, "save -> load -> save changed the text");
  ck_assert_ptr_nonnull(strstr(text1, "\"chain\": [[-14, 6], [-12, 5], [-6, 0.5], [0, 0], [6, 0.5], [12, 5], [14, 6]], "
                                      "\"friction\": 0.3, \"restitution\": 0.1, \"rolling_resistance\": 0.02, "
                                      "\"tangent_speed\": 0.5, \"material\": 7, \"category_bits\": \"0x2\", "
                                      "\"mask_bits\": \"0xff\", \"group_index\": -3}, {\"segment\""));
  ck_assert_ptr_nonnull(strstr(text1, "\"chain\": [[-1, -0.5], [1, -0.5], [1, 0.5], [-1, 0.5]], \"loop\": true}"));
  ck_assert_ptr_nonnull(strstr(text1, "{\"circle\": 0.3, \"offset\": [-0.3, 0]}, {\"chain\": [[-0.6, -0.4], [0.6, "
                                      "-0.4], [0, 0.6]], \"loop\": true}, {\"circle\": 0.25"));
  ck_assert_ptr_nonnull(strstr(text1, "\"sleep_threshold\": 0.1"));
  ck_assert_ptr_nonnull(strstr(text1, "\"sleep_threshold\": 0,"));
  assert_same_chains(w, s.world, 3);
  assert_same_world(w, s.world, "after load");
  int touching = 0;
  for (int step = 1; step <= 120; ++step) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    touching += sn_world_get_counters(w).touching_contact_count;
    if (step % 20 == 0) {
      char when[32];
      snprintf(when, sizeof when, "step %d", step);
      assert_same_world(w, s.world, when);
    }
  }
  ck_assert_int_gt(touching, 0); /* the boxes met the chains */
  /* stepped: still a fixed point, the chains unchanged */
  char *text3 = save_or_fail(w, NULL);
  sn_loaded_scene s3;
  load_or_fail(text3, "chains-stepped.json", &s3);
  char *text4 = save_or_fail(s3.world, s3.names);
  ck_assert_msg(strcmp(text3, text4) == 0, "stepped: save -> load -> save changed the text");
  assert_same_chains(w, s3.world, 3);
  sn_scene_free_text(text1);
  sn_scene_free_text(text2);
  sn_scene_free_text(text3);
  sn_scene_free_text(text4);
  sn_scene_unload(&s);
  sn_scene_unload(&s3);
  sn_destroy_world(w);
}
END_TEST

/* A chain's segments count against the world's max_shapes before anything
 * is built: 12 points of a loop are 12 shapes, 12 of an open chain 9. */
START_TEST(test_chain_shape_limit) {
  const char *loop = "{\"sinew_scene\": 1, \"bodies\": [{\"type\": \"static\", \"shapes\": [{\"circle\": 1}, "
                     "{\"chain\": [[0,0],[1,0],[2,0],[3,0],[4,0],[5,0],[6,1],[5,2],[4,2],[3,2],[2,2],[1,2]], "
                     "\"loop\": true}]}]}";
  sn_world_def limits = sn_default_world_def();
  limits.max_shapes = 12;
  sn_scene_load_options o = test_options();
  o.limits = &limits;
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_int_eq(sn_scene_load_string(loop, strlen(loop), "limit.json", &o, &s, &e), SN_SCENE_ERR_ENGINE);
  ck_assert_int_eq(e.engine_result, SN_ERR_CAPACITY);
  ck_assert_msg(strstr(e.message, "bodies: 13 shapes; expected at most 12, the world's max_shapes limit") != NULL, "%s",
                e.message);
  ck_assert_ptr_null(s.world);
  limits.max_shapes = 13;
  ck_assert_msg(sn_scene_load_string(loop, strlen(loop), "limit.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(sn_world_get_counters(s.world).shape_count, 13);
  sn_scene_unload(&s);
  /* the same points as an open chain: 9 segments */
  const char *open = "{\"sinew_scene\": 1, \"bodies\": [{\"type\": \"static\", \"shapes\": [{\"circle\": 1}, "
                     "{\"chain\": [[0,0],[1,0],[2,0],[3,0],[4,0],[5,0],[6,1],[5,2],[4,2],[3,2],[2,2],[1,2]]}]}]}";
  limits.max_shapes = 10;
  ck_assert_msg(sn_scene_load_string(open, strlen(open), "limit.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(sn_world_get_counters(s.world).shape_count, 10);
  sn_scene_unload(&s);
  limits.max_shapes = 9;
  ck_assert_int_eq(sn_scene_load_string(open, strlen(open), "limit.json", &o, &s, &e), SN_SCENE_ERR_ENGINE);
  ck_assert_int_eq(e.engine_result, SN_ERR_CAPACITY);
}
END_TEST

/* Number of names in dir (not . and ..). */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

START_TEST(test_file_round_trip_and_errors) {
  char dir[] = "/tmp/sinew_scene_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/saved.json", dir);
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_int_eq(sn_scene_load_string(example_scene, strlen(example_scene), "example.json", &o, &s, &e), SN_SCENE_OK);
  ck_assert_msg(sn_scene_save_file(path, s.world, s.names, &e) == SN_SCENE_OK, "%s", e.message);
  sn_loaded_scene t;
  ck_assert_msg(sn_scene_load_file(path, &o, &t, &e) == SN_SCENE_OK, "%s", e.message);
  char *a = save_or_fail(s.world, s.names), *b = save_or_fail(t.world, t.names);
  ck_assert_str_eq(a, b);
  assert_same_world(s.world, t.world, "file");
  sn_scene_free_text(a);
  sn_scene_free_text(b);
  /* saving over an existing file replaces it and leaves no temporary file */
  ck_assert_int_eq(sn_scene_save_file(path, t.world, t.names, &e), SN_SCENE_OK);
  ck_assert_int_eq(entries(dir), 1);
  sn_scene_unload(&t);
  /* I/O errors name the file */
  char missing[300];
  snprintf(missing, sizeof missing, "%s/missing.json", dir);
  ck_assert_int_eq(sn_scene_load_file(missing, &o, &t, &e), SN_SCENE_ERR_IO);
  ck_assert_ptr_nonnull(strstr(e.message, missing));
  ck_assert_ptr_null(t.world);
  char nodir[300];
  snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.json", dir);
  ck_assert_int_eq(sn_scene_save_file(nodir, s.world, s.names, &e), SN_SCENE_ERR_IO);
  ck_assert_ptr_nonnull(strstr(e.message, nodir));
  /* a syntax error in a file names the file */
  FILE *f = fopen(path, "w");
  fputs("{\"sinew_scene\": 1,\n \"bodies\": [}\n", f);
  fclose(f);
  ck_assert_int_eq(sn_scene_load_file(path, &o, &t, &e), SN_SCENE_ERR_SYNTAX);
  char where[300];
  snprintf(where, sizeof where, "%s:2:13: ", path);
  ck_assert_msg(strncmp(e.message, where, strlen(where)) == 0, "%s", e.message);
  ck_assert_int_eq(e.line, 2);
  ck_assert_int_eq(e.column, 13);
  remove(path);
  rmdir(dir);
  sn_scene_unload(&s);
  sn_scene_unload(&t);
}
END_TEST

/* The file edges: loading a FIFO is refused at once; saving keeps the old
 * file's permission bits, writes through a symbolic link, is not stopped by
 * a file at the name the writer once used for its temporary file, and
 * leaves no temporary file when the write fails. */
START_TEST(test_file_edges) {
  char dir[] = "/tmp/sinew_scene_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/saved.json", dir);
  sn_scene_load_options o = test_options();
  sn_loaded_scene s, t;
  sn_scene_error e;
  ck_assert_int_eq(sn_scene_load_string(example_scene, strlen(example_scene), "example.json", &o, &s, &e), SN_SCENE_OK);

  /* a FIFO */
  char fifo[300];
  snprintf(fifo, sizeof fifo, "%s/pipe.json", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  alarm(20);
  ck_assert_int_eq(sn_scene_load_file(fifo, &o, &t, &e), SN_SCENE_ERR_IO);
  alarm(0);
  ck_assert_ptr_null(t.world);
  ck_assert_msg(strstr(e.message, fifo) != NULL && strstr(e.message, "not a regular file (a FIFO)") != NULL, "%s",
                e.message);
  ck_assert_int_eq(unlink(fifo), 0);

  /* a file already at "<path>.<pid>.tmp", a name a writer might pick for its temporary file: the save
   * succeeds and leaves it alone */
  char taken[300];
  snprintf(taken, sizeof taken, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(taken, "wb");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  mode_t old_mask = umask(022);
  ck_assert_msg(sn_scene_save_file(path, s.world, s.names, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(entries(dir), 2);
  ck_assert_int_eq(unlink(taken), 0);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644); /* a new file: 0666 less the umask */

  /* a private file stays private */
  ck_assert_int_eq(chmod(path, 0600), 0);
  ck_assert_msg(sn_scene_save_file(path, s.world, s.names, &e) == SN_SCENE_OK, "%s", e.message);
  umask(old_mask);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0600);

  /* through a symbolic link: the linked file is replaced, the link kept */
  char link[300];
  snprintf(link, sizeof link, "%s/current.json", dir);
  ck_assert_int_eq(symlink("saved.json", link), 0);
  ck_assert_int_eq(truncate(path, 0), 0);
  ck_assert_msg(sn_scene_save_file(link, s.world, s.names, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_msg(sn_scene_load_file(path, &o, &t, &e) == SN_SCENE_OK, "%s", e.message);
  sn_scene_unload(&t);
  ck_assert_int_eq(entries(dir), 2);
  ck_assert_int_eq(unlink(link), 0);
  /* a link to nothing is refused and creates nothing */
  ck_assert_int_eq(symlink("nowhere.json", link), 0);
  ck_assert_int_eq(sn_scene_save_file(link, s.world, s.names, &e), SN_SCENE_ERR_IO);
  ck_assert_msg(strstr(e.message, "symbolic link") != NULL, "%s", e.message);
  ck_assert_int_eq(entries(dir), 2);
  ck_assert_int_eq(unlink(link), 0);

  /* a write that fails for real (files limited to 64 bytes): old file kept,
   * no temporary file */
  ck_assert_int_eq(stat(path, &st), 0);
  off_t before = st.st_size;
  struct rlimit saved;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = {64, saved.rlim_max};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
  sn_scene_status written = sn_scene_save_file(path, s.world, s.names, &e);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
  signal(SIGXFSZ, old_handler);
  ck_assert_int_eq(written, SN_SCENE_ERR_IO);
  ck_assert_msg(strstr(e.message, path) != NULL && strstr(e.message, "File too large") != NULL, "%s", e.message);
  ck_assert_int_eq(entries(dir), 1);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_size, before);

  remove(path);
  rmdir(dir);
  sn_scene_unload(&s);
}
END_TEST

START_TEST(test_bench_chain_round_trip) {
  /* the bench's revolute chain, built by code, saved and loaded back */
  sn_scene chain;
  ck_assert(sn_scene_build(&chain, "chain", 20, 0, false));
  char *text = save_or_fail(chain.world, NULL);
  sn_loaded_scene s;
  load_or_fail(text, "chain.json", &s);
  ck_assert_int_eq(sn_world_get_constraint_count(s.world), 20);
  assert_same_world(chain.world, s.world, "chain load");
  for (int i = 0; i < 120; ++i) {
    sn_world_step(chain.world, DT);
    sn_world_step(s.world, DT);
  }
  assert_same_world(chain.world, s.world, "chain after 120 steps");
  sn_scene_free_text(text);
  sn_scene_unload(&s);
  sn_scene_destroy(&chain);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Example files                                                             */

START_TEST(test_pyramid10_file) {
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_file(SN_SCENES_DIR "/pyramid10.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(sn_world_get_body_count(s.world), 56);
  /* the file is its own canonical save */
  char *file = sn_test_read_text(SN_SCENES_DIR "/pyramid10.json");
  char *saved = save_or_fail(s.world, s.names);
  if (strcmp(file, saved) != 0) fprintf(stderr, "%s\n", saved);
  ck_assert_msg(strcmp(file, saved) == 0, "pyramid10.json is not canonical");
  /* and the same world as the bench's pyramid 10 (same settings), step for step */
  sn_scene bench;
  ck_assert(sn_scene_build(&bench, "pyramid", 10, 8, false));
  assert_same_world(bench.world, s.world, "pyramid load");
  for (int i = 0; i < 120; ++i) {
    sn_world_step(bench.world, DT);
    sn_world_step(s.world, DT);
  }
  assert_same_world(bench.world, s.world, "pyramid after 120 steps");
  sn_body_id top = sn_scene_names_find_body(s.names, "box9_0");
  ck_assert(sn_body_is_valid(s.world, top));
  ck_assert_float_eq_tol(sn_body_get_position(s.world, top).y, 9.5f, 0.05f);
  sn_scene_destroy(&bench);
  free(file);
  sn_scene_free_text(saved);
  sn_scene_unload(&s);
}
END_TEST

START_TEST(test_pendulum_file) {
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_file(SN_SCENES_DIR "/pendulum.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_int_eq(sn_world_get_body_count(s.world), 6);
  ck_assert_int_eq(sn_world_get_constraint_count(s.world), 2);
  sn_constraint_id hinge = sn_scene_names_find_constraint(s.names, "hinge");
  sn_constraint_id spring = sn_scene_names_find_constraint(s.names, "spring");
  ck_assert_str_eq(sn_constraint_get_type_name(s.world, hinge), "revolute");
  ck_assert_str_eq(sn_constraint_get_type_name(s.world, spring), "distance");
  double x, y;
  sn_constraint_get_param(s.world, hinge, "enable_motor", &x, &y);
  ck_assert(x == 1.0);
  sn_constraint_get_param(s.world, spring, "hertz", &x, &y);
  ck_assert(x == 2.0);
  /* the motor turns the arm at 1 rad/s */
  sn_body_id arm = sn_scene_names_find_body(s.names, "arm");
  for (int i = 0; i < 120; ++i) sn_world_step(s.world, DT);
  ck_assert_float_eq_tol(sn_body_get_angular_velocity(s.world, arm), 1.0f, 0.05f);
  /* saved and loaded again, it is the same world */
  char *text = save_or_fail(s.world, s.names);
  sn_loaded_scene t;
  load_or_fail(text, "pendulum-saved.json", &t);
  char *again = save_or_fail(t.world, t.names);
  ck_assert_str_eq(text, again);
  ck_assert(sn_constraint_is_valid(t.world, sn_scene_names_find_constraint(t.names, "spring")));
  sn_scene_free_text(text);
  sn_scene_free_text(again);
  sn_scene_unload(&t);
  sn_scene_unload(&s);
}
END_TEST

START_TEST(test_docs_example_loads) {
  /* the complete file of docs/scene-format.md (its first json block) */
  char *doc = sn_test_read_text(SN_SCENES_DIR "/../docs/scene-format.md");
  char *start = strstr(doc, "```json\n");
  ck_assert_ptr_nonnull(start);
  start += 8;
  char *end = strstr(start, "```");
  ck_assert_ptr_nonnull(end);
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(start, (size_t)(end - start), "scene-format.md", &o, &s, &e) == SN_SCENE_OK, "%s",
                e.message);
  ck_assert_int_eq(sn_world_get_body_count(s.world), 3);
  ck_assert_int_eq(sn_world_get_soft_body_count(s.world), 2);
  ck_assert(sn_soft_body_is_valid(s.world, sn_scene_names_find_soft_body(s.names, "jelly")));
  /* revolute, distance, attach; the ring's 24 links and area; the rope's 9 links */
  ck_assert_int_eq(sn_world_get_constraint_count(s.world), 3 + 25 + 9);
  sn_body_id plank = sn_scene_names_find_body(s.names, "plank");
  ck_assert_int_eq(sn_body_get_shape_count(s.world, plank), 3);
  /* the ground: box, segment and an open chain of 5 points (2 segments) */
  sn_body_id ground = sn_scene_names_find_body(s.names, "ground");
  ck_assert_int_eq(sn_body_get_shape_count(s.world, ground), 4);
  ck_assert(sn_body_get_sleep_threshold(s.world, sn_scene_names_find_body(s.names, "ball")) == 0.1f);
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
  sn_scene_unload(&s);
  free(doc);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Malformed files: one fixture per class. A backtick marks where the error  */
/* must be reported; it is removed before loading.                           */

#define HEAD "{\"sinew_scene\": 1,\n \"plugins\": [\"revolute\", \"distance\"],\n"
#define BODIES                                                                                                         \
  " \"bodies\": [\n"                                                                                                   \
  "  {\"name\": \"ground\", \"type\": \"static\", \"shapes\": [{\"box\": [20, 1]}]},\n"                                \
  "  {\"name\": \"ball\", \"type\": \"dynamic\", \"position\": [0, 4], \"shapes\": [{\"circle\": 0.5}]}\n"             \
  " ]"
#define BALL_WITH(shape)                                                                                               \
  HEAD " \"bodies\": [\n  {\"name\": \"ball\", \"type\": \"dynamic\", \"shapes\": [" shape "]}\n ]}\n"
#define JOINT(fields) HEAD BODIES ",\n \"constraints\": [\n  {\"type\": \"revolute\", " fields "}\n ]}\n"

static const fixture fixtures[] = {
    /* syntax */
    {"syntax_missing_comma",
     "{\"sinew_scene\": 1,\n \"bodies\": [\n  {\"type\": \"static\" `\"position\": [0, 0]}\n ]}", SN_SCENE_ERR_SYNTAX,
     "expected ',' or '}', found '\"'", SN_OK},
    {"syntax_trailing_comma", "{\"sinew_scene\": 1, \"bodies\": [],\n`}", SN_SCENE_ERR_SYNTAX,
     "expected a key in double quotes, found '}'", SN_OK},
    {"syntax_unterminated_string", "{\"sinew_scene\": 1, \"bodies\": [{\"name\": `\"ball}]}\n", SN_SCENE_ERR_SYNTAX,
     "expected a closing '\"' on the same line (the string is not terminated)", SN_OK},
    {"syntax_control_char", "{\"sinew_scene\": 1, \"description\": \"a`\tb\"}", SN_SCENE_ERR_SYNTAX,
     "no control character inside a string", SN_OK},
    {"syntax_empty", "  `", SN_SCENE_ERR_SYNTAX, "the document is empty", SN_OK},
    {"syntax_nan", "{\"sinew_scene\": 1, \"gravity\": [`NaN, 0]}", SN_SCENE_ERR_SYNTAX, "expected a value", SN_OK},
    {"syntax_leading_zero", "{\"sinew_scene\": 1, \"gravity\": [0`1, 0]}", SN_SCENE_ERR_SYNTAX, "',' or ']'", SN_OK},
    {"syntax_trailing_text", "{\"sinew_scene\": 1}\n`x", SN_SCENE_ERR_SYNTAX, "the end of the document", SN_OK},
    {"syntax_comment", "{\"sinew_scene\": 1, `// no comments\n}", SN_SCENE_ERR_SYNTAX, "a key in double quotes", SN_OK},
    {"syntax_bad_escape", "{\"sinew_scene\": 1, \"description\": \"a `\\q\"}", SN_SCENE_ERR_SYNTAX, "a valid escape",
     SN_OK},
    {"syntax_nul_escape", "{\"sinew_scene\": 1, \"description\": \"a `\\u0000\"}", SN_SCENE_ERR_SYNTAX, "NUL", SN_OK},
    /* document and version */
    {"top_not_object", "`[1, 2]", SN_SCENE_ERR_TYPE, "expected a JSON object at the top level, got an array", SN_OK},
    {"version_missing", "`{\"bodies\": []}", SN_SCENE_ERR_VERSION, "missing required key \"sinew_scene\"", SN_OK},
    {"version_wrong", "{\"sinew_scene\": `2, \"bodies\": []}", SN_SCENE_ERR_VERSION,
     "unsupported scene format version 2; expected 1", SN_OK},
    {"version_string", "{\"sinew_scene\": `\"1\"}", SN_SCENE_ERR_VERSION, "unsupported scene format version", SN_OK},
    /* keys */
    {"unknown_top_key", "{\"sinew_scene\": 1, `\"bodys\": []}", SN_SCENE_ERR_UNKNOWN_KEY,
     "unknown key \"bodys\" in a scene; expected one of: sinew_scene, description", SN_OK},
    {"unknown_shape_key", BALL_WITH("{\"circle\": 0.5, `\"frction\": 0.3}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "bodies[0].shapes[0].frction: unknown key \"frction\" in a shape", SN_OK},
    {"duplicate_key", BALL_WITH("{\"circle\": 0.5, \"density\": 1, `\"density\": 2}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "key \"density\" is given twice (first at 4:66)", SN_OK},
    {"radius_on_circle", BALL_WITH("{\"circle\": 0.5, `\"radius\": 0.1}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "applies to box and polygon shapes only", SN_OK},
    {"missing_body_type", HEAD " \"bodies\": [\n  `{\"name\": \"b\", \"position\": [0, 0]}\n ]}",
     SN_SCENE_ERR_MISSING_KEY,
     "bodies[0]: missing required key \"type\"; expected \"static\", \"kinematic\" or \"dynamic\"", SN_OK},
    {"missing_constraint_bodies", HEAD BODIES ",\n \"constraints\": [`{\"type\": \"revolute\"}]}",
     SN_SCENE_ERR_MISSING_KEY, "missing required key \"bodies\"", SN_OK},
    /* types */
    {"wrong_type_friction", BALL_WITH("{\"circle\": 0.5, \"friction\": `\"high\"}"), SN_SCENE_ERR_TYPE,
     "bodies[0].shapes[0].friction: expected a number >= 0, got the string \"high\"", SN_OK},
    {"wrong_type_position", HEAD " \"bodies\": [{\"type\": \"static\", \"position\": `\"0, 4\"}]}", SN_SCENE_ERR_TYPE,
     "expected [x, y] (an array of 2 numbers), got the string", SN_OK},
    {"wrong_type_bodies", "{\"sinew_scene\": 1, \"bodies\": `{}}", SN_SCENE_ERR_TYPE,
     "bodies: expected an array of body objects, got an object", SN_OK},
    {"wrong_type_bool", "{\"sinew_scene\": 1, \"settings\": {\"sleep\": `1}}", SN_SCENE_ERR_TYPE,
     "settings.sleep: expected true or false, got 1", SN_OK},
    {"gravity_three", "{\"sinew_scene\": 1, \"gravity\": `[0, -10, 0]}", SN_SCENE_ERR_RANGE, "got 3 values", SN_OK},
    {"rotation_not_unit", HEAD " \"bodies\": [{\"type\": \"dynamic\", \"rotation\": `[1, 1]}]}", SN_SCENE_ERR_RANGE,
     "bodies[0].rotation: expected a rotation [cos, sin] of unit length (within 1e-4), got [1, 1]", SN_OK},
    /* ranges and numbers */
    {"huge_number", HEAD " \"bodies\": [{\"type\": \"dynamic\", \"gravity_scale\": `1e999}]}", SN_SCENE_ERR_RANGE,
     "bodies[0].gravity_scale: expected a finite number within float range (|x| <= 3.4e38), got 1e999", SN_OK},
    /* settings that would let a state leave float range */
    {"gravity_too_strong", "{\"sinew_scene\": 1, \"gravity\": [`2e5, 0]}", SN_SCENE_ERR_RANGE,
     "gravity[0]: expected a number in [-100000, 100000], got 2e5", SN_OK},
    {"speed_limit_huge", "{\"sinew_scene\": 1, \"settings\": {\"maximum_linear_speed\": `3e38}}", SN_SCENE_ERR_RANGE,
     "settings.maximum_linear_speed: expected a number in (0, 100000], got 3e38", SN_OK},
    {"hertz_huge", "{\"sinew_scene\": 1, \"settings\": {\"contact_hertz\": `1e7}}", SN_SCENE_ERR_RANGE,
     "settings.contact_hertz: expected a number in [0, 1e+06], got 1e7", SN_OK},
    {"float_overflow", BALL_WITH("{\"circle\": 0.5, \"density\": `1e39}"), SN_SCENE_ERR_RANGE,
     "expected a number >= 0, got 1e39", SN_OK},
    {"negative_radius", BALL_WITH("{\"circle\": `-0.5}"), SN_SCENE_ERR_RANGE, "expected a number > 0, got -0.5", SN_OK},
    {"restitution_above_one", BALL_WITH("{\"circle\": 0.5, \"restitution\": `1.5}"), SN_SCENE_ERR_RANGE,
     "expected a number in [0, 1], got 1.5", SN_OK},
    {"reuse_too_far", "{\"sinew_scene\": 1, \"settings\": {\"contact_reuse_distance\": `0.01}}", SN_SCENE_ERR_RANGE,
     "settings.contact_reuse_distance: expected a number in [0, 0.005], got 0.01", SN_OK},
    {"substeps_fraction", "{\"sinew_scene\": 1, \"settings\": {\"substeps\": `4.5}}", SN_SCENE_ERR_RANGE,
     "expected a whole number in [1, 64], got 4.5", SN_OK},
    {"bad_body_type", HEAD " \"bodies\": [{\"type\": `\"dinamic\"}]}", SN_SCENE_ERR_RANGE,
     "expected \"static\", \"kinematic\" or \"dynamic\", got \"dinamic\"", SN_OK},
    {"empty_name", HEAD " \"bodies\": [{\"name\": `\"\", \"type\": \"static\"}]}", SN_SCENE_ERR_RANGE,
     "expected a name of 1 to 255 bytes", SN_OK},
    {"bad_bits", BALL_WITH("{\"circle\": 0.5, \"mask_bits\": `\"0xZZ\"}"), SN_SCENE_ERR_RANGE,
     "a string \"0x...\" of up to 16 hex digits", SN_OK},
    /* shapes and geometry */
    {"unknown_shape", BALL_WITH("{`\"triangle\": [[0, 0], [1, 0], [0, 1]]}"), SN_SCENE_ERR_UNKNOWN_SHAPE,
     "unknown shape \"triangle\"; expected one of: circle, box, polygon, capsule, segment", SN_OK},
    {"shape_without_geometry", BALL_WITH("`{\"density\": 2}"), SN_SCENE_ERR_UNKNOWN_SHAPE,
     "a shape needs a geometry key", SN_OK},
    {"two_geometries", BALL_WITH("{\"circle\": 0.5, `\"box\": [1, 1]}"), SN_SCENE_ERR_UNKNOWN_SHAPE,
     "a shape has exactly one geometry", SN_OK},
    {"degenerate_polygon", BALL_WITH("{\"polygon\": `[[0, 0], [1, 0], [2, 0]]}"), SN_SCENE_ERR_GEOMETRY,
     "SN_ERR_DEGENERATE_POLYGON", SN_ERR_DEGENERATE_POLYGON},
    {"non_convex_polygon", BALL_WITH("{\"polygon\": `[[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]}"),
     SN_SCENE_ERR_GEOMETRY, "SN_ERR_NON_CONVEX_POLYGON", SN_ERR_NON_CONVEX_POLYGON},
    {"too_many_points", BALL_WITH("{\"polygon\": `[[0,0],[1,0],[2,1],[3,2],[3,3],[2,4],[1,4],[0,3],[-1,2]]}"),
     SN_SCENE_ERR_RANGE, "with 3 to 8 points, got 9 points", SN_OK},
    {"segment_too_short", BALL_WITH("{\"segment\": `[[0, 0], [0, 0]]}"), SN_SCENE_ERR_GEOMETRY,
     "SN_ERR_DEGENERATE_POLYGON", SN_ERR_DEGENERATE_POLYGON},
    {"capsule_coincident", BALL_WITH("{\"capsule\": `[[0, 0], [0, 0], 0.5]}"), SN_SCENE_ERR_GEOMETRY,
     "SN_ERR_DEGENERATE_POLYGON", SN_ERR_DEGENERATE_POLYGON},
    /* chains */
    {"chain_too_few_points", BALL_WITH("{\"chain\": `[[0, 0], [1, 0], [2, 1]]}"), SN_SCENE_ERR_RANGE,
     "bodies[0].shapes[0].chain: expected [[x, y], ...] with at least 4 points (an open chain; 3 with \"loop\": true) "
     "(at most 1000000), got 3 points",
     SN_OK},
    {"chain_loop_too_few_points", BALL_WITH("{\"chain\": `[[0, 0], [1, 0]], \"loop\": true}"), SN_SCENE_ERR_RANGE,
     "expected [[x, y], ...] with at least 3 points (a loop) (at most 1000000), got 2 points", SN_OK},
    {"chain_not_array", BALL_WITH("{\"chain\": `4}"), SN_SCENE_ERR_TYPE,
     "bodies[0].shapes[0].chain: expected [[x, y], ...] with at least 4 points", SN_OK},
    {"chain_point_not_vec2", BALL_WITH("{\"chain\": [[0, 0], [1, 0], `[2], [3, 0]]}"), SN_SCENE_ERR_RANGE,
     "bodies[0].shapes[0].chain[2]: expected [x, y]", SN_OK},
    {"chain_point_overflow", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [`1e39, 0], [3, 0]]}"), SN_SCENE_ERR_RANGE,
     "bodies[0].shapes[0].chain[2][0]: expected a number in [-1e+06, 1e+06], got 1e39", SN_OK},
    {"chain_point_far", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, `2e6], [3, 0]]}"), SN_SCENE_ERR_RANGE,
     "bodies[0].shapes[0].chain[2][1]: expected a number in [-1e+06, 1e+06], got 2e6", SN_OK},
    {"chain_point_far_with_offset",
     BALL_WITH("{\"chain\": [[0, 0], [1, 0], `[999999.5, 0], [3, 0]], \"offset\": [1, 0]}"), SN_SCENE_ERR_RANGE,
     "bodies[0].shapes[0].chain[2]: expected a point within +-1e6 m (SN_MAX_COORDINATE) with the offset added", SN_OK},
    {"chain_duplicate_point", BALL_WITH("{\"chain\": [[0, 0], [1, 0], `[1.001, 0], [3, 0]]}"), SN_SCENE_ERR_GEOMETRY,
     "bodies[0].shapes[0].chain[2]: chain point 2 coincides with point 1 (0.001", SN_ERR_DEGENERATE_POLYGON},
    {"chain_loop_closed_twice", BALL_WITH("{\"chain\": [`[0, 0], [1, 0], [1, 1], [0, 0]], \"loop\": true}"),
     SN_SCENE_ERR_GEOMETRY, "bodies[0].shapes[0].chain[0]: the loop's last point (3) coincides with its first",
     SN_ERR_DEGENERATE_POLYGON},
    {"chain_density", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]], `\"density\": 1}"),
     SN_SCENE_ERR_UNKNOWN_KEY, "bodies[0].shapes[0].density: \"density\" does not apply to a chain", SN_OK},
    {"chain_sensor", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]], `\"sensor\": true}"),
     SN_SCENE_ERR_UNKNOWN_KEY, "\"sensor\" does not apply to a chain", SN_OK},
    {"chain_radius", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]], `\"radius\": 0.1}"),
     SN_SCENE_ERR_UNKNOWN_KEY, "expected no \"radius\" on a chain", SN_OK},
    {"chain_unknown_key", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]], `\"closed\": true}"),
     SN_SCENE_ERR_UNKNOWN_KEY, "bodies[0].shapes[0].closed: unknown key \"closed\" in a shape", SN_OK},
    {"chain_loop_not_bool", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1]], \"loop\": `1}"), SN_SCENE_ERR_TYPE,
     "bodies[0].shapes[0].loop: expected true or false, got 1", SN_OK},
    {"loop_on_segment", BALL_WITH("{\"segment\": [[0, 0], [1, 0]], `\"loop\": false}"), SN_SCENE_ERR_UNKNOWN_KEY,
     "\"loop\" applies to chain shapes only; expected no \"loop\" on a segment", SN_OK},
    {"chain_friction_negative", BALL_WITH("{\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]], \"friction\": `-1}"),
     SN_SCENE_ERR_RANGE, "bodies[0].shapes[0].friction: expected a number >= 0, got -1", SN_OK},
    {"chain_and_circle", BALL_WITH("{\"circle\": 0.5, `\"chain\": [[0, 0], [1, 0], [2, 1], [3, 0]]}"),
     SN_SCENE_ERR_UNKNOWN_SHAPE, "a shape has exactly one geometry, and this one already is a circle", SN_OK},
    /* the per-body sleep threshold */
    {"sleep_threshold_negative", HEAD " \"bodies\": [{\"type\": \"dynamic\", \"sleep_threshold\": `-0.1}]}",
     SN_SCENE_ERR_RANGE, "bodies[0].sleep_threshold: expected a number >= 0, got -0.1", SN_OK},
    {"sleep_threshold_string", HEAD " \"bodies\": [{\"type\": \"dynamic\", \"sleep_threshold\": `\"fast\"}]}",
     SN_SCENE_ERR_TYPE, "bodies[0].sleep_threshold: expected a number >= 0, got the string \"fast\"", SN_OK},
    /* names and references */
    {"duplicate_body_name",
     HEAD " \"bodies\": [\n  {\"name\": \"ball\", \"type\": \"static\"},\n  {\"name\": `\"ball\", \"type\": "
          "\"static\"}\n ]}",
     SN_SCENE_ERR_DUPLICATE_NAME, "bodies[1].name: duplicate body name \"ball\" (first used at 4:12)", SN_OK},
    {"duplicate_soft_name",
     HEAD BODIES ",\n \"soft_bodies\": [{\"name\": `\"ball\", \"kind\": \"ring\", \"center\": [0, 0], \"radius\": 1, "
                 "\"count\": 8}]}",
     SN_SCENE_ERR_DUPLICATE_NAME, "duplicate body name \"ball\"", SN_OK},
    {"duplicate_constraint_name",
     HEAD BODIES ",\n \"constraints\": [\n  {\"name\": \"j\", \"type\": \"revolute\", \"bodies\": [\"ground\", "
                 "\"ball\"]},\n  {\"name\": `\"j\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"ball\"]}\n ]}",
     SN_SCENE_ERR_DUPLICATE_NAME, "duplicate constraint name \"j\"", SN_OK},
    /* names that are not well-formed UTF-8, in each kind of name (test_names_utf8 has every kind of defect) */
    {"body_name_overlong", HEAD " \"bodies\": [{\"type\": \"static\", \"name\": `\"a\xC0\xAF\"}]}", SN_SCENE_ERR_RANGE,
     "bodies[0].name: expected a name in well-formed UTF-8, got an overlong encoding", SN_OK},
    {"soft_name_surrogate",
     HEAD BODIES ",\n \"soft_bodies\": [{\"name\": `\"j\xED\xA0\x80\", \"kind\": \"ring\", \"center\": [0, 0], "
                 "\"radius\": 1, \"count\": 8}]}",
     SN_SCENE_ERR_RANGE, "soft_bodies[0].name: expected a name in well-formed UTF-8, got a UTF-16 surrogate", SN_OK},
    {"constraint_name_cut_short", JOINT("\"name\": `\"hinge\xE2\x82\", \"bodies\": [\"ground\", \"ball\"]"),
     SN_SCENE_ERR_RANGE,
     "constraints[0].name: expected a name in well-formed UTF-8, got a multi-byte sequence cut short", SN_OK},
    {"dangling_reference", JOINT("\"bodies\": [\"ground\", `\"bal\"]"), SN_SCENE_ERR_DANGLING_REFERENCE,
     "constraints[0].bodies[1]: no body named \"bal\"", SN_OK},
    {"reference_to_soft_body",
     HEAD BODIES ",\n \"soft_bodies\": [{\"name\": \"jelly\", \"kind\": \"ring\", \"center\": [0, 0], \"radius\": 1, "
                 "\"count\": 8}],\n \"constraints\": [{\"type\": \"revolute\", \"bodies\": [\"ground\", `\"jelly\"]}]}",
     SN_SCENE_ERR_DANGLING_REFERENCE, "\"jelly\" is a soft body", SN_OK},
    {"self_join", JOINT("\"bodies\": [\"ball\", `\"ball\"]"), SN_SCENE_ERR_RANGE, "cannot join body \"ball\" to itself",
     SN_OK},
    /* plugins, types and parameters */
    {"unknown_plugin", "{\"sinew_scene\": 1, \"plugins\": [\"revolute\", `\"nosuch\"]}", SN_SCENE_ERR_UNKNOWN_PLUGIN,
     "plugins[1]: plugin \"nosuch\" not found; expected ", SN_OK}, /* what: test_scene_plugins.c */
    {"bad_plugin_name", "{\"sinew_scene\": 1, \"plugins\": [`\"../evil\"]}", SN_SCENE_ERR_UNKNOWN_PLUGIN,
     "invalid plugin name \"../evil\"", SN_OK},
    {"unknown_constraint_type",
     HEAD BODIES ",\n \"constraints\": [{\"type\": `\"revolut\", \"bodies\": [\"ground\", \"ball\"]}]}",
     SN_SCENE_ERR_UNKNOWN_TYPE, "no constraint type \"revolut\" in the registry (it has: revolute, distance)", SN_OK},
    {"wrong_arity", JOINT("\"bodies\": `[\"ball\"]"), SN_SCENE_ERR_RANGE, "expected 2 body names for a revolute, got 1",
     SN_OK},
    {"param_out_of_range", JOINT("\"bodies\": [\"ground\", \"ball\"], \"params\": {\"max_motor_torque\": `-5}"),
     SN_SCENE_ERR_RANGE, "constraints[0].params.max_motor_torque: expected a number in [0, 1e+09], got -5", SN_OK},
    {"param_vec2_out_of_range", JOINT("\"bodies\": [\"ground\", \"ball\"], \"anchor\": [0, `2e6]"), SN_SCENE_ERR_RANGE,
     "constraints[0].anchor[1]: expected a number in [-1e+06, 1e+06], got 2e6", SN_OK},
    {"param_unknown", JOINT("\"bodies\": [\"ground\", \"ball\"], \"params\": {`\"motor_sped\": 1}"),
     SN_SCENE_ERR_UNKNOWN_PARAM, "revolute has no parameter \"motor_sped\"; expected one of: anchor, enable_motor",
     SN_OK},
    {"param_unknown_top_level", JOINT("\"bodies\": [\"ground\", \"ball\"], `\"anchr\": [0, 6]"),
     SN_SCENE_ERR_UNKNOWN_PARAM,
     "constraints[0].anchr: unknown key \"anchr\"; expected a constraint key (type, bodies, particles, params", SN_OK},
    {"param_wrong_type", JOINT("\"bodies\": [\"ground\", \"ball\"], \"enable_motor\": `\"yes\""), SN_SCENE_ERR_TYPE,
     "revolute.enable_motor: expected true or false, got the string \"yes\"", SN_OK},
    {"param_twice", JOINT("\"bodies\": [\"ground\", \"ball\"], \"anchor\": [0, 6], \"params\": {`\"anchor\": [0, 6]}"),
     SN_SCENE_ERR_UNKNOWN_KEY, "parameter \"anchor\" is given twice", SN_OK},
    {"plugin_create_refuses",
     HEAD BODIES ",\n \"constraints\": [`{\"type\": \"distance\", \"bodies\": [\"ground\", \"ball\"], \"params\": "
                 "{\"enable_limit\": true, \"min_length\": 3, \"max_length\": 1}}]}",
     SN_SCENE_ERR_ENGINE, "min_length 3 > max_length 1", SN_ERR_PLUGIN_INIT_FAILED},
    /* soft bodies: the classes of malformed entries are in test_scene_soft.c */
    {"soft_bad_kind", "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": `\"blob\"}]}", SN_SCENE_ERR_RANGE,
     "expected \"rope\", \"cloth\", \"ring\", \"lattice\" or \"custom\", got \"blob\"", SN_OK},
    {"soft_key_of_other_kind",
     "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"rope\", \"start\": [0, 0], \"end\": [1, 0], \"count\": 8, "
     "`\"pressure\": 1}]}",
     SN_SCENE_ERR_UNKNOWN_KEY, "unknown key \"pressure\" in a rope soft body", SN_OK},
};

START_TEST(test_malformed_files) { check_fixture(fixtures + _i); }
END_TEST

START_TEST(test_build_failure_leaves_caller_registry_usable) {
  /* a caller's registry: a failure late in the build (plugin create refuses)
   * leaves it alive and usable; the world is gone */
  const char *text = HEAD BODIES ",\n \"constraints\": [{\"type\": \"distance\", \"bodies\": [\"ground\", \"ball\"], "
                                 "\"params\": {\"enable_limit\": true, \"min_length\": 3, \"max_length\": 1}}]}";
  sn_registry *reg = sn_create_registry(NULL);
  sn_scene_load_options o = test_options();
  o.registry = reg;
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "late.json", &o, &s, &e), SN_SCENE_ERR_ENGINE);
  ck_assert_ptr_null(s.world);
  ck_assert_ptr_nonnull(sn_registry_find_type(reg, "distance")); /* plugins stay loaded */
  /* the same registry loads a good file; listed plugins are not loaded twice */
  ck_assert_msg(sn_scene_load_string(example_scene, strlen(example_scene), "ok.json", &o, &s, &e) == SN_SCENE_OK, "%s",
                e.message);
  ck_assert_ptr_eq(s.registry, reg);
  ck_assert(!s.owns_registry);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 2);
  sn_scene_unload(&s);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 2); /* not destroyed by unload */
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_save_refusals) {
  sn_scene_error e;
  ck_assert_ptr_null(sn_scene_save_string(NULL, NULL, &e));
  ck_assert_int_eq(e.status, SN_SCENE_ERR_ARGUMENT);
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  sn_body_id b = sn_create_body(w, &bd);
  /* a chain whose segment was given another material: one chain def cannot say it */
  sn_vec2 pts[5] = {{0, 0}, {1, 0}, {2, 0.5f}, {3, 0}, {4, 0}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 5;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, b, &cd)));
  sn_shape_id segs[2];
  ck_assert_int_eq(sn_body_get_shapes(w, b, segs, 2), 2);
  char *chain_text = save_or_fail(w, NULL); /* as made, it saves */
  ck_assert_ptr_nonnull(strstr(chain_text, "\"chain\": [[0, 0], [1, 0], [2, 0.5], [3, 0], [4, 0]]}"));
  sn_scene_free_text(chain_text);
  ck_assert_int_eq(sn_shape_set_friction(w, segs[1], 0.2f), SN_OK);
  ck_assert_ptr_null(sn_scene_save_string(w, NULL, &e));
  ck_assert_int_eq(e.status, SN_SCENE_ERR_UNREPRESENTABLE);
  ck_assert_ptr_nonnull(strstr(e.message, "body \"body0\", shape 1: a chain segment whose material or filter"));
  ck_assert_int_eq(sn_scene_save_file("/tmp/never-written.json", w, NULL, &e), SN_SCENE_ERR_UNREPRESENTABLE);
  ck_assert_int_ne(access("/tmp/never-written.json", F_OK), 0);
  sn_destroy_world(w);
  /* an empty soft body saves (as an explicit soft body without particles) and loads */
  w = sn_create_world(&wd, NULL);
  sn_soft_body_def sbd = sn_default_soft_body_def();
  ck_assert(sn_soft_body_is_valid(w, sn_create_soft_body(w, &sbd)));
  char *soft_text = save_or_fail(w, NULL);
  ck_assert_ptr_nonnull(strstr(soft_text, "{\"name\": \"soft0\", \"kind\": \"custom\"}"));
  sn_loaded_scene soft_scene;
  load_or_fail(soft_text, "soft.json", &soft_scene);
  ck_assert_int_eq(sn_world_get_soft_body_count(soft_scene.world), 1);
  sn_scene_unload(&soft_scene);
  sn_scene_free_text(soft_text);
  sn_destroy_world(w);
  /* an empty world saves and loads */
  w = sn_create_world(&wd, NULL);
  char *text = save_or_fail(w, NULL);
  sn_loaded_scene s;
  load_or_fail(text, "empty.json", &s);
  ck_assert_int_eq(sn_world_get_body_count(s.world), 0);
  sn_scene_free_text(text);
  sn_scene_unload(&s);
  sn_destroy_world(w);
}
END_TEST

/* Names must be well-formed UTF-8: every kind of defect is refused by the
 * loader (SN_SCENE_ERR_RANGE at the name's string, saying what is wrong at
 * which byte) and by the name table's setters (SN_SCENE_ERR_ARGUMENT, the
 * table unchanged); every valid form, boundary code points included, loads
 * and survives save -> load -> save byte for byte. */
typedef struct utf8_case {
  const char *bytes, *says;
} utf8_case;

START_TEST(test_names_utf8) {
  static const utf8_case bad[] = {
      {"\xC0\xAF", "an overlong encoding"},
      {"\xC1\xBF", "an overlong encoding"},
      {"\xE0\x80\xAF", "an overlong encoding"},
      {"\xE0\x9F\xBF", "an overlong encoding"},
      {"\xF0\x80\x80\xAF", "an overlong encoding"},
      {"\xF0\x8F\xBF\xBF", "an overlong encoding"},
      {"\x80", "a continuation byte"},
      {"\xBF", "a continuation byte"},
      {"\xED\xA0\x80", "a UTF-16 surrogate"},
      {"\xED\xBF\xBF", "a UTF-16 surrogate"},
      {"\xED\xA0\x80\xED\xB0\x80", "a UTF-16 surrogate"}, /* a surrogate pair encoded as two characters */
      {"\xC3", "cut short"},
      {"\xE2\x82", "cut short"},
      {"\xF0\x9F\x98", "cut short"},
      {"\xE2\x82"
       "x",
       "cut short"},
      {"\xC3"
       "\xC3\xA9",
       "cut short"},
      {"\xF4\x90\x80\x80", "above U+10FFFF"},
      {"\xF5\x80\x80\x80", "0xF5..0xFF"},
      {"\xF6", "0xF5..0xFF"},
      {"\xF7", "0xF5..0xFF"},
      {"\xF8\x88\x80\x80\x80", "0xF5..0xFF"},
      {"\xF9", "0xF5..0xFF"},
      {"\xFA", "0xF5..0xFF"},
      {"\xFB", "0xF5..0xFF"},
      {"\xFC\x84\x80\x80\x80\x80", "0xF5..0xFF"},
      {"\xFD", "0xF5..0xFF"},
      {"\xFE", "0xF5..0xFF"},
      {"\xFF", "0xF5..0xFF"},
  };
  sn_scene_load_options o = test_options();
  sn_scene_names *table = sn_create_scene_names();
  sn_body_id body = {1, 7, 1};
  sn_constraint_id constraint = {1, 7, 1};
  sn_soft_body_id soft = {2, 7, 1};
  ck_assert_int_eq(sn_scene_names_set_body(table, body, "kept"), SN_SCENE_OK);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char name[64], text[256];
    snprintf(name, sizeof name, "ok%sz", bad[i].bytes);
    int w = snprintf(text, sizeof text,
                     "{\"sinew_scene\": 1,\n \"bodies\": [{\"type\": \"static\", \"name\": \"%s\"}]}", name);
    ck_assert_int_lt(w, (int)sizeof text);
    sn_loaded_scene s;
    sn_scene_error e;
    ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "names.json", &o, &s, &e), SN_SCENE_ERR_RANGE);
    ck_assert_ptr_null(s.world);
    /* at the name's opening quote: line 2, column 40 */
    ck_assert_int_eq(e.line, 2);
    ck_assert_int_eq(e.column, 40);
    const char *prefix = "names.json:2:40: bodies[0].name: expected a name in well-formed UTF-8, got ";
    ck_assert_msg(strncmp(e.message, prefix, strlen(prefix)) == 0, "case %zu: %s", i, e.message);
    ck_assert_msg(strstr(e.message, bad[i].says) != NULL, "case %zu: '%s' lacks '%s'", i, e.message, bad[i].says);
    /* the offending byte: the third, after "ok" */
    char where[64];
    snprintf(where, sizeof where, "at byte 3 of the name (0x%02X)", (unsigned)(unsigned char)name[2]);
    ck_assert_msg(strstr(e.message, where) != NULL, "case %zu: '%s' lacks '%s'", i, e.message, where);
    /* the table's setters refuse it and keep what they had */
    ck_assert_int_eq(sn_scene_names_set_body(table, body, name), SN_SCENE_ERR_ARGUMENT);
    ck_assert_int_eq(sn_scene_names_set_constraint(table, constraint, name), SN_SCENE_ERR_ARGUMENT);
    ck_assert_int_eq(sn_scene_names_set_soft_body(table, soft, name), SN_SCENE_ERR_ARGUMENT);
    ck_assert_str_eq(sn_scene_names_get_body(table, body), "kept");
    ck_assert_ptr_null(sn_scene_names_get_constraint(table, constraint));
    ck_assert_ptr_null(sn_scene_names_get_soft_body(table, soft));
  }
  sn_destroy_scene_names(table);

  /* valid names: several scripts, a four-byte character, every boundary */
  static const char *const good[] = {
      "\xC3\xBCn\xC3\xAF"
      "c\xC3\xB6"
      "d\xC3\xA9",                /* ünïcödé */
      "\xE5\x90\x8D\xE5\x89\x8D", /* 名前 */
      "\xF0\x9F\x98\x80",         /* U+1F600 */
      "\xC2\x80",                 /* U+0080, the first two-byte character */
      "\xDF\xBF",                 /* U+07FF */
      "\xE0\xA0\x80",             /* U+0800 */
      "\xED\x9F\xBF",             /* U+D7FF, just below the surrogates */
      "\xEE\x80\x80",             /* U+E000, just above them */
      "\xEF\xBF\xBF",             /* U+FFFF */
      "\xF0\x90\x80\x80",         /* U+10000 */
      "\xF4\x8F\xBF\xBF",         /* U+10FFFF, the last code point */
  };
  const int count = (int)(sizeof good / sizeof good[0]);
  char text[4096] = "{\"sinew_scene\": 1, \"bodies\": [";
  for (int i = 0; i < count; ++i) {
    size_t len = strlen(text);
    snprintf(text + len, sizeof text - len, "%s{\"type\": \"static\", \"name\": \"%s\"}", i ? ", " : "", good[i]);
  }
  strcat(text, "]}");
  sn_loaded_scene s, t;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "good.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  char *saved = save_or_fail(s.world, s.names);
  ck_assert_msg(sn_scene_load_string(saved, strlen(saved), "saved.json", &o, &t, &e) == SN_SCENE_OK, "%s", e.message);
  char *again = save_or_fail(t.world, t.names);
  ck_assert_str_eq(saved, again);
  for (int i = 0; i < count; ++i) {
    ck_assert_msg(strstr(saved, good[i]) != NULL, "name %d not written as it was", i);
    sn_body_id a = sn_scene_names_find_body(s.names, good[i]), b = sn_scene_names_find_body(t.names, good[i]);
    ck_assert_msg(sn_body_is_valid(s.world, a) && sn_body_is_valid(t.world, b), "name %d lost", i);
    ck_assert_str_eq(sn_scene_names_get_body(t.names, b), good[i]);
  }
  /* and the setters take them */
  sn_scene_names *names = sn_create_scene_names();
  for (int i = 0; i < count; ++i) {
    sn_body_id id = {i + 1, 7, 1};
    ck_assert_int_eq(sn_scene_names_set_body(names, id, good[i]), SN_SCENE_OK);
  }
  sn_destroy_scene_names(names);
  sn_scene_free_text(saved);
  sn_scene_free_text(again);
  sn_scene_unload(&s);
  sn_scene_unload(&t);
}
END_TEST

START_TEST(test_names_table) {
  sn_scene_names *n = sn_create_scene_names();
  sn_body_id a = {1, 7, 1}, b = {2, 7, 1}, a2 = {1, 7, 2};
  ck_assert_int_eq(sn_scene_names_set_body(n, a, "a"), SN_SCENE_OK);
  ck_assert_int_eq(sn_scene_names_set_body(n, b, "b"), SN_SCENE_OK);
  ck_assert_int_eq(sn_scene_names_set_body(n, b, "a"), SN_SCENE_ERR_DUPLICATE_NAME);
  ck_assert_str_eq(sn_scene_names_get_body(n, b), "b");
  ck_assert_int_eq(sn_scene_names_set_body(n, a, "a"), SN_SCENE_OK); /* same again */
  ck_assert_int_eq(sn_scene_names_set_body(n, a, "z"), SN_SCENE_OK); /* rename */
  ck_assert_ptr_null(sn_scene_names_get_body(n, a2));                /* stale generation */
  ck_assert_int_eq(sn_scene_names_find_body(n, "a").index1, 0);
  ck_assert_int_eq(sn_scene_names_find_body(n, "z").index1, 1);
  ck_assert_int_eq(sn_scene_names_set_body(n, a2, "a2"), SN_SCENE_OK); /* the slot's new body replaces it */
  ck_assert_int_eq(sn_scene_names_find_body(n, "z").index1, 0);
  ck_assert_int_eq(sn_scene_names_set_body(n, a2, NULL), SN_SCENE_OK); /* remove */
  ck_assert_ptr_null(sn_scene_names_get_body(n, a2));
  ck_assert_int_eq(sn_scene_names_set_body(n, a, ""), SN_SCENE_ERR_ARGUMENT);
  ck_assert_int_eq(sn_scene_names_set_body(n, a, "tab\there"), SN_SCENE_ERR_ARGUMENT);
  ck_assert_int_eq(sn_scene_names_set_body(n, SN_NULL_BODY, "x"), SN_SCENE_ERR_ARGUMENT);
  char big[300];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ck_assert_int_eq(sn_scene_names_set_body(n, a, big), SN_SCENE_ERR_ARGUMENT);
  /* constraints have their own namespace */
  sn_constraint_id k = {1, 7, 1};
  ck_assert_int_eq(sn_scene_names_set_constraint(n, k, "b"), SN_SCENE_OK);
  ck_assert_str_eq(sn_scene_names_get_constraint(n, k), "b");
  ck_assert_int_eq(sn_scene_names_find_constraint(n, "b").index1, 1);
  /* many names (the hash grows) */
  char name[32];
  for (int i = 0; i < 5000; ++i) {
    snprintf(name, sizeof name, "n%d", i);
    ck_assert_int_eq(sn_scene_names_set_body(n, (sn_body_id){10 + i, 7, 1}, name), SN_SCENE_OK);
  }
  for (int i = 0; i < 5000; i += 97) {
    snprintf(name, sizeof name, "n%d", i);
    ck_assert_int_eq(sn_scene_names_find_body(n, name).index1, 10 + i);
  }
  ck_assert_str_eq(sn_scene_names_get_body(n, b), "b");
  sn_destroy_scene_names(n);
  sn_destroy_scene_names(NULL);
  ck_assert_ptr_null(sn_scene_names_get_body(NULL, a));
  ck_assert_int_eq(sn_scene_names_set_body(NULL, a, "a"), SN_SCENE_ERR_ARGUMENT);
  ck_assert_str_eq(sn_scene_status_name(SN_SCENE_ERR_SYNTAX), "SN_SCENE_ERR_SYNTAX");
  ck_assert_str_eq(sn_scene_status_name((sn_scene_status)999), "SN_SCENE_ERR_UNKNOWN");
  ck_assert_ptr_nonnull(strstr(sn_scene_status_message(SN_SCENE_ERR_SYNTAX), "JSON"));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Bad input never crashes                                                  */

START_TEST(test_truncations_and_mutations) {
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  size_t n = strlen(example_scene);
  /* every prefix is refused (no prefix of a document is a document) */
  for (size_t k = 0; k < n - 1; ++k) {
    sn_scene_status st = sn_scene_load_string(example_scene, k, "cut.json", &o, &s, &e);
    ck_assert_msg(st == SN_SCENE_ERR_SYNTAX, "prefix %zu: %s", k, e.message);
    ck_assert(e.line >= 1 && e.column >= 1);
  }
  /* random byte edits: any status, never a crash, a located message */
  char *text = malloc(n);
  uint32_t seed = 12345u;
  int loaded = 0;
  for (int round = 0; round < 3000; ++round) {
    memcpy(text, example_scene, n);
    int edits = 1 + round % 3;
    for (int j = 0; j < edits; ++j) {
      seed = seed * 1664525u + 1013904223u;
      size_t at = (seed >> 8) % n;
      seed = seed * 1664525u + 1013904223u;
      static const char pool[] = "{}[]\",:0123456789.-+eE \ntfnaxyz\\\x01\xff";
      text[at] = pool[(seed >> 8) % (sizeof pool - 1)];
    }
    sn_scene_status st = sn_scene_load_string(text, n, "fuzz.json", &o, &s, &e);
    if (st == SN_SCENE_OK) {
      loaded++;
      sn_world_step(s.world, DT);
      sn_scene_unload(&s);
    } else {
      ck_assert_msg(strncmp(e.message, "fuzz.json:", 10) == 0, "%s", e.message);
      ck_assert_ptr_null(s.world);
    }
  }
  ck_assert_int_gt(loaded, 0);
  free(text);
  /* deep nesting is refused, not recursed into */
  size_t depth = 100000;
  char *deep = malloc(2 * depth + 64);
  size_t len = (size_t)sprintf(deep, "{\"sinew_scene\": 1, \"description\": ");
  for (size_t i = 0; i < depth; ++i) deep[len++] = '[';
  for (size_t i = 0; i < depth; ++i) deep[len++] = ']';
  deep[len++] = '}';
  ck_assert_int_eq(sn_scene_load_string(deep, len, "deep.json", &o, &s, &e), SN_SCENE_ERR_SYNTAX);
  ck_assert_ptr_nonnull(strstr(e.message, "levels of nesting"));
  free(deep);
  /* a byte order mark is skipped and does not count as a column */
  const char *bom = "\xEF\xBB\xBF{\"sinew_scene\": 1, \"x\": 1}";
  ck_assert_int_eq(sn_scene_load_string(bom, strlen(bom), "bom.json", &o, &s, &e), SN_SCENE_ERR_UNKNOWN_KEY);
  ck_assert_int_eq(e.column, 20);
  /* columns count characters, not bytes */
  const char *utf8 = "{\"sinew_scene\": 1, \"description\": \"\xc3\xa9\xc3\xa9\", \"x\": 1}";
  ck_assert_int_eq(sn_scene_load_string(utf8, strlen(utf8), "utf8.json", &o, &s, &e), SN_SCENE_ERR_UNKNOWN_KEY);
  ck_assert_int_eq(e.column, 41);
}
END_TEST

/* A NaN or infinite number in the world (only reachable by writing memory
 * behind the API's back: the engine keeps states finite) is refused with
 * SN_SCENE_ERR_UNREPRESENTABLE, not written as a file no reader accepts. */
START_TEST(test_save_refuses_non_finite) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.linear_velocity = (sn_vec2){1.0f, 0.0f};
  sn_body_id b = sn_create_body(w, &bd);
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
  sn_scene_error err;
  char *text = sn_scene_save_string(w, NULL, &err);
  ck_assert_msg(text != NULL, "%s", err.message);
  sn_scene_free_text(text);
  w->bodies.data[b.index1 - 1].v.x = INFINITY;
  text = sn_scene_save_string(w, NULL, &err);
  ck_assert_ptr_null(text);
  ck_assert_int_eq(err.status, SN_SCENE_ERR_UNREPRESENTABLE);
  ck_assert_int_eq(err.engine_result, SN_ERR_NOT_FINITE);
  ck_assert_msg(strstr(err.message, "NaN or infinite") != NULL, "%s", err.message);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("scene_file");
  TCase *load = tcase_create("load_save");
  tcase_set_timeout(load, 120);
  tcase_add_test(load, test_example_loads);
  tcase_add_test(load, test_round_trip_bit_identical);
  tcase_add_test(load, test_file_round_trip_and_errors);
  tcase_add_test(load, test_file_edges);
  tcase_add_test(load, test_bench_chain_round_trip);
  tcase_add_test(load, test_pyramid10_file);
  tcase_add_test(load, test_pendulum_file);
  tcase_add_test(load, test_docs_example_loads);
  tcase_add_test(load, test_save_refusals);
  tcase_add_test(load, test_chains_round_trip);
  tcase_add_test(load, test_chain_shape_limit);
  tcase_add_test(load, test_names_table);
  tcase_add_test(load, test_names_utf8);
  suite_add_tcase(s, load);
  TCase *bad = tcase_create("malformed");
  tcase_set_timeout(bad, 300);
  tcase_add_loop_test(bad, test_malformed_files, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
  tcase_add_test(bad, test_build_failure_leaves_caller_registry_usable);
  tcase_add_test(bad, test_truncations_and_mutations);
  tcase_add_test(bad, test_save_refuses_non_finite);
  suite_add_tcase(s, bad);
  return s;
}
