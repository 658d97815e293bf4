/* filter: keeps two bodies from colliding with each other and does nothing
 * else (no rows, no forces). The host skips contacts between the two bodies
 * of any two-body constraint created with collide_connected false (the
 * default), and gives the pair back to the broadphase when the last such
 * constraint between them goes; a filter is that rule alone, so destroying
 * it makes the bodies collide again. Created with collide_connected true it
 * would do nothing, so create it with the default.
 *
 * Built as its own shared object against sinew/plugin.h only. */
#include <stddef.h>
#include <stdint.h>

#include "sinew/plugin.h"

typedef struct filter_params {
  int32_t unused; /* no parameters: the blob only has to exist */
} filter_params;

typedef struct filter_instance {
  int32_t unused;
} filter_instance;

static int filter_create(const sn_constraint_create_args *args) {
  ((filter_instance *)args->instance)->unused = 0;
  return 0;
}

static void filter_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

static void filter_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}

static void filter_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info, (void)item;
  force->x = force->y = 0.0f;
  *torque = 0.0f;
}

static const sn_constraint_type filter_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "filter",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(filter_params),
    .params_align = _Alignof(filter_params),
    .instance_size = sizeof(filter_instance),
    .instance_align = _Alignof(filter_instance),
    .param_count = 0,
    .params = NULL,
    .create = filter_create,
    .prepare = filter_prepare,
    .solve_velocity = filter_solve,
    .get_reaction = filter_reaction,
};

SN_DEFINE_PLUGIN_TYPES("sinew.filter", "0.1.0", &filter_type);
