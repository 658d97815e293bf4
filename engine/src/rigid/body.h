/* Rigid bodies (internal): the body object, kept in the world's body array
 * (world/world.h), and what body.c does with it. */
#ifndef SN_RIGID_BODY_H
#define SN_RIGID_BODY_H

#include <stdbool.h>
#include <stdint.h>

#include "sinew/sinew.h"

typedef struct sn_body {
  sn_body_type type;
  uint16_t generation;
  bool in_use;
  bool is_awake;
  bool enable_sleep;
  bool is_bullet;
  bool fixed_rotation;
  bool is_fast;  ///< moved far this step: continuous collision candidate
  bool frozen;   ///< state went non-finite: kept out of the solver until teleported
  bool disabled; ///< sn_body_disable: no proxies, no contacts, never awake, its constraints idle
  /// check_plugins: the plugin callback that first made this step's state
  /// non-finite (sn_plugin_callback + 1, 0 none) and its constraint slot
  uint8_t blamed_callback;
  int32_t blamed_constraint;
  /// constraints that join it (a body destroyed looks for that many; a
  /// snapshot's loader counts them again)
  int32_t constraint_count;

  sn_transform xf;      ///< body origin
  sn_vec2 center;       ///< world centre of mass
  sn_vec2 center0;      ///< centre of mass at the start of the step
  sn_rot q0;            ///< rotation at the start of the step
  sn_vec2 local_center; ///< centre of mass in the body frame
  sn_vec2 v;            ///< velocity of the centre of mass
  float w;
  sn_vec2 force;
  float torque;

  float mass, inv_mass;
  float inertia, inv_inertia; ///< about the centre of mass
  float min_extent, max_extent;
  /// |local_center| + max_extent: how far a shape point reaches from the body
  /// origin at most (set with max_extent; the narrowphase's manifold reuse)
  float origin_reach;
  float linear_damping, angular_damping, gravity_scale;
  float sleep_time;
  float sleep_threshold; ///< m/s (sn_body_def.sleep_threshold)
  /// continuous collision, within a step: the fraction of the step's motion
  /// a fast body kept (1 until the continuous pass stops it earlier)
  float toi_fraction;
  bool toi_recheck; ///< continuous collision: met a fast body not stopped yet (collision/continuous.c)
  sn_vec2 sleep_v;  ///< velocity when the sleep timer last started (a body whose
  float sleep_w;    ///< velocity changes since then is accelerating: no sleep)

  int32_t shape_list; ///< first shape, linked by sn_shape.next
  int32_t shape_tail; ///< last shape of the list: a hint, checked before use (sn_shape_alloc)
  int32_t shape_count;
  /* The shapes' mass, first moment and inertia about the origin summed in
   * list order, as sn_body_update_mass sums them: a shape appended to the
   * list adds its share (same bits as summing again). Valid while
   * mass_sums_valid (cleared when a shape leaves or changes density). */
  float mass_sum, inertia_sum;
  sn_vec2 moment_sum;
  bool mass_sums_valid;
  bool extent_stale;    ///< max_extent waits for sn_body_refresh_extents (the centre of mass moved)
  int32_t contact_list; ///< first edge key, SN_NULL_INDEX if none
  int32_t contact_count;
  int32_t sleep_next;   ///< next body of the same sleeping island
  int32_t solver_index; ///< index in the step's solver arrays, or SN_NULL_INDEX
  int32_t next_free;
  void *user_data;
} sn_body;

/// Resolves a handle; NULL (with the error recorded) if stale or foreign.
sn_body *sn_get_body(sn_world *w, sn_body_id id, sn_result *code);
/// Mass, centre of mass, inertia and extents from all the body's shapes.
void sn_body_update_mass(sn_world *w, sn_body *b);
/// The same after shape_index was appended to the body's list: O(1) while
/// the body's running sums are valid (the same bits as sn_body_update_mass),
/// max_extent then left to sn_body_refresh_extents.
void sn_body_add_shape_mass(sn_world *w, sn_body *b, int32_t shape_index);
/// Brings every body's max_extent up to date (before anything reads it: the
/// step's first stage, a snapshot).
void sn_body_refresh_extents(sn_world *w);
void sn_body_wake(sn_world *w, int32_t body_index);
void sn_body_put_to_sleep(sn_world *w, int32_t first_body);
/// A body in use, moving (not static), enabled and asleep: what
/// sn_world.bodies_may_sleep stands for.
static inline bool sn_body_asleep(const sn_body *b) {
  return b->in_use && b->type != SN_BODY_STATIC && !b->is_awake && !b->disabled;
}

#endif /* SN_RIGID_BODY_H */
