/* Public API promises: bad input is refused with the documented result code
 * and leaves the world unchanged, handles detect stale/foreign/null use, all
 * memory goes through the user's allocator (and comes back), queries and
 * events report hand-computed values, sleeping, mass properties and the body
 * accessors behave as documented. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

/* private: clear the last error before a call, snapshot the raw world state */
#include "world/world.h"
#include "report.h" /* SN_PROFILE_PARTS */

#define DT       (1.0f / 60.0f)
#define PI_F     3.14159265f
#define N_BAD    3
#define MAX_SEEN 64

/// The non-finite values every float argument must refuse.
static const float bad_floats[N_BAD] = {NAN, INFINITY, -INFINITY};

#define ck_assert_near(a, b, tol)                                                                                      \
  ck_assert_msg(fabs((double)(a) - (double)(b)) <= (double)(tol), "%s = %.7g, expected %.7g (tol %g)", #a,             \
                (double)(a), (double)(b), (double)(tol))

static bool same_shape(sn_shape_id a, sn_shape_id b) {
  return a.index1 == b.index1 && a.world_tag == b.world_tag && a.generation == b.generation;
}

static bool same_body(sn_body_id a, sn_body_id b) {
  return a.index1 == b.index1 && a.world_tag == b.world_tag && a.generation == b.generation;
}

/// True if {a, b} is the pair {x, y} in either order.
static bool same_pair(sn_shape_id a, sn_shape_id b, sn_shape_id x, sn_shape_id y) {
  return (same_shape(a, x) && same_shape(b, y)) || (same_shape(a, y) && same_shape(b, x));
}

/* ------------------------------------------------------------------------ */
/* Errors: result code, message, and "the world is unchanged"                */

static void clear_error(sn_world *w) { w->last_error[0] = '\0'; }

/// The last error of w names code and mentions what (if not NULL).
static void assert_last_error(sn_world *w, sn_result code, const char *what, const char *call) {
  const char *msg = sn_world_last_error(w);
  ck_assert_ptr_nonnull(msg);
  ck_assert_msg(msg[0] != '\0', "%s: last error is empty", call);
  ck_assert_msg(strstr(msg, sn_result_name(code)) != NULL, "%s: last error '%s' does not name %s", call, msg,
                sn_result_name(code));
  if (what != NULL)
    ck_assert_msg(strstr(msg, what) != NULL, "%s: last error '%s' does not mention '%s'", call, msg, what);
}

/// Raw copy of everything a refused call must not touch.
typedef struct world_snapshot {
  sn_world_counters counters;
  sn_world_settings settings;
  int32_t counts[5];
  int32_t proxies[2];
  void *arrays[4];
  size_t sizes[4];
} world_snapshot;

static void *copy_bytes(const void *data, size_t n) {
  if (n == 0) return NULL;
  void *p = malloc(n);
  ck_assert_ptr_nonnull(p);
  memcpy(p, data, n);
  return p;
}

static world_snapshot take_snapshot(sn_world *w) {
  world_snapshot s;
  memset(&s, 0, sizeof s);
  s.counters = sn_world_get_counters(w);
  s.settings = w->settings;
  int32_t counts[5] = {w->bodies.count, w->shapes.count, w->chains.count, w->contacts.count, w->move_buffer.count};
  memcpy(s.counts, counts, sizeof counts);
  s.proxies[0] = w->static_tree.proxy_count;
  s.proxies[1] = w->dynamic_tree.proxy_count;
  s.sizes[0] = (size_t)w->bodies.count * sizeof(sn_body);
  s.sizes[1] = (size_t)w->shapes.count * sizeof(sn_shape);
  s.sizes[2] = (size_t)w->chains.count * sizeof(sn_chain);
  s.sizes[3] = (size_t)w->contacts.count * sizeof(sn_contact);
  s.arrays[0] = copy_bytes(w->bodies.data, s.sizes[0]);
  s.arrays[1] = copy_bytes(w->shapes.data, s.sizes[1]);
  s.arrays[2] = copy_bytes(w->chains.data, s.sizes[2]);
  s.arrays[3] = copy_bytes(w->contacts.data, s.sizes[3]);
  return s;
}

static void free_snapshot(world_snapshot *s) {
  for (int i = 0; i < 4; ++i) free(s->arrays[i]);
  memset(s, 0, sizeof *s);
}

static void assert_counters_equal(sn_world_counters a, sn_world_counters b, const char *call) {
  ck_assert_msg(a.body_count == b.body_count && a.shape_count == b.shape_count && a.contact_count == b.contact_count &&
                    a.touching_contact_count == b.touching_contact_count && a.awake_body_count == b.awake_body_count &&
                    a.island_count == b.island_count && a.tree_height == b.tree_height,
                "%s: world counters changed", call);
  ck_assert_msg(a.allocated_bytes == b.allocated_bytes, "%s: allocated bytes changed %zu -> %zu", call,
                b.allocated_bytes, a.allocated_bytes);
}

static void assert_unchanged(sn_world *w, const world_snapshot *before, const char *call) {
  world_snapshot now = take_snapshot(w);
  assert_counters_equal(now.counters, before->counters, call);
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    size_t size = info->type == SN_SETTING_TYPE_VEC2   ? sizeof(sn_vec2)
                  : info->type == SN_SETTING_TYPE_BOOL ? sizeof(bool)
                                                       : sizeof(float);
    ck_assert_msg(
        memcmp((const char *)&now.settings + info->offset, (const char *)&before->settings + info->offset, size) == 0,
        "%s: setting %s changed", call, info->name);
  }
  ck_assert_msg(memcmp(now.counts, before->counts, sizeof now.counts) == 0, "%s: object counts changed", call);
  ck_assert_msg(memcmp(now.proxies, before->proxies, sizeof now.proxies) == 0, "%s: proxies changed", call);
  static const char *const names[4] = {"bodies", "shapes", "chains", "contacts"};
  for (int i = 0; i < 4; ++i) {
    ck_assert_msg(now.sizes[i] == before->sizes[i], "%s: %s array resized", call, names[i]);
    if (now.sizes[i] > 0)
      ck_assert_msg(memcmp(now.arrays[i], before->arrays[i], now.sizes[i]) == 0, "%s: %s modified", call, names[i]);
  }
  free_snapshot(&now);
}

/// call must return code, record a message naming it (and mentioning what),
/// and leave the world as in *snap.
#define expect_refused(w, snap, call, code, what)                                                                      \
  do {                                                                                                                 \
    clear_error(w);                                                                                                    \
    sn_result r_ = (call);                                                                                             \
    ck_assert_msg(r_ == (code), "%s returned %s, expected %s", #call, sn_result_name(r_), sn_result_name(code));       \
    assert_last_error((w), (code), (what), #call);                                                                     \
    assert_unchanged((w), (snap), #call);                                                                              \
  } while (0)

/// As expect_refused for calls that return an id: the id must be null.
#define expect_refused_id(w, snap, call, code, what)                                                                   \
  do {                                                                                                                 \
    clear_error(w);                                                                                                    \
    int32_t index1_ = (call).index1;                                                                                   \
    ck_assert_msg(index1_ == 0, "%s returned a live id (index1 %d)", #call, (int)index1_);                             \
    assert_last_error((w), (code), (what), #call);                                                                     \
    assert_unchanged((w), (snap), #call);                                                                              \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Public state of a body and a shape                                        */

typedef struct body_state {
  sn_transform xf;
  sn_vec2 v, com;
  float w, linear_damping, angular_damping, gravity_scale;
  sn_mass_data mass;
  bool awake, bullet;
  sn_body_type type;
  void *user_data;
  int32_t shape_count;
} body_state;

static body_state get_body_state(sn_world *w, sn_body_id b) {
  body_state s;
  memset(&s, 0, sizeof s);
  s.xf = sn_body_get_transform(w, b);
  s.v = sn_body_get_linear_velocity(w, b);
  s.com = sn_body_get_world_center_of_mass(w, b);
  s.w = sn_body_get_angular_velocity(w, b);
  s.linear_damping = sn_body_get_linear_damping(w, b);
  s.angular_damping = sn_body_get_angular_damping(w, b);
  s.gravity_scale = sn_body_get_gravity_scale(w, b);
  s.mass = sn_body_get_mass_data(w, b);
  s.awake = sn_body_is_awake(w, b);
  s.bullet = sn_body_is_bullet(w, b);
  s.type = sn_body_get_type(w, b);
  s.user_data = sn_body_get_user_data(w, b);
  s.shape_count = sn_body_get_shape_count(w, b);
  return s;
}

static void assert_body_state_equal(const body_state *a, const body_state *b, const char *what) {
  ck_assert_msg(memcmp(&a->xf, &b->xf, sizeof a->xf) == 0, "%s: transform changed", what);
  ck_assert_msg(a->v.x == b->v.x && a->v.y == b->v.y && a->w == b->w, "%s: velocity changed", what);
  ck_assert_msg(a->com.x == b->com.x && a->com.y == b->com.y, "%s: centre of mass changed", what);
  ck_assert_msg(a->linear_damping == b->linear_damping && a->angular_damping == b->angular_damping,
                "%s: damping changed", what);
  ck_assert_msg(a->gravity_scale == b->gravity_scale, "%s: gravity scale changed", what);
  ck_assert_msg(memcmp(&a->mass, &b->mass, sizeof a->mass) == 0, "%s: mass changed", what);
  ck_assert_msg(a->awake == b->awake && a->bullet == b->bullet && a->type == b->type, "%s: flags changed", what);
  ck_assert_msg(a->user_data == b->user_data && a->shape_count == b->shape_count, "%s: user data/shapes changed", what);
}

typedef struct shape_state {
  float friction, restitution, density;
  sn_aabb aabb;
  sn_shape_type type;
  void *user_data;
} shape_state;

static shape_state get_shape_state(sn_world *w, sn_shape_id s) {
  shape_state st;
  memset(&st, 0, sizeof st);
  st.friction = sn_shape_get_friction(w, s);
  st.restitution = sn_shape_get_restitution(w, s);
  st.density = sn_shape_get_density(w, s);
  st.aabb = sn_shape_get_aabb(w, s);
  st.type = sn_shape_get_type(w, s);
  st.user_data = sn_shape_get_user_data(w, s);
  return st;
}

static void assert_shape_state_equal(const shape_state *a, const shape_state *b, const char *what) {
  ck_assert_msg(a->friction == b->friction && a->restitution == b->restitution && a->density == b->density,
                "%s: material changed", what);
  ck_assert_msg(memcmp(&a->aabb, &b->aabb, sizeof a->aabb) == 0, "%s: aabb changed", what);
  ck_assert_msg(a->type == b->type && a->user_data == b->user_data, "%s: type/user data changed", what);
}

/* ------------------------------------------------------------------------ */
/* Scenes                                                                    */

static sn_world *new_world(void) {
  sn_world_def def = sn_default_world_def();
  sn_result r = SN_ERR_INVALID_ARGUMENT;
  sn_world *w = sn_create_world(&def, &r);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(r, SN_OK);
  return w;
}

static sn_body_id add_body(sn_world *w, sn_body_type type, float x, float y, float angle) {
  sn_body_def def = sn_default_body_def();
  def.type = type;
  def.position = (sn_vec2){x, y};
  def.angle = angle;
  sn_body_id id = sn_create_body(w, &def);
  ck_assert_msg(id.index1 != 0, "sn_create_body failed: %s", sn_world_last_error(w));
  return id;
}

static sn_shape_id add_box(sn_world *w, sn_body_id body, float hx, float hy, float density) {
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(hx, hy, &box), SN_OK);
  sn_shape_def def = sn_default_shape_def();
  def.density = density;
  sn_shape_id id = sn_create_polygon_shape(w, body, &def, &box);
  ck_assert_msg(id.index1 != 0, "sn_create_polygon_shape failed: %s", sn_world_last_error(w));
  return id;
}

static sn_shape_id add_circle(sn_world *w, sn_body_id body, float cx, float cy, float radius) {
  sn_shape_def def = sn_default_shape_def();
  sn_circle c = {{cx, cy}, radius};
  sn_shape_id id = sn_create_circle_shape(w, body, &def, &c);
  ck_assert_msg(id.index1 != 0, "sn_create_circle_shape failed: %s", sn_world_last_error(w));
  return id;
}

/// Ground: static box 20 x 1 whose top face is y = 0.5. Box: dynamic unit
/// square (density 1) centred at (0, y).
typedef struct scene {
  sn_world *w;
  sn_body_id ground, box;
  sn_shape_id ground_shape, box_shape;
} scene;

static scene make_scene(float box_y, bool hit_events) {
  scene s;
  s.w = new_world();
  s.ground = add_body(s.w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  s.ground_shape = add_box(s.w, s.ground, 10.0f, 0.5f, 1.0f);
  s.box = add_body(s.w, SN_BODY_DYNAMIC, 0.0f, box_y, 0.0f);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  sn_shape_def def = sn_default_shape_def();
  def.enable_hit_events = hit_events;
  s.box_shape = sn_create_polygon_shape(s.w, s.box, &def, &box);
  ck_assert_int_ne(s.box_shape.index1, 0);
  return s;
}

static void step_n(sn_world *w, int n) {
  for (int i = 0; i < n; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
}

/* Counting allocator                                                        */

/// Counting allocator: a 16-byte header stores the size, so a free with the
/// wrong size is caught. budget < 0: unlimited; 0: fail from now on.
/// fail_at >= 0: only allocation number fail_at fails (one-shot).
typedef struct counting_allocator {
  size_t bytes, blocks, allocations, failures;
  long budget;
  long fail_at;
  bool bad_free;
} counting_allocator;

#define HEADER_BYTES 16

static void *counting_alloc(size_t size, void *context) {
  counting_allocator *c = context;
  long number = (long)(c->allocations + c->failures);
  if (c->budget == 0 || number == c->fail_at) {
    c->failures++;
    return NULL;
  }
  if (c->budget > 0) c->budget--;
  size_t total = (size + HEADER_BYTES + 15u) & ~(size_t)15u;
  unsigned char *p = aligned_alloc(16, total);
  if (p == NULL) return NULL;
  memcpy(p, &size, sizeof size);
  c->bytes += size;
  c->blocks++;
  c->allocations++;
  return p + HEADER_BYTES;
}

static void counting_free(void *memory, size_t size, void *context) {
  counting_allocator *c = context;
  if (memory == NULL) {
    c->bad_free = true;
    return;
  }
  unsigned char *p = (unsigned char *)memory - HEADER_BYTES;
  size_t stored;
  memcpy(&stored, p, sizeof stored);
  if (stored != size) c->bad_free = true;
  c->bytes -= stored;
  c->blocks--;
  free(p);
}

static sn_world *counted_world(counting_allocator *ctx, sn_result *result) {
  sn_world_def def = sn_default_world_def();
  def.allocator.alloc = counting_alloc;
  def.allocator.free = counting_free;
  def.allocator.context = ctx;
  return sn_create_world(&def, result);
}

/* ======================================================================== */
/* 1. Bad input                                                              */

START_TEST(test_result_names) {
  ck_assert_str_eq(sn_result_name(SN_OK), "SN_OK");
  ck_assert_str_eq(sn_result_name(SN_ERR_NOT_FINITE), "SN_ERR_NOT_FINITE");
  ck_assert_str_eq(sn_result_name(SN_ERR_CAPACITY), "SN_ERR_CAPACITY");
  ck_assert_str_eq(sn_result_name((sn_result)999), "SN_ERR_UNKNOWN");
  ck_assert_str_eq(sn_result_message(SN_ERR_NOT_FINITE), "a number is NaN or infinite");
  ck_assert_str_eq(sn_result_message((sn_result)-1), "unknown result code");
  ck_assert_str_eq(sn_version_string(), SN_VERSION_STRING);
}
END_TEST

START_TEST(test_world_def_refused) {
  /* the defs go through a counting allocator: a refused def allocates nothing */
  counting_allocator ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.budget = -1;
  ctx.fail_at = -1;
  sn_allocator counting = {counting_alloc, counting_free, &ctx};
  sn_result r = SN_OK;
  ck_assert_ptr_null(sn_create_world(NULL, &r));
  ck_assert_int_eq(r, SN_ERR_NULL);
  ck_assert_ptr_null(sn_create_world(NULL, NULL));

  sn_world_def def = sn_default_world_def();
  def.allocator = counting;
  def.cookie = 0;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_UNINITIALIZED_DEF);
  sn_world_def zero;
  memset(&zero, 0, sizeof zero);
  zero.allocator = counting;
  ck_assert_ptr_null(sn_create_world(&zero, &r));
  ck_assert_int_eq(r, SN_ERR_UNINITIALIZED_DEF);

  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    for (int field = 0; field < 8; ++field) {
      def = sn_default_world_def();
      def.allocator = counting;
      switch (field) {
      case 0:
        def.gravity.x = bad;
        break;
      case 1:
        def.gravity.y = bad;
        break;
      case 2:
        def.contact_hertz = bad;
        break;
      case 3:
        def.contact_damping_ratio = bad;
        break;
      case 4:
        def.contact_push_max_velocity = bad;
        break;
      case 5:
        def.restitution_threshold = bad;
        break;
      case 6:
        def.contact_reuse_distance = bad;
        break;
      default:
        def.maximum_linear_speed = bad;
        break;
      }
      r = SN_OK;
      ck_assert_msg(sn_create_world(&def, &r) == NULL, "world def field %d = %g accepted", field, (double)bad);
      ck_assert_msg(r == SN_ERR_NOT_FINITE, "world def field %d = %g: %s", field, (double)bad, sn_result_name(r));
    }
  }
  /* manifold reuse beyond a quarter of the speculative margin, or negative */
  const float bad_reuse[] = {-0.001f, 0.0051f, 1.0f};
  for (size_t i = 0; i < sizeof bad_reuse / sizeof bad_reuse[0]; ++i) {
    def = sn_default_world_def();
    def.allocator = counting;
    def.contact_reuse_distance = bad_reuse[i];
    r = SN_OK;
    ck_assert_ptr_null(sn_create_world(&def, &r));
    ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  }
  const int32_t bad_substeps[] = {0, -1, 65, 1000};
  for (size_t i = 0; i < sizeof bad_substeps / sizeof bad_substeps[0]; ++i) {
    def = sn_default_world_def();
    def.allocator = counting;
    def.substeps = bad_substeps[i];
    ck_assert_ptr_null(sn_create_world(&def, &r));
    ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  }
  def = sn_default_world_def();
  def.allocator = counting;
  def.contact_hertz = -1.0f;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  def.contact_hertz = 0.0f;
  def.maximum_linear_speed = 0.0f;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  def.maximum_linear_speed = 400.0f;
  def.body_capacity = -1;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  /* finite settings that would let a state leave float range: a speed limit
   * of 3e38 m/s carried a body to +inf */
  for (int field = 0; field < 7; ++field) {
    def = sn_default_world_def();
    def.allocator = counting;
    switch (field) {
    case 0:
      def.maximum_linear_speed = 1.01f * SN_MAX_SPEED;
      break;
    case 1:
      def.gravity.x = -1.01f * SN_MAX_GRAVITY;
      break;
    case 2:
      def.gravity.y = 3e38f;
      break;
    case 3:
      def.contact_push_max_velocity = 1.01f * SN_MAX_SPEED;
      break;
    case 4:
      def.restitution_threshold = 3e38f;
      break;
    case 5:
      def.contact_hertz = 1.01f * SN_MAX_CONTACT_TUNING;
      break;
    default:
      def.contact_damping_ratio = 3e38f;
      break;
    }
    r = SN_OK;
    ck_assert_msg(sn_create_world(&def, &r) == NULL, "bound %d accepted", field);
    ck_assert_msg(r == SN_ERR_INVALID_ARGUMENT, "bound %d: %s", field, sn_result_name(r));
  }
  ck_assert_uint_eq(ctx.allocations, 0);

  /* edges of the substep range are fine */
  def = sn_default_world_def();
  def.substeps = 1;
  sn_world *w1 = sn_create_world(&def, &r);
  ck_assert_ptr_nonnull(w1);
  def.substeps = 64;
  sn_world *w64 = sn_create_world(&def, &r);
  ck_assert_ptr_nonnull(w64);
  ck_assert_int_eq(sn_world_get_substeps(w1), 1);
  ck_assert_int_eq(sn_world_get_substeps(w64), 64);
  ck_assert_int_eq(sn_destroy_world(w1), SN_OK);
  ck_assert_int_eq(sn_destroy_world(w64), SN_OK);
}
END_TEST

static void *never_alloc(size_t size, void *context) {
  (void)size;
  (void)context;
  return NULL;
}

START_TEST(test_world_def_half_allocator) {
  sn_world_def def = sn_default_world_def();
  def.allocator.alloc = never_alloc;
  sn_result r = SN_OK;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  def.allocator.alloc = NULL;
  def.allocator.free = counting_free;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
  /* a whole allocator that never gives memory: out of memory, not a crash */
  def.allocator.alloc = never_alloc;
  ck_assert_ptr_null(sn_create_world(&def, &r));
  ck_assert_int_eq(r, SN_ERR_OUT_OF_MEMORY);
}
END_TEST

/* The limits themselves are accepted; the setters refuse past them and leave
 * the setting as it was. */
START_TEST(test_world_setting_bounds) {
  sn_world_def def = sn_default_world_def();
  def.maximum_linear_speed = SN_MAX_SPEED;
  def.gravity = (sn_vec2){-SN_MAX_GRAVITY, SN_MAX_GRAVITY};
  def.contact_hertz = SN_MAX_CONTACT_TUNING;
  def.contact_damping_ratio = SN_MAX_CONTACT_TUNING;
  def.contact_push_max_velocity = SN_MAX_SPEED;
  def.restitution_threshold = SN_MAX_SPEED;
  sn_result r = SN_OK;
  sn_world *w = sn_create_world(&def, &r);
  ck_assert_msg(w != NULL, "%s", sn_result_name(r));
  ck_assert_int_eq(sn_world_set_gravity(w, (sn_vec2){0.0f, 3e38f}), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_gravity(w, (sn_vec2){1.5f * SN_MAX_GRAVITY, 0.0f}), SN_ERR_INVALID_ARGUMENT);
  ck_assert_float_eq(sn_world_get_gravity(w).x, -SN_MAX_GRAVITY);
  ck_assert_int_eq(sn_world_set_gravity(w, (sn_vec2){0.0f, -10.0f}), SN_OK);
  ck_assert_int_eq(sn_world_set_contact_tuning(w, 2e6f, 10.0f, 3.0f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_contact_tuning(w, 30.0f, 2e6f, 3.0f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_contact_tuning(w, 30.0f, 10.0f, 2e5f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_hit_event_threshold(w, 3e38f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_set_contact_tuning(w, 30.0f, 10.0f, 3.0f), SN_OK);
  ck_assert_int_eq(sn_world_set_hit_event_threshold(w, SN_MAX_SPEED), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/* A body at the largest speed limit flying away: once a step would carry
 * its centre beyond +-SN_MAX_COORDINATE it is frozen where that step found
 * it, with a frozen event; every state stays finite. The same for a
 * particle. */
START_TEST(test_escape_freezes) {
  sn_world_def def = sn_default_world_def();
  def.maximum_linear_speed = SN_MAX_SPEED;
  def.gravity = (sn_vec2){0.0f, 0.0f};
  def.enable_sleep = false;
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.linear_velocity = (sn_vec2){3e38f, 0.0f};
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert(sn_body_is_valid(w, b));
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
  sn_soft_body_def sbd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sbd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){0.0f, 10.0f};
  pd.velocity = (sn_vec2){0.0f, -3e38f};
  sn_particle_id p = sn_create_particle(w, soft, &pd);
  ck_assert(sn_particle_is_valid(w, p));
  int body_frozen_at = -1, particle_frozen_at = -1;
  for (int step = 0; step < 1000; ++step) {
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    const sn_frozen_event *e = NULL;
    int32_t n = sn_world_get_frozen_events(w, &e);
    for (int32_t i = 0; i < n; ++i) {
      if (sn_body_is_valid(w, e[i].body) && body_frozen_at < 0) body_frozen_at = step;
      if (sn_particle_is_valid(w, e[i].particle) && particle_frozen_at < 0) particle_frozen_at = step;
    }
    sn_vec2 x = sn_body_get_position(w, b), y = sn_particle_get_position(w, p);
    ck_assert(isfinite(x.x) && isfinite(x.y) && fabsf(x.x) <= SN_MAX_COORDINATE);
    ck_assert(isfinite(y.x) && isfinite(y.y) && fabsf(y.y) <= SN_MAX_COORDINATE);
  }
  /* 1e6 m at 1e5 m/s: 10 s, 600 steps */
  ck_assert_msg(body_frozen_at >= 590 && body_frozen_at <= 610, "body frozen at step %d", body_frozen_at);
  ck_assert_msg(particle_frozen_at >= 590 && particle_frozen_at <= 610, "particle frozen at step %d",
                particle_frozen_at);
  ck_assert(sn_body_is_frozen(w, b));
  ck_assert(sn_particle_is_frozen(w, p));
  ck_assert_float_gt(sn_body_get_position(w, b).x, 0.98f * SN_MAX_COORDINATE);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_step_refuses_bad_dt) {
  scene s = make_scene(3.0f, false);
  step_n(s.w, 5);
  body_state before = get_body_state(s.w, s.box);
  world_snapshot snap = take_snapshot(s.w);
  expect_refused(s.w, &snap, sn_world_step(s.w, 0.0f), SN_ERR_INVALID_ARGUMENT, "dt");
  expect_refused(s.w, &snap, sn_world_step(s.w, -0.0f), SN_ERR_INVALID_ARGUMENT, "dt");
  expect_refused(s.w, &snap, sn_world_step(s.w, -1.0f), SN_ERR_INVALID_ARGUMENT, "dt");
  expect_refused(s.w, &snap, sn_world_step(s.w, -1e-30f), SN_ERR_INVALID_ARGUMENT, "dt");
  /* outside [SN_MIN_TIME_STEP, SN_MAX_TIME_STEP]: 1 / dt or dt * v would overflow */
  expect_refused(s.w, &snap, sn_world_step(s.w, 1e-30f), SN_ERR_INVALID_ARGUMENT, "dt");
  expect_refused(s.w, &snap, sn_world_step(s.w, 3e38f), SN_ERR_INVALID_ARGUMENT, "dt");
  expect_refused(s.w, &snap, sn_world_step(s.w, 11.0f), SN_ERR_INVALID_ARGUMENT, "dt");
  /* positions beyond SN_MAX_COORDINATE */
  expect_refused(s.w, &snap, sn_body_set_transform(s.w, s.box, (sn_vec2){2e6f, 0.0f}, 0.0f), SN_ERR_INVALID_ARGUMENT,
                 "SN_MAX_COORDINATE");
  /* a density that makes the mass overflow (3e38 on a box: infinite mass, then NaN) */
  expect_refused(s.w, &snap, sn_shape_set_density(s.w, s.box_shape, 3e38f, true), SN_ERR_INVALID_ARGUMENT, "density");
  for (int k = 0; k < N_BAD; ++k)
    expect_refused(s.w, &snap, sn_world_step(s.w, bad_floats[k]), SN_ERR_NOT_FINITE, "dt");
  body_state after = get_body_state(s.w, s.box);
  assert_body_state_equal(&after, &before, "sn_world_step with a bad dt");
  free_snapshot(&snap);
  ck_assert_int_eq(sn_world_step(NULL, DT), SN_ERR_NULL);
  /* a good dt still works afterwards */
  step_n(s.w, 1);
  ck_assert_float_lt(sn_body_get_position(s.w, s.box).y, before.xf.p.y);
  sn_destroy_world(s.w);
}
END_TEST

START_TEST(test_world_setters_refuse_bad_values) {
  scene s = make_scene(3.0f, false);
  step_n(s.w, 3);
  world_snapshot snap = take_snapshot(s.w);
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    expect_refused(s.w, &snap, sn_world_set_gravity(s.w, (sn_vec2){bad, 0.0f}), SN_ERR_NOT_FINITE, "gravity");
    expect_refused(s.w, &snap, sn_world_set_gravity(s.w, (sn_vec2){0.0f, bad}), SN_ERR_NOT_FINITE, "gravity");
    expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, bad, 10.0f, 3.0f), SN_ERR_NOT_FINITE,
                   "contact_hertz must be finite");
    expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, 30.0f, bad, 3.0f), SN_ERR_NOT_FINITE,
                   "contact_damping_ratio must be finite");
    expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, 30.0f, 10.0f, bad), SN_ERR_NOT_FINITE,
                   "contact_push_max_velocity must be finite");
    /* NaN or Inf in one argument is reported before a range in another */
    expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, -1.0f, 10.0f, bad), SN_ERR_NOT_FINITE,
                   "contact_push_max_velocity must be finite");
    expect_refused(s.w, &snap, sn_world_set_hit_event_threshold(s.w, bad), SN_ERR_NOT_FINITE,
                   "hit_event_threshold must be finite");
  }
  expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, -1.0f, 10.0f, 3.0f), SN_ERR_INVALID_ARGUMENT,
                 "contact_hertz -1 outside [0, 1e+06 (SN_MAX_CONTACT_TUNING)]");
  expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, 30.0f, -1.0f, 3.0f), SN_ERR_INVALID_ARGUMENT,
                 "contact_damping_ratio -1 outside");
  expect_refused(s.w, &snap, sn_world_set_contact_tuning(s.w, 30.0f, 10.0f, -1.0f), SN_ERR_INVALID_ARGUMENT,
                 "contact_push_max_velocity -1 outside [0, 100000 (SN_MAX_SPEED)]");
  expect_refused(s.w, &snap, sn_world_set_hit_event_threshold(s.w, -0.5f), SN_ERR_INVALID_ARGUMENT,
                 "hit_event_threshold -0.5 outside [0, 100000 (SN_MAX_SPEED)]");
  expect_refused(s.w, &snap, sn_world_set_substeps(s.w, 0), SN_ERR_INVALID_ARGUMENT, "substeps 0 outside [1, 64]");
  expect_refused(s.w, &snap, sn_world_set_substeps(s.w, 65), SN_ERR_INVALID_ARGUMENT, "substeps 65 outside [1, 64]");
  expect_refused(s.w, &snap, sn_world_set_substeps(s.w, -3), SN_ERR_INVALID_ARGUMENT, "substeps -3");
  expect_refused(s.w, &snap, sn_world_set_position_iterations(s.w, 33), SN_ERR_INVALID_ARGUMENT,
                 "position_iterations 33 outside [0, 32]");
  expect_refused(s.w, &snap, sn_world_set_soft_iterations(s.w, 0), SN_ERR_INVALID_ARGUMENT,
                 "soft_iterations 0 outside [1, 32]");
  expect_refused(s.w, &snap, sn_world_set_gravity(s.w, (sn_vec2){0.0f, -2.0e5f}), SN_ERR_INVALID_ARGUMENT,
                 "gravity.y -200000 outside [-100000, 100000 (SN_MAX_GRAVITY)]");
  free_snapshot(&snap);

  /* the good values are taken */
  ck_assert_int_eq(sn_world_set_substeps(s.w, 64), SN_OK);
  ck_assert_int_eq(sn_world_get_substeps(s.w), 64);
  ck_assert_int_eq(sn_world_set_substeps(s.w, 1), SN_OK);
  ck_assert_int_eq(sn_world_get_substeps(s.w), 1);
  ck_assert_int_eq(sn_world_set_gravity(s.w, (sn_vec2){1.0f, -3.0f}), SN_OK);
  ck_assert_float_eq(sn_world_get_gravity(s.w).x, 1.0f);
  ck_assert_float_eq(sn_world_get_gravity(s.w).y, -3.0f);
  ck_assert_int_eq(sn_world_set_substeps(NULL, 4), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_set_gravity(NULL, (sn_vec2){0.0f, 0.0f}), SN_ERR_NULL);
  sn_destroy_world(s.w);
}
END_TEST

START_TEST(test_body_def_refused) {
  sn_world *w = new_world();
  add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  world_snapshot snap = take_snapshot(w);
  sn_body_def def;
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    for (int field = 0; field < 9; ++field) {
      def = sn_default_body_def();
      def.type = SN_BODY_DYNAMIC;
      switch (field) {
      case 0:
        def.position.x = bad;
        break;
      case 1:
        def.position.y = bad;
        break;
      case 2:
        def.angle = bad;
        break;
      case 3:
        def.linear_velocity.x = bad;
        break;
      case 4:
        def.linear_velocity.y = bad;
        break;
      case 5:
        def.angular_velocity = bad;
        break;
      case 6:
        def.linear_damping = bad;
        break;
      case 7:
        def.angular_damping = bad;
        break;
      default:
        def.gravity_scale = bad;
        break;
      }
      expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_NOT_FINITE, "body def");
    }
  }
  def = sn_default_body_def();
  def.cookie = 0;
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_UNINITIALIZED_DEF, "sn_default_body_def");
  memset(&def, 0, sizeof def);
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_UNINITIALIZED_DEF, "sn_default_body_def");
  expect_refused_id(w, &snap, sn_create_body(w, NULL), SN_ERR_NULL, "body def");
  def = sn_default_body_def();
  def.type = (sn_body_type)7;
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_INVALID_ARGUMENT, "body type");
  def = sn_default_body_def();
  def.linear_damping = -1.0f;
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_INVALID_ARGUMENT, "damping");
  for (int k = 0; k < N_BAD; ++k) {
    def = sn_default_body_def();
    def.sleep_threshold = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_NOT_FINITE, "sleep_threshold");
  }
  def = sn_default_body_def();
  def.sleep_threshold = -0.01f;
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_INVALID_ARGUMENT, "sleep_threshold must be >= 0");
  def = sn_default_body_def();
  def.angular_damping = -0.1f;
  expect_refused_id(w, &snap, sn_create_body(w, &def), SN_ERR_INVALID_ARGUMENT, "damping");
  free_snapshot(&snap);
  def = sn_default_body_def();
  ck_assert_int_eq(sn_create_body(NULL, &def).index1, 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_body_setters_refuse_non_finite) {
  scene s = make_scene(3.0f, false);
  step_n(s.w, 5); /* falling: nonzero velocity */
  sn_body_id b = s.box;
  sn_world *w = s.w;
  body_state before = get_body_state(w, b);
  world_snapshot snap = take_snapshot(w);
  const sn_vec2 ok = {1.0f, 2.0f};
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    const sn_vec2 bv[2] = {{bad, 0.0f}, {0.0f, bad}};
    for (int j = 0; j < 2; ++j) {
      sn_vec2 v = bv[j];
      expect_refused(w, &snap, sn_body_set_transform(w, b, v, 0.0f), SN_ERR_NOT_FINITE, "position");
      expect_refused(w, &snap, sn_body_set_linear_velocity(w, b, v), SN_ERR_NOT_FINITE, "velocity");
      expect_refused(w, &snap, sn_body_apply_force(w, b, v, ok, true), SN_ERR_NOT_FINITE, "force");
      expect_refused(w, &snap, sn_body_apply_force(w, b, ok, v, true), SN_ERR_NOT_FINITE, "point");
      expect_refused(w, &snap, sn_body_apply_force_to_center(w, b, v, true), SN_ERR_NOT_FINITE, "force");
      expect_refused(w, &snap, sn_body_apply_linear_impulse(w, b, v, ok, true), SN_ERR_NOT_FINITE, "impulse");
      expect_refused(w, &snap, sn_body_apply_linear_impulse(w, b, ok, v, true), SN_ERR_NOT_FINITE, "point");
      /* static bodies validate too (before the "does not apply" shortcut) */
      expect_refused(w, &snap, sn_body_apply_force(w, s.ground, v, ok, true), SN_ERR_NOT_FINITE, "force");
      expect_refused(w, &snap, sn_body_set_transform(w, s.ground, v, 0.0f), SN_ERR_NOT_FINITE, "position");
    }
    expect_refused(w, &snap, sn_body_set_transform(w, b, ok, bad), SN_ERR_NOT_FINITE, "angle");
    expect_refused(w, &snap, sn_body_set_angular_velocity(w, b, bad), SN_ERR_NOT_FINITE, "angular velocity");
    expect_refused(w, &snap, sn_body_apply_torque(w, b, bad, true), SN_ERR_NOT_FINITE, "torque");
    expect_refused(w, &snap, sn_body_apply_angular_impulse(w, b, bad, true), SN_ERR_NOT_FINITE, "impulse");
    expect_refused(w, &snap, sn_body_set_linear_damping(w, b, bad), SN_ERR_NOT_FINITE, "linear damping");
    expect_refused(w, &snap, sn_body_set_angular_damping(w, b, bad), SN_ERR_NOT_FINITE, "angular damping");
    expect_refused(w, &snap, sn_body_set_gravity_scale(w, b, bad), SN_ERR_NOT_FINITE, "gravity scale");
    expect_refused(w, &snap, sn_body_set_sleep_threshold(w, b, bad), SN_ERR_NOT_FINITE, "sleep threshold");
  }
  expect_refused(w, &snap, sn_body_set_sleep_threshold(w, b, -0.05f), SN_ERR_INVALID_ARGUMENT, "sleep threshold");
  expect_refused(w, &snap, sn_body_set_linear_damping(w, b, -1.0f), SN_ERR_INVALID_ARGUMENT, "linear damping");
  expect_refused(w, &snap, sn_body_set_angular_damping(w, b, -1.0f), SN_ERR_INVALID_ARGUMENT, "angular damping");
  expect_refused(w, &snap, sn_body_set_type(w, b, (sn_body_type)3), SN_ERR_INVALID_ARGUMENT, "body type");
  expect_refused(w, &snap, sn_body_set_type(w, b, (sn_body_type)-1), SN_ERR_INVALID_ARGUMENT, "body type");
  expect_refused(w, &snap, sn_body_set_linear_velocity(w, s.ground, ok), SN_ERR_WRONG_BODY_TYPE, "static");
  expect_refused(w, &snap, sn_body_set_angular_velocity(w, s.ground, 1.0f), SN_ERR_WRONG_BODY_TYPE, "static");
  free_snapshot(&snap);
  body_state after = get_body_state(w, b);
  assert_body_state_equal(&after, &before, "refused body setters");

  /* pure readers with non-finite input do not crash and do not change anything */
  ck_assert_int_eq(sn_shape_test_point(w, s.box_shape, (sn_vec2){NAN, 0.0f}), false);
  ck_assert_int_eq(sn_shape_test_point(w, s.box_shape, (sn_vec2){0.0f, INFINITY}), false);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_shape_def_refused) {
  sn_world *w = new_world();
  sn_body_id body = add_body(w, SN_BODY_DYNAMIC, 0.0f, 2.0f, 0.0f);
  add_box(w, body, 0.5f, 0.5f, 1.0f);
  body_state before = get_body_state(w, body);
  world_snapshot snap = take_snapshot(w);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.3f, 0.3f, &box), SN_OK);
  const sn_circle circle = {{1.0f, 0.0f}, 0.5f};
  sn_shape_def def;
  for (int k = 0; k < N_BAD; ++k) {
    for (int field = 0; field < 3; ++field) {
      def = sn_default_shape_def();
      const char *what = field == 0 ? "density" : field == 1 ? "friction" : "restitution";
      if (field == 0) def.density = bad_floats[k];
      if (field == 1) def.friction = bad_floats[k];
      if (field == 2) def.restitution = bad_floats[k];
      expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &box), SN_ERR_NOT_FINITE, what);
      expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &circle), SN_ERR_NOT_FINITE, what);
    }
  }
  def = sn_default_shape_def();
  def.density = -1.0f;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &box), SN_ERR_INVALID_ARGUMENT, "density");
  def = sn_default_shape_def();
  def.friction = -0.1f;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &box), SN_ERR_INVALID_ARGUMENT, "friction");
  def = sn_default_shape_def();
  def.restitution = 1.01f;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &box), SN_ERR_INVALID_ARGUMENT, "restitution");
  def = sn_default_shape_def();
  def.restitution = -0.01f;
  expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &circle), SN_ERR_INVALID_ARGUMENT, "restitution");
  def = sn_default_shape_def();
  def.cookie = 0;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &box), SN_ERR_UNINITIALIZED_DEF,
                    "sn_default_shape_def");
  memset(&def, 0, sizeof def);
  expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &circle), SN_ERR_UNINITIALIZED_DEF,
                    "sn_default_shape_def");
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, NULL, &box), SN_ERR_NULL, "shape def");
  def = sn_default_shape_def();
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, NULL), SN_ERR_NULL, "polygon");
  expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, NULL), SN_ERR_NULL, "circle");
  expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, NULL), SN_ERR_NULL, "capsule");
  expect_refused_id(w, &snap, sn_create_segment_shape(w, body, &def, NULL), SN_ERR_NULL, "segment");
  free_snapshot(&snap);
  body_state after = get_body_state(w, body);
  assert_body_state_equal(&after, &before, "refused shape defs");
  ck_assert_int_eq(sn_create_circle_shape(NULL, body, &def, &circle).index1, 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_round_shapes_refused) {
  sn_world *w = new_world();
  sn_body_id ground = add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  sn_body_id body = add_body(w, SN_BODY_DYNAMIC, 0.0f, 2.0f, 0.0f);
  sn_body_id kinematic = add_body(w, SN_BODY_KINEMATIC, 5.0f, 2.0f, 0.0f);
  add_circle(w, body, 0.0f, 0.0f, 0.5f);
  world_snapshot snap = take_snapshot(w);
  const sn_shape_def def = sn_default_shape_def();
  sn_circle c;
  sn_capsule cap;
  sn_segment seg;
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    c = (sn_circle){{bad, 0.0f}, 0.5f};
    expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &c), SN_ERR_NOT_FINITE, "circle");
    c = (sn_circle){{0.0f, bad}, 0.5f};
    expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &c), SN_ERR_NOT_FINITE, "circle");
    c = (sn_circle){{0.0f, 0.0f}, bad};
    expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &c), SN_ERR_NOT_FINITE, "circle");
    cap = (sn_capsule){{bad, 0.0f}, {1.0f, 0.0f}, 0.2f};
    expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, &cap), SN_ERR_NOT_FINITE, "capsule");
    cap = (sn_capsule){{0.0f, 0.0f}, {1.0f, bad}, 0.2f};
    expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, &cap), SN_ERR_NOT_FINITE, "capsule");
    cap = (sn_capsule){{0.0f, 0.0f}, {1.0f, 0.0f}, bad};
    expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, &cap), SN_ERR_NOT_FINITE, "capsule");
    seg = (sn_segment){{bad, 0.0f}, {1.0f, 0.0f}};
    expect_refused_id(w, &snap, sn_create_segment_shape(w, ground, &def, &seg), SN_ERR_NOT_FINITE, "segment");
    seg = (sn_segment){{0.0f, 0.0f}, {1.0f, bad}};
    expect_refused_id(w, &snap, sn_create_segment_shape(w, ground, &def, &seg), SN_ERR_NOT_FINITE, "segment");
  }
  const float bad_radii[] = {0.0f, -0.0f, -1.0f, -1e-20f};
  for (size_t i = 0; i < sizeof bad_radii / sizeof bad_radii[0]; ++i) {
    c = (sn_circle){{0.0f, 0.0f}, bad_radii[i]};
    expect_refused_id(w, &snap, sn_create_circle_shape(w, body, &def, &c), SN_ERR_INVALID_ARGUMENT, "radius");
    cap = (sn_capsule){{0.0f, 0.0f}, {1.0f, 0.0f}, bad_radii[i]};
    expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, &cap), SN_ERR_INVALID_ARGUMENT, "radius");
  }
  cap = (sn_capsule){{1.0f, 1.0f}, {1.0f, 1.0f}, 0.5f};
  expect_refused_id(w, &snap, sn_create_capsule_shape(w, body, &def, &cap), SN_ERR_DEGENERATE_POLYGON, "circle");
  seg = (sn_segment){{1.0f, 1.0f}, {1.0f, 1.0f}};
  expect_refused_id(w, &snap, sn_create_segment_shape(w, ground, &def, &seg), SN_ERR_DEGENERATE_POLYGON, "segment");
  free_snapshot(&snap);
  /* segments fit every body type, and a body with one may change type */
  seg = (sn_segment){{0.0f, 0.0f}, {1.0f, 0.0f}};
  ck_assert_int_ne(sn_create_segment_shape(w, body, &def, &seg).index1, 0);
  ck_assert_int_ne(sn_create_segment_shape(w, kinematic, &def, &seg).index1, 0);
  sn_shape_id sid = sn_create_segment_shape(w, ground, &def, &seg);
  ck_assert_int_ne(sid.index1, 0);
  ck_assert_int_eq(sn_body_set_type(w, ground, SN_BODY_DYNAMIC), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/// A polygon filled with a byte pattern, to prove an error leaves *out alone.
static sn_polygon sentinel(void) {
  sn_polygon p;
  memset(&p, 0x5A, sizeof p);
  return p;
}

static sn_result make_polygon_checked(const sn_vec2 *pts, int32_t n, float radius) {
  sn_polygon out = sentinel(), ref = sentinel();
  sn_result r = sn_make_polygon(pts, n, radius, &out);
  if (r != SN_OK) ck_assert_msg(memcmp(&out, &ref, sizeof out) == 0, "sn_make_polygon wrote *out on error");
  return r;
}

static sn_result hull_checked(const sn_vec2 *pts, int32_t n, float radius) {
  sn_polygon out = sentinel(), ref = sentinel();
  sn_result r = sn_compute_hull(pts, n, radius, &out);
  if (r != SN_OK) ck_assert_msg(memcmp(&out, &ref, sizeof out) == 0, "sn_compute_hull wrote *out on error");
  return r;
}

START_TEST(test_polygon_builders_refuse) {
  const sn_vec2 square[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  ck_assert_int_eq(make_polygon_checked(square, 4, 0.0f), SN_OK);
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    for (int i = 0; i < 4; ++i) {
      sn_vec2 p[4];
      memcpy(p, square, sizeof p);
      if (i % 2 == 0)
        p[i].x = bad;
      else
        p[i].y = bad;
      ck_assert_int_eq(make_polygon_checked(p, 4, 0.0f), SN_ERR_NOT_FINITE);
      ck_assert_int_eq(hull_checked(p, 4, 0.0f), SN_ERR_NOT_FINITE);
    }
    ck_assert_int_eq(make_polygon_checked(square, 4, bad), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(hull_checked(square, 4, bad), SN_ERR_NOT_FINITE);
    sn_polygon out = sentinel();
    ck_assert_int_eq(sn_make_box(bad, 1.0f, &out), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(sn_make_box(1.0f, bad, &out), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(sn_make_offset_box(1.0f, 1.0f, (sn_vec2){bad, 0.0f}, 0.0f, &out), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(sn_make_offset_box(1.0f, 1.0f, (sn_vec2){0.0f, 0.0f}, bad, &out), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(sn_make_rounded_box(1.0f, 1.0f, bad, &out), SN_ERR_NOT_FINITE);
    ck_assert_int_eq(sn_make_rounded_box(bad, 1.0f, 0.1f, &out), SN_ERR_NOT_FINITE);
    sn_polygon ref = sentinel();
    ck_assert_msg(memcmp(&out, &ref, sizeof out) == 0, "a box helper wrote *out on error");
  }
  ck_assert_int_eq(make_polygon_checked(square, 4, -0.1f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(make_polygon_checked(square, 2, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  ck_assert_int_eq(make_polygon_checked(square, 0, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  ck_assert_int_eq(make_polygon_checked(square, -1, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  const sn_vec2 nine[9] = {{0, 0}, {1, 0}, {2, 0.5f}, {2.5f, 1.5f}, {2, 2.5f}, {1, 3}, {0, 3}, {-1, 2}, {-1, 1}};
  ck_assert_int_eq(make_polygon_checked(nine, 9, 0.0f), SN_ERR_TOO_MANY_VERTICES);
  ck_assert_int_eq(hull_checked(nine, 9, 0.0f), SN_ERR_TOO_MANY_VERTICES);
  const sn_vec2 collinear[3] = {{0, 0}, {1, 0}, {2, 0}};
  ck_assert_int_eq(make_polygon_checked(collinear, 3, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  ck_assert_int_eq(hull_checked(collinear, 3, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  const sn_vec2 coincident[4] = {{0, 0}, {0, 0}, {0, 0}, {1, 1}};
  ck_assert_int_eq(make_polygon_checked(coincident, 4, 0.0f), SN_ERR_DEGENERATE_POLYGON);
  const sn_vec2 dart[5] = {{0, 0}, {2, 0}, {2, 2}, {1, 1}, {0, 2}};
  ck_assert_int_eq(make_polygon_checked(dart, 5, 0.0f), SN_ERR_NON_CONVEX_POLYGON);
  const sn_vec2 middle[5] = {{0, 0}, {1, 0}, {2, 0}, {2, 2}, {0, 2}};
  ck_assert_int_eq(make_polygon_checked(middle, 5, 0.0f), SN_ERR_NON_CONVEX_POLYGON);
  sn_polygon out;
  ck_assert_int_eq(sn_make_polygon(NULL, 4, 0.0f, &out), SN_ERR_NULL);
  ck_assert_int_eq(sn_make_polygon(square, 4, 0.0f, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_compute_hull(NULL, 4, 0.0f, &out), SN_ERR_NULL);
  ck_assert_int_eq(sn_make_box(1.0f, 1.0f, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_make_box(0.0f, 1.0f, &out), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_make_box(1.0f, -1.0f, &out), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_make_rounded_box(1.0f, 1.0f, -0.1f, &out), SN_ERR_INVALID_ARGUMENT);
}
END_TEST

START_TEST(test_corrupt_polygon_shape_refused) {
  sn_world *w = new_world();
  sn_body_id body = add_body(w, SN_BODY_DYNAMIC, 0.0f, 2.0f, 0.0f);
  add_box(w, body, 0.5f, 0.5f, 1.0f);
  world_snapshot snap = take_snapshot(w);
  const sn_shape_def def = sn_default_shape_def();
  sn_polygon good;
  ck_assert_int_eq(sn_make_box(0.5f, 0.25f, &good), SN_OK);
  sn_polygon p;

  /* clockwise: same outline, reversed */
  p = good;
  for (int i = 0; i < 4; ++i) {
    p.vertices[i] = good.vertices[3 - i];
    p.normals[i] = good.normals[(6 - i) % 4];
  }
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NON_CONVEX_POLYGON, "polygon");
  /* a reflex vertex */
  p = good;
  p.vertices[2] = (sn_vec2){0.0f, 0.0f};
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NON_CONVEX_POLYGON, "polygon");
  for (int k = 0; k < N_BAD; ++k) {
    p = good;
    p.vertices[1].y = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NOT_FINITE, "polygon");
    p = good;
    p.normals[2].x = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NOT_FINITE, "polygon");
    p = good;
    p.centroid.x = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NOT_FINITE, "polygon");
    p = good;
    p.radius = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_NOT_FINITE, "polygon");
  }
  p = good;
  p.count = 2;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_DEGENERATE_POLYGON, "2 vertices");
  p.count = 0;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_DEGENERATE_POLYGON, "polygon");
  p.count = -7;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_DEGENERATE_POLYGON, "polygon");
  p.count = 9;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_TOO_MANY_VERTICES, "9 vertices");
  p = good;
  p.radius = -0.1f;
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_INVALID_ARGUMENT, "polygon");
  /* inconsistent normals and a centroid outside */
  p = good;
  p.normals[0] = (sn_vec2){0.0f, 1.0f};
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_INVALID_ARGUMENT, "polygon");
  p = good;
  memset(p.normals, 0, sizeof p.normals);
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_INVALID_ARGUMENT, "polygon");
  p = good;
  p.centroid = (sn_vec2){3.0f, 0.0f};
  expect_refused_id(w, &snap, sn_create_polygon_shape(w, body, &def, &p), SN_ERR_INVALID_ARGUMENT, "polygon");
  free_snapshot(&snap);
  ck_assert_int_ne(sn_create_polygon_shape(w, body, &def, &good).index1, 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_shape_setters_refuse) {
  scene s = make_scene(3.0f, false);
  step_n(s.w, 2);
  sn_world *w = s.w;
  shape_state before = get_shape_state(w, s.box_shape);
  body_state body_before = get_body_state(w, s.box);
  world_snapshot snap = take_snapshot(w);
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    expect_refused(w, &snap, sn_shape_set_friction(w, s.box_shape, bad), SN_ERR_NOT_FINITE, "friction");
    expect_refused(w, &snap, sn_shape_set_restitution(w, s.box_shape, bad), SN_ERR_NOT_FINITE, "restitution");
    expect_refused(w, &snap, sn_shape_set_density(w, s.box_shape, bad, true), SN_ERR_NOT_FINITE, "density");
  }
  expect_refused(w, &snap, sn_shape_set_friction(w, s.box_shape, -1.0f), SN_ERR_INVALID_ARGUMENT, "friction");
  expect_refused(w, &snap, sn_shape_set_restitution(w, s.box_shape, 1.5f), SN_ERR_INVALID_ARGUMENT, "restitution");
  expect_refused(w, &snap, sn_shape_set_restitution(w, s.box_shape, -0.5f), SN_ERR_INVALID_ARGUMENT, "restitution");
  expect_refused(w, &snap, sn_shape_set_density(w, s.box_shape, -2.0f, true), SN_ERR_INVALID_ARGUMENT, "density");
  sn_circle c;
  expect_refused(w, &snap, sn_shape_get_circle(w, s.box_shape, &c), SN_ERR_INVALID_ARGUMENT, "another type");
  expect_refused(w, &snap, sn_shape_get_polygon(w, s.box_shape, NULL), SN_ERR_NULL, "NULL");
  free_snapshot(&snap);
  shape_state after = get_shape_state(w, s.box_shape);
  assert_shape_state_equal(&after, &before, "refused shape setters");
  body_state body_after = get_body_state(w, s.box);
  assert_body_state_equal(&body_after, &body_before, "refused shape setters");

  /* good values are taken (and density updates the mass when asked) */
  ck_assert_int_eq(sn_shape_set_friction(w, s.box_shape, 0.25f), SN_OK);
  ck_assert_float_eq(sn_shape_get_friction(w, s.box_shape), 0.25f);
  ck_assert_int_eq(sn_shape_set_restitution(w, s.box_shape, 1.0f), SN_OK);
  ck_assert_float_eq(sn_shape_get_restitution(w, s.box_shape), 1.0f);
  ck_assert_int_eq(sn_shape_set_density(w, s.box_shape, 3.0f, false), SN_OK);
  ck_assert_float_eq(sn_body_get_mass(w, s.box), 1.0f);
  ck_assert_int_eq(sn_shape_set_density(w, s.box_shape, 3.0f, true), SN_OK);
  ck_assert_near(sn_body_get_mass(w, s.box), 3.0f, 1e-5f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_chain_refused) {
  sn_world *w = new_world();
  sn_body_id ground = add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  sn_body_id body = add_body(w, SN_BODY_DYNAMIC, 0.0f, 3.0f, 0.0f);
  add_box(w, body, 0.5f, 0.5f, 1.0f);
  world_snapshot snap = take_snapshot(w);
  sn_vec2 pts[6] = {{-6, 1}, {-4, 0}, {-2, 0}, {2, 0}, {4, 0}, {6, 1}};
  sn_chain_def def = sn_default_chain_def();
  def.points = pts;
  def.count = 3;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "got 3");
  def.count = 0;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "points");
  def.count = -1;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "points");
  def.count = 2;
  def.is_loop = true;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "got 2");
  def = sn_default_chain_def();
  def.points = pts;
  def.count = 6;
  for (int k = 0; k < N_BAD; ++k) {
    sn_vec2 saved = pts[2];
    pts[2].y = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_NOT_FINITE, "point 2");
    pts[2] = saved;
    def.friction = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_NOT_FINITE, "material");
    def.friction = 0.6f;
    def.restitution = bad_floats[k];
    expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_NOT_FINITE, "material");
    def.restitution = 0.0f;
  }
  def.friction = -1.0f;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "friction");
  def.friction = 0.6f;
  def.restitution = 2.0f;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_INVALID_ARGUMENT, "restitution");
  def.restitution = 0.0f;
  /* coincident neighbours, and a loop that closes on its first point */
  sn_vec2 dup[5] = {{0, 0}, {1, 0}, {1, 0}, {2, 0}, {3, 0}};
  def.points = dup;
  def.count = 5;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_DEGENERATE_POLYGON, "coincide");
  sn_vec2 closed[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}};
  def.points = closed;
  def.count = 4;
  def.is_loop = true;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_DEGENERATE_POLYGON, "coincide");
  def = sn_default_chain_def();
  def.points = NULL;
  def.count = 6;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_NULL, "points");
  expect_refused_id(w, &snap, sn_create_chain(w, ground, NULL), SN_ERR_NULL, "chain def");
  def.points = pts;
  def.cookie = 0;
  expect_refused_id(w, &snap, sn_create_chain(w, ground, &def), SN_ERR_UNINITIALIZED_DEF, "sn_default_chain_def");
  def = sn_default_chain_def();
  def.points = pts;
  def.count = 6;
  free_snapshot(&snap);
  /* the same def on the static body works: 6 points, open -> 3 segments */
  int32_t shapes_before = sn_world_get_counters(w).shape_count;
  sn_chain_id chain = sn_create_chain(w, ground, &def);
  ck_assert_int_ne(chain.index1, 0);
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, shapes_before + 3);
  ck_assert_int_eq(sn_create_chain(NULL, ground, &def).index1, 0);
  sn_destroy_world(w);
}
END_TEST

/* Reading a chain back: sn_chain_get_def and sn_chain_get_points give what
 * made it, sn_shape_get_parent_chain finds it from a segment; bad handles
 * and arguments are refused with the world unchanged. */
START_TEST(test_chain_read_back) {
  sn_world *w = new_world();
  sn_body_id ground = add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  sn_shape_id box = add_box(w, ground, 0.5f, 0.5f, 1.0f);
  sn_vec2 open_pts[6] = {{-6, 1}, {-4, 0}, {-2, 0}, {2, 0}, {4, 0}, {6, 1}};
  sn_chain_def def = sn_default_chain_def();
  def.points = open_pts;
  def.count = 6;
  def.friction = 0.3f;
  def.restitution = 0.25f;
  def.rolling_resistance = 0.02f;
  def.tangent_speed = -1.5f;
  def.material = 9;
  def.category_bits = 0x4;
  def.mask_bits = 0xf0;
  def.group_index = -2;
  def.user_data = &def;
  sn_chain_id open = sn_create_chain(w, ground, &def);
  ck_assert(sn_chain_is_valid(w, open));
  sn_vec2 loop_pts[4] = {{0, 5}, {1, 5}, {1, 6}, {0, 6}};
  sn_chain_def ld = sn_default_chain_def();
  ld.points = loop_pts;
  ld.count = 4;
  ld.is_loop = true;
  sn_chain_id loop = sn_create_chain(w, ground, &ld);
  ck_assert(sn_chain_is_valid(w, loop));
  /* the defs */
  sn_chain_def got;
  ck_assert_int_eq(sn_chain_get_def(w, open, &got), SN_OK);
  ck_assert(!got.is_loop);
  ck_assert_int_eq(got.count, 6);
  ck_assert_ptr_null(got.points);
  ck_assert(got.friction == 0.3f && got.restitution == 0.25f && got.rolling_resistance == 0.02f);
  ck_assert(got.tangent_speed == -1.5f);
  ck_assert_int_eq(got.material, 9);
  ck_assert(got.category_bits == 0x4 && got.mask_bits == 0xf0);
  ck_assert_int_eq(got.group_index, -2);
  ck_assert_ptr_eq(got.user_data, &def);
  ck_assert_int_eq(sn_chain_get_def(w, loop, &got), SN_OK);
  ck_assert(got.is_loop);
  ck_assert_int_eq(got.count, 4);
  ck_assert(got.friction == 0.6f && got.category_bits == 1 && got.mask_bits == UINT64_MAX);
  /* the points, bit for bit; capacity 0 gives the count, a smaller one cuts */
  sn_vec2 back[8];
  ck_assert_int_eq(sn_chain_get_points(w, open, NULL, 0), 6);
  ck_assert_int_eq(sn_chain_get_points(w, open, back, 8), 6);
  ck_assert(memcmp(back, open_pts, sizeof open_pts) == 0);
  ck_assert_int_eq(sn_chain_get_points(w, loop, back, 8), 4);
  ck_assert(memcmp(back, loop_pts, sizeof loop_pts) == 0);
  ck_assert_int_eq(sn_chain_get_points(w, open, back, 2), 2);
  ck_assert(memcmp(back, open_pts, 2 * sizeof *back) == 0);
  /* segments know their chain: the box is no segment; 3 + 4 segments follow it */
  sn_shape_id shapes[8];
  ck_assert_int_eq(sn_body_get_shapes(w, ground, shapes, 8), 8);
  ck_assert_int_eq(sn_shape_get_parent_chain(w, box).index1, 0);
  for (int i = 1; i < 8; ++i) {
    sn_chain_id c = sn_shape_get_parent_chain(w, shapes[i]);
    sn_chain_id want = i < 4 ? open : loop;
    ck_assert(c.index1 == want.index1 && c.generation == want.generation && c.world_tag == want.world_tag);
  }
  /* an open chain whose last three points repeat its first three makes the
   * segments of the loop of its middle points, in the same order: it reads
   * as that loop, and that loop makes the same segments again */
  sn_vec2 wrap[6] = {{10, 0}, {11, 0}, {11, 1}, {10, 0}, {11, 0}, {11, 1}};
  sn_chain_def wd = sn_default_chain_def();
  wd.points = wrap;
  wd.count = 6;
  sn_chain_id wrapped = sn_create_chain(w, ground, &wd);
  ck_assert(sn_chain_is_valid(w, wrapped));
  ck_assert_int_eq(sn_chain_get_def(w, wrapped, &got), SN_OK);
  ck_assert(got.is_loop);
  ck_assert_int_eq(got.count, 3);
  ck_assert_int_eq(sn_chain_get_points(w, wrapped, back, 8), 3);
  ck_assert(memcmp(back, wrap + 1, 3 * sizeof *back) == 0);
  /* refusals change nothing */
  world_snapshot snap = take_snapshot(w);
  expect_refused(w, &snap, sn_chain_get_def(w, open, NULL), SN_ERR_NULL, "out is NULL");
  ck_assert_int_eq(sn_chain_get_points(w, open, back, -1), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "negative capacity"));
  ck_assert_int_eq(sn_chain_get_points(w, open, NULL, 3), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "NULL with capacity 3"));
  free_snapshot(&snap);
  ck_assert_int_eq(sn_destroy_chain(w, loop), SN_OK);
  snap = take_snapshot(w);
  expect_refused(w, &snap, sn_chain_get_def(w, loop, &got), SN_ERR_STALE_ID, "chain");
  ck_assert_int_eq(sn_chain_get_points(w, loop, back, 8), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "SN_ERR_STALE_ID"));
  ck_assert_int_eq(sn_chain_get_def(NULL, open, &got), SN_ERR_NULL);
  ck_assert_int_eq(sn_chain_get_points(NULL, open, back, 8), -1);
  ck_assert_int_eq(sn_shape_get_parent_chain(NULL, box).index1, 0);
  ck_assert_int_eq(sn_destroy_shape(w, box, true), SN_OK);
  ck_assert_int_eq(sn_shape_get_parent_chain(w, box).index1, 0);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "SN_ERR_STALE_ID"));
  free_snapshot(&snap);
  sn_destroy_world(w);
}
END_TEST

static bool count_cb(sn_shape_id shape, void *context) {
  (void)shape;
  *(int *)context += 1;
  return true;
}

START_TEST(test_queries_refuse_bad_input) {
  scene s = make_scene(3.0f, false);
  sn_world *w = s.w;
  world_snapshot snap = take_snapshot(w);
  int calls = 0;
  sn_ray_result ray;
  memset(&ray, 0x33, sizeof ray);
  sn_ray_result ray_ref = ray;
  for (int k = 0; k < N_BAD; ++k) {
    float bad = bad_floats[k];
    sn_aabb box = {{bad, -1.0f}, {1.0f, 1.0f}};
    expect_refused(w, &snap, sn_world_overlap_aabb(w, box, sn_default_query_filter(), count_cb, &calls),
                   SN_ERR_NOT_FINITE, "aabb");
    box = (sn_aabb){{-1.0f, -1.0f}, {1.0f, bad}};
    expect_refused(w, &snap, sn_world_overlap_aabb(w, box, sn_default_query_filter(), count_cb, &calls),
                   SN_ERR_NOT_FINITE, "aabb");
    expect_refused(w, &snap, sn_world_query_point(w, (sn_vec2){bad, 0.0f}, count_cb, &calls), SN_ERR_NOT_FINITE,
                   "point");
    expect_refused(
        w, &snap,
        sn_world_cast_ray_closest(w, (sn_vec2){0.0f, bad}, (sn_vec2){0.0f, -5.0f}, sn_default_query_filter(), &ray),
        SN_ERR_NOT_FINITE, "ray");
    expect_refused(
        w, &snap,
        sn_world_cast_ray_closest(w, (sn_vec2){0.0f, 5.0f}, (sn_vec2){bad, -5.0f}, sn_default_query_filter(), &ray),
        SN_ERR_NOT_FINITE, "ray");
  }
  sn_aabb inverted = {{1.0f, 1.0f}, {-1.0f, -1.0f}};
  expect_refused(w, &snap, sn_world_overlap_aabb(w, inverted, sn_default_query_filter(), count_cb, &calls),
                 SN_ERR_INVALID_ARGUMENT, "aabb");
  sn_aabb all = {{-100.0f, -100.0f}, {100.0f, 100.0f}};
  expect_refused(w, &snap, sn_world_overlap_aabb(w, all, sn_default_query_filter(), NULL, NULL), SN_ERR_NULL,
                 "callback");
  expect_refused(w, &snap, sn_world_query_point(w, (sn_vec2){0.0f, 0.0f}, NULL, NULL), SN_ERR_NULL, "callback");
  expect_refused(
      w, &snap,
      sn_world_cast_ray_closest(w, (sn_vec2){0.0f, 5.0f}, (sn_vec2){0.0f, -5.0f}, sn_default_query_filter(), NULL),
      SN_ERR_NULL, "result");
  free_snapshot(&snap);
  ck_assert_int_eq(calls, 0);
  ck_assert_msg(memcmp(&ray, &ray_ref, sizeof ray) == 0, "refused ray cast wrote its result");
  ck_assert_int_eq(sn_world_overlap_aabb(NULL, all, sn_default_query_filter(), count_cb, &calls), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray_closest(NULL, (sn_vec2){0, 0}, (sn_vec2){1, 0}, sn_default_query_filter(), &ray),
                   SN_ERR_NULL);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_null_world_everywhere) {
  const sn_body_id b = {1, 1, 1};
  const sn_shape_id s = {1, 1, 1};
  const sn_chain_id c = {1, 1, 1};
  ck_assert_int_eq(sn_destroy_world(NULL), SN_ERR_NULL);
  ck_assert_ptr_nonnull(sn_world_last_error(NULL));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(NULL), "NULL"));
  ck_assert_int_eq(sn_world_enable_sleeping(NULL, true), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_enable_continuous(NULL, true), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_set_contact_tuning(NULL, 1.0f, 1.0f, 1.0f), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_set_hit_event_threshold(NULL, 1.0f), SN_ERR_NULL);
  sn_world_counters counters = sn_world_get_counters(NULL);
  ck_assert_int_eq(counters.body_count, 0);
  ck_assert_uint_eq(counters.allocated_bytes, 0);
  sn_contact_events events = sn_world_get_contact_events(NULL);
  ck_assert_int_eq(events.begin_count + events.end_count + events.hit_count, 0);
  ck_assert_int_eq(sn_destroy_body(NULL, b), SN_ERR_NULL);
  ck_assert_int_eq(sn_body_is_valid(NULL, b), false);
  ck_assert_int_eq(sn_body_set_linear_velocity(NULL, b, (sn_vec2){1, 0}), SN_ERR_NULL);
  ck_assert_int_eq(sn_body_set_transform(NULL, b, (sn_vec2){1, 0}, 0.0f), SN_ERR_NULL);
  ck_assert_int_eq(sn_body_set_user_data(NULL, b, NULL), SN_ERR_NULL);
  ck_assert_float_eq(sn_body_get_mass(NULL, b), 0.0f);
  ck_assert_int_eq(sn_body_get_shapes(NULL, b, NULL, 0), 0);
  ck_assert_int_eq(sn_destroy_shape(NULL, s, true), SN_ERR_NULL);
  ck_assert_int_eq(sn_shape_is_valid(NULL, s), false);
  ck_assert_int_eq(sn_shape_set_friction(NULL, s, 1.0f), SN_ERR_NULL);
  ck_assert_int_eq(sn_shape_get_body(NULL, s).index1, 0);
  ck_assert_int_eq(sn_destroy_chain(NULL, c), SN_ERR_NULL);
  ck_assert_int_eq(sn_chain_is_valid(NULL, c), false);
  ck_assert_int_eq(sn_world_query_point(NULL, (sn_vec2){0, 0}, count_cb, NULL), SN_ERR_NULL);
}
END_TEST

/* ======================================================================== */
/* 2. Handles                                                                */

START_TEST(test_stale_body_and_shape) {
  scene s = make_scene(3.0f, false);
  sn_world *w = s.w;
  sn_body_id dead = s.box;
  sn_shape_id dead_shape = s.box_shape;
  ck_assert(sn_body_is_valid(w, dead));
  ck_assert(sn_shape_is_valid(w, dead_shape));
  ck_assert_int_eq(sn_destroy_body(w, dead), SN_OK);
  ck_assert(!sn_body_is_valid(w, dead));
  ck_assert(!sn_shape_is_valid(w, dead_shape)); /* shapes die with their body */
  world_snapshot snap = take_snapshot(w);
  expect_refused(w, &snap, sn_destroy_body(w, dead), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_linear_velocity(w, dead, (sn_vec2){1, 0}), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_transform(w, dead, (sn_vec2){1, 0}, 0.0f), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_gravity_scale(w, dead, 0.0f), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_sleep_threshold(w, dead, 0.1f), SN_ERR_STALE_ID, "destroyed");
  ck_assert(sn_body_get_sleep_threshold(w, dead) == 0.0f);
  expect_refused(w, &snap, sn_body_apply_linear_impulse(w, dead, (sn_vec2){1, 0}, (sn_vec2){0, 0}, true),
                 SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_type(w, dead, SN_BODY_STATIC), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_user_data(w, dead, &snap), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_awake(w, dead, true), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_body_set_bullet(w, dead, true), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_destroy_shape(w, dead_shape, true), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_shape_set_friction(w, dead_shape, 0.1f), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_shape_set_density(w, dead_shape, 0.1f, true), SN_ERR_STALE_ID, "destroyed");
  expect_refused(w, &snap, sn_shape_set_user_data(w, dead_shape, &snap), SN_ERR_STALE_ID, "destroyed");
  sn_circle c = {{0, 0}, 0.5f};
  const sn_shape_def sdef = sn_default_shape_def();
  expect_refused_id(w, &snap, sn_create_circle_shape(w, dead, &sdef, &c), SN_ERR_STALE_ID, "destroyed");
  free_snapshot(&snap);
  /* readers answer neutral values */
  ck_assert_float_eq(sn_body_get_mass(w, dead), 0.0f);
  ck_assert_ptr_null(sn_body_get_user_data(w, dead));
  ck_assert_int_eq(sn_body_get_shape_count(w, dead), 0);
  ck_assert_int_eq(sn_shape_get_body(w, dead_shape).index1, 0);
  ck_assert_float_eq(sn_shape_get_friction(w, dead_shape), 0.0f);
  ck_assert(!sn_shape_test_point(w, dead_shape, (sn_vec2){0.0f, 3.0f}));

  /* a shape destroyed on its own goes stale, its body stays */
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 5.0f, 5.0f, 0.0f);
  sn_shape_id s1 = add_circle(w, b, 0.0f, 0.0f, 0.5f);
  ck_assert_int_eq(sn_destroy_shape(w, s1, true), SN_OK);
  ck_assert(!sn_shape_is_valid(w, s1));
  ck_assert(sn_body_is_valid(w, b));
  ck_assert_int_eq(sn_body_get_shape_count(w, b), 0);
  ck_assert_int_eq(sn_shape_set_restitution(w, s1, 0.5f), SN_ERR_STALE_ID);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_reused_slots_get_new_generation) {
  sn_world *w = new_world();
  sn_body_id a = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  sn_shape_id sa = add_circle(w, a, 0.0f, 0.0f, 0.5f);
  ck_assert_int_eq(sn_destroy_body(w, a), SN_OK);
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  sn_shape_id sb = add_circle(w, b, 0.0f, 0.0f, 0.5f);
  ck_assert_int_eq(b.index1, a.index1); /* the slot was reused ... */
  ck_assert_uint_ne(b.generation, a.generation);
  ck_assert_int_eq(sb.index1, sa.index1);
  ck_assert_uint_ne(sb.generation, sa.generation);
  ck_assert(!sn_body_is_valid(w, a)); /* ... and the old ids stay dead */
  ck_assert(sn_body_is_valid(w, b));
  ck_assert(!sn_shape_is_valid(w, sa));
  ck_assert(sn_shape_is_valid(w, sb));
  ck_assert_int_eq(sn_body_set_linear_velocity(w, a, (sn_vec2){3, 0}), SN_ERR_STALE_ID);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, b).x, 0.0f);
  ck_assert_int_eq(sn_shape_set_friction(w, sa, 0.1f), SN_ERR_STALE_ID);
  ck_assert_float_eq(sn_shape_get_friction(w, sb), 0.6f);
  ck_assert(same_body(sn_shape_get_body(w, sb), b));
  /* many cycles: never valid again */
  for (int i = 0; i < 100; ++i) {
    ck_assert_int_eq(sn_destroy_body(w, b), SN_OK);
    b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
    ck_assert(!sn_body_is_valid(w, a));
  }
  ck_assert_int_eq(sn_world_get_counters(w).body_count, 1);

  /* chains: destroy, recreate in the same slot; old chain and segment ids stale */
  sn_body_id ground = add_body(w, SN_BODY_STATIC, 0.0f, -5.0f, 0.0f);
  const sn_vec2 pts[5] = {{-3, 0}, {-2, 0}, {0, 0}, {2, 0}, {3, 0}};
  sn_chain_def cdef = sn_default_chain_def();
  cdef.points = pts;
  cdef.count = 5;
  sn_chain_id c1 = sn_create_chain(w, ground, &cdef);
  ck_assert_int_ne(c1.index1, 0);
  ck_assert(sn_chain_is_valid(w, c1));
  sn_shape_id segs[8];
  ck_assert_int_eq(sn_body_get_shapes(w, ground, segs, 8), 2);
  ck_assert_int_eq(sn_shape_get_type(w, segs[0]), SN_SHAPE_CHAIN_SEGMENT);
  world_snapshot snap = take_snapshot(w);
  expect_refused(w, &snap, sn_destroy_shape(w, segs[0], true), SN_ERR_INVALID_ARGUMENT, "sn_destroy_chain");
  free_snapshot(&snap);
  ck_assert_int_eq(sn_destroy_chain(w, c1), SN_OK);
  ck_assert(!sn_chain_is_valid(w, c1));
  ck_assert(!sn_shape_is_valid(w, segs[0]));
  ck_assert(!sn_shape_is_valid(w, segs[1]));
  ck_assert_int_eq(sn_destroy_chain(w, c1), SN_ERR_STALE_ID);
  assert_last_error(w, SN_ERR_STALE_ID, "destroyed", "sn_destroy_chain twice");
  sn_chain_id c2 = sn_create_chain(w, ground, &cdef);
  ck_assert_int_eq(c2.index1, c1.index1);
  ck_assert_uint_ne(c2.generation, c1.generation);
  ck_assert(!sn_chain_is_valid(w, c1));
  ck_assert(sn_chain_is_valid(w, c2));
  /* destroying the body takes its chain along */
  ck_assert_int_eq(sn_destroy_body(w, ground), SN_OK);
  ck_assert(!sn_chain_is_valid(w, c2));
  ck_assert_int_eq(sn_destroy_chain(w, c2), SN_ERR_STALE_ID);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_foreign_null_and_out_of_range_ids) {
  sn_world *w1 = new_world();
  sn_world *w2 = new_world();
  sn_body_id g1 = add_body(w1, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  sn_body_id b1 = add_body(w1, SN_BODY_DYNAMIC, 0.0f, 2.0f, 0.0f);
  sn_shape_id s1 = add_circle(w1, b1, 0.0f, 0.0f, 0.5f);
  const sn_vec2 pts[4] = {{-3, 0}, {-2, 0}, {2, 0}, {3, 0}};
  sn_chain_def cdef = sn_default_chain_def();
  cdef.points = pts;
  cdef.count = 4;
  sn_chain_id c1 = sn_create_chain(w1, g1, &cdef);
  /* the same slots exist in w2, so only the world tag can tell them apart */
  sn_body_id g2 = add_body(w2, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  sn_body_id b2 = add_body(w2, SN_BODY_DYNAMIC, 0.0f, 2.0f, 0.0f);
  sn_shape_id s2 = add_circle(w2, b2, 0.0f, 0.0f, 0.5f);
  sn_chain_id c2 = sn_create_chain(w2, g2, &cdef);
  ck_assert_int_eq(b1.index1, b2.index1);
  ck_assert_int_eq(s1.index1, s2.index1);
  ck_assert_int_eq(c1.index1, c2.index1);
  ck_assert_uint_ne(b1.world_tag, b2.world_tag);
  ck_assert_uint_ne(b1.world_tag, 0);

  world_snapshot snap = take_snapshot(w2);
  ck_assert(!sn_body_is_valid(w2, b1));
  ck_assert(!sn_shape_is_valid(w2, s1));
  ck_assert(!sn_chain_is_valid(w2, c1));
  expect_refused(w2, &snap, sn_body_set_linear_velocity(w2, b1, (sn_vec2){1, 0}), SN_ERR_FOREIGN_ID, "world");
  expect_refused(w2, &snap, sn_destroy_body(w2, b1), SN_ERR_FOREIGN_ID, "world");
  expect_refused(w2, &snap, sn_shape_set_friction(w2, s1, 0.1f), SN_ERR_FOREIGN_ID, "world");
  expect_refused(w2, &snap, sn_destroy_shape(w2, s1, true), SN_ERR_FOREIGN_ID, "world");
  expect_refused(w2, &snap, sn_destroy_chain(w2, c1), SN_ERR_FOREIGN_ID, "world");
  const sn_shape_def sdef = sn_default_shape_def();
  sn_circle circle = {{0, 0}, 0.5f};
  expect_refused_id(w2, &snap, sn_create_circle_shape(w2, b1, &sdef, &circle), SN_ERR_FOREIGN_ID, "world");
  expect_refused_id(w2, &snap, sn_create_chain(w2, g1, &cdef), SN_ERR_FOREIGN_ID, "world");

  /* null ids */
  expect_refused(w2, &snap, sn_destroy_body(w2, SN_NULL_BODY), SN_ERR_STALE_ID, "null body id");
  expect_refused(w2, &snap, sn_body_set_gravity_scale(w2, SN_NULL_BODY, 1.0f), SN_ERR_STALE_ID, "null body id");
  expect_refused(w2, &snap, sn_shape_set_density(w2, SN_NULL_SHAPE, 1.0f, true), SN_ERR_STALE_ID, "null shape id");
  expect_refused(w2, &snap, sn_destroy_chain(w2, SN_NULL_CHAIN), SN_ERR_STALE_ID, "null chain id");
  expect_refused_id(w2, &snap, sn_create_circle_shape(w2, SN_NULL_BODY, &sdef, &circle), SN_ERR_STALE_ID, "null");
  ck_assert(!sn_body_is_valid(w2, SN_NULL_BODY));
  ck_assert(!sn_shape_is_valid(w2, SN_NULL_SHAPE));
  ck_assert(!sn_chain_is_valid(w2, SN_NULL_CHAIN));

  /* this world's tag, but no such slot */
  sn_body_id far = b2;
  far.index1 = 1000;
  sn_body_id negative = b2;
  negative.index1 = -4;
  sn_shape_id far_shape = s2;
  far_shape.index1 = 77;
  sn_chain_id far_chain = c2;
  far_chain.index1 = 2;
  ck_assert(!sn_body_is_valid(w2, far));
  ck_assert(!sn_body_is_valid(w2, negative));
  ck_assert(!sn_shape_is_valid(w2, far_shape));
  ck_assert(!sn_chain_is_valid(w2, far_chain));
  expect_refused(w2, &snap, sn_body_set_angular_velocity(w2, far, 1.0f), SN_ERR_FOREIGN_ID, "1000");
  expect_refused(w2, &snap, sn_body_set_angular_velocity(w2, negative, 1.0f), SN_ERR_FOREIGN_ID, "-4");
  expect_refused(w2, &snap, sn_shape_set_friction(w2, far_shape, 1.0f), SN_ERR_FOREIGN_ID, "77");
  expect_refused(w2, &snap, sn_destroy_chain(w2, far_chain), SN_ERR_FOREIGN_ID, "world");
  /* right slot, wrong generation */
  sn_body_id wrong_gen = b2;
  wrong_gen.generation = (uint16_t)(b2.generation + 1u);
  expect_refused(w2, &snap, sn_body_set_angular_velocity(w2, wrong_gen, 1.0f), SN_ERR_STALE_ID, "destroyed");
  free_snapshot(&snap);

  /* both worlds still fine and independent */
  ck_assert(sn_body_is_valid(w1, b1));
  ck_assert(sn_body_is_valid(w2, b2));
  ck_assert_int_eq(sn_body_set_linear_velocity(w1, b1, (sn_vec2){2, 0}), SN_OK);
  ck_assert_float_eq(sn_body_get_linear_velocity(w2, b2).x, 0.0f);
  ck_assert_int_eq(sn_destroy_world(w1), SN_OK);
  step_n(w2, 10);
  ck_assert(sn_body_is_valid(w2, b2));
  ck_assert_int_eq(sn_destroy_world(w2), SN_OK);
}
END_TEST

/* ======================================================================== */
/* 3. Memory                                                                 */

/// What a scenario created; ids are kept to check them afterwards.
typedef struct scenario {
  sn_body_id bodies[32];
  int32_t shapes_per_body[32];
  bool dynamic[32];
  int body_count;
  int shape_count;
  int chain_segments;
  sn_chain_id chain;
  int oom_failures;
  bool ground_box; ///< the ground body and its box exist
} scenario;

/// Records a creation outcome: success, or a refusal that must be OOM.
static bool created(sn_world *w, int32_t index1, scenario *sc, const char *what) {
  if (index1 != 0) return true;
  const char *msg = sn_world_last_error(w);
  ck_assert_msg(strstr(msg, "SN_ERR_OUT_OF_MEMORY") != NULL, "%s failed for another reason: %s", what, msg);
  sc->oom_failures++;
  return false;
}

/// Ground box, a static chain (9 segments, grows the static tree), and 14
/// dynamic bodies with 1-2 shapes each (grows the dynamic tree).
static void build_scenario(sn_world *w, scenario *sc) {
  memset(sc, 0, sizeof *sc);
  sn_body_def bdef = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &bdef);
  if (created(w, ground.index1, sc, "ground body")) {
    sc->bodies[sc->body_count++] = ground;
    sn_polygon box;
    ck_assert_int_eq(sn_make_box(20.0f, 0.5f, &box), SN_OK);
    sn_shape_def sdef = sn_default_shape_def();
    if (created(w, sn_create_polygon_shape(w, ground, &sdef, &box).index1, sc, "ground shape")) {
      sc->ground_box = true;
      sc->shape_count++;
      sc->shapes_per_body[sc->body_count - 1]++;
    }
    /* chain far below the ground: right-to-left so its solid side is down */
    sn_vec2 pts[12];
    for (int i = 0; i < 12; ++i) pts[i] = (sn_vec2){30.0f - 5.0f * (float)i, -20.0f + 0.2f * (float)(i % 2)};
    sn_chain_def cdef = sn_default_chain_def();
    cdef.points = pts;
    cdef.count = 12;
    sc->chain = sn_create_chain(w, ground, &cdef);
    if (created(w, sc->chain.index1, sc, "chain")) {
      sc->chain_segments = 9;
      sc->shape_count += 9;
      sc->shapes_per_body[sc->body_count - 1] += 9;
    }
  }
  /* a static body turned kinematic: its proxies move to the other tree */
  bdef = sn_default_body_def();
  bdef.position = (sn_vec2){100.0f, 0.0f};
  sn_body_id platform = sn_create_body(w, &bdef);
  if (created(w, platform.index1, sc, "platform")) {
    int slot = sc->body_count++;
    sc->bodies[slot] = platform;
    sn_shape_def sdef = sn_default_shape_def();
    for (int k = 0; k < 12; ++k) {
      sn_circle c = {{(float)k, 0.0f}, 0.4f};
      if (created(w, sn_create_circle_shape(w, platform, &sdef, &c).index1, sc, "platform shape")) {
        sc->shape_count++;
        sc->shapes_per_body[slot]++;
      }
    }
    sn_result r = sn_body_set_type(w, platform, SN_BODY_KINEMATIC);
    ck_assert_msg(r == SN_OK || r == SN_ERR_OUT_OF_MEMORY, "sn_body_set_type: %s", sn_result_name(r));
    if (r != SN_OK) {
      assert_last_error(w, SN_ERR_OUT_OF_MEMORY, NULL, "sn_body_set_type");
      ck_assert_int_eq(sn_body_get_type(w, platform), SN_BODY_STATIC);
    } else {
      ck_assert_int_eq(sn_body_get_type(w, platform), SN_BODY_KINEMATIC);
    }
  }
  for (int i = 0; i < 14; ++i) {
    bdef = sn_default_body_def();
    bdef.type = SN_BODY_DYNAMIC;
    bdef.position = (sn_vec2){-13.0f + 2.0f * (float)i, 1.2f + 0.4f * (float)(i % 3)};
    sn_body_id b = sn_create_body(w, &bdef);
    if (!created(w, b.index1, sc, "dynamic body")) continue;
    int slot = sc->body_count++;
    sc->bodies[slot] = b;
    sc->dynamic[slot] = true;
    sn_shape_def sdef = sn_default_shape_def();
    sn_shape_id s;
    if (i % 3 == 0) {
      sn_polygon box;
      ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
      s = sn_create_polygon_shape(w, b, &sdef, &box);
    } else if (i % 3 == 1) {
      sn_circle c = {{0.0f, 0.0f}, 0.5f};
      s = sn_create_circle_shape(w, b, &sdef, &c);
    } else {
      sn_capsule cap = {{-0.4f, 0.0f}, {0.4f, 0.0f}, 0.3f};
      s = sn_create_capsule_shape(w, b, &sdef, &cap);
    }
    if (created(w, s.index1, sc, "dynamic shape")) {
      sc->shape_count++;
      sc->shapes_per_body[slot]++;
    }
    if (i % 4 == 0) {
      sn_circle head = {{0.0f, 0.6f}, 0.25f};
      if (created(w, sn_create_circle_shape(w, b, &sdef, &head).index1, sc, "second shape")) {
        sc->shape_count++;
        sc->shapes_per_body[slot]++;
      }
    }
  }
}

static bool collect_cb(sn_shape_id shape, void *context) {
  int *n = context;
  (void)shape;
  *n += 1;
  return true;
}

START_TEST(test_allocator_counts_to_zero) {
  counting_allocator ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.budget = -1;
  ctx.fail_at = -1;
  sn_result r = SN_ERR_NULL;
  sn_world *w = counted_world(&ctx, &r);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(r, SN_OK);
  /* Relation: every engine byte, the world object included, goes through the
   * user allocator, so the world's live counter equals ours exactly. */
  ck_assert_uint_gt(ctx.bytes, sizeof(sn_world) - 1);
  ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, ctx.bytes);
  scenario sc;
  build_scenario(w, &sc);
  ck_assert_int_eq(sc.oom_failures, 0);
  ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, ctx.bytes);
  int max_touching = 0;
  for (int i = 0; i < 100; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, ctx.bytes);
    int t = sn_world_get_counters(w).touching_contact_count;
    if (t > max_touching) max_touching = t;
  }
  ck_assert_int_ge(max_touching, 10); /* the bodies landed: contacts existed */
  /* destroy some bodies (with contacts), a shape, then keep going */
  for (int i = 2; i < sc.body_count; i += 3) ck_assert_int_eq(sn_destroy_body(w, sc.bodies[i]), SN_OK);
  sn_shape_id first[2];
  ck_assert_int_ge(sn_body_get_shapes(w, sc.bodies[1], first, 2), 1);
  ck_assert_int_eq(sn_destroy_shape(w, first[0], true), SN_OK);
  ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, ctx.bytes);
  step_n(w, 20);
  ck_assert_int_eq(sn_destroy_chain(w, sc.chain), SN_OK);
  step_n(w, 5);
  ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, ctx.bytes);
  ck_assert_uint_gt(ctx.blocks, 0);
  ck_assert_int_eq(sn_destroy_world(w), SN_OK);
  ck_assert_uint_eq(ctx.bytes, 0);
  ck_assert_uint_eq(ctx.blocks, 0);
  ck_assert_msg(!ctx.bad_free, "a free got another size than its allocation (or NULL)");
  ck_assert_uint_eq(ctx.failures, 0);
}
END_TEST

/// One run with an allocator that fails (from allocation n on, or only at
/// allocation n). Creation must fail cleanly, stepping must not crash, and
/// once memory is back the world must work and be consistent.
static void run_failing(long n, bool one_shot) {
  counting_allocator ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.budget = one_shot ? -1 : n;
  ctx.fail_at = one_shot ? n : -1;
  sn_result r = SN_OK;
  sn_world *w = counted_world(&ctx, &r);
  if (w == NULL) {
    ck_assert_msg(r == SN_ERR_OUT_OF_MEMORY, "n=%ld: sn_create_world: %s", n, sn_result_name(r));
    ck_assert_msg(ctx.bytes == 0 && ctx.blocks == 0, "n=%ld: failed world creation leaked %zu bytes", n, ctx.bytes);
    return;
  }
  scenario sc;
  build_scenario(w, &sc);
  sn_world_counters c = sn_world_get_counters(w);
  ck_assert_msg(c.body_count == sc.body_count, "n=%ld: %d bodies counted, %d created", n, c.body_count, sc.body_count);
  ck_assert_msg(c.shape_count == sc.shape_count, "n=%ld: %d shapes counted, %d created", n, c.shape_count,
                sc.shape_count);
  ck_assert_msg(c.allocated_bytes == ctx.bytes, "n=%ld: counter %zu, allocator %zu", n, c.allocated_bytes, ctx.bytes);
  /* a step that runs out of memory says so and does not move anything
   * (tests/test_step_oom.c checks every byte) */
  for (int i = 0; i < 20; ++i) {
    sn_vec2 before[32];
    for (int k = 0; k < sc.body_count; ++k) before[k] = sn_body_get_position(w, sc.bodies[k]);
    r = sn_world_step(w, DT);
    ck_assert_msg(r == SN_OK || r == SN_ERR_OUT_OF_MEMORY, "n=%ld: sn_world_step: %s", n, sn_result_name(r));
    if (r == SN_OK) continue;
    assert_last_error(w, SN_ERR_OUT_OF_MEMORY, "sn_world_step", "sn_world_step");
    for (int k = 0; k < sc.body_count; ++k) {
      sn_vec2 p = sn_body_get_position(w, sc.bodies[k]);
      ck_assert_msg(p.x == before[k].x && p.y == before[k].y, "n=%ld: a failed step moved body %d", n, k);
    }
  }
  /* memory is back */
  ctx.budget = -1;
  ctx.fail_at = -1;
  for (int i = 0; i < 90; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  c = sn_world_get_counters(w);
  ck_assert_int_eq(c.body_count, sc.body_count);
  ck_assert_int_eq(c.shape_count, sc.shape_count);
  ck_assert_msg(c.allocated_bytes == ctx.bytes, "n=%ld: counter %zu, allocator %zu", n, c.allocated_bytes, ctx.bytes);
  /* every created shape is in the broadphase: a query over everything sees it */
  int seen = 0;
  sn_aabb all = {{-1000.0f, -1000.0f}, {1000.0f, 1000.0f}};
  ck_assert_int_eq(sn_world_overlap_aabb(w, all, sn_default_query_filter(), collect_cb, &seen), SN_OK);
  ck_assert_msg(seen == sc.shape_count, "n=%ld (%s): the broadphase holds %d of %d shapes", n,
                one_shot ? "one-shot" : "from then on", seen, sc.shape_count);
  /* bodies rest on the ground if both it and they have shapes */
  for (int i = 0; i < sc.body_count; ++i) {
    sn_vec2 p = sn_body_get_position(w, sc.bodies[i]);
    ck_assert_msg(isfinite(p.x) && isfinite(p.y), "n=%ld: body %d is not finite", n, i);
    if (sc.ground_box && sc.dynamic[i] && sc.shapes_per_body[i] > 0)
      ck_assert_msg(p.y > 0.0f && p.y < 2.5f, "n=%ld (%s): body %d at y = %g, not on the ground", n,
                    one_shot ? "one-shot" : "from then on", i, (double)p.y);
  }
  ck_assert_int_eq(sn_destroy_world(w), SN_OK);
  ck_assert_msg(ctx.bytes == 0 && ctx.blocks == 0, "n=%ld: %zu bytes in %zu blocks leaked", n, ctx.bytes, ctx.blocks);
  ck_assert(!ctx.bad_free);
}

START_TEST(test_allocator_failures) {
  /* how many allocations the whole run makes without failures */
  counting_allocator probe;
  memset(&probe, 0, sizeof probe);
  probe.budget = -1;
  probe.fail_at = -1;
  sn_world *w = counted_world(&probe, NULL);
  ck_assert_ptr_nonnull(w);
  scenario sc;
  build_scenario(w, &sc);
  step_n(w, 110);
  long total = (long)probe.allocations;
  sn_destroy_world(w);
  ck_assert_int_gt(total, 10);
  for (long n = 0; n <= total + 1; ++n) {
    run_failing(n, false);
    run_failing(n, true);
  }
}
END_TEST

START_TEST(test_default_allocator_counter) {
  sn_world *w = new_world();
  size_t empty = sn_world_get_counters(w).allocated_bytes;
  ck_assert_uint_ge(empty, sizeof(sn_world));
  sn_body_id bodies[40];
  for (int i = 0; i < 40; ++i) {
    bodies[i] = add_body(w, SN_BODY_DYNAMIC, (float)i, 0.0f, 0.0f);
    add_circle(w, bodies[i], 0.0f, 0.0f, 0.4f);
  }
  size_t full = sn_world_get_counters(w).allocated_bytes;
  ck_assert_uint_gt(full, empty);
  ck_assert_int_eq(sn_world_get_counters(w).body_count, 40);
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, 40);
  sn_destroy_world(w);
}
END_TEST

/* ======================================================================== */
/* 4. Queries                                                                */

/// Static box (4..6, -1..1); dynamic circle r 0.5 at (2, 3); kinematic box
/// 2 x 1 rotated 90 degrees at (0, 10) (world extents x -1..1, y 8..12);
/// static vertical capsule at (-5, 0) from y -1 to 1, radius 0.5.
typedef struct query_scene {
  sn_world *w;
  sn_shape_id box, circle, rotated, capsule;
} query_scene;

static query_scene make_query_scene(void) {
  query_scene q;
  q.w = new_world();
  q.box = add_box(q.w, add_body(q.w, SN_BODY_STATIC, 5.0f, 0.0f, 0.0f), 1.0f, 1.0f, 1.0f);
  q.circle = add_circle(q.w, add_body(q.w, SN_BODY_DYNAMIC, 2.0f, 3.0f, 0.0f), 0.0f, 0.0f, 0.5f);
  q.rotated = add_box(q.w, add_body(q.w, SN_BODY_KINEMATIC, 0.0f, 10.0f, 0.5f * PI_F), 2.0f, 1.0f, 1.0f);
  sn_body_id cb = add_body(q.w, SN_BODY_STATIC, -5.0f, 0.0f, 0.0f);
  sn_capsule cap = {{0.0f, -1.0f}, {0.0f, 1.0f}, 0.5f};
  sn_shape_def def = sn_default_shape_def();
  q.capsule = sn_create_capsule_shape(q.w, cb, &def, &cap);
  ck_assert_int_ne(q.capsule.index1, 0);
  return q;
}

static void assert_ray(sn_world *w, sn_vec2 origin, sn_vec2 translation, sn_shape_id shape, sn_vec2 point,
                       sn_vec2 normal, float fraction) {
  sn_ray_result r;
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(sn_world_cast_ray_closest(w, origin, translation, sn_default_query_filter(), &r), SN_OK);
  ck_assert_msg(r.hit, "ray from (%g, %g) missed", (double)origin.x, (double)origin.y);
  ck_assert_msg(same_shape(r.shape, shape), "ray from (%g, %g) hit shape %d, expected %d", (double)origin.x,
                (double)origin.y, (int)r.shape.index1, (int)shape.index1);
  ck_assert_near(r.point.x, point.x, 1e-4f);
  ck_assert_near(r.point.y, point.y, 1e-4f);
  ck_assert_near(r.normal.x, normal.x, 1e-4f);
  ck_assert_near(r.normal.y, normal.y, 1e-4f);
  ck_assert_near(r.fraction, fraction, 1e-5f);
}

static void assert_ray_miss(sn_world *w, sn_vec2 origin, sn_vec2 translation) {
  sn_ray_result r;
  memset(&r, 0x11, sizeof r);
  ck_assert_int_eq(sn_world_cast_ray_closest(w, origin, translation, sn_default_query_filter(), &r), SN_OK);
  ck_assert_msg(!r.hit, "ray from (%g, %g) along (%g, %g) hit shape %d", (double)origin.x, (double)origin.y,
                (double)translation.x, (double)translation.y, (int)r.shape.index1);
  ck_assert_int_eq(r.shape.index1, 0);
}

START_TEST(test_ray_cast_closest) {
  query_scene q = make_query_scene();
  sn_world *w = q.w;
  assert_ray(w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, q.box, (sn_vec2){4, 0}, (sn_vec2){-1, 0}, 0.4f);
  assert_ray(w, (sn_vec2){2, 0}, (sn_vec2){0, 10}, q.circle, (sn_vec2){2, 2.5f}, (sn_vec2){0, -1}, 0.25f);
  assert_ray(w, (sn_vec2){0, 0}, (sn_vec2){0, 20}, q.rotated, (sn_vec2){0, 8}, (sn_vec2){0, -1}, 0.4f);
  assert_ray(w, (sn_vec2){0, 0}, (sn_vec2){-10, 0}, q.capsule, (sn_vec2){-4.5f, 0}, (sn_vec2){1, 0}, 0.45f);
  /* the capsule's rounded end: straight down onto its top */
  assert_ray(w, (sn_vec2){-5, 4}, (sn_vec2){0, -4}, q.capsule, (sn_vec2){-5, 1.5f}, (sn_vec2){0, 1}, 0.625f);
  /* two shapes on the line: the closer one wins, from either side */
  assert_ray(w, (sn_vec2){-10, 0}, (sn_vec2){20, 0}, q.capsule, (sn_vec2){-5.5f, 0}, (sn_vec2){-1, 0}, 0.225f);
  assert_ray(w, (sn_vec2){10, 0}, (sn_vec2){-20, 0}, q.box, (sn_vec2){6, 0}, (sn_vec2){1, 0}, 0.2f);
  /* diagonal onto the circle: hit at centre - r * d */
  const float h = 0.70710678f;
  float frac = (3.0f * 1.41421356f - 0.5f) / (5.0f * 1.41421356f);
  assert_ray(w, (sn_vec2){-1, 0}, (sn_vec2){5, 5}, q.circle, (sn_vec2){2 - 0.5f * h, 3 - 0.5f * h}, (sn_vec2){-h, -h},
             frac);
  /* misses: wrong direction, too short, passing beside */
  assert_ray_miss(w, (sn_vec2){0, 0}, (sn_vec2){0, -10});
  assert_ray_miss(w, (sn_vec2){0, 0}, (sn_vec2){3.9f, 0});
  assert_ray_miss(w, (sn_vec2){0, 1.2f}, (sn_vec2){10, 0});
  assert_ray_miss(w, (sn_vec2){1.1f, 0}, (sn_vec2){0, 20});
  /* a zero-length ray hits nothing */
  assert_ray_miss(w, (sn_vec2){0, 0}, (sn_vec2){0, 0});
  /* moving a body moves its hit */
  sn_body_id box_body = sn_shape_get_body(w, q.box);
  ck_assert_int_eq(sn_body_set_transform(w, box_body, (sn_vec2){7, 0}, 0.0f), SN_OK);
  assert_ray(w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, q.box, (sn_vec2){6, 0}, (sn_vec2){-1, 0}, 0.6f);
  sn_destroy_world(w);
}
END_TEST

typedef struct seen_shapes {
  sn_shape_id ids[MAX_SEEN];
  int count;
  int stop_after; ///< 0: never stop
} seen_shapes;

static bool seen_cb(sn_shape_id shape, void *context) {
  seen_shapes *s = context;
  if (s->count < MAX_SEEN) s->ids[s->count] = shape;
  s->count++;
  return s->stop_after == 0 || s->count < s->stop_after;
}

/// The shapes seen are exactly expected (as a set, each once).
static void assert_seen_exactly(const seen_shapes *s, const sn_shape_id *expected, int n, const char *what) {
  ck_assert_msg(s->count == n, "%s: %d shapes reported, expected %d", what, s->count, n);
  for (int i = 0; i < n; ++i) {
    int found = 0;
    for (int j = 0; j < s->count; ++j) found += same_shape(s->ids[j], expected[i]);
    ck_assert_msg(found == 1, "%s: expected shape %d reported %d times", what, (int)expected[i].index1, found);
  }
}

static seen_shapes overlap(sn_world *w, float x0, float y0, float x1, float y1, int stop_after) {
  seen_shapes s;
  memset(&s, 0, sizeof s);
  s.stop_after = stop_after;
  ck_assert_int_eq(sn_world_overlap_aabb(w, (sn_aabb){{x0, y0}, {x1, y1}}, sn_default_query_filter(), seen_cb, &s),
                   SN_OK);
  return s;
}

static seen_shapes at_point(sn_world *w, float x, float y, int stop_after) {
  seen_shapes s;
  memset(&s, 0, sizeof s);
  s.stop_after = stop_after;
  ck_assert_int_eq(sn_world_query_point(w, (sn_vec2){x, y}, seen_cb, &s), SN_OK);
  return s;
}

START_TEST(test_overlap_aabb) {
  query_scene q = make_query_scene();
  sn_world *w = q.w;
  seen_shapes s = overlap(w, 3.0f, -0.5f, 7.0f, 0.5f, 0);
  assert_seen_exactly(&s, &q.box, 1, "box region");
  s = overlap(w, -6.0f, -2.0f, 3.0f, 4.0f, 0);
  const sn_shape_id left[2] = {q.capsule, q.circle};
  assert_seen_exactly(&s, left, 2, "left region");
  s = overlap(w, -100.0f, -100.0f, 100.0f, 100.0f, 0);
  const sn_shape_id all[4] = {q.box, q.circle, q.rotated, q.capsule};
  assert_seen_exactly(&s, all, 4, "everything");
  s = overlap(w, 10.0f, 10.0f, 11.0f, 11.0f, 0);
  assert_seen_exactly(&s, NULL, 0, "empty region");
  /* the rotated box spans y 8..12 but only x -1..1 */
  s = overlap(w, 1.5f, 7.0f, 3.0f, 13.0f, 0);
  assert_seen_exactly(&s, NULL, 0, "beside the rotated box");
  s = overlap(w, 0.5f, 11.5f, 0.6f, 11.6f, 0);
  assert_seen_exactly(&s, &q.rotated, 1, "inside the rotated box");
  /* a point-sized box is fine */
  s = overlap(w, 5.0f, 0.0f, 5.0f, 0.0f, 0);
  assert_seen_exactly(&s, &q.box, 1, "degenerate box");
  /* early stop */
  s = overlap(w, -100.0f, -100.0f, 100.0f, 100.0f, 1);
  ck_assert_int_eq(s.count, 1);
  s = overlap(w, -100.0f, -100.0f, 100.0f, 100.0f, 3);
  ck_assert_int_eq(s.count, 3);
  /* destroyed shapes are gone from queries */
  ck_assert_int_eq(sn_destroy_shape(w, q.circle, true), SN_OK);
  s = overlap(w, -6.0f, -2.0f, 3.0f, 4.0f, 0);
  assert_seen_exactly(&s, &q.capsule, 1, "after destroying the circle");
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_query_point) {
  query_scene q = make_query_scene();
  sn_world *w = q.w;
  typedef struct probe {
    float x, y;
    int shape; /* index in ids, -1 = none */
  } probe;
  const sn_shape_id ids[4] = {q.box, q.circle, q.rotated, q.capsule};
  const probe probes[] = {
      {2.3f, 3.3f, 1},    {2.4f, 3.4f, -1},   {2.0f, 3.0f, 1},    /* circle: r 0.42 in, 0.57 out */
      {5.9f, 0.9f, 0},    {6.1f, 0.0f, -1},   {5.0f, -0.99f, 0},  /* box */
      {0.9f, 11.9f, 2},   {1.1f, 10.0f, -1},  {0.0f, 7.9f, -1},   /* rotated box: x -1..1, y 8..12 */
      {-5.0f, 1.4f, 3},   {-5.4f, 1.4f, -1},  {-5.45f, 0.0f, 3},  /* capsule: cap and side */
      {-5.55f, 0.0f, -1}, {-5.0f, -1.45f, 3}, {-5.0f, -1.6f, -1}, /* capsule: other cap */
  };
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; ++i) {
    const probe *p = probes + i;
    seen_shapes s = at_point(w, p->x, p->y, 0);
    char what[64];
    snprintf(what, sizeof what, "point (%g, %g)", (double)p->x, (double)p->y);
    assert_seen_exactly(&s, p->shape >= 0 ? ids + p->shape : NULL, p->shape >= 0 ? 1 : 0, what);
    for (int k = 0; k < 4; ++k) {
      bool inside = sn_shape_test_point(w, ids[k], (sn_vec2){p->x, p->y});
      ck_assert_msg(inside == (k == p->shape), "%s: sn_shape_test_point(shape %d) = %d", what, k, inside);
    }
  }
  /* overlapping shapes: both reported, or one with an early stop */
  sn_body_id b = add_body(w, SN_BODY_STATIC, 20.0f, 0.0f, 0.0f);
  sn_shape_id c1 = add_circle(w, b, 0.0f, 0.0f, 1.0f);
  sn_shape_id c2 = add_circle(w, b, 0.5f, 0.0f, 1.0f);
  const sn_shape_id both[2] = {c1, c2};
  seen_shapes s = at_point(w, 20.25f, 0.0f, 0);
  assert_seen_exactly(&s, both, 2, "overlap of two circles");
  s = at_point(w, 20.25f, 0.0f, 1);
  ck_assert_int_eq(s.count, 1);
  sn_destroy_world(w);
}
END_TEST

/* ======================================================================== */
/* 5. Events                                                                 */

typedef struct event_log {
  int begin, end, hit;
  sn_contact_begin_event first_begin;
  sn_contact_end_event first_end;
  sn_contact_hit_event first_hit;
} event_log;

static void log_events(sn_world *w, event_log *log) {
  sn_contact_events e = sn_world_get_contact_events(w);
  if (e.begin_count > 0 && log->begin == 0) log->first_begin = e.begin_events[0];
  if (e.end_count > 0 && log->end == 0) log->first_end = e.end_events[0];
  if (e.hit_count > 0 && log->hit == 0) log->first_hit = e.hit_events[0];
  log->begin += e.begin_count;
  log->end += e.end_count;
  log->hit += e.hit_count;
}

static void step_logged(sn_world *w, int n, event_log *log) {
  for (int i = 0; i < n; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    log_events(w, log);
  }
}

START_TEST(test_drop_begin_hit_end) {
  /* box bottom starts h = 2 m above the ground top (y = 0.5) */
  const float h = 2.0f;
  scene s = make_scene(1.0f + h, true);
  sn_world *w = s.w;
  event_log log;
  memset(&log, 0, sizeof log);
  step_logged(w, 120, &log);
  ck_assert_int_eq(log.begin, 1);
  ck_assert(same_pair(log.first_begin.shape_a, log.first_begin.shape_b, s.ground_shape, s.box_shape));
  ck_assert_int_eq(log.end, 0);
  ck_assert_int_eq(log.hit, 1);
  ck_assert(same_pair(log.first_hit.shape_a, log.first_hit.shape_b, s.ground_shape, s.box_shape));
  /* Approach speed of free fall through h: sqrt(2 g h) = 6.32 m/s. The speed
   * is sampled at the start of the step that resolves the impact, which may
   * begin up to one step of fall before touching: tolerance g dt (0.17 m/s)
   * plus 0.05 for the integrator. */
  float expected = sqrtf(2.0f * 10.0f * h);
  ck_assert_near(log.first_hit.approach_speed, expected, 10.0f * DT + 0.05f);
  /* normal from a to b; point on the ground top under the box */
  float sign = same_shape(log.first_hit.shape_a, s.ground_shape) ? 1.0f : -1.0f;
  ck_assert_near(log.first_hit.normal.x, 0.0f, 1e-3f);
  ck_assert_near(log.first_hit.normal.y, sign, 1e-3f);
  ck_assert_near(log.first_hit.point.y, 0.5f, 0.05f);
  ck_assert_float_le(fabsf(log.first_hit.point.x), 0.5f + 1e-3f);
  /* the box rests on the ground */
  ck_assert_near(sn_body_get_position(w, s.box).y, 1.0f, 0.02f);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 1);

  /* lift it far away: exactly one end event for the same pair */
  ck_assert_int_eq(sn_body_set_transform(w, s.box, (sn_vec2){0.0f, 50.0f}, 0.0f), SN_OK);
  memset(&log, 0, sizeof log);
  step_logged(w, 1, &log);
  ck_assert_int_eq(log.end, 1);
  ck_assert(same_pair(log.first_end.shape_a, log.first_end.shape_b, s.ground_shape, s.box_shape));
  step_logged(w, 30, &log);
  ck_assert_int_eq(log.begin, 0);
  ck_assert_int_eq(log.end, 1);
  ck_assert_int_eq(log.hit, 0);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_hit_events_opt_in_and_threshold) {
  /* without enable_hit_events: begin but no hit */
  scene s = make_scene(3.0f, false);
  event_log log;
  memset(&log, 0, sizeof log);
  step_logged(s.w, 90, &log);
  ck_assert_int_eq(log.begin, 1);
  ck_assert_int_eq(log.hit, 0);
  sn_destroy_world(s.w);
  /* with a threshold above the impact speed: no hit either */
  s = make_scene(3.0f, true);
  ck_assert_int_eq(sn_world_set_hit_event_threshold(s.w, 10.0f), SN_OK);
  memset(&log, 0, sizeof log);
  step_logged(s.w, 90, &log);
  ck_assert_int_eq(log.begin, 1);
  ck_assert_int_eq(log.hit, 0);
  sn_destroy_world(s.w);
  /* contact events off on both shapes: no begin */
  sn_world *w = new_world();
  sn_shape_def def = sn_default_shape_def();
  def.enable_contact_events = false;
  sn_polygon ground_box, box;
  ck_assert_int_eq(sn_make_box(10.0f, 0.5f, &ground_box), SN_OK);
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  ck_assert_int_ne(sn_create_polygon_shape(w, add_body(w, SN_BODY_STATIC, 0, 0, 0), &def, &ground_box).index1, 0);
  ck_assert_int_ne(sn_create_polygon_shape(w, add_body(w, SN_BODY_DYNAMIC, 0, 2, 0), &def, &box).index1, 0);
  memset(&log, 0, sizeof log);
  step_logged(w, 90, &log);
  ck_assert_int_eq(log.begin, 0);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 1);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_destroy_emits_end_event) {
  scene s = make_scene(1.5f, false);
  sn_world *w = s.w;
  event_log log;
  memset(&log, 0, sizeof log);
  step_logged(w, 60, &log);
  ck_assert_int_eq(log.begin, 1);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 1);
  /* destroy the touching body; the end event is reported with the next step's
   * events (it happened between steps), naming the shape that was destroyed */
  sn_shape_id box_shape = s.box_shape;
  ck_assert_int_eq(sn_destroy_body(w, s.box), SN_OK);
  memset(&log, 0, sizeof log);
  step_logged(w, 1, &log);
  ck_assert_int_eq(log.end, 1);
  ck_assert(same_pair(log.first_end.shape_a, log.first_end.shape_b, s.ground_shape, box_shape));
  /* and only once */
  step_logged(w, 5, &log);
  ck_assert_int_eq(log.end, 1);

  /* the same for a shape destroyed on its own, on a sleeping body */
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 3.0f, 1.0f, 0.0f);
  sn_shape_id bs = add_box(w, b, 0.5f, 0.5f, 1.0f);
  memset(&log, 0, sizeof log);
  step_logged(w, 120, &log);
  ck_assert_int_eq(log.begin, 1);
  ck_assert(!sn_body_is_awake(w, b));
  ck_assert_int_eq(sn_destroy_shape(w, bs, true), SN_OK);
  memset(&log, 0, sizeof log);
  step_logged(w, 1, &log);
  ck_assert_int_eq(log.end, 1);
  ck_assert(same_pair(log.first_end.shape_a, log.first_end.shape_b, s.ground_shape, bs));
  step_logged(w, 3, &log);
  ck_assert_int_eq(log.end, 1);
  sn_destroy_world(w);
}
END_TEST

/* ======================================================================== */
/* 6. Sleep                                                                  */

/// Steps until the body sleeps; returns the step count or -1 after max steps.
static int steps_until_asleep(sn_world *w, sn_body_id b, int max) {
  for (int i = 1; i <= max; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    if (!sn_body_is_awake(w, b)) return i;
  }
  return -1;
}

START_TEST(test_resting_box_sleeps_and_wakes) {
  scene s = make_scene(1.0f, false); /* resting on the ground from the start */
  sn_world *w = s.w;
  ck_assert(sn_body_is_awake(w, s.box));
  int n = steps_until_asleep(w, s.box, 120);
  ck_assert_msg(n > 0, "the box did not fall asleep within 2 s");
  ck_assert_int_eq(sn_world_get_counters(w).awake_body_count, 0);
  sn_vec2 p = sn_body_get_position(w, s.box);
  step_n(w, 30); /* asleep: frozen */
  ck_assert(!sn_body_is_awake(w, s.box));
  ck_assert_float_eq(sn_body_get_position(w, s.box).y, p.y);
  /* a velocity wakes it at once */
  ck_assert_int_eq(sn_body_set_linear_velocity(w, s.box, (sn_vec2){1.0f, 0.0f}), SN_OK);
  ck_assert(sn_body_is_awake(w, s.box));
  step_n(w, 1);
  ck_assert(sn_body_is_awake(w, s.box));
  ck_assert_float_gt(sn_body_get_position(w, s.box).x, p.x);
  /* asleep again, then an impulse, a teleport and set_awake wake it too */
  ck_assert_int_gt(steps_until_asleep(w, s.box, 180), 0);
  ck_assert_int_eq(sn_body_apply_linear_impulse(w, s.box, (sn_vec2){0.5f, 0.0f}, p, true), SN_OK);
  ck_assert(sn_body_is_awake(w, s.box));
  ck_assert_int_gt(steps_until_asleep(w, s.box, 180), 0);
  ck_assert_int_eq(sn_body_set_awake(w, s.box, true), SN_OK);
  ck_assert(sn_body_is_awake(w, s.box));
  ck_assert_int_gt(steps_until_asleep(w, s.box, 180), 0);
  ck_assert_int_eq(sn_body_set_transform(w, s.box, (sn_vec2){0.0f, 4.0f}, 0.0f), SN_OK);
  ck_assert(sn_body_is_awake(w, s.box));
  step_n(w, 10);
  ck_assert_float_lt(sn_body_get_position(w, s.box).y, 4.0f);
  /* a force with wake = false leaves a sleeping body alone */
  ck_assert_int_gt(steps_until_asleep(w, s.box, 240), 0);
  ck_assert_int_eq(sn_body_apply_force_to_center(w, s.box, (sn_vec2){100.0f, 0.0f}, false), SN_OK);
  ck_assert(!sn_body_is_awake(w, s.box));
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_falling_box_wakes_sleeper) {
  scene s = make_scene(1.0f, false);
  sn_world *w = s.w;
  ck_assert_int_gt(steps_until_asleep(w, s.box, 120), 0);
  /* a second box, away from the first, then dropped onto it */
  sn_body_id top = add_body(w, SN_BODY_DYNAMIC, 0.0f, 4.0f, 0.0f);
  add_box(w, top, 0.5f, 0.5f, 1.0f);
  ck_assert(!sn_body_is_awake(w, s.box)); /* creating elsewhere does not wake it */
  int woke = -1;
  for (int i = 1; i <= 60 && woke < 0; ++i) {
    step_n(w, 1);
    if (sn_body_is_awake(w, s.box)) woke = i;
  }
  ck_assert_msg(woke > 0, "the sleeping box was not woken by the falling one");
  /* it woke on contact, not before: the top box had to fall ~2 m (~0.6 s) */
  ck_assert_int_ge(woke, 25);
  /* The stack settles and sleeps as one island.
   * (This once failed: sequential point order spun a symmetric two-point
   * manifold; the block normal solve fixed it.) */
  ck_assert_int_gt(steps_until_asleep(w, top, 240), 0);
  ck_assert(!sn_body_is_awake(w, s.box));
  ck_assert_near(sn_body_get_position(w, top).y, 2.0f, 0.05f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_sleep_disabled) {
  sn_world_def def = sn_default_world_def();
  def.enable_sleep = false;
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  ck_assert(!sn_world_is_sleeping_enabled(w));
  sn_body_id ground = add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  add_box(w, ground, 10.0f, 0.5f, 1.0f);
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 1.0f, 0.0f);
  add_box(w, b, 0.5f, 0.5f, 1.0f);
  for (int i = 0; i < 240; ++i) {
    step_n(w, 1);
    ck_assert_msg(sn_body_is_awake(w, b), "slept at step %d with sleeping disabled", i);
  }
  ck_assert_int_eq(sn_world_get_counters(w).awake_body_count, 1);
  sn_destroy_world(w);

  /* switching it off at run time wakes sleepers; a body may opt out */
  scene s = make_scene(1.0f, false);
  sn_body_def bdef = sn_default_body_def();
  bdef.type = SN_BODY_DYNAMIC;
  bdef.position = (sn_vec2){4.0f, 1.0f};
  bdef.enable_sleep = false;
  sn_body_id insomniac = sn_create_body(s.w, &bdef);
  add_box(s.w, insomniac, 0.5f, 0.5f, 1.0f);
  ck_assert_int_gt(steps_until_asleep(s.w, s.box, 120), 0);
  ck_assert(sn_body_is_awake(s.w, insomniac));
  ck_assert_int_eq(sn_world_enable_sleeping(s.w, false), SN_OK);
  ck_assert(!sn_world_is_sleeping_enabled(s.w));
  ck_assert(sn_body_is_awake(s.w, s.box));
  for (int i = 0; i < 120; ++i) {
    step_n(s.w, 1);
    ck_assert(sn_body_is_awake(s.w, s.box));
  }
  ck_assert_int_eq(sn_world_enable_sleeping(s.w, true), SN_OK);
  ck_assert_int_gt(steps_until_asleep(s.w, s.box, 120), 0);
  ck_assert(sn_body_is_awake(s.w, insomniac));
  /* opting back in lets it sleep */
  ck_assert_int_eq(sn_body_enable_sleep(s.w, insomniac, true), SN_OK);
  ck_assert_int_gt(steps_until_asleep(s.w, insomniac, 120), 0);
  sn_destroy_world(s.w);
}
END_TEST

/* ======================================================================== */
/* 7. Mass                                                                   */

START_TEST(test_mass_single_box) {
  sn_world *w = new_world();
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 3.0f, 4.0f, 0.3f);
  add_box(w, b, 0.5f, 0.5f, 2.0f);
  /* m = rho w h = 2; I = m (w^2 + h^2) / 12 */
  ck_assert_near(sn_body_get_mass(w, b), 2.0f, 1e-6f);
  ck_assert_near(sn_body_get_rotational_inertia(w, b), 2.0f * (1.0f + 1.0f) / 12.0f, 1e-6f);
  sn_mass_data md = sn_body_get_mass_data(w, b);
  ck_assert_near(md.mass, 2.0f, 1e-6f);
  ck_assert_near(md.center.x, 0.0f, 1e-6f);
  ck_assert_near(md.center.y, 0.0f, 1e-6f);
  /* static and kinematic bodies have no mass */
  sn_body_id st = add_body(w, SN_BODY_STATIC, 0.0f, 0.0f, 0.0f);
  add_box(w, st, 0.5f, 0.5f, 2.0f);
  ck_assert_float_eq(sn_body_get_mass(w, st), 0.0f);
  sn_body_id kin = add_body(w, SN_BODY_KINEMATIC, 0.0f, 0.0f, 0.0f);
  add_box(w, kin, 0.5f, 0.5f, 2.0f);
  ck_assert_float_eq(sn_body_get_mass(w, kin), 0.0f);
  /* fixed rotation: mass but no inertia */
  sn_body_def def = sn_default_body_def();
  def.type = SN_BODY_DYNAMIC;
  def.fixed_rotation = true;
  sn_body_id fixed = sn_create_body(w, &def);
  add_box(w, fixed, 0.5f, 0.5f, 2.0f);
  ck_assert_near(sn_body_get_mass(w, fixed), 2.0f, 1e-6f);
  ck_assert_float_eq(sn_body_get_rotational_inertia(w, fixed), 0.0f);
  /* a type change recomputes */
  ck_assert_int_eq(sn_body_set_type(w, st, SN_BODY_DYNAMIC), SN_OK);
  ck_assert_near(sn_body_get_mass(w, st), 2.0f, 1e-6f);
  ck_assert_int_eq(sn_body_set_type(w, b, SN_BODY_KINEMATIC), SN_OK);
  ck_assert_float_eq(sn_body_get_mass(w, b), 0.0f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_mass_parallel_axis) {
  sn_world *w = new_world();
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  sn_polygon left, right;
  ck_assert_int_eq(sn_make_offset_box(0.5f, 0.5f, (sn_vec2){-1.0f, 0.0f}, 0.0f, &left), SN_OK);
  ck_assert_int_eq(sn_make_offset_box(0.5f, 0.5f, (sn_vec2){2.0f, 0.0f}, 0.0f, &right), SN_OK);
  sn_shape_def def = sn_default_shape_def();
  def.density = 1.0f;
  ck_assert_int_ne(sn_create_polygon_shape(w, b, &def, &left).index1, 0);
  def.density = 3.0f;
  sn_shape_id rs = sn_create_polygon_shape(w, b, &def, &right);
  ck_assert_int_ne(rs.index1, 0);
  /* m = 1 + 3 = 4; c = (1 * -1 + 3 * 2) / 4 = 1.25;
   * I = sum m_i / 6 + m_i d_i^2 = 4/6 + 1 * 2.25^2 + 3 * 0.75^2 = 7.41667 */
  ck_assert_near(sn_body_get_mass(w, b), 4.0f, 1e-5f);
  sn_vec2 c = sn_body_get_local_center_of_mass(w, b);
  ck_assert_near(c.x, 1.25f, 1e-5f);
  ck_assert_near(c.y, 0.0f, 1e-5f);
  ck_assert_near(sn_body_get_rotational_inertia(w, b), 4.0f / 6.0f + 5.0625f + 1.6875f, 1e-4f);
  ck_assert_near(sn_body_get_world_center_of_mass(w, b).x, 1.25f, 1e-5f);
  /* removing a shape with update_mass brings it back to one box */
  ck_assert_int_eq(sn_destroy_shape(w, rs, true), SN_OK);
  ck_assert_near(sn_body_get_mass(w, b), 1.0f, 1e-5f);
  ck_assert_near(sn_body_get_local_center_of_mass(w, b).x, -1.0f, 1e-5f);
  ck_assert_near(sn_body_get_rotational_inertia(w, b), 1.0f / 6.0f, 1e-5f);
  /* a circle on top: m_c = pi r^2, centre (0, 2); combined with the box at (-1, 0) */
  sn_shape_id cs = add_circle(w, b, 0.0f, 2.0f, 0.5f);
  (void)cs;
  float mc = PI_F * 0.25f, mb = 1.0f, m = mb + mc;
  float cx = -1.0f * mb / m, cy = 2.0f * mc / m;
  float inertia = mb / 6.0f + mb * ((-1.0f - cx) * (-1.0f - cx) + cy * cy) + 0.5f * mc * 0.25f +
                  mc * (cx * cx + (2.0f - cy) * (2.0f - cy));
  ck_assert_near(sn_body_get_mass(w, b), m, 1e-5f);
  ck_assert_near(sn_body_get_local_center_of_mass(w, b).x, cx, 1e-5f);
  ck_assert_near(sn_body_get_local_center_of_mass(w, b).y, cy, 1e-5f);
  ck_assert_near(sn_body_get_rotational_inertia(w, b), inertia, 1e-4f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_mass_offset_center) {
  sn_world *w = new_world();
  /* circle r 1 at local (3, 1) on a body at (10, 0) rotated 90 degrees */
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 10.0f, 0.0f, 0.5f * PI_F);
  add_circle(w, b, 3.0f, 1.0f, 1.0f);
  ck_assert_near(sn_body_get_mass(w, b), PI_F, 1e-5f);
  ck_assert_near(sn_body_get_rotational_inertia(w, b), 0.5f * PI_F, 1e-4f);
  sn_vec2 local = sn_body_get_local_center_of_mass(w, b);
  ck_assert_near(local.x, 3.0f, 1e-5f);
  ck_assert_near(local.y, 1.0f, 1e-5f);
  sn_vec2 world = sn_body_get_world_center_of_mass(w, b);
  ck_assert_near(world.x, 9.0f, 1e-5f);
  ck_assert_near(world.y, 3.0f, 1e-5f);
  /* the body origin did not move */
  ck_assert_near(sn_body_get_position(w, b).x, 10.0f, 1e-6f);
  ck_assert_near(sn_body_get_position(w, b).y, 0.0f, 1e-6f);
  /* in free fall the centre of mass follows g, spinning or not */
  ck_assert_int_eq(sn_body_set_angular_velocity(w, b, 2.0f), SN_OK);
  step_n(w, 60);
  sn_vec2 after = sn_body_get_world_center_of_mass(w, b);
  ck_assert_near(after.x, 9.0f, 1e-3f);
  ck_assert_near(after.y, 3.0f - 5.0f, 0.1f);
  ck_assert_near(sn_body_get_angular_velocity(w, b), 2.0f, 1e-4f);
  sn_destroy_world(w);
}
END_TEST

/* ======================================================================== */
/* 8. Body API round trips                                                   */

START_TEST(test_body_transform_round_trip) {
  sn_world *w = new_world();
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  add_box(w, b, 0.5f, 0.25f, 1.0f);
  ck_assert_int_eq(sn_body_set_transform(w, b, (sn_vec2){3.0f, 4.0f}, 0.5f), SN_OK);
  sn_vec2 p = sn_body_get_position(w, b);
  ck_assert_float_eq(p.x, 3.0f);
  ck_assert_float_eq(p.y, 4.0f);
  ck_assert_near(sn_body_get_angle(w, b), 0.5f, 1e-6f);
  sn_rot q = sn_body_get_rotation(w, b);
  ck_assert_near(q.c, cosf(0.5f), 1e-6f);
  ck_assert_near(q.s, sinf(0.5f), 1e-6f);
  sn_transform xf = sn_body_get_transform(w, b);
  ck_assert_float_eq(xf.p.x, 3.0f);
  ck_assert_near(xf.q.s, sinf(0.5f), 1e-6f);
  /* angles beyond pi come back wrapped */
  ck_assert_int_eq(sn_body_set_transform(w, b, (sn_vec2){3.0f, 4.0f}, 1.5f * PI_F), SN_OK);
  ck_assert_near(sn_body_get_angle(w, b), -0.5f * PI_F, 1e-5f);
  ck_assert_int_eq(sn_body_set_transform(w, b, (sn_vec2){3.0f, 4.0f}, 0.5f), SN_OK);
  /* point conversions */
  sn_vec2 wp = sn_body_get_world_point(w, b, (sn_vec2){1.0f, 0.0f});
  ck_assert_near(wp.x, 3.0f + cosf(0.5f), 1e-6f);
  ck_assert_near(wp.y, 4.0f + sinf(0.5f), 1e-6f);
  sn_vec2 lp = sn_body_get_local_point(w, b, wp);
  ck_assert_near(lp.x, 1.0f, 1e-6f);
  ck_assert_near(lp.y, 0.0f, 1e-6f);
  /* the shape followed: its AABB is around the new position */
  sn_shape_id shapes[1];
  ck_assert_int_eq(sn_body_get_shapes(w, b, shapes, 1), 1);
  sn_aabb box = sn_shape_get_aabb(w, shapes[0]);
  ck_assert_float_lt(box.lower.x, 3.0f);
  ck_assert_float_gt(box.upper.x, 3.0f);
  ck_assert_float_lt(box.lower.y, 4.0f);
  ck_assert_float_gt(box.upper.y, 4.0f);
  ck_assert(sn_shape_test_point(w, shapes[0], (sn_vec2){3.0f, 4.0f}));
  ck_assert(!sn_shape_test_point(w, shapes[0], (sn_vec2){0.0f, 0.0f}));
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_body_velocity_damping_flags) {
  sn_world *w = new_world();
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  add_box(w, b, 0.5f, 0.5f, 2.0f); /* m 2, I 1/3 */
  ck_assert_int_eq(sn_body_set_linear_velocity(w, b, (sn_vec2){1.5f, -2.0f}), SN_OK);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, b).x, 1.5f);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, b).y, -2.0f);
  ck_assert_int_eq(sn_body_set_angular_velocity(w, b, 0.75f), SN_OK);
  ck_assert_float_eq(sn_body_get_angular_velocity(w, b), 0.75f);
  ck_assert_int_eq(sn_body_set_linear_damping(w, b, 0.2f), SN_OK);
  ck_assert_float_eq(sn_body_get_linear_damping(w, b), 0.2f);
  ck_assert_int_eq(sn_body_set_angular_damping(w, b, 0.3f), SN_OK);
  ck_assert_float_eq(sn_body_get_angular_damping(w, b), 0.3f);
  ck_assert_int_eq(sn_body_set_gravity_scale(w, b, -0.5f), SN_OK);
  ck_assert_float_eq(sn_body_get_gravity_scale(w, b), -0.5f);
  ck_assert(!sn_body_is_bullet(w, b));
  ck_assert_int_eq(sn_body_set_bullet(w, b, true), SN_OK);
  ck_assert(sn_body_is_bullet(w, b));
  ck_assert_int_eq(sn_body_set_bullet(w, b, false), SN_OK);
  ck_assert(!sn_body_is_bullet(w, b));
  int marker = 7;
  ck_assert_ptr_null(sn_body_get_user_data(w, b));
  ck_assert_int_eq(sn_body_set_user_data(w, b, &marker), SN_OK);
  ck_assert_ptr_eq(sn_body_get_user_data(w, b), &marker);
  /* impulses: dv = J / m, dw = (r x J) / I */
  ck_assert_int_eq(sn_body_set_linear_velocity(w, b, (sn_vec2){0.0f, 0.0f}), SN_OK);
  ck_assert_int_eq(sn_body_set_angular_velocity(w, b, 0.0f), SN_OK);
  ck_assert_int_eq(sn_body_apply_linear_impulse(w, b, (sn_vec2){2.0f, 0.0f}, (sn_vec2){0.0f, 0.0f}, true), SN_OK);
  ck_assert_near(sn_body_get_linear_velocity(w, b).x, 1.0f, 1e-6f);
  ck_assert_near(sn_body_get_angular_velocity(w, b), 0.0f, 1e-6f);
  ck_assert_int_eq(sn_body_apply_linear_impulse(w, b, (sn_vec2){1.0f, 0.0f}, (sn_vec2){0.0f, 0.5f}, true), SN_OK);
  ck_assert_near(sn_body_get_linear_velocity(w, b).x, 1.5f, 1e-6f);
  ck_assert_near(sn_body_get_angular_velocity(w, b), -1.5f, 1e-5f);
  ck_assert_int_eq(sn_body_apply_angular_impulse(w, b, 1.0f, true), SN_OK);
  ck_assert_near(sn_body_get_angular_velocity(w, b), 1.5f, 1e-5f);
  /* def fields arrive */
  sn_body_def def = sn_default_body_def();
  def.type = SN_BODY_DYNAMIC;
  def.linear_velocity = (sn_vec2){1.0f, 2.0f};
  def.angular_velocity = 3.0f;
  def.linear_damping = 0.5f;
  def.angular_damping = 0.25f;
  def.gravity_scale = 2.0f;
  def.is_bullet = true;
  def.user_data = &marker;
  sn_body_id d = sn_create_body(w, &def);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, d).y, 2.0f);
  ck_assert_float_eq(sn_body_get_angular_velocity(w, d), 3.0f);
  ck_assert_float_eq(sn_body_get_linear_damping(w, d), 0.5f);
  ck_assert_float_eq(sn_body_get_angular_damping(w, d), 0.25f);
  ck_assert_float_eq(sn_body_get_gravity_scale(w, d), 2.0f);
  ck_assert(sn_body_is_bullet(w, d));
  ck_assert_ptr_eq(sn_body_get_user_data(w, d), &marker);
  ck_assert_int_eq(sn_body_get_type(w, d), SN_BODY_DYNAMIC);
  /* shape user data */
  sn_shape_id s = add_circle(w, d, 0.0f, 0.0f, 0.5f);
  ck_assert_int_eq(sn_shape_set_user_data(w, s, &marker), SN_OK);
  ck_assert_ptr_eq(sn_shape_get_user_data(w, s), &marker);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_gravity_scale_and_forces) {
  sn_world *w = new_world();
  sn_body_def def = sn_default_body_def();
  def.type = SN_BODY_DYNAMIC;
  def.gravity_scale = 0.0f;
  def.position = (sn_vec2){0.0f, 10.0f};
  sn_body_id floating = sn_create_body(w, &def);
  add_box(w, floating, 0.5f, 0.5f, 1.0f);
  sn_body_id later = add_body(w, SN_BODY_DYNAMIC, 5.0f, 10.0f, 0.0f);
  add_box(w, later, 0.5f, 0.5f, 1.0f);
  ck_assert_int_eq(sn_body_set_gravity_scale(w, later, 0.0f), SN_OK);
  sn_body_id falling = add_body(w, SN_BODY_DYNAMIC, 10.0f, 10.0f, 0.0f);
  add_box(w, falling, 0.5f, 0.5f, 1.0f);
  step_n(w, 60);
  ck_assert_float_eq(sn_body_get_position(w, floating).y, 10.0f);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, floating).y, 0.0f);
  ck_assert_float_eq(sn_body_get_position(w, later).y, 10.0f);
  /* 1 s of free fall: 5 m; semi-implicit Euler over n = 60 * substeps
   * substeps gives 10 (n + 1) / (2 n) */
  float n = 60.0f * (float)sn_world_get_substeps(w);
  ck_assert_near(sn_body_get_position(w, falling).y, 10.0f - 10.0f * (n + 1.0f) / (2.0f * n), 1e-3f);
  ck_assert_near(sn_body_get_linear_velocity(w, falling).y, -10.0f, 1e-3f);

  /* a force m g upward holds a body for exactly one step */
  sn_body_id held = add_body(w, SN_BODY_DYNAMIC, 20.0f, 10.0f, 0.0f);
  add_box(w, held, 0.5f, 0.5f, 2.0f); /* m = 2 */
  ck_assert_int_eq(sn_body_apply_force_to_center(w, held, (sn_vec2){0.0f, 20.0f}, true), SN_OK);
  step_n(w, 1);
  ck_assert_near(sn_body_get_linear_velocity(w, held).y, 0.0f, 1e-5f);
  ck_assert_near(sn_body_get_position(w, held).y, 10.0f, 1e-5f);
  step_n(w, 1);
  ck_assert_near(sn_body_get_linear_velocity(w, held).y, -10.0f * DT, 1e-5f);
  /* a torque spins it: dw = tau dt / I */
  ck_assert_int_eq(sn_body_apply_torque(w, held, 1.0f, true), SN_OK);
  step_n(w, 1);
  ck_assert_near(sn_body_get_angular_velocity(w, held), DT / (2.0f * 2.0f / 12.0f), 1e-4f);

  /* kinematic bodies move by their velocity and ignore gravity */
  sn_body_id kin = add_body(w, SN_BODY_KINEMATIC, 0.0f, 20.0f, 0.0f);
  add_box(w, kin, 0.5f, 0.5f, 1.0f);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, kin, (sn_vec2){2.0f, 0.0f}), SN_OK);
  step_n(w, 60);
  ck_assert_near(sn_body_get_position(w, kin).x, 2.0f, 1e-3f);
  ck_assert_float_eq(sn_body_get_position(w, kin).y, 20.0f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_body_get_shapes) {
  sn_world *w = new_world();
  sn_body_id b = add_body(w, SN_BODY_DYNAMIC, 0.0f, 0.0f, 0.0f);
  ck_assert_int_eq(sn_body_get_shape_count(w, b), 0);
  ck_assert_int_eq(sn_body_get_shapes(w, b, NULL, 0), 0);
  sn_shape_id made[4];
  made[0] = add_circle(w, b, 0.0f, 0.0f, 0.5f);
  made[1] = add_box(w, b, 0.5f, 0.5f, 1.0f);
  sn_capsule cap = {{-1, 0}, {1, 0}, 0.2f};
  sn_shape_def def = sn_default_shape_def();
  made[2] = sn_create_capsule_shape(w, b, &def, &cap);
  made[3] = add_circle(w, b, 1.0f, 1.0f, 0.25f);
  ck_assert_int_eq(sn_body_get_shape_count(w, b), 4);
  sn_shape_id got[6];
  memset(got, 0, sizeof got);
  ck_assert_int_eq(sn_body_get_shapes(w, b, got, 6), 4);
  for (int i = 0; i < 4; ++i) {
    ck_assert_msg(same_shape(got[i], made[i]), "shape %d out of creation order", i);
    ck_assert(same_body(sn_shape_get_body(w, got[i]), b));
  }
  ck_assert_int_eq(got[4].index1, 0); /* nothing written past the count */
  /* capacity limits what is written */
  memset(got, 0, sizeof got);
  ck_assert_int_eq(sn_body_get_shapes(w, b, got, 2), 2);
  ck_assert(same_shape(got[1], made[1]));
  ck_assert_int_eq(got[2].index1, 0);
  ck_assert_int_eq(sn_shape_get_type(w, made[0]), SN_SHAPE_CIRCLE);
  ck_assert_int_eq(sn_shape_get_type(w, made[1]), SN_SHAPE_POLYGON);
  ck_assert_int_eq(sn_shape_get_type(w, made[2]), SN_SHAPE_CAPSULE);
  sn_capsule back;
  ck_assert_int_eq(sn_shape_get_capsule(w, made[2], &back), SN_OK);
  ck_assert_float_eq(back.radius, 0.2f);
  sn_circle cback;
  ck_assert_int_eq(sn_shape_get_circle(w, made[3], &cback), SN_OK);
  ck_assert_float_eq(cback.center.x, 1.0f);
  /* destroying one keeps the order of the rest */
  ck_assert_int_eq(sn_destroy_shape(w, made[1], true), SN_OK);
  ck_assert_int_eq(sn_body_get_shapes(w, b, got, 6), 3);
  ck_assert(same_shape(got[0], made[0]));
  ck_assert(same_shape(got[1], made[2]));
  ck_assert(same_shape(got[2], made[3]));
  sn_destroy_world(w);
}
END_TEST

/* ======================================================================== */

/* A sensor makes no contacts: asking one for hit events is refused, not ignored. */
START_TEST(test_sensor_refused) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  sn_body_id b = sn_create_body(w, &bd);
  sn_shape_def sd = sn_default_shape_def();
  sd.is_sensor = true;
  sd.enable_hit_events = true;
  sn_circle c = {{0.0f, 0.0f}, 1.0f};
  sn_shape_id s = sn_create_circle_shape(w, b, &sd, &c);
  ck_assert_int_eq(s.index1, 0);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "sensor"));
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, 0);
  sn_destroy_world(w);
}
END_TEST

/* The step profile: zero before a step and for NULL; after steps of a
 * falling stack every part is >= 0, the substeps took time, and the parts,
 * which meet end to start, add up to the step (float rounding only). */
START_TEST(test_world_profile) {
  sn_world_profile none = sn_world_get_profile(NULL);
  ck_assert(none.step == 0.0f && none.collide == 0.0f && none.substeps == 0.0f);
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert(sn_world_get_profile(w).step == 0.0f);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  sn_make_box(20.0f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &box);
  sn_make_box(0.5f, 0.5f, &box);
  for (int i = 0; i < 20; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){0.0f, 1.0f + (float)i};
    sn_create_polygon_shape(w, sn_create_body(w, &bd), &sd, &box);
  }
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  sn_world_profile p = sn_world_get_profile(w);
  double parts[SN_PROFILE_PART_COUNT];
  sn_profile_parts(&p, parts);
  double sum = 0.0;
  for (int k = 0; k < SN_PROFILE_PART_COUNT; ++k) {
    ck_assert(parts[k] >= 0.0f);
    sum += parts[k];
  }
  ck_assert(p.step > 0.0f && p.substeps > 0.0f);
  ck_assert_msg(fabs(sum - (double)p.step) <= 1e-4 + 1e-5 * (double)p.step, "parts %g of step %g ms", sum,
                (double)p.step);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("api");

  TCase *input = tcase_create("bad_input");
  tcase_add_test(input, test_result_names);
  tcase_add_test(input, test_sensor_refused);
  tcase_add_test(input, test_world_def_refused);
  tcase_add_test(input, test_world_def_half_allocator);
  tcase_add_test(input, test_step_refuses_bad_dt);
  tcase_add_test(input, test_world_setting_bounds);
  tcase_add_test(input, test_escape_freezes);
  tcase_add_test(input, test_world_setters_refuse_bad_values);
  tcase_add_test(input, test_body_def_refused);
  tcase_add_test(input, test_body_setters_refuse_non_finite);
  tcase_add_test(input, test_shape_def_refused);
  tcase_add_test(input, test_round_shapes_refused);
  tcase_add_test(input, test_polygon_builders_refuse);
  tcase_add_test(input, test_corrupt_polygon_shape_refused);
  tcase_add_test(input, test_shape_setters_refuse);
  tcase_add_test(input, test_chain_refused);
  tcase_add_test(input, test_chain_read_back);
  tcase_add_test(input, test_queries_refuse_bad_input);
  tcase_add_test(input, test_null_world_everywhere);
  suite_add_tcase(s, input);

  TCase *handles = tcase_create("handles");
  tcase_add_test(handles, test_stale_body_and_shape);
  tcase_add_test(handles, test_reused_slots_get_new_generation);
  tcase_add_test(handles, test_foreign_null_and_out_of_range_ids);
  suite_add_tcase(s, handles);

  TCase *memory = tcase_create("memory");
  tcase_set_timeout(memory, 300);
  tcase_add_test(memory, test_allocator_counts_to_zero);
  tcase_add_test(memory, test_allocator_failures);
  tcase_add_test(memory, test_default_allocator_counter);
  suite_add_tcase(s, memory);

  TCase *queries = tcase_create("queries");
  tcase_add_test(queries, test_world_profile);
  tcase_add_test(queries, test_ray_cast_closest);
  tcase_add_test(queries, test_overlap_aabb);
  tcase_add_test(queries, test_query_point);
  suite_add_tcase(s, queries);

  TCase *events = tcase_create("events");
  tcase_add_test(events, test_drop_begin_hit_end);
  tcase_add_test(events, test_hit_events_opt_in_and_threshold);
  tcase_add_test(events, test_destroy_emits_end_event);
  suite_add_tcase(s, events);

  TCase *sleep = tcase_create("sleep");
  tcase_add_test(sleep, test_resting_box_sleeps_and_wakes);
  tcase_add_test(sleep, test_falling_box_wakes_sleeper);
  tcase_add_test(sleep, test_sleep_disabled);
  suite_add_tcase(s, sleep);

  TCase *mass = tcase_create("mass");
  tcase_add_test(mass, test_mass_single_box);
  tcase_add_test(mass, test_mass_parallel_axis);
  tcase_add_test(mass, test_mass_offset_center);
  suite_add_tcase(s, mass);

  TCase *body = tcase_create("body");
  tcase_add_test(body, test_body_transform_round_trip);
  tcase_add_test(body, test_body_velocity_damping_flags);
  tcase_add_test(body, test_gravity_scale_and_forces);
  tcase_add_test(body, test_body_get_shapes);
  suite_add_tcase(s, body);
  return s;
}
