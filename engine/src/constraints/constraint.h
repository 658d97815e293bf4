/* Plugin constraints (internal): the constraint object, kept in the world's
 * constraint array (world/world.h), the step's cached scans over them, and
 * what constraint.c and registry.c do. */
#ifndef SN_CONSTRAINTS_CONSTRAINT_H
#define SN_CONSTRAINTS_CONSTRAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/plugin.h"

#include "base/array.h"

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

/// A batched XPBD type and its first constraint slot (sn_constraint_lists).
typedef struct sn_type_first {
  const sn_constraint_type *type;
  int32_t slot;
} sn_type_first;

/// An impulse type's levels as the step last found them (constraint_step.c,
/// sn_add_levelled_items): count slots in level order at offset of
/// sn_constraint_lists.levels_data, then the levels + 2 level starts.
/// Resident: the constraints' params and instances live in the lists'
/// resident block in that order (item at: params_offset + at params_stride,
/// instance_offset + at instance_stride), so a step that keeps the levels
/// solves them in place.
typedef struct sn_level_cache {
  const sn_constraint_type *type;
  int32_t count, levels, offset;
  bool resident;
  size_t params_offset, instance_offset, params_stride, instance_stride;
} sn_level_cache;

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
  size_t items_packed;       ///< their params + instance bytes as sn_joint_count_active counts them
  int32_t batched_count;     ///< in-use constraints of batched types (always active)
  int32_t batched_endpoints; ///< their particles
  size_t batched_packed;     ///< their params + instance bytes as sn_joint_count_active counts them
  /* the impulse types' levels, kept while the constraints (topology) and the
   * awake bodies (solver order) stay the same: the step packs by them */
  bool levels_valid;
  uint32_t levels_topology;        ///< w->xpbd_topology they were found for
  SN_ARRAY(int32_t) levels_awake;  ///< w->awake_bodies they were found for
  SN_ARRAY(sn_level_cache) levels; ///< per impulse type
  SN_ARRAY(int32_t) levels_data;   ///< their slots and level starts
  /* the leveled constraints' params and instances, packed in level order
   * while the levels are kept (world memory, sn_joint_levels_reserve): the
   * constraints point into it, so the step copies nothing in or out */
  void *resident_block;
  size_t resident_bytes; ///< of resident_block
  char *resident_base;   ///< resident_block aligned to 64
  size_t resident_room;  ///< bytes from resident_base
  size_t resident_used;  ///< bytes the kept levels take
  /* the step's count of active constraints (sn_joint_count_active), kept with the levels */
  int32_t levels_constraints, levels_endpoints;
  size_t levels_packed;
} sn_constraint_lists;

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
/// Arena bytes sn_constraints_check_breaking takes: the reaction of the
/// breakable constraint with the most endpoints.
size_t sn_breaking_scratch_bytes(const sn_world *w);
/// Rebuilds w->constraint_lists if the constraint set changed; false when out of memory.
bool sn_constraint_lists_update(sn_world *w);

/* constraints/registry.c */
const sn_host_api *sn_registry_host_api(void);

#endif /* SN_CONSTRAINTS_CONSTRAINT_H */
