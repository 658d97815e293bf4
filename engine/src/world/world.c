/* World lifetime, settings, errors and counters (the step: step.c). */
#include "world/world.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "rigid/contact_wide.h"
#include "world/world_pool.h"

static const char *const sn_result_names[] = {
#define SN_X_NAME(name, id, msg) [id] = #name,
    SN_RESULT_TABLE(SN_X_NAME)
#undef SN_X_NAME
};

static const char *const sn_result_messages[] = {
#define SN_X_MSG(name, id, msg) [id] = msg,
    SN_RESULT_TABLE(SN_X_MSG)
#undef SN_X_MSG
};

const char *sn_version_string(void) { return SN_VERSION_STRING; }

const char *sn_result_name(sn_result result) {
  size_t n = sizeof(sn_result_names) / sizeof(sn_result_names[0]);
  if ((size_t)result >= n || sn_result_names[result] == NULL) return "SN_ERR_UNKNOWN";
  return sn_result_names[result];
}

const char *sn_result_message(sn_result result) {
  size_t n = sizeof(sn_result_messages) / sizeof(sn_result_messages[0]);
  if ((size_t)result >= n || sn_result_messages[result] == NULL) return "unknown result code";
  return sn_result_messages[result];
}

sn_result sn_world_error(sn_world *w, sn_result code, const char *fmt, ...) {
  if (w == NULL) return code;
  int n = snprintf(w->last_error, sizeof(w->last_error), "%s: ", sn_result_name(code));
  if (n < 0 || (size_t)n >= sizeof(w->last_error)) return code;
  va_list args;
  va_start(args, fmt);
  vsnprintf(w->last_error + n, sizeof(w->last_error) - (size_t)n, fmt, args);
  va_end(args);
  return code;
}

bool sn_world_limit_ok(sn_world *w, const sn_pool *pool, int64_t n, int32_t max, const char *limit, const char *kind,
                       const char *fn) {
  const char *sep = fn != NULL ? ": " : "";
  fn = fn != NULL ? fn : "";
  const int32_t live = pool->live != NULL ? *pool->live : 0;
  if (n == 1 && live >= max) {
    sn_world_error(w, SN_ERR_CAPACITY, "%s%sthe world has %d %s, its %s limit (sn_world_def)", fn, sep, (int)live, kind,
                   limit);
    return false;
  }
  if (n > (int64_t)max - live) {
    sn_world_error(w, SN_ERR_CAPACITY, "%s%s%lld %s would pass the world's %s limit (sn_world_def) of %d: it has %d",
                   fn, sep, (long long)n, kind, limit, (int)max, (int)live);
    return false;
  }
  return true;
}

bool sn_world_make_room(sn_world *w, const sn_pool *pool, int64_t n, int32_t max, const char *limit, const char *kind,
                        const char *fn) {
  if (!sn_world_limit_ok(w, pool, n, max, limit, kind, fn)) return false;
  if (n > 0 && !sn_pool_reserve(pool, (int32_t)n)) {
    sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "%s%scannot grow the %s", fn != NULL ? fn : "", fn != NULL ? ": " : "",
                   kind);
    return false;
  }
  return true;
}

void *sn_resolve_handle(sn_world *w, const char *kind, int32_t index1, uint16_t tag, uint16_t generation, void *data,
                        int32_t count, size_t elem_size, size_t in_use_offset, size_t generation_offset,
                        sn_result *code) {
  sn_result c = SN_OK;
  char *slot = NULL;
  if (w == NULL) {
    c = SN_ERR_NULL;
  } else if (index1 == 0) {
    c = sn_world_error(w, SN_ERR_STALE_ID, "null %s id", kind);
  } else if (tag != w->tag || index1 < 1 || index1 > count) {
    c = sn_world_error(w, SN_ERR_FOREIGN_ID, "%s id %d does not belong to this world", kind, (int)index1);
  } else {
    slot = (char *)data + (size_t)(index1 - 1) * elem_size;
    bool in_use;
    uint16_t slot_generation;
    memcpy(&in_use, slot + in_use_offset, sizeof in_use);
    memcpy(&slot_generation, slot + generation_offset, sizeof slot_generation);
    if (!in_use || slot_generation != generation) {
      c = sn_world_error(w, SN_ERR_STALE_ID, "%s id %d (generation %u) was destroyed", kind, (int)index1,
                         (unsigned)generation);
      slot = NULL;
    }
  }
  if (code) *code = c;
  return slot;
}

sn_result sn_world_locked_error(sn_world *w, const char *what) {
  return sn_world_error(w, SN_ERR_WORLD_LOCKED, "%s: the world is locked %s", what,
                        w->stepping ? "during sn_world_step"
                                    : "while the engine runs a callback (query, debug draw or constraint hook)");
}

/* The last world tag handed out (0 before the first world). This is the
 * engine's only process-wide mutable state, and deliberately so: a tag must
 * differ from every other world's, live or freed, for ids of one world never
 * to be accepted by another, and nothing local to a world can know the
 * others' tags (a hash of the world's address repeats for a world created
 * where a freed one lived, and collides among live ones). One atomic keeps
 * sn_create_world safe from any thread. */
static atomic_uint_least32_t sn_last_world_tag;

/// The next tag of the cycle 1, 2, ..., SN_WORLD_TAG_COUNT, 1, ...: any
/// SN_WORLD_TAG_COUNT worlds created one after another get distinct tags.
static uint16_t sn_next_world_tag(void) {
  uint_least32_t last = atomic_load_explicit(&sn_last_world_tag, memory_order_relaxed);
  uint_least32_t next;
  do {
    next = last % SN_WORLD_TAG_COUNT + 1u;
  } while (!atomic_compare_exchange_weak_explicit(&sn_last_world_tag, &last, next, memory_order_relaxed,
                                                  memory_order_relaxed));
  return (uint16_t)next;
}

/* The public def agrees with the table: each setting sn_world_def has is a
 * field of the table's type there. */
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  SN_SETTING_IN_DEF_##api(                                                                                             \
      _Static_assert(_Generic(((sn_world_def *)NULL)->name, SN_SETTING_CTYPE_##type : 1, default : 0),                 \
                     "sn_world_def." #name " is not of the type world_settings.h gives it");)
SN_WORLD_SETTINGS(SN_X)
#undef SN_X
#define SN_X(name, dflt, doc)                                                                                          \
  _Static_assert(_Generic(((sn_world_def *)NULL)->name, int32_t : 1, default : 0),                                     \
                 "sn_world_def." #name " is no limit");
SN_WORLD_LIMITS(SN_X)
#undef SN_X

sn_world_def sn_default_world_def(void) {
  sn_world_def def;
  memset(&def, 0, sizeof(def));
  sn_world_settings settings = sn_world_settings_default();
  sn_world_settings_to_def(&settings, &def);
  def.worker_count = 1;
#define SN_X(name, dflt, doc) def.name = (dflt);
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
  def.cookie = SN_DEF_COOKIE;
  return def;
}

/* "100000 (SN_MAX_SPEED)" for a bound the table names by a constant, else "64" */
static void sn_bound_text(double bound, const char *text, bool whole, char *out, size_t cap) {
  if (whole)
    snprintf(out, cap, "%.0f", bound);
  else
    snprintf(out, cap, "%g", bound);
  if ((text[0] >= 'A' && text[0] <= 'Z') || text[0] == '_') {
    size_t n = strlen(out);
    snprintf(out + n, cap - n, " (%s)", text);
  }
}

sn_result sn_world_setting_check(int32_t index, const void *value, char *msg, size_t cap) {
  const sn_setting_info *s = sn_world_setting_info(index);
  if (s == NULL) return SN_ERR_NOT_FOUND;
  double v[2] = {0.0, 0.0};
  int n = 1;
  switch (s->type) {
  case SN_SETTING_TYPE_INT: {
    int32_t i;
    memcpy(&i, value, sizeof i);
    v[0] = (double)i;
    break;
  }
  case SN_SETTING_TYPE_FLOAT: {
    float f;
    memcpy(&f, value, sizeof f);
    v[0] = (double)f;
    break;
  }
  case SN_SETTING_TYPE_BOOL:
    return SN_OK;
  case SN_SETTING_TYPE_VEC2: {
    sn_vec2 g;
    memcpy(&g, value, sizeof g);
    v[0] = (double)g.x;
    v[1] = (double)g.y;
    n = 2;
    break;
  }
  }
  for (int k = 0; k < n; ++k) {
    if (!isfinite(v[k])) {
      if (msg != NULL) snprintf(msg, cap, "%s must be finite", s->name);
      return SN_ERR_NOT_FINITE;
    }
  }
  bool above = (s->flags & SN_SETTING_ABOVE_MIN) != 0, whole = s->type == SN_SETTING_TYPE_INT;
  for (int k = 0; k < n; ++k) {
    if ((above ? v[k] > s->min : v[k] >= s->min) && v[k] <= s->max) continue;
    if (msg != NULL) {
      char lo[48], hi[80];
      sn_bound_text(s->min, "", whole, lo, sizeof lo);
      sn_bound_text(s->max, s->max_text, whole, hi, sizeof hi);
      snprintf(msg, cap, whole ? "%s%s %.0f outside %s%s, %s]" : "%s%s %g outside %s%s, %s]", s->name,
               n == 2 ? (k == 0 ? ".x" : ".y") : "", v[k], above ? "(" : "[", lo, hi);
    }
    return SN_ERR_INVALID_ARGUMENT;
  }
  return SN_OK;
}

sn_result sn_world_settings_check(const sn_world_settings *settings, char *msg, size_t cap) {
  /* every NaN or Inf first, then the ranges: a def with both reports NOT_FINITE */
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
      sn_result r = sn_world_setting_check(i, (const char *)settings + sn_world_setting_info(i)->offset, msg, cap);
      if (r == SN_ERR_NOT_FINITE || (pass == 1 && r != SN_OK)) return r;
    }
  }
  return SN_OK;
}

/// The error of a setter given a value outside the table's range (recorded
/// on the world), or SN_OK.
static sn_result sn_world_setting_refuse(sn_world *w, int32_t index, const void *value) {
  char msg[200];
  sn_result r = sn_world_setting_check(index, value, msg, sizeof msg);
  return r == SN_OK ? SN_OK : sn_world_error(w, r, "%s", msg);
}

static sn_result sn_validate_world_def(const sn_world_def *def) {
  if (def->cookie != SN_DEF_COOKIE) return SN_ERR_UNINITIALIZED_DEF;
  sn_world_settings settings = sn_world_settings_from_def(def);
  sn_result r = sn_world_settings_check(&settings, NULL, 0);
  if (r != SN_OK) return r;
  if (def->body_capacity < 0 || def->shape_capacity < 0) return SN_ERR_INVALID_ARGUMENT;
  if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL)) return SN_ERR_INVALID_ARGUMENT;
  if (def->worker_count < 1 || def->worker_count > SN_MAX_WORKERS) return SN_ERR_INVALID_ARGUMENT;
  if (def->worker_count > 1 && (def->enqueue_task == NULL || def->finish_task == NULL)) return SN_ERR_INVALID_ARGUMENT;
#define SN_X(name, dflt, doc)                                                                                          \
  if (def->name < 0 || def->name > SN_MAX_WORLD_LIMIT) return SN_ERR_INVALID_ARGUMENT;
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
  return SN_OK;
}

sn_world *sn_create_world(const sn_world_def *def, sn_result *result) {
  sn_result code = def == NULL ? SN_ERR_NULL : sn_validate_world_def(def);
  if (code != SN_OK) {
    if (result) *result = code;
    return NULL;
  }
  sn_mem mem;
  sn_mem_init(&mem, &def->allocator);
  sn_world *w = sn_mem_alloc(&mem, sizeof(sn_world));
  if (w == NULL) {
    if (result) *result = SN_ERR_OUT_OF_MEMORY;
    return NULL;
  }
  memset(w, 0, sizeof(*w));
  w->mem = mem;
  w->tag = sn_next_world_tag(); /* tells this world's handles from another's */
  w->settings = sn_world_settings_from_def(def);
  w->use_avx2 = sn_wide_cpu_has_avx2();
  w->body_free = SN_NULL_INDEX;
  w->shape_free = SN_NULL_INDEX;
  w->chain_free = SN_NULL_INDEX;
  w->contact_free = SN_NULL_INDEX;
  w->constraint_free = SN_NULL_INDEX;
  w->particle_free = SN_NULL_INDEX;
  w->soft_free = SN_NULL_INDEX;
  w->registry = def->registry;
  w->worker_count = def->worker_count;
  w->check_plugins = def->check_plugins;
  w->xpbd_batch_off = def->check_plugins; /* the item path: one constraint at a time */
  w->parallel_min_items = SN_PARALLEL_MIN_ITEMS;
  w->tasks.enqueue_task = def->enqueue_task;
  w->tasks.finish_task = def->finish_task;
  w->tasks.user_task_context = def->user_task_context;
#define SN_X(name, dflt, doc) w->name = def->name;
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
  sn_arena_init(&w->arena);
  bool ok = sn_tree_init(&w->static_tree, &w->mem, 16) && sn_tree_init(&w->dynamic_tree, &w->mem, 16) &&
            sn_array_reserve(&w->mem, w->bodies, def->body_capacity) &&
            sn_array_reserve(&w->mem, w->shapes, def->shape_capacity);
  if (!ok) {
    sn_destroy_world(w);
    if (result) *result = SN_ERR_OUT_OF_MEMORY;
    return NULL;
  }
  if (result) *result = SN_OK;
  return w;
}

sn_result sn_destroy_world(sn_world *w) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_world");
  sn_constraints_destroy_all(w);
  sn_soft_destroy_all(w);
  sn_array_free(&w->mem, w->constraints);
  sn_array_free(&w->mem, w->xpbd.fixed);
  sn_array_free(&w->mem, w->xpbd.order);
  sn_array_free(&w->mem, w->xpbd.indices);
  sn_array_free(&w->mem, w->xpbd.index_start);
  sn_array_free(&w->mem, w->xpbd.level_start);
  sn_array_free(&w->mem, w->xpbd.ranges);
  sn_array_free(&w->mem, w->xpbd.last);
  sn_array_free(&w->mem, w->xpbd.level);
  sn_array_free(&w->mem, w->constraint_lists.items);
  sn_array_free(&w->mem, w->constraint_lists.breakable);
  sn_array_free(&w->mem, w->constraint_lists.batched);
  sn_array_free(&w->mem, w->constraint_lists.item_types);
  sn_array_free(&w->mem, w->constraint_lists.levels_awake);
  sn_array_free(&w->mem, w->constraint_lists.levels);
  sn_array_free(&w->mem, w->constraint_lists.levels_data);
  sn_mem_free(&w->mem, w->constraint_lists.resident_block, w->constraint_lists.resident_bytes);
  sn_array_free(&w->mem, w->new_pairs);
  sn_mem_free(&w->mem, w->xpbd.params_block, w->xpbd.params_bytes);
  sn_mem_free(&w->mem, w->xpbd.instance_block, w->xpbd.instance_bytes);
  sn_array_free(&w->mem, w->broken_events);
  sn_array_free(&w->mem, w->frozen_events);
  for (int32_t i = 0; i < w->chains.count; ++i) {
    sn_chain *c = w->chains.data + i;
    if (c->in_use) sn_mem_free(&w->mem, c->shapes, (size_t)c->shape_count * sizeof(int32_t));
  }
  sn_array_free(&w->mem, w->bodies);
  sn_array_free(&w->mem, w->shapes);
  sn_array_free(&w->mem, w->chains);
  sn_array_free(&w->mem, w->contacts);
  sn_array_free(&w->mem, w->move_buffer);
  sn_array_free(&w->mem, w->awake_bodies);
  sn_array_free(&w->mem, w->active_contacts);
  sn_array_free(&w->mem, w->solver_contacts);
  sn_array_free(&w->mem, w->solver_keys);
  sn_array_free(&w->mem, w->body_solver_index);
  sn_array_free(&w->mem, w->toi_motions);
  sn_array_free(&w->mem, w->toi_owners);
  sn_array_free(&w->mem, w->wide_cache_contacts);
  sn_array_free(&w->mem, w->wide_cache_keys);
  sn_array_free(&w->mem, w->wide_cache_lanes);
  sn_array_free(&w->mem, w->wide_cache_batch_runs);
  sn_array_free(&w->mem, w->wide_cache_batch_run_first);
  sn_array_free(&w->mem, w->wide_cache_batch_groups);
  sn_array_free(&w->mem, w->contact_colors);
  sn_array_free(&w->mem, w->contact_status);
  sn_array_free(&w->mem, w->stages);
  sn_array_free(&w->mem, w->list_counts);
  sn_array_free(&w->mem, w->body_color_masks);
  sn_array_free(&w->mem, w->begin_events);
  sn_array_free(&w->mem, w->end_events);
  sn_array_free(&w->mem, w->pending_end_events);
  sn_array_free(&w->mem, w->hit_events);
  sn_array_free(&w->mem, w->body_events);
  sn_array_free(&w->mem, w->sensor_overlaps);
  sn_array_free(&w->mem, w->sensor_shapes);
  sn_array_free(&w->mem, w->sensor_soft_boxes);
  sn_array_free(&w->mem, w->sensor_next);
  sn_array_free(&w->mem, w->sensor_begin_events);
  sn_array_free(&w->mem, w->sensor_begin_next);
  sn_array_free(&w->mem, w->sensor_end_events);
  sn_array_free(&w->mem, w->sensor_end_next);
  sn_pair_set_destroy(&w->pairs, &w->mem);
  sn_pair_set_destroy(&w->joined, &w->mem);
  sn_tree_destroy(&w->static_tree);
  sn_tree_destroy(&w->dynamic_tree);
  sn_arena_destroy(&w->arena, &w->mem);
  sn_mem mem = w->mem;
  sn_mem_free(&mem, w, sizeof(sn_world));
  return SN_OK;
}

const char *sn_world_last_error(sn_world *w) { return w ? w->last_error : "SN_ERR_NULL: world is NULL"; }

#define SN_CHECK_WORLD(w)                                                                                              \
  do {                                                                                                                 \
    if ((w) == NULL) return SN_ERR_NULL;                                                                               \
    if ((w)->locked) return sn_world_locked_error((w), __func__);                                                      \
  } while (0)

sn_result sn_world_set_task_system(sn_world *w, int32_t worker_count, sn_enqueue_task_callback *enqueue_task,
                                   sn_finish_task_callback *finish_task, void *user_task_context) {
  SN_CHECK_WORLD(w);
  if (worker_count < 1 || worker_count > SN_MAX_WORKERS)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "worker count %d outside 1..%d", (int)worker_count,
                          SN_MAX_WORKERS);
  if (worker_count > 1 && (enqueue_task == NULL || finish_task == NULL))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%d workers need enqueue_task and finish_task",
                          (int)worker_count);
  w->worker_count = worker_count;
  w->tasks.enqueue_task = enqueue_task;
  w->tasks.finish_task = finish_task;
  w->tasks.user_task_context = user_task_context;
  return SN_OK;
}

int32_t sn_world_get_worker_count(sn_world *w) { return w ? w->worker_count : 0; }

sn_result sn_world_set_user_data(sn_world *w, void *user_data) {
  if (w == NULL) return SN_ERR_NULL;
  w->user_data = user_data;
  return SN_OK;
}

void *sn_world_get_user_data(sn_world *w) { return w ? w->user_data : NULL; }

/* Mixes every contact again (the rule changed). */
static void sn_world_remix_contacts(sn_world *w) {
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    if (w->contacts.data[i].in_use) sn_contact_mix_materials(w, w->contacts.data + i);
  }
}

sn_result sn_world_set_friction_callback(sn_world *w, sn_friction_fcn *fcn, void *context) {
  SN_CHECK_WORLD(w);
  w->friction_fcn = fcn;
  w->friction_context = fcn ? context : NULL;
  sn_world_remix_contacts(w);
  return SN_OK;
}

sn_result sn_world_set_restitution_callback(sn_world *w, sn_restitution_fcn *fcn, void *context) {
  SN_CHECK_WORLD(w);
  w->restitution_fcn = fcn;
  w->restitution_context = fcn ? context : NULL;
  sn_world_remix_contacts(w);
  return SN_OK;
}

sn_result sn_world_enable_sleeping(sn_world *w, bool flag) {
  SN_CHECK_WORLD(w);
  if (w->settings.enable_sleep && !flag) {
    for (int32_t i = 0; i < w->bodies.count; ++i) {
      if (w->bodies.data[i].in_use && !w->bodies.data[i].is_awake) sn_body_wake(w, i);
    }
  }
  w->settings.enable_sleep = flag;
  return SN_OK;
}

bool sn_world_is_sleeping_enabled(sn_world *w) { return w ? w->settings.enable_sleep : false; }

sn_result sn_world_enable_continuous(sn_world *w, bool flag) {
  SN_CHECK_WORLD(w);
  w->settings.enable_continuous = flag;
  return SN_OK;
}

sn_result sn_world_set_contact_tuning(sn_world *w, float hertz, float damping_ratio, float push_max_velocity) {
  SN_CHECK_WORLD(w);
  sn_world_settings s = w->settings;
  s.contact_hertz = hertz;
  s.contact_damping_ratio = damping_ratio;
  s.contact_push_max_velocity = push_max_velocity;
  char msg[200];
  sn_result r = sn_world_settings_check(&s, msg, sizeof msg);
  if (r != SN_OK) return sn_world_error(w, r, "%s", msg);
  w->settings = s;
  return SN_OK;
}

/* sn_world_set_<name> and sn_world_get_<name> of every setting the table
 * gives accessors (api DEF_SET and SET): the table's range, the world's
 * copy; a NULL world reads as zero. */
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  SN_SETTING_ACCESSORS_##api(                                                                                          \
      sn_result sn_world_set_##name(sn_world *w, SN_SETTING_CTYPE_##type value) {                                      \
        SN_CHECK_WORLD(w);                                                                                             \
        sn_result r = sn_world_setting_refuse(w, SN_SETTING_##name, &value);                                           \
        if (r == SN_OK) w->settings.name = value;                                                                      \
        return r;                                                                                                      \
      } SN_SETTING_CTYPE_##type sn_world_get_##name(sn_world *w) {                                                     \
        SN_SETTING_CTYPE_##type zero = {0};                                                                            \
        return w != NULL ? w->settings.name : zero;                                                                    \
      })
SN_WORLD_SETTINGS(SN_X)
#undef SN_X

sn_contact_events sn_world_get_contact_events(sn_world *w) {
  sn_contact_events e;
  memset(&e, 0, sizeof(e));
  if (w == NULL) return e;
  e.begin_events = w->begin_events.data;
  e.begin_count = w->begin_events.count;
  e.end_events = w->end_events.data;
  e.end_count = w->end_events.count;
  e.hit_events = w->hit_events.data;
  e.hit_count = w->hit_events.count;
  return e;
}

sn_body_events sn_world_get_body_events(sn_world *w) {
  sn_body_events e;
  memset(&e, 0, sizeof(e));
  if (w == NULL) return e;
  e.move_events = w->body_events.data;
  e.move_count = w->body_events.count;
  return e;
}

sn_result sn_world_set_custom_filter(sn_world *w, sn_custom_filter_fcn *fcn, void *context) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->locked) return sn_world_locked_error(w, __func__);
  w->custom_filter = fcn;
  w->custom_filter_context = fcn != NULL ? context : NULL;
  return SN_OK;
}

sn_result sn_world_set_pre_solve(sn_world *w, sn_pre_solve_fcn *fcn, void *context) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->locked) return sn_world_locked_error(w, __func__);
  w->pre_solve = fcn;
  w->pre_solve_context = fcn != NULL ? context : NULL;
  return SN_OK;
}

sn_world_counters sn_world_get_counters(sn_world *w) {
  sn_world_counters c;
  memset(&c, 0, sizeof(c));
  if (w == NULL) return c;
  c.body_count = w->body_count;
  c.shape_count = w->shape_count;
  c.contact_count = w->contact_count;
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    if (w->contacts.data[i].in_use && (w->contacts.data[i].flags & SN_CONTACT_TOUCHING)) c.touching_contact_count++;
  }
  /* counted now: bodies fall asleep after the solver's count and wake between steps */
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    if (b->in_use && b->type != SN_BODY_STATIC && b->is_awake) c.awake_body_count++;
  }
  c.island_count = w->island_count;
  c.constraint_count = w->constraint_count;
  c.soft_body_count = w->soft_count;
  c.particle_count = w->particle_count;
  c.particle_contact_count = w->particle_contact_count;
  c.tree_height = sn_maxi(sn_tree_get_height(&w->static_tree), sn_tree_get_height(&w->dynamic_tree));
  c.allocated_bytes = w->mem.live_bytes;
  c.reused_manifold_count = w->reused_manifold_count;
  c.contact_limit_hits = w->contact_limit_hits;
  return c;
}

sn_world_profile sn_world_get_profile(const sn_world *w) {
  sn_world_profile p;
  memset(&p, 0, sizeof(p));
  if (w != NULL) p = w->profile;
  return p;
}

int32_t sn_world_get_frozen_events(sn_world *w, const sn_frozen_event **events) {
  if (w == NULL) return 0;
  if (events) *events = w->frozen_events.data;
  return w->frozen_events.count;
}

const char *sn_plugin_callback_name(int32_t callback) {
  static const char *const names[] = {
#define SN_X(id, name) name,
      SN_PLUGIN_CALLBACKS(SN_X)
#undef SN_X
  };
  return callback >= 0 && callback < (int32_t)(sizeof names / sizeof names[0]) ? names[callback] : NULL;
}

sn_frozen_event sn_make_frozen_event(sn_world *w, int32_t body, int32_t particle) {
  sn_frozen_event e;
  memset(&e, 0, sizeof e);
  e.body = body >= 0 ? sn_make_body_id(w, body) : SN_NULL_BODY;
  e.particle = particle >= 0 ? sn_make_particle_id(w, particle) : SN_NULL_PARTICLE;
  uint8_t *callback = body >= 0 ? &w->bodies.data[body].blamed_callback : &w->particles.data[particle].blamed_callback;
  int32_t *slot = body >= 0 ? &w->bodies.data[body].blamed_constraint : &w->particles.data[particle].blamed_constraint;
  if (*callback != 0 && *slot >= 0 && *slot < w->constraints.count && w->constraints.data[*slot].in_use) {
    const sn_constraint *k = w->constraints.data + *slot;
    e.constraint = (sn_constraint_id){*slot + 1, w->tag, k->generation};
    e.constraint_type = k->type->name;
    e.callback = sn_plugin_callback_name(*callback - 1);
  }
  *callback = 0;
  *slot = 0;
  return e;
}
