/* Continuous collision (the step's pass after the solver's write back): a
 * fast body (sn_body.is_fast, set by the write back) is swept over the step
 * against the static tree and the moving bodies, each swept over the step as
 * it moved, and stopped at its first time of impact. */
#include "collision/continuous.h"

#include <assert.h>
#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "base/order.h"
#include "base/union_find.h"
#include "collision/distance.h"
#include "world/world.h"

/* Fast bodies a swept body met while they were not stopped, kept to tell
 * whether the second pass needs it. */
enum { SN_TOI_MET = 6 };

typedef struct sn_toi_query {
  sn_world *w;
  int32_t body_index;
  const sn_shape *shape;
  sn_sweep sweep;
  float fraction;
  bool bullet;
  bool recheck;                   ///< second pass: only fast bodies the first pass stopped
  const uint64_t *stopped_shapes; ///< second pass: a bit per shape of a stopped body (NULL: not kept)
  bool may_recheck;               ///< met a fast body that was not stopped then
  int32_t *met;                   ///< those bodies (NULL: not kept), up to SN_TOI_MET
  int32_t met_count;              ///< SN_TOI_MET + 1: more than that
  bool ahead;                     ///< swept ahead of its turn (in parallel), see sn_toi_ahead
  bool aborted;                   ///< ahead: met more fast bodies handled before it than it keeps
  int32_t self_index;             ///< the fast body's awake index (its turn)
  int32_t handled;                ///< ahead: awake indices below this had their turn (their result is final)
  int32_t *deps;                  ///< ahead: fast bodies handled before it that it met, up to SN_TOI_MET
  int32_t dep_count;
  bool prepared;        ///< the fast shape's fields below are set (sn_toi_prepare)
  sn_shape_proxy proxy; ///< the fast shape's core
  float reach;          ///< farthest core point from the body's centre of mass
  float rotation;       ///< its term of the time of impact's rotation bound
  sn_vec2 disc_center;  ///< a disc inside the fast shape at the step's start (world)
  sn_vec2 disc_local;   ///< its centre in the body frame
  float disc_radius;    ///< (negative: none, see sn_geometry_inscribed_disc)
  int32_t hit_shape;    ///< the fast body's shape and the other shape of the
  int32_t hit_other;    ///< earliest hit (SN_NULL_INDEX: none yet)
  sn_vec2 hit_normal;   ///< stopped at the start: from the other shape to the core (world), else zero
  float turn;           ///< the fast body's angle turned over the step (a bound)
  float max_extent;     ///< its farthest shape point from its centre of mass
  float fast_limit;     ///< the motion that makes it fast (solver.c)
  bool elongated;       ///< its body reaches far beyond its thinnest (sn_toi_elongated)
  /// The step's noted motions, for the first test of a candidate of a
  /// moving body (sn_toi_passes_by), or NULL: every candidate takes the
  /// full test (second pass, custom filter, tests).
  const sn_toi_motion *motions;
  int32_t passed; ///< candidates passed over by the motions alone
} sn_toi_query;

/* A body at rest where it is now, for the whole step. */
static sn_sweep sn_rest_sweep(const sn_body *b) {
  return (sn_sweep){b->local_center, b->center, b->center, b->xf.q, b->xf.q};
}

/* A body's motion over the step: from the step's start pose to its pose now
 * (a body that was not in the step did not move). */
static sn_sweep sn_step_sweep(const sn_body *b) {
  if (b->solver_index < 0) return sn_rest_sweep(b);
  return (sn_sweep){b->local_center, b->center0, b->center, b->q0, b->xf.q};
}

/* A fast body that continuous collision stopped this step: it moved only
 * to o->toi_fraction of its motion and stayed there (until it is handled,
 * toi_fraction is 1). */
static bool sn_toi_stopped(const sn_body *o) { return o->is_fast && o->solver_index >= 0 && o->toi_fraction < 1.0f; }

/* Rounding allowance of the shortcut below: far more than the distance's
 * float error, far less than the speculative distance. */
#define SN_TOI_NEAR_ALLOWANCE 0.001f

/* Farthest core point of a proxy from centre. */
static float sn_proxy_reach(const sn_shape_proxy *proxy, sn_vec2 center) {
  float reach_sq = 0.0f;
  for (int32_t i = 0; i < proxy->count; ++i) reach_sq = sn_maxf(reach_sq, sn_distance_sq(proxy->points[i], center));
  return sqrtf(reach_sq);
}

/* The fast shape's core, its reach and rotation bound and its inscribed
 * disc, for the pairs that get past the tests on the bodies' motion alone:
 * most fast bodies meet none (a crowd flung together), and these cost more
 * than the tests. */
static void sn_toi_prepare(sn_toi_query *q) {
  if (q->prepared) return;
  q->prepared = true;
  q->proxy = sn_geometry_proxy(&q->shape->geom);
  q->reach = sn_proxy_reach(&q->proxy, q->sweep.local_center);
  q->rotation = sn_sweep_rotation_reach(&q->sweep, &q->proxy);
  q->disc_radius = sn_geometry_inscribed_disc(&q->shape->geom, &q->disc_local);
  q->disc_center = sn_add(q->sweep.c1, sn_rotate(q->sweep.q1, sn_sub(q->disc_local, q->sweep.local_center)));
}

/* The proxy's points in the proxy's order (sn_geometry_proxy), so the same
 * bits as sn_proxy_reach of the proxy. */
float sn_geometry_core_reach(const sn_geometry *g, sn_vec2 center, float *radius) {
  sn_vec2 pair[2];
  const sn_vec2 *points = pair;
  int32_t count = 2;
  *radius = 0.0f;
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    points = &g->circle.center;
    count = 1;
    *radius = g->circle.radius;
    break;
  case SN_SHAPE_CAPSULE:
    pair[0] = g->capsule.center1;
    pair[1] = g->capsule.center2;
    *radius = g->capsule.radius;
    break;
  case SN_SHAPE_SEGMENT:
    pair[0] = g->segment.point1;
    pair[1] = g->segment.point2;
    break;
  case SN_SHAPE_POLYGON:
    points = g->polygon.vertices;
    count = sn_mini(sn_maxi(g->polygon.count, 0), SN_MAX_POLYGON_VERTICES);
    *radius = g->polygon.radius;
    break;
  case SN_SHAPE_CHAIN_SEGMENT:
    pair[0] = g->chain_segment.segment.point1;
    pair[1] = g->chain_segment.segment.point2;
    break;
  case SN_SHAPE_TYPE_COUNT:
    count = 0;
    break;
  }
  float reach_sq = 0.0f;
  for (int32_t i = 0; i < count; ++i) reach_sq = sn_maxf(reach_sq, sn_distance_sq(points[i], center));
  return sqrtf(reach_sq);
}

/* Squared distance from the origin to the segment p q. */
static float sn_origin_segment_distance_sq(sn_vec2 p, sn_vec2 q) {
  sn_vec2 d = sn_sub(q, p);
  float dd = sn_dot(d, d);
  float t = dd > 0.0f ? sn_clampf(-sn_dot(p, d) / dd, 0.0f, 1.0f) : 0.0f;
  return sn_length_sq(sn_mul_add(p, t, d));
}

bool sn_continuous_may_touch(sn_sweep sweep_a, float reach_a, float split_a, sn_sweep sweep_b, float reach_b,
                             float radius) {
  /* Every core point stays within its reach of its centre of mass, and the
   * centres move linearly (sn_sweep_get_transform): the cores are at least
   * |cb(t) - ca(t)| - reach_a - reach_b apart at every t. The time of
   * impact stops cores at most max(slop, radius - slop) + slop / 4 apart
   * (distance.c); the bound below keeps 3/4 slop more for rounding. */
  const float limit = reach_a + reach_b + radius + 2.0f * SN_LINEAR_SLOP;
  /* the relative centre at t = 0, at A's split and at t = 1: A moves from
   * c1 to c2 until split and rests at c2 after (split 1: one segment) */
  sn_vec2 d0 = sn_sub(sweep_b.c1, sweep_a.c1);
  sn_vec2 d1 = sn_sub(sweep_b.c2, sweep_a.c2);
  float dist_sq;
  if (split_a < 1.0f) {
    sn_vec2 ds = sn_sub(sn_lerp(sweep_b.c1, sweep_b.c2, split_a), sweep_a.c2);
    dist_sq = sn_minf(sn_origin_segment_distance_sq(d0, ds), sn_origin_segment_distance_sq(ds, d1));
  } else {
    dist_sq = sn_origin_segment_distance_sq(d0, d1);
  }
  return !(dist_sq > limit * limit);
}

/* Squared distance between the segments p1 p2 and q1 q2. */
static float sn_segments_distance_sq(sn_vec2 p1, sn_vec2 p2, sn_vec2 q1, sn_vec2 q2) {
  /* crossing segments: each one's ends on opposite sides of the other */
  const sn_vec2 dp = sn_sub(p2, p1), dq = sn_sub(q2, q1);
  const float s1 = sn_cross(dp, sn_sub(q1, p1)), s2 = sn_cross(dp, sn_sub(q2, p1));
  const float s3 = sn_cross(dq, sn_sub(p1, q1)), s4 = sn_cross(dq, sn_sub(p2, q1));
  if (((s1 <= 0.0f && s2 >= 0.0f) || (s1 >= 0.0f && s2 <= 0.0f)) &&
      ((s3 <= 0.0f && s4 >= 0.0f) || (s3 >= 0.0f && s4 <= 0.0f)))
    return 0.0f;
  /* else the nearest points include an end of one of them */
  float d = sn_origin_segment_distance_sq(sn_sub(q1, p1), sn_sub(q2, p1));
  d = sn_minf(d, sn_origin_segment_distance_sq(sn_sub(q1, p2), sn_sub(q2, p2)));
  d = sn_minf(d, sn_origin_segment_distance_sq(sn_sub(p1, q1), sn_sub(p2, q1)));
  return sn_minf(d, sn_origin_segment_distance_sq(sn_sub(p1, q2), sn_sub(p2, q2)));
}

bool sn_continuous_may_touch_any_split(sn_sweep sweep_a, float reach_a, sn_sweep sweep_b, float reach_b, float radius) {
  /* Whatever A's split, its centre stays on its segment c1 c2 (a stopped
   * body's centre is a point of it, up to rounding) and B's on its own:
   * the centres are never nearer than the two segments. One more slop
   * covers the rounding of a stopped centre and of the test itself. */
  const float limit = reach_a + reach_b + radius + 3.0f * SN_LINEAR_SLOP;
  const float dist_sq = sn_segments_distance_sq(sweep_a.c1, sweep_a.c2, sweep_b.c1, sweep_b.c2);
  return !(dist_sq > limit * limit);
}

/* Time of impact of the fast shape of q against shape proxy_a of body o
 * within q's fraction of the step. o moves as it did over the step; one
 * that was stopped moved along its sweep until then and rests after, so
 * the step is split at that time. A pair nearer than min_separation0 at the
 * start is not swept (SN_TOI_NEAR). */
static sn_toi_output sn_toi_against(const sn_body *o, const sn_shape_proxy *proxy_a, const sn_toi_query *q,
                                    float min_separation0) {
  const sn_sweep *sweep_b = &q->sweep;
  const float max_fraction = q->fraction;
  sn_toi_input input;
  input.proxy_a = *proxy_a;
  input.proxy_b = q->proxy;
  input.sweep_a = sn_step_sweep(o);
  input.sweep_b = *sweep_b;
  input.max_fraction = max_fraction;
  const float split = o->toi_fraction;
  if (!sn_toi_stopped(o)) return sn_time_of_impact_with(&input, q->rotation, min_separation0);
  /* before the split: both sweeps cut at it, the time rescaled */
  sn_transform mid = sn_sweep_get_transform(sweep_b, split);
  sn_vec2 mid_center = sn_transform_point(mid, sweep_b->local_center);
  input.sweep_b = (sn_sweep){sweep_b->local_center, sweep_b->c1, mid_center, sweep_b->q1, mid.q};
  input.max_fraction = split > 0.0f ? sn_minf(1.0f, max_fraction / split) : 0.0f;
  sn_toi_output out = sn_time_of_impact_with(&input, -1.0f, min_separation0);
  if (out.state == SN_TOI_HIT) {
    out.fraction *= split;
    return out;
  }
  if (out.state != SN_TOI_SEPARATED || !(max_fraction > split)) return out;
  /* after it: o at rest where it stopped */
  const float separation0 = out.separation0;
  input.sweep_a = sn_rest_sweep(o);
  input.sweep_b = (sn_sweep){sweep_b->local_center, mid_center, sweep_b->c2, mid.q, sweep_b->q2};
  input.max_fraction = sn_minf(1.0f, (max_fraction - split) / (1.0f - split));
  out = sn_time_of_impact(&input);
  out.fraction = split + out.fraction * (1.0f - split);
  out.separation0 = separation0;
  return out;
}

/* A bound on the angle turned from q1 to q2: asin |sin| <= pi/2 |sin|
 * while cos > 0, else pi. */
static float sn_turn_bound(sn_rot q1, sn_rot q2) {
  const float sin_turn = q1.c * q2.s - q1.s * q2.c, cos_turn = q1.c * q2.c + q1.s * q2.s;
  return cos_turn > 0.0f ? 1.5708f * sn_absf(sin_turn) : 3.1416f;
}

/* Is the fast body of q slow relative to shape other of moving body ob
 * (not stopped)? In ob's frame, no point of the fast body moves farther
 * over the step than the relative motion of the centres plus each turn
 * times the distance it swings a point through: the fast body's turn about
 * its centre, ob's turn about its own centre (a point of the fast body is
 * at most the centres' distance, largest at an end of the step, plus the
 * fast body's extent from it). A body that is not fast moves less than
 * half its inner radius against a static shape, which may be as thin as a
 * segment: it cannot get more than that into the shape, so the contact
 * pushes it back out the way it came. Below that relative motion the
 * discrete step handles the pair as well, and no time of impact is needed.
 * Two fast bodies in flight together (a crowd thrown apart or tumbling)
 * have more room: they can go as far as half the sum of their inner radii
 * into each other before either's centre is nearer the other side, so
 * other's inner radius adds its half (a thin shape, a plank or a segment,
 * adds little or nothing). A body that is not fast keeps the fast body's
 * own limit: it may be held by a pile that passes on whatever gets into it
 * (a crowd pressed against a thin wall went through it with the wider
 * limit). */
static float sn_toi_relative_motion(const sn_toi_query *q, sn_vec2 c1, sn_vec2 c2, float turn) {
  const sn_vec2 d1 = sn_sub(q->sweep.c1, c1), d2 = sn_sub(q->sweep.c2, c2);
  const float moved = sn_length(sn_sub(d2, d1));
  const float arm = sqrtf(sn_maxf(sn_length_sq(d1), sn_length_sq(d2))) + q->max_extent;
  return moved + q->turn * q->max_extent + turn * arm;
}

/* The test on a relative motion (room for the rounding of the bound), with
 * other's inner radius for a fast other (read only then). */
static bool sn_toi_slow_motion(const sn_toi_query *q, float motion, bool other_fast, const sn_shape *other,
                               float other_inner) {
  if (motion * 1.001f < q->fast_limit) return true;
  if (!other_fast) return false;
  const float inner = other != NULL ? sn_geometry_inner_radius(&other->geom) : other_inner;
  return motion * 1.001f < q->fast_limit + (q->bullet ? 0.25f : 0.5f) * inner;
}

static bool sn_toi_relatively_slow(const sn_toi_query *q, const sn_body *ob, const sn_shape *other) {
  const sn_sweep so = sn_step_sweep(ob);
  const float motion = sn_toi_relative_motion(q, so.c1, so.c2, sn_turn_bound(so.q1, so.q2));
  return sn_toi_slow_motion(q, motion, ob->is_fast, other, 0.0f);
}

/* q met fast body `body`, not stopped (yet): it may stop later in the pass,
 * and only then can the second pass find more than this one did. Kept for
 * the second pass (up to SN_TOI_MET, one past that: more). */
static void sn_toi_note_met(sn_toi_query *q, int32_t body) {
  q->may_recheck = true;
  if (q->met != NULL && q->met_count <= SN_TOI_MET && (q->met_count == 0 || q->met[q->met_count - 1] != body)) {
    if (q->met_count < SN_TOI_MET)
      q->met[q->met_count++] = body;
    else
      q->met_count = SN_TOI_MET + 1;
  }
}

/* The first test of a candidate by the noted motions (sn_toi_motion): true
 * when the full test below would find nothing either. A shape of the swept
 * body, or one moving with it slowly enough (sn_toi_relatively_slow, on the
 * same numbers, so the same outcome), changes nothing. Before that test a
 * fast body not stopped yet is noted as met without the filters the full
 * test applies first: the second pass then sweeps some bodies it would not
 * have, against stopped bodies they had already been swept against with
 * the same sweeps, which finds the same (sn_toi_needs). Sweeps ahead leave
 * fast bodies to the full test (it keeps their dependencies). */
static bool sn_toi_passes_by(sn_toi_query *q, int32_t shape_index) {
  const sn_world *w = q->w;
  const sn_toi_owner owner = w->toi_owners.data[shape_index];
  if (owner.stamp != w->toi_stamp) return false; /* not moved by this step: a static or asleep body */
  if (owner.awake == q->self_index) return true;
  const sn_toi_motion *m = q->motions + owner.awake;
  if (m->fast) {
    if (m->stopped || q->ahead) return false;
    sn_toi_note_met(q, m->body);
  }
  if (!sn_toi_slow_motion(q, sn_toi_relative_motion(q, m->c1, m->c2, m->turn), m->fast, NULL, owner.inner))
    return false;
  q->passed += 1;
  return true;
}

/* Where body o is at fraction t of the step, as sn_toi_against sees it. */
static sn_transform sn_toi_other_transform(const sn_body *o, float t) {
  const float split = o->toi_fraction;
  const bool stopped = sn_toi_stopped(o);
  if (stopped && t >= split) return o->xf;
  const sn_sweep sweep = sn_step_sweep(o);
  return sn_sweep_get_transform(&sweep, stopped ? t / split : t);
}

/* Does the core of q (a point proxy), apart from shape proxy_a of body o
 * at the step's start, move towards it (more than a quarter slop, in o's
 * frame, along the normal between them at the start) by fraction t? */
static bool sn_toi_core_closes(const sn_toi_query *q, const sn_body *o, const sn_shape_proxy *proxy_a, float t,
                               sn_vec2 *normal) {
  sn_distance_input in;
  in.proxy_a = *proxy_a;
  in.proxy_b = q->proxy;
  in.transform_a = sn_toi_other_transform(o, 0.0f);
  in.transform_b = sn_sweep_get_transform(&q->sweep, 0.0f);
  in.use_radii = false;
  const sn_distance_output d = sn_shape_distance(&in, NULL);
  if (!(d.distance > 0.0f)) return false; /* the core's centre is inside: nothing to keep */
  const sn_transform end_a = sn_toi_other_transform(o, t), end_b = sn_sweep_get_transform(&q->sweep, t);
  const sn_vec2 p0 = sn_inv_transform_point(in.transform_a, sn_transform_point(in.transform_b, q->proxy.points[0]));
  const sn_vec2 p1 = sn_inv_transform_point(end_a, sn_transform_point(end_b, q->proxy.points[0]));
  const sn_vec2 n = sn_inv_rotate(in.transform_a.q, d.normal);
  *normal = d.normal;
  return sn_dot(sn_sub(p1, p0), n) < -0.25f * SN_LINEAR_SLOP;
}

/* Are the discs inside the fast shape of q and inside shape other of body
 * ob (moving, not a bullet pair) nearer than the speculative distance at
 * the step's start? Then the pair is near and skipped (see below). */
static bool sn_toi_discs_near(const sn_toi_query *q, const sn_shape *other, const sn_body *ob) {
  if (q->disc_radius < 0.0f) return false;
  sn_vec2 local;
  const float radius = sn_geometry_inscribed_disc(&other->geom, &local);
  if (radius < 0.0f) return false;
  const sn_sweep so = sn_step_sweep(ob);
  const sn_vec2 center = sn_add(so.c1, sn_rotate(so.q1, sn_sub(local, so.local_center)));
  const float gap = sn_distance(center, q->disc_center) - radius - q->disc_radius;
  return gap < SN_SPECULATIVE_DISTANCE - SN_TOI_NEAR_ALLOWANCE;
}

/* A lower bound on the distance from point p (the shape's frame) to the
 * shape's core (its proxy without the radius): 0 or less when p may be
 * inside. A polygon's sides each separate p from the core by at most the
 * distance (its normals are unit vectors). */
static float sn_core_distance_bound(const sn_geometry *g, sn_vec2 p) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return sn_distance(p, g->circle.center);
  case SN_SHAPE_CAPSULE:
    return sqrtf(sn_origin_segment_distance_sq(sn_sub(g->capsule.center1, p), sn_sub(g->capsule.center2, p)));
  case SN_SHAPE_SEGMENT:
    return sqrtf(sn_origin_segment_distance_sq(sn_sub(g->segment.point1, p), sn_sub(g->segment.point2, p)));
  case SN_SHAPE_CHAIN_SEGMENT: {
    const sn_segment *sg = &g->chain_segment.segment;
    return sqrtf(sn_origin_segment_distance_sq(sn_sub(sg->point1, p), sn_sub(sg->point2, p)));
  }
  case SN_SHAPE_POLYGON: {
    const sn_polygon *poly = &g->polygon;
    float d = -FLT_MAX;
    for (int32_t i = 0; i < poly->count; ++i) d = sn_maxf(d, sn_dot(poly->normals[i], sn_sub(p, poly->vertices[i])));
    return d;
  }
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return 0.0f;
}

bool sn_continuous_may_close(const sn_geometry *geom_a, const sn_shape_proxy *proxy_a, const sn_sweep *sweep_a,
                             float reach_a, const sn_geometry *geom_b, const sn_shape_proxy *proxy_b,
                             const sn_sweep *sweep_b, float reach_b, float rotation_b, float max_fraction) {
  /* The start distance of the cores, bounded without a distance query:
   * each core against the other's centre of mass, less the other's reach.
   * Over the fraction no point closes faster than the relative motion of
   * the centres plus each turn's rate bound times its reach (what the time
   * of impact's advance uses, and its rotation terms): from farther than
   * that plus the stop band and a slop for rounding, its first advance
   * reaches the end of the fraction and finds the pair apart there. */
  if (!(max_fraction > 0.0f)) return true;
  const sn_transform xf_a = {sn_sub(sweep_a->c1, sn_rotate(sweep_a->q1, sweep_a->local_center)), sweep_a->q1};
  const sn_transform xf_b = {sn_sub(sweep_b->c1, sn_rotate(sweep_b->q1, sweep_b->local_center)), sweep_b->q1};
  const float gap = sn_maxf(sn_core_distance_bound(geom_a, sn_inv_transform_point(xf_a, sweep_b->c1)) - reach_b,
                            sn_core_distance_bound(geom_b, sn_inv_transform_point(xf_b, sweep_a->c1)) - reach_a);
  const sn_vec2 relative = sn_sub(sn_sub(sweep_b->c2, sweep_b->c1), sn_sub(sweep_a->c2, sweep_a->c1));
  const float closing =
      (sn_length(relative) + sn_sweep_rotation_reach(sweep_a, proxy_a) + rotation_b) * sn_minf(max_fraction, 1.0f);
  const float target = sn_maxf(SN_LINEAR_SLOP, proxy_a->radius + proxy_b->radius - SN_LINEAR_SLOP);
  return !(gap - target - 0.25f * SN_LINEAR_SLOP > closing + SN_LINEAR_SLOP + 1.0e-4f * (sn_absf(gap) + closing));
}

/* Does body b reach more than four times as far from its centre of mass
 * as its thinnest extent (a blade, a wall, a plank)? Only for a pair with
 * such a body does the cores' distance bound (sn_continuous_may_close) tell
 * much more than the centres' test: between compact bodies (a crowd of
 * tiles, a ragdoll's limbs) it costs more than it skips. */
static bool sn_toi_elongated(const sn_body *b) { return b->max_extent > 4.0f * b->min_extent; }

/* The bound's call for a pair with a long body, kept out of line: the
 * query function visits far more compact pairs, and its own code stays as
 * it was for them. */
#if defined(__GNUC__) || defined(__clang__)
#define SN_TOI_OUT_OF_LINE __attribute__((noinline))
#else
#define SN_TOI_OUT_OF_LINE
#endif

/* sn_continuous_may_close of q's shape against shape other of ob (not
 * stopped), proxy_a its proxy and reach_a its core reach. */
static SN_TOI_OUT_OF_LINE bool sn_toi_long_may_close(const sn_toi_query *q, const sn_body *ob, const sn_shape *other,
                                                     const sn_shape_proxy *proxy_a, float reach_a) {
  const sn_sweep so = sn_step_sweep(ob);
  return sn_continuous_may_close(&other->geom, proxy_a, &so, reach_a, &q->shape->geom, &q->proxy, &q->sweep, q->reach,
                                 q->rotation, q->fraction);
}

/* Ahead of its turn, q met fast body ob (not stopped yet) with shape
 * other: can the pair change q's result in turn, whether ob is stopped by
 * then or not? False only when every outcome in turn leaves q as it is. */
static bool sn_toi_ahead_may_matter(const sn_toi_query *q, const sn_shape *other, const sn_body *ob) {
  /* a one-sided segment's test reads where ob is now */
  if (other->geom.type == SN_SHAPE_CHAIN_SEGMENT) return true;
  if (!q->bullet && sn_toi_discs_near(q, other, ob)) return false;
  float radius;
  const float reach = sn_geometry_core_reach(&other->geom, ob->local_center, &radius);
  return sn_continuous_may_touch_any_split(sn_step_sweep(ob), reach, q->sweep, q->reach, radius + q->proxy.radius);
}

static bool sn_toi_query_full(int32_t shape_index, sn_toi_query *q);

/* A candidate: the first test on the noted motions when there are any, then
 * the full test. */
static bool sn_toi_query_shape(int32_t shape_index, void *context) {
  sn_toi_query *q = context;
  if (q->motions != NULL && sn_toi_passes_by(q, shape_index)) return true;
  return sn_toi_query_full(shape_index, q);
}

static bool sn_toi_query_full(int32_t shape_index, sn_toi_query *q) {
  sn_world *w = q->w;
  const sn_shape *other = w->shapes.data + shape_index;
  if (other->body == q->body_index) return true;
  if (other->is_sensor || !sn_filters_pass(q->shape, other)) return true;
  /* the pre-solve callback decides such pairs step by step: no sweep stops them */
  if (q->shape->enable_pre_solve_events || other->enable_pre_solve_events) return true;
  if ((q->shape->enable_custom_filtering || other->enable_custom_filtering) && w->custom_filter != NULL) {
    int32_t ia = (int32_t)(q->shape - w->shapes.data), ib = shape_index;
    sn_world_lock(w);
    bool keep = w->custom_filter(sn_make_shape_id(w, ia < ib ? ia : ib), sn_make_shape_id(w, ia < ib ? ib : ia),
                                 w->custom_filter_context);
    sn_world_unlock(w);
    if (!keep) return true;
  }
  const sn_body *ob = w->bodies.data + other->body;
  /* Bullets also stop at moving bodies that are not bullets, and fast
   * bodies at every moving body, each swept over the step as it moved. */
  const bool moving = ob->type != SN_BODY_STATIC;
  if (moving && q->bullet && ob->is_bullet) return true;
  /* a fast body not stopped (yet) may stop later in the pass: only then
   * can the second pass find more than this one did */
  if (ob->is_fast && ob->solver_index >= 0 && ob->toi_fraction == 1.0f) {
    if (q->ahead) {
      /* In turn that body may be stopped or not: a pair that the centres'
       * test rejects for any stop, or that the discs find near at the
       * start (the step's start does not depend on a stop), changes
       * nothing in turn either. One handled after this body is not
       * stopped yet in this body's turn either: the sweep goes on as it
       * does in turn. One handled before may be stopped by then: it is
       * kept, and the result ahead holds in turn only if it is not. One
       * whose turn was over before the sweeps ahead began (the pass's
       * long leaders, see sn_toi_plan.lead) is as it will be. */
      sn_toi_prepare(q);
      if (!sn_toi_ahead_may_matter(q, other, ob)) return true;
      if (ob->solver_index < q->self_index && ob->solver_index >= q->handled &&
          (q->dep_count == 0 || q->deps[q->dep_count - 1] != other->body)) {
        if (q->dep_count == SN_TOI_MET) {
          q->aborted = true;
          return false;
        }
        q->deps[q->dep_count++] = other->body;
      }
    }
    sn_toi_note_met(q, other->body);
  }
  if (q->recheck && !sn_toi_stopped(ob)) return true;
  /* one-sided chain segments: ignore sweeps that start behind the segment */
  if (other->geom.type == SN_SHAPE_CHAIN_SEGMENT) {
    sn_vec2 p1 = sn_transform_point(ob->xf, other->geom.chain_segment.segment.point1);
    sn_vec2 p2 = sn_transform_point(ob->xf, other->geom.chain_segment.segment.point2);
    sn_vec2 normal = sn_right_perp(sn_normalize(sn_sub(p2, p1)));
    sn_vec2 c1 = q->sweep.c1;
    /* bodies collide from the right (the normal side); skip sweeps that start behind */
    if (sn_dot(sn_sub(c1, p1), normal) < 0.0f) return true;
  }
  /* nor for a moving body the fast one is slow against (a stopped one
   * moved differently: the second pass looks at it) */
  if (moving && !sn_toi_stopped(ob) && sn_toi_relatively_slow(q, ob, other)) return true;
  /* no time of impact for a pair whose centres never come near enough
   * (exact: such a pair never hits, see sn_continuous_may_touch) */
  sn_toi_prepare(q);
  const float split = sn_toi_stopped(ob) ? ob->toi_fraction : 1.0f;
  float radius_a;
  const float reach_a = sn_geometry_core_reach(&other->geom, ob->local_center, &radius_a);
  if (!sn_continuous_may_touch(sn_step_sweep(ob), reach_a, split, q->sweep, q->reach, radius_a + q->proxy.radius))
    return true;
  /* nor for a body joined to the fast one by a constraint that keeps them
   * from colliding: they never touch (a ragdoll's limbs overlap at their
   * joints) */
  if (moving && sn_bodies_joined(w, q->body_index, other->body)) return true;
  /* A fast body that is not a bullet skips moving bodies it was already
   * near when the step began: their contact had points within the
   * speculative distance, and the solver kept the pair apart. The others
   * had none, so nothing stopped a body knocked fast in mid-step (a rock
   * struck by a bullet) from plunging into them. The time of impact stops
   * at its first distance for those. */
  const bool skip_near = moving && !q->bullet;
  /* two discs inside the shapes, nearer than the speculative distance at
   * the start: so are the shapes, no distance needed */
  if (skip_near && sn_toi_discs_near(q, other, ob)) return true;
  const sn_shape_proxy proxy_a = sn_geometry_proxy(&other->geom);
  /* (a pair found apart for the whole fraction changes nothing below; only
   * a long body's core is much nearer the other's centre than its reach) */
  if ((q->elongated || sn_toi_elongated(ob)) && !sn_toi_stopped(ob) &&
      !sn_toi_long_may_close(q, ob, other, &proxy_a, reach_a))
    return true;
  sn_toi_output out = sn_toi_against(ob, &proxy_a, q, skip_near ? SN_SPECULATIVE_DISTANCE : -FLT_MAX);
  if (skip_near && !(out.separation0 >= SN_SPECULATIVE_DISTANCE)) return true;
  const bool touching = (out.state == SN_TOI_HIT && out.fraction == 0.0f) || out.state == SN_TOI_OVERLAPPED;
  bool stay = false; /* stopped at the step's start */
  sn_vec2 stay_normal = {0.0f, 0.0f};
  if ((touching || out.state == SN_TOI_FAILED) && q->disc_radius > 0.0f) {
    /* Touching or overlapping at the step's start (a body stopped at a wall
     * last step, resting on it, or pressed into it): the sweep cannot tell
     * sliding along the surface or leaving it from going through it, so it
     * is not stopped at 0. What must not happen is its core going through:
     * a small disc at the centre of its inscribed disc, a quarter of that
     * disc's radius, is swept instead and stops the body where that disc
     * would reach the other shape (a crowd pushing a box through a thin
     * wall). So is a sweep that ran out of iterations before it found the
     * time of impact (a small body spinning fast: its rotation bound makes
     * every advance short); the disc, at the centre, barely turns. */
    sn_toi_query core = *q;
    core.proxy = sn_make_proxy_points(&q->disc_local, 1, 0.25f * q->disc_radius);
    core.rotation = -1.0f;
    out = sn_toi_against(ob, &proxy_a, &core, -FLT_MAX);
    /* The core itself touching at the start (stopped there last step, or
     * pressed there) and moving on into the other shape over the step stays
     * where it is: the contact pushes the body back out, and a sweep out of
     * it moves it. */
    const bool core_touching = ((out.state == SN_TOI_HIT || out.state == SN_TOI_FAILED) && out.fraction == 0.0f) ||
                               out.state == SN_TOI_OVERLAPPED;
    if (core_touching && sn_toi_core_closes(&core, ob, &proxy_a, q->fraction, &stay_normal)) stay = true;
  }
  if (stay) out = (sn_toi_output){SN_TOI_HIT, 0.0f, out.separation0};
  /* (a sweep out of iterations stops where it got to: still apart there) */
  if ((out.state == SN_TOI_HIT || out.state == SN_TOI_FAILED) && out.fraction < q->fraction &&
      (out.fraction > 0.0f || stay)) {
    q->fraction = out.fraction;
    q->hit_shape = (int32_t)(q->shape - w->shapes.data);
    q->hit_other = shape_index;
    q->hit_normal = stay ? stay_normal : (sn_vec2){0.0f, 0.0f};
  }
  return true;
}

/* sn_toi_query_shape as a tree query's callback. */
static bool sn_toi_query_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  return sn_toi_query_shape(shape_index, context);
}

/* The inelastic impulse along n (from o to b) that leaves b no approach
 * to o (linear momentum kept; a static or kinematic body counts as
 * infinitely heavy). */
static void sn_toi_approach_impulse(sn_body *b, sn_body *o, sn_vec2 n) {
  float approach = sn_dot(sn_sub(b->v, o->v), n);
  if (!(approach < 0.0f)) return;
  float wb = b->inv_mass, wo = o->type == SN_BODY_DYNAMIC ? o->inv_mass : 0.0f;
  if (!(wb + wo > 0.0f)) return;
  float impulse = -approach / (wb + wo);
  b->v = sn_mul_add(b->v, wb * impulse, n);
  o->v = sn_mul_add(o->v, -wo * impulse, n);
}

/* A fast body stopped at its time of impact against a moving body keeps
 * no approach along the contact normal: the two take an inelastic impulse.
 * Without it the body kept its speed and was stopped again every step a
 * little behind a body moving ahead of it, with nothing from behind
 * stopped at it. One kept at the step's start by its core loses its
 * approach to any body, a static one too: else the step that pushed it in
 * would be the next step's too, and it would stay there. */
static void sn_toi_inelastic(sn_world *w, sn_body *b, const sn_toi_query *q) {
  const sn_shape *sa = w->shapes.data + q->hit_shape, *so = w->shapes.data + q->hit_other;
  sn_body *o = w->bodies.data + so->body;
  if (q->hit_normal.x != 0.0f || q->hit_normal.y != 0.0f) {
    /* kept at the start by its core: the core's normal */
    sn_toi_approach_impulse(b, o, q->hit_normal);
    return;
  }
  if (o->type == SN_BODY_STATIC) return;
  sn_distance_input in;
  in.proxy_a = sn_geometry_proxy(&so->geom);
  in.proxy_b = sn_geometry_proxy(&sa->geom);
  in.transform_a = sn_toi_other_transform(o, q->fraction);
  in.transform_b = b->xf;
  in.use_radii = false;
  sn_distance_output d = sn_shape_distance(&in, NULL);
  if (!(d.distance > 0.0f)) return;
  sn_toi_approach_impulse(b, o, d.normal);
}

/* Fast bodies are swept in groups of neighbours: each tree is queried
 * once with the group's box, its leaves kept, and each shape of the group
 * then visits the kept leaves its own box overlaps. A query visits leaves
 * in the tree's depth-first order, so those are the leaves its own query
 * would visit, in the same order: the results are the same, for a fraction
 * of the descents. The trees do not change during continuous collision and
 * a fast body's swept box does not change before its turn, so a group need
 * not be consecutive in body order: the groups are formed before the pass,
 * in body order where it follows space, else in Morton order of the bodies'
 * centres (a crowd's motion scatters body order), and their leaves serve
 * the sweeps ahead and the pass in turn alike. */
enum { SN_TOI_GROUP_BODIES = 8, SN_TOI_GROUP_LEAVES = 96 };

/// Groups in body order average at least this many bodies, or Morton
/// order is tried (sn_toi_plan_build).
enum { SN_TOI_ORDER_BODIES = 4 };

/// Room for kept leaves per fast body (a group of neighbours in a crowd
/// holds a few leaves per body; a group with more than
/// SN_TOI_GROUP_LEAVES in a tree, or past the pool's end, leaves its bodies
/// to query that tree).
enum { SN_TOI_PLAN_LEAVES = 16 };

typedef struct sn_toi_leaves {
  const sn_tree *tree;
  const sn_tree_leaf *data;
  int32_t count; ///< -1: more leaves than room, the group's shapes query the tree themselves
} sn_toi_leaves;

static bool sn_toi_is_stopped_shape(const uint64_t *bits, int32_t shape_index) {
  return (bits[shape_index >> 6] >> (shape_index & 63) & 1u) != 0;
}

/* sn_toi_query_fcn for the shapes of stopped bodies only (the second pass:
 * it passes over every other shape without a change, see sn_toi_query_fcn). */
static bool sn_toi_recheck_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  const sn_toi_query *q = context;
  if (!sn_toi_is_stopped_shape(q->stopped_shapes, shape_index)) return true;
  return sn_toi_query_fcn(proxy_id, shape_index, context);
}

/* Visits what sn_tree_query(tree, box, mask) would: from the group's kept
 * leaves, or the tree itself when they did not fit. The second pass skips
 * the shapes of bodies not stopped before reading them: a crowd's sweeps
 * meet mostly those. */
static void sn_toi_visit(const sn_toi_leaves *l, sn_aabb box, uint64_t mask, sn_toi_query *q) {
  const bool only_stopped = q->recheck && q->stopped_shapes != NULL;
  /* (a negative group's shapes never stop each other: a ragdoll's limbs) */
  const int32_t skip_group = sn_tree_skip_group(q->shape->group_index);
  if (l->count < 0) {
    sn_tree_query(l->tree, box, mask, only_stopped ? sn_toi_recheck_fcn : sn_toi_query_fcn, q);
  } else if (!only_stopped && q->motions == NULL) {
    sn_tree_leaves_query(l->data, l->count, box, mask, skip_group, sn_toi_query_shape, q);
  } else if (!only_stopped) {
    /* sn_tree_leaves_query with the motions' test in line: most candidates
     * end there */
    enum { RUN = 64 };
    int32_t hits[RUN];
    for (int32_t first = 0; first < l->count; first += RUN) {
      const sn_tree_leaf *run = l->data + first;
      const int32_t n =
          sn_tree_leaves_hits(run, l->count - first < RUN ? l->count - first : RUN, box, mask, skip_group, hits);
      for (int32_t k = 0; k < n; ++k) {
        const int32_t si = run[hits[k]].user_data;
        if (sn_toi_passes_by(q, si)) continue;
        if (!sn_toi_query_full(si, q)) return;
      }
    }
  } else {
    /* the stopped bit first, then the leaf's tests: most leaves belong to
     * bodies not stopped, a branch the predictor wins (sn_tree_leaves_query
     * with a filtering callback tests every box first, and this pass took
     * 1.04 of the time that way in `tumbler` and `smash`) */
    for (int32_t i = 0; i < l->count; ++i) {
      const sn_tree_leaf *leaf = l->data + i;
      if (!sn_toi_is_stopped_shape(q->stopped_shapes, leaf->user_data)) continue;
      if ((leaf->category_bits & mask) == 0 || !sn_aabb_overlaps(leaf->aabb, box)) continue;
      if (skip_group != 0 && leaf->group == skip_group) continue;
      if (!sn_toi_query_shape(leaf->user_data, q)) return;
    }
  }
}

/* The fast bodies in groups. */
typedef struct sn_toi_plan {
  int32_t fast, group_count;
  int32_t lead;               ///< awake index after the long fast bodies that lead the pass (up to
                              ///< SN_TOI_GROUP_BODIES of them; sn_continuous_solve)
  int32_t lead_count;         ///< those bodies
  bool spatial;               ///< the groups follow Morton order (else body order)
  int32_t *members;           ///< awake indices, group by group
  int32_t *first;             ///< group g's members: members[first[g], first[g + 1])
  sn_aabb *box;               ///< per group: union of its bodies' sn_toi_reach_box
  bool *collected;            ///< per group: its leaves are kept
  sn_toi_leaves (*leaves)[2]; ///< per group: static tree, dynamic tree
  sn_tree_leaf *pool;         ///< the groups' kept leaves
  int32_t capacity;           ///< of the pool (SN_TOI_PLAN_LEAVES per fast body)
  _Atomic int32_t used;       ///< taken from the pool
  int32_t *group_of;          ///< per awake index: its group (fast bodies)
  sn_aabb *reach;             ///< per awake index: a fast body's sn_toi_reach_box
} sn_toi_plan;

/* The plan's scratch for n bodies (sn_toi_plan_build; with the arena's
 * alignment of each of its blocks). */
static size_t sn_toi_plan_bytes(size_t n) {
  return n * (2 * sizeof(uint64_t) + 3 * sizeof(int32_t) + 2 * sizeof(sn_aabb) + sizeof(bool) +
              2 * sizeof(sn_toi_leaves) + SN_TOI_PLAN_LEAVES * sizeof(sn_tree_leaf)) +
         sizeof(int32_t) + 10 * 16;
}

/* A box around everything body b's shapes cover over the step: its
 * centre's two positions grown by its max_extent (the farthest shape point
 * from the centre of mass), with room for the rounding of the shapes'
 * boxes (a few units in the last place of the coordinates). It holds each
 * shape's swept box in sn_toi_sweep, and reads the body only (not its
 * shapes, which a large world keeps out of the caches until their sweep). */
static sn_aabb sn_toi_reach_box(const sn_body *b) {
  const sn_vec2 lo = sn_vmin(b->center0, b->center), hi = sn_vmax(b->center0, b->center);
  const float size = sn_maxf(sn_maxf(sn_absf(lo.x), sn_absf(lo.y)), sn_maxf(sn_absf(hi.x), sn_absf(hi.y)));
  const float r = b->max_extent + 4.0e-6f * (b->max_extent + size) + 1.0e-6f;
  return (sn_aabb){{lo.x - r, lo.y - r}, {hi.x + r, hi.y + r}};
}

/* The fast bodies in groups, in the order of order's low halves (awake
 * indices): each joins the group before it while the group has room and
 * their boxes touch (the perimeter of the union at most the two
 * perimeters). Returns the group count; writes the groups only if write. */
static int32_t sn_toi_plan_groups(sn_world *w, sn_toi_plan *p, const uint64_t *order, int32_t n, bool write) {
  int32_t g = -1, size = 0;
  sn_aabb group_box = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int32_t i = 0; i < n; ++i) {
    const int32_t k = (int32_t)(uint32_t)order[i];
    const sn_aabb box = p->reach[k];
    bool join = g >= 0 && size < SN_TOI_GROUP_BODIES;
    if (join) {
      const sn_aabb joined = sn_aabb_union(group_box, box);
      join = !(sn_aabb_perimeter(joined) > sn_aabb_perimeter(group_box) + sn_aabb_perimeter(box));
      if (join) {
        group_box = joined;
        size += 1;
      }
    }
    if (!join) {
      if (write && g >= 0) p->box[g] = group_box;
      g += 1;
      size = 1;
      group_box = box;
      if (write) {
        p->first[g] = i;
        p->collected[g] = false;
        p->leaves[g][0] = (sn_toi_leaves){&w->static_tree, NULL, -1};
        p->leaves[g][1] = (sn_toi_leaves){&w->dynamic_tree, NULL, -1};
      }
    }
    if (write) {
      p->members[i] = k;
      p->group_of[k] = g;
    }
  }
  if (write && g >= 0) {
    p->box[g] = group_box;
    p->first[g + 1] = n;
  }
  return g + 1;
}

/* The fast bodies in groups (sn_toi_plan_groups), in body order or in
 * Morton order of the midpoints of their centres' motion. False when the
 * arena is short: then every body queries the trees itself. Reads bodies
 * only. */
static bool sn_toi_plan_build(sn_world *w, sn_toi_plan *p) {
  const int32_t nb = w->awake_bodies.count;
  p->fast = 0;
  p->lead = 0;
  p->lead_count = 0;
  p->group_count = 0;
  p->spatial = false;
  if (nb == 0 || w->toi_ungrouped) return false;
  uint64_t *keys = sn_arena_alloc(&w->arena, 2 * (size_t)nb * sizeof(uint64_t));
  p->members = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(int32_t));
  p->first = sn_arena_alloc(&w->arena, ((size_t)nb + 1) * sizeof(int32_t));
  p->box = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_aabb));
  p->collected = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(bool));
  p->leaves = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(*p->leaves));
  p->group_of = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(int32_t));
  p->reach = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_aabb));
  if (keys == NULL || p->members == NULL || p->first == NULL || p->box == NULL || p->collected == NULL ||
      p->leaves == NULL || p->group_of == NULL || p->reach == NULL)
    return false;
  /* the fast bodies and the midpoints of their centres' motion (kept in
   * the second half of keys until the codes are made) */
  sn_vec2 *mid = (sn_vec2 *)(keys + nb);
  sn_vec2 lo = {0.0f, 0.0f}, hi = {0.0f, 0.0f};
  int32_t n = 0;
  for (int32_t k = 0; k < nb; ++k) {
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    if (!b->is_fast) continue;
    if (n == p->lead_count && n < SN_TOI_GROUP_BODIES && sn_toi_elongated(b)) {
      p->lead = k + 1;
      p->lead_count += 1;
    }
    const sn_vec2 c = sn_scale(0.5f, sn_add(b->center0, b->center));
    lo = n == 0 ? c : sn_vmin(lo, c);
    hi = n == 0 ? c : sn_vmax(hi, c);
    p->reach[k] = sn_toi_reach_box(b);
    p->members[n] = k;
    mid[n] = c;
    ++n;
  }
  p->fast = n;
  if (n == 0) return false;
  p->capacity = n * SN_TOI_PLAN_LEAVES;
  p->pool = sn_arena_alloc(&w->arena, (size_t)p->capacity * sizeof(sn_tree_leaf));
  if (p->pool == NULL) return false;
  atomic_init(&p->used, 0);
  /* Groups in body order where that order follows space (a ragdoll's
   * parts, a row of bodies: the sweeps in turn then find their group's
   * leaves and neighbours in the caches), else in Morton order, when that
   * makes a quarter fewer groups (a crowd whose motion scattered its body
   * order). */
  for (int32_t i = 0; i < n; ++i) keys[i] = (uint32_t)p->members[i];
  p->group_count = sn_toi_plan_groups(w, p, keys, n, true);
  if (p->group_count * SN_TOI_ORDER_BODIES > n) {
    const sn_morton_grid grid = sn_morton_grid_over(lo, hi);
    uint64_t *to = keys + nb;
    for (int32_t i = 0; i < n; ++i) to[i] = (uint64_t)sn_morton_code(&grid, mid[i]) << 32 | (uint32_t)p->members[i];
    /* (ties keep body order) */
    uint64_t *from = to;
    sn_radix_sort_high(from, keys, n);
    if (4 * sn_toi_plan_groups(w, p, from, n, false) < 3 * p->group_count) {
      p->group_count = sn_toi_plan_groups(w, p, from, n, true);
      p->spatial = true;
    }
  }
  return true;
}

/* Group g's leaves of each tree under its box, kept in the pool (once:
 * the trees do not change during continuous collision). Groups take their
 * room from the pool as they come (in parallel with workers): where the
 * leaves go, or whether they fit, changes only who does the descents. */
static const sn_toi_leaves *sn_toi_plan_leaves(sn_toi_plan *p, int32_t g) {
  if (!p->collected[g]) {
    sn_tree_leaf found[SN_TOI_GROUP_LEAVES];
    for (int32_t t = 0; t < 2; ++t) {
      const sn_tree *tree = p->leaves[g][t].tree;
      int32_t count = sn_tree_collect(tree, p->box[g], UINT64_MAX, found, SN_TOI_GROUP_LEAVES);
      const sn_tree_leaf *kept = NULL;
      if (count > 0) {
        const int32_t at = atomic_fetch_add_explicit(&p->used, count, memory_order_relaxed);
        if (at <= p->capacity - count) {
          memcpy(p->pool + at, found, (size_t)count * sizeof(sn_tree_leaf));
          kept = p->pool + at;
        } else {
          count = -1;
        }
      }
      p->leaves[g][t] = (sn_toi_leaves){tree, kept, count};
    }
    p->collected[g] = true;
  }
  return p->leaves[g];
}

/* What the first pass's bodies met (sn_toi_query.met), per awake index;
 * bodies NULL: not kept (short of memory), every flagged body is swept again. */
typedef struct sn_toi_met {
  int32_t *bodies; ///< SN_TOI_MET a body
  uint8_t *count;
} sn_toi_met;

/* Sweeps fast body k (awake index) against what its group's leaves hold
 * (group NULL: against the trees), into q. Changes nothing. */
static void sn_toi_sweep(sn_world *w, int32_t k, const sn_toi_leaves *group, bool recheck,
                         const uint64_t *stopped_shapes, bool ahead, int32_t handled, int32_t *met, sn_toi_query *q) {
  const int32_t body_index = w->awake_bodies.data[k];
  const sn_body *b = w->bodies.data + body_index;
  q->w = w;
  q->body_index = body_index;
  q->sweep = sn_step_sweep(b);
  q->fraction = 1.0f;
  q->bullet = b->is_bullet;
  q->recheck = recheck;
  q->stopped_shapes = stopped_shapes;
  q->may_recheck = false;
  q->ahead = ahead;
  q->aborted = false;
  q->self_index = k;
  q->handled = handled;
  q->dep_count = 0;
  q->met = met;
  q->met_count = 0;
  q->hit_shape = SN_NULL_INDEX;
  q->hit_other = SN_NULL_INDEX;
  q->hit_normal = (sn_vec2){0.0f, 0.0f};
  q->turn = sn_turn_bound(q->sweep.q1, q->sweep.q2);
  q->max_extent = b->max_extent;
  q->fast_limit = (b->is_bullet ? 0.25f : 0.5f) * b->min_extent;
  q->elongated = sn_toi_elongated(b);
  q->motions = w->toi_notes && !recheck && w->custom_filter == NULL && !w->toi_unfiltered ? w->toi_motions.data : NULL;
  q->passed = 0;
  const sn_transform xf1 = {sn_sub(b->center0, sn_rotate(b->q0, b->local_center)), b->q0};
  const sn_toi_leaves trees[2] = {{&w->static_tree, NULL, -1}, {&w->dynamic_tree, NULL, -1}};
  const sn_toi_leaves *leaves = group != NULL ? group : trees;
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    q->shape = w->shapes.data + s;
    if (q->shape->is_sensor) continue;
    q->prepared = false;
    /* (inside its group's box: sn_toi_reach_box; the box at the end, b->xf,
     * the write back computed: a body swept has not moved since) */
    const sn_aabb box = sn_aabb_union(sn_geometry_compute_aabb(&q->shape->geom, xf1), q->shape->aabb);
    const uint64_t mask = sn_shape_query_mask(q->shape);
    /* the second pass looks at stopped bodies only, never static ones */
    if (!recheck) sn_toi_visit(&leaves[0], box, mask, q);
    if (q->aborted) return;
    sn_toi_visit(&leaves[1], box, mask, q);
    if (q->aborted) return;
  }
}

/* Body k takes the result of its sweep: stopped at its time of impact
 * (with the inelastic impulse against a moving body), or not. */
static void sn_toi_apply(sn_world *w, int32_t k, const sn_toi_query *q, const sn_toi_met *m) {
  sn_body *b = w->bodies.data + w->awake_bodies.data[k];
  b->toi_fraction = q->fraction;
  b->toi_recheck = q->may_recheck;
  if (w->toi_notes && q->fraction < 1.0f) w->toi_motions.data[k].stopped = true;
  if (m->bodies != NULL && q->met != NULL) m->count[k] = (uint8_t)q->met_count;
  if (q->fraction < 1.0f) {
    sn_transform xf = sn_sweep_get_transform(&q->sweep, q->fraction);
    b->xf = xf;
    b->center = sn_transform_point(xf, b->local_center);
    w->body_events.data[b->solver_index].transform = xf; /* its move event (rigid/solver.c) */
    sn_toi_inelastic(w, b, q);
  }
}

static void sn_solve_continuous(sn_world *w, int32_t k, const sn_toi_leaves *group, bool recheck,
                                const uint64_t *stopped_shapes, const sn_toi_met *m) {
  sn_toi_query q;
  q.deps = NULL;
  int32_t *met = !recheck && m->bodies != NULL ? m->bodies + (size_t)k * SN_TOI_MET : NULL;
  sn_toi_sweep(w, k, group, recheck, stopped_shapes, false, k, met, &q);
  w->toi_passed += q.passed;
  sn_toi_apply(w, k, &q, m);
}

/* Steps without sweeps ahead after a step whose sweeps ahead held for
 * fewer than half of the fast bodies (fast bodies stopping each other,
 * many swept again in turn): on two workers the sweeps ahead take half the
 * time of sweeping all in turn, so below half they cost more than they
 * saved.
 * Sweeps ahead start at parallel_min_items / SN_TOI_AHEAD_WEIGHT fast
 * bodies (a sweep is the work of many smaller items). */
enum { SN_TOI_AHEAD_REST = 15, SN_TOI_AHEAD_WEIGHT = 16 };

/* Sweeps ahead, in parallel (sn_continuous_solve). Before a fast body's
 * turn the pass changes only fast bodies (those it stops; static and slow
 * bodies stay where they are, and the impulses change only velocities),
 * and only those handled before it: the others are where a sweep ahead
 * sees them. So a sweep ahead is the sweep in turn unless a fast body
 * handled before it, which it met, is stopped by its turn; those (up to
 * SN_TOI_MET) are kept with the result and checked in turn. With more,
 * the body is swept in turn. */
typedef struct sn_toi_ahead {
  float fraction;
  int32_t hit_shape, hit_other;
  sn_vec2 hit_normal;
  bool done;        ///< the result in turn if no body of deps is stopped then
  bool may_recheck; ///< as sn_toi_query
  uint8_t met_count, dep_count;
  int32_t met[SN_TOI_MET], deps[SN_TOI_MET];
} sn_toi_ahead;

typedef struct sn_toi_ahead_run {
  sn_world *w;
  sn_toi_ahead *ahead;
  sn_toi_plan *plan;
  int32_t handled; ///< awake indices below it had their turn before the sweeps ahead
} sn_toi_ahead_run;

/* Body k (with its group's leaves, or NULL) swept ahead into ahead a, once
 * the bodies before awake index handled had their turn. */
static void sn_toi_ahead_one(sn_world *w, sn_toi_ahead *a, int32_t k, const sn_toi_leaves *group, int32_t handled) {
  sn_toi_query q;
  q.deps = a->deps;
  sn_toi_sweep(w, k, group, false, NULL, true, handled, a->met, &q);
  a->fraction = q.fraction;
  a->hit_shape = q.hit_shape;
  a->hit_other = q.hit_other;
  a->hit_normal = q.hit_normal;
  a->done = !q.aborted;
  a->may_recheck = q.may_recheck;
  a->met_count = (uint8_t)q.met_count;
  a->dep_count = (uint8_t)q.dep_count;
}

/* The block's groups swept ahead (each group's leaves collected here, and
 * kept for the sweeps in turn). */
static void sn_toi_ahead_stage(void *context, const sn_stage *st, int32_t begin, int32_t end) {
  (void)st;
  sn_toi_ahead_run *run = context;
  sn_toi_plan *p = run->plan;
  for (int32_t g = begin; g < end; ++g) {
    const sn_toi_leaves *leaves = sn_toi_plan_leaves(p, g);
    for (int32_t i = p->first[g]; i < p->first[g + 1]; ++i) {
      const int32_t k = p->members[i];
      if (k >= run->handled) sn_toi_ahead_one(run->w, run->ahead + k, k, leaves, run->handled);
    }
  }
}

/* Does body k's sweep ahead hold in its turn (none of the bodies it
 * depends on stopped)? */
static bool sn_toi_ahead_holds(const sn_world *w, const sn_toi_ahead *a) {
  if (!a->done) return false;
  for (int32_t j = 0; j < a->dep_count; ++j) {
    if (sn_toi_stopped(w->bodies.data + a->deps[j])) return false;
  }
  return true;
}

/* The counts of sn_world.toi_ahead_held and _redone, for a sweep ahead
 * whose fate in turn is decided. */
static void sn_toi_ahead_count(sn_world *w, const sn_toi_ahead *a, bool holds) {
  if (holds)
    w->toi_ahead_held += a->dep_count > 0 ? 1 : 0;
  else
    w->toi_ahead_redone += a->done ? 1 : 0;
}

/* Body k takes the result its sweep ahead found. */
static void sn_toi_apply_ahead(sn_world *w, int32_t k, const sn_toi_ahead *a, const sn_toi_met *m) {
  const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
  sn_toi_query q;
  q.w = w;
  q.body_index = w->awake_bodies.data[k];
  q.sweep = sn_step_sweep(b);
  q.fraction = a->fraction;
  q.may_recheck = a->may_recheck;
  q.met = m->bodies != NULL ? m->bodies + (size_t)k * SN_TOI_MET : NULL;
  q.met_count = a->met_count;
  if (q.met != NULL) memcpy(q.met, a->met, sizeof a->met);
  q.hit_shape = a->hit_shape;
  q.hit_other = a->hit_other;
  q.hit_normal = a->hit_normal;
  sn_toi_apply(w, k, &q, m);
}

/* Does the pass sweep awake body k? The first every fast one; the second
 * (recheck) the fast ones not stopped that met a fast body not stopped at
 * the time which is stopped now. Any other stopped body it met was stopped
 * before its sweep, which found no hit against it: sweeping again, with the
 * same sweeps, would find the same. The first pass's answer never changes
 * while earlier bodies are swept; the second's can only turn true. */
static bool sn_toi_needs(const sn_world *w, int32_t k, bool recheck, const sn_toi_met *m) {
  const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
  if (!recheck) return b->is_fast;
  if (!(b->is_fast && b->toi_fraction == 1.0f && b->toi_recheck)) return false;
  if (m->bodies == NULL || m->count[k] > SN_TOI_MET) return true;
  const int32_t *met = m->bodies + (size_t)k * SN_TOI_MET;
  for (int32_t j = 0; j < m->count[k]; ++j) {
    if (sn_toi_stopped(w->bodies.data + met[j])) return true;
  }
  return false;
}

/* Marks the shapes of body b in bits (sn_toi_query.stopped_shapes). */
static void sn_toi_mark_shapes(const sn_world *w, const sn_body *b, uint64_t *bits) {
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next)
    bits[s >> 6] |= (uint64_t)1 << (s & 63);
}

/* One pass over the fast bodies of awake indices [from, to) in body
 * order; true when a body was stopped. The second pass keeps
 * stopped_shapes up to date (when kept): a body it stops is swept against
 * by the bodies after it. */
static bool sn_continuous_pass(sn_world *w, bool recheck, uint64_t *stopped_shapes, const sn_toi_ahead *ahead,
                               sn_toi_plan *plan, const sn_toi_met *m, int32_t *held, int32_t from, int32_t to) {
  bool stopped = false;
  for (int32_t k = from; k < to; ++k) {
    if (!sn_toi_needs(w, k, recheck, m)) continue;
    const bool holds = ahead != NULL && sn_toi_ahead_holds(w, ahead + k);
    if (ahead != NULL) sn_toi_ahead_count(w, ahead + k, holds);
    if (holds) {
      *held += 1;
      sn_toi_apply_ahead(w, k, ahead + k, m);
      stopped = stopped || ahead[k].fraction < 1.0f;
      continue;
    }
    sn_solve_continuous(w, k, plan != NULL ? sn_toi_plan_leaves(plan, plan->group_of[k]) : NULL, recheck,
                        stopped_shapes, m);
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    stopped = stopped || b->toi_fraction < 1.0f;
    if (stopped_shapes != NULL && sn_toi_stopped(b)) sn_toi_mark_shapes(w, b, stopped_shapes);
  }
  return stopped;
}

/* Bodies held together by rigid joints stop together. A body stopped at
 * its time of impact, with the bodies jointed to it going on for the whole
 * step, pulled its joints apart by what they moved after its stop: a
 * ragdoll landing at 28 m/s on a floor left a foot 0.3 m from its leg. The
 * joined bodies (moving, joined by a type with a position projection: its
 * rows hold the bodies rigidly) are put back along their motion of the step
 * to the earliest stop among them, where the joints held as well as at the
 * step's end; each keeps its velocity. Their poses there lie on paths the
 * sweeps and the discrete step already cleared. */
static void sn_toi_stop_joined(sn_world *w, uint8_t *post, uint8_t moved) {
  const int32_t nb = w->awake_bodies.count;
  /* only a stopped body with constraints can hold others back */
  bool any = false;
  for (int32_t k = 0; k < nb && !any; ++k) {
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    any = b->constraint_count > 0 && sn_toi_stopped(b);
  }
  if (!any) return;
  int32_t *parent = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(int32_t));
  float *earliest = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(float));
  if (parent == NULL || earliest == NULL) return;
  for (int32_t k = 0; k < nb; ++k) {
    parent[k] = k;
    earliest[k] = 1.0f;
  }
  /* (only the types solved per item have bodies: the step's cached list) */
  const sn_constraint_lists *l = &w->constraint_lists;
  assert(l->valid);
  bool joined = false;
  for (int32_t n = 0; n < l->items.count; ++n) {
    const sn_constraint *c = w->constraints.data + l->items.data[n];
    if (!c->in_use || c->type->body_count != 2 || c->type->project == NULL) continue;
    const sn_body *a = w->bodies.data + c->bodies[0], *b = w->bodies.data + c->bodies[1];
    if (a->type != SN_BODY_DYNAMIC || b->type != SN_BODY_DYNAMIC || a->solver_index < 0 || b->solver_index < 0)
      continue;
    joined = sn_set_join(parent, a->solver_index, b->solver_index) || joined;
  }
  if (!joined) return;
  for (int32_t k = 0; k < nb; ++k) {
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    if (!sn_toi_stopped(b)) continue;
    const int32_t r = sn_set_root(parent, k);
    earliest[r] = sn_minf(earliest[r], b->toi_fraction);
  }
  for (int32_t k = 0; k < nb; ++k) {
    const float t = earliest[sn_set_root(parent, k)];
    if (!(t < 1.0f)) continue;
    sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    /* its pose now is at fraction f of its motion: t of the motion is t / f of that */
    const float f = sn_toi_stopped(b) ? b->toi_fraction : 1.0f;
    if (!(t < f)) continue;
    const sn_sweep sweep = sn_step_sweep(b);
    const sn_transform xf = sn_sweep_get_transform(&sweep, f > 0.0f ? t / f : 0.0f);
    b->xf = xf;
    b->center = sn_transform_point(xf, b->local_center);
    w->body_events.data[b->solver_index].transform = xf;
    post[k] |= moved;
  }
}

void sn_continuous_solve(sn_world *w, uint8_t *post, uint8_t moved, bool any_fast) {
  w->toi_passed = 0;
  w->toi_had_fast = any_fast;
  if (!any_fast) {
    w->toi_ahead_held = w->toi_ahead_redone = 0;
    w->toi_groups = 0;
    w->toi_spatial = false;
    w->toi_kept_leaves = 0;
    return;
  }
  /* With workers, fast bodies are swept ahead in parallel first, a group
   * at a time; those that met no fast body keep that result (the same as
   * in turn, so the outcome does not depend on the worker count). When
   * most of them met one, the sweeps ahead rest a few steps
   * (SN_TOI_AHEAD_REST), which changes only who does the work. A custom
   * filter is a user callback: it is only called from the stepping thread. */
  const int32_t nb = w->awake_bodies.count;
  sn_toi_plan plan;
  const bool planned = sn_toi_plan_build(w, &plan);
  const int32_t fast = plan.fast;
  sn_toi_ahead *ahead = NULL;
  bool try_ahead = planned && w->worker_count > 1 && w->custom_filter == NULL &&
                   (int64_t)fast * SN_TOI_AHEAD_WEIGHT >= w->parallel_min_items;
  if (try_ahead && w->toi_ahead_rest > 0) {
    w->toi_ahead_rest -= 1;
    try_ahead = false;
  }
  sn_toi_met m = {NULL, NULL};
  if (nb > 0) {
    m.bodies = sn_arena_alloc(&w->arena, (size_t)nb * SN_TOI_MET * sizeof(int32_t));
    m.count = sn_arena_alloc(&w->arena, (size_t)nb);
    if (m.count == NULL) m.bodies = NULL;
  }
  int32_t held = 0;
  w->toi_ahead_held = w->toi_ahead_redone = 0;
  /* A long fast body meets most of the bodies under its swept box (a
   * spinner's blade): their sweeps ahead would keep it, and its stop in
   * turn would spoil them. So the long fast bodies that lead the pass
   * (sn_toi_plan.lead) have their turn first, and the sweeps ahead see
   * them as they end up. */
  const int32_t lead = try_ahead ? plan.lead : 0;
  bool stopped = sn_continuous_pass(w, false, NULL, NULL, planned ? &plan : NULL, &m, &held, 0, lead);
  if (try_ahead) {
    ahead = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_toi_ahead));
    sn_toi_ahead_run run = {w, ahead, &plan, lead};
    sn_stage_runner r;
    if (ahead != NULL && sn_stage_runner_init(&r, &w->arena, 1, w->worker_count, sn_toi_ahead_stage, &run)) {
      sn_stage_add(&r, 0, 0, 0, plan.group_count, SN_BLOCK_BODIES / SN_TOI_GROUP_BODIES, 1);
      sn_stage_run(&w->tasks, &r);
    } else {
      ahead = NULL;
    }
  }
  stopped = sn_continuous_pass(w, false, NULL, ahead, planned ? &plan : NULL, &m, &held, lead, nb) || stopped;
  if (ahead != NULL && 2 * (int64_t)held < (int64_t)(fast - plan.lead_count)) w->toi_ahead_rest = SN_TOI_AHEAD_REST;
  /* A fast body handled before one that was then stopped was swept
   * against that one's whole motion, and may run into where it stopped
   * (two bodies flung together, the second caught by a third): once more
   * for those, against the stopped bodies only. */
  if (stopped) {
    /* the shapes of the stopped bodies, the only ones the second pass
     * sweeps against */
    const size_t words = ((size_t)w->shapes.count + 63) / 64;
    uint64_t *stopped_shapes = sn_arena_alloc(&w->arena, words * sizeof(uint64_t));
    if (stopped_shapes != NULL) {
      memset(stopped_shapes, 0, words * sizeof(uint64_t));
      for (int32_t k = 0; k < nb; ++k) {
        const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
        if (sn_toi_stopped(b)) sn_toi_mark_shapes(w, b, stopped_shapes);
      }
    }
    sn_continuous_pass(w, true, stopped_shapes, NULL, planned ? &plan : NULL, &m, &held, 0, nb);
  }
  sn_toi_stop_joined(w, post, moved);
  w->toi_groups = planned ? plan.group_count : 0;
  w->toi_spatial = planned && plan.spatial;
  w->toi_kept_leaves = planned ? sn_mini(atomic_load_explicit(&plan.used, memory_order_relaxed), plan.capacity) : 0;
}

size_t sn_continuous_scratch_bytes(const sn_world *w) {
  /* the sweeps ahead, one per body that may be awake, and their stage (the
   * tree queries keep their stacks on the call stack) */
  const size_t n = (size_t)w->bodies.count;
  const size_t shape_words = ((size_t)w->shapes.count + 63) / 64;
  return n * (sizeof(sn_toi_ahead) + SN_TOI_MET * sizeof(int32_t) + 1 + sizeof(int32_t) + sizeof(float)) +
         shape_words * sizeof(uint64_t) + 6 * 16 + sn_stage_runner_bytes(1) + sn_toi_plan_bytes(n);
}

void sn_toi_begin_notes(sn_world *w) {
  /* (reserved by sn_solve_reserve; short of it, no notes: every candidate
   * takes the full test) */
  const int32_t shapes = w->shapes.count;
  assert(w->toi_motions.capacity >= w->awake_bodies.count && w->toi_owners.capacity >= shapes);
  if (w->toi_motions.capacity < w->awake_bodies.count || w->toi_owners.capacity < shapes) return;
  if (w->toi_owners.count < shapes) {
    memset(w->toi_owners.data + w->toi_owners.count, 0, (size_t)(shapes - w->toi_owners.count) * sizeof(sn_toi_owner));
    w->toi_owners.count = shapes;
  }
  w->toi_stamp += 1;
  if (w->toi_stamp == 0) {
    /* wrapped: no entry may keep a stamp that comes again */
    memset(w->toi_owners.data, 0, (size_t)w->toi_owners.count * sizeof(sn_toi_owner));
    w->toi_stamp = 1;
  }
  w->toi_notes = true;
}

/* (what sn_step_sweep gives for a body in the step) */
void sn_toi_note_body(sn_world *w, int32_t k, int32_t bi, const sn_body *b) {
  sn_toi_motion *m = w->toi_motions.data + k;
  m->c1 = b->center0;
  m->c2 = b->center;
  m->turn = sn_turn_bound(b->q0, b->xf.q);
  m->body = bi;
  m->fast = b->is_fast;
  m->stopped = false;
}

void sn_toi_note_shape(sn_world *w, int32_t k, int32_t si, bool fast) {
  const float inner = fast ? sn_geometry_inner_radius(&w->shapes.data[si].geom) : 0.0f;
  w->toi_owners.data[si] = (sn_toi_owner){k, w->toi_stamp, inner};
}
