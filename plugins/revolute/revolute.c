/* revolute: a pin joint. Two bodies share a point and rotate freely about
 * it, with an optional angular spring (toward target_angle), an optional
 * motor (target relative speed, bounded torque) and an optional angle range.
 * Soft-step aware: position feedback (soft, spring-damper) in the biased
 * solve, none in the relax pass; all impulses are accumulated and
 * warm-started. A joint without a spring, motor or limit skips the relax
 * pass when the position stage projects it (SN_STEP_PROJECTED): the
 * projection holds its point, and the relax pass would take back the
 * velocity that was closing the gap (revolute_relax_projected).
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
 * Warm start, the velocity passes and the projection take eight (AVX2,
 * where the host allows it: SN_STEP_WIDE_LANES) or four (SSE2) independent
 * items at a time in SIMD lanes when the host says a call's items share no
 * body state (SN_STEP_INDEPENDENT_ITEMS): the arithmetic in the lanes is the
 * scalar rows', operation for operation, so every width gives the same bits
 * (the kernels: revolute_kernel.inc).
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h and sinew/plugin_batch.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
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
  float delta_angle;    /* angle B - A - reference at step start (0 without axial rows) */
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
  /* prepare: how many items from this one on, in the array prepare got, have
   * no axial rows (0: this one has): the relax pass under projection passes
   * over a run reading one line (revolute_relax_projected) */
  int32_t plain_run;
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
  /* (last to first, for the plain runs; each item's own fields alike) */
  int32_t run = 0;
  for (int32_t i = count - 1; i >= 0; --i) {
    const revolute_params *p = items[i].params;
    revolute_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->axial = p->enable_motor || p->enable_limit || spring_on(p);
    run = j->axial ? 0 : run + (run < INT32_MAX ? 1 : 0);
    j->plain_run = run;
    /* the angle only the axial rows read (an atan2 saved per plain pin) */
    j->delta_angle = j->axial ? sn_pm_rel_angle(a->q, b->q) - j->reference_angle : 0.0f;
    j->axial_mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
    j->step_impulse = (sn_vec2){0.0f, 0.0f};
    j->samples = 0;
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
/* The lane kernels (revolute_kernel.inc) read these fields as 16-byte rows. */
#define REVOLUTE_ROW(type, first, f1, f2, f3)                                                                          \
  (offsetof(type, f1) == offsetof(type, first) + 4 && offsetof(type, f2) == offsetof(type, first) + 8 &&               \
   offsetof(type, f3) == offsetof(type, first) + 12)
_Static_assert(REVOLUTE_ROW(revolute_instance, ra.x, ra.y, rb.x, rb.y) &&
                   REVOLUTE_ROW(revolute_instance, delta_center.x, delta_center.y, samples, axial) &&
                   REVOLUTE_ROW(revolute_instance, bias_rate, mass_scale, impulse_scale, delta_angle) &&
                   REVOLUTE_ROW(revolute_instance, impulse.x, impulse.y, step_impulse.x, step_impulse.y) &&
                   REVOLUTE_ROW(revolute_instance, motor_impulse, lower_impulse, upper_impulse, spring_impulse) &&
                   REVOLUTE_ROW(revolute_instance, axial_mass, spring_bias_rate, spring_mass_scale,
                                spring_impulse_scale),
               "the instance's rows");
_Static_assert(REVOLUTE_ROW(revolute_params, enable_motor, motor_speed, max_motor_torque, enable_limit) &&
                   offsetof(revolute_params, upper_angle) == offsetof(revolute_params, lower_angle) + 4 &&
                   offsetof(revolute_params, lower_angle) + 16 <= sizeof(revolute_params) &&
                   REVOLUTE_ROW(revolute_params, enable_spring, hertz, damping_ratio, target_angle) &&
                   sizeof(int32_t) == sizeof(float),
               "the params' rows");
_Static_assert(offsetof(sn_constraint_body, inv_inertia) == offsetof(sn_constraint_body, inv_mass) + 4 &&
                   offsetof(sn_constraint_body, inv_mass) + 16 <= sizeof(sn_constraint_body) &&
                   offsetof(sn_solver_body, w) == 8 && offsetof(sn_solver_body, dq) == offsetof(sn_solver_body, dp) + 8,
               "the body's rows");
#undef REVOLUTE_ROW

/* What the lane kernels need beyond plugin_batch.h at each width. */

/* Four lane vectors (fields 0..3 of every lane) as 16-byte records, laid out
 * as SN_PB_LOADT reads them: register k holds lane k's record (and lane
 * k + 4's in the upper half with 8 lanes). */
#define REVOLUTE_RECORDS(x0, x1, x2, x3, t)                                                                            \
  do {                                                                                                                 \
    SN_PB_VEC a_ = SN_PB_UNPLO((SN_PB_VEC)(x0), (SN_PB_VEC)(x1)), b_ = SN_PB_UNPLO((SN_PB_VEC)(x2), (SN_PB_VEC)(x3));  \
    SN_PB_VEC c_ = SN_PB_UNPHI((SN_PB_VEC)(x0), (SN_PB_VEC)(x1)), d_ = SN_PB_UNPHI((SN_PB_VEC)(x2), (SN_PB_VEC)(x3));  \
    (t)[0] = SN_PB_SHUF(a_, b_, 0x44), (t)[1] = SN_PB_SHUF(a_, b_, 0xEE);                                              \
    (t)[2] = SN_PB_SHUF(c_, d_, 0x44), (t)[3] = SN_PB_SHUF(c_, d_, 0xEE);                                              \
  } while (0)
/* STORE(l, record) for every lane l, record its __m128 from t. */
#define REVOLUTE_EACH_RECORD(t, STORE) SN_PLUGIN_CAT(REVOLUTE_EACH_RECORD_, SN_PB_W)(t, STORE)
#define REVOLUTE_EACH_RECORD_4(t, STORE)                                                                               \
  do {                                                                                                                 \
    for (int k_ = 0; k_ < 4; ++k_) STORE(k_, (t)[k_]);                                                                 \
  } while (0)
#define REVOLUTE_EACH_RECORD_8(t, STORE)                                                                               \
  do {                                                                                                                 \
    for (int k_ = 0; k_ < 4; ++k_) {                                                                                   \
      STORE(k_, _mm256_castps256_ps128((t)[k_]));                                                                      \
      STORE(k_ + 4, _mm256_extractf128_ps((t)[k_], 1));                                                                \
    }                                                                                                                  \
  } while (0)
/* The square root per lane (exact, as sqrtf). */
#define REVOLUTE_SQRT(x)   SN_PLUGIN_CAT(REVOLUTE_SQRT_, SN_PB_W)(x)
#define REVOLUTE_SQRT_4(x) ((sn_pb_vf4)_mm_sqrt_ps((__m128)(x)))
#define REVOLUTE_SQRT_8(x) ((sn_pb_vf8)_mm256_sqrt_ps((__m256)(x)))

#define SN_PB_W 4
#include "revolute_kernel.inc"
#undef SN_PB_W
#define SN_PB_W 8
#include "revolute_kernel.inc"
#undef SN_PB_W

/* Whether the call's items may run 8 lanes wide: the host allows it
 * (SN_STEP_WIDE_LANES) and the CPU has AVX2. */
static int revolute_wide(const sn_step_info *info) {
  return (info->flags & SN_STEP_WIDE_LANES) != 0u && __builtin_cpu_supports("avx2");
}
#endif

/* How many of n items from items have an axial row. */
static inline int revolute_axial_count(const sn_constraint_item *items, int n) {
  int axial = 0;
  for (int l = 0; l < n; ++l) axial += revolute_has_axial(items + l) != 0;
  return axial;
}

/* Whether any of n items from items has an axial row. */
static inline int revolute_any_axial(const sn_constraint_item *items, int n) {
  return revolute_axial_count(items, n) > 0;
}

static void revolute_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info)) {
    if (revolute_wide(info))
      for (; i + 8 <= count; i += 8) revolute_warm8(items + i, revolute_any_axial(items + i, 8));
    for (; i + 4 <= count; i += 4) revolute_warm4(items + i, revolute_any_axial(items + i, 4));
  }
#else
  (void)info;
#endif
  for (; i < count; ++i) revolute_warm_one(items + i);
}

/* One item's rows in this pass, alone. */
static void revolute_solve_one(const sn_step_info *info, sn_constraint_item *item, int use_bias) {
  if (revolute_has_axial(item)) revolute_axial_rows(info, item, use_bias);
  revolute_point_row(item, use_bias);
}

/* The relax pass (use_bias 0) of a type the position stage projects
 * (SN_STEP_PROJECTED): the joints with axial rows only, in lanes where the
 * next eight (or four) all have them. A joint without a spring, motor or
 * limit keeps the velocity the biased solve gave its bodies to close the
 * point's gap: relaxing it left the gap to the two projection sweeps alone,
 * and a lattice hanging from a few pins (the Box2D suite's joint_grid) held
 * its worst joint 0.064 m apart instead of 0.023 m, in more time. A spring,
 * motor or limit keeps the pass: its rows are not projected, and the bias
 * left in a ragdoll's joints fed its collisions (docs/plugins.md, "Relax
 * under projection"). The plain runs prepare counted are passed over at
 * once: a lattice's pass reads one instance line, not every one. They count
 * in the array prepare got, which every call of the step takes its items
 * from, in the same order (docs/plugins.md). */
static void revolute_relax_projected(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  int32_t i = 0;
  while (i < count) {
    const int32_t run = ((const revolute_instance *)items[i].instance)->plain_run;
    if (run > 0) {
      i += run < count - i ? run : count - i;
      continue;
    }
#if SN_PB_SIMD
    if (sn_step_items_independent(info)) {
      if (revolute_wide(info) && i + 8 <= count && revolute_axial_count(items + i, 8) == 8) {
        revolute_point8(info, items + i, 0, 1);
        i += 8;
        continue;
      }
      if (i + 4 <= count && revolute_axial_count(items + i, 4) == 4) {
        revolute_point4(info, items + i, 0, 1);
        i += 4;
        continue;
      }
    }
#endif
    revolute_solve_one(info, items + i, 0);
    i += 1;
  }
}

static void revolute_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  if (!use_bias && sn_step_projected(info)) {
    revolute_relax_projected(info, items, count);
    return;
  }
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info)) {
    /* the group's axial rows, then their point rows, in lanes: the items
     * share no body, so each sees its own rows in the scalar order */
    if (revolute_wide(info))
      for (; i + 8 <= count; i += 8) revolute_point8(info, items + i, use_bias, revolute_any_axial(items + i, 8));
    for (; i + 4 <= count; i += 4) revolute_point4(info, items + i, use_bias, revolute_any_axial(items + i, 4));
  }
#endif
  for (; i < count; ++i) revolute_solve_one(info, items + i, use_bias);
}

/* position stage: move the two anchors together (the host turns the motion
 * into velocity) */
static void revolute_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  int32_t i = 0;
#if SN_PB_SIMD
  if (sn_step_items_independent(info)) {
    if (revolute_wide(info))
      for (; i + 8 <= count; i += 8) revolute_project8(info, items + i);
    for (; i + 4 <= count; i += 4) revolute_project4(info, items + i);
  }
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
