/* The seven scenes of Box2D v3.1.1's benchmark app, rebuilt through Sinew's
 * public API (docs/benchmark.md, "Box2D v3 suite"): joint_grid,
 * large_pyramid, many_pyramids, rain, smash, spinner and tumbler, with rain's
 * ragdoll spawning and recycling as a per-step callback.
 *
 * Units m, kg, s; box sizes are half-extents; angles in radians, CCW
 * positive. Where Sinew's semantics differ from Box2D's, the scene
 * reproduces Box2D's behaviour and says how next to the difference. */
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shipped.h"

const char *const sn_box2d_scene_names[] = {
    "box2d-joint_grid", "box2d-large_pyramid", "box2d-many_pyramids", "box2d-rain",
    "box2d-smash",      "box2d-spinner",       "box2d-tumbler",       NULL};

enum {
  SN_B2_JOINT_GRID,
  SN_B2_LARGE_PYRAMID,
  SN_B2_MANY_PYRAMIDS,
  SN_B2_RAIN,
  SN_B2_SMASH,
  SN_B2_SPINNER,
  SN_B2_TUMBLER,
  SN_B2_SCENE_COUNT
};

static const int32_t sn_b2_steps[SN_B2_SCENE_COUNT] = {500, 500, 200, 1000, 300, 1400, 750};

#define SN_B2_PI 3.14159265358979f

/* rain: 5 rows of 40 columns of 5 ragdolls, 11 bones and 10 joints each */
#define SN_RAIN_ROWS     5
#define SN_RAIN_COLUMNS  40
#define SN_RAIN_GROUP    5
#define SN_RAIN_RAGDOLLS (SN_RAIN_ROWS * SN_RAIN_COLUMNS * SN_RAIN_GROUP)
#define SN_RAG_BONES     11
#define SN_RAG_JOINTS    10

/// A revolute joint as the metrics see it: bodies, anchors from the origins
/// and, with a limit, its range relative to the reference angle.
typedef struct sn_b2_joint {
  sn_constraint_id id;
  sn_body_id a, b;
  sn_vec2 local_a, local_b;
  float lower, upper;
  bool limit;
} sn_b2_joint;

struct sn_box2d_state {
  int32_t kind;
  sn_b2_joint *joints; /* joint_grid: every joint; rain: SN_RAG_JOINTS per ragdoll slot */
  int32_t joint_count;
  /* rain: the bones of each ragdoll slot and whether it is live */
  sn_body_id *bones;
  bool *live;
  int32_t live_count;
  /* smash: the ram and which bodies (indexes of sn_scene.bodies) were ever awake */
  sn_body_id ram;
  bool *woken;
  int32_t woken_count;
  /* spinner and tumbler: the motor joint and the rotor */
  sn_constraint_id motor;
  sn_body_id rotor;
  double motor_angle; /* spinner: last angle the callback read */
  /* rain: the worst joint separation and limit violation after any step */
  double separation_max, violation_max;
  /* pyramids: indexes into sn_scene.bodies of the top box of each pyramid */
  int32_t *tops;
  int32_t top_count;
};

bool sn_box2d_scene_is(const char *name) { return name != NULL && strncmp(name, "box2d-", 6) == 0; }

int32_t sn_box2d_scene_default_steps(const char *name) {
  for (int32_t k = 0; sn_box2d_scene_names[k] != NULL; ++k) {
    if (strcmp(sn_box2d_scene_names[k], name) == 0) return sn_b2_steps[k];
  }
  return 0;
}

static bool sn_b2_reserve(sn_scene *s, int32_t n) {
  s->bodies = calloc((size_t)(n > 0 ? n : 1), sizeof(sn_body_id));
  s->initial = calloc((size_t)(n > 0 ? n : 1), sizeof(sn_vec2));
  return s->bodies != NULL && s->initial != NULL;
}

static void sn_b2_track(sn_scene *s, sn_body_id id, sn_vec2 p) {
  s->bodies[s->body_count] = id;
  s->initial[s->body_count] = p;
  if (s->body_count == 0 || p.y > s->initial[s->top_body].y) s->top_body = s->body_count;
  s->body_count++;
}

static sn_body_id sn_b2_body(sn_world *w, sn_body_type type, sn_vec2 p) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = p;
  return sn_create_body(w, &bd);
}

/* A revolute joint in Box2D's terms: anchors from each body's origin and a
 * reference angle, given to Sinew as its pinned definition. */
static sn_constraint_id sn_b2_revolute(sn_world *w, sn_body_id a, sn_body_id b, sn_vec2 la, sn_vec2 lb,
                                       const sn_param_value *extra, int32_t extra_count) {
  sn_param_value v[16] = {{"pinned", 1.0, 0.0}, {"local_anchor_a", la.x, la.y}, {"local_anchor_b", lb.x, lb.y}};
  int32_t n = 3;
  for (int32_t k = 0; k < extra_count && n < 16; ++k) v[n++] = extra[k];
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "revolute";
  cd.bodies[0] = a;
  cd.bodies[1] = b;
  cd.params = v;
  cd.param_count = n;
  return sn_create_constraint(w, &cd);
}

/* ---- joint_grid: 100 x 100 circles joined to their upper and left
 * neighbours, 7 static pins in the middle of the top row, no contacts. */
static bool sn_b2_joint_grid(sn_scene *s, struct sn_box2d_state *st, int32_t n) {
  if (!sn_b2_reserve(s, n * n)) return false;
  st->joints = calloc((size_t)(2 * n * n), sizeof(sn_b2_joint));
  sn_body_id *grid = calloc((size_t)(n * n), sizeof(sn_body_id));
  if (st->joints == NULL || grid == NULL) {
    free(grid);
    return false;
  }
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 1.0f;
  sd.friction = 0.6f;
  /* Box2D's mask is the 32-bit ~2u widened to 64 bits: no circle's category
   * (0x2) is in any mask, so no two circles collide */
  sd.category_bits = 0x2u;
  sd.mask_bits = 0x00000000FFFFFFFDull;
  const sn_circle circle = {{0.0f, 0.0f}, 0.4f};
  bool ok = true;
  for (int32_t k = 0; k < n && ok; ++k) {
    for (int32_t i = 0; i < n && ok; ++i) {
      bool pin = i == 0 && k >= n / 2 - 3 && k <= n / 2 + 3; /* 47..53 of 100 */
      sn_vec2 p = {(float)k, (float)-i};
      sn_body_id b = sn_b2_body(s->world, pin ? SN_BODY_STATIC : SN_BODY_DYNAMIC, p);
      ok = sn_shape_is_valid(s->world, sn_create_circle_shape(s->world, b, &sd, &circle));
      grid[k * n + i] = b;
      sn_b2_track(s, b, p);
      /* the joints between two static pins are created as in Box2D; Sinew
       * keeps them (they join no dynamic body, so nothing solves them) */
      if (ok && i > 0) {
        sn_b2_joint *j = st->joints + st->joint_count;
        *j = (sn_b2_joint){.a = grid[k * n + i - 1], .b = b, .local_a = {0.0f, -0.5f}, .local_b = {0.0f, 0.5f}};
        j->id = sn_b2_revolute(s->world, j->a, j->b, j->local_a, j->local_b, NULL, 0);
        ok = sn_constraint_is_valid(s->world, j->id);
        st->joint_count++;
      }
      if (ok && k > 0) {
        sn_b2_joint *j = st->joints + st->joint_count;
        *j = (sn_b2_joint){.a = grid[(k - 1) * n + i], .b = b, .local_a = {0.5f, 0.0f}, .local_b = {-0.5f, 0.0f}};
        j->id = sn_b2_revolute(s->world, j->a, j->b, j->local_a, j->local_b, NULL, 0);
        ok = sn_constraint_is_valid(s->world, j->id);
        st->joint_count++;
      }
    }
  }
  if (!ok) fprintf(stderr, "box2d-joint_grid: %s\n", sn_world_last_error(s->world));
  s->constraint_count = st->joint_count;
  free(grid);
  return ok;
}

static void sn_b2_box_on(sn_scene *s, sn_body_id b, float hx, float hy, float density) {
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  sd.friction = 0.6f;
  sn_create_polygon_shape(s->world, b, &sd, &box);
}

/* ---- large_pyramid: 100 boxes at the base, 5050 in all, on a box ground */
static bool sn_b2_large_pyramid(sn_scene *s, struct sn_box2d_state *st) {
  const int32_t base = 100;
  if (!sn_b2_reserve(s, base * (base + 1) / 2)) return false;
  st->tops = calloc(1, sizeof(int32_t));
  if (st->tops == NULL) return false;
  sn_body_id ground = sn_b2_body(s->world, SN_BODY_STATIC, (sn_vec2){0.0f, -1.0f});
  sn_b2_box_on(s, ground, 100.0f, 1.0f, 1.0f);
  for (int32_t i = 0; i < base; ++i) {
    for (int32_t j = i; j < base; ++j) {
      /* x = (i + 1) h + (j - i) 2h - base h with h = 0.5 */
      sn_vec2 p = {(float)(i + 1) * 0.5f + (float)(j - i) * 1.0f - 50.0f, (float)i + 0.5f};
      sn_body_id b = sn_b2_body(s->world, SN_BODY_DYNAMIC, p);
      sn_b2_box_on(s, b, 0.5f, 0.5f, 1.0f);
      sn_b2_track(s, b, p);
    }
  }
  st->tops[st->top_count++] = s->top_body;
  return true;
}

/* ---- many_pyramids: 20 x 20 pyramids of 10 at the base on 20 two-sided
 * ground segments 11 m apart */
static bool sn_b2_many_pyramids(sn_scene *s, struct sn_box2d_state *st, int32_t rows) {
  const int32_t base = 10, columns = rows;
  const float extent = 0.5f;
  const float ground_dy = 2.0f * extent * (float)(base + 1);                     /* 11 */
  const float ground_width = 2.0f * extent * (float)columns * (float)(base + 1); /* 220 */
  const int32_t per = base * (base + 1) / 2;
  if (!sn_b2_reserve(s, rows * columns * per)) return false;
  st->tops = calloc((size_t)(rows * columns), sizeof(int32_t));
  if (st->tops == NULL) return false;
  sn_body_id ground = sn_b2_body(s->world, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f});
  sn_shape_def gsd = sn_default_shape_def();
  gsd.friction = 0.6f;
  for (int32_t r = 0; r < rows; ++r) {
    /* Box2D makes each segment 2 x 0.5 x ground_width long on each side */
    float y = ground_dy * (float)r, half = 2.0f * extent * ground_width;
    sn_segment seg = {{-half, y}, {half, y}};
    sn_create_segment_shape(s->world, ground, &gsd, &seg);
  }
  for (int32_t r = 0; r < rows; ++r) {
    float base_y = ground_dy * (float)r;
    for (int32_t c = 0; c < columns; ++c) {
      float center_x = -0.5f * ground_width + (float)c * (float)(base + 1) * 2.0f * extent + extent;
      for (int32_t a = 0; a < base; ++a) {
        for (int32_t b = a; b < base; ++b) {
          sn_vec2 p = {center_x + (float)b * 2.0f * extent - (float)a * extent,
                       base_y + (float)a * 2.0f * extent + extent};
          sn_body_id id = sn_b2_body(s->world, SN_BODY_DYNAMIC, p);
          sn_b2_box_on(s, id, extent, extent, 1.0f);
          sn_b2_track(s, id, p);
        }
      }
      st->tops[st->top_count++] = s->body_count - 1; /* the last box of a pyramid is its apex */
    }
  }
  return true;
}

/* ---- rain: 5 floors of 501 tiles on one static body; ragdolls spawned and
 * recycled by the callback (sn_box2d_scene_step_callback) */
static bool sn_b2_rain(sn_scene *s, struct sn_box2d_state *st) {
  st->joints = calloc((size_t)(SN_RAIN_RAGDOLLS * SN_RAG_JOINTS), sizeof(sn_b2_joint));
  st->bones = calloc((size_t)(SN_RAIN_RAGDOLLS * SN_RAG_BONES), sizeof(sn_body_id));
  st->live = calloc((size_t)SN_RAIN_RAGDOLLS, sizeof(bool));
  if (st->joints == NULL || st->bones == NULL || st->live == NULL || !sn_b2_reserve(s, 0)) return false;
  sn_body_id ground = sn_b2_body(s->world, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f});
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  for (int32_t r = 0; r < SN_RAIN_ROWS; ++r) {
    for (int32_t j = 0; j <= 500; ++j) {
      sn_polygon box;
      sn_make_offset_box(0.25f, 0.25f, (sn_vec2){-125.0f + 0.5f * (float)j, 45.0f * (float)r}, 0.0f, &box);
      if (!sn_shape_is_valid(s->world, sn_create_polygon_shape(s->world, ground, &sd, &box))) return false;
    }
  }
  return true;
}

/* The ragdoll's bones (body origin above the spawn point, capsule ends,
 * radius, linear damping, the joint's friction scale) and joints (parent,
 * pivot above the spawn point, reference angle, limits). */
typedef struct sn_rag_bone {
  int32_t parent;
  float y, c1, c2, radius, damping, friction_scale;
  bool foot;
  float pivot, reference, lower, upper;
} sn_rag_bone;

static const sn_rag_bone sn_rag_bones[SN_RAG_BONES] = {
    {-1, 0.95f, -0.02f, 0.02f, 0.095f, 0.0f, 1.0f, false, 0.0f, 0.0f, 0.0f, 0.0f},             /* hip */
    {0, 1.2f, -0.135f, 0.135f, 0.09f, 0.0f, 0.5f, false, 1.0f, 0.0f, -0.25f * SN_B2_PI, 0.0f}, /* torso */
    {1, 1.475f, -0.038f, 0.039f, 0.075f, 0.1f, 0.25f, false, 1.4f, 0.0f, -0.3f * SN_B2_PI, 0.1f * SN_B2_PI},
    {0, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, false, 0.9f, 0.0f, -0.05f * SN_B2_PI, 0.4f * SN_B2_PI},
    {3, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, true, 0.625f, 0.0f, -0.5f * SN_B2_PI, -0.02f * SN_B2_PI},
    {0, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, false, 0.9f, 0.0f, -0.05f * SN_B2_PI, 0.4f * SN_B2_PI},
    {5, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, true, 0.625f, 0.0f, -0.5f * SN_B2_PI, -0.02f * SN_B2_PI},
    {1, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, false, 1.35f, 0.0f, -0.1f * SN_B2_PI, 0.8f * SN_B2_PI},
    {7, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, false, 1.1f, 0.25f * SN_B2_PI, -0.2f * SN_B2_PI, 0.3f * SN_B2_PI},
    {1, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, false, 1.35f, 0.0f, -0.1f * SN_B2_PI, 0.8f * SN_B2_PI},
    {9, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, false, 1.1f, 0.25f * SN_B2_PI, -0.2f * SN_B2_PI, 0.3f * SN_B2_PI},
};

/* Ragdoll slot `slot` at spawn point p in collision group -g: 11 capsule
 * bones (two with a foot), 10 revolute joints with limit, a zero-speed
 * motor for joint friction and a 5 Hz spring. */
static bool sn_rag_create(sn_scene *s, struct sn_box2d_state *st, int32_t slot, sn_vec2 p, int32_t g) {
  const float friction_torque = 0.05f, hertz = 5.0f, damping_ratio = 0.5f;
  sn_body_id *bones = st->bones + slot * SN_RAG_BONES;
  sn_b2_joint *joints = st->joints + slot * SN_RAG_JOINTS;
  for (int32_t k = 0; k < SN_RAG_BONES; ++k) {
    const sn_rag_bone *b = sn_rag_bones + k;
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){p.x, p.y + b->y};
    bd.linear_damping = b->damping;
    /* Box2D gives the ragdoll bodies a sleep threshold of 0.1 m/s (its
     * default is 0.05) */
    bd.sleep_threshold = 0.1f;
    bones[k] = sn_create_body(s->world, &bd);
    if (!sn_body_is_valid(s->world, bones[k])) return false;
    sn_shape_def sd = sn_default_shape_def();
    sd.density = 1.0f;
    sd.friction = 0.2f;
    sd.category_bits = 0x2u;
    sd.mask_bits = 0x3u;
    sd.group_index = -g;
    sn_capsule cap = {{0.0f, b->c1}, {0.0f, b->c2}, b->radius};
    if (!sn_shape_is_valid(s->world, sn_create_capsule_shape(s->world, bones[k], &sd, &cap))) return false;
    if (b->foot) {
      /* the foot touches the ground (category 1) only */
      static const sn_vec2 pts[4] = {{-0.03f, -0.185f}, {0.11f, -0.185f}, {0.11f, -0.16f}, {-0.03f, -0.14f}};
      sn_polygon foot;
      if (sn_compute_hull(pts, 4, 0.015f, &foot) != SN_OK) return false;
      sd.friction = 0.05f;
      sd.mask_bits = 0x1u;
      if (!sn_shape_is_valid(s->world, sn_create_polygon_shape(s->world, bones[k], &sd, &foot))) return false;
    }
    if (b->parent < 0) continue;
    const sn_rag_bone *pb = sn_rag_bones + b->parent;
    sn_b2_joint *j = joints + (k - 1);
    *j = (sn_b2_joint){.a = bones[b->parent],
                       .b = bones[k],
                       .local_a = {0.0f, b->pivot - pb->y},
                       .local_b = {0.0f, b->pivot - b->y},
                       .lower = b->lower,
                       .upper = b->upper,
                       .limit = true};
    /* Box2D v3.1.1's spring pulls the raw relative angle (angle B - angle A)
     * toward 0, ignoring the reference angle; Sinew's spring rests at
     * target_angle relative to the reference angle, so target_angle =
     * -reference_angle gives Box2D's rest pose (the elbows). */
    const sn_param_value v[] = {{"reference_angle", b->reference, 0.0},
                                {"enable_limit", 1.0, 0.0},
                                {"lower_angle", b->lower, 0.0},
                                {"upper_angle", b->upper, 0.0},
                                {"enable_motor", 1.0, 0.0},
                                {"motor_speed", 0.0, 0.0},
                                {"max_motor_torque", b->friction_scale * friction_torque, 0.0},
                                {"enable_spring", 1.0, 0.0},
                                {"hertz", hertz, 0.0},
                                {"damping_ratio", damping_ratio, 0.0},
                                {"target_angle", -b->reference, 0.0}};
    j->id = sn_b2_revolute(s->world, j->a, j->b, j->local_a, j->local_b, v, (int32_t)(sizeof v / sizeof v[0]));
    if (!sn_constraint_is_valid(s->world, j->id)) return false;
  }
  st->live[slot] = true;
  st->live_count++;
  s->constraint_count += SN_RAG_JOINTS;
  return true;
}

static bool sn_rag_destroy(sn_scene *s, struct sn_box2d_state *st, int32_t slot) {
  if (!st->live[slot]) return true;
  for (int32_t k = 0; k < SN_RAG_JOINTS; ++k) {
    if (sn_destroy_constraint(s->world, st->joints[slot * SN_RAG_JOINTS + k].id) != SN_OK) return false;
  }
  for (int32_t k = 0; k < SN_RAG_BONES; ++k) {
    if (sn_destroy_body(s->world, st->bones[slot * SN_RAG_BONES + k]) != SN_OK) return false;
  }
  st->live[slot] = false;
  st->live_count--;
  s->constraint_count -= SN_RAG_JOINTS;
  return true;
}

/* The five ragdolls of group (row r, column c): ragdoll n in collision
 * group -(n + 1), so ragdoll n of any two groups never touch. */
static bool sn_rain_group(sn_scene *s, struct sn_box2d_state *st, int32_t r, int32_t c, bool recycle) {
  const float span = 500.0f * 0.5f, spacing = span / (float)SN_RAIN_COLUMNS;
  for (int32_t n = 0; n < SN_RAIN_GROUP; ++n) {
    int32_t slot = (r * SN_RAIN_COLUMNS + c) * SN_RAIN_GROUP + n;
    if (recycle && !sn_rag_destroy(s, st, slot)) return false;
  }
  for (int32_t n = 0; n < SN_RAIN_GROUP; ++n) {
    int32_t slot = (r * SN_RAIN_COLUMNS + c) * SN_RAIN_GROUP + n;
    sn_vec2 p = {-0.5f * span + spacing * ((float)c + 0.5f) + 0.5f * (float)n, 40.0f + 45.0f * (float)r};
    if (!sn_rag_create(s, st, slot, p, n + 1)) return false;
  }
  return true;
}

/* ---- smash: a 512 kg ram at 40 m/s into a sleeping block of 9600 tiles,
 * no gravity */
static bool sn_b2_smash(sn_scene *s, struct sn_box2d_state *st) {
  const int32_t columns = 120, rows = 80;
  if (!sn_b2_reserve(s, columns * rows + 1)) return false;
  st->woken = calloc((size_t)(columns * rows + 1), sizeof(bool));
  if (st->woken == NULL) return false;
  sn_world_set_gravity(s->world, (sn_vec2){0.0f, 0.0f});
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){-20.0f, 0.0f};
  bd.linear_velocity = (sn_vec2){40.0f, 0.0f};
  st->ram = sn_create_body(s->world, &bd);
  sn_b2_box_on(s, st->ram, 4.0f, 4.0f, 8.0f);
  sn_b2_track(s, st->ram, bd.position);
  const float d = 0.4f;
  for (int32_t i = 0; i < columns; ++i) {
    for (int32_t j = 0; j < rows; ++j) {
      sn_body_def td = sn_default_body_def();
      td.type = SN_BODY_DYNAMIC;
      td.position = (sn_vec2){30.0f + (float)i * d, (float)(j - rows / 2) * d};
      td.is_awake = false; /* created asleep; contact with an awake body wakes it */
      sn_body_id b = sn_create_body(s->world, &td);
      sn_b2_box_on(s, b, 0.5f * d, 0.5f * d, 1.0f);
      sn_b2_track(s, b, td.position);
    }
  }
  return true;
}

/* The points of the spinner's container: 360 points from (40, 0), each the
 * last turned by the rotation Box2D v3.1.1's approximate b2MakeRot(-2 pi /
 * 360) returns (float cos 0.999842346, sin -0.0177573357, a step of
 * -1.0175 degrees), offset by (0, 32). They run clockwise (a container) and
 * cover 365.27 degrees: the last points retrace the first 5 degrees and the
 * closing segment runs backwards, as in Box2D. */
void sn_box2d_spinner_points(sn_vec2 out[360]) {
  const float c = 0.999842346f, sn = -0.0177573357f;
  sn_vec2 p = {40.0f, 0.0f};
  for (int32_t i = 0; i < 360; ++i) {
    out[i] = (sn_vec2){p.x, p.y + 32.0f};
    p = (sn_vec2){c * p.x - sn * p.y, sn * p.x + c * p.y};
  }
}

/* ---- spinner: a motor-driven rounded bar in a clockwise loop-chain
 * container with 3038 pieces of debris */
static bool sn_b2_spinner(sn_scene *s, struct sn_box2d_state *st) {
  const int32_t debris = 3038;
  if (!sn_b2_reserve(s, debris + 1)) return false;
  sn_body_id ground = sn_b2_body(s->world, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f});
  sn_vec2 pts[360];
  sn_box2d_spinner_points(pts);
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 360;
  cd.is_loop = true;
  cd.friction = 0.1f;
  cd.restitution = 0.0f;
  if (!sn_chain_is_valid(s->world, sn_create_chain(s->world, ground, &cd))) return false;

  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 12.0f};
  bd.enable_sleep = false;
  st->rotor = sn_create_body(s->world, &bd);
  sn_polygon bar;
  sn_make_rounded_box(0.4f, 20.0f, 0.2f, &bar);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 1.0f;
  sd.friction = 0.0f;
  sn_create_polygon_shape(s->world, st->rotor, &sd, &bar);
  sn_b2_track(s, st->rotor, bd.position);
  const sn_param_value v[] = {
      {"enable_motor", 1.0, 0.0}, {"motor_speed", 5.0, 0.0}, {"max_motor_torque", 40000.0, 0.0}};
  st->motor = sn_b2_revolute(s->world, ground, st->rotor, (sn_vec2){0.0f, 12.0f}, (sn_vec2){0.0f, 0.0f}, v, 3);
  if (!sn_constraint_is_valid(s->world, st->motor)) return false;
  s->constraint_count = 1;

  sn_shape_def dd = sn_default_shape_def();
  dd.density = 0.25f;
  dd.friction = 0.1f;
  dd.restitution = 0.1f;
  const sn_capsule capsule = {{-0.25f, 0.0f}, {0.25f, 0.0f}, 0.25f};
  const sn_circle circle = {{0.0f, 0.0f}, 0.35f};
  sn_polygon square;
  sn_make_box(0.35f, 0.35f, &square);
  for (int32_t i = 0; i < debris; ++i) {
    sn_vec2 p = {-24.0f + (float)(i % 49), 2.0f + (float)(i / 49)};
    sn_body_id b = sn_b2_body(s->world, SN_BODY_DYNAMIC, p);
    if (i % 3 == 0)
      sn_create_capsule_shape(s->world, b, &dd, &capsule);
    else if (i % 3 == 1)
      sn_create_circle_shape(s->world, b, &dd, &circle);
    else
      sn_create_polygon_shape(s->world, b, &dd, &square);
    sn_b2_track(s, b, p);
  }
  return true;
}

/* ---- tumbler: a 21 m square frame of four heavy boxes turned by a motor
 * about a shapeless static body, with 2025 small boxes inside */
static bool sn_b2_tumbler(sn_scene *s, struct sn_box2d_state *st) {
  const int32_t count = 45;
  if (!sn_b2_reserve(s, count * count + 1)) return false;
  sn_body_id ground = sn_b2_body(s->world, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f});
  st->rotor = sn_b2_body(s->world, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 10.0f});
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 50.0f;
  sd.friction = 0.6f;
  const struct {
    float hx, hy, x, y;
  } walls[4] = {
      {0.5f, 10.0f, 10.0f, 0.0f}, {0.5f, 10.0f, -10.0f, 0.0f}, {10.0f, 0.5f, 0.0f, 10.0f}, {10.0f, 0.5f, 0.0f, -10.0f}};
  for (int32_t k = 0; k < 4; ++k) {
    sn_polygon box;
    sn_make_offset_box(walls[k].hx, walls[k].hy, (sn_vec2){walls[k].x, walls[k].y}, 0.0f, &box);
    sn_create_polygon_shape(s->world, st->rotor, &sd, &box);
  }
  sn_b2_track(s, st->rotor, (sn_vec2){0.0f, 10.0f});
  /* 25 degrees per second, CCW */
  const sn_param_value v[] = {{"enable_motor", 1.0, 0.0},
                              {"motor_speed", (double)(25.0f * SN_B2_PI / 180.0f), 0.0},
                              {"max_motor_torque", 1e8, 0.0}};
  st->motor = sn_b2_revolute(s->world, ground, st->rotor, (sn_vec2){0.0f, 10.0f}, (sn_vec2){0.0f, 0.0f}, v, 3);
  if (!sn_constraint_is_valid(s->world, st->motor)) return false;
  s->constraint_count = 1;
  /* rows from y = 1.0, each from x = -9.0, steps of 0.4 accumulated in float */
  float y = 10.0f - 0.2f * (float)count;
  for (int32_t i = 0; i < count; ++i) {
    float x = -0.2f * (float)count;
    for (int32_t j = 0; j < count; ++j) {
      sn_body_id b = sn_b2_body(s->world, SN_BODY_DYNAMIC, (sn_vec2){x, y});
      sn_b2_box_on(s, b, 0.125f, 0.125f, 1.0f);
      sn_b2_track(s, b, (sn_vec2){x, y});
      x += 0.4f;
    }
    y += 0.4f;
  }
  return true;
}

bool sn_box2d_scene_build(sn_scene *s, const char *name, int32_t size, const sn_world_def *base) {
  int32_t kind = -1;
  for (int32_t k = 0; sn_box2d_scene_names[k] != NULL; ++k) {
    if (strcmp(sn_box2d_scene_names[k], name) == 0) kind = k;
  }
  if (kind < 0) return false;
  s->name = sn_box2d_scene_names[kind];
  /* the size: joint_grid's side (100) and many_pyramids' rows and columns (20), else 1 */
  if (kind == SN_B2_JOINT_GRID)
    s->size = size > 0 ? size : 100;
  else if (kind == SN_B2_MANY_PYRAMIDS)
    s->size = size > 0 ? size : 20;
  else
    s->size = 1;
  s->default_steps = sn_b2_steps[kind];
  struct sn_box2d_state *st = calloc(1, sizeof(*st));
  if (st == NULL) return false;
  s->box2d = st;
  st->kind = kind;
  sn_world_def wd = *base;
  /* joint_grid and the pyramids turn sleeping off; the others keep it on */
  wd.enable_sleep = !(kind == SN_B2_JOINT_GRID || kind == SN_B2_LARGE_PYRAMID || kind == SN_B2_MANY_PYRAMIDS);
  static const int32_t bodies[SN_B2_SCENE_COUNT] = {10000, 5051, 22001, 11001, 9601, 3040, 2027};
  wd.body_capacity = size <= 0 ? bodies[kind] : 0; /* a hint for Box2D's sizes */
  const sn_registry *registry = base->registry;
  bool joints = kind == SN_B2_JOINT_GRID || kind == SN_B2_RAIN || kind == SN_B2_SPINNER || kind == SN_B2_TUMBLER;
  if (joints && (registry == NULL || sn_registry_find_type(registry, "revolute") == NULL)) {
    static const char *const revolute[] = {"revolute"};
    s->registry = sn_create_registry(NULL);
    char msg[512] = "out of memory";
    if (s->registry == NULL || sn_shipped_add(s->registry, NULL, revolute, 1, msg, sizeof msg) != SN_OK) {
      fprintf(stderr, "%s: %s\n", name, msg);
      return false;
    }
    wd.registry = s->registry;
  }
  s->world = sn_create_world(&wd, NULL);
  if (s->world == NULL) return false;
  switch (kind) {
  case SN_B2_JOINT_GRID:
    return sn_b2_joint_grid(s, st, s->size);
  case SN_B2_LARGE_PYRAMID:
    return sn_b2_large_pyramid(s, st);
  case SN_B2_MANY_PYRAMIDS:
    return sn_b2_many_pyramids(s, st, s->size);
  case SN_B2_RAIN:
    return sn_b2_rain(s, st);
  case SN_B2_SMASH:
    return sn_b2_smash(s, st);
  case SN_B2_SPINNER:
    return sn_b2_spinner(s, st);
  default:
    return sn_b2_tumbler(s, st);
  }
}

void sn_box2d_scene_destroy(sn_scene *s) {
  struct sn_box2d_state *st = s->box2d;
  if (st == NULL) return;
  free(st->joints);
  free(st->bones);
  free(st->live);
  free(st->woken);
  free(st->tops);
  free(st);
  s->box2d = NULL;
}

bool sn_box2d_scene_step_callback(sn_scene *s, int32_t k) {
  struct sn_box2d_state *st = s->box2d;
  if (st == NULL) return true;
  if (st->kind == SN_B2_SPINNER) {
    double a = 0.0, unused = 0.0;
    sn_result r = sn_constraint_get_state(s->world, st->motor, "angle", &a, &unused);
    if (r != SN_OK) {
      fprintf(stderr, "sinew-bench: spinner: the motor's angle: %s\n", sn_world_last_error(s->world));
      return false;
    }
    st->motor_angle = a;
    return true;
  }
  if (st->kind != SN_B2_RAIN || (k & 7) != 0) return true;
  int32_t e = k >> 3;
  /* events 0..39 fill column e of every row; later ones recycle column (e - 40) mod 40 */
  bool recycle = e >= SN_RAIN_COLUMNS;
  int32_t c = recycle ? (e - SN_RAIN_COLUMNS) % SN_RAIN_COLUMNS : e;
  for (int32_t r = 0; r < SN_RAIN_ROWS; ++r) {
    if (!sn_rain_group(s, st, r, c, recycle)) {
      fprintf(stderr, "box2d-rain: %s\n", sn_world_last_error(s->world));
      return false;
    }
  }
  return true;
}

static double sn_b2_separation(sn_world *w, const sn_b2_joint *j);
static void sn_b2_rain_joints(sn_world *w, const struct sn_box2d_state *st, double *separation, double *violation);

void sn_box2d_scene_observe(sn_scene *s) {
  struct sn_box2d_state *st = s->box2d;
  if (st != NULL && st->kind == SN_B2_RAIN) {
    double separation = 0.0, violation = 0.0;
    sn_b2_rain_joints(s->world, st, &separation, &violation);
    st->separation_max = fmax(st->separation_max, separation);
    st->violation_max = fmax(st->violation_max, violation);
  }
  if (st == NULL || st->woken == NULL) return;
  for (int32_t k = 0; k < s->body_count; ++k) {
    if (!st->woken[k] && sn_body_is_awake(s->world, s->bodies[k])) {
      st->woken[k] = true;
      st->woken_count++;
    }
  }
}

static double sn_b2_separation(sn_world *w, const sn_b2_joint *j) {
  sn_vec2 pa = sn_body_get_world_point(w, j->a, j->local_a), pb = sn_body_get_world_point(w, j->b, j->local_b);
  return hypot((double)pa.x - pb.x, (double)pa.y - pb.y);
}

/* rain: the worst distance between a live ragdoll joint's anchors, and the
 * worst angle outside its limits (0 if none), now */
static void sn_b2_rain_joints(sn_world *w, const struct sn_box2d_state *st, double *separation, double *violation) {
  for (int32_t slot = 0; slot < SN_RAIN_RAGDOLLS; ++slot) {
    if (!st->live[slot]) continue;
    for (int32_t k = 0; k < SN_RAG_JOINTS; ++k) {
      const sn_b2_joint *j = st->joints + slot * SN_RAG_JOINTS + k;
      *separation = fmax(*separation, sn_b2_separation(w, j));
      double a = 0.0, unused = 0.0;
      if (sn_constraint_get_state(w, j->id, "angle", &a, &unused) == SN_OK)
        *violation = fmax(*violation, fmax(j->lower - a, a - j->upper));
    }
  }
}

void sn_box2d_scene_measure(const sn_scene *s, sn_box2d_metrics *m) {
  memset(m, 0, sizeof(*m));
  const struct sn_box2d_state *st = s->box2d;
  sn_world *w = s->world;
  sn_world_counters c = sn_world_get_counters(w);
  m->bodies = c.body_count;
  m->shapes = c.shape_count;
  m->joints = c.constraint_count;
  m->contacts = c.contact_count;
  m->touching_contacts = c.touching_contact_count;
  m->awake_bodies = c.awake_body_count;
  /* the state hash of sn_scene_measure over every body of the world, in
   * the world's order: pose, velocity and spin */
  uint64_t h = 0xcbf29ce484222325ull;
  int32_t n = sn_world_get_body_count(w);
  sn_body_id *all = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_body_id));
  if (all != NULL) {
    n = sn_world_get_bodies(w, all, n);
    for (int32_t k = 0; k < n; ++k) {
      sn_transform xf = sn_body_get_transform(w, all[k]);
      sn_vec2 v = sn_body_get_linear_velocity(w, all[k]);
      float om = sn_body_get_angular_velocity(w, all[k]);
      float state[6] = {xf.p.x, xf.p.y, xf.q.c, xf.q.s, v.x, v.y};
      h = sn_scene_hash_bytes(h, state, sizeof(state));
      h = sn_scene_hash_bytes(h, &om, sizeof(om));
    }
    free(all);
  }
  m->state_hash = h;
  if (st == NULL) return;
  switch (st->kind) {
  case SN_B2_JOINT_GRID:
    m->lowest_y = 1e30;
    for (int32_t k = 0; k < st->joint_count; ++k) {
      const double gap = sn_b2_separation(w, st->joints + k);
      m->joint_separation = fmax(m->joint_separation, gap);
      m->joints_over_1pct += gap > 0.01; /* every joint joins neighbours 1 m apart */
    }
    for (int32_t k = 0; k < s->body_count; ++k)
      m->lowest_y = fmin(m->lowest_y, sn_body_get_position(w, s->bodies[k]).y);
    break;
  case SN_B2_LARGE_PYRAMID:
  case SN_B2_MANY_PYRAMIDS:
    for (int32_t k = 0; k < st->top_count; ++k) {
      int32_t i = st->tops[k];
      sn_vec2 p = sn_body_get_position(w, s->bodies[i]);
      m->top_drift = fmax(m->top_drift, hypot((double)p.x - s->initial[i].x, (double)p.y - s->initial[i].y));
    }
    /* fallen: more than half a box (0.5 m) below where it started */
    for (int32_t k = 0; k < s->body_count; ++k) {
      if (sn_body_get_position(w, s->bodies[k]).y < s->initial[k].y - 0.5f) m->fallen++;
    }
    break;
  case SN_B2_RAIN:
    m->live_ragdolls = st->live_count;
    sn_b2_rain_joints(w, st, &m->joint_separation, &m->limit_violation);
    m->joint_separation_max = fmax(st->separation_max, m->joint_separation);
    m->limit_violation_max = fmax(st->violation_max, m->limit_violation);
    break;
  case SN_B2_SMASH: {
    m->woken = st->woken_count;
    sn_vec2 v = sn_body_get_linear_velocity(w, st->ram);
    m->ram_speed = hypot(v.x, v.y);
    break;
  }
  case SN_B2_SPINNER: {
    double a = 0.0, unused = 0.0;
    sn_constraint_get_state(w, st->motor, "angle", &a, &unused);
    m->motor_angle = a;
    /* debris outside the container: farther than 40.5 m from its centre (0, 32) */
    for (int32_t k = 0; k < s->body_count; ++k) {
      if (s->bodies[k].index1 == st->rotor.index1) continue;
      sn_vec2 p = sn_body_get_position(w, s->bodies[k]);
      if (hypot(p.x, (double)p.y - 32.0) > 40.5) m->outside++;
    }
    break;
  }
  case SN_B2_TUMBLER:
    /* boxes outside the frame: |x| or |y| > 10.5 in the tumbler's frame */
    for (int32_t k = 0; k < s->body_count; ++k) {
      if (s->bodies[k].index1 == st->rotor.index1) continue;
      sn_vec2 p = sn_body_get_local_point(w, st->rotor, sn_body_get_position(w, s->bodies[k]));
      if (fabsf(p.x) > 10.5f || fabsf(p.y) > 10.5f) m->outside++;
    }
    break;
  default:
    break;
  }
}
