/* Batched XPBD (sn_constraint_type.solve_particles): the batch path gives
 * the per-item path's result bit for bit (same Gauss-Seidel order: the
 * colours are levels of the creation order), the colours are valid, and
 * they follow topology changes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "world/world.h"
#include "soft_support.h"

/* A cloth with every code path of the two batched types in it: soft links
 * with damping (compliance mode), shear, bending (a per-item type between
 * the batched ones: the particle arrays go back and forth), tethers from two
 * pins, a rope link (max_only) and a plain-PBD link (use_stiffness). */
static sn_soft_body_id xb_cloth(sn_world *w) {
  sn_cloth_def cd = sn_default_cloth_def();
  cd.columns = 13;
  cd.rows = 9;
  cd.spacing = 0.1f;
  cd.top_left = (sn_vec2){-0.6f, 2.0f};
  cd.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT;
  cd.material.compliance = 1e-5f;
  cd.material.damping = 0.02f;
  cd.material.shear_compliance = 1e-4f;
  cd.material.bend_compliance = 1e-2f;
  sn_soft_body_id s = sn_create_cloth(w, &cd);
  ck_assert_msg(sn_soft_body_is_valid(w, s), "%s", sn_world_last_error(w));
  sn_constraint_id ids[1024];
  int32_t n = sn_soft_body_get_constraints(w, s, ids, 1024);
  ck_assert_int_gt(n, 200);
  /* a few links become ropes and plain-PBD links */
  for (int32_t k = 0; k < 12; ++k) {
    double x, y;
    if (sn_constraint_get_param(w, ids[7 * k], "max_only", &x, &y) != SN_OK) continue;
    ck_assert_int_eq(sn_constraint_set_param(w, ids[7 * k], "max_only", 1.0, 0.0), SN_OK);
    ck_assert_int_eq(sn_constraint_set_param(w, ids[7 * k + 3], "use_stiffness", 1.0, 0.0), SN_OK);
    ck_assert_int_eq(sn_constraint_set_param(w, ids[7 * k + 3], "stiffness", 0.7, 0.0), SN_OK);
  }
  return s;
}

static sn_world *xb_world(const sn_registry *r, bool batch) {
  sn_world *w = ss_world(r, 4, 2);
  w->xpbd_batch_off = !batch;
  return w;
}

/* Every batched constraint once; no colour with two constraints on one
 * movable particle; constraints sharing one keep their creation order. */
static void xb_check_schedule(sn_world *w) {
  const sn_xpbd_schedule *x = &w->xpbd;
  ck_assert(x->valid);
  int32_t *seen = calloc((size_t)w->constraints.count + 1, sizeof(int32_t));
  int32_t *stamp = calloc((size_t)w->particles.count + 1, sizeof(int32_t));
  int32_t *level_of = calloc((size_t)w->constraints.count + 1, sizeof(int32_t));
  ck_assert(seen && stamp && level_of);
  int32_t expected = 0;
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (k->in_use && k->type->solve_particles != NULL) expected++;
  }
  ck_assert_int_eq(x->order.count, expected);
  int32_t tag = 0;
  for (int32_t r = 0; r < x->ranges.count; ++r) {
    const sn_xpbd_range *range = x->ranges.data + r;
    const int32_t *start = x->level_start.data + range->level_first;
    ck_assert_int_eq(start[0], 0);
    ck_assert_int_eq(start[range->level_count], range->count);
    for (int32_t l = 0; l < range->level_count; ++l) {
      tag++;
      ck_assert_int_lt(start[l], start[l + 1]); /* no empty level */
      for (int32_t j = start[l]; j < start[l + 1]; ++j) {
        int32_t slot = x->order.data[range->first + j];
        const sn_constraint *k = w->constraints.data + slot;
        ck_assert(k->in_use);
        ck_assert_ptr_eq(k->type, range->type);
        seen[slot]++;
        level_of[slot] = l;
        for (int32_t m = 0; m < k->particle_count; ++m) {
          int32_t p = k->particles[m];
          ck_assert_int_eq(x->indices.data[x->index_start.data[r] + j * k->particle_count + m], p);
          if (w->particles.data[p].inv_mass == 0.0f) continue;
          ck_assert_msg(stamp[p] != tag, "two constraints of one colour move particle %d", (int)p);
          stamp[p] = tag;
        }
      }
    }
    /* creation order between constraints sharing a movable particle */
    for (int32_t p = 0; p < w->particles.count; ++p) {
      if (w->particles.data[p].inv_mass == 0.0f) continue;
      int32_t last = -1;
      for (int32_t i = 0; i < w->constraints.count; ++i) {
        const sn_constraint *k = w->constraints.data + i;
        if (!k->in_use || k->type != range->type) continue;
        bool touches = false;
        for (int32_t m = 0; m < k->particle_count; ++m) touches = touches || k->particles[m] == p;
        if (!touches) continue;
        ck_assert_int_gt(level_of[i], last);
        last = level_of[i];
      }
    }
  }
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    ck_assert_int_eq(seen[i], k->in_use && k->type->solve_particles != NULL ? 1 : 0);
  }
  free(seen);
  free(stamp);
  free(level_of);
}

static void xb_particles(sn_world *w, sn_soft_body_id s, float *out, int32_t n) {
  sn_particle_id ids[256];
  ck_assert_int_eq(sn_soft_body_get_particles(w, s, ids, 256), n);
  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 x = sn_particle_get_position(w, ids[i]), v = sn_particle_get_velocity(w, ids[i]);
    out[4 * i] = x.x, out[4 * i + 1] = x.y, out[4 * i + 2] = v.x, out[4 * i + 3] = v.y;
  }
}

/// How a world solves the batched types: per item, or batched with SIMD
/// lanes (AVX2 or SSE2) or plain C.
typedef struct xb_path {
  bool batch, avx2, scalar;
} xb_path;

/* The cloth stepped 90 steps on each path: every path gives the first
 * path's particles and reactions bit for bit. */
static void xb_check_paths_agree(const xb_path *paths, int count) {
  sn_registry *r = ss_registry();
  sn_world *w[4];
  sn_soft_body_id s[4];
  ck_assert_int_le(count, 4);
  for (int m = 0; m < count; ++m) {
    w[m] = xb_world(r, paths[m].batch);
    w[m]->use_avx2 = paths[m].avx2;
    w[m]->xpbd_scalar = paths[m].scalar;
    s[m] = xb_cloth(w[m]);
  }
  const int32_t n = 13 * 9;
  for (int step = 0; step < 90; ++step) {
    for (int m = 0; m < count; ++m) ck_assert_int_eq(sn_world_step(w[m], 1.0f / 60.0f), SN_OK);
  }
  /* the batch path ran (distance and tether types batched) where it should */
  for (int m = 0; m < count; ++m) ck_assert_int_eq(w[m]->xpbd.ranges.count, paths[m].batch ? 2 : 0);
  float x0[4 * 13 * 9], xm[4 * 13 * 9];
  xb_particles(w[0], s[0], x0, n);
  /* it moved: hanging from two corners, the free bottom corner swings */
  ck_assert_double_gt(fabs((double)x0[4 * (n - 1) + 1] - (2.0 - 0.8)), 0.05);
  sn_constraint_id k0[1024], km[1024];
  int32_t nk = sn_soft_body_get_constraints(w[0], s[0], k0, 1024);
  for (int m = 1; m < count; ++m) {
    xb_particles(w[m], s[m], xm, n);
    ck_assert_msg(memcmp(x0, xm, sizeof x0) == 0, "path %d and path 0 differ", m);
    /* reactions agree too (kept in the last substep by the batch) */
    ck_assert_int_eq(sn_soft_body_get_constraints(w[m], s[m], km, 1024), nk);
    int32_t loaded = 0;
    for (int32_t k = 0; k < nk; ++k) {
      sn_vec2 fa, fb;
      float ta, tb;
      ck_assert_int_eq(sn_constraint_get_reaction(w[0], k0[k], &fa, &ta), SN_OK);
      ck_assert_int_eq(sn_constraint_get_reaction(w[m], km[k], &fb, &tb), SN_OK);
      ck_assert(memcmp(&fa, &fb, sizeof fa) == 0);
      loaded += fa.x != 0.0f || fa.y != 0.0f;
    }
    ck_assert_int_gt(loaded, 100);
    if (paths[m].batch) xb_check_schedule(w[m]);
  }
  for (int m = 0; m < count; ++m) sn_destroy_world(w[m]);
  sn_destroy_registry(r);
}

START_TEST(test_batch_matches_items) {
  /* the item path, and the batch path with SSE2 lanes and in plain C */
  const xb_path paths[] = {{.batch = false}, {.batch = true}, {.batch = true, .scalar = true}};
  xb_check_paths_agree(paths, 3);
}
END_TEST

START_TEST(test_batch_avx2_matches_items) {
  /* the item path and the batch path with AVX2 lanes (the part that needs
   * AVX2: test_xpbd_batch.avx2) */
  const xb_path paths[] = {{.batch = false, .avx2 = true}, {.batch = true, .avx2 = true}};
  xb_check_paths_agree(paths, 2);
}
END_TEST

START_TEST(test_recolour_on_topology_change) {
  sn_registry *r = ss_registry();
  sn_world *w = xb_world(r, true);
  sn_soft_body_id s = xb_cloth(w);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 1);
  xb_check_schedule(w);
  /* no change: no rebuild, and a warm step allocates nothing */
  sn_world_counters c0 = sn_world_get_counters(w);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 1);
  ck_assert_uint_eq(sn_world_get_counters(w).allocated_bytes, c0.allocated_bytes);
  /* a new link */
  sn_particle_id p[256];
  ck_assert_int_eq(sn_soft_body_get_particles(w, s, p, 256), 13 * 9);
  const sn_particle_id pair[2] = {p[20], p[60]};
  sn_constraint_id added = ss_constraint(w, "xpbd_distance", SN_NULL_BODY, pair, 2, NULL, 0, 0.0f);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 2);
  xb_check_schedule(w);
  /* a link gone */
  ck_assert_int_eq(sn_destroy_constraint(w, added), SN_OK);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 3);
  xb_check_schedule(w);
  /* a particle pinned: it may now be shared within a colour */
  int32_t levels = w->xpbd.ranges.data[0].level_count;
  ck_assert_int_eq(sn_particle_set_mass(w, p[6], 0.0f), SN_OK);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 4);
  ck_assert_int_le(w->xpbd.ranges.data[0].level_count, levels);
  xb_check_schedule(w);
  /* a particle gone (with its constraints) and a new one */
  ck_assert_int_eq(sn_destroy_particle(w, p[100]), SN_OK);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 5);
  xb_check_schedule(w);
  ss_particle(w, s, (sn_vec2){3.0f, 3.0f}, 1.0f);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.builds, 6);
  xb_check_schedule(w);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The batched constraints' params and instances live in the schedule's
 * blocks; switching the batch off and on moves them home and back without
 * losing a bit (same result as a world that never switched), and the
 * parameters stay readable and settable throughout. */
START_TEST(test_resident_moves) {
  sn_registry *r = ss_registry();
  sn_world *a = xb_world(r, true), *b = xb_world(r, true);
  sn_soft_body_id sa = xb_cloth(a), sb = xb_cloth(b);
  sn_constraint_id ka[1024], kb[1024];
  int32_t nk = sn_soft_body_get_constraints(a, sa, ka, 1024);
  ck_assert_int_eq(sn_soft_body_get_constraints(b, sb, kb, 1024), nk);
  for (int step = 0; step < 60; ++step) {
    if (step % 10 == 5) b->xpbd_batch_off = !b->xpbd_batch_off;
    if (step == 33) {
      /* a runtime parameter change while resident (or not) */
      ck_assert_int_eq(sn_constraint_set_param(a, ka[40], "compliance", 1e-3, 0.0), SN_OK);
      ck_assert_int_eq(sn_constraint_set_param(b, kb[40], "compliance", 1e-3, 0.0), SN_OK);
    }
    ck_assert_int_eq(sn_world_step(a, 1.0f / 60.0f), SN_OK);
    ck_assert_int_eq(sn_world_step(b, 1.0f / 60.0f), SN_OK);
  }
  ck_assert_int_eq(b->xpbd.builds, 7);
  double x, y;
  ck_assert_int_eq(sn_constraint_get_param(b, kb[40], "compliance", &x, &y), SN_OK);
  ck_assert_double_eq_tol(x, 1e-3, 1e-9);
  const int32_t n = 13 * 9;
  float xa[4 * 13 * 9], xb[4 * 13 * 9];
  xb_particles(a, sa, xa, n);
  xb_particles(b, sb, xb, n);
  ck_assert_msg(memcmp(xa, xb, sizeof xa) == 0, "switching the batch path changed the result");
  sn_destroy_world(a);
  sn_destroy_world(b);
  sn_destroy_registry(r);
}
END_TEST

/* A chain built from its anchor: the levels keep the creation order, so one
 * sweep carries the anchor's correction down the whole chain (a greedy
 * colouring would take one sweep per two links). */
START_TEST(test_chain_levels) {
  sn_registry *r = ss_registry();
  sn_world *w = xb_world(r, true);
  sn_soft_body_id s = ss_soft(w);
  sn_particle_id p[21];
  for (int32_t i = 0; i < 21; ++i) p[i] = ss_particle(w, s, (sn_vec2){0.1f * (float)i, 0.0f}, i == 0 ? 0.0f : 1.0f);
  for (int32_t i = 0; i < 20; ++i) ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p + i, 2, NULL, 0, 0.0f);
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert_int_eq(w->xpbd.ranges.count, 1);
  ck_assert_int_eq(w->xpbd.ranges.data[0].level_count, 20);
  xb_check_schedule(w);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The batch's range of the type called name (white box). */
static const sn_xpbd_range *xb_range(const sn_world *w, const char *name) {
  for (int32_t r = 0; r < w->xpbd.ranges.count; ++r)
    if (strcmp(w->xpbd.ranges.data[r].type->name, name) == 0) return w->xpbd.ranges.data + r;
  ck_abort_msg("no batched range of %s", name);
  return NULL;
}

/* One sweep per substep (the kernels then keep lambda only in the last
 * substep), links with equal params (the batch gets them as one record,
 * params_stride 0) until one link's compliance changes, and a break force
 * set after the world has stepped (the cached list of breakable
 * constraints follows): the batch path still gives the item path's result
 * bit for bit, reactions included, and the link breaks in both. */
START_TEST(test_same_params_and_cached_lists) {
  sn_registry *r = ss_registry();
  sn_world *w[2];
  sn_soft_body_id s[2];
  sn_constraint_id ids[2][1024];
  int32_t nk = 0;
  for (int m = 0; m < 2; ++m) {
    w[m] = ss_world(r, 8, 1);
    w[m]->xpbd_batch_off = m == 0;
    sn_cloth_def cd = sn_default_cloth_def();
    cd.columns = 13;
    cd.rows = 9;
    cd.spacing = 0.1f;
    cd.top_left = (sn_vec2){-0.6f, 2.0f};
    cd.pins = SN_PIN_TOP_LEFT; /* it swings */
    cd.material.shear_compliance = 0.0f;
    s[m] = sn_create_cloth(w[m], &cd);
    ck_assert_msg(sn_soft_body_is_valid(w[m], s[m]), "%s", sn_world_last_error(w[m]));
    nk = sn_soft_body_get_constraints(w[m], s[m], ids[m], 1024);
  }
  const int32_t n = 13 * 9;
  float x0[4 * 13 * 9], x1[4 * 13 * 9];
  for (int phase = 0; phase < 3; ++phase) {
    if (phase == 1) {
      /* one link softens: the links' params differ from now on */
      for (int m = 0; m < 2; ++m)
        ck_assert_int_eq(sn_constraint_set_param(w[m], ids[m][5], "compliance", 1e-3, 0), SN_OK);
    }
    if (phase == 2) {
      /* a break force far below the link's load: it tears at the next step */
      for (int m = 0; m < 2; ++m) ck_assert_int_eq(sn_constraint_set_break_force(w[m], ids[m][0], 1e-6f), SN_OK);
    }
    for (int step = 0; step < 30; ++step) {
      for (int m = 0; m < 2; ++m) ck_assert_int_eq(sn_world_step(w[m], 1.0f / 60.0f), SN_OK);
    }
    ck_assert(xb_range(w[1], "xpbd_distance")->same_params == (phase == 0));
    ck_assert(xb_range(w[1], "xpbd_tether")->same_params);
    xb_particles(w[0], s[0], x0, n);
    xb_particles(w[1], s[1], x1, n);
    ck_assert_msg(memcmp(x0, x1, sizeof x0) == 0, "batch and item paths differ after phase %d", phase);
    for (int32_t k = 1; k < nk; ++k) {
      sn_vec2 fa, fb;
      float ta, tb;
      ck_assert_int_eq(sn_constraint_get_reaction(w[0], ids[0][k], &fa, &ta), SN_OK);
      ck_assert_int_eq(sn_constraint_get_reaction(w[1], ids[1][k], &fb, &tb), SN_OK);
      ck_assert(memcmp(&fa, &fb, sizeof fa) == 0);
    }
    for (int m = 0; m < 2; ++m) ck_assert(sn_constraint_is_valid(w[m], ids[m][0]) == (phase < 2));
  }
  /* it moved: hanging from one corner, it swings down */
  double moved = 0.0;
  for (int32_t i = 0; i < n; ++i) {
    const double x = -0.6 + 0.1 * (i % 13), y = 2.0 - 0.1 * (i / 13);
    moved = fmax(moved, hypot(x0[4 * i] - x, x0[4 * i + 1] - y));
  }
  ck_assert_double_gt(moved, 0.3);
  for (int m = 0; m < 2; ++m) sn_destroy_world(w[m]);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("xpbd_batch");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_batch_matches_items);
  tcase_add_test(tc, test_recolour_on_topology_change);
  tcase_add_test(tc, test_chain_levels);
  tcase_add_test(tc, test_same_params_and_cached_lists);
  tcase_add_test(tc, test_resident_moves);
  suite_add_tcase(s, tc);
  TCase *avx2 = tcase_create("avx2");
  tcase_set_timeout(avx2, 120);
  tcase_add_test(avx2, test_batch_avx2_matches_items);
  sn_test_add_part(&sn_need_avx2, avx2);
  return s;
}
