/* Convex polygons: validation of user outlines, convex hull, box helpers,
 * capsule polygons and the rotation helpers of the public API.
 *
 * Tolerances (one place, shared by make, hull and validate):
 * - points closer than SN_WELD_DISTANCE are one point;
 * - a vertex closer than SN_WELD_DISTANCE to the chord of its neighbours is
 *   collinear (make refuses it, hull drops it);
 * - an outline whose area is below 0.5 * diameter * SN_WELD_DISTANCE (a
 *   triangle of that base and height) is degenerate. */
#include <string.h>

#include "sinew/sinew.h"

#include "base/constants.h"
#include "base/math.h"
#include "geometry/geometry.h"

/// Largest absolute deviation from 1 of a unit normal, and from 0 of the
/// cosine between a normal and its edge, that sn_polygon_validate accepts.
#define SN_NORMAL_TOLERANCE 1.0e-3f

static bool points_are_finite(const sn_vec2 *points, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    if (!sn_vec2_is_finite(points[i])) return false;
  }
  return true;
}

/// Copies the points into out, dropping every point within SN_WELD_DISTANCE of
/// one already kept. Returns the number kept.
static int32_t weld_points(const sn_vec2 *points, int32_t count, sn_vec2 *out) {
  const float weld_sq = SN_WELD_DISTANCE * SN_WELD_DISTANCE;
  int32_t kept = 0;
  for (int32_t i = 0; i < count; ++i) {
    bool unique = true;
    for (int32_t j = 0; j < kept; ++j) {
      if (sn_distance_sq(points[i], out[j]) < weld_sq) {
        unique = false;
        break;
      }
    }
    if (unique) out[kept++] = points[i];
  }
  return kept;
}

/// Twice the signed area of the closed outline (positive when counter-clockwise),
/// measured relative to the first point to keep the products small.
static float twice_signed_area(const sn_vec2 *v, int32_t count) {
  float sum = 0.0f;
  for (int32_t i = 1; i + 1 < count; ++i) sum += sn_cross(sn_sub(v[i], v[0]), sn_sub(v[i + 1], v[0]));
  return sum;
}

/// Largest distance between two of the points.
static float diameter(const sn_vec2 *v, int32_t count) {
  float best = 0.0f;
  for (int32_t i = 0; i < count; ++i) {
    for (int32_t j = i + 1; j < count; ++j) best = sn_maxf(best, sn_distance_sq(v[i], v[j]));
  }
  return sqrtf(best);
}

/// True if the area is too small for the size of the outline.
static bool area_is_degenerate(const sn_vec2 *v, int32_t count) {
  float area = 0.5f * sn_absf(twice_signed_area(v, count));
  float d = diameter(v, count);
  return !(area > 0.5f * d * SN_WELD_DISTANCE);
}

/// Signed distance of p from the line through a and b (positive on the left).
/// Zero when a and b coincide.
static float distance_left_of(sn_vec2 a, sn_vec2 b, sn_vec2 p) {
  float len = 0.0f;
  sn_vec2 axis = sn_get_length_and_normalize(&len, sn_sub(b, a));
  if (len == 0.0f) return 0.0f;
  return sn_cross(axis, sn_sub(p, a));
}

/// Checks a counter-clockwise outline for strict convexity: every vertex lies
/// more than collinear_tolerance outside the chord of its neighbours (left of
/// next -> prev), and every vertex lies strictly left of every edge it is not
/// on (this also rejects star-shaped outlines that turn left everywhere).
static bool is_strictly_convex(const sn_vec2 *v, int32_t count, float collinear_tolerance) {
  for (int32_t i = 0; i < count; ++i) {
    sn_vec2 prev = v[i == 0 ? count - 1 : i - 1];
    sn_vec2 next = v[i + 1 == count ? 0 : i + 1];
    if (!(distance_left_of(next, prev, v[i]) > collinear_tolerance)) return false;
  }
  for (int32_t i = 0; i < count; ++i) {
    int32_t i2 = i + 1 == count ? 0 : i + 1;
    sn_vec2 edge = sn_sub(v[i2], v[i]);
    for (int32_t j = 0; j < count; ++j) {
      if (j == i || j == i2) continue;
      if (!(sn_cross(edge, sn_sub(v[j], v[i])) > 0.0f)) return false;
    }
  }
  return true;
}

/// Area centroid of a counter-clockwise convex outline (triangle fan about
/// the first vertex, which keeps the products small far from the origin).
static sn_vec2 outline_centroid(const sn_vec2 *v, int32_t count) {
  sn_vec2 origin = v[0];
  sn_vec2 sum = {0.0f, 0.0f};
  float area = 0.0f;
  for (int32_t i = 1; i + 1 < count; ++i) {
    sn_vec2 e1 = sn_sub(v[i], origin);
    sn_vec2 e2 = sn_sub(v[i + 1], origin);
    float a = 0.5f * sn_cross(e1, e2);
    // the centroid of triangle (0, e1, e2) is (e1 + e2) / 3
    sum = sn_mul_add(sum, a / 3.0f, sn_add(e1, e2));
    area += a;
  }
  if (area <= 0.0f) return origin;
  return sn_mul_add(origin, 1.0f / area, sum);
}

/// Fills normals, centroid, radius and count of a polygon whose vertices are
/// already in place (counter-clockwise, convex).
static void finish_polygon(sn_polygon *p, int32_t count, float radius) {
  p->count = count;
  p->radius = radius;
  for (int32_t i = 0; i < count; ++i) {
    sn_vec2 edge = sn_sub(p->vertices[i + 1 == count ? 0 : i + 1], p->vertices[i]);
    p->normals[i] = sn_normalize(sn_right_perp(edge));
  }
  p->centroid = outline_centroid(p->vertices, count);
}

static sn_result check_radius(float radius) {
  if (!sn_is_finite(radius)) return SN_ERR_NOT_FINITE;
  if (radius < 0.0f) return SN_ERR_INVALID_ARGUMENT;
  return SN_OK;
}

/// Common front checks of make and hull: pointers, count, finiteness, radius.
static sn_result check_input(const sn_vec2 *points, int32_t count, float radius, const sn_polygon *out) {
  if (points == NULL || out == NULL) return SN_ERR_NULL;
  if (count > SN_MAX_POLYGON_VERTICES) return SN_ERR_TOO_MANY_VERTICES;
  if (count < 3) return SN_ERR_DEGENERATE_POLYGON;
  if (!points_are_finite(points, count)) return SN_ERR_NOT_FINITE;
  return check_radius(radius);
}

sn_result sn_make_polygon(const sn_vec2 *points, int32_t count, float radius, sn_polygon *out) {
  sn_result r = check_input(points, count, radius, out);
  if (r != SN_OK) return r;

  sn_vec2 welded[SN_MAX_POLYGON_VERTICES];
  int32_t n = weld_points(points, count, welded);
  if (n < 3) return SN_ERR_DEGENERATE_POLYGON;

  sn_polygon p;
  memset(&p, 0, sizeof p);
  if (twice_signed_area(welded, n) < 0.0f) {
    // clockwise: reverse the order
    for (int32_t i = 0; i < n; ++i) p.vertices[i] = welded[n - 1 - i];
  } else {
    for (int32_t i = 0; i < n; ++i) p.vertices[i] = welded[i];
  }
  // The area test runs on the final counter-clockwise order: the fan's
  // rounding depends on its first vertex, and a polygon must pass again when
  // its own vertices are given back (a clockwise outline near the threshold
  // once passed from welded[0] and failed from welded[n-1]).
  if (area_is_degenerate(p.vertices, n)) return SN_ERR_DEGENERATE_POLYGON;
  if (!is_strictly_convex(p.vertices, n, SN_WELD_DISTANCE)) return SN_ERR_NON_CONVEX_POLYGON;

  finish_polygon(&p, n, radius);
  // Return only what sn_polygon_validate (and so every shape) accepts. Finite
  // points far from the origin can overflow the centroid's products
  // (SN_ERR_NOT_FINITE), and a needle (say 1e17 m long, 20 m wide) can round
  // its centroid onto an edge (refused as degenerate: too thin for floats).
  r = sn_polygon_validate(&p);
  if (r != SN_OK) return r == SN_ERR_NOT_FINITE ? r : SN_ERR_DEGENERATE_POLYGON;
  *out = p;
  return SN_OK;
}

/// Lexicographic order (x, then y) for the monotone chain.
static bool point_less(sn_vec2 a, sn_vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }

/// Orientation of c against the line a -> b (positive: a left turn), in
/// double precision: float differences and products are exact there (for
/// points within a few orders of magnitude of each other), so the sign does
/// not flip for near-collinear points. In float, (0, 0.5), (0, 0) and
/// (1e-45, -8.75) rounded to collinear and the hull dropped (0, 0.5), its end
/// point, instead of (0, 0) (found by fuzz_polygon).
static double orientation(sn_vec2 a, sn_vec2 b, sn_vec2 c) {
  return ((double)b.x - (double)a.x) * ((double)c.y - (double)a.y) -
         ((double)b.y - (double)a.y) * ((double)c.x - (double)a.x);
}

/// Convex hull of distinct points by Andrew's monotone chain (a sorted variant
/// of gift wrapping). Exactly collinear points are dropped; near-collinear
/// ones are removed afterwards. Writes the hull counter-clockwise and returns
/// its size (may be < 3 for collinear input), or -1 if the orientation tests
/// contradict each other (cross products that overflow to infinity or NaN for
/// points ~1e19 apart), which would make a "hull" of more points than given.
static int32_t monotone_chain(const sn_vec2 *points, int32_t count, sn_vec2 *hull) {
  sn_vec2 sorted[SN_MAX_POLYGON_VERTICES];
  for (int32_t i = 0; i < count; ++i) {
    // insertion sort: at most 8 points
    sn_vec2 p = points[i];
    int32_t j = i;
    while (j > 0 && point_less(p, sorted[j - 1])) {
      sorted[j] = sorted[j - 1];
      --j;
    }
    sorted[j] = p;
  }

  // lower chain left to right, then upper chain right to left; a point that
  // does not make a strict left turn is popped
  sn_vec2 stack[2 * SN_MAX_POLYGON_VERTICES];
  int32_t k = 0;
  for (int32_t i = 0; i < count; ++i) {
    while (k >= 2 && orientation(stack[k - 2], stack[k - 1], sorted[i]) <= 0.0) --k;
    stack[k++] = sorted[i];
  }
  int32_t lower_size = k + 1;
  for (int32_t i = count - 2; i >= 0; --i) {
    while (k >= lower_size && orientation(stack[k - 2], stack[k - 1], sorted[i]) <= 0.0) --k;
    stack[k++] = sorted[i];
  }
  // the last point repeats the first
  int32_t n = k - 1;
  if (n < 0) n = 0;
  if (n > count) return -1;
  for (int32_t i = 0; i < n; ++i) hull[i] = stack[i];
  return n;
}

/// Removes vertices within tolerance of the chord of their neighbours, one at
/// a time (the flattest first), until none is left or fewer than 3 remain.
static int32_t remove_collinear(sn_vec2 *v, int32_t n, float tolerance) {
  while (n >= 3) {
    int32_t worst = -1;
    float worst_distance = tolerance;
    for (int32_t i = 0; i < n; ++i) {
      sn_vec2 prev = v[i == 0 ? n - 1 : i - 1];
      sn_vec2 next = v[i + 1 == n ? 0 : i + 1];
      float d = distance_left_of(next, prev, v[i]);
      if (d <= worst_distance) {
        worst_distance = d;
        worst = i;
      }
    }
    if (worst < 0) break;
    for (int32_t i = worst; i + 1 < n; ++i) v[i] = v[i + 1];
    --n;
  }
  return n;
}

sn_result sn_compute_hull(const sn_vec2 *points, int32_t count, float radius, sn_polygon *out) {
  sn_result r = check_input(points, count, radius, out);
  if (r != SN_OK) return r;

  sn_vec2 welded[SN_MAX_POLYGON_VERTICES];
  int32_t n = weld_points(points, count, welded);
  if (n < 3) return SN_ERR_DEGENERATE_POLYGON;

  sn_vec2 hull[SN_MAX_POLYGON_VERTICES];
  n = monotone_chain(welded, n, hull);
  if (n < 0) return SN_ERR_NOT_FINITE;
  if (n < 3) return SN_ERR_DEGENERATE_POLYGON;
  n = remove_collinear(hull, n, SN_WELD_DISTANCE);
  if (n < 3 || area_is_degenerate(hull, n)) return SN_ERR_DEGENERATE_POLYGON;

  // the same checks as for a user outline (the hull passes them unless
  // rounding made a vertex fall on an edge line)
  return sn_make_polygon(hull, n, radius, out);
}

/// Fills a box (no checks): half-extents, centre, rotation, radius.
static void fill_box(float hx, float hy, sn_vec2 center, sn_rot q, float radius, sn_polygon *out) {
  const sn_vec2 corners[4] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
  const sn_vec2 normals[4] = {{0.0f, -1.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}};
  sn_polygon p;
  memset(&p, 0, sizeof p);
  for (int32_t i = 0; i < 4; ++i) {
    p.vertices[i] = sn_add(sn_rotate(q, corners[i]), center);
    p.normals[i] = sn_rotate(q, normals[i]);
  }
  p.centroid = center;
  p.radius = radius;
  p.count = 4;
  *out = p;
}

/// Fills a box and checks it as a shape would: a box far from the origin
/// (or tiny) can lose its area to rounding.
static sn_result make_checked_box(float hx, float hy, sn_vec2 center, sn_rot q, float radius, sn_polygon *out) {
  sn_polygon p;
  fill_box(hx, hy, center, q, radius, &p);
  sn_result r = sn_polygon_validate(&p);
  if (r == SN_OK) *out = p;
  return r;
}

static sn_result check_half_extents(float hx, float hy) {
  if (!sn_is_finite(hx) || !sn_is_finite(hy)) return SN_ERR_NOT_FINITE;
  if (!(hx > 0.0f) || !(hy > 0.0f)) return SN_ERR_INVALID_ARGUMENT;
  return SN_OK;
}

sn_result sn_make_box(float hx, float hy, sn_polygon *out) {
  if (out == NULL) return SN_ERR_NULL;
  sn_result r = check_half_extents(hx, hy);
  if (r != SN_OK) return r;
  return make_checked_box(hx, hy, sn_v2(0.0f, 0.0f), sn_rot_identity(), 0.0f, out);
}

sn_result sn_make_offset_box(float hx, float hy, sn_vec2 center, float angle, sn_polygon *out) {
  if (out == NULL) return SN_ERR_NULL;
  sn_result r = check_half_extents(hx, hy);
  if (r != SN_OK) return r;
  if (!sn_vec2_is_finite(center) || !sn_is_finite(angle)) return SN_ERR_NOT_FINITE;
  return make_checked_box(hx, hy, center, sn_make_rot(angle), 0.0f, out);
}

sn_result sn_make_rounded_box(float hx, float hy, float radius, sn_polygon *out) {
  if (out == NULL) return SN_ERR_NULL;
  sn_result r = check_half_extents(hx, hy);
  if (r != SN_OK) return r;
  r = check_radius(radius);
  if (r != SN_OK) return r;
  return make_checked_box(hx, hy, sn_v2(0.0f, 0.0f), sn_rot_identity(), radius, out);
}

sn_polygon sn_make_capsule_polygon(sn_vec2 p1, sn_vec2 p2, float radius) {
  sn_polygon p;
  memset(&p, 0, sizeof p);
  p.vertices[0] = p1;
  p.vertices[1] = p2;
  p.normals[0] = sn_normalize(sn_right_perp(sn_sub(p2, p1)));
  p.normals[1] = sn_neg(p.normals[0]);
  p.centroid = sn_lerp(p1, p2, 0.5f);
  p.radius = radius;
  p.count = 2;
  return p;
}

sn_result sn_polygon_validate(const sn_polygon *p) {
  if (p == NULL) return SN_ERR_NULL;
  if (p->count > SN_MAX_POLYGON_VERTICES) return SN_ERR_TOO_MANY_VERTICES;
  if (p->count < 3) return SN_ERR_DEGENERATE_POLYGON;
  const int32_t n = p->count;
  if (!points_are_finite(p->vertices, n) || !points_are_finite(p->normals, n) || !sn_vec2_is_finite(p->centroid))
    return SN_ERR_NOT_FINITE;
  sn_result r = check_radius(p->radius);
  if (r != SN_OK) return r;

  float area2 = twice_signed_area(p->vertices, n);
  if (area2 == 0.0f) return SN_ERR_DEGENERATE_POLYGON;
  // clockwise order or any reflex/straight vertex
  if (area2 < 0.0f || !is_strictly_convex(p->vertices, n, 0.0f)) return SN_ERR_NON_CONVEX_POLYGON;

  for (int32_t i = 0; i < n; ++i) {
    sn_vec2 normal = p->normals[i];
    float len = 0.0f;
    sn_vec2 edge = sn_get_length_and_normalize(&len, sn_sub(p->vertices[i + 1 == n ? 0 : i + 1], p->vertices[i]));
    if (len == 0.0f) return SN_ERR_DEGENERATE_POLYGON;
    if (sn_absf(sn_length(normal) - 1.0f) > SN_NORMAL_TOLERANCE) return SN_ERR_INVALID_ARGUMENT;
    if (sn_absf(sn_dot(normal, edge)) > SN_NORMAL_TOLERANCE) return SN_ERR_INVALID_ARGUMENT;
    // outward: the normal points to the right of the counter-clockwise edge
    if (!(sn_dot(normal, sn_right_perp(edge)) > 0.0f)) return SN_ERR_INVALID_ARGUMENT;
    // the centroid must lie inside
    if (!(sn_dot(normal, sn_sub(p->centroid, p->vertices[i])) < 0.0f)) return SN_ERR_INVALID_ARGUMENT;
  }
  // Too thin for floats: a sliver 1e6 m long and 2 cm wide passes every test
  // above, but its mass, summed about the vertex average from products of
  // 1e11, rounds to nothing, and a body with that shape would have none.
  sn_mass_data m = sn_compute_polygon_mass(p, 1.0f);
  if (!(m.mass > 0.0f) || !(m.rotational_inertia > 0.0f)) return SN_ERR_DEGENERATE_POLYGON;
  return SN_OK;
}

sn_rot sn_make_rot(float angle) { return (sn_rot){cosf(angle), sinf(angle)}; }

float sn_rot_get_angle(sn_rot q) { return atan2f(q.s, q.c); }
