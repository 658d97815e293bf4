#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/scene_file.h"

static const char *example =
    "{ \"sinew_scene\": 1, \"gravity\": [0, -10], \"settings\": { \"substeps\": 4, \"sleep\": true },\n"
    "  \"plugins\": [\"revolute\", \"distance\"],\n"
    "  \"bodies\": [ { \"name\": \"ground\", \"type\": \"static\", \"position\": [0, -1], \"angle\": 0,\n"
    "                \"shapes\": [ { \"box\": [200, 1], \"friction\": 0.6 } ] },\n"
    "              { \"name\": \"ball\", \"type\": \"dynamic\", \"position\": [0, 4], \"velocity\": [1, 0],\n"
    "                \"angular_velocity\": 0, \"bullet\": false,\n"
    "                \"shapes\": [ { \"circle\": 0.5, \"density\": 1, \"friction\": 0.6, \"restitution\": 0.2 } ] } ],\n"
    "  \"soft_bodies\": [],\n"
    "  \"constraints\": [ { \"type\": \"revolute\", \"bodies\": [\"ground\", \"ball\"], \"anchor\": [0, 6],\n"
    "                     \"params\": { \"motor_speed\": 1, \"max_motor_torque\": 50 } } ] }\n";

START_TEST(test_smoke) {
  sn_scene_load_options o = sn_default_scene_load_options();
  const char *dirs[] = {SN_PLUGIN_DIR};
  o.plugin_dirs = dirs;
  o.plugin_dir_count = 1;
  sn_loaded_scene s;
  sn_scene_error e;
  sn_scene_status st = sn_scene_load_string(example, strlen(example), "example.json", &o, &s, &e);
  ck_assert_msg(st == SN_SCENE_OK, "%s", e.message);
  sn_scene_error se;
  char *text = sn_scene_save_string(s.world, s.names, &se);
  ck_assert_msg(text != NULL, "%s", se.message);
  printf("%s", text);
  sn_scene_free_text(text);
  sn_scene_unload(&s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("scene_file");
  TCase *tc = tcase_create("smoke");
  tcase_add_test(tc, test_smoke);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
