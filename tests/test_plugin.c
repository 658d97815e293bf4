/* Plugin loader and registry: every failure mode has a real fixture .so and
 * must give its own result code and a message naming the file and the
 * symbol or versions; after any failure the registry holds exactly what it
 * held before, and good plugins still load. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinew/sinew.h"

#define FIXTURE(name) SN_FIXTURE_DIR "/fixture_" name ".so"

static sn_result load(sn_registry *r, const char *path, char *msg) {
  msg[0] = '\0';
  return sn_registry_load_plugin(r, path, msg, 512);
}

static void assert_has(const char *msg, const char *needle) {
  ck_assert_msg(strstr(msg, needle) != NULL, "message '%s' lacks '%s'", msg, needle);
}

START_TEST(test_good_plugin_loads) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_int_eq(load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  const sn_constraint_type *t = sn_registry_find_type(r, "fixture.good");
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->body_count, 1);
  ck_assert_uint_eq(t->param_count, 2);
  ck_assert_str_eq(t->params[0].name, "stiffness");
  ck_assert_double_eq(t->params[0].def, 10.0);
  assert_has(sn_registry_get_type_origin(r, "fixture.good"), "fixture_good.so");
  /* the same file again is a no-op */
  ck_assert_int_eq(load(r, FIXTURE("good"), msg), SN_OK);
  assert_has(msg, "already loaded");
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

typedef struct failure_case {
  const char *file;
  sn_result code;
  const char *needle1, *needle2;
} failure_case;

START_TEST(test_each_failure_mode) {
  const failure_case cases[] = {
      {SN_FIXTURE_DIR "/not_a_library.so", SN_ERR_PLUGIN_OPEN, "not_a_library.so", "not a loadable shared object"},
      {SN_FIXTURE_DIR "/missing.so", SN_ERR_PLUGIN_OPEN, "missing.so", "no such file"},
      {FIXTURE("no_entry"), SN_ERR_PLUGIN_NO_ENTRY, "fixture_no_entry.so", "sn_plugin_entry_v1"},
      {FIXTURE("abi_major2"), SN_ERR_PLUGIN_ABI_MAJOR, "plugin ABI 2.1", "host speaks 1.1"},
      {FIXTURE("minor_next"), SN_ERR_PLUGIN_TOO_NEW, "needs plugin ABI 1.2", "host is older (1.1)"},
      {FIXTURE("fingerprint"), SN_ERR_PLUGIN_FINGERPRINT, "fixture_fingerprint.so", "fingerprint"},
      {FIXTURE("no_solve"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "solve_velocity is NULL"},
      {FIXTURE("bad_default"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "stiffness", "default 200 outside [0, 100]"},
      {FIXTURE("init_fail"), SN_ERR_PLUGIN_INIT_FAILED, "no licence", "sn_plugin_entry_v1 (ABI 1.1, host 1.1)"},
      {FIXTURE("two_types"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.broken", "solve_position is NULL"},
      {FIXTURE("bad_batch"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "solve_particles needs XPBD"},
      {FIXTURE("bad_batch_flags"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "batch_flags 0x80"},
      {FIXTURE("bad_begin"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "begin_position needs XPBD"},
  };
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    sn_result code = load(r, cases[i].file, msg);
    ck_assert_msg(code == cases[i].code, "%s: got %s, want %s (%s)", cases[i].file, sn_result_name(code),
                  sn_result_name(cases[i].code), msg);
    assert_has(msg, cases[i].needle1);
    assert_has(msg, cases[i].needle2);
    /* nothing half-registered (two_types registered one good type first) */
    ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  }
  /* the registry still works after all of that */
  ck_assert_int_eq(load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_duplicate_names_both_libraries) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_int_eq(load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(load(r, FIXTURE("duplicate"), msg), SN_ERR_PLUGIN_DUPLICATE);
  assert_has(msg, "fixture_duplicate.so");
  assert_has(msg, "fixture_good.so");
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_paths_refused) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  /* a bare name would let dlopen search; refused before touching the disk */
  ck_assert_int_eq(load(r, "fixture_good.so", msg), SN_ERR_PLUGIN_INSECURE_PATH);
  assert_has(msg, "current directory");
  /* a copy that others may write */
  char dir[] = "/tmp/sinew_plugin_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[600];
  snprintf(path, sizeof path, "%s/open.so", dir);
  FILE *in = fopen(FIXTURE("good"), "rb"), *out = fopen(path, "wb");
  ck_assert(in && out);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
  chmod(path, 0666);
  ck_assert_int_eq(load(r, path, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  assert_has(msg, "writable by others");
  chmod(path, 0644);
  chmod(dir, 0777);
  ck_assert_int_eq(load(r, path, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  assert_has(msg, "folder");
  chmod(dir, 0755);
  ck_assert_int_eq(load(r, path, msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  unlink(path);
  rmdir(dir);
  sn_destroy_registry(r);
}
END_TEST

typedef struct dir_log {
  int calls, ok;
  char first[256];
} dir_log;

static void on_load(const char *path, sn_result result, const char *message, void *context) {
  (void)message;
  dir_log *log = context;
  if (log->calls++ == 0) snprintf(log->first, sizeof log->first, "%s", path);
  log->ok += result == SN_OK;
}

START_TEST(test_directory_sorted) {
  sn_registry *r = sn_create_registry(NULL);
  dir_log log = {0, 0, ""};
  ck_assert_int_eq(sn_registry_load_directory(r, SN_FIXTURE_DIR, on_load, &log), SN_OK);
  /* 13 fixtures + not_a_library.so; sorted, so fixture_abi_major2 comes first */
  ck_assert_int_eq(log.calls, 14);
  assert_has(log.first, "fixture_abi_major2.so");
  /* good loads; duplicate then collides with it; the rest fail */
  ck_assert_int_eq(log.ok, 1);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  ck_assert_int_eq(sn_registry_load_directory(r, "/nonexistent/sinew", NULL, NULL), SN_ERR_PLUGIN_OPEN);
  sn_destroy_registry(r);
}
END_TEST

/* Host-registered types go through the same validation. */
static int host_create(const sn_host_api *h, const void *p, void *i, const sn_constraint_body *const *b, int32_t n,
                       char *e, size_t c) {
  (void)h, (void)p, (void)i, (void)b, (void)n, (void)e, (void)c;
  return 0;
}
static void host_solve_position(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}

START_TEST(test_host_types_validated) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[256];
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "host.rope";
  t.flags = SN_CONSTRAINT_XPBD;
  t.body_count = 2;
  t.params_align = t.instance_align = 4;
  t.create = host_create;
  t.solve_position = host_solve_position;
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_OK);
  ck_assert_str_eq(sn_registry_get_type_origin(r, "host.rope"), "<host>");
  sn_constraint_type bad = t;
  bad.name = "Host Rope";
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  assert_has(msg, "[a-z0-9._-]");
  bad = t;
  bad.name = "host.other";
  bad.instance_align = 3;
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  bad = t;
  bad.name = "host.other";
  bad.body_count = 3;
  ck_assert_int_eq(sn_registry_add_type(r, &bad, msg, sizeof msg), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_ERR_PLUGIN_DUPLICATE);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

static Suite *plugin_suite(void) {
  Suite *s = suite_create("plugin");
  TCase *tc = tcase_create("loader");
  tcase_add_test(tc, test_good_plugin_loads);
  tcase_add_test(tc, test_each_failure_mode);
  tcase_add_test(tc, test_duplicate_names_both_libraries);
  tcase_add_test(tc, test_paths_refused);
  tcase_add_test(tc, test_directory_sorted);
  tcase_add_test(tc, test_host_types_validated);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(plugin_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
