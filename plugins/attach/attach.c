/* attach: pins a particle to a point fixed in a rigid body (body_count 1,
 * particle_count 1), two-way, solved in the XPBD stage. The body-frame
 * anchor is where the particle is at creation.
 *
 * Current anchor a = c + dp + r with r = (dq q)(anchor - local_center);
 * particle x = center + dp. With d = x - a:
 *
 *   C = |d|,   n = d / |d|,
 *   w = w_p + 1/m + (r x n)^2 / I     (the body's generalized inverse mass along n),
 *   dlambda = (-C - alpha~ lambda - gamma (C - C^n)) / ((1 + gamma) w + alpha~),
 *   x += w_p n dlambda;   body: dp -= n dlambda / m,  angle -= (r x n) dlambda / I,
 *
 * alpha~ = alpha / h^2, gamma = beta / h (0 when alpha = 0), lambda reset at
 * iteration 0 of each substep, C^n the distance at the substep start (both
 * points moved back by h times their velocity, the anchor by v + w x r; see
 * xpbd_distance.c for the damping convention). The body's turn goes through
 * sn_pm_turn on state->dq; the host turns dp and dq into velocity (dx / h,
 * dtheta / h). The correction is equal and opposite at the anchor, so linear
 * and angular momentum are conserved. get_reaction: lambda / h^2 along n, the
 * force on the particle.
 *
 * Built as its own shared object against sinew/plugin.h and
 * sinew/plugin_math.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

#define AT_MIN_DISTANCE 1e-9f

typedef struct at_params {
  float compliance; /* m/N */
  float damping;    /* s */
  /* pinned definition (export_params writes it): with pinned 1,
   * local_anchor replaces the particle's place on the body at creation */
  int32_t pinned;
  sn_vec2 local_anchor; /* body frame, from the origin */
} at_params;

typedef struct at_instance {
  sn_vec2 local_anchor; /* body frame, from the origin */
  float lambda;
  float c_start;
  sn_vec2 force; /* on the particle, last solve */
} at_instance;

static int at_create(const sn_constraint_create_args *args) {
  const at_params *p = args->params;
  at_instance *j = args->instance;
  if (args->body_count != 2) {
    snprintf(args->err, args->err_capacity, "attach joins 1 body and 1 particle, got %d in all", (int)args->body_count);
    return 1;
  }
  j->local_anchor = p->pinned ? p->local_anchor : sn_pm_local_point(args->bodies[0], args->bodies[1]->center);
  j->lambda = j->c_start = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  return 0;
}

/* the anchor create() derived, pinned: recreates the pin from any poses */
static int at_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const at_instance *j = instance;
  at_params *out = out_params;
  out->pinned = 1;
  out->local_anchor = j->local_anchor;
  return 0;
}

/* rotation a then b: b a */
static sn_rot at_compose(sn_rot b, sn_rot a) {
  sn_rot r;
  r.c = b.c * a.c - b.s * a.s;
  r.s = b.s * a.c + b.c * a.s;
  return r;
}

static void at_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const float h = info->h, inv_h2 = info->inv_h * info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const at_params *p = items[i].params;
    at_instance *j = items[i].instance;
    const sn_constraint_body *body = items[i].bodies[0], *part = items[i].bodies[1];
    sn_solver_body *sb = body->state, *sp = part->state;
    sn_vec2 r = sn_pm_rotate(at_compose(sb->dq, body->q), sn_pm_sub(j->local_anchor, body->local_center));
    /* d = particle - anchor in double: centres' difference, then the motion */
    double dx = ((double)part->center.x - body->center.x) + ((double)sp->dp.x - sb->dp.x) - r.x;
    double dy = ((double)part->center.y - body->center.y) + ((double)sp->dp.y - sb->dp.y) - r.y;
    double dist = sqrt(dx * dx + dy * dy);
    float c = (float)dist;
    if (info->iteration == 0) {
      j->lambda = 0.0f;
      j->force = sn_pm_vec2(0.0f, 0.0f);
      sn_vec2 va = sn_pm_add(sb->v, sn_pm_cross_sv(sb->w, r));
      double dnx = dx - (double)h * ((double)sp->v.x - va.x), dny = dy - (double)h * ((double)sp->v.y - va.y);
      j->c_start = (float)sqrt(dnx * dnx + dny * dny);
    }
    if (dist < AT_MIN_DISTANCE) continue;
    sn_vec2 n = sn_pm_vec2((float)(dx / dist), (float)(dy / dist));
    float rn = sn_pm_cross(r, n);
    float w = part->inv_mass + body->inv_mass + body->inv_inertia * rn * rn;
    if (w <= 0.0f) continue;
    float at = p->compliance * inv_h2;
    float gamma = p->compliance > 0.0f ? p->damping / h : 0.0f;
    float dl = (-c - at * j->lambda - gamma * (c - j->c_start)) / ((1.0f + gamma) * w + at);
    j->lambda += dl;
    j->force = sn_pm_scale(j->lambda * inv_h2, n);
    sn_vec2 P = sn_pm_scale(dl, n);
    sp->dp = sn_pm_add(sp->dp, sn_pm_scale(part->inv_mass, P));
    /* the body takes -P at its anchor: dp -= P / m, turn by -(r x P) / I */
    sn_pm_move_body(body, sn_pm_neg(P), -sn_pm_cross(r, P));
  }
}

static void at_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const at_instance *j = item->instance;
  *force = j->force;
  *torque = 0.0f;
}

static void at_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const at_instance *j = item->instance;
  sn_vec2 a = sn_pm_world_point(item->bodies[0], j->local_anchor);
  sn_vec2 x = item->bodies[1]->center;
  draw->segment(a, x, 0xffff40ffu, draw->context);
  draw->point(a, 4.0f, 0xffff40ffu, draw->context);
}

static const sn_param_desc at_param_desc[] = {
    {1, SN_PARAM_FLOAT, "compliance", offsetof(at_params, compliance), SN_PARAM_RUNTIME, 0.0, 1e6, 0.0,
     "alpha (m/N) of the pin; 0 = rigid"},
    {2, SN_PARAM_FLOAT, "damping", offsetof(at_params, damping), SN_PARAM_RUNTIME, 0.0, 1e3, 0.0,
     "beta (s): force -(C + beta dC/dt) / alpha; no effect when compliance is 0"},
    {3, SN_PARAM_BOOL, "pinned", offsetof(at_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor is the pin point on the body, instead of where the particle is at creation"},
    {4, SN_PARAM_VEC2, "local_anchor", offsetof(at_params, local_anchor), 0, -1e9, 1e9, 0.0,
     "pin point in the body frame (with pinned)"},
};

static const sn_constraint_type at_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "attach",
    .flags = SN_CONSTRAINT_XPBD,
    .body_count = 1,
    .params_size = sizeof(at_params),
    .params_align = _Alignof(at_params),
    .instance_size = sizeof(at_instance),
    .instance_align = _Alignof(at_instance),
    .param_count = sizeof(at_param_desc) / sizeof(at_param_desc[0]),
    .params = at_param_desc,
    .create = at_create,
    .solve_position = at_solve,
    .get_reaction = at_reaction,
    .debug_draw = at_draw,
    .export_params = at_export,
    .particle_count = 1,
};

SN_DEFINE_PLUGIN_TYPES("sinew.attach", "0.1.0", &at_type);
