/* Disjoint sets over indices 0..n-1 (internal): parent[i] == i for a root.
 * The lower index of two roots becomes the root of their union, so the sets
 * and their roots do not depend on the order of the unions' calls beyond
 * the pairs given (islands, continuous collision's jointed groups). */
#ifndef SN_BASE_UNION_FIND_H
#define SN_BASE_UNION_FIND_H

#include <stdbool.h>
#include <stdint.h>

/// The root of i's set (halving the path on the way).
static inline int32_t sn_set_root(int32_t *parent, int32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/// Joins the sets of a and b; false when they were one set already.
static inline bool sn_set_join(int32_t *parent, int32_t a, int32_t b) {
  const int32_t ra = sn_set_root(parent, a), rb = sn_set_root(parent, b);
  if (ra == rb) return false;
  if (ra < rb)
    parent[rb] = ra;
  else
    parent[ra] = rb;
  return true;
}

#endif /* SN_BASE_UNION_FIND_H */
