/* A step that runs out of memory changes nothing (docs/errors.md,
 * SN_ERR_OUT_OF_MEMORY): for several scenes, each of the first steps is
 * run once for every allocation it makes, on a world built and stepped
 * afresh to that point, with exactly that allocation failing. The step must
 * return SN_ERR_OUT_OF_MEMORY and leave the world byte for byte as it was
 * (the snapshot, the counters, the last step's events, the end events held
 * for the next one); with memory back the next steps must give exactly what
 * a world that never failed got. Every step's arena allocations fit the
 * scratch the step reserved (sn_arena.misses stays zero). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"
#include "sinew/thread_pool.h"

#include "world/world.h"
#include "scenes.h"
#include "shipped.h"
#include "soft_support.h"

/* ------------------------------------------------------------------------ */
/* An allocator that fails one chosen call                                    */

typedef struct step_alloc {
  long calls;    ///< allocation calls since the count was last reset
  long fail_at;  ///< the call that returns NULL (-1: none)
  long failures; ///< calls that returned NULL
  long live_blocks;
} step_alloc;

static void *sa_alloc(size_t size, void *context) {
  step_alloc *a = context;
  long n = a->calls++;
  if (n == a->fail_at) {
    a->failures++;
    return NULL;
  }
  void *p = malloc(size);
  if (p != NULL) a->live_blocks++;
  return p;
}

static void sa_free(void *memory, size_t size, void *context) {
  step_alloc *a = context;
  (void)size;
  if (memory == NULL) return;
  a->live_blocks--;
  free(memory);
}

/* ------------------------------------------------------------------------ */
/* What a caller can see of a world                                           */

typedef struct seen {
  void *data;
  size_t bytes;
} seen;

static seen copy_seen(const void *data, size_t bytes) {
  seen s = {NULL, bytes};
  if (bytes > 0) {
    s.data = malloc(bytes);
    ck_assert_ptr_nonnull(s.data);
    memcpy(s.data, data, bytes);
  }
  return s;
}

enum {
  SEEN_SNAPSHOT,
  SEEN_BEGIN,
  SEEN_END,
  SEEN_HIT,
  SEEN_BROKEN,
  SEEN_FROZEN,
  SEEN_PENDING,
  SEEN_COUNTERS,
  SEEN_SENSOR_BEGIN,
  SEEN_SENSOR_END,
  SEEN_BODY,
  SEEN_N
};
static const char *const seen_names[SEEN_N] = {
    "snapshot",        "begin events", "end events",          "hit events",        "broken events",   "frozen events",
    "held end events", "counters",     "sensor begin events", "sensor end events", "body move events"};

typedef struct world_state {
  seen part[SEEN_N];
} world_state;

static world_state capture(sn_world *w) {
  world_state s;
  size_t size = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &size), SN_OK);
  uint8_t *bytes = malloc(size);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, size, &size), SN_OK);
  s.part[SEEN_SNAPSHOT] = (seen){bytes, size};
  sn_contact_events e = sn_world_get_contact_events(w);
  s.part[SEEN_BEGIN] = copy_seen(e.begin_events, (size_t)e.begin_count * sizeof *e.begin_events);
  s.part[SEEN_END] = copy_seen(e.end_events, (size_t)e.end_count * sizeof *e.end_events);
  s.part[SEEN_HIT] = copy_seen(e.hit_events, (size_t)e.hit_count * sizeof *e.hit_events);
  /* (field by field: the structs have padding) */
  const sn_constraint_broken_event *broken = NULL;
  int32_t nb = sn_world_get_broken_constraints(w, &broken);
  uint64_t *b = calloc((size_t)nb * 3 + 1, sizeof *b);
  ck_assert_ptr_nonnull(b);
  for (int32_t i = 0; i < nb; ++i) {
    uint32_t force;
    memcpy(&force, &broken[i].force, sizeof force);
    b[3 * i] = (uint64_t)(uint32_t)broken[i].constraint.index1 << 32 | (uint64_t)broken[i].constraint.world_tag << 16 |
               broken[i].constraint.generation;
    b[3 * i + 1] = (uint64_t)(uintptr_t)broken[i].user_data;
    b[3 * i + 2] = force;
  }
  s.part[SEEN_BROKEN] = (seen){b, (size_t)nb * 3 * sizeof *b};
  const sn_frozen_event *frozen = NULL;
  int32_t nf = sn_world_get_frozen_events(w, &frozen);
  s.part[SEEN_FROZEN] = copy_seen(frozen, (size_t)nf * sizeof *frozen);
  s.part[SEEN_PENDING] =
      copy_seen(w->pending_end_events.data, (size_t)w->pending_end_events.count * sizeof *w->pending_end_events.data);
  /* not allocated_bytes: a failed step may keep memory it reserved */
  sn_world_counters c = sn_world_get_counters(w);
  int32_t counters[13] = {c.body_count,
                          c.shape_count,
                          c.contact_count,
                          c.touching_contact_count,
                          c.awake_body_count,
                          c.island_count,
                          c.tree_height,
                          c.constraint_count,
                          c.soft_body_count,
                          c.particle_count,
                          c.particle_contact_count,
                          c.reused_manifold_count,
                          c.contact_limit_hits};
  s.part[SEEN_COUNTERS] = copy_seen(counters, sizeof counters);
  sn_sensor_events se = sn_world_get_sensor_events(w);
  s.part[SEEN_SENSOR_BEGIN] = copy_seen(se.begin_events, (size_t)se.begin_count * sizeof *se.begin_events);
  s.part[SEEN_SENSOR_END] = copy_seen(se.end_events, (size_t)se.end_count * sizeof *se.end_events);
  sn_body_events be = sn_world_get_body_events(w);
  s.part[SEEN_BODY] = copy_seen(be.move_events, (size_t)be.move_count * sizeof *be.move_events);
  return s;
}

static void release(world_state *s) {
  for (int i = 0; i < SEEN_N; ++i) free(s->part[i].data);
  memset(s, 0, sizeof *s);
}

static void assert_same(const world_state *a, const world_state *b, const char *scene, int step, long k,
                        const char *when) {
  for (int i = 0; i < SEEN_N; ++i) {
    const seen *x = a->part + i, *y = b->part + i;
    bool same = x->bytes == y->bytes && (x->bytes == 0 || memcmp(x->data, y->data, x->bytes) == 0);
    ck_assert_msg(same, "%s, step %d, allocation %ld failed: %s: %s differ (%zu and %zu bytes)", scene, step, k, when,
                  seen_names[i], x->bytes, y->bytes);
  }
}

/* ------------------------------------------------------------------------ */
/* Scenes                                                                     */

/// A scene: how to build it on an allocator, and what happens between steps.
typedef struct scene_spec {
  const char *name;
  int steps; ///< steps tested, from the first
  void (*build)(sn_scene *s, sn_world_def *def);
  void (*between)(sn_scene *s, int step); ///< before step `step` (may be NULL)
  int32_t max_contacts;                   ///< the world's limit (0: the default)
  bool threads;                           ///< two workers, every stage cut into blocks
} scene_spec;

static sn_registry *g_registry; /* every plugin a scene uses, loaded once */
static sn_thread_pool *g_pool;  /* two workers, shared by the worlds (one steps at a time) */

static sn_body_id add_body(sn_world *w, sn_body_type type, sn_vec2 p, sn_vec2 v) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = p;
  bd.linear_velocity = v;
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert(sn_body_is_valid(w, b));
  return b;
}

static sn_shape_id add_box(sn_world *w, sn_body_id b, float hx, float hy, bool hits) {
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(hx, hy, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sd.enable_hit_events = hits;
  sn_shape_id s = sn_create_polygon_shape(w, b, &sd, &box);
  ck_assert(sn_shape_is_valid(w, s));
  return s;
}

static sn_shape_id add_disc(sn_world *w, sn_body_id b, float r, bool hits) {
  sn_circle c = {{0.0f, 0.0f}, r};
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sd.restitution = 0.3f;
  sd.enable_hit_events = hits;
  sn_shape_id s = sn_create_circle_shape(w, b, &sd, &c);
  ck_assert(sn_shape_is_valid(w, s));
  return s;
}

/* A box of a container, a row of boxes resting on its floor (asleep after
 * half a second), bodies raining in on them once they sleep (contacts
 * begin, bounce and end, islands wake), and a body at the coordinate limit
 * thrown outwards (frozen at once). Between steps a touching body goes (end
 * events held for the next step) and another comes. */
static void build_pile(sn_scene *s, sn_world_def *def) {
  def->enable_sleep = true;
  s->world = sn_create_world(def, NULL);
  ck_assert_ptr_nonnull(s->world);
  sn_world *w = s->world;
  sn_body_id ground = add_body(w, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, ground, 8.0f, 0.5f, false);
  sn_body_id left = add_body(w, SN_BODY_STATIC, (sn_vec2){-8.5f, 4.0f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, left, 0.5f, 4.0f, false);
  sn_body_id right = add_body(w, SN_BODY_STATIC, (sn_vec2){8.5f, 4.0f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, right, 0.5f, 4.0f, false);
  for (int i = 0; i < 10; ++i) {
    sn_body_id b = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){-6.75f + 1.5f * (float)i, 0.9f}, (sn_vec2){0.0f, 0.0f});
    add_box(w, b, 0.4f, 0.4f, i % 3 == 0);
  }
  for (int i = 0; i < 14; ++i) {
    sn_vec2 p = {-6.5f + (float)i, 4.5f + 0.35f * (float)(i % 4)};
    sn_body_id b = add_body(w, SN_BODY_DYNAMIC, p, (sn_vec2){0.0f, 0.0f});
    if (i % 2 == 0)
      add_disc(w, b, 0.35f, i % 4 == 0);
    else
      add_box(w, b, 0.3f, 0.3f, false);
  }
  sn_body_id lost = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){999999.0f, 5.0f}, (sn_vec2){400.0f, 0.0f});
  add_disc(w, lost, 0.5f, false);
}

static void between_pile(sn_scene *s, int step) {
  sn_world *w = s->world;
  if (step == 20) {
    /* a resting box of the row goes: its contacts end between steps */
    sn_body_id ids[64];
    int32_t n = 0;
    for (int32_t i = 0; i < w->bodies.count && n < 64; ++i) {
      if (w->bodies.data[i].in_use && w->bodies.data[i].type == SN_BODY_DYNAMIC) ids[n++] = sn_make_body_id(w, i);
    }
    ck_assert_int_gt(n, 4);
    ck_assert_int_eq(sn_destroy_body(w, ids[4]), SN_OK);
    ck_assert_int_gt(w->pending_end_events.count, 0);
  }
  if (step == 26) {
    sn_body_id b = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){0.2f, 3.0f}, (sn_vec2){0.0f, -4.0f});
    add_box(w, b, 0.45f, 0.25f, true);
  }
}

/* A chain of revolute links swinging down from a static anchor onto the
 * ground, a pendulum on a distance joint that breaks on the way down, a
 * ring of particles under an area constraint that could break. */
static void build_joints(sn_scene *s, sn_world_def *def) {
  def->enable_sleep = true;
  s->world = sn_create_world(def, NULL);
  ck_assert_ptr_nonnull(s->world);
  sn_world *w = s->world;
  sn_body_id ground = add_body(w, SN_BODY_STATIC, (sn_vec2){0.0f, 0.0f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, ground, 20.0f, 0.5f, false);
  sn_body_id prev = add_body(w, SN_BODY_STATIC, (sn_vec2){0.0f, 3.0f}, (sn_vec2){0.0f, 0.0f});
  for (int k = 0; k < 8; ++k) {
    sn_body_id link = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){0.25f + 0.5f * (float)k, 3.0f}, (sn_vec2){0.0f, 0.0f});
    add_box(w, link, 0.25f, 0.05f, false);
    sn_param_value v[1] = {{"anchor", 0.5 * k, 3.0}};
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "revolute";
    cd.bodies[0] = prev;
    cd.bodies[1] = link;
    cd.params = v;
    cd.param_count = 1;
    ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)), "%s", sn_world_last_error(w));
    prev = link;
  }
  sn_body_id bob = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){-3.0f, 1.3f}, (sn_vec2){0.0f, 0.0f});
  add_disc(w, bob, 0.3f, true);
  sn_body_id hook = add_body(w, SN_BODY_STATIC, (sn_vec2){-5.0f, 1.3f}, (sn_vec2){0.0f, 0.0f});
  sn_param_value v[2] = {{"anchor_a", -5.0, 1.3}, {"anchor_b", -3.0, 1.3}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "distance";
  cd.bodies[0] = hook;
  cd.bodies[1] = bob;
  cd.params = v;
  cd.param_count = 2;
  cd.break_force = 5.0f; /* the swing's tension passes 3 mg = 8.3 N */
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)), "%s", sn_world_last_error(w));
  /* a falling ring of 12 particles held by an area constraint that may
   * break (never does): its reaction needs more views than fit the stack */
  sn_soft_body_id ring = ss_soft(w);
  sn_particle_id ps[12];
  for (int k = 0; k < 12; ++k) {
    double a = 2.0 * PI * k / 12.0;
    ps[k] = ss_particle(w, ring, (sn_vec2){6.0f + 0.5f * (float)cos(a), 3.0f + 0.5f * (float)sin(a)}, 0.1f);
  }
  sn_constraint_id area = ss_constraint(w, "xpbd_area", SN_NULL_BODY, ps, 12, NULL, 0, 1e6f);
  ck_assert(sn_constraint_is_valid(w, area));
}

/* The standard soft scenes (bench/soft_scenes.c), small. */
static void build_standard(sn_scene *s, sn_world_def *def, const char *name, int32_t size) {
  ck_assert_msg(sn_scene_build_def(s, name, size, def), "%s scene", name);
}
static void build_cloth(sn_scene *s, sn_world_def *def) { build_standard(s, def, "cloth", 6); }
static void build_jelly(sn_scene *s, sn_world_def *def) { build_standard(s, def, "jelly", 5); }
static void build_mixed(sn_scene *s, sn_world_def *def) { build_standard(s, def, "mixed", 0); }

/* A rigid ball dropped on the cloth (particles against a shape, the step's
 * candidate search waking it) a few steps in. */
static void between_cloth(sn_scene *s, int step) {
  if (step != 3) return;
  sn_body_id b = add_body(s->world, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 2.0f}, (sn_vec2){0.0f, -3.0f});
  add_disc(s->world, b, 0.2f, true);
}

/* The pile with sensors: a static zone over the floor that the rain falls
 * through, a kinematic sensor bar sweeping across, a circle sensor riding
 * a box, a jelly dropped through the zone; and a one-way platform (the
 * pre-solve callback) the rain passes on its way down and bounces up through. */
static bool one_way(sn_shape_id a, sn_shape_id b, const sn_contact_manifold *m, void *context) {
  const int32_t *platform = context;
  if (a.index1 == *platform) return m->normal.y > 0.7f;
  if (b.index1 == *platform) return -m->normal.y > 0.7f;
  return true;
}

static int32_t g_platform_index1; /* the platform shape's slot, for one_way */

static void build_sensors(sn_scene *s, sn_world_def *def) {
  build_pile(s, def);
  sn_world *w = s->world;
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  sn_body_id zone = add_body(w, SN_BODY_STATIC, (sn_vec2){0.0f, 2.5f}, (sn_vec2){0.0f, 0.0f});
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(7.0f, 1.5f, &box), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, zone, &zd, &box)));
  sn_body_id bar = add_body(w, SN_BODY_KINEMATIC, (sn_vec2){-7.0f, 1.5f}, (sn_vec2){3.0f, 0.0f});
  ck_assert_int_eq(sn_make_box(0.3f, 1.0f, &box), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, bar, &zd, &box)));
  sn_body_id rider = add_body(w, SN_BODY_DYNAMIC, (sn_vec2){5.0f, 6.0f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, rider, 0.3f, 0.3f, false);
  sn_circle c = {{0.0f, 0.0f}, 1.2f};
  zd.density = 0.0f;
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, rider, &zd, &c)));
  sn_ring_def rd = sn_default_ring_def();
  rd.center = (sn_vec2){-3.0f, 7.0f};
  rd.radius = 0.5f;
  rd.count = 12;
  ck_assert(sn_soft_body_is_valid(w, sn_create_ring(w, &rd)));
  sn_body_id shelf = add_body(w, SN_BODY_STATIC, (sn_vec2){2.0f, 3.0f}, (sn_vec2){0.0f, 0.0f});
  sn_shape_def pd = sn_default_shape_def();
  pd.enable_pre_solve_events = true;
  ck_assert_int_eq(sn_make_box(2.0f, 0.1f, &box), SN_OK);
  sn_shape_id platform = sn_create_polygon_shape(w, shelf, &pd, &box);
  ck_assert(sn_shape_is_valid(w, platform));
  g_platform_index1 = platform.index1;
  ck_assert_int_eq(sn_world_set_pre_solve(w, one_way, &g_platform_index1), SN_OK);
}

static void between_sensors(sn_scene *s, int step) {
  between_pile(s, step);
  if (step == 30) {
    /* a shape inside the zone goes between steps: its end event comes with the next step */
    sn_world *w = s->world;
    for (int32_t i = w->shapes.count - 1; i >= 0; --i) {
      const sn_shape *sh = w->shapes.data + i;
      if (!sh->in_use || sh->is_sensor || w->bodies.data[sh->body].type != SN_BODY_DYNAMIC) continue;
      sn_vec2 p = w->bodies.data[sh->body].xf.p;
      if (p.y > 1.0f && p.y < 4.0f && p.x > -7.0f && p.x < 7.0f) {
        ck_assert_int_eq(sn_destroy_body(w, sn_make_body_id(w, sh->body)), SN_OK);
        break;
      }
    }
  }
}

/* 16 pyramids of 36 boxes apart on one ground: over a thousand contacts in
 * islands apart in the solver order, solved batch by batch (the batches'
 * arrays and scratch). A box leaves at step 8 (the colouring and the
 * batches are made again), a ball lands on a pyramid later (its island
 * takes a body from the end of the solver order). */
static void build_pyramids(sn_scene *s, sn_world_def *def) {
  def->enable_sleep = false;
  s->world = sn_create_world(def, NULL);
  ck_assert_ptr_nonnull(s->world);
  sn_world *w = s->world;
  sn_body_id ground = add_body(w, SN_BODY_STATIC, (sn_vec2){100.0f, -0.5f}, (sn_vec2){0.0f, 0.0f});
  add_box(w, ground, 110.0f, 0.5f, false);
  for (int p = 0; p < 16; ++p) {
    for (int row = 0; row < 8; ++row) {
      for (int col = 0; col < 8 - row; ++col) {
        sn_vec2 at = {12.0f * (float)p + (float)col + 0.5f * (float)row, 0.5f + (float)row};
        add_box(w, add_body(w, SN_BODY_DYNAMIC, at, (sn_vec2){0.0f, 0.0f}), 0.5f, 0.5f, false);
      }
    }
  }
  add_disc(w, add_body(w, SN_BODY_DYNAMIC, (sn_vec2){15.5f, 9.0f}, (sn_vec2){0.0f, -8.0f}), 0.3f, false);
}

static void between_pyramids(sn_scene *s, int step) {
  if (step != 8) return;
  sn_world *w = s->world;
  ck_assert_int_gt(w->solve_batches, 1); /* the steps so far ran in batches */
  /* the 41st box (the second pyramid's fifth) */
  int32_t n = 0;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    if (!w->bodies.data[i].in_use || w->bodies.data[i].type != SN_BODY_DYNAMIC || n++ < 40) continue;
    ck_assert_int_eq(sn_destroy_body(w, sn_make_body_id(w, i)), SN_OK);
    break;
  }
}

static const scene_spec g_scenes[] = {
    {"pile", 120, build_pile, between_pile, 0, false},
    {"joints", 90, build_joints, NULL, 0, false},
    {"cloth", 40, build_cloth, between_cloth, 0, false},
    {"jelly", 90, build_jelly, NULL, 0, false},
    {"mixed", 120, build_mixed, NULL, 0, false},
    /* contacts and particle candidates past the limit wait (the move buffer
     * keeps the shapes the limit stopped) */
    {"pile at max_contacts", 60, build_pile, between_pile, 24, false},
    {"jelly at max_contacts", 60, build_jelly, NULL, 60, false},
    /* the narrowphase, the contact list and the substeps in blocks on two workers */
    {"pile on two workers", 60, build_pile, between_pile, 0, true},
    {"mixed on two workers", 40, build_mixed, NULL, 0, true},
    /* sensors (the pass in the step's first part) and the pre-solve callback */
    {"sensors", 60, build_sensors, between_sensors, 0, false},
    {"sensors on two workers", 40, build_sensors, between_sensors, 0, true},
    /* islands solved batch by batch */
    {"pyramids", 16, build_pyramids, between_pyramids, 0, false},
    {"pyramids on two workers", 12, build_pyramids, between_pyramids, 0, true},
};

/// A world of the scene on alloc, made and stepped to just before `step`.
static void make_at(const scene_spec *spec, step_alloc *alloc, sn_scene *s, int step) {
  memset(alloc, 0, sizeof *alloc);
  alloc->fail_at = -1;
  sn_world_def def = sn_default_world_def();
  def.allocator = (sn_allocator){sa_alloc, sa_free, alloc};
  def.registry = g_registry;
  if (spec->max_contacts > 0) def.max_contacts = spec->max_contacts;
  if (spec->threads) sn_thread_pool_apply(g_pool, &def);
  memset(s, 0, sizeof *s);
  spec->build(s, &def);
  /* one tag for every world of the test: their snapshots and the ids in
   * their events can then be compared byte for byte */
  s->world->tag = 1;
  if (spec->threads) s->world->parallel_min_items = 1;
  for (int i = 0; i <= step; ++i) {
    if (spec->between) spec->between(s, i);
    if (i < step) ck_assert_msg(sn_world_step(s->world, DT) == SN_OK, "%s", sn_world_last_error(s->world));
  }
}

static void run_scene(const scene_spec *spec) {
  const int steps = spec->steps;
  /* the reference: what each step allocates, and what it leaves */
  long *calls = calloc((size_t)steps, sizeof(long));
  world_state *after = calloc((size_t)steps, sizeof(world_state));
  world_state *before = calloc((size_t)steps, sizeof(world_state));
  ck_assert(calls != NULL && after != NULL && before != NULL);
  step_alloc ref_alloc;
  sn_scene ref;
  make_at(spec, &ref_alloc, &ref, 0);
  for (int s = 0; s < steps; ++s) {
    if (s > 0 && spec->between) spec->between(&ref, s);
    before[s] = capture(ref.world);
    ref_alloc.calls = 0;
    ck_assert_int_eq(sn_world_step(ref.world, DT), SN_OK);
    calls[s] = ref_alloc.calls;
    /* every arena allocation of the step fit what the step reserved: the
     * modules' scratch bytes (world/step.c) cover each of them */
    ck_assert_msg(ref.world->arena.misses == 0, "%s, step %d: %lld arena allocations past the reservation", spec->name,
                  s, (long long)ref.world->arena.misses);
    after[s] = capture(ref.world);
  }
  sn_scene_destroy(&ref);
  ck_assert_int_eq(ref_alloc.live_blocks, 0);
  ck_assert_msg(calls[0] > 0, "%s: the first step allocates nothing?", spec->name);

  long points = 0;
  for (int s = 0; s < steps; ++s) {
    for (long k = 0; k < calls[s]; ++k) {
      step_alloc alloc;
      sn_scene v;
      make_at(spec, &alloc, &v, s);
      world_state now = capture(v.world);
      assert_same(&now, before + s, spec->name, s, k, "the twin before the step");
      release(&now);
      alloc.calls = 0;
      alloc.fail_at = k;
      sn_result r = sn_world_step(v.world, DT);
      ck_assert_msg(alloc.failures == 1, "%s, step %d: allocation %ld was not made", spec->name, s, k);
      ck_assert_msg(r == SN_ERR_OUT_OF_MEMORY, "%s, step %d, allocation %ld failed: the step returned %s", spec->name,
                    s, k, sn_result_name(r));
      ck_assert_msg(strstr(sn_world_last_error(v.world), "SN_ERR_OUT_OF_MEMORY") != NULL, "%s",
                    sn_world_last_error(v.world));
      ck_assert(v.world->locked == 0 && !v.world->stepping && v.world->mem.forbid == 0);
      now = capture(v.world);
      assert_same(&now, before + s, spec->name, s, k, "after the failed step");
      release(&now);
      /* memory is back: this step and the next as the world that never failed */
      alloc.fail_at = -1;
      ck_assert_int_eq(sn_world_step(v.world, DT), SN_OK);
      ck_assert_msg(v.world->arena.misses == 0,
                    "%s, step %d, allocation %ld failed: arena allocations past the reservation after", spec->name, s,
                    k);
      now = capture(v.world);
      assert_same(&now, after + s, spec->name, s, k, "the step after");
      release(&now);
      if (s + 1 < steps) {
        if (spec->between) spec->between(&v, s + 1);
        ck_assert_int_eq(sn_world_step(v.world, DT), SN_OK);
        now = capture(v.world);
        assert_same(&now, after + s + 1, spec->name, s, k, "the second step after");
        release(&now);
      }
      sn_scene_destroy(&v);
      ck_assert_int_eq(alloc.live_blocks, 0);
      points++;
    }
  }
  printf("%s: %ld allocation points in %d steps (first step %ld)\n", spec->name, points, steps, calls[0]);
  for (int s = 0; s < steps; ++s) {
    release(before + s);
    release(after + s);
  }
  free(before);
  free(after);
  free(calls);
}

START_TEST(test_step_out_of_memory) { run_scene(g_scenes + _i); }
END_TEST

/* The scenes do what they are here for (in the world that never fails). */
START_TEST(test_scenes_cover) {
  step_alloc alloc;
  sn_scene s;
  /* pile: contacts begin and end, islands sleep and wake, a frozen body,
   * hit events, end events held between steps */
  make_at(g_scenes + 0, &alloc, &s, 0);
  int begins = 0, ends = 0, hits = 0, frozen = 0, slept = 0, held = 0;
  for (int i = 0; i < g_scenes[0].steps; ++i) {
    if (i > 0) g_scenes[0].between(&s, i);
    held += s.world->pending_end_events.count;
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    sn_contact_events e = sn_world_get_contact_events(s.world);
    begins += e.begin_count;
    ends += e.end_count;
    hits += e.hit_count;
    frozen += sn_world_get_frozen_events(s.world, NULL);
    sn_world_counters c = sn_world_get_counters(s.world);
    if (c.awake_body_count < c.body_count - 4) slept++;
  }
  ck_assert_int_gt(begins, 20);
  ck_assert_int_gt(ends, 0);
  ck_assert_int_gt(hits, 0);
  ck_assert_int_eq(frozen, 1);
  ck_assert_int_gt(slept, 0);
  ck_assert_int_gt(held, 0);
  sn_scene_destroy(&s);
  /* joints: the distance joint breaks */
  make_at(g_scenes + 1, &alloc, &s, 0);
  int broken = 0;
  for (int i = 0; i < g_scenes[1].steps; ++i) {
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    broken += sn_world_get_broken_constraints(s.world, NULL);
  }
  ck_assert_int_eq(broken, 1);
  sn_scene_destroy(&s);
  /* cloth: particles meet the ball */
  make_at(g_scenes + 2, &alloc, &s, 0);
  int touching = 0;
  for (int i = 0; i < g_scenes[2].steps; ++i) {
    if (i > 0) g_scenes[2].between(&s, i);
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    touching += sn_world_get_counters(s.world).particle_contact_count;
  }
  ck_assert_int_gt(touching, 0);
  sn_scene_destroy(&s);
  /* the limit scenes meet their limits */
  for (int k = 5; k <= 6; ++k) {
    make_at(g_scenes + k, &alloc, &s, 0);
    int limited = 0;
    for (int i = 0; i < g_scenes[k].steps; ++i) {
      if (i > 0 && g_scenes[k].between) g_scenes[k].between(&s, i);
      ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
      limited += sn_world_get_counters(s.world).contact_limit_hits > 0;
    }
    ck_assert_msg(limited > 0, "%s: never at the limit", g_scenes[k].name);
    sn_scene_destroy(&s);
  }
  /* sensors: shape and soft-body overlaps begin and end (one on a body destroyed between
   * steps), the platform's contacts are left out of some solves */
  make_at(g_scenes + 9, &alloc, &s, 0);
  int sensor_begins = 0, sensor_ends = 0, soft_begins = 0, moves = 0;
  for (int i = 0; i < g_scenes[9].steps; ++i) {
    if (i > 0) g_scenes[9].between(&s, i);
    ck_assert_int_eq(sn_world_step(s.world, DT), SN_OK);
    sn_sensor_events e = sn_world_get_sensor_events(s.world);
    sensor_begins += e.begin_count;
    sensor_ends += e.end_count;
    for (int32_t k = 0; k < e.begin_count; ++k) soft_begins += e.begin_events[k].soft_body.index1 != 0;
    moves += sn_world_get_body_events(s.world).move_count;
  }
  ck_assert_int_gt(sensor_begins, 5);
  ck_assert_int_gt(sensor_ends, 0);
  ck_assert_int_gt(soft_begins, 0);
  ck_assert_int_gt(moves, 0);
  sn_scene_destroy(&s);
}
END_TEST

/* Once around the test case (an unchecked fixture): the registry and the
 * pool every scene shares. */
static void shared_setup(void) {
  static const char *const plugins[] = {"revolute",  "distance",    "xpbd_distance", "xpbd_area",
                                        "xpbd_bend", "xpbd_tether", "attach"};
  g_registry = sn_create_registry(NULL);
  ck_assert_ptr_nonnull(g_registry);
  char msg[512];
  ck_assert_msg(sn_shipped_add(g_registry, SN_PLUGIN_DIR, plugins, (int32_t)(sizeof plugins / sizeof plugins[0]), msg,
                               sizeof msg) == SN_OK,
                "%s", msg);
  g_pool = sn_thread_pool_create(2);
  ck_assert_ptr_nonnull(g_pool);
}

static void shared_teardown(void) {
  sn_destroy_registry(g_registry);
  sn_thread_pool_destroy(g_pool);
  g_registry = NULL;
  g_pool = NULL;
}

Suite *sn_test_suite(void) {
  Suite *s = suite_create("step_oom");
  TCase *tc = tcase_create("every allocation");
  tcase_set_timeout(tc, 0);
  tcase_add_unchecked_fixture(tc, shared_setup, shared_teardown);
  tcase_add_test(tc, test_scenes_cover);
  tcase_add_loop_test(tc, test_step_out_of_memory, 0, (int)(sizeof g_scenes / sizeof g_scenes[0]));
  suite_add_tcase(s, tc);
  return s;
}
