/* The XPBD schedule (internal): the colours of the batched XPBD types (those
 * with solve_particles), kept between steps in the world (w->xpbd) and
 * rebuilt before the substeps when constraints come or go or a particle
 * turns fixed or movable (xpbd_schedule.c). */
#ifndef SN_SOFT_XPBD_SCHEDULE_H
#define SN_SOFT_XPBD_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/plugin.h"

#include "base/array.h"

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
/// go or a particle turns fixed or movable (xpbd_schedule.c, sn_xpbd_schedule_update).
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

typedef struct sn_soft_context sn_soft_context;

/// Brings the schedule up to date (rebuilt when stale, same_params found
/// again after a parameter change); false when out of memory.
bool sn_xpbd_schedule_update(sn_world *w);
/// What the step's later sn_xpbd_schedule_update may allocate, done before
/// the step changes anything; false when out of memory.
bool sn_xpbd_schedule_reserve(sn_world *w);
/// The particle batch of batched type t (colour order, params and instances
/// resident in the schedule's blocks); false if the schedule has no range
/// of that type.
bool sn_xpbd_particle_batch(const sn_world *w, const sn_soft_context *soft, const sn_constraint_type *t,
                            sn_particle_batch *pb);

#endif /* SN_SOFT_XPBD_SCHEDULE_H */
