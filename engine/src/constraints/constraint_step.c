/* Plugin constraints in the step: their batches per type (packed params and
 * instances, views of their bodies and particles), the plugin callbacks
 * (with check_plugins, one item at a time and blamed for what they spoil),
 * and the position stage's rigid part (joint projection, velocities from
 * the motion). The stage list (world/step.c) calls these. */
#include "constraints/constraint_step.h"

#include <stddef.h>
#include <string.h>

#include "base/math.h"
#include "soft/xpbd_schedule.h"
#include "world/world.h"

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
void sn_run_plugin(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
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

/* The position stage as pieces the stage list strings together (see
 * sn_add_position_stages): begin (joint projection, the rigid poses before
 * XPBD), then per sweep the XPBD types in order (a batched type colour by
 * colour, each colour a parallel stage; the others per item on the calling
 * thread) and the particle collisions, then end (velocities from the
 * motion, the velocity pass). The order is the serial one: the same bits. */
void sn_position_begin(sn_step_context *ctx, const sn_soft_context *soft, const sn_joint_batch *batches,
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
void sn_position_end(sn_world *w, sn_step_context *ctx, sn_soft_context *soft, const sn_position_setup *stage) {
  const float inv_h = ctx->inv_h;
  for (int32_t k = 0; k < ctx->body_count; ++k) {
    sn_body_state *s = ctx->states + k;
    s->v = sn_mul_add(s->v, inv_h, sn_sub(s->dp, stage->pose0[k].dp));
    s->w += inv_h * sn_relative_angle(stage->pose0[k].dq, s->dq);
  }
  sn_soft_velocity_pass(w, soft);
}

bool sn_constraint_active(const sn_world *w, const sn_constraint *k) {
  /* a constraint on a disabled body idles */
  for (uint32_t i = 0; i < k->type->body_count; ++i) {
    if (w->bodies.data[k->bodies[i]].disabled) return false;
  }
  if (k->particle_count > 0) return true; /* particles never sleep */
  for (uint32_t i = 0; i < k->type->body_count; ++i) {
    if (w->bodies.data[k->bodies[i]].solver_index >= 0) return true;
  }
  return false;
}

/* A joint between an awake and a sleeping body wakes the sleeper. Only the
 * constraints solved per item can have bodies (batched types are particle
 * only): the cached list (sn_constraint_lists_update). */
void sn_wake_joined(sn_world *w) {
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
int32_t sn_build_joint_batches(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batches,
                               int32_t nj, int32_t endpoints, int32_t *owners) {
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
        if (!sn_xpbd_particle_batch(w, soft, batch->type, &batch->particles)) return 0;
        batch->batched = true;
        batch->items = NULL;
        batch->count = batch->particles.count;
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

void sn_joint_batches_prepare(const sn_plugin_caller *pc, sn_joint_batch *batches, int32_t batch_count,
                              const sn_step_info *info, sn_position_setup *stage) {
  for (int32_t b = 0; b < batch_count; ++b) {
    sn_joint_batch *batch = batches + b;
    batch->impulse = (batch->type->flags & SN_CONSTRAINT_IMPULSE) != 0;
    batch->xpbd = (batch->type->flags & SN_CONSTRAINT_XPBD) != 0;
    if (batch->impulse) sn_run_plugin(pc, batch, info, SN_CALLBACK_PREPARE);
    if (batch->impulse && batch->type->project) stage->project_count += batch->count;
    if (batch->xpbd) {
      stage->xpbd_count += batch->count;
    }
  }
  if (stage->position_iterations == 0) stage->project_count = 0;
}

void sn_joint_batches_end(sn_world *w, const sn_joint_batch *batches, int32_t batch_count, const int32_t *owners) {
  /* packed instances go home (batched ones live in the schedule's block) */
  for (int32_t b = 0, n = 0; b < batch_count; ++b) {
    if (batches[b].batched) {
      n += batches[b].count;
      continue;
    }
    for (int32_t i = 0; i < batches[b].count; ++i, ++n) {
      sn_constraint *k = w->constraints.data + owners[n];
      memcpy(k->instance, batches[b].items[i].instance, k->type->instance_size);
    }
  }
}

sn_joint_count sn_joint_count_active(const sn_world *w) {
  /* the batched ones counted when the constraint set last changed (a cloth
   * has 10^5 of them), the rest here */
  const sn_constraint_lists *lists = &w->constraint_lists;
  sn_joint_count n = {lists->batched_count, lists->batched_endpoints, lists->batched_packed};
  for (int32_t e = 0; e < lists->items.count; ++e) {
    const sn_constraint *k = w->constraints.data + lists->items.data[e];
    if (!k->in_use || !sn_constraint_active(w, k)) continue;
    n.constraints++;
    n.endpoints += (int32_t)k->type->body_count + k->particle_count;
    n.packed += k->type->params_size + k->type->params_align + k->type->instance_size + k->type->instance_align + 32;
  }
  return n;
}

size_t sn_joint_scratch_bytes(int32_t nb, sn_joint_count n) {
  /* batches and owners (sn_joint_batches_alloc), items, views and pointers
   * (sn_build_joint_batches), each packed params and instance (sn_add_items),
   * the poses of the position stage (sn_position_setup_alloc); 16 bytes of
   * alignment each */
  return (size_t)n.constraints *
             (sizeof(sn_constraint_item) + 2 * sizeof(sn_constraint_body) + sizeof(sn_joint_batch) + sizeof(int32_t)) +
         (size_t)n.endpoints * sizeof(sn_constraint_body *) + n.packed + (size_t)nb * sizeof(sn_body_pose) + 6 * 16;
}

void sn_joint_batches_alloc(sn_world *w, int32_t nj, sn_joint_batch **batches, int32_t **owners) {
  *batches = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(sn_joint_batch) + 1);
  *owners = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
}

bool sn_position_setup_alloc(sn_world *w, sn_position_setup *stage, int32_t nb) {
  stage->pose0 = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_body_pose) + 1);
  return stage->pose0 != NULL;
}
