/* The XPBD schedule: colours of the batched XPBD types (see xpbd_schedule.h),
 * their params and instances resident in colour order, and the particle
 * batch a step hands their solve_particles. */
#include "soft/xpbd_schedule.h"

#include <stdint.h>
#include <string.h>

#include "soft/soft_step.h"
#include "world/world.h"

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

bool sn_xpbd_schedule_update(sn_world *w) {
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
bool sn_xpbd_particle_batch(const sn_world *w, const sn_soft_context *soft, const sn_constraint_type *t,
                            sn_particle_batch *pb) {
  const sn_xpbd_schedule *x = &w->xpbd;
  int32_t r = 0;
  while (r < x->ranges.count && x->ranges.data[r].type != t) r++;
  if (r == x->ranges.count) return false;
  const sn_xpbd_range *range = x->ranges.data + r;
  const uint32_t ps = range->params_stride, is = range->instance_stride;
  char *pp = x->params_base + range->params_offset;
  char *ip = x->instance_base + range->instance_offset;
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
  return true;
}

/* The XPBD schedule as the solve will find it: built here when a batched
 * type is there (the solve then has plugin constraints and finds it
 * current); otherwise a rebuild for the item types may still come, and
 * these arrays are all it takes (sn_xpbd_move_resident allocates nothing
 * without ranges). */
bool sn_xpbd_schedule_reserve(sn_world *w) {
  if (w->constraint_lists.batched_count > 0) return sn_xpbd_schedule_update(w);
  const int32_t np = sn_xpbd_particle_slots(w);
  return sn_array_reserve(&w->mem, w->xpbd.fixed, np) && sn_array_reserve(&w->mem, w->xpbd.last, np) &&
         sn_array_reserve(&w->mem, w->xpbd.level, w->constraints.count);
}
