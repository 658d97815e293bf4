// The public headers must compile as C++ (extern "C", no C-only syntax) and
// link against the C library (tests/cxx/test_cxx.cpp adds a plugin written in
// C++ and the null ids). sinew/plugin_batch.h's lane macros are used too: a
// C++ kernel gets the same records back.
#include "sinew/plugin_batch.h"
#include "sinew/plugin_math.h"
#include "sinew/sinew.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_standard_layout<sn_world_def>::value, "defs are plain structs");
static_assert(std::is_trivially_copyable<sn_body_id>::value, "ids are values");
static_assert(sizeof(sn_body_id) == 8 && sizeof(sn_shape_id) == 8 && sizeof(sn_chain_id) == 8, "id layout");
static_assert(SN_OK == 0, "SN_OK is zero");

#if SN_PB_SIMD
#define SN_PB_W 4
// Four consecutive records: fields 0, 1 swapped in every lane, the lanes
// whose field 0 is above 150 get their field 2 doubled. 0 when all is right.
static int batch_lanes_check() {
  float rec[16], out[16];
  for (int i = 0; i < 16; ++i) rec[i] = static_cast<float>(100 * (i / 4) + i % 4);
  SN_PB_VEC t[4];
  SN_PB_VF f0, f1, f2, f3;
  SN_PB_LOADC(rec, t);
  SN_PB_F01(t, f0, f1);
  SN_PB_F23(t, f2, f3);
  const SN_PB_VF limit = SN_PB_VF{150.0f, 150.0f, 150.0f, 150.0f};
  const SN_PB_VI high = reinterpret_cast<SN_PB_VI>(f0 > limit);
  f2 = SN_PB_SEL(high, f2 + f2, f2);
  SN_PB_PUT01(t, f1, f0);
  SN_PB_PUT23(t, f2, f3);
  SN_PB_STOREC(out, t);
  SN_PB_VD root, two = SN_PB_VD{4.0, 9.0, 16.0, 25.0};
  SN_PB_SQRT(root, two);
  int bad = SN_PB_BITS(high) != 0xC ? 1 : 0;
  for (int k = 0; k < 4; ++k) {
    const float base = static_cast<float>(100 * k);
    bad += out[4 * k] != base + 1.0f || out[4 * k + 1] != base || out[4 * k + 3] != base + 3.0f;
    bad += out[4 * k + 2] != (k >= 2 ? 2.0f : 1.0f) * (base + 2.0f);
    bad += root[k] != static_cast<double>(k + 2);
  }
  return bad;
}
#undef SN_PB_W
#endif

int main() {
#if SN_PB_SIMD
  if (batch_lanes_check() != 0) return 8;
#endif
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
  if (sn_world_cast_ray_closest(world, {1.0f, 10.0f}, {0.0f, -20.0f}, sn_default_query_filter(), &ray) != SN_OK ||
      !ray.hit)
    return 6;
  // sinew/collision.h and the queries from C++: a proxy, a shape cast with a
  // captureless lambda as the callback, the plane solver
  sn_shape_proxy proxy;
  const sn_vec2 center = {1.0f, 10.0f};
  if (sn_make_proxy(&center, 1, 0.25f, &proxy) != SN_OK) return 9;
  float first = 2.0f;
  sn_cast_result_fcn *keep_closest = [](sn_shape_id, sn_vec2, sn_vec2, float fraction, void *context) -> float {
    *static_cast<float *>(context) = fraction;
    return fraction;
  };
  if (sn_world_cast_shape(world, &proxy, {0.0f, -20.0f}, sn_default_query_filter(), keep_closest, &first) != SN_OK ||
      !(first < 1.0f))
    return 10;
  sn_collision_plane ground = {{0.0f, 1.0f}, 0.0f, 1e30f, 0.0f, true};
  sn_plane_solver_result solved;
  if (sn_solve_planes({1.0f, -1.0f}, &ground, 1, &solved) != SN_OK || solved.translation.y != 0.0f) return 11;
  (void)xf;
  (void)box;
  std::printf("%s %s\n", sn_version_string(), sn_result_name(SN_ERR_STALE_ID));
  return sn_destroy_world(world) == SN_OK ? 0 : 7;
}
