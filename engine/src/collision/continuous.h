/* Continuous collision (internal): continuous.c. */
#ifndef SN_COLLISION_CONTINUOUS_H
#define SN_COLLISION_CONTINUOUS_H

#include <stddef.h>

#include "sinew/sinew.h"

/// Sweeps the awake bodies the write back found fast (sn_body.is_fast), in
/// body order, and stops each at its first time of impact; those not
/// stopped go once more against the ones that were. Allocates nothing.
void sn_continuous_solve(sn_world *w);
/// Arena bytes sn_continuous_solve uses: none.
size_t sn_continuous_scratch_bytes(const sn_world *w);

#endif /* SN_COLLISION_CONTINUOUS_H */
