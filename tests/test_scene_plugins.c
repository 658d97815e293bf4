/* Where the plugins a scene file lists come from (scenefile/, "plugins" and
 * the soft bodies' types). A build that loads plugin files finds <name>.so
 * in the options' folders, SINEW_PLUGIN_PATH and the folder installed with
 * the library, names a plugin by its file (not its types), and refuses a
 * file that is no plugin with the place in the scene file. A build without
 * file loading (SINEW_DLOPEN=OFF) registers the shipped plugin of that name
 * linked in, searches no folder, and refuses another name saying so. In
 * both, a world whose types are linked in saves them under their plugins'
 * names, and the file loads again. The tests of each kind of build are a
 * part of their own (test_main.h): test_scene_plugins.plugin_files and
 * test_scene_plugins.no_file_loading, each reported skipped in the other
 * kind of build. */
#define _DEFAULT_SOURCE

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_main.h"
#include "scene_support.h"
#include "shipped.h"
#include "sinew/plugins_static.h"
#include "sinew/scene_file.h"

static char *save_or_fail(sn_world *w, const sn_scene_names *names) {
  sn_scene_error e;
  char *text = sn_scene_save_string(w, names, &e);
  ck_assert_msg(text != NULL, "save: %s", e.message);
  return text;
}

/* a pendulum on a revolute joint and a jelly (xpbd_distance, xpbd_area), no
 * plugin listed for the jelly: its builder's types come implicitly */
static const char *const pendulum_and_jelly =
    "{\"sinew_scene\": 1, \"plugins\": [\"revolute\"],\n"
    " \"bodies\": [{\"name\": \"pivot\", \"type\": \"static\", \"position\": [0, 6]},\n"
    "             {\"name\": \"bob\", \"type\": \"dynamic\", \"position\": [1, 6], \"shapes\": [{\"circle\": 0.2}]}],\n"
    " \"soft_bodies\": [{\"name\": \"jelly\", \"kind\": \"ring\", \"center\": [4, 2], \"radius\": 0.5, \"count\": "
    "12}],\n"
    " \"constraints\": [{\"type\": \"revolute\", \"bodies\": [\"pivot\", \"bob\"], \"anchor\": [0, 6]}]}";

/// Loads pendulum_and_jelly with o, which must succeed.
static void load_ok(const sn_scene_load_options *o, const char *source, sn_loaded_scene *s) {
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(pendulum_and_jelly, strlen(pendulum_and_jelly), source, o, s, &e) == SN_SCENE_OK,
                "%s: %s", source, e.message);
}

/* ------------------------------------------------------------------------ */
/* Both builds                                                              */

START_TEST(test_linked_in_types_saved_by_plugin_name) {
  /* the caller's registry has every shipped type linked in (in a build that
   * loads files too): the save lists them by plugin name, and the file loads
   * again into a registry of the loader's own */
  sn_registry *reg = sn_create_registry(NULL);
  char msg[512];
  ck_assert_msg(sn_registry_add_shipped(reg, msg, sizeof msg) == SN_OK, "%s", msg);
  sn_scene_load_options o = test_options();
  o.registry = reg;
  sn_loaded_scene s;
  sn_scene_error e;
  load_ok(&o, "linked.json", &s);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 17); /* nothing added: it had them all */
  char *saved = save_or_fail(s.world, s.names);
  ck_assert_msg(strstr(saved, "\"plugins\": [\"xpbd_distance\", \"xpbd_area\", \"revolute\"]") != NULL, "%.200s",
                saved);
  sn_scene_unload(&s);
  o.registry = NULL;
  ck_assert_msg(sn_scene_load_string(saved, strlen(saved), "again.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  const char *origin = sn_registry_get_type_origin(s.registry, "revolute");
  if (sn_shipped_from_files())
    ck_assert_msg(strstr(origin, "/revolute.so") != NULL, "%s", origin);
  else
    ck_assert_str_eq(origin, "linked-in plugin sinew.revolute");
  char *again = save_or_fail(s.world, s.names);
  ck_assert_str_eq(again, saved);
  sn_scene_free_text(again);
  sn_scene_free_text(saved);
  sn_scene_unload(&s);
  sn_destroy_registry(reg);
}
END_TEST

/* A name that is no plugin: refused at its place in the file, saying what
 * was looked for (the file in the folders, or among the linked-in ones) */
START_TEST(test_unknown_plugin) {
  const char *text = "{\"sinew_scene\": 1, \"plugins\": [\"revolute\", \"nosuch\"]}";
  sn_scene_load_options o = test_options();
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e), SN_SCENE_ERR_UNKNOWN_PLUGIN);
  ck_assert_int_eq(e.line, 1);
  ck_assert_int_eq(e.column, 44);
  const char *expected =
      sn_shipped_from_files()
          ? "p.json:1:44: plugins[1]: plugin \"nosuch\" not found; expected nosuch.so in one of: " SN_PLUGIN_DIR
          : "p.json:1:44: plugins[1]: plugin \"nosuch\" not found; expected a plugin linked into this "
            "build, which loads no plugin files (SINEW_DLOPEN off): no shipped plugin \"nosuch\"; the "
            "shipped ones are revolute, prismatic";
  ck_assert_msg(strstr(e.message, expected) != NULL, "%s", e.message);
  ck_assert_ptr_null(s.world);
  /* a file name is not a plugin name */
  text = "{\"sinew_scene\": 1, \"plugins\": [\"revolute.so\"]}";
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e), SN_SCENE_ERR_UNKNOWN_PLUGIN);
  expected = sn_shipped_from_files() ? "expected revolute.so.so in one of" : "no shipped plugin \"revolute.so\"";
  ck_assert_msg(strstr(e.message, expected) != NULL, "%s", e.message);
}
END_TEST

START_TEST(test_bad_options) {
  /* a folder count without folders, options not made by
   * sn_default_scene_load_options, no text, nowhere to put the scene */
  const char *text = "{\"sinew_scene\": 1, \"plugins\": [\"revolute\"]}";
  sn_scene_load_options o = sn_default_scene_load_options();
  sn_loaded_scene s;
  sn_scene_error e;
  o.plugin_dir_count = 1;
  o.plugin_dirs = NULL;
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e), SN_SCENE_ERR_ARGUMENT);
  sn_scene_load_options zero;
  memset(&zero, 0, sizeof zero);
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &zero, &s, &e), SN_SCENE_ERR_ARGUMENT);
  ck_assert_int_eq(sn_scene_load_string(NULL, 5, "p.json", NULL, &s, &e), SN_SCENE_ERR_ARGUMENT);
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", NULL, NULL, &e), SN_SCENE_ERR_ARGUMENT);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A build that loads plugin files (the part that needs plugin_files)       */

START_TEST(test_plugin_named_unlike_its_types) {
  /* fixture_good.so registers "fixture.good": the file lists the plugin by
   * file name, the constraint by type name, and the save lists it again */
  const char *text = "{\"sinew_scene\": 1, \"plugins\": [\"fixture_good\"],\n"
                     " \"bodies\": [{\"name\": \"b\", \"type\": \"dynamic\", \"shapes\": [{\"circle\": 0.5}]}],\n"
                     " \"constraints\": [{\"type\": \"fixture.good\", \"bodies\": [\"b\"], \"stiffness\": 3}]}";
  const char *fixture_dirs[] = {SN_FIXTURE_DIR};
  sn_scene_load_options o = test_options();
  o.plugin_dirs = fixture_dirs;
  sn_loaded_scene s;
  sn_scene_error e;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "fixture.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  char *saved = save_or_fail(s.world, s.names);
  ck_assert_ptr_nonnull(strstr(saved, "\"plugins\": [\"fixture_good\"]"));
  ck_assert_ptr_nonnull(strstr(saved, "\"type\": \"fixture.good\", \"bodies\": [\"b\"]"));
  sn_scene_free_text(saved);
  sn_scene_unload(&s);

  /* a caller's registry that has the plugin from elsewhere: not loaded again
   * (a copy found first in the search path would be a duplicate type) */
  char dir[] = "/tmp/sinew_copy_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char copy[128], cmd[512];
  snprintf(copy, sizeof copy, "%s/fixture_good.so", dir);
  snprintf(cmd, sizeof cmd, "cp '%s/fixture_good.so' '%s'", SN_FIXTURE_DIR, copy);
  ck_assert_int_eq(system(cmd), 0);
  sn_registry *reg = sn_create_registry(NULL);
  char msg[512];
  ck_assert_msg(sn_registry_load_plugin(reg, SN_FIXTURE_DIR "/fixture_good.so", msg, sizeof msg) == SN_OK, "%s", msg);
  const char *copy_dirs[] = {dir};
  o.plugin_dirs = copy_dirs;
  o.registry = reg;
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "fixture.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  sn_scene_unload(&s);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 1);
  /* which was needed: loading the copy itself is refused as a duplicate type */
  ck_assert_int_eq(sn_registry_load_plugin(reg, copy, msg, sizeof msg), SN_ERR_PLUGIN_DUPLICATE);
  remove(copy);
  rmdir(dir);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_plugin_search_path) {
  sn_scene_load_options o = sn_default_scene_load_options();
  o.search_default_dirs = false;
  sn_loaded_scene s;
  sn_scene_error e;
  const char *text = "{\"sinew_scene\": 1, \"plugins\": [\"revolute\"]}";
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e), SN_SCENE_ERR_UNKNOWN_PLUGIN);
  ck_assert_ptr_nonnull(strstr(e.message, "no folders"));
  /* SINEW_PLUGIN_PATH, ':'-separated, empty and missing folders skipped */
  o.search_default_dirs = true;
  ck_assert_int_eq(setenv("SINEW_PLUGIN_PATH", "/nonexistent/a::" SN_PLUGIN_DIR, 1), 0);
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  ck_assert_ptr_nonnull(sn_registry_find_type(s.registry, "revolute"));
  sn_scene_unload(&s);
  /* then the folder installed with the library, found from where libsinew
   * is (the build tree lays it out as an install does) */
  char installed[4096], build_dir[4096];
  ck_assert_int_eq(sn_default_plugin_dir(installed, sizeof installed), SN_OK);
  ck_assert_ptr_nonnull(realpath(SN_PLUGIN_DIR, build_dir));
  ck_assert_str_eq(installed, build_dir);
  ck_assert_int_eq(sn_default_plugin_dir(installed, 8), SN_ERR_CAPACITY);
  ck_assert_int_eq(setenv("SINEW_PLUGIN_PATH", "/nonexistent/a", 1), 0);
  ck_assert_msg(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e) == SN_SCENE_OK, "%s", e.message);
  const char *origin = sn_registry_get_type_origin(s.registry, "revolute");
  ck_assert_msg(origin != NULL && strncmp(origin, build_dir, strlen(build_dir)) == 0, "revolute from %s", origin);
  sn_scene_unload(&s);
  unsetenv("SINEW_PLUGIN_PATH");
  /* a file that is not a plugin */
  char dir[] = "/tmp/sinew_plugin_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/revolute.so", dir);
  FILE *f = fopen(path, "w");
  fputs("not a shared object\n", f);
  fclose(f);
  const char *dirs[] = {dir};
  o.plugin_dirs = dirs;
  o.plugin_dir_count = 1;
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "p.json", &o, &s, &e), SN_SCENE_ERR_PLUGIN_LOAD);
  ck_assert_int_eq(e.engine_result, SN_ERR_PLUGIN_OPEN);
  ck_assert_int_eq(e.line, 1);
  ck_assert_int_eq(e.column, 32);
  remove(path);
  rmdir(dir);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A build without file loading (the part that needs no_file_loading)       */

START_TEST(test_listed_plugins_linked_in) {
  /* no folder at all: the listed plugin and the jelly's types come linked in */
  sn_scene_load_options o = sn_default_scene_load_options();
  o.search_default_dirs = false;
  sn_loaded_scene s;
  load_ok(&o, "p.json", &s);
  ck_assert_int_eq(sn_registry_get_type_count(s.registry), 3);
  static const char *const types[] = {"revolute", "xpbd_distance", "xpbd_area"};
  for (int i = 0; i < 3; ++i) {
    char want[64];
    snprintf(want, sizeof want, "linked-in plugin sinew.%s", types[i]);
    ck_assert_str_eq(sn_registry_get_type_origin(s.registry, types[i]), want);
  }
  sn_scene_unload(&s);
  /* folders are not searched, whatever they hold */
  ck_assert_int_eq(setenv("SINEW_PLUGIN_PATH", "/nonexistent/a", 1), 0);
  o = test_options();
  o.search_default_dirs = true;
  load_ok(&o, "p.json", &s);
  sn_scene_unload(&s);
  unsetenv("SINEW_PLUGIN_PATH");
  /* a caller's registry gets only what the file needs, once */
  sn_registry *reg = sn_create_registry(NULL);
  o.registry = reg;
  load_ok(&o, "p.json", &s);
  sn_scene_unload(&s);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 3);
  load_ok(&o, "p.json", &s);
  sn_scene_unload(&s);
  ck_assert_int_eq(sn_registry_get_type_count(reg), 3);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("scene_plugins");
  TCase *tc = tcase_create("plugins");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_linked_in_types_saved_by_plugin_name);
  tcase_add_test(tc, test_unknown_plugin);
  tcase_add_test(tc, test_bad_options);
  suite_add_tcase(s, tc);
  TCase *files = tcase_create("plugin files");
  tcase_set_timeout(files, 120);
  tcase_add_test(files, test_plugin_search_path);
  tcase_add_test(files, test_plugin_named_unlike_its_types);
  sn_test_add_part(&sn_need_plugin_files, files);
  TCase *linked = tcase_create("linked in");
  tcase_set_timeout(linked, 120);
  tcase_add_test(linked, test_listed_plugins_linked_in);
  sn_test_add_part(&sn_need_no_file_loading, linked);
  return s;
}
