/* Snapshots: loading bytes into a new world (sn_world_load_snapshot).
 * Loading checks size and checksum before it reads anything, then builds a
 * new world and checks every index it holds (snapshot_check.c) before
 * handing it out; on any error the new world is destroyed. Pair sets
 * (contacts by shape pair, joined bodies) are only looked up, never
 * iterated, so they are rebuilt. */
#include "world/snapshot_codec.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/math.h"

sn_result sn_load_fail(sn_loader *l, sn_result code, const char *fmt, ...) {
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
    int32_t n_ = 0;                                                                                                    \
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

static bool sn_join_pair(sn_world *w, int32_t a, int32_t b) {
  uint64_t key = sn_pair_key(a, b);
  int32_t n = sn_pair_set_find(&w->joined, key);
  if (n > 0) sn_pair_set_remove(&w->joined, key);
  return sn_pair_set_add(&w->joined, &w->mem, key, (n > 0 ? n : 0) + 1);
}

/* Reads one broadphase tree section into t (its nodes array replaced). */
static bool sn_read_tree(sn_loader *l, sn_io *io, sn_world *w, sn_tree *t, bool *oom) {
  sn_tree h;
  memset(&h, 0, sizeof(h));
  sn_io_tree_header(io, &h);
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
  t->wide_valid = false;
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
  sn_io_tree_nodes(io, t);
  return !io->bad;
}

/* Parses sections after WRLD into w. False with io->bad or *oom set, or with
 * the loader's error recorded (types). */
static bool sn_read_sections(sn_loader *l, sn_io *io, sn_world *w, const sn_registry *registry,
                             sn_type_record **types_out, int32_t *type_count_out, bool *oom_out) {
  bool oom = false;
  sn_section s = sn_io_begin(io, SN_TAG('B', 'O', 'D', 'Y'), "bodies");
  SN_READ_SLOTS(io, w, w->bodies, w->body_free, w->body_count, SN_SLOT_BYTES, w->max_bodies, "max_bodies");
  for (int32_t i = 0; i < w->bodies.count && !io->bad; ++i) {
    sn_body *b = w->bodies.data + i;
    io_slot(io, &b->in_use, &b->generation, &b->next_free, w->bodies.count);
    b->solver_index = SN_NULL_INDEX;
    b->sleep_next = b->shape_list = b->contact_list = SN_NULL_INDEX;
    if (b->in_use) sn_io_body(io, b);
  }
  sn_io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = sn_io_begin(io, SN_TAG('S', 'H', 'A', 'P'), "shapes");
  SN_READ_SLOTS(io, w, w->shapes, w->shape_free, w->shape_count, SN_SLOT_BYTES, w->max_shapes, "max_shapes");
  for (int32_t i = 0; i < w->shapes.count && !io->bad; ++i) {
    sn_shape *sh = w->shapes.data + i;
    io_slot(io, &sh->in_use, &sh->generation, &sh->next_free, w->shapes.count);
    sh->proxy = SN_NULL_NODE;
    sh->chain = sh->next = SN_NULL_INDEX;
    if (sh->in_use) sn_io_shape(io, sh);
  }
  sn_io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = sn_io_begin(io, SN_TAG('C', 'H', 'A', 'N'), "chains");
  {
    int32_t n = 0;
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
    int32_t count = 0;
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
  sn_io_end(io, s);
  if (io->bad || oom) goto done;

  s = sn_io_begin(io, SN_TAG('C', 'O', 'N', 'T'), "contacts");
  SN_READ_SLOTS(io, w, w->contacts, w->contact_free, w->contact_count, SN_SLOT_BYTES, w->max_contacts, "max_contacts");
  for (int32_t i = 0; i < w->contacts.count && !io->bad; ++i) {
    sn_contact *c = w->contacts.data + i;
    uint16_t generation = 0;
    io_slot(io, &c->in_use, &generation, &c->next_free, w->contacts.count);
    if (generation != 0) io->bad = true;
    if (c->in_use) sn_io_contact(io, c);
  }
  sn_io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = sn_io_begin(io, SN_TAG('T', 'R', 'E', 'S'), "static tree");
  if (!sn_read_tree(l, io, w, &w->static_tree, &oom)) goto done;
  sn_io_end(io, s);
  s = sn_io_begin(io, SN_TAG('T', 'R', 'E', 'D'), "dynamic tree");
  if (!sn_read_tree(l, io, w, &w->dynamic_tree, &oom)) goto done;
  sn_io_end(io, s);
  if (io->bad || io->nonfinite) goto done;

  s = sn_io_begin(io, SN_TAG('M', 'O', 'V', 'E'), "move buffer");
  {
    int32_t n = 0;
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
  sn_io_end(io, s);
  if (io->bad) goto done;

  s = sn_io_begin(io, SN_TAG('P', 'A', 'R', 'T'), "particles");
  SN_READ_SLOTS(io, w, w->particles, w->particle_free, w->particle_count, SN_SLOT_BYTES, w->max_particles,
                "max_particles");
  for (int32_t i = 0; i < w->particles.count && !io->bad; ++i) {
    sn_particle *p = w->particles.data + i;
    io_slot(io, &p->in_use, &p->generation, &p->next_free, w->particles.count);
    if (p->in_use) sn_io_particle(io, p);
  }
  sn_io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = sn_io_begin(io, SN_TAG('S', 'O', 'F', 'T'), "soft bodies");
  SN_READ_SLOTS(io, w, w->soft_bodies, w->soft_free, w->soft_count, SN_SLOT_BYTES, w->max_soft_bodies,
                "max_soft_bodies");
  for (int32_t i = 0; i < w->soft_bodies.count && !io->bad; ++i) {
    sn_soft_body *sb = w->soft_bodies.data + i;
    bool in_use = false;
    io_slot(io, &in_use, &sb->generation, &sb->next_free, w->soft_bodies.count);
    if (!in_use) continue;
    sn_io_material(io, &sb->material);
    int32_t np = 0;
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
    int32_t ne = 0;
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
  sn_io_end(io, s);
  if (io->bad || io->nonfinite || oom) goto done;

  s = sn_io_begin(io, SN_TAG('C', 'T', 'Y', 'P'), "constraint types");
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
  for (int32_t i = 0; i < type_count; ++i) sn_io_type_record(io, types + i);
  sn_io_end(io, s);
  if (io->bad) goto done;
  if (sn_resolve_types(l, registry, types, type_count) != SN_OK) goto done;

  s = sn_io_begin(io, SN_TAG('C', 'O', 'N', 'S'), "constraints");
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
  sn_io_end(io, s);
  if (io->bad) goto done;

  if (io->format >= 6) {
    s = sn_io_begin(io, SN_TAG('S', 'E', 'N', 'S'), "sensor overlaps");
    int32_t n = 0;
    io_count(io, &n, 12);
    if (io->bad) goto done;
    if (n > 0 && !sn_array_reserve(&w->mem, w->sensor_overlaps, n)) {
      oom = true;
      goto done;
    }
    w->sensor_overlaps.count = n;
    for (int32_t i = 0; i < n; ++i) sn_io_sensor_overlap(io, w->sensor_overlaps.data + i);
    sn_io_end(io, s);
  }

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
  uint8_t info[8] = {0};
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
  sn_section s = sn_io_begin(&io, SN_TAG('W', 'R', 'L', 'D'), "world");
  sn_io_world_settings(&io, &copy);
  sn_io_end(&io, s);
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
  w->bodies_may_sleep = true; /* (the next step's gathering makes it exact) */
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
    size_t n = 1;
    if ((size_t)w->bodies.count > n) n = (size_t)w->bodies.count;
    if ((size_t)w->particles.count > n) n = (size_t)w->particles.count;
    marks_bytes = n;
    marks = sn_mem_alloc(&w->mem, marks_bytes);
    if (marks == NULL) {
      sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "out of memory while checking the snapshot");
      goto fail;
    }
  }
  if (sn_check_world(&l, w, marks) != SN_OK) goto fail;
  /* each leaf's collision group (not saved: its shape says it; the
   * shapes' proxies are checked now) */
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    const sn_shape *sh = w->shapes.data + i;
    if (sh->in_use && sh->proxy != SN_NULL_NODE)
      sn_tree_set_group(sh->is_static_tree ? &w->static_tree : &w->dynamic_tree, sh->proxy, sh->group_index);
  }
  /* each body's count of the constraints joining it (not saved: the
   * constraints say it; their bodies are checked now) */
  for (int32_t i = 0; i < w->bodies.count; ++i) w->bodies.data[i].constraint_count = 0;
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    for (uint32_t j = 0; j < k->type->body_count; ++j) w->bodies.data[k->bodies[j]].constraint_count += 1;
  }
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
  for (int32_t i = 0; i < w->shapes.count; ++i)
    w->sensor_count += w->shapes.data[i].in_use && w->shapes.data[i].is_sensor;
  w->sensor_shapes_valid = false;
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
