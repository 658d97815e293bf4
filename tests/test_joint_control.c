/* Joint control through the parameter schema and readable joint state
 * (sinew/plugin.h ABI 1.3): sn_constraint_set_param refuses every bad call
 * with its own result and message and leaves the world byte for byte as it
 * was (the snapshot it saves is the same before and after), wakes both
 * bodies when it succeeds; sn_constraint_get_state reads the shipped joints'
 * published values, compared with the bodies' poses and velocities and the
 * motors' torque bounds; a type registered with an older descriptor (smaller
 * struct_size) is copied by its own size and publishes no state, and a
 * plugin built against the ABI 1.2 header loads, linked in and from its
 * file (the part test_joint_control.plugin_files). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "joint_support.h"
#include "sinew/sinew.h"
#include "sinew/soft.h"

static sn_registry *registry(void) {
  return js_registry((const char *const[]){"revolute", "prismatic", "wheel", "weld", "ratchet", NULL});
}

/* The world's snapshot bytes (malloc'd). */
static uint8_t *snap(sn_world *w, size_t *n) {
  ck_assert_int_eq(sn_world_save_snapshot(w, NULL, 0, n), SN_OK);
  uint8_t *bytes = malloc(*n);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_int_eq(sn_world_save_snapshot(w, bytes, *n, n), SN_OK);
  return bytes;
}

/* calls `call`, which must fail with `want` and a message containing
 * `needle`, and leave the world's snapshot bytes unchanged */
#define REFUSED(w, want, needle, call)                                                                                 \
  do {                                                                                                                 \
    size_t n0_, n1_;                                                                                                   \
    uint8_t *b0_ = snap(w, &n0_);                                                                                      \
    sn_result got_ = (call);                                                                                           \
    ck_assert_msg(got_ == (want), "%s: got %s, want %s (%s)", #call, sn_result_name(got_), sn_result_name(want),       \
                  sn_world_last_error(w));                                                                             \
    ck_assert_msg(strstr(sn_world_last_error(w), needle) != NULL, "%s: message '%s' lacks '%s'", #call,                \
                  sn_world_last_error(w), needle);                                                                     \
    uint8_t *b1_ = snap(w, &n1_);                                                                                      \
    ck_assert_msg(n0_ == n1_ && memcmp(b0_, b1_, n0_) == 0, "%s changed the world", #call);                            \
    free(b0_);                                                                                                         \
    free(b1_);                                                                                                         \
  } while (0)

/* A disc on a revolute joint to the ground, stepped a little so impulses
 * and velocities are not zero. */
typedef struct rig {
  sn_registry *r;
  sn_world *w;
  sn_body_id ground, disc;
  sn_constraint_id joint;
} rig;

static rig revolute_rig(void) {
  rig g;
  g.r = registry();
  g.w = js_world(g.r);
  g.ground = js_ground(g.w);
  g.disc = js_ball(g.w, (sn_vec2){1.0f, 0.0f}, 0.25f, 1.0f);
  sn_param_value v[5] = {{"anchor", 0.0, 0.0},
                         {"enable_motor", 1, 0},
                         {"motor_speed", 1.0, 0},
                         {"max_motor_torque", 2.0, 0},
                         {"enable_limit", 1, 0}};
  g.joint = js_joint(g.w, "revolute", g.ground, g.disc, v, 5);
  ck_assert_msg(sn_constraint_is_valid(g.w, g.joint), "%s", sn_world_last_error(g.w));
  ck_assert_int_eq(sn_constraint_set_param(g.w, g.joint, "lower_angle", -1.0, 0), SN_OK);
  ck_assert_int_eq(sn_constraint_set_param(g.w, g.joint, "upper_angle", 1.0, 0), SN_OK);
  for (int i = 0; i < 10; ++i) ck_assert_int_eq(sn_world_step(g.w, DT), SN_OK);
  return g;
}

static void rig_free(rig *g) {
  sn_destroy_world(g->w);
  sn_destroy_registry(g->r);
}

/* Every refusal of sn_constraint_set_param: its result, a message naming
 * the problem, and not a byte of the world changed. */
START_TEST(test_set_param_refusals) {
  rig g = revolute_rig();
  sn_world *w = g.w;
  REFUSED(w, SN_ERR_NOT_FINITE, "must be finite", sn_constraint_set_param(w, g.joint, "motor_speed", NAN, 0));
  REFUSED(w, SN_ERR_NOT_FINITE, "must be finite", sn_constraint_set_param(w, g.joint, "hertz", INFINITY, 0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "outside [0, 10000]", sn_constraint_set_param(w, g.joint, "hertz", -1.0, 0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "outside [-6.3, 6.3]",
          sn_constraint_set_param(w, g.joint, "target_angle", 7.0, 0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "whole number", sn_constraint_set_param(w, g.joint, "enable_spring", 0.5, 0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "outside [0, 1]", sn_constraint_set_param(w, g.joint, "enable_limit", 2.0, 0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "cannot change after creation",
          sn_constraint_set_param(w, g.joint, "anchor", 1.0, 1.0));
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "cannot change after creation",
          sn_constraint_set_param(w, g.joint, "pinned", 1.0, 0));
  REFUSED(w, SN_ERR_NOT_FOUND, "no parameter 'stiffness'", sn_constraint_set_param(w, g.joint, "stiffness", 1, 0));
  REFUSED(w, SN_ERR_NOT_FOUND, "no parameter '(null)'", sn_constraint_set_param(w, g.joint, NULL, 1, 0));
  /* a stale handle */
  sn_body_id other = js_ball(w, (sn_vec2){3.0f, 0.0f}, 0.25f, 1.0f);
  sn_constraint_id gone = js_joint(w, "weld", g.ground, other, NULL, 0);
  ck_assert(sn_constraint_is_valid(w, gone));
  ck_assert_int_eq(sn_destroy_constraint(w, gone), SN_OK);
  REFUSED(w, SN_ERR_STALE_ID, "", sn_constraint_set_param(w, gone, "linear_hertz", 1, 0));
  /* the value really stayed: a refused call did not write it */
  double x, y;
  ck_assert_int_eq(sn_constraint_get_param(w, g.joint, "motor_speed", &x, &y), SN_OK);
  ck_assert(x == 1.0 && y == 0.0);
  rig_free(&g);
}
END_TEST

/* A value the type's params_changed refuses (a ratchet with no spacing):
 * SN_ERR_INVALID_ARGUMENT with the plugin's reason, and the params and the
 * instance as they were (the world's bytes), though params_changed ran. */
START_TEST(test_set_param_plugin_refusal) {
  sn_registry *r = registry();
  sn_world *w = js_world(r);
  sn_body_id g = js_ground(w), wheel = js_ball(w, (sn_vec2){0.0f, 1.0f}, 0.5f, 1.0f);
  sn_param_value pin = {"anchor", 0.0, 1.0};
  ck_assert(sn_constraint_is_valid(w, js_joint(w, "revolute", g, wheel, &pin, 1)));
  sn_param_value v = {"ratchet", 0.25, 0};
  sn_constraint_id k = js_joint(w, "ratchet", g, wheel, &v, 1);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  sn_body_set_angular_velocity(w, wheel, 3.0f);
  for (int i = 0; i < 20; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  REFUSED(w, SN_ERR_INVALID_ARGUMENT, "spacing of at least 1e-4", sn_constraint_set_param(w, k, "ratchet", 0.0, 0));
  double x, y;
  ck_assert_int_eq(sn_constraint_get_param(w, k, "ratchet", &x, &y), SN_OK);
  ck_assert(x == 0.25);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A change wakes both bodies of a sleeping pair, and takes effect: the
 * motor switched on at 2 rad/s drives the disc to 2 rad/s (within 1 %). */
START_TEST(test_set_param_wakes) {
  sn_registry *r = registry();
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  sn_world *w = sn_create_world(&wd, NULL);
  sn_body_id a = js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 1.0f);
  sn_body_id b = js_ball(w, (sn_vec2){2.0f, 0.0f}, 0.5f, 1.0f);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_param_value v[2] = {{"anchor", 1.0, 0.0}, {"max_motor_torque", 100.0, 0}};
  sn_constraint_id k = js_joint(w, "revolute", a, b, v, 2);
  ck_assert(sn_constraint_is_valid(w, k));
  for (int i = 0; i < 120; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert(!sn_body_is_awake(w, a) && !sn_body_is_awake(w, b));
  ck_assert_int_eq(sn_constraint_set_param(w, k, "motor_speed", 2.0, 0), SN_OK);
  ck_assert(sn_body_is_awake(w, a) && sn_body_is_awake(w, b));
  ck_assert_int_eq(sn_constraint_set_param(w, k, "enable_motor", 1.0, 0), SN_OK);
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double speed, y;
  ck_assert_int_eq(sn_constraint_get_state(w, k, "speed", &speed, &y), SN_OK);
  ck_assert_msg(fabs(speed - 2.0) < 0.02, "relative speed %g rad/s, expected 2", speed);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Revolute state: angle = body angle (ground at angle 0, joint made at 0),
 * speed = its angular velocity, motor torque = the bound while the motor
 * cannot reach its speed (I dw/dt = tau: a disc of m = pi r^2 rho, I about
 * its centre m r^2 / 2 pinned at its centre). The schema is listed on the
 * type like the parameters. */
START_TEST(test_revolute_state) {
  sn_registry *r = registry();
  sn_world *w = js_world(r);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id g = js_ground(w), d = js_ball(w, (sn_vec2){0.0f, 0.0f}, 0.5f, 2.0f);
  sn_param_value v[4] = {
      {"anchor", 0.0, 0.0}, {"enable_motor", 1, 0}, {"motor_speed", 50.0, 0}, {"max_motor_torque", 0.3, 0}};
  sn_constraint_id k = js_joint(w, "revolute", g, d, v, 4);
  ck_assert(sn_constraint_is_valid(w, k));
  const sn_constraint_type *t = sn_constraint_get_type(w, k);
  ck_assert_uint_eq(t->state_count, 4);
  const char *const names[4] = {"angle", "speed", "motor_torque", "spring_torque"};
  for (int i = 0; i < 4; ++i) ck_assert_str_eq(t->states[i].name, names[i]);
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(w, k, "motor_torque", &x, &y), SN_OK);
  ck_assert(x == 0.0 && y == 0.0); /* no step yet */
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double angle, speed, torque, spring;
  ck_assert_int_eq(sn_constraint_get_state(w, k, "angle", &angle, &y), SN_OK);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "speed", &speed, &y), SN_OK);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "motor_torque", &torque, &y), SN_OK);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "spring_torque", &spring, &y), SN_OK);
  ck_assert_msg(fabs(angle - sn_body_get_angle(w, d)) < 1e-6, "angle %g, body %g", angle, sn_body_get_angle(w, d));
  ck_assert_msg(fabs(speed - sn_body_get_angular_velocity(w, d)) < 1e-6, "speed %g", speed);
  ck_assert_msg(fabs(torque - 0.3) < 1e-5, "motor torque %g N m, expected the bound 0.3", torque);
  ck_assert(spring == 0.0);
  /* I dw/dt = tau over 0.5 s */
  double m = PI * 0.25 * 2.0, inertia = 0.5 * m * 0.25;
  ck_assert_msg(fabs(speed - 0.3 / inertia * 0.5) < 0.01 * speed, "speed %g, expected %g", speed, 0.3 / inertia * 0.5);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Prismatic and wheel state: translation and speed along the axis from the
 * body's motion, the motors' force and torque at their bounds. */
START_TEST(test_prismatic_wheel_state) {
  sn_registry *r = registry();
  sn_world *w = js_world(r);
  sn_world_set_gravity(w, (sn_vec2){0.0f, 0.0f});
  sn_body_id g = js_ground(w);
  sn_body_id s = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.3f, 0.2f, (sn_vec2){0.0f, 0.0f}, 1.0f);
  sn_param_value v[5] = {{"anchor", 0.0, 0.0},
                         {"axis", 0.6, 0.8},
                         {"enable_motor", 1, 0},
                         {"motor_speed", 40.0, 0},
                         {"max_motor_force", 1.5, 0}};
  sn_constraint_id k = js_joint(w, "prismatic", g, s, v, 5);
  ck_assert(sn_constraint_is_valid(w, k));
  sn_body_id c = js_box(w, (sn_vec2){5.0f, 0.0f}, 0.0f, 1.0f, 0.2f, (sn_vec2){0.0f, 0.0f}, 1.0f);
  sn_body_id wh = js_ball(w, (sn_vec2){5.0f, -0.5f}, 0.3f, 1.0f);
  sn_param_value wv[6] = {{"anchor", 5.0, -0.5},      {"axis", 0.0, 1.0},           {"enable_motor", 1, 0},
                          {"motor_speed", -100.0, 0}, {"max_motor_torque", 0.2, 0}, {"hertz", 4.0, 0}};
  sn_constraint_id kw = js_joint(w, "wheel", c, wh, wv, 6);
  ck_assert(sn_constraint_is_valid(w, kw));
  sn_body_set_linear_velocity(w, wh, (sn_vec2){0.0f, 0.5f});
  for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  double x, y;
  sn_vec2 p = sn_body_get_position(w, s), vel = sn_body_get_linear_velocity(w, s);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "translation", &x, &y), SN_OK);
  ck_assert_msg(fabs(x - (0.6 * p.x + 0.8 * p.y)) < 1e-5, "translation %g", x);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "speed", &x, &y), SN_OK);
  ck_assert_msg(fabs(x - (0.6 * vel.x + 0.8 * vel.y)) < 1e-5, "speed %g", x);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "motor_force", &x, &y), SN_OK);
  ck_assert_msg(fabs(x - 1.5) < 1e-5, "motor force %g N, expected the bound 1.5", x);
  ck_assert_int_eq(sn_constraint_get_state(w, k, "spring_force", &x, &y), SN_OK);
  ck_assert(x == 0.0);
  /* the wheel: translation along its axis (up) from its anchor, spin relative to the chassis */
  sn_vec2 pc = sn_body_get_position(w, c), pw = sn_body_get_position(w, wh);
  float ac = sn_body_get_angle(w, c);
  double local_y = -sin(ac) * (pw.x - pc.x) + cos(ac) * (pw.y - pc.y); /* in the chassis frame */
  ck_assert_int_eq(sn_constraint_get_state(w, kw, "translation", &x, &y), SN_OK);
  ck_assert_msg(fabs(x - (local_y + 0.5)) < 1e-4, "wheel translation %g, expected %g", x, local_y + 0.5);
  ck_assert_int_eq(sn_constraint_get_state(w, kw, "speed", &x, &y), SN_OK);
  double spin = sn_body_get_angular_velocity(w, wh) - sn_body_get_angular_velocity(w, c);
  ck_assert_msg(fabs(x - spin) < 1e-5, "wheel spin %g, expected %g", x, spin);
  ck_assert_int_eq(sn_constraint_get_state(w, kw, "motor_torque", &x, &y), SN_OK);
  ck_assert_msg(fabs(x + 0.2) < 1e-5, "wheel motor torque %g N m, expected the bound -0.2", x);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* sn_constraint_get_state refusals: an unknown name, a type that publishes
 * none (weld), NULL outputs, a stale handle. */
START_TEST(test_get_state_refusals) {
  rig g = revolute_rig();
  sn_world *w = g.w;
  double x = 7.0, y = 7.0;
  REFUSED(w, SN_ERR_NOT_FOUND, "revolute has no state 'torque'", sn_constraint_get_state(w, g.joint, "torque", &x, &y));
  REFUSED(w, SN_ERR_NOT_FOUND, "no state '(null)'", sn_constraint_get_state(w, g.joint, NULL, &x, &y));
  REFUSED(w, SN_ERR_NULL, "must not be NULL", sn_constraint_get_state(w, g.joint, "angle", NULL, &y));
  REFUSED(w, SN_ERR_NULL, "must not be NULL", sn_constraint_get_state(w, g.joint, "angle", &x, NULL));
  ck_assert(x == 7.0 && y == 7.0);
  sn_body_id other = js_ball(w, (sn_vec2){3.0f, 0.0f}, 0.25f, 1.0f);
  sn_constraint_id weld = js_joint(w, "weld", g.ground, other, NULL, 0);
  ck_assert(sn_constraint_is_valid(w, weld));
  ck_assert_uint_eq(sn_constraint_get_type(w, weld)->state_count, 0);
  REFUSED(w, SN_ERR_NOT_FOUND, "publishes none", sn_constraint_get_state(w, weld, "angle", &x, &y));
  ck_assert_int_eq(sn_destroy_constraint(w, weld), SN_OK);
  REFUSED(w, SN_ERR_STALE_ID, "", sn_constraint_get_state(w, weld, "angle", &x, &y));
  rig_free(&g);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A host type that reads state from inside a step (test-only file-scope
 * state: hooks get no context)                                              */

static sn_world *g_step_world;
static sn_constraint_id g_step_joint;
static sn_result g_step_result;

static int probe_create(const sn_constraint_create_args *args) {
  (void)args;
  return 0;
}
static void probe_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
  double x, y;
  g_step_result = sn_constraint_get_state(g_step_world, g_step_joint, "spin_x", &x, &y);
}
static void probe_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)items, (void)count, (void)use_bias;
}
static void probe_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  (void)info;
  values[0].x = item->bodies[0]->state->w; /* the current angular velocity */
  values[0].y = item->bodies[0]->center.x;
}
static const sn_state_desc probe_states[] = {{1, SN_PARAM_VEC2, "spin_x", "rad/s and m"}};

/* Called during a step (here from a constraint's prepare), get_state is
 * refused with SN_ERR_WORLD_LOCKED. */
/* An impulse type of one body with the probe callbacks. */
static sn_constraint_type probe_impulse_type(const char *name) {
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.name = name;
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 1;
  t.params_size = t.params_align = t.instance_size = t.instance_align = 4;
  t.create = probe_create;
  t.prepare = probe_prepare;
  t.solve_velocity = probe_solve;
  return t;
}

START_TEST(test_get_state_in_step) {
  sn_registry *r = registry();
  sn_constraint_type t = probe_impulse_type("test.probe");
  t.struct_size = sizeof t;
  t.state_count = 1;
  t.states = probe_states;
  t.get_state = probe_state;
  char err[256];
  ck_assert_msg(sn_registry_add_type(r, &t, err, sizeof err) == SN_OK, "%s", err);
  sn_world *w = js_world(r);
  sn_body_id b = js_ball(w, (sn_vec2){1.5f, 0.0f}, 0.5f, 1.0f);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.probe";
  cd.bodies[0] = b;
  sn_constraint_id probe = sn_create_constraint(w, &cd);
  ck_assert(sn_constraint_is_valid(w, probe));
  g_step_world = w;
  g_step_joint = probe;
  g_step_result = SN_OK;
  ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  ck_assert_msg(g_step_result == SN_ERR_WORLD_LOCKED, "%s: %s", sn_result_name(g_step_result), sn_world_last_error(w));
  /* between steps it reads: a vec2 state, the body's current spin and place */
  sn_body_set_angular_velocity(w, b, 2.5f);
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(w, probe, "spin_x", &x, &y), SN_OK);
  ck_assert(x == 2.5);
  ck_assert(y == (double)sn_body_get_world_center_of_mass(w, b).x);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

static void many_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}
/* the particles' summed x velocity, and how many views came */
static void many_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  (void)info;
  values[0].x = 0.0f;
  for (int32_t i = 0; i < item->body_count; ++i) values[0].x += item->bodies[i]->state->v.x;
  values[0].y = (float)item->body_count;
}
static const sn_state_desc many_states[] = {{1, SN_PARAM_VEC2, "sum_count", "m/s and a count"}};

/* A constraint of more endpoints than the reader keeps on the stack (12
 * particles): every view comes, each with its particle's velocity
 * (1 m/s each: the sum 12). */
START_TEST(test_get_state_many_particles) {
  sn_registry *r = registry();
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.many";
  t.flags = SN_CONSTRAINT_XPBD;
  t.particle_count = SN_ANY_PARTICLES;
  t.params_size = t.params_align = t.instance_size = t.instance_align = 4;
  t.create = probe_create;
  t.solve_position = many_solve;
  t.state_count = 1;
  t.states = many_states;
  t.get_state = many_state;
  char err[256];
  ck_assert_msg(sn_registry_add_type(r, &t, err, sizeof err) == SN_OK, "%s", err);
  sn_world *w = js_world(r);
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sd);
  sn_particle_id ps[12];
  for (int i = 0; i < 12; ++i) {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){(float)i, 0.0f};
    pd.velocity = (sn_vec2){1.0f, 0.0f};
    ps[i] = sn_create_particle(w, soft, &pd);
  }
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.many";
  cd.particles = ps;
  cd.particle_count = 12;
  sn_constraint_id k = sn_create_constraint(w, &cd);
  ck_assert_msg(sn_constraint_is_valid(w, k), "%s", sn_world_last_error(w));
  double x, y;
  ck_assert_int_eq(sn_constraint_get_state(w, k, "sum_count", &x, &y), SN_OK);
  ck_assert(x == 12.0 && y == 12.0);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* An allocator that refuses while `refuse` is set (test-only). */
typedef struct refusing {
  bool refuse;
  long refused;
} refusing;
static void *refusing_alloc(size_t size, void *context) {
  refusing *a = context;
  if (a->refuse) {
    a->refused++;
    return NULL;
  }
  return malloc(size);
}
static void refusing_free(void *memory, size_t size, void *context) {
  (void)size, (void)context;
  free(memory);
}

/* Out of memory: sn_constraint_set_param on a type with params_changed
 * keeps a copy of the instance to put back, and sn_constraint_get_state of
 * a constraint with more than 8 endpoints takes its views from the
 * allocator; when that fails each returns SN_ERR_OUT_OF_MEMORY with a
 * message, and the parameter keeps its value (the world's bytes unchanged). */
START_TEST(test_out_of_memory) {
  sn_registry *r = registry();
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.many";
  t.flags = SN_CONSTRAINT_XPBD;
  t.particle_count = SN_ANY_PARTICLES;
  t.params_size = t.params_align = t.instance_size = t.instance_align = 4;
  t.create = probe_create;
  t.solve_position = many_solve;
  t.state_count = 1;
  t.states = many_states;
  t.get_state = many_state;
  char err[256];
  ck_assert_msg(sn_registry_add_type(r, &t, err, sizeof err) == SN_OK, "%s", err);
  refusing a = {false, 0};
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.allocator = (sn_allocator){refusing_alloc, refusing_free, &a};
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_body_id g = js_ground(w);
  sn_body_id b = js_box(w, (sn_vec2){0.0f, 0.0f}, 0.0f, 0.3f, 0.2f, (sn_vec2){0, 0}, 1.0f);
  sn_param_value v[2] = {{"anchor", 0.0, 0.0}, {"axis", 1.0, 0.0}};
  sn_constraint_id slide = js_joint(w, "prismatic", g, b, v, 2);
  ck_assert(sn_constraint_is_valid(w, slide));
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id soft = sn_create_soft_body(w, &sd);
  sn_particle_id ps[12];
  for (int i = 0; i < 12; ++i) {
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){(float)i, 3.0f};
    ps[i] = sn_create_particle(w, soft, &pd);
  }
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.many";
  cd.particles = ps;
  cd.particle_count = 12;
  sn_constraint_id many = sn_create_constraint(w, &cd);
  ck_assert(sn_constraint_is_valid(w, many));
  for (int i = 0; i < 5; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
  size_t n0, n1;
  uint8_t *before = snap(w, &n0);
  a.refuse = true;
  ck_assert_int_eq(sn_constraint_set_param(w, slide, "motor_speed", 3.0, 0), SN_ERR_OUT_OF_MEMORY);
  ck_assert_msg(strstr(sn_world_last_error(w), "cannot change prismatic.motor_speed") != NULL, "%s",
                sn_world_last_error(w));
  double x = 7.0, y = 7.0;
  ck_assert_int_eq(sn_constraint_get_state(w, many, "sum_count", &x, &y), SN_ERR_OUT_OF_MEMORY);
  ck_assert_msg(strstr(sn_world_last_error(w), "cannot read test.many state") != NULL, "%s", sn_world_last_error(w));
  ck_assert(x == 7.0 && y == 7.0);
  /* a few endpoints: read from the stack, no allocation */
  ck_assert_int_eq(sn_constraint_get_state(w, slide, "translation", &x, &y), SN_OK);
  ck_assert_int_ge(a.refused, 2);
  a.refuse = false;
  uint8_t *after = snap(w, &n1);
  ck_assert(n0 == n1 && memcmp(before, after, n0) == 0);
  free(before);
  free(after);
  ck_assert_int_eq(sn_constraint_get_param(w, slide, "motor_speed", &x, &y), SN_OK);
  ck_assert(x == 0.0);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The new types refuse what cannot work, at creation, with their reason:
 * a ratchet without a tooth spacing, a pulley whose rope has no length (the
 * body anchors on the ground anchors). */
START_TEST(test_create_refusals) {
  sn_registry *r = js_registry((const char *const[]){"ratchet", "pulley", NULL});
  sn_world *w = js_world(r);
  sn_body_id g = js_ground(w), a = js_ball(w, (sn_vec2){0, 0}, 0.2f, 1.0f), b = js_ball(w, (sn_vec2){2, 0}, 0.2f, 1.0f);
  sn_param_value none = {"ratchet", 0.0, 0};
  ck_assert(!sn_constraint_is_valid(w, js_joint(w, "ratchet", g, a, &none, 1)));
  ck_assert_msg(strstr(sn_world_last_error(w), "spacing of at least 1e-4") != NULL, "%s", sn_world_last_error(w));
  sn_param_value v[4] = {{"ground_anchor_a", 0, 0}, {"ground_anchor_b", 2, 0}, {"anchor_a", 0, 0}, {"anchor_b", 2, 0}};
  ck_assert(!sn_constraint_is_valid(w, js_joint(w, "pulley", a, b, v, 4)));
  ck_assert_msg(strstr(sn_world_last_error(w), "the rope has no length") != NULL, "%s", sn_world_last_error(w));
  ck_assert_int_eq(sn_world_get_constraint_count(w), 0);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* Registers the first size bytes of t as a descriptor of that struct_size,
 * from a block of exactly that size (ASan catches any read past it). */
static sn_result add_cut_type(sn_registry *r, const sn_constraint_type *t, size_t size, char *err, size_t cap) {
  sn_constraint_type *cut = malloc(size);
  ck_assert_ptr_nonnull(cut);
  memcpy(cut, t, size);
  cut->struct_size = (uint32_t)size;
  sn_result res = sn_registry_add_type(r, cut, err, cap);
  free(cut);
  return res;
}

/* A struct_size that ends inside a callback field (any byte of it) leaves
 * that callback unset in the host's copy: a partial pointer is never kept,
 * so never called (the descriptor fuzzer found project cut after its first
 * byte, called at address 0x50). Every pointer field past ABI 1.0. */
START_TEST(test_descriptor_size_inside_a_field) {
  sn_constraint_type full = probe_impulse_type("test.cut");
  const size_t fields[] = {offsetof(sn_constraint_type, project),         offsetof(sn_constraint_type, export_params),
                           offsetof(sn_constraint_type, solve_particles), offsetof(sn_constraint_type, begin_position),
                           offsetof(sn_constraint_type, begin_particles), offsetof(sn_constraint_type, states),
                           offsetof(sn_constraint_type, get_state)};
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; ++f) {
    for (size_t cut = 1; cut < sizeof(void *); ++cut) {
      const size_t size = fields[f] + cut;
      /* the cut field holds a real callback's address (its bytes) */
      sn_constraint_type with = full;
      void (*fn)(const sn_step_info *, sn_constraint_item *, int32_t) = probe_prepare;
      memcpy((unsigned char *)(void *)&with + fields[f], &fn, sizeof fn);
      sn_registry *r = sn_create_registry(NULL);
      char err[256] = "";
      ck_assert_msg(add_cut_type(r, &with, size, err, sizeof err) == SN_OK, "field %zu cut %zu: %s", f, cut, err);
      const sn_constraint_type *copy = sn_registry_find_type(r, "test.cut");
      ck_assert_ptr_nonnull(copy);
      const unsigned char *bytes = (const unsigned char *)(const void *)copy;
      void *field = NULL;
      memcpy(&field, bytes + fields[f], sizeof field);
      ck_assert_msg(field == NULL, "field %zu cut after %zu bytes kept a partial pointer", f, cut);
      sn_destroy_registry(r);
    }
  }
}
END_TEST

/* A host type whose descriptor is that of an older header (struct_size
 * ending before the 1.3 fields, in a block of exactly that size: ASan
 * catches any read past it) registers, is copied by its own size, and its
 * copy publishes no state; a bad state schema is refused. */
START_TEST(test_older_descriptor_size) {
  sn_constraint_type full = probe_impulse_type("test.old");
  const size_t sizes[2] = {offsetof(sn_constraint_type, state_count),                  /* ABI 1.2 */
                           offsetof(sn_constraint_type, debug_draw) + sizeof(void *)}; /* ABI 1.0 */
  for (int k = 0; k < 2; ++k) {
    sn_registry *r = sn_create_registry(NULL);
    char err[256] = "";
    ck_assert_msg(add_cut_type(r, &full, sizes[k], err, sizeof err) == SN_OK, "%s", err);
    const sn_constraint_type *copy = sn_registry_find_type(r, "test.old");
    ck_assert_ptr_nonnull(copy);
    ck_assert_uint_eq(copy->struct_size, sizeof(sn_constraint_type));
    ck_assert_uint_eq(copy->state_count, 0);
    ck_assert_ptr_null(copy->states);
    ck_assert(copy->get_state == NULL);
    sn_destroy_registry(r);
  }
  /* the current size: a state schema is checked */
  sn_registry *r = sn_create_registry(NULL);
  char err[256] = "";
  full.struct_size = sizeof full;
  full.state_count = 1;
  full.states = probe_states;
  ck_assert_int_eq(sn_registry_add_type(r, &full, err, sizeof err), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(err, "needs states and get_state") != NULL, "%s", err);
  full.get_state = probe_state;
  const sn_state_desc bad_kind[] = {{1, SN_PARAM_INT, "count", NULL}};
  full.states = bad_kind;
  ck_assert_int_eq(sn_registry_add_type(r, &full, err, sizeof err), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(err, "FLOAT or VEC2 only") != NULL, "%s", err);
  const sn_state_desc twice[] = {{1, SN_PARAM_FLOAT, "a", NULL}, {2, SN_PARAM_FLOAT, "a", NULL}};
  full.states = twice;
  full.state_count = 2;
  ck_assert_int_eq(sn_registry_add_type(r, &full, err, sizeof err), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(err, "share an id or name") != NULL, "%s", err);
  const sn_state_desc bad_name[] = {{1, SN_PARAM_FLOAT, "Angle", NULL}};
  full.states = bad_name;
  full.state_count = 1;
  ck_assert_int_eq(sn_registry_add_type(r, &full, err, sizeof err), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(err, "invalid name") != NULL, "%s", err);
  full.state_count = SN_MAX_CONSTRAINT_STATES + 1;
  ck_assert_int_eq(sn_registry_add_type(r, &full, err, sizeof err), SN_ERR_PLUGIN_BAD_DESCRIPTOR);
  ck_assert_msg(strstr(err, "state_count 65 above 64") != NULL, "%s", err);
  full.states = probe_states;
  full.state_count = 1;
  ck_assert_msg(sn_registry_add_type(r, &full, err, sizeof err) == SN_OK, "%s", err);
  ck_assert_int_eq(sn_registry_get_type_count(r), 1);
  sn_destroy_registry(r);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A plugin written for ABI 1.2 keeps loading                                 */

SN_DECLARE_STATIC_PLUGIN(create_1_2);
SN_DECLARE_STATIC_PLUGIN(create_args);

/* The fixture spring (tests/plugins/create_form.c) built against the ABI 1.2
 * header kept in tests/plugins/abi_1_2 (entry minor 2, a descriptor that ends
 * before the state fields) and against this one: both register (files = 1:
 * loaded from their files), the 1.2 one without state, the current one with
 * its "length" (the distance from its anchor body to its box, 5 m at
 * creation, read back exactly as the box's centre gives it after steps); both hang a box at the
 * same place, bit for bit. */
static void check_old_and_new(int files) {
  sn_registry *r = sn_create_registry(NULL);
  char err[512] = "";
  if (!files) {
    ck_assert_msg(sn_registry_add_static(r, &sn_plugin_entry_create_1_2, err, sizeof err) == SN_OK, "%s", err);
    ck_assert_msg(sn_registry_add_static(r, &sn_plugin_entry_create_args, err, sizeof err) == SN_OK, "%s", err);
  } else {
    const char *const paths[2] = {SN_CREATE_FORM_DIR "/fixture_create_1_2" SN_CREATE_FORM_SUFFIX,
                                  SN_CREATE_FORM_DIR "/fixture_create_args" SN_CREATE_FORM_SUFFIX};
    for (int k = 0; k < 2; ++k)
      ck_assert_msg(sn_registry_load_plugin(r, paths[k], err, sizeof err) == SN_OK, "%s: %s", paths[k], err);
  }
  ck_assert_uint_eq(sn_plugin_entry_create_1_2.abi_minor, 2);
  ck_assert_uint_eq(sn_plugin_entry_create_args.abi_minor, SN_PLUGIN_ABI_MINOR);
  const sn_constraint_type *old = sn_registry_find_type(r, "fixture.create_1_2");
  const sn_constraint_type *now = sn_registry_find_type(r, "fixture.create_args");
  ck_assert(old != NULL && now != NULL);
  ck_assert_uint_eq(old->state_count, 0);
  ck_assert(old->get_state == NULL);
  ck_assert_uint_eq(now->state_count, 1);
  ck_assert_str_eq(now->states[0].name, "length");
  /* each in a world of its own, the same box hung the same way */
  const char *const types[2] = {"fixture.create_1_2", "fixture.create_args"};
  sn_vec2 end[2];
  for (int f = 0; f < 2; ++f) {
    sn_world *w = js_world(r);
    sn_body_id g = js_ground(w);
    sn_body_id hung = js_box(w, (sn_vec2){3.0f, -4.0f}, 0.0f, 0.2f, 0.2f, (sn_vec2){0, 0}, 1.0f);
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = types[f];
    cd.bodies[0] = g;
    cd.bodies[1] = hung;
    sn_constraint_id k = sn_create_constraint(w, &cd);
    ck_assert_msg(sn_constraint_is_valid(w, k), "%s: %s", types[f], sn_world_last_error(w));
    double x, y;
    if (f == 0) {
      ck_assert_int_eq(sn_constraint_get_state(w, k, "length", &x, &y), SN_ERR_NOT_FOUND);
    } else {
      ck_assert_int_eq(sn_constraint_get_state(w, k, "length", &x, &y), SN_OK);
      ck_assert_msg(fabs(x - 5.0) < 1e-6, "length %g, expected 5", x);
    }
    for (int i = 0; i < 30; ++i) ck_assert_int_eq(sn_world_step(w, DT), SN_OK);
    end[f] = sn_body_get_position(w, hung);
    if (f == 1) {
      ck_assert_int_eq(sn_constraint_get_state(w, k, "length", &x, &y), SN_OK);
      sn_vec2 c = sn_body_get_world_center_of_mass(w, hung);
      ck_assert(x == (double)sqrtf(c.x * c.x + c.y * c.y));
    }
    sn_destroy_world(w);
  }
  ck_assert_msg(end[0].x == end[1].x && end[0].y == end[1].y, "(%g, %g) and (%g, %g)", end[0].x, end[0].y, end[1].x,
                end[1].y);
  sn_destroy_registry(r);
}

START_TEST(test_abi_1_2_plugin_linked) { check_old_and_new(0); }
END_TEST

START_TEST(test_abi_1_2_plugin_file) { check_old_and_new(1); }
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("joint_control");
  TCase *tc = tcase_create("control");
  tcase_add_test(tc, test_set_param_refusals);
  tcase_add_test(tc, test_set_param_plugin_refusal);
  tcase_add_test(tc, test_set_param_wakes);
  tcase_add_test(tc, test_revolute_state);
  tcase_add_test(tc, test_prismatic_wheel_state);
  tcase_add_test(tc, test_get_state_refusals);
  tcase_add_test(tc, test_get_state_in_step);
  tcase_add_test(tc, test_get_state_many_particles);
  tcase_add_test(tc, test_out_of_memory);
  tcase_add_test(tc, test_create_refusals);
  tcase_add_test(tc, test_older_descriptor_size);
  tcase_add_test(tc, test_descriptor_size_inside_a_field);
  tcase_add_test(tc, test_abi_1_2_plugin_linked);
  suite_add_tcase(s, tc);
  TCase *files = tcase_create("plugin_files");
  tcase_add_test(files, test_abi_1_2_plugin_file);
  sn_test_add_part(&sn_need_plugin_files, files);
  return s;
}
