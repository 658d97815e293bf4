/* Orders in space (internal): Morton codes and a radix sort on them, for
 * grouping neighbours whose own order (bodies, moved shapes) has scattered. */
#ifndef SN_BASE_ORDER_H
#define SN_BASE_ORDER_H

#include <stdint.h>

/// The Morton code of the cell (x, y) of a 2^16 x 2^16 grid (the bits of x
/// on the even places, those of y on the odd ones; higher bits ignored).
uint32_t sn_morton_code(uint32_t x, uint32_t y);

/// Sorts keys[0, n) by their high 32 bits, stable (equal high halves keep
/// their order): four byte-wise passes through scratch (n entries, not
/// overlapping keys), so the result ends in keys.
void sn_radix_sort_high(uint64_t *keys, uint64_t *scratch, int32_t n);

#endif /* SN_BASE_ORDER_H */
