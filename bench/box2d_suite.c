/* sinew-bench --suite box2d: the seven scenes of Box2D v3.1.1's benchmark
 * app timed by its protocol (docs/benchmark.md, "Box2D v3 suite").
 *
 * Per run: a fresh world, the scene built (untimed), its callback with index
 * 0, step 0 (untimed), then for k = 1 .. N-1 the callback with k and a step,
 * each timed with a monotonic clock; the run's figure is the total of those
 * N - 1 timings. A scene's figure is the minimum over the runs. The two
 * engine configurations (Sinew's defaults, 8 substeps, and 4 substeps as
 * Box2D) alternate run by run, so their ratio is measured under the same
 * load. Work the metrics need after a step (smash's woken bodies) happens
 * outside the timings. */
#include "box2d_suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "scenes.h"
#include "sinew/thread_pool.h"

/* Box2D v3.1.1's totals (ms) on the reference machine, at 1 and 2 workers. */
static const struct {
  const char *scene;
  double ms[2];
} sn_box2d_reference[] = {{"joint_grid", {3595, 2280}},    {"large_pyramid", {2377, 1189}},
                          {"many_pyramids", {3709, 1916}}, {"rain", {13606, 9302}},
                          {"smash", {3427, 2461}},         {"spinner", {6302, 4338}},
                          {"tumbler", {2478, 1820}}};

typedef struct sn_suite_config {
  const char *name;
  int32_t substeps; /* 0: the world default */
} sn_suite_config;

static const sn_suite_config sn_suite_configs[] = {{"sinew defaults", 0}, {"sinew 4 substeps", 4}};
#define SN_SUITE_CONFIGS 2

/* One configuration's results over the runs. */
typedef struct sn_suite_result {
  double best_total;                     /* minimum over the runs of the timed steps' total */
  double median, p95;                    /* of the best run's step times */
  double profile[SN_PROFILE_PART_COUNT]; /* the best run's profile parts summed over its timed steps */
  int32_t substeps;
  sn_box2d_metrics metrics; /* end of the first run */
  bool deterministic;       /* every run ended with the first run's state hash */
  bool measured;
} sn_suite_result;

/* One run; false on a failure (message on stderr). */
static bool sn_suite_run_once(const char *scene_name, const sn_suite_config *config, sn_thread_pool *pool,
                              int32_t steps, double *times, sn_suite_result *res, bool first) {
  sn_world_def wd = sn_default_world_def();
  if (config->substeps > 0) wd.substeps = config->substeps;
  sn_thread_pool_apply(pool, &wd);
  sn_scene s;
  if (!sn_scene_build_def(&s, scene_name, 0, &wd)) {
    fprintf(stderr, "sinew-bench: cannot build %s\n", scene_name);
    sn_scene_destroy(&s);
    return false;
  }
  const float dt = 1.0f / 60.0f;
  double parts[SN_PROFILE_PART_COUNT] = {0};
  bool ok = sn_box2d_scene_step_callback(&s, 0) && sn_world_step(s.world, dt) == SN_OK;
  if (ok) sn_box2d_scene_observe(&s);
  double total = 0.0;
  for (int32_t k = 1; k < steps && ok; ++k) {
    double t0 = sn_scene_now_ms();
    ok = sn_box2d_scene_step_callback(&s, k);
    sn_result r = ok ? sn_world_step(s.world, dt) : SN_OK;
    double t1 = sn_scene_now_ms();
    if (r != SN_OK) {
      fprintf(stderr, "sinew-bench: %s step %d: %s\n", scene_name, (int)k, sn_world_last_error(s.world));
      ok = false;
    }
    times[k - 1] = t1 - t0;
    total += t1 - t0;
    sn_world_profile p = sn_world_get_profile(s.world);
    double part[SN_PROFILE_PART_COUNT];
    sn_profile_parts(&p, part);
    for (int q = 0; q < SN_PROFILE_PART_COUNT; ++q) parts[q] += part[q];
    sn_box2d_scene_observe(&s);
  }
  if (ok) {
    sn_box2d_metrics m;
    sn_box2d_scene_measure(&s, &m);
    if (first) {
      res->metrics = m;
      res->deterministic = true;
      res->substeps = sn_world_get_substeps(s.world);
    } else if (m.state_hash != res->metrics.state_hash) {
      res->deterministic = false;
    }
    if (!res->measured || total < res->best_total) {
      res->best_total = total;
      sn_scene_timing t = sn_scene_timing_of(times, steps - 1);
      res->median = t.median;
      res->p95 = t.p95;
      memcpy(res->profile, parts, sizeof parts);
    }
    res->measured = true;
  }
  sn_scene_destroy(&s);
  return ok;
}

static void sn_suite_print(const char *short_name, const sn_suite_config *config, int32_t workers, int32_t steps,
                           int32_t full_steps, int32_t runs, const sn_suite_result *r) {
  const sn_box2d_metrics *m = &r->metrics;
  char figures[512];
  if (strcmp(short_name, "joint_grid") == 0)
    snprintf(figures, sizeof figures, "\"joint_separation\": %.6f, \"lowest_y\": %.4f", m->joint_separation,
             m->lowest_y);
  else if (strcmp(short_name, "large_pyramid") == 0 || strcmp(short_name, "many_pyramids") == 0)
    snprintf(figures, sizeof figures, "\"top_drift\": %.6f, \"fallen\": %d", m->top_drift, (int)m->fallen);
  else if (strcmp(short_name, "rain") == 0)
    snprintf(figures, sizeof figures, "\"live_ragdolls\": %d, \"joint_separation\": %.6f, \"limit_violation\": %.6f",
             (int)m->live_ragdolls, m->joint_separation, m->limit_violation);
  else if (strcmp(short_name, "smash") == 0)
    snprintf(figures, sizeof figures, "\"woken\": %d, \"ram_speed\": %.4f", (int)m->woken, m->ram_speed);
  else if (strcmp(short_name, "spinner") == 0)
    snprintf(figures, sizeof figures, "\"motor_angle\": %.6f, \"outside\": %d", m->motor_angle, (int)m->outside);
  else
    snprintf(figures, sizeof figures, "\"outside\": %d", (int)m->outside);
  /* Box2D's total for the same scene, step count and worker count, if known */
  char reference[32] = "null";
  for (size_t k = 0; k < sizeof sn_box2d_reference / sizeof sn_box2d_reference[0]; ++k) {
    if (strcmp(sn_box2d_reference[k].scene, short_name) == 0 && workers <= 2 && steps == full_steps)
      snprintf(reference, sizeof reference, "%.0f", sn_box2d_reference[k].ms[workers - 1]);
  }
  double sum = 0.0;
  for (int q = 0; q < SN_PROFILE_PART_COUNT; ++q) sum += r->profile[q];
  printf("{\"suite\": \"box2d\", \"scene\": \"%s\", \"engine\": \"sinew-%s\", \"config\": \"%s\", \"substeps\": %d, "
         "\"workers\": %d, \"runs\": %d, \"steps\": %d, \"total_ms\": %.2f, \"step_median_ms\": %.4f, "
         "\"step_p95_ms\": %.4f, \"bodies\": %d, \"shapes\": %d, \"joints\": %d, \"contacts\": %d, "
         "\"touching_contacts\": %d, \"awake_bodies\": %d, %s, \"state_hash\": \"%016llx\", "
         "\"deterministic\": %s, \"profile_ms\": {\"collide\": %.2f, \"solve_setup\": %.2f, \"substeps\": %.2f, "
         "\"solve_finish\": %.2f, \"sleep\": %.2f, \"sum\": %.2f}, \"box2d_v3_1_1_ms\": %s}\n",
         short_name, sn_version_string(), config->name, (int)r->substeps, (int)workers, (int)runs, (int)steps,
         r->best_total, r->median, r->p95, (int)m->bodies, (int)m->shapes, (int)m->joints, (int)m->contacts,
         (int)m->touching_contacts, (int)m->awake_bodies, figures, (unsigned long long)m->state_hash,
         r->deterministic ? "true" : "false", r->profile[0], r->profile[1], r->profile[2], r->profile[3], r->profile[4],
         sum, reference);
  fflush(stdout);
}

int sn_box2d_suite_run(const sn_box2d_suite_options *o) {
  int32_t runs = o->runs > 0 ? o->runs : 2;
  int32_t worker_list[2] = {1, 2}, worker_count = 2;
  if (o->workers > 0) {
    worker_list[0] = o->workers;
    worker_count = 1;
  }
  bool found = false;
  int rc = 0;
  for (int32_t sc = 0; sn_box2d_scene_names[sc] != NULL && rc == 0; ++sc) {
    const char *full = sn_box2d_scene_names[sc], *short_name = full + 6; /* after "box2d-" */
    if (o->scene != NULL && strcmp(o->scene, short_name) != 0 && strcmp(o->scene, full) != 0) continue;
    found = true;
    int32_t steps = o->steps > 0 ? o->steps : sn_box2d_scene_default_steps(full);
    double *times = malloc((size_t)steps * sizeof(double));
    if (times == NULL) return 1;
    for (int32_t wi = 0; wi < worker_count && rc == 0; ++wi) {
      sn_thread_pool *pool = sn_thread_pool_create(worker_list[wi]);
      if (pool == NULL) {
        fprintf(stderr, "sinew-bench: cannot start %d workers\n", (int)worker_list[wi]);
        rc = 1;
        break;
      }
      sn_suite_result res[SN_SUITE_CONFIGS];
      memset(res, 0, sizeof res);
      /* the configurations alternate run by run */
      for (int32_t run = 0; run < runs && rc == 0; ++run) {
        for (int32_t c = 0; c < SN_SUITE_CONFIGS && rc == 0; ++c) {
          if (!sn_suite_run_once(full, sn_suite_configs + c, pool, steps, times, res + c, run == 0)) rc = 1;
        }
      }
      sn_thread_pool_destroy(pool);
      for (int32_t c = 0; c < SN_SUITE_CONFIGS && rc == 0; ++c)
        sn_suite_print(short_name, sn_suite_configs + c, worker_list[wi], steps, sn_box2d_scene_default_steps(full),
                       runs, res + c);
    }
    free(times);
  }
  if (!found) {
    fprintf(stderr,
            "sinew-bench: --suite box2d has no scene '%s' (joint_grid, large_pyramid, many_pyramids, rain, "
            "smash, spinner, tumbler)\n",
            o->scene);
    return 2;
  }
  return rc;
}
