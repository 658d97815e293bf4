/* Debug draw (sinew/draw.h): for a known world, the number of each primitive
 * per flag; no flags, nothing drawn; culling by bounds; destroyed objects are
 * not drawn; constraints draw through their plugin; forces come with a label;
 * drawing changes nothing and allocates nothing; bad arguments (NULL, an
 * uninitialised draw, unknown flags, NaN scales, inverted bounds, a call
 * from inside a step) are refused with their result code. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "scenes.h"
#include "shipped.h"
#include "sinew/sinew.h"

#define DT (1.0f / 60.0f)

/* ------------------------------------------------------------------------ */
/* A recording renderer: counts every call.                                   */

typedef struct rec {
  int polygon, polygon_vertices, solid_circle, capsule, segment, point, circle, transform, string;
  float last_segment_length;
  char last_string[64];
} rec;

static void rec_polygon(const sn_vec2 *v, int32_t n, float radius, uint32_t rgba, void *ctx) {
  (void)v, (void)radius, (void)rgba;
  rec *r = ctx;
  r->polygon++;
  r->polygon_vertices += n;
}
static void rec_solid_circle(sn_transform xf, float radius, uint32_t rgba, void *ctx) {
  (void)xf, (void)radius, (void)rgba;
  ((rec *)ctx)->solid_circle++;
}
static void rec_capsule(sn_vec2 a, sn_vec2 b, float radius, uint32_t rgba, void *ctx) {
  (void)a, (void)b, (void)radius, (void)rgba;
  ((rec *)ctx)->capsule++;
}
static void rec_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *ctx) {
  (void)rgba;
  rec *r = ctx;
  r->segment++;
  r->last_segment_length = hypotf(b.x - a.x, b.y - a.y);
}
static void rec_point(sn_vec2 p, float size, uint32_t rgba, void *ctx) {
  (void)p, (void)size, (void)rgba;
  ((rec *)ctx)->point++;
}
static void rec_circle(sn_vec2 c, float radius, uint32_t rgba, void *ctx) {
  (void)c, (void)radius, (void)rgba;
  ((rec *)ctx)->circle++;
}
static void rec_transform(sn_transform xf, float len, void *ctx) {
  (void)xf, (void)len;
  ((rec *)ctx)->transform++;
}
static void rec_string(sn_vec2 p, const char *text, uint32_t rgba, void *ctx) {
  (void)p, (void)rgba;
  rec *r = ctx;
  r->string++;
  snprintf(r->last_string, sizeof r->last_string, "%s", text);
}

static sn_debug_draw rec_draw(rec *r, uint32_t flags) {
  memset(r, 0, sizeof(*r));
  sn_debug_draw d = sn_default_debug_draw();
  d.polygon = rec_polygon;
  d.solid_circle = rec_solid_circle;
  d.capsule = rec_capsule;
  d.segment = rec_segment;
  d.point = rec_point;
  d.circle = rec_circle;
  d.transform = rec_transform;
  d.string = rec_string;
  d.context = r;
  d.flags = flags;
  return d;
}

/* ------------------------------------------------------------------------ */
/* The known world                                                           */

typedef struct fixture {
  sn_registry *reg;
  sn_world *world;
  sn_body_id ground, ball, pill, box, chain_body;
  sn_constraint_id pin;
} fixture;

/* ground: box (50, 1) + one segment; chain: a triangle loop (3 segments) far
 * away; dynamic: a ball pinned by a revolute joint, a capsule, a box. Five
 * bodies, eight shapes, one constraint. */
static void fixture_make(fixture *f) {
  memset(f, 0, sizeof(*f));
  f->reg = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(f->reg);
  static const char *const revolute[] = {"revolute"};
  char msg[512];
  ck_assert_msg(sn_shipped_add(f->reg, SN_PLUGIN_DIR, revolute, 1, msg, sizeof msg) == SN_OK, "%s", msg);
  sn_world_def wd = sn_default_world_def();
  wd.registry = f->reg;
  wd.enable_sleep = false;
  f->world = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(f->world);
  sn_world *w = f->world;
  sn_shape_def sd = sn_default_shape_def();

  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -1.0f};
  f->ground = sn_create_body(w, &gd);
  sn_polygon ground_box;
  ck_assert_int_eq(sn_make_box(50.0f, 1.0f, &ground_box), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, f->ground, &sd, &ground_box)));
  sn_segment seg = {{-5.0f, 3.0f}, {-3.0f, 3.0f}};
  ck_assert(sn_shape_is_valid(w, sn_create_segment_shape(w, f->ground, &sd, &seg)));

  sn_body_def cd = sn_default_body_def();
  cd.position = (sn_vec2){100.0f, 0.0f};
  f->chain_body = sn_create_body(w, &cd);
  sn_vec2 tri[3] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}};
  sn_chain_def chd = sn_default_chain_def();
  chd.points = tri;
  chd.count = 3;
  chd.is_loop = true;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, f->chain_body, &chd)));

  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){10.0f, 5.0f};
  f->ball = sn_create_body(w, &bd);
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, f->ball, &sd, &c)));

  bd.position = (sn_vec2){-10.0f, 0.5f};
  f->pill = sn_create_body(w, &bd);
  sn_capsule cap = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
  ck_assert(sn_shape_is_valid(w, sn_create_capsule_shape(w, f->pill, &sd, &cap)));

  bd.position = (sn_vec2){0.0f, 0.5f};
  f->box = sn_create_body(w, &bd);
  sn_polygon unit;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &unit), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, f->box, &sd, &unit)));

  sn_param_value anchor[1] = {{"anchor", 10.0, 7.0}};
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "revolute";
  kd.bodies[0] = f->ground;
  kd.bodies[1] = f->ball;
  kd.params = anchor;
  kd.param_count = 1;
  f->pin = sn_create_constraint(w, &kd);
  ck_assert_msg(sn_constraint_is_valid(w, f->pin), "%s", sn_world_last_error(w));
}

static void fixture_free(fixture *f) {
  ck_assert_int_eq(sn_destroy_world(f->world), SN_OK);
  ck_assert_int_eq(sn_destroy_registry(f->reg), SN_OK);
}

static void fixture_settle(fixture *f, int steps) {
  for (int i = 0; i < steps; ++i) ck_assert_int_eq(sn_world_step(f->world, DT), SN_OK);
}

/* ------------------------------------------------------------------------ */

START_TEST(test_shapes_by_type) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_SHAPES);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.polygon, 2); /* ground box, dynamic box */
  ck_assert_int_eq(r.polygon_vertices, 8);
  ck_assert_int_eq(r.solid_circle, 1);
  ck_assert_int_eq(r.capsule, 1);
  ck_assert_int_eq(r.segment, 1 + 3); /* segment shape + three chain segments */
  ck_assert_int_eq(r.point + r.circle + r.transform + r.string, 0);
  fixture_free(&f);
}
END_TEST

START_TEST(test_no_flags_draw_nothing) {
  fixture f;
  fixture_make(&f);
  fixture_settle(&f, 30);
  rec r;
  sn_debug_draw d = rec_draw(&r, 0);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.polygon + r.solid_circle + r.capsule + r.segment + r.point + r.circle + r.transform + r.string, 0);
  fixture_free(&f);
}
END_TEST

START_TEST(test_aabbs_transforms_tree) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_AABBS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment, 4 * 8); /* four edges per shape */
  ck_assert_int_eq(r.polygon, 0);

  d = rec_draw(&r, SN_DRAW_TRANSFORMS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.transform, 5);

  /* internal tree nodes: a tree of n leaves has n - 1 of them */
  sn_debug_counts counts;
  ck_assert_int_eq(sn_world_get_debug_counts(f.world, &counts), SN_OK);
  d = rec_draw(&r, SN_DRAW_TREE);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  int leaves = 8, trees = 2; /* static: 5 shapes, dynamic: 3 */
  ck_assert_int_eq(counts.tree_nodes, 2 * leaves - trees);
  ck_assert_int_eq(r.segment, 4 * (leaves - trees));
  fixture_free(&f);
}
END_TEST

START_TEST(test_joints_through_plugin) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_JOINTS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  /* revolute_draw: two segments (centres to the pivot) and the pivot */
  ck_assert_int_eq(r.segment, 2);
  ck_assert_int_eq(r.point, 1);

  /* without a point callback the plugin still runs (no-op stands in) */
  d.point = NULL;
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment, 2);

  /* a destroyed constraint is not drawn */
  ck_assert_int_eq(sn_destroy_constraint(f.world, f.pin), SN_OK);
  d = rec_draw(&r, SN_DRAW_JOINTS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment + r.point, 0);
  fixture_free(&f);
}
END_TEST

START_TEST(test_constraint_forces) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_CONSTRAINT_FORCES);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment + r.string, 0); /* no step yet: no reaction */
  fixture_settle(&f, 120);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment, 1);
  ck_assert_int_eq(r.string, 1);
  ck_assert_ptr_nonnull(strstr(r.last_string, " N"));
  /* the ball (pi 0.25 kg) hangs at rest: the pin carries its weight */
  double weight = 10.0 * 3.14159265 * 0.25;
  double shown = atof(r.last_string);
  ck_assert_msg(fabs(shown - weight) < 0.05 * weight, "label '%s', weight %.3f N", r.last_string, weight);
  ck_assert_msg(fabsf(r.last_segment_length - (float)weight * d.force_scale) < 0.05f * (float)weight * d.force_scale,
                "force line %.4f m", (double)r.last_segment_length);
  fixture_free(&f);
}
END_TEST

START_TEST(test_contacts) {
  fixture f;
  fixture_make(&f);
  fixture_settle(&f, 60);
  sn_debug_counts counts;
  ck_assert_int_eq(sn_world_get_debug_counts(f.world, &counts), SN_OK);
  /* box on ground (2 points) and capsule on ground (2 points) */
  ck_assert_int_eq(counts.touching_contacts, 2);
  ck_assert_int_eq(counts.contact_points, 4);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_CONTACT_POINTS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.point, 4);
  ck_assert_int_eq(r.segment, 0);

  d = rec_draw(&r, SN_DRAW_CONTACT_NORMALS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment, 4);
  ck_assert_float_eq_tol(r.last_segment_length, d.axis_length, 1e-5f);

  /* normal + friction line per touching point; the normal forces add up
   * to the weights they carry */
  d = rec_draw(&r, SN_DRAW_CONTACT_IMPULSES);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.segment, 8);
  fixture_free(&f);
}
END_TEST

START_TEST(test_bounds_cull) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_SHAPES | SN_DRAW_TRANSFORMS);
  d.use_bounds = true;
  d.bounds = (sn_aabb){{9.0f, 4.0f}, {11.0f, 6.0f}}; /* only the ball */
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.solid_circle, 1);
  ck_assert_int_eq(r.polygon + r.capsule + r.segment, 0);
  ck_assert_int_eq(r.transform, 1);
  fixture_free(&f);
}
END_TEST

START_TEST(test_destroyed_body_not_drawn) {
  fixture f;
  fixture_make(&f);
  ck_assert_int_eq(sn_destroy_body(f.world, f.pill), SN_OK);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_SHAPES | SN_DRAW_TRANSFORMS);
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK);
  ck_assert_int_eq(r.capsule, 0);
  ck_assert_int_eq(r.transform, 4);
  sn_debug_counts counts;
  ck_assert_int_eq(sn_world_get_debug_counts(f.world, &counts), SN_OK);
  ck_assert_int_eq(counts.bodies, 4);
  ck_assert_int_eq(counts.dynamic_bodies, 2);
  ck_assert_int_eq(counts.shapes, 7);
  ck_assert_int_eq(counts.constraints, 1);
  ck_assert_int_eq(counts.particles, 0);
  fixture_free(&f);
}
END_TEST

START_TEST(test_all_flags_null_callbacks) {
  fixture f;
  fixture_make(&f);
  fixture_settle(&f, 30);
  sn_debug_draw d = sn_default_debug_draw();
  d.flags = SN_DRAW_ALL;
  ck_assert_int_eq(sn_world_draw(f.world, &d), SN_OK); /* nothing to call, nothing breaks */
  fixture_free(&f);
}
END_TEST

START_TEST(test_draw_changes_nothing) {
  sn_scene a, b;
  ck_assert(sn_scene_build(&a, "pyramid", 10, 0, false));
  ck_assert(sn_scene_build(&b, "pyramid", 10, 0, false));
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_ALL);
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(a.world, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(b.world, DT), SN_OK);
    size_t before = sn_world_get_counters(a.world).allocated_bytes;
    ck_assert_int_eq(sn_world_draw(a.world, &d), SN_OK);
    ck_assert_uint_eq(sn_world_get_counters(a.world).allocated_bytes, before);
  }
  ck_assert_int_eq(r.polygon, 60 * (1 + 55));
  sn_scene_metrics ma, mb;
  sn_scene_measure(&a, &ma);
  sn_scene_measure(&b, &mb);
  ck_assert_uint_eq(ma.state_hash, mb.state_hash);
  sn_scene_destroy(&a);
  sn_scene_destroy(&b);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Refusals                                                                  */

START_TEST(test_bad_arguments) {
  fixture f;
  fixture_make(&f);
  rec r;
  sn_debug_draw d = rec_draw(&r, SN_DRAW_SHAPES);
  ck_assert_int_eq(sn_world_draw(NULL, &d), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_draw(f.world, NULL), SN_ERR_NULL);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(f.world), "SN_ERR_NULL"));

  sn_debug_draw raw;
  memset(&raw, 0, sizeof raw); /* not from sn_default_debug_draw */
  raw.polygon = rec_polygon;
  raw.flags = SN_DRAW_SHAPES;
  raw.context = &r;
  ck_assert_int_eq(sn_world_draw(f.world, &raw), SN_ERR_UNINITIALIZED_DEF);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(f.world), "sn_default_debug_draw"));

  sn_debug_draw bad = d;
  bad.flags = SN_DRAW_ALL + 1u;
  ck_assert_int_eq(sn_world_draw(f.world, &bad), SN_ERR_INVALID_ARGUMENT);
  bad = d;
  bad.force_scale = NAN;
  ck_assert_int_eq(sn_world_draw(f.world, &bad), SN_ERR_NOT_FINITE);
  bad = d;
  bad.axis_length = -1.0f;
  ck_assert_int_eq(sn_world_draw(f.world, &bad), SN_ERR_INVALID_ARGUMENT);
  bad = d;
  bad.use_bounds = true;
  bad.bounds = (sn_aabb){{1.0f, 1.0f}, {0.0f, 0.0f}};
  ck_assert_int_eq(sn_world_draw(f.world, &bad), SN_ERR_INVALID_ARGUMENT);
  bad.bounds = (sn_aabb){{0.0f, 0.0f}, {INFINITY, 1.0f}};
  ck_assert_int_eq(sn_world_draw(f.world, &bad), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(r.polygon, 0); /* nothing drawn by a refused call */

  ck_assert_int_eq(sn_world_get_debug_counts(NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_get_debug_counts(f.world, NULL), SN_ERR_NULL);
  fixture_free(&f);
}
END_TEST

/* A host constraint type whose prepare (inside sn_world_step) tries to draw:
 * the world is locked. Test-only file-scope state carries the world in. */
static sn_world *g_locked_world;
static sn_result g_locked_result = SN_OK;

static int probe_create(const sn_constraint_create_args *args) {
  (void)args;
  return 0;
}
static void probe_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
  sn_debug_draw d = sn_default_debug_draw();
  g_locked_result = sn_world_draw(g_locked_world, &d);
}
static void probe_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}

START_TEST(test_locked_during_step) {
  static const sn_constraint_type probe = {
      .struct_size = sizeof(sn_constraint_type),
      .name = "test.draw_probe",
      .flags = SN_CONSTRAINT_IMPULSE,
      .body_count = 1,
      .params_size = 4,
      .params_align = 4,
      .instance_size = 4,
      .instance_align = 4,
      .create = probe_create,
      .prepare = probe_prepare,
      .solve_velocity = probe_solve,
  };
  sn_registry *reg = sn_create_registry(NULL);
  char err[256];
  ck_assert_msg(sn_registry_add_type(reg, &probe, err, sizeof err) == SN_OK, "%s", err);
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  sn_body_id b = sn_create_body(w, &bd);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.draw_probe";
  cd.bodies[0] = b;
  ck_assert(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)));
  g_locked_world = w;
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(g_locked_result, SN_ERR_WORLD_LOCKED);
  sn_debug_draw d = sn_default_debug_draw();
  ck_assert_int_eq(sn_world_draw(w, &d), SN_OK); /* and fine after the step */
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("draw");
  TCase *tc = tcase_create("draw");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_shapes_by_type);
  tcase_add_test(tc, test_no_flags_draw_nothing);
  tcase_add_test(tc, test_aabbs_transforms_tree);
  tcase_add_test(tc, test_joints_through_plugin);
  tcase_add_test(tc, test_constraint_forces);
  tcase_add_test(tc, test_contacts);
  tcase_add_test(tc, test_bounds_cull);
  tcase_add_test(tc, test_destroyed_body_not_drawn);
  tcase_add_test(tc, test_all_flags_null_callbacks);
  tcase_add_test(tc, test_draw_changes_nothing);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_locked_during_step);
  suite_add_tcase(s, tc);
  return s;
}
