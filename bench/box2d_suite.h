/* sinew-bench --suite box2d (bench/box2d_suite.c, docs/benchmark.md). */
#ifndef SINEW_BOX2D_SUITE_H
#define SINEW_BOX2D_SUITE_H

#include <stdint.h>

/// What to run: 0 / NULL keep the defaults.
typedef struct sn_box2d_suite_options {
  const char *scene;      ///< one scene (joint_grid, ...), NULL = all seven
  int32_t workers;        ///< one worker count, 0 = 1 and 2
  int32_t runs;           ///< runs per configuration, 0 = 2
  int32_t steps;          ///< steps per run, 0 = the scene's (Box2D's)
  const char *svg_path;   ///< if set: a bar chart of each scene's total against Box2D's
  const char *table_path; ///< if set: a Markdown table of the totals and figures
} sn_box2d_suite_options;

/// Runs the suite, one JSON line per scene, configuration and worker count on
/// stdout. 0 on success, 1 on a failure, 2 for an unknown scene.
int sn_box2d_suite_run(const sn_box2d_suite_options *options);

#endif
