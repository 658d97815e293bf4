/* revolute: a pin joint. Two bodies share a point and rotate freely about
 * it, with an optional angular spring (toward target_angle), an optional
 * motor (target relative speed, bounded torque) and an optional angle range.
 * Soft-step aware: position feedback (soft, spring-damper) in the biased
 * solve, none in the relax pass; all impulses are accumulated and
 * warm-started.
 *
 * The spring is a soft row on the relative angle with the user's hertz and
 * damping ratio, in both passes (a physical spring, as the wheel's
 * suspension): C = angle - target_angle (the angle in (-pi, pi], as the
 * state "angle" reads it), Cdot = wB - wA, effective mass
 * I_axial = 1 / (1/I_A + 1/I_B) (inertias about the centres of mass). It
 * acts as a torsion spring of stiffness k = I_axial (2 pi hertz)^2 and
 * damping c = 2 damping_ratio I_axial (2 pi hertz). Every parameter but the
 * anchor and the pinned definition may change at run time.
 *
 * Warm start and the velocity passes take four independent items at a time
 * in SIMD lanes when the host says a call's items share no body state
 * (SN_STEP_INDEPENDENT_ITEMS): the point row's arithmetic in the lanes is
 * the scalar row's, operation for operation, so both give the same bits.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h and sinew/plugin_batch.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_batch.h"
#include "sinew/plugin_math.h"

typedef struct revolute_params {
  sn_vec2 anchor; /* world point at creation */
  int32_t enable_motor;
  float motor_speed;      /* rad/s of body B relative to body A */
  float max_motor_torque; /* N m */
  int32_t enable_limit;
  float lower_angle, upper_angle; /* rad, relative to the reference angle */
  /* pinned definition (export_params writes it): used instead of anchor and
   * the bodies' poses when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  float reference_angle;                  /* angle B - angle A of the unloaded joint */
  int32_t enable_spring;
  float hertz, damping_ratio; /* spring stiffness and damping */
  float target_angle;         /* rad, the spring's rest angle relative to the reference angle */
} revolute_params;

/* The first 64 bytes (one cache line: the instance is 64-byte aligned) are
 * all a substep pass of a joint without spring, motor or limit reads, in the
 * 16-byte rows the SIMD kernels load: the passes stream through every
 * instance five times a substep. */
typedef struct revolute_instance {
  /* per step, read by every pass */
  _Alignas(64) sn_vec2 ra; /* anchors from the centres of mass, world frame, step start */
  sn_vec2 rb;
  sn_vec2 delta_center; /* centre B - centre A at step start */
  int32_t samples;      /* substeps summed in step_impulse (0: no position stage ran) */
  int32_t axial;        /* the spring, motor or limit is on (the axial rows run) */
  float bias_rate, mass_scale, impulse_scale;
  float delta_angle;    /* angle B - A - reference at step start */
  sn_vec2 impulse;      /* accumulated point impulse */
  sn_vec2 step_impulse; /* sum over the step's substeps of impulse + position-stage correction / h */
  /* the axial rows */
  float motor_impulse, lower_impulse, upper_impulse;
  float spring_impulse;
  float axial_mass;
  float spring_bias_rate, spring_mass_scale, spring_impulse_scale;
  /* the definition */
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  float reference_angle;
} revolute_instance;

/* The spring acts when it is on with a positive frequency. */
static int spring_on(const revolute_params *p) { return p->enable_spring && p->hertz > 0.0f; }

static int revolute_create(const sn_constraint_create_args *args) {
  const revolute_params *p = args->params;
  revolute_instance *j = args->instance;
  if (p->enable_limit && p->lower_angle > p->upper_angle) {
    snprintf(args->err, args->err_capacity, "lower_angle %g > upper_angle %g", (double)p->lower_angle,
             (double)p->upper_angle);
    return 1;
  }
  const sn_constraint_body *a = args->bodies[0], *b = args->bodies[1];
  if (p->pinned) {
    j->local_a = p->local_anchor_a;
    j->local_b = p->local_anchor_b;
    j->reference_angle = p->reference_angle;
  } else {
    j->local_a = sn_pm_local_point(a, p->anchor);
    j->local_b = sn_pm_local_point(b, p->anchor);
    j->reference_angle = sn_pm_rel_angle(a->q, b->q);
  }
  j->impulse = j->step_impulse = (sn_vec2){0.0f, 0.0f};
  j->samples = 0;
  j->motor_impulse = j->lower_impulse = j->upper_impulse = j->spring_impulse = 0.0f;
  return 0;
}

/* Runtime changes never fail: limits set one at a time may pass through a
 * crossed range, which the solver reads as [min, max]. Impulses of a row that
 * was switched off must not be warm-started. */
static int revolute_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)err;
  (void)cap;
  const revolute_params *p = params;
  revolute_instance *j = instance;
  if (!spring_on(p)) j->spring_impulse = 0.0f;
  if (!p->enable_motor) j->motor_impulse = 0.0f;
  if (!p->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

/* the definition create() derived, pinned: recreates this joint from any poses */
static int revolute_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                           int32_t count, void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const revolute_instance *j = instance;
  revolute_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->reference_angle = j->reference_angle;
  return 0;
}

static void revolute_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  /* soft position feedback: omega = 2 pi hertz, implicit spring-damper */
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const revolute_params *p = items[i].params;
    revolute_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->delta_angle = sn_pm_rel_angle(a->q, b->q) - j->reference_angle;
    j->axial_mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
    j->step_impulse = (sn_vec2){0.0f, 0.0f};
    j->samples = 0;
    j->axial = p->enable_motor || p->enable_limit || spring_on(p);
    if (spring_on(p)) {
      const sn_pm_softness spring = sn_pm_soft(p->hertz, p->damping_ratio, info->h);
      j->spring_bias_rate = spring.bias_rate;
      j->spring_mass_scale = spring.mass_scale;
      j->spring_impulse_scale = spring.impulse_scale;
    }
  }
}

/* The axial impulse the warm start applies: +0 without axial rows (their
 * impulses are 0 then: params_changed clears a row switched off, and
 * 0 + 0 - 0 is +0), read from the instance's first line alone. */
static float revolute_axial(const sn_constraint_item *item) {
  const revolute_instance *j = item->instance;
  if (!j->axial) return 0.0f;
  float axial = j->motor_impulse + j->lower_impulse - j->upper_impulse;
  if (spring_on(item->params)) axial += j->spring_impulse;
  return axial;
}

static void revolute_warm_one(sn_constraint_item *item) {
  const revolute_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 ra = sn_pm_rotate(a->state->dq, j->ra), rb = sn_pm_rotate(b->state->dq, j->rb);
  sn_pm_apply_point(a, b, ra, rb, j->impulse, revolute_axial(item));
}

/* Whether an item has an axial row (spring, motor or limit). */
static inline int revolute_has_axial(const sn_constraint_item *item) {
  return ((const revolute_instance *)item->instance)->axial;
}

/* The axial rows (spring, motor, limit) of one item. */
static void revolute_axial_rows(const sn_step_info *info, sn_constraint_item *item, int use_bias) {
  const float h = info->h, inv_h = info->inv_h;
  const revolute_params *p = item->params;
  revolute_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_solver_body *sa = a->state, *sb = b->state;
  const float ia = a->inv_inertia, ib = b->inv_inertia;
  /* the rotation since the step start: the rows change velocities only, so
   * the spring and the limit read the same angle (one atan2f for both) */
  float turned = 0.0f;
  int have_turned = 0;
  if (spring_on(p) && j->axial_mass > 0.0f) {
    /* soft row toward the target angle, the same in both passes */
    turned = sn_pm_rel_angle(sa->dq, sb->dq);
    have_turned = 1;
    float c = sn_pm_unwind(j->delta_angle + turned) - p->target_angle;
    float cdot = sb->w - sa->w;
    float impulse = -j->axial_mass * j->spring_mass_scale * (cdot + j->spring_bias_rate * c) -
                    j->spring_impulse_scale * j->spring_impulse;
    j->spring_impulse += impulse;
    sa->w -= ia * impulse;
    sb->w += ib * impulse;
  }
  if (p->enable_motor && j->axial_mass > 0.0f) {
    float cdot = sb->w - sa->w - p->motor_speed;
    float impulse = -j->axial_mass * cdot;
    float old = j->motor_impulse, max = h * p->max_motor_torque;
    j->motor_impulse = sn_pm_clamp(old + impulse, -max, max);
    impulse = j->motor_impulse - old;
    sa->w -= ia * impulse;
    sb->w += ib * impulse;
  }
  if (p->enable_limit && j->axial_mass > 0.0f) {
    if (!have_turned) turned = sn_pm_rel_angle(sa->dq, sb->dq);
    float angle = j->delta_angle + turned;
    float lower = sn_pm_min(p->lower_angle, p->upper_angle), upper = sn_pm_max(p->lower_angle, p->upper_angle);
    const sn_pm_softness soft = {j->bias_rate, j->mass_scale, j->impulse_scale};
    for (int side = 0; side < 2; ++side) {
      /* lower: C = angle - lower >= 0; upper: C = upper - angle >= 0 */
      float c = side == 0 ? angle - lower : upper - angle;
      float cdot = side == 0 ? sb->w - sa->w : sa->w - sb->w;
      float *acc = side == 0 ? &j->lower_impulse : &j->upper_impulse;
      float impulse = sn_pm_limit_impulse(c, cdot, j->axial_mass, use_bias, inv_h, soft, acc);
      float s = side == 0 ? impulse : -impulse;
      sa->w -= ia * s;
      sb->w += ib * s;
    }
  }
}

/* The point row of one item: vB + wB x rB - vA - wA x rA = 0, with soft
 * feedback on the gap in the biased pass. */
static void revolute_point_row(sn_constraint_item *item, int use_bias) {
  revolute_instance *j = item->instance;
  const sn_pm_softness soft = {j->bias_rate, j->mass_scale, j->impulse_scale};
  sn_pm_point_row(item->bodies[0], item->bodies[1], j->ra, j->rb, j->delta_center, soft, use_bias, &j->impulse);
}

#if SN_PB_SIMD
/* Four independent items in SSE lanes. Records are read 16 bytes at a time
 * and turned into lanes by 4x4 transposes (a body's velocity row, its pose
 * row, the instance's arms, gap and softness rows), so no lane is built
 * through memory. The expressions below are those of the scalar helpers
 * (sn_pm_rotate, sn_pm_relative_velocity, sn_pm_separation,
 * sn_pm_point_mass, sn_pm_solve22, sn_pm_apply_point) term for term, in
 * their order, so every lane gets the scalar bits. */
typedef sn_pb_vf4 rv4;
typedef sn_pb_vi4 ri4;

typedef struct revolute_side4 {
  rv4 vx, vy, w, reserved, dpx, dpy, qc, qs, m, i;
} revolute_side4;

/* Four 16-byte rows (the float at p(l) onwards) as four lanes of each of
 * their floats. */
#define REVOLUTE_ROWS(p, x0, x1, x2, x3)                                                                               \
  do {                                                                                                                 \
    __m128 r0_ = _mm_loadu_ps(p(0)), r1_ = _mm_loadu_ps(p(1)), r2_ = _mm_loadu_ps(p(2)), r3_ = _mm_loadu_ps(p(3));     \
    _MM_TRANSPOSE4_PS(r0_, r1_, r2_, r3_);                                                                             \
    x0 = (rv4)r0_, x1 = (rv4)r1_, x2 = (rv4)r2_, x3 = (rv4)r3_;                                                        \
  } while (0)

static inline __attribute__((always_inline)) revolute_side4 revolute_gather_side(sn_constraint_item *items, int side) {
  revolute_side4 g;
#define REVOLUTE_V(l) (&items[l].bodies[side]->state->v.x)
#define REVOLUTE_P(l) (&items[l].bodies[side]->state->dp.x)
  REVOLUTE_ROWS(REVOLUTE_V, g.vx, g.vy, g.w, g.reserved);
  REVOLUTE_ROWS(REVOLUTE_P, g.dpx, g.dpy, g.qc, g.qs);
#undef REVOLUTE_V
#undef REVOLUTE_P
  /* inverse mass and inertia: 8 bytes of each view */
  __m128 m0 = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)&items[0].bodies[side]->inv_mass);
  __m128 m1 = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)&items[1].bodies[side]->inv_mass);
  __m128 m2 = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)&items[2].bodies[side]->inv_mass);
  __m128 m3 = _mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)&items[3].bodies[side]->inv_mass);
  __m128 a01 = _mm_unpacklo_ps(m0, m1), a23 = _mm_unpacklo_ps(m2, m3);
  g.m = (rv4)_mm_movelh_ps(a01, a23);
  g.i = (rv4)_mm_movehl_ps(a23, a01);
  return g;
}

/* The velocities back (v and w; the reserved float is not written). */
static inline __attribute__((always_inline)) void revolute_scatter_side(sn_constraint_item *items, int side,
                                                                        const revolute_side4 *g) {
  __m128 r0 = (__m128)g->vx, r1 = (__m128)g->vy, r2 = (__m128)g->w, r3 = (__m128)g->reserved;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  __m128 rows[4] = {r0, r1, r2, r3};
  for (int l = 0; l < 4; ++l) {
    sn_solver_body *s = items[l].bodies[side]->state;
    _mm_storel_pi((__m64 *)(void *)&s->v.x, rows[l]);
    _mm_store_ss(&s->w, _mm_movehl_ps(rows[l], rows[l]));
  }
}

/* The point row's effective mass K (symmetric 2x2) per lane, and det =
 * 1 / det K where det K is not 0 (0 there). */
static inline __attribute__((always_inline)) void revolute_point_mass4(const revolute_side4 *a, const revolute_side4 *b,
                                                                       rv4 rax, rv4 ray, rv4 rbx, rv4 rby, rv4 *k11,
                                                                       rv4 *k12, rv4 *k22, rv4 *det) {
  *k11 = a->m + b->m + ray * ray * a->i + rby * rby * b->i;
  *k12 = -ray * rax * a->i - rby * rbx * b->i;
  *k22 = a->m + b->m + rax * rax * a->i + rbx * rbx * b->i;
  const rv4 d = *k11 * *k22 - *k12 * *k12;
  const rv4 one = {1.0f, 1.0f, 1.0f, 1.0f};
  const ri4 nonzero = d != 0.0f;
  *det = SN_PB_SEL_4(nonzero, one / d, d);
}

/* sn_pm_apply_point with impulse (px, py) and axial impulse ax per lane. */
static inline __attribute__((always_inline)) void revolute_apply4(revolute_side4 *a, revolute_side4 *b, rv4 rax,
                                                                  rv4 ray, rv4 rbx, rv4 rby, rv4 px, rv4 py, rv4 ax) {
  const rv4 la = (rax * py - ray * px) + ax, lb = (rbx * py - rby * px) + ax;
  a->vx = a->vx - a->m * px;
  a->vy = a->vy - a->m * py;
  a->w = a->w - a->i * la;
  b->vx = b->vx + b->m * px;
  b->vy = b->vy + b->m * py;
  b->w = b->w + b->i * lb;
}

#define REVOLUTE_J(l, field) (&((revolute_instance *)items[l].instance)->field)
#define REVOLUTE_ARMS(l)     REVOLUTE_J(l, ra.x)
#define REVOLUTE_GAP(l)      REVOLUTE_J(l, delta_center.x)
#define REVOLUTE_SOFT(l)     REVOLUTE_J(l, bias_rate)
#define REVOLUTE_IMPULSE(l)  REVOLUTE_J(l, impulse.x)

static void revolute_warm4(sn_constraint_item *items) {
  revolute_side4 a = revolute_gather_side(items, 0), b = revolute_gather_side(items, 1);
  rv4 ra0x, ra0y, rb0x, rb0y, px, py, unused0, unused1, ax;
  REVOLUTE_ROWS(REVOLUTE_ARMS, ra0x, ra0y, rb0x, rb0y);
  REVOLUTE_ROWS(REVOLUTE_IMPULSE, px, py, unused0, unused1);
  (void)unused0, (void)unused1;
  for (int l = 0; l < 4; ++l) ax[l] = revolute_axial(items + l);
  const rv4 rax = a.qc * ra0x - a.qs * ra0y, ray = a.qs * ra0x + a.qc * ra0y;
  const rv4 rbx = b.qc * rb0x - b.qs * rb0y, rby = b.qs * rb0x + b.qc * rb0y;
  revolute_apply4(&a, &b, rax, ray, rbx, rby, px, py, ax);
  revolute_scatter_side(items, 0, &a);
  revolute_scatter_side(items, 1, &b);
}

/* sn_pm_atan2 per lane, operation for operation. */
static inline __attribute__((always_inline)) rv4 revolute_atan2_4(rv4 y, rv4 x) {
  const ri4 magnitude = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
  const rv4 ax = (rv4)(((ri4)x) & magnitude), ay = (rv4)(((ri4)y) & magnitude);
  const ri4 x_bigger = ax > ay;
  const rv4 big = SN_PB_SEL_4(x_bigger, ax, ay), small = SN_PB_SEL_4(x_bigger, ay, ax);
  const rv4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
  const rv4 t = SN_PB_SEL_4(big > 0.0f, small / big, zero), u = t * t;
  rv4 r = SN_PM_ATAN_POLY(t, u);
  r = SN_PB_SEL_4(ay > ax, SN_PM_HALF_PI - r, r);
  r = SN_PB_SEL_4(x < 0.0f, SN_PM_PI - r, r);
  return (rv4)((((ri4)r) & magnitude) | (((ri4)y) & ~magnitude));
}

/* sn_pm_unwind per lane. */
static inline __attribute__((always_inline)) rv4 revolute_unwind4(rv4 a) {
  const float pi = 3.14159265359f;
  return SN_PB_SEL_4(a < -pi, a + 2.0f * pi, SN_PB_SEL_4(a > pi, a - 2.0f * pi, a));
}

/* sn_pm_limit_impulse per lane (on: the lanes whose limit row runs; the
 * others keep their accumulated impulse). */
static inline __attribute__((always_inline)) rv4 revolute_limit4(rv4 c, rv4 cdot, rv4 mass, int use_bias, float inv_h,
                                                                 rv4 rate, rv4 ms, rv4 is, rv4 *accumulated, ri4 on) {
  const rv4 zero = {0.0f, 0.0f, 0.0f, 0.0f}, one = {1.0f, 1.0f, 1.0f, 1.0f};
  const ri4 open = c > 0.0f;
  const rv4 bias = SN_PB_SEL_4(open, c * inv_h, use_bias ? rate * c : zero);
  const rv4 m = SN_PB_SEL_4(open, one, use_bias ? ms : one), i = SN_PB_SEL_4(open, zero, use_bias ? is : zero);
  rv4 impulse = -mass * m * (cdot + bias) - i * *accumulated;
  const rv4 sum = *accumulated + impulse;
  const rv4 next = SN_PB_SEL_4(sum > 0.0f, sum, zero);
  impulse = next - *accumulated;
  *accumulated = SN_PB_SEL_4(on, next, *accumulated);
  return impulse;
}

/* revolute_axial_rows of four independent items in lanes, on the gathered
 * angular velocities: each row where its lane has it (the others leave the
 * lane's velocities and impulses as they were), in the scalar order. */
static inline __attribute__((always_inline)) void revolute_axial4(const sn_step_info *info, sn_constraint_item *items,
                                                                  revolute_side4 *a, revolute_side4 *b, int use_bias) {
  ri4 spring, motor, limit;
  rv4 delta, mass, target, s_rate, s_mass, s_imp, s_acc, m_acc, lo_acc, up_acc, speed, max, lower, upper, rate, ms, is;
  for (int l = 0; l < 4; ++l) {
    const revolute_params *p = items[l].params;
    const revolute_instance *j = items[l].instance;
    const int on = j->axial_mass > 0.0f;
    spring[l] = on && spring_on(p) ? -1 : 0;
    motor[l] = on && p->enable_motor ? -1 : 0;
    limit[l] = on && p->enable_limit ? -1 : 0;
    delta[l] = j->delta_angle, mass[l] = j->axial_mass, target[l] = p->target_angle;
    s_rate[l] = j->spring_bias_rate, s_mass[l] = j->spring_mass_scale, s_imp[l] = j->spring_impulse_scale;
    s_acc[l] = j->spring_impulse, m_acc[l] = j->motor_impulse;
    lo_acc[l] = j->lower_impulse, up_acc[l] = j->upper_impulse;
    speed[l] = p->motor_speed, max[l] = info->h * p->max_motor_torque;
    lower[l] = sn_pm_min(p->lower_angle, p->upper_angle), upper[l] = sn_pm_max(p->lower_angle, p->upper_angle);
    rate[l] = j->bias_rate, ms[l] = j->mass_scale, is[l] = j->impulse_scale;
  }
  /* the turn since the step start (sn_pm_rel_angle(dqA, dqB)) */
  const rv4 turned = revolute_atan2_4(a->qc * b->qs - a->qs * b->qc, a->qc * b->qc + a->qs * b->qs);
  {
    const rv4 c = revolute_unwind4(delta + turned) - target, cdot = b->w - a->w;
    const rv4 impulse = -mass * s_mass * (cdot + s_rate * c) - s_imp * s_acc;
    s_acc = SN_PB_SEL_4(spring, s_acc + impulse, s_acc);
    a->w = SN_PB_SEL_4(spring, a->w - a->i * impulse, a->w);
    b->w = SN_PB_SEL_4(spring, b->w + b->i * impulse, b->w);
  }
  {
    const rv4 cdot = b->w - a->w - speed, old = m_acc, sum = old + -mass * cdot;
    const rv4 next = SN_PB_SEL_4(sum < -max, -max, SN_PB_SEL_4(sum > max, max, sum));
    const rv4 impulse = next - old;
    m_acc = SN_PB_SEL_4(motor, next, m_acc);
    a->w = SN_PB_SEL_4(motor, a->w - a->i * impulse, a->w);
    b->w = SN_PB_SEL_4(motor, b->w + b->i * impulse, b->w);
  }
  {
    const rv4 angle = delta + turned;
    rv4 impulse =
        revolute_limit4(angle - lower, b->w - a->w, mass, use_bias, info->inv_h, rate, ms, is, &lo_acc, limit);
    a->w = SN_PB_SEL_4(limit, a->w - a->i * impulse, a->w);
    b->w = SN_PB_SEL_4(limit, b->w + b->i * impulse, b->w);
    impulse = -revolute_limit4(upper - angle, a->w - b->w, mass, use_bias, info->inv_h, rate, ms, is, &up_acc, limit);
    a->w = SN_PB_SEL_4(limit, a->w - a->i * impulse, a->w);
    b->w = SN_PB_SEL_4(limit, b->w + b->i * impulse, b->w);
  }
  for (int l = 0; l < 4; ++l) {
    revolute_instance *j = items[l].instance;
    j->spring_impulse = s_acc[l], j->motor_impulse = m_acc[l];
    j->lower_impulse = lo_acc[l], j->upper_impulse = up_acc[l];
  }
}

/* The point rows of four independent items, after their axial rows when
 * axial (some lane has one). */
static void revolute_point4(const sn_step_info *info, sn_constraint_item *items, int use_bias, int axial) {
  revolute_side4 a = revolute_gather_side(items, 0), b = revolute_gather_side(items, 1);
  if (axial) revolute_axial4(info, items, &a, &b, use_bias);
  rv4 ra0x, ra0y, rb0x, rb0y, dcx, dcy, angle, axial_mass, rate, ms, is, spring, jx, jy, sx, sy;
  REVOLUTE_ROWS(REVOLUTE_ARMS, ra0x, ra0y, rb0x, rb0y);
  REVOLUTE_ROWS(REVOLUTE_GAP, dcx, dcy, angle, axial_mass); /* (samples and axial: unused) */
  REVOLUTE_ROWS(REVOLUTE_SOFT, rate, ms, is, spring);       /* (delta_angle: unused) */
  REVOLUTE_ROWS(REVOLUTE_IMPULSE, jx, jy, sx, sy);
  (void)angle, (void)axial_mass, (void)spring, (void)sx, (void)sy;
  const rv4 rax = a.qc * ra0x - a.qs * ra0y, ray = a.qs * ra0x + a.qc * ra0y;
  const rv4 rbx = b.qc * rb0x - b.qs * rb0y, rby = b.qs * rb0x + b.qc * rb0y;
  /* cdot = (vB + wB x rB) - (vA + wA x rA), w x r = (-w r.y, w r.x) */
  const rv4 cx = (b.vx + -b.w * rby) - (a.vx + -a.w * ray), cy = (b.vy + b.w * rbx) - (a.vy + a.w * rax);
  rv4 bx = {0.0f, 0.0f, 0.0f, 0.0f}, by = bx;
  if (use_bias) {
    bx = rate * (((b.dpx - a.dpx) + (rbx - rax)) + dcx);
    by = rate * (((b.dpy - a.dpy) + (rby - ray)) + dcy);
  } else {
    ms = (rv4){1.0f, 1.0f, 1.0f, 1.0f};
    is = (rv4){0.0f, 0.0f, 0.0f, 0.0f};
  }
  const rv4 hx = cx + bx, hy = cy + by;
  rv4 k11, k12, k22, det;
  revolute_point_mass4(&a, &b, rax, ray, rbx, rby, &k11, &k12, &k22, &det);
  const rv4 xx = det * (k22 * hx - k12 * hy), xy = det * (k11 * hy - k12 * hx);
  const rv4 px = -ms * xx - is * jx, py = -ms * xy - is * jy;
  const rv4 nx = jx + px, ny = jy + py;
  for (int l = 0; l < 4; ++l) {
    revolute_instance *j = items[l].instance;
    j->impulse.x = nx[l];
    j->impulse.y = ny[l];
  }
  const rv4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
  revolute_apply4(&a, &b, rax, ray, rbx, rby, px, py, zero);
  revolute_scatter_side(items, 0, &a);
  revolute_scatter_side(items, 1, &b);
}
/* The pose row back (dp, dq). */
static inline __attribute__((always_inline)) void revolute_scatter_pose(sn_constraint_item *items, int side,
                                                                        const revolute_side4 *g) {
  __m128 r0 = (__m128)g->dpx, r1 = (__m128)g->dpy, r2 = (__m128)g->qc, r3 = (__m128)g->qs;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  __m128 rows[4] = {r0, r1, r2, r3};
  for (int l = 0; l < 4; ++l) _mm_storeu_ps(&items[l].bodies[side]->state->dp.x, rows[l]);
}

/* sn_pm_project_body per lane: the move (sn_pm_move_body, the turn of
 * sn_pm_turn where the inverse inertia is not 0) and its velocity. */
static inline __attribute__((always_inline)) void revolute_project_body4(revolute_side4 *g, rv4 px, rv4 py, rv4 l,
                                                                         rv4 inv_h) {
  g->dpx = g->dpx + g->m * px;
  g->dpy = g->dpy + g->m * py;
  const rv4 angle = g->i * l;
  const rv4 rc = g->qc - angle * g->qs, rs = g->qs + angle * g->qc;
  const rv4 len = (rv4)_mm_sqrt_ps((__m128)(rc * rc + rs * rs));
  const ri4 turns = g->i != 0.0f, scaled = len > 0.0f;
  g->qc = SN_PB_SEL_4(turns, SN_PB_SEL_4(scaled, rc / len, rc), g->qc);
  g->qs = SN_PB_SEL_4(turns, SN_PB_SEL_4(scaled, rs / len, rs), g->qs);
  const rv4 mh = g->m * inv_h;
  g->vx = g->vx + mh * px;
  g->vy = g->vy + mh * py;
  g->w = g->w + g->i * inv_h * l;
}

/* revolute_project of four independent items (sn_pm_project_anchors, then
 * the reaction sums per lane). */
static void revolute_project4(const sn_step_info *info, sn_constraint_item *items) {
  revolute_side4 a = revolute_gather_side(items, 0), b = revolute_gather_side(items, 1);
  rv4 ra0x, ra0y, rb0x, rb0y, dcx, dcy, angle, axial;
  REVOLUTE_ROWS(REVOLUTE_ARMS, ra0x, ra0y, rb0x, rb0y);
  REVOLUTE_ROWS(REVOLUTE_GAP, dcx, dcy, angle, axial); /* (samples and axial: unused) */
  (void)angle, (void)axial;
  const rv4 rax = a.qc * ra0x - a.qs * ra0y, ray = a.qs * ra0x + a.qc * ra0y;
  const rv4 rbx = b.qc * rb0x - b.qs * rb0y, rby = b.qs * rb0x + b.qc * rb0y;
  /* the gap, clamped to SN_PM_MAX_PROJECTION_SPEED h (sn_pm_clamp_length) */
  rv4 sx = ((b.dpx - a.dpx) + (rbx - rax)) + dcx, sy = ((b.dpy - a.dpy) + (rby - ray)) + dcy;
  const float max = SN_PM_MAX_PROJECTION_SPEED * info->h;
  const rv4 maxv = {max, max, max, max};
  const rv4 len_sq = sx * sx + sy * sy;
  const ri4 within = len_sq <= maxv * maxv;
  if (_mm_movemask_ps((__m128)within) != 0xf) {
    /* rare (a joint pulled apart): the square root and division stay off
     * the path of the usual groups */
    const rv4 f = maxv / (rv4)_mm_sqrt_ps((__m128)len_sq);
    sx = SN_PB_SEL_4(within, sx, f * sx);
    sy = SN_PB_SEL_4(within, sy, f * sy);
  }
  rv4 k11, k12, k22, det;
  revolute_point_mass4(&a, &b, rax, ray, rbx, rby, &k11, &k12, &k22, &det);
  /* P = -K^-1 sep; A moves by -P, B by P */
  const rv4 px = -(det * (k22 * sx - k12 * sy)), py = -(det * (k11 * sy - k12 * sx));
  const rv4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
  const rv4 inv_h = {info->inv_h, info->inv_h, info->inv_h, info->inv_h};
  revolute_project_body4(&a, -px, -py, -((rax * py - ray * px) + zero), inv_h);
  revolute_project_body4(&b, px, py, (rbx * py - rby * px) + zero, inv_h);
  revolute_scatter_side(items, 0, &a);
  revolute_scatter_side(items, 1, &b);
  revolute_scatter_pose(items, 0, &a);
  revolute_scatter_pose(items, 1, &b);
  for (int l = 0; l < 4; ++l) {
    revolute_instance *j = items[l].instance;
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_impulse = sn_pm_add(j->step_impulse, j->impulse);
    j->step_impulse = sn_pm_add(j->step_impulse, sn_pm_reaction_correction2(info, sn_pm_vec2(px[l], py[l])));
  }
}

#undef REVOLUTE_J
#undef REVOLUTE_ARMS
#undef REVOLUTE_GAP
#undef REVOLUTE_SOFT
#undef REVOLUTE_IMPULSE
#endif

static void revolute_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info))
    for (; i + 4 <= count; i += 4) revolute_warm4(items + i);
#else
  (void)info;
#endif
  for (; i < count; ++i) revolute_warm_one(items + i);
}

static void revolute_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info)) {
    /* the four items' axial rows, then their point rows, in lanes: the
     * items share no body, so each sees its own rows in the scalar order */
    for (; i + 4 <= count; i += 4) {
      const int axial = revolute_has_axial(items + i) | revolute_has_axial(items + i + 1) |
                        revolute_has_axial(items + i + 2) | revolute_has_axial(items + i + 3);
      revolute_point4(info, items + i, use_bias, axial);
    }
  }
#endif
  for (; i < count; ++i) {
    if (revolute_has_axial(items + i)) revolute_axial_rows(info, items + i, use_bias);
    revolute_point_row(items + i, use_bias);
  }
}

/* position stage: move the two anchors together (the host turns the motion
 * into velocity) */
static void revolute_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info))
    for (; i + 4 <= count; i += 4) revolute_project4(info, items + i);
#endif
  for (; i < count; ++i) {
    revolute_instance *j = items[i].instance;
    sn_vec2 P = sn_pm_project_anchors(info, items[i].bodies[0], items[i].bodies[1], j->ra, j->rb, j->delta_center);
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_impulse = sn_pm_add(j->step_impulse, j->impulse);
    j->step_impulse = sn_pm_add(j->step_impulse, sn_pm_reaction_correction2(info, P));
  }
}

static void revolute_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const revolute_params *p = item->params;
  const revolute_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h; the point load is
   * shared with the position stage: the step's average of both */
  *force = sn_pm_scale(info->inv_h, sn_pm_reaction_average2(j->step_impulse, j->samples, j->impulse));
  float axial = j->motor_impulse + j->lower_impulse - j->upper_impulse;
  if (spring_on(p)) axial += j->spring_impulse;
  *torque = info->inv_h * axial;
}

/* angle (rad, B relative to A from the reference angle, in (-pi, pi]),
 * speed (rad/s), motor and spring torque over the last step (N m) */
static void revolute_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const revolute_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  values[0].x = sn_pm_unwind(sn_pm_rel_angle(a->q, b->q) - j->reference_angle);
  values[1].x = b->state->w - a->state->w;
  values[2].x = info->inv_h * j->motor_impulse;
  values[3].x = info->inv_h * j->spring_impulse;
}

static const sn_state_desc revolute_state_desc[] = {
    {1, SN_PARAM_FLOAT, "angle", "rad, angle B - angle A from the reference angle, in (-pi, pi]"},
    {2, SN_PARAM_FLOAT, "speed", "rad/s, angular speed of B relative to A"},
    {3, SN_PARAM_FLOAT, "motor_torque", "N m, the motor's torque on B over the last step"},
    {4, SN_PARAM_FLOAT, "spring_torque", "N m, the spring's torque on B over the last step"},
};

static void revolute_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const revolute_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = sn_pm_world_point(a, j->local_a), pb = sn_pm_world_point(b, j->local_b);
  draw->segment(a->center, pa, 0x8080ffffu, draw->context);
  draw->segment(b->center, pb, 0x8080ffffu, draw->context);
  draw->point(pa, 5.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc revolute_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(revolute_params, anchor), 0, -1e6, 1e6, 0.0, "world pivot at creation"},
    {2, SN_PARAM_BOOL, "enable_motor", offsetof(revolute_params, enable_motor), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {3, SN_PARAM_FLOAT, "motor_speed", offsetof(revolute_params, motor_speed), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "target speed of B relative to A (rad/s)"},
    {4, SN_PARAM_FLOAT, "max_motor_torque", offsetof(revolute_params, max_motor_torque), SN_PARAM_RUNTIME, 0, 1e9, 0,
     "N m"},
    {5, SN_PARAM_BOOL, "enable_limit", offsetof(revolute_params, enable_limit), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {6, SN_PARAM_FLOAT, "lower_angle", offsetof(revolute_params, lower_angle), SN_PARAM_RUNTIME, -6.3, 6.3, 0,
     "rad, relative to the angle at creation"},
    {7, SN_PARAM_FLOAT, "upper_angle", offsetof(revolute_params, upper_angle), SN_PARAM_RUNTIME, -6.3, 6.3, 0,
     "rad, relative to the angle at creation"},
    {8, SN_PARAM_BOOL, "pinned", offsetof(revolute_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b and reference_angle define the joint instead of anchor and the bodies' poses"},
    {9, SN_PARAM_VEC2, "local_anchor_a", offsetof(revolute_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "pivot in body A's frame (with pinned)"},
    {10, SN_PARAM_VEC2, "local_anchor_b", offsetof(revolute_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "pivot in body B's frame (with pinned)"},
    {11, SN_PARAM_FLOAT, "reference_angle", offsetof(revolute_params, reference_angle), 0, -6.3, 6.3, 0.0,
     "angle B - angle A at which the joint angle is 0 (with pinned; the limits are relative to it)"},
    {12, SN_PARAM_BOOL, "enable_spring", offsetof(revolute_params, enable_spring), SN_PARAM_RUNTIME, 0, 1, 0,
     "angular spring toward target_angle"},
    {13, SN_PARAM_FLOAT, "hertz", offsetof(revolute_params, hertz), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring frequency: stiffness k = I_axial (2 pi hertz)^2, I_axial = 1 / (1/I_A + 1/I_B); 0 = off"},
    {14, SN_PARAM_FLOAT, "damping_ratio", offsetof(revolute_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring damping (1 = critical for the axial inertia)"},
    {15, SN_PARAM_FLOAT, "target_angle", offsetof(revolute_params, target_angle), SN_PARAM_RUNTIME, -6.3, 6.3, 0,
     "rad, the spring's rest angle (relative to the angle at creation)"},
};

static const sn_constraint_type revolute_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "revolute",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(revolute_params),
    .params_align = _Alignof(revolute_params),
    .instance_size = sizeof(revolute_instance),
    .instance_align = _Alignof(revolute_instance),
    .param_count = sizeof(revolute_param_desc) / sizeof(revolute_param_desc[0]),
    .params = revolute_param_desc,
    .create = revolute_create,
    .params_changed = revolute_params_changed,
    .prepare = revolute_prepare,
    .warm_start = revolute_warm_start,
    .solve_velocity = revolute_solve,
    .project = revolute_project,
    .get_reaction = revolute_reaction,
    .debug_draw = revolute_draw,
    .export_params = revolute_export,
    .state_count = sizeof(revolute_state_desc) / sizeof(revolute_state_desc[0]),
    .states = revolute_state_desc,
    .get_state = revolute_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.revolute", "0.1.0", &revolute_type);
