/* Strict JSON recognizer that records positions (see json_text.h). It accepts
 * exactly RFC 8259 (no comments, no trailing commas, no leading zeros, no
 * control characters in strings), plus a leading UTF-8 byte order mark as
 * cJSON does, and refuses \u0000 (cJSON would cut the string there). Anything
 * it accepts, cJSON parses to a tree of the same shape. */
#include "json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scanner {
  const unsigned char *s;
  size_t n, i;
  sn_json_map *map;
  size_t error_offset;
  const char *expected;
  int depth;
} scanner;

static bool fail(scanner *sc, size_t at, const char *expected) {
  sc->error_offset = at;
  sc->expected = expected;
  return false;
}

static void skip_ws(scanner *sc) {
  while (sc->i < sc->n) {
    unsigned char c = sc->s[sc->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    sc->i++;
  }
}

static bool record(scanner *sc, uint32_t key) {
  sn_json_map *m = sc->map;
  if (m->count == m->capacity) {
    size_t cap = m->capacity ? 2 * m->capacity : 256;
    sn_json_pos *p = realloc(m->pos, cap * sizeof *p);
    if (p == NULL) {
      m->out_of_memory = true;
      return fail(sc, sc->i, "memory");
    }
    m->pos = p;
    m->capacity = cap;
  }
  m->pos[m->count++] = (sn_json_pos){(uint32_t)sc->i, key};
  return true;
}

static int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* \uXXXX at sc->i (after the backslash and 'u'); returns the code unit or -1. */
static long read_hex4(scanner *sc) {
  if (sc->n - sc->i < 4) return -1;
  long v = 0;
  for (int k = 0; k < 4; ++k) {
    int h = hex_value(sc->s[sc->i + (size_t)k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  sc->i += 4;
  return v;
}

static bool scan_string(scanner *sc) {
  size_t start = sc->i;
  sc->i++; /* opening quote */
  while (sc->i < sc->n) {
    unsigned char c = sc->s[sc->i];
    if (c == '"') {
      sc->i++;
      return true;
    }
    if (c == '\n' || c == '\r')
      return fail(sc, start, "a closing '\"' on the same line (the string is not terminated)");
    if (c < 0x20) return fail(sc, sc->i, "no control character inside a string (write it as an escape such as \\t)");
    if (c != '\\') {
      sc->i++;
      continue;
    }
    size_t esc = sc->i;
    sc->i++;
    if (sc->i >= sc->n) break;
    c = sc->s[sc->i++];
    if (strchr("\"\\/bfnrt", c) != NULL && c != '\0') continue;
    if (c != 'u') return fail(sc, esc, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)");
    long u = read_hex4(sc);
    if (u < 0) return fail(sc, esc, "four hex digits after \\u");
    if (u == 0) return fail(sc, esc, "no \\u0000 (NUL) inside a string");
    if (u >= 0xDC00 && u <= 0xDFFF) return fail(sc, esc, "a high surrogate (\\uD800-\\uDBFF) before a low one");
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (sc->n - sc->i < 2 || sc->s[sc->i] != '\\' || sc->s[sc->i + 1] != 'u')
        return fail(sc, esc, "a low surrogate (\\uDC00-\\uDFFF) after a high one");
      sc->i += 2;
      long lo = read_hex4(sc);
      if (lo < 0xDC00 || lo > 0xDFFF) return fail(sc, esc, "a low surrogate (\\uDC00-\\uDFFF) after a high one");
    }
  }
  return fail(sc, start, "a closing '\"' (the string is not terminated)");
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static bool scan_number(scanner *sc) {
  if (sc->s[sc->i] == '-') sc->i++;
  if (sc->i >= sc->n || !is_digit(sc->s[sc->i])) return fail(sc, sc->i, "a digit");
  if (sc->s[sc->i] == '0') {
    sc->i++;
  } else {
    while (sc->i < sc->n && is_digit(sc->s[sc->i])) sc->i++;
  }
  if (sc->i < sc->n && sc->s[sc->i] == '.') {
    sc->i++;
    if (sc->i >= sc->n || !is_digit(sc->s[sc->i])) return fail(sc, sc->i, "a digit after '.'");
    while (sc->i < sc->n && is_digit(sc->s[sc->i])) sc->i++;
  }
  if (sc->i < sc->n && (sc->s[sc->i] == 'e' || sc->s[sc->i] == 'E')) {
    sc->i++;
    if (sc->i < sc->n && (sc->s[sc->i] == '+' || sc->s[sc->i] == '-')) sc->i++;
    if (sc->i >= sc->n || !is_digit(sc->s[sc->i])) return fail(sc, sc->i, "a digit in the exponent");
    while (sc->i < sc->n && is_digit(sc->s[sc->i])) sc->i++;
  }
  return true;
}

static bool scan_literal(scanner *sc, const char *word) {
  size_t len = strlen(word);
  if (sc->n - sc->i < len || memcmp(sc->s + sc->i, word, len) != 0)
    return fail(sc, sc->i, "a value (object, array, string, number, true, false or null)");
  sc->i += len;
  return true;
}

static bool scan_value(scanner *sc, uint32_t key);

static bool scan_object(scanner *sc) {
  sc->i++; /* { */
  skip_ws(sc);
  if (sc->i < sc->n && sc->s[sc->i] == '}') {
    sc->i++;
    return true;
  }
  for (;;) {
    skip_ws(sc);
    if (sc->i >= sc->n || sc->s[sc->i] != '"') return fail(sc, sc->i, "a key in double quotes");
    uint32_t key = (uint32_t)sc->i;
    if (!scan_string(sc)) return false;
    skip_ws(sc);
    if (sc->i >= sc->n || sc->s[sc->i] != ':') return fail(sc, sc->i, "':' after the key");
    sc->i++;
    skip_ws(sc);
    if (!scan_value(sc, key)) return false;
    skip_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == ',') {
      sc->i++;
      continue;
    }
    if (sc->i < sc->n && sc->s[sc->i] == '}') {
      sc->i++;
      return true;
    }
    return fail(sc, sc->i, "',' or '}'");
  }
}

static bool scan_array(scanner *sc) {
  sc->i++; /* [ */
  skip_ws(sc);
  if (sc->i < sc->n && sc->s[sc->i] == ']') {
    sc->i++;
    return true;
  }
  for (;;) {
    skip_ws(sc);
    if (!scan_value(sc, SN_JSON_NO_KEY)) return false;
    skip_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == ',') {
      sc->i++;
      continue;
    }
    if (sc->i < sc->n && sc->s[sc->i] == ']') {
      sc->i++;
      return true;
    }
    return fail(sc, sc->i, "',' or ']'");
  }
}

static bool scan_value(scanner *sc, uint32_t key) {
  if (sc->i >= sc->n) return fail(sc, sc->i, "a value (the text ends here)");
  unsigned char c = sc->s[sc->i];
  bool container = c == '{' || c == '[';
  if (!(container || c == '"' || c == '-' || is_digit(c) || c == 't' || c == 'f' || c == 'n'))
    return fail(sc, sc->i, "a value (object, array, string, number, true, false or null)");
  if (container && sc->depth >= SN_JSON_MAX_DEPTH) return fail(sc, sc->i, "at most 256 levels of nesting");
  if (!record(sc, key)) return false;
  switch (c) {
  case '{':
  case '[': {
    sc->depth++;
    bool ok = c == '{' ? scan_object(sc) : scan_array(sc);
    sc->depth--;
    return ok;
  }
  case '"':
    return scan_string(sc);
  case 't':
    return scan_literal(sc, "true");
  case 'f':
    return scan_literal(sc, "false");
  case 'n':
    return scan_literal(sc, "null");
  default:
    return scan_number(sc);
  }
}

bool sn_json_scan(const char *text, size_t length, sn_json_map *map, size_t *error_offset, char *expected,
                  size_t expected_capacity) {
  memset(map, 0, sizeof *map);
  scanner sc = {(const unsigned char *)text, length, 0, map, 0, NULL, 0};
  if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) sc.i = 3;
  skip_ws(&sc);
  bool ok;
  if (sc.i >= sc.n) {
    ok = fail(&sc, sc.i, "a JSON object (the document is empty)");
  } else {
    ok = scan_value(&sc, SN_JSON_NO_KEY);
    if (ok) {
      skip_ws(&sc);
      if (sc.i < sc.n) ok = fail(&sc, sc.i, "the end of the document after the top-level value");
    }
  }
  if (!ok) {
    *error_offset = sc.error_offset;
    snprintf(expected, expected_capacity, "%s", sc.expected ? sc.expected : "valid JSON");
  }
  return ok;
}

typedef struct binder {
  sn_json_map *map;
  size_t next;
  bool ok;
} binder;

static void bind_walk(binder *b, const cJSON *node) {
  for (; node != NULL && b->ok; node = node->next) {
    if (b->next >= b->map->count) {
      b->ok = false;
      return;
    }
    b->map->by_node[b->next] = (sn_json_node_pos){node, b->map->pos[b->next]};
    b->next++;
    if (node->child) bind_walk(b, node->child);
  }
}

static int by_node_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const sn_json_node_pos *)a)->node;
  uintptr_t y = (uintptr_t)((const sn_json_node_pos *)b)->node;
  return x < y ? -1 : x > y;
}

bool sn_json_bind(sn_json_map *map, const cJSON *root) {
  if (map->count == 0) return false;
  map->by_node = malloc(map->count * sizeof *map->by_node);
  if (map->by_node == NULL) {
    map->out_of_memory = true;
    return false;
  }
  /* the root alone (a document has one top-level value), then its children */
  binder b = {map, 0, true};
  map->by_node[b.next] = (sn_json_node_pos){root, map->pos[0]};
  b.next = 1;
  if (root->child) bind_walk(&b, root->child);
  if (!b.ok || b.next != map->count) return false;
  map->node_count = map->count;
  qsort(map->by_node, map->node_count, sizeof *map->by_node, by_node_cmp);
  return true;
}

const sn_json_pos *sn_json_find(const sn_json_map *map, const cJSON *node) {
  size_t lo = 0, hi = map->node_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)map->by_node[mid].node < (uintptr_t)node)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < map->node_count && map->by_node[lo].node == node) return &map->by_node[lo].pos;
  return NULL;
}

void sn_json_map_free(sn_json_map *map) {
  free(map->pos);
  free(map->by_node);
  memset(map, 0, sizeof *map);
}

void sn_json_line_column(const char *text, size_t length, size_t offset, int32_t *line, int32_t *column) {
  if (offset > length) offset = length;
  int32_t l = 1, c = 1;
  size_t i = length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 && offset >= 3 ? 3 : 0;
  for (; i < offset; ++i) {
    unsigned char ch = (unsigned char)text[i];
    if (ch == '\n') {
      l++;
      c = 1;
    } else if ((ch & 0xC0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *column = c;
}
