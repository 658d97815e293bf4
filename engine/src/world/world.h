/* The world (internal): the world struct and what every module needs of it
 * (locking, errors, handles). Objects live in arrays indexed by their
 * handle's index; freed slots go on a free list and bump a generation. Each
 * object's struct is in its module's header (rigid/body.h, rigid/shape.h,
 * collision/contact.h, soft/particle.h, constraints/constraint.h); hot
 * solver state is copied into contiguous arrays each step (rigid/solver.h,
 * the step: world/step.c). */
#ifndef SN_WORLD_WORLD_H
#define SN_WORLD_WORLD_H

#include <stdarg.h>
#include <stddef.h>

#include "sinew/sinew.h"

#include "base/alloc.h"
#include "base/array.h"
#include "base/pair_set.h"
#include "base/pool.h"
#include "base/tasks.h"
#include "collision/contact.h"
#include "collision/continuous.h"
#include "collision/tree.h"
#include "constraints/constraint.h"
#include "geometry/geometry.h"
#include "platform/platform.h" /* SN_PRINTF */
#include "rigid/body.h"
#include "rigid/contact_wide.h"
#include "rigid/shape.h"
#include "soft/particle.h"
#include "soft/xpbd_schedule.h"
#include "world/sensor.h"
#include "world/world_settings.h"

#define SN_NULL_INDEX (-1)

typedef struct sn_world {
  sn_mem mem;
  uint16_t tag; ///< 1..SN_WORLD_TAG_COUNT, from the process-wide tag counter (world.c) or a snapshot
  /// Lock depth: sn_world_step and every callback the engine runs into user
  /// or plugin code (query and debug-draw callbacks, constraint hooks) hold
  /// one, so nested calls nest. While it is nonzero every call that changes
  /// the world refuses with SN_ERR_WORLD_LOCKED (sn_world_locked_error).
  int32_t locked;
  bool stepping; ///< inside sn_world_step: reads that walk the world (queries, drawing, snapshots) refuse too
  bool use_avx2; ///< the contact kernel may run 8 lanes wide (results identical either way)
  sn_world_settings settings;    ///< gravity, substeps, ... (world/world_settings.h)
  int32_t reused_manifold_count; ///< last step (counters)

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
  int32_t worker_count;       ///< threads a step may use (base/tasks.c)
  int32_t parallel_min_items; ///< smaller steps stay on one thread (SN_PARALLEL_MIN_ITEMS; tests lower it)
  sn_world_profile profile;   ///< the last step's stage times (sn_world_get_profile)
  int32_t toi_ahead_rest;     ///< steps continuous collision skips its sweeps ahead (no result depends on it)
  int32_t loop_workers;       ///< last step: workers its substep loop ran on (SN_LOOP_PARALLEL_FACTOR)
  /// The substep loop's measured cost (ms per solver contact, a running
  /// mean; 0 not measured yet) on the calling thread alone [0] and on the
  /// workers [1], for the contact counts where either may be faster
  /// (SN_LOOP_MEASURE_FACTOR); loop_probe counts those steps. Speed only:
  /// the loop gives the same bits either way.
  float loop_cost[2];
  int32_t loop_probe;
  int32_t toi_ahead_held;    ///< last step: sweeps ahead taken in turn that had met fast bodies handled before
  int32_t toi_ahead_redone;  ///< last step: sweeps ahead dropped (one of those was stopped), swept in turn
  int32_t toi_groups;        ///< last step: groups of fast bodies sharing tree descents (continuous.c)
  int32_t toi_kept_leaves;   ///< last step: tree leaves those groups kept
  bool toi_spatial;          ///< last step: those groups followed Morton order, not body order
  bool toi_ungrouped;        ///< tests: each fast body queries the trees itself (no result depends on it)
  bool solve_batches_off;    ///< tests: the contacts colour-major always (no result depends on it)
  int32_t solve_batches;     ///< last step: batches of awake bodies solved alone (sn_wide_batches), or 0
  int32_t pair_groups;       ///< last step: groups of moved shapes sharing tree descents (contact.c)
  bool pair_spatial;         ///< last step: those groups followed Morton order, not move-buffer order
  bool pair_ungrouped;       ///< tests: each moved shape queries the trees itself (no result depends on it)
  double profile_clock;      ///< ms: when the solver starts, then when it ended (stages meet)
  sn_task_system tasks;      ///< the task callbacks and their stall backoff (base/tasks.c)
  uint32_t xpbd_topology;    ///< bumped when a constraint comes or goes, or a body is disabled or enabled (the XPBD
                             ///< schedule and the joints' levels follow)
  uint32_t xpbd_param_edits; ///< bumped when a constraint's params change (same_params follows)
  sn_xpbd_schedule xpbd;     ///< colours of the batched XPBD types
  bool xpbd_batch_off;       ///< internal (tests): solve every XPBD type per item
  bool joint_lanes_off;      ///< internal (tests): joint calls never say their items are independent
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
  SN_ARRAY(int32_t) body_solver_index; ///< per body slot: 2 x its solver index this step + 1 if it can move, or -1
  /* the last step's contact colouring, kept while the solver contacts and
   * their keys stay the same (rigid/solver.c): a pure function of them */
  SN_ARRAY(int32_t) wide_cache_contacts;
  SN_ARRAY(sn_wide_key) wide_cache_keys;
  SN_ARRAY(int32_t) wide_cache_lanes;
  int32_t wide_cache_color_first[66];
  int32_t wide_cache_groups, wide_cache_bodies;
  bool wide_cache_valid;
  bool wide_cache_batching; ///< it was built with batches allowed (sn_build_wide_set)
  /* its batches (0: colour-major, sn_wide_set): their bodies' runs, each
   * batch's first run, each batch's colours' first groups */
  int32_t wide_cache_batch_count;
  SN_ARRAY(int32_t) wide_cache_batch_runs;
  SN_ARRAY(int32_t) wide_cache_batch_run_first;
  SN_ARRAY(int32_t) wide_cache_batch_groups;
  SN_ARRAY(int32_t) contact_colors;    ///< graph colour of each solver contact
  SN_ARRAY(uint64_t) body_color_masks; ///< colours used by each solver body
  SN_ARRAY(uint8_t) contact_status;    ///< narrowphase result per contact (contact.c)
  SN_ARRAY(sn_stage) stages;           ///< the substep loop's stage list (world/step.c)
  SN_ARRAY(int32_t) list_counts;       ///< per block: solver contacts found (rigid/solver.c)

  /* events of the last step: untouched until the next step starts, so a
   * caller may loop over them while it destroys things */
  SN_ARRAY(sn_contact_begin_event) begin_events;
  /// end_events: the last step's. pending_end_events: those raised between
  /// steps (a touching body or shape destroyed, ...), published by the next
  /// step ahead of its own (copied into end_events there).
  SN_ARRAY(sn_contact_end_event) end_events, pending_end_events;
  SN_ARRAY(sn_contact_hit_event) hit_events;
  SN_ARRAY(sn_body_move_event) body_events; ///< the last step's moved bodies (step.c)

  /* user callbacks (never saved): sn_world_set_custom_filter, sn_world_set_pre_solve */
  sn_custom_filter_fcn *custom_filter;
  void *custom_filter_context;
  sn_pre_solve_fcn *pre_solve;
  void *pre_solve_context;

  /* sensors (world/sensor.c): the overlaps the last step found, sorted by
   * sensor then visitor; the next step's, built in its first part; the
   * last step's events and the next ones; end events raised between steps */
  int32_t sensor_count;            ///< live sensor shapes (the pass is skipped at 0 with nothing to end)
  SN_ARRAY(int32_t) sensor_shapes; ///< their indices in order, listed again by the pass when not sensor_shapes_valid
  bool sensor_shapes_valid;        ///< cleared when a sensor shape comes or goes
  SN_ARRAY(sn_aabb) sensor_soft_boxes; ///< the pass's box of each soft body's particles
  SN_ARRAY(sn_sensor_overlap) sensor_overlaps, sensor_next;
  SN_ARRAY(sn_sensor_begin_touch_event) sensor_begin_events, sensor_begin_next;
  SN_ARRAY(sn_sensor_end_touch_event) sensor_end_events, sensor_end_next;

  /* limits (sn_world_def.max_*): live objects past them are refused */
  int32_t max_bodies, max_shapes, max_contacts, max_particles, max_soft_bodies, max_constraints;
  int32_t contact_limit_hits; ///< last step: searches for contacts max_contacts cut short (counters)
  bool extents_stale;         ///< some body's max_extent waits for sn_body_refresh_extents
  int64_t shape_visits;       ///< shapes visited by shape-list walks and mass sums (tests: adding one is O(1))

  /* the application's: material mixing callbacks (sn_world_set_friction_callback)
   * and the world's user data */
  sn_friction_fcn *friction_fcn;
  void *friction_context;
  sn_restitution_fcn *restitution_fcn;
  void *restitution_context;
  void *user_data;

  float last_dt; ///< dt of the last step (reactions)
  int32_t island_count;
  int32_t awake_body_count;
  /// Some moving body may be asleep: set where a body falls asleep
  /// (sn_body_put_to_sleep) or is created or restored asleep, and made exact
  /// by sn_gather_awake_bodies. Without one, sn_wake_joined has nothing to
  /// wake and skips its pass over the constraints.
  bool bodies_may_sleep;
  char last_error[256];

  /* continuous collision's notes of the step's motions (collision/continuous.h) */
  bool toi_unfiltered; ///< tests: no candidate passed over by the noted motions (no result depends on it)
  int32_t toi_passed;  ///< last step: candidates passed over by the noted motions (sweeps in turn)
  bool toi_notes;      ///< this step's write back notes the motions (sn_toi_begin_notes)
  bool toi_had_fast;   ///< the last step had fast bodies: this one notes the motions (memory for them)
  uint32_t toi_stamp;  ///< the stamp of this step's notes in toi_owners (0: none yet)
  SN_ARRAY(sn_toi_motion) toi_motions; ///< per awake index: its motion (sn_toi_note_body)
  SN_ARRAY(sn_toi_owner) toi_owners;   ///< per shape: whose motion (count: the entries set up)
} sn_world;

/// Distinct world tags the tag counter hands out (1..65535; 0 is never a tag).
#define SN_WORLD_TAG_COUNT 65535u

/// Takes a lock (see sn_world.locked) around a callback into user or plugin code.
static inline void sn_world_lock(sn_world *w) { w->locked += 1; }
static inline void sn_world_unlock(sn_world *w) { w->locked -= 1; }

/// Records SN_ERR_WORLD_LOCKED for the call `what`, saying whether a step or
/// a callback holds the lock, and returns it.
sn_result sn_world_locked_error(sn_world *w, const char *what);

/// Records the message of the last error and returns code.
sn_result sn_world_error(sn_world *w, sn_result code, const char *fmt, ...) SN_PRINTF(3, 4);

/// SN_OK if *value (of setting `index`'s type, SN_SETTING_<name>) is finite
/// and within the table's range; else SN_ERR_NOT_FINITE or
/// SN_ERR_INVALID_ARGUMENT with the reason written to msg (may be NULL):
/// "substeps 65 outside [1, 64]".
sn_result sn_world_setting_check(int32_t index, const void *value, char *msg, size_t cap);
/// The same for every setting, NaN and Inf of any before any range.
sn_result sn_world_settings_check(const sn_world_settings *settings, char *msg, size_t cap);

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

/// X(id, name): the plugin callbacks sn_world_def.check_plugins watches,
/// SN_CALLBACK_<id>, and the name sn_frozen_event.callback gives each (the
/// relax pass runs solve_velocity without bias, so it has that name too).
#define SN_PLUGIN_CALLBACKS(X)                                                                                         \
  X(PREPARE, "prepare")                                                                                                \
  X(WARM_START, "warm_start")                                                                                          \
  X(SOLVE_VELOCITY, "solve_velocity")                                                                                  \
  X(RELAX, "solve_velocity")                                                                                           \
  X(PROJECT, "project")                                                                                                \
  X(BEGIN_POSITION, "begin_position")                                                                                  \
  X(SOLVE_POSITION, "solve_position")
typedef enum sn_plugin_callback {
#define SN_X(id, name) SN_CALLBACK_##id,
  SN_PLUGIN_CALLBACKS(SN_X)
#undef SN_X
} sn_plugin_callback;
/// The name of a callback (NULL outside the list).
const char *sn_plugin_callback_name(int32_t callback);
/// The frozen event of a body or particle (slot index), with the culprit the
/// plugin checks found, if any (then cleared).
sn_frozen_event sn_make_frozen_event(sn_world *w, int32_t body, int32_t particle);

#endif /* SN_WORLD_WORLD_H */
