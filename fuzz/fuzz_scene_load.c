/* fuzz_scene_load: the scene-file loader on arbitrary text.
 *
 * Checks, beyond "no crash, no leak, no undefined behaviour" (ASan, UBSan,
 * LeakSanitizer): a refused file gives a non-OK status, a zeroed scene and a
 * NUL-terminated message; a loaded world steps (a few steps, if small)
 * without NaN; and save -> load -> save gives the same text again (the
 * format's fixed point), with the reloaded world holding as many bodies,
 * shapes and constraints as the first.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"
#include "shipped.h"
#include "sinew/scene_file.h"

static const char *const plugin_dirs[] = {SN_PLUGIN_DIR};

/* Keeps the plugins resident for the whole run: each load opens them in a
 * registry of its own and closes them again, which would otherwise map and
 * unmap the files per input. */
static sn_registry *g_resident;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  g_resident = sn_create_registry(NULL);
  if (g_resident == NULL || sn_shipped_add_all(g_resident, SN_PLUGIN_DIR, NULL, NULL) != SN_OK) {
    fprintf(stderr, "fuzz_scene_load: cannot load the plugins from %s\n", SN_PLUGIN_DIR);
    abort();
  }
  return 0;
}

static sn_scene_load_options options(void) {
  sn_scene_load_options o = sn_default_scene_load_options();
  o.plugin_dirs = plugin_dirs;
  o.plugin_dir_count = 1;
  o.search_default_dirs = false; /* never depend on SINEW_PLUGIN_PATH or an installed copy */
  return o;
}

static void check_refusal(sn_scene_status st, const sn_loaded_scene *scene, const sn_scene_error *err) {
  static const sn_loaded_scene zero;
  FZ_CHECK(memcmp(scene, &zero, sizeof zero) == 0, "a refused load left something in *out (status %d)", (int)st);
  FZ_CHECK(err->status == st, "error.status %d differs from the returned %d", (int)err->status, (int)st);
  FZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL, "message not terminated");
  FZ_CHECK(err->message[0] != '\0', "refused (%s) without a message", sn_scene_status_name(st));
  FZ_CHECK(sn_scene_status_name(st) != NULL, "status %d has no name", (int)st);
}

static void check_world_finite(sn_world *w) {
  int32_t n = sn_world_get_body_count(w);
  if (n <= 0) return;
  sn_body_id *ids = malloc((size_t)n * sizeof *ids);
  if (ids == NULL) return;
  n = sn_world_get_bodies(w, ids, n);
  for (int32_t i = 0; i < n; ++i) {
    sn_transform xf = sn_body_get_transform(w, ids[i]);
    sn_vec2 v = sn_body_get_linear_velocity(w, ids[i]);
    float av = sn_body_get_angular_velocity(w, ids[i]);
    FZ_CHECK(isfinite(xf.p.x) && isfinite(xf.p.y) && isfinite(xf.q.c) && isfinite(xf.q.s) && isfinite(v.x) &&
                 isfinite(v.y) && isfinite(av),
             "body %d of a loaded scene is not finite after stepping", (int)i);
  }
  free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0; /* big files only slow the search down */
  sn_scene_load_options o = options();
  sn_loaded_scene scene;
  sn_scene_error err;
  sn_scene_status st = sn_scene_load_string((const char *)data, size, "fuzz.json", &o, &scene, &err);
  if (st != SN_SCENE_OK) {
    check_refusal(st, &scene, &err);
    return 0;
  }
  FZ_CHECK(scene.world != NULL && scene.registry != NULL && scene.names != NULL, "loaded scene incomplete");
  sn_world_counters c1 = sn_world_get_counters(scene.world);

  /* save -> load -> save is a fixed point */
  char *text1 = sn_scene_save_string(scene.world, scene.names, &err);
  if (text1 == NULL) {
    FZ_CHECK(err.status != SN_SCENE_OK, "save failed with SN_SCENE_OK");
  } else {
    sn_loaded_scene again;
    sn_scene_error err2;
    sn_scene_status st2 = sn_scene_load_string(text1, strlen(text1), "saved.json", &o, &again, &err2);
    FZ_CHECK(st2 == SN_SCENE_OK, "a saved scene does not load back: %s\n--- saved text:\n%s", err2.message, text1);
    sn_world_counters c2 = sn_world_get_counters(again.world);
    FZ_CHECK(c1.body_count == c2.body_count && c1.shape_count == c2.shape_count &&
                 c1.constraint_count == c2.constraint_count,
             "reloaded world differs: bodies %d/%d shapes %d/%d constraints %d/%d", c1.body_count, c2.body_count,
             c1.shape_count, c2.shape_count, c1.constraint_count, c2.constraint_count);
    char *text2 = sn_scene_save_string(again.world, again.names, &err2);
    FZ_CHECK(text2 != NULL, "the reloaded scene does not save: %s", err2.message);
    FZ_CHECK(strcmp(text1, text2) == 0, "save -> load -> save changed the text\n--- first:\n%s\n--- second:\n%s", text1,
             text2);
    sn_scene_free_text(text2);
    sn_scene_unload(&again);
    sn_scene_free_text(text1);
  }

  /* a small loaded world steps without NaN */
  if (c1.body_count + c1.constraint_count <= 64) {
    for (int i = 0; i < 8; ++i) {
      if (sn_world_step(scene.world, 1.0f / 60.0f) != SN_OK) break;
    }
    check_world_finite(scene.world);
  }
  sn_scene_unload(&scene);
  return 0;
}
