/* Loads a scene file through the installed libsinew_scene_io (plugins from
 * the installed plugin folder, found without any option), steps it, saves it
 * and loads the saved text again. usage: scene_consumer SCENE.json */
#include <stdio.h>
#include <string.h>

#include <sinew/scene_file.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  sn_loaded_scene scene;
  sn_scene_error err;
  if (sn_scene_load_file(argv[1], NULL, &scene, &err) != SN_SCENE_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  for (int i = 0; i < 60; ++i) sn_world_step(scene.world, 1.0f / 60.0f);
  char *text = sn_scene_save_string(scene.world, scene.names, &err);
  if (text == NULL) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  sn_loaded_scene again;
  sn_scene_status st = sn_scene_load_string(text, strlen(text), "saved", NULL, &again, &err);
  if (st != SN_SCENE_OK) fprintf(stderr, "%s\n", err.message);
  printf("scene %s: %d bodies, %d constraints, saved and reloaded: %s\n", argv[1],
         (int)sn_world_get_body_count(scene.world), (int)sn_world_get_constraint_count(scene.world),
         sn_scene_status_name(st));
  sn_scene_free_text(text);
  sn_scene_unload(&again);
  sn_scene_unload(&scene);
  return st == SN_SCENE_OK ? 0 : 1;
}
