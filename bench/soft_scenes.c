/* Soft and mixed standard scenes (docs/benchmark.md, standard scenes 5-7), built with the
 * public builders; their distance and area constraints are recorded at
 * build time so max_strain and max_area_error can be measured at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenes.h"
#include "shipped.h"

const char *const sn_soft_scene_names[] = {"cloth", "jelly", "mixed", NULL};

static const char *const sn_soft_plugins[] = {"xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach"};

/* The caller's registry (sn_scene_build_ex: the sandbox passes one with every
 * plugin, so its mouse joint works here too) if it has every type the soft
 * scenes need; else a registry of the scene's own from the plugin folder. */
static bool sn_load_soft_plugins(sn_scene *s, sn_world_def *wd) {
  bool have_all = wd->registry != NULL;
  for (size_t i = 0; have_all && i < sizeof(sn_soft_plugins) / sizeof(sn_soft_plugins[0]); ++i)
    have_all = sn_registry_find_type(wd->registry, sn_soft_plugins[i]) != NULL;
  if (have_all) return true;
  s->registry = sn_create_registry(NULL);
  if (s->registry == NULL) return false;
  char msg[512];
  if (sn_shipped_add(s->registry, NULL, sn_soft_plugins, (int32_t)(sizeof sn_soft_plugins / sizeof sn_soft_plugins[0]),
                     msg, sizeof msg) != SN_OK) {
    fprintf(stderr, "%s scene: %s\n", s->name, msg);
    return false;
  }
  wd->registry = s->registry;
  return true;
}

static sn_body_id sn_static_box(sn_world *w, float hx, float hy, sn_vec2 center) {
  sn_body_def bd = sn_default_body_def();
  bd.position = center;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(hx, hy, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sn_create_polygon_shape(w, b, &sd, &box);
  return b;
}

static bool sn_dynamic_box(sn_scene *s, float half, sn_vec2 p) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id id = sn_create_body(s->world, &bd);
  sn_polygon box;
  sn_make_box(half, half, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  if (!sn_shape_is_valid(s->world, sn_create_polygon_shape(s->world, id, &sd, &box))) return false;
  s->bodies[s->body_count] = id;
  s->initial[s->body_count] = p;
  if (s->body_count == 0 || p.y > s->initial[s->top_body].y) s->top_body = s->body_count;
  s->body_count++;
  return true;
}

static float sn_ring_area(sn_world *w, const sn_particle_id *p, int32_t n) {
  double a = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 u = sn_particle_get_position(w, p[i]), v = sn_particle_get_position(w, p[(i + 1) % n]);
    a += (double)u.x * v.y - (double)v.x * u.y;
  }
  return (float)(0.5 * a);
}

static int32_t sn_particle_slot(const sn_scene *s, sn_particle_id id) {
  /* particles of one scene are created in order: search is short in practice */
  for (int32_t i = s->particle_count - 1; i >= 0; --i) {
    if (s->particles[i].index1 == id.index1) return i;
  }
  return -1;
}

/* Records a soft body's particles, distance links (rest length: the param,
 * or the length at creation) and area constraints (target area). */
static bool sn_record_soft(sn_scene *s, sn_soft_body_id soft) {
  sn_world *w = s->world;
  if (!sn_soft_body_is_valid(w, soft)) {
    fprintf(stderr, "%s scene: %s\n", s->name, sn_world_last_error(w));
    return false;
  }
  int32_t np = sn_soft_body_get_particle_count(w, soft);
  s->particles = realloc(s->particles, (size_t)(s->particle_count + np) * sizeof(sn_particle_id));
  s->softs = realloc(s->softs, (size_t)(s->soft_count + 1) * sizeof(sn_soft_body_id));
  if (s->particles == NULL || s->softs == NULL) return false;
  s->softs[s->soft_count++] = soft;
  sn_soft_body_get_particles(w, soft, s->particles + s->particle_count, np);
  s->particle_count += np;
  int32_t nc = 1 << 20;
  sn_constraint_id *ids = malloc((size_t)nc * sizeof(sn_constraint_id));
  sn_particle_id *ring = malloc(4096 * sizeof(sn_particle_id));
  /* slot of each particle of this body by handle index (a linear search per
   * link made building cloth 128 take seconds) */
  int32_t max_index = 0;
  for (int32_t i = s->particle_count - np; i < s->particle_count; ++i)
    max_index = s->particles[i].index1 > max_index ? s->particles[i].index1 : max_index;
  int32_t *slot_of = malloc((size_t)(max_index + 1) * sizeof(int32_t));
  if (ids == NULL || ring == NULL || slot_of == NULL) return false;
  for (int32_t i = 0; i <= max_index; ++i) slot_of[i] = -1;
  for (int32_t i = s->particle_count - np; i < s->particle_count; ++i) slot_of[s->particles[i].index1] = i;
#define SN_SLOT(id)                                                                                                    \
  ((id).index1 <= max_index && slot_of[(id).index1] >= 0 ? slot_of[(id).index1] : sn_particle_slot(s, id))
  nc = sn_soft_body_get_constraints(w, soft, ids, nc);
  /* room for every constraint as a link: no realloc per link */
  s->links = realloc(s->links, (size_t)(s->link_count + nc + 1) * 2 * sizeof(int32_t));
  s->rest = realloc(s->rest, (size_t)(s->link_count + nc + 1) * sizeof(float));
  if (s->links == NULL || s->rest == NULL) return false;
  for (int32_t k = 0; k < nc; ++k) {
    double x, y;
    int32_t n = sn_constraint_get_particles(w, ids[k], ring, 4096);
    if (n == 2 && sn_constraint_get_param(w, ids[k], "rest_length", &x, &y) == SN_OK) {
      sn_vec2 a = sn_particle_get_position(w, ring[0]), b = sn_particle_get_position(w, ring[1]);
      s->links[2 * s->link_count] = SN_SLOT(ring[0]);
      s->links[2 * s->link_count + 1] = SN_SLOT(ring[1]);
      s->rest[s->link_count] = x >= 0.0 ? (float)x : hypotf(a.x - b.x, a.y - b.y);
      s->link_count++;
    } else if (n >= 3 && sn_constraint_get_param(w, ids[k], "pressure", &x, &y) == SN_OK) {
      int32_t start = s->ring_count > 0 ? s->ring_start[s->ring_count] : 0;
      s->rings = realloc(s->rings, (size_t)(start + n) * sizeof(int32_t));
      s->ring_start = realloc(s->ring_start, (size_t)(s->ring_count + 2) * sizeof(int32_t));
      s->ring_area = realloc(s->ring_area, (size_t)(s->ring_count + 1) * sizeof(float));
      if (s->rings == NULL || s->ring_start == NULL || s->ring_area == NULL) return false;
      for (int32_t i = 0; i < n; ++i) s->rings[start + i] = SN_SLOT(ring[i]);
      s->ring_start[s->ring_count] = start;
      s->ring_start[s->ring_count + 1] = start + n;
      s->ring_area[s->ring_count] = (float)x * sn_ring_area(w, ring, n);
      s->ring_count++;
    }
  }
  s->constraint_count += nc;
#undef SN_SLOT
  free(slot_of);
  free(ids);
  free(ring);
  return true;
}

static sn_ring_def sn_jelly_def(sn_vec2 center) {
  sn_ring_def d = sn_default_ring_def();
  d.center = center;
  d.radius = 0.5f;
  d.count = 24;
  d.mass = 1.0f;
  d.particle_radius = 0.05f;
  d.body.friction = 0.6f;
  d.body.rigid_damping = 0.05f; /* a jelly's internal damping: it settles instead of wobbling forever */
  return d;
}

bool sn_soft_scene_build(sn_scene *s, const char *name, int32_t size, const sn_world_def *base) {
  sn_world_def wd = *base;
  if (strcmp(name, "cloth") == 0) {
    s->name = "cloth";
    s->default_steps = 600;
    if (!sn_load_soft_plugins(s, &wd)) return false;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL) return false;
    sn_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    sn_cloth_def cd = sn_default_cloth_def();
    cd.columns = cd.rows = size;
    cd.spacing = 0.1f;
    cd.mass = 1.0f;
    cd.top_left = (sn_vec2){-0.05f * (float)(size - 1), 0.1f * (float)size + 1.0f};
    cd.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT;
    cd.material.compliance = 0.0f;
    cd.material.shear_compliance = 0.0f;
    return sn_record_soft(s, sn_create_cloth(s->world, &cd));
  }
  if (strcmp(name, "jelly") == 0) {
    s->name = "jelly";
    s->default_steps = 600;
    if (!sn_load_soft_plugins(s, &wd)) return false;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL) return false;
    sn_static_box(s->world, 20.0f, 0.5f, (sn_vec2){0.0f, 0.5f});
    sn_static_box(s->world, 0.5f, 20.0f, (sn_vec2){-20.5f, 20.0f});
    sn_static_box(s->world, 0.5f, 20.0f, (sn_vec2){20.5f, 20.0f});
    for (int32_t k = 0; k < size; ++k) {
      int32_t r = k / 16, c = k % 16;
      sn_ring_def d = sn_jelly_def((sn_vec2){-18.0f + 2.4f * (float)c + 0.3f * (float)(r % 2), 2.0f + 1.3f * (float)r});
      if (!sn_record_soft(s, sn_create_ring(s->world, &d))) return false;
    }
    return true;
  }
  if (strcmp(name, "mixed") == 0) {
    s->name = "mixed";
    s->default_steps = 900;
    s->size = 1;
    if (!sn_load_soft_plugins(s, &wd)) return false;
    s->world = sn_create_world(&wd, NULL);
    if (s->world == NULL) return false;
    s->bodies = calloc(15 + 55, sizeof(sn_body_id));
    s->initial = calloc(15 + 55, sizeof(sn_vec2));
    if (s->bodies == NULL || s->initial == NULL) return false;
    sn_static_box(s->world, 200.0f, 1.0f, (sn_vec2){0.0f, -1.0f});
    /* trampoline: 40 particles pinned at both ends, 8 m at y = 2, with a
     * 5 x 5 pyramid of boxes dropped on it */
    sn_rope_def rd = sn_default_rope_def();
    rd.start = (sn_vec2){-12.0f, 2.0f};
    rd.end = (sn_vec2){-4.0f, 2.0f};
    rd.count = 40;
    rd.mass = 2.0f;
    rd.radius = 0.1f;
    rd.pin_start = rd.pin_end = true;
    rd.material.compliance = 1e-4f;
    rd.body.friction = 0.6f;
    if (!sn_record_soft(s, sn_create_rope(s->world, &rd))) return false;
    for (int32_t i = 0; i < 5; ++i) {
      for (int32_t j = i; j < 5; ++j) {
        float x = -8.0f + (float)(i + 1) * 0.5f + (float)(j - i) * 1.0f - 2.5f;
        if (!sn_dynamic_box(s, 0.5f, (sn_vec2){x, 3.0f + (float)(2 * i + 1) * 0.5f})) return false;
      }
    }
    /* a rigid pyramid of base 10 with a jelly ball landing on it */
    for (int32_t i = 0; i < 10; ++i) {
      for (int32_t j = i; j < 10; ++j) {
        float x = 6.0f + (float)(i + 1) * 0.5f + (float)(j - i) * 1.0f - 5.0f;
        if (!sn_dynamic_box(s, 0.5f, (sn_vec2){x, (float)(2 * i + 1) * 0.5f})) return false;
      }
    }
    sn_ring_def d = sn_jelly_def((sn_vec2){6.3f, 14.0f});
    return sn_record_soft(s, sn_create_ring(s->world, &d));
  }
  return false;
}

void sn_soft_scene_destroy(sn_scene *s) {
  free(s->softs);
  free(s->particles);
  free(s->links);
  free(s->rest);
  free(s->rings);
  free(s->ring_start);
  free(s->ring_area);
}

void sn_soft_scene_measure(const sn_scene *s, sn_scene_metrics *m, uint64_t *hash) {
  if (s->particle_count == 0) return;
  sn_world *w = s->world;
  for (int32_t i = 0; i < s->particle_count; ++i) {
    sn_vec2 x = sn_particle_get_position(w, s->particles[i]), v = sn_particle_get_velocity(w, s->particles[i]);
    m->ke_end += 0.5 * sn_particle_get_mass(w, s->particles[i]) * ((double)v.x * v.x + (double)v.y * v.y);
    float state[4] = {x.x, x.y, v.x, v.y};
    *hash = sn_scene_hash_bytes(*hash, state, sizeof(state));
  }
  if (s->link_count > 0) {
    double worst = 0.0;
    for (int32_t k = 0; k < s->link_count; ++k) {
      sn_vec2 a = sn_particle_get_position(w, s->particles[s->links[2 * k]]);
      sn_vec2 b = sn_particle_get_position(w, s->particles[s->links[2 * k + 1]]);
      if (s->rest[k] <= 0.0f) continue;
      double strain = fabs(hypot((double)a.x - b.x, (double)a.y - b.y) / s->rest[k] - 1.0);
      if (strain > worst) worst = strain;
    }
    m->max_strain = worst;
    m->has_strain = true;
  }
  if (s->ring_count > 0) {
    double worst = 0.0;
    for (int32_t k = 0; k < s->ring_count; ++k) {
      double a = 0.0;
      int32_t b = s->ring_start[k], e = s->ring_start[k + 1];
      for (int32_t i = b; i < e; ++i) {
        sn_vec2 u = sn_particle_get_position(w, s->particles[s->rings[i]]);
        sn_vec2 v = sn_particle_get_position(w, s->particles[s->rings[i + 1 < e ? i + 1 : b]]);
        a += (double)u.x * v.y - (double)v.x * u.y;
      }
      double err = fabs(0.5 * a / s->ring_area[k] - 1.0);
      if (err > worst) worst = err;
    }
    m->max_area_error = worst;
    m->has_area = true;
  }
}

bool sn_scene_add_soft(sn_scene *s, sn_soft_body_id soft) { return sn_record_soft(s, soft); }
