/* wheel: a vehicle wheel. Body B (the wheel) keeps its anchor on a line
 * through the anchor along `axis`, fixed in body A (the chassis); along the
 * line a suspension spring (soft constraint with its own hertz and damping
 * ratio) holds it, with optional translation limits; B rotates freely, with
 * an optional motor (target relative angular speed, bounded torque).
 *
 * Rows (d = pB - pA between the anchors, u = axis, n = perp(u)):
 *   perp:   Cdot = n . (vB - vA) + (rB x n) wB - ((d + rA) x n) wA   rigid, soft bias
 *   spring: Cdot = u . (vB - vA) + (rB x u) wB - ((d + rA) x u) wA   C = u . d
 *   motor:  Cdot = wB - wA
 * The spring uses the soft-step coefficients (bias rate omega / (2 zeta +
 * h omega), mass and impulse scales) in both passes: it is a physical
 * spring, not position drift correction, so at rest it carries exactly
 * k C with k = m_axial (2 pi hertz)^2 and C = translation -
 * target_translation (the rest position, 0 by default: the anchor).
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct wheel_params {
  sn_vec2 anchor; /* world point at creation (usually the wheel centre) */
  sn_vec2 axis;   /* world suspension direction at creation (normalised in create) */
  int32_t enable_spring;
  float hertz, damping_ratio;
  int32_t enable_motor;
  float motor_speed;      /* rad/s of B relative to A */
  float max_motor_torque; /* N m */
  int32_t enable_limit;
  float lower_translation, upper_translation; /* m, from the anchor along the axis */
  /* pinned definition (export_params writes it): used instead of anchor,
   * axis and the bodies' poses when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  sn_vec2 local_axis;                     /* in body A's frame; normalised unless unit already */
  float target_translation;               /* m along the axis, the suspension's rest position */
} wheel_params;

typedef struct wheel_instance {
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  sn_vec2 local_axis;       /* unit axis in body A's frame */
  float perp_impulse, spring_impulse, motor_impulse, lower_impulse, upper_impulse;
  float step_perp; /* sum over the step of perp_impulse + projection / h */
  int32_t samples; /* substeps summed (0: no position stage ran) */
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  sn_vec2 axis;         /* world axis at step start */
  float angular_mass;
  float bias_rate, mass_scale, impulse_scale;                      /* rigid rows */
  float spring_bias_rate, spring_mass_scale, spring_impulse_scale; /* suspension */
} wheel_instance;

/* Soft-step coefficients for a spring-damper of the given hertz and damping
 * ratio over substep h (implicit Euler): bias rate, mass scale, impulse scale. */
static sn_pm_softness softness(float hertz, float zeta, float h) {
  if (hertz <= 0.0f) return (sn_pm_softness){0.0f, 0.0f, 1.0f};
  return sn_pm_soft(hertz, zeta, h);
}

static int wheel_create(const sn_constraint_create_args *args) {
  const wheel_params *p = args->params;
  wheel_instance *j = args->instance;
  const sn_vec2 axis = p->pinned ? p->local_axis : p->axis;
  float len = sqrtf(sn_pm_dot(axis, axis));
  if (!(len > 1e-6f)) {
    snprintf(args->err, args->err_capacity, "%s (%g, %g) has no direction; give a nonzero vector",
             p->pinned ? "local_axis" : "axis", (double)axis.x, (double)axis.y);
    return 1;
  }
  if (p->enable_limit && p->lower_translation > p->upper_translation) {
    snprintf(args->err, args->err_capacity, "lower_translation %g > upper_translation %g", (double)p->lower_translation,
             (double)p->upper_translation);
    return 1;
  }
  const sn_constraint_body *a = args->bodies[0], *b = args->bodies[1];
  if (p->pinned) {
    j->local_a = p->local_anchor_a;
    j->local_b = p->local_anchor_b;
    /* an exported axis is unit to rounding: keep its bits */
    j->local_axis = fabsf(len - 1.0f) <= 1e-5f ? axis : sn_pm_scale(1.0f / len, axis);
  } else {
    j->local_a = sn_pm_local_point(a, p->anchor);
    j->local_b = sn_pm_local_point(b, p->anchor);
    j->local_axis = sn_pm_inv_rotate(a->q, sn_pm_scale(1.0f / len, axis));
  }
  j->perp_impulse = j->spring_impulse = j->motor_impulse = j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

/* the definition create() derived, pinned: recreates this joint from any poses */
static int wheel_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                        int32_t count, void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const wheel_instance *j = instance;
  wheel_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->local_axis = j->local_axis;
  return 0;
}

/* Runtime changes never fail (a crossed limit range is read as [min, max]);
 * impulses of rows switched off must not be warm-started. */
static int wheel_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)err;
  (void)cap;
  const wheel_params *p = params;
  wheel_instance *j = instance;
  if (!p->enable_spring || p->hertz <= 0.0f) j->spring_impulse = 0.0f;
  if (!p->enable_motor) j->motor_impulse = 0.0f;
  if (!p->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

static void wheel_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness joint = softness(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const wheel_params *p = items[i].params;
    wheel_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->axis = sn_pm_rotate(a->q, j->local_axis);
    j->angular_mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    j->bias_rate = joint.bias_rate;
    j->mass_scale = joint.mass_scale;
    j->impulse_scale = joint.impulse_scale;
    j->step_perp = 0.0f;
    j->samples = 0;
    const sn_pm_softness spring = softness(p->hertz, p->damping_ratio, info->h);
    j->spring_bias_rate = spring.bias_rate;
    j->spring_mass_scale = spring.mass_scale;
    j->spring_impulse_scale = spring.impulse_scale;
  }
}

/* Current geometry inside a substep: anchors and axis turned by dq, gap d. */
static sn_pm_line_frame frame(const wheel_instance *j, const sn_solver_body *sa, const sn_solver_body *sb) {
  return sn_pm_line_frame_at(sa, sb, j->ra, j->rb, j->delta_center, j->axis);
}

static void wheel_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    wheel_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_pm_line_frame f = frame(j, a->state, b->state);
    float a1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.axis), a2 = sn_pm_cross(f.rb, f.axis);
    float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
    float axial = j->spring_impulse + j->lower_impulse - j->upper_impulse;
    sn_vec2 P = sn_pm_add(sn_pm_scale(axial, f.axis), sn_pm_scale(j->perp_impulse, f.perp));
    sn_pm_apply_pair(a, b, P, axial * a1 + j->perp_impulse * s1 + j->motor_impulse,
                     axial * a2 + j->perp_impulse * s2 + j->motor_impulse);
  }
}

static void wheel_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  const float h = info->h, inv_h = info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const wheel_params *p = items[i].params;
    wheel_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia, ma = a->inv_mass, mb = b->inv_mass;
    sn_pm_line_frame f = frame(j, sa, sb);
    float translation = sn_pm_dot(f.axis, f.d);
    float a1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.axis), a2 = sn_pm_cross(f.rb, f.axis);
    float k_axial = ma + mb + ia * a1 * a1 + ib * a2 * a2;
    float axial_mass = sn_pm_inv_or_zero(k_axial);

    /* suspension: soft row with the user's hertz/damping in both passes */
    if (p->enable_spring && p->hertz > 0.0f && axial_mass > 0.0f) {
      float cdot = sn_pm_dot(f.axis, sn_pm_sub(sb->v, sa->v)) + a2 * sb->w - a1 * sa->w;
      float bias = j->spring_bias_rate * (translation - p->target_translation);
      float impulse = -axial_mass * j->spring_mass_scale * (cdot + bias) - j->spring_impulse_scale * j->spring_impulse;
      j->spring_impulse += impulse;
      sn_pm_apply_pair(a, b, sn_pm_scale(impulse, f.axis), impulse * a1, impulse * a2);
    }
    if (p->enable_motor && j->angular_mass > 0.0f) {
      float cdot = sb->w - sa->w - p->motor_speed;
      float impulse = -j->angular_mass * cdot;
      float old = j->motor_impulse, max = h * p->max_motor_torque;
      j->motor_impulse = sn_pm_clamp(old + impulse, -max, max);
      impulse = j->motor_impulse - old;
      sa->w -= ia * impulse;
      sb->w += ib * impulse;
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
    /* the wheel's anchor stays on the line: rigid row, soft bias only in the biased pass */
    {
      float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
      float k = ma + mb + ia * s1 * s1 + ib * s2 * s2;
      if (k > 0.0f) {
        float cdot = sn_pm_dot(f.perp, sn_pm_sub(sb->v, sa->v)) + s2 * sb->w - s1 * sa->w;
        float bias = 0.0f, ms = 1.0f, is = 0.0f;
        if (use_bias) {
          bias = j->bias_rate * sn_pm_dot(f.perp, f.d);
          ms = j->mass_scale;
          is = j->impulse_scale;
        }
        float impulse = -ms * (cdot + bias) / k - is * j->perp_impulse;
        j->perp_impulse += impulse;
        sn_pm_apply_pair(a, b, sn_pm_scale(impulse, f.perp), impulse * s1, impulse * s2);
      }
    }
  }
}

/* position stage: project the perpendicular offset (the suspension axis and
 * the rotation stay free) */
static void wheel_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    wheel_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_perp += j->perp_impulse;
    sn_pm_line_frame f = frame(j, a->state, b->state);
    float s1 = sn_pm_cross(sn_pm_add(f.d, f.ra), f.perp), s2 = sn_pm_cross(f.rb, f.perp);
    float k = a->inv_mass + b->inv_mass + a->inv_inertia * s1 * s1 + b->inv_inertia * s2 * s2;
    if (k <= 0.0f) continue;
    float max = SN_PM_MAX_PROJECTION_SPEED * info->h;
    float l = -sn_pm_clamp(sn_pm_dot(f.perp, f.d), -max, max) / k;
    sn_vec2 P = sn_pm_scale(l, f.perp);
    sn_pm_project_body(a, sn_pm_neg(P), -l * s1, info->inv_h);
    sn_pm_project_body(b, P, l * s2, info->inv_h);
    j->step_perp += sn_pm_reaction_correction(info, l);
  }
}

static void wheel_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const wheel_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0];
  /* accumulated impulses are per substep: divide by h */
  sn_vec2 axis = sn_pm_rotate(a->q, j->local_axis);
  float axial = j->spring_impulse + j->lower_impulse - j->upper_impulse;
  float perp = sn_pm_reaction_average(j->step_perp, j->samples, j->perp_impulse); /* the step's average */
  *force = sn_pm_scale(info->inv_h, sn_pm_add(sn_pm_scale(axial, axis), sn_pm_scale(perp, sn_pm_perp(axis))));
  *torque = info->inv_h * j->motor_impulse;
}

/* translation (m along the axis), spin (rad/s of B relative to A), motor
 * torque over the last step (N m) */
static void wheel_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const wheel_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 ra = sn_pm_arm(a, j->local_a), rb = sn_pm_arm(b, j->local_b);
  sn_vec2 d = sn_pm_add(sn_pm_sub(b->center, a->center), sn_pm_sub(rb, ra));
  values[0].x = sn_pm_dot(sn_pm_rotate(a->q, j->local_axis), d);
  values[1].x = b->state->w - a->state->w;
  values[2].x = info->inv_h * j->motor_impulse;
}

static const sn_state_desc wheel_state_desc[] = {
    {1, SN_PARAM_FLOAT, "translation", "m, anchor B from anchor A along the suspension axis"},
    {2, SN_PARAM_FLOAT, "speed", "rad/s, spin of B relative to A"},
    {3, SN_PARAM_FLOAT, "motor_torque", "N m, the motor's torque on B over the last step"},
};

static void wheel_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const wheel_params *p = item->params;
  const wheel_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = sn_pm_world_point(a, j->local_a), pb = sn_pm_world_point(b, j->local_b);
  sn_vec2 axis = sn_pm_rotate(a->q, j->local_axis);
  float lo = p->enable_limit ? p->lower_translation : -1.0f, hi = p->enable_limit ? p->upper_translation : 1.0f;
  draw->segment(sn_pm_add(pa, sn_pm_scale(lo, axis)), sn_pm_add(pa, sn_pm_scale(hi, axis)), 0x8080ffffu, draw->context);
  draw->segment(pa, pb, 0xc0c040ffu, draw->context);
  draw->point(pa, 5.0f, 0xffffffffu, draw->context);
  draw->point(pb, 5.0f, 0x80ff80ffu, draw->context);
}

static const sn_param_desc wheel_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(wheel_params, anchor), 0, -1e6, 1e6, 0.0, "world point at creation"},
    {2, SN_PARAM_VEC2, "axis", offsetof(wheel_params, axis), 0, -1e6, 1e6, 0.0,
     "world suspension direction at creation (nonzero; normalised)"},
    {3, SN_PARAM_BOOL, "enable_spring", offsetof(wheel_params, enable_spring), SN_PARAM_RUNTIME, 0, 1, 1, NULL},
    {4, SN_PARAM_FLOAT, "hertz", offsetof(wheel_params, hertz), SN_PARAM_RUNTIME, 0, 1e4, 1, "suspension frequency"},
    {5, SN_PARAM_FLOAT, "damping_ratio", offsetof(wheel_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e4, 0.7,
     "suspension damping (1 = critical)"},
    {6, SN_PARAM_BOOL, "enable_motor", offsetof(wheel_params, enable_motor), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {7, SN_PARAM_FLOAT, "motor_speed", offsetof(wheel_params, motor_speed), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "target spin of B relative to A (rad/s)"},
    {8, SN_PARAM_FLOAT, "max_motor_torque", offsetof(wheel_params, max_motor_torque), SN_PARAM_RUNTIME, 0, 1e9, 0,
     "N m"},
    {9, SN_PARAM_BOOL, "enable_limit", offsetof(wheel_params, enable_limit), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {10, SN_PARAM_FLOAT, "lower_translation", offsetof(wheel_params, lower_translation), SN_PARAM_RUNTIME, -1e6, 1e6, 0,
     "m along the axis from the anchor"},
    {11, SN_PARAM_FLOAT, "upper_translation", offsetof(wheel_params, upper_translation), SN_PARAM_RUNTIME, -1e6, 1e6, 0,
     "m along the axis from the anchor"},
    {12, SN_PARAM_BOOL, "pinned", offsetof(wheel_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b and local_axis define the joint instead of anchor, axis and the bodies' poses"},
    {13, SN_PARAM_VEC2, "local_anchor_a", offsetof(wheel_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "anchor in body A's frame (with pinned)"},
    {14, SN_PARAM_VEC2, "local_anchor_b", offsetof(wheel_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "anchor in body B's frame (with pinned)"},
    {15, SN_PARAM_VEC2, "local_axis", offsetof(wheel_params, local_axis), 0, -1e6, 1e6, 0.0,
     "suspension direction in body A's frame (with pinned; nonzero; normalised)"},
    {16, SN_PARAM_FLOAT, "target_translation", offsetof(wheel_params, target_translation), SN_PARAM_RUNTIME, -1e6, 1e6,
     0, "m along the axis, the suspension's rest position"},
};

static const sn_constraint_type wheel_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "wheel",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(wheel_params),
    .params_align = _Alignof(wheel_params),
    .instance_size = sizeof(wheel_instance),
    .instance_align = _Alignof(wheel_instance),
    .param_count = sizeof(wheel_param_desc) / sizeof(wheel_param_desc[0]),
    .params = wheel_param_desc,
    .create = wheel_create,
    .params_changed = wheel_params_changed,
    .prepare = wheel_prepare,
    .warm_start = wheel_warm_start,
    .solve_velocity = wheel_solve,
    .project = wheel_project,
    .get_reaction = wheel_reaction,
    .debug_draw = wheel_draw,
    .export_params = wheel_export,
    .state_count = sizeof(wheel_state_desc) / sizeof(wheel_state_desc[0]),
    .states = wheel_state_desc,
    .get_state = wheel_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.wheel", "0.1.0", &wheel_type);
