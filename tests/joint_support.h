/* Shared scaffolding of the joint plugin suites: the shipped plugins (from
 * the build tree's plugin folder, or linked in: bench/shipped.h), worlds and
 * bodies, constraints by type name. Every helper asserts what it relies on. */
#ifndef SN_TEST_JOINT_SUPPORT_H
#define SN_TEST_JOINT_SUPPORT_H

#include <check.h>
#include <stdio.h>

#include "shipped.h"
#include "sinew/sinew.h"

#define PI 3.14159265358979323846
#define DT (1.0f / 60.0f)

/// A registry with the named shipped plugins (NULL-terminated list).
static inline sn_registry *js_registry(const char *const *names) {
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(r);
  int32_t count = 0;
  while (names[count] != NULL) count++;
  char msg[512];
  ck_assert_msg(sn_shipped_add(r, SN_PLUGIN_DIR, names, count, msg, sizeof msg) == SN_OK, "%s", msg);
  return r;
}

/// Default world (g = (0, -10), default substeps) with sleeping off.
static inline sn_world *js_world(const sn_registry *r) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

/// A static body at the origin with no shapes (an anchor for joints).
static inline sn_body_id js_ground(sn_world *w) {
  sn_body_def gd = sn_default_body_def();
  return sn_create_body(w, &gd);
}

static inline sn_body_id js_dynamic(sn_world *w, sn_vec2 p, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = angle;
  return sn_create_body(w, &bd);
}

/// A dynamic disc.
static inline sn_body_id js_ball(sn_world *w, sn_vec2 p, float radius, float density) {
  sn_body_id b = js_dynamic(w, p, 0.0f);
  sn_circle c = {{0.0f, 0.0f}, radius};
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
  return b;
}

/// A dynamic box (half extents hx, hy) centred at `offset` from its origin.
static inline sn_body_id js_box(sn_world *w, sn_vec2 p, float angle, float hx, float hy, sn_vec2 offset,
                                float density) {
  sn_body_id b = js_dynamic(w, p, angle);
  sn_polygon poly;
  ck_assert_int_eq(sn_make_offset_box(hx, hy, offset, 0.0f, &poly), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &poly)));
  return b;
}

/// A constraint of `type` between a and b (b ignored for one-body types).
static inline sn_constraint_id js_joint(sn_world *w, const char *type, sn_body_id a, sn_body_id b,
                                        const sn_param_value *values, int32_t count) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.bodies[0] = a;
  cd.bodies[1] = b;
  cd.params = values;
  cd.param_count = count;
  return sn_create_constraint(w, &cd);
}

#endif
