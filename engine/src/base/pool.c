/* Slot pools (internal): acquire, release and check slots of any kind. */
#include "base/pool.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"

#define SN_POOL_NULL (-1)

static char *sn_pool_slot(const sn_pool *p, int32_t index) { return (char *)*p->data + (size_t)index * p->layout.size; }

static bool sn_pool_in_use(const sn_pool *p, int32_t index) {
  bool in_use;
  memcpy(&in_use, sn_pool_slot(p, index) + p->layout.in_use, sizeof in_use);
  return in_use;
}

static int32_t sn_pool_link(const sn_pool *p, int32_t index) {
  int32_t next;
  memcpy(&next, sn_pool_slot(p, index) + p->layout.next_free, sizeof next);
  return next;
}

static void sn_pool_set_link(const sn_pool *p, int32_t index, int32_t next) {
  memcpy(sn_pool_slot(p, index) + p->layout.next_free, &next, sizeof next);
}

uint16_t sn_pool_generation(const sn_pool *p, int32_t index) {
  uint16_t generation = 0;
  if (p->layout.generation != SN_POOL_NO_GENERATION)
    memcpy(&generation, sn_pool_slot(p, index) + p->layout.generation, sizeof generation);
  return generation;
}

/* Retired: free with a spent generation (never for a kind without one). */
static bool sn_pool_retired(const sn_pool *p, int32_t index) {
  return p->layout.generation != SN_POOL_NO_GENERATION && !sn_pool_in_use(p, index) &&
         sn_pool_generation(p, index) == SN_GENERATION_SPENT;
}

int32_t sn_pool_free_count(const sn_pool *p) {
  int32_t n = 0;
  for (int32_t f = *p->free; f != SN_POOL_NULL; f = sn_pool_link(p, f)) n++;
  return n;
}

bool sn_pool_reserve(const sn_pool *p, int32_t n) {
  int32_t need = n;
  if (p->live != NULL && p->layout.generation == SN_POOL_NO_GENERATION) {
    /* no slot of the kind retires: every free slot is on the list, and the
     * count says how many (a walk of the list would wait on a line per slot:
     * a step reserving its new contacts over thousands of freed slots) */
    assert(*p->count - *p->live == sn_pool_free_count(p));
    need -= *p->count - *p->live;
  } else {
    for (int32_t f = *p->free; f != SN_POOL_NULL && need > 0; f = sn_pool_link(p, f)) need--;
  }
  if (need <= 0) return true;
  /* index1 = slot + 1 must stay an int32_t */
  if (*p->count > INT32_MAX - 1 - need) return false;
  return sn_array_grow(p->mem, p->data, p->capacity, p->layout.size, *p->count + need);
}

int32_t sn_pool_acquire(const sn_pool *p) {
  int32_t index = *p->free;
  uint16_t generation = 0;
  if (index == SN_POOL_NULL) {
    if (!sn_pool_reserve(p, 1)) return SN_POOL_NULL;
    index = (*p->count)++;
  } else {
    *p->free = sn_pool_link(p, index);
    generation = sn_pool_generation(p, index);
  }
  char *slot = sn_pool_slot(p, index);
  memset(slot, 0, p->layout.size);
  const bool in_use = true;
  memcpy(slot + p->layout.in_use, &in_use, sizeof in_use);
  if (p->layout.generation != SN_POOL_NO_GENERATION) {
    generation = (uint16_t)(generation + 1u);
    memcpy(slot + p->layout.generation, &generation, sizeof generation);
  }
  sn_pool_set_link(p, index, SN_POOL_NULL);
  if (p->live != NULL) *p->live += 1;
  return index;
}

void sn_pool_release(const sn_pool *p, int32_t index) {
  const bool in_use = false;
  memcpy(sn_pool_slot(p, index) + p->layout.in_use, &in_use, sizeof in_use);
  if (sn_pool_retired(p, index)) {
    sn_pool_set_link(p, index, SN_POOL_NULL);
  } else {
    sn_pool_set_link(p, index, *p->free);
    *p->free = index;
  }
  if (p->live != NULL) *p->live -= 1;
}

bool sn_pool_is_live(const sn_pool *p, int32_t index1, uint16_t generation) {
  if (index1 < 1 || index1 > *p->count) return false;
  return sn_pool_in_use(p, index1 - 1) && sn_pool_generation(p, index1 - 1) == generation;
}

int32_t sn_pool_next(const sn_pool *p, int32_t index) {
  for (int32_t i = index + 1; i < *p->count; ++i)
    if (sn_pool_in_use(p, i)) return i;
  return SN_POOL_NULL;
}

bool sn_pool_check(const sn_pool *p, const char *label, char *msg, size_t cap) {
  const int32_t count = *p->count;
  int32_t used = 0, retired = 0, listed = 0;
  for (int32_t i = 0; i < count; ++i) {
    used += sn_pool_in_use(p, i) ? 1 : 0;
    retired += sn_pool_retired(p, i) ? 1 : 0;
  }
  if (p->live != NULL && used != *p->live) {
    snprintf(msg, cap, "%s: count says %d live, %d slots in use", label, (int)*p->live, (int)used);
    return false;
  }
  /* a retired slot on the list would be reused and its generation wrap,
   * reviving its old ids: that is damage */
  const int32_t reusable = count - used - retired;
  for (int32_t i = *p->free; i != SN_POOL_NULL; i = sn_pool_link(p, i)) {
    if (i < 0 || i >= count || sn_pool_in_use(p, i) || sn_pool_retired(p, i) || ++listed > reusable) {
      snprintf(msg, cap, "%s: broken free list", label);
      return false;
    }
  }
  if (listed != reusable) {
    snprintf(msg, cap, "%s: %d reusable free slots, %d on the free list", label, (int)reusable, (int)listed);
    return false;
  }
  return true;
}
