/* distance: keeps two anchor points at a distance. Three modes, chosen by
 * flags:
 *   rod    (default)      one rigid row C = |d| - length = 0, soft position
 *                         feedback (joint_hertz) in the biased solve only;
 *   range  (enable_limit) two one-sided rows min_length <= |d| <= max_length,
 *                         speculative while slack, soft when violated; with
 *                         min_length 0 this is a rope; the rigid row is off;
 *   spring (enable_spring) a soft row with the user's hertz and damping
 *                         ratio instead of the rigid row (hertz 0 = no
 *                         force); combines with the range rows.
 * d = (cB + dpB + qB rB) - (cA + dpA + qA rA): anchors relative to the
 * centres of mass at step start, rotated by state->dq during substeps. All
 * impulses are accumulated and warm-started across substeps and steps.
 *
 * Soft step (Box2D v3 "soft step", Catto 2024): for a row with effective
 * mass m, stiffness omega = 2 pi hertz and damping ratio zeta over a
 * substep h,
 *   impulse = -mass_scale m (Cdot + bias_rate C) - impulse_scale acc,
 *   bias_rate = omega / (2 zeta + h omega),
 *   mass_scale = h omega (2 zeta + h omega) / (1 + h omega (2 zeta + h omega)),
 *   impulse_scale = 1 / (1 + h omega (2 zeta + h omega)),
 * which is an implicit spring k = m omega^2 with damper c = 2 m zeta omega.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

/* shortest distance the joint works with: below it the axis is undefined */
#define DISTANCE_MIN_LENGTH 0.005f
#define DISTANCE_MAX_LENGTH 1e6f
/* Cap on the position-feedback speed of the rigid rows (rod, violated
 * range): a large violation (a length changed at run time, anchors created
 * far from the range) is then closed over a few steps instead of launching
 * the bodies past the world's speed limit, where the host's velocity clamp
 * would no longer conserve momentum. Springs are not capped: they are the
 * user's force law. */
#define DISTANCE_MAX_BIAS_SPEED 10.0f

typedef struct distance_params {
  sn_vec2 anchor_a, anchor_b; /* world points at creation */
  float length;               /* rest length; < 0 = the distance at creation */
  int32_t enable_limit;
  float min_length, max_length;
  int32_t enable_spring;
  float hertz, damping_ratio;
  /* pinned definition (export_params writes it): used instead of
   * anchor_a/b and the bodies' poses when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  float creation_length;                  /* what length < 0 stands for */
} distance_params;

typedef struct distance_instance {
  sn_vec2 local_a, local_b; /* anchors in each body frame (from the origin) */
  float creation_length;
  float impulse;                      /* rigid or spring row */
  float lower_impulse, upper_impulse; /* range rows (both >= 0) */
  sn_vec2 axis;                       /* unit axis A -> B of the last solve (reactions) */
  float step_impulse;                 /* rod: sum over the step of impulse + projection / h */
  int32_t samples;                    /* substeps summed (0: no position stage ran) */
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  float length, min_length, max_length;
  float joint_bias_rate, joint_mass_scale, joint_impulse_scale;
  float spring_bias_rate, spring_mass_scale, spring_impulse_scale;
} distance_instance;

static int distance_check(const distance_params *p, char *err, size_t cap) {
  if (p->enable_limit && p->min_length > p->max_length) {
    snprintf(err, cap, "min_length %g > max_length %g", (double)p->min_length, (double)p->max_length);
    return 1;
  }
  return 0;
}

static int distance_create(const sn_constraint_create_args *args) {
  const distance_params *p = args->params;
  distance_instance *j = args->instance;
  if (distance_check(p, args->err, args->err_capacity)) return 1;
  const sn_constraint_body *a = args->bodies[0], *b = args->bodies[1];
  sn_vec2 d;
  if (p->pinned) {
    j->local_a = p->local_anchor_a;
    j->local_b = p->local_anchor_b;
    j->creation_length = sn_pm_clamp(p->creation_length, DISTANCE_MIN_LENGTH, DISTANCE_MAX_LENGTH);
    d = sn_pm_sub(sn_pm_world_point(b, j->local_b), sn_pm_world_point(a, j->local_a));
  } else {
    j->local_a = sn_pm_local_point(a, p->anchor_a);
    j->local_b = sn_pm_local_point(b, p->anchor_b);
    d = sn_pm_sub(p->anchor_b, p->anchor_a);
    j->creation_length = sn_pm_clamp(sqrtf(sn_pm_dot(d, d)), DISTANCE_MIN_LENGTH, DISTANCE_MAX_LENGTH);
  }
  float len = sqrtf(sn_pm_dot(d, d));
  j->axis = len > 0.0f ? sn_pm_scale(1.0f / len, d) : (sn_vec2){1.0f, 0.0f};
  j->impulse = j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

/* the definition create() derived, pinned: recreates this joint from any poses */
static int distance_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                           int32_t count, void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const distance_instance *j = instance;
  distance_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->creation_length = j->creation_length;
  return 0;
}

static int distance_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)instance;
  return distance_check(params, err, cap);
}

static void distance_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness joint = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const distance_params *p = items[i].params;
    distance_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->length =
        p->length < 0.0f ? j->creation_length : sn_pm_clamp(p->length, DISTANCE_MIN_LENGTH, DISTANCE_MAX_LENGTH);
    j->min_length = sn_pm_clamp(p->min_length, 0.0f, DISTANCE_MAX_LENGTH);
    j->max_length = sn_pm_clamp(p->max_length, j->min_length, DISTANCE_MAX_LENGTH);
    j->step_impulse = 0.0f;
    j->samples = 0;
    j->joint_bias_rate = joint.bias_rate;
    j->joint_mass_scale = joint.mass_scale;
    j->joint_impulse_scale = joint.impulse_scale;
    const sn_pm_softness spring = sn_pm_soft(p->hertz, p->damping_ratio, info->h);
    j->spring_bias_rate = spring.bias_rate;
    j->spring_mass_scale = spring.mass_scale;
    j->spring_impulse_scale = spring.impulse_scale;
    /* rows switched off (or a spring with no stiffness) carry no impulse */
    if (p->enable_spring ? p->hertz <= 0.0f : p->enable_limit) j->impulse = 0.0f;
    if (!p->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
  }
}

/* point impulse P at the anchors (no axial term: ra x P, not ra x P + 0) */
static void apply(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb, sn_vec2 P) {
  sn_pm_apply_pair(a, b, P, sn_pm_cross(ra, P), sn_pm_cross(rb, P));
}

static void distance_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    distance_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = sn_pm_rotate(a->state->dq, j->ra), rb = sn_pm_rotate(b->state->dq, j->rb);
    sn_vec2 d = sn_pm_separation(a->state, b->state, ra, rb, j->delta_center);
    float len = sqrtf(sn_pm_dot(d, d));
    sn_vec2 axis = len > 1e-6f ? sn_pm_scale(1.0f / len, d) : j->axis;
    float total = j->impulse + j->lower_impulse - j->upper_impulse;
    apply(a, b, ra, rb, sn_pm_scale(total, axis));
  }
}

/* relative velocity of the anchors along the axis */
static float axial_speed(const sn_solver_body *sa, const sn_solver_body *sb, sn_vec2 ra, sn_vec2 rb, sn_vec2 axis) {
  return sn_pm_dot(sn_pm_relative_velocity(sa, sb, ra, rb), axis);
}

static void distance_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  const float inv_h = info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const distance_params *p = items[i].params;
    distance_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    sn_vec2 ra = sn_pm_rotate(sa->dq, j->ra), rb = sn_pm_rotate(sb->dq, j->rb);
    sn_vec2 d = sn_pm_separation(sa, sb, ra, rb, j->delta_center);
    float len = sqrtf(sn_pm_dot(d, d));
    sn_vec2 axis = len > 1e-6f ? sn_pm_scale(1.0f / len, d) : j->axis;
    j->axis = axis;
    /* effective mass along the axis: 1 / (mA + mB + iA (rA x u)^2 + iB (rB x u)^2) */
    float cra = sn_pm_cross(ra, axis), crb = sn_pm_cross(rb, axis);
    float k = a->inv_mass + b->inv_mass + a->inv_inertia * cra * cra + b->inv_inertia * crb * crb;
    float mass = sn_pm_inv_or_zero(k);
    if (mass == 0.0f) continue;

    if (p->enable_spring) {
      /* the spring acts once per substep (biased pass): a second, relax
       * solve would stiffen it beyond the soft step's k and c */
      if (use_bias && p->hertz > 0.0f) {
        float c = len - j->length;
        float cdot = axial_speed(sa, sb, ra, rb, axis);
        float impulse =
            -j->spring_mass_scale * mass * (cdot + j->spring_bias_rate * c) - j->spring_impulse_scale * j->impulse;
        j->impulse += impulse;
        apply(a, b, ra, rb, sn_pm_scale(impulse, axis));
      }
    } else if (!p->enable_limit) {
      /* rigid rod: C = len - length */
      float c = len - j->length;
      float bias = 0.0f, ms = 1.0f, is = 0.0f;
      if (use_bias) {
        bias = sn_pm_clamp(j->joint_bias_rate * c, -DISTANCE_MAX_BIAS_SPEED, DISTANCE_MAX_BIAS_SPEED);
        ms = j->joint_mass_scale;
        is = j->joint_impulse_scale;
      }
      float cdot = axial_speed(sa, sb, ra, rb, axis);
      float impulse = -ms * mass * (cdot + bias) - is * j->impulse;
      j->impulse += impulse;
      apply(a, b, ra, rb, sn_pm_scale(impulse, axis));
    }

    if (p->enable_limit) {
      for (int side = 0; side < 2; ++side) {
        /* lower: C = len - min >= 0; upper: C = max - len >= 0 */
        float c = side == 0 ? len - j->min_length : j->max_length - len;
        float bias = 0.0f, ms = 1.0f, is = 0.0f;
        if (c > 0.0f)
          bias = c * inv_h; /* speculative: allow closing the gap within this substep */
        else if (use_bias) {
          bias = sn_pm_max(j->joint_bias_rate * c, -DISTANCE_MAX_BIAS_SPEED);
          ms = j->joint_mass_scale;
          is = j->joint_impulse_scale;
        }
        float *acc = side == 0 ? &j->lower_impulse : &j->upper_impulse;
        float cdot = axial_speed(sa, sb, ra, rb, axis);
        if (side == 1) cdot = -cdot;
        float impulse = -ms * mass * (cdot + bias) - is * *acc;
        float next = sn_pm_max(*acc + impulse, 0.0f);
        impulse = next - *acc;
        *acc = next;
        apply(a, b, ra, rb, sn_pm_scale(side == 0 ? impulse : -impulse, axis));
      }
    }
  }
}

/* position stage (rod only): move the anchors to the rod's length */
static void distance_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const distance_params *p = items[i].params;
    distance_instance *j = items[i].instance;
    if (p->enable_spring || p->enable_limit) continue;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_impulse += j->impulse;
    sn_vec2 ra = sn_pm_rotate(a->state->dq, j->ra), rb = sn_pm_rotate(b->state->dq, j->rb);
    sn_vec2 d = sn_pm_separation(a->state, b->state, ra, rb, j->delta_center);
    float len = sqrtf(sn_pm_dot(d, d));
    if (len <= 1e-6f) continue;
    sn_vec2 axis = sn_pm_scale(1.0f / len, d);
    float cra = sn_pm_cross(ra, axis), crb = sn_pm_cross(rb, axis);
    float k = a->inv_mass + b->inv_mass + a->inv_inertia * cra * cra + b->inv_inertia * crb * crb;
    if (k <= 0.0f) continue;
    /* capped like the bias: the host turns the move into velocity */
    float max = DISTANCE_MAX_BIAS_SPEED * info->h;
    float l = -sn_pm_clamp(len - j->length, -max, max) / k;
    sn_pm_project_point(a, b, ra, rb, sn_pm_scale(l, axis), 0.0f, info->inv_h);
    j->step_impulse += sn_pm_reaction_correction(info, l);
  }
}

static void distance_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const distance_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h; the force acts along
   * the axis through the anchors, so there is no torque term */
  float row = sn_pm_reaction_average(j->step_impulse, j->samples, j->impulse); /* rod: the step's average */
  *force = sn_pm_scale(info->inv_h * (row + j->lower_impulse - j->upper_impulse), j->axis);
  *torque = 0.0f;
}

static void distance_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const distance_params *p = item->params;
  const distance_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = sn_pm_world_point(a, j->local_a), pb = sn_pm_world_point(b, j->local_b);
  uint32_t color = p->enable_spring ? 0x40ff40ffu : p->enable_limit ? 0xffc040ffu : 0xc0c0ffffu;
  draw->segment(pa, pb, color, draw->context);
  draw->point(pa, 4.0f, 0xffffffffu, draw->context);
  draw->point(pb, 4.0f, 0xffffffffu, draw->context);
  if (p->enable_limit) {
    sn_vec2 d = sn_pm_sub(pb, pa);
    float len = sqrtf(sn_pm_dot(d, d));
    sn_vec2 u = len > 1e-6f ? sn_pm_scale(1.0f / len, d) : j->axis;
    float lo = sn_pm_clamp(p->min_length, 0.0f, DISTANCE_MAX_LENGTH);
    float hi = sn_pm_clamp(p->max_length, lo, DISTANCE_MAX_LENGTH);
    if (lo > 0.0f) draw->point(sn_pm_add(pa, sn_pm_scale(lo, u)), 5.0f, 0x40ff40ffu, draw->context);
    if (hi < DISTANCE_MAX_LENGTH) draw->point(sn_pm_add(pa, sn_pm_scale(hi, u)), 5.0f, 0xff4040ffu, draw->context);
  }
}

static const sn_param_desc distance_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor_a", offsetof(distance_params, anchor_a), 0, -1e6, 1e6, 0.0,
     "world anchor on body A at creation"},
    {2, SN_PARAM_VEC2, "anchor_b", offsetof(distance_params, anchor_b), 0, -1e6, 1e6, 0.0,
     "world anchor on body B at creation"},
    {3, SN_PARAM_FLOAT, "length", offsetof(distance_params, length), SN_PARAM_RUNTIME, -1.0, 1e6, -1.0,
     "rod / spring rest length (m); negative (default -1) = the anchors' distance at creation; at least 0.005"},
    {4, SN_PARAM_BOOL, "enable_limit", offsetof(distance_params, enable_limit), SN_PARAM_RUNTIME, 0, 1, 0,
     "range min_length..max_length instead of the rigid rod (a rope when min_length is 0)"},
    {5, SN_PARAM_FLOAT, "min_length", offsetof(distance_params, min_length), SN_PARAM_RUNTIME, 0, 1e6, 0, "m"},
    {6, SN_PARAM_FLOAT, "max_length", offsetof(distance_params, max_length), SN_PARAM_RUNTIME, 0, 1e6, 1e6, "m"},
    {7, SN_PARAM_BOOL, "enable_spring", offsetof(distance_params, enable_spring), SN_PARAM_RUNTIME, 0, 1, 0,
     "spring (hertz, damping_ratio) instead of the rigid rod"},
    {8, SN_PARAM_FLOAT, "hertz", offsetof(distance_params, hertz), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring frequency for the effective mass (Hz); 0 = no spring force"},
    {9, SN_PARAM_FLOAT, "damping_ratio", offsetof(distance_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e4, 0,
     "spring damping ratio (1 = critical)"},
    {10, SN_PARAM_BOOL, "pinned", offsetof(distance_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b and creation_length define the joint instead of anchor_a/b and the bodies' poses"},
    {11, SN_PARAM_VEC2, "local_anchor_a", offsetof(distance_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "anchor in body A's frame (with pinned)"},
    {12, SN_PARAM_VEC2, "local_anchor_b", offsetof(distance_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "anchor in body B's frame (with pinned)"},
    {13, SN_PARAM_FLOAT, "creation_length", offsetof(distance_params, creation_length), 0, 0.0, 1e6, 0.0,
     "the length that length < 0 stands for (m, with pinned; at least 0.005)"},
};

static const sn_constraint_type distance_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "distance",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(distance_params),
    .params_align = _Alignof(distance_params),
    .instance_size = sizeof(distance_instance),
    .instance_align = _Alignof(distance_instance),
    .param_count = sizeof(distance_param_desc) / sizeof(distance_param_desc[0]),
    .params = distance_param_desc,
    .create = distance_create,
    .params_changed = distance_params_changed,
    .prepare = distance_prepare,
    .warm_start = distance_warm_start,
    .solve_velocity = distance_solve,
    .get_reaction = distance_reaction,
    .debug_draw = distance_draw,
    .project = distance_project,
    .export_params = distance_export,
};

SN_DEFINE_PLUGIN_TYPES("sinew.distance", "0.1.0", &distance_type);
