/* Snapshots: the record codecs, one per record for both directions
 * (sn_io.reading), so writer and reader cannot drift apart. */
#include "world/snapshot_codec.h"

#include "base/math.h"

const uint8_t sn_snapshot_magic[8] = {'S', 'I', 'N', 'E', 'W', 'S', 'N', 'P'};

uint64_t sn_snapshot_fnv1a(uint64_t h, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                   */

#define SN_IO_INT   io_i32
#define SN_IO_FLOAT io_f32
#define SN_IO_BOOL  io_bool
#define SN_IO_VEC2  io_vec2

/* Every setting is checked against the snapshot formats this library knows. */
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  _Static_assert((format) >= SN_SNAPSHOT_OLDEST_FORMAT && (format) <= SN_SNAPSHOT_FORMAT,                              \
                 #name ": its snapshot format is not one this library reads and writes");
SN_WORLD_SETTINGS(SN_X)
#undef SN_X

/* The world's handle tag, its settings in table order (those of io->format
 * and earlier formats), then the counters read between steps. */
void sn_io_world_settings(sn_io *io, sn_world *w) {
  io_u16(io, &w->tag);
#define SN_X(name, type, api, dflt, lo, hi, flags, key, since, doc)                                                    \
  if (io->format >= (since)) SN_IO_##type(io, &w->settings.name);
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  io_f32(io, &w->last_dt);
  io_i32(io, &w->island_count);
  io_i32(io, &w->awake_body_count);
  io_i32(io, &w->particle_contact_count);
}

void sn_io_body(sn_io *io, sn_body *b) {
  int32_t type = (int32_t)b->type;
  io_i32(io, &type);
  if (io->reading) {
    if (type < SN_BODY_STATIC || type > SN_BODY_DYNAMIC) io->bad = true;
    b->type = type == SN_BODY_KINEMATIC ? SN_BODY_KINEMATIC
              : type == SN_BODY_DYNAMIC ? SN_BODY_DYNAMIC
                                        : SN_BODY_STATIC;
  }
  io_bool(io, &b->is_awake);
  io_bool(io, &b->enable_sleep);
  io_bool(io, &b->is_bullet);
  io_bool(io, &b->fixed_rotation);
  io_bool(io, &b->is_fast);
  io_bool(io, &b->frozen);
  if (io->format >= 5) io_bool(io, &b->disabled);
  io_xf(io, &b->xf);
  io_vec2(io, &b->center);
  io_vec2(io, &b->center0);
  io_rot(io, &b->q0);
  io_vec2(io, &b->local_center);
  io_vec2(io, &b->v);
  io_f32(io, &b->w);
  io_vec2(io, &b->force);
  io_f32(io, &b->torque);
  io_f32(io, &b->mass);
  io_f32(io, &b->inv_mass);
  io_f32(io, &b->inertia);
  io_f32(io, &b->inv_inertia);
  io_f32(io, &b->min_extent);
  io_f32(io, &b->max_extent);
  if (io->reading) b->origin_reach = sn_length(b->local_center) + b->max_extent; /* derived, not stored */
  io_f32(io, &b->linear_damping);
  io_f32(io, &b->angular_damping);
  io_f32(io, &b->gravity_scale);
  io_f32(io, &b->sleep_time);
  io_vec2(io, &b->sleep_v);
  io_f32(io, &b->sleep_w);
  /* format 7: the body's sleep threshold (older: the default) */
  if (io->format >= 7)
    io_f32(io, &b->sleep_threshold);
  else if (io->reading)
    b->sleep_threshold = SN_DEFAULT_SLEEP_THRESHOLD;
  /* references: ranges checked here, consistency in sn_check_world */
  io_i32(io, &b->shape_list);
  io_i32(io, &b->shape_count);
  io_i32(io, &b->contact_list);
  io_i32(io, &b->contact_count);
  io_i32(io, &b->sleep_next);
}

static void io_geometry(sn_io *io, sn_geometry *g) {
  int32_t type = (int32_t)g->type;
  io_i32(io, &type);
  if (io->reading) {
    if (type < 0 || type >= SN_SHAPE_TYPE_COUNT) {
      io->bad = true;
      type = SN_SHAPE_CIRCLE;
    }
    memset(g, 0, sizeof(*g));
    g->type = (sn_shape_type)type;
  }
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    io_vec2(io, &g->circle.center);
    io_f32(io, &g->circle.radius);
    break;
  case SN_SHAPE_CAPSULE:
    io_vec2(io, &g->capsule.center1);
    io_vec2(io, &g->capsule.center2);
    io_f32(io, &g->capsule.radius);
    break;
  case SN_SHAPE_SEGMENT:
    io_vec2(io, &g->segment.point1);
    io_vec2(io, &g->segment.point2);
    break;
  case SN_SHAPE_POLYGON: {
    sn_polygon *p = &g->polygon;
    io_i32(io, &p->count);
    if (io->reading && (p->count < 3 || p->count > SN_MAX_POLYGON_VERTICES)) {
      io->bad = true;
      p->count = 0;
    }
    for (int32_t i = 0; i < p->count; ++i) io_vec2(io, p->vertices + i);
    for (int32_t i = 0; i < p->count; ++i) io_vec2(io, p->normals + i);
    io_vec2(io, &p->centroid);
    io_f32(io, &p->radius);
    break;
  }
  case SN_SHAPE_TYPE_COUNT: /* (refused above; read as a chain segment) */
  case SN_SHAPE_CHAIN_SEGMENT:
    io_vec2(io, &g->chain_segment.ghost1);
    io_vec2(io, &g->chain_segment.segment.point1);
    io_vec2(io, &g->chain_segment.segment.point2);
    io_vec2(io, &g->chain_segment.ghost2);
    io_i32(io, &g->chain_segment.chain_id);
    break;
  }
}

void sn_io_shape(sn_io *io, sn_shape *s) {
  io_geometry(io, &s->geom);
  io_i32(io, &s->body);
  io_i32(io, &s->next);
  io_i32(io, &s->proxy);
  io_i32(io, &s->chain);
  io_bool(io, &s->is_static_tree);
  io_bool(io, &s->enlarged);
  io_bool(io, &s->escaped);
  io_bool(io, &s->enable_contact_events);
  io_bool(io, &s->enable_hit_events);
  io_f32(io, &s->density);
  io_f32(io, &s->friction);
  io_f32(io, &s->restitution);
  if (io->format >= 5) {
    io_f32(io, &s->rolling_resistance);
    io_f32(io, &s->tangent_speed);
    io_i32(io, &s->material);
  }
  io_u64(io, &s->category_bits);
  io_u64(io, &s->mask_bits);
  io_aabb(io, &s->aabb);
  io_aabb(io, &s->fat_aabb);
  /* format 6: sensors, groups and the callbacks' opt-ins (older: none of them,
   * seen by sensors) */
  if (io->format >= 6) {
    io_bool(io, &s->is_sensor);
    io_bool(io, &s->enable_sensor_events);
    io_bool(io, &s->enable_custom_filtering);
    io_bool(io, &s->enable_pre_solve_events);
    io_i32(io, &s->group_index);
  } else if (io->reading) {
    s->is_sensor = s->enable_custom_filtering = s->enable_pre_solve_events = false;
    s->enable_sensor_events = true;
    s->group_index = 0;
  }
}

void sn_io_sensor_overlap(sn_io *io, sn_sensor_overlap *o) {
  io_i32(io, &o->sensor);
  io_u32(io, &o->visitor);
  io_u16(io, &o->sensor_generation);
  io_u16(io, &o->visitor_generation);
}

void sn_io_contact(sn_io *io, sn_contact *c) {
  io_i32(io, &c->shape_a);
  io_i32(io, &c->shape_b);
  for (int side = 0; side < 2; ++side) {
    io_i32(io, &c->edges[side].body);
    io_i32(io, &c->edges[side].prev_key);
    io_i32(io, &c->edges[side].next_key);
  }
  sn_manifold *m = &c->manifold;
  io_vec2(io, &m->normal);
  io_i32(io, &m->point_count);
  if (io->reading && (m->point_count < 0 || m->point_count > 2)) {
    io->bad = true;
    m->point_count = 0;
  }
  for (int32_t i = 0; i < m->point_count; ++i) {
    sn_manifold_point *p = m->points + i;
    io_vec2(io, &p->point);
    io_vec2(io, &p->anchor_a);
    io_vec2(io, &p->anchor_b);
    io_f32(io, &p->separation);
    io_f32(io, &p->normal_impulse);
    io_f32(io, &p->tangent_impulse);
    io_f32(io, &p->max_normal_impulse);
    io_f32(io, &p->normal_velocity);
    io_u16(io, &p->id);
    io_bool(io, &p->persisted);
  }
  io_u16(io, &c->cache.count);
  if (io->reading && c->cache.count > 3) io->bad = true;
  for (int i = 0; i < 3; ++i) {
    io_u8(io, c->cache.index_a + i);
    io_u8(io, c->cache.index_b + i);
  }
  io_f32(io, &c->friction);
  io_f32(io, &c->restitution);
  if (io->format >= 5) {
    io_f32(io, &c->tangent_speed);
    io_f32(io, &c->rolling_resistance);
  }
  io_u32(io, &c->flags);
  /* the manifold's reference (contact.c): a continued run reuses it */
  if (c->flags & SN_CONTACT_HAS_REFERENCE) {
    sn_contact_reference *r = &c->reference;
    io_vec2(io, &r->relative.p);
    io_f32(io, &r->relative.q.c);
    io_f32(io, &r->relative.q.s);
    io_vec2(io, &r->normal);
    for (int32_t i = 0; i < c->manifold.point_count; ++i) {
      io_vec2(io, r->local_a + i);
      io_vec2(io, r->local_b + i);
    }
    /* finite, with a unit rotation and (with points) a unit normal: a reused
     * manifold's normal goes to the solver as it is */
    if (io->reading) {
      bool ok = sn_vec2_is_finite(r->relative.p) && isfinite(r->relative.q.c) && isfinite(r->relative.q.s) &&
                sn_vec2_is_finite(r->normal) &&
                (c->manifold.point_count == 0 || sn_absf(sn_dot(r->normal, r->normal) - 1.0f) < 1e-3f) &&
                sn_absf(r->relative.q.c * r->relative.q.c + r->relative.q.s * r->relative.q.s - 1.0f) < 1e-3f;
      for (int32_t i = 0; i < c->manifold.point_count; ++i)
        ok = ok && sn_vec2_is_finite(r->local_a[i]) && sn_vec2_is_finite(r->local_b[i]);
      if (!ok) io->bad = true;
    }
  }
}

void sn_io_particle(sn_io *io, sn_particle *p) {
  io_vec2(io, &p->x);
  io_vec2(io, &p->v);
  io_vec2(io, &p->target);
  io_f32(io, &p->mass);
  io_f32(io, &p->inv_mass);
  io_f32(io, &p->radius);
  io_i32(io, &p->soft);
  io_bool(io, &p->kinematic);
  io_bool(io, &p->has_target);
  io_bool(io, &p->frozen);
}

void sn_io_material(sn_io *io, sn_soft_body_def *m) {
  io_f32(io, &m->friction);
  io_f32(io, &m->restitution);
  io_f32(io, &m->damping);
  io_f32(io, &m->rigid_damping);
  io_bool(io, &m->collide_rigid);
  io_bool(io, &m->collide_soft);
  io_bool(io, &m->self_collision);
  if (io->reading) {
    m->user_data = NULL;
    m->cookie = SN_DEF_COOKIE;
  }
}

/* ------------------------------------------------------------------------ */
/* Sections                                                                  */

sn_section sn_io_begin(sn_io *io, uint32_t tag, const char *what) {
  sn_section s = {0, 0};
  uint32_t t = tag;
  uint64_t length = 0;
  io->what = what;
  io_u32(io, &t);
  io_u64(io, &length);
  s.start = io->pos;
  s.outer_end = io->end;
  if (io->reading) {
    if (t != tag || length > io->end - io->pos) {
      io->bad = true;
      return s;
    }
    io->end = io->pos + (size_t)length;
  }
  return s;
}

void sn_io_end(sn_io *io, sn_section s) {
  if (io->reading) {
    if (!io->bad && io->pos != io->end) io->bad = true; /* unread bytes */
    io->end = s.outer_end;
    return;
  }
  if (io->out != NULL) {
    uint64_t length = (uint64_t)(io->pos - s.start);
    for (int i = 0; i < 8; ++i) io->out[s.start - 8 + (size_t)i] = (uint8_t)(length >> (8 * i));
  }
}

/* ------------------------------------------------------------------------ */
/* Constraint types: name + schema                                           */

void sn_type_record_fill(sn_type_record *r, const sn_constraint_type *t) {
  memset(r, 0, sizeof(*r));
  size_t n = strlen(t->name);
  if (n >= SN_MAX_TYPE_NAME) n = SN_MAX_TYPE_NAME - 1;
  memcpy(r->name, t->name, n);
  r->flags = t->flags;
  r->body_count = t->body_count;
  r->particle_count = t->particle_count;
  r->params_size = t->params_size;
  r->params_align = t->params_align;
  r->instance_size = t->instance_size;
  r->instance_align = t->instance_align;
  r->param_count = t->param_count;
  uint64_t h = SN_SNAPSHOT_FNV_BASIS;
  for (uint32_t i = 0; i < t->param_count; ++i) {
    uint32_t f[3] = {t->params[i].id, t->params[i].kind, t->params[i].offset};
    for (int k = 0; k < 3; ++k) {
      uint8_t b[4] = {(uint8_t)f[k], (uint8_t)(f[k] >> 8), (uint8_t)(f[k] >> 16), (uint8_t)(f[k] >> 24)};
      h = sn_snapshot_fnv1a(h, b, 4);
    }
  }
  r->param_hash = h;
  r->type = t;
}

void sn_io_type_record(sn_io *io, sn_type_record *r) {
  uint32_t n = (uint32_t)strlen(r->name);
  io_u32(io, &n);
  if (io->reading && (n == 0 || n >= SN_MAX_TYPE_NAME)) {
    io->bad = true;
    n = 0;
  }
  io_raw(io, r->name, n);
  if (io->reading) {
    r->name[n] = '\0';
    if (strlen(r->name) != n) io->bad = true; /* an embedded zero */
  }
  io_u32(io, &r->flags);
  io_u32(io, &r->body_count);
  io_u32(io, &r->particle_count);
  io_u32(io, &r->params_size);
  io_u32(io, &r->params_align);
  io_u32(io, &r->instance_size);
  io_u32(io, &r->instance_align);
  io_u32(io, &r->param_count);
  io_u64(io, &r->param_hash);
}

void sn_io_tree_header(sn_io *io, sn_tree *t) {
  io_i32(io, &t->node_capacity);
  io_i32(io, &t->node_count);
  io_i32(io, &t->root);
  io_i32(io, &t->free_list);
  io_i32(io, &t->proxy_count);
}

/* Node i: free nodes only keep their free-list link. */
void sn_io_tree_nodes(sn_io *io, sn_tree *t) {
  for (int32_t i = 0; i < t->node_capacity && !io->bad; ++i) {
    sn_tree_node *n = t->nodes + i;
    io_i16(io, &n->height);
    io_i32(io, &n->parent_or_next);
    if (n->height < 0) {
      if (io->reading) {
        if (n->height != -1) io->bad = true;
        n->child1 = n->child2 = SN_NULL_NODE;
        n->user_data = -1;
      }
      continue;
    }
    io_aabb(io, &n->aabb);
    io_u64(io, &n->category_bits);
    io_i32(io, &n->child1);
    io_i32(io, &n->child2);
    io_i32(io, &n->user_data);
    io_u16(io, &n->flags);
  }
}

void sn_io_tree(sn_io *io, sn_tree *t) {
  sn_io_tree_header(io, t);
  sn_io_tree_nodes(io, t);
}
