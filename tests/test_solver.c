/* The wide contact kernel: colouring invariants, padding and phantom lanes
 * that cannot move anything, and the block normal solve against a hand
 * computation. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "base/alloc.h"
#include "world/world.h"
#include "scenes.h"
#include "rigid/contact_wide.h"
#include "sinew/sinew.h"

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* A random constraint between bodies a and b (b may be the static dummy). */
static sn_contact_constraint make_constraint(int32_t a, int32_t b, int32_t dummy, int points) {
  sn_contact_constraint c;
  memset(&c, 0, sizeof(c));
  c.ia = a;
  c.ib = b;
  c.normal = (sn_vec2){0.0f, 1.0f};
  c.ma = 1.0f;
  c.ia_inv = 6.0f;
  c.mb = b == dummy ? 0.0f : 1.0f;
  c.ib_inv = b == dummy ? 0.0f : 6.0f;
  c.friction = 0.6f;
  c.soft.bias_rate = 10.0f;
  c.soft.mass_scale = 0.9f;
  c.soft.impulse_scale = 0.1f;
  c.point_count = points;
  c.points[0].ra = (sn_vec2){-0.5f, -0.5f};
  c.points[0].rb = (sn_vec2){-0.5f, 0.5f};
  c.points[1].ra = (sn_vec2){0.5f, -0.5f};
  c.points[1].rb = (sn_vec2){0.5f, 0.5f};
  for (int j = 0; j < 2; ++j) {
    c.points[j].normal_mass = 1.0f / 5.0f;
    c.points[j].tangent_mass = 1.0f / 2.0f;
  }
  float msum = c.ma + c.mb;
  float r1 = -0.5f, r2 = 0.5f; /* cross(r, n) = r.x for n = (0, 1) */
  c.k11 = msum + c.ia_inv * r1 * r1 + c.ib_inv * r1 * r1;
  c.k22 = msum + c.ia_inv * r2 * r2 + c.ib_inv * r2 * r2;
  c.k12 = msum + c.ia_inv * r1 * r2 + c.ib_inv * r1 * r2;
  float det = c.k11 * c.k22 - c.k12 * c.k12;
  c.n11 = c.k22 / det;
  c.n12 = -c.k12 / det;
  c.n22 = c.k11 / det;
  c.points[0].normal_mass = 1.0f / c.k11;
  c.points[1].normal_mass = 1.0f / c.k22;
  return c;
}

/* 2000 random contacts among 300 bodies: every group's lanes touch distinct
 * dynamic bodies, every constraint sits in exactly one lane. */
START_TEST(test_coloring_invariants) {
  enum { NB = 300, NC = 2000 };
  int32_t dummy = NB;
  sn_contact_constraint *cs = calloc(NC, sizeof(*cs));
  int32_t *colors = calloc(NC, sizeof(int32_t));
  uint64_t *masks = calloc(NB + 1, sizeof(uint64_t));
  uint32_t seed = 7;
  for (int32_t k = 0; k < NC; ++k) {
    int32_t a = (int32_t)(lcg(&seed) % NB), b = (int32_t)(lcg(&seed) % (NB + 1));
    if (b == a) b = dummy;
    cs[k] = make_constraint(a, b, dummy, 1 + (int)(lcg(&seed) % 2));
  }
  sn_wide_key *keys = calloc(NC, sizeof(*keys));
  for (int32_t k = 0; k < NC; ++k) keys[k] = sn_wide_key_of(cs + k, dummy);
  int32_t groups = sn_wide_color(keys, NC, NB, colors, masks);
  ck_assert_int_ge(groups, NC / SN_WIDE_LANES);
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_arena arena;
  sn_arena_init(&arena);
  ck_assert(sn_arena_reserve(&arena, &mem, sn_wide_bytes(groups)));
  sn_wide_set set;
  ck_assert(sn_wide_build(&set, &arena, NC, colors, groups));
  sn_wide_fill(&set, cs, 0, set.group_count, dummy);
  int *seen = calloc(NC, sizeof(int));
  for (int32_t g = 0; g < groups; ++g) {
    int32_t bodies[2 * SN_WIDE_LANES];
    int nbodies = 0;
    for (int l = 0; l < SN_WIDE_LANES; ++l) {
      int32_t k = set.lane_constraint[SN_WIDE_LANES * g + l];
      if (k < 0) continue;
      seen[k]++;
      int32_t ends[2] = {cs[k].ia, cs[k].ib};
      for (int e = 0; e < 2; ++e) {
        if (ends[e] == dummy) continue;
        for (int i = 0; i < nbodies; ++i) ck_assert_int_ne(bodies[i], ends[e]);
        bodies[nbodies++] = ends[e];
      }
    }
  }
  for (int32_t k = 0; k < NC; ++k) ck_assert_int_eq(seen[k], 1);
  /* and the lane of each contact is the inverse map */
  for (int32_t k = 0; k < NC; ++k) ck_assert_int_eq(set.lane_constraint[set.contact_slot[k]], k);
  free(seen);
  sn_arena_destroy(&arena, &mem);
  ck_assert_uint_eq(mem.live_bytes, 0);
  free(cs);
  free(keys);
  free(colors);
  free(masks);
}
END_TEST

/* The batches of sn_wide_batches, by hand: 12 bodies (12 is the static
 * slot). Islands {0 1 2}, {3 5}, {4} (on the ground only), {6 7 8} (7 a
 * kinematic body: the contacts cannot move it, yet it joins its contacts'
 * bodies, which would otherwise integrate it in two batches), {9},
 * {10 11}. Islands join the open batch in the order of their lowest
 * bodies until it holds the target's contacts: after every island (target
 * 1), after 3 contacts or more, after 4 (batches whose bodies interleave:
 * runs of consecutive bodies); none when one batch would hold more than
 * half of the contacts, when the batches would be more than allowed, or
 * when more than one contact in SN_WIDE_BATCH_FAR_SHARE joins bodies more
 * than SN_WIDE_BATCH_SPAN apart. Then the batch-major layout: each contact
 * in one lane of its batch's range and of its colour within it, lanes in
 * contact order, padding only at a colour's end. */
START_TEST(test_batches_cut) {
  enum { NB = 12, NC = 11 };
  const sn_wide_key keys[NC] = {{0, 1, 3u}, {1, NB, 1u}, {2, 0, 3u},   {3, 5, 3u},   {4, NB, 1u}, {6, 7, 1u},
                                {7, 8, 2u}, {9, NB, 1u}, {10, 11, 3u}, {11, 10, 3u}, {5, NB, 1u}};
  int32_t runs[2 * NB], first[NB + 1], batch_of[NB], parent[NB];
  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 1, NB, runs, first, batch_of, parent), 6);
  const int32_t of[NB] = {0, 0, 0, 1, 2, 1, 3, 3, 3, 4, 5, 5};
  for (int k = 0; k < NB; ++k) ck_assert_int_eq(batch_of[k], of[k]);
  /* batch 1 is {3 5}: two runs */
  ck_assert_int_eq(first[1], 1);
  ck_assert_int_eq(first[2], 3);
  ck_assert_int_eq(runs[2], 3);
  ck_assert_int_eq(runs[3], 4);
  ck_assert_int_eq(runs[4], 5);
  ck_assert_int_eq(runs[5], 6);
  ck_assert_int_eq(first[6], 7); /* seven runs in all */
  /* 3 contacts or more: {0 1 2} | {3 4 5} | {6 7 8 9} | {10 11} (the last
   * batch takes what is left) */
  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 3, NB, runs, first, batch_of, parent), 4);
  const int32_t of3[NB] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3};
  for (int k = 0; k < NB; ++k) ck_assert_int_eq(batch_of[k], of3[k]);
  for (int b = 0; b < 4; ++b) ck_assert_int_eq(first[b + 1] - first[b], 1); /* one run each */
  /* 4: {0 1 2 3 5} | {4 6 7 8 9} | {10 11}, runs [0 4) [5 6) | [4 5) [6 10) | [10 12) */
  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 4, NB, runs, first, batch_of, parent), 3);
  const int32_t runs4[10] = {0, 4, 5, 6, 4, 5, 6, 10, 10, 12};
  for (int r = 0; r < 10; ++r) ck_assert_int_eq(runs[r], runs4[r]);
  ck_assert_int_eq(first[1], 2);
  ck_assert_int_eq(first[2], 4);
  ck_assert_int_eq(first[3], 5);
  /* 6: {0 1 2 3 4 5} holds 6 of 11 contacts, more than half */
  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 6, NB, runs, first, batch_of, parent), 0);
  /* more batches than allowed; no contacts or one body: nothing to cut */
  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 1, 4, runs, first, batch_of, parent), 0);
  ck_assert_int_eq(sn_wide_batches(keys, 0, NB, 1, NB, runs, first, batch_of, parent), 0);
  ck_assert_int_eq(sn_wide_batches(keys, 1, 1, 1, NB, runs, first, batch_of, parent), 0);
  {
    /* 16 contacts in pairs {2i, 2i+1} of 200 bodies: cut; with two of them
     * joining bodies far apart (one in 8), still; with three, not */
    enum { FB = 200, FC = 16 };
    sn_wide_key far[FC];
    int32_t fruns[2 * FB], ffirst[FB + 1], fof[FB], fparent[FB];
    for (int i = 0; i < FC; ++i) far[i] = (sn_wide_key){2 * i, 2 * i + 1, 3u};
    /* (and the 168 bodies without contacts: a batch of their own) */
    ck_assert_int_eq(sn_wide_batches(far, FC, FB, 2, FB, fruns, ffirst, fof, fparent), 9);
    far[0].ib = SN_WIDE_BATCH_SPAN; /* 0 to 64: exactly SN_WIDE_BATCH_SPAN apart, near */
    far[1].ib = 2 + SN_WIDE_BATCH_SPAN + 1;
    far[2].ib = 4 + SN_WIDE_BATCH_SPAN + 1;
    ck_assert_int_gt(sn_wide_batches(far, FC, FB, 2, FB, fruns, ffirst, fof, fparent), 1);
    far[3].ib = 6 + SN_WIDE_BATCH_SPAN + 1;
    ck_assert_int_eq(sn_wide_batches(far, FC, FB, 2, FB, fruns, ffirst, fof, fparent), 0);
  }

  ck_assert_int_eq(sn_wide_batches(keys, NC, NB, 1, NB, runs, first, batch_of, parent), 6);
  enum { NBATCH = 6 };
  int32_t colors[NC];
  uint64_t masks[NB + 1];
  sn_wide_color(keys, NC, NB, colors, masks);
  int32_t starts[NBATCH * SN_WIDE_COLORS + 1];
  const int32_t groups = sn_wide_batched_groups(colors, keys, NC, batch_of, NBATCH, starts);
  /* a group per batch and colour holding contacts (none overflow here) */
  int32_t expect = 0;
  for (int32_t e = 0; e < NBATCH * SN_WIDE_COLORS; ++e) {
    bool any = false;
    for (int32_t k = 0; k < NC; ++k)
      any = any || (batch_of[keys[k].ia < keys[k].ib ? keys[k].ia : keys[k].ib] * SN_WIDE_COLORS + colors[k] == e);
    expect += any;
  }
  ck_assert_int_eq(groups, expect);
  ck_assert_int_eq(starts[NBATCH * SN_WIDE_COLORS], groups);
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_arena arena;
  sn_arena_init(&arena);
  ck_assert(sn_arena_reserve(&arena, &mem, sn_wide_bytes(groups) + 1024));
  sn_wide_set set;
  ck_assert(sn_wide_build_batches(&set, &arena, NC, colors, keys, batch_of, NBATCH, runs, first, starts, groups));
  ck_assert_int_eq(set.batch_count, NBATCH);
  for (int32_t k = 0; k < NC; ++k) {
    const int32_t slot = set.contact_slot[k], g = slot / SN_WIDE_LANES;
    ck_assert_int_eq(set.lane_constraint[slot], k);
    const int32_t e = batch_of[keys[k].ia < keys[k].ib ? keys[k].ia : keys[k].ib] * SN_WIDE_COLORS + colors[k];
    ck_assert_int_ge(g, starts[e]);
    ck_assert_int_lt(g, starts[e + 1]);
  }
  for (int32_t g = 0; g < groups; ++g) {
    const int32_t *lanes = set.lane_constraint + SN_WIDE_LANES * g;
    ck_assert_int_ge(lanes[0], 0);
    for (int l = 1; l < SN_WIDE_LANES; ++l) ck_assert(lanes[l] < 0 || lanes[l] > lanes[l - 1]);
  }
  sn_arena_destroy(&arena, &mem);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

/* The wide set of a 30-row pyramid's last step, prepared straight from the
 * world: once all contacts at one go (which completes every group), once
 * in cuts of 1, 2, 3, 5 and 7 contacts with every group completed
 * afterwards in two cuts, once in blocks of 16 (as workers cut them) with
 * only the groups no block held whole completed afterwards, and once group
 * by group (sn_wide_prepare_groups) in cuts of 1, 2 and 3 groups. All must
 * solve to the same bits (velocities and every
 * lane's impulses), and the pile must push (some normal impulse > 0). A set whose colouring is taken from the lanes
 * (sn_wide_index_contacts) gives each contact the lane sn_wide_build gave it. */
START_TEST(test_prepare_any_cut) {
  sn_scene scene;
  ck_assert(sn_scene_build(&scene, "pyramid", 30, 0, false));
  sn_world *w = scene.world;
  for (int i = 0; i < 60; ++i) sn_world_step(w, 1.0f / 60.0f);
  const int32_t nb = w->awake_bodies.count, nc = w->solver_contacts.count;
  ck_assert_int_eq(nb, 30 * 31 / 2);
  ck_assert_int_ge(nc, nb);
  sn_body_state *states = calloc((size_t)nb + 1, sizeof(*states));
  sn_body_state *solved[4] = {calloc((size_t)nb + 1, sizeof(*states)), calloc((size_t)nb + 1, sizeof(*states)),
                              calloc((size_t)nb + 1, sizeof(*states)), calloc((size_t)nb + 1, sizeof(*states))};
  sn_wide_body *bodies = calloc((size_t)nb, sizeof(*bodies));
  for (int32_t k = 0; k <= nb; ++k) states[k].dq = (sn_rot){1.0f, 0.0f};
  for (int32_t k = 0; k < nb; ++k) {
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    states[k].v = b->v;
    states[k].w = b->w;
    bodies[k] = (sn_wide_body){b->inv_mass, b->inv_inertia, {b->center.x - b->xf.p.x, b->center.y - b->xf.p.y}};
  }
  int32_t *colors = calloc((size_t)nc, sizeof(int32_t));
  uint64_t *masks = calloc((size_t)nb + 1, sizeof(uint64_t));
  int32_t groups = sn_wide_color(w->solver_keys.data, nc, nb, colors, masks);
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_arena arena;
  sn_arena_init(&arena);
  ck_assert(sn_arena_reserve(&arena, &mem, 5 * sn_wide_bytes(groups)));
  const sn_softness soft = {10.0f, 0.9f, 0.1f}, static_soft = {20.0f, 0.95f, 0.05f};
  sn_wide_set sets[4];
  const int cuts[5] = {1, 2, 3, 5, 7};
  for (int run = 0; run < 4; ++run) {
    sn_wide_set *set = sets + run;
    ck_assert(sn_wide_build(set, &arena, nc, colors, groups));
    if (run == 0) {
      /* (one call over every contact completes every group) */
      sn_wide_prepare_range(set, w, w->solver_contacts.data, w->solver_keys.data, states, bodies, 0, nc, nb, &soft,
                            &static_soft);
    } else if (run == 3) {
      for (int32_t g = 0, c = 0; g < groups; g += cuts[c], c = (c + 1) % 3) {
        sn_wide_prepare_groups(set, w, w->solver_contacts.data, w->solver_keys.data, states, bodies, g,
                               g + cuts[c] < groups ? g + cuts[c] : groups, nb, &soft, &static_soft);
      }
    } else if (run == 2) {
      /* blocks of 16 (as the step cuts them): the lane pass skips the
       * groups that one block held whole */
      for (int32_t k = 0; k < nc; k += 16) {
        sn_wide_prepare_range(set, w, w->solver_contacts.data, w->solver_keys.data, states, bodies, k,
                              k + 16 < nc ? k + 16 : nc, nb, &soft, &static_soft);
      }
      sn_wide_prepare_lanes(set, 0, groups, nb, 16);
    } else {
      for (int32_t k = 0, c = 0; k < nc; k += cuts[c], c = (c + 1) % 5) {
        int32_t end = k + cuts[c] < nc ? k + cuts[c] : nc;
        sn_wide_prepare_range(set, w, w->solver_contacts.data, w->solver_keys.data, states, bodies, k, end, nb, &soft,
                              &static_soft);
      }
      sn_wide_prepare_lanes(set, groups / 2, groups, nb, 0);
      sn_wide_prepare_lanes(set, 0, groups / 2, nb, 0);
    }
    memcpy(solved[run], states, ((size_t)nb + 1) * sizeof(*states));
    sn_wide_warm_range(set, solved[run], 0, groups);
    sn_wide_solve(set, solved[run], 480.0f, 3.0f, true);
    sn_wide_solve(set, solved[run], 480.0f, 3.0f, false);
  }
  ck_assert_mem_eq(solved[0], solved[1], (size_t)nb * sizeof(*states));
  ck_assert_mem_eq(solved[0], solved[2], (size_t)nb * sizeof(*states));
  ck_assert_mem_eq(solved[0], solved[3], (size_t)nb * sizeof(*states));
  float most = 0.0f;
  for (int32_t g = 0; g < groups; ++g) {
    for (int l = 0; l < SN_WIDE_LANES; ++l) {
      sn_wide_result r[4];
      for (int run = 0; run < 4; ++run) sn_wide_get_result(sets + run, g, l, r + run);
      ck_assert_mem_eq(r + 0, r + 1, sizeof(r[0]));
      ck_assert_mem_eq(r + 0, r + 2, sizeof(r[0]));
      ck_assert_mem_eq(r + 0, r + 3, sizeof(r[0]));
      most = fmaxf(most, fmaxf(r[0].normal_impulse[0], r[0].normal_impulse[1]));
    }
  }
  ck_assert_msg(most > 0.0f, "no contact pushed");
  /* the lanes of a kept colouring give the contacts the lanes they had */
  sn_wide_set kept;
  ck_assert(sn_wide_alloc_groups(&kept, &arena, groups));
  kept.lane_constraint = sets[0].lane_constraint;
  ck_assert(sn_wide_index_contacts(&kept, &arena, nc));
  ck_assert_mem_eq(kept.contact_slot, sets[0].contact_slot, (size_t)nc * sizeof(int32_t));
  sn_arena_destroy(&arena, &mem);
  free(states);
  free(solved[0]);
  free(solved[1]);
  free(solved[2]);
  free(solved[3]);
  free(bodies);
  free(colors);
  free(masks);
  sn_scene_destroy(&scene);
}
END_TEST

/* A box resting on the ground (two symmetric points, static B) falling at
 * 1 m/s: one relax solve (no bias, so x = K^-1 (-vn) for both points) must
 * stop it exactly, with equal impulses and no spin. The padding lanes
 * of the group and a one-point contact on an unrelated resting body must not
 * change anything. */
START_TEST(test_block_solve_symmetric) {
  sn_body_state states[4];
  memset(states, 0, sizeof(states));
  for (int i = 0; i < 4; ++i) states[i].dq = (sn_rot){1.0f, 0.0f};
  states[0].v = (sn_vec2){0.0f, -1.0f};
  int32_t dummy = 3;
  sn_contact_constraint cs[2];
  cs[0] = make_constraint(0, dummy, dummy, 2);
  /* A is the box: normal from A to B must point down for ground B */
  cs[0].normal = (sn_vec2){0.0f, -1.0f};
  cs[0].points[0].rb = cs[0].points[0].ra;
  cs[0].points[1].rb = cs[0].points[1].ra;
  cs[1] = make_constraint(1, dummy, dummy, 1); /* body 1 at rest */
  for (int k = 0; k < 2; ++k) {
    cs[k].points[0].base_separation = 0.0f;
    cs[k].points[1].base_separation = 0.0f;
  }
  int32_t colors[2];
  uint64_t masks[3];
  sn_wide_key keys[2] = {sn_wide_key_of(cs, dummy), sn_wide_key_of(cs + 1, dummy)};
  int32_t groups = sn_wide_color(keys, 2, 3, colors, masks);
  ck_assert_int_eq(groups, 1);
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_arena arena;
  sn_arena_init(&arena);
  ck_assert(sn_arena_reserve(&arena, &mem, sn_wide_bytes(groups)));
  sn_wide_set set;
  ck_assert(sn_wide_build(&set, &arena, 2, colors, groups));
  sn_wide_fill(&set, cs, 0, set.group_count, dummy);
  sn_wide_solve(&set, states, 240.0f, 3.0f, false);
  sn_wide_store(&set, cs);
  /* stopped, no spin, no drift */
  ck_assert_float_eq_tol(states[0].v.y, 0.0f, 1e-6f);
  ck_assert_float_eq_tol(states[0].v.x, 0.0f, 1e-6f);
  ck_assert_float_eq_tol(states[0].w, 0.0f, 1e-6f);
  /* m = 1 kg stopped from 1 m/s: impulses 0.5 + 0.5 N s */
  ck_assert_float_eq_tol(cs[0].points[0].normal_impulse, 0.5f, 1e-5f);
  ck_assert_float_eq_tol(cs[0].points[1].normal_impulse, 0.5f, 1e-5f);
  /* the resting body and the static dummy did not move */
  ck_assert_float_eq(states[1].v.x, 0.0f);
  ck_assert_float_eq(states[1].v.y, 0.0f);
  ck_assert_float_eq(states[1].w, 0.0f);
  ck_assert_float_eq(states[dummy].v.x, 0.0f);
  ck_assert_float_eq(states[dummy].v.y, 0.0f);
  ck_assert_float_eq(states[dummy].w, 0.0f);
  ck_assert_float_eq(cs[1].points[0].normal_impulse, 0.0f);
  sn_arena_destroy(&arena, &mem);
}
END_TEST

/* Eight boxes falling at 1 m/s onto the ground, one group of eight lanes:
 * lane 0's contact has a tangent speed (a belt) and rolling resistance,
 * the others none. Packed over a group whose lanes all had them before
 * (the same memory), the other seven must come out as if the group had
 * never held any: straight down, no spin. Lane 0's box is carried along
 * by the ground's surface, to +x, as far as friction allows: 0.6 x the
 * 1 N s normal impulse, 0.6 m/s for its 1 kg. */
START_TEST(test_surface_lanes_reset) {
  enum { N = 8 };
  sn_body_state states[N + 1];
  int32_t dummy = N;
  sn_contact_constraint cs[N];
  for (int k = 0; k < N; ++k) {
    cs[k] = make_constraint(k, dummy, dummy, 2);
    cs[k].normal = (sn_vec2){0.0f, -1.0f};
    cs[k].points[0].rb = cs[k].points[0].ra;
    cs[k].points[1].rb = cs[k].points[1].ra;
    cs[k].tangent_speed = 3.0f;
    cs[k].rolling_resistance = 0.5f;
  }
  int32_t colors[N];
  uint64_t masks[N + 1];
  sn_wide_key keys[N];
  for (int k = 0; k < N; ++k) keys[k] = sn_wide_key_of(cs + k, dummy);
  int32_t groups = sn_wide_color(keys, N, N + 1, colors, masks);
  ck_assert_int_eq(groups, 1);
  sn_mem mem;
  sn_mem_init(&mem, NULL);
  sn_arena arena;
  sn_arena_init(&arena);
  ck_assert(sn_arena_reserve(&arena, &mem, sn_wide_bytes(groups)));
  sn_wide_set set;
  ck_assert(sn_wide_build(&set, &arena, N, colors, groups));
  sn_wide_fill(&set, cs, 0, set.group_count, dummy); /* every lane with a belt and rolling resistance */
  for (int k = 1; k < N; ++k) cs[k].tangent_speed = cs[k].rolling_resistance = 0.0f;
  sn_wide_fill(&set, cs, 0, set.group_count, dummy); /* only lane 0 now */
  memset(states, 0, sizeof(states));
  for (int i = 0; i <= N; ++i) states[i].dq = (sn_rot){1.0f, 0.0f};
  for (int k = 0; k < N; ++k) states[k].v = (sn_vec2){0.0f, -1.0f};
  sn_wide_solve(&set, states, 240.0f, 3.0f, false);
  for (int k = 1; k < N; ++k) {
    ck_assert_msg(states[k].v.x == 0.0f && states[k].w == 0.0f, "lane %d: v.x %g, w %g", k, (double)states[k].v.x,
                  (double)states[k].w);
    ck_assert_float_eq_tol(states[k].v.y, 0.0f, 1e-6f);
  }
  ck_assert_msg(fabsf(states[0].v.x - 0.6f) < 1e-4f, "the belt lane's box: v.x %g, expected 0.6",
                (double)states[0].v.x);
  sn_arena_destroy(&arena, &mem);
}
END_TEST

/* A box (body 0: 1 kg, inverse inertia 6) moving at v, w on the ground
 * (body 1, the static dummy) on one point, its bottom right corner
 * r = (0.5, -0.5), normal (0, -1) from the box to the ground (so the
 * tangent is t = (-1, 0)): r x n = r x t = -0.5, so the normal and the
 * tangent mass are both 1 / (1 + 6 x 0.25) = 0.4. */
static sn_contact_constraint corner_contact(sn_body_state states[2], sn_vec2 v, float w) {
  memset(states, 0, 2 * sizeof(*states));
  for (int i = 0; i < 2; ++i) states[i].dq = (sn_rot){1.0f, 0.0f};
  states[0].v = v;
  states[0].w = w;
  sn_contact_constraint c = make_constraint(0, 1, 1, 1);
  c.normal = (sn_vec2){0.0f, -1.0f};
  c.points[0].ra = (sn_vec2){0.5f, -0.5f};
  c.points[0].rb = c.points[0].ra;
  c.points[0].base_separation = 0.0f;
  c.points[0].normal_mass = 0.4f;
  c.points[0].tangent_mass = 0.4f;
  return c;
}

/* The set of the one contact c of corner_contact, its lane filled from it
 * (sn_wide_fill); the caller destroys the arena. */
static void corner_set(const sn_contact_constraint *c, sn_mem *mem, sn_arena *arena, sn_wide_set *set) {
  int32_t colors[1];
  uint64_t masks[2];
  sn_wide_key keys[1] = {sn_wide_key_of(c, 1)};
  ck_assert_int_eq(sn_wide_color(keys, 1, 1, colors, masks), 1);
  sn_mem_init(mem, NULL);
  sn_arena_init(arena);
  ck_assert(sn_arena_reserve(arena, mem, sn_wide_bytes(1)));
  ck_assert(sn_wide_build(set, arena, 1, colors, 1));
  sn_wide_fill(set, c, 0, set->group_count, 1);
}

/* One pass of friction against a hand computation, lanes filled from the
 * constraints (sn_wide_fill). The box of corner_contact slides and spins at
 * v = (2, -1.5), w = 3: the corner moves at (3.5, 0), along the ground
 * only, so the relax pass keeps the normal impulse (10 N s, friction bound
 * 6 N s) and friction alone acts. With the tangent mass 0.4 and the tangent
 * speed 3.5 (ground minus corner, along t) the impulse is -1.4 N s along t:
 * v = (0.6, -1.5), w = 3 - 6 x 0.5 x 1.4 = -1.2, and the corner stops
 * sliding. The kernel takes the rows' speeds and torques from the anchors
 * across the normal and the tangent that the lanes hold: a wrong one
 * fails here. */
START_TEST(test_friction_closed_form) {
  sn_body_state states[2];
  sn_contact_constraint c = corner_contact(states, (sn_vec2){2.0f, -1.5f}, 3.0f);
  c.points[0].normal_impulse = 10.0f;
  sn_mem mem;
  sn_arena arena;
  sn_wide_set set;
  corner_set(&c, &mem, &arena, &set);
  sn_wide_solve(&set, states, 240.0f, 3.0f, false);
  sn_wide_store(&set, &c);
  ck_assert_float_eq_tol(c.points[0].normal_impulse, 10.0f, 1e-5f);
  ck_assert_float_eq_tol(c.points[0].tangent_impulse, -1.4f, 1e-5f);
  ck_assert_float_eq_tol(states[0].v.x, 0.6f, 1e-5f);
  ck_assert_float_eq_tol(states[0].v.y, -1.5f, 1e-5f);
  ck_assert_float_eq_tol(states[0].w, -1.2f, 1e-5f);
  /* the corner's velocity along the ground: v.x - w r.y */
  ck_assert_float_eq_tol(states[0].v.x - states[0].w * -0.5f, 0.0f, 1e-5f);
  sn_arena_destroy(&arena, &mem);
}
END_TEST

/* The restitution pass against a hand computation. The box of
 * corner_contact (no friction) falls at 2 m/s onto the ground on its
 * corner, not turning. The relax pass stops the corner along n:
 * impulse 0.8 N s, v = (0, -1.2), w = 2.4. Restitution 1 (the approach
 * 2 m/s over the 1 m/s threshold, the point pushed) then gives
 * 0.4 x 2 = 0.8 N s more: v = (0, -0.4), w = 4.8, and the corner leaves the
 * ground at 2 m/s. A wrong torque arm fails here. */
START_TEST(test_restitution_closed_form) {
  sn_body_state states[2];
  sn_contact_constraint c = corner_contact(states, (sn_vec2){0.0f, -2.0f}, 0.0f);
  c.friction = 0.0f;
  c.restitution = 1.0f;
  c.points[0].relative_velocity = -2.0f;
  sn_mem mem;
  sn_arena arena;
  sn_wide_set set;
  corner_set(&c, &mem, &arena, &set);
  sn_wide_solve(&set, states, 240.0f, 3.0f, false);
  ck_assert_float_eq_tol(states[0].v.y, -1.2f, 1e-5f);
  ck_assert_float_eq_tol(states[0].w, 2.4f, 1e-5f);
  sn_wide_restitution_range(&set, states, 0, set.group_count, 1.0f);
  sn_wide_store(&set, &c);
  ck_assert_float_eq_tol(c.points[0].normal_impulse, 1.6f, 1e-5f);
  ck_assert_float_eq_tol(states[0].v.x, 0.0f, 1e-6f);
  ck_assert_float_eq_tol(states[0].v.y, -0.4f, 1e-5f);
  ck_assert_float_eq_tol(states[0].w, 4.8f, 1e-5f);
  /* the corner's velocity along -n: v.y + w r.x */
  ck_assert_float_eq_tol(states[0].v.y + states[0].w * 0.5f, 2.0f, 1e-5f);
  sn_arena_destroy(&arena, &mem);
}
END_TEST

/* In a world: a box dropped flat onto a box resting on the ground lands
 * without spinning (|w| < 1e-4 rad/s) or shifting (< 1 mm): the two points
 * are solved together (solved one after the other, the box would rock
 * forever). */
START_TEST(test_drop_no_spin) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -1.0f};
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  sn_make_box(20.0f, 1.0f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &box);
  sn_make_box(0.5f, 0.5f, &box);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 0.5f};
  sn_body_id lower = sn_create_body(w, &bd);
  sn_create_polygon_shape(w, lower, &sd, &box);
  bd.position = (sn_vec2){0.0f, 2.5f};
  sn_body_id upper = sn_create_body(w, &bd);
  sn_create_polygon_shape(w, upper, &sd, &box);
  float max_w = 0.0f;
  for (int i = 0; i < 240; ++i) {
    sn_world_step(w, 1.0f / 60.0f);
    max_w = fmaxf(max_w, fabsf(sn_body_get_angular_velocity(w, upper)));
    max_w = fmaxf(max_w, fabsf(sn_body_get_angular_velocity(w, lower)));
  }
  ck_assert_msg(max_w < 1e-4f, "spin %g rad/s", (double)max_w);
  ck_assert_float_eq_tol(sn_body_get_position(w, upper).x, 0.0f, 1e-3f);
  ck_assert_float_eq_tol(sn_body_get_position(w, upper).y, 1.5f, 0.01f);
  sn_destroy_world(w);
}
END_TEST

/* The 8-lane AVX2 kernel solves a whole group at once, SSE2 its two halves
 * one after the other; the lanes share no dynamic body, so the results must
 * be equal bit for bit. (The part that needs AVX2: test_solver.avx2.) */
START_TEST(test_avx2_matches_sse) {
  uint64_t hashes[2];
  for (int run = 0; run < 2; ++run) {
    sn_scene scene;
    ck_assert(sn_scene_build(&scene, "pyramid", 30, 0, false));
    scene.world->use_avx2 = run == 1;
    for (int i = 0; i < 120; ++i) sn_world_step(scene.world, 1.0f / 60.0f);
    sn_scene_metrics m;
    sn_scene_measure(&scene, &m);
    hashes[run] = m.state_hash;
    sn_scene_destroy(&scene);
  }
  ck_assert_uint_eq(hashes[0], hashes[1]);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("solver");
  TCase *tc = tcase_create("wide");
  tcase_add_test(tc, test_coloring_invariants);
  tcase_add_test(tc, test_batches_cut);
  tcase_add_test(tc, test_prepare_any_cut);
  tcase_add_test(tc, test_block_solve_symmetric);
  tcase_add_test(tc, test_surface_lanes_reset);
  tcase_add_test(tc, test_friction_closed_form);
  tcase_add_test(tc, test_restitution_closed_form);
  tcase_add_test(tc, test_drop_no_spin);
  suite_add_tcase(s, tc);
  TCase *avx2 = tcase_create("avx2");
  tcase_add_test(avx2, test_avx2_matches_sse);
  sn_test_add_part(&sn_need_avx2, avx2);
  return s;
}
