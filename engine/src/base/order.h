/* Orders in space (internal): Morton codes and a radix sort on them, for
 * grouping neighbours whose own order (bodies, moved shapes) has scattered. */
#ifndef SN_BASE_ORDER_H
#define SN_BASE_ORDER_H

#include <stdint.h>

#include "sinew/types.h"

/// A grid of 2^16 x 2^16 cells over a box of points.
typedef struct sn_morton_grid {
  sn_vec2 lo;  ///< the box's lower corner
  float scale; ///< cells per metre along the box's longer side (0: one cell)
} sn_morton_grid;

/// The grid over the points between lo and hi (square cells; a huge or
/// non-finite extent gives one cell: the order is coarser, never wrong).
sn_morton_grid sn_morton_grid_over(sn_vec2 lo, sn_vec2 hi);

/// The Morton code of the cell holding p (the bits of its column on the even
/// places, those of its row on the odd ones; points outside go to the edge).
uint32_t sn_morton_code(const sn_morton_grid *grid, sn_vec2 p);

/// Sorts keys[0, n) by their high 32 bits, stable (equal high halves keep
/// their order): four byte-wise passes through scratch (n entries, not
/// overlapping keys), so the result ends in keys.
void sn_radix_sort_high(uint64_t *keys, uint64_t *scratch, int32_t n);

#endif /* SN_BASE_ORDER_H */
