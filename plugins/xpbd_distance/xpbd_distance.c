/* xpbd_distance: keeps two particles at a rest length, solved in the XPBD
 * stage (body_count 0, particle_count 2).
 *
 *   C = |x1 - x0| - L,   grad_1 C = n = (x1 - x0) / |x1 - x0|,   grad_0 C = -n.
 *
 * Compliance mode (default; XPBD, Macklin et al. 2016, with damping):
 *   alpha~ = alpha / h^2,   gamma = beta / h   (0 when alpha = 0),
 *   dlambda = (-C - alpha~ lambda - gamma (C - C^n)) / ((1 + gamma)(w0 + w1) + alpha~),
 *   x1 += w1 n dlambda,  x0 -= w0 n dlambda,  lambda += dlambda.
 * The force on particle 1 is lambda / h^2 along n: at rest that is
 * -C / alpha (a spring k = 1/alpha).
 *
 * Warm start (begin_position / begin_particles, before the first sweep of
 * every substep). An inextensible or stiffness-mode link starts the
 * substep at lambda = 0. A compliant link starts at
 *   lambda_0 = kappa lambda_prev (h / h_prev)^2,
 *   kappa = alpha~ / (alpha~ + (1 + gamma)(w0 + w1)),
 * and the particles take that lambda_0's correction before any link of the
 * type solves. Why: with lambda reset, one Gauss-Seidel sweep per substep
 * solves each link against neighbours that have not yet taken their load,
 * and a hanging chain of compliant links settles several per cent longer
 * than alpha m g N (N + 1) / 2 (3.6 % for 10 links of alpha 1e-4 m/N,
 * 1 kg, 8 substeps); carried over, the load is there from the start and
 * the chain settles within a fraction of a per cent. For one link on its
 * own the carried part cancels exactly in its sweep (the result is that of
 * lambda reset), so the static answer -C / alpha is untouched. kappa is the
 * share of the last lambda a link would itself give back if nothing moved:
 * near 1 for soft links, near 0 for stiff ones (which then behave as
 * inextensible ones, reset each substep), which keeps stiff links from
 * overshooting on a carried load they no longer need.
 *
 * Damping: the seed's damping term is gamma grad C . (x_i - x^n) with x^n
 * the positions at the start of the substep and gamma = alpha~ beta~ / h,
 * beta~ = h^2 beta_seed. We write beta = alpha beta_seed, in seconds (the
 * dashpot over the spring: force -(C + beta dC/dt) / alpha, a Kelvin-Voigt
 * element), so gamma = beta / h, and we use the integrated form
 * C(x_i) - C(x^n), equal to grad C . (x_i - x^n) to first order but blind to
 * pure rotation. x^n = x - h v is taken once per substep, at the warm start
 * (before any link of the type moves a particle), from the velocity the host
 * predicted with (state->v is that velocity during the XPBD stage). An
 * inextensible link (alpha = 0) is not damped.
 *
 * Stiffness mode (use_stiffness, plain PBD, Mueller et al. 2006): dlambda =
 * -k' C / (w0 + w1) with k' = 1 - (1 - k)^(1/n), n = substeps x iterations,
 * so the correction compounded over one step is the user's k whatever the
 * substep and iteration counts.
 *
 * max_only makes a rope: the link only resists stretching (lambda <= 0).
 * Tearing: give the constraint a break_force; the host compares it with
 * get_reaction (|lambda| / h^2 of the last substep) after every step.
 *
 * Built as its own shared object against the plugin headers only
 * (sinew/plugin.h, plugin_math.h, plugin_batch.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_batch.h"
#include "sinew/plugin_math.h"

/* below this length the direction between the particles is undefined */
#define XD_MIN_LENGTH 1e-9f

typedef struct xd_params {
  float rest_length; /* < 0 = the distance at creation */
  float compliance;  /* m/N */
  float damping;     /* s */
  int32_t use_stiffness;
  float stiffness; /* 0..1 per step */
  int32_t max_only;
  /* pinned definition (export_params writes it): with pinned 1,
   * creation_length stands for the distance at creation */
  int32_t pinned;
  float creation_length; /* m */
} xd_params;

typedef struct xd_instance {
  float lambda;  /* this substep's multiplier (N s^2) */
  float c_start; /* C at the start of the substep (damping) */
  float creation_length;
  float lambda_h; /* the substep length lambda was found with (warm start); 0 = none yet */
  sn_vec2 axis;   /* unit x0 -> x1 of the last solve */
  sn_vec2 force;  /* on particle 1, last solve: lambda / h^2 n */
} xd_instance;

static int xd_create(const sn_constraint_create_args *args) {
  xd_instance *j = args->instance;
  if (args->body_count != 2) {
    snprintf(args->err, args->err_capacity, "xpbd_distance joins 2 particles, got %d", (int)args->body_count);
    return 1;
  }
  sn_vec2 d = sn_pm_sub(args->bodies[1]->center, args->bodies[0]->center);
  float len = sqrtf(sn_pm_dot(d, d));
  j->creation_length = len;
  j->lambda_h = 0.0f;
  j->axis = len > XD_MIN_LENGTH ? sn_pm_scale(1.0f / len, d) : sn_pm_vec2(1.0f, 0.0f);
  j->lambda = j->c_start = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  const xd_params *p = args->params;
  if (p->pinned) j->creation_length = p->creation_length; /* as exported */
  return 0;
}

/* One projection, shared by the item path, the batch's scalar path and (as
 * the reference the SIMD lanes reproduce operation for operation) the batch
 * kernel. a, b: centre x, y and motion dx, dy (4 floats each; dx, dy move),
 * inverse masses, velocities (read at iteration 0). outputs: write axis and
 * force. x1 - x0 in double: the centres' difference plus the substep motion,
 * so the small differences C - C^n (damping) keep their digits at any
 * distance from the origin. */
/* a compliant link carries lambda from substep to substep (warm start) */
static inline int xd_carries(const xd_params *p) { return !p->use_stiffness && p->compliance > 0.0f; }

static inline float xd_length(const xd_params *p, const xd_instance *j) {
  return p->rest_length < 0.0f ? j->creation_length : p->rest_length;
}

/* Warm start, part 1 (before any particle moves): C at the substep start
 * for damped links, x^n = x - h v for both particles. */
static inline void xd_begin_rate(const sn_step_info *info, const xd_params *p, xd_instance *j, const float *a,
                                 const float *va, const float *b, const float *vb) {
  if (!xd_carries(p)) return;
  j->c_start = 0.0f;
  if (p->damping <= 0.0f) return;
  const double h = info->h;
  double dnx = ((double)b[0] - a[0]) + ((double)b[2] - a[2]) - h * ((double)vb[0] - va[0]);
  double dny = ((double)b[1] - a[1]) + ((double)b[3] - a[3]) - h * ((double)vb[1] - va[1]);
  j->c_start = (float)(sqrt(dnx * dnx + dny * dny) - xd_length(p, j));
}

/* Warm start, part 2: lambda_0 = kappa lambda_prev (h / h_prev)^2 and its
 * correction (see the top of the file). */
static inline void xd_begin_carry(const sn_step_info *info, const xd_params *p, xd_instance *j, float *a, float wa,
                                  float *b, float wb) {
  if (!xd_carries(p)) return;
  const float h = info->h, prev_h = j->lambda_h, prev = j->lambda;
  j->lambda = 0.0f;
  j->lambda_h = h;
  double d0 = ((double)b[0] - a[0]) + ((double)b[2] - a[2]);
  double d1 = ((double)b[1] - a[1]) + ((double)b[3] - a[3]);
  double len = sqrt(d0 * d0 + d1 * d1);
  float wsum = wa + wb;
  if (prev_h <= 0.0f || prev == 0.0f || (float)len < XD_MIN_LENGTH || wsum <= 0.0f) return;
  float at = p->compliance * info->inv_h * info->inv_h;
  float gamma = p->damping / h;
  float kappa = at / (at + (1.0f + gamma) * wsum);
  float ratio = h / prev_h;
  float l0 = kappa * prev * (ratio * ratio);
  if (p->max_only) l0 = l0 < 0.0f ? l0 : 0.0f;
  if (!isfinite(l0)) return;
  j->lambda = l0;
  sn_pb_move_pair(a, wa, b, wb, l0 * (float)(d0 / len), l0 * (float)(d1 / len));
}

static inline void xd_project(const sn_step_info *info, const xd_params *p, xd_instance *j, float *a, float wa,
                              float *b, float wb, int outputs) {
  const float inv_h2 = info->inv_h * info->inv_h;
  const float length = xd_length(p, j);
  double d0 = ((double)b[0] - a[0]) + ((double)b[2] - a[2]);
  double d1 = ((double)b[1] - a[1]) + ((double)b[3] - a[3]);
  double len = sqrt(d0 * d0 + d1 * d1);
  float c = (float)(len - length);
  /* a link that does not carry lambda starts every substep from 0 (a
   * carrying one from what the warm start left) */
  if (info->iteration == 0 && !xd_carries(p)) j->lambda = j->c_start = 0.0f;
  float wsum = wa + wb;
  /* the guard on the float length: the SIMD lanes compare floats too */
  if ((float)len < XD_MIN_LENGTH || wsum <= 0.0f) return;
  float nx = (float)(d0 / len), ny = (float)(d1 / len);
  float dl = p->use_stiffness
                 ? -sn_pm_pbd_sweep_stiffness(info, p->stiffness) * c / wsum
                 : sn_pm_xpbd_delta_lambda(info, c, wsum, j->lambda, j->c_start, p->compliance, p->damping);
  if (p->max_only) {
    /* a rope pulls only: lambda stays <= 0 */
    float next = sn_pb_min0(j->lambda + dl);
    dl = next - j->lambda;
  }
  j->lambda += dl;
  if (outputs) {
    j->axis = sn_pm_vec2(nx, ny);
    j->force = sn_pm_vec2(j->lambda * inv_h2 * nx, j->lambda * inv_h2 * ny);
  }
  if (dl == 0.0f) return;
  sn_pb_move_pair(a, wa, b, wb, dl * nx, dl * ny);
}

static void xd_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float pa[4], pb[4];
    sn_pb_record_from(a, pa);
    sn_pb_record_from(b, pb);
    xd_project(info, items[i].params, items[i].instance, pa, a->inv_mass, pb, b->inv_mass, 1);
    sn_pb_record_to(pa, a);
    sn_pb_record_to(pb, b);
  }
}

/* The warm start of the item path: the rates of every link, then the carried
 * corrections in order (the batch path's xd_begin_batch, bit for bit). */
static void xd_begin(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float pa[4], pb[4];
    sn_pb_record_from(a, pa);
    sn_pb_record_from(b, pb);
    float va[2] = {a->state->v.x, a->state->v.y}, vb[2] = {b->state->v.x, b->state->v.y};
    xd_begin_rate(info, items[i].params, items[i].instance, pa, va, pb, vb);
  }
  for (int32_t i = 0; i < count; ++i) {
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float pa[4], pb[4];
    sn_pb_record_from(a, pa);
    sn_pb_record_from(b, pb);
    xd_begin_carry(info, items[i].params, items[i].instance, pa, a->inv_mass, pb, b->inv_mass);
    sn_pb_record_to(pa, a);
    sn_pb_record_to(pb, b);
  }
}

/* The batch's warm start: [begin, end) on one thread, in solve order. With
 * one params record for all that does not carry, nothing to do (sweep 0
 * resets lambda). */
static void xd_begin_batch(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  if (batch->params_stride == 0 && !xd_carries(batch->params)) return;
  for (int32_t k = begin; k < end; ++k) {
    int32_t ia = batch->indices[2 * k], ib = batch->indices[2 * k + 1];
    const float *ma = batch->mass_velocity + 4 * ia, *mb = batch->mass_velocity + 4 * ib;
    xd_begin_rate(info, sn_pb_params(batch, k), sn_pb_instance(batch, k), sn_pb_position(batch, ia), ma + 1,
                  sn_pb_position(batch, ib), mb + 1);
  }
  for (int32_t k = begin; k < end; ++k) {
    int32_t ia = batch->indices[2 * k], ib = batch->indices[2 * k + 1];
    xd_begin_carry(info, sn_pb_params(batch, k), sn_pb_instance(batch, k), sn_pb_position(batch, ia),
                   sn_pb_inv_mass(batch, ia), sn_pb_position(batch, ib), sn_pb_inv_mass(batch, ib));
  }
}

/* The batch: constraints [begin, end) of one colour, one after another. */
static void xd_solve_scalar(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  const int outputs = info->substep == info->substeps - 1;
  for (int32_t k = begin; k < end; ++k) {
    int32_t ia = batch->indices[2 * k], ib = batch->indices[2 * k + 1];
    xd_project(info, sn_pb_params(batch, k), sn_pb_instance(batch, k), sn_pb_position(batch, ia),
               sn_pb_inv_mass(batch, ia), sn_pb_position(batch, ib), sn_pb_inv_mass(batch, ib), outputs);
  }
}

/* the batch kernel reads params and instances as records of 4 floats */
_Static_assert(offsetof(xd_params, use_stiffness) == 12 && offsetof(xd_params, max_only) == 20 &&
                   sizeof(xd_params) == 32,
               "xd_params layout (batch kernel)");
_Static_assert(offsetof(xd_instance, creation_length) == 8 && offsetof(xd_instance, lambda_h) == 12 &&
                   sizeof(xd_instance) == 32,
               "xd_instance layout (batch kernel)");

#if SN_PB_SIMD
/* 4 lanes with SSE2, 8 with AVX2: the same kernel twice */
#define SN_PB_W 4
#include "xpbd_distance_kernel.inc"
#undef SN_PB_W
#define SN_PB_W 8
#include "xpbd_distance_kernel.inc"
#undef SN_PB_W
#endif

/* 8 lanes, then 4 for a tail of 4 to 7, then one at a time (every width
 * gives the same bits) */
static void xd_solve_batch(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  xd_solve_scalar(info, batch, SN_PB_RUN_LANES(xd_lanes, info, batch, begin, end), end);
}

static void xd_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const xd_instance *j = item->instance;
  *force = j->force;
  *torque = 0.0f;
}

static void xd_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const xd_params *p = item->params;
  const xd_instance *j = item->instance;
  sn_vec2 a = item->bodies[0]->center, b = item->bodies[1]->center;
  /* colour by load: grey at rest, red when pulling, blue when pushing */
  uint32_t color = p->max_only ? 0xc09040ffu : 0xb0b0b0ffu;
  float f = sn_pm_dot(j->force, j->axis);
  if (f < -1e-3f) color = 0xff6060ffu;
  if (f > 1e-3f) color = 0x6060ffffu;
  draw->segment(a, b, color, draw->context);
}

/* the rest length create() measured, pinned: recreates the link from any positions */
static int xd_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const xd_instance *j = instance;
  xd_params *out = out_params;
  out->pinned = 1;
  out->creation_length = j->creation_length;
  return 0;
}

static const sn_param_desc xd_param_desc[] = {
    {1, SN_PARAM_FLOAT, "rest_length", offsetof(xd_params, rest_length), SN_PARAM_RUNTIME, -1.0, 1e6, -1.0,
     "rest length L (m); negative (default -1) = the distance at creation"},
    {2, SN_PARAM_FLOAT, "compliance", offsetof(xd_params, compliance), SN_PARAM_RUNTIME, 0.0, 1e6, 0.0,
     "alpha, inverse stiffness (m/N); 0 = inextensible"},
    {3, SN_PARAM_FLOAT, "damping", offsetof(xd_params, damping), SN_PARAM_RUNTIME, 0.0, 1e3, 0.0,
     "beta (s): dashpot over spring, force -(C + beta dC/dt) / alpha; no effect when compliance is 0"},
    {4, SN_PARAM_BOOL, "use_stiffness", offsetof(xd_params, use_stiffness), SN_PARAM_RUNTIME, 0, 1, 0,
     "plain PBD: correct by stiffness per step instead of compliance (iteration-dependent)"},
    {5, SN_PARAM_FLOAT, "stiffness", offsetof(xd_params, stiffness), SN_PARAM_RUNTIME, 0.0, 1.0, 1.0,
     "PBD stiffness k per step (k' = 1 - (1 - k)^(1 / (substeps iterations)) per sweep)"},
    {6, SN_PARAM_BOOL, "max_only", offsetof(xd_params, max_only), SN_PARAM_RUNTIME, 0, 1, 0,
     "rope: resist stretching only (slack when shorter than the rest length)"},
    {7, SN_PARAM_BOOL, "pinned", offsetof(xd_params, pinned), 0, 0, 1, 0,
     "1 = creation_length is what rest_length < 0 stands for, instead of the particles' distance at creation"},
    {8, SN_PARAM_FLOAT, "creation_length", offsetof(xd_params, creation_length), 0, 0.0, 1e9, 0.0,
     "the rest length that rest_length < 0 stands for (m, with pinned)"},
};

static const sn_constraint_type xd_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "xpbd_distance",
    .flags = SN_CONSTRAINT_XPBD,
    .body_count = 0,
    .params_size = sizeof(xd_params),
    .params_align = _Alignof(xd_params),
    .instance_size = sizeof(xd_instance),
    .instance_align = _Alignof(xd_instance),
    .param_count = sizeof(xd_param_desc) / sizeof(xd_param_desc[0]),
    .params = xd_param_desc,
    .create = xd_create,
    .export_params = xd_export,
    .solve_position = xd_solve,
    .get_reaction = xd_reaction,
    .debug_draw = xd_draw,
    .particle_count = 2,
    .solve_particles = xd_solve_batch,
    .batch_flags = SN_BATCH_SHARED_PARAMS,
    .begin_position = xd_begin,
    .begin_particles = xd_begin_batch,
};

SN_DEFINE_PLUGIN_TYPES("sinew.xpbd_distance", "0.1.0", &xd_type);
