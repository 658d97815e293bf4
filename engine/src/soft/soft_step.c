/* The soft-body part of a step: particle prediction, collisions against
 * rigid shapes (two-way) and other particles, the velocity pass (friction,
 * restitution) and rigid-mode-preserving damping.
 *
 * Collisions are XPBD contacts with zero compliance: a touching pair moves
 * both sides by their generalised inverse masses (a rigid body's w = 1/m +
 * (r x n)^2 / I, its rotation turned too); the host then turns the motion of
 * the substep into velocity. Friction and restitution act in the velocity
 * pass, bounded by the normal correction lambda / h (Macklin et al. 2019,
 * Mueller et al. 2020). Candidate pairs are found once per step with a
 * margin for the step's motion; fast particles ray-cast their substep motion
 * against thin shapes, so they cannot pass through. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "geometry/geometry.h"
#include "soft/soft_step.h"
#include "world/world.h"

/* Self-collision passes of a sweep: repeated while a pass corrected an
 * overlap above this fraction of a pair's contact distance, at most this
 * many passes in all (sn_soft_collide). */
#define SN_SOFT_CONTACT_TOLERANCE 0.01f
#define SN_SOFT_CONTACT_PASSES    8

/* ------------------------------------------------------------------------ */
/* Candidates                                                                */

typedef struct sn_candidate_query {
  sn_world *w;
  int32_t particle;
  bool joined; ///< the particle is in w->joined_particles
  bool fixed;  ///< a fixed particle (zero inverse mass): only dynamic bodies meet it
  bool full;   ///< the list holds max_contacts pairs: the search stops
  bool oom;    ///< out of memory: the search stops
  sn_aabb box; ///< the particle's reach over the step (the query adds the bodies' motion)
  float dt;
} sn_candidate_query;

static uint64_t sn_joined_key(int32_t body, int32_t particle) {
  return ((uint64_t)(uint32_t)body << 32) | (uint32_t)particle;
}

static int sn_u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Particles joined to a rigid body by a constraint (an attach) do not collide
 * with that body's shapes unless the constraint has collide_connected, as
 * joined rigid bodies do not: the pin would otherwise fight the contact (a
 * particle attached at a box's surface was pushed a radius off its anchor).
 * One sorted key per (body, particle) from the step's per-item constraints
 * (types joining bodies are never batched). False when out of memory. */
static bool sn_find_joined_particles(sn_world *w) {
  w->joined_particles.count = 0;
  const sn_constraint_lists *l = &w->constraint_lists;
  for (int32_t e = 0; e < l->items.count; ++e) {
    const sn_constraint *k = w->constraints.data + l->items.data[e];
    if (!k->in_use || k->collide_connected || k->particle_count == 0) continue;
    for (uint32_t b = 0; b < k->type->body_count; ++b) {
      for (int32_t m = 0; m < k->particle_count; ++m) {
        if (!sn_array_push(&w->mem, w->joined_particles, sn_joined_key(k->bodies[b], k->particles[m]))) return false;
      }
    }
  }
  if (w->joined_particles.count > 1)
    qsort(w->joined_particles.data, (size_t)w->joined_particles.count, sizeof(uint64_t), sn_u64_cmp);
  return true;
}

static bool sn_particle_joined(const sn_world *w, int32_t body, int32_t particle) {
  const uint64_t key = sn_joined_key(body, particle);
  int32_t lo = 0, hi = w->joined_particles.count;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (w->joined_particles.data[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < w->joined_particles.count && w->joined_particles.data[lo] == key;
}

/* How far any point of a body may move in a step, from its velocity and
 * spin at the step's start and gravity: a body falling at 45 m/s onto a
 * jelly covers 0.75 m, far past the margin of its box in the tree. */
static float sn_body_step_reach(const sn_world *w, const sn_body *b, float dt) {
  if (!b->in_use || b->type == SN_BODY_STATIC || !b->is_awake) return 0.0f;
  float reach = dt * (sn_length(b->v) + sn_absf(b->w) * b->max_extent);
  if (b->type == SN_BODY_DYNAMIC) reach += dt * dt * sn_absf(b->gravity_scale) * sn_length(w->settings.gravity);
  return reach;
}

static bool sn_candidate_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_candidate_query *q = context;
  sn_world *w = q->w;
  const sn_shape *sh = w->shapes.data + shape_index;
  if (!sh->in_use || sh->is_sensor) return true; /* sensors see particles (world/sensor.c), never push them */
  if (q->joined && sn_particle_joined(w, sh->body, q->particle)) return true;
  if (q->fixed && w->bodies.data[sh->body].type != SN_BODY_DYNAMIC) return true;
  /* the query box was grown by the fastest body's motion: a shape whose
   * box in the tree misses the particle's reach is a candidate only if its
   * own body's motion over the step can bring it there */
  if (!sn_aabb_overlaps(sh->fat_aabb, q->box)) {
    float reach = sn_body_step_reach(w, w->bodies.data + sh->body, q->dt);
    sn_aabb swept = {{sh->aabb.lower.x - reach, sh->aabb.lower.y - reach},
                     {sh->aabb.upper.x + reach, sh->aabb.upper.y + reach}};
    if (!sn_aabb_overlaps(swept, q->box)) return true;
  }
  sn_particle_pair pair;
  memset(&pair, 0, sizeof(pair));
  pair.particle = q->particle;
  pair.other = shape_index;
  if (w->particle_shape_pairs.count >= w->max_contacts) {
    q->full = true;
    return false;
  }
  if (!sn_array_push(&w->mem, w->particle_shape_pairs, pair)) {
    q->oom = true;
    return false;
  }
  return true;
}

/* A particle that moves (or is kinematic) wakes the bodies it may hit. */
static bool sn_particle_wakes(const sn_particle *p) {
  return sn_length_sq(p->v) > SN_LINEAR_SLEEP_TOLERANCE * SN_LINEAR_SLEEP_TOLERANCE || p->kinematic;
}

void sn_soft_wake_candidates(sn_world *w) {
  for (int32_t k = 0; k < w->particle_shape_pairs.count; ++k) {
    const sn_particle_pair *pair = w->particle_shape_pairs.data + k;
    if (!sn_particle_wakes(w->particles.data + pair->particle)) continue;
    int32_t body = w->shapes.data[pair->other].body;
    sn_body *b = w->bodies.data + body;
    if (b->type != SN_BODY_DYNAMIC) continue;
    if (!b->is_awake) sn_body_wake(w, body);
    b->sleep_time = 0.0f;
  }
}

/* Any proxy at all: stops the query at the first. */
static bool sn_any_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  (void)shape_index;
  *(bool *)context = true;
  return false;
}

/* How far a particle moves in a step by its own velocity (a kinematic one:
 * to its target). */
static float sn_particle_motion(const sn_particle *p, float dt) {
  return p->kinematic ? sn_length(sn_sub(p->target, p->x)) : sn_length(p->v) * dt;
}

/* A particle's reach over a step: radius plus how far it may move. Its
 * constraints drag it along with the rest of its soft body, farther than its
 * own velocity says (a cloth particle beside one that just landed, a rope's
 * tail whipping round): the bound is the motion of the body's fastest
 * particle (w->soft_motion), which covers a particle moving with any other. */
static float sn_particle_reach(const sn_world *w, const sn_particle *p, float dt, float g) {
  float move = sn_maxf(sn_particle_motion(p, dt), w->soft_motion.data[p->soft]) + g * dt * dt;
  return p->radius + move + 0.005f;
}

/* w->soft_motion: per soft body, the step's largest particle motion. */
static bool sn_find_soft_motion(sn_world *w, float dt) {
  if (!sn_array_reserve(&w->mem, w->soft_motion, w->soft_bodies.count)) return false;
  w->soft_motion.count = w->soft_bodies.count;
  for (int32_t b = 0; b < w->soft_bodies.count; ++b) w->soft_motion.data[b] = 0.0f;
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (!p->in_use || (p->inv_mass == 0.0f && !p->kinematic)) continue;
    float *m = w->soft_motion.data + p->soft;
    *m = sn_maxf(*m, sn_particle_motion(p, dt));
  }
  return true;
}

bool sn_soft_find_candidates(sn_world *w, float dt) {
  w->particle_shape_pairs.count = 0;
  w->particle_pairs.count = 0;
  w->edge_pairs.count = 0;
  if (w->particle_count == 0) return true;
  if (!sn_find_joined_particles(w) || !sn_find_soft_motion(w, dt)) return false;
  const bool joins = w->joined_particles.count > 0;
  const float g = sn_length(w->settings.gravity);
  /* the farthest any body moves in the step: particles look that much
   * farther, and sn_candidate_fcn keeps what each body's own motion reaches */
  float body_reach = 0.0f;
  for (int32_t i = 0; i < w->bodies.count; ++i)
    body_reach = sn_maxf(body_reach, sn_body_step_reach(w, w->bodies.data + i, dt));
  bool any_soft = false;
  /* First one query with the box around every particle's box: with no
   * shape near any of them (a cloth hanging in the air) the 10^4 queries,
   * which would all come back empty, are skipped */
  bool any_box = false, near = false;
  sn_aabb all = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int32_t pass = 0; pass < 2; ++pass) {
    for (int32_t i = 0; i < w->particles.count; ++i) {
      const sn_particle *p = w->particles.data + i;
      if (!p->in_use || p->radius <= 0.0f) continue;
      const sn_soft_body *s = w->soft_bodies.data + p->soft;
      any_soft = any_soft || s->material.collide_soft || s->material.self_collision;
      /* fixed particles too: to a body they are a point it cannot pass */
      if (!s->material.collide_rigid) continue;
      const bool fixed = p->inv_mass == 0.0f && !p->kinematic;
      sn_vec2 end = p->kinematic ? p->target : sn_mul_add(p->x, dt, p->v);
      /* the swept box of its own motion, grown by the body's (see sn_particle_reach) */
      float r = p->radius + 0.005f + g * dt * dt + w->soft_motion.data[p->soft];
      sn_aabb box = {{sn_minf(p->x.x, end.x) - r, sn_minf(p->x.y, end.y) - r},
                     {sn_maxf(p->x.x, end.x) + r, sn_maxf(p->x.y, end.y) + r}};
      if (pass == 0) {
        all = any_box ? sn_aabb_union(all, box) : box;
        any_box = true;
        continue;
      }
      sn_candidate_query q = {w, i, joins, fixed, false, false, box, dt};
      if (!fixed) sn_tree_query(&w->static_tree, box, UINT64_MAX, sn_candidate_fcn, &q);
      sn_aabb far = {{box.lower.x - body_reach, box.lower.y - body_reach},
                     {box.upper.x + body_reach, box.upper.y + body_reach}};
      if (!q.full && !q.oom) sn_tree_query(&w->dynamic_tree, far, UINT64_MAX, sn_candidate_fcn, &q);
      if (q.oom) return false;
      if (q.full) { /* max_contacts: the rest of the particles get no rigid candidates this step */
        w->step_limit_hits++;
        break;
      }
    }
    if (pass == 0 && any_box) {
      near = !sn_vec2_is_finite(all.lower) || !sn_vec2_is_finite(all.upper); /* then ask each */
      if (!near) sn_tree_query(&w->static_tree, all, UINT64_MAX, sn_any_fcn, &near);
      sn_aabb far = {{all.lower.x - body_reach, all.lower.y - body_reach},
                     {all.upper.x + body_reach, all.upper.y + body_reach}};
      if (!near) sn_tree_query(&w->dynamic_tree, far, UINT64_MAX, sn_any_fcn, &near);
    }
    if (!near) break;
  }
  /* particle pairs need two soft bodies that collide, or self-collision */
  int32_t colliding = 0;
  bool self = false;
  for (int32_t b = 0; b < w->soft_bodies.count; ++b) {
    const sn_soft_body *sb = w->soft_bodies.data + b;
    if (!sb->in_use || sb->particle_count == 0) continue;
    colliding += sb->material.collide_soft ? 1 : 0;
    self = self || sb->material.self_collision;
  }
  if (!any_soft || (colliding < 2 && !self)) return true;
  /* particle pairs and particle-edge pairs: one spatial hash over every
   * colliding particle and every edge (an edge as its midpoint, reaching
   * half its length further) */
  int32_t n = 0, ne = 0;
  for (int32_t i = 0; i < w->particles.count; ++i) n += w->particles.data[i].in_use ? 1 : 0;
  for (int32_t b = 0; b < w->soft_bodies.count; ++b) {
    const sn_soft_body *sb = w->soft_bodies.data + b;
    if (sb->in_use && sb->material.collide_soft && colliding >= 2) ne += sb->edge_count;
  }
  int32_t total = n + ne;
  size_t bytes = (size_t)total * (sizeof(sn_vec2) + sizeof(float) + 3 * sizeof(int32_t));
  if (!sn_scratch_reserve(&w->mem, &w->hash_input, bytes + 1)) return false;
  sn_vec2 *pts = w->hash_input.data;
  float *reach = (float *)(pts + total);
  int32_t *index = (int32_t *)(reach + total); /* particle index, or edge end a */
  int32_t *index_b = index + total;            /* edge end b, or -1 for a particle */
  int32_t *owner = index_b + total;            /* soft body */
  int32_t m = 0;
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = w->particles.data + i;
    if (!p->in_use || p->radius <= 0.0f) continue;
    const sn_soft_body *s = w->soft_bodies.data + p->soft;
    if (!s->material.collide_soft && !s->material.self_collision) continue;
    pts[m] = p->x;
    reach[m] = sn_particle_reach(w, p, dt, g);
    index[m] = i;
    index_b[m] = -1;
    owner[m++] = p->soft;
  }
  int32_t particles_end = m;
  for (int32_t b = 0; b < w->soft_bodies.count && ne > 0; ++b) {
    const sn_soft_body *sb = w->soft_bodies.data + b;
    if (!sb->in_use || !sb->material.collide_soft) continue;
    for (int32_t e = 0; e < sb->edge_count; ++e) {
      const sn_particle *pa = w->particles.data + sb->edges[2 * e], *pb = w->particles.data + sb->edges[2 * e + 1];
      pts[m] = sn_scale(0.5f, sn_add(pa->x, pb->x));
      reach[m] = 0.5f * sn_length(sn_sub(pa->x, pb->x)) +
                 sn_maxf(sn_particle_reach(w, pa, dt, g), sn_particle_reach(w, pb, dt, g));
      index[m] = sb->edges[2 * e];
      index_b[m] = sb->edges[2 * e + 1];
      owner[m++] = b;
    }
  }
  /* at most max_contacts of each kind; the hash may also find edge-edge
   * pairs (dropped), so it may look for twice as many */
  bool cut = false;
  int32_t found =
      sn_find_close_pairs(&w->mem, pts, reach, m, &w->hash_pairs.data, &w->hash_pairs.capacity, &w->hash_scratch,
                          w->max_contacts > INT32_MAX / 2 ? INT32_MAX : 2 * w->max_contacts, &cut);
  if (found < 0) return false;
  const int32_t *pairs = w->hash_pairs.data;
  for (int32_t k = 0; k < found; ++k) {
    int32_t i = pairs[2 * k], j = pairs[2 * k + 1]; /* i < j: particles come first */
    if (i >= particles_end) continue;               /* edge-edge */
    const sn_particle *pa = w->particles.data + index[i];
    const sn_soft_body *sa = w->soft_bodies.data + owner[i], *sb = w->soft_bodies.data + owner[j];
    sn_particle_pair pair;
    memset(&pair, 0, sizeof(pair));
    pair.particle = index[i];
    pair.other = index[j];
    if (j < particles_end) {
      const sn_particle *pb = w->particles.data + index[j];
      if (pa->inv_mass == 0.0f && pb->inv_mass == 0.0f) continue;
      bool ok =
          owner[i] == owner[j] ? sa->material.self_collision : sa->material.collide_soft && sb->material.collide_soft;
      if (!ok) continue;
      if (w->particle_pairs.count >= w->max_contacts) {
        cut = true;
        continue;
      }
      if (!sn_array_push(&w->mem, w->particle_pairs, pair)) return false;
    } else {
      /* a particle against another soft body's edge */
      if (owner[i] == owner[j] || !sa->material.collide_soft) continue;
      pair.body = index_b[j];
      if (w->edge_pairs.count >= w->max_contacts) {
        cut = true;
        continue;
      }
      if (!sn_array_push(&w->mem, w->edge_pairs, pair)) return false;
    }
  }
  if (cut) w->step_limit_hits++;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Spatial hash                                                              */

typedef struct sn_cell_entry {
  uint64_t key;
  int32_t index;
} sn_cell_entry;

static int sn_cell_cmp(const void *a, const void *b) {
  const sn_cell_entry *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

static uint64_t sn_cell_key(int64_t ix, int64_t iy) { return ((uint64_t)(uint32_t)ix << 32) | (uint32_t)iy; }

static int64_t sn_cell_coord(float x, float inv_cell) {
  double c = floor((double)x * inv_cell);
  if (c < -1.0e9) c = -1.0e9;
  if (c > 1.0e9) c = 1.0e9;
  return (int64_t)c;
}

/* First entry with key >= key. */
static int32_t sn_lower_bound(const sn_cell_entry *e, int32_t n, uint64_t key) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (e[mid].key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int32_t sn_find_close_pairs(sn_mem *mem, const sn_vec2 *points, const float *reach, int32_t count, int32_t **pairs,
                            int32_t *capacity, sn_scratch *scratch, int32_t max_pairs, bool *cut) {
  if (count < 2) return 0;
  /* one cell per point, cells as large as the largest interaction distance:
   * every partner then sits in the 3x3 block around a point's cell */
  float max_reach = 0.0f;
  for (int32_t i = 0; i < count; ++i) max_reach = sn_maxf(max_reach, reach[i]);
  float cell = sn_maxf(2.0f * max_reach, 1e-6f), inv_cell = 1.0f / cell;
  if (!sn_scratch_reserve(mem, scratch, (size_t)count * sizeof(sn_cell_entry))) return -1;
  sn_cell_entry *e = scratch->data;
  for (int32_t i = 0; i < count; ++i) {
    e[i].key = sn_cell_key(sn_cell_coord(points[i].x, inv_cell), sn_cell_coord(points[i].y, inv_cell));
    e[i].index = i;
  }
  qsort(e, (size_t)count, sizeof(*e), sn_cell_cmp);
  int32_t found = 0;
  for (int32_t i = 0; i < count; ++i) {
    int64_t cx = sn_cell_coord(points[i].x, inv_cell), cy = sn_cell_coord(points[i].y, inv_cell);
    for (int64_t dx = -1; dx <= 1; ++dx) {
      for (int64_t dy = -1; dy <= 1; ++dy) {
        uint64_t key = sn_cell_key(cx + dx, cy + dy);
        for (int32_t k = sn_lower_bound(e, count, key); k < count && e[k].key == key; ++k) {
          int32_t j = e[k].index;
          if (j <= i) continue;
          float d = reach[i] + reach[j];
          if (sn_length_sq(sn_sub(points[i], points[j])) >= d * d) continue;
          if (found >= max_pairs) {
            if (cut != NULL) *cut = true;
            return found;
          }
          if (2 * found + 2 > *capacity) {
            if (!sn_array_grow(mem, (void **)pairs, capacity, sizeof(int32_t), 2 * found + 2)) return -1;
          }
          (*pairs)[2 * found] = i;
          (*pairs)[2 * found + 1] = j;
          found++;
        }
      }
    }
  }
  return found;
}

/* ------------------------------------------------------------------------ */
/* Step                                                                      */

size_t sn_soft_scratch_bytes(const sn_world *w) {
  size_t n = (size_t)w->particles.count;
  return n * (sizeof(sn_solver_body) + sizeof(sn_constraint_body) + sizeof(sn_vec2) + 9 * sizeof(float) + 1) +
         (size_t)(w->awake_bodies.capacity + 1) * sizeof(sn_vec2) + 6 * 64;
}

bool sn_soft_begin(sn_world *w, sn_soft_context *s, float dt, int32_t substeps, sn_body_state *rigid,
                   int32_t rigid_count) {
  memset(s, 0, sizeof(*s));
  s->rigid = rigid;
  s->rigid_count = rigid_count;
  s->dt = dt;
  s->substeps = substeps;
  s->h = dt / (float)substeps;
  s->inv_h = 1.0f / s->h;
  s->restitution_threshold = w->settings.restitution_threshold;
  s->max_speed = w->settings.maximum_linear_speed;
  int32_t n = w->particles.count;
  s->count = n;
  if (w->particle_count == 0) return true;
  s->states = sn_arena_alloc(&w->arena, (size_t)n * sizeof(sn_solver_body));
  s->views = sn_arena_alloc(&w->arena, (size_t)n * sizeof(sn_constraint_body));
  s->prev = sn_arena_alloc(&w->arena, (size_t)n * sizeof(sn_vec2));
  s->rigid_dp0 = sn_arena_alloc(&w->arena, (size_t)(rigid_count + 1) * sizeof(sn_vec2));
  s->position = sn_arena_alloc(&w->arena, (size_t)n * 4 * sizeof(float));
  s->mass_velocity = sn_arena_alloc(&w->arena, (size_t)n * 4 * sizeof(float));
  s->damp_factor = sn_arena_alloc(&w->arena, (size_t)n * sizeof(float));
  s->kind = sn_arena_alloc(&w->arena, (size_t)n);
  if (s->states == NULL || s->views == NULL || s->prev == NULL || s->rigid_dp0 == NULL || s->position == NULL ||
      s->mass_velocity == NULL || s->damp_factor == NULL || s->kind == NULL)
    return false;
  for (int32_t i = 0; i < n; ++i) {
    const sn_particle *p = w->particles.data + i;
    sn_solver_body *st = s->states + i;
    st->v = p->in_use ? p->v : (sn_vec2){0.0f, 0.0f};
    if (p->in_use && p->kinematic) st->v = sn_scale(1.0f / dt, sn_sub(p->target, p->x));
    st->w = 0.0f;
    st->reserved = 0.0f;
    st->dp = (sn_vec2){0.0f, 0.0f};
    st->dq = (sn_rot){1.0f, 0.0f};
    s->prev[i] = st->dp;
    sn_constraint_body *v = s->views + i;
    v->state = st;
    v->inv_mass = p->in_use && !p->frozen ? p->inv_mass : 0.0f;
    v->inv_inertia = 0.0f;
    v->center = p->x;
    v->q = (sn_rot){1.0f, 0.0f};
    v->local_center = (sn_vec2){0.0f, 0.0f};
    v->origin = p->x;
    /* as sn_soft_predict_range and sn_soft_velocities_range decide */
    uint8_t kind = SN_SOFT_FREE_SLOT;
    if (p->in_use) kind = p->kinematic ? SN_SOFT_KINEMATIC : SN_SOFT_STILL;
    if (kind == SN_SOFT_STILL && p->inv_mass != 0.0f && !p->frozen) kind = SN_SOFT_DYNAMIC;
    s->kind[i] = kind;
    s->damp_factor[i] =
        kind == SN_SOFT_DYNAMIC ? 1.0f / (1.0f + s->h * w->soft_bodies.data[p->soft].material.damping) : 0.0f;
  }
  s->active = true;
  return true;
}

void sn_soft_predict(sn_world *w, sn_soft_context *s, int32_t substep) {
  sn_soft_predict_rigid(s);
  sn_soft_predict_range(w, s, substep, 0, s->count);
}

void sn_soft_predict_rigid(sn_soft_context *s) {
  if (!s->active) return;
  /* rigid centres at the substep start (their positions move later in it) */
  for (int32_t k = 0; k <= s->rigid_count; ++k) s->rigid_dp0[k] = s->rigid[k].dp;
}

void sn_soft_predict_range(sn_world *w, sn_soft_context *s, int32_t substep, int32_t begin, int32_t end) {
  if (!s->active) return;
  const float h = s->h;
  const sn_vec2 gh = sn_scale(h, w->settings.gravity);
  const float max_speed_sq = s->max_speed * s->max_speed;
  for (int32_t i = begin; i < end; ++i) {
    sn_solver_body *st = s->states + i;
    /* Rebase: a particle's view centre is its position at the substep start
     * and dp its motion within the substep. Small dp keeps v = dp / h and
     * the momentum of every correction precise (with step-long dp, the
     * rounding of dp / h alone broke momentum at 1e-5). */
    sn_constraint_body *view = s->views + i;
    view->center = sn_add(view->center, st->dp);
    view->origin = view->center;
    st->dp = (sn_vec2){0.0f, 0.0f};
    s->prev[i] = st->dp;
    const uint8_t kind = s->kind[i];
    if (kind == SN_SOFT_KINEMATIC) {
      /* on the straight line to the target, reached at the last substep */
      st->dp = sn_scale(1.0f / (float)(s->substeps - substep), sn_sub(w->particles.data[i].target, view->center));
    } else if (kind == SN_SOFT_DYNAMIC) {
      sn_vec2 v = sn_scale(s->damp_factor[i], sn_add(st->v, gh));
      v = sn_clamp_length(v, max_speed_sq);
      st->v = v;
      st->dp = sn_mul_add(st->dp, h, v);
    }
    if (s->prepack) {
      /* the first sweep's full pack (sn_soft_pack_range), while it is at hand */
      float *x = s->position + 4 * i, *m = s->mass_velocity + 4 * i;
      x[0] = view->center.x, x[1] = view->center.y, x[2] = st->dp.x, x[3] = st->dp.y;
      m[0] = view->inv_mass, m[1] = st->v.x, m[2] = st->v.y, m[3] = 0.0f;
    }
  }
}

void sn_soft_pack(sn_soft_context *s, bool full) { sn_soft_pack_range(s, full, 0, s->count); }

void sn_soft_pack_range(sn_soft_context *s, bool full, int32_t begin, int32_t end) {
  if (!s->active) return;
  float *x = s->position, *m = s->mass_velocity;
  if (full) {
    for (int32_t i = begin; i < end; ++i) {
      const sn_constraint_body *v = s->views + i;
      const sn_solver_body *st = s->states + i;
      x[4 * i] = v->center.x;
      x[4 * i + 1] = v->center.y;
      x[4 * i + 2] = st->dp.x;
      x[4 * i + 3] = st->dp.y;
      m[4 * i] = v->inv_mass;
      m[4 * i + 1] = st->v.x;
      m[4 * i + 2] = st->v.y;
      m[4 * i + 3] = 0.0f;
    }
    return;
  }
  for (int32_t i = begin; i < end; ++i) {
    x[4 * i + 2] = s->states[i].dp.x;
    x[4 * i + 3] = s->states[i].dp.y;
  }
}

void sn_soft_unpack(sn_soft_context *s) { sn_soft_unpack_range(s, 0, s->count); }

void sn_soft_unpack_range(sn_soft_context *s, int32_t begin, int32_t end) {
  if (!s->active) return;
  const float *x = s->position;
  for (int32_t i = begin; i < end; ++i) {
    s->states[i].dp.x = x[4 * i + 2];
    s->states[i].dp.y = x[4 * i + 3];
  }
}

/* Closest point of a shape (its own frame) to point p: signed distance from
 * the surface (negative inside), the outward normal and the surface point. */
typedef struct sn_closest {
  float distance;
  sn_vec2 normal, point;
} sn_closest;

static sn_closest sn_closest_on_segment(sn_vec2 p, sn_vec2 a, sn_vec2 b, float radius) {
  sn_vec2 e = sn_sub(b, a);
  float ee = sn_dot(e, e);
  float t = ee > 0.0f ? sn_clampf(sn_dot(sn_sub(p, a), e) / ee, 0.0f, 1.0f) : 0.0f;
  sn_vec2 q = sn_mul_add(a, t, e);
  sn_vec2 d = sn_sub(p, q);
  float len = sn_length(d);
  sn_closest c;
  if (len > 1e-9f) {
    c.normal = sn_scale(1.0f / len, d);
  } else {
    sn_vec2 n = ee > 0.0f ? sn_normalize((sn_vec2){-e.y, e.x}) : (sn_vec2){0.0f, 1.0f};
    c.normal = n;
  }
  c.distance = len - radius;
  c.point = sn_mul_add(q, radius, c.normal);
  return c;
}

static sn_closest sn_closest_point(const sn_geometry *g, sn_vec2 p) {
  sn_closest c;
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return sn_closest_on_segment(p, g->circle.center, g->circle.center, g->circle.radius);
  case SN_SHAPE_CAPSULE:
    return sn_closest_on_segment(p, g->capsule.center1, g->capsule.center2, g->capsule.radius);
  case SN_SHAPE_SEGMENT:
    return sn_closest_on_segment(p, g->segment.point1, g->segment.point2, 0.0f);
  case SN_SHAPE_CHAIN_SEGMENT: {
    /* one-sided: the left side is solid, so a point behind the line (within
     * the segment's extent) is pushed out along the right normal */
    sn_vec2 a = g->chain_segment.segment.point1, b = g->chain_segment.segment.point2;
    sn_vec2 e = sn_sub(b, a);
    sn_vec2 n = sn_normalize((sn_vec2){e.y, -e.x});
    float side = sn_dot(sn_sub(p, a), n);
    float t = sn_dot(sn_sub(p, a), e);
    if (side < 0.0f && t >= 0.0f && t <= sn_dot(e, e)) {
      c.distance = side;
      c.normal = n;
      c.point = sn_mul_add(p, -side, n);
      return c;
    }
    return sn_closest_on_segment(p, a, b, 0.0f);
  }
  case SN_SHAPE_POLYGON: {
    const sn_polygon *poly = &g->polygon;
    float best = -FLT_MAX;
    int32_t edge = 0;
    for (int32_t i = 0; i < poly->count; ++i) {
      float sep = sn_dot(poly->normals[i], sn_sub(p, poly->vertices[i]));
      if (sep > best) {
        best = sep;
        edge = i;
      }
    }
    if (best <= 0.0f) {
      /* inside the core polygon: out through the nearest edge */
      c.normal = poly->normals[edge];
      c.distance = best - poly->radius;
      c.point = sn_mul_add(p, -c.distance, c.normal);
      return c;
    }
    c.distance = FLT_MAX;
    for (int32_t i = 0; i < poly->count; ++i) {
      sn_vec2 a = poly->vertices[i], b = poly->vertices[i + 1 < poly->count ? i + 1 : 0];
      sn_closest e = sn_closest_on_segment(p, a, b, poly->radius);
      if (e.distance < c.distance) c = e;
    }
    return c;
  }
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  c.distance = FLT_MAX; /* no shape: never a contact */
  c.normal = (sn_vec2){0.0f, 1.0f};
  c.point = p;
  return c;
}

/* Pose of a shape's body in the current substep. */
static sn_transform sn_current_pose(const sn_world *w, const sn_soft_context *s, const sn_body *b,
                                    sn_body_state **state, float *inv_mass, float *inv_inertia, sn_vec2 *center) {
  if (b->solver_index >= 0) {
    sn_body_state *st = s->rigid + b->solver_index;
    *state = st;
    *inv_mass = b->inv_mass;
    *inv_inertia = b->inv_inertia;
    sn_transform xf;
    *center = sn_add(b->center0, st->dp);
    xf.q = sn_mul_rot(st->dq, b->q0);
    xf.p = sn_sub(*center, sn_rotate(xf.q, b->local_center));
    return xf;
  }
  (void)w;
  *state = s->rigid + s->rigid_count;
  *inv_mass = 0.0f;
  *inv_inertia = 0.0f;
  *center = b->center;
  return b->xf;
}

static void sn_collide_shape(sn_world *w, sn_soft_context *s, sn_particle_pair *pair) {
  const sn_particle *p = w->particles.data + pair->particle;
  const sn_shape *sh = w->shapes.data + pair->other;
  const sn_body *b = w->bodies.data + sh->body;
  sn_solver_body *ps = s->states + pair->particle;
  sn_body_state *bs;
  float mb, ib;
  sn_vec2 center;
  sn_transform xf = sn_current_pose(w, s, b, &bs, &mb, &ib, &center);
  sn_vec2 x0 = s->views[pair->particle].center;
  sn_vec2 pos = sn_add(x0, ps->dp);
  sn_vec2 local = sn_inv_transform_point(xf, pos);
  sn_closest c = sn_closest_point(&sh->geom, local);
  /* fast or thin: did the centre cross the surface during this substep? */
  sn_vec2 from = sn_inv_transform_point(xf, sn_add(x0, s->prev[pair->particle]));
  sn_vec2 motion = sn_sub(local, from);
  bool thin = sh->geom.type == SN_SHAPE_SEGMENT || sh->geom.type == SN_SHAPE_CHAIN_SEGMENT;
  if (thin || sn_length_sq(motion) > 0.25f * p->radius * p->radius) {
    sn_ray_input ray = {from, motion, 1.0f};
    sn_cast_output hit = sn_geometry_ray_cast(&sh->geom, &ray);
    if (hit.hit) {
      c.normal = hit.normal;
      c.point = hit.point;
      c.distance = sn_dot(sn_sub(local, hit.point), hit.normal);
    }
  }
  float C = c.distance - p->radius;
  if (C >= 0.0f) return;
  sn_vec2 n = sn_rotate(xf.q, c.normal);
  /* Lever arm from the body's centre to the particle's centre, both at the
   * substep start. Through the particle's centre because the particle cannot
   * spin (friction on any other line would create angular momentum; for the
   * normal the moment is the same). At the substep start because velocities
   * come from x_next - x_start: then x_next x v = x_start x v, and the moment
   * of the correction about any point is exactly balanced. */
  sn_vec2 r = sn_sub(pos, center);
  if (b->solver_index >= 0) {
    sn_vec2 c0 = sn_add(b->center0, s->rigid_dp0[b->solver_index]);
    r = sn_sub(sn_add(x0, s->prev[pair->particle]), c0);
  }
  float rn = sn_cross(r, n);
  float wp = s->views[pair->particle].inv_mass;
  float wsum = wp + mb + ib * rn * rn;
  if (wsum <= 0.0f) return;
  if (pair->lambda == 0.0f) {
    /* approach speed before this substep's corrections, for restitution */
    sn_vec2 vb = sn_add(bs->v, sn_cross_sv(bs->w, r));
    pair->vn_pre = sn_dot(sn_sub(ps->v, vb), n);
  }
  float dl = -C / wsum;
  pair->lambda += dl;
  pair->normal = n;
  pair->r = r;
  pair->body = b->solver_index >= 0 ? b->solver_index : s->rigid_count;
  ps->dp = sn_mul_add(ps->dp, wp * dl, n);
  if (mb > 0.0f || ib > 0.0f) {
    bs->dp = sn_mul_add(bs->dp, -mb * dl, n);
    bs->dq = sn_integrate_rotation(bs->dq, -ib * rn * dl);
  }
}

/* Returns the overlap it corrected as a fraction of the contact distance (0
 * when apart or nothing moves): the repeated self-collision passes stop on it. */
static float sn_collide_particles(sn_world *w, sn_soft_context *s, sn_particle_pair *pair) {
  const sn_particle *a = w->particles.data + pair->particle, *b = w->particles.data + pair->other;
  sn_solver_body *sa = s->states + pair->particle, *sb = s->states + pair->other;
  sn_vec2 d = sn_sub(sn_add(s->views[pair->particle].center, sa->dp), sn_add(s->views[pair->other].center, sb->dp));
  float len = sn_length(d);
  float C = len - (a->radius + b->radius);
  if (C >= 0.0f || len < 1e-9f) return 0.0f;
  float wa = s->views[pair->particle].inv_mass, wb = s->views[pair->other].inv_mass;
  if (wa + wb <= 0.0f) return 0.0f;
  sn_vec2 n = sn_scale(1.0f / len, d);
  if (pair->lambda == 0.0f) pair->vn_pre = sn_dot(sn_sub(sa->v, sb->v), n);
  float dl = -C / (wa + wb);
  pair->lambda += dl;
  pair->normal = n;
  sa->dp = sn_mul_add(sa->dp, wa * dl, n);
  sb->dp = sn_mul_add(sb->dp, -wb * dl, n);
  return -C / (a->radius + b->radius);
}

/* A particle against a segment of another soft body (both ends move):
 * C = (p - q) . n - (r_p + r_edge) >= 0 with q the closest point at
 * parameter t, n the edge normal on the side the particle was on at the
 * substep start (so a particle that crossed is pushed back, not through);
 * gradients n, -(1 - t) n, -t n. Only for t strictly inside the edge: the
 * ends are particles with their own pairs. */
static void sn_collide_edge(sn_world *w, sn_soft_context *s, sn_particle_pair *pair) {
  const int32_t ip = pair->particle, ia = pair->other, ib = pair->body;
  const sn_particle *pp = w->particles.data + ip, *pa = w->particles.data + ia, *pb = w->particles.data + ib;
  sn_solver_body *sp = s->states + ip, *sa = s->states + ia, *sb = s->states + ib;
  const sn_vec2 xp = s->views[ip].center, xa = s->views[ia].center, xb = s->views[ib].center;
  sn_vec2 p = sn_add(xp, sp->dp), a = sn_add(xa, sa->dp), b = sn_add(xb, sb->dp);
  sn_vec2 e = sn_sub(b, a);
  float ee = sn_dot(e, e);
  if (ee < 1e-12f) return;
  float t = sn_dot(sn_sub(p, a), e) / ee;
  if (t <= 0.0f || t >= 1.0f) return;
  /* the side at the substep start */
  sn_vec2 p0 = sn_add(xp, s->prev[ip]), a0 = sn_add(xa, s->prev[ia]), b0 = sn_add(xb, s->prev[ib]);
  float side = sn_cross(sn_sub(b0, a0), sn_sub(p0, a0));
  sn_vec2 n = sn_scale(1.0f / sqrtf(ee), (sn_vec2){-e.y, e.x});
  if (side < 0.0f) n = sn_neg(n);
  sn_vec2 q = sn_mul_add(a, t, e);
  const float reach = pp->radius + 0.5f * (pa->radius + pb->radius);
  /* at most the contact distance per pass: a particle found on the far side
   * (its side at the substep start decided by millimetres in a heap that
   * already overlaps) is not thrown back through the edge and everything
   * behind it in one go; the rest follows in later passes and substeps */
  float C = sn_maxf(sn_dot(sn_sub(p, q), n) - reach, -reach);
  if (C >= 0.0f) return;
  float wp = s->views[ip].inv_mass, wa = s->views[ia].inv_mass, wb = s->views[ib].inv_mass;
  float wsum = wp + (1.0f - t) * (1.0f - t) * wa + t * t * wb;
  if (wsum <= 0.0f) return;
  float dl = -C / wsum;
  pair->lambda += dl;
  pair->normal = n;
  sp->dp = sn_mul_add(sp->dp, wp * dl, n);
  sa->dp = sn_mul_add(sa->dp, -wa * (1.0f - t) * dl, n);
  sb->dp = sn_mul_add(sb->dp, -wb * t * dl, n);
}

/* A contact between two particles of the same soft body (self-collision). */
static inline bool sn_self_pair(const sn_world *w, const sn_particle_pair *pair) {
  return w->particles.data[pair->particle].soft == w->particles.data[pair->other].soft;
}

void sn_soft_collide(sn_world *w, sn_soft_context *s, bool first_sweep) {
  if (!s->active) return;
  if (first_sweep) {
    for (int32_t i = 0; i < w->particle_shape_pairs.count; ++i) w->particle_shape_pairs.data[i].lambda = 0.0f;
    for (int32_t i = 0; i < w->particle_pairs.count; ++i) w->particle_pairs.data[i].lambda = 0.0f;
    for (int32_t i = 0; i < w->edge_pairs.count; ++i) w->edge_pairs.data[i].lambda = 0.0f;
  }
  /* Gauss-Seidel over the contacts, once; then the contacts between
   * particles of one soft body (self-collision) pass after pass while a pass
   * still had to undo an overlap above SN_SOFT_CONTACT_TOLERANCE of its
   * contact distance (at most SN_SOFT_CONTACT_PASSES in all). One pass
   * corrects each pair once, and a pair corrected early is pushed back in by
   * the later pairs of a pile: a rope's tail striking its own coil at 6 m/s
   * left the coil's particles 11 % inside each other (about the substep's
   * motion). Only self-collision repeats: repeating every contact resolved a
   * jelly squeezed by a rigid body within one substep, and the correction
   * became velocity (particles shot out at the speed limit). At rest one
   * pass corrects only the substep's sag (g h^2) and is the only one. */
  float worst = 0.0f;
  for (int32_t i = 0; i < w->particle_shape_pairs.count; ++i) sn_collide_shape(w, s, w->particle_shape_pairs.data + i);
  for (int32_t i = 0; i < w->particle_pairs.count; ++i) {
    sn_particle_pair *pair = w->particle_pairs.data + i;
    float corrected = sn_collide_particles(w, s, pair);
    if (sn_self_pair(w, pair)) worst = sn_maxf(worst, corrected);
  }
  for (int32_t i = 0; i < w->edge_pairs.count; ++i) sn_collide_edge(w, s, w->edge_pairs.data + i);
  for (int32_t pass = 1; pass < SN_SOFT_CONTACT_PASSES && worst > SN_SOFT_CONTACT_TOLERANCE; ++pass) {
    worst = 0.0f;
    for (int32_t i = 0; i < w->particle_pairs.count; ++i) {
      sn_particle_pair *pair = w->particle_pairs.data + i;
      if (sn_self_pair(w, pair)) worst = sn_maxf(worst, sn_collide_particles(w, s, pair));
    }
  }
}

void sn_soft_finish_substep(sn_world *w, sn_soft_context *s) {
  sn_soft_velocities_range(w, s, 0, s->count);
  sn_soft_velocity_pass(w, s);
}

void sn_soft_velocities_range(sn_world *w, sn_soft_context *s, int32_t begin, int32_t end) {
  if (!s->active) return;
  const float inv_h = s->inv_h;
  const float max_motion = s->max_speed * s->h;
  const float max_motion_sq = max_motion * max_motion;
  (void)w;
  const float *packed = s->unpack_late ? s->position : NULL;
  for (int32_t i = begin; i < end; ++i) {
    sn_solver_body *st = s->states + i;
    if (packed != NULL) {
      /* the last sweep's copy back (sn_soft_unpack_range) */
      st->dp.x = packed[4 * i + 2];
      st->dp.y = packed[4 * i + 3];
    }
    const uint8_t kind = s->kind[i];
    if (kind == SN_SOFT_FREE_SLOT) continue;
    /* The world's speed limit bounds a particle's whole motion in the
     * substep, as it bounds a rigid body's: constraints may not move it
     * farther than maximum_linear_speed * h either. Without this an
     * ill-posed structure (bend constraints with no links, whose linearised
     * corrections lengthen the edges) driven at the speed limit grew
     * geometrically until positions overflowed (found by fuzz_world).
     * Motion within the limit is untouched, bit for bit. */
    sn_vec2 motion = sn_sub(st->dp, s->prev[i]);
    if (kind != SN_SOFT_KINEMATIC) {
      sn_vec2 limited = sn_clamp_length(motion, max_motion_sq);
      if (limited.x != motion.x || limited.y != motion.y) {
        motion = limited;
        st->dp = sn_add(s->prev[i], limited);
      }
    }
    st->v = sn_scale(inv_h, motion);
  }
}

void sn_soft_velocity_pass(sn_world *w, sn_soft_context *s) {
  if (!s->active) return;
  const float inv_h = s->inv_h;
  int32_t touching = 0;
  /* velocity pass: friction bounded by mu lambda / h, restitution from the
   * approach speed before the substep */
  for (int32_t k = 0; k < w->particle_shape_pairs.count; ++k) {
    const sn_particle_pair *pair = w->particle_shape_pairs.data + k;
    if (pair->lambda <= 0.0f) continue;
    touching++;
    const sn_particle *p = w->particles.data + pair->particle;
    const sn_shape *sh = w->shapes.data + pair->other;
    const sn_soft_body *soft = w->soft_bodies.data + p->soft;
    sn_solver_body *ps = s->states + pair->particle;
    sn_body_state *bs = s->rigid + pair->body;
    const sn_body *b = w->bodies.data + sh->body;
    bool moves = pair->body < s->rigid_count;
    float mb = moves ? b->inv_mass : 0.0f, ib = moves ? b->inv_inertia : 0.0f;
    float wp = s->views[pair->particle].inv_mass;
    sn_vec2 n = pair->normal, r = pair->r;
    if (moves) {
      /* velocity-level impulses act at the end-of-substep positions (the next
       * substep starts from them), so take the lever there */
      r = sn_sub(sn_add(s->views[pair->particle].center, ps->dp), sn_add(b->center0, bs->dp));
    }
    sn_vec2 vrel = sn_sub(ps->v, sn_add(bs->v, sn_cross_sv(bs->w, r)));
    float vn = sn_dot(vrel, n);
    sn_vec2 vt = sn_mul_add(vrel, -vn, n);
    float vt_len = sn_length(vt);
    float mu = sqrtf(soft->material.friction * sh->friction);
    sn_vec2 J = {0.0f, 0.0f};
    if (vt_len > 1e-9f && mu > 0.0f) {
      sn_vec2 t = sn_scale(1.0f / vt_len, vt);
      float rt = sn_cross(r, t);
      float wt = wp + mb + ib * rt * rt;
      if (wt > 0.0f) J = sn_scale(-sn_minf(vt_len / wt, mu * pair->lambda * inv_h), t);
    }
    float e = sn_maxf(soft->material.restitution, sh->restitution);
    if (e > 0.0f && pair->vn_pre < -s->restitution_threshold) {
      float rn = sn_cross(r, n);
      float wn = wp + mb + ib * rn * rn;
      if (wn > 0.0f) J = sn_mul_add(J, (-e * pair->vn_pre - vn) / wn, n);
    }
    ps->v = sn_mul_add(ps->v, wp, J);
    if (moves) {
      bs->v = sn_mul_add(bs->v, -mb, J);
      bs->w -= ib * sn_cross(r, J);
    }
  }
  for (int32_t k = 0; k < w->particle_pairs.count; ++k) {
    const sn_particle_pair *pair = w->particle_pairs.data + k;
    if (pair->lambda <= 0.0f) continue;
    touching++;
    const sn_particle *a = w->particles.data + pair->particle, *b = w->particles.data + pair->other;
    sn_solver_body *sa = s->states + pair->particle, *sb = s->states + pair->other;
    float wa = s->views[pair->particle].inv_mass, wb = s->views[pair->other].inv_mass;
    if (wa + wb <= 0.0f) continue;
    const sn_soft_body_def *ma = &w->soft_bodies.data[a->soft].material, *mbm = &w->soft_bodies.data[b->soft].material;
    sn_vec2 n = pair->normal;
    sn_vec2 vrel = sn_sub(sa->v, sb->v);
    float vn = sn_dot(vrel, n);
    sn_vec2 vt = sn_mul_add(vrel, -vn, n);
    float vt_len = sn_length(vt);
    float mu = sqrtf(ma->friction * mbm->friction);
    sn_vec2 J = {0.0f, 0.0f};
    if (vt_len > 1e-9f && mu > 0.0f) J = sn_scale(-sn_minf(vt_len / (wa + wb), mu * pair->lambda * inv_h) / vt_len, vt);
    float e = sn_maxf(ma->restitution, mbm->restitution);
    if (e > 0.0f && pair->vn_pre < -s->restitution_threshold)
      J = sn_mul_add(J, (-e * pair->vn_pre - vn) / (wa + wb), n);
    sa->v = sn_mul_add(sa->v, wa, J);
    sb->v = sn_mul_add(sb->v, -wb, J);
  }
  for (int32_t k = 0; k < w->edge_pairs.count; ++k) touching += w->edge_pairs.data[k].lambda > 0.0f ? 1 : 0;
  w->particle_contact_count = touching;
}

void sn_soft_end(sn_world *w, sn_soft_context *s) {
  if (!s->active) return;
  for (int32_t i = 0; i < s->count; ++i) {
    sn_particle *p = w->particles.data + i;
    if (!p->in_use) continue;
    if (p->frozen) continue; /* stays put until teleported */
    const sn_solver_body *st = s->states + i;
    sn_vec2 x = sn_add(s->views[i].center, st->dp);
    if (!sn_vec2_within_limit(x) || !sn_vec2_is_finite(st->v)) {
      /* containment (not finite, or beyond +-SN_MAX_COORDINATE): stays
       * where the step found it, stopped, frozen */
      p->v = (sn_vec2){0.0f, 0.0f};
      p->frozen = true;
      sn_frozen_event e = sn_make_frozen_event(w, -1, i);
      sn_array_push(&w->mem, w->frozen_events, e);
      continue;
    }
    p->x = x;
    /* the velocity pass (friction, restitution) acts after the substep's
     * motion was bounded: the step hands on at most maximum_linear_speed,
     * as for rigid bodies (soak: jelly particles at 1.1 x the limit) */
    p->v = sn_clamp_length(st->v, s->max_speed * s->max_speed);
    if (p->kinematic) {
      p->x = p->target; /* exactly, whatever rounding did */
      p->v = (sn_vec2){0.0f, 0.0f};
      p->has_target = false;
    }
  }
  /* rigid-mode-preserving damping: pull each particle's velocity toward the
   * body's rigid motion (centre-of-mass velocity + rotation), by k per step */
  for (int32_t b = 0; b < w->soft_bodies.count; ++b) {
    const sn_soft_body *sb = w->soft_bodies.data + b;
    float k = sb->material.rigid_damping;
    if (!sb->in_use || k <= 0.0f || sb->particle_count == 0) continue;
    double m = 0.0, cx = 0.0, cy = 0.0, vx = 0.0, vy = 0.0;
    for (int32_t i = 0; i < sb->particle_count; ++i) {
      const sn_particle *p = w->particles.data + sb->particles[i];
      if (p->inv_mass == 0.0f) continue;
      /* products in double, like the sums: m x in float overflows for a
       * particle of 1e38 kg (found by fuzz_world) */
      m += p->mass;
      cx += (double)p->mass * p->x.x;
      cy += (double)p->mass * p->x.y;
      vx += (double)p->mass * p->v.x;
      vy += (double)p->mass * p->v.y;
    }
    if (m <= 0.0) continue;
    cx /= m, cy /= m, vx /= m, vy /= m;
    double L = 0.0, I = 0.0;
    for (int32_t i = 0; i < sb->particle_count; ++i) {
      const sn_particle *p = w->particles.data + sb->particles[i];
      if (p->inv_mass == 0.0f) continue;
      double rx = p->x.x - cx, ry = p->x.y - cy;
      L += p->mass * (rx * p->v.y - ry * p->v.x);
      I += p->mass * (rx * rx + ry * ry);
    }
    double omega = I > 0.0 ? L / I : 0.0;
    for (int32_t i = 0; i < sb->particle_count; ++i) {
      sn_particle *p = w->particles.data + sb->particles[i];
      if (p->inv_mass == 0.0f) continue;
      double rx = p->x.x - cx, ry = p->x.y - cy;
      double tx = vx - omega * ry, ty = vy + omega * rx;
      p->v.x += (float)(k * (tx - p->v.x));
      p->v.y += (float)(k * (ty - p->v.y));
      /* the rigid motion of a body whose particles sit at the speed limit
       * can be faster at its rim (the rotation's part grows with r): the
       * step still hands on at most maximum_linear_speed */
      p->v = sn_clamp_length(p->v, s->max_speed * s->max_speed);
    }
  }
}
