/* Dynamic AABB tree: structure, balance, queries against brute force,
 * filtering, enlarge, rebuild, deferred moves and the partial rebuild, determinism, the deep-tree fallback and the
 * leak counter. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "collision/tree.h"
#include "base/math.h"
#include "base/alloc.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/// Tiny LCG (Numerical Recipes constants): fixed sequence on every platform.
typedef struct lcg {
  uint32_t state;
} lcg;

static uint32_t lcg_next(lcg *g) {
  g->state = g->state * 1664525u + 1013904223u;
  return g->state;
}

/// Uniform in [lo, hi).
static float lcg_float(lcg *g, float lo, float hi) {
  float u = (float)(lcg_next(g) >> 8) / 16777216.0f;
  return lo + (hi - lo) * u;
}

static int32_t lcg_int(lcg *g, int32_t n) { return (int32_t)((lcg_next(g) >> 8) % (uint32_t)n); }

#define WORLD_HALF 100.0f

static sn_aabb random_box(lcg *g) {
  float cx = lcg_float(g, -WORLD_HALF, WORLD_HALF);
  float cy = lcg_float(g, -WORLD_HALF, WORLD_HALF);
  float hx = lcg_float(g, 0.05f, 4.0f);
  float hy = lcg_float(g, 0.05f, 4.0f);
  return (sn_aabb){{cx - hx, cy - hy}, {cx + hx, cy + hy}};
}

static uint64_t random_category(lcg *g) { return (uint64_t)1 << lcg_int(g, 4); }

static bool boxes_overlap(sn_aabb a, sn_aabb b) {
  return !(b.lower.x > a.upper.x || b.lower.y > a.upper.y || a.lower.x > b.upper.x || a.lower.y > b.upper.y);
}

static bool box_contains(sn_aabb outer, sn_aabb inner) {
  return outer.lower.x <= inner.lower.x && outer.lower.y <= inner.lower.y && inner.upper.x <= outer.upper.x &&
         inner.upper.y <= outer.upper.y;
}

/// Slab test: entry fraction of origin + t * d (0 <= t <= max_fraction) into
/// the box, or -1 for a miss. Inside the box counts as a hit at 0.
static float ray_box_fraction(sn_vec2 p, sn_vec2 d, float max_fraction, sn_aabb box) {
  float t_min = 0.0f, t_max = max_fraction;
  float ps[2] = {p.x, p.y}, ds[2] = {d.x, d.y};
  float lo[2] = {box.lower.x, box.lower.y}, hi[2] = {box.upper.x, box.upper.y};
  for (int i = 0; i < 2; ++i) {
    if (ds[i] == 0.0f) {
      if (ps[i] < lo[i] || ps[i] > hi[i]) return -1.0f;
      continue;
    }
    float inv = 1.0f / ds[i];
    float t1 = (lo[i] - ps[i]) * inv;
    float t2 = (hi[i] - ps[i]) * inv;
    if (t1 > t2) {
      float t = t1;
      t1 = t2;
      t2 = t;
    }
    if (t1 > t_min) t_min = t1;
    if (t2 < t_max) t_max = t2;
    if (t_min > t_max) return -1.0f;
  }
  return t_min;
}

/// Height bound asserted everywhere: h <= 2.5 * log2(n) + 2 (n >= 1). The
/// tree keeps the children of every node within 4 levels of each other, which
/// alone gives h <= 2.5 log2(n) for n >= 2; typical trees are ~1.3 log2(n).
static double height_bound(int32_t n) { return n <= 1 ? 2.0 : 2.5 * log2((double)n) + 2.0; }

/// Mirror of the tree's proxies for brute force.
typedef struct proxy_rec {
  int32_t id;
  sn_aabb box;
  uint64_t category;
  int32_t user_data;
} proxy_rec;

typedef struct model {
  proxy_rec *items;
  int32_t count, capacity;
} model;

static void model_add(model *m, proxy_rec r) {
  if (m->count == m->capacity) {
    m->capacity = m->capacity ? 2 * m->capacity : 64;
    m->items = realloc(m->items, (size_t)m->capacity * sizeof(proxy_rec));
    ck_assert_ptr_nonnull(m->items);
  }
  m->items[m->count++] = r;
}

static void model_remove_at(model *m, int32_t i) { m->items[i] = m->items[--m->count]; }

static void model_free(model *m) {
  free(m->items);
  memset(m, 0, sizeof(*m));
}

static int compare_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/// Collects the ids a query reports.
typedef struct hit_list {
  int32_t ids[20000];
  int32_t user_data[20000];
  int32_t count;
  int32_t stop_after; ///< 0 = never stop
} hit_list;

static bool collect_fcn(int32_t proxy_id, int32_t user_data, void *context) {
  hit_list *h = context;
  ck_assert_int_lt(h->count, 20000);
  h->ids[h->count] = proxy_id;
  h->user_data[h->count] = user_data;
  h->count += 1;
  return h->stop_after == 0 || h->count < h->stop_after;
}

/// collect_fcn for a collected leaves query (the leaf's user data only).
static bool collect_leaf_fcn(int32_t user_data, void *context) { return collect_fcn(-1, user_data, context); }

/// The tree's answer must equal the brute-force set exactly (no duplicates).
static void check_query(const sn_tree *tree, const model *m, sn_aabb box, uint64_t mask) {
  static hit_list got;
  got.count = 0;
  got.stop_after = 0;
  sn_tree_query(tree, box, mask, collect_fcn, &got);
  for (int32_t i = 0; i < got.count; ++i) {
    ck_assert_int_eq(got.user_data[i], sn_tree_get_user_data(tree, got.ids[i]));
  }

  int32_t *want = malloc((size_t)(m->count + 1) * sizeof(int32_t));
  ck_assert_ptr_nonnull(want);
  int32_t want_count = 0;
  for (int32_t i = 0; i < m->count; ++i) {
    if ((m->items[i].category & mask) != 0 && boxes_overlap(m->items[i].box, box)) want[want_count++] = m->items[i].id;
  }
  qsort(got.ids, (size_t)got.count, sizeof(int32_t), compare_i32);
  qsort(want, (size_t)want_count, sizeof(int32_t), compare_i32);
  ck_assert_int_eq(got.count, want_count);
  for (int32_t i = 0; i < want_count; ++i) ck_assert_int_eq(got.ids[i], want[i]);
  free(want);
}

/// Closest-hit ray cast through the tree callback.
typedef struct ray_ctx {
  const sn_tree *tree;
  float best;
  int32_t best_id;
  int32_t calls;
  uint64_t mask; ///< to check the filter: every visited leaf must pass it
} ray_ctx;

static float closest_fcn(const sn_ray_input *input, int32_t proxy_id, int32_t user_data, void *context) {
  ray_ctx *c = context;
  ck_assert_int_eq(user_data, sn_tree_get_user_data(c->tree, proxy_id));
  ck_assert((c->tree->nodes[proxy_id].category_bits & c->mask) != 0);
  c->calls += 1;
  float t =
      ray_box_fraction(input->origin, input->translation, input->max_fraction, sn_tree_get_aabb(c->tree, proxy_id));
  if (t < 0.0f) return input->max_fraction; // miss: continue unchanged
  if (t < c->best) {
    c->best = t;
    c->best_id = proxy_id;
  }
  return t; // clip (0 terminates: nothing can be closer)
}

static void check_ray(const sn_tree *tree, const model *m, sn_ray_input input, uint64_t mask) {
  ray_ctx c = {tree, 2.0f, SN_NULL_NODE, 0, mask};
  sn_tree_ray_cast(tree, &input, mask, closest_fcn, &c);

  float want = 2.0f;
  for (int32_t i = 0; i < m->count; ++i) {
    if ((m->items[i].category & mask) == 0) continue;
    float t = ray_box_fraction(input.origin, input.translation, input.max_fraction, m->items[i].box);
    if (t >= 0.0f && t < want) want = t;
  }
  ck_assert_msg(c.best == want, "ray: tree %g brute %g", (double)c.best, (double)want);
  if (want <= input.max_fraction) {
    float t = ray_box_fraction(input.origin, input.translation, input.max_fraction, sn_tree_get_aabb(tree, c.best_id));
    ck_assert(t == want);
  }
}

static sn_ray_input random_ray(lcg *g) {
  sn_ray_input r;
  r.origin = (sn_vec2){lcg_float(g, -1.2f * WORLD_HALF, 1.2f * WORLD_HALF),
                       lcg_float(g, -1.2f * WORLD_HALF, 1.2f * WORLD_HALF)};
  r.translation = (sn_vec2){lcg_float(g, -150.0f, 150.0f), lcg_float(g, -150.0f, 150.0f)};
  // Some axis-aligned rays exercise the zero components of the slab tests.
  int kind = lcg_int(g, 8);
  if (kind == 0) r.translation.x = 0.0f;
  if (kind == 1) r.translation.y = 0.0f;
  r.max_fraction = lcg_int(g, 2) ? 1.0f : lcg_float(g, 0.1f, 1.0f);
  return r;
}

static sn_aabb random_query_box(lcg *g) {
  float cx = lcg_float(g, -WORLD_HALF, WORLD_HALF);
  float cy = lcg_float(g, -WORLD_HALF, WORLD_HALF);
  float hx = lcg_float(g, 0.0f, 30.0f);
  float hy = lcg_float(g, 0.0f, 30.0f);
  return (sn_aabb){{cx - hx, cy - hy}, {cx + hx, cy + hy}};
}

static const uint64_t k_masks[] = {UINT64_MAX, 1u, 2u, 4u | 8u, 16u};

/// Validity, height bound, queries and rays against brute force.
static void checkpoint(const sn_tree *tree, const model *m, lcg *g) {
  ck_assert(sn_tree_validate(tree));
  ck_assert_int_eq(tree->proxy_count, m->count);
  ck_assert_msg(sn_tree_get_height(tree) <= height_bound(m->count), "height %d for %d proxies",
                sn_tree_get_height(tree), m->count);
  for (int i = 0; i < 10; ++i) {
    uint64_t mask = k_masks[lcg_int(g, 5)];
    check_query(tree, m, random_query_box(g), mask);
    check_ray(tree, m, random_ray(g), mask);
  }
}

static void fill_random(sn_tree *tree, model *m, lcg *g, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    proxy_rec r = {0, random_box(g), random_category(g), 1000 + m->count};
    r.id = sn_tree_create_proxy(tree, r.box, r.category, r.user_data);
    ck_assert_int_ne(r.id, SN_NULL_NODE);
    model_add(m, r);
  }
}

/// Applies op number i of a fixed random sequence (shared by the determinism test).
static void random_op(sn_tree *tree, model *m, lcg *g) {
  int32_t kind = lcg_int(g, 100);
  if (m->count == 0 || kind < 45) {
    proxy_rec r = {0, random_box(g), random_category(g), lcg_int(g, 1 << 20)};
    r.id = sn_tree_create_proxy(tree, r.box, r.category, r.user_data);
    ck_assert_int_ne(r.id, SN_NULL_NODE);
    model_add(m, r);
  } else if (kind < 75) {
    int32_t i = lcg_int(g, m->count);
    sn_aabb box = random_box(g);
    // Mostly small displacements, like bodies moving, sometimes teleports.
    if (lcg_int(g, 4) != 0) {
      float dx = lcg_float(g, -3.0f, 3.0f), dy = lcg_float(g, -3.0f, 3.0f);
      sn_aabb old = m->items[i].box;
      box = (sn_aabb){{old.lower.x + dx, old.lower.y + dy}, {old.upper.x + dx, old.upper.y + dy}};
    }
    sn_tree_move_proxy(tree, m->items[i].id, box);
    m->items[i].box = box;
    ck_assert(sn_tree_get_aabb(tree, m->items[i].id).lower.x == box.lower.x);
  } else {
    int32_t i = lcg_int(g, m->count);
    sn_tree_destroy_proxy(tree, m->items[i].id);
    model_remove_at(m, i);
  }
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */

START_TEST(test_empty_tree) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  ck_assert(sn_tree_validate(&tree));
  ck_assert_int_eq(sn_tree_get_height(&tree), 0);
  ck_assert(sn_tree_get_area_ratio(&tree) == 0.0f);

  static hit_list h;
  h.count = 0;
  h.stop_after = 0;
  sn_tree_query(&tree, (sn_aabb){{-1e6f, -1e6f}, {1e6f, 1e6f}}, UINT64_MAX, collect_fcn, &h);
  ck_assert_int_eq(h.count, 0);
  ray_ctx c = {&tree, 2.0f, SN_NULL_NODE, 0, UINT64_MAX};
  sn_ray_input ray = {{0.0f, 0.0f}, {1.0f, 1.0f}, 1.0f};
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, closest_fcn, &c);
  ck_assert_int_eq(c.calls, 0);
  sn_tree_rebuild(&tree);
  ck_assert(sn_tree_validate(&tree));

  // One proxy: the root is the leaf.
  int32_t id = sn_tree_create_proxy(&tree, (sn_aabb){{0.0f, 0.0f}, {1.0f, 1.0f}}, 1u, 7);
  ck_assert_int_eq(tree.root, id);
  ck_assert(sn_tree_validate(&tree));
  ck_assert_int_eq(sn_tree_get_height(&tree), 0);
  sn_tree_move_proxy(&tree, id, (sn_aabb){{2.0f, 2.0f}, {3.0f, 3.0f}});
  ck_assert(sn_tree_validate(&tree));
  sn_tree_destroy_proxy(&tree, id);
  ck_assert_int_eq(tree.root, SN_NULL_NODE);
  ck_assert(sn_tree_validate(&tree));

  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

/// 1000 random inserts / moves / removes with brute-force checks every 25 ops.
START_TEST(test_random_operations) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {12345u};

  for (int op = 1; op <= 1000; ++op) {
    random_op(&tree, &m, &g);
    if (op % 25 == 0) checkpoint(&tree, &m, &g);
  }
  ck_assert_int_gt(m.count, 100);

  // Tear down through the API, then the node array is all that is left.
  while (m.count > 0) {
    sn_tree_destroy_proxy(&tree, m.items[m.count - 1].id);
    m.count -= 1;
    if (m.count % 50 == 0) ck_assert(sn_tree_validate(&tree));
  }
  ck_assert_int_eq(tree.root, SN_NULL_NODE);
  ck_assert_int_eq(tree.node_count, 0);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  ck_assert_uint_eq(mem.live_blocks, 0);
  model_free(&m);
}
END_TEST

/// Grid of equal boxes (the broadphase benchmark case), many ties for the SAH.
START_TEST(test_grid_balance) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {99u};
  for (int32_t y = 0; y < 80; ++y) {
    for (int32_t x = 0; x < 100; ++x) {
      proxy_rec r = {0, {{(float)x, (float)y}, {(float)x + 0.9f, (float)y + 0.9f}}, 1u, y * 100 + x};
      r.id = sn_tree_create_proxy(&tree, r.box, r.category, r.user_data);
      model_add(&m, r);
    }
  }
  ck_assert(sn_tree_validate(&tree));
  ck_assert_msg(sn_tree_get_height(&tree) <= height_bound(m.count), "grid height %d", sn_tree_get_height(&tree));
  for (int i = 0; i < 20; ++i) {
    float cx = lcg_float(&g, 0.0f, 100.0f), cy = lcg_float(&g, 0.0f, 80.0f);
    check_query(&tree, &m, (sn_aabb){{cx - 2.0f, cy - 2.0f}, {cx + 2.0f, cy + 2.0f}}, UINT64_MAX);
  }
  // Everything falls down a little, one proxy at a time.
  for (int32_t i = 0; i < m.count; ++i) {
    m.items[i].box.lower.y -= 0.3f;
    m.items[i].box.upper.y -= 0.3f;
    sn_tree_move_proxy(&tree, m.items[i].id, m.items[i].box);
  }
  ck_assert(sn_tree_validate(&tree));
  ck_assert_msg(sn_tree_get_height(&tree) <= height_bound(m.count), "grid height %d", sn_tree_get_height(&tree));
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

START_TEST(test_mask_filter) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 4));
  // Interleaved categories on one row, all overlapping the query box.
  for (int32_t i = 0; i < 64; ++i) {
    float x = (float)i;
    uint64_t category = (i % 3 == 0) ? 1u : ((i % 3 == 1) ? 2u : ((uint64_t)1 << 63));
    sn_tree_create_proxy(&tree, (sn_aabb){{x, 0.0f}, {x + 1.0f, 1.0f}}, category, i);
  }
  ck_assert(sn_tree_validate(&tree));
  sn_aabb all = {{-10.0f, -10.0f}, {100.0f, 10.0f}};
  static hit_list h;

  uint64_t masks[] = {1u, 2u, (uint64_t)1 << 63, 3u, UINT64_MAX, 4u, 0u};
  int32_t expected[] = {22, 21, 21, 43, 64, 0, 0};
  for (int k = 0; k < 7; ++k) {
    h.count = 0;
    h.stop_after = 0;
    sn_tree_query(&tree, all, masks[k], collect_fcn, &h);
    ck_assert_int_eq(h.count, expected[k]);
    for (int32_t i = 0; i < h.count; ++i) ck_assert((tree.nodes[h.ids[i]].category_bits & masks[k]) != 0);

    ray_ctx c = {&tree, 2.0f, SN_NULL_NODE, 0, masks[k]};
    sn_ray_input ray = {{-5.0f, 0.5f}, {100.0f, 0.0f}, 1.0f};
    sn_tree_ray_cast(&tree, &ray, masks[k], closest_fcn, &c);
    if (expected[k] == 0) {
      ck_assert_int_eq(c.calls, 0);
    } else {
      // First box of the category along +x starts at its index.
      int32_t first = masks[k] == 2u ? 1 : (masks[k] == ((uint64_t)1 << 63) ? 2 : 0);
      ck_assert_int_eq(sn_tree_get_user_data(&tree, c.best_id), first);
    }
  }
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

static float count_fcn(const sn_ray_input *input, int32_t proxy_id, int32_t user_data, void *context) {
  (void)proxy_id;
  (void)user_data;
  int32_t *calls = context;
  *calls += 1;
  return input->max_fraction; // never clips
}

static float stop_fcn(const sn_ray_input *input, int32_t proxy_id, int32_t user_data, void *context) {
  (void)input;
  (void)proxy_id;
  (void)user_data;
  int32_t *calls = context;
  *calls += 1;
  return 0.0f;
}

static float ignore_fcn(const sn_ray_input *input, int32_t proxy_id, int32_t user_data, void *context) {
  (void)input;
  (void)proxy_id;
  (void)user_data;
  int32_t *calls = context;
  *calls += 1;
  return -1.0f; // filtered: continue unchanged
}

START_TEST(test_collect_shares_a_descent) {
  // 2000 random boxes, some moved deferred (loose ancestors). For 200 group
  // boxes: sn_tree_collect gets what sn_tree_query visits, in its order; a
  // box inside the group box with a mask inside its mask then visits,
  // through sn_tree_leaves_query, exactly the sequence its own sn_tree_query
  // visits; too small a buffer answers -1; a callback's stop is kept.
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 16));
  lcg g = {4242u};
  static int32_t ids[2000];
  for (int32_t i = 0; i < 2000; ++i) ids[i] = sn_tree_create_proxy(&tree, random_box(&g), random_category(&g), i);
  for (int32_t i = 0; i < 2000; i += 7) sn_tree_move_proxy_deferred(&tree, ids[i], random_box(&g));
  static sn_tree_leaf leaves[4096];
  static hit_list own, shared;
  int nonempty = 0;
  for (int k = 0; k < 200; ++k) {
    sn_aabb group = random_box(&g);
    group.lower.x -= 6.0f;
    group.upper.x += 6.0f;
    uint64_t group_mask = k % 5 == 0 ? UINT64_MAX : (random_category(&g) | random_category(&g));
    int32_t n = sn_tree_collect(&tree, group, group_mask, leaves, 4096);
    own.count = 0;
    own.stop_after = 0;
    sn_tree_query(&tree, group, group_mask, collect_fcn, &own);
    ck_assert_int_eq(n, own.count);
    for (int32_t i = 0; i < n; ++i) ck_assert_int_eq(leaves[i].user_data, own.user_data[i]);
    if (n > 1) ck_assert_int_eq(sn_tree_collect(&tree, group, group_mask, leaves + n, n - 1), -1);
    for (int j = 0; j < 4; ++j) {
      float x0 = lcg_float(&g, group.lower.x, group.upper.x), x1 = lcg_float(&g, x0, group.upper.x);
      float y0 = lcg_float(&g, group.lower.y, group.upper.y), y1 = lcg_float(&g, y0, group.upper.y);
      sn_aabb box = {{x0, y0}, {x1, y1}};
      uint64_t mask = j == 0 ? group_mask : (group_mask & random_category(&g));
      own.count = 0;
      own.stop_after = j == 3 ? 2 : 0;
      shared.count = 0;
      shared.stop_after = own.stop_after;
      sn_tree_query(&tree, box, mask, collect_fcn, &own);
      sn_tree_leaves_query(leaves, n, box, mask, 0, collect_leaf_fcn, &shared);
      ck_assert_int_eq(shared.count, own.count);
      /* (the user data are the leaves' creation indices: one per leaf) */
      for (int32_t i = 0; i < own.count; ++i) ck_assert_int_eq(shared.user_data[i], own.user_data[i]);
      nonempty += own.count > 1;
    }
  }
  ck_assert_int_gt(nonempty, 50); // orders of several leaves were compared
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

/* A collected leaves query with skip_group visits what the plain one does
 * but the leaves of that group, in the same order; skip_group 0 skips
 * nothing (group 0 leaves included). Groups set after creation. */
START_TEST(test_leaves_skip_group) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 16));
  lcg g = {99u};
  static int32_t ids[600], groups[600];
  for (int32_t i = 0; i < 600; ++i) {
    ids[i] = sn_tree_create_proxy(&tree, random_box(&g), UINT64_MAX, i);
    groups[i] = lcg_int(&g, 4) - 2; /* -2 .. 1 */
    if (i % 3 != 0)
      sn_tree_set_group(&tree, ids[i], groups[i]);
    else
      groups[i] = 0;
  }
  static sn_tree_leaf leaves[1024];
  static hit_list all, kept;
  int skipped = 0;
  for (int k = 0; k < 60; ++k) {
    sn_aabb box = random_box(&g);
    box.lower = (sn_vec2){box.lower.x - 30.0f, box.lower.y - 30.0f};
    box.upper = (sn_vec2){box.upper.x + 30.0f, box.upper.y + 30.0f};
    const int32_t n = sn_tree_collect(&tree, box, UINT64_MAX, leaves, 1024);
    ck_assert_int_ge(n, 0);
    for (int32_t i = 0; i < n; ++i) ck_assert_int_eq(leaves[i].group, groups[leaves[i].user_data]);
    for (int32_t skip = -2; skip <= 0; ++skip) {
      all.count = kept.count = 0;
      all.stop_after = kept.stop_after = 0;
      sn_tree_leaves_query(leaves, n, box, UINT64_MAX, 0, collect_leaf_fcn, &all);
      sn_tree_leaves_query(leaves, n, box, UINT64_MAX, skip, collect_leaf_fcn, &kept);
      int32_t j = 0;
      for (int32_t i = 0; i < all.count; ++i) {
        if (skip != 0 && groups[all.user_data[i]] == skip) {
          skipped++;
          continue;
        }
        ck_assert_int_lt(j, kept.count);
        ck_assert_int_eq(kept.user_data[j++], all.user_data[i]);
      }
      ck_assert_int_eq(j, kept.count);
    }
  }
  ck_assert_int_gt(skipped, 100);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

/// sn_tree_leaves_hits (the branchless test under the pair search and
/// sn_tree_leaves_query) against the plain definition, leaf by leaf: the
/// mask, sn_aabb_overlaps (touching boxes overlap; a NaN coordinate compares
/// false, so it never separates) and the skipped group, over random leaves
/// with touching edges, NaN coordinates, empty categories and groups; runs
/// past the 64-leaf blocks of sn_tree_leaves_query, stopped early too.
START_TEST(test_leaves_hits_definition) {
  lcg g = {4242u};
  static sn_tree_leaf leaves[300];
  static int32_t hits[300];
  static hit_list got;
  int32_t total = 0, nan_hits = 0;
  for (int round = 0; round < 200; ++round) {
    const int32_t n = 1 + lcg_int(&g, 300);
    sn_aabb box = random_box(&g);
    box.lower = (sn_vec2){box.lower.x - 30.0f, box.lower.y - 30.0f};
    box.upper = (sn_vec2){box.upper.x + 30.0f, box.upper.y + 30.0f};
    for (int32_t i = 0; i < n; ++i) {
      sn_aabb b = random_box(&g);
      const int kind = lcg_int(&g, 10);
      /* touching edges, each side */
      if (kind == 0) b.lower.x = box.upper.x;
      if (kind == 1) b.upper.x = box.lower.x;
      if (kind == 2) b.lower.y = box.upper.y;
      if (kind == 3) b.upper.y = box.lower.y;
      /* NaN: never apart on that side */
      if (kind == 4) b.lower.y = nanf("");
      if (kind == 5) b.upper.x = nanf("");
      leaves[i] = (sn_tree_leaf){b, lcg_int(&g, 5) == 0 ? 0u : random_category(&g), i, lcg_int(&g, 3) - 1};
    }
    const uint64_t mask = k_masks[lcg_int(&g, 5)];
    const int32_t skip = lcg_int(&g, 2) == 0 ? 0 : -1;
    const int32_t count = sn_tree_leaves_hits(leaves, n, box, mask, skip, hits);
    int32_t j = 0;
    for (int32_t i = 0; i < n; ++i) {
      const sn_tree_leaf *l = leaves + i;
      const bool want =
          (l->category_bits & mask) != 0 && sn_aabb_overlaps(l->aabb, box) && !(skip != 0 && l->group == skip);
      if (!want) continue;
      ck_assert_int_lt(j, count);
      ck_assert_int_eq(hits[j++], i);
      nan_hits += isnan(l->aabb.lower.y) || isnan(l->aabb.upper.x);
    }
    ck_assert_int_eq(j, count);
    total += count;
    /* the query visits the same leaves in order, and stops where told */
    got.count = 0;
    got.stop_after = count > 1 ? count - 1 : 0;
    sn_tree_leaves_query(leaves, n, box, mask, skip, collect_leaf_fcn, &got);
    ck_assert_int_eq(got.count, count > 1 ? count - 1 : count);
    for (int32_t k = 0; k < got.count; ++k) ck_assert_int_eq(got.user_data[k], hits[k]);
  }
  ck_assert_int_gt(total, 1000);
  ck_assert_int_gt(nan_hits, 10);
}
END_TEST

START_TEST(test_callback_contracts) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  for (int32_t i = 0; i < 100; ++i) {
    float x = (float)(2 * i);
    sn_tree_create_proxy(&tree, (sn_aabb){{x, -1.0f}, {x + 1.0f, 1.0f}}, 1u, i);
  }
  // Query stops at the first false.
  static hit_list h;
  h.count = 0;
  h.stop_after = 1;
  sn_tree_query(&tree, (sn_aabb){{-1.0f, -1.0f}, {300.0f, 1.0f}}, UINT64_MAX, collect_fcn, &h);
  ck_assert_int_eq(h.count, 1);
  h.count = 0;
  h.stop_after = 5;
  sn_tree_query(&tree, (sn_aabb){{-1.0f, -1.0f}, {300.0f, 1.0f}}, UINT64_MAX, collect_fcn, &h);
  ck_assert_int_eq(h.count, 5);

  sn_ray_input ray = {{-10.0f, 0.0f}, {500.0f, 0.0f}, 1.0f};
  int32_t calls = 0;
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, count_fcn, &calls);
  ck_assert_int_eq(calls, 100);
  calls = 0;
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, stop_fcn, &calls);
  ck_assert_int_eq(calls, 1);
  calls = 0;
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, ignore_fcn, &calls);
  ck_assert_int_eq(calls, 100);
  // A clipped ray never reaches boxes beyond the clip.
  ray_ctx c = {&tree, 2.0f, SN_NULL_NODE, 0, UINT64_MAX};
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, closest_fcn, &c);
  ck_assert_int_eq(sn_tree_get_user_data(&tree, c.best_id), 0);
  ck_assert(fabsf(c.best - 0.02f) < 1e-6f);
  // Max fraction short of everything: no calls.
  calls = 0;
  ray.max_fraction = 0.01f;
  sn_tree_ray_cast(&tree, &ray, UINT64_MAX, count_fcn, &calls);
  ck_assert_int_eq(calls, 0);
  // A ray along the row's y = 2 line misses all boxes (separating axis).
  calls = 0;
  sn_ray_input above = {{-10.0f, 2.0f}, {500.0f, 0.0f}, 1.0f};
  sn_tree_ray_cast(&tree, &above, UINT64_MAX, count_fcn, &calls);
  ck_assert_int_eq(calls, 0);
  // A diagonal ray whose segment box overlaps the first boxes while the line
  // passes below them: only the separating axis along the ray normal culls.
  calls = 0;
  sn_ray_input diag = {{-10.0f, 3.0f}, {20.0f, -20.0f}, 1.0f};
  sn_tree_ray_cast(&tree, &diag, UINT64_MAX, count_fcn, &calls);
  ck_assert_int_eq(calls, 0);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

START_TEST(test_enlarge) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {777u};
  fill_random(&tree, &m, &g, 400);
  ck_assert(sn_tree_validate(&tree));

  int32_t height_before = sn_tree_get_height(&tree);
  int32_t root_before = tree.root;
  for (int round = 0; round < 4; ++round) {
    for (int32_t k = 0; k < 100; ++k) {
      int32_t i = lcg_int(&g, m.count);
      sn_aabb add = random_box(&g);
      if (lcg_int(&g, 2)) {
        // A nearby box, as a body moving a little outside its fat AABB.
        sn_aabb old = m.items[i].box;
        add = (sn_aabb){{old.lower.x + 0.5f, old.lower.y - 0.5f}, {old.upper.x + 0.7f, old.upper.y}};
      }
      sn_tree_enlarge_proxy(&tree, m.items[i].id, add);
      sn_aabb old = m.items[i].box;
      sn_aabb want = {{fminf(old.lower.x, add.lower.x), fminf(old.lower.y, add.lower.y)},
                      {fmaxf(old.upper.x, add.upper.x), fmaxf(old.upper.y, add.upper.y)}};
      sn_aabb got = sn_tree_get_aabb(&tree, m.items[i].id);
      ck_assert(box_contains(got, add) && box_contains(got, old));
      ck_assert(got.lower.x == want.lower.x && got.lower.y == want.lower.y && got.upper.x == want.upper.x &&
                got.upper.y == want.upper.y);
      m.items[i].box = got;
    }
    // No restructuring: same root, same height.
    ck_assert_int_eq(tree.root, root_before);
    ck_assert_int_eq(sn_tree_get_height(&tree), height_before);
    checkpoint(&tree, &m, &g);
  }
  // Enlarged leaves can still be moved and removed.
  for (int32_t k = 0; k < 100; ++k) random_op(&tree, &m, &g);
  checkpoint(&tree, &m, &g);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

START_TEST(test_rebuild) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {2024u};
  fill_random(&tree, &m, &g, 300);
  for (int k = 0; k < 500; ++k) random_op(&tree, &m, &g);
  // Some clustered and some huge boxes make the SAH split work.
  for (int32_t i = 0; i < 50; ++i) {
    float x = lcg_float(&g, 10.0f, 11.0f), y = lcg_float(&g, 10.0f, 11.0f);
    proxy_rec r = {0, {{x, y}, {x + 0.01f, y + 0.01f}}, 1u, -i};
    r.id = sn_tree_create_proxy(&tree, r.box, r.category, r.user_data);
    model_add(&m, r);
  }
  for (int32_t i = 0; i < 3; ++i) {
    proxy_rec r = {0, {{-150.0f, -150.0f + (float)i}, {150.0f, -140.0f}}, 2u, 5000 + i};
    r.id = sn_tree_create_proxy(&tree, r.box, r.category, r.user_data);
    model_add(&m, r);
  }
  checkpoint(&tree, &m, &g);
  size_t bytes_before = mem.live_bytes;
  int32_t capacity_before = tree.node_capacity;

  sn_tree_rebuild(&tree);
  ck_assert(sn_tree_validate(&tree));
  ck_assert_uint_eq(mem.live_bytes, bytes_before); // scratch returned, no growth
  ck_assert_int_eq(tree.node_capacity, capacity_before);
  // Same leaves: every proxy id is still a leaf with its box, bits and user data.
  ck_assert_int_eq(tree.proxy_count, m.count);
  for (int32_t i = 0; i < m.count; ++i) {
    const sn_tree_node *node = tree.nodes + m.items[i].id;
    ck_assert_int_eq(node->height, 0);
    ck_assert_int_eq(node->user_data, m.items[i].user_data);
    ck_assert(node->category_bits == m.items[i].category);
    ck_assert(memcmp(&node->aabb, &m.items[i].box, sizeof(sn_aabb)) == 0);
  }
  checkpoint(&tree, &m, &g);

  // A second rebuild gives the same tree (deterministic).
  sn_tree_node *copy = malloc((size_t)tree.node_capacity * sizeof(sn_tree_node));
  memcpy(copy, tree.nodes, (size_t)tree.node_capacity * sizeof(sn_tree_node));
  int32_t root = tree.root;
  sn_tree_rebuild(&tree);
  ck_assert_int_eq(tree.root, root);
  for (int32_t i = 0; i < tree.node_capacity; ++i) {
    ck_assert_int_eq(tree.nodes[i].child1, copy[i].child1);
    ck_assert_int_eq(tree.nodes[i].child2, copy[i].child2);
    ck_assert_int_eq(tree.nodes[i].parent_or_next, copy[i].parent_or_next);
  }
  free(copy);

  // The rebuilt tree keeps working incrementally.
  for (int k = 0; k < 300; ++k) random_op(&tree, &m, &g);
  checkpoint(&tree, &m, &g);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

/* One of a pair of twin trees: its memory, the tree, its model and its
 * generator (seed), filled with n random proxies. */
static void grow_twin(sn_mem *mem, sn_tree *tree, model *m, lcg *g, uint32_t seed, int32_t n) {
  sn_mem_init(mem, NULL);
  ck_assert(sn_tree_init(tree, mem, 0));
  *m = (model){0};
  *g = (lcg){seed};
  fill_random(tree, m, g, n);
}

START_TEST(test_determinism) {
  sn_mem mem_a, mem_b;
  sn_mem_init(&mem_a, NULL);
  sn_mem_init(&mem_b, NULL);
  sn_tree a, b;
  ck_assert(sn_tree_init(&a, &mem_a, 0));
  ck_assert(sn_tree_init(&b, &mem_b, 0));
  model ma = {0}, mb = {0};
  lcg ga = {4242u}, gb = {4242u};
  for (int k = 0; k < 1000; ++k) {
    random_op(&a, &ma, &ga);
    random_op(&b, &mb, &gb);
  }
  ck_assert_int_eq(a.root, b.root);
  ck_assert_int_eq(a.node_capacity, b.node_capacity);
  ck_assert_int_eq(a.free_list, b.free_list);
  for (int32_t i = 0; i < a.node_capacity; ++i) {
    const sn_tree_node *x = a.nodes + i, *y = b.nodes + i;
    ck_assert_int_eq(x->height, y->height);
    ck_assert_int_eq(x->parent_or_next, y->parent_or_next);
    if (x->height < 0) continue;
    ck_assert_int_eq(x->child1, y->child1);
    ck_assert_int_eq(x->child2, y->child2);
    ck_assert(memcmp(&x->aabb, &y->aabb, sizeof(sn_aabb)) == 0);
  }
  sn_tree_destroy(&a);
  sn_tree_destroy(&b);
  ck_assert_uint_eq(mem_a.live_bytes, 0);
  ck_assert_uint_eq(mem_b.live_bytes, 0);
  model_free(&ma);
  model_free(&mb);
}
END_TEST

/// No internal node is marked SN_TREE_NODE_MOVED.
static bool no_marks(const sn_tree *tree) {
  for (int32_t i = 0; i < tree->node_capacity; ++i) {
    if (tree->nodes[i].height > 0 && (tree->nodes[i].flags & SN_TREE_NODE_MOVED)) return false;
  }
  return true;
}

/// A moved leaf's next box: a small shift of old (as a falling crowd's), or
/// anywhere.
static sn_aabb next_box(lcg *g, sn_aabb old, bool small) {
  sn_aabb box = random_box(g);
  if (small) {
    float dx = lcg_float(g, -0.3f, 0.3f), dy = lcg_float(g, -0.6f, 0.1f);
    box = (sn_aabb){{old.lower.x + dx, old.lower.y + dy}, {old.upper.x + dx, old.upper.y + dy}};
  }
  return box;
}

/// One step of a moving crowd: deferred moves (mostly small, some teleports),
/// with creations, removals and eager moves mixed in so that insertions and
/// rotations meet marked (loose) nodes.
static void deferred_step(sn_tree *tree, model *m, lcg *g, int32_t moves, bool mixed) {
  for (int32_t k = 0; k < moves; ++k) {
    int32_t kind = lcg_int(g, 100);
    if (kind < 8 && mixed) {
      random_op(tree, m, g);
      continue;
    }
    int32_t i = lcg_int(g, m->count);
    sn_aabb box = next_box(g, m->items[i].box, kind < 90);
    sn_tree_move_proxy_deferred(tree, m->items[i].id, box);
    m->items[i].box = box;
    ck_assert(memcmp(&tree->nodes[m->items[i].id].aabb, &box, sizeof box) == 0);
  }
}

/// Whether two trees are the same node for node (root, free list, counts,
/// and every node's links, box, category bits, owner data and flags).
static bool same_nodes(const sn_tree *a, const sn_tree *b) {
  if (a->root != b->root || a->free_list != b->free_list || a->node_count != b->node_count ||
      a->node_capacity != b->node_capacity)
    return false;
  for (int32_t i = 0; i < a->node_capacity; ++i) {
    const sn_tree_node *x = a->nodes + i, *y = b->nodes + i;
    if (x->height != y->height || x->parent_or_next != y->parent_or_next) return false;
    if (x->height < 0) continue;
    if (x->child1 != y->child1 || x->child2 != y->child2 || x->flags != y->flags ||
        x->category_bits != y->category_bits || x->user_data != y->user_data ||
        memcmp(&x->aabb, &y->aabb, sizeof(sn_aabb)) != 0)
      return false;
  }
  return true;
}

/// Deferred moves leave a loose but exact tree; the partial rebuild makes it
/// tight again without touching the leaves, deterministically, and without
/// allocating once its scratch is big enough.
START_TEST(test_deferred_moves) {
  sn_mem mem_a, mem_b;
  sn_tree a, b;
  model ma, mb;
  lcg ga, gb, gq = {5u};
  grow_twin(&mem_a, &a, &ma, &ga, 99u, 600);
  grow_twin(&mem_b, &b, &mb, &gb, 99u, 600);
  // owner bits on the leaves (bit 0 too): the tree must keep them
  for (int32_t i = 0; i < ma.count; ++i) a.nodes[ma.items[i].id].flags = (uint16_t)(0x8001u | (uint32_t)i);
  for (int32_t i = 0; i < mb.count; ++i) b.nodes[mb.items[i].id].flags = (uint16_t)(0x8001u | (uint32_t)i);

  ck_assert(no_marks(&a));
  sn_tree_rebuild_moved(&a); // nothing moved: nothing to do, nothing allocated
  sn_tree_rebuild_moved(&b);
  ck_assert_ptr_null(a.scratch);

  for (int step = 0; step < 40; ++step) {
    int32_t moves = step % 5 == 0 ? 3 : 150;
    bool mixed = step % 4 != 3; // every fourth step only moves: no allocation
    size_t bytes_before = mem_a.live_bytes;
    deferred_step(&a, &ma, &ga, moves, mixed);
    deferred_step(&b, &mb, &gb, moves, mixed);
    // loose: validate checks marked ancestors and tight unmarked nodes;
    // queries and rays must still be exact
    checkpoint(&a, &ma, &gq);
    int32_t root_marked = a.nodes[a.root].flags & SN_TREE_NODE_MOVED;
    ck_assert(root_marked || no_marks(&a));

    sn_tree_rebuild_moved(&a);
    sn_tree_rebuild_moved(&b);
    ck_assert(no_marks(&a));
    ck_assert_int_eq(a.node_count, 2 * a.proxy_count - 1);
    for (int32_t i = 0; i < ma.count; ++i) {
      const sn_tree_node *leaf = a.nodes + ma.items[i].id;
      ck_assert_int_eq(leaf->height, 0);
      ck_assert_int_eq(leaf->user_data, ma.items[i].user_data);
      ck_assert(memcmp(&leaf->aabb, &ma.items[i].box, sizeof(sn_aabb)) == 0);
    }
    checkpoint(&a, &ma, &gq);
    if (!mixed) ck_assert_uint_eq(mem_a.live_bytes, bytes_before);

    // same calls, same node array
    ck_assert(same_nodes(&a, &b));
  }
  // the leaves kept their owner bits
  for (int32_t i = 0; i < ma.count; ++i) {
    if (ma.items[i].user_data >= 1000 && ma.items[i].user_data < 1600) {
      ck_assert_uint_eq(a.nodes[ma.items[i].id].flags & 0x8001u, 0x8001u);
    }
  }
  // the partial rebuilds (middle splits) keep the tree about as tight as a
  // full SAH rebuild of the same leaves (b is a's twin): 53.7 against 50.4
  float ratio_partial = sn_tree_get_area_ratio(&a);
  sn_tree_rebuild(&b);
  ck_assert_msg(ratio_partial <= 1.1f * sn_tree_get_area_ratio(&b), "area ratio %g, full rebuild %g",
                (double)ratio_partial, (double)sn_tree_get_area_ratio(&b));

  sn_tree_destroy(&a);
  sn_tree_destroy(&b);
  ck_assert_uint_eq(mem_a.live_bytes, 0);
  ck_assert_uint_eq(mem_b.live_bytes, 0);
  model_free(&ma);
  model_free(&mb);
}
END_TEST

/// Moves that only mark the ancestors (sn_tree_move_proxy_marked, the
/// step's moves, rebuilt right after) give the tree that deferred moves give
/// once both are rebuilt, node for node: the same marks and the same leaves.
/// Where the rebuild cannot run, growing each moved leaf's path (a deferred
/// move to its own box) makes the tree valid and its queries exact again,
/// and the rebuild after that is still the same tree.
START_TEST(test_marked_moves_same_tree) {
  sn_mem mem_a, mem_b;
  sn_tree a, b;
  model ma, mb;
  lcg ga, gb, gq = {7u};
  grow_twin(&mem_a, &a, &ma, &ga, 314u, 600);
  grow_twin(&mem_b, &b, &mb, &gb, 314u, 600);
  int32_t moved[200];
  int32_t marked_nodes = 0;
  for (int step = 0; step < 30; ++step) {
    const int32_t moves = step % 5 == 0 ? 3 : 200;
    for (int32_t k = 0; k < moves; ++k) {
      const int32_t i = lcg_int(&ga, ma.count);
      const sn_aabb box = next_box(&ga, ma.items[i].box, lcg_int(&ga, 10) != 0);
      sn_tree_move_proxy_deferred(&a, ma.items[i].id, box);
      sn_tree_move_proxy_marked(&b, mb.items[i].id, box);
      ma.items[i].box = mb.items[i].box = box;
      moved[k] = mb.items[i].id;
    }
    /* the same marks */
    for (int32_t n = 0; n < a.node_capacity; ++n) {
      if (a.nodes[n].height <= 0) continue;
      ck_assert_uint_eq(a.nodes[n].flags & SN_TREE_NODE_MOVED, b.nodes[n].flags & SN_TREE_NODE_MOVED);
      marked_nodes += (a.nodes[n].flags & SN_TREE_NODE_MOVED) != 0;
    }
    if (step % 3 == 2) {
      /* grown instead of rebuilt first: valid, and exact */
      for (int32_t k = 0; k < moves; ++k) sn_tree_move_proxy_deferred(&b, moved[k], b.nodes[moved[k]].aabb);
      checkpoint(&b, &mb, &gq);
    }
    sn_tree_rebuild_moved(&a);
    sn_tree_rebuild_moved(&b);
    ck_assert(no_marks(&b));
    ck_assert(same_nodes(&a, &b));
    checkpoint(&b, &mb, &gq);
  }
  ck_assert_int_gt(marked_nodes, 30 * 100); /* (the moves marked much of the tree) */
  sn_tree_destroy(&a);
  sn_tree_destroy(&b);
  ck_assert_uint_eq(mem_a.live_bytes, 0);
  ck_assert_uint_eq(mem_b.live_bytes, 0);
  model_free(&ma);
  model_free(&mb);
}
END_TEST

/// The moved part's rebuild splits at the middle of the centres' extent.
/// Two cases it must not follow blindly: centres one float apart, whose
/// middle rounds onto an end (nothing falls below it: a balanced split
/// instead), and centres at powers of two, whose middle splits off one
/// item a level (past the depth cap, median splits take over). Each tree
/// stays valid, finds every leaf and keeps its height bounded.
START_TEST(test_middle_split_bounds) {
  enum { N = 100 };
  for (int layout = 0; layout < 2; ++layout) {
    sn_mem mem;
    sn_mem_init(&mem, NULL);
    sn_tree tree;
    ck_assert(sn_tree_init(&tree, &mem, 0));
    model m = {0};
    for (int32_t i = 0; i < N; ++i) {
      proxy_rec r = {0, {{(float)i, 0.0f}, {(float)i + 0.5f, 0.5f}}, 1u, i};
      r.id = sn_tree_create_proxy(&tree, r.box, r.category, r.user_data);
      model_add(&m, r);
    }
    for (int32_t i = 0; i < N; ++i) {
      const float x = layout == 0 ? (i % 2 ? nextafterf(1.0f, 2.0f) : 1.0f) : ldexpf(1.0f, i);
      m.items[i].box = (sn_aabb){{x, 0.0f}, {x, 0.0f}};
      sn_tree_move_proxy_deferred(&tree, m.items[i].id, m.items[i].box);
    }
    sn_tree_rebuild_moved(&tree);
    ck_assert(no_marks(&tree));
    ck_assert(sn_tree_validate(&tree));
    /* balanced: 7 levels for 100 items; powers of two: one item split off a
     * level down to depth 48, then median splits (6 more levels for 52) */
    const int32_t bound = layout == 0 ? 7 : 48 + 6;
    ck_assert_msg(sn_tree_get_height(&tree) <= bound, "layout %d: height %d", layout, sn_tree_get_height(&tree));
    ck_assert_int_eq(tree.node_count, 2 * N - 1);
    check_query(&tree, &m, (sn_aabb){{0.0f, -1.0f}, {FLT_MAX, 1.0f}}, UINT64_MAX);
    check_query(&tree, &m, (sn_aabb){{0.5f, -1.0f}, {1.5f, 1.0f}}, UINT64_MAX);
    sn_tree_destroy(&tree);
    ck_assert_uint_eq(mem.live_bytes, 0);
    model_free(&m);
  }
}
END_TEST

/// The jobs of a rebuild run last first, as another thread may run them.
typedef struct reverse_runner {
  int32_t calls, jobs;
} reverse_runner;

static void run_reversed(void *runner, int32_t count, void (*job)(void *context, int32_t i), void *context) {
  reverse_runner *r = runner;
  r->calls += 1;
  r->jobs += count;
  for (int32_t i = count - 1; i >= 0; --i) job(context, i);
}

/// The rebuild with its subtrees as jobs (sn_tree_rebuild_moved_with, the
/// world's workers) builds the tree node for node as on one thread, however
/// the jobs run, and is undone the same way. 3,000 proxies, most of them
/// moved each round (the split needs 512 items or more).
START_TEST(test_rebuild_jobs_same_tree) {
  sn_mem mem_a, mem_b;
  sn_tree a, b;
  model ma, mb;
  lcg ga, gb, gq = {11u};
  grow_twin(&mem_a, &a, &ma, &ga, 7u, 3000);
  grow_twin(&mem_b, &b, &mb, &gb, 7u, 3000);
  reverse_runner runner = {0, 0};
  for (int round = 0; round < 6; ++round) {
    deferred_step(&a, &ma, &ga, round == 5 ? 40 : 2500, false);
    deferred_step(&b, &mb, &gb, round == 5 ? 40 : 2500, false);
    const int32_t calls = runner.calls;
    sn_tree_rebuild_moved(&a);
    sn_tree_rebuild_moved_with(&b, run_reversed, &runner);
    if (round < 5) ck_assert_int_eq(runner.calls, calls + 1); /* split: a large rebuild */
    if (round == 5) ck_assert_int_eq(runner.calls, calls);    /* few items: on the caller */
    ck_assert(same_nodes(&a, &b));
    checkpoint(&b, &mb, &gq);
    ck_assert(no_marks(&b));
  }
  ck_assert_int_eq(runner.jobs, 5 * 4); /* two levels split: four subtrees each time */
  /* undone like the one-thread rebuild: back to the same loose tree */
  deferred_step(&a, &ma, &ga, 2500, false);
  deferred_step(&b, &mb, &gb, 2500, false);
  sn_tree_rebuild_moved(&a);
  sn_tree_rebuild_moved_with(&b, run_reversed, &runner);
  sn_tree_undo_rebuild(&a);
  sn_tree_undo_rebuild(&b);
  ck_assert(same_nodes(&a, &b));
  ck_assert(!no_marks(&b));
  checkpoint(&b, &mb, &gq);
  sn_tree_destroy(&a);
  sn_tree_destroy(&b);
  model_free(&ma);
  model_free(&mb);
}
END_TEST

/// A hand-made caterpillar (height 599) is taller than the query stack: the
/// stackless fallback must still return exact results.
/// Rewires a tree of n leaves (filled by fill_random) into a chain of height
/// n - 1: its k-th internal node (in node order) holds its k-th leaf and the
/// next internal node (the last, two leaves), the deeper child first, or
/// alternating slots with alternate. Boxes, categories and heights follow;
/// the query copy is dropped.
static void rewire_as_chain(sn_tree *tree, int32_t n, bool alternate) {
  int32_t *leaves = malloc((size_t)n * sizeof(int32_t)), *internal = malloc((size_t)n * sizeof(int32_t));
  ck_assert(leaves != NULL && internal != NULL);
  int32_t nl = 0, ni = 0;
  for (int32_t i = 0; i < tree->node_capacity; ++i) {
    if (tree->nodes[i].height == 0) leaves[nl++] = i;
    if (tree->nodes[i].height > 0) internal[ni++] = i;
  }
  ck_assert_int_eq(nl, n);
  ck_assert_int_eq(ni, n - 1);
  for (int32_t k = n - 2; k >= 0; --k) {
    sn_tree_node *node = tree->nodes + internal[k];
    const int32_t deep = k == n - 2 ? leaves[n - 1] : internal[k + 1];
    const bool leaf_first = alternate && (k % 2);
    node->child1 = leaf_first ? leaves[k] : deep;
    node->child2 = leaf_first ? deep : leaves[k];
    tree->nodes[node->child1].parent_or_next = internal[k];
    tree->nodes[node->child2].parent_or_next = internal[k];
    const sn_tree_node *n1 = tree->nodes + node->child1, *n2 = tree->nodes + node->child2;
    node->aabb = (sn_aabb){{fminf(n1->aabb.lower.x, n2->aabb.lower.x), fminf(n1->aabb.lower.y, n2->aabb.lower.y)},
                           {fmaxf(n1->aabb.upper.x, n2->aabb.upper.x), fmaxf(n1->aabb.upper.y, n2->aabb.upper.y)}};
    node->category_bits = n1->category_bits | n2->category_bits;
    node->height = (int16_t)(1 + (n1->height > n2->height ? n1->height : n2->height));
    node->flags = 0;
  }
  tree->root = internal[0];
  tree->nodes[tree->root].parent_or_next = SN_NULL_NODE;
  tree->wide_valid = false; /* (the nodes were rewired by hand) */
  free(leaves);
  free(internal);
}

START_TEST(test_deep_tree_fallback) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {31337u};
  enum { N = 600 };
  fill_random(&tree, &m, &g, N);

  // internal[k] = {leaves[k], internal[k + 1]}; the last one holds two leaves.
  // Alternate the child slot so both branches of the fallback are exercised.
  rewire_as_chain(&tree, N, true);
  ck_assert(sn_tree_validate(&tree));
  ck_assert_int_eq(sn_tree_get_height(&tree), N - 1);

  for (int i = 0; i < 40; ++i) {
    uint64_t mask = k_masks[lcg_int(&g, 5)];
    check_query(&tree, &m, random_query_box(&g), mask);
    check_ray(&tree, &m, random_ray(&g), mask);
  }
  // Everything: the full walk goes through the fallback.
  check_query(&tree, &m, (sn_aabb){{-1e4f, -1e4f}, {1e4f, 1e4f}}, UINT64_MAX);
  // Early stop inside the fallback.
  static hit_list h;
  h.count = 0;
  h.stop_after = 300;
  sn_tree_query(&tree, (sn_aabb){{-1e4f, -1e4f}, {1e4f, 1e4f}}, UINT64_MAX, collect_fcn, &h);
  ck_assert_int_eq(h.count, 300);

  // Rebuild restores a shallow tree with the same leaves.
  sn_tree_rebuild(&tree);
  ck_assert(sn_tree_validate(&tree));
  ck_assert_msg(sn_tree_get_height(&tree) <= height_bound(N), "rebuilt height %d", sn_tree_get_height(&tree));
  checkpoint(&tree, &m, &g);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

/// Capacity growth through sn_mem_realloc keeps ids and contents; the byte
/// counter matches the node array exactly.
START_TEST(test_growth_and_accounting) {
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  ck_assert_uint_eq(mem.live_bytes, (size_t)tree.node_capacity * sizeof(sn_tree_node));
  model m = {0};
  lcg g = {5u};
  fill_random(&tree, &m, &g, 2000);
  ck_assert_uint_eq(mem.live_bytes, (size_t)tree.node_capacity * sizeof(sn_tree_node));
  ck_assert_uint_eq(mem.live_blocks, 1);
  for (int32_t i = 0; i < m.count; ++i) ck_assert_int_eq(sn_tree_get_user_data(&tree, m.items[i].id), 1000 + i);
  checkpoint(&tree, &m, &g);
  float ratio = sn_tree_get_area_ratio(&tree);
  ck_assert(ratio > 1.0f && ratio < 1000.0f);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  ck_assert_uint_eq(mem.live_blocks, 0);
  model_free(&m);
}
END_TEST

/// Allocator that refuses once its budget of calls is spent.
typedef struct budget {
  int32_t calls_left;
} budget;

static void *budget_alloc(size_t size, void *context) {
  budget *b = context;
  if (b->calls_left <= 0) return NULL;
  b->calls_left -= 1;
  return malloc(size);
}

static void budget_free(void *memory, size_t size, void *context) {
  (void)size;
  (void)context;
  free(memory);
}

START_TEST(test_out_of_memory) {
  budget b = {0};
  sn_allocator user = {budget_alloc, budget_free, &b};
  sn_mem mem;
  sn_mem_init(&mem, &user);
  sn_tree tree;
  ck_assert(!sn_tree_init(&tree, &mem, 0));
  ck_assert_uint_eq(mem.live_bytes, 0);
  sn_tree_destroy(&tree); // harmless on a failed init

  b.calls_left = 1; // the initial array only
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {8u};
  int32_t failed = 0;
  for (int32_t i = 0; i < 100; ++i) {
    proxy_rec r = {0, random_box(&g), 1u, i};
    r.id = sn_tree_create_proxy(&tree, r.box, r.category, r.user_data);
    if (r.id == SN_NULL_NODE) {
      failed += 1;
      continue;
    }
    model_add(&m, r);
  }
  // 16 nodes hold 8 proxies (2n - 1 <= 16 with two free for the next insert).
  ck_assert_int_eq(m.count, 8);
  ck_assert_int_eq(failed, 92);
  checkpoint(&tree, &m, &g);
  // Moves and removals never allocate.
  for (int32_t i = 0; i < m.count; ++i) {
    m.items[i].box = random_box(&g);
    sn_tree_move_proxy(&tree, m.items[i].id, m.items[i].box);
  }
  sn_tree_rebuild(&tree); // no scratch memory: keeps the tree
  checkpoint(&tree, &m, &g);
  // Deferred moves never allocate; their rebuild has no scratch memory here:
  // the loose tree stays as it was, valid and exact.
  for (int32_t i = 0; i < m.count; ++i) {
    m.items[i].box = random_box(&g);
    sn_tree_move_proxy_deferred(&tree, m.items[i].id, m.items[i].box);
  }
  ck_assert(tree.nodes[tree.root].flags & SN_TREE_NODE_MOVED);
  sn_tree_rebuild_moved(&tree);
  ck_assert(tree.nodes[tree.root].flags & SN_TREE_NODE_MOVED);
  ck_assert_ptr_null(tree.scratch);
  checkpoint(&tree, &m, &g);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The query copy (sn_tree_refresh_wide)                                     */

/// sn_tree_collect through the query copy and through the binary tree: the
/// same count (or -1) and the same leaves, byte for byte, in the same order.
static int32_t check_wide_collect(sn_tree *tree, sn_aabb box, uint64_t mask, int32_t capacity) {
  static sn_tree_leaf wide[4096], binary[4096];
  ck_assert(tree->wide_valid);
  memset(wide, 0xA5, sizeof wide);
  memset(binary, 0xA5, sizeof binary);
  const int32_t n = sn_tree_collect(tree, box, mask, wide, capacity);
  tree->wide_valid = false; /* the binary walk */
  const int32_t m = sn_tree_collect(tree, box, mask, binary, capacity);
  tree->wide_valid = true;
  ck_assert_int_eq(n, m);
  if (n > 0) ck_assert(memcmp(wide, binary, (size_t)n * sizeof(sn_tree_leaf)) == 0);
  return n;
}

START_TEST(test_wide_copy_same_leaves) {
  // 3000 random boxes, a seventh moved deferred and the marked top rebuilt,
  // another seventh moved deferred after (loose ancestors), groups set: the
  // copy's collect returns the binary walk's leaves in its order for boxes
  // of every size and masks narrow and wide, and -1 alike when the buffer
  // is short.
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 16));
  lcg g = {777u};
  enum { N = 3000 };
  static int32_t ids[N];
  for (int32_t i = 0; i < N; ++i) ids[i] = sn_tree_create_proxy(&tree, random_box(&g), random_category(&g), i);
  for (int32_t i = 0; i < N; i += 7) sn_tree_move_proxy_deferred(&tree, ids[i], random_box(&g));
  sn_tree_rebuild_moved(&tree);
  for (int32_t i = 3; i < N; i += 7) sn_tree_move_proxy_deferred(&tree, ids[i], random_box(&g));
  for (int32_t i = 0; i < N; i += 5) sn_tree_set_group(&tree, ids[i], -1 - i % 3);
  ck_assert(!tree.wide_valid);
  ck_assert(sn_tree_refresh_wide(&tree));
  ck_assert(tree.wide_valid);
  int32_t many = 0;
  for (int k = 0; k < 400; ++k) {
    sn_aabb box = random_box(&g);
    const float grow = k % 4 == 0 ? 40.0f : (float)(k % 4);
    box.lower.x -= grow;
    box.lower.y -= grow;
    box.upper.x += grow;
    box.upper.y += grow;
    const uint64_t mask = k % 3 == 0 ? UINT64_MAX : (random_category(&g) | random_category(&g));
    const int32_t n = check_wide_collect(&tree, box, mask, 4096);
    many += n > 8;
    if (n > 1) check_wide_collect(&tree, box, mask, n - 1); /* -1 both ways */
  }
  ck_assert_int_gt(many, 100);
  check_wide_collect(&tree, (sn_aabb){{-1e4f, -1e4f}, {1e4f, 1e4f}}, UINT64_MAX, 4096);
  check_wide_collect(&tree, (sn_aabb){{1e4f, 1e4f}, {1e4f + 1.0f, 1e4f + 1.0f}}, UINT64_MAX, 4096); /* none */
  check_wide_collect(&tree, random_box(&g), 0u, 4096);                                              /* none */
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

START_TEST(test_wide_copy_follows_changes) {
  // Every change to the tree drops the copy (queries then walk the binary
  // tree); a refresh makes it again, and it answers for the tree as it is.
  // A tree with one leaf, or none, has a copy too; a negative user data has
  // none (the refresh succeeds, queries walk the binary tree).
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 16));
  ck_assert(sn_tree_refresh_wide(&tree));
  ck_assert(tree.wide_valid);
  sn_tree_leaf leaves[8];
  ck_assert_int_eq(sn_tree_collect(&tree, (sn_aabb){{-1.0f, -1.0f}, {1.0f, 1.0f}}, UINT64_MAX, leaves, 8), 0);
  lcg g = {99u};
  int32_t first = sn_tree_create_proxy(&tree, (sn_aabb){{0.0f, 0.0f}, {1.0f, 1.0f}}, 1u, 0);
  ck_assert(!tree.wide_valid);
  ck_assert(sn_tree_refresh_wide(&tree));
  ck_assert_int_eq(check_wide_collect(&tree, (sn_aabb){{0.5f, 0.5f}, {2.0f, 2.0f}}, UINT64_MAX, 8), 1);
  static int32_t ids[200];
  ids[0] = first;
  for (int32_t i = 1; i < 200; ++i) ids[i] = sn_tree_create_proxy(&tree, random_box(&g), random_category(&g), i);
  const sn_aabb all = {{-1e4f, -1e4f}, {1e4f, 1e4f}};
  for (int step = 0; step < 9; ++step) {
    ck_assert(sn_tree_refresh_wide(&tree));
    ck_assert(tree.wide_valid);
    ck_assert(sn_tree_refresh_wide(&tree)); /* (made already: nothing to do) */
    ck_assert_int_eq(check_wide_collect(&tree, all, UINT64_MAX, 4096), 200);
    for (int k = 0; k < 20; ++k) check_wide_collect(&tree, random_box(&g), UINT64_MAX, 4096);
    const int32_t id = ids[lcg_int(&g, 200)];
    switch (step) {
    case 0:
      sn_tree_move_proxy(&tree, id, random_box(&g));
      break;
    case 1:
      sn_tree_move_proxy_deferred(&tree, id, random_box(&g));
      break;
    case 2:
      sn_tree_rebuild_moved(&tree);
      break;
    case 3:
      sn_tree_enlarge_proxy(&tree, id, random_box(&g));
      break;
    case 4:
      sn_tree_set_category(&tree, id, 8u);
      break;
    case 5:
      sn_tree_set_group(&tree, id, -7);
      break;
    case 6:
      sn_tree_rebuild(&tree);
      break;
    case 7:
      sn_tree_move_proxy_deferred(&tree, id, random_box(&g));
      ck_assert(sn_tree_refresh_wide(&tree));
      sn_tree_rebuild_moved(&tree);
      ck_assert(sn_tree_refresh_wide(&tree));
      sn_tree_undo_rebuild(&tree);
      break;
    default:
      sn_tree_destroy_proxy(&tree, id);
      ids[id == first ? 0 : 1] = sn_tree_create_proxy(&tree, random_box(&g), 1u, 1000);
      break;
    }
    ck_assert_msg(!tree.wide_valid, "change %d kept the copy", step);
  }
  /* a leaf whose user data is negative: no copy, the binary walk */
  sn_tree_create_proxy(&tree, random_box(&g), 1u, -5);
  ck_assert(sn_tree_refresh_wide(&tree));
  ck_assert(!tree.wide_valid);
  ck_assert_int_eq(sn_tree_collect(&tree, all, UINT64_MAX, leaves, 8), -1);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

START_TEST(test_wide_copy_deep_and_short_of_memory) {
  // A chain 1200 leaves deep, each internal node holding the next one first
  // and a leaf second (the leaves wait on the copy's stack behind the
  // subtrees before them): the copy's walk runs out of stack and the collect
  // walks the binary tree, with the same leaves. A copy that cannot get its
  // memory leaves the tree as it was; queries walk the binary tree.
  budget b = {1000};
  sn_allocator user = {budget_alloc, budget_free, &b};
  sn_mem mem;
  sn_mem_init(&mem, &user);
  sn_tree tree;
  ck_assert(sn_tree_init(&tree, &mem, 0));
  model m = {0};
  lcg g = {4711u};
  enum { N = 1200 };
  fill_random(&tree, &m, &g, N);
  rewire_as_chain(&tree, N, false);
  ck_assert(sn_tree_validate(&tree));
  b.calls_left = 0;
  ck_assert(!sn_tree_refresh_wide(&tree));
  ck_assert(!tree.wide_valid);
  static sn_tree_leaf got[N + 1];
  const sn_aabb all = {{-1e4f, -1e4f}, {1e4f, 1e4f}};
  ck_assert_int_eq(sn_tree_collect(&tree, all, UINT64_MAX, got, N + 1), N);
  b.calls_left = 1;
  ck_assert(sn_tree_refresh_wide(&tree));
  ck_assert(tree.wide_valid);
  ck_assert_int_eq(check_wide_collect(&tree, all, UINT64_MAX, 4096), N);
  for (int i = 0; i < 40; ++i) check_wide_collect(&tree, random_query_box(&g), k_masks[lcg_int(&g, 5)], 4096);
  sn_tree_destroy(&tree);
  ck_assert_uint_eq(mem.live_bytes, 0);
  model_free(&m);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("tree");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_empty_tree);
  tcase_add_test(tc, test_random_operations);
  tcase_add_test(tc, test_grid_balance);
  tcase_add_test(tc, test_mask_filter);
  tcase_add_test(tc, test_callback_contracts);
  tcase_add_test(tc, test_collect_shares_a_descent);
  tcase_add_test(tc, test_leaves_skip_group);
  tcase_add_test(tc, test_leaves_hits_definition);
  tcase_add_test(tc, test_enlarge);
  tcase_add_test(tc, test_rebuild);
  tcase_add_test(tc, test_deferred_moves);
  tcase_add_test(tc, test_marked_moves_same_tree);
  tcase_add_test(tc, test_rebuild_jobs_same_tree);
  tcase_add_test(tc, test_middle_split_bounds);
  tcase_add_test(tc, test_determinism);
  tcase_add_test(tc, test_deep_tree_fallback);
  tcase_add_test(tc, test_growth_and_accounting);
  tcase_add_test(tc, test_out_of_memory);
  tcase_add_test(tc, test_wide_copy_same_leaves);
  tcase_add_test(tc, test_wide_copy_follows_changes);
  tcase_add_test(tc, test_wide_copy_deep_and_short_of_memory);
  suite_add_tcase(s, tc);
  return s;
}
