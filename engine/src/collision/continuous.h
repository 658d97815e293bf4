/* Continuous collision (internal): continuous.c. */
#ifndef SN_COLLISION_CONTINUOUS_H
#define SN_COLLISION_CONTINUOUS_H

#include <stddef.h>

#include "collision/distance.h"
#include "sinew/sinew.h"

/// Sweeps the awake bodies the write back found fast (sn_body.is_fast), in
/// body order, and stops each at its first time of impact; those not
/// stopped go once more against the ones that were. Allocates nothing.
void sn_continuous_solve(sn_world *w);
/// Can the cores of two swept proxies come within radius (the sum of the
/// proxies' radii) plus the time of impact's slop? A proxy's core points
/// stay within reach of its sweep's centre of mass. A moves along
/// sweep_a until split (in (0, 1]) and rests at sweep_a.c2 after; B moves
/// along sweep_b. False only when sn_time_of_impact cannot hit: the cheap
/// test before it.
bool sn_continuous_may_touch(sn_sweep sweep_a, float reach_a, float split_a, sn_sweep sweep_b, float reach_b,
                             float radius);
/// Arena bytes sn_continuous_solve uses: none.
size_t sn_continuous_scratch_bytes(const sn_world *w);

#endif /* SN_COLLISION_CONTINUOUS_H */
