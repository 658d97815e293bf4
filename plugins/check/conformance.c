/* The conformance harness (conformance.h). */
#include "conformance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "world/world.h"

#define SN_CONF_STEPS 120
#define SN_CONF_DT    (1.0f / 60.0f)
#define SN_CONF_MASS  0.2f /* of each particle */

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}
static double uniform(uint32_t *s, double lo, double hi) {
  return lo + (hi - lo) * (double)(lcg(s) % 100000) / 99999.0;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static sn_body_id box(sn_world *w, sn_vec2 p, sn_vec2 v, float omega) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.linear_velocity = v;
  bd.angular_velocity = omega;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon poly;
  sn_make_box(0.5f, 0.25f, &poly);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, b, &sd, &poly);
  return b;
}

bool sn_conf_grounded(const sn_constraint_type *t) {
  for (uint32_t i = 0; i < t->param_count; ++i) {
    if (strncmp(t->params[i].name, "ground_", 7) == 0) return true;
  }
  return false;
}

bool sn_conf_applies(const sn_constraint_type *t) {
  return t->particle_count != 0 || (t->body_count == 2 && (t->flags & SN_CONSTRAINT_IMPULSE));
}

/* Random valid parameters: ranges clipped near the bodies; compliances drawn
 * on a log scale (a quarter of them 0); pinned rest values stay unpinned (a
 * pinned rest length is an explicit one, which rest_length / max_length
 * already draw). */
static int32_t draw_params(const sn_constraint_type *t, uint32_t *s, sn_param_value *values, int32_t cap) {
  int32_t n = 0;
  for (uint32_t i = 0; i < t->param_count && n < cap; ++i) {
    const sn_param_desc *p = t->params + i;
    double lo = fmax(p->min, -2.0), hi = fmin(p->max, 2.0);
    if (t->particle_count == 0 && p->max > 2.0 && p->min >= 0.0) hi = fmin(p->max, 50.0);
    if (lo > hi) lo = hi = p->def;
    double x = uniform(s, lo, hi), y = uniform(s, lo, hi);
    if (p->kind == SN_PARAM_INT || p->kind == SN_PARAM_BOOL) x = floor(x + 0.5 > hi ? hi : x + 0.5);
    if (x < p->min) x = p->min;
    if (t->particle_count != 0 && strstr(p->name, "compliance") != NULL)
      x = pow(10.0, uniform(s, -8.0, -2.0)) * (lcg(s) % 4 != 0);
    if (t->particle_count != 0 && strcmp(p->name, "pinned") == 0) x = 0.0;
    values[n++] = (sn_param_value){p->name, x, y};
  }
  return n;
}

typedef struct conf_scene {
  sn_body_id bodies[2];
  int32_t body_count;
  sn_particle_id particles[8];
  int32_t particle_count;
} conf_scene;

static void momentum(sn_world *w, const conf_scene *c, double *px, double *py, double *scale) {
  *px = *py = *scale = 0.0;
  for (int32_t k = 0; k < c->body_count; ++k) {
    sn_vec2 v = sn_body_get_linear_velocity(w, c->bodies[k]);
    double m = sn_body_get_mass(w, c->bodies[k]);
    *px += m * v.x, *py += m * v.y, *scale += m * hypot(v.x, v.y);
  }
  for (int32_t k = 0; k < c->particle_count; ++k) {
    sn_vec2 v = sn_particle_get_velocity(w, c->particles[k]);
    *px += SN_CONF_MASS * v.x, *py += SN_CONF_MASS * v.y, *scale += SN_CONF_MASS * hypot(v.x, v.y);
  }
}

/* Restores w from a snapshot of itself (same ids), destroying the original. */
static sn_world *round_trip(sn_world *w, const sn_registry *registry, char *why, size_t cap) {
  size_t size = 0;
  if (sn_world_save_snapshot(w, NULL, 0, &size) != SN_OK) {
    snprintf(why, cap, "snapshot size: %s", sn_world_last_error(w));
    return NULL;
  }
  void *bytes = malloc(size);
  sn_world *copy = NULL;
  if (bytes != NULL && sn_world_save_snapshot(w, bytes, size, &size) == SN_OK) {
    sn_world_def wd = sn_default_world_def();
    wd.registry = registry;
    if (sn_world_load_snapshot(bytes, size, &wd, &copy, why, cap) != SN_OK) copy = NULL;
  } else {
    snprintf(why, cap, "snapshot: %s", bytes ? sn_world_last_error(w) : "out of memory");
  }
  free(bytes);
  sn_destroy_world(w);
  return copy;
}

sn_conf_result sn_conf_run(const sn_registry *registry, const sn_constraint_type *t, uint32_t seed, sn_conf_mode mode) {
  sn_conf_result r;
  memset(&r, 0, sizeof r);
  sn_world_def wd = sn_default_world_def();
  wd.registry = registry;
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  if (w == NULL) {
    snprintf(r.failure, sizeof r.failure, "no world");
    return r;
  }
  if (mode == SN_CONF_ITEMS) w->xpbd_batch_off = true;
  uint32_t s = seed;
  conf_scene c;
  memset(&c, 0, sizeof c);
  const bool particles = t->particle_count != 0;
  c.body_count = (int32_t)t->body_count;
  for (int32_t k = 0; k < c.body_count; ++k) {
    sn_vec2 at = particles ? (sn_vec2){-1.5f + 3.0f * (float)k, 0.0f} : (sn_vec2){k ? 0.6f : -0.6f, k ? 0.1f : 0.0f};
    c.bodies[k] =
        box(w, at, (sn_vec2){(float)uniform(&s, -2, 2), (float)uniform(&s, -2, 2)}, (float)uniform(&s, -1, 1));
  }
  if (particles) {
    /* a ring of particles around the origin, counter-clockwise (area types accept it) */
    c.particle_count = t->particle_count == SN_ANY_PARTICLES ? 6 : (int32_t)t->particle_count;
    if (c.particle_count > 8) c.particle_count = 8;
    sn_soft_body_def sd = sn_default_soft_body_def();
    sn_soft_body_id soft = sn_create_soft_body(w, &sd);
    for (int32_t k = 0; k < c.particle_count; ++k) {
      sn_particle_def pd = sn_default_particle_def();
      double a = 6.283185307 * (double)k / (double)c.particle_count;
      pd.position = (sn_vec2){(float)(0.5 * cos(a)), (float)(0.5 * sin(a))};
      pd.velocity = (sn_vec2){(float)uniform(&s, -2, 2), (float)uniform(&s, -2, 2)};
      pd.mass = SN_CONF_MASS;
      pd.radius = 0.0f; /* the constraint alone */
      c.particles[k] = sn_create_particle(w, soft, &pd);
    }
  }
  sn_param_value values[64];
  int32_t n = draw_params(t, &s, values, 64);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = t->name;
  for (int32_t k = 0; k < c.body_count; ++k) cd.bodies[k] = c.bodies[k];
  cd.particles = c.particle_count ? c.particles : NULL;
  cd.particle_count = c.particle_count;
  cd.params = values;
  cd.param_count = n;
  r.created = sn_create_constraint(w, &cd).index1 != 0; /* a type may refuse a combination (with a message) */
  momentum(w, &c, &r.p0x, &r.p0y, &r.scale);
  for (int i = 0; i < SN_CONF_STEPS && w != NULL; ++i) {
    sn_world_step(w, SN_CONF_DT);
    if (mode == SN_CONF_RELOCATE && !sn_constraints_relocate(w)) {
      snprintf(r.failure, sizeof r.failure, "relocation failed (out of memory)");
      break;
    }
    if (mode == SN_CONF_SNAPSHOT && i == SN_CONF_STEPS / 2 - 1)
      w = round_trip(w, registry, r.failure, sizeof r.failure);
  }
  if (w == NULL) return r;
  r.finite = true;
  uint64_t h = 0xcbf29ce484222325ull;
  for (int32_t k = 0; k < c.body_count; ++k) {
    sn_transform xf = sn_body_get_transform(w, c.bodies[k]);
    sn_vec2 v = sn_body_get_linear_velocity(w, c.bodies[k]);
    float om = sn_body_get_angular_velocity(w, c.bodies[k]);
    float state[7] = {xf.p.x, xf.p.y, xf.q.c, xf.q.s, v.x, v.y, om};
    for (int j = 0; j < 7; ++j) r.finite = r.finite && isfinite(state[j]);
    h = fnv(h, state, sizeof state);
  }
  for (int32_t k = 0; k < c.particle_count; ++k) {
    sn_vec2 x = sn_particle_get_position(w, c.particles[k]), v = sn_particle_get_velocity(w, c.particles[k]);
    float state[4] = {x.x, x.y, v.x, v.y};
    for (int j = 0; j < 4; ++j) r.finite = r.finite && isfinite(state[j]);
    h = fnv(h, state, sizeof state);
  }
  double end_scale;
  momentum(w, &c, &r.px, &r.py, &end_scale);
  r.scale = fmax(r.scale, end_scale);
  r.hash = h;
  sn_destroy_world(w);
  return r;
}

/* Copies of a two-body type's scene side by side (10 m apart, each with its
 * own draws), so the copies' constraints share no body and the host hands
 * them to warm_start and solve_velocity in one call marked
 * SN_STEP_INDEPENDENT_ITEMS (lanes_off: never so marked). Fifteen copies: a
 * plugin that takes eight lanes, then four, then one at a time (as revolute
 * does) runs all three in one call. The hash of every body after the run;
 * *made = the constraints created. */
#define SN_CONF_COPIES 15
static uint64_t conf_copies(const sn_registry *registry, const sn_constraint_type *t, uint32_t seed, bool lanes_off,
                            int *made, bool *finite) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = registry;
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  wd.enable_sleep = false;
  *made = 0;
  *finite = false;
  sn_world *w = sn_create_world(&wd, NULL);
  if (w == NULL) return 0;
  w->joint_lanes_off = lanes_off;
  uint32_t s = seed;
  sn_body_id bodies[2 * SN_CONF_COPIES];
  for (int32_t copy = 0; copy < SN_CONF_COPIES; ++copy) {
    const float x = 10.0f * (float)copy;
    for (int32_t k = 0; k < 2; ++k) {
      sn_vec2 at = {x + (k ? 0.6f : -0.6f), k ? 0.1f : 0.0f};
      bodies[2 * copy + k] =
          box(w, at, (sn_vec2){(float)uniform(&s, -2, 2), (float)uniform(&s, -2, 2)}, (float)uniform(&s, -1, 1));
    }
    sn_param_value values[64];
    int32_t n = draw_params(t, &s, values, 64);
    for (int32_t i = 0; i < n; ++i) {
      /* world points (anchors) follow the copy */
      const sn_param_desc *p = t->params + i;
      if (p->kind == SN_PARAM_VEC2 && strstr(p->name, "anchor") != NULL && strstr(p->name, "local") == NULL)
        values[i].x += x;
    }
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = t->name;
    cd.bodies[0] = bodies[2 * copy];
    cd.bodies[1] = bodies[2 * copy + 1];
    cd.params = values;
    cd.param_count = n;
    *made += sn_create_constraint(w, &cd).index1 != 0;
  }
  for (int i = 0; i < SN_CONF_STEPS; ++i) sn_world_step(w, SN_CONF_DT);
  uint64_t h = 0xcbf29ce484222325ull;
  *finite = true;
  for (int32_t k = 0; k < 2 * SN_CONF_COPIES; ++k) {
    sn_transform xf = sn_body_get_transform(w, bodies[k]);
    sn_vec2 v = sn_body_get_linear_velocity(w, bodies[k]);
    float state[7] = {xf.p.x, xf.p.y, xf.q.c, xf.q.s, v.x, v.y, sn_body_get_angular_velocity(w, bodies[k])};
    for (int j = 0; j < 7; ++j) *finite = *finite && isfinite(state[j]);
    h = fnv(h, state, sizeof state);
  }
  sn_destroy_world(w);
  return h;
}

int sn_conf_check_lanes(const sn_registry *registry, const sn_constraint_type *t, uint32_t seed, FILE *report) {
  if (t->particle_count != 0 || t->body_count != 2 || !(t->flags & SN_CONSTRAINT_IMPULSE)) return 0;
  int made[2];
  bool finite[2];
  uint64_t h[2];
  for (int off = 0; off < 2; ++off) h[off] = conf_copies(registry, t, seed, off == 1, made + off, finite + off);
  if (made[0] < 4 || (h[0] == h[1] && finite[0] == finite[1])) return 0;
  if (report)
    fprintf(report, "FAIL %s seed %u: different bits when its items are solved as independent (%d constraints)\n",
            t->name, seed, made[0]);
  return 1;
}

int sn_conf_check_type(const sn_registry *registry, const sn_constraint_type *t, uint32_t seeds, int *created,
                       FILE *report) {
  int failures = 0;
  *created = 0;
  static const char *const mode_names[] = {"", "after moving instance memory", "after a snapshot round trip",
                                           "solved per item instead of batched"};
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    sn_conf_result r1 = sn_conf_run(registry, t, seed, SN_CONF_PLAIN);
    if (!r1.created) continue;
    (*created)++;
    if (!r1.finite) {
      failures++;
      if (report) fprintf(report, "FAIL %s seed %u: a state is not finite\n", t->name, seed);
      continue;
    }
    /* single-precision rounding scales with the bodies' own momenta, not
     * with their (possibly tiny) sum: 1e-5 of the larger sum of |m v| */
    double mag = fmax(r1.scale, 1e-3);
    if (!sn_conf_grounded(t) &&
        !(fabs(r1.px - r1.p0x) <= 1e-5 * mag + 1e-6 && fabs(r1.py - r1.p0y) <= 1e-5 * mag + 1e-6)) {
      failures++;
      if (report)
        fprintf(report, "FAIL %s seed %u: linear momentum (%g, %g) -> (%g, %g)\n", t->name, seed, r1.p0x, r1.p0y, r1.px,
                r1.py);
    }
    failures += sn_conf_check_lanes(registry, t, seed, report);
    for (int mode = SN_CONF_PLAIN; mode <= SN_CONF_ITEMS; ++mode) {
      if (mode == SN_CONF_ITEMS && t->solve_particles == NULL) continue;
      sn_conf_result r2 = sn_conf_run(registry, t, seed, (sn_conf_mode)mode);
      if (r2.hash == r1.hash && r2.failure[0] == '\0') continue;
      failures++;
      if (report)
        fprintf(report, "FAIL %s seed %u: different bits %s%s%s\n", t->name, seed,
                mode == SN_CONF_PLAIN ? "when repeated" : mode_names[mode], r2.failure[0] ? ": " : "", r2.failure);
    }
  }
  if (*created < (int)(seeds + 1) / 2) {
    failures++;
    if (report)
      fprintf(report, "FAIL %s: only %d of %u random parameter sets were accepted\n", t->name, *created, seeds);
  }
  return failures;
}
