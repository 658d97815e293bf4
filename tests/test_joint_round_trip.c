/* Springs, targets and the filter, pulley, gear, rotary_limit and ratchet
 * joints survive snapshots and scene files. A world with one of each (the
 * revolute, prismatic and wheel with springs and targets set at run time),
 * stepped 90 times:
 * - snapshot: the restored world has every parameter and every published
 *   state bit for bit, and steps on bit for bit with the original (the
 *   instances, with the gear's and ratchet's angles tracked through turns,
 *   are saved as they are);
 * - scene file: the reloaded world exports the same definitions bit for bit
 *   (the run-time values are saved), the saved text is a fixed point, and
 *   the angle-like states come back bit for bit (the gear's error, the
 *   rotary limit's and ratchet's angles through turns: their export pins
 *   them in phase, angle_offset and the ratchet's pinned tooth). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "scene_support.h"
#include "sinew/scene_file.h"

static const char *const plugins[] = {"revolute", "prismatic",    "wheel",   "filter", "pulley",
                                      "gear",     "rotary_limit", "ratchet", NULL};

typedef struct rig {
  sn_world *w;
  sn_scene_names *names;
} rig;

static sn_constraint_id named(rig *r, const char *name, const char *type, sn_body_id a, sn_body_id b,
                              const sn_param_value *v, int32_t n) {
  sn_constraint_id k = js_joint(r->w, type, a, b, v, n);
  ck_assert_msg(sn_constraint_is_valid(r->w, k), "%s: %s", name, sn_world_last_error(r->w));
  ck_assert_int_eq(sn_scene_names_set_constraint(r->names, k, name), SN_SCENE_OK);
  return k;
}

static sn_body_id named_body(rig *r, const char *name, sn_body_id b) {
  ck_assert_int_eq(sn_scene_names_set_body(r->names, b, name), SN_SCENE_OK);
  return b;
}

static rig build(const sn_registry *reg) {
  rig r;
  r.w = js_world(reg);
  r.names = sn_create_scene_names();
  sn_world *w = r.w;
  sn_body_id g = named_body(&r, "ground", js_ground(w));
  /* a spring-loaded arm */
  sn_body_id arm = named_body(&r, "arm", js_box(w, (sn_vec2){1.0f, 5.0f}, 0.0f, 1.0f, 0.1f, (sn_vec2){0, 0}, 1.0f));
  sn_constraint_id hinge = named(&r, "hinge", "revolute", g, arm, (sn_param_value[]){{"anchor", 0.0, 5.0}}, 1);
  ck_assert_int_eq(sn_constraint_set_param(w, hinge, "enable_spring", 1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, hinge, "hertz", 2.0, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, hinge, "damping_ratio", 0.1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, hinge, "target_angle", 0.7, 0), SN_OK);
  /* a sprung slider and a wheel with a raised rest */
  sn_body_id slider = named_body(&r, "slider", js_box(w, (sn_vec2){4, 5}, 0.2f, 0.3f, 0.2f, (sn_vec2){0, 0}, 1.0f));
  sn_constraint_id slide =
      named(&r, "slide", "prismatic", g, slider, (sn_param_value[]){{"anchor", 4.0, 5.0}, {"axis", 1.0, 1.0}}, 2);
  ck_assert_int_eq(sn_constraint_set_param(w, slide, "enable_spring", 1, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, slide, "hertz", 1.5, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(w, slide, "target_translation", 0.4, 0), SN_OK);
  sn_body_id tyre = named_body(&r, "tyre", js_ball(w, (sn_vec2){7, 4}, 0.3f, 1.0f));
  sn_constraint_id axle =
      named(&r, "axle", "wheel", g, tyre, (sn_param_value[]){{"anchor", 7.0, 4.0}, {"axis", 0, 1}}, 2);
  ck_assert_int_eq(sn_constraint_set_param(w, axle, "target_translation", 0.25, 0), SN_OK);
  /* two boxes passing through each other */
  sn_body_id ghost_a = named_body(&r, "ghost_a", js_box(w, (sn_vec2){10, 5}, 0, 0.3f, 0.3f, (sn_vec2){0, 0}, 1));
  sn_body_id ghost_b = named_body(&r, "ghost_b", js_box(w, (sn_vec2){10, 4.8f}, 0, 0.3f, 0.3f, (sn_vec2){0, 0}, 1));
  named(&r, "ghost", "filter", ghost_a, ghost_b, NULL, 0);
  /* an unbalanced pulley */
  sn_body_id left = named_body(&r, "left", js_box(w, (sn_vec2){13, 3}, 0, 0.2f, 0.2f, (sn_vec2){0, 0}, 1.0f));
  sn_body_id right = named_body(&r, "right", js_box(w, (sn_vec2){15, 3}, 0, 0.2f, 0.2f, (sn_vec2){0, 0}, 1.5f));
  named(&r, "rope", "pulley", left, right,
        (sn_param_value[]){{"ground_anchor_a", 13, 6},
                           {"ground_anchor_b", 15, 6},
                           {"anchor_a", 13, 3},
                           {"anchor_b", 15, 3},
                           {"ratio", 1.5, 0}},
        5);
  /* a motor-driven gear train, a limited and a ratcheted disc */
  sn_body_id drive = named_body(&r, "drive", js_ball(w, (sn_vec2){18, 5}, 0.5f, 1.0f));
  named(
      &r, "drive_pin", "revolute", g, drive,
      (sn_param_value[]){{"anchor", 18, 5}, {"enable_motor", 1, 0}, {"motor_speed", 6, 0}, {"max_motor_torque", 20, 0}},
      4);
  sn_body_id driven = named_body(&r, "driven", js_ball(w, (sn_vec2){19.5f, 5}, 1.0f, 1.0f));
  named(&r, "driven_pin", "revolute", g, driven, (sn_param_value[]){{"anchor", 19.5, 5}}, 1);
  named(&r, "mesh", "gear", drive, driven, (sn_param_value[]){{"ratio", 2.0, 0}, {"phase", 0.1, 0}}, 2);
  named(&r, "stop", "rotary_limit", drive, driven, (sn_param_value[]){{"min", -20.0, 0}, {"max", 20.0, 0}}, 2);
  named(&r, "click", "ratchet", g, drive, (sn_param_value[]){{"ratchet", 0.3, 0}, {"phase", 0.05, 0}}, 2);
  return r;
}

static void free_rig(rig *r) {
  sn_destroy_world(r->w);
  sn_destroy_scene_names(r->names);
}

/* Every parameter (with same_params) and every state of every constraint of
 * a and b: the same bits; returns the states compared. */
static int compare_constraints(sn_world *a, sn_world *b, bool same_params, const char *const *states,
                               const char *when) {
  int32_t n = sn_world_get_constraint_count(a);
  ck_assert_int_eq(sn_world_get_constraint_count(b), n);
  sn_constraint_id ka[32], kb[32];
  ck_assert_int_le(n, 32);
  sn_world_get_constraints(a, ka, 32);
  sn_world_get_constraints(b, kb, 32);
  int compared = 0;
  for (int32_t i = 0; i < n; ++i) {
    const sn_constraint_type *t = sn_constraint_get_type(a, ka[i]);
    ck_assert_str_eq(t->name, sn_constraint_get_type_name(b, kb[i]));
    for (uint32_t j = 0; same_params && j < t->param_count; ++j) {
      double xa, ya, xb, yb;
      ck_assert_int_eq(sn_constraint_get_param(a, ka[i], t->params[j].name, &xa, &ya), SN_OK);
      ck_assert_int_eq(sn_constraint_get_param(b, kb[i], t->params[j].name, &xb, &yb), SN_OK);
      ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&ya, &yb, sizeof ya), "%s: %s.%s", when, t->name,
                    t->params[j].name);
    }
    for (uint32_t j = 0; j < t->state_count; ++j) {
      bool listed = states == NULL;
      char key[128];
      snprintf(key, sizeof key, "%s.%s", t->name, t->states[j].name);
      for (int s = 0; states != NULL && states[s] != NULL; ++s) listed = listed || strcmp(states[s], key) == 0;
      if (!listed) continue;
      double xa, ya, xb, yb;
      ck_assert_int_eq(sn_constraint_get_state(a, ka[i], t->states[j].name, &xa, &ya), SN_OK);
      ck_assert_int_eq(sn_constraint_get_state(b, kb[i], t->states[j].name, &xb, &yb), SN_OK);
      ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&ya, &yb, sizeof ya), "%s: %s = %.9g, copy %.9g", when,
                    key, xa, xb);
      compared++;
    }
  }
  return compared;
}

static void assert_same_bodies(sn_world *a, sn_world *b, const char *when) {
  sn_body_id ba[32], bb[32];
  int32_t n = sn_world_get_bodies(a, ba, 32);
  ck_assert_int_eq(sn_world_get_bodies(b, bb, 32), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_transform xa = sn_body_get_transform(a, ba[i]), xb = sn_body_get_transform(b, bb[i]);
    sn_vec2 va = sn_body_get_linear_velocity(a, ba[i]), vb = sn_body_get_linear_velocity(b, bb[i]);
    float wa = sn_body_get_angular_velocity(a, ba[i]), wb = sn_body_get_angular_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&va, &vb, sizeof va) && same_bits(&wa, &wb, sizeof wa),
                  "%s: body %d", when, (int)i);
  }
}

START_TEST(test_snapshot_round_trip) {
  sn_registry *reg = js_registry(plugins);
  rig r = build(reg);
  for (int i = 0; i < 90; ++i) ck_assert_int_eq(sn_world_step(r.w, DT), SN_OK);
  /* the drive went through more than a turn: the angles are tracked */
  sn_constraint_id mesh = sn_scene_names_find_constraint(r.names, "mesh");
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(r.w, mesh, "angle_a", &x, &y), SN_OK);
  ck_assert_msg(x > 2.0 * PI, "the drive turned %g rad", x);
  size_t n = 0;
  ck_assert_int_eq(sn_world_save_snapshot(r.w, NULL, 0, &n), SN_OK);
  void *bytes = malloc(n);
  ck_assert_int_eq(sn_world_save_snapshot(r.w, bytes, n, &n), SN_OK);
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *copy = NULL;
  char err[256] = "";
  ck_assert_msg(sn_world_load_snapshot(bytes, n, &wd, &copy, err, sizeof err) == SN_OK, "%s", err);
  free(bytes);
  int states = compare_constraints(r.w, copy, true, NULL, "restored");
  ck_assert_int_ge(states, 20);
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(r.w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(copy, DT), SN_OK);
  }
  assert_same_bodies(r.w, copy, "60 steps after the restore");
  compare_constraints(r.w, copy, true, NULL, "60 steps after the restore");
  sn_destroy_world(copy);
  free_rig(&r);
  sn_destroy_registry(reg);
}
END_TEST

static char *save_or_fail(sn_world *w, const sn_scene_names *names) {
  sn_scene_error e;
  char *text = sn_scene_save_string(w, names, &e);
  ck_assert_msg(text != NULL, "save: %s", e.message);
  return text;
}

START_TEST(test_scene_round_trip) {
  sn_registry *reg = js_registry(plugins);
  rig r = build(reg);
  for (int i = 0; i < 90; ++i) ck_assert_int_eq(sn_world_step(r.w, DT), SN_OK);
  char *text = save_or_fail(r.w, r.names);
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "joints.json", &o, &s, &e) == SN_SCENE_OK, "load: %s",
                e.message);
  ck_assert_int_eq(assert_same_definitions(r.w, s.world, "reloaded"), sn_world_get_constraint_count(r.w));
  static const char *const angles[] = {"gear.error",        "rotary_limit.angle",
                                       "ratchet.angle",     "ratchet.tooth",
                                       "revolute.angle",    "prismatic.translation",
                                       "wheel.translation", "pulley.length_a",
                                       "pulley.length_b",   NULL};
  int compared = compare_constraints(r.w, s.world, false, angles, "reloaded");
  ck_assert_int_ge(compared, 10);
  /* the run-time values themselves */
  double x, y;
  sn_constraint_id hinge = sn_scene_names_find_constraint(s.names, "hinge");
  ck_assert_int_eq(sn_constraint_get_param(s.world, hinge, "target_angle", &x, &y), SN_OK);
  ck_assert(x == (double)0.7f);
  ck_assert_int_eq(sn_constraint_get_param(s.world, hinge, "enable_spring", &x, &y), SN_OK);
  ck_assert(x == 1.0);
  char *again = save_or_fail(s.world, s.names);
  ck_assert_msg(strcmp(text, again) == 0, "save -> load -> save changed the text");
  sn_scene_free_text(again);
  sn_scene_free_text(text);
  sn_scene_unload(&s);
  free_rig(&r);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joint_round_trip");
  TCase *tc = tcase_create("round_trip");
  tcase_add_test(tc, test_snapshot_round_trip);
  tcase_add_test(tc, test_scene_round_trip);
  suite_add_tcase(s, tc);
  return s;
}
