/* Test fixture plugin. One source, built several times with FIXTURE_KIND
 * selecting a defect, so each load failure mode has a real .so to refuse.
 *   good        a valid one-body impulse type "fixture.good" with two params
 *   no_entry    exports no entry symbol
 *   abi_major2  entry claims ABI 2.0
 *   minor_next  entry claims ABI 1.(host minor + 1)
 *   fingerprint entry has a wrong fingerprint
 *   no_solve    type without its required solve_velocity callback
 *   bad_default a parameter default outside [min, max]
 *   duplicate   registers "fixture.good" again
 *   init_fail   register_types fails with a message
 *   two_types   registers a good type, then a broken one (must roll back both)
 *   bad_batch   the good (impulse, one-body) type with a solve_particles
 *   bad_batch_flags the good type with batch_flags bits that are no SN_BATCH_* flag
 *   bad_begin       the good (impulse) type with a begin_position: XPBD only, refused
 *   bad_state       the good type publishing a state without get_state: refused */
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"

#ifndef FIXTURE_KIND
#define FIXTURE_KIND good
#endif
#define KIND_good            1
#define KIND_no_entry        2
#define KIND_abi_major2      3
#define KIND_minor_next      4
#define KIND_fingerprint     5
#define KIND_no_solve        6
#define KIND_bad_default     7
#define KIND_duplicate       8
#define KIND_init_fail       9
#define KIND_two_types       10
#define KIND_bad_batch       11
#define KIND_bad_batch_flags 12
#define KIND_bad_begin       13
#define KIND_bad_state       14
#define CAT(a, b)            a##b
#define KIND(k)              CAT(KIND_, k)
#define THIS                 KIND(FIXTURE_KIND)

typedef struct fixture_params {
  float stiffness;
  int32_t enabled;
} fixture_params;

#if THIS == KIND_bad_state
static const sn_state_desc fixture_states[] = {{1, SN_PARAM_FLOAT, "impulse", "N s"}};
#endif

typedef struct fixture_instance {
  float impulse;
} fixture_instance;

static int fixture_create(const sn_constraint_create_args *args) {
  ((fixture_instance *)args->instance)->impulse = 0.0f;
  return 0;
}

static void fixture_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  (void)items;
  (void)count;
}

#if THIS != KIND_no_solve
static void fixture_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info;
  (void)items;
  (void)count;
  (void)use_bias;
}
#endif

static const sn_param_desc fixture_params_desc[] = {
    {1, SN_PARAM_FLOAT, "stiffness", offsetof(fixture_params, stiffness), SN_PARAM_RUNTIME, 0.0, 100.0,
#if THIS == KIND_bad_default
     200.0,
#else
     10.0,
#endif
     "spring stiffness"},
    {2, SN_PARAM_BOOL, "enabled", offsetof(fixture_params, enabled), 0, 0.0, 1.0, 1.0, NULL},
};

#if THIS == KIND_bad_batch
static void fixture_batch(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  (void)info, (void)batch, (void)begin, (void)end;
}

#endif

#if THIS == KIND_bad_begin
static void fixture_begin(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}
#endif

static const sn_constraint_type fixture_type = {
    sizeof(sn_constraint_type),
#if THIS == KIND_two_types
    "fixture.second",
#else
    "fixture.good",
#endif
    SN_CONSTRAINT_IMPULSE,
    1,
    sizeof(fixture_params),
    _Alignof(fixture_params),
    sizeof(fixture_instance),
    _Alignof(fixture_instance),
    2,
    fixture_params_desc,
    fixture_create,
    NULL,
    NULL,
    fixture_prepare,
    NULL,
#if THIS == KIND_no_solve
    NULL,
#else
    fixture_solve,
#endif
    NULL,
    NULL,
    NULL,
    NULL,
    0,
    NULL, /* export_params */
#if THIS == KIND_bad_batch
    fixture_batch, /* only for particle-only XPBD types: refused */
#else
    NULL, /* solve_particles */
#endif
#if THIS == KIND_bad_batch_flags
    0x80u, /* batch_flags: no such flag */
#else
    0u,   /* batch_flags */
#endif
#if THIS == KIND_bad_begin
    fixture_begin, /* begin_position: only for XPBD types */
#else
    NULL, /* begin_position */
#endif
    NULL, /* begin_particles */
#if THIS == KIND_bad_state
    1u, /* state_count */
    fixture_states,
#else
    0u,   /* state_count */
    NULL, /* states */
#endif
    NULL, /* get_state */
};

#if THIS == KIND_two_types
static const sn_constraint_type broken_type = {.struct_size = sizeof(sn_constraint_type),
                                               .name = "fixture.broken",
                                               .flags = SN_CONSTRAINT_XPBD, /* but no solve_position */
                                               .body_count = 1,
                                               .params_align = 4,
                                               .instance_align = 4,
                                               .create = fixture_create};
#endif

static int fixture_register(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {
#if THIS == KIND_init_fail
  (void)host;
  (void)registrar;
  (void)fixture_type;
  snprintf(err, cap, "fixture refuses to start: no licence");
  return 1;
#else
  (void)err;
  (void)cap;
  if (host->register_type(registrar, &fixture_type) != 0) return 1;
#if THIS == KIND_two_types
  if (host->register_type(registrar, &broken_type) != 0) return 1;
#endif
  return 0;
#endif
}

#if THIS != KIND_no_entry
SN_PLUGIN_EXPORT const sn_plugin_entry sn_plugin_entry_v1 = {
#if THIS == KIND_abi_major2
    2,
#else
    SN_PLUGIN_ABI_MAJOR,
#endif
#if THIS == KIND_minor_next
    SN_PLUGIN_ABI_MINOR + 1,
#else
    SN_PLUGIN_ABI_MINOR,
#endif
#if THIS == KIND_fingerprint
    SN_PLUGIN_FINGERPRINT ^ 0x0808u,
#else
    SN_PLUGIN_FINGERPRINT,
#endif
    sizeof(sn_plugin_entry),
    "sinew.fixture",
    "1.0.0",
    fixture_register};
#else
/* exports something else, under another name */
SN_PLUGIN_EXPORT int (*const sn_fixture_register_only)(const sn_host_api *, sn_registrar *, char *,
                                                       size_t) = fixture_register;
#endif
