/* Contact manifolds.
 *
 * Every collide function works in A's local frame: B is brought over with
 * inv(xf_a) * xf_b, the manifold is built there (points, normal) and
 * to_world() turns it into world points and anchors at the end. That keeps
 * the arithmetic near the origin and the code free of transforms.
 *
 * - Circles and capsules: closed forms on the closest points of the cores.
 * - Polygons: SAT on the cores (axis of least penetration on either polygon,
 *   A preferred within a tolerance), then the incident edge of the other
 *   polygon is clipped against the side planes of the reference edge.
 *   Rounded polygons whose cores are apart use the GJK closest points
 *   instead (SAT would not see the rounded corners).
 * - Chain segments are one-sided and smooth: the contact normal must lie in
 *   the part of the outline's normal cone that this segment owns, so a shape
 *   sliding over a seam never hits the neighbour's end vertex.
 *
 * Speed (the narrowphase runs this for every contact every step): the
 * narrowphase rebuilds manifolds in place (sn_collide_into) and the hot
 * pairs write world points directly instead of add_point + to_world. Two
 * quadrilaterals (boxes) bring B over, run both SAT directions and find the
 * incident edge four lanes wide (SSE2, or a lane-by-lane fallback; also
 * compiled for AVX2, used when the world's use_avx2 says the CPU has it); a
 * quadrilateral against a circle tests its edges the same way. Each lane
 * performs the scalar code's operations in its order and the argmax/argmin
 * keep the loops' first-index rule, so these paths give the general code's
 * results bit for bit (tests/test_manifold.c checks it on random poses).
 *
 * Feature ids: SN_MAKE_ID(vertex of A, vertex of B). A clipped point lies
 * at one end of the reference edge; its id pairs the reference vertex at that
 * end with the incident vertex at that end, whether or not the point was
 * clipped. The pair is the same whichever polygon is the reference (the low
 * end of one edge is the high end of the other), so a contact whose
 * reference face switches between two nearly equal axes keeps its ids and
 * its warm start. Single points from closest features use the closest
 * vertices. Ids depend on features only, so they persist while the same
 * features touch. */
#include <float.h>
#include <string.h>

#include "collision/manifold.h"
#include "collision/support.h"
#include "base/constants.h"
#include "base/math.h"
#include "base/simd4.h"

/// Forces inlining, so that callers passing constant vertex counts get the
/// loops unrolled and in-place writers get their helpers in registers. The
/// arithmetic and its order are those of the general code: the same results
/// bit for bit.
#define SN_INLINE static inline __attribute__((always_inline))

/* Four lanes for the box pair's SAT: one lane per edge of a quadrilateral.
 * Every lane performs the scalar code's operations in the scalar code's
 * order (a product sum, then a running minimum starting from FLT_MAX), so a
 * lane's result equals the scalar result bit for bit; the fallback is the
 * same lane by lane. */
#if defined(SN_F4_SSE)
/// Lane k of a in every lane (k a constant).
#define F4_SPLAT(a, k) _mm_shuffle_ps((a), (a), _MM_SHUFFLE((k), (k), (k), (k)))
/// x and y of four points, one point per lane.
static inline void f4_load_points(const sn_vec2 *p, f4 *x, f4 *y) {
  f4 lo = _mm_loadu_ps(&p[0].x), hi = _mm_loadu_ps(&p[2].x);
  *x = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  *y = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}
/// Four points back to sn_vec2.
static inline void f4_store_points(sn_vec2 *p, f4 x, f4 y) {
  _mm_storeu_ps(&p[0].x, _mm_unpacklo_ps(x, y));
  _mm_storeu_ps(&p[2].x, _mm_unpackhi_ps(x, y));
}
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SN_MANIFOLD_AVX2 1 /* the box path also compiled for AVX2 (sn_collide_into's use_avx2) */
#endif
#else
#define F4_SPLAT(a, k) f4_set((a).v[(k)])
static inline void f4_load_points(const sn_vec2 *p, f4 *x, f4 *y) {
  for (int i = 0; i < 4; ++i) {
    x->v[i] = p[i].x;
    y->v[i] = p[i].y;
  }
}
static inline void f4_store_points(sn_vec2 *p, f4 x, f4 y) {
  for (int i = 0; i < 4; ++i) p[i] = (sn_vec2){x.v[i], y.v[i]};
}
#endif

/// The first index of the largest of four values, and that value, as the
/// loop `if (x[i] > best)` from best = -FLT_MAX finds them (x[0] and
/// -FLT_MAX if none beats it).
static inline int32_t first_max4(const float *x, float *value) {
  int32_t k = 0;
  float best = -FLT_MAX;
  for (int32_t i = 0; i < 4; ++i) {
    if (x[i] > best) {
      best = x[i];
      k = i;
    }
  }
  *value = best;
  return k;
}

/// The first index of the smallest of four values, as the loop
/// `if (x[i] < lowest)` from lowest = FLT_MAX finds it.
static inline int32_t first_min4(const float *x) {
  int32_t k = 0;
  float lowest = FLT_MAX;
  for (int32_t i = 0; i < 4; ++i) {
    if (x[i] < lowest) {
      lowest = x[i];
      k = i;
    }
  }
  return k;
}

/// first_max4 on the lanes of v, without the loop when no lane is NaN and
/// the largest beats -FLT_MAX (then the first lane equal to the largest is
/// the loop's answer).
static inline int32_t f4_first_max(f4 v, float *value) {
  float x[4];
  f4_store(x, v);
#ifdef SN_F4_SSE
  f4 t = _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  t = _mm_max_ps(t, _mm_shuffle_ps(t, t, _MM_SHUFFLE(1, 0, 3, 2)));
  if (_mm_movemask_ps(_mm_cmpunord_ps(v, v)) == 0 && _mm_cvtss_f32(t) > -FLT_MAX) {
    int32_t k = __builtin_ctz((unsigned)_mm_movemask_ps(_mm_cmpeq_ps(v, t)));
    *value = x[k];
    return k;
  }
#endif
  return first_max4(x, value);
}

/// first_min4 on the lanes of v (the same shortcut).
static inline int32_t f4_first_min(f4 v) {
#ifdef SN_F4_SSE
  f4 t = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  t = _mm_min_ps(t, _mm_shuffle_ps(t, t, _MM_SHUFFLE(1, 0, 3, 2)));
  if (_mm_movemask_ps(_mm_cmpunord_ps(v, v)) == 0 && _mm_cvtss_f32(t) < FLT_MAX)
    return __builtin_ctz((unsigned)_mm_movemask_ps(_mm_cmpeq_ps(v, t)));
#endif
  float x[4];
  f4_store(x, v);
  return first_min4(x);
}

/// Cores closer than this are "touching": polygons use SAT. Rounded shapes
/// whose cores are farther apart use the GJK closest features.
#define SN_CORE_APART (0.1f * SN_LINEAR_SLOP)
/// B's face is the reference only if its separation beats A's by this much
/// (plus SN_REFERENCE_REL_TOL of the penetration), so nearly equal axes do
/// not flip-flop from step to step.
#define SN_REFERENCE_ABS_TOL (0.1f * SN_LINEAR_SLOP)
#define SN_REFERENCE_REL_TOL 0.02f
/// Rounded polygons apart: the GJK normal counts as a face normal (and two
/// points are clipped) when their cosine exceeds this.
#define SN_FACE_COS 0.999f
/// Same, on the cosine, for choosing B's face over A's.
#define SN_FACE_COS_TOL 1.0e-5f
/// Chain segments: a normal this close to the segment normal is a face contact.
#define SN_CHAIN_FACE_COS 0.9995f
/// Chain segments: slack of the corner-wedge tests (both neighbours may then
/// claim a normal on the bisector, never neither).
#define SN_WEDGE_TOL 1.0e-5f
/// Capsules whose axes make an angle with a smaller sine are parallel (2 points).
#define SN_CAPSULE_PARALLEL_SIN 0.05f

/* ------------------------------------------------------------ helpers */

static sn_manifold empty_manifold(void) {
  sn_manifold m;
  memset(&m, 0, sizeof m);
  return m;
}

/// Appends a point given in A's frame.
static void add_point(sn_manifold *m, sn_vec2 local_point, float separation, uint16_t id) {
  sn_manifold_point *p = m->points + m->point_count;
  memset(p, 0, sizeof *p);
  p->point = local_point;
  p->separation = separation;
  p->id = id;
  m->point_count += 1;
}

/// Converts a manifold built in A's frame into world points and anchors.
static void to_world(sn_manifold *m, sn_transform xf_a, sn_transform xf_b) {
  if (m->point_count == 0) {
    m->normal = sn_v2(0.0f, 0.0f);
    return;
  }
  m->normal = sn_rotate(xf_a.q, m->normal);
  const sn_vec2 offset = sn_sub(xf_a.p, xf_b.p);
  for (int32_t i = 0; i < m->point_count; ++i) {
    sn_manifold_point *p = m->points + i;
    sn_vec2 r = sn_rotate(xf_a.q, p->point);
    p->anchor_a = r;
    p->anchor_b = sn_add(r, offset);
    p->point = sn_add(xf_a.p, r);
  }
}

/// add_point followed by to_world for one point (local: in A's frame;
/// offset: xf_a.p - xf_b.p).
SN_INLINE void write_world_point(sn_manifold_point *p, sn_vec2 local, float separation, uint16_t id, sn_transform xf_a,
                                 sn_vec2 offset) {
  const sn_vec2 r = sn_rotate(xf_a.q, local);
  p->point = sn_add(xf_a.p, r);
  p->anchor_a = r;
  p->anchor_b = sn_add(r, offset);
  p->separation = separation;
  p->normal_impulse = 0.0f;
  p->tangent_impulse = 0.0f;
  p->max_normal_impulse = 0.0f;
  p->normal_velocity = 0.0f;
  p->id = id;
  p->persisted = false;
}

/// A manifold of one point given in A's frame (local point, normal n),
/// written in world terms as add_point + to_world would.
SN_INLINE void write_one_point(sn_manifold *m, sn_vec2 local, float separation, sn_vec2 n, sn_transform xf_a,
                               sn_transform xf_b) {
  m->normal = sn_rotate(xf_a.q, n);
  write_world_point(m->points, local, separation, 0, xf_a, sn_sub(xf_a.p, xf_b.p));
  m->point_count = 1;
}

/// No contact: what to_world leaves of an empty manifold.
SN_INLINE void write_empty(sn_manifold *m) {
  m->point_count = 0;
  m->normal = sn_v2(0.0f, 0.0f);
}

/// The same contact seen from the other shape: normal reversed, anchors swapped.
static sn_manifold swap_roles(sn_manifold m) {
  m.normal = sn_neg(m.normal);
  for (int32_t i = 0; i < m.point_count; ++i) {
    sn_vec2 t = m.points[i].anchor_a;
    m.points[i].anchor_a = m.points[i].anchor_b;
    m.points[i].anchor_b = t;
  }
  return m;
}

/* -------------------------------------------------- circles and capsules */
/* These paths run for most pairs of a scene of balls and boxes, so they build
 * their result in place: a zero initializer (which the compiler turns into a
 * few stores) instead of memset on scratch manifolds, and the one-point cases
 * go to the world frame without a loop. The arithmetic is that of to_world. */

/// One contact point found in A's frame (the single-point paths).
typedef struct sn_disc_hit {
  sn_vec2 point;    ///< midway between the surfaces
  sn_vec2 normal;   ///< unit, from A to B
  float separation; ///< < SN_SPECULATIVE_DISTANCE when hit
  bool hit;
} sn_disc_hit;

static inline sn_disc_hit disc_miss(void) { return (sn_disc_hit){{0.0f, 0.0f}, {0.0f, 0.0f}, 0.0f, false}; }

/// The point between the surfaces closest_a + ra n and c - rb n.
static inline sn_disc_hit disc_hit(sn_vec2 closest_a, float ra, sn_vec2 c, float rb, sn_vec2 n, float separation) {
  sn_vec2 surface_a = sn_mul_add(closest_a, ra, n);
  sn_vec2 surface_b = sn_mul_sub(c, rb, n);
  return (sn_disc_hit){sn_lerp(surface_a, surface_b, 0.5f), n, separation, true};
}

/// World manifold of a hit (feature id 0), or the empty manifold.
static inline sn_manifold disc_hit_world(sn_disc_hit h, sn_transform xf_a, sn_transform xf_b) {
  sn_manifold m = {0};
  if (!h.hit) return m;
  const sn_vec2 r = sn_rotate(xf_a.q, h.point);
  m.normal = sn_rotate(xf_a.q, h.normal);
  m.points[0].anchor_a = r;
  m.points[0].anchor_b = sn_add(r, sn_sub(xf_a.p, xf_b.p));
  m.points[0].point = sn_add(xf_a.p, r);
  m.points[0].separation = h.separation;
  m.point_count = 1;
  return m;
}

/// disc_hit_world written into *m (the narrowphase's in-place form).
SN_INLINE void write_hit(sn_manifold *m, sn_disc_hit h, sn_transform xf_a, sn_transform xf_b) {
  if (h.hit) {
    write_one_point(m, h.point, h.separation, h.normal, xf_a, xf_b);
  } else {
    write_empty(m);
  }
}

/// Two discs (A's frame). fallback: normal used when the centres coincide.
static inline sn_disc_hit discs_local(sn_vec2 ca, float ra, sn_vec2 cb, float rb, sn_vec2 fallback) {
  float dist = 0.0f;
  sn_vec2 n = sn_get_length_and_normalize(&dist, sn_sub(cb, ca));
  float separation = dist - ra - rb;
  if (separation >= SN_SPECULATIVE_DISTANCE) return disc_miss();
  if (dist == 0.0f || (n.x == 0.0f && n.y == 0.0f)) n = fallback;
  return disc_hit(ca, ra, cb, rb, n, separation);
}

/// Closest point of segment p-q to c.
static sn_vec2 closest_on_segment(sn_vec2 p, sn_vec2 q, sn_vec2 c) {
  sn_vec2 e = sn_sub(q, p);
  float len_sq = sn_dot(e, e);
  if (len_sq <= FLT_EPSILON * FLT_EPSILON) return p;
  float t = sn_clampf(sn_dot(sn_sub(c, p), e) / len_sq, 0.0f, 1.0f);
  return sn_mul_add(p, t, e);
}

/// Normal perpendicular to segment p-q (left side), or +y for a point.
static sn_vec2 segment_side_normal(sn_vec2 p, sn_vec2 q) {
  sn_vec2 n = sn_normalize(sn_left_perp(sn_sub(q, p)));
  if (n.x == 0.0f && n.y == 0.0f) n = sn_v2(0.0f, 1.0f);
  return n;
}

/// Capsule core p-q with radius ra against a disc (A's frame).
static sn_disc_hit capsule_disc_local(sn_vec2 p, sn_vec2 q, float ra, sn_vec2 c, float rb) {
  sn_vec2 closest = closest_on_segment(p, q, c);
  return discs_local(closest, ra, c, rb, segment_side_normal(p, q));
}

/// Appends a point (A's frame) to a manifold that was zero-initialized.
static inline void put_point(sn_manifold *m, sn_vec2 local_point, float separation, uint16_t id) {
  sn_manifold_point *p = m->points + m->point_count;
  p->point = local_point;
  p->separation = separation;
  p->id = id;
  m->point_count += 1;
}

/// Two capsule cores (A's frame). Nearly parallel cores that overlap along
/// their length give two points (the ends of the overlap), else one point
/// from the closest points of the cores.
static sn_manifold capsules_local(sn_vec2 p1, sn_vec2 q1, float ra, sn_vec2 p2, sn_vec2 q2, float rb) {
  sn_manifold m = {0};
  const float radius = ra + rb;
  const float reach = radius + SN_SPECULATIVE_DISTANCE;
  sn_segment_distance_result sd = sn_segment_distance(p1, q1, p2, q2);
  if (sd.distance_squared >= reach * reach) return m;
  float dist = sqrtf(sd.distance_squared);

  float len1 = 0.0f, len2 = 0.0f;
  sn_vec2 u1 = sn_get_length_and_normalize(&len1, sn_sub(q1, p1));
  sn_get_length_and_normalize(&len2, sn_sub(q2, p2));
  sn_vec2 centre_offset = sn_sub(sn_lerp(p2, q2, 0.5f), sn_lerp(p1, q1, 0.5f));
  const float tiny = 1.0e-6f;

  if (len1 > tiny && len2 > tiny && sn_absf(sn_cross(u1, sn_sub(q2, p2))) < SN_CAPSULE_PARALLEL_SIN * len2) {
    // Parallel: project B's ends on A's axis and keep the common interval.
    sn_vec2 n = sn_left_perp(u1);
    sn_vec2 side = dist > tiny ? sn_sub(sd.closest2, sd.closest1) : centre_offset;
    if (sn_dot(n, side) < 0.0f) n = sn_neg(n);
    sn_vec2 b_lo = p2, b_hi = q2;
    float s_lo = sn_dot(sn_sub(p2, p1), u1), s_hi = sn_dot(sn_sub(q2, p1), u1);
    if (s_lo > s_hi) {
      b_lo = q2;
      b_hi = p2;
      float t = s_lo;
      s_lo = s_hi;
      s_hi = t;
    }
    float lo = sn_maxf(0.0f, s_lo), hi = sn_minf(len1, s_hi);
    if (hi - lo > SN_LINEAR_SLOP) {
      const float ends[2] = {lo, hi};
      for (int32_t k = 0; k < 2; ++k) {
        sn_vec2 pb = sn_lerp(b_lo, b_hi, (ends[k] - s_lo) / (s_hi - s_lo));
        sn_vec2 pa = sn_mul_add(p1, ends[k], u1);
        float separation = sn_dot(sn_sub(pb, pa), n) - radius;
        if (separation >= SN_SPECULATIVE_DISTANCE) continue;
        sn_vec2 point = sn_lerp(sn_mul_add(pa, ra, n), sn_mul_sub(pb, rb, n), 0.5f);
        put_point(&m, point, separation, (uint16_t)k);
      }
      if (m.point_count > 0) {
        m.normal = n;
        return m;
      }
    }
  }

  sn_vec2 n;
  if (dist > tiny) {
    n = sn_scale(1.0f / dist, sn_sub(sd.closest2, sd.closest1));
  } else {
    // crossing cores: push B off A's axis, towards B's centre
    n = len1 > tiny ? segment_side_normal(p1, q1) : segment_side_normal(p2, q2);
    if (sn_dot(n, centre_offset) < 0.0f) n = sn_neg(n);
  }
  float separation = dist - radius;
  sn_vec2 point = sn_lerp(sn_mul_add(sd.closest1, ra, n), sn_mul_sub(sd.closest2, rb, n), 0.5f);
  put_point(&m, point, separation, 0);
  m.normal = n;
  return m;
}

/// Two circles into *m.
static void circles_into(sn_manifold *m, const sn_circle *a, const sn_transform *xf_a_ptr, const sn_circle *b,
                         const sn_transform *xf_b_ptr) {
  const sn_transform xf_a = *xf_a_ptr, xf_b = *xf_b_ptr;
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 cb = sn_transform_point(xf, b->center);
  write_hit(m, discs_local(a->center, a->radius, cb, b->radius, sn_v2(0.0f, 1.0f)), xf_a, xf_b);
}

sn_manifold sn_collide_circles(const sn_circle *a, sn_transform xf_a, const sn_circle *b, sn_transform xf_b) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 cb = sn_transform_point(xf, b->center);
  return disc_hit_world(discs_local(a->center, a->radius, cb, b->radius, sn_v2(0.0f, 1.0f)), xf_a, xf_b);
}

sn_manifold sn_collide_capsule_and_circle(const sn_capsule *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 cb = sn_transform_point(xf, b->center);
  return disc_hit_world(capsule_disc_local(a->center1, a->center2, a->radius, cb, b->radius), xf_a, xf_b);
}

sn_manifold sn_collide_capsules(const sn_capsule *a, sn_transform xf_a, const sn_capsule *b, sn_transform xf_b) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 p2 = sn_transform_point(xf, b->center1), q2 = sn_transform_point(xf, b->center2);
  sn_manifold m = capsules_local(a->center1, a->center2, a->radius, p2, q2, b->radius);
  to_world(&m, xf_a, xf_b);
  return m;
}

/// Capsule and circle into *m (sn_collide_capsule_and_circle's arithmetic).
static void capsule_circle_into(sn_manifold *m, const sn_capsule *a, const sn_transform *xf_a_ptr, const sn_circle *b,
                                const sn_transform *xf_b_ptr) {
  const sn_transform xf_a = *xf_a_ptr, xf_b = *xf_b_ptr;
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 cb = sn_transform_point(xf, b->center);
  write_hit(m, capsule_disc_local(a->center1, a->center2, a->radius, cb, b->radius), xf_a, xf_b);
}

/// Two capsules into *m (sn_collide_capsules' arithmetic).
static void capsules_into(sn_manifold *m, const sn_capsule *a, const sn_transform *xf_a_ptr, const sn_capsule *b,
                          const sn_transform *xf_b_ptr) {
  const sn_transform xf_a = *xf_a_ptr, xf_b = *xf_b_ptr;
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 p2 = sn_transform_point(xf, b->center1), q2 = sn_transform_point(xf, b->center2);
  *m = capsules_local(a->center1, a->center2, a->radius, p2, q2, b->radius);
  to_world(m, xf_a, xf_b);
}

sn_manifold sn_collide_segment_and_circle(const sn_segment *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 cb = sn_transform_point(xf, b->center);
  return disc_hit_world(capsule_disc_local(a->point1, a->point2, 0.0f, cb, b->radius), xf_a, xf_b);
}

sn_manifold sn_collide_segment_and_capsule(const sn_segment *a, sn_transform xf_a, const sn_capsule *b,
                                           sn_transform xf_b) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 p2 = sn_transform_point(xf, b->center1), q2 = sn_transform_point(xf, b->center2);
  sn_manifold m = capsules_local(a->point1, a->point2, 0.0f, p2, q2, b->radius);
  to_world(&m, xf_a, xf_b);
  return m;
}

/* ------------------------------------------------------------- polygons */

/// Vertices and normals of a convex polygon in A's frame (a segment is a
/// 2-gon: edge 0 from v0 to v1, edge 1 back).
typedef struct sn_poly_view {
  const sn_vec2 *v;
  const sn_vec2 *n;
  int32_t count;
  float radius;
} sn_poly_view;

/// Largest over p1's edges (normals n1, vertices v1, c1 of them) of the
/// smallest signed distance of p2's vertices (v2, c2) from the edge: the SAT
/// separation on p1's normals. Stops early once an edge separates by more
/// than limit.
SN_INLINE float max_separation(const sn_vec2 *n1, const sn_vec2 *v1, int32_t c1, const sn_vec2 *v2, int32_t c2,
                               float limit, int32_t *edge) {
  int32_t best = 0;
  float best_sep = -FLT_MAX;
  for (int32_t i = 0; i < c1; ++i) {
    const sn_vec2 n = n1[i];
    const float offset = sn_dot(n, v1[i]);
    float s = FLT_MAX;
    for (int32_t j = 0; j < c2; ++j) s = sn_minf(s, sn_dot(n, v2[j]));
    s -= offset;
    if (s > best_sep) {
      best_sep = s;
      best = i;
      if (s > limit) break;
    }
  }
  *edge = best;
  return best_sep;
}

/// How clip_reference treats the incident edge.
typedef enum sn_clip_mode {
  SN_CLIP_STRICT,   ///< only points within the reference edge's side planes (chains, rounded pairs)
  SN_CLIP_TOUCHING, ///< polygons touching: an incident edge wholly beyond a side plane keeps its deeper end
  SN_CLIP_APART     ///< polygons apart: also detect a corner against a corner (closest points)
} sn_clip_mode;

/// SN_CLIP_APART's corner test: if the closest points of the reference edge
/// v1-v2 (vertices r1, r2) and the incident edge w1-w2 (j1, j2) put an end of
/// the reference edge against the incident edge away from the face normal n,
/// the shapes meet corner to corner: one point along the true direction
/// (SAT alone would report the face normal and clip the closest corner away).
/// True if it wrote the manifold.
static bool clip_corner(sn_manifold *m, sn_vec2 v1, sn_vec2 v2, sn_vec2 w1, sn_vec2 w2, sn_vec2 n, float rr, float ri,
                        int32_t r1, int32_t r2, int32_t j1, int32_t j2, bool flip) {
  sn_segment_distance_result sd = sn_segment_distance(v1, v2, w1, w2);
  float dist = sqrtf(sd.distance_squared);
  if ((sd.fraction1 == 0.0f || sd.fraction1 == 1.0f) && dist > FLT_EPSILON) {
    sn_vec2 nc = sn_scale(1.0f / dist, sn_sub(sd.closest2, sd.closest1));
    if (sn_dot(nc, n) < SN_FACE_COS) {
      float separation = dist - rr - ri;
      if (separation < SN_SPECULATIVE_DISTANCE) {
        sn_vec2 point = sn_lerp(sn_mul_add(sd.closest1, rr, nc), sn_mul_sub(sd.closest2, ri, nc), 0.5f);
        int32_t rid = sd.fraction1 == 0.0f ? r1 : r2, iid = sd.fraction2 < 0.5f ? j1 : j2;
        add_point(m, point, separation, flip ? SN_MAKE_ID(iid, rid) : SN_MAKE_ID(rid, iid));
      }
      m->normal = flip ? sn_neg(nc) : nc;
      return true;
    }
  }
  return false;
}

/// The ends of the clipped incident edge (clip_reference), before the
/// speculative distance test: each with the reference vertex and the
/// incident vertex at its end.
typedef struct sn_clip_ends {
  sn_vec2 point[2];
  int32_t ref_id[2], inc_id[2];
  int32_t count;
} sn_clip_ends;

/// The clipping step of clip_reference: the incident edge w1-w2 (vertices
/// j1, j2 of inc) against the side planes of the reference edge v1-v2
/// (vertices r1, r2 of ref, normal n). False if SN_CLIP_STRICT finds the
/// incident edge wholly beyond a side plane (no contact, normal untouched).
SN_INLINE bool clip_ends(sn_clip_ends *e, sn_vec2 n, sn_vec2 v1, sn_vec2 v2, sn_vec2 w1, sn_vec2 w2, int32_t r1,
                         int32_t r2, int32_t j1, int32_t j2, sn_clip_mode mode) {
  // Coordinates along the reference edge (t runs from v1 to v2). The
  // incident edge runs the other way: w2 is the low end, w1 the high end.
  const sn_vec2 t = sn_left_perp(n);
  const float upper = sn_dot(sn_sub(v2, v1), t);
  const float s_hi = sn_dot(sn_sub(w1, v1), t);
  const float s_lo = sn_dot(sn_sub(w2, v1), t);
  const float span = s_hi - s_lo;

  if (s_hi < 0.0f || s_lo > upper) {
    if (mode == SN_CLIP_STRICT) return false;
    // wholly beyond one end (a corner against a corner): the deeper end of
    // the incident edge, whose separation is the SAT separation
    e->count = 1;
    bool first = sn_dot(n, w1) <= sn_dot(n, w2);
    e->point[0] = first ? w1 : w2;
    e->ref_id[0] = s_hi < 0.0f ? r1 : r2;
    e->inc_id[0] = first ? j1 : j2;
  } else if (span > FLT_EPSILON * (1.0f + sn_absf(upper))) {
    e->count = 2;
    e->point[0] = s_lo < 0.0f ? sn_lerp(w2, w1, -s_lo / span) : w2;
    e->point[1] = s_hi > upper ? sn_lerp(w2, w1, (upper - s_lo) / span) : w1;
    e->ref_id[0] = r1;
    e->inc_id[0] = j2;
    e->ref_id[1] = r2;
    e->inc_id[1] = j1;
  } else {
    // incident edge perpendicular to the reference edge: its deeper end
    e->count = 1;
    bool first = sn_dot(n, w1) <= sn_dot(n, w2);
    e->point[0] = first ? w1 : w2;
    e->ref_id[0] = sn_dot(sn_sub(e->point[0], v1), t) <= 0.5f * upper ? r1 : r2;
    e->inc_id[0] = first ? j1 : j2;
  }
  return true;
}

/// One clipped end as a contact point (A's frame): its separation and the
/// point midway between the reference surface and the incident surface.
/// False if it is beyond the speculative distance.
SN_INLINE bool clip_end_point(const sn_clip_ends *e, int32_t k, sn_vec2 n, sn_vec2 v1, float rr, float ri, bool flip,
                              sn_vec2 *point, float *separation, uint16_t *id) {
  const float core = sn_dot(sn_sub(e->point[k], v1), n);
  *separation = core - rr - ri;
  if (*separation >= SN_SPECULATIVE_DISTANCE) return false;
  *point = sn_mul_add(e->point[k], 0.5f * (rr - core - ri), n);
  *id = flip ? SN_MAKE_ID(e->inc_id[k], e->ref_id[k]) : SN_MAKE_ID(e->ref_id[k], e->inc_id[k]);
  return true;
}

/// Reference edge `edge` of ref against the incident edge of inc (the edge
/// whose normal is most anti-parallel to the reference normal). The incident
/// edge is clipped to the side planes of the reference edge; its two ends
/// become points if their separation is below the speculative distance.
/// flip: ref is shape B (the normal is reversed to point from A to B).
/// SN_CLIP_APART: first the corner test (clip_corner). ref_count and
/// inc_count are ref->count and inc->count (constants in the box path).
SN_INLINE void clip_reference_n(sn_manifold *m, const sn_poly_view *ref, int32_t edge, const sn_poly_view *inc,
                                bool flip, sn_clip_mode mode, int32_t ref_count, int32_t inc_count) {
  const sn_vec2 n = ref->n[edge];
  const int32_t r1 = edge, r2 = edge + 1 < ref_count ? edge + 1 : 0;
  const sn_vec2 v1 = ref->v[r1];
  const sn_vec2 v2 = ref->v[r2];

  int32_t j1 = 0;
  float lowest = FLT_MAX;
  for (int32_t j = 0; j < inc_count; ++j) {
    float d = sn_dot(n, inc->n[j]);
    if (d < lowest) {
      lowest = d;
      j1 = j;
    }
  }
  const int32_t j2 = j1 + 1 < inc_count ? j1 + 1 : 0;
  const sn_vec2 w1 = inc->v[j1], w2 = inc->v[j2];
  const float rr = ref->radius, ri = inc->radius;

  if (mode == SN_CLIP_APART && clip_corner(m, v1, v2, w1, w2, n, rr, ri, r1, r2, j1, j2, flip)) return;

  sn_clip_ends e;
  if (!clip_ends(&e, n, v1, v2, w1, w2, r1, r2, j1, j2, mode)) return;
  m->normal = flip ? sn_neg(n) : n;
  for (int32_t k = 0; k < e.count; ++k) {
    sn_vec2 point;
    float separation;
    uint16_t id;
    if (clip_end_point(&e, k, n, v1, rr, ri, flip, &point, &separation, &id)) add_point(m, point, separation, id);
  }
}

static void clip_reference(sn_manifold *m, const sn_poly_view *ref, int32_t edge, const sn_poly_view *inc, bool flip,
                           sn_clip_mode mode) {
  clip_reference_n(m, ref, edge, inc, flip, mode, ref->count, inc->count);
}

/// Index of the normal of p most aligned with d, and that cosine.
static int32_t most_aligned_normal(const sn_poly_view *p, sn_vec2 d, float *cosine) {
  int32_t best = 0;
  float best_dot = -FLT_MAX;
  for (int32_t i = 0; i < p->count; ++i) {
    float c = sn_dot(p->n[i], d);
    if (c > best_dot) {
      best_dot = c;
      best = i;
    }
  }
  *cosine = best_dot;
  return best;
}

/// Rounded polygons whose cores are apart: GJK closest points of the cores.
/// If the GJK normal is a face normal of A or B, that face is the reference
/// and the incident edge is clipped (2 points for parallel edges); otherwise
/// one point between the rounded corners. False if GJK finds the cores
/// touching after all (the caller then uses SAT).
static bool polygons_apart(sn_manifold *m, const sn_poly_view *a, const sn_poly_view *b, sn_simplex_cache *cache) {
  sn_distance_input input;
  memset(&input, 0, sizeof input);
  input.proxy_a = sn_make_proxy_points(a->v, a->count, 0.0f);
  input.proxy_b = sn_make_proxy_points(b->v, b->count, 0.0f);
  input.transform_a = sn_transform_identity();
  input.transform_b = sn_transform_identity();
  sn_simplex_cache local = {0, {0, 0, 0}, {0, 0, 0}};
  sn_simplex_cache *c = cache != NULL ? cache : &local;
  sn_distance_output out = sn_shape_distance(&input, c);
  if (out.distance <= 0.0f) return false;

  const float radius = a->radius + b->radius;
  const float separation = out.distance - radius;
  if (separation >= SN_SPECULATIVE_DISTANCE) return true;
  const sn_vec2 n = out.normal;

  float cos_a = 0.0f, cos_b = 0.0f;
  int32_t edge_a = most_aligned_normal(a, n, &cos_a);
  int32_t edge_b = most_aligned_normal(b, sn_neg(n), &cos_b);
  if (sn_maxf(cos_a, cos_b) >= SN_FACE_COS) {
    if (cos_b > cos_a + SN_FACE_COS_TOL)
      clip_reference(m, b, edge_b, a, true, SN_CLIP_STRICT);
    else
      clip_reference(m, a, edge_a, b, false, SN_CLIP_STRICT);
    if (m->point_count > 0) return true;
  }

  sn_vec2 surface_a = sn_mul_add(out.point_a, a->radius, n);
  sn_vec2 surface_b = sn_mul_sub(out.point_b, b->radius, n);
  uint16_t id = SN_MAKE_ID(c->index_a[0], c->index_b[0]);
  add_point(m, sn_lerp(surface_a, surface_b, 0.5f), separation, id);
  m->normal = n;
  return true;
}

/// Two touching polygons (overlapping by less than the linear slop) whose
/// best SAT axes, a face of A (edge_a) and a face of B (edge_b), separate
/// them equally (within the reference tolerance) and are not parallel meet
/// corner to corner: the contact point lies on both faces' lines, which
/// cross at one point. Either face normal would be arbitrary (the creation
/// order would pick one) and would push the pair sideways; the contact takes
/// the bisector of the two instead, with one point between A's and B's
/// corners along it. True if it wrote the manifold (in A's frame).
SN_INLINE bool corner_to_corner(sn_manifold *m, const sn_poly_view *a, const sn_poly_view *b, int32_t edge_a,
                                int32_t edge_b, float sep_a, float sep_b) {
  const sn_vec2 na = a->n[edge_a], nb = b->n[edge_b];
  /* touching, not overlapping deeply: an overlap left by an impact is undone
   * along the axis of least penetration */
  if (sn_minf(sep_a, sep_b) < -SN_LINEAR_SLOP) return false;
  if (sn_absf(sep_b - sep_a) > SN_REFERENCE_ABS_TOL + SN_REFERENCE_REL_TOL * sn_absf(sep_a)) return false;
  if (-sn_dot(na, nb) >= SN_FACE_COS) return false; /* parallel faces: the clipped manifold */
  sn_vec2 n = sn_sub(na, nb);
  const float len = sn_length(n);
  if (!(len > FLT_EPSILON)) return false;
  n = sn_scale(1.0f / len, n);
  /* A's corner furthest along n, B's furthest against it */
  const int32_t ia = sn_support_index(a->v, a->count, n), ib = sn_support_index(b->v, b->count, sn_neg(n));
  const float separation = sn_dot(n, b->v[ib]) - sn_dot(n, a->v[ia]) - a->radius - b->radius;
  if (separation >= SN_SPECULATIVE_DISTANCE) return false;
  const sn_vec2 surface_a = sn_mul_add(a->v[ia], a->radius, n), surface_b = sn_mul_sub(b->v[ib], b->radius, n);
  m->point_count = 0;
  add_point(m, sn_lerp(surface_a, surface_b, 0.5f), separation, SN_MAKE_ID(ia, ib));
  m->normal = n;
  return true;
}

/// Polygon against polygon, both in A's frame; ca and cb are a->count and
/// b->count (constants in the box path).
SN_INLINE void polygons_local_n(sn_manifold *m, const sn_poly_view *a, const sn_poly_view *b, sn_simplex_cache *cache,
                                int32_t ca, int32_t cb) {
  const float radius = a->radius + b->radius;
  const float limit = SN_SPECULATIVE_DISTANCE + radius;

  int32_t edge_a = 0, edge_b = 0;
  float sep_a = max_separation(a->n, a->v, ca, b->v, cb, limit, &edge_a);
  if (sep_a > limit) return;
  float sep_b = max_separation(b->n, b->v, cb, a->v, ca, limit, &edge_b);
  if (sep_b > limit) return;

  if (radius > 0.0f && sn_maxf(sep_a, sep_b) > SN_CORE_APART) {
    if (polygons_apart(m, a, b, cache)) return;
    m->point_count = 0;
  }

  bool flip = sep_b > sep_a + SN_REFERENCE_ABS_TOL + SN_REFERENCE_REL_TOL * sn_absf(sep_a);
  sn_clip_mode mode = sn_maxf(sep_a, sep_b) > SN_CORE_APART ? SN_CLIP_APART : SN_CLIP_TOUCHING;
  if (mode == SN_CLIP_TOUCHING && corner_to_corner(m, a, b, edge_a, edge_b, sep_a, sep_b)) return;
  if (flip) {
    clip_reference_n(m, b, edge_b, a, true, mode, cb, ca);
  } else {
    clip_reference_n(m, a, edge_a, b, false, mode, ca, cb);
  }
}

/// B's vertices and normals in A's frame (count of them).
SN_INLINE void bring_polygon_n(const sn_polygon *p, sn_transform xf, sn_vec2 *v, sn_vec2 *n, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    v[i] = sn_transform_point(xf, p->vertices[i]);
    n[i] = sn_rotate(xf.q, p->normals[i]);
  }
}

static void bring_polygon(const sn_polygon *p, sn_transform xf, sn_vec2 *v, sn_vec2 *n) {
  bring_polygon_n(p, xf, v, n, p->count);
}

/// Polygon pair with the counts ca, cb: B brought into A's frame on the
/// stack, SAT, clipping, then world points. Writes point_count, normal and
/// the points below point_count.
SN_INLINE void polygons_n(sn_manifold *m, const sn_polygon *a, sn_transform xf_a, const sn_polygon *b,
                          sn_transform xf_b, sn_simplex_cache *cache, int32_t ca, int32_t cb) {
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 bv[SN_MAX_POLYGON_VERTICES], bn[SN_MAX_POLYGON_VERTICES];
  bring_polygon_n(b, xf, bv, bn, cb);
  sn_poly_view va = {a->vertices, a->normals, ca, a->radius};
  sn_poly_view vb = {bv, bn, cb, b->radius};
  m->point_count = 0;
  polygons_local_n(m, &va, &vb, cache, ca, cb);
  to_world(m, xf_a, xf_b);
}

/// max_separation for two quadrilaterals, four edges at a time: the edge
/// normals (nx, ny) and one vertex per edge (vx, vy) of the first, the
/// vertices (wx, wy) of the second. The lanes compute what the scalar loop
/// computes and the best edge is the first largest, as the loop picks it.
/// There is no early stop: the loop's only changes the result when it
/// exceeds the limit, and the caller then drops the pair either way.
static inline float max_separation_quad(f4 nx, f4 ny, f4 vx, f4 vy, f4 wx, f4 wy, int32_t *edge) {
  const f4 offset = f4_add(f4_mul(nx, vx), f4_mul(ny, vy));
  f4 s = f4_set(FLT_MAX);
  s = f4_min(s, f4_add(f4_mul(nx, F4_SPLAT(wx, 0)), f4_mul(ny, F4_SPLAT(wy, 0))));
  s = f4_min(s, f4_add(f4_mul(nx, F4_SPLAT(wx, 1)), f4_mul(ny, F4_SPLAT(wy, 1))));
  s = f4_min(s, f4_add(f4_mul(nx, F4_SPLAT(wx, 2)), f4_mul(ny, F4_SPLAT(wy, 2))));
  s = f4_min(s, f4_add(f4_mul(nx, F4_SPLAT(wx, 3)), f4_mul(ny, F4_SPLAT(wy, 3))));
  float best_sep = 0.0f;
  *edge = f4_first_max(f4_sub(s, offset), &best_sep);
  return best_sep;
}

/// Two quadrilaterals (boxes): polygons_n with the bringing of B, the SAT
/// and the incident edge search four lanes wide, and the clipped points
/// written straight to world coordinates. The same results bit for bit.
SN_INLINE void polygons_quad_body(sn_manifold *m, const sn_polygon *a, const sn_transform *xf_a_ptr,
                                  const sn_polygon *b, const sn_transform *xf_b_ptr, sn_simplex_cache *cache) {
  const sn_transform xf_a = *xf_a_ptr, xf_b = *xf_b_ptr;
  const sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  const f4 c = f4_set(xf.q.c), s = f4_set(xf.q.s);
  f4 ax, ay, anx, any, bx, by, bnx, bny;
  f4_load_points(a->vertices, &ax, &ay);
  f4_load_points(a->normals, &anx, &any);
  f4_load_points(b->vertices, &bx, &by);
  f4_load_points(b->normals, &bnx, &bny);
  // sn_transform_point and sn_rotate, lane by lane
  const f4 tx = f4_add(f4_sub(f4_mul(c, bx), f4_mul(s, by)), f4_set(xf.p.x));
  const f4 ty = f4_add(f4_add(f4_mul(s, bx), f4_mul(c, by)), f4_set(xf.p.y));
  const f4 tnx = f4_sub(f4_mul(c, bnx), f4_mul(s, bny));
  const f4 tny = f4_add(f4_mul(s, bnx), f4_mul(c, bny));

  const float radius = a->radius + b->radius;
  const float limit = SN_SPECULATIVE_DISTANCE + radius;
  int32_t edge_a = 0, edge_b = 0;
  const float sep_a = max_separation_quad(anx, any, ax, ay, tx, ty, &edge_a);
  const float sep_b = sep_a > limit ? 0.0f : max_separation_quad(tnx, tny, tx, ty, ax, ay, &edge_b);
  if (sep_a > limit || sep_b > limit) {
    m->point_count = 0;
    m->normal = sn_v2(0.0f, 0.0f);
    return;
  }
  const bool apart = sn_maxf(sep_a, sep_b) > SN_CORE_APART;
  if (radius > 0.0f && apart) {
    // rounded boxes whose cores are apart: GJK, in the general code
    polygons_n(m, a, xf_a, b, xf_b, cache, 4, 4);
    return;
  }

  sn_vec2 bv[4], bn[4];
  f4_store_points(bv, tx, ty);
  f4_store_points(bn, tnx, tny);
  if (!apart) {
    const sn_poly_view va = {a->vertices, a->normals, 4, a->radius}, vb = {bv, bn, 4, b->radius};
    if (corner_to_corner(m, &va, &vb, edge_a, edge_b, sep_a, sep_b)) {
      to_world(m, xf_a, xf_b);
      return;
    }
  }
  const bool flip = sep_b > sep_a + SN_REFERENCE_ABS_TOL + SN_REFERENCE_REL_TOL * sn_absf(sep_a);
  const sn_vec2 *ref_v = flip ? bv : a->vertices, *ref_n = flip ? bn : a->normals, *inc_v = flip ? a->vertices : bv;
  const f4 inc_nx = flip ? anx : tnx, inc_ny = flip ? any : tny;
  const float rr = flip ? b->radius : a->radius, ri = flip ? a->radius : b->radius;
  const int32_t r1 = flip ? edge_b : edge_a, r2 = (r1 + 1) & 3;
  const sn_vec2 n = ref_n[r1], v1 = ref_v[r1], v2 = ref_v[r2];
  // incident edge: the normal most anti-parallel to n (clip_reference_n)
  const int32_t j1 = f4_first_min(f4_add(f4_mul(f4_set(n.x), inc_nx), f4_mul(f4_set(n.y), inc_ny)));
  const int32_t j2 = (j1 + 1) & 3;
  const sn_vec2 w1 = inc_v[j1], w2 = inc_v[j2];

  m->point_count = 0;
  const sn_clip_mode mode = apart ? SN_CLIP_APART : SN_CLIP_TOUCHING;
  if (mode == SN_CLIP_APART && clip_corner(m, v1, v2, w1, w2, n, rr, ri, r1, r2, j1, j2, flip)) {
    to_world(m, xf_a, xf_b);
    return;
  }
  sn_clip_ends e;
  clip_ends(&e, n, v1, v2, w1, w2, r1, r2, j1, j2, mode); // never rejects outside SN_CLIP_STRICT
  // add_point and to_world in one go
  const sn_vec2 offset = sn_sub(xf_a.p, xf_b.p);
  int32_t count = 0;
  sn_vec2 point;
  float separation;
  uint16_t id;
  if (clip_end_point(&e, 0, n, v1, rr, ri, flip, &point, &separation, &id))
    write_world_point(m->points + count++, point, separation, id, xf_a, offset);
  if (e.count == 2 && clip_end_point(&e, 1, n, v1, rr, ri, flip, &point, &separation, &id))
    write_world_point(m->points + count++, point, separation, id, xf_a, offset);
  m->point_count = count;
  m->normal = count > 0 ? sn_rotate(xf_a.q, flip ? sn_neg(n) : n) : sn_v2(0.0f, 0.0f);
}

static void polygons_quad(sn_manifold *m, const sn_polygon *a, const sn_transform *xf_a, const sn_polygon *b,
                          const sn_transform *xf_b, sn_simplex_cache *cache) {
  polygons_quad_body(m, a, xf_a, b, xf_b, cache);
}

#if SN_MANIFOLD_AVX2
/// The same code compiled for AVX2 CPUs: the VEX encoding's three-operand
/// instructions spare the register copies of the SSE2 build. The operations
/// are the same IEEE operations in the same order (no contraction into FMA:
/// -ffp-contract=off), so the results are too.
__attribute__((target("avx2"))) static void polygons_quad_avx2(sn_manifold *m, const sn_polygon *a,
                                                               const sn_transform *xf_a, const sn_polygon *b,
                                                               const sn_transform *xf_b, sn_simplex_cache *cache) {
  polygons_quad_body(m, a, xf_a, b, xf_b, cache);
}
#endif

/// Polygon pair into *m: two quadrilaterals (boxes) take the four-lane
/// path, everything else the general one.
static void collide_polygons_into(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b, sn_transform xf_b,
                                  sn_simplex_cache *cache, sn_manifold *m) {
  if (a->count == 4 && b->count == 4) {
    polygons_quad(m, a, &xf_a, b, &xf_b, cache);
  } else {
    polygons_n(m, a, xf_a, b, xf_b, cache, a->count, b->count);
  }
}

static sn_manifold collide_polygons_cached(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b,
                                           sn_transform xf_b, sn_simplex_cache *cache) {
  sn_manifold m = empty_manifold();
  collide_polygons_into(a, xf_a, b, xf_b, cache, &m);
  return m;
}

sn_manifold sn_collide_polygons_general(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b, sn_transform xf_b,
                                        sn_simplex_cache *cache) {
  sn_manifold m = empty_manifold();
  polygons_n(&m, a, xf_a, b, xf_b, cache, a->count, b->count);
  return m;
}

sn_manifold sn_collide_polygons(const sn_polygon *a, sn_transform xf_a, const sn_polygon *b, sn_transform xf_b) {
  return collide_polygons_cached(a, xf_a, b, xf_b, NULL);
}

/// True if the capsule's core has a usable direction (else it is a disc).
static bool capsule_has_axis(const sn_capsule *c) {
  return sn_distance_sq(c->center1, c->center2) > FLT_EPSILON * FLT_EPSILON;
}

/// A (possibly rounded) polygon against a disc at c (A's frame): the edge of
/// largest separation from the centre, then the Voronoi region of that edge
/// or of one of its ends (a closest-feature test, no GJK). With lanes, a
/// quadrilateral's edges are tested four lanes wide: the same values, the
/// first largest as the loop picks it, and a miss exactly when the loop's
/// early stop would find one.
SN_INLINE sn_disc_hit polygon_disc_local_ex(const sn_polygon *a, sn_vec2 c, float rb, bool lanes) {
  const float ra = a->radius;
  const float radius = ra + rb;

  // edge of largest separation from the centre; an edge that already
  // separates by the speculative distance settles it (the largest would too)
  int32_t edge = 0;
  float sep = -FLT_MAX;
  if (lanes && a->count == 4) {
    f4 vx, vy, nx, ny;
    f4_load_points(a->vertices, &vx, &vy);
    f4_load_points(a->normals, &nx, &ny);
    const f4 s = f4_add(f4_mul(nx, f4_sub(f4_set(c.x), vx)), f4_mul(ny, f4_sub(f4_set(c.y), vy)));
    edge = f4_first_max(s, &sep);
    if (sep - radius >= SN_SPECULATIVE_DISTANCE) return disc_miss();
  } else {
    for (int32_t i = 0; i < a->count; ++i) {
      float s = sn_dot(a->normals[i], sn_sub(c, a->vertices[i]));
      if (s > sep) {
        if (s - radius >= SN_SPECULATIVE_DISTANCE) return disc_miss();
        sep = s;
        edge = i;
      }
    }
  }

  // Voronoi region of the edge, or of one of its vertices
  const sn_vec2 v1 = a->vertices[edge];
  const sn_vec2 v2 = a->vertices[edge + 1 < a->count ? edge + 1 : 0];
  const float u1 = sn_dot(sn_sub(c, v1), sn_sub(v2, v1));
  const float u2 = sn_dot(sn_sub(c, v2), sn_sub(v1, v2));
  if ((u1 < 0.0f || u2 < 0.0f) && sep > FLT_EPSILON) {
    const sn_vec2 closest = u1 < 0.0f ? v1 : v2;
    float dist = 0.0f;
    const sn_vec2 n = sn_get_length_and_normalize(&dist, sn_sub(c, closest));
    const float separation = dist - radius;
    if (separation >= SN_SPECULATIVE_DISTANCE) return disc_miss();
    return disc_hit(closest, ra, c, rb, n, separation);
  }
  const sn_vec2 n = a->normals[edge];
  return disc_hit(sn_mul_sub(c, sep, n), ra, c, rb, n, sep - radius);
}

static sn_disc_hit polygon_disc_local(const sn_polygon *a, sn_vec2 c, float rb) {
  return polygon_disc_local_ex(a, c, rb, true);
}

/// Polygon and circle into *m.
static void polygon_circle_into(sn_manifold *m, const sn_polygon *a, const sn_transform *xf_a_ptr, const sn_circle *b,
                                const sn_transform *xf_b_ptr) {
  const sn_transform xf_a = *xf_a_ptr, xf_b = *xf_b_ptr;
  const sn_vec2 c = sn_transform_point(sn_inv_mul_transforms(xf_a, xf_b), b->center);
  write_hit(m, polygon_disc_local(a, c, b->radius), xf_a, xf_b);
}

sn_manifold sn_collide_polygon_and_circle_loop(const sn_polygon *a, sn_transform xf_a, const sn_circle *b,
                                               sn_transform xf_b) {
  const sn_vec2 c = sn_transform_point(sn_inv_mul_transforms(xf_a, xf_b), b->center);
  return disc_hit_world(polygon_disc_local_ex(a, c, b->radius, false), xf_a, xf_b);
}

sn_manifold sn_collide_polygon_and_circle(const sn_polygon *a, sn_transform xf_a, const sn_circle *b,
                                          sn_transform xf_b) {
  return disc_hit_world(
      polygon_disc_local(a, sn_transform_point(sn_inv_mul_transforms(xf_a, xf_b), b->center), b->radius), xf_a, xf_b);
}

static sn_manifold collide_polygon_capsule_cached(const sn_polygon *a, sn_transform xf_a, const sn_capsule *b,
                                                  sn_transform xf_b, sn_simplex_cache *cache) {
  if (!capsule_has_axis(b)) {
    sn_circle disc = {b->center1, b->radius};
    return sn_collide_polygon_and_circle(a, xf_a, &disc, xf_b);
  }
  sn_polygon pb = sn_make_capsule_polygon(b->center1, b->center2, b->radius);
  return collide_polygons_cached(a, xf_a, &pb, xf_b, cache);
}

/// Polygon and capsule into *m: collide_polygon_capsule_cached without its
/// scratch manifolds, and with the counts as constants for a quadrilateral
/// (the same operations in the same order: the same bits). The capsule's
/// 2-gon is built as sn_make_capsule_polygon builds it (polygons_n reads its
/// vertices, normals and radius).
static void polygon_capsule_into(sn_manifold *m, const sn_polygon *a, const sn_transform *xf_a, const sn_capsule *b,
                                 const sn_transform *xf_b, sn_simplex_cache *cache) {
  if (!capsule_has_axis(b)) {
    const sn_circle disc = {b->center1, b->radius};
    polygon_circle_into(m, a, xf_a, &disc, xf_b);
    return;
  }
  sn_polygon pb;
  pb.vertices[0] = b->center1;
  pb.vertices[1] = b->center2;
  pb.normals[0] = sn_normalize(sn_right_perp(sn_sub(b->center2, b->center1)));
  pb.normals[1] = sn_neg(pb.normals[0]);
  pb.centroid = sn_lerp(b->center1, b->center2, 0.5f);
  pb.radius = b->radius;
  pb.count = 2;
  if (a->count == 4) {
    polygons_n(m, a, *xf_a, &pb, *xf_b, cache, 4, 2);
  } else {
    polygons_n(m, a, *xf_a, &pb, *xf_b, cache, a->count, 2);
  }
}

sn_manifold sn_collide_polygon_and_capsule(const sn_polygon *a, sn_transform xf_a, const sn_capsule *b,
                                           sn_transform xf_b) {
  return collide_polygon_capsule_cached(a, xf_a, b, xf_b, NULL);
}

static sn_manifold collide_segment_polygon_cached(const sn_segment *a, sn_transform xf_a, const sn_polygon *b,
                                                  sn_transform xf_b, sn_simplex_cache *cache) {
  sn_polygon pa = sn_make_capsule_polygon(a->point1, a->point2, 0.0f);
  return collide_polygons_cached(&pa, xf_a, b, xf_b, cache);
}

sn_manifold sn_collide_segment_and_polygon(const sn_segment *a, sn_transform xf_a, const sn_polygon *b,
                                           sn_transform xf_b) {
  return collide_segment_polygon_cached(a, xf_a, b, xf_b, NULL);
}

/* ------------------------------------------------------- chain segments */

/// The free side of a chain segment, where shapes live: to the right of
/// point1 -> point2 (the solid is on the left, so a counter-clockwise loop
/// is solid like a polygon and a clockwise loop is a container). This is
/// the only place that encodes the convention.
static inline sn_vec2 chain_normal(sn_vec2 direction) { return sn_right_perp(direction); }

/// A chain segment in A's frame with what the neighbours tell about its corners.
typedef struct sn_chain_frame {
  sn_vec2 v1, v2;        ///< segment ends
  sn_vec2 u;             ///< unit direction v1 -> v2
  float length;          ///< |v2 - v1|
  sn_vec2 n;             ///< free-side unit normal
  sn_vec2 n1, n2;        ///< normals of the previous / next segment
  bool convex1, convex2; ///< the outline turns towards the solid at v1 / v2
  sn_vec2 sv[2], sn[2];  ///< the segment as a 2-gon
  int32_t face;          ///< edge of the 2-gon whose normal is n
} sn_chain_frame;

static bool chain_frame_make(sn_chain_frame *f, const sn_chain_segment *c) {
  f->v1 = c->segment.point1;
  f->v2 = c->segment.point2;
  sn_vec2 e = sn_sub(f->v2, f->v1);
  f->u = sn_get_length_and_normalize(&f->length, e);
  if (f->length < FLT_EPSILON) return false;
  f->n = chain_normal(f->u);
  // A corner is convex when the next edge turns away from the free side.
  // The same products are evaluated by both segments of a corner, so they
  // always agree on it.
  sn_vec2 d1 = sn_sub(f->v1, c->ghost1), d2 = sn_sub(c->ghost2, f->v2);
  f->convex1 = sn_dot(e, chain_normal(d1)) < 0.0f;
  f->convex2 = sn_dot(d2, chain_normal(e)) < 0.0f;
  f->n1 = chain_normal(sn_normalize(d1));
  f->n2 = chain_normal(sn_normalize(d2));
  f->sv[0] = f->v1;
  f->sv[1] = f->v2;
  f->sn[0] = sn_right_perp(f->u);
  f->sn[1] = sn_left_perp(f->u);
  f->face = sn_dot(f->sn[0], f->n) > 0.0f ? 0 : 1;
  return true;
}

/// At a convex corner the outline's normals fan from this segment's normal
/// n to the neighbour's normal nb. This segment owns the half of the fan
/// nearer to n; the neighbour owns the rest (the slack lets both claim the
/// bisector rather than neither).
static bool chain_owns_normal(sn_vec2 nc, sn_vec2 n, sn_vec2 nb) {
  float span = sn_cross(n, nb);
  float sign = span >= 0.0f ? 1.0f : -1.0f;
  if (sign * sn_cross(n, nc) < -SN_WEDGE_TOL || sign * sn_cross(nc, nb) < -SN_WEDGE_TOL) return false;
  return sn_dot(nc, n) + SN_WEDGE_TOL >= sn_dot(nc, nb);
}

/// True if this segment may report a contact with normal nc at its corner
/// `corner` (0 at v1, 1 at v2).
static bool chain_corner_admits(const sn_chain_frame *f, int32_t corner, sn_vec2 nc) {
  bool convex = corner == 0 ? f->convex1 : f->convex2;
  return convex && chain_owns_normal(nc, f->n, corner == 0 ? f->n1 : f->n2);
}

static sn_manifold chain_disc_local(const sn_chain_frame *f, sn_vec2 c, float r) {
  sn_manifold m = empty_manifold();
  const sn_vec2 rel = sn_sub(c, f->v1);
  const float height = sn_dot(rel, f->n);
  if (height < 0.0f) return m; // centre behind the one-sided segment
  if (height - r >= SN_SPECULATIVE_DISTANCE) return m;

  const float s = sn_dot(rel, f->u);
  bool face = s >= 0.0f && s <= f->length;
  sn_vec2 normal = f->n, closest = sn_mul_sub(c, height, f->n);
  float separation = height - r;
  if (!face) {
    int32_t corner = s < 0.0f ? 0 : 1;
    sn_vec2 v = corner == 0 ? f->v1 : f->v2;
    float dist = 0.0f;
    sn_vec2 nc = sn_get_length_and_normalize(&dist, sn_sub(c, v));
    if (dist == 0.0f || sn_dot(nc, f->n) >= SN_CHAIN_FACE_COS) {
      face = true; // straight above the end: the face contact, extended
    } else {
      if (!chain_corner_admits(f, corner, nc)) return m;
      normal = nc;
      closest = v;
      separation = dist - r;
      if (separation >= SN_SPECULATIVE_DISTANCE) return m;
    }
  }
  sn_vec2 surface_b = sn_mul_sub(c, r, normal);
  add_point(&m, sn_lerp(closest, surface_b, 0.5f), separation, 0);
  m.normal = normal;
  return m;
}

/// Chain segment against a (possibly rounded) polygon in A's frame.
static sn_manifold chain_polygon_local(const sn_chain_frame *f, const sn_poly_view *b, sn_vec2 centroid,
                                       sn_simplex_cache *cache) {
  sn_manifold m = empty_manifold();
  if (sn_dot(sn_sub(centroid, f->v1), f->n) < 0.0f) return m; // behind the one-sided segment
  const sn_poly_view seg = {f->sv, f->sn, 2, 0.0f};

  sn_distance_input input;
  memset(&input, 0, sizeof input);
  input.proxy_a = sn_make_proxy_points(f->sv, 2, 0.0f);
  input.proxy_b = sn_make_proxy_points(b->v, b->count, 0.0f);
  input.transform_a = sn_transform_identity();
  input.transform_b = sn_transform_identity();
  sn_simplex_cache local = {0, {0, 0, 0}, {0, 0, 0}};
  sn_simplex_cache *c = cache != NULL ? cache : &local;
  sn_distance_output out = sn_shape_distance(&input, c);
  if (out.distance - b->radius >= SN_SPECULATIVE_DISTANCE) return m;

  if (out.distance > SN_CORE_APART) {
    const sn_vec2 nc = out.normal;
    const float along = sn_dot(nc, f->n);
    if (along <= 0.0f) return m; // beside or behind the segment
    // closest feature of the segment: its interior (-1) or an end (0, 1)
    int32_t corner = (c->count == 2 && c->index_a[0] != c->index_a[1]) ? -1 : c->index_a[0];
    if (corner < 0 || along >= SN_CHAIN_FACE_COS) {
      clip_reference(&m, &seg, f->face, b, false, SN_CLIP_STRICT);
      if (m.point_count > 0 || corner < 0) return m;
      m = empty_manifold();
    }
    if (!chain_corner_admits(f, corner, nc)) return m;
    // rounded contact at a convex corner this segment owns
    sn_vec2 surface_b = sn_mul_sub(out.point_b, b->radius, nc);
    uint16_t id = SN_MAKE_ID(corner, c->index_b[0]);
    add_point(&m, sn_lerp(out.point_a, surface_b, 0.5f), out.distance - b->radius, id);
    m.normal = nc;
    return m;
  }

  // Cores touch: SAT, but only on axes the smooth outline can produce here,
  // so the polygon's side faces never push it back at a seam.
  float sep_seg = FLT_MAX;
  for (int32_t j = 0; j < b->count; ++j) sep_seg = sn_minf(sep_seg, sn_dot(f->n, sn_sub(b->v[j], f->v1)));
  int32_t best = -1;
  float best_sep = -FLT_MAX;
  for (int32_t j = 0; j < b->count; ++j) {
    sn_vec2 contact_normal = sn_neg(b->n[j]);
    bool admissible = sn_dot(contact_normal, f->n) >= SN_CHAIN_FACE_COS || chain_corner_admits(f, 0, contact_normal) ||
                      chain_corner_admits(f, 1, contact_normal);
    if (!admissible) continue;
    float s = sn_minf(sn_dot(b->n[j], sn_sub(f->v1, b->v[j])), sn_dot(b->n[j], sn_sub(f->v2, b->v[j])));
    if (s > best_sep) {
      best_sep = s;
      best = j;
    }
  }
  if (best >= 0 && best_sep > sep_seg + SN_REFERENCE_ABS_TOL + SN_REFERENCE_REL_TOL * sn_absf(sep_seg)) {
    clip_reference(&m, b, best, &seg, true, SN_CLIP_STRICT);
  } else {
    clip_reference(&m, &seg, f->face, b, false, SN_CLIP_STRICT);
  }
  return m;
}

sn_manifold sn_collide_chain_segment_and_circle(const sn_chain_segment *a, sn_transform xf_a, const sn_circle *b,
                                                sn_transform xf_b) {
  sn_chain_frame f;
  if (!chain_frame_make(&f, a)) return empty_manifold();
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_manifold m = chain_disc_local(&f, sn_transform_point(xf, b->center), b->radius);
  to_world(&m, xf_a, xf_b);
  return m;
}

sn_manifold sn_collide_chain_segment_and_polygon(const sn_chain_segment *a, sn_transform xf_a, const sn_polygon *b,
                                                 sn_transform xf_b, sn_simplex_cache *cache) {
  sn_chain_frame f;
  if (!chain_frame_make(&f, a)) return empty_manifold();
  sn_transform xf = sn_inv_mul_transforms(xf_a, xf_b);
  sn_vec2 bv[SN_MAX_POLYGON_VERTICES], bn[SN_MAX_POLYGON_VERTICES];
  bring_polygon(b, xf, bv, bn);
  sn_poly_view vb = {bv, bn, b->count, b->radius};
  sn_manifold m = chain_polygon_local(&f, &vb, sn_transform_point(xf, b->centroid), cache);
  to_world(&m, xf_a, xf_b);
  return m;
}

sn_manifold sn_collide_chain_segment_and_capsule(const sn_chain_segment *a, sn_transform xf_a, const sn_capsule *b,
                                                 sn_transform xf_b, sn_simplex_cache *cache) {
  if (!capsule_has_axis(b)) {
    sn_circle disc = {b->center1, b->radius};
    return sn_collide_chain_segment_and_circle(a, xf_a, &disc, xf_b);
  }
  sn_polygon pb = sn_make_capsule_polygon(b->center1, b->center2, b->radius);
  return sn_collide_chain_segment_and_polygon(a, xf_a, &pb, xf_b, cache);
}

/* ------------------------------------------------------------- dispatch */

/* The allowance is a slop, 1e-4 of the coordinates' size (hundreds of float
 * steps) and 1e-3 of B's radius. These pairs report a point only when a
 * distance that is at least the gap between the boxes is below the
 * speculative distance:
 * - circles and capsules (discs_local, capsules_local): the distance of
 *   points on the cores, less the radii;
 * - a chain segment against a circle (chain_disc_local): the centre's height
 *   over the segment's line where the centre projects onto the segment, else
 *   its distance to the end, whose height counts instead when its direction
 *   is within 1.8 degrees of the normal (cosine SN_CHAIN_FACE_COS = 0.9995:
 *   the 1e-3 of the radius covers the 5e-4 of the distance lost there).
 * None of them reads or writes the simplex cache. Polygons are left out: SAT
 * can report less than the true distance at sharp corners, and their rounded
 * and chain pairs warm start GJK from the cache. */
bool sn_round_pair_far_apart(const sn_geometry *a, sn_aabb box_a, const sn_geometry *b, sn_aabb box_b) {
  float radius_b;
  if (b->type == SN_SHAPE_CIRCLE) {
    if (a->type != SN_SHAPE_CAPSULE && a->type != SN_SHAPE_SEGMENT && a->type != SN_SHAPE_CHAIN_SEGMENT) return false;
    radius_b = b->circle.radius;
  } else if (b->type == SN_SHAPE_CAPSULE) {
    if (a->type != SN_SHAPE_CAPSULE && a->type != SN_SHAPE_SEGMENT) return false;
    radius_b = b->capsule.radius;
  } else {
    return false;
  }
  const float gap = sn_maxf(sn_maxf(box_b.lower.x - box_a.upper.x, box_a.lower.x - box_b.upper.x),
                            sn_maxf(box_b.lower.y - box_a.upper.y, box_a.lower.y - box_b.upper.y));
  const float size = sn_maxf(sn_maxf(sn_absf(box_a.lower.x), sn_absf(box_a.upper.x)),
                             sn_maxf(sn_absf(box_a.lower.y), sn_absf(box_a.upper.y)));
  return gap > SN_SPECULATIVE_DISTANCE + SN_LINEAR_SLOP + 1.0e-4f * size + 1.0e-3f * radius_b;
}

bool sn_collide_supported(sn_shape_type type_a, sn_shape_type type_b) {
  switch (type_a) {
  case SN_SHAPE_CIRCLE:
    return type_b == SN_SHAPE_CIRCLE;
  case SN_SHAPE_CAPSULE:
  case SN_SHAPE_SEGMENT:
    return type_b == SN_SHAPE_CIRCLE || type_b == SN_SHAPE_CAPSULE;
  case SN_SHAPE_POLYGON:
    return type_b == SN_SHAPE_CIRCLE || type_b == SN_SHAPE_CAPSULE || type_b == SN_SHAPE_SEGMENT ||
           type_b == SN_SHAPE_POLYGON;
  case SN_SHAPE_CHAIN_SEGMENT:
    return type_b == SN_SHAPE_CIRCLE || type_b == SN_SHAPE_CAPSULE || type_b == SN_SHAPE_POLYGON;
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return false;
}

sn_manifold sn_collide(const sn_geometry *a, sn_transform xf_a, const sn_geometry *b, sn_transform xf_b,
                       sn_simplex_cache *cache) {
  switch (a->type) {
  case SN_SHAPE_CIRCLE:
    if (b->type == SN_SHAPE_CIRCLE) return sn_collide_circles(&a->circle, xf_a, &b->circle, xf_b);
    break;
  case SN_SHAPE_CAPSULE:
    if (b->type == SN_SHAPE_CIRCLE) return sn_collide_capsule_and_circle(&a->capsule, xf_a, &b->circle, xf_b);
    if (b->type == SN_SHAPE_CAPSULE) return sn_collide_capsules(&a->capsule, xf_a, &b->capsule, xf_b);
    break;
  case SN_SHAPE_SEGMENT:
    if (b->type == SN_SHAPE_CIRCLE) return sn_collide_segment_and_circle(&a->segment, xf_a, &b->circle, xf_b);
    if (b->type == SN_SHAPE_CAPSULE) return sn_collide_segment_and_capsule(&a->segment, xf_a, &b->capsule, xf_b);
    break;
  case SN_SHAPE_POLYGON:
    switch (b->type) {
    case SN_SHAPE_CIRCLE:
      return sn_collide_polygon_and_circle(&a->polygon, xf_a, &b->circle, xf_b);
    case SN_SHAPE_CAPSULE:
      return collide_polygon_capsule_cached(&a->polygon, xf_a, &b->capsule, xf_b, cache);
    case SN_SHAPE_SEGMENT:
      // computed as segment (A) against polygon (B), then seen from the polygon
      return swap_roles(collide_segment_polygon_cached(&b->segment, xf_b, &a->polygon, xf_a, cache));
    case SN_SHAPE_POLYGON:
      return collide_polygons_cached(&a->polygon, xf_a, &b->polygon, xf_b, cache);
    case SN_SHAPE_CHAIN_SEGMENT: /* a chain segment is always shape A */
    case SN_SHAPE_TYPE_COUNT:
      break;
    }
    break;
  case SN_SHAPE_CHAIN_SEGMENT:
    switch (b->type) {
    case SN_SHAPE_CIRCLE:
      return sn_collide_chain_segment_and_circle(&a->chain_segment, xf_a, &b->circle, xf_b);
    case SN_SHAPE_CAPSULE:
      return sn_collide_chain_segment_and_capsule(&a->chain_segment, xf_a, &b->capsule, xf_b, cache);
    case SN_SHAPE_POLYGON:
      return sn_collide_chain_segment_and_polygon(&a->chain_segment, xf_a, &b->polygon, xf_b, cache);
    case SN_SHAPE_SEGMENT: /* two one-sided or massless lines never collide */
    case SN_SHAPE_CHAIN_SEGMENT:
    case SN_SHAPE_TYPE_COUNT:
      break;
    }
    break;
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return empty_manifold();
}

void sn_collide_into(const sn_geometry *a, const sn_transform *xf_a, const sn_geometry *b, const sn_transform *xf_b,
                     sn_simplex_cache *cache, bool use_avx2, sn_manifold *m) {
  if (a->type == SN_SHAPE_POLYGON && b->type == SN_SHAPE_POLYGON) {
    if (a->polygon.count == 4 && b->polygon.count == 4) {
#if SN_MANIFOLD_AVX2
      if (use_avx2) {
        polygons_quad_avx2(m, &a->polygon, xf_a, &b->polygon, xf_b, cache);
        return;
      }
#else
      (void)use_avx2;
#endif
      polygons_quad(m, &a->polygon, xf_a, &b->polygon, xf_b, cache);
    } else {
      collide_polygons_into(&a->polygon, *xf_a, &b->polygon, *xf_b, cache, m);
    }
  } else if (a->type == SN_SHAPE_POLYGON && b->type == SN_SHAPE_CIRCLE) {
    polygon_circle_into(m, &a->polygon, xf_a, &b->circle, xf_b);
  } else if (a->type == SN_SHAPE_POLYGON && b->type == SN_SHAPE_CAPSULE) {
    polygon_capsule_into(m, &a->polygon, xf_a, &b->capsule, xf_b, cache);
  } else if (a->type == SN_SHAPE_CIRCLE && b->type == SN_SHAPE_CIRCLE) {
    circles_into(m, &a->circle, xf_a, &b->circle, xf_b);
  } else if (a->type == SN_SHAPE_CAPSULE && b->type == SN_SHAPE_CIRCLE) {
    capsule_circle_into(m, &a->capsule, xf_a, &b->circle, xf_b);
  } else if (a->type == SN_SHAPE_CAPSULE && b->type == SN_SHAPE_CAPSULE) {
    capsules_into(m, &a->capsule, xf_a, &b->capsule, xf_b);
  } else {
    *m = sn_collide(a, *xf_a, b, *xf_b, cache);
  }
}
