/* The Box2D v3 suite's scene files (scenes/box2d_*.json, written by
 * sinew-box2d-scene-files from bench/box2d_scenes.c): each loads with the
 * counts of the scene it was written from, and stepping the loaded world
 * gives bit for bit the state of the scene built by the library and stepped
 * the same way (the file holds the whole scene: shapes, filters, sleeping
 * bodies, velocities, joints and world settings). */
#include <check.h>
#include <string.h>

#include "test_main.h"
#include "scene_support.h"
#include "sinew/scene_file.h"

#include "scenes.h"

typedef struct file_case {
  const char *file, *scene;
  int32_t size;
  int32_t bodies, shapes, joints; /* the scene's counts (docs/benchmark.md) */
} file_case;

/* joint_grid 20 x 20: 2 x 20 x 19 joints; many_pyramids 4 x 4: 16 x 55 boxes + ground with 4 segments */
static const file_case cases[] = {
    {"box2d_joint_grid20.json", "box2d-joint_grid", 20, 400, 400, 760},
    {"box2d_large_pyramid.json", "box2d-large_pyramid", 0, 5051, 5051, 0},
    {"box2d_many_pyramids4.json", "box2d-many_pyramids", 4, 881, 884, 0},
    {"box2d_smash.json", "box2d-smash", 0, 9601, 9601, 0},
    /* the container: one loop chain of 360 segments */
    {"box2d_spinner.json", "box2d-spinner", 0, 3040, 3399, 1},
    {"box2d_tumbler.json", "box2d-tumbler", 0, 2027, 2029, 1},
};

/// Every body's pose and velocity, in the world's order, bit for bit.
static void assert_same_bodies(sn_world *a, sn_world *b, const char *file) {
  int32_t n = sn_world_get_body_count(a);
  ck_assert_int_eq(sn_world_get_body_count(b), n);
  sn_body_id *ia = malloc((size_t)n * sizeof(sn_body_id)), *ib = malloc((size_t)n * sizeof(sn_body_id));
  ck_assert(ia != NULL && ib != NULL);
  ck_assert_int_eq(sn_world_get_bodies(a, ia, n), n);
  ck_assert_int_eq(sn_world_get_bodies(b, ib, n), n);
  for (int32_t k = 0; k < n; ++k) {
    sn_transform xa = sn_body_get_transform(a, ia[k]), xb = sn_body_get_transform(b, ib[k]);
    sn_vec2 va = sn_body_get_linear_velocity(a, ia[k]), vb = sn_body_get_linear_velocity(b, ib[k]);
    float wa = sn_body_get_angular_velocity(a, ia[k]), wb = sn_body_get_angular_velocity(b, ib[k]);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&va, &vb, sizeof va) && same_bits(&wa, &wb, sizeof wa),
                  "%s: body %d differs: (%g, %g) v (%g, %g) against (%g, %g) v (%g, %g)", file, (int)k, (double)xa.p.x,
                  (double)xa.p.y, (double)va.x, (double)va.y, (double)xb.p.x, (double)xb.p.y, (double)vb.x,
                  (double)vb.y);
    ck_assert_int_eq(sn_body_is_awake(a, ia[k]), sn_body_is_awake(b, ib[k]));
  }
  free(ia);
  free(ib);
}

START_TEST(test_box2d_scene_file) {
  const file_case *c = cases + _i;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", SN_SCENES_DIR, c->file);
  sn_scene_load_options o = test_options();
  sn_loaded_scene loaded;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_file(path, &o, &loaded, &e) == SN_SCENE_OK, "%s: %s", path, e.message);
  sn_world_counters k = sn_world_get_counters(loaded.world);
  ck_assert_int_eq(k.body_count, c->bodies);
  ck_assert_int_eq(k.shape_count, c->shapes);
  ck_assert_int_eq(k.constraint_count, c->joints);

  sn_scene built;
  sn_world_def wd = sn_default_world_def();
  ck_assert_msg(sn_scene_build_def(&built, c->scene, c->size, &wd), "%s", c->scene);
  k = sn_world_get_counters(built.world);
  ck_assert_int_eq(k.body_count, c->bodies);
  ck_assert_int_eq(k.shape_count, c->shapes);
  ck_assert_int_eq(k.constraint_count, c->joints);
  ck_assert_int_eq(sn_world_get_substeps(loaded.world), sn_world_get_substeps(built.world));
  ck_assert_int_eq(sn_world_is_sleeping_enabled(loaded.world), sn_world_is_sleeping_enabled(built.world));
  assert_same_bodies(built.world, loaded.world, c->file);
  for (int i = 0; i < 3; ++i) {
    ck_assert_int_eq(sn_world_step(built.world, 1.0f / 60.0f), SN_OK);
    ck_assert_int_eq(sn_world_step(loaded.world, 1.0f / 60.0f), SN_OK);
  }
  assert_same_bodies(built.world, loaded.world, c->file);
  sn_scene_destroy(&built);
  sn_scene_unload(&loaded);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("box2d_scene_files");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_box2d_scene_file, 0, (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(s, tc);
  return s;
}
