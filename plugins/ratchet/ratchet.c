/* ratchet: the angle of body B relative to body A may advance one way only,
 * caught every `ratchet` radians (Chipmunk's ratchet joint). With ratchet >
 * 0 the angle turns freely upward and a pawl catches it at the last tooth it
 * passed, tooth k at phase + k ratchet; with ratchet < 0 it turns freely
 * downward. The angle counts from angle_offset at creation and is tracked
 * through turns. Only the rotation is held: join the bodies with a revolute
 * joint as well to pin them.
 *
 * At each step's start the pawl moves to the last tooth passed, tooth =
 * floor((angle - phase) / ratchet) ratchet + phase, unless the angle is
 * behind it (pushed back under load). One one-sided row, C = s (angle -
 * tooth) >= 0 with s the sign of ratchet, Cdot = s (wB - wA), effective mass
 * 1 / (1/I_A + 1/I_B): speculative while open, soft once closed (biased
 * pass), rigid in the relax pass; accumulated and warm-started.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct ratchet_params {
  float phase;        /* rad, where the teeth start */
  float ratchet;      /* rad between teeth; the sign is the free direction */
  float angle_offset; /* the angle at creation (rad) */
  /* pinned definition (export_params writes it): the pawl's tooth instead
   * of the last one behind angle_offset */
  int32_t pinned;
  float tooth;
} ratchet_params;

typedef struct ratchet_instance {
  float angle;     /* B relative to A at the last step's start (rad, through turns) */
  sn_rot last_rel; /* their relative rotation then */
  float tooth;     /* the pawl's angle (rad) */
  float impulse;   /* accumulated, >= 0 along s */
  /* per step */
  float mass;
  float bias_rate, mass_scale, impulse_scale;
} ratchet_instance;

static int ratchet_check(const ratchet_params *p, char *err, size_t cap) {
  if (!(fabsf(p->ratchet) >= 1e-4f)) {
    snprintf(err, cap, "ratchet %g: the teeth need a spacing of at least 1e-4 rad", (double)p->ratchet);
    return 1;
  }
  return 0;
}

/* the last tooth at or behind angle, in the free direction */
static float last_tooth(const ratchet_params *p, float angle) {
  return floorf((angle - p->phase) / p->ratchet) * p->ratchet + p->phase;
}

static int ratchet_create(const sn_constraint_create_args *args) {
  const ratchet_params *p = args->params;
  ratchet_instance *j = args->instance;
  if (ratchet_check(p, args->err, args->err_capacity)) return 1;
  j->angle = p->angle_offset;
  j->last_rel = sn_pm_rel_rot(args->bodies[0]->q, args->bodies[1]->q);
  j->tooth = p->pinned ? p->tooth : last_tooth(p, j->angle);
  j->impulse = 0.0f;
  return 0;
}

/* the teeth moved: the pawl catches the last one behind the angle */
static int ratchet_params_changed(const void *params, void *instance, char *err, size_t cap) {
  const ratchet_params *p = params;
  ratchet_instance *j = instance;
  if (ratchet_check(p, err, cap)) return 1;
  j->tooth = last_tooth(p, j->angle);
  j->impulse = 0.0f;
  return 0;
}

static float current_angle(const ratchet_instance *j, const sn_constraint_body *a, const sn_constraint_body *b) {
  return j->angle + sn_pm_rel_angle(j->last_rel, sn_pm_rel_rot(a->q, b->q));
}

/* recreated from any poses at the same angle, the pawl on the same tooth
 * (pressed back under load, the angle may be a little behind it) */
static int ratchet_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                          int32_t count, void *out_params) {
  (void)params, (void)count;
  const ratchet_instance *j = instance;
  float angle = current_angle(j, bodies[0], bodies[1]);
  if (!(fabsf(angle) <= 1e6f) || !(fabsf(j->tooth) <= 1e6f)) return 1;
  ratchet_params *out = out_params;
  out->angle_offset = angle;
  out->pinned = 1;
  out->tooth = j->tooth;
  return 0;
}

static void ratchet_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    const ratchet_params *p = items[i].params;
    ratchet_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->angle = sn_pm_track_angle(j->angle, &j->last_rel, sn_pm_rel_rot(a->q, b->q));
    const float s = p->ratchet > 0.0f ? 1.0f : -1.0f;
    /* the pawl moves on only while the angle is ahead of it */
    if (s * (j->angle - j->tooth) >= 0.0f) {
      float next = last_tooth(p, j->angle);
      if (s * (next - j->tooth) > 0.0f) j->tooth = next;
    }
    j->mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
  }
}

static void ratchet_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const ratchet_params *p = items[i].params;
    const ratchet_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float impulse = p->ratchet > 0.0f ? j->impulse : -j->impulse;
    a->state->w -= a->inv_inertia * impulse;
    b->state->w += b->inv_inertia * impulse;
  }
}

static void ratchet_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  for (int32_t i = 0; i < count; ++i) {
    const ratchet_params *p = items[i].params;
    ratchet_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    if (j->mass == 0.0f) continue;
    const float s = p->ratchet > 0.0f ? 1.0f : -1.0f;
    float angle = j->angle + sn_pm_rel_angle(sa->dq, sb->dq);
    const sn_pm_softness soft = {j->bias_rate, j->mass_scale, j->impulse_scale};
    float impulse = s * sn_pm_limit_impulse(s * (angle - j->tooth), s * (sb->w - sa->w), j->mass, use_bias, info->inv_h,
                                            soft, &j->impulse);
    sa->w -= a->inv_inertia * impulse;
    sb->w += b->inv_inertia * impulse;
  }
}

static void ratchet_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const ratchet_params *p = item->params;
  const ratchet_instance *j = item->instance;
  force->x = force->y = 0.0f;
  *torque = info->inv_h * (p->ratchet > 0.0f ? j->impulse : -j->impulse); /* on B */
}

/* angle (rad, through turns), the pawl's tooth (rad), the torque on B over
 * the last step (N m) */
static void ratchet_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const ratchet_params *p = item->params;
  const ratchet_instance *j = item->instance;
  values[0].x = current_angle(j, item->bodies[0], item->bodies[1]);
  values[1].x = j->tooth;
  values[2].x = info->inv_h * (p->ratchet > 0.0f ? j->impulse : -j->impulse);
}

static void ratchet_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  /* B's centre and its orientation (the held angle turns it) */
  const sn_constraint_body *b = item->bodies[1];
  draw->segment(b->center, sn_pm_add(b->center, sn_pm_rotate(b->q, sn_pm_vec2(0.3f, 0.0f))), 0xc0c080ffu,
                draw->context);
  draw->point(b->center, 5.0f, 0xc0c080ffu, draw->context);
}

static const sn_param_desc ratchet_param_desc[] = {
    {1, SN_PARAM_FLOAT, "phase", offsetof(ratchet_params, phase), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "rad, angle of tooth 0"},
    {2, SN_PARAM_FLOAT, "ratchet", offsetof(ratchet_params, ratchet), SN_PARAM_RUNTIME, -100, 100, 0.5,
     "rad between teeth (|ratchet| >= 1e-4); > 0: the angle advances upward only, < 0: downward only"},
    {3, SN_PARAM_FLOAT, "angle_offset", offsetof(ratchet_params, angle_offset), 0, -1e6, 1e6, 0,
     "rad, the angle at creation (export_params pins the current angle here)"},
    {4, SN_PARAM_BOOL, "pinned", offsetof(ratchet_params, pinned), 0, 0, 1, 0,
     "1 = tooth is the pawl's tooth at creation instead of the last one behind angle_offset"},
    {5, SN_PARAM_FLOAT, "tooth", offsetof(ratchet_params, tooth), 0, -1e6, 1e6, 0,
     "rad, the pawl's tooth at creation (with pinned)"},
};

static const sn_state_desc ratchet_state_desc[] = {
    {1, SN_PARAM_FLOAT, "angle", "rad, B relative to A (through turns, from angle_offset at creation)"},
    {2, SN_PARAM_FLOAT, "tooth", "rad, the tooth the pawl holds: the angle cannot go back past it"},
    {3, SN_PARAM_FLOAT, "torque", "N m, the pawl's torque on B over the last step"},
};

static const sn_constraint_type ratchet_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "ratchet",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(ratchet_params),
    .params_align = _Alignof(ratchet_params),
    .instance_size = sizeof(ratchet_instance),
    .instance_align = _Alignof(ratchet_instance),
    .param_count = sizeof(ratchet_param_desc) / sizeof(ratchet_param_desc[0]),
    .params = ratchet_param_desc,
    .create = ratchet_create,
    .params_changed = ratchet_params_changed,
    .prepare = ratchet_prepare,
    .warm_start = ratchet_warm_start,
    .solve_velocity = ratchet_solve,
    .get_reaction = ratchet_reaction,
    .debug_draw = ratchet_draw,
    .export_params = ratchet_export,
    .state_count = sizeof(ratchet_state_desc) / sizeof(ratchet_state_desc[0]),
    .states = ratchet_state_desc,
    .get_state = ratchet_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.ratchet", "0.1.0", &ratchet_type);
