/* The sandbox's particle picking and dragging (drag.c) against real worlds:
 * picking within radius + slop, never a fixed or kinematic particle; a drag
 * lifts a jelly to the cursor and is released without a trace; the pull is
 * bounded (the hand stays within reach of the particle); a particle that
 * disappears ends the drag; refusals (fixed particle, no xpbd_distance).
 * usage: test_drag PLUGIN_DIR (unused in a build that loads no plugin files) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "drag.h"
#include "shipped.h"

static int failures;

#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fprintf(stderr, "\n");                                                                                           \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

static sn_world *make_world(const sn_registry *reg) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -1.0f};
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  sn_make_box(50.0f, 1.0f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &box);
  return w;
}

static int32_t particle_count(sn_world *w) { return sn_world_get_counters(w).particle_count; }

static bool finite2(sn_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_drag PLUGIN_DIR\n");
    return 2;
  }
  sn_registry *reg = sn_create_registry(NULL);
  sn_shipped_add_all(reg, argv[1], NULL, NULL);
  if (sn_registry_find_type(reg, "xpbd_distance") == NULL || sn_registry_find_type(reg, "xpbd_area") == NULL) {
    fprintf(stderr, "FAIL: no xpbd plugins in %s\n", argv[1]);
    return 1;
  }
  sn_world *w = make_world(reg);

  /* a jelly resting on the ground and a rope pinned at both ends */
  sn_ring_def rd = sn_default_ring_def();
  rd.center = (sn_vec2){0.0f, 0.6f};
  rd.radius = 0.5f;
  rd.count = 24;
  rd.particle_radius = 0.05f;
  sn_soft_body_id jelly = sn_create_ring(w, &rd);
  CHECK(sn_soft_body_is_valid(w, jelly), "%s", sn_world_last_error(w));
  sn_rope_def ro = sn_default_rope_def();
  ro.start = (sn_vec2){3.0f, 4.0f};
  ro.end = (sn_vec2){7.0f, 4.0f};
  ro.count = 21;
  ro.pin_start = ro.pin_end = true;
  sn_soft_body_id rope = sn_create_rope(w, &ro);
  CHECK(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));

  /* every soft body with constraints is found, once */
  sn_soft_body_id found[8];
  int32_t nf = sb_world_soft_bodies(w, &jelly, 1, found, 8);
  CHECK(nf == 2, "found %d soft bodies", (int)nf);

  /* picking: the nearest particle within radius + slop */
  sn_particle_id jp[24];
  sn_soft_body_get_particles(w, jelly, jp, 24);
  sn_vec2 p0 = sn_particle_get_position(w, jp[0]);
  sn_particle_id hit = sb_pick_particle(w, (sn_vec2){p0.x + 0.08f, p0.y}, 0.05f, NULL, 0);
  CHECK(hit.index1 == jp[0].index1, "picked %d, want %d", (int)hit.index1, (int)jp[0].index1);
  hit = sb_pick_particle(w, (sn_vec2){p0.x + 0.12f, p0.y}, 0.05f, NULL, 0);
  CHECK(hit.index1 == 0, "picked a particle 0.12 m away with radius 0.05 + slop 0.05");
  hit = sb_pick_particle(w, (sn_vec2){20.0f, 20.0f}, 0.5f, NULL, 0);
  CHECK(hit.index1 == 0, "picked a particle in empty space");
  /* on a pinned end: the fixed particle is never picked, its free neighbour (0.2 m away) is */
  hit = sb_pick_particle(w, ro.start, 0.01f, NULL, 0);
  CHECK(hit.index1 == 0, "picked the fixed end of the rope");
  hit = sb_pick_particle(w, ro.start, 0.2f, NULL, 0);
  sn_particle_id rp[21];
  sn_soft_body_get_particles(w, rope, rp, 21);
  CHECK(hit.index1 == rp[1].index1, "near the pin: picked %d, want the free neighbour %d", (int)hit.index1,
        (int)rp[1].index1);

  /* refusals: a fixed particle; nothing changes */
  char err[256] = "";
  sb_particle_drag d;
  int32_t n0 = particle_count(w), c0 = sn_world_get_constraint_count(w);
  CHECK(!sb_particle_drag_begin(&d, w, rp[0], ro.start, err, sizeof err) && strstr(err, "fixed") != NULL,
        "dragging a fixed particle: '%s'", err);
  CHECK(!sb_particle_drag_active(&d) && particle_count(w) == n0 && sn_world_get_constraint_count(w) == c0,
        "a refused drag left something behind");

  /* drag the jelly's top particle 3 m up: the jelly follows, hanging below the cursor */
  sn_particle_id top = jp[6]; /* counter-clockwise from +x: a quarter turn is the top */
  sn_vec2 start = sn_particle_get_position(w, top);
  sn_vec2 target = {start.x, start.y + 3.0f};
  CHECK(sb_particle_drag_begin(&d, w, top, start, err, sizeof err), "begin: %s", err);
  CHECK(sb_particle_drag_active(&d) && particle_count(w) == n0 + 1 && sn_world_get_constraint_count(w) == c0 + 1,
        "the hand: particles %d (was %d), constraints %d (was %d)", (int)particle_count(w), (int)n0,
        (int)sn_world_get_constraint_count(w), (int)c0);
  CHECK(d.reach > 0.0f && d.max_force > 0.0f, "reach %g, max force %g", (double)d.reach, (double)d.max_force);
  for (int i = 0; i < 180; ++i) {
    /* the cursor moves up over the first second, then holds */
    float f = i < 60 ? (float)i / 60.0f : 1.0f;
    sb_particle_drag_set_target(&d, (sn_vec2){start.x, start.y + 3.0f * f});
    CHECK(sb_particle_drag_update(&d, w), "update ended the drag at step %d", i);
    sn_world_step(w, 1.0f / 60.0f);
  }
  sn_vec2 grabbed = sn_particle_get_position(w, top);
  sn_vec2 centre = sn_soft_body_get_center(w, jelly);
  CHECK(fabsf(grabbed.x - target.x) < 0.1f && fabsf(grabbed.y - target.y) < 0.1f,
        "the grabbed particle is at (%g, %g), the cursor at (%g, %g)", (double)grabbed.x, (double)grabbed.y,
        (double)target.x, (double)target.y);
  CHECK(centre.y > 2.5f && centre.y < grabbed.y, "the jelly's centre at y %g (lifted, below its top)",
        (double)centre.y);
  sb_particle_drag_end(&d, w);
  CHECK(!sb_particle_drag_active(&d) && particle_count(w) == n0 && sn_world_get_constraint_count(w) == c0,
        "release left the hand: particles %d, constraints %d", (int)particle_count(w),
        (int)sn_world_get_constraint_count(w));
  for (int i = 0; i < 120; ++i) sn_world_step(w, 1.0f / 60.0f);
  CHECK(sn_soft_body_get_center(w, jelly).y < 1.0f, "the released jelly did not fall back");

  /* bounded pull: a cursor 100 m from a rope pinned at both ends */
  sn_particle_id mid = rp[10];
  CHECK(sb_particle_drag_begin(&d, w, mid, sn_particle_get_position(w, mid), err, sizeof err), "begin: %s", err);
  sb_particle_drag_set_target(&d, (sn_vec2){5.0f, 104.0f});
  float worst = 0.0f;
  for (int i = 0; i < 120; ++i) {
    sb_particle_drag_update(&d, w);
    sn_world_step(w, 1.0f / 60.0f);
    sn_vec2 a = sn_particle_get_position(w, d.handle), b = sn_particle_get_position(w, mid);
    CHECK(finite2(a) && finite2(b), "not finite at step %d", i);
    float gap = hypotf(a.x - b.x, a.y - b.y);
    if (gap > worst) worst = gap;
  }
  /* the hand is placed at most reach from where the particle was; the particle moves a little in a step */
  CHECK(worst < 1.5f * d.reach, "hand %g m from the particle, reach %g", (double)worst, (double)d.reach);
  sn_vec2 force;
  float torque;
  CHECK(sn_constraint_get_reaction(w, d.link, &force, &torque) == SN_OK, "reaction: %s", sn_world_last_error(w));
  CHECK(hypotf(force.x, force.y) < 1.5f * d.max_force, "pull %g N, bound %g N", (double)hypotf(force.x, force.y),
        (double)d.max_force);
  for (int i = 0; i < 21; ++i) CHECK(finite2(sn_particle_get_position(w, rp[i])), "rope particle %d not finite", i);

  /* the dragged body goes away: the next update ends the drag and leaves nothing */
  sn_destroy_soft_body(w, rope);
  CHECK(!sb_particle_drag_update(&d, w) && !sb_particle_drag_active(&d), "drag outlived its particle");
  CHECK(particle_count(w) == sn_soft_body_get_particle_count(w, jelly), "the hand is still there");
  sb_particle_drag_end(&d, w); /* again: harmless */
  sn_destroy_world(w);

  /* a world without xpbd_distance: refused with a message */
  sn_registry *bare = sn_create_registry(NULL);
  w = make_world(bare);
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id lone = sn_create_soft_body(w, &sd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){0.0f, 2.0f};
  sn_particle_id p = sn_create_particle(w, lone, &pd);
  hit = sb_pick_particle(w, (sn_vec2){0.0f, 2.0f}, 0.1f, &lone, 1);
  CHECK(hit.index1 == p.index1, "a particle without constraints is picked through the extra list");
  CHECK(!sb_particle_drag_begin(&d, w, p, pd.position, err, sizeof err) && strstr(err, "xpbd_distance") != NULL,
        "no xpbd_distance: '%s'", err);
  sn_destroy_world(w);
  sn_destroy_registry(bare);
  sn_destroy_registry(reg);
  if (failures == 0) printf("test_drag: all passed\n");
  return failures == 0 ? 0 : 1;
}
