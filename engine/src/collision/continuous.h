/* Continuous collision (internal): continuous.c. */
#ifndef SN_COLLISION_CONTINUOUS_H
#define SN_COLLISION_CONTINUOUS_H

#include <stddef.h>

#include "collision/distance.h"
#include "sinew/sinew.h"

typedef struct sn_body sn_body;

/// A moving body's motion over the step, noted by the write back
/// (sn_toi_note_body) for continuous collision's first test of a candidate:
/// most candidates move with the swept body (a crowd flung or tumbling
/// together) and are passed over by the relative motion alone
/// (sn_toi_relatively_slow), which this gives without reading the body.
typedef struct sn_toi_motion {
  sn_vec2 c1, c2; ///< its centre of mass at the step's start and end
  float turn;     ///< the bound on its turn over the step (sn_turn_bound)
  int32_t body;   ///< its body index
  bool fast;      ///< sn_body.is_fast
  bool stopped;   ///< continuous collision stopped it (this step)
} sn_toi_motion;

/// Which noted motion a shape moves with: its body's awake index, valid in
/// the step whose stamp it carries (sn_world.toi_stamp), and the shape's
/// inner radius when its body is fast (the wider limit between two fast
/// bodies, sn_toi_relatively_slow).
typedef struct sn_toi_owner {
  int32_t awake;
  uint32_t stamp;
  float inner;
} sn_toi_owner;

/// Before the write back (one thread): a new stamp for the owners it
/// notes, the owners' entries up to every shape set to none first
/// (reserved by the step when the step before had fast bodies,
/// sn_world.toi_had_fast: allocates nothing). When the stamp wraps, every
/// entry is cleared. Sets sn_world.toi_notes when the notes are taken.
void sn_toi_begin_notes(sn_world *w);
/// The write back's note of awake body k (index bi) as the step leaves it.
void sn_toi_note_body(sn_world *w, int32_t k, int32_t bi, const sn_body *b);
/// The write back's note of shape si of awake body k.
void sn_toi_note_shape(sn_world *w, int32_t k, int32_t si, bool fast);

/// Sweeps the awake bodies the write back found fast (sn_body.is_fast), in
/// body order, and stops each at its first time of impact; those not
/// stopped that met a body stopped after their sweep go once more against
/// the stopped ones. With workers, the bodies are swept ahead in parallel
/// and those that met no fast body keep that result (the same for any
/// worker count). Takes its scratch from the world's arena
/// (sn_continuous_scratch_bytes, reserved by the step): allocates nothing.
/// Bodies held by rigid joints to a stopped body stop with it
/// (sn_toi_stop_joined): each body so moved gets post[k] |= moved (k its
/// awake index), so that its shapes' boxes follow.
/// any_fast false (the write back found no fast body): nothing to sweep, the
/// pass's counters are cleared.
void sn_continuous_solve(sn_world *w, uint8_t *post, uint8_t moved, bool any_fast);
/// Can the cores of two swept proxies come within radius (the sum of the
/// proxies' radii) plus the time of impact's slop? A proxy's core points
/// stay within reach of its sweep's centre of mass. A moves along
/// sweep_a until split (in (0, 1]) and rests at sweep_a.c2 after; B moves
/// along sweep_b. False only when sn_time_of_impact cannot hit: the cheap
/// test before it.
bool sn_continuous_may_touch(sn_sweep sweep_a, float reach_a, float split_a, sn_sweep sweep_b, float reach_b,
                             float radius);
/// Can they for some split? False only when sn_continuous_may_touch is
/// false for every split in (0, 1], A's sweep cut there (a body stopped at
/// that fraction): the centres' segments stay farther apart than the
/// reaches, the radius and three slops.
bool sn_continuous_may_touch_any_split(sn_sweep sweep_a, float reach_a, sn_sweep sweep_b, float reach_b, float radius);
/// Can sn_time_of_impact_with (proxy_b's rotation term rotation_b, any
/// near limit) of proxy_b (geometry geom_b) swept by sweep_b against
/// proxy_a (geom_a, sweep_a) up to max_fraction give anything but
/// SN_TOI_SEPARATED at max_fraction (or SN_TOI_NEAR)? reach_a and reach_b
/// are the cores' reaches from their centres of mass. False only when the
/// cores start farther apart (a bound from each core against the other's
/// centre and reach) than every point can close over the fraction: a long
/// body turning meets many shapes far from it inside its swept box.
bool sn_continuous_may_close(const sn_geometry *geom_a, const sn_shape_proxy *proxy_a, const sn_sweep *sweep_a,
                             float reach_a, const sn_geometry *geom_b, const sn_shape_proxy *proxy_b,
                             const sn_sweep *sweep_b, float reach_b, float rotation_b, float max_fraction);
/// The farthest core point of g from center, and in *radius the core's
/// rounding: what sn_geometry_proxy(g) gives (its points' farthest, by
/// squared distance then one square root), without building the proxy.
float sn_geometry_core_reach(const sn_geometry *g, sn_vec2 center, float *radius);
/// Arena bytes sn_continuous_solve may use: the sweeps ahead and the bodies
/// each fast body met, for every body that may be awake.
size_t sn_continuous_scratch_bytes(const sn_world *w);

#endif /* SN_COLLISION_CONTINUOUS_H */
