/* The filter, pulley, gear, rotary_limit and ratchet joint plugins against
 * closed forms (dt = 1/60, default 8 substeps; g = (0, -10) where said). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"

static sn_registry *registry(void) {
  return js_registry((const char *const[]){"revolute", "filter", "pulley", "gear", "rotary_limit", "ratchet", NULL});
}

static sn_world *world(sn_registry *r, bool gravity) {
  sn_world *w = js_world(r);
  if (!gravity) sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  return w;
}

static double state(sn_world *w, sn_constraint_id k, const char *name) {
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(w, k, name, &x, &y), SN_OK);
  return x;
}

static sn_body_id square(sn_world *w, sn_vec2 p, float half, float density) {
  return js_box(w, p, 0.0f, half, half, (sn_vec2){0.0f, 0.0f}, density);
}

/* The one shape of `square` body b (unturned, half width `half`) has its
 * box (sn_shape_get_aabb) around the body where it is now; i names it. */
static void check_square_box(sn_world *w, sn_body_id b, float half, int i) {
  sn_shape_id shape;
  ck_assert_int_eq(sn_body_get_shapes(w, b, &shape, 1), 1);
  const sn_aabb box = sn_shape_get_aabb(w, shape);
  const sn_vec2 p = sn_body_get_position(w, b);
  ck_assert_msg(fabsf(box.lower.y - (p.y - half)) < 1e-5f && fabsf(box.upper.y - (p.y + half)) < 1e-5f &&
                    fabsf(box.lower.x - (p.x - half)) < 1e-5f && fabsf(box.upper.x - (p.x + half)) < 1e-5f,
                "body %d at (%g, %g): its shape's box is (%g, %g) to (%g, %g)", i, p.x, p.y, box.lower.x, box.lower.y,
                box.upper.x, box.upper.y);
}

/* A disc on a revolute pin at its centre to the ground. */
static sn_body_id pinned_disc(sn_world *w, sn_body_id ground, sn_vec2 p, float radius) {
  sn_body_id d = js_ball(w, p, radius, 1.0f);
  sn_param_value v = {"anchor", p.x, p.y};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", ground, d, &v, 1)));
  return d;
}

/* filter: a box moving at 2 m/s passes through another (dynamic, at rest)
 * while a filter joins them: after 1.5 s it is 3 m on, the other has not
 * moved (1e-6 m) and no contact touches. Destroyed while they overlap, the
 * pair collides again: the contact pushes them apart until they touch side
 * by side (centres more than 0.49 m apart, the boxes 0.5 m wide, within
 * 1 s). No force ever: the reaction is zero. */
START_TEST(test_filter) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id a = square(w, (sn_vec2){-1.5f, 0.0f}, 0.25f, 1.0f), b = square(w, (sn_vec2){0.0f, 0.0f}, 0.25f, 1.0f);
  sn_constraint_id k = js_joint(w, "filter", a, b, NULL, 0);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  ck_assert(!sn_constraint_get_collide_connected(w, k));
  sn_body_set_linear_velocity(w, a, (sn_vec2){2.0f, 0.0f});
  for (int i = 0; i < 45; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_vec2 pa = sn_body_get_position(w, a), pb = sn_body_get_position(w, b);
  ck_assert_msg(fabs(pb.x) < 1e-6 && fabs(pb.y) < 1e-6, "the other box moved to (%g, %g)", pb.x, pb.y);
  ck_assert_msg(fabs(pa.x - 0.0) < 1e-4, "the moving box is at %g, expected 0 (overlapping)", pa.x);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 0);
  for (int i = 0; i < 45; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  pa = sn_body_get_position(w, a);
  ck_assert_msg(fabs(pa.x - 1.5) < 1e-4, "the moving box is at %g, expected 1.5", pa.x);
  sn_vec2 f;
  float tq;
  ck_assert_int_eq(sn_constraint_get_reaction(w, k, &f, &tq), SN_OK);
  ck_assert(f.x == 0.0f && f.y == 0.0f && tq == 0.0f);
  /* overlapping and at rest, then the filter goes */
  sn_body_set_linear_velocity(w, a, (sn_vec2){0.0f, 0.0f});
  ck_assert_int_eq(sn_body_set_transform(w, a, (sn_vec2){0.1f, 0.0f}, 0.0f), SN_OK);
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  pa = sn_body_get_position(w, a);
  ck_assert_msg(fabs(pa.x - 0.1) < 1e-6, "still filtered: at %g", pa.x);
  ck_assert_int_eq(sn_destroy_constraint(w, k), SN_OK);
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  pa = sn_body_get_position(w, a);
  pb = sn_body_get_position(w, b);
  ck_assert_msg(pa.x - pb.x > 0.49, "not pushed apart: %g m", pa.x - pb.x);
  ck_assert_int_eq(sn_world_get_counters(w).touching_contact_count, 1); /* side by side */
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* pulley, ratio 2 (length_a + 2 length_b = 9 m), ground anchors (-1, 5) and
 * (1, 5), boxes hanging 3 m below them. Balance: m_b = ratio m_a (B's side
 * carries twice the tension): at rest after 2 s (within 1 mm of where they
 * hung; speeds under 5 mm/s: the last substep's position correction
 * shows as velocity, about 2 mm/s here, and goes in the next step), the
 * tension m_a g (1 %), the reaction on B ratio m_a g = m_b g (1 %).
 * Unbalanced, equal masses: B rises with a_b = g (r m_a - m_b) /
 * (m_b + r^2 m_a) = g / 5 (its speed after 1 s within 2 %), and the rope
 * keeps length_a + 2 length_b = 9 within 1 mm every step while A also
 * swings sideways. */
START_TEST(test_pulley) {
  sn_registry *r = registry();
  for (int unbalanced = 0; unbalanced < 2; ++unbalanced) {
    sn_world *w = world(r, true);
    sn_body_id g = js_ground(w);
    sn_body_id a = square(w, (sn_vec2){-1.0f, 2.0f}, 0.2f, 1.0f);
    sn_body_id b = square(w, (sn_vec2){1.0f, 2.0f}, 0.2f, unbalanced ? 1.0f : 2.0f);
    sn_param_value v[5] = {{"ground_anchor_a", -1.0, 5.0},
                           {"ground_anchor_b", 1.0, 5.0},
                           {"anchor_a", -1.0, 2.0},
                           {"anchor_b", 1.0, 2.0},
                           {"ratio", 2.0, 0}};
    sn_constraint_id k = js_joint(w, "pulley", a, b, v, 5);
    ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
    (void)g;
    double ma = sn_body_get_mass(w, a);
    if (!unbalanced) {
      for (int i = 0; i < 120; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      sn_vec2 pa = sn_body_get_position(w, a), pb = sn_body_get_position(w, b);
      ck_assert_msg(fabs(pa.y - 2.0) < 1e-3 && fabs(pb.y - 2.0) < 1e-3, "moved to %g, %g", pa.y, pb.y);
      sn_vec2 va = sn_body_get_linear_velocity(w, a), vb = sn_body_get_linear_velocity(w, b);
      ck_assert_msg(hypot(va.x, va.y) < 5e-3 && hypot(vb.x, vb.y) < 5e-3, "moving: %g, %g", va.y, vb.y);
      double t = state(w, k, "tension");
      ck_assert_msg(fabs(t - ma * 10.0) < 0.01 * ma * 10.0, "tension %g N, expected %g", t, ma * 10.0);
      sn_vec2 f;
      float tq;
      ck_assert_int_eq(sn_constraint_get_reaction(w, k, &f, &tq), SN_OK);
      double mb = sn_body_get_mass(w, b);
      ck_assert_msg(fabs(f.y - mb * 10.0) < 0.01 * mb * 10.0 && fabs(f.x) < 0.01, "reaction (%g, %g), expected (0, %g)",
                    f.x, f.y, mb * 10.0);
    } else {
      sn_body_set_linear_velocity(w, a, (sn_vec2){1.0f, 0.0f}); /* and swings */
      double worst = 0.0;
      for (int i = 0; i < 60; ++i) {
        ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
        worst = fmax(worst, fabs(state(w, k, "length_a") + 2.0 * state(w, k, "length_b") - 9.0));
      }
      ck_assert_msg(worst < 1e-3, "length_a + 2 length_b drifted by %g m", worst);
      /* vertical only: a fresh pair from rest */
      sn_destroy_world(w);
      w = world(r, true);
      a = square(w, (sn_vec2){-1.0f, 2.0f}, 0.2f, 1.0f);
      b = square(w, (sn_vec2){1.0f, 2.0f}, 0.2f, 1.0f);
      k = js_joint(w, "pulley", a, b, v, 5);
      ck_assert(sn_constraint_is_valid(w, k));
      for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      double vy = sn_body_get_linear_velocity(w, b).y, expected = 10.0 / 5.0 * 1.0;
      ck_assert_msg(fabs(vy - expected) < 0.02 * expected, "B rises at %g m/s after 1 s, expected %g", vy, expected);
      double vya = sn_body_get_linear_velocity(w, a).y;
      ck_assert_msg(fabs(vya + 2.0 * vy) < 0.01 * expected, "A falls at %g m/s, expected %g", vya, -2.0 * vy);
    }
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* gear, ratio 2 (angle_a + 2 angle_b = 0) between two discs pinned at their
 * centres; A driven by its revolute motor at 3 rad/s: B turns at -1.5 rad/s
 * (1 %) and the error stays under 0.01 rad over 2 s; the torque on B is the
 * gear's share of the spin-up (80 N m in the first step, 0 once steady,
 * within 1e-2 N m: the tracked angles are floats, A's 6 rad to one ulp of
 * 5e-7 rad, and the stiff row turns that rounding into a few 1e-3 N m). */
START_TEST(test_gear) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w);
  sn_body_id a = js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 1.0f);
  sn_param_value m[4] = {
      {"anchor", 0.0, 0.0}, {"enable_motor", 1, 0}, {"motor_speed", 3.0, 0}, {"max_motor_torque", 50.0, 0}};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", g, a, m, 4)));
  sn_body_id b = pinned_disc(w, g, (sn_vec2){1.5f, 0.0f}, 1.0f);
  sn_param_value v = {"ratio", 2.0, 0};
  sn_constraint_id k = js_joint(w, "gear", a, b, &v, 1);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  double worst = 0.0;
  for (int i = 0; i < 120; ++i) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    worst = fmax(worst, fabs(state(w, k, "error")));
  }
  double wa = sn_body_get_angular_velocity(w, a), wb = sn_body_get_angular_velocity(w, b);
  ck_assert_msg(fabs(wa - 3.0) < 0.03, "A at %g rad/s", wa);
  ck_assert_msg(fabs(wb + 1.5) < 0.015, "B at %g rad/s, expected -1.5", wb);
  ck_assert_msg(worst < 0.01, "gear error up to %g rad", worst);
  /* the angles went through several turns: A about 6 rad */
  double angle_a = state(w, k, "angle_a"), angle_b = state(w, k, "angle_b");
  ck_assert_msg(angle_a > 5.0, "A turned %g rad", angle_a);
  ck_assert_msg(fabs(angle_a + 2.0 * angle_b) < 0.01, "angle_a + 2 angle_b = %g", angle_a + 2.0 * angle_b);
  sn_vec2 f;
  float tq;
  ck_assert_int_eq(sn_constraint_get_reaction(w, k, &f, &tq), SN_OK);
  ck_assert_msg(fabsf(tq) < 1e-2f && f.x == 0.0f && f.y == 0.0f, "steady torque %g", tq);
  ck_assert(fabs(state(w, k, "torque") - tq) < 1e-6);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* rotary_limit [-0.5, 0.5] on a pinned disc pushed by a torque of 5 N m:
 * the angle stops at 0.5 (within 0.02 rad) and the limit's torque on the
 * disc is -5 N m (1 %), the reaction the same; pushed the other way it stops
 * at -0.5. With max moved to 8 rad at run time the disc turns on through
 * more than a turn and stops at 8 (within 0.05 rad). */
START_TEST(test_rotary_limit) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  sn_body_id g = js_ground(w), d = pinned_disc(w, g, (sn_vec2){0.0f, 0.0f}, 0.5f);
  sn_param_value v[2] = {{"min", -0.5, 0}, {"max", 0.5, 0}};
  sn_constraint_id k = js_joint(w, "rotary_limit", g, d, v, 2);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  for (int side = 0; side < 2; ++side) {
    float torque = side == 0 ? 5.0f : -5.0f;
    double most = 0.0;
    for (int i = 0; i < 120; ++i) {
      ck_assert_int_eq(sn_body_apply_torque(w, d, torque, true), SN_OK);
      ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      most = fmax(most, side == 0 ? state(w, k, "angle") : -state(w, k, "angle"));
    }
    double angle = state(w, k, "angle"), held = state(w, k, "torque");
    ck_assert_msg(fabs(angle - (side == 0 ? 0.5 : -0.5)) < 0.02, "angle %g", angle);
    ck_assert_msg(most < 0.52, "went to %g", most);
    ck_assert_msg(fabs(held + torque) < 0.01 * 5.0, "limit torque %g N m, expected %g", held, -torque);
    sn_vec2 f;
    float tq;
    ck_assert_int_eq(sn_constraint_get_reaction(w, k, &f, &tq), SN_OK);
    ck_assert(fabs(tq - held) < 1e-5);
  }
  ck_assert_int_eq(sn_constraint_set_param(w, k, "max", 8.0, 0), SN_OK);
  for (int i = 0; i < 240; ++i) {
    ck_assert_int_eq(sn_body_apply_torque(w, d, 5.0f, true), SN_OK);
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  }
  double angle = state(w, k, "angle");
  ck_assert_msg(fabs(angle - 8.0) < 0.05, "angle %g, expected the bound 8 rad", angle);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* ratchet, teeth every 0.5 rad (phase 0), upward free: a pinned disc
 * spinning at +3 rad/s turns freely (speed unchanged within 1e-4 rad/s,
 * no torque) through more than a turn; pushed back by -2 N m it stops at
 * the last tooth passed (no more than 0.02 rad behind it), held by a pawl
 * torque of +2 N m (1 %). A ratchet with negative spacing holds the other
 * way. */
START_TEST(test_ratchet) {
  sn_registry *r = registry();
  for (int down = 0; down < 2; ++down) {
    sn_world *w = world(r, false);
    sn_body_id g = js_ground(w), d = pinned_disc(w, g, (sn_vec2){0.0f, 0.0f}, 0.5f);
    const double s = down ? -1.0 : 1.0;
    sn_param_value v[2] = {{"ratchet", 0.5 * s, 0}, {"phase", 0.0, 0}};
    sn_constraint_id k = js_joint(w, "ratchet", g, d, v, 2);
    ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
    sn_body_set_angular_velocity(w, d, (float)(3.0 * s));
    for (int i = 0; i < 55; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    double speed = sn_body_get_angular_velocity(w, d);
    ck_assert_msg(fabs(speed - 3.0 * s) < 1e-4, "free turning slowed to %g", speed);
    ck_assert(state(w, k, "torque") == 0.0);
    double angle = state(w, k, "angle"), tooth = s * floor(s * angle / 0.5) * 0.5;
    ck_assert_msg(fabs(angle - s * 55.0 / 20.0) < 1e-3, "angle %g, expected %g", angle, s * 2.75);
    for (int i = 0; i < 120; ++i) {
      ck_assert_int_eq(sn_body_apply_torque(w, d, (float)(-2.0 * s), true), SN_OK);
      ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
      double now = state(w, k, "angle");
      ck_assert_msg(s * (now - tooth) > -0.02, "went back to %g past the tooth at %g", now, tooth);
    }
    ck_assert_msg(fabs(state(w, k, "tooth") - tooth) < 1e-6, "pawl at %g, expected %g", state(w, k, "tooth"), tooth);
    double held = state(w, k, "torque");
    ck_assert_msg(fabs(held - 2.0 * s) < 0.02, "pawl torque %g N m, expected %g", held, 2.0 * s);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* Continuous collision leaves bodies alone that a constraint keeps from
 * colliding: a box at 60 m/s (1 m a step, five times its half width) joined
 * by a filter to a box in its way goes through it, two whole steps (2 m,
 * no gravity), the other untouched, while the same box without the filter
 * stays behind the other (stopped at its face, the two then moving on
 * together). */
START_TEST(test_filter_fast) {
  sn_registry *r = registry();
  for (int joined = 0; joined < 2; ++joined) {
    sn_world *w = world(r, false);
    sn_body_id a = square(w, (sn_vec2){-1.0f, 0.0f}, 0.1f, 1.0f), b = square(w, (sn_vec2){0.0f, 0.0f}, 0.1f, 1.0f);
    if (joined) ck_assert(sn_constraint_is_valid(w, js_joint(w, "filter", a, b, NULL, 0)));
    sn_body_set_linear_velocity(w, a, (sn_vec2){60.0f, 0.0f});
    for (int i = 0; i < 2; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    float x = sn_body_get_position(w, a).x, xb = sn_body_get_position(w, b).x;
    if (joined) {
      ck_assert_msg(fabsf(x - 1.0f) < 1e-4f, "the joined box is at %g, expected 1 (two whole steps)", x);
      ck_assert_msg(fabsf(xb) < 1e-6f, "the other box moved to %g", xb);
    } else {
      ck_assert_msg(x < xb - 0.2f + 0.01f, "the box without the filter is at %g, the other at %g: through it", x, xb);
    }
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

/* A static box 1 m high and 2 half_width wide whose top is y = 0. */
static void ground_top_at_zero(sn_world *w, float half_width) {
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_offset_box(half_width, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.0f, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, ground, &sd, &box)));
}
/* Bodies held by rigid joints stop together. A box falling at 30 m/s (0.5 m
 * a step, more than its half width) is stopped by continuous collision at
 * the ground, at about a fifth of the second step; the box pinned on top of
 * it, and the box pinned on top of that one (joined through it), stop at
 * the same fraction of their own motion (else they go on through the
 * stopped box, which they do not collide with, to the ground: the pin 0.3 m
 * apart). All moved in the same straight line, so the pins hold to
 * rounding, and each shape's box is where its body ended. A box joined to
 * the falling one by a filter (no rigid rows) and a free box keep their
 * whole step: 2 x 0.5 m. The stack then stays joined (the lower pin within
 * 5 cm) and above the ground while it comes to rest. */
START_TEST(test_jointed_bodies_stop_together) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  ground_top_at_zero(w, 5.0f);
  sn_body_id a = square(w, (sn_vec2){0.0f, 0.7f}, 0.1f, 1.0f), b = square(w, (sn_vec2){0.0f, 1.0f}, 0.1f, 1.0f);
  sn_body_id top = square(w, (sn_vec2){0.0f, 1.3f}, 0.1f, 1.0f); /* pinned to b only */
  sn_body_id free_box = square(w, (sn_vec2){8.0f, 1.0f}, 0.1f, 1.0f);
  sn_body_id filtered = square(w, (sn_vec2){-8.0f, 1.0f}, 0.1f, 1.0f);
  sn_param_value pin = {"anchor", 0.0f, 0.85f};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", a, b, &pin, 1)));
  sn_param_value pin_top = {"anchor", 0.0f, 1.15f};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", b, top, &pin_top, 1)));
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "filter", a, filtered, NULL, 0)));
  const sn_body_id all[5] = {a, b, free_box, filtered, top};
  for (int i = 0; i < 5; ++i) sn_body_set_linear_velocity(w, all[i], (sn_vec2){0.0f, -30.0f});
  for (int i = 0; i < 2; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  sn_vec2 pa = sn_body_get_position(w, a), pb = sn_body_get_position(w, b);
  /* stopped at the ground (its half width 0.1 above it, to within the
   * time of impact's target separation) */
  ck_assert_msg(pa.y > 0.1f - 0.005f && pa.y < 0.1f + 0.02f, "the falling box is at %g, expected 0.1", pa.y);
  ck_assert_msg(fabsf(pb.y - pa.y - 0.3f) < 1e-4f && fabsf(pb.x - pa.x) < 1e-4f,
                "the pinned box is at (%g, %g) from the stopped one, expected (0, 0.3)", pb.x - pa.x, pb.y - pa.y);
  sn_vec2 pt = sn_body_get_position(w, top);
  ck_assert_msg(fabsf(pt.y - pa.y - 0.6f) < 1e-4f && fabsf(pt.x - pa.x) < 1e-4f,
                "the box pinned to the pinned one is at (%g, %g) from the stopped one, expected (0, 0.6)", pt.x - pa.x,
                pt.y - pa.y);
  for (int i = 2; i < 4; ++i) {
    sn_vec2 p = sn_body_get_position(w, all[i]);
    ck_assert_msg(fabsf(p.y - 0.0f) < 1e-4f, "body %d is at %g, expected 0 (two whole steps)", i, p.y);
  }
  /* every box's shape has its box where the body ended, the stopped ones
   * and those held back with them included (the broadphase finds their
   * pairs from these boxes next step) */
  for (int i = 0; i < 5; ++i) check_square_box(w, all[i], 0.1f, i);
  for (int step = 0; step < 120; ++step) {
    ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    pa = sn_body_get_position(w, a);
    pb = sn_body_get_position(w, b);
    sn_vec2 anchor_a = sn_body_get_world_point(w, a, (sn_vec2){0.0f, 0.15f});
    sn_vec2 anchor_b = sn_body_get_world_point(w, b, (sn_vec2){0.0f, -0.15f});
    float gap = hypotf(anchor_a.x - anchor_b.x, anchor_a.y - anchor_b.y);
    ck_assert_msg(gap < 0.05f, "step %d: the pin is %g m apart", step, gap);
    ck_assert_msg(pa.y > 0.1f - 0.02f, "step %d: the falling box is %g m into the ground", step, 0.1f - pa.y);
  }
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A body held back with a stopped one gets its shape's box where it ends.
 * A box falling at 30 m/s lands on a ledge only as wide as itself; the box
 * pinned beside it is over empty space, so its own sweep meets nothing and
 * only the stop of the box it is pinned to holds it back (0.4 m above where
 * the solver left it). The broadphase finds its pairs from that box the
 * next step: it must be around the body where it ended, not where the
 * solver left it. */
START_TEST(test_held_back_body_box_follows) {
  sn_registry *r = registry();
  sn_world *w = world(r, false);
  ground_top_at_zero(w, 0.1f); /* a ledge */
  sn_body_id a = square(w, (sn_vec2){0.0f, 0.7f}, 0.1f, 1.0f), b = square(w, (sn_vec2){0.3f, 0.7f}, 0.1f, 1.0f);
  sn_param_value pin = {"anchor", 0.15f, 0.7f};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", a, b, &pin, 1)));
  sn_body_set_linear_velocity(w, a, (sn_vec2){0.0f, -30.0f});
  sn_body_set_linear_velocity(w, b, (sn_vec2){0.0f, -30.0f});
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  const sn_vec2 pa = sn_body_get_position(w, a), pb = sn_body_get_position(w, b);
  /* the case does what it is for: a stopped on the ledge, b with it */
  ck_assert_msg(pa.y > 0.1f - 0.005f && pa.y < 0.1f + 0.02f, "the falling box is at %g, expected 0.1", pa.y);
  ck_assert_msg(fabsf(pb.y - pa.y) < 1e-4f, "the pinned box is at %g, the stopped one at %g", pb.y, pa.y);
  const sn_body_id both[2] = {a, b};
  for (int i = 0; i < 2; ++i) check_square_box(w, both[i], 0.1f, i);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joints_more");
  TCase *tc = tcase_create("types");
  tcase_add_test(tc, test_filter);
  tcase_add_test(tc, test_pulley);
  tcase_add_test(tc, test_gear);
  tcase_add_test(tc, test_rotary_limit);
  tcase_add_test(tc, test_ratchet);
  tcase_add_test(tc, test_filter_fast);
  tcase_add_test(tc, test_jointed_bodies_stop_together);
  tcase_add_test(tc, test_held_back_body_box_follows);
  suite_add_tcase(s, tc);
  return s;
}
