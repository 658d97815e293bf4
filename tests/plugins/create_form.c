/* Test fixture plugin: one two-body spring type whose create takes the form
 * of the plugin header it is built against. Built against the ABI 1.1 header
 * kept in tests/plugins/abi_1_1 it is a plugin written for 1.1: entry minor
 * 1, create with seven parameters, type "fixture.create_1_1". Built against
 * the ABI 1.2 header kept in tests/plugins/abi_1_2 it takes
 * sn_constraint_create_args and its descriptor ends before the 1.3 state
 * fields: type "fixture.create_1_2". Built against engine/include it takes
 * sn_constraint_create_args and publishes one state, "length" (the distance
 * between the centres of mass, m): type "fixture.create_args". Everything
 * else is the same source, so the types must simulate bit for bit alike
 * (tests/test_plugin_create.c, tests/test_joint_control.c).
 *
 * The spring joins the two centres of mass: rest length rest_scale times
 * their distance at creation (what create derives from the bodies), force
 * -stiffness (length - rest) in the biased pass and -damping times the
 * speed along it in the relax pass, as equal and opposite impulses. create
 * refuses bodies that coincide (its message through err), a host table that
 * is not the host's and, in the struct form, arguments without the type. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sinew/plugin.h"

#if SN_PLUGIN_ABI_MINOR < 2
#define FIXTURE_TYPE    "fixture.create_1_1"
#define FIXTURE_LIBRARY "test.create_1_1"
#elif SN_PLUGIN_ABI_MINOR == 2
#define FIXTURE_TYPE    "fixture.create_1_2"
#define FIXTURE_LIBRARY "test.create_1_2"
#else
#define FIXTURE_TYPE    "fixture.create_args"
#define FIXTURE_LIBRARY "test.create_args"
#endif

typedef struct spring_params {
  float stiffness;  /* N/m */
  float damping;    /* N s/m */
  float rest_scale; /* rest length over the distance at creation */
} spring_params;

typedef struct spring_instance {
  float rest; /* m */
} spring_instance;

/* create, whichever form called it */
static int spring_setup(const sn_host_api *host, const spring_params *p, spring_instance *j,
                        const sn_constraint_body *const *bodies, int32_t count, char *err, size_t cap) {
  if (host == NULL || host->abi_major != SN_PLUGIN_ABI_MAJOR || host->register_type == NULL) {
    snprintf(err, cap, FIXTURE_TYPE ": create got no host table");
    return 1;
  }
  if (count != 2) {
    snprintf(err, cap, FIXTURE_TYPE " joins 2 bodies, got %d", (int)count);
    return 1;
  }
  float dx = bodies[1]->center.x - bodies[0]->center.x, dy = bodies[1]->center.y - bodies[0]->center.y;
  float distance = sqrtf(dx * dx + dy * dy);
  if (!(distance > 1e-3f)) {
    snprintf(err, cap, FIXTURE_TYPE ": the bodies coincide (%g m apart)", (double)distance);
    return 1;
  }
  j->rest = p->rest_scale * distance;
  return 0;
}

#if SN_PLUGIN_ABI_MINOR < 2
static int spring_create(const sn_host_api *host, const void *params, void *instance,
                         const sn_constraint_body *const *bodies, int32_t count, char *err, size_t cap) {
  return spring_setup(host, params, instance, bodies, count, err, cap);
}
#else
static int spring_create(const sn_constraint_create_args *args) {
  if (args->size < sizeof *args || args->type == NULL || strcmp(args->type->name, FIXTURE_TYPE) != 0) {
    snprintf(args->err, args->err_capacity, FIXTURE_TYPE ": create got arguments without its type");
    return 1;
  }
  return spring_setup(args->host, args->params, args->instance, args->bodies, args->body_count, args->err,
                      args->err_capacity);
}
#endif

static void spring_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

static void spring_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  for (int32_t i = 0; i < count; ++i) {
    const spring_params *p = items[i].params;
    const spring_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    float dx = (b->center.x + b->state->dp.x) - (a->center.x + a->state->dp.x);
    float dy = (b->center.y + b->state->dp.y) - (a->center.y + a->state->dp.y);
    float len = sqrtf(dx * dx + dy * dy);
    if (!(len > 1e-6f)) continue;
    float nx = dx / len, ny = dy / len;
    float impulse;
    if (use_bias) {
      impulse = -info->h * p->stiffness * (len - j->rest);
    } else {
      float speed = (b->state->v.x - a->state->v.x) * nx + (b->state->v.y - a->state->v.y) * ny;
      impulse = -info->h * p->damping * speed;
    }
    a->state->v.x -= a->inv_mass * impulse * nx;
    a->state->v.y -= a->inv_mass * impulse * ny;
    b->state->v.x += b->inv_mass * impulse * nx;
    b->state->v.y += b->inv_mass * impulse * ny;
  }
}

static const sn_param_desc spring_param_desc[] = {
    {1, SN_PARAM_FLOAT, "stiffness", offsetof(spring_params, stiffness), SN_PARAM_RUNTIME, 0.0, 1000.0, 100.0, "N/m"},
    {2, SN_PARAM_FLOAT, "damping", offsetof(spring_params, damping), SN_PARAM_RUNTIME, 0.0, 100.0, 1.0, "N s/m"},
    {3, SN_PARAM_FLOAT, "rest_scale", offsetof(spring_params, rest_scale), 0, 0.5, 2.0, 1.0,
     "rest length over the distance at creation"},
};

#if SN_PLUGIN_ABI_MINOR >= 3
static void spring_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  (void)info;
  float dx = item->bodies[1]->center.x - item->bodies[0]->center.x;
  float dy = item->bodies[1]->center.y - item->bodies[0]->center.y;
  values[0].x = sqrtf(dx * dx + dy * dy);
  values[0].y = 0.0f;
}

static const sn_state_desc spring_state_desc[] = {{1, SN_PARAM_FLOAT, "length", "m, between the centres of mass"}};
#endif

static const sn_constraint_type spring_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = FIXTURE_TYPE,
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(spring_params),
    .params_align = _Alignof(spring_params),
    .instance_size = sizeof(spring_instance),
    .instance_align = _Alignof(spring_instance),
    .param_count = sizeof spring_param_desc / sizeof spring_param_desc[0],
    .params = spring_param_desc,
    .create = spring_create,
    .prepare = spring_prepare,
    .solve_velocity = spring_solve,
#if SN_PLUGIN_ABI_MINOR >= 3
    .state_count = 1,
    .states = spring_state_desc,
    .get_state = spring_state,
#endif
};

static int spring_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
  (void)err, (void)cap;
  return host->register_type(registrar, &spring_type);
}

SN_DEFINE_PLUGIN(FIXTURE_LIBRARY, "1.0.0", spring_register);
