/* Types registered without a file. The shipped types linked in
 * (libsinew_plugins.a, sn_registry_add_shipped): all seventeen registered with
 * the same checks as loaded files, adding them twice is a no-op, one plugin
 * by name, and a linked-in entry of another ABI is refused. Host types
 * (sn_registry_add_type) go through the same validation. A world using
 * joints and soft bodies steps bit for bit as with the loaded plugin files
 * (the part test_static_plugins.plugin_files); a build without file loading
 * refuses to load one (the part test_static_plugins.no_file_loading). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "shipped.h"
#include "sinew/plugin.h"
#include "sinew/plugins_static.h"
#include "sinew/sinew.h"

SN_DECLARE_STATIC_PLUGIN(revolute);

static const char *const shipped[] = {"revolute", "prismatic",     "wheel",     "motor",     "mouse",       "distance",
                                      "weld",     "xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach"};

/* A pendulum of five boxes on revolute joints, a welded pair, a jelly ring
 * and a rope attached to a box: every shipped kind of solve (impulse,
 * projection, XPBD batched, attach). Returns the bodies' and particles'
 * final positions and velocities, packed. */
static float *run(sn_registry *r, int steps, size_t *count) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon floor_box;
  sn_make_offset_box(20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &floor_box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &floor_box);
  sn_body_id prev = ground;
  sn_body_id links[5];
  for (int i = 0; i < 5; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){0.5f + (float)i, 8.0f};
    links[i] = sn_create_body(w, &bd);
    sn_polygon p;
    sn_make_box(0.5f, 0.1f, &p);
    sn_create_polygon_shape(w, links[i], &sd, &p);
    sn_param_value v[] = {{"anchor", (double)i, 8.0}};
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "revolute";
    cd.bodies[0] = prev;
    cd.bodies[1] = links[i];
    cd.params = v;
    cd.param_count = 1;
    ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)), "%s", sn_world_last_error(w));
    prev = links[i];
  }
  sn_constraint_def weld = sn_default_constraint_def();
  weld.type = "weld";
  weld.bodies[0] = links[3];
  weld.bodies[1] = links[4];
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &weld)), "%s", sn_world_last_error(w));
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){-3.0f, 2.0f};
  ck_assert(sn_soft_body_is_valid(w, sn_create_ring(w, &ring)));
  sn_rope_def rope = sn_default_rope_def();
  rope.start = (sn_vec2){-8.0f, 6.0f};
  rope.end = (sn_vec2){-5.0f, 6.0f};
  rope.count = 12;
  rope.pin_start = true;
  sn_soft_body_id rope_id = sn_create_rope(w, &rope);
  ck_assert(sn_soft_body_is_valid(w, rope_id));
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){-5.0f, 5.6f};
  sn_body_id weight = sn_create_body(w, &bd);
  sn_polygon p;
  sn_make_box(0.3f, 0.3f, &p);
  sn_create_polygon_shape(w, weight, &sd, &p);
  sn_particle_id end[12];
  ck_assert_int_eq(sn_soft_body_get_particles(w, rope_id, end, 12), 12);
  sn_constraint_def at = sn_default_constraint_def();
  at.type = "attach";
  at.bodies[0] = weight;
  at.particles = end + 11;
  at.particle_count = 1;
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &at)), "%s", sn_world_last_error(w));
  for (int i = 0; i < steps; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  int32_t nb = sn_world_get_body_count(w), np = sn_world_get_counters(w).particle_count;
  sn_body_id *bodies = malloc((size_t)nb * sizeof *bodies);
  ck_assert_ptr_nonnull(bodies);
  nb = sn_world_get_bodies(w, bodies, nb);
  float *out = malloc((size_t)(nb + np) * 4 * sizeof(float));
  ck_assert_ptr_nonnull(out);
  size_t n = 0;
  for (int32_t i = 0; i < nb; ++i) {
    sn_vec2 x = sn_body_get_position(w, bodies[i]), v = sn_body_get_linear_velocity(w, bodies[i]);
    out[n++] = x.x, out[n++] = x.y, out[n++] = v.x, out[n++] = v.y;
  }
  sn_soft_body_id softs[8];
  int32_t ns = sn_world_get_soft_bodies(w, softs, 8);
  for (int32_t k = 0; k < ns; ++k) {
    sn_particle_id ps[64];
    int32_t c = sn_soft_body_get_particles(w, softs[k], ps, 64);
    for (int32_t i = 0; i < c; ++i) {
      sn_vec2 x = sn_particle_get_position(w, ps[i]), v = sn_particle_get_velocity(w, ps[i]);
      out[n++] = x.x, out[n++] = x.y, out[n++] = v.x, out[n++] = v.y;
    }
  }
  free(bodies);
  sn_destroy_world(w);
  *count = n;
  return out;
}

START_TEST(test_shipped_linked_in) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512];
  ck_assert_msg(sn_registry_add_shipped(r, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(sn_registry_get_type_count(r), 17);
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; ++i) {
    ck_assert_msg(sn_registry_find_type(r, shipped[i]) != NULL, "no type %s", shipped[i]);
    const char *origin = sn_registry_get_type_origin(r, shipped[i]);
    ck_assert_msg(origin != NULL && strstr(origin, "linked-in plugin") != NULL, "origin of %s: %s", shipped[i],
                  origin ? origin : "(null)");
  }
  /* twice: nothing new */
  ck_assert_int_eq(sn_registry_add_shipped(r, err, sizeof err), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 17);
  ck_assert_int_eq(sn_registry_add_static(r, &sn_plugin_entry_revolute, err, sizeof err), SN_OK);
  ck_assert_msg(strstr(err, "already registered") != NULL, "%s", err);
  size_t n_static = 0;
  float *linked = run(r, 120, &n_static);
  ck_assert_uint_gt(n_static, 100);
  free(linked);
  sn_destroy_registry(r);
}
END_TEST

/* The same world on the linked-in types and on the loaded plugin files: the
 * same bits. */
START_TEST(test_linked_in_same_as_files) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512];
  ck_assert_msg(sn_registry_add_shipped(r, err, sizeof err) == SN_OK, "%s", err);
  size_t n_static = 0;
  float *linked = run(r, 120, &n_static);
  ck_assert_uint_gt(n_static, 100);
  sn_registry *files = sn_create_registry(NULL);
  ck_assert_int_eq(sn_registry_load_directory(files, SN_PLUGIN_DIR, NULL, NULL), SN_OK);
  size_t n_files = 0;
  float *loaded = run(files, 120, &n_files);
  ck_assert_uint_eq(n_files, n_static);
  ck_assert_msg(memcmp(loaded, linked, n_static * sizeof(float)) == 0, "linked-in and loaded plugins differ");
  free(loaded);
  free(linked);
  sn_destroy_registry(files);
  sn_destroy_registry(r);
}
END_TEST

/* A build without file loading loads no file, nor a folder, and says to
 * register linked-in plugins instead. */
START_TEST(test_no_file_loaded) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512];
  ck_assert_msg(sn_registry_add_shipped(r, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(sn_registry_load_plugin(r, SN_PLUGIN_DIR "/revolute.so", err, sizeof err), SN_ERR_PLUGIN_OPEN);
  ck_assert_msg(strstr(err, "sn_registry_add_static") != NULL, "%s", err);
  ck_assert_int_eq(sn_registry_load_directory(r, SN_PLUGIN_DIR, NULL, NULL), SN_ERR_PLUGIN_OPEN);
  ck_assert_int_eq(sn_registry_get_type_count(r), 17);
  sn_destroy_registry(r);
}
END_TEST

/* One shipped plugin by its name: only its types; again a no-op; an unknown
 * name is refused and the message lists the shipped names. */
START_TEST(test_shipped_plugin_by_name) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512];
  ck_assert_msg(sn_registry_add_shipped_plugin(r, "xpbd_area", err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  ck_assert_ptr_nonnull(sn_registry_find_type(r, "xpbd_area"));
  ck_assert_str_eq(sn_registry_get_type_origin(r, "xpbd_area"), "linked-in plugin sinew.xpbd_area");
  ck_assert_int_eq(sn_registry_add_shipped_plugin(r, "xpbd_area", err, sizeof err), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  ck_assert_int_eq(sn_registry_add_shipped_plugin(r, "revolute.so", err, sizeof err), SN_ERR_NOT_FOUND);
  ck_assert_msg(strstr(err, "no shipped plugin \"revolute.so\"") != NULL && strstr(err, "xpbd_tether, attach") != NULL,
                "%s", err);
  ck_assert_int_eq(sn_registry_add_shipped_plugin(r, NULL, err, sizeof err), SN_ERR_NULL);
  ck_assert_int_eq(sn_registry_add_shipped_plugin(NULL, "revolute", err, sizeof err), SN_ERR_NULL);
  /* the rest after it: the one already there is skipped */
  ck_assert_msg(sn_registry_add_shipped(r, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(sn_registry_get_type_count(r), 17);
  sn_destroy_registry(r);
}
END_TEST

/* A linked-in entry goes through the loader's checks: another ABI major, a
 * newer minor or another fingerprint is refused and registers nothing. */
START_TEST(test_static_entry_checked) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512];
  sn_plugin_entry bad = sn_plugin_entry_revolute;
  bad.abi_major = SN_PLUGIN_ABI_MAJOR + 1;
  ck_assert_int_eq(sn_registry_add_static(r, &bad, err, sizeof err), SN_ERR_PLUGIN_ABI_MAJOR);
  ck_assert_msg(strstr(err, "linked-in plugin sinew.revolute") != NULL, "%s", err);
  bad = sn_plugin_entry_revolute;
  bad.abi_minor = SN_PLUGIN_ABI_MINOR + 1;
  ck_assert_int_eq(sn_registry_add_static(r, &bad, err, sizeof err), SN_ERR_PLUGIN_TOO_NEW);
  bad = sn_plugin_entry_revolute;
  bad.fingerprint ^= 1u;
  ck_assert_int_eq(sn_registry_add_static(r, &bad, err, sizeof err), SN_ERR_PLUGIN_FINGERPRINT);
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  ck_assert_int_eq(sn_registry_add_static(r, NULL, err, sizeof err), SN_ERR_NULL);
  ck_assert_int_eq(sn_registry_add_static(NULL, &sn_plugin_entry_revolute, err, sizeof err), SN_ERR_NULL);
  sn_destroy_registry(r);
}
END_TEST

/* Host-registered types go through the same validation. */
static int host_create(const sn_constraint_create_args *args) {
  (void)args;
  return 0;
}
static void host_solve_position(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

static void host_begin_particles(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  (void)info, (void)batch, (void)begin, (void)end;
}

START_TEST(test_host_types_validated) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[256];
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "host.rope";
  t.flags = SN_CONSTRAINT_XPBD;
  t.body_count = 2;
  t.params_align = t.instance_align = 4;
  t.create = host_create;
  t.solve_position = host_solve_position;
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_OK);
  ck_assert_str_eq(sn_registry_get_type_origin(r, "host.rope"), "<host>");
  sn_constraint_type bad = t;
  bad.name = "Host Rope";
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(msg, "[a-z0-9._-]") != NULL, "%s", msg);
  bad = t;
  bad.name = "host.other";
  bad.instance_align = 3;
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  bad = t;
  bad.name = "host.other";
  bad.body_count = 3;
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_ERR_PLUGIN_DUPLICATE);
  /* the substep start hooks: begin_particles needs begin_position and a
   * batched solve (here neither) */
  bad = t;
  bad.name = "host.other";
  bad.begin_particles = host_begin_particles;
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(msg, "begin_particles needs begin_position and solve_particles") != NULL, "%s", msg);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("static_plugins");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_shipped_linked_in);
  tcase_add_test(tc, test_shipped_plugin_by_name);
  tcase_add_test(tc, test_static_entry_checked);
  tcase_add_test(tc, test_host_types_validated);
  suite_add_tcase(s, tc);
  TCase *files = tcase_create("plugin files");
  tcase_set_timeout(files, 120);
  tcase_add_test(files, test_linked_in_same_as_files);
  sn_test_add_part(&sn_need_plugin_files, files);
  TCase *linked = tcase_create("linked in");
  tcase_add_test(linked, test_no_file_loaded);
  sn_test_add_part(&sn_need_no_file_loading, linked);
  return s;
}
