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
static inline sn_scene_load_options test_options(void) {
  sn_scene_load_options o = sn_default_scene_load_options();
  o.plugin_dirs = plugin_dirs;
  o.plugin_dir_count = 1;
  o.search_default_dirs = false;
  return o;
}

static inline bool same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* ------------------------------------------------------------------------ */
/* Constraint definitions: what sn_constraint_export_params says            */

/// Parameter j of constraint k as sn_constraint_export_params exports it
/// (the definition that recreates k: pinned local anchors, rest values...).
static inline void exported_param(sn_world *w, sn_constraint_id k, uint32_t j, double *x, double *y) {
  const sn_constraint_type *t = sn_constraint_get_type(w, k);
  ck_assert_ptr_nonnull(t);
  unsigned char *blob = malloc(t->params_size + 1);
  ck_assert_ptr_nonnull(blob);
  ck_assert_msg(sn_constraint_export_params(w, k, blob, t->params_size) == SN_OK, "export %s: %s", t->name,
                sn_world_last_error(w));
  const sn_param_desc *p = t->params + j;
  *y = 0.0;
  if (p->kind == SN_PARAM_FLOAT) {
    float f;
    memcpy(&f, blob + p->offset, sizeof f);
    *x = f;
  } else if (p->kind == SN_PARAM_VEC2) {
    sn_vec2 v;
    memcpy(&v, blob + p->offset, sizeof v);
    *x = v.x;
    *y = v.y;
  } else {
    int32_t i;
    memcpy(&i, blob + p->offset, sizeof i);
    *x = i;
  }
  free(blob);
}

/// Every constraint of a and of b (same order) has the same type and
/// exports the same parameters bit for bit; returns the constraint count.
static inline int32_t assert_same_definitions(sn_world *a, sn_world *b, const char *when) {
  int32_t n = sn_world_get_constraint_count(a);
  ck_assert_int_eq(sn_world_get_constraint_count(b), n);
  sn_constraint_id *ka = malloc(((size_t)n + 1) * sizeof *ka), *kb = malloc(((size_t)n + 1) * sizeof *kb);
  ck_assert(ka != NULL && kb != NULL);
  ck_assert_int_eq(sn_world_get_constraints(a, ka, n), n);
  ck_assert_int_eq(sn_world_get_constraints(b, kb, n), n);
  for (int32_t i = 0; i < n; ++i) {
    const sn_constraint_type *t = sn_constraint_get_type(a, ka[i]);
    ck_assert_str_eq(t->name, sn_constraint_get_type_name(b, kb[i]));
    for (uint32_t j = 0; j < t->param_count; ++j) {
      double xa, ya, xb, yb;
      exported_param(a, ka[i], j, &xa, &ya);
      exported_param(b, kb[i], j, &xb, &yb);
      ck_assert_msg(same_bits(&xa, &xb, sizeof xa) && same_bits(&ya, &yb, sizeof ya),
                    "%s: constraint %d (%s).%s exports (%.9g, %.9g), the copy (%.9g, %.9g)", when, (int)i, t->name,
                    t->params[j].name, xa, ya, xb, yb);
    }
    ck_assert(sn_constraint_get_break_force(a, ka[i]) == sn_constraint_get_break_force(b, kb[i]));
    ck_assert(sn_constraint_get_collide_connected(a, ka[i]) == sn_constraint_get_collide_connected(b, kb[i]));
  }
  free(ka);
  free(kb);
  return n;
}

/* ------------------------------------------------------------------------ */
/* A counting allocator: failed loads must give every byte back             */

typedef struct counting {
  long long live_bytes;
  long long blocks;
} counting;

static inline void *count_alloc(size_t size, void *context) {
  counting *c = context;
  void *p = aligned_alloc(16, (size + 15) & ~(size_t)15);
  if (p != NULL) {
    c->live_bytes += (long long)size;
    c->blocks++;
  }
  return p;
}

static inline void count_free(void *memory, size_t size, void *context) {
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
static inline void locate(const char *text, size_t offset, int *line, int *column) {
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
static inline void check_fixture(const fixture *f) {
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
