/* prismatic: body B slides along an axis fixed in body A, with no relative
 * rotation. Optional spring along the axis (toward target_translation),
 * optional motor (target speed along the axis, bounded force) and optional
 * translation range. The spring is a soft row with the user's hertz and
 * damping ratio in both passes (as the wheel's suspension): C = translation
 * - target_translation, effective mass m_axial (the axial row's), so it is
 * a linear spring of stiffness k = m_axial (2 pi hertz)^2 and damping
 * c = 2 damping_ratio m_axial (2 pi hertz); m_axial = 1 / (1/m_A + 1/m_B)
 * when the anchors sit at the centres of mass. Soft-step aware like the revolute: the
 * perpendicular offset and the relative angle (solved together as one 2x2
 * block) get soft position feedback in the biased solve and none in the
 * relax pass; limits are speculative when open and soft when violated; all
 * impulses are accumulated and warm-started.
 *
 * Jacobians (d = pB - pA between the anchors, u = axis, n = perp(u)):
 *   along:  Cdot = u . (vB - vA) + (rB x u) wB - ((d + rA) x u) wA
 *   perp:   Cdot = n . (vB - vA) + (rB x n) wB - ((d + rA) x n) wA
 *   angle:  Cdot = wB - wA
 * The axis turns with body A, so its A-side lever uses d + rA.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct prismatic_params {
  sn_vec2 anchor; /* world point at creation */
  sn_vec2 axis;   /* world direction at creation (normalised in create) */
  int32_t enable_motor;
  float motor_speed;     /* m/s of B relative to A along the axis */
  float max_motor_force; /* N */
  int32_t enable_limit;
  float lower_translation, upper_translation; /* m, from the anchor along the axis */
  /* pinned definition (export_params writes it): used instead of anchor,
   * axis and the bodies' poses when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  sn_vec2 local_axis;                     /* in body A's frame; normalised unless unit already */
  float reference_angle;                  /* angle B - angle A held by the joint */
  int32_t enable_spring;
  float hertz, damping_ratio; /* spring stiffness and damping */
  float target_translation;   /* m, the spring's rest position along the axis */
} prismatic_params;

typedef struct prismatic_instance {
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  sn_vec2 local_axis;       /* unit axis in body A's frame */
  float reference_angle;
  sn_vec2 impulse;      /* accumulated (perpendicular, angular) impulse */
  sn_vec2 step_impulse; /* sum over the step of impulse + position-stage correction / h */
  int32_t samples;      /* substeps summed (0: no position stage ran) */
  float motor_impulse, lower_impulse, upper_impulse;
  float spring_impulse;
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  sn_vec2 axis;         /* world axis at step start */
  float delta_angle;    /* angle B - A - reference at step start */
  float bias_rate, mass_scale, impulse_scale;
  float spring_bias_rate, spring_mass_scale, spring_impulse_scale;
} prismatic_instance;

/* The spring acts when it is on with a positive frequency. */
static int spring_on(const prismatic_params *p) { return p->enable_spring && p->hertz > 0.0f; }

static int prismatic_check(const prismatic_params *p, char *err, size_t cap) {
  if (p->enable_limit && p->lower_translation > p->upper_translation) {
    snprintf(err, cap, "lower_translation %g > upper_translation %g", (double)p->lower_translation,
             (double)p->upper_translation);
    return 1;
  }
  return 0;
}

static int prismatic_create(const sn_constraint_create_args *args) {
  const prismatic_params *p = args->params;
  prismatic_instance *j = args->instance;
  const sn_vec2 axis = p->pinned ? p->local_axis : p->axis;
  float len = sqrtf(sn_pm_dot(axis, axis));
  if (!(len > 1e-6f)) {
    snprintf(args->err, args->err_capacity, "%s (%g, %g) has no direction; give a nonzero vector",
             p->pinned ? "local_axis" : "axis", (double)axis.x, (double)axis.y);
    return 1;
  }
  if (prismatic_check(p, args->err, args->err_capacity)) return 1;
  const sn_constraint_body *a = args->bodies[0], *b = args->bodies[1];
  if (p->pinned) {
    j->local_a = p->local_anchor_a;
    j->local_b = p->local_anchor_b;
    /* an exported axis is unit to rounding: keep its bits */
    j->local_axis = fabsf(len - 1.0f) <= 1e-5f ? axis : sn_pm_scale(1.0f / len, axis);
    j->reference_angle = p->reference_angle;
  } else {
    j->local_a = sn_pm_local_point(a, p->anchor);
    j->local_b = sn_pm_local_point(b, p->anchor);
    j->local_axis = sn_pm_inv_rotate(a->q, sn_pm_scale(1.0f / len, axis));
    j->reference_angle = sn_pm_rel_angle(a->q, b->q);
  }
  j->impulse = j->step_impulse = (sn_vec2){0.0f, 0.0f};
  j->samples = 0;
  j->motor_impulse = j->lower_impulse = j->upper_impulse = j->spring_impulse = 0.0f;
  return 0;
}

/* the definition create() derived, pinned: recreates this joint from any poses */
static int prismatic_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                            int32_t count, void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const prismatic_instance *j = instance;
  prismatic_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->local_axis = j->local_axis;
  out->reference_angle = j->reference_angle;
  return 0;
}

/* Runtime changes never fail: limits set one at a time may pass through a
 * crossed range, which the solver reads as [min, max]. Impulses of a row that
 * was switched off must not be warm-started. */
static int prismatic_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)err;
  (void)cap;
  prismatic_instance *j = instance;
  const prismatic_params *p = params;
  if (!spring_on(p)) j->spring_impulse = 0.0f;
  if (!p->enable_motor) j->motor_impulse = 0.0f;
  if (!p->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

static void prismatic_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  /* soft position feedback: omega = 2 pi hertz, implicit spring-damper */
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const prismatic_params *p = items[i].params;
    prismatic_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->axis = sn_pm_rotate(a->q, j->local_axis);
    j->delta_angle = sn_pm_rel_angle(a->q, b->q) - j->reference_angle;
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

/* Current geometry inside a substep: anchors and axis turned by dq, gap d. */
static sn_pm_line_frame frame(const prismatic_instance *j, const sn_solver_body *sa, const sn_solver_body *sb) {
  return sn_pm_line_frame_at(sa, sb, j->ra, j->rb, j->delta_center, j->axis);
}

static void prismatic_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const prismatic_params *p = items[i].params;
    prismatic_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_pm_line_frame f = frame(j, a->state, b->state);
    float a1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.axis), a2 = sn_pm_cross(f.rb, f.axis);
    float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
    float axial = j->motor_impulse + j->lower_impulse - j->upper_impulse;
    if (spring_on(p)) axial += j->spring_impulse;
    sn_vec2 P = sn_pm_add(sn_pm_scale(axial, f.axis), sn_pm_scale(j->impulse.x, f.perp));
    sn_pm_apply_pair(a, b, P, axial * a1 + j->impulse.x * s1 + j->impulse.y,
                     axial * a2 + j->impulse.x * s2 + j->impulse.y);
  }
}

static void prismatic_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  const float h = info->h, inv_h = info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const prismatic_params *p = items[i].params;
    prismatic_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia, ma = a->inv_mass, mb = b->inv_mass;
    sn_pm_line_frame f = frame(j, sa, sb);
    float translation = sn_pm_dot(f.axis, f.d);
    float a1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.axis), a2 = sn_pm_cross(f.rb, f.axis);
    float k_axial = ma + mb + ia * a1 * a1 + ib * a2 * a2;
    float axial_mass = sn_pm_inv_or_zero(k_axial);

    if (spring_on(p) && axial_mass > 0.0f) {
      /* soft row toward the target translation, the same in both passes */
      float cdot = sn_pm_dot(f.axis, sn_pm_sub(sb->v, sa->v)) + a2 * sb->w - a1 * sa->w;
      float bias = j->spring_bias_rate * (translation - p->target_translation);
      float impulse = -axial_mass * j->spring_mass_scale * (cdot + bias) - j->spring_impulse_scale * j->spring_impulse;
      j->spring_impulse += impulse;
      sn_pm_apply_pair(a, b, sn_pm_scale(impulse, f.axis), impulse * a1, impulse * a2);
    }
    if (p->enable_motor && axial_mass > 0.0f) {
      float cdot = sn_pm_dot(f.axis, sn_pm_sub(sb->v, sa->v)) + a2 * sb->w - a1 * sa->w;
      float impulse = axial_mass * (p->motor_speed - cdot);
      float old = j->motor_impulse, max = h * p->max_motor_force;
      j->motor_impulse = sn_pm_clamp(old + impulse, -max, max);
      impulse = j->motor_impulse - old;
      sn_pm_apply_pair(a, b, sn_pm_scale(impulse, f.axis), impulse * a1, impulse * a2);
    }
    if (p->enable_limit && axial_mass > 0.0f) {
      float lower = sn_pm_min(p->lower_translation, p->upper_translation);
      float upper = sn_pm_max(p->lower_translation, p->upper_translation);
      const sn_pm_softness soft = {j->bias_rate, j->mass_scale, j->impulse_scale};
      for (int side = 0; side < 2; ++side) {
        /* lower: C = x - lower >= 0; upper: C = upper - x >= 0 */
        float c = side == 0 ? translation - lower : upper - translation;
        float along = sn_pm_dot(f.axis, sn_pm_sub(sb->v, sa->v)) + a2 * sb->w - a1 * sa->w;
        float *acc = side == 0 ? &j->lower_impulse : &j->upper_impulse;
        float impulse = sn_pm_limit_impulse(c, side == 0 ? along : -along, axial_mass, use_bias, inv_h, soft, acc);
        float s = side == 0 ? impulse : -impulse;
        sn_pm_apply_pair(a, b, sn_pm_scale(s, f.axis), s * a1, s * a2);
      }
    }
    /* perpendicular offset and relative angle as one 2x2 block:
     * K = [ma + mb + ia s1^2 + ib s2^2, ia s1 + ib s2; ia s1 + ib s2, ia + ib] */
    float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
    sn_vec2 cdot = {sn_pm_dot(f.perp, sn_pm_sub(sb->v, sa->v)) + s2 * sb->w - s1 * sa->w, sb->w - sa->w};
    sn_vec2 bias = {0.0f, 0.0f};
    float ms = 1.0f, is = 0.0f;
    if (use_bias) {
      sn_vec2 c = {sn_pm_dot(f.perp, f.d), j->delta_angle + sn_pm_rel_angle(sa->dq, sb->dq)};
      bias = sn_pm_scale(j->bias_rate, c);
      ms = j->mass_scale;
      is = j->impulse_scale;
    }
    float k11 = ma + mb + ia * s1 * s1 + ib * s2 * s2, k12 = ia * s1 + ib * s2, k22 = ia + ib;
    if (k22 == 0.0f) k22 = 1.0f; /* both bodies without rotation: the angle row is inert */
    sn_vec2 rhs = sn_pm_add(cdot, bias);
    sn_vec2 x = sn_pm_solve22((sn_pm_sym22){k11, k12, k22}, rhs);
    sn_vec2 impulse = {-ms * x.x - is * j->impulse.x, -ms * x.y - is * j->impulse.y};
    j->impulse = sn_pm_add(j->impulse, impulse);
    sn_pm_apply_pair(a, b, sn_pm_scale(impulse.x, f.perp), impulse.x * s1 + impulse.y, impulse.x * s2 + impulse.y);
  }
}

/* position stage: project the perpendicular offset and the relative angle
 * (the block of the velocity solve, on positions); the axis stays free */
static void prismatic_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    prismatic_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    const float ia = a->inv_inertia, ib = b->inv_inertia;
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_impulse = sn_pm_add(j->step_impulse, j->impulse);
    sn_pm_line_frame f = frame(j, a->state, b->state);
    float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
    float k11 = a->inv_mass + b->inv_mass + ia * s1 * s1 + ib * s2 * s2, k12 = ia * s1 + ib * s2, k22 = ia + ib;
    if (k22 == 0.0f) k22 = 1.0f;
    const float max = SN_PM_MAX_PROJECTION_SPEED * info->h;
    sn_vec2 c = {sn_pm_clamp(sn_pm_dot(f.perp, f.d), -max, max),
                 sn_pm_clamp(j->delta_angle + sn_pm_rel_angle(a->state->dq, b->state->dq), -max, max)};
    sn_vec2 x = sn_pm_neg(sn_pm_solve22((sn_pm_sym22){k11, k12, k22}, c));
    sn_vec2 P = sn_pm_scale(x.x, f.perp);
    sn_pm_project_body(a, sn_pm_neg(P), -(x.x * s1 + x.y), info->inv_h);
    sn_pm_project_body(b, P, x.x * s2 + x.y, info->inv_h);
    j->step_impulse = sn_pm_add(j->step_impulse, sn_pm_reaction_correction2(info, x));
  }
}

static void prismatic_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force,
                               float *torque) {
  const prismatic_params *p = item->params;
  const prismatic_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0];
  /* accumulated impulses are per substep: divide by h */
  sn_vec2 axis = sn_pm_rotate(a->q, j->local_axis);
  float axial = j->motor_impulse + j->lower_impulse - j->upper_impulse;
  if (spring_on(p)) axial += j->spring_impulse;
  /* load shared with the position stage: the step's average */
  sn_vec2 row = sn_pm_reaction_average2(j->step_impulse, j->samples, j->impulse);
  *force = sn_pm_scale(info->inv_h, sn_pm_add(sn_pm_scale(axial, axis), sn_pm_scale(row.x, sn_pm_perp(axis))));
  *torque = info->inv_h * row.y;
}

/* translation (m along the axis from the anchor), speed (m/s along it),
 * motor and spring force over the last step (N) */
static void prismatic_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const prismatic_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  const sn_solver_body *sa = a->state, *sb = b->state;
  sn_vec2 ra = sn_pm_arm(a, j->local_a), rb = sn_pm_arm(b, j->local_b);
  sn_vec2 d = sn_pm_add(sn_pm_sub(b->center, a->center), sn_pm_sub(rb, ra));
  sn_vec2 axis = sn_pm_rotate(a->q, j->local_axis);
  float a1 = sn_pm_cross(sn_pm_add(d, ra), axis), a2 = sn_pm_cross(rb, axis);
  values[0].x = sn_pm_dot(axis, d);
  values[1].x = sn_pm_dot(axis, sn_pm_sub(sb->v, sa->v)) + a2 * sb->w - a1 * sa->w;
  values[2].x = info->inv_h * j->motor_impulse;
  values[3].x = info->inv_h * j->spring_impulse;
}

static const sn_state_desc prismatic_state_desc[] = {
    {1, SN_PARAM_FLOAT, "translation", "m, anchor B from anchor A along the axis"},
    {2, SN_PARAM_FLOAT, "speed", "m/s, speed of B relative to A along the axis"},
    {3, SN_PARAM_FLOAT, "motor_force", "N, the motor's force on B along the axis over the last step"},
    {4, SN_PARAM_FLOAT, "spring_force", "N, the spring's force on B along the axis over the last step"},
};

static void prismatic_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const prismatic_params *p = item->params;
  const prismatic_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = sn_pm_world_point(a, j->local_a), pb = sn_pm_world_point(b, j->local_b);
  sn_vec2 axis = sn_pm_rotate(a->q, j->local_axis);
  float lo = p->enable_limit ? p->lower_translation : -1.0f, hi = p->enable_limit ? p->upper_translation : 1.0f;
  draw->segment(sn_pm_add(pa, sn_pm_scale(lo, axis)), sn_pm_add(pa, sn_pm_scale(hi, axis)), 0x8080ffffu, draw->context);
  draw->segment(a->center, pa, 0x808080ffu, draw->context);
  draw->segment(b->center, pb, 0x808080ffu, draw->context);
  draw->point(pa, 5.0f, 0xffffffffu, draw->context);
  draw->point(pb, 5.0f, 0x80ff80ffu, draw->context);
}

static const sn_param_desc prismatic_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(prismatic_params, anchor), 0, -1e6, 1e6, 0.0, "world point at creation"},
    {2, SN_PARAM_VEC2, "axis", offsetof(prismatic_params, axis), 0, -1e6, 1e6, 0.0,
     "world slide direction at creation (nonzero; normalised)"},
    {3, SN_PARAM_BOOL, "enable_motor", offsetof(prismatic_params, enable_motor), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {4, SN_PARAM_FLOAT, "motor_speed", offsetof(prismatic_params, motor_speed), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "target speed of B relative to A along the axis (m/s)"},
    {5, SN_PARAM_FLOAT, "max_motor_force", offsetof(prismatic_params, max_motor_force), SN_PARAM_RUNTIME, 0, 1e9, 0,
     "N"},
    {6, SN_PARAM_BOOL, "enable_limit", offsetof(prismatic_params, enable_limit), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {7, SN_PARAM_FLOAT, "lower_translation", offsetof(prismatic_params, lower_translation), SN_PARAM_RUNTIME, -1e6, 1e6,
     0, "m along the axis from the anchor"},
    {8, SN_PARAM_FLOAT, "upper_translation", offsetof(prismatic_params, upper_translation), SN_PARAM_RUNTIME, -1e6, 1e6,
     0, "m along the axis from the anchor"},
    {9, SN_PARAM_BOOL, "pinned", offsetof(prismatic_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b, local_axis and reference_angle define the joint instead of anchor, axis and the poses"},
    {10, SN_PARAM_VEC2, "local_anchor_a", offsetof(prismatic_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "anchor in body A's frame (with pinned)"},
    {11, SN_PARAM_VEC2, "local_anchor_b", offsetof(prismatic_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "anchor in body B's frame (with pinned)"},
    {12, SN_PARAM_VEC2, "local_axis", offsetof(prismatic_params, local_axis), 0, -1e6, 1e6, 0.0,
     "slide direction in body A's frame (with pinned; nonzero; normalised)"},
    {13, SN_PARAM_FLOAT, "reference_angle", offsetof(prismatic_params, reference_angle), 0, -6.3, 6.3, 0.0,
     "angle B - angle A the joint holds (with pinned)"},
    {14, SN_PARAM_BOOL, "enable_spring", offsetof(prismatic_params, enable_spring), SN_PARAM_RUNTIME, 0, 1, 0,
     "linear spring along the axis toward target_translation"},
    {15, SN_PARAM_FLOAT, "hertz", offsetof(prismatic_params, hertz), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring frequency: stiffness k = m_axial (2 pi hertz)^2; 0 = off"},
    {16, SN_PARAM_FLOAT, "damping_ratio", offsetof(prismatic_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring damping (1 = critical for the axial mass)"},
    {17, SN_PARAM_FLOAT, "target_translation", offsetof(prismatic_params, target_translation), SN_PARAM_RUNTIME, -1e6,
     1e6, 0, "m along the axis, the spring's rest position"},
};

static const sn_constraint_type prismatic_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "prismatic",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(prismatic_params),
    .params_align = _Alignof(prismatic_params),
    .instance_size = sizeof(prismatic_instance),
    .instance_align = _Alignof(prismatic_instance),
    .param_count = sizeof(prismatic_param_desc) / sizeof(prismatic_param_desc[0]),
    .params = prismatic_param_desc,
    .create = prismatic_create,
    .params_changed = prismatic_params_changed,
    .prepare = prismatic_prepare,
    .warm_start = prismatic_warm_start,
    .solve_velocity = prismatic_solve,
    .project = prismatic_project,
    .get_reaction = prismatic_reaction,
    .debug_draw = prismatic_draw,
    .export_params = prismatic_export,
    .state_count = sizeof(prismatic_state_desc) / sizeof(prismatic_state_desc[0]),
    .states = prismatic_state_desc,
    .get_state = prismatic_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.prismatic", "0.1.0", &prismatic_type);
