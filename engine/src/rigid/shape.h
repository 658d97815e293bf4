/* Shapes and chains (internal): the objects, kept in the world's arrays
 * (world/world.h), and what shape.c does with them (their proxies in the
 * world's trees). */
#ifndef SN_RIGID_SHAPE_H
#define SN_RIGID_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "sinew/sinew.h"

#include "geometry/geometry.h"

typedef struct sn_shape {
  sn_geometry geom;
  int32_t body;
  int32_t next; ///< next shape of the same body
  int32_t next_free;
  int32_t proxy; ///< node in the world's tree for its body type
  int32_t chain; ///< owning chain, or SN_NULL_INDEX
  uint16_t generation;
  bool in_use;
  bool is_static_tree; ///< proxy lives in the static tree
  bool enlarged;       ///< proxy moved: look for new pairs next step
  bool escaped;        ///< the step's write back found the AABB outside the fat one
  bool enable_contact_events;
  bool enable_hit_events;
  bool is_sensor;               ///< never collides; overlaps found once per step (world/sensor.c)
  bool enable_sensor_events;    ///< seen by sensors
  bool enable_custom_filtering; ///< new pairs go through w->custom_filter
  bool enable_pre_solve_events; ///< touching contacts go through w->pre_solve
  float density, friction, restitution;
  float rolling_resistance, tangent_speed;
  int32_t material;    ///< user material id for the mixing callbacks
  int32_t group_index; ///< collision group (sn_filter); here it fills the padding before the bits
  uint64_t category_bits, mask_bits;
  sn_aabb aabb;     ///< tight, current
  sn_aabb fat_aabb; ///< as stored in the tree
  void *user_data;
} sn_shape;

typedef struct sn_chain {
  int32_t body;
  int32_t first_shape; ///< shapes of a chain are created consecutively in a list
  int32_t *shapes;
  int32_t shape_count;
  uint16_t generation;
  bool in_use;
  int32_t next_free;
  void *user_data;
} sn_chain;

/// Resolves a handle; NULL (with the error recorded) if stale or foreign.
sn_shape *sn_get_shape(sn_world *w, sn_shape_id id, sn_result *code);
/// Inserts the shape into the tree of its body type. False (no proxy, nothing
/// changed) if the tree cannot grow.
bool sn_shape_create_proxy(sn_world *w, int32_t shape_index);
void sn_shape_destroy_proxy(sn_world *w, int32_t shape_index);
/// Moves the proxies of all shapes of a body into the static or the dynamic
/// tree, all or nothing: false (nothing changed) if memory runs out.
bool sn_shape_move_proxies(sn_world *w, int32_t body_index, bool to_static);
/// Recomputes tight AABB from the body transform; re-fattens the proxy if needed.
void sn_shape_update_aabb(sn_world *w, int32_t shape_index, sn_transform xf, bool force_move);
/// The first half of sn_shape_update_aabb, safe on many shapes at once: the
/// tight AABB only; true if it left the fat one (then sn_shape_move_proxy).
bool sn_shape_compute_aabb(sn_world *w, int32_t shape_index, sn_transform xf);
/// The second half: re-fattens the proxy, moves it in its tree, queues it
/// for new pairs (one thread). marked_only: the step's moves, after which the
/// dynamic tree is rebuilt at once (sn_tree_move_proxy_marked: no query may
/// run before that); else the ancestors grow to hold the leaf.
void sn_shape_move_proxy(sn_world *w, int32_t shape_index, bool marked_only);
void sn_shape_destroy_internal(sn_world *w, int32_t shape_index, bool wake);

#endif /* SN_RIGID_SHAPE_H */
