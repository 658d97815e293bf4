/* Scene loader: soft bodies and constraints read into the checked
 * description: builder entries, custom particles, edges and constraint
 * groups, constraint entries and their references; and the parameters
 * checked against the schemas once the plugins are loaded. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_loader.h"

/* ------------------------------------------------------------------------ */
/* Soft bodies                                                               */

/* Ranges of the builders and the xpbd plugins' parameters. */
#define SOFT_MAX_PARTICLES (1 << 20)
static const sn_scene_range COMPLIANCE = {0.0, 1e6, false};
static const sn_scene_range OPTIONAL_COMPLIANCE = {-FLT_MAX, 1e6, false}; /* negative = none */
static const sn_scene_range XPBD_DAMPING = {0.0, 1e3, false};
static const sn_scene_range PRESSURE = {0.0, 100.0, false};

static const char *const soft_kinds = "\"rope\", \"cloth\", \"ring\", \"lattice\" or \"custom\"";

#define SOFT_COMMON_KEYS                                                                                               \
  "name", "kind", "friction", "restitution", "linear_damping", "rigid_damping", "collide_rigid", "collide_soft",       \
      "self_collision"
#define SOFT_MATERIAL_KEYS "compliance", "damping", "bend_compliance", "tear_force"

static const char *const rope_keys[] = {SOFT_COMMON_KEYS, SOFT_MATERIAL_KEYS, "start",   "end",     "count", "mass",
                                        "radius",         "pin_start",        "pin_end", "tethers", NULL};
static const char *const cloth_keys[] = {SOFT_COMMON_KEYS,   SOFT_MATERIAL_KEYS,
                                         "shear_compliance", "top_left",
                                         "columns",          "rows",
                                         "spacing",          "mass",
                                         "radius",           "pins",
                                         "tethers",          NULL};
static const char *const ring_keys[] = {SOFT_COMMON_KEYS, SOFT_MATERIAL_KEYS, "center",   "radius",          "count",
                                        "mass",           "particle_radius",  "pressure", "area_compliance", NULL};
static const char *const lattice_keys[] = {
    SOFT_COMMON_KEYS, SOFT_MATERIAL_KEYS, "shear_compliance", "center", "columns", "rows", "spacing",
    "mass",           "radius",           "area_compliance",  NULL};
static const char *const custom_keys[] = {
    SOFT_COMMON_KEYS, "particle_mass", "particle_radius", "particles", "edges", "constraints", NULL};
static const char *const particle_keys[] = {"position", "velocity", "mass", "radius", "kinematic", NULL};
static const char *const group_keys[] = {"type", "particles", "params", "break_force", "name", NULL};
static const char *const constraint_keys[] = {
    "type", "bodies", "particles", "params", "break_force", "collide_connected", "name", NULL};

/* The format's defaults: equal to sn_default_soft_body_def and the
 * sn_default_*_def of each builder today (a test compares them), fixed here
 * so that a file keeps its meaning if an engine default changes. */
static sn_soft_body_def format_soft_body(void) {
  sn_soft_body_def d = sn_default_soft_body_def();
  d.friction = 0.4f;
  d.restitution = 0.0f;
  d.damping = 0.0f;
  d.rigid_damping = 0.0f;
  d.collide_rigid = true;
  d.collide_soft = true;
  d.self_collision = false;
  d.user_data = NULL;
  return d;
}

static sn_soft_material format_material(sn_soft_kind kind) {
  sn_soft_material m = sn_default_soft_material();
  m.compliance = kind == SN_SOFT_RING ? 1e-3f : 0.0f;
  m.damping = 0.0f;
  m.shear_compliance = kind == SN_SOFT_LATTICE ? 0.0f : -1.0f;
  m.bend_compliance = -1.0f;
  m.tear_force = 0.0f;
  return m;
}

static void format_builder_defaults(sn_soft_ir *s) {
  s->rope = sn_default_rope_def();
  s->rope.start = (sn_vec2){0.0f, 0.0f};
  s->rope.end = (sn_vec2){1.0f, 0.0f};
  s->rope.count = 11;
  s->rope.mass = 1.0f;
  s->rope.radius = 0.05f;
  s->rope.pin_start = s->rope.pin_end = false;
  s->rope.tethers = true;
  s->cloth = sn_default_cloth_def();
  s->cloth.top_left = (sn_vec2){0.0f, 0.0f};
  s->cloth.columns = s->cloth.rows = 10;
  s->cloth.spacing = 0.1f;
  s->cloth.mass = 1.0f;
  s->cloth.radius = 0.02f;
  s->cloth.pins = 0u;
  s->cloth.tethers = true;
  s->ring = sn_default_ring_def();
  s->ring.center = (sn_vec2){0.0f, 0.0f};
  s->ring.radius = 0.5f;
  s->ring.count = 24;
  s->ring.mass = 1.0f;
  s->ring.particle_radius = 0.05f;
  s->ring.pressure = 1.0f;
  s->ring.area_compliance = 0.0f;
  s->lattice = sn_default_lattice_def();
  s->lattice.center = (sn_vec2){0.0f, 0.0f};
  s->lattice.columns = s->lattice.rows = 5;
  s->lattice.spacing = 0.1f;
  s->lattice.mass = 1.0f;
  s->lattice.radius = 0.0f;
  s->lattice.area_compliance = 0.0f;
}

/// A particle index of a soft body with count particles.
static bool read_index(sn_loader *L, const cJSON *n, int32_t count, int32_t *out) {
  char got[96];
  if (!cJSON_IsNumber(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected a particle index (a whole number), got %s",
                         sn_scene_describe(L, n, got, sizeof got));
  if (count == 0)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "the soft body has no particles; expected no particle index, got %s",
                         sn_scene_describe(L, n, got, sizeof got));
  return sn_scene_read_int(L, n, 0, count - 1, out);
}

/// Columns and rows of a grid: each 2..2^20, at most 2^20 particles in all.
static bool read_grid(sn_loader *L, const cJSON *obj, int32_t *columns, int32_t *rows) {
  SN_OPT(L, obj, "columns", sn_scene_read_int(L, n_, 2, SOFT_MAX_PARTICLES, columns));
  SN_OPT(L, obj, "rows", sn_scene_read_int(L, n_, 2, SOFT_MAX_PARTICLES, rows));
  if ((int64_t)*columns * *rows > SOFT_MAX_PARTICLES) {
    const cJSON *at = sn_scene_member(obj, "rows") ? sn_scene_member(obj, "rows") : sn_scene_member(obj, "columns");
    size_t mark = sn_scene_path_push_key(L, at->string);
    sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, at, false, "columns x rows = %lld particles; expected at most %d",
                  (long long)*columns * *rows, SOFT_MAX_PARTICLES);
    sn_scene_path_pop(L, mark);
    return false;
  }
  return true;
}

/// Cloth pins: an array of distinct words.
static bool read_pins(sn_loader *L, const cJSON *arr, uint32_t *pins) {
  static const char *const words[] = {"top_left", "top_right", "top_row", "bottom_left", "bottom_right", NULL};
  static const uint32_t flags[] = {SN_PIN_TOP_LEFT, SN_PIN_TOP_RIGHT, SN_PIN_TOP_ROW, SN_PIN_BOTTOM_LEFT,
                                   SN_PIN_BOTTOM_RIGHT};
  const char *expected =
      "an array of pins: \"top_left\", \"top_right\", \"top_row\", \"bottom_left\", \"bottom_right\"";
  if (!sn_scene_read_array(L, arr, expected)) return false;
  *pins = 0u;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t mark = sn_scene_path_push_index(L, i);
    const char *word = NULL;
    if (!sn_scene_read_string(L, c, expected, &word)) return false;
    int32_t k = 0;
    while (words[k] != NULL && strcmp(words[k], word) != 0) ++k;
    if (words[k] == NULL)
      return sn_scene_fail(
          L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
          "expected one of \"top_left\", \"top_right\", \"top_row\", \"bottom_left\", \"bottom_right\", got "
          "\"%.40s\"",
          word);
    if (*pins & flags[k])
      return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false, "pin \"%s\" is listed twice; expected each pin once",
                           word);
    *pins |= flags[k];
    sn_scene_path_pop(L, mark);
  }
  return true;
}

static bool parse_particle(sn_loader *L, const cJSON *obj, float mass, float radius, sn_particle_def *d) {
  if (!sn_scene_read_object(L, obj, "a particle object such as {\"position\": [0, 1]}")) return false;
  if (!sn_scene_check_keys(L, obj, particle_keys, "a particle")) return false;
  *d = sn_default_particle_def();
  d->position = (sn_vec2){0.0f, 0.0f};
  d->velocity = (sn_vec2){0.0f, 0.0f};
  d->mass = mass;
  d->radius = radius;
  d->kinematic = false;
  SN_REQ(L, obj, "position", "[x, y]", sn_scene_read_vec2(L, n_, &d->position));
  SN_OPT(L, obj, "velocity", sn_scene_read_vec2(L, n_, &d->velocity));
  SN_OPT(L, obj, "mass", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->mass));
  SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->radius));
  SN_OPT(L, obj, "kinematic", sn_scene_read_bool(L, n_, &d->kinematic));
  return true;
}

/// [a, b]: two different particle indices.
static bool parse_edge(sn_loader *L, const cJSON *n, int32_t count, int32_t *pair) {
  char got[96];
  if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) != 2)
    return sn_scene_fail(L, cJSON_IsArray(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
                         "expected an edge [a, b] (two particle indices), got %s",
                         cJSON_IsArray(n) ? "an array of another length" : sn_scene_describe(L, n, got, sizeof got));
  int32_t i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = sn_scene_path_push_index(L, i);
    bool ok = read_index(L, c, count, pair + i);
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  if (pair[0] == pair[1])
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "edge [%d, %d] joins a particle to itself; expected two "
                         "different particles",
                         (int)pair[0], (int)pair[1]);
  return true;
}

static bool add_param(sn_loader *L, const cJSON *node, bool top_level);
static bool parse_constraint_head(sn_loader *L, const cJSON *obj, sn_constraint_ir *k, const char *const *keys);
static bool parse_constraint_tail(sn_loader *L, const cJSON *obj, sn_constraint_ir *k, int32_t slot);

static sn_constraint_ir *new_group(sn_loader *L) {
  if (L->group_count == L->group_capacity) {
    int32_t cap = L->group_capacity ? 2 * L->group_capacity : 16;
    sn_constraint_ir *g = realloc(L->groups, (size_t)cap * sizeof *g);
    if (g == NULL) return NULL;
    L->groups = g;
    L->group_capacity = cap;
  }
  sn_constraint_ir *k = L->groups + L->group_count++;
  memset(k, 0, sizeof *k);
  return k;
}

/// A constraint group: {"type": ..., "particles": [[i, j], ...], "params": {...}}.
static bool parse_group(sn_loader *L, const cJSON *obj, int32_t soft, int32_t count) {
  if (!sn_scene_read_object(L, obj,
                            "a constraint group such as {\"type\": \"xpbd_distance\", \"particles\": [[0, 1]]}"))
    return false;
  sn_constraint_ir *k = new_group(L);
  if (k == NULL) return sn_scene_out_of_memory(L);
  int32_t g = L->group_count - 1;
  k->soft = soft;
  if (!parse_constraint_head(L, obj, k, group_keys)) return false;
  const char *expected = "an array of particle lists such as [[0, 1], [1, 2]]";
  k->particles_node = sn_scene_member(obj, "particles");
  if (k->particles_node == NULL) return sn_scene_missing(L, obj, "particles", expected);
  size_t mark = sn_scene_path_push_key(L, "particles");
  const cJSON *arr = k->particles_node;
  if (!sn_scene_read_array(L, arr, expected)) return false;
  int32_t tuples = cJSON_GetArraySize(arr);
  if (tuples < 1)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected %s, got an empty array", expected);
  int64_t total = 0;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    if (!sn_scene_read_array(L, c, "a particle list such as [0, 1]")) return false;
    int32_t n = cJSON_GetArraySize(c);
    if (n < 1 || n > SN_MAX_CONSTRAINT_PARTICLES)
      return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
                           "expected a list of 1 to %d particle indices, got %d", SN_MAX_CONSTRAINT_PARTICLES, (int)n);
    total += n;
    sn_scene_path_pop(L, m2);
  }
  /* L->groups may not move under k below: nothing adds groups until this one is done */
  k->tuple_count = tuples;
  k->start = malloc(((size_t)tuples + 1) * sizeof *k->start);
  k->indices = malloc(((size_t)total + 1) * sizeof *k->indices);
  k->tuple_nodes = malloc(((size_t)tuples + 1) * sizeof *k->tuple_nodes);
  if (k->start == NULL || k->indices == NULL || k->tuple_nodes == NULL) return sn_scene_out_of_memory(L);
  int32_t at = 0;
  i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    k->start[i] = at;
    k->tuple_nodes[i] = c;
    int32_t j = 0;
    for (const cJSON *x = c->child; x != NULL; x = x->next, ++j) {
      size_t m3 = sn_scene_path_push_index(L, j);
      if (!read_index(L, x, count, k->indices + at)) return false;
      at++;
      sn_scene_path_pop(L, m3);
    }
    sn_scene_path_pop(L, m2);
  }
  k->start[tuples] = at;
  sn_scene_path_pop(L, mark);
  if (k->name != NULL && tuples != 1) {
    mark = sn_scene_path_push_key(L, "name");
    sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->name_node, false,
                  "a named group is one constraint; expected exactly one particle list, got %d", (int)tuples);
    sn_scene_path_pop(L, mark);
    return false;
  }
  return parse_constraint_tail(L, obj, k, L->constraint_count + g);
}

static bool parse_custom(sn_loader *L, const cJSON *obj, sn_soft_ir *s, int32_t index) {
  float mass = 0.01f, radius = 0.02f; /* sn_default_particle_def */
  SN_OPT(L, obj, "particle_mass", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &mass));
  SN_OPT(L, obj, "particle_radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &radius));
  const cJSON *arr = sn_scene_member(obj, "particles");
  if (arr != NULL) {
    size_t mark = sn_scene_path_push_key(L, "particles");
    if (!sn_scene_read_array(L, arr, "an array of particle objects")) return false;
    int32_t n = cJSON_GetArraySize(arr);
    if (n > SOFT_MAX_PARTICLES)
      return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected at most %d particles, got %d",
                           SOFT_MAX_PARTICLES, (int)n);
    s->particles = malloc(((size_t)n + 1) * sizeof *s->particles);
    s->particle_nodes = malloc(((size_t)n + 1) * sizeof *s->particle_nodes);
    if (s->particles == NULL || s->particle_nodes == NULL) return sn_scene_out_of_memory(L);
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = sn_scene_path_push_index(L, i);
      s->particle_nodes[i] = c;
      if (!parse_particle(L, c, mass, radius, s->particles + i)) return false;
      sn_scene_path_pop(L, m2);
    }
    s->particle_count = n;
    sn_scene_path_pop(L, mark);
  }
  arr = sn_scene_member(obj, "edges");
  if (arr != NULL) {
    size_t mark = sn_scene_path_push_key(L, "edges");
    if (!sn_scene_read_array(L, arr, "an array of edges such as [[0, 1], [1, 2]]")) return false;
    int32_t n = cJSON_GetArraySize(arr);
    s->edges = malloc(((size_t)n + 1) * 2 * sizeof *s->edges);
    s->edge_nodes = malloc(((size_t)n + 1) * sizeof *s->edge_nodes);
    if (s->edges == NULL || s->edge_nodes == NULL) return sn_scene_out_of_memory(L);
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = sn_scene_path_push_index(L, i);
      s->edge_nodes[i] = c;
      if (!parse_edge(L, c, s->particle_count, s->edges + 2 * i)) return false;
      sn_scene_path_pop(L, m2);
    }
    s->edge_count = n;
    sn_scene_path_pop(L, mark);
  }
  s->first_group = L->group_count;
  arr = sn_scene_member(obj, "constraints");
  if (arr != NULL) {
    size_t mark = sn_scene_path_push_key(L, "constraints");
    if (!sn_scene_read_array(L, arr, "an array of constraint groups")) return false;
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = sn_scene_path_push_index(L, i);
      if (!parse_group(L, c, index, s->particle_count)) return false;
      sn_scene_path_pop(L, m2);
    }
    sn_scene_path_pop(L, mark);
  }
  s->group_count = L->group_count - s->first_group;
  return true;
}

bool sn_scene_parse_soft(sn_loader *L, const cJSON *obj, int32_t index) {
  if (!sn_scene_read_object(L, obj, "a soft body object")) return false;
  sn_soft_ir *s = L->softs + index;
  memset(s, 0, sizeof *s);
  s->node = obj;
  const char *kind = NULL;
  SN_REQ(L, obj, "kind", soft_kinds, sn_scene_read_string(L, n_, soft_kinds, &kind));
  static const char *const names[] = {"rope", "cloth", "ring", "lattice", "custom"};
  static const char *const *const keys[] = {rope_keys, cloth_keys, ring_keys, lattice_keys, custom_keys};
  int32_t k = 0;
  while (k < 5 && strcmp(names[k], kind) != 0) ++k;
  if (k == 5) {
    size_t mark = sn_scene_path_push_key(L, "kind");
    sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, sn_scene_member(obj, "kind"), false, "expected %s, got \"%.40s\"",
                  soft_kinds, kind);
    sn_scene_path_pop(L, mark);
    return false;
  }
  s->kind = (sn_soft_kind)k;
  s->kind_name = names[k];
  char what[64];
  snprintf(what, sizeof what, "a %s soft body", kind);
  if (!sn_scene_check_keys(L, obj, keys[k], what)) return false;
  s->name_node = sn_scene_member(obj, "name");
  SN_OPT(L, obj, "name", sn_scene_read_name(L, n_, &s->name));

  sn_soft_body_def *b = &s->body;
  *b = format_soft_body();
  SN_OPT(L, obj, "friction", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &b->friction));
  SN_OPT(L, obj, "restitution", sn_scene_read_float(L, n_, SN_RANGE_UNIT, &b->restitution));
  SN_OPT(L, obj, "linear_damping", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &b->damping));
  SN_OPT(L, obj, "rigid_damping", sn_scene_read_float(L, n_, SN_RANGE_UNIT, &b->rigid_damping));
  SN_OPT(L, obj, "collide_rigid", sn_scene_read_bool(L, n_, &b->collide_rigid));
  SN_OPT(L, obj, "collide_soft", sn_scene_read_bool(L, n_, &b->collide_soft));
  SN_OPT(L, obj, "self_collision", sn_scene_read_bool(L, n_, &b->self_collision));

  sn_soft_material *m = &s->material;
  *m = format_material(s->kind);
  format_builder_defaults(s);
  if (s->kind != SN_SOFT_CUSTOM) {
    SN_OPT(L, obj, "compliance", sn_scene_read_float(L, n_, COMPLIANCE, &m->compliance));
    SN_OPT(L, obj, "damping", sn_scene_read_float(L, n_, XPBD_DAMPING, &m->damping));
    SN_OPT(L, obj, "shear_compliance", sn_scene_read_float(L, n_, OPTIONAL_COMPLIANCE, &m->shear_compliance));
    SN_OPT(L, obj, "bend_compliance", sn_scene_read_float(L, n_, OPTIONAL_COMPLIANCE, &m->bend_compliance));
    SN_OPT(L, obj, "tear_force", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &m->tear_force));
  }
  switch (s->kind) {
  case SN_SOFT_ROPE: {
    sn_rope_def *d = &s->rope;
    SN_OPT(L, obj, "start", sn_scene_read_vec2(L, n_, &d->start));
    SN_OPT(L, obj, "end", sn_scene_read_vec2(L, n_, &d->end));
    SN_OPT(L, obj, "count", sn_scene_read_int(L, n_, 2, SOFT_MAX_PARTICLES, &d->count));
    SN_OPT(L, obj, "mass", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "pin_start", sn_scene_read_bool(L, n_, &d->pin_start));
    SN_OPT(L, obj, "pin_end", sn_scene_read_bool(L, n_, &d->pin_end));
    SN_OPT(L, obj, "tethers", sn_scene_read_bool(L, n_, &d->tethers));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->count;
    break;
  }
  case SN_SOFT_CLOTH: {
    sn_cloth_def *d = &s->cloth;
    SN_OPT(L, obj, "top_left", sn_scene_read_vec2(L, n_, &d->top_left));
    if (!read_grid(L, obj, &d->columns, &d->rows)) return false;
    SN_OPT(L, obj, "spacing", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->spacing));
    SN_OPT(L, obj, "mass", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "pins", read_pins(L, n_, &d->pins));
    SN_OPT(L, obj, "tethers", sn_scene_read_bool(L, n_, &d->tethers));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->columns * d->rows;
    break;
  }
  case SN_SOFT_RING: {
    sn_ring_def *d = &s->ring;
    SN_OPT(L, obj, "center", sn_scene_read_vec2(L, n_, &d->center));
    SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->radius));
    SN_OPT(L, obj, "count", sn_scene_read_int(L, n_, 3, SN_MAX_CONSTRAINT_PARTICLES, &d->count));
    SN_OPT(L, obj, "mass", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->mass));
    SN_OPT(L, obj, "particle_radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->particle_radius));
    SN_OPT(L, obj, "pressure", sn_scene_read_float(L, n_, PRESSURE, &d->pressure));
    SN_OPT(L, obj, "area_compliance", sn_scene_read_float(L, n_, COMPLIANCE, &d->area_compliance));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->count;
    break;
  }
  case SN_SOFT_LATTICE: {
    sn_lattice_def *d = &s->lattice;
    SN_OPT(L, obj, "center", sn_scene_read_vec2(L, n_, &d->center));
    if (!read_grid(L, obj, &d->columns, &d->rows)) return false;
    SN_OPT(L, obj, "spacing", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->spacing));
    SN_OPT(L, obj, "mass", sn_scene_read_float(L, n_, SN_RANGE_POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "area_compliance", sn_scene_read_float(L, n_, OPTIONAL_COMPLIANCE, &d->area_compliance));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->columns * d->rows;
    break;
  }
  case SN_SOFT_CUSTOM:
    if (!parse_custom(L, obj, s, index)) return false;
    break;
  }
  L->particle_total += s->particle_count;
  if (L->particle_total > L->world_def.max_particles)
    return sn_scene_fail(
        L, SN_SCENE_ERR_ENGINE, SN_ERR_CAPACITY, obj, false,
        "the soft bodies up to this one have %lld particles; expected at most %d, the world's max_particles "
        "limit (sn_scene_load_options.limits)",
        (long long)L->particle_total, (int)L->world_def.max_particles);
  if (s->name != NULL) {
    size_t mark = sn_scene_path_push_key(L, "name");
    bool ok = sn_scene_add_body_name(L, s->name_node, s->name, L->body_count + index);
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  return true;
}

/// Constraint types a builder entry needs (the builders' own rule).
int32_t sn_scene_soft_needs(const sn_soft_ir *s, const char **types) {
  int32_t n = 0;
  const sn_soft_material *m = &s->material;
  const bool bend = m->bend_compliance >= 0.0f;
  switch (s->kind) {
  case SN_SOFT_ROPE:
    types[n++] = "xpbd_distance";
    if (bend && s->rope.count >= 3) types[n++] = "xpbd_bend";
    if (s->rope.tethers && (s->rope.pin_start || s->rope.pin_end) && m->compliance == 0.0f) types[n++] = "xpbd_tether";
    break;
  case SN_SOFT_CLOTH:
    types[n++] = "xpbd_distance";
    if (bend) types[n++] = "xpbd_bend";
    if (s->cloth.tethers && s->cloth.pins != 0u) types[n++] = "xpbd_tether";
    break;
  case SN_SOFT_RING:
    types[n++] = "xpbd_distance";
    types[n++] = "xpbd_area";
    if (bend) types[n++] = "xpbd_bend";
    break;
  case SN_SOFT_LATTICE:
    types[n++] = "xpbd_distance";
    if (s->lattice.area_compliance >= 0.0f) types[n++] = "xpbd_area";
    if (bend) types[n++] = "xpbd_bend";
    break;
  case SN_SOFT_CUSTOM:
    break;
  }
  return n;
}

void sn_scene_free_softs(sn_loader *L) {
  for (int32_t i = 0; L->softs != NULL && i < L->soft_count; ++i) {
    free(L->softs[i].particles);
    free(L->softs[i].particle_nodes);
    free(L->softs[i].edges);
    free(L->softs[i].edge_nodes);
  }
  for (int32_t i = 0; i < L->group_count; ++i) {
    free(L->groups[i].start);
    free(L->groups[i].indices);
    free(L->groups[i].tuple_nodes);
  }
  for (int32_t i = 0; L->constraints != NULL && i < L->constraint_count; ++i) free(L->constraints[i].refs);
}

/* ------------------------------------------------------------------------ */
/* Constraints: structure and references now, parameters once the types are  */
/* known                                                                      */

static bool add_param(sn_loader *L, const cJSON *node, bool top_level) {
  if (L->param_count == L->param_capacity) {
    int32_t cap = L->param_capacity ? 2 * L->param_capacity : 64;
    sn_param_ir *p = realloc(L->params, (size_t)cap * sizeof *p);
    if (p == NULL) return sn_scene_out_of_memory(L);
    L->params = p;
    L->param_capacity = cap;
  }
  L->params[L->param_count++] = (sn_param_ir){node, top_level};
  return true;
}

/* Keys (the unknown ones are parameters), type, name, break_force and
 * collide_connected of a constraint entry or group. */
static bool parse_constraint_head(sn_loader *L, const cJSON *obj, sn_constraint_ir *k, const char *const *keys) {
  k->node = obj;
  k->first_param = L->param_count;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!sn_scene_check_duplicate_key(L, obj, c)) return false;
    if (!sn_scene_in_list(c->string, keys) && !add_param(L, c, true)) return false;
  }
  k->type_node = sn_scene_member(obj, "type");
  SN_REQ(L, obj, "type", "a constraint type name such as \"revolute\"",
         sn_scene_read_string(L, n_, "a constraint type name such as \"revolute\"", &k->type));
  k->name_node = sn_scene_member(obj, "name");
  SN_OPT(L, obj, "name", sn_scene_read_name(L, n_, &k->name));
  SN_OPT(L, obj, "break_force", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &k->break_force));
  if (sn_scene_in_list("collide_connected", keys))
    SN_OPT(L, obj, "collide_connected", sn_scene_read_bool(L, n_, &k->collide_connected));
  return true;
}

static const cJSON *constraint_name_node(const sn_loader *L, int32_t slot) {
  return slot < L->constraint_count ? L->constraints[slot].name_node : L->groups[slot - L->constraint_count].name_node;
}

/* "params" and the name (slot in the constraint namespace). */
static bool parse_constraint_tail(sn_loader *L, const cJSON *obj, sn_constraint_ir *k, int32_t slot) {
  const cJSON *params = sn_scene_member(obj, "params");
  if (params != NULL) {
    size_t mark = sn_scene_path_push_key(L, "params");
    if (!sn_scene_read_object(L, params, "an object of parameter values")) return false;
    for (const cJSON *c = params->child; c != NULL; c = c->next) {
      if (!sn_scene_check_duplicate_key(L, params, c)) return false;
      if (!add_param(L, c, false)) return false;
    }
    sn_scene_path_pop(L, mark);
  }
  k->param_count = L->param_count - k->first_param;
  if (k->name != NULL) {
    sn_name_id other;
    sn_scene_status st = sn_name_space_set(&L->constraint_names, (sn_name_id){slot + 1, 0, 0}, k->name, &other);
    if (st == SN_SCENE_ERR_OUT_OF_MEMORY) return sn_scene_out_of_memory(L);
    if (st == SN_SCENE_ERR_DUPLICATE_NAME) {
      int32_t line, column;
      sn_json_line_column(L->text, L->length, sn_scene_node_offset(L, constraint_name_node(L, other.index1 - 1), false),
                          &line, &column);
      size_t mark = sn_scene_path_push_key(L, "name");
      sn_scene_fail(
          L, SN_SCENE_ERR_DUPLICATE_NAME, SN_OK, k->name_node, false,
          "duplicate constraint name \"%s\" (first used at %d:%d); expected every constraint to have its own name",
          k->name, (int)line, (int)column);
      sn_scene_path_pop(L, mark);
      return false;
    }
  }
  return true;
}

/// "particles": [["jelly", 3], ...] of a constraint entry.
static bool parse_particle_refs(sn_loader *L, sn_constraint_ir *k) {
  const char *expected = "an array of particle references such as [[\"rope\", 0]]";
  const cJSON *arr = k->particles_node;
  size_t mark = sn_scene_path_push_key(L, "particles");
  if (!sn_scene_read_array(L, arr, expected)) return false;
  int32_t n = cJSON_GetArraySize(arr);
  if (n < 1 || n > SN_MAX_CONSTRAINT_PARTICLES)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected 1 to %d particle references, got %d",
                         SN_MAX_CONSTRAINT_PARTICLES, (int)n);
  k->refs = malloc((size_t)n * 2 * sizeof *k->refs);
  if (k->refs == NULL) return sn_scene_out_of_memory(L);
  int32_t i = 0;
  char got[96];
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2)
      return sn_scene_fail(L, cJSON_IsArray(c) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, c, false,
                           "expected a particle reference [\"soft body name\", index], got %s",
                           cJSON_IsArray(c) ? "an array of another length" : sn_scene_describe(L, c, got, sizeof got));
    const cJSON *name_node = c->child, *index_node = c->child->next;
    size_t m3 = sn_scene_path_push_index(L, 0);
    const char *name = NULL;
    if (!sn_scene_read_string(L, name_node, "a soft body name (a string)", &name)) return false;
    sn_name_id id;
    if (!sn_name_space_find(&L->body_names, name, &id))
      return sn_scene_fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, name_node, false,
                           "no soft body named \"%.60s\"; expected the name of a soft body in \"particles\"", name);
    if (id.index1 - 1 < L->body_count)
      return sn_scene_fail(
          L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, name_node, false,
          "\"%.60s\" is a rigid body; expected the name of a soft body in \"particles\" (rigid bodies go in "
          "\"bodies\")",
          name);
    sn_scene_path_pop(L, m3);
    int32_t soft = id.index1 - 1 - L->body_count;
    m3 = sn_scene_path_push_index(L, 1);
    if (!read_index(L, index_node, L->softs[soft].particle_count, k->refs + 2 * i + 1)) return false;
    sn_scene_path_pop(L, m3);
    k->refs[2 * i] = soft;
    sn_scene_path_pop(L, m2);
  }
  k->particle_count = n;
  sn_scene_path_pop(L, mark);
  return true;
}

bool sn_scene_parse_constraint(sn_loader *L, const cJSON *obj, int32_t index) {
  if (!sn_scene_read_object(L, obj, "a constraint object")) return false;
  sn_constraint_ir *k = L->constraints + index;
  memset(k, 0, sizeof *k);
  k->soft = -1;
  if (!parse_constraint_head(L, obj, k, constraint_keys)) return false;
  const char *expected_bodies = "an array of 1 or 2 body names";
  k->bodies_node = sn_scene_member(obj, "bodies");
  k->particles_node = sn_scene_member(obj, "particles");
  if (k->bodies_node == NULL && k->particles_node == NULL) return sn_scene_missing(L, obj, "bodies", expected_bodies);
  if (k->bodies_node != NULL) {
    size_t mark = sn_scene_path_push_key(L, "bodies");
    if (!sn_scene_read_array(L, k->bodies_node, expected_bodies)) return false;
    int32_t n = cJSON_GetArraySize(k->bodies_node);
    if (n > SN_MAX_CONSTRAINT_BODIES || (n < 1 && k->particles_node == NULL))
      return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->bodies_node, false, "expected %s, got %d", expected_bodies,
                           (int)n);
    int32_t i = 0;
    for (const cJSON *c = k->bodies_node->child; c != NULL; c = c->next, ++i) {
      size_t m2 = sn_scene_path_push_index(L, i);
      const char *name = NULL;
      if (!sn_scene_read_string(L, c, "a body name (a string)", &name)) return false;
      sn_name_id id;
      if (!sn_name_space_find(&L->body_names, name, &id))
        return sn_scene_fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, c, false,
                             "no body named \"%.60s\"; expected the name of a body in \"bodies\"", name);
      if (id.index1 - 1 >= L->body_count)
        return sn_scene_fail(
            L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, c, false,
            "\"%.60s\" is a soft body; expected the name of a rigid body in \"bodies\" (particles go in "
            "\"particles\")",
            name);
      if (i == 1 && id.index1 - 1 == k->bodies[0])
        return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
                             "a constraint cannot join body \"%.60s\" to itself; expected two different bodies", name);
      k->bodies[i] = id.index1 - 1;
      k->body_nodes[i] = c;
      sn_scene_path_pop(L, m2);
    }
    k->body_count = n;
    sn_scene_path_pop(L, mark);
  }
  if (k->particles_node != NULL && !parse_particle_refs(L, k)) return false;
  return parse_constraint_tail(L, obj, k, index);
}

static void schema_names(const sn_constraint_type *t, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < t->param_count && n < cap; ++i) {
    int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", t->params[i].name);
    if (w < 0) break;
    n += (size_t)w;
  }
  if (t->param_count == 0) snprintf(buf, cap, "(none)");
}

static bool read_param(sn_loader *L, const sn_constraint_type *t, const sn_param_desc *p, const cJSON *n,
                       sn_param_value *out) {
  out->name = p->name;
  out->x = out->y = 0.0;
  sn_scene_range r = {p->min, p->max, false};
  char got[96];
  switch (p->kind) {
  case SN_PARAM_FLOAT: {
    float f;
    if (!sn_scene_read_float(L, n, r, &f)) return false;
    out->x = f;
    return true;
  }
  case SN_PARAM_INT: {
    double v;
    if (!sn_scene_check_number(L, n, r, true, &v)) return false;
    out->x = v;
    return true;
  }
  case SN_PARAM_BOOL:
    if (cJSON_IsBool(n)) {
      out->x = cJSON_IsTrue(n) ? 1.0 : 0.0;
      return true;
    }
    if (cJSON_IsNumber(n) && (n->valuedouble == 0.0 || n->valuedouble == 1.0)) {
      out->x = n->valuedouble;
      return true;
    }
    return sn_scene_fail(L, cJSON_IsNumber(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
                         "%s.%s: expected true or false, got %s", t->name, p->name,
                         sn_scene_describe(L, n, got, sizeof got));
  case SN_PARAM_VEC2: {
    sn_vec2 v;
    if (!sn_scene_read_vec2_in(L, n, r, &v)) return false;
    out->x = v.x;
    out->y = v.y;
    return true;
  }
  default:
    return sn_scene_fail(L, SN_SCENE_ERR_UNSUPPORTED, SN_OK, n, false, "%s.%s has an unknown kind", t->name, p->name);
  }
}

/// The number of particles a type joins against what an entry gives.
static bool check_particle_count(sn_loader *L, const sn_constraint_type *t, const cJSON *node, int32_t got) {
  uint32_t want = t->particle_count;
  if (want == SN_ANY_PARTICLES) {
    if (got >= 1 && got <= SN_MAX_CONSTRAINT_PARTICLES) return true;
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false, "expected 1 to %d particles for a %s, got %d",
                         SN_MAX_CONSTRAINT_PARTICLES, t->name, (int)got);
  }
  if (want == 0)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false,
                         "a %s joins rigid bodies only; expected no \"particles\" for it", t->name);
  if ((uint32_t)got == want) return true;
  return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false, "expected %u particle%s for a %s, got %d", want,
                       want == 1 ? "" : "s", t->name, (int)got);
}

/// The type exists, joins what the entry (or group) gives, and every
/// parameter is in its schema and range.
bool sn_scene_check_constraint_params(sn_loader *L, const sn_registry *reg, sn_constraint_ir *k) {
  const sn_constraint_type *t = sn_registry_find_type(reg, k->type);
  size_t mark = sn_scene_path_push_key(L, "type");
  if (t == NULL) {
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    for (int32_t i = 0; i < sn_registry_get_type_count(reg) && n < sizeof list; ++i) {
      int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", sn_registry_get_type(reg, i)->name);
      if (w < 0) break;
      n += (size_t)w;
    }
    return sn_scene_fail(
        L, SN_SCENE_ERR_UNKNOWN_TYPE, SN_OK, k->type_node, false,
        "no constraint type \"%.60s\" in the registry (it has: %s); expected a type of a plugin listed in "
        "\"plugins\"",
        k->type, n ? list : "no types");
  }
  if (k->soft >= 0 && t->body_count != 0)
    return sn_scene_fail(
        L, SN_SCENE_ERR_RANGE, SN_OK, k->type_node, false,
        "a %s joins %u rigid bod%s; expected a type that joins particles only (constraints with rigid bodies "
        "go in the top-level \"constraints\", with \"particles\" references)",
        t->name, t->body_count, t->body_count == 1 ? "y" : "ies");
  sn_scene_path_pop(L, mark);
  if (k->soft < 0 && (uint32_t)k->body_count != t->body_count) {
    if (k->bodies_node == NULL) {
      char expected[64];
      snprintf(expected, sizeof expected, "%u body name%s for a %s", t->body_count, t->body_count == 1 ? "" : "s",
               t->name);
      return sn_scene_missing(L, k->node, "bodies", expected);
    }
    mark = sn_scene_path_push_key(L, "bodies");
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->bodies_node, false,
                         "expected %u body name%s for a %s, got %d", t->body_count, t->body_count == 1 ? "" : "s",
                         t->name, (int)k->body_count);
  }
  if (k->soft < 0 && k->particles_node == NULL && t->particle_count != 0) {
    char expected[96];
    snprintf(expected, sizeof expected, "the particles a %s joins, as [[\"soft body\", index], ...]", t->name);
    return sn_scene_missing(L, k->node, "particles", expected);
  }
  if (k->particles_node != NULL) {
    mark = sn_scene_path_push_key(L, "particles");
    if (k->soft < 0) {
      if (!check_particle_count(L, t, k->particles_node, k->particle_count)) return false;
    } else {
      for (int32_t j = 0; j < k->tuple_count; ++j) {
        size_t m2 = sn_scene_path_push_index(L, j);
        if (!check_particle_count(L, t, k->tuple_nodes[j], k->start[j + 1] - k->start[j])) return false;
        sn_scene_path_pop(L, m2);
      }
    }
    sn_scene_path_pop(L, mark);
  }
  k->values = L->values + k->first_param;
  for (int32_t i = 0; i < k->param_count; ++i) {
    const sn_param_ir *p = L->params + k->first_param + i;
    const char *name = p->node->string;
    const sn_param_desc *d = NULL;
    for (uint32_t j = 0; j < t->param_count; ++j) {
      if (strcmp(t->params[j].name, name) == 0) d = t->params + j;
    }
    size_t m1 = p->top_level ? L->path_len : sn_scene_path_push_key(L, "params");
    if (d == NULL) {
      char list[512];
      schema_names(t, list, sizeof list);
      if (p->top_level)
        return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_PARAM, p->node,
                                 "unknown key \"%s\"; expected a constraint key (%s) or a parameter of %s (%s)", name,
                                 k->soft < 0 ? "type, bodies, particles, params, break_force, collide_connected, name"
                                             : "type, particles, params, break_force, name",
                                 t->name, list);
      return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_PARAM, p->node,
                               "%s has no parameter \"%s\"; expected one of: %s", t->name, name, list);
    }
    for (int32_t j = 0; j < i; ++j) {
      const sn_param_ir *q = L->params + k->first_param + j;
      if (strcmp(q->node->string, name) == 0) {
        int32_t line, column;
        sn_json_line_column(L->text, L->length, sn_scene_node_offset(L, q->node, true), &line, &column);
        return sn_scene_fail_key(
            L, SN_SCENE_ERR_UNKNOWN_KEY, p->node,
            "parameter \"%s\" is given twice (first at %d:%d); expected it once, either beside \"type\" or "
            "in \"params\"",
            name, (int)line, (int)column);
      }
    }
    size_t m2 = sn_scene_path_push_key(L, name);
    bool ok = read_param(L, t, d, p->node, k->values + i);
    sn_scene_path_pop(L, m2);
    sn_scene_path_pop(L, m1);
    if (!ok) return false;
  }
  return true;
}
