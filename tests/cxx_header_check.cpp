// The public headers must compile as C++ (extern "C", no C-only syntax) and
// link against the C library (tests/cxx/test_cxx.cpp adds a plugin written in
// C++ and the null ids).
#include "sinew/plugin_math.h"
#include "sinew/sinew.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_standard_layout<sn_world_def>::value, "defs are plain structs");
static_assert(std::is_trivially_copyable<sn_body_id>::value, "ids are values");
static_assert(sizeof(sn_body_id) == 8 && sizeof(sn_shape_id) == 8 && sizeof(sn_chain_id) == 8, "id layout");
static_assert(SN_OK == 0, "SN_OK is zero");

int main() {
  sn_vec2 v = {1.0f, 2.0f};
  sn_transform xf = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  sn_aabb box = {{-1.0f, -1.0f}, {1.0f, 1.0f}};
  sn_body_id null_body = {0, 0, 0};
  sn_polygon poly;
  std::memset(&poly, 0, sizeof poly);
  sn_ray_result ray;
  std::memset(&ray, 0, sizeof ray);

  sn_world_def def = sn_default_world_def();
  sn_result result = SN_ERR_NULL;
  sn_world *world = sn_create_world(&def, &result);
  if (world == nullptr || result != SN_OK) return 1;
  sn_body_def body_def = sn_default_body_def();
  body_def.type = SN_BODY_DYNAMIC;
  body_def.position = v;
  sn_body_id body = sn_create_body(world, &body_def);
  if (sn_make_box(0.5f, 0.5f, &poly) != SN_OK) return 2;
  sn_shape_def shape_def = sn_default_shape_def();
  sn_shape_id shape = sn_create_polygon_shape(world, body, &shape_def, &poly);
  if (!sn_body_is_valid(world, body) || !sn_shape_is_valid(world, shape)) return 3;
  if (sn_body_is_valid(world, null_body)) return 4;
  if (sn_world_step(world, 1.0f / 60.0f) != SN_OK) return 5;
  if (sn_world_cast_ray_closest(world, {1.0f, 10.0f}, {0.0f, -20.0f}, &ray) != SN_OK || !ray.hit) return 6;
  (void)xf;
  (void)box;
  std::printf("%s %s\n", sn_version_string(), sn_result_name(SN_ERR_STALE_ID));
  return sn_destroy_world(world) == SN_OK ? 0 : 7;
}
