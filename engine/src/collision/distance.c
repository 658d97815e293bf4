/* GJK distance between convex proxies, closest points of two segments, body
 * sweeps and time of impact by conservative advancement.
 *
 * GJK works on the Minkowski difference B - A in A's local frame: every
 * simplex vertex is w = wb - wa with wa a vertex of A and wb a vertex of B,
 * and the closest point of the simplex to the origin is tracked with
 * barycentric weights (Voronoi regions of the simplex, Ericson, "Real-Time
 * Collision Detection" 9.5; Catto, "Computing Distance", GDC 2010).
 * The simplex vertex indices can be cached between calls (warm start). */
#include <float.h>
#include <string.h>

#include "collision/distance.h"
#include "collision/support.h"
#include "base/constants.h"
#include "base/math.h"

/// Upper bound on GJK iterations; two 8-gons need far fewer.
#define SN_GJK_MAX_ITERATIONS 32
/// Conservative advancement steps before giving up (state FAILED).
#define SN_TOI_MAX_ITERATIONS 64
/// Bisection steps used when an advancement step overshoots the target.
#define SN_TOI_MAX_BISECTIONS 48

/* ------------------------------------------------------------------ proxies */

sn_shape_proxy sn_make_proxy_points(const sn_vec2 *points, int32_t count, float radius) {
  sn_shape_proxy proxy;
  memset(&proxy, 0, sizeof proxy);
  int32_t n = sn_mini(sn_maxi(count, 0), SN_MAX_POLYGON_VERTICES);
  for (int32_t i = 0; i < n; ++i) proxy.points[i] = points[i];
  proxy.count = n;
  proxy.radius = radius;
  return proxy;
}

sn_shape_proxy sn_geometry_proxy(const sn_geometry *g) {
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return sn_make_proxy_points(&g->circle.center, 1, g->circle.radius);
  case SN_SHAPE_CAPSULE: {
    sn_vec2 p[2] = {g->capsule.center1, g->capsule.center2};
    return sn_make_proxy_points(p, 2, g->capsule.radius);
  }
  case SN_SHAPE_SEGMENT: {
    sn_vec2 p[2] = {g->segment.point1, g->segment.point2};
    return sn_make_proxy_points(p, 2, 0.0f);
  }
  case SN_SHAPE_POLYGON:
    return sn_make_proxy_points(g->polygon.vertices, g->polygon.count, g->polygon.radius);
  case SN_SHAPE_CHAIN_SEGMENT: {
    sn_vec2 p[2] = {g->chain_segment.segment.point1, g->chain_segment.segment.point2};
    return sn_make_proxy_points(p, 2, 0.0f);
  }
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return sn_make_proxy_points(NULL, 0, 0.0f);
}

/* -------------------------------------------------------------------- GJK */

/// One vertex of the simplex on the Minkowski difference B - A.
typedef struct sn_gjk_vertex {
  sn_vec2 wa;     ///< vertex of A (A's frame)
  sn_vec2 wb;     ///< vertex of B (A's frame)
  sn_vec2 w;      ///< wb - wa
  float weight;   ///< barycentric weight of the closest point
  int32_t ia, ib; ///< proxy indices of wa and wb
} sn_gjk_vertex;

typedef struct sn_gjk_simplex {
  sn_gjk_vertex v[3];
  int32_t count;
} sn_gjk_simplex;

static sn_gjk_vertex make_vertex(const sn_vec2 *pa, int32_t ia, const sn_vec2 *pb, int32_t ib) {
  sn_gjk_vertex v;
  v.wa = pa[ia];
  v.wb = pb[ib];
  v.w = sn_sub(v.wb, v.wa);
  v.weight = 1.0f;
  v.ia = ia;
  v.ib = ib;
  return v;
}

/// Closest point of segment w1-w2 to the origin; reduces to a vertex when the
/// origin lies beyond one end.
static void simplex_solve2(sn_gjk_simplex *s) {
  sn_vec2 w1 = s->v[0].w, w2 = s->v[1].w;
  sn_vec2 e = sn_sub(w2, w1);
  // unnormalised barycentric coordinates: t * |e|^2 for w2, (1 - t) * |e|^2 for w1
  float toward2 = -sn_dot(w1, e);
  if (toward2 <= 0.0f) {
    s->v[0].weight = 1.0f;
    s->count = 1;
    return;
  }
  float toward1 = sn_dot(w2, e);
  if (toward1 <= 0.0f) {
    s->v[0] = s->v[1];
    s->v[0].weight = 1.0f;
    s->count = 1;
    return;
  }
  float inv = 1.0f / (toward1 + toward2);
  s->v[0].weight = toward1 * inv;
  s->v[1].weight = toward2 * inv;
  s->count = 2;
}

/// Closest point of triangle w1-w2-w3 to the origin by its Voronoi regions:
/// three vertex regions, three edge regions and the interior.
static void simplex_solve3(sn_gjk_simplex *s) {
  sn_vec2 w1 = s->v[0].w, w2 = s->v[1].w, w3 = s->v[2].w;

  // edge 1-2: e12_a weights w1, e12_b weights w2 (both positive inside the edge)
  sn_vec2 e12 = sn_sub(w2, w1);
  float e12_a = sn_dot(w2, e12);
  float e12_b = -sn_dot(w1, e12);
  sn_vec2 e13 = sn_sub(w3, w1);
  float e13_a = sn_dot(w3, e13);
  float e13_c = -sn_dot(w1, e13);
  sn_vec2 e23 = sn_sub(w3, w2);
  float e23_b = sn_dot(w3, e23);
  float e23_c = -sn_dot(w2, e23);

  // signed sub-areas of the triangle as seen from the origin
  float area = sn_cross(e12, e13);
  float t_a = area * sn_cross(w2, w3);
  float t_b = area * sn_cross(w3, w1);
  float t_c = area * sn_cross(w1, w2);

  if (e12_b <= 0.0f && e13_c <= 0.0f) {
    s->v[0].weight = 1.0f;
    s->count = 1;
    return;
  }
  if (e12_a > 0.0f && e12_b > 0.0f && t_c <= 0.0f) {
    float inv = 1.0f / (e12_a + e12_b);
    s->v[0].weight = e12_a * inv;
    s->v[1].weight = e12_b * inv;
    s->count = 2;
    return;
  }
  if (e13_a > 0.0f && e13_c > 0.0f && t_b <= 0.0f) {
    float inv = 1.0f / (e13_a + e13_c);
    s->v[0].weight = e13_a * inv;
    s->v[2].weight = e13_c * inv;
    s->v[1] = s->v[2];
    s->count = 2;
    return;
  }
  if (e12_a <= 0.0f && e23_c <= 0.0f) {
    s->v[0] = s->v[1];
    s->v[0].weight = 1.0f;
    s->count = 1;
    return;
  }
  if (e13_a <= 0.0f && e23_b <= 0.0f) {
    s->v[0] = s->v[2];
    s->v[0].weight = 1.0f;
    s->count = 1;
    return;
  }
  if (e23_b > 0.0f && e23_c > 0.0f && t_a <= 0.0f) {
    float inv = 1.0f / (e23_b + e23_c);
    s->v[1].weight = e23_b * inv;
    s->v[2].weight = e23_c * inv;
    s->v[0] = s->v[2];
    s->count = 2;
    return;
  }
  // interior: the origin is inside the triangle
  float inv = 1.0f / (t_a + t_b + t_c);
  s->v[0].weight = t_a * inv;
  s->v[1].weight = t_b * inv;
  s->v[2].weight = t_c * inv;
  s->count = 3;
}

/// Direction from the simplex towards the origin (not normalised). For an
/// edge the exact perpendicular is used, which is more accurate than the
/// negated closest point when the origin is close to the edge.
static sn_vec2 simplex_search_direction(const sn_gjk_simplex *s) {
  if (s->count == 1) return sn_neg(s->v[0].w);
  sn_vec2 e = sn_sub(s->v[1].w, s->v[0].w);
  float side = sn_cross(e, sn_neg(s->v[0].w));
  return side > 0.0f ? sn_left_perp(e) : sn_right_perp(e);
}

static void simplex_witness(const sn_gjk_simplex *s, sn_vec2 *pa, sn_vec2 *pb) {
  sn_vec2 a = {0.0f, 0.0f}, b = {0.0f, 0.0f};
  for (int32_t i = 0; i < s->count; ++i) {
    a = sn_mul_add(a, s->v[i].weight, s->v[i].wa);
    b = sn_mul_add(b, s->v[i].weight, s->v[i].wb);
  }
  if (s->count == 3) b = a; // the origin is enclosed: one common point
  *pa = a;
  *pb = b;
}

/// Rebuilds the simplex from the cache; false if the cache is empty, refers
/// to vertices that no longer exist, or is degenerate.
static bool simplex_from_cache(sn_gjk_simplex *s, const sn_simplex_cache *cache, const sn_vec2 *pa, int32_t ca,
                               const sn_vec2 *pb, int32_t cb) {
  if (cache == NULL || cache->count < 1 || cache->count > 3) return false;
  s->count = cache->count;
  for (int32_t i = 0; i < s->count; ++i) {
    int32_t ia = cache->index_a[i], ib = cache->index_b[i];
    if (ia >= ca || ib >= cb) return false;
    s->v[i] = make_vertex(pa, ia, pb, ib);
  }
  const float tiny = 1.0e-12f;
  if (s->count == 2 && sn_distance_sq(s->v[0].w, s->v[1].w) < tiny) return false;
  if (s->count == 3) {
    float area = sn_cross(sn_sub(s->v[1].w, s->v[0].w), sn_sub(s->v[2].w, s->v[0].w));
    if (sn_absf(area) < tiny) return false;
  }
  return true;
}

sn_distance_output sn_shape_distance(const sn_distance_input *input, sn_simplex_cache *cache) {
  sn_distance_output out;
  memset(&out, 0, sizeof out);
  const sn_shape_proxy *proxy_a = &input->proxy_a, *proxy_b = &input->proxy_b;
  if (proxy_a->count < 1 || proxy_b->count < 1) return out;

  // Work in A's frame: B's points are brought over once.
  sn_transform xf = sn_inv_mul_transforms(input->transform_a, input->transform_b);
  const sn_vec2 *pa = proxy_a->points;
  const int32_t ca = proxy_a->count, cb = proxy_b->count;
  sn_vec2 pb[SN_MAX_POLYGON_VERTICES];
  for (int32_t i = 0; i < cb; ++i) pb[i] = sn_transform_point(xf, proxy_b->points[i]);

  sn_gjk_simplex s;
  if (!simplex_from_cache(&s, cache, pa, ca, pb, cb)) {
    s.count = 1;
    s.v[0] = make_vertex(pa, 0, pb, 0);
  }

  int32_t iter = 0;
  while (iter < SN_GJK_MAX_ITERATIONS) {
    // vertices of this round, to detect a repeated support pair
    int32_t saved_a[3], saved_b[3];
    const int32_t saved_count = s.count;
    for (int32_t i = 0; i < saved_count; ++i) {
      saved_a[i] = s.v[i].ia;
      saved_b[i] = s.v[i].ib;
    }

    if (s.count == 2)
      simplex_solve2(&s);
    else if (s.count == 3)
      simplex_solve3(&s);

    if (s.count == 3) break; // origin enclosed: the cores overlap

    sn_vec2 d = simplex_search_direction(&s);
    if (sn_length_sq(d) < FLT_EPSILON * FLT_EPSILON) break; // origin on the simplex: touching

    // support of B - A along d: furthest B point along d, furthest A point against d
    int32_t ia = sn_support_index(pa, ca, sn_neg(d));
    int32_t ib = sn_support_index(pb, cb, d);
    sn_gjk_vertex v = make_vertex(pa, ia, pb, ib);
    ++iter;

    bool duplicate = false;
    for (int32_t i = 0; i < saved_count; ++i) {
      if (saved_a[i] == ia && saved_b[i] == ib) {
        duplicate = true;
        break;
      }
    }
    if (duplicate) break;

    // no progress along d beyond the current simplex: the closest point is final
    float progress = sn_dot(sn_sub(v.w, s.v[0].w), d);
    float scale = sn_length(d) * (sn_length(v.w) + sn_length(s.v[0].w) + 1.0f);
    if (progress <= 1.0e-6f * scale) break;

    s.v[s.count] = v;
    s.count += 1;
  }

  sn_vec2 wa, wb;
  simplex_witness(&s, &wa, &wb);
  float distance = 0.0f;
  sn_vec2 normal = sn_get_length_and_normalize(&distance, sn_sub(wb, wa));
  if (s.count == 3 || distance < FLT_EPSILON) {
    distance = 0.0f;
    normal = sn_v2(0.0f, 0.0f);
  }

  if (input->use_radii) {
    float ra = proxy_a->radius, rb = proxy_b->radius;
    if (distance > ra + rb) {
      distance -= ra + rb;
      wa = sn_mul_add(wa, ra, normal);
      wb = sn_mul_sub(wb, rb, normal);
    } else {
      // the rounded shapes overlap: report one point midway
      sn_vec2 p = sn_lerp(wa, wb, 0.5f);
      wa = p;
      wb = p;
      distance = 0.0f;
    }
  }

  if (cache != NULL) {
    cache->count = (uint16_t)s.count;
    for (int32_t i = 0; i < s.count; ++i) {
      cache->index_a[i] = (uint8_t)s.v[i].ia;
      cache->index_b[i] = (uint8_t)s.v[i].ib;
    }
  }

  out.point_a = sn_transform_point(input->transform_a, wa);
  out.point_b = sn_transform_point(input->transform_a, wb);
  out.normal = sn_rotate(input->transform_a.q, normal);
  out.distance = distance;
  out.iterations = iter;
  out.simplex_count = s.count;
  return out;
}

/* ------------------------------------------------------- segment distance */

sn_segment_distance_result sn_segment_distance(sn_vec2 p1, sn_vec2 q1, sn_vec2 p2, sn_vec2 q2) {
  // Minimise |p1 + s d1 - (p2 + t d2)|^2 over the unit square (s, t):
  // the unconstrained optimum on the line of 1 clamped, then t from it, then
  // s re-solved if t had to be clamped (Ericson 5.1.9).
  sn_segment_distance_result r;
  sn_vec2 d1 = sn_sub(q1, p1), d2 = sn_sub(q2, p2), w = sn_sub(p1, p2);
  float len1 = sn_dot(d1, d1), len2 = sn_dot(d2, d2);
  float b = sn_dot(d2, w);
  const float eps = FLT_EPSILON * FLT_EPSILON;
  float s = 0.0f, t = 0.0f;
  if (len1 <= eps && len2 <= eps) {
    // two points
  } else if (len1 <= eps) {
    t = sn_clampf(b / len2, 0.0f, 1.0f);
  } else {
    float c = sn_dot(d1, w);
    if (len2 <= eps) {
      s = sn_clampf(-c / len1, 0.0f, 1.0f);
    } else {
      float k = sn_dot(d1, d2);
      float denom = len1 * len2 - k * k;
      // parallel segments: any s works; start at the first end point
      s = denom > FLT_EPSILON * len1 * len2 ? sn_clampf((k * b - c * len2) / denom, 0.0f, 1.0f) : 0.0f;
      t = (k * s + b) / len2;
      if (t < 0.0f) {
        t = 0.0f;
        s = sn_clampf(-c / len1, 0.0f, 1.0f);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = sn_clampf((k - c) / len1, 0.0f, 1.0f);
      }
    }
  }
  r.fraction1 = s;
  r.fraction2 = t;
  r.closest1 = sn_mul_add(p1, s, d1);
  r.closest2 = sn_mul_add(p2, t, d2);
  r.distance_squared = sn_distance_sq(r.closest1, r.closest2);
  return r;
}

/* ------------------------------------------------------------------ sweep */

sn_transform sn_sweep_get_transform(const sn_sweep *sweep, float t) {
  // centre of mass linearly, rotation by normalised linear interpolation
  sn_vec2 c = sn_lerp(sweep->c1, sweep->c2, t);
  sn_rot q = {(1.0f - t) * sweep->q1.c + t * sweep->q2.c, (1.0f - t) * sweep->q1.s + t * sweep->q2.s};
  q = sn_normalize_rot(q);
  sn_transform xf;
  xf.q = q;
  xf.p = sn_sub(c, sn_rotate(q, sweep->local_center));
  return xf;
}

/* ---------------------------------------------------------- time of impact */

/// Largest distance of a proxy point from the centre of mass.
static float proxy_reach(const sn_shape_proxy *proxy, sn_vec2 local_center) {
  float reach = 0.0f;
  for (int32_t i = 0; i < proxy->count; ++i) reach = sn_maxf(reach, sn_distance(proxy->points[i], local_center));
  return reach;
}

/// Bound on the angular rate (per unit fraction) of the normalised linear
/// interpolation from q1 to q2. For a total angle theta the chord
/// interpolation turns fastest at its midpoint, at 2 tan(theta / 2) >= theta.
static float sweep_angular_bound(const sn_sweep *sweep) {
  /* a sweep that does not turn (a body at rest, a static one): 2 tan(0) */
  if (sweep->q1.c == sweep->q2.c && sweep->q1.s == sweep->q2.s) return 0.0f;
  float theta = sn_absf(sn_relative_angle(sweep->q1, sweep->q2));
  theta = sn_minf(theta, 0.98f * SN_PI);
  return 2.0f * tanf(0.5f * theta);
}

float sn_sweep_rotation_reach(const sn_sweep *sweep, const sn_shape_proxy *proxy) {
  return sweep_angular_bound(sweep) * proxy_reach(proxy, sweep->local_center);
}

typedef struct sn_toi_context {
  const sn_toi_input *input;
  sn_distance_input distance_input;
  sn_simplex_cache cache;
} sn_toi_context;

/// Core distance at fraction t; also returns the normal from A to B.
static float toi_distance(sn_toi_context *ctx, float t, sn_vec2 *normal) {
  ctx->distance_input.transform_a = sn_sweep_get_transform(&ctx->input->sweep_a, t);
  ctx->distance_input.transform_b = sn_sweep_get_transform(&ctx->input->sweep_b, t);
  sn_distance_output out = sn_shape_distance(&ctx->distance_input, &ctx->cache);
  if (normal != NULL) *normal = out.normal;
  return out.distance;
}

/// Root of distance(t) = target in [lo, hi] by bisection, where distance(lo)
/// is above the target band and distance(hi) below it. Returns a fraction
/// inside the band, or lo (the safe side) if the band is not found.
static float toi_bisect(sn_toi_context *ctx, float lo, float hi, float target, float tolerance) {
  for (int32_t i = 0; i < SN_TOI_MAX_BISECTIONS; ++i) {
    float mid = 0.5f * (lo + hi);
    if (mid <= lo || mid >= hi) break; // float resolution reached
    float d = toi_distance(ctx, mid, NULL);
    if (d < target - tolerance) {
      hi = mid;
    } else if (d > target + tolerance) {
      lo = mid;
    } else {
      return mid;
    }
  }
  return lo;
}

sn_toi_output sn_time_of_impact(const sn_toi_input *input) { return sn_time_of_impact_with(input, -1.0f, -FLT_MAX); }

sn_toi_output sn_time_of_impact_with(const sn_toi_input *input, float rotation_b, float min_separation0) {
  sn_toi_output out = {SN_TOI_UNKNOWN, 0.0f, 0.0f};
  const float t_max = sn_clampf(input->max_fraction, 0.0f, 1.0f);

  sn_toi_context ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.input = input;
  ctx.distance_input.proxy_a = input->proxy_a;
  ctx.distance_input.proxy_b = input->proxy_b;
  ctx.distance_input.use_radii = false;
  if (input->proxy_a.count < 1 || input->proxy_b.count < 1) {
    out.state = SN_TOI_FAILED;
    return out;
  }

  // Target: the cores stop a little inside the rounded surfaces (or a slop
  // apart for sharp shapes), accepted within +-tolerance.
  const float total_radius = input->proxy_a.radius + input->proxy_b.radius;
  const float target = sn_maxf(SN_LINEAR_SLOP, total_radius - SN_LINEAR_SLOP);
  const float tolerance = 0.25f * SN_LINEAR_SLOP;

  // Bound on how fast any point of B approaches A along a normal n, per
  // unit fraction: n . (relative centre motion) plus the rotational reach.
  sn_vec2 delta_a = sn_sub(input->sweep_a.c2, input->sweep_a.c1);
  sn_vec2 delta_b = sn_sub(input->sweep_b.c2, input->sweep_b.c1);
  sn_vec2 relative = sn_sub(delta_b, delta_a);
  sn_vec2 normal;
  float d = toi_distance(&ctx, 0.0f, &normal);
  out.separation0 = d - total_radius;
  if (d < target - tolerance) {
    out.state = SN_TOI_OVERLAPPED;
    out.fraction = 0.0f;
    return out;
  }
  if (d < target + tolerance) {
    out.state = SN_TOI_HIT;
    out.fraction = 0.0f;
    return out;
  }
  if (out.separation0 < min_separation0) {
    out.state = SN_TOI_NEAR;
    return out;
  }
  // (only a sweep past its first distance needs the rotation bound: an
  // atan2 and a tan per turning sweep)
  if (!(rotation_b >= 0.0f)) rotation_b = sn_sweep_rotation_reach(&input->sweep_b, &input->proxy_b);
  const float rotation_bound = sn_sweep_rotation_reach(&input->sweep_a, &input->proxy_a) + rotation_b;

  float t = 0.0f;
  for (int32_t iter = 0; iter < SN_TOI_MAX_ITERATIONS; ++iter) {
    // d > target + tolerance here, so the cores are apart and normal is a unit vector
    float approach = -sn_dot(normal, relative) + rotation_bound;
    if (approach <= FLT_EPSILON) {
      // pure translation apart: the distance of two convex sets moving
      // linearly is convex in t, so it never comes back
      out.state = SN_TOI_SEPARATED;
      out.fraction = t_max;
      return out;
    }
    float t_next = t + (d - target) / approach;
    if (t_next >= t_max) t_next = t_max;
    if (!(t_next > t)) {
      out.state = SN_TOI_FAILED;
      out.fraction = t;
      return out;
    }

    float d_next = toi_distance(&ctx, t_next, &normal);
    if (d_next < target - tolerance) {
      // The bound was not conservative (rotation turned the normal): find
      // the crossing between the last safe fraction and this one.
      out.state = SN_TOI_HIT;
      out.fraction = toi_bisect(&ctx, t, t_next, target, tolerance);
      return out;
    }
    if (d_next < target + tolerance) {
      out.state = SN_TOI_HIT;
      out.fraction = t_next;
      return out;
    }
    if (t_next >= t_max) {
      out.state = SN_TOI_SEPARATED;
      out.fraction = t_max;
      return out;
    }
    t = t_next;
    d = d_next;
  }

  out.state = SN_TOI_FAILED;
  out.fraction = t;
  return out;
}
