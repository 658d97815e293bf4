/* Small math helpers for constraint plugins (header only, optional).
 *
 * Plugins include only sinew/plugin.h and never link libsinew, so the vector
 * and impulse helpers a solver needs live here as static inline functions.
 * Every helper spells out its arithmetic in a fixed order, so a plugin built
 * with -ffp-contract=off gets the same bits whether it calls them or writes
 * the expressions out itself.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_PLUGIN_MATH_H
#define SINEW_PLUGIN_MATH_H

#include <math.h>

#include "sinew/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Scalars and vectors                                                       */

/// The vector (x, y): a function, not a compound literal, so C++ can include this header.
static inline sn_vec2 sn_pm_vec2(float x, float y) {
  sn_vec2 v;
  v.x = x;
  v.y = y;
  return v;
}

/// x limited to [lo, hi] (lo when x < lo, else hi when x > hi).
static inline float sn_pm_clamp(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/// The larger of a and b: a when a > b, else b (fmaxf's result wherever b
/// is not NaN, signed zeros included, without the library call).
static inline float sn_pm_max(float a, float b) { return a > b ? a : b; }

/// The smaller of a and b: a when a < b, else b (fminf's result wherever b
/// is not NaN).
static inline float sn_pm_min(float a, float b) { return a < b ? a : b; }

/// a + b.
static inline sn_vec2 sn_pm_add(sn_vec2 a, sn_vec2 b) { return sn_pm_vec2(a.x + b.x, a.y + b.y); }

/// a - b.
static inline sn_vec2 sn_pm_sub(sn_vec2 a, sn_vec2 b) { return sn_pm_vec2(a.x - b.x, a.y - b.y); }

/// s a.
static inline sn_vec2 sn_pm_scale(float s, sn_vec2 a) { return sn_pm_vec2(s * a.x, s * a.y); }

/// -a (exact).
static inline sn_vec2 sn_pm_neg(sn_vec2 a) { return sn_pm_vec2(-a.x, -a.y); }

/// a . b.
static inline float sn_pm_dot(sn_vec2 a, sn_vec2 b) { return a.x * b.x + a.y * b.y; }

/// a x b (the z of the 3-D cross product).
static inline float sn_pm_cross(sn_vec2 a, sn_vec2 b) { return a.x * b.y - a.y * b.x; }

/// s x v for a scalar (z axis) s: (-s v.y, s v.x).
static inline sn_vec2 sn_pm_cross_sv(float s, sn_vec2 v) { return sn_pm_vec2(-s * v.y, s * v.x); }

/// a turned a quarter turn counter-clockwise: (-a.y, a.x).
static inline sn_vec2 sn_pm_perp(sn_vec2 a) { return sn_pm_vec2(-a.y, a.x); }

/// v scaled down to length max if it is longer (unchanged otherwise).
static inline sn_vec2 sn_pm_clamp_length(sn_vec2 v, float max) {
  float len_sq = v.x * v.x + v.y * v.y;
  if (len_sq <= max * max) return v;
  return sn_pm_scale(max / sqrtf(len_sq), v);
}

/// 1 / k, or 0 when k <= 0 (an effective mass from its inverse).
static inline float sn_pm_inv_or_zero(float k) { return k > 0.0f ? 1.0f / k : 0.0f; }

/* ------------------------------------------------------------------------ */
/* Rotations                                                                 */

/// q v.
static inline sn_vec2 sn_pm_rotate(sn_rot q, sn_vec2 v) {
  return sn_pm_vec2(q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y);
}

/// q^-1 v.
static inline sn_vec2 sn_pm_inv_rotate(sn_rot q, sn_vec2 v) {
  return sn_pm_vec2(q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y);
}

/// The coefficients of sn_pm_atan2's polynomial: atan(t) ~ t (1 + c1 t^2 +
/// ... + c7 t^14) on [0, 1], fitted for the least largest relative error
/// (2.2e-7), so a small angle keeps its relative precision.
#define SN_PM_ATAN_C1 -0.3333246409893036f
#define SN_PM_ATAN_C2 0.19975602626800537f
#define SN_PM_ATAN_C3 -0.14050336182117462f
#define SN_PM_ATAN_C4 0.09995334595441818f
#define SN_PM_ATAN_C5 -0.06060793995857239f
#define SN_PM_ATAN_C6 0.02503407560288906f
#define SN_PM_ATAN_C7 -0.004909452050924301f
/// atan(t) for t in [0, 1] from t and u = t^2 (Horner's rule, in this
/// order), as an expression of any arithmetic type: a float, or a GCC
/// vector of floats whose lanes must give sn_pm_atan2's bits.
#define SN_PM_ATAN_POLY(t, u)                                                                                          \
  ((((((((SN_PM_ATAN_C7 * (u) + SN_PM_ATAN_C6) * (u) + SN_PM_ATAN_C5) * (u) + SN_PM_ATAN_C4) * (u) + SN_PM_ATAN_C3) *  \
          (u) +                                                                                                        \
      SN_PM_ATAN_C2) *                                                                                                 \
         (u) +                                                                                                         \
     SN_PM_ATAN_C1) *                                                                                                  \
    (u)) *                                                                                                             \
       (t) +                                                                                                           \
   (t))
#define SN_PM_HALF_PI 1.57079637f /* pi / 2 rounded to float */
#define SN_PM_PI      3.14159274f /* pi rounded to float */

/// atan2(y, x) within 4e-7 rad (small angles to 2.2e-7 of their size), from additions, multiplications and one
/// division only, so it gives the same bits on every platform and compiler
/// (the C library's atan2f differs between them) and in SIMD lanes that
/// repeat it operation for operation: the ratio of the smaller to the
/// larger magnitude, a polynomial, then the octant. The sign is y's, so
/// atan2(-0, x < 0) is -pi; atan2(0, 0) is 0 (of y's sign). Finite inputs.
static inline float sn_pm_atan2(float y, float x) {
  const float ax = fabsf(x), ay = fabsf(y);
  const float big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
  const float t = big > 0.0f ? small / big : 0.0f, u = t * t;
  float r = SN_PM_ATAN_POLY(t, u);
  if (ay > ax) r = SN_PM_HALF_PI - r;
  if (x < 0.0f) r = SN_PM_PI - r;
  return copysignf(r, y);
}

/// Angle of b relative to a, in [-pi, pi] (sn_pm_atan2 of the relative
/// rotation).
static inline float sn_pm_rel_angle(sn_rot a, sn_rot b) {
  return sn_pm_atan2(a.c * b.s - a.s * b.c, a.c * b.c + a.s * b.s);
}

/// An angle brought back by one turn when it lies outside [-pi, pi].
static inline float sn_pm_unwind(float a) {
  const float pi = 3.14159265359f;
  if (a < -pi) return a + 2.0f * pi;
  if (a > pi) return a - 2.0f * pi;
  return a;
}

/// An angle tracked through any number of turns: adds the turn from *last
/// to now (in (-pi, pi], so less than half a turn may happen between two
/// calls), stores now in *last and returns the new angle. Rotations hold no
/// turn count; a joint that needs one (a gear, a ratchet) keeps the angle
/// and the last rotation in its instance and calls this once per step.
static inline float sn_pm_track_angle(float angle, sn_rot *last, sn_rot now) {
  angle += sn_pm_rel_angle(*last, now);
  *last = now;
  return angle;
}

/// The relative rotation of b to a: a^-1 b.
static inline sn_rot sn_pm_rel_rot(sn_rot a, sn_rot b) {
  sn_rot r;
  r.c = a.c * b.c + a.s * b.s;
  r.s = a.c * b.s - a.s * b.c;
  return r;
}

/* ------------------------------------------------------------------------ */
/* Body frames                                                               */

/// A world point in the body frame, from the body origin (for create).
static inline sn_vec2 sn_pm_local_point(const sn_constraint_body *b, sn_vec2 world) {
  return sn_pm_inv_rotate(b->q, sn_pm_sub(world, b->origin));
}

/// A body-frame point (from the origin) in the world, at step start.
static inline sn_vec2 sn_pm_world_point(const sn_constraint_body *b, sn_vec2 local) {
  return sn_pm_add(b->origin, sn_pm_rotate(b->q, local));
}

/// A body-frame point (from the origin) as a world-frame arm from the centre
/// of mass, at step start.
static inline sn_vec2 sn_pm_arm(const sn_constraint_body *b, sn_vec2 local) {
  return sn_pm_rotate(b->q, sn_pm_sub(local, b->local_center));
}

/// Current vector from anchor A to anchor B inside a substep: arms ra, rb
/// already turned by dq, delta_center = centre B - centre A at step start.
static inline sn_vec2 sn_pm_separation(const sn_solver_body *sa, const sn_solver_body *sb, sn_vec2 ra, sn_vec2 rb,
                                       sn_vec2 delta_center) {
  return sn_pm_add(sn_pm_add(sn_pm_sub(sb->dp, sa->dp), sn_pm_sub(rb, ra)), delta_center);
}

/// Velocity of anchor B relative to anchor A: (vB + wB x rB) - (vA + wA x rA).
static inline sn_vec2 sn_pm_relative_velocity(const sn_solver_body *sa, const sn_solver_body *sb, sn_vec2 ra,
                                              sn_vec2 rb) {
  return sn_pm_sub(sn_pm_add(sb->v, sn_pm_cross_sv(sb->w, rb)), sn_pm_add(sa->v, sn_pm_cross_sv(sa->w, ra)));
}

/* ------------------------------------------------------------------------ */
/* Soft step                                                                 */

/// Soft-step coefficients of a row (Box2D v3 "soft step"): with
/// omega = 2 pi hertz, impulse = -mass_scale m (Cdot + bias_rate C)
/// - impulse_scale accumulated.
typedef struct sn_pm_softness {
  float bias_rate, mass_scale, impulse_scale;
} sn_pm_softness;

/// Soft-step coefficients for stiffness hertz, damping ratio zeta and
/// substep h: bias_rate = omega / (2 zeta + h omega) (0 when that is not
/// positive), mass_scale = a2 / (1 + a2), impulse_scale = 1 / (1 + a2) with
/// a2 = h omega (2 zeta + h omega).
static inline sn_pm_softness sn_pm_soft(float hertz, float zeta, float h) {
  float omega = 2.0f * 3.14159265359f * hertz;
  float a1 = 2.0f * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0f / (1.0f + a2);
  sn_pm_softness s;
  s.bias_rate = a1 > 0.0f ? omega / a1 : 0.0f;
  s.mass_scale = a2 * a3;
  s.impulse_scale = a3;
  return s;
}

/// One side of a limit, a row C = c >= 0 with effective mass mass, in the
/// velocity stage (cdot: the speed that opens the gap). While the gap is open
/// (c > 0) the row is rigid with bias c / h, speculative: it may close the
/// gap within the substep, no further. Once closed it is soft with the row's
/// coefficients in the biased pass (use_bias) and rigid without bias in the
/// relax pass. The accumulated impulse *accumulated stays >= 0 (a limit only
/// pushes); returns this call's share of it, to apply along the row.
static inline float sn_pm_limit_impulse(float c, float cdot, float mass, int use_bias, float inv_h, sn_pm_softness soft,
                                        float *accumulated) {
  float bias = 0.0f, ms = 1.0f, is = 0.0f;
  if (c > 0.0f) {
    bias = c * inv_h;
  } else if (use_bias) {
    bias = soft.bias_rate * c;
    ms = soft.mass_scale;
    is = soft.impulse_scale;
  }
  float impulse = -mass * ms * (cdot + bias) - is * *accumulated;
  float next = sn_pm_max(*accumulated + impulse, 0.0f);
  impulse = next - *accumulated;
  *accumulated = next;
  return impulse;
}

/* ------------------------------------------------------------------------ */
/* 2x2 blocks                                                                */

/// A symmetric 2x2 matrix [k11 k12; k12 k22].
typedef struct sn_pm_sym22 {
  float k11, k12, k22;
} sn_pm_sym22;

/// K^-1 rhs by Cramer's rule; a singular K (det == 0) gives 0.
static inline sn_vec2 sn_pm_solve22(sn_pm_sym22 k, sn_vec2 rhs) {
  float det = k.k11 * k.k22 - k.k12 * k.k12;
  if (det != 0.0f) det = 1.0f / det;
  return sn_pm_vec2(det * (k.k22 * rhs.x - k.k12 * rhs.y), det * (k.k11 * rhs.y - k.k12 * rhs.x));
}

/// Effective-mass matrix of a point constraint between two bodies with
/// inverse masses ma, mb, inverse inertias ia, ib and arms ra, rb:
/// K = (ma + mb) I + ia [ra]x^T [ra]x + ib [rb]x^T [rb]x.
static inline sn_pm_sym22 sn_pm_point_mass(float ma, float mb, float ia, float ib, sn_vec2 ra, sn_vec2 rb) {
  sn_pm_sym22 k;
  k.k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
  k.k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
  k.k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
  return k;
}

/* ------------------------------------------------------------------------ */
/* Applying impulses                                                         */

/// Applies linear impulse P and angular impulse l to one body: v += m P, w += i l.
static inline void sn_pm_apply_body(const sn_constraint_body *b, sn_vec2 P, float l) {
  b->state->v = sn_pm_add(b->state->v, sn_pm_scale(b->inv_mass, P));
  b->state->w += b->inv_inertia * l;
}

/// Applies linear impulse P to B and -P to A, angular impulse lb to B and -la
/// to A (A first).
static inline void sn_pm_apply_pair(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 P, float la,
                                    float lb) {
  a->state->v = sn_pm_sub(a->state->v, sn_pm_scale(a->inv_mass, P));
  a->state->w -= a->inv_inertia * la;
  b->state->v = sn_pm_add(b->state->v, sn_pm_scale(b->inv_mass, P));
  b->state->w += b->inv_inertia * lb;
}

/// Applies a point impulse P at arms ra, rb plus an axial (pure angular)
/// impulse: sn_pm_apply_pair with la = ra x P + axial, lb = rb x P + axial.
static inline void sn_pm_apply_point(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb,
                                     sn_vec2 P, float axial) {
  sn_pm_apply_pair(a, b, P, sn_pm_cross(ra, P) + axial, sn_pm_cross(rb, P) + axial);
}

/* ------------------------------------------------------------------------ */
/* Moving positions (position projection and XPBD stages)                    */

/// Largest speed (m/s, rad/s) a position-stage projection should induce:
/// the host turns the move into velocity, so a large error (a body
/// teleported, a length changed at run time) is closed over several
/// substeps instead of launching the bodies. Clamp C to this times h.
#define SN_PM_MAX_PROJECTION_SPEED 10.0f

/// Turns rotation q by a small angle (first order, renormalised).
static inline sn_rot sn_pm_turn(sn_rot q, float angle) {
  sn_rot r = {q.c - angle * q.s, q.s + angle * q.c};
  float len = sqrtf(r.c * r.c + r.s * r.s);
  if (len > 0.0f) {
    r.c /= len;
    r.s /= len;
  }
  return r;
}

/// Moves one body by a positional "impulse": dp += m P, dq turned by i l.
/// Harmless on the shared static state (zero inverse mass and inertia).
static inline void sn_pm_move_body(const sn_constraint_body *b, sn_vec2 P, float l) {
  b->state->dp = sn_pm_add(b->state->dp, sn_pm_scale(b->inv_mass, P));
  if (b->inv_inertia != 0.0f) b->state->dq = sn_pm_turn(b->state->dq, b->inv_inertia * l);
}

/// Positional counterpart of sn_pm_apply_point: moves B by +P at arm rb and
/// A by -P at arm ra (A first).
static inline void sn_pm_move_point(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb,
                                    sn_vec2 P, float axial) {
  sn_pm_move_body(a, sn_pm_neg(P), -(sn_pm_cross(ra, P) + axial));
  sn_pm_move_body(b, P, sn_pm_cross(rb, P) + axial);
}

/// For the position stage (project): moves one body like sn_pm_move_body
/// and gives it the same motion over the substep as velocity (v += m P / h,
/// w += i l / h). Applying the velocity here, from the correction itself,
/// keeps momentum exact to rounding (differencing positions would not).
static inline void sn_pm_project_body(const sn_constraint_body *b, sn_vec2 P, float l, float inv_h) {
  sn_pm_move_body(b, P, l);
  b->state->v = sn_pm_add(b->state->v, sn_pm_scale(b->inv_mass * inv_h, P));
  b->state->w += b->inv_inertia * inv_h * l;
}

/// sn_pm_move_point for the position stage (with the velocity, see
/// sn_pm_project_body).
static inline void sn_pm_project_point(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb,
                                       sn_vec2 P, float axial, float inv_h) {
  sn_pm_project_body(a, sn_pm_neg(P), -(sn_pm_cross(ra, P) + axial), inv_h);
  sn_pm_project_body(b, P, sn_pm_cross(rb, P) + axial, inv_h);
}

/// Current geometry of a point-on-line joint (prismatic, wheel) inside a
/// substep: arms ra, rb and the line axis (fixed in A) turned by dq, the gap
/// d between the anchors, and perp = the axis turned a quarter.
typedef struct sn_pm_line_frame {
  sn_vec2 ra, rb, d, axis, perp;
} sn_pm_line_frame;

/// The line frame from step-start arms ra0, rb0, centre B - centre A at step
/// start delta_center and the step-start world axis axis0.
static inline sn_pm_line_frame sn_pm_line_frame_at(const sn_solver_body *sa, const sn_solver_body *sb, sn_vec2 ra0,
                                                   sn_vec2 rb0, sn_vec2 delta_center, sn_vec2 axis0) {
  sn_pm_line_frame f;
  f.ra = sn_pm_rotate(sa->dq, ra0);
  f.rb = sn_pm_rotate(sb->dq, rb0);
  f.d = sn_pm_separation(sa, sb, f.ra, f.rb, delta_center);
  f.axis = sn_pm_rotate(sa->dq, axis0);
  f.perp = sn_pm_perp(f.axis);
  return f;
}

/// The position stage of a point row (pin): with step-start arms ra0, rb0
/// and centre B - centre A at step start delta_center, moves both anchors
/// together (error clamped to SN_PM_MAX_PROJECTION_SPEED * h) with the
/// velocity that goes with it; returns the positional impulse applied to B.
/// The velocity row of a pin (point) joint, one substep: vB + wB x rB - vA -
/// wA x rA = 0 with step-start arms ra0, rb0 and centre B - centre A at
/// step start delta_center; with use_bias, soft feedback on the anchors' gap
/// (soft: sn_pm_soft), without it a rigid row. K = (mA + mB) I + iA [rA]x^T
/// [rA]x + iB [rB]x^T [rB]x is solved by Cramer's rule. Adds the impulse to
/// *accumulated (warm-started) and applies it to both bodies.
static inline void sn_pm_point_row(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra0, sn_vec2 rb0,
                                   sn_vec2 delta_center, sn_pm_softness soft, int use_bias, sn_vec2 *accumulated) {
  sn_solver_body *sa = a->state, *sb = b->state;
  sn_vec2 ra = sn_pm_rotate(sa->dq, ra0), rb = sn_pm_rotate(sb->dq, rb0);
  sn_vec2 cdot = sn_pm_relative_velocity(sa, sb, ra, rb);
  sn_vec2 bias = {0.0f, 0.0f};
  float ms = 1.0f, is = 0.0f;
  if (use_bias) {
    sn_vec2 sep = sn_pm_separation(sa, sb, ra, rb, delta_center);
    bias = sn_pm_scale(soft.bias_rate, sep);
    ms = soft.mass_scale;
    is = soft.impulse_scale;
  }
  sn_vec2 rhs = sn_pm_add(cdot, bias);
  sn_vec2 x = sn_pm_solve22(sn_pm_point_mass(a->inv_mass, b->inv_mass, a->inv_inertia, b->inv_inertia, ra, rb), rhs);
  sn_vec2 impulse = {-ms * x.x - is * accumulated->x, -ms * x.y - is * accumulated->y};
  *accumulated = sn_pm_add(*accumulated, impulse);
  sn_pm_apply_point(a, b, ra, rb, impulse, 0.0f);
}

static inline sn_vec2 sn_pm_project_anchors(const sn_step_info *info, const sn_constraint_body *a,
                                            const sn_constraint_body *b, sn_vec2 ra0, sn_vec2 rb0,
                                            sn_vec2 delta_center) {
  const sn_solver_body *sa = a->state, *sb = b->state;
  sn_vec2 ra = sn_pm_rotate(sa->dq, ra0), rb = sn_pm_rotate(sb->dq, rb0);
  sn_vec2 sep =
      sn_pm_clamp_length(sn_pm_separation(sa, sb, ra, rb, delta_center), SN_PM_MAX_PROJECTION_SPEED * info->h);
  sn_pm_sym22 k = sn_pm_point_mass(a->inv_mass, b->inv_mass, a->inv_inertia, b->inv_inertia, ra, rb);
  sn_vec2 P = sn_pm_neg(sn_pm_solve22(k, sep));
  sn_pm_project_point(a, b, ra, rb, P, 0.0f, info->inv_h);
  return P;
}

/* ------------------------------------------------------------------------ */
/* XPBD multipliers (docs/soft-bodies.md)                                    */

/// The multiplier step of one XPBD constraint with error c and wsum = sum
/// of w |grad C|^2 over its particles (positive): with alpha~ = compliance
/// / h^2 and gamma = damping / h (0 when compliance is 0),
/// dlambda = (-c - alpha~ lambda - gamma (c - c_start)) / ((1 + gamma) wsum + alpha~),
/// c_start the error at the substep start (damping only).
static inline float sn_pm_xpbd_delta_lambda(const sn_step_info *info, float c, float wsum, float lambda, float c_start,
                                            float compliance, float damping) {
  float at = compliance * (info->inv_h * info->inv_h);
  float gamma = compliance > 0.0f ? damping / info->h : 0.0f;
  return (-c - at * lambda - gamma * (c - c_start)) / ((1.0f + gamma) * wsum + at);
}

/// Plain PBD (stiffness mode): the share of the error one sweep corrects,
/// k' = 1 - (1 - stiffness)^(1 / n) with n = substeps x iterations, so the
/// sweeps of one step compound to the user's stiffness. The step is then
/// dlambda = -k' c / wsum.
static inline float sn_pm_pbd_sweep_stiffness(const sn_step_info *info, float stiffness) {
  const float sweeps = (float)(info->substeps * (info->iterations > 0 ? info->iterations : 1));
  return 1.0f - powf(1.0f - stiffness, 1.0f / sweeps);
}

/* ------------------------------------------------------------------------ */
/* Reaction accounting (docs/plugins.md, "Reaction accounting")              */

/* get_reaction reports newtons. An accumulated impulse is per substep, so
 * the force is impulse / h. A row that `project` solves too shares its load
 * with the projection, whose correction P counts as an impulse P / h; the
 * steadiest figure is the step's average. Keep, per shared row, a sum over
 * the step and, per constraint, one sample count (zero both in prepare). In
 * project: when sn_pm_reaction_sample says a substep starts, add each shared
 * row's accumulated impulse to its sum; add every correction as
 * sn_pm_reaction_correction. In get_reaction: sn_pm_reaction_average of each
 * shared row, plus the rows project leaves alone (limits, motors), times
 * info->inv_h. */

/// [project] True at a substep's first position sweep (info->iteration 0),
/// having counted the substep in *samples: add each shared row's
/// accumulated velocity-stage impulse to its sum then (once per substep).
static inline bool sn_pm_reaction_sample(const sn_step_info *info, int32_t *samples) {
  if (info->iteration != 0) return false;
  ++*samples;
  return true;
}

/// [project] A position correction P (kg m, or kg m^2 for an angle) as the
/// impulse it stands for in the substep: P / h. Add it to the row's sum.
static inline float sn_pm_reaction_correction(const sn_step_info *info, float P) { return info->inv_h * P; }

/// sn_pm_reaction_correction of a two-row correction (a point, or a
/// perpendicular and an angle).
static inline sn_vec2 sn_pm_reaction_correction2(const sn_step_info *info, sn_vec2 P) {
  return sn_pm_scale(info->inv_h, P);
}

/// [get_reaction] A shared row's impulse per substep: the step's average
/// sum / samples when the position stage ran (samples > 0), else the last
/// accumulated impulse (samples 0: position_iterations 0, or project not
/// called this step). Times info->inv_h it is the force (or the torque).
static inline float sn_pm_reaction_average(float sum, int32_t samples, float last) {
  return samples > 0 ? sum / (float)samples : last;
}

/// sn_pm_reaction_average of two rows, each divided by samples.
static inline sn_vec2 sn_pm_reaction_average2(sn_vec2 sum, int32_t samples, sn_vec2 last) {
  return samples > 0 ? sn_pm_vec2(sum.x / (float)samples, sum.y / (float)samples) : last;
}

#ifdef __cplusplus
}
#endif

#endif
