/* Slot pools (internal): the one allocator behind every object kind's ids.
 *
 * A pool works on an existing growable array (SN_ARRAY) whose elements carry
 * three bookkeeping fields at offsets the layout names: bool in_use, uint16_t
 * generation (optional) and int32_t next_free. Free slots form a LIFO list
 * from a head the owner keeps; an id names a slot by index1 = slot + 1 and
 * the slot's generation, which each acquisition of the slot bumps.
 *
 * A slot whose generation reached SN_GENERATION_SPENT is retired when
 * released: the next acquisition would wrap its generation and make old ids
 * of the slot valid again. It stays free forever, off the free list. Kinds
 * without a generation (ids never name them) are never retired. */
#ifndef SN_BASE_POOL_H
#define SN_BASE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"

/// The generation at which a released slot retires (see above).
#define SN_GENERATION_SPENT UINT16_MAX

/// sn_pool_layout.generation of a kind without generations.
#define SN_POOL_NO_GENERATION SIZE_MAX

/// Where an element keeps its bookkeeping.
typedef struct sn_pool_layout {
  size_t size;       ///< bytes of one element
  size_t in_use;     ///< offset of its bool in_use
  size_t generation; ///< offset of its uint16_t generation, or SN_POOL_NO_GENERATION
  size_t next_free;  ///< offset of its int32_t free link
} sn_pool_layout;

#define SN_POOL_LAYOUT(type)                                                                                           \
  ((sn_pool_layout){sizeof(type), offsetof(type, in_use), offsetof(type, generation), offsetof(type, next_free)})
#define SN_POOL_LAYOUT_NO_GENERATION(type)                                                                             \
  ((sn_pool_layout){sizeof(type), offsetof(type, in_use), SN_POOL_NO_GENERATION, offsetof(type, next_free)})

/// A view of one kind's slots: pointers into the owner's array and counters.
typedef struct sn_pool {
  sn_mem *mem;
  void **data;       ///< the array's elements
  int32_t *count;    ///< slots ever made (live, free and retired)
  int32_t *capacity; ///< slots the array has room for
  int32_t *free;     ///< head of the free list, SN_NULL_INDEX (-1) if empty
  int32_t *live;     ///< slots in use, or NULL if the owner does not count them
  sn_pool_layout layout;
} sn_pool;

/// The pool over array `arr` (an SN_ARRAY) with free list head `free_head`
/// (an int32_t lvalue) and live counter `live` (int32_t *, or NULL).
#define SN_POOL(mem, arr, free_head, live, layout)                                                                     \
  ((sn_pool){(mem), (void **)&(arr).data, &(arr).count, &(arr).capacity, &(free_head), (live), layout})

/// Room for n more acquisitions without allocating (free slots count: for a
/// kind without generations whose owner counts the live slots, from the
/// counters; else by a walk of the free list). False on OOM or index
/// overflow (nothing changed).
bool sn_pool_reserve(const sn_pool *p, int32_t n);

/// A slot for a new object, or SN_NULL_INDEX (-1) on OOM (nothing changed).
/// The last released slot comes first (LIFO), else a new slot at the end.
/// The slot comes zeroed but for its bookkeeping: in use, generation one
/// past its last (1 for a new slot), next_free -1. Counts one live slot.
int32_t sn_pool_acquire(const sn_pool *p);

/// Frees slot `index` (in use): onto the free list, or retired if its
/// generation is spent. Counts one live slot less. The rest of the element
/// is left as it is.
void sn_pool_release(const sn_pool *p, int32_t index);

/// Whether the id (index1 = slot + 1, generation) names a slot in use.
bool sn_pool_is_live(const sn_pool *p, int32_t index1, uint16_t generation);

/// The first slot in use after `index` (start from -1), or SN_NULL_INDEX.
int32_t sn_pool_next(const sn_pool *p, int32_t index);

/// Slots on the free list.
int32_t sn_pool_free_count(const sn_pool *p);

/// The generation of slot `index` (0 for a kind without generations).
uint16_t sn_pool_generation(const sn_pool *p, int32_t index);

/// Whether the slots' bookkeeping holds together (a restored pool): the free
/// list holds every free slot that is not retired, each once and no other,
/// and the live counter (if any) is the number of slots in use. Otherwise
/// false with the reason in msg (cap bytes), naming `label`.
bool sn_pool_check(const sn_pool *p, const char *label, char *msg, size_t cap);

#endif /* SN_BASE_POOL_H */
