/* The step (internal): step.c, behind sn_world_step. */
#ifndef SN_WORLD_STEP_H
#define SN_WORLD_STEP_H

#include <stdbool.h>

#include "sinew/sinew.h"

/// Everything the step needs after the broadphase's new pairs (the new
/// contacts, the narrowphase, the solve, breaking, sleep, events), reserved
/// before any of it runs. False on OOM; nothing a caller sees has changed
/// then.
bool sn_solve_reserve(sn_world *w, float dt);

#endif /* SN_WORLD_STEP_H */
