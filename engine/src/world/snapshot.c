/* Snapshots: a world's whole state as bytes, and back into a new world that
 * steps bit for bit like the original.
 *
 * Format (all integers little-endian, floats as their IEEE-754 bits):
 *   header   magic "SINEWSNP", format version, header size, total size,
 *            engine version, plugin ABI, float/pointer fingerprint, byte order
 *   sections tag (4 ASCII bytes) + u64 length + payload, in a fixed order:
 *            WRLD settings and counters, BODY, SHAP, CHAN, CONT slots (free
 *            slots keep their generation and free-list link), TRES / TRED the
 *            static and dynamic broadphase trees node for node, MOVE the move
 *            buffer, PART, SOFT, CTYP the constraint types used (name +
 *            schema), CONS constraints (params and instance bytes as is)
 *   trailer  FNV-1a 64 of every byte before it
 *
 * One codec per record serves both directions (sn_io.reading), so writer and
 * reader cannot drift apart. Loading checks size and checksum before it reads
 * anything, then builds a new world and checks every index it holds (lists,
 * cycles, tree structure, references between objects) before handing it out;
 * on any error the new world is destroyed. Pair sets (contacts by shape pair,
 * joined bodies) are only looked up, never iterated, so they are rebuilt.
 * Per-step scratch, events and user data pointers are not saved. */
#include "world/snapshot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

#define SN_SNAPSHOT_HEADER_SIZE 40u
static const uint8_t sn_snapshot_magic[8] = {'S', 'I', 'N', 'E', 'W', 'S', 'N', 'P'};

#define SN_TAG(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

uint64_t sn_snapshot_fnv1a(uint64_t h, const void *bytes, size_t n) {
  const uint8_t *p = bytes;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ------------------------------------------------------------------------ */
/* Codec                                                                     */

typedef struct sn_io {
  bool reading;
  uint8_t *out;      ///< writing: NULL = only measure
  const uint8_t *in; ///< reading
  size_t pos;
  size_t end;       ///< reading: end of the current section
  bool bad;         ///< reading: past the end, or a value outside its domain
  bool nonfinite;   ///< reading: a float was NaN or infinite
  const char *what; ///< reading: the section being read, for messages
  uint32_t format;  ///< of the bytes: the world section holds the settings of this format and earlier ones
} sn_io;

static void io_raw(sn_io *io, void *p, size_t n) {
  if (io->reading) {
    if (io->bad || n > io->end - io->pos) {
      io->bad = true;
      memset(p, 0, n);
      return;
    }
    memcpy(p, io->in + io->pos, n);
  } else if (io->out != NULL && n > 0) {
    memcpy(io->out + io->pos, p, n);
  }
  io->pos += n;
}

static void io_u8(sn_io *io, uint8_t *v) { io_raw(io, v, 1); }

static void io_u16(sn_io *io, uint16_t *v) {
  uint8_t b[2] = {(uint8_t)*v, (uint8_t)(*v >> 8)};
  io_raw(io, b, 2);
  if (io->reading) *v = (uint16_t)(b[0] | (b[1] << 8));
}

static void io_u32(sn_io *io, uint32_t *v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = (uint8_t)(*v >> (8 * i));
  io_raw(io, b, 4);
  if (io->reading) {
    uint32_t x = 0;
    for (int i = 0; i < 4; ++i) x |= (uint32_t)b[i] << (8 * i);
    *v = x;
  }
}

static void io_u64(sn_io *io, uint64_t *v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(*v >> (8 * i));
  io_raw(io, b, 8);
  if (io->reading) {
    uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x |= (uint64_t)b[i] << (8 * i);
    *v = x;
  }
}

static void io_i32(sn_io *io, int32_t *v) {
  uint32_t u = (uint32_t)*v;
  io_u32(io, &u);
  if (io->reading) *v = u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

static void io_i16(sn_io *io, int16_t *v) {
  uint16_t u = (uint16_t)*v;
  io_u16(io, &u);
  if (io->reading) *v = u <= (uint16_t)INT16_MAX ? (int16_t)u : (int16_t)((int32_t)u - 65536);
}

static void io_f32(sn_io *io, float *v) {
  uint32_t u;
  memcpy(&u, v, sizeof u);
  io_u32(io, &u);
  if (io->reading) {
    memcpy(v, &u, sizeof u);
    if (!isfinite(*v)) io->nonfinite = true;
  }
}

static void io_bool(sn_io *io, bool *v) {
  uint8_t b = *v ? 1 : 0;
  io_u8(io, &b);
  if (io->reading) {
    if (b > 1) io->bad = true;
    *v = b == 1;
  }
}

static void io_vec2(sn_io *io, sn_vec2 *v) {
  io_f32(io, &v->x);
  io_f32(io, &v->y);
}

static void io_rot(sn_io *io, sn_rot *q) {
  io_f32(io, &q->c);
  io_f32(io, &q->s);
}

static void io_xf(sn_io *io, sn_transform *xf) {
  io_vec2(io, &xf->p);
  io_rot(io, &xf->q);
}

static void io_aabb(sn_io *io, sn_aabb *a) {
  io_vec2(io, &a->lower);
  io_vec2(io, &a->upper);
}

/// A count of records that take at least min_bytes each: refused (bad) if
/// negative or if the rest of the section cannot hold them, so a damaged
/// count never makes the reader allocate more than the input's size.
static void io_count(sn_io *io, int32_t *n, size_t min_bytes) {
  io_i32(io, n);
  if (!io->reading) return;
  if (*n < 0 || (min_bytes > 0 && (size_t)*n > (io->end - io->pos) / min_bytes)) {
    io->bad = true;
    *n = 0;
  }
}

/// An index in [-1, limit).
static void io_index(sn_io *io, int32_t *v, int32_t limit) {
  io_i32(io, v);
  if (io->reading && (*v < SN_NULL_INDEX || *v >= limit)) io->bad = true;
}

/// Slot header shared by every slot array: in use, generation, free link.
static void io_slot(sn_io *io, bool *in_use, uint16_t *generation, int32_t *next_free, int32_t count) {
  io_bool(io, in_use);
  io_u16(io, generation);
  io_index(io, next_free, count);
}
#define SN_SLOT_BYTES 7u

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
static void io_world_settings(sn_io *io, sn_world *w) {
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

static void io_body(sn_io *io, sn_body *b) {
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
  io_f32(io, &b->linear_damping);
  io_f32(io, &b->angular_damping);
  io_f32(io, &b->gravity_scale);
  io_f32(io, &b->sleep_time);
  io_vec2(io, &b->sleep_v);
  io_f32(io, &b->sleep_w);
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
  case SN_SHAPE_CHAIN_SEGMENT:
  default:
    io_vec2(io, &g->chain_segment.ghost1);
    io_vec2(io, &g->chain_segment.segment.point1);
    io_vec2(io, &g->chain_segment.segment.point2);
    io_vec2(io, &g->chain_segment.ghost2);
    io_i32(io, &g->chain_segment.chain_id);
    break;
  }
}

static void io_shape(sn_io *io, sn_shape *s) {
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
  io_u64(io, &s->category_bits);
  io_u64(io, &s->mask_bits);
  io_aabb(io, &s->aabb);
  io_aabb(io, &s->fat_aabb);
}

static void io_contact(sn_io *io, sn_contact *c) {
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

static void io_particle(sn_io *io, sn_particle *p) {
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

static void io_material(sn_io *io, sn_soft_body_def *m) {
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

typedef struct sn_section {
  size_t start;     ///< offset of the payload
  size_t outer_end; ///< reading: the enclosing bound
} sn_section;

static sn_section io_begin(sn_io *io, uint32_t tag, const char *what) {
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

static void io_end(sn_io *io, sn_section s) {
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

typedef struct sn_type_record {
  char name[SN_MAX_TYPE_NAME];
  uint32_t flags, body_count, particle_count;
  uint32_t params_size, params_align, instance_size, instance_align, param_count;
  uint64_t param_hash; ///< FNV-1a over every parameter's id, kind and offset
  const sn_constraint_type *type;
} sn_type_record;

static void sn_type_record_fill(sn_type_record *r, const sn_constraint_type *t) {
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

static void io_type_record(sn_io *io, sn_type_record *r) {
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

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/* The types of the live constraints, in order of first use. */
typedef struct sn_type_table {
  sn_type_record *records;
  int32_t count, capacity;
} sn_type_table;

static int32_t sn_type_table_find(const sn_type_table *t, const sn_constraint_type *type) {
  for (int32_t i = 0; i < t->count; ++i) {
    if (t->records[i].type == type) return i;
  }
  return SN_NULL_INDEX;
}

static void io_tree(sn_io *io, sn_tree *t);

/* Writes (or measures) the whole snapshot. */
static void sn_write_all(sn_io *io, sn_world *w, const sn_type_table *types) {
  /* header */
  uint8_t magic[8];
  memcpy(magic, sn_snapshot_magic, 8);
  io_raw(io, magic, 8);
  uint32_t format = SN_SNAPSHOT_FORMAT, header_size = SN_SNAPSHOT_HEADER_SIZE;
  io->format = format;
  io_u32(io, &format);
  io_u32(io, &header_size);
  size_t total_at = io->pos;
  uint64_t total = 0;
  io_u64(io, &total);
  uint8_t info[8] = {SN_VERSION_MAJOR,    SN_VERSION_MINOR,       SN_VERSION_PATCH,        SN_PLUGIN_ABI_MAJOR,
                     SN_PLUGIN_ABI_MINOR, (uint8_t)sizeof(float), (uint8_t)sizeof(void *), 0};
  uint16_t probe = 1;
  uint8_t first;
  memcpy(&first, &probe, 1);
  info[7] = first == 1 ? 1 : 2; /* byte order of the raw plugin blobs */
  io_raw(io, info, 8);
  uint32_t reserved[2] = {0, 0};
  io_u32(io, reserved);
  io_u32(io, reserved + 1);

  sn_section s = io_begin(io, SN_TAG('W', 'R', 'L', 'D'), "world");
  io_world_settings(io, w);
  io_end(io, s);

  s = io_begin(io, SN_TAG('B', 'O', 'D', 'Y'), "bodies");
  io_i32(io, &w->bodies.count);
  io_i32(io, &w->body_free);
  io_i32(io, &w->body_count);
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    sn_body *b = w->bodies.data + i;
    io_slot(io, &b->in_use, &b->generation, &b->next_free, w->bodies.count);
    if (b->in_use) io_body(io, b);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('S', 'H', 'A', 'P'), "shapes");
  io_i32(io, &w->shapes.count);
  io_i32(io, &w->shape_free);
  io_i32(io, &w->shape_count);
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    sn_shape *sh = w->shapes.data + i;
    io_slot(io, &sh->in_use, &sh->generation, &sh->next_free, w->shapes.count);
    if (sh->in_use) io_shape(io, sh);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('C', 'H', 'A', 'N'), "chains");
  io_i32(io, &w->chains.count);
  io_i32(io, &w->chain_free);
  for (int32_t i = 0; i < w->chains.count; ++i) {
    sn_chain *c = w->chains.data + i;
    io_slot(io, &c->in_use, &c->generation, &c->next_free, w->chains.count);
    if (!c->in_use) continue;
    io_i32(io, &c->body);
    io_i32(io, &c->first_shape);
    io_i32(io, &c->shape_count);
    for (int32_t k = 0; k < c->shape_count; ++k) io_i32(io, c->shapes + k);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('C', 'O', 'N', 'T'), "contacts");
  io_i32(io, &w->contacts.count);
  io_i32(io, &w->contact_free);
  io_i32(io, &w->contact_count);
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    sn_contact *c = w->contacts.data + i;
    uint16_t no_generation = 0;
    io_slot(io, &c->in_use, &no_generation, &c->next_free, w->contacts.count);
    if (c->in_use) io_contact(io, c);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('T', 'R', 'E', 'S'), "static tree");
  io_tree(io, &w->static_tree);
  io_end(io, s);
  s = io_begin(io, SN_TAG('T', 'R', 'E', 'D'), "dynamic tree");
  io_tree(io, &w->dynamic_tree);
  io_end(io, s);

  s = io_begin(io, SN_TAG('M', 'O', 'V', 'E'), "move buffer");
  io_i32(io, &w->move_buffer.count);
  for (int32_t i = 0; i < w->move_buffer.count; ++i) io_i32(io, w->move_buffer.data + i);
  io_end(io, s);

  s = io_begin(io, SN_TAG('P', 'A', 'R', 'T'), "particles");
  io_i32(io, &w->particles.count);
  io_i32(io, &w->particle_free);
  io_i32(io, &w->particle_count);
  for (int32_t i = 0; i < w->particles.count; ++i) {
    sn_particle *p = w->particles.data + i;
    io_slot(io, &p->in_use, &p->generation, &p->next_free, w->particles.count);
    if (p->in_use) io_particle(io, p);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('S', 'O', 'F', 'T'), "soft bodies");
  io_i32(io, &w->soft_bodies.count);
  io_i32(io, &w->soft_free);
  io_i32(io, &w->soft_count);
  for (int32_t i = 0; i < w->soft_bodies.count; ++i) {
    sn_soft_body *sb = w->soft_bodies.data + i;
    io_slot(io, &sb->in_use, &sb->generation, &sb->next_free, w->soft_bodies.count);
    if (!sb->in_use) continue;
    io_material(io, &sb->material);
    io_i32(io, &sb->particle_count);
    for (int32_t k = 0; k < sb->particle_count; ++k) io_i32(io, sb->particles + k);
    io_i32(io, &sb->edge_count);
    for (int32_t k = 0; k < 2 * sb->edge_count; ++k) io_i32(io, sb->edges + k);
  }
  io_end(io, s);

  s = io_begin(io, SN_TAG('C', 'T', 'Y', 'P'), "constraint types");
  int32_t type_count = types->count;
  io_i32(io, &type_count);
  for (int32_t i = 0; i < types->count; ++i) io_type_record(io, types->records + i);
  io_end(io, s);

  s = io_begin(io, SN_TAG('C', 'O', 'N', 'S'), "constraints");
  io_i32(io, &w->constraints.count);
  io_i32(io, &w->constraint_free);
  io_i32(io, &w->constraint_count);
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    sn_constraint *k = w->constraints.data + i;
    io_slot(io, &k->in_use, &k->generation, &k->next_free, w->constraints.count);
    if (!k->in_use) continue;
    int32_t type_index = sn_type_table_find(types, k->type);
    io_i32(io, &type_index);
    for (int b = 0; b < SN_MAX_CONSTRAINT_BODIES; ++b) io_i32(io, k->bodies + b);
    io_i32(io, &k->particle_count);
    for (int32_t p = 0; p < k->particle_count; ++p) io_i32(io, k->particles + p);
    io_f32(io, &k->break_force);
    io_bool(io, &k->collide_connected);
    io_raw(io, k->params, k->type->params_size);
    io_raw(io, k->instance, k->type->instance_size);
  }
  io_end(io, s);

  /* total size in the header, then the checksum of everything so far */
  uint64_t size = (uint64_t)io->pos + SN_SNAPSHOT_TRAILER_BYTES;
  if (io->out != NULL) {
    for (int i = 0; i < 8; ++i) io->out[total_at + (size_t)i] = (uint8_t)(size >> (8 * i));
  }
  uint64_t sum = io->out != NULL ? sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, io->out, io->pos) : 0;
  io_u64(io, &sum);
}

static void io_tree_header(sn_io *io, sn_tree *t) {
  io_i32(io, &t->node_capacity);
  io_i32(io, &t->node_count);
  io_i32(io, &t->root);
  io_i32(io, &t->free_list);
  io_i32(io, &t->proxy_count);
}

/* Node i: free nodes only keep their free-list link. */
static void io_tree_nodes(sn_io *io, sn_tree *t) {
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
#define SN_TREE_NODE_MIN_BYTES 6u

static void io_tree(sn_io *io, sn_tree *t) {
  io_tree_header(io, t);
  io_tree_nodes(io, t);
}

/* The type table of w's live constraints; false (error recorded) if a type
 * cannot be snapshotted or memory runs out. */
static sn_result sn_build_type_table(sn_world *w, sn_type_table *t) {
  memset(t, 0, sizeof(*t));
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || sn_type_table_find(t, k->type) >= 0) continue;
    if (k->type->destroy != NULL)
      return sn_world_error(w, SN_ERR_SNAPSHOT_UNSUPPORTED,
                            "constraint type '%s' has a destroy callback: its instances own memory outside "
                            "themselves, so they cannot be copied into a snapshot",
                            k->type->name);
    if (t->count == t->capacity) {
      int32_t cap = t->capacity;
      if (!sn_array_grow(&w->mem, (void **)&t->records, &cap, sizeof(sn_type_record), t->count + 1))
        return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "snapshot: cannot allocate the type table");
      t->capacity = cap;
    }
    sn_type_record_fill(t->records + t->count++, k->type);
  }
  return SN_OK;
}

sn_result sn_world_save_snapshot(sn_world *w, void *buffer, size_t capacity, size_t *out_size) {
  if (w == NULL) return SN_ERR_NULL;
  if (w->stepping) return sn_world_locked_error(w, "sn_world_save_snapshot");
  if (out_size == NULL) return sn_world_error(w, SN_ERR_NULL, "sn_world_save_snapshot: out_size is NULL");
  sn_body_refresh_extents(w); /* the bodies' extents are saved */
  sn_type_table types;
  sn_result r = sn_build_type_table(w, &types);
  if (r == SN_OK) {
    sn_io io;
    memset(&io, 0, sizeof(io));
    sn_write_all(&io, w, &types); /* measure */
    size_t need = io.pos;
    *out_size = need;
    if (buffer != NULL && capacity < need) {
      r = sn_world_error(w, SN_ERR_CAPACITY, "snapshot needs %zu bytes, the buffer has %zu", need, capacity);
    } else if (buffer != NULL) {
      memset(&io, 0, sizeof(io));
      io.out = buffer;
      sn_write_all(&io, w, &types);
    }
  }
  sn_mem_free(&w->mem, types.records, (size_t)types.capacity * sizeof(sn_type_record));
  return r;
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */

typedef struct sn_loader {
  char *err;
  size_t err_capacity;
  sn_result code;
} sn_loader;

SN_PRINTF(3, 4)
static sn_result sn_load_fail(sn_loader *l, sn_result code, const char *fmt, ...) {
  if (l->code != SN_OK) return l->code; /* keep the first reason */
  l->code = code;
  if (l->err != NULL && l->err_capacity > 0) {
    int n = snprintf(l->err, l->err_capacity, "%s: ", sn_result_name(code));
    if (n >= 0 && (size_t)n < l->err_capacity) {
      va_list args;
      va_start(args, fmt);
      vsnprintf(l->err + n, l->err_capacity - (size_t)n, fmt, args);
      va_end(args);
    }
  }
  return code;
}

static sn_result sn_io_status(sn_loader *l, const sn_io *io) {
  if (io->bad)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT,
                        "section '%s' is truncated or holds a value out of range (offset %zu)",
                        io->what ? io->what : "header", io->pos);
  if (io->nonfinite)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "section '%s' holds a NaN or infinite number",
                        io->what ? io->what : "header");
  return SN_OK;
}

/* A count of slots (or nodes) past what the loading world's limit allows:
 * refused before anything is allocated for them. */
static bool sn_over_limit(sn_loader *l, sn_io *io, int64_t n, const char *noun, int64_t limit, const char *limit_name) {
  if (n <= limit) return false;
  sn_load_fail(l, SN_ERR_CAPACITY, "section '%s' has %lld %s, more than the world def's %s limit allows (%lld)",
               io->what, (long long)n, noun, limit_name, (long long)limit);
  io->bad = true;
  return true;
}

/* Reads a slot array's count, free head and live count, and makes room:
 * each slot takes at least min_bytes of the input, and there may be no more
 * than the limit (a world never has more slots than its most live objects). */
#define SN_READ_SLOTS(io, w, arr, free_head, live, min_bytes, limit, limit_name)                                       \
  do {                                                                                                                 \
    int32_t n_;                                                                                                        \
    io_count((io), &n_, (min_bytes));                                                                                  \
    io_index((io), &(free_head), n_);                                                                                  \
    io_i32((io), &(live));                                                                                             \
    if ((io)->bad || sn_over_limit(l, (io), n_, "slots", (limit), (limit_name))) break;                                \
    if (n_ > 0 && !sn_array_reserve(&(w)->mem, (arr), n_)) {                                                           \
      oom = true;                                                                                                      \
      break;                                                                                                           \
    }                                                                                                                  \
    if (n_ > 0) memset((arr).data, 0, (size_t)n_ * sizeof(*(arr).data));                                               \
    (arr).count = n_;                                                                                                  \
  } while (0)

static void *sn_snapshot_aligned(sn_mem *mem, size_t size, size_t align, void **block, size_t *bytes) {
  *bytes = size + align;
  *block = sn_mem_calloc(mem, *bytes);
  if (*block == NULL) return NULL;
  uintptr_t p = ((uintptr_t)*block + (align - 1)) & ~(uintptr_t)(align - 1);
  return (void *)p;
}

/* Resolves the snapshot's constraint types in the registry. */
static sn_result sn_resolve_types(sn_loader *l, const sn_registry *registry, sn_type_record *records, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    sn_type_record *r = records + i;
    const sn_constraint_type *t = registry ? sn_registry_find_type(registry, r->name) : NULL;
    if (t == NULL)
      return sn_load_fail(l, SN_ERR_NOT_FOUND,
                          "the snapshot has constraints of type '%s', which is not in %s: load its plugin first",
                          r->name, registry ? "the registry of the world def" : "a registry (the world def has none)");
    if (t->destroy != NULL)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_UNSUPPORTED,
                          "constraint type '%s' has a destroy callback: its instances cannot be restored from bytes",
                          r->name);
    sn_type_record have;
    sn_type_record_fill(&have, t);
    const char *field = NULL;
    uint32_t a = 0, b = 0;
#define SN_CMP(f)                                                                                                      \
  if (field == NULL && r->f != have.f) {                                                                               \
    field = #f;                                                                                                        \
    a = r->f;                                                                                                          \
    b = have.f;                                                                                                        \
  }
    SN_CMP(flags)
    SN_CMP(body_count)
    SN_CMP(particle_count)
    SN_CMP(params_size)
    SN_CMP(params_align)
    SN_CMP(instance_size)
    SN_CMP(instance_align)
    SN_CMP(param_count)
#undef SN_CMP
    if (field != NULL)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_TYPE_MISMATCH,
                          "constraint type '%s': %s is %u in the snapshot but %u in the registry (another version "
                          "of its plugin?)",
                          r->name, field, (unsigned)a, (unsigned)b);
    if (r->param_hash != have.param_hash)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_TYPE_MISMATCH,
                          "constraint type '%s': its parameter schema (ids, kinds, offsets) differs from the "
                          "registry's (another version of its plugin?)",
                          r->name);
    r->type = t;
  }
  return SN_OK;
}

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

static bool sn_join_pair(sn_world *w, int32_t a, int32_t b) {
  uint64_t key = sn_pair_key(a, b);
  int32_t n = sn_pair_set_find(&w->joined, key);
  if (n > 0) sn_pair_set_remove(&w->joined, key);
  return sn_pair_set_add(&w->joined, &w->mem, key, (n > 0 ? n : 0) + 1);
}

/* Everything the body, shape, contact and tree sections link together. */
static sn_result sn_check_tree(sn_loader *l, sn_world *w, const sn_tree *t, bool is_static, const char *name,
                               uint8_t *seen) {
  int32_t cap = t->node_capacity;
  if (t->node_count < 0 || t->node_count > cap || t->proxy_count < 0 || t->proxy_count > t->node_count ||
      t->root < SN_NULL_NODE || t->root >= cap || t->free_list < SN_NULL_NODE || t->free_list >= cap)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: counts or heads out of range", name);
  memset(seen, 0, (size_t)cap);
  /* depth-first from the root with an explicit stack (seen marks stop cycles) */
  int32_t *stack = (int32_t *)(seen + cap + ((4 - (cap & 3)) & 3));
  int32_t top = 0, nodes = 0, leaves = 0;
  if (t->root != SN_NULL_NODE) {
    if (t->nodes[t->root].parent_or_next != SN_NULL_NODE)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: the root has a parent", name);
    stack[top++] = t->root;
  }
  while (top > 0) {
    int32_t i = stack[--top];
    const sn_tree_node *n = t->nodes + i;
    if (seen[i] || n->height < 0)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d is linked twice or is free", name, (int)i);
    seen[i] = 1;
    nodes++;
    if (n->height == 0) {
      leaves++;
      int32_t si = n->user_data;
      if (n->child1 != SN_NULL_NODE || n->child2 != SN_NULL_NODE || si < 0 || si >= w->shapes.count ||
          !w->shapes.data[si].in_use || w->shapes.data[si].proxy != i || w->shapes.data[si].is_static_tree != is_static)
        return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: leaf %d does not belong to its shape", name, (int)i);
      continue;
    }
    int32_t c1 = n->child1, c2 = n->child2;
    if (c1 < 0 || c1 >= cap || c2 < 0 || c2 >= cap || c1 == c2 || t->nodes[c1].parent_or_next != i ||
        t->nodes[c2].parent_or_next != i || t->nodes[c1].height < 0 || t->nodes[c2].height < 0)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d has broken children", name, (int)i);
    int32_t h1 = t->nodes[c1].height, h2 = t->nodes[c2].height;
    if (n->height != 1 + (h1 > h2 ? h1 : h2))
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: node %d has a wrong height", name, (int)i);
    if (top + 2 > cap) return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: too many nodes", name);
    stack[top++] = c1;
    stack[top++] = c2;
  }
  if (nodes != t->node_count || leaves != t->proxy_count)
    return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: %d nodes and %d leaves reachable, counts say %d and %d", name,
                        (int)nodes, (int)leaves, (int)t->node_count, (int)t->proxy_count);
  int32_t free_nodes = 0;
  for (int32_t i = t->free_list; i != SN_NULL_NODE; i = t->nodes[i].parent_or_next) {
    if (i < 0 || i >= cap || seen[i] || t->nodes[i].height != -1)
      return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: broken free list", name);
    seen[i] = 1;
    free_nodes++;
  }
  if (free_nodes + nodes != cap) return sn_load_fail(l, SN_ERR_SNAPSHOT_CORRUPT, "%s: nodes lost", name);
  return SN_OK;
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
 * least max(bodies, particles, tree capacity * 5 + 4) bytes. */
static sn_result sn_check_world(sn_loader *l, sn_world *w, uint8_t *marks) {
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
        s->friction < 0.0f || s->restitution < 0.0f)
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

  /* trees (marks hold the visited flags, then the traversal stack) */
  sn_result r = sn_check_tree(l, w, &w->static_tree, true, "static tree", marks);
  if (r == SN_OK) r = sn_check_tree(l, w, &w->dynamic_tree, false, "dynamic tree", marks);
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
  return SN_OK;
}

/* Reads one broadphase tree section into t (its nodes array replaced). */
static bool sn_read_tree(sn_loader *l, sn_io *io, sn_world *w, sn_tree *t, bool *oom) {
  sn_tree h;
  memset(&h, 0, sizeof(h));
  io_tree_header(io, &h);
  if (io->bad) return false;
  if (h.node_capacity < 1 || (size_t)h.node_capacity > (io->end - io->pos) / SN_TREE_NODE_MIN_BYTES) {
    io->bad = true;
    return false;
  }
  /* a tree holds a node per shape and one between two; it doubles when full */
  if (sn_over_limit(l, io, h.node_capacity, "nodes", 4 * (int64_t)w->max_shapes + 16, "max_shapes")) return false;
  sn_mem_free(&w->mem, t->nodes, (size_t)t->node_capacity * sizeof(sn_tree_node));
  t->nodes = NULL;
  t->node_capacity = t->node_count = t->proxy_count = 0;
  t->root = t->free_list = SN_NULL_NODE;
  sn_tree_node *nodes = sn_mem_calloc(&w->mem, (size_t)h.node_capacity * sizeof(sn_tree_node));
  if (nodes == NULL) {
    *oom = true;
    return false;
  }
  t->nodes = nodes;
  t->node_capacity = h.node_capacity;
  t->node_count = h.node_count;
  t->root = h.root;
  t->free_list = h.free_list;
  t->proxy_count = h.proxy_count;
  io_tree_nodes(io, t);
  return !io->bad;
}

/* Parses sections after WRLD into w. False with io->bad or *oom set, or with
 * the loader's error recorded (types). */
static bool sn_read_sections(sn_loader *l, sn_io *io, sn_world *w, const sn_registry *registry,
                             sn_type_record **types_out, int32_t *type_count_out, bool *oom_out) {
  bool oom = false;
  sn_section s = io_begin(io, SN_TAG('B', 'O', 'D', 'Y'), "bodies");
  SN_READ_SLOTS(io, w, w->bodies, w->body_free, w->body_count, SN_SLOT_BYTES, w->max_bodies, "max_bodies");
  for (int32_t i = 0; i < w->bodies.count && !io->bad; ++i) {
    sn_body *b = w->bodies.data + i;
    io_slot(io, &b->in_use, &b->generation, &b->next_free, w->bodies.count);
    b->solver_index = SN_NULL_INDEX;
    b->sleep_next = b->shape_list = b->contact_list = SN_NULL_INDEX;
    if (b->in_use) io_body(io, b);
  }
  io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = io_begin(io, SN_TAG('S', 'H', 'A', 'P'), "shapes");
  SN_READ_SLOTS(io, w, w->shapes, w->shape_free, w->shape_count, SN_SLOT_BYTES, w->max_shapes, "max_shapes");
  for (int32_t i = 0; i < w->shapes.count && !io->bad; ++i) {
    sn_shape *sh = w->shapes.data + i;
    io_slot(io, &sh->in_use, &sh->generation, &sh->next_free, w->shapes.count);
    sh->proxy = SN_NULL_NODE;
    sh->chain = sh->next = SN_NULL_INDEX;
    if (sh->in_use) io_shape(io, sh);
  }
  io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = io_begin(io, SN_TAG('C', 'H', 'A', 'N'), "chains");
  {
    int32_t n;
    io_count(io, &n, SN_SLOT_BYTES);
    io_index(io, &w->chain_free, n);
    /* every chain has a segment shape */
    if (!io->bad && sn_over_limit(l, io, n, "slots", w->max_shapes, "max_shapes")) goto done;
    if (!io->bad && n > 0) {
      if (!sn_array_reserve(&w->mem, w->chains, n)) {
        oom = true;
        goto done;
      }
      memset(w->chains.data, 0, (size_t)n * sizeof(sn_chain));
      w->chains.count = n;
    }
  }
  for (int32_t i = 0; i < w->chains.count && !io->bad; ++i) {
    sn_chain *c = w->chains.data + i;
    bool in_use = false;
    io_slot(io, &in_use, &c->generation, &c->next_free, w->chains.count);
    if (!in_use) continue;
    io_i32(io, &c->body);
    io_i32(io, &c->first_shape);
    int32_t count;
    io_count(io, &count, 4);
    if (io->bad) break;
    if (count > 0) {
      c->shapes = sn_mem_alloc(&w->mem, (size_t)count * sizeof(int32_t));
      if (c->shapes == NULL) {
        oom = true;
        goto done;
      }
    }
    c->shape_count = count;
    c->in_use = true; /* owns shapes now: freed with the world */
    for (int32_t k = 0; k < count; ++k) io_i32(io, c->shapes + k);
  }
  io_end(io, s);
  if (io->bad || oom) goto done;

  s = io_begin(io, SN_TAG('C', 'O', 'N', 'T'), "contacts");
  SN_READ_SLOTS(io, w, w->contacts, w->contact_free, w->contact_count, SN_SLOT_BYTES, w->max_contacts, "max_contacts");
  for (int32_t i = 0; i < w->contacts.count && !io->bad; ++i) {
    sn_contact *c = w->contacts.data + i;
    uint16_t generation = 0;
    io_slot(io, &c->in_use, &generation, &c->next_free, w->contacts.count);
    if (generation != 0) io->bad = true;
    if (c->in_use) io_contact(io, c);
  }
  io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = io_begin(io, SN_TAG('T', 'R', 'E', 'S'), "static tree");
  if (!sn_read_tree(l, io, w, &w->static_tree, &oom)) goto done;
  io_end(io, s);
  s = io_begin(io, SN_TAG('T', 'R', 'E', 'D'), "dynamic tree");
  if (!sn_read_tree(l, io, w, &w->dynamic_tree, &oom)) goto done;
  io_end(io, s);
  if (io->bad || io->nonfinite) goto done;

  s = io_begin(io, SN_TAG('M', 'O', 'V', 'E'), "move buffer");
  {
    int32_t n;
    io_count(io, &n, 4);
    if (io->bad) goto done;
    int32_t cap = n > w->shapes.count ? n : w->shapes.count;
    if (cap > 0 && !sn_array_reserve(&w->mem, w->move_buffer, cap)) {
      oom = true;
      goto done;
    }
    w->move_buffer.count = n;
    for (int32_t i = 0; i < n; ++i) io_i32(io, w->move_buffer.data + i);
  }
  io_end(io, s);
  if (io->bad) goto done;

  s = io_begin(io, SN_TAG('P', 'A', 'R', 'T'), "particles");
  SN_READ_SLOTS(io, w, w->particles, w->particle_free, w->particle_count, SN_SLOT_BYTES, w->max_particles,
                "max_particles");
  for (int32_t i = 0; i < w->particles.count && !io->bad; ++i) {
    sn_particle *p = w->particles.data + i;
    io_slot(io, &p->in_use, &p->generation, &p->next_free, w->particles.count);
    if (p->in_use) io_particle(io, p);
  }
  io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = io_begin(io, SN_TAG('S', 'O', 'F', 'T'), "soft bodies");
  SN_READ_SLOTS(io, w, w->soft_bodies, w->soft_free, w->soft_count, SN_SLOT_BYTES, w->max_soft_bodies,
                "max_soft_bodies");
  for (int32_t i = 0; i < w->soft_bodies.count && !io->bad; ++i) {
    sn_soft_body *sb = w->soft_bodies.data + i;
    bool in_use = false;
    io_slot(io, &in_use, &sb->generation, &sb->next_free, w->soft_bodies.count);
    if (!in_use) continue;
    io_material(io, &sb->material);
    int32_t np;
    io_count(io, &np, 4);
    if (io->bad) break;
    int32_t *particles = np > 0 ? sn_mem_alloc(&w->mem, (size_t)np * sizeof(int32_t)) : NULL;
    if (np > 0 && particles == NULL) {
      oom = true;
      goto done;
    }
    sb->particles = particles;
    sb->particle_count = sb->particle_capacity = np;
    sb->in_use = true; /* owns its arrays now */
    for (int32_t k = 0; k < np; ++k) io_i32(io, sb->particles + k);
    int32_t ne;
    io_count(io, &ne, 8);
    if (io->bad) break;
    int32_t *edges = ne > 0 ? sn_mem_alloc(&w->mem, (size_t)ne * 2 * sizeof(int32_t)) : NULL;
    if (ne > 0 && edges == NULL) {
      oom = true;
      goto done;
    }
    sb->edges = edges;
    sb->edge_count = sb->edge_capacity = ne;
    for (int32_t k = 0; k < 2 * ne; ++k) io_i32(io, sb->edges + k);
  }
  io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = io_begin(io, SN_TAG('C', 'T', 'Y', 'P'), "constraint types");
  int32_t type_count;
  io_count(io, &type_count, 44);
  if (io->bad) goto done;
  if (type_count > 0) {
    *types_out = sn_mem_calloc(&w->mem, (size_t)type_count * sizeof(sn_type_record));
    if (*types_out == NULL) {
      oom = true;
      goto done;
    }
    *type_count_out = type_count;
  }
  sn_type_record *types = *types_out;
  for (int32_t i = 0; i < type_count; ++i) io_type_record(io, types + i);
  io_end(io, s);
  if (io->bad) goto done;
  if (sn_resolve_types(l, registry, types, type_count) != SN_OK) goto done;

  s = io_begin(io, SN_TAG('C', 'O', 'N', 'S'), "constraints");
  SN_READ_SLOTS(io, w, w->constraints, w->constraint_free, w->constraint_count, SN_SLOT_BYTES, w->max_constraints,
                "max_constraints");
  for (int32_t i = 0; i < w->constraints.count && !io->bad; ++i) {
    sn_constraint *k = w->constraints.data + i;
    bool in_use = false;
    io_slot(io, &in_use, &k->generation, &k->next_free, w->constraints.count);
    if (!in_use) continue;
    int32_t ti;
    io_i32(io, &ti);
    if (io->bad || ti < 0 || ti >= type_count) {
      io->bad = true;
      break;
    }
    const sn_constraint_type *t = types[ti].type;
    sn_constraint c;
    memset(&c, 0, sizeof(c));
    c.type = t;
    for (int b = 0; b < SN_MAX_CONSTRAINT_BODIES; ++b) io_i32(io, c.bodies + b);
    io_count(io, &c.particle_count, 4);
    if (io->bad) break;
    if (c.particle_count > 0) c.particles = sn_mem_alloc(&w->mem, (size_t)c.particle_count * sizeof(int32_t));
    c.params = sn_snapshot_aligned(&w->mem, t->params_size, t->params_align, &c.params_block, &c.params_bytes);
    c.instance =
        sn_snapshot_aligned(&w->mem, t->instance_size, t->instance_align, &c.instance_block, &c.instance_bytes);
    if ((c.particle_count > 0 && c.particles == NULL) || c.params == NULL || c.instance == NULL) {
      sn_mem_free(&w->mem, c.particles, (size_t)c.particle_count * sizeof(int32_t));
      sn_mem_free(&w->mem, c.params_block, c.params_bytes);
      sn_mem_free(&w->mem, c.instance_block, c.instance_bytes);
      oom = true;
      goto done;
    }
    c.in_use = true;
    c.generation = k->generation;
    c.next_free = k->next_free;
    *k = c; /* owns its memory now: freed with the world */
    for (int32_t p = 0; p < k->particle_count; ++p) io_i32(io, k->particles + p);
    io_f32(io, &k->break_force);
    io_bool(io, &k->collide_connected);
    io_raw(io, k->params, t->params_size);
    io_raw(io, k->instance, t->instance_size);
  }
  io_end(io, s);

done:
  *oom_out = oom;
  return !io->bad && !io->nonfinite && !oom && l->code == SN_OK;
}

sn_result sn_world_load_snapshot(const void *bytes, size_t size, const sn_world_def *def, sn_world **out, char *err,
                                 size_t err_capacity) {
  sn_loader l = {err, err_capacity, SN_OK};
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  if (out == NULL) return sn_load_fail(&l, SN_ERR_NULL, "out is NULL");
  *out = NULL;
  if (bytes == NULL) return sn_load_fail(&l, SN_ERR_NULL, "bytes is NULL");
  if (def != NULL && def->cookie != SN_DEF_COOKIE)
    return sn_load_fail(&l, SN_ERR_UNINITIALIZED_DEF, "start the world def from sn_default_world_def()");
  const uint8_t *in = bytes;

  /* 1. framing: magic, size, checksum; nothing is built before they pass */
  if (size < 8 || memcmp(in, sn_snapshot_magic, 8) != 0)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "not a Sinew snapshot (no \"SINEWSNP\" magic)");
  if (size < SN_SNAPSHOT_HEADER_SIZE + SN_SNAPSHOT_TRAILER_BYTES)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "truncated: %zu bytes, shorter than the header", size);
  sn_io io;
  memset(&io, 0, sizeof(io));
  io.reading = true;
  io.in = in;
  io.end = size;
  io.pos = 8;
  uint32_t format = 0, header_size = 0;
  uint64_t total = 0;
  io_u32(&io, &format);
  io_u32(&io, &header_size);
  io_u64(&io, &total);
  if (total != (uint64_t)size)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "truncated or padded: the header says %llu bytes, got %zu",
                        (unsigned long long)total, size);
  uint64_t sum = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, in, size - SN_SNAPSHOT_TRAILER_BYTES), stored = 0;
  for (int i = 0; i < 8; ++i) stored |= (uint64_t)in[size - SN_SNAPSHOT_TRAILER_BYTES + (size_t)i] << (8 * i);
  if (sum != stored) return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "checksum mismatch: the snapshot was damaged");

  /* 2. compatibility */
  if (format < SN_SNAPSHOT_OLDEST_FORMAT || format > SN_SNAPSHOT_FORMAT || header_size != SN_SNAPSHOT_HEADER_SIZE)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_VERSION, "snapshot format %u, this library reads formats %u to %u",
                        (unsigned)format, (unsigned)SN_SNAPSHOT_OLDEST_FORMAT, (unsigned)SN_SNAPSHOT_FORMAT);
  io.format = format;
  uint8_t info[8];
  io_raw(&io, info, 8);
  uint16_t probe = 1;
  uint8_t first;
  memcpy(&first, &probe, 1);
  if (info[3] != SN_PLUGIN_ABI_MAJOR || info[5] != sizeof(float) || info[6] != sizeof(void *) ||
      info[7] != (first == 1 ? 1 : 2))
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_VERSION,
                        "snapshot written with plugin ABI %u, %u-byte floats, %u-byte pointers, byte order %u: "
                        "this host differs, so plugin instance bytes would not mean the same",
                        (unsigned)info[3], (unsigned)info[5], (unsigned)info[6], (unsigned)info[7]);
  uint32_t reserved[2];
  io_u32(&io, reserved);
  io_u32(&io, reserved + 1);
  if (reserved[0] != 0 || reserved[1] != 0)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_VERSION, "the header's reserved fields are set: a newer writer?");
  io.end = size - SN_SNAPSHOT_TRAILER_BYTES;

  /* 3. world settings, then a new world made from them */
  sn_world copy;
  memset(&copy, 0, sizeof(copy));
  copy.settings = sn_world_settings_default(); /* for settings an older format does not hold */
  sn_section s = io_begin(&io, SN_TAG('W', 'R', 'L', 'D'), "world");
  io_world_settings(&io, &copy);
  io_end(&io, s);
  if (sn_io_status(&l, &io) != SN_OK) return l.code;
  char why[200];
  if (sn_world_settings_check(&copy.settings, why, sizeof why) != SN_OK)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "world settings out of range: %s", why);
  if (copy.tag == 0 || copy.last_dt < 0.0f)
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "world settings out of range");
  sn_world_def wd = def != NULL ? *def : sn_default_world_def();
  sn_world_settings_to_def(&copy.settings, &wd);
  wd.body_capacity = wd.shape_capacity = 0;
  sn_result r;
  sn_world *w = sn_create_world(&wd, &r);
  if (w == NULL) {
    if (r == SN_ERR_OUT_OF_MEMORY) return sn_load_fail(&l, r, "cannot allocate the world");
    if (r == SN_ERR_INVALID_ARGUMENT && def != NULL && (def->allocator.alloc == NULL) != (def->allocator.free == NULL))
      return sn_load_fail(&l, r, "the def's allocator has only one of alloc and free");
    if (r == SN_ERR_INVALID_ARGUMENT && def != NULL) {
      sn_world_def limits = sn_default_world_def();
#define SN_X(name, dflt, doc) limits.name = def->name;
      SN_WORLD_LIMITS(SN_X)
#undef SN_X
      sn_world *check = sn_create_world(&limits, NULL);
      if (check == NULL) return sn_load_fail(&l, r, "a limit of the def is outside 0 .. SN_MAX_WORLD_LIMIT");
      sn_destroy_world(check);
    }
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "world settings out of range (%s)", sn_result_name(r));
  }
  w->tag = copy.tag;
  w->settings = copy.settings; /* those sn_world_def lacks too */
  w->last_dt = copy.last_dt;
  w->island_count = copy.island_count;
  w->awake_body_count = copy.awake_body_count;
  w->particle_contact_count = copy.particle_contact_count;

  /* 4. the objects, then every reference between them */
  sn_type_record *types = NULL;
  int32_t type_count = 0;
  bool oom = false;
  uint8_t *marks = NULL;
  size_t marks_bytes = 0;
  if (!sn_read_sections(&l, &io, w, def ? def->registry : NULL, &types, &type_count, &oom)) {
    if (oom)
      sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "out of memory while restoring '%s'", io.what ? io.what : "?");
    else if (l.code == SN_OK)
      sn_io_status(&l, &io);
    goto fail;
  }
  if (io.pos != io.end) {
    sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "%zu unknown bytes after the last section", io.end - io.pos);
    goto fail;
  }
  {
    size_t n = (size_t)w->bodies.count;
    if ((size_t)w->particles.count > n) n = (size_t)w->particles.count;
    int32_t cap = w->static_tree.node_capacity > w->dynamic_tree.node_capacity ? w->static_tree.node_capacity
                                                                               : w->dynamic_tree.node_capacity;
    if ((size_t)cap * 5 + 4 > n) n = (size_t)cap * 5 + 4;
    marks_bytes = n;
    marks = sn_mem_alloc(&w->mem, marks_bytes);
    if (marks == NULL) {
      sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "out of memory while checking the snapshot");
      goto fail;
    }
  }
  if (sn_check_world(&l, w, marks) != SN_OK) goto fail;
  /* tight AABBs from the bodies' transforms, as the step's write back leaves
   * them (the same bits for an undamaged snapshot): the narrowphase skips
   * far disc pairs by these boxes, so they must match even when damage
   * behind a valid checksum changed a transform or a box */
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    if (!b->in_use) continue;
    for (int32_t k = b->shape_list; k != SN_NULL_INDEX; k = w->shapes.data[k].next) {
      sn_aabb box = sn_geometry_compute_aabb(&w->shapes.data[k].geom, b->xf);
      /* finite numbers whose box is not (coordinates near FLT_MAX): damage */
      if (!sn_aabb_is_valid(box)) {
        sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "shape %d: its bounding box at body %d's pose is not finite", (int)k,
                     (int)i);
        goto fail;
      }
      w->shapes.data[k].aabb = box;
    }
  }

  /* 5. the lookup tables: contacts by shape pair, bodies joined by constraints */
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    const sn_contact *c = w->contacts.data + i;
    if (!c->in_use) continue;
    uint64_t key = sn_pair_key(c->shape_a, c->shape_b);
    if (sn_pair_set_find(&w->pairs, key) >= 0) {
      sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "contact %d: a second contact for one shape pair", (int)i);
      goto fail;
    }
    if (!sn_pair_set_add(&w->pairs, &w->mem, key, i)) {
      sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "out of memory while indexing contacts");
      goto fail;
    }
    if (c->flags & SN_CONTACT_ENABLE_EVENTS) w->event_contacts++;
    if ((c->flags & SN_CONTACT_ENABLE_EVENTS) && (c->flags & SN_CONTACT_TOUCHING)) w->touching_event_contacts++;
    if (c->flags & SN_CONTACT_ENABLE_HIT) w->hit_contacts++;
  }
  /* the counts the step's reservations read (contact.c keeps them) */
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    if (b->in_use && b->type != SN_BODY_STATIC && b->contact_count > SN_COLOR_FREE_CONTACTS)
      w->contact_excess += b->contact_count - SN_COLOR_FREE_CONTACTS;
  }
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || k->type->body_count != 2 || k->collide_connected) continue;
    if (!sn_join_pair(w, k->bodies[0], k->bodies[1])) {
      sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "out of memory while indexing constraints");
      goto fail;
    }
  }
  sn_mem_free(&w->mem, marks, marks_bytes);
  sn_mem_free(&w->mem, types, (size_t)type_count * sizeof(sn_type_record));
  *out = w;
  return SN_OK;

fail:
  sn_mem_free(&w->mem, marks, marks_bytes);
  sn_mem_free(&w->mem, types, (size_t)type_count * sizeof(sn_type_record));
  sn_destroy_world(w);
  return l.code;
}

/* ------------------------------------------------------------------------ */
/* Files                                                                     */

sn_result sn_snapshot_write_file(sn_world *w, const char *path, int fault) {
  if (w == NULL) return SN_ERR_NULL;
  if (path == NULL) return sn_world_error(w, SN_ERR_NULL, "sn_world_write_snapshot: path is NULL");
  if (w->stepping) return sn_world_locked_error(w, "sn_world_write_snapshot");
  size_t size = 0;
  sn_result r = sn_world_save_snapshot(w, NULL, 0, &size);
  if (r != SN_OK) return r;
  uint8_t *bytes = sn_mem_alloc(&w->mem, size);
  if (bytes == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for the snapshot", size);
  r = sn_world_save_snapshot(w, bytes, size, &size);
  if (r != SN_OK) {
    sn_mem_free(&w->mem, bytes, size);
    return r;
  }
  char why[768];
  bool ok = sn_file_write_atomic(path, bytes, size, fault, why, sizeof why);
  sn_mem_free(&w->mem, bytes, size);
  if (!ok)
    return sn_world_error(w, SN_ERR_IO, "sn_world_write_snapshot %s: %s (the old file, if any, is unchanged)", path,
                          why);
  return SN_OK;
}

sn_result sn_world_write_snapshot(sn_world *w, const char *path) {
  return sn_snapshot_write_file(w, path, SN_SNAPSHOT_FAULT_NONE);
}

sn_result sn_world_read_snapshot(const char *path, const sn_world_def *def, sn_world **out, char *err,
                                 size_t err_capacity) {
  sn_loader l = {err, err_capacity, SN_OK};
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  if (out == NULL) return sn_load_fail(&l, SN_ERR_NULL, "out is NULL");
  *out = NULL;
  if (path == NULL) return sn_load_fail(&l, SN_ERR_NULL, "path is NULL");
  if (def != NULL && def->cookie != SN_DEF_COOKIE)
    return sn_load_fail(&l, SN_ERR_UNINITIALIZED_DEF, "start the world def from sn_default_world_def()");
  sn_mem mem;
  sn_mem_init(&mem, def != NULL ? &def->allocator : NULL);
  sn_file_reader file;
  char why[768];
  if (!sn_file_reader_open(&file, path, why, sizeof why))
    return sn_load_fail(&l, SN_ERR_IO, "sn_world_read_snapshot %s: %s", path, why);
  if (file.size == 0) {
    sn_file_reader_close(&file);
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "%s is empty", path);
  }
  size_t size = (size_t)file.size;
  uint8_t *bytes = sn_mem_alloc(&mem, size);
  if (bytes == NULL) {
    sn_file_reader_close(&file);
    return sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for %s", size, path);
  }
  size_t got = 0;
  char reason[128];
  reason[0] = '\0';
  while (got < size) {
    ptrdiff_t k = sn_file_reader_read(&file, bytes + got, size - got, reason, sizeof reason);
    if (k <= 0) break;
    got += (size_t)k;
  }
  sn_file_reader_close(&file);
  sn_result r;
  if (got != size) {
    if (reason[0] == '\0') snprintf(reason, sizeof reason, "the file became shorter while being read");
    r = sn_load_fail(&l, SN_ERR_IO, "cannot read %s: %s", path, reason);
  } else {
    r = sn_world_load_snapshot(bytes, size, def, out, err, err_capacity);
  }
  sn_mem_free(&mem, bytes, size);
  return r;
}
