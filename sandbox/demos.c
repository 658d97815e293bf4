/* The sandbox's scene list: every standard scene of sinew_scenes (found
 * through sn_scene_count / sn_scene_name, so new ones appear by themselves)
 * followed by the sandbox's own demos: the default showcase, one demo per
 * shipped constraint plugin, and a mixed world. Demos are built through the
 * public API only, and tracked in an sn_scene so the benchmark metrics and
 * JSON line apply to them too. */
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

static void sb_track(sn_scene *s, sn_body_id id) {
  if (s->body_count >= SB_MAX_TRACKED || id.index1 == 0) return;
  sn_vec2 p = sn_body_get_position(s->world, id);
  s->bodies[s->body_count] = id;
  s->initial[s->body_count] = p;
  if (s->body_count == 0 || p.y > s->initial[s->top_body].y) s->top_body = s->body_count;
  s->body_count++;
}

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

static void sb_pyramid(sn_scene *s, int rows, float x0, float half) {
  for (int i = 0; i < rows; ++i) {
    for (int j = i; j < rows; ++j) {
      float x = x0 + ((float)(i + 1) * 0.5f + (float)(j - i) - 0.5f * (float)rows) * 2.0f * half;
      float y = (float)(2 * i + 1) * half;
      sb_box(s, half, half, (sn_vec2){x, y}, 1.0f);
    }
  }
}

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

/* A rope bridge of revolute-joined planks between two static points (each
 * end pinned to a shapeless static body there, so joints draw short). */
static void sb_bridge(sn_scene *s, sn_vec2 left, int planks, float plank_len) {
  sn_body_def ad = sn_default_body_def();
  ad.position = left;
  sn_body_id prev = sn_create_body(s->world, &ad);
  ad.position = (sn_vec2){left.x + plank_len * (float)planks, left.y};
  sn_body_id right = sn_create_body(s->world, &ad);
  for (int k = 0; k < planks; ++k) {
    sn_vec2 c = {left.x + plank_len * ((float)k + 0.5f), left.y};
    sn_body_id plank = sb_box(s, 0.5f * plank_len, 0.1f, c, 2.0f);
    sn_param_value v[1] = {{"anchor", left.x + plank_len * (float)k, left.y}};
    sb_joint(s, "revolute", prev, plank, v, 1);
    prev = plank;
  }
  sn_param_value v[1] = {{"anchor", left.x + plank_len * (float)planks, left.y}};
  sb_joint(s, "revolute", prev, right, v, 1);
}

/* ------------------------------------------------------------------- jelly */

/* Jelly at the cursor. Until the engine has soft bodies (XPBD particles with
 * area constraints, being added), a jelly is a ring of 12 small balls joined
 * to their neighbours and to a core ball by soft distance springs: the
 * shipped `distance` plugin makes it wobble. When soft bodies land, replace
 * this with an sn soft ball of SCENES.md's `jelly` (ring of 24 particles). */
static bool sb_jelly(sn_world *w, sn_scene *track, sn_vec2 p) {
  const int n = 12;
  const float ring = 0.6f, r = 0.13f;
  sn_body_id core = sb_dynamic(w, p, 0.0f);
  sn_circle cc = {{0.0f, 0.0f}, 0.25f};
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.8f;
  if (sn_create_circle_shape(w, core, &sd, &cc).index1 == 0) return false;
  if (track) sb_track(track, core);
  sn_body_id beads[12];
  for (int k = 0; k < n; ++k) {
    float a = 2.0f * SB_PI * (float)k / (float)n;
    sn_vec2 q = {p.x + ring * cosf(a), p.y + ring * sinf(a)};
    beads[k] = sb_dynamic(w, q, 0.0f);
    sn_circle bc = {{0.0f, 0.0f}, r};
    sn_create_circle_shape(w, beads[k], &sd, &bc);
    if (track) sb_track(track, beads[k]);
  }
  for (int k = 0; k < n; ++k) {
    sn_vec2 a = sn_body_get_position(w, beads[k]), b = sn_body_get_position(w, beads[(k + 1) % n]);
    sn_param_value rim[5] = {{"anchor_a", a.x, a.y},
                             {"anchor_b", b.x, b.y},
                             {"enable_spring", 1.0, 0.0},
                             {"hertz", 12.0, 0.0},
                             {"damping_ratio", 0.4, 0.0}};
    sn_param_value spoke[5] = {{"anchor_a", p.x, p.y},
                               {"anchor_b", a.x, a.y},
                               {"enable_spring", 1.0, 0.0},
                               {"hertz", 4.0, 0.0},
                               {"damping_ratio", 0.3, 0.0}};
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "distance";
    cd.bodies[0] = beads[k];
    cd.bodies[1] = beads[(k + 1) % n];
    cd.params = rim;
    cd.param_count = 5;
    cd.collide_connected = true;
    if (sn_create_constraint(w, &cd).index1 == 0) return false;
    cd.bodies[0] = core;
    cd.bodies[1] = beads[k];
    cd.params = spoke;
    if (sn_create_constraint(w, &cd).index1 == 0) return false;
    if (track) track->constraint_count += 2;
  }
  return true;
}

bool sb_spawn_jelly(sn_world *world, sn_vec2 p) { return sb_jelly(world, NULL, p); }

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

/* The default scene: rigid bodies and (soon) soft bodies together. */
static bool sb_build_showcase(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  if (!sb_track_init(s, "showcase", reg)) return false;
  sn_world *w = s->world;
  sb_ground(w, 60.0f);
  sb_static_box(w, 0.5f, 6.0f, (sn_vec2){27.0f, 6.0f}, 0.0f); /* end wall */
  sb_pyramid(s, 10, -13.0f, 0.5f);
  /* bridge between two pillars */
  sb_static_box(w, 0.5f, 2.0f, (sn_vec2){-3.5f, 2.0f}, 0.0f);
  sb_static_box(w, 0.5f, 2.0f, (sn_vec2){9.5f, 2.0f}, 0.0f);
  sb_bridge(s, (sn_vec2){-3.0f, 4.0f}, 20, 0.6f);
  for (int k = 0; k < 4; ++k) sb_box(s, 0.35f, 0.35f, (sn_vec2){-1.0f + 2.5f * (float)k, 6.0f + (float)k}, 1.0f);
  /* a car driving right over small bumps */
  for (int k = 0; k < 3; ++k) {
    sn_body_def bd = sn_default_body_def();
    bd.position = (sn_vec2){15.0f + 3.0f * (float)k, 0.0f};
    sn_body_id bump = sn_create_body(w, &bd);
    sn_capsule cap = {{-0.6f, 0.0f}, {0.6f, 0.0f}, 0.15f};
    sn_shape_def sd = sn_default_shape_def();
    sn_create_capsule_shape(w, bump, &sd, &cap);
  }
  st->joints[0] = sb_car(s, (sn_vec2){12.5f, 1.3f}, -3.0);
  /* soft side of the showcase. Until soft bodies land these are the rigid
   * stand-in jellies of sb_jelly; then: SCENES.md's jelly balls and a cloth
   * banner hanging from the pillars. */
  if (!sb_jelly(w, s, (sn_vec2){3.0f, 9.0f}) || !sb_jelly(w, s, (sn_vec2){-13.0f, 13.0f})) return false;
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

static bool sb_build_jelly(sn_scene *s, const sn_registry *reg, sb_demo_state *st) {
  (void)st;
  if (!sb_track_init(s, "demo-jelly", reg)) return false;
  sn_world *w = s->world;
  /* the rain container with a rigid pyramid, jellies dropped on it */
  sb_static_box(w, 10.0f, 0.5f, (sn_vec2){0.0f, 0.5f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){-10.5f, 8.0f}, 0.0f);
  sb_static_box(w, 0.5f, 8.0f, (sn_vec2){10.5f, 8.0f}, 0.0f);
  for (int i = 0; i < 6; ++i) {
    for (int j = i; j < 6; ++j) {
      sb_box(s, 0.5f, 0.5f, (sn_vec2){-2.5f + (float)i * 0.5f + (float)(j - i), 1.5f + (float)i}, 1.0f);
    }
  }
  for (int k = 0; k < 8; ++k) {
    if (!sb_jelly(w, s, (sn_vec2){-7.5f + 2.1f * (float)k, 9.0f + 1.5f * (float)(k % 3)})) return false;
  }
  return true;
}

static const sb_scene_info sb_demos[] = {
    {"showcase",
     "default: pyramid, revolute rope bridge, wheel car and jellies (rigid + soft)",
     false,
     sb_build_showcase,
     NULL,
     "revolute wheel distance",
     {4.5f, 6.5f},
     26.0f},
    {"demo-revolute",
     "revolute: pendulum chain, motorised spinner, limited door",
     false,
     sb_build_revolute,
     NULL,
     "revolute",
     {2.0f, 6.0f},
     16.0f},
    {"demo-prismatic",
     "prismatic: motorised elevator with limits, slider on a 30 degree rail",
     false,
     sb_build_prismatic,
     sb_update_prismatic,
     "prismatic",
     {0.0f, 4.5f},
     12.0f},
    {"demo-wheel",
     "wheel: two cars with spring suspension and motors on a bumpy road",
     false,
     sb_build_wheel,
     NULL,
     "wheel",
     {-6.0f, 3.0f},
     14.0f},
    {"demo-distance",
     "distance: rod pendulum, soft spring, rope with slack, soft chain",
     false,
     sb_build_distance,
     NULL,
     "distance",
     {2.0f, 7.0f},
     14.0f},
    {"demo-weld", "weld: a rigid and a soft cantilever beam", false, sb_build_weld, NULL, "weld", {-3.0f, 5.0f}, 12.0f},
    {"demo-motor",
     "motor: a paddle driven round a circle through a pile of balls",
     false,
     sb_build_motor,
     sb_update_motor,
     "motor",
     {0.0f, 4.0f},
     12.0f},
    {"demo-mouse",
     "mouse: a scripted hand drags a crate through a pyramid",
     false,
     sb_build_mouse,
     sb_update_mouse,
     "mouse",
     {0.0f, 3.5f},
     10.0f},
    {"demo-jelly",
     "mixed: jellies (soft stand-ins) dropped on a rigid pyramid in a box",
     false,
     sb_build_jelly,
     NULL,
     "distance",
     {0.0f, 7.0f},
     17.0f},
};
#define SB_DEMO_COUNT ((int32_t)(sizeof(sb_demos) / sizeof(sb_demos[0])))

/* ---------------------------------------------------------- standard list */

static const char *sb_standard_description(const char *name) {
  if (strcmp(name, "pyramid") == 0) return "standard: pyramid of 20 rows (SCENES.md 1)";
  if (strcmp(name, "tower") == 0) return "standard: tower of 20 boxes (SCENES.md 2)";
  if (strcmp(name, "rain") == 0) return "standard: 2000 balls and boxes into a container (SCENES.md 3)";
  if (strcmp(name, "ratio") == 0) return "standard: 1600:1 mass ratio stack (SCENES.md 4)";
  if (strcmp(name, "chain") == 0) return "standard: 100-link revolute chain";
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
  const char *dirs[1] = {sn_scene_plugin_dir()};
  sn_scene_load_options opt = sn_default_scene_load_options();
  opt.plugin_dirs = dirs;
  opt.plugin_dir_count = 1;
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
  scene->bodies = calloc(SB_MAX_TRACKED, sizeof(sn_body_id));
  scene->initial = calloc(SB_MAX_TRACKED, sizeof(sn_vec2));
  int32_t n = sn_world_get_body_count(loaded.world);
  sn_body_id *ids = malloc(((size_t)n + 1) * sizeof(sn_body_id));
  if (scene->bodies == NULL || scene->initial == NULL || ids == NULL) {
    free(ids);
    sn_scene_destroy(scene);
    snprintf(err, cap, "%s: out of memory", path);
    return false;
  }
  n = sn_world_get_bodies(loaded.world, ids, n);
  for (int32_t i = 0; i < n; ++i)
    if (sn_body_get_type(loaded.world, ids[i]) == SN_BODY_DYNAMIC) sb_track(scene, ids[i]);
  free(ids);
  return true;
}
