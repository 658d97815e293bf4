/* The rigid solver: soft-step sequential impulses.
 *
 * Per step: gather awake bodies into contiguous solver state, prepare the
 * touching contacts (anchors, effective masses, softness), then for each of
 * the world's substeps h = dt / n:
 *   integrate velocities -> warm start -> solve (soft bias) -> integrate
 *   positions -> relax (no bias)
 * then one restitution pass, store the accumulated impulses back into the
 * manifolds (warm starting next step), write bodies back, and run continuous
 * collision for fast bodies against static geometry.
 *
 * Soft contact (a spring-damper in constraint space, "soft step"): for a
 * stiffness of `hertz` and damping ratio zeta, with omega = 2 pi hertz,
 *   a1 = 2 zeta + h omega, a2 = h omega a1, a3 = 1 / (1 + a2)
 *   bias_rate = omega / a1, mass_scale = a2 a3, impulse_scale = a3
 * and the normal impulse of a penetrating point with separation s < 0 is
 *   dl = -m_eff mass_scale (vn + max(bias_rate s, -v_push)) - impulse_scale l.
 * The relax pass uses mass_scale 1, impulse_scale 0 and no bias, so the
 * velocity that pushed bodies apart does not survive as kinetic energy.
 * A speculative point (s > 0) allows the approach speed s / h. */
#include <assert.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "base/tasks.h"
#include "world/world.h"
#include "collision/distance.h"
#include "rigid/contact_wide.h"
#include "soft/soft_step.h"

#if defined(__GNUC__) || defined(__clang__)
#define SN_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define SN_PREFETCH_WRITE(p) ((void)(p))
#endif

static sn_softness sn_make_soft(float hertz, float zeta, float h) {
  if (hertz == 0.0f) return (sn_softness){0.0f, 1.0f, 0.0f};
  float omega = 2.0f * SN_PI * hertz;
  float a1 = 2.0f * zeta + h * omega;
  float a2 = h * omega * a1;
  float a3 = 1.0f / (1.0f + a2);
  return (sn_softness){omega / a1, a2 * a3, a3};
}

typedef struct sn_body_motion {
  sn_vec2 dv;               ///< velocity change per substep from gravity and forces
  float dw;                 ///< angular velocity change per substep from torque
  float lin_damp, ang_damp; ///< 1 / (1 + h damping)
  float max_speed_sq;
} sn_body_motion;

typedef struct sn_step_context {
  sn_body_state *states;
  uint8_t *post; ///< per solver body: SN_POST_* flags from the write back
  sn_body_motion *motions;
  sn_wide_body *bodies; ///< per solver body: what contact preparation reads
  int32_t body_count;
  float h, inv_h;
  float push_max_velocity;
  float restitution_threshold;
  float max_rotation;
} sn_step_context;

static void sn_integrate_velocities(sn_step_context *ctx, int32_t begin, int32_t end) {
  sn_body_state *states = ctx->states;
  const sn_body_motion *motions = ctx->motions;
  for (int32_t i = begin; i < end; ++i) {
    sn_body_state *s = states + i;
    const sn_body_motion *m = motions + i;
    sn_vec2 v = sn_scale(m->lin_damp, sn_add(s->v, m->dv));
    float w = m->ang_damp * (s->w + m->dw);
    v = sn_clamp_length(v, m->max_speed_sq);
    s->v = v;
    s->w = w;
  }
}

/* Every body's speed limit is the world's (sn_init_bodies). */
static void sn_integrate_positions(sn_step_context *ctx, int32_t begin, int32_t end) {
  if (begin >= end) return;
  sn_wide_integrate_positions(ctx->states, begin, end, ctx->h, ctx->max_rotation, ctx->motions[begin].max_speed_sq);
}

/* Groups [begin, end): each lane's contact prepared straight into its lane. */
static void sn_prepare_groups(const sn_world *w, const sn_step_context *ctx, const sn_wide_set *wide, int32_t begin,
                              int32_t end) {
  float h = ctx->h, substep_rate = ctx->inv_h;
  /* stiffness: the user's, else a quarter of the substep rate (the stable
   * limit of the soft step); static contacts are twice as stiff */
  float hertz = w->contact_hertz > 0.0f ? sn_minf(w->contact_hertz, 0.25f * substep_rate) : 0.25f * substep_rate;
  sn_softness soft = sn_make_soft(hertz, w->contact_damping_ratio, h);
  sn_softness static_soft = sn_make_soft(2.0f * hertz, w->contact_damping_ratio, h);
  sn_wide_prepare_range(wide, w, w->solver_contacts.data, w->solver_keys.data, ctx->states, ctx->bodies, begin, end,
                        ctx->body_count, &soft, &static_soft);
}

/* The accumulated impulses of groups [begin, end) go back to their
 * manifolds (warm starting next step), with the peak impulses and approach
 * speeds hit events read. True if one of them reports hit events. */
static bool sn_store_impulses(sn_world *w, const sn_wide_set *wide, int32_t begin, int32_t end) {
  bool hits = false;
  for (int32_t g = begin; g < end; ++g) {
    /* lanes follow the colouring: the contacts of the group after next on
     * their way (they come from all over the array) */
    if (g + 2 < end) {
      const int32_t *ahead = wide->lane_constraint + SN_WIDE_LANES * (g + 2);
      for (int l = 0; l < SN_WIDE_LANES && ahead[l] >= 0; ++l) {
        const char *p = (const char *)(w->contacts.data + w->solver_contacts.data[ahead[l]]);
        SN_PREFETCH_WRITE(p);
        SN_PREFETCH_WRITE(p + 64);
        SN_PREFETCH_WRITE(p + 128);
      }
    }
    for (int l = 0; l < SN_WIDE_LANES; ++l) {
      int32_t k = wide->lane_constraint[SN_WIDE_LANES * g + l];
      if (k < 0) continue;
      sn_contact *c = w->contacts.data + w->solver_contacts.data[k];
      hits = hits || (c->flags & SN_CONTACT_ENABLE_HIT) != 0;
      sn_wide_result r;
      sn_wide_get_result(wide, g, l, &r);
      sn_manifold *m = &c->manifold;
      for (int32_t j = 0; j < m->point_count; ++j) {
        bool kept = j < r.point_count;
        m->points[j].normal_impulse = kept ? r.normal_impulse[j] : 0.0f;
        m->points[j].tangent_impulse = kept ? r.tangent_impulse[j] : 0.0f;
        m->points[j].max_normal_impulse = kept ? r.max_normal_impulse[j] : 0.0f;
        if (kept) m->points[j].normal_velocity = r.relative_velocity[j];
      }
    }
  }
  return hits;
}

/* Hit events, in contact order: the fastest approaching point that pushed. */
static void sn_report_hits(sn_world *w) {
  for (int32_t k = 0; k < w->solver_contacts.count; ++k) {
    sn_contact *c = w->contacts.data + w->solver_contacts.data[k];
    if (!(c->flags & SN_CONTACT_ENABLE_HIT)) continue;
    float fastest = 0.0f;
    int32_t fastest_j = -1;
    for (int32_t j = 0; j < c->manifold.point_count; ++j) {
      const sn_manifold_point *mp = c->manifold.points + j;
      float approach = -mp->normal_velocity;
      if (mp->max_normal_impulse > 0.0f && approach > fastest) {
        fastest = approach;
        fastest_j = j;
      }
    }
    if (fastest_j >= 0 && fastest > w->hit_event_threshold) {
      sn_contact_hit_event e;
      e.shape_a = sn_make_shape_id(w, c->shape_a);
      e.shape_b = sn_make_shape_id(w, c->shape_b);
      e.point = c->manifold.points[fastest_j].point;
      e.normal = c->manifold.normal;
      e.approach_speed = fastest;
      sn_array_push(&w->mem, w->hit_events, e);
    }
  }
}

/* ------------------------------------------------------------ continuous */

typedef struct sn_toi_query {
  sn_world *w;
  int32_t body_index;
  const sn_shape *shape;
  sn_sweep sweep;
  float fraction;
  bool bullet;
  bool recheck;      ///< second pass: only fast bodies the first pass stopped
  int32_t hit_shape; ///< the fast body's shape and the other shape of the
  int32_t hit_other; ///< earliest hit (SN_NULL_INDEX: none yet)
} sn_toi_query;

/* A body's motion over the step: from the step's start pose to its pose now
 * (a body that was not in the step did not move). */
static sn_sweep sn_step_sweep(const sn_body *b) {
  if (b->solver_index < 0) return (sn_sweep){b->local_center, b->center, b->center, b->xf.q, b->xf.q};
  return (sn_sweep){b->local_center, b->center0, b->center, b->q0, b->xf.q};
}

/* A fast body that continuous collision stopped this step: it moved only
 * to o->toi_fraction of its motion and stayed there (until it is handled,
 * toi_fraction is 1). */
static bool sn_toi_stopped(const sn_body *o) { return o->is_fast && o->solver_index >= 0 && o->toi_fraction < 1.0f; }

/* Time of impact of the fast body b (proxy_b, sweep_b) against shape
 * proxy_a of body o within max_fraction of the step. o moves as it did over
 * the step; one that was stopped moved along its sweep until then and rests
 * after, so the step is split at that time. */
static sn_toi_output sn_toi_against(const sn_body *o, const sn_shape_proxy *proxy_a, const sn_shape_proxy *proxy_b,
                                    const sn_sweep *sweep_b, float max_fraction) {
  sn_toi_input input;
  input.proxy_a = *proxy_a;
  input.proxy_b = *proxy_b;
  input.sweep_a = sn_step_sweep(o);
  input.sweep_b = *sweep_b;
  input.max_fraction = max_fraction;
  const float split = o->toi_fraction;
  if (!sn_toi_stopped(o)) return sn_time_of_impact(&input);
  /* before the split: both sweeps cut at it, the time rescaled */
  sn_transform mid = sn_sweep_get_transform(sweep_b, split);
  sn_vec2 mid_center = sn_transform_point(mid, sweep_b->local_center);
  input.sweep_b = (sn_sweep){sweep_b->local_center, sweep_b->c1, mid_center, sweep_b->q1, mid.q};
  input.max_fraction = split > 0.0f ? sn_minf(1.0f, max_fraction / split) : 0.0f;
  sn_toi_output out = sn_time_of_impact(&input);
  if (out.state == SN_TOI_HIT) {
    out.fraction *= split;
    return out;
  }
  if (out.state != SN_TOI_SEPARATED || !(max_fraction > split)) return out;
  /* after it: o at rest where it stopped */
  const float separation0 = out.separation0;
  input.sweep_a = (sn_sweep){o->local_center, o->center, o->center, o->xf.q, o->xf.q};
  input.sweep_b = (sn_sweep){sweep_b->local_center, mid_center, sweep_b->c2, mid.q, sweep_b->q2};
  input.max_fraction = sn_minf(1.0f, (max_fraction - split) / (1.0f - split));
  out = sn_time_of_impact(&input);
  out.fraction = split + out.fraction * (1.0f - split);
  out.separation0 = separation0;
  return out;
}

/* Where body o is at fraction t of the step, as sn_toi_against sees it. */
static sn_transform sn_toi_other_transform(const sn_body *o, float t) {
  const float split = o->toi_fraction;
  const bool stopped = sn_toi_stopped(o);
  if (stopped && t >= split) return o->xf;
  const sn_sweep sweep = sn_step_sweep(o);
  return sn_sweep_get_transform(&sweep, stopped ? t / split : t);
}

static bool sn_toi_query_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_toi_query *q = context;
  sn_world *w = q->w;
  const sn_shape *other = w->shapes.data + shape_index;
  if (other->body == q->body_index) return true;
  if ((q->shape->category_bits & other->mask_bits) == 0 || (other->category_bits & q->shape->mask_bits) == 0)
    return true;
  const sn_body *ob = w->bodies.data + other->body;
  /* Bullets also stop at moving bodies that are not bullets, and fast
   * bodies at every moving body, each swept over the step as it moved. */
  const bool moving = ob->type != SN_BODY_STATIC;
  if (moving && q->bullet && ob->is_bullet) return true;
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
  const sn_shape_proxy proxy_a = sn_make_proxy(&other->geom), proxy_b = sn_make_proxy(&q->shape->geom);
  sn_toi_output out = sn_toi_against(ob, &proxy_a, &proxy_b, &q->sweep, q->fraction);
  /* A fast body that is not a bullet skips moving bodies it was already
   * near when the step began: their contact had points within the
   * speculative distance, and the solver kept the pair apart. The others
   * had none, so nothing stopped a body knocked fast in mid-step (a rock
   * struck by a bullet) from plunging into them. */
  if (moving && !q->bullet && !(out.separation0 >= SN_SPECULATIVE_DISTANCE)) return true;
  if (out.state == SN_TOI_HIT && out.fraction > 0.0f && out.fraction < q->fraction) {
    q->fraction = out.fraction;
    q->hit_shape = (int32_t)(q->shape - w->shapes.data);
    q->hit_other = shape_index;
  }
  return true;
}

/* A fast body stopped at its time of impact against a moving body keeps
 * no approach along the contact normal: the two take an inelastic impulse
 * (linear momentum kept; a kinematic body counts as infinitely heavy).
 * Without it the body kept its speed and was stopped again every step a
 * little behind a body moving ahead of it, with nothing from behind
 * stopped at it. */
static void sn_toi_inelastic(sn_world *w, sn_body *b, const sn_toi_query *q) {
  const sn_shape *sa = w->shapes.data + q->hit_shape, *so = w->shapes.data + q->hit_other;
  sn_body *o = w->bodies.data + so->body;
  sn_distance_input in;
  in.proxy_a = sn_make_proxy(&so->geom);
  in.proxy_b = sn_make_proxy(&sa->geom);
  in.transform_a = sn_toi_other_transform(o, q->fraction);
  in.transform_b = b->xf;
  in.use_radii = false;
  sn_distance_output d = sn_shape_distance(&in, NULL);
  const sn_vec2 n = d.normal; /* from the other to the fast body */
  if (!(d.distance > 0.0f)) return;
  float approach = sn_dot(sn_sub(b->v, o->v), n);
  if (!(approach < 0.0f)) return;
  float wb = b->inv_mass, wo = o->type == SN_BODY_DYNAMIC ? o->inv_mass : 0.0f;
  if (!(wb + wo > 0.0f)) return;
  float impulse = -approach / (wb + wo);
  b->v = sn_mul_add(b->v, wb * impulse, n);
  o->v = sn_mul_add(o->v, -wo * impulse, n);
}

static void sn_solve_continuous(sn_world *w, int32_t body_index, bool recheck) {
  sn_body *b = w->bodies.data + body_index;
  sn_toi_query q;
  q.w = w;
  q.body_index = body_index;
  q.sweep = sn_step_sweep(b);
  q.fraction = 1.0f;
  q.bullet = b->is_bullet;
  q.recheck = recheck;
  q.hit_shape = SN_NULL_INDEX;
  q.hit_other = SN_NULL_INDEX;
  sn_transform xf1 = {sn_sub(b->center0, sn_rotate(b->q0, b->local_center)), b->q0};
  for (int32_t s = b->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
    q.shape = w->shapes.data + s;
    sn_aabb box1 = sn_geometry_compute_aabb(&q.shape->geom, xf1);
    sn_aabb box2 = sn_geometry_compute_aabb(&q.shape->geom, b->xf);
    sn_aabb box = sn_aabb_union(box1, box2);
    sn_tree_query(&w->static_tree, box, q.shape->mask_bits, sn_toi_query_fcn, &q);
    sn_tree_query(&w->dynamic_tree, box, q.shape->mask_bits, sn_toi_query_fcn, &q);
  }
  b->toi_fraction = q.fraction;
  if (q.fraction < 1.0f) {
    sn_transform xf = sn_sweep_get_transform(&q.sweep, q.fraction);
    b->xf = xf;
    b->center = sn_transform_point(xf, b->local_center);
    if (w->bodies.data[w->shapes.data[q.hit_other].body].type != SN_BODY_STATIC) sn_toi_inelastic(w, b, &q);
  }
}

/* ----------------------------------------------------------------- step */

/* Plugin constraints of one type, solved as a batch. */
typedef struct sn_body_pose {
  sn_vec2 dp;
  sn_rot dq;
} sn_body_pose;

typedef struct sn_joint_batch {
  const sn_constraint_type *type;
  bool impulse, xpbd; /* runs in the velocity passes / the XPBD stage */
  bool batched;       /* the XPBD stage calls solve_particles (no items) */
  sn_constraint_item *items;
  int32_t count;
  int32_t first;               /* the first item's entry in the owners list */
  sn_particle_batch particles; /* batched: the type's constraints and the particles */
} sn_joint_batch;

/* What plugin callbacks need to blame a constraint (sn_world_def.check_plugins). */
typedef struct sn_plugin_caller {
  sn_world *w;
  const sn_step_context *ctx;
  const sn_soft_context *soft;
  const int32_t *owners; ///< constraint slot of each item
} sn_plugin_caller;

static void sn_call_plugin(const sn_joint_batch *batch, const sn_step_info *info, int32_t callback,
                           sn_constraint_item *items, int32_t count) {
  const sn_constraint_type *t = batch->type;
  switch (callback) {
  case SN_CALLBACK_PREPARE:
    t->prepare(info, items, count);
    break;
  case SN_CALLBACK_WARM_START:
    t->warm_start(info, items, count);
    break;
  case SN_CALLBACK_SOLVE_VELOCITY:
  case SN_CALLBACK_RELAX:
    t->solve_velocity(info, items, count, callback == SN_CALLBACK_SOLVE_VELOCITY ? 1 : 0);
    break;
  case SN_CALLBACK_PROJECT:
    t->project(info, items, count);
    break;
  case SN_CALLBACK_BEGIN_POSITION:
    t->begin_position(info, items, count);
    break;
  default:
    t->solve_position(info, items, count);
    break;
  }
}

static bool sn_state_is_finite(const sn_body_state *s) {
  return sn_vec2_is_finite(s->v) && sn_is_finite(s->w) && sn_vec2_is_finite(s->dp) && sn_is_finite(s->dq.c) &&
         sn_is_finite(s->dq.s);
}

/* a plugin's view of a state (the same layout: the _Static_assert below) */
static bool sn_solver_body_finite(const sn_solver_body *s) {
  return sn_state_is_finite((const sn_body_state *)(const void *)s);
}

/* Bit m: the item's state m is not finite (states past the 64th count as
 * the 64th). */
static uint64_t sn_item_spoiled(const sn_constraint_item *item) {
  uint64_t bits = 0;
  for (int32_t m = 0; m < item->body_count; ++m) {
    if (!sn_solver_body_finite(item->bodies[m]->state)) bits |= 1ull << (m < 63 ? m : 63);
  }
  return bits;
}

/* The item's states that the call made non-finite (not in `before`) take
 * the blame of its constraint and callback (the first culprit of the step
 * keeps it: a state a culprit spoiled spreads through its neighbours). */
static void sn_blame(const sn_plugin_caller *pc, const sn_constraint_item *item, uint64_t before, int32_t owner,
                     int32_t callback) {
  sn_world *w = pc->w;
  for (int32_t m = 0; m < item->body_count; ++m) {
    const sn_solver_body *s = item->bodies[m]->state;
    if (sn_solver_body_finite(s) || (before >> (m < 63 ? m : 63) & 1u)) continue;
    const sn_solver_body *rigid = (const sn_solver_body *)(const void *)pc->ctx->states;
    uint8_t *blamed = NULL;
    int32_t *slot = NULL;
    if (s >= rigid && s < rigid + pc->ctx->body_count) {
      sn_body *b = w->bodies.data + w->awake_bodies.data[s - rigid];
      blamed = &b->blamed_callback, slot = &b->blamed_constraint;
    } else if (pc->soft->active && s >= pc->soft->states && s < pc->soft->states + pc->soft->count) {
      sn_particle *p = w->particles.data + (s - pc->soft->states);
      blamed = &p->blamed_callback, slot = &p->blamed_constraint;
    }
    if (blamed != NULL && *blamed == 0) {
      *blamed = (uint8_t)(callback + 1);
      *slot = owner;
    }
  }
}

/* A plugin callback over a batch's items; with check_plugins one item at a
 * time (the same order, so the same result), each checked after its call. */
static void sn_run_plugin(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
                          int32_t callback) {
  if (!pc->w->check_plugins) {
    sn_call_plugin(batch, info, callback, batch->items, batch->count);
    return;
  }
  for (int32_t i = 0; i < batch->count; ++i) {
    sn_constraint_item *item = batch->items + i;
    uint64_t before = sn_item_spoiled(item);
    sn_call_plugin(batch, info, callback, item, 1);
    if (sn_item_spoiled(item) != before) sn_blame(pc, item, before, pc->owners[batch->first + i], callback);
  }
}

_Static_assert(sizeof(sn_body_state) == sizeof(sn_solver_body) &&
                   offsetof(sn_body_state, dp) == offsetof(sn_solver_body, dp),
               "plugin ABI: sn_solver_body must match the solver's body state");

/* The position stage of a substep (after relax; docs/architecture.md, the step):
 * 1. rigid joint rows project their remaining position error away
 *    (non-linear Gauss-Seidel, position_iterations sweeps) and give the
 *    bodies that motion over h as velocity, as XPBD would (the plugin does
 *    it from the correction: sn_pm_project_point). Without the projection
 *    the soft rows leave a 100-link chain under its own weight 1.2 % open;
 *    with it 0.5 %, and a falling chain loses less energy. Without the
 *    velocity the next substep's soft rows re-open the gap (1.1 %).
 * 2. XPBD: position-type constraints (soft_iterations sweeps, lambda reset
 *    at sweep 0) and particle collisions.
 * 3. Every rigid body's velocity takes its displacement in 2 over h
 *    (Delta x / h, Delta theta / h); particles take v = (p - x) / h, then
 *    the velocity pass (friction, restitution). */
typedef struct sn_position_setup {
  sn_body_pose *pose0;
  int32_t project_count, xpbd_count;
  int32_t position_iterations, soft_iterations;
} sn_position_setup;

/* The position stage as pieces the stage list strings together (see
 * sn_add_position_stages): begin (joint projection, the rigid poses before
 * XPBD), then per sweep the XPBD types in order (a batched type colour by
 * colour, each colour a parallel stage; the others per item on the calling
 * thread) and the particle collisions, then end (velocities from the
 * motion, the velocity pass). The order is the serial one: the same bits. */
static void sn_position_begin(sn_step_context *ctx, const sn_soft_context *soft, const sn_joint_batch *batches,
                              int32_t batch_count, sn_step_info *info, const sn_position_setup *stage,
                              const sn_plugin_caller *pc) {
  if (stage->project_count > 0) {
    info->iterations = stage->position_iterations;
    for (int32_t it = 0; it < stage->position_iterations; ++it) {
      info->iteration = it;
      for (int32_t b = 0; b < batch_count; ++b) {
        if (batches[b].impulse && batches[b].count && batches[b].type->project)
          sn_run_plugin(pc, batches + b, info, SN_CALLBACK_PROJECT);
      }
    }
  }
  if (stage->xpbd_count == 0 && !soft->active) return;
  for (int32_t k = 0; k < ctx->body_count; ++k) {
    stage->pose0[k].dp = ctx->states[k].dp;
    stage->pose0[k].dq = ctx->states[k].dq;
  }
  info->iterations = stage->soft_iterations;
}

/* (particle velocities ran as a parallel stage before: independent data) */
static void sn_position_end(sn_world *w, sn_step_context *ctx, sn_soft_context *soft, const sn_position_setup *stage) {
  const float inv_h = ctx->inv_h;
  for (int32_t k = 0; k < ctx->body_count; ++k) {
    sn_body_state *s = ctx->states + k;
    s->v = sn_mul_add(s->v, inv_h, sn_sub(s->dp, stage->pose0[k].dp));
    s->w += inv_h * sn_relative_angle(stage->pose0[k].dq, s->dq);
  }
  sn_soft_velocity_pass(w, soft);
}

static bool sn_constraint_active(const sn_world *w, const sn_constraint *k) {
  if (k->particle_count > 0) return true; /* particles never sleep */
  for (uint32_t i = 0; i < k->type->body_count; ++i) {
    if (w->bodies.data[k->bodies[i]].solver_index >= 0) return true;
  }
  return false;
}

/* A joint between an awake and a sleeping body wakes the sleeper. Only the
 * constraints solved per item can have bodies (batched types are particle
 * only): the cached list (sn_constraint_lists_update). */
static void sn_wake_joined(sn_world *w) {
  const sn_constraint_lists *l = &w->constraint_lists;
  for (int32_t n = 0; n < l->items.count; ++n) {
    const sn_constraint *k = w->constraints.data + l->items.data[n];
    if (!k->in_use || k->type->body_count < 2) continue;
    const sn_body *a = w->bodies.data + k->bodies[0], *b = w->bodies.data + k->bodies[1];
    bool a_awake = a->type != SN_BODY_STATIC && a->is_awake, b_awake = b->type != SN_BODY_STATIC && b->is_awake;
    if (a_awake && !b_awake && b->type != SN_BODY_STATIC) sn_body_wake(w, k->bodies[1]);
    if (b_awake && !a_awake && a->type != SN_BODY_STATIC) sn_body_wake(w, k->bodies[0]);
  }
  /* a constraint joining particles keeps its rigid bodies awake */
  for (int32_t n = 0; n < l->items.count; ++n) {
    const sn_constraint *k = w->constraints.data + l->items.data[n];
    if (!k->in_use || k->particle_count == 0) continue;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const sn_body *b = w->bodies.data + k->bodies[m];
      if (b->type != SN_BODY_STATIC && !b->is_awake) sn_body_wake(w, k->bodies[m]);
    }
  }
}

/* ---------------------------------------------------- batched XPBD types */

static bool sn_xpbd_batched(const sn_world *w, const sn_constraint_type *t) {
  return !w->xpbd_batch_off && t->solve_particles != NULL;
}

static bool sn_in_block(const void *p, const char *base, size_t bytes) {
  return base != NULL && (const char *)p >= base && (const char *)p < base + bytes;
}

/* Moves the batched constraints' params and instances into new blocks in the
 * schedule's order (ranges and order already built), and those of
 * constraints no longer batched back into their own blocks. Frees the old
 * blocks; on failure nothing moved. */
static bool sn_xpbd_move_resident(sn_world *w, size_t params_bytes, size_t instance_bytes) {
  sn_xpbd_schedule *x = &w->xpbd;
  /* no batched type: no blocks (a rebuild for item types alone allocates
   * nothing here, as sn_xpbd_schedule_reserve counts on) */
  const bool none = x->ranges.count == 0;
  size_t pb = none ? 0 : params_bytes + 64, ib = none ? 0 : instance_bytes + 64;
  void *pblock = none ? NULL : sn_mem_alloc(&w->mem, pb), *iblock = none ? NULL : sn_mem_alloc(&w->mem, ib);
  if (!none && (pblock == NULL || iblock == NULL)) {
    sn_mem_free(&w->mem, pblock, pb);
    sn_mem_free(&w->mem, iblock, ib);
    return false;
  }
  char *pbase = none ? NULL : (char *)(((uintptr_t)pblock + 63u) & ~(uintptr_t)63u);
  char *ibase = none ? NULL : (char *)(((uintptr_t)iblock + 63u) & ~(uintptr_t)63u);
  for (int32_t r = 0; r < x->ranges.count; ++r) {
    const sn_xpbd_range *range = x->ranges.data + r;
    const sn_constraint_type *t = range->type;
    for (int32_t j = 0; j < range->count; ++j) {
      sn_constraint *k = w->constraints.data + x->order.data[range->first + j];
      char *p = pbase + range->params_offset + (size_t)j * range->params_stride;
      char *q = ibase + range->instance_offset + (size_t)j * range->instance_stride;
      memcpy(p, k->params, t->params_size);
      memcpy(q, k->instance, t->instance_size);
      k->params = p;
      k->instance = q;
    }
  }
  /* the rest still in the old blocks go home */
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    const sn_constraint_type *t = k->type;
    if (sn_in_block(k->params, x->params_base, x->params_bytes)) {
      void *home = (void *)(((uintptr_t)k->params_block + (t->params_align - 1)) & ~(uintptr_t)(t->params_align - 1));
      memcpy(home, k->params, t->params_size);
      k->params = home;
    }
    if (sn_in_block(k->instance, x->instance_base, x->instance_bytes)) {
      void *home =
          (void *)(((uintptr_t)k->instance_block + (t->instance_align - 1)) & ~(uintptr_t)(t->instance_align - 1));
      memcpy(home, k->instance, t->instance_size);
      k->instance = home;
    }
  }
  sn_mem_free(&w->mem, x->params_block, x->params_bytes);
  sn_mem_free(&w->mem, x->instance_block, x->instance_bytes);
  x->params_block = pblock;
  x->instance_block = iblock;
  x->params_bytes = pb;
  x->instance_bytes = ib;
  x->params_base = pbase;
  x->instance_base = ibase;
  return true;
}

/* Whether each batched type's constraints all have the same params (byte
 * for byte, in the resident block the batch reads): such a batch gets
 * params_stride 0 and one record, so the kernels read one cache line
 * instead of streaming a copy per constraint every sweep. Found again after
 * a rebuild or a parameter change (sn_constraint_set_param). */
static void sn_xpbd_find_same_params(sn_world *w) {
  sn_xpbd_schedule *x = &w->xpbd;
  if (x->same_found && x->param_edits == w->xpbd_param_edits) return;
  for (int32_t r = 0; r < x->ranges.count; ++r) {
    sn_xpbd_range *range = x->ranges.data + r;
    const char *base = x->params_base + range->params_offset;
    const size_t size = range->type->params_size;
    bool same = true;
    for (int32_t j = 1; j < range->count && same; ++j)
      same = memcmp(base + (size_t)j * range->params_stride, base, size) == 0;
    range->same_params = same;
  }
  x->param_edits = w->xpbd_param_edits;
  x->same_found = true;
}

/* The colours of the batched XPBD types, rebuilt (before the substeps) when
 * a constraint came or went or a particle's inverse mass turned zero or
 * nonzero. Per type, in slot (creation) order, a constraint's level is one
 * past the highest level of the earlier constraints sharing a movable
 * particle with it; a colour is a level. Constraints of one level share no
 * movable particle, and any two that do keep their creation order, so a
 * sweep level by level is the creation-order Gauss-Seidel sweep exactly
 * (updates of disjoint particles commute; fixed particles never move). A
 * cloth 128 gets 383 levels of about 170 links, its tethers 2. */
/* Particle slots the step's particle context covers (sn_soft_begin). */
static int32_t sn_xpbd_particle_slots(const sn_world *w) { return w->particle_count > 0 ? w->particles.count : 0; }

/* Whether a particle slot is fixed for the step: zero inverse mass in its
 * step view (sn_soft_begin: free slots and frozen particles have none). */
static bool sn_xpbd_fixed(const sn_particle *p) { return !(p->in_use && !p->frozen) || p->inv_mass == 0.0f; }

static bool sn_xpbd_schedule_update(sn_world *w) {
  sn_xpbd_schedule *x = &w->xpbd;
  const int32_t np = sn_xpbd_particle_slots(w), nk = w->constraints.count;
  bool stale =
      !x->valid || x->topology != w->xpbd_topology || x->particle_slots != np || x->batch_off != w->xpbd_batch_off;
  if (!sn_array_reserve(&w->mem, x->fixed, np)) return false;
  for (int32_t i = 0; i < np; ++i) {
    uint8_t f = sn_xpbd_fixed(w->particles.data + i) ? 1u : 0u;
    stale = stale || x->fixed.data[i] != f;
    x->fixed.data[i] = f;
  }
  if (!stale) {
    sn_xpbd_find_same_params(w);
    return true;
  }
  x->valid = false;
  x->same_found = false;
  x->ranges.count = x->order.count = x->indices.count = x->index_start.count = x->level_start.count = 0;
  /* the types, in order of first appearance, and their sizes */
  int32_t total = 0, total_indices = 0;
  for (int32_t i = 0; i < nk; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || !sn_xpbd_batched(w, k->type)) continue;
    int32_t r = 0;
    while (r < x->ranges.count && x->ranges.data[r].type != k->type) r++;
    if (r == x->ranges.count) {
      sn_xpbd_range range;
      memset(&range, 0, sizeof(range));
      range.type = k->type;
      if (!sn_array_push(&w->mem, x->ranges, range)) return false;
    }
    x->ranges.data[r].count++;
    total++;
    total_indices += k->particle_count;
  }
  if (!sn_array_reserve(&w->mem, x->order, total) || !sn_array_reserve(&w->mem, x->indices, total_indices) ||
      !sn_array_reserve(&w->mem, x->index_start, x->ranges.count) || !sn_array_reserve(&w->mem, x->last, np) ||
      !sn_array_reserve(&w->mem, x->level, nk))
    return false;
  size_t params_bytes = 0, instance_bytes = 0;
  for (int32_t r = 0, first = 0; r < x->ranges.count; ++r) {
    sn_xpbd_range *range = x->ranges.data + r;
    const sn_constraint_type *t = range->type;
    range->first = first;
    first += range->count;
    /* packs: 64-byte aligned per range, a fixed stride per constraint */
    range->params_stride = (t->params_size + t->params_align - 1) & ~(t->params_align - 1);
    range->instance_stride = (t->instance_size + t->instance_align - 1) & ~(t->instance_align - 1);
    range->params_offset = params_bytes;
    range->instance_offset = instance_bytes;
    params_bytes += ((size_t)range->params_stride * (size_t)range->count + 63u) & ~(size_t)63u;
    instance_bytes += ((size_t)range->instance_stride * (size_t)range->count + 63u) & ~(size_t)63u;
    /* levels */
    for (int32_t i = 0; i < np; ++i) x->last.data[i] = 0;
    int32_t levels = 0;
    for (int32_t i = 0; i < nk; ++i) {
      const sn_constraint *k = w->constraints.data + i;
      if (!k->in_use || k->type != range->type) continue;
      int32_t l = 0;
      for (int32_t m = 0; m < k->particle_count; ++m) {
        int32_t p = k->particles[m];
        if (!x->fixed.data[p] && x->last.data[p] > l) l = x->last.data[p];
      }
      for (int32_t m = 0; m < k->particle_count; ++m) {
        if (!x->fixed.data[k->particles[m]]) x->last.data[k->particles[m]] = l + 1;
      }
      x->level.data[i] = l;
      if (l + 1 > levels) levels = l + 1;
    }
    /* level_start: counts, then offsets; then place in level order */
    range->level_first = x->level_start.count;
    range->level_count = levels;
    if (!sn_array_reserve(&w->mem, x->level_start, x->level_start.count + levels + 1)) return false;
    int32_t *start = x->level_start.data + range->level_first;
    for (int32_t l = 0; l <= levels; ++l) start[l] = 0;
    for (int32_t i = 0; i < nk; ++i) {
      const sn_constraint *k = w->constraints.data + i;
      if (k->in_use && k->type == range->type) start[x->level.data[i] + 1]++;
    }
    for (int32_t l = 0; l < levels; ++l) start[l + 1] += start[l];
    x->level_start.count += levels + 1;
    /* start[l] is now where level l begins; use last as the fill cursor */
    for (int32_t i = 0; i < nk; ++i) {
      const sn_constraint *k = w->constraints.data + i;
      if (!k->in_use || k->type != range->type) continue;
      int32_t l = x->level.data[i];
      x->order.data[range->first + start[l]] = i;
      start[l]++;
    }
    /* undo the cursor shift: start[l] now holds start[l + 1] */
    for (int32_t l = levels; l > 0; --l) start[l] = start[l - 1];
    start[0] = 0;
    x->index_start.data[r] = x->indices.count;
    for (int32_t j = 0; j < range->count; ++j) {
      const sn_constraint *k = w->constraints.data + x->order.data[range->first + j];
      for (int32_t m = 0; m < k->particle_count; ++m) x->indices.data[x->indices.count++] = k->particles[m];
    }
  }
  x->order.count = total;
  if (!sn_xpbd_move_resident(w, params_bytes, instance_bytes)) return false;
  x->index_start.count = x->ranges.count;
  x->batch_off = w->xpbd_batch_off;
  x->topology = w->xpbd_topology;
  x->particle_slots = np;
  x->builds++;
  x->valid = true;
  sn_xpbd_find_same_params(w);
  return true;
}

/* A batched type's constraints in colour order: their params and instances
 * are resident in the schedule's blocks (nothing to copy). */
static bool sn_build_particle_batch(sn_world *w, const sn_soft_context *soft, sn_joint_batch *batch) {
  const sn_xpbd_schedule *x = &w->xpbd;
  const sn_constraint_type *t = batch->type;
  int32_t r = 0;
  while (r < x->ranges.count && x->ranges.data[r].type != t) r++;
  if (r == x->ranges.count) return false;
  const sn_xpbd_range *range = x->ranges.data + r;
  const uint32_t ps = range->params_stride, is = range->instance_stride;
  char *pp = x->params_base + range->params_offset;
  char *ip = x->instance_base + range->instance_offset;
  sn_particle_batch *pb = &batch->particles;
  memset(pb, 0, sizeof(*pb));
  pb->size = (uint32_t)sizeof(*pb);
  pb->position = soft->position;
  pb->mass_velocity = soft->mass_velocity;
  pb->particle_count = soft->count;
  pb->count = range->count;
  pb->particles_per = (int32_t)t->particle_count;
  pb->indices = x->indices.data + x->index_start.data[r];
  pb->params = pp;
  pb->instances = ip;
  /* equal params as one record, for a plugin that takes them so */
  pb->params_stride = range->same_params && (t->batch_flags & SN_BATCH_SHARED_PARAMS) ? 0u : ps;
  pb->instance_stride = is;
  pb->colour_count = range->level_count;
  pb->colour_start = x->level_start.data + range->level_first;
  pb->simd = w->xpbd_scalar ? 0 : w->use_avx2 ? 2 : 1;
  batch->batched = true;
  batch->items = NULL;
  batch->count = range->count;
  return true;
}

/* Where sn_build_joint_batches writes its items. */
typedef struct sn_item_cursor {
  sn_constraint_item *items;
  sn_constraint_body *views;
  sn_constraint_body **ptrs;
  int32_t *owners;
  int32_t n, used;
} sn_item_cursor;

/* Appends the active constraints of batch->type among slots[from, count)
 * (slots NULL: the slots from .. count - 1 themselves) as items. */
static bool sn_add_items(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batch,
                         sn_item_cursor *c, const int32_t *slots, int32_t from, int32_t count) {
  for (int32_t e = from; e < count; ++e) {
    const int32_t j = slots ? slots[e] : e;
    sn_constraint *k = w->constraints.data + j;
    if (!k->in_use || k->type != batch->type || !sn_constraint_active(w, k)) continue;
    sn_constraint_item *item = c->items + c->n;
    memset(item, 0, sizeof(*item));
    /* pack params and instance of the step's constraints together, in
     * solve order (the ABI lets the host move them): one type's batch then
     * streams through contiguous memory; instances go back after the step */
    const sn_constraint_type *t = k->type;
    uintptr_t pp = (uintptr_t)sn_arena_alloc(&w->arena, t->params_size + t->params_align);
    uintptr_t ip = (uintptr_t)sn_arena_alloc(&w->arena, t->instance_size + t->instance_align);
    if (pp == 0 || ip == 0) return false;
    pp = (pp + t->params_align - 1) & ~(uintptr_t)(t->params_align - 1);
    ip = (ip + t->instance_align - 1) & ~(uintptr_t)(t->instance_align - 1);
    memcpy((void *)pp, k->params, t->params_size);
    memcpy((void *)ip, k->instance, t->instance_size);
    item->params = (const void *)pp;
    item->instance = (void *)ip;
    c->owners[c->n] = j;
    item->bodies = c->ptrs + c->used;
    item->body_count = (int32_t)k->type->body_count + k->particle_count;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const sn_body *body = w->bodies.data + k->bodies[m];
      sn_constraint_body *v = c->views + 2 * c->n + m;
      int32_t slot = body->solver_index >= 0 ? body->solver_index : ctx->body_count;
      v->state = (sn_solver_body *)(void *)(ctx->states + slot);
      bool moves = body->solver_index >= 0;
      v->inv_mass = moves ? body->inv_mass : 0.0f;
      v->inv_inertia = moves ? body->inv_inertia : 0.0f;
      v->center = body->center;
      v->q = body->xf.q;
      v->local_center = body->local_center;
      v->origin = body->xf.p;
      c->ptrs[c->used++] = v;
    }
    for (int32_t m = 0; m < k->particle_count; ++m) c->ptrs[c->used++] = soft->views + k->particles[m];
    c->n++;
    batch->count++;
  }
  return true;
}

/* Items grouped by type (in order of first appearance), arena memory. Rigid
 * endpoints get a view each; particles share their step view. Batched XPBD
 * types get a particle batch instead of items (and no owners: their
 * instances stay put). Walks the cached lists (sn_constraint_lists_update),
 * not every constraint: the per-item constraints, with the batched types
 * merged in at their first slots (batched constraints are always active), so
 * the types come in the order a scan of every slot finds them. */
static int32_t sn_build_joint_batches(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft,
                                      sn_joint_batch *batches, int32_t nj, int32_t endpoints, int32_t *owners) {
  sn_item_cursor c;
  c.items = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(sn_constraint_item) + 1);
  c.views = sn_arena_alloc(&w->arena, (size_t)nj * 2 * sizeof(sn_constraint_body) + 1);
  c.ptrs = sn_arena_alloc(&w->arena, (size_t)endpoints * sizeof(sn_constraint_body *) + 1);
  c.owners = owners;
  c.n = c.used = 0;
  if (c.items == NULL || c.views == NULL || c.ptrs == NULL) return 0;
  const sn_constraint_lists *l = &w->constraint_lists;
  const bool batching = soft->active && w->xpbd.valid;
  int32_t batch_count = 0, next_batched = 0;
  for (int32_t e = 0; e <= l->items.count; ++e) {
    const int32_t slot = e < l->items.count ? l->items.data[e] : INT32_MAX;
    while (next_batched < l->batched.count && l->batched.data[next_batched].slot < slot) {
      sn_joint_batch *batch = batches + batch_count++;
      batch->type = l->batched.data[next_batched++].type;
      batch->items = c.items + c.n;
      batch->first = c.n;
      batch->count = 0;
      batch->batched = false;
      if (batching) {
        if (!sn_build_particle_batch(w, soft, batch)) return 0;
        c.n += batch->count;
      } else if (!sn_add_items(w, ctx, soft, batch, &c, NULL, 0, w->constraints.count)) {
        return 0;
      }
    }
    if (e == l->items.count) break;
    const sn_constraint *first = w->constraints.data + slot;
    if (!first->in_use || !sn_constraint_active(w, first)) continue;
    bool seen = false;
    for (int32_t b = 0; b < batch_count; ++b) seen = seen || batches[b].type == first->type;
    if (seen) continue;
    sn_joint_batch *batch = batches + batch_count++;
    batch->type = first->type;
    batch->items = c.items + c.n;
    batch->first = c.n;
    batch->count = 0;
    batch->batched = false;
    if (!sn_add_items(w, ctx, soft, batch, &c, l->items.data, e, l->items.count)) return 0;
  }
  return batch_count;
}

/* A state the write back does not take: not finite, or a centre beyond
 * +-SN_MAX_COORDINATE (past it float positions are too coarse for contacts,
 * and speeds up to SN_MAX_SPEED would carry them on to infinity). */
static bool sn_state_contained(const sn_body *b, const sn_body_state *s) {
  return !sn_state_is_finite(s) || !sn_vec2_within_limit(sn_add(b->center0, s->dp));
}

/* Bodies [begin, end) take their solver state; sleep timers and the fast
 * flag for continuous collision. A state that is not finite is contained:
 * the body goes back where the step found it, stopped and frozen (the event
 * is recorded after the stage, in body order). */
/// What a body needs after the parallel write back (sn_step_context.post).
enum { SN_POST_FAST = 1, SN_POST_ESCAPED = 2 };

static bool sn_write_back(sn_world *w, const sn_step_context *ctx, float dt, int32_t begin, int32_t end) {
  bool frozen = false;
  for (int32_t k = begin; k < end; ++k) {
    int32_t bi = w->awake_bodies.data[k];
    sn_body *b = w->bodies.data + bi;
    const sn_body_state *s = ctx->states + k;
    if (sn_state_contained(b, s)) {
      /* containment (a state that is not finite, or a centre beyond
       * +-SN_MAX_COORDINATE): back where the step found it, stopped, frozen */
      b->v = (sn_vec2){0.0f, 0.0f};
      b->w = 0.0f;
      b->center = b->center0;
      b->xf.q = b->q0;
      b->xf.p = sn_sub(b->center, sn_rotate(b->xf.q, b->local_center));
      b->force = (sn_vec2){0.0f, 0.0f};
      b->torque = 0.0f;
      b->frozen = true;
      b->is_fast = false;
      frozen = true;
      /* its shapes go back to where the step found them */
      uint8_t post = 0;
      for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
        bool escaped = sn_shape_compute_aabb(w, si, b->xf);
        w->shapes.data[si].escaped = escaped;
        if (escaped) post |= SN_POST_ESCAPED;
      }
      ctx->post[k] = post;
      continue;
    }
    /* and the velocity the step hands on (relax, joints and XPBD act after
     * the last position integration) */
    b->v = sn_clamp_length(s->v, ctx->motions[k].max_speed_sq);
    b->w = s->w;
    b->center = sn_add(b->center0, s->dp);
    b->xf.q = sn_normalize_rot(sn_mul_rot(s->dq, b->q0));
    b->xf.p = sn_sub(b->center, sn_rotate(b->xf.q, b->local_center));
    b->force = (sn_vec2){0.0f, 0.0f};
    b->torque = 0.0f;
    if (w->enable_sleep) {
      bool slow = b->enable_sleep && sn_length_sq(b->v) < SN_LINEAR_SLEEP_TOLERANCE * SN_LINEAR_SLEEP_TOLERANCE &&
                  b->w * b->w < SN_ANGULAR_SLEEP_TOLERANCE * SN_ANGULAR_SLEEP_TOLERANCE;
      if (slow && b->sleep_time > 0.0f) {
        /* slow but speeding up since the timer started: accelerating, not
         * at rest (a pile settling slows down, so it is not held awake) */
        if (sn_length(b->v) > sn_length(b->sleep_v) + SN_LINEAR_SLEEP_CHANGE ||
            sn_absf(b->w) > sn_absf(b->sleep_w) + SN_ANGULAR_SLEEP_CHANGE)
          b->sleep_time = 0.0f;
      }
      if (slow && b->sleep_time == 0.0f) {
        b->sleep_v = b->v;
        b->sleep_w = b->w;
      }
      b->sleep_time = slow ? b->sleep_time + dt : 0.0f;
    }
    b->is_fast = false;
    b->toi_fraction = 1.0f;
    if (w->enable_continuous && b->type == SN_BODY_DYNAMIC) {
      float limit = b->is_bullet ? 0.25f * b->min_extent : 0.5f * b->min_extent;
      float moved = sn_length(s->dp);
      /* the angle turned is at most pi/2 |sin| while cos > 0: when even
       * that bound (with room for rounding) stays below the limit, the exact
       * test below would say "not fast" too, without an atan2 per body */
      sn_rot q0 = b->q0, q1 = b->xf.q;
      float sin_turn = q0.c * q1.s - q0.s * q1.c, cos_turn = q0.c * q1.c + q0.s * q1.s;
      bool surely_slow =
          cos_turn > 0.0f && (moved + 1.5708f * 1.0001f * sn_absf(sin_turn) * b->max_extent) * 1.0001f < limit;
      if (!surely_slow) {
        float motion = moved + sn_absf(sn_relative_angle(b->q0, b->xf.q)) * b->max_extent;
        b->is_fast = motion > limit;
      }
    }
    /* shapes of a body that continuous collision will not move get their
     * final AABB here; moving proxies in the tree waits for one thread */
    uint8_t post = b->is_fast ? SN_POST_FAST : 0;
    if (!b->is_fast) {
      for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
        bool escaped = sn_shape_compute_aabb(w, si, b->xf);
        w->shapes.data[si].escaped = escaped;
        if (escaped) post |= SN_POST_ESCAPED;
      }
    }
    ctx->post[k] = post;
  }
  return frozen;
}

/* Solver state of bodies [begin, end): velocities, step-start pose, the
 * per-substep velocity change from gravity and forces, damping factors. */
static void sn_init_bodies(sn_world *w, sn_step_context *ctx, float h, int32_t begin, int32_t end) {
  for (int32_t k = begin; k < end; ++k) {
    sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    b->center0 = b->center;
    b->q0 = b->xf.q;
    sn_body_state *s = ctx->states + k;
    s->v = b->v;
    s->w = b->w;
    s->pad = 0.0f;
    ctx->bodies[k] = (sn_wide_body){b->inv_mass, b->inv_inertia, sn_sub(b->center, b->xf.p)};
    s->dp = (sn_vec2){0.0f, 0.0f};
    s->dq = sn_rot_identity();
    sn_body_motion *m = ctx->motions + k;
    if (b->type == SN_BODY_DYNAMIC) {
      m->dv = sn_scale(h, sn_add(sn_scale(b->inv_mass, b->force), sn_scale(b->gravity_scale, w->gravity)));
      m->dw = h * b->inv_inertia * b->torque;
      m->lin_damp = 1.0f / (1.0f + h * b->linear_damping);
      m->ang_damp = 1.0f / (1.0f + h * b->angular_damping);
    } else {
      m->dv = (sn_vec2){0.0f, 0.0f};
      m->dw = 0.0f;
      m->lin_damp = 1.0f;
      m->ang_damp = 1.0f;
    }
    m->max_speed_sq = w->max_linear_speed * w->max_linear_speed;
  }
}

/* ---------------------------------------------------------- stage list */

/* The substep loop as stages (base/tasks.h): parallel stages cut bodies,
 * contacts or one colour's groups into blocks; plugin callbacks and the
 * position stage run on the calling thread. The list is the serial order of
 * the passes, so every worker count gives the same bits. */
enum {
  SN_STAGE_INIT,           /* bodies: solver state and motion */
  SN_STAGE_PREPARE,        /* groups: contacts prepared into their SoA lanes */
  SN_STAGE_INTEGRATE_V,    /* bodies */
  SN_STAGE_SUBSTEP,        /* main: step info, rigid centres for particle contacts (arg = substep) */
  SN_STAGE_PREDICT,        /* particles: prediction (arg = substep) */
  SN_STAGE_WARM,           /* groups of colour arg */
  SN_STAGE_JOINT_WARM,     /* main */
  SN_STAGE_SOLVE,          /* groups of colour arg, with bias */
  SN_STAGE_JOINT_SOLVE,    /* main */
  SN_STAGE_INTEGRATE_P,    /* bodies */
  SN_STAGE_RELAX,          /* groups of colour arg, no bias */
  SN_STAGE_JOINT_RELAX,    /* main */
  SN_STAGE_POS_BEGIN,      /* main: joint projection, rigid poses before XPBD */
  SN_STAGE_POS_SWEEP,      /* main: info->iteration = arg */
  SN_STAGE_POS_PACK,       /* particles: arrays for batched types (arg: first sweep) */
  SN_STAGE_POS_UNPACK,     /* particles: their motion back to the states */
  SN_STAGE_POS_ITEMS,      /* main: per-item XPBD type arg */
  SN_STAGE_POS_START,      /* main: begin_particles of batched type arg (sweep 0) */
  SN_STAGE_POS_COLOUR,     /* constraints of one colour of batched type arg */
  SN_STAGE_POS_COLLIDE,    /* main: particle collisions (arg: first sweep) */
  SN_STAGE_POS_VELOCITIES, /* particles: v = (p - x) / h */
  SN_STAGE_POS_END,        /* main: rigid velocities from the motion, velocity pass */
  SN_STAGE_POST,           /* main: particles, plugin instances, restitution */
  SN_STAGE_STORE,          /* groups: impulses back to the manifolds */
  SN_STAGE_WRITE_BACK      /* bodies */
};

/// Minimum items per block: enough work to pay for claiming a block.
#define SN_BLOCK_BODIES               128
#define SN_BLOCK_CONTACTS             64
#define SN_BLOCK_GROUPS               4
#define SN_BLOCK_PARTICLE_CONSTRAINTS 512
#define SN_BLOCK_PARTICLES            256

typedef struct sn_solver_run {
  sn_world *w;
  sn_step_context *ctx;
  sn_wide_set *wide;
  sn_soft_context *soft;
  sn_joint_batch *batches;
  int32_t batch_count;
  sn_step_info *info;
  const sn_position_setup *position;
  const int32_t *owners; ///< constraint index of each packed item
  const sn_plugin_caller *caller;
  float h, dt;
  atomic_int frozen; ///< a body state was not finite (events after the run)
  atomic_int hits;   ///< a contact reports hit events (after the run)
} sn_solver_run;

/* After the substeps, on the calling thread: particles write back, packed
 * plugin instances go home, restitution. */
static void sn_post_substeps(sn_solver_run *run) {
  sn_world *w = run->w;
  sn_soft_end(w, run->soft);
  /* packed instances go home (batched ones live in the schedule's block) */
  for (int32_t b = 0, n = 0; b < run->batch_count; ++b) {
    if (run->batches[b].batched) {
      n += run->batches[b].count;
      continue;
    }
    for (int32_t i = 0; i < run->batches[b].count; ++i, ++n) {
      sn_constraint *k = w->constraints.data + run->owners[n];
      memcpy(k->instance, run->batches[b].items[i].instance, k->type->instance_size);
    }
  }
  sn_wide_restitution(run->wide, run->ctx->states, run->ctx->restitution_threshold);
}

static void sn_run_joints(const sn_solver_run *run, int32_t kind) {
  for (int32_t b = 0; b < run->batch_count; ++b) {
    const sn_joint_batch *batch = run->batches + b;
    if (!batch->impulse || batch->count == 0) continue;
    if (kind == SN_STAGE_JOINT_WARM) {
      if (batch->type->warm_start) sn_run_plugin(run->caller, batch, run->info, SN_CALLBACK_WARM_START);
    } else {
      sn_run_plugin(run->caller, batch, run->info,
                    kind == SN_STAGE_JOINT_SOLVE ? SN_CALLBACK_SOLVE_VELOCITY : SN_CALLBACK_RELAX);
    }
  }
}

static void sn_solver_stage(void *context, const sn_stage *st, int32_t begin, int32_t end) {
  sn_solver_run *run = context;
  sn_step_context *ctx = run->ctx;
  switch (st->kind) {
  case SN_STAGE_INIT:
    sn_init_bodies(run->w, ctx, run->h, begin, end);
    break;
  case SN_STAGE_PREPARE:
    sn_prepare_groups(run->w, ctx, run->wide, begin, end);
    break;
  case SN_STAGE_INTEGRATE_V:
    sn_integrate_velocities(ctx, begin, end);
    break;
  case SN_STAGE_SUBSTEP:
    run->info->substep = st->arg;
    run->info->iterations = 1;
    run->info->iteration = 0;
    sn_soft_predict_rigid(run->soft);
    break;
  case SN_STAGE_PREDICT:
    sn_soft_predict_range(run->w, run->soft, st->arg, begin, end);
    break;
  case SN_STAGE_POS_VELOCITIES:
    sn_soft_velocities_range(run->w, run->soft, begin, end);
    break;
  case SN_STAGE_WARM:
    sn_wide_warm_range(run->wide, ctx->states, begin, end);
    break;
  case SN_STAGE_SOLVE:
  case SN_STAGE_RELAX:
    sn_wide_solve_range(run->wide, ctx->states, begin, end, ctx->inv_h, ctx->push_max_velocity,
                        st->kind == SN_STAGE_SOLVE);
    break;
  case SN_STAGE_JOINT_WARM:
  case SN_STAGE_JOINT_SOLVE:
  case SN_STAGE_JOINT_RELAX:
    sn_run_joints(run, st->kind);
    break;
  case SN_STAGE_INTEGRATE_P:
    sn_integrate_positions(ctx, begin, end);
    break;
  case SN_STAGE_POS_BEGIN:
    sn_position_begin(ctx, run->soft, run->batches, run->batch_count, run->info, run->position, run->caller);
    break;
  case SN_STAGE_POS_SWEEP:
    run->info->iteration = st->arg;
    break;
  case SN_STAGE_POS_PACK:
    sn_soft_pack_range(run->soft, st->arg != 0, begin, end);
    break;
  case SN_STAGE_POS_UNPACK:
    sn_soft_unpack_range(run->soft, begin, end);
    break;
  case SN_STAGE_POS_ITEMS: {
    const sn_joint_batch *batch = run->batches + st->arg;
    if (run->info->iteration == 0 && batch->type->begin_position)
      sn_run_plugin(run->caller, batch, run->info, SN_CALLBACK_BEGIN_POSITION);
    sn_run_plugin(run->caller, batch, run->info, SN_CALLBACK_SOLVE_POSITION);
    break;
  }
  case SN_STAGE_POS_START: {
    const sn_joint_batch *batch = run->batches + st->arg;
    batch->type->begin_particles(run->info, &batch->particles, 0, batch->particles.count);
    break;
  }
  case SN_STAGE_POS_COLOUR: {
    const sn_joint_batch *batch = run->batches + st->arg;
    batch->type->solve_particles(run->info, &batch->particles, begin, end);
    break;
  }
  case SN_STAGE_POS_COLLIDE:
    sn_soft_collide(run->w, run->soft, st->arg != 0);
    break;
  case SN_STAGE_POS_END:
    sn_position_end(run->w, ctx, run->soft, run->position);
    break;
  case SN_STAGE_POST:
    sn_post_substeps(run);
    break;
  case SN_STAGE_STORE:
    if (sn_store_impulses(run->w, run->wide, begin, end)) atomic_store_explicit(&run->hits, 1, memory_order_relaxed);
    break;
  default: /* SN_STAGE_WRITE_BACK */
    if (sn_write_back(run->w, ctx, run->dt, begin, end)) atomic_store_explicit(&run->frozen, 1, memory_order_relaxed);
    break;
  }
}

/* One pass over every colour's groups (the overflow colour as one block). */
static void sn_add_color_stages(sn_stage_runner *r, const sn_wide_set *wide, int32_t kind) {
  for (int32_t c = 0; c < SN_WIDE_COLORS; ++c) {
    int32_t first = wide->color_first[c], count = wide->color_first[c + 1] - first;
    int32_t min_block = c == SN_WIDE_OVERFLOW ? count : SN_BLOCK_GROUPS;
    sn_stage_add(r, kind, c, first, count, min_block, 1);
  }
}

/* The position stage of one substep (the serial order of the old loop). */
static void sn_add_position_stages(sn_stage_runner *r, const sn_joint_batch *batches, int32_t batch_count,
                                   const sn_position_setup *stage, const sn_soft_context *soft, int32_t substep) {
  const bool soft_active = soft->active;
  const int32_t np = soft->active ? soft->count : 0;
  sn_stage_add_main(r, SN_STAGE_POS_BEGIN, substep);
  if (stage->xpbd_count == 0 && !soft_active) return;
  for (int32_t it = 0; it < stage->soft_iterations; ++it) {
    sn_stage_add_main(r, SN_STAGE_POS_SWEEP, it);
    bool packed = false, items_ran = false;
    for (int32_t b = 0; b < batch_count; ++b) {
      const sn_joint_batch *batch = batches + b;
      if (!batch->xpbd || batch->count == 0) continue;
      if (batch->batched) {
        /* (the first pack of the first sweep may be the prediction's) */
        if (!packed && !(it == 0 && soft->prepack && !items_ran))
          sn_stage_add(r, SN_STAGE_POS_PACK, it == 0, 0, np, SN_BLOCK_PARTICLES, 1);
        packed = true;
        if (it == 0 && batch->type->begin_particles) sn_stage_add_main(r, SN_STAGE_POS_START, b);
        const sn_particle_batch *pb = &batch->particles;
        for (int32_t c = 0; c < pb->colour_count; ++c) {
          int32_t first = pb->colour_start[c], count = pb->colour_start[c + 1] - first;
          sn_stage_add(r, SN_STAGE_POS_COLOUR, b, first, count, SN_BLOCK_PARTICLE_CONSTRAINTS, 8);
        }
        continue;
      }
      if (packed) sn_stage_add(r, SN_STAGE_POS_UNPACK, 0, 0, np, SN_BLOCK_PARTICLES, 1);
      packed = false;
      items_ran = true;
      sn_stage_add_main(r, SN_STAGE_POS_ITEMS, b);
    }
    /* (the last copy back may be the velocities') */
    if (packed && !(it == stage->soft_iterations - 1 && soft->unpack_late))
      sn_stage_add(r, SN_STAGE_POS_UNPACK, 0, 0, np, SN_BLOCK_PARTICLES, 1);
    sn_stage_add_main(r, SN_STAGE_POS_COLLIDE, it == 0);
  }
  sn_stage_add(r, SN_STAGE_POS_VELOCITIES, substep, 0, np, SN_BLOCK_PARTICLES, 1);
  sn_stage_add_main(r, SN_STAGE_POS_END, substep);
}

/* Stages of the position stage of one substep: an upper bound. */
static int32_t sn_position_stage_capacity(const sn_joint_batch *batches, int32_t batch_count, int32_t sweeps) {
  int32_t per_sweep = 3;
  for (int32_t b = 0; b < batch_count; ++b) {
    per_sweep += 2;
    if (batches[b].batched) per_sweep += batches[b].particles.colour_count;
  }
  return 3 + sweeps * per_sweep + batch_count; /* + the batched types' starts */
}

/// Stages of the substep loop: an upper bound for the arena.
static int32_t sn_stage_capacity(int32_t substeps) { return 4 + substeps * (7 + 3 * SN_WIDE_COLORS); }

/* ------------------------------------------------- solver contact list */

/* The touching contacts with an awake body, in contact order, found in
 * parallel: each block of contacts counts its own, one prefix sum gives each
 * block its first slot, and the blocks write their indices there. */
enum { SN_LIST_COUNT, SN_LIST_PREFIX, SN_LIST_FILL };

typedef struct sn_list_run {
  sn_world *w;
  int32_t *block_counts; ///< matches per block, then (after the prefix) first slot
  int32_t block_size, block_count;
} sn_list_run;

static bool sn_solver_contact(const sn_world *w, int32_t ci) {
  const sn_contact *c = w->contacts.data + ci;
  if (!c->in_use || !(c->flags & SN_CONTACT_TOUCHING)) return false;
  const int32_t *index = w->body_solver_index.data;
  return index[c->edges[0].body] >= 0 || index[c->edges[1].body] >= 0;
}

/* The colouring key of solver contact ci (dummy: the static slot). Only
 * awake bodies the contact can change are dynamic for it. */
static sn_wide_key sn_solver_key(const sn_world *w, int32_t ci, int32_t dummy) {
  const sn_contact *c = w->contacts.data + ci;
  const int32_t *index = w->body_solver_index.data;
  int32_t ia = index[c->edges[0].body], ib = index[c->edges[1].body];
  sn_wide_key k = {ia >= 0 ? ia : dummy, ib >= 0 ? ib : dummy, 0u};
  if (ia >= 0) {
    const sn_body *ba = w->bodies.data + c->edges[0].body;
    if (ba->inv_mass > 0.0f || ba->inv_inertia > 0.0f) k.dynamic |= 1u;
  }
  if (ib >= 0) {
    const sn_body *bb = w->bodies.data + c->edges[1].body;
    if (bb->inv_mass > 0.0f || bb->inv_inertia > 0.0f) k.dynamic |= 2u;
  }
  return k;
}

static void sn_list_stage(void *context, const sn_stage *st, int32_t begin, int32_t end) {
  sn_list_run *run = context;
  sn_world *w = run->w;
  int32_t block = (begin - st->first) / (st->block_size > 0 ? st->block_size : 1);
  if (st->kind == SN_LIST_COUNT) {
    int32_t n = 0;
    for (int32_t ci = begin; ci < end; ++ci) n += sn_solver_contact(w, ci) ? 1 : 0;
    run->block_counts[block] = n;
  } else if (st->kind == SN_LIST_PREFIX) {
    int32_t total = 0;
    for (int32_t b = 0; b < run->block_count; ++b) {
      int32_t n = run->block_counts[b];
      run->block_counts[b] = total;
      total += n;
    }
    w->solver_contacts.count = total;
  } else {
    int32_t at = run->block_counts[block], dummy = w->awake_bodies.count;
    for (int32_t ci = begin; ci < end; ++ci) {
      if (!sn_solver_contact(w, ci)) continue;
      w->solver_keys.data[at] = sn_solver_key(w, ci, dummy);
      w->solver_contacts.data[at++] = ci;
    }
  }
}

static bool sn_list_solver_contacts(sn_world *w) {
  int32_t count = w->contacts.count;
  w->solver_contacts.count = 0;
  if (!sn_array_reserve(&w->mem, w->solver_contacts, count) || !sn_array_reserve(&w->mem, w->solver_keys, count) ||
      !sn_array_reserve(&w->mem, w->stages, 3))
    return false;
  sn_list_run run = {w, NULL, 0, 0};
  sn_stage_runner r;
  int32_t workers = count >= w->parallel_min_items ? w->worker_count : 1;
  sn_stage_runner_init_on(&r, w->stages.data, 3, workers, sn_list_stage, &run);
  sn_stage_add(&r, SN_LIST_COUNT, 0, 0, count, SN_BLOCK_CONTACTS * 4, 1);
  if (r.count == 0) return true; /* no contacts */
  run.block_size = r.stages[0].block_size;
  run.block_count = r.stages[0].block_count;
  if (!sn_array_reserve(&w->mem, w->list_counts, run.block_count)) return false;
  run.block_counts = w->list_counts.data;
  sn_stage_add_main(&r, SN_LIST_PREFIX, 0);
  sn_stage_add(&r, SN_LIST_FILL, 0, 0, count, SN_BLOCK_CONTACTS * 4, 1);
  sn_stage_run(w, &r);
  return true;
}

/* A reservation of the solve, made by sn_solve_reserve: true (nothing
 * allocated). False only for a bound that was wrong: asserted. */
static inline bool sn_reserved(bool ok) {
  assert(ok && "a bound of sn_solve_reserve is too small");
  return ok;
}

/* Arena bytes of a solve with nb solver bodies, groups contact groups and
 * nj plugin constraints with their endpoints and packed bytes (each term
 * grows with each count, so bounds give a bound). */
static size_t sn_solve_bytes(const sn_world *w, int32_t nb, int32_t groups, int32_t nj, int32_t endpoints,
                             size_t packed) {
  return (size_t)(nb + 1) * sizeof(sn_body_state) + (size_t)nb * (sizeof(sn_body_motion) + sizeof(sn_wide_body)) +
         4 * 16 + sn_wide_bytes(groups) +
         (size_t)nj * (sizeof(sn_constraint_item) + 2 * sizeof(sn_constraint_body) + sizeof(sn_joint_batch)) +
         (size_t)endpoints * sizeof(sn_constraint_body *) + (size_t)nb * sizeof(sn_body_pose) + sn_soft_bytes(w) +
         packed + (size_t)nj * sizeof(int32_t) + 8 * 16 + (size_t)nb + sn_stage_runner_bytes(2);
}

/* The XPBD schedule as the solve will find it: built here when a batched
 * type is there (the solve then has plugin constraints and finds it
 * current); otherwise a rebuild for the item types may still come, and
 * these arrays are all it takes (sn_xpbd_move_resident allocates nothing
 * without ranges). */
static bool sn_xpbd_schedule_reserve(sn_world *w) {
  if (w->constraint_lists.batched_count > 0) return sn_xpbd_schedule_update(w);
  const int32_t np = sn_xpbd_particle_slots(w);
  return sn_array_reserve(&w->mem, w->xpbd.fixed, np) && sn_array_reserve(&w->mem, w->xpbd.last, np) &&
         sn_array_reserve(&w->mem, w->xpbd.level, w->constraints.count);
}

/* Bounds, from the world before the narrowphase, on what the rest of the
 * step uses: every contact in use after the new pairs' (live) may touch,
 * every body may be awake, every listed constraint active; a contact colour
 * holds its contacts eight to a group but the overflow one each, and at
 * most w->contact_excess contacts overflow (SN_COLOR_FREE_CONTACTS). */
bool sn_solve_reserve(sn_world *w, float dt) {
  if (!sn_constraint_lists_update(w)) return false;
  if (!sn_soft_find_candidates(w, dt)) return false;
  if (!sn_xpbd_schedule_reserve(w)) return false;
  if (!sn_reserve_new_contacts(w)) return false;
  const sn_constraint_lists *l = &w->constraint_lists;
  const int32_t fresh = w->new_pairs.count / 2, unused = w->contacts.count - w->contact_count;
  const int32_t slots = w->contacts.count + (fresh > unused ? fresh - unused : 0);
  const int32_t live = w->contact_count + fresh;
  const int32_t nb = w->bodies.count;
  /* the new contacts' share: their events, and w->contact_excess as linking
   * them will leave it (each body's count goes up by one a pair, for the
   * count, then back) */
  int32_t fresh_events = 0, fresh_hits = 0, excess = w->contact_excess;
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t k = 0; k < w->new_pairs.count; k += 2) {
      const sn_shape *a = w->shapes.data + w->new_pairs.data[k], *b = w->shapes.data + w->new_pairs.data[k + 1];
      if (pass == 0) {
        fresh_events += a->enable_contact_events || b->enable_contact_events;
        fresh_hits += a->enable_hit_events || b->enable_hit_events;
      }
      sn_body *ends[2] = {w->bodies.data + a->body, w->bodies.data + b->body};
      for (int e = 0; e < 2; ++e) {
        if (ends[e]->type == SN_BODY_STATIC) continue;
        if (pass == 1) {
          ends[e]->contact_count -= 1;
          continue;
        }
        ends[e]->contact_count += 1;
        if (ends[e]->contact_count > SN_COLOR_FREE_CONTACTS) excess++;
      }
    }
  }
  const int32_t overflow = excess < live ? excess : live;
  const int32_t groups = sn_mini(live, overflow + live / SN_WIDE_LANES + SN_WIDE_COLORS);
  const int32_t nj = l->batched_count + l->items.count;
  const int32_t endpoints = l->batched_endpoints + l->items_endpoints;
  const size_t packed = l->batched_packed + l->items_packed;
  /* stages: the substep loop, with the position stage (sn_position_stage_capacity) */
  int32_t types = l->batched.count + l->item_types.count, colours = 0;
  for (int32_t r = 0; w->xpbd.valid && r < w->xpbd.ranges.count; ++r) colours += w->xpbd.ranges.data[r].level_count;
  const int64_t position = 3 + (int64_t)w->soft_iterations * (3 + 2 * (int64_t)types + colours) + types;
  const int64_t stages = sn_stage_capacity(w->substeps) + (int64_t)w->substeps * position;
  /* (counts past an int32 are memory no allocator has: refused as such) */
  const int64_t frozen = (int64_t)nb + w->particles.count, lanes = (int64_t)SN_WIDE_LANES * groups;
  if (stages > INT32_MAX || frozen > INT32_MAX || lanes > INT32_MAX) return false;
  /* events: in the narrowphase a contact with events that does not touch
   * may begin, one that touches may end (or go); the end events held since
   * the last step lead */
  bool ok =
      sn_array_reserve(&w->mem, w->contact_status, slots) &&
      sn_array_reserve(&w->mem, w->begin_events, w->event_contacts - w->touching_event_contacts + fresh_events) &&
      sn_array_reserve(&w->mem, w->end_events, w->pending_end_events.count + w->touching_event_contacts) &&
      sn_array_reserve(&w->mem, w->hit_events, w->hit_contacts + fresh_hits) &&
      sn_array_reserve(&w->mem, w->frozen_events, (int32_t)frozen) &&
      sn_array_reserve(&w->mem, w->broken_events, l->breakable.count) &&
      sn_array_reserve(&w->mem, w->awake_bodies, nb) && sn_array_reserve(&w->mem, w->body_solver_index, nb) &&
      sn_array_reserve(&w->mem, w->solver_contacts, slots) && sn_array_reserve(&w->mem, w->solver_keys, slots) &&
      sn_array_reserve(&w->mem, w->list_counts, slots / (SN_BLOCK_CONTACTS * 4) + 1) &&
      sn_array_reserve(&w->mem, w->contact_colors, live) && sn_array_reserve(&w->mem, w->body_color_masks, nb + 1) &&
      sn_array_reserve(&w->mem, w->wide_cache_contacts, live) && sn_array_reserve(&w->mem, w->wide_cache_keys, live) &&
      sn_array_reserve(&w->mem, w->wide_cache_lanes, (int32_t)lanes) &&
      sn_array_reserve(&w->mem, w->move_buffer, w->shapes.count) &&
      sn_array_reserve(&w->mem, w->stages, sn_maxi(3, (int32_t)stages));
  if (!ok) return false;
  /* the arena: the narrowphase's runner, the solve, breaking, the islands
   * (sn_soft_bytes reads the awake list's capacity, reserved above) */
  size_t bytes = sn_solve_bytes(w, nb, groups, nj, endpoints, packed);
  size_t islands = (size_t)nb * (2 * sizeof(int32_t) + sizeof(float)) + 64;
  if (islands > bytes) bytes = islands;
  if (sn_reaction_bytes(l->breakable_endpoints) > bytes) bytes = sn_reaction_bytes(l->breakable_endpoints);
  if (sn_stage_runner_bytes(1) > bytes) bytes = sn_stage_runner_bytes(1);
  return sn_arena_reserve(&w->arena, &w->mem, bytes);
}

void sn_solve(sn_world *w, float dt) {
  double t_setup = w->profile_clock; /* the world's clock read just before */
  /* every reservation below was made by sn_solve_reserve: none allocates
   * (and none fails: the early returns are for a broken bound, asserted) */
  if (w->constraint_count > 0) sn_wake_joined(w);
  sn_soft_wake_candidates(w);
  /* gather awake bodies; static bodies share a dummy slot */
  w->awake_bodies.count = 0;
  if (!sn_reserved(sn_array_reserve(&w->mem, w->awake_bodies, w->bodies.count) &&
                   sn_array_reserve(&w->mem, w->body_solver_index, w->bodies.count)))
    return;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    sn_body *b = w->bodies.data + i;
    b->solver_index = SN_NULL_INDEX;
    w->body_solver_index.data[i] = SN_NULL_INDEX;
    if (!b->in_use || b->type == SN_BODY_STATIC || !b->is_awake || b->frozen) continue;
    b->solver_index = w->awake_bodies.count;
    w->body_solver_index.data[i] = b->solver_index;
    w->awake_bodies.data[w->awake_bodies.count++] = i;
  }
  w->awake_body_count = w->awake_bodies.count;
  /* touching contacts with an awake body, in contact order (deterministic) */
  if (!sn_reserved(sn_list_solver_contacts(w))) return;
  int32_t nb = w->awake_bodies.count, nc = w->solver_contacts.count;
  /* active plugin constraints, their endpoints and packed bytes: the
   * batched ones counted when the constraint set last changed (a cloth has
   * 10^5 of them), the rest here */
  const sn_constraint_lists *lists = &w->constraint_lists;
  int32_t nj = lists->batched_count, endpoints = lists->batched_endpoints;
  size_t packed = lists->batched_packed; /* batched constraints are always active */
  for (int32_t n = 0; n < lists->items.count; ++n) {
    const sn_constraint *k = w->constraints.data + lists->items.data[n];
    if (!k->in_use || !sn_constraint_active(w, k)) continue;
    nj++;
    endpoints += (int32_t)k->type->body_count + k->particle_count;
    packed += k->type->params_size + k->type->params_align + k->type->instance_size + k->type->instance_align + 32;
  }
  /* all step memory up front: nothing is allocated inside the substeps */
  if (!sn_reserved(sn_array_reserve(&w->mem, w->contact_colors, nc) &&
                   sn_array_reserve(&w->mem, w->body_color_masks, nb + 1)))
    return;
  /* colour the contacts (see contact_wide.c): the group count sizes the
   * step. The colouring is a function of the solver contacts and their keys
   * alone: while those stay the same (a resting pile), last step's is kept. */
  bool reuse =
      w->wide_cache_valid && w->wide_cache_bodies == nb && w->wide_cache_keys.count == nc &&
      (nc == 0 || (memcmp(w->wide_cache_contacts.data, w->solver_contacts.data, (size_t)nc * sizeof(int32_t)) == 0 &&
                   memcmp(w->wide_cache_keys.data, w->solver_keys.data, (size_t)nc * sizeof(sn_wide_key)) == 0));
  int32_t groups = reuse ? w->wide_cache_groups
                         : sn_wide_color(w->solver_keys.data, nc, nb, w->contact_colors.data, w->body_color_masks.data);
  size_t bytes = sn_solve_bytes(w, nb, groups, nj, endpoints, packed);
  if (!sn_reserved(sn_arena_reserve(&w->arena, &w->mem, bytes))) return;
  if (!sn_reserved(sn_array_reserve(&w->mem, w->move_buffer, w->shapes.count))) return;
  sn_step_context ctx;
  ctx.states = sn_arena_alloc(&w->arena, (size_t)(nb + 1) * sizeof(sn_body_state));
  ctx.motions = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_body_motion) + 1);
  ctx.post = sn_arena_alloc(&w->arena, (size_t)nb + 1);
  ctx.bodies = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_wide_body) + 1);
  ctx.body_count = nb;
  int32_t substeps = w->substeps;
  float h = dt / (float)substeps;
  ctx.h = h;
  ctx.inv_h = 1.0f / h;
  ctx.push_max_velocity = w->contact_push_max_velocity;
  ctx.restitution_threshold = w->restitution_threshold;
  ctx.max_rotation = SN_MAX_ROTATION;

  ctx.states[nb] = (sn_body_state){{0.0f, 0.0f}, 0.0f, 0.0f, {0.0f, 0.0f}, {1.0f, 0.0f}};

  sn_solver_run run;
  memset(&run, 0, sizeof(run));
  run.w = w;
  run.ctx = &ctx;
  run.h = h;
  /* the contacts eight to a group, prepared straight into their lanes */
  sn_wide_set wide;
  if (reuse) {
    if (!sn_reserved(sn_wide_alloc_groups(&wide, &w->arena, groups))) return;
    wide.lane_constraint = w->wide_cache_lanes.data;
    memcpy(wide.color_first, w->wide_cache_color_first, sizeof(wide.color_first));
  } else {
    if (!sn_reserved(sn_wide_build(&wide, &w->arena, nc, w->contact_colors.data, groups))) return;
    /* keep it for the next step (no cache when memory is short: no harm) */
    w->wide_cache_valid = sn_array_reserve(&w->mem, w->wide_cache_contacts, nc) &&
                          sn_array_reserve(&w->mem, w->wide_cache_keys, nc) &&
                          sn_array_reserve(&w->mem, w->wide_cache_lanes, SN_WIDE_LANES * groups);
    if (w->wide_cache_valid && nc > 0) { /* (no contacts: arrays may be NULL, nothing to copy) */
      memcpy(w->wide_cache_contacts.data, w->solver_contacts.data, (size_t)nc * sizeof(int32_t));
      memcpy(w->wide_cache_keys.data, w->solver_keys.data, (size_t)nc * sizeof(sn_wide_key));
      memcpy(w->wide_cache_lanes.data, wide.lane_constraint, (size_t)SN_WIDE_LANES * (size_t)groups * sizeof(int32_t));
    }
    if (w->wide_cache_valid) {
      memcpy(w->wide_cache_color_first, wide.color_first, sizeof(wide.color_first));
      w->wide_cache_contacts.count = nc;
      w->wide_cache_keys.count = nc;
      w->wide_cache_groups = groups;
      w->wide_cache_bodies = nb;
    }
  }
  wide.use_avx2 = w->use_avx2;
  run.wide = &wide;
  sn_stage_runner runner;
  int32_t workers = nb + nc + nj + w->particle_count >= w->parallel_min_items ? w->worker_count : 1;
  if (!sn_reserved(sn_stage_runner_init(&runner, &w->arena, 2, workers, sn_solver_stage, &run))) return;
  sn_stage_add(&runner, SN_STAGE_INIT, 0, 0, nb, SN_BLOCK_BODIES, 1);
  sn_stage_add(&runner, SN_STAGE_PREPARE, 0, 0, wide.group_count, SN_BLOCK_GROUPS, 1);
  sn_stage_run(w, &runner);

  /* particles (their views are what particle constraints see) */
  sn_soft_context soft;
  if (!sn_reserved(sn_soft_begin(w, &soft, dt, substeps, ctx.states, nb))) return;
  /* plugin constraints, batched per type */
  sn_joint_batch *batches = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(sn_joint_batch) + 1);
  int32_t *owners = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
  if (nj > 0 && !sn_reserved(sn_xpbd_schedule_update(w))) return;
  int32_t batch_count =
      nj > 0 && batches && owners ? sn_build_joint_batches(w, &ctx, &soft, batches, nj, endpoints, owners) : 0;
  const sn_plugin_caller caller = {w, &ctx, &soft, owners};
  sn_step_info info;
  memset(&info, 0, sizeof(info));
  info.size = (uint32_t)sizeof(info);
  info.dt = dt;
  info.inv_dt = 1.0f / dt;
  info.h = h;
  info.inv_h = ctx.inv_h;
  info.substeps = substeps;
  info.contact_hertz = w->contact_hertz;
  info.contact_damping_ratio = w->contact_damping_ratio;
  info.joint_hertz = 0.25f * ctx.inv_h;
  info.joint_damping_ratio = 2.0f;
  info.iterations = 1;
  sn_position_setup stage = {NULL, 0, 0, w->position_iterations, w->soft_iterations};
  for (int32_t b = 0; b < batch_count; ++b) {
    sn_joint_batch *batch = batches + b;
    batch->impulse = (batch->type->flags & SN_CONSTRAINT_IMPULSE) != 0;
    batch->xpbd = (batch->type->flags & SN_CONSTRAINT_XPBD) != 0;
    if (batch->impulse) sn_run_plugin(&caller, batch, &info, SN_CALLBACK_PREPARE);
    if (batch->impulse && batch->type->project) stage.project_count += batch->count;
    if (batch->xpbd) {
      stage.xpbd_count += batch->count;
    }
  }
  if (w->position_iterations == 0) stage.project_count = 0;
  bool position_stage = stage.project_count > 0 || stage.xpbd_count > 0 || soft.active;
  if (position_stage) {
    stage.pose0 = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_body_pose) + 1);
    if (!sn_reserved(stage.pose0 != NULL)) return;
  }

  /* the substep loop as stages (serial order; see sn_solver_stage) */
  bool joints = false;
  for (int32_t b = 0; b < batch_count; ++b) joints = joints || (batches[b].impulse && batches[b].count > 0);
  /* the first sweep's full pack rides on the prediction when nothing between
   * them moves a particle: no impulse joints (their passes and projection
   * may) and a batched type first among the XPBD types (an item type would
   * run before the pack) */
  for (int32_t b = 0; b < batch_count && soft.active && !joints; ++b) {
    if (!batches[b].xpbd || batches[b].count == 0) continue;
    soft.prepack = batches[b].batched;
    break;
  }
  /* and the last sweep's copy back rides on the velocities when only the
   * particle collisions would run between them and there are none this step
   * (a batched type last among the XPBD types) */
  if (soft.active && w->soft_iterations > 0 && w->particle_shape_pairs.count == 0 && w->particle_pairs.count == 0 &&
      w->edge_pairs.count == 0) {
    for (int32_t b = batch_count - 1; b >= 0; --b) {
      if (!batches[b].xpbd || batches[b].count == 0) continue;
      soft.unpack_late = batches[b].batched;
      break;
    }
  }
  run.soft = &soft;
  run.batches = batches;
  run.batch_count = batch_count;
  run.info = &info;
  run.position = &stage;
  run.owners = owners;
  run.caller = &caller;
  run.dt = dt;
  atomic_init(&run.frozen, 0);
  atomic_init(&run.hits, 0);
  int32_t capacity = sn_stage_capacity(substeps);
  if (position_stage) capacity += substeps * sn_position_stage_capacity(batches, batch_count, w->soft_iterations);
  if (!sn_reserved(sn_array_reserve(&w->mem, w->stages, capacity))) return;
  sn_stage_runner_init_on(&runner, w->stages.data, capacity, workers, sn_solver_stage, &run);
  for (int32_t i = 0; i < substeps; ++i) {
    sn_stage_add(&runner, SN_STAGE_INTEGRATE_V, i, 0, nb, SN_BLOCK_BODIES, 1);
    /* step info and rigid centres for the plugins and particles (a main-only
     * stage, which every worker waits for: only when someone reads it) */
    if (joints || position_stage || soft.active) sn_stage_add_main(&runner, SN_STAGE_SUBSTEP, i);
    if (soft.active) sn_stage_add(&runner, SN_STAGE_PREDICT, i, 0, soft.count, SN_BLOCK_PARTICLES, 1);
    sn_add_color_stages(&runner, &wide, SN_STAGE_WARM);
    if (joints) sn_stage_add_main(&runner, SN_STAGE_JOINT_WARM, i);
    sn_add_color_stages(&runner, &wide, SN_STAGE_SOLVE);
    if (joints) sn_stage_add_main(&runner, SN_STAGE_JOINT_SOLVE, i);
    sn_stage_add(&runner, SN_STAGE_INTEGRATE_P, i, 0, nb, SN_BLOCK_BODIES, 1);
    sn_add_color_stages(&runner, &wide, SN_STAGE_RELAX);
    if (joints) sn_stage_add_main(&runner, SN_STAGE_JOINT_RELAX, i);
    if (position_stage) sn_add_position_stages(&runner, batches, batch_count, &stage, &soft, i);
  }
  sn_stage_add_main(&runner, SN_STAGE_POST, 0);
  sn_stage_add(&runner, SN_STAGE_STORE, 0, 0, wide.group_count, SN_BLOCK_GROUPS, 1);
  sn_stage_add(&runner, SN_STAGE_WRITE_BACK, 0, 0, nb, SN_BLOCK_BODIES, 1);
  double t_loop = sn_clock_ms();
  sn_stage_run(w, &runner);
  double t_finish = sn_clock_ms();
  if (atomic_load_explicit(&run.hits, memory_order_relaxed)) sn_report_hits(w);

  /* (write back ran as the last stage: sn_write_back) */
  for (int32_t k = 0; k < nb && atomic_load_explicit(&run.frozen, memory_order_relaxed); ++k) {
    if (sn_state_contained(w->bodies.data + w->awake_bodies.data[k], ctx.states + k)) {
      sn_frozen_event e = sn_make_frozen_event(w, w->awake_bodies.data[k], -1);
      sn_array_push(&w->mem, w->frozen_events, e);
    }
  }
  /* continuous collision, then proxies move, in body order (the tree, and so
   * the pair order, does not depend on the worker count); the write back
   * flagged the bodies with something to do */
  if (w->enable_continuous) {
    bool stopped = false;
    for (int32_t k = 0; k < nb; ++k) {
      if (!(ctx.post[k] & SN_POST_FAST)) continue;
      sn_solve_continuous(w, w->awake_bodies.data[k], false);
      stopped = stopped || w->bodies.data[w->awake_bodies.data[k]].toi_fraction < 1.0f;
    }
    /* A fast body handled before one that was then stopped was swept
     * against that one's whole motion, and may run into where it stopped
     * (two bodies flung together, the second caught by a third): once more
     * for those, against the stopped bodies only. */
    for (int32_t k = 0; k < nb && stopped; ++k) {
      const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
      if ((ctx.post[k] & SN_POST_FAST) && b->toi_fraction == 1.0f) sn_solve_continuous(w, w->awake_bodies.data[k], true);
    }
  }
  for (int32_t k = 0; k < nb; ++k) {
    if (ctx.post[k] == 0) continue;
    sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
      if (ctx.post[k] & SN_POST_FAST) {
        sn_shape_update_aabb(w, si, b->xf, false);
      } else if (w->shapes.data[si].escaped) {
        w->shapes.data[si].escaped = false;
        sn_shape_move_proxy(w, si);
      }
    }
  }
  double t_end = sn_clock_ms();
  w->profile_clock = t_end;
  w->profile.solve_setup = (float)(t_loop - t_setup);
  w->profile.substeps = (float)(t_finish - t_loop);
  w->profile.solve_finish = (float)(t_end - t_finish);
}
