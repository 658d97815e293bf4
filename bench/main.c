#define _POSIX_C_SOURCE 200809L
/* sinew-bench: runs the standard scenes and prints one JSON line per run
 * with the field names of shared/SCENES.md. Timing is a monotonic clock
 * around each step; quote medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenes.h"

static double sn_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int sn_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void sn_usage(FILE *f) {
  fprintf(f, "usage: sinew-bench [--scene NAME] [--size N] [--steps N] [--substeps N] [--soft-iterations N] [--sleep]\n"
             "  scenes: pyramid (20, 50, 100), tower (20), rain (2000), ratio, chain (100 revolute links),\n"
             "          cloth (32, 64, 128), jelly (50), mixed\n"
             "  no --scene: every scene at its standard sizes\n");
}

static int32_t sn_soft_iterations = 0;

static int sn_run(const char *name, int32_t size, int32_t steps, int32_t substeps, bool sleep) {
  sn_scene scene;
  if (!sn_scene_build(&scene, name, size, substeps, sleep)) {
    fprintf(stderr, "sinew-bench: unknown scene or build failure: %s\n", name);
    sn_scene_destroy(&scene);
    return 1;
  }
  if (sn_soft_iterations > 0) sn_world_set_soft_iterations(scene.world, sn_soft_iterations);
  if (steps <= 0) steps = scene.default_steps;
  double *times = malloc((size_t)steps * sizeof(double));
  if (times == NULL) return 1;
  double total = 0.0;
  for (int32_t i = 0; i < steps; ++i) {
    double t0 = sn_now_ms();
    sn_result r = sn_world_step(scene.world, 1.0f / 60.0f);
    double t1 = sn_now_ms();
    if (r != SN_OK) {
      fprintf(stderr, "sinew-bench: step failed: %s\n", sn_world_last_error(scene.world));
      free(times);
      sn_scene_destroy(&scene);
      return 1;
    }
    times[i] = t1 - t0;
    total += times[i];
  }
  qsort(times, (size_t)steps, sizeof(double), sn_cmp_double);
  double median = times[steps / 2];
  double p95 = times[(int32_t)((double)(steps - 1) * 0.95)];
  sn_scene_metrics m;
  sn_scene_measure(&scene, &m);
  char gap[32], link[32], strain[32], area[32];
  snprintf(link, sizeof link, m.has_link_error ? "%.5f" : "null", m.link_error);
  snprintf(gap, sizeof gap, m.has_min_y_gap ? "%.4f" : "null", m.min_y_gap);
  snprintf(strain, sizeof strain, m.has_strain ? "%.5f" : "null", m.max_strain);
  snprintf(area, sizeof area, m.has_area ? "%.5f" : "null", m.max_area_error);
  printf("{\"engine\": \"sinew-%s\", \"scene\": \"%s\", \"size\": %d, \"steps\": %d, "
         "\"bodies\": %d, \"particles\": %d, \"constraints\": %d, \"settings\": \"substeps=%d soft_iterations=%d sleep=%s\", "
         "\"ms_step_median\": %.4f, \"ms_step_p95\": %.4f, \"ms_total\": %.2f, "
         "\"top_drift\": %.4f, \"max_dx\": %.4f, \"fallen\": %d, \"min_y_gap\": %s, \"ke_end\": %.3g, "
         "\"max_strain\": %s, \"max_area_error\": %s, \"link_error\": %s, \"state_hash\": \"%016llx\"}\n",
         sn_version_string(), scene.name, (int)scene.size, (int)steps, (int)scene.body_count,
         (int)scene.particle_count, (int)scene.constraint_count, (int)sn_world_get_substeps(scene.world),
         (int)sn_world_get_soft_iterations(scene.world), sleep ? "on" : "off", median, p95, total, m.top_drift, m.max_dx, (int)m.fallen, gap, m.ke_end, strain, area,
         link, (unsigned long long)m.state_hash);
  fflush(stdout);
  free(times);
  sn_scene_destroy(&scene);
  return 0;
}

int main(int argc, char **argv) {
  const char *scene = NULL;
  int32_t size = 0, steps = 0, substeps = 0;
  bool sleep = false;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--scene") == 0 && has_value)
      scene = argv[++i];
    else if (strcmp(a, "--size") == 0 && has_value)
      size = atoi(argv[++i]);
    else if (strcmp(a, "--steps") == 0 && has_value)
      steps = atoi(argv[++i]);
    else if (strcmp(a, "--substeps") == 0 && has_value)
      substeps = atoi(argv[++i]);
    else if (strcmp(a, "--soft-iterations") == 0 && has_value)
      sn_soft_iterations = atoi(argv[++i]);
    else if (strcmp(a, "--sleep") == 0)
      sleep = true;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      sn_usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "sinew-bench: unknown or incomplete argument '%s'\n", a);
      sn_usage(stderr);
      return 2;
    }
  }
  if (size < 0 || steps < 0 || substeps < 0 || substeps > 64) {
    fprintf(stderr, "sinew-bench: --size, --steps must be >= 0 and --substeps in 1..64\n");
    return 2;
  }
  if (scene != NULL) return sn_run(scene, size, steps, substeps, sleep);
  int rc = 0;
  static const int32_t pyramid_sizes[] = {20, 50, 100};
  for (int k = 0; k < 3; ++k) rc |= sn_run("pyramid", pyramid_sizes[k], steps, substeps, sleep);
  rc |= sn_run("tower", 20, steps, substeps, sleep);
  rc |= sn_run("rain", 2000, steps, substeps, sleep);
  rc |= sn_run("ratio", 1, steps, substeps, sleep);
  rc |= sn_run("chain", 100, steps, substeps, sleep);
  static const int32_t cloth_sizes[] = {32, 64, 128};
  for (int k = 0; k < 3; ++k) rc |= sn_run("cloth", cloth_sizes[k], steps, substeps, sleep);
  rc |= sn_run("jelly", 50, steps, substeps, sleep);
  rc |= sn_run("mixed", 1, steps, substeps, sleep);
  return rc;
}
