#include "base/order.h"

#include <float.h>

#include "base/math.h"

/* v's low 16 bits spread to the even places. */
static uint32_t sn_spread_bits(uint32_t v) {
  v &= 0xFFFFu;
  v = (v | v << 8) & 0x00FF00FFu;
  v = (v | v << 4) & 0x0F0F0F0Fu;
  v = (v | v << 2) & 0x33333333u;
  return (v | v << 1) & 0x55555555u;
}

sn_morton_grid sn_morton_grid_over(sn_vec2 lo, sn_vec2 hi) {
  const float extent = sn_maxf(hi.x - lo.x, hi.y - lo.y);
  return (sn_morton_grid){lo, extent > 0.0f && extent < FLT_MAX ? 65535.0f / extent : 0.0f};
}

uint32_t sn_morton_code(const sn_morton_grid *grid, sn_vec2 p) {
  const float x = sn_clampf((p.x - grid->lo.x) * grid->scale, 0.0f, 65535.0f);
  const float y = sn_clampf((p.y - grid->lo.y) * grid->scale, 0.0f, 65535.0f);
  return sn_spread_bits((uint32_t)x) | sn_spread_bits((uint32_t)y) << 1;
}

void sn_radix_sort_high(uint64_t *keys, uint64_t *scratch, int32_t n) {
  uint64_t *from = keys, *to = scratch;
  for (int shift = 32; shift < 64; shift += 8) {
    int32_t counts[257] = {0};
    for (int32_t i = 0; i < n; ++i) counts[((from[i] >> shift) & 0xFFu) + 1] += 1;
    for (int32_t d = 0; d < 256; ++d) counts[d + 1] += counts[d];
    for (int32_t i = 0; i < n; ++i) to[counts[(from[i] >> shift) & 0xFFu]++] = from[i];
    uint64_t *t = from;
    from = to;
    to = t;
  }
}
