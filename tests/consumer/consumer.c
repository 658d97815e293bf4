/* Drops a box on the ground through the installed library; exits 0 if it
 * comes to rest at y = 0.5 within 1 cm. */
#include <math.h>
#include <stdio.h>

#include <sinew/sinew.h>

int main(void) {
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
