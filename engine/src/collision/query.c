/* World queries: overlaps (bounding box, exact shape, point), ray casts
 * (callback, closest, all), shape casts, particle queries and the character
 * mover's cast and planes. Every query checks its arguments before it
 * touches the world. The user's callback runs on a locked world
 * (sn_world_lock): it may read and query again, but a call that changes the
 * world is refused, so the tree being walked stays as it is. */
#include <float.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "collision/distance.h"
#include "world/world.h"

sn_query_filter sn_default_query_filter(void) {
  sn_query_filter f = {1u, UINT64_MAX};
  return f;
}

/* ----------------------------------------------------------------- helpers */

static bool sn_filter_accepts(const sn_shape *s, sn_query_filter f) {
  return (s->category_bits & f.mask_bits) != 0 && (s->mask_bits & f.category_bits) != 0;
}

static sn_transform sn_shape_transform(const sn_world *w, const sn_shape *s) { return w->bodies.data[s->body].xf; }

/// The common head of every query: world, stepping.
static sn_result sn_query_begin(sn_world *w, const char *what) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->stepping) return sn_world_locked_error(w, what);
  return SN_OK;
}

static sn_result sn_query_point_check(sn_world *w, const char *what, const char *name, sn_vec2 p) {
  if (!sn_vec2_is_finite(p)) return sn_world_error(w, SN_ERR_NOT_FINITE, "%s: %s must be finite", what, name);
  if (sn_absf(p.x) > SN_MAX_COORDINATE || sn_absf(p.y) > SN_MAX_COORDINATE)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: %s beyond +-SN_MAX_COORDINATE (1e6 m)", what, name);
  return SN_OK;
}

static sn_result sn_query_translation_check(sn_world *w, const char *what, sn_vec2 t) {
  if (!sn_vec2_is_finite(t)) return sn_world_error(w, SN_ERR_NOT_FINITE, "%s: translation must be finite", what);
  if (sn_absf(t.x) > 2.0f * SN_MAX_COORDINATE || sn_absf(t.y) > 2.0f * SN_MAX_COORDINATE)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: translation longer than 2 * SN_MAX_COORDINATE", what);
  return SN_OK;
}

static sn_result sn_query_proxy_check(sn_world *w, const char *what, const sn_shape_proxy *proxy) {
  if (proxy == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: proxy is NULL", what);
  sn_result r = sn_proxy_check(proxy);
  if (r == SN_ERR_NOT_FINITE) return sn_world_error(w, r, "%s: proxy points and radius must be finite", what);
  if (r != SN_OK)
    return sn_world_error(w, r,
                          "%s: proxy needs 1..8 points within +-SN_MAX_COORDINATE, a radius >= 0 and some extent "
                          "(points apart or radius > 0)",
                          what);
  return SN_OK;
}

static sn_result sn_query_capsule_check(sn_world *w, const char *what, const sn_capsule *c) {
  if (c == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: mover is NULL", what);
  if (!sn_vec2_is_finite(c->center1) || !sn_vec2_is_finite(c->center2) || !sn_is_finite(c->radius))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "%s: mover capsule must be finite", what);
  sn_result r = sn_query_point_check(w, what, "mover center1", c->center1);
  if (r == SN_OK) r = sn_query_point_check(w, what, "mover center2", c->center2);
  if (r != SN_OK) return r;
  if (!(c->radius > 0.0f) || c->radius > SN_MAX_COORDINATE)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: mover radius %g must be > 0", what, (double)c->radius);
  return SN_OK;
}

static sn_shape_proxy sn_capsule_proxy(const sn_capsule *c) {
  sn_vec2 p[2] = {c->center1, c->center2};
  return sn_make_proxy_points(p, 2, c->radius);
}

/// Bounding box of a proxy (world points and radius).
static sn_aabb sn_proxy_aabb(const sn_shape_proxy *proxy) {
  sn_aabb box = {proxy->points[0], proxy->points[0]};
  for (int32_t i = 1; i < proxy->count; ++i) {
    box.lower = sn_vmin(box.lower, proxy->points[i]);
    box.upper = sn_vmax(box.upper, proxy->points[i]);
  }
  sn_vec2 r = {proxy->radius, proxy->radius};
  box.lower = sn_sub(box.lower, r);
  box.upper = sn_add(box.upper, r);
  return box;
}

/// Bounding box of the proxy swept along translation.
static sn_aabb sn_swept_aabb(const sn_shape_proxy *proxy, sn_vec2 translation) {
  sn_aabb a = sn_proxy_aabb(proxy);
  sn_aabb b = {sn_add(a.lower, translation), sn_add(a.upper, translation)};
  return sn_aabb_union(a, b);
}

/// Walks both trees with an AABB query (static first); stops when fcn does.
static void sn_query_trees(sn_world *w, sn_aabb box, uint64_t mask, sn_tree_query_fcn *fcn, void *ctx, bool *stop) {
  sn_tree_query(&w->static_tree, box, mask, fcn, ctx);
  if (!*stop) sn_tree_query(&w->dynamic_tree, box, mask, fcn, ctx);
}

/// What a cast callback's return value makes of the current max fraction:
/// negative ignores (unchanged), 0 stops, else the smaller of the two.
static float sn_cast_steer(float returned, float current) {
  if (!(returned >= 0.0f)) return current; // negative (or NaN): ignore the hit
  if (returned == 0.0f) return 0.0f;
  return sn_minf(returned, current);
}

/* ---------------------------------------------------------------- overlaps */

typedef struct sn_overlap_ctx {
  sn_world *w;
  sn_overlap_fcn *fcn;
  void *user;
  sn_query_filter filter;
  sn_aabb box;                 ///< aabb query: the box
  const sn_shape_proxy *proxy; ///< shape overlap: the proxy
  sn_vec2 point;
  int kind; ///< 0 aabb, 1 point, 2 shape
  bool stop;
} sn_overlap_ctx;

static bool sn_overlap_cb(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_overlap_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  sn_transform xf = sn_shape_transform(w, s);
  if (q->kind == 1) {
    sn_vec2 local = sn_inv_transform_point(xf, q->point);
    if (!sn_geometry_test_point(&s->geom, local)) return true;
  } else {
    if (!sn_filter_accepts(s, q->filter)) return true;
    if (q->kind == 0) {
      if (!sn_aabb_overlaps(sn_geometry_compute_aabb(&s->geom, xf), q->box)) return true;
    } else {
      sn_distance_input in;
      in.proxy_a = sn_geometry_proxy(&s->geom);
      in.proxy_b = *q->proxy;
      in.transform_a = xf;
      in.transform_b = sn_transform_identity();
      in.use_radii = false;
      sn_distance_output o = sn_shape_distance(&in, NULL);
      if (o.distance > in.proxy_a.radius + in.proxy_b.radius) return true;
    }
  }
  if (!q->fcn(sn_make_shape_id(w, shape_index), q->user)) {
    q->stop = true;
    return false;
  }
  return true;
}

sn_result sn_world_overlap_aabb(sn_world *w, sn_aabb aabb, sn_query_filter filter, sn_overlap_fcn *fcn, void *context) {
  sn_result r = sn_query_begin(w, "sn_world_overlap_aabb");
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "callback is NULL");
  if (!sn_vec2_is_finite(aabb.lower) || !sn_vec2_is_finite(aabb.upper))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "aabb must be finite");
  if (!sn_aabb_is_valid(aabb)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "aabb lower > upper");
  sn_overlap_ctx q = {w, fcn, context, filter, aabb, NULL, {0.0f, 0.0f}, 0, false};
  sn_world_lock(w);
  sn_query_trees(w, aabb, filter.mask_bits, sn_overlap_cb, &q, &q.stop);
  sn_world_unlock(w);
  return SN_OK;
}

sn_result sn_world_overlap_shape(sn_world *w, const sn_shape_proxy *proxy, sn_query_filter filter, sn_overlap_fcn *fcn,
                                 void *context) {
  const char *what = "sn_world_overlap_shape";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_query_proxy_check(w, what, proxy);
  if (r != SN_OK) return r;
  sn_shape_proxy copy = *proxy;
  sn_overlap_ctx q = {w, fcn, context, filter, sn_proxy_aabb(&copy), &copy, {0.0f, 0.0f}, 2, false};
  sn_world_lock(w);
  sn_query_trees(w, q.box, filter.mask_bits, sn_overlap_cb, &q, &q.stop);
  sn_world_unlock(w);
  return SN_OK;
}

sn_result sn_world_query_point(sn_world *w, sn_vec2 point, sn_overlap_fcn *fcn, void *context) {
  if (w == NULL || fcn == NULL) return w ? sn_world_error(w, SN_ERR_NULL, "callback is NULL") : SN_ERR_NULL;
  if (w->stepping) return sn_world_locked_error(w, "sn_world_query_point");
  if (!sn_vec2_is_finite(point)) return sn_world_error(w, SN_ERR_NOT_FINITE, "point must be finite");
  sn_aabb box = {point, point};
  sn_overlap_ctx q = {w, fcn, context, sn_default_query_filter(), box, NULL, point, 1, false};
  sn_world_lock(w);
  sn_query_trees(w, box, UINT64_MAX, sn_overlap_cb, &q, &q.stop);
  sn_world_unlock(w);
  return SN_OK;
}

/* --------------------------------------------------------------- ray casts */

typedef struct sn_ray_ctx {
  sn_world *w;
  sn_cast_result_fcn *fcn;
  void *user;
  sn_query_filter filter;
  float max_fraction; ///< carried from the static tree to the dynamic one
} sn_ray_ctx;

static float sn_ray_cb(const sn_ray_input *input, int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_ray_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (s->is_sensor) return input->max_fraction; /* not solid: rays pass through */
  if (!sn_filter_accepts(s, q->filter)) return input->max_fraction;
  sn_transform xf = sn_shape_transform(w, s);
  sn_ray_input local;
  local.origin = sn_inv_transform_point(xf, input->origin);
  local.translation = sn_inv_rotate(xf.q, input->translation);
  local.max_fraction = input->max_fraction;
  sn_cast_output out = sn_geometry_ray_cast(&s->geom, &local);
  if (!out.hit || out.fraction > input->max_fraction) return input->max_fraction;
  float returned = q->fcn(sn_make_shape_id(w, shape_index), sn_transform_point(xf, out.point),
                          sn_rotate(xf.q, out.normal), out.fraction, q->user);
  q->max_fraction = sn_cast_steer(returned, input->max_fraction);
  return q->max_fraction;
}

static sn_result sn_ray_check(sn_world *w, const char *what, sn_vec2 origin, sn_vec2 translation) {
  sn_result r = sn_query_point_check(w, what, "origin", origin);
  if (r == SN_OK) r = sn_query_translation_check(w, what, translation);
  return r;
}

/// The ray cast proper, arguments checked.
static void sn_ray_run(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                       sn_cast_result_fcn *fcn, void *context) {
  sn_ray_ctx q = {w, fcn, context, filter, 1.0f};
  sn_ray_input input = {origin, translation, 1.0f};
  sn_world_lock(w);
  sn_tree_ray_cast(&w->static_tree, &input, filter.mask_bits, sn_ray_cb, &q);
  input.max_fraction = q.max_fraction;
  if (input.max_fraction > 0.0f) sn_tree_ray_cast(&w->dynamic_tree, &input, filter.mask_bits, sn_ray_cb, &q);
  sn_world_unlock(w);
}

sn_result sn_world_cast_ray(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                            sn_cast_result_fcn *fcn, void *context) {
  const char *what = "sn_world_cast_ray";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_ray_check(w, what, origin, translation);
  if (r != SN_OK) return r;
  sn_ray_run(w, origin, translation, filter, fcn, context);
  return SN_OK;
}

static float sn_closest_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  sn_ray_result *best = context;
  best->shape = shape;
  best->point = point;
  best->normal = normal;
  best->fraction = fraction;
  best->hit = true;
  return fraction; // clip: only closer hits from now on
}

sn_result sn_world_cast_ray_closest(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                                    sn_ray_result *result) {
  const char *what = "sn_world_cast_ray_closest";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (result == NULL) return sn_world_error(w, SN_ERR_NULL, "result is NULL");
  r = sn_ray_check(w, what, origin, translation);
  if (r != SN_OK) return r;
  sn_ray_result best = {SN_NULL_SHAPE, {0.0f, 0.0f}, {0.0f, 0.0f}, 1.0f, false};
  sn_ray_run(w, origin, translation, filter, sn_closest_fcn, &best);
  *result = best;
  return SN_OK;
}

typedef struct sn_ray_all_ctx {
  sn_ray_result *results;
  int32_t capacity, count;
} sn_ray_all_ctx;

static float sn_all_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  sn_ray_all_ctx *q = context;
  if (q->capacity == 0) return 0.0f;
  // insertion after every hit at the same fraction, dropping the farthest when full
  int32_t at = q->count;
  while (at > 0 && q->results[at - 1].fraction > fraction) --at;
  if (at >= q->capacity) return q->results[q->capacity - 1].fraction;
  int32_t last = q->count < q->capacity ? q->count : q->capacity - 1;
  for (int32_t i = last; i > at; --i) q->results[i] = q->results[i - 1];
  q->results[at] = (sn_ray_result){shape, point, normal, fraction, true};
  if (q->count < q->capacity) q->count += 1;
  // full: nothing beyond the farthest kept hit can enter any more
  return q->count == q->capacity ? q->results[q->capacity - 1].fraction : 1.0f;
}

sn_result sn_world_cast_ray_all(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                                sn_ray_result *results, int32_t capacity, int32_t *count) {
  const char *what = "sn_world_cast_ray_all";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (count == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: count is NULL", what);
  if (capacity < 0) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: capacity %d < 0", what, (int)capacity);
  if (results == NULL && capacity > 0) return sn_world_error(w, SN_ERR_NULL, "%s: results is NULL", what);
  r = sn_ray_check(w, what, origin, translation);
  if (r != SN_OK) return r;
  sn_ray_all_ctx q = {results, capacity, 0};
  if (capacity > 0) sn_ray_run(w, origin, translation, filter, sn_all_fcn, &q);
  *count = q.count;
  return SN_OK;
}

/* ------------------------------------------------------------- shape casts */

typedef struct sn_shape_cast_ctx {
  sn_world *w;
  sn_cast_result_fcn *fcn;
  void *user;
  sn_query_filter filter;
  const sn_shape_proxy *proxy;
  sn_vec2 translation;
  float max_fraction;
  bool stop;
} sn_shape_cast_ctx;

static bool sn_shape_cast_cb(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_shape_cast_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (s->is_sensor || !sn_filter_accepts(s, q->filter)) return true; /* sensors are not solid */
  sn_shape_cast_input in;
  in.proxy_a = sn_geometry_proxy(&s->geom);
  in.proxy_b = *q->proxy;
  in.transform_a = sn_shape_transform(w, s);
  in.transform_b = sn_transform_identity();
  in.translation_b = q->translation;
  in.max_fraction = q->max_fraction;
  sn_cast_output out = sn_shape_cast(&in, false);
  if (!out.hit || out.fraction > q->max_fraction) return true;
  float returned = q->fcn(sn_make_shape_id(w, shape_index), out.point, out.normal, out.fraction, q->user);
  q->max_fraction = sn_cast_steer(returned, q->max_fraction);
  if (q->max_fraction == 0.0f && returned == 0.0f) {
    q->stop = true;
    return false;
  }
  return true;
}

sn_result sn_world_cast_shape(sn_world *w, const sn_shape_proxy *proxy, sn_vec2 translation, sn_query_filter filter,
                              sn_cast_result_fcn *fcn, void *context) {
  const char *what = "sn_world_cast_shape";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_query_proxy_check(w, what, proxy);
  if (r == SN_OK) r = sn_query_translation_check(w, what, translation);
  if (r != SN_OK) return r;
  sn_shape_proxy copy = *proxy;
  sn_shape_cast_ctx q = {w, fcn, context, filter, &copy, translation, 1.0f, false};
  sn_world_lock(w);
  sn_query_trees(w, sn_swept_aabb(&copy, translation), filter.mask_bits, sn_shape_cast_cb, &q, &q.stop);
  sn_world_unlock(w);
  return SN_OK;
}

/* --------------------------------------------------------------- particles */

static bool sn_particle_queried(const sn_particle *p) { return p->in_use && p->radius > 0.0f; }

sn_result sn_world_overlap_particles_aabb(sn_world *w, sn_aabb aabb, sn_particle_overlap_fcn *fcn, void *context) {
  const char *what = "sn_world_overlap_particles_aabb";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  if (!sn_vec2_is_finite(aabb.lower) || !sn_vec2_is_finite(aabb.upper))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "%s: aabb must be finite", what);
  if (!sn_aabb_is_valid(aabb)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: aabb lower > upper", what);
  sn_world_lock(w);
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (!sn_particle_queried(p)) continue;
    sn_vec2 rr = {p->radius, p->radius};
    sn_aabb box = {sn_sub(p->x, rr), sn_add(p->x, rr)};
    if (!sn_aabb_overlaps(box, aabb)) continue;
    if (!fcn(sn_make_particle_id(w, i), context)) break;
  }
  sn_world_unlock(w);
  return SN_OK;
}

sn_result sn_world_cast_ray_particles(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_particle_cast_fcn *fcn,
                                      void *context) {
  const char *what = "sn_world_cast_ray_particles";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_ray_check(w, what, origin, translation);
  if (r != SN_OK) return r;
  float max_fraction = 1.0f;
  sn_world_lock(w);
  for (int32_t i = 0; i < w->particles.count && max_fraction > 0.0f; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (!sn_particle_queried(p)) continue;
    sn_circle disc = {p->x, p->radius};
    sn_ray_input in = {origin, translation, max_fraction};
    sn_cast_output out = sn_ray_cast_circle(&in, &disc);
    if (!out.hit || out.fraction > max_fraction) continue;
    float returned = fcn(sn_make_particle_id(w, i), out.point, out.normal, out.fraction, context);
    max_fraction = sn_cast_steer(returned, max_fraction);
  }
  sn_world_unlock(w);
  return SN_OK;
}

sn_result sn_world_overlap_particles_shape(sn_world *w, const sn_shape_proxy *proxy, sn_particle_contact_fcn *fcn,
                                           void *context) {
  const char *what = "sn_world_overlap_particles_shape";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_query_proxy_check(w, what, proxy);
  if (r != SN_OK) return r;
  sn_shape_proxy copy = *proxy;
  sn_aabb box = sn_proxy_aabb(&copy);
  sn_world_lock(w);
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (!sn_particle_queried(p)) continue;
    sn_vec2 rr = {p->radius, p->radius};
    sn_aabb pbox = {sn_sub(p->x, rr), sn_add(p->x, rr)};
    if (!sn_aabb_overlaps(box, pbox)) continue;
    sn_distance_input in;
    in.proxy_a = copy;
    in.proxy_b = sn_make_proxy_points(&p->x, 1, 0.0f);
    in.transform_a = sn_transform_identity();
    in.transform_b = sn_transform_identity();
    in.use_radii = false;
    sn_distance_output o = sn_shape_distance(&in, NULL);
    float separation = o.distance - copy.radius - p->radius;
    if (separation > 0.0f) continue;
    sn_particle_contact c;
    c.particle = sn_make_particle_id(w, i);
    c.normal = o.normal;
    c.point = o.distance > 0.0f ? sn_mul_add(o.point_a, copy.radius, o.normal) : o.point_a;
    c.separation = separation;
    if (!fcn(&c, context)) break;
  }
  sn_world_unlock(w);
  return SN_OK;
}

/* ------------------------------------------------------------------- mover */

typedef struct sn_mover_ctx {
  sn_world *w;
  sn_query_filter filter;
  sn_shape_proxy proxy;
  sn_vec2 translation;
  float fraction;
  sn_plane_result_fcn *fcn;
  void *user;
  bool stop;
} sn_mover_ctx;

static bool sn_mover_cast_cb(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_mover_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (s->is_sensor || !sn_filter_accepts(s, q->filter)) return true; /* sensors are not solid */
  sn_shape_cast_input in;
  in.proxy_a = sn_geometry_proxy(&s->geom);
  in.proxy_b = q->proxy;
  in.transform_a = sn_shape_transform(w, s);
  in.transform_b = sn_transform_identity();
  in.translation_b = q->translation;
  in.max_fraction = q->fraction;
  sn_cast_output out = sn_shape_cast(&in, true);
  if (out.hit && out.fraction < q->fraction) q->fraction = out.fraction;
  return q->fraction > 0.0f;
}

sn_result sn_world_cast_mover(sn_world *w, const sn_capsule *mover, sn_vec2 translation, sn_query_filter filter,
                              float *fraction) {
  const char *what = "sn_world_cast_mover";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fraction == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: fraction is NULL", what);
  r = sn_query_capsule_check(w, what, mover);
  if (r == SN_OK) r = sn_query_translation_check(w, what, translation);
  if (r != SN_OK) return r;
  sn_mover_ctx q = {w, filter, sn_capsule_proxy(mover), translation, 1.0f, NULL, NULL, false};
  // no user code runs here, so the world needs no lock
  sn_query_trees(w, sn_swept_aabb(&q.proxy, translation), filter.mask_bits, sn_mover_cast_cb, &q, &q.stop);
  *fraction = q.fraction;
  return SN_OK;
}

static bool sn_mover_collide_cb(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_mover_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (s->is_sensor || !sn_filter_accepts(s, q->filter)) return true; /* sensors are not solid */
  sn_distance_input in;
  in.proxy_a = sn_geometry_proxy(&s->geom);
  in.proxy_b = q->proxy;
  in.transform_a = sn_shape_transform(w, s);
  in.transform_b = sn_transform_identity();
  in.use_radii = false;
  sn_distance_output o = sn_shape_distance(&in, NULL);
  if (o.simplex_count == 3 || o.distance < FLT_EPSILON) return true; // the core is inside: no normal
  float separation = o.distance - in.proxy_a.radius - in.proxy_b.radius;
  if (separation >= SN_MOVER_CONTACT_DISTANCE) return true;
  sn_plane_result plane;
  plane.normal = o.normal;
  plane.separation = separation;
  plane.point = sn_mul_add(o.point_a, in.proxy_a.radius, o.normal);
  if (!q->fcn(sn_make_shape_id(w, shape_index), &plane, q->user)) {
    q->stop = true;
    return false;
  }
  return true;
}

sn_result sn_world_collide_mover(sn_world *w, const sn_capsule *mover, sn_query_filter filter, sn_plane_result_fcn *fcn,
                                 void *context) {
  const char *what = "sn_world_collide_mover";
  sn_result r = sn_query_begin(w, what);
  if (r != SN_OK) return r;
  if (fcn == NULL) return sn_world_error(w, SN_ERR_NULL, "%s: callback is NULL", what);
  r = sn_query_capsule_check(w, what, mover);
  if (r != SN_OK) return r;
  sn_mover_ctx q = {w, filter, sn_capsule_proxy(mover), {0.0f, 0.0f}, 1.0f, fcn, context, false};
  sn_aabb box = sn_proxy_aabb(&q.proxy);
  sn_vec2 margin = {SN_MOVER_CONTACT_DISTANCE, SN_MOVER_CONTACT_DISTANCE};
  box.lower = sn_sub(box.lower, margin);
  box.upper = sn_add(box.upper, margin);
  sn_world_lock(w);
  sn_query_trees(w, box, filter.mask_bits, sn_mover_collide_cb, &q, &q.stop);
  sn_world_unlock(w);
  return SN_OK;
}
