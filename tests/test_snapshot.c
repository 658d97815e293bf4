/* Snapshots: a world saved mid-run and restored steps bit for bit like the
 * original (every body and particle, the state hash, and the snapshot bytes
 * of both worlds afterwards, which cover contacts, impulses, trees and
 * constraint instances); a snapshot of the restored world equals the one it
 * came from; truncated or damaged bytes, missing or changed plugin types and
 * out-of-memory are refused with the right code and nothing allocated left
 * behind; files are written atomically (temporary file, fsync, rename) and a
 * failure at any step leaves an existing file as it was. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_main.h"
#include "world/snapshot.h"
#include "world/world.h"
#include "joint_support.h"
#include "scenes.h"
#include "sinew/thread_pool.h"

#define DT (1.0f / 60.0f)

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/// A counting allocator that can fail after a number of allocations.
typedef struct counting {
  long live_blocks;
  size_t live_bytes;
  long allocations;
  long fail_after; ///< -1 = never
} counting;

static void *count_alloc(size_t size, void *context) {
  counting *c = context;
  if (c->fail_after >= 0 && c->allocations >= c->fail_after) return NULL;
  c->allocations++;
  void *p = malloc(size);
  if (p != NULL) {
    c->live_blocks++;
    c->live_bytes += size;
  }
  return p;
}

static void count_free(void *memory, size_t size, void *context) {
  counting *c = context;
  if (memory == NULL) return;
  c->live_blocks--;
  c->live_bytes -= size;
  free(memory);
}

static sn_world_def counted_def(counting *c, const sn_registry *registry) {
  memset(c, 0, sizeof(*c));
  c->fail_after = -1;
  sn_world_def wd = sn_default_world_def();
  wd.allocator.alloc = count_alloc;
  wd.allocator.free = count_free;
  wd.allocator.context = c;
  wd.registry = registry;
  return wd;
}

static uint8_t *save(sn_world *w, size_t *size) {
  size_t n = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &n), SN_OK);
  ck_assert_uint_gt(n, 48);
  uint8_t *bytes = malloc(n);
  ck_assert_ptr_nonnull(bytes);
  size_t written = 0;
  ck_assert_msg(sn_world_save_snapshot(w, bytes, n, &written) == SN_OK, "%s", sn_world_last_error(w));
  ck_assert_uint_eq(written, n);
  *size = n;
  return bytes;
}

static sn_world *load(const uint8_t *bytes, size_t size, const sn_registry *registry) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = registry;
  sn_world *w = NULL;
  char err[256];
  sn_result r = sn_world_load_snapshot(bytes, size, &wd, &w, err, sizeof err);
  ck_assert_msg(r == SN_OK, "load: %s", err);
  ck_assert_ptr_nonnull(w);
  return w;
}

/// Recomputes the trailer after a deliberate edit, so the loader's checks
/// behind the checksum are what refuses it.
static void reseal(uint8_t *bytes, size_t size) {
  uint64_t h = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, bytes, size - 8);
  for (int i = 0; i < 8; ++i) bytes[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
}

/// Every live body's and particle's pose and velocity, bit for bit.
static void assert_same_motion(sn_world *a, sn_world *b, const char *what) {
  ck_assert_int_eq(a->bodies.count, b->bodies.count);
  for (int32_t i = 0; i < a->bodies.count; ++i) {
    const sn_body *x = a->bodies.data + i, *y = b->bodies.data + i;
    ck_assert_int_eq(x->in_use, y->in_use);
    if (!x->in_use) continue;
    ck_assert_msg(memcmp(&x->xf, &y->xf, sizeof x->xf) == 0 && memcmp(&x->v, &y->v, sizeof x->v) == 0 &&
                      memcmp(&x->w, &y->w, sizeof x->w) == 0 && x->is_awake == y->is_awake,
                  "%s: body %d differs: (%.9g, %.9g) vs (%.9g, %.9g)", what, (int)i, (double)x->xf.p.x,
                  (double)x->xf.p.y, (double)y->xf.p.x, (double)y->xf.p.y);
  }
  ck_assert_int_eq(a->particles.count, b->particles.count);
  for (int32_t i = 0; i < a->particles.count; ++i) {
    const sn_particle *x = a->particles.data + i, *y = b->particles.data + i;
    ck_assert_int_eq(x->in_use, y->in_use);
    if (!x->in_use) continue;
    ck_assert_msg(memcmp(&x->x, &y->x, sizeof x->x) == 0 && memcmp(&x->v, &y->v, sizeof x->v) == 0,
                  "%s: particle %d differs", what, (int)i);
  }
}

static uint64_t scene_hash(const sn_scene *scene, sn_world *world) {
  sn_scene copy = *scene;
  copy.world = world; /* the restored world keeps the original's ids */
  sn_scene_metrics m;
  sn_scene_measure(&copy, &m);
  return m.state_hash;
}

/// Steps a scene `before` steps, snapshots it, steps the original and the
/// restored world `after` more and compares them bit for bit.
typedef void poke_fcn(const sn_scene *scene, sn_world *world);

static void check_resume(const char *name, int32_t size, bool sleep, int32_t before, int32_t after,
                         int32_t *asleep_at_snapshot, poke_fcn *poke) {
  sn_scene scene;
  ck_assert_msg(sn_scene_build(&scene, name, size, 0, sleep), "cannot build %s", name);
  sn_world *w = scene.world;
  for (int32_t i = 0; i < before; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  if (asleep_at_snapshot != NULL) {
    *asleep_at_snapshot = 0;
    for (int32_t i = 0; i < w->bodies.count; ++i)
      *asleep_at_snapshot +=
          w->bodies.data[i].in_use && w->bodies.data[i].type == SN_BODY_DYNAMIC && !w->bodies.data[i].is_awake;
  }
  size_t n0;
  uint8_t *s0 = save(w, &n0);
  sn_world *r = load(s0, n0, sn_world_get_registry(w));

  /* round trip: the restored world's snapshot is the same bytes */
  size_t n1;
  uint8_t *s1 = save(r, &n1);
  ck_assert_uint_eq(n0, n1);
  ck_assert_msg(memcmp(s0, s1, n0) == 0, "%s: snapshot of the restored world differs", name);
  ck_assert_uint_eq(scene_hash(&scene, w), scene_hash(&scene, r));
  if (poke != NULL) {
    poke(&scene, w);
    poke(&scene, r);
  }

  for (int32_t i = 0; i < after; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(r, DT), SN_OK);
  }
  assert_same_motion(w, r, name);
  ck_assert_uint_eq(scene_hash(&scene, w), scene_hash(&scene, r));
  /* everything else too: contacts, impulses, trees, islands, constraint state */
  size_t n2, n3;
  uint8_t *s2 = save(w, &n2), *s3 = save(r, &n3);
  ck_assert_uint_eq(n2, n3);
  ck_assert_msg(memcmp(s2, s3, n2) == 0, "%s: the worlds' states differ after %d steps", name, (int)after);
  /* and they moved: the comparison is not of two frozen worlds */
  ck_assert_msg(n2 != n0 || memcmp(s0, s2, n0) != 0, "%s: nothing changed in %d steps", name, (int)after);
  free(s0);
  free(s1);
  free(s2);
  free(s3);
  sn_destroy_world(r);
  sn_scene_destroy(&scene);
}

/* ------------------------------------------------------------------------ */
/* Resume bit for bit                                                        */

START_TEST(test_resume_pyramid) { check_resume("pyramid", 20, false, 60, 120, NULL, NULL); }
END_TEST

START_TEST(test_resume_rain) { check_resume("rain", 200, false, 60, 120, NULL, NULL); }
END_TEST

START_TEST(test_resume_chain_joints) { check_resume("chain", 20, false, 60, 120, NULL, NULL); }
END_TEST

START_TEST(test_resume_cloth) { check_resume("cloth", 16, false, 60, 120, NULL, NULL); }
END_TEST

START_TEST(test_resume_jelly) { check_resume("jelly", 5, false, 60, 120, NULL, NULL); }
END_TEST

START_TEST(test_resume_mixed) { check_resume("mixed", 1, false, 60, 120, NULL, NULL); }
END_TEST

/* knocks the top box sideways: its island wakes */
static void push_top(const sn_scene *scene, sn_world *world) {
  sn_body_id top = scene->bodies[scene->top_body];
  ck_assert(!sn_body_is_awake(world, top));
  ck_assert_int_eq(sn_body_apply_linear_impulse(world, top, (sn_vec2){2.0f, 0.0f},
                                                sn_body_get_world_center_of_mass(world, top), true),
                   SN_OK);
}

START_TEST(test_resume_sleeping) {
  /* a small pyramid with sleep on has gone to sleep by step 240; snapshot
   * there, then wake part of it in both worlds and compare */
  int32_t asleep = 0;
  check_resume("pyramid", 6, true, 240, 120, &asleep, push_top);
  ck_assert_int_gt(asleep, 0);
}
END_TEST

/* The task system comes from the def, not the snapshot: a world saved on one
 * thread and restored onto a pool of 3 workers steps on bit for bit (results
 * do not depend on the worker count). */
START_TEST(test_resume_on_threads) {
  sn_scene scene;
  ck_assert(sn_scene_build(&scene, "mixed", 1, 0, false));
  sn_world *w = scene.world;
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  size_t n;
  uint8_t *s = save(w, &n);
  sn_thread_pool *pool = sn_thread_pool_create(3);
  ck_assert_ptr_nonnull(pool);
  sn_world_def wd = sn_default_world_def();
  wd.registry = sn_world_get_registry(w);
  sn_thread_pool_apply(pool, &wd);
  sn_world *r = NULL;
  char err[256];
  ck_assert_msg(sn_world_load_snapshot(s, n, &wd, &r, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(r->worker_count, 3);
  for (int i = 0; i < 120; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(r, DT), SN_OK);
  }
  size_t n2, n3;
  uint8_t *s2 = save(w, &n2), *s3 = save(r, &n3);
  ck_assert(n2 == n3 && memcmp(s2, s3, n2) == 0);
  ck_assert_uint_eq(scene_hash(&scene, w), scene_hash(&scene, r));
  free(s);
  free(s2);
  free(s3);
  sn_destroy_world(r);
  sn_thread_pool_destroy(pool);
  sn_scene_destroy(&scene);
}
END_TEST

/* A world with every kind of object and freed slots of each: ids of the
 * original are valid in the restored world, future creations get the same
 * ids, and user data is NULL. */
static sn_registry *small_registry(void) {
  return js_registry(
      (const char *const[]){"revolute", "xpbd_distance", "xpbd_area", "xpbd_bend", "xpbd_tether", "attach", NULL});
}

static sn_world *small_world(const sn_world_def *def, sn_body_id *kept) {
  sn_world *w = sn_create_world(def, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  sn_make_box(10.0f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
  sn_vec2 pts[5] = {{-12, 6}, {-11, 0.5f}, {-9, 0.5f}, {-8, 3}, {-7, 5}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 5;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &cd)));
  sn_body_id bodies[5];
  for (int i = 0; i < 5; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){-2.0f + 1.1f * (float)i, 1.5f + 0.3f * (float)i};
    bd.user_data = &bodies[i];
    bodies[i] = sn_create_body(w, &bd);
    if (i % 3 == 0) {
      sn_polygon b;
      sn_make_box(0.4f, 0.4f, &b);
      sn_create_polygon_shape(w, bodies[i], &sd, &b);
    } else if (i % 3 == 1) {
      sn_circle c = {{0, 0}, 0.4f};
      sn_create_circle_shape(w, bodies[i], &sd, &c);
    } else {
      sn_capsule c = {{-0.3f, 0}, {0.3f, 0}, 0.2f};
      sn_create_capsule_shape(w, bodies[i], &sd, &c);
    }
  }
  /* a freed body slot and a freed shape slot */
  ck_assert_int_eq(sn_destroy_body(w, bodies[3]), SN_OK);
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "revolute";
  kd.bodies[0] = bodies[0];
  kd.bodies[1] = bodies[1];
  sn_param_value anchor = {"anchor", -1.45f, 1.65f};
  kd.params = &anchor;
  kd.param_count = 1;
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &kd)), "%s", sn_world_last_error(w));
  sn_rope_def rd = sn_default_rope_def();
  rd.start = (sn_vec2){3, 5};
  rd.end = (sn_vec2){6, 5};
  rd.count = 8;
  rd.pin_start = true;
  sn_soft_body_id rope = sn_create_rope(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, rope), "%s", sn_world_last_error(w));
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){0, 4};
  ring.radius = 0.5f;
  ring.count = 10;
  sn_soft_body_id jelly = sn_create_ring(w, &ring);
  ck_assert_msg(sn_soft_body_is_valid(w, jelly), "%s", sn_world_last_error(w));
  sn_rope_def rd2 = rd;
  rd2.start = (sn_vec2){3, 7};
  rd2.end = (sn_vec2){5, 7};
  rd2.count = 4;
  sn_soft_body_id gone = sn_create_rope(w, &rd2);
  ck_assert_int_eq(sn_destroy_soft_body(w, gone), SN_OK); /* freed particle and constraint slots */
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  if (kept != NULL) *kept = bodies[4];
  return w;
}

START_TEST(test_ids_survive) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_body_id kept;
  sn_world *w = small_world(&wd, &kept);
  /* the body's sleep threshold is kept (format 7) */
  ck_assert_int_eq(sn_body_set_sleep_threshold(w, kept, 0.1f), SN_OK);
  size_t n;
  uint8_t *s = save(w, &n);
  sn_world *r = load(s, n, reg);
  ck_assert(sn_body_is_valid(r, kept));
  ck_assert(sn_body_get_sleep_threshold(r, kept) == 0.1f);
  sn_vec2 pw = sn_body_get_position(w, kept), pr = sn_body_get_position(r, kept);
  ck_assert(memcmp(&pw, &pr, sizeof pw) == 0);
  ck_assert_ptr_nonnull(sn_body_get_user_data(w, kept));
  ck_assert_ptr_null(sn_body_get_user_data(r, kept)); /* user data is not saved */
  /* the next body goes into the freed slot, with the same generation */
  sn_body_def bd = sn_default_body_def();
  sn_body_id a = sn_create_body(w, &bd), b = sn_create_body(r, &bd);
  ck_assert_int_eq(a.index1, b.index1);
  ck_assert_int_eq(a.generation, b.generation);
  ck_assert_int_eq(a.world_tag, b.world_tag);
  ck_assert_int_eq(sn_world_get_counters(w).constraint_count, sn_world_get_counters(r).constraint_count);
  /* same settings */
  ck_assert_int_eq(sn_world_get_substeps(r), sn_world_get_substeps(w));
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(r, DT), SN_OK);
  }
  assert_same_motion(w, r, "small world");
  free(s);
  sn_destroy_world(r);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Refusals                                                                  */

/// Loads bytes with a counting allocator: the code, and nothing left allocated.
static sn_result load_counted(const uint8_t *bytes, size_t size, const sn_registry *reg, long fail_after) {
  counting c;
  sn_world_def wd = counted_def(&c, reg);
  c.fail_after = fail_after;
  sn_world *w = (sn_world *)&c; /* must be overwritten */
  char err[256];
  sn_result r = sn_world_load_snapshot(bytes, size, &wd, &w, err, sizeof err);
  if (r == SN_OK) {
    ck_assert_ptr_nonnull(w);
    /* the allocator may still fail: the step then refuses (changing
     * nothing, tests/test_step_oom.c) and steps once memory is back */
    sn_result step = sn_world_step(w, DT);
    ck_assert_msg(step == SN_OK || (fail_after >= 0 && step == SN_ERR_OUT_OF_MEMORY), "step: %s", sn_result_name(step));
    c.fail_after = -1;
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    sn_destroy_world(w);
  } else {
    ck_assert_ptr_null(w);
    ck_assert_msg(strncmp(err, sn_result_name(r), strlen(sn_result_name(r))) == 0, "message '%s' for %s", err,
                  sn_result_name(r));
  }
  ck_assert_int_eq(c.live_blocks, 0);
  ck_assert_uint_eq(c.live_bytes, 0);
  return r;
}

START_TEST(test_truncated_every_length) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  ck_assert_int_eq(load_counted(s, n, reg, -1), SN_OK);
  for (size_t len = 0; len < n; ++len) {
    uint8_t *copy = malloc(len + 1); /* exact size, so ASan sees any overread */
    memcpy(copy, s, len);
    sn_result r = load_counted(copy, len, reg, -1);
    ck_assert_msg(r == SN_ERR_SNAPSHOT_CORRUPT, "length %zu of %zu: %s", len, n, sn_result_name(r));
    free(copy);
  }
  /* one byte too many is refused too */
  uint8_t *longer = malloc(n + 1);
  memcpy(longer, s, n);
  longer[n] = 0;
  ck_assert_int_eq(load_counted(longer, n + 1, reg, -1), SN_ERR_SNAPSHOT_CORRUPT);
  free(longer);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_byte_flips) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  uint8_t *copy = malloc(n);
  /* every offset, two different flips: the checksum catches each */
  for (size_t at = 0; at < n; ++at) {
    for (int k = 0; k < 2; ++k) {
      memcpy(copy, s, n);
      copy[at] ^= k == 0 ? 0x01 : 0xA5;
      sn_result r = load_counted(copy, n, reg, -1);
      ck_assert_msg(r == SN_ERR_SNAPSHOT_CORRUPT, "flip at %zu of %zu: %s", at, n, sn_result_name(r));
    }
  }
  free(copy);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_resealed_flips_never_crash) {
  /* damage behind a valid checksum (a buggy writer, or a deliberate edit):
   * the structural checks refuse what would break the engine; what they let
   * through must step and destroy cleanly (ASan and the counter watch) */
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  uint8_t *copy = malloc(n);
  int refused = 0, accepted = 0;
  uint32_t seed = 12345u;
  for (size_t at = 48; at + 8 < n; ++at) {
    memcpy(copy, s, n);
    seed = seed * 1664525u + 1013904223u;
    copy[at] ^= (uint8_t)(1u << ((seed >> 16) % 8u));
    reseal(copy, n);
    sn_result r = load_counted(copy, n, reg, -1);
    /* a flip in a type name may name a type the registry lacks */
    ck_assert_msg(r == SN_OK || r == SN_ERR_SNAPSHOT_CORRUPT || r == SN_ERR_NOT_FOUND ||
                      r == SN_ERR_SNAPSHOT_TYPE_MISMATCH,
                  "flip at %zu: %s", at, sn_result_name(r));
    if (r == SN_OK)
      accepted++;
    else
      refused++;
  }
  /* both happen: index fields are refused, most float bits are just values */
  ck_assert_int_gt(refused, 100);
  ck_assert_int_gt(accepted, 100);
  free(copy);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* Loading recomputes every shape's tight AABB from its body's transform,
 * because the narrowphase skips far disc pairs by these boxes: an undamaged
 * snapshot keeps its bits (the same computation the step's write back made),
 * a damaged one (a box or a transform changed behind a valid checksum) gets
 * boxes that match its transforms. Exact: the bits are compared. */
START_TEST(test_aabbs_follow_transforms) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  for (int damaged = 0; damaged < 2; ++damaged) {
    if (damaged) {
      /* a dynamic body moved without its boxes, another shape's box garbage */
      int32_t moved = -1, garbled = -1;
      for (int32_t i = 0; i < w->bodies.count && moved < 0; ++i)
        if (w->bodies.data[i].in_use && w->bodies.data[i].type == SN_BODY_DYNAMIC) moved = i;
      for (int32_t i = 0; i < w->shapes.count && garbled < 0; ++i)
        if (w->shapes.data[i].in_use && w->shapes.data[i].body != moved) garbled = i;
      ck_assert(moved >= 0 && garbled >= 0);
      w->bodies.data[moved].xf.p.x += 0.5f;
      w->shapes.data[garbled].aabb = (sn_aabb){{-100.0f, -100.0f}, {-99.0f, -99.0f}};
    }
    size_t n;
    uint8_t *s = save(w, &n);
    sn_world *out = NULL;
    char err[256];
    ck_assert_msg(sn_world_load_snapshot(s, n, &wd, &out, err, sizeof err) == SN_OK, "%s", err);
    int checked = 0;
    for (int32_t i = 0; i < out->shapes.count; ++i) {
      const sn_shape *sh = out->shapes.data + i;
      if (!sh->in_use) continue;
      sn_aabb want = sn_geometry_compute_aabb(&sh->geom, out->bodies.data[sh->body].xf);
      ck_assert(memcmp(&sh->aabb, &want, sizeof want) == 0);
      if (!damaged) ck_assert(memcmp(&sh->aabb, &w->shapes.data[i].aabb, sizeof want) == 0);
      ++checked;
    }
    ck_assert_int_gt(checked, 3);
    ck_assert_int_eq(sn_world_step(out, DT), SN_OK);
    sn_destroy_world(out);
    free(s);
  }
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* A shape made on a disabled body, or given new geometry there, has its
 * tight box at the body's pose although it has no proxy: the box a query of
 * it returns, and the one a snapshot round trip keeps (save, load, save gives
 * the same bytes; the loader recomputes every box). */
START_TEST(test_disabled_body_shape_box) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){3.0f, 4.0f};
  bd.angle = 0.5f;
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert_int_eq(sn_body_disable(w, b), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sn_capsule cap = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
  sn_shape_id made = sn_create_capsule_shape(w, b, &sd, &cap);
  ck_assert(sn_shape_is_valid(w, made));
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.5f, 0.25f, &box), SN_OK);
  sn_shape_id changed = sn_create_polygon_shape(w, b, &sd, &box);
  ck_assert(sn_shape_is_valid(w, changed));
  sn_circle circle = {{0.25f, 0.0f}, 0.5f};
  ck_assert_int_eq(sn_shape_set_circle(w, changed, &circle), SN_OK);
  /* the capsule's box: its two centres turned by 0.5 rad about (3, 4), grown by the radius */
  const sn_aabb got = sn_shape_get_aabb(w, made);
  const double hx = 0.5 * cos(0.5) + 0.25, hy = 0.5 * sin(0.5) + 0.25;
  ck_assert_double_eq_tol(got.lower.x, 3.0 - hx, 1e-5);
  ck_assert_double_eq_tol(got.upper.x, 3.0 + hx, 1e-5);
  ck_assert_double_eq_tol(got.lower.y, 4.0 - hy, 1e-5);
  ck_assert_double_eq_tol(got.upper.y, 4.0 + hy, 1e-5);
  const sn_aabb disc = sn_shape_get_aabb(w, changed);
  const double cx = 3.0 + 0.25 * cos(0.5), cy = 4.0 + 0.25 * sin(0.5);
  ck_assert_double_eq_tol(disc.lower.x, cx - 0.5, 1e-5);
  ck_assert_double_eq_tol(disc.upper.y, cy + 0.5, 1e-5);
  size_t n0, n1;
  uint8_t *a = save(w, &n0);
  sn_world *out = NULL;
  char err[256];
  ck_assert_msg(sn_world_load_snapshot(a, n0, &wd, &out, err, sizeof err) == SN_OK, "%s", err);
  uint8_t *c = save(out, &n1);
  ck_assert(n0 == n1 && memcmp(a, c, n0) == 0);
  free(a);
  free(c);
  sn_destroy_world(out);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_structure_checks) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  uint8_t *copy = malloc(n);
  /* the format version (offset 8) behind a valid checksum: a version error */
  memcpy(copy, s, n);
  copy[8] = (uint8_t)(copy[8] + 1);
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_VERSION);
  /* a snapshot of this format labelled with the older one: its world
   * section has the settings the older format lacks, bytes that format's
   * reader does not take */
  memcpy(copy, s, n);
  copy[8] = (uint8_t)(SN_SNAPSHOT_FORMAT - 1);
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_CORRUPT);
  /* a format older than the oldest this library reads */
  memcpy(copy, s, n);
  copy[8] = (uint8_t)(SN_SNAPSHOT_OLDEST_FORMAT - 1);
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_VERSION);
  /* pointer size of the writer (offset 30) */
  memcpy(copy, s, n);
  copy[30] = (uint8_t)(copy[30] == 8 ? 4 : 8);
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_VERSION);
  /* the header's reserved fields (offset 32) are for a later format */
  memcpy(copy, s, n);
  copy[32] = 1;
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_VERSION);
  /* the writer's engine version (offsets 24-26) is informational */
  memcpy(copy, s, n);
  copy[26] ^= 0x10;
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_OK);
  /* not a snapshot at all */
  memcpy(copy, s, n);
  copy[0] = 'X';
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_CORRUPT);
  /* a section tag */
  memcpy(copy, s, n);
  copy[40] = 'w';
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, reg, -1), SN_ERR_SNAPSHOT_CORRUPT);
  free(copy);
  /* NULLs and a def without its cookie */
  sn_world *out = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(NULL, n, &wd, &out, NULL, 0), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &wd, NULL, NULL, 0), SN_ERR_NULL);
  sn_world_def bad = wd;
  bad.cookie = 0;
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &bad, &out, NULL, 0), SN_ERR_UNINITIALIZED_DEF);
  ck_assert_ptr_null(out);
  size_t need = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, NULL), SN_ERR_NULL);
  uint8_t small[16] = {0};
  ck_assert_int_eq(sn_world_save_snapshot(w, small, sizeof small, &need), SN_ERR_CAPACITY);
  ck_assert_uint_eq(need, n);
  ck_assert_int_eq(small[0], 0); /* untouched */
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* White-box: break one invariant of a live world, save it (the writer copies
 * what it finds) and check the loader names what is broken. */
static void expect_refused(sn_world *w, const sn_registry *reg, const char *needle) {
  size_t n;
  uint8_t *s = save(w, &n);
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *out = NULL;
  char err[256];
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &wd, &out, err, sizeof err), SN_ERR_SNAPSHOT_CORRUPT);
  ck_assert_ptr_null(out);
  ck_assert_msg(strstr(err, needle) != NULL, "expected '%s' in '%s'", needle, err);
  ck_assert_int_eq(load_counted(s, n, reg, -1), SN_ERR_SNAPSHOT_CORRUPT);
  free(s);
}

START_TEST(test_broken_invariants) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  /* two dynamic bodies, a live contact and a soft body to break */
  int32_t a = -1, b = -1, c = -1, s = -1;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    if (!w->bodies.data[i].in_use || w->bodies.data[i].type != SN_BODY_DYNAMIC) continue;
    if (a < 0)
      a = i;
    else if (b < 0)
      b = i;
  }
  for (int32_t i = 0; i < w->contacts.count && c < 0; ++i) c = w->contacts.data[i].in_use ? i : -1;
  for (int32_t i = 0; i < w->soft_bodies.count && s < 0; ++i)
    s = w->soft_bodies.data[i].in_use && w->soft_bodies.data[i].particle_count > 1 ? i : -1;
  ck_assert(a >= 0 && b >= 0 && c >= 0 && s >= 0);
  sn_body *ba = w->bodies.data + a, *bb = w->bodies.data + b;

  /* a sleep link that does not come back (waking would walk off it) */
  ba->sleep_next = b;
  expect_refused(w, reg, "not a cycle");
  bb->sleep_next = a; /* a real cycle is fine */
  size_t n;
  uint8_t *ok = save(w, &n);
  ck_assert_int_eq(load_counted(ok, n, reg, -1), SN_OK);
  free(ok);
  ba->sleep_next = bb->sleep_next = SN_NULL_INDEX;

  /* a shape list longer than its count, a contact edge of another body */
  ba->shape_count += 1;
  expect_refused(w, reg, "shape list");
  ba->shape_count -= 1;
  sn_contact *ct = w->contacts.data + c;
  int32_t body0 = ct->edges[0].body;
  ct->edges[0].body = ct->edges[1].body;
  expect_refused(w, reg, "contact list");
  ct->edges[0].body = body0;

  /* a body rotation that is not unit (it would scale the body's shapes) */
  sn_rot q = ba->xf.q;
  ba->xf.q = (sn_rot){0.5f, 0.0f};
  expect_refused(w, reg, "rotation is not a unit");
  ba->xf.q = q;

  /* a negative sleep threshold (no body can be given one) */
  ba->sleep_threshold = -0.05f;
  expect_refused(w, reg, "negative sleep threshold");
  ba->sleep_threshold = SN_DEFAULT_SLEEP_THRESHOLD;

  /* a manifold reuse reference with a normal that is not unit, or a point
   * that is not finite (the reuse would hand them to the solver) */
  int32_t kept = -1;
  for (int32_t i = 0; i < w->contacts.count && kept < 0; ++i) {
    const sn_contact *k = w->contacts.data + i;
    kept = k->in_use && (k->flags & SN_CONTACT_HAS_REFERENCE) && k->manifold.point_count > 0 ? i : -1;
  }
  ck_assert_int_ge(kept, 0);
  sn_contact_reference saved_ref = w->contacts.data[kept].reference;
  w->contacts.data[kept].reference.normal = (sn_vec2){2.0f, 0.0f};
  expect_refused(w, reg, "contacts");
  w->contacts.data[kept].reference = saved_ref;
  w->contacts.data[kept].reference.local_b[0].x = NAN;
  expect_refused(w, reg, "contacts");
  w->contacts.data[kept].reference = saved_ref;

  /* a tree node linked as its own child */
  sn_tree *t = &w->dynamic_tree;
  ck_assert_int_gt(t->nodes[t->root].height, 0);
  int32_t child = t->nodes[t->root].child1;
  t->nodes[t->root].child1 = t->root;
  expect_refused(w, reg, "dynamic tree");
  t->nodes[t->root].child1 = child;

  /* a particle listed twice by its soft body */
  sn_soft_body *sb = w->soft_bodies.data + s;
  int32_t p1 = sb->particles[1];
  sb->particles[1] = sb->particles[0];
  expect_refused(w, reg, "particle list");
  sb->particles[1] = p1;

  /* a free list that skips a free slot */
  int32_t head = w->body_free;
  ck_assert_int_ge(head, 0);
  w->body_free = SN_NULL_INDEX;
  expect_refused(w, reg, "free list");
  w->body_free = head;

  /* and untouched again, it loads */
  ok = save(w, &n);
  ck_assert_int_eq(load_counted(ok, n, reg, -1), SN_OK);
  free(ok);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_out_of_memory_every_allocation) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  counting c;
  sn_world_def cd = counted_def(&c, reg);
  sn_world *r = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &cd, &r, NULL, 0), SN_OK);
  long needed = c.allocations;
  sn_destroy_world(r);
  ck_assert_int_gt(needed, 10);
  for (long k = 0; k < needed; ++k) ck_assert_int_eq(load_counted(s, n, reg, k), SN_ERR_OUT_OF_MEMORY);
  ck_assert_int_eq(load_counted(s, n, reg, needed), SN_OK);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* Host types for the schema checks. */
static int host_create(const sn_constraint_create_args *args) {
  (void)args;
  return 0;
}
static void host_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}
static void host_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}
static void host_destroy(void *instance) { (void)instance; }

typedef struct host_params {
  float stiffness;
  int32_t mode;
} host_params;

static sn_registry *host_registry(uint32_t instance_size, uint32_t mode_offset, bool with_destroy) {
  static const sn_param_desc desc_a[] = {
      {1, SN_PARAM_FLOAT, "stiffness", 0, SN_PARAM_RUNTIME, 0.0, 100.0, 1.0, NULL},
      {2, SN_PARAM_INT, "mode", 4, 0, 0.0, 3.0, 0.0, NULL},
  };
  static const sn_param_desc desc_b[] = {
      {1, SN_PARAM_FLOAT, "stiffness", 4, SN_PARAM_RUNTIME, 0.0, 100.0, 1.0, NULL},
      {2, SN_PARAM_INT, "mode", 0, 0, 0.0, 3.0, 0.0, NULL},
  };
  sn_registry *r = sn_create_registry(NULL);
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.spring";
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 2;
  t.params_size = sizeof(host_params);
  t.params_align = 4;
  t.instance_size = instance_size;
  t.instance_align = 4;
  t.param_count = 2;
  t.params = mode_offset == 4 ? desc_a : desc_b;
  t.create = host_create;
  t.prepare = host_prepare;
  t.solve_velocity = host_solve;
  t.destroy = with_destroy ? host_destroy : NULL;
  char msg[256];
  ck_assert_msg(sn_registry_add_type(r, &t, msg, sizeof msg) == SN_OK, "%s", msg);
  return r;
}

static sn_world *host_world(const sn_registry *reg) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id b[2];
  for (int i = 0; i < 2; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){(float)i, 0};
    b[i] = sn_create_body(w, &bd);
  }
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "test.spring";
  kd.bodies[0] = b[0];
  kd.bodies[1] = b[1];
  sn_param_value v = {"mode", 2, 0};
  kd.params = &v;
  kd.param_count = 1;
  ck_assert_msg(sn_constraint_is_valid(w, sn_create_constraint(w, &kd)), "%s", sn_world_last_error(w));
  return w;
}

START_TEST(test_plugin_types) {
  sn_registry *reg = host_registry(16, 4, false);
  sn_world *w = host_world(reg);
  size_t n;
  uint8_t *s = save(w, &n);
  /* the same schema in another registry: fine, parameters restored */
  sn_registry *same = host_registry(16, 4, false);
  sn_world *r = load(s, n, same);
  sn_constraint_id k;
  ck_assert_int_eq(sn_world_get_constraints(r, &k, 1), 1);
  double x, y;
  ck_assert_int_eq(sn_constraint_get_param(r, k, "mode", &x, &y), SN_OK);
  ck_assert(x == 2.0);
  ck_assert_ptr_eq(sn_constraint_get_type(r, k), sn_registry_find_type(same, "test.spring"));
  sn_destroy_world(r);
  /* no registry, or one without the type */
  char err[256];
  ck_assert_int_eq(load_counted(s, n, NULL, -1), SN_ERR_NOT_FOUND);
  sn_registry *empty = sn_create_registry(NULL);
  sn_world_def wd = sn_default_world_def();
  wd.registry = empty;
  sn_world *out = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &wd, &out, err, sizeof err), SN_ERR_NOT_FOUND);
  ck_assert_msg(strstr(err, "test.spring") != NULL, "%s", err);
  /* another instance size, or the parameters moved: a schema mismatch */
  sn_registry *bigger = host_registry(20, 4, false);
  wd.registry = bigger;
  ck_assert_int_eq(sn_world_load_snapshot(s, n, &wd, &out, err, sizeof err), SN_ERR_SNAPSHOT_TYPE_MISMATCH);
  ck_assert_msg(strstr(err, "instance_size") != NULL, "%s", err);
  sn_registry *moved = host_registry(16, 0, false);
  ck_assert_int_eq(load_counted(s, n, moved, -1), SN_ERR_SNAPSHOT_TYPE_MISMATCH);
  /* a parameter outside the registered range behind a valid checksum (the
   * writer's schema had other ranges): mode is 2 (int32
   * at the start of the params blob, right before the instance's 16 bytes) */
  uint8_t *copy = malloc(n);
  memcpy(copy, s, n);
  size_t at = n - 8 - 16 - 16 - 4; /* the last constraint's mode (then an empty sensor section: 16 bytes) */
  ck_assert_int_eq(copy[at], 2);
  copy[at] = 7;
  reseal(copy, n);
  ck_assert_int_eq(load_counted(copy, n, same, -1), SN_ERR_SNAPSHOT_TYPE_MISMATCH);
  free(copy);
  free(s);
  sn_destroy_world(w);
  /* a type with a destroy callback cannot be saved */
  sn_registry *owning = host_registry(16, 4, true);
  sn_world *o = host_world(owning);
  size_t need = 0;
  ck_assert_int_eq(sn_world_save_snapshot(o, NULL, 0, &need), SN_ERR_SNAPSHOT_UNSUPPORTED);
  ck_assert_msg(strstr(sn_world_last_error(o), "test.spring") != NULL, "%s", sn_world_last_error(o));
  sn_destroy_world(o);
  sn_destroy_registry(owning);
  sn_destroy_registry(moved);
  sn_destroy_registry(bigger);
  sn_destroy_registry(empty);
  sn_destroy_registry(same);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Files                                                                     */

static char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)n + 1);
  *size = fread(p, 1, (size_t)n, f);
  fclose(f);
  return p;
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* tests/data/snapshot-format3.bin: the world of format3_world() after 30
 * steps, saved in snapshot format 3 (x86-64). A change of the simulation's
 * results (the pinned hashes of test_determinism) changes that world, and
 * the file is made again: the world saved by the codec at format 3 (the
 * writer's format set to 3), less the sensors' section (format 6: the
 * writer adds it at any format; 16 bytes before the checksum), the header's
 * total size set to the bytes left, its plugin ABI minor (1) and handle tag
 * as the file had them, and the checksum recomputed. Made that way from the
 * results before, the file came out byte for byte as the one a format 3
 * library wrote. */
static sn_scene format3_world(void) {
  sn_world_def def = sn_default_world_def();
  def.substeps = 4;
  def.contact_hertz = 45.0f;
  sn_scene scene;
  ck_assert(sn_scene_build_def(&scene, "pyramid", 5, &def));
  ck_assert_int_eq(sn_world_set_hit_event_threshold(scene.world, 2.5f), SN_OK);
  return scene;
}

/* A file of format 3 loads: its settings are the saved ones (those it does
 * not hold take their defaults), and the world it restores saves exactly the
 * bytes this library saves for the same world built and stepped here. */
START_TEST(test_format3_file) {
  ck_assert_msg(sizeof(void *) == 8, "the file was written with 8-byte pointers");
  sn_world *restored = NULL;
  char err[256] = "";
  sn_result r =
      sn_world_read_snapshot(SN_SOURCE_DIR "/tests/data/snapshot-format3.bin", NULL, &restored, err, sizeof err);
  ck_assert_msg(r == SN_OK, "%s: %s", sn_result_name(r), err);
  ck_assert_int_eq(sn_world_get_substeps(restored), 4);
  ck_assert(sn_world_get_hit_event_threshold(restored) == 2.5f);
  sn_world_def got;
  ck_assert_int_eq(sn_world_get_def(restored, &got), SN_OK);
  ck_assert(got.contact_hertz == 45.0f);
  sn_world_settings defaults = sn_world_settings_default();
  for (int32_t i = 0; i < SN_WORLD_SETTING_COUNT; ++i) {
    const sn_setting_info *info = sn_world_setting_info(i);
    if (info->format > 3)
      ck_assert_msg(memcmp((const char *)&restored->settings + info->offset, (const char *)&defaults + info->offset,
                           info->type == SN_SETTING_TYPE_VEC2 ? sizeof(sn_vec2) : sizeof(float)) == 0,
                    "%s: not its default in a format 3 snapshot", info->name);
  }
  /* a format before 7 holds no sleep thresholds: every body has the default */
  for (int32_t i = 0; i < restored->bodies.count; ++i)
    if (restored->bodies.data[i].in_use)
      ck_assert(restored->bodies.data[i].sleep_threshold == SN_DEFAULT_SLEEP_THRESHOLD);
  sn_scene scene = format3_world();
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(scene.world, DT), SN_OK);
  size_t n_fresh, n_restored;
  uint8_t *fresh = save(scene.world, &n_fresh), *again = save(restored, &n_restored);
  ck_assert_uint_eq(n_fresh, n_restored);
  /* but for the handle tag (the world section's first field, after the
   * 40-byte header and the section's tag and length): the file's, not this
   * process's next one */
  ck_assert_uint_gt(n_fresh, 54);
  memcpy(fresh + 52, again + 52, 2);
  reseal(fresh, n_fresh);
  ck_assert(memcmp(fresh, again, n_fresh) == 0);
  for (int i = 0; i < 30; ++i) {
    ck_assert_int_eq(sn_world_step(scene.world, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(restored, DT), SN_OK);
  }
  assert_same_motion(scene.world, restored, "format 3 file");
  free(fresh);
  free(again);
  sn_destroy_world(restored);
  sn_scene_destroy(&scene);
}
END_TEST

/* A snapshot of format 6 (made here from this library's bytes: the
 * bodies' sleep thresholds taken out of the body records, the section and
 * total sizes and the version set back, resealed) loads, every body with
 * the default sleep threshold, and the world saves the bytes of the
 * original world with its thresholds at the default. */
START_TEST(test_format6_bytes) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_body_id kept;
  sn_world *w = small_world(&wd, &kept);
  ck_assert_int_eq(sn_body_set_sleep_threshold(w, kept, 0.1f), SN_OK);
  size_t n7;
  uint8_t *s7 = save(w, &n7);
  uint8_t *s6 = malloc(n7);
  ck_assert_ptr_nonnull(s6);
  /* sections after the 40-byte header: a 4-byte tag and a u64 length each */
  size_t in = 40, out = 40, body_length_at = 0, live = 0;
  memcpy(s6, s7, in);
  while (in < n7 - SN_SNAPSHOT_TRAILER_BYTES) {
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= (uint64_t)s7[in + 4 + (size_t)i] << (8 * i);
    if (memcmp(s7 + in, "BODY", 4) != 0) {
      memcpy(s6 + out, s7 + in, 12 + (size_t)length);
      in += 12 + (size_t)length;
      out += 12 + (size_t)length;
      continue;
    }
    /* slots count, free head, live count; then per slot 7 bytes (in use
     * first) and a live body's record: 135 bytes, the threshold (4), 20 */
    body_length_at = out + 4;
    memcpy(s6 + out, s7 + in, 12 + 12);
    int32_t slots;
    memcpy(&slots, s7 + in + 12, sizeof slots);
    size_t r = in + 24, o = out + 24;
    for (int32_t k = 0; k < slots; ++k) {
      bool in_use = s7[r] != 0;
      memcpy(s6 + o, s7 + r, 7);
      r += 7;
      o += 7;
      if (!in_use) continue;
      memcpy(s6 + o, s7 + r, 135);
      memcpy(s6 + o + 135, s7 + r + 139, 20);
      r += 159;
      o += 155;
      live++;
    }
    ck_assert_uint_eq(r, in + 12 + (size_t)length);
    in = r;
    out = o;
    uint64_t shorter = length - 4 * live;
    for (int i = 0; i < 8; ++i) s6[body_length_at + (size_t)i] = (uint8_t)(shorter >> (8 * i));
  }
  ck_assert_uint_gt(live, 2);
  size_t n6 = out + SN_SNAPSHOT_TRAILER_BYTES;
  ck_assert_uint_eq(n6, n7 - 4 * live);
  for (int i = 0; i < 8; ++i) s6[16 + i] = (uint8_t)((uint64_t)n6 >> (8 * i));
  s6[8] = 6;
  reseal(s6, n6);
  sn_world *r6 = load(s6, n6, reg);
  for (int32_t i = 0; i < r6->bodies.count; ++i)
    if (r6->bodies.data[i].in_use) ck_assert(r6->bodies.data[i].sleep_threshold == SN_DEFAULT_SLEEP_THRESHOLD);
  ck_assert(sn_body_get_sleep_threshold(r6, kept) == 0.05f);
  /* the same world as the original with the default threshold, byte for byte */
  ck_assert_int_eq(sn_body_set_sleep_threshold(w, kept, SN_DEFAULT_SLEEP_THRESHOLD), SN_OK);
  size_t na, nb;
  uint8_t *a = save(w, &na), *b = save(r6, &nb);
  ck_assert_uint_eq(na, nb);
  ck_assert(memcmp(a, b, na) == 0);
  free(a);
  free(b);
  free(s6);
  free(s7);
  sn_destroy_world(r6);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

START_TEST(test_files) {
  char dir[] = "/tmp/sinew_snapshot_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256], missing[256];
  snprintf(path, sizeof path, "%s/world.snap", dir);
  snprintf(missing, sizeof missing, "%s/no/such/dir/world.snap", dir);
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  mode_t old_mask = umask(022);
  ck_assert_msg(sn_world_write_snapshot(w, path) == SN_OK, "%s", sn_world_last_error(w));
  umask(old_mask);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644); /* as any new file under umask 022, not mkstemp's 0600 */
  size_t fn;
  char *file = read_all(path, &fn);
  ck_assert_uint_eq(fn, n);
  ck_assert(memcmp(file, s, n) == 0);
  free(file);
  ck_assert_int_eq(count_entries(dir), 1);

  /* read back, then both step alike */
  sn_world *r = NULL;
  char err[256];
  ck_assert_msg(sn_world_read_snapshot(path, &wd, &r, err, sizeof err) == SN_OK, "%s", err);
  for (int i = 0; i < 30; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_eq(sn_world_step(r, DT), SN_OK);
  }
  assert_same_motion(w, r, "file");
  sn_destroy_world(r);

  /* a failure at any step keeps the old file and leaves no temporary file */
  for (int fault = SN_SNAPSHOT_FAULT_WRITE; fault <= SN_SNAPSHOT_FAULT_RENAME; ++fault) {
    ck_assert_int_eq(sn_snapshot_write_file(w, path, (sn_snapshot_fault)fault), SN_ERR_IO);
    ck_assert_msg(strstr(sn_world_last_error(w), "unchanged") != NULL, "%s", sn_world_last_error(w));
    file = read_all(path, &fn);
    ck_assert_uint_eq(fn, n);
    ck_assert_msg(memcmp(file, s, n) == 0, "fault %d changed the file", fault);
    free(file);
    ck_assert_int_eq(count_entries(dir), 1);
  }
  /* a folder that does not exist */
  ck_assert_int_eq(sn_world_write_snapshot(w, missing), SN_ERR_IO);
  ck_assert_int_eq(count_entries(dir), 1);
  /* the newer state replaces the file when nothing fails */
  ck_assert_int_eq(sn_world_write_snapshot(w, path), SN_OK);
  file = read_all(path, &fn);
  ck_assert(fn != n || memcmp(file, s, n) != 0);
  free(file);
  ck_assert_int_eq(count_entries(dir), 1);

  /* reading: no file, an empty file, a truncated file */
  ck_assert_int_eq(sn_world_read_snapshot(missing, &wd, &r, err, sizeof err), SN_ERR_IO);
  ck_assert_ptr_null(r);
  char cut[256];
  snprintf(cut, sizeof cut, "%s/cut.snap", dir);
  FILE *f = fopen(cut, "wb");
  fclose(f);
  ck_assert_int_eq(sn_world_read_snapshot(cut, &wd, &r, err, sizeof err), SN_ERR_SNAPSHOT_CORRUPT);
  f = fopen(cut, "wb");
  fwrite(s, 1, n / 2, f);
  fclose(f);
  ck_assert_int_eq(sn_world_read_snapshot(cut, &wd, &r, err, sizeof err), SN_ERR_SNAPSHOT_CORRUPT);
  ck_assert_msg(strstr(err, "truncated") != NULL, "%s", err);
  ck_assert_ptr_null(r);
  unlink(cut);
  unlink(path);
  rmdir(dir);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* The file edges: a FIFO is refused at once; a rewrite keeps the file's
 * permission bits; a symbolic link at the path is written through; the
 * names the writer once used for its temporary file, taken, do not stop
 * it; a failed write (the file size limit) and a process dying half way
 * leave no temporary file. */
START_TEST(test_file_edges) {
  char dir[] = "/tmp/sinew_snapshot_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256], err[512];
  snprintf(path, sizeof path, "%s/world.snap", dir);
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = small_world(&wd, NULL);
  size_t n;
  uint8_t *s = save(w, &n);
  sn_world *r = NULL;

  /* a FIFO: SN_ERR_IO at once, not an open waiting for a writer */
  char fifo[300];
  snprintf(fifo, sizeof fifo, "%s/pipe.snap", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  alarm(20);
  ck_assert_int_eq(sn_world_read_snapshot(fifo, &wd, &r, err, sizeof err), SN_ERR_IO);
  alarm(0);
  ck_assert_ptr_null(r);
  ck_assert_msg(strstr(err, fifo) != NULL && strstr(err, "not a regular file (a FIFO)") != NULL, "%s", err);
  ck_assert_int_eq(unlink(fifo), 0);

  /* a private snapshot stays private */
  mode_t old_mask = umask(022);
  ck_assert_msg(sn_world_write_snapshot(w, path) == SN_OK, "%s", sn_world_last_error(w));
  ck_assert_int_eq(chmod(path, 0600), 0);
  ck_assert_msg(sn_world_write_snapshot(w, path) == SN_OK, "%s", sn_world_last_error(w));
  umask(old_mask);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0600);

  /* through a symbolic link: the file it points to is replaced, the link kept */
  char link[300];
  snprintf(link, sizeof link, "%s/latest.snap", dir);
  ck_assert_int_eq(symlink("world.snap", link), 0);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(symlink("nowhere.snap", path), 0); /* a link to nothing is refused */
  ck_assert_int_eq(sn_world_write_snapshot(w, path), SN_ERR_IO);
  ck_assert_msg(strstr(sn_world_last_error(w), "symbolic link") != NULL, "%s", sn_world_last_error(w));
  ck_assert_int_eq(unlink(path), 0);
  FILE *f = fopen(path, "wb");
  fputs("old", f);
  fclose(f);
  ck_assert_msg(sn_world_write_snapshot(w, link) == SN_OK, "%s", sn_world_last_error(w));
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_size, (off_t)n);
  ck_assert_msg(sn_world_read_snapshot(link, &wd, &r, err, sizeof err) == SN_OK, "%s", err);
  sn_destroy_world(r);
  r = NULL;
  ck_assert_int_eq(unlink(link), 0);

  /* every name "<path>.tmp-<pid>-<n>" taken: the writer still writes, and
   * leaves those files alone */
  char taken[300];
  for (int i = 0; i < 100; ++i) {
    snprintf(taken, sizeof taken, "%s.tmp-%ld-%d", path, (long)getpid(), i);
    f = fopen(taken, "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
  }
  ck_assert_msg(sn_world_write_snapshot(w, path) == SN_OK, "%s", sn_world_last_error(w));
  ck_assert_int_eq(count_entries(dir), 101);
  for (int i = 0; i < 100; ++i) {
    snprintf(taken, sizeof taken, "%s.tmp-%ld-%d", path, (long)getpid(), i);
    ck_assert_int_eq(unlink(taken), 0);
  }
  ck_assert_int_eq(count_entries(dir), 1);

  /* a write that fails for real (files limited to 64 bytes) leaves the old
   * file and no temporary file */
  struct rlimit saved;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = {64, saved.rlim_max};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
  sn_result written = sn_world_write_snapshot(w, path);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
  signal(SIGXFSZ, old_handler);
  ck_assert_int_eq(written, SN_ERR_IO);
  ck_assert_msg(strstr(sn_world_last_error(w), "File too large") != NULL, "%s", sn_world_last_error(w));
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_size, (off_t)n);

  /* the same with a named temporary file from the start */
  ck_assert_int_eq(sn_snapshot_write_file(w, path, SN_SNAPSHOT_FAULT_WRITE | SN_SNAPSHOT_NAMED_TEMP), SN_ERR_IO);
  ck_assert_int_eq(count_entries(dir), 1);

  /* the process dies half way through the write: nothing left behind */
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    sn_snapshot_write_file(w, path, SN_SNAPSHOT_FAULT_EXIT);
    _exit(0);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 70);
  ck_assert_int_eq(count_entries(dir), 1);
  ck_assert_msg(sn_world_read_snapshot(path, &wd, &r, err, sizeof err) == SN_OK, "%s", err);
  sn_destroy_world(r);

  unlink(path);
  rmdir(dir);
  free(s);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* A body destroyed takes the constraints that join it, in the world that
 * made them and in one restored from its snapshot (each body's count of its
 * constraints is not saved: the loader counts again). A chain a-b-c-d of
 * pins: destroying b ends a-b and b-c, keeps c-d; then c ends c-d. */
START_TEST(test_destroy_body_takes_its_joints) {
  sn_registry *reg = small_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_id body[4];
  for (int i = 0; i < 4; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){(float)i, 0.0f};
    body[i] = sn_create_body(w, &bd);
    sn_circle c = {{0, 0}, 0.3f};
    sn_shape_def sd = sn_default_shape_def();
    ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, body[i], &sd, &c)));
  }
  sn_constraint_id pin[3];
  for (int i = 0; i < 3; ++i) {
    sn_constraint_def kd = sn_default_constraint_def();
    kd.type = "revolute";
    kd.bodies[0] = body[i];
    kd.bodies[1] = body[i + 1];
    sn_param_value anchor = {"anchor", (double)i + 0.5, 0.0};
    kd.params = &anchor;
    kd.param_count = 1;
    pin[i] = sn_create_constraint(w, &kd);
    ck_assert_msg(sn_constraint_is_valid(w, pin[i]), "%s", sn_world_last_error(w));
  }
  size_t size = 0;
  uint8_t *bytes = save(w, &size);
  sn_world *restored = load(bytes, size, reg);
  sn_world *worlds[2] = {w, restored};
  for (int k = 0; k < 2; ++k) {
    sn_world *x = worlds[k];
    ck_assert_int_eq(sn_destroy_body(x, body[1]), SN_OK);
    ck_assert_msg(!sn_constraint_is_valid(x, pin[0]) && !sn_constraint_is_valid(x, pin[1]),
                  "world %d: a pin of the destroyed body is still there", k);
    ck_assert_msg(sn_constraint_is_valid(x, pin[2]), "world %d: the pin of two other bodies went", k);
    ck_assert_int_eq(sn_world_get_counters(x).constraint_count, 1);
    ck_assert_int_eq(sn_destroy_body(x, body[2]), SN_OK);
    ck_assert(!sn_constraint_is_valid(x, pin[2]));
    ck_assert_int_eq(sn_world_get_counters(x).constraint_count, 0);
    ck_assert_int_eq(sn_world_step(x, 1.0f / 60.0f), SN_OK);
  }
  free(bytes);
  sn_destroy_world(restored);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("snapshot");
  TCase *tc = tcase_create("resume");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_resume_pyramid);
  tcase_add_test(tc, test_resume_rain);
  tcase_add_test(tc, test_resume_chain_joints);
  tcase_add_test(tc, test_resume_cloth);
  tcase_add_test(tc, test_resume_jelly);
  tcase_add_test(tc, test_resume_mixed);
  tcase_add_test(tc, test_resume_sleeping);
  tcase_add_test(tc, test_resume_on_threads);
  tcase_add_test(tc, test_ids_survive);
  suite_add_tcase(s, tc);
  tc = tcase_create("refusals");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_truncated_every_length);
  tcase_add_test(tc, test_byte_flips);
  tcase_add_test(tc, test_resealed_flips_never_crash);
  tcase_add_test(tc, test_structure_checks);
  tcase_add_test(tc, test_aabbs_follow_transforms);
  tcase_add_test(tc, test_disabled_body_shape_box);
  tcase_add_test(tc, test_broken_invariants);
  tcase_add_test(tc, test_out_of_memory_every_allocation);
  tcase_add_test(tc, test_plugin_types);
  suite_add_tcase(s, tc);
  tc = tcase_create("files");
  tcase_add_test(tc, test_format3_file);
  tcase_add_test(tc, test_format6_bytes);
  tcase_add_test(tc, test_files);
  tcase_add_test(tc, test_file_edges);
  tcase_add_test(tc, test_destroy_body_takes_its_joints);
  suite_add_tcase(s, tc);
  return s;
}
