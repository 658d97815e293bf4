/* GJK distance, shape proxies, segment distance, and time of impact
 * (conservative advancement) for continuous collision. Internal. */
#ifndef SN_COLLISION_DISTANCE_H
#define SN_COLLISION_DISTANCE_H

#include "sinew/collision.h"

#include "geometry/geometry.h"

/// Proxy of any shape (circle: 1 point; capsule/segment: 2; polygon: n).
sn_shape_proxy sn_geometry_proxy(const sn_geometry *g);
sn_shape_proxy sn_make_proxy_points(const sn_vec2 *points, int32_t count, float radius);

/// Warm-start cache of the GJK simplex between calls (count 0 = cold).
typedef struct sn_simplex_cache {
  uint16_t count;
  uint8_t index_a[3];
  uint8_t index_b[3];
} sn_simplex_cache;

/* sn_distance_input and sn_distance_output are public (sinew/collision.h). */

/// GJK closest points. cache may be NULL.
sn_distance_output sn_shape_distance(const sn_distance_input *input, sn_simplex_cache *cache);

/// Time of impact of proxy B moving by input->translation_b against A
/// (conservative advancement on the GJK distance of the point hulls), the
/// unchecked core of sn_compute_shape_cast. The rounded shapes touch when
/// the hull distance reaches the sum of the radii; accepted within
/// sn_shape_cast_tolerance. encroach (the character mover): a pair that
/// starts closer than SN_LINEAR_SLOP to touching may go SN_LINEAR_SLOP
/// deeper than it starts before it counts as a hit, so motion along a
/// surface the proxy rests on is free; a pair whose hulls are closer than
/// that is no hit at all.
sn_cast_output sn_shape_cast(const sn_shape_cast_input *input, bool encroach);

/// Closest points between segments p1-q1 and p2-q2.
typedef struct sn_segment_distance_result {
  sn_vec2 closest1, closest2;
  float fraction1, fraction2;
  float distance_squared;
} sn_segment_distance_result;
sn_segment_distance_result sn_segment_distance(sn_vec2 p1, sn_vec2 q1, sn_vec2 p2, sn_vec2 q2);

/// Motion of a body over a step: centre of mass from c1 to c2, rotation q1 to q2.
typedef struct sn_sweep {
  sn_vec2 local_center; ///< centre of mass in body frame
  sn_vec2 c1, c2;       ///< world centre of mass at t = 0 and t = 1
  sn_rot q1, q2;
} sn_sweep;

/// Body transform at fraction t in [0, 1] of the sweep.
sn_transform sn_sweep_get_transform(const sn_sweep *sweep, float t);

typedef struct sn_toi_input {
  sn_shape_proxy proxy_a, proxy_b;
  sn_sweep sweep_a, sweep_b;
  float max_fraction; ///< usually 1
} sn_toi_input;

typedef enum sn_toi_state {
  SN_TOI_UNKNOWN = 0,
  SN_TOI_FAILED,
  SN_TOI_OVERLAPPED, ///< already closer than the target at t = 0
  SN_TOI_HIT,        ///< touching (within target separation) at fraction
  SN_TOI_SEPARATED,  ///< no contact within max_fraction
  SN_TOI_NEAR        ///< apart at t = 0 but nearer than asked (sn_time_of_impact_with): not swept
} sn_toi_state;

typedef struct sn_toi_output {
  sn_toi_state state;
  float fraction;
  float separation0; ///< surface gap at fraction 0 (negative: overlapping); 0 if not measured (SN_TOI_FAILED)
} sn_toi_output;

/// Time of impact: first fraction at which the proxies come within
/// max(SN_LINEAR_SLOP, r_a + r_b - 3 slop) ... i.e. touch with a small target gap.
sn_toi_output sn_time_of_impact(const sn_toi_input *input);
/// sn_time_of_impact with what the caller already knows. rotation_b: B's
/// term of the rotation bound, sn_sweep_rotation_reach(&input->sweep_b,
/// &input->proxy_b), for a caller that sweeps one proxy against many
/// (negative: computed here). min_separation0: a pair whose surfaces are
/// apart but nearer than this at t = 0 is not swept (SN_TOI_NEAR, with
/// separation0); -FLT_MAX sweeps every pair. Same result as
/// sn_time_of_impact otherwise, bit for bit.
sn_toi_output sn_time_of_impact_with(const sn_toi_input *input, float rotation_b, float min_separation0);
/// Bound on how fast (per unit fraction) a proxy's core points move about
/// the sweep's centre of mass as it turns: the turn rate bound of the
/// normalised interpolation times the farthest point's distance.
float sn_sweep_rotation_reach(const sn_sweep *sweep, const sn_shape_proxy *proxy);

#endif /* SN_COLLISION_DISTANCE_H */
