/* Engine memory: every byte goes through the world's sn_allocator, counted.
 * Per-step scratch comes from an arena (sn_arena) that is reset each step. */
#ifndef SN_BASE_ALLOC_H
#define SN_BASE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "sinew/types.h"

/// Allocator with a live byte counter. No global state: one per world.
typedef struct sn_mem {
  sn_allocator user; ///< alloc/free of the user (or malloc/free)
  size_t live_bytes; ///< bytes currently allocated
  size_t peak_bytes;
  size_t live_blocks;
  /// Nonzero while nothing may be allocated: the part of a step after its
  /// reservations (world/step.c). Debug builds assert it in sn_mem_alloc.
  int32_t forbid;
} sn_mem;

void sn_mem_init(sn_mem *mem, const sn_allocator *user);
/// Returns NULL on failure (size 0 returns NULL too).
void *sn_mem_alloc(sn_mem *mem, size_t size);
/// Zeroed memory.
void *sn_mem_calloc(sn_mem *mem, size_t size);
/// Frees memory of the given size (NULL is fine).
void sn_mem_free(sn_mem *mem, void *ptr, size_t size);
/// Grows or shrinks; on failure returns NULL and keeps the old block.
void *sn_mem_realloc(sn_mem *mem, void *ptr, size_t old_size, size_t new_size);

/// A grow-only scratch block kept between steps (no allocation once warm).
typedef struct sn_scratch {
  void *data;
  size_t bytes;
} sn_scratch;

/// Makes s at least `bytes` long (contents not kept). False on OOM.
bool sn_scratch_reserve(sn_mem *mem, sn_scratch *s, size_t bytes);
void sn_scratch_free(sn_mem *mem, sn_scratch *s);

/// Bump arena for per-step scratch. Grows only between steps (sn_arena_reserve).
typedef struct sn_arena {
  char *data;
  size_t capacity;
  size_t used;
  size_t high_water; ///< largest use since the last reserve, to size the next
  size_t reserved;   ///< bytes the last sn_arena_reserve asked for
  /// Allocations past `reserved` (those past the capacity fail): a
  /// reservation that missed a part, as the step's sum of its modules'
  /// scratch bytes would (world/step.c). Tests hold it at zero.
  int64_t misses;
} sn_arena;

void sn_arena_init(sn_arena *arena);
void sn_arena_destroy(sn_arena *arena, sn_mem *mem);
/// Makes sure capacity >= bytes (outside the substep loop). Returns false on OOM.
bool sn_arena_reserve(sn_arena *arena, sn_mem *mem, size_t bytes);
/// 16-byte aligned bump allocation; NULL if the capacity is exceeded
/// (counted in misses, as is every allocation past the reservation).
void *sn_arena_alloc(sn_arena *arena, size_t size);
static inline void sn_arena_reset(sn_arena *arena) { arena->used = 0; }

#endif /* SN_BASE_ALLOC_H */
