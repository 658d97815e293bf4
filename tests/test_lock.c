/* The world lock: every callback the engine runs into user or plugin code
 * (query and debug-draw callbacks, constraint hooks, step hooks) runs on a
 * locked world. There every call that changes the world is refused with
 * SN_ERR_WORLD_LOCKED and leaves it unchanged (the world saves the same
 * snapshot bytes before and after), while reading calls and nested queries
 * work; destroying or creating bodies from a query or draw callback (which
 * once freed the tree or the joints under the walk) is refused. And the
 * event arrays a step reports stay where and as they are until the next
 * step, whatever the caller destroys while it loops over them; the end
 * events its destroys raise are reported by the next step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

/* ------------------------------------------------------------------------ */
/* A world with one live object of every kind                                */

#define LK_BOXES 24
/// Calls lk_try_every_mutation makes (each must be refused).
#define LK_MUTATIONS 64

typedef struct lk_fixture {
  sn_registry *reg;
  sn_world *w;
  sn_body_id ground, boxes[LK_BOXES], anchor;
  sn_shape_id ground_shape, box_shapes[LK_BOXES];
  sn_chain_id chain;
  sn_constraint_id joint;
  sn_soft_body_id soft;
  sn_particle_id p0, p1;
  int refused; ///< calls refused with SN_ERR_WORLD_LOCKED, counted by lk_try_every_mutation
} lk_fixture;

static sn_body_id lk_box(sn_world *w, sn_vec2 p, sn_shape_id *shape) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.4f, 0.4f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  *shape = sn_create_polygon_shape(w, b, &sd, &box);
  ck_assert(sn_shape_is_valid(w, *shape));
  return b;
}

/* Boxes resting on a ground (touching it: contacts and events), two of them
 * joined by a distance joint, a chain, a soft body of two particles. */
static void lk_setup(lk_fixture *f) {
  memset(f, 0, sizeof(*f));
  f->reg = js_registry(
      (const char *const[]){"distance", "xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach", NULL});
  f->w = js_world(f->reg);
  sn_world *w = f->w;
  f->ground = js_ground(w);
  sn_polygon ground;
  ck_assert_int_eq(sn_make_offset_box(30.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &ground), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  f->ground_shape = sn_create_polygon_shape(w, f->ground, &sd, &ground);
  ck_assert(sn_shape_is_valid(w, f->ground_shape));
  for (int i = 0; i < LK_BOXES; ++i)
    f->boxes[i] = lk_box(w, (sn_vec2){-24.0f + 2.0f * (float)i, 0.4f}, &f->box_shapes[i]);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "distance";
  cd.bodies[0] = f->boxes[0];
  cd.bodies[1] = f->boxes[1];
  f->joint = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, f->joint), "%s", sn_world_last_error(w));
  f->anchor = js_ground(w);
  const sn_vec2 outline[] = {{-5.0f, 20.0f}, {-4.0f, 20.0f}, {-3.0f, 20.0f}, {-2.0f, 20.0f}};
  sn_chain_def chain = sn_default_chain_def();
  chain.points = outline;
  chain.count = 4;
  f->chain = sn_create_chain(w, f->anchor, &chain);
  ck_assert_msg(sn_chain_is_valid(w, f->chain), "%s", sn_world_last_error(w));
  sn_soft_body_def sb = sn_default_soft_body_def();
  f->soft = sn_create_soft_body(w, &sb);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){10.0f, 30.0f};
  f->p0 = sn_create_particle(w, f->soft, &pd);
  pd.position = (sn_vec2){10.5f, 30.0f};
  f->p1 = sn_create_particle(w, f->soft, &pd);
  ck_assert(sn_particle_is_valid(w, f->p0) && sn_particle_is_valid(w, f->p1));
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_ge(sn_world_get_counters(w).touching_contact_count, LK_BOXES);
}

static void lk_teardown(lk_fixture *f) {
  ck_assert_int_eq(sn_destroy_world(f->w), SN_OK);
  sn_destroy_registry(f->reg);
}

/* The world's whole state as snapshot bytes (the caller frees them). */
static unsigned char *lk_snapshot(sn_world *w, size_t *size) {
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, size), SN_OK);
  unsigned char *bytes = malloc(*size);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, *size, size), SN_OK);
  return bytes;
}

static void lk_assert_same_world(sn_world *w, const unsigned char *before, size_t before_size) {
  size_t size = 0;
  unsigned char *now = lk_snapshot(w, &size);
  ck_assert_msg(size == before_size && memcmp(now, before, size) == 0, "the world changed inside a callback");
  free(now);
}

#define LK_REFUSED(f, call)                                                                                            \
  do {                                                                                                                 \
    sn_result r_ = (call);                                                                                             \
    ck_assert_msg(r_ == SN_ERR_WORLD_LOCKED, "%s returned %s inside a callback", #call, sn_result_name(r_));           \
    (f)->refused++;                                                                                                    \
  } while (0)

/* A create that must give a null id, with the lock as the recorded reason. */
#define LK_REFUSED_ID(f, call)                                                                                         \
  do {                                                                                                                 \
    ck_assert_msg((call).index1 == 0, "%s made an object inside a callback", #call);                                   \
    ck_assert_msg(strncmp(sn_world_last_error((f)->w), "SN_ERR_WORLD_LOCKED", 19) == 0, "%s: %s", #call,               \
                  sn_world_last_error((f)->w));                                                                        \
    (f)->refused++;                                                                                                    \
  } while (0)

/* Calls every function of the public API that changes the world, each on a
 * live object, and asserts each is refused: the world is locked. */
static void lk_try_every_mutation(lk_fixture *f) {
  sn_world *w = f->w;
  const int refused_before = f->refused;
  sn_body_id b = f->boxes[2];
  sn_shape_id s = f->box_shapes[2];
  const sn_vec2 v = {1.0f, 2.0f};
  /* world */
  LK_REFUSED(f, sn_world_step(w, DT));
  LK_REFUSED(f, sn_destroy_world(w));
  LK_REFUSED(f, sn_world_set_gravity(w, v));
  LK_REFUSED(f, sn_world_set_substeps(w, 3));
  LK_REFUSED(f, sn_world_set_position_iterations(w, 1));
  LK_REFUSED(f, sn_world_set_task_system(w, 1, NULL, NULL, NULL));
  LK_REFUSED(f, sn_world_enable_sleeping(w, true));
  LK_REFUSED(f, sn_world_enable_continuous(w, false));
  LK_REFUSED(f, sn_world_set_contact_tuning(w, 40.0f, 2.0f, 1.0f));
  LK_REFUSED(f, sn_world_set_hit_event_threshold(w, 3.0f));
  LK_REFUSED(f, sn_world_set_soft_iterations(w, 2));
  LK_REFUSED(f, sn_world_set_custom_filter(w, NULL, NULL));
  LK_REFUSED(f, sn_world_set_pre_solve(w, NULL, NULL));
  LK_REFUSED(f, sn_shape_set_filter(w, s, (sn_filter){2, 2, -1}));
  /* bodies */
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  LK_REFUSED_ID(f, sn_create_body(w, &bd));
  LK_REFUSED(f, sn_destroy_body(w, b));
  LK_REFUSED(f, sn_body_set_type(w, b, SN_BODY_KINEMATIC));
  LK_REFUSED(f, sn_body_set_transform(w, b, v, 1.0f));
  LK_REFUSED(f, sn_body_set_linear_velocity(w, b, v));
  LK_REFUSED(f, sn_body_set_angular_velocity(w, b, 1.0f));
  LK_REFUSED(f, sn_body_apply_force(w, b, v, v, true));
  LK_REFUSED(f, sn_body_apply_force_to_center(w, b, v, true));
  LK_REFUSED(f, sn_body_apply_torque(w, b, 1.0f, true));
  LK_REFUSED(f, sn_body_apply_linear_impulse(w, b, v, v, true));
  LK_REFUSED(f, sn_body_apply_angular_impulse(w, b, 1.0f, true));
  LK_REFUSED(f, sn_body_set_linear_damping(w, b, 1.0f));
  LK_REFUSED(f, sn_body_set_angular_damping(w, b, 1.0f));
  LK_REFUSED(f, sn_body_set_gravity_scale(w, b, 2.0f));
  LK_REFUSED(f, sn_body_set_bullet(w, b, true));
  LK_REFUSED(f, sn_body_set_user_data(w, b, f));
  LK_REFUSED(f, sn_body_set_awake(w, b, false));
  LK_REFUSED(f, sn_body_enable_sleep(w, b, false));
  LK_REFUSED(f, sn_body_set_sleep_threshold(w, b, 0.1f));
  /* shapes and chains */
  sn_shape_def sd = sn_default_shape_def();
  sn_circle circle = {{0.0f, 0.0f}, 0.3f};
  sn_capsule capsule = {{-0.2f, 0.0f}, {0.2f, 0.0f}, 0.1f};
  sn_polygon poly;
  ck_assert_int_eq(sn_make_box(0.2f, 0.2f, &poly), SN_OK);
  sn_segment segment = {{0.0f, 5.0f}, {1.0f, 5.0f}};
  LK_REFUSED_ID(f, sn_create_circle_shape(w, b, &sd, &circle));
  LK_REFUSED_ID(f, sn_create_capsule_shape(w, b, &sd, &capsule));
  LK_REFUSED_ID(f, sn_create_polygon_shape(w, b, &sd, &poly));
  LK_REFUSED_ID(f, sn_create_segment_shape(w, f->ground, &sd, &segment));
  LK_REFUSED(f, sn_destroy_shape(w, s, true));
  LK_REFUSED(f, sn_shape_set_friction(w, s, 0.1f));
  LK_REFUSED(f, sn_shape_set_restitution(w, s, 0.5f));
  LK_REFUSED(f, sn_shape_set_density(w, s, 2.0f, true));
  LK_REFUSED(f, sn_shape_set_user_data(w, s, f));
  const sn_vec2 outline[] = {{5.0f, 20.0f}, {6.0f, 20.0f}, {7.0f, 20.0f}, {8.0f, 20.0f}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = outline;
  cd.count = 4;
  LK_REFUSED_ID(f, sn_create_chain(w, f->anchor, &cd));
  LK_REFUSED(f, sn_destroy_chain(w, f->chain));
  /* constraints */
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "distance";
  kd.bodies[0] = f->boxes[3];
  kd.bodies[1] = f->boxes[4];
  LK_REFUSED_ID(f, sn_create_constraint(w, &kd));
  LK_REFUSED(f, sn_destroy_constraint(w, f->joint));
  LK_REFUSED(f, sn_constraint_set_param(w, f->joint, "length", 3.0, 0.0));
  LK_REFUSED(f, sn_constraint_set_break_force(w, f->joint, 100.0f));
  /* soft bodies and particles */
  sn_soft_body_def sb = sn_default_soft_body_def();
  sn_particle_def pd = sn_default_particle_def();
  LK_REFUSED_ID(f, sn_create_soft_body(w, &sb));
  LK_REFUSED(f, sn_destroy_soft_body(w, f->soft));
  LK_REFUSED(f, sn_soft_body_set_material(w, f->soft, &sb));
  LK_REFUSED(f, sn_soft_body_add_edge(w, f->soft, f->p0, f->p1));
  LK_REFUSED(f, sn_soft_body_translate(w, f->soft, v));
  LK_REFUSED_ID(f, sn_create_particle(w, f->soft, &pd));
  LK_REFUSED(f, sn_destroy_particle(w, f->p0));
  LK_REFUSED(f, sn_particle_set_position(w, f->p0, v));
  LK_REFUSED(f, sn_particle_set_velocity(w, f->p0, v));
  LK_REFUSED(f, sn_particle_set_mass(w, f->p0, 1.0f));
  LK_REFUSED(f, sn_particle_set_target(w, f->p0, v));
  LK_REFUSED(f, sn_particle_set_user_data(w, f->p0, f));
  sn_rope_def rope = sn_default_rope_def();
  sn_cloth_def cloth = sn_default_cloth_def();
  sn_ring_def ring = sn_default_ring_def();
  sn_lattice_def lattice = sn_default_lattice_def();
  LK_REFUSED_ID(f, sn_create_rope(w, &rope));
  LK_REFUSED_ID(f, sn_create_cloth(w, &cloth));
  LK_REFUSED_ID(f, sn_create_ring(w, &ring));
  LK_REFUSED_ID(f, sn_create_lattice(w, &lattice));
  ck_assert_msg(strstr(sn_world_last_error(w), "locked") != NULL, "%s", sn_world_last_error(w));
  ck_assert_int_eq(f->refused - refused_before, LK_MUTATIONS);
}

/* Reading calls still work inside a callback (outside a step). */
static bool lk_count_fcn(sn_shape_id shape, void *context) {
  (void)shape;
  ++*(int *)context;
  return true;
}

static void lk_reads_work(lk_fixture *f) {
  sn_world *w = f->w;
  ck_assert(sn_body_is_valid(w, f->boxes[2]));
  ck_assert_float_lt(sn_body_get_position(w, f->boxes[2]).y, 1.0f);
  ck_assert_int_eq(sn_world_get_body_count(w), LK_BOXES + 2);
  sn_ray_result ray;
  ck_assert_int_eq(
      sn_world_cast_ray_closest(w, (sn_vec2){-24.0f, 5.0f}, (sn_vec2){0.0f, -10.0f}, sn_default_query_filter(), &ray),
      SN_OK);
  ck_assert(ray.hit);
  int hits = 0;
  ck_assert_int_eq(sn_world_query_point(w, sn_body_get_position(w, f->boxes[5]), lk_count_fcn, &hits), SN_OK);
  ck_assert_int_eq(hits, 1);
  size_t size = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &size), SN_OK);
  ck_assert_uint_gt(size, 0);
  sn_vec2 force;
  float torque;
  ck_assert_int_eq(sn_constraint_get_reaction(w, f->joint, &force, &torque), SN_OK);
  double length = 0.0, unused = 0.0;
  ck_assert_int_eq(sn_constraint_get_param(w, f->joint, "length", &length, &unused), SN_OK);
}

/* ------------------------------------------------------------------------ */
/* Query callbacks                                                           */

typedef struct lk_query {
  lk_fixture *f;
  int calls;
  int destroy_refused; ///< sn_destroy_body of the hit shape's body refused
  int create_refused;  ///< bodies the callback tried to create (200 a call)
  bool everything;     ///< also try every mutation and the reads
} lk_query;

static bool lk_destroy_hits_fcn(sn_shape_id shape, void *context) {
  lk_query *q = context;
  sn_world *w = q->f->w;
  q->calls++;
  sn_body_id body = sn_shape_get_body(w, shape);
  ck_assert(sn_body_is_valid(w, body));
  ck_assert_int_eq(sn_destroy_body(w, body), SN_ERR_WORLD_LOCKED);
  q->destroy_refused++;
  ck_assert_int_eq(sn_destroy_shape(w, shape, true), SN_ERR_WORLD_LOCKED);
  /* 200 bodies would grow the tree's node array under the walk */
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  for (int i = 0; i < 200; ++i) {
    bd.position = (sn_vec2){(float)i, 10.0f};
    ck_assert_int_eq(sn_create_body(w, &bd).index1, 0);
    q->create_refused++;
  }
  if (q->everything) {
    lk_try_every_mutation(q->f);
    lk_reads_work(q->f);
  }
  return true;
}

START_TEST(test_query_callbacks_run_locked) {
  lk_fixture f;
  lk_setup(&f);
  size_t size = 0;
  unsigned char *before = lk_snapshot(f.w, &size);
  const int bodies = sn_world_get_body_count(f.w);

  lk_query q = {&f, 0, 0, 0, true};
  sn_aabb all = {{-100.0f, -100.0f}, {100.0f, 100.0f}};
  ck_assert_int_eq(sn_world_overlap_aabb(f.w, all, sn_default_query_filter(), lk_destroy_hits_fcn, &q), SN_OK);
  /* every shape: the ground, the boxes and the chain's segment */
  ck_assert_int_eq(q.calls, LK_BOXES + 2);
  ck_assert_int_eq(q.destroy_refused, q.calls);
  ck_assert_int_eq(q.create_refused, 200 * q.calls);
  ck_assert_int_eq(f.refused, LK_MUTATIONS * q.calls);
  lk_assert_same_world(f.w, before, size);

  q = (lk_query){&f, 0, 0, 0, false};
  for (int i = 0; i < LK_BOXES; ++i) {
    ck_assert_int_eq(sn_world_query_point(f.w, sn_body_get_position(f.w, f.boxes[i]), lk_destroy_hits_fcn, &q), SN_OK);
  }
  ck_assert_int_eq(q.calls, LK_BOXES);
  ck_assert_int_eq(q.destroy_refused, LK_BOXES);
  lk_assert_same_world(f.w, before, size);
  ck_assert_int_eq(sn_world_get_body_count(f.w), bodies);
  for (int i = 0; i < LK_BOXES; ++i) ck_assert(sn_body_is_valid(f.w, f.boxes[i]));

  /* the lock is released with the query: the same calls work now */
  ck_assert_int_eq(sn_destroy_body(f.w, f.boxes[7]), SN_OK);
  sn_body_def bd = sn_default_body_def();
  ck_assert(sn_body_is_valid(f.w, sn_create_body(f.w, &bd)));
  ck_assert_int_eq(sn_world_step(f.w, DT), SN_OK);
  free(before);
  lk_teardown(&f);
}
END_TEST

/* Queries nest: a callback may query, cast rays and draw; at every depth
 * the world stays locked until the outermost call returns. */
typedef struct lk_nest {
  lk_fixture *f;
  int depth, outer_calls, inner_total, draws;
} lk_nest;

static void lk_nest_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *context) {
  (void)a, (void)b, (void)rgba;
  lk_nest *n = context;
  n->draws++;
  ck_assert_int_eq(sn_destroy_body(n->f->w, n->f->boxes[0]), SN_ERR_WORLD_LOCKED);
}

static bool lk_nest_fcn(sn_shape_id shape, void *context) {
  lk_nest *n = context;
  sn_world *w = n->f->w;
  if (n->depth > 0) {
    n->inner_total++;
    ck_assert_int_eq(sn_destroy_body(w, sn_shape_get_body(w, shape)), SN_ERR_WORLD_LOCKED);
    return true;
  }
  n->outer_calls++;
  n->depth++;
  /* the same box again from inside: the walk of the outer query goes on */
  sn_aabb box = sn_shape_get_aabb(w, shape);
  int before = n->inner_total;
  ck_assert_int_eq(sn_world_overlap_aabb(w, box, sn_default_query_filter(), lk_nest_fcn, n), SN_OK);
  ck_assert_int_ge(n->inner_total - before, 1);
  sn_debug_draw d = sn_default_debug_draw();
  d.segment = lk_nest_segment;
  d.context = n;
  d.flags = SN_DRAW_AABBS;
  ck_assert_int_eq(sn_world_draw(w, &d), SN_OK);
  n->depth--;
  lk_try_every_mutation(n->f);
  return true;
}

START_TEST(test_nested_queries_keep_the_lock) {
  lk_fixture f;
  lk_setup(&f);
  size_t size = 0;
  unsigned char *before = lk_snapshot(f.w, &size);
  lk_nest n = {&f, 0, 0, 0, 0};
  sn_aabb left = {{-25.0f, -1.0f}, {-15.0f, 2.0f}};
  ck_assert_int_eq(sn_world_overlap_aabb(f.w, left, sn_default_query_filter(), lk_nest_fcn, &n), SN_OK);
  ck_assert_int_ge(n.outer_calls, 5); /* the ground and the boxes there */
  ck_assert_int_ge(n.inner_total, n.outer_calls);
  ck_assert_int_ge(n.draws, 4 * (LK_BOXES + 2));
  lk_assert_same_world(f.w, before, size);
  ck_assert_int_eq(sn_world_step(f.w, DT), SN_OK);
  free(before);
  lk_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Debug draw                                                                */

typedef struct lk_draw {
  lk_fixture *f;
  int calls[8];
  int refused;
} lk_draw;

/* Each callback kind: the first call tries everything; every call tries to
 * destroy every box (the boxes of the joint among them: its plugin draws
 * it from views of these bodies). */
static void lk_draw_hit(lk_draw *d, int kind) {
  if (d->calls[kind]++ == 0) lk_try_every_mutation(d->f);
  for (int i = 0; i < LK_BOXES; ++i) {
    ck_assert_int_eq(sn_destroy_body(d->f->w, d->f->boxes[i]), SN_ERR_WORLD_LOCKED);
    d->refused++;
  }
  ck_assert_int_eq(sn_destroy_constraint(d->f->w, d->f->joint), SN_ERR_WORLD_LOCKED);
}
static void lk_polygon(const sn_vec2 *v, int32_t n, float radius, uint32_t rgba, void *ctx) {
  (void)v, (void)n, (void)radius, (void)rgba;
  lk_draw_hit(ctx, 0);
}
static void lk_solid_circle(sn_transform xf, float radius, uint32_t rgba, void *ctx) {
  (void)xf, (void)radius, (void)rgba;
  lk_draw_hit(ctx, 1);
}
static void lk_capsule(sn_vec2 a, sn_vec2 b, float radius, uint32_t rgba, void *ctx) {
  (void)a, (void)b, (void)radius, (void)rgba;
  lk_draw_hit(ctx, 2);
}
static void lk_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *ctx) {
  (void)a, (void)b, (void)rgba;
  lk_draw_hit(ctx, 3);
}
static void lk_point(sn_vec2 p, float size, uint32_t rgba, void *ctx) {
  (void)p, (void)size, (void)rgba;
  lk_draw_hit(ctx, 4);
}
static void lk_circle(sn_vec2 c, float radius, uint32_t rgba, void *ctx) {
  (void)c, (void)radius, (void)rgba;
  lk_draw_hit(ctx, 5);
}
static void lk_transform(sn_transform xf, float len, void *ctx) {
  (void)xf, (void)len;
  lk_draw_hit(ctx, 6);
}
static void lk_string(sn_vec2 p, const char *text, uint32_t rgba, void *ctx) {
  (void)p, (void)text, (void)rgba;
  lk_draw_hit(ctx, 7);
}

static sn_debug_draw lk_debug_draw(lk_draw *d, uint32_t flags) {
  sn_debug_draw dd = sn_default_debug_draw();
  dd.polygon = lk_polygon;
  dd.solid_circle = lk_solid_circle;
  dd.capsule = lk_capsule;
  dd.segment = lk_segment;
  dd.point = lk_point;
  dd.circle = lk_circle;
  dd.transform = lk_transform;
  dd.string = lk_string;
  dd.context = d;
  dd.flags = flags;
  return dd;
}

START_TEST(test_draw_callbacks_run_locked) {
  lk_fixture f;
  lk_setup(&f);
  size_t size = 0;
  unsigned char *before = lk_snapshot(f.w, &size);

  /* only the joints first: the distance joint's plugin draws segments and
   * points from its bodies while the callback tries to destroy them */
  lk_draw d;
  memset(&d, 0, sizeof d);
  d.f = &f;
  sn_debug_draw dd = lk_debug_draw(&d, SN_DRAW_JOINTS);
  ck_assert_int_eq(sn_world_draw(f.w, &dd), SN_OK);
  ck_assert_int_ge(d.calls[3] + d.calls[4], 1);
  ck_assert_int_ge(d.refused, LK_BOXES);
  lk_assert_same_world(f.w, before, size);

  /* everything */
  memset(&d, 0, sizeof d);
  d.f = &f;
  dd = lk_debug_draw(&d, SN_DRAW_ALL);
  ck_assert_int_eq(sn_world_draw(f.w, &dd), SN_OK);
  ck_assert_int_ge(d.calls[0], LK_BOXES + 1); /* polygons: the ground and the boxes */
  ck_assert_int_ge(d.calls[1], 2);            /* the particles */
  ck_assert_int_ge(d.calls[3], 10);           /* segments: tree, boxes, chain, normals, forces */
  ck_assert_int_ge(d.calls[4], LK_BOXES);     /* contact points */
  ck_assert_int_ge(d.calls[6], LK_BOXES);     /* body frames */
  ck_assert_int_ge(d.calls[7], 1);            /* the joint's force label */
  lk_assert_same_world(f.w, before, size);
  for (int i = 0; i < LK_BOXES; ++i) ck_assert(sn_body_is_valid(f.w, f.boxes[i]));
  ck_assert(sn_constraint_is_valid(f.w, f.joint));

  /* and unlocked once drawn */
  ck_assert_int_eq(sn_destroy_body(f.w, f.boxes[0]), SN_OK);
  ck_assert(!sn_constraint_is_valid(f.w, f.joint));
  sn_debug_draw plain = sn_default_debug_draw();
  ck_assert_int_eq(sn_world_draw(f.w, &plain), SN_OK);
  free(before);
  lk_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Constraint hooks: a host type whose every hook calls back into the world. */

/* Test-only file-scope state: hooks get no context, so the fixture comes in
 * through here. */
static lk_fixture *g_hook_fixture;
static int g_hook_calls[8];

enum { HOOK_CREATE, HOOK_DESTROY, HOOK_PARAMS, HOOK_PREPARE, HOOK_REACTION, HOOK_DRAW, HOOK_EXPORT, HOOK_SOLVE };

typedef struct hook_params {
  float value;
} hook_params;

static void hook_enter(int which) {
  g_hook_calls[which]++;
  lk_try_every_mutation(g_hook_fixture);
}

static int hook_create(const sn_constraint_create_args *args) {
  (void)args;
  hook_enter(HOOK_CREATE);
  return 0;
}
static void hook_destroy(void *instance) {
  (void)instance;
  hook_enter(HOOK_DESTROY);
}
static int hook_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)params, (void)instance, (void)err, (void)cap;
  hook_enter(HOOK_PARAMS);
  return 0;
}
static void hook_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
  hook_enter(HOOK_PREPARE);
}
static void hook_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
  g_hook_calls[HOOK_SOLVE]++;
}
static void hook_get_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info, (void)item;
  *force = (sn_vec2){0.0f, 0.0f};
  *torque = 0.0f;
  hook_enter(HOOK_REACTION);
}
static void hook_debug_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  (void)item, (void)draw;
  hook_enter(HOOK_DRAW);
}
static int hook_export(const void *params, const void *instance, const sn_constraint_body *const *bodies, int32_t count,
                       void *out) {
  (void)params, (void)instance, (void)bodies, (void)count, (void)out;
  hook_enter(HOOK_EXPORT);
  return 0;
}

START_TEST(test_constraint_hooks_run_locked) {
  static const sn_param_desc hook_schema[] = {
      {1, SN_PARAM_FLOAT, "value", 0, SN_PARAM_RUNTIME, 0.0, 10.0, 1.0, NULL},
  };
  static const sn_constraint_type hook_type = {
      .struct_size = sizeof(sn_constraint_type),
      .name = "test.lock_hooks",
      .flags = SN_CONSTRAINT_IMPULSE,
      .body_count = 2,
      .params_size = sizeof(hook_params),
      .params_align = 4,
      .instance_size = 4,
      .instance_align = 4,
      .param_count = 1,
      .params = hook_schema,
      .create = hook_create,
      .destroy = hook_destroy,
      .params_changed = hook_params_changed,
      .prepare = hook_prepare,
      .solve_velocity = hook_solve,
      .get_reaction = hook_get_reaction,
      .debug_draw = hook_debug_draw,
      .export_params = hook_export,
  };
  lk_fixture f;
  lk_setup(&f);
  char err[256];
  ck_assert_msg(sn_registry_add_type(f.reg, &hook_type, err, sizeof err) == SN_OK, "%s", err);
  g_hook_fixture = &f;
  memset(g_hook_calls, 0, sizeof g_hook_calls);
  const int bodies = sn_world_get_body_count(f.w);

  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.lock_hooks";
  cd.bodies[0] = f.boxes[5];
  cd.bodies[1] = f.boxes[6];
  cd.break_force = 1e6f; /* get_reaction runs inside the step too */
  sn_constraint_id k = sn_create_constraint(f.w, &cd);
  ck_assert_msg(sn_constraint_is_valid(f.w, k), "%s", sn_world_last_error(f.w));
  ck_assert_int_eq(g_hook_calls[HOOK_CREATE], 1);
  ck_assert_int_eq(sn_world_step(f.w, DT), SN_OK);
  ck_assert_int_ge(g_hook_calls[HOOK_PREPARE], 1);
  ck_assert_int_ge(g_hook_calls[HOOK_SOLVE], 1);
  ck_assert_int_ge(g_hook_calls[HOOK_REACTION], 1);
  ck_assert_int_eq(sn_constraint_set_param(f.w, k, "value", 2.0, 0.0), SN_OK);
  ck_assert_int_eq(g_hook_calls[HOOK_PARAMS], 1);
  sn_vec2 force;
  float torque;
  int reactions = g_hook_calls[HOOK_REACTION];
  ck_assert_int_eq(sn_constraint_get_reaction(f.w, k, &force, &torque), SN_OK);
  ck_assert_int_eq(g_hook_calls[HOOK_REACTION], reactions + 1);
  hook_params out;
  ck_assert_int_eq(sn_constraint_export_params(f.w, k, &out, sizeof out), SN_OK);
  ck_assert_int_eq(g_hook_calls[HOOK_EXPORT], 1);
  sn_debug_draw d = sn_default_debug_draw();
  d.flags = SN_DRAW_JOINTS | SN_DRAW_CONSTRAINT_FORCES;
  ck_assert_int_eq(sn_world_draw(f.w, &d), SN_OK);
  ck_assert_int_eq(g_hook_calls[HOOK_DRAW], 1);
  ck_assert_int_eq(sn_destroy_constraint(f.w, k), SN_OK);
  ck_assert_int_eq(g_hook_calls[HOOK_DESTROY], 1);
  /* 8 hook runs, each with every mutation refused */
  ck_assert_int_ge(f.refused, 8 * LK_MUTATIONS);
  ck_assert_int_eq(sn_world_get_body_count(f.w), bodies);
  ck_assert_int_eq(sn_world_get_constraint_count(f.w), 1); /* the distance joint */
  g_hook_fixture = NULL;
  lk_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Events stay put until the next step                                       */

static bool lk_same_pair(sn_shape_id a, sn_shape_id b, sn_shape_id x, sn_shape_id y) {
  return (memcmp(&a, &x, sizeof a) == 0 && memcmp(&b, &y, sizeof b) == 0) ||
         (memcmp(&a, &y, sizeof a) == 0 && memcmp(&b, &x, sizeof b) == 0);
}

static int lk_count_end(sn_contact_events e, sn_shape_id x, sn_shape_id y) {
  int n = 0;
  for (int32_t i = 0; i < e.end_count; ++i) n += lk_same_pair(e.end_events[i].shape_a, e.end_events[i].shape_b, x, y);
  return n;
}

static void lk_assert_same_events(sn_world *w, sn_contact_events e, const sn_contact_begin_event *begin_copy,
                                  const sn_contact_end_event *end_copy) {
  sn_contact_events now = sn_world_get_contact_events(w);
  ck_assert_ptr_eq(now.begin_events, e.begin_events);
  ck_assert_ptr_eq(now.end_events, e.end_events);
  ck_assert_ptr_eq(now.hit_events, e.hit_events);
  ck_assert_int_eq(now.begin_count, e.begin_count);
  ck_assert_int_eq(now.end_count, e.end_count);
  ck_assert_int_eq(now.hit_count, e.hit_count);
  /* the memory the caller holds is still the events (ASan: not freed) */
  if (e.begin_count > 0) ck_assert(memcmp(e.begin_events, begin_copy, (size_t)e.begin_count * sizeof *begin_copy) == 0);
  if (e.end_count > 0) ck_assert(memcmp(e.end_events, end_copy, (size_t)e.end_count * sizeof *end_copy) == 0);
}

/* Loop over the end events of a step while destroying a body that touches
 * every box: the many end events the destruction raises wait for the next
 * step, which reports each, so the array being looped over neither grows
 * nor moves. */
START_TEST(test_end_events_stable_while_destroying) {
  lk_fixture f;
  lk_setup(&f);
  sn_world *w = f.w;
  /* a box resting alone on a small platform; destroyed, it ends one touch */
  sn_body_def pd = sn_default_body_def();
  pd.position = (sn_vec2){50.0f, 0.0f};
  sn_body_id platform = sn_create_body(w, &pd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_offset_box(2.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &slab), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id platform_shape = sn_create_polygon_shape(w, platform, &sd, &slab);
  sn_shape_id lone_shape;
  sn_body_id lone = lk_box(w, (sn_vec2){50.0f, 0.4f}, &lone_shape);
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_get_contact_events(w).end_count, 0);

  /* destroyed between steps: not in the last step's arrays, in the next's */
  ck_assert_int_eq(sn_destroy_body(w, lone), SN_OK);
  ck_assert_int_eq(sn_world_get_contact_events(w).end_count, 0);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_contact_events e = sn_world_get_contact_events(w);
  ck_assert_int_eq(e.end_count, 1);
  ck_assert_int_eq(lk_count_end(e, lone_shape, platform_shape), 1);

  sn_contact_end_event end_copy[4];
  sn_contact_begin_event begin_copy[64];
  ck_assert_int_le(e.begin_count, 64);
  memcpy(end_copy, e.end_events, sizeof end_copy[0]);
  if (e.begin_count > 0) memcpy(begin_copy, e.begin_events, (size_t)e.begin_count * sizeof begin_copy[0]);
  int looped = 0;
  for (int32_t i = 0; i < e.end_count; ++i) {
    sn_contact_end_event ev = e.end_events[i];
    ck_assert(lk_same_pair(ev.shape_a, ev.shape_b, lone_shape, platform_shape));
    /* the ground touches every box: LK_BOXES end events raised here */
    ck_assert_int_eq(sn_destroy_body(w, f.ground), SN_OK);
    ck_assert(memcmp(&e.end_events[i], &ev, sizeof ev) == 0);
    lk_assert_same_events(w, e, begin_copy, end_copy);
    looped++;
  }
  ck_assert_int_eq(looped, 1);
  /* more destroys, more events held back; still the same arrays */
  for (int i = 2; i < LK_BOXES; ++i) ck_assert_int_eq(sn_destroy_body(w, f.boxes[i]), SN_OK);
  lk_assert_same_events(w, e, begin_copy, end_copy);

  /* the next step reports every end the destroys raised, once */
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_contact_events next = sn_world_get_contact_events(w);
  ck_assert_int_eq(lk_count_end(next, lone_shape, platform_shape), 0);
  for (int i = 0; i < LK_BOXES; ++i)
    ck_assert_msg(lk_count_end(next, f.box_shapes[i], f.ground_shape) == 1, "box %d's end with the ground", i);
  ck_assert_int_eq(next.end_count, LK_BOXES);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_get_contact_events(w).end_count, 0);
  lk_teardown(&f);
}
END_TEST

/* Loop over begin events destroying both bodies of each pair: the arrays
 * stay the same throughout, and the next step reports an end per pair. */
START_TEST(test_begin_events_stable_while_destroying) {
  lk_fixture f;
  lk_setup(&f);
  sn_world *w = f.w;
  /* boxes dropped onto a second ground: they begin touching in one step */
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, 40.0f};
  sn_body_id floor = sn_create_body(w, &gd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_offset_box(30.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &slab), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id floor_shape = sn_create_polygon_shape(w, floor, &sd, &slab);
  enum { DROPS = 20 };
  sn_body_id drops[DROPS];
  sn_shape_id drop_shapes[DROPS];
  for (int i = 0; i < DROPS; ++i) drops[i] = lk_box(w, (sn_vec2){-20.0f + 2.0f * (float)i, 40.41f}, &drop_shapes[i]);
  sn_contact_events e = {0};
  for (int n = 0; n < 30 && e.begin_count < DROPS; ++n) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    e = sn_world_get_contact_events(w);
  }
  ck_assert_int_eq(e.begin_count, DROPS);
  sn_contact_begin_event begin_copy[DROPS];
  memcpy(begin_copy, e.begin_events, sizeof begin_copy);
  sn_contact_end_event end_copy[1];
  memset(end_copy, 0, sizeof end_copy);
  ck_assert_int_eq(e.end_count, 0);
  for (int32_t i = 0; i < e.begin_count; ++i) {
    sn_contact_begin_event ev = e.begin_events[i];
    sn_body_id a = sn_shape_get_body(w, ev.shape_a), b = sn_shape_get_body(w, ev.shape_b);
    sn_body_id box = sn_body_get_type(w, a) == SN_BODY_DYNAMIC ? a : b;
    ck_assert_int_eq(sn_destroy_body(w, box), SN_OK);
    /* and a new body in its place: creation moves nothing either */
    sn_body_def bd = sn_default_body_def();
    bd.position = (sn_vec2){100.0f + (float)i, 0.0f};
    ck_assert(sn_body_is_valid(w, sn_create_body(w, &bd)));
    lk_assert_same_events(w, e, begin_copy, end_copy);
  }
  for (int i = 0; i < DROPS; ++i) ck_assert(!sn_body_is_valid(w, drops[i]));
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_contact_events next = sn_world_get_contact_events(w);
  ck_assert_int_eq(next.end_count, DROPS);
  for (int i = 0; i < DROPS; ++i) ck_assert_int_eq(lk_count_end(next, drop_shapes[i], floor_shape), 1);
  lk_teardown(&f);
}
END_TEST

/* Broken-constraint and frozen events are step-only; destroying while
 * looping over broken events leaves them as they were. */
START_TEST(test_broken_events_stable_while_destroying) {
  lk_fixture f;
  lk_setup(&f);
  sn_world *w = f.w;
  ck_assert_int_eq(sn_constraint_set_break_force(w, f.joint, 1e-3f), SN_OK);
  ck_assert_int_eq(
      sn_body_apply_linear_impulse(w, f.boxes[1], (sn_vec2){50.0f, 0.0f}, sn_body_get_position(w, f.boxes[1]), true),
      SN_OK);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  const sn_constraint_broken_event *broken = NULL;
  int32_t n = sn_world_get_broken_constraints(w, &broken);
  ck_assert_int_eq(n, 1);
  sn_constraint_broken_event copy = broken[0];
  for (int i = 0; i < LK_BOXES; ++i) ck_assert_int_eq(sn_destroy_body(w, f.boxes[i]), SN_OK);
  const sn_constraint_broken_event *again = NULL;
  ck_assert_int_eq(sn_world_get_broken_constraints(w, &again), 1);
  ck_assert_ptr_eq(again, broken);
  ck_assert(memcmp(broken, &copy, sizeof copy) == 0);
  lk_teardown(&f);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("lock");
  TCase *tc = tcase_create("lock");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_query_callbacks_run_locked);
  tcase_add_test(tc, test_nested_queries_keep_the_lock);
  tcase_add_test(tc, test_draw_callbacks_run_locked);
  tcase_add_test(tc, test_constraint_hooks_run_locked);
  tcase_add_test(tc, test_end_events_stable_while_destroying);
  tcase_add_test(tc, test_begin_events_stable_while_destroying);
  tcase_add_test(tc, test_broken_events_stable_while_destroying);
  suite_add_tcase(s, tc);
  return s;
}
