/* World lifetime, settings, errors and counters (the step: step.c). */
#include "world/world.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "rigid/contact_wide.h"

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

sn_world_def sn_default_world_def(void) {
  sn_world_def def;
  memset(&def, 0, sizeof(def));
  def.gravity = (sn_vec2){0.0f, -10.0f};
  def.substeps = 8;
  def.position_iterations = 2;
  def.soft_iterations = 1;
  def.enable_sleep = true;
  def.contact_hertz = 0.0f;
  def.contact_damping_ratio = 10.0f;
  def.contact_push_max_velocity = 3.0f;
  def.restitution_threshold = 1.0f;
  def.maximum_linear_speed = 400.0f;
  def.enable_continuous = true;
  def.contact_reuse_distance = 0.0005f;
  def.worker_count = 1;
  def.max_bodies = SN_DEFAULT_MAX_BODIES;
  def.max_shapes = SN_DEFAULT_MAX_SHAPES;
  def.max_particles = SN_DEFAULT_MAX_PARTICLES;
  def.max_soft_bodies = SN_DEFAULT_MAX_SOFT_BODIES;
  def.max_constraints = SN_DEFAULT_MAX_CONSTRAINTS;
  def.max_contacts = SN_DEFAULT_MAX_CONTACTS;
  def.cookie = SN_DEF_COOKIE;
  return def;
}

static bool sn_limit_ok(int32_t limit) { return limit >= 0 && limit <= SN_MAX_WORLD_LIMIT; }

/* within +-SN_MAX_GRAVITY (false for NaN) */
static bool sn_gravity_ok(sn_vec2 g) { return sn_absf(g.x) <= SN_MAX_GRAVITY && sn_absf(g.y) <= SN_MAX_GRAVITY; }

static sn_result sn_validate_world_def(const sn_world_def *def) {
  if (def->cookie != SN_DEF_COOKIE) return SN_ERR_UNINITIALIZED_DEF;
  if (!sn_vec2_is_finite(def->gravity) || !sn_is_finite(def->contact_hertz) ||
      !sn_is_finite(def->contact_damping_ratio) || !sn_is_finite(def->contact_push_max_velocity) ||
      !sn_is_finite(def->restitution_threshold) || !sn_is_finite(def->maximum_linear_speed) ||
      !sn_is_finite(def->contact_reuse_distance))
    return SN_ERR_NOT_FINITE;
  if (def->substeps < 1 || def->substeps > 64 || def->position_iterations < 0 || def->position_iterations > 32 ||
      def->soft_iterations < 1 || def->soft_iterations > 32 || def->contact_hertz < 0.0f ||
      def->contact_damping_ratio < 0.0f || def->contact_push_max_velocity < 0.0f || def->restitution_threshold < 0.0f ||
      def->maximum_linear_speed <= 0.0f || def->body_capacity < 0 || def->shape_capacity < 0 ||
      !sn_gravity_ok(def->gravity) || def->contact_hertz > SN_MAX_CONTACT_TUNING ||
      def->contact_damping_ratio > SN_MAX_CONTACT_TUNING || def->contact_push_max_velocity > SN_MAX_SPEED ||
      def->restitution_threshold > SN_MAX_SPEED || def->maximum_linear_speed > SN_MAX_SPEED ||
      def->contact_reuse_distance < 0.0f || def->contact_reuse_distance > SN_MAX_CONTACT_REUSE_DISTANCE)
    return SN_ERR_INVALID_ARGUMENT;
  if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL)) return SN_ERR_INVALID_ARGUMENT;
  if (def->worker_count < 1 || def->worker_count > SN_MAX_WORKERS) return SN_ERR_INVALID_ARGUMENT;
  if (def->worker_count > 1 && (def->enqueue_task == NULL || def->finish_task == NULL)) return SN_ERR_INVALID_ARGUMENT;
  if (!sn_limit_ok(def->max_bodies) || !sn_limit_ok(def->max_shapes) || !sn_limit_ok(def->max_particles) ||
      !sn_limit_ok(def->max_soft_bodies) || !sn_limit_ok(def->max_constraints) || !sn_limit_ok(def->max_contacts))
    return SN_ERR_INVALID_ARGUMENT;
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
  w->gravity = def->gravity;
  w->substeps = def->substeps;
  w->position_iterations = def->position_iterations;
  w->enable_sleep = def->enable_sleep;
  w->enable_continuous = def->enable_continuous;
  w->use_avx2 = sn_wide_cpu_has_avx2();
  w->contact_hertz = def->contact_hertz;
  w->contact_damping_ratio = def->contact_damping_ratio;
  w->contact_push_max_velocity = def->contact_push_max_velocity;
  w->contact_reuse_distance = def->contact_reuse_distance;
  w->restitution_threshold = def->restitution_threshold;
  w->hit_event_threshold = 1.0f;
  w->max_linear_speed = def->maximum_linear_speed;
  w->body_free = SN_NULL_INDEX;
  w->shape_free = SN_NULL_INDEX;
  w->chain_free = SN_NULL_INDEX;
  w->contact_free = SN_NULL_INDEX;
  w->constraint_free = SN_NULL_INDEX;
  w->particle_free = SN_NULL_INDEX;
  w->soft_free = SN_NULL_INDEX;
  w->soft_iterations = def->soft_iterations;
  w->registry = def->registry;
  w->worker_count = def->worker_count;
  w->check_plugins = def->check_plugins;
  w->xpbd_batch_off = def->check_plugins; /* the item path: one constraint at a time */
  w->parallel_min_items = SN_PARALLEL_MIN_ITEMS;
  w->tasks.enqueue_task = def->enqueue_task;
  w->tasks.finish_task = def->finish_task;
  w->tasks.user_task_context = def->user_task_context;
  w->max_bodies = def->max_bodies;
  w->max_shapes = def->max_shapes;
  w->max_particles = def->max_particles;
  w->max_soft_bodies = def->max_soft_bodies;
  w->max_constraints = def->max_constraints;
  w->max_contacts = def->max_contacts;
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
  sn_array_free(&w->mem, w->wide_cache_contacts);
  sn_array_free(&w->mem, w->wide_cache_keys);
  sn_array_free(&w->mem, w->wide_cache_lanes);
  sn_array_free(&w->mem, w->contact_colors);
  sn_array_free(&w->mem, w->contact_status);
  sn_array_free(&w->mem, w->stages);
  sn_array_free(&w->mem, w->list_counts);
  sn_array_free(&w->mem, w->body_color_masks);
  sn_array_free(&w->mem, w->begin_events);
  sn_array_free(&w->mem, w->end_events);
  sn_array_free(&w->mem, w->pending_end_events);
  sn_array_free(&w->mem, w->hit_events);
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

sn_result sn_world_set_gravity(sn_world *w, sn_vec2 gravity) {
  SN_CHECK_WORLD(w);
  if (!sn_vec2_is_finite(gravity)) return sn_world_error(w, SN_ERR_NOT_FINITE, "gravity must be finite");
  if (!sn_gravity_ok(gravity))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "gravity components must be within +-SN_MAX_GRAVITY (1e5 m/s^2)");
  w->gravity = gravity;
  return SN_OK;
}

sn_vec2 sn_world_get_gravity(sn_world *w) { return w ? w->gravity : (sn_vec2){0.0f, 0.0f}; }

sn_result sn_world_set_substeps(sn_world *w, int32_t substeps) {
  SN_CHECK_WORLD(w);
  if (substeps < 1 || substeps > 64)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "substeps %d outside 1..64", (int)substeps);
  w->substeps = substeps;
  return SN_OK;
}

int32_t sn_world_get_substeps(sn_world *w) { return w ? w->substeps : 0; }

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

sn_result sn_world_set_position_iterations(sn_world *w, int32_t iterations) {
  SN_CHECK_WORLD(w);
  if (iterations < 0 || iterations > 32)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "position iterations %d outside 0..32", (int)iterations);
  w->position_iterations = iterations;
  return SN_OK;
}

int32_t sn_world_get_position_iterations(sn_world *w) { return w ? w->position_iterations : 0; }

sn_result sn_world_enable_sleeping(sn_world *w, bool flag) {
  SN_CHECK_WORLD(w);
  if (w->enable_sleep && !flag) {
    for (int32_t i = 0; i < w->bodies.count; ++i) {
      if (w->bodies.data[i].in_use && !w->bodies.data[i].is_awake) sn_body_wake(w, i);
    }
  }
  w->enable_sleep = flag;
  return SN_OK;
}

bool sn_world_is_sleeping_enabled(sn_world *w) { return w ? w->enable_sleep : false; }

sn_result sn_world_enable_continuous(sn_world *w, bool flag) {
  SN_CHECK_WORLD(w);
  w->enable_continuous = flag;
  return SN_OK;
}

sn_result sn_world_set_contact_tuning(sn_world *w, float hertz, float damping_ratio, float push_max_velocity) {
  SN_CHECK_WORLD(w);
  if (!sn_is_finite(hertz) || !sn_is_finite(damping_ratio) || !sn_is_finite(push_max_velocity))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "contact tuning must be finite");
  if (hertz < 0.0f || damping_ratio < 0.0f || push_max_velocity < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "contact tuning must be >= 0");
  if (hertz > SN_MAX_CONTACT_TUNING || damping_ratio > SN_MAX_CONTACT_TUNING || push_max_velocity > SN_MAX_SPEED)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                          "contact hertz and damping ratio must be <= SN_MAX_CONTACT_TUNING (1e6), the pushout speed "
                          "<= SN_MAX_SPEED (1e5 m/s)");
  w->contact_hertz = hertz;
  w->contact_damping_ratio = damping_ratio;
  w->contact_push_max_velocity = push_max_velocity;
  return SN_OK;
}

sn_result sn_world_set_hit_event_threshold(sn_world *w, float speed) {
  SN_CHECK_WORLD(w);
  if (!sn_is_finite(speed)) return sn_world_error(w, SN_ERR_NOT_FINITE, "threshold must be finite");
  if (speed < 0.0f || speed > SN_MAX_SPEED)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "threshold must be within 0 .. SN_MAX_SPEED (1e5 m/s)");
  w->hit_event_threshold = speed;
  return SN_OK;
}

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
  static const char *const names[] = {"prepare", "warm_start",     "solve_velocity", "solve_velocity",
                                      "project", "begin_position", "solve_position"};
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
