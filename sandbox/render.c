/* The sandbox's renderer: sn_world_draw callbacks on an SDL_Renderer (a
 * window's, or a software renderer on an SDL_Surface when headless). Filled
 * shapes are triangle fans through SDL_RenderGeometry; text is
 * stb_easy_font's quads (no font file); screenshots are stb_image_write PNGs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "sinew/soft.h"
/* stb_easy_font is header-only with static functions; Debian's libstb
 * builds stb_image_write into libstb.so. */
#include "stb_easy_font.h"
#include "stb_image_write.h"

#define SB_BACKGROUND  0x1b2029ffu
#define SB_MAX_OUTLINE 64

static SDL_Color sb_color(uint32_t rgba, float alpha_scale) {
  SDL_Color c = {(Uint8)(rgba >> 24), (Uint8)(rgba >> 16), (Uint8)(rgba >> 8),
                 (Uint8)((float)(rgba & 0xffu) * alpha_scale)};
  return c;
}

sn_vec2 sb_screen_to_world(const sb_camera *cam, float x, float y) {
  return (sn_vec2){cam->center.x + (x - 0.5f * (float)cam->width) / cam->zoom,
                   cam->center.y - (y - 0.5f * (float)cam->height) / cam->zoom};
}

static SDL_FPoint sb_to_screen(const sb_camera *cam, sn_vec2 p) {
  SDL_FPoint s = {0.5f * (float)cam->width + (p.x - cam->center.x) * cam->zoom,
                  0.5f * (float)cam->height - (p.y - cam->center.y) * cam->zoom};
  return s;
}

void sb_camera_fit(sb_camera *cam, const sb_scene_info *info, const sn_scene *scene) {
  sn_vec2 center = {0.0f, 5.0f};
  float height = 20.0f;
  if (info != NULL && info->view_height > 0.0f) {
    center = info->view_center;
    height = info->view_height;
  } else if (scene != NULL && scene->world != NULL) {
    /* fit every body (static ones and the shapeless anchors of joints
     * included: their origins and their shapes) and the tracked particles */
    sn_aabb box = {{1e9f, 1e9f}, {-1e9f, -1e9f}};
    int32_t nb = sn_world_get_body_count(scene->world);
    sn_body_id *ids = malloc(((size_t)nb + 1) * sizeof(sn_body_id));
    nb = ids != NULL ? sn_world_get_bodies(scene->world, ids, nb) : 0;
    for (int32_t i = 0; i < nb; ++i) {
      sn_vec2 o = sn_body_get_position(scene->world, ids[i]);
      box.lower.x = fminf(box.lower.x, o.x);
      box.lower.y = fminf(box.lower.y, o.y);
      box.upper.x = fmaxf(box.upper.x, o.x);
      box.upper.y = fmaxf(box.upper.y, o.y);
      sn_shape_id shapes[8];
      int32_t n = sn_body_get_shapes(scene->world, ids[i], shapes, 8);
      for (int32_t k = 0; k < n; ++k) {
        sn_aabb a = sn_shape_get_aabb(scene->world, shapes[k]);
        box.lower.x = fminf(box.lower.x, a.lower.x);
        box.lower.y = fminf(box.lower.y, a.lower.y);
        box.upper.x = fmaxf(box.upper.x, a.upper.x);
        box.upper.y = fmaxf(box.upper.y, a.upper.y);
      }
    }
    free(ids);
    for (int32_t i = 0; i < scene->particle_count; ++i) {
      /* and the tracked particles (soft scenes) */
      sn_vec2 p = sn_particle_get_position(scene->world, scene->particles[i]);
      float r = sn_particle_get_radius(scene->world, scene->particles[i]);
      box.lower.x = fminf(box.lower.x, p.x - r);
      box.lower.y = fminf(box.lower.y, p.y - r);
      box.upper.x = fmaxf(box.upper.x, p.x + r);
      box.upper.y = fmaxf(box.upper.y, p.y + r);
    }
    if (box.upper.x >= box.lower.x) {
      float aspect = (float)cam->width / (float)(cam->height > 0 ? cam->height : 1);
      float w = box.upper.x - box.lower.x, h = box.upper.y - box.lower.y;
      height = 1.15f * fmaxf(h, w / aspect) + 1.0f;
      center = (sn_vec2){0.5f * (box.lower.x + box.upper.x), 0.5f * (box.lower.y + box.upper.y)};
    }
  }
  cam->center = center;
  cam->zoom = (float)cam->height / height;
}

/* ------------------------------------------------------------- primitives */

/* Filled convex outline (screen points) as a fan, then its edges. */
static void sb_fill_convex(sb_renderer *r, const SDL_FPoint *pts, int n, uint32_t rgba) {
  if (n < 3) return;
  SDL_Vertex v[SB_MAX_OUTLINE];
  int idx[3 * SB_MAX_OUTLINE];
  SDL_Color fill = sb_color(rgba, 0.45f);
  for (int i = 0; i < n; ++i) {
    v[i].position = pts[i];
    v[i].color = fill;
    v[i].tex_coord = (SDL_FPoint){0.0f, 0.0f};
  }
  int k = 0;
  for (int i = 1; i + 1 < n; ++i) {
    idx[k++] = 0;
    idx[k++] = i;
    idx[k++] = i + 1;
  }
  SDL_RenderGeometry(r->sdl, NULL, v, n, idx, k);
  SDL_Color line = sb_color(rgba, 1.0f);
  SDL_SetRenderDrawColor(r->sdl, line.r, line.g, line.b, line.a);
  SDL_FPoint closed[SB_MAX_OUTLINE + 1];
  memcpy(closed, pts, (size_t)n * sizeof(SDL_FPoint));
  closed[n] = pts[0];
  SDL_RenderDrawLinesF(r->sdl, closed, n + 1);
}

static void sb_cb_polygon(const sn_vec2 *vertices, int32_t count, float radius, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_FPoint pts[SB_MAX_OUTLINE];
  int n = 0;
  if (radius <= 0.0f) {
    for (int32_t i = 0; i < count && n < SB_MAX_OUTLINE; ++i) pts[n++] = sb_to_screen(&r->camera, vertices[i]);
  } else {
    /* rounded: an arc of radius around each vertex between its edge normals */
    for (int32_t i = 0; i < count; ++i) {
      sn_vec2 prev = vertices[(i + count - 1) % count], cur = vertices[i], next = vertices[(i + 1) % count];
      float a0 = atan2f(-(cur.x - prev.x), cur.y - prev.y); /* outward normal of prev->cur (CCW) */
      float a1 = atan2f(-(next.x - cur.x), next.y - cur.y);
      while (a1 < a0) a1 += 6.2831853f;
      for (int k = 0; k <= 3 && n < SB_MAX_OUTLINE; ++k) {
        float a = a0 + (a1 - a0) * (float)k / 3.0f;
        pts[n++] = sb_to_screen(&r->camera, (sn_vec2){cur.x + radius * cosf(a), cur.y + radius * sinf(a)});
      }
    }
  }
  sb_fill_convex(r, pts, n, rgba);
}

static int sb_circle_points(const sb_renderer *r, sn_vec2 c, float radius, SDL_FPoint *pts) {
  int n = radius * r->camera.zoom < 6.0f ? 12 : 32;
  for (int i = 0; i < n; ++i) {
    float a = 6.2831853f * (float)i / (float)n;
    pts[i] = sb_to_screen(&r->camera, (sn_vec2){c.x + radius * cosf(a), c.y + radius * sinf(a)});
  }
  return n;
}

static void sb_cb_solid_circle(sn_transform xf, float radius, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_FPoint pts[32];
  int n = sb_circle_points(r, xf.p, radius, pts);
  sb_fill_convex(r, pts, n, rgba);
  SDL_FPoint a = sb_to_screen(&r->camera, xf.p);
  SDL_FPoint b = sb_to_screen(&r->camera, (sn_vec2){xf.p.x + radius * xf.q.c, xf.p.y + radius * xf.q.s});
  SDL_RenderDrawLineF(r->sdl, a.x, a.y, b.x, b.y);
}

static void sb_cb_capsule(sn_vec2 p1, sn_vec2 p2, float radius, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  float base = atan2f(p2.y - p1.y, p2.x - p1.x);
  SDL_FPoint pts[34];
  int n = 0;
  for (int k = 0; k <= 16; ++k) { /* around p2: -90..+90 degrees from the axis, then p1 */
    float a = base - 1.5707963f + 3.1415926f * (float)k / 16.0f;
    pts[n++] = sb_to_screen(&r->camera, (sn_vec2){p2.x + radius * cosf(a), p2.y + radius * sinf(a)});
  }
  for (int k = 0; k <= 16; ++k) {
    float a = base + 1.5707963f + 3.1415926f * (float)k / 16.0f;
    pts[n++] = sb_to_screen(&r->camera, (sn_vec2){p1.x + radius * cosf(a), p1.y + radius * sinf(a)});
  }
  sb_fill_convex(r, pts, n, rgba);
}

static void sb_cb_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_Color c = sb_color(rgba, 1.0f);
  SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, c.a);
  SDL_FPoint p = sb_to_screen(&r->camera, a), q = sb_to_screen(&r->camera, b);
  SDL_RenderDrawLineF(r->sdl, p.x, p.y, q.x, q.y);
}

void sb_render_segment(sb_renderer *r, sn_vec2 a, sn_vec2 b, uint32_t rgba) { sb_cb_segment(a, b, rgba, r); }

static void sb_cb_point(sn_vec2 p, float size, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_Color c = sb_color(rgba, 1.0f);
  SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, c.a);
  SDL_FPoint s = sb_to_screen(&r->camera, p);
  SDL_FRect rect = {s.x - 0.5f * size, s.y - 0.5f * size, size, size};
  SDL_RenderFillRectF(r->sdl, &rect);
}

static void sb_cb_circle(sn_vec2 center, float radius, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_FPoint pts[33];
  int n = sb_circle_points(r, center, radius, pts);
  pts[n] = pts[0];
  SDL_Color c = sb_color(rgba, 1.0f);
  SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, c.a);
  SDL_RenderDrawLinesF(r->sdl, pts, n + 1);
}

static void sb_cb_transform(sn_transform xf, float len, void *ctx) {
  sb_cb_segment(xf.p, (sn_vec2){xf.p.x + len * xf.q.c, xf.p.y + len * xf.q.s}, 0xff4040ffu, ctx);
  sb_cb_segment(xf.p, (sn_vec2){xf.p.x - len * xf.q.s, xf.p.y + len * xf.q.c}, 0x40ff40ffu, ctx);
}

static void sb_cb_string(sn_vec2 p, const char *text, uint32_t rgba, void *ctx) {
  sb_renderer *r = ctx;
  SDL_FPoint s = sb_to_screen(&r->camera, p);
  sb_render_text(r, s.x + 4.0f, s.y - 4.0f, text, rgba);
}

/* ------------------------------------------------------------------ public */

void sb_render_clear(sb_renderer *r) {
  SDL_SetRenderDrawBlendMode(r->sdl, SDL_BLENDMODE_BLEND);
  SDL_Color c = sb_color(SB_BACKGROUND, 1.0f);
  SDL_SetRenderDrawColor(r->sdl, c.r, c.g, c.b, 255);
  SDL_RenderClear(r->sdl);
}

sn_result sb_render_world(sb_renderer *r, sn_world *world, uint32_t flags) {
  sn_debug_draw d = sn_default_debug_draw();
  d.polygon = sb_cb_polygon;
  d.solid_circle = sb_cb_solid_circle;
  d.capsule = sb_cb_capsule;
  d.segment = sb_cb_segment;
  d.point = sb_cb_point;
  d.circle = sb_cb_circle;
  d.transform = sb_cb_transform;
  d.string = sb_cb_string;
  d.context = r;
  d.flags = flags;
  /* cull to the screen (with a margin for thick outlines) */
  d.use_bounds = true;
  d.bounds.lower = sb_screen_to_world(&r->camera, -8.0f, (float)r->camera.height + 8.0f);
  d.bounds.upper = sb_screen_to_world(&r->camera, (float)r->camera.width + 8.0f, -8.0f);
  return sn_world_draw(world, &d);
}

#define SB_LIT 0xffe040ffu

static void sb_outline_aabb(sb_renderer *r, sn_aabb b) {
  sn_vec2 c[4] = {b.lower, {b.upper.x, b.lower.y}, b.upper, {b.lower.x, b.upper.y}};
  for (int k = 0; k < 4; ++k) sb_render_segment(r, c[k], c[(k + 1) % 4], SB_LIT);
}

void sb_render_sensors(sb_renderer *r, sn_world *world, const sb_demo_state *state) {
  int32_t nb = sn_world_get_body_count(world);
  if (nb <= 0) return;
  sn_body_id *bodies = malloc((size_t)nb * sizeof(*bodies));
  if (bodies == NULL) return;
  nb = sn_world_get_bodies(world, bodies, nb);
  for (int32_t i = 0; i < nb; ++i) {
    sn_shape_id shapes[16];
    int32_t ns = sn_body_get_shapes(world, bodies[i], shapes, 16);
    for (int32_t k = 0; k < ns; ++k) {
      if (!sn_shape_is_sensor(world, shapes[k])) continue;
      sn_shape_id inside[64];
      int32_t n = sn_shape_get_sensor_overlaps(world, shapes[k], inside, 64);
      for (int32_t j = 0; j < n; ++j) sb_outline_aabb(r, sn_shape_get_aabb(world, inside[j]));
    }
  }
  free(bodies);
  for (int32_t i = 0; state != NULL && i < state->lit_soft_count; ++i) {
    sn_particle_id ps[256];
    int32_t n = sn_soft_body_get_particles(world, state->lit_soft[i], ps, 256);
    for (int32_t j = 0; j < n; ++j) {
      sn_vec2 p = sn_particle_get_position(world, ps[j]);
      float h = 0.06f;
      sb_render_segment(r, (sn_vec2){p.x - h, p.y - h}, (sn_vec2){p.x + h, p.y + h}, SB_LIT);
      sb_render_segment(r, (sn_vec2){p.x - h, p.y + h}, (sn_vec2){p.x + h, p.y - h}, SB_LIT);
    }
  }
}

float sb_render_text(sb_renderer *r, float x, float y, const char *text, uint32_t rgba) {
  /* stb_easy_font: 4 vertices (x, y, z, rgba) per quad, ~270 bytes a char */
  static char buffer[64 * 1024]; /* render scratch of the (single-threaded) app */
  char line[512];
  snprintf(line, sizeof line, "%s", text);
  unsigned char col[4] = {(unsigned char)(rgba >> 24), (unsigned char)(rgba >> 16), (unsigned char)(rgba >> 8),
                          (unsigned char)rgba};
  int quads = stb_easy_font_print(0.0f, 0.0f, line, col, buffer, (int)sizeof buffer);
  const float s = r->text_scale;
  SDL_Vertex v[4 * 256];
  int idx[6 * 256];
  for (int q0 = 0; q0 < quads; q0 += 256) {
    int nq = quads - q0 < 256 ? quads - q0 : 256;
    for (int q = 0; q < nq; ++q) {
      for (int k = 0; k < 4; ++k) {
        const char *src = buffer + (size_t)(4 * (q0 + q) + k) * 16;
        float px, py;
        memcpy(&px, src, sizeof px);
        memcpy(&py, src + 4, sizeof py);
        SDL_Vertex *dst = v + 4 * q + k;
        dst->position = (SDL_FPoint){x + s * px, y + s * py};
        dst->color = (SDL_Color){(Uint8)src[12], (Uint8)src[13], (Uint8)src[14], (Uint8)src[15]};
        dst->tex_coord = (SDL_FPoint){0.0f, 0.0f};
      }
      int b = 4 * q;
      int *i6 = idx + 6 * q;
      i6[0] = b;
      i6[1] = b + 1;
      i6[2] = b + 2;
      i6[3] = b;
      i6[4] = b + 2;
      i6[5] = b + 3;
    }
    SDL_RenderGeometry(r->sdl, NULL, v, 4 * nq, idx, 6 * nq);
  }
  return 12.0f * s;
}

bool sb_render_write_png(sb_renderer *r, const char *path, char *err, size_t cap) {
  int w = r->camera.width, h = r->camera.height;
  unsigned char *rgba = malloc((size_t)w * (size_t)h * 4);
  unsigned char *rgb = malloc((size_t)w * (size_t)h * 3);
  bool ok = false;
  if (rgba == NULL || rgb == NULL) {
    snprintf(err, cap, "out of memory for a %dx%d screenshot", w, h);
  } else if (SDL_RenderReadPixels(r->sdl, NULL, SDL_PIXELFORMAT_RGBA32, rgba, w * 4) != 0) {
    snprintf(err, cap, "cannot read the frame back: %s", SDL_GetError());
  } else {
    for (size_t i = 0; i < (size_t)w * (size_t)h; ++i) memcpy(rgb + 3 * i, rgba + 4 * i, 3);
    ok = stbi_write_png(path, w, h, 3, rgb, w * 3) != 0;
    if (!ok) snprintf(err, cap, "cannot write %s", path);
  }
  free(rgba);
  free(rgb);
  return ok;
}
