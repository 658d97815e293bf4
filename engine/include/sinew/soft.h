/* Sinew: soft bodies (particles, XPBD constraints, builders).
 * Included by sinew/sinew.h; see docs/soft-bodies.md.
 *
 * A soft body is a group of particles sharing a material. Particles are
 * point masses with a radius; they collide with rigid shapes (two-way: the
 * rigid body takes its share through w = 1/m + (r x n)^2 / I) and with the
 * particles of other soft bodies. Their shape comes from XPBD constraints,
 * which are plugin types like the joints (xpbd_distance, xpbd_area,
 * xpbd_bend, xpbd_tether, attach), created with sn_create_constraint and a
 * particle list, or by the builders below. Every step runs the XPBD stage
 * inside each substep: predict, solve (sn_world_get_soft_iterations sweeps,
 * lambda reset per substep), collide, v = (p - x) / h.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_SOFT_H
#define SINEW_SOFT_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// XPBD sweeps per substep (default 1: small steps beat iterations).
SN_API sn_result sn_world_set_soft_iterations(sn_world *world, int32_t iterations);
SN_API int32_t sn_world_get_soft_iterations(sn_world *world);

/* Soft bodies ------------------------------------------------------------ */

SN_API sn_soft_body_def sn_default_soft_body_def(void);
/// Creates an empty soft body (add particles with sn_create_particle).
SN_API sn_soft_body_id sn_create_soft_body(sn_world *world, const sn_soft_body_def *def);
/// Destroys a soft body, its particles and every constraint joining them.
SN_API sn_result sn_destroy_soft_body(sn_world *world, sn_soft_body_id soft);
SN_API bool sn_soft_body_is_valid(sn_world *world, sn_soft_body_id soft);
SN_API int32_t sn_soft_body_get_particle_count(sn_world *world, sn_soft_body_id soft);
/// Copies up to capacity particle ids in creation order; returns how many.
SN_API int32_t sn_soft_body_get_particles(sn_world *world, sn_soft_body_id soft, sn_particle_id *particles,
                                          int32_t capacity);
/// Constraints whose particles all belong to this body, in creation order:
/// what its builder made, and any others on its particles only (an attach
/// to a rigid body counts); returns how many were copied.
SN_API int32_t sn_soft_body_get_constraints(sn_world *world, sn_soft_body_id soft, sn_constraint_id *constraints,
                                            int32_t capacity);
/// The material (as in the def, user_data and cookie included).
SN_API sn_soft_body_def sn_soft_body_get_material(sn_world *world, sn_soft_body_id soft);
SN_API sn_result sn_soft_body_set_material(sn_world *world, sn_soft_body_id soft, const sn_soft_body_def *def);
/// Total mass, centre of mass and its velocity (fixed particles excluded).
SN_API float sn_soft_body_get_mass(sn_world *world, sn_soft_body_id soft);
SN_API sn_vec2 sn_soft_body_get_center(sn_world *world, sn_soft_body_id soft);
SN_API sn_vec2 sn_soft_body_get_linear_velocity(sn_world *world, sn_soft_body_id soft);
/// Adds a collision edge between two particles of this soft body: particles
/// of other soft bodies cannot pass through the segment between them (the
/// builders add their outlines: ring and rope segments, cloth and lattice
/// borders). Both particles must belong to soft.
SN_API sn_result sn_soft_body_add_edge(sn_world *world, sn_soft_body_id soft, sn_particle_id a, sn_particle_id b);
SN_API int32_t sn_soft_body_get_edge_count(sn_world *world, sn_soft_body_id soft);
/// Moves every particle by delta (no velocity change).
SN_API sn_result sn_soft_body_translate(sn_world *world, sn_soft_body_id soft, sn_vec2 delta);

/* Particles --------------------------------------------------------------- */

SN_API sn_particle_def sn_default_particle_def(void);
SN_API sn_particle_id sn_create_particle(sn_world *world, sn_soft_body_id soft, const sn_particle_def *def);
/// Destroys a particle and every constraint that joins it.
SN_API sn_result sn_destroy_particle(sn_world *world, sn_particle_id particle);
SN_API bool sn_particle_is_valid(sn_world *world, sn_particle_id particle);
SN_API sn_soft_body_id sn_particle_get_soft_body(sn_world *world, sn_particle_id particle);
SN_API sn_vec2 sn_particle_get_position(sn_world *world, sn_particle_id particle);
/// Teleports (velocity unchanged).
SN_API sn_result sn_particle_set_position(sn_world *world, sn_particle_id particle, sn_vec2 position);
SN_API sn_vec2 sn_particle_get_velocity(sn_world *world, sn_particle_id particle);
SN_API sn_result sn_particle_set_velocity(sn_world *world, sn_particle_id particle, sn_vec2 velocity);
SN_API float sn_particle_get_mass(sn_world *world, sn_particle_id particle);
/// Mass in kg; 0 fixes the particle in place.
SN_API sn_result sn_particle_set_mass(sn_world *world, sn_particle_id particle, float mass);
SN_API float sn_particle_get_radius(sn_world *world, sn_particle_id particle);
SN_API bool sn_particle_is_kinematic(sn_world *world, sn_particle_id particle);
/// True if the particle was frozen (see sn_frozen_event) and not teleported since.
SN_API bool sn_particle_is_frozen(sn_world *world, sn_particle_id particle);
/// Kinematic particles only: reach target at the end of the next step
/// (moving with velocity (target - x) / dt), then stop.
SN_API sn_result sn_particle_set_target(sn_world *world, sn_particle_id particle, sn_vec2 target);
SN_API sn_result sn_particle_set_user_data(sn_world *world, sn_particle_id particle, void *user_data);
SN_API void *sn_particle_get_user_data(sn_world *world, sn_particle_id particle);

/* Builders (need the xpbd_* plugin types registered in the world's registry) */

SN_API sn_soft_material sn_default_soft_material(void);
SN_API sn_rope_def sn_default_rope_def(void);
SN_API sn_cloth_def sn_default_cloth_def(void);
SN_API sn_ring_def sn_default_ring_def(void);
SN_API sn_lattice_def sn_default_lattice_def(void);
/// Each builder creates one soft body, its particles and constraints, or on
/// any error nothing (null id; sn_world_last_error says why).
SN_API sn_soft_body_id sn_create_rope(sn_world *world, const sn_rope_def *def);
SN_API sn_soft_body_id sn_create_cloth(sn_world *world, const sn_cloth_def *def);
SN_API sn_soft_body_id sn_create_ring(sn_world *world, const sn_ring_def *def);
SN_API sn_soft_body_id sn_create_lattice(sn_world *world, const sn_lattice_def *def);

/// The particles a constraint joins (after its bodies); returns how many
/// were copied (0 for a stale id).
SN_API int32_t sn_constraint_get_particles(sn_world *world, sn_constraint_id constraint, sn_particle_id *particles,
                                           int32_t capacity);

/* Enumeration (soft/soft_enumerate.c) ------------------------------------ */

/// Live soft bodies of the world.
SN_API int32_t sn_world_get_soft_body_count(sn_world *world);
/// Copies up to capacity soft body ids in slot order (creation order unless
/// slots were reused); returns how many.
SN_API int32_t sn_world_get_soft_bodies(sn_world *world, sn_soft_body_id *soft_bodies, int32_t capacity);
/// Copies up to capacity collision edges (sn_soft_body_add_edge) in the
/// order they were added, as pairs: pairs[2 i] and pairs[2 i + 1] are the
/// two particles of edge i (pairs holds 2 * capacity ids). Returns how many
/// edges were copied (0 for a stale id).
SN_API int32_t sn_soft_body_get_edges(sn_world *world, sn_soft_body_id soft, sn_particle_id *pairs, int32_t capacity);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_SOFT_H */
