/* Sinew constraint plugin ABI, version 1.3.
 *
 * This is the only header a plugin needs (sinew/plugin_math.h and
 * sinew/plugin_batch.h add optional header-only helpers built on it). A
 * plugin is a shared object that exports one data symbol,
 * `sn_plugin_entry_v1` (an sn_plugin_entry). The host reads its first four
 * fields (ABI major, minor, fingerprint, struct size) and checks them
 * before it runs any plugin code; then it calls register_types(),
 * which registers constraint types through the host function table it is
 * given. Plugins never link libsinew: build them with hidden visibility and
 * -z defs (-Wl,--no-undefined), export only the entry symbol.
 *
 * Evolution: within ABI major 1 every struct here only grows at its end, and
 * each carries its size (struct_size / size), so a host reads only the fields
 * a plugin knows and a plugin uses newer host functions only behind
 * SN_HOST_HAS(). An incompatible change bumps the major and the symbol name.
 * A callback whose form changes within a major keeps its slot, and the
 * host calls the form of the minor the plugin's entry declares. Minors:
 * 1.0 the base (fields appended up to batch_flags); 1.1 begin_position and
 * begin_particles; 1.2 create takes one sn_constraint_create_args instead
 * of seven parameters (plugins declaring 1.0 or 1.1 keep theirs); 1.3 a
 * read-only state schema (state_count, states) and get_state; 1.4
 * sn_step_info.flags: SN_STEP_INDEPENDENT_ITEMS marks the calls whose items
 * share no body state, which a plugin may solve together (in SIMD lanes).
 *
 * Threads and stages: every callback says when it runs. [main] callbacks run
 * on the thread that calls into the world, outside sn_world_step. [step]
 * callbacks run inside sn_world_step; they may run concurrently on different
 * batches of the same type (never on the same constraint or on constraints
 * sharing a dynamic body), must touch only the items and bodies they are
 * given, must not allocate, and must not call back into the world. Every
 * callback runs on a locked world: a host type's callback that reaches the
 * world anyway may read it, but a call that would change it returns
 * SN_ERR_WORLD_LOCKED.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_PLUGIN_H
#define SINEW_PLUGIN_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SN_PLUGIN_ABI_MAJOR 1
#define SN_PLUGIN_ABI_MINOR 4
/// Catches float/double and 32/64-bit mismatches before any function of the
/// plugin is called (its constructors have run: loading runs them).
#define SN_PLUGIN_FINGERPRINT ((uint32_t)((sizeof(float) << 8) | sizeof(void *)))
/// Name of the exported entry symbol (carries the ABI major).
#define SN_PLUGIN_ENTRY_SYMBOL "sn_plugin_entry_v1"

#if defined(_WIN32)
#define SN_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define SN_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SN_PLUGIN_EXPORT
#endif

/// Most rigid bodies one constraint may join.
#define SN_MAX_CONSTRAINT_BODIES 2
/// Most particles one constraint may join.
#define SN_MAX_CONSTRAINT_PARTICLES 4096
/// particle_count of a type that joins any number (1..SN_MAX_CONSTRAINT_PARTICLES) of particles.
#define SN_ANY_PARTICLES 0xffffffffu
/// Longest constraint type name, including the terminating zero.
#define SN_MAX_TYPE_NAME 64

/* ------------------------------------------------------------------------ */
/* What a constraint sees of its bodies during a step                        */

/// A body's solver state (32 bytes; layout fixed for ABI major 1). Impulse
/// constraints change v and w; dp/dq are this step's motion so far (centre of
/// mass translation and rotation since the step began), read-only to them.
typedef struct sn_solver_body {
  sn_vec2 v;      ///< velocity of the centre of mass
  float w;        ///< angular velocity
  float reserved; ///< do not touch
  sn_vec2 dp;     ///< centre-of-mass displacement this step
  sn_rot dq;      ///< rotation this step
} sn_solver_body;

/// A body as constraints see it in a step. Static bodies (and bodies that are
/// asleep) have zero inverse mass and point at a shared zero state; writing
/// v - 0 * P back into it is harmless. A particle looks like a body with zero
/// inverse inertia, identity rotation and local_center 0: its current
/// position is center + state->dp (a fixed or kinematic particle has zero
/// inverse mass).
typedef struct sn_constraint_body {
  sn_solver_body *state;
  float inv_mass, inv_inertia;
  sn_vec2 center;       ///< world centre of mass at the start of the step
  sn_rot q;             ///< rotation at the start of the step
  sn_vec2 local_center; ///< centre of mass in the body frame
  sn_vec2 origin;       ///< world position of the body origin at the start of the step
} sn_constraint_body;

/// Timing of the current step.
typedef struct sn_step_info {
  uint32_t size; ///< sizeof(sn_step_info) as built by the host
  float dt, inv_dt;
  float h, inv_h; ///< substep length and its inverse
  int32_t substeps;
  float contact_hertz, contact_damping_ratio; ///< the world's contact softness, for reference
  float joint_hertz, joint_damping_ratio;     ///< suggested stiffness of rigid joints' position feedback
  int32_t substep;                            ///< index of the current substep
  int32_t iterations;                         ///< sweeps of the current stage per substep (position or XPBD stage)
  int32_t iteration; ///< index of the current sweep: 0 starts a substep (reset XPBD lambda there)
  /* ABI 1.4 */
  /// SN_STEP_* bits describing this call (read them with
  /// sn_step_items_independent: a host built before 1.4 has no such field).
  uint32_t flags;
} sn_step_info;

/// sn_step_info.flags: the items of this call share no body state (no two
/// of them have the same moving body; a static or sleeping side is a
/// private copy per item). Set on warm_start, solve_velocity and project
/// calls over one level of an impulse type's items (docs/plugins.md,
/// "Independent items"); never on prepare. The plugin may then solve the
/// items in any order or several at a time (SIMD lanes) but must give the
/// bits that solving them one after another gives: each item's arithmetic
/// is the same, and no item sees another's.
#define SN_STEP_INDEPENDENT_ITEMS 1u

/// sn_step_info.flags, with SN_STEP_INDEPENDENT_ITEMS: the host allows the
/// items' lanes 8 wide (AVX2) where the CPU has them (the plugin checks the
/// CPU). Every width must give the same bits; a host clears it to test that.
#define SN_STEP_WIDE_LANES 2u

/// sn_step_info.flags: the position stage projects this call's type every
/// substep of this step (the type has `project` and the world's
/// position_iterations is above 0). Set on its warm_start, solve_velocity
/// and project calls, with or without SN_STEP_INDEPENDENT_ITEMS. A type may
/// then leave to the projection what the relax pass would do for rows the
/// projection holds (docs/plugins.md, "Relax under projection"); a host that
/// never sets it has every relax pass run as before.
#define SN_STEP_PROJECTED 4u

/// True when info says the position stage projects the call's type
/// (SN_STEP_PROJECTED; false from a host that does not set it).
static inline int sn_step_projected(const sn_step_info *info) {
  return info->size >= offsetof(sn_step_info, flags) + sizeof(info->flags) && (info->flags & SN_STEP_PROJECTED) != 0u;
}

/// True when info says the call's items share no body state
/// (SN_STEP_INDEPENDENT_ITEMS, from a host of ABI 1.4 or later).
static inline int sn_step_items_independent(const sn_step_info *info) {
  return info->size >= offsetof(sn_step_info, flags) + sizeof(info->flags) &&
         (info->flags & SN_STEP_INDEPENDENT_ITEMS) != 0u;
}

/// One constraint handed to a callback: its parameters (read-only during a
/// step), its instance memory, and its bodies: the type's body_count rigid
/// bodies first, then its particles (body_count entries in all).
typedef struct sn_constraint_item {
  const void *params;
  void *instance;
  sn_constraint_body *const *bodies;
  int32_t body_count;
} sn_constraint_item;

/// The particles of the soft stage and one particle-only XPBD type's
/// constraints, for solve_particles (below). Host memory, valid for one call.
///
/// Particles are indexed as in the world (slots; free slots have inverse
/// mass 0). Constraints are in the host's solve order and cut into colours:
/// colour c is [colour_start[c], colour_start[c + 1]), and no two constraints
/// of one colour share a particle of nonzero inverse mass. The host runs the
/// colours in order; inside one it may hand out any sub-ranges (to threads),
/// so a plugin may solve a range in any order or several lanes at a time:
/// the result is exactly that of solving it one constraint after another.
/// The host builds the colours by levels in creation order (a constraint goes
/// one level after the last earlier constraint it shares a movable particle
/// with), so a sweep in colour order gives bit for bit the result of the
/// per-item sweep in creation order.
typedef struct sn_particle_batch {
  uint32_t size; ///< sizeof(sn_particle_batch) as built by the host
  /// Per particle, 16-byte aligned, 4 floats: x, y = the centre at the
  /// substep start (read-only), dx, dy = its motion in the substep so far
  /// (the item path's state->dp): move these.
  float *position;
  /// Per particle, 16-byte aligned, 4 floats, read-only: inverse mass (0 =
  /// fixed: a constraint must not move it), vx, vy = the velocity the substep
  /// was predicted with (the item path's state->v), 0.
  const float *mass_velocity;
  int32_t particle_count; ///< entries in position and mass_velocity
  int32_t count;          ///< constraints of this type in the batch
  int32_t particles_per;  ///< the type's particle_count
  const int32_t *indices; ///< particles_per particle indices per constraint, in solve order
  const void *params;     ///< the constraints' params, params_stride bytes apart (16-byte aligned start)
  void *instances;        ///< their instances, instance_stride bytes apart (16-byte aligned start)
  /// params_stride may be 0 for a type with SN_BATCH_SHARED_PARAMS in its
  /// batch_flags: every constraint of the batch has the same params (byte
  /// for byte), and params points at one copy. Code that addresses
  /// constraint k's params as params + k * params_stride needs nothing
  /// special.
  uint32_t params_stride, instance_stride;
  int32_t colour_count;
  const int32_t *colour_start; ///< colour_count + 1 offsets into the constraints
  /// Widest vector instructions the host allows (the plugin still checks the
  /// CPU): 0 plain C, 1 SSE2, 2 AVX2. Every level must give the same result.
  int32_t simd;
} sn_particle_batch;

/* ------------------------------------------------------------------------ */
/* Parameters: a schema the host validates, so scene files, the sandbox and
 * sn_create_constraint can set them by name with range checks.             */

typedef enum sn_param_kind {
  SN_PARAM_FLOAT = 1, ///< float at offset
  SN_PARAM_INT = 2,   ///< int32_t at offset
  SN_PARAM_BOOL = 3,  ///< int32_t 0/1 at offset (fixed width across compilers)
  SN_PARAM_VEC2 = 4,  ///< sn_vec2 at offset; min/max/def apply to both components
} sn_param_kind;

/// Parameter may change while the constraint exists (sn_constraint_set_param).
#define SN_PARAM_RUNTIME 1u

typedef struct sn_param_desc {
  uint32_t id;          ///< stable forever; saved files use it with the name
  uint32_t kind;        ///< sn_param_kind
  const char *name;     ///< [a-z0-9_], unique within the type
  uint32_t offset;      ///< byte offset in the params blob
  uint32_t flags;       ///< SN_PARAM_RUNTIME ...
  double min, max, def; ///< finite; min <= def <= max
  const char *doc;      ///< one line for tools (may be NULL)
} sn_param_desc;

/// A value a constraint publishes for reading (ABI 1.3): a joint's angle,
/// speed, motor torque, ... Read-only: sn_constraint_get_state asks the
/// type's get_state for it by name. Only SN_PARAM_FLOAT and SN_PARAM_VEC2.
typedef struct sn_state_desc {
  uint32_t id;      ///< stable, unique within the type's states
  uint32_t kind;    ///< SN_PARAM_FLOAT or SN_PARAM_VEC2
  const char *name; ///< [a-z0-9_], unique within the type's states
  const char *doc;  ///< one line for tools, with the unit (may be NULL)
} sn_state_desc;

/// Most states one type may publish.
#define SN_MAX_CONSTRAINT_STATES 64

/* ------------------------------------------------------------------------ */
/* Debug drawing offered to plugins                                          */

typedef struct sn_draw_api {
  uint32_t size;
  void (*segment)(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *context);
  void (*point)(sn_vec2 p, float size, uint32_t rgba, void *context);
  void (*circle)(sn_vec2 center, float radius, uint32_t rgba, void *context);
  void *context;
} sn_draw_api;

/* ------------------------------------------------------------------------ */
/* The constraint type                                                       */

/// Solved in the velocity stage with impulses (prepare, warm_start,
/// solve_velocity required).
#define SN_CONSTRAINT_IMPULSE 1u
/// Solved in the XPBD position stage (solve_position required).
#define SN_CONSTRAINT_XPBD 2u

typedef struct sn_host_api sn_host_api;
typedef struct sn_constraint_type sn_constraint_type;

/// What create() receives (ABI 1.2): host memory, valid for the call. A
/// plugin reads fields appended in later minors only when size covers them.
typedef struct sn_constraint_create_args {
  uint32_t size;                  ///< sizeof(sn_constraint_create_args) as built by the host
  const sn_host_api *host;        ///< the host's function table
  const sn_constraint_type *type; ///< the type being created (the host's copy of the descriptor)
  const void *params;             ///< the new constraint's params: the schema's defaults and the creator's values
  void *instance;                 ///< instance_size bytes (zeroed) to fill
  /// The type's body_count rigid bodies then its particles (state NULL).
  const sn_constraint_body *const *bodies;
  int32_t body_count;  ///< entries in bodies
  char *err;           ///< for a message when create fails: at most err_capacity bytes, zero-terminated
  size_t err_capacity; ///< bytes at err
} sn_constraint_create_args;

/// A constraint type. The host copies it at registration (only the first
/// struct_size bytes the plugin knew), so it may live in the plugin's
/// read-only data. Memory for params and instances is the host's: it may
/// move (memcpy) instances between steps, so an instance must hold no pointer
/// into itself, and anything a plugin allocates must be freed in destroy.
struct sn_constraint_type {
  uint32_t struct_size; ///< sizeof(sn_constraint_type) as the plugin was built
  const char *name;     ///< unique, [a-z0-9._-], at most SN_MAX_TYPE_NAME - 1 chars
  uint32_t flags;       ///< SN_CONSTRAINT_IMPULSE and/or SN_CONSTRAINT_XPBD
  uint32_t body_count;  ///< 1 or 2
  uint32_t params_size, params_align;
  uint32_t instance_size, instance_align; ///< align: power of two <= 64
  uint32_t param_count;
  const sn_param_desc *params;

  /// [main] Fills args->instance from args->params and the bodies' current
  /// poses (for example local anchors or rest lengths). Return 0, or
  /// nonzero and a message in args->err. Required.
  /// A plugin whose entry declares ABI 1.0 or 1.1 holds here, in the same
  /// slot, int create(const sn_host_api *host, const void *params, void
  /// *instance, const sn_constraint_body *const *bodies, int32_t count, char
  /// *err, size_t err_capacity) (count = args->body_count), and the host
  /// calls it so. The host's copy of the descriptor (sn_registry_get_type)
  /// holds the 1.2 form for every type.
  int (*create)(const sn_constraint_create_args *args);
  /// [main] Releases what create() allocated outside the instance. Optional.
  void (*destroy)(void *instance);
  /// [main] Parameters changed at runtime; refresh derived instance data.
  /// Return 0 or nonzero with a message. Optional.
  int (*params_changed)(const void *params, void *instance, char *err, size_t err_capacity);

  /// [step] Once per step before the substeps: anchors, effective masses,
  /// softness from info->h. Required for IMPULSE.
  void (*prepare)(const sn_step_info *info, sn_constraint_item *items, int32_t count);
  /// [step] Every substep, before solving: apply the accumulated impulses.
  /// Optional.
  void (*warm_start)(const sn_step_info *info, sn_constraint_item *items, int32_t count);
  /// [step] Every substep: use_bias 1 = solve with position feedback (soft),
  /// 0 = the relax pass, no bias. Required for IMPULSE.
  void (*solve_velocity)(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias);
  /// [step] The XPBD stage of every substep, run info->iterations times
  /// (info->iteration 0 first: reset lambda there, unless begin_position set
  /// it up): move positions
  /// (state->dp, and dq for rigid bodies) by the compliance-weighted
  /// correction dlambda = (-C - alpha~ lambda - gamma grad C . dx) /
  /// ((1 + gamma) sum w |grad C|^2 + alpha~), alpha~ = alpha / h^2. The host
  /// then derives velocities from the motion (v = dx / h). Required for XPBD.
  void (*solve_position)(const sn_step_info *info, sn_constraint_item *items, int32_t count);
  /// [main, between steps] Reaction force and torque on the second body over
  /// the last step (accumulated impulse / dt): breaking compares its length
  /// with the constraint's limit. Optional.
  void (*get_reaction)(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque);
  /// [main] Draw the constraint. Optional.
  void (*debug_draw)(const sn_constraint_item *item, const sn_draw_api *draw);
  /// [step] The position stage, every substep after the relax pass, run
  /// sn_world_get_position_iterations() times: optional projection of the
  /// position error of rigid rows (non-linear Gauss-Seidel). Moves
  /// state->dp/dq by the correction and adds the same motion over h to the
  /// velocities, as XPBD would (sn_pm_project_point does both). Clamp the
  /// error to SN_PM_MAX_PROJECTION_SPEED * h. Soft rows (springs, motors)
  /// must not project. Optional.
  void (*project)(const sn_step_info *info, sn_constraint_item *items, int32_t count);
  /// Particles the constraint joins after its body_count rigid bodies: a
  /// fixed number, or SN_ANY_PARTICLES (the creator decides, at least 1).
  /// body_count may be 0 when particles are joined.
  uint32_t particle_count;
  /* ABI 1.0 ends here; append new fields below only. */
  /// [main, between steps] Writes into out_params the parameters that
  /// recreate exactly this instance from any poses of its bodies: what
  /// create() derived from the poses (local anchors, reference angles, rest
  /// lengths, ...) copied bit for bit into the type's pinning parameters
  /// (see "Pinning parameters" in docs/plugins.md). out_params (params_size
  /// bytes, aligned as params) holds a copy of params on entry, so only the
  /// pinning parameters need writing; every written value must lie within
  /// its schema's range. bodies are views as in create() (state NULL).
  /// Return 0, or nonzero if the instance cannot be described. Optional:
  /// without it (or from a plugin built before it existed, whose
  /// struct_size ends before it) sn_constraint_export_params copies params.
  int (*export_params)(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                       void *out_params);
  /// [step] Optional batched form of solve_position for particle-only types
  /// (body_count 0, a fixed particle_count): solves constraints [begin, end)
  /// of batch, a range inside one colour, with the semantics of
  /// solve_position (info->iteration 0 resets lambda, or keeps what
  /// begin_particles set up). The host uses it
  /// instead of solve_position in the XPBD stage and still calls
  /// solve_position when it does not batch. Must touch only the constraints
  /// of the range and their particles' dx, dy; ranges of one colour may run
  /// concurrently. Instances need not hold per-solve outputs (reaction
  /// force) until the last substep of the step.
  void (*solve_particles)(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end);
  /// Optional: SN_BATCH_* bits, batch layouts solve_particles accepts beyond
  /// the one first documented. 0 (and from plugins built before this field)
  /// = none: the host then never uses them.
  uint32_t batch_flags;
  /* ABI 1.1: the XPBD stage's substep start */
  /// [step] Optional, XPBD: once per substep, before the type's first sweep
  /// (info->iteration 0) and on the calling thread, every constraint of the
  /// type in solve order: set up the substep's multipliers. A type that has
  /// it owns lambda at the substep start: it resets lambda here or carries
  /// part of the last substep's (a warm start) and moves the positions by
  /// that part's correction, and its sweep 0 must then keep lambda as found.
  /// Because all the type's constraints start before any of them solves,
  /// neighbours see each other's carried load in the first sweep: a chain
  /// of compliant links reaches its static stretch with one sweep per
  /// substep. Without it (or from a plugin built for ABI 1.0) the type
  /// resets lambda itself at sweep 0, as solve_position describes.
  void (*begin_position)(const sn_step_info *info, sn_constraint_item *items, int32_t count);
  /// [step] Optional: begin_position for a batched type, over constraints
  /// [begin, end) of batch (the host passes the whole batch, on one
  /// thread, colours in order). A type with begin_particles must also have
  /// begin_position and solve_particles, and both must give the same result
  /// bit for bit (the host uses the item path when it does not batch).
  void (*begin_particles)(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end);
  /* ABI 1.3: readable state */
  /// Entries in states (at most SN_MAX_CONSTRAINT_STATES; 0 = none).
  uint32_t state_count;
  /// The state schema: what get_state reports, in order.
  const sn_state_desc *states;
  /// [main, between steps] Writes the current value of every state into
  /// values[0 .. state_count) (x, y; y 0 for SN_PARAM_FLOAT), from the
  /// instance and the bodies. Here each body's state (never NULL) holds its
  /// current velocity (v, w) with dp 0 and dq the identity, and center, q and
  /// origin are its current pose; info is the last step's timing (dt 0, h 0
  /// and inv_h 0 before the first step: report forces as 0 then). Required
  /// when state_count > 0.
  void (*get_state)(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values);
};

/// sn_constraint_type.batch_flags: solve_particles accepts params_stride 0
/// (every constraint of the batch has the same params, handed as one record).
#define SN_BATCH_SHARED_PARAMS 1u

/* ------------------------------------------------------------------------ */
/* Host table and entry point                                                */

typedef struct sn_registrar sn_registrar;

/// Functions the host offers to plugins. Statically allocated by the host;
/// valid for the life of the registry.
struct sn_host_api {
  uint32_t size; ///< sizeof(sn_host_api) as built by the host
  uint32_t abi_major, abi_minor;
  /// [main] Registers a type (only inside register_types). Returns 0, or
  /// nonzero if the host refused it (the reason goes to the load error).
  int (*register_type)(sn_registrar *registrar, const sn_constraint_type *type);
  /// Log a line (level 0 info, 1 warning, 2 error). Any thread.
  void (*log)(int level, const char *type_name, const char *message);
};

/// True if the host's table has `field` (newer functions are appended).
#define SN_HOST_HAS(host, field) (offsetof(sn_host_api, field) + sizeof((host)->field) <= (host)->size)

/// The exported entry. Keep the first four fields first, forever.
typedef struct sn_plugin_entry {
  uint32_t abi_major;          ///< SN_PLUGIN_ABI_MAJOR
  uint32_t abi_minor;          ///< SN_PLUGIN_ABI_MINOR the plugin was built with
  uint32_t fingerprint;        ///< SN_PLUGIN_FINGERPRINT
  uint32_t struct_size;        ///< sizeof(sn_plugin_entry)
  const char *library_name;    ///< "acme.ropes", for messages
  const char *library_version; ///< "1.2.0", informational
  /// [main] Called once after the checks pass; registers 0..N types through
  /// host->register_type. Registration is all or nothing: return nonzero (and
  /// a message in err) and the host drops every type this call registered.
  int (*register_types)(const sn_host_api *host, sn_registrar *registrar, char *err, size_t err_capacity);
} sn_plugin_entry;

/// C linkage for the entry when a plugin is written in C++ (a const object
/// at namespace scope would otherwise have internal linkage).
#ifdef __cplusplus
#define SN_PLUGIN_EXTERN_C extern "C"
#else
#define SN_PLUGIN_EXTERN_C
#endif

#define SN_PLUGIN_CAT2(a, b) a##b
#define SN_PLUGIN_CAT(a, b)  SN_PLUGIN_CAT2(a, b)

/// Convenience for plugins: defines the entry. Built as a loadable file it is
/// the exported symbol sn_plugin_entry_v1. Built with SN_PLUGIN_STATIC
/// defined to an identifier (say -DSN_PLUGIN_STATIC=ropes), the same source
/// goes into a static library or a program instead: the entry is the
/// ordinary global sn_plugin_entry_ropes, several plugins link together, and
/// the program registers it with sn_registry_add_static(registry,
/// &sn_plugin_entry_ropes, ...) (declare it with SN_DECLARE_STATIC_PLUGIN).
#ifdef SN_PLUGIN_STATIC
#define SN_DEFINE_PLUGIN(lib_name, lib_version, register_fn)                                                           \
  SN_PLUGIN_EXTERN_C const sn_plugin_entry SN_PLUGIN_CAT(sn_plugin_entry_, SN_PLUGIN_STATIC) = {                       \
      SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR, SN_PLUGIN_FINGERPRINT, (uint32_t)sizeof(sn_plugin_entry),              \
      (lib_name),          (lib_version),       (register_fn)}
#else
#define SN_DEFINE_PLUGIN(lib_name, lib_version, register_fn)                                                           \
  SN_PLUGIN_EXTERN_C SN_PLUGIN_EXPORT const sn_plugin_entry sn_plugin_entry_v1 = {                                     \
      SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR, SN_PLUGIN_FINGERPRINT, (uint32_t)sizeof(sn_plugin_entry),              \
      (lib_name),          (lib_version),       (register_fn)}
#endif

/// SN_DEFINE_PLUGIN with a register_types that registers the listed
/// descriptors in order (pointers to sn_constraint_type objects, at least
/// one): SN_DEFINE_PLUGIN_TYPES("acme.ropes", "1.2.0", &rope_type, &knot_type);
/// The first one the host refuses stops it (all or nothing, as always).
#define SN_DEFINE_PLUGIN_TYPES(lib_name, lib_version, ...)                                                             \
  static int sn_plugin_register_listed(const sn_host_api *host, sn_registrar *registrar, char *err, size_t cap) {      \
    static const sn_constraint_type *const types[] = {__VA_ARGS__};                                                    \
    (void)err, (void)cap;                                                                                              \
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)                                                        \
      if (host->register_type(registrar, types[i]) != 0) return 1;                                                     \
    return 0;                                                                                                          \
  }                                                                                                                    \
  SN_DEFINE_PLUGIN(lib_name, lib_version, sn_plugin_register_listed)

/// Declares a linked-in plugin's entry (name as its SN_PLUGIN_STATIC) for
/// sn_registry_add_static: SN_DECLARE_STATIC_PLUGIN(ropes);
#ifdef __cplusplus
#define SN_DECLARE_STATIC_PLUGIN(name) extern "C" const sn_plugin_entry SN_PLUGIN_CAT(sn_plugin_entry_, name)
#else
#define SN_DECLARE_STATIC_PLUGIN(name) extern const sn_plugin_entry SN_PLUGIN_CAT(sn_plugin_entry_, name)
#endif

#ifdef __cplusplus
}
#endif
#endif /* SINEW_PLUGIN_H */
