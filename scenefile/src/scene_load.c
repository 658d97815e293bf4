/* Scene loader: text -> positions (json_text.c) + tree (cJSON) -> checked
 * description (the *_ir structs, nothing built yet) -> plugins -> constraint
 * parameters against their schemas -> world. Any failure before the world
 * exists leaves nothing; a failure while building destroys what was built.
 * The format is documented in docs/scene-format.md. The defaults of bodies,
 * shapes, soft bodies and constraints below are the format's own, fixed here
 * whatever the engine's defaults; the world settings (gravity and the
 * "settings" keys) come from the engine's one table of them,
 * world/world_settings.h, keys, ranges and defaults alike. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "world/world_settings.h"
#include "platform/file_io.h"
#include "platform/platform.h"
#include "json_text.h"
#include "scene_internal.h"

/// Largest scene file read (bytes).
#define SN_SCENE_MAX_FILE_BYTES (512u * 1024u * 1024u)

/* ------------------------------------------------------------------------ */
/* Checked description                                                       */

typedef struct shape_ir {
  const cJSON *node; ///< the shape object
  const cJSON *geometry;
  sn_shape_type type;
  sn_shape_def def;
  sn_circle circle;
  sn_capsule capsule;
  sn_segment segment;
  sn_polygon polygon;
} shape_ir;

typedef struct body_ir {
  const cJSON *node;
  const cJSON *name_node;
  const char *name;
  sn_body_def def;
  int32_t first_shape, shape_count;
} body_ir;

typedef enum soft_kind { SOFT_ROPE, SOFT_CLOTH, SOFT_RING, SOFT_LATTICE, SOFT_CUSTOM } soft_kind;

/// A soft body as the file describes it: a builder def (rope ... lattice)
/// or explicit particles, edges and constraint groups (custom).
typedef struct soft_ir {
  const cJSON *node;
  const cJSON *name_node;
  const char *name;
  soft_kind kind;
  const char *kind_name;
  sn_soft_body_def body;     ///< material of the soft body (every kind)
  sn_soft_material material; ///< builder kinds
  sn_rope_def rope;
  sn_cloth_def cloth;
  sn_ring_def ring;
  sn_lattice_def lattice;
  int32_t particle_count; ///< what the entry makes (builders: from the def)
  int32_t first_particle; ///< into loader.particle_ids, while building
  /* custom */
  sn_particle_def *particles; ///< particle_count defs (malloc)
  const cJSON **particle_nodes;
  int32_t *edges; ///< edge_count pairs of local indices (malloc)
  const cJSON **edge_nodes;
  int32_t edge_count;
  int32_t first_group, group_count; ///< into loader.groups
} soft_ir;

typedef struct param_ir {
  const cJSON *node; ///< the value (its key is the parameter name)
  bool top_level;    ///< given beside "type" rather than inside "params"
} param_ir;

/// A constraint entry, or a constraint group of a custom soft body (one
/// type, one set of parameters, one or more particle lists).
typedef struct constraint_ir {
  const cJSON *node;
  const cJSON *type_node;
  const cJSON *bodies_node;
  const cJSON *body_nodes[SN_MAX_CONSTRAINT_BODIES];
  const char *type;
  const char *name;
  const cJSON *name_node;
  int32_t bodies[SN_MAX_CONSTRAINT_BODIES];
  int32_t body_count;
  float break_force;
  bool collide_connected;
  int32_t first_param, param_count;
  sn_param_value *values; ///< param_count values, set by check_constraint_params
  int32_t soft;           ///< group: the soft body it belongs to; -1 for an entry of "constraints"
  const cJSON *particles_node;
  /* entry: particle_count references (soft body, index), 2 ints each;
   * group: tuple_count particle lists, list j is indices[start[j] .. start[j + 1]) */
  int32_t particle_count;
  int32_t *refs;
  int32_t tuple_count;
  int32_t *start;
  int32_t *indices;
  const cJSON **tuple_nodes;
} constraint_ir;

typedef struct loader {
  const char *text;
  size_t length;
  const char *source;
  sn_json_map map;
  sn_scene_error *err;
  char path[512];
  size_t path_len;
  const sn_scene_load_options *opt;

  sn_world_def world_def;     ///< the limits (sn_scene_load_options.limits)
  sn_world_settings settings; ///< gravity and "settings"
  int64_t particle_total;     ///< particles of the soft bodies parsed so far (the world's max_particles)
  const cJSON *settings_node;
  const cJSON *plugins_node;

  body_ir *bodies;
  int32_t body_count;
  shape_ir *shapes;
  int32_t shape_count;
  soft_ir *softs;
  int32_t soft_count;
  constraint_ir *constraints;
  int32_t constraint_count;
  constraint_ir *groups; ///< constraint groups of custom soft bodies
  int32_t group_count, group_capacity;
  sn_particle_id *particle_ids; ///< every soft body's particles, while building
  param_ir *params;
  int32_t param_count, param_capacity;
  sn_param_value *values;

  sn_name_space body_names;       ///< file order: body i is slot i, soft body j is slot body_count + j
  sn_name_space constraint_names; ///< slot i: constraints[i]; slot constraint_count + g: groups[g]
} loader;

/* ------------------------------------------------------------------------ */
/* Locations, paths and messages                                             */

static size_t node_offset(const loader *L, const cJSON *node, bool at_key) {
  const sn_json_pos *p = node ? sn_json_find(&L->map, node) : NULL;
  if (p == NULL) return 0;
  if (at_key && p->key != SN_JSON_NO_KEY) return p->key;
  return p->value;
}

static size_t path_push_key(loader *L, const char *key) {
  size_t mark = L->path_len;
  int n = snprintf(L->path + mark, sizeof L->path - mark, "%s%s", mark ? "." : "", key);
  if (n > 0) L->path_len = mark + (size_t)n < sizeof L->path ? mark + (size_t)n : sizeof L->path - 1;
  return mark;
}

static size_t path_push_index(loader *L, int32_t index) {
  size_t mark = L->path_len;
  int n = snprintf(L->path + mark, sizeof L->path - mark, "[%d]", (int)index);
  if (n > 0) L->path_len = mark + (size_t)n < sizeof L->path ? mark + (size_t)n : sizeof L->path - 1;
  return mark;
}

static void path_pop(loader *L, size_t mark) {
  L->path_len = mark;
  L->path[mark] = '\0';
}

static void fail_at_offset(loader *L, sn_scene_status status, sn_result engine, size_t offset, const char *fmt,
                           va_list args) {
  int32_t line, column;
  sn_json_line_column(L->text, L->length, offset, &line, &column);
  char what[768];
  vsnprintf(what, sizeof what, fmt, args);
  if (L->path_len > 0)
    sn_scene_set_error(L->err, status, engine, line, column, "%s:%d:%d: %s: %s", L->source, (int)line, (int)column,
                       L->path, what);
  else
    sn_scene_set_error(L->err, status, engine, line, column, "%s:%d:%d: %s", L->source, (int)line, (int)column, what);
}

/// Records an error at node (its key if at_key) and returns false.
SN_PRINTF(6, 7)
static bool fail(loader *L, sn_scene_status status, sn_result engine, const cJSON *node, bool at_key, const char *fmt,
                 ...) {
  va_list args;
  va_start(args, fmt);
  fail_at_offset(L, status, engine, node_offset(L, node, at_key), fmt, args);
  va_end(args);
  return false;
}

/// Same, with the key of node appended to the path (for errors about a key).
SN_PRINTF(4, 5)
static bool fail_key(loader *L, sn_scene_status status, const cJSON *node, const char *fmt, ...) {
  size_t mark = path_push_key(L, node->string);
  va_list args;
  va_start(args, fmt);
  fail_at_offset(L, status, SN_OK, node_offset(L, node, true), fmt, args);
  va_end(args);
  path_pop(L, mark);
  return false;
}

static bool out_of_memory(loader *L) {
  sn_scene_set_error(L->err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "%s: out of memory", L->source);
  return false;
}

/// "a string", "-0.5", "an object"... for "got ..." in messages.
static const char *describe(const loader *L, const cJSON *n, char *buf, size_t cap) {
  if (cJSON_IsNumber(n)) {
    size_t at = node_offset(L, n, false), len = 0;
    while (at + len < L->length && len < 40 && strchr("0123456789+-.eE", L->text[at + len]) != NULL &&
           L->text[at + len] != '\0')
      len++;
    snprintf(buf, cap, "%.*s", (int)len, L->text + at);
    return buf;
  }
  if (cJSON_IsString(n)) {
    snprintf(buf, cap, "the string \"%.40s\"%s", n->valuestring, strlen(n->valuestring) > 40 ? "..." : "");
    return buf;
  }
  if (cJSON_IsBool(n)) return cJSON_IsTrue(n) ? "true" : "false";
  if (cJSON_IsNull(n)) return "null";
  if (cJSON_IsArray(n)) return "an array";
  if (cJSON_IsObject(n)) return "an object";
  return "an invalid value";
}

static const cJSON *member(const cJSON *obj, const char *key) {
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (c->string != NULL && strcmp(c->string, key) == 0) return c;
  }
  return NULL;
}

static bool in_list(const char *key, const char *const *list) {
  for (; *list != NULL; ++list) {
    if (strcmp(key, *list) == 0) return true;
  }
  return false;
}

static void join_list(const char *const *list, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (; *list != NULL && n < cap; ++list) {
    int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", *list);
    if (w < 0) break;
    n += (size_t)w;
  }
}

/// A key given twice in one object.
static bool check_duplicate_key(loader *L, const cJSON *obj, const cJSON *c) {
  for (const cJSON *p = obj->child; p != c; p = p->next) {
    if (strcmp(p->string, c->string) == 0) {
      int32_t line, column;
      sn_json_line_column(L->text, L->length, node_offset(L, p, true), &line, &column);
      return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c, "key \"%s\" is given twice (first at %d:%d); expected it once",
                      c->string, (int)line, (int)column);
    }
  }
  return true;
}

/// Every key of obj is in allowed, and none is given twice.
static bool check_keys(loader *L, const cJSON *obj, const char *const *allowed, const char *what) {
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!check_duplicate_key(L, obj, c)) return false;
    if (!in_list(c->string, allowed)) {
      char list[512];
      join_list(allowed, list, sizeof list);
      return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c, "unknown key \"%s\" in %s; expected one of: %s", c->string, what,
                      list);
    }
  }
  return true;
}

static bool missing(loader *L, const cJSON *obj, const char *key, const char *expected) {
  return fail(L, SN_SCENE_ERR_MISSING_KEY, SN_OK, obj, false, "missing required key \"%s\"; expected %s", key,
              expected);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */

typedef struct range {
  double lo, hi;
  bool lo_open;
} range;

static const range ANY = {-FLT_MAX, FLT_MAX, false};
static const range NON_NEGATIVE = {0.0, FLT_MAX, false};
static const range POSITIVE = {0.0, FLT_MAX, true};
static const range UNIT = {0.0, 1.0, false};

static void range_text(range r, bool whole, char *buf, size_t cap) {
  const char *noun = whole ? "a whole number" : "a number";
  if (whole && r.lo > -FLT_MAX && r.hi < FLT_MAX) { /* whole bounds in full: [2, 1048576] */
    snprintf(buf, cap, "%s in [%.0f, %.0f]", noun, r.lo, r.hi);
    return;
  }
  if (r.lo <= -FLT_MAX && r.hi >= FLT_MAX)
    snprintf(buf, cap, "a finite %s within float range (|x| <= 3.4e38)", whole ? "whole number" : "number");
  else if (r.hi >= FLT_MAX)
    snprintf(buf, cap, "%s %s %g", noun, r.lo_open ? ">" : ">=", r.lo);
  else if (r.lo <= -FLT_MAX)
    snprintf(buf, cap, "%s <= %g", noun, r.hi);
  else
    snprintf(buf, cap, "%s in %s%g, %g]", noun, r.lo_open ? "(" : "[", r.lo, r.hi);
}

static bool check_number(loader *L, const cJSON *n, range r, bool whole, double *out) {
  char expected[128], got[96];
  range_text(r, whole, expected, sizeof expected);
  if (!cJSON_IsNumber(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  double v = n->valuedouble;
  bool ok = isfinite(v) && v <= r.hi && (r.lo_open ? v > r.lo : v >= r.lo) && (!whole || v == floor(v));
  if (ok && !whole) ok = isfinite((float)v);
  if (!ok)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  *out = v;
  return true;
}

static bool read_float(loader *L, const cJSON *n, range r, float *out) {
  double v;
  if (!check_number(L, n, r, false, &v)) return false;
  *out = (float)v;
  return true;
}

static bool read_int(loader *L, const cJSON *n, int32_t lo, int32_t hi, int32_t *out) {
  double v;
  if (!check_number(L, n, (range){lo, hi, false}, true, &v)) return false;
  *out = (int32_t)v;
  return true;
}

static bool read_bool(loader *L, const cJSON *n, bool *out) {
  char got[96];
  if (!cJSON_IsBool(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected true or false, got %s",
                describe(L, n, got, sizeof got));
  *out = cJSON_IsTrue(n);
  return true;
}

static bool read_string(loader *L, const cJSON *n, const char *expected, const char **out) {
  char got[96];
  if (!cJSON_IsString(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  *out = n->valuestring;
  return true;
}

static bool read_array(loader *L, const cJSON *n, const char *expected) {
  char got[96];
  if (!cJSON_IsArray(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  return true;
}

static bool read_object(loader *L, const cJSON *n, const char *expected) {
  char got[96];
  if (!cJSON_IsObject(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  return true;
}

/// [x, y]: exactly two numbers within r.
static bool read_vec2_in(loader *L, const cJSON *n, range r, sn_vec2 *out) {
  char got[96];
  if (!cJSON_IsArray(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected [x, y] (an array of 2 numbers), got %s",
                describe(L, n, got, sizeof got));
  if (cJSON_GetArraySize(n) != 2)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false, "expected [x, y] (an array of 2 numbers), got %d values",
                cJSON_GetArraySize(n));
  float v[2];
  int i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = path_push_index(L, i);
    bool ok = read_float(L, c, r, v + i);
    path_pop(L, mark);
    if (!ok) return false;
  }
  *out = (sn_vec2){v[0], v[1]};
  return true;
}

static bool read_vec2(loader *L, const cJSON *n, sn_vec2 *out) { return read_vec2_in(L, n, ANY, out); }

/* Optional members: read if present, else keep *out (the default). The
 * member's key goes on the path while its value is read. */
#define SN_OPT(L, obj, key, call)                                                                                      \
  do {                                                                                                                 \
    const cJSON *n_ = member((obj), (key));                                                                            \
    if (n_ != NULL) {                                                                                                  \
      size_t mark_ = path_push_key((L), (key));                                                                        \
      bool ok_ = (call);                                                                                               \
      path_pop((L), mark_);                                                                                            \
      if (!ok_) return false;                                                                                          \
    }                                                                                                                  \
  } while (0)

/// Same, but the member must be there.
#define SN_REQ(L, obj, key, expected, call)                                                                            \
  do {                                                                                                                 \
    const cJSON *n_ = member((obj), (key));                                                                            \
    if (n_ == NULL) return missing((L), (obj), (key), (expected));                                                     \
    size_t mark_ = path_push_key((L), (key));                                                                          \
    bool ok_ = (call);                                                                                                 \
    path_pop((L), mark_);                                                                                              \
    if (!ok_) return false;                                                                                            \
  } while (0)

static bool read_name(loader *L, const cJSON *n, const char **out) {
  if (!read_string(L, n, "a name (a string)", out)) return false;
  const char *why = NULL;
  long bad = sn_utf8_invalid(*out, &why);
  if (bad >= 0)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                "expected a name in well-formed UTF-8, got %s at byte %ld of the name (0x%02X)", why, bad + 1,
                (unsigned)(unsigned char)(*out)[bad]);
  if (!sn_name_is_valid(*out)) {
    /* quote at most 40 bytes, cut at a character boundary */
    int shown = 0;
    for (int i = 0; (*out)[i] != '\0' && i <= 40; ++i) {
      if (((unsigned char)(*out)[i] & 0xC0) != 0x80) shown = i;
    }
    if (strlen(*out) <= 40) shown = (int)strlen(*out);
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                "expected a name of 1 to %d bytes without control characters, got \"%.*s\"", SN_SCENE_MAX_NAME, shown,
                *out);
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Settings                                                                  */

/// A setting's value (its line of world/world_settings.h gives type and range).
static bool read_setting(loader *L, const cJSON *n, const sn_setting_info *info) {
  void *field = (char *)&L->settings + info->offset;
  range r = {info->min, info->max, (info->flags & SN_SETTING_ABOVE_MIN) != 0};
  switch (info->type) {
  case SN_SETTING_TYPE_INT:
    return read_int(L, n, (int32_t)info->min, (int32_t)info->max, field);
  case SN_SETTING_TYPE_FLOAT:
    return read_float(L, n, r, field);
  case SN_SETTING_TYPE_BOOL:
    return read_bool(L, n, field);
  case SN_SETTING_TYPE_VEC2:
    return read_vec2_in(L, n, r, field);
  }
  return false;
}

/// The settings whose key sits in obj: the document's top level (top_level)
/// or its "settings" object.
static bool read_settings(loader *L, const cJSON *obj, bool top_level) {
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if (((info->flags & SN_SETTING_TOP_LEVEL) != 0) != top_level) continue;
    SN_OPT(L, obj, info->key, read_setting(L, n_, info));
  }
  return true;
}

static bool parse_settings(loader *L, const cJSON *obj) {
  const char *keys[SN_WORLD_SETTING_COUNT + 1];
  int32_t n = 0;
  for (int pass = 0; pass < 2; ++pass) { /* in the writer's order: those of sn_world_def first */
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      const sn_setting_info *info = sn_world_setting_info(i);
      if ((info->flags & SN_SETTING_TOP_LEVEL) == 0 && info->in_def == (pass == 0)) keys[n++] = info->key;
    }
  }
  keys[n] = NULL;
  if (!read_object(L, obj, "an object of world settings")) return false;
  if (!check_keys(L, obj, keys, "settings")) return false;
  return read_settings(L, obj, false);
}

/* ------------------------------------------------------------------------ */
/* Shapes                                                                    */

static const char *const geometry_keys[] = {"circle", "box", "polygon", "capsule", "segment", NULL};
static const char *const shape_keys[] = {
    "circle",  "box",      "polygon",     "capsule",        "segment",    "offset",        "radius",    "angle",
    "density", "friction", "restitution", "contact_events", "hit_events", "category_bits", "mask_bits", NULL};

/// Collision filter bits: a whole number in [0, 2^53] or a string "0x" + up to 16 hex digits.
static bool read_bits(loader *L, const cJSON *n, uint64_t *out) {
  char got[96];
  if (cJSON_IsNumber(n)) {
    double v = n->valuedouble;
    if (!(v >= 0.0 && v <= 9007199254740992.0 && v == floor(v)))
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                  "expected a whole number in [0, 2^53] or a string \"0x...\" of up to 16 hex digits, got %s",
                  describe(L, n, got, sizeof got));
    *out = (uint64_t)v;
    return true;
  }
  if (cJSON_IsString(n)) {
    const char *s = n->valuestring;
    size_t len = strlen(s);
    bool ok = len > 2 && len <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    uint64_t v = 0;
    for (size_t i = 2; ok && i < len; ++i) {
      char c = s[i];
      int h = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (h < 0) ok = false;
      v = (v << 4) | (uint64_t)(h < 0 ? 0 : h);
    }
    if (ok) {
      *out = v;
      return true;
    }
  }
  return fail(L, cJSON_IsString(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
              "expected a whole number in [0, 2^53] or a string \"0x...\" of up to 16 hex digits, got %s",
              describe(L, n, got, sizeof got));
}

/// What the engine wants instead, for a geometry refusal.
static const char *geometry_expected(sn_result r) {
  switch (r) {
  case SN_ERR_DEGENERATE_POLYGON:
    return "at least 3 points more than 0.5 mm apart, enclosing some area";
  case SN_ERR_NON_CONVEX_POLYGON:
    return "a convex outline with no three points in a line";
  case SN_ERR_TOO_MANY_VERTICES:
    return "at most 8 points";
  case SN_ERR_WRONG_BODY_TYPE:
    return "segments on static bodies only";
  default:
    return "finite values in range";
  }
}

static bool geometry_error(loader *L, const cJSON *n, sn_result r, const char *what) {
  return fail(L, SN_SCENE_ERR_GEOMETRY, r, n, false, "the engine refuses this %s: %s (%s); expected %s", what,
              sn_result_name(r), sn_result_message(r), geometry_expected(r));
}

static bool parse_points(loader *L, const cJSON *n, int32_t min, int32_t max, sn_vec2 *points, int32_t *count,
                         const char *expected) {
  char got[96];
  if (!cJSON_IsArray(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                describe(L, n, got, sizeof got));
  int32_t k = cJSON_GetArraySize(n);
  if (k < min || k > max)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false, "expected %s, got %d points", expected, (int)k);
  int32_t i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = path_push_index(L, i);
    bool ok = read_vec2(L, c, points + i);
    path_pop(L, mark);
    if (!ok) return false;
  }
  *count = k;
  return true;
}

static bool parse_geometry(loader *L, shape_ir *s, const cJSON *obj, sn_body_type body_type) {
  const cJSON *g = s->geometry;
  const char *kind = g->string;
  const cJSON *offset_node = member(obj, "offset");
  sn_vec2 offset = {0.0f, 0.0f};
  SN_OPT(L, obj, "offset", read_vec2(L, n_, &offset));
  float radius = 0.0f, angle = 0.0f;
  bool rounded = strcmp(kind, "box") == 0 || strcmp(kind, "polygon") == 0;
  const cJSON *rn = member(obj, "radius"), *an = member(obj, "angle");
  if (rn != NULL && !rounded)
    return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, rn,
                    "\"radius\" (rounding) applies to box and polygon shapes only; expected no \"radius\" on a %s",
                    kind);
  if (an != NULL && strcmp(kind, "box") != 0)
    return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, an,
                    "\"angle\" applies to box shapes only; expected no \"angle\" on a %s", kind);
  SN_OPT(L, obj, "radius", read_float(L, n_, NON_NEGATIVE, &radius));
  SN_OPT(L, obj, "angle", read_float(L, n_, ANY, &angle));
  size_t mark = path_push_key(L, kind);
  bool ok = true;
  if (strcmp(kind, "circle") == 0) {
    s->type = SN_SHAPE_CIRCLE;
    ok = read_float(L, g, POSITIVE, &s->circle.radius);
    s->circle.center = offset;
  } else if (strcmp(kind, "box") == 0) {
    s->type = SN_SHAPE_POLYGON;
    sn_vec2 h;
    ok = read_vec2_in(L, g, POSITIVE, &h);
    if (ok) {
      sn_result r = sn_make_offset_box(h.x, h.y, offset, angle, &s->polygon);
      if (r != SN_OK) ok = geometry_error(L, g, r, "box");
      s->polygon.radius = radius;
    }
  } else if (strcmp(kind, "polygon") == 0) {
    s->type = SN_SHAPE_POLYGON;
    sn_vec2 pts[SN_MAX_POLYGON_VERTICES];
    int32_t count = 0;
    ok = parse_points(L, g, 3, SN_MAX_POLYGON_VERTICES, pts, &count, "[[x, y], ...] with 3 to 8 points");
    if (ok) {
      if (offset_node != NULL) {
        for (int32_t i = 0; i < count; ++i) pts[i] = (sn_vec2){pts[i].x + offset.x, pts[i].y + offset.y};
      }
      sn_result r = sn_make_polygon(pts, count, radius, &s->polygon);
      if (r != SN_OK) ok = geometry_error(L, g, r, "polygon");
    }
  } else if (strcmp(kind, "capsule") == 0) {
    s->type = SN_SHAPE_CAPSULE;
    const char *expected = "[[x1, y1], [x2, y2], radius]";
    char got[96];
    if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) != 3) {
      ok = fail(L, cJSON_IsArray(g) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, g, false, "expected %s, got %s",
                expected, cJSON_IsArray(g) ? "an array of another length" : describe(L, g, got, sizeof got));
    } else {
      const cJSON *c = g->child;
      size_t m2 = path_push_index(L, 0);
      ok = read_vec2(L, c, &s->capsule.center1);
      path_pop(L, m2);
      if (ok) {
        m2 = path_push_index(L, 1);
        ok = read_vec2(L, c->next, &s->capsule.center2);
        path_pop(L, m2);
      }
      if (ok) {
        m2 = path_push_index(L, 2);
        ok = read_float(L, c->next->next, POSITIVE, &s->capsule.radius);
        path_pop(L, m2);
      }
      if (ok && offset_node != NULL) {
        s->capsule.center1 = (sn_vec2){s->capsule.center1.x + offset.x, s->capsule.center1.y + offset.y};
        s->capsule.center2 = (sn_vec2){s->capsule.center2.x + offset.x, s->capsule.center2.y + offset.y};
      }
    }
  } else { /* segment */
    s->type = SN_SHAPE_SEGMENT;
    sn_vec2 pts[2];
    int32_t count = 0;
    ok = parse_points(L, g, 2, 2, pts, &count, "[[x1, y1], [x2, y2]]");
    if (ok) {
      if (offset_node != NULL) {
        for (int32_t i = 0; i < 2; ++i) pts[i] = (sn_vec2){pts[i].x + offset.x, pts[i].y + offset.y};
      }
      s->segment = (sn_segment){pts[0], pts[1]};
      if (body_type != SN_BODY_STATIC)
        ok = fail(L, SN_SCENE_ERR_GEOMETRY, SN_ERR_WRONG_BODY_TYPE, g, true,
                  "a segment has no area: expected it on a static body, this body is %s",
                  sn_scene_body_type_name(body_type));
    }
  }
  path_pop(L, mark);
  return ok;
}

static bool parse_shape(loader *L, const cJSON *obj, sn_body_type body_type, shape_ir *s) {
  if (!read_object(L, obj, "a shape object such as {\"circle\": 0.5}")) return false;
  memset(s, 0, sizeof *s);
  s->node = obj;
  const cJSON *unknown = NULL;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!check_duplicate_key(L, obj, c)) return false;
    if (in_list(c->string, geometry_keys)) {
      if (s->geometry != NULL)
        return fail_key(L, SN_SCENE_ERR_UNKNOWN_SHAPE, c,
                        "a shape has exactly one geometry, and this one already is a %s; expected one of circle, box, "
                        "polygon, capsule, segment per shape",
                        s->geometry->string);
      s->geometry = c;
    } else if (!in_list(c->string, shape_keys) && unknown == NULL) {
      unknown = c;
    }
  }
  if (unknown != NULL && s->geometry == NULL)
    return fail_key(L, SN_SCENE_ERR_UNKNOWN_SHAPE, unknown,
                    "unknown shape \"%s\"; expected one of: circle, box, polygon, capsule, segment", unknown->string);
  if (unknown != NULL) {
    char list[512];
    join_list(shape_keys, list, sizeof list);
    return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, unknown, "unknown key \"%s\" in a shape; expected one of: %s",
                    unknown->string, list);
  }
  if (s->geometry == NULL)
    return fail(L, SN_SCENE_ERR_UNKNOWN_SHAPE, SN_OK, obj, false,
                "a shape needs a geometry key; expected one of: circle, box, polygon, capsule, segment");
  sn_shape_def *d = &s->def;
  *d = sn_default_shape_def();
  d->density = 1.0f;
  d->friction = 0.6f;
  d->restitution = 0.0f;
  d->enable_contact_events = true;
  d->enable_hit_events = false;
  d->category_bits = 1;
  d->mask_bits = UINT64_MAX;
  SN_OPT(L, obj, "density", read_float(L, n_, NON_NEGATIVE, &d->density));
  SN_OPT(L, obj, "friction", read_float(L, n_, NON_NEGATIVE, &d->friction));
  SN_OPT(L, obj, "restitution", read_float(L, n_, UNIT, &d->restitution));
  SN_OPT(L, obj, "contact_events", read_bool(L, n_, &d->enable_contact_events));
  SN_OPT(L, obj, "hit_events", read_bool(L, n_, &d->enable_hit_events));
  SN_OPT(L, obj, "category_bits", read_bits(L, n_, &d->category_bits));
  SN_OPT(L, obj, "mask_bits", read_bits(L, n_, &d->mask_bits));
  return parse_geometry(L, s, obj, body_type);
}

/* ------------------------------------------------------------------------ */
/* Bodies and names                                                          */

/// Location "line:col" of the name node of file body/soft body slot.
static void first_use(loader *L, int32_t slot, int32_t *line, int32_t *column) {
  const cJSON *n = slot < L->body_count ? L->bodies[slot].name_node : L->softs[slot - L->body_count].name_node;
  sn_json_line_column(L->text, L->length, node_offset(L, n, false), line, column);
}

static bool add_body_name(loader *L, const cJSON *name_node, const char *name, int32_t slot) {
  sn_name_id other;
  sn_scene_status st = sn_name_space_set(&L->body_names, (sn_name_id){slot + 1, 0, 0}, name, &other);
  if (st == SN_SCENE_ERR_OUT_OF_MEMORY) return out_of_memory(L);
  if (st == SN_SCENE_ERR_DUPLICATE_NAME) {
    int32_t line, column;
    first_use(L, other.index1 - 1, &line, &column);
    return fail(L, SN_SCENE_ERR_DUPLICATE_NAME, SN_OK, name_node, false,
                "duplicate body name \"%s\" (first used at %d:%d); expected every body and soft body to have its own "
                "name",
                name, (int)line, (int)column);
  }
  return true;
}

/// [cos, sin] of a body's exact rotation: c^2 + s^2 within 1e-4 of 1.
static bool read_rotation(loader *L, const cJSON *n, sn_rot *out) {
  sn_vec2 v;
  if (!read_vec2(L, n, &v)) return false;
  if (!(fabsf(v.x * v.x + v.y * v.y - 1.0f) <= 1e-4f))
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                "expected a rotation [cos, sin] of unit length (within 1e-4), got [%g, %g]", (double)v.x, (double)v.y);
  *out = (sn_rot){v.x, v.y};
  return true;
}

static bool parse_body(loader *L, const cJSON *obj, int32_t index) {
  static const char *const keys[] = {"name",
                                     "type",
                                     "position",
                                     "angle",
                                     "rotation",
                                     "velocity",
                                     "angular_velocity",
                                     "linear_damping",
                                     "angular_damping",
                                     "gravity_scale",
                                     "bullet",
                                     "awake",
                                     "sleep",
                                     "fixed_rotation",
                                     "shapes",
                                     NULL};
  if (!read_object(L, obj, "a body object")) return false;
  if (!check_keys(L, obj, keys, "a body")) return false;
  body_ir *b = L->bodies + index;
  b->node = obj;
  b->name_node = member(obj, "name");
  SN_OPT(L, obj, "name", read_name(L, n_, &b->name));
  sn_body_def *d = &b->def;
  *d = sn_default_body_def();
  const char *type = NULL;
  char types[64];
  sn_scene_body_type_list(types, sizeof types);
  SN_REQ(L, obj, "type", types, read_string(L, n_, types, &type));
  if (!sn_scene_body_type_of(type, &d->type)) {
    size_t mark = path_push_key(L, "type");
    fail(L, SN_SCENE_ERR_RANGE, SN_OK, member(obj, "type"), false, "expected %s, got \"%.40s\"", types, type);
    path_pop(L, mark);
    return false;
  }
  d->position = (sn_vec2){0.0f, 0.0f};
  d->angle = 0.0f;
  d->linear_velocity = (sn_vec2){0.0f, 0.0f};
  d->angular_velocity = 0.0f;
  d->linear_damping = 0.0f;
  d->angular_damping = 0.0f;
  d->gravity_scale = 1.0f;
  d->is_bullet = false;
  d->is_awake = true;
  d->enable_sleep = true;
  d->fixed_rotation = false;
  SN_OPT(L, obj, "position", read_vec2(L, n_, &d->position));
  SN_OPT(L, obj, "angle", read_float(L, n_, ANY, &d->angle));
  SN_OPT(L, obj, "rotation", read_rotation(L, n_, &d->rotation));
  SN_OPT(L, obj, "velocity", read_vec2(L, n_, &d->linear_velocity));
  SN_OPT(L, obj, "angular_velocity", read_float(L, n_, ANY, &d->angular_velocity));
  SN_OPT(L, obj, "linear_damping", read_float(L, n_, NON_NEGATIVE, &d->linear_damping));
  SN_OPT(L, obj, "angular_damping", read_float(L, n_, NON_NEGATIVE, &d->angular_damping));
  SN_OPT(L, obj, "gravity_scale", read_float(L, n_, ANY, &d->gravity_scale));
  SN_OPT(L, obj, "bullet", read_bool(L, n_, &d->is_bullet));
  SN_OPT(L, obj, "awake", read_bool(L, n_, &d->is_awake));
  SN_OPT(L, obj, "sleep", read_bool(L, n_, &d->enable_sleep));
  SN_OPT(L, obj, "fixed_rotation", read_bool(L, n_, &d->fixed_rotation));
  b->first_shape = L->shape_count;
  const cJSON *shapes = member(obj, "shapes");
  if (shapes != NULL) {
    size_t mark = path_push_key(L, "shapes");
    bool ok = read_array(L, shapes, "an array of shape objects");
    int32_t i = 0;
    for (const cJSON *c = ok ? shapes->child : NULL; c != NULL && ok; c = c->next, ++i) {
      size_t m2 = path_push_index(L, i);
      ok = parse_shape(L, c, d->type, L->shapes + L->shape_count);
      if (ok) L->shape_count++;
      path_pop(L, m2);
    }
    path_pop(L, mark);
    if (!ok) return false;
  }
  b->shape_count = L->shape_count - b->first_shape;
  if (b->name != NULL) {
    size_t mark = path_push_key(L, "name");
    bool ok = add_body_name(L, b->name_node, b->name, index);
    path_pop(L, mark);
    if (!ok) return false;
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Soft bodies                                                               */

/* Ranges of the builders and the xpbd plugins' parameters. */
#define SOFT_MAX_PARTICLES (1 << 20)
static const range COMPLIANCE = {0.0, 1e6, false};
static const range OPTIONAL_COMPLIANCE = {-FLT_MAX, 1e6, false}; /* negative = none */
static const range XPBD_DAMPING = {0.0, 1e3, false};
static const range PRESSURE = {0.0, 100.0, false};

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

static sn_soft_material format_material(soft_kind kind) {
  sn_soft_material m = sn_default_soft_material();
  m.compliance = kind == SOFT_RING ? 1e-3f : 0.0f;
  m.damping = 0.0f;
  m.shear_compliance = kind == SOFT_LATTICE ? 0.0f : -1.0f;
  m.bend_compliance = -1.0f;
  m.tear_force = 0.0f;
  return m;
}

static void format_builder_defaults(soft_ir *s) {
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
static bool read_index(loader *L, const cJSON *n, int32_t count, int32_t *out) {
  char got[96];
  if (!cJSON_IsNumber(n))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected a particle index (a whole number), got %s",
                describe(L, n, got, sizeof got));
  if (count == 0)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                "the soft body has no particles; expected no particle index, got %s", describe(L, n, got, sizeof got));
  return read_int(L, n, 0, count - 1, out);
}

/// Columns and rows of a grid: each 2..2^20, at most 2^20 particles in all.
static bool read_grid(loader *L, const cJSON *obj, int32_t *columns, int32_t *rows) {
  SN_OPT(L, obj, "columns", read_int(L, n_, 2, SOFT_MAX_PARTICLES, columns));
  SN_OPT(L, obj, "rows", read_int(L, n_, 2, SOFT_MAX_PARTICLES, rows));
  if ((int64_t)*columns * *rows > SOFT_MAX_PARTICLES) {
    const cJSON *at = member(obj, "rows") ? member(obj, "rows") : member(obj, "columns");
    size_t mark = path_push_key(L, at->string);
    fail(L, SN_SCENE_ERR_RANGE, SN_OK, at, false, "columns x rows = %lld particles; expected at most %d",
         (long long)*columns * *rows, SOFT_MAX_PARTICLES);
    path_pop(L, mark);
    return false;
  }
  return true;
}

/// Cloth pins: an array of distinct words.
static bool read_pins(loader *L, const cJSON *arr, uint32_t *pins) {
  static const char *const words[] = {"top_left", "top_right", "top_row", "bottom_left", "bottom_right", NULL};
  static const uint32_t flags[] = {SN_PIN_TOP_LEFT, SN_PIN_TOP_RIGHT, SN_PIN_TOP_ROW, SN_PIN_BOTTOM_LEFT,
                                   SN_PIN_BOTTOM_RIGHT};
  const char *expected =
      "an array of pins: \"top_left\", \"top_right\", \"top_row\", \"bottom_left\", \"bottom_right\"";
  if (!read_array(L, arr, expected)) return false;
  *pins = 0u;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t mark = path_push_index(L, i);
    const char *word = NULL;
    if (!read_string(L, c, expected, &word)) return false;
    int32_t k = 0;
    while (words[k] != NULL && strcmp(words[k], word) != 0) ++k;
    if (words[k] == NULL)
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
                  "expected one of \"top_left\", \"top_right\", \"top_row\", \"bottom_left\", \"bottom_right\", got "
                  "\"%.40s\"",
                  word);
    if (*pins & flags[k])
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false, "pin \"%s\" is listed twice; expected each pin once", word);
    *pins |= flags[k];
    path_pop(L, mark);
  }
  return true;
}

static bool parse_particle(loader *L, const cJSON *obj, float mass, float radius, sn_particle_def *d) {
  if (!read_object(L, obj, "a particle object such as {\"position\": [0, 1]}")) return false;
  if (!check_keys(L, obj, particle_keys, "a particle")) return false;
  *d = sn_default_particle_def();
  d->position = (sn_vec2){0.0f, 0.0f};
  d->velocity = (sn_vec2){0.0f, 0.0f};
  d->mass = mass;
  d->radius = radius;
  d->kinematic = false;
  SN_REQ(L, obj, "position", "[x, y]", read_vec2(L, n_, &d->position));
  SN_OPT(L, obj, "velocity", read_vec2(L, n_, &d->velocity));
  SN_OPT(L, obj, "mass", read_float(L, n_, NON_NEGATIVE, &d->mass));
  SN_OPT(L, obj, "radius", read_float(L, n_, NON_NEGATIVE, &d->radius));
  SN_OPT(L, obj, "kinematic", read_bool(L, n_, &d->kinematic));
  return true;
}

/// [a, b]: two different particle indices.
static bool parse_edge(loader *L, const cJSON *n, int32_t count, int32_t *pair) {
  char got[96];
  if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) != 2)
    return fail(L, cJSON_IsArray(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
                "expected an edge [a, b] (two particle indices), got %s",
                cJSON_IsArray(n) ? "an array of another length" : describe(L, n, got, sizeof got));
  int32_t i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = path_push_index(L, i);
    bool ok = read_index(L, c, count, pair + i);
    path_pop(L, mark);
    if (!ok) return false;
  }
  if (pair[0] == pair[1])
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                "edge [%d, %d] joins a particle to itself; expected two "
                "different particles",
                (int)pair[0], (int)pair[1]);
  return true;
}

static bool add_param(loader *L, const cJSON *node, bool top_level);
static bool parse_constraint_head(loader *L, const cJSON *obj, constraint_ir *k, const char *const *keys);
static bool parse_constraint_tail(loader *L, const cJSON *obj, constraint_ir *k, int32_t slot);

static constraint_ir *new_group(loader *L) {
  if (L->group_count == L->group_capacity) {
    int32_t cap = L->group_capacity ? 2 * L->group_capacity : 16;
    constraint_ir *g = realloc(L->groups, (size_t)cap * sizeof *g);
    if (g == NULL) return NULL;
    L->groups = g;
    L->group_capacity = cap;
  }
  constraint_ir *k = L->groups + L->group_count++;
  memset(k, 0, sizeof *k);
  return k;
}

/// A constraint group: {"type": ..., "particles": [[i, j], ...], "params": {...}}.
static bool parse_group(loader *L, const cJSON *obj, int32_t soft, int32_t count) {
  if (!read_object(L, obj, "a constraint group such as {\"type\": \"xpbd_distance\", \"particles\": [[0, 1]]}"))
    return false;
  constraint_ir *k = new_group(L);
  if (k == NULL) return out_of_memory(L);
  int32_t g = L->group_count - 1;
  k->soft = soft;
  if (!parse_constraint_head(L, obj, k, group_keys)) return false;
  const char *expected = "an array of particle lists such as [[0, 1], [1, 2]]";
  k->particles_node = member(obj, "particles");
  if (k->particles_node == NULL) return missing(L, obj, "particles", expected);
  size_t mark = path_push_key(L, "particles");
  const cJSON *arr = k->particles_node;
  if (!read_array(L, arr, expected)) return false;
  int32_t tuples = cJSON_GetArraySize(arr);
  if (tuples < 1) return fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected %s, got an empty array", expected);
  int64_t total = 0;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    if (!read_array(L, c, "a particle list such as [0, 1]")) return false;
    int32_t n = cJSON_GetArraySize(c);
    if (n < 1 || n > SN_MAX_CONSTRAINT_PARTICLES)
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false, "expected a list of 1 to %d particle indices, got %d",
                  SN_MAX_CONSTRAINT_PARTICLES, (int)n);
    total += n;
    path_pop(L, m2);
  }
  /* L->groups may not move under k below: nothing adds groups until this one is done */
  k->tuple_count = tuples;
  k->start = malloc(((size_t)tuples + 1) * sizeof *k->start);
  k->indices = malloc(((size_t)total + 1) * sizeof *k->indices);
  k->tuple_nodes = malloc(((size_t)tuples + 1) * sizeof *k->tuple_nodes);
  if (k->start == NULL || k->indices == NULL || k->tuple_nodes == NULL) return out_of_memory(L);
  int32_t at = 0;
  i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    k->start[i] = at;
    k->tuple_nodes[i] = c;
    int32_t j = 0;
    for (const cJSON *x = c->child; x != NULL; x = x->next, ++j) {
      size_t m3 = path_push_index(L, j);
      if (!read_index(L, x, count, k->indices + at)) return false;
      at++;
      path_pop(L, m3);
    }
    path_pop(L, m2);
  }
  k->start[tuples] = at;
  path_pop(L, mark);
  if (k->name != NULL && tuples != 1) {
    mark = path_push_key(L, "name");
    fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->name_node, false,
         "a named group is one constraint; expected exactly one particle list, got %d", (int)tuples);
    path_pop(L, mark);
    return false;
  }
  return parse_constraint_tail(L, obj, k, L->constraint_count + g);
}

static bool parse_custom(loader *L, const cJSON *obj, soft_ir *s, int32_t index) {
  float mass = 0.01f, radius = 0.02f; /* sn_default_particle_def */
  SN_OPT(L, obj, "particle_mass", read_float(L, n_, NON_NEGATIVE, &mass));
  SN_OPT(L, obj, "particle_radius", read_float(L, n_, NON_NEGATIVE, &radius));
  const cJSON *arr = member(obj, "particles");
  if (arr != NULL) {
    size_t mark = path_push_key(L, "particles");
    if (!read_array(L, arr, "an array of particle objects")) return false;
    int32_t n = cJSON_GetArraySize(arr);
    if (n > SOFT_MAX_PARTICLES)
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected at most %d particles, got %d", SOFT_MAX_PARTICLES,
                  (int)n);
    s->particles = malloc(((size_t)n + 1) * sizeof *s->particles);
    s->particle_nodes = malloc(((size_t)n + 1) * sizeof *s->particle_nodes);
    if (s->particles == NULL || s->particle_nodes == NULL) return out_of_memory(L);
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = path_push_index(L, i);
      s->particle_nodes[i] = c;
      if (!parse_particle(L, c, mass, radius, s->particles + i)) return false;
      path_pop(L, m2);
    }
    s->particle_count = n;
    path_pop(L, mark);
  }
  arr = member(obj, "edges");
  if (arr != NULL) {
    size_t mark = path_push_key(L, "edges");
    if (!read_array(L, arr, "an array of edges such as [[0, 1], [1, 2]]")) return false;
    int32_t n = cJSON_GetArraySize(arr);
    s->edges = malloc(((size_t)n + 1) * 2 * sizeof *s->edges);
    s->edge_nodes = malloc(((size_t)n + 1) * sizeof *s->edge_nodes);
    if (s->edges == NULL || s->edge_nodes == NULL) return out_of_memory(L);
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = path_push_index(L, i);
      s->edge_nodes[i] = c;
      if (!parse_edge(L, c, s->particle_count, s->edges + 2 * i)) return false;
      path_pop(L, m2);
    }
    s->edge_count = n;
    path_pop(L, mark);
  }
  s->first_group = L->group_count;
  arr = member(obj, "constraints");
  if (arr != NULL) {
    size_t mark = path_push_key(L, "constraints");
    if (!read_array(L, arr, "an array of constraint groups")) return false;
    int32_t i = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
      size_t m2 = path_push_index(L, i);
      if (!parse_group(L, c, index, s->particle_count)) return false;
      path_pop(L, m2);
    }
    path_pop(L, mark);
  }
  s->group_count = L->group_count - s->first_group;
  return true;
}

static bool parse_soft(loader *L, const cJSON *obj, int32_t index) {
  if (!read_object(L, obj, "a soft body object")) return false;
  soft_ir *s = L->softs + index;
  memset(s, 0, sizeof *s);
  s->node = obj;
  const char *kind = NULL;
  SN_REQ(L, obj, "kind", soft_kinds, read_string(L, n_, soft_kinds, &kind));
  static const char *const names[] = {"rope", "cloth", "ring", "lattice", "custom"};
  static const char *const *const keys[] = {rope_keys, cloth_keys, ring_keys, lattice_keys, custom_keys};
  int32_t k = 0;
  while (k < 5 && strcmp(names[k], kind) != 0) ++k;
  if (k == 5) {
    size_t mark = path_push_key(L, "kind");
    fail(L, SN_SCENE_ERR_RANGE, SN_OK, member(obj, "kind"), false, "expected %s, got \"%.40s\"", soft_kinds, kind);
    path_pop(L, mark);
    return false;
  }
  s->kind = (soft_kind)k;
  s->kind_name = names[k];
  char what[64];
  snprintf(what, sizeof what, "a %s soft body", kind);
  if (!check_keys(L, obj, keys[k], what)) return false;
  s->name_node = member(obj, "name");
  SN_OPT(L, obj, "name", read_name(L, n_, &s->name));

  sn_soft_body_def *b = &s->body;
  *b = format_soft_body();
  SN_OPT(L, obj, "friction", read_float(L, n_, NON_NEGATIVE, &b->friction));
  SN_OPT(L, obj, "restitution", read_float(L, n_, UNIT, &b->restitution));
  SN_OPT(L, obj, "linear_damping", read_float(L, n_, NON_NEGATIVE, &b->damping));
  SN_OPT(L, obj, "rigid_damping", read_float(L, n_, UNIT, &b->rigid_damping));
  SN_OPT(L, obj, "collide_rigid", read_bool(L, n_, &b->collide_rigid));
  SN_OPT(L, obj, "collide_soft", read_bool(L, n_, &b->collide_soft));
  SN_OPT(L, obj, "self_collision", read_bool(L, n_, &b->self_collision));

  sn_soft_material *m = &s->material;
  *m = format_material(s->kind);
  format_builder_defaults(s);
  if (s->kind != SOFT_CUSTOM) {
    SN_OPT(L, obj, "compliance", read_float(L, n_, COMPLIANCE, &m->compliance));
    SN_OPT(L, obj, "damping", read_float(L, n_, XPBD_DAMPING, &m->damping));
    SN_OPT(L, obj, "shear_compliance", read_float(L, n_, OPTIONAL_COMPLIANCE, &m->shear_compliance));
    SN_OPT(L, obj, "bend_compliance", read_float(L, n_, OPTIONAL_COMPLIANCE, &m->bend_compliance));
    SN_OPT(L, obj, "tear_force", read_float(L, n_, NON_NEGATIVE, &m->tear_force));
  }
  switch (s->kind) {
  case SOFT_ROPE: {
    sn_rope_def *d = &s->rope;
    SN_OPT(L, obj, "start", read_vec2(L, n_, &d->start));
    SN_OPT(L, obj, "end", read_vec2(L, n_, &d->end));
    SN_OPT(L, obj, "count", read_int(L, n_, 2, SOFT_MAX_PARTICLES, &d->count));
    SN_OPT(L, obj, "mass", read_float(L, n_, POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", read_float(L, n_, NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "pin_start", read_bool(L, n_, &d->pin_start));
    SN_OPT(L, obj, "pin_end", read_bool(L, n_, &d->pin_end));
    SN_OPT(L, obj, "tethers", read_bool(L, n_, &d->tethers));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->count;
    break;
  }
  case SOFT_CLOTH: {
    sn_cloth_def *d = &s->cloth;
    SN_OPT(L, obj, "top_left", read_vec2(L, n_, &d->top_left));
    if (!read_grid(L, obj, &d->columns, &d->rows)) return false;
    SN_OPT(L, obj, "spacing", read_float(L, n_, POSITIVE, &d->spacing));
    SN_OPT(L, obj, "mass", read_float(L, n_, POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", read_float(L, n_, NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "pins", read_pins(L, n_, &d->pins));
    SN_OPT(L, obj, "tethers", read_bool(L, n_, &d->tethers));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->columns * d->rows;
    break;
  }
  case SOFT_RING: {
    sn_ring_def *d = &s->ring;
    SN_OPT(L, obj, "center", read_vec2(L, n_, &d->center));
    SN_OPT(L, obj, "radius", read_float(L, n_, POSITIVE, &d->radius));
    SN_OPT(L, obj, "count", read_int(L, n_, 3, SN_MAX_CONSTRAINT_PARTICLES, &d->count));
    SN_OPT(L, obj, "mass", read_float(L, n_, POSITIVE, &d->mass));
    SN_OPT(L, obj, "particle_radius", read_float(L, n_, NON_NEGATIVE, &d->particle_radius));
    SN_OPT(L, obj, "pressure", read_float(L, n_, PRESSURE, &d->pressure));
    SN_OPT(L, obj, "area_compliance", read_float(L, n_, COMPLIANCE, &d->area_compliance));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->count;
    break;
  }
  case SOFT_LATTICE: {
    sn_lattice_def *d = &s->lattice;
    SN_OPT(L, obj, "center", read_vec2(L, n_, &d->center));
    if (!read_grid(L, obj, &d->columns, &d->rows)) return false;
    SN_OPT(L, obj, "spacing", read_float(L, n_, POSITIVE, &d->spacing));
    SN_OPT(L, obj, "mass", read_float(L, n_, POSITIVE, &d->mass));
    SN_OPT(L, obj, "radius", read_float(L, n_, NON_NEGATIVE, &d->radius));
    SN_OPT(L, obj, "area_compliance", read_float(L, n_, OPTIONAL_COMPLIANCE, &d->area_compliance));
    d->body = *b;
    d->material = *m;
    s->particle_count = d->columns * d->rows;
    break;
  }
  case SOFT_CUSTOM:
    if (!parse_custom(L, obj, s, index)) return false;
    break;
  }
  L->particle_total += s->particle_count;
  if (L->particle_total > L->world_def.max_particles)
    return fail(L, SN_SCENE_ERR_ENGINE, SN_ERR_CAPACITY, obj, false,
                "the soft bodies up to this one have %lld particles; expected at most %d, the world's max_particles "
                "limit (sn_scene_load_options.limits)",
                (long long)L->particle_total, (int)L->world_def.max_particles);
  if (s->name != NULL) {
    size_t mark = path_push_key(L, "name");
    bool ok = add_body_name(L, s->name_node, s->name, L->body_count + index);
    path_pop(L, mark);
    if (!ok) return false;
  }
  return true;
}

/// Constraint types a builder entry needs (the builders' own rule).
static int32_t soft_needs(const soft_ir *s, const char **types) {
  int32_t n = 0;
  const sn_soft_material *m = &s->material;
  const bool bend = m->bend_compliance >= 0.0f;
  switch (s->kind) {
  case SOFT_ROPE:
    types[n++] = "xpbd_distance";
    if (bend && s->rope.count >= 3) types[n++] = "xpbd_bend";
    if (s->rope.tethers && (s->rope.pin_start || s->rope.pin_end) && m->compliance == 0.0f) types[n++] = "xpbd_tether";
    break;
  case SOFT_CLOTH:
    types[n++] = "xpbd_distance";
    if (bend) types[n++] = "xpbd_bend";
    if (s->cloth.tethers && s->cloth.pins != 0u) types[n++] = "xpbd_tether";
    break;
  case SOFT_RING:
    types[n++] = "xpbd_distance";
    types[n++] = "xpbd_area";
    if (bend) types[n++] = "xpbd_bend";
    break;
  case SOFT_LATTICE:
    types[n++] = "xpbd_distance";
    if (s->lattice.area_compliance >= 0.0f) types[n++] = "xpbd_area";
    if (bend) types[n++] = "xpbd_bend";
    break;
  case SOFT_CUSTOM:
    break;
  }
  return n;
}

static void free_softs(loader *L) {
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

static bool add_param(loader *L, const cJSON *node, bool top_level) {
  if (L->param_count == L->param_capacity) {
    int32_t cap = L->param_capacity ? 2 * L->param_capacity : 64;
    param_ir *p = realloc(L->params, (size_t)cap * sizeof *p);
    if (p == NULL) return out_of_memory(L);
    L->params = p;
    L->param_capacity = cap;
  }
  L->params[L->param_count++] = (param_ir){node, top_level};
  return true;
}

/* Keys (the unknown ones are parameters), type, name, break_force and
 * collide_connected of a constraint entry or group. */
static bool parse_constraint_head(loader *L, const cJSON *obj, constraint_ir *k, const char *const *keys) {
  k->node = obj;
  k->first_param = L->param_count;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!check_duplicate_key(L, obj, c)) return false;
    if (!in_list(c->string, keys) && !add_param(L, c, true)) return false;
  }
  k->type_node = member(obj, "type");
  SN_REQ(L, obj, "type", "a constraint type name such as \"revolute\"",
         read_string(L, n_, "a constraint type name such as \"revolute\"", &k->type));
  k->name_node = member(obj, "name");
  SN_OPT(L, obj, "name", read_name(L, n_, &k->name));
  SN_OPT(L, obj, "break_force", read_float(L, n_, NON_NEGATIVE, &k->break_force));
  if (in_list("collide_connected", keys)) SN_OPT(L, obj, "collide_connected", read_bool(L, n_, &k->collide_connected));
  return true;
}

static const cJSON *constraint_name_node(const loader *L, int32_t slot) {
  return slot < L->constraint_count ? L->constraints[slot].name_node : L->groups[slot - L->constraint_count].name_node;
}

/* "params" and the name (slot in the constraint namespace). */
static bool parse_constraint_tail(loader *L, const cJSON *obj, constraint_ir *k, int32_t slot) {
  const cJSON *params = member(obj, "params");
  if (params != NULL) {
    size_t mark = path_push_key(L, "params");
    if (!read_object(L, params, "an object of parameter values")) return false;
    for (const cJSON *c = params->child; c != NULL; c = c->next) {
      if (!check_duplicate_key(L, params, c)) return false;
      if (!add_param(L, c, false)) return false;
    }
    path_pop(L, mark);
  }
  k->param_count = L->param_count - k->first_param;
  if (k->name != NULL) {
    sn_name_id other;
    sn_scene_status st = sn_name_space_set(&L->constraint_names, (sn_name_id){slot + 1, 0, 0}, k->name, &other);
    if (st == SN_SCENE_ERR_OUT_OF_MEMORY) return out_of_memory(L);
    if (st == SN_SCENE_ERR_DUPLICATE_NAME) {
      int32_t line, column;
      sn_json_line_column(L->text, L->length, node_offset(L, constraint_name_node(L, other.index1 - 1), false), &line,
                          &column);
      size_t mark = path_push_key(L, "name");
      fail(L, SN_SCENE_ERR_DUPLICATE_NAME, SN_OK, k->name_node, false,
           "duplicate constraint name \"%s\" (first used at %d:%d); expected every constraint to have its own name",
           k->name, (int)line, (int)column);
      path_pop(L, mark);
      return false;
    }
  }
  return true;
}

/// "particles": [["jelly", 3], ...] of a constraint entry.
static bool parse_particle_refs(loader *L, constraint_ir *k) {
  const char *expected = "an array of particle references such as [[\"rope\", 0]]";
  const cJSON *arr = k->particles_node;
  size_t mark = path_push_key(L, "particles");
  if (!read_array(L, arr, expected)) return false;
  int32_t n = cJSON_GetArraySize(arr);
  if (n < 1 || n > SN_MAX_CONSTRAINT_PARTICLES)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, arr, false, "expected 1 to %d particle references, got %d",
                SN_MAX_CONSTRAINT_PARTICLES, (int)n);
  k->refs = malloc((size_t)n * 2 * sizeof *k->refs);
  if (k->refs == NULL) return out_of_memory(L);
  int32_t i = 0;
  char got[96];
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2)
      return fail(L, cJSON_IsArray(c) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, c, false,
                  "expected a particle reference [\"soft body name\", index], got %s",
                  cJSON_IsArray(c) ? "an array of another length" : describe(L, c, got, sizeof got));
    const cJSON *name_node = c->child, *index_node = c->child->next;
    size_t m3 = path_push_index(L, 0);
    const char *name = NULL;
    if (!read_string(L, name_node, "a soft body name (a string)", &name)) return false;
    sn_name_id id;
    if (!sn_name_space_find(&L->body_names, name, &id))
      return fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, name_node, false,
                  "no soft body named \"%.60s\"; expected the name of a soft body in \"particles\"", name);
    if (id.index1 - 1 < L->body_count)
      return fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, name_node, false,
                  "\"%.60s\" is a rigid body; expected the name of a soft body in \"particles\" (rigid bodies go in "
                  "\"bodies\")",
                  name);
    path_pop(L, m3);
    int32_t soft = id.index1 - 1 - L->body_count;
    m3 = path_push_index(L, 1);
    if (!read_index(L, index_node, L->softs[soft].particle_count, k->refs + 2 * i + 1)) return false;
    path_pop(L, m3);
    k->refs[2 * i] = soft;
    path_pop(L, m2);
  }
  k->particle_count = n;
  path_pop(L, mark);
  return true;
}

static bool parse_constraint(loader *L, const cJSON *obj, int32_t index) {
  if (!read_object(L, obj, "a constraint object")) return false;
  constraint_ir *k = L->constraints + index;
  memset(k, 0, sizeof *k);
  k->soft = -1;
  if (!parse_constraint_head(L, obj, k, constraint_keys)) return false;
  const char *expected_bodies = "an array of 1 or 2 body names";
  k->bodies_node = member(obj, "bodies");
  k->particles_node = member(obj, "particles");
  if (k->bodies_node == NULL && k->particles_node == NULL) return missing(L, obj, "bodies", expected_bodies);
  if (k->bodies_node != NULL) {
    size_t mark = path_push_key(L, "bodies");
    if (!read_array(L, k->bodies_node, expected_bodies)) return false;
    int32_t n = cJSON_GetArraySize(k->bodies_node);
    if (n > SN_MAX_CONSTRAINT_BODIES || (n < 1 && k->particles_node == NULL))
      return fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->bodies_node, false, "expected %s, got %d", expected_bodies, (int)n);
    int32_t i = 0;
    for (const cJSON *c = k->bodies_node->child; c != NULL; c = c->next, ++i) {
      size_t m2 = path_push_index(L, i);
      const char *name = NULL;
      if (!read_string(L, c, "a body name (a string)", &name)) return false;
      sn_name_id id;
      if (!sn_name_space_find(&L->body_names, name, &id))
        return fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, c, false,
                    "no body named \"%.60s\"; expected the name of a body in \"bodies\"", name);
      if (id.index1 - 1 >= L->body_count)
        return fail(L, SN_SCENE_ERR_DANGLING_REFERENCE, SN_OK, c, false,
                    "\"%.60s\" is a soft body; expected the name of a rigid body in \"bodies\" (particles go in "
                    "\"particles\")",
                    name);
      if (i == 1 && id.index1 - 1 == k->bodies[0])
        return fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
                    "a constraint cannot join body \"%.60s\" to itself; expected two different bodies", name);
      k->bodies[i] = id.index1 - 1;
      k->body_nodes[i] = c;
      path_pop(L, m2);
    }
    k->body_count = n;
    path_pop(L, mark);
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

static bool read_param(loader *L, const sn_constraint_type *t, const sn_param_desc *p, const cJSON *n,
                       sn_param_value *out) {
  out->name = p->name;
  out->x = out->y = 0.0;
  range r = {p->min, p->max, false};
  char got[96];
  switch (p->kind) {
  case SN_PARAM_FLOAT: {
    float f;
    if (!read_float(L, n, r, &f)) return false;
    out->x = f;
    return true;
  }
  case SN_PARAM_INT: {
    double v;
    if (!check_number(L, n, r, true, &v)) return false;
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
    return fail(L, cJSON_IsNumber(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
                "%s.%s: expected true or false, got %s", t->name, p->name, describe(L, n, got, sizeof got));
  case SN_PARAM_VEC2: {
    sn_vec2 v;
    if (!read_vec2_in(L, n, r, &v)) return false;
    out->x = v.x;
    out->y = v.y;
    return true;
  }
  default:
    return fail(L, SN_SCENE_ERR_UNSUPPORTED, SN_OK, n, false, "%s.%s has an unknown kind", t->name, p->name);
  }
}

/// The number of particles a type joins against what an entry gives.
static bool check_particle_count(loader *L, const sn_constraint_type *t, const cJSON *node, int32_t got) {
  uint32_t want = t->particle_count;
  if (want == SN_ANY_PARTICLES) {
    if (got >= 1 && got <= SN_MAX_CONSTRAINT_PARTICLES) return true;
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false, "expected 1 to %d particles for a %s, got %d",
                SN_MAX_CONSTRAINT_PARTICLES, t->name, (int)got);
  }
  if (want == 0)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false,
                "a %s joins rigid bodies only; expected no \"particles\" for it", t->name);
  if ((uint32_t)got == want) return true;
  return fail(L, SN_SCENE_ERR_RANGE, SN_OK, node, false, "expected %u particle%s for a %s, got %d", want,
              want == 1 ? "" : "s", t->name, (int)got);
}

/// The type exists, joins what the entry (or group) gives, and every
/// parameter is in its schema and range.
static bool check_constraint_params(loader *L, const sn_registry *reg, constraint_ir *k) {
  const sn_constraint_type *t = sn_registry_find_type(reg, k->type);
  size_t mark = path_push_key(L, "type");
  if (t == NULL) {
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    for (int32_t i = 0; i < sn_registry_get_type_count(reg) && n < sizeof list; ++i) {
      int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", sn_registry_get_type(reg, i)->name);
      if (w < 0) break;
      n += (size_t)w;
    }
    return fail(L, SN_SCENE_ERR_UNKNOWN_TYPE, SN_OK, k->type_node, false,
                "no constraint type \"%.60s\" in the registry (it has: %s); expected a type of a plugin listed in "
                "\"plugins\"",
                k->type, n ? list : "no types");
  }
  if (k->soft >= 0 && t->body_count != 0)
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->type_node, false,
                "a %s joins %u rigid bod%s; expected a type that joins particles only (constraints with rigid bodies "
                "go in the top-level \"constraints\", with \"particles\" references)",
                t->name, t->body_count, t->body_count == 1 ? "y" : "ies");
  path_pop(L, mark);
  if (k->soft < 0 && (uint32_t)k->body_count != t->body_count) {
    if (k->bodies_node == NULL) {
      char expected[64];
      snprintf(expected, sizeof expected, "%u body name%s for a %s", t->body_count, t->body_count == 1 ? "" : "s",
               t->name);
      return missing(L, k->node, "bodies", expected);
    }
    mark = path_push_key(L, "bodies");
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, k->bodies_node, false, "expected %u body name%s for a %s, got %d",
                t->body_count, t->body_count == 1 ? "" : "s", t->name, (int)k->body_count);
  }
  if (k->soft < 0 && k->particles_node == NULL && t->particle_count != 0) {
    char expected[96];
    snprintf(expected, sizeof expected, "the particles a %s joins, as [[\"soft body\", index], ...]", t->name);
    return missing(L, k->node, "particles", expected);
  }
  if (k->particles_node != NULL) {
    mark = path_push_key(L, "particles");
    if (k->soft < 0) {
      if (!check_particle_count(L, t, k->particles_node, k->particle_count)) return false;
    } else {
      for (int32_t j = 0; j < k->tuple_count; ++j) {
        size_t m2 = path_push_index(L, j);
        if (!check_particle_count(L, t, k->tuple_nodes[j], k->start[j + 1] - k->start[j])) return false;
        path_pop(L, m2);
      }
    }
    path_pop(L, mark);
  }
  k->values = L->values + k->first_param;
  for (int32_t i = 0; i < k->param_count; ++i) {
    const param_ir *p = L->params + k->first_param + i;
    const char *name = p->node->string;
    const sn_param_desc *d = NULL;
    for (uint32_t j = 0; j < t->param_count; ++j) {
      if (strcmp(t->params[j].name, name) == 0) d = t->params + j;
    }
    size_t m1 = p->top_level ? L->path_len : path_push_key(L, "params");
    if (d == NULL) {
      char list[512];
      schema_names(t, list, sizeof list);
      if (p->top_level)
        return fail_key(L, SN_SCENE_ERR_UNKNOWN_PARAM, p->node,
                        "unknown key \"%s\"; expected a constraint key (%s) or a parameter of %s (%s)", name,
                        k->soft < 0 ? "type, bodies, particles, params, break_force, collide_connected, name"
                                    : "type, particles, params, break_force, name",
                        t->name, list);
      return fail_key(L, SN_SCENE_ERR_UNKNOWN_PARAM, p->node, "%s has no parameter \"%s\"; expected one of: %s",
                      t->name, name, list);
    }
    for (int32_t j = 0; j < i; ++j) {
      const param_ir *q = L->params + k->first_param + j;
      if (strcmp(q->node->string, name) == 0) {
        int32_t line, column;
        sn_json_line_column(L->text, L->length, node_offset(L, q->node, true), &line, &column);
        return fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, p->node,
                        "parameter \"%s\" is given twice (first at %d:%d); expected it once, either beside \"type\" or "
                        "in \"params\"",
                        name, (int)line, (int)column);
      }
    }
    size_t m2 = path_push_key(L, name);
    bool ok = read_param(L, t, d, p->node, k->values + i);
    path_pop(L, m2);
    path_pop(L, m1);
    if (!ok) return false;
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Plugins                                                                   */

static bool parse_plugin_names(loader *L, const cJSON *arr) {
  size_t mark = path_push_key(L, "plugins");
  if (!read_array(L, arr, "an array of plugin names such as [\"revolute\"]")) return false;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    const char *name = NULL;
    if (!read_string(L, c, "a plugin name (a string)", &name)) return false;
    if (!sn_scene_plugin_name_ok(name))
      return fail(L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, c, false,
                  "invalid plugin name \"%.60s\"; expected a file name without \".so\" (letters, digits, '.', '_', "
                  "'-', not starting with '.')",
                  name);
    path_pop(L, m2);
  }
  path_pop(L, mark);
  return true;
}

static bool load_plugins(loader *L, sn_registry *reg) {
  if (L->plugins_node == NULL) return true;
  size_t mark = path_push_key(L, "plugins");
  int32_t i = 0;
  for (const cJSON *c = L->plugins_node->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    const char *name = c->valuestring;
    if (!sn_scene_registry_has_plugin(reg, name)) {
      sn_scene_plugin_attempt a;
      sn_result r = sn_scene_add_plugin(L->opt, reg, name, &a);
      if (r == SN_ERR_NOT_FOUND)
        return fail(L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, c, false, "plugin \"%s\" not found; expected %s", name,
                    a.missing);
      if (r != SN_OK)
        return fail(L, SN_SCENE_ERR_PLUGIN_LOAD, r, c, false,
                    "plugin \"%s\" (%s) failed to load: %s: %s; expected a Sinew constraint plugin (docs/plugins.md)",
                    name, a.where, sn_result_name(r), a.msg);
    }
    path_pop(L, m2);
  }
  path_pop(L, mark);
  return true;
}

/* The constraint types the builder entries need, loaded implicitly: the
 * plugin of the same name (xpbd_area.so for xpbd_area) from the search path,
 * unless the registry has it already. */
static bool load_soft_plugins(loader *L, sn_registry *reg) {
  for (int32_t i = 0; i < L->soft_count; ++i) {
    const soft_ir *s = L->softs + i;
    const char *types[4];
    int32_t n = soft_needs(s, types);
    for (int32_t j = 0; j < n; ++j) {
      if (sn_scene_registry_has_plugin(reg, types[j])) continue;
      size_t mark = path_push_key(L, "soft_bodies");
      size_t m2 = path_push_index(L, i);
      sn_scene_plugin_attempt a;
      sn_result r = sn_scene_add_plugin(L->opt, reg, types[j], &a);
      if (r == SN_ERR_NOT_FOUND)
        return fail(L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, s->node, false,
                    "a %s needs the constraint type \"%s\", which no listed plugin provides, and plugin \"%s\" is "
                    "not found; expected %s",
                    s->kind_name, types[j], types[j], a.missing);
      if (r != SN_OK)
        return fail(L, SN_SCENE_ERR_PLUGIN_LOAD, r, s->node, false,
                    "a %s needs the constraint type \"%s\"; plugin %s failed to load: %s: %s; expected a Sinew "
                    "constraint plugin (docs/plugins.md)",
                    s->kind_name, types[j], a.where, sn_result_name(r), a.msg);
      path_pop(L, m2);
      path_pop(L, mark);
    }
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Document                                                                  */

static bool parse_array_of(loader *L, const cJSON *root, const char *key, const char *expected,
                           bool (*each)(loader *, const cJSON *, int32_t)) {
  const cJSON *arr = member(root, key);
  if (arr == NULL) return true;
  size_t mark = path_push_key(L, key);
  if (!read_array(L, arr, expected)) return false;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = path_push_index(L, i);
    if (!each(L, c, i)) return false;
    path_pop(L, m2);
  }
  path_pop(L, mark);
  return true;
}

static int32_t array_size(const cJSON *root, const char *key) {
  const cJSON *a = member(root, key);
  return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
}

static bool allocate(loader *L, const cJSON *root) {
  int32_t bodies = array_size(root, "bodies"), shapes = 0;
  const cJSON *arr = member(root, "bodies");
  for (const cJSON *b = cJSON_IsArray(arr) ? arr->child : NULL; b != NULL; b = b->next) {
    const cJSON *s = cJSON_IsObject(b) ? member(b, "shapes") : NULL;
    if (cJSON_IsArray(s)) shapes += cJSON_GetArraySize(s);
  }
  int32_t softs = array_size(root, "soft_bodies"), constraints = array_size(root, "constraints");
  /* the world's limits, before anything is allocated for the entries */
  const struct {
    const char *key, *what, *limit;
    int64_t count;
    int32_t max;
  } counts[] = {{"bodies", "bodies", "max_bodies", bodies, L->world_def.max_bodies},
                {"bodies", "shapes", "max_shapes", shapes, L->world_def.max_shapes},
                {"soft_bodies", "soft bodies", "max_soft_bodies", softs, L->world_def.max_soft_bodies},
                {"constraints", "constraints", "max_constraints", constraints, L->world_def.max_constraints}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
    if (counts[i].count <= counts[i].max) continue;
    size_t mark = path_push_key(L, counts[i].key);
    fail(L, SN_SCENE_ERR_ENGINE, SN_ERR_CAPACITY, member(root, counts[i].key), false,
         "%lld %s; expected at most %d, the world's %s limit (sn_scene_load_options.limits)",
         (long long)counts[i].count, counts[i].what, (int)counts[i].max, counts[i].limit);
    path_pop(L, mark);
    return false;
  }
  L->bodies = calloc((size_t)bodies + 1, sizeof *L->bodies);
  L->shapes = calloc((size_t)shapes + 1, sizeof *L->shapes);
  L->softs = calloc((size_t)softs + 1, sizeof *L->softs);
  L->constraints = calloc((size_t)constraints + 1, sizeof *L->constraints);
  if (!L->bodies || !L->shapes || !L->softs || !L->constraints) return out_of_memory(L);
  L->body_count = bodies; /* names of soft bodies use slots after the bodies */
  L->soft_count = softs;
  L->constraint_count = constraints;
  return true;
}

static bool parse_document(loader *L, const cJSON *root) {
  /* the settings with a key at the top level (gravity) come after the description */
  static const char *const fixed[] = {"settings", "plugins", "bodies", "soft_bodies", "constraints"};
  const char *keys[2 + SN_WORLD_SETTING_COUNT + sizeof fixed / sizeof fixed[0] + 1] = {"sinew_scene", "description"};
  size_t n = 2;
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if (info->flags & SN_SETTING_TOP_LEVEL) keys[n++] = info->key;
  }
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) keys[n++] = fixed[i];
  keys[n] = NULL;
  char got[96];
  if (!cJSON_IsObject(root))
    return fail(L, SN_SCENE_ERR_TYPE, SN_OK, root, false, "expected a JSON object at the top level, got %s",
                describe(L, root, got, sizeof got));
  const cJSON *version = member(root, "sinew_scene");
  if (version == NULL)
    return fail(L, SN_SCENE_ERR_VERSION, SN_OK, root, false,
                "missing required key \"sinew_scene\" (the format version); expected \"sinew_scene\": %d",
                SN_SCENE_FORMAT_VERSION);
  if (!cJSON_IsNumber(version) || version->valuedouble != SN_SCENE_FORMAT_VERSION) {
    size_t mark = path_push_key(L, "sinew_scene");
    fail(L, SN_SCENE_ERR_VERSION, SN_OK, version, false,
         "unsupported scene format version %s; expected %d (the version this library reads)",
         describe(L, version, got, sizeof got), SN_SCENE_FORMAT_VERSION);
    path_pop(L, mark);
    return false;
  }
  if (!check_keys(L, root, keys, "a scene")) return false;
  const char *description;
  SN_OPT(L, root, "description", read_string(L, n_, "a string", &description));
  if (!read_settings(L, root, true)) return false;
  L->settings_node = member(root, "settings");
  SN_OPT(L, root, "settings", parse_settings(L, n_));
  L->plugins_node = member(root, "plugins");
  if (L->plugins_node != NULL && !parse_plugin_names(L, L->plugins_node)) return false;
  if (!allocate(L, root)) return false;
  if (!parse_array_of(L, root, "bodies", "an array of body objects", parse_body)) return false;
  if (!parse_array_of(L, root, "soft_bodies", "an array of soft body objects", parse_soft)) return false;
  if (!parse_array_of(L, root, "constraints", "an array of constraint objects", parse_constraint)) return false;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                  */

/// Engine result code named at the start of a last-error message.
static sn_result engine_code(const char *msg) {
  for (int r = 1; r < 64; ++r) {
    const char *name = sn_result_name((sn_result)r);
    size_t n = strlen(name);
    if (strncmp(msg, name, n) == 0 && msg[n] == ':') return (sn_result)r;
  }
  return SN_ERR_INVALID_ARGUMENT;
}

static bool engine_refused(loader *L, sn_world *w, const cJSON *node, const char *what) {
  const char *msg = sn_world_last_error(w);
  sn_result r = engine_code(msg);
  sn_scene_status st = r == SN_ERR_DEGENERATE_POLYGON || r == SN_ERR_NON_CONVEX_POLYGON || r == SN_ERR_WRONG_BODY_TYPE
                           ? SN_SCENE_ERR_GEOMETRY
                           : SN_SCENE_ERR_ENGINE;
  if (r == SN_ERR_OUT_OF_MEMORY) st = SN_SCENE_ERR_OUT_OF_MEMORY;
  return fail(L, st, r, node, false, "the engine refused this %s: %s; expected %s", what, msg,
              st == SN_SCENE_ERR_GEOMETRY ? geometry_expected(r) : "values the engine and the plugin accept");
}

static bool build_bodies(loader *L, sn_world *w, sn_scene_names *names, sn_body_id *ids);
static bool build_constraint(loader *L, sn_world *w, sn_scene_names *names, const sn_body_id *ids, int32_t i);
static bool build_soft_body(loader *L, sn_world *w, sn_scene_names *names, soft_ir *s);

static bool build(loader *L, sn_registry *reg, sn_loaded_scene *out) {
  sn_world_def wd = L->world_def;
  sn_world_settings_to_def(&L->settings, &wd);
  wd.registry = reg;
  wd.allocator = L->opt->allocator;
  sn_result r;
  sn_world *w = sn_create_world(&wd, &r);
  if (w == NULL)
    return fail(L, r == SN_ERR_OUT_OF_MEMORY ? SN_SCENE_ERR_OUT_OF_MEMORY : SN_SCENE_ERR_ENGINE, r, L->settings_node,
                false, "the engine refused the world settings: %s (%s)", sn_result_name(r), sn_result_message(r));
  out->world = w;
  if (sn_world_settings_apply_outside_def(w, &L->settings) != SN_OK)
    return engine_refused(L, w, L->settings_node, "setting");
  sn_scene_names *names = out->names;
  sn_body_id *ids = malloc(((size_t)L->body_count + 1) * sizeof *ids);
  if (ids == NULL) return out_of_memory(L);
  int64_t particles = 0;
  for (int32_t i = 0; i < L->soft_count; ++i) {
    L->softs[i].first_particle = (int32_t)particles;
    particles += L->softs[i].particle_count;
  }
  if (particles > INT32_MAX) {
    free(ids);
    return fail(L, SN_SCENE_ERR_RANGE, SN_OK, L->softs[L->soft_count - 1].node, false,
                "the soft bodies have %lld particles in all; expected at most %d", (long long)particles, INT32_MAX);
  }
  L->particle_ids = malloc(((size_t)particles + 1) * sizeof *L->particle_ids);
  if (L->particle_ids == NULL) {
    free(ids);
    return out_of_memory(L);
  }
  bool ok = build_bodies(L, w, names, ids);
  for (int32_t i = 0; ok && i < L->soft_count; ++i) {
    size_t mark = path_push_key(L, "soft_bodies");
    size_t m2 = path_push_index(L, i);
    ok = build_soft_body(L, w, names, L->softs + i);
    path_pop(L, m2);
    path_pop(L, mark);
  }
  for (int32_t i = 0; ok && i < L->constraint_count; ++i) {
    size_t mark = path_push_key(L, "constraints");
    size_t m2 = path_push_index(L, i);
    ok = build_constraint(L, w, names, ids, i);
    path_pop(L, m2);
    path_pop(L, mark);
  }
  free(ids);
  return ok;
}

static bool build_bodies(loader *L, sn_world *w, sn_scene_names *names, sn_body_id *ids) {
  /* bodies, each followed by its shapes: the order a program building the
   * world body by body would use, so ids and broadphase match it */
  for (int32_t i = 0; i < L->body_count; ++i) {
    const body_ir *b = L->bodies + i;
    size_t mark = path_push_key(L, "bodies");
    size_t m2 = path_push_index(L, i);
    sn_body_id id = sn_create_body(w, &b->def);
    if (id.index1 == 0) return engine_refused(L, w, b->node, "body");
    ids[i] = id;
    if (b->name != NULL && sn_scene_names_set_body(names, id, b->name) != SN_SCENE_OK) return out_of_memory(L);
    for (int32_t j = 0; j < b->shape_count; ++j) {
      const shape_ir *s = L->shapes + b->first_shape + j;
      size_t m3 = path_push_key(L, "shapes");
      size_t m4 = path_push_index(L, j);
      sn_shape_id sid = SN_NULL_SHAPE;
      switch (s->type) {
      case SN_SHAPE_CIRCLE:
        sid = sn_create_circle_shape(w, id, &s->def, &s->circle);
        break;
      case SN_SHAPE_CAPSULE:
        sid = sn_create_capsule_shape(w, id, &s->def, &s->capsule);
        break;
      case SN_SHAPE_SEGMENT:
        sid = sn_create_segment_shape(w, id, &s->def, &s->segment);
        break;
      case SN_SHAPE_POLYGON:
        sid = sn_create_polygon_shape(w, id, &s->def, &s->polygon);
        break;
      default:
        break;
      }
      if (sid.index1 == 0) return engine_refused(L, w, s->geometry, "shape");
      path_pop(L, m4);
      path_pop(L, m3);
    }
    /* "velocity" is the centre of mass's: each shape that moves the centre
     * of mass changes it by w x shift, so it is set again after the shapes */
    sn_vec2 v = sn_body_get_linear_velocity(w, id);
    if (b->def.type != SN_BODY_STATIC && memcmp(&v, &b->def.linear_velocity, sizeof v) != 0 &&
        sn_body_set_linear_velocity(w, id, b->def.linear_velocity) != SN_OK)
      return engine_refused(L, w, b->node, "velocity");
    path_pop(L, m2);
    path_pop(L, mark);
  }
  return true;
}

/* A constraint of a group (its tuple t) or an entry (t < 0) over particles. */
static sn_constraint_id create_constraint(loader *L, sn_world *w, const constraint_ir *k, const sn_body_id *ids,
                                          int32_t t, sn_particle_id *scratch) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = k->type;
  for (int32_t j = 0; j < k->body_count; ++j) cd.bodies[j] = ids[k->bodies[j]];
  if (t >= 0) {
    const soft_ir *s = L->softs + k->soft;
    int32_t n = k->start[t + 1] - k->start[t];
    for (int32_t j = 0; j < n; ++j) scratch[j] = L->particle_ids[s->first_particle + k->indices[k->start[t] + j]];
    cd.particles = scratch;
    cd.particle_count = n;
  } else if (k->particle_count > 0) {
    for (int32_t j = 0; j < k->particle_count; ++j)
      scratch[j] = L->particle_ids[L->softs[k->refs[2 * j]].first_particle + k->refs[2 * j + 1]];
    cd.particles = scratch;
    cd.particle_count = k->particle_count;
  }
  cd.params = k->values;
  cd.param_count = k->param_count;
  cd.break_force = k->break_force;
  cd.collide_connected = k->collide_connected;
  return sn_create_constraint(w, &cd);
}

static bool build_custom(loader *L, sn_world *w, sn_scene_names *names, const soft_ir *s, sn_soft_body_id id) {
  sn_particle_id *pid = L->particle_ids + s->first_particle;
  for (int32_t i = 0; i < s->particle_count; ++i) {
    pid[i] = sn_create_particle(w, id, s->particles + i);
    if (pid[i].index1 == 0) { /* the path is left as is: the load ends here */
      path_push_key(L, "particles");
      path_push_index(L, i);
      return engine_refused(L, w, s->particle_nodes[i], "particle");
    }
  }
  for (int32_t i = 0; i < s->edge_count; ++i) {
    if (sn_soft_body_add_edge(w, id, pid[s->edges[2 * i]], pid[s->edges[2 * i + 1]]) != SN_OK) {
      path_push_key(L, "edges");
      path_push_index(L, i);
      return engine_refused(L, w, s->edge_nodes[i], "edge");
    }
  }
  sn_particle_id *scratch = malloc(SN_MAX_CONSTRAINT_PARTICLES * sizeof *scratch);
  if (scratch == NULL) return out_of_memory(L);
  for (int32_t g = 0; g < s->group_count; ++g) {
    const constraint_ir *k = L->groups + s->first_group + g;
    for (int32_t t = 0; t < k->tuple_count; ++t) {
      sn_constraint_id cid = create_constraint(L, w, k, NULL, t, scratch);
      if (cid.index1 == 0) {
        free(scratch);
        path_push_key(L, "constraints");
        path_push_index(L, g);
        path_push_key(L, "particles");
        path_push_index(L, t);
        return engine_refused(L, w, k->tuple_nodes[t], "constraint");
      }
      if (k->name != NULL && sn_scene_names_set_constraint(names, cid, k->name) != SN_SCENE_OK) {
        free(scratch);
        return out_of_memory(L);
      }
    }
  }
  free(scratch);
  return true;
}

static bool build_soft_body(loader *L, sn_world *w, sn_scene_names *names, soft_ir *s) {
  sn_soft_body_id id = SN_NULL_SOFT_BODY;
  switch (s->kind) {
  case SOFT_ROPE:
    id = sn_create_rope(w, &s->rope);
    break;
  case SOFT_CLOTH:
    id = sn_create_cloth(w, &s->cloth);
    break;
  case SOFT_RING:
    id = sn_create_ring(w, &s->ring);
    break;
  case SOFT_LATTICE:
    id = sn_create_lattice(w, &s->lattice);
    break;
  case SOFT_CUSTOM:
    id = sn_create_soft_body(w, &s->body);
    break;
  }
  if (id.index1 == 0) {
    char what[64];
    snprintf(what, sizeof what, "%s soft body", s->kind_name);
    return engine_refused(L, w, s->node, what);
  }
  if (s->name != NULL && sn_scene_names_set_soft_body(names, id, s->name) != SN_SCENE_OK) return out_of_memory(L);
  if (s->kind == SOFT_CUSTOM) return build_custom(L, w, names, s, id);
  int32_t got = sn_soft_body_get_particles(w, id, L->particle_ids + s->first_particle, s->particle_count);
  if (got != s->particle_count || sn_soft_body_get_particle_count(w, id) != s->particle_count)
    return fail(L, SN_SCENE_ERR_ENGINE, SN_OK, s->node, false,
                "the %s builder made %d particles; expected %d (the format's particle numbering)", s->kind_name,
                (int)sn_soft_body_get_particle_count(w, id), (int)s->particle_count);
  return true;
}

static bool build_constraint(loader *L, sn_world *w, sn_scene_names *names, const sn_body_id *ids, int32_t i) {
  const constraint_ir *k = L->constraints + i;
  sn_particle_id scratch_local[8];
  sn_particle_id *scratch =
      k->particle_count <= 8 ? scratch_local : malloc((size_t)k->particle_count * sizeof *scratch);
  if (scratch == NULL) return out_of_memory(L);
  sn_constraint_id cid = create_constraint(L, w, k, ids, -1, scratch);
  if (scratch != scratch_local) free(scratch);
  if (cid.index1 == 0) return engine_refused(L, w, k->node, "constraint");
  if (k->name != NULL && sn_scene_names_set_constraint(names, cid, k->name) != SN_SCENE_OK) return out_of_memory(L);
  return true;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */

sn_scene_load_options sn_default_scene_load_options(void) {
  sn_scene_load_options o;
  memset(&o, 0, sizeof o);
  o.search_default_dirs = true;
  o.cookie = SN_SCENE_OPTIONS_COOKIE;
  return o;
}

void sn_scene_unload(sn_loaded_scene *scene) {
  if (scene == NULL) return;
  if (scene->world) sn_destroy_world(scene->world);
  if (scene->owns_registry && scene->registry) sn_destroy_registry(scene->registry);
  sn_destroy_scene_names(scene->names);
  memset(scene, 0, sizeof *scene);
}

static void loader_free(loader *L) {
  sn_json_map_free(&L->map);
  free_softs(L);
  free(L->groups);
  free(L->particle_ids);
  free(L->bodies);
  free(L->shapes);
  free(L->softs);
  free(L->constraints);
  free(L->params);
  free(L->values);
  sn_name_space_free(&L->body_names);
  sn_name_space_free(&L->constraint_names);
}

static sn_scene_status load(loader *L, sn_loaded_scene *out) {
  size_t error_offset = 0;
  while (L->length > 0 && L->text[L->length - 1] == '\0') L->length--; /* a length that counted the NUL */
  char expected[160];
  if (L->length > UINT32_MAX - 1) {
    sn_scene_set_error(L->err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: the text is larger than 4 GiB", L->source);
    return SN_SCENE_ERR_IO;
  }
  if (!sn_json_scan(L->text, L->length, &L->map, &error_offset, expected, sizeof expected)) {
    if (L->map.out_of_memory) return out_of_memory(L), SN_SCENE_ERR_OUT_OF_MEMORY;
    int32_t line, column;
    sn_json_line_column(L->text, L->length, error_offset, &line, &column);
    char found[48];
    if (error_offset >= L->length)
      snprintf(found, sizeof found, "the end of the text");
    else if ((unsigned char)L->text[error_offset] >= 0x20 && (unsigned char)L->text[error_offset] < 0x7f)
      snprintf(found, sizeof found, "'%c'", L->text[error_offset]);
    else
      snprintf(found, sizeof found, "byte 0x%02x", (unsigned)(unsigned char)L->text[error_offset]);
    sn_scene_set_error(L->err, SN_SCENE_ERR_SYNTAX, SN_OK, line, column,
                       "%s:%d:%d: syntax error: expected %s, found %s", L->source, (int)line, (int)column, expected,
                       found);
    return SN_SCENE_ERR_SYNTAX;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(L->text, L->length, &end, 0);
  if (root == NULL || !sn_json_bind(&L->map, root)) {
    /* the recognizer accepted what cJSON did not (or memory ran out) */
    size_t at = end != NULL && end >= L->text && end <= L->text + L->length ? (size_t)(end - L->text) : 0;
    int32_t line, column;
    sn_json_line_column(L->text, L->length, at, &line, &column);
    cJSON_Delete(root);
    if (L->map.out_of_memory || root != NULL) return out_of_memory(L), SN_SCENE_ERR_OUT_OF_MEMORY;
    sn_scene_set_error(L->err, SN_SCENE_ERR_SYNTAX, SN_OK, line, column,
                       "%s:%d:%d: syntax error: cJSON cannot read this (a number longer than 63 characters?)",
                       L->source, (int)line, (int)column);
    return SN_SCENE_ERR_SYNTAX;
  }
  L->world_def = sn_default_world_def();
  L->settings = sn_world_settings_default(); /* a key left out means its default */
  if (L->opt->limits != NULL) {
#define SN_X(name, dflt, doc) L->world_def.name = L->opt->limits->name;
    SN_WORLD_LIMITS(SN_X)
#undef SN_X
  }
  bool ok = parse_document(L, root);
  if (ok) {
    L->values = calloc((size_t)L->param_count + 1, sizeof *L->values);
    if (L->values == NULL) ok = out_of_memory(L);
  }
  sn_registry *reg = NULL;
  bool owns = false;
  if (ok) {
    reg = L->opt->registry;
    if (reg == NULL) {
      reg = sn_create_registry(L->opt->allocator.alloc != NULL ? &L->opt->allocator : NULL);
      owns = true;
      if (reg == NULL) ok = out_of_memory(L);
    }
  }
  if (ok) ok = load_plugins(L, reg);
  if (ok) ok = load_soft_plugins(L, reg);
  for (int32_t i = 0; ok && i < L->soft_count; ++i) {
    const soft_ir *s = L->softs + i;
    for (int32_t g = 0; ok && g < s->group_count; ++g) {
      size_t mark = path_push_key(L, "soft_bodies");
      size_t m2 = path_push_index(L, i);
      size_t m3 = path_push_key(L, "constraints");
      size_t m4 = path_push_index(L, g);
      ok = check_constraint_params(L, reg, L->groups + s->first_group + g);
      if (ok) {
        path_pop(L, m4);
        path_pop(L, m3);
        path_pop(L, m2);
        path_pop(L, mark);
      }
    }
  }
  for (int32_t i = 0; ok && i < L->constraint_count; ++i) {
    size_t mark = path_push_key(L, "constraints");
    size_t m2 = path_push_index(L, i);
    ok = check_constraint_params(L, reg, L->constraints + i);
    if (ok) {
      path_pop(L, m2);
      path_pop(L, mark);
    }
  }
  if (ok) {
    out->registry = reg;
    out->owns_registry = owns;
    out->names = sn_create_scene_names();
    if (out->names == NULL) ok = out_of_memory(L);
  }
  if (ok) {
    L->path_len = 0;
    L->path[0] = '\0';
    ok = build(L, reg, out);
  }
  cJSON_Delete(root);
  if (!ok) {
    if (out->world) sn_destroy_world(out->world);
    sn_destroy_scene_names(out->names);
    if (owns && reg) sn_destroy_registry(reg);
    memset(out, 0, sizeof *out);
    return L->err->status;
  }
  return SN_SCENE_OK;
}

static bool options_ok(const sn_scene_load_options *opt, sn_scene_error *err, const char *source) {
  if (opt->cookie != SN_SCENE_OPTIONS_COOKIE) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_UNINITIALIZED_DEF, 0, 0,
                       "%s: load options not made by sn_default_scene_load_options()", source);
    return false;
  }
  if (opt->plugin_dir_count < 0 || (opt->plugin_dir_count > 0 && opt->plugin_dirs == NULL)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_INVALID_ARGUMENT, 0, 0,
                       "%s: plugin_dir_count without plugin_dirs", source);
    return false;
  }
  const sn_world_def *d = opt->limits;
  if (d != NULL && d->cookie != SN_DEF_COOKIE) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_UNINITIALIZED_DEF, 0, 0,
                       "%s: the limits def was not made by sn_default_world_def()", source);
    return false;
  }
  if (d != NULL &&
      (d->max_bodies < 0 || d->max_bodies > SN_MAX_WORLD_LIMIT || d->max_shapes < 0 ||
       d->max_shapes > SN_MAX_WORLD_LIMIT || d->max_particles < 0 || d->max_particles > SN_MAX_WORLD_LIMIT ||
       d->max_soft_bodies < 0 || d->max_soft_bodies > SN_MAX_WORLD_LIMIT || d->max_constraints < 0 ||
       d->max_constraints > SN_MAX_WORLD_LIMIT || d->max_contacts < 0 || d->max_contacts > SN_MAX_WORLD_LIMIT)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_INVALID_ARGUMENT, 0, 0,
                       "%s: a limit of the limits def is outside 0 .. SN_MAX_WORLD_LIMIT", source);
    return false;
  }
  return true;
}

sn_scene_status sn_scene_load_string(const char *text, size_t length, const char *source_name,
                                     const sn_scene_load_options *options, sn_loaded_scene *out,
                                     sn_scene_error *error) {
  sn_scene_error local;
  sn_scene_error *err = error ? error : &local;
  memset(err, 0, sizeof *err);
  const char *source = source_name ? source_name : "<string>";
  if (out == NULL || (text == NULL && length > 0)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "%s: text or out is NULL", source);
    return SN_SCENE_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  sn_scene_load_options defaults = sn_default_scene_load_options();
  const sn_scene_load_options *opt = options ? options : &defaults;
  if (!options_ok(opt, err, source)) return err->status;
  loader L;
  memset(&L, 0, sizeof L);
  L.text = text ? text : "";
  L.length = length;
  L.source = source;
  L.err = err;
  L.opt = opt;
  sn_scene_status st = load(&L, out);
  loader_free(&L);
  return st;
}

sn_scene_status sn_scene_load_file(const char *path, const sn_scene_load_options *options, sn_loaded_scene *out,
                                   sn_scene_error *error) {
  sn_scene_error local;
  sn_scene_error *err = error ? error : &local;
  memset(err, 0, sizeof *err);
  if (path == NULL || out == NULL) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "path or out is NULL");
    return SN_SCENE_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  char why[768];
  sn_file_reader f;
  if (!sn_file_reader_open(&f, path, why, sizeof why)) {
    sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: %s", path, why);
    return SN_SCENE_ERR_IO;
  }
  char *text = NULL;
  size_t length = 0, capacity = 0;
  bool ok = true;
  for (;;) {
    if (length == capacity) {
      if (capacity >= SN_SCENE_MAX_FILE_BYTES) {
        sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: larger than %u bytes", path,
                           SN_SCENE_MAX_FILE_BYTES);
        ok = false;
        break;
      }
      capacity = capacity ? 2 * capacity : 65536;
      char *t = realloc(text, capacity);
      if (t == NULL) {
        sn_scene_set_error(err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "%s: out of memory", path);
        ok = false;
        break;
      }
      text = t;
    }
    ptrdiff_t got = sn_file_reader_read(&f, text + length, capacity - length, why, sizeof why);
    if (got < 0) {
      sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: read error: %s", path, why);
      ok = false;
      break;
    }
    if (got == 0) break;
    length += (size_t)got;
  }
  sn_file_reader_close(&f);
  sn_scene_status st = ok ? sn_scene_load_string(text, length, path, options, out, err) : err->status;
  free(text);
  return st;
}
