/* xpbd_bend: bending stiffness at a joint of three particles x0 - x1 - x2
 * (body_count 0, particle_count 3), solved in the XPBD stage. The angle
 * between consecutive segments e1 = x1 - x0 and e2 = x2 - x1,
 *
 *   theta = atan2(e1 x e2, e1 . e2) in (-pi, pi],   C = theta - theta0 (wrapped),
 *
 * has the gradients (perp(v) = (-v.y, v.x))
 *
 *   grad_0 = perp(e1) / |e1|^2,   grad_2 = perp(e2) / |e2|^2,   grad_1 = -grad_0 - grad_2,
 *
 * and the XPBD update is that of xpbd_distance:
 *   dlambda = (-C - alpha~ lambda - gamma (C - C^n)) / ((1 + gamma) sum w |grad|^2 + alpha~),
 *   x_k += w_k grad_k dlambda,  alpha~ = alpha / h^2,  gamma = beta / h (0 when alpha = 0),
 * with lambda reset at iteration 0 of each substep and C^n the angle error
 * at the substep start (x - h v, see xpbd_distance.c for the damping
 * convention). The bending moment is lambda / h^2 (N m): at rest it is
 * -C / alpha, so alpha is in rad / (N m). get_reaction reports the force on
 * the middle particle and the moment as the torque. A plain-PBD stiffness
 * mode exists as in xpbd_distance (k' = 1 - (1 - k)^(1/(substeps
 * iterations)) per sweep).
 *
 * Built as its own shared object against sinew/plugin.h and
 * sinew/plugin_math.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

#define XB_MIN_LENGTH_SQ 1e-14f

typedef struct xb_params {
  int32_t use_rest_angle; /* 0 = the angle at creation */
  float rest_angle;       /* rad */
  float compliance;       /* rad / (N m) */
  float damping;          /* s */
  int32_t use_stiffness;
  float stiffness;
  /* pinned definition (export_params writes it): with pinned 1,
   * creation_angle stands for the angle at creation */
  int32_t pinned;
  float creation_angle; /* rad */
} xb_params;

typedef struct xb_instance {
  float creation_angle;
  float lambda;
  float c_start;
  float moment;  /* lambda / h^2 of the last solve */
  sn_vec2 force; /* on the middle particle */
} xb_instance;

/* x1 - x0 in double: the centres' difference plus the step's motion */
static void xb_edge(const sn_constraint_body *a, const sn_constraint_body *b, double e[2]) {
  e[0] = ((double)b->center.x - a->center.x) + ((double)b->state->dp.x - a->state->dp.x);
  e[1] = ((double)b->center.y - a->center.y) + ((double)b->state->dp.y - a->state->dp.y);
}

static double xb_angle_d(const double e1[2], const double e2[2]) {
  return atan2(e1[0] * e2[1] - e1[1] * e2[0], e1[0] * e2[0] + e1[1] * e2[1]);
}

/* theta - rest brought into (-pi, pi] */
static float xb_error_d(double theta, float rest) {
  const double pi = 3.14159265358979323846;
  double c = theta - (double)rest;
  if (c <= -pi) c += 2.0 * pi;
  if (c > pi) c -= 2.0 * pi;
  return (float)c;
}

static float xb_angle(sn_vec2 e1, sn_vec2 e2) { return atan2f(sn_pm_cross(e1, e2), sn_pm_dot(e1, e2)); }

static int xb_create(const sn_constraint_create_args *args) {
  const xb_params *p = args->params;
  xb_instance *j = args->instance;
  if (args->body_count != 3) {
    snprintf(args->err, args->err_capacity, "xpbd_bend joins 3 particles, got %d", (int)args->body_count);
    return 1;
  }
  sn_vec2 e1 = sn_pm_sub(args->bodies[1]->center, args->bodies[0]->center);
  sn_vec2 e2 = sn_pm_sub(args->bodies[2]->center, args->bodies[1]->center);
  /* the angle is undefined there; a pinned angle does not need it */
  if (!p->pinned && (sn_pm_dot(e1, e1) < XB_MIN_LENGTH_SQ || sn_pm_dot(e2, e2) < XB_MIN_LENGTH_SQ)) {
    snprintf(args->err, args->err_capacity, "xpbd_bend: two of its particles coincide");
    return 1;
  }
  j->creation_angle = p->pinned ? p->creation_angle : xb_angle(e1, e2);
  j->lambda = j->c_start = j->moment = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  return 0;
}

/* the angle create() measured, pinned: recreates the constraint from any positions */
static int xb_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const xb_instance *j = instance;
  xb_params *out = out_params;
  out->pinned = 1;
  out->creation_angle = j->creation_angle;
  return 0;
}

static void xb_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const float h = info->h, inv_h2 = info->inv_h * info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const xb_params *p = items[i].params;
    xb_instance *j = items[i].instance;
    const sn_constraint_body *b0 = items[i].bodies[0], *b1 = items[i].bodies[1], *b2 = items[i].bodies[2];
    const float rest = p->use_rest_angle ? p->rest_angle : j->creation_angle;
    double d1[2], d2[2];
    xb_edge(b0, b1, d1);
    xb_edge(b1, b2, d2);
    if (info->iteration == 0) {
      j->lambda = 0.0f;
      const double hd = (double)h;
      double n1[2] = {d1[0] - hd * ((double)b1->state->v.x - b0->state->v.x),
                      d1[1] - hd * ((double)b1->state->v.y - b0->state->v.y)};
      double n2[2] = {d2[0] - hd * ((double)b2->state->v.x - b1->state->v.x),
                      d2[1] - hd * ((double)b2->state->v.y - b1->state->v.y)};
      j->c_start = xb_error_d(xb_angle_d(n1, n2), rest);
    }
    sn_vec2 e1 = sn_pm_vec2((float)d1[0], (float)d1[1]), e2 = sn_pm_vec2((float)d2[0], (float)d2[1]);
    float l1 = sn_pm_dot(e1, e1), l2 = sn_pm_dot(e2, e2);
    if (l1 < XB_MIN_LENGTH_SQ || l2 < XB_MIN_LENGTH_SQ) continue;
    float c = xb_error_d(xb_angle_d(d1, d2), rest);
    sn_vec2 g0 = sn_pm_scale(1.0f / l1, sn_pm_perp(e1));
    sn_vec2 g2 = sn_pm_scale(1.0f / l2, sn_pm_perp(e2));
    sn_vec2 g1 = sn_pm_neg(sn_pm_add(g0, g2));
    float wsum = b0->inv_mass * sn_pm_dot(g0, g0) + b1->inv_mass * sn_pm_dot(g1, g1) + b2->inv_mass * sn_pm_dot(g2, g2);
    if (wsum <= 0.0f) continue;
    const float dl = p->use_stiffness
                         ? -sn_pm_pbd_sweep_stiffness(info, p->stiffness) * c / wsum
                         : sn_pm_xpbd_delta_lambda(info, c, wsum, j->lambda, j->c_start, p->compliance, p->damping);
    j->lambda += dl;
    j->moment = j->lambda * inv_h2;
    j->force = sn_pm_scale(j->moment, g1);
    b0->state->dp = sn_pm_add(b0->state->dp, sn_pm_scale(b0->inv_mass * dl, g0));
    b1->state->dp = sn_pm_add(b1->state->dp, sn_pm_scale(b1->inv_mass * dl, g1));
    b2->state->dp = sn_pm_add(b2->state->dp, sn_pm_scale(b2->inv_mass * dl, g2));
  }
}

static void xb_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const xb_instance *j = item->instance;
  *force = j->force;
  *torque = j->moment;
}

static void xb_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const xb_instance *j = item->instance;
  sn_vec2 x0 = item->bodies[0]->center, x1 = item->bodies[1]->center, x2 = item->bodies[2]->center;
  /* a short arc-like tick across the joint: from the midpoints of both segments */
  sn_vec2 m1 = sn_pm_scale(0.5f, sn_pm_add(x0, x1)), m2 = sn_pm_scale(0.5f, sn_pm_add(x1, x2));
  uint32_t color = fabsf(j->moment) > 1e-4f ? 0xffa040c0u : 0xa0a0a0c0u;
  draw->segment(m1, x1, color, draw->context);
  draw->segment(x1, m2, color, draw->context);
}

static const sn_param_desc xb_param_desc[] = {
    {1, SN_PARAM_BOOL, "use_rest_angle", offsetof(xb_params, use_rest_angle), SN_PARAM_RUNTIME, 0, 1, 0,
     "0 (default) = rest angle is the angle at creation; 1 = rest_angle"},
    {2, SN_PARAM_FLOAT, "rest_angle", offsetof(xb_params, rest_angle), SN_PARAM_RUNTIME, -3.14159265, 3.14159265, 0.0,
     "rest turn angle from segment x0-x1 to x1-x2 (rad, counter-clockwise positive)"},
    {3, SN_PARAM_FLOAT, "compliance", offsetof(xb_params, compliance), SN_PARAM_RUNTIME, 0.0, 1e6, 0.0,
     "alpha, inverse bending stiffness (rad/(N m)); 0 = rigid angle"},
    {4, SN_PARAM_FLOAT, "damping", offsetof(xb_params, damping), SN_PARAM_RUNTIME, 0.0, 1e3, 0.0,
     "beta (s): moment -(C + beta dC/dt) / alpha; no effect when compliance is 0"},
    {5, SN_PARAM_BOOL, "use_stiffness", offsetof(xb_params, use_stiffness), SN_PARAM_RUNTIME, 0, 1, 0,
     "plain PBD: correct by stiffness per step instead of compliance"},
    {6, SN_PARAM_FLOAT, "stiffness", offsetof(xb_params, stiffness), SN_PARAM_RUNTIME, 0.0, 1.0, 1.0,
     "PBD stiffness k per step (k' = 1 - (1 - k)^(1 / (substeps iterations)) per sweep)"},
    {7, SN_PARAM_BOOL, "pinned", offsetof(xb_params, pinned), 0, 0, 1, 0,
     "1 = creation_angle is the rest angle when use_rest_angle is 0, instead of the angle at creation"},
    {8, SN_PARAM_FLOAT, "creation_angle", offsetof(xb_params, creation_angle), 0, -6.3, 6.3, 0.0,
     "the rest turn angle that use_rest_angle 0 stands for (rad, with pinned)"},
};

static const sn_constraint_type xb_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "xpbd_bend",
    .flags = SN_CONSTRAINT_XPBD,
    .body_count = 0,
    .params_size = sizeof(xb_params),
    .params_align = _Alignof(xb_params),
    .instance_size = sizeof(xb_instance),
    .instance_align = _Alignof(xb_instance),
    .param_count = sizeof(xb_param_desc) / sizeof(xb_param_desc[0]),
    .params = xb_param_desc,
    .create = xb_create,
    .solve_position = xb_solve,
    .get_reaction = xb_reaction,
    .debug_draw = xb_draw,
    .export_params = xb_export,
    .particle_count = 3,
};

SN_DEFINE_PLUGIN_TYPES("sinew.xpbd_bend", "0.1.0", &xb_type);
