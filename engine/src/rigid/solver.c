/* The rigid solver: soft-step sequential impulses.
 *
 * Per step (the stage list in world/step.c strings these together): gather
 * awake bodies into contiguous solver state, list and colour the touching
 * contacts, prepare them (anchors, effective masses, softness), then for
 * each of the world's substeps h = dt / n:
 *   integrate velocities -> warm start -> solve (soft bias) -> integrate
 *   positions -> relax (no bias)
 * then one restitution pass (contact_wide.c), store the accumulated impulses
 * back into the manifolds (warm starting next step) and write bodies back,
 * flagging the fast ones for continuous collision (collision/continuous.c).
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
#include <stddef.h>
#include <string.h>

#include "rigid/solver.h"

#include "base/constants.h"
#include "base/math.h"
#include "base/tasks.h"
#include "world/world.h"

#if defined(__GNUC__) || defined(__clang__)
#define SN_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#define SN_PREFETCH_READ(p)  __builtin_prefetch(p)
#else
#define SN_PREFETCH_WRITE(p) ((void)(p))
#define SN_PREFETCH_READ(p)  ((void)(p))
#endif
/// Contacts the one-worker solver contact list fetches ahead.
#define SN_LIST_AHEAD 16

static sn_softness sn_make_soft(float hertz, float zeta, float h) {
  if (hertz == 0.0f) return (sn_softness){0.0f, 1.0f, 0.0f};
  float omega = 2.0f * SN_PI * hertz;
  float a1 = 2.0f * zeta + h * omega;
  float a2 = h * omega * a1;
  float a3 = 1.0f / (1.0f + a2);
  return (sn_softness){omega / a1, a2 * a3, a3};
}

void sn_integrate_velocities(sn_step_context *ctx, int32_t begin, int32_t end) {
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
void sn_integrate_positions(sn_step_context *ctx, int32_t begin, int32_t end) {
  if (begin >= end) return;
  sn_wide_integrate_positions(ctx->states, begin, end, ctx->h, ctx->max_rotation, ctx->motions[begin].max_speed_sq);
}

/* The contacts' softness: the user's stiffness, else a quarter of the
 * substep rate (the stable limit of the soft step); static contacts are
 * twice as stiff. */
static void sn_contact_softness(const sn_world *w, const sn_step_context *ctx, sn_softness *soft,
                                sn_softness *static_soft) {
  float h = ctx->h, substep_rate = ctx->inv_h;
  float hertz = w->settings.contact_hertz > 0.0f ? sn_minf(w->settings.contact_hertz, 0.25f * substep_rate)
                                                 : 0.25f * substep_rate;
  *soft = sn_make_soft(hertz, w->settings.contact_damping_ratio, h);
  *static_soft = sn_make_soft(2.0f * hertz, w->settings.contact_damping_ratio, h);
}

/* Solver contacts [begin, end) in contact order (the contacts' memory read
 * front to back), each prepared straight into its lane; by_group: groups
 * [begin, end) instead, each gathering its lanes' contacts. */
void sn_prepare_contacts(const sn_world *w, const sn_step_context *ctx, const sn_wide_set *wide, int32_t begin,
                         int32_t end, bool by_group) {
  sn_softness soft, static_soft;
  sn_contact_softness(w, ctx, &soft, &static_soft);
  (by_group ? sn_wide_prepare_groups : sn_wide_prepare_range)(wide, w, w->solver_contacts.data, w->solver_keys.data,
                                                              ctx->states, ctx->bodies, begin, end, ctx->body_count,
                                                              &soft, &static_soft);
}

void sn_prepare_lanes(const sn_step_context *ctx, const sn_wide_set *wide, int32_t begin, int32_t end) {
  sn_wide_prepare_lanes(wide, begin, end, ctx->body_count, ctx->prepare_block);
}

/* The accumulated impulses of solver contacts [begin, end) go back to their
 * manifolds (warm starting next step), with the peak impulses and approach
 * speeds hit events read, in contact order: the contacts' memory is written
 * front to back, each taking its lane's results. True if one of them
 * reports hit events. */
bool sn_store_impulses(sn_world *w, const sn_wide_set *wide, int32_t begin, int32_t end) {
  return sn_wide_store_range(wide, w, w->solver_contacts.data, begin, end);
}

/* Hit events, in contact order: the fastest approaching point that pushed. */
void sn_report_hits(sn_world *w) {
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
    if (fastest_j >= 0 && fastest > w->settings.hit_event_threshold) {
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

bool sn_state_is_finite(const sn_body_state *s) {
  return sn_vec2_is_finite(s->v) && sn_is_finite(s->w) && sn_vec2_is_finite(s->dp) && sn_is_finite(s->dq.c) &&
         sn_is_finite(s->dq.s);
}

/* A state the write back does not take: not finite, or a centre beyond
 * +-SN_MAX_COORDINATE (past it float positions are too coarse for contacts,
 * and speeds up to SN_MAX_SPEED would carry them on to infinity). */
bool sn_state_contained(const sn_body *b, const sn_body_state *s) {
  return !sn_state_is_finite(s) || !sn_vec2_within_limit(sn_add(b->center0, s->dp));
}

/* Bodies [begin, end) take their solver state; sleep timers and the fast
 * flag for continuous collision. A state that is not finite is contained:
 * the body goes back where the step found it, stopped and frozen (the event
 * is recorded after the stage, in body order). */
/* The body's move event, written while the body is at hand (slot k: the
 * awake bodies' order, which is body slot order); continuous collision and
 * the islands amend it (world/step.c, sn_report_body_moves). */
static void sn_note_move(sn_world *w, int32_t k, int32_t bi, const sn_body *b) {
  sn_body_move_event *e = w->body_events.data + k;
  memset(e, 0, sizeof(*e)); /* padding too: the events compare byte for byte */
  e->body = sn_make_body_id(w, bi);
  e->transform = b->xf;
  e->user_data = b->user_data;
}

uint8_t sn_write_back(sn_world *w, const sn_step_context *ctx, float dt, int32_t begin, int32_t end) {
  uint8_t found = 0;
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
      found |= SN_WRITE_BACK_FROZEN;
      /* its shapes go back to where the step found them */
      uint8_t post = 0;
      for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
        bool escaped = sn_shape_compute_aabb(w, si, b->xf);
        w->shapes.data[si].escaped = escaped;
        if (escaped) post |= SN_POST_ESCAPED;
        if (w->toi_notes) sn_toi_note_shape(w, k, si, false);
      }
      ctx->post[k] = post;
      sn_note_move(w, k, bi, b);
      if (w->toi_notes) sn_toi_note_body(w, k, bi, b);
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
    if (w->settings.enable_sleep) {
      /* the body's threshold scales the world's tolerances (the default
       * threshold makes the ratio exactly 1: the constants' own bits) */
      const float linear_tol = b->sleep_threshold;
      const float angular_tol = SN_ANGULAR_SLEEP_TOLERANCE * (linear_tol / SN_LINEAR_SLEEP_TOLERANCE);
      bool slow =
          b->enable_sleep && sn_length_sq(b->v) < linear_tol * linear_tol && b->w * b->w < angular_tol * angular_tol;
      if (slow && b->sleep_time > 0.0f) {
        /* slow but speeding up since the timer started: accelerating, not
         * at rest (a pile settling slows down, so it is not held awake) */
        if (sn_length(b->v) > sn_length(b->sleep_v) + 0.2f * linear_tol ||
            sn_absf(b->w) > sn_absf(b->sleep_w) + 0.2f * angular_tol)
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
    if (w->settings.enable_continuous && b->type == SN_BODY_DYNAMIC) {
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
    /* the shapes' AABBs at the pose the step ends in, and whether each
     * left its proxy's box (here, on the workers). A fast body's boxes are
     * where continuous collision's sweeps end, and sn_move_proxies keeps
     * them unless the pass moves the body; moving proxies in the tree
     * waits for one thread. */
    uint8_t post = b->is_fast ? SN_POST_FAST : 0;
    if (b->is_fast) found |= SN_WRITE_BACK_FAST;
    for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
      bool escaped = sn_shape_compute_aabb(w, si, b->xf);
      w->shapes.data[si].escaped = escaped;
      if (escaped && !b->is_fast) post |= SN_POST_ESCAPED;
      if (w->toi_notes) sn_toi_note_shape(w, k, si, b->is_fast);
    }
    ctx->post[k] = post;
    sn_note_move(w, k, bi, b);
    if (w->toi_notes) sn_toi_note_body(w, k, bi, b);
  }
  return found;
}

/* Solver state of bodies [begin, end): velocities, step-start pose, the
 * per-substep velocity change from gravity and forces, damping factors. */
void sn_init_bodies(sn_world *w, sn_step_context *ctx, float h, int32_t begin, int32_t end) {
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
      m->dv = sn_scale(h, sn_add(sn_scale(b->inv_mass, b->force), sn_scale(b->gravity_scale, w->settings.gravity)));
      m->dw = h * b->inv_inertia * b->torque;
      m->lin_damp = 1.0f / (1.0f + h * b->linear_damping);
      m->ang_damp = 1.0f / (1.0f + h * b->angular_damping);
    } else {
      m->dv = (sn_vec2){0.0f, 0.0f};
      m->dw = 0.0f;
      m->lin_damp = 1.0f;
      m->ang_damp = 1.0f;
    }
    m->max_speed_sq = w->settings.maximum_linear_speed * w->settings.maximum_linear_speed;
  }
}

/* ------------------------------------------------- solver contact list */

/* The touching contacts with an awake body, in contact order, found in
 * parallel in one pass: each block of contacts writes its own at the front
 * of its own range of the list (it has no more than its contacts), and the
 * calling thread then closes the gaps, block by block in order (a block
 * whose contacts all match and that follows such blocks stays where it
 * is). */
enum { SN_LIST_FILL, SN_LIST_CLOSE };

typedef struct sn_list_run {
  sn_world *w;
  int32_t *block_counts; ///< matches per block
  int32_t block_size, block_count;
} sn_list_run;

/* Whether contact ci is a solver contact (touching, not left out by the
 * pre-solve callback, with an awake body) and then its colouring key
 * (dummy: the static slot; only awake bodies the contact can change are
 * dynamic for it), from one read of the contact and its bodies' indices. */
static inline bool sn_solver_contact_key(const sn_world *w, int32_t ci, int32_t dummy, sn_wide_key *key) {
  const sn_contact *c = w->contacts.data + ci;
  if (!c->in_use || (c->flags & (SN_CONTACT_TOUCHING | SN_CONTACT_DISABLED)) != SN_CONTACT_TOUCHING) return false;
  /* (solver index << 1 | can move, from sn_gather_awake_bodies: the bodies
   * themselves are not read here) */
  const int32_t *index = w->body_solver_index.data;
  const int32_t xa = index[c->edges[0].body], xb = index[c->edges[1].body];
  if (xa < 0 && xb < 0) return false;
  key->ia = xa >= 0 ? xa >> 1 : dummy;
  key->ib = xb >= 0 ? xb >> 1 : dummy;
  key->dynamic = (xa >= 0 && (xa & 1) ? 1u : 0u) | (xb >= 0 && (xb & 1) ? 2u : 0u);
  return true;
}

/* The lines sn_solver_contact_key tests of contact ci + SN_LIST_AHEAD,
 * fetched ahead (the bodies' edges, the flags) while it is before end. */
static inline void sn_list_prefetch(const sn_world *w, int32_t ci, int32_t end) {
  if (ci + SN_LIST_AHEAD >= end) return;
  const sn_contact *ahead = w->contacts.data + ci + SN_LIST_AHEAD;
  SN_PREFETCH_READ(&ahead->edges[0]);
  SN_PREFETCH_READ(&ahead->edges[1].body);
  SN_PREFETCH_READ(&ahead->flags);
  SN_PREFETCH_READ(&ahead->in_use);
}

/* Contacts [begin, end): the solver contacts among them and their keys
 * written from slot at on; returns how many. */
static int32_t sn_list_range(sn_world *w, int32_t begin, int32_t end, int32_t at) {
  const int32_t first = at, dummy = w->awake_bodies.count;
  for (int32_t ci = begin; ci < end; ++ci) {
    sn_list_prefetch(w, ci, end);
    if (!sn_solver_contact_key(w, ci, dummy, w->solver_keys.data + at)) continue;
    w->solver_contacts.data[at++] = ci;
  }
  return at - first;
}

static void sn_list_stage(void *context, const sn_stage *st, int32_t begin, int32_t end) {
  sn_list_run *run = context;
  sn_world *w = run->w;
  if (st->kind == SN_LIST_FILL) {
    run->block_counts[(begin - st->first) / run->block_size] = sn_list_range(w, begin, end, begin);
    return;
  }
  int32_t at = 0;
  for (int32_t b = 0; b < run->block_count; ++b) {
    const int32_t from = b * run->block_size, n = run->block_counts[b];
    if (at != from && n > 0) {
      memmove(w->solver_contacts.data + at, w->solver_contacts.data + from, (size_t)n * sizeof(int32_t));
      memmove(w->solver_keys.data + at, w->solver_keys.data + from, (size_t)n * sizeof(sn_wide_key));
    }
    at += n;
  }
  w->solver_contacts.count = at;
}

bool sn_list_solver_contacts(sn_world *w) {
  int32_t count = w->contacts.count;
  w->solver_contacts.count = 0;
  if (!sn_array_reserve(&w->mem, w->solver_contacts, count) || !sn_array_reserve(&w->mem, w->solver_keys, count) ||
      !sn_array_reserve(&w->mem, w->stages, 2))
    return false;
  int32_t workers = count >= w->parallel_min_items ? w->worker_count : 1;
  if (workers == 1) {
    /* one thread: one pass, each match written as it is found */
    w->solver_contacts.count = sn_list_range(w, 0, count, 0);
    return true;
  }
  sn_list_run run = {w, NULL, 0, 0};
  sn_stage_runner r;
  sn_stage_runner_init_on(&r, w->stages.data, 2, workers, sn_list_stage, &run);
  sn_stage_add(&r, SN_LIST_FILL, 0, 0, count, SN_BLOCK_CONTACTS * 4, 1);
  if (r.count == 0) return true; /* no contacts */
  run.block_size = r.stages[0].block_size;
  run.block_count = r.stages[0].block_count;
  if (!sn_array_reserve(&w->mem, w->list_counts, run.block_count)) return false;
  run.block_counts = w->list_counts.data;
  sn_stage_add_main(&r, SN_LIST_CLOSE, 0);
  sn_stage_run(&w->tasks, &r);
  return true;
}

/* ------------------------------------------------------------ step parts */

void sn_gather_awake_bodies(sn_world *w) {
  /* static bodies share a dummy slot */
  w->awake_bodies.count = 0;
  bool asleep = false;
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    sn_body *b = w->bodies.data + i;
    b->solver_index = SN_NULL_INDEX;
    w->body_solver_index.data[i] = SN_NULL_INDEX;
    asleep = asleep || sn_body_asleep(b);
    if (!b->in_use || b->type == SN_BODY_STATIC || !b->is_awake || b->frozen) continue;
    b->solver_index = w->awake_bodies.count;
    /* the contact list's copy: the solver index and whether a contact can
     * move the body (the colouring key's dynamic bit) */
    const bool moves = b->inv_mass > 0.0f || b->inv_inertia > 0.0f;
    w->body_solver_index.data[i] = 2 * b->solver_index + (moves ? 1 : 0);
    w->awake_bodies.data[w->awake_bodies.count++] = i;
  }
  w->awake_body_count = w->awake_bodies.count;
  w->bodies_may_sleep = asleep;
}

bool sn_color_reuse(const sn_world *w, bool batches) {
  const int32_t nb = w->awake_bodies.count, nc = w->solver_contacts.count;
  return w->wide_cache_valid && w->wide_cache_batching == batches && w->wide_cache_bodies == nb &&
         w->wide_cache_keys.count == nc &&
         (nc == 0 || (memcmp(w->wide_cache_contacts.data, w->solver_contacts.data, (size_t)nc * sizeof(int32_t)) == 0 &&
                      memcmp(w->wide_cache_keys.data, w->solver_keys.data, (size_t)nc * sizeof(sn_wide_key)) == 0));
}

int32_t sn_color_contacts(sn_world *w, bool reuse) {
  const int32_t nb = w->awake_bodies.count, nc = w->solver_contacts.count;
  return reuse ? w->wide_cache_groups
               : sn_wide_color(w->solver_keys.data, nc, nb, w->contact_colors.data, w->body_color_masks.data);
}

bool sn_build_wide_set(sn_world *w, sn_wide_set *wide, bool reuse, int32_t *groups, bool batches) {
  const int32_t nc = w->solver_contacts.count, nb = w->awake_bodies.count;
  if (reuse) {
    if (!sn_wide_alloc_groups(wide, &w->arena, *groups)) return false;
    wide->lane_constraint = w->wide_cache_lanes.data;
    if (!sn_wide_index_contacts(wide, &w->arena, nc)) return false;
    memcpy(wide->color_first, w->wide_cache_color_first, sizeof(wide->color_first));
    wide->batch_count = w->wide_cache_batch_count;
    wide->batch_runs = w->wide_cache_batch_runs.data;
    wide->batch_run_first = w->wide_cache_batch_run_first.data;
    wide->batch_groups = w->wide_cache_batch_groups.data;
  } else {
    /* batch-major where the awake bodies fall into batches (the batch
     * arrays are the world's: kept with the colouring) */
    int32_t batch_count = 0;
    if (batches && nc >= 2 * SN_SOLVE_BATCH_CONTACTS) {
      int32_t *batch_of = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(int32_t) + 1);
      int32_t *parent = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(int32_t) + 1);
      if (batch_of == NULL || parent == NULL) return false;
      const int32_t most =
          sn_mini(sn_solve_batch_bound(nc), sn_mini(w->wide_cache_batch_run_first.capacity - 1,
                                                    (w->wide_cache_batch_groups.capacity - 1) / SN_WIDE_COLORS));
      if (w->wide_cache_batch_runs.capacity >= 2 * nb)
        batch_count =
            sn_wide_batches(w->solver_keys.data, nc, nb, SN_SOLVE_BATCH_CONTACTS, most, w->wide_cache_batch_runs.data,
                            w->wide_cache_batch_run_first.data, batch_of, parent);
      if (batch_count > 0) {
        *groups = sn_wide_batched_groups(w->contact_colors.data, w->solver_keys.data, nc, batch_of, batch_count,
                                         w->wide_cache_batch_groups.data);
        if (!sn_wide_build_batches(wide, &w->arena, nc, w->contact_colors.data, w->solver_keys.data, batch_of,
                                   batch_count, w->wide_cache_batch_runs.data, w->wide_cache_batch_run_first.data,
                                   w->wide_cache_batch_groups.data, *groups))
          return false;
      }
    }
    if (batch_count == 0 && !sn_wide_build(wide, &w->arena, nc, w->contact_colors.data, *groups)) return false;
    w->wide_cache_batch_count = batch_count;
    w->wide_cache_batching = batches;
    /* keep it for the next step (no cache when memory is short: no harm) */
    const int32_t lanes = SN_WIDE_LANES * *groups;
    w->wide_cache_valid = sn_array_reserve(&w->mem, w->wide_cache_contacts, nc) &&
                          sn_array_reserve(&w->mem, w->wide_cache_keys, nc) &&
                          sn_array_reserve(&w->mem, w->wide_cache_lanes, lanes);
    if (w->wide_cache_valid && nc > 0) { /* (no contacts: arrays may be NULL, nothing to copy) */
      memcpy(w->wide_cache_contacts.data, w->solver_contacts.data, (size_t)nc * sizeof(int32_t));
      memcpy(w->wide_cache_keys.data, w->solver_keys.data, (size_t)nc * sizeof(sn_wide_key));
      memcpy(w->wide_cache_lanes.data, wide->lane_constraint, (size_t)lanes * sizeof(int32_t));
    }
    if (w->wide_cache_valid) {
      memcpy(w->wide_cache_color_first, wide->color_first, sizeof(wide->color_first));
      w->wide_cache_contacts.count = nc;
      w->wide_cache_keys.count = nc;
      w->wide_cache_groups = *groups;
      w->wide_cache_bodies = nb;
    }
  }
  wide->use_avx2 = w->use_avx2;
  return true;
}

bool sn_step_context_init(sn_world *w, sn_step_context *ctx, float dt) {
  const int32_t nb = w->awake_bodies.count;
  /* states on 64-byte lines: each 32-byte state in one line (a state
   * across two lines costs the contact passes' gathers and scatters two) */
  char *raw = sn_arena_alloc(&w->arena, (size_t)(nb + 1) * sizeof(sn_body_state) + 48);
  ctx->states = raw == NULL ? NULL : (sn_body_state *)(void *)(raw + ((64u - ((uintptr_t)raw & 63u)) & 63u));
  ctx->motions = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_body_motion) + 1);
  ctx->post = sn_arena_alloc(&w->arena, (size_t)nb + 1);
  ctx->bodies = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_wide_body) + 1);
  ctx->body_count = nb;
  float h = dt / (float)w->settings.substeps;
  ctx->h = h;
  ctx->inv_h = 1.0f / h;
  ctx->push_max_velocity = w->settings.contact_push_max_velocity;
  ctx->restitution_threshold = w->settings.restitution_threshold;
  ctx->max_rotation = SN_MAX_ROTATION;
  ctx->prepare_block = 0; /* (every group completed by sn_prepare_lanes until the step sets it) */
  if (ctx->states == NULL) return false;
  assert(((uintptr_t)ctx->states & 63u) == 0);
  ctx->states[nb] = (sn_body_state){{0.0f, 0.0f}, 0.0f, 0.0f, {0.0f, 0.0f}, {1.0f, 0.0f}};
  return true;
}

void sn_report_frozen(sn_world *w, const sn_step_context *ctx) {
  for (int32_t k = 0; k < ctx->body_count; ++k) {
    if (sn_state_contained(w->bodies.data + w->awake_bodies.data[k], ctx->states + k)) {
      sn_frozen_event e = sn_make_frozen_event(w, w->awake_bodies.data[k], -1);
      sn_array_push(&w->mem, w->frozen_events, e);
    }
  }
}

void sn_move_proxies(sn_world *w, const sn_step_context *ctx) {
  for (int32_t k = 0; k < ctx->body_count; ++k) {
    if (ctx->post[k] == 0) continue;
    sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    for (int32_t si = b->shape_list; si != SN_NULL_INDEX; si = w->shapes.data[si].next) {
      if (ctx->post[k] & SN_POST_FAST) {
        /* (a body jointed to one continuous collision stopped, moved after
         * the write back found its box escaped, comes here too). The box
         * the write back computed holds unless the body moved since: its
         * own stop, or held back with a stopped body. */
        const bool escaped = w->shapes.data[si].escaped;
        w->shapes.data[si].escaped = false;
        if (b->toi_fraction < 1.0f || (ctx->post[k] & SN_POST_MOVED)) {
          if (sn_shape_compute_aabb(w, si, b->xf)) sn_shape_move_proxy(w, si, true);
        } else if (escaped) {
          sn_shape_move_proxy(w, si, true);
        }
      } else if (w->shapes.data[si].escaped) {
        w->shapes.data[si].escaped = false;
        sn_shape_move_proxy(w, si, true);
      }
    }
  }
}

size_t sn_contact_solver_scratch_bytes(int32_t nb, int32_t groups) {
  /* the step context (sn_step_context_init: the states aligned to 64
   * bytes), the groups and lanes (sn_build_wide_set); 16 bytes of
   * alignment each */
  /* and the batches' scratch (sn_build_wide_set: two per body, a cursor
   * per batch and colour, batches bounded by the contacts, 8 a group) */
  const size_t batches = (size_t)sn_solve_batch_bound(SN_WIDE_LANES * groups);
  return (size_t)(nb + 1) * sizeof(sn_body_state) + 48 + (size_t)nb * (sizeof(sn_body_motion) + sizeof(sn_wide_body)) +
         (size_t)nb + sn_wide_bytes(groups) + 2 * ((size_t)nb * sizeof(int32_t) + 16) +
         batches * SN_WIDE_COLORS * sizeof(int32_t) + 16 + 6 * 16;
}
