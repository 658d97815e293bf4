/* fuzz_polygon: polygon construction from bytes (sn_compute_hull,
 * sn_make_polygon, the box helpers) and validation (sn_polygon_validate on
 * an arbitrary sn_polygon, as sn_create_polygon_shape receives it).
 *
 * Every polygon a builder returns must pass the engine's own validation,
 * have 3..8 counter-clockwise vertices, a centroid inside, unit outward
 * normals, and a finite positive mass at moderate coordinates; a hull keeps
 * only input points and contains every input point (up to the weld
 * tolerance); sn_make_polygon of a built polygon's vertices gives it back.
 * SPDX-License-Identifier: MIT */
#include "fuzz_common.h"

#include "geometry/geometry.h"
#include "sinew/sinew.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

/// Points on a coarse grid (duplicates, collinear runs), near-weld jitter, or raw floats.
static sn_vec2 read_point(fz_reader *r, uint8_t mode, sn_vec2 base) {
  sn_vec2 p;
  switch (mode % 4) {
  case 0: /* grid of 0.25 m */
    p.x = (float)(int8_t)fz_u8(r) * 0.25f;
    p.y = (float)(int8_t)fz_u8(r) * 0.25f;
    break;
  case 1: /* within a few weld distances of the previous point */
    p.x = base.x + (float)(int8_t)fz_u8(r) * 1e-5f;
    p.y = base.y + (float)(int8_t)fz_u8(r) * 1e-5f;
    break;
  case 2:
    p.x = fz_float(r, -10.0f, 10.0f);
    p.y = fz_float(r, -10.0f, 10.0f);
    break;
  default:
    p.x = fz_raw_float(r);
    p.y = fz_raw_float(r);
    break;
  }
  return p;
}

static float max_abs(const sn_vec2 *p, int32_t n) {
  float m = 0.0f;
  for (int32_t i = 0; i < n; ++i) m = fmaxf(m, fmaxf(fabsf(p[i].x), fabsf(p[i].y)));
  return m;
}

static void dump(const sn_polygon *p) {
  for (int32_t i = 0; i < p->count && i < SN_MAX_POLYGON_VERTICES; ++i)
    fprintf(stderr, "  v%d (%.9g, %.9g) n (%.9g, %.9g)\n", (int)i, (double)p->vertices[i].x, (double)p->vertices[i].y,
            (double)p->normals[i].x, (double)p->normals[i].y);
  fprintf(stderr, "  centroid (%.9g, %.9g) radius %.9g\n", (double)p->centroid.x, (double)p->centroid.y,
          (double)p->radius);
}

static void check_built(const sn_polygon *p, const char *what, int rebuild) {
  sn_result v = sn_polygon_validate(p);
  if (v != SN_OK) dump(p);
  FZ_CHECK(v == SN_OK, "%s built a polygon the engine refuses: %s", what, sn_result_name(v));
  FZ_CHECK(p->count >= 3 && p->count <= SN_MAX_POLYGON_VERTICES, "%s: count %d", what, (int)p->count);
  for (int32_t i = 0; i < p->count; ++i) {
    float len = sqrtf(p->normals[i].x * p->normals[i].x + p->normals[i].y * p->normals[i].y);
    FZ_CHECK(fabsf(len - 1.0f) <= 1e-3f, "%s: normal %d has length %g", what, (int)i, (double)len);
  }
  if (max_abs(p->vertices, p->count) <= 1e6f && p->radius <= 1e6f) {
    sn_mass_data m = sn_compute_polygon_mass(p, 1.0f);
    FZ_CHECK(isfinite(m.mass) && m.mass > 0.0f && isfinite(m.rotational_inertia) && m.rotational_inertia > 0.0f &&
                 isfinite(m.center.x) && isfinite(m.center.y),
             "%s: mass %g inertia %g", what, (double)m.mass, (double)m.rotational_inertia);
  }
  if (!rebuild) return;
  /* a built polygon is a fixed point of sn_make_polygon */
  sn_polygon again;
  sn_result r = sn_make_polygon(p->vertices, p->count, p->radius, &again);
  FZ_CHECK(r == SN_OK, "%s: sn_make_polygon refuses the built polygon's own vertices: %s", what, sn_result_name(r));
  FZ_CHECK(again.count == p->count, "%s: rebuilt with %d vertices instead of %d", what, (int)again.count,
           (int)p->count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = fz_reader_make(data, size);
  while (!fz_empty(&r)) {
    uint8_t op = fz_u8(&r);
    switch (op % 5) {
    case 0:
    case 1: { /* hull (0) or make (1) from 0..10 points */
      int32_t count = fz_range(&r, 0, 10);
      uint8_t modes = fz_u8(&r);
      sn_vec2 pts[10];
      sn_vec2 base = {0.0f, 0.0f};
      for (int32_t i = 0; i < count; ++i) {
        pts[i] = read_point(&r, (uint8_t)(modes >> (i % 4 * 2)), base);
        base = pts[i];
      }
      float radius = 0.0f;
      if (!fz_bool(&r)) radius = fz_float(&r, 0.0f, 1.0f);
      sn_polygon p;
      memset(&p, 0xab, sizeof p); /* untouched on error: checked below */
      sn_polygon before = p;
      sn_result res = op % 5 == 0 ? sn_compute_hull(pts, count, radius, &p) : sn_make_polygon(pts, count, radius, &p);
      const char *what = op % 5 == 0 ? "sn_compute_hull" : "sn_make_polygon";
      if (res != SN_OK) {
        FZ_CHECK(memcmp(&p, &before, sizeof p) == 0, "%s wrote *out on error %s", what, sn_result_name(res));
        FZ_CHECK(sn_result_name(res) != NULL, "unnamed result %d", (int)res);
        break;
      }
      FZ_CHECK(count >= 3 && count <= SN_MAX_POLYGON_VERTICES, "%s accepted %d points", what, (int)count);
      check_built(&p, what, 1);
      if (op % 5 == 1) FZ_CHECK(p.count <= count, "make: %d vertices from %d points", (int)p.count, (int)count);
      if (op % 5 == 0) {
        /* hull vertices are input points, and every input point is inside the hull */
        float scale = max_abs(pts, count);
        for (int32_t i = 0; i < p.count; ++i) {
          int found = 0;
          for (int32_t j = 0; j < count && !found; ++j)
            found = p.vertices[i].x == pts[j].x && p.vertices[i].y == pts[j].y;
          FZ_CHECK(found, "hull vertex %d (%g, %g) is not an input point", (int)i, (double)p.vertices[i].x,
                   (double)p.vertices[i].y);
        }
        if (scale <= 1e4f) {
          /* welding and collinear removal may each leave a point up to 0.5 mm
           * outside; a few removals in a row add up */
          float tol = 8.0f * 5e-4f + 1e-5f * scale;
          for (int32_t j = 0; j < count; ++j) {
            for (int32_t i = 0; i < p.count; ++i) {
              sn_vec2 d = {pts[j].x - p.vertices[i].x, pts[j].y - p.vertices[i].y};
              float out = p.normals[i].x * d.x + p.normals[i].y * d.y;
              FZ_CHECK(out <= tol, "input point %d lies %g outside hull edge %d", (int)j, (double)out, (int)i);
            }
          }
        }
      }
      break;
    }
    case 2: { /* box helpers */
      float hx = fz_float(&r, -1.0f, 10.0f), hy = fz_float(&r, -1.0f, 10.0f);
      sn_polygon p;
      sn_result res;
      uint8_t kind = fz_u8(&r) % 3;
      if (kind == 0) {
        res = sn_make_box(hx, hy, &p);
      } else if (kind == 1) {
        sn_vec2 c;
        c.x = fz_float(&r, -100.0f, 100.0f);
        c.y = fz_float(&r, -100.0f, 100.0f);
        float angle = fz_float(&r, -10.0f, 10.0f);
        res = sn_make_offset_box(hx, hy, c, angle, &p);
      } else {
        res = sn_make_rounded_box(hx, hy, fz_float(&r, -0.1f, 1.0f), &p);
      }
      /* sn_make_polygon welds points closer than 0.5 mm: only larger boxes rebuild */
      if (res == SN_OK) check_built(&p, "box helper", hx >= 1e-3f && hy >= 1e-3f && hx <= 1e6f && hy <= 1e6f);
      break;
    }
    default: { /* an arbitrary polygon struct, as a caller might fill it by hand */
      sn_polygon p;
      memset(&p, 0, sizeof p);
      p.count = (int32_t)(int8_t)fz_u8(&r);
      int raw = fz_bool(&r);
      for (int32_t i = 0; i < SN_MAX_POLYGON_VERTICES; ++i) {
        p.vertices[i] = read_point(&r, raw ? 3 : 0, p.vertices[i]);
        p.normals[i].x = fz_float(&r, -1.0f, 1.0f);
        p.normals[i].y = fz_float(&r, -1.0f, 1.0f);
      }
      p.centroid = read_point(&r, 2, p.centroid);
      p.radius = fz_float(&r, -0.1f, 1.0f);
      sn_result v = sn_polygon_validate(&p);
      if (v == SN_OK) {
        FZ_CHECK(p.count >= 3 && p.count <= SN_MAX_POLYGON_VERTICES, "validated count %d", (int)p.count);
        sn_mass_data m = sn_compute_polygon_mass(&p, 1.0f);
        (void)m;
      }
      break;
    }
    }
  }
  return 0;
}
