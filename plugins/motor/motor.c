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
 * Built as its own shared object against sinew/plugin.h only. */
#include <math.h>
#include <stddef.h>

#include "sinew/plugin.h"

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

static sn_vec2 v_add(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x + b.x, a.y + b.y}; }
static sn_vec2 v_sub(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x - b.x, a.y - b.y}; }
static sn_vec2 v_scale(float s, sn_vec2 a) { return (sn_vec2){s * a.x, s * a.y}; }
static float v_cross(sn_vec2 a, sn_vec2 b) { return a.x * b.y - a.y * b.x; }
static sn_vec2 v_cross_sv(float s, sn_vec2 v) { return (sn_vec2){-s * v.y, s * v.x}; }
static sn_vec2 rotate(sn_rot q, sn_vec2 v) { return (sn_vec2){q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y}; }
static float rel_angle(sn_rot a, sn_rot b) { return atan2f(a.c * b.s - a.s * b.c, a.c * b.c + a.s * b.s); }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }
static float unwind(float a) {
  const float pi = 3.14159265359f;
  if (a < -pi) return a + 2.0f * pi;
  if (a > pi) return a - 2.0f * pi;
  return a;
}
/* v scaled down to length max if longer */
static sn_vec2 clamp_length(sn_vec2 v, float max) {
  float len_sq = v.x * v.x + v.y * v.y;
  if (len_sq <= max * max) return v;
  return v_scale(max / sqrtf(len_sq), v);
}

static int motor_create(const sn_host_api *host, const void *params, void *instance,
                        const sn_constraint_body *const *bodies, char *err, size_t cap) {
  (void)host;
  (void)params;
  (void)bodies;
  (void)err;
  (void)cap;
  motor_instance *j = instance;
  j->linear_impulse = (sn_vec2){0.0f, 0.0f};
  j->angular_impulse = 0.0f;
  return 0;
}

static void motor_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const motor_params *p = items[i].params;
    motor_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = rotate(a->q, v_sub(p->linear_offset, a->local_center));
    j->rb = rotate(b->q, v_scale(-1.0f, b->local_center));
    j->delta_center = v_sub(b->center, a->center);
    j->delta_angle = rel_angle(a->q, b->q) - p->angular_offset;
    float k = a->inv_inertia + b->inv_inertia;
    j->axial_mass = k > 0.0f ? 1.0f / k : 0.0f;
    /* the bounds may have dropped at runtime: never warm-start past them */
    j->linear_impulse = clamp_length(j->linear_impulse, info->h * p->max_force);
    j->angular_impulse = clampf(j->angular_impulse, -info->h * p->max_torque, info->h * p->max_torque);
  }
}

static void apply(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb, sn_vec2 P,
                  float axial) {
  a->state->v = v_sub(a->state->v, v_scale(a->inv_mass, P));
  a->state->w -= a->inv_inertia * (v_cross(ra, P) + axial);
  b->state->v = v_add(b->state->v, v_scale(b->inv_mass, P));
  b->state->w += b->inv_inertia * (v_cross(rb, P) + axial);
}

static void motor_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    motor_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = rotate(a->state->dq, j->ra), rb = rotate(b->state->dq, j->rb);
    apply(a, b, ra, rb, j->linear_impulse, j->angular_impulse);
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
      float angle = unwind(j->delta_angle + rel_angle(sa->dq, sb->dq));
      float impulse = -j->axial_mass * (sb->w - sa->w + c * angle);
      float old = j->angular_impulse, max = h * p->max_torque;
      j->angular_impulse = clampf(old + impulse, -max, max);
      impulse = j->angular_impulse - old;
      sa->w -= ia * impulse;
      sb->w += ib * impulse;
    }
    /* linear: Cdot = vB + wB x rB - vA - wA x rA, C = pB - pA (world) */
    sn_vec2 ra = rotate(sa->dq, j->ra), rb = rotate(sb->dq, j->rb);
    sn_vec2 cdot = v_sub(v_add(sb->v, v_cross_sv(sb->w, rb)), v_add(sa->v, v_cross_sv(sa->w, ra)));
    sn_vec2 sep = v_add(v_add(v_sub(sb->dp, sa->dp), v_sub(rb, ra)), j->delta_center);
    sn_vec2 rhs = v_add(cdot, v_scale(c, sep));
    float k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
    float k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    float k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
    float det = k11 * k22 - k12 * k12;
    if (det != 0.0f) det = 1.0f / det;
    sn_vec2 impulse = {-det * (k22 * rhs.x - k12 * rhs.y), -det * (k11 * rhs.y - k12 * rhs.x)};
    sn_vec2 old = j->linear_impulse;
    j->linear_impulse = clamp_length(v_add(old, impulse), h * p->max_force);
    apply(a, b, ra, rb, v_sub(j->linear_impulse, old), 0.0f);
  }
}

static void motor_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const motor_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h */
  *force = v_scale(info->inv_h, j->linear_impulse);
  *torque = info->inv_h * j->angular_impulse;
}

static void motor_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const motor_params *p = item->params;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 target = v_add(a->origin, rotate(a->q, p->linear_offset));
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
};

static int motor_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err;
  (void)cap;
  return host->register_type(registrar, &motor_type);
}

SN_DEFINE_PLUGIN("sinew.motor", "0.1.0", motor_register);
