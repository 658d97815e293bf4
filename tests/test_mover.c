/* The character mover: a small controller built only on the public mover
 * calls (sn_world_collide_mover, sn_solve_planes, sn_world_cast_mover,
 * sn_clip_vector, a downward sn_world_cast_shape for the ground, and
 * sn_world_overlap_particles_shape to push soft bodies), checked on a 30
 * degree slope (stays on it, does not slide when idle), a 0.2 m step (climbed
 * by a step-up), a wall (stops it, keeps the velocity along it), a moving
 * kinematic platform (carries it), a one-way platform (jumped through from
 * below, stood on from above) and a jelly (pushed ahead). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "test_main.h"
#include "soft_support.h"
#include "sinew/sinew.h"

#define MV_RADIUS      0.3f
#define MV_HEIGHT      0.8f /* between the centres of the capsule's ends */
#define MV_SPEED       2.0f
#define MV_GRAVITY     10.0f
#define MV_STEP_HEIGHT 0.25f
#define MV_MAX_SLOPE   0.7071f /* cos 45 degrees: steeper ground is a wall */
#define MV_PROBE       0.05f   /* how far below the feet ground still counts */
#define MV_MAX_PLANES  8
/* One-way platforms: shapes of this category. A rising capsule's queries
 * leave them out (a mask without the bit); a falling one keeps their
 * planes that hold it up (normal up) only. */
#define MV_ONE_WAY 2u

typedef struct mover {
  sn_world *w;
  sn_vec2 p; ///< centre of the lower end of the capsule
  sn_vec2 v;
  bool grounded;
  sn_vec2 ground_normal;
  sn_shape_id ground_shape;
  sn_collision_plane planes[MV_MAX_PLANES];
  int32_t plane_count;
  bool push_particles;
  float jump; ///< take off at this speed on the next grounded frame (then 0)
  sn_query_filter filter;
} mover;

static sn_capsule mv_capsule(sn_vec2 p) {
  sn_capsule c = {p, {p.x, p.y + MV_HEIGHT}, MV_RADIUS};
  return c;
}

typedef struct mv_ground {
  sn_shape_id shape;
  sn_vec2 normal;
  float fraction;
  bool hit;
} mv_ground;

static float mv_ground_fcn(sn_shape_id shape, sn_vec2 point, sn_vec2 normal, float fraction, void *context) {
  (void)point;
  mv_ground *g = context;
  g->shape = shape;
  g->normal = normal;
  g->fraction = fraction;
  g->hit = true;
  return fraction;
}

/// The first shape within `reach` below the capsule at p (walkable or not:
/// mv_walkable).
static mv_ground mv_probe_filtered(sn_world *w, sn_vec2 p, float reach, sn_query_filter filter) {
  mv_ground g = {SN_NULL_SHAPE, {0.0f, 1.0f}, 1.0f, false};
  sn_vec2 pts[2] = {p, {p.x, p.y + MV_HEIGHT}};
  sn_shape_proxy proxy;
  ck_assert_int_eq(sn_make_proxy(pts, 2, MV_RADIUS, &proxy), SN_OK);
  ck_assert_int_eq(sn_world_cast_shape(w, &proxy, (sn_vec2){0.0f, -reach}, filter, mv_ground_fcn, &g), SN_OK);
  return g;
}

static mv_ground mv_probe(sn_world *w, sn_vec2 p, float reach) {
  return mv_probe_filtered(w, p, reach, sn_default_query_filter());
}

static bool mv_walkable(mv_ground g) { return g.hit && g.normal.y >= MV_MAX_SLOPE; }

static bool mv_plane_fcn(sn_shape_id shape, const sn_plane_result *plane, void *context) {
  mover *m = context;
  if (m->plane_count == MV_MAX_PLANES) return false;
  sn_shape_def sd;
  if (sn_shape_get_def(m->w, shape, &sd) == SN_OK && (sd.category_bits & MV_ONE_WAY) && plane->normal.y < MV_MAX_SLOPE)
    return true; /* a one-way platform met from below or the side: no plane */
  sn_collision_plane cp = {plane->normal, plane->separation, FLT_MAX, 0.0f, true};
  m->planes[m->plane_count++] = cp;
  return true;
}

/// Moves the capsule by delta as far as the world allows: planes, solve,
/// cast, a few rounds. Returns the motion made.
static sn_vec2 mv_slide(mover *m, sn_vec2 delta) {
  sn_vec2 start = m->p, target = {m->p.x + delta.x, m->p.y + delta.y};
  for (int it = 0; it < 5; ++it) {
    m->plane_count = 0;
    sn_capsule c = mv_capsule(m->p);
    ck_assert_int_eq(sn_world_collide_mover(m->w, &c, m->filter, mv_plane_fcn, m), SN_OK);
    sn_plane_solver_result r;
    sn_vec2 wanted = {target.x - m->p.x, target.y - m->p.y};
    ck_assert_int_eq(sn_solve_planes(wanted, m->planes, m->plane_count, &r), SN_OK);
    float fraction = 1.0f;
    ck_assert_int_eq(sn_world_cast_mover(m->w, &c, r.translation, m->filter, &fraction), SN_OK);
    sn_vec2 step = {fraction * r.translation.x, fraction * r.translation.y};
    m->p.x += step.x;
    m->p.y += step.y;
    if (step.x * step.x + step.y * step.y < 1e-10f) break;
  }
  return (sn_vec2){m->p.x - start.x, m->p.y - start.y};
}

typedef struct mv_push {
  mover *m;
  sn_particle_id ids[64];
  sn_vec2 v[64];
  int count;
} mv_push;

static bool mv_collect_fcn(const sn_particle_contact *contact, void *context) {
  mv_push *q = context;
  if (q->count == 64) return false;
  sn_vec2 n = contact->normal;
  if (n.x == 0.0f && n.y == 0.0f) return true;
  sn_vec2 pv = sn_particle_get_velocity(q->m->w, contact->particle);
  float want = q->m->v.x * n.x + q->m->v.y * n.y;
  float have = pv.x * n.x + pv.y * n.y;
  if (want <= have) return true;
  q->ids[q->count] = contact->particle;
  q->v[q->count] = (sn_vec2){pv.x + (want - have) * n.x, pv.y + (want - have) * n.y};
  q->count++;
  return true;
}

/// One frame: input direction dir (-1, 0, 1).
static void mv_update(mover *m, float dir, float dt) {
  /* rising through the air: one-way platforms are not there (for the
   * ground probe either) */
  bool rising = !m->grounded && m->v.y > 0.0f;
  m->filter = sn_default_query_filter();
  if (rising) m->filter.mask_bits &= ~(uint64_t)MV_ONE_WAY;
  mv_ground g = mv_probe_filtered(m->w, m->p, MV_PROBE, m->filter);
  m->grounded = mv_walkable(g) && !rising;
  if (m->grounded && m->jump > 0.0f) {
    m->v = (sn_vec2){dir * MV_SPEED, m->jump};
    m->jump = 0.0f;
    m->grounded = false;
    m->filter.mask_bits &= ~(uint64_t)MV_ONE_WAY;
  }
  m->ground_normal = g.normal;
  m->ground_shape = g.shape;
  sn_vec2 platform = {0.0f, 0.0f};
  if (m->grounded) {
    // walk along the ground's tangent: no sliding, no gravity while on it
    sn_vec2 tangent = {g.normal.y, -g.normal.x};
    m->v = (sn_vec2){dir * MV_SPEED * tangent.x, dir * MV_SPEED * tangent.y};
    sn_body_id body = sn_shape_get_body(m->w, g.shape);
    if (sn_body_get_type(m->w, body) == SN_BODY_KINEMATIC) platform = sn_body_get_linear_velocity(m->w, body);
  } else {
    if (dir != 0.0f) m->v.x = dir * MV_SPEED; // air control; without input the motion goes on
    m->v.y -= MV_GRAVITY * dt;
  }
  sn_vec2 delta = {(m->v.x + platform.x) * dt, (m->v.y + platform.y) * dt};
  sn_vec2 start = m->p;
  sn_vec2 moved = mv_slide(m, delta);
  if (m->grounded && dir != 0.0f && fabsf(moved.x) < 0.5f * fabsf(delta.x)) {
    // blocked: step up, across, and back down onto walkable ground
    mover trial = *m;
    trial.p = start;
    mv_slide(&trial, (sn_vec2){0.0f, MV_STEP_HEIGHT});
    mv_slide(&trial, (sn_vec2){delta.x, 0.0f});
    mv_slide(&trial, (sn_vec2){0.0f, -(MV_STEP_HEIGHT + MV_PROBE)});
    if (mv_walkable(mv_probe(m->w, trial.p, MV_PROBE)) && fabsf(trial.p.x - start.x) > fabsf(moved.x) + 1e-4f) {
      m->p = trial.p;
      m->plane_count = trial.plane_count;
      memcpy(m->planes, trial.planes, sizeof m->planes);
    }
  }
  if (m->grounded) {
    // stay on the ground walking down a slope: snap down to it
    mv_ground snap = mv_probe(m->w, m->p, MV_STEP_HEIGHT);
    if (mv_walkable(snap)) m->p.y -= snap.fraction * MV_STEP_HEIGHT;
  }
  sn_vec2 clipped;
  ck_assert_int_eq(sn_clip_vector(m->v, m->planes, m->plane_count, &clipped), SN_OK);
  m->v = clipped;
  if (m->push_particles) {
    mv_push q;
    memset(&q, 0, sizeof q);
    q.m = m;
    sn_vec2 pts[2] = {m->p, {m->p.x, m->p.y + MV_HEIGHT}};
    sn_shape_proxy proxy;
    ck_assert_int_eq(sn_make_proxy(pts, 2, MV_RADIUS, &proxy), SN_OK);
    sn_vec2 saved = m->v;
    m->v = (sn_vec2){dir * MV_SPEED, 0.0f}; // the push: the walk's velocity
    ck_assert_int_eq(sn_world_overlap_particles_shape(m->w, &proxy, mv_collect_fcn, &q), SN_OK);
    m->v = saved;
    for (int i = 0; i < q.count; ++i) ck_assert_int_eq(sn_particle_set_velocity(m->w, q.ids[i], q.v[i]), SN_OK);
  }
}

static sn_world *mv_world(void) {
  sn_world_def def = sn_default_world_def();
  sn_world *w = sn_create_world(&def, NULL);
  ck_assert_ptr_nonnull(w);
  return w;
}

static sn_body_id mv_box(sn_world *w, sn_body_type type, sn_vec2 c, float hx, float hy, float angle) {
  sn_body_def bd = sn_default_body_def();
  bd.type = type;
  bd.position = c;
  bd.angle = angle;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  ck_assert_int_eq(sn_make_box(hx, hy, &box), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, b, &sd, &box)));
  return b;
}

static mover mv_make(sn_world *w, sn_vec2 p) {
  mover m;
  memset(&m, 0, sizeof m);
  m.w = w;
  m.p = p;
  m.filter = sn_default_query_filter();
  return m;
}

/* ---------------------------------------------------- the calls themselves */

static bool mv_count_plane(sn_shape_id shape, const sn_plane_result *plane, void *context) {
  (void)shape;
  sn_plane_result *last = context;
  *last = *plane;
  last->point.y += 1000.0f; /* marks "called" (the floor's point has y = 0) */
  return true;
}

START_TEST(test_mover_calls_closed_form) {
  sn_world *w = mv_world();
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f, 0.0f); // floor, top y = 0
  sn_query_filter f = sn_default_query_filter();
  float fraction = -1.0f;
  // 1 m above the floor, cast 2 m down: touches after 1 m, fraction 1 / 2
  sn_capsule c = mv_capsule((sn_vec2){0.0f, MV_RADIUS + 1.0f});
  ck_assert_int_eq(sn_world_cast_mover(w, &c, (sn_vec2){0.0f, -2.0f}, f, &fraction), SN_OK);
  ck_assert_float_le(fabsf(fraction * 2.0f - 1.0f), 1e-4f);
  // sideways or up: nothing in the way
  ck_assert_int_eq(sn_world_cast_mover(w, &c, (sn_vec2){3.0f, 0.0f}, f, &fraction), SN_OK);
  ck_assert_float_eq(fraction, 1.0f);
  // resting 2 mm above the floor: it slides along freely, and going down
  // stops within a slop (5 mm) below where it rests
  c = mv_capsule((sn_vec2){0.0f, MV_RADIUS + 0.002f});
  ck_assert_int_eq(sn_world_cast_mover(w, &c, (sn_vec2){3.0f, 0.0f}, f, &fraction), SN_OK);
  ck_assert_float_eq(fraction, 1.0f);
  ck_assert_int_eq(sn_world_cast_mover(w, &c, (sn_vec2){0.0f, -1.0f}, f, &fraction), SN_OK);
  ck_assert_float_eq_tol(fraction, 0.005f, 1e-4f);
  // its plane: normal (0, 1), gap 2 mm, point on the floor below it
  sn_plane_result plane = {{0.0f, 0.0f}, 1.0f, {0.0f, 0.0f}};
  ck_assert_int_eq(sn_world_collide_mover(w, &c, f, mv_count_plane, &plane), SN_OK);
  ck_assert_float_eq_tol(plane.point.y, 1000.0f, 1e-4f);
  ck_assert_float_eq_tol(plane.normal.y, 1.0f, 1e-6f);
  ck_assert_float_eq_tol(plane.separation, 0.002f, 1e-5f);
  // 2 cm above: beyond SN_MOVER_CONTACT_DISTANCE (1 cm), no plane
  c = mv_capsule((sn_vec2){0.0f, MV_RADIUS + 0.02f});
  plane.point.y = 0.0f;
  ck_assert_int_eq(sn_world_collide_mover(w, &c, f, mv_count_plane, &plane), SN_OK);
  ck_assert_float_eq(plane.point.y, 0.0f);
  // sunk 5 cm into the floor: gap -0.05, and the solver lifts it by 5 cm
  c = mv_capsule((sn_vec2){0.0f, MV_RADIUS - 0.05f});
  ck_assert_int_eq(sn_world_collide_mover(w, &c, f, mv_count_plane, &plane), SN_OK);
  ck_assert_float_eq_tol(plane.separation, -0.05f, 1e-5f);
  sn_collision_plane cp = {plane.normal, plane.separation, FLT_MAX, 0.0f, true};
  sn_plane_solver_result r;
  ck_assert_int_eq(sn_solve_planes((sn_vec2){0.0f, 0.0f}, &cp, 1, &r), SN_OK);
  ck_assert_float_eq_tol(r.translation.y, 0.05f, 1e-5f);
  // a filter that leaves the floor out: nothing in the way, no plane
  sn_query_filter none = {1u, 2u};
  c = mv_capsule((sn_vec2){0.0f, MV_RADIUS + 1.0f});
  ck_assert_int_eq(sn_world_cast_mover(w, &c, (sn_vec2){0.0f, -2.0f}, none, &fraction), SN_OK);
  ck_assert_float_eq(fraction, 1.0f);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------ slope */

START_TEST(test_slope_walk_and_idle) {
  sn_world *w = mv_world();
  // a 30 degree slope through the origin: a long box turned by 30 degrees
  // whose top face is the line y = tan(30) x
  const float angle = 3.14159265f / 6.0f;
  float s = sinf(angle), c = cosf(angle);
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.5f * s, -0.5f * c}, 20.0f, 0.5f, angle);
  // the lower end's centre rests r / cos(30) above the line
  const float lift = MV_RADIUS / c;
  mover m = mv_make(w, (sn_vec2){-2.0f, -2.0f * tanf(angle) + lift + 0.002f});
  for (int i = 0; i < 10; ++i) mv_update(&m, 0.0f, 1.0f / 60.0f);
  ck_assert(m.grounded);
  // idle on the slope: no slide (30 degrees is below the 45 degree limit)
  sn_vec2 rest = m.p;
  for (int i = 0; i < 120; ++i) mv_update(&m, 0.0f, 1.0f / 60.0f);
  ck_assert_float_le(fabsf(m.p.x - rest.x), 1e-3f);
  ck_assert_float_le(fabsf(m.p.y - rest.y), 1e-3f);
  // walk up for 1 s, then down for 1 s: always on the slope, height
  // tan(30) x + r / cos(30) within 1 cm (the gap the mover keeps)
  float worst = 0.0f;
  for (int i = 0; i < 120; ++i) {
    mv_update(&m, i < 60 ? 1.0f : -1.0f, 1.0f / 60.0f);
    ck_assert(m.grounded);
    worst = fmaxf(worst, fabsf(m.p.y - (tanf(angle) * m.p.x + lift)));
  }
  ck_assert_float_le(worst, 0.01f);
  sn_destroy_world(w);
}
END_TEST

/* Steeper than the walkable 45 degrees the slope is no ground: the
 * character slides down it under gravity. */
START_TEST(test_steep_slope_slides) {
  sn_world *w = mv_world();
  const float angle = 3.14159265f / 3.0f; // 60 degrees
  float s = sinf(angle), c = cosf(angle);
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.5f * s, -0.5f * c}, 20.0f, 0.5f, angle);
  mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS / c + 0.002f});
  sn_vec2 start = m.p;
  for (int i = 0; i < 60; ++i) {
    mv_update(&m, 0.0f, 1.0f / 60.0f);
    ck_assert(!m.grounded);
  }
  // sliding without friction: the velocity gains g dt per frame, of which
  // clipping keeps the part along the slope, so the drop after n frames is
  // g sin^2(60) dt^2 n (n + 1) / 2 = 10 * 0.75 * 1830 / 3600 = 3.81 m
  // (g sin^2(60) t^2 / 2 = 3.75 m in continuous time); within 5 %, on the
  // slope's line (within 1 cm across it) all the way
  ck_assert_float_eq_tol(start.y - m.p.y, 3.81f, 0.19f);
  ck_assert_float_le(fabsf(m.p.y - (tanf(angle) * m.p.x + MV_RADIUS / c)), 0.01f * (1.0f / c));
  sn_destroy_world(w);
}
END_TEST

START_TEST(test_slope_up_distance) {
  sn_world *w = mv_world();
  const float angle = 3.14159265f / 6.0f;
  float s = sinf(angle), c = cosf(angle);
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.5f * s, -0.5f * c}, 20.0f, 0.5f, angle);
  mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS / c + 0.002f});
  for (int i = 0; i < 5; ++i) mv_update(&m, 0.0f, 1.0f / 60.0f);
  sn_vec2 start = m.p;
  for (int i = 0; i < 60; ++i) mv_update(&m, 1.0f, 1.0f / 60.0f);
  // 1 s at 2 m/s along the slope: 2 cos 30 = 1.732 m across, 1 m up (1 cm)
  ck_assert_float_eq_tol(m.p.x - start.x, 2.0f * c, 0.01f);
  ck_assert_float_eq_tol(m.p.y - start.y, 2.0f * s, 0.01f);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------- step */

START_TEST(test_step_up) {
  sn_world *w = mv_world();
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f, 0.0f); // floor, top y = 0
  mv_box(w, SN_BODY_STATIC, (sn_vec2){6.0f, 0.1f}, 4.0f, 0.1f, 0.0f);   // a 0.2 m step from x = 2
  mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS + 0.002f});
  for (int i = 0; i < 90; ++i) mv_update(&m, 1.0f, 1.0f / 60.0f);
  // 1.5 s at 2 m/s: well past the edge at x = 2, on top of the step
  ck_assert_float_gt(m.p.x, 2.5f);
  ck_assert_float_eq_tol(m.p.y, 0.2f + MV_RADIUS, 0.01f);
  ck_assert(m.grounded);
  // a step higher than the step-up (0.5 m) stops it
  sn_world *w2 = mv_world();
  mv_box(w2, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f, 0.0f);
  mv_box(w2, SN_BODY_STATIC, (sn_vec2){6.0f, 0.25f}, 4.0f, 0.25f, 0.0f);
  mover m2 = mv_make(w2, (sn_vec2){0.0f, MV_RADIUS + 0.002f});
  for (int i = 0; i < 90; ++i) mv_update(&m2, 1.0f, 1.0f / 60.0f);
  ck_assert_float_le(m2.p.x, 2.0f - MV_RADIUS + 0.01f);
  ck_assert_float_eq_tol(m2.p.y, MV_RADIUS, 0.01f);
  sn_destroy_world(w);
  sn_destroy_world(w2);
}
END_TEST

/* ------------------------------------------------------------------- wall */

START_TEST(test_wall_stops_and_clips) {
  sn_world *w = mv_world();
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f, 0.0f);
  mv_box(w, SN_BODY_STATIC, (sn_vec2){3.5f, 5.0f}, 0.5f, 5.0f, 0.0f); // wall face at x = 3
  mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS + 0.002f});
  for (int i = 0; i < 120; ++i) mv_update(&m, 1.0f, 1.0f / 60.0f);
  // stopped with its side on the wall: x = 3 - r, within 1 cm
  ck_assert_float_eq_tol(m.p.x, 3.0f - MV_RADIUS, 0.01f);
  ck_assert_float_eq_tol(m.p.y, MV_RADIUS, 0.01f);
  // the wall's plane: normal (-1, 0); clipping a jump into the wall keeps
  // its upward part and loses the part into the wall
  mover probe = m;
  probe.plane_count = 0;
  sn_capsule c = mv_capsule(m.p);
  ck_assert_int_eq(sn_world_collide_mover(w, &c, sn_default_query_filter(), mv_plane_fcn, &probe), SN_OK);
  int wall = -1;
  for (int i = 0; i < probe.plane_count; ++i)
    if (probe.planes[i].normal.x < -0.99f) wall = i;
  ck_assert_int_ge(wall, 0);
  ck_assert_float_le(fabsf(probe.planes[wall].separation), 0.01f);
  sn_vec2 v;
  ck_assert_int_eq(sn_clip_vector((sn_vec2){2.0f, 3.0f}, probe.planes + wall, 1, &v), SN_OK);
  ck_assert_float_eq_tol(v.x, 0.0f, 1e-5f);
  ck_assert_float_eq_tol(v.y, 3.0f, 1e-5f);
  // in the air, jumping into the wall: it slides up it (x held, y rising)
  mover air = mv_make(w, (sn_vec2){3.0f - MV_RADIUS - 0.001f, 2.0f});
  air.v = (sn_vec2){2.0f, 5.0f};
  mv_update(&air, 1.0f, 1.0f / 60.0f);
  ck_assert(!air.grounded);
  ck_assert_float_le(air.p.x, 3.0f - MV_RADIUS + 1e-3f);
  ck_assert_float_gt(air.p.y, 2.05f); // (5 - 10/60) / 60 = 0.08 m up
  ck_assert_float_eq_tol(air.v.x, 0.0f, 1e-4f);
  ck_assert_float_eq_tol(air.v.y, 5.0f - 10.0f / 60.0f, 1e-4f);
  sn_destroy_world(w);
}
END_TEST

/* --------------------------------------------------------------- platform */

START_TEST(test_rides_kinematic_platform) {
  sn_world *w = mv_world();
  // kinematic platform, top at y = 1, moving +x at 1 m/s
  sn_body_id platform = mv_box(w, SN_BODY_KINEMATIC, (sn_vec2){0.0f, 0.75f}, 3.0f, 0.25f, 0.0f);
  ck_assert_int_eq(sn_body_set_linear_velocity(w, platform, (sn_vec2){1.0f, 0.0f}), SN_OK);
  mover m = mv_make(w, (sn_vec2){0.0f, 1.0f + MV_RADIUS + 0.002f});
  for (int i = 0; i < 5; ++i) mv_update(&m, 0.0f, 1.0f / 60.0f);
  ck_assert(m.grounded);
  sn_vec2 p0 = m.p;
  float x0 = sn_body_get_position(w, platform).x;
  for (int i = 0; i < 60; ++i) {
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
    mv_update(&m, 0.0f, 1.0f / 60.0f);
    ck_assert(m.grounded);
  }
  // 1 s: the platform moved 1 m and the idle character with it (1 cm)
  float moved = sn_body_get_position(w, platform).x - x0;
  ck_assert_float_eq_tol(moved, 1.0f, 1e-3f);
  ck_assert_float_eq_tol(m.p.x - p0.x, moved, 0.01f);
  ck_assert_float_eq_tol(m.p.y, 1.0f + MV_RADIUS, 0.01f);
  sn_destroy_world(w);
}
END_TEST

/* ------------------------------------------------------------------ jelly */

static float jelly_run(bool push) {
  sn_registry *reg = ss_registry();
  sn_world *w = js_world(reg);
  mv_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 20.0f, 0.5f, 0.0f);
  sn_ring_def rd = sn_default_ring_def();
  rd.center = (sn_vec2){2.0f, 0.56f};
  sn_soft_body_id jelly = sn_create_ring(w, &rd);
  ck_assert_msg(sn_soft_body_is_valid(w, jelly), "%s", sn_world_last_error(w));
  for (int i = 0; i < 60; ++i) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK); // settle
  float x0 = sn_soft_body_get_center(w, jelly).x;
  mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS + 0.002f});
  m.push_particles = push;
  for (int i = 0; i < 90; ++i) {
    mv_update(&m, 1.0f, 1.0f / 60.0f);
    ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  }
  float moved = sn_soft_body_get_center(w, jelly).x - x0;
  sn_destroy_world(w);
  sn_destroy_registry(reg);
  return moved;
}

START_TEST(test_pushes_jelly) {
  // 1.5 s at 2 m/s from x = 0: the mover's side reaches the jelly's edge
  // (2 - 0.55) after about 0.58 s and walks on 1.85 m; pushing its
  // particles at its own speed carries the jelly along most of that
  float pushed = jelly_run(true);
  ck_assert_float_gt(pushed, 1.0f);
  // without the push the mover walks through and the jelly stays put
  float left = jelly_run(false);
  ck_assert_float_lt(fabsf(left), 0.05f);
}
END_TEST

/* A one-way platform 2 m up (top at 2.1 m): a jump at 8 m/s (apex 3.2 m
 * under gravity 10) passes up through it and lands on it, the capsule's
 * lowest point then within 1 cm of 2.1 m. The same jump under a platform
 * of the ordinary category hits its head and lands back on the floor. */
START_TEST(test_one_way_platform) {
  for (int one_way = 1; one_way >= 0; --one_way) {
    sn_world *w = mv_world();
    mv_box(w, SN_BODY_STATIC, (sn_vec2){0.0f, -0.5f}, 10.0f, 0.5f, 0.0f);
    sn_body_def bd = sn_default_body_def();
    bd.position = (sn_vec2){0.0f, 2.0f};
    sn_body_id platform = sn_create_body(w, &bd);
    sn_polygon plank;
    sn_make_box(1.5f, 0.1f, &plank);
    sn_shape_def sd = sn_default_shape_def();
    if (one_way) sd.category_bits = MV_ONE_WAY;
    ck_assert(sn_shape_is_valid(w, sn_create_polygon_shape(w, platform, &sd, &plank)));
    mover m = mv_make(w, (sn_vec2){0.0f, MV_RADIUS + 0.001f});
    for (int i = 0; i < 5; ++i) mv_update(&m, 0.0f, 1.0f / 60.0f);
    m.jump = 8.0f;
    float highest = 0.0f;
    for (int i = 0; i < 180; ++i) {
      mv_update(&m, 0.0f, 1.0f / 60.0f);
      highest = fmaxf(highest, m.p.y - MV_RADIUS);
    }
    float feet = m.p.y - MV_RADIUS;
    if (one_way) {
      ck_assert_msg(highest > 2.9f, "the jump stopped at %g m under the one-way platform", (double)highest);
      ck_assert_msg(fabsf(feet - 2.1f) < 0.01f && m.grounded, "landed at %g m (grounded %d), the platform's top 2.1 m",
                    (double)feet, (int)m.grounded);
    } else {
      /* the head (1.4 m above the feet) meets the underside at 1.9 m */
      ck_assert_msg(highest < 1.9f - MV_HEIGHT - 2.0f * MV_RADIUS + 0.02f, "rose to %g m through a solid platform",
                    (double)highest);
      ck_assert_msg(fabsf(feet) < 0.01f, "back on the floor at %g m", (double)feet);
    }
    sn_destroy_world(w);
  }
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("mover");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_mover_calls_closed_form);
  tcase_add_test(tc, test_slope_walk_and_idle);
  tcase_add_test(tc, test_slope_up_distance);
  tcase_add_test(tc, test_steep_slope_slides);
  tcase_add_test(tc, test_step_up);
  tcase_add_test(tc, test_wall_stops_and_clips);
  tcase_add_test(tc, test_rides_kinematic_platform);
  tcase_add_test(tc, test_pushes_jelly);
  tcase_add_test(tc, test_one_way_platform);
  suite_add_tcase(s, tc);
  return s;
}
