/* Enumeration and read-back getters (engine/src/world/enumerate.c): bodies and
 * constraints listed in slot order without the destroyed ones, defs that
 * recreate world, body and shape bit for bit, constraint type/bodies/break
 * force/collide flag, and every getter's answer to stale, foreign and null
 * handles. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#include "joint_support.h"

static bool same_body(sn_body_id a, sn_body_id b) {
  return a.index1 == b.index1 && a.world_tag == b.world_tag && a.generation == b.generation;
}

static bool same_constraint(sn_constraint_id a, sn_constraint_id b) {
  return a.index1 == b.index1 && a.world_tag == b.world_tag && a.generation == b.generation;
}

static bool same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

START_TEST(test_bodies_in_slot_order) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id ids[5];
  for (int i = 0; i < 5; ++i) ids[i] = js_dynamic(w, (sn_vec2){(float)i, 0.0f}, 0.0f);
  ck_assert_int_eq(sn_world_get_body_count(w), 5);
  sn_body_id out[8];
  ck_assert_int_eq(sn_world_get_bodies(w, out, 8), 5);
  for (int i = 0; i < 5; ++i) ck_assert(same_body(out[i], ids[i]));
  /* capacity limits what is written */
  ck_assert_int_eq(sn_world_get_bodies(w, out, 2), 2);
  ck_assert(same_body(out[1], ids[1]));
  ck_assert_int_eq(sn_world_get_bodies(w, NULL, 8), 0);
  ck_assert_int_eq(sn_world_get_bodies(w, out, 0), 0);
  /* a destroyed body is not listed; its slot is reused with a new generation */
  ck_assert_int_eq(sn_destroy_body(w, ids[2]), SN_OK);
  ck_assert_int_eq(sn_world_get_body_count(w), 4);
  ck_assert_int_eq(sn_world_get_bodies(w, out, 8), 4);
  ck_assert(same_body(out[2], ids[3]));
  sn_body_id again = js_dynamic(w, (sn_vec2){9.0f, 0.0f}, 0.0f);
  ck_assert_int_eq(sn_world_get_bodies(w, out, 8), 5);
  ck_assert(same_body(out[2], again));
  ck_assert(!same_body(out[2], ids[2]));
  sn_destroy_world(w);
  ck_assert_int_eq(sn_world_get_body_count(NULL), 0);
  ck_assert_int_eq(sn_world_get_bodies(NULL, out, 8), 0);
}
END_TEST

START_TEST(test_world_def_round_trip) {
  sn_registry *r = sn_create_registry(NULL);
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.25f, -9.81f};
  wd.substeps = 5;
  wd.position_iterations = 3;
  wd.soft_iterations = 4;
  wd.enable_sleep = false;
  wd.contact_hertz = 45.0f;
  wd.contact_damping_ratio = 3.0f;
  wd.contact_push_max_velocity = 2.0f;
  wd.contact_reuse_distance = 0.001f;
  wd.restitution_threshold = 0.5f;
  wd.maximum_linear_speed = 100.0f;
  wd.enable_continuous = false;
  wd.registry = r;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_int_eq(sn_world_set_hit_event_threshold(w, 2.5f), SN_OK);
  sn_world_def got;
  memset(&got, 0xff, sizeof got);
  ck_assert_int_eq(sn_world_get_def(w, &got), SN_OK);
  ck_assert_int_eq(got.cookie, SN_DEF_COOKIE);
  ck_assert(same_bits(&got.gravity, &wd.gravity, sizeof wd.gravity));
  ck_assert_int_eq(got.substeps, 5);
  ck_assert_int_eq(got.position_iterations, 3);
  ck_assert_int_eq(got.soft_iterations, 4);
  ck_assert(!got.enable_sleep);
  ck_assert(!got.enable_continuous);
  ck_assert(got.contact_hertz == 45.0f && got.contact_damping_ratio == 3.0f);
  ck_assert(got.contact_push_max_velocity == 2.0f && got.restitution_threshold == 0.5f);
  ck_assert(got.maximum_linear_speed == 100.0f);
  ck_assert(got.contact_reuse_distance == 0.001f);
  ck_assert_ptr_eq(got.registry, r);
  ck_assert(got.allocator.alloc == NULL && got.allocator.free == NULL);
  ck_assert(sn_world_get_hit_event_threshold(w) == 2.5f);
  ck_assert_ptr_eq(sn_world_get_registry(w), r);
  /* the def makes a world that reports the same def */
  sn_world *w2 = sn_create_world(&got, NULL);
  ck_assert_ptr_nonnull(w2);
  sn_world_def got2;
  ck_assert_int_eq(sn_world_get_def(w2, &got2), SN_OK);
  ck_assert(same_bits(&got2.gravity, &got.gravity, sizeof got.gravity) && got2.substeps == got.substeps);
  ck_assert_int_eq(sn_world_get_def(w, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_get_def(NULL, &got), SN_ERR_NULL);
  ck_assert_ptr_null(sn_world_get_registry(NULL));
  sn_destroy_world(w2);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_body_def_round_trip) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){1.5f, -2.25f};
  bd.linear_velocity = (sn_vec2){3.0f, 0.125f};
  bd.angular_velocity = -0.75f;
  bd.linear_damping = 0.1f;
  bd.angular_damping = 0.2f;
  bd.gravity_scale = -0.5f;
  bd.is_bullet = true;
  bd.enable_sleep = false;
  bd.fixed_rotation = false;
  bd.user_data = &bd;
  /* the angle comes back such that sn_make_rot reproduces the rotation */
  for (int k = -1900; k <= 1900; ++k) { /* up to +-15 rad */
    bd.angle = (float)k * 0.0079f;
    sn_body_id b = sn_create_body(w, &bd);
    sn_body_def got;
    ck_assert_int_eq(sn_body_get_def(w, b, &got), SN_OK);
    sn_rot q = sn_body_get_rotation(w, b), q2 = sn_make_rot(got.angle);
    ck_assert_msg(same_bits(&q, &q2, sizeof q), "angle %.9g came back as %.9g", (double)bd.angle, (double)got.angle);
    ck_assert_int_eq(got.cookie, SN_DEF_COOKIE);
    ck_assert_int_eq(got.type, SN_BODY_DYNAMIC);
    ck_assert(same_bits(&got.position, &bd.position, sizeof bd.position));
    ck_assert(same_bits(&got.linear_velocity, &bd.linear_velocity, sizeof bd.linear_velocity));
    ck_assert(got.angular_velocity == bd.angular_velocity);
    ck_assert(got.linear_damping == 0.1f && got.angular_damping == 0.2f && got.gravity_scale == -0.5f);
    ck_assert(got.is_bullet && !got.enable_sleep && !got.fixed_rotation && got.is_awake);
    ck_assert_ptr_eq(got.user_data, &bd);
    /* and recreates the same body */
    sn_body_id c = sn_create_body(w, &got);
    sn_transform xa = sn_body_get_transform(w, b), xc = sn_body_get_transform(w, c);
    ck_assert(same_bits(&xa, &xc, sizeof xa));
    sn_destroy_body(w, b);
    sn_destroy_body(w, c);
  }
  sn_body_def fixed = sn_default_body_def();
  fixed.type = SN_BODY_KINEMATIC;
  fixed.fixed_rotation = true;
  sn_body_id f = sn_create_body(w, &fixed);
  sn_body_def got;
  ck_assert_int_eq(sn_body_get_def(w, f, &got), SN_OK);
  ck_assert(got.fixed_rotation && got.type == SN_BODY_KINEMATIC && got.angle == 0.0f);
  /* stale, foreign, null: the code, and *out untouched */
  ck_assert_int_eq(sn_destroy_body(w, f), SN_OK);
  memset(&got, 0x5a, sizeof got);
  sn_body_def before = got;
  ck_assert_int_eq(sn_body_get_def(w, f, &got), SN_ERR_STALE_ID);
  ck_assert(same_bits(&got, &before, sizeof got));
  sn_body_id foreign = f;
  foreign.world_tag ^= 0x100;
  ck_assert_int_eq(sn_body_get_def(w, foreign, &got), SN_ERR_FOREIGN_ID);
  ck_assert_int_eq(sn_body_get_def(w, SN_NULL_BODY, &got), SN_ERR_STALE_ID);
  sn_body_id live = js_dynamic(w, (sn_vec2){0.0f, 0.0f}, 0.0f);
  ck_assert_int_eq(sn_body_get_def(w, live, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_body_get_def(NULL, live, &got), SN_ERR_NULL);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_shape_def_round_trip) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id b = js_dynamic(w, (sn_vec2){0.0f, 0.0f}, 0.0f);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 2.5f;
  sd.friction = 0.3f;
  sd.restitution = 0.7f;
  sd.enable_contact_events = false;
  sd.enable_hit_events = true;
  sd.category_bits = 0x8000000000000001ull;
  sd.mask_bits = 0x00ff00ff00ff00ffull;
  sd.user_data = &sd;
  sn_circle c = {{0.5f, 0.25f}, 0.75f};
  sn_shape_id s = sn_create_circle_shape(w, b, &sd, &c);
  sn_shape_def got;
  ck_assert_int_eq(sn_shape_get_def(w, s, &got), SN_OK);
  ck_assert_int_eq(got.cookie, SN_DEF_COOKIE);
  ck_assert(got.density == 2.5f && got.friction == 0.3f && got.restitution == 0.7f);
  ck_assert(!got.enable_contact_events && got.enable_hit_events && !got.is_sensor);
  ck_assert(got.category_bits == sd.category_bits && got.mask_bits == sd.mask_bits);
  ck_assert_ptr_eq(got.user_data, &sd);
  ck_assert_int_eq(sn_destroy_shape(w, s, true), SN_OK);
  memset(&got, 0x5a, sizeof got);
  sn_shape_def before = got;
  ck_assert_int_eq(sn_shape_get_def(w, s, &got), SN_ERR_STALE_ID);
  ck_assert(same_bits(&got, &before, sizeof got));
  ck_assert_int_eq(sn_shape_get_def(w, SN_NULL_SHAPE, &got), SN_ERR_STALE_ID);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_constraint_getters) {
  const char *names[] = {"revolute", "distance", NULL};
  sn_registry *r = js_registry(names);
  sn_world *w = js_world(r);
  sn_body_id ground = js_ground(w);
  sn_body_id a = js_ball(w, (sn_vec2){0.0f, 2.0f}, 0.25f, 1.0f);
  sn_body_id b = js_ball(w, (sn_vec2){1.0f, 2.0f}, 0.25f, 1.0f);
  ck_assert_int_eq(sn_world_get_constraint_count(w), 0);
  sn_constraint_id out[4];
  ck_assert_int_eq(sn_world_get_constraints(w, out, 4), 0);

  sn_param_value pv[1] = {{"anchor", 0.0, 3.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "revolute";
  cd.bodies[0] = ground;
  cd.bodies[1] = a;
  cd.params = pv;
  cd.param_count = 1;
  cd.break_force = 250.0f;
  sn_constraint_id k1 = sn_create_constraint(w, &cd);
  ck_assert(sn_constraint_is_valid(w, k1));
  sn_constraint_def dd = sn_default_constraint_def();
  dd.type = "distance";
  dd.bodies[0] = a;
  dd.bodies[1] = b;
  dd.collide_connected = true;
  sn_constraint_id k2 = sn_create_constraint(w, &dd);
  ck_assert(sn_constraint_is_valid(w, k2));

  ck_assert_int_eq(sn_world_get_constraint_count(w), 2);
  ck_assert_int_eq(sn_world_get_constraints(w, out, 4), 2);
  ck_assert(same_constraint(out[0], k1) && same_constraint(out[1], k2));
  ck_assert_int_eq(sn_world_get_constraints(w, out, 1), 1);
  ck_assert_str_eq(sn_constraint_get_type_name(w, k1), "revolute");
  ck_assert_str_eq(sn_constraint_get_type(w, k2)->name, "distance");
  ck_assert_ptr_eq(sn_constraint_get_type(w, k1), sn_registry_find_type(r, "revolute"));
  sn_body_id jb[SN_MAX_CONSTRAINT_BODIES];
  ck_assert_int_eq(sn_constraint_get_bodies(w, k1, jb), 2);
  ck_assert(same_body(jb[0], ground) && same_body(jb[1], a));
  ck_assert_int_eq(sn_constraint_get_bodies(w, k2, jb), 2);
  ck_assert(same_body(jb[0], a) && same_body(jb[1], b));
  ck_assert(sn_constraint_get_break_force(w, k1) == 250.0f);
  ck_assert(sn_constraint_get_break_force(w, k2) == 0.0f);
  ck_assert(!sn_constraint_get_collide_connected(w, k1));
  ck_assert(sn_constraint_get_collide_connected(w, k2));

  /* stale: every getter answers "nothing" and records why */
  ck_assert_int_eq(sn_destroy_constraint(w, k1), SN_OK);
  ck_assert_int_eq(sn_world_get_constraint_count(w), 1);
  ck_assert_int_eq(sn_world_get_constraints(w, out, 4), 1);
  ck_assert(same_constraint(out[0], k2));
  ck_assert_ptr_null(sn_constraint_get_type(w, k1));
  ck_assert_ptr_null(sn_constraint_get_type_name(w, k1));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "destroyed"));
  jb[0] = a;
  ck_assert_int_eq(sn_constraint_get_bodies(w, k1, jb), 0);
  ck_assert(same_body(jb[0], a)); /* untouched */
  ck_assert(sn_constraint_get_break_force(w, k1) == 0.0f);
  ck_assert(!sn_constraint_get_collide_connected(w, k1));
  sn_constraint_id foreign = k2;
  foreign.world_tag ^= 0x100;
  ck_assert_ptr_null(sn_constraint_get_type(w, foreign));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "does not belong"));
  ck_assert_ptr_null(sn_constraint_get_type(w, SN_NULL_CONSTRAINT));
  ck_assert_int_eq(sn_constraint_get_bodies(w, k2, NULL), 0);
  ck_assert_ptr_null(sn_constraint_get_type(NULL, k2));
  /* destroying a body takes its constraints with it, and out of the list */
  ck_assert_int_eq(sn_destroy_body(w, b), SN_OK);
  ck_assert_int_eq(sn_world_get_constraint_count(w), 0);
  ck_assert_int_eq(sn_world_get_constraints(w, out, 4), 0);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("enumerate");
  TCase *tc = tcase_create("getters");
  tcase_add_test(tc, test_bodies_in_slot_order);
  tcase_add_test(tc, test_world_def_round_trip);
  tcase_add_test(tc, test_body_def_round_trip);
  tcase_add_test(tc, test_shape_def_round_trip);
  tcase_add_test(tc, test_constraint_getters);
  suite_add_tcase(s, tc);
  return s;
}
