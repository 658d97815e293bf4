/* rotary_limit: keeps the angle of body B relative to body A within
 * [min, max] (Chipmunk's rotary limit joint). The angle counts from
 * angle_offset at creation and is tracked through turns, so the range may
 * span more than a turn. Only the rotation is limited: join the bodies with
 * a revolute joint as well to pin them.
 *
 * Two one-sided rows on the relative angle, as the revolute joint's limit:
 * C = angle - min >= 0 and max - angle >= 0, Cdot = +-(wB - wA), effective
 * mass 1 / (1/I_A + 1/I_B); speculative while open, soft once closed
 * (biased pass), rigid in the relax pass; accumulated and warm-started.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct rotary_limit_params {
  float min, max;     /* rad; a crossed range is read as [min(min, max), max(min, max)] */
  float angle_offset; /* the angle at creation (rad) */
} rotary_limit_params;

typedef struct rotary_limit_instance {
  float angle;     /* B relative to A at the last step's start (rad, through turns) */
  sn_rot last_rel; /* their relative rotation then */
  float lower_impulse, upper_impulse;
  /* per step */
  float mass;
  float bias_rate, mass_scale, impulse_scale;
} rotary_limit_instance;

static int rotary_limit_create(const sn_constraint_create_args *args) {
  const rotary_limit_params *p = args->params;
  rotary_limit_instance *j = args->instance;
  j->angle = p->angle_offset;
  j->last_rel = sn_pm_rel_rot(args->bodies[0]->q, args->bodies[1]->q);
  j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

static float current_angle(const rotary_limit_instance *j, const sn_constraint_body *a, const sn_constraint_body *b) {
  return j->angle + sn_pm_rel_angle(j->last_rel, sn_pm_rel_rot(a->q, b->q));
}

/* recreated from any poses at the same angle */
static int rotary_limit_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                               int32_t count, void *out_params) {
  (void)params, (void)count;
  float angle = current_angle(instance, bodies[0], bodies[1]);
  if (!(fabsf(angle) <= 1e6f)) return 1;
  ((rotary_limit_params *)out_params)->angle_offset = angle;
  return 0;
}

static void rotary_limit_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    rotary_limit_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->angle = sn_pm_track_angle(j->angle, &j->last_rel, sn_pm_rel_rot(a->q, b->q));
    j->mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
  }
}

static void rotary_limit_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const rotary_limit_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float impulse = j->lower_impulse - j->upper_impulse;
    a->state->w -= a->inv_inertia * impulse;
    b->state->w += b->inv_inertia * impulse;
  }
}

static void rotary_limit_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  for (int32_t i = 0; i < count; ++i) {
    const rotary_limit_params *p = items[i].params;
    rotary_limit_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    if (j->mass == 0.0f) continue;
    float angle = j->angle + sn_pm_rel_angle(sa->dq, sb->dq);
    float lower = sn_pm_min(p->min, p->max), upper = sn_pm_max(p->min, p->max);
    const sn_pm_softness soft = {j->bias_rate, j->mass_scale, j->impulse_scale};
    for (int side = 0; side < 2; ++side) {
      /* lower: C = angle - lower >= 0; upper: C = upper - angle >= 0 */
      float c = side == 0 ? angle - lower : upper - angle;
      float cdot = side == 0 ? sb->w - sa->w : sa->w - sb->w;
      float *acc = side == 0 ? &j->lower_impulse : &j->upper_impulse;
      float impulse = sn_pm_limit_impulse(c, cdot, j->mass, use_bias, info->inv_h, soft, acc);
      float s = side == 0 ? impulse : -impulse;
      sa->w -= a->inv_inertia * s;
      sb->w += b->inv_inertia * s;
    }
  }
}

static void rotary_limit_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force,
                                  float *torque) {
  const rotary_limit_instance *j = item->instance;
  force->x = force->y = 0.0f;
  *torque = info->inv_h * (j->lower_impulse - j->upper_impulse); /* on B */
}

/* angle (rad, through turns), the limit's torque on B over the last step (N m) */
static void rotary_limit_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const rotary_limit_instance *j = item->instance;
  values[0].x = current_angle(j, item->bodies[0], item->bodies[1]);
  values[1].x = info->inv_h * (j->lower_impulse - j->upper_impulse);
}

static void rotary_limit_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  /* B's centre and its orientation (the held angle turns it) */
  const sn_constraint_body *b = item->bodies[1];
  draw->segment(b->center, sn_pm_add(b->center, sn_pm_rotate(b->q, sn_pm_vec2(0.3f, 0.0f))), 0x80c0c0ffu,
                draw->context);
  draw->point(b->center, 5.0f, 0x80c0c0ffu, draw->context);
}

static const sn_param_desc rotary_limit_param_desc[] = {
    {1, SN_PARAM_FLOAT, "min", offsetof(rotary_limit_params, min), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "rad, lowest angle of B relative to A"},
    {2, SN_PARAM_FLOAT, "max", offsetof(rotary_limit_params, max), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "rad, highest angle of B relative to A"},
    {3, SN_PARAM_FLOAT, "angle_offset", offsetof(rotary_limit_params, angle_offset), 0, -1e6, 1e6, 0,
     "rad, the angle at creation (export_params pins the current angle here)"},
};

static const sn_state_desc rotary_limit_state_desc[] = {
    {1, SN_PARAM_FLOAT, "angle", "rad, B relative to A (through turns, from angle_offset at creation)"},
    {2, SN_PARAM_FLOAT, "torque", "N m, the limit's torque on B over the last step"},
};

static const sn_constraint_type rotary_limit_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "rotary_limit",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(rotary_limit_params),
    .params_align = _Alignof(rotary_limit_params),
    .instance_size = sizeof(rotary_limit_instance),
    .instance_align = _Alignof(rotary_limit_instance),
    .param_count = sizeof(rotary_limit_param_desc) / sizeof(rotary_limit_param_desc[0]),
    .params = rotary_limit_param_desc,
    .create = rotary_limit_create,
    .prepare = rotary_limit_prepare,
    .warm_start = rotary_limit_warm_start,
    .solve_velocity = rotary_limit_solve,
    .get_reaction = rotary_limit_reaction,
    .debug_draw = rotary_limit_draw,
    .export_params = rotary_limit_export,
    .state_count = sizeof(rotary_limit_state_desc) / sizeof(rotary_limit_state_desc[0]),
    .states = rotary_limit_state_desc,
    .get_state = rotary_limit_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.rotary_limit", "0.1.0", &rotary_limit_type);
