/* Snapshots (internal): the byte stream and record codecs shared by the
 * writer (snapshot_write.c) and the reader (snapshot_read.c, whose checks
 * are in snapshot_check.c); the files are snapshot_file.c.
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
#ifndef SN_WORLD_SNAPSHOT_CODEC_H
#define SN_WORLD_SNAPSHOT_CODEC_H

#include <math.h>
#include <string.h>

#include "world/snapshot.h"
#include "world/world.h"

#define SN_SNAPSHOT_HEADER_SIZE 40u
extern const uint8_t sn_snapshot_magic[8];

#define SN_TAG(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

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

static inline void io_raw(sn_io *io, void *p, size_t n) {
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

static inline void io_u8(sn_io *io, uint8_t *v) { io_raw(io, v, 1); }

static inline void io_u16(sn_io *io, uint16_t *v) {
  uint8_t b[2] = {(uint8_t)*v, (uint8_t)(*v >> 8)};
  io_raw(io, b, 2);
  if (io->reading) *v = (uint16_t)(b[0] | (b[1] << 8));
}

static inline void io_u32(sn_io *io, uint32_t *v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = (uint8_t)(*v >> (8 * i));
  io_raw(io, b, 4);
  if (io->reading) {
    uint32_t x = 0;
    for (int i = 0; i < 4; ++i) x |= (uint32_t)b[i] << (8 * i);
    *v = x;
  }
}

static inline void io_u64(sn_io *io, uint64_t *v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(*v >> (8 * i));
  io_raw(io, b, 8);
  if (io->reading) {
    uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x |= (uint64_t)b[i] << (8 * i);
    *v = x;
  }
}

static inline void io_i32(sn_io *io, int32_t *v) {
  uint32_t u = (uint32_t)*v;
  io_u32(io, &u);
  if (io->reading) *v = u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 2147483648u) - INT32_MAX - 1;
}

static inline void io_i16(sn_io *io, int16_t *v) {
  uint16_t u = (uint16_t)*v;
  io_u16(io, &u);
  if (io->reading) *v = u <= (uint16_t)INT16_MAX ? (int16_t)u : (int16_t)((int32_t)u - 65536);
}

static inline void io_f32(sn_io *io, float *v) {
  uint32_t u;
  memcpy(&u, v, sizeof u);
  io_u32(io, &u);
  if (io->reading) {
    memcpy(v, &u, sizeof u);
    if (!isfinite(*v)) io->nonfinite = true;
  }
}

static inline void io_bool(sn_io *io, bool *v) {
  uint8_t b = *v ? 1 : 0;
  io_u8(io, &b);
  if (io->reading) {
    if (b > 1) io->bad = true;
    *v = b == 1;
  }
}

static inline void io_vec2(sn_io *io, sn_vec2 *v) {
  io_f32(io, &v->x);
  io_f32(io, &v->y);
}

static inline void io_rot(sn_io *io, sn_rot *q) {
  io_f32(io, &q->c);
  io_f32(io, &q->s);
}

static inline void io_xf(sn_io *io, sn_transform *xf) {
  io_vec2(io, &xf->p);
  io_rot(io, &xf->q);
}

static inline void io_aabb(sn_io *io, sn_aabb *a) {
  io_vec2(io, &a->lower);
  io_vec2(io, &a->upper);
}

/// A count of records that take at least min_bytes each: refused (bad) if
/// negative or if the rest of the section cannot hold them, so a damaged
/// count never makes the reader allocate more than the input's size.
static inline void io_count(sn_io *io, int32_t *n, size_t min_bytes) {
  io_i32(io, n);
  if (!io->reading) return;
  if (*n < 0 || (min_bytes > 0 && (size_t)*n > (io->end - io->pos) / min_bytes)) {
    io->bad = true;
    *n = 0;
  }
}

/// An index in [-1, limit).
static inline void io_index(sn_io *io, int32_t *v, int32_t limit) {
  io_i32(io, v);
  if (io->reading && (*v < SN_NULL_INDEX || *v >= limit)) io->bad = true;
}

/// Slot header shared by every slot array: in use, generation, free link.
static inline void io_slot(sn_io *io, bool *in_use, uint16_t *generation, int32_t *next_free, int32_t count) {
  io_bool(io, in_use);
  io_u16(io, generation);
  io_index(io, next_free, count);
}
#define SN_SLOT_BYTES 7u

/* ------------------------------------------------------------------------ */
/* Records (snapshot_codec.c): each reads when io->reading, else writes      */

void sn_io_world_settings(sn_io *io, sn_world *w);
void sn_io_body(sn_io *io, sn_body *b);
void sn_io_shape(sn_io *io, sn_shape *s);
void sn_io_sensor_overlap(sn_io *io, sn_sensor_overlap *o);
void sn_io_contact(sn_io *io, sn_contact *c);
void sn_io_particle(sn_io *io, sn_particle *p);
void sn_io_material(sn_io *io, sn_soft_body_def *m);

/* ------------------------------------------------------------------------ */
/* Sections                                                                  */

typedef struct sn_section {
  size_t start;     ///< offset of the payload
  size_t outer_end; ///< reading: the enclosing bound
} sn_section;

/// Opens section tag (what names it in messages); sn_io_end closes it.
sn_section sn_io_begin(sn_io *io, uint32_t tag, const char *what);
void sn_io_end(sn_io *io, sn_section s);

/* ------------------------------------------------------------------------ */
/* Constraint types: name + schema                                           */

typedef struct sn_type_record {
  char name[SN_MAX_TYPE_NAME];
  uint32_t flags, body_count, particle_count;
  uint32_t params_size, params_align, instance_size, instance_align, param_count;
  uint64_t param_hash; ///< FNV-1a over every parameter's id, kind and offset
  const sn_constraint_type *type;
} sn_type_record;

void sn_type_record_fill(sn_type_record *r, const sn_constraint_type *t);
void sn_io_type_record(sn_io *io, sn_type_record *r);

/// A broadphase tree: its header, then its nodes (sn_io_tree does both).
void sn_io_tree_header(sn_io *io, sn_tree *t);
void sn_io_tree_nodes(sn_io *io, sn_tree *t);
#define SN_TREE_NODE_MIN_BYTES 6u
void sn_io_tree(sn_io *io, sn_tree *t);

/* ------------------------------------------------------------------------ */
/* Loading (snapshot_read.c)                                                 */

typedef struct sn_loader {
  char *err;
  size_t err_capacity;
  sn_result code;
} sn_loader;

/// Records the first failure (code and message in l->err) and returns the
/// code of the first.
sn_result sn_load_fail(sn_loader *l, sn_result code, const char *fmt, ...) SN_PRINTF(3, 4);

/// Every reference between the objects restored into w (snapshot_check.c);
/// marks: scratch of at least max(bodies, particles) bytes.
sn_result sn_check_world(sn_loader *l, sn_world *w, uint8_t *marks);

#endif /* SN_WORLD_SNAPSHOT_CODEC_H */
