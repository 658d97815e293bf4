/* Drops a box on the ground through the installed library; exits 0 if it
 * comes to rest at y = 0.5 within 1 cm. With a plugin path argument it also
 * loads the tutorial's example.spring plugin, hangs a box from it and checks
 * the static stretch m g / k within 1 %. Built with CONSUMER_SPRING_LINKED
 * (for a Sinew that loads no plugin files) the plugin is linked in instead,
 * its source built with SN_PLUGIN_STATIC=spring, and any argument runs the
 * check. */
#include <math.h>
#include <stdio.h>

#include <sinew/plugin.h>
#include <sinew/sinew.h>

#ifdef CONSUMER_SPRING_LINKED
SN_DECLARE_STATIC_PLUGIN(spring);
#endif

static sn_result add_spring(sn_registry *reg, const char *plugin, char *msg, size_t cap) {
#ifdef CONSUMER_SPRING_LINKED
  (void)plugin;
  return sn_registry_add_static(reg, &sn_plugin_entry_spring, msg, cap);
#else
  return sn_registry_load_plugin(reg, plugin, msg, cap);
#endif
}

static int spring_check(const char *plugin) {
  sn_registry *reg = sn_create_registry(NULL);
  char msg[512];
  if (add_spring(reg, plugin, msg, sizeof msg) != SN_OK) {
    fprintf(stderr, "load failed: %s\n", msg);
    return 1;
  }
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *world = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 5.0f};
  sn_body_id body = sn_create_body(world, &bd);
  sn_polygon box;
  sn_make_box(0.5f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(world, body, &sd, &box);
  sn_param_value values[3] = {{"target", 0.0, 5.0}, {"stiffness", 200.0, 0.0}, {"damping", 20.0, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "example.spring";
  cd.bodies[0] = body;
  cd.params = values;
  cd.param_count = 3;
  sn_constraint_id spring = sn_create_constraint(world, &cd);
  if (spring.index1 == 0) {
    fprintf(stderr, "create failed: %s\n", sn_world_last_error(world));
    return 1;
  }
  for (int i = 0; i < 600; ++i) sn_world_step(world, 1.0f / 60.0f);
  float stretch = 5.0f - sn_body_get_position(world, body).y;
  float expected = sn_body_get_mass(world, body) * 10.0f / 200.0f;
  printf("example.spring: stretch %.5f m, m g / k = %.5f m\n", (double)stretch, (double)expected);
  sn_destroy_world(world);
  sn_destroy_registry(reg);
  return fabsf(stretch - expected) < 0.01f * expected ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && spring_check(argv[1]) != 0) return 1;
  sn_world_def wd = sn_default_world_def();
  sn_world *world = sn_create_world(&wd, NULL);
  if (world == NULL) return 1;
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -1.0f};
  sn_body_id ground = sn_create_body(world, &gd);
  sn_polygon box;
  sn_make_box(50.0f, 1.0f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(world, ground, &sd, &box);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 3.0f};
  sn_body_id body = sn_create_body(world, &bd);
  sn_make_box(0.5f, 0.5f, &box);
  sn_create_polygon_shape(world, body, &sd, &box);
  for (int i = 0; i < 180; ++i) sn_world_step(world, 1.0f / 60.0f);
  float y = sn_body_get_position(world, body).y;
  printf("sinew %s: box rests at y = %.4f\n", sn_version_string(), (double)y);
  sn_destroy_world(world);
  return fabsf(y - 0.5f) < 0.01f ? 0 : 1;
}
