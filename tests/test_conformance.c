/* One conformance harness for every shipped constraint type
 * (plugins/check/conformance.h, the checks sinew-plugin-check runs on any
 * plugin): every .so in the build's plugin folder is loaded (in a build
 * without file loading, every shipped plugin linked in), and each
 * two-body impulse type and each particle type is created many times with
 * random valid parameters, no gravity. Each run must stay finite, conserve
 * total linear momentum to 1e-5 of the summed |m v|, and give the same bits
 * repeated, after the host moves every params/instance blob, across a
 * snapshot round trip and (batched types) solved per item. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_main.h"
#include "conformance.h"
#include "shipped.h"

static int check_all(bool particle_types) {
  sn_registry *reg = sn_create_registry(NULL);
  ck_assert_int_eq(sn_shipped_add_all(reg, SN_PLUGIN_DIR, NULL, NULL), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 17);
  int checked = 0;
  for (int32_t i = 0; i < sn_registry_get_type_count(reg); ++i) {
    const sn_constraint_type *t = sn_registry_get_type(reg, i);
    if (!sn_conf_applies(t) || (t->particle_count != 0) != particle_types) continue;
    int created = 0;
    int failures = sn_conf_check_type(reg, t, 20, &created, stdout);
    ck_assert_msg(failures == 0, "%s: %d conformance failures (printed above)", t->name, failures);
    ck_assert_msg(created >= 10, "%s: only %d of 20 random parameter sets were accepted", t->name, created);
    checked++;
  }
  sn_destroy_registry(reg);
  return checked;
}

START_TEST(test_every_type) {
  int checked = check_all(false);
  ck_assert_int_ge(checked, 1); /* at least revolute */
  printf("conformance: %d two-body types checked\n", checked);
}
END_TEST

START_TEST(test_every_particle_type) {
  int checked = check_all(true);
  ck_assert_int_ge(checked, 5);
  printf("conformance: %d particle types checked\n", checked);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("conformance");
  TCase *tc = tcase_create("types");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_every_type);
  tcase_add_test(tc, test_every_particle_type);
  suite_add_tcase(s, tc);
  return s;
}
