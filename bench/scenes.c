/* Standard scenes (docs/benchmark.md). Units m, kg, s; gravity (0, -10). */
#include "scenes.h"
#include "platform/platform.h" /* SN_PLUGIN_SUFFIX */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shipped.h"

const char *const sn_rigid_scene_names[] = {"pyramid", "tower", "rain", "ratio", "chain", "cards", "tiny", NULL};

typedef struct sn_plugin_dir_pick {
  char *out;
  size_t cap;
  bool found;
} sn_plugin_dir_pick;

/* the first folder that holds the shipped plugins (revolute.so, .dll on Windows, stands for them) */
static bool sn_pick_plugin_dir(const char *dir, void *context) {
  sn_plugin_dir_pick *pick = context;
  char path[4096];
  FILE *f;
  if (snprintf(path, sizeof path, "%s/revolute" SN_PLUGIN_SUFFIX, dir) >= (int)sizeof path ||
      (f = fopen(path, "rb")) == NULL)
    return true;
  fclose(f);
  pick->found = snprintf(pick->out, pick->cap, "%s", dir) < (int)pick->cap;
  return !pick->found;
}

bool sn_scene_plugin_dir(char *out, size_t capacity) {
  sn_plugin_dir_pick pick = {out, capacity, false};
  if (capacity > 0) out[0] = '\0';
  sn_plugin_search_path(sn_pick_plugin_dir, &pick);
  return pick.found;
}

int32_t sn_scene_default_size(const char *name) {
  if (strcmp(name, "pyramid") == 0) return 20;
  if (strcmp(name, "tower") == 0) return 20;
  if (strcmp(name, "rain") == 0) return 2000;
  if (strcmp(name, "chain") == 0) return 100;
  if (strcmp(name, "cloth") == 0) return 32;
  if (strcmp(name, "jelly") == 0) return 50;
  if (strcmp(name, "cards") == 0) return SN_CARDS_DEFAULT_LEAN;
  return 1;
}

static bool sn_scene_reserve(sn_scene *s, int32_t n) {
  s->bodies = calloc((size_t)n, sizeof(sn_body_id));
  s->initial = calloc((size_t)n, sizeof(sn_vec2));
  return s->bodies != NULL && s->initial != NULL;
}

static void sn_scene_add(sn_scene *s, sn_body_id id, sn_vec2 p) {
  s->bodies[s->body_count] = id;
  s->initial[s->body_count] = p;
  if (s->body_count == 0 || p.y > s->initial[s->top_body].y) s->top_body = s->body_count;
  s->body_count++;
}

static sn_body_id sn_add_static_box(sn_world *w, float hx, float hy, sn_vec2 center) {
  sn_body_def bd = sn_default_body_def();
  bd.position = center;
  sn_body_id ground = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sn_create_polygon_shape(w, ground, &sd, &box);
  return ground;
}

/* A dynamic box of half-extents (hx, hy), friction 0.6, at p turned by angle. */
static sn_body_id sn_add_turned_box(sn_scene *s, float hx, float hy, float density, sn_vec2 p, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = angle;
  sn_body_id id = sn_create_body(s->world, &bd);
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  sd.friction = 0.6f;
  sn_create_polygon_shape(s->world, id, &sd, &box);
  sn_scene_add(s, id, p);
  return id;
}

static sn_body_id sn_add_box(sn_scene *s, float half, float density, sn_vec2 p) {
  return sn_add_turned_box(s, half, half, density, p, 0.0f);
}

static sn_body_id sn_add_ball(sn_scene *s, float radius, sn_vec2 p) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id id = sn_create_body(s->world, &bd);
  sn_circle c = {{0.0f, 0.0f}, radius};
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sn_create_circle_shape(s->world, id, &sd, &c);
  sn_scene_add(s, id, p);
  return id;
}

/* One playing card of the house: 0.02 m x 1 m, density 1, centre c, turned
 * by angle from upright. */
static void sn_add_card(sn_scene *s, sn_vec2 c, float angle) {
  sn_add_turned_box(s, SN_CARD_HALF_THICKNESS, SN_CARD_HALF_LENGTH, 1.0f, c, angle);
}

void sn_build_card_house(sn_scene *s, int32_t storeys, float lean, float apex_gap, float apex_spacing) {
  const float t = SN_CARD_HALF_THICKNESS, h = SN_CARD_HALF_LENGTH;
  const float sn = sinf(lean), cs = cosf(lean), tilt = 0.5f * 3.14159265f - lean;
  /* an A-frame's top: the outer upper corners stand sin + 2 t cos above its floor */
  const float apex_height = 2.0f * h * sn + 2.0f * t * cs;
  float floor_y = 0.0f, first_apex = -0.5f * apex_spacing * (float)(storeys - 1);
  for (int32_t k = 0; k < storeys; ++k) {
    int32_t frames = storeys - k;
    for (int32_t j = 0; j < frames; ++j) {
      float apex = first_apex + apex_spacing * (float)j;
      /* the inner top corners apex_gap apart, the lower bottom corner on the floor */
      float dx = 0.5f * apex_gap + h * cs + t * sn, y = floor_y + h * sn + t * cs;
      sn_add_card(s, (sn_vec2){apex - dx, y}, -tilt);
      sn_add_card(s, (sn_vec2){apex + dx, y}, tilt);
    }
    floor_y += apex_height;
    for (int32_t j = 0; j + 1 < frames; ++j) {
      float mid = first_apex + apex_spacing * ((float)j + 0.5f);
      sn_add_card(s, (sn_vec2){mid, floor_y + t}, 0.5f * 3.14159265f);
    }
    floor_y += 2.0f * t;
    first_apex += 0.5f * apex_spacing;
  }
}

bool sn_scene_build(sn_scene *s, const char *name, int32_t size, int32_t substeps, bool sleep) {
  return sn_scene_build_ex(s, name, size, substeps, sleep, NULL);
}

bool sn_scene_build_ex(sn_scene *s, const char *name, int32_t size, int32_t substeps, bool sleep,
                       const sn_registry *registry) {
  sn_world_def wd = sn_default_world_def();
  if (substeps > 0) wd.substeps = substeps;
  wd.enable_sleep = sleep;
  wd.registry = registry;
  return sn_scene_build_def(s, name, size, &wd);
}

bool sn_scene_build_def(sn_scene *s, const char *name, int32_t size, const sn_world_def *base) {
  memset(s, 0, sizeof(*s));
  s->ratio_small = s->ratio_big = -1;
  if (sn_box2d_scene_is(name)) return sn_box2d_scene_build(s, name, size, base);
  if (size <= 0) size = sn_scene_default_size(name);
  sn_world_def wd = *base;
  const sn_registry *registry = base->registry;
  s->size = size;
  if (strcmp(name, "pyramid") == 0) {
    s->name = "pyramid";
    s->default_steps = 600;
    wd.body_capacity = size * (size + 1) / 2 + 1;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, size * (size + 1) / 2)) return false;
    sn_add_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    for (int32_t i = 0; i < size; ++i) {
      for (int32_t j = i; j < size; ++j) {
        float x = (float)(i + 1) * 0.5f + (float)(j - i) * 1.0f - 0.5f * (float)size;
        float y = (float)(2 * i + 1) * 0.5f;
        sn_add_box(s, 0.5f, 1.0f, (sn_vec2){x, y});
      }
    }
    return true;
  }
  if (strcmp(name, "tiny") == 0) {
    /* the fixed cost of a step: one box resting on the ground, one contact */
    s->name = "tiny";
    s->default_steps = 20000;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, 1)) return false;
    sn_add_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    sn_add_box(s, 0.5f, 1.0f, (sn_vec2){0.0f, 0.5f});
    return true;
  }
  if (strcmp(name, "tower") == 0) {
    s->name = "tower";
    s->default_steps = 1200;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, size)) return false;
    sn_add_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    for (int32_t k = 0; k < size; ++k) sn_add_box(s, 0.5f, 1.0f, (sn_vec2){0.0f, 0.5f + (float)k});
    return true;
  }
  if (strcmp(name, "rain") == 0) {
    s->name = "rain";
    s->default_steps = 600;
    s->is_rain = true;
    wd.body_capacity = size + 4;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, size)) return false;
    sn_add_static_box(s->world, 20.0f, 0.5f, (sn_vec2){0.0f, 0.5f});
    sn_add_static_box(s->world, 0.5f, 20.0f, (sn_vec2){-20.5f, 20.0f});
    sn_add_static_box(s->world, 0.5f, 20.0f, (sn_vec2){20.5f, 20.0f});
    for (int32_t k = 0; k < size; ++k) {
      int32_t r = k / 40, c = k % 40;
      sn_vec2 p = {-19.5f + (float)c, 3.0f + (float)r};
      if (k % 2 == 0)
        sn_add_ball(s, 0.4f, p);
      else
        sn_add_box(s, 0.4f, 1.0f, p);
    }
    return true;
  }
  if (strcmp(name, "chain") == 0) {
    /* `size` boxes 0.5 m x 0.1 m in a horizontal line, joined end to end by
     * revolute joints, the first pinned to a static body; they swing down. */
    s->name = "chain";
    s->default_steps = 600;
    s->link_half = 0.25f;
    if (registry == NULL || sn_registry_find_type(registry, "revolute") == NULL) {
      static const char *const revolute[] = {"revolute"};
      s->registry = sn_create_registry(NULL);
      char msg[512] = "out of memory";
      if (s->registry == NULL || sn_shipped_add(s->registry, NULL, revolute, 1, msg, sizeof msg) != SN_OK) {
        fprintf(stderr, "chain scene: %s\n", msg);
        return false;
      }
      wd.registry = s->registry;
    }
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, size)) return false;
    sn_body_def gd = sn_default_body_def();
    gd.position = (sn_vec2){0.0f, 60.0f};
    sn_body_id prev = sn_create_body(s->world, &gd);
    for (int32_t k = 0; k < size; ++k) {
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){0.25f + 0.5f * (float)k, 60.0f};
      sn_body_id link = sn_create_body(s->world, &bd);
      sn_polygon box;
      sn_make_box(0.25f, 0.05f, &box);
      sn_shape_def sd = sn_default_shape_def();
      sd.density = 20.0f;
      sn_create_polygon_shape(s->world, link, &sd, &box);
      sn_param_value v[1] = {{"anchor", 0.5 * k, 60.0}};
      sn_constraint_def cd = sn_default_constraint_def();
      cd.type = "revolute";
      cd.bodies[0] = prev;
      cd.bodies[1] = link;
      cd.params = v;
      cd.param_count = 1;
      if (sn_create_constraint(s->world, &cd).index1 == 0) return false;
      s->constraint_count++;
      sn_scene_add(s, link, bd.position);
      prev = link;
    }
    return true;
  }
  if (strcmp(name, "cards") == 0) {
    /* a house of cards three storeys high; size is the cards' lean from
     * the horizontal in degrees */
    if (size < 45 || size > 85) {
      fprintf(stderr, "cards scene: the size is the cards' lean in degrees, 45 to 85, not %d\n", (int)size);
      return false;
    }
    s->name = "cards";
    s->default_steps = 600;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, 15)) return false;
    sn_add_static_box(s->world, 20.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    sn_build_card_house(s, 3, (float)size * 3.14159265f / 180.0f, SN_CARDS_APEX_GAP, SN_CARDS_APEX_SPACING);
    return true;
  }
  if (strcmp(name, "ratio") == 0) {
    s->name = "ratio";
    s->default_steps = 600;
    s->size = 1;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL || !sn_scene_reserve(s, 2)) return false;
    sn_add_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    sn_add_box(s, 0.5f, 1.0f, (sn_vec2){0.0f, 0.5f});
    s->ratio_small = 0;
    /* big box: half 2.0, density 100 */
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){0.0f, 3.0f};
    sn_body_id big = sn_create_body(s->world, &bd);
    sn_polygon box;
    sn_make_box(2.0f, 2.0f, &box);
    sn_shape_def sd = sn_default_shape_def();
    sd.density = 100.0f;
    sn_create_polygon_shape(s->world, big, &sd, &box);
    sn_scene_add(s, big, bd.position);
    s->ratio_big = 1;
    return true;
  }
  return sn_soft_scene_build(s, name, size, &wd);
}

void sn_scene_destroy(sn_scene *s) {
  sn_box2d_scene_destroy(s);
  sn_soft_scene_destroy(s);
  if (s->world) sn_destroy_world(s->world);
  if (s->registry) sn_destroy_registry(s->registry);
  free(s->bodies);
  free(s->initial);
  memset(s, 0, sizeof(*s));
}

uint64_t sn_scene_hash_bytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

void sn_scene_measure(const sn_scene *s, sn_scene_metrics *m) {
  memset(m, 0, sizeof(*m));
  uint64_t h = 0xcbf29ce484222325ull;
  for (int32_t k = 0; k < s->body_count; ++k) {
    sn_body_id id = s->bodies[k];
    sn_transform xf = sn_body_get_transform(s->world, id);
    sn_vec2 v = sn_body_get_linear_velocity(s->world, id);
    float w = sn_body_get_angular_velocity(s->world, id);
    float mass = sn_body_get_mass(s->world, id), inertia = sn_body_get_rotational_inertia(s->world, id);
    double dx = (double)xf.p.x - s->initial[k].x, dy = (double)xf.p.y - s->initial[k].y;
    double d = sqrt(dx * dx + dy * dy);
    if (d > m->max_dx) m->max_dx = d;
    if (k == s->top_body) m->top_drift = d;
    if (s->is_rain) {
      if (fabsf(xf.p.x) >= 21.0f || xf.p.y < 0.0f) m->fallen++;
    } else if (xf.p.y < s->initial[k].y - 0.25f) {
      m->fallen++;
    }
    m->ke_end += 0.5 * mass * ((double)v.x * v.x + (double)v.y * v.y) + 0.5 * inertia * (double)w * w;
    float state[6] = {xf.p.x, xf.p.y, xf.q.c, xf.q.s, v.x, v.y};
    h = sn_scene_hash_bytes(h, state, sizeof(state));
    h = sn_scene_hash_bytes(h, &w, sizeof(w));
  }
  if (s->ratio_big >= 0) {
    float big_y = sn_body_get_position(s->world, s->bodies[s->ratio_big]).y;
    float small_y = sn_body_get_position(s->world, s->bodies[s->ratio_small]).y;
    m->min_y_gap = (double)(big_y - small_y) - 2.5;
    m->has_min_y_gap = true;
  }
  if (s->link_half > 0.0f) {
    /* joint k joins link k-1's right end (or the pin) to link k's left end */
    double worst = 0.0;
    sn_vec2 prev_end = {0.0f, 60.0f};
    for (int32_t k = 0; k < s->body_count; ++k) {
      sn_transform xf = sn_body_get_transform(s->world, s->bodies[k]);
      sn_vec2 left = {xf.p.x - xf.q.c * s->link_half, xf.p.y - xf.q.s * s->link_half};
      sn_vec2 right = {xf.p.x + xf.q.c * s->link_half, xf.p.y + xf.q.s * s->link_half};
      double e = hypot((double)left.x - prev_end.x, (double)left.y - prev_end.y);
      if (e > worst) worst = e;
      prev_end = right;
    }
    m->link_error = worst / (2.0 * s->link_half);
    m->has_link_error = true;
  }
  sn_soft_scene_measure(s, m, &h);
  m->state_hash = h;
}
