/* docs/errors.md stays in sync with the result tables: every code of
 * SN_RESULT_TABLE (engine/include/sinew/types.h) and SN_SCENE_STATUS_TABLE
 * (scenefile/include/sinew/scene_file.h), parsed from the headers' text, has
 * its own "### `NAME` (id)" section in the page, and every such section
 * names a code that exists, with its id; and the page quotes the engine's
 * messages for a world setting out of range as the engine writes them. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#define MAX_CODES 128

typedef struct code_entry {
  char name[64];
  int id;
} code_entry;

/* Entries "X(SN_..., id," of the table macro whose name is `table`. */
static int parse_table(const char *path, const char *table, code_entry *out) {
  char *text = sn_test_read_text(path);
  char start[96];
  snprintf(start, sizeof start, "#define %s(X)", table);
  char *p = strstr(text, start);
  ck_assert_msg(p != NULL, "%s not found in %s", table, path);
  int n = 0;
  /* the table is one macro: it ends at the first line without a trailing backslash */
  char *end = p;
  while ((end = strchr(end, '\n')) != NULL && end > p && end[-1] == '\\') ++end;
  for (char *x = p; (x = strstr(x, "X(SN_")) != NULL && (end == NULL || x < end); x += 2) {
    ck_assert_int_lt(n, MAX_CODES);
    ck_assert_int_eq(sscanf(x, "X(%63[A-Z0-9_], %d,", out[n].name, &out[n].id), 2);
    n++;
  }
  free(text);
  return n;
}

START_TEST(test_every_code_documented) {
  static code_entry codes[2 * MAX_CODES];
  int n = parse_table(SN_SOURCE_DIR "/engine/include/sinew/types.h", "SN_RESULT_TABLE", codes);
  ck_assert_int_ge(n, 24);
  /* the parsed table is the compiled one */
  for (int i = 0; i < n; ++i) ck_assert_str_eq(sn_result_name((sn_result)codes[i].id), codes[i].name);
  int m = parse_table(SN_SOURCE_DIR "/scenefile/include/sinew/scene_file.h", "SN_SCENE_STATUS_TABLE", codes + n);
  ck_assert_int_ge(m, 21);
  char *doc = sn_test_read_text(SN_SOURCE_DIR "/docs/errors.md");
  for (int i = 0; i < n + m; ++i) {
    char heading[160];
    snprintf(heading, sizeof heading, "\n### `%.63s` (%d)\n", codes[i].name, codes[i].id);
    ck_assert_msg(strstr(doc, heading) != NULL, "docs/errors.md has no section \"%s\"", heading + 1);
  }
  /* and no section for a code that does not exist */
  for (char *h = doc; (h = strstr(h, "\n### `")) != NULL; h += 6) {
    char name[64];
    int id = -1;
    ck_assert_int_eq(sscanf(h, "\n### `%63[A-Z0-9_]` (%d)", name, &id), 2);
    int found = 0;
    for (int i = 0; i < n + m && !found; ++i) found = strcmp(codes[i].name, name) == 0 && codes[i].id == id;
    ck_assert_msg(found, "docs/errors.md documents %s (%d), which is not in the tables", name, id);
  }
  free(doc);
}
END_TEST

/* The messages of the world settings come from their table (the setting,
 * the value, the range); the page quotes one of each code word for word. */
START_TEST(test_setting_messages_documented) {
  sn_world_def def = sn_default_world_def();
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  char *doc = sn_test_read_text(SN_SOURCE_DIR "/docs/errors.md");
  char quoted[320];
  ck_assert_int_eq(sn_world_set_substeps(w, 65), SN_ERR_INVALID_ARGUMENT);
  snprintf(quoted, sizeof quoted, "`%s`", sn_world_last_error(w));
  ck_assert_msg(strstr(doc, quoted) != NULL, "docs/errors.md does not quote the engine's message %s", quoted);
  ck_assert_int_eq(sn_world_set_gravity(w, (sn_vec2){0.0f, NAN}), SN_ERR_NOT_FINITE);
  snprintf(quoted, sizeof quoted, "`%s`", sn_world_last_error(w));
  ck_assert_msg(strstr(doc, quoted) != NULL, "docs/errors.md does not quote the engine's message %s", quoted);
  free(doc);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("errors_doc");
  TCase *tc = tcase_create("sync");
  tcase_add_test(tc, test_every_code_documented);
  tcase_add_test(tc, test_setting_messages_documented);
  suite_add_tcase(s, tc);
  return s;
}
