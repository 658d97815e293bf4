/* gear: couples the rotations of two bodies, Chipmunk-style: angle_a +
 * ratio angle_b = phase, angles counted in turns (not wrapped) from each
 * body's rotation at creation. A positive ratio turns them in opposite
 * directions, as two meshed gears (ratio = radius_b / radius_a); a negative
 * one in the same direction, as a belt. Only rotations are coupled: join the
 * gears' centres with revolute joints to hold them in place.
 *
 * One row: C = angle_a + ratio angle_b - phase, Cdot = wA + ratio wB,
 * effective mass 1 / (1/I_A + ratio^2 / I_B); soft position feedback in the
 * biased pass, none in the relax pass; the impulse is accumulated and
 * warm-started. Body angles are tracked through turns in the instance (once
 * per step, sn_pm_track_angle), so a body may turn less than half a turn per
 * step.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct gear_params {
  float ratio; /* angle_a + ratio angle_b = phase */
  float phase; /* rad */
} gear_params;

typedef struct gear_instance {
  float angle_a, angle_b; /* turned since creation (rad), at the last step's start */
  sn_rot last_qa, last_qb;
  float impulse; /* accumulated, on A's axis (B takes ratio times it) */
  /* per step */
  float mass;
  float bias_rate, mass_scale, impulse_scale;
} gear_instance;

static int gear_create(const sn_constraint_create_args *args) {
  gear_instance *j = args->instance;
  j->angle_a = j->angle_b = 0.0f;
  j->last_qa = args->bodies[0]->q;
  j->last_qb = args->bodies[1]->q;
  j->impulse = 0.0f;
  return 0;
}

/* recreated from any poses with the same error: angles restart at 0, so the
 * phase takes what they had turned */
static int gear_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                       void *out_params) {
  (void)count;
  const gear_params *p = params;
  const gear_instance *j = instance;
  gear_params *out = out_params;
  float angle_a = j->angle_a + sn_pm_rel_angle(j->last_qa, bodies[0]->q);
  float angle_b = j->angle_b + sn_pm_rel_angle(j->last_qb, bodies[1]->q);
  float phase = p->phase - (angle_a + p->ratio * angle_b);
  if (!(fabsf(phase) <= 1e6f)) return 1;
  out->phase = phase;
  return 0;
}

static int gear_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)params, (void)err, (void)cap;
  ((gear_instance *)instance)->impulse = 0.0f; /* a new relation: start over */
  return 0;
}

static void gear_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const gear_params *p = items[i].params;
    gear_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->angle_a = sn_pm_track_angle(j->angle_a, &j->last_qa, a->q);
    j->angle_b = sn_pm_track_angle(j->angle_b, &j->last_qb, b->q);
    j->mass = sn_pm_inv_or_zero(a->inv_inertia + p->ratio * p->ratio * b->inv_inertia);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
  }
}

static void apply(const sn_constraint_body *a, const sn_constraint_body *b, float ratio, float impulse) {
  a->state->w += a->inv_inertia * impulse;
  b->state->w += b->inv_inertia * ratio * impulse;
}

static void gear_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const gear_params *p = items[i].params;
    const gear_instance *j = items[i].instance;
    apply(items[i].bodies[0], items[i].bodies[1], p->ratio, j->impulse);
  }
}

static float spin(const sn_solver_body *s) { return sn_pm_atan2(s->dq.s, s->dq.c); }

static void gear_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const gear_params *p = items[i].params;
    gear_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    if (j->mass == 0.0f) continue;
    float cdot = a->state->w + p->ratio * b->state->w;
    float bias = 0.0f, ms = 1.0f, is = 0.0f;
    if (use_bias) {
      float c = (j->angle_a + spin(a->state)) + p->ratio * (j->angle_b + spin(b->state)) - p->phase;
      bias = j->bias_rate * c;
      ms = j->mass_scale;
      is = j->impulse_scale;
    }
    float impulse = -j->mass * ms * (cdot + bias) - is * j->impulse;
    j->impulse += impulse;
    apply(a, b, p->ratio, impulse);
  }
}

static void gear_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const gear_params *p = item->params;
  const gear_instance *j = item->instance;
  force->x = force->y = 0.0f;
  *torque = info->inv_h * p->ratio * j->impulse; /* on B */
}

/* error (rad: angle_a + ratio angle_b - phase), the torque on B over the
 * last step (N m), and each body's angle turned since creation (rad) */
static void gear_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const gear_params *p = item->params;
  const gear_instance *j = item->instance;
  float angle_a = j->angle_a + sn_pm_rel_angle(j->last_qa, item->bodies[0]->q);
  float angle_b = j->angle_b + sn_pm_rel_angle(j->last_qb, item->bodies[1]->q);
  values[0].x = angle_a + p->ratio * angle_b - p->phase;
  values[1].x = info->inv_h * p->ratio * j->impulse;
  values[2].x = angle_a;
  values[3].x = angle_b;
}

static void gear_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  draw->segment(item->bodies[0]->center, item->bodies[1]->center, 0xc08040ffu, draw->context);
}

static const sn_param_desc gear_param_desc[] = {
    {1, SN_PARAM_FLOAT, "ratio", offsetof(gear_params, ratio), SN_PARAM_RUNTIME, -1e3, 1e3, 1,
     "angle_a + ratio angle_b = phase (meshed gears: radius_b / radius_a; negative: same direction)"},
    {2, SN_PARAM_FLOAT, "phase", offsetof(gear_params, phase), SN_PARAM_RUNTIME, -1e6, 1e6, 0,
     "rad, the constant (angles count from creation)"},
};

static const sn_state_desc gear_state_desc[] = {
    {1, SN_PARAM_FLOAT, "error", "rad, angle_a + ratio angle_b - phase"},
    {2, SN_PARAM_FLOAT, "torque", "N m, the gear's torque on B over the last step"},
    {3, SN_PARAM_FLOAT, "angle_a", "rad, A's turn since creation"},
    {4, SN_PARAM_FLOAT, "angle_b", "rad, B's turn since creation"},
};

static const sn_constraint_type gear_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "gear",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(gear_params),
    .params_align = _Alignof(gear_params),
    .instance_size = sizeof(gear_instance),
    .instance_align = _Alignof(gear_instance),
    .param_count = sizeof(gear_param_desc) / sizeof(gear_param_desc[0]),
    .params = gear_param_desc,
    .create = gear_create,
    .params_changed = gear_params_changed,
    .prepare = gear_prepare,
    .warm_start = gear_warm_start,
    .solve_velocity = gear_solve,
    .get_reaction = gear_reaction,
    .debug_draw = gear_draw,
    .export_params = gear_export,
    .state_count = sizeof(gear_state_desc) / sizeof(gear_state_desc[0]),
    .states = gear_state_desc,
    .get_state = gear_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.gear", "0.1.0", &gear_type);
