/* Mass properties of circles, capsules and (rounded) convex polygons.
 *
 * Every shape returns its mass, centre of mass and rotational inertia about
 * the centre of mass. A density that is not > 0 (including NaN) gives zero
 * mass and inertia; the centre is still the centroid. The public shape API
 * refuses bad densities before they get here.
 *
 * Rounded polygons are integrated exactly, not approximated: the solid is the
 * core polygon, plus one rectangle of width radius on the outside of every
 * edge, plus one circular sector at every vertex spanning the angle between
 * the normals of its two edges (the sectors add up to a full circle). */
#include <string.h>

#include "sinew/sinew.h"

#include "base/math.h"
#include "geometry/geometry.h"

/// Area, first moment and polar second moment (about the local origin of the
/// accumulation) of a region built from pieces.
typedef struct moments {
  float area;
  sn_vec2 first;
  float second;
} moments;

/// Adds the triangle (0, a, b) with signed area (negative when clockwise).
static void add_origin_triangle(moments *m, sn_vec2 a, sn_vec2 b) {
  float cross = sn_cross(a, b);
  float area = 0.5f * cross;
  m->area += area;
  // centroid of (0, a, b) is (a + b) / 3
  m->first = sn_mul_add(m->first, area / 3.0f, sn_add(a, b));
  // integral of |x|^2 over the triangle: cross / 12 * (a.a + a.b + b.b)
  m->second += cross / 12.0f * (sn_dot(a, a) + sn_dot(a, b) + sn_dot(b, b));
}

/// Adds a simple closed outline (signed: counter-clockwise adds) as a fan of
/// triangles about the origin.
static void add_outline(moments *m, const sn_vec2 *v, int32_t count) {
  for (int32_t i = 0; i < count; ++i) add_origin_triangle(m, v[i], v[i + 1 == count ? 0 : i + 1]);
}

/// Adds the circular sector of radius r about center swept counter-clockwise
/// from direction n1 to direction n2 (unit vectors, angle in [0, pi]).
static void add_sector(moments *m, sn_vec2 center, float r, sn_vec2 n1, sn_vec2 n2) {
  float angle = atan2f(sn_cross(n1, n2), sn_dot(n1, n2));
  if (angle <= 0.0f) return;
  float area = 0.5f * angle * r * r;
  // the centroid lies on the bisector at 4 r sin(angle / 2) / (3 angle)
  float half = 0.5f * angle;
  float offset = half > 1.0e-6f ? 4.0f * r * sinf(half) / (3.0f * angle) : 2.0f * r / 3.0f;
  sn_vec2 d = sn_scale(offset, sn_normalize(sn_add(n1, n2)));
  m->area += area;
  m->first = sn_mul_add(m->first, area, sn_add(center, d));
  // |c + q|^2 integrated: A |c|^2 + 2 c . (A d) + angle r^4 / 4
  m->second += area * sn_dot(center, center) + 2.0f * area * sn_dot(center, d) + 0.25f * angle * r * r * r * r;
}

/// Mass data from moments accumulated about ref.
static sn_mass_data mass_from_moments(const moments *m, sn_vec2 ref, float density) {
  sn_mass_data md;
  memset(&md, 0, sizeof md);
  if (!(m->area > 0.0f)) {
    md.center = ref;
    return md;
  }
  sn_vec2 c = sn_scale(1.0f / m->area, m->first);
  md.center = sn_add(ref, c);
  if (density > 0.0f) {
    md.mass = density * m->area;
    // parallel axis theorem back to the centre of mass
    md.rotational_inertia = sn_maxf(density * (m->second - m->area * sn_dot(c, c)), 0.0f);
  }
  return md;
}

static sn_mass_data circle_mass(sn_vec2 center, float radius, float density) {
  sn_mass_data md;
  memset(&md, 0, sizeof md);
  md.center = center;
  if (density > 0.0f) {
    float rr = radius * radius;
    md.mass = density * SN_PI * rr;
    md.rotational_inertia = 0.5f * md.mass * rr;
  }
  return md;
}

/// Capsule: a rectangle (length x 2r) and two half discs. Each half disc has
/// its centroid 4r/(3 pi) beyond its end centre; its inertia about its own
/// centroid is (m/2)(r^2/2 - d^2), moved to the capsule centre exactly with
/// the parallel axis theorem: (m/2)(r^2/2 - d^2 + (L/2 + d)^2).
static sn_mass_data capsule_mass(sn_vec2 c1, sn_vec2 c2, float radius, float density) {
  sn_mass_data md;
  memset(&md, 0, sizeof md);
  md.center = sn_lerp(c1, c2, 0.5f);
  if (!(density > 0.0f)) return md;
  float length = sn_distance(c1, c2);
  float rr = radius * radius;
  float box_mass = density * 2.0f * radius * length;
  float disc_mass = density * SN_PI * rr; // both half discs together
  float d = 4.0f * radius / (3.0f * SN_PI);
  float box_inertia = box_mass * (length * length + 4.0f * rr) / 12.0f;
  // (r^2/2 - d^2 + (L/2 + d)^2) = r^2/2 + L^2/4 + L d
  float disc_inertia = disc_mass * (0.5f * rr + 0.25f * length * length + length * d);
  md.mass = box_mass + disc_mass;
  md.rotational_inertia = box_inertia + disc_inertia;
  return md;
}

sn_mass_data sn_compute_circle_mass(const sn_circle *circle, float density) {
  if (circle == NULL) return (sn_mass_data){0.0f, {0.0f, 0.0f}, 0.0f};
  return circle_mass(circle->center, circle->radius, density);
}

sn_mass_data sn_compute_capsule_mass(const sn_capsule *capsule, float density) {
  if (capsule == NULL) return (sn_mass_data){0.0f, {0.0f, 0.0f}, 0.0f};
  return capsule_mass(capsule->center1, capsule->center2, capsule->radius, density);
}

sn_mass_data sn_compute_polygon_mass(const sn_polygon *polygon, float density) {
  if (polygon == NULL || polygon->count < 1 || polygon->count > SN_MAX_POLYGON_VERTICES)
    return (sn_mass_data){0.0f, {0.0f, 0.0f}, 0.0f};
  const int32_t n = polygon->count;
  const float r = polygon->radius;
  if (n == 1) return circle_mass(polygon->vertices[0], r, density);
  if (n == 2) return capsule_mass(polygon->vertices[0], polygon->vertices[1], r, density);

  // accumulate about the vertex average so the products stay small
  sn_vec2 ref = {0.0f, 0.0f};
  for (int32_t i = 0; i < n; ++i) ref = sn_add(ref, polygon->vertices[i]);
  ref = sn_scale(1.0f / (float)n, ref);
  sn_vec2 v[SN_MAX_POLYGON_VERTICES];
  for (int32_t i = 0; i < n; ++i) v[i] = sn_sub(polygon->vertices[i], ref);

  moments m = {0.0f, {0.0f, 0.0f}, 0.0f};
  add_outline(&m, v, n);
  if (r > 0.0f) {
    for (int32_t i = 0; i < n; ++i) {
      int32_t i2 = i + 1 == n ? 0 : i + 1;
      sn_vec2 normal = polygon->normals[i];
      // rectangle outside edge i, counter-clockwise
      sn_vec2 rect[4] = {v[i], sn_mul_add(v[i], r, normal), sn_mul_add(v[i2], r, normal), v[i2]};
      add_outline(&m, rect, 4);
      // sector at vertex i2 from this edge's normal to the next edge's normal
      add_sector(&m, v[i2], r, normal, polygon->normals[i2]);
    }
  }
  return mass_from_moments(&m, ref, density);
}

sn_mass_data sn_geometry_compute_mass(const sn_geometry *g, float density) {
  sn_mass_data md = {0.0f, {0.0f, 0.0f}, 0.0f};
  if (g == NULL) return md;
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    return sn_compute_circle_mass(&g->circle, density);
  case SN_SHAPE_CAPSULE:
    return sn_compute_capsule_mass(&g->capsule, density);
  case SN_SHAPE_POLYGON:
    return sn_compute_polygon_mass(&g->polygon, density);
  case SN_SHAPE_SEGMENT:
    md.center = sn_lerp(g->segment.point1, g->segment.point2, 0.5f);
    return md;
  case SN_SHAPE_CHAIN_SEGMENT:
    md.center = sn_lerp(g->chain_segment.segment.point1, g->chain_segment.segment.point2, 0.5f);
    return md;
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
  return md;
}
