/* Shapes: creation with validated geometry and material, broadphase proxies,
 * chains of smooth one-sided segments. */
#include <float.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

sn_shape_def sn_default_shape_def(void) {
  sn_shape_def def;
  memset(&def, 0, sizeof(def));
  def.density = 1.0f;
  def.friction = 0.6f;
  def.restitution = 0.0f;
  def.enable_contact_events = true;
  def.enable_sensor_events = true;
  def.category_bits = 1;
  def.mask_bits = UINT64_MAX;
  def.cookie = SN_DEF_COOKIE;
  return def;
}

sn_chain_def sn_default_chain_def(void) {
  sn_chain_def def;
  memset(&def, 0, sizeof(def));
  def.friction = 0.6f;
  def.category_bits = 1;
  def.mask_bits = UINT64_MAX;
  def.cookie = SN_DEF_COOKIE;
  return def;
}

sn_shape *sn_get_shape(sn_world *w, sn_shape_id id, sn_result *code) {
  return SN_RESOLVE(w, shapes, sn_shape, "shape", id, code);
}

/* A moving shape's box in the dynamic tree: its tight box grown by the
 * margin (SN_AABB_MARGIN, more than the speculative distance). The leaf
 * moves as soon as the tight box grown by the speculative distance leaves it
 * (sn_shape_escaped), so every pair of shapes nearer than the speculative
 * distance has boxes that overlap, and a contact (with its speculative
 * points) at the start of every step; a static shape's box is its tight box. */
static sn_aabb sn_fatten(sn_aabb a, float margin) {
  return (sn_aabb){{a.lower.x - margin, a.lower.y - margin}, {a.upper.x + margin, a.upper.y + margin}};
}

/* The margin of a shape of body b: a body that moved farther over its last
 * step (its centre, and its turn at its farthest point) than the full
 * margin leaves its box again within a step whatever the margin, so it takes
 * the small one, which finds fewer pairs and fewer candidates for continuous
 * collision (a crowd flung apart). A body with no contact (nothing near: a
 * lattice's bodies, joined to their neighbours and never touching them) has
 * the full margin beyond the speculative distance: its leaf moves as rarely
 * as without the speculative room, and the larger box finds nothing more.
 * The others keep the full margin. */
static float sn_shape_margin(const sn_body *b) {
  const float sin_turn = b->q0.c * b->xf.q.s - b->q0.s * b->xf.q.c;
  const float moved = sn_length(sn_sub(b->center, b->center0)) + sn_absf(sin_turn) * b->max_extent;
  if (moved > SN_AABB_MARGIN) return SN_AABB_MARGIN_FAST;
  return b->contact_count > 0 ? SN_AABB_MARGIN : SN_AABB_MARGIN + SN_SPECULATIVE_DISTANCE;
}

static bool sn_shape_escaped(const sn_shape *s) {
  return !sn_aabb_contains(s->fat_aabb, s->is_static_tree ? s->aabb : sn_fatten(s->aabb, SN_SPECULATIVE_DISTANCE));
}

bool sn_shape_create_proxy(sn_world *w, int32_t shape_index) {
  sn_shape *s = w->shapes.data + shape_index;
  const sn_body *b = w->bodies.data + s->body;
  s->aabb = sn_geometry_compute_aabb(&s->geom, b->xf);
  s->is_static_tree = b->type == SN_BODY_STATIC;
  s->fat_aabb = s->is_static_tree ? s->aabb : sn_fatten(s->aabb, SN_AABB_MARGIN);
  sn_tree *tree = s->is_static_tree ? &w->static_tree : &w->dynamic_tree;
  s->proxy = sn_tree_create_proxy(tree, s->fat_aabb, s->category_bits, shape_index);
  /* the tree could not grow: a shape without a proxy would never collide */
  if (s->proxy == SN_NULL_NODE) return false;
  sn_tree_set_group(tree, s->proxy, s->group_index);
  s->enlarged = true;
  sn_array_push(&w->mem, w->move_buffer, shape_index);
  return true;
}

void sn_shape_destroy_proxy(sn_world *w, int32_t shape_index) {
  sn_shape *s = w->shapes.data + shape_index;
  if (s->proxy == SN_NULL_NODE) return;
  sn_tree_destroy_proxy(s->is_static_tree ? &w->static_tree : &w->dynamic_tree, s->proxy);
  s->proxy = SN_NULL_NODE;
  /* drop it from the move buffer */
  for (int32_t i = 0; i < w->move_buffer.count; ++i) {
    if (w->move_buffer.data[i] == shape_index) {
      w->move_buffer.data[i] = w->move_buffer.data[--w->move_buffer.count];
      break;
    }
  }
  s->enlarged = false;
}

bool sn_shape_move_proxies(sn_world *w, int32_t body_index, bool to_static) {
  const sn_body *b = w->bodies.data + body_index;
  int32_t n = b->shape_count;
  if (n == 0) return true;
  /* insert into the new tree first (it may have to grow), then drop the old
   * proxies, so that running out of memory changes nothing */
  int32_t *proxies = sn_mem_alloc(&w->mem, (size_t)n * sizeof(int32_t));
  if (proxies == NULL || !sn_array_reserve(&w->mem, w->move_buffer, w->move_buffer.count + n)) {
    sn_mem_free(&w->mem, proxies, (size_t)n * sizeof(int32_t));
    return false;
  }
  sn_tree *tree = to_static ? &w->static_tree : &w->dynamic_tree;
  int32_t k = 0;
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next, ++k) {
    const sn_shape *shape = w->shapes.data + s;
    sn_aabb aabb = sn_geometry_compute_aabb(&shape->geom, b->xf);
    sn_aabb fat = to_static ? aabb : sn_fatten(aabb, SN_AABB_MARGIN);
    proxies[k] = sn_tree_create_proxy(tree, fat, shape->category_bits, s);
    if (proxies[k] == SN_NULL_NODE) {
      while (k > 0) sn_tree_destroy_proxy(tree, proxies[--k]);
      sn_mem_free(&w->mem, proxies, (size_t)n * sizeof(int32_t));
      return false;
    }
    sn_tree_set_group(tree, proxies[k], shape->group_index);
  }
  k = 0;
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next, ++k) {
    sn_shape_destroy_proxy(w, s);
    sn_shape *shape = w->shapes.data + s;
    shape->proxy = proxies[k];
    shape->is_static_tree = to_static;
    shape->aabb = sn_geometry_compute_aabb(&shape->geom, b->xf);
    shape->fat_aabb = sn_tree_get_aabb(tree, proxies[k]);
    shape->enlarged = true;
    sn_array_push(&w->mem, w->move_buffer, s); /* reserved above */
  }
  sn_mem_free(&w->mem, proxies, (size_t)n * sizeof(int32_t));
  return true;
}

void sn_shape_update_aabb(sn_world *w, int32_t shape_index, sn_transform xf, bool force_move) {
  sn_shape *s = w->shapes.data + shape_index;
  s->aabb = sn_geometry_compute_aabb(&s->geom, xf);
  if (s->proxy == SN_NULL_NODE) return;
  if (!force_move && !sn_shape_escaped(s)) return;
  sn_shape_move_proxy(w, shape_index, false);
}

bool sn_shape_compute_aabb(sn_world *w, int32_t shape_index, sn_transform xf) {
  sn_shape *s = w->shapes.data + shape_index;
  s->aabb = sn_geometry_compute_aabb(&s->geom, xf);
  return s->proxy != SN_NULL_NODE && sn_shape_escaped(s);
}

void sn_shape_move_proxy(sn_world *w, int32_t shape_index, bool marked_only) {
  sn_shape *s = w->shapes.data + shape_index;
  sn_tree *tree = s->is_static_tree ? &w->static_tree : &w->dynamic_tree;
  s->fat_aabb = s->is_static_tree ? s->aabb : sn_fatten(s->aabb, sn_shape_margin(w->bodies.data + s->body));
  /* the dynamic tree is restructured once per step (sn_update_pairs rebuilds
   * what moved); a static shape moves rarely and is reinserted at once */
  if (s->is_static_tree)
    sn_tree_move_proxy(tree, s->proxy, s->fat_aabb);
  else if (marked_only)
    sn_tree_move_proxy_marked(tree, s->proxy, s->fat_aabb);
  else
    sn_tree_move_proxy_deferred(tree, s->proxy, s->fat_aabb);
  if (!s->enlarged) {
    s->enlarged = true;
    sn_array_push(&w->mem, w->move_buffer, shape_index);
  }
}

static bool sn_shape_def_ok(sn_world *w, const sn_shape_def *def) {
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "shape def is NULL"), false;
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_shape_def()"), false;
  if (!sn_is_finite(def->density) || !sn_is_finite(def->friction) || !sn_is_finite(def->restitution) ||
      !sn_is_finite(def->rolling_resistance) || !sn_is_finite(def->tangent_speed))
    return sn_world_error(w, SN_ERR_NOT_FINITE,
                          "density, friction, restitution, rolling resistance and tangent speed must be finite"),
           false;
  if (def->rolling_resistance < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "rolling resistance %g must be >= 0",
                          (double)def->rolling_resistance),
           false;
  if (sn_absf(def->tangent_speed) > SN_MAX_SPEED)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "tangent speed %g beyond SN_MAX_SPEED",
                          (double)def->tangent_speed),
           false;
  if (def->density < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "density %g must be >= 0", (double)def->density), false;
  if (def->friction < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "friction %g must be >= 0", (double)def->friction), false;
  if (def->restitution < 0.0f || def->restitution > 1.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "restitution %g must be in [0, 1]", (double)def->restitution),
           false;
  if (def->is_sensor && (def->enable_hit_events || def->enable_pre_solve_events))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                          "a sensor makes no contacts: enable_hit_events and enable_pre_solve_events must be false"),
           false;
  return true;
}

/* Allocates a shape slot and links it to the body. Returns the index or -1. */
static int32_t sn_shape_alloc(sn_world *w, int32_t body_index) {
  sn_pool pool = sn_shape_pool(w); /* (the caller made room: sn_world_make_room) */
  if (!sn_array_reserve(&w->mem, w->move_buffer, w->move_buffer.count + 1)) {
    sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the move buffer");
    return SN_NULL_INDEX;
  }
  int32_t index = sn_pool_acquire(&pool);
  sn_shape *s = w->shapes.data + index;
  s->body = body_index;
  s->proxy = SN_NULL_NODE;
  s->chain = SN_NULL_INDEX;
  /* append at the end of the body's list so shape order is creation order.
   * The tail hint is the tail if it is another live shape of this body with
   * no successor (exactly one shape of a list has none); a stale hint (a
   * restored world) costs one walk. */
  sn_body *b = w->bodies.data + body_index;
  s->next = SN_NULL_INDEX;
  if (b->shape_list == SN_NULL_INDEX) {
    b->shape_list = index;
  } else {
    int32_t last = b->shape_tail;
    if (last < 0 || last >= w->shapes.count || last == index || !w->shapes.data[last].in_use ||
        w->shapes.data[last].body != body_index || w->shapes.data[last].next != SN_NULL_INDEX) {
      last = b->shape_list;
      while (w->shapes.data[last].next != SN_NULL_INDEX) {
        last = w->shapes.data[last].next;
        w->shape_visits++;
      }
    }
    w->shapes.data[last].next = index;
  }
  b->shape_tail = index;
  b->shape_count += 1;
  return index;
}

/// Largest mass (kg) and rotational inertia about the body origin (kg m^2)
/// one shape may add: a body's sums of them then stay finite (found by
/// fuzz_world: density 3e38 on a 4 m^2 box made an infinite mass, then NaN).
#define SN_MAX_SHAPE_MASS 1.0e30

static bool sn_mass_fits(sn_world *w, const sn_geometry *g, float density) {
  if (density == 0.0f) return true;
  sn_mass_data md = sn_geometry_compute_mass(g, density);
  double inertia = (double)md.rotational_inertia +
                   (double)md.mass * ((double)md.center.x * md.center.x + (double)md.center.y * md.center.y);
  if (md.mass <= SN_MAX_SHAPE_MASS && inertia <= SN_MAX_SHAPE_MASS && isfinite(md.center.x) && isfinite(md.center.y))
    return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                 "density %g is too large for the shape's size: its mass or inertia would exceed 1e30",
                 (double)density);
  return false;
}

static sn_shape_id sn_create_shape(sn_world *w, sn_body_id body_id, const sn_shape_def *def, const sn_geometry *g) {
  sn_result code;
  sn_body *b = sn_get_body(w, body_id, &code);
  if (b == NULL) return SN_NULL_SHAPE;
  if (w->locked) return sn_world_locked_error(w, "creating a shape"), SN_NULL_SHAPE;
  if (!sn_shape_def_ok(w, def)) return SN_NULL_SHAPE;
  if (!sn_mass_fits(w, g, def->density)) return SN_NULL_SHAPE;
  sn_pool pool = sn_shape_pool(w);
  if (!sn_world_make_room(w, &pool, 1, w->max_shapes, "max_shapes", "shapes", NULL)) return SN_NULL_SHAPE;
  int32_t body_index = body_id.index1 - 1;
  int32_t index = sn_shape_alloc(w, body_index);
  if (index == SN_NULL_INDEX) return SN_NULL_SHAPE;
  b = w->bodies.data + body_index;
  sn_shape *s = w->shapes.data + index;
  s->geom = *g;
  s->density = def->density;
  s->friction = def->friction;
  s->restitution = def->restitution;
  s->rolling_resistance = def->rolling_resistance;
  s->tangent_speed = def->tangent_speed;
  s->material = def->material;
  s->category_bits = def->category_bits;
  s->mask_bits = def->mask_bits;
  s->enable_contact_events = def->enable_contact_events;
  s->enable_hit_events = def->enable_hit_events;
  s->is_sensor = def->is_sensor;
  s->enable_sensor_events = def->enable_sensor_events;
  s->enable_custom_filtering = def->enable_custom_filtering;
  s->enable_pre_solve_events = def->enable_pre_solve_events;
  s->group_index = def->group_index;
  s->user_data = def->user_data;
  s->proxy = SN_NULL_NODE;
  /* the tight box at the body's pose even without a proxy (a disabled body):
   * sn_shape_get_aabb reads it, and a snapshot loads it back as computed */
  s->aabb = sn_geometry_compute_aabb(&s->geom, b->xf);
  if (!b->disabled && !sn_shape_create_proxy(w, index)) {
    sn_shape_destroy_internal(w, index, false);
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the broadphase tree"), SN_NULL_SHAPE;
  }
  if (s->is_sensor) {
    w->sensor_count += 1;
    w->sensor_shapes_valid = false;
  }
  sn_body_add_shape_mass(w, b, index); /* mass, or only extents for kinematic/static */
  /* a sleeping body stays asleep (one built asleep, shape by shape, is
   * still asleep when done): its new shape's contacts wake it when an
   * awake body touches it */
  return sn_make_shape_id(w, index);
}

static bool sn_check_vec(sn_world *w, sn_vec2 v, const char *what) {
  if (!sn_vec2_is_finite(v)) return sn_world_error(w, SN_ERR_NOT_FINITE, "%s must be finite", what), false;
  return true;
}

/// Finite geometry beyond SN_MAX_COORDINATE (local points, radii): refused.
static sn_result sn_beyond_limit(sn_world *w, const char *what) {
  return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s beyond SN_MAX_COORDINATE (1e6 m)", what);
}

/* The checks of each kind of geometry, shared by creation and by the
 * setters: SN_OK, or the error (recorded). */
static sn_result sn_circle_ok(sn_world *w, const sn_circle *circle) {
  if (circle == NULL) return sn_world_error(w, SN_ERR_NULL, "circle is NULL");
  if (!sn_check_vec(w, circle->center, "circle center") || !sn_is_finite(circle->radius))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "circle must be finite");
  if (!sn_vec2_within_limit(circle->center) || !sn_within_limit(circle->radius))
    return sn_beyond_limit(w, "circle center or radius");
  if (circle->radius <= 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "circle radius %g must be > 0", (double)circle->radius);
  return SN_OK;
}

static sn_result sn_capsule_ok(sn_world *w, const sn_capsule *capsule) {
  if (capsule == NULL) return sn_world_error(w, SN_ERR_NULL, "capsule is NULL");
  if (!sn_vec2_is_finite(capsule->center1) || !sn_vec2_is_finite(capsule->center2) || !sn_is_finite(capsule->radius))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "capsule must be finite");
  if (!sn_vec2_within_limit(capsule->center1) || !sn_vec2_within_limit(capsule->center2) ||
      !sn_within_limit(capsule->radius))
    return sn_beyond_limit(w, "capsule centre or radius");
  if (capsule->radius <= 0.0f) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "capsule radius must be > 0");
  /* a zero-length capsule is a circle; refuse rather than guess */
  if (sn_distance_sq(capsule->center1, capsule->center2) <= SN_LINEAR_SLOP * SN_LINEAR_SLOP)
    return sn_world_error(w, SN_ERR_DEGENERATE_POLYGON, "capsule centres coincide: use a circle");
  return SN_OK;
}

static sn_result sn_polygon_ok(sn_world *w, const sn_polygon *polygon) {
  if (polygon == NULL) return sn_world_error(w, SN_ERR_NULL, "polygon is NULL");
  sn_result r = sn_polygon_validate(polygon);
  if (r != SN_OK)
    return sn_world_error(w, r, "invalid polygon (%d vertices): build it with sn_make_polygon or sn_compute_hull",
                          (int)polygon->count);
  for (int32_t i = 0; i < polygon->count; ++i) {
    if (!sn_vec2_within_limit(polygon->vertices[i])) return sn_beyond_limit(w, "polygon vertex");
  }
  if (!sn_within_limit(polygon->radius)) return sn_beyond_limit(w, "polygon radius");
  return SN_OK;
}

static sn_result sn_segment_ok(sn_world *w, const sn_segment *segment) {
  if (segment == NULL) return sn_world_error(w, SN_ERR_NULL, "segment is NULL");
  if (!sn_vec2_is_finite(segment->point1) || !sn_vec2_is_finite(segment->point2))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "segment must be finite");
  if (!sn_vec2_within_limit(segment->point1) || !sn_vec2_within_limit(segment->point2))
    return sn_beyond_limit(w, "segment point");
  if (sn_distance_sq(segment->point1, segment->point2) <= SN_LINEAR_SLOP * SN_LINEAR_SLOP)
    return sn_world_error(w, SN_ERR_DEGENERATE_POLYGON, "segment is shorter than the linear slop");
  return SN_OK;
}

sn_shape_id sn_create_circle_shape(sn_world *w, sn_body_id body, const sn_shape_def *def, const sn_circle *circle) {
  if (w == NULL) return SN_NULL_SHAPE;
  if (sn_circle_ok(w, circle) != SN_OK) return SN_NULL_SHAPE;
  sn_geometry g = {.type = SN_SHAPE_CIRCLE, .circle = *circle};
  return sn_create_shape(w, body, def, &g);
}

sn_shape_id sn_create_capsule_shape(sn_world *w, sn_body_id body, const sn_shape_def *def, const sn_capsule *capsule) {
  if (w == NULL) return SN_NULL_SHAPE;
  if (sn_capsule_ok(w, capsule) != SN_OK) return SN_NULL_SHAPE;
  sn_geometry g = {.type = SN_SHAPE_CAPSULE, .capsule = *capsule};
  return sn_create_shape(w, body, def, &g);
}

sn_shape_id sn_create_polygon_shape(sn_world *w, sn_body_id body, const sn_shape_def *def, const sn_polygon *polygon) {
  if (w == NULL) return SN_NULL_SHAPE;
  if (sn_polygon_ok(w, polygon) != SN_OK) return SN_NULL_SHAPE;
  sn_geometry g = {.type = SN_SHAPE_POLYGON, .polygon = *polygon};
  return sn_create_shape(w, body, def, &g);
}

sn_shape_id sn_create_segment_shape(sn_world *w, sn_body_id body, const sn_shape_def *def, const sn_segment *segment) {
  if (w == NULL) return SN_NULL_SHAPE;
  if (sn_segment_ok(w, segment) != SN_OK) return SN_NULL_SHAPE;
  sn_geometry g = {.type = SN_SHAPE_SEGMENT, .segment = *segment};
  return sn_create_shape(w, body, def, &g);
}

/* Ends every contact of the shape (with end events for touching ones). */
static void sn_shape_destroy_contacts(sn_world *w, int32_t shape_index, bool wake) {
  const sn_body *b = w->bodies.data + w->shapes.data[shape_index].body;
  for (int32_t key = b->contact_list; key != SN_NULL_INDEX;) {
    int32_t ci = key >> 1;
    int32_t next = w->contacts.data[ci].edges[key & 1].next_key;
    if (w->contacts.data[ci].shape_a == shape_index || w->contacts.data[ci].shape_b == shape_index)
      sn_contact_destroy(w, ci, wake);
    key = next;
  }
}

void sn_shape_destroy_internal(sn_world *w, int32_t shape_index, bool wake) {
  sn_shape *s = w->shapes.data + shape_index;
  int32_t body_index = s->body;
  sn_body *b = w->bodies.data + body_index;
  sn_shape_destroy_contacts(w, shape_index, wake);
  sn_shape_destroy_proxy(w, shape_index);
  if (s->is_sensor) { /* its overlaps end at the next step's sensor pass */
    w->sensor_count -= 1;
    w->sensor_shapes_valid = false;
  }
  /* unlink from the body */
  int32_t *link = &b->shape_list, prev = SN_NULL_INDEX;
  while (*link != shape_index) {
    prev = *link;
    link = &w->shapes.data[*link].next;
  }
  *link = s->next;
  if (b->shape_tail == shape_index) b->shape_tail = prev;
  b->shape_count -= 1;
  b->mass_sums_valid = false; /* a shape left the sums: summed again from the list */
  sn_pool pool = sn_shape_pool(w);
  sn_pool_release(&pool, shape_index);
}

sn_result sn_destroy_shape(sn_world *w, sn_shape_id id, bool update_mass) {
  sn_result code;
  sn_shape *s = sn_get_shape(w, id, &code);
  if (s == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_shape");
  if (s->chain != SN_NULL_INDEX)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "this shape belongs to a chain: use sn_destroy_chain");
  int32_t body_index = s->body;
  sn_shape_destroy_internal(w, id.index1 - 1, true);
  sn_body_wake(w, body_index);
  if (update_mass) sn_body_update_mass(w, w->bodies.data + body_index);
  return SN_OK;
}

bool sn_shape_is_valid(sn_world *w, sn_shape_id id) { return SN_POOL_ID_LIVE(w, sn_shape_pool, id); }

#define SN_SHAPE_OR(w, id, fallback)                                                                                   \
  sn_shape *s = sn_get_shape((w), (id), NULL);                                                                         \
  if (s == NULL) return fallback

#define SN_SHAPE_MUT(w, id)                                                                                            \
  sn_result code_;                                                                                                     \
  sn_shape *s = sn_get_shape((w), (id), &code_);                                                                       \
  if (s == NULL) return code_;                                                                                         \
  if ((w)->locked) return sn_world_locked_error((w), __func__)

sn_shape_type sn_shape_get_type(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, SN_SHAPE_CIRCLE);
  return s->geom.type;
}

sn_body_id sn_shape_get_body(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, SN_NULL_BODY);
  return sn_make_body_id(w, s->body);
}

/* A material change reaches the shape's existing contacts at once. */
static void sn_refresh_contact_materials(sn_world *w, int32_t shape_index);
/* Wakes the bodies touching the shape (a conveyor set moving). */
static void sn_wake_shape_contacts(sn_world *w, int32_t shape_index);

/* The refusal of a material number outside [lo, hi] (hi FLT_MAX: no upper bound). */
static sn_result sn_material_range_error(sn_world *w, const char *what, float value, float lo, float hi) {
  if (hi == FLT_MAX)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s %g must be >= %g", what, (double)value, (double)lo);
  return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s %g must be in [%g, %g]", what, (double)value, (double)lo,
                        (double)hi);
}

/* A material number's setter and getter: finite, within [lo, hi], given to
 * the shape's existing contacts at once; `then` runs after (a statement). */
#define SN_SHAPE_MATERIAL(field, lo, hi, what, then)                                                                   \
  sn_result sn_shape_set_##field(sn_world *w, sn_shape_id id, float value) {                                           \
    SN_SHAPE_MUT(w, id);                                                                                               \
    if (!sn_is_finite(value)) return sn_world_error(w, SN_ERR_NOT_FINITE, what " must be finite");                     \
    if (value < (lo) || value > (hi)) return sn_material_range_error(w, what, value, (lo), (hi));                      \
    s->field = value;                                                                                                  \
    sn_refresh_contact_materials(w, id.index1 - 1);                                                                    \
    then;                                                                                                              \
    return SN_OK;                                                                                                      \
  }                                                                                                                    \
  float sn_shape_get_##field(sn_world *w, sn_shape_id id) {                                                            \
    SN_SHAPE_OR(w, id, 0.0f);                                                                                          \
    return s->field;                                                                                                   \
  }

SN_SHAPE_MATERIAL(friction, 0.0f, FLT_MAX, "friction", (void)0)
SN_SHAPE_MATERIAL(restitution, 0.0f, 1.0f, "restitution", (void)0)
SN_SHAPE_MATERIAL(rolling_resistance, 0.0f, FLT_MAX, "rolling resistance", (void)0)
/* a belt set moving (or stopped) wakes what rests on it */
SN_SHAPE_MATERIAL(tangent_speed, -SN_MAX_SPEED, SN_MAX_SPEED, "tangent speed", sn_wake_shape_contacts(w, id.index1 - 1))

sn_result sn_shape_set_material(sn_world *w, sn_shape_id id, int32_t material) {
  SN_SHAPE_MUT(w, id);
  s->material = material;
  sn_refresh_contact_materials(w, id.index1 - 1);
  return SN_OK;
}

int32_t sn_shape_get_material(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, 0);
  return s->material;
}

sn_result sn_shape_set_density(sn_world *w, sn_shape_id id, float density, bool update_mass) {
  SN_SHAPE_MUT(w, id);
  if (!sn_is_finite(density)) return sn_world_error(w, SN_ERR_NOT_FINITE, "density must be finite");
  if (density < 0.0f) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "density must be >= 0");
  if (!sn_mass_fits(w, &s->geom, density)) return SN_ERR_INVALID_ARGUMENT;
  s->density = density;
  w->bodies.data[s->body].mass_sums_valid = false;
  if (update_mass) sn_body_update_mass(w, w->bodies.data + s->body);
  return SN_OK;
}

float sn_shape_get_density(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, 0.0f);
  return s->density;
}

sn_aabb sn_shape_get_aabb(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, ((sn_aabb){{0.0f, 0.0f}, {0.0f, 0.0f}}));
  return s->aabb;
}

sn_result sn_shape_set_user_data(sn_world *w, sn_shape_id id, void *user_data) {
  SN_SHAPE_MUT(w, id);
  s->user_data = user_data;
  return SN_OK;
}

void *sn_shape_get_user_data(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, NULL);
  return s->user_data;
}

#define SN_SHAPE_GETTER(fn, T, tag, field)                                                                             \
  sn_result fn(sn_world *w, sn_shape_id id, T *out) {                                                                  \
    sn_result code;                                                                                                    \
    sn_shape *s = sn_get_shape(w, id, &code);                                                                          \
    if (s == NULL) return code;                                                                                        \
    if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out is NULL");                                             \
    if (s->geom.type != (tag)) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "shape is another type");             \
    *out = s->geom.field;                                                                                              \
    return SN_OK;                                                                                                      \
  }

SN_SHAPE_GETTER(sn_shape_get_circle, sn_circle, SN_SHAPE_CIRCLE, circle)
SN_SHAPE_GETTER(sn_shape_get_capsule, sn_capsule, SN_SHAPE_CAPSULE, capsule)
SN_SHAPE_GETTER(sn_shape_get_polygon, sn_polygon, SN_SHAPE_POLYGON, polygon)
SN_SHAPE_GETTER(sn_shape_get_segment, sn_segment, SN_SHAPE_SEGMENT, segment)

/* A shape takes new geometry: its contacts end (begin again next step if
 * they still touch), its proxy is put back in its tree, the body's mass is
 * computed from its shapes again and it wakes. */
static sn_result sn_shape_set_geometry(sn_world *w, sn_shape_id id, const sn_geometry *g) {
  int32_t index = id.index1 - 1;
  sn_shape *s = w->shapes.data + index;
  sn_body *b = w->bodies.data + s->body;
  sn_shape_destroy_contacts(w, index, true);
  s->geom = *g;
  /* removing a leaf frees the two nodes its insertion takes: cannot fail */
  sn_shape_destroy_proxy(w, index);
  s->aabb = sn_geometry_compute_aabb(&s->geom, b->xf);
  if (!b->disabled) sn_shape_create_proxy(w, index);
  sn_body_update_mass(w, b);
  sn_body_wake(w, s->body);
  return SN_OK;
}

#define SN_SHAPE_SETTER(fn, type_name, tag, field, check)                                                              \
  sn_result fn(sn_world *w, sn_shape_id id, const type_name *value) {                                                  \
    SN_SHAPE_MUT(w, id);                                                                                               \
    if (s->chain != SN_NULL_INDEX)                                                                                     \
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "a chain's segments keep their geometry");                     \
    sn_result r = check(w, value);                                                                                     \
    if (r != SN_OK) return r;                                                                                          \
    sn_geometry g = {.type = (tag), .field = *value};                                                                  \
    return sn_shape_set_geometry(w, id, &g);                                                                           \
  }

SN_SHAPE_SETTER(sn_shape_set_circle, sn_circle, SN_SHAPE_CIRCLE, circle, sn_circle_ok)
SN_SHAPE_SETTER(sn_shape_set_capsule, sn_capsule, SN_SHAPE_CAPSULE, capsule, sn_capsule_ok)
SN_SHAPE_SETTER(sn_shape_set_polygon, sn_polygon, SN_SHAPE_POLYGON, polygon, sn_polygon_ok)
SN_SHAPE_SETTER(sn_shape_set_segment, sn_segment, SN_SHAPE_SEGMENT, segment, sn_segment_ok)

bool sn_shape_test_point(sn_world *w, sn_shape_id id, sn_vec2 point) {
  SN_SHAPE_OR(w, id, false);
  if (!sn_vec2_is_finite(point)) return false;
  return sn_geometry_test_point(&s->geom, sn_inv_transform_point(w->bodies.data[s->body].xf, point));
}

static void sn_refresh_contact_materials(sn_world *w, int32_t shape_index) {
  const sn_body *b = w->bodies.data + w->shapes.data[shape_index].body;
  for (int32_t key = b->contact_list; key != SN_NULL_INDEX;) {
    sn_contact *c = w->contacts.data + (key >> 1);
    if (c->shape_a == shape_index || c->shape_b == shape_index) sn_contact_mix_materials(w, c);
    key = c->edges[key & 1].next_key;
  }
}

static void sn_wake_shape_contacts(sn_world *w, int32_t shape_index) {
  const sn_body *b = w->bodies.data + w->shapes.data[shape_index].body;
  for (int32_t key = b->contact_list; key != SN_NULL_INDEX;) {
    sn_contact *c = w->contacts.data + (key >> 1);
    if ((c->shape_a == shape_index || c->shape_b == shape_index) && (c->flags & SN_CONTACT_TOUCHING)) {
      sn_body_wake(w, c->edges[0].body);
      sn_body_wake(w, c->edges[1].body);
    }
    key = c->edges[key & 1].next_key;
  }
}

/* ------------------------------------------------------------------ chains */

sn_chain_id sn_create_chain(sn_world *w, sn_body_id body_id, const sn_chain_def *def) {
  if (w == NULL) return SN_NULL_CHAIN;
  sn_result code;
  sn_body *b = sn_get_body(w, body_id, &code);
  if (b == NULL) return SN_NULL_CHAIN;
  if (w->locked) return sn_world_locked_error(w, "sn_create_chain"), SN_NULL_CHAIN;
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "chain def is NULL"), SN_NULL_CHAIN;
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_chain_def()"), SN_NULL_CHAIN;
  if (def->points == NULL) return sn_world_error(w, SN_ERR_NULL, "chain points are NULL"), SN_NULL_CHAIN;
  int32_t n = def->count;
  if ((def->is_loop && n < 3) || (!def->is_loop && n < 4) || n > 1000000)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "a chain needs >= 4 points (>= 3 for a loop), got %d", (int)n),
           SN_NULL_CHAIN;
  if (!sn_is_finite(def->friction) || !sn_is_finite(def->restitution) || !sn_is_finite(def->rolling_resistance) ||
      !sn_is_finite(def->tangent_speed))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "chain material must be finite"), SN_NULL_CHAIN;
  if (def->friction < 0.0f || def->restitution < 0.0f || def->restitution > 1.0f || def->rolling_resistance < 0.0f ||
      sn_absf(def->tangent_speed) > SN_MAX_SPEED)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                          "chain friction >= 0, restitution in [0, 1], rolling resistance >= 0, |tangent speed| <= "
                          "SN_MAX_SPEED"),
           SN_NULL_CHAIN;
  for (int32_t i = 0; i < n; ++i) {
    if (!sn_vec2_is_finite(def->points[i]))
      return sn_world_error(w, SN_ERR_NOT_FINITE, "chain point %d is not finite", (int)i), SN_NULL_CHAIN;
    if (!sn_vec2_within_limit(def->points[i]))
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "chain point %d beyond SN_MAX_COORDINATE (1e6 m)", (int)i),
             SN_NULL_CHAIN;
    int32_t j = i + 1 < n ? i + 1 : 0;
    if ((j != 0 || def->is_loop) && sn_distance_sq(def->points[i], def->points[j]) <= SN_LINEAR_SLOP * SN_LINEAR_SLOP)
      return sn_world_error(w, SN_ERR_DEGENERATE_POLYGON, "chain points %d and %d coincide", (int)i, (int)j),
             SN_NULL_CHAIN;
  }
  int32_t seg_count = def->is_loop ? n : n - 3;
  /* reserve everything first so a failure leaves the world unchanged */
  sn_pool shapes = sn_shape_pool(w), chains = sn_chain_pool(w);
  if (!sn_world_make_room(w, &shapes, seg_count, w->max_shapes, "max_shapes", "shapes", "the chain's segments"))
    return SN_NULL_CHAIN;
  if (!sn_array_reserve(&w->mem, w->move_buffer, w->move_buffer.count + seg_count) ||
      !sn_array_reserve(&w->mem, w->chains, w->chains.count + 1))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow chains"), SN_NULL_CHAIN;
  int32_t *shape_ids = sn_mem_alloc(&w->mem, (size_t)seg_count * sizeof(int32_t));
  if (shape_ids == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot allocate chain"), SN_NULL_CHAIN;

  int32_t chain_index = sn_pool_acquire(&chains);
  sn_chain *chain = w->chains.data + chain_index;
  chain->body = body_id.index1 - 1;
  chain->shapes = shape_ids;
  chain->shape_count = seg_count;
  chain->user_data = def->user_data;

  for (int32_t k = 0; k < seg_count; ++k) {
    /* open chain: segment k spans points k+1 -> k+2 with ghosts k and k+3 */
    int32_t i0, i1, i2, i3;
    if (def->is_loop) {
      i0 = (k - 1 + n) % n;
      i1 = k;
      i2 = (k + 1) % n;
      i3 = (k + 2) % n;
    } else {
      i0 = k;
      i1 = k + 1;
      i2 = k + 2;
      i3 = k + 3;
    }
    int32_t index = sn_shape_alloc(w, chain->body);
    sn_shape *s = w->shapes.data + index;
    s->geom.type = SN_SHAPE_CHAIN_SEGMENT;
    s->geom.chain_segment.ghost1 = def->points[i0];
    s->geom.chain_segment.segment.point1 = def->points[i1];
    s->geom.chain_segment.segment.point2 = def->points[i2];
    s->geom.chain_segment.ghost2 = def->points[i3];
    s->geom.chain_segment.chain_id = chain_index;
    s->density = 0.0f;
    s->friction = def->friction;
    s->restitution = def->restitution;
    s->rolling_resistance = def->rolling_resistance;
    s->tangent_speed = def->tangent_speed;
    s->material = def->material;
    s->category_bits = def->category_bits ? def->category_bits : 1;
    s->mask_bits = def->mask_bits ? def->mask_bits : UINT64_MAX;
    s->group_index = def->group_index;
    s->enable_contact_events = true;
    s->enable_sensor_events = true;
    s->user_data = def->user_data;
    s->chain = chain_index;
    shape_ids[k] = index;
    if (!sn_shape_create_proxy(w, index)) {
      /* undo the segments made so far (this one has no proxy) and the chain */
      for (int32_t j = 0; j <= k; ++j) sn_shape_destroy_internal(w, shape_ids[j], false);
      sn_mem_free(&w->mem, shape_ids, (size_t)seg_count * sizeof(int32_t));
      chain->shapes = NULL;
      sn_pool_release(&chains, chain_index);
      return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the broadphase tree"), SN_NULL_CHAIN;
    }
  }
  sn_body_update_mass(w, w->bodies.data + chain->body);
  return (sn_chain_id){chain_index + 1, w->tag, chain->generation};
}

static sn_chain *sn_get_chain(sn_world *w, sn_chain_id id, sn_result *code) {
  return SN_RESOLVE(w, chains, sn_chain, "chain", id, code);
}

sn_result sn_destroy_chain(sn_world *w, sn_chain_id id) {
  sn_result code;
  sn_chain *c = sn_get_chain(w, id, &code);
  if (c == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_chain");
  for (int32_t k = 0; k < c->shape_count; ++k) sn_shape_destroy_internal(w, c->shapes[k], true);
  sn_mem_free(&w->mem, c->shapes, (size_t)c->shape_count * sizeof(int32_t));
  c->shapes = NULL;
  sn_pool chains = sn_chain_pool(w);
  sn_pool_release(&chains, id.index1 - 1);
  return SN_OK;
}

bool sn_chain_is_valid(sn_world *w, sn_chain_id id) { return SN_POOL_ID_LIVE(w, sn_chain_pool, id); }

/* ------------------------------------------------------------------------ */
/* Filters and contacts                                                      */

sn_result sn_shape_set_filter(sn_world *w, sn_shape_id id, sn_filter filter) {
  SN_SHAPE_MUT(w, id);
  const int32_t index = id.index1 - 1;
  /* the shape looks for pairs again next step: room in the move buffer first */
  if (!s->enlarged && s->proxy != SN_NULL_NODE && !sn_array_reserve(&w->mem, w->move_buffer, w->move_buffer.count + 1))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the move buffer");
  s->category_bits = filter.category_bits;
  s->mask_bits = filter.mask_bits;
  s->group_index = filter.group_index;
  if (s->proxy != SN_NULL_NODE) {
    sn_tree *tree = s->is_static_tree ? &w->static_tree : &w->dynamic_tree;
    sn_tree_set_category(tree, s->proxy, s->category_bits);
    sn_tree_set_group(tree, s->proxy, s->group_index);
  }
  /* contacts the filter no longer allows go now (end events wait for the next step) */
  const sn_body *b = w->bodies.data + s->body;
  int32_t key = b->contact_list;
  while (key != SN_NULL_INDEX) {
    const int32_t ci = key >> 1;
    const sn_contact *c = w->contacts.data + ci;
    const int32_t next = c->edges[key & 1].next_key;
    if (c->shape_a == index || c->shape_b == index) {
      const int32_t other = c->shape_a == index ? c->shape_b : c->shape_a;
      if (!sn_should_shapes_collide(w, w->shapes.data + index, w->shapes.data + other)) sn_contact_destroy(w, ci, true);
    }
    key = next;
  }
  s = w->shapes.data + index;
  if (s->proxy != SN_NULL_NODE && !s->enlarged) {
    s->enlarged = true;
    sn_array_push(&w->mem, w->move_buffer, index); /* reserved above */
  }
  sn_body_wake(w, s->body);
  return SN_OK;
}

sn_filter sn_shape_get_filter(sn_world *w, sn_shape_id id) {
  sn_filter none = {0, 0, 0};
  SN_SHAPE_OR(w, id, none);
  sn_filter f = {s->category_bits, s->mask_bits, s->group_index};
  return f;
}

bool sn_shape_is_sensor(sn_world *w, sn_shape_id id) {
  SN_SHAPE_OR(w, id, false);
  return s->is_sensor;
}

static bool sn_contacts_out_ok(sn_world *w, const sn_contact_data *out, int32_t capacity) {
  if (capacity < 0 || (out == NULL && capacity > 0))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "capacity %d with %s array", (int)capacity,
                          out == NULL ? "a NULL" : "an"),
           false;
  return true;
}

/* The touching contacts of body_index (of one shape of it, if shape >= 0). */
static int32_t sn_collect_contacts(sn_world *w, int32_t body_index, int32_t shape, sn_contact_data *out,
                                   int32_t capacity) {
  int32_t n = 0;
  for (int32_t key = w->bodies.data[body_index].contact_list; key != SN_NULL_INDEX;) {
    const sn_contact *c = w->contacts.data + (key >> 1);
    key = c->edges[key & 1].next_key;
    if (!(c->flags & SN_CONTACT_TOUCHING)) continue;
    if (shape >= 0 && c->shape_a != shape && c->shape_b != shape) continue;
    if (out != NULL) {
      if (n == capacity) break;
      out[n].shape_a = sn_make_shape_id(w, c->shape_a);
      out[n].shape_b = sn_make_shape_id(w, c->shape_b);
      sn_manifold_to_public(&c->manifold, w->settings.substeps, &out[n].manifold);
    }
    n++;
  }
  return n;
}

int32_t sn_body_get_contact_count(sn_world *w, sn_body_id id) {
  if (w == NULL) return 0;
  if (sn_get_body(w, id, NULL) == NULL) return 0;
  return sn_collect_contacts(w, id.index1 - 1, -1, NULL, 0);
}

int32_t sn_body_get_contacts(sn_world *w, sn_body_id id, sn_contact_data *contacts, int32_t capacity) {
  if (w == NULL) return -1;
  if (sn_get_body(w, id, NULL) == NULL) return -1;
  if (!sn_contacts_out_ok(w, contacts, capacity)) return -1;
  return sn_collect_contacts(w, id.index1 - 1, -1, capacity > 0 ? contacts : NULL, capacity);
}

int32_t sn_shape_get_contacts(sn_world *w, sn_shape_id id, sn_contact_data *contacts, int32_t capacity) {
  if (w == NULL) return -1;
  sn_shape *s = sn_get_shape(w, id, NULL);
  if (s == NULL) return -1;
  if (!sn_contacts_out_ok(w, contacts, capacity)) return -1;
  return sn_collect_contacts(w, s->body, id.index1 - 1, capacity > 0 ? contacts : NULL, capacity);
}

sn_result sn_chain_set_user_data(sn_world *w, sn_chain_id id, void *user_data) {
  sn_result code;
  sn_chain *c = sn_get_chain(w, id, &code);
  if (c == NULL) return code;
  c->user_data = user_data;
  return SN_OK;
}

void *sn_chain_get_user_data(sn_world *w, sn_chain_id id) {
  sn_chain *c = sn_get_chain(w, id, NULL);
  return c ? c->user_data : NULL;
}

sn_chain_id sn_shape_get_parent_chain(sn_world *w, sn_shape_id id) {
  if (w == NULL) return SN_NULL_CHAIN;
  sn_shape *s = sn_get_shape(w, id, NULL);
  if (s == NULL || s->chain == SN_NULL_INDEX) return SN_NULL_CHAIN;
  const sn_chain *c = w->chains.data + s->chain;
  return (sn_chain_id){s->chain + 1, w->tag, c->generation};
}

static bool sn_same_point(sn_vec2 a, sn_vec2 b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A chain closes when its last segment leads into its first exactly as a
 * loop's do (sn_create_chain): then the loop of the segments' first points
 * makes the same segments in the same order. An open chain can only do so
 * if its points make exactly those segments, so it is that loop. */
static bool sn_chain_closes(const sn_world *w, const sn_chain *c) {
  if (c->shape_count < 3) return false;
  const sn_chain_segment *first = &w->shapes.data[c->shapes[0]].geom.chain_segment;
  const sn_chain_segment *last = &w->shapes.data[c->shapes[c->shape_count - 1]].geom.chain_segment;
  return sn_same_point(first->ghost1, last->segment.point1) &&
         sn_same_point(last->segment.point2, first->segment.point1) &&
         sn_same_point(last->ghost2, first->segment.point2);
}

sn_result sn_chain_get_def(sn_world *w, sn_chain_id id, sn_chain_def *out) {
  if (w == NULL) return SN_ERR_NULL;
  sn_result code;
  sn_chain *c = sn_get_chain(w, id, &code);
  if (c == NULL) return code;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out is NULL");
  const sn_shape *s = w->shapes.data + c->shapes[0];
  sn_chain_def def = sn_default_chain_def();
  def.is_loop = sn_chain_closes(w, c);
  def.count = def.is_loop ? c->shape_count : c->shape_count + 3;
  def.friction = s->friction;
  def.restitution = s->restitution;
  def.rolling_resistance = s->rolling_resistance;
  def.tangent_speed = s->tangent_speed;
  def.material = s->material;
  def.category_bits = s->category_bits;
  def.mask_bits = s->mask_bits;
  def.group_index = s->group_index;
  def.user_data = c->user_data;
  *out = def;
  return SN_OK;
}

int32_t sn_chain_get_points(sn_world *w, sn_chain_id id, sn_vec2 *points, int32_t capacity) {
  if (w == NULL) return -1;
  sn_result code;
  sn_chain *c = sn_get_chain(w, id, &code);
  if (c == NULL) return -1;
  if (capacity < 0 || (points == NULL && capacity > 0))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "points: a negative capacity, or NULL with capacity %d",
                          (int)capacity),
           -1;
  const bool loop = sn_chain_closes(w, c);
  const int32_t n = loop ? c->shape_count : c->shape_count + 3;
  if (capacity == 0) return n;
  int32_t written = 0;
  /* a loop's point k starts segment k; an open chain's points are the first
   * segment's ghost, every segment's start, then the last one's end and ghost */
  if (!loop && written < capacity) points[written++] = w->shapes.data[c->shapes[0]].geom.chain_segment.ghost1;
  for (int32_t k = 0; k < c->shape_count && written < capacity; ++k)
    points[written++] = w->shapes.data[c->shapes[k]].geom.chain_segment.segment.point1;
  if (!loop) {
    const sn_chain_segment *last = &w->shapes.data[c->shapes[c->shape_count - 1]].geom.chain_segment;
    if (written < capacity) points[written++] = last->segment.point2;
    if (written < capacity) points[written++] = last->ghost2;
  }
  return written;
}
