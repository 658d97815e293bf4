/* revolute: a pin joint. Two bodies share a point and rotate freely about
 * it, with an optional motor (target relative speed, bounded torque) and an
 * optional angle range. Soft-step aware: position feedback (soft, spring-
 * damper) in the biased solve, none in the relax pass; all impulses are
 * accumulated and warm-started.
 *
 * Built as its own shared object against sinew/plugin.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"

typedef struct revolute_params {
  sn_vec2 anchor; /* world point at creation */
  int32_t enable_motor;
  float motor_speed;      /* rad/s of body B relative to body A */
  float max_motor_torque; /* N m */
  int32_t enable_limit;
  float lower_angle, upper_angle; /* rad, relative to the angle at creation */
} revolute_params;

typedef struct revolute_instance {
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  float reference_angle;
  sn_vec2 impulse; /* accumulated point impulse */
  float motor_impulse, lower_impulse, upper_impulse;
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  float delta_angle;    /* angle B - A - reference at step start */
  float axial_mass;
  float bias_rate, mass_scale, impulse_scale;
} revolute_instance;

static sn_vec2 v_add(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x + b.x, a.y + b.y}; }
static sn_vec2 v_sub(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x - b.x, a.y - b.y}; }
static sn_vec2 v_scale(float s, sn_vec2 a) { return (sn_vec2){s * a.x, s * a.y}; }
static float v_cross(sn_vec2 a, sn_vec2 b) { return a.x * b.y - a.y * b.x; }
static sn_vec2 v_cross_sv(float s, sn_vec2 v) { return (sn_vec2){-s * v.y, s * v.x}; }
static sn_vec2 rotate(sn_rot q, sn_vec2 v) { return (sn_vec2){q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y}; }
static sn_vec2 inv_rotate(sn_rot q, sn_vec2 v) { return (sn_vec2){q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y}; }
static float rel_angle(sn_rot a, sn_rot b) { return atan2f(a.c * b.s - a.s * b.c, a.c * b.c + a.s * b.s); }
static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

static int revolute_create(const sn_host_api *host, const void *params, void *instance,
                           const sn_constraint_body *const *bodies, char *err, size_t cap) {
  (void)host;
  const revolute_params *p = params;
  revolute_instance *j = instance;
  if (p->enable_limit && p->lower_angle > p->upper_angle) {
    snprintf(err, cap, "lower_angle %g > upper_angle %g", (double)p->lower_angle, (double)p->upper_angle);
    return 1;
  }
  const sn_constraint_body *a = bodies[0], *b = bodies[1];
  j->local_a = inv_rotate(a->q, v_sub(p->anchor, a->origin));
  j->local_b = inv_rotate(b->q, v_sub(p->anchor, b->origin));
  j->reference_angle = rel_angle(a->q, b->q);
  j->impulse = (sn_vec2){0.0f, 0.0f};
  j->motor_impulse = j->lower_impulse = j->upper_impulse = 0.0f;
  return 0;
}

static void revolute_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  /* soft position feedback: omega = 2 pi hertz, implicit spring-damper */
  float omega = 2.0f * 3.14159265359f * info->joint_hertz, zeta = info->joint_damping_ratio, h = info->h;
  float a1 = 2.0f * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0f / (1.0f + a2);
  for (int32_t i = 0; i < count; ++i) {
    revolute_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = rotate(a->q, v_sub(j->local_a, a->local_center));
    j->rb = rotate(b->q, v_sub(j->local_b, b->local_center));
    j->delta_center = v_sub(b->center, a->center);
    j->delta_angle = rel_angle(a->q, b->q) - j->reference_angle;
    float k = a->inv_inertia + b->inv_inertia;
    j->axial_mass = k > 0.0f ? 1.0f / k : 0.0f;
    j->bias_rate = omega / a1;
    j->mass_scale = a2 * a3;
    j->impulse_scale = a3;
  }
}

static void apply(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb, sn_vec2 P,
                  float axial) {
  a->state->v = v_sub(a->state->v, v_scale(a->inv_mass, P));
  a->state->w -= a->inv_inertia * (v_cross(ra, P) + axial);
  b->state->v = v_add(b->state->v, v_scale(b->inv_mass, P));
  b->state->w += b->inv_inertia * (v_cross(rb, P) + axial);
}

static void revolute_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    revolute_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = rotate(a->state->dq, j->ra), rb = rotate(b->state->dq, j->rb);
    apply(a, b, ra, rb, j->impulse, j->motor_impulse + j->lower_impulse - j->upper_impulse);
  }
}

static void revolute_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  const float h = info->h, inv_h = info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const revolute_params *p = items[i].params;
    revolute_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia, ma = a->inv_mass, mb = b->inv_mass;

    if (p->enable_motor && j->axial_mass > 0.0f) {
      float cdot = sb->w - sa->w - p->motor_speed;
      float impulse = -j->axial_mass * cdot;
      float old = j->motor_impulse, max = h * p->max_motor_torque;
      j->motor_impulse = clampf(old + impulse, -max, max);
      impulse = j->motor_impulse - old;
      sa->w -= ia * impulse;
      sb->w += ib * impulse;
    }
    if (p->enable_limit && j->axial_mass > 0.0f) {
      float angle = j->delta_angle + rel_angle(sa->dq, sb->dq);
      for (int side = 0; side < 2; ++side) {
        /* lower: C = angle - lower >= 0; upper: C = upper - angle >= 0 */
        float c = side == 0 ? angle - p->lower_angle : p->upper_angle - angle;
        float bias = 0.0f, ms = 1.0f, is = 0.0f;
        if (c > 0.0f)
          bias = c * inv_h; /* speculative */
        else if (use_bias) {
          bias = j->bias_rate * c;
          ms = j->mass_scale;
          is = j->impulse_scale;
        }
        float *acc = side == 0 ? &j->lower_impulse : &j->upper_impulse;
        float cdot = side == 0 ? sb->w - sa->w : sa->w - sb->w;
        float impulse = -j->axial_mass * ms * (cdot + bias) - is * *acc;
        float next = fmaxf(*acc + impulse, 0.0f);
        impulse = next - *acc;
        *acc = next;
        float s = side == 0 ? impulse : -impulse;
        sa->w -= ia * s;
        sb->w += ib * s;
      }
    }
    /* point: vB + wB x rB - vA - wA x rA = 0, with soft feedback on the gap */
    sn_vec2 ra = rotate(sa->dq, j->ra), rb = rotate(sb->dq, j->rb);
    sn_vec2 cdot = v_sub(v_add(sb->v, v_cross_sv(sb->w, rb)), v_add(sa->v, v_cross_sv(sa->w, ra)));
    sn_vec2 bias = {0.0f, 0.0f};
    float ms = 1.0f, is = 0.0f;
    if (use_bias) {
      sn_vec2 sep = v_add(v_add(v_sub(sb->dp, sa->dp), v_sub(rb, ra)), j->delta_center);
      bias = v_scale(j->bias_rate, sep);
      ms = j->mass_scale;
      is = j->impulse_scale;
    }
    float k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
    float k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    float k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
    float det = k11 * k22 - k12 * k12;
    if (det != 0.0f) det = 1.0f / det;
    sn_vec2 rhs = v_add(cdot, bias);
    sn_vec2 x = {det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x)};
    sn_vec2 impulse = {-ms * x.x - is * j->impulse.x, -ms * x.y - is * j->impulse.y};
    j->impulse = v_add(j->impulse, impulse);
    apply(a, b, ra, rb, impulse, 0.0f);
  }
}

static void revolute_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const revolute_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h */
  *force = v_scale(info->inv_h, j->impulse);
  *torque = info->inv_h * (j->motor_impulse + j->lower_impulse - j->upper_impulse);
}

static void revolute_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const revolute_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = v_add(a->origin, rotate(a->q, j->local_a)), pb = v_add(b->origin, rotate(b->q, j->local_b));
  draw->segment(a->center, pa, 0x8080ffffu, draw->context);
  draw->segment(b->center, pb, 0x8080ffffu, draw->context);
  draw->point(pa, 5.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc revolute_param_desc[] = {
    {1, SN_PARAM_VEC2, "anchor", offsetof(revolute_params, anchor), 0, -1e6, 1e6, 0.0, "world pivot at creation"},
    {2, SN_PARAM_BOOL, "enable_motor", offsetof(revolute_params, enable_motor), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {3, SN_PARAM_FLOAT, "motor_speed", offsetof(revolute_params, motor_speed), SN_PARAM_RUNTIME, -1e4, 1e4, 0,
     "target speed of B relative to A (rad/s)"},
    {4, SN_PARAM_FLOAT, "max_motor_torque", offsetof(revolute_params, max_motor_torque), SN_PARAM_RUNTIME, 0, 1e9, 0,
     "N m"},
    {5, SN_PARAM_BOOL, "enable_limit", offsetof(revolute_params, enable_limit), SN_PARAM_RUNTIME, 0, 1, 0, NULL},
    {6, SN_PARAM_FLOAT, "lower_angle", offsetof(revolute_params, lower_angle), SN_PARAM_RUNTIME, -6.3, 6.3, 0,
     "rad, relative to the angle at creation"},
    {7, SN_PARAM_FLOAT, "upper_angle", offsetof(revolute_params, upper_angle), SN_PARAM_RUNTIME, -6.3, 6.3, 0,
     "rad, relative to the angle at creation"},
};

static const sn_constraint_type revolute_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "revolute",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(revolute_params),
    .params_align = _Alignof(revolute_params),
    .instance_size = sizeof(revolute_instance),
    .instance_align = _Alignof(revolute_instance),
    .param_count = sizeof(revolute_param_desc) / sizeof(revolute_param_desc[0]),
    .params = revolute_param_desc,
    .create = revolute_create,
    .prepare = revolute_prepare,
    .warm_start = revolute_warm_start,
    .solve_velocity = revolute_solve,
    .get_reaction = revolute_reaction,
    .debug_draw = revolute_draw,
};

static int revolute_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err;
  (void)cap;
  return host->register_type(registrar, &revolute_type);
}

SN_DEFINE_PLUGIN("sinew.revolute", "0.1.0", revolute_register);
