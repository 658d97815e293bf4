/* Plugin loader: files and folders owned by another user are refused. Only
 * root can give a file to another user (chown to uid 65534): the suite needs
 * root and plugin files, and as any other user, or in a build without file
 * loading, it reports skipped (test_main.h), never passed. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_main.h"
#include "plugin_support.h"
#include "sinew/sinew.h"

#define OTHER_UID 65534u

static const char *root_missing(void) {
  return geteuid() == 0 ? NULL : "only root can give files to another user (uid 65534)";
}
static const sn_test_need need_root = {"root", root_missing};

/* base/<a>/<b>/p.so with base/a 0755, base/a/b 0755, p.so 0644, all root's. */
static void plant(char *base, char *a, char *b, char *file) {
  ps_scratch(base);
  snprintf(a, 256, "%s/a", base);
  ps_mkdir(a, 0755);
  snprintf(b, 256, "%s/a/b", base);
  ps_mkdir(b, 0755);
  snprintf(file, 256, "%s/a/b/p.so", base);
  ps_copy(FIXTURE("good"), file, 0644);
}

static void refused_for(const char *file, const char *owned, const char *place) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_int_eq(ps_load(r, file, msg), SN_ERR_PLUGIN_INSECURE_PATH);
  ps_assert_has(msg, owned);
  ps_assert_has(msg, place);
  ps_assert_has(msg, "owned by uid 65534");
  ck_assert_int_eq(sn_registry_get_type_count(r), 0);
  sn_destroy_registry(r);
}

static void loads(const char *file) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[512];
  ck_assert_msg(ps_load(r, file, msg) == SN_OK, "%s", msg);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}

START_TEST(test_file_of_another_user_refused) {
  char base[64], a[256], b[256], file[256];
  plant(base, a, b, file);
  ck_assert_int_eq(chown(file, OTHER_UID, (gid_t)-1), 0);
  refused_for(file, file, "the file is owned");
  ck_assert_int_eq(chown(file, 0, (gid_t)-1), 0);
  loads(file);
  ps_remove_tree(base);
}
END_TEST

START_TEST(test_folder_of_another_user_refused) {
  char base[64], a[256], b[256], file[256];
  plant(base, a, b, file);
  ck_assert_int_eq(chown(b, OTHER_UID, (gid_t)-1), 0);
  refused_for(file, b, "its folder");
  ck_assert_int_eq(chown(b, 0, (gid_t)-1), 0);
  /* any folder above counts too */
  ck_assert_int_eq(chown(a, OTHER_UID, (gid_t)-1), 0);
  refused_for(file, a, "the folder");
  ck_assert_int_eq(chown(a, 0, (gid_t)-1), 0);
  loads(file);
  ps_remove_tree(base);
}
END_TEST

/* The sticky-bit exception is for root's folders: another user's
 * world-writable sticky folder above a safe one is refused (its owner may
 * rename what is in it). */
START_TEST(test_sticky_folder_of_another_user_refused) {
  char base[64], a[256], b[256], file[256];
  plant(base, a, b, file);
  ck_assert_int_eq(chmod(a, 01777), 0);
  loads(file); /* root's sticky folder above: accepted */
  ck_assert_int_eq(chown(a, OTHER_UID, (gid_t)-1), 0);
  ck_assert_int_eq(chmod(a, 01777), 0);
  refused_for(file, a, "the folder");
  ps_remove_tree(base);
}
END_TEST

Suite *sn_test_suite(void) {
  sn_test_require(&sn_need_plugin_files);
  sn_test_require(&need_root);
  Suite *s = suite_create("plugin_owner");
  TCase *tc = tcase_create("owners");
  tcase_add_test(tc, test_file_of_another_user_refused);
  tcase_add_test(tc, test_folder_of_another_user_refused);
  tcase_add_test(tc, test_sticky_folder_of_another_user_refused);
  suite_add_tcase(s, tc);
  return s;
}
