/* Collision filtering (groups, sn_shape_set_filter, the custom filter and
 * pre-solve callbacks), reading contacts (sn_body_get_contacts,
 * sn_shape_get_contacts, the manifold of begin events), body move events and
 * sensors (overlap events of shapes and soft bodies, sn_shape_get_sensor_overlaps). */
#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/collision.h"
#include "sinew/sinew.h"
#include "sinew/soft.h"
#include "sinew/thread_pool.h"
#include "world/world.h"

#define CT_DT (1.0f / 60.0f)
#define CT_G  10.0f

static sn_world *ct_world(void) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.0f, -CT_G};
  sn_result r;
  sn_world *w = sn_create_world(&wd, &r);
  ck_assert_int_eq(r, SN_OK);
  return w;
}

/* A static ground whose top face is y = 0. */
static sn_shape_id ct_ground(sn_world *w, const sn_shape_def *sd) {
  sn_body_def bd = sn_default_body_def();
  sn_body_id g = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &box), SN_OK);
  sn_shape_id s = sn_create_polygon_shape(w, g, sd, &box);
  ck_assert_msg(sn_shape_is_valid(w, s), "%s", sn_world_last_error(w));
  return s;
}

static sn_shape_id ct_box(sn_world *w, sn_body_type type, sn_vec2 p, float half, const sn_shape_def *sd) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(half, half, &box), SN_OK);
  sn_shape_id s = sn_create_polygon_shape(w, b, sd, &box);
  ck_assert_msg(sn_shape_is_valid(w, s), "%s", sn_world_last_error(w));
  return s;
}

static float ct_y(sn_world *w, sn_shape_id s) { return sn_body_get_position(w, sn_shape_get_body(w, s)).y; }

static void ct_steps(sn_world *w, int n) {
  for (int i = 0; i < n; ++i) ck_assert_int_eq(sn_world_step(w, CT_DT), SN_OK);
}

/* ------------------------------------------------------------------------ */
/* Groups and filters                                                        */

/* A box dropped from 1 m with the given filters on ground and box: where it
 * is after 2 s (0.25 on the ground, far below if it fell through). */
static float ct_drop(sn_filter ground, sn_filter box) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sd.category_bits = ground.category_bits;
  sd.mask_bits = ground.mask_bits;
  sd.group_index = ground.group_index;
  ct_ground(w, &sd);
  sd.category_bits = box.category_bits;
  sd.mask_bits = box.mask_bits;
  sd.group_index = box.group_index;
  sn_shape_id b = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 1.0f}, 0.25f, &sd);
  ct_steps(w, 120);
  float y = ct_y(w, b);
  sn_destroy_world(w);
  return y;
}

START_TEST(test_group_rules) {
  const sn_filter all = {1, UINT64_MAX, 0};
  /* resting: centre at the half extent, within the linear slop (5 mm) */
  ck_assert_float_eq_tol(ct_drop(all, all), 0.25f, 0.005f);
  /* masks that exclude each other: falls through (free fall for 2 s: 1 - g t^2 / 2 = -19 m) */
  const sn_filter a_only = {1, 1, 0}, b_only = {2, 2, 0};
  ck_assert_float_lt(ct_drop(a_only, b_only), -10.0f);
  /* one direction is enough to refuse */
  const sn_filter b_sees_a = {2, 1, 0};
  ck_assert_float_lt(ct_drop(a_only, b_sees_a), -10.0f);
  /* the same positive group collides whatever the masks say */
  const sn_filter a_g = {1, 1, 7}, b_g = {2, 2, 7};
  ck_assert_float_eq_tol(ct_drop(a_g, b_g), 0.25f, 0.005f);
  /* the same negative group never collides, even with masks that pass */
  const sn_filter a_n = {1, UINT64_MAX, -3}, b_n = {1, UINT64_MAX, -3};
  ck_assert_float_lt(ct_drop(a_n, b_n), -10.0f);
  /* different groups: category and mask decide */
  const sn_filter a_d = {1, UINT64_MAX, -3}, b_d = {1, UINT64_MAX, -4};
  ck_assert_float_eq_tol(ct_drop(a_d, b_d), 0.25f, 0.005f);
  const sn_filter a_p = {1, 1, 5}, b_p = {2, 2, 6};
  ck_assert_float_lt(ct_drop(a_p, b_p), -10.0f);
}
END_TEST

/* A chain's group_index goes to every segment: a box of the same negative
 * group falls through the chain, one of another group rests on it. */
START_TEST(test_chain_group) {
  sn_world *w = ct_world();
  sn_body_def bd = sn_default_body_def();
  sn_body_id g = sn_create_body(w, &bd);
  /* a clockwise (container) loop: the floor's inside faces up */
  const sn_vec2 pts[] = {{-5.0f, 0.0f}, {-5.0f, 5.0f}, {5.0f, 5.0f}, {5.0f, 0.0f}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 4;
  cd.is_loop = true;
  cd.group_index = -7;
  ck_assert_msg(sn_chain_is_valid(w, sn_create_chain(w, g, &cd)), "%s", sn_world_last_error(w));
  sn_shape_id segs[8];
  ck_assert_int_eq(sn_body_get_shapes(w, g, segs, 8), 4);
  for (int i = 0; i < 4; ++i) ck_assert_int_eq(sn_shape_get_filter(w, segs[i]).group_index, -7);
  sn_shape_def sd = sn_default_shape_def();
  sd.group_index = -7;
  sn_shape_id ghost = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-2.0f, 1.0f}, 0.25f, &sd);
  sd.group_index = -8;
  sn_shape_id solid = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){2.0f, 1.0f}, 0.25f, &sd);
  ct_steps(w, 120);
  ck_assert_float_lt(ct_y(w, ghost), -10.0f);
  ck_assert_float_eq_tol(ct_y(w, solid), 0.25f, 0.005f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_set_filter) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id ground = ct_ground(w, &sd);
  sn_shape_id box = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 0.25f}, 0.25f, &sd);
  sn_body_id body = sn_shape_get_body(w, box);
  ct_steps(w, 60); /* resting, touching */
  ck_assert_int_eq(sn_body_get_contact_count(w, body), 1);
  sn_filter f = sn_shape_get_filter(w, box);
  ck_assert(f.category_bits == 1 && f.mask_bits == UINT64_MAX && f.group_index == 0);
  /* refuse the ground: the contact goes at once, its end event comes with the next step */
  sn_filter off = {2, 2, 0};
  ck_assert_int_eq(sn_shape_set_filter(w, box, off), SN_OK);
  f = sn_shape_get_filter(w, box);
  ck_assert(f.category_bits == 2 && f.mask_bits == 2 && f.group_index == 0);
  ck_assert_int_eq(sn_body_get_contact_count(w, body), 0);
  ck_assert(sn_body_is_awake(w, body));
  ct_steps(w, 1);
  sn_contact_events ev = sn_world_get_contact_events(w);
  ck_assert_int_eq(ev.end_count, 1);
  ck_assert(sn_shape_is_valid(w, ev.end_events[0].shape_a) && sn_shape_is_valid(w, ev.end_events[0].shape_b));
  /* it falls: after 0.5 s more, y = 0.25 - g t^2 / 2 (t = 31 steps) within the substep error */
  ct_steps(w, 29);
  float t = 30.0f * CT_DT, expected = 0.25f - 0.5f * CT_G * t * t;
  ck_assert_float_eq_tol(ct_y(w, box), expected, 0.05f);
  /* a positive group shared with the ground: they collide again (a new pair, found next step) */
  sn_filter g_box = {2, 2, 9}, g_ground = {1, 1, 9};
  ck_assert_int_eq(sn_shape_set_filter(w, ground, g_ground), SN_OK);
  ck_assert_int_eq(sn_shape_set_filter(w, box, g_box), SN_OK);
  ck_assert_int_eq(sn_body_set_transform(w, body, (sn_vec2){0.0f, 0.5f}, 0.0f), SN_OK);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, body, (sn_vec2){0.0f, 0.0f}), SN_OK);
  ct_steps(w, 90);
  ck_assert_float_eq_tol(ct_y(w, box), 0.25f, 0.005f);
  ck_assert_int_eq(sn_body_get_contact_count(w, body), 1);
  /* errors: a stale handle, inside a step's callback (the lock) */
  sn_shape_id stale = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){5.0f, 5.0f}, 0.25f, &sd);
  ck_assert_int_eq(sn_destroy_shape(w, stale, true), SN_OK);
  ck_assert_int_eq(sn_shape_set_filter(w, stale, off), SN_ERR_STALE_ID);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "was destroyed"));
  f = sn_shape_get_filter(w, stale);
  ck_assert(f.category_bits == 0 && f.mask_bits == 0 && f.group_index == 0);
  ck_assert(!sn_shape_is_sensor(w, stale));
  sn_destroy_world(w);
}
END_TEST

/* Every shape's proxy carries its collision group (the pair search and
 * continuous collision pass over leaves of the searching shape's negative
 * group without looking them up): kept at creation, at a filter change and
 * through a snapshot. Two boxes of group -5 overlap on a static slab of
 * group -5 and fall through it, through each other; a box of group -6
 * rests on the ground. A's group set to 0, A lands on the slab and B on A,
 * the pair found in the search that skipped it before. */
static void ct_check_leaf_groups(sn_world *w) {
  int32_t seen = 0;
  for (int32_t i = 0; i < w->shapes.count; ++i) {
    const sn_shape *sh = w->shapes.data + i;
    if (!sh->in_use || sh->proxy == SN_NULL_NODE) continue;
    const sn_tree *t = sh->is_static_tree ? &w->static_tree : &w->dynamic_tree;
    ck_assert_int_eq(t->nodes[sh->proxy].group, sh->group_index);
    seen += sh->group_index != 0;
  }
  ck_assert_int_gt(seen, 0);
}

START_TEST(test_filter_groups_in_leaves) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  ct_ground(w, &sd);
  sd.group_index = -6;
  sn_shape_id other = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){3.0f, 0.25f}, 0.25f, &sd);
  sd.group_index = -5;
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){0.0f, 2.0f};
  sn_body_id slab = sn_create_body(w, &bd);
  sn_polygon plate;
  ck_assert_int_eq(sn_make_box(2.0f, 0.1f, &plate), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, slab, &sd, &plate)));
  sn_shape_id a = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 3.0f}, 0.25f, &sd);
  sn_shape_id b = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.1f, 3.1f}, 0.25f, &sd);
  ct_check_leaf_groups(w);
  /* a snapshot's world has the same groups in its leaves */
  size_t size = 0;
  sn_world_save_snapshot(w, NULL, 0, &size); /* (the size needed) */
  void *bytes = malloc(size);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, size, &size), SN_OK);
  sn_world *copy = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(bytes, size, NULL, &copy, NULL, 0), SN_OK);
  ct_check_leaf_groups(copy);
  sn_destroy_world(copy);
  free(bytes);
  /* through the slab and each other, onto the ground (group -6 rests there) */
  ct_steps(w, 60);
  ck_assert_float_lt(ct_y(w, a), 1.0f);
  ck_assert_float_lt(fabsf(ct_y(w, a) - ct_y(w, b)), 0.2f); /* still overlapping */
  ck_assert_float_eq_tol(ct_y(w, other), 0.25f, 0.005f);
  /* lifted above the slab, A in no group: A rests on the slab, B on A */
  ck_assert_int_eq(sn_shape_set_filter(w, a, (sn_filter){1, UINT64_MAX, 0}), SN_OK);
  ct_check_leaf_groups(w);
  sn_body_id ba = sn_shape_get_body(w, a), bb = sn_shape_get_body(w, b);
  ck_assert_int_eq(sn_body_set_transform(w, ba, (sn_vec2){0.0f, 2.6f}, 0.0f), SN_OK);
  ck_assert_int_eq(sn_body_set_transform(w, bb, (sn_vec2){0.0f, 3.4f}, 0.0f), SN_OK);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, ba, (sn_vec2){0.0f, 0.0f}), SN_OK);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, bb, (sn_vec2){0.0f, 0.0f}), SN_OK);
  ct_steps(w, 90);
  ck_assert_float_eq_tol(ct_y(w, a), 2.1f + 0.25f, 0.01f);
  ck_assert_float_eq_tol(ct_y(w, b), 2.1f + 0.75f, 0.02f);
  sn_destroy_world(w);
}
END_TEST

/* A custom filter that refuses pairs with the shape in the context; it
 * counts the calls about the other opted-in shape. */
static int ct_filter_calls, ct_solid_calls;
static int32_t ct_solid_index;
static bool ct_refuse(sn_shape_id a, sn_shape_id b, void *context) {
  const sn_shape_id *banned = context;
  ct_filter_calls++;
  ck_assert_int_lt(a.index1, b.index1); /* in index order */
  if (a.index1 == ct_solid_index || b.index1 == ct_solid_index) ct_solid_calls++;
  return !(a.index1 == banned->index1 || b.index1 == banned->index1);
}

START_TEST(test_custom_filter) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  ct_ground(w, &sd);
  sn_shape_def opt = sn_default_shape_def();
  opt.enable_custom_filtering = true;
  sn_shape_id ghost = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-2.0f, 1.0f}, 0.25f, &opt);
  sn_shape_id solid = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){2.0f, 1.0f}, 0.25f, &opt);
  /* a shape that did not opt in is never asked about */
  sn_shape_id plain = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){6.0f, 1.0f}, 0.25f, &sd);
  ck_assert_int_eq(sn_world_set_custom_filter(w, ct_refuse, &ghost), SN_OK);
  ct_filter_calls = ct_solid_calls = 0;
  ct_solid_index = solid.index1;
  ct_steps(w, 120);
  ck_assert_float_lt(ct_y(w, ghost), -10.0f);            /* refused: fell through */
  ck_assert_float_eq_tol(ct_y(w, solid), 0.25f, 0.005f); /* allowed */
  ck_assert_float_eq_tol(ct_y(w, plain), 0.25f, 0.005f); /* not asked */
  /* the solid box's pair with the ground is asked about once and then made; the ghost's
   * refused pair is asked again each step its box moves in the broadphase */
  ck_assert_int_eq(ct_solid_calls, 1);
  ck_assert_int_gt(ct_filter_calls, 2);
  ck_assert_int_eq(sn_world_set_custom_filter(w, NULL, NULL), SN_OK);
  ck_assert(w->custom_filter == NULL);
  ck_assert_int_eq(sn_world_set_custom_filter(NULL, NULL, NULL), SN_ERR_NULL);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Pre-solve: a one-way platform                                             */

typedef struct ct_platform {
  sn_shape_id platform;
  atomic_int calls;
} ct_platform;

/* Solid only for bodies above it: the manifold's normal points from A to
 * B, so the contact holds when it points from the platform up to the other
 * shape (the Box2D sample's rule). */
static bool ct_one_way(sn_shape_id a, sn_shape_id b, const sn_contact_manifold *m, void *context) {
  ct_platform *p = context;
  atomic_fetch_add(&p->calls, 1);
  float sign;
  if (a.index1 == p->platform.index1)
    sign = 1.0f;
  else if (b.index1 == p->platform.index1)
    sign = -1.0f;
  else
    return true;
  return sign * m->normal.y > 0.95f;
}

START_TEST(test_one_way_platform) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  /* the platform: a static slab whose top face is y = 3 */
  sn_body_def bd = sn_default_body_def();
  sn_body_id pb = sn_create_body(w, &bd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_offset_box(3.0f, 0.1f, (sn_vec2){0.0f, 2.9f}, 0.0f, &slab), SN_OK);
  sn_shape_def pd = sn_default_shape_def();
  pd.enable_pre_solve_events = true;
  ct_platform ctx;
  ctx.platform = sn_create_polygon_shape(w, pb, &pd, &slab);
  atomic_init(&ctx.calls, 0);
  ck_assert_int_eq(sn_world_set_pre_solve(w, ct_one_way, &ctx), SN_OK);
  /* a box thrown up from below (under the platform) at 9 m/s: apex 0.5 + 81 / 20 = 4.55 m */
  sn_shape_id riser = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-1.0f, 0.5f}, 0.25f, &sd);
  sn_body_id rb = sn_shape_get_body(w, riser);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, rb, (sn_vec2){0.0f, 9.0f}), SN_OK);
  /* a box falling from above */
  sn_shape_id faller = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){1.0f, 5.0f}, 0.25f, &sd);
  float apex = 0.0f;
  for (int i = 0; i < 240; ++i) {
    ct_steps(w, 1);
    apex = fmaxf(apex, ct_y(w, riser));
  }
  /* the riser went through: its apex is the free flight's (4.55 m, within the substep error) */
  ck_assert_float_eq_tol(apex, 0.5f + 81.0f / (2.0f * CT_G), 0.03f);
  /* both rest on the platform: centre at 3 + 0.25, within the linear slop */
  ck_assert_float_eq_tol(ct_y(w, riser), 3.25f, 0.005f);
  ck_assert_float_eq_tol(ct_y(w, faller), 3.25f, 0.005f);
  ck_assert_int_gt(atomic_load(&ctx.calls), 0);
  sn_destroy_world(w);
}
END_TEST

/* The same platform with several workers: the callback runs on the workers
 * and the results are the single thread's, bit for bit. */
START_TEST(test_one_way_threads) {
  sn_vec2 end[2][40];
  int calls[2];
  /* the sensor events of every step, as (step, sensor, visitor, begin) records */
  static int32_t seen[2][4096][4];
  int32_t seen_count[2] = {0, 0};
  for (int run = 0; run < 2; ++run) {
    sn_world *w = ct_world();
    sn_thread_pool *pool = NULL;
    if (run == 1) {
      pool = sn_thread_pool_create(3);
      ck_assert_ptr_nonnull(pool);
      ck_assert_int_eq(sn_world_set_task_system(w, sn_thread_pool_worker_count(pool), sn_thread_pool_enqueue,
                                                sn_thread_pool_finish, pool),
                       SN_OK);
      w->parallel_min_items = 0;
    }
    sn_body_def bd = sn_default_body_def();
    sn_body_id pb = sn_create_body(w, &bd);
    sn_polygon slab;
    ck_assert_int_eq(sn_make_offset_box(10.0f, 0.1f, (sn_vec2){0.0f, 2.9f}, 0.0f, &slab), SN_OK);
    sn_shape_def pd = sn_default_shape_def();
    pd.enable_pre_solve_events = true;
    ct_platform ctx;
    ctx.platform = sn_create_polygon_shape(w, pb, &pd, &slab);
    atomic_init(&ctx.calls, 0);
    ck_assert_int_eq(sn_world_set_pre_solve(w, ct_one_way, &ctx), SN_OK);
    sn_shape_def sd = sn_default_shape_def();
    sn_body_id boxes[40];
    for (int i = 0; i < 40; ++i) {
      /* odd boxes thrown up from below, even ones dropped from above */
      sn_shape_id s = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-9.0f + 0.45f * (float)i, (i % 2) ? 1.0f : 5.0f}, 0.2f, &sd);
      boxes[i] = sn_shape_get_body(w, s);
      if (i % 2) ck_assert_int_eq(sn_body_set_linear_velocity(w, boxes[i], (sn_vec2){0.0f, 8.0f}), SN_OK);
    }
    /* a sensor zone under the platform */
    sn_body_id zb = sn_create_body(w, &bd);
    sn_polygon zone;
    ck_assert_int_eq(sn_make_offset_box(10.0f, 0.8f, (sn_vec2){0.0f, 2.0f}, 0.0f, &zone), SN_OK);
    sn_shape_def zd = sn_default_shape_def();
    zd.is_sensor = true;
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, zb, &zd, &zone)));
    for (int step = 0; step < 120; ++step) {
      ct_steps(w, 1);
      sn_sensor_events ev = sn_world_get_sensor_events(w);
      for (int k = 0; k < ev.begin_count + ev.end_count && seen_count[run] < 4096; ++k) {
        int32_t *r = seen[run][seen_count[run]++];
        bool begin = k < ev.begin_count;
        r[0] = step;
        r[1] = begin ? ev.begin_events[k].sensor.index1 : ev.end_events[k - ev.begin_count].sensor.index1;
        r[2] = begin ? ev.begin_events[k].visitor.index1 : ev.end_events[k - ev.begin_count].visitor.index1;
        r[3] = begin;
      }
    }
    for (int i = 0; i < 40; ++i) {
      end[run][i] = sn_body_get_position(w, boxes[i]);
      /* every box ends on the platform: centre at 3 + 0.2 */
      ck_assert_float_eq_tol(end[run][i].y, 3.2f, 0.01f);
    }
    calls[run] = atomic_load(&ctx.calls);
    sn_destroy_world(w);
    if (pool) sn_thread_pool_destroy(pool);
  }
  ck_assert(memcmp(end[0], end[1], sizeof(end[0])) == 0);
  ck_assert_int_eq(calls[0], calls[1]);
  /* the 20 boxes thrown up crossed the zone (y 1.2 to 2.8) on their way to the platform: a
   * begin and an end each, the same on both runs (the dropped ones stay above it) */
  ck_assert_int_eq(seen_count[0], 40);
  ck_assert_int_eq(seen_count[0], seen_count[1]);
  ck_assert(memcmp(seen[0], seen[1], (size_t)seen_count[0] * sizeof(seen[0][0])) == 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Reading contacts                                                          */

START_TEST(test_contact_impulses) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id ground = ct_ground(w, &sd);
  sn_shape_id box = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 0.25f}, 0.25f, &sd);
  sn_body_id body = sn_shape_get_body(w, box);
  ck_assert(sn_body_set_awake(w, body, true) == SN_OK);
  sn_world_enable_sleeping(w, false);
  ct_steps(w, 120);
  const float m = sn_body_get_mass(w, body); /* 0.5 x 0.5 m at 1 kg/m^2: 0.25 kg */
  ck_assert_float_eq_tol(m, 0.25f, 1e-6f);
  ck_assert_int_eq(sn_body_get_contact_count(w, body), 1);
  sn_contact_data cd[4];
  ck_assert_int_eq(sn_body_get_contacts(w, body, cd, 4), 1);
  const sn_contact_manifold *mf = &cd[0].manifold;
  ck_assert_int_eq(mf->point_count, 2);
  /* resting: the ground carries the weight; the impulse of one step is m g dt (within 1 %;
   * reported per step: the last substep's times the substep count) */
  float total = mf->points[0].normal_impulse + mf->points[1].normal_impulse;
  ck_assert_float_eq_tol(total, m * CT_G * CT_DT, 0.01f * m * CT_G * CT_DT);
  /* the normal points from A to B: the ground is below the box */
  bool ground_is_a = cd[0].shape_a.index1 == ground.index1;
  ck_assert(ground_is_a || cd[0].shape_b.index1 == ground.index1);
  ck_assert_float_eq_tol(mf->normal.y, ground_is_a ? 1.0f : -1.0f, 1e-5f);
  /* points on the face y = 0 at the box's corners x = -0.25, 0.25, no friction needed */
  for (int i = 0; i < 2; ++i) {
    ck_assert_float_eq_tol(mf->points[i].point.y, 0.0f, 0.005f);
    ck_assert_float_eq_tol(fabsf(mf->points[i].point.x), 0.25f, 0.005f);
    ck_assert_float_eq_tol(mf->points[i].tangent_impulse, 0.0f, 1e-6f);
    ck_assert(mf->points[i].separation < 0.005f);
  }
  /* the shape sees the same contact; the ground's body too */
  sn_contact_data sc[2];
  ck_assert_int_eq(sn_shape_get_contacts(w, box, sc, 2), 1);
  ck_assert(memcmp(&sc[0], &cd[0], sizeof(sc[0])) == 0);
  ck_assert_int_eq(sn_shape_get_contacts(w, ground, sc, 2), 1);
  ck_assert_int_eq(sn_body_get_contact_count(w, sn_shape_get_body(w, ground)), 1);
  /* capacity: 0 counts; too small truncates */
  ck_assert_int_eq(sn_body_get_contacts(w, body, NULL, 0), 1);
  ck_assert_int_eq(sn_body_get_contacts(w, body, cd, 0), 1);
  /* errors */
  ck_assert_int_eq(sn_body_get_contacts(w, body, NULL, 3), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "capacity"));
  ck_assert_int_eq(sn_body_get_contacts(w, body, cd, -1), -1);
  ck_assert_int_eq(sn_shape_get_contacts(w, box, NULL, 1), -1);
  sn_body_id gone = sn_shape_get_body(w, ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){5, 5}, 0.2f, &sd));
  ck_assert_int_eq(sn_destroy_body(w, gone), SN_OK);
  ck_assert_int_eq(sn_body_get_contacts(w, gone, cd, 4), -1);
  ck_assert_int_eq(sn_body_get_contact_count(w, gone), 0);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "was destroyed"));
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_begin_event_manifold) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id ground = ct_ground(w, &sd);
  sn_shape_id box = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 1.0f}, 0.25f, &sd);
  int begins = 0;
  for (int i = 0; i < 60; ++i) {
    ct_steps(w, 1);
    sn_contact_events ev = sn_world_get_contact_events(w);
    for (int k = 0; k < ev.begin_count; ++k) {
      const sn_contact_begin_event *e = ev.begin_events + k;
      ck_assert(e->shape_a.index1 == ground.index1 || e->shape_b.index1 == ground.index1);
      ck_assert(e->shape_a.index1 == box.index1 || e->shape_b.index1 == box.index1);
      /* a flat landing: two points, the normal vertical, separations within the speculative margin */
      ck_assert_int_eq(e->manifold.point_count, 2);
      ck_assert_float_eq_tol(fabsf(e->manifold.normal.y), 1.0f, 1e-5f);
      for (int p = 0; p < 2; ++p) ck_assert_float_lt(e->manifold.points[p].separation, 0.05f);
      begins++;
    }
  }
  ck_assert_int_eq(begins, 1);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Body move events                                                          */

START_TEST(test_body_events) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  ct_ground(w, &sd);
  sn_shape_id a = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-1.0f, 1.0f}, 0.25f, &sd);
  sn_shape_id b = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){1.0f, 2.0f}, 0.25f, &sd);
  sn_body_id ba = sn_shape_get_body(w, a), bb = sn_shape_get_body(w, b);
  ck_assert_int_eq(sn_world_get_body_events(w).move_count, 0);
  ct_steps(w, 1);
  sn_body_events ev = sn_world_get_body_events(w);
  /* the two falling boxes (the static ground never moves), in slot order */
  ck_assert_int_eq(ev.move_count, 2);
  ck_assert(memcmp(&ev.move_events[0].body, &ba, sizeof(ba)) == 0);
  ck_assert(memcmp(&ev.move_events[1].body, &bb, sizeof(bb)) == 0);
  sn_transform xf = sn_body_get_transform(w, bb);
  ck_assert(memcmp(&ev.move_events[1].transform, &xf, sizeof(xf)) == 0);
  ck_assert(!ev.move_events[0].fell_asleep && !ev.move_events[1].fell_asleep);
  /* they land and sleep (0.5 s slow): each reports falling asleep once, then nothing moves */
  int asleep[2] = {0, 0};
  for (int i = 0; i < 300; ++i) {
    ct_steps(w, 1);
    ev = sn_world_get_body_events(w);
    for (int k = 0; k < ev.move_count; ++k) {
      if (!ev.move_events[k].fell_asleep) continue;
      asleep[ev.move_events[k].body.index1 == ba.index1 ? 0 : 1]++;
    }
  }
  ck_assert_int_eq(asleep[0], 1);
  ck_assert_int_eq(asleep[1], 1);
  ck_assert_int_eq(sn_world_get_body_events(w).move_count, 0);
  ck_assert(!sn_body_is_awake(w, ba) && !sn_body_is_awake(w, bb));
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Sensors                                                                   */

static float ct_count_hits(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  (void)shape, (void)point, (void)normal, (void)fraction;
  *(int *)context += 1;
  return 1.0f; /* every hit */
}

static bool ct_count_overlaps(sn_shape_id shape, void *context) {
  (void)shape;
  *(int *)context += 1;
  return true;
}

typedef struct ct_counts {
  int begins, ends;
} ct_counts;

static void ct_count_sensor(sn_world *w, sn_shape_id sensor, sn_shape_id visitor, ct_counts *c) {
  sn_sensor_events ev = sn_world_get_sensor_events(w);
  for (int k = 0; k < ev.begin_count; ++k) {
    if (ev.begin_events[k].sensor.index1 == sensor.index1 && ev.begin_events[k].visitor.index1 == visitor.index1)
      c->begins++;
  }
  for (int k = 0; k < ev.end_count; ++k) {
    if (ev.end_events[k].sensor.index1 == sensor.index1 && ev.end_events[k].visitor.index1 == visitor.index1) c->ends++;
  }
}

START_TEST(test_sensor_zone) {
  sn_world *w = ct_world();
  sn_world_enable_continuous(w, false);
  /* a static zone from y = 2 to y = 4 */
  sn_body_def bd = sn_default_body_def();
  sn_body_id zb = sn_create_body(w, &bd);
  sn_polygon zone;
  ck_assert_int_eq(sn_make_offset_box(2.0f, 1.0f, (sn_vec2){0.0f, 3.0f}, 0.0f, &zone), SN_OK);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  sn_shape_id sensor = sn_create_polygon_shape(w, zb, &zd, &zone);
  ck_assert_msg(sn_shape_is_valid(w, sensor), "%s", sn_world_last_error(w));
  ck_assert(sn_shape_is_sensor(w, sensor));
  sn_shape_def sd = sn_default_shape_def();
  /* a box falling through it from y = 6, one that opted out */
  sn_shape_id box = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 6.0f}, 0.25f, &sd);
  sn_shape_def quiet = sn_default_shape_def();
  quiet.enable_sensor_events = false;
  sn_shape_id hidden = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){1.0f, 6.0f}, 0.25f, &quiet);
  ct_counts c = {0, 0}, ch = {0, 0};
  int first_in = -1, first_out = -1, inside_steps = 0;
  for (int i = 1; i <= 90; ++i) {
    ct_steps(w, 1);
    ct_counts before = c;
    ct_count_sensor(w, sensor, box, &c);
    ct_count_sensor(w, sensor, hidden, &ch);
    if (c.begins > before.begins) first_in = i;
    if (c.ends > before.ends) first_out = i;
    sn_shape_id inside[4];
    int32_t n = sn_shape_get_sensor_overlaps(w, sensor, inside, 4);
    ck_assert_int_ge(n, 0);
    if (n > 0) {
      ck_assert_int_eq(n, 1);
      ck_assert(memcmp(&inside[0], &box, sizeof(box)) == 0);
      inside_steps++;
    }
  }
  ck_assert_int_eq(c.begins, 1);
  ck_assert_int_eq(c.ends, 1);
  ck_assert_int_eq(ch.begins + ch.ends, 0);
  /* the sensor never pushed: the box fell freely through it (no contact, y = 6 - g t^2 / 2) */
  float t = 90.0f * CT_DT;
  ck_assert_float_eq_tol(ct_y(w, box), 6.0f - 0.5f * CT_G * t * t, 0.1f);
  /* the box's bottom crosses y = 4 at t = sqrt(2 * 1.75 / g) = 0.592 s (step 36); the pass at
   * a step's start reports it with that step's events: step 37 or the one after (substep error) */
  ck_assert_int_ge(first_in, 36);
  ck_assert_int_le(first_in, 38);
  /* its top leaves y = 2 at t = sqrt(2 * 4.25 / g) = 0.922 s (step 55.3) */
  ck_assert_int_ge(first_out, 56);
  ck_assert_int_le(first_out, 58);
  ck_assert_int_eq(inside_steps, first_out - first_in);
  /* a ray passes through the sensor (nothing else is on its line) */
  sn_ray_result ray;
  ck_assert_int_eq(
      sn_world_cast_ray_closest(w, (sn_vec2){-1.5f, 10.0f}, (sn_vec2){0.0f, -20.0f}, sn_default_query_filter(), &ray),
      SN_OK);
  ck_assert(!ray.hit);
  /* so does a shape cast; an overlap query reports the sensor */
  sn_shape_proxy disc;
  const sn_vec2 centre = {-1.5f, 10.0f};
  ck_assert_int_eq(sn_make_proxy(&centre, 1, 0.2f, &disc), SN_OK);
  int hits = 0, overlaps = 0;
  ck_assert_int_eq(
      sn_world_cast_shape(w, &disc, (sn_vec2){0.0f, -20.0f}, sn_default_query_filter(), ct_count_hits, &hits), SN_OK);
  ck_assert_int_eq(hits, 0);
  sn_aabb probe = {{-1.6f, 2.9f}, {-1.4f, 3.1f}};
  ck_assert_int_eq(sn_world_overlap_aabb(w, probe, sn_default_query_filter(), ct_count_overlaps, &overlaps), SN_OK);
  ck_assert_int_eq(overlaps, 1);
  /* errors: a shape that is not a sensor, bad capacity */
  sn_shape_id out[1];
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, box, out, 1), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "not a sensor"));
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, sensor, NULL, 2), -1);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, sensor, out, -1), -1);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_sensor_bodies_and_destroy) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  ct_ground(w, &sd);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  /* a sensor on a dynamic body falls like any body (its density gives it mass) and passes
   * through the ground; one on a kinematic body sweeps over resting boxes */
  sn_shape_id falling = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-5.0f, 2.0f}, 0.5f, &zd);
  sn_shape_id sweeper = ct_box(w, SN_BODY_KINEMATIC, (sn_vec2){-3.0f, 0.5f}, 0.5f, &zd);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, sn_shape_get_body(w, sweeper), (sn_vec2){2.0f, 0.0f}), SN_OK);
  sn_shape_id rest[3];
  for (int i = 0; i < 3; ++i) rest[i] = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){(float)i * 2.0f, 0.25f}, 0.25f, &sd);
  ct_counts seen[3] = {{0, 0}, {0, 0}, {0, 0}};
  for (int i = 0; i < 120; ++i) { /* 2 s: the sweeper goes from x = -3 to 1 */
    ct_steps(w, 1);
    for (int k = 0; k < 3; ++k) ct_count_sensor(w, sweeper, rest[k], &seen[k]);
  }
  /* the sweeper (1 m wide) passed box 0 (x = 0) and is over box 1's edge at x = 1 +- 0.5 */
  ck_assert_int_eq(seen[0].begins, 1);
  ck_assert_int_eq(seen[0].ends, 1);
  ck_assert_int_eq(seen[2].begins, 0);
  /* the boxes stayed where they were (a sensor pushes nothing) */
  for (int k = 0; k < 3; ++k) ck_assert_float_eq_tol(ct_y(w, rest[k]), 0.25f, 0.005f);
  ck_assert_float_lt(ct_y(w, falling), -5.0f);
  /* the ground was seen by the falling sensor and left behind */
  /* destroying a shape inside a sensor: its end event comes with the next step */
  ck_assert_int_eq(sn_body_set_linear_velocity(w, sn_shape_get_body(w, sweeper), (sn_vec2){0.0f, 0.0f}), SN_OK);
  ck_assert_int_eq(sn_body_set_transform(w, sn_shape_get_body(w, sweeper), (sn_vec2){4.0f, 0.4f}, 0.0f), SN_OK);
  ct_steps(w, 2);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, sweeper, NULL, 0), 2); /* the ground and box 2 */
  ck_assert_int_eq(sn_destroy_body(w, sn_shape_get_body(w, rest[2])), SN_OK);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, sweeper, NULL, 0), 1); /* destroyed: not listed */
  ct_steps(w, 1);
  ct_counts gone = {0, 0};
  ct_count_sensor(w, sweeper, rest[2], &gone);
  ck_assert_int_eq(gone.ends, 1);
  /* destroying the sensor ends its overlaps (the ground) */
  ck_assert_int_eq(sn_destroy_shape(w, sweeper, true), SN_OK);
  ct_steps(w, 1);
  sn_sensor_events ev = sn_world_get_sensor_events(w);
  ck_assert_int_eq(ev.end_count, 1);
  ck_assert(memcmp(&ev.end_events[0].sensor, &sweeper, sizeof(sweeper)) == 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_sensor_soft_body) {
  sn_world *w = ct_world();
  sn_body_def bd = sn_default_body_def();
  sn_body_id zb = sn_create_body(w, &bd);
  sn_polygon zone;
  ck_assert_int_eq(sn_make_offset_box(2.0f, 1.0f, (sn_vec2){0.0f, 3.0f}, 0.0f, &zone), SN_OK);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  sn_shape_id sensor = sn_create_polygon_shape(w, zb, &zd, &zone);
  /* a soft body of two particles falling through */
  sn_soft_body_def sbd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sbd);
  ck_assert(sn_soft_body_is_valid(w, soft));
  sn_particle_def pdf = sn_default_particle_def();
  pdf.position = (sn_vec2){0.0f, 6.0f};
  ck_assert(sn_particle_is_valid(w, sn_create_particle(w, soft, &pdf)));
  pdf.position = (sn_vec2){0.2f, 6.5f};
  ck_assert(sn_particle_is_valid(w, sn_create_particle(w, soft, &pdf)));
  int begins = 0, ends = 0;
  for (int i = 0; i < 90; ++i) {
    ct_steps(w, 1);
    sn_sensor_events ev = sn_world_get_sensor_events(w);
    for (int k = 0; k < ev.begin_count; ++k) {
      ck_assert(memcmp(&ev.begin_events[k].soft_body, &soft, sizeof(soft)) == 0);
      ck_assert_int_eq(ev.begin_events[k].visitor.index1, 0);
      ck_assert(memcmp(&ev.begin_events[k].sensor, &sensor, sizeof(sensor)) == 0);
      begins++;
    }
    for (int k = 0; k < ev.end_count; ++k) {
      ck_assert(memcmp(&ev.end_events[k].soft_body, &soft, sizeof(soft)) == 0);
      ends++;
    }
  }
  /* one event per soft body, however many of its particles are inside */
  ck_assert_int_eq(begins, 1);
  ck_assert_int_eq(ends, 1);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, sensor, NULL, 0), 0);
  sn_destroy_world(w);
}
END_TEST

/* Sensors come and go among many other shapes: each one reports exactly
 * the boxes inside it, a destroyed sensor's overlaps end, a sensor made in
 * its slot starts its own, and a soft body far from every sensor is never
 * reported while one inside a sensor is. */
START_TEST(test_sensor_list_changes) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  ct_ground(w, &sd);
  /* 200 resting boxes along the ground, 0.2 m apart: x = -19.9 .. 19.9 */
  sn_shape_id boxes[200];
  for (int i = 0; i < 200; ++i)
    boxes[i] = ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-19.9f + 0.2f * (float)i, 0.05f}, 0.05f, &sd);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  /* three static zones 1 m square at box centres x = -9.9, 0.1, 10.1, reaching 0.05 m into the
   * ground: each holds the ground and five boxes (centres within 0.4; the next ones, 0.6 away, are
   * 0.05 m clear) */
  const float zx[3] = {-9.9f, 0.1f, 10.1f};
  sn_shape_id zones[3];
  for (int k = 0; k < 3; ++k) zones[k] = ct_box(w, SN_BODY_STATIC, (sn_vec2){zx[k], 0.45f}, 0.5f, &zd);
  /* a soft body of one particle resting on the ground at x = -5.1 (no zone) */
  sn_soft_body_def sbd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sbd);
  sn_particle_def pdf = sn_default_particle_def();
  pdf.position = (sn_vec2){-5.1f, 0.2f};
  ck_assert(sn_particle_is_valid(w, sn_create_particle(w, soft, &pdf)));
  ct_steps(w, 2);
  for (int k = 0; k < 3; ++k) ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, zones[k], NULL, 0), 6);
  /* the middle zone goes: its six overlaps end with the next step */
  ck_assert_int_eq(sn_destroy_shape(w, zones[1], true), SN_OK);
  ct_steps(w, 1);
  sn_sensor_events ev = sn_world_get_sensor_events(w);
  ck_assert_int_eq(ev.end_count, 6);
  for (int k = 0; k < ev.end_count; ++k) ck_assert_int_eq(ev.end_events[k].sensor.index1, zones[1].index1);
  ck_assert_int_eq(ev.begin_count, 0);
  /* a zone over the soft body (x = -5.1) and one at x = 5.1: begins for the soft body, the ground
   * and five boxes each */
  sn_shape_id over_soft = ct_box(w, SN_BODY_STATIC, (sn_vec2){-5.1f, 0.45f}, 0.5f, &zd);
  sn_shape_id fourth = ct_box(w, SN_BODY_STATIC, (sn_vec2){5.1f, 0.45f}, 0.5f, &zd);
  ct_steps(w, 1);
  ev = sn_world_get_sensor_events(w);
  int soft_begins = 0, fourth_begins = 0, over_soft_boxes = 0;
  for (int k = 0; k < ev.begin_count; ++k) {
    if (ev.begin_events[k].soft_body.index1 != 0) {
      ck_assert(memcmp(&ev.begin_events[k].soft_body, &soft, sizeof(soft)) == 0);
      ck_assert_int_eq(ev.begin_events[k].sensor.index1, over_soft.index1);
      soft_begins++;
    } else if (ev.begin_events[k].sensor.index1 == fourth.index1) {
      fourth_begins++;
    } else {
      ck_assert_int_eq(ev.begin_events[k].sensor.index1, over_soft.index1);
      over_soft_boxes++;
    }
  }
  ck_assert_int_eq(soft_begins, 1);
  ck_assert_int_eq(fourth_begins, 6);
  ck_assert_int_eq(over_soft_boxes, 6);
  ck_assert_int_eq(ev.end_count, 0);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, zones[0], NULL, 0), 6);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, zones[2], NULL, 0), 6);
  (void)boxes;
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_sensor_errors) {
  sn_world *w = ct_world();
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  sn_body_id b = sn_create_body(w, &bd);
  sn_circle circle = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  zd.enable_hit_events = true;
  ck_assert(!sn_shape_is_valid(w, sn_create_circle_shape(w, b, &zd, &circle)));
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "sensor makes no contacts"));
  zd.enable_hit_events = false;
  zd.enable_pre_solve_events = true;
  ck_assert(!sn_shape_is_valid(w, sn_create_circle_shape(w, b, &zd, &circle)));
  ck_assert_int_eq(sn_body_get_shape_count(w, b), 0);
  zd.enable_pre_solve_events = false;
  sn_shape_id s = sn_create_circle_shape(w, b, &zd, &circle);
  ck_assert(sn_shape_is_valid(w, s));
  /* the def round-trips its flags */
  sn_shape_def back;
  ck_assert_int_eq(sn_shape_get_def(w, s, &back), SN_OK);
  ck_assert(back.is_sensor && back.enable_sensor_events && !back.enable_custom_filtering);
  ck_assert_int_eq(sn_destroy_shape(w, s, true), SN_OK);
  ck_assert_int_eq(sn_shape_get_sensor_overlaps(w, s, NULL, 0), -1);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "was destroyed"));
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                 */

static uint8_t *ct_save(sn_world *w, size_t *n) {
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, n), SN_OK);
  uint8_t *bytes = malloc(*n);
  ck_assert_ptr_nonnull(bytes);
  size_t written = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, *n, &written), SN_OK);
  ck_assert_uint_eq(written, *n);
  return bytes;
}

/* A restored world keeps the sensor flags, the groups and the opt-ins, and
 * the sensors' overlaps: it reports the same sensor events as the original,
 * bit for bit, and saves the same bytes. */
START_TEST(test_snapshot_round_trip) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sd.group_index = -2;
  sd.enable_pre_solve_events = true;
  ct_ground(w, &sd);
  sn_body_def bd = sn_default_body_def();
  sn_body_id zb = sn_create_body(w, &bd);
  sn_polygon zone;
  ck_assert_int_eq(sn_make_offset_box(3.0f, 1.0f, (sn_vec2){0.0f, 3.0f}, 0.0f, &zone), SN_OK);
  sn_shape_def zd = sn_default_shape_def();
  zd.is_sensor = true;
  zd.enable_custom_filtering = true;
  sn_shape_id sensor = sn_create_polygon_shape(w, zb, &zd, &zone);
  sn_shape_def bx = sn_default_shape_def();
  bx.enable_sensor_events = false;
  bx.group_index = 4;
  ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-2.0f, 6.0f}, 0.25f, &bx); /* unseen by the sensor */
  bx = sn_default_shape_def();
  for (int i = 0; i < 5; ++i)
    ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){-1.0f + 0.6f * (float)i, 4.5f + 0.5f * (float)i}, 0.25f, &bx);
  ct_steps(w, 20); /* some boxes are inside */
  ck_assert_int_gt(sn_shape_get_sensor_overlaps(w, sensor, NULL, 0), 0);
  size_t n = 0;
  uint8_t *bytes = ct_save(w, &n);
  sn_world_def wd = sn_default_world_def();
  sn_world *r = NULL;
  char err[256];
  ck_assert_msg(sn_world_load_snapshot(bytes, n, &wd, &r, err, sizeof err) == SN_OK, "%s", err);
  size_t n2 = 0;
  uint8_t *again = ct_save(r, &n2);
  ck_assert_uint_eq(n, n2);
  ck_assert(memcmp(bytes, again, n) == 0);
  /* the flags */
  sn_shape_def back;
  ck_assert_int_eq(sn_shape_get_def(r, sensor, &back), SN_OK);
  ck_assert(back.is_sensor && back.enable_custom_filtering && back.enable_sensor_events);
  sn_shape_id ids[16];
  ck_assert_int_eq(sn_body_get_shapes(r, sn_shape_get_body(r, sensor), ids, 16), 1);
  sn_body_id bodies[16];
  int32_t nb = sn_world_get_bodies(r, bodies, 16);
  ck_assert_int_eq(nb, 8);
  ck_assert_int_eq(sn_body_get_shapes(r, bodies[0], ids, 16), 1);
  ck_assert_int_eq(sn_shape_get_def(r, ids[0], &back), SN_OK);
  ck_assert(back.group_index == -2 && back.enable_pre_solve_events && !back.is_sensor);
  ck_assert_int_eq(sn_body_get_shapes(r, bodies[2], ids, 16), 1);
  ck_assert_int_eq(sn_shape_get_def(r, ids[0], &back), SN_OK);
  ck_assert(back.group_index == 4 && !back.enable_sensor_events);
  /* the same events, step by step */
  int events = 0;
  for (int i = 0; i < 60; ++i) {
    ct_steps(w, 1);
    ct_steps(r, 1);
    sn_sensor_events a = sn_world_get_sensor_events(w), b = sn_world_get_sensor_events(r);
    ck_assert_int_eq(a.begin_count, b.begin_count);
    ck_assert_int_eq(a.end_count, b.end_count);
    if (a.begin_count > 0)
      ck_assert(memcmp(a.begin_events, b.begin_events, (size_t)a.begin_count * sizeof(*a.begin_events)) == 0);
    if (a.end_count > 0)
      ck_assert(memcmp(a.end_events, b.end_events, (size_t)a.end_count * sizeof(*a.end_events)) == 0);
    events += a.begin_count + a.end_count;
  }
  ck_assert_int_gt(events, 0);
  free(bytes);
  free(again);
  sn_destroy_world(r);
  sn_destroy_world(w);
}
END_TEST

/* Every mutating call of this file refuses inside a callback of a step. */
typedef struct ct_lock_probe {
  sn_world *w;
  sn_shape_id shape;
  int refused;
} ct_lock_probe;

static bool ct_probe_pre_solve(sn_shape_id a, sn_shape_id b, const sn_contact_manifold *m, void *context) {
  (void)a;
  (void)b;
  (void)m;
  (void)context;
  return true;
}

static bool ct_probe_filter(sn_shape_id a, sn_shape_id b, void *context) {
  (void)a;
  (void)b;
  ct_lock_probe *p = context;
  sn_filter f = {1, UINT64_MAX, 0};
  p->refused += sn_shape_set_filter(p->w, p->shape, f) == SN_ERR_WORLD_LOCKED;
  p->refused += sn_world_set_custom_filter(p->w, NULL, NULL) == SN_ERR_WORLD_LOCKED;
  p->refused += sn_world_set_pre_solve(p->w, ct_probe_pre_solve, NULL) == SN_ERR_WORLD_LOCKED;
  return true;
}

START_TEST(test_calls_during_step) {
  sn_world *w = ct_world();
  sn_shape_def sd = sn_default_shape_def();
  sd.enable_custom_filtering = true;
  ct_ground(w, &sd);
  ct_lock_probe p = {w, ct_box(w, SN_BODY_DYNAMIC, (sn_vec2){0.0f, 0.3f}, 0.25f, &sd), 0};
  ck_assert_int_eq(sn_world_set_custom_filter(w, ct_probe_filter, &p), SN_OK);
  ct_steps(w, 1);
  ck_assert_int_eq(p.refused, 3);
  ck_assert_ptr_nonnull(strstr(sn_world_last_error(w), "locked"));
  ck_assert(w->pre_solve == NULL);
  ck_assert(w->custom_filter == ct_probe_filter);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("contacts");
  TCase *tc = tcase_create("filter");
  tcase_add_test(tc, test_group_rules);
  tcase_add_test(tc, test_set_filter);
  tcase_add_test(tc, test_filter_groups_in_leaves);
  tcase_add_test(tc, test_chain_group);
  tcase_add_test(tc, test_custom_filter);
  tcase_add_test(tc, test_one_way_platform);
  tcase_add_test(tc, test_one_way_threads);
  tcase_add_test(tc, test_calls_during_step);
  suite_add_tcase(s, tc);
  tc = tcase_create("contacts");
  tcase_add_test(tc, test_contact_impulses);
  tcase_add_test(tc, test_begin_event_manifold);
  tcase_add_test(tc, test_body_events);
  suite_add_tcase(s, tc);
  tc = tcase_create("sensors");
  tcase_add_test(tc, test_sensor_zone);
  tcase_add_test(tc, test_sensor_bodies_and_destroy);
  tcase_add_test(tc, test_sensor_soft_body);
  tcase_add_test(tc, test_sensor_list_changes);
  tcase_add_test(tc, test_sensor_errors);
  tcase_add_test(tc, test_snapshot_round_trip);
  suite_add_tcase(s, tc);
  return s;
}
