/* Growable arrays and the pair hash set (internal). */
#include "base/array.h"

#include <string.h>

#include "base/pair_set.h"

bool sn_array_grow(sn_mem *mem, void **data, int32_t *capacity, size_t elem_size, int32_t min_capacity) {
  if (min_capacity <= *capacity) return true;
  int32_t cap = *capacity > 0 ? *capacity : 8;
  while (cap < min_capacity) cap += cap / 2 + 1;
  void *p = sn_mem_realloc(mem, *data, (size_t)*capacity * elem_size, (size_t)cap * elem_size);
  if (p == NULL) return false;
  *data = p;
  *capacity = cap;
  return true;
}

static uint32_t sn_pair_hash(uint64_t key) {
  /* 64-bit finaliser (splitmix64 style mixing) */
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ull;
  key ^= key >> 33;
  return (uint32_t)key;
}

/* Bytes of a table of capacity slots: the keys, then the values. */
static size_t sn_pair_set_bytes(uint32_t capacity) { return (size_t)capacity * (sizeof(uint64_t) + sizeof(int32_t)); }

void sn_pair_set_destroy(sn_pair_set *set, sn_mem *mem) {
  sn_mem_free(mem, set->keys, sn_pair_set_bytes(set->capacity));
  memset(set, 0, sizeof(*set));
}

/* The slot holding key, or -1. */
static int64_t sn_pair_set_slot(const sn_pair_set *set, uint64_t key) {
  if (set->capacity == 0) return -1;
  uint32_t mask = set->capacity - 1;
  for (uint32_t i = sn_pair_hash(key) & mask;; i = (i + 1) & mask) {
    if (set->keys[i] == key) return i;
    if (set->keys[i] == 0) return -1;
  }
}

int32_t sn_pair_set_find(const sn_pair_set *set, uint64_t key) {
  int64_t i = sn_pair_set_slot(set, key);
  return i < 0 ? -1 : set->values[i];
}

bool sn_pair_set_contains(const sn_pair_set *set, uint64_t key) { return sn_pair_set_slot(set, key) >= 0; }

void sn_pair_set_prefetch(const sn_pair_set *set, uint64_t key) {
  if (set->capacity == 0) return;
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(set->keys + (sn_pair_hash(key) & (set->capacity - 1)));
#else
  (void)key;
#endif
}

static void sn_pair_set_insert_raw(uint64_t *keys, int32_t *values, uint32_t capacity, uint64_t key, int32_t value) {
  uint32_t mask = capacity - 1;
  uint32_t i = sn_pair_hash(key) & mask;
  while (keys[i] != 0) i = (i + 1) & mask;
  keys[i] = key;
  values[i] = value;
}

bool sn_pair_set_add(sn_pair_set *set, sn_mem *mem, uint64_t key, int32_t value) {
  if (2u * (set->count + 1u) > set->capacity) {
    uint32_t cap = set->capacity ? 2u * set->capacity : 64u;
    uint64_t *keys = sn_mem_calloc(mem, sn_pair_set_bytes(cap));
    if (keys == NULL) return false;
    int32_t *values = (int32_t *)(void *)(keys + cap);
    for (uint32_t i = 0; i < set->capacity; ++i) {
      if (set->keys[i] != 0) sn_pair_set_insert_raw(keys, values, cap, set->keys[i], set->values[i]);
    }
    sn_mem_free(mem, set->keys, sn_pair_set_bytes(set->capacity));
    set->keys = keys;
    set->values = values;
    set->capacity = cap;
  }
  sn_pair_set_insert_raw(set->keys, set->values, set->capacity, key, value);
  set->count += 1;
  return true;
}

bool sn_pair_set_assign(sn_pair_set *set, uint64_t key, int32_t value) {
  int64_t i = sn_pair_set_slot(set, key);
  if (i < 0) return false;
  set->values[i] = value;
  return true;
}

bool sn_pair_set_remove(sn_pair_set *set, uint64_t key) {
  int64_t found = sn_pair_set_slot(set, key);
  if (found < 0) return false;
  uint32_t mask = set->capacity - 1;
  /* backward-shift: move later entries of the probe run into the hole */
  uint32_t hole = (uint32_t)found;
  for (uint32_t j = (hole + 1) & mask; set->keys[j] != 0; j = (j + 1) & mask) {
    uint32_t home = sn_pair_hash(set->keys[j]) & mask;
    /* entry j may move to hole if hole lies cyclically in [home, j) */
    bool movable = (j > hole) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      set->keys[hole] = set->keys[j];
      set->values[hole] = set->values[j];
      hole = j;
    }
  }
  set->keys[hole] = 0;
  set->values[hole] = 0;
  set->count -= 1;
  return true;
}
