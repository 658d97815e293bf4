/* The support point of a point set (internal): GJK's support function, also
 * the corner-to-corner manifold's. */
#ifndef SN_COLLISION_SUPPORT_H
#define SN_COLLISION_SUPPORT_H

#include "base/math.h"

/// Index of the point furthest along d (the first one on ties, for
/// determinism).
static inline int32_t sn_support_index(const sn_vec2 *points, int32_t count, sn_vec2 d) {
  int32_t best = 0;
  float best_value = sn_dot(points[0], d);
  for (int32_t i = 1; i < count; ++i) {
    float value = sn_dot(points[i], d);
    if (value > best_value) {
      best = i;
      best_value = value;
    }
  }
  return best;
}

#endif /* SN_COLLISION_SUPPORT_H */
