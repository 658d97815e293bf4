/* Shared scaffolding of the scene-file suites (test_scene_file.c,
 * test_scene_soft.c): load options that find the build tree's plugins, a
 * counting allocator, and the malformed-file fixture check (exact status,
 * file:line:column at the fixture's ` marker, message text, nothing left). */
#ifndef SN_TEST_SCENE_SUPPORT_H
#define SN_TEST_SCENE_SUPPORT_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinew/scene_file.h"

static const char *const plugin_dirs[] = {SN_PLUGIN_DIR};

/// Options that find the build tree's plugins and nothing else.
static sn_scene_load_options test_options(void) {
  sn_scene_load_options o = sn_default_scene_load_options();
  o.plugin_dirs = plugin_dirs;
  o.plugin_dir_count = 1;
  o.search_default_dirs = false;
  return o;
}

static bool same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* ------------------------------------------------------------------------ */
/* A counting allocator: failed loads must give every byte back             */

typedef struct counting {
  long long live_bytes;
  long long blocks;
} counting;

static void *count_alloc(size_t size, void *context) {
  counting *c = context;
  void *p = aligned_alloc(16, (size + 15) & ~(size_t)15);
  if (p != NULL) {
    c->live_bytes += (long long)size;
    c->blocks++;
  }
  return p;
}

static void count_free(void *memory, size_t size, void *context) {
  counting *c = context;
  if (memory == NULL) return;
  c->live_bytes -= (long long)size;
  c->blocks--;
  free(memory);
}

/* ------------------------------------------------------------------------ */
/* Malformed-file fixtures: ` marks where the error must be reported        */

typedef struct fixture {
  const char *name;
  const char *text;
  sn_scene_status status;
  const char *says; ///< substring of the message
  sn_result engine; ///< expected engine_result
} fixture;

/// Line and column (1-based, ASCII) of offset in text.
static void locate(const char *text, size_t offset, int *line, int *column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++*line;
      *column = 1;
    } else {
      ++*column;
    }
  }
}

/// Loads a fixture (marker removed) and checks status, location, message,
/// that nothing is left behind, and the same status without an error struct.
static void check_fixture(const fixture *f) {
  const char *mark = strchr(f->text, '`');
  ck_assert_msg(mark != NULL, "%s: fixture has no marker", f->name);
  size_t at = (size_t)(mark - f->text), n = strlen(f->text);
  char *text = malloc(n);
  memcpy(text, f->text, at);
  memcpy(text + at, mark + 1, n - at - 1);
  int line, column;
  locate(text, at, &line, &column);
  char source[96];
  snprintf(source, sizeof source, "%s.json", f->name);

  counting mem = {0, 0};
  sn_scene_load_options o = test_options();
  o.allocator = (sn_allocator){count_alloc, count_free, &mem};
  sn_loaded_scene s;
  memset(&s, 0xab, sizeof s);
  sn_scene_error e;
  sn_scene_status st = sn_scene_load_string(text, n - 1, source, &o, &s, &e);
  ck_assert_msg(st == f->status, "%s: status %s, expected %s: %s", f->name, sn_scene_status_name(st),
                sn_scene_status_name(f->status), e.message);
  ck_assert_int_eq(e.status, st);
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%s:%d:%d: ", source, line, column);
  ck_assert_msg(strncmp(e.message, prefix, strlen(prefix)) == 0, "%s: message '%s' does not start with '%s'", f->name,
                e.message, prefix);
  ck_assert_int_eq(e.line, line);
  ck_assert_int_eq(e.column, column);
  ck_assert_msg(strstr(e.message, f->says) != NULL, "%s: message '%s' does not say '%s'", f->name, e.message, f->says);
  ck_assert_msg(strstr(e.message, "expected") != NULL, "%s: message '%s' does not say what was expected", f->name,
                e.message);
  ck_assert_msg(e.engine_result == f->engine, "%s: engine_result %s", f->name, sn_result_name(e.engine_result));
  /* nothing half-loaded */
  ck_assert_ptr_null(s.world);
  ck_assert_ptr_null(s.registry);
  ck_assert_ptr_null(s.names);
  ck_assert_msg(mem.live_bytes == 0 && mem.blocks == 0, "%s: %lld bytes of the world left", f->name, mem.live_bytes);
  /* and the same without an error struct */
  ck_assert_int_eq(sn_scene_load_string(text, n - 1, source, &o, &s, NULL), f->status);
  free(text);
}

#endif
