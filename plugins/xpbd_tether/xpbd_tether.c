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
 * Built as its own shared object against the plugin headers only
 * (sinew/plugin.h, plugin_math.h, plugin_batch.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sinew/plugin.h"
#include "sinew/plugin_batch.h"
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
  float lambda;
  float creation_length;
  sn_vec2 force; /* on the free particle, last solve */
} xt_instance;

static int xt_create(const sn_constraint_create_args *args) {
  xt_instance *j = args->instance;
  if (args->body_count != 2) {
    snprintf(args->err, args->err_capacity, "xpbd_tether joins 2 particles, got %d", (int)args->body_count);
    return 1;
  }
  sn_vec2 d = sn_pm_sub(args->bodies[1]->center, args->bodies[0]->center);
  j->creation_length = sqrtf(sn_pm_dot(d, d));
  j->lambda = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  const xt_params *p = args->params;
  if (p->pinned) j->creation_length = p->creation_length; /* as exported */
  return 0;
}

/* One projection, shared by the item path and the batch (whose SIMD lanes
 * repeat it operation for operation). a, b: centre x, y and motion dx, dy
 * (4 floats each; dx, dy move). outputs: keep force. x1 - x0 in double: the
 * centres' difference plus the step's motion. */
static inline void xt_project(const sn_step_info *info, const xt_params *p, xt_instance *j, float *a, float wa,
                              float *b, float wb, int outputs) {
  const float inv_h2 = info->inv_h * info->inv_h;
  if (info->iteration == 0) {
    j->lambda = 0.0f;
    if (outputs) j->force = sn_pm_vec2(0.0f, 0.0f);
  }
  const float max_length = p->max_length < 0.0f ? j->creation_length : p->max_length;
  double d0 = ((double)b[0] - a[0]) + ((double)b[2] - a[2]);
  double d1 = ((double)b[1] - a[1]) + ((double)b[3] - a[3]);
  double len = sqrt(d0 * d0 + d1 * d1);
  float c = (float)(len - max_length);
  float wsum = wa + wb;
  /* slack and not pulling: nothing to do (the common case, kept cheap) */
  if ((c <= 0.0f && j->lambda == 0.0f) || (float)len < 1e-9f || wsum <= 0.0f) return;
  float nx = (float)(d0 / len), ny = (float)(d1 / len);
  float at = p->compliance * inv_h2;
  float dl = (-c - at * j->lambda) / (wsum + at);
  float next = sn_pb_min0(j->lambda + dl);
  dl = next - j->lambda;
  j->lambda = next;
  if (outputs) j->force = sn_pm_vec2(next * inv_h2 * nx, next * inv_h2 * ny);
  if (dl == 0.0f) return;
  sn_pb_move_pair(a, wa, b, wb, dl * nx, dl * ny);
}

static void xt_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float pa[4], pb[4];
    sn_pb_record_from(a, pa);
    sn_pb_record_from(b, pb);
    xt_project(info, items[i].params, items[i].instance, pa, a->inv_mass, pb, b->inv_mass, 1);
    sn_pb_record_to(pa, a);
    sn_pb_record_to(pb, b);
  }
}

/* The batch: constraints [begin, end) of one colour, one after another. The
 * reaction force is kept in the step's last substep only (it is reset at
 * every substep's first sweep, so the result is the item path's). */
static void xt_solve_scalar(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  const int outputs = info->substep == info->substeps - 1;
  for (int32_t k = begin; k < end; ++k) {
    int32_t ia = batch->indices[2 * k], ib = batch->indices[2 * k + 1];
    xt_project(info, sn_pb_params(batch, k), sn_pb_instance(batch, k), sn_pb_position(batch, ia),
               sn_pb_inv_mass(batch, ia), sn_pb_position(batch, ib), sn_pb_inv_mass(batch, ib), outputs);
  }
}

#if SN_PB_SIMD
/* 4 lanes with SSE2, 8 with AVX2: the same kernel twice */
#define SN_PB_W 4
#include "xpbd_tether_kernel.inc"
#undef SN_PB_W
#define SN_PB_W 8
#include "xpbd_tether_kernel.inc"
#undef SN_PB_W
#endif

/* 8 lanes, then 4 for a tail of 4 to 7, then one at a time (every width
 * gives the same bits) */
static void xt_solve_batch(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  xt_solve_scalar(info, batch, SN_PB_RUN_LANES(xt_lanes, info, batch, begin, end), end);
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
    .solve_particles = xt_solve_batch,
    .batch_flags = SN_BATCH_SHARED_PARAMS,
};

SN_DEFINE_PLUGIN_TYPES("sinew.xpbd_tether", "0.1.0", &xt_type);
