/* World queries: AABB overlap, point containment, closest ray hit. The
 * user's callback runs on a locked world (sn_world_lock): it may read and
 * query again, but a call that changes the world is refused, so the tree
 * being walked stays as it is. */
#include "base/math.h"
#include "world/world.h"

typedef struct sn_overlap_ctx {
  sn_world *w;
  sn_overlap_fcn *fcn;
  void *user;
  sn_vec2 point;
  bool test_point;
  bool stop;
} sn_overlap_ctx;

static bool sn_overlap_cb(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_overlap_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (q->test_point) {
    sn_vec2 local = sn_inv_transform_point(w->bodies.data[s->body].xf, q->point);
    if (!sn_geometry_test_point(&s->geom, local)) return true;
  }
  if (!q->fcn(sn_make_shape_id(w, shape_index), q->user)) {
    q->stop = true;
    return false;
  }
  return true;
}

sn_result sn_world_overlap_aabb(sn_world *w, sn_aabb aabb, sn_overlap_fcn *fcn, void *context) {
  if (w == NULL || fcn == NULL) return w ? sn_world_error(w, SN_ERR_NULL, "callback is NULL") : SN_ERR_NULL;
  if (w->stepping) return sn_world_locked_error(w, "sn_world_overlap_aabb");
  if (!sn_vec2_is_finite(aabb.lower) || !sn_vec2_is_finite(aabb.upper))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "aabb must be finite");
  if (!sn_aabb_is_valid(aabb)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "aabb lower > upper");
  sn_overlap_ctx q = {w, fcn, context, {0.0f, 0.0f}, false, false};
  sn_world_lock(w);
  sn_tree_query(&w->static_tree, aabb, UINT64_MAX, sn_overlap_cb, &q);
  if (!q.stop) sn_tree_query(&w->dynamic_tree, aabb, UINT64_MAX, sn_overlap_cb, &q);
  sn_world_unlock(w);
  return SN_OK;
}

sn_result sn_world_query_point(sn_world *w, sn_vec2 point, sn_overlap_fcn *fcn, void *context) {
  if (w == NULL || fcn == NULL) return w ? sn_world_error(w, SN_ERR_NULL, "callback is NULL") : SN_ERR_NULL;
  if (w->stepping) return sn_world_locked_error(w, "sn_world_query_point");
  if (!sn_vec2_is_finite(point)) return sn_world_error(w, SN_ERR_NOT_FINITE, "point must be finite");
  sn_aabb box = {point, point};
  sn_overlap_ctx q = {w, fcn, context, point, true, false};
  sn_world_lock(w);
  sn_tree_query(&w->static_tree, box, UINT64_MAX, sn_overlap_cb, &q);
  if (!q.stop) sn_tree_query(&w->dynamic_tree, box, UINT64_MAX, sn_overlap_cb, &q);
  sn_world_unlock(w);
  return SN_OK;
}

typedef struct sn_ray_ctx {
  sn_world *w;
  sn_ray_result best;
} sn_ray_ctx;

static float sn_ray_cb(const sn_ray_input *input, int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_ray_ctx *q = context;
  sn_world *w = q->w;
  const sn_shape *s = w->shapes.data + shape_index;
  if (s->is_sensor) return input->max_fraction; /* not solid: rays pass through */
  sn_transform xf = w->bodies.data[s->body].xf;
  sn_ray_input local;
  local.origin = sn_inv_transform_point(xf, input->origin);
  local.translation = sn_inv_rotate(xf.q, input->translation);
  local.max_fraction = input->max_fraction;
  sn_cast_output out = sn_geometry_ray_cast(&s->geom, &local);
  if (!out.hit || out.fraction > input->max_fraction) return input->max_fraction;
  q->best.hit = true;
  q->best.shape = sn_make_shape_id(w, shape_index);
  q->best.fraction = out.fraction;
  q->best.point = sn_transform_point(xf, out.point);
  q->best.normal = sn_rotate(xf.q, out.normal);
  return out.fraction; /* clip: only closer hits from now on */
}

sn_result sn_world_cast_ray_closest(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_ray_result *result) {
  if (w == NULL) return SN_ERR_NULL;
  if (result == NULL) return sn_world_error(w, SN_ERR_NULL, "result is NULL");
  if (w->stepping) return sn_world_locked_error(w, "sn_world_cast_ray_closest");
  if (!sn_vec2_is_finite(origin) || !sn_vec2_is_finite(translation))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "ray must be finite");
  sn_ray_ctx q;
  q.w = w;
  q.best = (sn_ray_result){SN_NULL_SHAPE, {0.0f, 0.0f}, {0.0f, 0.0f}, 1.0f, false};
  sn_ray_input input = {origin, translation, 1.0f};
  sn_tree_ray_cast(&w->static_tree, &input, UINT64_MAX, sn_ray_cb, &q);
  if (q.best.hit) input.max_fraction = q.best.fraction;
  sn_tree_ray_cast(&w->dynamic_tree, &input, UINT64_MAX, sn_ray_cb, &q);
  *result = q.best;
  return SN_OK;
}
