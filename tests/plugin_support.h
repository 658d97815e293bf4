/* Shared scaffolding of the plugin loader suites: scratch folders with
 * chosen modes, copies of the fixture plugins, loads that keep the message.
 * Every helper asserts what it relies on. */
#ifndef SN_TEST_PLUGIN_SUPPORT_H
#define SN_TEST_PLUGIN_SUPPORT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinew/sinew.h"

#define FIXTURE(name) SN_FIXTURE_DIR "/fixture_" name ".so"

static inline sn_result ps_load(sn_registry *r, const char *path, char *msg) {
  msg[0] = '\0';
  return sn_registry_load_plugin(r, path, msg, 512);
}

static inline void ps_assert_has(const char *msg, const char *needle) {
  ck_assert_msg(strstr(msg, needle) != NULL, "message '%s' lacks '%s'", msg, needle);
}

/// A new scratch folder (mode 0700, from mkdtemp) in *out (capacity 64).
static inline void ps_scratch(char *out) {
  snprintf(out, 64, "/tmp/sinew_loader_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

/// mkdir path, then chmod to exactly mode (no umask).
static inline void ps_mkdir(const char *path, mode_t mode) {
  ck_assert_msg(mkdir(path, 0700) == 0, "mkdir %s", path);
  ck_assert_int_eq(chmod(path, mode), 0);
}

/// Copies the file at src to dst and sets exactly mode.
static inline void ps_copy(const char *src, const char *dst, mode_t mode) {
  FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
  ck_assert_msg(in != NULL && out != NULL, "copy %s -> %s", src, dst);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) > 0;) ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
  fclose(in);
  ck_assert_int_eq(fclose(out), 0);
  ck_assert_int_eq(chmod(dst, mode), 0);
}

/// Removes a scratch tree (paths are ours, made by ps_scratch).
static inline void ps_remove_tree(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

#endif /* SN_TEST_PLUGIN_SUPPORT_H */
