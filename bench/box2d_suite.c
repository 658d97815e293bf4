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

#include <math.h>
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

/* One printed line, kept for --table and --svg. */
typedef struct sn_suite_line {
  const char *scene;
  int32_t workers;
  double total[SN_SUITE_CONFIGS];
  double reference; /* Box2D's total, 0 when unknown */
  char figures[SN_SUITE_CONFIGS][256];
  bool same_hash; /* the configurations' first line (1 worker) has this worker count's hash */
  unsigned long long hash[SN_SUITE_CONFIGS];
} sn_suite_line;
#define SN_SUITE_MAX_LINES 32

/* The scene's behaviour figures as JSON members. */
static void sn_suite_figures(char *figures, size_t size, const char *short_name, const sn_box2d_metrics *m) {
  if (strcmp(short_name, "joint_grid") == 0)
    snprintf(figures, size, "\"joint_separation\": %.6f, \"joints_over_1pct\": %d, \"lowest_y\": %.4f",
             m->joint_separation, (int)m->joints_over_1pct, m->lowest_y);
  else if (strcmp(short_name, "large_pyramid") == 0 || strcmp(short_name, "many_pyramids") == 0)
    snprintf(figures, size, "\"top_drift\": %.6f, \"fallen\": %d", m->top_drift, (int)m->fallen);
  else if (strcmp(short_name, "rain") == 0)
    snprintf(figures, size,
             "\"live_ragdolls\": %d, \"joint_separation\": %.6f, \"limit_violation\": %.6f, "
             "\"joint_separation_max\": %.6f, \"limit_violation_max\": %.6f",
             (int)m->live_ragdolls, m->joint_separation, m->limit_violation, m->joint_separation_max,
             m->limit_violation_max);
  else if (strcmp(short_name, "smash") == 0)
    snprintf(figures, size, "\"woken\": %d, \"ram_speed\": %.4f", (int)m->woken, m->ram_speed);
  else if (strcmp(short_name, "spinner") == 0)
    snprintf(figures, size, "\"motor_angle\": %.6f, \"outside\": %d", m->motor_angle, (int)m->outside);
  else
    snprintf(figures, size, "\"outside\": %d", (int)m->outside);
}

/* Box2D's total for the scene and worker count at its full step count, or 0. */
static double sn_suite_reference(const char *short_name, int32_t workers, int32_t steps, int32_t full_steps) {
  for (size_t k = 0; k < sizeof sn_box2d_reference / sizeof sn_box2d_reference[0]; ++k) {
    if (strcmp(sn_box2d_reference[k].scene, short_name) == 0 && workers <= 2 && steps == full_steps)
      return sn_box2d_reference[k].ms[workers - 1];
  }
  return 0.0;
}

static void sn_suite_print(const char *short_name, const sn_suite_config *config, int32_t workers, int32_t steps,
                           int32_t full_steps, int32_t runs, const sn_suite_result *r) {
  const sn_box2d_metrics *m = &r->metrics;
  char figures[256];
  sn_suite_figures(figures, sizeof figures, short_name, m);
  char reference[32] = "null";
  double ref = sn_suite_reference(short_name, workers, steps, full_steps);
  if (ref > 0.0) snprintf(reference, sizeof reference, "%.0f", ref);
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

/* The figures' JSON members as Markdown: quotes dropped. */
static void sn_suite_plain(char *out, size_t size, const char *json) {
  size_t n = 0;
  for (const char *c = json; *c != '\0' && n + 1 < size; ++c) {
    if (*c != '"') out[n++] = *c;
  }
  out[n] = '\0';
}

static int sn_suite_write_table(const char *path, const sn_suite_line *lines, int32_t count) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "sinew-bench --table: cannot write %s\n", path);
    return 1;
  }
  fprintf(f, "| scene | workers | Box2D v3.1.1 | Sinew defaults (8 substeps) | Sinew 4 substeps | defaults / Box2D | "
             "4 substeps / Box2D | figures at the end (defaults / 4 substeps) | same hash, 1 and 2 workers |\n");
  fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---|---|\n");
  for (int32_t k = 0; k < count; ++k) {
    const sn_suite_line *l = lines + k;
    char ref[32] = "—", r0[32] = "—", r1[32] = "—", fig0[256], fig1[256];
    if (l->reference > 0.0) {
      snprintf(ref, sizeof ref, "%.0f", l->reference);
      snprintf(r0, sizeof r0, "%.2f", l->total[0] / l->reference);
      snprintf(r1, sizeof r1, "%.2f", l->total[1] / l->reference);
    }
    sn_suite_plain(fig0, sizeof fig0, l->figures[0]);
    sn_suite_plain(fig1, sizeof fig1, l->figures[1]);
    fprintf(f, "| `%s` | %d | %s | %.0f | %.0f | %s | %s | %s / %s | %s |\n", l->scene, (int)l->workers, ref,
            l->total[0], l->total[1], r0, r1, fig0, fig1,
            l->workers == 1 ? "—"
            : l->same_hash  ? "yes"
                            : "**no**");
  }
  int rc = ferror(f) ? 1 : 0;
  if (fclose(f) != 0) rc = 1;
  return rc;
}

/* Sinew's totals over Box2D's, one row per scene and worker count, on a
 * log scale centred on 1 (Box2D): a bar to the left is faster. */
static int sn_suite_write_svg(const char *path, const sn_suite_line *lines, int32_t count) {
  int32_t rows = 0;
  for (int32_t k = 0; k < count; ++k) rows += lines[k].reference > 0.0;
  if (rows == 0) {
    fprintf(stderr, "sinew-bench --svg: no line with Box2D's figure (the scenes' own step counts, 1 or 2 workers)\n");
    return 1;
  }
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "sinew-bench --svg: cannot write %s\n", path);
    return 1;
  }
  const double lo = -3.0, hi = 4.0; /* log2 of the ratio: 1/8 .. 16 */
  const double W = 820, L = 170, R = 40, T = 70, B = 70, row_h = 34, bar_h = 12;
  const double pw = W - L - R, ph = row_h * rows, H = T + ph + B;
#define SN_RX(ratio) (L + (fmin(fmax(log2(ratio), lo), hi) - lo) / (hi - lo) * pw)
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\" font-size=\"13\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%.0f\" y=\"26\" font-size=\"16\">Box2D v3.1.1's benchmark suite: Sinew's total time over "
          "Box2D's</text>\n"
          "<text x=\"%.0f\" y=\"46\" font-size=\"12\" fill=\"#555\">left of 1: faster than Box2D at its 4 "
          "substeps (log scale); the dashed line is the 4-substep target, 1/1.5</text>\n",
          W, H, W, H, L, L);
  for (double e = lo; e <= hi + 0.5; e += 1.0) {
    double x = L + (e - lo) / (hi - lo) * pw, v = exp2(e);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
            x, T, x, T + ph, e == 0.0 ? "#000" : "#ddd", x, T + ph + 18, v);
  }
  double xt = SN_RX(1.0 / 1.5);
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"5 4\"/>\n", xt,
          T, xt, T + ph);
  const char *colors[SN_SUITE_CONFIGS] = {"#1f77b4", "#ff7f0e"};
  int32_t row = 0;
  for (int32_t k = 0; k < count; ++k) {
    const sn_suite_line *l = lines + k;
    if (l->reference <= 0.0) continue;
    double y = T + row_h * row + 4;
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s, %d worker%s</text>\n", L - 8, y + bar_h + 4,
            l->scene, (int)l->workers, l->workers == 1 ? "" : "s");
    for (int32_t c = 0; c < SN_SUITE_CONFIGS; ++c) {
      double ratio = l->total[c] / l->reference, x0 = SN_RX(1.0), x1 = SN_RX(ratio);
      double yb = y + c * (bar_h + 2);
      fprintf(f,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"><title>%s %s, %d "
              "worker(s): %.0f ms, Box2D %.0f ms</title></rect>\n"
              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"%s\">%.2f</text>\n",
              fmin(x0, x1), yb, fabs(x1 - x0), bar_h, colors[c], l->scene, sn_suite_configs[c].name, (int)l->workers,
              l->total[c], l->reference, x1 + (x1 >= x0 ? 3.0 : -3.0), yb + bar_h - 2, x1 >= x0 ? "start" : "end",
              ratio);
    }
    row++;
  }
  double ly = T + ph + 42;
  for (int32_t c = 0; c < SN_SUITE_CONFIGS; ++c) {
    double lx = L + 250.0 * c;
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"%.0f\" fill=\"%s\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            lx, ly, bar_h, colors[c], lx + 24, ly + bar_h - 1, sn_suite_configs[c].name);
  }
#undef SN_RX
  fprintf(f, "</svg>\n");
  int rc = ferror(f) ? 1 : 0;
  if (fclose(f) != 0) rc = 1;
  return rc;
}

int sn_box2d_suite_run(const sn_box2d_suite_options *o) {
  sn_suite_line *lines = calloc(SN_SUITE_MAX_LINES, sizeof *lines);
  int32_t line_count = 0;
  if (lines == NULL) return 1;
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
    if (times == NULL) {
      free(lines);
      return 1;
    }
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
      const int32_t full_steps = sn_box2d_scene_default_steps(full);
      for (int32_t c = 0; c < SN_SUITE_CONFIGS && rc == 0; ++c)
        sn_suite_print(short_name, sn_suite_configs + c, worker_list[wi], steps, full_steps, runs, res + c);
      if (rc == 0 && line_count < SN_SUITE_MAX_LINES) {
        sn_suite_line *l = lines + line_count++;
        memset(l, 0, sizeof *l);
        l->scene = short_name;
        l->workers = worker_list[wi];
        l->reference = sn_suite_reference(short_name, worker_list[wi], steps, full_steps);
        l->same_hash = true;
        for (int32_t c = 0; c < SN_SUITE_CONFIGS; ++c) {
          l->total[c] = res[c].best_total;
          l->hash[c] = res[c].metrics.state_hash;
          sn_suite_figures(l->figures[c], sizeof l->figures[c], short_name, &res[c].metrics);
          if (wi > 0 && lines[line_count - 1 - wi].hash[c] != l->hash[c]) l->same_hash = false;
        }
      }
    }
    free(times);
  }
  if (!found) {
    fprintf(stderr,
            "sinew-bench: --suite box2d has no scene '%s' (joint_grid, large_pyramid, many_pyramids, rain, "
            "smash, spinner, tumbler)\n",
            o->scene);
    free(lines);
    return 2;
  }
  if (rc == 0 && o->table_path != NULL) rc = sn_suite_write_table(o->table_path, lines, line_count);
  if (rc == 0 && o->svg_path != NULL) rc = sn_suite_write_svg(o->svg_path, lines, line_count);
  free(lines);
  return rc;
}
