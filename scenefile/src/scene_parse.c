/* Scene loader: the document, its world settings, bodies and shapes, read
 * into the checked description (scene_loader.h) without building anything.
 * The defaults of bodies and shapes here are the format's own
 * (docs/scene-format.md), fixed whatever the engine's defaults; the world
 * settings come from the engine's table of them, world/world_settings.h. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/constants.h"
#include "scene_loader.h"

/* ------------------------------------------------------------------------ */
/* Settings                                                                  */

/// A setting's value (its line of world/world_settings.h gives type and range).
static bool read_setting(sn_loader *L, const cJSON *n, const sn_setting_info *info) {
  void *field = (char *)&L->settings + info->offset;
  sn_scene_range r = {info->min, info->max, (info->flags & SN_SETTING_ABOVE_MIN) != 0};
  switch (info->type) {
  case SN_SETTING_TYPE_INT:
    return sn_scene_read_int(L, n, (int32_t)info->min, (int32_t)info->max, field);
  case SN_SETTING_TYPE_FLOAT:
    return sn_scene_read_float(L, n, r, field);
  case SN_SETTING_TYPE_BOOL:
    return sn_scene_read_bool(L, n, field);
  case SN_SETTING_TYPE_VEC2:
    return sn_scene_read_vec2_in(L, n, r, field);
  }
  return false;
}

/// The settings whose key sits in obj: the document's top level (top_level)
/// or its "settings" object.
static bool read_settings(sn_loader *L, const cJSON *obj, bool top_level) {
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if (((info->flags & SN_SETTING_TOP_LEVEL) != 0) != top_level) continue;
    SN_OPT(L, obj, info->key, read_setting(L, n_, info));
  }
  return true;
}

static bool parse_settings(sn_loader *L, const cJSON *obj) {
  const char *keys[SN_WORLD_SETTING_COUNT + 1];
  int32_t n = 0;
  for (int pass = 0; pass < 2; ++pass) { /* in the writer's order: those of sn_world_def first */
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      const sn_setting_info *info = sn_world_setting_info(i);
      if ((info->flags & SN_SETTING_TOP_LEVEL) == 0 && info->in_def == (pass == 0)) keys[n++] = info->key;
    }
  }
  keys[n] = NULL;
  if (!sn_scene_read_object(L, obj, "an object of world settings")) return false;
  if (!sn_scene_check_keys(L, obj, keys, "settings")) return false;
  return read_settings(L, obj, false);
}

/* ------------------------------------------------------------------------ */
/* Shapes                                                                    */

static const char *const geometry_keys[] = {"circle", "box", "polygon", "capsule", "segment", "chain", NULL};
static const char *const shape_keys[] = {"circle",
                                         "box",
                                         "polygon",
                                         "capsule",
                                         "segment",
                                         "chain",
                                         "offset",
                                         "radius",
                                         "angle",
                                         "density",
                                         "friction",
                                         "restitution",
                                         "rolling_resistance",
                                         "tangent_speed",
                                         "material",
                                         "contact_events",
                                         "hit_events",
                                         "category_bits",
                                         "mask_bits",
                                         "group_index",
                                         "sensor",
                                         "sensor_events",
                                         "custom_filtering",
                                         "pre_solve_events",
                                         "loop",
                                         NULL};
/// Keys of a shape that a chain does not take (sn_chain_def has no such field).
static const char *const not_chain_keys[] = {"density",       "contact_events",   "hit_events",       "sensor",
                                             "sensor_events", "custom_filtering", "pre_solve_events", NULL};
/// Most points of a chain (sn_create_chain's limit).
#define SN_SCENE_MAX_CHAIN_POINTS 1000000

/// Collision filter bits: a whole number in [0, 2^53] or a string "0x" + up to 16 hex digits.
static bool read_bits(sn_loader *L, const cJSON *n, uint64_t *out) {
  char got[96];
  if (cJSON_IsNumber(n)) {
    double v = n->valuedouble;
    if (!(v >= 0.0 && v <= 9007199254740992.0 && v == floor(v)))
      return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                           "expected a whole number in [0, 2^53] or a string \"0x...\" of up to 16 hex digits, got %s",
                           sn_scene_describe(L, n, got, sizeof got));
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
  return sn_scene_fail(L, cJSON_IsString(n) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, n, false,
                       "expected a whole number in [0, 2^53] or a string \"0x...\" of up to 16 hex digits, got %s",
                       sn_scene_describe(L, n, got, sizeof got));
}

/// What the engine wants instead, for a geometry refusal.
const char *sn_scene_geometry_expected(sn_result r) {
  switch (r) {
  case SN_ERR_DEGENERATE_POLYGON:
    return "at least 3 points more than 0.5 mm apart, enclosing some area";
  case SN_ERR_NON_CONVEX_POLYGON:
    return "a convex outline with no three points in a line";
  case SN_ERR_TOO_MANY_VERTICES:
    return "at most 8 points";
  default:
    return "finite values in range";
  }
}

static bool geometry_error(sn_loader *L, const cJSON *n, sn_result r, const char *what) {
  return sn_scene_fail(L, SN_SCENE_ERR_GEOMETRY, r, n, false, "the engine refuses this %s: %s (%s); expected %s", what,
                       sn_result_name(r), sn_result_message(r), sn_scene_geometry_expected(r));
}

static bool parse_points(sn_loader *L, const cJSON *n, int32_t min, int32_t max, sn_vec2 *points, int32_t *count,
                         const char *expected) {
  char got[96];
  if (!cJSON_IsArray(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  int32_t k = cJSON_GetArraySize(n);
  if (k < min || k > max)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false, "expected %s, got %d points", expected, (int)k);
  int32_t i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = sn_scene_path_push_index(L, i);
    bool ok = sn_scene_read_vec2(L, c, points + i);
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  *count = k;
  return true;
}

/* A chain: "chain" the points, at least 4 (3 with "loop": true), each
 * within +-SN_MAX_COORDINATE and more than the linear slop from the one
 * before (and, for a loop, the last from the first), as sn_create_chain
 * wants them; offset is added to every point. The material and filter keys
 * are those of the shape; the path is at "chain". */
static bool parse_chain(sn_loader *L, sn_shape_ir *s, const cJSON *g, bool loop, sn_vec2 offset) {
  s->type = SN_SHAPE_CHAIN_SEGMENT;
  const int32_t min = loop ? 3 : 4;
  const char *expected = loop ? "[[x, y], ...] with at least 3 points (a loop)"
                              : "[[x, y], ...] with at least 4 points (an open chain; 3 with \"loop\": true)";
  char got[96];
  if (!cJSON_IsArray(g))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, g, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, g, got, sizeof got));
  const int32_t k = cJSON_GetArraySize(g);
  if (k < min || k > SN_SCENE_MAX_CHAIN_POINTS)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, g, false, "expected %s (at most %d), got %d points", expected,
                         SN_SCENE_MAX_CHAIN_POINTS, (int)k);
  s->chain_points = malloc((size_t)k * sizeof *s->chain_points);
  if (s->chain_points == NULL) return sn_scene_out_of_memory(L);
  const sn_scene_range within = {-SN_MAX_COORDINATE, SN_MAX_COORDINATE, false};
  const float slop_sq = SN_LINEAR_SLOP * SN_LINEAR_SLOP;
  int32_t i = 0;
  for (const cJSON *c = g->child; c != NULL; c = c->next, ++i) {
    size_t mark = sn_scene_path_push_index(L, i);
    sn_vec2 p;
    bool ok = sn_scene_read_vec2_in(L, c, within, &p);
    if (ok) {
      p = (sn_vec2){p.x + offset.x, p.y + offset.y};
      if (!(fabsf(p.x) <= SN_MAX_COORDINATE && fabsf(p.y) <= SN_MAX_COORDINATE))
        ok = sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, c, false,
                           "expected a point within +-1e6 m (SN_MAX_COORDINATE) with the offset added, got [%g, %g]",
                           (double)p.x, (double)p.y);
    }
    if (ok && i > 0) {
      const sn_vec2 q = s->chain_points[i - 1];
      const float dx = p.x - q.x, dy = p.y - q.y;
      if (dx * dx + dy * dy <= slop_sq)
        ok = sn_scene_fail(L, SN_SCENE_ERR_GEOMETRY, SN_ERR_DEGENERATE_POLYGON, c, false,
                           "chain point %d coincides with point %d (%g m apart); expected consecutive points more than "
                           "0.005 m (the linear slop) apart",
                           (int)i, (int)(i - 1), sqrt((double)(dx * dx + dy * dy)));
    }
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
    s->chain_points[i] = p;
  }
  if (loop) {
    const sn_vec2 a = s->chain_points[k - 1], b = s->chain_points[0];
    const float dx = b.x - a.x, dy = b.y - a.y;
    if (dx * dx + dy * dy <= slop_sq) {
      size_t mark = sn_scene_path_push_index(L, 0);
      sn_scene_fail(L, SN_SCENE_ERR_GEOMETRY, SN_ERR_DEGENERATE_POLYGON, g->child, false,
                    "the loop's last point (%d) coincides with its first (%g m apart); expected them more than 0.005 m "
                    "(the linear slop) apart, the loop closes by itself",
                    (int)(k - 1), sqrt((double)(dx * dx + dy * dy)));
      sn_scene_path_pop(L, mark);
      return false;
    }
  }
  sn_chain_def *d = &s->chain;
  *d = sn_default_chain_def();
  d->points = s->chain_points;
  d->count = k;
  d->is_loop = loop;
  d->friction = s->def.friction;
  d->restitution = s->def.restitution;
  d->rolling_resistance = s->def.rolling_resistance;
  d->tangent_speed = s->def.tangent_speed;
  d->material = s->def.material;
  d->category_bits = s->def.category_bits;
  d->mask_bits = s->def.mask_bits;
  d->group_index = s->def.group_index;
  return true;
}

static bool parse_geometry(sn_loader *L, sn_shape_ir *s, const cJSON *obj) {
  const cJSON *g = s->geometry;
  const char *kind = g->string;
  const cJSON *offset_node = sn_scene_member(obj, "offset");
  sn_vec2 offset = {0.0f, 0.0f};
  SN_OPT(L, obj, "offset", sn_scene_read_vec2(L, n_, &offset));
  float radius = 0.0f, angle = 0.0f;
  bool rounded = strcmp(kind, "box") == 0 || strcmp(kind, "polygon") == 0;
  const cJSON *rn = sn_scene_member(obj, "radius"), *an = sn_scene_member(obj, "angle");
  if (rn != NULL && !rounded)
    return sn_scene_fail_key(
        L, SN_SCENE_ERR_UNKNOWN_KEY, rn,
        "\"radius\" (rounding) applies to box and polygon shapes only; expected no \"radius\" on a %s", kind);
  if (an != NULL && strcmp(kind, "box") != 0)
    return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, an,
                             "\"angle\" applies to box shapes only; expected no \"angle\" on a %s", kind);
  SN_OPT(L, obj, "radius", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &radius));
  SN_OPT(L, obj, "angle", sn_scene_read_float(L, n_, SN_RANGE_ANY, &angle));
  bool loop = false;
  SN_OPT(L, obj, "loop", sn_scene_read_bool(L, n_, &loop));
  size_t mark = sn_scene_path_push_key(L, kind);
  bool ok = true;
  if (strcmp(kind, "circle") == 0) {
    s->type = SN_SHAPE_CIRCLE;
    ok = sn_scene_read_float(L, g, SN_RANGE_POSITIVE, &s->circle.radius);
    s->circle.center = offset;
  } else if (strcmp(kind, "box") == 0) {
    s->type = SN_SHAPE_POLYGON;
    sn_vec2 h;
    ok = sn_scene_read_vec2_in(L, g, SN_RANGE_POSITIVE, &h);
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
      ok = sn_scene_fail(L, cJSON_IsArray(g) ? SN_SCENE_ERR_RANGE : SN_SCENE_ERR_TYPE, SN_OK, g, false,
                         "expected %s, got %s", expected,
                         cJSON_IsArray(g) ? "an array of another length" : sn_scene_describe(L, g, got, sizeof got));
    } else {
      const cJSON *c = g->child;
      size_t m2 = sn_scene_path_push_index(L, 0);
      ok = sn_scene_read_vec2(L, c, &s->capsule.center1);
      sn_scene_path_pop(L, m2);
      if (ok) {
        m2 = sn_scene_path_push_index(L, 1);
        ok = sn_scene_read_vec2(L, c->next, &s->capsule.center2);
        sn_scene_path_pop(L, m2);
      }
      if (ok) {
        m2 = sn_scene_path_push_index(L, 2);
        ok = sn_scene_read_float(L, c->next->next, SN_RANGE_POSITIVE, &s->capsule.radius);
        sn_scene_path_pop(L, m2);
      }
      if (ok && offset_node != NULL) {
        s->capsule.center1 = (sn_vec2){s->capsule.center1.x + offset.x, s->capsule.center1.y + offset.y};
        s->capsule.center2 = (sn_vec2){s->capsule.center2.x + offset.x, s->capsule.center2.y + offset.y};
      }
    }
  } else if (strcmp(kind, "chain") == 0) {
    ok = parse_chain(L, s, g, loop, offset_node != NULL ? offset : (sn_vec2){0.0f, 0.0f});
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
    }
  }
  sn_scene_path_pop(L, mark);
  return ok;
}

static bool parse_shape(sn_loader *L, const cJSON *obj, sn_shape_ir *s) {
  if (!sn_scene_read_object(L, obj, "a shape object such as {\"circle\": 0.5}")) return false;
  memset(s, 0, sizeof *s);
  s->node = obj;
  const cJSON *unknown = NULL;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!sn_scene_check_duplicate_key(L, obj, c)) return false;
    if (sn_scene_in_list(c->string, geometry_keys)) {
      if (s->geometry != NULL)
        return sn_scene_fail_key(
            L, SN_SCENE_ERR_UNKNOWN_SHAPE, c,
            "a shape has exactly one geometry, and this one already is a %s; expected one of circle, box, "
            "polygon, capsule, segment, chain per shape",
            s->geometry->string);
      s->geometry = c;
    } else if (!sn_scene_in_list(c->string, shape_keys) && unknown == NULL) {
      unknown = c;
    }
  }
  if (unknown != NULL && s->geometry == NULL)
    return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_SHAPE, unknown,
                             "unknown shape \"%s\"; expected one of: circle, box, polygon, capsule, segment, chain",
                             unknown->string);
  if (unknown != NULL) {
    char list[512];
    sn_scene_join_list(shape_keys, list, sizeof list);
    return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, unknown, "unknown key \"%s\" in a shape; expected one of: %s",
                             unknown->string, list);
  }
  if (s->geometry == NULL)
    return sn_scene_fail(
        L, SN_SCENE_ERR_UNKNOWN_SHAPE, SN_OK, obj, false,
        "a shape needs a geometry key; expected one of: circle, box, polygon, capsule, segment, chain");
  /* keys a chain does not take, and "loop" on anything but a chain */
  const bool chain = strcmp(s->geometry->string, "chain") == 0;
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (chain && sn_scene_in_list(c->string, not_chain_keys))
      return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c,
                               "\"%s\" does not apply to a chain (sn_chain_def has no such field); expected only "
                               "\"loop\", \"offset\", material and filter keys beside \"chain\"",
                               c->string);
    if (!chain && strcmp(c->string, "loop") == 0)
      return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c,
                               "\"loop\" applies to chain shapes only; expected no \"loop\" on a %s",
                               s->geometry->string);
  }
  sn_shape_def *d = &s->def;
  *d = sn_default_shape_def();
  d->density = 1.0f;
  d->friction = 0.6f;
  d->restitution = 0.0f;
  d->enable_contact_events = true;
  d->enable_hit_events = false;
  d->category_bits = 1;
  d->mask_bits = UINT64_MAX;
  SN_OPT(L, obj, "density", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->density));
  SN_OPT(L, obj, "friction", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->friction));
  SN_OPT(L, obj, "restitution", sn_scene_read_float(L, n_, SN_RANGE_UNIT, &d->restitution));
  SN_OPT(L, obj, "rolling_resistance", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->rolling_resistance));
  SN_OPT(L, obj, "tangent_speed",
         sn_scene_read_float(L, n_, (sn_scene_range){-SN_MAX_SPEED, SN_MAX_SPEED, false}, &d->tangent_speed));
  SN_OPT(L, obj, "material", sn_scene_read_int(L, n_, INT32_MIN, INT32_MAX, &d->material));
  SN_OPT(L, obj, "contact_events", sn_scene_read_bool(L, n_, &d->enable_contact_events));
  SN_OPT(L, obj, "hit_events", sn_scene_read_bool(L, n_, &d->enable_hit_events));
  SN_OPT(L, obj, "category_bits", read_bits(L, n_, &d->category_bits));
  SN_OPT(L, obj, "mask_bits", read_bits(L, n_, &d->mask_bits));
  SN_OPT(L, obj, "group_index", sn_scene_read_int(L, n_, INT32_MIN, INT32_MAX, &d->group_index));
  SN_OPT(L, obj, "sensor", sn_scene_read_bool(L, n_, &d->is_sensor));
  SN_OPT(L, obj, "sensor_events", sn_scene_read_bool(L, n_, &d->enable_sensor_events));
  SN_OPT(L, obj, "custom_filtering", sn_scene_read_bool(L, n_, &d->enable_custom_filtering));
  SN_OPT(L, obj, "pre_solve_events", sn_scene_read_bool(L, n_, &d->enable_pre_solve_events));
  return parse_geometry(L, s, obj);
}

/* ------------------------------------------------------------------------ */
/* Bodies and names                                                          */

/// Location "line:col" of the name node of file body/soft body slot.
static void first_use(sn_loader *L, int32_t slot, int32_t *line, int32_t *column) {
  const cJSON *n = slot < L->body_count ? L->bodies[slot].name_node : L->softs[slot - L->body_count].name_node;
  sn_json_line_column(L->text, L->length, sn_scene_node_offset(L, n, false), line, column);
}

bool sn_scene_add_body_name(sn_loader *L, const cJSON *name_node, const char *name, int32_t slot) {
  sn_name_id other;
  sn_scene_status st = sn_name_space_set(&L->body_names, (sn_name_id){slot + 1, 0, 0}, name, &other);
  if (st == SN_SCENE_ERR_OUT_OF_MEMORY) return sn_scene_out_of_memory(L);
  if (st == SN_SCENE_ERR_DUPLICATE_NAME) {
    int32_t line, column;
    first_use(L, other.index1 - 1, &line, &column);
    return sn_scene_fail(
        L, SN_SCENE_ERR_DUPLICATE_NAME, SN_OK, name_node, false,
        "duplicate body name \"%s\" (first used at %d:%d); expected every body and soft body to have its own "
        "name",
        name, (int)line, (int)column);
  }
  return true;
}

/// [cos, sin] of a body's exact rotation: c^2 + s^2 within 1e-4 of 1.
static bool read_rotation(sn_loader *L, const cJSON *n, sn_rot *out) {
  sn_vec2 v;
  if (!sn_scene_read_vec2(L, n, &v)) return false;
  if (!(fabsf(v.x * v.x + v.y * v.y - 1.0f) <= 1e-4f))
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "expected a rotation [cos, sin] of unit length (within 1e-4), got [%g, %g]", (double)v.x,
                         (double)v.y);
  *out = (sn_rot){v.x, v.y};
  return true;
}

static bool parse_body(sn_loader *L, const cJSON *obj, int32_t index) {
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
                                     "sleep_threshold",
                                     "fixed_rotation",
                                     "enabled",
                                     "shapes",
                                     NULL};
  if (!sn_scene_read_object(L, obj, "a body object")) return false;
  if (!sn_scene_check_keys(L, obj, keys, "a body")) return false;
  sn_body_ir *b = L->bodies + index;
  b->node = obj;
  b->name_node = sn_scene_member(obj, "name");
  SN_OPT(L, obj, "name", sn_scene_read_name(L, n_, &b->name));
  sn_body_def *d = &b->def;
  *d = sn_default_body_def();
  const char *type = NULL;
  char types[64];
  sn_scene_body_type_list(types, sizeof types);
  SN_REQ(L, obj, "type", types, sn_scene_read_string(L, n_, types, &type));
  if (!sn_scene_body_type_of(type, &d->type)) {
    size_t mark = sn_scene_path_push_key(L, "type");
    sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, sn_scene_member(obj, "type"), false, "expected %s, got \"%.40s\"",
                  types, type);
    sn_scene_path_pop(L, mark);
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
  d->sleep_threshold = 0.05f;
  d->fixed_rotation = false;
  SN_OPT(L, obj, "position", sn_scene_read_vec2(L, n_, &d->position));
  SN_OPT(L, obj, "angle", sn_scene_read_float(L, n_, SN_RANGE_ANY, &d->angle));
  SN_OPT(L, obj, "rotation", read_rotation(L, n_, &d->rotation));
  SN_OPT(L, obj, "velocity", sn_scene_read_vec2(L, n_, &d->linear_velocity));
  SN_OPT(L, obj, "angular_velocity", sn_scene_read_float(L, n_, SN_RANGE_ANY, &d->angular_velocity));
  SN_OPT(L, obj, "linear_damping", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->linear_damping));
  SN_OPT(L, obj, "angular_damping", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->angular_damping));
  SN_OPT(L, obj, "gravity_scale", sn_scene_read_float(L, n_, SN_RANGE_ANY, &d->gravity_scale));
  SN_OPT(L, obj, "bullet", sn_scene_read_bool(L, n_, &d->is_bullet));
  SN_OPT(L, obj, "awake", sn_scene_read_bool(L, n_, &d->is_awake));
  b->enabled = true;
  SN_OPT(L, obj, "enabled", sn_scene_read_bool(L, n_, &b->enabled));
  SN_OPT(L, obj, "sleep", sn_scene_read_bool(L, n_, &d->enable_sleep));
  SN_OPT(L, obj, "sleep_threshold", sn_scene_read_float(L, n_, SN_RANGE_NON_NEGATIVE, &d->sleep_threshold));
  SN_OPT(L, obj, "fixed_rotation", sn_scene_read_bool(L, n_, &d->fixed_rotation));
  b->first_shape = L->shape_count;
  const cJSON *shapes = sn_scene_member(obj, "shapes");
  if (shapes != NULL) {
    size_t mark = sn_scene_path_push_key(L, "shapes");
    bool ok = sn_scene_read_array(L, shapes, "an array of shape objects");
    int32_t i = 0;
    for (const cJSON *c = ok ? shapes->child : NULL; c != NULL && ok; c = c->next, ++i) {
      size_t m2 = sn_scene_path_push_index(L, i);
      ok = parse_shape(L, c, L->shapes + L->shape_count);
      if (ok) {
        L->shape_count++;
      } else {
        free(L->shapes[L->shape_count].chain_points); /* a chain refused after its points were read */
        L->shapes[L->shape_count].chain_points = NULL;
      }
      sn_scene_path_pop(L, m2);
    }
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  b->shape_count = L->shape_count - b->first_shape;
  if (b->name != NULL) {
    size_t mark = sn_scene_path_push_key(L, "name");
    bool ok = sn_scene_add_body_name(L, b->name_node, b->name, index);
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  return true;
}

/* ------------------------------------------------------------------------ */
/* Document                                                                  */

static bool parse_array_of(sn_loader *L, const cJSON *root, const char *key, const char *expected,
                           bool (*each)(sn_loader *, const cJSON *, int32_t)) {
  const cJSON *arr = sn_scene_member(root, key);
  if (arr == NULL) return true;
  size_t mark = sn_scene_path_push_key(L, key);
  if (!sn_scene_read_array(L, arr, expected)) return false;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    if (!each(L, c, i)) return false;
    sn_scene_path_pop(L, m2);
  }
  sn_scene_path_pop(L, mark);
  return true;
}

static int32_t array_size(const cJSON *root, const char *key) {
  const cJSON *a = sn_scene_member(root, key);
  return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
}

static bool allocate(sn_loader *L, const cJSON *root) {
  int32_t bodies = array_size(root, "bodies");
  int64_t shapes = 0, entries = 0;
  const cJSON *arr = sn_scene_member(root, "bodies");
  for (const cJSON *b = cJSON_IsArray(arr) ? arr->child : NULL; b != NULL; b = b->next) {
    const cJSON *s = cJSON_IsObject(b) ? sn_scene_member(b, "shapes") : NULL;
    if (!cJSON_IsArray(s)) continue;
    entries += cJSON_GetArraySize(s);
    /* a chain makes a shape per segment: n points make n (a loop) or n - 3 */
    for (const cJSON *e = s->child; e != NULL; e = e->next) {
      const cJSON *c = cJSON_IsObject(e) ? sn_scene_member(e, "chain") : NULL;
      if (!cJSON_IsArray(c)) continue;
      int32_t segments = cJSON_GetArraySize(c) - (cJSON_IsTrue(sn_scene_member(e, "loop")) ? 0 : 3);
      if (segments > 1) shapes += segments - 1;
    }
  }
  shapes += entries;
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
    size_t mark = sn_scene_path_push_key(L, counts[i].key);
    sn_scene_fail(L, SN_SCENE_ERR_ENGINE, SN_ERR_CAPACITY, sn_scene_member(root, counts[i].key), false,
                  "%lld %s; expected at most %d, the world's %s limit (sn_scene_load_options.limits)",
                  (long long)counts[i].count, counts[i].what, (int)counts[i].max, counts[i].limit);
    sn_scene_path_pop(L, mark);
    return false;
  }
  L->bodies = calloc((size_t)bodies + 1, sizeof *L->bodies);
  L->shapes = calloc((size_t)entries + 1, sizeof *L->shapes);
  L->softs = calloc((size_t)softs + 1, sizeof *L->softs);
  L->constraints = calloc((size_t)constraints + 1, sizeof *L->constraints);
  if (!L->bodies || !L->shapes || !L->softs || !L->constraints) return sn_scene_out_of_memory(L);
  L->body_count = bodies; /* names of soft bodies use slots after the bodies */
  L->soft_count = softs;
  L->constraint_count = constraints;
  return true;
}

bool sn_scene_parse_document(sn_loader *L, const cJSON *root) {
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
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, root, false, "expected a JSON object at the top level, got %s",
                         sn_scene_describe(L, root, got, sizeof got));
  const cJSON *version = sn_scene_member(root, "sinew_scene");
  if (version == NULL)
    return sn_scene_fail(L, SN_SCENE_ERR_VERSION, SN_OK, root, false,
                         "missing required key \"sinew_scene\" (the format version); expected \"sinew_scene\": %d",
                         SN_SCENE_FORMAT_VERSION);
  if (!cJSON_IsNumber(version) || version->valuedouble != SN_SCENE_FORMAT_VERSION) {
    size_t mark = sn_scene_path_push_key(L, "sinew_scene");
    sn_scene_fail(L, SN_SCENE_ERR_VERSION, SN_OK, version, false,
                  "unsupported scene format version %s; expected %d (the version this library reads)",
                  sn_scene_describe(L, version, got, sizeof got), SN_SCENE_FORMAT_VERSION);
    sn_scene_path_pop(L, mark);
    return false;
  }
  if (!sn_scene_check_keys(L, root, keys, "a scene")) return false;
  const char *description;
  SN_OPT(L, root, "description", sn_scene_read_string(L, n_, "a string", &description));
  if (!read_settings(L, root, true)) return false;
  L->settings_node = sn_scene_member(root, "settings");
  SN_OPT(L, root, "settings", parse_settings(L, n_));
  L->plugins_node = sn_scene_member(root, "plugins");
  if (L->plugins_node != NULL && !sn_scene_parse_plugin_names(L, L->plugins_node)) return false;
  if (!allocate(L, root)) return false;
  if (!parse_array_of(L, root, "bodies", "an array of body objects", parse_body)) return false;
  if (!parse_array_of(L, root, "soft_bodies", "an array of soft body objects", sn_scene_parse_soft)) return false;
  if (!parse_array_of(L, root, "constraints", "an array of constraint objects", sn_scene_parse_constraint))
    return false;
  return true;
}
