/* Enumerating soft bodies and their collision edges (for writers such as
 * the scene-file library, which saves a soft body as explicit particles,
 * edges and constraints). Declared at the end of sinew/soft.h. */
#include <string.h>

#include "world/world.h"
#include "world/world_pool.h"

int32_t sn_world_get_soft_body_count(sn_world *w) { return w ? w->soft_count : 0; }

int32_t sn_world_get_soft_bodies(sn_world *w, sn_soft_body_id *soft_bodies, int32_t capacity) {
  if (w == NULL || soft_bodies == NULL || capacity <= 0) return 0;
  int32_t n = 0;
  sn_pool pool = sn_soft_body_pool(w);
  for (int32_t i = sn_pool_next(&pool, -1); i != SN_NULL_INDEX && n < capacity; i = sn_pool_next(&pool, i))
    soft_bodies[n++] = sn_make_soft_body_id(w, i);
  return n;
}

int32_t sn_soft_body_get_edges(sn_world *w, sn_soft_body_id id, sn_particle_id *pairs, int32_t capacity) {
  if (w == NULL || pairs == NULL || capacity <= 0 || !sn_soft_body_is_valid(w, id)) return 0;
  const sn_soft_body *s = w->soft_bodies.data + (id.index1 - 1);
  int32_t n = s->edge_count < capacity ? s->edge_count : capacity;
  for (int32_t i = 0; i < n; ++i) {
    pairs[2 * i] = sn_make_particle_id(w, s->edges[2 * i]);
    pairs[2 * i + 1] = sn_make_particle_id(w, s->edges[2 * i + 1]);
  }
  return n;
}
