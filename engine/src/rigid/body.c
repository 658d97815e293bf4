/* Bodies: creation, destruction, mass, state access, waking and sleeping. */
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

sn_body_def sn_default_body_def(void) {
  sn_body_def def;
  memset(&def, 0, sizeof(def));
  def.type = SN_BODY_STATIC;
  def.gravity_scale = 1.0f;
  def.is_awake = true;
  def.enable_sleep = true;
  def.sleep_threshold = SN_DEFAULT_SLEEP_THRESHOLD;
  def.cookie = SN_DEF_COOKIE;
  return def;
}

sn_body *sn_get_body(sn_world *w, sn_body_id id, sn_result *code) {
  return SN_RESOLVE(w, bodies, sn_body, "body", id, code);
}

static bool sn_body_def_ok(sn_world *w, const sn_body_def *def) {
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "body def is NULL"), false;
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_body_def()"), false;
  if (!sn_vec2_is_finite(def->position) || !sn_is_finite(def->angle) || !sn_vec2_is_finite(def->linear_velocity) ||
      !sn_is_finite(def->angular_velocity) || !sn_is_finite(def->linear_damping) ||
      !sn_is_finite(def->angular_damping) || !sn_is_finite(def->gravity_scale))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "body def has a NaN or infinite value"), false;
  if (!sn_vec2_within_limit(def->position))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "body position beyond +-SN_MAX_COORDINATE (1e6 m)"), false;
  if ((int)def->type < SN_BODY_STATIC || (int)def->type > SN_BODY_DYNAMIC)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "unknown body type %d", (int)def->type), false;
  if (def->linear_damping < 0.0f || def->angular_damping < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "damping must be >= 0"), false;
  if (!sn_is_finite(def->sleep_threshold))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "body def sleep_threshold must be finite"), false;
  if (def->sleep_threshold < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "body def sleep_threshold must be >= 0, got %g",
                          (double)def->sleep_threshold),
           false;
  if (def->rotation.c != 0.0f || def->rotation.s != 0.0f) {
    const sn_rot q = def->rotation;
    if (!sn_is_finite(q.c) || !sn_is_finite(q.s))
      return sn_world_error(w, SN_ERR_NOT_FINITE, "body def rotation has a NaN or infinite value"), false;
    if (!(fabsf(q.c * q.c + q.s * q.s - 1.0f) <= 1e-4f))
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "body def rotation (%g, %g) is not a unit vector", (double)q.c,
                            (double)q.s),
             false;
  }
  return true;
}

sn_body_id sn_create_body(sn_world *w, const sn_body_def *def) {
  if (w == NULL) return SN_NULL_BODY;
  if (w->locked) return sn_world_locked_error(w, "sn_create_body"), SN_NULL_BODY;
  if (!sn_body_def_ok(w, def)) return SN_NULL_BODY;
  sn_pool pool = sn_body_pool(w);
  if (!sn_world_make_room(w, &pool, 1, w->max_bodies, "max_bodies", "bodies", NULL)) return SN_NULL_BODY;
  int32_t index = sn_pool_acquire(&pool);
  sn_body *b = w->bodies.data + index;
  b->type = def->type;
  b->is_awake = def->type != SN_BODY_STATIC && (def->is_awake || !def->enable_sleep || !w->settings.enable_sleep);
  if (def->type != SN_BODY_STATIC && !b->is_awake) w->bodies_may_sleep = true;
  b->enable_sleep = def->enable_sleep;
  b->sleep_threshold = def->sleep_threshold;
  b->is_bullet = def->is_bullet;
  b->fixed_rotation = def->fixed_rotation;
  b->xf.p = def->position;
  b->xf.q = def->rotation.c != 0.0f || def->rotation.s != 0.0f ? def->rotation : sn_make_rot(def->angle);
  b->center = def->position;
  b->center0 = def->position;
  b->q0 = b->xf.q;
  if (def->type != SN_BODY_STATIC) {
    b->v = def->linear_velocity;
    b->w = def->angular_velocity;
  }
  b->linear_damping = def->linear_damping;
  b->angular_damping = def->angular_damping;
  b->gravity_scale = def->gravity_scale;
  b->shape_list = SN_NULL_INDEX;
  b->contact_list = SN_NULL_INDEX;
  b->sleep_next = SN_NULL_INDEX;
  b->solver_index = SN_NULL_INDEX;
  b->user_data = def->user_data;
  sn_body_update_mass(w, b);
  return sn_make_body_id(w, index);
}

sn_result sn_destroy_body(sn_world *w, sn_body_id id) {
  sn_result code;
  sn_body *b = sn_get_body(w, id, &code);
  if (b == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_body");
  int32_t index = id.index1 - 1;
  sn_constraints_destroy_for_body(w, index);
  /* contacts first (they wake the other bodies), then shapes */
  while (b->contact_list != SN_NULL_INDEX) sn_contact_destroy(w, b->contact_list >> 1, true);
  /* chains on this body */
  sn_pool chains = sn_chain_pool(w);
  for (int32_t i = sn_pool_next(&chains, -1); i != SN_NULL_INDEX; i = sn_pool_next(&chains, i)) {
    sn_chain *c = w->chains.data + i;
    if (c->body == index) {
      sn_mem_free(&w->mem, c->shapes, (size_t)c->shape_count * sizeof(int32_t));
      c->shapes = NULL;
      sn_pool_release(&chains, i);
    }
  }
  while (b->shape_list != SN_NULL_INDEX) sn_shape_destroy_internal(w, b->shape_list, false);
  /* if it slept, unlink it from its sleeping island by waking the island */
  if (!b->is_awake && b->type != SN_BODY_STATIC) sn_body_wake(w, index);
  sn_pool pool = sn_body_pool(w);
  sn_pool_release(&pool, index);
  return SN_OK;
}

bool sn_body_is_valid(sn_world *w, sn_body_id id) { return SN_POOL_ID_LIVE(w, sn_body_pool, id); }

/* One shape's share of the sums about the body origin. The only place they
 * are summed: sn_body_update_mass and sn_body_add_shape_mass add in the
 * same order with the same operations, so the bits agree. */
static void sn_body_sum_shape(sn_body *b, const sn_shape *shape) {
  if (shape->density == 0.0f) return;
  sn_mass_data md = sn_geometry_compute_mass(&shape->geom, shape->density);
  b->mass_sum += md.mass;
  b->moment_sum = sn_mul_add(b->moment_sum, md.mass, md.center);
  b->inertia_sum += md.rotational_inertia + md.mass * sn_dot(md.center, md.center);
}

/* The centre of mass moves to local_center (body frame); the velocity of
 * the origin's material point does not change. */
static void sn_body_move_center(sn_body *b, sn_vec2 local_center) {
  sn_vec2 old_center = b->center;
  b->local_center = local_center;
  b->center = sn_transform_point(b->xf, b->local_center);
  b->center0 = b->center;
  b->v = sn_add(b->v, sn_cross_sv(b->w, sn_sub(b->center, old_center)));
}

/* Mass, inverse mass, centre of mass and inertia of a dynamic body from its
 * sums; the centre of mass moves, the velocity of the origin's material
 * point does not. */
static void sn_body_apply_sums(sn_body *b) {
  const float mass = b->mass_sum, rot_inertia = b->inertia_sum;
  b->mass = b->inv_mass = b->inertia = b->inv_inertia = 0.0f;
  b->local_center = (sn_vec2){0.0f, 0.0f};
  /* a mass or inertia so small (below ~3e-39) that its inverse overflows
   * counts as none, like zero density */
  if (mass > 0.0f && sn_is_finite(1.0f / mass)) {
    b->mass = mass;
    b->inv_mass = 1.0f / mass;
    b->local_center = sn_scale(b->inv_mass, b->moment_sum);
  }
  if (rot_inertia > 0.0f && !b->fixed_rotation) {
    /* shift to the centre of mass (parallel axis theorem) */
    b->inertia = rot_inertia - mass * sn_dot(b->local_center, b->local_center);
    b->inv_inertia = b->inertia > 0.0f && sn_is_finite(1.0f / b->inertia) ? 1.0f / b->inertia : 0.0f;
  }
  sn_body_move_center(b, b->local_center);
}

/* How far a shape reaches from the body's centre of mass. */
static float sn_shape_reach(const sn_geometry *g, sn_vec2 local_center) {
  return sn_length(sn_sub(sn_geometry_centroid(g), local_center)) + sn_geometry_extent(g);
}

/* max_extent over every shape about the current centre of mass. */
static void sn_body_compute_max_extent(sn_world *w, sn_body *b) {
  b->max_extent = 0.0f;
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    b->max_extent = sn_maxf(b->max_extent, sn_shape_reach(&w->shapes.data[s].geom, b->local_center));
    w->shape_visits++;
  }
  b->origin_reach = sn_length(b->local_center) + b->max_extent;
  b->extent_stale = false;
}

void sn_body_update_mass(sn_world *w, sn_body *b) {
  b->mass = b->inv_mass = b->inertia = b->inv_inertia = 0.0f;
  b->local_center = (sn_vec2){0.0f, 0.0f};
  b->min_extent = SN_HUGE;
  b->max_extent = 0.0f;
  b->mass_sum = b->inertia_sum = 0.0f;
  b->moment_sum = (sn_vec2){0.0f, 0.0f};
  b->mass_sums_valid = true;
  b->extent_stale = false;
  if (b->type != SN_BODY_DYNAMIC) {
    b->center = sn_transform_point(b->xf, b->local_center);
    b->center0 = b->center;
    sn_body_compute_max_extent(w, b);
    return;
  }
  /* accumulate mass, first moment and inertia about the body origin */
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    sn_body_sum_shape(b, w->shapes.data + s);
    w->shape_visits++;
  }
  sn_body_apply_sums(b);
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    b->min_extent = sn_minf(b->min_extent, sn_geometry_inner_radius(&w->shapes.data[s].geom));
    w->shape_visits++;
  }
  sn_body_compute_max_extent(w, b);
}

void sn_body_add_shape_mass(sn_world *w, sn_body *b, int32_t shape_index) {
  if (!b->mass_sums_valid) {
    sn_body_update_mass(w, b);
    return;
  }
  const sn_geometry *g = &w->shapes.data[shape_index].geom;
  if (b->type != SN_BODY_DYNAMIC) {
    /* no mass; the centre stays at the origin (a maximum is a maximum in
     * any order) */
    b->center = sn_transform_point(b->xf, b->local_center);
    b->center0 = b->center;
    b->max_extent = sn_maxf(b->max_extent, sn_shape_reach(g, b->local_center));
    b->origin_reach = sn_length(b->local_center) + b->max_extent;
    return;
  }
  sn_body_sum_shape(b, w->shapes.data + shape_index);
  sn_body_apply_sums(b);
  b->min_extent = sn_minf(b->min_extent, sn_geometry_inner_radius(g));
  /* every shape's reach is measured from the centre of mass, which moved:
   * measured again once, before the step reads it */
  b->extent_stale = true;
  w->extents_stale = true;
}

void sn_body_refresh_extents(sn_world *w) {
  if (!w->extents_stale) return;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    sn_body *b = w->bodies.data + i;
    if (b->in_use && b->extent_stale) sn_body_compute_max_extent(w, b);
  }
  w->extents_stale = false;
}

/* Sleeping islands are singly linked lists through sleep_next. Waking any
 * member wakes the whole list. */
void sn_body_wake(sn_world *w, int32_t body_index) {
  sn_body *b = w->bodies.data + body_index;
  if (b->type == SN_BODY_STATIC || b->is_awake || b->disabled) return;
  /* find the list head: bodies of one sleeping island form a cycle */
  int32_t i = body_index;
  do {
    sn_body *m = w->bodies.data + i;
    int32_t next = m->sleep_next;
    m->is_awake = true;
    m->sleep_time = 0.0f;
    m->sleep_next = SN_NULL_INDEX;
    i = next;
  } while (i != SN_NULL_INDEX && i != body_index);
}

/* A kinematic body set moving wakes what it touches: a sleeping body would
 * otherwise count as fixed and be pushed through (the island code then keeps
 * them awake while it moves). */
static void sn_body_wake_touching(sn_world *w, int32_t body_index) {
  const sn_body *b = w->bodies.data + body_index;
  if (b->type != SN_BODY_KINEMATIC) return;
  for (int32_t key = b->contact_list; key != SN_NULL_INDEX;) {
    const sn_contact *c = w->contacts.data + (key >> 1);
    if (c->flags & SN_CONTACT_TOUCHING) sn_body_wake(w, c->edges[(key & 1) ^ 1].body);
    key = c->edges[key & 1].next_key;
  }
}

/* first_body starts a cycle through sleep_next (set up by the island code). */
void sn_body_put_to_sleep(sn_world *w, int32_t first_body) {
  w->bodies_may_sleep = true;
  int32_t i = first_body;
  do {
    sn_body *m = w->bodies.data + i;
    m->is_awake = false;
    m->v = (sn_vec2){0.0f, 0.0f};
    m->w = 0.0f;
    m->force = (sn_vec2){0.0f, 0.0f};
    m->torque = 0.0f;
    i = m->sleep_next;
  } while (i != SN_NULL_INDEX && i != first_body);
}

/* ---------------------------------------------------------------- access */

#define SN_BODY_OR(w, id, fallback)                                                                                    \
  sn_body *b = sn_get_body((w), (id), NULL);                                                                           \
  if (b == NULL) return fallback

#define SN_BODY_MUT(w, id)                                                                                             \
  sn_result code_;                                                                                                     \
  sn_body *b = sn_get_body((w), (id), &code_);                                                                         \
  if (b == NULL) return code_;                                                                                         \
  if ((w)->locked) return sn_world_locked_error((w), __func__)

sn_body_type sn_body_get_type(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, SN_BODY_STATIC);
  return b->type;
}

sn_result sn_body_set_type(sn_world *w, sn_body_id id, sn_body_type type) {
  SN_BODY_MUT(w, id);
  if ((int)type < SN_BODY_STATIC || (int)type > SN_BODY_DYNAMIC)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "unknown body type %d", (int)type);
  if (type == b->type) return SN_OK;
  int32_t index = id.index1 - 1;
  /* static <-> moving changes the tree of the proxies; the only step that can
   * fail (the new tree may have to grow), so it goes first */
  bool to_static = type == SN_BODY_STATIC;
  bool change_tree = !b->disabled && to_static != (b->type == SN_BODY_STATIC);
  if (change_tree && !sn_shape_move_proxies(w, index, to_static))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the broadphase tree");
  sn_body_wake(w, index);
  while (b->contact_list != SN_NULL_INDEX) sn_contact_destroy(w, b->contact_list >> 1, true);
  b->type = type;
  b->is_awake = type != SN_BODY_STATIC && !b->disabled;
  b->sleep_time = 0.0f;
  if (type == SN_BODY_STATIC) {
    b->v = (sn_vec2){0.0f, 0.0f};
    b->w = 0.0f;
  }
  if (!change_tree && !b->disabled) {
    /* same tree: re-insert so that new pairs are found. Removing a leaf frees
     * the two nodes its insertion takes, so this cannot fail. */
    for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
      sn_shape_destroy_proxy(w, s);
      sn_shape_create_proxy(w, s);
    }
  }
  sn_body_update_mass(w, b);
  return SN_OK;
}

sn_vec2 sn_body_get_position(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, ((sn_vec2){0.0f, 0.0f}));
  return b->xf.p;
}

float sn_body_get_angle(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return sn_rot_angle(b->xf.q);
}

sn_rot sn_body_get_rotation(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, sn_rot_identity());
  return b->xf.q;
}

sn_transform sn_body_get_transform(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, sn_transform_identity());
  return b->xf;
}

sn_result sn_body_set_transform(sn_world *w, sn_body_id id, sn_vec2 position, float angle) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(position) || !sn_is_finite(angle))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "position and angle must be finite");
  if (!sn_vec2_within_limit(position))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "position beyond +-SN_MAX_COORDINATE (1e6 m)");
  int32_t index = id.index1 - 1;
  b->xf.p = position;
  b->xf.q = sn_make_rot(angle);
  b->center = sn_transform_point(b->xf, b->local_center);
  b->center0 = b->center;
  b->q0 = b->xf.q;
  b->frozen = false; /* a fresh, finite pose */
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    sn_shape_update_aabb(w, s, b->xf, true);
  }
  sn_body_wake(w, index);
  return SN_OK;
}

bool sn_body_is_frozen(sn_world *w, sn_body_id id) {
  sn_body *b = sn_get_body(w, id, NULL);
  return b ? b->frozen : false;
}

sn_vec2 sn_body_get_world_center_of_mass(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, ((sn_vec2){0.0f, 0.0f}));
  return b->center;
}

sn_vec2 sn_body_get_local_center_of_mass(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, ((sn_vec2){0.0f, 0.0f}));
  return b->local_center;
}

sn_vec2 sn_body_get_linear_velocity(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, ((sn_vec2){0.0f, 0.0f}));
  return b->v;
}

sn_result sn_body_set_linear_velocity(sn_world *w, sn_body_id id, sn_vec2 velocity) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(velocity)) return sn_world_error(w, SN_ERR_NOT_FINITE, "velocity must be finite");
  if (b->type == SN_BODY_STATIC) return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "static bodies do not move");
  if (sn_length_sq(velocity) > 0.0f) {
    sn_body_wake(w, id.index1 - 1);
    sn_body_wake_touching(w, id.index1 - 1);
  }
  b->v = velocity;
  return SN_OK;
}

float sn_body_get_angular_velocity(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->w;
}

sn_result sn_body_set_angular_velocity(sn_world *w, sn_body_id id, float omega) {
  SN_BODY_MUT(w, id);
  if (!sn_is_finite(omega)) return sn_world_error(w, SN_ERR_NOT_FINITE, "angular velocity must be finite");
  if (b->type == SN_BODY_STATIC) return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "static bodies do not move");
  if (omega != 0.0f) {
    sn_body_wake(w, id.index1 - 1);
    sn_body_wake_touching(w, id.index1 - 1);
  }
  b->w = b->fixed_rotation ? 0.0f : omega;
  return SN_OK;
}

sn_result sn_body_apply_force(sn_world *w, sn_body_id id, sn_vec2 force, sn_vec2 point, bool wake) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(force) || !sn_vec2_is_finite(point))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "force and point must be finite");
  if (b->type != SN_BODY_DYNAMIC) return SN_OK;
  if (wake) sn_body_wake(w, id.index1 - 1);
  if (!b->is_awake) return SN_OK;
  b->force = sn_add(b->force, force);
  b->torque += sn_cross(sn_sub(point, b->center), force);
  return SN_OK;
}

sn_result sn_body_apply_force_to_center(sn_world *w, sn_body_id id, sn_vec2 force, bool wake) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(force)) return sn_world_error(w, SN_ERR_NOT_FINITE, "force must be finite");
  if (b->type != SN_BODY_DYNAMIC) return SN_OK;
  if (wake) sn_body_wake(w, id.index1 - 1);
  if (b->is_awake) b->force = sn_add(b->force, force);
  return SN_OK;
}

sn_result sn_body_apply_torque(sn_world *w, sn_body_id id, float torque, bool wake) {
  SN_BODY_MUT(w, id);
  if (!sn_is_finite(torque)) return sn_world_error(w, SN_ERR_NOT_FINITE, "torque must be finite");
  if (b->type != SN_BODY_DYNAMIC) return SN_OK;
  if (wake) sn_body_wake(w, id.index1 - 1);
  if (b->is_awake) b->torque += torque;
  return SN_OK;
}

sn_result sn_body_apply_linear_impulse(sn_world *w, sn_body_id id, sn_vec2 impulse, sn_vec2 point, bool wake) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(impulse) || !sn_vec2_is_finite(point))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "impulse and point must be finite");
  if (b->type != SN_BODY_DYNAMIC) return SN_OK;
  if (wake) sn_body_wake(w, id.index1 - 1);
  if (!b->is_awake) return SN_OK;
  b->v = sn_mul_add(b->v, b->inv_mass, impulse);
  b->w += b->inv_inertia * sn_cross(sn_sub(point, b->center), impulse);
  return SN_OK;
}

sn_result sn_body_apply_angular_impulse(sn_world *w, sn_body_id id, float impulse, bool wake) {
  SN_BODY_MUT(w, id);
  if (!sn_is_finite(impulse)) return sn_world_error(w, SN_ERR_NOT_FINITE, "impulse must be finite");
  if (b->type != SN_BODY_DYNAMIC) return SN_OK;
  if (wake) sn_body_wake(w, id.index1 - 1);
  if (b->is_awake) b->w += b->inv_inertia * impulse;
  return SN_OK;
}

float sn_body_get_mass(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->mass;
}

float sn_body_get_rotational_inertia(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->inertia;
}

sn_mass_data sn_body_get_mass_data(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, ((sn_mass_data){0.0f, {0.0f, 0.0f}, 0.0f}));
  return (sn_mass_data){b->mass, b->local_center, b->inertia};
}

sn_result sn_body_set_mass_data(sn_world *w, sn_body_id id, sn_mass_data md) {
  SN_BODY_MUT(w, id);
  if (b->type != SN_BODY_DYNAMIC) return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "only dynamic bodies have mass");
  if (!sn_is_finite(md.mass) || !sn_vec2_is_finite(md.center) || !sn_is_finite(md.rotational_inertia))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "mass data must be finite");
  if (!(md.mass > 0.0f) || !sn_is_finite(1.0f / md.mass))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "mass %g must be > 0", (double)md.mass);
  if (md.rotational_inertia < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "rotational inertia %g must be >= 0",
                          (double)md.rotational_inertia);
  if (!sn_vec2_within_limit(md.center))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "centre of mass beyond SN_MAX_COORDINATE (1e6 m)");
  b->mass = md.mass;
  b->inv_mass = 1.0f / md.mass;
  b->inertia = b->fixed_rotation ? 0.0f : md.rotational_inertia;
  b->inv_inertia = b->inertia > 0.0f && sn_is_finite(1.0f / b->inertia) ? 1.0f / b->inertia : 0.0f;
  sn_body_move_center(b, md.center);
  /* the shapes' sums no longer give this mass: a shape added later sums them all again */
  b->mass_sums_valid = false;
  b->extent_stale = true;
  w->extents_stale = true;
  sn_body_wake(w, id.index1 - 1);
  return SN_OK;
}

sn_result sn_body_apply_mass_from_shapes(sn_world *w, sn_body_id id) {
  SN_BODY_MUT(w, id);
  sn_body_update_mass(w, b);
  sn_body_wake(w, id.index1 - 1);
  return SN_OK;
}

sn_result sn_body_set_fixed_rotation(sn_world *w, sn_body_id id, bool flag) {
  SN_BODY_MUT(w, id);
  if (b->fixed_rotation == flag) return SN_OK;
  b->fixed_rotation = flag;
  if (flag) b->w = 0.0f;
  sn_body_update_mass(w, b);
  sn_body_wake(w, id.index1 - 1);
  return SN_OK;
}

bool sn_body_is_fixed_rotation(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, false);
  return b->fixed_rotation;
}

sn_result sn_body_disable(sn_world *w, sn_body_id id) {
  SN_BODY_MUT(w, id);
  if (b->disabled) return SN_OK;
  int32_t index = id.index1 - 1;
  /* out of its sleeping island (the rest of it wakes), its contacts end
   * (with end events, waking the bodies it touched), out of the broadphase */
  sn_body_wake(w, index);
  while (b->contact_list != SN_NULL_INDEX) sn_contact_destroy(w, b->contact_list >> 1, true);
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) sn_shape_destroy_proxy(w, s);
  b->disabled = true;
  w->xpbd_topology++; /* its constraints leave the step (the joints' levels follow) */
  b->is_awake = false;
  b->sleep_time = 0.0f;
  b->sleep_next = SN_NULL_INDEX;
  return SN_OK;
}

sn_result sn_body_enable(sn_world *w, sn_body_id id) {
  SN_BODY_MUT(w, id);
  if (!b->disabled) return SN_OK;
  int32_t index = id.index1 - 1;
  /* proxies back in the tree of its type, all or nothing */
  if (!sn_shape_move_proxies(w, index, b->type == SN_BODY_STATIC))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the broadphase tree");
  b->disabled = false;
  w->xpbd_topology++; /* its constraints come back to the step */
  sn_body_wake(w, index);
  return SN_OK;
}

bool sn_body_is_enabled(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, false);
  return !b->disabled;
}

sn_result sn_body_set_target_transform(sn_world *w, sn_body_id id, sn_vec2 position, float angle, float time_step) {
  SN_BODY_MUT(w, id);
  if (!sn_vec2_is_finite(position) || !sn_is_finite(angle) || !sn_is_finite(time_step))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "target and time step must be finite");
  if (!(time_step > 0.0f)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "time step must be > 0");
  if (!sn_vec2_within_limit(position))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "target beyond +-SN_MAX_COORDINATE (1e6 m)");
  if (b->type == SN_BODY_STATIC) return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "static bodies do not move");
  sn_rot q = sn_make_rot(angle);
  sn_vec2 target_center = sn_add(position, sn_rotate(q, b->local_center));
  float inv_dt = 1.0f / time_step;
  sn_vec2 v = sn_scale(inv_dt, sn_sub(target_center, b->center));
  /* the shortest turn from the current rotation to the target's */
  sn_rot dq = sn_inv_mul_rot(b->xf.q, q);
  float omega = b->fixed_rotation ? 0.0f : sn_rot_get_angle(dq) * inv_dt;
  if (!sn_vec2_is_finite(v) || !sn_is_finite(omega) || sn_length(v) > SN_MAX_SPEED)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "the target is too far for the time step (beyond SN_MAX_SPEED)");
  b->v = v;
  b->w = omega;
  sn_body_wake(w, id.index1 - 1);
  sn_body_wake_touching(w, id.index1 - 1);
  return SN_OK;
}

#define SN_BODY_SCALAR_SETTER(fn, field, lo, what)                                                                     \
  sn_result fn(sn_world *w, sn_body_id id, float value) {                                                              \
    SN_BODY_MUT(w, id);                                                                                                \
    if (!sn_is_finite(value)) return sn_world_error(w, SN_ERR_NOT_FINITE, what " must be finite");                     \
    if (value < (lo)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, what " must be >= %g", (double)(lo));          \
    b->field = value;                                                                                                  \
    return SN_OK;                                                                                                      \
  }

SN_BODY_SCALAR_SETTER(sn_body_set_linear_damping, linear_damping, 0.0f, "linear damping")
SN_BODY_SCALAR_SETTER(sn_body_set_angular_damping, angular_damping, 0.0f, "angular damping")
SN_BODY_SCALAR_SETTER(sn_body_set_gravity_scale, gravity_scale, -SN_HUGE, "gravity scale")
SN_BODY_SCALAR_SETTER(sn_body_set_sleep_threshold, sleep_threshold, 0.0f, "sleep threshold")

float sn_body_get_sleep_threshold(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->sleep_threshold;
}

float sn_body_get_linear_damping(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->linear_damping;
}

float sn_body_get_angular_damping(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->angular_damping;
}

float sn_body_get_gravity_scale(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0.0f);
  return b->gravity_scale;
}

sn_result sn_body_set_bullet(sn_world *w, sn_body_id id, bool flag) {
  SN_BODY_MUT(w, id);
  b->is_bullet = flag;
  return SN_OK;
}

bool sn_body_is_bullet(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, false);
  return b->is_bullet;
}

sn_result sn_body_set_user_data(sn_world *w, sn_body_id id, void *user_data) {
  SN_BODY_MUT(w, id);
  b->user_data = user_data;
  return SN_OK;
}

void *sn_body_get_user_data(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, NULL);
  return b->user_data;
}

bool sn_body_is_awake(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, false);
  return b->is_awake;
}

sn_result sn_body_set_awake(sn_world *w, sn_body_id id, bool awake) {
  SN_BODY_MUT(w, id);
  if (b->type == SN_BODY_STATIC) return SN_OK;
  if (awake) {
    sn_body_wake(w, id.index1 - 1);
  } else if (b->is_awake && w->settings.enable_sleep) {
    /* putting one body to sleep: it must not touch awake bodies' islands, so
     * we only mark it ready to sleep; the island code decides next step */
    b->sleep_time = SN_HUGE;
  }
  return SN_OK;
}

sn_result sn_body_enable_sleep(sn_world *w, sn_body_id id, bool flag) {
  SN_BODY_MUT(w, id);
  b->enable_sleep = flag;
  if (!flag) sn_body_wake(w, id.index1 - 1);
  return SN_OK;
}

sn_vec2 sn_body_get_world_point(sn_world *w, sn_body_id id, sn_vec2 local_point) {
  SN_BODY_OR(w, id, local_point);
  return sn_transform_point(b->xf, local_point);
}

sn_vec2 sn_body_get_local_point(sn_world *w, sn_body_id id, sn_vec2 world_point) {
  SN_BODY_OR(w, id, world_point);
  return sn_inv_transform_point(b->xf, world_point);
}

int32_t sn_body_get_shape_count(sn_world *w, sn_body_id id) {
  SN_BODY_OR(w, id, 0);
  return b->shape_count;
}

int32_t sn_body_get_shapes(sn_world *w, sn_body_id id, sn_shape_id *shapes, int32_t capacity) {
  SN_BODY_OR(w, id, 0);
  int32_t n = 0;
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX && n < capacity; s = w->shapes.data[s].next) {
    if (shapes) shapes[n] = sn_make_shape_id(w, s);
    n++;
  }
  return n;
}
