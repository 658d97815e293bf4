/* Sinew: a 2D physics engine for rigid and soft bodies.
 * types.h: value types, handles, definitions and result codes of the public API.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_TYPES_H
#define SINEW_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Version of the library these headers describe.
#define SN_VERSION_MAJOR  0
#define SN_VERSION_MINOR  1
#define SN_VERSION_PATCH  0
#define SN_VERSION_STRING "0.1.0"

/// Most vertices a convex polygon may have.
#define SN_MAX_POLYGON_VERTICES 8

/// Largest coordinate (m) the API accepts for positions (bodies, particles,
/// kinematic targets) and shape geometry: |x|, |y| <= 1e6 m, the range of the
/// shipped joints' anchor parameters. Floats resolve 6 cm there already; far
/// beyond it products of coordinates overflow. Larger values are refused with
/// SN_ERR_INVALID_ARGUMENT.
#define SN_MAX_COORDINATE 1.0e6f

/// Range of dt sn_world_step accepts (s). Outside it 1 / dt or dt * v
/// overflow (a denormal dt, or 3e38 s), so it is refused.
#define SN_MIN_TIME_STEP 1.0e-6f
#define SN_MAX_TIME_STEP 10.0f

/// A 2D vector (metres, or metres per second).
typedef struct sn_vec2 {
  float x, y;
} sn_vec2;

/// A rotation stored as cosine and sine of the angle.
typedef struct sn_rot {
  float c, s;
} sn_rot;

/// A rigid transform: translation p and rotation q.
typedef struct sn_transform {
  sn_vec2 p;
  sn_rot q;
} sn_transform;

/// An axis-aligned bounding box.
typedef struct sn_aabb {
  sn_vec2 lower, upper;
} sn_aabb;

/* ------------------------------------------------------------------------ */
/* Result codes: one X-macro table, stable numeric ids.                       */

/// X(name, id, message) for every result code. Ids never change once released.
#define SN_RESULT_TABLE(X)                                                                                             \
  X(SN_OK, 0, "success")                                                                                               \
  X(SN_ERR_INVALID_ARGUMENT, 1, "an argument is out of range or inconsistent")                                         \
  X(SN_ERR_NOT_FINITE, 2, "a number is NaN or infinite")                                                               \
  X(SN_ERR_NULL, 3, "a required pointer is NULL")                                                                      \
  X(SN_ERR_STALE_ID, 4, "the handle refers to an object that no longer exists")                                        \
  X(SN_ERR_FOREIGN_ID, 5, "the handle belongs to another world or is not a handle at all")                             \
  X(SN_ERR_DEGENERATE_POLYGON, 6, "the polygon has too few distinct points or no area")                                \
  X(SN_ERR_NON_CONVEX_POLYGON, 7, "the polygon is not convex")                                                         \
  X(SN_ERR_TOO_MANY_VERTICES, 8, "more than SN_MAX_POLYGON_VERTICES vertices")                                         \
  X(SN_ERR_OUT_OF_MEMORY, 9, "the allocator returned NULL")                                                            \
  X(SN_ERR_WORLD_LOCKED, 10, "the world is locked: a step or an engine callback is running; call after it returns")    \
  X(SN_ERR_UNINITIALIZED_DEF, 11, "the def was not made by its sn_default_*_def function")                             \
  X(SN_ERR_WRONG_BODY_TYPE, 12, "the operation does not apply to this body type")                                      \
  X(SN_ERR_CAPACITY, 13, "a fixed limit of the engine was reached")                                                    \
  X(SN_ERR_NOT_FOUND, 14, "no such constraint type or parameter")                                                      \
  X(SN_ERR_PLUGIN_OPEN, 15, "the plugin file could not be opened as a shared object")                                  \
  X(SN_ERR_PLUGIN_NO_ENTRY, 16, "the plugin does not export sn_plugin_entry_v1")                                       \
  X(SN_ERR_PLUGIN_ABI_MAJOR, 17, "the plugin was built for another major plugin ABI")                                  \
  X(SN_ERR_PLUGIN_TOO_NEW, 18, "the plugin needs a newer minor plugin ABI than this host")                             \
  X(SN_ERR_PLUGIN_FINGERPRINT, 19, "the plugin was built with other float or pointer sizes")                           \
  X(SN_ERR_PLUGIN_BAD_DESCRIPTOR, 20, "a constraint type descriptor is invalid")                                       \
  X(SN_ERR_PLUGIN_DUPLICATE, 21, "a constraint type with this name is already registered")                             \
  X(SN_ERR_PLUGIN_INIT_FAILED, 22, "the plugin's register_types or create callback failed")                            \
  X(SN_ERR_PLUGIN_INSECURE_PATH, 23, "the plugin file or its folder is writable by others, or the path is bare")       \
  X(SN_ERR_SNAPSHOT_CORRUPT, 24, "the snapshot is truncated, damaged or not a snapshot at all")                        \
  X(SN_ERR_SNAPSHOT_VERSION, 25, "the snapshot has another format version, byte order or float/pointer size")          \
  X(SN_ERR_SNAPSHOT_TYPE_MISMATCH, 26, "a constraint type of the snapshot has another schema in the registry")         \
  X(SN_ERR_SNAPSHOT_UNSUPPORTED, 27, "a constraint type owns memory outside its instance (destroy callback)")          \
  X(SN_ERR_IO, 28, "a file could not be opened, read, written, synced or renamed")

/// Result of every fallible call. SN_OK is zero.
typedef enum sn_result {
#define SN_X_ENUM(name, id, msg) name = id,
  SN_RESULT_TABLE(SN_X_ENUM)
#undef SN_X_ENUM
} sn_result;

/* ------------------------------------------------------------------------ */
/* Handles. Zero-initialised ids are null. A stale id (object destroyed) or an
 * id from another world is reported as an error and never dereferenced.
 *
 * Stale ids stay stale: a slot's generation is bumped by every object made in
 * it, and a slot whose 65,535th object is destroyed is retired (never reused)
 * rather than let its generation wrap, so no destroyed object's id becomes
 * valid again (a world gets one more slot each 65,535 reuses of one).
 *
 * Foreign ids stay foreign: each world created takes the next tag of the
 * cycle 1, 2, ..., 65535, 1, ... (a process-wide counter), so any 65,535
 * worlds created one after another have distinct tags, and a world refuses
 * the ids of every other world, live or destroyed, created fewer than 65,535
 * worlds before or after it. The tags run out after 65,535 worlds: the
 * 65,536th shares the first's. A world restored from a snapshot counts as
 * created but takes the tag saved in it (sn_world_load_snapshot). */

/// A world (opaque; created by sn_create_world).
typedef struct sn_world sn_world;

/// Handle of a body.
typedef struct sn_body_id {
  int32_t index1;      ///< slot + 1; 0 means null
  uint16_t world_tag;  ///< tag of the owning world
  uint16_t generation; ///< bumped each time the slot is reused (1..65535; the slot retires after 65535)
} sn_body_id;

/// Handle of a shape.
typedef struct sn_shape_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_shape_id;

/// Handle of a chain of segments (a static, one-sided, seamless outline).
typedef struct sn_chain_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_chain_id;

/// A value of type T from braces, in C (compound literal) and C++ (T{...}):
/// the null ids below work in both languages.
#ifdef __cplusplus
#define SN_LITERAL(T) T
#else
#define SN_LITERAL(T) (T)
#endif
#define SN_NULL_BODY                                                                                                   \
  SN_LITERAL(sn_body_id) { 0, 0, 0 }
#define SN_NULL_SHAPE                                                                                                  \
  SN_LITERAL(sn_shape_id) { 0, 0, 0 }
#define SN_NULL_CHAIN                                                                                                  \
  SN_LITERAL(sn_chain_id) { 0, 0, 0 }

/// Handle of a constraint (a joint, spring, ... of a registered type).
typedef struct sn_constraint_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_constraint_id;
#define SN_NULL_CONSTRAINT                                                                                             \
  SN_LITERAL(sn_constraint_id) { 0, 0, 0 }

/// Handle of a particle (a point mass of a soft body).
typedef struct sn_particle_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_particle_id;
#define SN_NULL_PARTICLE                                                                                               \
  SN_LITERAL(sn_particle_id) { 0, 0, 0 }

/// Handle of a soft body: a group of particles sharing one material.
typedef struct sn_soft_body_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_soft_body_id;
#define SN_NULL_SOFT_BODY                                                                                              \
  SN_LITERAL(sn_soft_body_id) { 0, 0, 0 }

/// A parameter value by name (scalars use x; booleans 0/1).
typedef struct sn_param_value {
  const char *name;
  double x, y;
} sn_param_value;

/// Constraint settings.
typedef struct sn_constraint_def {
  const char *type;                ///< registered type name, e.g. "revolute"
  sn_body_id bodies[2];            ///< the type's body_count rigid bodies
  const sn_particle_id *particles; ///< the type's particles (after the bodies), if it joins any
  int32_t particle_count;
  const sn_param_value *params; ///< values for some parameters; the rest keep their defaults
  int32_t param_count;
  float break_force; ///< N; the constraint breaks (and is destroyed) above it; 0 = never
  /// Let the joined bodies still collide with each other, and the joined
  /// particles with the joined bodies (an attach's particle with its body);
  /// default false: they do not.
  bool collide_connected;
  void *user_data;
  int32_t cookie;
} sn_constraint_def;

/// A constraint broke during the last step (it no longer exists).
typedef struct sn_constraint_broken_event {
  sn_constraint_id constraint;
  void *user_data;
  float force; ///< N, the reaction that broke it
} sn_constraint_broken_event;

/// A body or particle whose state went non-finite during the last step (a
/// plugin bug, a user force of NaN, ...) or whose centre the step would have
/// carried beyond +-SN_MAX_COORDINATE: it was put back where the step found
/// it, stopped and frozen (no longer simulated) so the rest of the world
/// keeps stepping. One of the two ids is null. Teleporting it
/// (sn_body_set_transform, sn_particle_set_position) unfreezes it.
typedef struct sn_frozen_event {
  sn_body_id body;
  sn_particle_id particle;
  /// With sn_world_def.check_plugins: the constraint whose plugin callback
  /// first made this state non-finite, its type and the callback
  /// ("prepare", "warm_start", "solve_velocity", "project",
  /// "begin_position", "solve_position"). Null and NULL when the checks are
  /// off or no plugin callback did it (a user force of NaN, an escape). The
  /// names are the registry's and the engine's: valid while they live.
  sn_constraint_id constraint;
  const char *constraint_type;
  const char *callback;
} sn_frozen_event;

/* ------------------------------------------------------------------------ */
/* Geometry values. Coordinates are local to the body that owns the shape.   */

/// A solid circle.
typedef struct sn_circle {
  sn_vec2 center;
  float radius;
} sn_circle;

/// A solid capsule: a segment from center1 to center2 inflated by radius.
typedef struct sn_capsule {
  sn_vec2 center1, center2;
  float radius;
} sn_capsule;

/// A line segment (on any body type; it has no area, so no mass).
typedef struct sn_segment {
  sn_vec2 point1, point2;
} sn_segment;

/// A solid convex polygon, counter-clockwise, optionally rounded by radius.
/// Make one with sn_make_polygon, sn_compute_hull or the box helpers; they
/// validate it and fill normals and centroid.
typedef struct sn_polygon {
  sn_vec2 vertices[SN_MAX_POLYGON_VERTICES];
  sn_vec2 normals[SN_MAX_POLYGON_VERTICES];
  sn_vec2 centroid;
  float radius;
  int32_t count;
} sn_polygon;

/// Mass properties: mass (kg), centre of mass (local), rotational inertia
/// about the centre of mass (kg m^2).
typedef struct sn_mass_data {
  float mass;
  sn_vec2 center;
  float rotational_inertia;
} sn_mass_data;

/// Shape kinds.
typedef enum sn_shape_type {
  SN_SHAPE_CIRCLE = 0,
  SN_SHAPE_CAPSULE = 1,
  SN_SHAPE_SEGMENT = 2,
  SN_SHAPE_POLYGON = 3,
  SN_SHAPE_CHAIN_SEGMENT = 4,
  SN_SHAPE_TYPE_COUNT = 5
} sn_shape_type;

/// Body kinds.
typedef enum sn_body_type {
  SN_BODY_STATIC = 0,    ///< never moves, infinite mass
  SN_BODY_KINEMATIC = 1, ///< moved by its velocity, infinite mass
  SN_BODY_DYNAMIC = 2    ///< moved by forces and contacts
} sn_body_type;

/* ------------------------------------------------------------------------ */
/* Definitions. Always start from the sn_default_*_def() function: the cookie
 * field lets the engine refuse a def that was not initialised.              */

/// Cookie stored by every sn_default_*_def function.
#define SN_DEF_COOKIE 0x53696e65 /* "Sine" */

/// Custom allocator: every engine allocation goes through it. Both functions
/// get the size; alloc must return memory aligned to 16 bytes or NULL.
typedef struct sn_allocator {
  void *(*alloc)(size_t size, void *context);
  void (*free)(void *memory, size_t size, void *context);
  void *context;
} sn_allocator;

/// A task's work: items [begin, end) of it, run on worker `worker`
/// (0 .. worker_count - 1; the thread that called sn_world_step is one of
/// them). The engine makes no assumption about which worker runs what.
typedef void sn_task_callback(int32_t begin, int32_t end, uint32_t worker, void *task_context);

/// Supplied by the application (a game engine's job system, or
/// sinew/thread_pool.h): run `task` over items [0, item_count), cut into
/// ranges of at least min_range items, possibly on other threads and in any
/// order. Return a handle for finish_task, or NULL after running the whole
/// task before returning (for example when no thread is free). The engine
/// never needs the ranges to run at the same time: any schedule, down to
/// one thread running them one after another, gives the same results.
typedef void *sn_enqueue_task_callback(sn_task_callback *task, int32_t item_count, int32_t min_range,
                                       void *task_context, void *user_context);

/// Supplied by the application: return once every range of the task behind
/// `user_task` (a handle enqueue_task returned) has run.
typedef void sn_finish_task_callback(void *user_task, void *user_context);

/// World settings.
typedef struct sn_world_def {
  sn_vec2 gravity;             ///< m/s^2, default (0, -10); each component within +-SN_MAX_GRAVITY
  int32_t substeps;            ///< substeps per step, default 8, range 1..64
  int32_t position_iterations; ///< joint position projection sweeps per substep, default 2, range 0..32
  int32_t soft_iterations;     ///< XPBD sweeps per substep, default 1, range 1..32
  bool enable_sleep;           ///< islands fall asleep when at rest, default true
  float contact_hertz; ///< contact stiffness (Hz); default 0 = derived from the substep rate; <= SN_MAX_CONTACT_TUNING
  float contact_damping_ratio;     ///< contact damping ratio, default 10; <= SN_MAX_CONTACT_TUNING
  float contact_push_max_velocity; ///< max speed (m/s) at which overlap is resolved, default 3; <= SN_MAX_SPEED
  float restitution_threshold;     ///< approach speed (m/s) below which no bounce, default 1; <= SN_MAX_SPEED
  float maximum_linear_speed;      ///< m/s, default 400, at most SN_MAX_SPEED; bounds bodies' and particles' motion per
                                   ///< substep and bodies' speed after a step
  bool enable_continuous;          ///< time of impact for fast bodies against static shapes and the moving
                                   ///< bodies they move fast against, default true
  /// Contact manifold reuse (m), default 0.0005: a touching pair whose shapes have moved
  /// relative to each other by less than this since its manifold was last computed (any
  /// point of the smaller body, in the other's frame) keeps that manifold's features and
  /// only has its points and separations moved with the bodies, skipping the narrowphase;
  /// 0 computes every manifold every step. At most SN_MAX_CONTACT_REUSE_DISTANCE.
  float contact_reuse_distance;
  sn_allocator allocator;             ///< all fields NULL = malloc/free
  const struct sn_registry *registry; ///< constraint types for sn_create_constraint; must outlive the world
  int32_t body_capacity;              ///< initial capacity hint, default 0
  int32_t shape_capacity;             ///< initial capacity hint, default 0
  /// Threads the step may use, counting the caller's: default 1; range
  /// 1..SN_MAX_WORKERS. Above 1, enqueue_task and finish_task are required.
  /// Results are bit-identical for every worker count.
  int32_t worker_count;
  sn_enqueue_task_callback *enqueue_task; ///< default NULL (single thread)
  sn_finish_task_callback *finish_task;   ///< default NULL
  void *user_task_context;                ///< passed to both callbacks
  /// Limits on live objects, 0 .. SN_MAX_WORLD_LIMIT each. Creating an object
  /// past its limit is refused with SN_ERR_CAPACITY (the message names the
  /// limit) and leaves the world unchanged; so are a snapshot, a scene file
  /// or a soft-body builder that would make more (checked before anything is
  /// allocated). They bound what any input can make the engine allocate.
  int32_t max_bodies;      ///< default SN_DEFAULT_MAX_BODIES (262144)
  int32_t max_shapes;      ///< chain segments included; default SN_DEFAULT_MAX_SHAPES (1048576)
  int32_t max_particles;   ///< default SN_DEFAULT_MAX_PARTICLES (262144)
  int32_t max_soft_bodies; ///< default SN_DEFAULT_MAX_SOFT_BODIES (65536)
  int32_t max_constraints; ///< default SN_DEFAULT_MAX_CONSTRAINTS (1048576)
  /// Contacts (shape pairs whose fat boxes overlap, touching or not), and
  /// each step's particle contact candidates of each kind (particle-shape,
  /// particle-particle, particle-edge); default SN_DEFAULT_MAX_CONTACTS
  /// (131072). The step never goes past it: a shape whose search for new
  /// pairs the limit stops keeps searching each later step (its missing
  /// pairs do not collide until contacts end and make room), particle
  /// candidates past it are left out of that step; sn_world_counters
  /// .contact_limit_hits counts such steps' cut searches.
  int32_t max_contacts;
  /// Debugging plugins, default false: every plugin callback runs one
  /// constraint at a time, and after each the host checks the states the
  /// constraint may write; the first constraint and callback that make a
  /// state non-finite are named in that body's or particle's frozen event
  /// (sn_frozen_event.constraint). Same results bit for bit, slower steps
  /// (batched XPBD kernels are not used). Not saved in snapshots.
  bool check_plugins;
  int32_t cookie; ///< set by sn_default_world_def
} sn_world_def;

/// Default limits of sn_world_def (a pyramid of 5050 boxes makes about 15000
/// contacts; a 128 x 128 cloth with tethers about 100000 constraints).
#define SN_DEFAULT_MAX_BODIES      262144
#define SN_DEFAULT_MAX_SHAPES      1048576
#define SN_DEFAULT_MAX_PARTICLES   262144
#define SN_DEFAULT_MAX_SOFT_BODIES 65536
#define SN_DEFAULT_MAX_CONSTRAINTS 1048576
#define SN_DEFAULT_MAX_CONTACTS    131072
/// Largest value of each sn_world_def.max_* limit (2^30).
#define SN_MAX_WORLD_LIMIT 1073741824

/// Largest speed setting (m/s): maximum_linear_speed, contact_push_max_velocity,
/// restitution_threshold and the hit event threshold. With positions held within
/// +-SN_MAX_COORDINATE (a body or particle the step would carry beyond it is frozen,
/// see sn_frozen_event) it keeps every state finite.
#define SN_MAX_SPEED 1.0e5f
/// Largest gravity component (m/s^2).
#define SN_MAX_GRAVITY 1.0e5f
/// Largest contact_hertz (Hz) and contact_damping_ratio.
#define SN_MAX_CONTACT_TUNING 1.0e6f

/// Largest sn_world_def.worker_count.
#define SN_MAX_WORKERS 64
/// Largest sn_world_def.contact_reuse_distance (m): a quarter of the speculative margin
/// within which contact points are found before shapes touch.
#define SN_MAX_CONTACT_REUSE_DISTANCE 0.005f

/// Default sn_body_def.sleep_threshold (m/s).
#define SN_DEFAULT_SLEEP_THRESHOLD 0.05f
/// Angular speed (rad/s, 2 degrees per second) below which a body with the
/// default sleep threshold counts as at rest.
#define SN_DEFAULT_ANGULAR_SLEEP_THRESHOLD (2.0f / 180.0f * 3.14159265359f)

/// Body settings.
typedef struct sn_body_def {
  sn_body_type type;       ///< default static
  sn_vec2 position;        ///< world position of the body origin
  float angle;             ///< radians
  sn_vec2 linear_velocity; ///< of the body origin, m/s
  float angular_velocity;  ///< rad/s
  float linear_damping;    ///< 1/s, default 0
  float angular_damping;   ///< 1/s, default 0
  float gravity_scale;     ///< default 1
  bool is_bullet;          ///< swept from a quarter of its inner radius per step (others: half), also against
                           ///< moving bodies it starts the step near; never against other bullets
  bool is_awake;           ///< default true
  bool enable_sleep;       ///< default true; false keeps this body (and its island) awake
  bool fixed_rotation;     ///< default false
  void *user_data;
  int32_t cookie;
  /// Sleep threshold (m/s), finite, >= 0, default SN_DEFAULT_SLEEP_THRESHOLD:
  /// the body counts as at rest while its speed stays below it (and its
  /// angular speed below SN_DEFAULT_ANGULAR_SLEEP_THRESHOLD scaled by
  /// sleep_threshold / SN_DEFAULT_SLEEP_THRESHOLD); its island sleeps when
  /// every member has been at rest for half a second. 0: never at rest.
  float sleep_threshold;
  /// The exact rotation (cosine, sine), used instead of angle when not
  /// {0, 0} (the default); finite, c^2 + s^2 within 1e-4 of 1.
  /// sn_body_get_def sets it when no float angle gives the body's rotation
  /// bit for bit (a rotation the solver integrated), else leaves it {0, 0}.
  sn_rot rotation;
} sn_body_def;

/// Shape settings (material and collision filter).
typedef struct sn_shape_def {
  float density;     ///< kg/m^2, default 1, must be >= 0
  float friction;    ///< Coulomb coefficient, default 0.6, must be >= 0
  float restitution; ///< 0..1, default 0
  /// Rolling resistance coefficient, >= 0, default 0: a contact resists the
  /// relative spin of its bodies with a torque up to coefficient x rolling
  /// radius x normal force (the rolling radius: a circle's or capsule's
  /// radius, a rounded polygon's rounding; 0 for other shapes). A contact
  /// takes the larger coefficient x radius of its two shapes.
  float rolling_resistance;
  /// Surface speed (m/s), finite, default 0: the shape's surface moves along
  /// its outline clockwise at this speed, carrying what touches it (a
  /// conveyor belt: a positive speed moves what rests on a top face to +x).
  /// The two shapes of a contact add their speeds.
  float tangent_speed;
  /// User material id handed to the world's friction and restitution mixing
  /// callbacks (sn_world_set_friction_callback), default 0.
  int32_t material;
  /// A sensor: it detects the shapes (and soft bodies) that overlap it and
  /// reports them (sn_world_get_sensor_events, sn_shape_get_sensor_overlaps),
  /// but never touches anything: no contact, no force, no island. Any body
  /// type may carry one. Default false.
  bool is_sensor;
  bool enable_contact_events; ///< default true
  bool enable_hit_events;     ///< default false
  /// This shape is seen by sensors (opt-out: default true). A sensor never
  /// sees another sensor.
  bool enable_sensor_events;
  /// Pairs with this shape go through the world's custom filter
  /// (sn_world_set_custom_filter) when they are found. Default false.
  bool enable_custom_filtering;
  /// Touching contacts of this shape go through the world's pre-solve
  /// callback (sn_world_set_pre_solve) every step. Default false.
  bool enable_pre_solve_events;
  uint64_t category_bits; ///< default 1
  uint64_t mask_bits;     ///< default all
  /// Collision group: two shapes of the same positive group always collide,
  /// two of the same negative group never do; otherwise (0, or different
  /// groups) category and mask decide, in both directions. Default 0.
  int32_t group_index;
  void *user_data;
  int32_t cookie;
} sn_shape_def;

/// A shape's collision filter (sn_shape_set_filter, sn_shape_get_filter):
/// shapes a and b may collide when a's category is in b's mask and b's
/// category in a's mask, unless they share a non-zero group_index, which
/// decides alone (positive: always, negative: never).
typedef struct sn_filter {
  uint64_t category_bits;
  uint64_t mask_bits;
  int32_t group_index;
} sn_filter;

/// Chain settings: an outline of one-sided segments with smooth seams, on a body of any type.
typedef struct sn_chain_def {
  const sn_vec2 *points; ///< at least 4 points if is_loop is false, 3 if true
  int32_t count;
  bool is_loop;             ///< close the chain
  float friction;           ///< default 0.6
  float restitution;        ///< default 0
  float rolling_resistance; ///< as sn_shape_def.rolling_resistance (segments have no rolling radius: only the
                            ///< other shape's counts)
  float tangent_speed;      ///< as sn_shape_def.tangent_speed, for every segment of the chain
  int32_t material;         ///< as sn_shape_def.material
  uint64_t category_bits;
  uint64_t mask_bits;
  int32_t group_index; ///< collision group of every segment (sn_shape_def.group_index), default 0
  void *user_data;
  int32_t cookie;
} sn_chain_def;

/// An explosion (sn_world_explode): every dynamic body's shape and every
/// particle near position gets an impulse pointing away from it, at the
/// point of the shape closest to position. Its size is
/// impulse_per_length x scale x width: width is how wide the shape is
/// across the push direction (a circle: its diameter; a particle: twice its
/// radius), scale is 1 up to radius from position (distance to the shape's
/// surface) and falls linearly to 0 across the next falloff metres.
typedef struct sn_explosion_def {
  sn_vec2 position;
  float radius;             ///< m, >= 0: full strength within it
  float falloff;            ///< m, >= 0: strength falls to 0 across it beyond radius
  float impulse_per_length; ///< N s / m (negative pulls instead of pushing)
  uint64_t mask_bits;       ///< shapes whose category_bits & mask_bits != 0 are pushed, default all
  bool affect_particles;    ///< push soft-body particles too (no filter applies to them), default true
  int32_t cookie;
} sn_explosion_def;

/* ------------------------------------------------------------------------ */
/* Queries and events                                                        */

/// A ray from origin to origin + translation.
typedef struct sn_ray_result {
  sn_shape_id shape;
  sn_vec2 point;  ///< world hit point
  sn_vec2 normal; ///< world surface normal at the hit
  float fraction; ///< along translation, 0..1
  bool hit;
} sn_ray_result;

/// Input of the low-level shape ray casts.
typedef struct sn_ray_input {
  sn_vec2 origin, translation;
  float max_fraction;
} sn_ray_input;

/// Output of the low-level shape ray casts.
typedef struct sn_cast_output {
  sn_vec2 normal;
  sn_vec2 point;
  float fraction;
  int32_t iterations;
  bool hit;
} sn_cast_output;

/// Which shapes a query reports: a shape is reported when
/// (shape.category_bits & filter.mask_bits) != 0 and
/// (shape.mask_bits & filter.category_bits) != 0, as two shapes decide
/// whether they collide. Make one with sn_default_query_filter().
typedef struct sn_query_filter {
  uint64_t category_bits; ///< what the query is; default 1 (the default shape category)
  uint64_t mask_bits;     ///< the shape categories it reports; default all
} sn_query_filter;

/// The filter that reports every shape whose mask_bits include category 1
/// (every shape with the default sn_shape_def): {1, UINT64_MAX}.
SN_API sn_query_filter sn_default_query_filter(void);

/// One point of a contact manifold (sn_contact_manifold).
typedef struct sn_contact_point {
  sn_vec2 point;    ///< world point, midway between the two surfaces
  sn_vec2 anchor_a; ///< point minus body A's origin (world orientation)
  sn_vec2 anchor_b; ///< point minus body B's origin (world orientation)
  float separation; ///< m, negative when the shapes overlap
  /// N s, the normal impulse at this point over the last step: the last
  /// substep's times the substep count (a resting contact carries its load,
  /// m g dt, this way; 0 before any solve).
  float normal_impulse;
  float tangent_impulse;    ///< N s, the friction impulse over the last step (as normal_impulse)
  float max_normal_impulse; ///< N s, the largest substep impulse of the last step times the substep count
  float normal_velocity;    ///< m/s, the approach speed along the normal before the last solve (negative: closing)
  uint16_t id;              ///< feature id: the same while the same features touch
  bool persisted;           ///< the point was matched with one of the step before
} sn_contact_point;

/// The contact points of two shapes: up to two points sharing one normal.
typedef struct sn_contact_manifold {
  sn_contact_point points[2];
  sn_vec2 normal; ///< unit, world frame, from shape A to shape B
  int32_t point_count;
} sn_contact_manifold;

/// A touching contact as sn_body_get_contacts and sn_shape_get_contacts
/// report it. The normal points from shape_a to shape_b.
typedef struct sn_contact_data {
  sn_shape_id shape_a, shape_b;
  sn_contact_manifold manifold;
} sn_contact_data;

/// Two shapes started touching during the last step, with their manifold
/// as the narrowphase found it (impulses are last step's, carried over by
/// feature id: zero for a fresh contact).
typedef struct sn_contact_begin_event {
  sn_shape_id shape_a, shape_b;
  sn_contact_manifold manifold;
} sn_contact_begin_event;

/// Two shapes stopped touching during the last step (or one was destroyed).
typedef struct sn_contact_end_event {
  sn_shape_id shape_a, shape_b;
} sn_contact_end_event;

/// Two shapes hit each other faster than the world's hit threshold.
typedef struct sn_contact_hit_event {
  sn_shape_id shape_a, shape_b;
  sn_vec2 point;        ///< world point of the fastest-approaching contact point
  sn_vec2 normal;       ///< from a to b
  float approach_speed; ///< m/s, positive
} sn_contact_hit_event;

/// Event arrays of the last step (sn_world_get_contact_events): valid, where
/// they are and unchanged, until the next sn_world_step starts.
typedef struct sn_contact_events {
  const sn_contact_begin_event *begin_events;
  const sn_contact_end_event *end_events;
  const sn_contact_hit_event *hit_events;
  int32_t begin_count, end_count, hit_count;
} sn_contact_events;

/// A shape began to overlap a sensor in the last step. visitor is the shape,
/// or null with soft_body set for a soft body's particles (one event per
/// soft body, when its first particle enters the sensor).
typedef struct sn_sensor_begin_touch_event {
  sn_shape_id sensor;
  sn_shape_id visitor;
  sn_soft_body_id soft_body;
} sn_sensor_begin_touch_event;

/// A shape (or soft body) stopped overlapping a sensor in the last step, or
/// it or the sensor was destroyed (or stopped taking part) since the step
/// before. Ids may be stale by the time this is read.
typedef struct sn_sensor_end_touch_event {
  sn_shape_id sensor;
  sn_shape_id visitor;
  sn_soft_body_id soft_body;
} sn_sensor_end_touch_event;

/// Sensor events of the last step (sn_world_get_sensor_events): valid, where
/// they are and unchanged, until the next sn_world_step starts.
typedef struct sn_sensor_events {
  const sn_sensor_begin_touch_event *begin_events;
  const sn_sensor_end_touch_event *end_events;
  int32_t begin_count, end_count;
} sn_sensor_events;

/// A body that moved in the last step (sn_world_get_body_events).
typedef struct sn_body_move_event {
  sn_body_id body;
  sn_transform transform; ///< the body's transform after the step
  bool fell_asleep;       ///< the step put it to sleep
  void *user_data;        ///< the body's user data
} sn_body_move_event;

/// Body events of the last step: valid until the next sn_world_step starts.
typedef struct sn_body_events {
  const sn_body_move_event *move_events;
  int32_t move_count;
} sn_body_events;

/// Custom filter (sn_world_set_custom_filter): return false to keep the two
/// shapes from ever making a contact. Called when a new overlapping pair is
/// found whose shapes passed the group, category and mask rules and at
/// least one of which has enable_custom_filtering, and when
/// sn_shape_set_filter checks the shape's existing contacts again. It runs
/// on the thread that called sn_world_step (or sn_shape_set_filter) with
/// the world locked: it may read the two shapes and their bodies; calls
/// that change the world return SN_ERR_WORLD_LOCKED, and queries are
/// refused inside a step. A refused pair is asked about again each step one
/// of its shapes moves in the broadphase; an accepted one is not asked again
/// while its contact lasts. It must give the same answer for the same pair
/// while nothing it reads changes.
typedef bool sn_custom_filter_fcn(sn_shape_id shape_a, sn_shape_id shape_b, void *context);

/// Pre-solve callback (sn_world_set_pre_solve): return false to leave the
/// contact out of the solver for this step (it stays touching: no end event;
/// it is asked again next step). Called every step, after the narrowphase,
/// for each touching contact with an awake body one of whose shapes has
/// enable_pre_solve_events; the manifold's normal points from shape_a to
/// shape_b. It runs on worker threads of the world's task system (several
/// at once, for different contacts, in any order), with the world locked:
/// it may read the two shapes, their bodies and the manifold and its own
/// context (guard anything it writes there); it must not change the world,
/// query it, or read other contacts or bodies, which the step may be
/// writing at that moment.
typedef bool sn_pre_solve_fcn(sn_shape_id shape_a, sn_shape_id shape_b, const sn_contact_manifold *manifold,
                              void *context);

/// World counters (for overlays and benchmarks).
typedef struct sn_world_counters {
  int32_t body_count, shape_count, contact_count, touching_contact_count;
  int32_t awake_body_count, island_count, tree_height;
  int32_t constraint_count, soft_body_count, particle_count, particle_contact_count;
  size_t allocated_bytes;
  int32_t reused_manifold_count; ///< last step: manifolds moved with their bodies instead of recomputed
  /// Last step: searches for contacts that sn_world_def.max_contacts cut
  /// short (shapes whose new pairs wait for room, and particle candidate
  /// lists left incomplete); 0 while the world stays under the limit.
  int32_t contact_limit_hits;
} sn_world_counters;

/// Where the last step's time went (wall clock, milliseconds): see
/// sn_world_get_profile. The parts add up to about `step`.
typedef struct sn_world_profile {
  float step;         ///< the whole sn_world_step
  float collide;      ///< broadphase pairs and narrowphase manifolds (warm-start matching, events)
  float solve_setup;  ///< solver: awake bodies, contact list, colouring, contacts prepared, constraint batches
  float substeps;     ///< the substep loop (warm start, solve, integrate, relax, joints, XPBD, particles),
                      ///< then restitution, impulses back to the manifolds and the bodies' write back
  float solve_finish; ///< hit events, continuous collision, proxy moves in the broadphase tree
  float sleep;        ///< constraint breaking, islands and sleep
} sn_world_profile;

/* ------------------------------------------------------------------------ */
/* Soft bodies                                                               */

/// Soft body settings: the material its particles share.
typedef struct sn_soft_body_def {
  float friction;      ///< Coulomb coefficient against shapes and other particles, default 0.4
  float restitution;   ///< 0..1, default 0
  float damping;       ///< linear velocity damping of every particle (1/s), default 0
  float rigid_damping; ///< 0..1 per step: damps only the deformation velocity, keeping the body's
                       ///< centre-of-mass motion and rotation (Mueller's PBD damping), default 0
  bool collide_rigid;  ///< particles collide with rigid shapes, default true
  bool collide_soft;   ///< with particles of other soft bodies, default true
  bool self_collision; ///< particles of this body with each other, default false
  void *user_data;
  int32_t cookie;
} sn_soft_body_def;

/// Particle settings.
typedef struct sn_particle_def {
  sn_vec2 position;
  sn_vec2 velocity;
  float mass;     ///< kg, default 0.01; 0 = fixed in place (zero inverse mass)
  float radius;   ///< collision radius (m), default 0.02; 0 = no collision
  bool kinematic; ///< moved only by the user (sn_particle_set_target), pushes others
  void *user_data;
  int32_t cookie;
} sn_particle_def;

/// Builder settings shared by the soft-body builders.
typedef struct sn_soft_material {
  float compliance;       ///< of stretch (distance) constraints, m/N; 0 = inextensible
  float damping;          ///< XPBD constraint damping beta (s), default 0
  float shear_compliance; ///< cloth and lattice diagonals; < 0 = no shear constraints
  float bend_compliance;  ///< 1/(N m) per bend constraint; < 0 = no bending constraints (default)
  float tear_force;       ///< N; distance constraints break above it; 0 = never
} sn_soft_material;

/// A rope: count particles on the segment start-end (count - 1 links).
typedef struct sn_rope_def {
  sn_soft_body_def body;
  sn_soft_material material;
  sn_vec2 start, end;
  int32_t count;  ///< particles, >= 2
  float mass;     ///< total kg, spread evenly, default 1
  float radius;   ///< particle radius, default 0.05
  bool pin_start; ///< first particle fixed
  bool pin_end;   ///< last particle fixed
  /// Long-range attachments from every free particle to each pinned end, made
  /// for an inextensible rope (material.compliance 0) with a pin: it then stays
  /// inextensible under heavy loads. None without a pin or for compliant links
  /// (they would hold the rope at its rest length). Default true.
  bool tethers;
  int32_t cookie;
} sn_rope_def;

/// A cloth: a grid of columns x rows particles, row 0 at the top.
typedef struct sn_cloth_def {
  sn_soft_body_def body;
  sn_soft_material material;
  sn_vec2 top_left; ///< position of particle (0, 0); columns go +x, rows go -y
  int32_t columns, rows;
  float spacing; ///< m, default 0.1
  float mass;    ///< total kg, default 1
  float radius;  ///< particle radius, default 0.02
  uint32_t pins; ///< SN_PIN_* flags
  bool tethers;  ///< long-range attachments from every free particle to each pinned one
                 ///< (keeps a hanging cloth inextensible at few substeps), default true
  int32_t cookie;
} sn_cloth_def;
#define SN_PIN_TOP_LEFT     1u
#define SN_PIN_TOP_RIGHT    2u
#define SN_PIN_TOP_ROW      4u
#define SN_PIN_BOTTOM_LEFT  8u
#define SN_PIN_BOTTOM_RIGHT 16u

/// A pressure ring ("jelly"): count particles on a circle, edge distance
/// constraints and one area constraint keeping pressure * rest area.
typedef struct sn_ring_def {
  sn_soft_body_def body;
  sn_soft_material material;
  sn_vec2 center;
  float radius;          ///< m
  int32_t count;         ///< particles, >= 3
  float mass;            ///< total kg, default 1
  float particle_radius; ///< default 0.05
  float pressure;        ///< target area over rest area, default 1
  float area_compliance; ///< m^-4 N^-1 style XPBD compliance of the area constraint, default 0
  int32_t cookie;
} sn_ring_def;

/// A soft box: a lattice of columns x rows particles with edge, shear and
/// per-cell area constraints, centred on center.
typedef struct sn_lattice_def {
  sn_soft_body_def body;
  sn_soft_material material;
  sn_vec2 center;
  int32_t columns, rows;
  float spacing;         ///< m, default 0.1
  float mass;            ///< total kg, default 1
  float radius;          ///< default: half the spacing
  float area_compliance; ///< per-cell area constraints; < 0 = none (default 0)
  int32_t cookie;
} sn_lattice_def;

#ifdef __cplusplus
}
#endif
#endif /* SINEW_TYPES_H */
