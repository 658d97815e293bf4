/* sinew-sandbox: picking and dragging soft-body particles with the mouse
 * (not part of the engine; public API only, no SDL, so the tests link it).
 *
 * A drag is a "hand": a soft body of its own holding one kinematic particle
 * (no collisions) that the sandbox moves to the cursor before every step
 * with sn_particle_set_target, joined to the grabbed particle by an
 * xpbd_distance of rest length 0. Its compliance makes it a spring of
 * SB_DRAG_HERTZ on the grabbed particle's whole soft body (k = M (2 pi f)^2),
 * and the hand never gets farther than max_force / k from the particle, so
 * the pull is bounded by max_force = SB_DRAG_FORCE_PER_KG * M, as the mouse
 * joint bounds a body's. Releasing destroys the hand (and with it the link). */
#ifndef SINEW_SANDBOX_DRAG_H
#define SINEW_SANDBOX_DRAG_H

#include <stdbool.h>
#include <stddef.h>

#include "sinew/sinew.h"

#define SB_DRAG_HERTZ        5.0f
#define SB_DRAG_DAMPING      0.7f    ///< damping ratio of the drag spring
#define SB_DRAG_FORCE_PER_KG 1000.0f ///< as the body drag (mouse joint max_force = 1000 m)

typedef struct sb_particle_drag {
  sn_soft_body_id hand;   ///< the hand's soft body (null: no drag)
  sn_particle_id handle;  ///< its kinematic particle
  sn_particle_id grabbed; ///< the particle being dragged
  sn_constraint_id link;  ///< xpbd_distance handle - grabbed
  sn_vec2 target;         ///< the cursor (world)
  float max_force;        ///< N
  float reach;            ///< m: largest hand - particle distance (max_force * compliance)
} sb_particle_drag;

/// Every soft body of the world that has at least one constraint (found
/// through sn_world_get_constraints and the constraints' particles) or is
/// listed in extra (may be NULL), without duplicates. Copies at most
/// capacity and returns how many it found (when that is more than capacity,
/// an upper bound: call again with that capacity).
int32_t sb_world_soft_bodies(sn_world *world, const sn_soft_body_id *extra, int32_t extra_count, sn_soft_body_id *out,
                             int32_t capacity);

/// The movable particle (not fixed, not kinematic) nearest to p whose
/// distance to p is at most its radius + slop (m), or a null id. extra: as
/// for sb_world_soft_bodies.
sn_particle_id sb_pick_particle(sn_world *world, sn_vec2 p, float slop, const sn_soft_body_id *extra,
                                int32_t extra_count);

/// True while d holds a drag.
bool sb_particle_drag_active(const sb_particle_drag *d);

/// Starts dragging particle toward target (needs xpbd_distance in the
/// world's registry). False with a message if it cannot (d stays empty).
bool sb_particle_drag_begin(sb_particle_drag *d, sn_world *world, sn_particle_id particle, sn_vec2 target, char *err,
                            size_t err_capacity);

/// Moves the cursor (applied at the next sb_particle_drag_update).
void sb_particle_drag_set_target(sb_particle_drag *d, sn_vec2 target);

/// Before every step: moves the hand toward the cursor, at most reach from
/// the grabbed particle. Ends the drag (returns false) if the particle or
/// the link is gone (particle destroyed, scene changed).
bool sb_particle_drag_update(sb_particle_drag *d, sn_world *world);

/// Releases: destroys the hand (if the world still has it); d becomes empty.
/// world may be NULL (the world is gone: only forget).
void sb_particle_drag_end(sb_particle_drag *d, sn_world *world);

#endif
