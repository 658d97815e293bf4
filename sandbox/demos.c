/* The sandbox's scene list: every standard scene of sinew_scenes (found
 * through sn_scene_count / sn_scene_name, so new ones appear by themselves)
 * followed by the sandbox's own demos: the default showcase, one demo per
 * shipped constraint plugin, and a mixed world. Demos are built through the
 * public API only, and tracked in an sn_scene so the benchmark metrics and
 * JSON line apply to them too. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define SB_PI          3.14159265358979f
#define SB_MAX_TRACKED 2048

/* ----------------------------------------------------------------- helpers */

static bool sb_track_init(sn_scene *s, const char *name, const sn_registry *registry) {
  memset(s, 0, sizeof(*s));
  s->name = name;
  s->size = 1;
  s->default_steps = 600;
  s->ratio_small = s->ratio_big = -1;
  s->bodies = calloc(SB_MAX_TRACKED, sizeof(sn_body_id));
  s->initial = calloc(SB_MAX_TRACKED, sizeof(sn_vec2));
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false; /* as the benchmark: results do not depend on sleep timing */
  wd.registry = registry;
  s->world = sn_create_world(&wd, NULL);
  return s->bodies != NULL && s->initial != NULL && s->world != NULL;
}

/* Tracks a dynamic body (its start for the report) while fewer than cap are. */
static void sb_track_upto(sn_scene *s, sn_body_id id, int32_t cap) {
  if (s->body_count >= cap || id.index1 == 0) return;
  sn_vec2 p = sn_body_get_position(s->world, id);
  s->bodies[s->body_count] = id;
  s->initial[s->body_count] = p;
  if (s->body_count == 0 || p.y > s->initial[s->top_body].y) s->top_body = s->body_count;
  s->body_count++;
}

static void sb_track(sn_scene *s, sn_body_id id) { sb_track_upto(s, id, SB_MAX_TRACKED); }

static sn_body_id sb_static_box(sn_world *w, float hx, float hy, sn_vec2 c, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.position = c;
  bd.angle = angle;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, b, &sd, &box);
  return b;
}

static sn_body_id sb_ground(sn_world *w, float half_width) {
  return sb_static_box(w, half_width, 1.0f, (sn_vec2){0.0f, -1.0f}, 0.0f);
}

static sn_body_id sb_dynamic(sn_world *w, sn_vec2 p, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = angle;
  return sn_create_body(w, &bd);
}

static sn_body_id sb_box(sn_scene *s, float hx, float hy, sn_vec2 p, float density) {
  sn_body_id b = sb_dynamic(s->world, p, 0.0f);
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  sn_create_polygon_shape(s->world, b, &sd, &box);
  sb_track(s, b);
  return b;
}

static sn_body_id sb_ball(sn_scene *s, float radius, sn_vec2 p, float density) {
  sn_body_id b = sb_dynamic(s->world, p, 0.0f);
  sn_circle c = {{0.0f, 0.0f}, radius};
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  sn_create_circle_shape(s->world, b, &sd, &c);
  sb_track(s, b);
  return b;
}

/* A constraint by type name; counts it in the scene. */
static sn_constraint_id sb_joint(sn_scene *s, const char *type, sn_body_id a, sn_body_id b, const sn_param_value *v,
                                 int32_t n) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.bodies[0] = a;
  cd.bodies[1] = b;
  cd.params = v;
  cd.param_count = n;
  sn_constraint_id id = sn_create_constraint(s->world, &cd);
  if (id.index1 != 0) s->constraint_count++;
  return id;
}

/* A pyramid of boxes with rows at the base; levels < rows cuts it flat. */
static void sb_pyramid_levels(sn_scene *s, int rows, int levels, float x0, float half) {
  for (int i = 0; i < levels && i < rows; ++i) {
    for (int j = i; j < rows; ++j) {
      float x = x0 + ((float)(i + 1) * 0.5f + (float)(j - i) - 0.5f * (float)rows) * 2.0f * half;
      float y = (float)(2 * i + 1) * half;
      sb_box(s, half, half, (sn_vec2){x, y}, 1.0f);
    }
  }
}

static void sb_pyramid(sn_scene *s, int rows, float x0, float half) { sb_pyramid_levels(s, rows, rows, x0, half); }

/* A car: chassis box with two wheels on wheel joints (spring suspension, rear
 * motor). Returns the rear wheel joint. */
static sn_constraint_id sb_car(sn_scene *s, sn_vec2 p, float motor_speed) {
  sn_body_id chassis = sb_dynamic(s->world, p, 0.0f);
  sn_vec2 hull_pts[6] = {{-1.5f, -0.3f}, {1.5f, -0.3f}, {1.5f, 0.0f}, {0.2f, 0.6f}, {-1.2f, 0.6f}, {-1.5f, 0.2f}};
  sn_polygon hull;
  sn_compute_hull(hull_pts, 6, 0.05f, &hull);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(s->world, chassis, &sd, &hull);
  sb_track(s, chassis);
  sn_constraint_id rear = {0, 0, 0};
  for (int k = 0; k < 2; ++k) {
    float dx = k == 0 ? -1.0f : 1.0f;
    sn_vec2 wp = {p.x + dx, p.y - 0.65f};
    sn_body_id wheel = sb_ball(s, 0.4f, wp, 2.0f);
    sn_param_value v[6] = {{"anchor", wp.x, wp.y},      {"axis", 0.0, 1.0},         {"hertz", 4.0, 0.0},
                           {"damping_ratio", 0.7, 0.0}, {"enable_motor", 1.0, 0.0}, {"max_motor_torque", 40.0, 0.0}};
    sn_param_value m[1] = {{"motor_speed", motor_speed, 0.0}};
    sn_constraint_id j = sb_joint(s, "wheel", chassis, wheel, v, k == 0 ? 6 : 4);
    if (k == 0 && j.index1 != 0) {
      sn_constraint_set_param(s->world, j, m[0].name, m[0].x, 0.0);
      rear = j;
    }
  }
  return rear;
}

/* -------------------------------------------------------------- soft bodies */

/* Tracks a soft body made by a builder in the scene (particles and links
 * for the metrics, its constraints counted); false if the builder failed. */
static bool sb_soft(sn_scene *s, sn_soft_body_id soft) {
  if (!sn_soft_body_is_valid(s->world, soft)) return false;
  return sn_scene_add_soft(s, soft);
}

/* A jelly: the standard scenes' pressure ring (24 particles, incompressible area,
 * soft edges), scaled to radius r (40 particles above 0.7 m). */
static sn_ring_def sb_jelly_def(sn_vec2 center, float r) {
  sn_ring_def d = sn_default_ring_def();
  d.center = center;
  d.radius = r;
  d.count = r > 0.7f ? 40 : 24;
  d.mass = 1.0f * r * r / 0.25f; /* 1 kg at r = 0.5 */
  /* particles overlap along the rim: a box corner cannot slip between two
   * of them into the ring (rim edges stop only other soft bodies) */
  d.particle_radius = 0.6f * 2.0f * SB_PI * r / (float)d.count;
  d.material.compliance = 1e-3f / d.mass; /* as stiff, for its mass, as the standard jelly's */
  d.body.friction = 0.6f;
  d.body.rigid_damping = 0.02f;
  return d;
}

/* A rope of count particles from a to b (radius r), pinned as asked. */
static sn_rope_def sb_rope_def(sn_vec2 a, sn_vec2 b, int32_t count, float r, float mass) {
  sn_rope_def d = sn_default_rope_def();
  d.start = a;
  d.end = b;
  d.count = count;
  d.radius = r;
  d.mass = mass;
  d.body.friction = 0.6f;
  return d;
}

/* A soft lattice box of columns x rows particles at spacing h. */
static sn_lattice_def sb_lattice_def(sn_vec2 center, int32_t columns, int32_t rows, float h, float mass) {
  sn_lattice_def d = sn_default_lattice_def();
  d.center = center;
  d.columns = columns;
  d.rows = rows;
  d.spacing = h;
  d.mass = mass;
  d.material.compliance = 1e-4f;
  d.material.shear_compliance = 1e-3f;
  d.area_compliance = 1e-4f;
  d.body.friction = 0.6f;
  d.body.rigid_damping = 0.05f;
  return d;
}

/* Jelly at the cursor: a pressure ring of radius 0.6 m (the world's
 * registry needs xpbd_distance and xpbd_area). */
bool sb_spawn_jelly(sn_world *world, sn_vec2 p) {
  sn_ring_def d = sb_jelly_def(p, 0.6f);
  return sn_soft_body_is_valid(world, sn_create_ring(world, &d));
}

bool sb_spawn_box(sn_world *world, sn_vec2 p) {
  sn_body_id b = sb_dynamic(world, p, 0.0f);
  sn_polygon box;
  sn_make_box(0.5f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  return sn_create_polygon_shape(world, b, &sd, &box).index1 != 0;
}

bool sb_spawn_ball(sn_world *world, sn_vec2 p) {
  sn_body_id b = sb_dynamic(world, p, 0.0f);
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  sd.restitution = 0.3f;
  return sn_create_circle_shape(world, b, &sd, &c).index1 != 0;
}

/* ------------------------------------------------------------------- demos */

/* The default scene: rigid and soft bodies together. From the left: a jelly
 * dropped on a box pyramid; a rope bridge pinned to two posts carrying
 * crates and a soft lattice box; a cloth curtain hanging from a bar, hit by
 * a rigid pendulum (distance joint); a see-saw (revolute) with a soft box on
 * one end and a jelly landing on the other. */
static bool sb_build_showcase(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "showcase", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 60.0f);
  sb_static_box(w, 0.3f, 3.0f, (sn_vec2){-16.6f, 3.0f}, 0.0f); /* end walls: what rolls stays in view */
  sb_static_box(w, 0.3f, 3.0f, (sn_vec2){16.6f, 3.0f}, 0.0f);
  /* jelly on a (flat-topped) pyramid */
  sb_pyramid_levels(s, 6, 4, -12.5f, 0.5f);
  sn_ring_def jd = sb_jelly_def((sn_vec2){-12.5f, 10.0f}, 1.0f);
  jd.mass = 1.5f; /* light for its size: 4 kg would slowly wedge the top boxes apart */
  jd.material.compliance = 1e-3f / jd.mass;
  if (!sb_soft(s, sn_create_ring(w, &jd))) return false;
  /* rope bridge between two posts, with crates and a soft box on it */
  sb_static_box(w, 0.3f, 2.5f, (sn_vec2){-8.3f, 2.5f}, 0.0f);
  sb_static_box(w, 0.3f, 2.5f, (sn_vec2){-0.7f, 2.5f}, 0.0f);
  sn_rope_def rd = sb_rope_def((sn_vec2){-8.0f, 5.0f}, (sn_vec2){-1.0f, 5.0f}, 36, 0.1f, 2.0f);
  rd.pin_start = rd.pin_end = true;
  rd.material.compliance = 1e-5f;
  rd.body.damping = 1.0f; /* the whole bridge bounces: damp that, not just its deformation */
  if (!sb_soft(s, sn_create_rope(w, &rd))) return false;
  sb_box(s, 0.35f, 0.35f, (sn_vec2){-6.8f, 7.0f}, 1.0f);
  sb_box(s, 0.35f, 0.35f, (sn_vec2){-5.6f, 8.0f}, 1.0f);
  jd = sb_jelly_def((sn_vec2){-4.2f, 8.5f}, 0.6f);
  if (!sb_soft(s, sn_create_ring(w, &jd))) return false;
  sn_lattice_def ld = sb_lattice_def((sn_vec2){-2.4f, 7.5f}, 5, 5, 0.2f, 1.0f);
  if (!sb_soft(s, sn_create_lattice(w, &ld))) return false;
  /* cloth curtain on a bar, and a pendulum swinging into it */
  sb_static_box(w, 3.3f, 0.1f, (sn_vec2){4.9f, 12.2f}, 0.0f);
  sn_cloth_def cd = sn_default_cloth_def();
  cd.top_left = (sn_vec2){2.0f, 12.0f};
  cd.columns = 25;
  cd.rows = 15;
  cd.spacing = 0.24f;
  cd.mass = 1.5f;
  cd.radius = 0.06f;
  cd.pins = SN_PIN_TOP_ROW;
  cd.tethers = false;
  cd.material.compliance = 1e-5f;
  cd.material.shear_compliance = 0.02f; /* soft shear: a curtain, not a plate */
  cd.body.friction = 0.5f;
  cd.body.rigid_damping = 0.01f;
  if (!sb_soft(s, sn_create_cloth(w, &cd))) return false;
  sn_body_id bob = sb_ball(s, 0.6f, (sn_vec2){14.0f, 12.5f}, 2.0f);
  sn_param_value rod[2] = {{"anchor_a", 9.0, 12.5}, {"anchor_b", 14.0, 12.5}};
  sb_joint(s, "distance", ground, bob, rod, 2);
  /* see-saw with a soft box and a jelly */
  sn_body_def fd = sn_default_body_def();
  fd.position = (sn_vec2){12.5f, 0.0f};
  sn_body_id fulcrum = sn_create_body(w, &fd);
  sn_vec2 tri[3] = {{-0.7f, 0.0f}, {0.7f, 0.0f}, {0.0f, 1.0f}};
  sn_polygon tp;
  sn_compute_hull(tri, 3, 0.0f, &tp);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, fulcrum, &sd, &tp);
  sn_body_id plank = sb_box(s, 3.0f, 0.12f, (sn_vec2){12.5f, 1.12f}, 1.0f);
  sn_param_value pivot[1] = {{"anchor", 12.5, 1.12}};
  sb_joint(s, "revolute", fulcrum, plank, pivot, 1);
  ld = sb_lattice_def((sn_vec2){10.4f, 1.75f}, 5, 5, 0.2f, 1.5f);
  if (!sb_soft(s, sn_create_lattice(w, &ld))) return false;
  jd = sb_jelly_def((sn_vec2){14.4f, 2.2f}, 0.7f);
  if (!sb_soft(s, sn_create_ring(w, &jd))) return false;
  return true;
}

static bool sb_build_revolute(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-revolute", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  /* a pendulum chain of 10 links */
  sn_body_id prev = ground;
  for (int k = 0; k < 10; ++k) {
    sn_vec2 c = {-10.0f + 0.5f + (float)k, 12.0f};
    sn_body_id link = sb_box(s, 0.5f, 0.1f, c, 1.0f);
    sn_param_value v[1] = {{"anchor", c.x - 0.5f, 12.0}};
    sb_joint(s, "revolute", prev, link, v, 1);
    prev = link;
  }
  /* a motorised spinner that bats balls */
  sn_body_id bar = sb_box(s, 2.5f, 0.15f, (sn_vec2){5.0f, 3.0f}, 2.0f);
  sn_param_value m[4] = {
      {"anchor", 5.0, 3.0}, {"enable_motor", 1, 0}, {"motor_speed", 2.0, 0}, {"max_motor_torque", 500, 0}};
  st->joints[0] = sb_joint(s, "revolute", ground, bar, m, 4);
  for (int k = 0; k < 8; ++k) sb_ball(s, 0.3f, (sn_vec2){3.0f + 0.6f * (float)k, 8.0f + 0.7f * (float)k}, 1.0f);
  /* a swinging door with limits (-45..+45 deg) */
  sn_body_id door = sb_box(s, 0.1f, 1.5f, (sn_vec2){12.0f, 4.5f}, 1.0f);
  sn_param_value d[4] = {
      {"anchor", 12.0, 6.0}, {"enable_limit", 1, 0}, {"lower_angle", -0.785, 0}, {"upper_angle", 0.785, 0}};
  sb_joint(s, "revolute", ground, door, d, 4);
  sb_ball(s, 0.4f, (sn_vec2){9.5f, 5.0f}, 1.0f);
  return true;
}

static bool sb_build_prismatic(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-prismatic", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  /* an elevator: platform on a vertical axis, motor reversed by the script */
  sn_body_id lift = sb_box(s, 2.0f, 0.2f, (sn_vec2){-4.0f, 1.0f}, 2.0f);
  sn_param_value v[8] = {{"anchor", -4.0, 1.0},       {"axis", 0.0, 1.0},           {"enable_motor", 1, 0},
                         {"motor_speed", 1.5, 0},     {"max_motor_force", 2000, 0}, {"enable_limit", 1, 0},
                         {"lower_translation", 0, 0}, {"upper_translation", 6, 0}};
  st->joints[0] = sb_joint(s, "prismatic", ground, lift, v, 8);
  for (int k = 0; k < 3; ++k) sb_box(s, 0.4f, 0.4f, (sn_vec2){-5.0f + 1.0f * (float)k, 1.7f}, 1.0f);
  /* a slider on a 30 degree rail with limits */
  float c = cosf(SB_PI / 6.0f), sn = sinf(SB_PI / 6.0f);
  sn_body_id slider = sb_box(s, 0.6f, 0.3f, (sn_vec2){4.0f, 5.0f}, 1.0f);
  sn_param_value r[5] = {{"anchor", 4.0, 5.0},
                         {"axis", c, sn},
                         {"enable_limit", 1, 0},
                         {"lower_translation", -3, 0},
                         {"upper_translation", 3, 0}};
  sb_joint(s, "prismatic", ground, slider, r, 5);
  return true;
}

static void sb_update_prismatic(sn_scene *s, sb_demo_state *st, double t) {
  /* up for 4 s, down for 4 s */
  double speed = fmod(t, 8.0) < 4.0 ? 1.5 : -1.5;
  if (sn_constraint_is_valid(s->world, st->joints[0]))
    sn_constraint_set_param(s->world, st->joints[0], "motor_speed", speed, 0);
}

static bool sb_build_wheel(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-wheel", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 80.0f);
  /* bumpy road: a chain of bumps */
  sn_vec2 pts[64];
  int n = 0;
  pts[n++] = (sn_vec2){60.0f, -5.0f};
  for (int k = 0; k < 60 && n < 63; ++k) {
    float x = 50.0f - 1.5f * (float)k;
    pts[n++] = (sn_vec2){x, (k % 4 == 1) ? 0.35f : (k % 7 == 3 ? 0.2f : 0.01f)};
  }
  pts[n++] = (sn_vec2){-60.0f, -5.0f};
  sn_body_def bd = sn_default_body_def();
  sn_body_id road = sn_create_body(w, &bd);
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = n;
  sn_create_chain(w, road, &cd);
  st->joints[0] = sb_car(s, (sn_vec2){-20.0f, 1.5f}, -8.0);
  sb_car(s, (sn_vec2){-10.0f, 1.5f}, -4.0);
  for (int k = 0; k < 5; ++k) sb_box(s, 0.3f, 0.3f, (sn_vec2){0.0f + 3.0f * (float)k, 0.5f}, 0.5f);
  return true;
}

static bool sb_build_distance(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-distance", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  /* rod pendulum */
  sn_body_id bob = sb_ball(s, 0.4f, (sn_vec2){-6.0f, 10.0f}, 1.0f);
  sn_param_value rod[2] = {{"anchor_a", -9.0, 10.0}, {"anchor_b", -6.0, 10.0}};
  sb_joint(s, "distance", ground, bob, rod, 2);
  /* spring: a box bouncing under a soft spring */
  sn_body_id weight = sb_box(s, 0.5f, 0.5f, (sn_vec2){0.0f, 6.0f}, 1.0f);
  sn_param_value spring[6] = {{"anchor_a", 0.0, 11.0}, {"anchor_b", 0.0, 6.5},    {"enable_spring", 1, 0},
                              {"hertz", 1.5, 0},       {"damping_ratio", 0.1, 0}, {"length", 3.0, 0}};
  sb_joint(s, "distance", ground, weight, spring, 6);
  /* rope: slack up to 3 m */
  sn_body_id hang = sb_ball(s, 0.3f, (sn_vec2){6.0f, 10.0f}, 1.0f);
  sn_param_value rope[5] = {{"anchor_a", 5.0, 11.0},
                            {"anchor_b", 6.0, 10.0},
                            {"enable_limit", 1, 0},
                            {"min_length", 0, 0},
                            {"max_length", 3, 0}};
  sb_joint(s, "distance", ground, hang, rope, 5); /* range rows only: a rope */
  /* a soft chain of balls */
  sn_body_id prev = ground;
  sn_vec2 a = {10.0f, 11.0f};
  for (int k = 0; k < 6; ++k) {
    sn_vec2 p = {10.0f + 0.8f * (float)(k + 1), 11.0f};
    sn_body_id b = sb_ball(s, 0.25f, p, 1.0f);
    sn_param_value v[5] = {{"anchor_a", a.x, a.y},
                           {"anchor_b", p.x, p.y},
                           {"enable_spring", 1, 0},
                           {"hertz", 6, 0},
                           {"damping_ratio", 0.5, 0}};
    sb_joint(s, "distance", prev, b, v, 5);
    prev = b;
    a = p;
  }
  return true;
}

static bool sb_build_weld(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-weld", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  sn_body_id wall = sb_static_box(w, 0.5f, 5.0f, (sn_vec2){-8.5f, 5.0f}, 0.0f);
  for (int beam = 0; beam < 2; ++beam) {
    float y = beam == 0 ? 8.0f : 4.0f;
    sn_body_id prev = wall;
    for (int k = 0; k < 8; ++k) {
      sn_body_id b = sb_box(s, 0.5f, 0.2f, (sn_vec2){-7.5f + (float)k, y}, 1.0f);
      /* top beam rigid; bottom beam soft (linear 5 Hz, angular 2 Hz) */
      sn_param_value v[4] = {{"anchor", -8.0 + k, y},
                             {"linear_hertz", beam ? 5.0 : 0.0, 0},
                             {"angular_hertz", beam ? 2.0 : 0.0, 0},
                             {"damping_ratio", 0.5, 0}};
      sb_joint(s, "weld", prev, b, v, 4);
      prev = b;
    }
  }
  sb_box(s, 0.4f, 0.4f, (sn_vec2){-1.0f, 10.0f}, 2.0f);
  return true;
}

static bool sb_build_motor(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-motor", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  sn_body_id pusher = sb_box(s, 1.0f, 0.25f, (sn_vec2){0.0f, 4.0f}, 2.0f);
  sn_param_value v[4] = {
      {"linear_offset", 0.0, 4.0}, {"max_force", 2000, 0}, {"max_torque", 1000, 0}, {"correction_factor", 0.3, 0}};
  st->joints[0] = sb_joint(s, "motor", ground, pusher, v, 4);
  for (int k = 0; k < 20; ++k)
    sb_ball(s, 0.25f, (sn_vec2){-3.0f + 0.6f * (float)(k % 10), 0.3f + 0.6f * (float)(k / 10)}, 1.0f);
  return true;
}

static void sb_update_motor(sn_scene *s, sb_demo_state *st, double t) {
  /* the pusher follows a circle of radius 3 around (0, 4), turning as it goes */
  if (!sn_constraint_is_valid(s->world, st->joints[0])) return;
  double a = 1.2 * t;
  sn_constraint_set_param(s->world, st->joints[0], "linear_offset", 3.0 * cos(a), 4.0 + 3.0 * sin(a));
  sn_constraint_set_param(s->world, st->joints[0], "angular_offset", fmod(a, 2.0 * SB_PI) - SB_PI, 0);
}

static bool sb_build_mouse(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-mouse", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  sn_body_id crate = sb_box(s, 0.6f, 0.6f, (sn_vec2){-5.0f, 0.6f}, 1.0f);
  sn_param_value v[4] = {{"anchor", -4.6, 0.9}, {"target", -4.6, 0.9}, {"max_force", 300, 0}, {"hertz", 3, 0}};
  st->joints[0] = sb_joint(s, "mouse", crate, crate, v, 4);
  sb_pyramid(s, 5, 3.0f, 0.5f);
  return true;
}

static void sb_update_mouse(sn_scene *s, sb_demo_state *st, double t) {
  /* the "hand" draws a figure eight over the pyramid */
  if (!sn_constraint_is_valid(s->world, st->joints[0])) return;
  double a = 0.8 * t;
  sn_constraint_set_param(s->world, st->joints[0], "target", -1.0 + 5.0 * sin(a), 5.0 + 2.5 * sin(2.0 * a));
}

/* Mixed: jellies and soft boxes dropped on a rigid pyramid in a box. */
static bool sb_build_jelly(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-jelly", reg)) return false;
  sn_world *w = s->world;
  sb_static_box(w, 10.0f, 0.5f, (sn_vec2){0.0f, 0.5f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){-10.5f, 8.0f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){10.5f, 8.0f}, 0.0f);
  for (int i = 0; i < 6; ++i) {
    for (int j = i; j < 6; ++j) {
      sb_box(s, 0.5f, 0.5f, (sn_vec2){-2.5f + (float)i * 0.5f + (float)(j - i), 1.5f + (float)i}, 1.0f);
    }
  }
  for (int k = 0; k < 8; ++k) {
    sn_vec2 c = {-7.5f + 2.1f * (float)k, 9.0f + 1.6f * (float)(k % 3)};
    if (k % 3 == 2) {
      sn_lattice_def ld = sb_lattice_def(c, 4, 4, 0.25f, 1.0f);
      if (!sb_soft(s, sn_create_lattice(w, &ld))) return false;
    } else {
      sn_ring_def d = sb_jelly_def(c, 0.6f + 0.1f * (float)(k % 2));
      if (!sb_soft(s, sn_create_ring(w, &d))) return false;
    }
  }
  return true;
}

/* xpbd_distance: a soft chain swinging from a pin; two cloth hammocks with
 * a tear force, a light crate resting in one, a heavy crate tearing through
 * the other; a stretchy (compliant) rope with a soft box at its end. */
static bool sb_build_xpbd_distance(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-xpbd_distance", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  /* chain: inextensible links, swings down from the horizontal */
  sb_static_box(w, 0.2f, 0.2f, (sn_vec2){-7.5f, 11.7f}, 0.0f);
  sn_rope_def rd = sb_rope_def((sn_vec2){-7.5f, 11.5f}, (sn_vec2){-1.5f, 11.5f}, 31, 0.08f, 1.0f);
  rd.pin_start = true;
  if (!sb_soft(s, sn_create_rope(w, &rd))) return false;
  /* hammocks between two posts each: pinned at the four corners, tearing */
  for (int k = 0; k < 2; ++k) {
    float x0 = -4.0f + 6.0f * (float)k;
    sb_static_box(w, 0.2f, 3.0f, (sn_vec2){x0 - 0.3f, 3.0f}, 0.0f);
    sb_static_box(w, 0.2f, 3.0f, (sn_vec2){x0 + 4.3f, 3.0f}, 0.0f);
    sn_cloth_def cd = sn_default_cloth_def();
    cd.top_left = (sn_vec2){x0, 6.0f};
    cd.columns = 21;
    cd.rows = 3;
    cd.spacing = 0.2f;
    cd.mass = 0.6f;
    cd.radius = 0.08f;
    cd.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT | SN_PIN_BOTTOM_LEFT | SN_PIN_BOTTOM_RIGHT;
    cd.tethers = false;
    cd.material.compliance = 1e-5f;
    cd.material.shear_compliance = 1e-4f;
    cd.material.tear_force = 60.0f;
    cd.body.friction = 0.6f;
    if (!sb_soft(s, sn_create_cloth(w, &cd))) return false;
    float half = k == 0 ? 0.4f : 0.5f;
    sb_box(s, half, half, (sn_vec2){x0 + 2.0f, 8.0f}, k == 0 ? 1.0f : 30.0f);
  }
  /* bungee: a compliant rope with a soft box hanging from its end */
  sb_static_box(w, 0.2f, 0.2f, (sn_vec2){10.0f, 11.7f}, 0.0f);
  rd = sb_rope_def((sn_vec2){10.0f, 11.5f}, (sn_vec2){10.0f, 8.5f}, 16, 0.05f, 0.2f);
  rd.pin_start = true;
  rd.material.compliance = 5e-3f;
  rd.body.collide_soft = false;
  sn_soft_body_id bungee = sn_create_rope(w, &rd);
  if (!sb_soft(s, bungee)) return false;
  /* the box: a lattice whose top-middle particle joins the rope's end */
  sn_lattice_def ld = sb_lattice_def((sn_vec2){10.0f, 8.1f}, 3, 3, 0.3f, 1.0f);
  sn_soft_body_id box = sn_create_lattice(w, &ld);
  if (!sb_soft(s, box)) return false;
  sn_particle_id end[16], corner[9];
  int32_t ne = sn_soft_body_get_particles(w, bungee, end, 16);
  sn_soft_body_get_particles(w, box, corner, 9);
  /* lattice particles in rows; the middle of the top row is 7 or 1 */
  sn_particle_id top = corner[1];
  sn_vec2 p1 = sn_particle_get_position(w, corner[1]), p7 = sn_particle_get_position(w, corner[7]);
  if (p7.y > p1.y) top = corner[7];
  sn_particle_id pair[2] = {end[ne - 1], top};
  sn_param_value v[1] = {{"compliance", 5e-3, 0.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "xpbd_distance";
  cd.particles = pair;
  cd.particle_count = 2;
  cd.params = v;
  cd.param_count = 1;
  if (!sn_constraint_is_valid(w, sn_create_constraint(w, &cd))) return false;
  s->constraint_count++;
  return true;
}

/* The area constraint of a ring made by sn_create_ring. */
static sn_constraint_id sb_area_constraint(sn_world *w, sn_soft_body_id ring) {
  sn_constraint_id ids[64];
  int32_t n = sn_soft_body_get_constraints(w, ring, ids, 64);
  for (int32_t i = 0; i < n; ++i) {
    double x, y;
    if (sn_constraint_get_param(w, ids[i], "pressure", &x, &y) == SN_OK) return ids[i];
  }
  return SN_NULL_CONSTRAINT;
}

static const float sb_area_pressure[4] = {0.8f, 1.0f, 1.5f, 2.5f};

/* xpbd_area: pressure rings at 0.8, 1, 1.5 and 2.5 times their rest area,
 * each with a crate on top; and a soft (compliant) one next to a stiff one. */
static bool sb_build_xpbd_area(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-xpbd_area", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  /* six cups (walls 2.1 m apart), each with a ring of radius 0.9 m and a
   * piston (a crate as wide as the cup) resting on it */
  for (int k = 0; k < 6; ++k) {
    float x = -7.5f + 3.0f * (float)k;
    sb_static_box(w, 0.15f, 2.0f, (sn_vec2){x - 1.2f, 2.0f}, 0.0f);
    sb_static_box(w, 0.15f, 2.0f, (sn_vec2){x + 1.2f, 2.0f}, 0.0f);
    sn_soft_body_id ring;
    if (k < 4) {
      /* made at pressure 1 and the radius that inflates (or deflates) to
       * 0.9 m; the update ramps the pressure over the first second */
      float r = 0.9f / sqrtf(sb_area_pressure[k]);
      sn_ring_def d = sb_jelly_def((sn_vec2){x, r + 0.1f}, r);
      ring = sn_create_ring(w, &d);
      if (!sb_soft(s, ring)) return false;
      st->joints[k] = sb_area_constraint(w, ring);
    } else {
      /* pressure 1: incompressible, and compliant */
      sn_ring_def d = sb_jelly_def((sn_vec2){x, 1.0f}, 0.9f);
      d.area_compliance = k == 4 ? 0.0f : 0.01f;
      if (!sb_soft(s, sn_create_ring(w, &d))) return false;
    }
    sb_box(s, 0.95f, 0.25f, (sn_vec2){x, 3.0f}, 2.0f);
  }
  return true;
}

static void sb_update_xpbd_area(sn_scene *s, sb_demo_state *st, double t) {
  double f = t < 1.0 ? t : 1.0;
  for (int k = 0; k < 4; ++k) {
    if (sn_constraint_is_valid(s->world, st->joints[k]))
      sn_constraint_set_param(s->world, st->joints[k], "pressure", 1.0 + f * (sb_area_pressure[k] - 1.0), 0.0);
  }
}

/* xpbd_bend: cantilevers clamped in a wall (their first two particles fixed)
 * from stiff to without bending; a stiff and a floppy rope dropped over a
 * box. */
static bool sb_build_xpbd_bend(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-xpbd_bend", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  /* stiff material wants XPBD sweeps: 4 per substep in this world */
  if (sn_world_set_soft_iterations(w, 4) != SN_OK) return false;
  const float bend[4] = {0.0f, 4e-2f, 1.5e-1f, -1.0f};
  for (int k = 0; k < 4; ++k) {
    /* a rope of 3.5 m from the top of a pillar, its first two particles
     * fixed (clamped), bending compliance from 0 (rigid angles) to none */
    float x = -11.0f + 4.5f * (float)k;
    sb_static_box(w, 0.3f, 4.5f, (sn_vec2){x - 0.2f, 4.5f}, 0.0f);
    sn_rope_def rd = sb_rope_def((sn_vec2){x, 9.1f}, (sn_vec2){x + 3.5f, 9.1f}, 19, 0.08f, 0.4f);
    rd.pin_start = true;
    rd.material.bend_compliance = bend[k];
    sn_soft_body_id rope = sn_create_rope(w, &rd);
    if (!sb_soft(s, rope)) return false;
    sn_particle_id first[2];
    sn_soft_body_get_particles(w, rope, first, 2);
    sn_particle_set_mass(w, first[1], 0.0f); /* clamp: the second particle fixed too */
  }
  /* two ropes dropped across a post: the stiff one balances, the floppy one drapes */
  for (int k = 0; k < 2; ++k) {
    float x = 9.0f + 4.5f * (float)k;
    sb_static_box(w, 0.4f, 1.5f, (sn_vec2){x, 1.5f}, 0.0f);
    sn_rope_def rd = sb_rope_def((sn_vec2){x - 2.0f, 4.0f}, (sn_vec2){x + 2.0f, 4.0f}, 21, 0.08f, 0.4f);
    rd.material.bend_compliance = k == 0 ? 1e-3f : -1.0f;
    if (!sb_soft(s, sn_create_rope(w, &rd))) return false;
  }
  return true;
}

/* xpbd_tether: the same long rope and the same cloth without tethers (left
 * of each pair) and with them (right), hanging from pins in a world of 1
 * substep: without tethers the links stretch, with them each particle stays
 * within its rest distance of the pins. The marks show the rest length (the
 * soft bodies do not collide with them). */
static bool sb_build_xpbd_tether(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-xpbd_tether", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  if (sn_world_set_substeps(w, 1) != SN_OK) return false;
  for (int k = 0; k < 2; ++k) {
    float x = -8.0f + 3.0f * (float)k;
    sb_static_box(w, 0.2f, 0.2f, (sn_vec2){x, 13.2f}, 0.0f);
    sn_rope_def rd = sb_rope_def((sn_vec2){x, 13.0f}, (sn_vec2){x, 3.0f}, 61, 0.05f, 2.0f);
    rd.pin_start = true;
    rd.tethers = k == 1;
    rd.body.collide_rigid = false;
    if (!sb_soft(s, sn_create_rope(w, &rd))) return false;
    sb_static_box(w, 0.5f, 0.04f, (sn_vec2){x, 2.96f}, 0.0f); /* 10 m below the pin */
  }
  for (int k = 0; k < 2; ++k) {
    float x = 0.0f + 5.0f * (float)k;
    sb_static_box(w, 1.8f, 0.1f, (sn_vec2){x + 1.65f, 12.1f}, 0.0f);
    sn_cloth_def cd = sn_default_cloth_def();
    cd.top_left = (sn_vec2){x, 12.0f};
    cd.columns = 12;
    cd.rows = 25;
    cd.spacing = 0.3f;
    cd.mass = 3.0f;
    cd.radius = 0.05f;
    cd.pins = SN_PIN_TOP_ROW;
    cd.tethers = k == 1;
    cd.material.shear_compliance = 1e-3f;
    cd.body.collide_rigid = false;
    if (!sb_soft(s, sn_create_cloth(w, &cd))) return false;
    sb_static_box(w, 1.8f, 0.04f, (sn_vec2){x + 1.65f, 4.76f}, 0.0f); /* the rest bottom */
  }
  return true;
}

/* attach: a rope tied between two crates over a round bar (a soft pulley);
 * a rigid pendulum with a soft tail; a cloth flag on a motorised turning bar. */
static bool sb_build_attach(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-attach", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  /* pulley: a static disc, a frictionless rope over it, a crate at each
   * end; the heavier one lands before the lighter one reaches the disc */
  const sn_vec2 hub = {-7.0f, 6.5f};
  sn_body_def pd = sn_default_body_def();
  pd.position = hub;
  sn_body_id pulley = sn_create_body(w, &pd);
  sn_circle disc = {{0.0f, 0.0f}, 0.8f};
  sn_shape_def sd = sn_default_shape_def();
  sn_create_circle_shape(w, pulley, &sd, &disc);
  enum { ARC = 21, SIDE = 28 }; /* particles over the top, and down each side */
  sn_soft_body_def sb = sn_default_soft_body_def();
  sb.friction = 0.0f;
  sn_soft_body_id rope = sn_create_soft_body(w, &sb);
  sn_particle_id ids[ARC + 2 * SIDE];
  int32_t np = 0;
  for (int32_t i = -SIDE; i < ARC + SIDE; ++i) {
    /* up the left side, over the top (half circle of radius 0.9), down the right */
    sn_particle_def q = sn_default_particle_def();
    q.mass = 0.005f; /* a light rope: its own weight barely pulls it over */
    q.radius = 0.06f;
    if (i < 0) {
      q.position = (sn_vec2){hub.x - 0.9f, hub.y + 0.14f * (float)i};
    } else if (i >= ARC) {
      q.position = (sn_vec2){hub.x + 0.9f, hub.y - 0.14f * (float)(i - ARC + 1)};
    } else {
      float a = SB_PI * (1.0f - (float)i / (float)(ARC - 1));
      q.position = (sn_vec2){hub.x + 0.9f * cosf(a), hub.y + 0.9f * sinf(a)};
    }
    ids[np] = sn_create_particle(w, rope, &q);
    if (!sn_particle_is_valid(w, ids[np++])) return false;
  }
  for (int32_t i = 0; i + 1 < np; ++i) {
    sn_particle_id pair[2] = {ids[i], ids[i + 1]};
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "xpbd_distance";
    cd.particles = pair;
    cd.particle_count = 2;
    if (!sn_constraint_is_valid(w, sn_create_constraint(w, &cd))) return false;
    sn_soft_body_add_edge(w, rope, ids[i], ids[i + 1]);
  }
  if (!sb_soft(s, rope)) return false;
  for (int k = 0; k < 2; ++k) {
    sn_particle_id end = ids[k == 0 ? 0 : np - 1];
    sn_vec2 e = sn_particle_get_position(w, end);
    float half = k == 0 ? 0.4f : 0.5f;
    sn_body_id crate = sb_box(s, half, half, (sn_vec2){e.x, e.y - half - 0.1f}, 1.0f);
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "attach";
    cd.bodies[0] = crate;
    cd.particles = &end;
    cd.particle_count = 1;
    if (!sn_constraint_is_valid(w, sn_create_constraint(w, &cd))) return false;
    s->constraint_count++;
  }
  /* pendulum with a soft tail */
  sn_body_id bob = sb_ball(s, 0.5f, (sn_vec2){4.0f, 10.0f}, 2.0f);
  sn_param_value rod[2] = {{"anchor_a", 0.0, 10.0}, {"anchor_b", 4.0, 10.0}};
  sb_joint(s, "distance", ground, bob, rod, 2);
  sn_rope_def rd = sb_rope_def((sn_vec2){4.5f, 10.0f}, (sn_vec2){7.5f, 10.0f}, 16, 0.05f, 0.3f);
  rd.body.collide_rigid = false;
  sn_soft_body_id tail = sn_create_rope(w, &rd);
  if (!sb_soft(s, tail)) return false;
  sn_particle_id head;
  sn_soft_body_get_particles(w, tail, &head, 1);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "attach";
  cd.bodies[0] = bob;
  cd.particles = &head;
  cd.particle_count = 1;
  if (!sn_constraint_is_valid(w, sn_create_constraint(w, &cd))) return false;
  s->constraint_count++;
  /* flag on a turning bar: the bar on a motorised revolute, the cloth's
   * left column attached along it */
  sn_body_def hd = sn_default_body_def(); /* a shapeless static hub: the joint draws short */
  hd.position = (sn_vec2){11.0f, 6.0f};
  sn_body_id hub2 = sn_create_body(w, &hd);
  sn_body_id bar = sb_box(s, 0.1f, 1.5f, (sn_vec2){11.0f, 6.0f}, 1.0f);
  sn_param_value m[4] = {
      {"anchor", 11.0, 6.0}, {"enable_motor", 1, 0}, {"motor_speed", 0.8, 0}, {"max_motor_torque", 2000, 0}};
  sb_joint(s, "revolute", hub2, bar, m, 4);
  sn_cloth_def fd = sn_default_cloth_def();
  fd.top_left = (sn_vec2){11.1f, 7.4f};
  fd.columns = 12;
  fd.rows = 8;
  fd.spacing = 0.25f;
  fd.mass = 0.5f;
  fd.radius = 0.04f;
  fd.tethers = false;
  fd.material.shear_compliance = -1.0f; /* no diagonals: in 2D shear links make a plate, a flag shears */
  fd.body.collide_rigid = false;
  sn_soft_body_id flag = sn_create_cloth(w, &fd);
  if (!sb_soft(s, flag)) return false;
  sn_particle_id fp[96];
  sn_soft_body_get_particles(w, flag, fp, 96);
  for (int r = 0; r < 8; ++r) {
    sn_constraint_def ad = sn_default_constraint_def();
    ad.type = "attach";
    ad.bodies[0] = bar;
    ad.particles = &fp[r * 12];
    ad.particle_count = 1;
    if (!sn_constraint_is_valid(w, sn_create_constraint(w, &ad))) return false;
    s->constraint_count++;
  }
  return true;
}

/* A ragdoll at p: torso, head, upper and lower arms and legs on revolute
 * joints with limits (elbows and knees bend one way), springs pulling each
 * joint toward its rest angle and motors at speed 0 with a small torque
 * (joint friction). */
static void sb_ragdoll(sn_scene *s, const sn_registry *reg, sn_vec2 p) {
  (void)reg;
  sn_body_id torso = sb_box(s, 0.25f, 0.45f, p, 1.0f);
  sn_body_id head = sb_ball(s, 0.22f, (sn_vec2){p.x, p.y + 0.7f}, 1.0f);
  typedef struct limb {
    sn_vec2 centre;
    float hx, hy;
    int parent; /* -1 torso, else an index into this table */
    sn_vec2 pivot;
    double lower, upper;
  } limb;
  const limb limbs[8] = {
      {{p.x - 0.4f, p.y + 0.15f}, 0.08f, 0.25f, -1, {p.x - 0.4f, p.y + 0.4f}, -2.5, 0.5}, /* upper arms */
      {{p.x + 0.4f, p.y + 0.15f}, 0.08f, 0.25f, -1, {p.x + 0.4f, p.y + 0.4f}, -0.5, 2.5},
      {{p.x - 0.4f, p.y - 0.35f}, 0.07f, 0.25f, 0, {p.x - 0.4f, p.y - 0.1f}, -2.4, 0.0}, /* forearms */
      {{p.x + 0.4f, p.y - 0.35f}, 0.07f, 0.25f, 1, {p.x + 0.4f, p.y - 0.1f}, 0.0, 2.4},
      {{p.x - 0.14f, p.y - 0.75f}, 0.1f, 0.3f, -1, {p.x - 0.14f, p.y - 0.45f}, -1.2, 0.6}, /* thighs */
      {{p.x + 0.14f, p.y - 0.75f}, 0.1f, 0.3f, -1, {p.x + 0.14f, p.y - 0.45f}, -0.6, 1.2},
      {{p.x - 0.14f, p.y - 1.35f}, 0.09f, 0.3f, 4, {p.x - 0.14f, p.y - 1.05f}, 0.0, 2.2}, /* shins */
      {{p.x + 0.14f, p.y - 1.35f}, 0.09f, 0.3f, 5, {p.x + 0.14f, p.y - 1.05f}, 0.0, 2.2},
  };
  sn_body_id parts[8];
  sn_param_value neck[8] = {{"anchor", p.x, p.y + 0.5f}, {"enable_limit", 1, 0},    {"lower_angle", -0.6, 0},
                            {"upper_angle", 0.6, 0},     {"enable_spring", 1, 0},   {"hertz", 3.0, 0},
                            {"damping_ratio", 0.7, 0},   {"max_motor_torque", 2, 0}};
  sb_joint(s, "revolute", torso, head, neck, 8);
  for (int k = 0; k < 8; ++k) {
    const limb *l = limbs + k;
    parts[k] = sb_box(s, l->hx, l->hy, l->centre, 1.0f);
    sn_param_value v[9] = {{"anchor", l->pivot.x, l->pivot.y}, {"enable_limit", 1, 0},  {"lower_angle", l->lower, 0},
                           {"upper_angle", l->upper, 0},       {"enable_spring", 1, 0}, {"hertz", 0.8, 0},
                           {"damping_ratio", 0.3, 0},          {"enable_motor", 1, 0},  {"max_motor_torque", 1, 0}};
    sb_joint(s, "revolute", l->parent < 0 ? torso : parts[l->parent], parts[k], v, 9);
  }
}

static bool sb_build_ragdoll(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-ragdoll", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 40.0f);
  /* steps to tumble down */
  for (int k = 0; k < 5; ++k)
    sb_static_box(w, 1.0f, 0.25f * (float)(5 - k), (sn_vec2){-6.0f + 2.0f * (float)k, 0.25f * (float)(5 - k)}, 0.0f);
  sb_static_box(w, 0.2f, 1.0f, (sn_vec2){6.0f, 1.0f}, 0.3f);
  for (int k = 0; k < 4; ++k) sb_ragdoll(s, reg, (sn_vec2){-6.0f + 3.5f * (float)k, 5.0f + 1.5f * (float)k});
  return true;
}

/* demo-gears: a pulley, a gear train, a ratchet, a rotary limit and a filter. */
static bool sb_build_gears(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-gears", reg)) return false;
  sn_world *w = s->world;
  sn_body_id ground = sb_ground(w, 40.0f);
  /* pulley: two crates on a 1:2 block and tackle, a ball dropped on the light one */
  sn_body_id light = sb_box(s, 0.4f, 0.4f, (sn_vec2){-12.0f, 5.0f}, 1.0f);
  sn_body_id heavy = sb_box(s, 0.4f, 0.4f, (sn_vec2){-9.0f, 5.0f}, 1.9f);
  sn_param_value pv[5] = {{"ground_anchor_a", -12.0, 10.0},
                          {"ground_anchor_b", -9.0, 10.0},
                          {"anchor_a", -12.0, 5.4},
                          {"anchor_b", -9.0, 5.4},
                          {"ratio", 2.0, 0}};
  sb_joint(s, "pulley", light, heavy, pv, 5);
  sb_ball(s, 0.3f, (sn_vec2){-12.0f, 8.0f}, 1.0f);
  /* gear train: a motor turns A; B meshes with it (ratio 2); C follows B by a belt (ratio -1) */
  sn_vec2 gc[3] = {{-4.0f, 5.0f}, {-2.5f, 5.0f}, {0.5f, 5.0f}};
  float gr[3] = {0.5f, 1.0f, 1.0f};
  sn_body_id g[3];
  for (int k = 0; k < 3; ++k) {
    g[k] = sb_ball(s, gr[k], gc[k], 1.0f);
    sn_param_value v[4] = {{"anchor", gc[k].x, gc[k].y},
                           {"enable_motor", k == 0, 0},
                           {"motor_speed", 2.0, 0},
                           {"max_motor_torque", 200, 0}};
    sb_joint(s, "revolute", ground, g[k], v, 4);
  }
  sn_param_value mesh = {"ratio", 2.0, 0}, belt = {"ratio", -1.0, 0};
  sb_joint(s, "gear", g[0], g[1], &mesh, 1);
  sb_joint(s, "gear", g[1], g[2], &belt, 1);
  /* ratchet: a wheel pushed back and forth by the script turns one way only */
  sn_body_id ratchet = sb_box(s, 1.0f, 0.1f, (sn_vec2){5.0f, 5.0f}, 1.0f);
  sn_param_value pin = {"anchor", 5.0, 5.0};
  sb_joint(s, "revolute", ground, ratchet, &pin, 1);
  sn_param_value teeth[2] = {{"ratchet", 0.4, 0}, {"phase", 0.0, 0}};
  sb_joint(s, "ratchet", ground, ratchet, teeth, 2);
  st->bodies[0] = ratchet;
  /* rotary limit: a seesaw that tips 0.4 rad each way under falling balls */
  sn_body_id lever = sb_box(s, 1.6f, 0.08f, (sn_vec2){9.0f, 3.0f}, 1.0f);
  sn_param_value lp = {"anchor", 9.0, 3.0};
  sb_joint(s, "revolute", ground, lever, &lp, 1);
  sn_param_value range[2] = {{"min", -0.4, 0}, {"max", 0.4, 0}};
  sb_joint(s, "rotary_limit", ground, lever, range, 2);
  for (int k = 0; k < 4; ++k) sb_ball(s, 0.2f, (sn_vec2){8.0f + 0.6f * (float)k, 6.0f + (float)k}, 1.0f);
  /* filter: of two balls dropped on a hanging plank, the ghost (filtered) falls through */
  sn_body_id plank = sb_box(s, 1.2f, 0.08f, (sn_vec2){14.0f, 3.0f}, 1.0f);
  sn_param_value hang[2] = {{"anchor_a", 12.8, 5.0}, {"anchor_b", 12.8, 3.0}};
  sb_joint(s, "distance", ground, plank, hang, 2);
  sn_param_value hang2[2] = {{"anchor_a", 15.2, 5.0}, {"anchor_b", 15.2, 3.0}};
  sb_joint(s, "distance", ground, plank, hang2, 2);
  sn_body_id solid = sb_ball(s, 0.25f, (sn_vec2){13.5f, 6.0f}, 1.0f);
  sn_body_id ghost = sb_ball(s, 0.25f, (sn_vec2){14.5f, 6.0f}, 1.0f);
  (void)solid;
  sb_joint(s, "filter", plank, ghost, NULL, 0);
  return true;
}

static void sb_update_gears(sn_scene *s, sb_demo_state *st, double t) {
  /* push the ratchet's bar one way for 1 s, the other way for 1 s */
  if (sn_body_is_valid(s->world, st->bodies[0]))
    sn_body_apply_torque(s->world, st->bodies[0], fmod(t, 2.0) < 1.0 ? 6.0f : -6.0f, true);
}

/* ------------------------------------------------------------- character */

/* A character controller on the world's mover queries: the capsule is not a
 * body; each frame it looks for ground below it, walks along the ground's
 * tangent (no gravity and no sliding on walkable ground), falls and jumps
 * in the air, is moved by collide, solve planes, cast (sn_world_collide_mover,
 * sn_solve_planes, sn_world_cast_mover), climbs steps up to SB_CH_STEP,
 * rides kinematic platforms and pushes soft bodies. */
#define SB_CH_RADIUS    0.3f
#define SB_CH_HEIGHT    0.8f /* between the centres of the capsule's ends */
#define SB_CH_SPEED     3.0f
#define SB_CH_JUMP      6.0f
#define SB_CH_GRAVITY   15.0f
#define SB_CH_STEP      0.25f
#define SB_CH_MAX_SLOPE 0.7071f /* cos 45 degrees: steeper is a wall */
#define SB_CH_PROBE     0.05f
#define SB_CH_PLANES    8
/* One-way platforms: shapes of this category. Rising through the air the
 * character's queries leave them out; otherwise only their planes that
 * hold it up count. */
#define SB_CH_ONE_WAY 2u

typedef struct sb_ch_ground {
  sn_shape_id shape;
  sn_vec2 normal;
  float fraction;
  bool hit;
} sb_ch_ground;

static float sb_ch_ground_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  (void)point;
  sb_ch_ground *g = context;
  g->shape = shape;
  g->normal = normal;
  g->fraction = fraction;
  g->hit = true;
  return fraction;
}

static sn_capsule sb_ch_capsule(sn_vec2 p) {
  sn_capsule c = {p, {p.x, p.y + SB_CH_HEIGHT}, SB_CH_RADIUS};
  return c;
}

static sn_shape_proxy sb_ch_proxy(sn_vec2 p) {
  sn_vec2 pts[2] = {p, {p.x, p.y + SB_CH_HEIGHT}};
  sn_shape_proxy proxy;
  sn_make_proxy(pts, 2, SB_CH_RADIUS, &proxy);
  return proxy;
}

/* The first shape within reach below the capsule. */
static sb_ch_ground sb_ch_probe_filtered(sn_world *w, sn_vec2 p, float reach, sn_query_filter filter) {
  sb_ch_ground g = {SN_NULL_SHAPE, {0.0f, 1.0f}, 1.0f, false};
  sn_shape_proxy proxy = sb_ch_proxy(p);
  sn_world_cast_shape(w, &proxy, (sn_vec2){0.0f, -reach}, filter, sb_ch_ground_fcn, &g);
  return g;
}

static sb_ch_ground sb_ch_probe(sn_world *w, sn_vec2 p, float reach) {
  return sb_ch_probe_filtered(w, p, reach, sn_default_query_filter());
}

static bool sb_ch_walkable(sb_ch_ground g) { return g.hit && g.normal.y >= SB_CH_MAX_SLOPE; }

typedef struct sb_ch_planes {
  sn_collision_plane planes[SB_CH_PLANES];
  int32_t count;
  sn_world *world;
  sn_query_filter filter;
} sb_ch_planes;

static bool sb_ch_plane_fcn(sn_shape_id shape, const sn_plane_result *plane, void *context) {
  sb_ch_planes *q = context;
  if (q->count == SB_CH_PLANES) return false;
  sn_shape_def sd;
  if (sn_shape_get_def(q->world, shape, &sd) == SN_OK && (sd.category_bits & SB_CH_ONE_WAY) &&
      plane->normal.y < SB_CH_MAX_SLOPE)
    return true; /* a one-way platform met from below or the side */
  q->planes[q->count++] = (sn_collision_plane){plane->normal, plane->separation, FLT_MAX, 0.0f, true};
  return true;
}

/* Moves the capsule towards p + delta as far as the world allows. */
static sn_vec2 sb_ch_slide(sn_world *w, sn_vec2 p, sn_vec2 delta, sb_ch_planes *planes) {
  sn_vec2 target = {p.x + delta.x, p.y + delta.y};
  for (int it = 0; it < 5; ++it) {
    planes->count = 0;
    sn_capsule c = sb_ch_capsule(p);
    planes->world = w;
    sn_world_collide_mover(w, &c, planes->filter, sb_ch_plane_fcn, planes);
    sn_plane_solver_result r;
    if (sn_solve_planes((sn_vec2){target.x - p.x, target.y - p.y}, planes->planes, planes->count, &r) != SN_OK) break;
    float fraction = 1.0f;
    if (sn_world_cast_mover(w, &c, r.translation, planes->filter, &fraction) != SN_OK) break;
    sn_vec2 step = {fraction * r.translation.x, fraction * r.translation.y};
    p.x += step.x;
    p.y += step.y;
    if (step.x * step.x + step.y * step.y < 1e-10f) break;
  }
  return p;
}

typedef struct sb_ch_push {
  sn_world *w;
  sn_vec2 velocity;
  sn_particle_id ids[64];
  sn_vec2 v[64];
  int32_t count;
} sb_ch_push;

/* Particles in the capsule's way get at least its velocity along the
 * contact normal (set after the query: its callback runs on a locked world). */
static bool sb_ch_push_fcn(const sn_particle_contact *c, void *context) {
  sb_ch_push *q = context;
  if (q->count == 64) return false;
  if (c->normal.x == 0.0f && c->normal.y == 0.0f) return true;
  sn_vec2 pv = sn_particle_get_velocity(q->w, c->particle);
  float want = q->velocity.x * c->normal.x + q->velocity.y * c->normal.y;
  float have = pv.x * c->normal.x + pv.y * c->normal.y;
  if (want <= have) return true;
  q->ids[q->count] = c->particle;
  q->v[q->count] = (sn_vec2){pv.x + (want - have) * c->normal.x, pv.y + (want - have) * c->normal.y};
  q->count++;
  return true;
}

/* One frame of the controller: dir is the walk input (-1, 0, 1). */
static void sb_character_update(sn_world *w, sb_character *ch, float dir, bool jump, float dt) {
  /* rising through the air: one-way platforms are not there */
  bool rising = !ch->grounded && ch->velocity.y > 0.0f;
  sn_query_filter filter = sn_default_query_filter();
  if (rising || jump) filter.mask_bits &= ~(uint64_t)SB_CH_ONE_WAY;
  sb_ch_ground g = sb_ch_probe_filtered(w, ch->position, SB_CH_PROBE, rising ? filter : sn_default_query_filter());
  ch->grounded = sb_ch_walkable(g) && !rising;
  ch->ground_normal = g.normal;
  sn_vec2 platform = {0.0f, 0.0f};
  if (ch->grounded && !(jump && ch->velocity.y <= 0.0f)) {
    sn_vec2 tangent = {g.normal.y, -g.normal.x};
    ch->velocity = (sn_vec2){dir * SB_CH_SPEED * tangent.x, dir * SB_CH_SPEED * tangent.y};
    sn_body_id body = sn_shape_get_body(w, g.shape);
    if (sn_body_get_type(w, body) == SN_BODY_KINEMATIC) platform = sn_body_get_linear_velocity(w, body);
  } else {
    if (ch->grounded) ch->velocity.y = SB_CH_JUMP;
    ch->grounded = false;
    if (dir != 0.0f) ch->velocity.x = dir * SB_CH_SPEED; /* air control; else the motion goes on */
    ch->velocity.y -= SB_CH_GRAVITY * dt;
  }
  sn_vec2 delta = {(ch->velocity.x + platform.x) * dt, (ch->velocity.y + platform.y) * dt};
  sb_ch_planes planes = {0};
  planes.filter = ch->velocity.y > 0.0f && !ch->grounded ? filter : sn_default_query_filter();
  sn_vec2 start = ch->position;
  ch->position = sb_ch_slide(w, start, delta, &planes);
  float moved = ch->position.x - start.x;
  if (ch->grounded && dir != 0.0f && fabsf(moved) < 0.5f * fabsf(delta.x)) {
    /* blocked: step up, across and back down onto walkable ground */
    sb_ch_planes trial_planes = {0};
    trial_planes.filter = sn_default_query_filter();
    sn_vec2 p = sb_ch_slide(w, start, (sn_vec2){0.0f, SB_CH_STEP}, &trial_planes);
    p = sb_ch_slide(w, p, (sn_vec2){delta.x, 0.0f}, &trial_planes);
    p = sb_ch_slide(w, p, (sn_vec2){0.0f, -(SB_CH_STEP + SB_CH_PROBE)}, &trial_planes);
    if (sb_ch_walkable(sb_ch_probe(w, p, SB_CH_PROBE)) && fabsf(p.x - start.x) > fabsf(moved) + 1e-4f) {
      ch->position = p;
      planes = trial_planes;
    }
  }
  if (ch->grounded) { /* walking down a slope: stay on it */
    sb_ch_ground snap = sb_ch_probe(w, ch->position, SB_CH_STEP);
    if (sb_ch_walkable(snap)) ch->position.y -= snap.fraction * SB_CH_STEP;
  }
  sn_vec2 clipped;
  if (sn_clip_vector(ch->velocity, planes.planes, planes.count, &clipped) == SN_OK) ch->velocity = clipped;
  ch->planes = planes.count;
  /* push the soft bodies it walks into */
  sb_ch_push push;
  memset(&push, 0, sizeof push);
  push.w = w;
  push.velocity = (sn_vec2){dir * SB_CH_SPEED, 0.0f};
  sn_shape_proxy proxy = sb_ch_proxy(ch->position);
  sn_world_overlap_particles_shape(w, &proxy, sb_ch_push_fcn, &push);
  for (int32_t i = 0; i < push.count; ++i) sn_particle_set_velocity(w, push.ids[i], push.v[i]);
}

/* A course: a 30 degree slope, a 0.2 m step, a kinematic platform over a
 * gap, a one-way ledge, a wall, and a jelly to push. The character runs it on a script:
 * right, with a jump over the gap onto the platform, then back. */
static bool sb_build_character(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-character", reg)) return false;
  sn_world *w = s->world;
  sb_static_box(w, 12.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f);    /* floor x -12 .. 12 */
  sb_static_box(w, 2.0f, 0.1f, (sn_vec2){-7.0f, 0.1f}, 0.0f);     /* 0.2 m step */
  sb_static_box(w, 3.0f, 0.5f, (sn_vec2){-3.2f, -0.2f}, 0.5236f); /* 30 degree ramp */
  sb_static_box(w, 0.5f, 3.0f, (sn_vec2){12.5f, 3.0f}, 0.0f);     /* walls */
  sb_static_box(w, 0.5f, 3.0f, (sn_vec2){-12.5f, 3.0f}, 0.0f);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_KINEMATIC;
  bd.position = (sn_vec2){2.5f, 0.75f};
  sn_body_id platform = sn_create_body(w, &bd);
  sn_polygon plank;
  sn_make_box(1.5f, 0.2f, &plank);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, platform, &sd, &plank);
  st->bodies[0] = platform;
  /* a one-way platform the character jumps up through and lands on */
  sn_body_def od = sn_default_body_def();
  od.position = (sn_vec2){6.0f, 0.9f};
  sn_body_id one_way = sn_create_body(w, &od);
  sn_polygon ledge;
  sn_make_box(1.0f, 0.1f, &ledge);
  sn_shape_def ow = sn_default_shape_def();
  ow.category_bits = SB_CH_ONE_WAY;
  sn_create_polygon_shape(w, one_way, &ow, &ledge);
  sn_ring_def jelly = sb_jelly_def((sn_vec2){9.0f, 0.7f}, 0.6f);
  if (!sb_soft(s, sn_create_ring(w, &jelly))) return false;
  for (int i = 0; i < 4; ++i) sb_box(s, 0.25f, 0.25f, (sn_vec2){-10.0f + 0.6f * (float)i, 0.25f}, 1.0f);
  memset(&st->character, 0, sizeof st->character);
  st->character.position = (sn_vec2){-11.0f, SB_CH_RADIUS + 0.01f};
  s->default_steps = 600;
  return true;
}

static void sb_update_character(sn_scene *s, sb_demo_state *st, double t) {
  sn_world *w = s->world;
  /* the platform shuttles between x = 1.5 and 3.5 */
  if (sn_body_is_valid(w, st->bodies[0])) {
    float vx = sinf((float)t * 1.2f) >= 0.0f ? 1.0f : -1.0f;
    sn_body_set_linear_velocity(w, st->bodies[0], (sn_vec2){vx, 0.0f});
  }
  /* script: right for 8 s, jumping now and then, then left, and again */
  double phase = fmod(t, 16.0);
  float dir = phase < 8.0 ? 1.0f : -1.0f;
  bool jump = fmod(t, 2.0) < SB_DT;
  sb_character_update(w, &st->character, dir, jump, SB_DT);
}

static void sb_draw_capsule(sb_renderer *r, sn_vec2 a, sn_vec2 b, float radius, uint32_t rgba) {
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    float a0 = SB_PI * (float)i / (float)n, a1 = SB_PI * (float)(i + 1) / (float)n;
    sn_vec2 top0 = {b.x + radius * cosf(a0), b.y + radius * sinf(a0)};
    sn_vec2 top1 = {b.x + radius * cosf(a1), b.y + radius * sinf(a1)};
    sn_vec2 bot0 = {a.x - radius * cosf(a0), a.y - radius * sinf(a0)};
    sn_vec2 bot1 = {a.x - radius * cosf(a1), a.y - radius * sinf(a1)};
    sb_render_segment(r, top0, top1, rgba);
    sb_render_segment(r, bot0, bot1, rgba);
  }
  sb_render_segment(r, (sn_vec2){a.x - radius, a.y}, (sn_vec2){b.x - radius, b.y}, rgba);
  sb_render_segment(r, (sn_vec2){a.x + radius, a.y}, (sn_vec2){b.x + radius, b.y}, rgba);
}

static void sb_draw_character(sn_scene *s, const sb_demo_state *st, sb_renderer *r) {
  (void)s;
  const sb_character *ch = &st->character;
  sn_vec2 top = {ch->position.x, ch->position.y + SB_CH_HEIGHT};
  sb_draw_capsule(r, ch->position, top, SB_CH_RADIUS, ch->grounded ? 0x60e060ffu : 0xe0c040ffu);
  sn_vec2 c = {ch->position.x, ch->position.y + 0.5f * SB_CH_HEIGHT};
  sb_render_segment(r, c, (sn_vec2){c.x + 0.2f * ch->velocity.x, c.y + 0.2f * ch->velocity.y}, 0xff8080ffu);
}

/* ----------------------------------------------------------------- casts */

/* Static shapes and a pile of bodies, with a fan of rays (closest hits and
 * their normals) from a point circling the scene and a capsule cast
 * sweeping across it, drawn where it first touches. */
static bool sb_build_casts(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-casts", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 12.0f);
  sb_static_box(w, 1.0f, 0.4f, (sn_vec2){-5.0f, 3.0f}, 0.4f);
  sb_static_box(w, 0.6f, 0.6f, (sn_vec2){4.0f, 4.0f}, 0.8f);
  sb_pyramid(s, 5, 0.0f, 0.3f);
  for (int i = 0; i < 6; ++i) sb_ball(s, 0.3f + 0.05f * (float)i, (sn_vec2){-6.0f + 2.2f * (float)i, 6.0f}, 1.0f);
  return true;
}

static void sb_update_casts(sn_scene *s, sb_demo_state *st, double t) {
  (void)s;
  st->time = t;
}

static void sb_draw_casts(sn_scene *s, const sb_demo_state *st, sb_renderer *r) {
  sn_world *w = s->world;
  float t = (float)st->time;
  sn_vec2 origin = {6.0f * cosf(0.3f * t), 5.0f + 2.0f * sinf(0.3f * t)};
  for (int i = 0; i < 24; ++i) {
    float a = 2.0f * SB_PI * (float)i / 24.0f;
    sn_vec2 d = {12.0f * cosf(a), 12.0f * sinf(a)};
    sn_ray_result hit;
    if (sn_world_cast_ray_closest(w, origin, d, sn_default_query_filter(), &hit) != SN_OK) continue;
    if (hit.hit) {
      sb_render_segment(r, origin, hit.point, 0xf0f070ffu);
      sb_render_segment(r, hit.point, (sn_vec2){hit.point.x + 0.3f * hit.normal.x, hit.point.y + 0.3f * hit.normal.y},
                        0xff6060ffu);
    } else {
      sb_render_segment(r, origin, (sn_vec2){origin.x + d.x, origin.y + d.y}, 0x707070ffu);
    }
  }
  /* a capsule swept down from above, its x moving back and forth */
  sn_vec2 start = {8.0f * sinf(0.2f * t), 10.0f};
  sn_vec2 pts[2] = {{start.x - 0.5f, start.y}, {start.x + 0.5f, start.y}};
  sn_shape_proxy proxy;
  if (sn_make_proxy(pts, 2, 0.3f, &proxy) != SN_OK) return;
  sb_ch_ground hit = {SN_NULL_SHAPE, {0.0f, 0.0f}, 1.0f, false};
  sn_vec2 sweep = {0.0f, -10.0f};
  sn_world_cast_shape(w, &proxy, sweep, sn_default_query_filter(), sb_ch_ground_fcn, &hit);
  float f = hit.hit ? hit.fraction : 1.0f;
  sn_vec2 a = {pts[0].x + f * sweep.x, pts[0].y + f * sweep.y}, b = {pts[1].x + f * sweep.x, pts[1].y + f * sweep.y};
  sb_render_segment(r, (sn_vec2){start.x, start.y}, (sn_vec2){start.x, a.y}, 0x8080ffffu);
  /* the capsule lying on its side: draw it as two end circles and sides */
  const int n = 12;
  for (int i = 0; i < 2 * n; ++i) {
    float a0 = SB_PI * (float)i / (float)n, a1 = SB_PI * (float)(i + 1) / (float)n;
    sn_vec2 c = i < n ? b : a; /* right cap for angles 0..pi, left cap for pi..2 pi */
    sb_render_segment(r, (sn_vec2){c.x + 0.3f * sinf(a0), c.y + 0.3f * cosf(a0)},
                      (sn_vec2){c.x + 0.3f * sinf(a1), c.y + 0.3f * cosf(a1)}, hit.hit ? 0x80ff80ffu : 0xa0a0a0ffu);
  }
  sb_render_segment(r, (sn_vec2){a.x, a.y + 0.3f}, (sn_vec2){b.x, b.y + 0.3f}, hit.hit ? 0x80ff80ffu : 0xa0a0a0ffu);
  sb_render_segment(r, (sn_vec2){a.x, a.y - 0.3f}, (sn_vec2){b.x, b.y - 0.3f}, hit.hit ? 0x80ff80ffu : 0xa0a0a0ffu);
}

/* Conveyors carry crates right, up a ramp and onto a kinematic lift that a
 * target path drives up and down; balls with rising rolling resistance
 * roll out on the ground below. */
static bool sb_build_conveyor(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-conveyor", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 30.0f);
  /* belts: three static boxes with surface speed, the last one uphill */
  const float speeds[3] = {2.0f, 3.0f, 3.0f};
  const sn_vec2 at[3] = {{-10.0f, 4.6f}, {-4.0f, 4.6f}, {1.9f, 5.5f}};
  const float angles[3] = {0.0f, 0.0f, 0.3f};
  for (int i = 0; i < 3; ++i) {
    sn_body_id belt = sb_static_box(w, 3.0f, 0.2f, at[i], angles[i]);
    sn_shape_id shape;
    sn_body_get_shapes(w, belt, &shape, 1);
    sn_shape_set_tangent_speed(w, shape, speeds[i]);
    sn_shape_set_friction(w, shape, 1.0f);
  }
  for (int i = 0; i < 6; ++i) sb_box(s, 0.35f, 0.35f, (sn_vec2){-12.0f + 1.1f * (float)i, 5.2f}, 1.0f);
  /* the lift: a kinematic platform at the top of the ramp */
  sn_body_def ld = sn_default_body_def();
  ld.type = SN_BODY_KINEMATIC;
  ld.position = (sn_vec2){7.0f, 6.2f};
  sn_body_id lift = sn_create_body(w, &ld);
  sn_polygon deck;
  sn_make_box(1.5f, 0.15f, &deck);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 1.0f;
  sn_create_polygon_shape(w, lift, &sd, &deck);
  st->bodies[0] = lift;
  /* rolling resistance 0, 0.02, 0.05, 0.1: the same push, shorter roll-outs */
  for (int i = 0; i < 4; ++i) {
    sn_body_id ball = sb_dynamic(w, (sn_vec2){-14.0f, 0.4f + 1.0f * (float)i}, 0.0f);
    sn_circle c = {{0.0f, 0.0f}, 0.4f};
    sn_shape_def bs = sn_default_shape_def();
    bs.rolling_resistance = (float[]){0.0f, 0.02f, 0.05f, 0.1f}[i];
    sn_create_circle_shape(w, ball, &bs, &c);
    sn_body_set_linear_velocity(w, ball, (sn_vec2){4.0f, 0.0f});
    sb_track(s, ball);
    if (i < 3) {
      /* on shelves, so the four lanes do not meet */
      sb_static_box(w, 10.0f, 0.05f, (sn_vec2){-6.0f, 1.0f * (float)(i + 1) - 0.05f}, 0.0f);
    }
  }
  return true;
}

static void sb_update_conveyor(sn_scene *s, sb_demo_state *st, double t) {
  /* up and down 2 m every 6 s, tilting a little */
  double y = 6.2 + 1.0 - cos(t * 2.0 * SB_PI / 6.0);
  double a = 0.1 * sin(t * 2.0 * SB_PI / 6.0);
  sn_body_set_target_transform(s->world, st->bodies[0], (sn_vec2){7.0f, (float)y}, (float)a, SB_DT);
}

/* A pyramid, a stack of balls and two jellies; a blast every 3 s under
 * the pyramid's left foot, alternating sides. */
static bool sb_build_explosion(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-explosion", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 30.0f);
  sb_static_box(w, 0.3f, 4.0f, (sn_vec2){-14.0f, 4.0f}, 0.0f);
  sb_static_box(w, 0.3f, 4.0f, (sn_vec2){14.0f, 4.0f}, 0.0f);
  sb_pyramid(s, 8, -5.0f, 0.4f);
  for (int i = 0; i < 8; ++i) sb_ball(s, 0.3f, (sn_vec2){5.0f + 0.1f * (float)(i & 1), 0.3f + 0.62f * (float)i}, 1.0f);
  for (int i = 0; i < 2; ++i) {
    sn_ring_def rd = sb_jelly_def((sn_vec2){-10.0f + 20.0f * (float)i, 1.2f}, 0.8f);
    if (!sb_soft(s, sn_create_ring(w, &rd))) return false;
  }
  return true;
}

static void sb_update_explosion(sn_scene *s, sb_demo_state *st, double t) {
  int due = (int)(t / 3.0);
  if (due <= st->events) return;
  st->events = due;
  sn_explosion_def def = sn_default_explosion_def();
  def.position = (sn_vec2){due % 2 ? -5.0f : 5.0f, 0.2f};
  def.radius = 1.0f;
  def.falloff = 5.0f;
  def.impulse_per_length = 12.0f;
  sn_world_explode(s->world, &def);
}

/* Sensor zone: a static sensor band over a box of rigid shapes and jellies
 * dropped through it, and a kinematic sensor bar sweeping over the floor.
 * What is inside a sensor is lit (sb_render_sensors): shapes from
 * sn_shape_get_sensor_overlaps, jellies from the sensor events. */
static bool sb_build_sensor(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-sensor", reg)) return false;
  sn_world *w = s->world;
  sb_static_box(w, 10.0f, 0.5f, (sn_vec2){0.0f, 0.5f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){-10.5f, 8.0f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){10.5f, 8.0f}, 0.0f);
  /* the zone: from y = 4 to 7, right across */
  sn_body_def bd = sn_default_body_def();
  sn_body_id zone_body = sn_create_body(w, &bd);
  sn_polygon zone;
  sn_make_offset_box(9.5f, 1.5f, (sn_vec2){0.0f, 5.5f}, 0.0f, &zone);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  if (sn_create_polygon_shape(w, zone_body, &zd, &zone).index1 == 0) return false;
  /* the sweeper: a kinematic sensor bar along the floor */
  bd.type = SN_BODY_KINEMATIC;
  bd.position = (sn_vec2){-8.0f, 2.0f};
  st->bodies[0] = sn_create_body(w, &bd);
  sn_polygon bar;
  sn_make_box(0.6f, 1.0f, &bar);
  if (sn_create_polygon_shape(w, st->bodies[0], &zd, &bar).index1 == 0) return false;
  for (int k = 0; k < 12; ++k) {
    sn_vec2 p = {-8.0f + 1.45f * (float)k, 9.0f + 1.3f * (float)(k % 4)};
    if (k % 3 == 1) {
      sn_ring_def d = sb_jelly_def(p, 0.6f);
      if (!sb_soft(s, sn_create_ring(w, &d))) return false;
    } else if (k % 3 == 2) {
      sb_ball(s, 0.45f, p, 1.0f);
    } else {
      sb_box(s, 0.45f, 0.45f, p, 1.0f);
    }
  }
  st->lit_soft_count = 0;
  return true;
}

/* Keeps the soft bodies inside a sensor from the last step's events, and
 * drives the sweeper back and forth (8 m each way at 2 m/s). */
static void sb_update_sensor(sn_scene *s, sb_demo_state *st, double t) {
  sn_world *w = s->world;
  sn_sensor_events ev = sn_world_get_sensor_events(w);
  for (int32_t i = 0; i < ev.end_count; ++i) {
    if (ev.end_events[i].soft_body.index1 == 0) continue;
    for (int32_t k = 0; k < st->lit_soft_count; ++k) {
      if (memcmp(&st->lit_soft[k], &ev.end_events[i].soft_body, sizeof(sn_soft_body_id)) == 0) {
        st->lit_soft[k] = st->lit_soft[--st->lit_soft_count];
        break;
      }
    }
  }
  for (int32_t i = 0; i < ev.begin_count; ++i) {
    if (ev.begin_events[i].soft_body.index1 == 0 || st->lit_soft_count == 16) continue;
    st->lit_soft[st->lit_soft_count++] = ev.begin_events[i].soft_body;
  }
  if (!sn_body_is_valid(w, st->bodies[0])) return;
  float v = fmod(t, 16.0) < 8.0 ? 2.0f : -2.0f;
  sn_body_set_linear_velocity(w, st->bodies[0], (sn_vec2){v, 0.0f});
}

/* One-way platforms: solid only for what comes from above (the pre-solve
 * callback keeps a platform's contact when its normal points up, from the
 * platform to the other shape). Balls are thrown up through them every few
 * seconds and land on top. */
static const char sb_platform_tag = 'P'; /* a platform shape's user data */

static bool sb_one_way(sn_shape_id a, sn_shape_id b, const sn_contact_manifold *m, void *context) {
  sn_world *w = context;
  if (sn_shape_get_user_data(w, a) == &sb_platform_tag) return m->normal.y > 0.7f;
  if (sn_shape_get_user_data(w, b) == &sb_platform_tag) return -m->normal.y > 0.7f;
  return true;
}

static bool sb_build_one_way(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "demo-one_way", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 20.0f);
  sn_body_def bd = sn_default_body_def();
  sn_body_id shelf = sn_create_body(w, &bd);
  sn_shape_def pd = sn_default_shape_def();
  pd.enable_pre_solve_events = true;
  pd.user_data = (void *)&sb_platform_tag;
  for (int k = 0; k < 3; ++k) {
    sn_polygon slab;
    sn_make_offset_box(2.5f, 0.15f, (sn_vec2){-6.0f + 6.0f * (float)k, 3.0f + 2.5f * (float)k}, 0.0f, &slab);
    if (sn_create_polygon_shape(w, shelf, &pd, &slab).index1 == 0) return false;
  }
  if (sn_world_set_pre_solve(w, sb_one_way, w) != SN_OK) return false;
  for (int k = 0; k < 4; ++k) st->bodies[k] = sb_ball(s, 0.35f, (sn_vec2){-7.0f + 4.0f * (float)k, 0.35f}, 1.0f);
  for (int k = 0; k < 6; ++k) sb_box(s, 0.4f, 0.4f, (sn_vec2){-7.5f + 6.0f * (float)(k % 3), 12.0f + (float)k}, 1.0f);
  return true;
}

/* Every 3 s each ball near the floor is thrown up (far enough to pass the platform above it). */
static void sb_update_one_way(sn_scene *s, sb_demo_state *st, double t) {
  if ((long)(t / SB_DT + 0.5) % 180 != 0) return;
  for (int k = 0; k < 4; ++k) {
    if (!sn_body_is_valid(s->world, st->bodies[k])) continue;
    if (sn_body_get_position(s->world, st->bodies[k]).y < 1.0f)
      sn_body_set_linear_velocity(s->world, st->bodies[k], (sn_vec2){0.0f, 9.0f + 2.0f * (float)(k % 3)});
  }
}

static const sb_scene_info sb_demos[] = {
    {"showcase",
     "default: rigid + soft: jelly on a pyramid, rope bridge, cloth and pendulum, see-saw",
     false,
     sb_build_showcase,
     NULL,
     "revolute distance xpbd_distance xpbd_area xpbd_tether",
     {0.0f, 7.5f},
     19.0f,
     NULL},
    {"demo-revolute",
     "revolute: pendulum chain, motorised spinner, limited door",
     false,
     sb_build_revolute,
     NULL,
     "revolute",
     {2.0f, 6.0f},
     16.0f,
     NULL},
    {"demo-prismatic",
     "prismatic: motorised elevator with limits, slider on a 30 degree rail",
     false,
     sb_build_prismatic,
     sb_update_prismatic,
     "prismatic",
     {0.0f, 4.5f},
     12.0f,
     NULL},
    {"demo-wheel",
     "wheel: two cars with spring suspension and motors on a bumpy road",
     false,
     sb_build_wheel,
     NULL,
     "wheel",
     {-6.0f, 3.0f},
     14.0f,
     NULL},
    {"demo-distance",
     "distance: rod pendulum, soft spring, rope with slack, soft chain",
     false,
     sb_build_distance,
     NULL,
     "distance",
     {2.0f, 7.0f},
     14.0f,
     NULL},
    {"demo-weld",
     "weld: a rigid and a soft cantilever beam",
     false,
     sb_build_weld,
     NULL,
     "weld",
     {-3.0f, 5.0f},
     12.0f,
     NULL},
    {"demo-motor",
     "motor: a paddle driven round a circle through a pile of balls",
     false,
     sb_build_motor,
     sb_update_motor,
     "motor",
     {0.0f, 4.0f},
     12.0f,
     NULL},
    {"demo-mouse",
     "mouse: a scripted hand drags a crate through a pyramid",
     false,
     sb_build_mouse,
     sb_update_mouse,
     "mouse",
     {0.0f, 3.5f},
     10.0f,
     NULL},
    {"demo-jelly",
     "mixed: jellies and soft boxes dropped on a rigid pyramid in a box",
     false,
     sb_build_jelly,
     NULL,
     "xpbd_distance xpbd_area",
     {0.0f, 5.6f},
     12.6f,
     NULL},
    {"demo-xpbd_distance",
     "xpbd_distance: soft chain, hammocks with a tear force (a heavy crate tears one), bungee",
     false,
     sb_build_xpbd_distance,
     NULL,
     "xpbd_distance xpbd_area",
     {1.5f, 6.8f},
     14.0f,
     NULL},
    {"demo-xpbd_area",
     "xpbd_area: pistons on rings at pressure 0.8, 1, 1.5, 2.5; then incompressible and compliant",
     false,
     sb_build_xpbd_area,
     sb_update_xpbd_area,
     "xpbd_distance xpbd_area",
     {0.0f, 2.6f},
     10.5f,
     NULL},
    {"demo-xpbd_bend",
     "xpbd_bend: clamped ropes from rigid to no bending; a stiff and a floppy rope over posts",
     false,
     sb_build_xpbd_bend,
     NULL,
     "xpbd_distance xpbd_bend",
     {2.1f, 6.0f},
     15.5f,
     NULL},
    {"demo-xpbd_tether",
     "xpbd_tether: ropes and cloths at 1 substep without (left) and with tethers (right)",
     false,
     sb_build_xpbd_tether,
     NULL,
     "xpbd_distance xpbd_tether",
     {-0.5f, 7.9f},
     14.0f,
     NULL},
    {"demo-attach",
     "attach: rope over a pulley tying two crates, pendulum with a soft tail, flag on a turning bar",
     false,
     sb_build_attach,
     NULL,
     "attach xpbd_distance distance revolute",
     {2.0f, 6.5f},
     13.0f,
     NULL},
    {"demo-ragdoll",
     "revolute: ragdolls with joint limits, springs toward their rest pose and motor friction, down steps",
     false,
     sb_build_ragdoll,
     NULL,
     "revolute",
     {0.0f, 4.0f},
     14.0f,
     NULL},
    {"demo-gears",
     "pulley (1:2 block and tackle), gear train with a belt, ratchet pushed both ways, rotary limit, filter",
     false,
     sb_build_gears,
     sb_update_gears,
     "revolute pulley gear ratchet rotary_limit distance filter",
     {1.0f, 5.0f},
     16.0f,
     NULL},
    {"demo-character",
     "character mover: a capsule walks a slope and a step, rides a platform, jumps, pushes a jelly",
     false,
     sb_build_character,
     sb_update_character,
     "xpbd_distance xpbd_area",
     {0.0f, 2.5f},
     12.0f,
     sb_draw_character},
    {"demo-casts",
     "queries: a fan of closest-hit rays with normals, a capsule cast sweeping the scene",
     false,
     sb_build_casts,
     sb_update_casts,
     "",
     {0.0f, 4.5f},
     14.0f,
     sb_draw_casts},
    {"demo-conveyor",
     "conveyors carry crates up a ramp onto a lift driven by targets; balls with rolling resistance 0 to 0.1",
     false,
     sb_build_conveyor,
     sb_update_conveyor,
     "",
     {-3.0f, 4.0f},
     16.0f,
     NULL},
    {"demo-explosion",
     "explosions every 3 s: a pyramid, a stack of balls and two jellies blown apart",
     false,
     sb_build_explosion,
     sb_update_explosion,
     "xpbd_distance xpbd_area",
     {0.0f, 4.0f},
     15.0f,
     NULL},
    {"demo-sensor",
     "sensor zone: shapes and jellies falling through a sensor band are lit; a kinematic sensor sweeps the floor",
     false,
     sb_build_sensor,
     sb_update_sensor,
     "xpbd_distance xpbd_area",
     {0.0f, 7.0f},
     16.0f,
     NULL},
    {"demo-one_way",
     "one-way platform: balls thrown up pass through the platforms and land on them (pre-solve callback)",
     false,
     sb_build_one_way,
     sb_update_one_way,
     "",
     {0.0f, 5.0f},
     14.0f,
     NULL},
};
#define SB_DEMO_COUNT ((int32_t)(sizeof(sb_demos) / sizeof(sb_demos[0])))

/* ---------------------------------------------------------- standard list */

static const char *sb_standard_description(const char *name) {
  if (strcmp(name, "pyramid") == 0) return "standard: pyramid of 20 rows (docs/benchmark.md 1)";
  if (strcmp(name, "tower") == 0) return "standard: tower of 20 boxes (docs/benchmark.md 2)";
  if (strcmp(name, "rain") == 0) return "standard: 2000 balls and boxes into a container (docs/benchmark.md 3)";
  if (strcmp(name, "ratio") == 0) return "standard: 1600:1 mass ratio stack (docs/benchmark.md 4)";
  if (strcmp(name, "chain") == 0) return "standard: 100-link revolute chain";
  if (strcmp(name, "cards") == 0) return "standard: house of cards, 3 storeys, cards leaning 68 degrees";
  if (strcmp(name, "cloth") == 0) return "standard: 32 x 32 cloth pinned at two corners (docs/benchmark.md 5)";
  if (strcmp(name, "jelly") == 0) return "standard: 50 pressure-ring jellies in a box (docs/benchmark.md 6)";
  if (strcmp(name, "mixed") == 0)
    return "standard: rope trampoline with boxes, pyramid and a jelly (docs/benchmark.md 7)";
  /* the Box2D v3 suite (docs/benchmark.md, "Box2D v3 suite") */
  if (strcmp(name, "box2d-joint_grid") == 0) return "Box2D v3 suite: 100 x 100 circles joined by 19800 revolutes";
  if (strcmp(name, "box2d-large_pyramid") == 0) return "Box2D v3 suite: pyramid of 5050 boxes";
  if (strcmp(name, "box2d-many_pyramids") == 0) return "Box2D v3 suite: 400 pyramids of 55 boxes on 20 floors";
  if (strcmp(name, "box2d-rain") == 0) return "Box2D v3 suite: ragdolls raining on 5 floors, recycled every 8 steps";
  if (strcmp(name, "box2d-smash") == 0) return "Box2D v3 suite: a heavy ram into 9600 sleeping tiles, no gravity";
  if (strcmp(name, "box2d-spinner") == 0) return "Box2D v3 suite: motor-driven bar stirring 3038 pieces in a ring";
  if (strcmp(name, "box2d-tumbler") == 0) return "Box2D v3 suite: 2025 small boxes in a turning square drum";
  return "standard scene";
}

/* Views of the standard scenes whose bodies move far (0 height = fit). */
static void sb_standard_view(const char *name, sn_vec2 *center, float *height) {
  *center = (sn_vec2){0.0f, 0.0f};
  *height = 0.0f;
  if (strcmp(name, "chain") == 0) {
    *center = (sn_vec2){0.0f, 34.0f};
    *height = 56.0f;
  }
  if (strcmp(name, "cards") == 0) {
    *center = (sn_vec2){0.0f, 1.4f};
    *height = 3.6f;
  }
  if (strcmp(name, "jelly") == 0) { /* the left end of the 40 m box: jellies big enough to see */
    *center = (sn_vec2){-12.0f, 3.8f};
    *height = 10.0f;
  }
}

/* The Box2D v3 suite scenes' per-step callback (rain spawns and recycles
 * ragdolls), with the step index the scene time gives. */
static void sb_box2d_update(sn_scene *scene, sb_demo_state *state, double time) {
  (void)state;
  sn_box2d_scene_step_callback(scene, (int32_t)lround(time / (double)SB_DT));
}

/* Standard entries are made on first use from sinew_scenes' names; the
 * table is the sandbox's (static, read-only after it is filled once). */
#define SB_MAX_STANDARD 64
typedef struct sb_catalog {
  sb_scene_info standard[SB_MAX_STANDARD];
  int32_t standard_count;
  bool ready;
} sb_catalog;

static sb_catalog *sb_get_catalog(void) {
  static sb_catalog catalog; /* sandbox app state, not the engine's */
  if (!catalog.ready) {
    int32_t n = sn_scene_count();
    for (int32_t i = 0; i < n && catalog.standard_count < SB_MAX_STANDARD; ++i) {
      sb_scene_info *e = catalog.standard + catalog.standard_count++;
      memset(e, 0, sizeof(*e));
      e->name = sn_scene_name(i);
      e->description = sb_standard_description(e->name);
      e->standard = true;
      e->plugins = "";
      if (sn_box2d_scene_is(e->name)) e->update = sb_box2d_update;
      sb_standard_view(e->name, &e->view_center, &e->view_height);
    }
    catalog.ready = true;
  }
  return &catalog;
}

int32_t sb_scene_count(void) { return sb_get_catalog()->standard_count + SB_DEMO_COUNT; }

const sb_scene_info *sb_scene_at(int32_t index) {
  sb_catalog *c = sb_get_catalog();
  if (index < 0) return NULL;
  if (index < c->standard_count) return c->standard + index;
  index -= c->standard_count;
  return index < SB_DEMO_COUNT ? sb_demos + index : NULL;
}

const sb_scene_info *sb_scene_find(const char *name) {
  for (int32_t i = 0; i < sb_scene_count(); ++i) {
    if (strcmp(sb_scene_at(i)->name, name) == 0) return sb_scene_at(i);
  }
  return NULL;
}

const char *sb_default_scene(void) { return "showcase"; }

bool sb_scene_build(const sb_scene_info *info, sn_scene *scene, sb_demo_state *state, const sn_registry *registry,
                    char *err, size_t cap) {
  memset(state, 0, sizeof(*state));
  if (info->standard) {
    if (sn_scene_build_ex(scene, info->name, 0, 0, false, registry)) return true;
    snprintf(err, cap, "scene '%s' could not be built (see the message above)", info->name);
    sn_scene_destroy(scene);
    return false;
  }
  /* every plugin type the demo needs must be in the registry */
  char need[128];
  snprintf(need, sizeof need, "%s", info->plugins);
  for (char *tok = strtok(need, " "); tok != NULL; tok = strtok(NULL, " ")) {
    if (sn_registry_find_type(registry, tok) == NULL) {
      snprintf(err, cap, "scene '%s' needs the '%s' constraint plugin (not loaded; see --list-plugins)", info->name,
               tok);
      memset(scene, 0, sizeof(*scene));
      return false;
    }
  }
  if (info->build(scene, registry, state)) return true;
  snprintf(err, cap, "scene '%s' could not be built: %s", info->name,
           scene->world ? sn_world_last_error(scene->world) : "out of memory");
  sn_scene_destroy(scene);
  return false;
}

/* ------------------------------------------------------------- scene files */

bool sb_is_scene_file(const char *arg) {
  size_t n = strlen(arg);
  return strchr(arg, '/') != NULL || (n > 5 && strcmp(arg + n - 5, ".json") == 0);
}

#include "sinew/scene_file.h" /* here, beside its only user, to keep the scene-file hook in one place */

/* The one place the scene-file library plugs in: load path (docs/scene-format.md)
 * into a world that uses the sandbox's registry (so the mouse joint and every
 * plugin of the folder are there; plugins the file lists that the registry
 * lacks are loaded into it from the plugin folder), tracked in *scene. */
bool sb_scene_file_load(const char *path, const sn_registry *registry, sn_scene *scene, char *err, size_t cap) {
  memset(scene, 0, sizeof(*scene));
  sn_scene_load_options opt = sn_default_scene_load_options(); /* the plugin search path */
  opt.registry = (sn_registry *)registry; /* made by sn_create_registry in main: not const underneath */
  sn_loaded_scene loaded;
  sn_scene_error e;
  if (sn_scene_load_file(path, &opt, &loaded, &e) != SN_SCENE_OK) {
    snprintf(err, cap, "%s", e.message);
    return false;
  }
  sn_destroy_scene_names(loaded.names);
  scene->world = loaded.world;
  scene->name = path;
  scene->size = 1;
  scene->default_steps = 600;
  scene->ratio_small = scene->ratio_big = -1;
  /* every dynamic body of the file is tracked */
  int32_t n = sn_world_get_body_count(loaded.world);
  scene->bodies = calloc((size_t)n + 1, sizeof(sn_body_id));
  scene->initial = calloc((size_t)n + 1, sizeof(sn_vec2));
  sn_body_id *ids = malloc(((size_t)n + 1) * sizeof(sn_body_id));
  if (scene->bodies == NULL || scene->initial == NULL || ids == NULL) {
    free(ids);
    sn_scene_destroy(scene);
    snprintf(err, cap, "%s: out of memory", path);
    return false;
  }
  n = sn_world_get_bodies(loaded.world, ids, n);
  for (int32_t i = 0; i < n; ++i)
    if (sn_body_get_type(loaded.world, ids[i]) == SN_BODY_DYNAMIC) sb_track_upto(scene, ids[i], n);
  free(ids);
  /* the soft bodies and their particles, links and rings, as the soft
   * scenes track them (what --json and the framing report) */
  int32_t ns = sn_world_get_soft_body_count(loaded.world);
  sn_soft_body_id *softs = malloc(((size_t)ns + 1) * sizeof(sn_soft_body_id));
  if (softs == NULL) {
    sn_scene_destroy(scene);
    snprintf(err, cap, "%s: out of memory", path);
    return false;
  }
  ns = sn_world_get_soft_bodies(loaded.world, softs, ns);
  bool ok = true;
  for (int32_t i = 0; i < ns && ok; ++i) ok = sn_scene_add_soft(scene, softs[i]);
  free(softs);
  if (!ok) {
    sn_scene_destroy(scene);
    snprintf(err, cap, "%s: out of memory", path);
    return false;
  }
  scene->constraint_count = sn_world_get_constraint_count(loaded.world);
  return true;
}
