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

void sn_pair_set_destroy(sn_pair_set *set, sn_mem *mem) {
  sn_mem_free(mem, set->entries, (size_t)set->capacity * sizeof(sn_pair_entry));
  memset(set, 0, sizeof(*set));
}

int32_t sn_pair_set_find(const sn_pair_set *set, uint64_t key) {
  if (set->capacity == 0) return -1;
  uint32_t mask = set->capacity - 1;
  for (uint32_t i = sn_pair_hash(key) & mask;; i = (i + 1) & mask) {
    if (set->entries[i].key == key) return set->entries[i].value;
    if (set->entries[i].key == 0) return -1;
  }
}

void sn_pair_set_prefetch(const sn_pair_set *set, uint64_t key) {
  if (set->capacity == 0) return;
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(set->entries + (sn_pair_hash(key) & (set->capacity - 1)));
#else
  (void)key;
#endif
}

static void sn_pair_set_insert_raw(sn_pair_entry *entries, uint32_t capacity, uint64_t key, int32_t value) {
  uint32_t mask = capacity - 1;
  uint32_t i = sn_pair_hash(key) & mask;
  while (entries[i].key != 0) i = (i + 1) & mask;
  entries[i].key = key;
  entries[i].value = value;
}

bool sn_pair_set_add(sn_pair_set *set, sn_mem *mem, uint64_t key, int32_t value) {
  if (2u * (set->count + 1u) > set->capacity) {
    uint32_t cap = set->capacity ? 2u * set->capacity : 64u;
    sn_pair_entry *entries = sn_mem_calloc(mem, (size_t)cap * sizeof(sn_pair_entry));
    if (entries == NULL) return false;
    for (uint32_t i = 0; i < set->capacity; ++i) {
      if (set->entries[i].key != 0) sn_pair_set_insert_raw(entries, cap, set->entries[i].key, set->entries[i].value);
    }
    sn_mem_free(mem, set->entries, (size_t)set->capacity * sizeof(sn_pair_entry));
    set->entries = entries;
    set->capacity = cap;
  }
  sn_pair_set_insert_raw(set->entries, set->capacity, key, value);
  set->count += 1;
  return true;
}

bool sn_pair_set_assign(sn_pair_set *set, uint64_t key, int32_t value) {
  if (set->capacity == 0) return false;
  uint32_t mask = set->capacity - 1;
  for (uint32_t i = sn_pair_hash(key) & mask;; i = (i + 1) & mask) {
    if (set->entries[i].key == key) {
      set->entries[i].value = value;
      return true;
    }
    if (set->entries[i].key == 0) return false;
  }
}

bool sn_pair_set_remove(sn_pair_set *set, uint64_t key) {
  if (set->capacity == 0) return false;
  uint32_t mask = set->capacity - 1;
  uint32_t i = sn_pair_hash(key) & mask;
  while (set->entries[i].key != key) {
    if (set->entries[i].key == 0) return false;
    i = (i + 1) & mask;
  }
  /* backward-shift: move later entries of the probe run into the hole */
  uint32_t hole = i;
  for (uint32_t j = (i + 1) & mask; set->entries[j].key != 0; j = (j + 1) & mask) {
    uint32_t home = sn_pair_hash(set->entries[j].key) & mask;
    /* entry j may move to hole if hole lies cyclically in [home, j) */
    bool movable = (j > hole) ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      set->entries[hole] = set->entries[j];
      hole = j;
    }
  }
  set->entries[hole].key = 0;
  set->entries[hole].value = 0;
  set->count -= 1;
  return true;
}
