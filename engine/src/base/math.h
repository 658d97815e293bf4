/* Internal 2D math. The vector and rotation operations a plugin also needs
 * are the public ones of sinew/plugin_math.h (one copy of each formula, so
 * the engine and the shipped plugins compute the same bits); this header adds
 * what only the engine uses: transforms, sweeps' helpers, boxes, the speed
 * clamp. Plain C: cglm was measured and left out (docs/architecture.md,
 * "Math"). No -ffast-math anywhere: results are bit-reproducible. */
#ifndef SN_BASE_MATH_H
#define SN_BASE_MATH_H

#include <math.h>
#include <stdbool.h>

#include "sinew/plugin_math.h"
#include "sinew/types.h"

#define SN_PI 3.14159265359f

/// a when a < b, else b (so b when either is NaN).
static inline float sn_minf(float a, float b) { return a < b ? a : b; }
/// a when a > b, else b (so b when either is NaN).
static inline float sn_maxf(float a, float b) { return a > b ? a : b; }
static inline float sn_absf(float a) { return a < 0.0f ? -a : a; }
/// min(max(a, lo), hi): lo for NaN (sn_pm_clamp keeps NaN).
static inline float sn_clampf(float a, float lo, float hi) { return sn_minf(sn_maxf(a, lo), hi); }
static inline int sn_mini(int a, int b) { return a < b ? a : b; }
static inline int sn_maxi(int a, int b) { return a > b ? a : b; }
static inline bool sn_is_finite(float a) { return isfinite(a) != 0; }
/// Finite and within +-SN_MAX_COORDINATE (false for NaN).
static inline bool sn_within_limit(float a) { return fabsf(a) <= SN_MAX_COORDINATE; }
static inline bool sn_vec2_is_finite(sn_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

static inline sn_vec2 sn_v2(float x, float y) { return (sn_vec2){x, y}; }
static inline sn_vec2 sn_add(sn_vec2 a, sn_vec2 b) { return sn_pm_add(a, b); }
static inline sn_vec2 sn_sub(sn_vec2 a, sn_vec2 b) { return sn_pm_sub(a, b); }
static inline sn_vec2 sn_neg(sn_vec2 a) { return sn_pm_neg(a); }
static inline sn_vec2 sn_scale(float s, sn_vec2 a) { return sn_pm_scale(s, a); }
/// a + s * b
static inline sn_vec2 sn_mul_add(sn_vec2 a, float s, sn_vec2 b) { return (sn_vec2){a.x + s * b.x, a.y + s * b.y}; }
/// a - s * b
static inline sn_vec2 sn_mul_sub(sn_vec2 a, float s, sn_vec2 b) { return (sn_vec2){a.x - s * b.x, a.y - s * b.y}; }
static inline float sn_dot(sn_vec2 a, sn_vec2 b) { return sn_pm_dot(a, b); }
/// 2D cross product (z of the 3D cross product).
static inline float sn_cross(sn_vec2 a, sn_vec2 b) { return sn_pm_cross(a, b); }
/// cross(v, s) = (s v.y, -s v.x)
static inline sn_vec2 sn_cross_vs(sn_vec2 v, float s) { return (sn_vec2){s * v.y, -s * v.x}; }
/// cross(s, v) = (-s v.y, s v.x)
static inline sn_vec2 sn_cross_sv(float s, sn_vec2 v) { return sn_pm_cross_sv(s, v); }
/// Counter-clockwise perpendicular.
static inline sn_vec2 sn_left_perp(sn_vec2 v) { return sn_pm_perp(v); }
/// Clockwise perpendicular.
static inline sn_vec2 sn_right_perp(sn_vec2 v) { return (sn_vec2){v.y, -v.x}; }
static inline float sn_length(sn_vec2 v) { return sqrtf(v.x * v.x + v.y * v.y); }
static inline float sn_length_sq(sn_vec2 v) { return v.x * v.x + v.y * v.y; }
static inline float sn_distance(sn_vec2 a, sn_vec2 b) { return sn_length(sn_sub(b, a)); }
static inline bool sn_vec2_within_limit(sn_vec2 v) { return sn_within_limit(v.x) && sn_within_limit(v.y); }
static inline float sn_distance_sq(sn_vec2 a, sn_vec2 b) { return sn_length_sq(sn_sub(b, a)); }

/// v limited to length sqrtf(max_sq) (the speed clamp of the integrators).
/// The plain formula when |v|^2 is finite (bit for bit as always); when it
/// overflows (components beyond ~1.8e19, or infinite) the direction is taken
/// from v scaled down, instead of sqrtf(max_sq / inf) = 0 stopping the body
/// dead (or 0 * inf = NaN).
static inline sn_vec2 sn_clamp_length(sn_vec2 v, float max_sq) {
  float len_sq = sn_length_sq(v);
  if (!(len_sq > max_sq)) return v;
  if (isfinite(len_sq)) return sn_scale(sqrtf(max_sq / len_sq), v);
  if (isinf(v.x) || isinf(v.y)) {
    v.x = isinf(v.x) ? copysignf(1.0f, v.x) : 0.0f;
    v.y = isinf(v.y) ? copysignf(1.0f, v.y) : 0.0f;
  } else {
    float m = fmaxf(fabsf(v.x), fabsf(v.y));
    v = sn_scale(1.0f / m, v);
  }
  return sn_scale(sqrtf(max_sq / sn_length_sq(v)), v);
}
static inline sn_vec2 sn_lerp(sn_vec2 a, sn_vec2 b, float t) {
  return (sn_vec2){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
}
static inline sn_vec2 sn_vmin(sn_vec2 a, sn_vec2 b) { return (sn_vec2){sn_minf(a.x, b.x), sn_minf(a.y, b.y)}; }
static inline sn_vec2 sn_vmax(sn_vec2 a, sn_vec2 b) { return (sn_vec2){sn_maxf(a.x, b.x), sn_maxf(a.y, b.y)}; }
/// Unit vector, or zero for a (near) zero vector.
static inline sn_vec2 sn_normalize(sn_vec2 v) {
  float len = sn_length(v);
  if (len < 1.1920929e-7f) return (sn_vec2){0.0f, 0.0f};
  float inv = 1.0f / len;
  return (sn_vec2){inv * v.x, inv * v.y};
}
/// Unit vector and its length.
static inline sn_vec2 sn_get_length_and_normalize(float *length, sn_vec2 v) {
  *length = sn_length(v);
  if (*length < 1.1920929e-7f) return (sn_vec2){0.0f, 0.0f};
  float inv = 1.0f / *length;
  return (sn_vec2){inv * v.x, inv * v.y};
}

/* rotations: q = (cos, sin) */
static inline sn_rot sn_rot_identity(void) { return (sn_rot){1.0f, 0.0f}; }
static inline sn_vec2 sn_rotate(sn_rot q, sn_vec2 v) { return sn_pm_rotate(q, v); }
static inline sn_vec2 sn_inv_rotate(sn_rot q, sn_vec2 v) { return sn_pm_inv_rotate(q, v); }
/// q * r
static inline sn_rot sn_mul_rot(sn_rot q, sn_rot r) { return (sn_rot){q.c * r.c - q.s * r.s, q.s * r.c + q.c * r.s}; }
/// transpose(q) * r
static inline sn_rot sn_inv_mul_rot(sn_rot q, sn_rot r) {
  return (sn_rot){q.c * r.c + q.s * r.s, q.c * r.s - q.s * r.c};
}
static inline sn_rot sn_normalize_rot(sn_rot q) {
  float mag = sqrtf(q.s * q.s + q.c * q.c);
  float inv = mag > 0.0f ? 1.0f / mag : 0.0f;
  return (sn_rot){q.c * inv, q.s * inv};
}
/// Advances q by the angle delta (first-order, renormalised).
static inline sn_rot sn_integrate_rotation(sn_rot q, float delta) {
  sn_rot q2 = {q.c - delta * q.s, q.s + delta * q.c};
  return sn_normalize_rot(q2);
}
static inline float sn_rot_angle(sn_rot q) { return atan2f(q.s, q.c); }
/// Relative angle of b with respect to a, in (-pi, pi].
static inline float sn_relative_angle(sn_rot a, sn_rot b) { return sn_pm_rel_angle(a, b); }

/* transforms */
static inline sn_transform sn_transform_identity(void) { return (sn_transform){{0.0f, 0.0f}, {1.0f, 0.0f}}; }
static inline sn_vec2 sn_transform_point(sn_transform t, sn_vec2 p) {
  return (sn_vec2){t.q.c * p.x - t.q.s * p.y + t.p.x, t.q.s * p.x + t.q.c * p.y + t.p.y};
}
static inline sn_vec2 sn_inv_transform_point(sn_transform t, sn_vec2 p) {
  float vx = p.x - t.p.x, vy = p.y - t.p.y;
  return (sn_vec2){t.q.c * vx + t.q.s * vy, -t.q.s * vx + t.q.c * vy};
}
/// A * B
static inline sn_transform sn_mul_transforms(sn_transform a, sn_transform b) {
  return (sn_transform){sn_add(sn_rotate(a.q, b.p), a.p), sn_mul_rot(a.q, b.q)};
}
/// inv(A) * B
static inline sn_transform sn_inv_mul_transforms(sn_transform a, sn_transform b) {
  return (sn_transform){sn_inv_rotate(a.q, sn_sub(b.p, a.p)), sn_inv_mul_rot(a.q, b.q)};
}

/* boxes */
static inline bool sn_aabb_overlaps(sn_aabb a, sn_aabb b) {
  return !(b.lower.x > a.upper.x || b.lower.y > a.upper.y || a.lower.x > b.upper.x || a.lower.y > b.upper.y);
}
static inline bool sn_aabb_contains(sn_aabb outer, sn_aabb inner) {
  return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y && inner.upper.x <= outer.upper.x &&
         inner.upper.y <= outer.upper.y;
}
static inline sn_aabb sn_aabb_union(sn_aabb a, sn_aabb b) {
  return (sn_aabb){sn_vmin(a.lower, b.lower), sn_vmax(a.upper, b.upper)};
}
static inline float sn_aabb_perimeter(sn_aabb a) { return 2.0f * (a.upper.x - a.lower.x + a.upper.y - a.lower.y); }
static inline sn_vec2 sn_aabb_center(sn_aabb a) {
  return (sn_vec2){0.5f * (a.lower.x + a.upper.x), 0.5f * (a.lower.y + a.upper.y)};
}
static inline sn_vec2 sn_aabb_extents(sn_aabb a) {
  return (sn_vec2){0.5f * (a.upper.x - a.lower.x), 0.5f * (a.upper.y - a.lower.y)};
}
static inline bool sn_aabb_is_valid(sn_aabb a) {
  return sn_vec2_is_finite(a.lower) && sn_vec2_is_finite(a.upper) && a.upper.x >= a.lower.x && a.upper.y >= a.lower.y;
}

#endif /* SN_BASE_MATH_H */
