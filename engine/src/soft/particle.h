/* Particles and soft bodies (internal): the objects, kept in the world's
 * arrays (world/world.h), the particle contact pairs of a step, and what
 * particle.c does with them. */
#ifndef SN_SOFT_PARTICLE_H
#define SN_SOFT_PARTICLE_H

#include <stdbool.h>
#include <stdint.h>

#include "sinew/sinew.h"
#include "sinew/soft.h"

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

/// Resolves a handle; NULL (with the error recorded) if stale or foreign.
sn_particle *sn_get_particle(sn_world *w, sn_particle_id id, sn_result *code);
void sn_soft_destroy_all(sn_world *w);

#endif /* SN_SOFT_PARTICLE_H */
