/* Hash map from an unordered pair of indices to a value (internal): open
 * addressing, linear probing, backward-shift deletion (no tombstones). The
 * keys lie apart from the values, eight to a cache line: a lookup that only
 * asks whether a pair is there (the pair search's, nearly all of them hits
 * scattered over the table) reads key lines alone, and the table's keys are
 * half the memory a key beside its value would take. */
#ifndef SN_BASE_PAIR_SET_H
#define SN_BASE_PAIR_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"

typedef struct sn_pair_set {
  uint64_t *keys;    ///< 0 = empty
  int32_t *values;   ///< values[i] is keys[i]'s (after the keys, in the same block)
  uint32_t capacity; ///< power of two
  uint32_t count;
} sn_pair_set;

static inline uint64_t sn_pair_key(int32_t a, int32_t b) {
  uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
  /* +1 so that the pair (0, 0) is not the empty key */
  return ((uint64_t)(hi + 1u) << 32) | (uint64_t)(lo + 1u);
}

void sn_pair_set_destroy(sn_pair_set *set, sn_mem *mem);
/// Value for key, or -1.
int32_t sn_pair_set_find(const sn_pair_set *set, uint64_t key);
/// Whether key is present (reads no value).
bool sn_pair_set_contains(const sn_pair_set *set, uint64_t key);
/// Starts fetching the line where a lookup of key begins (a hint: nothing
/// changes), so that a batch of lookups waits for memory once, not each time.
void sn_pair_set_prefetch(const sn_pair_set *set, uint64_t key);
/// Inserts (key must be new). False on OOM.
bool sn_pair_set_add(sn_pair_set *set, sn_mem *mem, uint64_t key, int32_t value);
/// Gives key (present) the value; false if it is not there.
bool sn_pair_set_assign(sn_pair_set *set, uint64_t key, int32_t value);
/// Removes key if present; returns whether it was.
bool sn_pair_set_remove(sn_pair_set *set, uint64_t key);

#endif /* SN_BASE_PAIR_SET_H */
