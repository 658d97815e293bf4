/* mouse: drags one body by a point toward a target in the world through a
 * soft spring-damper with a bounded force (what the sandbox uses to pick and
 * drag bodies).
 *
 * The grab point is the body point under `anchor` at creation. Per substep,
 * with r the grab point from the centre of mass and C = grab point - target:
 *   Cdot = v + w x r,  P = -mass_scale K^-1 (Cdot + bias_rate C) - impulse_scale P_acc
 * (soft step: omega = 2 pi hertz, implicit spring-damper over the substep h),
 * and the accumulated impulse is clamped to |P_acc| <= max_force * h. A
 * soft rotational damper with the same softness (Cdot = w, no position term)
 * stops the body spinning about the grab point; its accumulated impulse is
 * clamped to max_force * |r| * h, the torque the bounded pull could exert at
 * the grab point (none when the body is grabbed at its centre of mass). The
 * spring is the constraint itself, not drift correction, so it acts in the
 * biased and the relax pass alike. hertz = 0: no spring, only a rigid
 * velocity brake at the grab point.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct mouse_params {
  sn_vec2 anchor;      /* world point at creation: the grab point */
  sn_vec2 target;      /* world point the grab point is pulled toward */
  float hertz;         /* spring frequency */
  float damping_ratio; /* 1 = critical */
  float max_force;     /* N */
  /* pinned definition (export_params writes it): used instead of anchor and
   * the body's pose when pinned is 1 */
  int32_t pinned;
  sn_vec2 local_anchor; /* grab point in the body frame, from the origin */
} mouse_params;

typedef struct mouse_instance {
  sn_vec2 local; /* grab point in the body frame (from the origin) */
  sn_vec2 impulse;
  float angular_impulse;
  /* per step */
  sn_vec2 r;            /* grab point from the centre of mass, world frame, step start */
  sn_vec2 delta_center; /* centre - target at step start */
  float bias_rate, mass_scale, impulse_scale;
  float angular_mass, max_torque;
} mouse_instance;

static int mouse_create(const sn_constraint_create_args *args) {
  const mouse_params *p = args->params;
  mouse_instance *j = args->instance;
  j->local = p->pinned ? p->local_anchor : sn_pm_local_point(args->bodies[0], p->anchor);
  j->impulse = (sn_vec2){0.0f, 0.0f};
  j->angular_impulse = 0.0f;
  return 0;
}

/* the grab point create() derived, pinned: recreates this joint from any pose */
static int mouse_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                        int32_t count, void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const mouse_instance *j = instance;
  mouse_params *out = out_params;
  out->pinned = 1;
  out->local_anchor = j->local;
  return 0;
}

static void mouse_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const float h = info->h;
  for (int32_t i = 0; i < count; ++i) {
    const mouse_params *p = items[i].params;
    mouse_instance *j = items[i].instance;
    const sn_constraint_body *b = items[i].bodies[0];
    j->r = sn_pm_arm(b, j->local);
    j->delta_center = sn_pm_sub(b->center, p->target);
    if (p->hertz > 0.0f) {
      /* hertz > 0, h > 0: 2 zeta + h omega > 0, so no guard is hit */
      const sn_pm_softness soft = sn_pm_soft(p->hertz, p->damping_ratio, h);
      j->bias_rate = soft.bias_rate;
      j->mass_scale = soft.mass_scale;
      j->impulse_scale = soft.impulse_scale;
    } else {
      j->bias_rate = 0.0f;
      j->mass_scale = 1.0f;
      j->impulse_scale = 0.0f;
    }
    j->angular_mass = sn_pm_inv_or_zero(b->inv_inertia);
    j->max_torque = p->max_force * sqrtf(j->r.x * j->r.x + j->r.y * j->r.y);
    /* max_force may have dropped */
    j->impulse = sn_pm_clamp_length(j->impulse, h * p->max_force);
    j->angular_impulse = sn_pm_clamp(j->angular_impulse, -h * j->max_torque, h * j->max_torque);
  }
}

static void apply(const sn_constraint_body *b, sn_vec2 r, sn_vec2 P, float axial) {
  sn_pm_apply_body(b, P, sn_pm_cross(r, P) + axial);
}

static void mouse_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    mouse_instance *j = items[i].instance;
    const sn_constraint_body *b = items[i].bodies[0];
    apply(b, sn_pm_rotate(b->state->dq, j->r), j->impulse, j->angular_impulse);
  }
}

static void mouse_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)use_bias; /* the spring is the constraint: same soft solve in both passes */
  const float h = info->h;
  for (int32_t i = 0; i < count; ++i) {
    const mouse_params *p = items[i].params;
    mouse_instance *j = items[i].instance;
    const sn_constraint_body *b = items[i].bodies[0];
    sn_solver_body *s = b->state;
    const float m = b->inv_mass, ii = b->inv_inertia;
    {
      float impulse = -j->mass_scale * j->angular_mass * s->w - j->impulse_scale * j->angular_impulse;
      float old = j->angular_impulse, max = h * j->max_torque;
      j->angular_impulse = sn_pm_clamp(old + impulse, -max, max);
      s->w += ii * (j->angular_impulse - old);
    }
    sn_vec2 r = sn_pm_rotate(s->dq, j->r);
    sn_vec2 cdot = sn_pm_add(s->v, sn_pm_cross_sv(s->w, r));
    sn_vec2 sep = sn_pm_add(sn_pm_add(s->dp, r), j->delta_center);
    sn_vec2 rhs = sn_pm_add(cdot, sn_pm_scale(j->bias_rate, sep));
    const sn_pm_sym22 k = {m + r.y * r.y * ii, -r.x * r.y * ii, m + r.x * r.x * ii};
    sn_vec2 x = sn_pm_solve22(k, rhs);
    sn_vec2 impulse = {-j->mass_scale * x.x - j->impulse_scale * j->impulse.x,
                       -j->mass_scale * x.y - j->impulse_scale * j->impulse.y};
    sn_vec2 old = j->impulse;
    j->impulse = sn_pm_clamp_length(sn_pm_add(old, impulse), h * p->max_force);
    apply(b, r, sn_pm_sub(j->impulse, old), 0.0f);
  }
}

static void mouse_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const mouse_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h; torque: the damper's couple */
  *force = sn_pm_scale(info->inv_h, j->impulse);
  *torque = info->inv_h * j->angular_impulse;
}

static void mouse_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const mouse_params *p = item->params;
  const mouse_instance *j = item->instance;
  const sn_constraint_body *b = item->bodies[0];
  sn_vec2 grab = sn_pm_world_point(b, j->local);
  draw->segment(grab, p->target, 0x00ff00ffu, draw->context);
  draw->point(grab, 4.0f, 0x00ff00ffu, draw->context);
  draw->point(p->target, 4.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc mouse_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(mouse_params, anchor), 0, -1e6, 1e6, 0.0,
     "world point at creation: the body point grabbed"},
    {2, SN_PARAM_VEC2, "target", offsetof(mouse_params, target), SN_PARAM_RUNTIME, -1e6, 1e6, 0.0,
     "world point the grab point is pulled toward"},
    {3, SN_PARAM_FLOAT, "hertz", offsetof(mouse_params, hertz), SN_PARAM_RUNTIME, 0, 1e3, 5.0,
     "spring frequency (0: no spring)"},
    {4, SN_PARAM_FLOAT, "damping_ratio", offsetof(mouse_params, damping_ratio), SN_PARAM_RUNTIME, 0, 1e3, 0.7,
     "1 = critical"},
    {5, SN_PARAM_FLOAT, "max_force", offsetof(mouse_params, max_force), SN_PARAM_RUNTIME, 0, 1e9, 1000.0,
     "bound on the spring force (N)"},
    {6, SN_PARAM_BOOL, "pinned", offsetof(mouse_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor is the grab point instead of anchor and the body's pose"},
    {7, SN_PARAM_VEC2, "local_anchor", offsetof(mouse_params, local_anchor), 0, -1e9, 1e9, 0.0,
     "grab point in the body frame (with pinned)"},
};

static const sn_constraint_type mouse_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "mouse",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 1,
    .params_size = sizeof(mouse_params),
    .params_align = _Alignof(mouse_params),
    .instance_size = sizeof(mouse_instance),
    .instance_align = _Alignof(mouse_instance),
    .param_count = sizeof(mouse_param_desc) / sizeof(mouse_param_desc[0]),
    .params = mouse_param_desc,
    .create = mouse_create,
    .prepare = mouse_prepare,
    .warm_start = mouse_warm_start,
    .solve_velocity = mouse_solve,
    .get_reaction = mouse_reaction,
    .debug_draw = mouse_draw,
    .export_params = mouse_export,
};

SN_DEFINE_PLUGIN_TYPES("sinew.mouse", "0.1.0", &mouse_type);
