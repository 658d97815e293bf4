/* Shared by sinew-bench and sinew-sandbox: step timing and the one-line JSON
 * report of docs/benchmark.md (field names exactly as there), and the list of
 * every standard scene. */
#ifndef SINEW_SCENES_REPORT_H
#define SINEW_SCENES_REPORT_H

#include <stdio.h>

#include "scenes.h"

/// Monotonic clock in milliseconds.
double sn_scene_now_ms(void);

/// X(name): the parts of sn_world_profile that add up to its step, in the
/// order of the JSON line's "profile_ms" (docs/benchmark.md).
#define SN_PROFILE_PARTS(X) X(collide) X(solve_setup) X(substeps) X(solve_finish) X(sleep)
enum {
#define SN_X(name) +1
  SN_PROFILE_PART_COUNT = 0 SN_PROFILE_PARTS(SN_X)
#undef SN_X
};

/// The parts of a profile, in SN_PROFILE_PARTS order.
static inline void sn_profile_parts(const sn_world_profile *p, double out[SN_PROFILE_PART_COUNT]) {
  int k = 0;
#define SN_X(name) out[k++] = (double)p->name;
  SN_PROFILE_PARTS(SN_X)
#undef SN_X
}

/// Median, 95th percentile and sum of step times (ms).
typedef struct sn_scene_timing {
  double median, p95, total;
  double cpu_median;                     ///< median thread CPU time per step (ms), 0 = not measured
  bool has_profile;                      ///< profile holds medians of sn_world_get_profile's parts (ms)
  double profile[SN_PROFILE_PART_COUNT]; ///< SN_PROFILE_PARTS
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
