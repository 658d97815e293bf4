/* weld: glues two bodies together, fixing their relative position (one shared
 * point, the anchor) and their relative angle. Three rows: one angular
 * (C = angle B - angle A - reference) and a 2x2 point block
 * (C = pB - pA), solved angular first, then linear.
 *
 * Rigid by default: position feedback is soft with the host's joint_hertz
 * and joint_damping_ratio in the biased solve, none in the relax pass (which
 * then removes the velocity error rigidly). With linear_hertz or
 * angular_hertz > 0 that part becomes a spring-damper (soft step, see
 * distance.c: k = m_eff omega^2, c = 2 m_eff zeta omega) solved once per
 * substep in the biased pass and left alone by the relax pass.
 *
 * Anchors are relative to the centres of mass at step start, rotated by
 * state->dq during substeps; the separation uses state->dp. All impulses
 * are accumulated and warm-started.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct weld_params {
  sn_vec2 anchor;      /* world point at creation */
  float linear_hertz;  /* 0 = rigid */
  float angular_hertz; /* 0 = rigid */
  float damping_ratio; /* of the soft parts */
  /* pinned definition (export_params writes it): used instead of anchor and
   * the bodies' poses when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  float reference_angle;                  /* angle B - angle A held by the weld */
} weld_params;

typedef struct weld_instance {
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  float reference_angle;
  sn_vec2 linear_impulse;
  float angular_impulse;
  sn_vec2 step_impulse; /* sums over the step of impulse + position-stage correction / h */
  float step_angular;
  int32_t samples; /* substeps summed (0: no position stage ran) */
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  float delta_angle;    /* angle B - A - reference at step start */
  float axial_mass;
  float linear_bias_rate, linear_mass_scale, linear_impulse_scale;
  float angular_bias_rate, angular_mass_scale, angular_impulse_scale;
} weld_instance;

static int weld_create(const sn_constraint_create_args *args) {
  const weld_params *p = args->params;
  weld_instance *j = args->instance;
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
  j->linear_impulse = j->step_impulse = (sn_vec2){0.0f, 0.0f};
  j->angular_impulse = j->step_angular = 0.0f;
  j->samples = 0;
  return 0;
}

/* the definition create() derived, pinned: recreates this weld from any poses */
static int weld_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                       void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const weld_instance *j = instance;
  weld_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->reference_angle = j->reference_angle;
  return 0;
}

static void weld_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness joint = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const weld_params *p = items[i].params;
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->delta_angle = sn_pm_rel_angle(a->q, b->q) - j->reference_angle;
    j->axial_mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    const sn_pm_softness lin = p->linear_hertz > 0.0f ? sn_pm_soft(p->linear_hertz, p->damping_ratio, info->h) : joint;
    j->linear_bias_rate = lin.bias_rate;
    j->linear_mass_scale = lin.mass_scale;
    j->linear_impulse_scale = lin.impulse_scale;
    const sn_pm_softness ang =
        p->angular_hertz > 0.0f ? sn_pm_soft(p->angular_hertz, p->damping_ratio, info->h) : joint;
    j->angular_bias_rate = ang.bias_rate;
    j->angular_mass_scale = ang.mass_scale;
    j->angular_impulse_scale = ang.impulse_scale;
    j->step_impulse = (sn_vec2){0.0f, 0.0f};
    j->step_angular = 0.0f;
    j->samples = 0;
  }
}

static void weld_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = sn_pm_rotate(a->state->dq, j->ra), rb = sn_pm_rotate(b->state->dq, j->rb);
    sn_pm_apply_point(a, b, ra, rb, j->linear_impulse, j->angular_impulse);
  }
}

static void weld_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const weld_params *p = items[i].params;
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia;

    /* angular: Cdot = wB - wA, C = relative angle - reference */
    int soft = p->angular_hertz > 0.0f;
    if (j->axial_mass > 0.0f && (use_bias || !soft)) {
      float bias = 0.0f, ms = 1.0f, is = 0.0f;
      if (use_bias) {
        float c = j->delta_angle + sn_pm_rel_angle(sa->dq, sb->dq);
        bias = j->angular_bias_rate * c;
        ms = j->angular_mass_scale;
        is = j->angular_impulse_scale;
      }
      float impulse = -ms * j->axial_mass * (sb->w - sa->w + bias) - is * j->angular_impulse;
      j->angular_impulse += impulse;
      sa->w -= ia * impulse;
      sb->w += ib * impulse;
    }

    /* point: vB + wB x rB - vA - wA x rA = 0, with feedback on the gap */
    soft = p->linear_hertz > 0.0f;
    if (!use_bias && soft) continue;
    const sn_pm_softness linear = {j->linear_bias_rate, j->linear_mass_scale, j->linear_impulse_scale};
    sn_pm_point_row(a, b, j->ra, j->rb, j->delta_center, linear, use_bias, &j->linear_impulse);
  }
}

/* position stage: the rigid parts project their error away (angle, then
 * point); spring parts do not */
static void weld_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const weld_params *p = items[i].params;
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    const sn_solver_body *sa = a->state, *sb = b->state;
    if (sn_pm_reaction_sample(info, &j->samples)) {
      j->step_impulse = sn_pm_add(j->step_impulse, j->linear_impulse);
      j->step_angular += j->angular_impulse;
    }
    if (p->angular_hertz == 0.0f && j->axial_mass > 0.0f) {
      float max = SN_PM_MAX_PROJECTION_SPEED * info->h;
      float c = sn_pm_clamp(j->delta_angle + sn_pm_rel_angle(sa->dq, sb->dq), -max, max);
      float l = -j->axial_mass * c;
      sn_pm_project_body(a, (sn_vec2){0.0f, 0.0f}, -l, info->inv_h);
      sn_pm_project_body(b, (sn_vec2){0.0f, 0.0f}, l, info->inv_h);
      j->step_angular += sn_pm_reaction_correction(info, l);
    }
    if (p->linear_hertz == 0.0f) {
      sn_vec2 P = sn_pm_project_anchors(info, a, b, j->ra, j->rb, j->delta_center);
      j->step_impulse = sn_pm_add(j->step_impulse, sn_pm_reaction_correction2(info, P));
    }
  }
}

static void weld_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const weld_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h; the load is shared
   * with the position stage: the step's average of both */
  *force = sn_pm_scale(info->inv_h, sn_pm_reaction_average2(j->step_impulse, j->samples, j->linear_impulse));
  *torque = info->inv_h * sn_pm_reaction_average(j->step_angular, j->samples, j->angular_impulse);
}

static void weld_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const weld_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = sn_pm_world_point(a, j->local_a), pb = sn_pm_world_point(b, j->local_b);
  draw->segment(a->center, pa, 0xffa040ffu, draw->context);
  draw->segment(b->center, pb, 0xffa040ffu, draw->context);
  draw->point(pa, 5.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc weld_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(weld_params, anchor), 0, -1e6, 1e6, 0.0, "world weld point at creation"},
    {2, SN_PARAM_FLOAT, "linear_hertz", offsetof(weld_params, linear_hertz), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "stiffness of the point (Hz, for the effective mass); 0 = rigid"},
    {3, SN_PARAM_FLOAT, "angular_hertz", offsetof(weld_params, angular_hertz), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "stiffness of the angle (Hz, for the effective inertia); 0 = rigid"},
    {4, SN_PARAM_FLOAT, "damping_ratio", offsetof(weld_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e4, 1,
     "damping ratio of the soft parts (1 = critical)"},
    {5, SN_PARAM_BOOL, "pinned", offsetof(weld_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b and reference_angle define the weld instead of anchor and the bodies' poses"},
    {6, SN_PARAM_VEC2, "local_anchor_a", offsetof(weld_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "weld point in body A's frame (with pinned)"},
    {7, SN_PARAM_VEC2, "local_anchor_b", offsetof(weld_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "weld point in body B's frame (with pinned)"},
    {8, SN_PARAM_FLOAT, "reference_angle", offsetof(weld_params, reference_angle), 0, -6.3, 6.3, 0.0,
     "angle B - angle A the weld holds (with pinned)"},
};

static const sn_constraint_type weld_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "weld",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(weld_params),
    .params_align = _Alignof(weld_params),
    .instance_size = sizeof(weld_instance),
    .instance_align = _Alignof(weld_instance),
    .param_count = sizeof(weld_param_desc) / sizeof(weld_param_desc[0]),
    .params = weld_param_desc,
    .create = weld_create,
    .prepare = weld_prepare,
    .warm_start = weld_warm_start,
    .solve_velocity = weld_solve,
    .project = weld_project,
    .get_reaction = weld_reaction,
    .debug_draw = weld_draw,
    .export_params = weld_export,
};

SN_DEFINE_PLUGIN_TYPES("sinew.weld", "0.1.0", &weld_type);
