/* The world's slot pools, one per object kind (internal; base/pool.h). */
#ifndef SN_WORLD_WORLD_POOL_H
#define SN_WORLD_WORLD_POOL_H

#include "base/pool.h"
#include "world/world.h"

static inline sn_pool sn_body_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->bodies, w->body_free, &w->body_count, SN_POOL_LAYOUT(sn_body));
}
static inline sn_pool sn_shape_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->shapes, w->shape_free, &w->shape_count, SN_POOL_LAYOUT(sn_shape));
}
/// Chains are not counted.
static inline sn_pool sn_chain_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->chains, w->chain_free, NULL, SN_POOL_LAYOUT(sn_chain));
}
/// Contacts have no ids, so no generation.
static inline sn_pool sn_contact_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->contacts, w->contact_free, &w->contact_count, SN_POOL_LAYOUT_NO_GENERATION(sn_contact));
}
static inline sn_pool sn_particle_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->particles, w->particle_free, &w->particle_count, SN_POOL_LAYOUT(sn_particle));
}
static inline sn_pool sn_soft_body_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->soft_bodies, w->soft_free, &w->soft_count, SN_POOL_LAYOUT(sn_soft_body));
}
static inline sn_pool sn_constraint_pool(sn_world *w) {
  return SN_POOL(&w->mem, w->constraints, w->constraint_free, &w->constraint_count, SN_POOL_LAYOUT(sn_constraint));
}

/// Whether n more objects fit in `pool` under the world's limit of `max`
/// live ones (the sn_world_def field `limit`); allocates nothing. `kind` is
/// the plural noun of the message, `fn` (or NULL) its prefix. False with
/// SN_ERR_CAPACITY set when they do not.
bool sn_world_limit_ok(sn_world *w, const sn_pool *pool, int64_t n, int32_t max, const char *limit, const char *kind,
                       const char *fn);
/// Room for n more objects in `pool` before a create call changes anything:
/// sn_world_limit_ok, then memory for n more slots (SN_ERR_OUT_OF_MEMORY
/// set when it fails; nothing else changes either way).
bool sn_world_make_room(sn_world *w, const sn_pool *pool, int64_t n, int32_t max, const char *limit, const char *kind,
                        const char *fn);

static inline bool sn_pool_holds(sn_pool pool, int32_t index1, uint16_t generation) {
  return sn_pool_is_live(&pool, index1, generation);
}
/// Whether the id (index1, world_tag, generation) names a live slot of the
/// pool `pool_fn` (sn_body_pool, ...) gives for w (NULL: false).
#define SN_POOL_ID_LIVE(w, pool_fn, id)                                                                                \
  ((w) != NULL && (id).world_tag == (w)->tag && sn_pool_holds(pool_fn(w), (id).index1, (id).generation))

#endif /* SN_WORLD_WORLD_POOL_H */
