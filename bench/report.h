/* Shared by sinew-bench and sinew-sandbox: step timing and the one-line JSON
 * report of docs/benchmark.md (field names exactly as there), and the list of
 * every standard scene. */
#ifndef SINEW_SCENES_REPORT_H
#define SINEW_SCENES_REPORT_H

#include <stdio.h>

#include "scenes.h"

/// Monotonic clock in milliseconds.
double sn_scene_now_ms(void);

/// Median, 95th percentile and sum of step times (ms).
typedef struct sn_scene_timing {
  double median, p95, total;
  double cpu_median; ///< median thread CPU time per step (ms), 0 = not measured
  bool has_profile;  ///< profile holds medians of sn_world_get_profile's parts (ms)
  double profile[5]; ///< collide, solve_setup, substeps, solve_finish, sleep
} sn_scene_timing;

/// Timing of n step times; sorts times in place. Zeros if n <= 0.
sn_scene_timing sn_scene_timing_of(double *times, int32_t n);

/// Writes the benchmark's JSON line for a scene run of `steps` steps.
void sn_scene_print_json(FILE *out, const sn_scene *scene, int32_t steps, bool sleep, const sn_scene_timing *timing);

/// Every standard scene sinew_scenes can build (rigid, then soft and mixed
/// as they arrive): the sandbox lists and tests exactly these.
int32_t sn_scene_count(void);
/// Name of scene i (0 <= i < sn_scene_count()), else NULL.
const char *sn_scene_name(int32_t i);

#endif
