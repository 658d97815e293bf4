/* The two forms of create (sinew/plugin.h, ABI 1.2). One fixture source,
 * tests/plugins/create_form.c, built as a plugin written for ABI 1.1 (against
 * the 1.1 header kept in tests/plugins/abi_1_1: create with seven parameters,
 * entry minor 1, type fixture.create_1_1) and as one for 1.2 (create with
 * sn_constraint_create_args, type fixture.create_args). Both register, and
 * the registry's copy of either type has the 1.2 form; both create their
 * constraints from the params and the bodies' poses, refuse with their own
 * message, pass the conformance checks and hang a box on a spring at its
 * static stretch m g / k, bit for bit alike. Linked in
 * (sn_registry_add_static) in every build; loaded from their files in the
 * part test_plugin_create.plugin_files, which a build without file loading
 * (SINEW_DLOPEN off) reports skipped. The tests that take both are loop
 * tests: _i 0 linked in, _i 1 loaded. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "conformance.h"
#include "sinew/sinew.h"

SN_DECLARE_STATIC_PLUGIN(create_1_1);
SN_DECLARE_STATIC_PLUGIN(create_args);

static const char *const form_types[2] = {"fixture.create_1_1", "fixture.create_args"};

/* Registry 0: both linked in; registry 1: both loaded from their files. */
static sn_registry *forms_registry(int files) {
  char err[512];
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(r);
  if (!files) {
    ck_assert_msg(sn_registry_add_static(r, &sn_plugin_entry_create_1_1, err, sizeof err) == SN_OK, "%s", err);
    ck_assert_msg(sn_registry_add_static(r, &sn_plugin_entry_create_args, err, sizeof err) == SN_OK, "%s", err);
    return r;
  }
  const char *const files_[2] = {SN_CREATE_FORM_DIR "/fixture_create_1_1" SN_CREATE_FORM_SUFFIX,
                                 SN_CREATE_FORM_DIR "/fixture_create_args" SN_CREATE_FORM_SUFFIX};
  for (int k = 0; k < 2; ++k)
    ck_assert_msg(sn_registry_load_plugin(r, files_[k], err, sizeof err) == SN_OK, "%s: %s", files_[k], err);
  return r;
}

static int no_register(sn_registrar *registrar, const sn_constraint_type *type) {
  (void)registrar, (void)type;
  return 1;
}

START_TEST(test_entries_declare_their_minor) {
  /* the 1.1 fixture really is one: built against the 1.1 header */
  ck_assert_uint_eq(sn_plugin_entry_create_1_1.abi_major, 1);
  ck_assert_uint_eq(sn_plugin_entry_create_1_1.abi_minor, 1);
  ck_assert_uint_eq(sn_plugin_entry_create_args.abi_minor, SN_PLUGIN_ABI_MINOR);
  ck_assert_uint_ge(SN_PLUGIN_ABI_MINOR, 2);
}
END_TEST

/* The registry's copy of each type is called with the 1.2 form, the way the
 * host calls it: the 1.1 plugin's seven-parameter function receives the
 * arguments' fields (rest = rest_scale x distance, its message in err). */
START_TEST(test_registered_create_takes_args) {
  sn_registry *r = forms_registry(_i);
  ck_assert_int_eq(sn_registry_get_type_count(r), 2);
  for (int f = 0; f < 2; ++f) {
    const sn_constraint_type *t = sn_registry_find_type(r, form_types[f]);
    ck_assert_ptr_nonnull(t);
    ck_assert(t->create != NULL);
    sn_solver_body state;
    memset(&state, 0, sizeof state);
    sn_constraint_body views[2];
    memset(views, 0, sizeof views);
    views[0].center = (sn_vec2){1.0f, 1.0f};
    views[1].center = (sn_vec2){4.0f, 5.0f}; /* 5 m away */
    const sn_constraint_body *bodies[2] = {&views[0], &views[1]};
    float params[3] = {100.0f, 1.0f, 1.5f}; /* stiffness, damping, rest_scale */
    float instance = -1.0f;
    char err[128] = "";
    sn_constraint_create_args args;
    memset(&args, 0, sizeof args);
    args.size = sizeof args;
    args.host = NULL; /* first without a host table */
    args.type = t;
    args.params = params;
    args.instance = &instance;
    args.bodies = bodies;
    args.body_count = 2;
    args.err = err;
    args.err_capacity = sizeof err;
    /* no host table: refused with the plugin's own message */
    ck_assert_int_ne(t->create(&args), 0);
    ck_assert_msg(strstr(err, "create got no host table") != NULL && strstr(err, form_types[f]) != NULL, "%s", err);
    ck_assert_float_eq(instance, -1.0f);
    /* a host table and the views: the rest length from the poses */
    sn_host_api host;
    memset(&host, 0, sizeof host);
    host.size = sizeof host;
    host.abi_major = SN_PLUGIN_ABI_MAJOR;
    host.abi_minor = SN_PLUGIN_ABI_MINOR;
    host.register_type = no_register;
    args.host = &host;
    err[0] = '\0';
    ck_assert_int_eq(t->create(&args), 0);
    ck_assert_float_eq(instance, 1.5f * 5.0f);
    ck_assert_str_eq(err, "");
    /* one body count too few reaches the plugin as count */
    args.body_count = 1;
    ck_assert_int_ne(t->create(&args), 0);
    ck_assert_msg(strstr(err, "joins 2 bodies, got 1") != NULL, "%s", err);
  }
  sn_destroy_registry(r);
}
END_TEST

typedef struct hang_result {
  sn_vec2 position, velocity;
} hang_result;

/* A 1 kg box hanging 2 m below a static body on a spring of the type:
 * stiffness k = 200 N/m, rest 1.25 x 2 m, 5 s at 60 Hz, g = 10 m/s^2. */
static hang_result hang(const sn_registry *r, const char *type) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.gravity = (sn_vec2){0.0f, -10.0f};
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){0.0f, 10.0f};
  sn_body_id ceiling = sn_create_body(w, &bd);
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 8.0f};
  sn_body_id box = sn_create_body(w, &bd);
  sn_polygon poly;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &poly), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 1.0f;
  sn_create_polygon_shape(w, box, &sd, &poly);
  ck_assert_float_eq_tol(sn_body_get_mass(w, box), 1.0f, 1e-6f);
  sn_param_value values[] = {{"stiffness", 200.0, 0.0}, {"damping", 20.0, 0.0}, {"rest_scale", 1.25, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.bodies[0] = ceiling;
  cd.bodies[1] = box;
  cd.params = values;
  cd.param_count = 3;
  sn_constraint_id spring = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, spring), "%s: %s", type, sn_world_last_error(w));
  for (int i = 0; i < 300; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  hang_result h = {sn_body_get_position(w, box), sn_body_get_linear_velocity(w, box)};
  sn_destroy_world(w);
  return h;
}

/* Both forms hang the box alike, bit for bit, and as the 1.1 form linked in
 * does (loaded: _i 1). */
START_TEST(test_both_forms_simulate_alike) {
  sn_registry *linked = forms_registry(0);
  const hang_result first = hang(linked, form_types[0]);
  sn_destroy_registry(linked);
  sn_registry *r = forms_registry(_i);
  for (int f = 0; f < 2; ++f) {
    hang_result h = hang(r, form_types[f]);
    /* at rest at 10 - 2.5 - m g / k = 7.45 m, straight below */
    ck_assert_msg(fabsf(h.position.y - 7.45f) < 1e-3f, "%s: box at y = %.6f, expected 7.45", form_types[f],
                  (double)h.position.y);
    ck_assert_float_eq_tol(h.position.x, 0.0f, 1e-6f);
    ck_assert_msg(fabsf(h.velocity.y) < 1e-3f, "%s: still moving at %g m/s", form_types[f], (double)h.velocity.y);
    ck_assert_msg(memcmp(&h, &first, sizeof h) == 0, "%s (%s) differs from %s linked in", form_types[f],
                  _i ? "loaded" : "linked in", form_types[0]);
  }
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_create_refusal_reaches_the_world) {
  sn_registry *r = forms_registry(_i);
  for (int f = 0; f < 2; ++f) {
    sn_world_def wd = sn_default_world_def();
    wd.registry = r;
    sn_world *w = sn_create_world(&wd, NULL);
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    sn_body_id a = sn_create_body(w, &bd), b = sn_create_body(w, &bd); /* both at the origin */
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = form_types[f];
    cd.bodies[0] = a;
    cd.bodies[1] = b;
    ck_assert_int_eq(sn_create_constraint(w, &cd).index1, 0);
    const char *why = sn_world_last_error(w);
    ck_assert_msg(strstr(why, "SN_ERR_PLUGIN_INIT_FAILED") != NULL && strstr(why, "the bodies coincide") != NULL &&
                      strstr(why, form_types[f]) != NULL,
                  "%s", why);
    ck_assert_int_eq(sn_world_get_counters(w).constraint_count, 0);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_conformance_of_both_forms) {
  sn_registry *r = forms_registry(_i);
  for (int f = 0; f < 2; ++f) {
    const sn_constraint_type *t = sn_registry_find_type(r, form_types[f]);
    ck_assert(sn_conf_applies(t));
    int created = 0;
    int failures = sn_conf_check_type(r, t, 10, &created, stdout);
    ck_assert_msg(failures == 0, "%s: %d conformance failures (printed above)", t->name, failures);
    ck_assert_int_eq(created, 10);
  }
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("plugin_create");
  TCase *tc = tcase_create("forms");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_entries_declare_their_minor);
  tcase_add_loop_test(tc, test_registered_create_takes_args, 0, 1);
  tcase_add_loop_test(tc, test_both_forms_simulate_alike, 0, 1);
  tcase_add_loop_test(tc, test_create_refusal_reaches_the_world, 0, 1);
  tcase_add_loop_test(tc, test_conformance_of_both_forms, 0, 1);
  suite_add_tcase(s, tc);
  TCase *files = tcase_create("forms loaded");
  tcase_set_timeout(files, 120);
  tcase_add_loop_test(files, test_registered_create_takes_args, 1, 2);
  tcase_add_loop_test(files, test_both_forms_simulate_alike, 1, 2);
  tcase_add_loop_test(files, test_create_refusal_reaches_the_world, 1, 2);
  tcase_add_loop_test(files, test_conformance_of_both_forms, 1, 2);
  sn_test_add_part(&sn_need_plugin_files, files);
  return s;
}
