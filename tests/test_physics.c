/* Rigid-body physics checked against analytic results.
 * g = (0, -10), dt = 1/60 unless a test says otherwise. Each assertion
 * states its tolerance. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

#include "collision/manifold.h"
#include "base/constants.h"
#include "base/math.h"
#include "world/step.h"
#include "world/world.h"
#include "scenes.h"

#define SN_TEST_PI 3.14159265358979323846

static const float dt = 1.0f / 60.0f;

/* The contact part of a step as sn_world_step runs it: the extents, the
 * broadphase's new pairs, the step's reservations, the new contacts, then
 * the narrowphase. */
static void update_contacts(sn_world *w) {
  sn_body_refresh_extents(w);
  ck_assert(sn_tree_reserve_rebuild(&w->dynamic_tree));
  sn_tree_rebuild_moved(&w->dynamic_tree);
  ck_assert(sn_find_new_pairs(w) && sn_solve_reserve(w, 1.0f / 60.0f));
  sn_create_new_pairs(w);
  sn_update_contacts(w);
}

static sn_world *make_world(int32_t substeps, bool sleep) {
  sn_world_def wd = sn_default_world_def();
  if (substeps > 0) wd.substeps = substeps;
  wd.enable_sleep = sleep;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

static sn_body_id add_ground(sn_world *w, float friction, float restitution) {
  sn_body_def bd = sn_default_body_def();
  bd.position = (sn_vec2){0.0f, -1.0f};
  sn_body_id g = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(200.0f, 1.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = friction;
  sd.restitution = restitution;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, g, &sd, &box)));
  return g;
}

static sn_body_id add_box(sn_world *w, sn_vec2 p, float angle, float half, float friction, float restitution) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = angle;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(half, half, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = friction;
  sd.restitution = restitution;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
  return b;
}

/* Free fall: symplectic Euler per substep h gives exactly
 * y_n = y0 - g h^2 n (n + 1) / 2 after n substeps. Tolerance 1e-4 m. */
START_TEST(test_free_fall) {
  sn_world *w = make_world(0, false);
  sn_body_id b = add_box(w, (sn_vec2){0.0f, 100.0f}, 0.0f, 0.5f, 0.6f, 0.0f);
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  int32_t sub = sn_world_get_substeps(w);
  double h = (double)dt / sub, n = 60.0 * sub;
  double expected = 100.0 - 10.0 * h * h * n * (n + 1.0) / 2.0;
  ck_assert_double_eq_tol(sn_body_get_position(w, b).y, expected, 1e-4);
  ck_assert_double_eq_tol(sn_body_get_linear_velocity(w, b).y, -10.0, 1e-4);
  /* continuous-time check: 0.5 g t^2 = 5 m within the Euler error g h t / 2 */
  ck_assert_double_eq_tol(sn_body_get_position(w, b).y, 95.0, 10.0 * h * 1.0 / 2.0 + 1e-4);
  sn_destroy_world(w);
}
END_TEST

/* A box on a static slope of angle theta with friction mu on both shapes
 * (mixed sqrt(mu mu) = mu). It must stick at theta = atan(mu) - 1 deg
 * (drift < 5 mm in 2 s) and slide at atan(mu) + 1 deg with acceleration
 * g (sin theta - mu cos theta) (distance within 10 %). */
static double slope_slide(float mu, double theta) {
  sn_world *w = make_world(0, false);
  sn_body_def bd = sn_default_body_def();
  bd.angle = (float)theta;
  sn_body_id slope = sn_create_body(w, &bd);
  sn_polygon ramp;
  ck_assert_int_eq(sn_make_box(50.0f, 0.5f, &ramp), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = mu;
  sn_create_polygon_shape(w, slope, &sd, &ramp);
  /* box resting on the ramp's top surface, aligned with it */
  sn_vec2 up = {-sinf((float)theta), cosf((float)theta)};
  sn_vec2 p = {up.x * 1.0f, up.y * 1.0f}; /* 0.5 (ramp) + 0.5 (box) */
  sn_body_id box = add_box(w, p, (float)theta, 0.5f, mu, 0.0f);
  /* settle for 0.25 s, then measure 2 s along the slope */
  for (int i = 0; i < 15; ++i) sn_world_step(w, dt);
  sn_vec2 p0 = sn_body_get_position(w, box);
  for (int i = 0; i < 120; ++i) sn_world_step(w, dt);
  sn_vec2 p1 = sn_body_get_position(w, box);
  sn_vec2 down = {(float)cos(theta), (float)sin(theta)}; /* along the slope, pointing down-left is -down */
  double along = -((double)(p1.x - p0.x) * down.x + (double)(p1.y - p0.y) * down.y);
  sn_destroy_world(w);
  return along;
}

START_TEST(test_friction_slope) {
  const float mus[] = {0.2f, 0.5f, 0.8f};
  for (int k = 0; k < 3; ++k) {
    double crit = atan((double)mus[k]);
    double one = 1.0 * SN_TEST_PI / 180.0;
    double stick = slope_slide(mus[k], crit - one);
    ck_assert_msg(fabs(stick) < 0.005, "mu %.1f: box crept %.4f m at %.2f deg (critical %.2f)", (double)mus[k], stick,
                  (crit - one) * 180.0 / SN_TEST_PI, crit * 180.0 / SN_TEST_PI);
    double theta = crit + one;
    double slide = slope_slide(mus[k], theta);
    /* sliding started after the 0.25 s settle: distance over [0.25, 2.25] s */
    double a = 10.0 * (sin(theta) - mus[k] * cos(theta));
    double expected = 0.5 * a * (2.25 * 2.25 - 0.25 * 0.25);
    ck_assert_msg(fabs(slide - expected) < 0.10 * expected, "mu %.1f: slid %.4f m, expected %.4f m", (double)mus[k],
                  slide, expected);
  }
}
END_TEST

/* Restitution: a ball dropped from 2 m (bottom 2 m above the ground) with
 * e = 0.5 rebounds to e^2 h = 0.5 m, within 5 %. */
START_TEST(test_restitution) {
  const float es[] = {0.3f, 0.5f, 0.8f};
  for (int k = 0; k < 3; ++k) {
    float e = es[k];
    sn_world *w = make_world(0, false);
    add_ground(w, 0.6f, e);
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){0.0f, 2.5f};
    sn_body_id ball = sn_create_body(w, &bd);
    sn_circle c = {{0.0f, 0.0f}, 0.5f};
    sn_shape_def sd = sn_default_shape_def();
    sd.restitution = e;
    sn_create_circle_shape(w, ball, &sd, &c);
    bool bounced = false;
    float apex = 0.0f;
    for (int i = 0; i < 300; ++i) {
      sn_world_step(w, dt);
      float vy = sn_body_get_linear_velocity(w, ball).y;
      float y = sn_body_get_position(w, ball).y - 0.5f;
      if (vy > 0.0f) bounced = true;
      if (bounced) {
        if (y > apex) apex = y;
        if (vy < 0.0f) break;
      }
    }
    ck_assert(bounced);
    double expected = (double)e * e * 2.0;
    ck_assert_msg(fabs(apex - expected) < 0.05 * expected, "e %.1f: apex %.4f, expected %.4f", (double)e, (double)apex,
                  expected);
    sn_destroy_world(w);
  }
}
END_TEST

/* Two free boxes (no gravity) collide off-centre: total linear momentum is
 * conserved to 1e-5 relative (impulses are equal and opposite). Angular
 * momentum about the origin to 2 %: contact anchors are fixed at the start of
 * the step, so while the bodies move within the step the two lever arms
 * differ by O(relative velocity x dt). */
START_TEST(test_momentum) {
  sn_world *w = make_world(0, false);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){-3.0f, 0.2f};
  bd.linear_velocity = (sn_vec2){6.0f, 0.5f};
  sn_body_id a = sn_create_body(w, &bd);
  bd.position = (sn_vec2){3.0f, -0.3f};
  bd.linear_velocity = (sn_vec2){-2.0f, 0.0f};
  bd.angular_velocity = 1.0f;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(0.5f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = 1.0f;
  sn_create_polygon_shape(w, a, &sd, &box);
  sn_make_box(0.8f, 0.4f, &box);
  sd.density = 3.0f;
  sn_create_polygon_shape(w, b, &sd, &box);
  double px0 = 0, py0 = 0, l0 = 0;
  sn_body_id ids[2] = {a, b};
  for (int k = 0; k < 2; ++k) {
    double m = sn_body_get_mass(w, ids[k]);
    sn_vec2 v = sn_body_get_linear_velocity(w, ids[k]), c = sn_body_get_world_center_of_mass(w, ids[k]);
    px0 += m * v.x;
    py0 += m * v.y;
    l0 += m * ((double)c.x * v.y - (double)c.y * v.x) +
          sn_body_get_rotational_inertia(w, ids[k]) * sn_body_get_angular_velocity(w, ids[k]);
  }
  int touching_steps = 0;
  for (int i = 0; i < 120; ++i) {
    sn_world_step(w, dt);
    touching_steps += sn_world_get_counters(w).touching_contact_count > 0;
  }
  ck_assert_int_gt(touching_steps, 0); /* they did collide */
  double px = 0, py = 0, l = 0;
  for (int k = 0; k < 2; ++k) {
    double m = sn_body_get_mass(w, ids[k]);
    sn_vec2 v = sn_body_get_linear_velocity(w, ids[k]), c = sn_body_get_world_center_of_mass(w, ids[k]);
    px += m * v.x;
    py += m * v.y;
    l += m * ((double)c.x * v.y - (double)c.y * v.x) +
         sn_body_get_rotational_inertia(w, ids[k]) * sn_body_get_angular_velocity(w, ids[k]);
  }
  double mag = sqrt(px0 * px0 + py0 * py0);
  ck_assert_msg(fabs(px - px0) <= 1e-5 * mag && fabs(py - py0) <= 1e-5 * mag, "p0 (%g, %g) p (%g, %g)", px0, py0, px,
                py);
  ck_assert_msg(fabs(l - l0) <= 2e-2 * fabs(l0), "L0 %g L %g", l0, l);
  sn_destroy_world(w);
}
END_TEST

/* A box resting on the ground drifts less than 1 mm in 10 s (sleep off),
 * keeps its two contact points warm-started by matching feature ids, and
 * sinks less than the linear slop. */
START_TEST(test_resting_box) {
  sn_world *w = make_world(0, false);
  add_ground(w, 0.6f, 0.0f);
  sn_body_id b = add_box(w, (sn_vec2){0.0f, 0.5f}, 0.0f, 0.5f, 0.6f, 0.0f);
  for (int i = 0; i < 30; ++i) sn_world_step(w, dt);
  sn_vec2 p0 = sn_body_get_position(w, b);
  uint16_t ids[2] = {0, 0};
  for (int i = 0; i < 600; ++i) {
    sn_world_step(w, dt);
    sn_contact *c = NULL;
    for (int32_t k = 0; k < w->contacts.count; ++k)
      if (w->contacts.data[k].in_use) c = w->contacts.data + k;
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->manifold.point_count, 2);
    if (i == 0) {
      ids[0] = c->manifold.points[0].id;
      ids[1] = c->manifold.points[1].id;
      ck_assert_uint_ne(ids[0], ids[1]);
    } else {
      ck_assert_uint_eq(c->manifold.points[0].id, ids[0]);
      ck_assert_uint_eq(c->manifold.points[1].id, ids[1]);
      ck_assert(c->manifold.points[0].persisted && c->manifold.points[1].persisted);
    }
  }
  sn_vec2 p1 = sn_body_get_position(w, b);
  ck_assert_double_lt(hypot(p1.x - p0.x, p1.y - p0.y), 1e-3);
  ck_assert_double_lt(fabs(p1.y - 0.5), 0.005);
  ck_assert_double_lt(fabs(sn_body_get_angle(w, b)), 1e-3);
  sn_destroy_world(w);
}
END_TEST

/* Boxes on the x axis in zero gravity: id and half width. */
static sn_body_id add_box_x(sn_world *w, float x, float half, float density, float vx, bool fixed_rotation) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){x, 0.0f};
  bd.linear_velocity = (sn_vec2){vx, 0.0f};
  bd.fixed_rotation = fixed_rotation;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon p;
  ck_assert_int_eq(sn_make_box(half, half, &p), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.density = density;
  sd.friction = 0.0f;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &p)));
  return b;
}

static float total_momentum_x(sn_world *w, const sn_body_id *b, int n) {
  float p = 0.0f;
  for (int i = 0; i < n; ++i) p += sn_body_get_mass(w, b[i]) * sn_body_get_linear_velocity(w, b[i]).x;
  return p;
}

/* A light box touching a heavy one at 30 m/s is knocked away in mid-step
 * (0.5 m in the step) towards a box at rest 0.1 m away, more than the
 * speculative distance, so their contact has no point when the step begins:
 * continuous collision stops it there, and the two share its momentum.
 * Without that stop the struck box would end the step 0.4 m inside its
 * neighbour. */
START_TEST(test_struck_body_stops_at_neighbour) {
  sn_world *w = make_world(0, false);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id b[3];
  b[0] = add_box_x(w, -0.01f, 0.2f, 20.0f, 30.0f, true); /* the hammer, its face 0.01 m from the box */
  b[1] = add_box_x(w, 0.4f, 0.2f, 1.0f, 0.0f, true);     /* struck: faces at 0.2 and 0.6 */
  b[2] = add_box_x(w, 0.95f, 0.25f, 1.0f, 0.0f, true);   /* neighbour: left face at 0.7 */
  const float p0 = total_momentum_x(w, b, 3);
  float worst = -1.0f;
  for (int i = 0; i < 30; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    float overlap = (sn_body_get_position(w, b[1]).x + 0.2f) - (sn_body_get_position(w, b[2]).x - 0.25f);
    if (overlap > worst) worst = overlap;
    if (i == 0)
      ck_assert_msg(overlap < 0.02f, "the struck box ended its step %.3f m inside its neighbour", (double)overlap);
  }
  ck_assert_msg(worst < 0.05f, "the struck box went %.3f m into its neighbour", (double)worst);
  /* contacts and the impulse at the time of impact keep linear momentum */
  ck_assert_float_eq_tol(total_momentum_x(w, b, 3), p0, 1e-3f * p0);
  sn_destroy_world(w);
}
END_TEST

/* A fast box closing on a slower one that moves ahead of it, with no contact
 * point at the step's start: stopped at the time of impact, it leaves with
 * the other's speed along the normal (an inelastic impact, momentum kept),
 * instead of keeping its own speed and being stopped again every step. */
START_TEST(test_fast_body_behind_slow_one) {
  sn_world *w = make_world(0, false);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id b[2];
  b[0] = add_box_x(w, 0.0f, 0.2f, 1.0f, 30.0f, true); /* fast: 0.5 m per step */
  b[1] = add_box_x(w, 0.6f, 0.2f, 1.0f, 3.0f, true);  /* slow: 0.05 m per step, 0.2 m ahead */
  const float p0 = total_momentum_x(w, b, 2);
  ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  float gap = (sn_body_get_position(w, b[1]).x - 0.2f) - (sn_body_get_position(w, b[0]).x + 0.2f);
  ck_assert_msg(gap > -0.01f, "the fast box ended %.3f m inside the slow one", (double)-gap);
  float va = sn_body_get_linear_velocity(w, b[0]).x, vb = sn_body_get_linear_velocity(w, b[1]).x;
  ck_assert_msg(va <= vb + 1e-3f, "the fast box still closes at %.3f m/s", (double)(va - vb));
  ck_assert_float_eq_tol(total_momentum_x(w, b, 2), p0, 1e-3f * p0);
  /* equal masses, perfectly inelastic: both at (30 + 3) / 2 */
  ck_assert_float_eq_tol(va, 16.5f, 0.1f);
  for (int i = 0; i < 30; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    gap = (sn_body_get_position(w, b[1]).x - 0.2f) - (sn_body_get_position(w, b[0]).x + 0.2f);
    ck_assert_msg(gap > -0.02f, "step %d: overlap %.3f m", i, (double)-gap);
  }
  sn_destroy_world(w);
}
END_TEST

/* Two fast boxes (0.5 m per step each, min extent 0.4) closing head on
 * from 0.5 m apart, neither a bullet: without continuous collision between
 * fast bodies they would end the step 0.5 m inside each other. The first
 * one handled stops at the time of impact against the other's motion, the
 * second against where the first stopped; with equal masses the inelastic
 * impulse leaves both at rest. In either creation order, and for a box
 * striking a faster one from behind. */
START_TEST(test_fast_bodies_meet) {
  for (int order = 0; order < 2; ++order) {
    for (int chase = 0; chase < 2; ++chase) {
      sn_world *w = make_world(0, false);
      sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
      const float v0 = chase ? 60.0f : 30.0f, v1 = chase ? 24.0f : -30.0f;
      sn_body_id b[2];
      b[order] = add_box_x(w, 0.0f, 0.2f, 1.0f, v0, true);
      b[1 - order] = add_box_x(w, 0.9f, 0.2f, 1.0f, v1, true);
      sn_body_id left = b[order], right = b[1 - order];
      const float p0 = total_momentum_x(w, b, 2);
      for (int i = 0; i < 20; ++i) {
        ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
        float gap = (sn_body_get_position(w, right).x - 0.2f) - (sn_body_get_position(w, left).x + 0.2f);
        ck_assert_msg(gap > -0.01f, "order %d chase %d step %d: the boxes overlap by %.3f m", order, chase, i,
                      (double)-gap);
      }
      float vl = sn_body_get_linear_velocity(w, left).x, vr = sn_body_get_linear_velocity(w, right).x;
      ck_assert_msg(vl <= vr + 1e-3f, "order %d chase %d: still closing at %.3f m/s", order, chase, (double)(vl - vr));
      ck_assert_float_eq_tol(total_momentum_x(w, b, 2), p0, 1e-3f * (fabsf(p0) + 1.0f));
      /* perfectly inelastic, equal masses: both at the mean velocity */
      ck_assert_float_eq_tol(vl, 0.5f * (v0 + v1), 0.1f);
      sn_destroy_world(w);
    }
  }
}
END_TEST

/* Two fast boxes flying side by side at 30 m/s (0.5 m per step), 0.1 m
 * apart, towards a wall that the leading one reaches in mid-step. The
 * trailing one, swept against the leader's whole motion, finds nothing; the
 * leader is then stopped at the wall, and the trailing one is swept once
 * more against where it stopped. Without that second look it ended the step
 * 0.1 m inside the leader. In both creation orders (which is handled first). */
START_TEST(test_fast_body_behind_stopped_one) {
  for (int order = 0; order < 2; ++order) {
    sn_world *w = make_world(0, false);
    sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
    sn_body_def wd = sn_default_body_def();
    wd.position = (sn_vec2){1.6f, 0.0f};
    sn_body_id wall = sn_create_body(w, &wd);
    sn_polygon slab;
    ck_assert_int_eq(sn_make_box(0.1f, 2.0f, &slab), SN_OK); /* face at x = 1.5 */
    sn_shape_def sd = sn_default_shape_def();
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &slab)));
    sn_body_id b[2];
    b[order] = add_box_x(w, 0.5f, 0.2f, 1.0f, 30.0f, true);     /* trailing: faces 0.3 .. 0.7 */
    b[1 - order] = add_box_x(w, 1.0f, 0.2f, 1.0f, 30.0f, true); /* leading: faces 0.8 .. 1.2 */
    sn_body_id trail = b[order], lead = b[1 - order];
    for (int i = 0; i < 10; ++i) {
      ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
      float xl = sn_body_get_position(w, lead).x, xt = sn_body_get_position(w, trail).x;
      ck_assert_msg(xl + 0.2f < 1.5f + 0.01f, "order %d step %d: the leader is %.3f m into the wall", order, i,
                    (double)(xl + 0.2f - 1.5f));
      ck_assert_msg((xl - 0.2f) - (xt + 0.2f) > -0.01f, "order %d step %d: the boxes overlap by %.3f m", order, i,
                    (double)((xt + 0.2f) - (xl - 0.2f)));
    }
    sn_destroy_world(w);
  }
}
END_TEST

/* A 0.1 m static wall stops a bullet at 300 m/s (5 m per step), and also a
 * plain fast body (continuous collision against static geometry). */
START_TEST(test_bullet) {
  for (int bullet = 0; bullet < 2; ++bullet) {
    for (int shape = 0; shape < 2; ++shape) {
      sn_world *w = make_world(0, false);
      sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
      sn_body_def wd = sn_default_body_def();
      wd.position = (sn_vec2){10.0f, 0.0f};
      sn_body_id wall = sn_create_body(w, &wd);
      sn_polygon slab;
      sn_make_box(0.05f, 5.0f, &slab);
      sn_shape_def sd = sn_default_shape_def();
      sn_create_polygon_shape(w, wall, &sd, &slab);
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.is_bullet = bullet != 0;
      bd.position = (sn_vec2){0.0f, 0.3f};
      bd.linear_velocity = (sn_vec2){300.0f, 0.0f};
      sn_body_id b = sn_create_body(w, &bd);
      if (shape == 0) {
        sn_circle c = {{0.0f, 0.0f}, 0.05f};
        sn_create_circle_shape(w, b, &sd, &c);
      } else {
        sn_polygon p;
        sn_make_box(0.05f, 0.05f, &p);
        sn_create_polygon_shape(w, b, &sd, &p);
      }
      float max_x = -1e9f;
      for (int i = 0; i < 60; ++i) {
        sn_world_step(w, dt);
        float x = sn_body_get_position(w, b).x;
        if (x > max_x) max_x = x;
      }
      /* wall face at x = 9.95; the body's half width is 0.05 */
      ck_assert_msg(max_x < 9.95f - 0.05f + 0.02f, "bullet %d shape %d reached x = %f", bullet, shape, (double)max_x);
      sn_destroy_world(w);
    }
  }
}
END_TEST

/* A static wall 0.1 m thick at the origin, faces at x = -0.05 and 0.05,
 * half_height tall each way. */
static void add_thin_wall(sn_world *w, float half_height) {
  sn_body_def wd = sn_default_body_def();
  sn_body_id wall = sn_create_body(w, &wd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_box(0.05f, half_height, &slab), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &slab)));
}

/* A crowd driven into a thin static wall: 500 bodies (boxes 0.5 m,
 * capsules 0.5 m long and 0.2 m thick, circles 0.5 m across; 100 columns of
 * five) at 150 m/s, pressed on by an acceleration of 100 or 1000 m/s^2
 * towards a 0.1 m wall tall enough that nothing goes round it. The front
 * bodies are stopped at the wall by continuous collision and then pressed
 * into it by the crowd, so they start later steps touching or inside it,
 * where the sweep of the whole shape says "touching at 0". Sweeping the
 * body's core (a disc at its centre) then keeps its centre on the near
 * side, and a core already touching the wall that would move on into it
 * stays where it is. The capsules turn as they are squeezed, and their
 * sweeps run out of iterations: their cores are swept then. Without those,
 * boxes went through at 100 m/s^2 and 3 to 5 bodies of each kind at
 * 1000 m/s^2. At 100 m/s^2 no centre reaches the wall's near face; at
 * 1000 m/s^2 the crowd's push (slower than the fast threshold, so no sweep
 * sees it) moves a box's centre a few centimetres into the wall, never to
 * its middle. */
START_TEST(test_crowd_against_thin_wall) {
  for (int run = 0; run < 6; ++run) {
    const int kind = run % 3;
    const float push = run < 3 ? 100.0f : 1000.0f, limit = run < 3 ? -0.05f : 0.0f;
    sn_world *w = make_world(0, true);
    sn_world_set_gravity(w, (sn_vec2){push, 0.0f});
    add_thin_wall(w, 1000.0f);
    sn_shape_def sd = sn_default_shape_def();
    enum { N = 500 };
    sn_body_id b[N];
    sn_polygon box;
    ck_assert_int_eq(sn_make_box(0.25f, 0.25f, &box), SN_OK);
    const sn_capsule capsule = {{-0.15f, 0.0f}, {0.15f, 0.0f}, 0.1f};
    const sn_circle circle = {{0.0f, 0.0f}, 0.25f};
    for (int i = 0; i < N; ++i) {
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){-1.0f - 0.6f * (float)(i / 5), -1.2f + 0.6f * (float)(i % 5)};
      bd.linear_velocity = (sn_vec2){150.0f, 0.0f};
      b[i] = sn_create_body(w, &bd);
      sn_shape_id s = kind == 0   ? sn_create_polygon_shape(w, b[i], &sd, &box)
                      : kind == 1 ? sn_create_capsule_shape(w, b[i], &sd, &capsule)
                                  : sn_create_circle_shape(w, b[i], &sd, &circle);
      ck_assert(sn_shape_is_valid(w, s));
    }
    float max_x = -1e9f;
    int worst = -1;
    for (int step = 0; step < 240; ++step) {
      ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
      for (int i = 0; i < N; ++i) {
        const float x = sn_body_get_position(w, b[i]).x;
        if (x > max_x) {
          max_x = x;
          worst = i;
        }
      }
    }
    ck_assert_msg(max_x < limit, "kind %d at %.0f m/s^2: body %d reached x = %.3f (into or through the wall)", kind,
                  (double)push, worst, (double)max_x);
    sn_destroy_world(w);
  }
}
END_TEST

/* A small box spinning fast (up to 350 rad/s, nearly six turns a second
 * of its own width per step) flung at 33 m/s at a 0.1 m static wall from
 * 0.03 m away, beyond the speculative distance, so no contact point holds
 * it: its sweep's rotation bound makes every advance of the time of impact
 * short, and the sweep runs out of iterations before it reaches the wall.
 * The box's core (a disc at its centre) is swept then and stops it with its
 * centre on the near side. Without that the failed sweep was ignored and
 * the box went through the wall. */
START_TEST(test_spinning_box_against_thin_wall) {
  const float spins[] = {-350.0f, -288.0f, -150.0f, 150.0f, 288.0f, 350.0f};
  for (size_t k = 0; k < sizeof spins / sizeof spins[0]; ++k) {
    sn_world *w = make_world(0, false);
    sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
    add_thin_wall(w, 10.0f);
    sn_shape_def sd = sn_default_shape_def();
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){-0.05f - 0.35f - 0.03f, 0.0f};
    bd.linear_velocity = (sn_vec2){33.0f, -2.0f};
    bd.angular_velocity = spins[k];
    sn_body_id b = sn_create_body(w, &bd);
    sn_polygon box;
    ck_assert_int_eq(sn_make_box(0.35f, 0.35f, &box), SN_OK);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
    float max_x = -1e9f;
    for (int step = 0; step < 30; ++step) {
      ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
      max_x = fmaxf(max_x, sn_body_get_position(w, b).x);
    }
    ck_assert_msg(max_x < -0.05f, "spin %.0f rad/s: the box's centre reached x = %.3f (into or through the wall)",
                  (double)spins[k], (double)max_x);
    sn_destroy_world(w);
  }
}
END_TEST

/* Fast bodies moving together are not stopped by each other: two boxes
 * (0.2 m half width) at 30 and 27 m/s, 0.05 m apart, more than the
 * speculative distance, close at 0.05 m a step, less than half the
 * trailing box's inner radius. That is the motion the discrete step
 * handles (as for a body that is not fast against a wall), so no time of
 * impact stops the trailing box and it keeps its speed for the step; the
 * contact then keeps them apart as it does for slow bodies. */
START_TEST(test_fast_bodies_together) {
  sn_world *w = make_world(0, false);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id trail = add_box_x(w, 0.0f, 0.2f, 1.0f, 30.0f, true);
  sn_body_id lead = add_box_x(w, 0.45f, 0.2f, 1.0f, 27.0f, true);
  ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  /* not stopped: it moved its whole 0.5 m (no contact point acted) */
  ck_assert_float_eq_tol(sn_body_get_position(w, trail).x, 30.0f * dt, 1e-4f);
  ck_assert_float_eq_tol(sn_body_get_linear_velocity(w, trail).x, 30.0f, 1e-4f);
  float worst = 0.0f;
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    const float gap = (sn_body_get_position(w, lead).x - 0.2f) - (sn_body_get_position(w, trail).x + 0.2f);
    worst = fminf(worst, gap);
  }
  ck_assert_msg(worst > -0.05f, "the boxes overlapped by %.3f m", (double)-worst);
  ck_assert_msg(sn_body_get_position(w, trail).x < sn_body_get_position(w, lead).x, "the trailing box passed the lead");
  sn_destroy_world(w);
}
END_TEST

/* A fast box (0.2 m half width, 30 m/s) closing at 0.15 m a step on a
 * box flying ahead of it at 21 m/s (fast itself: two bodies in flight
 * together), from 0.05 m (beyond the speculative distance): more than half
 * its own inner radius (0.1 m), less than half the sum of the two boxes'
 * inner radii (0.2 m). Neither centre can get nearer the other side, so
 * the discrete step handles the pair: no time of impact stops the fast
 * box, it ends the step the closing motion less the gap (0.1 m) inside the
 * other, and the contact pushes the two apart the way they came. The same
 * fast box closing as fast on a plank 0.02 m thick would go through its
 * middle: the plank's half inner radius adds only 0.005 m to the limit,
 * and the sweep stops the box at the plank. (test_crowd_against_thin_wall
 * covers a fast body closing on bodies that are not fast.) */
START_TEST(test_fast_body_relative_limit) {
  for (int thin = 0; thin < 2; ++thin) {
    sn_world *w = make_world(0, false);
    sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
    sn_body_id trail = add_box_x(w, 0.0f, 0.2f, 1.0f, 30.0f, true);
    const float lead_half = thin ? 0.01f : 0.2f;
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){0.25f + lead_half, 0.0f};
    bd.linear_velocity = (sn_vec2){21.0f, 0.0f};
    bd.fixed_rotation = true;
    sn_body_id lead = sn_create_body(w, &bd);
    sn_polygon p;
    ck_assert_int_eq(sn_make_box(lead_half, 0.5f, &p), SN_OK);
    sn_shape_def sd = sn_default_shape_def();
    sd.friction = 0.0f;
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, lead, &sd, &p)));
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    const float moved = sn_body_get_position(w, trail).x;
    float gap = (sn_body_get_position(w, lead).x - lead_half) - (sn_body_get_position(w, trail).x + 0.2f);
    if (thin) {
      /* stopped at the time of impact (a third of the step), not through */
      ck_assert_msg(moved < 0.5f * 30.0f * dt, "thin: the fast box moved %.3f m of its 0.5 m", (double)moved);
      ck_assert_msg(gap > -0.01f, "thin: the fast box ended %.3f m inside the plank", (double)-gap);
    } else {
      /* its whole motion; inside by the closing motion less the gap */
      ck_assert_float_eq_tol(moved, 30.0f * dt, 1e-4f);
      ck_assert_float_eq_tol(gap, 0.05f - 0.15f, 1e-3f);
    }
    float worst = gap;
    for (int i = 0; i < 60; ++i) {
      ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
      gap = (sn_body_get_position(w, lead).x - lead_half) - (sn_body_get_position(w, trail).x + 0.2f);
      worst = fminf(worst, gap);
      ck_assert_msg(sn_body_get_position(w, trail).x < sn_body_get_position(w, lead).x,
                    "thin %d step %d: the fast box passed the other", thin, i);
    }
    ck_assert_msg(worst > (thin ? -0.02f : -0.11f), "thin %d: overlap %.3f m", thin, (double)-worst);
    /* apart (or touching) once the contact has acted */
    ck_assert_msg(gap > -0.01f, "thin %d: still %.3f m inside after a second", thin, (double)-gap);
    sn_destroy_world(w);
  }
}
END_TEST

/* Every shape type comes to rest on the ground at its analytic height
 * (within 1 cm) and on a static segment and a chain as well. */
START_TEST(test_shapes_rest) {
  for (int ground_kind = 0; ground_kind < 3; ++ground_kind) {
    sn_world *w = make_world(0, false);
    sn_body_def gd = sn_default_body_def();
    sn_body_id ground = sn_create_body(w, &gd);
    sn_shape_def sd = sn_default_shape_def();
    if (ground_kind == 0) {
      sn_polygon box;
      sn_make_offset_box(50.0f, 1.0f, (sn_vec2){0.0f, -1.0f}, 0.0f, &box);
      sn_create_polygon_shape(w, ground, &sd, &box);
    } else if (ground_kind == 1) {
      sn_segment seg = {{-50.0f, 0.0f}, {50.0f, 0.0f}};
      sn_create_segment_shape(w, ground, &sd, &seg);
    } else {
      /* a chain walking right to left: free side above (right of direction) */
      sn_vec2 pts[12];
      for (int i = 0; i < 12; ++i) pts[i] = (sn_vec2){50.0f - 10.0f * (float)i, 0.0f};
      sn_chain_def cd = sn_default_chain_def();
      cd.points = pts;
      cd.count = 12;
      ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &cd)));
    }
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    sn_body_id bodies[5];
    float rest_y[5];
    bd.position = (sn_vec2){-8.0f, 1.0f};
    bodies[0] = sn_create_body(w, &bd);
    sn_circle circle = {{0.0f, 0.0f}, 0.5f};
    sn_create_circle_shape(w, bodies[0], &sd, &circle);
    rest_y[0] = 0.5f;
    bd.position = (sn_vec2){-4.0f, 1.0f};
    bodies[1] = sn_create_body(w, &bd);
    sn_capsule cap = {{-0.5f, 0.0f}, {0.5f, 0.0f}, 0.25f};
    sn_create_capsule_shape(w, bodies[1], &sd, &cap);
    rest_y[1] = 0.25f;
    bd.position = (sn_vec2){0.0f, 1.0f};
    bodies[2] = sn_create_body(w, &bd);
    sn_polygon box;
    sn_make_box(0.5f, 0.3f, &box);
    sn_create_polygon_shape(w, bodies[2], &sd, &box);
    rest_y[2] = 0.3f;
    bd.position = (sn_vec2){4.0f, 1.0f};
    bodies[3] = sn_create_body(w, &bd);
    sn_polygon rounded;
    sn_make_rounded_box(0.4f, 0.2f, 0.1f, &rounded);
    sn_create_polygon_shape(w, bodies[3], &sd, &rounded);
    rest_y[3] = 0.3f;
    bd.position = (sn_vec2){8.0f, 1.0f};
    bodies[4] = sn_create_body(w, &bd);
    sn_vec2 tri[3] = {{-0.5f, 0.0f}, {0.5f, 0.0f}, {0.0f, 0.8f}};
    sn_polygon triangle;
    ck_assert_int_eq(sn_make_polygon(tri, 3, 0.0f, &triangle), SN_OK);
    sn_create_polygon_shape(w, bodies[4], &sd, &triangle);
    rest_y[4] = 0.0f;
    for (int i = 0; i < 180; ++i) sn_world_step(w, dt);
    for (int k = 0; k < 5; ++k) {
      sn_vec2 p = sn_body_get_position(w, bodies[k]);
      ck_assert_msg(fabsf(p.y - rest_y[k]) < 0.01f, "ground %d shape %d rests at y = %f, expected %f", ground_kind, k,
                    (double)p.y, (double)rest_y[k]);
      ck_assert_msg(sn_length_sq(sn_body_get_linear_velocity(w, bodies[k])) < 1e-4f, "ground %d shape %d still moving",
                    ground_kind, k);
    }
    sn_destroy_world(w);
  }
}
END_TEST

/* A box slides at 4 m/s without friction across a chain of 1 m collinear
 * segments: no snag, so no vertical bounce above 1 mm and the speed stays
 * within 1 %. The same on separate boxes would snag; chains must not. */
START_TEST(test_chain_no_snag) {
  sn_world *w = make_world(0, false);
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_vec2 pts[62];
  for (int i = 0; i < 62; ++i) pts[i] = (sn_vec2){30.0f - 1.0f * (float)i, 0.0f};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 62;
  cd.friction = 0.0f;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, ground, &cd)));
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){-25.0f, 0.5f};
  bd.linear_velocity = (sn_vec2){4.0f, 0.0f};
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(0.5f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.0f;
  sn_create_polygon_shape(w, b, &sd, &box);
  float max_y = 0.0f;
  for (int i = 0; i < 600; ++i) {
    sn_world_step(w, dt);
    float y = sn_body_get_position(w, b).y;
    if (y > max_y) max_y = y;
    float x = sn_body_get_position(w, b).x;
    if (x > 25.0f) break;
  }
  ck_assert_msg(max_y < 0.501f, "box bounced up to %f", (double)max_y);
  ck_assert_double_eq_tol(sn_body_get_linear_velocity(w, b).x, 4.0, 0.04);
  ck_assert_double_lt(fabs(sn_body_get_angle(w, b)), 1e-3);
  sn_destroy_world(w);
}
END_TEST

/* The standard pyramid 20 (210 boxes, 600 steps, default substeps, no sleep)
 * stands: nothing falls, the top box moves less than 5 cm. */
START_TEST(test_pyramid_20) {
  sn_scene scene;
  ck_assert(sn_scene_build(&scene, "pyramid", 20, 0, false));
  for (int i = 0; i < 600; ++i) ck_assert_int_eq(sn_world_step(scene.world, dt), SN_OK);
  sn_scene_metrics m;
  sn_scene_measure(&scene, &m);
  ck_assert_int_eq(m.fallen, 0);
  ck_assert_msg(m.top_drift < 0.05, "top drift %f", m.top_drift);
  sn_scene_destroy(&scene);
}
END_TEST

/* Same inputs, same binary: bit-identical state. */
START_TEST(test_determinism) {
  uint64_t hashes[2];
  for (int run = 0; run < 2; ++run) {
    sn_scene scene;
    ck_assert(sn_scene_build(&scene, "rain", 400, 0, false));
    for (int i = 0; i < 120; ++i) sn_world_step(scene.world, dt);
    sn_scene_metrics m;
    sn_scene_measure(&scene, &m);
    hashes[run] = m.state_hash;
    sn_scene_destroy(&scene);
  }
  ck_assert_uint_eq(hashes[0], hashes[1]);
}
END_TEST

/* The speed limit holds for the velocity a step hands on: a kinematic paddle
 * at 30 m/s keeps striking a box in a world limited to 5 m/s (gravity off).
 * The limit clamps the integrated velocity, the velocity a substep moves by
 * and the velocity written back, so that no body ends a step faster than
 * the limit. Tolerance 1e-4 relative. */
START_TEST(test_speed_limit_after_contacts) {
  sn_world_def wd = sn_default_world_def();
  wd.gravity = (sn_vec2){0.0f, 0.0f};
  wd.maximum_linear_speed = 5.0f;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_id box = add_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.5f, 0.0f, 0.0f);
  sn_body_def pd = sn_default_body_def();
  pd.type = SN_BODY_KINEMATIC;
  pd.position = (sn_vec2){-1.2f, 0.0f};
  pd.linear_velocity = (sn_vec2){30.0f, 0.0f};
  sn_body_id paddle = sn_create_body(w, &pd);
  sn_polygon tall;
  ck_assert_int_eq(sn_make_box(0.2f, 2.0f, &tall), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.0f;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, paddle, &sd, &tall)));
  float fastest = 0.0f;
  for (int i = 0; i < 20; ++i) {
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    sn_vec2 v = sn_body_get_linear_velocity(w, box);
    fastest = fmaxf(fastest, sqrtf(v.x * v.x + v.y * v.y));
  }
  ck_assert_float_le(fastest, 5.0f * (1.0f + 1e-4f));
  ck_assert_float_ge(fastest, 4.9f); /* it was struck, at the limit */
  sn_destroy_world(w);
}
END_TEST

static bool same_float_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* What sn_collide computes for a contact's shapes at their bodies' poses now. */
static sn_manifold collide_now(const sn_world *w, const sn_contact *c) {
  const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
  return sn_collide(&sa->geom, w->bodies.data[sa->body].xf, &sb->geom, w->bodies.data[sb->body].xf, NULL);
}

/* The narrowphase leaves in every contact what sn_collide computes for its
 * shapes at the bodies' transforms, bit for bit (count, normal, points,
 * anchors, separations, ids): the in-place writers, the four-lane box path
 * and the skipped disc pairs (tight boxes farther apart than the
 * speculative distance) change nothing. A cloud of circles and boxes
 * drifting and spinning without gravity, checked after the narrowphase of
 * each of 120 steps. Manifold reuse is off here (it moves last step's
 * manifold instead: test_manifold_reuse). */
START_TEST(test_narrowphase_matches_collide) {
  sn_world *w = make_world(0, false);
  w->settings.contact_reuse_distance = 0.0f;
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  srand(91);
  for (int i = 0; i < 14; ++i) {
    for (int j = 0; j < 14; ++j) {
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){0.9f * (float)i + 0.1f * (float)rand() / (float)RAND_MAX,
                              0.9f * (float)j + 0.1f * (float)rand() / (float)RAND_MAX};
      bd.angle = 6.28f * (float)rand() / (float)RAND_MAX;
      bd.linear_velocity =
          (sn_vec2){2.0f * (float)rand() / (float)RAND_MAX - 1.0f, 2.0f * (float)rand() / (float)RAND_MAX - 1.0f};
      bd.angular_velocity = 4.0f * (float)rand() / (float)RAND_MAX - 2.0f;
      sn_body_id b = sn_create_body(w, &bd);
      sn_shape_def sd = sn_default_shape_def();
      float size = 0.15f + 0.25f * (float)rand() / (float)RAND_MAX;
      if ((i + j) % 2 == 0) {
        sn_circle c = {{0.0f, 0.0f}, size};
        ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
      } else {
        sn_polygon box;
        ck_assert_int_eq(sn_make_box(size, 0.8f * size, &box), SN_OK);
        ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
      }
    }
  }
  int compared = 0, far_discs = 0, touching = 0;
  for (int step = 0; step < 120; ++step) {
    update_contacts(w);
    for (int32_t k = 0; k < w->contacts.count; ++k) {
      const sn_contact *c = w->contacts.data + k;
      if (!c->in_use) continue;
      const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
      sn_manifold want = collide_now(w, c);
      const sn_manifold *got = &c->manifold;
      ck_assert_int_eq(got->point_count, want.point_count);
      ck_assert(same_float_bits(got->normal.x, want.normal.x) && same_float_bits(got->normal.y, want.normal.y));
      for (int32_t i = 0; i < want.point_count; ++i) {
        const sn_manifold_point *p = got->points + i, *q = want.points + i;
        ck_assert_uint_eq(p->id, q->id);
        ck_assert(same_float_bits(p->point.x, q->point.x) && same_float_bits(p->point.y, q->point.y));
        ck_assert(same_float_bits(p->anchor_a.x, q->anchor_a.x) && same_float_bits(p->anchor_a.y, q->anchor_a.y));
        ck_assert(same_float_bits(p->anchor_b.x, q->anchor_b.x) && same_float_bits(p->anchor_b.y, q->anchor_b.y));
        ck_assert(same_float_bits(p->separation, q->separation));
      }
      ck_assert_int_eq((c->flags & SN_CONTACT_TOUCHING) != 0, want.point_count > 0);
      float gap = sn_maxf(sn_maxf(sb->aabb.lower.x - sa->aabb.upper.x, sa->aabb.lower.x - sb->aabb.upper.x),
                          sn_maxf(sb->aabb.lower.y - sa->aabb.upper.y, sa->aabb.lower.y - sb->aabb.upper.y));
      if (sb->geom.type == SN_SHAPE_CIRCLE && gap > 0.03f) ++far_discs;
      touching += want.point_count > 0;
      ++compared;
    }
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  }
  // the cloud exercised both the skip and real contacts
  ck_assert_int_gt(far_discs, 1000);
  ck_assert_int_gt(touching, 1000);
  ck_assert_int_gt(compared, 5000);
  sn_destroy_world(w);
}
END_TEST

/* Manifold reuse (sn_world_def.contact_reuse_distance, default 0.5 mm): a
 * resting pyramid of 10 rows keeps nearly every manifold from step to step, and a
 * kept manifold matches what the narrowphase computes at the bodies' poses
 * within the reuse distance: as many points, each one within 0.5 mm plus
 * 10 % of the nearest computed point, the separations within 10 um (the
 * features are the same; only the clipped ends' position along their edge is
 * older), the normals within 1e-3 rad. A frictionless box sliding along the ground by 10 cm
 * per step is computed afresh each step (its contact matches sn_collide bit for bit),
 * and the pyramid stands the same with reuse off: its top within 1 mm. */
static sn_world *reuse_pyramid(float reuse_distance, sn_body_id *top, sn_body_id *slider) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  wd.contact_reuse_distance = reuse_distance;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_shape_def sd = sn_default_shape_def();
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
  const int rows = 10;
  for (int row = 0; row < rows; ++row) {
    for (int i = 0; i < rows - row; ++i) {
      sn_body_def bd = sn_default_body_def();
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){-0.5f * (float)(rows - row - 1) + (float)i, 0.5f + (float)row};
      sn_body_id b = sn_create_body(w, &bd);
      ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
      *top = b;
    }
  }
  /* the ground, an 80 m static box made after the pyramid: in the bottom row's
   * contacts it is shape B, the larger body (the motion is then measured as
   * the box's in the ground's frame) */
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -0.5f};
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon slab;
  ck_assert_int_eq(sn_make_box(40.0f, 0.5f, &slab), SN_OK);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &slab)));
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC; /* frictionless: slides on at 6 m/s */
  sd.friction = 0.0f;
  bd.position = (sn_vec2){-36.0f, 0.5f};
  bd.linear_velocity = (sn_vec2){6.0f, 0.0f}; /* 18 m in 180 steps: stops short of the pyramid */
  *slider = sn_create_body(w, &bd);
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, *slider, &sd, &box)));
  return w;
}

START_TEST(test_manifold_reuse) {
  sn_body_id top, slider, top_off, slider_off;
  sn_world *w = reuse_pyramid(0.0005f, &top, &slider);
  sn_world *off = reuse_pyramid(0.0f, &top_off, &slider_off);
  int reused = 0, touching = 0, compared = 0, slider_checked = 0;
  float worst_point = 0.0f, worst_sep = 0.0f, worst_normal = 0.0f;
  for (int step = 0; step < 180; ++step) {
    /* the step's own narrowphase then runs at the same poses (a reuse with
     * nothing moved, or the same computation with reuse off) */
    update_contacts(w);
    update_contacts(off);
    ck_assert_int_eq(off->reused_manifold_count, 0);
    if (step >= 60) { /* settled */
      reused += w->reused_manifold_count;
      touching += sn_world_get_counters(w).touching_contact_count;
    }
    for (int32_t k = 0; k < w->contacts.count; ++k) {
      const sn_contact *c = w->contacts.data + k;
      if (!c->in_use) continue;
      const sn_shape *sa = w->shapes.data + c->shape_a, *sb = w->shapes.data + c->shape_b;
      sn_manifold want = collide_now(w, c);
      const sn_manifold *got = &c->manifold;
      ck_assert_int_eq(got->point_count, want.point_count);
      bool on_slider = sa->body == slider.index1 - 1 || sb->body == slider.index1 - 1;
      if (want.point_count == 0) continue;
      worst_normal = sn_maxf(worst_normal, sn_length(sn_sub(got->normal, want.normal)));
      for (int32_t i = 0; i < want.point_count; ++i) {
        /* the computed point nearest this one: two parallel faces (a box
         * on the ground box) may swap reference and incident face from one
         * computation to the next, and with them the ids and the order; a
         * kept manifold keeps its ids, so warm starting does not lose them */
        const sn_manifold_point *p = got->points + i, *q = want.points;
        if (want.point_count == 2 &&
            sn_length(sn_sub(p->point, want.points[1].point)) < sn_length(sn_sub(p->point, want.points[0].point)))
          q = want.points + 1;
        if (on_slider) ck_assert_uint_eq(p->id, q->id);
        worst_point = sn_maxf(worst_point, sn_length(sn_sub(p->point, q->point)));
        worst_sep = sn_maxf(worst_sep, sn_absf(p->separation - q->separation));
        if (on_slider) {
          ck_assert(same_float_bits(p->separation, q->separation));
          ck_assert(same_float_bits(p->point.x, q->point.x) && same_float_bits(p->point.y, q->point.y));
          ++slider_checked;
        }
      }
      ++compared;
    }
    ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
    ck_assert_int_eq(sn_world_step(off, dt), SN_OK);
  }
  ck_assert_msg(worst_point <= 0.00055f, "reused point %g m from the computed one", (double)worst_point);
  ck_assert_msg(worst_sep <= 1e-5f, "reused separation off by %g m", (double)worst_sep);
  ck_assert_msg(worst_normal <= 1e-3f, "reused normal off by %g", (double)worst_normal);
  ck_assert_int_gt(compared, 5000);
  ck_assert_int_gt(slider_checked, 100);
  /* nearly every resting contact is kept, the ground's too (the slider's
   * never are: one of about 150 touching contacts) */
  ck_assert_msg(reused > touching * 9 / 10, "%d of %d touching manifolds reused", reused, touching);
  sn_vec2 a = sn_body_get_position(w, top), b = sn_body_get_position(off, top_off);
  ck_assert_msg(sn_length(sn_sub(a, b)) < 0.001f, "top box %g m apart with and without reuse",
                (double)sn_length(sn_sub(a, b)));
  ck_assert_float_eq_tol(a.y, 9.5f, 0.01f);
  sn_destroy_world(w);
  sn_destroy_world(off);
}
END_TEST

/* A world without gravity and a static 2 x 2 m box at the origin (its
 * faces at x, y = +-1), of the given friction. */
static sn_world *world_with_wall(float friction) {
  sn_world *w = make_world(0, false);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_def bd = sn_default_body_def();
  sn_body_id wall = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(1.0f, 1.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = friction;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, wall, &sd, &box)));
  return w;
}

/* A circle beside a static box: 30 mm apart (the narrowphase skips the pair:
 * beyond the speculative distance of 20 mm plus allowance) there is a
 * contact without points; 15 mm apart a speculative point with separation
 * 15 mm (1e-5 m); overlapping 10 mm, a point at -10 mm. */
START_TEST(test_disc_gap_speculative) {
  const float gaps[] = {0.03f, 0.015f, -0.01f};
  for (int g = 0; g < 3; ++g) {
    sn_world *w = world_with_wall(sn_default_shape_def().friction);
    sn_body_def bd = sn_default_body_def();
    sn_shape_def sd = sn_default_shape_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){1.5f + gaps[g], 0.3f};
    sn_body_id ball = sn_create_body(w, &bd);
    sn_circle c = {{0.0f, 0.0f}, 0.5f};
    ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, ball, &sd, &c)));
    update_contacts(w); // pairs, then the narrowphase
    update_contacts(w); // the narrowphase of the new contact
    const sn_contact *ct = NULL;
    for (int32_t k = 0; k < w->contacts.count; ++k)
      if (w->contacts.data[k].in_use) ct = w->contacts.data + k;
    ck_assert_ptr_nonnull(ct);
    if (g == 0) {
      ck_assert_int_eq(ct->manifold.point_count, 0);
      ck_assert(!(ct->flags & SN_CONTACT_TOUCHING));
    } else {
      ck_assert_int_eq(ct->manifold.point_count, 1);
      ck_assert_double_eq_tol(ct->manifold.points[0].separation, gaps[g], 1e-5);
      ck_assert_double_eq_tol(ct->manifold.normal.x, 1.0, 1e-6);
      ck_assert(ct->flags & SN_CONTACT_TOUCHING);
    }
    sn_destroy_world(w);
  }
}
END_TEST

/* A moving kinematic body keeps what it touches awake, without joining its
 * island: a box resting on the ground against a frictionless kinematic
 * wheel stays awake while the wheel spins (5 rad/s, its rim at 2.5 m/s),
 * and falls asleep within a second of the wheel stopping; a second box on
 * the far side of the wheel does the same, each its own island (the
 * wheel joins none). */
START_TEST(test_kinematic_keeps_touching_awake) {
  sn_world *w = make_world(0, true);
  add_ground(w, 0.6f, 0.0f);
  sn_body_id left = add_box(w, (sn_vec2){-1.0f, 0.5f}, 0.0f, 0.5f, 0.6f, 0.0f);
  sn_body_id right = add_box(w, (sn_vec2){1.0f, 0.5f}, 0.0f, 0.5f, 0.6f, 0.0f);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_KINEMATIC;
  bd.position = (sn_vec2){0.0f, 0.5f};
  bd.angular_velocity = 5.0f;
  sn_body_id wheel = sn_create_body(w, &bd);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.0f;
  sn_circle disc = {{0.0f, 0.0f}, 0.5f};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, wheel, &sd, &disc)));
  /* 3 s spinning: the boxes touch it (no gap) and stay awake */
  for (int i = 0; i < 180; ++i) ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  ck_assert(sn_body_is_awake(w, left));
  ck_assert(sn_body_is_awake(w, right));
  ck_assert_float_eq_tol(sn_body_get_position(w, left).x, -1.0f, 0.01f);
  sn_world_counters c = sn_world_get_counters(w);
  ck_assert_int_eq(c.island_count, 3); /* the boxes and the wheel, each alone */
  /* stopped: asleep within a second (the sleep time is 0.5 s) */
  ck_assert_int_eq(sn_body_set_angular_velocity(w, wheel, 0.0f), SN_OK);
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
  ck_assert(!sn_body_is_awake(w, left));
  ck_assert(!sn_body_is_awake(w, right));
  sn_destroy_world(w);
}
END_TEST

/* Every pair nearer than the speculative distance at the start of a step has
 * a contact with its speculative points, wherever the moving shape's box in
 * the tree happens to be: a box gliding at 0.018 m a step (under the
 * speculative distance of 0.02 m, and far from fast: its inner radius is
 * 0.5 m) onto a static wall stops at the wall's face. Started at 60 offsets
 * spanning more than a cycle of its tree box's moves, so some approach with
 * the box's leaf about to move. (Without the contact it goes in by up to
 * the step's 0.018 m, and the next step pushes it out.) Tolerance: a
 * twentieth of the linear slop. */
START_TEST(test_speculative_contact_on_approach) {
  float worst = 0.0f;
  for (int k = 0; k < 60; ++k) {
    sn_world *w = world_with_wall(0.0f);
    sn_body_def bd = sn_default_body_def();
    sn_shape_def sd = sn_default_shape_def();
    sd.friction = 0.0f;
    sn_polygon box;
    bd.type = SN_BODY_DYNAMIC;
    bd.fixed_rotation = true;
    bd.position = (sn_vec2){1.5f + 0.2f + 0.005f * (float)k, 0.0f};
    bd.linear_velocity = (sn_vec2){-0.018f / dt, 0.0f};
    sn_body_id glider = sn_create_body(w, &bd);
    ck_assert_int_eq(sn_make_box(0.5f, 0.5f, &box), SN_OK);
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, glider, &sd, &box)));
    for (int i = 0; i < 120; ++i) {
      ck_assert_int_eq(sn_world_step(w, dt), SN_OK);
      /* the glider's left face against the wall's right face (x = 1) */
      worst = fmaxf(worst, 1.0f - (sn_body_get_position(w, glider).x - 0.5f));
    }
    /* it reached the wall and stayed there */
    ck_assert_float_eq_tol(sn_body_get_position(w, glider).x, 1.5f, 0.005f);
    sn_destroy_world(w);
  }
  ck_assert_float_le(worst, 0.05f * SN_LINEAR_SLOP);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("physics");
  TCase *tc = tcase_create("rigid");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_free_fall);
  tcase_add_test(tc, test_friction_slope);
  tcase_add_test(tc, test_restitution);
  tcase_add_test(tc, test_momentum);
  tcase_add_test(tc, test_resting_box);
  tcase_add_test(tc, test_bullet);
  tcase_add_test(tc, test_crowd_against_thin_wall);
  tcase_add_test(tc, test_spinning_box_against_thin_wall);
  tcase_add_test(tc, test_fast_bodies_together);
  tcase_add_test(tc, test_fast_body_relative_limit);
  tcase_add_test(tc, test_struck_body_stops_at_neighbour);
  tcase_add_test(tc, test_fast_body_behind_slow_one);
  tcase_add_test(tc, test_fast_bodies_meet);
  tcase_add_test(tc, test_fast_body_behind_stopped_one);
  tcase_add_test(tc, test_shapes_rest);
  tcase_add_test(tc, test_chain_no_snag);
  tcase_add_test(tc, test_pyramid_20);
  tcase_add_test(tc, test_determinism);
  tcase_add_test(tc, test_speed_limit_after_contacts);
  tcase_add_test(tc, test_narrowphase_matches_collide);
  tcase_add_test(tc, test_manifold_reuse);
  tcase_add_test(tc, test_disc_gap_speculative);
  tcase_add_test(tc, test_kinematic_keeps_touching_awake);
  tcase_add_test(tc, test_speculative_contact_on_approach);
  suite_add_tcase(s, tc);
  return s;
}
