/* Snapshots: the checks of a restored world, every index it holds, so that
 * nothing the engine does later can index out of bounds or loop forever. */
#include <math.h>

#include "world/snapshot_codec.h"
#include "world/world_pool.h"

/* Parameters as create would accept them: finite, in range, whole ints. */
static bool sn_params_valid(const sn_constraint_type *t, const void *params, const char **bad_name) {
  for (uint32_t i = 0; i < t->param_count; ++i) {
    const sn_param_desc *p = t->params + i;
    const char *at = (const char *)params + p->offset;
    double x, y = 0.0;
    if (p->kind == SN_PARAM_FLOAT) {
      float f;
      memcpy(&f, at, sizeof f);
      x = f;
    } else if (p->kind == SN_PARAM_VEC2) {
      sn_vec2 v;
      memcpy(&v, at, sizeof v);
      x = v.x;
      y = v.y;
    } else {
      int32_t k;
      memcpy(&k, at, sizeof k);
      x = k;
    }
    bool ok = isfinite(x) && isfinite(y) && x >= p->min && x <= p->max;
    if (p->kind == SN_PARAM_VEC2) ok = ok && y >= p->min && y <= p->max;
    if (!ok) {
      *bad_name = p->name;
      return false;
    }
  }
  return true;
}

/* A leaf of tree is its shape's proxy, in that tree. */
typedef struct sn_leaf_owner {
  const sn_world *w;
  bool is_static;
} sn_leaf_owner;

static bool sn_leaf_owned(int32_t proxy_id, int32_t si, const void *context) {
  const sn_leaf_owner *o = context;
  const sn_world *w = o->w;
  return si >= 0 && si < w->shapes.count && w->shapes.data[si].in_use && w->shapes.data[si].proxy == proxy_id &&
         w->shapes.data[si].is_static_tree == o->is_static;
}

/* Everything the body, shape, contact and tree sections link together. */
static sn_result sn_check_tree(sn_loader *l, const sn_world *w, const sn_tree *t, bool is_static, const char *name) {
  sn_leaf_owner owner = {w, is_static};
  sn_tree_check_report r;
  switch (sn_tree_check(t, false, sn_leaf_owned, &owner, &r)) {
  case SN_TREE_VALID:
    return SN_OK;
  case SN_TREE_BAD_HEADER:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: counts or heads out of range", name);
  case SN_TREE_ROOT_HAS_PARENT:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: the root has a parent", name);
  case SN_TREE_BAD_COUNTS:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: %d nodes and %d leaves reachable, counts say %d and %d", name,
                        (int)r.nodes, (int)r.leaves, (int)t->node_count, (int)t->proxy_count);
  case SN_TREE_BAD_FREE_LIST:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: broken free list", name);
  case SN_TREE_NODES_LOST:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: nodes lost", name);
  case SN_TREE_BAD_LEAF:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: leaf %d does not belong to its shape", name, (int)r.node);
  case SN_TREE_BAD_CHILDREN:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d has broken children", name, (int)r.node);
  case SN_TREE_BAD_HEIGHT:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d has a wrong height", name, (int)r.node);
  case SN_TREE_FREE_NODE_LINKED:
  case SN_TREE_BAD_BOX:
  default:
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d is linked twice or is free", name, (int)r.node);
  }
}
/* A restored slot pool's bookkeeping (base/pool.h, sn_pool_check). */
static sn_result sn_check_pool(sn_loader *l, sn_pool pool, const char *label) {
  char msg[128];
  if (!sn_pool_check(&pool, label, msg, sizeof msg)) return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s", msg);
  return SN_OK;
}

static bool sn_body_ok(const sn_world *w, int32_t i) {
  return i >= 0 && i < w->bodies.count && w->bodies.data[i].in_use;
}
static bool sn_shape_ok(const sn_world *w, int32_t i) {
  return i >= 0 && i < w->shapes.count && w->shapes.data[i].in_use;
}
static bool sn_particle_ok(const sn_world *w, int32_t i) {
  return i >= 0 && i < w->particles.count && w->particles.data[i].in_use;
}

/* Every reference between the restored objects, so that nothing the engine
 * does later can index out of bounds or loop forever. marks: scratch of at
 * least max(bodies, particles) bytes. */
sn_result sn_check_world(sn_loader *l, sn_world *w, uint8_t *marks) {
  const struct {
    sn_pool pool;
    const char *label;
  } pools[] = {{sn_body_pool(w), "bodies"},           {sn_shape_pool(w), "shapes"},
               {sn_chain_pool(w), "chains"},          {sn_contact_pool(w), "contacts"},
               {sn_particle_pool(w), "particles"},    {sn_soft_body_pool(w), "soft bodies"},
               {sn_constraint_pool(w), "constraints"}};
  for (size_t i = 0; i < sizeof pools / sizeof pools[0]; ++i) {
    sn_result r = sn_check_pool(l, pools[i].pool, pools[i].label);
    if (r != SN_OK) return r;
  }

  /* bodies: shape lists and contact edge lists (acyclic: a walk must end at
   * -1 after exactly the count), sleep links in range */
  int64_t shapes_listed = 0, edges_listed = 0;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    if (!b->in_use) continue;
    if (b->shape_count < 0 || b->contact_count < 0)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: negative counts", (int)i);
    if (!(b->sleep_threshold >= 0.0f))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: negative sleep threshold", (int)i);
    /* a rotation that is not one would scale the body's shapes (the steps
     * keep it unit to float precision) */
    float q2 = b->xf.q.c * b->xf.q.c + b->xf.q.s * b->xf.q.s;
    if (!(q2 > 0.999f && q2 < 1.001f))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: its rotation is not a unit (c, s)", (int)i);
    int32_t steps = 0;
    for (int32_t k = b->shape_list; k != SN_NULL_INDEX; k = w->shapes.data[k].next, ++steps) {
      if (!sn_shape_ok(w, k) || w->shapes.data[k].body != i || steps >= b->shape_count)
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: broken shape list", (int)i);
    }
    if (steps != b->shape_count)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: shape list shorter than its count", (int)i);
    shapes_listed += steps;
    steps = 0;
    int32_t prev = SN_NULL_INDEX;
    for (int32_t key = b->contact_list; key != SN_NULL_INDEX; ++steps) {
      int32_t ci = key >> 1, side = key & 1;
      if (key < 0 || ci >= w->contacts.count || !w->contacts.data[ci].in_use ||
          w->contacts.data[ci].edges[side].body != i || w->contacts.data[ci].edges[side].prev_key != prev ||
          steps >= b->contact_count)
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: broken contact list", (int)i);
      prev = key;
      key = w->contacts.data[ci].edges[side].next_key;
    }
    if (steps != b->contact_count)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: contact list shorter than its count", (int)i);
    edges_listed += steps;
    if (b->sleep_next != SN_NULL_INDEX && !sn_body_ok(w, b->sleep_next))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: sleep link out of range", (int)i);
  }
  if (shapes_listed != w->shape_count)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shapes: %d live, %lld on body lists", (int)w->shape_count,
                        (long long)shapes_listed);
  if (edges_listed != 2 * (int64_t)w->contact_count)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "contacts: %d live, %lld edges on body lists",
                        (int)w->contact_count, (long long)edges_listed);

  /* sleeping islands: every sleep link is part of a cycle back to its start
   * (waking walks the cycle) */
  memset(marks, 0, (size_t)w->bodies.count);
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    if (!w->bodies.data[i].in_use || w->bodies.data[i].sleep_next == SN_NULL_INDEX || marks[i]) continue;
    int32_t j = i;
    do {
      if (j == SN_NULL_INDEX || marks[j])
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "body %d: its sleeping island is not a cycle", (int)i);
      marks[j] = 1;
      j = w->bodies.data[j].sleep_next;
    } while (j != i);
  }

  /* shapes: geometry, chain, proxy */
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    const sn_shape *s = w->shapes.data + i;
    if (!s->in_use) continue;
    if (s->chain != SN_NULL_INDEX && (s->chain < 0 || s->chain >= w->chains.count || !w->chains.data[s->chain].in_use))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: chain out of range", (int)i);
    if (s->geom.type == SN_SHAPE_POLYGON && sn_polygon_validate(&s->geom.polygon) != SN_OK)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: invalid polygon", (int)i);
    if ((s->geom.type == SN_SHAPE_CIRCLE && s->geom.circle.radius < 0.0f) ||
        (s->geom.type == SN_SHAPE_CAPSULE && s->geom.capsule.radius < 0.0f) || s->density < 0.0f ||
        s->friction < 0.0f || s->restitution < 0.0f || !(s->rolling_resistance >= 0.0f) ||
        !(fabsf(s->tangent_speed) <= SN_MAX_SPEED))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: negative radius or material", (int)i);
    if (s->geom.type == SN_SHAPE_CHAIN_SEGMENT && s->geom.chain_segment.chain_id != s->chain)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: chain segment of another chain", (int)i);
    if (s->proxy != SN_NULL_NODE) {
      const sn_tree *t = s->is_static_tree ? &w->static_tree : &w->dynamic_tree;
      if (s->proxy < 0 || s->proxy >= t->node_capacity || t->nodes[s->proxy].height != 0 ||
          t->nodes[s->proxy].user_data != i)
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: proxy is not its leaf", (int)i);
    }
  }
  for (int32_t i = 0; i < w->chains.count; ++i) {
    const sn_chain *c = w->chains.data + i;
    if (!c->in_use) continue;
    if (!sn_body_ok(w, c->body) || c->first_shape < SN_NULL_INDEX || c->first_shape >= w->shapes.count)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "chain %d: body or first shape out of range", (int)i);
    for (int32_t k = 0; k < c->shape_count; ++k) {
      if (!sn_shape_ok(w, c->shapes[k]) || w->shapes.data[c->shapes[k]].chain != i)
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "chain %d: segment %d is not its shape", (int)i, (int)k);
    }
  }

  /* contacts: shapes, the bodies of their edges, a supported pair */
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    const sn_contact *c = w->contacts.data + i;
    if (!c->in_use) continue;
    if (!sn_shape_ok(w, c->shape_a) || !sn_shape_ok(w, c->shape_b) || c->shape_a == c->shape_b)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "contact %d: shapes out of range", (int)i);
    const sn_shape *a = w->shapes.data + c->shape_a, *b = w->shapes.data + c->shape_b;
    if (c->edges[0].body != a->body || c->edges[1].body != b->body || a->body == b->body ||
        !sn_collide_supported(a->geom.type, b->geom.type))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "contact %d: bodies or shape types do not match", (int)i);
  }

  /* trees (collision/tree.c checks them; the shapes own their leaves) */
  sn_result r = sn_check_tree(l, w, &w->static_tree, true, "static tree");
  if (r == SN_OK) r = sn_check_tree(l, w, &w->dynamic_tree, false, "dynamic tree");
  if (r != SN_OK) return r;
  for (int32_t i = 0; i < w->move_buffer.count; ++i) {
    if (w->move_buffer.data[i] < 0 || w->move_buffer.data[i] >= w->shapes.count)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "move buffer entry %d out of range", (int)i);
  }

  /* particles and soft bodies: each live particle on its own body's list once */
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (p->in_use && (p->soft < 0 || p->soft >= w->soft_bodies.count || !w->soft_bodies.data[p->soft].in_use))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "particle %d: soft body out of range", (int)i);
  }
  memset(marks, 0, (size_t)w->particles.count);
  int64_t listed = 0;
  for (int32_t i = 0; i < w->soft_bodies.count; ++i) {
    const sn_soft_body *s = w->soft_bodies.data + i;
    if (!s->in_use) continue;
    for (int32_t k = 0; k < s->particle_count; ++k) {
      int32_t pi = s->particles[k];
      if (!sn_particle_ok(w, pi) || w->particles.data[pi].soft != i || marks[pi])
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "soft body %d: particle list broken", (int)i);
      marks[pi] = 1;
    }
    listed += s->particle_count;
    for (int32_t k = 0; k < 2 * s->edge_count; ++k) {
      if (!sn_particle_ok(w, s->edges[k]))
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "soft body %d: edge out of range", (int)i);
    }
  }
  if (listed != w->particle_count)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "particles: %d live, %lld on soft body lists",
                        (int)w->particle_count, (long long)listed);

  /* constraints: bodies, particles, parameters in the schema's ranges */
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    const sn_constraint_type *t = k->type;
    for (uint32_t b = 0; b < SN_MAX_CONSTRAINT_BODIES; ++b) {
      if (b >= t->body_count ? k->bodies[b] != SN_NULL_INDEX : !sn_body_ok(w, k->bodies[b]))
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "constraint %d (%s): body out of range", (int)i, t->name);
    }
    if (t->body_count == 2 && k->bodies[0] == k->bodies[1])
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "constraint %d (%s) joins a body to itself", (int)i, t->name);
    bool count_ok = t->particle_count == SN_ANY_PARTICLES
                        ? k->particle_count >= 1 && k->particle_count <= SN_MAX_CONSTRAINT_PARTICLES
                        : k->particle_count == (int32_t)t->particle_count;
    if (!count_ok)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "constraint %d (%s): wrong particle count", (int)i, t->name);
    for (int32_t p = 0; p < k->particle_count; ++p) {
      if (!sn_particle_ok(w, k->particles[p]))
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "constraint %d (%s): particle out of range", (int)i, t->name);
    }
    if (k->break_force < 0.0f)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "constraint %d (%s): negative break force", (int)i, t->name);
    /* behind a valid checksum, a value outside the registry's range means the
     * registered schema's ranges are not the writer's */
    const char *bad = NULL;
    if (!sn_params_valid(t, k->params, &bad))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_TYPE_MISMATCH,
                          "constraint %d (%s): parameter '%s' is outside the registered type's range (another "
                          "version of its plugin?)",
                          (int)i, t->name, bad);
  }
  /* sensors: no contact has one; their overlaps name slots in range, sorted
   * by sensor then visitor, each once (the next step merges them) */
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    const sn_contact *c = w->contacts.data + i;
    if (c->in_use && (w->shapes.data[c->shape_a].is_sensor || w->shapes.data[c->shape_b].is_sensor))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "contact %d: a sensor shape has a contact", (int)i);
  }
  for (int32_t i = 0; i < w->sensor_overlaps.count; ++i) {
    const sn_sensor_overlap *o = w->sensor_overlaps.data + i;
    const uint32_t v = o->visitor & ~SN_SENSOR_SOFT;
    const int32_t range = (o->visitor & SN_SENSOR_SOFT) ? w->soft_bodies.count : w->shapes.count;
    if (o->sensor < 0 || o->sensor >= w->shapes.count || v >= (uint32_t)range)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "sensor overlap %d: a slot out of range", (int)i);
    const sn_sensor_overlap *p = o - 1;
    if (i > 0 && (p->sensor > o->sensor || (p->sensor == o->sensor && p->visitor >= o->visitor)))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "sensor overlap %d: out of order", (int)i);
  }
  return SN_OK;
}
