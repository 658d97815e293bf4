/* xpbd_tether: a long-range attachment (Kim, Chentanez and Mueller 2012)
 * from an anchor particle (first; usually fixed) to a free particle
 * (second), solved in the XPBD stage (body_count 0, particle_count 2).
 * One-sided: the free particle may come closer, never farther than
 * max_length:
 *
 *   C = |x1 - x0| - max_length <= 0,   n = (x1 - x0) / |x1 - x0|,
 *   dlambda = (-C - alpha~ lambda) / (w0 + w1 + alpha~),  alpha~ = alpha / h^2,
 *   lambda clamped to <= 0 (the tether pulls, never pushes),
 *
 * lambda reset at iteration 0 of every substep. With compliance 0 (the
 * default) the tether is a hard limit: after its sweep |x1 - x0| <=
 * max_length. Ropes and cloth hung from pinned particles use tethers so
 * that stretch cannot accumulate along a long chain of links.
 * get_reaction: lambda / h^2 along n, on the free particle.
 *
 * Built as its own shared object against sinew/plugin.h and
 * sinew/plugin_math.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct xt_params {
  float max_length; /* < 0 = the distance at creation */
  float compliance; /* m/N */
  /* pinned definition (export_params writes it): with pinned 1,
   * creation_length stands for the distance at creation */
  int32_t pinned;
  float creation_length; /* m */
} xt_params;

typedef struct xt_instance {
  float creation_length;
  float lambda;
  sn_vec2 force; /* on the free particle, last solve */
} xt_instance;

/* x1 - x0 in double: the centres' difference plus the step's motion */
static void xt_separation(const sn_constraint_body *a, const sn_constraint_body *b, double d[2]) {
  d[0] = ((double)b->center.x - a->center.x) + ((double)b->state->dp.x - a->state->dp.x);
  d[1] = ((double)b->center.y - a->center.y) + ((double)b->state->dp.y - a->state->dp.y);
}

static int xt_create(const sn_host_api *host, const void *params, void *instance,
                     const sn_constraint_body *const *bodies, int32_t count, char *err, size_t cap) {
  (void)host;
  (void)params;
  xt_instance *j = instance;
  if (count != 2) {
    snprintf(err, cap, "xpbd_tether joins 2 particles, got %d", (int)count);
    return 1;
  }
  sn_vec2 d = sn_pm_sub(bodies[1]->center, bodies[0]->center);
  j->creation_length = sqrtf(sn_pm_dot(d, d));
  j->lambda = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  const xt_params *p = params;
  if (p->pinned) j->creation_length = p->creation_length; /* as exported */
  return 0;
}

static void xt_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const float inv_h2 = info->inv_h * info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const xt_params *p = items[i].params;
    xt_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    if (info->iteration == 0) {
      j->lambda = 0.0f;
      j->force = sn_pm_vec2(0.0f, 0.0f);
    }
    const float max_length = p->max_length < 0.0f ? j->creation_length : p->max_length;
    double d[2];
    xt_separation(a, b, d);
    double len = sqrt(d[0] * d[0] + d[1] * d[1]);
    float c = (float)(len - max_length);
    float wsum = a->inv_mass + b->inv_mass;
    /* slack and not pulling: nothing to do (the common case, kept cheap) */
    if ((c <= 0.0f && j->lambda == 0.0f) || len < 1e-9f || wsum <= 0.0f) continue;
    sn_vec2 n = sn_pm_vec2((float)(d[0] / len), (float)(d[1] / len));
    float at = p->compliance * inv_h2;
    float dl = (-c - at * j->lambda) / (wsum + at);
    float next = fminf(j->lambda + dl, 0.0f);
    dl = next - j->lambda;
    j->lambda = next;
    j->force = sn_pm_scale(next * inv_h2, n);
    if (dl == 0.0f) continue;
    sn_vec2 P = sn_pm_scale(dl, n);
    a->state->dp = sn_pm_sub(a->state->dp, sn_pm_scale(a->inv_mass, P));
    b->state->dp = sn_pm_add(b->state->dp, sn_pm_scale(b->inv_mass, P));
  }
}

static void xt_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const xt_instance *j = item->instance;
  *force = j->force;
  *torque = 0.0f;
}

static void xt_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const xt_instance *j = item->instance;
  /* drawn only while it holds: a slack tether is invisible clutter */
  if (j->force.x == 0.0f && j->force.y == 0.0f) return;
  draw->segment(item->bodies[0]->center, item->bodies[1]->center, 0x80ff80a0u, draw->context);
}

/* the length create() measured, pinned: recreates the tether from any positions */
static int xt_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const xt_instance *j = instance;
  xt_params *out = out_params;
  out->pinned = 1;
  out->creation_length = j->creation_length;
  return 0;
}

static const sn_param_desc xt_param_desc[] = {
    {1, SN_PARAM_FLOAT, "max_length", offsetof(xt_params, max_length), SN_PARAM_RUNTIME, -1.0, 1e6, -1.0,
     "longest allowed distance (m); negative (default -1) = the distance at creation"},
    {2, SN_PARAM_FLOAT, "compliance", offsetof(xt_params, compliance), SN_PARAM_RUNTIME, 0.0, 1e6, 0.0,
     "alpha (m/N) once taut; 0 = hard limit"},
    {3, SN_PARAM_BOOL, "pinned", offsetof(xt_params, pinned), 0, 0, 1, 0,
     "1 = creation_length is what max_length < 0 stands for, instead of the particles' distance at creation"},
    {4, SN_PARAM_FLOAT, "creation_length", offsetof(xt_params, creation_length), 0, 0.0, 1e9, 0.0,
     "the longest distance that max_length < 0 stands for (m, with pinned)"},
};

static const sn_constraint_type xt_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "xpbd_tether",
    .flags = SN_CONSTRAINT_XPBD,
    .body_count = 0,
    .params_size = sizeof(xt_params),
    .params_align = _Alignof(xt_params),
    .instance_size = sizeof(xt_instance),
    .instance_align = _Alignof(xt_instance),
    .param_count = sizeof(xt_param_desc) / sizeof(xt_param_desc[0]),
    .params = xt_param_desc,
    .create = xt_create,
    .export_params = xt_export,
    .solve_position = xt_solve,
    .get_reaction = xt_reaction,
    .debug_draw = xt_draw,
    .particle_count = 2,
};

static int xt_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err;
  (void)cap;
  return host->register_type(registrar, &xt_type);
}

SN_DEFINE_PLUGIN("sinew.xpbd_tether", "0.1.0", xt_register);
