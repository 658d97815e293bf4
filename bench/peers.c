/* sinew-bench --peers (see peers.h).
 *
 * Each scene is described once here (sn_peer_scene, the rules of
 * docs/benchmark.md, checked against Sinew's own build of the scene body by
 * body) and instantiated by every peer driver. The engines run in the same
 * process and take turns: `block` steps of one engine, then `block` steps of
 * the next, the order rotating every round, until each has run every step.
 * So all engines sample the same stretches of a noisy shared machine, while
 * each keeps its caches warm within a turn (only the first step of a turn
 * starts cold: one sample in `block`, which leaves the median alone). Every
 * step is timed on its own with a monotonic clock (the JSON lines' fields);
 * the thread's CPU time is taken too, and the ratio line gives the ratios
 * of both medians: on a machine with more runnable jobs than cores a step
 * of a few ms is now and then descheduled for a whole time slice, which the
 * monotonic clock counts and the CPU clock does not.
 * The metrics of the peers are computed here from their bodies' states with
 * the same definitions as Sinew's (bench/scenes.c). */
#define _POSIX_C_SOURCE 200809L
#include "peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peers/peer.h"
#include "report.h"
#include "scenes.h"
#include "platform/platform.h" /* sn_thread_cpu_ms */

#define SN_PEERS_MAX_ENGINES 3
#define SN_PEERS_MAX_RUNS    32

static const sn_peer *const sn_peer_list[] = {
#ifdef SINEW_HAVE_BOX2D
    &sn_peer_box2d,
#endif
#ifdef SINEW_HAVE_CHIPMUNK
    &sn_peer_chipmunk,
#endif
    NULL};

/* Peers sinew-bench knows of, built in or not, with what they need. */
static const struct {
  const char *engine, *key, *package;
  bool built;
} sn_peer_known[] = {
#ifdef SINEW_HAVE_BOX2D
    {"box2d-2.4.1", "box2d", "libbox2d-dev", true},
#else
    {"box2d-2.4.1", "box2d", "libbox2d-dev", false},
#endif
#ifdef SINEW_HAVE_CHIPMUNK
    {"chipmunk-7.0.3", "chipmunk", "libchipmunk-dev", true},
#else
    {"chipmunk-7.0.3", "chipmunk", "libchipmunk-dev", false},
#endif
};

/* ---- scene descriptions (docs/benchmark.md, as bench/scenes.c builds them) ---- */

typedef struct sn_peer_desc {
  sn_peer_scene scene;
  sn_peer_body *statics, *bodies;
  sn_peer_joint *joints;
  int32_t top_body;
  int32_t ratio_small, ratio_big;
  bool is_rain;
  float link_half; /* chain: half length of a link, pin at (0, 60) */
} sn_peer_desc;

static void sn_desc_free(sn_peer_desc *d) {
  free(d->statics);
  free(d->bodies);
  free(d->joints);
  memset(d, 0, sizeof(*d));
}

static void sn_desc_static(sn_peer_desc *d, float hx, float hy, float x, float y) {
  d->statics[d->scene.static_count++] = (sn_peer_body){SN_PEER_BOX, hx, hy, x, y, 0.0f, 0.6f, 0.0f};
}

static void sn_desc_body(sn_peer_desc *d, sn_peer_shape shape, float hx, float hy, float x, float y, float density) {
  int32_t k = d->scene.body_count++;
  d->bodies[k] = (sn_peer_body){shape, hx, hy, x, y, density, 0.6f, 0.0f};
  if (k == 0 || y > d->bodies[d->top_body].y) d->top_body = k;
}

static bool sn_desc_build(sn_peer_desc *d, const char *name, int32_t size) {
  memset(d, 0, sizeof(*d));
  d->ratio_small = d->ratio_big = -1;
  d->scene.gravity_y = -10.0f;
  int32_t n = 0;
  if (strcmp(name, "pyramid") == 0)
    n = size * (size + 1) / 2;
  else if (strcmp(name, "tower") == 0 || strcmp(name, "rain") == 0 || strcmp(name, "chain") == 0)
    n = size;
  else if (strcmp(name, "ratio") == 0)
    n = 2;
  else
    return false;
  d->statics = calloc(4, sizeof(sn_peer_body));
  d->bodies = calloc((size_t)n + 1, sizeof(sn_peer_body));
  d->joints = calloc((size_t)n + 1, sizeof(sn_peer_joint));
  if (d->statics == NULL || d->bodies == NULL || d->joints == NULL) return false;
  d->scene.statics = d->statics;
  d->scene.bodies = d->bodies;
  d->scene.joints = d->joints;
  if (strcmp(name, "pyramid") == 0) {
    sn_desc_static(d, 200.0f, 1.0f, 0.0f, -1.0f);
    for (int32_t i = 0; i < size; ++i) {
      for (int32_t j = i; j < size; ++j) {
        float x = (float)(i + 1) * 0.5f + (float)(j - i) * 1.0f - 0.5f * (float)size;
        float y = (float)(2 * i + 1) * 0.5f;
        sn_desc_body(d, SN_PEER_BOX, 0.5f, 0.5f, x, y, 1.0f);
      }
    }
  } else if (strcmp(name, "tower") == 0) {
    sn_desc_static(d, 200.0f, 1.0f, 0.0f, -1.0f);
    for (int32_t k = 0; k < size; ++k) sn_desc_body(d, SN_PEER_BOX, 0.5f, 0.5f, 0.0f, 0.5f + (float)k, 1.0f);
  } else if (strcmp(name, "rain") == 0) {
    d->is_rain = true;
    sn_desc_static(d, 20.0f, 0.5f, 0.0f, 0.5f);
    sn_desc_static(d, 0.5f, 20.0f, -20.5f, 20.0f);
    sn_desc_static(d, 0.5f, 20.0f, 20.5f, 20.0f);
    for (int32_t k = 0; k < size; ++k) {
      int32_t r = k / 40, c = k % 40;
      float x = -19.5f + (float)c, y = 3.0f + (float)r;
      if (k % 2 == 0)
        sn_desc_body(d, SN_PEER_CIRCLE, 0.4f, 0.4f, x, y, 1.0f);
      else
        sn_desc_body(d, SN_PEER_BOX, 0.4f, 0.4f, x, y, 1.0f);
    }
  } else if (strcmp(name, "ratio") == 0) {
    sn_desc_static(d, 200.0f, 1.0f, 0.0f, -1.0f);
    sn_desc_body(d, SN_PEER_BOX, 0.5f, 0.5f, 0.0f, 0.5f, 1.0f);
    sn_desc_body(d, SN_PEER_BOX, 2.0f, 2.0f, 0.0f, 3.0f, 100.0f);
    d->ratio_small = 0;
    d->ratio_big = 1;
  } else { /* chain: links 0.5 m x 0.1 m, density 20, pinned end to end, the first to (0, 60) */
    d->link_half = 0.25f;
    for (int32_t k = 0; k < size; ++k) {
      sn_desc_body(d, SN_PEER_BOX, 0.25f, 0.05f, 0.25f + 0.5f * (float)k, 60.0f, 20.0f);
      d->joints[d->scene.joint_count++] = (sn_peer_joint){k - 1, k, 0.5f * (float)k, 60.0f};
    }
  }
  return true;
}

/* The description must be Sinew's scene, body by body. */
static bool sn_desc_matches(const sn_peer_desc *d, const sn_scene *s) {
  if (d->scene.body_count != s->body_count || d->top_body != s->top_body) return false;
  for (int32_t k = 0; k < s->body_count; ++k) {
    if (d->bodies[k].x != s->initial[k].x || d->bodies[k].y != s->initial[k].y) return false;
  }
  return true;
}

/* ---- measurements ---- */

typedef struct sn_peer_row {
  const char *engine;
  const char *settings;
  sn_scene_timing timing, cpu; /* monotonic clock, thread CPU time */
  sn_scene_metrics m;
  int32_t bodies, constraints;
} sn_peer_row;

typedef struct sn_peer_run {
  const char *scene;
  int32_t size, steps;
  int32_t engine_count; /* row 0: Sinew */
  sn_peer_row rows[SN_PEERS_MAX_ENGINES];
} sn_peer_run;

static void sn_peer_measure(const sn_peer *p, void *w, const sn_peer_desc *d, sn_scene_metrics *m) {
  memset(m, 0, sizeof(*m));
  uint64_t h = 0xcbf29ce484222325ull;
  sn_peer_state small = {0}, big = {0};
  double worst_link = 0.0, prev_x = 0.0, prev_y = 60.0;
  for (int32_t k = 0; k < d->scene.body_count; ++k) {
    sn_peer_state st;
    p->state(w, k, &st);
    const sn_peer_body *b = &d->bodies[k];
    double dx = st.x - b->x, dy = st.y - b->y;
    double dist = sqrt(dx * dx + dy * dy);
    if (dist > m->max_dx) m->max_dx = dist;
    if (k == d->top_body) m->top_drift = dist;
    if (d->is_rain) {
      if (fabs(st.x) >= 21.0 || st.y < 0.0) m->fallen++;
    } else if (st.y < (double)b->y - 0.25) {
      m->fallen++;
    }
    m->ke_end += 0.5 * st.mass * (st.vx * st.vx + st.vy * st.vy) + 0.5 * st.inertia * st.w * st.w;
    double c = cos(st.angle), s = sin(st.angle);
    float state[6] = {(float)st.x, (float)st.y, (float)c, (float)s, (float)st.vx, (float)st.vy};
    float wf = (float)st.w;
    h = sn_scene_hash_bytes(h, state, sizeof(state));
    h = sn_scene_hash_bytes(h, &wf, sizeof(wf));
    if (k == d->ratio_small) small = st;
    if (k == d->ratio_big) big = st;
    if (d->link_half > 0.0f) {
      double lx = st.x - c * d->link_half, ly = st.y - s * d->link_half;
      double e = hypot(lx - prev_x, ly - prev_y);
      if (e > worst_link) worst_link = e;
      prev_x = st.x + c * d->link_half;
      prev_y = st.y + s * d->link_half;
    }
  }
  if (d->ratio_big >= 0) {
    m->min_y_gap = (big.y - small.y) - 2.5;
    m->has_min_y_gap = true;
  }
  if (d->link_half > 0.0f) {
    m->link_error = worst_link / (2.0 * d->link_half);
    m->has_link_error = true;
  }
  m->state_hash = h;
}

static void sn_peer_print_json(const sn_peer_run *run, const sn_peer_row *r) {
  const sn_scene_metrics *m = &r->m;
  char gap[32], link[32];
  snprintf(link, sizeof link, m->has_link_error ? "%.5f" : "null", m->link_error);
  snprintf(gap, sizeof gap, m->has_min_y_gap ? "%.4f" : "null", m->min_y_gap);
  printf("{\"engine\": \"%s\", \"scene\": \"%s\", \"size\": %d, \"steps\": %d, "
         "\"bodies\": %d, \"particles\": 0, \"constraints\": %d, \"settings\": \"%s\", "
         "\"ms_step_median\": %.4f, \"ms_step_p95\": %.4f, \"ms_total\": %.2f, "
         "\"top_drift\": %.4f, \"max_dx\": %.4f, \"fallen\": %d, \"min_y_gap\": %s, \"ke_end\": %.3g, "
         "\"max_strain\": null, \"max_area_error\": null, \"link_error\": %s, \"state_hash\": \"%016llx\"}\n",
         r->engine, run->scene, (int)run->size, (int)run->steps, (int)r->bodies, (int)r->constraints, r->settings,
         r->timing.median, r->timing.p95, r->timing.total, m->top_drift, m->max_dx, (int)m->fallen, gap, m->ke_end,
         link, (unsigned long long)m->state_hash);
}

/* "box2d-2.4.1" -> "box2d" */
static void sn_engine_key(const char *engine, char *out, size_t n) {
  size_t k = 0;
  while (engine[k] != '\0' && engine[k] != '-' && k + 1 < n) {
    out[k] = engine[k];
    k++;
  }
  out[k] = '\0';
}

static void sn_peer_print_ratios(const sn_peer_run *run, int32_t block) {
  printf("{\"scene\": \"%s\", \"size\": %d, \"steps\": %d, \"block\": %d", run->scene, (int)run->size, (int)run->steps,
         (int)block);
  for (int32_t e = 1; e < run->engine_count; ++e) {
    char key[32];
    sn_engine_key(run->rows[e].engine, key, sizeof key);
    double peer = run->rows[e].timing.median, sinew = run->rows[0].timing.median;
    printf(", \"ratio_%s\": %.4f", key, peer > 0.0 ? sinew / peer : 0.0);
  }
  for (int32_t e = 1; e < run->engine_count; ++e) {
    char key[32];
    sn_engine_key(run->rows[e].engine, key, sizeof key);
    double peer = run->rows[e].timing.median, sinew = run->rows[0].timing.median;
    printf(", \"speedup_%s\": %.2f", key, sinew > 0.0 ? peer / sinew : 0.0);
  }
  for (int32_t e = 1; e < run->engine_count; ++e) {
    char key[32];
    sn_engine_key(run->rows[e].engine, key, sizeof key);
    double peer = run->rows[e].cpu.median, sinew = run->rows[0].cpu.median;
    printf(", \"cpu_ratio_%s\": %.4f", key, peer > 0.0 ? sinew / peer : 0.0);
  }
  printf(", \"cpu_ms_step_median\": {");
  for (int32_t e = 0; e < run->engine_count; ++e)
    printf("%s\"%s\": %.4f", e ? ", " : "", run->rows[e].engine, run->rows[e].cpu.median);
  printf("}");
  printf("}\n");
  fflush(stdout);
}

/* ---- one scene on every engine, interleaved ---- */

static int sn_peers_scene(sn_peer_run *run, const char *name, int32_t size, const sn_peers_options *o) {
  const int32_t block = o->block > 0 ? o->block : 10;
  if (size <= 0) size = sn_scene_default_size(name);
  memset(run, 0, sizeof(*run));
  sn_scene scene;
  if (!sn_scene_build(&scene, name, size, o->substeps, false)) {
    fprintf(stderr, "sinew-bench: unknown scene or build failure: %s\n", name);
    sn_scene_destroy(&scene);
    return 1;
  }
  sn_peer_desc desc;
  if (!sn_desc_build(&desc, name, size) || !sn_desc_matches(&desc, &scene)) {
    fprintf(stderr, "sinew-bench --peers: no peer version of scene %s %d (rigid scenes only)\n", name, (int)size);
    sn_desc_free(&desc);
    sn_scene_destroy(&scene);
    return 1;
  }
  const int32_t steps = o->steps > 0 ? o->steps : scene.default_steps;
  run->scene = scene.name;
  run->size = scene.size;
  run->steps = steps;

  void *worlds[SN_PEERS_MAX_ENGINES] = {NULL};
  const sn_peer *peers[SN_PEERS_MAX_ENGINES] = {NULL};
  int32_t n = 1;
  int rc = 0;
  for (int32_t k = 0; sn_peer_list[k] != NULL && n < SN_PEERS_MAX_ENGINES; ++k) {
    peers[n] = sn_peer_list[k];
    worlds[n] = peers[n]->build(&desc.scene);
    if (worlds[n] == NULL) {
      fprintf(stderr, "sinew-bench --peers: %s could not build %s\n", peers[n]->engine, name);
      rc = 1;
      break;
    }
    n++;
  }
  double *times = rc == 0 ? malloc(2 * (size_t)steps * (size_t)n * sizeof(double)) : NULL;
  if (times == NULL) rc = 1;
  double *cpu_times = times + (size_t)steps * (size_t)n;

  const float dt = 1.0f / 60.0f;
  for (int32_t start = 0, round = 0; rc == 0 && start < steps; start += block, ++round) {
    int32_t end = start + block < steps ? start + block : steps;
    for (int32_t t = 0; t < n && rc == 0; ++t) {
      int32_t e = (round + t) % n;
      double *out = times + (size_t)e * (size_t)steps, *cpu_out = cpu_times + (size_t)e * (size_t)steps;
      for (int32_t i = start; i < end; ++i) {
        double t0 = sn_scene_now_ms(), c0 = sn_thread_cpu_ms();
        if (e == 0) {
          if (sn_world_step(scene.world, dt) != SN_OK) {
            fprintf(stderr, "sinew-bench: step failed: %s\n", sn_world_last_error(scene.world));
            rc = 1;
            break;
          }
        } else {
          peers[e]->step(worlds[e], dt);
        }
        cpu_out[i] = sn_thread_cpu_ms() - c0;
        out[i] = sn_scene_now_ms() - t0;
      }
    }
  }

  if (rc == 0) {
    run->engine_count = n;
    for (int32_t e = 0; e < n; ++e) {
      sn_peer_row *r = &run->rows[e];
      r->timing = sn_scene_timing_of(times + (size_t)e * (size_t)steps, steps);
      r->cpu = sn_scene_timing_of(cpu_times + (size_t)e * (size_t)steps, steps);
      r->bodies = scene.body_count;
      if (e == 0) {
        static char sinew_engine[32], sinew_settings[64];
        snprintf(sinew_engine, sizeof sinew_engine, "sinew-%s", sn_version_string());
        snprintf(sinew_settings, sizeof sinew_settings, "substeps=%d sleep=off",
                 (int)sn_world_get_substeps(scene.world));
        r->engine = sinew_engine;
        r->settings = sinew_settings;
        r->constraints = scene.constraint_count;
        sn_scene_measure(&scene, &r->m);
        sn_scene_print_json(stdout, &scene, steps, false, &r->timing);
      } else {
        r->engine = peers[e]->engine;
        r->settings = peers[e]->settings;
        r->constraints = desc.scene.joint_count;
        sn_peer_measure(peers[e], worlds[e], &desc, &r->m);
        sn_peer_print_json(run, r);
      }
    }
    if (n > 1) sn_peer_print_ratios(run, block);
  }
  free(times);
  for (int32_t e = 1; e < SN_PEERS_MAX_ENGINES; ++e) {
    if (worlds[e] != NULL) peers[e]->destroy(worlds[e]);
  }
  sn_desc_free(&desc);
  sn_scene_destroy(&scene);
  fflush(stdout);
  return rc;
}

/* ---- outputs: the SVG plot and the Markdown table ---- */

static const char *const sn_plot_colors[] = {"#d62728", "#1f77b4", "#2ca02c"};

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks up to max. */
static double sn_nice_step(double max, int ticks) {
  double raw = max / ticks, p = pow(10.0, floor(log10(raw)));
  double f = raw / p;
  return (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * p;
}

static int sn_write_svg(const char *path, const sn_peer_run *runs, int32_t run_count) {
  /* the pyramid runs, by body count */
  const sn_peer_run *pts[SN_PEERS_MAX_RUNS];
  int32_t np = 0;
  for (int32_t k = 0; k < run_count; ++k) {
    if (strcmp(runs[k].scene, "pyramid") != 0) continue;
    int32_t at = np++;
    while (at > 0 && pts[at - 1]->rows[0].bodies > runs[k].rows[0].bodies) {
      pts[at] = pts[at - 1];
      at--;
    }
    pts[at] = &runs[k];
  }
  if (np == 0) {
    fprintf(stderr, "sinew-bench --svg: no pyramid run to plot\n");
    return 1;
  }
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "sinew-bench --svg: cannot write %s\n", path);
    return 1;
  }
  const int32_t engines = pts[0]->engine_count;
  double xmax = 0.0, ymax = 0.0;
  for (int32_t k = 0; k < np; ++k) {
    if (pts[k]->rows[0].bodies > xmax) xmax = pts[k]->rows[0].bodies;
    for (int32_t e = 0; e < pts[k]->engine_count; ++e) {
      if (pts[k]->rows[e].timing.median > ymax) ymax = pts[k]->rows[e].timing.median;
    }
  }
  if (xmax <= 0.0) xmax = 1.0;
  if (ymax <= 0.0) ymax = 1.0;
  const double xs = sn_nice_step(xmax, 6), ys = sn_nice_step(ymax, 6);
  xmax = ceil(xmax / xs) * xs;
  ymax = ceil(ymax / ys) * ys;
  const double W = 760, H = 480, L = 70, R = 190, T = 50, B = 60;
  const double pw = W - L - R, ph = H - T - B;
#define SN_PX(v) (L + (v) / xmax * pw)
#define SN_PY(v) (T + ph - (v) / ymax * ph)
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "font-family=\"sans-serif\" font-size=\"13\">\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
          "<text x=\"%.0f\" y=\"28\" font-size=\"16\">pyramid N: ms per step (median of %d steps) against dynamic "
          "bodies</text>\n",
          W, H, W, H, L, (int)pts[0]->steps);
  for (double v = 0.0; v <= xmax + 0.5 * xs; v += xs) {
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
            SN_PX(v), T, SN_PX(v), T + ph, SN_PX(v), T + ph + 18, v);
  }
  for (double v = 0.0; v <= ymax + 0.5 * ys; v += ys) {
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
            L, SN_PY(v), L + pw, SN_PY(v), L - 8, SN_PY(v) + 4, v);
  }
  fprintf(f,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">dynamic bodies (pyramid N has N(N+1)/2)</text>\n"
          "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">ms per step</text>\n",
          L, T, pw, ph, L + 0.5 * pw, H - 15, T + 0.5 * ph, T + 0.5 * ph);
  for (int32_t e = 0; e < engines; ++e) {
    const char *color = sn_plot_colors[e % 3];
    /* solid: monotonic clock; dashed: thread CPU time */
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
    for (int32_t k = 0; k < np; ++k) {
      if (e < pts[k]->engine_count)
        fprintf(f, "%s%.1f,%.1f", k ? " " : "", SN_PX(pts[k]->rows[0].bodies), SN_PY(pts[k]->rows[e].timing.median));
    }
    fprintf(f, "\"/>\n");
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" points=\"", color);
    for (int32_t k = 0; k < np; ++k) {
      if (e < pts[k]->engine_count)
        fprintf(f, "%s%.1f,%.1f", k ? " " : "", SN_PX(pts[k]->rows[0].bodies), SN_PY(pts[k]->rows[e].cpu.median));
    }
    fprintf(f, "\"/>\n");
    for (int32_t k = 0; k < np; ++k) {
      if (e < pts[k]->engine_count)
        fprintf(
            f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s pyramid %d: %.3f ms</title></circle>\n",
            SN_PX(pts[k]->rows[0].bodies), SN_PY(pts[k]->rows[e].timing.median), color, pts[k]->rows[e].engine,
            (int)pts[k]->size, pts[k]->rows[e].timing.median);
    }
    double ly = T + 20 + 24 * e;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            L + pw + 15, ly, L + pw + 40, ly, color, L + pw + 46, ly + 4, pts[0]->rows[e].engine);
  }
  double ly = T + 20 + 24 * engines;
  fprintf(f,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"2\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">monotonic clock</text>\n"
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" stroke-width=\"1.5\" "
          "stroke-dasharray=\"6 4\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">thread CPU time</text>\n",
          L + pw + 15, ly, L + pw + 40, ly, L + pw + 46, ly + 4, L + pw + 15, ly + 20, L + pw + 40, ly + 20,
          L + pw + 46, ly + 24);
  fprintf(f,
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">peers: Debian builds,</text>\n"
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">assertions on</text>\n",
          L + pw + 15, ly + 50, L + pw + 15, ly + 64);
#undef SN_PX
#undef SN_PY
  fprintf(f, "</svg>\n");
  int rc = ferror(f) ? 1 : 0;
  if (fclose(f) != 0) rc = 1;
  return rc;
}

static void sn_fmt(char *out, size_t n, bool has, const char *fmt, double v) {
  if (has)
    snprintf(out, n, fmt, v);
  else
    snprintf(out, n, "—");
}

static int sn_write_table(const char *path, const sn_peer_run *runs, int32_t run_count) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "sinew-bench --table: cannot write %s\n", path);
    return 1;
  }
  fprintf(f, "| scene | bodies | engine | ms/step median | p95 | CPU ms/step median | Sinew ÷ engine | "
             "(CPU time) | top_drift (m) | max_dx (m) | fallen | min_y_gap (m) | ke_end (J) | link_error |\n"
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int32_t k = 0; k < run_count; ++k) {
    const sn_peer_run *run = &runs[k];
    for (int32_t e = 0; e < run->engine_count; ++e) {
      const sn_peer_row *r = &run->rows[e];
      char ratio[32], cpu_ratio[32], gap[32], link[32], drift[32], dx[32];
      bool rigid_pile = strcmp(run->scene, "rain") != 0 && strcmp(run->scene, "chain") != 0;
      sn_fmt(ratio, sizeof ratio, e > 0 && r->timing.median > 0.0, "%.2f",
             run->rows[0].timing.median / r->timing.median);
      sn_fmt(cpu_ratio, sizeof cpu_ratio, e > 0 && r->cpu.median > 0.0, "%.2f",
             run->rows[0].cpu.median / r->cpu.median);
      sn_fmt(gap, sizeof gap, r->m.has_min_y_gap, "%.3f", r->m.min_y_gap);
      sn_fmt(link, sizeof link, r->m.has_link_error, "%.4f", r->m.link_error);
      sn_fmt(drift, sizeof drift, rigid_pile, "%.3f", r->m.top_drift);
      sn_fmt(dx, sizeof dx, rigid_pile, "%.3f", r->m.max_dx);
      char label[48];
      if (strcmp(run->scene, "ratio") == 0)
        snprintf(label, sizeof label, "ratio 1600:1");
      else
        snprintf(label, sizeof label, "%s %d", run->scene, (int)run->size);
      fprintf(f, "| %s | %d | %s | %.3f | %.3f | %.3f | %s | %s | %s | %s | %d | %s | %.2g | %s |\n",
              e == 0 ? label : "", (int)r->bodies, r->engine, r->timing.median, r->timing.p95, r->cpu.median, ratio,
              cpu_ratio, drift, dx, (int)r->m.fallen, gap, r->m.ke_end, link);
    }
  }
  int rc = ferror(f) ? 1 : 0;
  if (fclose(f) != 0) rc = 1;
  return rc;
}

/* ---- entry ---- */

int sn_peers_run(const sn_peers_options *o) {
  int32_t built = 0;
  for (size_t k = 0; k < sizeof(sn_peer_known) / sizeof(sn_peer_known[0]); ++k) {
    if (sn_peer_known[k].built) {
      built++;
    } else {
      printf("sinew-bench: peer not built: %s (%s was not found when sinew-bench was configured, or "
             "SINEW_BENCH_PEERS was OFF; install it and reconfigure)\n",
             sn_peer_known[k].engine, sn_peer_known[k].package);
    }
  }
  fflush(stdout);
  if (built == 0) return 0;

  struct {
    const char *name;
    int32_t size;
  } plan[SN_PEERS_MAX_RUNS];
  int32_t count = 0;
  if (o->scene != NULL) {
    plan[count].name = o->scene;
    plan[count++].size = o->size;
  } else {
    static const int32_t standard[] = {20, 50, 100}, sweep[] = {10, 20, 30, 50, 70, 100};
    const int32_t *sizes = o->svg_path != NULL ? sweep : standard;
    int32_t nsizes = o->svg_path != NULL ? 6 : 3;
    for (int32_t k = 0; k < nsizes; ++k) {
      plan[count].name = "pyramid";
      plan[count++].size = sizes[k];
    }
    static const char *const others[] = {"tower", "rain", "ratio", "chain"};
    for (int32_t k = 0; k < 4; ++k) {
      plan[count].name = others[k];
      plan[count++].size = 0;
    }
  }
  sn_peer_run *runs = calloc((size_t)count, sizeof(sn_peer_run));
  if (runs == NULL) return 1;
  int rc = 0;
  int32_t done = 0;
  for (int32_t k = 0; k < count; ++k) {
    int r = sn_peers_scene(&runs[done], plan[k].name, plan[k].size, o);
    if (r == 0)
      done++;
    else
      rc = r;
  }
  if (o->svg_path != NULL && sn_write_svg(o->svg_path, runs, done) != 0) rc = 1;
  if (o->table_path != NULL && sn_write_table(o->table_path, runs, done) != 0) rc = 1;
  free(runs);
  return rc;
}
