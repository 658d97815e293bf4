/* World queries: the query filter, ray casts steered by their callback
 * (ignore, stop, clip, continue), the closest and the sorted hits, tight
 * AABB and exact shape overlaps, shape casts against closed forms, the
 * particle queries, and every refusal (NaN, out of range, degenerate
 * proxies, NULL, during a step), each naming the call and changing nothing. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#include "world/world.h" /* w->stepping: the flag sn_world_step holds */

static sn_world *make_world(void) {
  sn_world_def def = sn_default_world_def();
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

static sn_shape_id static_box(sn_world *w, sn_vec2 c, float hx, float hy, uint64_t category, uint64_t mask) {
  sn_body_def bd = sn_default_body_def();
  bd.position = c;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(hx, hy, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.category_bits = category;
  sd.mask_bits = mask;
  sn_shape_id s = sn_create_polygon_shape(w, b, &sd, &box);
  ck_assert(sn_shape_is_valid(w, s));
  return s;
}

static sn_shape_id dynamic_circle(sn_world *w, sn_vec2 c, float r) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = c;
  sn_body_id b = sn_create_body(w, &bd);
  sn_shape_def sd = sn_default_shape_def();
  sn_circle circle = {{0.0f, 0.0f}, r};
  sn_shape_id s = sn_create_circle_shape(w, b, &sd, &circle);
  ck_assert(sn_shape_is_valid(w, s));
  return s;
}

static bool same_shape(sn_shape_id a, sn_shape_id b) {
  return a.index1 == b.index1 && a.generation == b.generation && a.world_tag == b.world_tag;
}

/* Three boxes on the x axis at x = 2, 4, 6 (half width 0.5) in categories
 * 1, 2, 4, and a circle at x = 8 (category 1). */
typedef struct row {
  sn_world *w;
  sn_shape_id s[4];
} row;

static row make_row(void) {
  row r;
  r.w = make_world();
  r.s[0] = static_box(r.w, (sn_vec2){2.0f, 0.0f}, 0.5f, 0.5f, 1u, UINT64_MAX);
  r.s[1] = static_box(r.w, (sn_vec2){4.0f, 0.0f}, 0.5f, 0.5f, 2u, UINT64_MAX);
  r.s[2] = static_box(r.w, (sn_vec2){6.0f, 0.0f}, 0.5f, 0.5f, 4u, UINT64_MAX);
  r.s[3] = dynamic_circle(r.w, (sn_vec2){8.0f, 0.0f}, 0.5f);
  return r;
}

/* ------------------------------------------------------------------ rays */

typedef struct hits {
  sn_shape_id shapes[8];
  float fractions[8];
  int count;
  float answer; ///< what the callback returns (< -1.5: return the fraction)
} hits;

static float record_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  (void)point;
  (void)normal;
  hits *h = context;
  ck_assert_int_lt(h->count, 8);
  h->shapes[h->count] = shape;
  h->fractions[h->count] = fraction;
  h->count++;
  return h->answer < -1.5f ? fraction : h->answer;
}

START_TEST(test_ray_callback_steering) {
  row r = make_row();
  sn_query_filter all = {UINT64_MAX, UINT64_MAX};
  sn_vec2 origin = {0.0f, 0.0f}, translation = {10.0f, 0.0f};
  // continue (1): every shape, at x = 1.5, 3.5, 5.5, 7.5 -> fractions 0.15 ... 0.75
  hits h = {.answer = 1.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, all, record_fcn, &h), SN_OK);
  ck_assert_int_eq(h.count, 4);
  for (int i = 0; i < h.count; ++i) {
    int k = -1;
    for (int j = 0; j < 4; ++j)
      if (same_shape(h.shapes[i], r.s[j])) k = j;
    ck_assert_int_ge(k, 0);
    ck_assert_float_eq_tol(h.fractions[i], 0.15f + 0.2f * (float)k, 1e-6f);
  }
  // ignore (-1): the same hits, nothing clipped
  h = (hits){.answer = -1.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, all, record_fcn, &h), SN_OK);
  ck_assert_int_eq(h.count, 4);
  // stop (0): one hit only
  h = (hits){.answer = 0.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, all, record_fcn, &h), SN_OK);
  ck_assert_int_eq(h.count, 1);
  // clip (fraction): each later hit is closer, the last is the closest
  h = (hits){.answer = -2.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, all, record_fcn, &h), SN_OK);
  ck_assert_int_ge(h.count, 1);
  for (int i = 1; i < h.count; ++i) ck_assert_float_lt(h.fractions[i], h.fractions[i - 1]);
  ck_assert_float_eq_tol(h.fractions[h.count - 1], 0.15f, 1e-6f);
  // clip to 0.5: only hits before x = 5 can follow
  h = (hits){.answer = 0.5f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, all, record_fcn, &h), SN_OK);
  for (int i = 1; i < h.count; ++i) ck_assert_float_le(h.fractions[i], 0.5f);
  sn_destroy_world(r.w);
}
END_TEST

START_TEST(test_query_filter) {
  row r = make_row();
  sn_vec2 origin = {0.0f, 0.0f}, translation = {10.0f, 0.0f};
  // the default filter {1, all} reports all four (their masks hold bit 1)
  hits h = {.answer = 1.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, sn_default_query_filter(), record_fcn, &h), SN_OK);
  ck_assert_int_eq(h.count, 4);
  // mask 2 | 4: the middle boxes only; closest is the one at x = 4 (0.35)
  sn_query_filter f = {1u, 2u | 4u};
  h = (hits){.answer = 1.0f};
  ck_assert_int_eq(sn_world_cast_ray(r.w, origin, translation, f, record_fcn, &h), SN_OK);
  ck_assert_int_eq(h.count, 2);
  sn_ray_result rr;
  ck_assert_int_eq(sn_world_cast_ray_closest(r.w, origin, translation, f, &rr), SN_OK);
  ck_assert(rr.hit);
  ck_assert(same_shape(rr.shape, r.s[1]));
  ck_assert_float_eq_tol(rr.fraction, 0.35f, 1e-6f);
  ck_assert_float_eq_tol(rr.point.x, 3.5f, 1e-5f);
  ck_assert_float_eq_tol(rr.normal.x, -1.0f, 1e-6f);
  // a shape whose mask leaves out the query's category is not reported
  sn_shape_id shy = static_box(r.w, (sn_vec2){1.0f, 0.0f}, 0.2f, 0.2f, 1u, ~(uint64_t)8u);
  sn_query_filter q8 = {8u, UINT64_MAX};
  ck_assert_int_eq(sn_world_cast_ray_closest(r.w, origin, translation, q8, &rr), SN_OK);
  ck_assert(rr.hit);
  ck_assert(!same_shape(rr.shape, shy));
  ck_assert(same_shape(rr.shape, r.s[0]));
  ck_assert_int_eq(sn_world_cast_ray_closest(r.w, origin, translation, sn_default_query_filter(), &rr), SN_OK);
  ck_assert(same_shape(rr.shape, shy));
  // nothing matches: no hit
  sn_query_filter none = {1u, 16u};
  ck_assert_int_eq(sn_world_cast_ray_closest(r.w, origin, translation, none, &rr), SN_OK);
  ck_assert(!rr.hit);
  sn_destroy_world(r.w);
}
END_TEST

START_TEST(test_ray_all_sorted) {
  row r = make_row();
  sn_ray_result out[8];
  int32_t n = -1;
  sn_query_filter all = {UINT64_MAX, UINT64_MAX};
  ck_assert_int_eq(sn_world_cast_ray_all(r.w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, all, out, 8, &n), SN_OK);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < 4; ++i) {
    ck_assert(out[i].hit);
    ck_assert(same_shape(out[i].shape, r.s[i]));
    ck_assert_float_eq_tol(out[i].fraction, 0.15f + 0.2f * (float)i, 1e-6f);
  }
  // from the far end: the same shapes in the other order
  ck_assert_int_eq(sn_world_cast_ray_all(r.w, (sn_vec2){10, 0}, (sn_vec2){-10, 0}, all, out, 8, &n), SN_OK);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < 4; ++i) ck_assert(same_shape(out[i].shape, r.s[3 - i]));
  // capacity 2: the two closest
  ck_assert_int_eq(sn_world_cast_ray_all(r.w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, all, out, 2, &n), SN_OK);
  ck_assert_int_eq(n, 2);
  ck_assert(same_shape(out[0].shape, r.s[0]));
  ck_assert(same_shape(out[1].shape, r.s[1]));
  // capacity 0 needs no array
  ck_assert_int_eq(sn_world_cast_ray_all(r.w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, all, NULL, 0, &n), SN_OK);
  ck_assert_int_eq(n, 0);
  sn_destroy_world(r.w);
}
END_TEST

/* --------------------------------------------------------------- overlaps */

static bool count_fcn(sn_shape_id shape, void *context) {
  (void)shape;
  ++*(int *)context;
  return true;
}

static bool first_fcn(sn_shape_id shape, void *context) {
  (void)shape;
  ++*(int *)context;
  return false;
}

START_TEST(test_overlap_aabb_tight) {
  sn_world *w = make_world();
  dynamic_circle(w, (sn_vec2){0.0f, 0.0f}, 0.5f);
  // the tree holds the circle's box enlarged by a margin; a box beyond
  // x = 0.5 but within the margin does not touch the shape's own box
  int n = 0;
  sn_aabb near = {{0.55f, -0.01f}, {0.58f, 0.01f}};
  ck_assert_int_eq(sn_world_overlap_aabb(w, near, sn_default_query_filter(), count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 0);
  sn_aabb touching = {{0.45f, -0.01f}, {0.58f, 0.01f}};
  ck_assert_int_eq(sn_world_overlap_aabb(w, touching, sn_default_query_filter(), count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 1);
  // filtered out
  n = 0;
  sn_query_filter f = {1u, 2u};
  ck_assert_int_eq(sn_world_overlap_aabb(w, touching, f, count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 0);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_overlap_shape_exact) {
  row r = make_row();
  sn_query_filter all = {UINT64_MAX, UINT64_MAX};
  sn_vec2 zero = {0.0f, 0.0f};
  sn_shape_proxy p;
  // a circle r 0.5 off the corner (2.5, 0.5) of the first box by
  // 0.4 sqrt 2 = 0.566 > 0.5: the boxes overlap, the shapes do not
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.5f, (sn_transform){{2.9f, 0.9f}, {1, 0}}, &p), SN_OK);
  int n = 0;
  ck_assert_int_eq(sn_world_overlap_shape(r.w, &p, all, count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 0);
  // 0.3 sqrt 2 = 0.424 < 0.5: overlapping
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.5f, (sn_transform){{2.8f, 0.8f}, {1, 0}}, &p), SN_OK);
  ck_assert_int_eq(sn_world_overlap_shape(r.w, &p, all, count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 1);
  // a long thin box across the whole row overlaps all four; a callback
  // that returns false stops at the first
  sn_vec2 bar[4] = {{0.0f, -0.1f}, {9.0f, -0.1f}, {9.0f, 0.1f}, {0.0f, 0.1f}};
  ck_assert_int_eq(sn_make_proxy(bar, 4, 0.0f, &p), SN_OK);
  n = 0;
  ck_assert_int_eq(sn_world_overlap_shape(r.w, &p, all, count_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 4);
  n = 0;
  ck_assert_int_eq(sn_world_overlap_shape(r.w, &p, all, first_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 1);
  sn_destroy_world(r.w);
}
END_TEST

/* ------------------------------------------------------------ shape casts */

typedef struct closest {
  sn_shape_id shape;
  sn_vec2 point, normal;
  float fraction;
  int calls;
} closest;

static float closest_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  closest *c = context;
  c->shape = shape;
  c->point = point;
  c->normal = normal;
  c->fraction = fraction;
  c->calls++;
  return fraction;
}

START_TEST(test_cast_shape_closed_forms) {
  sn_world *w = make_world();
  // a wall: box of half width 1 centred at (5, 0): its face at x = 4
  sn_shape_id wall = static_box(w, (sn_vec2){5.0f, 0.0f}, 1.0f, 3.0f, 1u, UINT64_MAX);
  sn_query_filter f = sn_default_query_filter();
  sn_vec2 zero = {0.0f, 0.0f};
  sn_shape_proxy p;
  // circle r = 0.3 at (0, 0.5) cast by (8, 0): the face is d = 4 away, so
  // fraction = (d - r) / |t| = 3.7 / 8, within 1e-4 m
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.3f, (sn_transform){{0.0f, 0.5f}, {1, 0}}, &p), SN_OK);
  closest c = {0};
  ck_assert_int_eq(sn_world_cast_shape(w, &p, (sn_vec2){8.0f, 0.0f}, f, closest_fcn, &c), SN_OK);
  ck_assert_int_eq(c.calls, 1);
  ck_assert(same_shape(c.shape, wall));
  ck_assert_float_le(fabsf(c.fraction * 8.0f - 3.7f), 1e-4f);
  ck_assert_float_eq_tol(c.point.x, 4.0f, 1e-4f);
  ck_assert_float_eq_tol(c.normal.x, -1.0f, 1e-4f);
  // capsule (0, -1)-(0, 1) r 0.25 cast by (6, 0): (4 - 0.25) / 6
  sn_vec2 seg[2] = {{0.0f, -1.0f}, {0.0f, 1.0f}};
  ck_assert_int_eq(sn_make_proxy(seg, 2, 0.25f, &p), SN_OK);
  c = (closest){0};
  ck_assert_int_eq(sn_world_cast_shape(w, &p, (sn_vec2){6.0f, 0.0f}, f, closest_fcn, &c), SN_OK);
  ck_assert_float_le(fabsf(c.fraction * 6.0f - 3.75f), 1e-4f);
  // a box proxy 0.5 x 0.5 (half) at the origin turned 45 degrees: its
  // corner reaches x = 0.5 sqrt 2; cast by (5, 0): (4 - 0.5 sqrt 2) / 5
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  ck_assert_int_eq(sn_make_offset_proxy(box.vertices, 4, 0.0f, (sn_transform){{0, 0}, sn_make_rot(0.785398163f)}, &p),
                   SN_OK);
  c = (closest){0};
  ck_assert_int_eq(sn_world_cast_shape(w, &p, (sn_vec2){5.0f, 0.0f}, f, closest_fcn, &c), SN_OK);
  ck_assert_float_le(fabsf(c.fraction * 5.0f - (4.0f - 0.5f * sqrtf(2.0f))), 1e-4f);
  // overlapping at the start: fraction 0
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.5f, (sn_transform){{4.2f, 0.0f}, {1, 0}}, &p), SN_OK);
  c = (closest){0};
  ck_assert_int_eq(sn_world_cast_shape(w, &p, (sn_vec2){-3.0f, 0.0f}, f, closest_fcn, &c), SN_OK);
  ck_assert_int_eq(c.calls, 1);
  ck_assert_float_eq(c.fraction, 0.0f);
  // missing: no call
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.5f, (sn_transform){{0.0f, 5.0f}, {1, 0}}, &p), SN_OK);
  c = (closest){0};
  ck_assert_int_eq(sn_world_cast_shape(w, &p, (sn_vec2){8.0f, 0.0f}, f, closest_fcn, &c), SN_OK);
  ck_assert_int_eq(c.calls, 0);
  sn_destroy_world(w);
}
END_TEST

/* -------------------------------------------------------------- particles */

static sn_particle_id add_particle(sn_world *w, sn_soft_body_id soft, sn_vec2 p, float radius) {
  sn_particle_def pd = sn_default_particle_def();
  pd.position = p;
  pd.radius = radius;
  sn_particle_id id = sn_create_particle(w, soft, &pd);
  ck_assert(sn_particle_is_valid(w, id));
  return id;
}

static bool count_particle_fcn(sn_particle_id particle, void *context) {
  (void)particle;
  ++*(int *)context;
  return true;
}

typedef struct particle_hits {
  sn_particle_id particle;
  float fraction;
  sn_vec2 normal;
  int calls;
} particle_hits;

static float particle_closest_fcn(sn_particle_id particle, sn_vec2 point, sn_vec2 normal, float fraction,
                                  void *context) {
  (void)point;
  particle_hits *h = context;
  h->particle = particle;
  h->fraction = fraction;
  h->normal = normal;
  h->calls++;
  return fraction;
}

typedef struct contacts {
  sn_particle_contact c[4];
  int count;
} contacts;

static bool contact_fcn(const sn_particle_contact *contact, void *context) {
  contacts *cs = context;
  ck_assert_int_lt(cs->count, 4);
  cs->c[cs->count++] = *contact;
  return true;
}

START_TEST(test_particle_queries) {
  sn_world *w = make_world();
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sd);
  sn_particle_id a = add_particle(w, soft, (sn_vec2){5.0f, 0.0f}, 0.1f);
  sn_particle_id b = add_particle(w, soft, (sn_vec2){7.0f, 0.0f}, 0.1f);
  add_particle(w, soft, (sn_vec2){5.0f, 3.0f}, 0.0f); // radius 0: never reported
  // boxes: the disc of a reaches x = 4.9
  int n = 0;
  sn_aabb box = {{4.0f, -1.0f}, {4.95f, 1.0f}};
  ck_assert_int_eq(sn_world_overlap_particles_aabb(w, box, count_particle_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 1);
  n = 0;
  sn_aabb wide = {{-10.0f, -10.0f}, {10.0f, 10.0f}};
  ck_assert_int_eq(sn_world_overlap_particles_aabb(w, wide, count_particle_fcn, &n), SN_OK);
  ck_assert_int_eq(n, 2);
  // ray from the origin along +x 10 m meets a's disc at x = 4.9: 0.49
  particle_hits h = {0};
  ck_assert_int_eq(sn_world_cast_ray_particles(w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, particle_closest_fcn, &h), SN_OK);
  ck_assert_int_ge(h.calls, 1);
  ck_assert_int_eq(h.particle.index1, a.index1);
  ck_assert_float_eq_tol(h.fraction, 0.49f, 1e-6f);
  ck_assert_float_eq_tol(h.normal.x, -1.0f, 1e-6f);
  // from the other side b comes first: (10 - 7.1) / 10
  h = (particle_hits){0};
  ck_assert_int_eq(sn_world_cast_ray_particles(w, (sn_vec2){10, 0}, (sn_vec2){-10, 0}, particle_closest_fcn, &h),
                   SN_OK);
  ck_assert_int_eq(h.particle.index1, b.index1);
  ck_assert_float_eq_tol(h.fraction, 0.29f, 1e-6f);
  // a circle proxy r 0.5 at (5.5, 0): the gap to a's disc is
  // 0.5 - 0.5 - 0.1 = -0.1, normal from the proxy to a (-1, 0)
  sn_vec2 zero = {0.0f, 0.0f};
  sn_shape_proxy p;
  ck_assert_int_eq(sn_make_offset_proxy(&zero, 1, 0.5f, (sn_transform){{5.5f, 0.0f}, {1, 0}}, &p), SN_OK);
  contacts cs = {0};
  ck_assert_int_eq(sn_world_overlap_particles_shape(w, &p, contact_fcn, &cs), SN_OK);
  ck_assert_int_eq(cs.count, 1);
  ck_assert_int_eq(cs.c[0].particle.index1, a.index1);
  ck_assert_float_eq_tol(cs.c[0].separation, -0.1f, 1e-6f);
  ck_assert_float_eq_tol(cs.c[0].normal.x, -1.0f, 1e-6f);
  ck_assert_float_eq_tol(cs.c[0].point.x, 5.0f, 1e-6f);
  sn_destroy_world(w);
}
END_TEST

/* -------------------------------------------------------------- refusals */

static sn_result last_code(sn_world *w, sn_result r, const char *name) {
  ck_assert_msg(strstr(sn_world_last_error(w), name) != NULL, "'%s' does not name %s", sn_world_last_error(w), name);
  return r;
}

static bool plane_fcn(sn_shape_id shape, const sn_plane_result *plane, void *context) {
  (void)shape;
  (void)plane;
  ++*(int *)context;
  return true;
}

static bool particle_contact_count(const sn_particle_contact *contact, void *context) {
  (void)contact;
  ++*(int *)context;
  return true;
}

START_TEST(test_query_refusals) {
  row r = make_row();
  sn_world *w = r.w;
  sn_world_counters before = sn_world_get_counters(w);
  sn_query_filter f = sn_default_query_filter();
  sn_vec2 o = {0.0f, 0.0f}, t = {10.0f, 0.0f}, bad = {NAN, 0.0f}, far = {2e6f, 0.0f}, huge = {5e6f, 0.0f};
  hits h = {.answer = 1.0f};
  sn_ray_result rr, all[2];
  int32_t count = 0;
  int calls = 0;
  float fraction = 0.5f;
  sn_vec2 zero = {0.0f, 0.0f};
  sn_shape_proxy p, point_proxy, degenerate;
  ck_assert_int_eq(sn_make_proxy(&zero, 1, 0.5f, &p), SN_OK);
  ck_assert_int_eq(sn_make_proxy(&zero, 1, 0.0f, &point_proxy), SN_OK);
  degenerate = p;
  degenerate.count = 0;
  sn_shape_proxy nan_proxy = p;
  nan_proxy.radius = NAN;
  sn_capsule mover = {{0.0f, 0.0f}, {0.0f, 1.0f}, 0.3f};
  sn_capsule flat = {{0.0f, 0.0f}, {0.0f, 1.0f}, 0.0f};
  sn_capsule nan_mover = {{0.0f, NAN}, {0.0f, 1.0f}, 0.3f};
  sn_aabb box = {{0.0f, 0.0f}, {1.0f, 1.0f}}, inverted = {{1.0f, 1.0f}, {0.0f, 0.0f}};

  // NaN / Inf
  ck_assert_int_eq(last_code(w, sn_world_cast_ray(w, bad, t, f, record_fcn, &h), "sn_world_cast_ray"),
                   SN_ERR_NOT_FINITE);
  ck_assert_int_eq(last_code(w, sn_world_cast_ray(w, o, bad, f, record_fcn, &h), "translation"), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_cast_ray_closest(w, bad, t, f, &rr), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_cast_ray_all(w, o, bad, f, all, 2, &count), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(last_code(w, sn_world_cast_shape(w, &nan_proxy, t, f, record_fcn, &h), "proxy"), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_cast_shape(w, &p, bad, f, record_fcn, &h), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_overlap_shape(w, &nan_proxy, f, count_fcn, &calls), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_cast_ray_particles(w, bad, t, particle_closest_fcn, &h), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_overlap_particles_aabb(w, (sn_aabb){bad, bad}, count_particle_fcn, &calls),
                   SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_overlap_particles_shape(w, &nan_proxy, particle_contact_count, &calls), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(last_code(w, sn_world_cast_mover(w, &nan_mover, t, f, &fraction), "mover"), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_cast_mover(w, &mover, bad, f, &fraction), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_world_collide_mover(w, &nan_mover, f, plane_fcn, &calls), SN_ERR_NOT_FINITE);
  // out of range
  ck_assert_int_eq(last_code(w, sn_world_cast_ray(w, far, t, f, record_fcn, &h), "SN_MAX_COORDINATE"),
                   SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_cast_ray(w, o, huge, f, record_fcn, &h), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_cast_shape(w, &p, huge, f, record_fcn, &h), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(last_code(w, sn_world_cast_ray_all(w, o, t, f, all, -1, &count), "capacity"),
                   SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_overlap_aabb(w, inverted, f, count_fcn, &calls), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_overlap_particles_aabb(w, inverted, count_particle_fcn, &calls), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(last_code(w, sn_world_cast_mover(w, &flat, t, f, &fraction), "radius"), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_collide_mover(w, &flat, f, plane_fcn, &calls), SN_ERR_INVALID_ARGUMENT);
  // degenerate proxies: no points, or one point without radius
  ck_assert_int_eq(last_code(w, sn_world_cast_shape(w, &degenerate, t, f, record_fcn, &h), "proxy"),
                   SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(last_code(w, sn_world_overlap_shape(w, &point_proxy, f, count_fcn, &calls), "extent"),
                   SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_world_overlap_particles_shape(w, &degenerate, particle_contact_count, &calls),
                   SN_ERR_INVALID_ARGUMENT);
  // NULL
  ck_assert_int_eq(sn_world_cast_ray(w, o, t, f, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray_closest(w, o, t, f, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray_all(w, o, t, f, NULL, 2, &count), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray_all(w, o, t, f, all, 2, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_shape(w, NULL, t, f, record_fcn, &h), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_shape(w, &p, t, f, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_overlap_shape(w, NULL, f, count_fcn, &calls), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_overlap_shape(w, &p, f, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_overlap_particles_aabb(w, box, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray_particles(w, o, t, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_overlap_particles_shape(w, &p, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_mover(w, NULL, t, f, &fraction), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_mover(w, &mover, t, f, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_collide_mover(w, &mover, f, NULL, NULL), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_collide_mover(w, NULL, f, plane_fcn, &calls), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_ray(NULL, o, t, f, record_fcn, &h), SN_ERR_NULL);
  ck_assert_int_eq(sn_world_cast_mover(NULL, &mover, t, f, &fraction), SN_ERR_NULL);
  // none of it called back or changed anything
  ck_assert_int_eq(h.count, 0);
  ck_assert_int_eq(calls, 0);
  ck_assert_int_eq(count, 0);
  ck_assert_float_eq(fraction, 0.5f);
  sn_world_counters after = sn_world_get_counters(w);
  ck_assert_int_eq(after.body_count, before.body_count);
  ck_assert_int_eq(after.shape_count, before.shape_count);
  ck_assert_uint_eq(after.allocated_bytes, before.allocated_bytes);
  sn_destroy_world(w);
}
END_TEST

/* Inside a step (the flag sn_world_step holds while it runs) every query
 * returns SN_ERR_WORLD_LOCKED and names itself. */
START_TEST(test_queries_locked_in_step) {
  row r = make_row();
  sn_world *w = r.w;
  sn_query_filter f = sn_default_query_filter();
  sn_vec2 o = {0.0f, 0.0f}, t = {10.0f, 0.0f}, zero = {0.0f, 0.0f};
  sn_shape_proxy p;
  ck_assert_int_eq(sn_make_proxy(&zero, 1, 0.5f, &p), SN_OK);
  sn_capsule mover = {{0.0f, 0.0f}, {0.0f, 1.0f}, 0.3f};
  hits h = {.answer = 1.0f};
  sn_ray_result rr, all[2];
  int32_t count = 0;
  int calls = 0;
  float fraction = 0.5f;
  sn_aabb box = {{0.0f, 0.0f}, {1.0f, 1.0f}};
  w->stepping = true;
#define LOCKED(call, name)                                                                                             \
  do {                                                                                                                 \
    ck_assert_int_eq((call), SN_ERR_WORLD_LOCKED);                                                                     \
    ck_assert_msg(strstr(sn_world_last_error(w), name) != NULL, "%s", sn_world_last_error(w));                         \
  } while (0)
  LOCKED(sn_world_cast_ray(w, o, t, f, record_fcn, &h), "sn_world_cast_ray");
  LOCKED(sn_world_cast_ray_closest(w, o, t, f, &rr), "sn_world_cast_ray_closest");
  LOCKED(sn_world_cast_ray_all(w, o, t, f, all, 2, &count), "sn_world_cast_ray_all");
  LOCKED(sn_world_cast_shape(w, &p, t, f, record_fcn, &h), "sn_world_cast_shape");
  LOCKED(sn_world_overlap_aabb(w, box, f, count_fcn, &calls), "sn_world_overlap_aabb");
  LOCKED(sn_world_overlap_shape(w, &p, f, count_fcn, &calls), "sn_world_overlap_shape");
  LOCKED(sn_world_overlap_particles_aabb(w, box, count_particle_fcn, &calls), "sn_world_overlap_particles_aabb");
  LOCKED(sn_world_cast_ray_particles(w, o, t, particle_closest_fcn, &h), "sn_world_cast_ray_particles");
  LOCKED(sn_world_overlap_particles_shape(w, &p, particle_contact_count, &calls), "sn_world_overlap_particles_shape");
  LOCKED(sn_world_cast_mover(w, &mover, t, f, &fraction), "sn_world_cast_mover");
  LOCKED(sn_world_collide_mover(w, &mover, f, plane_fcn, &calls), "sn_world_collide_mover");
#undef LOCKED
  w->stepping = false;
  ck_assert_int_eq(h.count, 0);
  ck_assert_int_eq(calls, 0);
  ck_assert_float_eq(fraction, 0.5f);
  // and outside the step they work
  ck_assert_int_eq(sn_world_cast_ray_closest(w, o, t, f, &rr), SN_OK);
  ck_assert(rr.hit);
  sn_destroy_world(w);
}
END_TEST

/* A query callback may query again (nesting), but not change the world. */
static float nested_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  (void)point;
  (void)normal;
  sn_world *w = context;
  sn_ray_result rr;
  ck_assert_int_eq(sn_world_cast_ray_closest(w, (sn_vec2){0, 0}, (sn_vec2){10, 0}, sn_default_query_filter(), &rr),
                   SN_OK);
  ck_assert(rr.hit);
  ck_assert_int_eq(sn_destroy_body(w, sn_shape_get_body(w, shape)), SN_ERR_WORLD_LOCKED);
  return fraction;
}

START_TEST(test_cast_callback_locked) {
  row r = make_row();
  sn_vec2 zero = {0.0f, 0.0f};
  sn_shape_proxy p;
  ck_assert_int_eq(sn_make_proxy(&zero, 1, 0.2f, &p), SN_OK);
  ck_assert_int_eq(sn_world_cast_shape(r.w, &p, (sn_vec2){10, 0}, sn_default_query_filter(), nested_fcn, r.w), SN_OK);
  ck_assert_int_eq(sn_world_cast_ray(r.w, zero, (sn_vec2){10, 0}, sn_default_query_filter(), nested_fcn, r.w), SN_OK);
  ck_assert_int_eq(sn_world_get_body_count(r.w), 4);
  sn_destroy_world(r.w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("queries");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_ray_callback_steering);
  tcase_add_test(tc, test_query_filter);
  tcase_add_test(tc, test_ray_all_sorted);
  tcase_add_test(tc, test_overlap_aabb_tight);
  tcase_add_test(tc, test_overlap_shape_exact);
  tcase_add_test(tc, test_cast_shape_closed_forms);
  tcase_add_test(tc, test_particle_queries);
  tcase_add_test(tc, test_query_refusals);
  tcase_add_test(tc, test_queries_locked_in_step);
  tcase_add_test(tc, test_cast_callback_locked);
  suite_add_tcase(s, tc);
  return s;
}
