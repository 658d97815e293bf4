/* Name tables of bodies and constraints (see sn_scene_names in scene_file.h),
 * status names and the error writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

static const char *const sn_scene_status_names[] = {
#define SN_X_NAME(name, id, msg) [id] = #name,
    SN_SCENE_STATUS_TABLE(SN_X_NAME)
#undef SN_X_NAME
};

static const char *const sn_scene_status_messages[] = {
#define SN_X_MSG(name, id, msg) [id] = msg,
    SN_SCENE_STATUS_TABLE(SN_X_MSG)
#undef SN_X_MSG
};

const char *sn_scene_status_name(sn_scene_status status) {
  size_t n = sizeof sn_scene_status_names / sizeof sn_scene_status_names[0];
  if ((size_t)status >= n || sn_scene_status_names[status] == NULL) return "SN_SCENE_ERR_UNKNOWN";
  return sn_scene_status_names[status];
}

const char *sn_scene_status_message(sn_scene_status status) {
  size_t n = sizeof sn_scene_status_messages / sizeof sn_scene_status_messages[0];
  if ((size_t)status >= n || sn_scene_status_messages[status] == NULL) return "unknown scene status";
  return sn_scene_status_messages[status];
}

const char *sn_scene_body_type_name(sn_body_type type) {
#define SN_X(t, name)                                                                                                  \
  if (type == (t)) return name;
  SN_SCENE_BODY_TYPES(SN_X)
#undef SN_X
  return NULL;
}

bool sn_scene_body_type_of(const char *name, sn_body_type *out) {
#define SN_X(t, n)                                                                                                     \
  if (strcmp(name, n) == 0) {                                                                                          \
    *out = (t);                                                                                                        \
    return true;                                                                                                       \
  }
  SN_SCENE_BODY_TYPES(SN_X)
#undef SN_X
  return false;
}

void sn_scene_body_type_list(char *buf, size_t cap) {
  static const char *const names[] = {
#define SN_X(t, name) name,
      SN_SCENE_BODY_TYPES(SN_X)
#undef SN_X
  };
  const size_t n = sizeof names / sizeof names[0];
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && at < cap; ++i) {
    int w = snprintf(buf + at, cap - at, "%s\"%s\"", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
    if (w < 0) break;
    at += (size_t)w;
  }
}

void sn_scene_set_error(sn_scene_error *error, sn_scene_status status, sn_result engine_result, int32_t line,
                        int32_t column, const char *fmt, ...) {
  if (error == NULL) return;
  error->status = status;
  error->engine_result = engine_result;
  error->line = line;
  error->column = column;
  va_list args;
  va_start(args, fmt);
  vsnprintf(error->message, sizeof error->message, fmt, args);
  va_end(args);
}

/* ------------------------------------------------------------------------ */
/* Name spaces                                                               */

long sn_utf8_invalid(const char *s, const char **why) {
  const unsigned char *p = (const unsigned char *)s;
  const char *reason = NULL;
  size_t i = 0;
  while (p[i] != 0 && reason == NULL) {
    unsigned c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t more = 0;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    const char *narrow = NULL;     /* why a second byte outside [lo, hi] is refused */
    if (c <= 0xBF) {
      reason = "a continuation byte (0x80..0xBF) with no lead byte";
    } else if (c <= 0xC1) {
      reason = "an overlong encoding (0xC0 and 0xC1 never start a character)";
    } else if (c <= 0xDF) {
      more = 1;
    } else if (c <= 0xEF) {
      more = 2;
      if (c == 0xE0) lo = 0xA0, narrow = "an overlong encoding";
      if (c == 0xED) hi = 0x9F, narrow = "a UTF-16 surrogate (U+D800..U+DFFF)";
    } else if (c <= 0xF4) {
      more = 3;
      if (c == 0xF0) lo = 0x90, narrow = "an overlong encoding";
      if (c == 0xF4) hi = 0x8F, narrow = "a code point above U+10FFFF";
    } else {
      reason = "a byte 0xF5..0xFF, which never appears in UTF-8";
    }
    for (size_t k = 1; k <= more && reason == NULL; ++k) {
      unsigned d = p[i + k];
      if (d < 0x80 || d > 0xBF)
        reason = "a multi-byte sequence cut short";
      else if (k == 1 && (d < lo || d > hi))
        reason = narrow;
    }
    if (reason == NULL) i += more + 1;
  }
  if (why != NULL) *why = reason;
  return reason == NULL ? -1 : (long)i;
}

bool sn_name_is_valid(const char *name) {
  if (name == NULL || name[0] == '\0') return false;
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; ++p, ++n) {
    if (*p < 0x20 || *p == 0x7f || n >= SN_SCENE_MAX_NAME) return false;
  }
  return sn_utf8_invalid(name, NULL) < 0;
}

/* FNV-1a */
static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; ++s) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static bool same_id(sn_name_id a, sn_name_id b) {
  return a.index1 == b.index1 && a.world_tag == b.world_tag && a.generation == b.generation;
}

static void unlink_slot(sn_name_space *ns, int32_t slot) {
  sn_name_entry *e = ns->slots + slot;
  int32_t *link = ns->buckets + (e->hash & (uint32_t)(ns->bucket_count - 1));
  while (*link != slot) link = &ns->slots[*link].next;
  *link = e->next;
  free(e->name);
  e->name = NULL;
  ns->live--;
}

static bool grow_buckets(sn_name_space *ns) {
  int32_t count = ns->bucket_count ? 2 * ns->bucket_count : 64;
  int32_t *b = malloc((size_t)count * sizeof *b);
  if (b == NULL) return false;
  for (int32_t i = 0; i < count; ++i) b[i] = -1;
  for (int32_t s = 0; s < ns->slot_capacity; ++s) {
    sn_name_entry *e = ns->slots + s;
    if (e->name == NULL) continue;
    int32_t *head = b + (e->hash & (uint32_t)(count - 1));
    e->next = *head;
    *head = s;
  }
  free(ns->buckets);
  ns->buckets = b;
  ns->bucket_count = count;
  return true;
}

static int32_t find_slot(const sn_name_space *ns, const char *name, uint32_t hash) {
  if (ns->bucket_count == 0) return -1;
  for (int32_t s = ns->buckets[hash & (uint32_t)(ns->bucket_count - 1)]; s >= 0; s = ns->slots[s].next) {
    if (ns->slots[s].hash == hash && strcmp(ns->slots[s].name, name) == 0) return s;
  }
  return -1;
}

sn_scene_status sn_name_space_set(sn_name_space *ns, sn_name_id id, const char *name, sn_name_id *other) {
  if (id.index1 < 1) return SN_SCENE_ERR_ARGUMENT;
  int32_t slot = id.index1 - 1;
  if (name == NULL) {
    if (slot < ns->slot_capacity && ns->slots[slot].name != NULL && same_id(ns->slots[slot].id, id))
      unlink_slot(ns, slot);
    return SN_SCENE_OK;
  }
  if (!sn_name_is_valid(name)) return SN_SCENE_ERR_ARGUMENT;
  uint32_t hash = name_hash(name);
  int32_t holder = find_slot(ns, name, hash);
  if (holder >= 0) {
    if (same_id(ns->slots[holder].id, id)) return SN_SCENE_OK;
    if (holder != slot) {
      if (other) *other = ns->slots[holder].id;
      return SN_SCENE_ERR_DUPLICATE_NAME;
    }
  }
  if (slot >= ns->slot_capacity) {
    int32_t cap = ns->slot_capacity ? ns->slot_capacity : 64;
    while (cap <= slot) cap *= 2;
    sn_name_entry *s = realloc(ns->slots, (size_t)cap * sizeof *s);
    if (s == NULL) return SN_SCENE_ERR_OUT_OF_MEMORY;
    memset(s + ns->slot_capacity, 0, (size_t)(cap - ns->slot_capacity) * sizeof *s);
    ns->slots = s;
    ns->slot_capacity = cap;
  }
  if (ns->live + 1 > ns->bucket_count && !grow_buckets(ns)) return SN_SCENE_ERR_OUT_OF_MEMORY;
  size_t len = strlen(name);
  char *copy = malloc(len + 1);
  if (copy == NULL) return SN_SCENE_ERR_OUT_OF_MEMORY;
  memcpy(copy, name, len + 1);
  if (ns->slots[slot].name != NULL) unlink_slot(ns, slot); /* the slot's old name (this id or a stale one) */
  sn_name_entry *e = ns->slots + slot;
  e->name = copy;
  e->hash = hash;
  e->id = id;
  int32_t *head = ns->buckets + (hash & (uint32_t)(ns->bucket_count - 1));
  e->next = *head;
  *head = slot;
  ns->live++;
  return SN_SCENE_OK;
}

const char *sn_name_space_get(const sn_name_space *ns, sn_name_id id) {
  int32_t slot = id.index1 - 1;
  if (slot < 0 || slot >= ns->slot_capacity || ns->slots[slot].name == NULL) return NULL;
  return same_id(ns->slots[slot].id, id) ? ns->slots[slot].name : NULL;
}

bool sn_name_space_find(const sn_name_space *ns, const char *name, sn_name_id *out) {
  if (name == NULL) return false;
  int32_t s = find_slot(ns, name, name_hash(name));
  if (s < 0) return false;
  *out = ns->slots[s].id;
  return true;
}

void sn_name_space_free(sn_name_space *ns) {
  for (int32_t s = 0; s < ns->slot_capacity; ++s) free(ns->slots[s].name);
  free(ns->slots);
  free(ns->buckets);
  memset(ns, 0, sizeof *ns);
}

/* ------------------------------------------------------------------------ */
/* Public table                                                              */

sn_scene_names *sn_create_scene_names(void) { return calloc(1, sizeof(sn_scene_names)); }

void sn_destroy_scene_names(sn_scene_names *names) {
  if (names == NULL) return;
  sn_name_space_free(&names->bodies);
  sn_name_space_free(&names->constraints);
  sn_name_space_free(&names->soft_bodies);
  free(names);
}

static sn_name_id from_body(sn_body_id b) { return (sn_name_id){b.index1, b.world_tag, b.generation}; }
static sn_name_id from_constraint(sn_constraint_id c) { return (sn_name_id){c.index1, c.world_tag, c.generation}; }

static sn_name_id from_soft(sn_soft_body_id s) { return (sn_name_id){s.index1, s.world_tag, s.generation}; }

/* Bodies and soft bodies share one namespace in files: a name in the other
 * table is taken. */
static bool taken_by(const sn_name_space *other, const char *name) {
  sn_name_id id;
  return name != NULL && sn_name_space_find(other, name, &id);
}

sn_scene_status sn_scene_names_set_body(sn_scene_names *names, sn_body_id body, const char *name) {
  if (names == NULL) return SN_SCENE_ERR_ARGUMENT;
  if (taken_by(&names->soft_bodies, name)) return SN_SCENE_ERR_DUPLICATE_NAME;
  return sn_name_space_set(&names->bodies, from_body(body), name, NULL);
}

const char *sn_scene_names_get_body(const sn_scene_names *names, sn_body_id body) {
  return names ? sn_name_space_get(&names->bodies, from_body(body)) : NULL;
}

sn_body_id sn_scene_names_find_body(const sn_scene_names *names, const char *name) {
  sn_name_id id;
  if (names == NULL || !sn_name_space_find(&names->bodies, name, &id)) return SN_NULL_BODY;
  return (sn_body_id){id.index1, id.world_tag, id.generation};
}

sn_scene_status sn_scene_names_set_constraint(sn_scene_names *names, sn_constraint_id constraint, const char *name) {
  if (names == NULL) return SN_SCENE_ERR_ARGUMENT;
  return sn_name_space_set(&names->constraints, from_constraint(constraint), name, NULL);
}

const char *sn_scene_names_get_constraint(const sn_scene_names *names, sn_constraint_id constraint) {
  return names ? sn_name_space_get(&names->constraints, from_constraint(constraint)) : NULL;
}

sn_constraint_id sn_scene_names_find_constraint(const sn_scene_names *names, const char *name) {
  sn_name_id id;
  if (names == NULL || !sn_name_space_find(&names->constraints, name, &id)) return SN_NULL_CONSTRAINT;
  return (sn_constraint_id){id.index1, id.world_tag, id.generation};
}

sn_scene_status sn_scene_names_set_soft_body(sn_scene_names *names, sn_soft_body_id soft, const char *name) {
  if (names == NULL) return SN_SCENE_ERR_ARGUMENT;
  if (taken_by(&names->bodies, name)) return SN_SCENE_ERR_DUPLICATE_NAME;
  return sn_name_space_set(&names->soft_bodies, from_soft(soft), name, NULL);
}

const char *sn_scene_names_get_soft_body(const sn_scene_names *names, sn_soft_body_id soft) {
  return names ? sn_name_space_get(&names->soft_bodies, from_soft(soft)) : NULL;
}

sn_soft_body_id sn_scene_names_find_soft_body(const sn_scene_names *names, const char *name) {
  sn_name_id id;
  if (names == NULL || !sn_name_space_find(&names->soft_bodies, name, &id)) return SN_NULL_SOFT_BODY;
  return (sn_soft_body_id){id.index1, id.world_tag, id.generation};
}
