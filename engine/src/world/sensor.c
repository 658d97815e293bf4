/* Sensors: once per step, in the step's first part (where memory may still
 * fail without harm), every sensor shape lists the shapes and soft bodies
 * that overlap it as the world stands, sorted by visitor; the list is
 * compared with the last pass's, sorted the same way, to give the begin and
 * end events. Everything goes to scratch arrays first (sn_sensor_find) and
 * is published by swapping them in once the step can no longer fail
 * (sn_sensor_commit). Sensors never make contacts: pair finding, the
 * continuous sweeps and the particle candidates skip them.
 *
 * Why at the step's start and not its end: the end of a step allocates
 * nothing (a step that runs out of memory leaves the world as it was), and
 * the number of overlaps is not known before the bodies move. The pass sees
 * the positions the previous step left (and any moves made between steps),
 * so an overlap is reported one step after the motion that made it.
 *
 * Cost: the pass visits the sensor shapes only (a list kept in shape
 * order, listed again after a sensor shape comes or goes), each querying
 * the trees with its box; a soft body is looked at particle by particle
 * only by sensors whose box meets the box of its particles (one box per
 * soft body per pass). A world with one sensor among thousands of shapes
 * pays for that sensor, not for the thousands. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "base/math.h"
#include "collision/manifold.h"
#include "world/sensor.h"
#include "world/world.h"

typedef struct sn_sensor_query {
  sn_world *w;
  const sn_shape *sensor;
  int32_t sensor_index;
  bool oom;
} sn_sensor_query;

/* True if the two shapes overlap (some point of their manifold has a
 * negative separation); pairs no collide function handles never do. */
static bool sn_shapes_overlap(const sn_world *w, const sn_shape *a, const sn_shape *b) {
  const sn_body *ba = w->bodies.data + a->body, *bb = w->bodies.data + b->body;
  sn_manifold m;
  if (sn_collide_supported(a->geom.type, b->geom.type))
    m = sn_collide(&a->geom, ba->xf, &b->geom, bb->xf, NULL);
  else if (sn_collide_supported(b->geom.type, a->geom.type))
    m = sn_collide(&b->geom, bb->xf, &a->geom, ba->xf, NULL);
  else
    return false;
  for (int32_t i = 0; i < m.point_count; ++i) {
    if (m.points[i].separation < 0.0f) return true;
  }
  return false;
}

static bool sn_sensor_query_fcn(int32_t proxy_id, int32_t shape_index, void *context) {
  (void)proxy_id;
  sn_sensor_query *q = context;
  sn_world *w = q->w;
  const sn_shape *o = w->shapes.data + shape_index;
  if (!o->in_use || o->is_sensor || !o->enable_sensor_events || o->body == q->sensor->body) return true;
  if (!sn_filters_pass(q->sensor, o)) return true;
  if (!sn_aabb_overlaps(q->sensor->aabb, o->aabb)) return true;
  if (!sn_shapes_overlap(w, q->sensor, o)) return true;
  sn_sensor_overlap e = {q->sensor_index, (uint32_t)shape_index, q->sensor->generation, o->generation};
  if (!sn_array_push(&w->mem, w->sensor_next, e)) {
    q->oom = true;
    return false;
  }
  return true;
}

/* The sensor shapes in index order (the pass's order), listed again when a
 * sensor shape came or went; false when memory ran out. */
static bool sn_list_sensor_shapes(sn_world *w) {
  if (w->sensor_shapes_valid) return true;
  w->sensor_shapes.count = 0;
  if (!sn_array_reserve(&w->mem, w->sensor_shapes, w->sensor_count)) return false;
  for (int32_t i = 0; i < w->shapes.count && w->sensor_shapes.count < w->sensor_count; ++i) {
    const sn_shape *s = w->shapes.data + i;
    if (s->in_use && s->is_sensor) w->sensor_shapes.data[w->sensor_shapes.count++] = i;
  }
  w->sensor_shapes_valid = true;
  return true;
}

/* The box of each soft body's live particle centres (lower above upper:
 * none), for the sensors to skip the soft bodies they cannot hold. */
static bool sn_soft_boxes(sn_world *w) {
  const int32_t n = w->soft_bodies.count;
  w->sensor_soft_boxes.count = 0;
  if (n == 0) return true;
  if (!sn_array_reserve(&w->mem, w->sensor_soft_boxes, n)) return false;
  w->sensor_soft_boxes.count = n;
  for (int32_t k = 0; k < n; ++k) {
    const sn_soft_body *sb = w->soft_bodies.data + k;
    sn_aabb box = {{FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX}};
    for (int32_t i = 0; sb->in_use && i < sb->particle_count; ++i) {
      const sn_particle *p = w->particles.data + sb->particles[i];
      if (!p->in_use) continue;
      box.lower = sn_vmin(box.lower, p->x);
      box.upper = sn_vmax(box.upper, p->x);
    }
    w->sensor_soft_boxes.data[k] = box;
  }
  return true;
}

/* True if a particle centre of the soft body lies inside the sensor. */
static bool sn_soft_inside(const sn_world *w, const sn_shape *sensor, const sn_soft_body *sb) {
  const sn_transform xf = w->bodies.data[sensor->body].xf;
  for (int32_t k = 0; k < sb->particle_count; ++k) {
    const sn_particle *p = w->particles.data + sb->particles[k];
    if (!p->in_use) continue;
    const sn_vec2 x = p->x;
    if (x.x < sensor->aabb.lower.x || x.x > sensor->aabb.upper.x || x.y < sensor->aabb.lower.y ||
        x.y > sensor->aabb.upper.y)
      continue;
    if (sn_geometry_test_point(&sensor->geom, sn_inv_transform_point(xf, x))) return true;
  }
  return false;
}

static int sn_overlap_order(const void *pa, const void *pb) {
  const sn_sensor_overlap *a = pa, *b = pb;
  return (a->visitor > b->visitor) - (a->visitor < b->visitor);
}

/* Ordering key of an overlap: sensor, then visitor (each unique in a pass). */
static int sn_overlap_compare(const sn_sensor_overlap *a, const sn_sensor_overlap *b) {
  if (a->sensor != b->sensor) return a->sensor < b->sensor ? -1 : 1;
  if (a->visitor != b->visitor) return a->visitor < b->visitor ? -1 : 1;
  return 0;
}

/* The sensor and visitor ids an overlap names (begin and end events hold
 * the same three). */
static void sn_overlap_ids(const sn_world *w, const sn_sensor_overlap *o, sn_shape_id *sensor, sn_shape_id *visitor,
                           sn_soft_body_id *soft_body) {
  *sensor = (sn_shape_id){o->sensor + 1, w->tag, o->sensor_generation};
  *visitor = (sn_shape_id){0, 0, 0};
  *soft_body = (sn_soft_body_id){0, 0, 0};
  if (o->visitor & SN_SENSOR_SOFT)
    *soft_body = (sn_soft_body_id){(int32_t)(o->visitor & ~SN_SENSOR_SOFT) + 1, w->tag, o->visitor_generation};
  else
    *visitor = (sn_shape_id){(int32_t)o->visitor + 1, w->tag, o->visitor_generation};
}

static bool sn_push_begin(sn_world *w, const sn_sensor_overlap *o) {
  sn_sensor_begin_touch_event e;
  memset(&e, 0, sizeof(e));
  sn_overlap_ids(w, o, &e.sensor, &e.visitor, &e.soft_body);
  return sn_array_push(&w->mem, w->sensor_begin_next, e);
}

static bool sn_push_end(sn_world *w, const sn_sensor_overlap *o) {
  sn_sensor_end_touch_event e;
  memset(&e, 0, sizeof(e));
  sn_overlap_ids(w, o, &e.sensor, &e.visitor, &e.soft_body);
  return sn_array_push(&w->mem, w->sensor_end_next, e);
}

bool sn_sensor_find(sn_world *w) {
  w->sensor_next.count = 0;
  w->sensor_begin_next.count = 0;
  w->sensor_end_next.count = 0;
  if (w->sensor_count == 0 && w->sensor_overlaps.count == 0) return true;
  if (!sn_list_sensor_shapes(w)) return false;
  if (w->sensor_count > 0 && !sn_soft_boxes(w)) return false;
  for (int32_t si = 0; si < w->sensor_shapes.count; ++si) {
    const int32_t i = w->sensor_shapes.data[si];
    const sn_shape *s = w->shapes.data + i;
    if (!s->in_use || !s->is_sensor || s->proxy == SN_NULL_NODE) continue; /* (a disabled body's: none) */
    const int32_t first = w->sensor_next.count;
    sn_sensor_query q = {w, s, i, false};
    const uint64_t mask = sn_shape_query_mask(s);
    sn_tree_query(&w->static_tree, s->aabb, mask, sn_sensor_query_fcn, &q);
    if (!q.oom) sn_tree_query(&w->dynamic_tree, s->aabb, mask, sn_sensor_query_fcn, &q);
    if (q.oom) return false;
    for (int32_t k = 0; k < w->soft_bodies.count; ++k) {
      const sn_soft_body *sb = w->soft_bodies.data + k;
      const sn_aabb box = w->sensor_soft_boxes.data[k];
      if (!sb->in_use || !sn_aabb_overlaps(box, s->aabb) || !sn_soft_inside(w, s, sb)) continue;
      sn_sensor_overlap e = {i, SN_SENSOR_SOFT | (uint32_t)k, s->generation, sb->generation};
      if (!sn_array_push(&w->mem, w->sensor_next, e)) return false;
    }
    const int32_t n = w->sensor_next.count - first;
    if (n > 1) qsort(w->sensor_next.data + first, (size_t)n, sizeof(sn_sensor_overlap), sn_overlap_order);
  }
  /* the events: a merge of the two sorted lists */
  const sn_sensor_overlap *old = w->sensor_overlaps.data, *now = w->sensor_next.data;
  int32_t i = 0, j = 0, n_old = w->sensor_overlaps.count, n_now = w->sensor_next.count;
  while (i < n_old || j < n_now) {
    int order = i == n_old ? 1 : j == n_now ? -1 : sn_overlap_compare(old + i, now + j);
    if (order < 0) {
      if (!sn_push_end(w, old + i)) return false;
      i++;
    } else if (order > 0) {
      if (!sn_push_begin(w, now + j)) return false;
      j++;
    } else {
      /* the same slots: the same objects unless a slot was reused */
      if (old[i].sensor_generation != now[j].sensor_generation ||
          old[i].visitor_generation != now[j].visitor_generation) {
        if (!sn_push_end(w, old + i) || !sn_push_begin(w, now + j)) return false;
      }
      i++;
      j++;
    }
  }
  return true;
}

/* Swaps two arrays of one SN_ARRAY type (a pointer and two counts). */
static void sn_swap_arrays(void *a, void *b, size_t size) {
  unsigned char t[sizeof(SN_ARRAY(int32_t))];
  memcpy(t, a, size);
  memcpy(a, b, size);
  memcpy(b, t, size);
}

void sn_sensor_commit(sn_world *w) {
  _Static_assert(sizeof(w->sensor_overlaps) == sizeof(SN_ARRAY(int32_t)), "one array layout");
  sn_swap_arrays(&w->sensor_overlaps, &w->sensor_next, sizeof(w->sensor_overlaps));
  sn_swap_arrays(&w->sensor_begin_events, &w->sensor_begin_next, sizeof(w->sensor_begin_events));
  sn_swap_arrays(&w->sensor_end_events, &w->sensor_end_next, sizeof(w->sensor_end_events));
}

sn_sensor_events sn_world_get_sensor_events(sn_world *w) {
  sn_sensor_events e;
  memset(&e, 0, sizeof(e));
  if (w == NULL) return e;
  e.begin_events = w->sensor_begin_events.data;
  e.begin_count = w->sensor_begin_events.count;
  e.end_events = w->sensor_end_events.data;
  e.end_count = w->sensor_end_events.count;
  return e;
}

int32_t sn_shape_get_sensor_overlaps(sn_world *w, sn_shape_id id, sn_shape_id *overlaps, int32_t capacity) {
  if (w == NULL) return -1;
  sn_result code;
  const sn_shape *s = sn_get_shape(w, id, &code);
  if (s == NULL) return -1;
  if (!s->is_sensor) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "the shape is not a sensor"), -1;
  if (capacity < 0 || (overlaps == NULL && capacity > 0))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "capacity %d with %s array", (int)capacity,
                          overlaps == NULL ? "a NULL" : "an"),
           -1;
  const int32_t index = id.index1 - 1;
  int32_t n = 0;
  for (int32_t k = 0; k < w->sensor_overlaps.count; ++k) {
    const sn_sensor_overlap *o = w->sensor_overlaps.data + k;
    if (o->sensor != index || o->sensor_generation != s->generation || (o->visitor & SN_SENSOR_SOFT)) continue;
    const sn_shape *v = w->shapes.data + o->visitor;
    if (!v->in_use || v->generation != o->visitor_generation) continue; /* destroyed since */
    if (capacity == 0) {
      n++;
      continue;
    }
    if (n == capacity) break;
    overlaps[n++] = (sn_shape_id){(int32_t)o->visitor + 1, w->tag, o->visitor_generation};
  }
  return n;
}
