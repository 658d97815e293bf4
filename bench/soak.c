#define _POSIX_C_SOURCE 200809L
/* sinew-bench --soak (see soak.h and docs/benchmark.md, "Soak mode").
 *
 * One world at a time: a standard scene (rain, jelly or mixed) built with a
 * counting allocator, stepped at 60 Hz for --world-steps steps while a seeded
 * schedule spawns and deletes rigid bodies, soft bodies and constraints, then
 * destroyed; the next scene follows. The driver keeps its own list of what
 * should be alive and checks the engine against it:
 *
 *   every step   no NaN/Inf in body poses and velocities and in particles;
 *                no body or particle faster than maximum_linear_speed
 *                (+SK_SPEED_TOLERANCE); the counters (bodies, shapes, soft
 *                bodies, particles, constraints) equal the driver's counts;
 *                counters.allocated_bytes equals the counting allocator's
 *                live bytes; no frozen event; no broken constraint (none is
 *                breakable); every step returns SN_OK
 *   each delete  the deleted handle is refused at once (is_valid false)
 *   every 10     bounded penetration, measured with the public geometry
 *                (shapes, transforms, particles) over the pairs that can
 *                collide: a free pair (no joint or attach on either body or
 *                on anything it touches) overlaps by at most
 *                SK_MAX_PENETRATION at any check, and by more than
 *                SK_RESTING_PENETRATION at fewer than SK_RESTING_CHECKS
 *                checks in a row (see sk_check_penetration)
 *   every 60     the last SK_STALE_RING deleted handles (bodies, shapes, soft
 *                bodies, particles, constraints) are refused with
 *                SN_ERR_STALE_ID; every tracked handle is valid and the
 *                enumerations return as many as the driver tracks
 *   each world   after destruction the allocator holds no byte and no block,
 *                and every free came with the size of its allocation
 */
#include "soak.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "scenes.h"
#include "shipped.h"

#define SK_MAX_SPEED       50.0f /* the worlds' maximum_linear_speed, m/s */
#define SK_SPEED_TOLERANCE 0.01  /* relative */
/* Penetration of free pairs (see sk_check_penetration). Contacts are found
 * once per step, so two dynamic bodies closing at v can overlap by up to
 * v dt before their contact acts: a single check may see at most one step of
 * travel at the speed limit. A resting overlap is pushed out within a few
 * steps, so an overlap above SK_RESTING_PENETRATION seen at SK_RESTING_CHECKS
 * checks in a row (SK_PEN_EVERY steps apart) is a failure. */
#define SK_MAX_PENETRATION     (SK_MAX_SPEED * SK_DT)
#define SK_RESTING_PENETRATION 0.10 /* m */
#define SK_RESTING_CHECKS      4
#define SK_SUSPECTS            256
#define SK_NEAR                0.05f  /* m between bounding boxes: touching */
#define SK_PEN_EVERY           10     /* steps between penetration checks */
#define SK_SWEEP_EVERY         60     /* steps between stale-handle and enumeration sweeps */
#define SK_STALE_RING          256    /* deleted handles remembered */
#define SK_RELEASED            64     /* joints remembered after deletion */
#define SK_GRACE               60     /* steps a formerly joined pair has to separate */
#define SK_FIRST_FAILURES      5      /* failure descriptions kept for the report */
#define SK_ARENA_BOTTOM        -20.0f /* below this a body or soft body has left the arena */
#define SK_ARENA_HALF_WIDTH    150.0f
#define SK_DT                  (1.0f / 60.0f)

static const char *const sk_scene_names[] = {"rain", "jelly", "mixed"};
#define SK_SCENES 3

/* ---- counting allocator ------------------------------------------------ */

/* Each block carries its size in a 16-byte header (keeping the 16-byte
 * alignment the engine asks for), so a free with another size is caught. */
typedef struct sk_alloc {
  size_t live, peak;
  int64_t blocks, size_mismatches, total_allocs;
} sk_alloc;

#define SK_HEADER 16

static void *sk_alloc_fn(size_t size, void *context) {
  sk_alloc *a = context;
  unsigned char *p = malloc(size + SK_HEADER);
  if (p == NULL) return NULL;
  memcpy(p, &size, sizeof size);
  a->live += size;
  a->blocks++;
  a->total_allocs++;
  if (a->live > a->peak) a->peak = a->live;
  return p + SK_HEADER;
}

static void sk_free_fn(void *memory, size_t size, void *context) {
  sk_alloc *a = context;
  if (memory == NULL) return;
  unsigned char *p = (unsigned char *)memory - SK_HEADER;
  size_t stored;
  memcpy(&stored, p, sizeof stored);
  if (stored != size) a->size_mismatches++;
  a->live -= stored;
  a->blocks--;
  free(p);
}

/* ---- schedule ------------------------------------------------------------ */

static uint64_t sk_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double sk_unit(uint64_t *s) { return (double)(sk_next(s) >> 11) * (1.0 / 9007199254740992.0); }
static float sk_range(uint64_t *s, float lo, float hi) { return lo + (hi - lo) * (float)sk_unit(s); }
static int32_t sk_below(uint64_t *s, int32_t n) { return n > 0 ? (int32_t)(sk_next(s) % (uint64_t)n) : 0; }

/* ---- tracked objects ----------------------------------------------------- */

typedef struct sk_body {
  sn_body_id id;
  int32_t shapes;
} sk_body;

typedef struct sk_soft {
  sn_soft_body_id id;
  int32_t particles, constraints; /* constraints: its own (builder-made), fixed at creation */
} sk_soft;

typedef enum sk_joint_kind { SK_REVOLUTE, SK_DISTANCE, SK_ATTACH } sk_joint_kind;

typedef struct sk_joint {
  sn_constraint_id id;
  sk_joint_kind kind;
  sn_body_id a, b;      /* b null for attach */
  sn_soft_body_id soft; /* attach: the particle's soft body */
} sk_joint;

typedef enum sk_kind { SK_KIND_BODY, SK_KIND_SHAPE, SK_KIND_SOFT, SK_KIND_PARTICLE, SK_KIND_CONSTRAINT } sk_kind;

/* every handle type is {index1, world_tag, generation} */
typedef struct sk_stale {
  sk_kind kind;
  int32_t index1;
  uint16_t world_tag, generation;
} sk_stale;

/* a convex piece for the penetration check: a core of 1 (circle, particle),
 * 2 (capsule, segment) or 3..8 (polygon) world points, rounded by r */
typedef struct sk_item {
  sn_vec2 v[SN_MAX_POLYGON_VERTICES];
  int32_t n;
  float r;
  sn_aabb box;
  int32_t body;     /* body index1, 0 for a particle */
  int32_t soft;     /* soft body index1, 0 for a shape */
  bool is_static;   /* a static body's shape */
  bool constrained; /* its body has a joint or an attach, or its soft body an attach */
} sk_item;

/* a free pair found overlapping deeper than SK_RESTING_PENETRATION: keys are
 * body slots (> 0) or minus soft body slots; checks in a row so far */
typedef struct sk_suspect {
  int32_t a, b, checks;
  double depth;
  sn_vec2 at; /* a core point of the first */
} sk_suspect;

/* what a failure broke (the report counts each) */
typedef enum sk_check {
  SK_F_API,         /* a call on valid input refused, or a step failed */
  SK_F_HANDLES,     /* deleted handles not stale, tracked ones invalid, enumerations */
  SK_F_COUNTS,      /* counters against the driver's counts */
  SK_F_MEMORY,      /* allocated_bytes against the allocator, leaks, wrong free sizes */
  SK_F_FINITE,      /* NaN or Inf in a body or particle */
  SK_F_SPEED,       /* over maximum_linear_speed */
  SK_F_EVENTS,      /* frozen or broken */
  SK_F_PENETRATION, /* a free pair deeper than SK_MAX_PENETRATION */
  SK_F_RESTING,     /* a free pair deeper than SK_RESTING_PENETRATION for SK_RESTING_CHECKS checks */
  SK_F_COUNT
} sk_check;
static const char *const sk_check_names[SK_F_COUNT] = {"api",   "handles", "counts",      "memory",         "finite",
                                                       "speed", "events",  "penetration", "resting_overlap"};

typedef struct sk_stats {
  int64_t steps, scene_steps[SK_SCENES];
  int32_t worlds, scene_worlds[SK_SCENES];
  int64_t spawned_bodies, spawned_softs, spawned_joints, spawned_attaches;
  int64_t deleted_bodies, deleted_shapes, deleted_softs, deleted_joints, culled_bodies, culled_softs;
  int64_t refused, frozen_events, broken_events, stale_checks, penetration_checks;
  size_t peak_world_bytes;
  int64_t peak_bodies, peak_particles, peak_constraints;
  double ms_max, ms_total, max_penetration, max_speed_ratio;
  double max_penetration_particle, max_penetration_constrained;
  int64_t failures, failures_by[SK_F_COUNT];
  char first[SK_FIRST_FAILURES][360];
} sk_stats;

typedef struct sk_state {
  sn_soak_options opt;
  uint64_t rng;
  sn_registry *registry;
  sk_stats st;
  /* the current world */
  int32_t scene;
  int32_t world_number;
  int64_t world_step;
  sn_scene sc;
  sn_world *w;
  sk_alloc alloc;
  int32_t static_bodies, static_shapes;
  sn_body_id *statics;
  int32_t static_cap;
  sk_body *bodies;
  int32_t body_count, body_cap;
  sk_soft *softs;
  int32_t soft_count, soft_cap;
  sk_joint *joints;
  int32_t joint_count, joint_cap;
  int32_t max_bodies, max_softs, max_joints;
  sn_aabb spawn;
  sk_joint released[SK_RELEASED]; /* joints deleted lately (see sk_release) */
  int64_t released_at[SK_RELEASED];
  bool released_overlap[SK_RELEASED]; /* the pair overlapped deeper than SK_RESTING_PENETRATION at the last check */
  int32_t released_count;
  sk_suspect suspects[SK_SUSPECTS];
  int32_t suspect_count;
  sk_stale stale[SK_STALE_RING];
  int32_t stale_count, stale_head;
  /* scratch */
  sn_particle_id *pbuf;
  int32_t pbuf_cap;
  sn_constraint_id *cbuf;
  int32_t cbuf_cap;
  sk_item *items;
  int32_t item_cap;
} sk_state;

static void sk_fail(sk_state *S, sk_check check, const char *fmt, ...) {
  S->st.failures_by[check]++;
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (S->st.failures < SK_FIRST_FAILURES)
    snprintf(S->st.first[S->st.failures], sizeof S->st.first[0], "%s world %d step %lld: %s", sk_scene_names[S->scene],
             (int)S->world_number, (long long)S->world_step, msg);
  if (S->st.failures < 20)
    fprintf(stderr, "soak: FAIL %s world %d step %lld: %s\n", sk_scene_names[S->scene], (int)S->world_number,
            (long long)S->world_step, msg);
  S->st.failures++;
}

static bool sk_grow(void **data, int32_t *cap, int32_t need, size_t elem) {
  if (need <= *cap) return true;
  int32_t c = *cap > 0 ? *cap : 64;
  while (c < need) c *= 2;
  void *p = realloc(*data, (size_t)c * elem);
  if (p == NULL) return false;
  *data = p;
  *cap = c;
  return true;
}

static bool sk_pbuf(sk_state *S, int32_t n) {
  return sk_grow((void **)&S->pbuf, &S->pbuf_cap, n, sizeof(sn_particle_id));
}
static bool sk_cbuf(sk_state *S, int32_t n) {
  return sk_grow((void **)&S->cbuf, &S->cbuf_cap, n, sizeof(sn_constraint_id));
}

#define SK_SAME(x, y) ((x).index1 == (y).index1 && (x).generation == (y).generation && (x).world_tag == (y).world_tag)

static void sk_remember(sk_state *S, sk_kind kind, int32_t index1, uint16_t tag, uint16_t generation) {
  S->stale[S->stale_head] = (sk_stale){kind, index1, tag, generation};
  S->stale_head = (S->stale_head + 1) % SK_STALE_RING;
  if (S->stale_count < SK_STALE_RING) S->stale_count++;
}

/* true if the handle is refused with SN_ERR_STALE_ID (and reported invalid) */
static bool sk_is_stale(sk_state *S, const sk_stale *e, bool call) {
  sn_world *w = S->w;
  switch (e->kind) {
  case SK_KIND_BODY: {
    sn_body_id id = {e->index1, e->world_tag, e->generation};
    return !sn_body_is_valid(w, id) && (!call || sn_body_set_awake(w, id, true) == SN_ERR_STALE_ID);
  }
  case SK_KIND_SHAPE: {
    sn_shape_id id = {e->index1, e->world_tag, e->generation};
    return !sn_shape_is_valid(w, id) && (!call || sn_shape_set_friction(w, id, 0.5f) == SN_ERR_STALE_ID);
  }
  case SK_KIND_SOFT: {
    sn_soft_body_id id = {e->index1, e->world_tag, e->generation};
    return !sn_soft_body_is_valid(w, id) &&
           (!call || sn_soft_body_translate(w, id, (sn_vec2){0.0f, 0.0f}) == SN_ERR_STALE_ID);
  }
  case SK_KIND_PARTICLE: {
    sn_particle_id id = {e->index1, e->world_tag, e->generation};
    return !sn_particle_is_valid(w, id) &&
           (!call || sn_particle_set_velocity(w, id, (sn_vec2){0.0f, 0.0f}) == SN_ERR_STALE_ID);
  }
  case SK_KIND_CONSTRAINT: {
    sn_constraint_id id = {e->index1, e->world_tag, e->generation};
    return !sn_constraint_is_valid(w, id) && (!call || sn_constraint_set_break_force(w, id, 0.0f) == SN_ERR_STALE_ID);
  }
  }
  return false;
}

static const char *const sk_kind_names[] = {"body", "shape", "soft body", "particle", "constraint"};

/* records a deleted handle and checks at once that it is no longer valid */
static void sk_deleted(sk_state *S, sk_kind kind, int32_t index1, uint16_t tag, uint16_t generation) {
  sk_remember(S, kind, index1, tag, generation);
  sk_stale e = {kind, index1, tag, generation};
  if (!sk_is_stale(S, &e, false))
    sk_fail(S, SK_F_HANDLES, "deleted %s %d (generation %u) is still valid", sk_kind_names[kind], (int)index1,
            (unsigned)generation);
}

/* ---- deletion ------------------------------------------------------------ */

/* forgets the joints that go with a deleted body or soft body (which == 0:
 * joints on body, else attaches of soft) into dropped[]; returns how many */
static int32_t sk_drop_joints(sk_state *S, sn_body_id body, sn_soft_body_id soft, sn_constraint_id *dropped,
                              int32_t capacity) {
  int32_t n = 0;
  for (int32_t j = S->joint_count - 1; j >= 0; --j) {
    const sk_joint *J = S->joints + j;
    bool goes = body.index1 != 0 ? (SK_SAME(J->a, body) || SK_SAME(J->b, body)) : SK_SAME(J->soft, soft);
    if (!goes) continue;
    if (n < capacity) dropped[n++] = J->id;
    S->joints[j] = S->joints[--S->joint_count];
  }
  return n;
}

/* after the destroy call: the dropped joints are stale too */
static void sk_dropped(sk_state *S, const sn_constraint_id *dropped, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    sk_deleted(S, SK_KIND_CONSTRAINT, dropped[i].index1, dropped[i].world_tag, dropped[i].generation);
}

/* A joined pair may overlap (collide_connected is off); once the joint is
 * gone it gets SK_GRACE steps to push apart before the bound applies, and
 * longer while it still overlaps deeper than SK_RESTING_PENETRATION: a pair
 * released deep inside each other has no one way out (a body between the
 * two shapes of another is pushed out of each towards the other) and may
 * stay lodged. The bound applies again from the first check that finds it
 * apart. */
static bool sk_release_active(const sk_state *S, int32_t r) {
  return S->world_step - S->released_at[r] <= SK_GRACE || S->released_overlap[r];
}

static void sk_release(sk_state *S, const sk_joint *J) {
  int32_t slot = 0;
  if (S->released_count < SK_RELEASED) {
    slot = S->released_count++;
  } else { /* one no longer active, else the oldest */
    for (int32_t i = 1; i < S->released_count; ++i) {
      bool better =
          sk_release_active(S, slot) && (!sk_release_active(S, i) || S->released_at[i] < S->released_at[slot]);
      if (better) slot = i;
    }
  }
  S->released[slot] = *J;
  S->released_at[slot] = S->world_step;
  S->released_overlap[slot] = true; /* until a check finds the pair apart */
}

static void sk_delete_joint(sk_state *S, int32_t j) {
  sk_release(S, S->joints + j);
  sn_constraint_id id = S->joints[j].id;
  sn_result r = sn_destroy_constraint(S->w, id);
  if (r != SN_OK) sk_fail(S, SK_F_API, "sn_destroy_constraint: %s", sn_result_name(r));
  S->joints[j] = S->joints[--S->joint_count];
  sk_deleted(S, SK_KIND_CONSTRAINT, id.index1, id.world_tag, id.generation);
  S->st.deleted_joints++;
}

static void sk_delete_body(sk_state *S, int32_t k, bool culled) {
  sn_body_id id = S->bodies[k].id;
  sn_shape_id shapes[8];
  int32_t ns = sn_body_get_shapes(S->w, id, shapes, 8);
  if (ns != S->bodies[k].shapes)
    sk_fail(S, SK_F_COUNTS, "body %d has %d shapes, expected %d", (int)id.index1, (int)ns, (int)S->bodies[k].shapes);
  /* its joints and attaches go with it */
  sn_constraint_id dropped[64];
  int32_t nd = sk_drop_joints(S, id, SN_NULL_SOFT_BODY, dropped, 64);
  sn_result r = sn_destroy_body(S->w, id);
  if (r != SN_OK) sk_fail(S, SK_F_API, "sn_destroy_body: %s", sn_result_name(r));
  S->bodies[k] = S->bodies[--S->body_count];
  for (int32_t i = 0; i < ns; ++i)
    sk_deleted(S, SK_KIND_SHAPE, shapes[i].index1, shapes[i].world_tag, shapes[i].generation);
  sk_deleted(S, SK_KIND_BODY, id.index1, id.world_tag, id.generation);
  sk_dropped(S, dropped, nd);
  if (culled)
    S->st.culled_bodies++;
  else
    S->st.deleted_bodies++;
}

/* one shape of a compound body */
static void sk_delete_shape(sk_state *S, int32_t k) {
  sn_shape_id shapes[8];
  int32_t ns = sn_body_get_shapes(S->w, S->bodies[k].id, shapes, 8);
  if (ns < 2) return;
  sn_shape_id id = shapes[sk_below(&S->rng, ns)];
  sn_result r = sn_destroy_shape(S->w, id, true);
  if (r != SN_OK) sk_fail(S, SK_F_API, "sn_destroy_shape: %s", sn_result_name(r));
  S->bodies[k].shapes--;
  sk_deleted(S, SK_KIND_SHAPE, id.index1, id.world_tag, id.generation);
  S->st.deleted_shapes++;
}

static void sk_delete_soft(sk_state *S, int32_t k, bool culled) {
  sn_soft_body_id id = S->softs[k].id;
  int32_t np = S->softs[k].particles;
  if (!sk_pbuf(S, np)) return;
  int32_t got = sn_soft_body_get_particles(S->w, id, S->pbuf, np);
  if (got != np)
    sk_fail(S, SK_F_COUNTS, "soft body %d has %d particles, expected %d", (int)id.index1, (int)got, (int)np);
  int32_t nc = sn_world_get_constraint_count(S->w);
  if (!sk_cbuf(S, nc + 1)) return;
  int32_t own = sn_soft_body_get_constraints(S->w, id, S->cbuf, nc + 1);
  sn_constraint_id dropped[64];
  int32_t nd = sk_drop_joints(S, SN_NULL_BODY, id, dropped, 64);
  sn_result r = sn_destroy_soft_body(S->w, id);
  if (r != SN_OK) sk_fail(S, SK_F_API, "sn_destroy_soft_body: %s", sn_result_name(r));
  S->softs[k] = S->softs[--S->soft_count];
  /* a few of its particles and constraints: the first and the last */
  if (got > 0) {
    sk_deleted(S, SK_KIND_PARTICLE, S->pbuf[0].index1, S->pbuf[0].world_tag, S->pbuf[0].generation);
    sk_deleted(S, SK_KIND_PARTICLE, S->pbuf[got - 1].index1, S->pbuf[got - 1].world_tag, S->pbuf[got - 1].generation);
  }
  if (own > 0) {
    sk_deleted(S, SK_KIND_CONSTRAINT, S->cbuf[0].index1, S->cbuf[0].world_tag, S->cbuf[0].generation);
    sk_deleted(S, SK_KIND_CONSTRAINT, S->cbuf[own - 1].index1, S->cbuf[own - 1].world_tag, S->cbuf[own - 1].generation);
  }
  sk_deleted(S, SK_KIND_SOFT, id.index1, id.world_tag, id.generation);
  sk_dropped(S, dropped, nd);
  if (culled)
    S->st.culled_softs++;
  else
    S->st.deleted_softs++;
}

/* ---- spawning ------------------------------------------------------------ */

static bool sk_count_shape(sn_shape_id shape, void *context) {
  (void)shape;
  ++*(int32_t *)context;
  return false; /* one is enough */
}

/* true if no shape's fat box and no particle is within box */
static bool sk_area_free(sk_state *S, sn_aabb box) {
  int32_t hits = 0;
  sn_world_overlap_aabb(S->w, box, sn_default_query_filter(), sk_count_shape, &hits);
  if (hits > 0) return false;
  for (int32_t k = 0; k < S->soft_count; ++k) {
    int32_t np = S->softs[k].particles;
    if (!sk_pbuf(S, np)) return false;
    np = sn_soft_body_get_particles(S->w, S->softs[k].id, S->pbuf, np);
    for (int32_t i = 0; i < np; ++i) {
      sn_vec2 p = sn_particle_get_position(S->w, S->pbuf[i]);
      if (p.x >= box.lower.x && p.x <= box.upper.x && p.y >= box.lower.y && p.y <= box.upper.y) return false;
    }
  }
  return true;
}

/* a free spot in the spawn area for something of half-extent `half` */
static bool sk_spot(sk_state *S, float half, sn_vec2 *out) {
  for (int32_t tries = 0; tries < 6; ++tries) {
    sn_vec2 p = {sk_range(&S->rng, S->spawn.lower.x + half, S->spawn.upper.x - half),
                 sk_range(&S->rng, S->spawn.lower.y + half, S->spawn.upper.y - half)};
    sn_aabb box = {{p.x - half - 0.2f, p.y - half - 0.2f}, {p.x + half + 0.2f, p.y + half + 0.2f}};
    if (sk_area_free(S, box)) {
      *out = p;
      return true;
    }
  }
  return false;
}

static sn_shape_id sk_add_shape(sk_state *S, sn_body_id body, int32_t kind, float size, sn_vec2 offset) {
  sn_shape_def sd = sn_default_shape_def();
  sd.density = sk_range(&S->rng, 0.5f, 2.0f);
  sd.friction = sk_range(&S->rng, 0.2f, 0.9f);
  if (sk_unit(&S->rng) < 0.1) sd.restitution = 0.3f;
  switch (kind) {
  case 0: {
    sn_circle c = {offset, size};
    return sn_create_circle_shape(S->w, body, &sd, &c);
  }
  case 1: {
    float l = sk_range(&S->rng, 0.1f, 0.5f), r = sk_range(&S->rng, 0.1f, 0.3f);
    sn_capsule c = {{offset.x - l, offset.y}, {offset.x + l, offset.y}, r};
    return sn_create_capsule_shape(S->w, body, &sd, &c);
  }
  case 2: {
    sn_vec2 pts[8];
    int32_t n = 5 + sk_below(&S->rng, 4);
    for (int32_t i = 0; i < n; ++i) {
      float a = 6.2831853f * ((float)i + sk_range(&S->rng, -0.3f, 0.3f)) / (float)n;
      float r = size * sk_range(&S->rng, 0.7f, 1.0f);
      pts[i] = (sn_vec2){offset.x + r * cosf(a), offset.y + r * sinf(a)};
    }
    sn_polygon poly;
    float radius = sk_unit(&S->rng) < 0.3 ? 0.03f : 0.0f;
    if (sn_compute_hull(pts, n, radius, &poly) == SN_OK) return sn_create_polygon_shape(S->w, body, &sd, &poly);
  } /* fall through: a box if the hull was refused */
  /* fall through */
  default: {
    sn_polygon box;
    float hx = sk_range(&S->rng, 0.15f, size), hy = sk_range(&S->rng, 0.15f, size);
    if (sn_make_offset_box(hx, hy, offset, 0.0f, &box) != SN_OK) return SN_NULL_SHAPE;
    return sn_create_polygon_shape(S->w, body, &sd, &box);
  }
  }
}

static void sk_spawn_body(sk_state *S) {
  sn_vec2 p;
  if (!sk_spot(S, 1.0f, &p)) {
    S->st.refused++;
    return;
  }
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = sk_range(&S->rng, -3.14159f, 3.14159f);
  bd.linear_velocity = (sn_vec2){sk_range(&S->rng, -3.0f, 3.0f), sk_range(&S->rng, -5.0f, 0.0f)};
  bd.angular_velocity = sk_range(&S->rng, -2.0f, 2.0f);
  if (sk_unit(&S->rng) < 0.05) { /* a bullet launched faster than the speed limit */
    bd.is_bullet = true;
    bd.linear_velocity = (sn_vec2){sk_range(&S->rng, -10.0f, 10.0f), -sk_range(&S->rng, 60.0f, 90.0f)};
  }
  sn_body_id id = sn_create_body(S->w, &bd);
  if (!sn_body_is_valid(S->w, id)) {
    sk_fail(S, SK_F_API, "sn_create_body refused a valid def: %s", sn_world_last_error(S->w));
    return;
  }
  float size = sk_range(&S->rng, 0.15f, 0.5f);
  int32_t shapes = 0;
  if (sn_shape_is_valid(S->w, sk_add_shape(S, id, sk_below(&S->rng, 4), size, (sn_vec2){0.0f, 0.0f}))) shapes++;
  if (sk_unit(&S->rng) < 0.15 &&
      sn_shape_is_valid(S->w, sk_add_shape(S, id, sk_below(&S->rng, 4), 0.25f, (sn_vec2){0.45f, 0.0f})))
    shapes++;
  if (shapes == 0) sk_fail(S, SK_F_API, "no shape created: %s", sn_world_last_error(S->w));
  if (!sk_grow((void **)&S->bodies, &S->body_cap, S->body_count + 1, sizeof(sk_body))) return;
  S->bodies[S->body_count++] = (sk_body){id, shapes};
  S->st.spawned_bodies++;
}

static bool sk_track_soft(sk_state *S, sn_soft_body_id id) {
  if (!sn_soft_body_is_valid(S->w, id)) return false;
  int32_t nc = sn_world_get_constraint_count(S->w);
  if (!sk_cbuf(S, nc + 1) || !sk_grow((void **)&S->softs, &S->soft_cap, S->soft_count + 1, sizeof(sk_soft)))
    return false;
  S->softs[S->soft_count++] =
      (sk_soft){id, sn_soft_body_get_particle_count(S->w, id), sn_soft_body_get_constraints(S->w, id, S->cbuf, nc + 1)};
  return true;
}

static void sk_spawn_soft(sk_state *S) {
  sn_vec2 p;
  if (!sk_spot(S, 1.6f, &p)) {
    S->st.refused++;
    return;
  }
  sn_soft_body_id id;
  if (sk_unit(&S->rng) < 0.7) {
    sn_ring_def d = sn_default_ring_def();
    d.center = p;
    d.radius = sk_range(&S->rng, 0.4f, 0.7f);
    d.count = 12 + sk_below(&S->rng, 13);
    d.mass = sk_range(&S->rng, 0.5f, 1.5f);
    d.particle_radius = 0.05f;
    d.body.friction = 0.6f;
    d.body.rigid_damping = 0.05f;
    id = sn_create_ring(S->w, &d);
  } else {
    sn_rope_def d = sn_default_rope_def();
    float len = sk_range(&S->rng, 1.0f, 2.8f), a = sk_range(&S->rng, -0.5f, 0.5f);
    d.start = (sn_vec2){p.x - 0.5f * len * cosf(a), p.y - 0.5f * len * sinf(a)};
    d.end = (sn_vec2){p.x + 0.5f * len * cosf(a), p.y + 0.5f * len * sinf(a)};
    d.count = 8 + sk_below(&S->rng, 13);
    d.mass = sk_range(&S->rng, 0.5f, 1.0f);
    d.radius = sk_range(&S->rng, 0.05f, 0.08f);
    d.pin_start = sk_unit(&S->rng) < 0.25;
    d.body.friction = 0.6f;
    id = sn_create_rope(S->w, &d);
  }
  if (!sk_track_soft(S, id)) {
    sk_fail(S, SK_F_API, "soft body builder refused a valid def: %s", sn_world_last_error(S->w));
    return;
  }
  S->st.spawned_softs++;
}

/* true if the body has a joint or an attach: the schedule gives each body at
 * most one, so constraints never form chains or loops that could crush a
 * contact (rigid joints overpower contacts) */
static bool sk_has_joint(const sk_state *S, sn_body_id body) {
  for (int32_t j = 0; j < S->joint_count; ++j) {
    if (SK_SAME(S->joints[j].a, body) || SK_SAME(S->joints[j].b, body)) return true;
  }
  return false;
}

/* the nearest of a few random tracked bodies without a joint within reach of p, other than other */
static int32_t sk_near_body(sk_state *S, sn_vec2 p, float reach, sn_body_id other) {
  int32_t best = -1;
  float best_d = reach;
  for (int32_t t = 0; t < 24 && S->body_count > 0; ++t) {
    int32_t k = sk_below(&S->rng, S->body_count);
    if (SK_SAME(S->bodies[k].id, other) || sk_has_joint(S, S->bodies[k].id)) continue;
    sn_vec2 q = sn_body_get_position(S->w, S->bodies[k].id);
    float d = hypotf(q.x - p.x, q.y - p.y);
    if (d < best_d && d > 0.05f) {
      best_d = d;
      best = k;
    }
  }
  return best;
}

static bool sk_add_joint(sk_state *S, sn_constraint_id id, sk_joint_kind kind, sn_body_id a, sn_body_id b,
                         sn_soft_body_id soft) {
  if (!sk_grow((void **)&S->joints, &S->joint_cap, S->joint_count + 1, sizeof(sk_joint))) return false;
  S->joints[S->joint_count++] = (sk_joint){id, kind, a, b, soft};
  return true;
}

static void sk_spawn_joint(sk_state *S) {
  if (S->body_count < 2) return;
  sn_body_id a = S->bodies[sk_below(&S->rng, S->body_count)].id;
  sn_vec2 pa = sn_body_get_position(S->w, a);
  int32_t kb = sk_has_joint(S, a) ? -1 : sk_near_body(S, pa, 2.5f, a);
  if (kb < 0) {
    S->st.refused++;
    return;
  }
  sn_body_id b = S->bodies[kb].id;
  sn_vec2 pb = sn_body_get_position(S->w, b);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.bodies[0] = a;
  cd.bodies[1] = b;
  sk_joint_kind kind = sk_unit(&S->rng) < 0.5 ? SK_REVOLUTE : SK_DISTANCE;
  sn_param_value v[2];
  if (kind == SK_REVOLUTE) {
    cd.type = "revolute";
    v[0] = (sn_param_value){"anchor", 0.5 * ((double)pa.x + pb.x), 0.5 * ((double)pa.y + pb.y)};
    cd.param_count = 1;
  } else {
    cd.type = "distance";
    v[0] = (sn_param_value){"anchor_a", pa.x, pa.y};
    v[1] = (sn_param_value){"anchor_b", pb.x, pb.y};
    cd.param_count = 2;
  }
  cd.params = v;
  sn_constraint_id id = sn_create_constraint(S->w, &cd);
  if (!sn_constraint_is_valid(S->w, id)) {
    sk_fail(S, SK_F_API, "%s refused: %s", cd.type, sn_world_last_error(S->w));
    return;
  }
  if (sk_add_joint(S, id, kind, a, b, SN_NULL_SOFT_BODY)) S->st.spawned_joints++;
}

static void sk_spawn_attach(sk_state *S) {
  if (S->soft_count == 0 || S->body_count == 0) return;
  const sk_soft *soft = S->softs + sk_below(&S->rng, S->soft_count);
  if (soft->particles == 0 || !sk_pbuf(S, soft->particles)) return;
  int32_t np = sn_soft_body_get_particles(S->w, soft->id, S->pbuf, soft->particles);
  sn_particle_id p = S->pbuf[sk_below(&S->rng, np)];
  int32_t kb = sk_near_body(S, sn_particle_get_position(S->w, p), 2.0f, SN_NULL_BODY);
  if (kb < 0) {
    S->st.refused++;
    return;
  }
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "attach";
  cd.bodies[0] = S->bodies[kb].id;
  cd.particles = &p;
  cd.particle_count = 1;
  sn_constraint_id id = sn_create_constraint(S->w, &cd);
  if (!sn_constraint_is_valid(S->w, id)) {
    sk_fail(S, SK_F_API, "attach refused: %s", sn_world_last_error(S->w));
    return;
  }
  if (sk_add_joint(S, id, SK_ATTACH, S->bodies[kb].id, SN_NULL_BODY, soft->id)) S->st.spawned_attaches++;
}

/* one step's worth of schedule: about one action every three steps */
static void sk_schedule(sk_state *S) {
  if (sk_unit(&S->rng) >= 0.35) return;
  double u = sk_unit(&S->rng);
  if (u < 0.30) {
    if (S->body_count < S->max_bodies)
      sk_spawn_body(S);
    else if (S->body_count > 0)
      sk_delete_body(S, sk_below(&S->rng, S->body_count), false);
  } else if (u < 0.38) {
    if (S->soft_count < S->max_softs)
      sk_spawn_soft(S);
    else if (S->soft_count > 0)
      sk_delete_soft(S, sk_below(&S->rng, S->soft_count), false);
  } else if (u < 0.56) {
    if (S->joint_count >= S->max_joints)
      sk_delete_joint(S, sk_below(&S->rng, S->joint_count));
    else if (u < 0.50)
      sk_spawn_joint(S);
    else
      sk_spawn_attach(S);
  } else if (u < 0.80) {
    if (S->body_count > 0) {
      int32_t k = sk_below(&S->rng, S->body_count);
      if (S->bodies[k].shapes > 1 && sk_unit(&S->rng) < 0.3)
        sk_delete_shape(S, k);
      else
        sk_delete_body(S, k, false);
    }
  } else if (u < 0.88) {
    if (S->soft_count > 0) sk_delete_soft(S, sk_below(&S->rng, S->soft_count), false);
  } else if (S->joint_count > 0) {
    sk_delete_joint(S, sk_below(&S->rng, S->joint_count));
  }
}

/* ---- invariants ---------------------------------------------------------- */

static bool sk_finite2(sn_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

static void sk_speed(sk_state *S, sn_vec2 v, const char *what, int32_t index1) {
  double ratio = hypot((double)v.x, (double)v.y) / SK_MAX_SPEED;
  if (ratio > S->st.max_speed_ratio) S->st.max_speed_ratio = ratio;
  if (ratio > 1.0 + SK_SPEED_TOLERANCE)
    sk_fail(S, SK_F_SPEED, "%s %d moves at %.2f m/s > maximum_linear_speed %.1f", what, (int)index1,
            ratio * SK_MAX_SPEED, (double)SK_MAX_SPEED);
}

/* NaN, speed, arena; culls what left the arena */
static void sk_check_states(sk_state *S) {
  sn_world *w = S->w;
  for (int32_t k = S->body_count - 1; k >= 0; --k) {
    sn_body_id id = S->bodies[k].id;
    sn_transform xf = sn_body_get_transform(w, id);
    sn_vec2 v = sn_body_get_linear_velocity(w, id);
    float om = sn_body_get_angular_velocity(w, id);
    if (!sk_finite2(xf.p) || !isfinite(xf.q.c) || !isfinite(xf.q.s) || !sk_finite2(v) || !isfinite(om)) {
      sk_fail(S, SK_F_FINITE, "body %d has a non-finite state", (int)id.index1);
      sk_delete_body(S, k, true);
      continue;
    }
    sk_speed(S, v, "body", id.index1);
    if (xf.p.y < SK_ARENA_BOTTOM || fabsf(xf.p.x) > SK_ARENA_HALF_WIDTH) sk_delete_body(S, k, true);
  }
  for (int32_t k = S->soft_count - 1; k >= 0; --k) {
    sn_soft_body_id id = S->softs[k].id;
    int32_t np = S->softs[k].particles;
    if (!sk_pbuf(S, np)) return;
    np = sn_soft_body_get_particles(w, id, S->pbuf, np);
    bool finite = true;
    for (int32_t i = 0; i < np; ++i) {
      sn_vec2 x = sn_particle_get_position(w, S->pbuf[i]), v = sn_particle_get_velocity(w, S->pbuf[i]);
      if (!sk_finite2(x) || !sk_finite2(v)) {
        sk_fail(S, SK_F_FINITE, "particle %d has a non-finite state", (int)S->pbuf[i].index1);
        finite = false;
        break;
      }
      sk_speed(S, v, "particle", S->pbuf[i].index1);
    }
    sn_vec2 c = sn_soft_body_get_center(w, id);
    if (!finite || c.y < SK_ARENA_BOTTOM || fabsf(c.x) > SK_ARENA_HALF_WIDTH) sk_delete_soft(S, k, true);
  }
}

static void sk_check_counts(sk_state *S) {
  sn_world_counters c = sn_world_get_counters(S->w);
  int64_t shapes = S->static_shapes, particles = 0, constraints = S->joint_count;
  for (int32_t k = 0; k < S->body_count; ++k) shapes += S->bodies[k].shapes;
  for (int32_t k = 0; k < S->soft_count; ++k) {
    particles += S->softs[k].particles;
    constraints += S->softs[k].constraints;
  }
  int64_t bodies = (int64_t)S->static_bodies + S->body_count;
  if (c.body_count != bodies)
    sk_fail(S, SK_F_COUNTS, "counters: %d bodies, driver %lld", (int)c.body_count, (long long)bodies);
  if (c.shape_count != shapes)
    sk_fail(S, SK_F_COUNTS, "counters: %d shapes, driver %lld", (int)c.shape_count, (long long)shapes);
  if (c.soft_body_count != S->soft_count)
    sk_fail(S, SK_F_COUNTS, "counters: %d soft bodies, driver %d", (int)c.soft_body_count, (int)S->soft_count);
  if (c.particle_count != particles)
    sk_fail(S, SK_F_COUNTS, "counters: %d particles, driver %lld", (int)c.particle_count, (long long)particles);
  if (c.constraint_count != constraints)
    sk_fail(S, SK_F_COUNTS, "counters: %d constraints, driver %lld", (int)c.constraint_count, (long long)constraints);
  if (c.allocated_bytes != S->alloc.live)
    sk_fail(S, SK_F_MEMORY, "counters: %zu allocated bytes, allocator %zu", c.allocated_bytes, S->alloc.live);
  if (S->alloc.size_mismatches != 0) {
    sk_fail(S, SK_F_MEMORY, "%lld frees with a size other than the allocation's", (long long)S->alloc.size_mismatches);
    S->alloc.size_mismatches = 0;
  }
  if (c.allocated_bytes > S->st.peak_world_bytes) S->st.peak_world_bytes = c.allocated_bytes;
  if (bodies > S->st.peak_bodies) S->st.peak_bodies = bodies;
  if (particles > S->st.peak_particles) S->st.peak_particles = particles;
  if (constraints > S->st.peak_constraints) S->st.peak_constraints = constraints;
}

static void sk_check_events(sk_state *S) {
  const sn_frozen_event *fe = NULL;
  int32_t nf = sn_world_get_frozen_events(S->w, &fe);
  for (int32_t i = 0; i < nf; ++i) {
    if (fe[i].body.index1 != 0)
      sk_fail(S, SK_F_EVENTS, "frozen event: body %d", (int)fe[i].body.index1);
    else
      sk_fail(S, SK_F_EVENTS, "frozen event: particle %d", (int)fe[i].particle.index1);
  }
  S->st.frozen_events += nf;
  const sn_constraint_broken_event *be = NULL;
  int32_t nb = sn_world_get_broken_constraints(S->w, &be);
  for (int32_t i = 0; i < nb; ++i) {
    sk_fail(S, SK_F_EVENTS, "constraint %d broke (none is breakable)", (int)be[i].constraint.index1);
    for (int32_t j = S->joint_count - 1; j >= 0; --j) {
      if (SK_SAME(S->joints[j].id, be[i].constraint)) S->joint_count--, S->joints[j] = S->joints[S->joint_count];
    }
  }
  if (nb > 0) { /* resynchronise the soft bodies' own constraint counts */
    int32_t nc = sn_world_get_constraint_count(S->w);
    if (!sk_cbuf(S, nc + 1)) return;
    for (int32_t k = 0; k < S->soft_count; ++k) {
      int32_t n = sn_soft_body_get_constraints(S->w, S->softs[k].id, S->cbuf, nc + 1), attached = 0;
      for (int32_t j = 0; j < S->joint_count; ++j) attached += SK_SAME(S->joints[j].soft, S->softs[k].id);
      S->softs[k].constraints = n - attached;
    }
  }
  S->st.broken_events += nb;
}

static void sk_check_handles(sk_state *S) {
  for (int32_t i = 0; i < S->stale_count; ++i) {
    const sk_stale *e = S->stale + i;
    S->st.stale_checks++;
    if (!sk_is_stale(S, e, true))
      sk_fail(S, SK_F_HANDLES, "deleted %s %d (generation %u) is not refused with SN_ERR_STALE_ID",
              sk_kind_names[e->kind], (int)e->index1, (unsigned)e->generation);
  }
  for (int32_t k = 0; k < S->body_count; ++k) {
    if (!sn_body_is_valid(S->w, S->bodies[k].id))
      sk_fail(S, SK_F_HANDLES, "tracked body %d is invalid", (int)S->bodies[k].id.index1);
  }
  for (int32_t k = 0; k < S->soft_count; ++k) {
    if (!sn_soft_body_is_valid(S->w, S->softs[k].id))
      sk_fail(S, SK_F_HANDLES, "tracked soft body %d is invalid", (int)S->softs[k].id.index1);
  }
  for (int32_t j = 0; j < S->joint_count; ++j) {
    if (!sn_constraint_is_valid(S->w, S->joints[j].id))
      sk_fail(S, SK_F_HANDLES, "tracked constraint %d is invalid", (int)S->joints[j].id.index1);
  }
  int32_t nb = sn_world_get_body_count(S->w), ns = sn_world_get_soft_body_count(S->w);
  int32_t nc = sn_world_get_constraint_count(S->w);
  if (nb != S->static_bodies + S->body_count)
    sk_fail(S, SK_F_HANDLES, "sn_world_get_body_count %d, driver %d", (int)nb, (int)(S->static_bodies + S->body_count));
  if (ns != S->soft_count)
    sk_fail(S, SK_F_HANDLES, "sn_world_get_soft_body_count %d, driver %d", (int)ns, (int)S->soft_count);
  if (sk_cbuf(S, nc + 1) && sn_world_get_constraints(S->w, S->cbuf, nc + 1) != nc)
    sk_fail(S, SK_F_HANDLES, "sn_world_get_constraints disagrees with sn_world_get_constraint_count (%d)", (int)nc);
}

/* -- penetration: exact for rounded convex pieces (SAT when cores overlap) -- */

static sn_vec2 sk_sub(sn_vec2 a, sn_vec2 b) { return (sn_vec2){a.x - b.x, a.y - b.y}; }
static float sk_dot(sn_vec2 a, sn_vec2 b) { return a.x * b.x + a.y * b.y; }
static float sk_cross(sn_vec2 a, sn_vec2 b) { return a.x * b.y - a.y * b.x; }

static float sk_point_segment(sn_vec2 p, sn_vec2 a, sn_vec2 b) {
  sn_vec2 d = sk_sub(b, a), e = sk_sub(p, a);
  float dd = sk_dot(d, d), t = dd > 0.0f ? sk_dot(e, d) / dd : 0.0f;
  t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  sn_vec2 q = {a.x + t * d.x - p.x, a.y + t * d.y - p.y};
  return sqrtf(sk_dot(q, q));
}

static bool sk_segments_cross(sn_vec2 a, sn_vec2 b, sn_vec2 c, sn_vec2 d) {
  float d1 = sk_cross(sk_sub(b, a), sk_sub(c, a)), d2 = sk_cross(sk_sub(b, a), sk_sub(d, a));
  float d3 = sk_cross(sk_sub(d, c), sk_sub(a, c)), d4 = sk_cross(sk_sub(d, c), sk_sub(b, c));
  return ((d1 > 0.0f && d2 < 0.0f) || (d1 < 0.0f && d2 > 0.0f)) &&
         ((d3 > 0.0f && d4 < 0.0f) || (d3 < 0.0f && d4 > 0.0f));
}

static bool sk_inside(const sk_item *poly, sn_vec2 p) { /* counter-clockwise polygon core */
  if (poly->n < 3) return false;
  for (int32_t i = 0; i < poly->n; ++i) {
    if (sk_cross(sk_sub(poly->v[(i + 1) % poly->n], poly->v[i]), sk_sub(p, poly->v[i])) < 0.0f) return false;
  }
  return true;
}

static int32_t sk_edges(const sk_item *it) { return it->n >= 3 ? it->n : (it->n == 2 ? 1 : 1); }
static void sk_edge(const sk_item *it, int32_t i, sn_vec2 *a, sn_vec2 *b) {
  *a = it->v[i];
  *b = it->n >= 2 ? it->v[(i + 1) % it->n] : it->v[i];
}

/* overlap of the projections of the cores on axis u */
static float sk_axis_overlap(const sk_item *a, const sk_item *b, sn_vec2 u) {
  float a0 = 1e30f, a1 = -1e30f, b0 = 1e30f, b1 = -1e30f;
  for (int32_t i = 0; i < a->n; ++i) {
    float s = sk_dot(a->v[i], u);
    a0 = s < a0 ? s : a0;
    a1 = s > a1 ? s : a1;
  }
  for (int32_t i = 0; i < b->n; ++i) {
    float s = sk_dot(b->v[i], u);
    b0 = s < b0 ? s : b0;
    b1 = s > b1 ? s : b1;
  }
  float o1 = a1 - b0, o2 = b1 - a0;
  return o1 < o2 ? o1 : o2;
}

static float sk_depth(const sk_item *a, const sk_item *b) {
  bool cross = false;
  float dist = 1e30f;
  for (int32_t i = 0; i < sk_edges(a); ++i) {
    sn_vec2 p, q;
    sk_edge(a, i, &p, &q);
    for (int32_t j = 0; j < sk_edges(b); ++j) {
      sn_vec2 r, s;
      sk_edge(b, j, &r, &s);
      if (sk_segments_cross(p, q, r, s)) cross = true;
      float d = sk_point_segment(p, r, s);
      d = fminf(d, sk_point_segment(q, r, s));
      d = fminf(d, sk_point_segment(r, p, q));
      d = fminf(d, sk_point_segment(s, p, q));
      dist = fminf(dist, d);
    }
  }
  bool overlap = cross || sk_inside(a, b->v[0]) || sk_inside(b, a->v[0]);
  if (!overlap) return a->r + b->r - dist;
  /* cores overlap: the smallest overlap over the edge normals of both */
  float best = 1e30f;
  const sk_item *pair[2] = {a, b};
  for (int32_t k = 0; k < 2; ++k) {
    const sk_item *it = pair[k];
    if (it->n < 2) continue;
    for (int32_t i = 0; i < sk_edges(it); ++i) {
      sn_vec2 p, q;
      sk_edge(it, i, &p, &q);
      sn_vec2 d = sk_sub(q, p);
      float len = sqrtf(sk_dot(d, d));
      if (len <= 0.0f) continue;
      sn_vec2 u = {d.y / len, -d.x / len};
      best = fminf(best, sk_axis_overlap(a, b, u));
    }
  }
  return a->r + b->r + (best < 1e30f ? best : 0.0f);
}

static sn_vec2 sk_xf(sn_transform xf, sn_vec2 v) {
  return (sn_vec2){xf.p.x + xf.q.c * v.x - xf.q.s * v.y, xf.p.y + xf.q.s * v.x + xf.q.c * v.y};
}

static bool sk_push_item(sk_state *S, int32_t *n) {
  if (!sk_grow((void **)&S->items, &S->item_cap, *n + 1, sizeof(sk_item))) return false;
  memset(S->items + *n, 0, sizeof(sk_item));
  ++*n;
  return true;
}

static void sk_item_box(sk_item *it) {
  it->box.lower = it->box.upper = it->v[0];
  for (int32_t i = 1; i < it->n; ++i) {
    it->box.lower.x = fminf(it->box.lower.x, it->v[i].x);
    it->box.lower.y = fminf(it->box.lower.y, it->v[i].y);
    it->box.upper.x = fmaxf(it->box.upper.x, it->v[i].x);
    it->box.upper.y = fmaxf(it->box.upper.y, it->v[i].y);
  }
  it->box.lower.x -= it->r;
  it->box.lower.y -= it->r;
  it->box.upper.x += it->r;
  it->box.upper.y += it->r;
}

static bool sk_add_body_items(sk_state *S, sn_body_id id, bool is_static, int32_t *n) {
  sn_shape_id shapes[8];
  int32_t ns = sn_body_get_shapes(S->w, id, shapes, 8);
  sn_transform xf = sn_body_get_transform(S->w, id);
  for (int32_t i = 0; i < ns; ++i) {
    if (!sk_push_item(S, n)) return false;
    sk_item *it = S->items + *n - 1;
    it->body = id.index1;
    it->is_static = is_static;
    switch (sn_shape_get_type(S->w, shapes[i])) {
    case SN_SHAPE_CIRCLE: {
      sn_circle c;
      sn_shape_get_circle(S->w, shapes[i], &c);
      it->v[0] = sk_xf(xf, c.center);
      it->n = 1;
      it->r = c.radius;
    } break;
    case SN_SHAPE_CAPSULE: {
      sn_capsule c;
      sn_shape_get_capsule(S->w, shapes[i], &c);
      it->v[0] = sk_xf(xf, c.center1);
      it->v[1] = sk_xf(xf, c.center2);
      it->n = 2;
      it->r = c.radius;
    } break;
    case SN_SHAPE_POLYGON: {
      sn_polygon p;
      sn_shape_get_polygon(S->w, shapes[i], &p);
      for (int32_t k = 0; k < p.count; ++k) it->v[k] = sk_xf(xf, p.vertices[k]);
      it->n = p.count;
      it->r = p.radius;
    } break;
    case SN_SHAPE_SEGMENT: {
      sn_segment g;
      sn_shape_get_segment(S->w, shapes[i], &g);
      it->v[0] = sk_xf(xf, g.point1);
      it->v[1] = sk_xf(xf, g.point2);
      it->n = 2;
    } break;
    case SN_SHAPE_CHAIN_SEGMENT: /* (not made by the soak scenes) */
    case SN_SHAPE_TYPE_COUNT:
      --*n;
      continue;
    }
    sk_item_box(it);
  }
  return true;
}

static int sk_cmp_items(const void *x, const void *y) {
  float a = ((const sk_item *)x)->box.lower.x, b = ((const sk_item *)y)->box.lower.x;
  return (a > b) - (a < b);
}

/* pairs the engine does not collide: joined bodies (collide_connected off),
 * a soft body and a body it is attached to */
static bool sk_joins(const sk_joint *J, const sk_item *a, const sk_item *b) {
  if (J->kind == SK_ATTACH)
    return (a->soft == J->soft.index1 && b->body == J->a.index1) ||
           (b->soft == J->soft.index1 && a->body == J->a.index1);
  return (a->body == J->a.index1 && b->body == J->b.index1) || (a->body == J->b.index1 && b->body == J->a.index1);
}

static bool sk_excluded(const sk_state *S, const sk_item *a, const sk_item *b) {
  for (int32_t j = 0; j < S->joint_count + S->released_count; ++j) {
    const sk_joint *J = j < S->joint_count ? S->joints + j : S->released + (j - S->joint_count);
    if (j >= S->joint_count && !sk_release_active(S, j - S->joint_count)) continue;
    if (sk_joins(J, a, b)) return true;
  }
  return false;
}

/* shapes of the tracked body in slot index1 (0 if none: a static body or a soft body) */
static int32_t sk_shapes_of(const sk_state *S, int32_t index1) {
  for (int32_t k = 0; k < S->body_count; ++k) {
    if (S->bodies[k].id.index1 == index1) return S->bodies[k].shapes;
  }
  return 0;
}

/* speed of the tracked body in slot index1 (0 if none: a static body) */
static double sk_speed_of(const sk_state *S, int32_t index1) {
  for (int32_t k = 0; k < S->body_count; ++k) {
    if (S->bodies[k].id.index1 == index1) {
      sn_vec2 v = sn_body_get_linear_velocity(S->w, S->bodies[k].id);
      return hypot((double)v.x, (double)v.y);
    }
  }
  return 0.0;
}

static void sk_check_penetration(sk_state *S) {
  int32_t n = 0;
  for (int32_t k = 0; k < S->static_bodies; ++k) {
    if (!sk_add_body_items(S, S->statics[k], true, &n)) return;
  }
  for (int32_t k = 0; k < S->body_count; ++k) {
    if (!sk_add_body_items(S, S->bodies[k].id, false, &n)) return;
  }
  for (int32_t k = 0; k < S->soft_count; ++k) {
    int32_t np = S->softs[k].particles;
    if (!sk_pbuf(S, np)) return;
    np = sn_soft_body_get_particles(S->w, S->softs[k].id, S->pbuf, np);
    for (int32_t i = 0; i < np; ++i) {
      float r = sn_particle_get_radius(S->w, S->pbuf[i]);
      if (r <= 0.0f) continue;
      if (!sk_push_item(S, &n)) return;
      sk_item *it = S->items + n - 1;
      it->v[0] = sn_particle_get_position(S->w, S->pbuf[i]);
      it->n = 1;
      it->r = r;
      it->soft = S->softs[k].id.index1;
      sk_item_box(it);
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    sk_item *it = S->items + i;
    for (int32_t j = 0; j < S->joint_count + S->released_count && !it->constrained; ++j) {
      const sk_joint *J = j < S->joint_count ? S->joints + j : S->released + (j - S->joint_count);
      if (j >= S->joint_count && !sk_release_active(S, j - S->joint_count)) continue;
      it->constrained = it->body != 0 ? (it->body == J->a.index1 || it->body == J->b.index1)
                                      : (J->kind == SK_ATTACH && it->soft == J->soft.index1);
    }
  }
  qsort(S->items, (size_t)n, sizeof(sk_item), sk_cmp_items);
  /* a body or soft body touching a constrained one is not free either: a
   * joined pair can act as tongs and crush a third body between its two */
  int32_t keys = 1;
  for (int32_t i = 0; i < n; ++i) keys = S->items[i].body + 1 > keys ? S->items[i].body + 1 : keys;
  int32_t soft_keys = 1;
  for (int32_t i = 0; i < n; ++i) soft_keys = S->items[i].soft + 1 > soft_keys ? S->items[i].soft + 1 : soft_keys;
  bool *near = calloc((size_t)(keys + soft_keys), sizeof(bool));
  if (near == NULL) return;
  for (int32_t i = 0; i < n; ++i) {
    const sk_item *a = S->items + i;
    for (int32_t j = i + 1; j < n && S->items[j].box.lower.x <= a->box.upper.x + SK_NEAR; ++j) {
      const sk_item *b = S->items + j;
      if (a->constrained == b->constrained || b->box.lower.y > a->box.upper.y + SK_NEAR ||
          b->box.upper.y + SK_NEAR < a->box.lower.y)
        continue;
      const sk_item *other = a->constrained ? b : a;
      if (!other->is_static) near[other->body ? other->body : keys + other->soft] = true;
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    sk_item *it = S->items + i;
    if (near[it->body ? it->body : keys + it->soft]) it->constrained = true;
  }
  free(near);
  /* free pairs (no joint or attach on either side or on anything they touch,
   * none released in the last SK_GRACE steps): the deepest of this check, and those deeper than
   * SK_RESTING_PENETRATION, matched against the previous checks' */
  double worst = 0.0, worst_constrained = 0.0;
  const sk_item *wa = NULL, *wb = NULL;
  bool still[SK_RELEASED] = {false}; /* released pairs found overlapping deeper than SK_RESTING_PENETRATION */
  int32_t suspects = 0;
  sk_suspect next[SK_SUSPECTS];
  for (int32_t i = 0; i < n; ++i) {
    const sk_item *a = S->items + i;
    for (int32_t j = i + 1; j < n && S->items[j].box.lower.x <= a->box.upper.x; ++j) {
      const sk_item *b = S->items + j;
      if (b->box.lower.y > a->box.upper.y || b->box.upper.y < a->box.lower.y) continue;
      if ((a->is_static && b->is_static) || (a->body != 0 && a->body == b->body) ||
          (a->soft != 0 && a->soft == b->soft))
        continue;
      double d = sk_depth(a, b);
      if (d <= 0.0) continue;
      if (d > SK_RESTING_PENETRATION) {
        for (int32_t r = 0; r < S->released_count; ++r) still[r] = still[r] || sk_joins(S->released + r, a, b);
      }
      if (a->constrained || b->constrained) {
        if (d > worst_constrained && !sk_excluded(S, a, b)) worst_constrained = d;
        continue;
      }
      bool particle = a->soft != 0 || b->soft != 0;
      if (particle)
        S->st.max_penetration_particle = fmax(S->st.max_penetration_particle, d);
      else
        S->st.max_penetration = fmax(S->st.max_penetration, d);
      if (d > worst) {
        worst = d;
        wa = a;
        wb = b;
      }
      if (d > SK_RESTING_PENETRATION && suspects < SK_SUSPECTS) {
        int32_t ka = a->body ? a->body : -a->soft, kb = b->body ? b->body : -b->soft;
        sk_suspect x = {ka < kb ? ka : kb, ka < kb ? kb : ka, 1, d, a->v[0]};
        for (int32_t k = 0; k < S->suspect_count; ++k) {
          if (S->suspects[k].a == x.a && S->suspects[k].b == x.b) x.checks = S->suspects[k].checks + 1;
        }
        bool dup = false;
        for (int32_t k = 0; k < suspects && !dup; ++k) {
          if (next[k].a == x.a && next[k].b == x.b) {
            dup = true;
            next[k].depth = fmax(next[k].depth, d);
          }
        }
        if (!dup) next[suspects++] = x;
      }
    }
  }
  for (int32_t r = 0; r < S->released_count; ++r) S->released_overlap[r] = still[r];
  S->st.penetration_checks++;
  S->st.max_penetration_constrained = fmax(S->st.max_penetration_constrained, worst_constrained);
  memcpy(S->suspects, next, (size_t)suspects * sizeof(sk_suspect));
  S->suspect_count = suspects;
  if (worst > SK_MAX_PENETRATION)
    sk_fail(S, SK_F_PENETRATION,
            "penetration %.3f m > %.2f m between %s %d (%d-point core, r %.2f, %.1f m/s) and %s %d (%d-point core, r "
            "%.2f, %.1f m/s) at (%.2f, %.2f)",
            worst, (double)SK_MAX_PENETRATION, wa->body ? "body" : "soft body", (int)(wa->body ? wa->body : wa->soft),
            (int)wa->n, (double)wa->r, sk_speed_of(S, wa->body), wb->body ? "body" : "soft body",
            (int)(wb->body ? wb->body : wb->soft), (int)wb->n, (double)wb->r, sk_speed_of(S, wb->body),
            (double)wa->v[0].x, (double)wa->v[0].y);
  for (int32_t k = 0; k < suspects; ++k) {
    const sk_suspect *x = S->suspects + k;
    if (x->checks == SK_RESTING_CHECKS) /* once per episode */
      sk_fail(S, SK_F_RESTING,
              "%s %d and %s %d have overlapped by more than %.2f m for %d checks (%d steps), now %.3f m, at (%.2f, "
              "%.2f), %.2f and %.2f m/s, %d and %d shapes",
              x->a > 0 ? "body" : "soft body", (int)(x->a > 0 ? x->a : -x->a), x->b > 0 ? "body" : "soft body",
              (int)(x->b > 0 ? x->b : -x->b), (double)SK_RESTING_PENETRATION, (int)x->checks,
              (int)((x->checks - 1) * SK_PEN_EVERY), x->depth, (double)x->at.x, (double)x->at.y,
              sk_speed_of(S, x->a > 0 ? x->a : 0), sk_speed_of(S, x->b > 0 ? x->b : 0),
              (int)sk_shapes_of(S, x->a > 0 ? x->a : 0), (int)sk_shapes_of(S, x->b > 0 ? x->b : 0));
  }
}

/* ---- worlds -------------------------------------------------------------- */

static bool sk_build(sk_state *S, int32_t scene) {
  S->scene = scene;
  S->world_number = S->st.worlds;
  S->world_step = 0;
  memset(&S->alloc, 0, sizeof S->alloc);
  S->static_bodies = S->static_shapes = 0;
  S->body_count = S->soft_count = S->joint_count = 0;
  S->stale_count = S->stale_head = 0;
  S->released_count = 0;
  S->suspect_count = 0;
  sn_world_def wd = sn_default_world_def();
  wd.allocator = (sn_allocator){sk_alloc_fn, sk_free_fn, &S->alloc};
  wd.registry = S->registry;
  wd.maximum_linear_speed = SK_MAX_SPEED;
  if (!sn_scene_build_def(&S->sc, sk_scene_names[scene], 0, &wd)) {
    fprintf(stderr, "sinew-bench: cannot build scene %s\n", sk_scene_names[scene]);
    sn_scene_destroy(&S->sc);
    return false;
  }
  S->w = S->sc.world;
  int32_t nb = sn_world_get_body_count(S->w);
  sn_body_id *ids = malloc((size_t)(nb + 1) * sizeof(sn_body_id));
  if (ids == NULL || !sk_grow((void **)&S->bodies, &S->body_cap, nb, sizeof(sk_body)) ||
      !sk_grow((void **)&S->statics, &S->static_cap, nb, sizeof(sn_body_id))) {
    free(ids);
    return false;
  }
  nb = sn_world_get_bodies(S->w, ids, nb);
  for (int32_t k = 0; k < nb; ++k) {
    int32_t shapes = sn_body_get_shape_count(S->w, ids[k]);
    if (sn_body_get_type(S->w, ids[k]) == SN_BODY_STATIC) {
      S->statics[S->static_bodies++] = ids[k];
      S->static_shapes += shapes;
    } else {
      S->bodies[S->body_count++] = (sk_body){ids[k], shapes};
    }
  }
  free(ids);
  int32_t nsoft = sn_world_get_soft_body_count(S->w);
  sn_soft_body_id *softs = malloc((size_t)(nsoft + 1) * sizeof(sn_soft_body_id));
  if (softs == NULL) return false;
  nsoft = sn_world_get_soft_bodies(S->w, softs, nsoft);
  for (int32_t k = 0; k < nsoft; ++k) sk_track_soft(S, softs[k]);
  free(softs);
  S->max_bodies = S->body_count + 100;
  S->max_softs = S->soft_count + 8;
  S->max_joints = 40;
  if (scene == 0)
    S->spawn = (sn_aabb){{-19.0f, 42.0f}, {19.0f, 52.0f}}; /* above the rain's walls (40 m high) */
  else if (scene == 1)
    S->spawn = (sn_aabb){{-19.0f, 12.0f}, {19.0f, 22.0f}};
  else
    S->spawn = (sn_aabb){{-14.0f, 16.0f}, {14.0f, 26.0f}};
  S->st.worlds++;
  S->st.scene_worlds[scene]++;
  sk_check_counts(S); /* the scene's own constraints all belong to its soft bodies */
  return true;
}

static void sk_destroy(sk_state *S) {
  sn_scene_destroy(&S->sc);
  S->w = NULL;
  if (S->alloc.live != 0 || S->alloc.blocks != 0)
    sk_fail(S, SK_F_MEMORY, "after sn_destroy_world the allocator still holds %zu bytes in %lld blocks", S->alloc.live,
            (long long)S->alloc.blocks);
  if (S->alloc.size_mismatches != 0)
    sk_fail(S, SK_F_MEMORY, "%lld frees with a size other than the allocation's", (long long)S->alloc.size_mismatches);
}

static void sk_step(sk_state *S) {
  sk_schedule(S);
  if (S->opt.fault && S->world_step == 100 && S->body_count > 0) /* the counts must catch this */
    sn_destroy_body(S->w, S->bodies[0].id);
  double t0 = sn_scene_now_ms();
  sn_result r = sn_world_step(S->w, SK_DT);
  double ms = sn_scene_now_ms() - t0;
  S->world_step++;
  S->st.steps++;
  S->st.scene_steps[S->scene]++;
  S->st.ms_total += ms;
  if (ms > S->st.ms_max) S->st.ms_max = ms;
  if (r != SN_OK) sk_fail(S, SK_F_API, "sn_world_step: %s (%s)", sn_result_name(r), sn_world_last_error(S->w));
  sk_check_events(S);
  sk_check_states(S);
  sk_check_counts(S);
  if (S->world_step % SK_PEN_EVERY == 0) sk_check_penetration(S);
  if (S->world_step % SK_SWEEP_EVERY == 0) sk_check_handles(S);
}

/* ---- report -------------------------------------------------------------- */

static long sk_status_kb(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, n) == 0) {
      v = strtol(line + n, NULL, 10);
      break;
    }
  }
  fclose(f);
  return v;
}

static void sk_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", (unsigned)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

static void sk_report(const sk_state *S, double seconds) {
  const sk_stats *t = &S->st;
  long hwm = sk_status_kb("VmHWM:");
  const char *verdict = t->failures == 0 ? "pass" : "fail";
  double mean = t->steps > 0 ? t->ms_total / (double)t->steps : 0.0;
  if (S->opt.json) {
    printf("{\"engine\": \"sinew-%s\", \"mode\": \"soak\", \"scene\": \"%s\", \"seed\": %llu, \"seconds\": %.1f, "
           "\"world_steps\": %d, \"steps\": %lld, \"steps_rain\": %lld, \"steps_jelly\": %lld, \"steps_mixed\": %lld, "
           "\"worlds\": %d, \"spawned_bodies\": %lld, \"spawned_soft_bodies\": %lld, \"spawned_joints\": %lld, "
           "\"spawned_attaches\": %lld, \"deleted_bodies\": %lld, \"deleted_shapes\": %lld, "
           "\"deleted_soft_bodies\": %lld, \"deleted_constraints\": %lld, \"culled_bodies\": %lld, "
           "\"culled_soft_bodies\": %lld, \"spawns_refused\": %lld, \"peak_bodies\": %lld, \"peak_particles\": %lld, "
           "\"peak_constraints\": %lld, \"peak_world_bytes\": %zu, \"peak_rss_kb\": %ld, \"ms_step_max\": %.3f, "
           "\"ms_step_mean\": %.4f, \"max_penetration\": %.4f, \"max_penetration_particle\": %.4f, "
           "\"max_penetration_constrained\": %.4f, \"max_speed_ratio\": %.4f, \"frozen_events\": %lld, "
           "\"broken_constraints\": %lld, \"stale_checks\": %lld, \"penetration_checks\": %lld, "
           "\"invariant_failures\": %lld, \"first_failures\": [",
           sn_version_string(), S->opt.scene ? S->opt.scene : "all", (unsigned long long)S->opt.seed, seconds,
           (int)S->opt.world_steps, (long long)t->steps, (long long)t->scene_steps[0], (long long)t->scene_steps[1],
           (long long)t->scene_steps[2], (int)t->worlds, (long long)t->spawned_bodies, (long long)t->spawned_softs,
           (long long)t->spawned_joints, (long long)t->spawned_attaches, (long long)t->deleted_bodies,
           (long long)t->deleted_shapes, (long long)t->deleted_softs, (long long)t->deleted_joints,
           (long long)t->culled_bodies, (long long)t->culled_softs, (long long)t->refused, (long long)t->peak_bodies,
           (long long)t->peak_particles, (long long)t->peak_constraints, t->peak_world_bytes, hwm, t->ms_max, mean,
           t->max_penetration, t->max_penetration_particle, t->max_penetration_constrained, t->max_speed_ratio,
           (long long)t->frozen_events, (long long)t->broken_events, (long long)t->stale_checks,
           (long long)t->penetration_checks, (long long)t->failures);
    for (int64_t i = 0; i < t->failures && i < SK_FIRST_FAILURES; ++i) {
      if (i > 0) printf(", ");
      sk_json_string(stdout, t->first[i]);
    }
    printf("], \"failures_by_check\": {");
    for (int32_t c = 0; c < SK_F_COUNT; ++c)
      printf("%s\"%s\": %lld", c > 0 ? ", " : "", sk_check_names[c], (long long)t->failures_by[c]);
    printf("}, \"verdict\": \"%s\"}\n", verdict);
    fflush(stdout);
  }
  fprintf(stderr,
          "soak: %.1f s, %lld steps (rain %lld, jelly %lld, mixed %lld) in %d worlds of up to %d steps\n"
          "soak: spawned %lld bodies, %lld soft bodies, %lld joints, %lld attaches; deleted %lld bodies, %lld shapes, "
          "%lld soft bodies, %lld constraints; culled %lld bodies, %lld soft bodies\n"
          "soak: peak %lld bodies, %lld particles, %lld constraints; peak world memory %zu bytes, peak RSS %ld kB\n"
          "soak: step max %.2f ms, mean %.3f ms; deepest free overlap %.4f m rigid, %.4f m with particles (bound %.2f, "
          "resting %.2f); %.4f m next to constraints; max speed %.3f of the limit; "
          "%lld frozen, %lld broken; %lld stale-handle checks\n"
          "soak: %lld invariant failures: %s\n",
          seconds, (long long)t->steps, (long long)t->scene_steps[0], (long long)t->scene_steps[1],
          (long long)t->scene_steps[2], (int)t->worlds, (int)S->opt.world_steps, (long long)t->spawned_bodies,
          (long long)t->spawned_softs, (long long)t->spawned_joints, (long long)t->spawned_attaches,
          (long long)t->deleted_bodies, (long long)t->deleted_shapes, (long long)t->deleted_softs,
          (long long)t->deleted_joints, (long long)t->culled_bodies, (long long)t->culled_softs,
          (long long)t->peak_bodies, (long long)t->peak_particles, (long long)t->peak_constraints, t->peak_world_bytes,
          hwm, t->ms_max, mean, t->max_penetration, t->max_penetration_particle, (double)SK_MAX_PENETRATION,
          SK_RESTING_PENETRATION, t->max_penetration_constrained, t->max_speed_ratio, (long long)t->frozen_events,
          (long long)t->broken_events, (long long)t->stale_checks, (long long)t->failures, verdict);
  for (int32_t c = 0; c < SK_F_COUNT; ++c) {
    if (t->failures_by[c] > 0) fprintf(stderr, "soak:   %s: %lld\n", sk_check_names[c], (long long)t->failures_by[c]);
  }
  for (int64_t i = 0; i < t->failures && i < SK_FIRST_FAILURES; ++i) fprintf(stderr, "soak:   %s\n", t->first[i]);
}

static bool sk_load_registry(sk_state *S) {
  static const char *const plugins[] = {"revolute",  "distance",  "attach",     "xpbd_distance",
                                        "xpbd_area", "xpbd_bend", "xpbd_tether"};
  S->registry = sn_create_registry(NULL);
  if (S->registry == NULL) return false;
  char msg[512];
  if (sn_shipped_add(S->registry, NULL, plugins, (int32_t)(sizeof plugins / sizeof plugins[0]), msg, sizeof msg) !=
      SN_OK) {
    fprintf(stderr, "sinew-bench: %s\n", msg);
    return false;
  }
  return true;
}

int sn_soak_run(const sn_soak_options *options) {
  sk_state *S = calloc(1, sizeof(sk_state));
  if (S == NULL) return 2;
  S->opt = *options;
  if (S->opt.world_steps <= 0) S->opt.world_steps = 3600;
  int32_t only = -1;
  if (S->opt.scene != NULL && strcmp(S->opt.scene, "all") != 0) {
    for (int32_t i = 0; i < SK_SCENES; ++i) {
      if (strcmp(S->opt.scene, sk_scene_names[i]) == 0) only = i;
    }
    if (only < 0) {
      fprintf(stderr, "sinew-bench: --soak runs rain, jelly, mixed or all, not '%s'\n", S->opt.scene);
      free(S);
      return 2;
    }
  }
  S->rng = S->opt.seed;
  int rc = 0;
  if (!sk_load_registry(S)) {
    rc = 2;
  } else {
    double start = sn_scene_now_ms(), last_note = start;
    double budget_ms = S->opt.seconds > 0.0 ? S->opt.seconds * 1e3 : 1e300;
    int64_t budget_steps = S->opt.steps > 0 ? S->opt.steps : INT64_MAX;
    for (int32_t cycle = 0; S->st.steps < budget_steps && sn_scene_now_ms() - start < budget_ms; ++cycle) {
      if (!sk_build(S, only >= 0 ? only : cycle % SK_SCENES)) {
        rc = 2;
        break;
      }
      for (int32_t k = 0; k < S->opt.world_steps && S->st.steps < budget_steps; ++k) {
        double now = sn_scene_now_ms();
        if (now - start >= budget_ms) break;
        if (now - last_note >= 60e3) {
          last_note = now;
          fprintf(stderr, "soak: %.0f s: %lld steps, %s world %d step %lld, %d bodies, %d soft bodies, %lld failures\n",
                  (now - start) * 1e-3, (long long)S->st.steps, sk_scene_names[S->scene], (int)S->world_number,
                  (long long)S->world_step, (int)S->body_count, (int)S->soft_count, (long long)S->st.failures);
        }
        sk_step(S);
      }
      sk_destroy(S);
    }
    sk_report(S, (sn_scene_now_ms() - start) * 1e-3);
    if (rc == 0 && S->st.failures > 0) rc = 1;
  }
  if (S->w != NULL) sn_scene_destroy(&S->sc);
  if (S->registry != NULL) sn_destroy_registry(S->registry);
  free(S->statics);
  free(S->bodies);
  free(S->softs);
  free(S->joints);
  free(S->pbuf);
  free(S->cbuf);
  free(S->items);
  free(S);
  return rc;
}
