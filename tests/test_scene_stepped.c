/* A world saved after stepping reloads with the constraints it had.
 *
 * Joints keep what create() derived from the poses at creation (local
 * anchors, reference angle, rest lengths and areas); the scene writer saves
 * each constraint's exported params (sn_constraint_export_params), which
 * pin that definition, so a world whose bodies moved and whose jelly
 * deformed comes back with the same joints and rest shapes rather than
 * joints re-anchored where the bodies now are and a jelly whose rest shape
 * is its squashed one.
 *
 * - export: the engine call (errors, a type without the callback, a plugin
 *   struct that ends before it, a callback that fails or writes out of
 *   range) and each shipped plugin's pinning parameters (pinned recreation
 *   is the original instance, bit for bit, from any poses);
 * - stepped: every shipped joint type and a jelly ring and a rope tied to a
 *   box, stepped 120 times, saved and loaded: same state bits, same
 *   exported definitions, the saved text a fixed point, two loads step
 *   identically, joint errors and rest values as before the save; and the
 *   same file without the pinning parameters (joints and rest shapes made
 *   again from the saved poses) gives another world. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "scene_support.h"
#include "sinew/scene_file.h"
#include "sinew/soft.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

static int32_t param_index(const sn_constraint_type *t, const char *name) {
  for (uint32_t j = 0; j < t->param_count; ++j) {
    if (strcmp(t->params[j].name, name) == 0) return (int32_t)j;
  }
  ck_abort_msg("%s has no parameter %s", t->name, name);
  return -1;
}

/// The exported value of a parameter, by name.
static sn_vec2 exported(sn_world *w, sn_constraint_id k, const char *name) {
  double x, y;
  exported_param(w, k, (uint32_t)param_index(sn_constraint_get_type(w, k), name), &x, &y);
  return (sn_vec2){(float)x, (float)y};
}

/// Every exported parameter of k as name/value pairs (for sn_constraint_def);
/// with unpinned, "pinned" is 0 (the definition without its pinning: made
/// again from the current poses).
static int32_t exported_values(sn_world *w, sn_constraint_id k, sn_param_value *out, bool unpinned) {
  const sn_constraint_type *t = sn_constraint_get_type(w, k);
  for (uint32_t j = 0; j < t->param_count; ++j) {
    double x, y;
    exported_param(w, k, j, &x, &y);
    if (unpinned && strcmp(t->params[j].name, "pinned") == 0) x = 0.0;
    out[j] = (sn_param_value){t->params[j].name, x, y};
  }
  return (int32_t)t->param_count;
}

static char *save_or_fail(sn_world *w, const sn_scene_names *names) {
  sn_scene_error e;
  char *text = sn_scene_save_string(w, names, &e);
  ck_assert_msg(text != NULL, "save: %s", e.message);
  return text;
}

static void load_or_fail(const char *text, sn_loaded_scene *out) {
  sn_scene_load_options o = test_options();
  sn_scene_error e;
  sn_scene_status st = sn_scene_load_string(text, strlen(text), "stepped.json", &o, out, &e);
  ck_assert_msg(st == SN_SCENE_OK, "load: %s", e.message);
}

/// Bodies and particles: the same bits in a and b (poses, velocities).
static void assert_same_state(sn_world *a, sn_world *b, const char *when) {
  int32_t n = sn_world_get_body_count(a);
  ck_assert_int_eq(sn_world_get_body_count(b), n);
  sn_body_id *ba = malloc(((size_t)n + 1) * sizeof *ba), *bb = malloc(((size_t)n + 1) * sizeof *bb);
  ck_assert_int_eq(sn_world_get_bodies(a, ba, n), n);
  ck_assert_int_eq(sn_world_get_bodies(b, bb, n), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_transform xa = sn_body_get_transform(a, ba[i]), xb = sn_body_get_transform(b, bb[i]);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa), "%s: body %d pose", when, (int)i);
    sn_vec2 ca = sn_body_get_world_center_of_mass(a, ba[i]), cb = sn_body_get_world_center_of_mass(b, bb[i]);
    ck_assert_msg(same_bits(&ca, &cb, sizeof ca), "%s: body %d centre of mass", when, (int)i);
    sn_vec2 va = sn_body_get_linear_velocity(a, ba[i]), vb = sn_body_get_linear_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&va, &vb, sizeof va), "%s: body %d velocity", when, (int)i);
    float wa = sn_body_get_angular_velocity(a, ba[i]), wb = sn_body_get_angular_velocity(b, bb[i]);
    ck_assert_msg(same_bits(&wa, &wb, sizeof wa), "%s: body %d angular velocity", when, (int)i);
  }
  free(ba);
  free(bb);
  n = sn_world_get_soft_body_count(a);
  ck_assert_int_eq(sn_world_get_soft_body_count(b), n);
  sn_soft_body_id sa[8], sb[8];
  ck_assert_int_le(n, 8);
  sn_world_get_soft_bodies(a, sa, 8);
  sn_world_get_soft_bodies(b, sb, 8);
  for (int32_t i = 0; i < n; ++i) {
    sn_particle_id pa[256], pb[256];
    int32_t pc = sn_soft_body_get_particles(a, sa[i], pa, 256);
    ck_assert_int_eq(sn_soft_body_get_particles(b, sb[i], pb, 256), pc);
    for (int32_t j = 0; j < pc; ++j) {
      sn_vec2 xa = sn_particle_get_position(a, pa[j]), xb = sn_particle_get_position(b, pb[j]);
      sn_vec2 va = sn_particle_get_velocity(a, pa[j]), vb = sn_particle_get_velocity(b, pb[j]);
      ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&va, &vb, sizeof va),
                    "%s: soft body %d particle %d state", when, (int)i, (int)j);
    }
  }
}

/// Largest distance between the bodies' positions (and the particles') of a and b.
static double max_position_gap(sn_world *a, sn_world *b) {
  double gap = 0.0;
  sn_body_id ba[64], bb[64];
  int32_t n = sn_world_get_bodies(a, ba, 64);
  ck_assert_int_eq(sn_world_get_bodies(b, bb, 64), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 pa = sn_body_get_position(a, ba[i]), pb = sn_body_get_position(b, bb[i]);
    gap = fmax(gap, hypot((double)pa.x - pb.x, (double)pa.y - pb.y));
  }
  sn_soft_body_id sa[8], sb[8];
  int32_t ns = sn_world_get_soft_bodies(a, sa, 8);
  ck_assert_int_eq(sn_world_get_soft_bodies(b, sb, 8), ns);
  for (int32_t i = 0; i < ns; ++i) {
    sn_particle_id pa[256], pb[256];
    int32_t pc = sn_soft_body_get_particles(a, sa[i], pa, 256);
    ck_assert_int_eq(sn_soft_body_get_particles(b, sb[i], pb, 256), pc);
    for (int32_t j = 0; j < pc; ++j) {
      sn_vec2 xa = sn_particle_get_position(a, pa[j]), xb = sn_particle_get_position(b, pb[j]);
      gap = fmax(gap, hypot((double)xa.x - xb.x, (double)xa.y - xb.y));
    }
  }
  return gap;
}

static sn_vec2 world_point(sn_world *w, sn_body_id b, sn_vec2 local) { return sn_body_get_world_point(w, b, local); }

/// |pB - pA| of a two-anchor joint, from its exported local anchors.
static double anchor_gap(sn_world *w, sn_constraint_id k) {
  sn_body_id jb[2];
  ck_assert_int_eq(sn_constraint_get_bodies(w, k, jb), 2);
  sn_vec2 pa = world_point(w, jb[0], exported(w, k, "local_anchor_a"));
  sn_vec2 pb = world_point(w, jb[1], exported(w, k, "local_anchor_b"));
  return hypot((double)pb.x - pa.x, (double)pb.y - pa.y);
}

/// Angle B - angle A - reference (wrapped), from the exported reference angle.
static double angle_error(sn_world *w, sn_constraint_id k) {
  sn_body_id jb[2];
  ck_assert_int_eq(sn_constraint_get_bodies(w, k, jb), 2);
  double e = (double)sn_body_get_angle(w, jb[1]) - sn_body_get_angle(w, jb[0]) - exported(w, k, "reference_angle").x;
  return remainder(e, 2.0 * PI);
}

/// Signed area of a soft body's particles as a ring.
static double ring_area(sn_world *w, sn_soft_body_id s) {
  sn_particle_id p[256];
  int32_t n = sn_soft_body_get_particles(w, s, p, 256);
  double a = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 x = sn_particle_get_position(w, p[i]), y = sn_particle_get_position(w, p[(i + 1) % n]);
    a += 0.5 * ((double)x.x * y.y - (double)x.y * y.x);
  }
  return a;
}

/// Distance between the two particles of an xpbd_distance.
static double link_length(sn_world *w, sn_constraint_id k) {
  sn_particle_id p[2];
  ck_assert_int_eq(sn_constraint_get_particles(w, k, p, 2), 2);
  sn_vec2 a = sn_particle_get_position(w, p[0]), b = sn_particle_get_position(w, p[1]);
  return hypot((double)b.x - a.x, (double)b.y - a.y);
}

/* ------------------------------------------------------------------------ */
/* export: the engine call                                                  */

typedef struct host_params {
  float value;
  sn_vec2 point;
} host_params;

typedef struct host_instance {
  float seen;
} host_instance;

static int host_create(const sn_constraint_create_args *args) {
  ((host_instance *)args->instance)->seen = ((const host_params *)args->params)->value;
  return 0;
}

static void host_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

static void host_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}

/* writes value + 1 and the body's origin */
static int export_ok(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out) {
  (void)params;
  ck_assert_int_eq(count, 1);
  host_params *p = out;
  p->value = ((const host_instance *)instance)->seen + 1.0f;
  p->point = bodies[0]->origin;
  return 0;
}

static int export_refuses(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                          int32_t count, void *out) {
  (void)params, (void)instance, (void)bodies, (void)count;
  ((host_params *)out)->value = 5.0f; /* scribbles, then fails: out must not change */
  return 1;
}

static int export_out_of_range(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                               int32_t count, void *out) {
  (void)params, (void)instance, (void)bodies, (void)count;
  ((host_params *)out)->value = 1e7f; /* schema max is 100 */
  return 0;
}

static const sn_param_desc host_param_desc[] = {
    {1, SN_PARAM_FLOAT, "value", offsetof(host_params, value), 0, -100.0, 100.0, 2.0, NULL},
    {2, SN_PARAM_VEC2, "point", offsetof(host_params, point), 0, -1e6, 1e6, 0.0, NULL},
};

static sn_constraint_type host_type(const char *name, uint32_t struct_size,
                                    int (*fn)(const void *, const void *, const sn_constraint_body *const *, int32_t,
                                              void *)) {
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = struct_size;
  t.name = name;
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 1;
  t.params_size = sizeof(host_params);
  t.params_align = _Alignof(host_params);
  t.instance_size = sizeof(host_instance);
  t.instance_align = _Alignof(host_instance);
  t.param_count = 2;
  t.params = host_param_desc;
  t.create = host_create;
  t.prepare = host_prepare;
  t.solve_velocity = host_solve;
  t.export_params = fn;
  return t;
}

START_TEST(test_export_api) {
  sn_registry *reg = sn_create_registry(NULL);
  char msg[256];
  const uint32_t full = (uint32_t)sizeof(sn_constraint_type);
  /* a plugin built before export_params: its struct ends at particle_count */
  const uint32_t old = (uint32_t)(offsetof(sn_constraint_type, particle_count) + sizeof(uint32_t));
  const char *names[] = {"t.ok", "t.none", "t.old", "t.refuses", "t.range"};
  sn_constraint_type types[5] = {host_type(names[0], full, export_ok), host_type(names[1], full, NULL),
                                 host_type(names[2], old, export_ok), host_type(names[3], full, export_refuses),
                                 host_type(names[4], full, export_out_of_range)};
  for (int i = 0; i < 5; ++i) ck_assert_msg(sn_registry_add_type(reg, types + i, msg, sizeof msg) == SN_OK, "%s", msg);
  ck_assert(sn_registry_find_type(reg, "t.old")->export_params == NULL);
  ck_assert(sn_registry_find_type(reg, "t.ok")->export_params != NULL);

  sn_world *w = js_world(reg);
  sn_body_id body = js_dynamic(w, (sn_vec2){3.0f, 4.0f}, 0.0f);
  sn_constraint_id k[5];
  const sn_param_value v[1] = {{"value", 7.0, 0.0}};
  for (int i = 0; i < 5; ++i) {
    k[i] = js_joint(w, names[i], body, SN_NULL_BODY, v, 1);
    ck_assert(sn_constraint_is_valid(w, k[i]));
  }
  host_params out, before;
  memset(&out, 0, sizeof out);
  /* the callback's result */
  ck_assert_int_eq(sn_constraint_export_params(w, k[0], &out, sizeof out), SN_OK);
  ck_assert(out.value == 8.0f && out.point.x == 3.0f && out.point.y == 4.0f);
  /* no callback, or a struct that ends before it: a copy of the params */
  for (int i = 1; i <= 2; ++i) {
    memset(&out, 0xff, sizeof out);
    ck_assert_int_eq(sn_constraint_export_params(w, k[i], &out, sizeof out), SN_OK);
    ck_assert(out.value == 7.0f && out.point.x == 0.0f && out.point.y == 0.0f);
  }
  /* any alignment: one byte into a buffer */
  unsigned char raw[sizeof(host_params) + 1];
  ck_assert_int_eq(sn_constraint_export_params(w, k[0], raw + 1, sizeof(host_params)), SN_OK);
  memcpy(&out, raw + 1, sizeof out);
  ck_assert(out.value == 8.0f);
  /* refused: out unchanged, a message, the world still fine */
  memset(&before, 0x5a, sizeof before);
  memcpy(&out, &before, sizeof out);
  ck_assert_int_eq(sn_constraint_export_params(w, k[3], &out, sizeof out), SN_ERR_PLUGIN_INIT_FAILED);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "t.refuses export_params() failed"));
  ck_assert(same_bits(&out, &before, sizeof out));
  ck_assert_int_eq(sn_constraint_export_params(w, k[4], &out, sizeof out), SN_ERR_PLUGIN_INIT_FAILED);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "value = 1e+07 outside [-100, 100]"));
  ck_assert(same_bits(&out, &before, sizeof out));
  /* bad arguments */
  ck_assert_int_eq(sn_constraint_export_params(w, k[0], &out, sizeof out - 1), SN_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "take 12 bytes, out has 11"));
  ck_assert_int_eq(sn_constraint_export_params(w, k[0], NULL, sizeof out), SN_ERR_NULL);
  ck_assert_int_eq(sn_constraint_export_params(w, SN_NULL_CONSTRAINT, &out, sizeof out), SN_ERR_STALE_ID);
  ck_assert_int_eq(sn_constraint_export_params(NULL, k[0], &out, sizeof out), SN_ERR_NULL);
  ck_assert_int_eq(sn_destroy_constraint(w, k[1]), SN_OK);
  ck_assert_int_eq(sn_constraint_export_params(w, k[1], &out, sizeof out), SN_ERR_STALE_ID);
  ck_assert(same_bits(&out, &before, sizeof out));
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_constraint_export_params(w, k[0], &out, sizeof out), SN_OK);
  ck_assert(out.value == 8.0f);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* export: each shipped plugin's pinning                                    */

static const char *const all_plugins[] = {"revolute",      "prismatic",   "wheel",  "weld",      "distance",
                                          "motor",         "mouse",       "attach", "xpbd_area", "xpbd_bend",
                                          "xpbd_distance", "xpbd_tether", NULL};

/// The constraint created again from its exported params, after its
/// bodies and particles moved, is the same constraint: its own export (what
/// its create() put in the instance) is the original's, bit for bit.
static void check_pinned_recreation(sn_world *w, sn_constraint_id k, const char *what) {
  const sn_constraint_type *t = sn_constraint_get_type(w, k);
  ck_assert_msg(sn_registry_find_type(sn_world_get_registry(w), t->name)->export_params != NULL,
                "%s: %s has no export_params", what, t->name);
  sn_param_value values[64];
  int32_t n = exported_values(w, k, values, false);
  if (strcmp(t->name, "motor") != 0) ck_assert(exported(w, k, "pinned").x == 1.0f); /* motor derives nothing */
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = t->name;
  sn_constraint_get_bodies(w, k, cd.bodies);
  sn_particle_id particles[64];
  cd.particle_count = sn_constraint_get_particles(w, k, particles, 64);
  cd.particles = cd.particle_count > 0 ? particles : NULL;
  cd.params = values;
  cd.param_count = n;
  cd.collide_connected = true;
  sn_constraint_id copy = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, copy), "%s: %s", what, sn_world_last_error(w));
  for (uint32_t j = 0; j < t->param_count; ++j) {
    double xa, ya, xb, yb;
    exported_param(w, k, j, &xa, &ya);
    exported_param(w, copy, j, &xb, &yb);
    ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&ya, &yb, sizeof ya), "%s: %s.%s", what, t->name,
                  t->params[j].name);
  }
  ck_assert_int_eq(sn_destroy_constraint(w, copy), SN_OK);
}

START_TEST(test_pinned_recreation_every_plugin) {
  sn_registry *reg = js_registry(all_plugins);
  sn_world *w = js_world(reg);
  sn_body_id a = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.3f, 0.5f, 0.2f, (sn_vec2){0.1f, 0.0f}, 1.0f);
  sn_body_id b = js_box(w, (sn_vec2){1.0f, 0.5f}, -0.2f, 0.3f, 0.3f, (sn_vec2){0.0f, 0.05f}, 1.0f);
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sd);
  sn_particle_id p[4];
  const sn_vec2 at[4] = {{3.0f, 0.0f}, {4.0f, 0.1f}, {4.2f, 1.0f}, {3.1f, 0.9f}};
  for (int i = 0; i < 4; ++i) {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = at[i];
    p[i] = sn_create_particle(w, soft, &pd);
  }
  const sn_param_value rev[] = {{"anchor", 0.5, 0.3}, {"enable_limit", 1, 0}, {"lower_angle", -0.5, 0}};
  const sn_param_value axis[] = {{"anchor", 0.8, 0.4}, {"axis", 1.0, 2.0}};
  const sn_param_value anchor[] = {{"anchor", 0.4, 0.1}};
  const sn_param_value dist[] = {{"anchor_a", 0.2, 0.1}, {"anchor_b", 1.1, 0.6}};
  const sn_param_value mot[] = {{"linear_offset", 1.0, 0.5}, {"angular_offset", 0.3, 0}};
  const sn_param_value mouse[] = {{"anchor", 0.1, 0.2}, {"target", 2.0, 2.0}};
  const sn_constraint_id ks[] = {
      js_joint(w, "revolute", a, b, rev, 3),
      js_joint(w, "prismatic", a, b, axis, 2),
      js_joint(w, "wheel", a, b, axis, 2),
      js_joint(w, "weld", a, b, anchor, 1),
      js_joint(w, "distance", a, b, dist, 2),
      js_joint(w, "motor", a, b, mot, 2),
      js_joint(w, "mouse", a, SN_NULL_BODY, mouse, 2),
  };
  sn_constraint_def cd = sn_default_constraint_def();
  cd.bodies[0] = b;
  cd.type = "attach";
  cd.particles = p;
  cd.particle_count = 1;
  sn_constraint_id attach = sn_create_constraint(w, &cd);
  cd = sn_default_constraint_def();
  cd.particles = p;
  cd.particle_count = 4;
  cd.type = "xpbd_area";
  sn_constraint_id area = sn_create_constraint(w, &cd);
  cd.particle_count = 3;
  cd.type = "xpbd_bend";
  sn_constraint_id bend = sn_create_constraint(w, &cd);
  cd.particle_count = 2;
  cd.type = "xpbd_distance";
  sn_constraint_id link = sn_create_constraint(w, &cd);
  cd.type = "xpbd_tether";
  sn_constraint_id tether = sn_create_constraint(w, &cd);
  const sn_constraint_id soft_ks[] = {attach, area, bend, link, tether};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i)
    ck_assert_msg(sn_constraint_is_valid(w, ks[i]), "joint %d: %s", (int)i, sn_world_last_error(w));
  for (size_t i = 0; i < 5; ++i)
    ck_assert_msg(sn_constraint_is_valid(w, soft_ks[i]), "soft %d: %s", (int)i, sn_world_last_error(w));

  /* what create() derived, exported right away */
  ck_assert(exported(w, area, "rest_area").x > 0.8f);
  sn_vec2 la = exported(w, ks[0], "local_anchor_a");
  sn_vec2 expect = sn_body_get_local_point(w, a, (sn_vec2){0.5f, 0.3f});
  ck_assert_float_eq_tol(la.x, expect.x, 1e-6f);
  ck_assert_float_eq_tol(la.y, expect.y, 1e-6f);
  ck_assert_float_eq_tol(exported(w, ks[0], "reference_angle").x, -0.5f, 1e-6f);
  ck_assert_float_eq_tol(exported(w, link, "creation_length").x, hypotf(1.0f, 0.1f), 1e-6f);

  /* move everything, then recreate each from its export */
  ck_assert_int_eq(sn_body_set_transform(w, a, (sn_vec2){-2.0f, 1.0f}, 1.1f), SN_OK);
  ck_assert_int_eq(sn_body_set_transform(w, b, (sn_vec2){2.0f, -1.0f}, -2.0f), SN_OK);
  for (int i = 0; i < 4; ++i) sn_particle_set_position(w, p[i], (sn_vec2){at[i].x * 1.5f, at[i].y - 2.0f * (float)i});
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) check_pinned_recreation(w, ks[i], "moved");
  for (size_t i = 0; i < 5; ++i) check_pinned_recreation(w, soft_ks[i], "moved");
  /* unpinned, the same values make another constraint: the moved poses define it */
  sn_param_value values[64];
  int32_t n = exported_values(w, ks[0], values, true);
  sn_constraint_id again = js_joint(w, "revolute", a, b, values, n);
  ck_assert(sn_constraint_is_valid(w, again));
  ck_assert(!same_bits(&la, &(sn_vec2){exported(w, again, "local_anchor_a").x, exported(w, again, "local_anchor_a").y},
                       sizeof la));
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_pinned_values_checked) {
  sn_registry *reg = js_registry(all_plugins);
  sn_world *w = js_world(reg);
  sn_body_id a = js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.2f, 1.0f), b = js_ball(w, (sn_vec2){1.0f, 0.0f}, 0.2f, 1.0f);
  /* a pinned axis of no length is refused; a pinned non-unit axis is normalised */
  const sn_param_value zero_axis[] = {{"axis", 1, 0}, {"pinned", 1, 0}, {"local_axis", 0, 0}};
  ck_assert(!sn_constraint_is_valid(w, js_joint(w, "prismatic", a, b, zero_axis, 3)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "local_axis (0, 0) has no direction"));
  const sn_param_value long_axis[] = {{"pinned", 1, 0}, {"local_axis", 3, 4}};
  sn_constraint_id k = js_joint(w, "wheel", a, b, long_axis, 2);
  ck_assert(sn_constraint_is_valid(w, k));
  sn_vec2 u = exported(w, k, "local_axis");
  ck_assert_float_eq_tol(u.x, 0.6f, 1e-7f);
  ck_assert_float_eq_tol(u.y, 0.8f, 1e-7f);
  /* a pinned rest area must be positive; with one, a ring may be inside out (clockwise) */
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sd);
  sn_particle_id p[3];
  const sn_vec2 cw[3] = {{0.0f, 3.0f}, {0.0f, 4.0f}, {1.0f, 3.0f}}; /* clockwise */
  for (int i = 0; i < 3; ++i) {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = cw[i];
    p[i] = sn_create_particle(w, soft, &pd);
  }
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "xpbd_area";
  cd.particles = p;
  cd.particle_count = 3;
  ck_assert(!sn_constraint_is_valid(w, sn_create_constraint(w, &cd)));
  const sn_param_value pinned_zero[] = {{"pinned", 1, 0}};
  cd.params = pinned_zero;
  cd.param_count = 1;
  ck_assert(!sn_constraint_is_valid(w, sn_create_constraint(w, &cd)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "pinned rest_area is 0"));
  const sn_param_value pinned_area[] = {{"pinned", 1, 0}, {"rest_area", 0.5, 0}};
  cd.params = pinned_area;
  cd.param_count = 2;
  k = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  ck_assert(exported(w, k, "rest_area").x == 0.5f);
  /* out of the schema's range: refused by the engine */
  const sn_param_value far[] = {{"pinned", 1, 0}, {"local_anchor_a", 2e9, 0}};
  ck_assert(!sn_constraint_is_valid(w, js_joint(w, "revolute", a, b, far, 2)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "local_anchor_a = 2e+09 (or y) outside"));
  /* pinning parameters are fixed at creation */
  ck_assert_int_eq(sn_constraint_set_param(w, k, "rest_area", 1.0, 0.0), SN_ERR_INVALID_ARGUMENT);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* body defs carry a rotation no float angle makes                           */

START_TEST(test_body_def_rotation) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  sn_world *w = sn_create_world(&wd, NULL);
  /* a body placed by an angle: def.rotation stays {0, 0} */
  sn_body_id b = js_box(w, (sn_vec2){1.0f, 2.0f}, 0.7f, 0.5f, 0.2f, (sn_vec2){0.3f, 0.1f}, 1.0f);
  sn_body_def d;
  ck_assert_int_eq(sn_body_get_def(w, b, &d), SN_OK);
  ck_assert(d.angle == 0.7f && d.rotation.c == 0.0f && d.rotation.s == 0.0f);
  /* spun by the solver until its rotation is no sn_make_rot of a float */
  ck_assert_int_eq(sn_body_set_angular_velocity(w, b, 3.3f), SN_OK);
  int steps = 0;
  for (; steps < 200; ++steps) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_body_get_def(w, b, &d), SN_OK);
    if (d.rotation.c != 0.0f || d.rotation.s != 0.0f) break;
  }
  ck_assert_int_lt(steps, 200);
  sn_rot q = sn_body_get_rotation(w, b), from_angle = sn_make_rot(d.angle);
  ck_assert(same_bits(&d.rotation, &q, sizeof q));
  ck_assert(!same_bits(&from_angle, &q, sizeof q));
  /* the def recreates the pose bit for bit, centre of mass included */
  sn_body_id c = sn_create_body(w, &d);
  sn_polygon poly;
  ck_assert_int_eq(sn_make_offset_box(0.5f, 0.2f, (sn_vec2){0.3f, 0.1f}, 0.0f, &poly), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, c, &sd, &poly)));
  sn_transform xb = sn_body_get_transform(w, b), xc = sn_body_get_transform(w, c);
  ck_assert(same_bits(&xb, &xc, sizeof xb));
  sn_vec2 cb = sn_body_get_world_center_of_mass(w, b), cc = sn_body_get_world_center_of_mass(w, c);
  ck_assert(same_bits(&cb, &cc, sizeof cb));
  sn_body_def again;
  ck_assert_int_eq(sn_body_get_def(w, c, &again), SN_OK);
  ck_assert(same_bits(&again.rotation, &q, sizeof q) && again.angle == d.angle);
  /* refused: not unit, not finite; the world unchanged */
  int32_t count = sn_world_get_body_count(w);
  sn_body_def bad = sn_default_body_def();
  bad.rotation = (sn_rot){0.6f, 0.9f};
  ck_assert(!sn_body_is_valid(w, sn_create_body(w, &bad)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "rotation (0.6, 0.9) is not a unit vector"));
  bad.rotation = (sn_rot){NAN, 0.0f};
  ck_assert(!sn_body_is_valid(w, sn_create_body(w, &bad)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "rotation has a NaN"));
  ck_assert_int_eq(sn_world_get_body_count(w), count);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* stepped: a world of every joint and two soft bodies                      */

typedef struct rig {
  sn_world *w;
  sn_scene_names *names;
  sn_constraint_id revolute, prismatic, wheel, weld, rod, spring, motor, mouse, attach;
  sn_soft_body_id jelly, rope;
} rig;

static sn_body_id named_box(rig *r, const char *name, sn_vec2 p, float angle, float hx, float hy) {
  sn_body_id b = js_box(r->w, p, angle, hx, hy, (sn_vec2){0.0f, 0.0f}, 1.0f);
  ck_assert_int_eq(sn_scene_names_set_body(r->names, b, name), SN_SCENE_OK);
  return b;
}

static sn_constraint_id named_joint(rig *r, const char *name, const char *type, sn_body_id a, sn_body_id b,
                                    const sn_param_value *v, int32_t n) {
  sn_constraint_id k = js_joint(r->w, type, a, b, v, n);
  ck_assert_msg(sn_constraint_is_valid(r->w, k), "%s: %s", name, sn_world_last_error(r->w));
  ck_assert_int_eq(sn_scene_names_set_constraint(r->names, k, name), SN_SCENE_OK);
  return k;
}

/* In the loader's order: bodies with their shapes, soft bodies with their
 * constraints, then the other constraints. */
static rig build_rig(const sn_registry *reg) {
  rig r;
  memset(&r, 0, sizeof r);
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  wd.enable_sleep = false;
  r.w = sn_create_world(&wd, NULL);
  r.names = sn_create_scene_names();
  ck_assert_ptr_nonnull(r.w);
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -0.5f};
  sn_body_id ground = sn_create_body(r.w, &gd);
  sn_polygon slab;
  sn_make_box(30.0f, 0.5f, &slab);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(r.w, sn_create_polygon_shape(r.w, ground, &sd, &slab)));
  ck_assert_int_eq(sn_scene_names_set_body(r.names, ground, "ground"), SN_SCENE_OK);
  sn_body_id arm = named_box(&r, "arm", (sn_vec2){-7.0f, 6.0f}, 0.0f, 1.0f, 0.1f);
  sn_body_id slider = named_box(&r, "slider", (sn_vec2){-4.0f, 4.0f}, 0.2f, 0.3f, 0.2f);
  sn_body_id chassis = named_box(&r, "chassis", (sn_vec2){0.0f, 1.6f}, 0.0f, 1.0f, 0.2f);
  sn_body_id tyre = js_ball(r.w, (sn_vec2){0.7f, 1.0f}, 0.3f, 1.0f);
  ck_assert_int_eq(sn_scene_names_set_body(r.names, tyre, "tyre"), SN_SCENE_OK);
  sn_body_id left = named_box(&r, "left", (sn_vec2){3.0f, 3.0f}, 0.0f, 0.3f, 0.1f);
  sn_body_id right = named_box(&r, "right", (sn_vec2){3.6f, 3.0f}, 0.0f, 0.3f, 0.1f);
  sn_body_id rod_a = named_box(&r, "rod_a", (sn_vec2){6.0f, 5.0f}, 0.0f, 0.2f, 0.2f);
  sn_body_id rod_b = named_box(&r, "rod_b", (sn_vec2){7.0f, 5.5f}, 0.3f, 0.2f, 0.2f);
  sn_body_id bob = named_box(&r, "bob", (sn_vec2){9.0f, 4.0f}, 0.0f, 0.2f, 0.2f);
  sn_body_id driven = named_box(&r, "driven", (sn_vec2){11.0f, 1.0f}, 0.0f, 0.3f, 0.3f);
  sn_body_id dragged = named_box(&r, "dragged", (sn_vec2){13.0f, 2.0f}, 0.0f, 0.3f, 0.2f);
  sn_body_id weight = named_box(&r, "weight", (sn_vec2){17.0f, 6.0f}, 0.0f, 0.2f, 0.2f);

  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){-2.0f, 2.0f};
  ring.radius = 0.5f;
  ring.count = 20;
  ring.material.compliance = 1e-3f;
  ring.area_compliance = 1e-3f;
  r.jelly = sn_create_ring(r.w, &ring);
  ck_assert_msg(sn_soft_body_is_valid(r.w, r.jelly), "%s", sn_world_last_error(r.w));
  ck_assert_int_eq(sn_scene_names_set_soft_body(r.names, r.jelly, "jelly"), SN_SCENE_OK);
  sn_rope_def rope = sn_default_rope_def();
  rope.start = (sn_vec2){15.0f, 6.0f};
  rope.end = (sn_vec2){17.0f, 6.0f};
  rope.count = 10;
  rope.pin_start = true;
  rope.tethers = true;
  rope.material.compliance = 1e-4f;
  rope.material.bend_compliance = 1.0f;
  r.rope = sn_create_rope(r.w, &rope);
  ck_assert_msg(sn_soft_body_is_valid(r.w, r.rope), "%s", sn_world_last_error(r.w));
  ck_assert_int_eq(sn_scene_names_set_soft_body(r.names, r.rope, "rope"), SN_SCENE_OK);

  const sn_param_value rev[] = {{"anchor", -8.0, 6.0},       {"enable_limit", 1, 0}, {"lower_angle", -1.2, 0},
                                {"upper_angle", 0.3, 0},     {"enable_motor", 1, 0}, {"motor_speed", 0.5, 0},
                                {"max_motor_torque", 0.5, 0}};
  r.revolute = named_joint(&r, "hinge", "revolute", ground, arm, rev, 7);
  const sn_param_value pri[] = {{"anchor", -4.0, 4.0},        {"axis", 1.0, -1.0},           {"enable_limit", 1, 0},
                                {"lower_translation", -1, 0}, {"upper_translation", 1.5, 0}, {"enable_motor", 1, 0},
                                {"motor_speed", 0.3, 0},      {"max_motor_force", 2, 0}};
  r.prismatic = named_joint(&r, "slide", "prismatic", ground, slider, pri, 8);
  const sn_param_value whe[] = {{"anchor", 0.7, 1.0},   {"axis", 0.0, 1.0},         {"enable_motor", 1, 0},
                                {"motor_speed", -5, 0}, {"max_motor_torque", 5, 0}, {"hertz", 4, 0}};
  r.wheel = named_joint(&r, "axle", "wheel", chassis, tyre, whe, 6);
  const sn_param_value wel[] = {{"anchor", 3.3, 3.0}, {"linear_hertz", 5, 0}, {"angular_hertz", 3, 0}};
  r.weld = named_joint(&r, "glue", "weld", left, right, wel, 3);
  const sn_param_value rod[] = {{"anchor_a", 6.1, 5.0}, {"anchor_b", 6.9, 5.5}};
  r.rod = named_joint(&r, "rod", "distance", rod_a, rod_b, rod, 2);
  const sn_param_value spr[] = {{"anchor_a", 9.0, 6.5},
                                {"anchor_b", 9.1, 4.1},
                                {"enable_spring", 1, 0},
                                {"hertz", 2, 0},
                                {"damping_ratio", 0.3, 0}};
  r.spring = named_joint(&r, "spring", "distance", ground, bob, spr, 5);
  const sn_param_value mot[] = {
      {"linear_offset", 11.0, 2.5}, {"angular_offset", 0.5, 0}, {"max_force", 50, 0}, {"max_torque", 10, 0}};
  r.motor = named_joint(&r, "drive", "motor", ground, driven, mot, 4);
  const sn_param_value mou[] = {{"anchor", 13.2, 2.1}, {"target", 14.0, 4.0}, {"hertz", 3, 0}, {"max_force", 100, 0}};
  r.mouse = named_joint(&r, "grab", "mouse", dragged, SN_NULL_BODY, mou, 4);
  sn_particle_id ids[16];
  ck_assert_int_eq(sn_soft_body_get_particles(r.w, r.rope, ids, 16), 10);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "attach";
  cd.bodies[0] = weight;
  cd.particles = ids + 9;
  cd.particle_count = 1;
  r.attach = sn_create_constraint(r.w, &cd);
  ck_assert_msg(sn_constraint_is_valid(r.w, r.attach), "%s", sn_world_last_error(r.w));
  ck_assert_int_eq(sn_scene_names_set_constraint(r.names, r.attach, "tie"), SN_SCENE_OK);
  return r;
}

static void free_rig(rig *r) {
  sn_destroy_world(r->w);
  sn_destroy_scene_names(r->names);
}

static sn_constraint_id find_constraint(sn_world *w, const sn_scene_names *names, const char *name) {
  sn_constraint_id k = sn_scene_names_find_constraint(names, name);
  ck_assert_msg(sn_constraint_is_valid(w, k), "no constraint %s", name);
  return k;
}

/// The soft body's constraints of a type (up to cap).
static int32_t soft_constraints(sn_world *w, sn_soft_body_id s, const char *type, sn_constraint_id *out, int32_t cap) {
  sn_constraint_id all[256];
  int32_t n = sn_soft_body_get_constraints(w, s, all, 256), m = 0;
  for (int32_t i = 0; i < n && m < cap; ++i) {
    if (strcmp(sn_constraint_get_type_name(w, all[i]), type) == 0) out[m++] = all[i];
  }
  return m;
}

START_TEST(test_stepped_world_round_trip) {
  sn_registry *reg = js_registry(all_plugins);
  rig r = build_rig(reg);
  /* what each constraint was made as */
  char *at_creation = save_or_fail(r.w, r.names);
  sn_constraint_id area0;
  ck_assert_int_eq(soft_constraints(r.w, r.jelly, "xpbd_area", &area0, 1), 1);
  const float rest_area = exported(r.w, area0, "rest_area").x;
  sn_constraint_id links0[32];
  int32_t link_count = soft_constraints(r.w, r.jelly, "xpbd_distance", links0, 32);
  ck_assert_int_eq(link_count, 20);
  float rest_lengths[32];
  for (int32_t i = 0; i < link_count; ++i) rest_lengths[i] = exported(r.w, links0[i], "creation_length").x;
  const double created_area = ring_area(r.w, r.jelly);

  for (int i = 0; i < 120; ++i) ck_assert_int_eq(sn_world_step(r.w, DT), SN_OK);
  /* it moved: bodies turned, the jelly is squashed */
  ck_assert(fabs(sn_body_get_angle(r.w, sn_scene_names_find_body(r.names, "arm"))) > 0.3);
  ck_assert(fabs(ring_area(r.w, r.jelly) - created_area) > 1e-3 * created_area);
  double stretched = 0.0;
  for (int32_t i = 0; i < link_count; ++i)
    stretched = fmax(stretched, fabs(link_length(r.w, links0[i]) - rest_lengths[i]));
  ck_assert(stretched > 1e-4);
  /* the definitions did not move with them */
  ck_assert(exported(r.w, area0, "rest_area").x == rest_area);
  for (int32_t i = 0; i < link_count; ++i) ck_assert(exported(r.w, links0[i], "creation_length").x == rest_lengths[i]);
  {
    sn_loaded_scene fresh;
    load_or_fail(at_creation, &fresh);
    /* the world as created exports what the stepped one does */
    ck_assert_int_gt(assert_same_definitions(r.w, fresh.world, "created vs stepped"), 20);
    sn_scene_unload(&fresh);
  }

  char *text = save_or_fail(r.w, r.names);
  sn_loaded_scene s1, s2;
  load_or_fail(text, &s1);
  load_or_fail(text, &s2);
  /* (a) the state, bit for bit, the solver's rotations too (saved as "rotation"
   * where no float angle makes them) */
  assert_same_state(r.w, s1.world, "after load");
  ck_assert_ptr_nonnull(strstr(text, "\"rotation\": ["));
  /* (b) the same constraints, and the text is a fixed point */
  ck_assert_int_eq(assert_same_definitions(r.w, s1.world, "after load"), sn_world_get_constraint_count(r.w));
  char *again = save_or_fail(s1.world, s1.names);
  ck_assert_msg(strcmp(text, again) == 0, "save -> load -> save changed the text");
  /* joint errors as they were: the reloaded joints are the original joints */
  const char *gapped[] = {"hinge", "slide", "axle", "glue"};
  for (int i = 0; i < 4; ++i) {
    double g0 = anchor_gap(r.w, find_constraint(r.w, r.names, gapped[i]));
    double g1 = anchor_gap(s1.world, find_constraint(s1.world, s1.names, gapped[i]));
    ck_assert_msg(fabs(g0 - g1) <= 1e-6, "%s: anchor gap %.9g before the save, %.9g after", gapped[i], g0, g1);
  }
  const char *angled[] = {"hinge", "slide", "glue"};
  for (int i = 0; i < 3; ++i) {
    double e0 = angle_error(r.w, find_constraint(r.w, r.names, angled[i]));
    double e1 = angle_error(s1.world, find_constraint(s1.world, s1.names, angled[i]));
    ck_assert_msg(fabs(e0 - e1) <= 1e-6, "%s: angle error %.9g before the save, %.9g after", angled[i], e0, e1);
  }
  /* the hinge hangs at its limit, measured from the angle at creation */
  ck_assert(angle_error(s1.world, find_constraint(s1.world, s1.names, "hinge")) < -1.0);
  /* jelly and rope rest values: the ones made at creation, not the deformed shape's */
  sn_soft_body_id jelly1 = sn_scene_names_find_soft_body(s1.names, "jelly");
  sn_constraint_id area1, links1[32];
  ck_assert_int_eq(soft_constraints(s1.world, jelly1, "xpbd_area", &area1, 1), 1);
  ck_assert(exported(s1.world, area1, "rest_area").x == rest_area);
  ck_assert_int_eq(soft_constraints(s1.world, jelly1, "xpbd_distance", links1, 32), link_count);
  for (int32_t i = 0; i < link_count; ++i)
    ck_assert(exported(s1.world, links1[i], "creation_length").x == rest_lengths[i]);
  sn_vec2 tie0 = exported(r.w, r.attach, "local_anchor"),
          tie1 = exported(s1.world, find_constraint(s1.world, s1.names, "tie"), "local_anchor");
  ck_assert(same_bits(&tie0, &tie1, sizeof tie0));

  /* the unpinned recreation (made again from the current poses) is another
   * world: the hinge re-anchored, the jelly's rest shape its squashed one */
  {
    sn_param_value values[64];
    sn_constraint_id hinge = find_constraint(s1.world, s1.names, "hinge");
    sn_body_id jb[2];
    sn_constraint_get_bodies(s1.world, hinge, jb);
    int32_t n = exported_values(s1.world, hinge, values, true);
    sn_constraint_id old_hinge = js_joint(s1.world, "revolute", jb[0], jb[1], values, n);
    ck_assert(sn_constraint_is_valid(s1.world, old_hinge));
    /* the limits would count from the hanging angle: the arm could fall 1.2 rad further */
    ck_assert(fabsf(exported(s1.world, hinge, "reference_angle").x -
                    exported(s1.world, old_hinge, "reference_angle").x) > 1.0f);
    sn_constraint_id rod = find_constraint(s1.world, s1.names, "rod");
    sn_constraint_get_bodies(s1.world, rod, jb);
    n = exported_values(s1.world, rod, values, true);
    sn_constraint_id old_rod = js_joint(s1.world, "distance", jb[0], jb[1], values, n);
    ck_assert(sn_constraint_is_valid(s1.world, old_rod));
    /* the rod fell: its anchors at creation are far from the bodies now */
    sn_vec2 a0 = exported(s1.world, rod, "local_anchor_a"), a1 = exported(s1.world, old_rod, "local_anchor_a");
    ck_assert(hypotf(a0.x - a1.x, a0.y - a1.y) > 1.0f);
    ck_assert_int_eq(sn_destroy_constraint(s1.world, old_rod), SN_OK);
    ck_assert_int_eq(sn_destroy_constraint(s1.world, old_hinge), SN_OK);
    sn_particle_id ring_ids[32];
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "xpbd_area";
    cd.particles = ring_ids;
    cd.particle_count = sn_constraint_get_particles(s1.world, area1, ring_ids, 32);
    n = exported_values(s1.world, area1, values, true);
    cd.params = values;
    cd.param_count = n;
    sn_constraint_id old_area = sn_create_constraint(s1.world, &cd);
    ck_assert(sn_constraint_is_valid(s1.world, old_area));
    ck_assert(fabsf(exported(s1.world, old_area, "rest_area").x - rest_area) > 1e-3f * rest_area);
    ck_assert_int_eq(sn_destroy_constraint(s1.world, old_area), SN_OK);
  }

  /* (c) two loads of the file step identically ... */
  for (int i = 1; i <= 60; ++i) {
    ck_assert_int_eq(sn_world_step(s1.world, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(s2.world, DT), SN_OK);
  }
  assert_same_state(s1.world, s2.world, "two loads, 60 steps");
  /* ... and stay near the original, which differs only by the state a
   * scene file does not carry (warm starts, contacts, rotation ulps) */
  sn_loaded_scene s3;
  load_or_fail(text, &s3);
  for (int i = 1; i <= 10; ++i) {
    ck_assert_int_eq(sn_world_step(r.w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(s3.world, DT), SN_OK);
  }
  double gap = max_position_gap(r.w, s3.world);
  printf("stepped round trip: original vs reloaded after 10 more steps: %.3g m apart at most\n", gap);
  ck_assert_msg(gap < 1e-3, "the reloaded world drifted %.9g m from the original in 10 steps", gap);
  /* the same file unpinned (its world anchors applied to the moved bodies,
   * rest values measured again from the saved poses) is another world:
   * joints re-anchored, the jelly's rest shape its squashed one */
  char *unpinned = malloc(strlen(text) + 1);
  ck_assert_ptr_nonnull(unpinned);
  memcpy(unpinned, text, strlen(text) + 1);
  int32_t flipped = 0;
  for (char *at = strstr(unpinned, "\"pinned\": true"); at != NULL; at = strstr(at, "\"pinned\": true")) {
    memcpy(at, "\"pinned\": 0   ", 14); /* same length, still a valid bool */
    flipped++;
  }
  ck_assert_int_gt(flipped, 30);
  sn_loaded_scene s4;
  load_or_fail(unpinned, &s4);
  for (int i = 1; i <= 10; ++i) ck_assert_int_eq(sn_world_step(s4.world, DT), SN_OK);
  double unpinned_gap = max_position_gap(s3.world, s4.world);
  printf("stepped round trip: unpinned reload vs reloaded after 10 steps: %.3g m apart at most\n", unpinned_gap);
  ck_assert_msg(unpinned_gap > 100.0 * gap && unpinned_gap > 0.01, "unpinned: %.9g m", unpinned_gap);
  free(unpinned);
  sn_scene_unload(&s4);

  sn_scene_free_text(at_creation);
  sn_scene_free_text(text);
  sn_scene_free_text(again);
  sn_scene_unload(&s1);
  sn_scene_unload(&s2);
  sn_scene_unload(&s3);
  free_rig(&r);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  (void)check_fixture; /* scene_support.h's; this suite has no malformed files */
  Suite *s = suite_create("scene_stepped");
  TCase *ex = tcase_create("export");
  tcase_add_test(ex, test_export_api);
  tcase_add_test(ex, test_pinned_recreation_every_plugin);
  tcase_add_test(ex, test_pinned_values_checked);
  tcase_add_test(ex, test_body_def_rotation);
  suite_add_tcase(s, ex);
  TCase *st = tcase_create("stepped");
  tcase_set_timeout(st, 120);
  tcase_add_test(st, test_stepped_world_round_trip);
  suite_add_tcase(s, st);
  return s;
}
