/* Explosions: an impulse on every dynamic shape and particle near a point,
 * pushing each away from it, sized by how much of the blast it catches. */
#include <math.h>

#include "base/constants.h"
#include "base/math.h"
#include "collision/distance.h"
#include "world/world.h"

sn_explosion_def sn_default_explosion_def(void) {
  sn_explosion_def def = {0};
  def.mask_bits = UINT64_MAX;
  def.affect_particles = true;
  def.cookie = SN_DEF_COOKIE;
  return def;
}

/* The width the shape shows to a blast travelling along dir: its extent
 * across dir (a circle: its diameter). */
static float sn_projected_width(const sn_geometry *g, sn_transform xf, sn_vec2 dir) {
  sn_shape_proxy proxy = sn_geometry_proxy(g);
  sn_vec2 across = {-dir.y, dir.x};
  float lo = SN_HUGE, hi = -SN_HUGE;
  for (int32_t i = 0; i < proxy.count; ++i) {
    float d = sn_dot(sn_transform_point(xf, proxy.points[i]), across);
    lo = sn_minf(lo, d);
    hi = sn_maxf(hi, d);
  }
  return hi - lo + 2.0f * proxy.radius;
}

/* The falloff scale at distance d: 1 within the radius, then down to 0
 * across the falloff. */
static float sn_blast_scale(const sn_explosion_def *def, float d) {
  if (d <= def->radius) return 1.0f;
  if (def->falloff <= 0.0f) return 0.0f;
  float s = 1.0f - (d - def->radius) / def->falloff;
  return s > 0.0f ? s : 0.0f;
}

typedef struct sn_blast {
  sn_world *w;
  const sn_explosion_def *def;
  int32_t bodies;
} sn_blast;

static bool sn_blast_shape(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_blast *blast = context;
  sn_world *w = blast->w;
  const sn_explosion_def *def = blast->def;
  const sn_shape *s = w->shapes.data + shape_index;
  sn_body *b = w->bodies.data + s->body;
  if (b->type != SN_BODY_DYNAMIC || b->frozen) return true;
  sn_distance_input in;
  in.proxy_a = sn_make_proxy_points(&def->position, 1, 0.0f);
  in.proxy_b = sn_geometry_proxy(&s->geom);
  in.transform_a = sn_transform_identity();
  in.transform_b = b->xf;
  in.use_radii = true;
  sn_distance_output out = sn_shape_distance(&in, NULL);
  float scale = sn_blast_scale(def, out.distance);
  if (scale <= 0.0f) return true;
  /* inside the shape (the point within its core): push from the blast
   * centre through the shape's centroid */
  sn_vec2 dir = out.distance > 0.0f ? out.normal : sn_sub(b->center, def->position);
  float len = sn_length(dir);
  if (!(len > 0.0f)) return true;
  dir = sn_scale(1.0f / len, dir);
  float magnitude = def->impulse_per_length * scale * sn_projected_width(&s->geom, b->xf, dir);
  sn_vec2 impulse = sn_scale(magnitude, dir);
  sn_vec2 point = out.distance > 0.0f ? out.point_b : b->center;
  sn_body_wake(w, s->body);
  b->v = sn_mul_add(b->v, b->inv_mass, impulse);
  b->w += b->inv_inertia * sn_cross(sn_sub(point, b->center), impulse);
  blast->bodies += 1;
  return true;
}

sn_result sn_world_explode(sn_world *w, const sn_explosion_def *def) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->locked) return sn_world_locked_error(w, "sn_world_explode");
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "explosion def is NULL");
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_explosion_def()");
  if (!sn_vec2_is_finite(def->position) || !sn_is_finite(def->radius) || !sn_is_finite(def->falloff) ||
      !sn_is_finite(def->impulse_per_length))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "explosion position, radius, falloff and impulse must be finite");
  if (!sn_vec2_within_limit(def->position))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "explosion beyond +-SN_MAX_COORDINATE (1e6 m)");
  if (def->radius < 0.0f || def->falloff < 0.0f || def->radius + def->falloff > SN_MAX_COORDINATE)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "explosion radius %g and falloff %g must be in [0, 1e6]",
                          (double)def->radius, (double)def->falloff);
  float reach = def->radius + def->falloff;
  sn_aabb box = {{def->position.x - reach, def->position.y - reach},
                 {def->position.x + reach, def->position.y + reach}};
  sn_blast blast = {w, def, 0};
  /* only moving bodies' shapes: the dynamic tree */
  sn_tree_query(&w->dynamic_tree, box, def->mask_bits, sn_blast_shape, &blast);
  if (def->affect_particles) {
    for (int32_t i = 0; i < w->particles.count; ++i) {
      sn_particle *p = w->particles.data + i;
      if (!p->in_use || p->kinematic || p->frozen || p->inv_mass == 0.0f || p->radius <= 0.0f) continue;
      sn_vec2 d = sn_sub(p->x, def->position);
      float dist = sn_length(d) - p->radius;
      if (dist < 0.0f) dist = 0.0f;
      float scale = sn_blast_scale(def, dist);
      if (scale <= 0.0f || !(sn_length(d) > 0.0f)) continue;
      /* a particle catches the blast across its diameter */
      float width = 2.0f * p->radius;
      float magnitude = def->impulse_per_length * scale * width;
      p->v = sn_mul_add(p->v, magnitude * p->inv_mass / sn_length(d), d);
    }
  }
  return SN_OK;
}
