/* Handles stay refused once stale or foreign, for every kind (bodies,
 * shapes, chains, constraints (joints), soft bodies, particles):
 * - a slot reused 70,000 times never makes its first id valid again: the
 *   16-bit generation would wrap after 65,535 lives, so the slot retires
 *   (the slot count grows by one instead), also across a snapshot;
 * - worlds get distinct tags: 500 live worlds refuse each other's ids, a
 *   world made where a freed world lived (same address, same objects in
 *   the same slots) refuses the freed world's ids, and any 65,535 worlds
 *   created one after another have pairwise different tags. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

#define REUSES 70000

/* One id of every kind (the same layout for all: index1, tag, generation). */
typedef struct hd_ids {
  sn_body_id body;
  sn_shape_id shape;
  sn_chain_id chain;
  sn_constraint_id constraint;
  sn_soft_body_id soft;
  sn_particle_id particle;
} hd_ids;

static sn_registry *hd_registry(void) { return js_registry((const char *const[]){"distance", NULL}); }

static sn_world *hd_world(const sn_registry *reg, const sn_allocator *allocator) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  if (allocator) wd.allocator = *allocator;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

/* A dynamic body with a circle, a static body with a chain, a distance
 * joint between the two bodies, a soft body with a particle. */
static hd_ids hd_populate(sn_world *w) {
  hd_ids ids;
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  ids.body = sn_create_body(w, &bd);
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  ids.shape = sn_create_circle_shape(w, ids.body, &sd, &c);
  sn_body_def sbd = sn_default_body_def();
  sbd.position = (sn_vec2){0.0f, -5.0f};
  sn_body_id ground = sn_create_body(w, &sbd);
  const sn_vec2 points[] = {{-2.0f, 0.0f}, {-1.0f, 0.0f}, {1.0f, 0.0f}, {2.0f, 0.0f}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = points;
  cd.count = 4;
  ids.chain = sn_create_chain(w, ground, &cd);
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "distance";
  kd.bodies[0] = ids.body;
  kd.bodies[1] = ground;
  ids.constraint = sn_create_constraint(w, &kd);
  sn_soft_body_def softd = sn_default_soft_body_def();
  ids.soft = sn_create_soft_body(w, &softd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){3.0f, 3.0f};
  ids.particle = sn_create_particle(w, ids.soft, &pd);
  ck_assert(sn_body_is_valid(w, ids.body) && sn_shape_is_valid(w, ids.shape) && sn_chain_is_valid(w, ids.chain));
  ck_assert(sn_constraint_is_valid(w, ids.constraint) && sn_soft_body_is_valid(w, ids.soft));
  ck_assert(sn_particle_is_valid(w, ids.particle));
  return ids;
}

/* No id of `ids` is valid in w. */
static void hd_assert_invalid(sn_world *w, const hd_ids *ids) {
  ck_assert(!sn_body_is_valid(w, ids->body));
  ck_assert(!sn_shape_is_valid(w, ids->shape));
  ck_assert(!sn_chain_is_valid(w, ids->chain));
  ck_assert(!sn_constraint_is_valid(w, ids->constraint));
  ck_assert(!sn_soft_body_is_valid(w, ids->soft));
  ck_assert(!sn_particle_is_valid(w, ids->particle));
}

/* Every id of `ids` is refused by w with `code` (SN_ERR_FOREIGN_ID for
 * another world's, SN_ERR_STALE_ID for a destroyed object's), by the
 * validity checks and by a call that would change the object. */
static void hd_assert_refused(sn_world *w, const hd_ids *ids, sn_result code) {
  hd_assert_invalid(w, ids);
  ck_assert_int_eq(sn_body_set_awake(w, ids->body, true), code);
  ck_assert_int_eq(sn_shape_set_friction(w, ids->shape, 0.5f), code);
  ck_assert_int_eq(sn_destroy_chain(w, ids->chain), code);
  ck_assert_int_eq(sn_constraint_set_break_force(w, ids->constraint, 0.0f), code);
  ck_assert_int_eq(sn_soft_body_translate(w, ids->soft, (sn_vec2){0.0f, 0.0f}), code);
  ck_assert_int_eq(sn_particle_set_velocity(w, ids->particle, (sn_vec2){0.0f, 0.0f}), code);
}

/* ------------------------------------------------------------------------ */
/* Generations                                                               */

typedef struct hd_slot_world {
  sn_registry *reg;
  sn_world *w;
  sn_body_id body, ground;
  sn_soft_body_id soft;
} hd_slot_world;

static hd_slot_world hd_slot_setup(void) {
  hd_slot_world s;
  s.reg = hd_registry();
  s.w = hd_world(s.reg, NULL);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  s.body = sn_create_body(s.w, &bd);
  sn_body_def gd = sn_default_body_def();
  s.ground = sn_create_body(s.w, &gd);
  sn_soft_body_def sd = sn_default_soft_body_def();
  s.soft = sn_create_soft_body(s.w, &sd);
  return s;
}

/* Creates and destroys one object REUSES times; make() returns the new
 * id's index1 and generation through *index1 / *generation and destroys
 * it. The first id must stay refused and the slot count grow by at most one
 * (the retired slot's successor). */
typedef void hd_cycle_fcn(hd_slot_world *s, bool destroy, void *first_id, int32_t *index1, uint16_t *generation);

static void hd_run_cycles(hd_slot_world *s, hd_cycle_fcn *cycle, void *first_id, bool (*valid)(hd_slot_world *, void *),
                          const char *kind) {
  int32_t first_index = 0, max_index = 0, moves = 0, last_index = 0;
  uint16_t first_generation = 0;
  cycle(s, true, first_id, &first_index, &first_generation);
  last_index = max_index = first_index;
  ck_assert(!valid(s, first_id));
  for (int i = 1; i < REUSES; ++i) {
    int32_t index1 = 0;
    uint16_t generation = 0;
    cycle(s, true, NULL, &index1, &generation);
    ck_assert_msg(index1 > 0, "%s: creation %d failed", kind, i);
    if (index1 != last_index) moves++;
    last_index = index1;
    if (index1 > max_index) max_index = index1;
    if (index1 == first_index)
      ck_assert_msg(generation != first_generation, "%s: slot %d gave generation %u again after %d reuses", kind,
                    (int)index1, (unsigned)generation, i);
    /* after every creation (the object is destroyed again already) */
    if ((i & 1023) == 0 || (i > 65000 && i < 66100)) ck_assert_msg(!valid(s, first_id), "%s: first id valid", kind);
  }
  ck_assert_msg(!valid(s, first_id), "%s: the first id is valid again", kind);
  ck_assert_int_le(max_index, first_index + 1);
  ck_assert_msg(moves == 1, "%s: the slot moved %d times (once expected: the first slot retires)", kind, moves);
  /* a live object in the fresh slot still works */
  int32_t index1 = 0;
  uint16_t generation = 0;
  cycle(s, false, NULL, &index1, &generation);
  ck_assert_int_eq(index1, first_index + 1);
}

/* Bodies */
static void hd_body_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  sn_body_def bd = sn_default_body_def();
  sn_body_id id = sn_create_body(s->w, &bd);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_body(s->w, id), SN_OK);
}
static bool hd_body_valid(hd_slot_world *s, void *id) {
  sn_body_id b;
  memcpy(&b, id, sizeof b);
  return sn_body_is_valid(s->w, b) || sn_body_set_awake(s->w, b, true) != SN_ERR_STALE_ID;
}

/* Shapes */
static void hd_shape_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  sn_circle c = {{0.0f, 0.0f}, 0.5f};
  sn_shape_def sd = sn_default_shape_def();
  sn_shape_id id = sn_create_circle_shape(s->w, s->body, &sd, &c);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_shape(s->w, id, false), SN_OK);
}
static bool hd_shape_valid(hd_slot_world *s, void *id) {
  sn_shape_id h;
  memcpy(&h, id, sizeof h);
  return sn_shape_is_valid(s->w, h) || sn_shape_set_friction(s->w, h, 0.5f) != SN_ERR_STALE_ID;
}

/* Chains (their one segment shape reuses a shape slot as well) */
static void hd_chain_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  const sn_vec2 points[] = {{-2.0f, 0.0f}, {-1.0f, 0.0f}, {1.0f, 0.0f}, {2.0f, 0.0f}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = points;
  cd.count = 4;
  sn_chain_id id = sn_create_chain(s->w, s->ground, &cd);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_chain(s->w, id), SN_OK);
}
static bool hd_chain_valid(hd_slot_world *s, void *id) {
  sn_chain_id h;
  memcpy(&h, id, sizeof h);
  return sn_chain_is_valid(s->w, h) || sn_destroy_chain(s->w, h) != SN_ERR_STALE_ID;
}

/* Constraints (joints) */
static void hd_joint_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "distance";
  kd.bodies[0] = s->body;
  kd.bodies[1] = s->ground;
  sn_constraint_id id = sn_create_constraint(s->w, &kd);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_constraint(s->w, id), SN_OK);
}
static bool hd_joint_valid(hd_slot_world *s, void *id) {
  sn_constraint_id h;
  memcpy(&h, id, sizeof h);
  return sn_constraint_is_valid(s->w, h) || sn_constraint_set_break_force(s->w, h, 0.0f) != SN_ERR_STALE_ID;
}

/* Soft bodies */
static void hd_soft_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id id = sn_create_soft_body(s->w, &sd);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_soft_body(s->w, id), SN_OK);
}
static bool hd_soft_valid(hd_slot_world *s, void *id) {
  sn_soft_body_id h;
  memcpy(&h, id, sizeof h);
  return sn_soft_body_is_valid(s->w, h) || sn_soft_body_translate(s->w, h, (sn_vec2){0.0f, 0.0f}) != SN_ERR_STALE_ID;
}

/* Particles */
static void hd_particle_cycle(hd_slot_world *s, bool destroy, void *first, int32_t *index1, uint16_t *generation) {
  sn_particle_def pd = sn_default_particle_def();
  sn_particle_id id = sn_create_particle(s->w, s->soft, &pd);
  *index1 = id.index1;
  *generation = id.generation;
  if (first) memcpy(first, &id, sizeof id);
  if (destroy) ck_assert_int_eq(sn_destroy_particle(s->w, id), SN_OK);
}
static bool hd_particle_valid(hd_slot_world *s, void *id) {
  sn_particle_id h;
  memcpy(&h, id, sizeof h);
  return sn_particle_is_valid(s->w, h) || sn_particle_set_velocity(s->w, h, (sn_vec2){0.0f, 0.0f}) != SN_ERR_STALE_ID;
}

static void hd_slot_teardown(hd_slot_world *s) {
  ck_assert_int_eq(sn_destroy_world(s->w), SN_OK);
  sn_destroy_registry(s->reg);
}

#define HD_SLOT_TEST(name, id_type, cycle, valid)                                                                      \
  START_TEST(name) {                                                                                                   \
    hd_slot_world s = hd_slot_setup();                                                                                 \
    id_type first;                                                                                                     \
    hd_run_cycles(&s, cycle, &first, valid, #id_type);                                                                 \
    hd_slot_teardown(&s);                                                                                              \
  }                                                                                                                    \
  END_TEST

HD_SLOT_TEST(test_body_slot_retires, sn_body_id, hd_body_cycle, hd_body_valid)
HD_SLOT_TEST(test_shape_slot_retires, sn_shape_id, hd_shape_cycle, hd_shape_valid)
HD_SLOT_TEST(test_chain_slot_retires, sn_chain_id, hd_chain_cycle, hd_chain_valid)
HD_SLOT_TEST(test_constraint_slot_retires, sn_constraint_id, hd_joint_cycle, hd_joint_valid)
HD_SLOT_TEST(test_soft_body_slot_retires, sn_soft_body_id, hd_soft_cycle, hd_soft_valid)
HD_SLOT_TEST(test_particle_slot_retires, sn_particle_id, hd_particle_cycle, hd_particle_valid)

/* A retired slot stays retired in a restored world: its old ids are
 * refused there and creations skip it, as in the original. */
START_TEST(test_retired_slot_survives_snapshot) {
  hd_slot_world s = hd_slot_setup();
  sn_body_id first;
  int32_t index1 = 0;
  uint16_t generation = 0;
  hd_body_cycle(&s, true, &first, &index1, &generation);
  for (int i = 1; i < UINT16_MAX; ++i) hd_body_cycle(&s, true, NULL, &index1, &generation);
  ck_assert_int_eq(generation, UINT16_MAX); /* the last life of the first slot */
  ck_assert_int_eq(index1, first.index1);
  size_t size = 0;
  ck_assert_int_eq(sn_world_save_snapshot(s.w, NULL, 0, &size), SN_OK);
  void *bytes = malloc(size);
  ck_assert_int_eq(sn_world_save_snapshot(s.w, bytes, size, &size), SN_OK);
  sn_world_def def = sn_default_world_def();
  def.registry = s.reg;
  sn_world *copy = NULL;
  char err[256];
  ck_assert_msg(sn_world_load_snapshot(bytes, size, &def, &copy, err, sizeof err) == SN_OK, "%s", err);
  free(bytes);
  sn_world *worlds[2] = {s.w, copy};
  for (int k = 0; k < 2; ++k) {
    sn_world *w = worlds[k];
    ck_assert(!sn_body_is_valid(w, first));
    sn_body_def bd = sn_default_body_def();
    sn_body_id next = sn_create_body(w, &bd);
    ck_assert_int_eq(next.index1, first.index1 + 1);
    ck_assert_int_eq(sn_destroy_body(w, next), SN_OK);
    ck_assert(!sn_body_is_valid(w, first));
  }
  ck_assert_int_eq(sn_destroy_world(copy), SN_OK);
  hd_slot_teardown(&s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* World tags                                                                */

#define LIVE_WORLDS 500

START_TEST(test_live_worlds_refuse_each_others_ids) {
  sn_registry *reg = hd_registry();
  static sn_world *worlds[LIVE_WORLDS];
  static hd_ids ids[LIVE_WORLDS];
  for (int i = 0; i < LIVE_WORLDS; ++i) {
    worlds[i] = hd_world(reg, NULL);
    ids[i] = hd_populate(worlds[i]);
  }
  for (int i = 0; i < LIVE_WORLDS; ++i) {
    for (int j = 0; j < LIVE_WORLDS; ++j) {
      if (i == j) continue;
      ck_assert_msg(ids[i].body.world_tag != ids[j].body.world_tag, "worlds %d and %d share tag %u", i, j,
                    (unsigned)ids[i].body.world_tag);
      /* all pairs by validity; every 16th pair by the calls too (they
       * record an error message each, which takes longer) */
      if ((i + j) % 16 == 0) {
        hd_assert_refused(worlds[j], &ids[i], SN_ERR_FOREIGN_ID);
      } else {
        hd_assert_invalid(worlds[j], &ids[i]);
      }
    }
  }
  /* and each still accepts its own */
  for (int i = 0; i < LIVE_WORLDS; ++i) {
    ck_assert(sn_body_is_valid(worlds[i], ids[i].body) && sn_particle_is_valid(worlds[i], ids[i].particle));
    ck_assert_int_eq(sn_destroy_world(worlds[i]), SN_OK);
  }
  sn_destroy_registry(reg);
}
END_TEST

/* An allocator that hands a freed block of the same size back first (last
 * freed, first reused), so a world created after one is destroyed lands at
 * the freed world's address, whatever malloc would do. */
#define HD_CACHE 4096

typedef struct hd_cache {
  void *block[HD_CACHE];
  size_t size[HD_CACHE];
  int count;
} hd_cache;

static void *hd_cache_alloc(size_t size, void *context) {
  hd_cache *c = context;
  for (int i = c->count - 1; i >= 0; --i) {
    if (c->size[i] == size) {
      void *p = c->block[i];
      c->block[i] = c->block[c->count - 1];
      c->size[i] = c->size[c->count - 1];
      c->count--;
      return p;
    }
  }
  return malloc(size);
}

static void hd_cache_free(void *memory, size_t size, void *context) {
  hd_cache *c = context;
  if (memory == NULL) return;
  if (c->count == HD_CACHE) {
    free(memory);
    return;
  }
  c->block[c->count] = memory;
  c->size[c->count] = size;
  c->count++;
}

#define FREED_WORLDS 400

START_TEST(test_new_world_refuses_freed_worlds_ids) {
  sn_registry *reg = hd_registry();
  static hd_cache cache;
  memset(&cache, 0, sizeof cache);
  sn_allocator allocator = {hd_cache_alloc, hd_cache_free, &cache};
  static hd_ids freed[FREED_WORLDS];
  uintptr_t last_address = 0;
  int same_address = 0;
  for (int i = 0; i < FREED_WORLDS; ++i) {
    sn_world *w = hd_world(reg, &allocator);
    if ((uintptr_t)w == last_address) same_address++;
    /* the new world has objects of every kind in the same slots, with the
     * same generations, as each freed world had: only the tag tells them
     * apart. Every freed world's ids, the one just freed here first. */
    freed[i] = hd_populate(w);
    for (int j = i - 1; j >= 0; --j) hd_assert_refused(w, &freed[j], SN_ERR_FOREIGN_ID);
    last_address = (uintptr_t)w;
    ck_assert_int_eq(sn_destroy_world(w), SN_OK);
  }
  ck_assert_int_eq(same_address, FREED_WORLDS - 1);
  for (int i = 0; i < cache.count; ++i) free(cache.block[i]);
  sn_destroy_registry(reg);
}
END_TEST

/* The documented guarantee: any 65,535 worlds created one after another
 * have pairwise different tags (the 65,536th may take the first's again). */
START_TEST(test_tags_distinct_over_a_full_cycle) {
  static bool seen[65536];
  memset(seen, 0, sizeof seen);
  sn_world_def wd = sn_default_world_def();
  sn_body_def bd = sn_default_body_def();
  sn_world *first = sn_create_world(&wd, NULL);
  sn_body_id first_body = sn_create_body(first, &bd);
  seen[first_body.world_tag] = true;
  ck_assert_int_ne(first_body.world_tag, 0);
  for (int i = 1; i < 65535; ++i) {
    sn_world *w = sn_create_world(&wd, NULL);
    ck_assert_ptr_nonnull(w);
    sn_body_id b = sn_create_body(w, &bd);
    ck_assert_msg(b.world_tag != 0 && !seen[b.world_tag], "world %d got tag %u again", i, (unsigned)b.world_tag);
    seen[b.world_tag] = true;
    ck_assert(!sn_body_is_valid(w, first_body));
    ck_assert(!sn_body_is_valid(first, b));
    ck_assert_int_eq(sn_destroy_world(w), SN_OK);
  }
  ck_assert_int_eq(sn_destroy_world(first), SN_OK);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("handles");
  TCase *tc = tcase_create("handles");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_body_slot_retires);
  tcase_add_test(tc, test_shape_slot_retires);
  tcase_add_test(tc, test_chain_slot_retires);
  tcase_add_test(tc, test_constraint_slot_retires);
  tcase_add_test(tc, test_soft_body_slot_retires);
  tcase_add_test(tc, test_particle_slot_retires);
  tcase_add_test(tc, test_retired_slot_survives_snapshot);
  tcase_add_test(tc, test_live_worlds_refuse_each_others_ids);
  tcase_add_test(tc, test_new_world_refuses_freed_worlds_ids);
  tcase_add_test(tc, test_tags_distinct_over_a_full_cycle);
  suite_add_tcase(s, tc);
  return s;
}
