/* Snapshots: writing a world's whole state as bytes (sn_world_save_snapshot). */
#include "world/snapshot_codec.h"

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

  sn_section s = sn_io_begin(io, SN_TAG('W', 'R', 'L', 'D'), "world");
  sn_io_world_settings(io, w);
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('B', 'O', 'D', 'Y'), "bodies");
  io_i32(io, &w->bodies.count);
  io_i32(io, &w->body_free);
  io_i32(io, &w->body_count);
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    sn_body *b = w->bodies.data + i;
    io_slot(io, &b->in_use, &b->generation, &b->next_free, w->bodies.count);
    if (b->in_use) sn_io_body(io, b);
  }
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('S', 'H', 'A', 'P'), "shapes");
  io_i32(io, &w->shapes.count);
  io_i32(io, &w->shape_free);
  io_i32(io, &w->shape_count);
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    sn_shape *sh = w->shapes.data + i;
    io_slot(io, &sh->in_use, &sh->generation, &sh->next_free, w->shapes.count);
    if (sh->in_use) sn_io_shape(io, sh);
  }
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('C', 'H', 'A', 'N'), "chains");
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
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('C', 'O', 'N', 'T'), "contacts");
  io_i32(io, &w->contacts.count);
  io_i32(io, &w->contact_free);
  io_i32(io, &w->contact_count);
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    sn_contact *c = w->contacts.data + i;
    uint16_t no_generation = 0;
    io_slot(io, &c->in_use, &no_generation, &c->next_free, w->contacts.count);
    if (c->in_use) sn_io_contact(io, c);
  }
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('T', 'R', 'E', 'S'), "static tree");
  sn_io_tree(io, &w->static_tree);
  sn_io_end(io, s);
  s = sn_io_begin(io, SN_TAG('T', 'R', 'E', 'D'), "dynamic tree");
  sn_io_tree(io, &w->dynamic_tree);
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('M', 'O', 'V', 'E'), "move buffer");
  io_i32(io, &w->move_buffer.count);
  for (int32_t i = 0; i < w->move_buffer.count; ++i) io_i32(io, w->move_buffer.data + i);
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('P', 'A', 'R', 'T'), "particles");
  io_i32(io, &w->particles.count);
  io_i32(io, &w->particle_free);
  io_i32(io, &w->particle_count);
  for (int32_t i = 0; i < w->particles.count; ++i) {
    sn_particle *p = w->particles.data + i;
    io_slot(io, &p->in_use, &p->generation, &p->next_free, w->particles.count);
    if (p->in_use) sn_io_particle(io, p);
  }
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('S', 'O', 'F', 'T'), "soft bodies");
  io_i32(io, &w->soft_bodies.count);
  io_i32(io, &w->soft_free);
  io_i32(io, &w->soft_count);
  for (int32_t i = 0; i < w->soft_bodies.count; ++i) {
    sn_soft_body *sb = w->soft_bodies.data + i;
    io_slot(io, &sb->in_use, &sb->generation, &sb->next_free, w->soft_bodies.count);
    if (!sb->in_use) continue;
    sn_io_material(io, &sb->material);
    io_i32(io, &sb->particle_count);
    for (int32_t k = 0; k < sb->particle_count; ++k) io_i32(io, sb->particles + k);
    io_i32(io, &sb->edge_count);
    for (int32_t k = 0; k < 2 * sb->edge_count; ++k) io_i32(io, sb->edges + k);
  }
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('C', 'T', 'Y', 'P'), "constraint types");
  int32_t type_count = types->count;
  io_i32(io, &type_count);
  for (int32_t i = 0; i < types->count; ++i) sn_io_type_record(io, types->records + i);
  sn_io_end(io, s);

  s = sn_io_begin(io, SN_TAG('C', 'O', 'N', 'S'), "constraints");
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
  sn_io_end(io, s);

  /* format 6: the sensors' overlaps as the last step found them (the next
   * step's events are the difference) */
  s = sn_io_begin(io, SN_TAG('S', 'E', 'N', 'S'), "sensor overlaps");
  io_i32(io, &w->sensor_overlaps.count);
  for (int32_t i = 0; i < w->sensor_overlaps.count; ++i) sn_io_sensor_overlap(io, w->sensor_overlaps.data + i);
  sn_io_end(io, s);

  /* total size in the header, then the checksum of everything so far */
  uint64_t size = (uint64_t)io->pos + SN_SNAPSHOT_TRAILER_BYTES;
  if (io->out != NULL) {
    for (int i = 0; i < 8; ++i) io->out[total_at + (size_t)i] = (uint8_t)(size >> (8 * i));
  }
  uint64_t sum = io->out != NULL ? sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, io->out, io->pos) : 0;
  io_u64(io, &sum);
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
