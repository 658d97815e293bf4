/* sinew-box2d-scene-files DIR: writes the static scenes of the Box2D v3
 * suite (bench/box2d_scenes.c) as scene files, DIR/box2d_<scene>.json, with
 * the scene-file writer from the worlds the suite builds, before any step
 * (joint_grid and many_pyramids at a smaller size, in the file's name).
 * Rain is left out: it is made by its callback over time, not a static
 * scene. */
#include <stdio.h>
#include <string.h>

#include "scenes.h"
#include "sinew/scene_file.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sinew-box2d-scene-files DIR\n");
    return 2;
  }
  /* joint_grid at full size is 9 MB of text and many_pyramids 2.6 MB: the
   * files hold 20 x 20 circles and 4 x 4 pyramids (the size in the name) */
  static const struct {
    const char *scene;
    int32_t size;
  } scenes[] = {{"joint_grid", 20}, {"large_pyramid", 0}, {"many_pyramids", 4},
                {"smash", 0},       {"spinner", 0},       {"tumbler", 0}};
  int rc = 0;
  for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
    char name[64], path[4096];
    char size[16] = "";
    if (scenes[k].size > 0) snprintf(size, sizeof size, "%d", (int)scenes[k].size);
    snprintf(name, sizeof name, "box2d-%s", scenes[k].scene);
    if (snprintf(path, sizeof path, "%s/box2d_%s%s.json", argv[1], scenes[k].scene, size) >= (int)sizeof path) return 2;
    sn_scene s;
    sn_world_def wd = sn_default_world_def();
    if (!sn_scene_build_def(&s, name, scenes[k].size, &wd)) {
      fprintf(stderr, "sinew-box2d-scene-files: cannot build %s\n", name);
      sn_scene_destroy(&s);
      rc = 1;
      continue;
    }
    sn_scene_error e;
    if (sn_scene_save_file(path, s.world, NULL, &e) != SN_SCENE_OK) {
      fprintf(stderr, "sinew-box2d-scene-files: %s: %s\n", path, e.message);
      rc = 1;
    } else {
      printf("%s\n", path);
    }
    sn_scene_destroy(&s);
  }
  return rc;
}
