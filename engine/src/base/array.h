/* Growable arrays through the world allocator (internal). Growth happens
 * only outside the substep loop. */
#ifndef SN_BASE_ARRAY_H
#define SN_BASE_ARRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"

#define SN_ARRAY(T)                                                                                                    \
  struct {                                                                                                             \
    T *data;                                                                                                           \
    int32_t count;                                                                                                     \
    int32_t capacity;                                                                                                  \
  }

/// Makes room for at least min_capacity elements. False on OOM (array intact).
bool sn_array_grow(sn_mem *mem, void **data, int32_t *capacity, size_t elem_size, int32_t min_capacity);

#define sn_array_reserve(mem, arr, n)                                                                                  \
  ((n) <= (arr).capacity || sn_array_grow((mem), (void **)&(arr).data, &(arr).capacity, sizeof(*(arr).data), (n)))

/// Appends v; evaluates to false on OOM.
#define sn_array_push(mem, arr, v)                                                                                     \
  (sn_array_reserve(mem, arr, (arr).count + 1) ? ((arr).data[(arr).count++] = (v), true) : false)

#define sn_array_free(mem, arr)                                                                                        \
  do {                                                                                                                 \
    sn_mem_free((mem), (arr).data, (size_t)(arr).capacity * sizeof(*(arr).data));                                      \
    (arr).data = NULL;                                                                                                 \
    (arr).count = (arr).capacity = 0;                                                                                  \
  } while (0)

#endif /* SN_BASE_ARRAY_H */
