/* The plane solver of the character mover (sinew/collision.h):
 * sn_solve_planes corrects a wanted translation so that it leaves every
 * contact plane's gap non-negative, and sn_clip_vector removes a velocity's
 * parts into the planes. Pure functions; the world side (the planes, the
 * cast) is in query.c. */
#include <float.h>

#include "sinew/collision.h"

#include "base/math.h"

/// Sweeps of sn_solve_planes at most, and the sum of one sweep's pushes (m)
/// below which it has converged.
#define SN_PLANE_MAX_ITERATIONS 20
#define SN_PLANE_TOLERANCE      1.0e-4f

static sn_result sn_planes_check(const sn_collision_plane *planes, int32_t count) {
  if (count < 0) return SN_ERR_INVALID_ARGUMENT;
  if (count > 0 && planes == NULL) return SN_ERR_NULL;
  for (int32_t i = 0; i < count; ++i) {
    const sn_collision_plane *p = planes + i;
    if (!sn_vec2_is_finite(p->normal) || !sn_is_finite(p->separation) || p->push_limit != p->push_limit)
      return SN_ERR_NOT_FINITE;
    if (sn_absf(sn_length(p->normal) - 1.0f) > 1.0e-3f || p->push_limit < 0.0f) return SN_ERR_INVALID_ARGUMENT;
  }
  return SN_OK;
}

sn_result sn_solve_planes(sn_vec2 target_delta, sn_collision_plane *planes, int32_t count,
                          sn_plane_solver_result *out) {
  if (out == NULL) return SN_ERR_NULL;
  if (!sn_vec2_is_finite(target_delta)) return SN_ERR_NOT_FINITE;
  sn_result r = sn_planes_check(planes, count);
  if (r != SN_OK) return r;
  for (int32_t i = 0; i < count; ++i) planes[i].push = 0.0f;

  // Projected Gauss-Seidel on the pushes: each plane in turn adds what makes
  // its own gap zero, its accumulated push clamped to [0, push_limit], so a
  // later plane can take back what an earlier one pushed too far.
  sn_vec2 delta = target_delta;
  int32_t iteration = 0;
  while (iteration < SN_PLANE_MAX_ITERATIONS) {
    ++iteration;
    float total = 0.0f;
    for (int32_t i = 0; i < count; ++i) {
      sn_collision_plane *p = planes + i;
      float gap = p->separation + sn_dot(p->normal, delta);
      float before = p->push;
      p->push = sn_clampf(before - gap, 0.0f, p->push_limit);
      float push = p->push - before;
      delta = sn_mul_add(delta, push, p->normal);
      total += sn_absf(push);
    }
    if (total < SN_PLANE_TOLERANCE) break;
  }
  out->translation = delta;
  out->iteration_count = iteration;
  return SN_OK;
}

sn_result sn_clip_vector(sn_vec2 v, const sn_collision_plane *planes, int32_t count, sn_vec2 *out) {
  if (out == NULL) return SN_ERR_NULL;
  if (!sn_vec2_is_finite(v)) return SN_ERR_NOT_FINITE;
  sn_result r = sn_planes_check(planes, count);
  if (r != SN_OK) return r;
  // One plane: remove the part into it. Several: repeat, since clipping
  // against one can push v into another; what is still into a plane after
  // the passes is in a wedge and stops.
  const float tiny = 1.0e-6f * sn_maxf(sn_length(v), 1.0e-30f);
  for (int32_t pass = 0; pass < 2 * count + 1; ++pass) {
    bool changed = false;
    for (int32_t i = 0; i < count; ++i) {
      if (!planes[i].clip_velocity) continue;
      float into = sn_dot(v, planes[i].normal);
      if (into < 0.0f) {
        v = sn_mul_sub(v, into, planes[i].normal);
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (int32_t i = 0; i < count; ++i) {
    if (planes[i].clip_velocity && sn_dot(v, planes[i].normal) < -tiny) {
      v = sn_v2(0.0f, 0.0f);
      break;
    }
  }
  *out = v;
  return SN_OK;
}
