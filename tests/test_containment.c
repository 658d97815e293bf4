/* Containment: a body or particle whose state goes non-finite (here through
 * deliberately broken constraint types registered by the host) is reported
 * through a frozen event, put back where the step found it, stopped and
 * frozen; everything else keeps stepping as if nothing happened.
 * g = (0, -10), dt = 1/60. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/sinew.h"

static int poison_create(const sn_constraint_create_args *args) {
  (void)args;
  return 0;
}
static void poison_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info, (void)items, (void)count;
}
/* an impulse type that writes NaN into its body's velocity */
static void poison_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)use_bias;
  for (int32_t i = 0; i < count; ++i) items[i].bodies[0]->state->v.x = NAN;
}
/* an XPBD type that writes NaN into its particle's motion (an infinity would be
 * clamped to the speed limit like any motion: the particle moves at it) */
static void poison_position(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) items[i].bodies[0]->state->dp.y = NAN;
}

/* an impulse type that hands its first body's velocity to its second: a
 * NaN there spreads */
static void spread_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info, (void)use_bias;
  for (int32_t i = 0; i < count; ++i) items[i].bodies[1]->state->v = items[i].bodies[0]->state->v;
}

static sn_registry *poison_registry(void) {
  sn_registry *r = sn_create_registry(NULL);
  char msg[256];
  sn_constraint_type t;
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.poison_body";
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 1;
  t.params_align = t.instance_align = 4;
  t.create = poison_create;
  t.prepare = poison_prepare;
  t.solve_velocity = poison_solve;
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_OK);
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.poison_particle";
  t.flags = SN_CONSTRAINT_XPBD;
  t.particle_count = 1;
  t.params_align = t.instance_align = 4;
  t.create = poison_create;
  t.solve_position = poison_position;
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_OK);
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.name = "test.spread";
  t.flags = SN_CONSTRAINT_IMPULSE;
  t.body_count = 2;
  t.params_align = t.instance_align = 4;
  t.create = poison_create;
  t.prepare = poison_prepare;
  t.solve_velocity = spread_solve;
  ck_assert_int_eq(sn_registry_add_type(r, &t, msg, sizeof msg), SN_OK);
  return r;
}

static sn_world *world_checked(const sn_registry *r, bool check_plugins) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.enable_sleep = false;
  wd.check_plugins = check_plugins;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

static sn_world *world(const sn_registry *r) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = r;
  wd.enable_sleep = false;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

static sn_body_id box(sn_world *w, sn_vec2 p) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = p;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon poly;
  sn_make_box(0.5f, 0.5f, &poly);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, b, &sd, &poly);
  return b;
}

/* Box A gets a NaN velocity from its constraint in the first step: one
 * frozen event naming A; A stays at (0, 10) with zero velocity; box B,
 * falling freely beside it, is where free fall puts it after 1 and 11 steps
 * (y = 10 - g t (t + h) / 2 with semi-implicit substeps, within 1e-4);
 * no further events while A is frozen; teleporting A unfreezes it and the
 * broken constraint freezes it again. */
START_TEST(test_body_containment) {
  sn_registry *r = poison_registry();
  sn_world *w = world(r);
  sn_body_id a = box(w, (sn_vec2){0.0f, 10.0f}), b = box(w, (sn_vec2){5.0f, 10.0f});
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.poison_body";
  cd.bodies[0] = a;
  ck_assert(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)));
  ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  const sn_frozen_event *events = NULL;
  ck_assert_int_eq(sn_world_get_frozen_events(w, &events), 1);
  ck_assert_int_eq(events[0].body.index1, a.index1);
  ck_assert_int_eq(events[0].particle.index1, 0);
  ck_assert(sn_body_is_frozen(w, a));
  ck_assert(!sn_body_is_frozen(w, b));
  ck_assert_float_eq(sn_body_get_position(w, a).x, 0.0f);
  ck_assert_float_eq(sn_body_get_position(w, a).y, 10.0f);
  ck_assert_float_eq(sn_body_get_linear_velocity(w, a).x, 0.0f);
  for (int i = 0; i < 10; ++i) {
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    ck_assert_int_eq(sn_world_get_frozen_events(w, NULL), 0);
  }
  /* 11 steps of 8 substeps, h = 1/480: y = 10 - g h^2 n (n + 1) / 2 */
  double h = 1.0 / 480.0, n = 88.0;
  ck_assert_float_eq_tol(sn_body_get_position(w, b).y, 10.0 - 10.0 * h * h * n * (n + 1.0) / 2.0, 1e-4);
  ck_assert_float_eq(sn_body_get_position(w, a).y, 10.0f);
  ck_assert_int_eq(sn_body_set_transform(w, a, (sn_vec2){0.0f, 20.0f}, 0.0f), SN_OK);
  ck_assert(!sn_body_is_frozen(w, a));
  sn_world_step(w, 1.0f / 60.0f);
  ck_assert_int_eq(sn_world_get_frozen_events(w, NULL), 1);
  ck_assert_float_eq(sn_body_get_position(w, a).y, 20.0f);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* A particle whose XPBD constraint writes infinity into its motion: one
 * frozen event naming it, it stays at its start, the other particle of the
 * same soft body falls freely (within 1e-4 m of semi-implicit free fall);
 * a teleport unfreezes it. */
START_TEST(test_particle_containment) {
  sn_registry *r = poison_registry();
  sn_world *w = world(r);
  sn_soft_body_def sd = sn_default_soft_body_def();
  sn_soft_body_id s = sn_create_soft_body(w, &sd);
  sn_particle_def pd = sn_default_particle_def();
  pd.position = (sn_vec2){0.0f, 5.0f};
  sn_particle_id p = sn_create_particle(w, s, &pd);
  pd.position = (sn_vec2){3.0f, 5.0f};
  sn_particle_id q = sn_create_particle(w, s, &pd);
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "test.poison_particle";
  cd.particles = &p;
  cd.particle_count = 1;
  ck_assert(sn_constraint_is_valid(w, sn_create_constraint(w, &cd)));
  for (int i = 0; i < 5; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  ck_assert(sn_particle_is_frozen(w, p));
  ck_assert(!sn_particle_is_frozen(w, q));
  ck_assert_float_eq(sn_particle_get_position(w, p).y, 5.0f);
  double h = 1.0 / 480.0, n = 40.0; /* free fall over 5 steps of 8 substeps */
  ck_assert_float_eq_tol(sn_particle_get_position(w, q).y, 5.0 - 10.0 * h * h * n * (n + 1.0) / 2.0, 1e-4);
  ck_assert_int_eq(sn_particle_set_position(w, p, (sn_vec2){0.0f, 6.0f}), SN_OK);
  ck_assert(!sn_particle_is_frozen(w, p));
  sn_world_step(w, 1.0f / 60.0f);
  const sn_frozen_event *events = NULL;
  ck_assert_int_eq(sn_world_get_frozen_events(w, &events), 1);
  ck_assert_int_eq(events[0].particle.index1, p.index1);
  ck_assert_float_eq(sn_particle_get_position(w, p).y, 6.0f);
  sn_destroy_world(w);
  sn_destroy_registry(r);
}
END_TEST

/* The frozen event of a state a plugin spoiled names the culprit with
 * check_plugins: box A's poison constraint (solve_velocity), and for box B,
 * which A's NaN reached through a second constraint, that one. Without the
 * checks the same bodies freeze and no constraint is named. A particle's
 * XPBD poison is named with solve_position. */
START_TEST(test_plugin_culprit_named) {
  sn_registry *r = poison_registry();
  for (int checked = 0; checked < 2; ++checked) {
    sn_world *w = world_checked(r, checked != 0);
    sn_body_id a = box(w, (sn_vec2){0.0f, 10.0f}), b = box(w, (sn_vec2){5.0f, 10.0f});
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "test.poison_body";
    cd.bodies[0] = a;
    sn_constraint_id poison = sn_create_constraint(w, &cd);
    ck_assert(sn_constraint_is_valid(w, poison));
    cd = sn_default_constraint_def();
    cd.type = "test.spread";
    cd.bodies[0] = a;
    cd.bodies[1] = b;
    sn_constraint_id spread = sn_create_constraint(w, &cd);
    ck_assert(sn_constraint_is_valid(w, spread));
    sn_soft_body_def sd = sn_default_soft_body_def();
    sn_soft_body_id s = sn_create_soft_body(w, &sd);
    sn_particle_def pd = sn_default_particle_def();
    pd.position = (sn_vec2){-5.0f, 5.0f};
    sn_particle_id p = sn_create_particle(w, s, &pd);
    cd = sn_default_constraint_def();
    cd.type = "test.poison_particle";
    cd.particles = &p;
    cd.particle_count = 1;
    sn_constraint_id poison_p = sn_create_constraint(w, &cd);
    ck_assert(sn_constraint_is_valid(w, poison_p));
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    const sn_frozen_event *e = NULL;
    int32_t n = sn_world_get_frozen_events(w, &e);
    ck_assert_int_eq(n, 3);
    int seen = 0;
    for (int32_t i = 0; i < n; ++i) {
      sn_constraint_id want = SN_NULL_CONSTRAINT;
      const char *type = NULL, *callback = NULL;
      if (e[i].body.index1 == a.index1) {
        want = poison, type = "test.poison_body", callback = "solve_velocity", seen |= 1;
      } else if (e[i].body.index1 == b.index1) {
        want = spread, type = "test.spread", callback = "solve_velocity", seen |= 2;
      } else {
        ck_assert_int_eq(e[i].particle.index1, p.index1);
        want = poison_p, type = "test.poison_particle", callback = "solve_position", seen |= 4;
      }
      if (checked) {
        ck_assert_int_eq(e[i].constraint.index1, want.index1);
        ck_assert_int_eq(e[i].constraint.generation, want.generation);
        ck_assert_str_eq(e[i].constraint_type, type);
        ck_assert_str_eq(e[i].callback, callback);
      } else {
        ck_assert_int_eq(e[i].constraint.index1, 0);
        ck_assert_ptr_null(e[i].constraint_type);
        ck_assert_ptr_null(e[i].callback);
      }
    }
    ck_assert_int_eq(seen, 7);
    sn_destroy_world(w);
  }
  sn_destroy_registry(r);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("containment");
  TCase *tc = tcase_create("containment");
  tcase_add_test(tc, test_body_containment);
  tcase_add_test(tc, test_particle_containment);
  tcase_add_test(tc, test_plugin_culprit_named);
  suite_add_tcase(s, tc);
  return s;
}
