/* xpbd_area: keeps the area of a closed ring of particles (body_count 0,
 * particle_count SN_ANY_PARTICLES, at least 3, counter-clockwise) at
 * pressure times its area at creation: a pressure body ("jelly"), or one
 * cell of a soft lattice. Solved in the XPBD stage.
 *
 *   A = 1/2 sum_i (x_i - x_0) x (x_{i+1} - x_0)   (shoelace, relative to x_0 for precision),
 *   C = A - pressure A0,
 *   grad_i C = 1/2 (y_{i+1} - y_{i-1}, x_{i-1} - x_{i+1})   (indices around the ring),
 *   dlambda = (-C - alpha~ lambda - gamma (C - C^n)) / ((1 + gamma) sum w_i |grad_i C|^2 + alpha~),
 *   x_i += w_i grad_i C dlambda,   alpha~ = alpha / h^2,   gamma = beta / h (0 when alpha = 0),
 *
 * lambda reset at iteration 0 of each substep; C^n is the area error at the
 * substep start (x - h v; see xpbd_distance.c for the damping convention).
 * The gradients of all particles are taken at the positions before the
 * update (the two ring neighbours of the first and last particle are saved
 * first), so the correction is exact to first order. The force on
 * particle i is lambda / h^2 grad_i C: lambda / h^2 is a line pressure (N/m)
 * across the outline; at rest it is -C / alpha (alpha in m^3/N). get_reaction
 * reports the force on the second particle and the line pressure as its
 * torque slot's value (N/m, not a torque). A plain-PBD stiffness mode exists
 * as in xpbd_distance.
 *
 * The solve walks the ring twice and allocates nothing.
 *
 * Built as its own shared object against sinew/plugin.h and
 * sinew/plugin_math.h only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct xa_params {
  float pressure;   /* target area over rest area */
  float compliance; /* m^3/N (area per line pressure) */
  float damping;    /* s */
  int32_t use_stiffness;
  float stiffness;
  /* pinned definition (export_params writes it): with pinned 1, rest_area
   * replaces the ring's area at creation */
  int32_t pinned;
  float rest_area; /* m^2, > 0 */
} xa_params;

typedef struct xa_instance {
  float rest_area; /* A0, m^2 */
  float lambda;
  float c_start;
  float line_pressure; /* lambda / h^2 of the last solve, N/m */
  sn_vec2 force;       /* on the second particle */
} xa_instance;

/* x_k - x_0 in double (centres' difference plus the step's motion), with
 * particle 0 given as centre and displacement */
static void xa_relative_to(sn_constraint_body *const *b, int32_t k, sn_vec2 center0, sn_vec2 dp0, double out[2]) {
  out[0] = ((double)b[k]->center.x - center0.x) + ((double)b[k]->state->dp.x - dp0.x);
  out[1] = ((double)b[k]->center.y - center0.y) + ((double)b[k]->state->dp.y - dp0.y);
}

static void xa_relative(sn_constraint_body *const *b, int32_t k, double out[2]) {
  xa_relative_to(b, k, b[0]->center, b[0]->state->dp, out);
}

/* twice the signed area of the ring given by pos(k) (relative to point 0) */
static float xa_area2_centers(const sn_constraint_body *const *b, int32_t n) {
  sn_vec2 o = b[0]->center;
  float s = 0.0f;
  for (int32_t k = 1; k + 1 < n; ++k) s += sn_pm_cross(sn_pm_sub(b[k]->center, o), sn_pm_sub(b[k + 1]->center, o));
  return s;
}

static int xa_create(const sn_constraint_create_args *args) {
  const xa_params *p = args->params;
  xa_instance *j = args->instance;
  if (args->body_count < 3) {
    snprintf(args->err, args->err_capacity, "xpbd_area needs a ring of at least 3 particles, got %d",
             (int)args->body_count);
    return 1;
  }
  if (p->pinned && !(p->rest_area > 0.0f)) {
    snprintf(args->err, args->err_capacity, "xpbd_area: pinned rest_area is %g m^2; expected > 0",
             (double)p->rest_area);
    return 1;
  }
  /* a ring pinned to its rest area may be squashed or turned inside out now */
  float a = p->pinned ? p->rest_area : 0.5f * xa_area2_centers(args->bodies, args->body_count);
  if (!(a > 0.0f)) {
    snprintf(args->err, args->err_capacity,
             "xpbd_area: the ring's area is %g m^2; list its particles counter-clockwise", (double)a);
    return 1;
  }
  j->rest_area = a;
  j->lambda = j->c_start = j->line_pressure = 0.0f;
  j->force = sn_pm_vec2(0.0f, 0.0f);
  return 0;
}

/* the rest area create() measured, pinned: recreates the constraint from any shape */
static int xa_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out_params) {
  (void)params;
  (void)bodies;
  (void)count;
  const xa_instance *j = instance;
  xa_params *out = out_params;
  out->pinned = 1;
  out->rest_area = j->rest_area;
  return 0;
}

static void xa_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const float h = info->h, inv_h2 = info->inv_h * info->inv_h;
  for (int32_t i = 0; i < count; ++i) {
    const xa_params *p = items[i].params;
    xa_instance *j = items[i].instance;
    sn_constraint_body *const *b = items[i].bodies;
    const int32_t n = items[i].body_count;
    const float target = p->pressure * j->rest_area;

    /* pass 1: area and area at the substep start, in double from points
     * relative to particle 0 (centres' difference plus the step's motion),
     * and sum of w |grad|^2 */
    const int first = info->iteration == 0;
    const double hd = (double)h;
    double area2 = 0.0, area2_start = 0.0;
    float wsum = 0.0f;
    double prev[2], cur[2] = {0.0, 0.0}, cur_n[2] = {0.0, 0.0};
    xa_relative(b, n - 1, prev);
    for (int32_t k = 0; k < n; ++k) {
      const int32_t kn = k + 1 < n ? k + 1 : 0;
      double next[2];
      xa_relative(b, kn, next);
      if (k + 1 < n) area2 += cur[0] * next[1] - cur[1] * next[0];
      if (first && k + 1 < n) {
        /* x^n - x0^n = (x - x0) - h (v - v0) */
        double next_n[2] = {next[0] - hd * ((double)b[kn]->state->v.x - b[0]->state->v.x),
                            next[1] - hd * ((double)b[kn]->state->v.y - b[0]->state->v.y)};
        area2_start += cur_n[0] * next_n[1] - cur_n[1] * next_n[0];
        cur_n[0] = next_n[0];
        cur_n[1] = next_n[1];
      }
      if (b[k]->inv_mass > 0.0f) {
        sn_vec2 g = sn_pm_vec2((float)(0.5 * (next[1] - prev[1])), (float)(0.5 * (prev[0] - next[0])));
        wsum += b[k]->inv_mass * sn_pm_dot(g, g);
      }
      prev[0] = cur[0];
      prev[1] = cur[1];
      cur[0] = next[0];
      cur[1] = next[1];
    }
    float c = (float)(0.5 * area2 - (double)target);
    if (first) {
      j->lambda = 0.0f;
      j->c_start = (float)(0.5 * area2_start - (double)target);
    }
    if (wsum <= 0.0f) continue;
    const float dl = p->use_stiffness
                         ? -sn_pm_pbd_sweep_stiffness(info, p->stiffness) * c / wsum
                         : sn_pm_xpbd_delta_lambda(info, c, wsum, j->lambda, j->c_start, p->compliance, p->damping);
    j->lambda += dl;
    j->line_pressure = j->lambda * inv_h2;

    /* pass 2: move along the gradients taken before any move (particle 0
     * is the last one's neighbour and moves first, so keep where it was) */
    double first_x[2] = {0.0, 0.0};
    xa_relative(b, n - 1, prev);
    cur[0] = cur[1] = 0.0;
    const sn_vec2 dp0 = b[0]->state->dp;
    for (int32_t k = 0; k < n; ++k) {
      double next[2] = {first_x[0], first_x[1]};
      if (k + 1 < n) xa_relative_to(b, k + 1, b[0]->center, dp0, next);
      sn_vec2 g = sn_pm_vec2((float)(0.5 * (next[1] - prev[1])), (float)(0.5 * (prev[0] - next[0])));
      if (k == 1) j->force = sn_pm_scale(j->line_pressure, g);
      b[k]->state->dp = sn_pm_add(b[k]->state->dp, sn_pm_scale(b[k]->inv_mass * dl, g));
      prev[0] = cur[0];
      prev[1] = cur[1];
      cur[0] = next[0];
      cur[1] = next[1];
    }
  }
}

static void xa_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info;
  const xa_instance *j = item->instance;
  *force = j->force;
  *torque = j->line_pressure;
}

static void xa_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const xa_instance *j = item->instance;
  /* outline, tinted by pressure: blue pushes out, red pulls in */
  uint32_t color = j->line_pressure > 1e-3f ? 0x6080ff80u : j->line_pressure < -1e-3f ? 0xff608080u : 0xc0c0c080u;
  const int32_t n = item->body_count;
  for (int32_t k = 0; k < n; ++k)
    draw->segment(item->bodies[k]->center, item->bodies[k + 1 < n ? k + 1 : 0]->center, color, draw->context);
}

static const sn_param_desc xa_param_desc[] = {
    {1, SN_PARAM_FLOAT, "pressure", offsetof(xa_params, pressure), SN_PARAM_RUNTIME, 0.0, 100.0, 1.0,
     "target area over the area at creation (1 = keep the area; > 1 inflates)"},
    {2, SN_PARAM_FLOAT, "compliance", offsetof(xa_params, compliance), SN_PARAM_RUNTIME, 0.0, 1e6, 0.0,
     "alpha (m^3/N: area per line pressure); 0 = incompressible"},
    {3, SN_PARAM_FLOAT, "damping", offsetof(xa_params, damping), SN_PARAM_RUNTIME, 0.0, 1e3, 0.0,
     "beta (s): -(C + beta dC/dt) / alpha; no effect when compliance is 0"},
    {4, SN_PARAM_BOOL, "use_stiffness", offsetof(xa_params, use_stiffness), SN_PARAM_RUNTIME, 0, 1, 0,
     "plain PBD: correct by stiffness per step instead of compliance"},
    {5, SN_PARAM_FLOAT, "stiffness", offsetof(xa_params, stiffness), SN_PARAM_RUNTIME, 0.0, 1.0, 1.0,
     "PBD stiffness k per step (k' = 1 - (1 - k)^(1 / (substeps iterations)) per sweep)"},
    {6, SN_PARAM_BOOL, "pinned", offsetof(xa_params, pinned), 0, 0, 1, 0,
     "1 = rest_area is the rest area, instead of the ring's area at creation"},
    {7, SN_PARAM_FLOAT, "rest_area", offsetof(xa_params, rest_area), 0, 0.0, 1e18, 0.0,
     "area A0 the pressure multiplies (m^2, with pinned; > 0)"},
};

static const sn_constraint_type xa_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "xpbd_area",
    .flags = SN_CONSTRAINT_XPBD,
    .body_count = 0,
    .params_size = sizeof(xa_params),
    .params_align = _Alignof(xa_params),
    .instance_size = sizeof(xa_instance),
    .instance_align = _Alignof(xa_instance),
    .param_count = sizeof(xa_param_desc) / sizeof(xa_param_desc[0]),
    .params = xa_param_desc,
    .create = xa_create,
    .solve_position = xa_solve,
    .get_reaction = xa_reaction,
    .debug_draw = xa_draw,
    .export_params = xa_export,
    .particle_count = SN_ANY_PARTICLES,
};

SN_DEFINE_PLUGIN_TYPES("sinew.xpbd_area", "0.1.0", &xa_type);
