/* Plugin constraints in the step: their batches per type (packed params and
 * instances, views of their bodies and particles), the plugin callbacks
 * (with check_plugins, one item at a time and blamed for what they spoil),
 * and the position stage's rigid part (joint projection, velocities from
 * the motion). The stage list (world/step.c) calls these. */
#include "constraints/constraint_step.h"

#include <assert.h>
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
  sn_run_plugin_range(pc, batch, info, callback, 0, batch->count);
}

void sn_run_plugin_range(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
                         int32_t callback, int32_t begin, int32_t end) {
  sn_run_plugin_on(pc, batch, info, callback, batch->items + begin, pc->owners + batch->first + begin, end - begin);
}

void sn_run_plugin_on(const sn_plugin_caller *pc, const sn_joint_batch *batch, const sn_step_info *info,
                      int32_t callback, sn_constraint_item *items, const int32_t *owners, int32_t count) {
  if (count <= 0) return;
  if (!pc->w->check_plugins) {
    sn_call_plugin(batch, info, callback, items, count);
    return;
  }
  for (int32_t i = 0; i < count; ++i) {
    sn_constraint_item *item = items + i;
    uint64_t before = sn_item_spoiled(item);
    sn_call_plugin(batch, info, callback, item, 1);
    if (sn_item_spoiled(item) != before) sn_blame(pc, item, before, owners[i], callback);
  }
}

_Static_assert(sizeof(sn_body_state) == sizeof(sn_solver_body) &&
                   offsetof(sn_body_state, dp) == offsetof(sn_solver_body, dp),
               "plugin ABI: sn_solver_body must match the solver's body state");

/* The position stage as pieces the stage list strings together (see
 * sn_add_position_stages): the joint projection (its sweeps level by
 * level, stages of their own), begin (the rigid poses before XPBD), then
 * per sweep the XPBD types in order (a batched type colour by colour, each
 * colour a parallel stage; the others per item on the calling thread) and
 * the particle collisions, then end (velocities from the motion, the
 * velocity pass). The order is the serial one: the same bits. */
void sn_position_begin(sn_step_context *ctx, const sn_soft_context *soft, sn_step_info *info,
                       const sn_position_setup *stage) {
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
#ifndef NDEBUG
  for (int32_t i = 0; i < w->bodies.count && !w->bodies_may_sleep; ++i)
    assert(!sn_body_asleep(w->bodies.data + i) && "a body asleep unflagged");
#endif
  if (!w->bodies_may_sleep) return; /* nothing to wake */
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

/* Where sn_build_joint_batches writes its items, and its scratch for the
 * levels. */
typedef struct sn_item_cursor {
  sn_constraint_item *items;
  sn_constraint_body *views;
  sn_body_state *rest; ///< a private state per view of a body the step does not move
  sn_constraint_body **ptrs;
  int32_t *owners;
  int32_t *found, *ends; ///< a type's constraints as found; by place, the first pointer of each
  int32_t *level;        ///< the level of each found constraint
  uint64_t *last;        ///< per solver body: one past the level of its last item, or the colours on it
  int32_t n, used;
  bool cached;    ///< the levels kept from an earlier step hold (sn_levels_hold)
  bool recording; ///< the levels found go to the world's cache
} sn_item_cursor;

/* Item n of the cursor for constraint j: its params and instance copied to
 * pp and ip (packed in solve order; resident: the constraint's memory from
 * then on, and nothing to copy when it already is), its owner, a view per
 * rigid body and the endpoints' pointers at ptrs (the caller counts them in
 * c->used: the item's body_count). It writes item n's memory alone. A
 * body the step does not move (static, asleep) gets a private copy of the
 * resting state, so the items of one level share no memory. */
static void sn_place_item(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_item_cursor *c, int32_t n,
                          int32_t j, void *pp, void *ip, sn_constraint_body **ptrs, bool resident) {
  sn_constraint *k = w->constraints.data + j;
  const sn_constraint_type *t = k->type;
  if (pp != k->params) memcpy(pp, k->params, t->params_size);
  if (ip != k->instance) memcpy(ip, k->instance, t->instance_size);
  if (resident) k->params = pp, k->instance = ip;
  c->owners[n] = j;
  sn_constraint_item *item = c->items + n;
  memset(item, 0, sizeof(*item));
  item->params = pp;
  item->instance = ip;
  item->bodies = ptrs;
  item->body_count = (int32_t)t->body_count + k->particle_count;
  for (uint32_t m = 0; m < t->body_count; ++m) {
    const sn_body *body = w->bodies.data + k->bodies[m];
    sn_constraint_body *v = c->views + 2 * n + m;
    const bool moves = body->solver_index >= 0;
    sn_body_state *state = moves ? ctx->states + body->solver_index : c->rest + 2 * n + m;
    if (!moves) *state = ctx->states[ctx->body_count];
    v->state = (sn_solver_body *)(void *)state;
    v->inv_mass = moves ? body->inv_mass : 0.0f;
    v->inv_inertia = moves ? body->inv_inertia : 0.0f;
    v->center = body->center;
    v->q = body->xf.q;
    v->local_center = body->local_center;
    v->origin = body->xf.p;
    *ptrs++ = v;
  }
  for (int32_t m = 0; m < k->particle_count; ++m) *ptrs++ = soft->views + k->particles[m];
}

/* Room for count packed records of size bytes aligned to align: the stride,
 * *base the first (NULL when the arena is short). */
static size_t sn_pack_block(sn_world *w, uint32_t size, uint32_t align, int32_t count, uintptr_t *base) {
  const size_t stride = ((size_t)size + align - 1) & ~(size_t)(align - 1);
  uintptr_t p = (uintptr_t)sn_arena_alloc(&w->arena, stride * (size_t)count + align);
  *base = p == 0 ? 0 : (p + align - 1) & ~(uintptr_t)(align - 1);
  return stride;
}

/* Appends constraint j to batch as an item: params and instance packed in
 * solve order (the ABI lets the host move them), so one type's batch
 * streams through contiguous memory; instances go back after the step. */
static bool sn_emit_item(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batch,
                         sn_item_cursor *c, int32_t j) {
  const sn_constraint *k = w->constraints.data + j;
  const sn_constraint_type *t = k->type;
  uintptr_t pp, ip;
  sn_pack_block(w, t->params_size, t->params_align, 1, &pp);
  sn_pack_block(w, t->instance_size, t->instance_align, 1, &ip);
  if (pp == 0 || ip == 0) return false;
  sn_place_item(w, ctx, soft, c, c->n, j, (void *)pp, (void *)ip, c->ptrs + c->used, false);
  c->used += c->items[c->n].body_count;
  c->n++;
  batch->count++;
  return true;
}

/* Whether constraint slot j is an active constraint of batch's type. */
static bool sn_item_of(const sn_world *w, const sn_joint_batch *batch, int32_t j) {
  const sn_constraint *k = w->constraints.data + j;
  return k->in_use && k->type == batch->type && sn_constraint_active(w, k);
}

/* Appends the active constraints of batch->type among slots[from, count)
 * (slots NULL: the slots from .. count - 1 themselves) as items. */
static bool sn_add_items(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batch,
                         sn_item_cursor *c, const int32_t *slots, int32_t from, int32_t count) {
  for (int32_t e = from; e < count; ++e) {
    const int32_t j = slots ? slots[e] : e;
    if (sn_item_of(w, batch, j) && !sn_emit_item(w, ctx, soft, batch, c, j)) return false;
  }
  return true;
}

/* Whether the levels kept in the world (sn_constraint_lists) are this
 * step's: found for the same constraints (topology: a constraint came or
 * went, a body was disabled or enabled) and the same awake bodies in the
 * same solver order (which body moves, and its state). */
static bool sn_levels_hold(const sn_world *w) {
  const sn_constraint_lists *l = &w->constraint_lists;
  const int32_t nb = w->awake_bodies.count;
  return l->levels_valid && l->levels_topology == w->xpbd_topology && l->levels_awake.count == nb &&
         (nb == 0 || memcmp(l->levels_awake.data, w->awake_bodies.data, (size_t)nb * sizeof(int32_t)) == 0);
}

static bool sn_in_resident(const sn_constraint_lists *l, const void *p) {
  return l->resident_base != NULL && (const char *)p >= l->resident_base &&
         (const char *)p < l->resident_base + l->resident_room;
}

/* Every constraint whose params or instance live in the resident block
 * goes back to its own memory (its blocks, aligned as at creation), before
 * the block is packed anew or freed. */
static void sn_resident_go_home(sn_world *w) {
  sn_constraint_lists *l = &w->constraint_lists;
  if (l->resident_used == 0) return;
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    const sn_constraint_type *t = k->type;
    if (sn_in_resident(l, k->params)) {
      void *home = (void *)(((uintptr_t)k->params_block + (t->params_align - 1)) & ~(uintptr_t)(t->params_align - 1));
      memcpy(home, k->params, t->params_size);
      k->params = home;
    }
    if (sn_in_resident(l, k->instance)) {
      void *home =
          (void *)(((uintptr_t)k->instance_block + (t->instance_align - 1)) & ~(uintptr_t)(t->instance_align - 1));
      memcpy(home, k->instance, t->instance_size);
      k->instance = home;
    }
  }
  for (int32_t e = 0; e < l->levels.count; ++e) l->levels.data[e].resident = false;
  l->resident_used = 0;
}

bool sn_joint_levels_reserve(sn_world *w, int32_t nb, int32_t nj, int32_t types, size_t packed) {
  /* per type at most found slots and found + 2 level starts */
  sn_constraint_lists *l = &w->constraint_lists;
  if (!(sn_array_reserve(&w->mem, l->levels_awake, nb) && sn_array_reserve(&w->mem, l->levels, types) &&
        sn_array_reserve(&w->mem, l->levels_data, 2 * nj + 2 * types)))
    return false;
  /* the resident block: each type's params and instances start 64-aligned */
  const size_t room = packed + (size_t)types * 128;
  if (room <= l->resident_room) return true;
  const size_t bytes = room + 64;
  void *block = sn_mem_alloc(&w->mem, bytes);
  if (block == NULL) return false;
  sn_resident_go_home(w);
  sn_mem_free(&w->mem, l->resident_block, l->resident_bytes);
  l->resident_block = block;
  l->resident_bytes = bytes;
  l->resident_base = (char *)(((uintptr_t)block + 63u) & ~(uintptr_t)63u);
  l->resident_room = room;
  l->levels_valid = false; /* packed anew next step */
  return true;
}

/* The kept levels of type t (NULL: none). */
static const sn_level_cache *sn_kept_levels(const sn_world *w, const sn_constraint_type *t) {
  const sn_constraint_lists *l = &w->constraint_lists;
  for (int32_t e = 0; e < l->levels.count; ++e) {
    if (l->levels.data[e].type == t) return l->levels.data + e;
  }
  return NULL;
}

/* Keeps the levels found for batch (found items, their slots in level order
 * at order, start the level starts) for the next steps; false when memory is
 * short (then nothing is kept). */
static bool sn_keep_levels(sn_world *w, const sn_joint_batch *batch, const int32_t *order, int32_t found,
                           const int32_t *start, int32_t levels, const sn_level_cache *packing) {
  sn_constraint_lists *l = &w->constraint_lists;
  const int32_t offset = l->levels_data.count, size = found + levels + 2;
  if (!sn_array_reserve(&w->mem, l->levels_data, offset + size)) return false;
  sn_level_cache e = *packing;
  e.type = batch->type;
  e.count = found;
  e.levels = levels;
  e.offset = offset;
  if (!sn_array_push(&w->mem, l->levels, e)) return false;
  if (found > 0) memcpy(l->levels_data.data + offset, order, (size_t)found * sizeof(int32_t));
  memcpy(l->levels_data.data + offset + found, start, (size_t)(levels + 2) * sizeof(int32_t));
  l->levels_data.count += size;
  return true;
}

/* Kept items [begin, end) of a type whose items all have per endpoints,
 * placed (sn_add_kept_items): item at has cursor index n + at and its
 * endpoint pointers from used + at * per. */
typedef struct sn_place_job {
  sn_world *w;
  sn_step_context *ctx;
  const sn_soft_context *soft;
  sn_item_cursor *c;
  const int32_t *order;
  uintptr_t pp, ip;
  size_t ps, is;
  int32_t n, used, per;
  bool resident;
} sn_place_job;

static void sn_place_stage(void *context, const sn_stage *stage, int32_t begin, int32_t end) {
  (void)stage;
  const sn_place_job *j = context;
  for (int32_t at = begin; at < end; ++at)
    sn_place_item(j->w, j->ctx, j->soft, j->c, j->n + at, j->order[at], (void *)(j->pp + (size_t)at * j->ps),
                  (void *)(j->ip + (size_t)at * j->is), j->c->ptrs + j->used + (ptrdiff_t)at * j->per, j->resident);
}

/* The items of batch from kept levels: each constraint in level order,
 * everything written front to back (the same items, views and pointers as
 * sn_add_levelled_items finds). */
static bool sn_add_kept_items(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batch,
                              sn_item_cursor *c, const sn_level_cache *kept) {
  const int32_t found = kept->count, levels = kept->levels;
  const int32_t *order = w->constraint_lists.levels_data.data + kept->offset;
  int32_t *start = sn_arena_alloc(&w->arena, (size_t)(levels + 2) * sizeof(int32_t));
  if (start == NULL) return false;
  memcpy(start, order + found, (size_t)(levels + 2) * sizeof(int32_t));
  batch->level_start = start;
  batch->level_count = levels;
  if (found == 0) return true;
  const sn_constraint_type *t = batch->type;
  uintptr_t pp, ip;
  size_t ps, is;
  if (kept->resident) {
    /* in place (a constraint moved since, e.g. relocated, comes back) */
    const sn_constraint_lists *l = &w->constraint_lists;
    pp = (uintptr_t)(l->resident_base + kept->params_offset);
    ip = (uintptr_t)(l->resident_base + kept->instance_offset);
    ps = kept->params_stride;
    is = kept->instance_stride;
  } else {
    ps = sn_pack_block(w, t->params_size, t->params_align, found, &pp);
    is = sn_pack_block(w, t->instance_size, t->instance_align, found, &ip);
    if (pp == 0 || ip == 0) return false;
  }
  batch->resident = kept->resident;
  if (t->particle_count == SN_ANY_PARTICLES) {
    /* each item's endpoints after the last item's */
    for (int32_t at = 0; at < found; ++at) {
      sn_place_item(w, ctx, soft, c, c->n + at, order[at], (void *)(pp + (size_t)at * ps),
                    (void *)(ip + (size_t)at * is), c->ptrs + c->used, kept->resident);
      c->used += c->items[c->n + at].body_count;
    }
  } else {
    /* as many endpoints each: in blocks on the workers (a large type), each
     * item writing its own memory */
    const int32_t per = (int32_t)(t->body_count + t->particle_count);
    sn_place_job job = {w, ctx, soft, c, order, pp, ip, ps, is, c->n, c->used, per, kept->resident};
    sn_stage stages[1];
    sn_stage_runner runner;
    sn_stage_runner_init_on(&runner, stages, 1, found >= w->parallel_min_items ? w->worker_count : 1, sn_place_stage,
                            &job);
    sn_stage_add(&runner, 0, 0, 0, found, SN_BLOCK_JOINTS * 4, 1);
    sn_stage_run(&w->tasks, &runner);
    c->used += found * per;
  }
  c->n += found;
  batch->count += found;
  return true;
}

/* Greedy colours for the found items of a batch, in place of levels (into
 * c->level; returns the count): an item takes the lowest colour none of its
 * moving bodies has yet (SN_JOINT_COLOURS of them, a bit each in c->last);
 * an item whose bodies have them all gets a level of its own after them.
 * The items of a colour share no moving body. */
static int32_t sn_colour_items(const sn_world *w, sn_item_cursor *c, int32_t found, int32_t body_count) {
  uint64_t *used = c->last;
  int32_t *colour = c->level;
  memset(used, 0, (size_t)body_count * sizeof(uint64_t));
  const uint64_t all = (UINT64_C(1) << SN_JOINT_COLOURS) - 1u;
  int32_t colours = 0, alone = 0;
  for (int32_t i = 0; i < found; ++i) {
    const sn_constraint *k = w->constraints.data + c->found[i];
    uint64_t taken = 0;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const int32_t s = w->bodies.data[k->bodies[m]].solver_index;
      if (s >= 0) taken |= used[s];
    }
    if ((taken & all) == all) {
      colour[i] = SN_JOINT_COLOURS + alone++;
      continue;
    }
    const int32_t at = __builtin_ctzll(~taken);
    colour[i] = at;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const int32_t s = w->bodies.data[k->bodies[m]].solver_index;
      if (s >= 0) used[s] |= UINT64_C(1) << at;
    }
    if (at + 1 > colours) colours = at + 1;
  }
  /* the items on their own right after the colours */
  for (int32_t i = 0; alone > 0 && i < found; ++i)
    if (colour[i] >= SN_JOINT_COLOURS) colour[i] = colours + (colour[i] - SN_JOINT_COLOURS);
  return colours + alone;
}

/* sn_add_items for an impulse type, its items in levels: slot order cut
 * into levels, an item's level one past the last level of the earlier items
 * on its moving bodies (a static or sleeping side conflicts with nothing; a
 * kinematic one does, its state is written; an item with particles comes
 * past every earlier item, and every later one past it). The items of a
 * level share no state, and every item an item follows in slot order on a
 * body lies in an earlier level: the levels in turn, each level's items in
 * any order, together (SIMD lanes) or in parallel blocks, give the bits of
 * the serial slot order, whose Gauss-Seidel sweeps carry a correction down
 * a chain in one pass.
 *
 * A large batch whose levels are narrow (on average under
 * SN_JOINT_LEVEL_MIN items, too few for a parallel stage) is coloured
 * instead (sn_colour_items, SN_JOINT_COLOUR_MIN): a joint lattice's slot
 * order makes hundreds of levels of a few dozen items, its colours a handful
 * of thousands. The sweep then runs colour by colour, Box2D's order, which
 * carries a correction along a long chain more slowly (docs/architecture.md).
 * Levels or colours depend on the constraints and the awake bodies alone,
 * never on the worker count. */
static bool sn_add_levelled_items(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batch,
                                  sn_item_cursor *c, const int32_t *slots, int32_t from, int32_t count) {
  const sn_level_cache *kept = c->cached ? sn_kept_levels(w, batch->type) : NULL;
  if (kept != NULL) return sn_add_kept_items(w, ctx, soft, batch, c, kept);
  int32_t found = 0;
  for (int32_t e = from; e < count; ++e) {
    const int32_t j = slots ? slots[e] : e;
    if (sn_item_of(w, batch, j)) c->found[found++] = j;
  }
  uint64_t *last = c->last; /* per solver body: 1 + the level of its last item so far */
  int32_t *level = c->level;
  memset(last, 0, (size_t)ctx->body_count * sizeof(uint64_t));
  int32_t levels = 0, barrier = 0;
  bool particles = false;
  for (int32_t i = 0; i < found; ++i) {
    const sn_constraint *k = w->constraints.data + c->found[i];
    int32_t at = k->particle_count > 0 ? levels : barrier;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const int32_t s = w->bodies.data[k->bodies[m]].solver_index;
      if (s >= 0 && (int32_t)last[s] > at) at = (int32_t)last[s];
    }
    level[i] = at;
    for (uint32_t m = 0; m < k->type->body_count; ++m) {
      const int32_t s = w->bodies.data[k->bodies[m]].solver_index;
      if (s >= 0) last[s] = (uint64_t)at + 1u;
    }
    if (k->particle_count > 0) barrier = at + 1, particles = true;
    if (at + 1 > levels) levels = at + 1;
  }
  if (!particles && found >= SN_JOINT_COLOUR_MIN && (int64_t)levels * SN_JOINT_LEVEL_MIN > found)
    levels = sn_colour_items(w, c, found, ctx->body_count);
  /* a counting sort by level (within a level, slot order) */
  int32_t *start = sn_arena_alloc(&w->arena, (size_t)(levels + 2) * sizeof(int32_t));
  if (start == NULL) return false;
  memset(start, 0, (size_t)(levels + 2) * sizeof(int32_t));
  for (int32_t i = 0; i < found; ++i) start[level[i] + 2]++;
  for (int32_t l = 0; l < levels; ++l) start[l + 2] += start[l + 1];
  batch->level_start = start;
  batch->level_count = levels;
  if (found == 0) return true;
  /* params and instances packed in level order, copied in slot order (the
   * constraints' own memory is read once, front to back): levels about to
   * be kept pack into the resident block, where the constraints then live,
   * others into the arena */
  const sn_constraint_type *t = batch->type;
  sn_constraint_lists *l = &w->constraint_lists;
  sn_level_cache packing;
  memset(&packing, 0, sizeof(packing));
  packing.params_stride = ((size_t)t->params_size + t->params_align - 1) & ~(size_t)(t->params_align - 1);
  packing.instance_stride = ((size_t)t->instance_size + t->instance_align - 1) & ~(size_t)(t->instance_align - 1);
  packing.params_offset = (l->resident_used + 63u) & ~(size_t)63u;
  packing.instance_offset = (packing.params_offset + (size_t)found * packing.params_stride + 63u) & ~(size_t)63u;
  const size_t used = packing.instance_offset + (size_t)found * packing.instance_stride;
  packing.resident = c->recording && t->params_align <= 64 && t->instance_align <= 64 && used <= l->resident_room;
  uintptr_t pp, ip;
  size_t ps, is;
  batch->resident = packing.resident;
  if (packing.resident) {
    l->resident_used = used;
    pp = (uintptr_t)(l->resident_base + packing.params_offset);
    ip = (uintptr_t)(l->resident_base + packing.instance_offset);
    ps = packing.params_stride;
    is = packing.instance_stride;
  } else {
    ps = sn_pack_block(w, t->params_size, t->params_align, found, &pp);
    is = sn_pack_block(w, t->instance_size, t->instance_align, found, &ip);
    if (pp == 0 || ip == 0) return false;
  }
  /* each item's place (into level[]) and its endpoints' first pointer
   * (c->ends, by place), then everything written in slot order: the
   * constraints and their bodies are read front to back */
  int32_t *ends = c->ends;
  for (int32_t i = 0; i < found; ++i) { /* (start[l + 1]: the next free place of level l) */
    const int32_t at = start[level[i] + 1]++;
    const sn_constraint *k = w->constraints.data + c->found[i];
    level[i] = at;
    ends[at] = (int32_t)t->body_count + k->particle_count;
  }
  for (int32_t at = 0, sum = c->used; at < found; ++at) {
    const int32_t endpoints = ends[at];
    ends[at] = sum;
    sum += endpoints;
  }
  const int32_t n0 = c->n;
  for (int32_t i = 0; i < found; ++i) {
    const int32_t at = level[i];
    sn_place_item(w, ctx, soft, c, n0 + at, c->found[i], (void *)(pp + (size_t)at * ps), (void *)(ip + (size_t)at * is),
                  c->ptrs + ends[at], packing.resident);
    c->used += c->items[n0 + at].body_count;
  }
  c->n += found;
  batch->count += found;
  if (c->recording) {
    /* the slots in level order (c->ends is free again) */
    int32_t *order = c->ends;
    for (int32_t i = 0; i < found; ++i) order[level[i]] = c->found[i];
    c->recording = sn_keep_levels(w, batch, order, found, start, levels, &packing);
  }
  return true;
}

/* Starts batch number b of type t at the cursor. */
static sn_joint_batch *sn_begin_batch(sn_joint_batch *batches, int32_t b, const sn_constraint_type *t,
                                      const sn_item_cursor *c) {
  sn_joint_batch *batch = batches + b;
  memset(batch, 0, sizeof(*batch));
  batch->type = t;
  batch->items = c->items + c->n;
  batch->first = c->n;
  return batch;
}

/* Items grouped by type (in order of first appearance), arena memory. Rigid
 * endpoints get a view each; particles share their step view. Batched XPBD
 * types get a particle batch instead of items (and no owners: their
 * instances stay put). Walks the cached lists (sn_constraint_lists_update),
 * not every constraint: the per-item constraints, with the batched types
 * merged in at their first slots (batched constraints are always active), so
 * the types come in the order a scan of every slot finds them. Impulse
 * types come in levels (sn_add_levelled_items). */
int32_t sn_build_joint_batches(sn_world *w, sn_step_context *ctx, const sn_soft_context *soft, sn_joint_batch *batches,
                               sn_joint_count n, int32_t *owners) {
  const int32_t nj = n.constraints;
  sn_item_cursor c;
  c.items = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(sn_constraint_item) + 1);
  c.views = sn_arena_alloc(&w->arena, (size_t)nj * 2 * sizeof(sn_constraint_body) + 1);
  c.rest = sn_arena_alloc(&w->arena, (size_t)nj * 2 * sizeof(sn_body_state) + 1);
  c.ptrs = sn_arena_alloc(&w->arena, (size_t)n.endpoints * sizeof(sn_constraint_body *) + 1);
  c.found = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
  c.ends = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
  c.level = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
  c.last = sn_arena_alloc(&w->arena, (size_t)(ctx->body_count + 1) * sizeof(uint64_t));
  c.owners = owners;
  c.n = c.used = 0;
  if (c.items == NULL || c.views == NULL || c.rest == NULL || c.ptrs == NULL || c.found == NULL || c.ends == NULL ||
      c.level == NULL || c.last == NULL)
    return 0;
  sn_constraint_lists *l = &w->constraint_lists;
  /* the impulse types' levels: kept from an earlier step while they hold,
   * else found and kept (complete, or not at all) */
  c.cached = sn_levels_hold(w);
  c.recording = !c.cached;
  if (!c.cached) {
    sn_resident_go_home(w);
    l->levels_valid = false;
    l->levels.count = l->levels_data.count = 0;
  }
  const bool batching = soft->active && w->xpbd.valid;
  int32_t batch_count = 0, next_batched = 0, item_batches = 0;
  for (int32_t e = 0; e <= l->items.count; ++e) {
    const int32_t slot = e < l->items.count ? l->items.data[e] : INT32_MAX;
    while (next_batched < l->batched.count && l->batched.data[next_batched].slot < slot) {
      const int32_t b = batch_count++;
      sn_joint_batch *batch = sn_begin_batch(batches, b, l->batched.data[next_batched++].type, &c);
      if (batching) {
        if (!sn_xpbd_particle_batch(w, soft, batch->type, &batch->particles)) return 0;
        batch->batched = true;
        batch->items = NULL;
        batch->count = batch->particles.count;
        c.n += batch->count;
      } else if (!((batch->type->flags & SN_CONSTRAINT_IMPULSE) != 0
                       ? sn_add_levelled_items(w, ctx, soft, batch, &c, NULL, 0, w->constraints.count)
                       : sn_add_items(w, ctx, soft, batch, &c, NULL, 0, w->constraints.count))) {
        return 0;
      }
    }
    if (e == l->items.count) break;
    /* every item type has its batch: only the batched types after them are left */
    if (item_batches == l->item_types.count) {
      e = l->items.count - 1;
      continue;
    }
    const sn_constraint *first = w->constraints.data + slot;
    if (!first->in_use || !sn_constraint_active(w, first)) continue;
    bool seen = false;
    for (int32_t b = 0; b < batch_count; ++b) seen = seen || batches[b].type == first->type;
    if (seen) continue;
    if (batch_count >= n.types) return 0; /* (a wrong bound: the caller asserts) */
    const int32_t b = batch_count++;
    item_batches++;
    sn_joint_batch *batch = sn_begin_batch(batches, b, first->type, &c);
    const bool ok = (first->type->flags & SN_CONSTRAINT_IMPULSE) != 0
                        ? sn_add_levelled_items(w, ctx, soft, batch, &c, l->items.data, e, l->items.count)
                        : sn_add_items(w, ctx, soft, batch, &c, l->items.data, e, l->items.count);
    if (!ok) return 0;
  }
  if (c.recording && sn_array_reserve(&w->mem, l->levels_awake, w->awake_bodies.count)) {
    l->levels_awake.count = w->awake_bodies.count;
    if (l->levels_awake.count > 0)
      memcpy(l->levels_awake.data, w->awake_bodies.data, (size_t)l->levels_awake.count * sizeof(int32_t));
    l->levels_topology = w->xpbd_topology;
    l->levels_constraints = n.constraints;
    l->levels_endpoints = n.endpoints;
    l->levels_packed = n.packed;
    l->levels_valid = true;
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
    if (batches[b].batched || batches[b].resident) { /* (resident: solved in place) */
      n += batches[b].count;
      continue;
    }
    for (int32_t i = 0; i < batches[b].count; ++i, ++n) {
      sn_constraint *k = w->constraints.data + owners[n];
      const void *packed = batches[b].items[i].instance;
      if (packed != k->instance) memcpy(k->instance, packed, k->type->instance_size); /* (resident: in place) */
    }
  }
}

sn_joint_count sn_joint_count_active(const sn_world *w) {
  /* the batched ones counted when the constraint set last changed (a cloth
   * has 10^5 of them), the rest here; while the kept levels hold (the same
   * constraints, the same awake bodies) the count kept with them */
  const sn_constraint_lists *lists = &w->constraint_lists;
  sn_joint_count n = {lists->batched_count, lists->batched_endpoints, lists->batched_packed,
                      lists->batched.count + lists->item_types.count};
  if (lists->valid && lists->topology == w->xpbd_topology && sn_levels_hold(w)) {
    n.constraints = lists->levels_constraints;
    n.endpoints = lists->levels_endpoints;
    n.packed = lists->levels_packed;
    return n;
  }
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
  /* batches and owners (sn_joint_batches_alloc); items, views, resting
   * states, pointers, the levels' lists (found, ends, level: an int each,
   * the level starts: one more than the levels, 2 more a type) and each
   * body's last level (sn_build_joint_batches); each packed params and
   * instance (sn_emit_item, sn_add_levelled_items); the poses of the
   * position stage (sn_position_setup_alloc); 16 bytes of alignment each */
  return (size_t)n.constraints * (sizeof(sn_constraint_item) + 2 * sizeof(sn_constraint_body) +
                                  2 * sizeof(sn_body_state) + sizeof(sn_joint_batch) + 5 * sizeof(int32_t)) +
         (size_t)n.endpoints * sizeof(sn_constraint_body *) + n.packed + (size_t)nb * sizeof(sn_body_pose) +
         (size_t)(nb + 1) * sizeof(uint64_t) + (size_t)n.types * (2 * sizeof(int32_t) + 3 * 16) + 12 * 16;
}

void sn_joint_batches_alloc(sn_world *w, int32_t nj, sn_joint_batch **batches, int32_t **owners) {
  *batches = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(sn_joint_batch) + 1);
  *owners = sn_arena_alloc(&w->arena, (size_t)nj * sizeof(int32_t) + 1);
}

bool sn_position_setup_alloc(sn_world *w, sn_position_setup *stage, int32_t nb) {
  stage->pose0 = sn_arena_alloc(&w->arena, (size_t)nb * sizeof(sn_body_pose) + 1);
  return stage->pose0 != NULL;
}
