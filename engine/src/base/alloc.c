/* Counted allocation through the world's allocator, and the step arena. */
#include "base/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void *sn_default_alloc(size_t size, void *context) {
  (void)context;
  return malloc(size);
}

static void sn_default_free(void *memory, size_t size, void *context) {
  (void)size;
  (void)context;
  free(memory);
}

void sn_mem_init(sn_mem *mem, const sn_allocator *user) {
  memset(mem, 0, sizeof(*mem));
  if (user != NULL && user->alloc != NULL && user->free != NULL) {
    mem->user = *user;
  } else {
    mem->user.alloc = sn_default_alloc;
    mem->user.free = sn_default_free;
    mem->user.context = NULL;
  }
}

void *sn_mem_alloc(sn_mem *mem, size_t size) {
  if (size == 0) return NULL;
  assert(mem->forbid == 0 && "allocation after the step reserved its memory");
  void *p = mem->user.alloc(size, mem->user.context);
  if (p == NULL) return NULL;
  mem->live_bytes += size;
  mem->live_blocks += 1;
  if (mem->live_bytes > mem->peak_bytes) mem->peak_bytes = mem->live_bytes;
  return p;
}

void *sn_mem_calloc(sn_mem *mem, size_t size) {
  void *p = sn_mem_alloc(mem, size);
  if (p != NULL) memset(p, 0, size);
  return p;
}

void sn_mem_free(sn_mem *mem, void *ptr, size_t size) {
  if (ptr == NULL) return;
  mem->user.free(ptr, size, mem->user.context);
  mem->live_bytes -= size;
  mem->live_blocks -= 1;
}

void *sn_mem_realloc(sn_mem *mem, void *ptr, size_t old_size, size_t new_size) {
  if (new_size == 0) {
    sn_mem_free(mem, ptr, old_size);
    return NULL;
  }
  void *p = sn_mem_alloc(mem, new_size);
  if (p == NULL) return NULL;
  if (ptr != NULL) {
    memcpy(p, ptr, old_size < new_size ? old_size : new_size);
    sn_mem_free(mem, ptr, old_size);
  }
  return p;
}

void sn_arena_init(sn_arena *arena) { memset(arena, 0, sizeof(*arena)); }

void sn_arena_destroy(sn_arena *arena, sn_mem *mem) {
  sn_mem_free(mem, arena->data, arena->capacity);
  memset(arena, 0, sizeof(*arena));
}

bool sn_arena_reserve(sn_arena *arena, sn_mem *mem, size_t bytes) {
  arena->used = 0;
  arena->reserved = bytes;
  if (bytes <= arena->capacity) return true;
  size_t cap = arena->capacity ? arena->capacity : 4096;
  while (cap < bytes) cap += cap / 2;
  char *data = sn_mem_alloc(mem, cap);
  if (data == NULL) return false;
  sn_mem_free(mem, arena->data, arena->capacity);
  arena->data = data;
  arena->capacity = cap;
  return true;
}

void *sn_arena_alloc(sn_arena *arena, size_t size) {
  size_t aligned = (size + 15u) & ~(size_t)15u;
  if (arena->used + aligned > arena->reserved) arena->misses += 1;
  if (arena->used + aligned > arena->capacity) return NULL;
  void *p = arena->data + arena->used;
  arena->used += aligned;
  if (arena->used > arena->high_water) arena->high_water = arena->used;
  return p;
}

bool sn_scratch_reserve(sn_mem *mem, sn_scratch *s, size_t bytes) {
  if (bytes <= s->bytes) return true;
  size_t want = bytes + bytes / 2 + 64;
  void *p = sn_mem_alloc(mem, want);
  if (p == NULL) return false;
  sn_mem_free(mem, s->data, s->bytes);
  s->data = p;
  s->bytes = want;
  return true;
}

void sn_scratch_free(sn_mem *mem, sn_scratch *s) {
  sn_mem_free(mem, s->data, s->bytes);
  s->data = NULL;
  s->bytes = 0;
}
