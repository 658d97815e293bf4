#define _POSIX_C_SOURCE 200809L
/* sinew-bench: runs the standard scenes and prints one JSON line per run
 * with the field names of docs/benchmark.md. Timing is a monotonic clock
 * around each step; quote medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "box2d_suite.h"
#include "handoff.h"
#include "peers.h"
#include "report.h"
#include "scenes.h"
#include "sinew/thread_pool.h"
#include "soak.h"
#include "world/world_settings.h"
#include "platform/platform.h" /* sn_thread_cpu_ms */

static void sn_usage(FILE *f) {
  fprintf(f, "usage: sinew-bench [--scene NAME] [--size N] [--steps N] [--substeps N] [--soft-iterations N] [--sleep]\n"
             "       sinew-bench --peers [--scene NAME] [--size N] [--steps N] [--substeps N] [--block N]\n"
             "                   [--svg FILE] [--table FILE]\n"
             "  scenes: pyramid (20, 50, 100), tower (20), rain (2000), ratio, chain (100 revolute links),\n"
             "          cards (house of cards; size = lean from horizontal in degrees, 45..85, default 68),\n"
             "          tiny (one box resting on the ground: the fixed cost of a step), cloth (32, 64, 128),\n"
             "          jelly (50), mixed\n"
             "  no --scene: every scene at its standard sizes\n"
             "  --peers: the rigid scenes on Sinew and on Box2D 2.4 / Chipmunk 7 (if built in), interleaved\n"
             "           in turns of --block steps (10); one JSON line per engine and a ratio line per scene\n"
             "  --svg FILE: with --peers, plot ms/step against bodies (no --scene: pyramid 10..100)\n"
             "  --table FILE: with --peers, a Markdown table of the runs\n"
             "  --threads N: step Sinew's worlds on N workers (sinew::threads pool; default 1)\n"
             "       sinew-bench --soak SECONDS | --soak-steps N [--scene rain|jelly|mixed|all] [--seed N]\n"
             "                   [--world-steps N] [--json] [--soak-fault]\n"
             "  --soak: the rain, jelly and mixed scenes in turn, each world living --world-steps steps (3600),\n"
             "          with seeded spawning and deleting and invariant checks (docs/benchmark.md); a summary\n"
             "          on stderr, one JSON line with --json; exit 1 on any invariant failure\n"
             "  --soak-fault: destroy a body behind the driver's back at step 100 of each world (tests the checks)\n"
             "       sinew-bench --suite box2d [--scene NAME] [--workers N] [--runs R] [--steps N] [--svg FILE]\n"
             "                   [--table FILE]\n"
             "  --suite box2d: Box2D v3.1.1's benchmark scenes (joint_grid, large_pyramid, many_pyramids, rain,\n"
             "          smash, spinner, tumbler) timed by its protocol, Sinew's defaults and 4 substeps run by run;\n"
             "          one JSON line per scene, configuration and worker count (--workers N: that count only,\n"
             "          default 1 and 2; --runs R: minimum of R runs, default 2; --steps N: instead of the scene's);\n"
             "          --svg FILE: bars of each total over Box2D's; --table FILE: the totals and figures in Markdown\n"
             "       sinew-bench --handoff [--round-trips N]\n"
             "  --handoff: round trips of a value between two workers (default 100000): the machine's hand-off\n"
             "          time, which decides what a second worker gains; one JSON line\n");
}

static int32_t sn_soft_iterations = 0;
static sn_thread_pool *sn_pool = NULL;

static int sn_run(const char *name, int32_t size, int32_t steps, int32_t substeps, bool sleep) {
  sn_scene scene;
  if (!sn_scene_build(&scene, name, size, substeps, sleep)) {
    fprintf(stderr, "sinew-bench: unknown scene or build failure: %s\n", name);
    sn_scene_destroy(&scene);
    return 1;
  }
  if (sn_soft_iterations > 0) sn_world_set_soft_iterations(scene.world, sn_soft_iterations);
  if (sn_pool != NULL)
    sn_world_set_task_system(scene.world, sn_thread_pool_worker_count(sn_pool), sn_thread_pool_enqueue,
                             sn_thread_pool_finish, sn_pool);
  if (steps <= 0) steps = scene.default_steps;
  double *times = malloc((size_t)steps * (2 + SN_PROFILE_PART_COUNT) * sizeof(double));
  if (times == NULL) return 1;
  double *cpu = times + steps, *parts = times + 2 * steps; /* the profile's parts, steps each */
  for (int32_t i = 0; i < steps; ++i) {
    double t0 = sn_scene_now_ms(), c0 = sn_thread_cpu_ms();
    sn_result r = sn_world_step(scene.world, 1.0f / 60.0f);
    double t1 = sn_scene_now_ms();
    cpu[i] = sn_thread_cpu_ms() - c0;
    if (r != SN_OK) {
      fprintf(stderr, "sinew-bench: step failed: %s\n", sn_world_last_error(scene.world));
      free(times);
      sn_scene_destroy(&scene);
      return 1;
    }
    times[i] = t1 - t0;
    sn_world_profile p = sn_world_get_profile(scene.world);
    double part[SN_PROFILE_PART_COUNT];
    sn_profile_parts(&p, part);
    for (int k = 0; k < SN_PROFILE_PART_COUNT; ++k) parts[k * steps + i] = part[k];
  }
  sn_scene_timing timing = sn_scene_timing_of(times, steps);
  timing.cpu_median = sn_scene_timing_of(cpu, steps).median;
  timing.has_profile = true;
  for (int k = 0; k < SN_PROFILE_PART_COUNT; ++k)
    timing.profile[k] = sn_scene_timing_of(parts + k * steps, steps).median;
  sn_scene_print_json(stdout, &scene, steps, sleep, &timing);
  free(times);
  sn_scene_destroy(&scene);
  return 0;
}

int main(int argc, char **argv) {
  const char *scene = NULL;
  int32_t size = 0, steps = 0, substeps = 0;
  bool sleep = false, peers = false;
  int32_t threads = 1;
  sn_peers_options po = {0};
  sn_soak_options so = {0};
  bool soak = false, json = false, seeded = false;
  const char *suite = NULL;
  int32_t workers = 0, runs = 0;
  bool handoff = false;
  int32_t round_trips = 0;
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
    else if (strcmp(a, "--suite") == 0 && has_value)
      suite = argv[++i];
    else if (strcmp(a, "--workers") == 0 && has_value)
      workers = atoi(argv[++i]);
    else if (strcmp(a, "--runs") == 0 && has_value)
      runs = atoi(argv[++i]);
    else if (strcmp(a, "--threads") == 0 && has_value)
      threads = atoi(argv[++i]);
    else if (strcmp(a, "--peers") == 0)
      peers = true;
    else if (strcmp(a, "--block") == 0 && has_value)
      po.block = atoi(argv[++i]);
    else if (strcmp(a, "--svg") == 0 && has_value)
      po.svg_path = argv[++i];
    else if (strcmp(a, "--table") == 0 && has_value)
      po.table_path = argv[++i];
    else if (strcmp(a, "--soak") == 0 && has_value) {
      soak = true;
      so.seconds = atof(argv[++i]);
    } else if (strcmp(a, "--soak-steps") == 0 && has_value) {
      soak = true;
      so.steps = atoll(argv[++i]);
    } else if (strcmp(a, "--world-steps") == 0 && has_value)
      so.world_steps = atoi(argv[++i]);
    else if (strcmp(a, "--seed") == 0 && has_value) {
      so.seed = strtoull(argv[++i], NULL, 10);
      seeded = true;
    } else if (strcmp(a, "--soak-fault") == 0)
      so.fault = true;
    else if (strcmp(a, "--json") == 0)
      json = true;
    else if (strcmp(a, "--handoff") == 0)
      handoff = true;
    else if (strcmp(a, "--round-trips") == 0 && has_value)
      round_trips = atoi(argv[++i]);
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      sn_usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "sinew-bench: unknown or incomplete argument '%s'\n", a);
      sn_usage(stderr);
      return 2;
    }
  }
  if (handoff || round_trips != 0) {
    if (!handoff || argc != (round_trips != 0 ? 4 : 2) || round_trips < 0 || round_trips > 100000000) {
      fprintf(stderr, "sinew-bench: --handoff takes only --round-trips N (1..100000000)\n");
      return 2;
    }
    return sn_handoff_run(round_trips > 0 ? round_trips : 100000);
  }
  if (suite != NULL) {
    if (strcmp(suite, "box2d") != 0) {
      fprintf(stderr, "sinew-bench: the only --suite is box2d, not '%s'\n", suite);
      return 2;
    }
    if (steps < 0 || steps == 1 || workers < 0 || workers > SN_MAX_WORKERS || runs < 0 || runs > 1000 || peers ||
        soak || sleep || size != 0 || substeps != 0 || sn_soft_iterations != 0 || threads != 1) {
      fprintf(stderr,
              "sinew-bench: --suite box2d takes only --scene, --workers N (1..%d), --runs R (1..1000),\n"
              "             --steps N (>= 2: step 0 is not timed), --svg FILE and --table FILE\n",
              SN_MAX_WORKERS);
      return 2;
    }
    if (po.block != 0) {
      fprintf(stderr, "sinew-bench: --block goes with --peers\n");
      return 2;
    }
    sn_box2d_suite_options bo = {scene, workers, runs, steps, po.svg_path, po.table_path};
    return sn_box2d_suite_run(&bo);
  }
  if (workers != 0 || runs != 0) {
    fprintf(stderr, "sinew-bench: --workers and --runs go with --suite box2d\n");
    return 2;
  }
  if (size < 0 || steps < 0) {
    fprintf(stderr, "sinew-bench: --size, --steps must be >= 0\n");
    return 2;
  }
  /* 0 keeps the scene's own; else the world setting's range (world/world_settings.h) */
  const struct {
    const char *option;
    int32_t value, setting;
  } counts[] = {{"--substeps", substeps, SN_SETTING_substeps},
                {"--soft-iterations", sn_soft_iterations, SN_SETTING_soft_iterations}};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    const sn_setting_info *info = sn_world_setting_info(counts[k].setting);
    if (counts[k].value != 0 && (counts[k].value < info->min || counts[k].value > info->max)) {
      fprintf(stderr, "sinew-bench: %s wants 0 (the scene's) or a whole number in [%.0f, %.0f], not %d\n",
              counts[k].option, info->min, info->max, (int)counts[k].value);
      return 2;
    }
  }
  if (soak) {
    if (peers || sleep || size != 0 || steps != 0 || substeps != 0 || sn_soft_iterations != 0 || so.seconds < 0.0 ||
        so.steps < 0 || so.world_steps < 0 || (so.seconds <= 0.0 && so.steps <= 0) || po.svg_path != NULL ||
        po.table_path != NULL || po.block != 0) {
      fprintf(stderr, "sinew-bench: --soak SECONDS > 0 or --soak-steps N > 0, with only --scene, --seed,\n"
                      "             --world-steps N >= 0, --json and --soak-fault\n");
      return 2;
    }
    so.scene = scene;
    so.json = json;
    if (!seeded) so.seed = 1;
    return sn_soak_run(&so);
  }
  if (json || seeded || so.world_steps != 0 || so.fault) {
    fprintf(stderr, "sinew-bench: --json, --seed, --world-steps and --soak-fault go with --soak\n");
    return 2;
  }
  if (peers) {
    if (sleep || po.block < 0) {
      fprintf(stderr, "sinew-bench: --peers runs with sleeping off and --block >= 1\n");
      return 2;
    }
    po.scene = scene;
    po.size = size;
    po.steps = steps;
    po.substeps = substeps;
    return sn_peers_run(&po);
  }
  if (po.svg_path != NULL || po.table_path != NULL || po.block != 0) {
    fprintf(stderr, "sinew-bench: --svg, --table and --block go with --peers\n");
    return 2;
  }
  if (threads < 1 || threads > SN_MAX_WORKERS) {
    fprintf(stderr, "sinew-bench: --threads must be in 1..%d\n", SN_MAX_WORKERS);
    return 2;
  }
  if (threads > 1) {
    sn_pool = sn_thread_pool_create(threads);
    if (sn_pool == NULL) {
      fprintf(stderr, "sinew-bench: cannot start %d threads\n", (int)threads);
      return 1;
    }
  }
  int rc = 0;
  if (scene != NULL) {
    rc = sn_run(scene, size, steps, substeps, sleep);
    sn_thread_pool_destroy(sn_pool);
    return rc;
  }
  static const int32_t pyramid_sizes[] = {20, 50, 100};
  for (int k = 0; k < 3; ++k) rc |= sn_run("pyramid", pyramid_sizes[k], steps, substeps, sleep);
  rc |= sn_run("tower", 20, steps, substeps, sleep);
  rc |= sn_run("rain", 2000, steps, substeps, sleep);
  rc |= sn_run("ratio", 1, steps, substeps, sleep);
  rc |= sn_run("chain", 100, steps, substeps, sleep);
  rc |= sn_run("cards", SN_CARDS_DEFAULT_LEAN, steps, substeps, sleep);
  rc |= sn_run("tiny", 1, steps, substeps, sleep);
  static const int32_t cloth_sizes[] = {32, 64, 128};
  for (int k = 0; k < 3; ++k) rc |= sn_run("cloth", cloth_sizes[k], steps, substeps, sleep);
  rc |= sn_run("jelly", 50, steps, substeps, sleep);
  rc |= sn_run("mixed", 1, steps, substeps, sleep);
  sn_thread_pool_destroy(sn_pool);
  return rc;
}
