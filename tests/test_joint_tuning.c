/* Joint tuning, the world settings joint_hertz and joint_damping_ratio:
 * what the plugins are handed (sn_step_info.joint_hertz, joint_damping_ratio:
 * by default a quarter of the substep rate and 2; a set hertz capped at that
 * quarter), their effect on a
 * shipped joint (a softer pivot drifts further), the setters' range, and the
 * settings kept by snapshots and scene files. g = (0, -10), dt = 1/60. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/scene_file.h"

/* ------------------------------------------------------------------------ */
/* A host type that records what its prepare is handed                       */

typedef struct probe_instance {
  float joint_hertz, joint_damping_ratio;
} probe_instance;

static int probe_create(const sn_constraint_create_args *args) {
  memset(args->instance, 0, sizeof(probe_instance));
  return 0;
}

static void probe_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    probe_instance *p = items[i].instance;
    p->joint_hertz = info->joint_hertz;
    p->joint_damping_ratio = info->joint_damping_ratio;
  }
}

static void probe_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}

/* the recorded values, read back as the "reaction": (hertz, damping ratio) */
static void probe_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const probe_instance *p = item->instance;
  *force = (sn_vec2){p->joint_hertz, p->joint_damping_ratio};
  *torque = 0.0f;
}

/* A one-body impulse type of the test's (no params, a 4-byte aligned
 * instance) with the given callbacks; the caller adds any others. */
static sn_constraint_type
host_type(const char *name, uint32_t instance_size, int (*create)(const sn_constraint_create_args *),
          void (*prepare)(const sn_step_info *, sn_constraint_item *, int32_t),
          void (*solve)(const sn_step_info *, sn_constraint_item *, int32_t, int),
          void (*reaction)(const sn_step_info *, const sn_constraint_item *, sn_vec2 *, float *)) {
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = name;
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 1;
  t.params_align = 4;
  t.instance_size = instance_size;
  t.instance_align = 4;
  t.create = create;
  t.prepare = prepare;
  t.solve_velocity = solve;
  t.get_reaction = reaction;
  return t;
}

/* Registers t in r (the test fails with the registry's message if it refuses). */
static void add_type(sn_registry *r, const sn_constraint_type *t) {
  char msg[256];
  ck_assert_msg(sn_registry_add_type(r, t, msg, sizeof msg) == SN_OK, "%s", msg);
}

static sn_registry *probe_registry(void) {
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(r);
  const sn_constraint_type t =
      host_type("test.probe", sizeof(probe_instance), probe_create, probe_prepare, probe_solve, probe_reaction);
  add_type(r, &t);
  return r;
}

/* What the probe was handed in the last step. */
static sn_vec2 handed(sn_world *w, sn_constraint_id probe) {
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_vec2 f;
  float t;
  ck_assert_int_eq(sn_constraint_get_reaction(w, probe, &f, &t), SN_OK);
  return f;
}

START_TEST(test_plugins_are_handed_the_settings) {
  sn_registry *r = probe_registry();
  sn_world *w = js_world(r);
  sn_constraint_id probe =
      js_joint(w, "test.probe", js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 1.0f), SN_NULL_BODY, NULL, 0);
  ck_assert(sn_constraint_is_valid(w, probe));
  /* the defaults: a quarter of the substep rate (8 substeps of 1/60 s: 120 Hz) and 2 */
  ck_assert(sn_world_get_joint_hertz(w) == 0.0f && sn_world_get_joint_damping_ratio(w) == 2.0f);
  const float quarter = 0.25f * (8.0f / DT);
  sn_vec2 h = handed(w, probe);
  ck_assert_float_eq(h.x, quarter);
  ck_assert_float_eq(h.y, 2.0f);
  /* set: handed as set, up to the quarter of the substep rate */
  ck_assert_int_eq(sn_world_set_joint_hertz(w, 30.0f), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(w, 0.7f), SN_OK);
  ck_assert(sn_world_get_joint_hertz(w) == 30.0f && sn_world_get_joint_damping_ratio(w) == 0.7f);
  h = handed(w, probe);
  ck_assert_float_eq(h.x, 30.0f);
  ck_assert_float_eq(h.y, 0.7f);
  ck_assert_int_eq(sn_world_set_joint_hertz(w, 1000.0f), SN_OK);
  ck_assert_float_eq(handed(w, probe).x, quarter);
  ck_assert_int_eq(sn_world_set_substeps(w, 2), SN_OK); /* the cap follows the substep rate */
  ck_assert_float_eq(handed(w, probe).x, 0.25f * (2.0f / DT));
  ck_assert_int_eq(sn_world_set_joint_hertz(w, 0.0f), SN_OK);
  ck_assert_float_eq(handed(w, probe).x, 0.25f * (2.0f / DT));
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A host type that records the flags of its calls                           */

typedef struct flags_instance {
  uint32_t warm, solve, relax, project; /* the OR of info->flags over the step's calls of each */
} flags_instance;

static int flags_create(const sn_constraint_create_args *args) {
  memset(args->instance, 0, sizeof(flags_instance));
  return 0;
}

static void flags_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) memset(items[i].instance, 0, sizeof(flags_instance));
}

static void flags_warm(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) ((flags_instance *)items[i].instance)->warm |= info->flags;
}

static void flags_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  for (int32_t i = 0; i < count; ++i) {
    flags_instance *f = items[i].instance;
    if (use_bias)
      f->solve |= info->flags;
    else
      f->relax |= info->flags;
  }
}

static void flags_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) ((flags_instance *)items[i].instance)->project |= info->flags;
}

/* the recorded flags as the "reaction": force (warm | solve << 8, relax |
 * project << 8) (small whole numbers: exact in a float) */
static void flags_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const flags_instance *f = item->instance;
  *force = (sn_vec2){(float)(f->warm | f->solve << 8), (float)(f->relax | f->project << 8)};
  *torque = 0.0f;
}

/* "test.flags" (with a project callback) and "test.flags_unprojected" (without). */
static sn_registry *flags_registry(void) {
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(r);
  for (int projected = 0; projected < 2; ++projected) {
    sn_constraint_type t = host_type(projected ? "test.flags" : "test.flags_unprojected", sizeof(flags_instance),
                                     flags_create, flags_prepare, flags_solve, flags_reaction);
    t.warm_start = flags_warm;
    t.project = projected ? flags_project : NULL;
    add_type(r, &t);
  }
  return r;
}

/* SN_STEP_PROJECTED (sinew/plugin.h): on the warm start, solve, relax and
 * project calls of a type the position stage projects, with plugin checks
 * too; not with position_iterations 0, nor for a type without project. */
START_TEST(test_projected_flag) {
  sn_registry *r = flags_registry();
  for (int checks = 0; checks < 2; ++checks) {
    sn_world_def wd = sn_default_world_def();
    wd.registry = r;
    wd.enable_sleep = false;
    wd.check_plugins = checks == 1;
    sn_world *w = sn_create_world(&wd, NULL);
    ck_assert_ptr_nonnull(w);
    sn_constraint_id c[2];
    for (int t = 0; t < 2; ++t) {
      c[t] = js_joint(w, t ? "test.flags" : "test.flags_unprojected",
                      js_ball(w, (sn_vec2){3.0f * (float)t, 0.0f}, 0.5f, 1.0f), SN_NULL_BODY, NULL, 0);
      ck_assert(sn_constraint_is_valid(w, c[t]));
    }
    for (int iterations = 2; iterations >= 0; iterations -= 2) {
      ck_assert_int_eq(sn_world_set_position_iterations(w, iterations), SN_OK);
      ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      for (int t = 0; t < 2; ++t) {
        sn_vec2 f;
        float torque;
        ck_assert_int_eq(sn_constraint_get_reaction(w, c[t], &f, &torque), SN_OK);
        const uint32_t warm = (uint32_t)f.x & 255u, solve = (uint32_t)f.x >> 8;
        const uint32_t relax = (uint32_t)f.y & 255u, project = (uint32_t)f.y >> 8;
        const uint32_t want = t == 1 && iterations > 0 ? SN_STEP_PROJECTED : 0u;
        ck_assert_msg((warm & SN_STEP_PROJECTED) == want && (solve & SN_STEP_PROJECTED) == want &&
                          (relax & SN_STEP_PROJECTED) == want,
                      "%s, %d position iterations, checks %d: flags warm %u, solve %u, relax %u",
                      t ? "projected" : "unprojected", iterations, checks, warm, solve, relax);
        /* project ran (and said so) only for the projected type with sweeps */
        ck_assert_uint_eq(project & SN_STEP_PROJECTED, want);
        ck_assert(want != 0u || project == 0u);
        const sn_step_info seen = {.size = sizeof(sn_step_info), .flags = relax};
        ck_assert_int_eq(sn_step_projected(&seen), want != 0u);
      }
    }
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* The setters refuse what the table refuses, with its message, and keep the value. */
START_TEST(test_setters_refuse) {
  sn_world *w = js_world(NULL);
  ck_assert_int_eq(sn_world_set_joint_hertz(w, -1.0f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(sn_world_last_error(w),
                   "SN_ERR_INVALID_ARGUMENT: joint_hertz -1 outside [0, 1e+06 (SN_MAX_CONTACT_TUNING)]");
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(w, NAN), SN_ERR_NOT_FINITE);
  ck_assert_str_eq(sn_world_last_error(w), "SN_ERR_NOT_FINITE: joint_damping_ratio must be finite");
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(w, 2e6f), SN_ERR_INVALID_ARGUMENT);
  ck_assert(sn_world_get_joint_hertz(w) == 0.0f && sn_world_get_joint_damping_ratio(w) == 2.0f);
  ck_assert_int_eq(sn_world_set_joint_hertz(NULL, 1.0f), SN_ERR_NULL);
  ck_assert(sn_world_get_joint_damping_ratio(NULL) == 0.0f);
  sn_destroy_world(w);
}
END_TEST

/* A pendulum on a revolute joint with no position stage (position_iterations
 * 0), so only the soft velocity feedback holds the pivot: the largest
 * distance (m) between the joint's two anchors over 2 s. */
static double pivot_drift(const sn_registry *r, float hertz, float damping_ratio, uint64_t *bits) {
  sn_world *w = js_world(r);
  ck_assert_int_eq(sn_world_set_position_iterations(w, 0), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_hertz(w, hertz), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(w, damping_ratio), SN_OK);
  sn_body_id ground = js_ground(w);
  sn_body_id bob = js_box(w, (sn_vec2){2.0f, 0.0f}, 0.0f, 0.25f, 0.25f, (sn_vec2){0.0f, 0.0f}, 10.0f);
  sn_param_value anchor = {"anchor", 0.0, 0.0};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", ground, bob, &anchor, 1)));
  double worst = 0.0;
  for (int i = 0; i < 120; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    sn_vec2 p = sn_body_get_world_point(w, bob, (sn_vec2){-2.0f, 0.0f}); /* the bob's anchor; the ground's is (0, 0) */
    worst = fmax(worst, hypot((double)p.x, (double)p.y));
  }
  sn_vec2 p = sn_body_get_position(w, bob);
  memcpy(bits, &p, sizeof *bits);
  sn_destroy_world(w);
  return worst;
}

START_TEST(test_soft_pivot_drifts_further) {
  static const char *const names[] = {"revolute", NULL};
  sn_registry *r = js_registry(names);
  uint64_t stiff_bits, soft_bits, loose_bits, again_bits;
  double stiff = pivot_drift(r, 0.0f, 2.0f, &stiff_bits);  /* the defaults */
  double soft = pivot_drift(r, 2.0f, 2.0f, &soft_bits);    /* 2 Hz */
  double loose = pivot_drift(r, 0.0f, 0.05f, &loose_bits); /* hardly damped */
  double again = pivot_drift(r, 0.0f, 2.0f, &again_bits);
  ck_assert_msg(stiff < 0.01, "default pivot drift %g m", stiff);
  ck_assert_msg(soft > 10.0 * stiff && soft > 0.02, "2 Hz pivot drift %g m, default %g m", soft, stiff);
  ck_assert_msg(loose_bits != stiff_bits && loose != stiff, "the damping ratio changed nothing");
  ck_assert_msg(again_bits == stiff_bits && again == stiff, "the same settings gave another motion");
  sn_destroy_registry(r);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Kept by snapshots and scene files                                         */

static sn_world *tuned_chain(const sn_registry *r, sn_body_id *last) {
  sn_world *w = js_world(r);
  ck_assert_int_eq(sn_world_set_position_iterations(w, 0), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_hertz(w, 5.0f), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(w, 0.5f), SN_OK);
  sn_body_id prev = js_ground(w);
  for (int i = 0; i < 6; ++i) {
    sn_body_id link = js_box(w, (sn_vec2){0.5f + (float)i, 4.0f}, 0.0f, 0.5f, 0.1f, (sn_vec2){0.0f, 0.0f}, 1.0f);
    sn_param_value anchor = {"anchor", (double)i, 4.0};
    ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", prev, link, &anchor, 1)));
    prev = link;
  }
  *last = prev;
  for (int i = 0; i < 20; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  return w;
}

START_TEST(test_kept_by_snapshots) {
  static const char *const names[] = {"revolute", NULL};
  sn_registry *r = js_registry(names);
  sn_body_id last;
  sn_world *w = tuned_chain(r, &last);
  size_t n = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &n), SN_OK);
  void *bytes = malloc(n);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, n, &n), SN_OK);
  sn_world_def def = sn_default_world_def();
  def.registry = r;
  sn_world *restored = NULL, *untuned = NULL;
  char err[256];
  ck_assert_msg(sn_world_load_snapshot(bytes, n, &def, &restored, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_msg(sn_world_load_snapshot(bytes, n, &def, &untuned, err, sizeof err) == SN_OK, "%s", err);
  ck_assert(sn_world_get_joint_hertz(restored) == 5.0f && sn_world_get_joint_damping_ratio(restored) == 0.5f);
  ck_assert_int_eq(sn_world_set_joint_hertz(untuned, 0.0f), SN_OK);
  ck_assert_int_eq(sn_world_set_joint_damping_ratio(untuned, 2.0f), SN_OK);
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(restored, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(untuned, DT), SN_OK);
  }
  sn_vec2 a = sn_body_get_position(w, last), b = sn_body_get_position(restored, last),
          c = sn_body_get_position(untuned, last);
  ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "the restored world moved otherwise");
  ck_assert_msg(memcmp(&a, &c, sizeof a) != 0, "the joint settings made no difference");
  free(bytes);
  sn_destroy_world(untuned);
  sn_destroy_world(restored);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_kept_by_scene_files) {
  static const char *const names[] = {"revolute", NULL};
  sn_registry *r = js_registry(names);
  sn_body_id last;
  sn_world *w = tuned_chain(r, &last);
  sn_scene_error e;
  char *text = sn_scene_save_string(w, NULL, &e);
  ck_assert_msg(text != NULL, "%s", e.message);
  ck_assert_ptr_nonnull(strstr(text, "\"joint_hertz\": 5, \"joint_damping_ratio\": 0.5}"));
  sn_scene_load_options o = sn_default_scene_load_options();
  o.registry = r;
  sn_loaded_scene s;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "tuned.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert(sn_world_get_joint_hertz(s.world) == 5.0f && sn_world_get_joint_damping_ratio(s.world) == 0.5f);
  sn_scene_free_text(text);
  sn_scene_unload(&s);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joint_tuning");
  TCase *tc = tcase_create("joint_tuning");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_plugins_are_handed_the_settings);
  tcase_add_test(tc, test_setters_refuse);
  tcase_add_test(tc, test_projected_flag);
  tcase_add_test(tc, test_soft_pivot_drifts_further);
  tcase_add_test(tc, test_kept_by_snapshots);
  tcase_add_test(tc, test_kept_by_scene_files);
  suite_add_tcase(s, tc);
  return s;
}
