/* sinew-bench --soak: long runs of the rain, jelly and mixed scenes with
 * bodies, soft bodies and constraints spawned and deleted on a seeded
 * schedule, worlds rebuilt every --world-steps steps, and invariants checked
 * as it goes (docs/benchmark.md, "Soak mode"). */
#ifndef SINEW_BENCH_SOAK_H
#define SINEW_BENCH_SOAK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sn_soak_options {
  double seconds;      ///< wall-clock budget; 0 = none (then steps must be set)
  int64_t steps;       ///< total step budget; 0 = none
  int32_t world_steps; ///< steps each world lives before it is destroyed and rebuilt (0 = 3600)
  const char *scene;   ///< "rain", "jelly", "mixed" or NULL / "all" (cycle through the three)
  uint64_t seed;       ///< schedule seed
  bool json;           ///< one JSON line on stdout (else the human summary only, on stderr)
  bool fault;          ///< test of the checks: destroy one body behind the driver's back at step 100 of each world
} sn_soak_options;

/// Runs the soak; returns 0 if every invariant held, 1 on any failure, 2 on
/// bad options or when a scene cannot be built.
int sn_soak_run(const sn_soak_options *options);

#endif
