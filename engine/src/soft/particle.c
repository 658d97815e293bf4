/* Soft bodies and particles: creation, destruction, accessors. The XPBD
 * stage that moves them lives in soft/soft_step.c. */
#include <string.h>

#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

#define SN_CHECK(w)                                                                                                    \
  do {                                                                                                                 \
    if ((w) == NULL) return SN_ERR_NULL;                                                                               \
    if ((w)->locked) return sn_world_locked_error((w), __func__);                                                      \
  } while (0)

sn_soft_body_def sn_default_soft_body_def(void) {
  sn_soft_body_def d;
  memset(&d, 0, sizeof(d));
  d.friction = 0.4f;
  d.collide_rigid = true;
  d.collide_soft = true;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

sn_particle_def sn_default_particle_def(void) {
  sn_particle_def d;
  memset(&d, 0, sizeof(d));
  d.mass = 0.01f;
  d.radius = 0.02f;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

sn_particle *sn_get_particle(sn_world *w, sn_particle_id id, sn_result *code) {
  return SN_RESOLVE(w, particles, sn_particle, "particle", id, code);
}

static sn_soft_body *sn_get_soft(sn_world *w, sn_soft_body_id id, sn_result *code) {
  return SN_RESOLVE(w, soft_bodies, sn_soft_body, "soft body", id, code);
}

static bool sn_soft_def_ok(sn_world *w, const sn_soft_body_def *d) {
  if (d == NULL) return sn_world_error(w, SN_ERR_NULL, "soft body def is NULL"), false;
  if (d->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_soft_body_def()"), false;
  if (!sn_is_finite(d->friction) || !sn_is_finite(d->restitution) || !sn_is_finite(d->damping) ||
      !sn_is_finite(d->rigid_damping))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "soft body material must be finite"), false;
  if (d->friction < 0.0f || d->restitution < 0.0f || d->restitution > 1.0f || d->damping < 0.0f ||
      d->rigid_damping < 0.0f || d->rigid_damping > 1.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                          "soft body material out of range (friction >= 0, restitution and rigid_damping in 0..1, "
                          "damping >= 0)"),
           false;
  return true;
}

sn_soft_body_id sn_create_soft_body(sn_world *w, const sn_soft_body_def *def) {
  if (w == NULL) return SN_NULL_SOFT_BODY;
  if (w->locked) return sn_world_locked_error(w, "sn_create_soft_body"), SN_NULL_SOFT_BODY;
  if (!sn_soft_def_ok(w, def)) return SN_NULL_SOFT_BODY;
  sn_pool pool = sn_soft_body_pool(w);
  if (!sn_world_make_room(w, &pool, 1, w->max_soft_bodies, "max_soft_bodies", "soft bodies", NULL))
    return SN_NULL_SOFT_BODY;
  int32_t index = sn_pool_acquire(&pool);
  sn_soft_body *s = w->soft_bodies.data + index;
  s->material = *def;
  return sn_make_soft_body_id(w, index);
}

/* Frees particle slots (their constraints must be gone already). */
static void sn_free_particle_slot(sn_world *w, int32_t index) {
  sn_pool pool = sn_particle_pool(w);
  sn_pool_release(&pool, index);
}

sn_result sn_destroy_soft_body(sn_world *w, sn_soft_body_id id) {
  sn_result code;
  sn_soft_body *s = sn_get_soft(w, id, &code);
  if (s == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_soft_body");
  if (s->particle_count > 0) {
    size_t bytes = (size_t)w->particles.count;
    uint8_t *mark = sn_mem_calloc(&w->mem, bytes);
    if (mark == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot destroy soft body");
    for (int32_t i = 0; i < s->particle_count; ++i) mark[s->particles[i]] = 1;
    sn_constraints_destroy_for_particles(w, mark);
    sn_mem_free(&w->mem, mark, bytes);
    for (int32_t i = 0; i < s->particle_count; ++i) sn_free_particle_slot(w, s->particles[i]);
  }
  sn_mem_free(&w->mem, s->particles, (size_t)s->particle_capacity * sizeof(int32_t));
  sn_mem_free(&w->mem, s->edges, (size_t)s->edge_capacity * 2 * sizeof(int32_t));
  s->particles = s->edges = NULL;
  s->particle_count = s->particle_capacity = s->edge_count = s->edge_capacity = 0;
  sn_pool pool = sn_soft_body_pool(w);
  sn_pool_release(&pool, id.index1 - 1);
  return SN_OK;
}

void sn_soft_destroy_all(sn_world *w) {
  for (int32_t i = 0; i < w->soft_bodies.count; ++i) {
    sn_soft_body *s = w->soft_bodies.data + i;
    if (!s->in_use) continue;
    sn_mem_free(&w->mem, s->particles, (size_t)s->particle_capacity * sizeof(int32_t));
    sn_mem_free(&w->mem, s->edges, (size_t)s->edge_capacity * 2 * sizeof(int32_t));
  }
  sn_array_free(&w->mem, w->edge_pairs);
  sn_array_free(&w->mem, w->hash_pairs);
  sn_array_free(&w->mem, w->joined_particles);
  sn_array_free(&w->mem, w->soft_motion);
  sn_scratch_free(&w->mem, &w->hash_scratch);
  sn_scratch_free(&w->mem, &w->hash_input);
  sn_array_free(&w->mem, w->soft_bodies);
  sn_array_free(&w->mem, w->particles);
  sn_array_free(&w->mem, w->particle_shape_pairs);
  sn_array_free(&w->mem, w->particle_pairs);
}

bool sn_soft_body_is_valid(sn_world *w, sn_soft_body_id id) { return SN_POOL_ID_LIVE(w, sn_soft_body_pool, id); }

int32_t sn_soft_body_get_particle_count(sn_world *w, sn_soft_body_id id) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  return s ? s->particle_count : 0;
}

int32_t sn_soft_body_get_particles(sn_world *w, sn_soft_body_id id, sn_particle_id *out, int32_t capacity) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  if (s == NULL || out == NULL || capacity <= 0) return 0;
  int32_t n = s->particle_count < capacity ? s->particle_count : capacity;
  for (int32_t i = 0; i < n; ++i) out[i] = sn_make_particle_id(w, s->particles[i]);
  return n;
}

int32_t sn_soft_body_get_constraints(sn_world *w, sn_soft_body_id id, sn_constraint_id *out, int32_t capacity) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  if (s == NULL || out == NULL || capacity <= 0) return 0;
  int32_t soft = id.index1 - 1, n = 0;
  for (int32_t i = 0; i < w->constraints.count && n < capacity; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || k->particle_count == 0) continue;
    bool mine = true;
    for (int32_t j = 0; j < k->particle_count && mine; ++j) mine = w->particles.data[k->particles[j]].soft == soft;
    if (mine) out[n++] = (sn_constraint_id){i + 1, w->tag, k->generation};
  }
  return n;
}

sn_soft_body_def sn_soft_body_get_material(sn_world *w, sn_soft_body_id id) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  if (s == NULL) {
    sn_soft_body_def d;
    memset(&d, 0, sizeof(d));
    return d;
  }
  return s->material;
}

sn_result sn_soft_body_set_material(sn_world *w, sn_soft_body_id id, const sn_soft_body_def *def) {
  sn_result code;
  sn_soft_body *s = sn_get_soft(w, id, &code);
  if (s == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_soft_body_set_material");
  if (!sn_soft_def_ok(w, def)) return SN_ERR_INVALID_ARGUMENT;
  s->material = *def;
  return SN_OK;
}

float sn_soft_body_get_mass(sn_world *w, sn_soft_body_id id) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  if (s == NULL) return 0.0f;
  double m = 0.0;
  for (int32_t i = 0; i < s->particle_count; ++i) {
    const sn_particle *p = w->particles.data + s->particles[i];
    if (p->inv_mass > 0.0f && !p->kinematic) m += p->mass;
  }
  return (float)m;
}

/* centre of mass (what = 0) or its velocity (what = 1) of the free particles */
static sn_vec2 sn_soft_average(sn_world *w, sn_soft_body_id id, int what) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  if (s == NULL) return (sn_vec2){0.0f, 0.0f};
  double m = 0.0, x = 0.0, y = 0.0;
  for (int32_t i = 0; i < s->particle_count; ++i) {
    const sn_particle *p = w->particles.data + s->particles[i];
    if (p->inv_mass == 0.0f || p->kinematic) continue;
    sn_vec2 q = what == 0 ? p->x : p->v;
    m += p->mass;
    x += p->mass * q.x;
    y += p->mass * q.y;
  }
  return m > 0.0 ? (sn_vec2){(float)(x / m), (float)(y / m)} : (sn_vec2){0.0f, 0.0f};
}

sn_vec2 sn_soft_body_get_center(sn_world *w, sn_soft_body_id id) { return sn_soft_average(w, id, 0); }
sn_vec2 sn_soft_body_get_linear_velocity(sn_world *w, sn_soft_body_id id) { return sn_soft_average(w, id, 1); }

sn_result sn_soft_body_translate(sn_world *w, sn_soft_body_id id, sn_vec2 delta) {
  sn_result code;
  sn_soft_body *s = sn_get_soft(w, id, &code);
  if (s == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_soft_body_translate");
  if (!sn_vec2_is_finite(delta)) return sn_world_error(w, SN_ERR_NOT_FINITE, "translation must be finite");
  for (int32_t i = 0; i < s->particle_count; ++i) {
    if (!sn_vec2_within_limit(sn_add(w->particles.data[s->particles[i]].x, delta)))
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT,
                            "translation moves particles beyond +-SN_MAX_COORDINATE (1e6 m)");
  }
  for (int32_t i = 0; i < s->particle_count; ++i) {
    sn_particle *p = w->particles.data + s->particles[i];
    p->x = sn_add(p->x, delta);
    p->target = sn_add(p->target, delta);
  }
  return SN_OK;
}

/* Particles ---------------------------------------------------------------- */

sn_particle_id sn_create_particle(sn_world *w, sn_soft_body_id soft, const sn_particle_def *def) {
  if (w == NULL) return SN_NULL_PARTICLE;
  if (w->locked) return sn_world_locked_error(w, "sn_create_particle"), SN_NULL_PARTICLE;
  sn_soft_body *s = sn_get_soft(w, soft, NULL);
  if (s == NULL) return SN_NULL_PARTICLE;
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "particle def is NULL"), SN_NULL_PARTICLE;
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_particle_def()"), SN_NULL_PARTICLE;
  if (!sn_vec2_is_finite(def->position) || !sn_vec2_is_finite(def->velocity) || !sn_is_finite(def->mass) ||
      !sn_is_finite(def->radius))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "particle position, velocity, mass and radius must be finite"),
           SN_NULL_PARTICLE;
  if (!sn_vec2_within_limit(def->position) || !sn_within_limit(def->radius))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "particle position or radius beyond SN_MAX_COORDINATE (1e6 m)"),
           SN_NULL_PARTICLE;
  if (def->mass < 0.0f || def->radius < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "particle mass and radius must be >= 0"), SN_NULL_PARTICLE;
  if (def->mass > 0.0f && !sn_is_finite(1.0f / def->mass))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "particle mass %g is too small: its inverse overflows",
                          (double)def->mass),
           SN_NULL_PARTICLE;
  sn_pool pool = sn_particle_pool(w);
  if (!sn_world_make_room(w, &pool, 1, w->max_particles, "max_particles", "particles", NULL)) return SN_NULL_PARTICLE;
  if (s->particle_count == s->particle_capacity) {
    int32_t cap = s->particle_capacity;
    if (!sn_array_grow(&w->mem, (void **)&s->particles, &cap, sizeof(int32_t), s->particle_count + 1))
      return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow soft body"), SN_NULL_PARTICLE;
    s->particle_capacity = cap;
  }
  int32_t index = sn_pool_acquire(&pool);
  sn_particle *p = w->particles.data + index;
  p->x = def->position;
  p->v = def->kinematic ? (sn_vec2){0.0f, 0.0f} : def->velocity;
  p->target = def->position;
  p->mass = def->mass;
  p->inv_mass = def->mass > 0.0f && !def->kinematic ? 1.0f / def->mass : 0.0f;
  p->radius = def->radius;
  p->kinematic = def->kinematic;
  p->soft = soft.index1 - 1;
  p->user_data = def->user_data;
  s->particles[s->particle_count++] = index;
  return sn_make_particle_id(w, index);
}

sn_result sn_destroy_particle(sn_world *w, sn_particle_id id) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_particle");
  int32_t index = id.index1 - 1;
  size_t bytes = (size_t)w->particles.count;
  uint8_t *mark = sn_mem_calloc(&w->mem, bytes);
  if (mark == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot destroy particle");
  mark[index] = 1;
  sn_constraints_destroy_for_particles(w, mark);
  sn_mem_free(&w->mem, mark, bytes);
  sn_soft_body *s = w->soft_bodies.data + p->soft;
  for (int32_t i = 0; i < s->edge_count;) {
    if (s->edges[2 * i] == index || s->edges[2 * i + 1] == index) {
      memmove(s->edges + 2 * i, s->edges + 2 * i + 2, (size_t)(s->edge_count - i - 1) * 2 * sizeof(int32_t));
      s->edge_count--;
    } else {
      ++i;
    }
  }
  for (int32_t i = 0; i < s->particle_count; ++i) {
    if (s->particles[i] == index) {
      memmove(s->particles + i, s->particles + i + 1, (size_t)(s->particle_count - i - 1) * sizeof(int32_t));
      s->particle_count--;
      break;
    }
  }
  sn_free_particle_slot(w, index);
  return SN_OK;
}

bool sn_particle_is_valid(sn_world *w, sn_particle_id id) { return SN_POOL_ID_LIVE(w, sn_particle_pool, id); }

sn_soft_body_id sn_particle_get_soft_body(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? sn_make_soft_body_id(w, p->soft) : SN_NULL_SOFT_BODY;
}

sn_vec2 sn_particle_get_position(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->x : (sn_vec2){0.0f, 0.0f};
}

sn_result sn_particle_set_position(sn_world *w, sn_particle_id id, sn_vec2 position) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  SN_CHECK(w);
  if (!sn_vec2_is_finite(position)) return sn_world_error(w, SN_ERR_NOT_FINITE, "position must be finite");
  if (!sn_vec2_within_limit(position))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "position beyond +-SN_MAX_COORDINATE (1e6 m)");
  p->x = position;
  p->target = position;
  p->has_target = false;
  p->frozen = false; /* a fresh, finite position */
  return SN_OK;
}

bool sn_particle_is_frozen(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->frozen : false;
}

sn_vec2 sn_particle_get_velocity(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->v : (sn_vec2){0.0f, 0.0f};
}

sn_result sn_particle_set_velocity(sn_world *w, sn_particle_id id, sn_vec2 velocity) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  SN_CHECK(w);
  if (!sn_vec2_is_finite(velocity)) return sn_world_error(w, SN_ERR_NOT_FINITE, "velocity must be finite");
  if (p->kinematic)
    return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "kinematic particles move by sn_particle_set_target");
  p->v = velocity;
  return SN_OK;
}

float sn_particle_get_mass(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->mass : 0.0f;
}

sn_result sn_particle_set_mass(sn_world *w, sn_particle_id id, float mass) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  SN_CHECK(w);
  if (!sn_is_finite(mass)) return sn_world_error(w, SN_ERR_NOT_FINITE, "mass must be finite");
  if (mass < 0.0f) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "mass must be >= 0");
  if (mass > 0.0f && !sn_is_finite(1.0f / mass))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "mass %g is too small: its inverse overflows", (double)mass);
  p->mass = mass;
  p->inv_mass = mass > 0.0f && !p->kinematic ? 1.0f / mass : 0.0f;
  if (p->inv_mass == 0.0f) p->v = (sn_vec2){0.0f, 0.0f};
  return SN_OK;
}

float sn_particle_get_radius(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->radius : 0.0f;
}

bool sn_particle_is_kinematic(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->kinematic : false;
}

sn_result sn_particle_set_target(sn_world *w, sn_particle_id id, sn_vec2 target) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  SN_CHECK(w);
  if (!sn_vec2_is_finite(target)) return sn_world_error(w, SN_ERR_NOT_FINITE, "target must be finite");
  if (!sn_vec2_within_limit(target))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "target beyond +-SN_MAX_COORDINATE (1e6 m)");
  if (!p->kinematic) return sn_world_error(w, SN_ERR_WRONG_BODY_TYPE, "only kinematic particles take a target");
  p->target = target;
  p->has_target = true;
  return SN_OK;
}

sn_result sn_particle_set_user_data(sn_world *w, sn_particle_id id, void *user_data) {
  sn_result code;
  sn_particle *p = sn_get_particle(w, id, &code);
  if (p == NULL) return code;
  SN_CHECK(w);
  p->user_data = user_data;
  return SN_OK;
}

void *sn_particle_get_user_data(sn_world *w, sn_particle_id id) {
  sn_particle *p = sn_get_particle(w, id, NULL);
  return p ? p->user_data : NULL;
}

sn_result sn_soft_body_add_edge(sn_world *w, sn_soft_body_id id, sn_particle_id a, sn_particle_id b) {
  sn_result code;
  sn_soft_body *s = sn_get_soft(w, id, &code);
  if (s == NULL) return code;
  SN_CHECK(w);
  sn_particle *pa = sn_get_particle(w, a, &code);
  if (pa == NULL) return code;
  sn_particle *pb = sn_get_particle(w, b, &code);
  if (pb == NULL) return code;
  int32_t soft = id.index1 - 1;
  if (pa->soft != soft || pb->soft != soft)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "edge particles must belong to the soft body");
  if (a.index1 == b.index1) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "an edge needs two particles");
  if (!sn_array_grow(&w->mem, (void **)&s->edges, &s->edge_capacity, 2 * sizeof(int32_t), s->edge_count + 1))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow edges");
  s->edges[2 * s->edge_count] = a.index1 - 1;
  s->edges[2 * s->edge_count + 1] = b.index1 - 1;
  s->edge_count++;
  return SN_OK;
}

int32_t sn_soft_body_get_edge_count(sn_world *w, sn_soft_body_id id) {
  sn_soft_body *s = sn_get_soft(w, id, NULL);
  return s ? s->edge_count : 0;
}
