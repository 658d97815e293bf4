/* The user guide's first world (docs/user-guide.md): a box dropped on the
 * ground, stepped for two seconds, then drawn once through the debug-draw
 * API. CI builds and runs it; it exits nonzero if the box is not resting on
 * the ground. */
#include <math.h>
#include <stdio.h>

#include <sinew/sinew.h>

/* A debug-draw callback: here it only prints; a renderer would fill the polygon. */
static void print_polygon(const sn_vec2 *v, int32_t count, float radius, uint32_t rgba, void *context) {
  (void)radius;
  int *drawn = context;
  ++*drawn;
  printf("polygon #%d: %d vertices, first (%.2f, %.2f), colour #%08x\n", *drawn, (int)count, (double)v[0].x,
         (double)v[0].y, (unsigned)rgba);
}

int main(void) {
  sn_world_def wd = sn_default_world_def(); /* gravity (0, -10), 8 substeps */
  sn_world *world = sn_create_world(&wd, NULL);
  if (world == NULL) return 1;

  /* static ground: a 100 m x 2 m box whose top is at y = 0 */
  sn_body_def gd = sn_default_body_def(); /* static by default */
  gd.position = (sn_vec2){0.0f, -1.0f};
  sn_body_id ground = sn_create_body(world, &gd);
  sn_polygon ground_box;
  sn_make_box(50.0f, 1.0f, &ground_box);
  sn_shape_def sd = sn_default_shape_def(); /* density 1, friction 0.6 */
  sn_create_polygon_shape(world, ground, &sd, &ground_box);

  /* a dynamic 1 m box, 4 m up */
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 4.0f};
  sn_body_id box = sn_create_body(world, &bd);
  sn_polygon unit;
  sn_make_box(0.5f, 0.5f, &unit);
  if (sn_create_polygon_shape(world, box, &sd, &unit).index1 == 0) {
    fprintf(stderr, "%s\n", sn_world_last_error(world)); /* every failure says why */
    return 1;
  }

  for (int i = 0; i < 120; ++i) sn_world_step(world, 1.0f / 60.0f);
  sn_vec2 p = sn_body_get_position(world, box);
  printf("box at (%.3f, %.3f) after 2 s\n", (double)p.x, (double)p.y);

  /* draw the world once: shapes only, through one callback */
  int drawn = 0;
  sn_debug_draw draw = sn_default_debug_draw();
  draw.polygon = print_polygon;
  draw.context = &drawn;
  draw.flags = SN_DRAW_SHAPES;
  sn_result r = sn_world_draw(world, &draw);

  sn_destroy_world(world);
  bool resting = fabsf(p.y - 0.5f) < 0.02f && fabsf(p.x) < 0.01f;
  return r == SN_OK && drawn == 2 && resting ? 0 : 1;
}
