/* Plugin loader and registry: every failure mode has a real fixture .so and
 * must give its own result code and a message naming the file and the
 * symbol or versions; after any failure the registry holds exactly what it
 * held before, and good plugins still load. Where a plugin may be loaded
 * from (scratch folders with chosen modes): write bits of the file, its
 * folder and folders above, sticky folders, symbolic links, FIFOs and
 * folders; the file swapped after the checks is not what loads; a reused
 * descriptor number does not bring back another library. Owners other than
 * root and the user: test_plugin_owner.c (root only). Every test loads or
 * refuses a file: the suite needs plugin files (sn_need_plugin_files) and
 * reports skipped in a build without file loading (SINEW_DLOPEN=OFF). Host
 * types and linked-in plugins: test_static_plugins.c. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_main.h"
#include "platform/plugin_file.h"
#include "plugin_support.h"
#include "sinew/sinew.h"

START_TEST(test_good_plugin_loads) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_int_eq(ps_load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  const sn_constraint_type *t = sn_registry_find_type(r, "fixture.good");
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->body_count, 1);
  ck_assert_uint_eq(t->param_count, 2);
  ck_assert_str_eq(t->params[0].name, "stiffness");
  ck_assert_double_eq(t->params[0].def, 10.0);
  ps_assert_has(sn_registry_get_type_origin(r, "fixture.good"), "fixture_good.so");
  /* the same file again is a no-op */
  ck_assert_int_eq(ps_load(r, FIXTURE("good"), msg), SN_OK);
  ps_assert_has(msg, "already loaded");
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
      {FIXTURE("abi_major2"), SN_ERR_PLUGIN_ABI_MAJOR, "plugin ABI 2.4", "host speaks 1.4"},
      {FIXTURE("minor_next"), SN_ERR_PLUGIN_TOO_NEW, "needs plugin ABI 1.5", "host is older (1.4)"},
      {FIXTURE("fingerprint"), SN_ERR_PLUGIN_FINGERPRINT, "fixture_fingerprint.so", "fingerprint"},
      {FIXTURE("no_solve"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "solve_velocity is NULL"},
      {FIXTURE("bad_default"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "stiffness", "default 200 outside [0, 100]"},
      {FIXTURE("init_fail"), SN_ERR_PLUGIN_INIT_FAILED, "no licence", "sn_plugin_entry_v1 (ABI 1.4, host 1.4)"},
      {FIXTURE("two_types"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.broken", "solve_position is NULL"},
      {FIXTURE("bad_batch"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "solve_particles needs XPBD"},
      {FIXTURE("bad_batch_flags"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "batch_flags 0x80"},
      {FIXTURE("bad_begin"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "begin_position needs XPBD"},
      {FIXTURE("bad_state"), SN_ERR_PLUGIN_BAD_DESCRIPTOR, "fixture.good", "needs states and get_state"},
  };
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    sn_result code = ps_load(r, cases[i].file, msg);
    ck_assert_msg(code == cases[i].code, "%s: got %s, want %s (%s)", cases[i].file, sn_result_name(code),
                  sn_result_name(cases[i].code), msg);
    ps_assert_has(msg, cases[i].needle1);
    ps_assert_has(msg, cases[i].needle2);
    /* nothing half-registered (two_types registered one good type first) */
    ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  }
  /* the registry still works after all of that */
  ck_assert_int_eq(ps_load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_duplicate_names_both_libraries) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_int_eq(ps_load(r, FIXTURE("good"), msg), SN_OK);
  ck_assert_int_eq(ps_load(r, FIXTURE("duplicate"), msg), SN_ERR_PLUGIN_DUPLICATE);
  ps_assert_has(msg, "fixture_duplicate.so");
  ps_assert_has(msg, "fixture_good.so");
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

START_TEST(test_paths_refused) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  /* a bare name would let dlopen search; refused before touching the disk */
  ck_assert_int_eq(ps_load(r, "fixture_good.so", msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, "current directory");
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
  ck_assert_int_eq(ps_load(r, path, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, "writable by others");
  chmod(path, 0644);
  chmod(dir, 0777);
  ck_assert_int_eq(ps_load(r, path, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, "folder");
  chmod(dir, 0755);
  ck_assert_int_eq(ps_load(r, path, msg), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  unlink(path);
  rmdir(dir);
  sn_destroy_registry(r);
}
END_TEST

/* ---- where a plugin may be loaded from ---------------------------------- */

/* A scratch tree: base (0700) and base/<sub> (mode), with the good fixture
 * copied to base/<sub>/p.so (0644). */
static void plant(char *base, char *file, const char *sub, mode_t sub_mode) {
  ps_scratch(base);
  char folder[128];
  snprintf(folder, sizeof folder, "%s/%s", base, sub);
  ps_mkdir(folder, sub_mode);
  snprintf(file, 256, "%s/p.so", folder);
  ps_copy(FIXTURE("good"), file, 0644);
}

START_TEST(test_group_writable_file_refused) {
  char base[64], file[256], msg[512];
  plant(base, file, "d", 0755);
  ck_assert_int_eq(chmod(file, 0664), 0);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, file, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, file);
  ps_assert_has(msg, "the file is writable by its group");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  ck_assert_int_eq(chmod(file, 0644), 0);
  ck_assert_msg(ps_load(r, file, msg) == SN_OK, "%s", msg);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

START_TEST(test_group_writable_folder_refused) {
  char base[64], file[256], folder[256], msg[512];
  plant(base, file, "d", 0775);
  snprintf(folder, sizeof folder, "%s/d ", base);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, file, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, "its folder ");
  ps_assert_has(msg, folder); /* the folder's path, then the rule */
  ps_assert_has(msg, "is writable by its group");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* base/open (0777, no sticky bit) / safe (0755) / p.so: anyone could rename
 * safe away and put their own folder there. */
START_TEST(test_world_writable_ancestor_refused) {
  char base[64], file[256], folder[256], msg[512];
  ps_scratch(base);
  snprintf(folder, sizeof folder, "%s/open", base);
  ps_mkdir(folder, 0777);
  snprintf(file, sizeof file, "%s/open/safe", base);
  ps_mkdir(file, 0755);
  snprintf(file, sizeof file, "%s/open/safe/p.so", base);
  ps_copy(FIXTURE("good"), file, 0644);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, file, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  strcat(folder, " ");
  ps_assert_has(msg, "the folder ");
  ps_assert_has(msg, folder);
  ps_assert_has(msg, "is writable by others");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* A root-owned, world-writable folder with the sticky bit (like /tmp) above
 * a safe folder is accepted: others cannot rename or remove the safe folder.
 * As root the test makes such a folder; otherwise /tmp is that folder (the
 * scratch folders are made in it). */
START_TEST(test_sticky_ancestor_accepted) {
  char base[64], file[256], msg[512];
  ps_scratch(base);
  if (geteuid() == 0) {
    snprintf(file, sizeof file, "%s/sticky", base);
    ps_mkdir(file, 01777);
    snprintf(file, sizeof file, "%s/sticky/safe", base);
    ps_mkdir(file, 0755);
    snprintf(file, sizeof file, "%s/sticky/safe/p.so", base);
  } else {
    struct stat st;
    ck_assert_int_eq(stat("/tmp", &st), 0);
    ck_assert_msg(st.st_uid == 0 && (st.st_mode & 01777) == 01777, "/tmp is not a root-owned sticky folder");
    snprintf(file, sizeof file, "%s/p.so", base);
  }
  ps_copy(FIXTURE("good"), file, 0644);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_msg(ps_load(r, file, msg) == SN_OK, "%s", msg);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* The plugin's own folder world-writable with the sticky bit: others could
 * add files beside it, so it is refused even owned by root. */
START_TEST(test_sticky_own_folder_refused) {
  char base[64], file[256], msg[512];
  plant(base, file, "sticky", 01777);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, file, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, "its folder ");
  ps_assert_has(msg, "is writable by others");
  if (geteuid() == 0) ps_assert_has(msg, "sticky bit is accepted only on a root-owned folder above");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* A symbolic link at the file is refused (the link could be repointed); a
 * symbolic link among the folders is followed, and the folders checked are
 * those the file is really in. */
START_TEST(test_symbolic_links) {
  char base[64], file[256], link[256], msg[512];
  plant(base, file, "d", 0755);
  snprintf(link, sizeof link, "%s/d/link.so", base);
  ck_assert_int_eq(symlink(file, link), 0);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, link, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, link);
  ps_assert_has(msg, "symbolic link");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  /* base/dl -> base/d: loads, and the origin is the real path */
  char folder_link[128], via[256], real_dir[128];
  snprintf(folder_link, sizeof folder_link, "%s/dl", base);
  snprintf(real_dir, sizeof real_dir, "%s/d", base);
  ck_assert_int_eq(symlink(real_dir, folder_link), 0);
  snprintf(via, sizeof via, "%s/p.so", folder_link);
  ck_assert_msg(ps_load(r, via, msg) == SN_OK, "%s", msg);
  ck_assert_str_eq(sn_registry_get_type_origin(r, "fixture.good"), file);
  /* a group-writable real folder behind a safe-looking link is refused */
  ck_assert_int_eq(chmod(real_dir, 0775), 0);
  sn_registry *r2 = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r2, via, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, real_dir);
  sn_destroy_registry(r2);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* A FIFO or a folder named like a plugin: refused at once (a FIFO would
 * block an open for reading until a writer came). */
START_TEST(test_non_regular_refused) {
  char base[64], path[256], msg[512];
  ps_scratch(base);
  alarm(20); /* a hang fails the test instead of blocking the suite */
  snprintf(path, sizeof path, "%s/fifo.so", base);
  ck_assert_int_eq(mkfifo(path, 0644), 0);
  sn_registry *r = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r, path, msg), SN_ERR_PLUGIN_OPEN);
  ps_assert_has(msg, path);
  ps_assert_has(msg, "not a regular file (a FIFO)");
  snprintf(path, sizeof path, "%s/folder.so", base);
  ps_mkdir(path, 0755);
  ck_assert_int_eq(ps_load(r, path, msg), SN_ERR_PLUGIN_OPEN);
  ps_assert_has(msg, "not a regular file (a folder)");
  /* a folder of them: every entry reported, none loaded, no hang */
  ck_assert_int_eq(sn_registry_load_directory(r, base, NULL, NULL), SN_OK);
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  alarm(0);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

typedef struct swap_context {
  const char *path, *replacement;
  int calls;
} swap_context;

/* Runs after every check passed: puts another plugin at the path. */
static void swap_file(const char *path, void *context) {
  swap_context *c = context;
  ck_assert_str_eq(path, c->path);
  ck_assert_int_eq(rename(c->replacement, c->path), 0);
  c->calls++;
}

/* The file swapped after the checks is not what gets loaded: the library
 * comes from the descriptor that was checked, never from the name again. */
START_TEST(test_swap_after_checks_loads_the_checked_file) {
  char base[64], file[256], other[256], msg[512];
  plant(base, file, "d", 0755);
  snprintf(other, sizeof other, "%s/d/other.so", base);
  ps_copy(FIXTURE("init_fail"), other, 0644);
  sn_registry *r = sn_create_registry(NULL);
  swap_context c = {file, other, 0};
  ck_assert_msg(sn_registry_load_plugin_checked(r, file, swap_file, &c, msg, sizeof msg) == SN_OK, "%s", msg);
  ck_assert_int_eq(c.calls, 1);
  ck_assert_ptr_nonnull(sn_registry_find_type(r, "fixture.good"));
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  /* the swap did happen: the path now holds the plugin that fails */
  sn_registry *r2 = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(r2, file, msg), SN_ERR_PLUGIN_INIT_FAILED);
  ps_assert_has(msg, "no licence");
  sn_destroy_registry(r2);
  sn_destroy_registry(r);
  ps_remove_tree(base);
}
END_TEST

/* Libraries are loaded as /proc/self/fd/N, and the dynamic loader returns
 * a loaded library whose name matches. When a registry closes its
 * descriptor while another registry keeps the same library loaded, the name
 * stays with that library: the next plugin opened under the same number
 * must still be itself, not the library loaded before. */
START_TEST(test_reused_descriptor_number_loads_the_new_file) {
  char base[64], good[256], failing[256], msg[512];
  plant(base, good, "d", 0755);
  snprintf(failing, sizeof failing, "%s/d/failing.so", base);
  ps_copy(FIXTURE("init_fail"), failing, 0644);
  sn_registry *first = sn_create_registry(NULL), *second = sn_create_registry(NULL);
  ck_assert_msg(ps_load(first, good, msg) == SN_OK, "%s", msg);
  ck_assert_msg(ps_load(second, good, msg) == SN_OK, "%s", msg);
  sn_destroy_registry(first); /* frees its descriptor number; the library stays loaded */
  sn_registry *third = sn_create_registry(NULL);
  ck_assert_int_eq(ps_load(third, failing, msg), SN_ERR_PLUGIN_INIT_FAILED);
  ps_assert_has(msg, "no licence");
  ck_assert_int_eq(sn_registry_get_type_count(third), 0);
  ck_assert_msg(ps_load(third, good, msg) == SN_OK, "%s", msg);
  ck_assert_int_eq(sn_registry_get_type_count(third), 1);
  sn_destroy_registry(third);
  sn_destroy_registry(second);
  ps_remove_tree(base);
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
  /* 14 fixtures + not_a_library.so; sorted, so fixture_abi_major2 comes first */
  ck_assert_int_eq(log.calls, 15);
  ps_assert_has(log.first, "fixture_abi_major2.so");
  /* good loads; duplicate then collides with it; the rest fail */
  ck_assert_int_eq(log.ok, 1);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  ck_assert_int_eq(sn_registry_load_directory(r, "/nonexistent/sinew", NULL, NULL), SN_ERR_PLUGIN_OPEN);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  sn_test_require(&sn_need_plugin_files);
  Suite *s = suite_create("plugin");
  TCase *tc = tcase_create("loader");
  tcase_add_test(tc, test_good_plugin_loads);
  tcase_add_test(tc, test_each_failure_mode);
  tcase_add_test(tc, test_duplicate_names_both_libraries);
  tcase_add_test(tc, test_paths_refused);
  tcase_add_test(tc, test_directory_sorted);
  suite_add_tcase(s, tc);
  tc = tcase_create("paths");
  tcase_add_test(tc, test_group_writable_file_refused);
  tcase_add_test(tc, test_group_writable_folder_refused);
  tcase_add_test(tc, test_world_writable_ancestor_refused);
  tcase_add_test(tc, test_sticky_ancestor_accepted);
  tcase_add_test(tc, test_sticky_own_folder_refused);
  tcase_add_test(tc, test_symbolic_links);
  tcase_add_test(tc, test_non_regular_refused);
  tcase_add_test(tc, test_swap_after_checks_loads_the_checked_file);
  tcase_add_test(tc, test_reused_descriptor_number_loads_the_new_file);
  suite_add_tcase(s, tc);
  return s;
}
