/* fuzz_world: the input is a program of API calls on one world. Each op byte
 * picks a call (create/destroy bodies, shapes, chains, constraints of every
 * plugin type, soft bodies, particles, builders; setters of every kind; world
 * settings; queries; steps; queries and draws whose callbacks call back into
 * the world; loops over the last step's events that destroy and create
 * bodies), the following bytes its arguments: ids from pools of live,
 * destroyed and made-up handles, numbers mostly in range but often NaN,
 * infinite, huge, tiny or negative.
 *
 * After every step the world must satisfy:
 * 1. no NaN or Inf anywhere in its state (bodies: pose, centre, velocities,
 *    forces; shapes' bounding boxes; particles), and unit rotations;
 * 2. the allocator count matches the world's counter, and after
 *    sn_destroy_world every byte and block is given back;
 * 3. no body inside another by more than a bound, for pairs that had the
 *    chance to separate: both bodies left alone by the program (and slower
 *    than 20 m/s) for the last CALM_STEPS steps, under ordinary settings, not
 *    kinematic, not joined by a constraint, moderate sizes and densities, no
 *    heavy particles around (see calm_pair). The bound is 0.02 m plus half the
 *    smaller body's inner radius: the centre of a body never sinks halfway
 *    into another.
 * Every API call must also return without crashing, leaking or touching
 * freed memory, whatever it is given (ASan, UBSan, LeakSanitizer).
 *
 * Callbacks (query and draw callbacks, and the hooks of a host constraint
 * type, "fuzz.reenter", registered next to the plugins) call back into the
 * world: every call that would change it is refused (SN_ERR_WORLD_LOCKED
 * whenever its id is live), the world saves the same snapshot bytes after
 * the query or draw as before, queries report only live shapes, nested
 * queries and draws work outside a step. Loops over a step's events destroy
 * and create bodies: the arrays stay where and as they were, each destroy
 * holds back exactly one end event per touching contact with events, and
 * the next step reports the held events first.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fenv.h>

#include "fuzz_common.h"

#include "world/world.h"
#include "shipped.h"
#include "sinew/sinew.h"

#define MAX_BODIES         48
#define MAX_SHAPES         96
#define MAX_CHAINS         8
#define MAX_CONSTR         48
#define MAX_SOFTS          12
#define MAX_PARTICLES      128
#define MAX_LIVE_BODIES    64
#define MAX_LIVE_PARTICLES 300
#define SLOT_TRACK         1024
#define CALM_STEPS         240
#define CALM_SPEED         20.0f

/* ---- counting allocator ------------------------------------------------- */

typedef struct counting {
  size_t live_bytes, live_blocks;
} counting;

static void *count_alloc(size_t size, void *context) {
  counting *c = context;
  void *p = malloc(size); /* glibc: 16-byte aligned on x86-64 */
  if (p == NULL) return NULL;
  FZ_CHECK(((uintptr_t)p & 15u) == 0, "malloc is not 16-byte aligned here");
  c->live_bytes += size;
  c->live_blocks += 1;
  return p;
}

static void count_free(void *memory, size_t size, void *context) {
  counting *c = context;
  if (memory == NULL) return;
  FZ_CHECK(c->live_blocks > 0 && c->live_bytes >= size, "free of %zu bytes with %zu live", size, c->live_bytes);
  c->live_bytes -= size;
  c->live_blocks -= 1;
  free(memory);
}

/* ---- the registry: every shipped plugin, loaded once ---------------------- */

static sn_registry *g_registry;
static const sn_constraint_type g_reenter_type; /* defined with the callbacks below */
/* FUZZ_WORLD_TRAP_NAN=1: SIGFPE at the operation of a step that makes the
 * first NaN, with its stack (a debugging aid: NaN outside steps, from
 * refused input, is expected). */
static bool g_trap_nan;

/* FUZZ_WORLD_STATS=1 prints how often each invariant was checked (tuning aid). */
static struct {
  long long steps, calm_worlds, pairs_checked, inputs;
  long long reentries, event_loops, events_looped;
  long long sensors, contacts_read, sensor_events, filter_calls, pre_solve_calls;
  double deepest; /* largest overlap among the checked pairs (m) */
} g_stats;

static void print_stats(void) {
  fprintf(stderr,
          "fuzz_world: %lld inputs, %lld steps, %lld steps under calm settings, %lld calm shape pairs checked, "
          "deepest overlap %.4f m; %lld calls back into a locked world; %lld loops over %lld events; %lld sensors "
          "made, %lld contacts read, %lld sensor events seen, %lld custom filter and %lld pre-solve calls\n",
          g_stats.inputs, g_stats.steps, g_stats.calm_worlds, g_stats.pairs_checked, g_stats.deepest, g_stats.reentries,
          g_stats.event_loops, g_stats.events_looped, g_stats.sensors, g_stats.contacts_read, g_stats.sensor_events,
          g_stats.filter_calls, g_stats.pre_solve_calls);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  g_registry = sn_create_registry(NULL);
  if (g_registry == NULL || sn_shipped_add_all(g_registry, SN_PLUGIN_DIR, NULL, NULL) != SN_OK ||
      sn_registry_get_type_count(g_registry) < 12) {
    fprintf(stderr, "fuzz_world: cannot load the plugins from %s\n", SN_PLUGIN_DIR);
    abort();
  }
  char err[256];
  if (sn_registry_add_type(g_registry, &g_reenter_type, err, sizeof err) != SN_OK) {
    fprintf(stderr, "fuzz_world: cannot register fuzz.reenter: %s\n", err);
    abort();
  }
  if (getenv("FUZZ_WORLD_STATS") != NULL) atexit(print_stats);
  g_trap_nan = getenv("FUZZ_WORLD_TRAP_NAN") != NULL;
  return 0;
}

/* ---- the program's state ------------------------------------------------ */

typedef struct fuzz_state {
  fz_reader r;
  sn_world *w;
  counting mem;
  sn_body_id bodies[MAX_BODIES];
  sn_shape_id shapes[MAX_SHAPES];
  sn_chain_id chains[MAX_CHAINS];
  sn_constraint_id constraints[MAX_CONSTR];
  sn_soft_body_id softs[MAX_SOFTS];
  sn_particle_id particles[MAX_PARTICLES];
  int nb, ns, nc, nk, nsoft, np; /* next slot of each pool (ring buffers) */
  int64_t step_no;
  int64_t world_calm_since;            /* last step with unusual settings or dt */
  int64_t body_calm_since[SLOT_TRACK]; /* by body slot: last user action or fast motion */
  float dt;
  int cb_depth;  /* callbacks running (a query inside a query callback is 2) */
  int cb_budget; /* calls back into the world left for this op (each reads input) */
} fuzz_state;

/* The input being run, for the hooks of fuzz.reenter (hooks get no context);
 * NULL while another world (the restored one) steps. */
static fuzz_state *g_state;

/* A handle from a pool (live or stale), a null one, or made-up bits. */
#define DEFINE_PICK(fn, type, pool)                                                                                    \
  static type fn(fuzz_state *s) {                                                                                      \
    uint8_t k = fz_u8(&s->r);                                                                                          \
    type id;                                                                                                           \
    memset(&id, 0, sizeof id);                                                                                         \
    if (k == 255) {                                                                                                    \
      id.index1 = (int32_t)fz_u32(&s->r);                                                                              \
      id.world_tag = fz_u16(&s->r);                                                                                    \
      id.generation = fz_u16(&s->r);                                                                                   \
    } else if (k != 254) {                                                                                             \
      id = s->pool[k % (sizeof(s->pool) / sizeof(s->pool[0]))];                                                        \
    }                                                                                                                  \
    return id;                                                                                                         \
  }
DEFINE_PICK(pick_body, sn_body_id, bodies)
DEFINE_PICK(pick_shape, sn_shape_id, shapes)
DEFINE_PICK(pick_chain, sn_chain_id, chains)
DEFINE_PICK(pick_constraint, sn_constraint_id, constraints)
DEFINE_PICK(pick_soft, sn_soft_body_id, softs)
DEFINE_PICK(pick_particle, sn_particle_id, particles)

static void disturb(fuzz_state *s, sn_body_id id) {
  if (id.index1 >= 1 && id.index1 <= SLOT_TRACK) s->body_calm_since[id.index1 - 1] = s->step_no;
}

static void disturb_all(fuzz_state *s) {
  for (int i = 0; i < SLOT_TRACK; ++i) s->body_calm_since[i] = s->step_no;
}

static sn_vec2 rd_vec(fuzz_state *s, float lo, float hi) {
  sn_vec2 v;
  v.x = fz_float(&s->r, lo, hi);
  v.y = fz_float(&s->r, lo, hi);
  return v;
}

/// A count: mostly small, sometimes nonsense.
static int32_t rd_count(fuzz_state *s, int32_t lo, int32_t hi) {
  uint8_t k = fz_u8(&s->r);
  if (k < 240) return fz_range(&s->r, lo, hi);
  static const int32_t odd[] = {0, 1, -1, -1000, INT32_MIN, INT32_MAX, 2, 3};
  return odd[k % 8];
}

/* ---- ops ---------------------------------------------------------------- */

static void op_create_body(fuzz_state *s) {
  sn_body_def bd = sn_default_body_def();
  uint8_t t = fz_u8(&s->r);
  bd.type = t < 200 ? (sn_body_type)(t % 3) : (sn_body_type)(int8_t)t;
  bd.position = rd_vec(s, -20.0f, 20.0f);
  bd.angle = fz_float(&s->r, -7.0f, 7.0f);
  if (fz_bool(&s->r)) {
    bd.linear_velocity = rd_vec(s, -10.0f, 10.0f);
    bd.angular_velocity = fz_float(&s->r, -10.0f, 10.0f);
    bd.linear_damping = fz_float(&s->r, 0.0f, 2.0f);
    bd.angular_damping = fz_float(&s->r, 0.0f, 2.0f);
    bd.gravity_scale = fz_float(&s->r, -2.0f, 2.0f);
    uint8_t f = fz_u8(&s->r);
    bd.is_bullet = f & 1;
    bd.is_awake = !(f & 2);
    bd.enable_sleep = !(f & 4);
    bd.fixed_rotation = f & 8;
  }
  if (fz_u8(&s->r) == 0) bd.cookie = 0;
  if (sn_world_get_body_count(s->w) >= MAX_LIVE_BODIES) return;
  sn_body_id id = sn_create_body(s->w, &bd);
  if (id.index1 != 0) {
    s->bodies[s->nb++ % MAX_BODIES] = id;
    disturb(s, id);
  }
}

static sn_shape_def rd_shape_def(fuzz_state *s) {
  sn_shape_def sd = sn_default_shape_def();
  if (fz_bool(&s->r)) {
    sd.density = fz_float(&s->r, 0.0f, 10.0f);
    sd.friction = fz_float(&s->r, 0.0f, 1.0f);
    sd.restitution = fz_float(&s->r, 0.0f, 1.0f);
    uint8_t f = fz_u8(&s->r);
    sd.enable_contact_events = f & 1;
    sd.enable_hit_events = f & 2;
    sd.is_sensor = f == 255;
    sd.category_bits = f & 4 ? fz_u32(&s->r) : 1u;
    sd.mask_bits = UINT64_MAX;
    if (f & 8) {
      uint64_t hi = fz_u32(&s->r);
      sd.mask_bits = hi << 32 | fz_u32(&s->r);
    }
  }
  return sd;
}

static void op_create_shape(fuzz_state *s) {
  sn_body_id body = pick_body(s);
  sn_shape_def sd = rd_shape_def(s);
  uint8_t kind = fz_u8(&s->r) % 6;
  sn_shape_id id = SN_NULL_SHAPE;
  if (kind == 0) {
    sn_circle c;
    c.center = rd_vec(s, -1.0f, 1.0f);
    c.radius = fz_float(&s->r, 0.0f, 2.0f);
    id = sn_create_circle_shape(s->w, body, &sd, &c);
  } else if (kind == 1) {
    sn_capsule c;
    c.center1 = rd_vec(s, -1.0f, 1.0f);
    c.center2 = rd_vec(s, -1.0f, 1.0f);
    c.radius = fz_float(&s->r, 0.0f, 1.0f);
    id = sn_create_capsule_shape(s->w, body, &sd, &c);
  } else if (kind == 2) {
    sn_segment g;
    g.point1 = rd_vec(s, -10.0f, 10.0f);
    g.point2 = rd_vec(s, -10.0f, 10.0f);
    id = sn_create_segment_shape(s->w, body, &sd, &g);
  } else if (kind == 3) {
    sn_polygon p;
    sn_result res;
    uint8_t b = fz_u8(&s->r) % 3;
    float hx = fz_float(&s->r, 0.0f, 2.0f), hy = fz_float(&s->r, 0.0f, 2.0f);
    if (b == 0)
      res = sn_make_box(hx, hy, &p);
    else if (b == 1) {
      sn_vec2 c = rd_vec(s, -2.0f, 2.0f);
      res = sn_make_offset_box(hx, hy, c, fz_float(&s->r, -4.0f, 4.0f), &p);
    } else
      res = sn_make_rounded_box(hx, hy, fz_float(&s->r, 0.0f, 0.5f), &p);
    if (res == SN_OK) id = sn_create_polygon_shape(s->w, body, &sd, &p);
  } else if (kind == 4) {
    sn_vec2 pts[SN_MAX_POLYGON_VERTICES];
    int32_t n = fz_range(&s->r, 3, SN_MAX_POLYGON_VERTICES);
    for (int32_t i = 0; i < n; ++i) pts[i] = rd_vec(s, -2.0f, 2.0f);
    sn_polygon p;
    if (sn_compute_hull(pts, n, fz_bool(&s->r) ? 0.0f : fz_float(&s->r, 0.0f, 0.3f), &p) == SN_OK)
      id = sn_create_polygon_shape(s->w, body, &sd, &p);
  } else {
    /* a hand-filled polygon: the engine validates it again */
    sn_polygon p;
    memset(&p, 0, sizeof p);
    p.count = fz_range(&s->r, 0, 9);
    for (int32_t i = 0; i < SN_MAX_POLYGON_VERTICES; ++i) {
      p.vertices[i] = rd_vec(s, -2.0f, 2.0f);
      p.normals[i] = rd_vec(s, -1.0f, 1.0f);
    }
    p.centroid = rd_vec(s, -1.0f, 1.0f);
    p.radius = fz_float(&s->r, 0.0f, 0.5f);
    id = sn_create_polygon_shape(s->w, body, &sd, &p);
  }
  if (id.index1 != 0) {
    s->shapes[s->ns++ % MAX_SHAPES] = id;
    disturb(s, body);
  }
}

static void op_destroy(fuzz_state *s) {
  switch (fz_u8(&s->r) % 6) {
  case 0: {
    sn_body_id b = pick_body(s);
    sn_destroy_body(s->w, b);
    break;
  }
  case 1: {
    sn_shape_id sh = pick_shape(s);
    disturb(s, sn_shape_get_body(s->w, sh));
    sn_destroy_shape(s->w, sh, fz_bool(&s->r));
    break;
  }
  case 2:
    sn_destroy_chain(s->w, pick_chain(s));
    break;
  case 3: {
    sn_constraint_id c = pick_constraint(s);
    sn_body_id bs[SN_MAX_CONSTRAINT_BODIES];
    int32_t n = sn_constraint_get_bodies(s->w, c, bs);
    for (int32_t i = 0; i < n; ++i) disturb(s, bs[i]);
    sn_destroy_constraint(s->w, c);
    break;
  }
  case 4:
    sn_destroy_soft_body(s->w, pick_soft(s));
    break;
  default:
    sn_destroy_particle(s->w, pick_particle(s));
    break;
  }
}

static void op_create_chain(fuzz_state *s) {
  sn_chain_def cd = sn_default_chain_def();
  sn_vec2 pts[12];
  int32_t n = fz_range(&s->r, 0, 12);
  for (int32_t i = 0; i < n; ++i) pts[i] = rd_vec(s, -20.0f, 20.0f);
  cd.points = fz_u8(&s->r) == 0 ? NULL : pts;
  cd.count = fz_u8(&s->r) == 0 ? rd_count(s, -2, 20) : n;
  if (cd.count > n) cd.count = n;
  cd.is_loop = fz_bool(&s->r);
  cd.friction = fz_float(&s->r, 0.0f, 1.0f);
  cd.restitution = fz_float(&s->r, 0.0f, 1.0f);
  sn_chain_id id = sn_create_chain(s->w, pick_body(s), &cd);
  if (id.index1 != 0) {
    s->chains[s->nc++ % MAX_CHAINS] = id;
    disturb_all(s);
  }
}

static float friction_rule(float fa, int32_t ma, float fb, int32_t mb, void *context) {
  (void)context;
  /* anything, out of range values included: the engine falls back to its rule */
  return (ma ^ mb) & 1 ? NAN : (ma & 2 ? -fa : fa + fb);
}

static float restitution_rule(float ra, int32_t ma, float rb, int32_t mb, void *context) {
  (void)context;
  return (ma + mb) % 3 == 0 ? 2.0f : ra * rb;
}

/* Mass data, fixed rotation, targets, enable/disable, geometry and material
 * changes, mixing callbacks, explosions: each may be refused, none may
 * break the world. */
static void op_body_control(fuzz_state *s, sn_body_id b) {
  sn_shape_id sh = pick_shape(s);
  switch (fz_u8(&s->r) % 10) {
  case 0: {
    sn_mass_data md = {fz_float(&s->r, -1.0f, 20.0f), rd_vec(s, -3.0f, 3.0f), fz_float(&s->r, -1.0f, 20.0f)};
    sn_body_set_mass_data(s->w, b, md);
    break;
  }
  case 1:
    if (fz_bool(&s->r))
      sn_body_apply_mass_from_shapes(s->w, b);
    else
      sn_body_set_fixed_rotation(s->w, b, fz_bool(&s->r));
    break;
  case 2:
    sn_body_set_target_transform(s->w, b, rd_vec(s, -30.0f, 30.0f), fz_float(&s->r, -7.0f, 7.0f),
                                 fz_float(&s->r, -0.01f, 0.1f));
    break;
  case 3:
    if (fz_bool(&s->r))
      sn_body_disable(s->w, b);
    else
      sn_body_enable(s->w, b);
    break;
  case 4: {
    sn_circle c = {rd_vec(s, -2.0f, 2.0f), fz_float(&s->r, -0.1f, 2.0f)};
    sn_shape_set_circle(s->w, sh, &c);
    break;
  }
  case 5: {
    sn_polygon p;
    if (sn_make_box(fz_float(&s->r, 0.0f, 2.0f), fz_float(&s->r, 0.0f, 2.0f), &p) == SN_OK)
      sn_shape_set_polygon(s->w, sh, &p);
    sn_segment seg = {rd_vec(s, -2.0f, 2.0f), rd_vec(s, -2.0f, 2.0f)};
    if (fz_bool(&s->r)) sn_shape_set_segment(s->w, sh, &seg);
    sn_capsule cap = {rd_vec(s, -2.0f, 2.0f), rd_vec(s, -2.0f, 2.0f), fz_float(&s->r, -0.1f, 1.0f)};
    if (fz_bool(&s->r)) sn_shape_set_capsule(s->w, sh, &cap);
    break;
  }
  case 6:
    sn_shape_set_rolling_resistance(s->w, sh, fz_float(&s->r, -0.1f, 1.0f));
    sn_shape_set_tangent_speed(s->w, sh, fz_float(&s->r, -10.0f, 10.0f));
    sn_shape_set_material(s->w, sh, (int32_t)fz_u8(&s->r));
    break;
  case 7:
    sn_world_set_friction_callback(s->w, fz_bool(&s->r) ? friction_rule : NULL, NULL);
    sn_world_set_restitution_callback(s->w, fz_bool(&s->r) ? restitution_rule : NULL, NULL);
    break;
  case 8: {
    sn_explosion_def def = sn_default_explosion_def();
    def.position = rd_vec(s, -30.0f, 30.0f);
    def.radius = fz_float(&s->r, -1.0f, 10.0f);
    def.falloff = fz_float(&s->r, -1.0f, 10.0f);
    def.impulse_per_length = fz_float(&s->r, -50.0f, 50.0f);
    def.mask_bits = fz_bool(&s->r) ? UINT64_MAX : 1;
    def.affect_particles = fz_bool(&s->r);
    sn_world_explode(s->w, &def);
    break;
  }
  default: {
    sn_vec2 pts[5];
    for (int i = 0; i < 5; ++i) pts[i] = rd_vec(s, -10.0f, 10.0f);
    sn_chain_def cd = sn_default_chain_def();
    cd.points = pts;
    cd.count = 4 + (fz_u8(&s->r) & 1);
    cd.is_loop = fz_bool(&s->r);
    cd.tangent_speed = fz_float(&s->r, -5.0f, 5.0f);
    cd.rolling_resistance = fz_float(&s->r, -0.1f, 1.0f);
    sn_create_chain(s->w, b, &cd); /* on any body type */
    break;
  }
  }
}

/* op_body_set's bytes 252..255: sleep thresholds and reading chains back.
 * A refused threshold leaves the body's as it was; an accepted one reads
 * back; a chain's def and points agree with each other and are finite. */
static void op_sleep_and_chains(fuzz_state *s, sn_body_id b, int which) {
  switch (which) {
  case 0: {
    float before = sn_body_get_sleep_threshold(s->w, b), t = fz_float(&s->r, 0.0f, 0.5f);
    sn_result r = sn_body_set_sleep_threshold(s->w, b, t);
    float after = sn_body_get_sleep_threshold(s->w, b);
    if (r == SN_OK)
      FZ_CHECK(after == t, "sleep threshold %g set, %g read back", (double)t, (double)after);
    else
      FZ_CHECK(memcmp(&after, &before, sizeof after) == 0, "refused sleep threshold %g changed it", (double)t);
    FZ_CHECK(!(after < 0.0f) && isfinite(after), "sleep threshold %g", (double)after);
    break;
  }
  case 1:
  case 2: {
    /* a chain (live or not), or the chain of a shape */
    sn_chain_id c = which == 1 ? pick_chain(s) : sn_shape_get_parent_chain(s->w, pick_shape(s));
    sn_chain_def d;
    sn_vec2 pts[64];
    int32_t capacity = fz_range(&s->r, -1, 64);
    int32_t n = sn_chain_get_points(s->w, c, capacity > 0 ? pts : NULL, capacity);
    if (sn_chain_get_def(s->w, c, &d) != SN_OK) {
      FZ_CHECK(n == -1, "points of a chain without a def: %d", (int)n);
      break;
    }
    FZ_CHECK(sn_chain_is_valid(s->w, c), "a def for a dead chain");
    FZ_CHECK(d.count >= (d.is_loop ? 3 : 4) && d.points == NULL, "chain def count %d", (int)d.count);
    if (capacity < 0) {
      FZ_CHECK(n == -1, "negative capacity gave %d", (int)n);
    } else {
      FZ_CHECK(n == (capacity == 0 ? d.count : (capacity < d.count ? capacity : d.count)),
               "%d points of %d, capacity %d", (int)n, (int)d.count, (int)capacity);
      for (int32_t i = 0; i < n && capacity > 0; ++i)
        FZ_CHECK(isfinite(pts[i].x) && isfinite(pts[i].y), "chain point %d not finite", (int)i);
    }
    break;
  }
  default: { /* the body's def keeps its threshold */
    sn_body_def d;
    if (sn_body_get_def(s->w, b, &d) == SN_OK)
      FZ_CHECK(d.sleep_threshold == sn_body_get_sleep_threshold(s->w, b), "body def sleep threshold");
    break;
  }
  }
}

static void op_body_set(fuzz_state *s) {
  sn_body_id b = pick_body(s);
  disturb(s, b);
  bool wake = fz_bool(&s->r);
  sn_vec2 v1 = rd_vec(s, -20.0f, 20.0f), v2 = rd_vec(s, -1000.0f, 1000.0f);
  /* bytes 0..251 keep their meaning; 252..255 (cases 12..15 before) are
   * the calls added last */
  uint8_t which = fz_u8(&s->r);
  if (which >= 252) {
    op_sleep_and_chains(s, b, which - 252);
    return;
  }
  switch (which % 16) {
  case 0:
    sn_body_set_transform(s->w, b, v1, fz_float(&s->r, -7.0f, 7.0f));
    break;
  case 1:
    sn_body_set_linear_velocity(s->w, b, rd_vec(s, -20.0f, 20.0f));
    break;
  case 2:
    sn_body_set_angular_velocity(s->w, b, fz_float(&s->r, -20.0f, 20.0f));
    break;
  case 3:
    sn_body_apply_force(s->w, b, v2, v1, wake);
    break;
  case 4:
    sn_body_apply_force_to_center(s->w, b, rd_vec(s, -1000.0f, 1000.0f), wake);
    break;
  case 5:
    sn_body_apply_torque(s->w, b, fz_float(&s->r, -1000.0f, 1000.0f), wake);
    break;
  case 6:
    sn_body_apply_linear_impulse(s->w, b, v2, v1, wake);
    break;
  case 7:
    sn_body_apply_angular_impulse(s->w, b, fz_float(&s->r, -100.0f, 100.0f), wake);
    break;
  case 8: {
    uint8_t t = fz_u8(&s->r);
    sn_body_set_type(s->w, b, t < 200 ? (sn_body_type)(t % 3) : (sn_body_type)(int8_t)t);
    break;
  }
  case 9:
    sn_body_set_linear_damping(s->w, b, fz_float(&s->r, 0.0f, 5.0f));
    sn_body_set_angular_damping(s->w, b, fz_float(&s->r, 0.0f, 5.0f));
    break;
  case 10:
    sn_body_set_gravity_scale(s->w, b, fz_float(&s->r, -2.0f, 2.0f));
    break;
  case 11:
    sn_body_set_bullet(s->w, b, wake);
    sn_body_enable_sleep(s->w, b, fz_bool(&s->r));
    break;
  case 12:
    sn_body_set_awake(s->w, b, wake);
    break;
  case 13: { /* clone through get_def */
    sn_body_def def;
    if (sn_body_get_def(s->w, b, &def) == SN_OK && sn_world_get_body_count(s->w) < MAX_LIVE_BODIES) {
      def.position.x += fz_float(&s->r, -5.0f, 5.0f);
      sn_body_id id = sn_create_body(s->w, &def);
      if (id.index1 != 0) {
        s->bodies[s->nb++ % MAX_BODIES] = id;
        disturb(s, id);
      }
    }
    break;
  }
  case 14: { /* shape setters */
    sn_shape_id sh = pick_shape(s);
    disturb(s, sn_shape_get_body(s->w, sh));
    sn_shape_set_friction(s->w, sh, fz_float(&s->r, 0.0f, 1.0f));
    sn_shape_set_restitution(s->w, sh, fz_float(&s->r, 0.0f, 1.0f));
    float density = fz_float(&s->r, 0.0f, 10.0f);
    sn_shape_set_density(s->w, sh, density, fz_bool(&s->r));
    break;
  }
  default: { /* readers must cope with anything; or the run-time body and shape controls */
    if (fz_u8(&s->r) & 1) {
      op_body_control(s, b);
      break;
    }
    sn_shape_id sh = pick_shape(s);
    sn_polygon p;
    sn_circle c;
    sn_shape_def sd;
    (void)sn_shape_get_polygon(s->w, sh, &p);
    (void)sn_shape_get_circle(s->w, sh, &c);
    (void)sn_shape_get_def(s->w, sh, &sd);
    (void)sn_shape_test_point(s->w, sh, rd_vec(s, -20.0f, 20.0f));
    (void)sn_body_get_mass_data(s->w, b);
    (void)sn_body_get_local_point(s->w, b, rd_vec(s, -20.0f, 20.0f));
    sn_shape_id list[4];
    (void)sn_body_get_shapes(s->w, b, list, fz_range(&s->r, -1, 4));
    break;
  }
  }
}

static void op_world_set(fuzz_state *s) {
  s->world_calm_since = s->step_no;
  switch (fz_u8(&s->r) % 8) {
  case 0:
    sn_world_set_gravity(s->w, rd_vec(s, -30.0f, 30.0f));
    break;
  case 1:
    sn_world_set_substeps(s->w, rd_count(s, 1, 16));
    break;
  case 2:
    sn_world_set_position_iterations(s->w, rd_count(s, 0, 4));
    sn_world_set_soft_iterations(s->w, rd_count(s, 1, 4));
    break;
  case 3:
    sn_world_enable_sleeping(s->w, fz_bool(&s->r));
    sn_world_enable_continuous(s->w, fz_bool(&s->r));
    break;
  case 4: {
    float hertz = fz_float(&s->r, 0.0f, 240.0f), ratio = fz_float(&s->r, 0.0f, 20.0f);
    sn_world_set_contact_tuning(s->w, hertz, ratio, fz_float(&s->r, 0.0f, 10.0f));
  } break;
  case 5:
    sn_world_set_hit_event_threshold(s->w, fz_float(&s->r, 0.0f, 10.0f));
    break;
  case 6: {
    sn_aabb box;
    box.lower = rd_vec(s, -30.0f, 0.0f);
    box.upper = rd_vec(s, 0.0f, 30.0f);
    (void)sn_world_overlap_aabb(s->w, box, sn_default_query_filter(), NULL, NULL);
    sn_ray_result rr;
    sn_vec2 origin = rd_vec(s, -30.0f, 30.0f);
    (void)sn_world_cast_ray_closest(s->w, origin, rd_vec(s, -60.0f, 60.0f), sn_default_query_filter(), &rr);
    break;
  }
  default:
    s->dt = fz_float(&s->r, 0.0f, 0.1f);
    break;
  }
}

static void op_create_constraint(fuzz_state *s) {
  int32_t nt = sn_registry_get_type_count(g_registry);
  const sn_constraint_type *t = sn_registry_get_type(g_registry, fz_u8(&s->r) % nt);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = fz_u8(&s->r) == 0 ? "no_such_type" : t->name;
  cd.bodies[0] = pick_body(s);
  cd.bodies[1] = pick_body(s);
  sn_particle_id ps[16];
  int32_t pc = t->particle_count == SN_ANY_PARTICLES ? fz_range(&s->r, 1, 16) : (int32_t)t->particle_count;
  if (fz_u8(&s->r) == 0) pc = rd_count(s, 0, 16);
  if (pc > 16) pc = 16;
  for (int32_t i = 0; i < pc && i < 16; ++i) ps[i] = pick_particle(s);
  cd.particles = pc > 0 ? ps : NULL;
  cd.particle_count = pc;
  sn_param_value vals[8];
  int32_t nv = fz_range(&s->r, 0, t->param_count < 8 ? (int32_t)t->param_count : 8);
  for (int32_t i = 0; i < nv; ++i) {
    const sn_param_desc *p = &t->params[fz_u8(&s->r) % t->param_count];
    double span = p->max - p->min;
    vals[i].name = fz_u8(&s->r) == 0 ? "no_such_param" : p->name;
    vals[i].x = fz_double(&s->r, p->min - 0.05 * span, p->max + 0.05 * span);
    vals[i].y = fz_double(&s->r, p->min - 0.05 * span, p->max + 0.05 * span);
  }
  cd.params = vals;
  cd.param_count = nv;
  cd.break_force = fz_bool(&s->r) ? 0.0f : fz_float(&s->r, 0.0f, 1000.0f);
  cd.collide_connected = fz_bool(&s->r);
  sn_constraint_id id = sn_create_constraint(s->w, &cd);
  if (id.index1 != 0) {
    s->constraints[s->nk++ % MAX_CONSTR] = id;
    disturb(s, cd.bodies[0]);
    disturb(s, cd.bodies[1]);
  }
}

/* Every state the constraint's type publishes (sn_constraint_get_state),
 * read without taking input bytes, so the ops keep the meaning their bytes
 * had before the state schema existed (the op byte's 256 values are all
 * taken): each value of a live constraint must be finite, an unknown name
 * refused. */
static void read_states(fuzz_state *s, sn_constraint_id c, const sn_constraint_type *t) {
  if (t == NULL || !sn_constraint_is_valid(s->w, c)) return;
  for (uint32_t i = 0; i < t->state_count; ++i) {
    double x = 0.0, y = 0.0;
    sn_result r = sn_constraint_get_state(s->w, c, t->states[i].name, &x, &y);
    FZ_CHECK(r == SN_OK, "get_state %s.%s: %s", t->name, t->states[i].name, sn_world_last_error(s->w));
    FZ_CHECK(isfinite(x) && isfinite(y), "get_state %s.%s = (%g, %g)", t->name, t->states[i].name, x, y);
  }
  double x, y;
  FZ_CHECK(sn_constraint_get_state(s->w, c, "no_such_state", &x, &y) == SN_ERR_NOT_FOUND,
           "get_state of an unknown name was not refused");
}

static void op_constraint_set(fuzz_state *s) {
  sn_constraint_id c = pick_constraint(s);
  const sn_constraint_type *t = sn_constraint_get_type(s->w, c);
  sn_body_id bs[SN_MAX_CONSTRAINT_BODIES];
  int32_t n = sn_constraint_get_bodies(s->w, c, bs);
  for (int32_t i = 0; i < n; ++i) disturb(s, bs[i]);
  if (fz_bool(&s->r)) {
    sn_constraint_set_break_force(s->w, c, fz_float(&s->r, 0.0f, 1000.0f));
    read_states(s, c, t);
    return;
  }
  if (t == NULL || t->param_count == 0) {
    sn_constraint_set_param(s->w, c, "anchor", 0.0, 0.0);
    return;
  }
  const sn_param_desc *p = &t->params[fz_u8(&s->r) % t->param_count];
  double span = p->max - p->min;
  double x = fz_double(&s->r, p->min - 0.05 * span, p->max + 0.05 * span);
  double y = fz_double(&s->r, p->min - 0.05 * span, p->max + 0.05 * span);
  sn_constraint_set_param(s->w, c, p->name, x, y);
  double gx, gy;
  (void)sn_constraint_get_param(s->w, c, p->name, &gx, &gy);
  sn_vec2 f;
  float torque;
  (void)sn_constraint_get_reaction(s->w, c, &f, &torque);
  read_states(s, c, t);
}

static sn_soft_body_def rd_soft_def(fuzz_state *s) {
  sn_soft_body_def d = sn_default_soft_body_def();
  if (fz_bool(&s->r)) {
    d.friction = fz_float(&s->r, 0.0f, 1.0f);
    d.restitution = fz_float(&s->r, 0.0f, 1.0f);
    d.damping = fz_float(&s->r, 0.0f, 2.0f);
    d.rigid_damping = fz_float(&s->r, 0.0f, 1.0f);
    uint8_t f = fz_u8(&s->r);
    d.collide_rigid = !(f & 1);
    d.collide_soft = !(f & 2);
    d.self_collision = f & 4;
  }
  return d;
}

static sn_soft_material rd_material(fuzz_state *s) {
  sn_soft_material m = {0.0f, 0.0f, -1.0f, -1.0f, 0.0f};
  if (fz_bool(&s->r)) {
    m.compliance = fz_float(&s->r, 0.0f, 0.01f);
    m.damping = fz_float(&s->r, 0.0f, 0.1f);
    m.shear_compliance = fz_float(&s->r, -1.0f, 0.01f);
    m.bend_compliance = fz_float(&s->r, -1.0f, 1.0f);
    m.tear_force = fz_float(&s->r, 0.0f, 100.0f);
  }
  return m;
}

static void record_soft(fuzz_state *s, sn_soft_body_id id) {
  if (id.index1 == 0) return;
  s->softs[s->nsoft++ % MAX_SOFTS] = id;
  sn_particle_id ps[16];
  int32_t n = sn_soft_body_get_particles(s->w, id, ps, 16);
  for (int32_t i = 0; i < n; i += 1 + i / 4) s->particles[s->np++ % MAX_PARTICLES] = ps[i];
}

static void op_soft(fuzz_state *s) {
  sn_world_counters c = sn_world_get_counters(s->w);
  bool room = c.particle_count < MAX_LIVE_PARTICLES;
  switch (fz_u8(&s->r) % 10) {
  case 0: {
    sn_soft_body_def d = rd_soft_def(s);
    if (fz_u8(&s->r) == 0) d.cookie = 0;
    record_soft(s, sn_create_soft_body(s->w, &d));
    break;
  }
  case 1: {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = rd_vec(s, -20.0f, 20.0f);
    pd.velocity = rd_vec(s, -10.0f, 10.0f);
    pd.mass = fz_float(&s->r, 0.0f, 0.2f);
    pd.radius = fz_float(&s->r, 0.0f, 0.2f);
    pd.kinematic = fz_u8(&s->r) < 32;
    if (!room) break;
    sn_particle_id id = sn_create_particle(s->w, pick_soft(s), &pd);
    if (id.index1 != 0) s->particles[s->np++ % MAX_PARTICLES] = id;
    break;
  }
  case 2: {
    sn_particle_id p = pick_particle(s);
    switch (fz_u8(&s->r) % 5) {
    case 0:
      sn_particle_set_position(s->w, p, rd_vec(s, -20.0f, 20.0f));
      break;
    case 1:
      sn_particle_set_velocity(s->w, p, rd_vec(s, -20.0f, 20.0f));
      break;
    case 2:
      sn_particle_set_mass(s->w, p, fz_float(&s->r, 0.0f, 0.5f));
      break;
    case 3:
      sn_particle_set_target(s->w, p, rd_vec(s, -20.0f, 20.0f));
      break;
    default:
      (void)sn_particle_get_soft_body(s->w, p);
      (void)sn_particle_get_position(s->w, p);
      break;
    }
    break;
  }
  case 3: {
    sn_soft_body_id b = pick_soft(s);
    sn_soft_body_def d = rd_soft_def(s);
    sn_soft_body_set_material(s->w, b, &d);
    break;
  }
  case 4: {
    sn_soft_body_id soft = pick_soft(s);
    sn_particle_id a = pick_particle(s);
    sn_soft_body_add_edge(s->w, soft, a, pick_particle(s));
  } break;
  case 5: {
    sn_soft_body_id soft = pick_soft(s);
    sn_soft_body_translate(s->w, soft, rd_vec(s, -5.0f, 5.0f));
  } break;
  case 6: {
    sn_rope_def d = sn_default_rope_def();
    d.body = rd_soft_def(s);
    d.material = rd_material(s);
    d.start = rd_vec(s, -20.0f, 20.0f);
    d.end = rd_vec(s, -20.0f, 20.0f);
    d.count = rd_count(s, 2, 40);
    d.mass = fz_float(&s->r, 0.0f, 2.0f);
    d.radius = fz_float(&s->r, 0.0f, 0.2f);
    uint8_t f = fz_u8(&s->r);
    d.pin_start = f & 1;
    d.pin_end = f & 2;
    d.tethers = f & 4;
    if (room) record_soft(s, sn_create_rope(s->w, &d));
    break;
  }
  case 7: {
    sn_cloth_def d = sn_default_cloth_def();
    d.body = rd_soft_def(s);
    d.material = rd_material(s);
    d.top_left = rd_vec(s, -20.0f, 20.0f);
    d.columns = rd_count(s, 2, 10);
    d.rows = rd_count(s, 2, 10);
    d.spacing = fz_float(&s->r, 0.0f, 0.3f);
    d.mass = fz_float(&s->r, 0.0f, 2.0f);
    d.radius = fz_float(&s->r, 0.0f, 0.1f);
    d.pins = fz_u8(&s->r);
    d.tethers = fz_bool(&s->r);
    if (room) record_soft(s, sn_create_cloth(s->w, &d));
    break;
  }
  case 8: {
    sn_ring_def d = sn_default_ring_def();
    d.body = rd_soft_def(s);
    d.material = rd_material(s);
    d.center = rd_vec(s, -20.0f, 20.0f);
    d.radius = fz_float(&s->r, 0.0f, 2.0f);
    d.count = rd_count(s, 3, 40);
    d.mass = fz_float(&s->r, 0.0f, 2.0f);
    d.particle_radius = fz_float(&s->r, 0.0f, 0.2f);
    d.pressure = fz_float(&s->r, 0.0f, 3.0f);
    d.area_compliance = fz_float(&s->r, 0.0f, 0.01f);
    if (room) record_soft(s, sn_create_ring(s->w, &d));
    break;
  }
  default: {
    sn_lattice_def d = sn_default_lattice_def();
    d.body = rd_soft_def(s);
    d.material = rd_material(s);
    d.center = rd_vec(s, -20.0f, 20.0f);
    d.columns = rd_count(s, 2, 8);
    d.rows = rd_count(s, 2, 8);
    d.spacing = fz_float(&s->r, 0.0f, 0.3f);
    d.mass = fz_float(&s->r, 0.0f, 2.0f);
    d.radius = fz_float(&s->r, 0.0f, 0.15f);
    d.area_compliance = fz_float(&s->r, -1.0f, 0.01f);
    if (room) record_soft(s, sn_create_lattice(s->w, &d));
    break;
  }
  }
}

/* ---- callbacks into a locked world ---------------------------------------- */

#define REENTER_DEPTH 3  /* queries and draws nested in callbacks, at most */
#define REENTER_CALLS 12 /* calls back into the world per op (each reads input) */

static uint8_t *snapshot_of(sn_world *w, size_t *n);

/* A call that would change the world, made inside a callback: refused, with
 * SN_ERR_WORLD_LOCKED whenever its id is live (a dead id may be refused as
 * stale or foreign before the lock is looked at). */
static void expect_locked(bool live, sn_result r, const char *call) {
  FZ_CHECK(r != SN_OK, "%s succeeded inside a callback", call);
  FZ_CHECK(!live || r == SN_ERR_WORLD_LOCKED, "%s returned %s inside a callback", call, sn_result_name(r));
}

/* A create made inside a callback: no object, and the lock as the reason
 * when its parent is live. */
static void expect_no_object(fuzz_state *s, bool live, int32_t index1, const char *call) {
  FZ_CHECK(index1 == 0, "%s made an object inside a callback", call);
  FZ_CHECK(!live || strncmp(sn_world_last_error(s->w), "SN_ERR_WORLD_LOCKED", 19) == 0, "%s: %s", call,
           sn_world_last_error(s->w));
}

static bool reenter_query_fcn(sn_shape_id shape, void *context);
static sn_debug_draw reenter_draw(fuzz_state *s, uint32_t flags);

/* A finite box from the input (a fixed one where it is not). */
static sn_aabb rd_box(fuzz_state *s) {
  sn_aabb box;
  box.lower = rd_vec(s, -30.0f, 0.0f);
  box.upper = rd_vec(s, 0.0f, 30.0f);
  if (!(isfinite(box.lower.x) && isfinite(box.lower.y) && isfinite(box.upper.x) && isfinite(box.upper.y) &&
        box.lower.x <= box.upper.x && box.lower.y <= box.upper.y))
    box = (sn_aabb){{-30.0f, -30.0f}, {30.0f, 30.0f}};
  return box;
}

/* Inside a callback: one call picked by the input. Those that would change
 * the world must be refused; reads work; queries, draws and snapshot saving
 * work outside a step and are refused inside one. */
static void reenter(fuzz_state *s) {
  if (s->cb_budget <= 0) return;
  s->cb_budget--;
  g_stats.reentries++;
  sn_world *w = s->w;
  FZ_CHECK(w->locked > 0, "a callback runs on an unlocked world");
  const bool stepping = w->stepping;
  sn_body_id b = pick_body(s);
  const bool body_live = sn_body_is_valid(w, b);
  sn_vec2 v = rd_vec(s, -20.0f, 20.0f);
  uint8_t which = fz_u8(&s->r);
  switch (fz_u8(&s->r) % 12) {
  case 0:
    expect_locked(body_live, sn_destroy_body(w, b), "sn_destroy_body");
    break;
  case 1: { /* many bodies: the trees and arrays would grow under the walk */
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    int32_t n = fz_range(&s->r, 1, 200);
    for (int32_t i = 0; i < n; ++i) {
      bd.position = (sn_vec2){(float)(i % 20), (float)(i / 20)};
      expect_no_object(s, true, sn_create_body(w, &bd).index1, "sn_create_body");
    }
    break;
  }
  case 2:
    switch (which % 8) {
    case 0:
      expect_locked(body_live, sn_body_set_transform(w, b, v, 1.0f), "sn_body_set_transform");
      break;
    case 1:
      expect_locked(body_live, sn_body_set_linear_velocity(w, b, v), "sn_body_set_linear_velocity");
      break;
    case 2:
      expect_locked(body_live, sn_body_apply_linear_impulse(w, b, v, v, true), "sn_body_apply_linear_impulse");
      break;
    case 3:
      expect_locked(body_live, sn_body_set_type(w, b, (sn_body_type)(which % 3)), "sn_body_set_type");
      break;
    case 4:
      expect_locked(body_live, sn_body_set_user_data(w, b, s), "sn_body_set_user_data");
      break;
    case 5:
      expect_locked(body_live, sn_body_set_awake(w, b, false), "sn_body_set_awake");
      break;
    case 6:
      expect_locked(body_live, sn_body_apply_force(w, b, v, v, true), "sn_body_apply_force");
      break;
    default:
      expect_locked(body_live, sn_body_set_gravity_scale(w, b, 0.5f), "sn_body_set_gravity_scale");
      break;
    }
    break;
  case 3: {
    sn_shape_id sh = pick_shape(s);
    bool live = sn_shape_is_valid(w, sh);
    switch (which % 5) {
    case 0:
      expect_locked(live, sn_destroy_shape(w, sh, true), "sn_destroy_shape");
      break;
    case 1:
      expect_locked(live, sn_shape_set_friction(w, sh, 0.3f), "sn_shape_set_friction");
      break;
    case 2:
      expect_locked(live, sn_shape_set_density(w, sh, 2.0f, true), "sn_shape_set_density");
      break;
    case 3:
      expect_locked(live, sn_shape_set_user_data(w, sh, s), "sn_shape_set_user_data");
      break;
    default: {
      sn_circle c = {{0.0f, 0.0f}, 0.5f};
      sn_shape_def sd = sn_default_shape_def();
      expect_no_object(s, body_live, sn_create_circle_shape(w, b, &sd, &c).index1, "sn_create_circle_shape");
      break;
    }
    }
    break;
  }
  case 4: {
    sn_chain_id ch = pick_chain(s);
    if (which & 1) {
      expect_locked(sn_chain_is_valid(w, ch), sn_destroy_chain(w, ch), "sn_destroy_chain");
    } else {
      const sn_vec2 pts[] = {{-2.0f, 5.0f}, {-1.0f, 5.0f}, {1.0f, 5.0f}, {2.0f, 5.0f}};
      sn_chain_def cd = sn_default_chain_def();
      cd.points = pts;
      cd.count = 4;
      expect_no_object(s, body_live, sn_create_chain(w, b, &cd).index1, "sn_create_chain");
    }
    break;
  }
  case 5: {
    sn_constraint_id c = pick_constraint(s);
    bool live = sn_constraint_is_valid(w, c);
    switch (which % 4) {
    case 0:
      expect_locked(live, sn_destroy_constraint(w, c), "sn_destroy_constraint");
      break;
    case 1:
      expect_locked(live, sn_constraint_set_param(w, c, "value", 0.5, 0.0), "sn_constraint_set_param");
      break;
    case 2:
      expect_locked(live, sn_constraint_set_break_force(w, c, 10.0f), "sn_constraint_set_break_force");
      break;
    default: {
      sn_constraint_def cd = sn_default_constraint_def();
      cd.type = "fuzz.reenter";
      cd.bodies[0] = b;
      expect_no_object(s, true, sn_create_constraint(w, &cd).index1, "sn_create_constraint");
      break;
    }
    }
    break;
  }
  case 6: {
    sn_soft_body_id soft = pick_soft(s);
    sn_particle_id p = pick_particle(s);
    bool soft_live = sn_soft_body_is_valid(w, soft), p_live = sn_particle_is_valid(w, p);
    switch (which % 7) {
    case 0:
      expect_locked(soft_live, sn_destroy_soft_body(w, soft), "sn_destroy_soft_body");
      break;
    case 1:
      expect_locked(soft_live, sn_soft_body_translate(w, soft, v), "sn_soft_body_translate");
      break;
    case 2: {
      sn_soft_body_def d = sn_default_soft_body_def();
      expect_locked(soft_live, sn_soft_body_set_material(w, soft, &d), "sn_soft_body_set_material");
      expect_no_object(s, true, sn_create_soft_body(w, &d).index1, "sn_create_soft_body");
      break;
    }
    case 3: {
      sn_particle_def pd = sn_default_particle_def();
      expect_no_object(s, true, sn_create_particle(w, soft, &pd).index1, "sn_create_particle");
      break;
    }
    case 4:
      expect_locked(p_live, sn_destroy_particle(w, p), "sn_destroy_particle");
      break;
    case 5:
      expect_locked(p_live, sn_particle_set_position(w, p, v), "sn_particle_set_position");
      expect_locked(p_live, sn_particle_set_user_data(w, p, s), "sn_particle_set_user_data");
      break;
    default:
      expect_locked(soft_live, sn_soft_body_add_edge(w, soft, p, pick_particle(s)), "sn_soft_body_add_edge");
      break;
    }
    break;
  }
  case 7: {
    sn_rope_def rope = sn_default_rope_def();
    sn_cloth_def cloth = sn_default_cloth_def();
    sn_ring_def ring = sn_default_ring_def();
    sn_lattice_def lattice = sn_default_lattice_def();
    if (which % 4 == 0) expect_no_object(s, true, sn_create_rope(w, &rope).index1, "sn_create_rope");
    if (which % 4 == 1) expect_no_object(s, true, sn_create_cloth(w, &cloth).index1, "sn_create_cloth");
    if (which % 4 == 2) expect_no_object(s, true, sn_create_ring(w, &ring).index1, "sn_create_ring");
    if (which % 4 == 3) expect_no_object(s, true, sn_create_lattice(w, &lattice).index1, "sn_create_lattice");
    break;
  }
  case 8:
    switch (which % 7) {
    case 0:
      expect_locked(true, sn_world_step(w, s->dt), "sn_world_step");
      break;
    case 1:
      expect_locked(true, sn_destroy_world(w), "sn_destroy_world");
      break;
    case 2:
      expect_locked(true, sn_world_set_gravity(w, v), "sn_world_set_gravity");
      break;
    case 3:
      expect_locked(true, sn_world_set_substeps(w, 2), "sn_world_set_substeps");
      break;
    case 4:
      expect_locked(true, sn_world_enable_sleeping(w, false), "sn_world_enable_sleeping");
      break;
    case 5:
      expect_locked(true, sn_world_set_soft_iterations(w, 2), "sn_world_set_soft_iterations");
      break;
    default:
      expect_locked(true, sn_world_set_task_system(w, 1, NULL, NULL, NULL), "sn_world_set_task_system");
      break;
    }
    break;
  case 9: /* a query inside the callback */
    if (s->cb_depth < REENTER_DEPTH) {
      sn_aabb box = rd_box(s);
      sn_result r = which & 1 ? sn_world_overlap_aabb(w, box, sn_default_query_filter(), reenter_query_fcn, s)
                              : sn_world_query_point(w, box.lower, reenter_query_fcn, s);
      FZ_CHECK(r == (stepping ? SN_ERR_WORLD_LOCKED : SN_OK), "nested query: %s", sn_result_name(r));
    }
    break;
  case 10: /* a draw inside the callback */
    if (s->cb_depth < REENTER_DEPTH) {
      sn_debug_draw d = reenter_draw(s, (uint32_t)which * 4u & SN_DRAW_ALL);
      sn_result r = sn_world_draw(w, &d);
      FZ_CHECK(r == (stepping ? SN_ERR_WORLD_LOCKED : SN_OK), "nested draw: %s", sn_result_name(r));
    }
    break;
  default: { /* reads */
    (void)sn_body_get_position(w, b);
    (void)sn_body_get_linear_velocity(w, b);
    sn_world_counters c = sn_world_get_counters(w);
    FZ_CHECK(c.body_count == w->body_count, "counters");
    (void)sn_world_get_contact_events(w);
    sn_ray_result rr;
    sn_result r =
        sn_world_cast_ray_closest(w, (sn_vec2){-30.0f, 1.0f}, (sn_vec2){60.0f, -2.0f}, sn_default_query_filter(), &rr);
    FZ_CHECK(r == (stepping ? SN_ERR_WORLD_LOCKED : SN_OK), "ray cast in a callback: %s", sn_result_name(r));
    size_t size = 0;
    r = sn_world_save_snapshot(w, NULL, 0, &size);
    FZ_CHECK(r == (stepping ? SN_ERR_WORLD_LOCKED : SN_OK), "snapshot in a callback: %s", sn_result_name(r));
    break;
  }
  }
}

static bool reenter_query_fcn(sn_shape_id shape, void *context) {
  fuzz_state *s = context;
  /* nothing can destroy a shape while the query walks: each one is live */
  FZ_CHECK(sn_shape_is_valid(s->w, shape), "a query reported a dead shape");
  if (s->cb_budget <= 0) return true;
  s->cb_depth++;
  reenter(s);
  s->cb_depth--;
  return fz_u8(&s->r) != 0; /* sometimes stop early */
}

static void draw_hit(void *context) {
  fuzz_state *s = context;
  s->cb_depth++;
  reenter(s);
  s->cb_depth--;
}
static void rd_polygon(const sn_vec2 *v, int32_t n, float radius, uint32_t rgba, void *ctx) {
  (void)v, (void)n, (void)radius, (void)rgba;
  draw_hit(ctx);
}
static void rd_solid_circle(sn_transform xf, float radius, uint32_t rgba, void *ctx) {
  (void)xf, (void)radius, (void)rgba;
  draw_hit(ctx);
}
static void rd_capsule(sn_vec2 a, sn_vec2 b, float radius, uint32_t rgba, void *ctx) {
  (void)a, (void)b, (void)radius, (void)rgba;
  draw_hit(ctx);
}
static void rd_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *ctx) {
  (void)a, (void)b, (void)rgba;
  draw_hit(ctx);
}
static void rd_point(sn_vec2 p, float size, uint32_t rgba, void *ctx) {
  (void)p, (void)size, (void)rgba;
  draw_hit(ctx);
}
static void rd_circle(sn_vec2 c, float radius, uint32_t rgba, void *ctx) {
  (void)c, (void)radius, (void)rgba;
  draw_hit(ctx);
}
static void rd_transform(sn_transform xf, float len, void *ctx) {
  (void)xf, (void)len;
  draw_hit(ctx);
}
static void rd_string(sn_vec2 p, const char *text, uint32_t rgba, void *ctx) {
  (void)p, (void)text, (void)rgba;
  draw_hit(ctx);
}

static sn_debug_draw reenter_draw(fuzz_state *s, uint32_t flags) {
  sn_debug_draw d = sn_default_debug_draw();
  d.polygon = rd_polygon;
  d.solid_circle = rd_solid_circle;
  d.capsule = rd_capsule;
  d.segment = rd_segment;
  d.point = rd_point;
  d.circle = rd_circle;
  d.transform = rd_transform;
  d.string = rd_string;
  d.context = s;
  d.flags = flags;
  return d;
}

/* fuzz.reenter: a host constraint type (one body, one runtime parameter)
 * whose every hook calls back into the world. No destroy hook: a type with
 * one cannot be saved in a snapshot, which the other checks need. */
static void hook_hit(void) {
  if (g_state == NULL) return;
  g_state->cb_depth++;
  reenter(g_state);
  g_state->cb_depth--;
}
static int rh_create(const sn_constraint_create_args *args) {
  (void)args;
  hook_hit();
  return 0;
}
static int rh_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)params, (void)instance, (void)err, (void)cap;
  hook_hit();
  return 0;
}
static void rh_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
  hook_hit();
}
static void rh_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}
static void rh_get_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info, (void)item;
  *force = (sn_vec2){0.0f, 0.0f};
  *torque = 0.0f;
  hook_hit();
}
static void rh_debug_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  hook_hit();
  draw->segment(item->bodies[0]->center, item->bodies[0]->origin, 0xffffffffu, draw->context);
}
static int rh_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                     void *out) {
  (void)params, (void)instance, (void)bodies, (void)count, (void)out;
  hook_hit();
  return 0;
}
static const sn_param_desc g_reenter_params[] = {
    {1, SN_PARAM_FLOAT, "value", 0, SN_PARAM_RUNTIME, 0.0, 1.0, 0.5, NULL},
};
static const sn_constraint_type g_reenter_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "fuzz.reenter",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 1,
    .params_size = sizeof(float),
    .params_align = sizeof(float),
    .instance_size = sizeof(float),
    .instance_align = sizeof(float),
    .param_count = 1,
    .params = g_reenter_params,
    .create = rh_create,
    .params_changed = rh_params_changed,
    .prepare = rh_prepare,
    .solve_velocity = rh_solve,
    .get_reaction = rh_get_reaction,
    .debug_draw = rh_debug_draw,
    .export_params = rh_export,
};

/* A query or a draw whose callbacks call back into the world; the world
 * must come out of it exactly as it went in. */
static void op_callbacks(fuzz_state *s) {
  size_t n0 = 0, n1 = 0;
  uint8_t *before = snapshot_of(s->w, &n0);
  uint8_t kind = fz_u8(&s->r);
  sn_result r;
  if (kind % 4 == 0) {
    sn_debug_draw d = reenter_draw(s, ((uint32_t)fz_u8(&s->r) << 2 | kind >> 6) & SN_DRAW_ALL);
    if (kind & 4) d.flags = SN_DRAW_ALL;
    r = sn_world_draw(s->w, &d);
    FZ_CHECK(r == SN_OK, "draw: %s", sn_world_last_error(s->w));
  } else if (kind % 4 == 1) {
    r = sn_world_query_point(s->w, rd_vec(s, -20.0f, 20.0f), reenter_query_fcn, s);
  } else {
    sn_aabb box = rd_box(s);
    r = sn_world_overlap_aabb(s->w, box, sn_default_query_filter(), reenter_query_fcn, s);
    FZ_CHECK(r == SN_OK, "query: %s", sn_world_last_error(s->w));
  }
  FZ_CHECK(s->w->locked == 0, "the lock is still held after the call (%d)", (int)s->w->locked);
  uint8_t *after = snapshot_of(s->w, &n1);
  FZ_CHECK(n0 == n1 && memcmp(before, after, n0) == 0, "the world changed inside a callback");
  free(before);
  free(after);
  (void)r;
}

/* ---- the queries of collision/query.c ----------------------------------- */

/* A proxy from the input: 0..9 points (0 and 9 are refused), any radius;
 * sometimes a point without radius (refused: no extent). */
static sn_shape_proxy rd_proxy(fuzz_state *s) {
  sn_shape_proxy p;
  memset(&p, 0, sizeof p);
  int32_t n = fz_u8(&s->r) % 10;
  p.count = n;
  for (int32_t i = 0; i < n && i < SN_MAX_POLYGON_VERTICES; ++i) p.points[i] = rd_vec(s, -25.0f, 25.0f);
  p.radius = fz_float(&s->r, -0.1f, 2.0f);
  return p;
}

static sn_query_filter rd_filter(fuzz_state *s) {
  sn_query_filter f = sn_default_query_filter();
  if (fz_bool(&s->r)) {
    f.category_bits = (uint64_t)fz_u16(&s->r) | (uint64_t)fz_u16(&s->r) << 48;
    f.mask_bits = (uint64_t)fz_u16(&s->r) | (uint64_t)fz_u16(&s->r) << 48;
  }
  return f;
}

/* Cast callbacks: every hit within [0, 1] on a live shape; the answer
 * (ignore, stop, clip, continue) comes from the input, and a nested call
 * sometimes. */
static float query_cast_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  fuzz_state *s = context;
  FZ_CHECK(sn_shape_is_valid(s->w, shape), "a cast reported a dead shape");
  FZ_CHECK(fraction >= 0.0f && fraction <= 1.0f, "cast fraction %g outside [0, 1]", (double)fraction);
  FZ_CHECK(isfinite(point.x) && isfinite(point.y) && isfinite(normal.x) && isfinite(normal.y), "cast hit not finite");
  if (s->cb_budget > 0) {
    s->cb_depth++;
    reenter(s);
    s->cb_depth--;
  }
  static const float answers[4] = {-1.0f, 0.0f, 1.0f, 0.5f};
  uint8_t a = fz_u8(&s->r);
  return a < 4 ? answers[a] : fraction;
}

static float query_particle_cast_fcn(sn_particle_id particle, sn_vec2 point, sn_vec2 normal, float fraction,
                                     void *context) {
  fuzz_state *s = context;
  (void)point;
  (void)normal;
  FZ_CHECK(sn_particle_is_valid(s->w, particle), "a cast reported a dead particle");
  FZ_CHECK(fraction >= 0.0f && fraction <= 1.0f, "particle cast fraction %g outside [0, 1]", (double)fraction);
  return fz_u8(&s->r) < 16 ? 0.0f : fraction;
}

static bool query_particle_fcn(sn_particle_id particle, void *context) {
  fuzz_state *s = context;
  FZ_CHECK(sn_particle_is_valid(s->w, particle), "a query reported a dead particle");
  return fz_u8(&s->r) != 0;
}

static bool query_particle_contact_fcn(const sn_particle_contact *c, void *context) {
  fuzz_state *s = context;
  FZ_CHECK(sn_particle_is_valid(s->w, c->particle), "a query reported a dead particle");
  FZ_CHECK(c->separation <= 0.0f, "a particle contact with a gap %g", (double)c->separation);
  return fz_u8(&s->r) != 0;
}

static bool query_plane_fcn(sn_shape_id shape, const sn_plane_result *plane, void *context) {
  fuzz_state *s = context;
  FZ_CHECK(sn_shape_is_valid(s->w, shape), "a mover plane of a dead shape");
  float n2 = plane->normal.x * plane->normal.x + plane->normal.y * plane->normal.y;
  FZ_CHECK(fabsf(n2 - 1.0f) < 1e-3f, "a mover plane's normal is not unit (%g)", (double)n2);
  FZ_CHECK(plane->separation < SN_MOVER_CONTACT_DISTANCE, "a mover plane beyond the contact distance");
  return fz_u8(&s->r) != 0;
}

/* Opcode 255: one query picked by the input, with arguments that may be
 * refused (NaN, degenerate proxies, out of range). Queries never change the
 * world: it saves the same snapshot before and after. */
static void op_queries(fuzz_state *s) {
  size_t n0 = 0, n1 = 0;
  uint8_t *before = snapshot_of(s->w, &n0);
  sn_world *w = s->w;
  sn_query_filter f = rd_filter(s);
  sn_vec2 origin = rd_vec(s, -30.0f, 30.0f), translation = rd_vec(s, -60.0f, 60.0f);
  sn_result r = SN_OK;
  switch (fz_u8(&s->r) % 11) {
  case 0:
    r = sn_world_cast_ray(w, origin, translation, f, query_cast_fcn, s);
    break;
  case 1: {
    sn_ray_result out[6];
    int32_t count = -1, capacity = (int32_t)(fz_u8(&s->r) % 8) - 1;
    r = sn_world_cast_ray_all(w, origin, translation, f, out, capacity > 6 ? 6 : capacity, &count);
    if (r == SN_OK) {
      for (int32_t i = 1; i < count; ++i) FZ_CHECK(out[i - 1].fraction <= out[i].fraction, "ray_all not sorted");
    }
  } break;
  case 2: {
    sn_shape_proxy p = rd_proxy(s);
    r = sn_world_cast_shape(w, &p, translation, f, query_cast_fcn, s);
  } break;
  case 3: {
    sn_shape_proxy p = rd_proxy(s);
    r = sn_world_overlap_shape(w, &p, f, reenter_query_fcn, s);
  } break;
  case 4:
    r = sn_world_overlap_aabb(w, rd_box(s), f, reenter_query_fcn, s);
    break;
  case 5:
    r = sn_world_overlap_particles_aabb(w, rd_box(s), query_particle_fcn, s);
    break;
  case 6:
    r = sn_world_cast_ray_particles(w, origin, translation, query_particle_cast_fcn, s);
    break;
  case 7: {
    sn_shape_proxy p = rd_proxy(s);
    r = sn_world_overlap_particles_shape(w, &p, query_particle_contact_fcn, s);
  } break;
  case 8: {
    sn_capsule c = {origin, rd_vec(s, -30.0f, 30.0f), fz_float(&s->r, -0.1f, 1.0f)};
    float fraction = -1.0f;
    r = sn_world_cast_mover(w, &c, translation, f, &fraction);
    if (r == SN_OK) FZ_CHECK(fraction >= 0.0f && fraction <= 1.0f, "mover fraction %g", (double)fraction);
  } break;
  case 9: {
    sn_capsule c = {origin, rd_vec(s, -30.0f, 30.0f), fz_float(&s->r, -0.1f, 1.0f)};
    r = sn_world_collide_mover(w, &c, f, query_plane_fcn, s);
  } break;
  default: {
    sn_collision_plane planes[4];
    int32_t count = fz_u8(&s->r) % 5;
    for (int32_t i = 0; i < count; ++i) {
      float a = fz_float(&s->r, 0.0f, 6.3f);
      planes[i] = (sn_collision_plane){
          {cosf(a), sinf(a)}, fz_float(&s->r, -1.0f, 1.0f), fz_float(&s->r, 0.0f, 5.0f), 0.0f, fz_bool(&s->r) != 0};
    }
    sn_plane_solver_result sr;
    sn_vec2 v;
    if (sn_solve_planes(translation, planes, count, &sr) == SN_OK)
      FZ_CHECK(isfinite(sr.translation.x) && isfinite(sr.translation.y), "plane solver result not finite");
    if (sn_clip_vector(translation, planes, count, &v) == SN_OK)
      FZ_CHECK(isfinite(v.x) && isfinite(v.y), "clipped vector not finite");
  } break;
  }
  FZ_CHECK(r == SN_OK || r == SN_ERR_NOT_FINITE || r == SN_ERR_INVALID_ARGUMENT || r == SN_ERR_NULL,
           "query returned %s", sn_result_name(r));
  FZ_CHECK(w->locked == 0, "the lock is still held after a query (%d)", (int)w->locked);
  uint8_t *after = snapshot_of(w, &n1);
  FZ_CHECK(n0 == n1 && memcmp(before, after, n0) == 0, "the world changed inside a query");
  free(before);
  free(after);
}

/* ---- loops over events that change the world ------------------------------ */

/* End events a destroy of body `bi` must hold back: its touching contacts
 * with events enabled. */
static int32_t ending_contacts(const sn_world *w, int32_t bi) {
  int32_t n = 0;
  const sn_body *b = &w->bodies.data[bi];
  for (int32_t key = b->contact_list; key != SN_NULL_INDEX;) {
    const sn_contact *c = &w->contacts.data[key >> 1];
    if ((c->flags & SN_CONTACT_TOUCHING) && (c->flags & SN_CONTACT_ENABLE_EVENTS)) n++;
    key = c->edges[key & 1].next_key;
  }
  return n;
}

/* memcmp that accepts NULL for zero bytes (an empty event array may be NULL) */
static bool same_bytes(const void *a, const void *b, size_t bytes) { return bytes == 0 || memcmp(a, b, bytes) == 0; }

static void *copy_of(const void *p, size_t bytes) {
  void *q = malloc(bytes + 1);
  FZ_CHECK(q != NULL, "out of memory");
  if (bytes > 0) memcpy(q, p, bytes);
  return q;
}

/* Loops over the begin and end events of the last step as a game would,
 * destroying the bodies they name, creating bodies, destroying shapes; the
 * arrays (and the broken-constraint and frozen ones) must neither move nor
 * change, and each destroy must hold back its end events for the next step. */
static void op_event_loop(fuzz_state *s) {
  sn_world *w = s->w;
  g_stats.event_loops++;
  const sn_contact_events e = sn_world_get_contact_events(w);
  const sn_constraint_broken_event *broken = NULL;
  const sn_frozen_event *frozen = NULL;
  const int32_t nbroken = sn_world_get_broken_constraints(w, &broken);
  const int32_t nfrozen = sn_world_get_frozen_events(w, &frozen);
  void *begin_copy = copy_of(e.begin_events, (size_t)e.begin_count * sizeof *e.begin_events);
  void *end_copy = copy_of(e.end_events, (size_t)e.end_count * sizeof *e.end_events);
  void *hit_copy = copy_of(e.hit_events, (size_t)e.hit_count * sizeof *e.hit_events);
  void *broken_copy = copy_of(broken, (size_t)nbroken * sizeof *broken);
  const int32_t total = e.begin_count + e.end_count;
  for (int32_t i = 0; i < total && !fz_empty(&s->r); ++i) {
    g_stats.events_looped++;
    sn_shape_id a = i < e.begin_count ? e.begin_events[i].shape_a : e.end_events[i - e.begin_count].shape_a;
    sn_shape_id b = i < e.begin_count ? e.begin_events[i].shape_b : e.end_events[i - e.begin_count].shape_b;
    uint8_t action = fz_u8(&s->r);
    sn_shape_id sh = action & 1 ? b : a;
    sn_body_id body = sn_shape_get_body(w, sh);
    switch (action >> 1 & 3) {
    case 0:
    case 1:
      if (sn_body_is_valid(w, body)) {
        int32_t held = w->pending_end_events.count, ending = ending_contacts(w, body.index1 - 1);
        FZ_CHECK(sn_destroy_body(w, body) == SN_OK, "destroy: %s", sn_world_last_error(w));
        FZ_CHECK(w->pending_end_events.count == held + ending, "a destroy held %d end events, not %d",
                 (int)(w->pending_end_events.count - held), (int)ending);
      }
      break;
    case 2:
      if (sn_world_get_body_count(w) < MAX_LIVE_BODIES) {
        sn_body_def bd = sn_default_body_def();
        bd.type = SN_BODY_DYNAMIC;
        bd.position = rd_vec(s, -20.0f, 20.0f);
        sn_body_id id = sn_create_body(w, &bd);
        if (id.index1 != 0) {
          s->bodies[s->nb++ % MAX_BODIES] = id;
          disturb(s, id);
        }
      }
      break;
    default:
      if (sn_shape_is_valid(w, sh)) {
        disturb(s, body);
        (void)sn_destroy_shape(w, sh, true); /* a chain's segment is refused */
      }
      break;
    }
    const sn_contact_events now = sn_world_get_contact_events(w);
    FZ_CHECK(now.begin_events == e.begin_events && now.end_events == e.end_events && now.hit_events == e.hit_events &&
                 now.begin_count == e.begin_count && now.end_count == e.end_count && now.hit_count == e.hit_count,
             "the event arrays moved or changed size between steps");
    FZ_CHECK(same_bytes(e.begin_events, begin_copy, (size_t)e.begin_count * sizeof *e.begin_events) &&
                 same_bytes(e.end_events, end_copy, (size_t)e.end_count * sizeof *e.end_events) &&
                 same_bytes(e.hit_events, hit_copy, (size_t)e.hit_count * sizeof *e.hit_events),
             "the events changed between steps");
    const sn_constraint_broken_event *broken_now = NULL;
    const sn_frozen_event *frozen_now = NULL;
    FZ_CHECK(sn_world_get_broken_constraints(w, &broken_now) == nbroken && broken_now == broken &&
                 same_bytes(broken, broken_copy, (size_t)nbroken * sizeof *broken),
             "the broken-constraint events changed between steps");
    FZ_CHECK(sn_world_get_frozen_events(w, &frozen_now) == nfrozen && frozen_now == frozen,
             "the frozen events changed between steps");
  }
  free(begin_copy);
  free(end_copy);
  free(hit_copy);
  free(broken_copy);
}

/* ---- invariants --------------------------------------------------------- */

static bool finite2(sn_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

static void check_finite(fuzz_state *s) {
  sn_world *w = s->w;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = &w->bodies.data[i];
    if (!b->in_use) continue;
    FZ_CHECK(finite2(b->xf.p) && isfinite(b->xf.q.c) && isfinite(b->xf.q.s) && finite2(b->center) && finite2(b->v) &&
                 isfinite(b->w) && finite2(b->force) && isfinite(b->torque),
             "body %d: p (%g, %g) q (%g, %g) v (%g, %g) w %g after step %lld", (int)i, (double)b->xf.p.x,
             (double)b->xf.p.y, (double)b->xf.q.c, (double)b->xf.q.s, (double)b->v.x, (double)b->v.y, (double)b->w,
             (long long)s->step_no);
    FZ_CHECK(isfinite(b->mass) && isfinite(b->inv_mass) && isfinite(b->inertia) && isfinite(b->inv_inertia),
             "body %d: mass %g inertia %g", (int)i, (double)b->mass, (double)b->inertia);
    float len = b->xf.q.c * b->xf.q.c + b->xf.q.s * b->xf.q.s;
    FZ_CHECK(fabsf(len - 1.0f) < 1e-3f, "body %d: rotation not unit (|q|^2 = %g)", (int)i, (double)len);
  }
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    const sn_shape *sh = &w->shapes.data[i];
    if (!sh->in_use) continue;
    FZ_CHECK(finite2(sh->aabb.lower) && finite2(sh->aabb.upper), "shape %d: bounding box not finite", (int)i);
  }
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = &w->particles.data[i];
    if (!p->in_use) continue;
    if (!(finite2(p->x) && finite2(p->v))) {
      const sn_soft_body_def *m = &w->soft_bodies.data[p->soft].material;
      fprintf(stderr,
              "particle %d: mass %g inv_mass %g radius %g kinematic %d target %d (%g, %g); material friction %g "
              "restitution %g damping %g rigid_damping %g; %d constraints, gravity (%g, %g), dt %g, substeps %d\n",
              (int)i, (double)p->mass, (double)p->inv_mass, (double)p->radius, (int)p->kinematic, (int)p->has_target,
              (double)p->target.x, (double)p->target.y, (double)m->friction, (double)m->restitution, (double)m->damping,
              (double)m->rigid_damping, (int)w->constraint_count, (double)w->settings.gravity.x,
              (double)w->settings.gravity.y, (double)s->dt, (int)w->settings.substeps);
      for (int32_t k = 0; k < w->constraints.count; ++k)
        if (w->constraints.data[k].in_use) fprintf(stderr, "  constraint %s\n", w->constraints.data[k].type->name);
    }
    FZ_CHECK(finite2(p->x) && finite2(p->v), "particle %d: x (%g, %g) v (%g, %g) after step %lld", (int)i,
             (double)p->x.x, (double)p->x.y, (double)p->v.x, (double)p->v.y, (long long)s->step_no);
  }
}

static void check_memory(fuzz_state *s) {
  sn_world_counters c = sn_world_get_counters(s->w);
  FZ_CHECK(c.allocated_bytes == s->mem.live_bytes, "world counts %zu bytes, the allocator %zu", c.allocated_bytes,
           s->mem.live_bytes);
}

/// Ordinary settings: what the penetration bound is promised for.
static bool calm_world(fuzz_state *s) {
  const sn_world *w = s->w;
  float g = sqrtf(w->settings.gravity.x * w->settings.gravity.x + w->settings.gravity.y * w->settings.gravity.y);
  if (!(g <= 30.0f) || w->settings.substeps < 2) return false;
  if (!(w->settings.contact_push_max_velocity >= 1.0f) || !(w->settings.contact_damping_ratio >= 1.0f)) return false;
  if (!(w->settings.contact_hertz == 0.0f || w->settings.contact_hertz >= 30.0f)) return false;
  if (s->step_no - s->world_calm_since < CALM_STEPS) return false;
  /* heavy particles can crush light bodies */
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *p = &w->particles.data[i];
    if (p->in_use && (p->kinematic || p->mass > 0.5f)) return false;
  }
  return true;
}

/// A body the bound applies to: not kinematic, not disabled (a disabled
/// body's shapes are out of the trees and collide with nothing, so bodies
/// may pass into it), moderate size and density, no constraint on it, calm
/// for CALM_STEPS.
static bool calm_body(fuzz_state *s, int32_t index, const uint8_t *constrained) {
  const sn_body *b = &s->w->bodies.data[index];
  if (b->type == SN_BODY_KINEMATIC || b->disabled || constrained[index]) return false;
  if (index >= SLOT_TRACK || s->step_no - s->body_calm_since[index] < CALM_STEPS) return false;
  if (b->type == SN_BODY_STATIC) return true;
  if (!(b->min_extent >= 0.05f) || !(b->max_extent <= 5.0f) || !(fabsf(b->gravity_scale) <= 2.0f)) return false;
  for (int32_t k = b->shape_list; k != SN_NULL_INDEX; k = s->w->shapes.data[k].next) {
    float d = s->w->shapes.data[k].density;
    if (!(d >= 0.1f && d <= 10.0f)) return false;
  }
  return true;
}

static float min_separation(const sn_shape *a, sn_transform xa, const sn_shape *b, sn_transform xb) {
  if (a->geom.type == SN_SHAPE_CHAIN_SEGMENT || b->geom.type == SN_SHAPE_CHAIN_SEGMENT) return INFINITY;
  sn_manifold m;
  if (sn_collide_supported(a->geom.type, b->geom.type))
    m = sn_collide(&a->geom, xa, &b->geom, xb, NULL);
  else if (sn_collide_supported(b->geom.type, a->geom.type))
    m = sn_collide(&b->geom, xb, &a->geom, xa, NULL);
  else
    return INFINITY;
  float sep = INFINITY;
  for (int32_t i = 0; i < m.point_count; ++i) sep = fminf(sep, m.points[i].separation);
  return sep;
}

static void check_penetration(fuzz_state *s) {
  sn_world *w = s->w;
  if (!calm_world(s)) return;
  g_stats.calm_worlds++;
  static uint8_t constrained[SLOT_TRACK];
  memset(constrained, 0, sizeof constrained);
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = &w->constraints.data[i];
    if (!k->in_use) continue;
    for (int32_t j = 0; j < SN_MAX_CONSTRAINT_BODIES; ++j)
      if (k->bodies[j] >= 0 && k->bodies[j] < SLOT_TRACK) constrained[k->bodies[j]] = 1;
  }
  int32_t n = w->bodies.count < SLOT_TRACK ? w->bodies.count : SLOT_TRACK;
  for (int32_t i = 0; i < n; ++i) {
    const sn_body *a = &w->bodies.data[i];
    if (!a->in_use || !calm_body(s, i, constrained)) continue;
    for (int32_t j = i + 1; j < n; ++j) {
      const sn_body *b = &w->bodies.data[j];
      if (!b->in_use || (a->type != SN_BODY_DYNAMIC && b->type != SN_BODY_DYNAMIC)) continue;
      if (!calm_body(s, j, constrained)) continue;
      float inner = fminf(a->type == SN_BODY_DYNAMIC ? a->min_extent : INFINITY,
                          b->type == SN_BODY_DYNAMIC ? b->min_extent : INFINITY);
      float bound = 0.02f + 0.5f * inner;
      for (int32_t ka = a->shape_list; ka != SN_NULL_INDEX; ka = w->shapes.data[ka].next) {
        for (int32_t kb = b->shape_list; kb != SN_NULL_INDEX; kb = w->shapes.data[kb].next) {
          const sn_shape *sa = &w->shapes.data[ka], *sb = &w->shapes.data[kb];
          /* the callbacks decide those pairs (a refusal lets bodies overlap) */
          if (sa->enable_custom_filtering || sb->enable_custom_filtering) continue;
          if (sa->enable_pre_solve_events || sb->enable_pre_solve_events) continue;
          if (!sn_should_shapes_collide(w, sa, sb)) continue;
          float sep = min_separation(sa, a->xf, sb, b->xf);
          g_stats.pairs_checked++;
          if (-(double)sep > g_stats.deepest) g_stats.deepest = -(double)sep;
          FZ_CHECK(!(sep < -bound),
                   "bodies %d and %d (shapes %d, %d) overlap by %g m > %g after %lld calm steps (step %lld)", (int)i,
                   (int)j, (int)ka, (int)kb, -(double)sep, (double)bound,
                   (long long)(s->step_no - s->body_calm_since[i]), (long long)s->step_no);
        }
      }
    }
  }
}

/* ---- filters, sensors, callbacks, reading contacts ----------------------- */

/* The custom filter (context: its world): a fixed rule of the two shapes'
 * slots (so a pair gets the same answer whenever it is asked); a call that
 * would change the world must be refused (the world is locked). */
static bool fz_custom_filter(sn_shape_id a, sn_shape_id b, void *context) {
  sn_world *w = context;
  sn_filter f = {1, UINT64_MAX, 0};
  FZ_CHECK(w->locked > 0, "the custom filter runs on an unlocked world");
  g_stats.filter_calls++;
  FZ_CHECK(sn_shape_set_filter(w, a, f) == SN_ERR_WORLD_LOCKED, "sn_shape_set_filter in the custom filter");
  FZ_CHECK(a.index1 < b.index1, "custom filter pair out of order (%d, %d)", (int)a.index1, (int)b.index1);
  return (a.index1 + b.index1) % 3 != 0;
}

/* The pre-solve callback: a one-way rule on the manifold's normal. */
static bool fz_pre_solve(sn_shape_id a, sn_shape_id b, const sn_contact_manifold *m, void *context) {
  (void)context;
  g_stats.pre_solve_calls++;
  FZ_CHECK(a.index1 != 0 && b.index1 != 0, "pre-solve with a null shape");
  FZ_CHECK(m->point_count >= 1 && m->point_count <= 2, "pre-solve manifold with %d points", (int)m->point_count);
  FZ_CHECK(isfinite(m->normal.x) && isfinite(m->normal.y), "pre-solve normal not finite");
  return m->normal.y > -0.5f;
}

static void check_manifold(const sn_contact_manifold *m) {
  FZ_CHECK(m->point_count >= 0 && m->point_count <= 2, "manifold with %d points", (int)m->point_count);
  for (int32_t i = 0; i < m->point_count; ++i)
    FZ_CHECK(isfinite(m->points[i].point.x) && isfinite(m->points[i].point.y) &&
                 isfinite(m->points[i].normal_impulse) && isfinite(m->points[i].separation),
             "manifold point %d not finite", (int)i);
}

static void op_contacts(fuzz_state *s) {
  switch (fz_u8(&s->r) % 8) {
  case 0: { /* a sensor (or a shape with the new flags) */
    sn_body_id body = pick_body(s);
    sn_shape_def sd = rd_shape_def(s);
    uint8_t f = fz_u8(&s->r);
    sd.is_sensor = !(f & 1);
    sd.enable_sensor_events = !(f & 2);
    sd.enable_custom_filtering = f & 4;
    sd.enable_pre_solve_events = f & 8;
    sd.enable_hit_events = f & 16;
    sd.group_index = (int32_t)(int8_t)fz_u8(&s->r) % 4;
    sn_polygon box;
    sn_shape_id id = SN_NULL_SHAPE;
    if (f & 32) {
      sn_circle c = {rd_vec(s, -1.0f, 1.0f), fz_float(&s->r, 0.05f, 3.0f)};
      id = sn_create_circle_shape(s->w, body, &sd, &c);
    } else if (sn_make_box(fz_float(&s->r, 0.05f, 4.0f), fz_float(&s->r, 0.05f, 4.0f), &box) == SN_OK) {
      id = sn_create_polygon_shape(s->w, body, &sd, &box);
    }
    if (id.index1 != 0) {
      FZ_CHECK(sn_shape_is_sensor(s->w, id) == sd.is_sensor, "sensor flag lost");
      g_stats.sensors += sd.is_sensor;
      s->shapes[s->ns++ % MAX_SHAPES] = id;
      disturb(s, body);
    }
    break;
  }
  case 1: { /* a filter */
    sn_shape_id sh = pick_shape(s);
    sn_filter f = {fz_u8(&s->r) & 3u, fz_bool(&s->r) ? UINT64_MAX : (uint64_t)fz_u8(&s->r),
                   (int32_t)(int8_t)fz_u8(&s->r) % 3};
    disturb(s, sn_shape_get_body(s->w, sh));
    if (sn_shape_set_filter(s->w, sh, f) == SN_OK) {
      sn_filter g = sn_shape_get_filter(s->w, sh);
      FZ_CHECK(memcmp(&g, &f, sizeof f) == 0 ||
                   (g.category_bits == f.category_bits && g.mask_bits == f.mask_bits && g.group_index == f.group_index),
               "filter not kept");
    }
    break;
  }
  case 2:
    sn_world_set_custom_filter(s->w, fz_bool(&s->r) ? fz_custom_filter : NULL, s->w);
    disturb_all(s);
    break;
  case 3:
    sn_world_set_pre_solve(s->w, fz_bool(&s->r) ? fz_pre_solve : NULL, NULL);
    disturb_all(s);
    break;
  case 4: { /* a body's and a shape's contacts */
    sn_body_id b = pick_body(s);
    sn_contact_data cd[8];
    int32_t cap = rd_count(s, -1, 8);
    int32_t n = sn_body_get_contacts(s->w, b, cap >= 0 && cap <= 8 ? cd : NULL, cap);
    int32_t count = sn_body_get_contact_count(s->w, b);
    if (n >= 0) FZ_CHECK(n <= count && (cap <= 0 || n <= cap), "body contacts %d of %d (capacity %d)", n, count, cap);
    for (int32_t i = 0; cap > 0 && cap <= 8 && i < n; ++i) check_manifold(&cd[i].manifold);
    g_stats.contacts_read += n > 0 ? n : 0;
    sn_shape_id sh = pick_shape(s);
    n = sn_shape_get_contacts(s->w, sh, cd, 8);
    for (int32_t i = 0; i < n; ++i) {
      check_manifold(&cd[i].manifold);
      FZ_CHECK(cd[i].shape_a.index1 == sh.index1 || cd[i].shape_b.index1 == sh.index1, "a contact of another shape");
    }
    break;
  }
  case 5: { /* what is inside a sensor */
    sn_shape_id sh = pick_shape(s);
    sn_shape_id inside[16];
    int32_t cap = rd_count(s, -1, 16);
    int32_t n = sn_shape_get_sensor_overlaps(s->w, sh, cap >= 0 && cap <= 16 ? inside : NULL, cap);
    if (n > 0 && cap > 0 && cap <= 16) {
      for (int32_t i = 0; i < n; ++i) {
        FZ_CHECK(sn_shape_is_valid(s->w, inside[i]), "a sensor lists a destroyed shape");
        FZ_CHECK(!sn_shape_is_sensor(s->w, inside[i]), "a sensor lists a sensor");
      }
    }
    break;
  }
  case 6: { /* the last step's sensor and body events */
    sn_sensor_events se = sn_world_get_sensor_events(s->w);
    FZ_CHECK(se.begin_count >= 0 && se.end_count >= 0, "negative sensor event counts");
    g_stats.sensor_events += se.begin_count + se.end_count;
    for (int32_t i = 0; i < se.begin_count; ++i)
      FZ_CHECK((se.begin_events[i].visitor.index1 != 0) != (se.begin_events[i].soft_body.index1 != 0),
               "a sensor event names both a shape and a soft body, or neither");
    sn_body_events be = sn_world_get_body_events(s->w);
    for (int32_t i = 0; i < be.move_count; ++i)
      FZ_CHECK(isfinite(be.move_events[i].transform.p.x) && isfinite(be.move_events[i].transform.p.y),
               "body event transform not finite");
    sn_contact_events ce = sn_world_get_contact_events(s->w);
    for (int32_t i = 0; i < ce.begin_count; ++i) check_manifold(&ce.begin_events[i].manifold);
    break;
  }
  default: { /* readers must cope with anything */
    sn_shape_id sh = pick_shape(s);
    (void)sn_shape_get_filter(s->w, sh);
    (void)sn_shape_is_sensor(s->w, sh);
    (void)sn_body_get_contact_count(s->w, pick_body(s));
    break;
  }
  }
}

static void op_step(fuzz_state *s) {
  /* mostly a few steps; sometimes long enough for bodies to come to rest */
  uint8_t len = fz_u8(&s->r);
  int32_t n = len < 224 ? 1 + len % 4 : 32 + 2 * (len - 224);
  bool calm_dt = s->dt >= 1.0f / 240.0f && s->dt <= 1.0f / 30.0f;
  for (int32_t k = 0; k < n; ++k) {
    /* end events held since the last step: the step must report them first */
    const int32_t held = s->w->pending_end_events.count;
    void *held_copy = copy_of(s->w->pending_end_events.data, (size_t)held * sizeof(sn_contact_end_event));
    if (g_trap_nan) feenableexcept(FE_INVALID);
    sn_result res = sn_world_step(s->w, s->dt);
    if (g_trap_nan) fedisableexcept(FE_INVALID);
    if (res == SN_OK) {
      sn_contact_events e = sn_world_get_contact_events(s->w);
      FZ_CHECK(e.end_count >= held && same_bytes(e.end_events, held_copy, (size_t)held * sizeof *e.end_events),
               "the step did not report the %d end events held before it first", (int)held);
      FZ_CHECK(s->w->pending_end_events.count == 0, "end events still held after a step");
    }
    free(held_copy);
    FZ_CHECK(s->w->locked == 0 && !s->w->stepping, "the world is still locked after a step");
    if (res != SN_OK) {
      FZ_CHECK(!(s->dt >= SN_MIN_TIME_STEP && s->dt <= SN_MAX_TIME_STEP), "step refused a good dt %g: %s",
               (double)s->dt, sn_world_last_error(s->w));
      return;
    }
    s->step_no++;
    g_stats.steps++;
    if (!calm_dt) s->world_calm_since = s->step_no;
    /* fast bodies are not calm */
    for (int32_t i = 0; i < s->w->bodies.count && i < SLOT_TRACK; ++i) {
      const sn_body *b = &s->w->bodies.data[i];
      if (b->in_use && !(b->v.x * b->v.x + b->v.y * b->v.y <= CALM_SPEED * CALM_SPEED))
        s->body_calm_since[i] = s->step_no;
    }
    check_finite(s);
    check_memory(s);
    check_penetration(s);
    (void)sn_world_get_contact_events(s->w);
    const sn_constraint_broken_event *ev;
    (void)sn_world_get_broken_constraints(s->w, &ev);
  }
}

/* ---- driver ------------------------------------------------------------- */

/* Snapshots of whatever the program built: the restored world saves the
 * same bytes, and both step on bit for bit (the snapshots after a step are
 * equal too), with every byte of the restored world freed afterwards. */
static uint8_t *snapshot_of(sn_world *w, size_t *n) {
  FZ_CHECK(sn_world_save_snapshot(w, NULL, 0, n) == SN_OK, "save: %s", sn_world_last_error(w));
  uint8_t *bytes = malloc(*n);
  FZ_CHECK(bytes != NULL && sn_world_save_snapshot(w, bytes, *n, n) == SN_OK, "save: %s", sn_world_last_error(w));
  return bytes;
}

static void check_snapshot(fuzz_state *s) {
  size_t n0, n1;
  uint8_t *a = snapshot_of(s->w, &n0);
  counting mem = {0, 0};
  sn_world_def wd = sn_default_world_def();
  wd.registry = g_registry;
  wd.allocator.alloc = count_alloc;
  wd.allocator.free = count_free;
  wd.allocator.context = &mem;
  sn_world *r = NULL;
  char err[256];
  FZ_CHECK(sn_world_load_snapshot(a, n0, &wd, &r, err, sizeof err) == SN_OK, "load of a fresh snapshot: %s", err);
  uint8_t *b = snapshot_of(r, &n1);
  FZ_CHECK(n0 == n1 && memcmp(a, b, n0) == 0, "the restored world's snapshot differs");
  free(a);
  free(b);
  /* callbacks are not saved: the caller sets them again */
  if (s->w->custom_filter != NULL) sn_world_set_custom_filter(r, s->w->custom_filter, r);
  if (s->w->pre_solve != NULL) sn_world_set_pre_solve(r, s->w->pre_solve, NULL);
  if (s->w->friction_fcn != NULL) sn_world_set_friction_callback(r, s->w->friction_fcn, s->w->friction_context);
  if (s->w->restitution_fcn != NULL)
    sn_world_set_restitution_callback(r, s->w->restitution_fcn, s->w->restitution_context);
  /* fuzz.reenter's hooks call back into s->w only: none while r steps */
  sn_result ra = sn_world_step(s->w, 1.0f / 60.0f);
  g_state = NULL;
  sn_result rb = sn_world_step(r, 1.0f / 60.0f);
  g_state = s;
  FZ_CHECK(ra == rb, "step results differ: %s vs %s", sn_result_name(ra), sn_result_name(rb));
  a = snapshot_of(s->w, &n0);
  b = snapshot_of(r, &n1);
  FZ_CHECK(n0 == n1 && memcmp(a, b, n0) == 0, "the restored world stepped differently");
  free(a);
  free(b);
  FZ_CHECK(sn_destroy_world(r) == SN_OK, "destroy restored");
  FZ_CHECK(mem.live_bytes == 0 && mem.live_blocks == 0, "restored world leaked %zu bytes", mem.live_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_state st;
  fuzz_state *s = &st;
  memset(s, 0, sizeof *s);
  g_state = s;
  g_stats.inputs++;
  s->r = fz_reader_make(data, size);
  s->dt = 1.0f / 60.0f;

  sn_world_def wd = sn_default_world_def();
  wd.allocator = (sn_allocator){count_alloc, count_free, &s->mem};
  wd.registry = g_registry;
  uint8_t setup = fz_u8(&s->r);
  if (setup & 1) wd.substeps = fz_range(&s->r, 1, 8);
  if (setup & 2) wd.enable_sleep = false;
  if (setup & 4) wd.gravity = rd_vec(s, -20.0f, 20.0f);
  s->w = sn_create_world(&wd, NULL);
  if (s->w == NULL) {
    FZ_CHECK(s->mem.live_bytes == 0 && s->mem.live_blocks == 0, "failed world creation leaked %zu bytes",
             s->mem.live_bytes);
    return 0;
  }
  if (setup & 8) { /* a ground to land on */
    sn_body_def gd = sn_default_body_def();
    sn_body_id ground = sn_create_body(s->w, &gd);
    sn_polygon box;
    sn_make_offset_box(30.0f, 1.0f, (sn_vec2){0.0f, -1.0f}, 0.0f, &box);
    sn_shape_def sd = sn_default_shape_def();
    sn_create_polygon_shape(s->w, ground, &sd, &box);
    s->bodies[s->nb++] = ground;
  }

  int ops = 0;
  while (!fz_empty(&s->r) && ops++ < 2000) {
    s->cb_budget = REENTER_CALLS;
    uint8_t op = fz_u8(&s->r);
    /* 240..255: the ops that call back into the world (0..239 keep their
     * meaning: 240 is a multiple of 12); 255, the last, the queries */
    if (op >= 240) {
      if (op < 248)
        op_callbacks(s);
      else if (op < 255)
        op_event_loop(s);
      else
        op_queries(s);
      FZ_CHECK(s->w->locked == 0, "the world is still locked after an op");
      continue;
    }
    switch (op % 12) {
    case 0:
      op_create_body(s);
      break;
    case 1:
    case 2:
      op_create_shape(s);
      break;
    case 3:
      op_destroy(s);
      break;
    case 4:
      op_create_chain(s);
      break;
    case 5:
      op_body_set(s);
      break;
    case 6:
      op_world_set(s);
      break;
    case 7:
      op_create_constraint(s);
      break;
    case 8:
      op_constraint_set(s);
      break;
    case 9:
      op_soft(s);
      break;
    case 11: /* (a step before filters, sensors and contact reading came) */
      op_contacts(s);
      break;
    default:
      op_step(s);
      break;
    }
  }
  s->cb_budget = REENTER_CALLS;
  op_step(s);
  check_snapshot(s);

  FZ_CHECK(sn_destroy_world(s->w) == SN_OK, "destroy failed");
  g_state = NULL;
  FZ_CHECK(s->mem.live_bytes == 0 && s->mem.live_blocks == 0, "after sn_destroy_world: %zu bytes in %zu blocks live",
           s->mem.live_bytes, s->mem.live_blocks);
  return 0;
}
