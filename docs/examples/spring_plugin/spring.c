/* example.spring: pulls one body's centre of mass toward a fixed world point
 * with a linear spring (stiffness k, damping c). The tutorial in
 * docs/plugins.md builds this file out of tree against an installed Sinew. */
#include <stddef.h>

#include <sinew/plugin.h>

typedef struct spring_params {
  sn_vec2 target;  /* world point */
  float stiffness; /* N/m */
  float damping;   /* N s/m */
} spring_params;

typedef struct spring_state {
  sn_vec2 impulse; /* impulse of the last substep, for the reaction */
} spring_state;

static int spring_create(const sn_constraint_create_args *args) {
  spring_state *state = args->instance;
  state->impulse = (sn_vec2){0.0f, 0.0f};
  return 0;
}

/* Nothing to precompute: the spring reads positions as they move. */
static void spring_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

/* Force F = -k x - c v as impulses F h once per substep: the spring part in
 * the biased pass, the damper in the relax pass. Then at rest the spring
 * alone carries the load, so the static stretch is exactly m g / k (a damper
 * acting in the same pass would also push against gravity's fresh velocity
 * and shorten it by the factor 1 - c h / m). */
static void spring_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  for (int32_t i = 0; i < count; ++i) {
    const spring_params *p = items[i].params;
    spring_state *s = items[i].instance;
    sn_constraint_body *b = items[i].bodies[0];
    sn_vec2 J;
    if (use_bias) {
      sn_vec2 x = {b->center.x + b->state->dp.x - p->target.x, b->center.y + b->state->dp.y - p->target.y};
      J = (sn_vec2){-info->h * p->stiffness * x.x, -info->h * p->stiffness * x.y};
      s->impulse = J;
    } else {
      J = (sn_vec2){-info->h * p->damping * b->state->v.x, -info->h * p->damping * b->state->v.y};
    }
    b->state->v.x += b->inv_mass * J.x;
    b->state->v.y += b->inv_mass * J.y;
  }
}

static void spring_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const spring_state *s = item->instance;
  *force = (sn_vec2){s->impulse.x * info->inv_h, s->impulse.y * info->inv_h};
  *torque = 0.0f;
}

static const sn_param_desc spring_param_desc[] = {
    {1, SN_PARAM_VEC2, "target", offsetof(spring_params, target), SN_PARAM_RUNTIME, -1e6, 1e6, 0.0, "world point"},
    {2, SN_PARAM_FLOAT, "stiffness", offsetof(spring_params, stiffness), SN_PARAM_RUNTIME, 0.0, 1e6, 100.0, "N/m"},
    {3, SN_PARAM_FLOAT, "damping", offsetof(spring_params, damping), SN_PARAM_RUNTIME, 0.0, 1e6, 1.0, "N s/m"},
};

static const sn_constraint_type spring_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "example.spring",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 1,
    .params_size = sizeof(spring_params),
    .params_align = _Alignof(spring_params),
    .instance_size = sizeof(spring_state),
    .instance_align = _Alignof(spring_state),
    .param_count = sizeof(spring_param_desc) / sizeof(spring_param_desc[0]),
    .params = spring_param_desc,
    .create = spring_create,
    .prepare = spring_prepare,
    .solve_velocity = spring_solve,
    .get_reaction = spring_reaction,
};

static int spring_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err, (void)cap;
  return host->register_type(registrar, &spring_type);
}

SN_DEFINE_PLUGIN("example.spring", "1.0.0", spring_register);
