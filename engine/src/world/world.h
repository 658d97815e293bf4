/* The world and its objects (internal). Objects live in arrays indexed by
 * their handle's index; freed slots go on a free list and bump a generation.
 * Hot solver state is copied into contiguous arrays each step (rigid/solver.h). */
#ifndef SN_WORLD_WORLD_H
#define SN_WORLD_WORLD_H

#include <stdarg.h>
#include <stddef.h>

#include "sinew/sinew.h"

#include "collision/manifold.h"
#include "collision/tree.h"
#include "base/alloc.h"
#include "base/array.h"
#include "base/pair_set.h"
#include "base/tasks.h"
#include "geometry/geometry.h"
#include "platform/platform.h" /* SN_PRINTF */

#define SN_NULL_INDEX (-1)

/// Contact edge key: (contact index << 1) | side (0 = shape A's body, 1 = B's).
#define SN_EDGE_KEY(contact, side) (((contact) << 1) | (side))

typedef struct sn_body {
  sn_body_type type;
  uint16_t generation;
  bool in_use;
  bool is_awake;
  bool enable_sleep;
  bool is_bullet;
  bool fixed_rotation;
  bool is_fast; ///< moved far this step: continuous collision candidate
  bool frozen;  ///< state went non-finite: kept out of the solver until teleported
  /// check_plugins: the plugin callback that first made this step's state
  /// non-finite (sn_plugin_callback + 1, 0 none) and its constraint slot
  uint8_t blamed_callback;
  int32_t blamed_constraint;

  sn_transform xf;      ///< body origin
  sn_vec2 center;       ///< world centre of mass
  sn_vec2 center0;      ///< centre of mass at the start of the step
  sn_rot q0;            ///< rotation at the start of the step
  sn_vec2 local_center; ///< centre of mass in the body frame
  sn_vec2 v;            ///< velocity of the centre of mass
  float w;
  sn_vec2 force;
  float torque;

  float mass, inv_mass;
  float inertia, inv_inertia; ///< about the centre of mass
  float min_extent, max_extent;
  float linear_damping, angular_damping, gravity_scale;
  float sleep_time;
  /// continuous collision, within a step: the fraction of the step's motion
  /// a fast body kept (1 until the continuous pass stops it earlier)
  float toi_fraction;
  sn_vec2 sleep_v; ///< velocity when the sleep timer last started (a body whose
  float sleep_w;   ///< velocity changes since then is accelerating: no sleep)

  int32_t shape_list; ///< first shape, linked by sn_shape.next
  int32_t shape_tail; ///< last shape of the list: a hint, checked before use (sn_shape_alloc)
  int32_t shape_count;
  /* The shapes' mass, first moment and inertia about the origin summed in
   * list order, as sn_body_update_mass sums them: a shape appended to the
   * list adds its share (same bits as summing again). Valid while
   * mass_sums_valid (cleared when a shape leaves or changes density). */
  float mass_sum, inertia_sum;
  sn_vec2 moment_sum;
  bool mass_sums_valid;
  bool extent_stale;    ///< max_extent waits for sn_body_refresh_extents (the centre of mass moved)
  int32_t contact_list; ///< first edge key, SN_NULL_INDEX if none
  int32_t contact_count;
  int32_t sleep_next;   ///< next body of the same sleeping island
  int32_t solver_index; ///< index in the step's solver arrays, or SN_NULL_INDEX
  int32_t next_free;
  void *user_data;
} sn_body;

typedef struct sn_shape {
  sn_geometry geom;
  int32_t body;
  int32_t next; ///< next shape of the same body
  int32_t next_free;
  int32_t proxy; ///< node in the world's tree for its body type
  int32_t chain; ///< owning chain, or SN_NULL_INDEX
  uint16_t generation;
  bool in_use;
  bool is_static_tree; ///< proxy lives in the static tree
  bool enlarged;       ///< proxy moved: look for new pairs next step
  bool escaped;        ///< the step's write back found the AABB outside the fat one
  bool enable_contact_events;
  bool enable_hit_events;
  float density, friction, restitution;
  uint64_t category_bits, mask_bits;
  sn_aabb aabb;     ///< tight, current
  sn_aabb fat_aabb; ///< as stored in the tree
  void *user_data;
} sn_shape;

typedef struct sn_chain {
  int32_t body;
  int32_t first_shape; ///< shapes of a chain are created consecutively in a list
  int32_t *shapes;
  int32_t shape_count;
  uint16_t generation;
  bool in_use;
  int32_t next_free;
} sn_chain;

typedef struct sn_contact_edge {
  int32_t body;
  int32_t prev_key, next_key;
} sn_contact_edge;

enum {
  SN_CONTACT_TOUCHING = 1u << 0,
  SN_CONTACT_ENABLE_EVENTS = 1u << 1,
  SN_CONTACT_ENABLE_HIT = 1u << 2,
  SN_CONTACT_HAS_REFERENCE = 1u << 3, ///< reference holds the last computed manifold (contact.c)
};

/// What the contact colouring needs of a solver contact (solver.c,
/// rigid/contact_wide.c): its solver bodies (the static slot for bodies that
/// are not awake) and which of them the contact can change.
typedef struct sn_wide_key {
  int32_t ia, ib;
  uint32_t dynamic; ///< bit 0: body a can move, bit 1: body b
} sn_wide_key;

/// The manifold as last computed, in the bodies' frames: the relative pose
/// of B in A's frame then, the normal in A's frame and each point's surface
/// points on A (A's frame) and on B (B's frame). While the smaller body has
/// moved less than the world's contact_reuse_distance in the other's frame
/// since then, the manifold keeps its features and the points move with the
/// bodies (contact.c).
typedef struct sn_contact_reference {
  sn_transform relative;
  sn_vec2 normal;
  sn_vec2 local_a[2], local_b[2];
} sn_contact_reference;

typedef struct sn_contact {
  int32_t shape_a, shape_b;
  sn_contact_edge edges[2];
  sn_manifold manifold;
  sn_simplex_cache cache;
  sn_contact_reference reference; ///< valid with SN_CONTACT_HAS_REFERENCE
  float friction, restitution;
  uint32_t flags;
  bool in_use;
  int32_t next_free;
} sn_contact;

typedef struct sn_constraint {
  const sn_constraint_type *type; ///< the registry's copy
  void *params, *instance;        ///< aligned inside params_block / instance_block
  void *params_block, *instance_block;
  size_t params_bytes, instance_bytes;
  int32_t bodies[SN_MAX_CONSTRAINT_BODIES];
  int32_t *particles; ///< particle indices (particle_count), world memory
  int32_t particle_count;
  float break_force;
  bool collide_connected;
  void *user_data;
  uint16_t generation;
  bool in_use;
  int32_t next_free;
} sn_constraint;

/// A particle of a soft body.
typedef struct sn_particle {
  sn_vec2 x;      ///< position
  sn_vec2 v;      ///< velocity
  sn_vec2 target; ///< kinematic target for the next step
  float mass, inv_mass, radius;
  int32_t soft; ///< owning soft body
  int32_t next_free;
  void *user_data;
  uint16_t generation;
  bool in_use;
  bool kinematic;
  bool has_target;
  bool frozen;             ///< state went non-finite: fixed until teleported
  uint8_t blamed_callback; ///< as sn_body.blamed_callback
  int32_t blamed_constraint;
} sn_particle;

/// A soft body: a material and its particles (indices, creation order).
typedef struct sn_soft_body {
  sn_soft_body_def material;
  int32_t *particles;
  int32_t particle_count, particle_capacity;
  int32_t *edges; ///< collision edges: particle index pairs
  int32_t edge_count, edge_capacity;
  int32_t next_free;
  uint16_t generation;
  bool in_use;
} sn_soft_body;

/// A particle touching a rigid shape or another particle in a substep
/// (candidate pairs are found once per step).
typedef struct sn_particle_pair {
  int32_t particle;
  int32_t other;  ///< shape index (rigid pairs) or particle index
  float lambda;   ///< normal correction of this substep (positional impulse)
  float vn_pre;   ///< approach speed before the substep's position stage
  sn_vec2 normal; ///< from the other to the particle, world frame
  sn_vec2 r;      ///< contact point from the rigid body's centre (rigid pairs)
  int32_t body;   ///< solver index of the rigid body, or the dummy
} sn_particle_pair;

/// One particle-only XPBD type in the XPBD schedule: its constraints are
/// order[first .. first + count) and its colours (levels) the level_start
/// entries [level_first, level_first + level_count].
typedef struct sn_xpbd_range {
  const sn_constraint_type *type;
  int32_t first, count;
  int32_t level_first, level_count;
  size_t params_offset, instance_offset; ///< into the schedule's packs
  uint32_t params_stride, instance_stride;
  bool same_params; ///< every constraint's params equal byte for byte (the batch gets params_stride 0)
} sn_xpbd_range;

/// Colours of the batched XPBD types (those with solve_particles), kept
/// between steps and rebuilt (outside the substeps) when constraints come or
/// go or a particle turns fixed or movable (solver.c, sn_xpbd_schedule_update).
typedef struct sn_xpbd_schedule {
  bool valid;
  bool batch_off;                 ///< w->xpbd_batch_off it was built for
  uint32_t topology;              ///< w->xpbd_topology it was built for
  uint32_t param_edits;           ///< w->xpbd_param_edits the ranges' same_params were found for
  bool same_found;                ///< the ranges' same_params are current for param_edits
  int32_t particle_slots;         ///< w->particles.count it was built for
  int32_t builds;                 ///< times it was (re)built (tests)
  SN_ARRAY(uint8_t) fixed;        ///< per particle slot: 1 = zero inverse mass when built
  SN_ARRAY(int32_t) order;        ///< constraint slots by type, then colour, then creation
  SN_ARRAY(int32_t) indices;      ///< particle indices of order's constraints (particles_per each)
  SN_ARRAY(int32_t) index_start;  ///< per range: first entry in indices
  SN_ARRAY(int32_t) level_start;  ///< per range: level_count + 1 offsets (relative to first)
  SN_ARRAY(sn_xpbd_range) ranges; ///< one per batched type, in order of first appearance
  SN_ARRAY(int32_t) last;         ///< build scratch: per particle slot, level of its last constraint + 1
  SN_ARRAY(int32_t) level;        ///< build scratch: per constraint slot, its level
  /* The batched constraints' params and instances live here, in colour
   * order at a fixed stride per range (64-byte aligned ranges): their
   * constraints' params/instance pointers point in (the ABI lets the host
   * move instances between steps), so a step copies nothing. */
  void *params_block, *instance_block;
  size_t params_bytes, instance_bytes;
  char *params_base, *instance_base; ///< 64-byte aligned inside the blocks
} sn_xpbd_schedule;

/// A batched XPBD type and its first constraint slot (sn_constraint_lists).
typedef struct sn_type_first {
  const sn_constraint_type *type;
  int32_t slot;
} sn_type_first;

/// What the step's scans over every constraint found, kept while the
/// constraint set does not change (constraint.c, sn_constraint_lists_update):
/// rebuilt when w->xpbd_topology moved (a constraint came or went), a break
/// force changed (valid cleared) or the batch switch flipped. A cloth has
/// 10^5 constraints: scanning them all two or three times a step cost more
/// than solving them once.
typedef struct sn_constraint_lists {
  bool valid;
  bool batch_off;                                  ///< w->xpbd_batch_off it was built for
  uint32_t topology;                               ///< w->xpbd_topology it was built for
  SN_ARRAY(int32_t) items;                         ///< in-use constraints of types solved per item, slot order
  SN_ARRAY(int32_t) breakable;                     ///< in-use constraints that may break (break force, get_reaction)
  int32_t breakable_endpoints;                     ///< the most bodies and particles of one of them
  SN_ARRAY(sn_type_first) batched;                 ///< batched types (solve_particles), in order of first slot
  SN_ARRAY(const sn_constraint_type *) item_types; ///< the types of items, once each
  int32_t items_endpoints;                         ///< the items' bodies and particles
  size_t items_packed;                             ///< their params + instance bytes as sn_solve counts them
  int32_t batched_count;                           ///< in-use constraints of batched types (always active)
  int32_t batched_endpoints;                       ///< their particles
  size_t batched_packed;                           ///< their params + instance bytes as sn_solve counts them
} sn_constraint_lists;

typedef struct sn_world {
  sn_mem mem;
  uint16_t tag; ///< 1..SN_WORLD_TAG_COUNT, from the process-wide tag counter (world.c) or a snapshot
  /// Lock depth: sn_world_step and every callback the engine runs into user
  /// or plugin code (query and debug-draw callbacks, constraint hooks) hold
  /// one, so nested calls nest. While it is nonzero every call that changes
  /// the world refuses with SN_ERR_WORLD_LOCKED (sn_world_locked_error).
  int32_t locked;
  bool stepping; ///< inside sn_world_step: reads that walk the world (queries, drawing, snapshots) refuse too
  bool enable_sleep;
  bool enable_continuous;
  bool use_avx2; ///< the contact kernel may run 8 lanes wide (results identical either way)
  sn_vec2 gravity;
  int32_t substeps;
  int32_t position_iterations; ///< joint projection sweeps per substep (0 = off)
  float contact_hertz, contact_damping_ratio, contact_push_max_velocity;
  float contact_reuse_distance;  ///< sn_world_def.contact_reuse_distance (0: off)
  int32_t reused_manifold_count; ///< last step (counters)
  float restitution_threshold, hit_event_threshold, max_linear_speed;

  SN_ARRAY(sn_body) bodies;
  int32_t body_free;
  int32_t body_count;
  SN_ARRAY(sn_shape) shapes;
  int32_t shape_free;
  int32_t shape_count;
  SN_ARRAY(sn_chain) chains;
  int32_t chain_free;
  SN_ARRAY(sn_contact) contacts;
  int32_t contact_free;
  int32_t contact_count;

  SN_ARRAY(sn_particle) particles;
  int32_t particle_free;
  int32_t particle_count;
  SN_ARRAY(sn_soft_body) soft_bodies;
  int32_t soft_free;
  int32_t soft_count;
  int32_t soft_iterations;
  SN_ARRAY(sn_particle_pair) particle_shape_pairs; ///< per-step candidates
  SN_ARRAY(sn_particle_pair) particle_pairs;       ///< per-step particle-particle candidates
  SN_ARRAY(sn_particle_pair) edge_pairs;           ///< per-step particle-edge candidates (other, body = edge ends)
  int32_t particle_contact_count;                  ///< touching in the last substep
  sn_scratch hash_scratch;                         ///< spatial hash: cell entries (kept between steps)
  sn_scratch hash_input;                           ///< spatial hash: points, reaches, owners
  SN_ARRAY(int32_t) hash_pairs;                    ///< spatial hash: pairs found
  /// per-step: (body << 32 | particle) of every particle joined to a rigid
  /// body by a constraint without collide_connected, sorted: that particle
  /// does not collide with that body's shapes (soft_step.c)
  SN_ARRAY(uint64_t) joined_particles;
  /// per-step, per soft body slot: how far its fastest particle moves in the
  /// step (kinematic: to its target), the reach its constraints may drag any
  /// of its particles (soft_step.c)
  SN_ARRAY(float) soft_motion;
  SN_ARRAY(sn_constraint) constraints;
  int32_t constraint_free;
  int32_t constraint_count;
  const sn_registry *registry;
  int32_t worker_count;            ///< threads a step may use (base/tasks.c)
  int32_t parallel_min_items;      ///< smaller steps stay on one thread (SN_PARALLEL_MIN_ITEMS; tests lower it)
  int32_t solo_runs, solo_backoff; ///< stage runs left to do alone after a helper stalled (tasks.c)
  int64_t helper_blocks;           ///< blocks run by helpers so far (tests, statistics)
  sn_world_profile profile;        ///< the last step's stage times (sn_world_get_profile)
  double profile_clock;            ///< ms: when the solver starts, then when it ended (stages meet)
  sn_enqueue_task_callback *enqueue_task;
  sn_finish_task_callback *finish_task;
  void *user_task_context;
  uint32_t xpbd_topology;    ///< bumped when a constraint comes or goes (the XPBD schedule follows)
  uint32_t xpbd_param_edits; ///< bumped when a constraint's params change (same_params follows)
  sn_xpbd_schedule xpbd;     ///< colours of the batched XPBD types
  bool xpbd_batch_off;       ///< internal (tests): solve every XPBD type per item
  bool check_plugins;        ///< sn_world_def.check_plugins: each callback one item at a time, states checked after
  bool xpbd_scalar;          ///< internal (tests): batch kernels without SIMD
  sn_constraint_lists constraint_lists; ///< the step's constraint scans, cached
  SN_ARRAY(sn_constraint_broken_event) broken_events;
  SN_ARRAY(sn_frozen_event) frozen_events;

  sn_tree static_tree;
  sn_tree dynamic_tree;
  sn_pair_set pairs;             ///< shape pair -> contact (SN_PAIR_PENDING while a step finds it, contact.c)
  sn_pair_set joined;            ///< body pair -> number of non-colliding constraints joining them
  SN_ARRAY(int32_t) move_buffer; ///< shapes whose proxies moved
  /// per-step: the shape pairs (two entries each) the step makes contacts
  /// for, in that order (sn_find_new_pairs)
  SN_ARRAY(int32_t) new_pairs;
  int32_t step_limit_hits; ///< per-step: contact_limit_hits so far
  /* counts the step's reservations read (kept by contact.c, rebuilt by a
   * snapshot load): in-use contacts with events, those of them touching,
   * in-use contacts with hit events, and over non-static bodies the
   * contacts past SN_COLOR_FREE_CONTACTS each */
  int32_t event_contacts, touching_event_contacts, hit_contacts;
  int32_t contact_excess;

  /* per-step scratch (kept between steps to avoid reallocation) */
  sn_arena arena;
  SN_ARRAY(int32_t) awake_bodies;      ///< body indices in solver order
  SN_ARRAY(int32_t) active_contacts;   ///< contacts with an awake body
  SN_ARRAY(int32_t) solver_contacts;   ///< touching contacts solved this step
  SN_ARRAY(sn_wide_key) solver_keys;   ///< their bodies, for the colouring
  SN_ARRAY(int32_t) body_solver_index; ///< per body slot: its solver index this step (compact copy)
  /* the last step's contact colouring, kept while the solver contacts and
   * their keys stay the same (solver.c): a pure function of them */
  SN_ARRAY(int32_t) wide_cache_contacts;
  SN_ARRAY(sn_wide_key) wide_cache_keys;
  SN_ARRAY(int32_t) wide_cache_lanes;
  int32_t wide_cache_color_first[66];
  int32_t wide_cache_groups, wide_cache_bodies;
  bool wide_cache_valid;
  SN_ARRAY(int32_t) contact_colors;    ///< graph colour of each solver contact
  SN_ARRAY(uint64_t) body_color_masks; ///< colours used by each solver body
  SN_ARRAY(uint8_t) contact_status;    ///< narrowphase result per contact (contact.c)
  SN_ARRAY(sn_stage) stages;           ///< the substep loop's stage list (solver.c)
  SN_ARRAY(int32_t) list_counts;       ///< per block: solver contacts found (solver.c)

  /* events of the last step: untouched until the next step starts, so a
   * caller may loop over them while it destroys things */
  SN_ARRAY(sn_contact_begin_event) begin_events;
  /// end_events: the last step's. pending_end_events: those raised between
  /// steps (a touching body or shape destroyed, ...), published by the next
  /// step ahead of its own (copied into end_events there).
  SN_ARRAY(sn_contact_end_event) end_events, pending_end_events;
  SN_ARRAY(sn_contact_hit_event) hit_events;

  /* limits (sn_world_def.max_*): live objects past them are refused */
  int32_t max_bodies, max_shapes, max_contacts, max_particles, max_soft_bodies, max_constraints;
  int32_t contact_limit_hits; ///< last step: searches for contacts max_contacts cut short (counters)
  bool extents_stale;         ///< some body's max_extent waits for sn_body_refresh_extents
  int64_t shape_visits;       ///< shapes visited by shape-list walks and mass sums (tests: adding one is O(1))

  float last_dt; ///< dt of the last step (reactions)
  int32_t island_count;
  int32_t awake_body_count;
  char last_error[256];
} sn_world;

/// A body's contacts up to this many can never land in the colouring's
/// overflow (a contact overflows when its two dynamic bodies use all 64
/// colours between them, so one of them has at least 32 coloured contacts):
/// the overflow is at most w->contact_excess (solver.c sizes the step by it).
#define SN_COLOR_FREE_CONTACTS 32

/// Distinct world tags the tag counter hands out (1..65535; 0 is never a tag).
#define SN_WORLD_TAG_COUNT 65535u

/// A slot whose generation reached this is retired when freed: the next
/// creation would wrap its generation and make old ids of the slot valid
/// again. It stays free forever, off the free list (SN_SLOT_RELEASE).
#define SN_GENERATION_SPENT UINT16_MAX

/// Puts the freed slot `index` of `array` on the free list `head`, or
/// retires it (next_free null, off the list) if its generation is spent.
#define SN_SLOT_RELEASE(array, head, index)                                                                            \
  do {                                                                                                                 \
    int32_t slot_ = (index);                                                                                           \
    if ((array).data[slot_].generation == SN_GENERATION_SPENT) {                                                       \
      (array).data[slot_].next_free = SN_NULL_INDEX;                                                                   \
    } else {                                                                                                           \
      (array).data[slot_].next_free = (head);                                                                          \
      (head) = slot_;                                                                                                  \
    }                                                                                                                  \
  } while (0)

/// Takes a lock (see sn_world.locked) around a callback into user or plugin code.
static inline void sn_world_lock(sn_world *w) { w->locked += 1; }
static inline void sn_world_unlock(sn_world *w) { w->locked -= 1; }

/// Records SN_ERR_WORLD_LOCKED for the call `what`, saying whether a step or
/// a callback holds the lock, and returns it.
sn_result sn_world_locked_error(sn_world *w, const char *what);

/// Records the message of the last error and returns code.
sn_result sn_world_error(sn_world *w, sn_result code, const char *fmt, ...) SN_PRINTF(3, 4);

/// The slot a handle names in an array of count elements of elem_size
/// bytes whose in_use (bool) and generation (uint16_t) sit at the given
/// offsets; NULL with *code set and the error recorded (naming `kind`) for a
/// NULL world (SN_ERR_NULL), a null or stale handle (SN_ERR_STALE_ID) or one
/// of another world or out of range (SN_ERR_FOREIGN_ID). One check for every
/// kind of handle; use SN_RESOLVE.
void *sn_resolve_handle(sn_world *w, const char *kind, int32_t index1, uint16_t tag, uint16_t generation, void *data,
                        int32_t count, size_t elem_size, size_t in_use_offset, size_t generation_offset,
                        sn_result *code);
#define SN_RESOLVE(w, array, type, kind, id, code)                                                                     \
  ((type *)sn_resolve_handle((w), (kind), (id).index1, (id).world_tag, (id).generation,                                \
                             (w) != NULL ? (void *)(w)->array.data : NULL, (w) != NULL ? (w)->array.count : 0,         \
                             sizeof(type), offsetof(type, in_use), offsetof(type, generation), (code)))

/// Resolves handles; NULL (with the error recorded) if stale or foreign.
sn_body *sn_get_body(sn_world *w, sn_body_id id, sn_result *code);
sn_shape *sn_get_shape(sn_world *w, sn_shape_id id, sn_result *code);

static inline sn_body_id sn_make_body_id(const sn_world *w, int32_t index) {
  return (sn_body_id){index + 1, w->tag, w->bodies.data[index].generation};
}
static inline sn_shape_id sn_make_shape_id(const sn_world *w, int32_t index) {
  return (sn_shape_id){index + 1, w->tag, w->shapes.data[index].generation};
}
static inline sn_particle_id sn_make_particle_id(const sn_world *w, int32_t index) {
  return (sn_particle_id){index + 1, w->tag, w->particles.data[index].generation};
}
static inline sn_soft_body_id sn_make_soft_body_id(const sn_world *w, int32_t index) {
  return (sn_soft_body_id){index + 1, w->tag, w->soft_bodies.data[index].generation};
}
sn_particle *sn_get_particle(sn_world *w, sn_particle_id id, sn_result *code);

/// The plugin callbacks sn_world_def.check_plugins watches (names: sn_plugin_callback_name).
typedef enum sn_plugin_callback {
  SN_CALLBACK_PREPARE,
  SN_CALLBACK_WARM_START,
  SN_CALLBACK_SOLVE_VELOCITY,
  SN_CALLBACK_RELAX,
  SN_CALLBACK_PROJECT,
  SN_CALLBACK_BEGIN_POSITION,
  SN_CALLBACK_SOLVE_POSITION
} sn_plugin_callback;
const char *sn_plugin_callback_name(int32_t callback);
/// The frozen event of a body or particle (slot index), with the culprit the
/// plugin checks found, if any (then cleared).
sn_frozen_event sn_make_frozen_event(sn_world *w, int32_t body, int32_t particle);

/* body.c */
/// Mass, centre of mass, inertia and extents from all the body's shapes.
void sn_body_update_mass(sn_world *w, sn_body *b);
/// The same after shape_index was appended to the body's list: O(1) while
/// the body's running sums are valid (the same bits as sn_body_update_mass),
/// max_extent then left to sn_body_refresh_extents.
void sn_body_add_shape_mass(sn_world *w, sn_body *b, int32_t shape_index);
/// Brings every body's max_extent up to date (before anything reads it: the
/// step's first stage, a snapshot).
void sn_body_refresh_extents(sn_world *w);
void sn_body_wake(sn_world *w, int32_t body_index);
void sn_body_put_to_sleep(sn_world *w, int32_t first_body);

/* shape.c */
/// Inserts the shape into the tree of its body type. False (no proxy, nothing
/// changed) if the tree cannot grow.
bool sn_shape_create_proxy(sn_world *w, int32_t shape_index);
void sn_shape_destroy_proxy(sn_world *w, int32_t shape_index);
/// Moves the proxies of all shapes of a body into the static or the dynamic
/// tree, all or nothing: false (nothing changed) if memory runs out.
bool sn_shape_move_proxies(sn_world *w, int32_t body_index, bool to_static);
/// Recomputes tight AABB from the body transform; re-fattens the proxy if needed.
void sn_shape_update_aabb(sn_world *w, int32_t shape_index, sn_transform xf, bool force_move);
/// The first half of sn_shape_update_aabb, safe on many shapes at once: the
/// tight AABB only; true if it left the fat one (then sn_shape_move_proxy).
bool sn_shape_compute_aabb(sn_world *w, int32_t shape_index, sn_transform xf);
/// The second half: re-fattens the proxy, moves it in its tree, queues it
/// for new pairs (one thread).
void sn_shape_move_proxy(sn_world *w, int32_t shape_index);
void sn_shape_destroy_internal(sn_world *w, int32_t shape_index, bool wake);

/* contact.c */
bool sn_should_shapes_collide(const sn_world *w, const sn_shape *a, const sn_shape *b);
void sn_contact_destroy(sn_world *w, int32_t contact_index, bool wake);
/// Pair finding from the move buffer into w->new_pairs (after the dynamic
/// tree's sn_tree_rebuild_moved), changing nothing a caller sees; false on OOM.
bool sn_find_new_pairs(sn_world *w);
/// Takes back what sn_find_new_pairs did (a step that failed).
void sn_forget_new_pairs(sn_world *w);
/// Room in the contact array for the new pairs' contacts; false on OOM.
bool sn_reserve_new_contacts(sn_world *w);
/// Makes the contacts of the new pairs (room reserved: no allocation).
void sn_create_new_pairs(sn_world *w);
/// Manifold update of active contacts, begin and end events (everything
/// reserved: no allocation).
void sn_update_contacts(sn_world *w);

/* soft/particle.c */
void sn_soft_destroy_all(sn_world *w);

/* solver.c */
/// Everything the step needs from here on (sn_update_contacts, sn_solve,
/// breaking, sleep, events), reserved before any of it runs: after the new
/// pairs are found, before their contacts are made. False on OOM; nothing a
/// caller sees has changed then.
bool sn_solve_reserve(sn_world *w, float dt);
/// The solver (memory reserved by sn_solve_reserve: no allocation).
void sn_solve(sn_world *w, float dt);

/* constraints/constraint.c */
void sn_constraints_destroy_all(sn_world *w);
/// Destroys the constraints attached to a body (when the body goes).
void sn_constraints_destroy_for_body(sn_world *w, int32_t body_index);
/// Moves every params/instance blob to fresh memory (memcpy), as the host
/// may do when compacting or snapshotting; tests use it to hold plugins to
/// the relocatable-instance contract. Returns false on OOM (nothing moved).
bool sn_constraints_relocate(sn_world *w);
/// Destroys every constraint joining a particle i with mark[i] != 0.
void sn_constraints_destroy_for_particles(sn_world *w, const uint8_t *mark);
/// After a step: breaks constraints whose reaction exceeds their limit (its
/// views in the step's arena: sn_reaction_bytes of the lists'
/// breakable_endpoints, reserved by sn_solve_reserve).
void sn_constraints_check_breaking(sn_world *w, float dt);
/// Arena bytes the reaction of a constraint with that many endpoints needs.
size_t sn_reaction_bytes(int32_t endpoints);
/// Rebuilds w->constraint_lists if the constraint set changed; false when out of memory.
bool sn_constraint_lists_update(sn_world *w);

/* constraints/registry.c */
const sn_host_api *sn_registry_host_api(void);

/* island.c */
void sn_update_sleep(sn_world *w, float dt);

#endif /* SN_WORLD_WORLD_H */
