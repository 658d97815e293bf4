/* Step timing, the JSON report line and the scene list (see report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"

double sn_scene_now_ms(void) { return sn_clock_ms(); }

static int sn_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

sn_scene_timing sn_scene_timing_of(double *times, int32_t n) {
  sn_scene_timing t;
  memset(&t, 0, sizeof(t));
  if (times == NULL || n <= 0) return t;
  for (int32_t i = 0; i < n; ++i) t.total += times[i];
  qsort(times, (size_t)n, sizeof(double), sn_cmp_double);
  t.median = times[n / 2];
  t.p95 = times[(int32_t)((double)(n - 1) * 0.95)];
  return t;
}

void sn_scene_print_json(FILE *out, const sn_scene *s, int32_t steps, bool sleep, const sn_scene_timing *t) {
  sn_scene_metrics m;
  sn_scene_measure(s, &m);
  char gap[32], link[32], strain[32], area[32];
  snprintf(link, sizeof link, m.has_link_error ? "%.5f" : "null", m.link_error);
  snprintf(gap, sizeof gap, m.has_min_y_gap ? "%.4f" : "null", m.min_y_gap);
  snprintf(strain, sizeof strain, m.has_strain ? "%.5f" : "null", m.max_strain);
  snprintf(area, sizeof area, m.has_area ? "%.5f" : "null", m.max_area_error);
  /* soft scenes: constraint projections (constraints x XPBD sweeps x
   * substeps) per second of the median step (the whole step, so collisions
   * and the rest of the step count against it) */
  char proj[32], cpu[32], cpu_proj[32];
  double sweeps = (double)sn_world_get_substeps(s->world) * (double)sn_world_get_soft_iterations(s->world);
  snprintf(proj, sizeof proj, s->particle_count > 0 && t->median > 0.0 ? "%.4g" : "null",
           (double)s->constraint_count * sweeps / (t->median * 1e-3));
  /* the same over the thread's CPU time per step (robust on a loaded machine) */
  snprintf(cpu, sizeof cpu, t->cpu_median > 0.0 ? "%.4f" : "null", t->cpu_median);
  snprintf(cpu_proj, sizeof cpu_proj, s->particle_count > 0 && t->cpu_median > 0.0 ? "%.4g" : "null",
           (double)s->constraint_count * sweeps / (t->cpu_median * 1e-3));
  /* where the median step went (sn_world_get_profile, medians per part) */
  char profile[256];
  snprintf(profile, sizeof profile, "null");
  if (t->has_profile) {
    static const char *const names[SN_PROFILE_PART_COUNT] = {
#define SN_X(name) #name,
        SN_PROFILE_PARTS(SN_X)
#undef SN_X
    };
    size_t n = 0;
    for (int k = 0; k < SN_PROFILE_PART_COUNT && n < sizeof profile; ++k) {
      int w = snprintf(profile + n, sizeof profile - n, "%s\"%s\": %.4f%s", k ? ", " : "{", names[k], t->profile[k],
                       k == SN_PROFILE_PART_COUNT - 1 ? "}" : "");
      if (w < 0) break;
      n += (size_t)w;
    }
  }
  fprintf(out,
          "{\"engine\": \"sinew-%s\", \"scene\": \"%s\", \"size\": %d, \"steps\": %d, "
          "\"bodies\": %d, \"particles\": %d, \"constraints\": %d, "
          "\"settings\": \"substeps=%d soft_iterations=%d sleep=%s\", "
          "\"ms_step_median\": %.4f, \"us_step_median\": %.3f, \"ms_step_p95\": %.4f, \"ms_total\": %.2f, "
          "\"top_drift\": %.4f, \"max_dx\": %.4f, \"fallen\": %d, \"min_y_gap\": %s, \"ke_end\": %.3g, "
          "\"max_strain\": %s, \"max_area_error\": %s, \"link_error\": %s, \"proj_per_s\": %s, "
          "\"cpu_ms_step_median\": %s, \"cpu_proj_per_s\": %s, \"profile_ms\": %s, "
          "\"state_hash\": \"%016llx\"}\n",
          sn_version_string(), s->name, (int)s->size, (int)steps, (int)s->body_count, (int)s->particle_count,
          (int)s->constraint_count, (int)sn_world_get_substeps(s->world), (int)sn_world_get_soft_iterations(s->world),
          sleep ? "on" : "off", t->median, 1e3 * t->median, t->p95, t->total, m.top_drift, m.max_dx, (int)m.fallen, gap,
          m.ke_end, strain, area, link, proj, cpu, cpu_proj, profile, (unsigned long long)m.state_hash);
  fflush(out);
}

/* Lists of names sinew_scenes builds (the Box2D v3 suite's last). */
static const char *const *const sn_scene_lists[] = {sn_rigid_scene_names, sn_soft_scene_names, sn_box2d_scene_names};

int32_t sn_scene_count(void) {
  int32_t n = 0;
  for (size_t l = 0; l < sizeof(sn_scene_lists) / sizeof(sn_scene_lists[0]); ++l) {
    for (const char *const *p = sn_scene_lists[l]; *p != NULL; ++p) n++;
  }
  return n;
}

const char *sn_scene_name(int32_t i) {
  if (i < 0) return NULL;
  for (size_t l = 0; l < sizeof(sn_scene_lists) / sizeof(sn_scene_lists[0]); ++l) {
    for (const char *const *p = sn_scene_lists[l]; *p != NULL; ++p) {
      if (i-- == 0) return *p;
    }
  }
  return NULL;
}
