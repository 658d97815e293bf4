/* Scene writer: world -> scene text. Every float is printed with the fewest
 * digits that read back (through strtod and a cast to float, as the loader
 * does) to the same bits, so save -> load -> save is a fixed point. Keys
 * equal to the format's default are left out, except the world settings,
 * gravity and each body's name, type, position and angle, which are always
 * written. One body or constraint per line keeps files diffable. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world/world_settings.h"
#include "platform/file_io.h"
#include "platform/platform.h"
#include "scene_internal.h"

typedef struct text_buffer {
  char *data;
  size_t length, capacity;
  bool out_of_memory;
  bool not_finite; ///< a number to write was NaN or infinite (nothing could read it back)
} text_buffer;

static void put_n(text_buffer *b, const char *s, size_t n) {
  if (b->out_of_memory) return;
  if (b->length + n + 1 > b->capacity) {
    size_t cap = b->capacity ? b->capacity : 4096;
    while (b->length + n + 1 > cap) cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL) {
      b->out_of_memory = true;
      return;
    }
    b->data = d;
    b->capacity = cap;
  }
  memcpy(b->data + b->length, s, n);
  b->length += n;
  b->data[b->length] = '\0';
}

static void put(text_buffer *b, const char *s) { put_n(b, s, strlen(s)); }

SN_PRINTF(2, 3)
static void putf(text_buffer *b, const char *fmt, ...) {
  char tmp[256];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, args);
  va_end(args);
  if (n > 0) put_n(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/// Shortest decimal that reads back to f (f finite).
static bool reads_back(const char *s, float f) {
  float back = (float)strtod(s, NULL);
  return memcmp(&back, &f, sizeof f) == 0;
}

static void put_float(text_buffer *b, float f) {
  if (!isfinite(f)) {
    b->not_finite = true;
    put(b, "0");
    return;
  }
  char s[48];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    snprintf(s, sizeof s, "%.*g", digits, (double)f);
    if (reads_back(s, f)) break;
  }
  /* 400 rather than 4e+02: enough digits for the integer part (up to 1e17) */
  double mag = fabs((double)f);
  int int_digits = mag >= 1.0 ? (int)floor(log10(mag)) + 1 : 0;
  if (int_digits > digits && int_digits <= 17) {
    char t[48];
    snprintf(t, sizeof t, "%.*g", int_digits, (double)f);
    if (reads_back(t, f)) memcpy(s, t, sizeof s);
  }
  /* the locale may print ',' for the decimal point; JSON wants '.' */
  for (char *p = s; *p; ++p) {
    if (strchr("0123456789eE+-", *p) == NULL) *p = '.';
  }
  put(b, s);
}

static void put_vec2(text_buffer *b, sn_vec2 v) {
  put(b, "[");
  put_float(b, v.x);
  put(b, ", ");
  put_float(b, v.y);
  put(b, "]");
}

static void put_string(text_buffer *b, const char *s) {
  put(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\') {
      char e[3] = {'\\', (char)*p, 0};
      put(b, e);
    } else if (*p < 0x20) {
      putf(b, "\\u%04x", (unsigned)*p);
    } else {
      put_n(b, (const char *)p, 1);
    }
  }
  put(b, "\"");
}

static void put_key(text_buffer *b, const char *key) {
  put(b, ", \"");
  put(b, key);
  put(b, "\": ");
}

static bool same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }
static bool same_vec2(sn_vec2 a, sn_vec2 b) { return same_float(a.x, b.x) && same_float(a.y, b.y); }

static void put_float_unless(text_buffer *b, const char *key, float v, float def) {
  if (same_float(v, def)) return;
  put_key(b, key);
  put_float(b, v);
}

static void put_bool_unless(text_buffer *b, const char *key, bool v, bool def) {
  if (v == def) return;
  put_key(b, key);
  put(b, v ? "true" : "false");
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */

static bool same_polygon(const sn_polygon *a, const sn_polygon *b) {
  if (a->count != b->count || !same_float(a->radius, b->radius) || !same_vec2(a->centroid, b->centroid)) return false;
  for (int32_t i = 0; i < a->count; ++i) {
    if (!same_vec2(a->vertices[i], b->vertices[i]) || !same_vec2(a->normals[i], b->normals[i])) return false;
  }
  return true;
}

/* An angle whose sn_make_rot() is q bit for bit, searched near atan2 (and a
 * turn either way); false if none. Same search as sn_body_get_def's. */
static bool exact_angle(sn_rot q, float *out) {
  const float a = sn_rot_get_angle(q);
  static const int turns[5] = {0, -1, 1, -2, 2};
  for (int t = 0; t < 5; ++t) {
    float lo = (float)((double)a + 6.283185307179586 * turns[t]), hi = lo;
    for (int i = 0; i < 8; ++i) {
      sn_rot r = sn_make_rot(lo);
      if (same_float(r.c, q.c) && same_float(r.s, q.s)) return *out = lo, true;
      r = sn_make_rot(hi);
      if (same_float(r.c, q.c) && same_float(r.s, q.s)) return *out = hi, true;
      lo = nextafterf(lo, -INFINITY);
      hi = nextafterf(hi, INFINITY);
    }
  }
  return false;
}

/* The box (half extents, centre, angle) the loader would rebuild p from, if
 * one rebuilds it bit for bit. */
static bool match_box(const sn_polygon *p, float *hx, float *hy, sn_vec2 *center, float *angle) {
  if (p->count != 4) return false;
  sn_rot q = {p->normals[1].x, p->normals[1].y};
  float a;
  if (!exact_angle(q, &a)) return false;
  sn_vec2 c = p->centroid;
  sn_vec2 d = {p->vertices[2].x - c.x, p->vertices[2].y - c.y};
  float x0 = q.c * d.x + q.s * d.y, y0 = -q.s * d.x + q.c * d.y;
  float x = x0;
  for (int i = 0; i < 3; ++i) x = nextafterf(x, 0.0f);
  for (int i = 0; i < 7; ++i, x = nextafterf(x, INFINITY)) {
    float y = y0;
    for (int j = 0; j < 3; ++j) y = nextafterf(y, 0.0f);
    for (int j = 0; j < 7; ++j, y = nextafterf(y, INFINITY)) {
      sn_polygon box;
      if (sn_make_offset_box(x, y, c, a, &box) != SN_OK) continue;
      box.radius = p->radius;
      if (same_polygon(&box, p)) {
        *hx = x;
        *hy = y;
        *center = c;
        *angle = a;
        return true;
      }
    }
  }
  return false;
}

typedef struct writer {
  sn_world *world;
  text_buffer out;
  sn_scene_error *err;
  bool failed; ///< err is set
} writer;

static bool unrepresentable(writer *W, const char *body, int32_t shape, const char *what) {
  sn_scene_set_error(W->err, SN_SCENE_ERR_UNREPRESENTABLE, SN_OK, 0, 0, "body \"%s\", shape %d: %s", body, (int)shape,
                     what);
  return false;
}

static bool put_shape(writer *W, sn_shape_id id, const char *body, int32_t index) {
  text_buffer *b = &W->out;
  put(b, "{");
  switch (sn_shape_get_type(W->world, id)) {
  case SN_SHAPE_CIRCLE: {
    sn_circle c;
    sn_shape_get_circle(W->world, id, &c);
    put(b, "\"circle\": ");
    put_float(b, c.radius);
    if (!same_vec2(c.center, (sn_vec2){0.0f, 0.0f})) {
      put_key(b, "offset");
      put_vec2(b, c.center);
    }
    break;
  }
  case SN_SHAPE_CAPSULE: {
    sn_capsule c;
    sn_shape_get_capsule(W->world, id, &c);
    put(b, "\"capsule\": [");
    put_vec2(b, c.center1);
    put(b, ", ");
    put_vec2(b, c.center2);
    put(b, ", ");
    put_float(b, c.radius);
    put(b, "]");
    break;
  }
  case SN_SHAPE_SEGMENT: {
    sn_segment s;
    sn_shape_get_segment(W->world, id, &s);
    put(b, "\"segment\": [");
    put_vec2(b, s.point1);
    put(b, ", ");
    put_vec2(b, s.point2);
    put(b, "]");
    break;
  }
  case SN_SHAPE_POLYGON: {
    sn_polygon p;
    sn_shape_get_polygon(W->world, id, &p);
    float hx, hy, angle;
    sn_vec2 center;
    if (match_box(&p, &hx, &hy, &center, &angle)) {
      put(b, "\"box\": ");
      put_vec2(b, (sn_vec2){hx, hy});
      if (!same_vec2(center, (sn_vec2){0.0f, 0.0f})) {
        put_key(b, "offset");
        put_vec2(b, center);
      }
      put_float_unless(b, "angle", angle, 0.0f);
    } else {
      sn_polygon again;
      if (sn_make_polygon(p.vertices, p.count, p.radius, &again) != SN_OK || !same_polygon(&again, &p))
        return unrepresentable(W, body, index,
                               "this polygon is not what sn_make_polygon makes of its own vertices, so it cannot be "
                               "written exactly");
      put(b, "\"polygon\": [");
      for (int32_t i = 0; i < p.count; ++i) {
        if (i) put(b, ", ");
        put_vec2(b, p.vertices[i]);
      }
      put(b, "]");
    }
    put_float_unless(b, "radius", p.radius, 0.0f);
    break;
  }
  case SN_SHAPE_CHAIN_SEGMENT: /* put_chain writes a chain's segments, never this */
  case SN_SHAPE_TYPE_COUNT:
    return unrepresentable(W, body, index, "a shape of an unknown type");
  }
  sn_shape_def d;
  sn_shape_get_def(W->world, id, &d);
  put_float_unless(b, "density", d.density, 1.0f);
  put_float_unless(b, "friction", d.friction, 0.6f);
  put_float_unless(b, "restitution", d.restitution, 0.0f);
  put_float_unless(b, "rolling_resistance", d.rolling_resistance, 0.0f);
  put_float_unless(b, "tangent_speed", d.tangent_speed, 0.0f);
  if (d.material != 0) putf(b, ", \"material\": %d", (int)d.material);
  put_bool_unless(b, "contact_events", d.enable_contact_events, true);
  put_bool_unless(b, "hit_events", d.enable_hit_events, false);
  if (d.category_bits != 1) putf(b, ", \"category_bits\": \"0x%llx\"", (unsigned long long)d.category_bits);
  if (d.mask_bits != UINT64_MAX) putf(b, ", \"mask_bits\": \"0x%llx\"", (unsigned long long)d.mask_bits);
  if (d.group_index != 0) putf(b, ", \"group_index\": %d", (int)d.group_index);
  put_bool_unless(b, "sensor", d.is_sensor, false);
  put_bool_unless(b, "sensor_events", d.enable_sensor_events, true);
  put_bool_unless(b, "custom_filtering", d.enable_custom_filtering, false);
  put_bool_unless(b, "pre_solve_events", d.enable_pre_solve_events, false);
  put(b, "}");
  return true;
}

static bool same_chain_material(const sn_shape_def *a, const sn_shape_def *b) {
  return same_float(a->friction, b->friction) && same_float(a->restitution, b->restitution) &&
         same_float(a->rolling_resistance, b->rolling_resistance) && same_float(a->tangent_speed, b->tangent_speed) &&
         a->material == b->material && a->category_bits == b->category_bits && a->mask_bits == b->mask_bits &&
         a->group_index == b->group_index;
}

/* The chain whose segments start at shapes[at] (count shapes of the body in
 * all), as one shape object; *used is how many of the shapes it covers. Its
 * segments must follow each other in the body's list and share one material
 * and filter, as sn_create_chain makes them. */
static bool put_chain(writer *W, const sn_shape_id *shapes, int32_t at, int32_t count, const char *body,
                      int32_t *used) {
  text_buffer *b = &W->out;
  sn_chain_id chain = sn_shape_get_parent_chain(W->world, shapes[at]);
  sn_chain_def d;
  if (sn_chain_get_def(W->world, chain, &d) != SN_OK)
    return unrepresentable(W, body, at, "a chain segment whose chain cannot be read");
  const int32_t segments = d.is_loop ? d.count : d.count - 3;
  sn_shape_def first;
  sn_shape_get_def(W->world, shapes[at], &first);
  int32_t run = 0;
  for (int32_t k = at; k < count; ++k, ++run) {
    sn_chain_id c = sn_shape_get_parent_chain(W->world, shapes[k]);
    if (c.index1 != chain.index1 || c.generation != chain.generation) break;
    sn_shape_def sd;
    sn_shape_get_def(W->world, shapes[k], &sd);
    if (!same_chain_material(&sd, &first))
      return unrepresentable(W, body, k,
                             "a chain segment whose material or filter was changed from its chain's; expected every "
                             "segment of a chain to have the same (sn_chain_def has one for all)");
  }
  if (run != segments)
    return unrepresentable(W, body, at,
                           "a chain whose segments do not follow each other in the body's shape list; expected them "
                           "together, as sn_create_chain adds them");
  sn_vec2 *points = malloc((size_t)d.count * sizeof *points);
  if (points == NULL) {
    b->out_of_memory = true;
    *used = run;
    return true;
  }
  int32_t n = sn_chain_get_points(W->world, chain, points, d.count);
  put(b, "{\"chain\": [");
  for (int32_t i = 0; i < n; ++i) {
    if (i) put(b, ", ");
    put_vec2(b, points[i]);
  }
  put(b, "]");
  free(points);
  put_bool_unless(b, "loop", d.is_loop, false);
  put_float_unless(b, "friction", d.friction, 0.6f);
  put_float_unless(b, "restitution", d.restitution, 0.0f);
  put_float_unless(b, "rolling_resistance", d.rolling_resistance, 0.0f);
  put_float_unless(b, "tangent_speed", d.tangent_speed, 0.0f);
  if (d.material != 0) putf(b, ", \"material\": %d", (int)d.material);
  if (d.category_bits != 1) putf(b, ", \"category_bits\": \"0x%llx\"", (unsigned long long)d.category_bits);
  if (d.mask_bits != UINT64_MAX) putf(b, ", \"mask_bits\": \"0x%llx\"", (unsigned long long)d.mask_bits);
  if (d.group_index != 0) putf(b, ", \"group_index\": %d", (int)d.group_index);
  put(b, "}");
  *used = run;
  return true;
}

static bool put_body(writer *W, sn_body_id id, const char *name) {
  text_buffer *b = &W->out;
  sn_body_def d;
  sn_body_get_def(W->world, id, &d);
  put(b, "    {\"name\": ");
  put_string(b, name);
  put(b, ", \"type\": ");
  put_string(b, sn_scene_body_type_name(d.type));
  put_key(b, "position");
  put_vec2(b, d.position);
  put_key(b, "angle");
  put_float(b, d.angle);
  if (d.rotation.c != 0.0f || d.rotation.s != 0.0f) {
    /* a rotation the solver integrated, which no float angle makes exactly */
    put_key(b, "rotation");
    put_vec2(b, (sn_vec2){d.rotation.c, d.rotation.s});
  }
  if (!same_vec2(d.linear_velocity, (sn_vec2){0.0f, 0.0f})) {
    put_key(b, "velocity");
    put_vec2(b, d.linear_velocity);
  }
  put_float_unless(b, "angular_velocity", d.angular_velocity, 0.0f);
  put_float_unless(b, "linear_damping", d.linear_damping, 0.0f);
  put_float_unless(b, "angular_damping", d.angular_damping, 0.0f);
  put_float_unless(b, "gravity_scale", d.gravity_scale, 1.0f);
  put_bool_unless(b, "bullet", d.is_bullet, false);
  put_bool_unless(b, "awake", d.is_awake || d.type == SN_BODY_STATIC || !sn_body_is_enabled(W->world, id), true);
  put_bool_unless(b, "enabled", sn_body_is_enabled(W->world, id), true);
  put_bool_unless(b, "sleep", d.enable_sleep, true);
  put_float_unless(b, "sleep_threshold", d.sleep_threshold, 0.05f);
  put_bool_unless(b, "fixed_rotation", d.fixed_rotation, false);
  int32_t count = sn_body_get_shape_count(W->world, id);
  if (count > 0) {
    sn_shape_id *shapes = malloc((size_t)count * sizeof *shapes);
    if (shapes == NULL) {
      b->out_of_memory = true;
      return true;
    }
    count = sn_body_get_shapes(W->world, id, shapes, count);
    put(b, ", \"shapes\": [");
    bool ok = true;
    for (int32_t i = 0, entry = 0; i < count && ok; ++entry) {
      if (entry) put(b, ", ");
      if (sn_shape_get_type(W->world, shapes[i]) == SN_SHAPE_CHAIN_SEGMENT) {
        int32_t used = 0;
        ok = put_chain(W, shapes, i, count, name, &used);
        i += used;
      } else {
        ok = put_shape(W, shapes[i], name, i);
        i++;
      }
    }
    free(shapes);
    if (!ok) return false;
    put(b, "]");
  }
  put(b, "}");
  return true;
}

static void put_param(text_buffer *b, const sn_param_desc *p, double x, double y) {
  putf(b, "\"%s\": ", p->name);
  switch (p->kind) {
  case SN_PARAM_BOOL:
    put(b, x != 0.0 ? "true" : "false");
    break;
  case SN_PARAM_INT:
    putf(b, "%d", (int)x);
    break;
  case SN_PARAM_VEC2:
    put_vec2(b, (sn_vec2){(float)x, (float)y});
    break;
  default:
    put_float(b, (float)x);
    break;
  }
}

bool sn_scene_plugin_of(const char *origin, char *out, size_t cap) {
  static const char linked_in[] = "linked-in plugin ";
  if (origin == NULL || origin[0] == '<') return false;
  const char *base;
  if (strncmp(origin, linked_in, sizeof linked_in - 1) == 0) {
    base = strrchr(origin, '.');
    base = base ? base + 1 : origin + sizeof linked_in - 1;
  } else {
    base = sn_path_last_separator(origin);
    base = base ? base + 1 : origin;
  }
  size_t n = strlen(base), suffix = strlen(SN_PLUGIN_SUFFIX);
  if (n > suffix && strcmp(base + n - suffix, SN_PLUGIN_SUFFIX) == 0) n -= suffix;
  if (n == 0 || n >= cap) return false;
  memcpy(out, base, n);
  out[n] = '\0';
  return true;
}

/* ------------------------------------------------------------------------ */
/* Soft bodies                                                               */

/// Where each particle is: its soft body (position in the file) and its
/// index in that body, by particle slot (index1 - 1).
typedef struct particle_map {
  int32_t *soft, *local;
  int32_t slots;
} particle_map;

/* A constraint's parameters as saved: sn_constraint_export_params, which
 * pins what the type derived at creation (local anchors, reference angle,
 * rest lengths, ...), so the file recreates the constraint as it is now
 * even after its bodies moved or its soft body deformed. */
typedef struct exported {
  void *blob;
  size_t size;
} exported;

static bool export_constraint(writer *W, sn_constraint_id k, const sn_constraint_type *t, exported *e) {
  e->size = t->params_size > 0 ? t->params_size : 1;
  e->blob = malloc(e->size);
  if (e->blob == NULL) {
    W->out.out_of_memory = true;
    return false;
  }
  sn_result r = sn_constraint_export_params(W->world, k, e->blob, e->size);
  if (r != SN_OK) {
    free(e->blob);
    e->blob = NULL;
    sn_scene_set_error(W->err, SN_SCENE_ERR_UNREPRESENTABLE, r, 0, 0, "a %s constraint cannot describe itself: %.300s",
                       t->name, sn_world_last_error(W->world));
    W->failed = true;
    return false;
  }
  return true;
}

/* value of parameter p in an exported blob (any alignment) */
static void blob_param(const exported *e, const sn_param_desc *p, double *x, double *y) {
  const char *at = (const char *)e->blob + p->offset;
  *y = 0.0;
  if (p->kind == SN_PARAM_FLOAT) {
    float f;
    memcpy(&f, at, sizeof f);
    *x = f;
  } else if (p->kind == SN_PARAM_VEC2) {
    sn_vec2 v;
    memcpy(&v, at, sizeof v);
    *x = v.x;
    *y = v.y;
  } else {
    int32_t i;
    memcpy(&i, at, sizeof i);
    *x = i;
  }
}

/* 1: same saved parameter values, 0: not, -1: failed (W's error is set) */
static int same_param_values(writer *W, sn_constraint_id a, sn_constraint_id b, const sn_constraint_type *t) {
  exported ea, eb;
  if (!export_constraint(W, a, t, &ea)) return -1;
  if (!export_constraint(W, b, t, &eb)) {
    free(ea.blob);
    return -1;
  }
  int same = 1;
  for (uint32_t j = 0; j < t->param_count && same; ++j) {
    double xa, ya, xb, yb;
    blob_param(&ea, t->params + j, &xa, &ya);
    blob_param(&eb, t->params + j, &xb, &yb);
    if (memcmp(&xa, &xb, sizeof xa) != 0 || memcmp(&ya, &yb, sizeof ya) != 0) same = 0;
  }
  free(ea.blob);
  free(eb.blob);
  return same;
}

static bool put_params(writer *W, sn_constraint_id k, const sn_constraint_type *t) {
  exported e;
  if (!export_constraint(W, k, t, &e)) return false;
  text_buffer *b = &W->out;
  put(b, "\"params\": {");
  for (uint32_t j = 0; j < t->param_count; ++j) {
    double x = 0.0, y = 0.0;
    blob_param(&e, t->params + j, &x, &y);
    if (j) put(b, ", ");
    put_param(b, t->params + j, x, y);
  }
  put(b, "}");
  free(e.blob);
  return true;
}

/// The most frequent value (by bits) of n floats; fallback if n is 0.
static float most_frequent(float *v, int32_t n, float fallback) {
  if (n <= 0) return fallback;
  uint32_t *bits = malloc((size_t)n * sizeof *bits);
  if (bits == NULL) return v[0];
  for (int32_t i = 0; i < n; ++i) memcpy(bits + i, v + i, sizeof *bits);
  /* sort the bit patterns (shell sort) and take the longest run */
  for (int32_t gap = n / 2; gap > 0; gap /= 2) {
    for (int32_t i = gap; i < n; ++i) {
      uint32_t x = bits[i];
      int32_t j = i;
      for (; j >= gap && bits[j - gap] > x; j -= gap) bits[j] = bits[j - gap];
      bits[j] = x;
    }
  }
  uint32_t best;
  memcpy(&best, v, sizeof best);
  int32_t best_run = 0;
  for (int32_t i = 0; i < n;) {
    int32_t j = i;
    while (j < n && bits[j] == bits[i]) ++j;
    if (j - i > best_run) {
      best_run = j - i;
      best = bits[i];
    }
    i = j;
  }
  free(bits);
  float f;
  memcpy(&f, &best, sizeof f);
  return f;
}

/* One soft body in the explicit ("custom") form: material, particles, edges
 * and its constraints (owner[c] == index), grouped by runs of the same type,
 * parameters and break force. */
static bool put_soft_body(writer *W, sn_soft_body_id soft, int32_t index, const char *name, const particle_map *map,
                          const sn_constraint_id *constraints, const int32_t *owner, int32_t constraint_count,
                          const sn_scene_names *names, sn_particle_id *scratch) {
  sn_world *w = W->world;
  text_buffer *b = &W->out;
  sn_soft_body_def d = sn_soft_body_get_material(w, soft);
  put(b, "    {\"name\": ");
  put_string(b, name);
  put(b, ", \"kind\": \"custom\"");
  put_float_unless(b, "friction", d.friction, 0.4f);
  put_float_unless(b, "restitution", d.restitution, 0.0f);
  put_float_unless(b, "linear_damping", d.damping, 0.0f);
  put_float_unless(b, "rigid_damping", d.rigid_damping, 0.0f);
  put_bool_unless(b, "collide_rigid", d.collide_rigid, true);
  put_bool_unless(b, "collide_soft", d.collide_soft, true);
  put_bool_unless(b, "self_collision", d.self_collision, false);

  int32_t n = sn_soft_body_get_particle_count(w, soft);
  sn_particle_id *ids = malloc(((size_t)n + 1) * sizeof *ids);
  float *values = malloc(((size_t)n + 1) * sizeof *values);
  if (ids == NULL || values == NULL) {
    free(ids);
    free(values);
    b->out_of_memory = true;
    return true;
  }
  n = sn_soft_body_get_particles(w, soft, ids, n);
  for (int32_t i = 0; i < n; ++i) values[i] = sn_particle_get_mass(w, ids[i]);
  float mass = most_frequent(values, n, 0.01f);
  for (int32_t i = 0; i < n; ++i) values[i] = sn_particle_get_radius(w, ids[i]);
  float radius = most_frequent(values, n, 0.02f);
  free(values);
  put_float_unless(b, "particle_mass", mass, 0.01f);
  put_float_unless(b, "particle_radius", radius, 0.02f);
  if (n > 0) {
    put(b, ",\n     \"particles\": [");
    for (int32_t i = 0; i < n; ++i) {
      put(b, i ? ",\n      {\"position\": " : "\n      {\"position\": ");
      put_vec2(b, sn_particle_get_position(w, ids[i]));
      sn_vec2 v = sn_particle_get_velocity(w, ids[i]);
      if (!same_vec2(v, (sn_vec2){0.0f, 0.0f})) {
        put_key(b, "velocity");
        put_vec2(b, v);
      }
      put_float_unless(b, "mass", sn_particle_get_mass(w, ids[i]), mass);
      put_float_unless(b, "radius", sn_particle_get_radius(w, ids[i]), radius);
      put_bool_unless(b, "kinematic", sn_particle_is_kinematic(w, ids[i]), false);
      put(b, "}");
    }
    put(b, "\n     ]");
  }
  free(ids);

  int32_t edges = sn_soft_body_get_edge_count(w, soft);
  if (edges > 0) {
    sn_particle_id *pairs = malloc((size_t)edges * 2 * sizeof *pairs);
    if (pairs == NULL) {
      b->out_of_memory = true;
      return true;
    }
    edges = sn_soft_body_get_edges(w, soft, pairs, edges);
    put(b, ",\n     \"edges\": [");
    for (int32_t i = 0; i < edges; ++i) {
      putf(b, "%s[%d, %d]", i ? ", " : "", (int)map->local[pairs[2 * i].index1 - 1],
           (int)map->local[pairs[2 * i + 1].index1 - 1]);
    }
    put(b, "]");
    free(pairs);
  }

  bool any = false;
  for (int32_t c = 0; c < constraint_count;) {
    if (owner[c] != index) {
      ++c;
      continue;
    }
    sn_constraint_id k = constraints[c];
    const sn_constraint_type *t = sn_constraint_get_type(w, k);
    const char *cname = sn_scene_names_get_constraint(names, k);
    float brk = sn_constraint_get_break_force(w, k);
    put(b, any ? ",\n      {" : ",\n     \"constraints\": [\n      {");
    any = true;
    if (cname != NULL) {
      put(b, "\"name\": ");
      put_string(b, cname);
      put(b, ", ");
    }
    put(b, "\"type\": ");
    put_string(b, t->name);
    put(b, ", ");
    if (!put_params(W, k, t)) return false;
    put_float_unless(b, "break_force", brk, 0.0f);
    put(b, ", \"particles\": [");
    /* this constraint and the following ones of the same kind (a named one stands alone) */
    int32_t written = 0;
    for (int32_t e = c; e < constraint_count; ++e) {
      if (owner[e] != index) continue;
      sn_constraint_id q = constraints[e];
      if (written > 0) {
        float qb = sn_constraint_get_break_force(w, q);
        if (cname != NULL || sn_constraint_get_type(w, q) != t || !same_float(qb, brk) ||
            sn_scene_names_get_constraint(names, q) != NULL)
          break;
        int same = same_param_values(W, k, q, t);
        if (same < 0) return false;
        if (same == 0) break;
      }
      int32_t pc = sn_constraint_get_particles(w, q, scratch, SN_MAX_CONSTRAINT_PARTICLES);
      put(b, written ? ", [" : "[");
      for (int32_t j = 0; j < pc; ++j) putf(b, "%s%d", j ? ", " : "", (int)map->local[scratch[j].index1 - 1]);
      put(b, "]");
      written++;
      c = e + 1;
    }
    put(b, "]}");
  }
  if (any) put(b, "\n     ]");
  put(b, "}");
  return true;
}

/* ------------------------------------------------------------------------ */
/* The scene                                                                 */

/// A setting's value (field of *settings) as JSON.
static void put_setting(text_buffer *b, const sn_world_settings *settings, const sn_setting_info *info) {
  const char *field = (const char *)settings + info->offset;
  switch (info->type) {
  case SN_SETTING_TYPE_INT: {
    int32_t v;
    memcpy(&v, field, sizeof v);
    putf(b, "%d", (int)v);
    break;
  }
  case SN_SETTING_TYPE_FLOAT: {
    float v;
    memcpy(&v, field, sizeof v);
    put_float(b, v);
    break;
  }
  case SN_SETTING_TYPE_BOOL: {
    bool v;
    memcpy(&v, field, sizeof v);
    put(b, v ? "true" : "false");
    break;
  }
  case SN_SETTING_TYPE_VEC2: {
    sn_vec2 v;
    memcpy(&v, field, sizeof v);
    put_vec2(b, v);
    break;
  }
  }
}

static bool write_scene(writer *W, const sn_scene_names *names) {
  sn_world *w = W->world;
  text_buffer *b = &W->out;
  sn_world_settings settings;
  if (sn_world_settings_of(w, &settings) != SN_OK) {
    sn_scene_set_error(W->err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "the world is NULL");
    return false;
  }
  /* every setting, whatever its value: the top-level ones (gravity), then "settings" */
  put(b, "{\n  \"sinew_scene\": 1");
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if ((info->flags & SN_SETTING_TOP_LEVEL) == 0) continue;
    putf(b, ",\n  \"%s\": ", info->key);
    put_setting(b, &settings, info);
  }
  put(b, ",\n  \"settings\": {");
  bool first = true;
  for (int pass = 0; pass < 2; ++pass) { /* those of sn_world_def, then those accessors reach */
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      const sn_setting_info *info = sn_world_setting_info(i);
      if ((info->flags & SN_SETTING_TOP_LEVEL) || info->in_def != (pass == 0)) continue;
      putf(b, "%s\"%s\": ", first ? "" : ", ", info->key);
      put_setting(b, &settings, info);
      first = false;
    }
  }
  put(b, "},\n");

  int32_t body_count = sn_world_get_body_count(w), constraint_count = sn_world_get_constraint_count(w);
  int32_t soft_count = sn_world_get_soft_body_count(w);
  sn_body_id *bodies = malloc(((size_t)body_count + 1) * sizeof *bodies);
  sn_constraint_id *constraints = malloc(((size_t)constraint_count + 1) * sizeof *constraints);
  sn_soft_body_id *softs = malloc(((size_t)soft_count + 1) * sizeof *softs);
  char **body_names = calloc((size_t)body_count + (size_t)soft_count + 1, sizeof *body_names);
  int32_t *owner = malloc(((size_t)constraint_count + 1) * sizeof *owner); /* soft body, or -1: top level */
  sn_particle_id *scratch = malloc(SN_MAX_CONSTRAINT_PARTICLES * sizeof *scratch);
  int32_t *saved_index = NULL; /* body slot -> position in the file */
  particle_map map = {NULL, NULL, 0};
  sn_name_space taken;
  memset(&taken, 0, sizeof taken);
  bool ok = bodies && constraints && softs && body_names && owner && scratch;
  if (ok) {
    body_count = sn_world_get_bodies(w, bodies, body_count);
    constraint_count = sn_world_get_constraints(w, constraints, constraint_count);
    soft_count = sn_world_get_soft_bodies(w, softs, soft_count);
    int32_t slots = body_count > 0 ? bodies[body_count - 1].index1 : 0;
    saved_index = malloc(((size_t)slots + 1) * sizeof *saved_index);
    ok = saved_index != NULL;
    for (int32_t i = 0; ok && i < body_count; ++i) saved_index[bodies[i].index1 - 1] = i;
  }
  /* particles: slot -> (soft body, index in it) */
  for (int32_t j = 0; ok && j < soft_count; ++j) {
    int32_t n = sn_soft_body_get_particle_count(w, softs[j]);
    sn_particle_id *ids = malloc(((size_t)n + 1) * sizeof *ids);
    ok = ids != NULL;
    if (!ok) break;
    n = sn_soft_body_get_particles(w, softs[j], ids, n);
    for (int32_t i = 0; i < n; ++i) {
      if (ids[i].index1 > map.slots) map.slots = ids[i].index1;
    }
    free(ids);
  }
  if (ok && soft_count > 0) {
    map.soft = malloc(((size_t)map.slots + 1) * sizeof *map.soft);
    map.local = malloc(((size_t)map.slots + 1) * sizeof *map.local);
    ok = map.soft != NULL && map.local != NULL;
    for (int32_t j = 0; ok && j < soft_count; ++j) {
      int32_t n = sn_soft_body_get_particle_count(w, softs[j]);
      sn_particle_id *ids = malloc(((size_t)n + 1) * sizeof *ids);
      ok = ids != NULL;
      if (!ok) break;
      n = sn_soft_body_get_particles(w, softs[j], ids, n);
      for (int32_t i = 0; i < n; ++i) {
        map.soft[ids[i].index1 - 1] = j;
        map.local[ids[i].index1 - 1] = i;
      }
      free(ids);
    }
  }
  /* constraints joining only particles of one soft body are saved with it */
  for (int32_t c = 0; ok && c < constraint_count; ++c) {
    sn_body_id jb[SN_MAX_CONSTRAINT_BODIES];
    int32_t nb = sn_constraint_get_bodies(w, constraints[c], jb);
    int32_t pc = sn_constraint_get_particles(w, constraints[c], scratch, SN_MAX_CONSTRAINT_PARTICLES);
    owner[c] = -1;
    if (nb != 0 || pc == 0) continue;
    int32_t s0 = map.soft[scratch[0].index1 - 1];
    bool one = true;
    for (int32_t j = 1; j < pc && one; ++j) one = map.soft[scratch[j].index1 - 1] == s0;
    if (one) owner[c] = s0;
  }
  /* names: given ones first, then generated ones that clash with none;
   * bodies are slots 1..body_count of the shared namespace, soft bodies follow */
  const int32_t total = body_count + soft_count;
  for (int32_t i = 0; ok && i < total; ++i) {
    const char *given = i < body_count ? sn_scene_names_get_body(names, bodies[i])
                                       : sn_scene_names_get_soft_body(names, softs[i - body_count]);
    if (given == NULL) continue;
    sn_scene_status st = sn_name_space_set(&taken, (sn_name_id){i + 1, 0, 0}, given, NULL);
    if (st == SN_SCENE_ERR_DUPLICATE_NAME) {
      sn_scene_set_error(W->err, SN_SCENE_ERR_UNREPRESENTABLE, SN_OK, 0, 0,
                         "the name \"%.100s\" is given to two bodies or soft bodies; expected unique names", given);
      ok = false;
      W->failed = true;
      break;
    }
    ok = st == SN_SCENE_OK;
    body_names[i] = (char *)given;
  }
  char generated[64];
  for (int32_t i = 0; ok && i < total; ++i) {
    if (body_names[i] != NULL) continue;
    sn_name_id other;
    const char *stem = i < body_count ? "body" : "soft";
    int32_t at = i < body_count ? i : i - body_count;
    snprintf(generated, sizeof generated, "%s%d", stem, (int)at);
    for (int k = 2; sn_name_space_find(&taken, generated, &other); ++k)
      snprintf(generated, sizeof generated, "%s%d_%d", stem, (int)at, k);
    ok = sn_name_space_set(&taken, (sn_name_id){i + 1, 0, 0}, generated, NULL) == SN_SCENE_OK;
    if (ok) body_names[i] = (char *)sn_name_space_get(&taken, (sn_name_id){i + 1, 0, 0});
  }
  if (!ok) {
    if (!W->failed) b->out_of_memory = true;
  } else {
    /* plugins of the constraint types used, in order of first use */
    const sn_registry *reg = sn_world_get_registry(w);
    put(b, "  \"plugins\": [");
    char listed[64][SN_MAX_TYPE_NAME];
    int32_t listed_count = 0;
    for (int32_t i = 0; i < constraint_count; ++i) {
      const char *type = sn_constraint_get_type_name(w, constraints[i]);
      char plugin[SN_MAX_TYPE_NAME];
      if (type == NULL || !sn_scene_plugin_of(sn_registry_get_type_origin(reg, type), plugin, sizeof plugin)) continue;
      bool seen = false;
      for (int32_t j = 0; j < listed_count && !seen; ++j) seen = strcmp(listed[j], plugin) == 0;
      if (seen) continue;
      if (listed_count == 64) {
        sn_scene_set_error(W->err, SN_SCENE_ERR_UNREPRESENTABLE, SN_OK, 0, 0, "more than 64 plugins in use");
        ok = false;
        break;
      }
      memcpy(listed[listed_count++], plugin, sizeof plugin);
      if (listed_count > 1) put(b, ", ");
      put_string(b, plugin);
    }
    put(b, "],\n  \"bodies\": [");
    for (int32_t i = 0; ok && i < body_count; ++i) {
      put(b, i ? ",\n" : "\n");
      ok = put_body(W, bodies[i], body_names[i]);
    }
    put(b, body_count > 0 ? "\n  ],\n" : "],\n");
    if (soft_count > 0) {
      put(b, "  \"soft_bodies\": [");
      for (int32_t j = 0; ok && j < soft_count; ++j) {
        put(b, j ? ",\n" : "\n");
        ok = put_soft_body(W, softs[j], j, body_names[body_count + j], &map, constraints, owner, constraint_count,
                           names, scratch);
      }
      put(b, "\n  ],\n");
    }
    put(b, "  \"constraints\": [");
    int32_t written = 0;
    for (int32_t i = 0; ok && i < constraint_count; ++i) {
      if (owner[i] >= 0) continue;
      sn_constraint_id k = constraints[i];
      const sn_constraint_type *t = sn_constraint_get_type(w, k);
      sn_body_id jb[SN_MAX_CONSTRAINT_BODIES];
      int32_t n = sn_constraint_get_bodies(w, k, jb);
      int32_t pc = sn_constraint_get_particles(w, k, scratch, SN_MAX_CONSTRAINT_PARTICLES);
      put(b, written++ ? ",\n    {" : "\n    {");
      const char *name = sn_scene_names_get_constraint(names, k);
      if (name != NULL) {
        put(b, "\"name\": ");
        put_string(b, name);
        put(b, ", ");
      }
      put(b, "\"type\": ");
      put_string(b, t->name);
      if (n > 0) {
        put(b, ", \"bodies\": [");
        for (int32_t j = 0; j < n; ++j) {
          if (j) put(b, ", ");
          put_string(b, body_names[saved_index[jb[j].index1 - 1]]);
        }
        put(b, "]");
      }
      if (pc > 0) {
        put(b, ", \"particles\": [");
        for (int32_t j = 0; j < pc; ++j) {
          int32_t slot = scratch[j].index1 - 1;
          put(b, j ? ", [" : "[");
          put_string(b, body_names[body_count + map.soft[slot]]);
          putf(b, ", %d]", (int)map.local[slot]);
        }
        put(b, "]");
      }
      put(b, ", ");
      ok = put_params(W, k, t);
      put_float_unless(b, "break_force", sn_constraint_get_break_force(w, k), 0.0f);
      put_bool_unless(b, "collide_connected", sn_constraint_get_collide_connected(w, k), false);
      put(b, "}");
    }
    put(b, written > 0 ? "\n  ]\n}\n" : "]\n}\n");
  }
  sn_name_space_free(&taken);
  free(bodies);
  free(constraints);
  free(softs);
  free(body_names);
  free(owner);
  free(scratch);
  free(saved_index);
  free(map.soft);
  free(map.local);
  if (ok && b->out_of_memory) {
    sn_scene_set_error(W->err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "out of memory");
    return false;
  }
  if (ok && b->not_finite) {
    sn_scene_set_error(W->err, SN_SCENE_ERR_UNREPRESENTABLE, SN_ERR_NOT_FINITE, 0, 0,
                       "a value of the world is NaN or infinite: a scene file cannot hold it");
    return false;
  }
  if (!ok && !W->failed && W->err->status == SN_SCENE_OK)
    sn_scene_set_error(W->err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "out of memory");
  return ok;
}

char *sn_scene_save_string(sn_world *world, const sn_scene_names *names, sn_scene_error *error) {
  sn_scene_error local;
  writer W;
  memset(&W, 0, sizeof W);
  W.world = world;
  W.err = error ? error : &local;
  memset(W.err, 0, sizeof *W.err);
  if (world == NULL) {
    sn_scene_set_error(W.err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "the world is NULL");
    return NULL;
  }
  if (!write_scene(&W, names)) {
    free(W.out.data);
    return NULL;
  }
  return W.out.data;
}

void sn_scene_free_text(char *text) { free(text); }

sn_scene_status sn_scene_save_file(const char *path, sn_world *world, const sn_scene_names *names,
                                   sn_scene_error *error) {
  sn_scene_error local;
  sn_scene_error *err = error ? error : &local;
  memset(err, 0, sizeof *err);
  if (path == NULL) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "path is NULL");
    return SN_SCENE_ERR_ARGUMENT;
  }
  char *text = sn_scene_save_string(world, names, err);
  if (text == NULL) {
    char why[sizeof err->message];
    memcpy(why, err->message, sizeof why);
    snprintf(err->message, sizeof err->message, "%s: %.700s", path, why);
    return err->status;
  }
  char why[768];
  bool ok = sn_file_write_atomic(path, text, strlen(text), SN_FILE_FAULT_NONE, why, sizeof why);
  free(text);
  if (!ok) {
    sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: cannot save: %s (the old file, if any, is unchanged)",
                       path, why);
    return SN_SCENE_ERR_IO;
  }
  return SN_SCENE_OK;
}
