/* Scene loader: reading the JSON tree. Where a node is (line, column and
 * the key path, for messages), failing with a message, and typed values
 * (numbers in ranges, floats, ints, bools, strings, vectors, names) and key
 * checks that every part of the loader reads the document through. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_loader.h"

/* ------------------------------------------------------------------------ */
/* Locations, paths and messages                                             */

size_t sn_scene_node_offset(const sn_loader *L, const cJSON *node, bool at_key) {
  const sn_json_pos *p = node ? sn_json_find(&L->map, node) : NULL;
  if (p == NULL) return 0;
  if (at_key && p->key != SN_JSON_NO_KEY) return p->key;
  return p->value;
}

size_t sn_scene_path_push_key(sn_loader *L, const char *key) {
  size_t mark = L->path_len;
  int n = snprintf(L->path + mark, sizeof L->path - mark, "%s%s", mark ? "." : "", key);
  if (n > 0) L->path_len = mark + (size_t)n < sizeof L->path ? mark + (size_t)n : sizeof L->path - 1;
  return mark;
}

size_t sn_scene_path_push_index(sn_loader *L, int32_t index) {
  size_t mark = L->path_len;
  int n = snprintf(L->path + mark, sizeof L->path - mark, "[%d]", (int)index);
  if (n > 0) L->path_len = mark + (size_t)n < sizeof L->path ? mark + (size_t)n : sizeof L->path - 1;
  return mark;
}

void sn_scene_path_pop(sn_loader *L, size_t mark) {
  L->path_len = mark;
  L->path[mark] = '\0';
}

static void fail_at_offset(sn_loader *L, sn_scene_status status, sn_result engine, size_t offset, const char *fmt,
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
bool sn_scene_fail(sn_loader *L, sn_scene_status status, sn_result engine, const cJSON *node, bool at_key,
                   const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  fail_at_offset(L, status, engine, sn_scene_node_offset(L, node, at_key), fmt, args);
  va_end(args);
  return false;
}

/// Same, with the key of node appended to the path (for errors about a key).
SN_PRINTF(4, 5)
bool sn_scene_fail_key(sn_loader *L, sn_scene_status status, const cJSON *node, const char *fmt, ...) {
  size_t mark = sn_scene_path_push_key(L, node->string);
  va_list args;
  va_start(args, fmt);
  fail_at_offset(L, status, SN_OK, sn_scene_node_offset(L, node, true), fmt, args);
  va_end(args);
  sn_scene_path_pop(L, mark);
  return false;
}

bool sn_scene_out_of_memory(sn_loader *L) {
  sn_scene_set_error(L->err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "%s: out of memory", L->source);
  return false;
}

/// "a string", "-0.5", "an object"... for "got ..." in messages.
const char *sn_scene_describe(const sn_loader *L, const cJSON *n, char *buf, size_t cap) {
  if (cJSON_IsNumber(n)) {
    size_t at = sn_scene_node_offset(L, n, false), len = 0;
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

const cJSON *sn_scene_member(const cJSON *obj, const char *key) {
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (c->string != NULL && strcmp(c->string, key) == 0) return c;
  }
  return NULL;
}

bool sn_scene_in_list(const char *key, const char *const *list) {
  for (; *list != NULL; ++list) {
    if (strcmp(key, *list) == 0) return true;
  }
  return false;
}

void sn_scene_join_list(const char *const *list, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (; *list != NULL && n < cap; ++list) {
    int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", *list);
    if (w < 0) break;
    n += (size_t)w;
  }
}

/// A key given twice in one object.
bool sn_scene_check_duplicate_key(sn_loader *L, const cJSON *obj, const cJSON *c) {
  for (const cJSON *p = obj->child; p != c; p = p->next) {
    if (strcmp(p->string, c->string) == 0) {
      int32_t line, column;
      sn_json_line_column(L->text, L->length, sn_scene_node_offset(L, p, true), &line, &column);
      return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c,
                               "key \"%s\" is given twice (first at %d:%d); expected it once", c->string, (int)line,
                               (int)column);
    }
  }
  return true;
}

/// Every key of obj is in allowed, and none is given twice.
bool sn_scene_check_keys(sn_loader *L, const cJSON *obj, const char *const *allowed, const char *what) {
  for (const cJSON *c = obj->child; c != NULL; c = c->next) {
    if (!sn_scene_check_duplicate_key(L, obj, c)) return false;
    if (!sn_scene_in_list(c->string, allowed)) {
      char list[512];
      sn_scene_join_list(allowed, list, sizeof list);
      return sn_scene_fail_key(L, SN_SCENE_ERR_UNKNOWN_KEY, c, "unknown key \"%s\" in %s; expected one of: %s",
                               c->string, what, list);
    }
  }
  return true;
}

bool sn_scene_missing(sn_loader *L, const cJSON *obj, const char *key, const char *expected) {
  return sn_scene_fail(L, SN_SCENE_ERR_MISSING_KEY, SN_OK, obj, false, "missing required key \"%s\"; expected %s", key,
                       expected);
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */

static void range_text(sn_scene_range r, bool whole, char *buf, size_t cap) {
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

bool sn_scene_check_number(sn_loader *L, const cJSON *n, sn_scene_range r, bool whole, double *out) {
  char expected[128], got[96];
  range_text(r, whole, expected, sizeof expected);
  if (!cJSON_IsNumber(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  double v = n->valuedouble;
  bool ok = isfinite(v) && v <= r.hi && (r.lo_open ? v > r.lo : v >= r.lo) && (!whole || v == floor(v));
  if (ok && !whole) ok = isfinite((float)v);
  if (!ok)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  *out = v;
  return true;
}

bool sn_scene_read_float(sn_loader *L, const cJSON *n, sn_scene_range r, float *out) {
  double v;
  if (!sn_scene_check_number(L, n, r, false, &v)) return false;
  *out = (float)v;
  return true;
}

bool sn_scene_read_int(sn_loader *L, const cJSON *n, int32_t lo, int32_t hi, int32_t *out) {
  double v;
  if (!sn_scene_check_number(L, n, (sn_scene_range){lo, hi, false}, true, &v)) return false;
  *out = (int32_t)v;
  return true;
}

bool sn_scene_read_bool(sn_loader *L, const cJSON *n, bool *out) {
  char got[96];
  if (!cJSON_IsBool(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected true or false, got %s",
                         sn_scene_describe(L, n, got, sizeof got));
  *out = cJSON_IsTrue(n);
  return true;
}

bool sn_scene_read_string(sn_loader *L, const cJSON *n, const char *expected, const char **out) {
  char got[96];
  if (!cJSON_IsString(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  *out = n->valuestring;
  return true;
}

bool sn_scene_read_array(sn_loader *L, const cJSON *n, const char *expected) {
  char got[96];
  if (!cJSON_IsArray(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  return true;
}

bool sn_scene_read_object(sn_loader *L, const cJSON *n, const char *expected) {
  char got[96];
  if (!cJSON_IsObject(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected %s, got %s", expected,
                         sn_scene_describe(L, n, got, sizeof got));
  return true;
}

/// [x, y]: exactly two numbers within r.
bool sn_scene_read_vec2_in(sn_loader *L, const cJSON *n, sn_scene_range r, sn_vec2 *out) {
  char got[96];
  if (!cJSON_IsArray(n))
    return sn_scene_fail(L, SN_SCENE_ERR_TYPE, SN_OK, n, false, "expected [x, y] (an array of 2 numbers), got %s",
                         sn_scene_describe(L, n, got, sizeof got));
  if (cJSON_GetArraySize(n) != 2)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "expected [x, y] (an array of 2 numbers), got %d values", cJSON_GetArraySize(n));
  float v[2];
  int i = 0;
  for (const cJSON *c = n->child; c != NULL; c = c->next, ++i) {
    size_t mark = sn_scene_path_push_index(L, i);
    bool ok = sn_scene_read_float(L, c, r, v + i);
    sn_scene_path_pop(L, mark);
    if (!ok) return false;
  }
  *out = (sn_vec2){v[0], v[1]};
  return true;
}

bool sn_scene_read_vec2(sn_loader *L, const cJSON *n, sn_vec2 *out) {
  return sn_scene_read_vec2_in(L, n, SN_RANGE_ANY, out);
}

bool sn_scene_read_name(sn_loader *L, const cJSON *n, const char **out) {
  if (!sn_scene_read_string(L, n, "a name (a string)", out)) return false;
  const char *why = NULL;
  long bad = sn_utf8_invalid(*out, &why);
  if (bad >= 0)
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "expected a name in well-formed UTF-8, got %s at byte %ld of the name (0x%02X)", why, bad + 1,
                         (unsigned)(unsigned char)(*out)[bad]);
  if (!sn_name_is_valid(*out)) {
    /* quote at most 40 bytes, cut at a character boundary */
    int shown = 0;
    for (int i = 0; (*out)[i] != '\0' && i <= 40; ++i) {
      if (((unsigned char)(*out)[i] & 0xC0) != 0x80) shown = i;
    }
    if (strlen(*out) <= 40) shown = (int)strlen(*out);
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, n, false,
                         "expected a name of 1 to %d bytes without control characters, got \"%.*s\"", SN_SCENE_MAX_NAME,
                         shown, *out);
  }
  return true;
}
