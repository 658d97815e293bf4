/* Bodies and shapes under the application's control: rolling resistance and
 * tangent speed (conveyors) against closed forms, the friction and
 * restitution mixing rules and their callbacks, mass data overrides, fixed
 * rotation, kinematic targets, explosions and their falloff, user data on
 * worlds, chains and constraints; each error path leaves the world as it
 * was; snapshots and scene files carry the shapes' new material bit for bit. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/scene_file.h"
#include "sinew/sinew.h"

#define G  10.0f
#define DT (1.0f / 60.0f)
#define PI 3.14159265358979f

static sn_world *make_world(float gravity) {
  sn_world_def def = sn_default_world_def();
  def.gravity = (sn_vec2){0.0f, -gravity};
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

/* A static box of half extents (hx, hy) centred at c. */
static sn_shape_id ground_box(sn_world *w, float hx, float hy, sn_vec2 c, float friction, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.position = c;
  bd.angle = angle;
  sn_body_id g = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(hx, hy, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = friction;
  sn_shape_id s = sn_create_polygon_shape(w, g, &sd, &box);
  ck_assert(sn_shape_is_valid(w, s));
  return s;
}

static sn_body_id dynamic_box(sn_world *w, sn_vec2 p, float h, float friction, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  bd.angle = angle;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(h, h, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = friction;
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
  return b;
}

static sn_body_id dynamic_ball(sn_world *w, sn_vec2 p, float r, const sn_shape_def *sd) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  sn_circle c = {{0.0f, 0.0f}, r};
  ck_assert(sn_shape_is_valid(w, sn_create_circle_shape(w, b, sd, &c)));
  return b;
}

/* ------------------------------------------------------------------------ */
/* Rolling resistance and tangent speed                                     */

/* A solid disc rolling without slipping on level ground with rolling
 * resistance c: the resisting torque c r N and the friction force give
 * dv/dt = -c g / (1 + I / (m r^2)) = -c g / 1.5 (I = m r^2 / 2). From v0 it
 * stops after v0^2 / (2 a) metres. */
START_TEST(test_rolling_resistance_stops_a_disc) {
  const float r = 0.5f, c = 0.05f, v0 = 2.0f;
  const float a = c * G / 1.5f;
  sn_world *w = make_world(G);
  ground_box(w, 50.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 1.0f, 0.0f);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 1.0f;
  sd.rolling_resistance = c;
  sn_body_id ball = dynamic_ball(w, (sn_vec2){0.0f, r}, r, &sd);
  sn_body_set_linear_velocity(w, ball, (sn_vec2){v0, 0.0f});
  sn_body_set_angular_velocity(w, ball, -v0 / r);
  /* settle the contact for a few steps, then measure from there */
  for (int i = 0; i < 6; ++i) sn_world_step(w, DT);
  float t0 = 6 * DT, x0 = sn_body_get_position(w, ball).x, u0 = sn_body_get_linear_velocity(w, ball).x;
  ck_assert_msg(fabsf(u0 - (v0 - a * t0)) < 0.01f * v0, "speed %g after %g s, closed form %g", (double)u0, (double)t0,
                (double)(v0 - a * t0));
  for (int i = 0; i < 60; ++i) sn_world_step(w, DT);
  float u1 = sn_body_get_linear_velocity(w, ball).x;
  float expected = u0 - a * 1.0f;
  ck_assert_msg(fabsf(u1 - expected) < 0.02f * v0, "speed %g one second later, closed form %g", (double)u1,
                (double)expected);
  for (int i = 0; i < 600; ++i) sn_world_step(w, DT);
  float dist = sn_body_get_position(w, ball).x - x0;
  float stop = u0 * u0 / (2.0f * a);
  ck_assert_msg(fabsf(sn_body_get_linear_velocity(w, ball).x) < 1e-3f, "still rolling at %g m/s",
                (double)sn_body_get_linear_velocity(w, ball).x);
  ck_assert_msg(fabsf(dist - stop) < 0.03f * stop, "rolled %g m, closed form %g m", (double)dist, (double)stop);
  ck_assert_int_ne(sn_shape_set_rolling_resistance(w, (sn_shape_id){0}, 1.0f), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/* A box on a conveyor (a static box whose surface moves at s): friction
 * carries it up to the belt's speed, to +x on the top face for s > 0, and
 * no faster. */
START_TEST(test_conveyor_carries_a_box) {
  const float s = 2.0f;
  sn_world *w = make_world(G);
  sn_shape_id belt = ground_box(w, 20.0f, 0.25f, (sn_vec2){0.0f, -0.25f}, 0.8f, 0.0f);
  ck_assert_int_eq(sn_shape_set_tangent_speed(w, belt, s), SN_OK);
  ck_assert_float_eq(sn_shape_get_tangent_speed(w, belt), s);
  sn_body_id box = dynamic_box(w, (sn_vec2){0.0f, 0.5f}, 0.5f, 0.8f, 0.0f);
  /* friction 0.8 accelerates it at 8 m/s^2: at the belt's speed after 0.25 s */
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  sn_vec2 v = sn_body_get_linear_velocity(w, box);
  ck_assert_msg(fabsf(v.x - s) < 0.01f * s && fabsf(v.y) < 0.01f, "box at (%g, %g) m/s on a %g m/s belt", (double)v.x,
                (double)v.y, (double)s);
  ck_assert_msg(fabsf(sn_body_get_angle(w, box)) < 1e-3f, "the box tipped: %g rad", (double)sn_body_get_angle(w, box));
  /* reversed at run time: it comes back at -s (and the sleeping box wakes) */
  ck_assert_int_eq(sn_shape_set_tangent_speed(w, belt, -s), SN_OK);
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  v = sn_body_get_linear_velocity(w, box);
  ck_assert_msg(fabsf(v.x + s) < 0.01f * s, "box at %g m/s on a %g m/s belt", (double)v.x, (double)-s);
  /* bad values leave it as it was */
  ck_assert_int_eq(sn_shape_set_tangent_speed(w, belt, NAN), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_shape_set_tangent_speed(w, belt, 2.0f * SN_MAX_SPEED), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_shape_set_rolling_resistance(w, belt, -1.0f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_shape_set_rolling_resistance(w, belt, INFINITY), SN_ERR_NOT_FINITE);
  ck_assert_float_eq(sn_shape_get_tangent_speed(w, belt), -s);
  ck_assert_float_eq(sn_shape_get_rolling_resistance(w, belt), 0.0f);
  sn_shape_def sd = sn_default_shape_def();
  sd.tangent_speed = NAN;
  sn_circle c = {{0.0f, 0.0f}, 0.1f};
  sn_body_id b = sn_create_body(w, &(sn_body_def){0});
  ck_assert(!sn_body_is_valid(w, b)); /* an uninitialised def is refused too */
  b = sn_create_body(w, &(sn_body_def){.cookie = sn_default_body_def().cookie});
  int32_t before = sn_world_get_counters(w).shape_count;
  ck_assert(!sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
  sd.tangent_speed = 0.0f;
  sd.rolling_resistance = -0.5f;
  ck_assert(!sn_shape_is_valid(w, sn_create_circle_shape(w, b, &sd, &c)));
  ck_assert_int_eq(sn_world_get_counters(w).shape_count, before);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Mixing rules                                                              */

typedef struct mix_log {
  int calls;
  int32_t material_a, material_b;
} mix_log;

static float zero_friction(float fa, int32_t ma, float fb, int32_t mb, void *context) {
  (void)fa;
  (void)fb;
  mix_log *log = context;
  log->calls++;
  log->material_a = ma;
  log->material_b = mb;
  return ma == 7 || mb == 7 ? 0.0f : NAN;
}

static float full_bounce(float ra, int32_t ma, float rb, int32_t mb, void *context) {
  (void)ra;
  (void)rb;
  (void)ma;
  (void)mb;
  (void)context;
  return 1.0f;
}

/* On a 30 degree incline with friction 1 a box sticks (tan 30 = 0.58 < 1).
 * A friction callback that gives material 7 no friction makes it slide at
 * g sin 30 = 5 m/s^2; a callback value out of range (NaN) keeps the default
 * rule's sqrt(fa fb), and the box sticks. */
START_TEST(test_friction_callback) {
  const float angle = (PI / 6.0f);
  for (int slide = 0; slide < 2; ++slide) {
    sn_world *w = make_world(G);
    mix_log log = {0, -1, -1};
    ck_assert_int_eq(sn_world_set_friction_callback(w, zero_friction, &log), SN_OK);
    sn_shape_id ramp = ground_box(w, 20.0f, 0.5f, (sn_vec2){0.0f, 0.0f}, 1.0f, angle);
    sn_vec2 n = {-sinf(angle), cosf(angle)};
    sn_body_id box = dynamic_box(w, (sn_vec2){n.x * 1.0f, n.y * 1.0f}, 0.5f, 1.0f, angle);
    sn_shape_id box_shape;
    sn_body_get_shapes(w, box, &box_shape, 1);
    if (slide) ck_assert_int_eq(sn_shape_set_material(w, box_shape, 7), SN_OK);
    ck_assert_int_eq(sn_shape_get_material(w, box_shape), slide ? 7 : 0);
    for (int i = 0; i < 30; ++i) sn_world_step(w, DT);
    sn_vec2 v0 = sn_body_get_linear_velocity(w, box);
    for (int i = 0; i < 30; ++i) sn_world_step(w, DT);
    sn_vec2 v1 = sn_body_get_linear_velocity(w, box);
    float along = ((v1.x - v0.x) * cosf(angle) + (v1.y - v0.y) * sinf(angle)) / 0.5f;
    ck_assert_int_gt(log.calls, 0);
    ck_assert(log.material_a == (slide ? 7 : 0) || log.material_b == (slide ? 7 : 0));
    if (slide) {
      ck_assert_msg(fabsf(along + G * 0.5f) < 0.02f * G * 0.5f, "slides at %g m/s^2, g sin 30 = %g", (double)along,
                    (double)(G * 0.5f));
    } else {
      ck_assert_msg(fabsf(v1.x) < 1e-3f && fabsf(v1.y) < 1e-3f, "the box slid (%g, %g) m/s", (double)v1.x,
                    (double)v1.y);
    }
    (void)ramp;
    sn_destroy_world(w);
  }
}
END_TEST

/* Restitution 0 on both shapes, but a callback that says 1: a ball dropped
 * from h comes back to h (within 3 %). Cleared, the next bounce is dead. */
START_TEST(test_restitution_callback) {
  sn_world *w = make_world(G);
  ground_box(w, 10.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.6f, 0.0f);
  sn_shape_def sd = sn_default_shape_def();
  sn_body_id ball = dynamic_ball(w, (sn_vec2){0.0f, 3.0f}, 0.25f, &sd);
  ck_assert_int_eq(sn_world_set_restitution_callback(w, full_bounce, NULL), SN_OK);
  float top = 0.0f;
  bool fell = false;
  for (int i = 0; i < 180; ++i) {
    sn_world_step(w, DT);
    float y = sn_body_get_position(w, ball).y;
    if (y < 0.5f) fell = true;
    if (fell) top = fmaxf(top, y);
  }
  ck_assert_msg(fabsf(top - 3.0f) < 0.03f * 2.75f, "bounced back to %g m of 3 m", (double)top);
  ck_assert_int_eq(sn_world_set_restitution_callback(w, NULL, NULL), SN_OK);
  for (int i = 0; i < 240; ++i) sn_world_step(w, DT);
  ck_assert_msg(sn_body_get_position(w, ball).y < 0.3f, "still bouncing without the callback: %g m",
                (double)sn_body_get_position(w, ball).y);
  ck_assert_int_eq(sn_world_set_friction_callback(NULL, NULL, NULL), SN_ERR_NULL);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Mass data and fixed rotation                                              */

START_TEST(test_mass_data_override) {
  sn_world *w = make_world(0.0f);
  sn_body_id box = dynamic_box(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 0.6f, 0.0f);
  /* a 1 m x 1 m box of density 1: 1 kg, I = m (1 + 1) / 12 */
  ck_assert_float_eq_tol(sn_body_get_mass(w, box), 1.0f, 1e-6f);
  sn_mass_data md = {4.0f, {0.5f, 0.0f}, 2.0f};
  ck_assert_int_eq(sn_body_set_mass_data(w, box, md), SN_OK);
  sn_mass_data got = sn_body_get_mass_data(w, box);
  ck_assert_float_eq(got.mass, 4.0f);
  ck_assert_float_eq(got.center.x, 0.5f);
  ck_assert_float_eq(got.rotational_inertia, 2.0f);
  /* an impulse J at the centre of mass: v = J / m, no spin; a torque impulse: w = L / I */
  sn_body_apply_linear_impulse(w, box, (sn_vec2){2.0f, 0.0f}, sn_body_get_world_center_of_mass(w, box), true);
  sn_body_apply_angular_impulse(w, box, 1.0f, true);
  ck_assert_float_eq_tol(sn_body_get_linear_velocity(w, box).x, 0.5f, 1e-6f);
  ck_assert_float_eq_tol(sn_body_get_angular_velocity(w, box), 0.5f, 1e-6f);
  /* the override survives a snapshot */
  size_t size = 0;
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, &size), SN_OK);
  void *bytes = malloc(size);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, size, &size), SN_OK);
  sn_world *copy = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(bytes, size, NULL, &copy, NULL, 0), SN_OK);
  ck_assert_float_eq(sn_body_get_mass(copy, box), 4.0f);
  ck_assert_float_eq(sn_body_get_rotational_inertia(copy, box), 2.0f);
  sn_destroy_world(copy);
  free(bytes);
  /* refused: each leaves the override as it was */
  ck_assert_int_eq(sn_body_set_mass_data(w, box, (sn_mass_data){0.0f, {0, 0}, 1.0f}), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_body_set_mass_data(w, box, (sn_mass_data){1.0f, {0, 0}, -1.0f}), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_body_set_mass_data(w, box, (sn_mass_data){NAN, {0, 0}, 1.0f}), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_body_set_mass_data(w, box, (sn_mass_data){1.0f, {INFINITY, 0}, 1.0f}), SN_ERR_NOT_FINITE);
  ck_assert_float_eq(sn_body_get_mass(w, box), 4.0f);
  ck_assert_float_eq(sn_body_get_local_center_of_mass(w, box).x, 0.5f);
  sn_body_id ground = sn_create_body(w, &(sn_body_def){.cookie = sn_default_body_def().cookie});
  ck_assert_int_eq(sn_body_set_mass_data(w, ground, md), SN_ERR_WRONG_BODY_TYPE);
  /* back to the shapes' mass */
  ck_assert_int_eq(sn_body_apply_mass_from_shapes(w, box), SN_OK);
  ck_assert_float_eq_tol(sn_body_get_mass(w, box), 1.0f, 1e-6f);
  ck_assert_float_eq_tol(sn_body_get_rotational_inertia(w, box), 2.0f / 12.0f, 1e-6f);
  ck_assert_float_eq_tol(sn_body_get_local_center_of_mass(w, box).x, 0.0f, 1e-6f);
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_fixed_rotation_at_run_time) {
  sn_world *w = make_world(0.0f);
  sn_body_id box = dynamic_box(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 0.6f, 0.0f);
  sn_body_set_angular_velocity(w, box, 3.0f);
  ck_assert_int_eq(sn_body_set_fixed_rotation(w, box, true), SN_OK);
  ck_assert(sn_body_is_fixed_rotation(w, box));
  ck_assert_float_eq(sn_body_get_angular_velocity(w, box), 0.0f);
  ck_assert_float_eq(sn_body_get_rotational_inertia(w, box), 0.0f);
  /* an off-centre impulse moves it without turning it */
  sn_body_apply_linear_impulse(w, box, (sn_vec2){0.0f, 1.0f}, (sn_vec2){0.5f, 0.0f}, true);
  sn_world_step(w, DT);
  ck_assert_float_eq(sn_body_get_angle(w, box), 0.0f);
  ck_assert_float_eq_tol(sn_body_get_linear_velocity(w, box).y, 1.0f, 1e-6f);
  ck_assert_int_eq(sn_body_set_fixed_rotation(w, box, false), SN_OK);
  ck_assert_float_eq_tol(sn_body_get_rotational_inertia(w, box), 2.0f / 12.0f, 1e-6f);
  ck_assert_int_ne(sn_body_set_fixed_rotation(w, (sn_body_id){0}, true), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Kinematic targets                                                         */

START_TEST(test_kinematic_target) {
  sn_world *w = make_world(G);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_KINEMATIC;
  sn_body_id platform = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(1.0f, 0.1f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, platform, &sd, &box);
  /* a path of targets, one per step: the body is on each one after its step */
  for (int i = 1; i <= 60; ++i) {
    float t = (float)i * DT;
    sn_vec2 p = {2.0f * sinf(t), 0.5f * t};
    float angle = 0.4f * t;
    ck_assert_int_eq(sn_body_set_target_transform(w, platform, p, angle, DT), SN_OK);
    sn_world_step(w, DT);
    sn_vec2 at = sn_body_get_position(w, platform);
    ck_assert_msg(fabsf(at.x - p.x) < 1e-4f && fabsf(at.y - p.y) < 1e-4f, "step %d: at (%g, %g), target (%g, %g)", i,
                  (double)at.x, (double)at.y, (double)p.x, (double)p.y);
    ck_assert_msg(fabsf(sn_body_get_angle(w, platform) - angle) < 1e-4f, "step %d: angle %g, target %g", i,
                  (double)sn_body_get_angle(w, platform), (double)angle);
  }
  /* the shortest turn: from 0.4 rad to 0.4 + 2 pi - 0.1 rad turns by -0.1 */
  ck_assert_int_eq(
      sn_body_set_target_transform(w, platform, sn_body_get_position(w, platform), 0.4f + 2.0f * PI - 0.1f, 1.0f),
      SN_OK);
  ck_assert_float_eq_tol(sn_body_get_angular_velocity(w, platform), -0.1f, 1e-4f);
  sn_vec2 v = sn_body_get_linear_velocity(w, platform);
  ck_assert_int_eq(sn_body_set_target_transform(w, platform, (sn_vec2){0, 0}, 0.0f, 0.0f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(sn_body_set_target_transform(w, platform, (sn_vec2){NAN, 0}, 0.0f, DT), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_body_set_target_transform(w, platform, (sn_vec2){1e6f, 0}, 0.0f, 1e-3f), SN_ERR_INVALID_ARGUMENT);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, platform).x, v.x);
  sn_body_id ground = sn_create_body(w, &(sn_body_def){.cookie = sn_default_body_def().cookie});
  ck_assert_int_eq(sn_body_set_target_transform(w, ground, (sn_vec2){1, 0}, 0.0f, DT), SN_ERR_WRONG_BODY_TYPE);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Explosions                                                                */

/* Discs of radius 0.25 (width 0.5 across any push) at surface distances 1,
 * 2.5 and 4.5 m from a blast of radius 2, falloff 2: scales 1, 0.75 and 0;
 * speed = impulse_per_length x scale x 0.5 / m, pointing away from it. A
 * disc of another category stays. A particle of radius 0.1 at 1 m gets
 * impulse_per_length x 0.2 / m_p. */
START_TEST(test_explosion_falloff) {
  sn_world *w = make_world(0.0f);
  const float r = 0.25f, k = 3.0f;
  sn_shape_def sd = sn_default_shape_def();
  sn_body_id near = dynamic_ball(w, (sn_vec2){1.0f + r, 0.0f}, r, &sd);
  sn_body_id mid = dynamic_ball(w, (sn_vec2){0.0f, -(2.5f + r)}, r, &sd);
  sn_body_id far = dynamic_ball(w, (sn_vec2){-(4.5f + r), 0.0f}, r, &sd);
  sd.category_bits = 2;
  sn_body_id other = dynamic_ball(w, (sn_vec2){0.0f, 1.0f + r}, r, &sd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){-0.8f, -0.8f};
  pd.radius = 0.1f;
  pd.mass = 0.05f;
  sn_soft_body_def sbd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sbd);
  sn_particle_id particle = sn_create_particle(w, soft, &pd);
  ck_assert(sn_particle_is_valid(w, particle));
  float m = sn_body_get_mass(w, near);

  sn_explosion_def def = sn_default_explosion_def();
  def.radius = 2.0f;
  def.falloff = 2.0f;
  def.impulse_per_length = k;
  def.mask_bits = 1;
  ck_assert_int_eq(sn_world_explode(w, &def), SN_OK);
  sn_vec2 vn = sn_body_get_linear_velocity(w, near), vm = sn_body_get_linear_velocity(w, mid);
  ck_assert_float_eq_tol(vn.x, k * 1.0f * 0.5f / m, 1e-4f * k / m);
  ck_assert_float_eq_tol(vn.y, 0.0f, 1e-5f);
  ck_assert_float_eq_tol(vm.y, -k * 0.75f * 0.5f / m, 1e-4f * k / m);
  ck_assert_float_eq_tol(vm.x, 0.0f, 1e-5f);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, far).x, 0.0f);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, other).y, 0.0f);
  /* pushed at the closest point, straight away from the blast: no spin */
  ck_assert_float_eq_tol(sn_body_get_angular_velocity(w, near), 0.0f, 1e-5f);
  sn_vec2 vp = sn_particle_get_velocity(w, particle);
  float dp = sqrtf(0.8f * 0.8f * 2.0f) - 0.1f; /* 1.03 m: in the falloff */
  float expect = k * (1.0f - (dp - 2.0f) / 2.0f) * 0.2f / 0.05f;
  if (dp <= 2.0f) expect = k * 0.2f / 0.05f;
  ck_assert_float_eq_tol(sqrtf(vp.x * vp.x + vp.y * vp.y), expect, 1e-3f * expect);
  ck_assert(vp.x < 0.0f && vp.y < 0.0f);

  /* without particles; then the refusals, none of which pushes anything */
  sn_particle_set_velocity(w, particle, (sn_vec2){0, 0});
  def.affect_particles = false;
  ck_assert_int_eq(sn_world_explode(w, &def), SN_OK);
  ck_assert_float_eq(sn_particle_get_velocity(w, particle).x, 0.0f);
  sn_vec2 before = sn_body_get_linear_velocity(w, near);
  sn_explosion_def bad = def;
  bad.position.x = NAN;
  ck_assert_int_eq(sn_world_explode(w, &bad), SN_ERR_NOT_FINITE);
  bad = def;
  bad.radius = -1.0f;
  ck_assert_int_eq(sn_world_explode(w, &bad), SN_ERR_INVALID_ARGUMENT);
  bad = def;
  bad.cookie = 0;
  ck_assert_int_eq(sn_world_explode(w, &bad), SN_ERR_UNINITIALIZED_DEF);
  ck_assert_int_eq(sn_world_explode(w, NULL), SN_ERR_NULL);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, near).x, before.x);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* User data                                                                 */

START_TEST(test_user_data_everywhere) {
  sn_world *w = make_world(G);
  int tag_world, tag_chain, tag_chain2;
  ck_assert_int_eq(sn_world_set_user_data(w, &tag_world), SN_OK);
  ck_assert_ptr_eq(sn_world_get_user_data(w), &tag_world);
  ck_assert_ptr_null(sn_world_get_user_data(NULL));
  sn_body_id ground = sn_create_body(w, &(sn_body_def){.cookie = sn_default_body_def().cookie});
  sn_vec2 pts[4] = {{-3, 1}, {-2, 0}, {2, 0}, {3, 1}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 4;
  cd.user_data = &tag_chain;
  sn_chain_id chain = sn_create_chain(w, ground, &cd);
  ck_assert_ptr_eq(sn_chain_get_user_data(w, chain), &tag_chain);
  ck_assert_int_eq(sn_chain_set_user_data(w, chain, &tag_chain2), SN_OK);
  ck_assert_ptr_eq(sn_chain_get_user_data(w, chain), &tag_chain2);
  sn_destroy_chain(w, chain);
  ck_assert_int_eq(sn_chain_set_user_data(w, chain, NULL), SN_ERR_STALE_ID);
  ck_assert_ptr_null(sn_chain_get_user_data(w, chain));
  sn_constraint_id stale = {1, 1, 1};
  ck_assert_int_ne(sn_constraint_set_user_data(w, stale, NULL), SN_OK);
  ck_assert_ptr_null(sn_constraint_get_user_data(w, stale));
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Snapshots and scene files                                                 */

START_TEST(test_material_round_trips) {
  sn_world *w = make_world(G);
  sn_shape_id belt = ground_box(w, 5.0f, 0.25f, (sn_vec2){0.0f, -0.25f}, 0.8f, 0.0f);
  sn_shape_set_tangent_speed(w, belt, 1.25f);
  sn_shape_set_material(w, belt, 42);
  sn_shape_def sd = sn_default_shape_def();
  sd.rolling_resistance = 0.125f;
  sn_body_id ball = dynamic_ball(w, (sn_vec2){0.0f, 0.3f}, 0.3f, &sd);
  for (int i = 0; i < 30; ++i) sn_world_step(w, DT);
  /* snapshot: the same bytes again, and the same motion */
  size_t size = 0;
  sn_world_save_snapshot(w, NULL, 0, &size);
  unsigned char *a = malloc(size), *b = malloc(size);
  ck_assert_int_eq(sn_world_save_snapshot(w, a, size, &size), SN_OK);
  sn_world *copy = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(a, size, NULL, &copy, NULL, 0), SN_OK);
  size_t size2 = 0;
  ck_assert_int_eq(sn_world_save_snapshot(copy, b, size, &size2), SN_OK);
  ck_assert(size2 == size && memcmp(a, b, size) == 0);
  ck_assert_float_eq(sn_shape_get_tangent_speed(copy, belt), 1.25f);
  ck_assert_int_eq(sn_shape_get_material(copy, belt), 42);
  for (int i = 0; i < 30; ++i) {
    sn_world_step(w, DT);
    sn_world_step(copy, DT);
  }
  sn_vec2 p1 = sn_body_get_position(w, ball), p2 = sn_body_get_position(copy, ball);
  ck_assert(memcmp(&p1, &p2, sizeof p1) == 0);
  sn_destroy_world(copy);
  /* scene file: the keys written and read back */
  sn_scene_error err;
  char *text = sn_scene_save_string(w, NULL, &err);
  ck_assert_ptr_nonnull(text);
  ck_assert_ptr_nonnull(strstr(text, "\"tangent_speed\": 1.25"));
  ck_assert_ptr_nonnull(strstr(text, "\"material\": 42"));
  ck_assert_ptr_nonnull(strstr(text, "\"rolling_resistance\": 0.125"));
  sn_loaded_scene scene;
  sn_scene_load_options opt = sn_default_scene_load_options();
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "round trip", &opt, &scene, &err), SN_SCENE_OK);
  sn_body_id bodies[2];
  ck_assert_int_eq(sn_world_get_bodies(scene.world, bodies, 2), 2);
  sn_shape_id s0, s1;
  sn_body_get_shapes(scene.world, bodies[0], &s0, 1);
  sn_body_get_shapes(scene.world, bodies[1], &s1, 1);
  ck_assert_float_eq(sn_shape_get_tangent_speed(scene.world, s0), 1.25f);
  ck_assert_int_eq(sn_shape_get_material(scene.world, s0), 42);
  ck_assert_float_eq(sn_shape_get_rolling_resistance(scene.world, s1), 0.125f);
  sn_scene_unload(&scene);
  sn_scene_free_text(text);
  const char *bad = "{\"sinew_scene\": 1, \"bodies\": [{\"type\": \"static\", \"shapes\": [{\"circle\": 1, "
                    "\"rolling_resistance\": -1}]}]}";
  ck_assert_int_eq(sn_scene_load_string(bad, strlen(bad), "bad", &opt, &scene, &err), SN_SCENE_ERR_RANGE);
  free(a);
  free(b);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Segments and chains on moving bodies; geometry changed at run time        */

/* A 1 m box with a 3 m segment 0.3 m below its bottom (a skid): it lands
 * on the ground on the segment, its origin 0.8 m above the ground's top. A
 * kinematic chain floor rising at 1 m/s lifts a box at that speed. */
START_TEST(test_segments_on_moving_bodies) {
  sn_world *w = make_world(G);
  ground_box(w, 20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.6f, 0.0f);
  sn_body_id sled = dynamic_box(w, (sn_vec2){0.0f, 2.0f}, 0.5f, 0.6f, 0.0f);
  sn_segment skid = {{-1.5f, -0.8f}, {1.5f, -0.8f}};
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_segment_shape(w, sled, &sd, &skid)));
  ck_assert_float_eq_tol(sn_body_get_mass(w, sled), 1.0f, 1e-6f); /* the segment adds no mass */

  sn_body_def kd = sn_default_body_def();
  kd.type = SN_BODY_KINEMATIC;
  kd.position = (sn_vec2){10.0f, 1.0f};
  sn_body_id lift = sn_create_body(w, &kd);
  /* points from +x to -x: the floor collides from above (the right side) */
  sn_vec2 pts[4] = {{3.0f, 0.0f}, {2.0f, 0.0f}, {-2.0f, 0.0f}, {-3.0f, 0.0f}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 4;
  ck_assert(sn_chain_is_valid(w, sn_create_chain(w, lift, &cd)));
  sn_body_id cargo = dynamic_box(w, (sn_vec2){10.0f, 1.5f}, 0.5f, 0.6f, 0.0f);
  for (int i = 0; i < 60; ++i) sn_world_step(w, DT);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, lift, (sn_vec2){0.0f, 1.0f}), SN_OK);
  for (int i = 0; i < 60; ++i) sn_world_step(w, DT);
  float y = sn_body_get_position(w, sled).y;
  ck_assert_msg(fabsf(y - 0.8f) < 0.01f, "the sled rests at %g m, on its skid 0.8 m", (double)y);
  ck_assert_float_eq_tol(sn_body_get_linear_velocity(w, cargo).y, 1.0f, 0.01f);
  float gap = sn_body_get_position(w, cargo).y - sn_body_get_position(w, lift).y;
  ck_assert_msg(fabsf(gap - 0.5f) < 0.01f, "the cargo rides %g m above the lift floor", (double)gap);
  /* a body with a segment changes type freely */
  ck_assert_int_eq(sn_body_set_type(w, sled, SN_BODY_STATIC), SN_OK);
  ck_assert_int_eq(sn_body_set_type(w, sled, SN_BODY_DYNAMIC), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/* A ball of radius 0.5 resting on the ground grows to radius 1: the mass
 * follows (pi r^2 density), the contact begins again and it rests 1 m up.
 * As a 0.6 m box it rests 0.6 m up. Refusals change nothing. */
START_TEST(test_shape_geometry_at_run_time) {
  sn_world *w = make_world(G);
  ground_box(w, 20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.6f, 0.0f);
  sn_shape_def sd = sn_default_shape_def();
  sn_body_id ball = dynamic_ball(w, (sn_vec2){0.0f, 0.5f}, 0.5f, &sd);
  sn_shape_id shape;
  sn_body_get_shapes(w, ball, &shape, 1);
  for (int i = 0; i < 30; ++i) sn_world_step(w, DT);
  sn_circle big = {{0.0f, 0.0f}, 1.0f};
  ck_assert_int_eq(sn_shape_set_circle(w, shape, &big), SN_OK);
  ck_assert_float_eq_tol(sn_body_get_mass(w, ball), PI, 1e-5f);
  ck_assert(sn_body_is_awake(w, ball));
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  ck_assert_msg(fabsf(sn_body_get_position(w, ball).y - 1.0f) < 0.01f, "the grown ball rests at %g m",
                (double)sn_body_get_position(w, ball).y);
  sn_polygon box;
  sn_make_box(0.6f, 0.6f, &box);
  ck_assert_int_eq(sn_shape_set_polygon(w, shape, &box), SN_OK);
  ck_assert_int_eq(sn_shape_get_type(w, shape), SN_SHAPE_POLYGON);
  ck_assert_float_eq_tol(sn_body_get_mass(w, ball), 1.44f, 1e-5f);
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  ck_assert_msg(fabsf(sn_body_get_position(w, ball).y - 0.6f) < 0.01f, "the box rests at %g m",
                (double)sn_body_get_position(w, ball).y);
  sn_circle bad = {{0.0f, 0.0f}, -1.0f};
  ck_assert_int_eq(sn_shape_set_circle(w, shape, &bad), SN_ERR_INVALID_ARGUMENT);
  bad.radius = NAN;
  ck_assert_int_eq(sn_shape_set_circle(w, shape, &bad), SN_ERR_NOT_FINITE);
  ck_assert_int_eq(sn_shape_set_circle(w, shape, NULL), SN_ERR_NULL);
  sn_capsule flat = {{0.0f, 0.0f}, {0.0f, 0.0f}, 0.2f};
  ck_assert_int_eq(sn_shape_set_capsule(w, shape, &flat), SN_ERR_DEGENERATE_POLYGON);
  sn_segment dot = {{1.0f, 1.0f}, {1.0f, 1.0f}};
  ck_assert_int_eq(sn_shape_set_segment(w, shape, &dot), SN_ERR_DEGENERATE_POLYGON);
  ck_assert_int_eq(sn_shape_get_type(w, shape), SN_SHAPE_POLYGON);
  ck_assert_float_eq_tol(sn_body_get_mass(w, ball), 1.44f, 1e-5f);
  /* a chain's segments keep their geometry */
  sn_body_id ground = sn_create_body(w, &(sn_body_def){.cookie = sn_default_body_def().cookie});
  sn_vec2 pts[4] = {{-3, 1}, {-2, 0}, {2, 0}, {3, 1}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 4;
  sn_create_chain(w, ground, &cd);
  sn_shape_id link;
  ck_assert_int_eq(sn_body_get_shapes(w, ground, &link, 1), 1);
  sn_segment seg = {{0, 0}, {1, 0}};
  ck_assert_int_eq(sn_shape_set_segment(w, link, &seg), SN_ERR_INVALID_ARGUMENT);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Disabling bodies                                                          */

static int count_ray_hits(sn_world *w, sn_vec2 from, sn_vec2 to) {
  sn_ray_result r;
  memset(&r, 0, sizeof r);
  sn_world_cast_ray_closest(w, from, (sn_vec2){to.x - from.x, to.y - from.y}, sn_default_query_filter(), &r);
  return r.hit ? 1 : 0;
}

/* A box resting on a plank: the plank disabled, the box falls through it to
 * the ground and the plank stays where it was, unmoved by an impulse; its contact ended with an end event; rays miss
 * it; a revolute joint on it idles. Enabled again it wakes and falls. The state survives a snapshot and a scene file.
 */
START_TEST(test_disable_and_enable) {
  sn_world *w = make_world(G);
  ground_box(w, 20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.6f, 0.0f);
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = (sn_vec2){0.0f, 2.0f};
  bd.gravity_scale = 0.0f;
  sn_body_id plank = sn_create_body(w, &bd);
  sn_polygon p;
  sn_make_box(2.0f, 0.1f, &p);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, plank, &sd, &p);
  /* held up by nothing but its 1000 kg inertia (no gravity on it) */
  sn_body_set_mass_data(w, plank, (sn_mass_data){1000.0f, {0, 0}, 1000.0f});
  sn_body_id box = dynamic_box(w, (sn_vec2){0.0f, 2.6f}, 0.5f, 0.6f, 0.0f);
  for (int i = 0; i < 20; ++i) sn_world_step(w, DT);
  ck_assert_int_eq(count_ray_hits(w, (sn_vec2){3.0f, 2.0f}, (sn_vec2){1.5f, 2.0f}), 1);

  ck_assert_int_eq(sn_body_disable(w, plank), SN_OK);
  ck_assert(!sn_body_is_enabled(w, plank));
  ck_assert(!sn_body_is_awake(w, plank));
  ck_assert_int_eq(sn_body_disable(w, plank), SN_OK); /* again: nothing */
  ck_assert_int_eq(count_ray_hits(w, (sn_vec2){3.0f, 2.0f}, (sn_vec2){1.5f, 2.0f}), 0);
  sn_vec2 at = sn_body_get_position(w, plank);
  sn_body_apply_linear_impulse(w, plank, (sn_vec2){0.0f, 100.0f}, at, true);
  ck_assert(!sn_body_is_awake(w, plank));
  sn_world_step(w, DT);
  sn_contact_events ev = sn_world_get_contact_events(w);
  ck_assert_int_ge(ev.end_count, 1);
  for (int i = 0; i < 90; ++i) sn_world_step(w, DT);
  ck_assert_msg(fabsf(sn_body_get_position(w, box).y - 0.5f) < 0.01f, "the box is at %g m, on the ground",
                (double)sn_body_get_position(w, box).y);
  sn_vec2 still = sn_body_get_position(w, plank);
  ck_assert(memcmp(&still, &at, sizeof at) == 0);

  /* snapshot and scene file keep it disabled */
  size_t size = 0;
  sn_world_save_snapshot(w, NULL, 0, &size);
  void *bytes = malloc(size);
  sn_world_save_snapshot(w, bytes, size, &size);
  sn_world *copy = NULL;
  ck_assert_int_eq(sn_world_load_snapshot(bytes, size, NULL, &copy, NULL, 0), SN_OK);
  ck_assert(!sn_body_is_enabled(copy, plank));
  sn_world_step(copy, DT);
  ck_assert(memcmp(&still, &(sn_vec2){sn_body_get_position(copy, plank).x, sn_body_get_position(copy, plank).y},
                   sizeof still) == 0);
  sn_destroy_world(copy);
  free(bytes);
  sn_scene_error err;
  char *text = sn_scene_save_string(w, NULL, &err);
  ck_assert_ptr_nonnull(strstr(text, "\"enabled\": false"));
  sn_loaded_scene scene;
  sn_scene_load_options opt = sn_default_scene_load_options();
  ck_assert_int_eq(sn_scene_load_string(text, strlen(text), "disabled", &opt, &scene, &err), SN_SCENE_OK);
  sn_body_id ids[3];
  ck_assert_int_eq(sn_world_get_bodies(scene.world, ids, 3), 3);
  ck_assert(!sn_body_is_enabled(scene.world, ids[1]));
  ck_assert(sn_body_is_enabled(scene.world, ids[2]));
  sn_scene_unload(&scene);
  sn_scene_free_text(text);

  /* back: it wakes and, given gravity, falls onto the box */
  ck_assert_int_eq(sn_body_enable(w, plank), SN_OK);
  sn_body_set_gravity_scale(w, plank, 1.0f);
  sn_body_apply_mass_from_shapes(w, plank); /* 0.8 kg */
  ck_assert(sn_body_is_enabled(w, plank));
  ck_assert(sn_body_is_awake(w, plank));
  for (int i = 0; i < 120; ++i) sn_world_step(w, DT);
  ck_assert_msg(fabsf(sn_body_get_position(w, plank).y - 1.1f) < 0.02f, "the plank is at %g m, on the box",
                (double)sn_body_get_position(w, plank).y);
  ck_assert_int_ne(sn_body_disable(w, (sn_body_id){0}), SN_OK);
  sn_destroy_world(w);
}
END_TEST

/* Contacts with and without a tangent speed or rolling resistance solved
 * side by side (they share the solver's lane groups): boxes on the plain
 * ground stay put, boxes on the belt reach its speed, balls with rolling
 * resistance slow down and balls without it keep rolling. */
START_TEST(test_surface_lanes_mixed) {
  sn_world *w = make_world(G);
  ground_box(w, 20.0f, 0.25f, (sn_vec2){-20.5f, -0.25f}, 0.8f, 0.0f);
  sn_shape_id belt = ground_box(w, 20.0f, 0.25f, (sn_vec2){20.5f, -0.25f}, 0.8f, 0.0f);
  sn_shape_set_tangent_speed(w, belt, 1.0f);
  sn_body_id still[8], carried[8], slowed[4], free_balls[4];
  for (int i = 0; i < 8; ++i) {
    still[i] = dynamic_box(w, (sn_vec2){-30.0f + 2.0f * (float)i, 0.5f}, 0.5f, 0.8f, 0.0f);
    carried[i] = dynamic_box(w, (sn_vec2){3.0f + 2.0f * (float)i, 0.5f}, 0.5f, 0.8f, 0.0f);
  }
  for (int i = 0; i < 4; ++i) {
    sn_shape_def sd = sn_default_shape_def();
    sd.friction = 1.0f;
    sd.rolling_resistance = 0.1f;
    slowed[i] = dynamic_ball(w, (sn_vec2){-14.0f + 2.0f * (float)i, 0.25f}, 0.25f, &sd);
    sd.rolling_resistance = 0.0f;
    free_balls[i] = dynamic_ball(w, (sn_vec2){-4.5f + 1.0f * (float)i, 0.25f}, 0.25f, &sd);
    sn_body_set_linear_velocity(w, slowed[i], (sn_vec2){1.0f, 0.0f});
    sn_body_set_angular_velocity(w, slowed[i], -4.0f);
  }
  for (int i = 0; i < 4; ++i) sn_world_step(w, DT);
  for (int i = 0; i < 4; ++i) {
    sn_body_set_linear_velocity(w, free_balls[i], (sn_vec2){-1.0f, 0.0f});
    sn_body_set_angular_velocity(w, free_balls[i], 4.0f);
  }
  for (int i = 0; i < 60; ++i) sn_world_step(w, DT);
  for (int i = 0; i < 8; ++i) {
    ck_assert_msg(fabsf(sn_body_get_linear_velocity(w, still[i]).x) < 1e-4f, "plain box %d moves at %g m/s", i,
                  (double)sn_body_get_linear_velocity(w, still[i]).x);
    ck_assert_msg(fabsf(sn_body_get_linear_velocity(w, carried[i]).x - 1.0f) < 0.01f, "belt box %d at %g m/s", i,
                  (double)sn_body_get_linear_velocity(w, carried[i]).x);
  }
  /* one second of c g / 1.5 = 0.667 m/s^2 from about 1 m/s; the free balls stay near -1 m/s */
  for (int i = 0; i < 4; ++i) {
    float v = sn_body_get_linear_velocity(w, slowed[i]).x;
    ck_assert_msg(v < 0.45f && v > 0.2f, "rolling-resistant ball %d at %g m/s", i, (double)v);
  }
  for (int i = 0; i < 4; ++i)
    ck_assert_msg(fabsf(sn_body_get_linear_velocity(w, free_balls[i]).x + 1.0f) < 0.02f, "free ball %d at %g m/s", i,
                  (double)sn_body_get_linear_velocity(w, free_balls[i]).x);
  sn_destroy_world(w);
}
END_TEST

/* A body created asleep stays asleep while its shapes are added and while
 * nothing touches it, even resting on (or in) other sleeping bodies; a box
 * dropped onto it wakes it when they touch. */
START_TEST(test_created_asleep_stays_asleep) {
  sn_world *w = make_world(G);
  ground_box(w, 20.0f, 0.5f, (sn_vec2){0.0f, -0.5f}, 0.6f, 0.0f);
  sn_body_id sleepers[3];
  for (int i = 0; i < 3; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.is_awake = false;
    bd.position = (sn_vec2){(float)i * 1.0f, 0.5f}; /* side by side, touching */
    sleepers[i] = sn_create_body(w, &bd);
    sn_polygon box;
    sn_make_box(0.5f, 0.5f, &box);
    sn_shape_def sd = sn_default_shape_def();
    sn_create_polygon_shape(w, sleepers[i], &sd, &box);
    ck_assert(!sn_body_is_awake(w, sleepers[i]));
  }
  sn_body_id dropped = dynamic_box(w, (sn_vec2){0.0f, 3.0f}, 0.5f, 0.6f, 0.0f);
  for (int i = 0; i < 20; ++i) sn_world_step(w, DT);
  for (int i = 0; i < 3; ++i) ck_assert_msg(!sn_body_is_awake(w, sleepers[i]), "sleeper %d woke by itself", i);
  for (int i = 0; i < 40; ++i) sn_world_step(w, DT);
  ck_assert_msg(sn_body_is_awake(w, sleepers[0]), "the box landed on the sleeper without waking it");
  ck_assert_msg(sn_body_get_position(w, dropped).y > 1.4f, "the dropped box sank to %g m",
                (double)sn_body_get_position(w, dropped).y);
  sn_destroy_world(w);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("body_control");
  TCase *tc = tcase_create("body_control");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rolling_resistance_stops_a_disc);
  tcase_add_test(tc, test_conveyor_carries_a_box);
  tcase_add_test(tc, test_surface_lanes_mixed);
  tcase_add_test(tc, test_friction_callback);
  tcase_add_test(tc, test_restitution_callback);
  tcase_add_test(tc, test_mass_data_override);
  tcase_add_test(tc, test_fixed_rotation_at_run_time);
  tcase_add_test(tc, test_kinematic_target);
  tcase_add_test(tc, test_explosion_falloff);
  tcase_add_test(tc, test_user_data_everywhere);
  tcase_add_test(tc, test_material_round_trips);
  tcase_add_test(tc, test_segments_on_moving_bodies);
  tcase_add_test(tc, test_shape_geometry_at_run_time);
  tcase_add_test(tc, test_disable_and_enable);
  tcase_add_test(tc, test_created_asleep_stays_asleep);
  suite_add_tcase(s, tc);
  return s;
}
