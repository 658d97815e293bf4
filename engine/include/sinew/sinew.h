/* Sinew: a 2D physics engine for rigid and soft bodies.
 * sinew.h: the umbrella header and the world, body, shape and query API.
 *
 * Conventions
 * - Every fallible call returns sn_result (SN_OK = 0) or a null id, and then
 *   leaves the world unchanged; sn_world_last_error() says why in words.
 * - Units: metres, kilograms, seconds, radians. Gravity is (0, -10) by default.
 * - A world is an opaque object (sn_world *) owned by the caller; everything
 *   inside it is named by handles (sn_body_id, sn_shape_id, sn_chain_id) that
 *   carry a generation and a world tag: a stale or foreign handle is refused
 *   with SN_ERR_STALE_ID / SN_ERR_FOREIGN_ID, never dereferenced (types.h,
 *   "Handles": a stale id never becomes valid again, and a world refuses the
 *   ids of the 65,534 worlds created before and after it). Worlds are fully
 *   independent; the one state the engine keeps outside them is the counter
 *   that hands out world tags (an atomic).
 * - Callbacks run on a locked world. In every callback the engine makes into
 *   your code or a plugin's (query and debug-draw callbacks, constraint
 *   hooks; and all of sn_world_step) a call that changes the world (creates,
 *   destroys, setters with user data included, sn_world_step,
 *   sn_destroy_world) returns SN_ERR_WORLD_LOCKED and changes nothing: note
 *   what to do and do it after the outer call returns. Reading calls work,
 *   and so do queries, drawing and snapshot saving, except inside a step.
 * - Not thread-safe per world: one thread at a time may call into a world.
 *   Different worlds may be used from different threads.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_SINEW_H
#define SINEW_SINEW_H

#include "sinew/collision.h"
#include "sinew/plugin.h"
#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Library                                                                   */

/// Version string of the library actually linked ("0.1.0").
SN_API const char *sn_version_string(void);

/// Stable symbolic name of a result code ("SN_ERR_NOT_FINITE").
SN_API const char *sn_result_name(sn_result result);

/// One-line description of a result code.
SN_API const char *sn_result_message(sn_result result);

/* ------------------------------------------------------------------------ */
/* Geometry helpers (pure functions, no world needed)                        */

/// Validates a convex polygon given counter-clockwise or clockwise and fills
/// *out (counter-clockwise, normals, centroid). Points closer than 0.5 mm are
/// welded. Refuses NaN/Inf, or coordinates so large (~1e19) that the centroid
/// overflows (SN_ERR_NOT_FINITE), fewer than 3 distinct points, no area, or an
/// outline too thin for float precision (SN_ERR_DEGENERATE_POLYGON), a non-convex outline or collinear
/// middle points (SN_ERR_NON_CONVEX_POLYGON), count > 8 (SN_ERR_TOO_MANY_VERTICES),
/// radius < 0 (SN_ERR_INVALID_ARGUMENT). *out is untouched on error.
SN_API sn_result sn_make_polygon(const sn_vec2 *points, int32_t count, float radius, sn_polygon *out);

/// Convex hull of up to 8 points (any order; interior and collinear points
/// dropped, near-duplicates welded), then as sn_make_polygon.
SN_API sn_result sn_compute_hull(const sn_vec2 *points, int32_t count, float radius, sn_polygon *out);

/// Axis-aligned box centred on the origin with half-extents (hx, hy) > 0.
/// The box helpers validate their result like sn_create_polygon_shape does:
/// a box so small (or, offset, so far from the origin) that rounding leaves it
/// no area or a bad normal is refused with that code.
SN_API sn_result sn_make_box(float hx, float hy, sn_polygon *out);

/// Box with half-extents (hx, hy) centred at center, rotated by angle.
SN_API sn_result sn_make_offset_box(float hx, float hy, sn_vec2 center, float angle, sn_polygon *out);

/// Box with rounded corners: the solid is the box (hx, hy) inflated by radius.
SN_API sn_result sn_make_rounded_box(float hx, float hy, float radius, sn_polygon *out);

/// Mass properties of a shape of the given density (kg/m^2).
SN_API sn_mass_data sn_compute_circle_mass(const sn_circle *circle, float density);
SN_API sn_mass_data sn_compute_capsule_mass(const sn_capsule *capsule, float density);
SN_API sn_mass_data sn_compute_polygon_mass(const sn_polygon *polygon, float density);

/// Rotation from an angle in radians, and back.
SN_API sn_rot sn_make_rot(float angle);
SN_API float sn_rot_get_angle(sn_rot q);

/* ------------------------------------------------------------------------ */
/* World                                                                     */

/// Default world settings: gravity (0, -10), 8 substeps, sleep on, and the
/// default limits: 262144 bodies, 1048576 shapes, 262144 particles, 65536
/// soft bodies, 1048576 constraints, 131072 contacts (SN_DEFAULT_MAX_*).
///
/// Limits (sn_world_def.max_*, 0 .. SN_MAX_WORLD_LIMIT): a world never holds
/// more live objects of a kind than its limit. A create call past it returns
/// a null id with SN_ERR_CAPACITY (sn_world_last_error names the limit) and
/// changes nothing; a soft-body builder, a snapshot or a scene file that
/// would go past one is refused the same way before anything is allocated.
/// Contacts are the exception: the step never fails for them; it creates no
/// contact past max_contacts (shapes whose search for new pairs was cut
/// short search again each later step: those pairs do not collide until
/// contacts end and make room) and leaves particle contact candidates past
/// it out of the step; sn_world_counters.contact_limit_hits reports it. So a
/// crowd of bodies piled on one point costs at most max_contacts contacts.
SN_API sn_world_def sn_default_world_def(void);

/// Creates a world. Returns NULL (and writes *result if not NULL) when the
/// def is invalid or memory runs out.
SN_API sn_world *sn_create_world(const sn_world_def *def, sn_result *result);

/// Destroys a world and everything in it; all its ids become stale.
SN_API sn_result sn_destroy_world(sn_world *world);

/// Advances the world by dt seconds (SN_MIN_TIME_STEP <= dt <= SN_MAX_TIME_STEP,
/// 1e-6 .. 10 s; else SN_ERR_INVALID_ARGUMENT, NaN/Inf SN_ERR_NOT_FINITE), in
/// the world's number of substeps. Events of this step are readable until the next step.
/// Refused (SN_ERR_WORLD_LOCKED) from inside a callback of the engine.
/// SN_ERR_OUT_OF_MEMORY when the allocator fails: the step takes its memory
/// before it changes anything, so the world (and the last step's events) is
/// then exactly as before the call, and a later step with memory gives what
/// a world that never failed gets.
SN_API sn_result sn_world_step(sn_world *world, float dt);

/// Message of the last error raised by a call on this world (empty if none).
SN_API const char *sn_world_last_error(sn_world *world);

/// Gravity, substeps and sleep switches.
SN_API sn_result sn_world_set_gravity(sn_world *world, sn_vec2 gravity);
SN_API sn_vec2 sn_world_get_gravity(sn_world *world);
SN_API sn_result sn_world_set_substeps(sn_world *world, int32_t substeps);
SN_API int32_t sn_world_get_substeps(sn_world *world);
/// Sweeps per substep of the position stage, where rigid joint rows project
/// away the drift the soft velocity rows leave (0 disables; default 2).
SN_API sn_result sn_world_set_position_iterations(sn_world *world, int32_t iterations);
SN_API int32_t sn_world_get_position_iterations(sn_world *world);
/// Threads for the step (as sn_world_def.worker_count, enqueue_task,
/// finish_task, user_task_context): worker_count 1..SN_MAX_WORKERS, callbacks
/// required above 1. Results are bit-identical for every worker count.
SN_API sn_result sn_world_set_task_system(sn_world *world, int32_t worker_count, sn_enqueue_task_callback *enqueue_task,
                                          sn_finish_task_callback *finish_task, void *user_task_context);
SN_API int32_t sn_world_get_worker_count(sn_world *world);
SN_API sn_result sn_world_enable_sleeping(sn_world *world, bool flag);
SN_API bool sn_world_is_sleeping_enabled(sn_world *world);
SN_API sn_result sn_world_enable_continuous(sn_world *world, bool flag);

/// Contact tuning: stiffness (Hz, 0 = automatic), damping ratio, pushout speed.
SN_API sn_result sn_world_set_contact_tuning(sn_world *world, float hertz, float damping_ratio,
                                             float push_max_velocity);

/// Approach speed (m/s) above which a contact reports a hit event (default 1).
SN_API sn_result sn_world_set_hit_event_threshold(sn_world *world, float speed);

/// Joint tuning: the stiffness (Hz) and damping ratio of the position
/// feedback of rigid joints (sn_step_info.joint_hertz and
/// joint_damping_ratio, which the shipped joints use). Hertz 0 (the default)
/// is a quarter of the substep rate, which also caps any other value; the
/// damping ratio defaults to 2. Each 0 .. SN_MAX_CONTACT_TUNING; saved in
/// snapshots and scene files.
SN_API sn_result sn_world_set_joint_hertz(sn_world *world, float hertz);
SN_API float sn_world_get_joint_hertz(sn_world *world);
SN_API sn_result sn_world_set_joint_damping_ratio(sn_world *world, float damping_ratio);
SN_API float sn_world_get_joint_damping_ratio(sn_world *world);

/// Contact events of the last step. The arrays stay where they are, with the
/// same contents, until the next sn_world_step starts, whatever is called in
/// between: a loop over them may destroy the bodies and shapes it reads.
/// End events that calls between steps raise (a touching body or shape
/// destroyed, a body's type changed, a constraint created between touching
/// bodies) are held back and reported by the next step, ahead of its own.
/// The same holds for sn_world_get_broken_constraints and
/// sn_world_get_frozen_events (only a step adds to them).
SN_API sn_contact_events sn_world_get_contact_events(sn_world *world);

/// Sensor events of the last step, kept like the contact events (valid until
/// the next step starts). Each step finds the sensors' overlaps once, at its
/// start (before any body moves), in sensor-shape order and, for each
/// sensor, in visitor order (shapes by index, then soft bodies by index):
/// the same for any worker count. An overlap is thus reported by the step
/// after the one that made it. End events for a visitor or sensor destroyed
/// (or turned off) between steps come with the next step's events.
SN_API sn_sensor_events sn_world_get_sensor_events(sn_world *world);

/// Bodies the last step moved (awake dynamic and kinematic bodies), in body
/// slot order, with their transforms and whether the step put them to
/// sleep. Valid until the next step starts.
SN_API sn_body_events sn_world_get_body_events(sn_world *world);

/// Sets (or, with NULL, clears) the custom filter: see sn_custom_filter_fcn.
/// Pairs already made are not asked again until sn_shape_set_filter. Not
/// saved in snapshots or scene files. SN_ERR_WORLD_LOCKED inside a step or a
/// callback.
SN_API sn_result sn_world_set_custom_filter(sn_world *world, sn_custom_filter_fcn *fcn, void *context);

/// Sets (or, with NULL, clears) the pre-solve callback: see sn_pre_solve_fcn.
/// Not saved in snapshots or scene files. SN_ERR_WORLD_LOCKED inside a step or
/// a callback.
SN_API sn_result sn_world_set_pre_solve(sn_world *world, sn_pre_solve_fcn *fcn, void *context);

/// Counters: bodies, shapes, contacts, islands, memory.
SN_API sn_world_counters sn_world_get_counters(sn_world *world);
/// Stage times of the last sn_world_step (all zero before the first step or
/// for a NULL world). Measured with a monotonic clock: a few clock reads
/// per step.
SN_API sn_world_profile sn_world_get_profile(const sn_world *world);

/// Number of live bodies, and up to capacity of their ids in slot order
/// (the order they were created in, unless slots were reused); returns the
/// number written.
SN_API int32_t sn_world_get_body_count(sn_world *world);
SN_API int32_t sn_world_get_bodies(sn_world *world, sn_body_id *bodies, int32_t capacity);

/// A def that recreates the world's current settings (gravity, substeps,
/// position and soft iterations, sleep, continuous, contact tuning, restitution threshold, maximum speed,
/// registry, limits). The allocator fields are left NULL. The settings
/// sn_world_def has no field for have getters of their own
/// (sn_world_get_hit_event_threshold, sn_world_get_joint_hertz, ...).
SN_API sn_result sn_world_get_def(sn_world *world, sn_world_def *out);
SN_API float sn_world_get_hit_event_threshold(sn_world *world);

/// Settings of an explosion: see sn_explosion_def.
SN_API sn_explosion_def sn_default_explosion_def(void);
/// Applies an explosion's impulses at once (between steps): dynamic bodies
/// whose shapes pass def->mask_bits, and particles if def->affect_particles,
/// are pushed (and woken) as sn_explosion_def describes.
SN_API sn_result sn_world_explode(sn_world *world, const sn_explosion_def *def);

/// The application's pointer on the world (not saved in snapshots or scene files).
SN_API sn_result sn_world_set_user_data(sn_world *world, void *user_data);
SN_API void *sn_world_get_user_data(sn_world *world);

/// Friction of a contact from its two shapes' friction coefficients and
/// material ids (sn_shape_def.material). The default rule is
/// sqrt(friction_a * friction_b); a callback replaces it. A value that is not
/// finite or is negative is not used: the contact keeps the default rule's.
typedef float sn_friction_fcn(float friction_a, int32_t material_a, float friction_b, int32_t material_b,
                              void *context);
/// Restitution of a contact from its two shapes' restitutions and material
/// ids. The default rule is max(restitution_a, restitution_b); a value
/// outside [0, 1] (or NaN) is not used: the contact keeps the default rule's.
typedef float sn_restitution_fcn(float restitution_a, int32_t material_a, float restitution_b, int32_t material_b,
                                 void *context);
/// Sets (or with NULL clears) the friction mixing callback. It runs when a
/// contact is made (inside sn_world_step, on the thread that called it) and
/// when a shape's material changes (sn_shape_set_friction ...), for the
/// contacts made from then on and for the shape's existing ones; setting it
/// mixes every existing contact again. It must not call into the world. The mixed values go into snapshots with the
/// contacts; the callback does not.
SN_API sn_result sn_world_set_friction_callback(sn_world *world, sn_friction_fcn *fcn, void *context);
/// Same for restitution.
SN_API sn_result sn_world_set_restitution_callback(sn_world *world, sn_restitution_fcn *fcn, void *context);
/// The registry the world was created with (may be NULL).
SN_API const struct sn_registry *sn_world_get_registry(sn_world *world);

/* ------------------------------------------------------------------------ */
/* Snapshots: the whole state of a running world as bytes or a file, restored
 * into a new world that steps bit for bit like the original (docs/user-guide.md,
 * "Snapshots"; the format is in docs/architecture.md).
 *
 * Saved: settings, every body, shape, chain, contact (manifolds with feature
 * ids and accumulated impulses), the broadphase trees, sleeping islands,
 * particles, soft bodies and constraints (parameters and instance bytes,
 * keyed by type name and schema), with free slots and generations, so every
 * id of the original names the same object in the restored world and future
 * creations get the same ids. Not saved: user data pointers (NULL after
 * restore), the events of the last step and the end events held for the
 * next, the allocator, the registry and the task system (the caller supplies
 * them). Call between steps (or from a callback: saving only reads). */

/// Writes the snapshot into buffer (capacity bytes) and its size into
/// *out_size. buffer NULL: only measures (*out_size = the bytes needed).
/// A buffer too small: SN_ERR_CAPACITY, *out_size = the bytes needed,
/// buffer untouched. A constraint type with a destroy callback (its instances
/// own memory elsewhere, so bytes cannot copy them): SN_ERR_SNAPSHOT_UNSUPPORTED.
/// The bytes are a pure function of the world's state.
SN_API sn_result sn_world_save_snapshot(sn_world *world, void *buffer, size_t capacity, size_t *out_size);

/// Builds a new world from a snapshot; *out is NULL on failure, and nothing
/// else is created (the half-built world is destroyed). def (NULL = defaults)
/// supplies only the allocator, the registry, the task system (worker
/// count and callbacks; results do not depend on them) and the limits: the
/// settings come from the snapshot. A section with more slots than the
/// def's limit allows (max_bodies, max_shapes for shapes and chains,
/// max_contacts, max_particles, max_soft_bodies, max_constraints) is refused
/// with SN_ERR_CAPACITY before memory is allocated for it; every count is
/// also checked against the bytes left to describe it, so the memory a
/// snapshot can make the loader allocate is bounded by the limits and by its
/// size (at most about 40 bytes per byte: a free slot takes 7). Every constraint type the snapshot uses must be in
/// def->registry with the same schema (sizes, alignments, parameter ids,
/// kinds and offsets): missing SN_ERR_NOT_FOUND, different
/// SN_ERR_SNAPSHOT_TYPE_MISMATCH (also for a parameter outside the
/// registered range).
/// Truncated, damaged (checksum) or inconsistent bytes: SN_ERR_SNAPSHOT_CORRUPT;
/// another format version or platform: SN_ERR_SNAPSHOT_VERSION. err (may be
/// NULL) receives a one-line reason. The restored world uses the original's
/// handle tag: ids of the original are valid in it (and, as the tag comes
/// from the snapshot rather than this process's counter, it may equal the
/// tag of another world here: keep ids with the world they came from).
SN_API sn_result sn_world_load_snapshot(const void *bytes, size_t size, const sn_world_def *def, sn_world **out,
                                        char *err, size_t err_capacity);

/// Saves a snapshot to a file, atomically: the bytes go to a new file in
/// path's folder (unnamed until complete where the system allows, else
/// "<name>.tmp-<8 random characters>", created exclusively), which is
/// flushed to disk (fsync), given the permission bits of the file it
/// replaces (new files: 0666 less the umask) and renamed over path; then the
/// folder is flushed. A symbolic link at path is followed (the file it
/// points to is replaced, the link kept; a link to nothing is refused); a
/// path that exists and is not a regular file is refused. On any failure
/// (SN_ERR_IO, with the step and the system's reason in sn_world_last_error)
/// no temporary file is left and an existing file is left as it was.
SN_API sn_result sn_world_write_snapshot(sn_world *world, const char *path);

/// Reads a snapshot file and builds a new world from it (as
/// sn_world_load_snapshot). A file that cannot be opened or read, or a path
/// that is not a regular file (a FIFO is refused at once, never waited on):
/// SN_ERR_IO.
SN_API sn_result sn_world_read_snapshot(const char *path, const sn_world_def *def, sn_world **out, char *err,
                                        size_t err_capacity);

/* ------------------------------------------------------------------------ */
/* Bodies                                                                    */

/// Default body settings: static, at the origin, gravity scale 1, awake.
SN_API sn_body_def sn_default_body_def(void);

/// Creates a body. Returns a null id on invalid input (NaN, bad type, ...),
/// or with SN_ERR_CAPACITY when the world has max_bodies bodies.
SN_API sn_body_id sn_create_body(sn_world *world, const sn_body_def *def);

/// Destroys a body with its shapes and contacts.
SN_API sn_result sn_destroy_body(sn_world *world, sn_body_id body);

/// True if the id names a live body.
SN_API bool sn_body_is_valid(sn_world *world, sn_body_id body);

SN_API sn_body_type sn_body_get_type(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_type(sn_world *world, sn_body_id body, sn_body_type type);

/// Position of the body origin and angle (radians).
SN_API sn_vec2 sn_body_get_position(sn_world *world, sn_body_id body);
SN_API float sn_body_get_angle(sn_world *world, sn_body_id body);
SN_API sn_rot sn_body_get_rotation(sn_world *world, sn_body_id body);
SN_API sn_transform sn_body_get_transform(sn_world *world, sn_body_id body);
/// Teleports the body (wakes it). Refuses NaN/Inf.
SN_API sn_result sn_body_set_transform(sn_world *world, sn_body_id body, sn_vec2 position, float angle);

/// World position of the centre of mass.
SN_API sn_vec2 sn_body_get_world_center_of_mass(sn_world *world, sn_body_id body);
SN_API sn_vec2 sn_body_get_local_center_of_mass(sn_world *world, sn_body_id body);

/// Velocity of the centre of mass (m/s) and angular velocity (rad/s).
SN_API sn_vec2 sn_body_get_linear_velocity(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_linear_velocity(sn_world *world, sn_body_id body, sn_vec2 velocity);
SN_API float sn_body_get_angular_velocity(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_angular_velocity(sn_world *world, sn_body_id body, float omega);

/// Forces act until the end of the next step; impulses act at once.
SN_API sn_result sn_body_apply_force(sn_world *world, sn_body_id body, sn_vec2 force, sn_vec2 world_point, bool wake);
SN_API sn_result sn_body_apply_force_to_center(sn_world *world, sn_body_id body, sn_vec2 force, bool wake);
SN_API sn_result sn_body_apply_torque(sn_world *world, sn_body_id body, float torque, bool wake);
SN_API sn_result sn_body_apply_linear_impulse(sn_world *world, sn_body_id body, sn_vec2 impulse, sn_vec2 world_point,
                                              bool wake);
SN_API sn_result sn_body_apply_angular_impulse(sn_world *world, sn_body_id body, float impulse, bool wake);

SN_API float sn_body_get_mass(sn_world *world, sn_body_id body);
SN_API float sn_body_get_rotational_inertia(sn_world *world, sn_body_id body);
SN_API sn_mass_data sn_body_get_mass_data(sn_world *world, sn_body_id body);
/// Overrides a dynamic body's mass (> 0), centre of mass (body frame) and
/// rotational inertia about it (>= 0; ignored while the rotation is fixed).
/// The override holds until the mass is computed from the shapes again: a
/// shape added or destroyed with update_mass, a density change with
/// update_mass, sn_body_set_fixed_rotation, sn_body_apply_mass_from_shapes.
/// Wakes the body. Snapshots keep it.
SN_API sn_result sn_body_set_mass_data(sn_world *world, sn_body_id body, sn_mass_data mass_data);
/// Mass, centre of mass and inertia from the body's shapes (undoes sn_body_set_mass_data).
SN_API sn_result sn_body_apply_mass_from_shapes(sn_world *world, sn_body_id body);
/// Rotation fixed (no rotational inertia, angular velocity 0) or free; the
/// mass is computed from the shapes again. Wakes the body.
SN_API sn_result sn_body_set_fixed_rotation(sn_world *world, sn_body_id body, bool flag);
SN_API bool sn_body_is_fixed_rotation(sn_world *world, sn_body_id body);
/// Sets a kinematic (or dynamic) body's velocities so that it reaches the
/// transform (position of the origin, angle) after time_step seconds of
/// motion (the step's dt): the way to drive a moving platform or a door
/// along a path while it pushes what it meets. The turn taken is the
/// shortest one (under half a turn). Wakes the body. SN_ERR_WRONG_BODY_TYPE
/// for a static body; SN_ERR_INVALID_ARGUMENT for time_step <= 0 or a
/// target beyond SN_MAX_SPEED x time_step.
/// Takes a body out of the simulation, keeping its state: its shapes leave
/// the broadphase (no contacts, queries, particles or explosions find them),
/// its contacts end (with end events), it is never awake (forces, impulses
/// and wake calls have no effect) and the constraints on it idle. Its
/// sleeping island, if any, wakes. A no-op on a disabled body. Snapshots and
/// scene files keep the state.
SN_API sn_result sn_body_disable(sn_world *world, sn_body_id body);
/// Puts a disabled body back (awake unless static); SN_ERR_OUT_OF_MEMORY
/// (and still disabled) if the broadphase cannot grow.
SN_API sn_result sn_body_enable(sn_world *world, sn_body_id body);
SN_API bool sn_body_is_enabled(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_target_transform(sn_world *world, sn_body_id body, sn_vec2 position, float angle,
                                              float time_step);

SN_API sn_result sn_body_set_linear_damping(sn_world *world, sn_body_id body, float damping);
SN_API float sn_body_get_linear_damping(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_angular_damping(sn_world *world, sn_body_id body, float damping);
SN_API float sn_body_get_angular_damping(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_gravity_scale(sn_world *world, sn_body_id body, float scale);
SN_API float sn_body_get_gravity_scale(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_bullet(sn_world *world, sn_body_id body, bool flag);
SN_API bool sn_body_is_bullet(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_user_data(sn_world *world, sn_body_id body, void *user_data);
SN_API void *sn_body_get_user_data(sn_world *world, sn_body_id body);

/// Sleep state. Waking a body wakes its island.
SN_API bool sn_body_is_awake(sn_world *world, sn_body_id body);
SN_API sn_result sn_body_set_awake(sn_world *world, sn_body_id body, bool awake);
SN_API sn_result sn_body_enable_sleep(sn_world *world, sn_body_id body, bool flag);
/// The body's sleep threshold (sn_body_def.sleep_threshold, m/s): finite
/// and >= 0, else SN_ERR_NOT_FINITE / SN_ERR_INVALID_ARGUMENT and nothing
/// changes. It takes effect from the next step; it wakes nothing.
SN_API sn_result sn_body_set_sleep_threshold(sn_world *world, sn_body_id body, float threshold);
/// The body's sleep threshold (0 for a bad handle, error set).
SN_API float sn_body_get_sleep_threshold(sn_world *world, sn_body_id body);

/// Point conversions between body-local and world frames.
SN_API sn_vec2 sn_body_get_world_point(sn_world *world, sn_body_id body, sn_vec2 local_point);
SN_API sn_vec2 sn_body_get_local_point(sn_world *world, sn_body_id body, sn_vec2 world_point);

/// Number of shapes and up to capacity of their ids; returns the count written.
SN_API int32_t sn_body_get_shape_count(sn_world *world, sn_body_id body);
SN_API int32_t sn_body_get_shapes(sn_world *world, sn_body_id body, sn_shape_id *shapes, int32_t capacity);

/// A def that recreates the body as it is now: type, pose, velocities,
/// damping, gravity scale, bullet, awake, sleep and fixed-rotation flags, user
/// data. def.angle is chosen so that sn_make_rot(angle) gives the body's
/// rotation bit for bit whenever such an angle exists (always for a body
/// placed by an angle in [-5 pi, 5 pi] and not rotated since); otherwise it
/// is within an ulp or two of atan2, chosen so that def -> body -> def gives
/// the same angle again, and def.rotation holds the rotation exactly (so the
/// body created from the def has it bit for bit). def.linear_velocity is the centre of mass's
/// (sn_body_get_linear_velocity): adding shapes that move the centre of mass
/// of a spinning body changes it, so set it again after the shapes.
SN_API sn_result sn_body_get_def(sn_world *world, sn_body_id body, sn_body_def *out);

/* ------------------------------------------------------------------------ */
/* Shapes. Creating a shape on a dynamic body updates its mass from density
 * (in constant time: a body of N shapes is built in O(N)); it does not wake
 * a sleeping body (one created asleep stays asleep until something awake
 * touches it). Past the world's max_shapes: SN_ERR_CAPACITY.                 */

/// Default shape settings: density 1, friction 0.6, restitution 0.
SN_API sn_shape_def sn_default_shape_def(void);

SN_API sn_shape_id sn_create_circle_shape(sn_world *world, sn_body_id body, const sn_shape_def *def,
                                          const sn_circle *circle);
SN_API sn_shape_id sn_create_capsule_shape(sn_world *world, sn_body_id body, const sn_shape_def *def,
                                           const sn_capsule *capsule);
/// Polygons must come from sn_make_polygon / sn_compute_hull / box helpers; the
/// engine validates them again.
SN_API sn_shape_id sn_create_polygon_shape(sn_world *world, sn_body_id body, const sn_shape_def *def,
                                           const sn_polygon *polygon);
/// Segments fit any body type. They have no area, hence no mass: a dynamic
/// body needs another shape with density, or sn_body_set_mass_data, to be
/// pushed by contacts. Segments collide with circles, capsules and polygons
/// (not with other segments or chains).
SN_API sn_shape_id sn_create_segment_shape(sn_world *world, sn_body_id body, const sn_shape_def *def,
                                           const sn_segment *segment);

/// Destroys a shape; update_mass recomputes the body's mass at once.
SN_API sn_result sn_destroy_shape(sn_world *world, sn_shape_id shape, bool update_mass);
SN_API bool sn_shape_is_valid(sn_world *world, sn_shape_id shape);
SN_API sn_shape_type sn_shape_get_type(sn_world *world, sn_shape_id shape);
SN_API sn_body_id sn_shape_get_body(sn_world *world, sn_shape_id shape);
SN_API sn_result sn_shape_set_friction(sn_world *world, sn_shape_id shape, float friction);
SN_API float sn_shape_get_friction(sn_world *world, sn_shape_id shape);
SN_API sn_result sn_shape_set_restitution(sn_world *world, sn_shape_id shape, float restitution);
SN_API float sn_shape_get_restitution(sn_world *world, sn_shape_id shape);
/// Rolling resistance coefficient (sn_shape_def.rolling_resistance), >= 0.
SN_API sn_result sn_shape_set_rolling_resistance(sn_world *world, sn_shape_id shape, float rolling_resistance);
SN_API float sn_shape_get_rolling_resistance(sn_world *world, sn_shape_id shape);
/// Surface speed (sn_shape_def.tangent_speed), m/s, |speed| <= SN_MAX_SPEED;
/// wakes the bodies touching the shape.
SN_API sn_result sn_shape_set_tangent_speed(sn_world *world, sn_shape_id shape, float speed);
SN_API float sn_shape_get_tangent_speed(sn_world *world, sn_shape_id shape);
/// User material id for the mixing callbacks (sn_shape_def.material); the
/// shape's contacts are mixed again.
SN_API sn_result sn_shape_set_material(sn_world *world, sn_shape_id shape, int32_t material);
SN_API int32_t sn_shape_get_material(sn_world *world, sn_shape_id shape);
SN_API sn_result sn_shape_set_density(sn_world *world, sn_shape_id shape, float density, bool update_mass);
SN_API float sn_shape_get_density(sn_world *world, sn_shape_id shape);
SN_API sn_aabb sn_shape_get_aabb(sn_world *world, sn_shape_id shape);
SN_API sn_result sn_shape_set_user_data(sn_world *world, sn_shape_id shape, void *user_data);
SN_API void *sn_shape_get_user_data(sn_world *world, sn_shape_id shape);
/// Geometry readers; return SN_ERR_INVALID_ARGUMENT if the shape is another type.
SN_API sn_result sn_shape_get_circle(sn_world *world, sn_shape_id shape, sn_circle *out);
SN_API sn_result sn_shape_get_capsule(sn_world *world, sn_shape_id shape, sn_capsule *out);
SN_API sn_result sn_shape_get_polygon(sn_world *world, sn_shape_id shape, sn_polygon *out);
SN_API sn_result sn_shape_get_segment(sn_world *world, sn_shape_id shape, sn_segment *out);
/// Gives a shape new geometry (of any kind: a circle may become a polygon),
/// checked as at creation. Its contacts end at once (with end events; they
/// begin again at the next step if the shapes still touch), the body's mass
/// is computed from its shapes again (undoing sn_body_set_mass_data) and the
/// body wakes. A chain's segments keep theirs (SN_ERR_INVALID_ARGUMENT).
SN_API sn_result sn_shape_set_circle(sn_world *world, sn_shape_id shape, const sn_circle *circle);
SN_API sn_result sn_shape_set_capsule(sn_world *world, sn_shape_id shape, const sn_capsule *capsule);
SN_API sn_result sn_shape_set_polygon(sn_world *world, sn_shape_id shape, const sn_polygon *polygon);
SN_API sn_result sn_shape_set_segment(sn_world *world, sn_shape_id shape, const sn_segment *segment);

/// True if the world point lies inside the shape.
SN_API bool sn_shape_test_point(sn_world *world, sn_shape_id shape, sn_vec2 point);

/// Changes the shape's collision filter (sn_filter). Its contacts that no
/// longer pass are destroyed at once (end events, for touching ones with
/// events, come with the next step's); pairs the new filter allows are found
/// by the next step. Wakes the shape's body. SN_ERR_STALE_ID and the like
/// for a bad handle, SN_ERR_WORLD_LOCKED inside a step or a callback.
SN_API sn_result sn_shape_set_filter(sn_world *world, sn_shape_id shape, sn_filter filter);
/// The shape's collision filter ({0, 0, 0} for a bad handle, error set).
SN_API sn_filter sn_shape_get_filter(sn_world *world, sn_shape_id shape);
/// True if the shape is a sensor (false for a bad handle, error set).
SN_API bool sn_shape_is_sensor(sn_world *world, sn_shape_id shape);

/// The shapes overlapping a sensor as the last step found them, in shape
/// index order, up to capacity (a soft body's particles inside are not
/// listed: see the sensor events). Returns the number written, or -1 (error
/// set) for a bad handle, a shape that is not a sensor, a negative capacity,
/// or NULL with capacity > 0. With capacity 0 (overlaps may be NULL), returns
/// the count.
SN_API int32_t sn_shape_get_sensor_overlaps(sn_world *world, sn_shape_id sensor, sn_shape_id *overlaps,
                                            int32_t capacity);

/// Number of touching contacts of the body (0 for a bad handle, error set).
SN_API int32_t sn_body_get_contact_count(sn_world *world, sn_body_id body);
/// The body's touching contacts as the last step left them (newest first),
/// up to capacity; returns the number written, or -1 (error set) for a bad
/// handle, a negative capacity, or NULL with capacity > 0.
SN_API int32_t sn_body_get_contacts(sn_world *world, sn_body_id body, sn_contact_data *contacts, int32_t capacity);
/// The shape's touching contacts, as sn_body_get_contacts.
SN_API int32_t sn_shape_get_contacts(sn_world *world, sn_shape_id shape, sn_contact_data *contacts, int32_t capacity);

/// Default chain settings.
SN_API sn_chain_def sn_default_chain_def(void);
/// Creates a chain of one-sided segments on a body of any type (they have
/// no mass: see sn_create_segment_shape). Bodies collide
/// with each segment from its right side (the collision normal is the right
/// perpendicular of point[i] -> point[i+1]); the left side is solid. So a
/// counter-clockwise loop is a solid island and a clockwise loop is a
/// container. Boxes slide across the seams without snagging. An open chain's
/// first and last points are ghosts: they shape the ends but make no segment.
SN_API sn_chain_id sn_create_chain(sn_world *world, sn_body_id body, const sn_chain_def *def);
SN_API sn_result sn_destroy_chain(sn_world *world, sn_chain_id chain);
SN_API bool sn_chain_is_valid(sn_world *world, sn_chain_id chain);
/// The application's pointer on a chain (sn_chain_def.user_data; its segments' shapes carry it too).
SN_API sn_result sn_chain_set_user_data(sn_world *world, sn_chain_id chain, void *user_data);
SN_API void *sn_chain_get_user_data(sn_world *world, sn_chain_id chain);
/// A def that recreates the chain: is_loop, count (its points), and the
/// material and filter of its segments as the first segment has them
/// (sn_shape_set_friction and the like may change one segment), user data;
/// points is NULL (read them with sn_chain_get_points). An open chain whose
/// points make exactly the segments of a loop (its last three points repeat
/// its first three) reads as that loop, which is the same chain.
/// SN_ERR_STALE_ID and the like for a bad handle, SN_ERR_NULL for a NULL out.
SN_API sn_result sn_chain_get_def(sn_world *world, sn_chain_id chain, sn_chain_def *out);
/// The chain's points in the body's frame, as sn_chain_get_def's count
/// says: up to capacity, returning the number written; with capacity 0
/// (points may be NULL) the count. -1 (error set) for a bad handle, a
/// negative capacity, or NULL with capacity > 0.
SN_API int32_t sn_chain_get_points(sn_world *world, sn_chain_id chain, sn_vec2 *points, int32_t capacity);
/// The chain a shape is a segment of; the null id for a shape of its own
/// (and for a bad handle, error set).
SN_API sn_chain_id sn_shape_get_parent_chain(sn_world *world, sn_shape_id shape);

/// A def that recreates the shape's settings: density, friction,
/// restitution, event flags, the sensor flag and the callback opt-ins,
/// collision filter (group included), user data.
SN_API sn_result sn_shape_get_def(sn_world *world, sn_shape_id shape, sn_shape_def *out);

/* ------------------------------------------------------------------------ */
/* Queries: call between steps or from inside a callback of the engine (a
 * query nests); during a step they return SN_ERR_WORLD_LOCKED. Every query
 * checks its arguments first (NaN/Inf: SN_ERR_NOT_FINITE; a point beyond
 * SN_MAX_COORDINATE, a translation longer than 2 * SN_MAX_COORDINATE, a
 * proxy without extent: SN_ERR_INVALID_ARGUMENT; a NULL callback or result:
 * SN_ERR_NULL) and then changes nothing. Shapes are filtered by an
 * sn_query_filter; chain segments count as two-sided segments. Callbacks
 * see shapes in no particular order. docs/user-guide.md, "Queries".        */

/// Return false to stop the query. Runs on a locked world: it may read the
/// world and query it again, but calls that change the world (destroying the
/// shape's body, creating bodies, ...) return SN_ERR_WORLD_LOCKED; collect
/// the ids and change the world after the query returns.
typedef bool sn_overlap_fcn(sn_shape_id shape, void *context);

/// Calls fcn for every shape the filter accepts whose bounding box (tight:
/// the shape's own, as sn_shape_get_aabb, not the broadphase's enlarged box)
/// overlaps aabb. aabb lower > upper: SN_ERR_INVALID_ARGUMENT.
SN_API sn_result sn_world_overlap_aabb(sn_world *world, sn_aabb aabb, sn_query_filter filter, sn_overlap_fcn *fcn,
                                       void *context);

/// Calls fcn for every shape the filter accepts that overlaps the proxy
/// (world coordinates): exact, the GJK distance of the rounded shapes is 0
/// (touching counts). Segments overlap what crosses or touches them.
SN_API sn_result sn_world_overlap_shape(sn_world *world, const sn_shape_proxy *proxy, sn_query_filter filter,
                                        sn_overlap_fcn *fcn, void *context);

/// Calls fcn for every shape that contains the point (all shapes: no filter).
SN_API sn_result sn_world_query_point(sn_world *world, sn_vec2 point, sn_overlap_fcn *fcn, void *context);

/// Called for each shape a ray or shape cast hits: the hit shape, the world
/// point and the shape's outward surface normal there, and the fraction of
/// the translation at the hit. What it returns steers the cast:
/// - a negative value (-1): ignore this hit, the cast goes on unchanged;
/// - 0: stop the cast now;
/// - fraction (the value it was given): clip the cast there, so only hits
///   at or before it are reported from now on (the closest-hit idiom: the
///   last hit reported is the closest);
/// - 1: go on unchanged (every hit is reported);
/// - any other value in (0, 1] clips the cast to it (values above 1 count as 1).
/// Runs on a locked world, like sn_overlap_fcn.
typedef float sn_cast_result_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context);

/// Casts the ray origin -> origin + translation against the shapes the
/// filter accepts and calls fcn for each hit as sn_cast_result_fcn says. A
/// ray starting inside a solid shape does not hit it. Sensor shapes are not
/// solid: ray casts, shape casts and the mover's queries pass through them
/// (the overlap and point queries report them).
SN_API sn_result sn_world_cast_ray(sn_world *world, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                                   sn_cast_result_fcn *fcn, void *context);

/// Closest hit along origin -> origin + translation among the shapes the
/// filter accepts (result->hit false if none).
SN_API sn_result sn_world_cast_ray_closest(sn_world *world, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                                           sn_ray_result *result);

/// Every hit along the ray, at most capacity of them (the closest ones),
/// written to results sorted by fraction (equal fractions: in the order
/// found); *count is the number written. results may be NULL when capacity
/// is 0 (capacity < 0: SN_ERR_INVALID_ARGUMENT).
SN_API sn_result sn_world_cast_ray_all(sn_world *world, sn_vec2 origin, sn_vec2 translation, sn_query_filter filter,
                                       sn_ray_result *results, int32_t capacity, int32_t *count);

/// Casts the proxy (world coordinates) along translation against the shapes
/// the filter accepts (sn_compute_shape_cast for each: the fraction at which
/// the rounded shapes first touch, within 2e-5 m) and calls fcn for each hit
/// as sn_cast_result_fcn says. A shape the proxy overlaps at the start is
/// hit at fraction 0 (its normal is zero when the proxy's points are inside
/// the shape's).
SN_API sn_result sn_world_cast_shape(sn_world *world, const sn_shape_proxy *proxy, sn_vec2 translation,
                                     sn_query_filter filter, sn_cast_result_fcn *fcn, void *context);

/* Particles have no collision filter: these report every particle of radius
 * > 0 (a particle is its disc). They visit particles in slot order. */

/// Return false to stop the query (runs on a locked world).
typedef bool sn_particle_overlap_fcn(sn_particle_id particle, void *context);

/// Calls fcn for every particle whose disc's bounding box overlaps aabb.
SN_API sn_result sn_world_overlap_particles_aabb(sn_world *world, sn_aabb aabb, sn_particle_overlap_fcn *fcn,
                                                 void *context);

/// As sn_cast_result_fcn, for a particle's disc.
typedef float sn_particle_cast_fcn(sn_particle_id particle, sn_vec2 point, sn_vec2 normal, float fraction,
                                   void *context);

/// Casts the ray against the particles' discs (a ray starting inside a disc
/// does not hit it); fcn steers it as sn_cast_result_fcn.
SN_API sn_result sn_world_cast_ray_particles(sn_world *world, sn_vec2 origin, sn_vec2 translation,
                                             sn_particle_cast_fcn *fcn, void *context);

/// A particle touching a proxy.
typedef struct sn_particle_contact {
  sn_particle_id particle;
  sn_vec2 point;    ///< closest point of the proxy's surface to the particle's centre (world)
  sn_vec2 normal;   ///< unit, from the proxy towards the particle; zero when its centre is inside the proxy's points
  float separation; ///< gap between the proxy and the disc (m), <= 0
} sn_particle_contact;

/// Return false to stop the query (runs on a locked world).
typedef bool sn_particle_contact_fcn(const sn_particle_contact *contact, void *context);

/// Calls fcn for every particle whose disc overlaps or touches the proxy
/// (world coordinates). A character mover pushes soft bodies with it
/// (docs/user-guide.md, "Character movement").
SN_API sn_result sn_world_overlap_particles_shape(sn_world *world, const sn_shape_proxy *proxy,
                                                  sn_particle_contact_fcn *fcn, void *context);

/* ------------------------------------------------------------------------ */
/* Character mover: a capsule moved by the caller, not by the solver. Each
 * frame: collect the planes it touches (sn_world_collide_mover), correct the
 * wanted translation with them (sn_solve_planes), cast the capsule along the
 * result (sn_world_cast_mover) and move it by the fraction found; repeat a
 * few times; then remove the velocity into the planes (sn_clip_vector).
 * docs/user-guide.md, "Character movement".                                */

/// Shapes within this gap (m) of the mover are reported as planes by
/// sn_world_collide_mover.
#define SN_MOVER_CONTACT_DISTANCE 0.01f

/// A plane the mover touches.
typedef struct sn_plane_result {
  sn_vec2 normal;   ///< unit, from the shape towards the mover
  float separation; ///< gap (m), negative when overlapping; < SN_MOVER_CONTACT_DISTANCE
  sn_vec2 point;    ///< closest point on the shape's surface (world)
} sn_plane_result;

/// Return false to stop the query (runs on a locked world).
typedef bool sn_plane_result_fcn(sn_shape_id shape, const sn_plane_result *plane, void *context);

/// How far the mover (a capsule in world coordinates, radius > 0) can move
/// along translation before it hits a shape the filter accepts: *fraction
/// in [0, 1], 1 if nothing is in the way. A shape the mover already touches
/// (gap below one linear slop, 5 mm) only stops motion that would take the
/// mover more than 5 mm deeper into it, so the mover slides along the ground
/// and walls it rests on; one whose core the mover's segment has entered is
/// ignored (the planes push the mover out of it).
SN_API sn_result sn_world_cast_mover(sn_world *world, const sn_capsule *mover, sn_vec2 translation,
                                     sn_query_filter filter, float *fraction);

/// Calls fcn with the contact plane of every shape the filter accepts
/// within SN_MOVER_CONTACT_DISTANCE of the mover (a capsule in world
/// coordinates, radius > 0). Shapes whose core the mover's segment has
/// entered give no plane (their normal is unknown).
SN_API sn_result sn_world_collide_mover(sn_world *world, const sn_capsule *mover, sn_query_filter filter,
                                        sn_plane_result_fcn *fcn, void *context);

/* ------------------------------------------------------------------------ */
/* Constraints of registered types (joints, springs, ...)                     */

/// Default constraint settings (no type, no bodies, unbreakable).
SN_API sn_constraint_def sn_default_constraint_def(void);
/// Creates a constraint of def->type from the world's registry between the
/// given bodies, with parameters checked against the type's schema (unknown
/// name: SN_ERR_NOT_FOUND; out of range or NaN: refused). Null id on error.
SN_API sn_constraint_id sn_create_constraint(sn_world *world, const sn_constraint_def *def);
SN_API sn_result sn_destroy_constraint(sn_world *world, sn_constraint_id constraint);
SN_API bool sn_constraint_is_valid(sn_world *world, sn_constraint_id constraint);
/// Changes a parameter marked SN_PARAM_RUNTIME and wakes the joined bodies.
/// Refused, with the constraint left exactly as it was: an unknown name
/// (SN_ERR_NOT_FOUND), a parameter fixed at creation, a value outside the
/// schema's range or not a whole number for an int or bool parameter
/// (SN_ERR_INVALID_ARGUMENT), NaN or infinity (SN_ERR_NOT_FINITE), a value
/// the type's params_changed refuses (SN_ERR_INVALID_ARGUMENT), a call from
/// a callback or during a step (SN_ERR_WORLD_LOCKED). y is read only for
/// vec2 parameters.
SN_API sn_result sn_constraint_set_param(sn_world *world, sn_constraint_id constraint, const char *name, double x,
                                         double y);
/// Reads a parameter (y is 0 for scalars).
SN_API sn_result sn_constraint_get_param(sn_world *world, sn_constraint_id constraint, const char *name, double *x,
                                         double *y);
/// Writes into out (size bytes, at least the type's params_size; any
/// alignment) a params blob that recreates this constraint as it is defined
/// now, whatever its bodies' poses when it is created again: the type's
/// export_params callback pins what create() derived from the poses at
/// creation (local anchors, reference angle, rest lengths, ...; see
/// docs/plugins.md), a type without the callback gives a copy of its
/// parameters. The blob follows the type's schema (sn_constraint_get_type:
/// each parameter's offset and kind) and every value is within its range,
/// so setting each by name in a sn_constraint_def recreates the constraint.
/// Accumulated impulses and other solver state are not part of it. Call
/// between steps. SN_ERR_INVALID_ARGUMENT if size is too small,
/// SN_ERR_PLUGIN_INIT_FAILED if the callback refuses or writes an
/// out-of-range value (out is then left unchanged).
SN_API sn_result sn_constraint_export_params(sn_world *world, sn_constraint_id constraint, void *out, size_t size);
/// Reads a value the constraint's type publishes (its state schema:
/// sn_constraint_get_type(world, constraint)->states, state_count entries,
/// listed like the parameters), computed now from the constraint and the
/// current poses and velocities of its bodies: a revolute joint's "angle"
/// (rad) or "speed" (rad/s), a prismatic joint's "translation" (m), a
/// motor's torque over the last step (N m)... y is 0 for scalars.
/// SN_ERR_NOT_FOUND if the type has no state of that name, SN_ERR_NULL for
/// NULL x or y, SN_ERR_WORLD_LOCKED during a step. Call between steps.
SN_API sn_result sn_constraint_get_state(sn_world *world, sn_constraint_id constraint, const char *name, double *x,
                                         double *y);
/// Reaction force (N) and torque (N m) on the second body over the last step
/// (SN_ERR_OUT_OF_MEMORY if the views of a constraint with more than 8
/// bodies and particles cannot be allocated).
SN_API sn_result sn_constraint_get_reaction(sn_world *world, sn_constraint_id constraint, sn_vec2 *force,
                                            float *torque);
/// Constraints that broke in the last step.
/// Changes the force (N) above which the constraint breaks; 0 = never.
SN_API sn_result sn_constraint_set_break_force(sn_world *world, sn_constraint_id constraint, float force);
SN_API float sn_constraint_get_break_force(sn_world *world, sn_constraint_id constraint);
SN_API int32_t sn_world_get_broken_constraints(sn_world *world, const sn_constraint_broken_event **events);
/// Bodies and particles frozen during the last step because their state went
/// non-finite or beyond +-SN_MAX_COORDINATE (see sn_frozen_event); valid
/// until the next step.
SN_API int32_t sn_world_get_frozen_events(sn_world *world, const sn_frozen_event **events);
/// True if the body was frozen (see sn_frozen_event) and not teleported since.
SN_API bool sn_body_is_frozen(sn_world *world, sn_body_id body);

/// Number of live constraints, and up to capacity of their ids in slot
/// order; returns the number written.
SN_API int32_t sn_world_get_constraint_count(sn_world *world);
SN_API int32_t sn_world_get_constraints(sn_world *world, sn_constraint_id *constraints, int32_t capacity);
/// The constraint's type (the registry's copy: name and parameter schema),
/// or NULL if the id is stale; its name.
SN_API const sn_constraint_type *sn_constraint_get_type(sn_world *world, sn_constraint_id constraint);
SN_API const char *sn_constraint_get_type_name(sn_world *world, sn_constraint_id constraint);
/// Writes the joined bodies into bodies[0..1] (unused slots null) and
/// returns the type's body count; 0 if the id is stale.
SN_API int32_t sn_constraint_get_bodies(sn_world *world, sn_constraint_id constraint,
                                        sn_body_id bodies[SN_MAX_CONSTRAINT_BODIES]);
/// collide_connected as created (false: the joined bodies do not collide
/// with each other, nor the joined particles with the joined bodies).
SN_API bool sn_constraint_get_collide_connected(sn_world *world, sn_constraint_id constraint);
/// The application's pointer on a constraint (sn_constraint_def.user_data).
SN_API sn_result sn_constraint_set_user_data(sn_world *world, sn_constraint_id constraint, void *user_data);
SN_API void *sn_constraint_get_user_data(sn_world *world, sn_constraint_id constraint);

/* ------------------------------------------------------------------------ */
/* Constraint type registry and plugin loader                                 */

/// A set of constraint types (built-in and loaded from plugins). Owned by the
/// caller; the engine keeps no global registry. Plugins stay loaded until the
/// registry is destroyed.
typedef struct sn_registry sn_registry;

/// Creates an empty registry (allocator NULL = malloc/free).
SN_API sn_registry *sn_create_registry(const sn_allocator *allocator);
/// Destroys the registry and unloads its plugins. Destroy every world that
/// uses it first (their constraints run the plugins' code).
SN_API sn_result sn_destroy_registry(sn_registry *registry);

/// Registers a type from the host program (the same descriptor plugins use,
/// in the form of this library's sinew/plugin.h: create takes
/// sn_constraint_create_args). On failure err (if not NULL) receives a
/// message; nothing is registered.
SN_API sn_result sn_registry_add_type(sn_registry *registry, const sn_constraint_type *type, char *err,
                                      size_t err_capacity);

/// Loads one plugin by path (it must contain a '/' (or, on Windows, a '\\'): the current directory
/// and the library search path are never searched). The file is opened
/// once and must be a regular file, not a symbolic link, owned by root or
/// the effective user and not writable by group or others; so must every
/// folder above it (a root-owned sticky folder such as /tmp is accepted
/// above the file's own folder): else SN_ERR_PLUGIN_INSECURE_PATH. The
/// library is loaded from that open file (never by name again), which runs
/// its constructors: a plugin is trusted code (docs/plugins.md). All of the
/// plugin's types are registered, or none; on failure the result code says
/// why and err names the file, the rule or symbol and both versions.
/// Loading the same file twice is a no-op. The registry keeps each loaded
/// plugin's file open until it is destroyed.
SN_API sn_result sn_registry_load_plugin(sn_registry *registry, const char *path, char *err, size_t err_capacity);

/// Registers the types of a plugin linked into the program: a plugin source
/// built with SN_PLUGIN_STATIC defined (its entry is then the ordinary global
/// sn_plugin_entry_<SN_PLUGIN_STATIC>, see sinew/plugin.h), the same
/// descriptor as a loaded file and the same checks (ABI, fingerprint, each
/// type), all types or none. Adding the same entry twice is a no-op (SN_OK;
/// err says so). Works in every build, SINEW_DLOPEN off included (then
/// sn_registry_load_plugin and sn_registry_load_directory refuse with
/// SN_ERR_PLUGIN_OPEN). sinew/plugins_static.h registers every shipped type.
struct sn_plugin_entry;
SN_API sn_result sn_registry_add_static(sn_registry *registry, const struct sn_plugin_entry *entry, char *err,
                                        size_t err_capacity);

/// Called for each file sn_registry_load_directory tries.
typedef void sn_plugin_load_fcn(const char *path, sn_result result, const char *message, void *context);

/// Loads every file ending in ".so" (".dll" on Windows) in dir, in sorted name order, each as
/// sn_registry_load_plugin (with its rules).
/// Returns SN_OK if the folder was read (per-file results go to fcn, which
/// may be NULL), else why not.
SN_API sn_result sn_registry_load_directory(sn_registry *registry, const char *dir, sn_plugin_load_fcn *fcn,
                                            void *context);

/// Where plugins are looked for. Every entry point (this library, the scene
/// loader, the sandbox, the benchmark) searches in one order: paths the
/// caller names explicitly; then each folder of the SINEW_PLUGIN_PATH
/// environment variable (':'-separated, ';' on Windows, empty entries skipped); then the
/// plugin folder installed with the library, found at run time from where
/// libsinew itself is (sn_default_plugin_dir), so a moved install still finds
/// its plugins.
///
/// sn_default_plugin_dir writes that installed folder into out (capacity
/// bytes): <dir>/sinew/plugins when the library sits in <dir> (a shared
/// libsinew in <prefix>/<libdir>), else <dir>/../<libdir>/sinew/plugins (a
/// program with libsinew linked in, in <prefix>/bin). The first of the two
/// that is a folder, as an absolute path; SN_ERR_NOT_FOUND if neither is (or
/// the platform cannot tell where the library is), SN_ERR_CAPACITY if out is
/// too small.
SN_API sn_result sn_default_plugin_dir(char *out, size_t capacity);

/// Called with each folder of the search path in order; return false to stop.
typedef bool sn_plugin_dir_fcn(const char *dir, void *context);

/// Visits the search path after the explicit paths: SINEW_PLUGIN_PATH's
/// folders, then sn_default_plugin_dir. Returns how many folders fcn saw.
SN_API int32_t sn_plugin_search_path(sn_plugin_dir_fcn *fcn, void *context);

/// Loads every plugin of every folder of the search path
/// (sn_registry_load_directory on each, in order; a type an earlier folder
/// registered makes a later file with that type fail with
/// SN_ERR_PLUGIN_DUPLICATE, reported to fcn, so the earlier folder wins).
/// Returns SN_OK if at least one folder was read, else SN_ERR_NOT_FOUND.
SN_API sn_result sn_registry_load_search_path(sn_registry *registry, sn_plugin_load_fcn *fcn, void *context);

/// Number of registered types, and the i-th one (NULL if out of range). The
/// registry's copy of a descriptor has this header's callback forms whatever
/// ABI minor its plugin declared (its create is called with args->type set
/// to that copy).
SN_API int32_t sn_registry_get_type_count(const sn_registry *registry);
SN_API const sn_constraint_type *sn_registry_get_type(const sn_registry *registry, int32_t index);
/// The type named name, or NULL.
SN_API const sn_constraint_type *sn_registry_find_type(const sn_registry *registry, const char *name);
/// Name of the library a type came from: a loaded plugin's file (real path),
/// "linked-in plugin <library name>" for sn_registry_add_static, "<host>"
/// for sn_registry_add_type.
SN_API const char *sn_registry_get_type_origin(const sn_registry *registry, const char *name);

#ifdef __cplusplus
}
#endif

#include "sinew/soft.h"
#include "sinew/draw.h" /* debug drawing: sn_world_draw */

#endif /* SINEW_SINEW_H */
