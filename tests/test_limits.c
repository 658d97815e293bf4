/* Bounded cost for small inputs.
 *
 * Adding a shape to a body does a constant amount of work (the shapes the
 * engine visits, counted by the internal w->shape_visits), whatever the
 * body already holds, and gives the mass, centre of mass, inertia and
 * extents that summing every shape again gives, bit for bit.
 *
 * The world def's limits (max_bodies, max_shapes, max_particles,
 * max_soft_bodies, max_constraints, max_contacts) are enforced: a create past
 * one is refused with SN_ERR_CAPACITY naming it and nothing changes; a
 * builder checks what it would make before allocating; the step makes no
 * contact and no particle candidate past max_contacts (bodies piled on one
 * point cost bounded memory) and finds the pairs it left out once there is
 * room; a snapshot is refused before memory is allocated for counts past the
 * def's limits or past what its bytes can describe; a scene file past the
 * limits (a 90-byte lattice of 2^20 particles) is refused before building. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "base/math.h"
#include "world/snapshot.h"
#include "world/world.h"
#include "sinew/scene_file.h"
#include "soft_support.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/// Counts live and peak bytes through the world def's allocator hook.
typedef struct peak_counter {
  size_t live, peak;
} peak_counter;

static void *peak_alloc(size_t size, void *context) {
  peak_counter *c = context;
  void *p = aligned_alloc(16, (size + 15u) & ~(size_t)15u);
  if (p != NULL) {
    c->live += size;
    if (c->live > c->peak) c->peak = c->live;
  }
  return p;
}

static void peak_free(void *memory, size_t size, void *context) {
  peak_counter *c = context;
  if (memory == NULL) return;
  c->live -= size;
  free(memory);
}

static sn_world_def counted_def(peak_counter *c) {
  memset(c, 0, sizeof *c);
  sn_world_def wd = sn_default_world_def();
  wd.allocator.alloc = peak_alloc;
  wd.allocator.free = peak_free;
  wd.allocator.context = c;
  return wd;
}

static sn_body_id dynamic_body(sn_world *w, sn_vec2 p) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  ck_assert_msg(sn_body_is_valid(w, b), "%s", sn_world_last_error(w));
  return b;
}

static sn_shape_id add_box(sn_world *w, sn_body_id b, float h, sn_vec2 c, float angle) {
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(h, h, c, angle, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  return sn_create_polygon_shape(w, b, &sd, &box);
}

/// The i-th of a mixed set of shapes (circles, boxes, capsules, a massless
/// one) spread over a 1.7 m x 1.3 m area with irrational-ish offsets.
static sn_shape_id add_mixed(sn_world *w, sn_body_id b, int32_t i) {
  sn_vec2 c = {(float)(i % 37) * 0.046f - 0.8f, (float)(i % 29) * 0.044f - 0.6f};
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 0.5f + (float)(i % 7) * 0.3f;
  if (i % 11 == 5) sd.density = 0.0f;
  sn_shape_id s;
  if (i % 3 == 0) {
    sn_circle circle = {c, 0.01f + (float)(i % 5) * 0.013f};
    s = sn_create_circle_shape(w, b, &sd, &circle);
  } else if (i % 3 == 1) {
    sn_polygon box;
    ck_assert_int_eq(sn_make_offset_box(0.02f + (float)(i % 4) * 0.01f, 0.015f, c, (float)i * 0.1f, &box), SN_OK);
    s = sn_create_polygon_shape(w, b, &sd, &box);
  } else {
    sn_capsule cap = {c, {c.x + 0.03f, c.y + 0.01f * (float)(i % 3)}, 0.012f};
    s = sn_create_capsule_shape(w, b, &sd, &cap);
  }
  ck_assert_msg(sn_shape_is_valid(w, s), "%s", sn_world_last_error(w));
  return s;
}

static bool same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/// The body's mass state as left by the incremental adds equals, bit for
/// bit, what summing every shape again (sn_body_update_mass) gives.
static void assert_same_as_full_sum(sn_world *w, sn_body_id id) {
  sn_body *b = w->bodies.data + (id.index1 - 1);
  sn_body_refresh_extents(w);
  sn_body kept = *b;
  sn_body_update_mass(w, b);
  ck_assert_msg(same_float(kept.mass, b->mass), "mass %a vs %a", (double)kept.mass, (double)b->mass);
  ck_assert(same_float(kept.inv_mass, b->inv_mass));
  ck_assert_msg(same_float(kept.inertia, b->inertia), "inertia %a vs %a", (double)kept.inertia, (double)b->inertia);
  ck_assert(same_float(kept.inv_inertia, b->inv_inertia));
  ck_assert(same_float(kept.local_center.x, b->local_center.x) && same_float(kept.local_center.y, b->local_center.y));
  ck_assert(same_float(kept.center.x, b->center.x) && same_float(kept.center.y, b->center.y));
  ck_assert(same_float(kept.v.x, b->v.x) && same_float(kept.v.y, b->v.y));
  ck_assert(same_float(kept.min_extent, b->min_extent));
  ck_assert_msg(same_float(kept.max_extent, b->max_extent), "max_extent %a vs %a", (double)kept.max_extent,
                (double)b->max_extent);
}

/* ------------------------------------------------------------------------ */
/* Adding shapes                                                             */

/* Adding the n-th shape visits no other shape: no walk to the end of the
 * body's list, no mass sum over all of them. The first step measures every
 * body's extents once. */
START_TEST(test_shape_add_constant_work) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id b = dynamic_body(w, (sn_vec2){0.0f, 0.0f});
  const int32_t n = 20000;
  int64_t before = w->shape_visits;
  int64_t first_hundred = 0;
  for (int32_t i = 0; i < n; ++i) {
    sn_circle c = {{(float)(i % 200) * 0.1f, (float)(i / 200) * 0.1f}, 0.04f};
    sn_shape_def sd = sn_default_shape_def();
    ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
    if (i == 99) first_hundred = w->shape_visits - before;
  }
  /* the last 19900 adds cost what the first 100 did (nothing: the body's
   * running sums take each new shape); summing every shape on every add
   * would have visited about 3 n^2 / 2 = 6e8 */
  ck_assert_int_eq(first_hundred, 0);
  ck_assert_int_eq(w->shape_visits - before, 0);
  ck_assert_int_eq(sn_body_get_shape_count(w, b), n);
  /* a static body and a chain after many shapes: no walk either */
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  for (int32_t i = 0; i < 5000; ++i)
    ck_assert(sn_shape_is_valid(w, add_box(w, ground, 0.2f, (sn_vec2){(float)i, -5.0f}, 0.0f)));
  ck_assert_int_eq(w->shape_visits - before, 0);
  sn_vec2 pts[400];
  for (int32_t i = 0; i < 400; ++i) pts[i] = (sn_vec2){(float)i * 0.5f, -20.0f - (float)(i % 2)};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 400;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &cd)));
  /* the chain sums its body's extents once at the end: 5397 shapes */
  ck_assert_int_le(w->shape_visits - before, 5000 + 397);
  int64_t mark = w->shape_visits;
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  /* one pass over the dynamic body's shapes measures its extents */
  ck_assert_int_eq(w->shape_visits - mark, n);
  mark = w->shape_visits;
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(w->shape_visits - mark, 0);
  assert_same_as_full_sum(w, b);
  sn_destroy_world(w);
}
END_TEST

/* Mixed shapes, massless ones among them, on a spinning body: the adds give
 * the bits of a full sum; after a shape leaves the sums are rebuilt once
 * and adds are constant again. */
START_TEST(test_shape_add_same_bits) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id b = dynamic_body(w, (sn_vec2){3.0f, -2.0f});
  ck_assert_int_eq(sn_body_set_angular_velocity(w, b, 1.7f), SN_OK);
  sn_shape_id ids[600];
  for (int32_t i = 0; i < 600; ++i) {
    ids[i] = add_mixed(w, b, i);
    if (i == 0 || i == 1 || i == 57 || i == 599) assert_same_as_full_sum(w, b);
  }
  /* destroy the last shape (the list's tail) and one in the middle without
   * updating the mass: the next add sums every shape again, once */
  ck_assert_int_eq(sn_destroy_shape(w, ids[599], false), SN_OK);
  ck_assert_int_eq(sn_destroy_shape(w, ids[300], false), SN_OK);
  int64_t mark = w->shape_visits;
  sn_shape_id extra = add_mixed(w, b, 1000);
  ck_assert_int_ge(w->shape_visits - mark, 598);
  mark = w->shape_visits;
  add_mixed(w, b, 1001);
  ck_assert_int_eq(w->shape_visits - mark, 0);
  assert_same_as_full_sum(w, b);
  /* creation order kept: the new shapes sit at the end */
  sn_shape_id got[600];
  ck_assert_int_eq(sn_body_get_shapes(w, b, got, 600), 600);
  ck_assert_int_eq(got[598].index1, extra.index1);
  ck_assert_int_eq(got[0].index1, ids[0].index1);
  ck_assert_int_eq(got[299].index1, ids[299].index1);
  ck_assert_int_eq(got[300].index1, ids[301].index1);
  /* a density change without a mass update: the sums are rebuilt at the next add */
  ck_assert_int_eq(sn_shape_set_density(w, ids[5], 9.0f, false), SN_OK);
  add_mixed(w, b, 1002);
  assert_same_as_full_sum(w, b);
  /* a restored world: the first add sums every shape (the sums are not
   * saved), the ones after it are constant */
  size_t size = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &size), SN_OK);
  uint8_t *bytes = malloc(size);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, size, &size), SN_OK);
  sn_world *r = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(bytes, size, NULL, &r, NULL, 0), SN_OK);
  free(bytes);
  add_mixed(r, b, 1003);
  mark = r->shape_visits;
  add_mixed(r, b, 1004);
  ck_assert_int_eq(r->shape_visits - mark, 0);
  add_mixed(w, b, 1003);
  add_mixed(w, b, 1004);
  const sn_body *x = w->bodies.data + (b.index1 - 1), *y = r->bodies.data + (b.index1 - 1);
  ck_assert(same_float(x->mass, y->mass) && same_float(x->inertia, y->inertia));
  ck_assert(same_float(x->local_center.x, y->local_center.x) && same_float(x->local_center.y, y->local_center.y));
  assert_same_as_full_sum(r, b);
  sn_destroy_world(r);
  /* a kinematic body: no mass, extents only */
  sn_body_def kd = sn_default_body_def();
  kd.type = SN_BODY_KINEMATIC;
  sn_body_id k = sn_create_body(w, &kd);
  for (int32_t i = 0; i < 50; ++i) add_mixed(w, k, i);
  assert_same_as_full_sum(w, k);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Limits of the world def                                                   */

START_TEST(test_limits_in_def) {
  sn_world_def wd = sn_default_world_def();
  ck_assert_int_eq(wd.max_bodies, SN_DEFAULT_MAX_BODIES);
  ck_assert_int_eq(wd.max_shapes, SN_DEFAULT_MAX_SHAPES);
  ck_assert_int_eq(wd.max_particles, SN_DEFAULT_MAX_PARTICLES);
  ck_assert_int_eq(wd.max_soft_bodies, SN_DEFAULT_MAX_SOFT_BODIES);
  ck_assert_int_eq(wd.max_constraints, SN_DEFAULT_MAX_CONSTRAINTS);
  ck_assert_int_eq(wd.max_contacts, SN_DEFAULT_MAX_CONTACTS);
  int32_t *fields[] = {&wd.max_bodies,      &wd.max_shapes,      &wd.max_particles,
                       &wd.max_soft_bodies, &wd.max_constraints, &wd.max_contacts};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
    int32_t keep = *fields[i];
    sn_result r = SN_OK;
    *fields[i] = -1;
    ck_assert_ptr_null(sn_create_world(&wd, &r));
    ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
    *fields[i] = SN_MAX_WORLD_LIMIT + 1;
    ck_assert_ptr_null(sn_create_world(&wd, &r));
    ck_assert_int_eq(r, SN_ERR_INVALID_ARGUMENT);
    *fields[i] = 0;
    sn_world *w = sn_create_world(&wd, &r);
    ck_assert_ptr_nonnull(w);
    sn_destroy_world(w);
    *fields[i] = keep;
  }
  /* sn_world_get_def gives them back */
  wd.max_bodies = 7;
  wd.max_contacts = 9;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_world_def out;
  ck_assert_int_eq(sn_world_get_def(w, &out), SN_OK);
  ck_assert_int_eq(out.max_bodies, 7);
  ck_assert_int_eq(out.max_contacts, 9);
  ck_assert_int_eq(out.max_shapes, SN_DEFAULT_MAX_SHAPES);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_body_and_shape_limits) {
  peak_counter c;
  sn_world_def wd = counted_def(&c);
  wd.max_bodies = 3;
  wd.max_shapes = 10;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id b[3];
  for (int i = 0; i < 3; ++i) b[i] = dynamic_body(w, (sn_vec2){(float)i * 3.0f, 0.0f});
  size_t live = c.live;
  sn_body_def bd = sn_default_body_def();
  ck_assert_int_eq(sn_create_body(w, &bd).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "SN_ERR_CAPACITY") != NULL &&
                    strstr(sn_world_last_error(w), "max_bodies") != NULL,
                "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_world_get_body_count(w), 3);
  ck_assert_uint_eq(c.live, live);
  /* room again once one is gone */
  ck_assert_int_eq(sn_destroy_body(w, b[2]), SN_OK);
  b[2] = dynamic_body(w, (sn_vec2){6.0f, 0.0f});
  /* shapes: 10 at most, chain segments included */
  for (int i = 0; i < 8; ++i) ck_assert(sn_shape_is_valid(w, add_box(w, b[i % 3], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  sn_vec2 pts[4] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {2.0f, 0.0f}, {3.0f, 0.5f}}; /* one segment */
  sn_vec2 loop[3] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}};              /* three segments */
  ck_assert_int_eq(sn_destroy_body(w, b[0]), SN_OK);
  sn_body_id ground = sn_create_body(w, &bd);
  int shapes = sn_world_get_counters(w).shape_count;
  ck_assert_int_eq(shapes, 5);
  ck_assert(sn_shape_is_valid(w, add_box(w, b[1], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  ck_assert(sn_shape_is_valid(w, add_box(w, b[1], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  ck_assert(sn_shape_is_valid(w, add_box(w, b[1], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  sn_chain_def cd = sn_default_chain_def();
  cd.points = loop;
  cd.count = 3;
  cd.is_loop = true;
  live = c.live;
  ck_assert_int_eq(sn_create_chain(w, ground, &cd).index1, 0); /* 8 + 3 > 10 */
  ck_assert_msg(strstr(sn_world_last_error(w), "max_shapes") != NULL, "%s", sn_world_last_error(w));
  ck_assert_uint_eq(c.live, live);
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, 8);
  cd.points = pts;
  cd.count = 4;
  cd.is_loop = false;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &cd))); /* 9 */
  ck_assert(sn_shape_is_valid(w, add_box(w, b[2], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  live = c.live;
  ck_assert_int_eq(add_box(w, b[2], 0.1f, (sn_vec2){0.0f, 0.0f}, 0.0f).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "SN_ERR_CAPACITY") != NULL, "%s", sn_world_last_error(w));
  sn_circle circle = {{0.0f, 0.0f}, 0.1f};
  sn_shape_def sd = sn_default_shape_def();
  ck_assert_int_eq(sn_create_circle_shape(w, b[2], &sd, &circle).index1, 0);
  ck_assert_uint_eq(c.live, live);
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, 10);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_destroy_world(w);
  ck_assert_uint_eq(c.live, 0);
}
END_TEST

/* A builder asked for more than the world has room for is refused before it
 * allocates anything (the world's peak memory does not move); exactly the
 * room it needs is enough: the precheck counts what the builder makes. */
static void check_builder_room(sn_world_def base, const char *what, sn_soft_body_id (*build)(sn_world *, const void *),
                               const void *def) {
  /* measure: what the builder makes in an unlimited world */
  sn_world *probe = sn_create_world(&base, NULL);
  ck_assert_msg(sn_soft_body_is_valid(probe, build(probe, def)), "%s: %s", what, sn_world_last_error(probe));
  const int32_t particles = probe->particle_count, constraints = probe->constraint_count;
  sn_destroy_world(probe);
  for (int limit = 0; limit < 2; ++limit) {
    for (int short_by = 1; short_by >= 0; --short_by) {
      sn_world_def wd = base;
      if (limit == 0)
        wd.max_particles = particles - short_by;
      else
        wd.max_constraints = constraints - short_by;
      sn_world *w = sn_create_world(&wd, NULL);
      const size_t peak = w->mem.peak_bytes;
      sn_soft_body_id s = build(w, def);
      if (short_by == 0) {
        ck_assert_msg(sn_soft_body_is_valid(w, s), "%s with exact room: %s", what, sn_world_last_error(w));
        ck_assert_int_eq(w->particle_count, particles);
        ck_assert_int_eq(w->constraint_count, constraints);
      } else {
        ck_assert_int_eq(s.index1, 0);
        const char *msg = sn_world_last_error(w);
        ck_assert_msg(strstr(msg, "SN_ERR_CAPACITY") != NULL &&
                          strstr(msg, limit == 0 ? "max_particles" : "max_constraints") != NULL,
                      "%s: %s", what, msg);
        ck_assert_uint_eq(w->mem.peak_bytes, peak); /* nothing was allocated */
        ck_assert_int_eq(w->particle_count + w->constraint_count + w->soft_count, 0);
      }
      sn_destroy_world(w);
    }
  }
}

static sn_soft_body_id build_rope(sn_world *w, const void *d) { return sn_create_rope(w, d); }
static sn_soft_body_id build_cloth(sn_world *w, const void *d) { return sn_create_cloth(w, d); }
static sn_soft_body_id build_ring(sn_world *w, const void *d) { return sn_create_ring(w, d); }
static sn_soft_body_id build_lattice(sn_world *w, const void *d) { return sn_create_lattice(w, d); }

START_TEST(test_soft_limits) {
  sn_registry *reg = ss_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  wd.max_soft_bodies = 2;
  wd.max_particles = 5;
  wd.max_constraints = 2;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_soft_body_id s = ss_soft(w);
  sn_particle_id p[5];
  for (int i = 0; i < 5; ++i) p[i] = ss_particle(w, s, (sn_vec2){(float)i, 0.0f}, 1.0f);
  sn_particle_def pd = sn_default_particle_def();
  ck_assert_int_eq(sn_create_particle(w, s, &pd).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "max_particles") != NULL, "%s", sn_world_last_error(w));
  ss_soft(w);
  sn_soft_body_def sd = sn_default_soft_body_def();
  ck_assert_int_eq(sn_create_soft_body(w, &sd).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "max_soft_bodies") != NULL, "%s", sn_world_last_error(w));
  ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p, 2, NULL, 0, 0.0f);
  ss_constraint(w, "xpbd_distance", SN_NULL_BODY, p + 2, 2, NULL, 0, 0.0f);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "xpbd_distance";
  cd.particles = p + 3;
  cd.particle_count = 2;
  ck_assert_int_eq(sn_create_constraint(w, &cd).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "max_constraints") != NULL, "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_world_get_constraint_count(w), 2);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_destroy_world(w);

  /* every builder's precheck is exact */
  sn_world_def base = sn_default_world_def();
  base.registry = reg;
  sn_rope_def rope = sn_default_rope_def();
  rope.count = 30;
  rope.pin_start = rope.pin_end = true;
  rope.material.bend_compliance = 0.0f;
  check_builder_room(base, "rope", build_rope, &rope);
  sn_cloth_def cloth = sn_default_cloth_def();
  cloth.columns = 9;
  cloth.rows = 7;
  cloth.pins = SN_PIN_TOP_ROW | SN_PIN_BOTTOM_RIGHT;
  cloth.material.shear_compliance = 0.0f;
  cloth.material.bend_compliance = 0.0f;
  check_builder_room(base, "cloth", build_cloth, &cloth);
  cloth.pins = SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT | SN_PIN_BOTTOM_LEFT;
  cloth.material.bend_compliance = -1.0f;
  check_builder_room(base, "cloth with three pins", build_cloth, &cloth);
  sn_ring_def ring = sn_default_ring_def();
  ring.count = 17;
  ring.material.bend_compliance = 0.0f;
  check_builder_room(base, "ring", build_ring, &ring);
  sn_lattice_def lattice = sn_default_lattice_def();
  lattice.columns = 6;
  lattice.rows = 4;
  check_builder_room(base, "lattice", build_lattice, &lattice);

  /* a 1024 x 1024 cloth pinned along its top row would make 2^20 particles
   * and a billion tethers: refused at once in a default world */
  w = sn_create_world(&base, NULL);
  size_t peak = w->mem.peak_bytes;
  cloth = sn_default_cloth_def();
  cloth.columns = cloth.rows = 1024;
  cloth.pins = SN_PIN_TOP_ROW;
  ck_assert_int_eq(sn_create_cloth(w, &cloth).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "max_particles") != NULL, "%s", sn_world_last_error(w));
  ck_assert_uint_eq(w->mem.peak_bytes, peak);
  cloth.columns = cloth.rows = 256; /* 65536 particles fit; 256 x 65280 tethers do not */
  ck_assert_int_eq(sn_create_cloth(w, &cloth).index1, 0);
  ck_assert_msg(strstr(sn_world_last_error(w), "max_constraints") != NULL, "%s", sn_world_last_error(w));
  ck_assert_uint_eq(w->mem.peak_bytes, peak);
  sn_destroy_world(w);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Contacts                                                                  */

/* 3000 boxes created on one point would make 4.5 million contacts; with
 * max_contacts 3000 the steps make at most 3000, memory stays small, and
 * the counter says searches were cut short. */
START_TEST(test_pile_on_one_point) {
  peak_counter c;
  sn_world_def wd = counted_def(&c);
  wd.max_contacts = 3000;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  const int32_t n = 3000;
  for (int32_t i = 0; i < n; ++i)
    ck_assert(
        sn_shape_is_valid(w, add_box(w, dynamic_body(w, (sn_vec2){0.0f, 0.0f}), 0.5f, (sn_vec2){0.0f, 0.0f}, 0.0f)));
  for (int k = 0; k < 3; ++k) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    sn_world_counters wc = sn_world_get_counters(w);
    ck_assert_int_le(wc.contact_count, 3000);
    ck_assert_int_gt(wc.contact_count, 0);
    ck_assert_int_gt(wc.contact_limit_hits, 0);
    ck_assert_int_le(wc.contact_limit_hits, n);
  }
  /* 3000 bodies, 3000 shapes and 3000 contacts with the solver's scratch:
   * a few megabytes (4.5 million contacts would be over a gigabyte) */
  ck_assert_uint_lt(c.peak, 64u << 20);
  sn_destroy_world(w);
  ck_assert_uint_eq(c.live, 0);
}
END_TEST

static int32_t begin_events_between(sn_world *w, sn_shape_id a, sn_shape_id b) {
  sn_contact_events e = sn_world_get_contact_events(w);
  int32_t n = 0;
  for (int32_t i = 0; i < e.begin_count; ++i) {
    sn_shape_id x = e.begin_events[i].shape_a, y = e.begin_events[i].shape_b;
    if ((x.index1 == a.index1 && y.index1 == b.index1) || (x.index1 == b.index1 && y.index1 == a.index1)) n++;
  }
  return n;
}

/* Room for one contact among three overlapping boxes: the other pairs wait;
 * once the contact ends (a box destroyed) a waiting pair gets its contact in
 * the next step without anything having moved out of its fat box. */
START_TEST(test_deferred_pairs_found_later) {
  sn_world_def wd = sn_default_world_def();
  wd.max_contacts = 1;
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id a = dynamic_body(w, (sn_vec2){0.0f, 0.0f}), b = dynamic_body(w, (sn_vec2){0.1f, 0.0f}),
             d = dynamic_body(w, (sn_vec2){-0.1f, 0.0f});
  sn_shape_id sa = add_box(w, a, 0.5f, (sn_vec2){0.0f, 0.0f}, 0.0f);
  sn_shape_id sb = add_box(w, b, 0.5f, (sn_vec2){0.0f, 0.0f}, 0.0f);
  sn_shape_id sd = add_box(w, d, 0.5f, (sn_vec2){0.0f, 0.0f}, 0.0f);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_get_counters(w).contact_count, 1);
  ck_assert_int_eq(begin_events_between(w, sa, sb), 1);
  ck_assert_int_gt(sn_world_get_counters(w).contact_limit_hits, 0);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_get_counters(w).contact_count, 1);
  ck_assert_int_gt(sn_world_get_counters(w).contact_limit_hits, 0); /* still waiting */
  ck_assert_int_eq(sn_destroy_body(w, b), SN_OK);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_get_counters(w).contact_count, 1);
  ck_assert_int_eq(begin_events_between(w, sa, sd), 1);
  ck_assert_int_eq(sn_world_get_counters(w).contact_limit_hits, 0);
  sn_destroy_world(w);
}
END_TEST

/* Particles on one point: particle-particle and particle-shape candidates
 * stop at max_contacts each. */
START_TEST(test_particle_candidates_bounded) {
  peak_counter c;
  sn_world_def wd = counted_def(&c);
  wd.max_contacts = 100;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def gd = sn_default_body_def();
  add_box(w, sn_create_body(w, &gd), 2.0f, (sn_vec2){0.0f, -1.0f}, 0.0f);
  sn_soft_body_def sd = sn_default_soft_body_def();
  sd.self_collision = true;
  sn_soft_body_id s = sn_create_soft_body(w, &sd);
  for (int32_t i = 0; i < 400; ++i) {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){0.0f, 1.0f};
    pd.radius = 0.05f;
    ck_assert(sn_particle_is_valid(w, sn_create_particle(w, s, &pd)));
  }
  for (int k = 0; k < 40; ++k) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    ck_assert_int_le(w->particle_pairs.count, 100);
    ck_assert_int_le(w->particle_shape_pairs.count, 100);
    ck_assert_int_le(w->hash_pairs.capacity, 1024); /* 2 x 100 pairs of two ints, grown by doubling */
    if (k == 0) ck_assert_int_gt(sn_world_get_counters(w).contact_limit_hits, 0);
    for (int32_t i = 0; i < w->particles.count; ++i) {
      ck_assert(sn_vec2_is_finite(w->particles.data[i].x));
    }
  }
  sn_destroy_world(w);
  ck_assert_uint_eq(c.live, 0);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                 */

static uint8_t *save_world(sn_world *w, size_t *size) {
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, size), SN_OK);
  uint8_t *bytes = malloc(*size);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, *size, size), SN_OK);
  return bytes;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/// The snapshot with the payload of section `tag` replaced by `payload`,
/// its total size and checksum made valid again (a forger's snapshot).
static uint8_t *replace_section(const uint8_t *in, size_t size, const char *tag, const uint8_t *payload,
                                size_t payload_size, size_t *out_size) {
  size_t at = 40;
  while (memcmp(in + at, tag, 4) != 0) {
    at += 12 + (size_t)get_u64(in + at + 4);
    ck_assert_uint_lt(at, size - 8);
  }
  size_t old = (size_t)get_u64(in + at + 4), rest = size - (at + 12 + old);
  *out_size = at + 12 + payload_size + rest;
  uint8_t *out = malloc(*out_size);
  memcpy(out, in, at + 4);
  put_u64(out + at + 4, payload_size);
  memcpy(out + at + 12, payload, payload_size);
  memcpy(out + at + 12 + payload_size, in + at + 12 + old, rest);
  put_u64(out + 16, *out_size);
  uint64_t h = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, out, *out_size - 8);
  put_u64(out + *out_size - 8, h);
  return out;
}

/// A shapes section of n free slots on one free list (a world that made n
/// shapes and destroyed them all), or declaring `declared` slots.
static uint8_t *free_shape_slots(int32_t n, int32_t declared, size_t *size) {
  *size = 12 + (size_t)n * 7;
  uint8_t *p = calloc(*size, 1);
  put_u32(p, (uint32_t)declared);
  put_u32(p + 4, n > 0 ? 0u : 0xffffffffu);
  put_u32(p + 8, 0);
  for (int32_t i = 0; i < n; ++i) {
    uint8_t *slot = p + 12 + (size_t)i * 7;
    slot[0] = 0; /* free */
    slot[1] = 1; /* generation 1 */
    put_u32(slot + 3, i + 1 < n ? (uint32_t)(i + 1) : 0xffffffffu);
  }
  return p;
}

static sn_result load_counted(const uint8_t *bytes, size_t size, sn_world_def wd, peak_counter *c, char *err,
                              size_t err_capacity) {
  memset(c, 0, sizeof *c);
  wd.allocator.alloc = peak_alloc;
  wd.allocator.free = peak_free;
  wd.allocator.context = c;
  sn_world *out = NULL;
  sn_result r = sn_world_load_snapshot(bytes, size, &wd, &out, err, err_capacity);
  if (out != NULL) {
    ck_assert_int_eq(sn_world_step(out, DT), SN_OK);
    sn_destroy_world(out);
  }
  ck_assert_uint_eq(c->live, 0);
  return r;
}

START_TEST(test_forged_snapshot_counts) {
  sn_world_def wd = sn_default_world_def();
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_def bd = sn_default_body_def();
  sn_create_body(w, &bd); /* a body without shapes */
  size_t size;
  uint8_t *base = save_world(w, &size);
  sn_destroy_world(w);
  char err[256];
  peak_counter c;

  /* 100000 free shape slots (700 kB) against a def allowing 1000 shapes:
   * refused before the 25 MB of shape slots are allocated */
  size_t payload_size, forged_size;
  uint8_t *payload = free_shape_slots(100000, 100000, &payload_size);
  uint8_t *forged = replace_section(base, size, "SHAP", payload, payload_size, &forged_size);
  sn_world_def small = sn_default_world_def();
  small.max_shapes = 1000;
  ck_assert_int_eq(load_counted(forged, forged_size, small, &c, err, sizeof err), SN_ERR_CAPACITY);
  ck_assert_msg(strstr(err, "max_shapes") != NULL && strstr(err, "shapes") != NULL, "%s", err);
  ck_assert_uint_lt(c.peak, forged_size);
  /* the same bytes under the default limits: a valid world (a world that
   * made 100000 shapes and destroyed them), its memory about 38 bytes per
   * byte of snapshot at most */
  ck_assert_int_eq(load_counted(forged, forged_size, wd, &c, err, sizeof err), SN_OK);
  ck_assert_uint_le(c.peak, 42 * forged_size); /* a free slot: 7 bytes saved, sizeof(sn_shape) = 264 in memory */
  free(forged);
  free(payload);

  /* a count larger than the bytes that follow could describe (2^30 slots
   * in 7 kB): refused as damaged, nothing allocated for it */
  payload = free_shape_slots(1000, 1 << 30, &payload_size);
  forged = replace_section(base, size, "SHAP", payload, payload_size, &forged_size);
  ck_assert_int_eq(load_counted(forged, forged_size, wd, &c, err, sizeof err), SN_ERR_SNAPSHOT_CORRUPT);
  ck_assert_uint_lt(c.peak, 64u * 1024u);
  free(forged);
  free(payload);

  /* 2.4 million free shape slots (16 MB) under the default limits (2^20
   * shapes): refused at once, not after allocating 600 MB */
  payload = free_shape_slots(2400000, 2400000, &payload_size);
  forged = replace_section(base, size, "SHAP", payload, payload_size, &forged_size);
  ck_assert_uint_gt(forged_size, 16u * 1000u * 1000u);
  ck_assert_int_eq(load_counted(forged, forged_size, wd, &c, err, sizeof err), SN_ERR_CAPACITY);
  ck_assert_uint_lt(c.peak, forged_size / 16);
  free(forged);
  free(payload);
  free(base);
}
END_TEST

/* The loader's def sets the limits: a world saved with more objects than
 * they allow is refused, the same bytes load under larger ones. */
START_TEST(test_snapshot_limits_from_def) {
  sn_registry *reg = ss_registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = reg;
  sn_world *w = sn_create_world(&wd, NULL);
  for (int i = 0; i < 10; ++i) add_box(w, dynamic_body(w, (sn_vec2){0.0f, (float)i * 0.9f}), 0.5f, (sn_vec2){0, 0}, 0);
  sn_rope_def rope = sn_default_rope_def();
  rope.count = 12;
  rope.start = (sn_vec2){5.0f, 0.0f};
  rope.end = (sn_vec2){9.0f, 0.0f};
  ck_assert(sn_soft_body_is_valid(w, sn_create_rope(w, &rope)));
  for (int k = 0; k < 5; ++k) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  size_t size;
  uint8_t *bytes = save_world(w, &size);
  const int32_t contact_slots = w->contacts.count;
  ck_assert_int_gt(contact_slots, 0);
  sn_destroy_world(w);
  char err[256];
  peak_counter c;
  struct {
    int32_t *field;
    int32_t need;
    const char *name;
  } cases[] = {{&wd.max_bodies, 10, "max_bodies"},
               {&wd.max_shapes, 10, "max_shapes"},
               {&wd.max_contacts, contact_slots, "max_contacts"},
               {&wd.max_particles, 12, "max_particles"},
               {&wd.max_soft_bodies, 1, "max_soft_bodies"},
               {&wd.max_constraints, 11, "max_constraints"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int32_t keep = *cases[i].field;
    *cases[i].field = cases[i].need - 1;
    ck_assert_int_eq(load_counted(bytes, size, wd, &c, err, sizeof err), SN_ERR_CAPACITY);
    ck_assert_msg(strstr(err, cases[i].name) != NULL, "%s: %s", cases[i].name, err);
    *cases[i].field = cases[i].need;
    ck_assert_msg(load_counted(bytes, size, wd, &c, err, sizeof err) == SN_OK, "%s: %s", cases[i].name, err);
    *cases[i].field = keep;
  }
  /* limits outside their range in the loader's def */
  wd.max_particles = -1;
  ck_assert_int_eq(load_counted(bytes, size, wd, &c, err, sizeof err), SN_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "limit") != NULL, "%s", err);
  free(bytes);
  sn_destroy_registry(reg);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Scene files                                                               */

static const char *const plugin_dirs[] = {SN_PLUGIN_DIR};

static sn_scene_status load_scene(const char *text, const sn_world_def *limits, peak_counter *c, sn_scene_error *err) {
  memset(c, 0, sizeof *c);
  sn_scene_load_options o = sn_default_scene_load_options();
  o.plugin_dirs = plugin_dirs;
  o.plugin_dir_count = 1;
  o.search_default_dirs = false;
  o.allocator.alloc = peak_alloc;
  o.allocator.free = peak_free;
  o.allocator.context = c;
  o.limits = limits;
  sn_loaded_scene scene;
  sn_scene_status st = sn_scene_load_string(text, strlen(text), "limits.json", &o, &scene, err);
  sn_scene_unload(&scene);
  ck_assert_uint_eq(c->live, 0);
  return st;
}

/* 90 bytes asking for a 1024 x 1024 lattice (2^20 particles, 5 million
 * constraints, gigabytes): refused while the file is checked. With room for
 * the particles the lattice builder refuses its constraints before making
 * anything. */
START_TEST(test_scene_lattice_refused) {
  const char *text =
      "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"lattice\", \"columns\": 1024, \"rows\": 1024}]}";
  ck_assert_uint_le(strlen(text), 90);
  peak_counter c;
  sn_scene_error err;
  ck_assert_int_eq(load_scene(text, NULL, &c, &err), SN_SCENE_ERR_ENGINE);
  ck_assert_int_eq(err.engine_result, SN_ERR_CAPACITY);
  ck_assert_msg(strstr(err.message, "max_particles") != NULL && strstr(err.message, "soft_bodies[0]") != NULL, "%s",
                err.message);
  ck_assert_uint_eq(c.peak, 0); /* no world was made */
  sn_world_def limits = sn_default_world_def();
  limits.max_particles = 1 << 20;
  ck_assert_int_eq(load_scene(text, &limits, &c, &err), SN_SCENE_ERR_ENGINE);
  ck_assert_int_eq(err.engine_result, SN_ERR_CAPACITY);
  ck_assert_msg(strstr(err.message, "max_constraints") != NULL, "%s", err.message);
  ck_assert_uint_lt(c.peak, 1u << 20); /* the world and its registry, no particle */
  /* a lattice that fits is built */
  const char *fits = "{\"sinew_scene\": 1, \"soft_bodies\": [{\"kind\": \"lattice\", \"columns\": 64, \"rows\": 64}]}";
  ck_assert_msg(load_scene(fits, NULL, &c, &err) == SN_SCENE_OK, "%s", err.message);
}
END_TEST

/* Bodies, shapes, soft bodies and particles past the limits of the load
 * options are refused at the array or entry that passes them, before the
 * world is built; a builder's constraints when the builder runs. */
START_TEST(test_scene_counts_refused) {
  const char *text =
      "{\"sinew_scene\": 1, \"bodies\": [{\"type\": \"dynamic\", \"shapes\": [{\"circle\": 0.5}]},"
      " {\"type\": \"dynamic\", \"position\": [0, 3], \"shapes\": [{\"circle\": 0.5}, {\"circle\": "
      "0.2}]}], \"soft_bodies\": [{\"kind\": \"rope\", \"count\": 6, \"start\": [5, 0], \"end\": [7, 0]},"
      " {\"kind\": \"rope\", \"count\": 5, \"start\": [0, 5], \"end\": [2, 5]}]}";
  peak_counter c;
  sn_scene_error err;
  ck_assert_msg(load_scene(text, NULL, &c, &err) == SN_SCENE_OK, "%s", err.message);
  sn_world_def limits = sn_default_world_def();
  struct {
    int32_t *field;
    int32_t need;
    const char *name, *where;
  } cases[] = {{&limits.max_bodies, 2, "max_bodies", "bodies"},
               {&limits.max_shapes, 3, "max_shapes", "bodies"},
               {&limits.max_soft_bodies, 2, "max_soft_bodies", "soft_bodies"},
               {&limits.max_particles, 11, "max_particles", "soft_bodies[1]"},
               {&limits.max_constraints, 9, "max_constraints", "soft_bodies[1]"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int32_t keep = *cases[i].field;
    *cases[i].field = cases[i].need - 1;
    ck_assert_int_eq(load_scene(text, &limits, &c, &err), SN_SCENE_ERR_ENGINE);
    ck_assert_int_eq(err.engine_result, SN_ERR_CAPACITY);
    ck_assert_msg(strstr(err.message, cases[i].name) != NULL && strstr(err.message, cases[i].where) != NULL, "%s",
                  err.message);
    *cases[i].field = cases[i].need;
    ck_assert_msg(load_scene(text, &limits, &c, &err) == SN_SCENE_OK, "%s: %s", cases[i].name, err.message);
    *cases[i].field = keep;
  }
  /* the limits def must be one */
  limits.cookie = 0;
  ck_assert_int_eq(load_scene(text, &limits, &c, &err), SN_SCENE_ERR_ARGUMENT);
  limits = sn_default_world_def();
  limits.max_contacts = -2;
  ck_assert_int_eq(load_scene(text, &limits, &c, &err), SN_SCENE_ERR_ARGUMENT);
  ck_assert_msg(strstr(err.message, "limit") != NULL, "%s", err.message);
}
END_TEST

/* ------------------------------------------------------------------------ */

Suite *sn_test_suite(void) {
  Suite *s = suite_create("limits");
  TCase *shapes = tcase_create("shapes");
  tcase_set_timeout(shapes, 300);
  tcase_add_test(shapes, test_shape_add_constant_work);
  tcase_add_test(shapes, test_shape_add_same_bits);
  suite_add_tcase(s, shapes);
  TCase *limits = tcase_create("limits");
  tcase_set_timeout(limits, 300);
  tcase_add_test(limits, test_limits_in_def);
  tcase_add_test(limits, test_body_and_shape_limits);
  tcase_add_test(limits, test_soft_limits);
  tcase_add_test(limits, test_pile_on_one_point);
  tcase_add_test(limits, test_deferred_pairs_found_later);
  tcase_add_test(limits, test_particle_candidates_bounded);
  suite_add_tcase(s, limits);
  TCase *input = tcase_create("input");
  tcase_set_timeout(input, 300);
  tcase_add_test(input, test_forged_snapshot_counts);
  tcase_add_test(input, test_snapshot_limits_from_def);
  tcase_add_test(input, test_scene_lattice_refused);
  tcase_add_test(input, test_scene_counts_refused);
  suite_add_tcase(s, input);
  return s;
}
