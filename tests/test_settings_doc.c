/* The docs' tables of world settings and limits are the engine's tables
 * (engine/src/world/world_settings.h, SN_WORLD_SETTINGS and SN_WORLD_LIMITS)
 * rendered: each generated table in docs/user-guide.md and
 * docs/scene-format.md follows a line "<!-- generated: NAME, ... -->" and
 * must equal the rendering here, row for row (the same settings, defaults,
 * ranges, keys and meanings), and so must each top-level setting's row of
 * the scene format's top-level table. A setting added, removed or changed in
 * the table fails this test until the docs say the same:
 *
 *   build/release/tests/test_settings_doc --write
 *
 * rewrites the tables in the source tree (then review the diff).
 * The renderings are also checked against what the engine does: each
 * default is sn_default_world_def's (or a new world's, for the settings
 * sn_world_def lacks), each range's ends are accepted and the values just
 * outside refused. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "world/world_settings.h"
#include "platform/platform.h" /* SN_PRINTF */
#include "sinew/sinew.h"

#define MAX_TABLE (16 * 1024)

/* ------------------------------------------------------------------------ */
/* Rendering                                                                 */

typedef struct text {
  char data[MAX_TABLE];
  size_t length;
} text;

SN_PRINTF(2, 3)
static void add(text *t, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(t->data + t->length, sizeof t->data - t->length, fmt, args);
  va_end(args);
  ck_assert_int_ge(n, 0);
  ck_assert_uint_lt(t->length + (size_t)n, sizeof t->data);
  t->length += (size_t)n;
}

static const char *field_of(const sn_world_settings *s, const sn_setting_info *info) {
  return (const char *)s + info->offset;
}

/* The default as the docs write it: 8, 0.0005, true, [0, -10]. */
static void default_text(const sn_setting_info *info, char *out, size_t cap) {
  sn_world_settings d = sn_world_settings_default();
  const char *p = field_of(&d, info);
  switch (info->type) {
  case SN_SETTING_TYPE_INT: {
    int32_t v;
    memcpy(&v, p, sizeof v);
    snprintf(out, cap, "%d", (int)v);
    break;
  }
  case SN_SETTING_TYPE_FLOAT: {
    float v;
    memcpy(&v, p, sizeof v);
    snprintf(out, cap, "%g", (double)v);
    break;
  }
  case SN_SETTING_TYPE_BOOL: {
    bool v;
    memcpy(&v, p, sizeof v);
    snprintf(out, cap, "%s", v ? "true" : "false");
    break;
  }
  case SN_SETTING_TYPE_VEC2: {
    sn_vec2 v;
    memcpy(&v, p, sizeof v);
    snprintf(out, cap, "[%g, %g]", (double)v.x, (double)v.y);
    break;
  }
  }
}

/* A bound the table names by a constant ("SN_MAX_SPEED"), else NULL. */
static const char *bound_name(const sn_setting_info *info) {
  char c = info->max_text[0];
  return (c >= 'A' && c <= 'Z') || c == '_' ? info->max_text : NULL;
}

/* The range as the docs write it: "a whole number in [1, 64]", "a number in
 * (0, 100000] (`SN_MAX_SPEED`)", "true or false". */
static void range_text(const sn_setting_info *info, char *out, size_t cap) {
  const char *name = bound_name(info);
  char suffix[96] = "";
  if (name != NULL) snprintf(suffix, sizeof suffix, " (`%s`)", name);
  const char *open = (info->flags & SN_SETTING_ABOVE_MIN) ? "(" : "[";
  switch (info->type) {
  case SN_SETTING_TYPE_INT:
    snprintf(out, cap, "a whole number in %s%.0f, %.0f]%s", open, info->min, info->max, suffix);
    break;
  case SN_SETTING_TYPE_FLOAT:
    snprintf(out, cap, "a number in %s%g, %g]%s", open, info->min, info->max, suffix);
    break;
  case SN_SETTING_TYPE_BOOL:
    snprintf(out, cap, "true or false");
    break;
  case SN_SETTING_TYPE_VEC2:
    snprintf(out, cap, "`[x, y]`, each in %s%g, %g]%s", open, info->min, info->max, suffix);
    break;
  }
}

/* How a program sets it: "`sn_world_def`", "`sn_world_def`, `sn_world_set_substeps`". */
static void access_text(const sn_setting_info *info, char *out, size_t cap) {
  if (info->in_def && info->accessors)
    snprintf(out, cap, "`sn_world_def`, `sn_world_set_%s`", info->name);
  else if (info->in_def)
    snprintf(out, cap, "`sn_world_def`");
  else
    snprintf(out, cap, "`sn_world_set_%s`", info->name);
}

/* docs/user-guide.md, "World settings": every setting, in table order. */
static void render_guide_settings(text *t) {
  add(t, "| setting | default | range | set with | scene key | meaning |\n|---|---|---|---|---|---|\n");
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    char dflt[64], range[160], access[128];
    default_text(info, dflt, sizeof dflt);
    range_text(info, range, sizeof range);
    access_text(info, access, sizeof access);
    add(t, "| `%s` | %s | %s | %s | `%s`%s | %s |\n", info->name, dflt, range, access, info->key,
        (info->flags & SN_SETTING_TOP_LEVEL) ? " (top level)" : "", info->doc);
  }
}

/* docs/user-guide.md, "Limits". */
static void render_guide_limits(text *t) {
  add(t, "| field | default | counts |\n|---|---|---|\n");
#define SN_X(name, dflt, doc) add(t, "| `%s` | %d | %s |\n", #name, (int)(dflt), doc);
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
}

/* A row of docs/scene-format.md for a setting. */
static void render_scene_row(text *t, const sn_setting_info *info) {
  char dflt[64], range[160];
  default_text(info, dflt, sizeof dflt);
  range_text(info, range, sizeof range);
  if (info->in_def)
    add(t, "| `%s` | %s | `%s` | %s (`sn_world_def.%s`) |\n", info->key, range, dflt, info->doc, info->name);
  else
    add(t, "| `%s` | %s | `%s` | %s (`sn_world_set_%s`) |\n", info->key, range, dflt, info->doc, info->name);
}

/* docs/scene-format.md, "settings": the keys of the "settings" object in
 * the order the writer puts them (the fields of sn_world_def, then the
 * settings reached by accessors). */
static void render_scene_settings(text *t) {
  add(t, "| key | type | default | meaning |\n|---|---|---|---|\n");
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      const sn_setting_info *info = sn_world_setting_info(i);
      if ((info->flags & SN_SETTING_TOP_LEVEL) == 0 && info->in_def == (pass == 0)) render_scene_row(t, info);
    }
  }
}

/* ------------------------------------------------------------------------ */
/* The docs                                                                  */

static void write_text(const char *path, const char *data) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, strlen(data), f), strlen(data));
  ck_assert_int_eq(fclose(f), 0);
}

/* Where a span of the doc starts and ends. */
typedef struct span {
  size_t begin, end;
} span;

/* The table after the line "<!-- generated: NAME, ... -->": its lines up to
 * the first that does not start with '|'. */
static span generated_table(const char *doc, const char *path, const char *name) {
  char marker[128];
  snprintf(marker, sizeof marker, "<!-- generated: %s, ", name);
  const char *m = strstr(doc, marker);
  ck_assert_msg(m != NULL, "%s has no line \"%s...\"", path, marker);
  ck_assert_msg(strstr(m + 1, marker) == NULL, "%s has two tables \"%s\"", path, name);
  const char *p = strchr(m, '\n');
  ck_assert_ptr_nonnull(p);
  p++;
  const char *e = p;
  while (*e == '|') {
    const char *nl = strchr(e, '\n');
    e = nl != NULL ? nl + 1 : e + strlen(e);
  }
  return (span){(size_t)(p - doc), (size_t)(e - doc)};
}

/* The line of doc that starts with prefix (exactly one). */
static span line_starting(const char *doc, const char *path, const char *prefix) {
  const char *found = NULL;
  for (const char *p = doc; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, prefix, strlen(prefix)) == 0) {
      ck_assert_msg(found == NULL, "%s has two lines starting \"%s\"", path, prefix);
      found = p;
    }
  }
  ck_assert_msg(found != NULL, "%s has no line starting \"%s\"", path, prefix);
  const char *nl = strchr(found, '\n');
  return (span){(size_t)(found - doc), nl != NULL ? (size_t)(nl + 1 - doc) : strlen(doc)};
}

/* Compares span of *doc with want; with write, replaces it instead. */
static bool sync_span(char **doc, const char *path, span s, const char *want, const char *what, bool write) {
  size_t have = s.end - s.begin, n = strlen(want);
  if (have == n && memcmp(*doc + s.begin, want, n) == 0) return true;
  if (!write) {
    ck_assert_msg(false,
                  "%s: the %s differ from engine/src/world/world_settings.h; expected:\n%s\ngot:\n%.*s\n(run "
                  "tests/test_settings_doc --write)",
                  path, what, want, (int)have, *doc + s.begin);
  }
  size_t len = strlen(*doc);
  char *out = malloc(len - have + n + 1);
  ck_assert_ptr_nonnull(out);
  memcpy(out, *doc, s.begin);
  memcpy(out + s.begin, want, n);
  memcpy(out + s.begin + n, *doc + s.end, len - s.end + 1);
  free(*doc);
  *doc = out;
  return false;
}

/* Checks (or, with write, rewrites) every generated table; returns how many differed. */
static int sync_docs(bool write) {
  int changed = 0;
  static text t; /* tables are large for the stack of a Check test */
  {
    const char *path = SN_SOURCE_DIR "/docs/user-guide.md";
    char *doc = sn_test_read_text(path);
    t.length = 0;
    render_guide_settings(&t);
    changed += !sync_span(&doc, path, generated_table(doc, path, "world settings"), t.data, "settings table", write);
    t.length = 0;
    render_guide_limits(&t);
    changed += !sync_span(&doc, path, generated_table(doc, path, "world limits"), t.data, "limits table", write);
    if (write && changed) write_text(path, doc);
    free(doc);
  }
  {
    const char *path = SN_SOURCE_DIR "/docs/scene-format.md";
    char *doc = sn_test_read_text(path);
    int before = changed;
    t.length = 0;
    render_scene_settings(&t);
    changed += !sync_span(&doc, path, generated_table(doc, path, "scene settings"), t.data, "settings table", write);
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      const sn_setting_info *info = sn_world_setting_info(i);
      if ((info->flags & SN_SETTING_TOP_LEVEL) == 0) continue;
      char prefix[96];
      snprintf(prefix, sizeof prefix, "| `%s` |", info->key);
      t.length = 0;
      render_scene_row(&t, info);
      changed += !sync_span(&doc, path, line_starting(doc, path, prefix), t.data, "top-level setting row", write);
    }
    if (write && changed > before) write_text(path, doc);
    free(doc);
  }
  return changed;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */

START_TEST(test_docs_tables_are_the_table) { ck_assert_int_eq(sync_docs(false), 0); }
END_TEST

/* The mode --write (not a check, run by hand): the tables rewritten in the
 * source tree. */
START_TEST(test_write_docs) {
  int changed = sync_docs(true);
  printf("test_settings_doc: %d table%s rewritten\n", changed, changed == 1 ? "" : "s");
}
END_TEST

/* Each rendered default is the engine's: the default def (and a new world,
 * through sn_world_settings_of, for those sn_world_def lacks). */
START_TEST(test_defaults_are_the_engine_defaults) {
  sn_world_def def = sn_default_world_def();
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  sn_world_settings of_world, defaults = sn_world_settings_default(), of_def = sn_world_settings_from_def(&def);
  ck_assert_int_eq(sn_world_settings_of(w, &of_world), SN_OK);
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    size_t size = info->type == SN_SETTING_TYPE_VEC2   ? sizeof(sn_vec2)
                  : info->type == SN_SETTING_TYPE_BOOL ? sizeof(bool)
                  : info->type == SN_SETTING_TYPE_INT  ? sizeof(int32_t)
                                                       : sizeof(float);
    ck_assert_msg(memcmp(field_of(&of_world, info), field_of(&defaults, info), size) == 0,
                  "a new world's %s is not the table's default", info->name);
    ck_assert_msg(memcmp(field_of(&of_def, info), field_of(&defaults, info), size) == 0,
                  "sn_default_world_def's %s is not the table's default", info->name);
  }
#define SN_X(name, dflt, doc) ck_assert_int_eq(def.name, (dflt));
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
  sn_destroy_world(w);
}
END_TEST

/* A value of a setting's type with every component v. */
static void set_value(const sn_setting_info *info, sn_world_settings *s, double v) {
  char *p = (char *)s + info->offset;
  switch (info->type) {
  case SN_SETTING_TYPE_INT: {
    int32_t x = (int32_t)v;
    memcpy(p, &x, sizeof x);
    break;
  }
  case SN_SETTING_TYPE_FLOAT: {
    float x = (float)v;
    memcpy(p, &x, sizeof x);
    break;
  }
  case SN_SETTING_TYPE_BOOL:
    break;
  case SN_SETTING_TYPE_VEC2: {
    sn_vec2 x = {(float)v, (float)v};
    memcpy(p, &x, sizeof x);
    break;
  }
  }
}

/* The rendered ranges are the ones the engine applies: both ends are
 * accepted and the nearest values outside refused, by sn_create_world for
 * fields of sn_world_def and by the accessors (through
 * sn_world_settings_apply_outside_def) for the others. */
START_TEST(test_ranges_are_the_engine_ranges) {
  sn_world *w = sn_create_world(&(sn_world_def){0}, NULL);
  ck_assert_ptr_null(w); /* no cookie */
  sn_world_def base = sn_default_world_def();
  w = sn_create_world(&base, NULL);
  ck_assert_ptr_nonnull(w);
  int checked = 0;
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if (info->type == SN_SETTING_TYPE_BOOL) continue;
    bool whole = info->type == SN_SETTING_TYPE_INT;
    double below = whole ? info->min - 1.0 : (double)nextafterf((float)info->min, -INFINITY);
    double above = whole ? info->max + 1.0 : (double)nextafterf((float)info->max, INFINITY);
    bool lo_open = (info->flags & SN_SETTING_ABOVE_MIN) != 0;
    const double values[4] = {info->min, info->max, below, above};
    const bool ok[4] = {!lo_open, true, false, false};
    for (int k = 0; k < 4; ++k) {
      sn_world_settings s = sn_world_settings_default();
      set_value(info, &s, values[k]);
      sn_result r;
      if (info->in_def) {
        sn_world_def def = base;
        sn_world_settings_to_def(&s, &def);
        sn_world *x = sn_create_world(&def, &r);
        if (x != NULL) sn_destroy_world(x);
      } else {
        r = sn_world_settings_apply_outside_def(w, &s);
      }
      ck_assert_msg((r == SN_OK) == ok[k], "%s = %.9g: %s", info->name, values[k], sn_result_name(r));
      if (!ok[k]) ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
      checked++;
    }
  }
  ck_assert_int_ge(checked, 4 * 10);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("settings_doc");
  TCase *tc = tcase_create("sync");
  tcase_add_test(tc, test_docs_tables_are_the_table);
  tcase_add_test(tc, test_defaults_are_the_engine_defaults);
  tcase_add_test(tc, test_ranges_are_the_engine_ranges);
  suite_add_tcase(s, tc);
  TCase *write = tcase_create("write");
  tcase_add_test(write, test_write_docs);
  sn_test_add_mode("--write", write);
  return s;
}
