/* Shared scaffolding of the soft-body suites: a registry with the XPBD
 * plugins (loaded from the build tree), worlds, particles and constraints
 * over particle lists. g = (0, -10); every helper asserts what it relies on. */
#ifndef SN_TEST_SOFT_SUPPORT_H
#define SN_TEST_SOFT_SUPPORT_H

#include <check.h>
#include <math.h>
#include <stdio.h>

#include "joint_support.h"
#include "sinew/sinew.h"

/// A registry with every XPBD plugin (and revolute, for rigid pendulums).
static inline sn_registry *ss_registry(void) {
  return js_registry(
      (const char *const[]){"xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach", "revolute", NULL});
}

/// A world with sleeping off, the given substeps and XPBD iterations.
static inline sn_world *ss_world(const sn_registry *r, int32_t substeps, int32_t iterations) {
  sn_world *w = js_world(r);
  ck_assert_int_eq(sn_world_set_substeps(w, substeps), SN_OK);
  ck_assert_int_eq(sn_world_set_soft_iterations(w, iterations), SN_OK);
  return w;
}

/// A soft body; rigid_damping (0..1 per step) damps only deformation, so it
/// settles a structure without biasing its static shape.
static inline sn_soft_body_id ss_soft_damped(sn_world *w, float rigid_damping) {
  sn_soft_body_def sd = sn_default_soft_body_def();
  sd.rigid_damping = rigid_damping;
  sn_soft_body_id s = sn_create_soft_body(w, &sd);
  ck_assert_msg(sn_soft_body_is_valid(w, s), "%s", sn_world_last_error(w));
  return s;
}

static inline sn_soft_body_id ss_soft(sn_world *w) { return ss_soft_damped(w, 0.0f); }

/// A particle of mass m (0 = fixed) with radius 0 (no collisions).
static inline sn_particle_id ss_particle(sn_world *w, sn_soft_body_id s, sn_vec2 p, float mass) {
  sn_particle_def pd = sn_default_particle_def();
  pd.position = p;
  pd.mass = mass;
  pd.radius = 0.0f;
  sn_particle_id id = sn_create_particle(w, s, &pd);
  ck_assert_msg(sn_particle_is_valid(w, id), "%s", sn_world_last_error(w));
  return id;
}

/// A constraint of `type` over particles (after `body`, if not null).
static inline sn_constraint_id ss_constraint(sn_world *w, const char *type, sn_body_id body,
                                             const sn_particle_id *particles, int32_t count,
                                             const sn_param_value *values, int32_t value_count, float break_force) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.bodies[0] = body;
  cd.particles = particles;
  cd.particle_count = count;
  cd.params = values;
  cd.param_count = value_count;
  cd.break_force = break_force;
  sn_constraint_id id = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, id), "%s: %s", type, sn_world_last_error(w));
  return id;
}

static inline double ss_dist(sn_vec2 a, sn_vec2 b) { return hypot((double)a.x - b.x, (double)a.y - b.y); }

/// Signed area of particles in order (shoelace, double precision).
static inline double ss_area(sn_world *w, const sn_particle_id *p, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 a = sn_particle_get_position(w, p[i]), b = sn_particle_get_position(w, p[(i + 1) % n]);
    s += (double)a.x * b.y - (double)b.x * a.y;
  }
  return 0.5 * s;
}

#endif
