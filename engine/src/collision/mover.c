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
  // The closest vector to v with dot(v, normal) >= 0 for every clipping
  // plane. The allowed set is a cone at the origin, and in 2D the closest
  // point of a cone is v itself, v with its part into one plane removed, or
  // the origin: the nearest of those that satisfy every plane.
  const float tiny = 1.0e-6f * sn_length(v);
  sn_vec2 best = v;
  bool feasible = true;
  for (int32_t i = 0; i < count; ++i) {
    if (planes[i].clip_velocity && sn_dot(v, planes[i].normal) < 0.0f) feasible = false;
  }
  if (!feasible) {
    best = sn_v2(0.0f, 0.0f);
    float best_distance = sn_length_sq(v);
    for (int32_t i = 0; i < count; ++i) {
      if (!planes[i].clip_velocity) continue;
      float into = sn_dot(v, planes[i].normal);
      if (!(into < 0.0f)) continue;
      sn_vec2 candidate = sn_mul_sub(v, into, planes[i].normal);
      bool ok = true;
      for (int32_t j = 0; j < count && ok; ++j) {
        if (j != i && planes[j].clip_velocity && sn_dot(candidate, planes[j].normal) < -tiny) ok = false;
      }
      float distance = into * into;
      if (ok && distance < best_distance) {
        best = candidate;
        best_distance = distance;
      }
    }
  }
  v = best;
  *out = v;
  return SN_OK;
}
