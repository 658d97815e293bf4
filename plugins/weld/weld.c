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
 * Built as its own shared object against sinew/plugin.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"

typedef struct weld_params {
  sn_vec2 anchor;      /* world point at creation */
  float linear_hertz;  /* 0 = rigid */
  float angular_hertz; /* 0 = rigid */
  float damping_ratio; /* of the soft parts */
} weld_params;

typedef struct weld_instance {
  sn_vec2 local_a, local_b; /* anchor in each body frame (from the origin) */
  float reference_angle;
  sn_vec2 linear_impulse;
  float angular_impulse;
  /* per step */
  sn_vec2 ra, rb;       /* anchors from the centres of mass, world frame, step start */
  sn_vec2 delta_center; /* centre B - centre A at step start */
  float delta_angle;    /* angle B - A - reference at step start */
  float axial_mass;
  float linear_bias_rate, linear_mass_scale, linear_impulse_scale;
  float angular_bias_rate, angular_mass_scale, angular_impulse_scale;
} weld_instance;

static sn_vec2 v_add(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x + b.x, a.y + b.y}; }
static sn_vec2 v_sub(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x - b.x, a.y - b.y}; }
static sn_vec2 v_scale(float s, sn_vec2 a) { return (sn_vec2){s * a.x, s * a.y}; }
static float v_cross(sn_vec2 a, sn_vec2 b) { return a.x * b.y - a.y * b.x; }
static sn_vec2 v_cross_sv(float s, sn_vec2 v) { return (sn_vec2){-s * v.y, s * v.x}; }
static sn_vec2 rotate(sn_rot q, sn_vec2 v) { return (sn_vec2){q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y}; }
static sn_vec2 inv_rotate(sn_rot q, sn_vec2 v) { return (sn_vec2){q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y}; }
static float rel_angle(sn_rot a, sn_rot b) { return atan2f(a.c * b.s - a.s * b.c, a.c * b.c + a.s * b.s); }

/* soft-step coefficients for stiffness hertz and damping ratio zeta */
static void softness(float hertz, float zeta, float h, float *bias_rate, float *mass_scale, float *impulse_scale) {
  float omega = 2.0f * 3.14159265359f * hertz;
  float a1 = 2.0f * zeta + h * omega, a2 = h * omega * a1, a3 = 1.0f / (1.0f + a2);
  *bias_rate = a1 > 0.0f ? omega / a1 : 0.0f;
  *mass_scale = a2 * a3;
  *impulse_scale = a3;
}

static int weld_create(const sn_host_api *host, const void *params, void *instance,
                       const sn_constraint_body *const *bodies, char *err, size_t cap) {
  (void)host;
  (void)err;
  (void)cap;
  const weld_params *p = params;
  weld_instance *j = instance;
  const sn_constraint_body *a = bodies[0], *b = bodies[1];
  j->local_a = inv_rotate(a->q, v_sub(p->anchor, a->origin));
  j->local_b = inv_rotate(b->q, v_sub(p->anchor, b->origin));
  j->reference_angle = rel_angle(a->q, b->q);
  j->linear_impulse = (sn_vec2){0.0f, 0.0f};
  j->angular_impulse = 0.0f;
  return 0;
}

static void weld_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  float jb, jm, ji;
  softness(info->joint_hertz, info->joint_damping_ratio, info->h, &jb, &jm, &ji);
  for (int32_t i = 0; i < count; ++i) {
    const weld_params *p = items[i].params;
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = rotate(a->q, v_sub(j->local_a, a->local_center));
    j->rb = rotate(b->q, v_sub(j->local_b, b->local_center));
    j->delta_center = v_sub(b->center, a->center);
    j->delta_angle = rel_angle(a->q, b->q) - j->reference_angle;
    float k = a->inv_inertia + b->inv_inertia;
    j->axial_mass = k > 0.0f ? 1.0f / k : 0.0f;
    if (p->linear_hertz > 0.0f) {
      softness(p->linear_hertz, p->damping_ratio, info->h, &j->linear_bias_rate, &j->linear_mass_scale,
               &j->linear_impulse_scale);
    } else {
      j->linear_bias_rate = jb;
      j->linear_mass_scale = jm;
      j->linear_impulse_scale = ji;
    }
    if (p->angular_hertz > 0.0f) {
      softness(p->angular_hertz, p->damping_ratio, info->h, &j->angular_bias_rate, &j->angular_mass_scale,
               &j->angular_impulse_scale);
    } else {
      j->angular_bias_rate = jb;
      j->angular_mass_scale = jm;
      j->angular_impulse_scale = ji;
    }
  }
}

static void apply(const sn_constraint_body *a, const sn_constraint_body *b, sn_vec2 ra, sn_vec2 rb, sn_vec2 P,
                  float axial) {
  a->state->v = v_sub(a->state->v, v_scale(a->inv_mass, P));
  a->state->w -= a->inv_inertia * (v_cross(ra, P) + axial);
  b->state->v = v_add(b->state->v, v_scale(b->inv_mass, P));
  b->state->w += b->inv_inertia * (v_cross(rb, P) + axial);
}

static void weld_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_vec2 ra = rotate(a->state->dq, j->ra), rb = rotate(b->state->dq, j->rb);
    apply(a, b, ra, rb, j->linear_impulse, j->angular_impulse);
  }
}

static void weld_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const weld_params *p = items[i].params;
    weld_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    sn_solver_body *sa = a->state, *sb = b->state;
    const float ia = a->inv_inertia, ib = b->inv_inertia, ma = a->inv_mass, mb = b->inv_mass;

    /* angular: Cdot = wB - wA, C = relative angle - reference */
    int soft = p->angular_hertz > 0.0f;
    if (j->axial_mass > 0.0f && (use_bias || !soft)) {
      float bias = 0.0f, ms = 1.0f, is = 0.0f;
      if (use_bias) {
        float c = j->delta_angle + rel_angle(sa->dq, sb->dq);
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
    sn_vec2 ra = rotate(sa->dq, j->ra), rb = rotate(sb->dq, j->rb);
    sn_vec2 cdot = v_sub(v_add(sb->v, v_cross_sv(sb->w, rb)), v_add(sa->v, v_cross_sv(sa->w, ra)));
    sn_vec2 bias = {0.0f, 0.0f};
    float ms = 1.0f, is = 0.0f;
    if (use_bias) {
      sn_vec2 sep = v_add(v_add(v_sub(sb->dp, sa->dp), v_sub(rb, ra)), j->delta_center);
      bias = v_scale(j->linear_bias_rate, sep);
      ms = j->linear_mass_scale;
      is = j->linear_impulse_scale;
    }
    /* K = (mA + mB) I + iA [rA]x^T [rA]x + iB [rB]x^T [rB]x, solved by Cramer */
    float k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
    float k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    float k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
    float det = k11 * k22 - k12 * k12;
    if (det != 0.0f) det = 1.0f / det;
    sn_vec2 rhs = v_add(cdot, bias);
    sn_vec2 x = {det * (k22 * rhs.x - k12 * rhs.y), det * (k11 * rhs.y - k12 * rhs.x)};
    sn_vec2 impulse = {-ms * x.x - is * j->linear_impulse.x, -ms * x.y - is * j->linear_impulse.y};
    j->linear_impulse = v_add(j->linear_impulse, impulse);
    apply(a, b, ra, rb, impulse, 0.0f);
  }
}

static void weld_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const weld_instance *j = item->instance;
  /* accumulated impulses are per substep: divide by h */
  *force = v_scale(info->inv_h, j->linear_impulse);
  *torque = info->inv_h * j->angular_impulse;
}

static void weld_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const weld_instance *j = item->instance;
  const sn_constraint_body *a = item->bodies[0], *b = item->bodies[1];
  sn_vec2 pa = v_add(a->origin, rotate(a->q, j->local_a)), pb = v_add(b->origin, rotate(b->q, j->local_b));
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
    .get_reaction = weld_reaction,
    .debug_draw = weld_draw,
};

static int weld_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err;
  (void)cap;
  return host->register_type(registrar, &weld_type);
}

SN_DEFINE_PLUGIN("sinew.weld", "0.1.0", weld_register);
