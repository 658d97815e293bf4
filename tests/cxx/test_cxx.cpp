// The public API from C++17: null ids, a world with a rigid body and a
// particle, and a constraint type from a plugin written in C++ (cxx_plugin.cpp)
// that keeps the particle where it was created while gravity pulls it. The
// plugin is loaded from its file, or (a build without file loading) linked in
// and registered with sn_registry_add_static.
#include "sinew/plugin.h"
#include "sinew/sinew.h"

#include <cmath>
#include <cstdio>

#if defined(SN_CXX_PLUGIN_LINKED)
SN_DECLARE_STATIC_PLUGIN(cxx_hold);
#elif !defined(SN_CXX_PLUGIN)
#error "SN_CXX_PLUGIN (the path of the C++ plugin) or SN_CXX_PLUGIN_LINKED is required"
#endif

static int fail(const char *what) {
  std::fprintf(stderr, "test_cxx: %s\n", what);
  return 1;
}

int main() {
  sn_registry *reg = sn_create_registry(nullptr);
  char msg[512];
#if defined(SN_CXX_PLUGIN_LINKED)
  if (sn_registry_add_static(reg, &sn_plugin_entry_cxx_hold, msg, sizeof msg) != SN_OK) return fail(msg);
#else
  if (sn_registry_load_plugin(reg, SN_CXX_PLUGIN, msg, sizeof msg) != SN_OK) return fail(msg);
#endif
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *world = sn_create_world(&wd, nullptr);
  if (world == nullptr) return fail("no world");
  const sn_body_id none = SN_NULL_BODY;
  if (sn_body_is_valid(world, none) || sn_body_is_valid(world, SN_NULL_BODY)) return fail("null body is valid");
  if (sn_particle_is_valid(world, SN_NULL_PARTICLE) || sn_constraint_is_valid(world, SN_NULL_CONSTRAINT) ||
      sn_soft_body_is_valid(world, SN_NULL_SOFT_BODY) || sn_shape_is_valid(world, SN_NULL_SHAPE))
    return fail("a null id is valid");
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(world, &sd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = sn_vec2{1.0f, 2.0f};
  sn_particle_id held = sn_create_particle(world, soft, &pd);
  pd.position = sn_vec2{3.0f, 2.0f};
  sn_particle_id loose = sn_create_particle(world, soft, &pd);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "cxx.hold";
  cd.bodies[0] = SN_NULL_BODY;
  cd.particles = &held;
  cd.particle_count = 1;
  sn_constraint_id hold = sn_create_constraint(world, &cd);
  if (!sn_constraint_is_valid(world, hold)) return fail(sn_world_last_error(world));
  for (int i = 0; i < 60; ++i)
    if (sn_world_step(world, 1.0f / 60.0f) != SN_OK) return fail("step");
  const sn_vec2 h = sn_particle_get_position(world, held), l = sn_particle_get_position(world, loose);
  std::printf("measured: held particle at (%.6f, %.6f), loose one fell to y = %.4f\n", h.x, h.y, l.y);
  if (std::fabs(h.x - 1.0f) > 1e-6f || std::fabs(h.y - 2.0f) > 1e-6f) return fail("the held particle moved");
  if (!(l.y < 2.0f - 4.0f)) return fail("the loose particle did not fall about 5 m in 1 s");
  sn_destroy_world(world);
  sn_destroy_registry(reg);
  return 0;
}
