// sinew/scene_file.h compiles as C++ and links from C++ (as cxx_header_check
// does for the engine headers): load a scene from text, save it back.
#include "sinew/scene_file.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_standard_layout<sn_scene_error>::value, "errors are plain structs");
static_assert(std::is_standard_layout<sn_scene_load_options>::value, "options are plain structs");
static_assert(SN_SCENE_OK == 0, "SN_SCENE_OK is zero");

int main() {
  const char *text = "{\"sinew_scene\": 1, \"bodies\": [{\"name\": \"b\", \"type\": \"dynamic\", "
                     "\"shapes\": [{\"circle\": 0.5}]}]}";
  sn_scene_load_options options = sn_default_scene_load_options();
  options.search_default_dirs = false;
  sn_loaded_scene scene;
  sn_scene_error error;
  if (sn_scene_load_string(text, std::strlen(text), "cxx", &options, &scene, &error) != SN_SCENE_OK) {
    std::fprintf(stderr, "%s\n", error.message);
    return 1;
  }
  char *saved = sn_scene_save_string(scene.world, scene.names, &error);
  bool ok = saved != nullptr && std::strstr(saved, "\"circle\": 0.5") != nullptr;
  sn_scene_free_text(saved);
  sn_scene_unload(&scene);
  std::printf("scene_file.h from C++: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
