/* motor: drives body B's pose relative to body A toward a target offset with
 * bounded force and torque (a "motor joint": character controllers, moving
 * platforms, animated bodies that still collide).
 *
 * Constraint, in A's frame: B's origin at linear_offset and B's angle minus
 * A's angle at angular_offset. Velocity level, one 2-D point constraint and
 * one angular constraint, solved with accumulated impulses clamped to
 * |P| <= max_force * h and |L| <= max_torque * h per substep, warm-started.
 *
 * Feedback (correction_factor, c): every solve asks for the relative
 * velocity that would remove the fraction c of the current pose error over
 * one step, Cdot = -c * C / dt (C = linear or angular error), within the
 * bounds: an exponential approach at rate c / dt per second (c = 0.3 at
 * 60 Hz: 18 / s) while the bounds are not reached; c = 0 is a pure velocity
 * brake. Measured per step, not per substep, so the substep count does not
 * change the gain. A force-bounded motor far from its target accelerates
 * at max_force / m and may overshoot once before it settles.
 * The motor is an actuator, not drift correction, so the relax pass
 * (use_bias = 0) uses the same target velocity: relaxing to zero relative
 * velocity would cancel, every substep, the speed a force-bounded motor
 * builds, and it could never travel faster than max_force * h / m.
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct motor_params {
  sn_vec2 linear_offset; /* target position of B's origin in A's frame */
  float angular_offset;  /* target angle of B relative to A, rad */
  float max_force;       /* N */
  float max_torque;      /* N m */
  float correction_factor;
} motor_params;

typedef struct motor_instance {
  sn_vec2 linear_impulse; /* accumulated, per substep */
  float angular_impulse;
  /* per step */
  sn_vec2 ra, rb;       /* target point on A and B's origin, from the centres of mass, world frame */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  float delta_angle;    /* angle B - A - angular_offset at step start */
  float axial_mass;
} motor_instance;

static int motor_create(const sn_constraint_create_args *args) {
  motor_instance *j = args->instance;
  j->linear_impulse = (sn_vec2){0.0f, 0.0f};
  j->angular_impulse = 0.0f;
  return 0;
}

/* Nothing is derived at creation (the targets are parameters): the params
 * already recreate the joint, and out_params holds a copy of them. */
static int motor_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                        int32_t count, void *out_params) {
  (void)params;
  (void)instance;
  (void)bodies;
  (void)count;
  (void)out_params;
  return 0;
}

static void motor_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const motor_params *p = items[i].params;
    motor_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_rotate(a->q, sn_pm_sub(p->linear_offset, a->local_center));
    j->rb = sn_pm_rotate(b->q, sn_pm_scale(-1.0f, b->local_center));
    j->delta_center = sn_pm_sub(b->center, a->center);
    j->delta_angle = sn_pm_rel_angle(a->q, b->q) - p->angular_offset;
    j->axial_mass = sn_pm_inv_or_zero(a->inv_inertia + b->inv_inertia);
    /* the bounds may have dropped at runtime: never warm-start past them */
    j->linear_impulse = sn_pm_clamp_length(j->linear_impulse, info->h * p->max_force);
    j->angular_impulse = sn_pm_clamp(j->angular_impulse, -info->h * p->max_torque, info->h * p->max_torque);
  }
}

static void motor_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    motor_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = sn_pm_rotate(a->state->dq, j->ra), rb = sn_pm_rotate(b->state->dq, j->rb);
    sn_pm_apply_point(a, b, ra, rb, j->linear_impulse, j->angular_impulse);
  }
}

static void motor_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)use_bias; /* same target velocity in both passes (see the top) */
  const float h = info->h;
  for (int32_t i = 0; i < count; ++i) {
    const motor_params *p = items[i].params;
    motor_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia, ma = a->inv_mass, mb = b->inv_mass;
    const float c = p->correction_factor * info->inv_dt;

    /* angular: Cdot = wB - wA, C = angle B - angle A - angular_offset */
    if (j->axial_mass > 0.0f) {
      float angle = sn_pm_unwind(j->delta_angle + sn_pm_rel_angle(sa->dq, sb->dq));
      float impulse = -j->axial_mass * (sb->w - sa->w + c * angle);
      float old = j->angular_impulse, max = h * p->max_torque;
      j->angular_impulse = sn_pm_clamp(old + impulse, -max, max);
      impulse = j->angular_impulse - old;
      sa->w -= ia * impulse;
      sb->w += ib * impulse;
    }
    /* linear: Cdot = vB + wB x rB - vA - wA x rA, C = pB - pA (world) */
    sn_vec2 ra = sn_pm_rotate(sa->dq, j->ra), rb = sn_pm_rotate(sb->dq, j->rb);
    sn_vec2 cdot = sn_pm_relative_velocity(sa, sb, ra, rb);
    sn_vec2 sep = sn_pm_separation(sa, sb, ra, rb, j->delta_center);
    sn_vec2 rhs = sn_pm_add(cdot, sn_pm_scale(c, sep));
    const sn_pm_sym22 k = sn_pm_point_mass(ma, mb, ia, ib, ra, rb);
    sn_vec2 impulse = sn_pm_neg(sn_pm_solve22(k, rhs));
    sn_vec2 old = j->linear_impulse;
    j->linear_impulse = sn_pm_clamp_length(sn_pm_add(old, impulse), h * p->max_force);
    sn_pm_apply_point(a, b, ra, rb, sn_pm_sub(j->linear_impulse, old), 0.0f);
  }
}

static void motor_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const motor_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h */
  *force = sn_pm_scale(info->inv_h, j->linear_impulse);
  *torque = info->inv_h * j->angular_impulse;
}

static void motor_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const motor_params *p = item->params;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 target = sn_pm_add(a->origin, sn_pm_rotate(a->q, p->linear_offset));
  draw->segment(a->origin, target, 0x80ff80ffu, draw->context);
  draw->segment(target, b->origin, 0xff8080ffu, draw->context);
  draw->point(target, 5.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc motor_param_desc[] = {
    {1, SN_PARAM_VEC2, "linear_offset", offsetof(motor_params, linear_offset), SN_PARAM_RUNTIME, -1e6, 1e6, 0.0,
     "target position of B's origin in A's frame (m)"},
    {2, SN_PARAM_FLOAT, "angular_offset", offsetof(motor_params, angular_offset), SN_PARAM_RUNTIME, -6.3, 6.3, 0.0,
     "target angle of B relative to A (rad)"},
    {3, SN_PARAM_FLOAT, "max_force", offsetof(motor_params, max_force), SN_PARAM_RUNTIME, 0, 1e9, 1.0, "N"},
    {4, SN_PARAM_FLOAT, "max_torque", offsetof(motor_params, max_torque), SN_PARAM_RUNTIME, 0, 1e9, 1.0, "N m"},
    {5, SN_PARAM_FLOAT, "correction_factor", offsetof(motor_params, correction_factor), SN_PARAM_RUNTIME, 0, 1, 0.3,
     "fraction of the pose error removed per step: target velocity c * error / dt, within the bounds"},
};

static const sn_constraint_type motor_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "motor",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(motor_params),
    .params_align = _Alignof(motor_params),
    .instance_size = sizeof(motor_instance),
    .instance_align = _Alignof(motor_instance),
    .param_count = sizeof(motor_param_desc) / sizeof(motor_param_desc[0]),
    .params = motor_param_desc,
    .create = motor_create,
    .prepare = motor_prepare,
    .warm_start = motor_warm_start,
    .solve_velocity = motor_solve,
    .get_reaction = motor_reaction,
    .debug_draw = motor_draw,
    .export_params = motor_export,
};

SN_DEFINE_PLUGIN_TYPES("sinew.motor", "0.1.0", &motor_type);
