/* Islands and sleeping (internal): island.c. */
#ifndef SN_RIGID_ISLAND_H
#define SN_RIGID_ISLAND_H

#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

void sn_update_sleep(sn_world *w, float dt);
/// Arena bytes sn_update_sleep uses for awake_count awake bodies.
size_t sn_island_scratch_bytes(int32_t awake_count);

#endif /* SN_RIGID_ISLAND_H */
