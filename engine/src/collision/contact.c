/* Contacts: pair finding from the broadphase move buffer, contact lifetime,
 * narrowphase update with feature-id matching (warm starting), and the
 * begin/end events. */
#include <assert.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "base/order.h"
#include "base/tasks.h"
#include "world/world.h"
#include "world/world_pool.h"

bool sn_filters_pass(const sn_shape *a, const sn_shape *b) {
  if (a->group_index == b->group_index && a->group_index != 0) return a->group_index > 0;
  return (a->category_bits & b->mask_bits) != 0 && (b->category_bits & a->mask_bits) != 0;
}

uint64_t sn_shape_query_mask(const sn_shape *s) { return s->group_index > 0 ? UINT64_MAX : s->mask_bits; }

bool sn_bodies_joined(const sn_world *w, int32_t a, int32_t b) {
  return w->joined.count > 0 && sn_pair_set_find(&w->joined, sn_pair_key(a, b)) > 0;
}

bool sn_should_shapes_collide(sn_world *w, const sn_shape *a, const sn_shape *b) {
  if (a->body == b->body) return false;
  if (a->is_sensor || b->is_sensor) return false;
  if (!sn_filters_pass(a, b)) return false;
  const sn_body *ba = w->bodies.data + a->body, *bb = w->bodies.data + b->body;
  /* at least one dynamic body */
  if (ba->type != SN_BODY_DYNAMIC && bb->type != SN_BODY_DYNAMIC) return false;
  /* bodies joined by a constraint do not collide unless it asks to */
  if (sn_bodies_joined(w, a->body, b->body)) return false;
  sn_shape_type ta = a->geom.type, tb = b->geom.type;
  if (!sn_collide_supported(ta, tb) && !sn_collide_supported(tb, ta)) return false;
  if ((a->enable_custom_filtering || b->enable_custom_filtering) && w->custom_filter != NULL) {
    /* the callback sees the pair in shape index order */
    int32_t ia = (int32_t)(a - w->shapes.data), ib = (int32_t)(b - w->shapes.data);
    if (ia > ib) {
      int32_t t = ia;
      ia = ib;
      ib = t;
    }
    sn_world_lock(w);
    bool keep = w->custom_filter(sn_make_shape_id(w, ia), sn_make_shape_id(w, ib), w->custom_filter_context);
    sn_world_unlock(w);
    return keep;
  }
  return true;
}

void sn_manifold_to_public(const sn_manifold *m, int32_t substeps, sn_contact_manifold *out) {
  memset(out, 0, sizeof(*out));
  const float n = (float)substeps;
  out->normal = m->normal;
  out->point_count = m->point_count;
  for (int32_t i = 0; i < m->point_count; ++i) {
    const sn_manifold_point *p = m->points + i;
    sn_contact_point *q = out->points + i;
    q->point = p->point;
    q->anchor_a = p->anchor_a;
    q->anchor_b = p->anchor_b;
    q->separation = p->separation;
    q->normal_impulse = n * p->normal_impulse;
    q->tangent_impulse = n * p->tangent_impulse;
    q->max_normal_impulse = n * p->max_normal_impulse;
    q->normal_velocity = p->normal_velocity;
    q->id = p->id;
    q->persisted = p->persisted;
  }
}

static void sn_link_edge(sn_world *w, int32_t contact_index, int side) {
  sn_contact *c = w->contacts.data + contact_index;
  sn_body *b = w->bodies.data + c->edges[side].body;
  int32_t key = SN_EDGE_KEY(contact_index, side);
  c->edges[side].prev_key = SN_NULL_INDEX;
  c->edges[side].next_key = b->contact_list;
  if (b->contact_list != SN_NULL_INDEX) {
    sn_contact *head = w->contacts.data + (b->contact_list >> 1);
    head->edges[b->contact_list & 1].prev_key = key;
  }
  b->contact_list = key;
  b->contact_count += 1;
  if (b->type != SN_BODY_STATIC && b->contact_count > SN_COLOR_FREE_CONTACTS) w->contact_excess += 1;
}

static void sn_unlink_edge(sn_world *w, int32_t contact_index, int side) {
  sn_contact *c = w->contacts.data + contact_index;
  sn_body *b = w->bodies.data + c->edges[side].body;
  int32_t prev = c->edges[side].prev_key, next = c->edges[side].next_key;
  if (prev != SN_NULL_INDEX)
    w->contacts.data[prev >> 1].edges[prev & 1].next_key = next;
  else
    b->contact_list = next;
  if (next != SN_NULL_INDEX) w->contacts.data[next >> 1].edges[next & 1].prev_key = prev;
  if (b->type != SN_BODY_STATIC && b->contact_count > SN_COLOR_FREE_CONTACTS) w->contact_excess -= 1;
  b->contact_count -= 1;
}

/* A contact for a new pair whose key holds a placeholder in w->pairs, in
 * room sn_reserve_new_contacts made: nothing here allocates. */
/* The radius a shape rolls on: circles and capsules, rounded polygons. */
static float sn_rolling_radius(const sn_shape *s) {
  switch (s->geom.type) {
  case SN_SHAPE_CIRCLE:
    return s->geom.circle.radius;
  case SN_SHAPE_CAPSULE:
    return s->geom.capsule.radius;
  case SN_SHAPE_POLYGON:
    return s->geom.polygon.radius;
  case SN_SHAPE_SEGMENT:
  case SN_SHAPE_CHAIN_SEGMENT:
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return 0.0f;
}

void sn_contact_mix_materials(const sn_world *w, sn_contact *c) {
  const sn_shape *a = w->shapes.data + c->shape_a, *b = w->shapes.data + c->shape_b;
  float friction = sqrtf(a->friction * b->friction);
  float restitution = sn_maxf(a->restitution, b->restitution);
  /* a callback's value is used when it is in range (friction finite and
   * >= 0, restitution in [0, 1]), else the rule's */
  if (w->friction_fcn != NULL) {
    float f = w->friction_fcn(a->friction, a->material, b->friction, b->material, w->friction_context);
    if (sn_is_finite(f) && f >= 0.0f) friction = f;
  }
  if (w->restitution_fcn != NULL) {
    float e = w->restitution_fcn(a->restitution, a->material, b->restitution, b->material, w->restitution_context);
    if (sn_is_finite(e) && e >= 0.0f && e <= 1.0f) restitution = e;
  }
  c->friction = friction;
  c->restitution = restitution;
  c->tangent_speed = a->tangent_speed + b->tangent_speed;
  c->rolling_resistance =
      sn_maxf(a->rolling_resistance * sn_rolling_radius(a), b->rolling_resistance * sn_rolling_radius(b));
}

static void sn_contact_create(sn_world *w, int32_t shape_a, int32_t shape_b) {
  uint64_t key = sn_pair_key(shape_a, shape_b);
  /* order the pair so the collide table handles (a, b); ties by index */
  sn_shape_type ta = w->shapes.data[shape_a].geom.type, tb = w->shapes.data[shape_b].geom.type;
  if (!sn_collide_supported(ta, tb) || (ta == tb && shape_a > shape_b)) {
    int32_t t = shape_a;
    shape_a = shape_b;
    shape_b = t;
  }
  assert(w->contact_free != SN_NULL_INDEX || w->contacts.count < w->contacts.capacity);
  sn_pool pool = sn_contact_pool(w);
  int32_t index = sn_pool_acquire(&pool);
  bool placed = sn_pair_set_assign(&w->pairs, key, index);
  assert(placed);
  (void)placed;
  sn_contact *c = w->contacts.data + index;
  c->shape_a = shape_a;
  c->shape_b = shape_b;
  const sn_shape *a = w->shapes.data + shape_a, *b = w->shapes.data + shape_b;
  sn_contact_mix_materials(w, c);
  if (a->enable_contact_events || b->enable_contact_events) c->flags |= SN_CONTACT_ENABLE_EVENTS;
  if (a->enable_hit_events || b->enable_hit_events) c->flags |= SN_CONTACT_ENABLE_HIT;
  if (a->enable_pre_solve_events || b->enable_pre_solve_events) c->flags |= SN_CONTACT_ENABLE_PRE_SOLVE;
  if (c->flags & SN_CONTACT_ENABLE_EVENTS) w->event_contacts += 1;
  if (c->flags & SN_CONTACT_ENABLE_HIT) w->hit_contacts += 1;
  c->edges[0].body = a->body;
  c->edges[1].body = b->body;
  sn_link_edge(w, index, 0);
  sn_link_edge(w, index, 1);
}

void sn_contact_destroy(sn_world *w, int32_t contact_index, bool wake) {
  sn_contact *c = w->contacts.data + contact_index;
  if ((c->flags & SN_CONTACT_TOUCHING) && (c->flags & SN_CONTACT_ENABLE_EVENTS)) {
    sn_contact_end_event e = {sn_make_shape_id(w, c->shape_a), sn_make_shape_id(w, c->shape_b)};
    /* between steps the last step's events stay as the caller got them: this
     * one waits for the next step's report */
    if (w->stepping) {
      sn_array_push(&w->mem, w->end_events, e);
    } else {
      sn_array_push(&w->mem, w->pending_end_events, e);
    }
  }
  if (c->flags & SN_CONTACT_ENABLE_EVENTS) w->event_contacts -= 1;
  if ((c->flags & SN_CONTACT_ENABLE_EVENTS) && (c->flags & SN_CONTACT_TOUCHING)) w->touching_event_contacts -= 1;
  if (c->flags & SN_CONTACT_ENABLE_HIT) w->hit_contacts -= 1;
  sn_pair_set_remove(&w->pairs, sn_pair_key(c->shape_a, c->shape_b));
  sn_unlink_edge(w, contact_index, 0);
  sn_unlink_edge(w, contact_index, 1);
  if (wake && (c->flags & SN_CONTACT_TOUCHING)) {
    sn_body_wake(w, c->edges[0].body);
    sn_body_wake(w, c->edges[1].body);
  }
  c->flags = 0;
  sn_pool pool = sn_contact_pool(w);
  sn_pool_release(&pool, contact_index);
}

typedef struct sn_pair_query {
  sn_world *w;
  const sn_tree *tree; ///< the tree being queried
  bool tree_is_static;
  int32_t query_shape;
  bool query_is_static;
  sn_aabb fat_aabb; ///< the query shape's
  bool full;        ///< max_contacts stopped the query: the shape searches again next step
  bool oom;         ///< out of memory: the search stopped
  /// A worker's search (sn_find_new_pairs_parallel): the pairs that may be
  /// new go here, nothing else changes. NULL: the search adds the pairs.
  int32_t *found;
  int32_t found_count, found_capacity;
  bool overflow; ///< found was too short: the search stopped
} sn_pair_query;

/// Value in w->pairs of a pair found for a new contact that is not made yet
/// (sn_find_new_pairs; sn_create_new_pairs gives it its contact's index).
#define SN_PAIR_PENDING (-2)

/* The query function's rule for whom a leaf's shape is not a pair: itself,
 * or (both moved) a lower index, which makes the pair itself, so that it is
 * made once, in a deterministic order. */
static inline bool sn_pair_skips(const sn_pair_query *q, int32_t shape_index) {
  if (shape_index == q->query_shape) return true;
  return shape_index < q->query_shape && !q->query_is_static && !q->tree_is_static &&
         q->w->shapes.data[shape_index].enlarged;
}

/* A pair the search met: looked up (a pair found earlier in this search
 * counts as made), filtered, and added with its placeholder. False stops the
 * shape's search (full or oom set). */
static bool sn_pair_consider(sn_pair_query *q, int32_t shape_index) {
  sn_world *w = q->w;
  if (sn_pair_set_contains(&w->pairs, sn_pair_key(q->query_shape, shape_index))) return true;
  if (!sn_should_shapes_collide(w, w->shapes.data + q->query_shape, w->shapes.data + shape_index)) return true;
  if (w->contact_count + w->new_pairs.count / 2 >= w->max_contacts) {
    q->full = true;
    return false;
  }
  /* the pair, in the order the contacts will be made, and its placeholder */
  if (!sn_array_reserve(&w->mem, w->new_pairs, w->new_pairs.count + 2) ||
      !sn_pair_set_add(&w->pairs, &w->mem, sn_pair_key(q->query_shape, shape_index), SN_PAIR_PENDING)) {
    q->oom = true;
    return false;
  }
  w->new_pairs.data[w->new_pairs.count++] = q->query_shape;
  w->new_pairs.data[w->new_pairs.count++] = shape_index;
  return true;
}

/* Most pairs a moved shape reports have their contact already (a falling
 * crowd: ~97%), so the other shape and both bodies are read only for the
 * rule above and for new pairs: the leaf's box is the other shape's fat AABB
 * (shape.fat_aabb is as stored in the tree) and the pair is looked up before
 * the filter. */
static bool sn_pair_query_shape(int32_t shape_index, void *context) {
  sn_pair_query *q = context;
  /* (the tree tested the leaf's box against the query's, q->fat_aabb) */
  if (sn_pair_skips(q, shape_index)) return true;
  if (q->found == NULL) return sn_pair_consider(q, shape_index);
  /* a worker's search: the set as it was before the search (nothing adds
   * to it until the workers are done), the filter without the callback */
  sn_world *w = q->w;
  if (sn_pair_set_contains(&w->pairs, sn_pair_key(q->query_shape, shape_index))) return true;
  const sn_shape *a = w->shapes.data + q->query_shape, *b = w->shapes.data + shape_index;
  const bool custom = (a->enable_custom_filtering || b->enable_custom_filtering) && w->custom_filter != NULL;
  if (!custom && !sn_should_shapes_collide(w, a, b)) return true;
  if (q->found_count == q->found_capacity) {
    q->overflow = true;
    return false;
  }
  q->found[q->found_count++] = shape_index;
  return true;
}

/* sn_pair_query_shape as a tree query's callback. */
static bool sn_pair_query_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  return sn_pair_query_shape(shape_index, context);
}

/* New pairs: every shape whose proxy moved queries both trees, after the
 * dynamic tree rebuilt the part the moves marked (sn_shape_move_proxy).
 * Past max_contacts no contact is made: a query that meets a pair needing
 * one stops there, and its shape stays in the move buffer (still enlarged)
 * to search again next step, so the pair is found once contacts end and
 * make room. A crowd piled on one point then costs at most max_contacts
 * contacts, and each waiting shape's search stops at its first new pair.
 *
 * The search changes nothing a caller can see: the pairs go to
 * w->new_pairs (in the order the contacts are made), a placeholder for each
 * to w->pairs, and a mark to the move-buffer entries of the shapes the limit
 * stopped. sn_create_new_pairs makes the contacts, sn_forget_new_pairs
 * takes it all back. False when out of memory (then take it back). */
/* Shapes of the move buffer search in groups of neighbours (consecutive
 * entries whose fat boxes touch): each tree is descended once with the
 * group's box, its leaves kept (sn_tree_collect), and each shape then visits
 * the kept leaves its own box overlaps, in the order its own query would
 * (the same pairs in the same order, for a fraction of the descents). */
enum { SN_PAIR_GROUP_SHAPES = 8, SN_PAIR_GROUP_LEAVES = 128 };

#if defined(__GNUC__) || defined(__clang__)
#define SN_PAIR_PREFETCH(p) __builtin_prefetch(p)
#else
#define SN_PAIR_PREFETCH(p) ((void)(p))
#endif

typedef struct sn_pair_group {
  int32_t entries[SN_PAIR_GROUP_SHAPES]; ///< move-buffer indices
  int32_t count;
  sn_aabb box;     ///< union of the fat boxes
  uint64_t mask;   ///< union of the query masks
  bool any_static; ///< a shape that does not search the static tree
  bool any_moving; ///< a shape that does
} sn_pair_group;

/* Shape si of the move buffer searches for pairs (in_use, in a tree, not a sensor)? */
static bool sn_pair_searches(const sn_world *w, int32_t si) {
  const sn_shape *s = w->shapes.data + si;
  return s->in_use && s->proxy != SN_NULL_NODE && !s->is_sensor;
}

/* What the grouping reads of move-buffer entry i's shape (read once). */
typedef struct sn_pair_mover {
  sn_aabb box;   ///< the fat box
  uint64_t mask; ///< the query mask
  bool is_static_tree;
} sn_pair_mover;

/* Entry i joins group g if it has room and their boxes touch (the perimeter
 * of the union at most the two perimeters); false: g unchanged. */
static bool sn_pair_group_add(sn_pair_group *g, const sn_pair_mover *e, int32_t i) {
  if (g->count == SN_PAIR_GROUP_SHAPES) return false;
  if (g->count > 0) {
    sn_aabb joined = sn_aabb_union(g->box, e->box);
    if (sn_aabb_perimeter(joined) > sn_aabb_perimeter(g->box) + sn_aabb_perimeter(e->box)) return false;
    g->box = joined;
  } else {
    g->box = e->box;
  }
  g->mask |= e->mask;
  if (e->is_static_tree)
    g->any_static = true;
  else
    g->any_moving = true;
  g->entries[g->count++] = i;
  return true;
}

/* A shape's search over its group's kept leaves: the leaves its box overlaps
 * (sn_tree_leaves_query's test), then the query function on each in order.
 * Between the two passes the pair set's lines of all the pairs are fetched
 * (and the other shapes' flags the both-moved rule reads): the lookups,
 * scattered over the set, then wait for memory together instead of one
 * after the other. The same calls in the same order as sn_tree_leaves_query. */
static void sn_pair_leaves_search(sn_pair_query *q, const sn_tree_leaf *leaves, int32_t count, uint64_t mask,
                                  int32_t skip_group) {
  int32_t hits[SN_PAIR_GROUP_LEAVES];
  assert(count <= SN_PAIR_GROUP_LEAVES);
  const int32_t n = sn_tree_leaves_hits(leaves, count, q->fat_aabb, mask, skip_group, hits);
  const sn_world *w = q->w;
  for (int32_t k = 0; k < n; ++k) {
    int32_t other = leaves[hits[k]].user_data;
    if (other == q->query_shape) continue;
    sn_pair_set_prefetch(&w->pairs, sn_pair_key(q->query_shape, other));
    if (other < q->query_shape) SN_PAIR_PREFETCH(&w->shapes.data[other].enlarged);
  }
  for (int32_t k = 0; k < n; ++k) {
    const sn_tree_leaf *leaf = leaves + hits[k];
    if (!sn_pair_query_shape(leaf->user_data, q)) return;
  }
}

/* Shape si's search (entry i of the move buffer) over the leaves kept for
 * its group (count -1: too many, the tree itself), with q made by
 * sn_pair_query_make; false when out of memory. */
static bool sn_pair_search(sn_world *w, int32_t i, sn_pair_query *q, const sn_tree_leaf *const *leaves,
                           const int32_t *counts, int32_t *kept) {
  int32_t si = w->move_buffer.data[i];
  const sn_shape *s = w->shapes.data + si;
  const uint64_t mask = sn_shape_query_mask(s);
  /* (a negative group's shapes never pair: a ragdoll's limbs, which overlap) */
  const int32_t skip_group = sn_tree_skip_group(s->group_index);
  if (!s->is_static_tree) {
    if (counts[0] < 0)
      sn_tree_query(&w->static_tree, s->fat_aabb, mask, sn_pair_query_fcn, q);
    else
      sn_pair_leaves_search(q, leaves[0], counts[0], mask, skip_group);
  }
  q->tree = &w->dynamic_tree;
  q->tree_is_static = false;
  if (!q->full && !q->oom && !q->overflow) {
    if (counts[1] < 0)
      sn_tree_query(&w->dynamic_tree, s->fat_aabb, mask, sn_pair_query_fcn, q);
    else
      sn_pair_leaves_search(q, leaves[1], counts[1], mask, skip_group);
  }
  if (q->oom) return false;
  if (q->full) {
    w->move_buffer.data[i] = -1 - si; /* marked: searches again (the flags are read until the search ends) */
    *kept += 1;
  }
  return true;
}

static sn_pair_query sn_pair_query_make(sn_world *w, int32_t si) {
  const sn_shape *s = w->shapes.data + si;
  return (sn_pair_query){w, &w->static_tree, true, si, s->is_static_tree, s->fat_aabb, false, false, NULL, 0, 0, false};
}

/* The searching entries of the move buffer in groups, formed before the
 * search: in move-buffer order where that follows space (groups of
 * SN_PAIR_ORDER_SHAPES or more on average), else in Morton order of the
 * fat boxes' centres when that makes a quarter fewer groups (a crowd's
 * motion scatters the order its shapes moved in). The trees do not change
 * during the search, so whichever group holds it, a shape visits the leaves
 * its own query would, in the same order; the shapes still search in
 * move-buffer order. */
enum { SN_PAIR_ORDER_SHAPES = 4 };

typedef struct sn_pair_plan {
  sn_world *w;
  int32_t group_count;
  bool spatial; ///< the groups follow Morton order
  sn_pair_group *groups;
  int32_t *group_of;      ///< per move-buffer entry: its group, -1 when it does not search
  int32_t *slot_first;    ///< per group: its first shape's place among all grouped shapes
  sn_pair_mover *entries; ///< per move-buffer entry
  /* the serial search: each group's leaves, kept when its first shape
   * searches (a pool of SN_PAIR_PLAN_LEAVES per grouped shape) */
  sn_tree_leaf *pool;
  int32_t pool_capacity, pool_used;
  int32_t (*counts)[2];
  const sn_tree_leaf *(*kept)[2];
  bool *collected;
  /* the parallel search */
  int32_t *found;       ///< SN_PAIR_FOUND_SLOTS per grouped shape, in group order
  int32_t *found_at;    ///< per move-buffer entry: where its pairs start in found
  int32_t *found_count; ///< per move-buffer entry: its pairs
  uint8_t *overflow;    ///< per group
} sn_pair_plan;

enum { SN_PAIR_FOUND_SLOTS = 8, SN_PAIR_BLOCK_GROUPS = 8, SN_PAIR_PLAN_LEAVES = 16 };

/// Move-buffer entries from which the search runs on the workers, counted
/// against the world's parallel_min_items (a moved shape's search is worth
/// several contacts' narrowphase).
#define SN_PAIR_PARALLEL_WEIGHT 8

/* The groups of the n entries order (their low halves) lists; returns the
 * group count, and writes the groups only if write. */
static int32_t sn_pair_plan_groups(sn_pair_plan *p, const uint64_t *order, int32_t n, bool write) {
  sn_pair_group g = {{0}, 0, {{0.0f, 0.0f}, {0.0f, 0.0f}}, 0, false, false};
  int32_t count = 0, slots = 0;
  for (int32_t k = 0; k <= n; ++k) {
    const int32_t i = k < n ? (int32_t)(uint32_t)order[k] : -1;
    if (i >= 0 && sn_pair_group_add(&g, p->entries + i, i)) continue;
    if (g.count > 0) {
      if (write) {
        p->groups[count] = g;
        p->slot_first[count] = slots;
        for (int32_t j = 0; j < g.count; ++j) p->group_of[g.entries[j]] = count;
      }
      slots += g.count;
      count += 1;
    }
    g = (sn_pair_group){{0}, 0, {{0.0f, 0.0f}, {0.0f, 0.0f}}, 0, false, false};
    if (i >= 0) (void)sn_pair_group_add(&g, p->entries + i, i);
  }
  if (write) p->slot_first[count] = slots;
  return count;
}

static size_t sn_pair_search_scratch_bytes(const sn_world *w) {
  const size_t n = (size_t)w->move_buffer.count;
  return n * (sizeof(sn_pair_group) + 2 * sizeof(uint64_t) + 5 * sizeof(int32_t) + sizeof(sn_pair_mover) +
              2 * sizeof(int32_t) + 2 * sizeof(sn_tree_leaf *) + 2 + SN_PAIR_PLAN_LEAVES * sizeof(sn_tree_leaf) +
              SN_PAIR_FOUND_SLOTS * sizeof(int32_t)) +
         2 * sizeof(int32_t) + 16 * 16;
}

/* The plan of the search (sn_pair_plan); false when the arena is short
 * (then every shape queries the trees itself). */
static bool sn_pair_plan_build(sn_world *w, sn_pair_plan *p, bool parallel) {
  const int32_t nm = w->move_buffer.count;
  *p = (sn_pair_plan){0};
  p->w = w;
  uint64_t *keys = sn_arena_alloc(&w->arena, 2 * (size_t)nm * sizeof(uint64_t));
  p->groups = sn_arena_alloc(&w->arena, (size_t)nm * sizeof(sn_pair_group));
  p->group_of = sn_arena_alloc(&w->arena, (size_t)nm * sizeof(int32_t));
  p->slot_first = sn_arena_alloc(&w->arena, ((size_t)nm + 1) * sizeof(int32_t));
  p->entries = sn_arena_alloc(&w->arena, (size_t)nm * sizeof(sn_pair_mover));
  if (keys == NULL || p->groups == NULL || p->group_of == NULL || p->slot_first == NULL || p->entries == NULL)
    return false;
  sn_vec2 lo = {0.0f, 0.0f}, hi = {0.0f, 0.0f};
  int32_t n = 0;
  for (int32_t i = 0; i < nm; ++i) {
    p->group_of[i] = -1;
    const int32_t si = w->move_buffer.data[i];
    if (!sn_pair_searches(w, si)) continue;
    const sn_shape *s = w->shapes.data + si;
    p->entries[i] = (sn_pair_mover){s->fat_aabb, sn_shape_query_mask(s), s->is_static_tree};
    const sn_vec2 c = sn_aabb_center(s->fat_aabb);
    lo = n == 0 ? c : sn_vmin(lo, c);
    hi = n == 0 ? c : sn_vmax(hi, c);
    keys[n++] = (uint32_t)i;
  }
  p->group_count = sn_pair_plan_groups(p, keys, n, true);
  if (p->group_count * SN_PAIR_ORDER_SHAPES > n) {
    const sn_morton_grid grid = sn_morton_grid_over(lo, hi);
    uint64_t *from = keys + nm, *to = keys;
    for (int32_t k = 0; k < n; ++k) {
      const int32_t i = (int32_t)keys[k];
      from[k] = (uint64_t)sn_morton_code(&grid, sn_aabb_center(p->entries[i].box)) << 32 | (uint32_t)i;
    }
    sn_radix_sort_high(from, to, n); /* (ties keep move-buffer order) */
    if (4 * sn_pair_plan_groups(p, from, n, false) < 3 * p->group_count) {
      p->group_count = sn_pair_plan_groups(p, from, n, true);
      p->spatial = true;
    }
  }
  const int32_t slots = p->slot_first[p->group_count];
  if (parallel) {
    p->found = sn_arena_alloc(&w->arena, (size_t)slots * SN_PAIR_FOUND_SLOTS * sizeof(int32_t));
    p->found_at = sn_arena_alloc(&w->arena, (size_t)nm * sizeof(int32_t));
    p->found_count = sn_arena_alloc(&w->arena, (size_t)nm * sizeof(int32_t));
    p->overflow = sn_arena_alloc(&w->arena, (size_t)p->group_count + 1);
    return p->found != NULL && p->found_at != NULL && p->found_count != NULL && p->overflow != NULL;
  }
  p->pool_capacity = slots * SN_PAIR_PLAN_LEAVES;
  p->pool = sn_arena_alloc(&w->arena, (size_t)p->pool_capacity * sizeof(sn_tree_leaf));
  p->counts = sn_arena_alloc(&w->arena, (size_t)p->group_count * sizeof(*p->counts) + 1);
  p->kept = sn_arena_alloc(&w->arena, (size_t)p->group_count * sizeof(*p->kept) + 1);
  p->collected = sn_arena_alloc(&w->arena, (size_t)p->group_count + 1);
  if (p->pool == NULL || p->counts == NULL || p->kept == NULL || p->collected == NULL) return false;
  memset(p->collected, 0, (size_t)p->group_count);
  return true;
}

/* One descent of each tree with group g's box, into room (2 *
 * SN_PAIR_GROUP_LEAVES): the static tree's leaves, the dynamic tree's right
 * after them, at leaves[0] and leaves[1] (counts[t] -1: the shapes query
 * tree t themselves). Returns the leaves kept. A lone shape queries the
 * trees itself (nothing to share). */
static int32_t sn_pair_group_collect(const sn_world *w, const sn_pair_group *g, sn_tree_leaf *room,
                                     const sn_tree_leaf **leaves, int32_t *counts) {
  counts[0] = counts[1] = -1;
  leaves[0] = leaves[1] = room;
  if (g->count < 2) return 0;
  counts[0] = g->any_moving ? sn_tree_collect(&w->static_tree, g->box, g->mask, room, SN_PAIR_GROUP_LEAVES) : 0;
  const int32_t n0 = sn_maxi(counts[0], 0);
  leaves[1] = room + n0;
  counts[1] = sn_tree_collect(&w->dynamic_tree, g->box, g->mask, room + n0, SN_PAIR_GROUP_LEAVES);
  return n0 + sn_maxi(counts[1], 0);
}

/* The serial search: the shapes in move-buffer order, each over its group's
 * leaves (kept in the pool when its group's first shape searches; a group
 * past the pool's end leaves its shapes to query the trees). */
static bool sn_pair_serial_search(sn_world *w, sn_pair_plan *p, bool planned, int32_t *kept) {
  const int32_t none[2] = {-1, -1};
  const sn_tree_leaf *no_leaves[2] = {NULL, NULL};
  for (int32_t i = 0; i < w->move_buffer.count; ++i) {
    const int32_t si = w->move_buffer.data[i];
    if (planned ? p->group_of[i] < 0 : !sn_pair_searches(w, si)) continue;
    const int32_t *counts = none;
    const sn_tree_leaf *const *leaves = no_leaves;
    if (planned) {
      const int32_t g = p->group_of[i];
      if (!p->collected[g]) {
        p->collected[g] = true;
        p->counts[g][0] = p->counts[g][1] = -1;
        if (p->pool_used + 2 * SN_PAIR_GROUP_LEAVES <= p->pool_capacity)
          p->pool_used += sn_pair_group_collect(w, p->groups + g, p->pool + p->pool_used, p->kept[g], p->counts[g]);
      }
      counts = p->counts[g];
      leaves = p->kept[g];
    }
    sn_pair_query q = sn_pair_query_make(w, si);
    if (!sn_pair_search(w, i, &q, leaves, counts, kept)) return false;
  }
  return true;
}

/* The parallel search. The groups are formed first (the plan above); then
 * each worker searches whole groups as the serial search would, except
 * that it changes nothing: a pair the set held before the search, or that
 * the filter refuses, is dropped, and the others (few: new pairs, or ones
 * an earlier shape of this search found) are written to the group's part of
 * a list, SN_PAIR_FOUND_SLOTS per shape of the group. The filter is left to
 * the adding when a shape asks for the custom filter, a user callback
 * called from the stepping thread only. Then, on the stepping thread, the
 * shapes add their pairs in move-buffer order through the serial search's
 * last part (the lookup, which now also sees the pairs of the shapes
 * before, the filter, the limit): the same pairs in the same order as the
 * serial search, for any worker count. A shape of a group whose part was
 * too short searches again there, as the serial search. */
static void sn_pair_plan_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  (void)stage;
  sn_pair_plan *p = context;
  sn_world *w = p->w;
  sn_tree_leaf room[2 * SN_PAIR_GROUP_LEAVES];
  for (int32_t gi = begin; gi < end; ++gi) {
    const sn_pair_group *g = p->groups + gi;
    int32_t counts[2];
    const sn_tree_leaf *kept_leaves[2];
    (void)sn_pair_group_collect(w, g, room, kept_leaves, counts);
    int32_t at = p->slot_first[gi] * SN_PAIR_FOUND_SLOTS;
    const int32_t stop = p->slot_first[gi + 1] * SN_PAIR_FOUND_SLOTS;
    p->overflow[gi] = 0;
    for (int32_t k = 0; k < g->count; ++k) {
      const int32_t e = g->entries[k];
      sn_pair_query q = sn_pair_query_make(w, w->move_buffer.data[e]);
      q.found = p->found + at;
      q.found_capacity = stop - at;
      int32_t unused = 0;
      sn_pair_search(w, e, &q, kept_leaves, counts, &unused);
      if (q.overflow) {
        p->overflow[gi] = 1;
        break;
      }
      p->found_at[e] = at;
      p->found_count[e] = q.found_count;
      at += q.found_count;
    }
  }
}

/* The parallel search (above); -1 when the arena is short (nothing done). */
static int sn_find_new_pairs_parallel(sn_world *w, int32_t *kept) {
  sn_pair_plan p;
  if (!sn_pair_plan_build(w, &p, true)) return -1;
  w->pair_groups = p.group_count;
  w->pair_spatial = p.spatial;
  sn_stage stage;
  sn_stage_runner r;
  sn_stage_runner_init_on(&r, &stage, 1, w->worker_count, sn_pair_plan_stage, &p);
  sn_stage_add(&r, 0, 0, 0, p.group_count, SN_PAIR_BLOCK_GROUPS, 1);
  sn_stage_run(&w->tasks, &r);
  const int32_t none[2] = {-1, -1};
  const sn_tree_leaf *no_leaves[2] = {NULL, NULL};
  for (int32_t e = 0; e < w->move_buffer.count; ++e) {
    const int32_t g = p.group_of[e];
    if (g < 0) continue;
    const int32_t si = w->move_buffer.data[e];
    sn_pair_query q = sn_pair_query_make(w, si);
    if (p.overflow[g]) {
      if (!sn_pair_search(w, e, &q, no_leaves, none, kept)) return 0;
      continue;
    }
    const int32_t *found = p.found + p.found_at[e];
    const int32_t count = p.found_count[e];
    for (int32_t f = 0; f < count && sn_pair_consider(&q, found[f]); ++f) {
    }
    if (q.oom) return 0;
    if (q.full) {
      w->move_buffer.data[e] = -1 - si; /* marked, as sn_pair_search marks */
      *kept += 1;
    }
  }
  return 1;
}

bool sn_find_new_pairs(sn_world *w) {
  assert(w->new_pairs.count == 0);
  int32_t kept = 0;
  const int32_t n = w->move_buffer.count;
  w->pair_groups = 0;
  w->pair_spatial = false;
  /* (the step's first part: the arena may grow here, and is free again after) */
  const bool room = !w->pair_ungrouped && n > 0;
  if (room && !sn_arena_reserve(&w->arena, &w->mem, sn_pair_search_scratch_bytes(w))) return false;
  int parallel = -1;
  if (room && w->worker_count > 1 && (int64_t)n * SN_PAIR_PARALLEL_WEIGHT >= w->parallel_min_items)
    parallel = sn_find_new_pairs_parallel(w, &kept);
  bool ok = parallel != 0;
  if (parallel < 0) {
    sn_arena_reset(&w->arena);
    sn_pair_plan p = {0};
    const bool planned = room && sn_pair_plan_build(w, &p, false);
    if (planned) {
      w->pair_groups = p.group_count;
      w->pair_spatial = p.spatial;
    }
    ok = sn_pair_serial_search(w, &p, planned, &kept);
  }
  sn_arena_reset(&w->arena);
  if (!ok) return false;
  w->step_limit_hits += kept;
  return true;
}

void sn_forget_new_pairs(sn_world *w) {
  /* last added, first removed: the same set, and the same table when it did not grow */
  for (int32_t k = w->new_pairs.count - 2; k >= 0; k -= 2)
    sn_pair_set_remove(&w->pairs, sn_pair_key(w->new_pairs.data[k], w->new_pairs.data[k + 1]));
  w->new_pairs.count = 0;
  for (int32_t i = 0; i < w->move_buffer.count; ++i) {
    if (w->move_buffer.data[i] < 0) w->move_buffer.data[i] = -1 - w->move_buffer.data[i];
  }
}

bool sn_reserve_new_contacts(sn_world *w) {
  sn_pool pool = sn_contact_pool(w);
  return sn_pool_reserve(&pool, w->new_pairs.count / 2);
}

void sn_create_new_pairs(sn_world *w) {
  for (int32_t k = 0; k < w->new_pairs.count; k += 2)
    sn_contact_create(w, w->new_pairs.data[k], w->new_pairs.data[k + 1]);
  w->new_pairs.count = 0;
  /* shapes the limit stopped stay to search again; the others are done */
  int32_t n = 0;
  for (int32_t i = 0; i < w->move_buffer.count; ++i) {
    int32_t si = w->move_buffer.data[i];
    if (si < 0)
      w->move_buffer.data[n++] = -1 - si;
    else
      w->shapes.data[si].enlarged = false;
  }
  w->move_buffer.count = n;
}

static inline bool sn_body_active(const sn_body *b) { return b->type != SN_BODY_STATIC && b->is_awake; }

/* True if the pair is a disc against a disc or a polygon whose tight boxes
 * are farther apart along x or y than the speculative distance, plus a
 * rounding allowance (a slop, and 1e-4 of the coordinates' size: hundreds of
 * float steps). Those collide functions measure the true distance between
 * the shapes (to a vertex, or along a face whose Voronoi region holds the
 * centre), which is at least the gap between the boxes, so they would
 * return no points: the pair is skipped with the same result. The tight
 * boxes are those of the bodies' current transforms (the solver's write
 * back, shape creation and sn_body_set_transform keep them so); debug
 * builds check every skip against the full test. Polygon pairs are not
 * skipped: SAT can report less than the true distance for sharp corners. */
static bool sn_pair_far_apart(const sn_shape *sa, const sn_shape *sb) {
  /* pairs are ordered: the circle is B */
  if (sb->geom.type != SN_SHAPE_CIRCLE) return false;
  if (sa->geom.type != SN_SHAPE_CIRCLE && sa->geom.type != SN_SHAPE_POLYGON) return false;
  const sn_aabb a = sa->aabb, b = sb->aabb;
  float gap = sn_maxf(sn_maxf(b.lower.x - a.upper.x, a.lower.x - b.upper.x),
                      sn_maxf(b.lower.y - a.upper.y, a.lower.y - b.upper.y));
  float size =
      sn_maxf(sn_maxf(sn_absf(a.lower.x), sn_absf(a.upper.x)), sn_maxf(sn_absf(a.lower.y), sn_absf(a.upper.y)));
  return gap > SN_SPECULATIVE_DISTANCE + SN_LINEAR_SLOP + 1.0e-4f * size;
}

/* Manifold reuse (sn_world_def.contact_reuse_distance). After a full
 * narrowphase the manifold is recorded in the bodies' frames (reference).
 * In later steps, while no point of the smaller body has moved farther than
 * the reuse distance in the other's frame since then, the features (the
 * reference and incident edges, the clipped ends) are taken to be the same:
 * each point's surface points are carried by their bodies and the
 * separation is measured between them along the normal carried by A. A resting pile then skips the SAT and
 * the clipping; anything that moves, turns or slides by more than the
 * distance in a step is computed in full. The bound on B's motion: a point at
 * x in B's frame moves by at most |dp| + |x| |dq - 1|, and |dq - 1| (the
 * chord of the turn) is at most |sin| + (1 - cos); the same holds for A's
 * points in B's frame, and the smaller body gives the tighter bound (a box
 * on a long static ground). */
static void sn_record_reference(sn_contact *c, const sn_body *ba, const sn_body *bb) {
  const sn_manifold *m = &c->manifold;
  sn_contact_reference *r = &c->reference;
  r->relative = sn_inv_mul_transforms(ba->xf, bb->xf);
  r->normal = sn_inv_rotate(ba->xf.q, m->normal);
  for (int32_t i = 0; i < m->point_count; ++i) {
    const sn_manifold_point *p = m->points + i;
    sn_vec2 half = sn_scale(0.5f * p->separation, m->normal);
    r->local_a[i] = sn_inv_transform_point(ba->xf, sn_sub(p->point, half));
    r->local_b[i] = sn_inv_transform_point(bb->xf, sn_add(p->point, half));
  }
  c->flags |= SN_CONTACT_HAS_REFERENCE;
}

/* Moves the recorded manifold with the bodies; false (ids and impulses
 * untouched, positions maybe) if the pair moved too far for the features to
 * be trusted or a point left the speculative margin. */
static bool sn_reuse_manifold(const sn_world *w, sn_contact *c, const sn_body *ba, const sn_body *bb) {
  const sn_contact_reference *r = &c->reference;
  const sn_transform rel = sn_inv_mul_transforms(ba->xf, bb->xf);
  const float sin_turn = r->relative.q.c * rel.q.s - r->relative.q.s * rel.q.c;
  const float cos_turn = r->relative.q.c * rel.q.c + r->relative.q.s * rel.q.s;
  /* the motion is measured over the smaller body (the contact lies on it):
   * B's points in A's frame, or A's in B's (a rigid motion's displacement
   * bound over a disc holds for its inverse over the image disc) */
  const float reach_a = ba->origin_reach, reach_b = bb->origin_reach;
  assert(reach_a == sn_length(ba->local_center) + ba->max_extent);
  assert(reach_b == sn_length(bb->local_center) + bb->max_extent);
  float shift;
  if (reach_b <= reach_a) {
    shift = sn_length(sn_sub(rel.p, r->relative.p)); /* B's origin in A's frame */
  } else {
    sn_vec2 now = sn_inv_rotate(bb->xf.q, sn_sub(ba->xf.p, bb->xf.p)); /* A's origin in B's frame */
    sn_vec2 then = sn_neg(sn_inv_rotate(r->relative.q, r->relative.p));
    shift = sn_length(sn_sub(now, then));
  }
  const float moved = shift + sn_minf(reach_a, reach_b) * (sn_absf(sin_turn) + (1.0f - cos_turn));
  if (!(moved <= w->settings.contact_reuse_distance)) return false; /* (and NaN) */
  sn_manifold *m = &c->manifold;
  const sn_vec2 n = sn_rotate(ba->xf.q, r->normal);
  for (int32_t i = 0; i < m->point_count; ++i) {
    sn_manifold_point *p = m->points + i;
    sn_vec2 pa = sn_transform_point(ba->xf, r->local_a[i]);
    sn_vec2 pb = sn_transform_point(bb->xf, r->local_b[i]);
    float separation = sn_dot(sn_sub(pb, pa), n);
    if (!(separation < SN_SPECULATIVE_DISTANCE)) return false;
    p->point = sn_lerp(pa, pb, 0.5f);
    p->anchor_a = sn_sub(p->point, ba->xf.p);
    p->anchor_b = sn_sub(p->point, bb->xf.p);
    p->separation = separation;
    p->persisted = true;
  }
  m->normal = n;
  return true;
}

/* The manifold of a pair a box test found beyond reach: no points (debug
 * builds check that the full narrowphase agrees). */
static void sn_manifold_empty(const sn_shape *sa, const sn_body *ba, const sn_shape *sb, const sn_body *bb,
                              sn_manifold *m) {
#ifndef NDEBUG
  sn_manifold full = sn_collide(&sa->geom, ba->xf, &sb->geom, bb->xf, NULL);
  assert(full.point_count == 0 && "shape AABB out of date with its body's transform");
#else
  (void)sa, (void)ba, (void)sb, (void)bb;
#endif
  m->point_count = 0;
  m->normal = (sn_vec2){0.0f, 0.0f};
}

/* Narrowphase for one contact; returns true if it touches. The manifold is
 * reused (*reused set) or rebuilt in place, last step's ids and impulses kept
 * aside first, and recorded for reuse. */
static bool sn_update_manifold(sn_world *w, sn_contact *c, bool *reused) {
  const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
  const sn_body *ba = w->bodies.data + c->edges[0].body, *bb = w->bodies.data + c->edges[1].body;
  sn_manifold *m = &c->manifold;
  if (sn_pair_far_apart(sa, sb)) {
    sn_manifold_empty(sa, ba, sb, bb, m);
    c->flags &= ~(uint32_t)SN_CONTACT_HAS_REFERENCE;
    return false;
  }
  if ((c->flags & SN_CONTACT_HAS_REFERENCE) && w->settings.contact_reuse_distance > 0.0f &&
      sn_reuse_manifold(w, c, ba, bb)) {
    *reused = true;
    return m->point_count > 0;
  }
  /* round pairs beyond the speculative distance: after reuse (which may keep
   * the empty manifold), and recorded for reuse as below, so the skip changes
   * nothing the full narrowphase would have done */
  if (sn_round_pair_far_apart(&sa->geom, sa->aabb, &sb->geom, sb->aabb)) {
    sn_manifold_empty(sa, ba, sb, bb, m); /* what the full narrowphase leaves of a pair without points */
    sn_record_reference(c, ba, bb);
    return false;
  }
  /* last step's points: ids and impulses (at most two) */
  const int32_t old_count = m->point_count;
  const uint16_t id0 = old_count > 0 ? m->points[0].id : 0, id1 = old_count > 1 ? m->points[1].id : 0;
  const float normal0 = old_count > 0 ? m->points[0].normal_impulse : 0.0f;
  const float tangent0 = old_count > 0 ? m->points[0].tangent_impulse : 0.0f;
  const float normal1 = old_count > 1 ? m->points[1].normal_impulse : 0.0f;
  const float tangent1 = old_count > 1 ? m->points[1].tangent_impulse : 0.0f;
  sn_collide_into(&sa->geom, &ba->xf, &sb->geom, &bb->xf, &c->cache, w->use_avx2, m);
  /* warm starting: carry impulses over by feature id (the first match) */
  for (int32_t i = 0; i < m->point_count; ++i) {
    sn_manifold_point *p = m->points + i;
    if (old_count > 0 && p->id == id0) {
      p->normal_impulse = normal0;
      p->tangent_impulse = tangent0;
      p->persisted = true;
    } else if (old_count > 1 && p->id == id1) {
      p->normal_impulse = normal1;
      p->tangent_impulse = tangent1;
      p->persisted = true;
    } else {
      p->normal_impulse = 0.0f;
      p->tangent_impulse = 0.0f;
      p->persisted = false;
    }
  }
  sn_record_reference(c, ba, bb);
  return m->point_count > 0;
}

/* Narrowphase result of a contact (contact_status). */
enum {
  SN_NARROW_SKIPPED = 0, /* free slot, or both bodies asleep or static when the pass began */
  SN_NARROW_SEPARATED,   /* fat boxes apart: destroy */
  SN_NARROW_STAYS,       /* touching as before, or apart as before: nothing to report */
  SN_NARROW_BEGINS,      /* touches now, did not before */
  SN_NARROW_ENDS,        /* touched before, does not now */
  SN_NARROW_REUSED       /* as STAYS, the manifold moved with its bodies (contact_reuse_distance) */
};

static uint8_t sn_narrow_one(sn_world *w, int32_t ci) {
  sn_contact *c = w->contacts.data + ci;
  if (!c->in_use) return SN_NARROW_SKIPPED;
  /* (the bodies from the contact's edges: a sleeping pair costs no shape) */
  const sn_body *ba = w->bodies.data + c->edges[0].body, *bb = w->bodies.data + c->edges[1].body;
  if (!sn_body_active(ba) && !sn_body_active(bb)) return SN_NARROW_SKIPPED; /* asleep or static: frozen */
  const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
  if (!sn_aabb_overlaps(sa->fat_aabb, sb->fat_aabb)) return SN_NARROW_SEPARATED;
  bool was_touching = (c->flags & SN_CONTACT_TOUCHING) != 0;
  bool reused = false;
  bool touching = sn_update_manifold(w, c, &reused);
  if (c->flags & SN_CONTACT_ENABLE_PRE_SOLVE) {
    /* the pre-solve callback (on this worker: it reads this contact only) */
    bool enabled = true;
    if (touching && w->pre_solve != NULL) {
      sn_contact_manifold m;
      sn_manifold_to_public(&c->manifold, w->settings.substeps, &m);
      enabled =
          w->pre_solve(sn_make_shape_id(w, c->shape_a), sn_make_shape_id(w, c->shape_b), &m, w->pre_solve_context);
    }
    if (enabled)
      c->flags &= ~(uint32_t)SN_CONTACT_DISABLED;
    else
      c->flags |= SN_CONTACT_DISABLED;
  }
  if (touching == was_touching) return reused ? SN_NARROW_REUSED : SN_NARROW_STAYS;
  return touching ? SN_NARROW_BEGINS : SN_NARROW_ENDS;
}

#if defined(__GNUC__) || defined(__clang__)
#define SN_NARROW_PREFETCH(p) __builtin_prefetch(p)
#else
#define SN_NARROW_PREFETCH(p) ((void)(p))
#endif
/// How far ahead of the contact being computed the narrowphase fetches a
/// contact (every line: the array is read in order, but the prefetcher does
/// not keep up with the other reads) and then its shapes' kinds and fat
/// boxes and its bodies' poses and extents (read from that contact): cache
/// misses the computation would otherwise wait for.
#define SN_NARROW_CONTACT_AHEAD 16
#define SN_NARROW_SHAPES_AHEAD  8

static void sn_narrow_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  (void)stage;
  sn_world *w = context;
  const sn_contact *contacts = w->contacts.data;
  const sn_shape *shapes = w->shapes.data;
  for (int32_t ci = begin; ci < end; ++ci) {
    if (ci + SN_NARROW_CONTACT_AHEAD < end) {
      const char *p = (const char *)(contacts + ci + SN_NARROW_CONTACT_AHEAD);
      for (size_t at = 0; at < sizeof(sn_contact); at += 64) SN_NARROW_PREFETCH(p + at);
      SN_NARROW_PREFETCH(p + sizeof(sn_contact) - 1);
    }
    if (ci + SN_NARROW_SHAPES_AHEAD < end) {
      const sn_contact *c = contacts + ci + SN_NARROW_SHAPES_AHEAD;
      SN_NARROW_PREFETCH(&shapes[c->shape_a].geom.type);
      SN_NARROW_PREFETCH(&shapes[c->shape_b].geom.type);
      SN_NARROW_PREFETCH(&shapes[c->shape_a].fat_aabb);
      SN_NARROW_PREFETCH(&shapes[c->shape_b].fat_aabb);
      for (int e = 0; e < 2; ++e) {
        const sn_body *b = w->bodies.data + c->edges[e].body;
        SN_NARROW_PREFETCH(&b->xf);
        SN_NARROW_PREFETCH(&b->max_extent);
      }
    }
    w->contact_status.data[ci] = sn_narrow_one(w, ci);
  }
}

size_t sn_narrowphase_scratch_bytes(void) { return sn_stage_runner_bytes(1); }

/* Manifolds are computed in parallel (each contact reads shapes and bodies
 * and writes only itself); destruction, wake-ups and events follow in one
 * pass in contact order, which visits only contacts with something to do. A
 * contact skipped because both bodies slept, whose body an earlier contact of
 * that pass woke, is computed there, as a serial loop would have: the results
 * do not depend on the worker count. */
void sn_update_contacts(sn_world *w) {
  int32_t count = w->contacts.count;
  /* (reserved by sn_solve_reserve: these allocate nothing) */
  bool parallel = sn_array_reserve(&w->mem, w->contact_status, count) &&
                  sn_arena_reserve(&w->arena, &w->mem, sn_narrowphase_scratch_bytes());
  assert(parallel);
  sn_stage_runner runner;
  int32_t workers = count >= w->parallel_min_items ? w->worker_count : 1;
  if (parallel) parallel = sn_stage_runner_init(&runner, &w->arena, 1, workers, sn_narrow_stage, w);
  if (parallel) {
    sn_stage_add(&runner, 0, 0, 0, count, 32, 1);
    sn_stage_run(&w->tasks, &runner);
    sn_arena_reset(&w->arena);
  }
  bool woke = !parallel; /* without the parallel pass every contact is computed here */
  int32_t reused = 0;
  for (int32_t ci = 0; ci < count; ++ci) {
    uint8_t status = parallel ? w->contact_status.data[ci] : SN_NARROW_SKIPPED;
    if (status == SN_NARROW_STAYS) continue;
    if (status == SN_NARROW_REUSED) {
      reused++;
      continue;
    }
    if (status == SN_NARROW_SKIPPED) {
      if (!woke) continue; /* nothing woke yet: still asleep */
      status = sn_narrow_one(w, ci);
      if (status == SN_NARROW_REUSED) reused++;
      if (status == SN_NARROW_SKIPPED || status == SN_NARROW_STAYS || status == SN_NARROW_REUSED) continue;
    }
    sn_contact *c = w->contacts.data + ci;
    if (status == SN_NARROW_SEPARATED) {
      sn_contact_destroy(w, ci, false);
      continue;
    }
    const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
    const sn_body *ba = w->bodies.data + sa->body, *bb = w->bodies.data + sb->body;
    if (status == SN_NARROW_BEGINS) {
      c->flags |= SN_CONTACT_TOUCHING;
      if (c->flags & SN_CONTACT_ENABLE_EVENTS) w->touching_event_contacts += 1;
      /* an awake body touching a sleeping one wakes its island */
      if (!sn_body_active(ba) && ba->type != SN_BODY_STATIC) {
        sn_body_wake(w, sa->body);
        woke = true;
      }
      if (!sn_body_active(bb) && bb->type != SN_BODY_STATIC) {
        sn_body_wake(w, sb->body);
        woke = true;
      }
      if (c->flags & SN_CONTACT_ENABLE_EVENTS) {
        sn_contact_begin_event e;
        e.shape_a = sn_make_shape_id(w, c->shape_a);
        e.shape_b = sn_make_shape_id(w, c->shape_b);
        sn_manifold_to_public(&c->manifold, w->settings.substeps, &e.manifold);
        sn_array_push(&w->mem, w->begin_events, e);
      }
    } else { /* SN_NARROW_ENDS */
      c->flags &= ~(uint32_t)SN_CONTACT_TOUCHING;
      if (c->flags & SN_CONTACT_ENABLE_EVENTS) w->touching_event_contacts -= 1;
      if (c->flags & SN_CONTACT_ENABLE_EVENTS) {
        sn_contact_end_event e = {sn_make_shape_id(w, c->shape_a), sn_make_shape_id(w, c->shape_b)};
        sn_array_push(&w->mem, w->end_events, e);
      }
    }
  }
  w->reused_manifold_count = reused;
}
