/* sinew-sandbox: an SDL2 window onto Sinew worlds (every standard scene and
 * a demo per shipped plugin), and a headless mode that steps a scene, prints
 * a summary or the benchmark's JSON line, and writes a PNG of the last frame.
 * Worlds are seen only through the public API and sn_world_draw. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "drag.h"
#include "shipped.h"
#include "sinew/thread_pool.h"

#define SB_MAX_PLUGINS 32
#define SB_FLAG_KEYS   10

typedef struct sb_options {
  bool headless, json, list_scenes, list_plugins, overlay, help;
  bool log_input; ///< window: print each handled input and the world's counts (--log-input)
  const char *scene;
  const char *screenshot;
  const char *plugins[SB_MAX_PLUGINS];
  int32_t plugin_count;
  int32_t steps;   ///< 0: the scene's default
  int32_t frames;  ///< window: quit after this many frames of one step each (0 = run until closed)
  int32_t threads; ///< workers for the step (0 = the machine's cores, at most 4)
  int width, height;
  uint32_t flags;
  bool camera_set; ///< --camera X,Y,ZOOM: overrides the framing
  float camera_x, camera_y, camera_zoom;
} sb_options;

/* --camera X,Y,ZOOM: the view's centre (m) and pixels per metre (> 0). */
static bool sb_parse_camera(const char *s, sb_options *o) {
  char *end = NULL;
  float v[3];
  const char *p = s;
  for (int k = 0; k < 3; ++k) {
    v[k] = strtof(p, &end);
    if (end == p || !isfinite(v[k]) || *end != (k < 2 ? ',' : '\0')) return false;
    p = end + 1;
  }
  if (!(v[2] > 0.0f) || fabsf(v[0]) > SN_MAX_COORDINATE || fabsf(v[1]) > SN_MAX_COORDINATE) return false;
  o->camera_set = true;
  o->camera_x = v[0], o->camera_y = v[1], o->camera_zoom = v[2];
  return true;
}

/* The framing: the scene's own, or --camera's. */
static void sb_frame(sb_camera *cam, const sb_options *o, const sb_scene_info *info, const sn_scene *scene) {
  sb_camera_fit(cam, info, scene);
  if (o->camera_set) {
    cam->center = (sn_vec2){o->camera_x, o->camera_y};
    cam->zoom = o->camera_zoom;
  }
}

/* Names of the debug-draw flags, in bit order (keys 1..9, 0). */
static const char *const sb_flag_names[SB_FLAG_KEYS] = {"shapes",   "aabbs",  "tree",      "points", "normals",
                                                        "impulses", "joints", "particles", "forces", "frames"};

static void sb_usage(FILE *f) {
  char flags[160] = "";
  size_t n = 0;
  for (int k = 0; k < SB_FLAG_KEYS && n < sizeof flags; ++k) {
    int w = snprintf(flags + n, sizeof flags - n, "%s%s", k ? "," : "", sb_flag_names[k]);
    if (w < 0) break;
    n += (size_t)w;
  }
  fprintf(f,
          "usage: sinew-sandbox [--scene NAME|FILE.json] [--plugin PATH]... [--width N --height N]\n"
          "                     [--frames N] [--screenshot OUT.png] [--log-input] [--draw LIST] [--threads N]\n"
          "       sinew-sandbox --headless [--scene NAME|FILE.json] [--steps N] [--screenshot OUT.png] [--json]\n"
          "                     [--plugin PATH]... [--width N --height N] [--draw LIST] [--no-overlay]\n"
          "       sinew-sandbox --list-scenes | --list-plugins [--plugin PATH]...\n"
          "  --scene       a scene of --list-scenes (default: %s) or a scene file\n"
          "  --headless    no window: step, print a one-line summary, write the last frame as PNG\n"
          "                (default OUT: sandbox-SCENE.png in the current folder)\n"
          "  --steps N     steps of 1/60 s (default: the scene's own, e.g. 600)\n"
          "  --frames N    window: at most N frames of one step each (none while paused), then quit\n"
          "  --screenshot OUT.png  window: the last frame when the window closes\n"
          "  --log-input   window: one line per handled key or mouse action, the view, and the world's counts\n"
          "                at the start and at exit (on stdout, for scripted tests)\n"
          "  --json        print the benchmark's JSON line (docs/benchmark.md) instead of the summary\n"
          "  --plugin PATH load a constraint plugin first (then $SINEW_PLUGIN_PATH's folders, then the installed one)\n"
          "  --draw LIST   comma-separated debug-draw flags: %s,all\n"
          "                (default shapes,joints,particles)\n"
          "  --no-overlay  no text on the frame\n"
          "  --camera X,Y,ZOOM  view centred on (X, Y) m at ZOOM pixels per metre (default: fit the scene)\n"
          "  --threads N   step on N workers (default: the machine's cores, at most 4; results do not change)\n"
          "Without a display (or if SDL cannot open a window) the sandbox runs headless.\n",
          sb_default_scene(), flags);
}

static bool sb_parse_int(const char *s, int lo, int hi, int *out) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}

static bool sb_parse_flags(const char *list, uint32_t *out) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  uint32_t flags = 0;
  for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
    if (strcmp(tok, "all") == 0) {
      flags |= SN_DRAW_ALL;
      continue;
    }
    bool found = false;
    for (int k = 0; k < SB_FLAG_KEYS; ++k) {
      if (strcmp(tok, sb_flag_names[k]) == 0) {
        flags |= 1u << k;
        found = true;
      }
    }
    if (!found) return false;
  }
  *out = flags;
  return true;
}

/* Returns 0 to go on, else the exit code (+1: 1 = ok and stop, 3 = error). */
static int sb_parse(int argc, char **argv, sb_options *o) {
  memset(o, 0, sizeof(*o));
  o->overlay = true;
  o->flags = SN_DRAW_SHAPES | SN_DRAW_JOINTS | SN_DRAW_PARTICLES;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (strcmp(a, "--headless") == 0)
      o->headless = true;
    else if (strcmp(a, "--json") == 0)
      o->json = true;
    else if (strcmp(a, "--list-scenes") == 0)
      o->list_scenes = true;
    else if (strcmp(a, "--list-plugins") == 0)
      o->list_plugins = true;
    else if (strcmp(a, "--log-input") == 0)
      o->log_input = true;
    else if (strcmp(a, "--no-overlay") == 0)
      o->overlay = false;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      o->help = true;
    else if (strcmp(a, "--scene") == 0 && has)
      o->scene = argv[++i];
    else if (strcmp(a, "--screenshot") == 0 && has)
      o->screenshot = argv[++i];
    else if (strcmp(a, "--plugin") == 0 && has) {
      if (o->plugin_count == SB_MAX_PLUGINS) {
        fprintf(stderr, "sinew-sandbox: at most %d --plugin options\n", SB_MAX_PLUGINS);
        return 3;
      }
      o->plugins[o->plugin_count++] = argv[++i];
    } else if (strcmp(a, "--steps") == 0 && has) {
      int v;
      if (!sb_parse_int(argv[++i], 1, 1000000, &v)) {
        fprintf(stderr, "sinew-sandbox: --steps wants a whole number in 1..1000000, not '%s'\n", argv[i]);
        return 3;
      }
      o->steps = v;
    } else if (strcmp(a, "--threads") == 0 && has) {
      int v;
      if (!sb_parse_int(argv[++i], 1, SN_MAX_WORKERS, &v)) {
        fprintf(stderr, "sinew-sandbox: --threads wants a whole number in 1..%d, not '%s'\n", SN_MAX_WORKERS, argv[i]);
        return 3;
      }
      o->threads = v;
    } else if (strcmp(a, "--frames") == 0 && has) {
      int v;
      if (!sb_parse_int(argv[++i], 1, 1000000, &v)) {
        fprintf(stderr, "sinew-sandbox: --frames wants a whole number in 1..1000000, not '%s'\n", argv[i]);
        return 3;
      }
      o->frames = v;
    } else if ((strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0) && has) {
      int v;
      if (!sb_parse_int(argv[++i], 16, 8192, &v)) {
        fprintf(stderr, "sinew-sandbox: %s wants a whole number of pixels in 16..8192, not '%s'\n", a, argv[i]);
        return 3;
      }
      *(a[2] == 'w' ? &o->width : &o->height) = v;
    } else if (strcmp(a, "--camera") == 0 && has) {
      if (!sb_parse_camera(argv[++i], o)) {
        fprintf(stderr, "sinew-sandbox: --camera wants X,Y,ZOOM (metres, metres, pixels per metre > 0), not '%s'\n",
                argv[i]);
        return 3;
      }
    } else if (strcmp(a, "--draw") == 0 && has) {
      if (!sb_parse_flags(argv[++i], &o->flags)) {
        fprintf(stderr, "sinew-sandbox: --draw: unknown flag in '%s' (see --help)\n", argv[i]);
        return 3;
      }
    } else {
      fprintf(stderr, "sinew-sandbox: unknown or incomplete argument '%s'\n", a);
      sb_usage(stderr);
      return 3;
    }
  }
  if (o->scene == NULL) o->scene = sb_default_scene();
  if (o->width == 0) o->width = 1280;
  if (o->height == 0) o->height = 720;
  return 0;
}

/* ---------------------------------------------------------------- plugins */

typedef struct sb_load_report {
  bool quiet;
  int failures;
} sb_load_report;

static void sb_on_plugin(const char *path, sn_result result, const char *message, void *ctx) {
  sb_load_report *rep = ctx;
  /* a type an earlier folder of the search path gave: that one wins */
  if (result == SN_OK || result == SN_ERR_PLUGIN_DUPLICATE) return;
  rep->failures++;
  if (!rep->quiet) fprintf(stderr, "sinew-sandbox: plugin %s not loaded: %s\n", path, message);
}

sn_registry *sb_load_plugins(bool quiet) {
  sn_registry *reg = sn_create_registry(NULL);
  if (reg == NULL) return NULL;
  sb_load_report rep = {quiet, 0};
  /* the search path: SINEW_PLUGIN_PATH, then the folder installed with libsinew
   * (or, built without file loading, the shipped plugins linked in) */
  sn_result r = sn_shipped_add_all(reg, NULL, sb_on_plugin, &rep);
  if (r != SN_OK && !quiet)
    fprintf(stderr, "sinew-sandbox: no plugin folder found (%s); set SINEW_PLUGIN_PATH\n", sn_result_name(r));
  return reg;
}

/* Explicit --plugin paths must load. */
static bool sb_load_extra(sn_registry *reg, const sb_options *o) {
  for (int32_t i = 0; i < o->plugin_count; ++i) {
    char msg[512];
    if (sn_registry_load_plugin(reg, o->plugins[i], msg, sizeof msg) != SN_OK) {
      fprintf(stderr, "sinew-sandbox: --plugin %s: %s\n", o->plugins[i], msg);
      return false;
    }
  }
  return true;
}

static const char *sb_kind_name(uint32_t kind) {
  switch (kind) {
  case SN_PARAM_FLOAT:
    return "float";
  case SN_PARAM_INT:
    return "int";
  case SN_PARAM_BOOL:
    return "bool";
  case SN_PARAM_VEC2:
    return "vec2";
  default:
    return "?";
  }
}

static int sb_list_plugins(const sn_registry *reg) {
  int32_t n = sn_registry_get_type_count(reg);
  char dir[1024];
  if (!sn_shipped_from_files())
    printf("%d constraint types (linked in: this build loads no plugin files)\n", (int)n);
  else
    printf("%d constraint types (plugin folder: %s)\n", (int)n, sn_scene_plugin_dir(dir, sizeof dir) ? dir : "none");
  for (int32_t i = 0; i < n; ++i) {
    const sn_constraint_type *t = sn_registry_get_type(reg, i);
    printf("%s  [%s%s, %u bod%s]  from %s\n", t->name, (t->flags & SN_CONSTRAINT_IMPULSE) ? "impulse" : "",
           (t->flags & SN_CONSTRAINT_XPBD) ? ((t->flags & SN_CONSTRAINT_IMPULSE) ? "+xpbd" : "xpbd") : "",
           (unsigned)t->body_count, t->body_count == 1 ? "y" : "ies", sn_registry_get_type_origin(reg, t->name));
    for (uint32_t k = 0; k < t->param_count; ++k) {
      const sn_param_desc *p = t->params + k;
      printf("  %-18s %-5s default %-8g range [%g, %g]  %s%s%s\n", p->name, sb_kind_name(p->kind), p->def, p->min,
             p->max, (p->flags & SN_PARAM_RUNTIME) ? "runtime" : "at creation", p->doc ? "  - " : "",
             p->doc ? p->doc : "");
    }
    for (uint32_t k = 0; k < t->state_count; ++k) {
      const sn_state_desc *d = t->states + k;
      printf("  %-18s %-5s state (read-only)%s%s\n", d->name, sb_kind_name(d->kind), d->doc ? "  - " : "",
             d->doc ? d->doc : "");
    }
  }
  return 0;
}

static int sb_list_scenes(void) {
  for (int32_t i = 0; i < sb_scene_count(); ++i) {
    const sb_scene_info *s = sb_scene_at(i);
    printf("%-16s %s%s\n", s->name, s->description, strcmp(s->name, sb_default_scene()) == 0 ? " [default]" : "");
  }
  return 0;
}

/* ------------------------------------------------------------------ scenes */

/* The step's workers (sinew::threads), shared by every scene the app builds. */
static sn_thread_pool *sb_pool = NULL;

/// The running scene.
typedef struct sb_run {
  const sb_scene_info *info; ///< NULL for a scene file
  sn_scene scene;
  sb_demo_state demo;
  double time;
  int32_t steps;
  double step_ms_avg; ///< exponential average
} sb_run;

static bool sb_run_build(sb_run *run, const char *arg, const sn_registry *reg, char *err, size_t cap) {
  memset(run, 0, sizeof(*run));
  bool ok;
  if (sb_is_scene_file(arg)) {
    ok = sb_scene_file_load(arg, reg, &run->scene, err, cap);
  } else {
    run->info = sb_scene_find(arg);
    if (run->info == NULL) {
      snprintf(err, cap, "unknown scene '%s' (see --list-scenes)", arg);
      return false;
    }
    ok = sb_scene_build(run->info, &run->scene, &run->demo, reg, err, cap);
  }
  if (ok && sb_pool != NULL)
    sn_world_set_task_system(run->scene.world, sn_thread_pool_worker_count(sb_pool), sn_thread_pool_enqueue,
                             sn_thread_pool_finish, sb_pool);
  return ok;
}

static sn_result sb_run_step(sb_run *run) {
  if (run->info != NULL && run->info->update != NULL) run->info->update(&run->scene, &run->demo, run->time);
  double t0 = sn_scene_now_ms();
  sn_result r = sn_world_step(run->scene.world, SB_DT);
  double ms = sn_scene_now_ms() - t0;
  run->step_ms_avg = run->steps == 0 ? ms : 0.95 * run->step_ms_avg + 0.05 * ms;
  run->time += SB_DT;
  run->steps++;
  return r;
}

/* The overlay's counts: rigid (bodies, contacts, manifolds the last step
 * reused) and soft (soft bodies, particles, particle contacts) with the
 * constraints of both. */
static void sb_counts_lines(sn_world *w, char *rigid, size_t rigid_cap, char *soft, size_t soft_cap) {
  sn_debug_counts c;
  sn_world_get_debug_counts(w, &c);
  sn_world_counters k = sn_world_get_counters(w);
  snprintf(rigid, rigid_cap, "bodies %d (dynamic %d, awake %d)  contacts %d (touching %d, reused %d, points %d)",
           c.bodies, c.dynamic_bodies, c.awake_bodies, c.contacts, c.touching_contacts, k.reused_manifold_count,
           c.contact_points);
  snprintf(soft, soft_cap, "soft bodies %d  particles %d (contacts %d)  constraints %d", k.soft_body_count,
           k.particle_count, k.particle_contact_count, c.constraints);
}

/* Both on one line (the headless summary). */
static void sb_counts_line(sn_world *w, char *buf, size_t cap) {
  char rigid[200], soft[200];
  sb_counts_lines(w, rigid, sizeof rigid, soft, sizeof soft);
  snprintf(buf, cap, "%s  %s", rigid, soft);
}

/* ---------------------------------------------------------------- headless */

static int sb_headless(const sb_options *o, sn_registry *reg, const char *why) {
  char err[512];
  sb_run run;
  if (!sb_run_build(&run, o->scene, reg, err, sizeof err)) {
    fprintf(stderr, "sinew-sandbox: %s\n", err);
    return 2;
  }
  int32_t steps = o->steps > 0 ? o->steps : run.scene.default_steps;
  double *times = malloc((size_t)steps * sizeof(double));
  if (times == NULL) {
    sn_scene_destroy(&run.scene);
    return 1;
  }
  for (int32_t i = 0; i < steps; ++i) {
    if (run.info != NULL && run.info->update != NULL) run.info->update(&run.scene, &run.demo, run.time);
    double t0 = sn_scene_now_ms();
    sn_result r = sn_world_step(run.scene.world, SB_DT);
    times[i] = sn_scene_now_ms() - t0;
    run.time += SB_DT;
    if (r != SN_OK) {
      fprintf(stderr, "sinew-sandbox: step %d failed: %s\n", (int)i, sn_world_last_error(run.scene.world));
      free(times);
      sn_scene_destroy(&run.scene);
      return 1;
    }
  }
  /* last frame on a software renderer: no window, no video driver needed */
  char shot_default[256];
  const char *shot = o->screenshot;
  if (shot == NULL) {
    /* a scene file's name without its folders and .json */
    const char *base = strrchr(run.scene.name, '/');
    base = base ? base + 1 : run.scene.name;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0) len -= 5;
    snprintf(shot_default, sizeof shot_default, "sandbox-%.*s.png", (int)(len < 200 ? len : 200), base);
    shot = shot_default;
  }
  int rc = 0;
  SDL_Surface *surface = SDL_CreateRGBSurfaceWithFormat(0, o->width, o->height, 32, SDL_PIXELFORMAT_RGBA32);
  SDL_Renderer *sdl = surface ? SDL_CreateSoftwareRenderer(surface) : NULL;
  if (sdl == NULL) {
    fprintf(stderr, "sinew-sandbox: no software renderer: %s\n", SDL_GetError());
    rc = 1;
  } else {
    sb_renderer r = {sdl, {{0.0f, 0.0f}, 1.0f, o->width, o->height}, o->height >= 600 ? 2.0f : 1.0f};
    sb_frame(&r.camera, o, run.info, &run.scene);
    sb_render_clear(&r);
    sn_result dr = sb_render_world(&r, run.scene.world, o->flags);
    if (dr == SN_OK) sb_render_sensors(&r, run.scene.world, &run.demo);
    if (dr != SN_OK) fprintf(stderr, "sinew-sandbox: draw: %s\n", sn_world_last_error(run.scene.world));
    if (run.info != NULL && run.info->draw != NULL) run.info->draw(&run.scene, &run.demo, &r);
    if (o->overlay) {
      char line[512];
      float y = 6.0f;
      snprintf(line, sizeof line, "Sinew %s - %s - step %d", sn_version_string(), run.scene.name, (int)steps);
      y += sb_render_text(&r, 8.0f, y, line, 0xffffffffu);
      char soft[256];
      sb_counts_lines(run.scene.world, line, sizeof line, soft, sizeof soft);
      y += sb_render_text(&r, 8.0f, y, line, 0xc8d0e0ffu);
      sb_render_text(&r, 8.0f, y, soft, 0xc8d0e0ffu);
    }
    SDL_RenderPresent(sdl);
    if (!sb_render_write_png(&r, shot, err, sizeof err)) {
      fprintf(stderr, "sinew-sandbox: screenshot: %s\n", err);
      rc = 1;
    }
  }
  if (sdl) SDL_DestroyRenderer(sdl);
  if (surface) SDL_FreeSurface(surface);

  sn_scene_timing timing = sn_scene_timing_of(times, steps);
  if (o->json) {
    sn_scene_print_json(stdout, &run.scene, steps, sn_world_is_sleeping_enabled(run.scene.world), &timing);
  } else if (rc == 0) {
    char counts[512];
    sb_counts_line(run.scene.world, counts, sizeof counts);
    printf("sinew-sandbox: %s%s%s: %d steps, %.3f ms/step median, %s; screenshot %s (%dx%d)\n", why ? why : "",
           why ? " " : "", run.scene.name, (int)steps, timing.median, counts, shot, o->width, o->height);
  }
  fflush(stdout);
  free(times);
  sn_scene_destroy(&run.scene);
  return rc;
}

/* ------------------------------------------------------------------ window */

/* Frames a second at most (no busy loop): a frame steps the world once by
 * 1/60 s, and a renderer may claim vsync without pacing (Xvfb's software
 * renderer ran 140 frames a second, starving the X server and xdotool of
 * the test on two cores). With real 60 Hz vsync the cap never waits. */
#define SB_MAX_FPS 60.0

/* A scene_index for the scene file given with --scene (not a built-in scene). */
#define SB_SCENE_FILE (-1)

typedef struct sb_app {
  SDL_Window *window;
  sb_renderer r;
  sn_registry *reg;
  sb_run run;
  const char *file; ///< --scene FILE.json, or NULL
  const sb_options *options;
  int32_t scene_index; ///< built-in scene, or SB_SCENE_FILE
  bool paused, slow, help, quit, single_step, log;
  uint32_t flags;
  sn_constraint_id drag;  ///< mouse joint on a body
  sn_body_id drag_body;   ///< its body
  sb_particle_drag pdrag; ///< or a particle's hand (drag.h)
  bool panning;
  float pan_x, pan_y;
  double frame_ms, accumulator;
  char message[512];
  /* F5 / F9: one snapshot of the world in memory, of scene snap_scene */
  void *snap;
  size_t snap_size;
  int32_t snap_scene, snap_steps;
  double snap_time;
} sb_app;

#if defined(__GNUC__) || defined(__clang__)
#define SB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_PRINTF(f, a)
#endif

/* --log-input: one line on stdout, flushed at once (a test reads the log
 * while the window runs). Nothing without the option. */
SB_PRINTF(2, 3) static void sb_log(const sb_app *app, const char *fmt, ...) {
  if (!app->log) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

/* The camera: a world point (x, y) is on screen at
 * (width / 2 + (x - cx) zoom, height / 2 - (y - cy) zoom). */
static void sb_log_view(const sb_app *app) {
  const sb_camera *c = &app->r.camera;
  sb_log(app, "view: center (%.3f, %.3f) zoom %.3f px/m size %dx%d", c->center.x, c->center.y, c->zoom, c->width,
         c->height);
}

/* The world's counts after "what" (the scene's name, "exit"). */
static void sb_log_world(const sb_app *app, const char *what) {
  sn_world *w = app->run.scene.world;
  if (!app->log || w == NULL) return;
  sn_debug_counts c;
  sn_world_get_debug_counts(w, &c);
  sn_world_counters k = sn_world_get_counters(w);
  sb_log(app, "world: %s: steps %d, bodies %d, soft bodies %d, particles %d, constraints %d", what, (int)app->run.steps,
         c.bodies, k.soft_body_count, k.particle_count, c.constraints);
}

/* Loads the built-in scene at index (wrapped), or the scene file for SB_SCENE_FILE. */
static void sb_app_load(sb_app *app, int32_t index) {
  int32_t n = sb_scene_count();
  if (index != SB_SCENE_FILE || app->file == NULL) index = ((index % n) + n) % n;
  sb_particle_drag_end(&app->pdrag, NULL); /* its world goes with the scene */
  if (app->run.scene.world) sn_scene_destroy(&app->run.scene);
  app->drag = SN_NULL_CONSTRAINT;
  app->drag_body = SN_NULL_BODY;
  char err[512];
  const char *arg = index == SB_SCENE_FILE ? app->file : sb_scene_at(index)->name;
  app->scene_index = index;
  if (!sb_run_build(&app->run, arg, app->reg, err, sizeof err)) {
    snprintf(app->message, sizeof app->message, "%s", err);
    fprintf(stderr, "sinew-sandbox: %s\n", err);
    sb_log(app, "input: scene %s failed: %s", arg, err);
    return;
  }
  app->message[0] = '\0';
  sb_frame(&app->r.camera, app->options, app->run.info, &app->run.scene);
  sb_log_world(app, app->run.scene.name);
  sb_log_view(app);
}

/* n / p: the next or previous built-in scene (from a scene file: the first or the last). */
static void sb_app_next(sb_app *app, int32_t dir) {
  if (app->scene_index == SB_SCENE_FILE)
    sb_app_load(app, dir > 0 ? 0 : sb_scene_count() - 1);
  else
    sb_app_load(app, app->scene_index + dir);
}

typedef struct sb_pick {
  sn_world *world;
  sn_body_id body;
} sb_pick;

static bool sb_pick_fcn(sn_shape_id shape, void *ctx) {
  sb_pick *p = ctx;
  sn_body_id b = sn_shape_get_body(p->world, shape);
  if (sn_body_get_type(p->world, b) != SN_BODY_DYNAMIC) return true;
  p->body = b;
  return false;
}

/* Pixels around a particle's radius that still grab it. */
#define SB_PICK_PIXELS 6.0f

/* Grab what is under the cursor: the nearest particle within its radius
 * plus a few pixels (a hand on an xpbd_distance, drag.h), else the body
 * there (a mouse joint). */
static void sb_drag_begin(sb_app *app, sn_vec2 p) {
  sn_world *w = app->run.scene.world;
  if (w == NULL) return;
  sn_particle_id particle =
      sb_pick_particle(w, p, SB_PICK_PIXELS / app->r.camera.zoom, app->run.scene.softs, app->run.scene.soft_count);
  if (particle.index1 != 0) {
    if (!sb_particle_drag_begin(&app->pdrag, w, particle, p, app->message, sizeof app->message)) {
      fprintf(stderr, "sinew-sandbox: %s\n", app->message);
      sb_log(app, "input: drag failed: %s", app->message);
      return;
    }
    sn_vec2 at = sn_particle_get_position(w, particle);
    sb_log(app, "input: drag start particle %u at (%.3f, %.3f) (steps %d)", (unsigned)particle.index1, at.x, at.y,
           (int)app->run.steps);
    return;
  }
  if (sn_registry_find_type(app->reg, "mouse") == NULL) {
    snprintf(app->message, sizeof app->message, "dragging needs the mouse plugin (not loaded)");
    sb_log(app, "input: drag failed: %s", app->message);
    return;
  }
  sb_pick pick = {w, SN_NULL_BODY};
  sn_world_query_point(w, p, sb_pick_fcn, &pick);
  if (pick.body.index1 == 0) {
    sb_log(app, "input: drag nothing at (%.3f, %.3f)", p.x, p.y);
    return;
  }
  float mass = sn_body_get_mass(w, pick.body);
  sn_param_value v[4] = {{"anchor", p.x, p.y}, {"target", p.x, p.y}, {"max_force", 1000.0 * mass, 0}, {"hertz", 5, 0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "mouse";
  cd.bodies[0] = pick.body;
  cd.params = v;
  cd.param_count = 4;
  app->drag = sn_create_constraint(w, &cd);
  if (app->drag.index1 == 0) {
    snprintf(app->message, sizeof app->message, "%s", sn_world_last_error(w));
    sb_log(app, "input: drag failed: %s", app->message);
    return;
  }
  app->drag_body = pick.body;
  sn_vec2 at = sn_body_get_position(w, pick.body);
  sb_log(app, "input: drag start body %u at (%.3f, %.3f) (steps %d)", (unsigned)pick.body.index1, at.x, at.y,
         (int)app->run.steps);
}

static void sb_drag_end(sb_app *app) {
  sn_world *w = app->run.scene.world;
  if (sb_particle_drag_active(&app->pdrag)) {
    sn_particle_id grabbed = app->pdrag.grabbed;
    if (sn_particle_is_valid(w, grabbed)) {
      sn_vec2 at = sn_particle_get_position(w, grabbed);
      sb_log(app, "input: drag end particle %u at (%.3f, %.3f) (steps %d)", (unsigned)grabbed.index1, at.x, at.y,
             (int)app->run.steps);
    }
  }
  sb_particle_drag_end(&app->pdrag, w);
  if (app->drag.index1 != 0 && sn_constraint_is_valid(w, app->drag)) {
    sn_destroy_constraint(w, app->drag);
    if (sn_body_is_valid(w, app->drag_body)) {
      sn_vec2 at = sn_body_get_position(w, app->drag_body);
      sb_log(app, "input: drag end body %u at (%.3f, %.3f) (steps %d)", (unsigned)app->drag_body.index1, at.x, at.y,
             (int)app->run.steps);
    }
  }
  app->drag = SN_NULL_CONSTRAINT;
  app->drag_body = SN_NULL_BODY;
}

/* One step, the particle drag's hand moved first. */
static void sb_app_step(sb_app *app) {
  sb_particle_drag_update(&app->pdrag, app->run.scene.world);
  sb_run_step(&app->run);
}

static const char *const sb_help[] = {
    "mouse: left drag a body or a particle, right/middle drag pan, wheel zoom",
    "space pause   s / right single step   r reset   m slow motion (x1/4)",
    "n / p (tab)  next / previous scene   home fit view   arrows pan",
    "b box   c ball   j jelly (soft ring)  at the cursor   F5 snapshot   F9 back to it",
    "1 shapes 2 aabbs 3 tree 4 points 5 normals 6 impulses 7 joints 8 particles 9 forces 0 frames",
    "h hide help   esc / q quit",
};

static void sb_app_overlay(sb_app *app) {
  sb_renderer *r = &app->r;
  char line[512];
  float y = 6.0f;
  const char *name = app->run.scene.name ? app->run.scene.name : "(none)";
  if (app->scene_index == SB_SCENE_FILE)
    snprintf(line, sizeof line, "Sinew %s  scene file %s", sn_version_string(), app->file);
  else
    snprintf(line, sizeof line, "Sinew %s  scene %d/%d: %s - %s", sn_version_string(), (int)app->scene_index + 1,
             (int)sb_scene_count(), name, app->run.info ? app->run.info->description : "");
  y += sb_render_text(r, 8.0f, y, line, 0xffffffffu);
  snprintf(line, sizeof line, "frame %.2f ms   step %.3f ms   steps %d   t %.1f s%s%s", app->frame_ms,
           app->run.step_ms_avg, (int)app->run.steps, app->run.time, app->paused ? "   PAUSED" : "",
           app->slow ? "   SLOW x1/4" : "");
  y += sb_render_text(r, 8.0f, y, line, 0xc8d0e0ffu);
  if (app->run.scene.world) {
    char soft[256];
    sb_counts_lines(app->run.scene.world, line, sizeof line, soft, sizeof soft);
    y += sb_render_text(r, 8.0f, y, line, 0xc8d0e0ffu);
    y += sb_render_text(r, 8.0f, y, soft, 0xc8d0e0ffu);
  }
  int n = 0;
  n += snprintf(line + n, sizeof line - (size_t)n, "draw:");
  for (int k = 0; k < SB_FLAG_KEYS; ++k)
    n += snprintf(line + n, sizeof line - (size_t)n, " %d%s%s", (k + 1) % 10, (app->flags & (1u << k)) ? "+" : "-",
                  sb_flag_names[k]);
  y += sb_render_text(r, 8.0f, y, line, 0x9fb0c8ffu);
  if (app->message[0]) y += sb_render_text(r, 8.0f, y, app->message, 0xff8080ffu);
  if (app->help) {
    for (size_t i = 0; i < sizeof(sb_help) / sizeof(sb_help[0]); ++i)
      y += sb_render_text(r, 8.0f, y, sb_help[i], 0xe0e080ffu);
  } else {
    sb_render_text(r, 8.0f, y, "h: help", 0xe0e080ffu);
  }
}

/* Spawns with spawn (sb_spawn_box, ...) at p and logs it under the name kind. */
static void sb_app_spawn(sb_app *app, const char *kind, bool (*spawn)(sn_world *, sn_vec2), sn_vec2 p) {
  sn_world *w = app->run.scene.world;
  if (w == NULL) return;
  if (!spawn(w, p)) {
    snprintf(app->message, sizeof app->message, "%s: %s", kind, sn_world_last_error(w));
    sb_log(app, "input: spawn %s at (%.3f, %.3f) failed: %s", kind, p.x, p.y, sn_world_last_error(w));
    return;
  }
  sb_log(app, "input: spawn %s at (%.3f, %.3f)", kind, p.x, p.y);
}

/* Moves the camera by (dx, dy) pixels (arrow keys). */
static void sb_app_pan(sb_app *app, float dx, float dy) {
  app->r.camera.center.x += dx / app->r.camera.zoom;
  app->r.camera.center.y += dy / app->r.camera.zoom;
  sb_log(app, "input: pan");
  sb_log_view(app);
}

/* F5: the world's whole state into memory (sn_world_save_snapshot); a drag
 * in progress ends first, so its mouse joint is not part of it. */
static void sb_app_snapshot_save(sb_app *app) {
  sn_world *w = app->run.scene.world;
  if (w == NULL) return;
  sb_drag_end(app);
  sb_particle_drag_end(&app->pdrag, w);
  size_t need = 0, size = 0;
  sn_result r = sn_world_save_snapshot(w, NULL, 0, &need);
  void *buf = r == SN_OK ? malloc(need > 0 ? need : 1) : NULL;
  if (r == SN_OK && buf == NULL) r = SN_ERR_OUT_OF_MEMORY;
  if (r == SN_OK) r = sn_world_save_snapshot(w, buf, need, &size);
  if (r != SN_OK) {
    free(buf);
    snprintf(app->message, sizeof app->message, "snapshot: %s (%s)", sn_result_name(r), sn_world_last_error(w));
    sb_log(app, "input: snapshot save failed: %s", sn_result_name(r));
    return;
  }
  free(app->snap);
  app->snap = buf;
  app->snap_size = size;
  app->snap_scene = app->scene_index;
  app->snap_steps = app->run.steps;
  app->snap_time = app->run.time;
  snprintf(app->message, sizeof app->message, "snapshot saved at step %d (%zu bytes): F9 goes back to it",
           (int)app->run.steps, size);
  sb_log(app, "input: snapshot save (steps %d, %zu bytes)", (int)app->run.steps, size);
}

/* F9: back to the F5 snapshot of this scene: a new world from the bytes
 * (ids stay valid, so the scene's body list and demo state still apply). */
static void sb_app_snapshot_restore(sb_app *app) {
  sn_world *w = app->run.scene.world;
  if (w == NULL) return;
  if (app->snap == NULL || app->snap_scene != app->scene_index) {
    snprintf(app->message, sizeof app->message, "no snapshot of this scene: F5 saves one");
    sb_log(app, "input: snapshot restore: none");
    return;
  }
  sb_drag_end(app);
  sb_particle_drag_end(&app->pdrag, w);
  sn_world_def def = sn_default_world_def();
  def.registry = app->run.scene.registry ? app->run.scene.registry : app->reg;
  sn_world *restored = NULL;
  char err[256];
  sn_result r = sn_world_load_snapshot(app->snap, app->snap_size, &def, &restored, err, sizeof err);
  if (r != SN_OK) {
    snprintf(app->message, sizeof app->message, "snapshot: %s (%s)", sn_result_name(r), err);
    sb_log(app, "input: snapshot restore failed: %s", sn_result_name(r));
    return;
  }
  sn_destroy_world(w);
  app->run.scene.world = restored;
  if (sb_pool != NULL)
    sn_world_set_task_system(restored, sn_thread_pool_worker_count(sb_pool), sn_thread_pool_enqueue,
                             sn_thread_pool_finish, sb_pool);
  app->run.steps = app->snap_steps;
  app->run.time = app->snap_time;
  app->message[0] = '\0';
  sb_log(app, "input: snapshot restore (steps %d)", (int)app->run.steps);
  sb_log_world(app, "restored");
}

static void sb_app_key(sb_app *app, SDL_Keycode key, sn_vec2 cursor) {
  switch (key) {
  case SDLK_ESCAPE:
  case SDLK_q:
    app->quit = true;
    sb_log(app, "input: quit");
    break;
  case SDLK_SPACE:
    app->paused = !app->paused;
    sb_log(app, "input: pause %s (steps %d)", app->paused ? "on" : "off", (int)app->run.steps);
    break;
  case SDLK_s:
  case SDLK_RIGHT:
    if (key == SDLK_RIGHT && !app->paused) {
      sb_app_pan(app, 60.0f, 0.0f);
      break;
    }
    app->paused = true;
    app->single_step = true;
    sb_log(app, "input: step (steps %d)", (int)app->run.steps);
    break;
  case SDLK_r:
    sb_log(app, "input: reset");
    sb_app_load(app, app->scene_index);
    break;
  case SDLK_m:
    app->slow = !app->slow;
    sb_log(app, "input: slow %s", app->slow ? "on" : "off");
    break;
  case SDLK_n:
  case SDLK_TAB:
    sb_log(app, "input: %s scene", (SDL_GetModState() & KMOD_SHIFT) ? "previous" : "next");
    sb_app_next(app, (SDL_GetModState() & KMOD_SHIFT) ? -1 : 1);
    break;
  case SDLK_p:
    sb_log(app, "input: previous scene");
    sb_app_next(app, -1);
    break;
  case SDLK_HOME:
    sb_frame(&app->r.camera, app->options, app->run.info, &app->run.scene);
    sb_log(app, "input: fit view");
    sb_log_view(app);
    break;
  case SDLK_LEFT:
    sb_app_pan(app, -60.0f, 0.0f);
    break;
  case SDLK_UP:
    sb_app_pan(app, 0.0f, 60.0f);
    break;
  case SDLK_DOWN:
    sb_app_pan(app, 0.0f, -60.0f);
    break;
  case SDLK_h:
    app->help = !app->help;
    sb_log(app, "input: help %s", app->help ? "on" : "off");
    break;
  case SDLK_b:
    sb_app_spawn(app, "box", sb_spawn_box, cursor);
    break;
  case SDLK_c:
    sb_app_spawn(app, "ball", sb_spawn_ball, cursor);
    break;
  case SDLK_j:
    sb_app_spawn(app, "jelly", sb_spawn_jelly, cursor);
    break;
  case SDLK_F5:
    sb_app_snapshot_save(app);
    break;
  case SDLK_F9:
    sb_app_snapshot_restore(app);
    break;
  default:
    if (key >= SDLK_0 && key <= SDLK_9) {
      int k = key == SDLK_0 ? 9 : (int)(key - SDLK_1);
      app->flags ^= 1u << k;
      sb_log(app, "input: flag %s %s", sb_flag_names[k], (app->flags & (1u << k)) ? "on" : "off");
    }
    break;
  }
}

/* Writes --screenshot (if given) and prints the run's summary line. */
static int sb_app_finish(sb_app *app, const sb_options *o, int32_t frames) {
  int rc = 0;
  if (o->screenshot != NULL) {
    char err[512];
    if (!sb_render_write_png(&app->r, o->screenshot, err, sizeof err)) {
      fprintf(stderr, "sinew-sandbox: screenshot: %s\n", err);
      rc = 1;
    }
  }
  sb_log_world(app, "exit");
  printf("sinew-sandbox: window (%s driver): %s: %d frames, %d steps; screenshot %s (%dx%d)\n",
         SDL_GetCurrentVideoDriver(), app->run.scene.name ? app->run.scene.name : "(none)", (int)frames,
         (int)app->run.steps, o->screenshot ? o->screenshot : "none", app->r.camera.width, app->r.camera.height);
  fflush(stdout);
  return rc;
}

static int sb_window(const sb_options *o, sn_registry *reg) {
  sb_app app;
  memset(&app, 0, sizeof app);
  app.reg = reg;
  app.flags = o->flags;
  app.help = true;
  app.log = o->log_input;
  app.options = o;
  const sb_scene_info *first = NULL;
  if (sb_is_scene_file(o->scene)) {
    /* a bad file fails here, before any window opens */
    char err[512];
    sb_run probe;
    if (!sb_run_build(&probe, o->scene, reg, err, sizeof err)) {
      fprintf(stderr, "sinew-sandbox: %s\n", err);
      return 2;
    }
    sn_scene_destroy(&probe.scene);
    app.file = o->scene;
  } else {
    first = sb_scene_find(o->scene);
    if (first == NULL) {
      fprintf(stderr, "sinew-sandbox: unknown scene '%s' (see --list-scenes)\n", o->scene);
      return 2;
    }
  }
  app.window = SDL_CreateWindow("Sinew sandbox", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, o->width, o->height,
                                SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (app.window == NULL) return -1;
  SDL_Renderer *sdl = SDL_CreateRenderer(app.window, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
  if (sdl == NULL) sdl = SDL_CreateRenderer(app.window, -1, SDL_RENDERER_SOFTWARE);
  if (sdl == NULL) {
    SDL_DestroyWindow(app.window);
    return -1;
  }
  app.r.sdl = sdl;
  app.r.text_scale = 2.0f;
  SDL_GetRendererOutputSize(sdl, &app.r.camera.width, &app.r.camera.height);
  SDL_RendererInfo ri;
  if (SDL_GetRendererInfo(sdl, &ri) != 0) memset(&ri, 0, sizeof ri);
  bool vsync = (ri.flags & SDL_RENDERER_PRESENTVSYNC) != 0;
  sb_log(&app, "window: %s driver, %s renderer%s, %dx%d", SDL_GetCurrentVideoDriver(), ri.name ? ri.name : "?",
         vsync ? " (vsync)" : "", app.r.camera.width, app.r.camera.height);
  int32_t index = SB_SCENE_FILE;
  for (int32_t i = 0; i < sb_scene_count(); ++i)
    if (first == sb_scene_at(i)) index = i;
  sb_app_load(&app, index);
  Uint64 freq = SDL_GetPerformanceFrequency(), last = SDL_GetPerformanceCounter();
  int32_t frames = 0;
  int rc = 0;
  while (!app.quit) {
    SDL_Event e;
    int mx, my;
    SDL_GetMouseState(&mx, &my);
    int ww, wh;
    SDL_GetWindowSize(app.window, &ww, &wh);
    SDL_GetRendererOutputSize(sdl, &app.r.camera.width, &app.r.camera.height);
    float sx = ww > 0 ? (float)app.r.camera.width / (float)ww : 1.0f,
          sy = wh > 0 ? (float)app.r.camera.height / (float)wh : 1.0f;
    while (SDL_PollEvent(&e)) {
      switch (e.type) {
      case SDL_QUIT:
        app.quit = true;
        sb_log(&app, "input: quit (window closed)");
        break;
      case SDL_KEYDOWN:
        sb_app_key(&app, e.key.keysym.sym, sb_screen_to_world(&app.r.camera, (float)mx * sx, (float)my * sy));
        break;
      case SDL_MOUSEBUTTONDOWN:
        if (e.button.button == SDL_BUTTON_LEFT) {
          sb_drag_begin(&app, sb_screen_to_world(&app.r.camera, (float)e.button.x * sx, (float)e.button.y * sy));
        } else {
          app.panning = true;
          app.pan_x = (float)e.button.x;
          app.pan_y = (float)e.button.y;
        }
        break;
      case SDL_MOUSEBUTTONUP:
        if (e.button.button == SDL_BUTTON_LEFT) {
          sb_drag_end(&app);
        } else if (app.panning) {
          app.panning = false;
          sb_log(&app, "input: pan");
          sb_log_view(&app);
        }
        break;
      case SDL_MOUSEMOTION:
        mx = e.motion.x; /* keys and the wheel later in this batch act at the new cursor */
        my = e.motion.y;
        if (app.panning) {
          app.r.camera.center.x -= ((float)e.motion.x - app.pan_x) * sx / app.r.camera.zoom;
          app.r.camera.center.y += ((float)e.motion.y - app.pan_y) * sy / app.r.camera.zoom;
          app.pan_x = (float)e.motion.x;
          app.pan_y = (float)e.motion.y;
        }
        if (app.drag.index1 != 0 && sn_constraint_is_valid(app.run.scene.world, app.drag)) {
          sn_vec2 t = sb_screen_to_world(&app.r.camera, (float)e.motion.x * sx, (float)e.motion.y * sy);
          sn_constraint_set_param(app.run.scene.world, app.drag, "target", t.x, t.y);
        }
        if (sb_particle_drag_active(&app.pdrag))
          sb_particle_drag_set_target(
              &app.pdrag, sb_screen_to_world(&app.r.camera, (float)e.motion.x * sx, (float)e.motion.y * sy));
        break;
      case SDL_MOUSEWHEEL: {
        /* zoom about the cursor: the world point under it stays put */
        if (e.wheel.y == 0) break;
        sn_vec2 cursor = sb_screen_to_world(&app.r.camera, (float)mx * sx, (float)my * sy);
        app.r.camera.zoom *= e.wheel.y > 0 ? 1.15f : 1.0f / 1.15f;
        sn_vec2 after = sb_screen_to_world(&app.r.camera, (float)mx * sx, (float)my * sy);
        app.r.camera.center.x += cursor.x - after.x;
        app.r.camera.center.y += cursor.y - after.y;
        sb_log(&app, "input: zoom %s at (%.3f, %.3f)", e.wheel.y > 0 ? "in" : "out", cursor.x, cursor.y);
        sb_log_view(&app);
        break;
      }
      default:
        break;
      }
    }
    Uint64 now = SDL_GetPerformanceCounter();
    double dt = (double)(now - last) / (double)freq;
    last = now;
    app.frame_ms = 0.9 * app.frame_ms + 0.1 * dt * 1e3;
    if (app.run.scene.world && o->frames > 0) {
      /* scripted run: exactly one step a frame, none while paused but the single step */
      if (!app.paused || app.single_step) sb_app_step(&app);
      app.single_step = false;
    } else if (app.run.scene.world) {
      int budget = 4; /* at most 4 steps a frame: a slow scene slows down, it does not spiral */
      if (!app.paused) {
        app.accumulator += (app.slow ? 0.25 : 1.0) * (dt > 0.1 ? 0.1 : dt);
        while (app.accumulator >= SB_DT && budget-- > 0) {
          sb_app_step(&app);
          app.accumulator -= SB_DT;
        }
        if (budget < 0) app.accumulator = 0.0;
      } else if (app.single_step) {
        sb_app_step(&app);
        app.single_step = false;
      }
    }
    sb_render_clear(&app.r);
    if (app.run.scene.world && sb_render_world(&app.r, app.run.scene.world, app.flags) == SN_OK)
      sb_render_sensors(&app.r, app.run.scene.world, &app.run.demo);
    if (app.run.scene.world && app.run.info != NULL && app.run.info->draw != NULL)
      app.run.info->draw(&app.run.scene, &app.run.demo, &app.r);
    if (sb_particle_drag_active(&app.pdrag) && sn_particle_is_valid(app.run.scene.world, app.pdrag.grabbed))
      sb_render_segment(&app.r, sn_particle_get_position(app.run.scene.world, app.pdrag.grabbed), app.pdrag.target,
                        0xffd060ffu);
    sb_app_overlay(&app);
    ++frames;
    if (o->frames > 0 && frames >= o->frames) app.quit = true;
    if (app.quit) rc = sb_app_finish(&app, o, frames); /* reads this frame before it is presented */
    SDL_RenderPresent(sdl);
    { /* at most SB_MAX_FPS, vsync or not (dummy driver, renderers that do not pace) */
      double spent = (double)(SDL_GetPerformanceCounter() - now) / (double)freq;
      if (spent < 1.0 / SB_MAX_FPS) SDL_Delay((Uint32)((1.0 / SB_MAX_FPS - spent) * 1e3));
    }
  }
  if (app.run.scene.world) sn_scene_destroy(&app.run.scene);
  free(app.snap);
  SDL_DestroyRenderer(sdl);
  SDL_DestroyWindow(app.window);
  return rc;
}

/* -------------------------------------------------------------------- main */

/* A display, or a video driver chosen explicitly (SDL_VIDEODRIVER=offscreen
 * renders a "window" without any display: the tests use it). */
static bool sb_have_display(void) {
  const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY"), *drv = getenv("SDL_VIDEODRIVER");
  return (x != NULL && x[0] != '\0') || (wl != NULL && wl[0] != '\0') || (drv != NULL && drv[0] != '\0');
}

int main(int argc, char **argv) {
  sb_options o;
  int rc = sb_parse(argc, argv, &o);
  if (rc != 0) return rc == 3 ? 2 : 0;
  if (o.help) {
    sb_usage(stdout);
    return 0;
  }
  if (o.list_scenes) return sb_list_scenes();
  sn_registry *reg = sb_load_plugins(!o.list_plugins);
  if (reg == NULL) return 1;
  if (!sb_load_extra(reg, &o)) {
    sn_destroy_registry(reg);
    return 2;
  }
  if (!o.list_plugins) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int32_t threads = o.threads > 0 ? o.threads : (int32_t)(cores < 1 ? 1 : cores > 4 ? 4 : cores);
    if (threads > 1) sb_pool = sn_thread_pool_create(threads); /* NULL: one thread, still correct */
  }
  if (o.list_plugins) {
    rc = sb_list_plugins(reg);
  } else if (o.headless) {
    rc = sb_headless(&o, reg, NULL);
  } else {
    /* a window if there is a display and SDL opens one; headless otherwise */
    rc = -1;
    const char *why = "no display ($DISPLAY / $WAYLAND_DISPLAY unset)";
    if (sb_have_display()) {
      if (SDL_Init(SDL_INIT_VIDEO) == 0) {
        rc = sb_window(&o, reg);
        if (rc < 0) why = "SDL could not open a window";
        SDL_Quit();
      } else {
        why = "SDL video init failed";
      }
      if (rc < 0) fprintf(stderr, "sinew-sandbox: %s: %s\n", why, SDL_GetError());
    }
    if (rc < 0) {
      fprintf(stderr, "sinew-sandbox: %s; running headless instead\n", why);
      rc = sb_headless(&o, reg, "headless");
    }
  }
  sn_thread_pool_destroy(sb_pool);
  sn_destroy_registry(reg);
  return rc;
}
