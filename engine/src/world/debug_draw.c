/* Debug drawing (sinew/draw.h): walks the world between steps and calls the
 * user's callbacks. Reads internals (shapes by type with their body
 * transforms, fat AABBs, tree nodes, contact manifolds, constraints); writes
 * nothing and allocates nothing. Constraints draw themselves through their
 * type's debug_draw with an sn_draw_api made of the user's segment / point /
 * circle callbacks, and body views built as the solver builds them (outside a
 * step: a shared zero solver state, inverse masses of awake dynamic bodies).
 * Every callback runs on a locked world (sn_world_lock): it may read the
 * world and query it, and a call that would change it is refused. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/constants.h"
#include "base/math.h"
#include "world/world.h"
#include "sinew/draw.h"

/* Colours (0xRRGGBBAA). */
#define SN_COLOR_STATIC          0x7fb27fffu
#define SN_COLOR_KINEMATIC       0x7f7fe5ffu
#define SN_COLOR_DYNAMIC         0xe5b27fffu
#define SN_COLOR_SLEEPING        0x999999ffu
#define SN_COLOR_BULLET          0xe5e54cffu
#define SN_COLOR_CHAIN           0x66cc99ffu
#define SN_COLOR_AABB            0xe533e5ffu
#define SN_COLOR_TREE            0x4cb2e5ffu
#define SN_COLOR_TOUCHING        0x4ce54cffu
#define SN_COLOR_NEW             0x4c4cffffu
#define SN_COLOR_SPECULATIVE     0x808080ffu
#define SN_COLOR_NORMAL          0xe5e5e5ffu
#define SN_COLOR_IMPULSE         0xff4c4cffu
#define SN_COLOR_FRICTION        0xffcc4cffu
#define SN_COLOR_FORCE           0xff66ccffu
#define SN_COLOR_PARTICLE        0x66ccffffu
#define SN_COLOR_STATIC_PARTICLE 0xff8040ffu
#define SN_COLOR_SENSOR          0x4cd8e560u /* translucent: what is inside shows through */

sn_debug_draw sn_default_debug_draw(void) {
  sn_debug_draw d;
  memset(&d, 0, sizeof(d));
  d.flags = SN_DRAW_SHAPES | SN_DRAW_JOINTS | SN_DRAW_PARTICLES;
  d.force_scale = 0.01f;
  d.axis_length = 0.3f;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

/* Draw api handed to plugins: the user's callbacks, or no-ops where NULL. */
static void sn_noop_segment(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *context) {
  (void)a, (void)b, (void)rgba, (void)context;
}
static void sn_noop_point(sn_vec2 p, float size, uint32_t rgba, void *context) {
  (void)p, (void)size, (void)rgba, (void)context;
}
static void sn_noop_circle(sn_vec2 c, float r, uint32_t rgba, void *context) {
  (void)c, (void)r, (void)rgba, (void)context;
}

static bool sn_visible(const sn_debug_draw *d, sn_aabb box) {
  return !d->use_bounds || sn_aabb_overlaps(d->bounds, box);
}

static void sn_draw_aabb(const sn_debug_draw *d, sn_aabb b, uint32_t color) {
  sn_vec2 p1 = b.lower, p2 = {b.upper.x, b.lower.y}, p3 = b.upper, p4 = {b.lower.x, b.upper.y};
  d->segment(p1, p2, color, d->context);
  d->segment(p2, p3, color, d->context);
  d->segment(p3, p4, color, d->context);
  d->segment(p4, p1, color, d->context);
}

static uint32_t sn_body_color(const sn_body *b) {
  if (b->type == SN_BODY_STATIC) return SN_COLOR_STATIC;
  if (!b->is_awake) return SN_COLOR_SLEEPING;
  if (b->type == SN_BODY_KINEMATIC) return SN_COLOR_KINEMATIC;
  if (b->is_bullet) return SN_COLOR_BULLET;
  return SN_COLOR_DYNAMIC;
}

static void sn_draw_shape(const sn_debug_draw *d, const sn_shape *s, sn_transform xf, uint32_t color) {
  const sn_geometry *g = &s->geom;
  switch (g->type) {
  case SN_SHAPE_CIRCLE:
    if (d->solid_circle) {
      sn_transform cxf = {sn_transform_point(xf, g->circle.center), xf.q};
      d->solid_circle(cxf, g->circle.radius, color, d->context);
    }
    break;
  case SN_SHAPE_CAPSULE:
    if (d->capsule) {
      d->capsule(sn_transform_point(xf, g->capsule.center1), sn_transform_point(xf, g->capsule.center2),
                 g->capsule.radius, color, d->context);
    }
    break;
  case SN_SHAPE_POLYGON:
    if (d->polygon) {
      sn_vec2 v[SN_MAX_POLYGON_VERTICES];
      int32_t n = g->polygon.count;
      for (int32_t i = 0; i < n; ++i) v[i] = sn_transform_point(xf, g->polygon.vertices[i]);
      d->polygon(v, n, g->polygon.radius, color, d->context);
    }
    break;
  case SN_SHAPE_SEGMENT:
    if (d->segment) {
      d->segment(sn_transform_point(xf, g->segment.point1), sn_transform_point(xf, g->segment.point2), color,
                 d->context);
    }
    break;
  case SN_SHAPE_CHAIN_SEGMENT:
    if (d->segment) {
      d->segment(sn_transform_point(xf, g->chain_segment.segment.point1),
                 sn_transform_point(xf, g->chain_segment.segment.point2), SN_COLOR_CHAIN, d->context);
    }
    break;
  case SN_SHAPE_TYPE_COUNT:
    break;
  }
}

/* Internal nodes of one tree (leaves are the shapes' fat AABBs). */
static void sn_draw_tree(const sn_debug_draw *d, const sn_tree *t) {
  for (int32_t i = 0; i < t->node_capacity; ++i) {
    const sn_tree_node *n = t->nodes + i;
    if (n->height <= 0 || !sn_visible(d, n->aabb)) continue;
    /* deeper nodes dimmer: alpha from 255 (root level) down to 96 */
    uint32_t alpha = (uint32_t)sn_maxi(96, 255 - 16 * (sn_tree_get_height(t) - n->height));
    sn_draw_aabb(d, n->aabb, (SN_COLOR_TREE & 0xffffff00u) | alpha);
  }
}

/* A body as a constraint sees it outside a step (as sn_create_constraint and
 * reactions build it): the state is a shared zero state, never written. */
static sn_constraint_body sn_draw_body_view(const sn_world *w, int32_t index, sn_solver_body *zero) {
  const sn_body *b = w->bodies.data + index;
  sn_constraint_body v;
  bool moves = b->type == SN_BODY_DYNAMIC && b->is_awake;
  v.state = zero;
  v.inv_mass = moves ? b->inv_mass : 0.0f;
  v.inv_inertia = moves ? b->inv_inertia : 0.0f;
  v.center = b->center;
  v.q = b->xf.q;
  v.local_center = b->local_center;
  v.origin = b->xf.p;
  return v;
}

static void sn_draw_constraints(sn_world *w, const sn_debug_draw *d) {
  bool joints = (d->flags & SN_DRAW_JOINTS) != 0, forces = (d->flags & SN_DRAW_CONSTRAINT_FORCES) != 0;
  sn_draw_api api;
  memset(&api, 0, sizeof(api));
  api.size = (uint32_t)sizeof(api);
  api.segment = d->segment ? d->segment : sn_noop_segment;
  api.point = d->point ? d->point : sn_noop_point;
  api.circle = d->circle ? d->circle : sn_noop_circle;
  api.context = d->context;
  sn_step_info info;
  memset(&info, 0, sizeof(info));
  info.size = (uint32_t)sizeof(info);
  if (w->last_dt > 0.0f) {
    info.dt = w->last_dt;
    info.inv_dt = 1.0f / w->last_dt;
    info.substeps = w->settings.substeps;
    info.h = w->last_dt / (float)w->settings.substeps;
    info.inv_h = 1.0f / info.h;
  }
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    /* bodies then particles; constraints joining more than the buffer
     * holds (large area rings) are not drawn: drawing allocates nothing */
    enum { SN_DRAW_MAX_VIEWS = 64 };
    sn_solver_body zero[SN_DRAW_MAX_VIEWS];
    sn_constraint_body views[SN_DRAW_MAX_VIEWS];
    sn_constraint_body *ptrs[SN_DRAW_MAX_VIEWS];
    memset(views, 0, sizeof(views[0]));
    const int32_t nv = (int32_t)k->type->body_count + k->particle_count;
    if (nv > SN_DRAW_MAX_VIEWS || nv == 0) continue;
    sn_constraint_item item;
    memset(&item, 0, sizeof(item));
    item.params = k->params;
    item.instance = k->instance;
    for (int32_t m = 0; m < nv; ++m) {
      memset(zero + m, 0, sizeof(zero[m]));
      zero[m].dq = sn_rot_identity();
      if (m < (int32_t)k->type->body_count) {
        views[m] = sn_draw_body_view(w, k->bodies[m], zero + m);
      } else {
        const sn_particle *p = w->particles.data + k->particles[m - (int32_t)k->type->body_count];
        memset(views + m, 0, sizeof(views[m]));
        views[m].state = zero + m;
        views[m].inv_mass = p->kinematic ? 0.0f : p->inv_mass;
        views[m].center = views[m].origin = p->x;
        views[m].q = sn_rot_identity();
      }
      ptrs[m] = views + m;
    }
    item.bodies = ptrs;
    item.body_count = nv;
    if (d->use_bounds) {
      sn_aabb box = {views[0].center, views[0].center};
      for (int32_t m = 1; m < nv; ++m) {
        box.lower = sn_vmin(box.lower, views[m].center);
        box.upper = sn_vmax(box.upper, views[m].center);
      }
      if (!sn_visible(d, box)) continue;
    }
    if (joints && k->type->debug_draw) k->type->debug_draw(&item, &api);
    if (forces && k->type->get_reaction && info.dt > 0.0f) {
      sn_vec2 f = {0.0f, 0.0f};
      float torque = 0.0f;
      k->type->get_reaction(&info, &item, &f, &torque);
      if (!sn_vec2_is_finite(f)) continue;
      sn_vec2 at = views[nv - 1].center;
      if (d->segment) d->segment(at, sn_mul_add(at, d->force_scale, f), SN_COLOR_FORCE, d->context);
      if (d->string) {
        char text[48];
        snprintf(text, sizeof text, "%.1f N", (double)sn_length(f));
        d->string(at, text, SN_COLOR_FORCE, d->context);
      }
    }
  }
}

static void sn_draw_contacts(sn_world *w, const sn_debug_draw *d) {
  float inv_h = w->last_dt > 0.0f ? (float)w->settings.substeps / w->last_dt : 0.0f;
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    const sn_contact *c = w->contacts.data + i;
    if (!c->in_use) continue;
    const sn_manifold *m = &c->manifold;
    bool touching = (c->flags & SN_CONTACT_TOUCHING) != 0;
    for (int32_t j = 0; j < m->point_count; ++j) {
      const sn_manifold_point *p = m->points + j;
      if (d->use_bounds && !sn_visible(d, (sn_aabb){p->point, p->point})) continue;
      if ((d->flags & SN_DRAW_CONTACT_POINTS) && d->point) {
        uint32_t color = p->separation > SN_LINEAR_SLOP ? SN_COLOR_SPECULATIVE
                         : p->persisted                 ? SN_COLOR_TOUCHING
                                                        : SN_COLOR_NEW;
        d->point(p->point, 5.0f, color, d->context);
      }
      if ((d->flags & SN_DRAW_CONTACT_NORMALS) && d->segment)
        d->segment(p->point, sn_mul_add(p->point, d->axis_length, m->normal), SN_COLOR_NORMAL, d->context);
      if ((d->flags & SN_DRAW_CONTACT_IMPULSES) && d->segment && touching) {
        /* impulses are per substep: force = impulse / h */
        float fn = p->normal_impulse * inv_h, ft = p->tangent_impulse * inv_h;
        d->segment(p->point, sn_mul_add(p->point, d->force_scale * fn, m->normal), SN_COLOR_IMPULSE, d->context);
        sn_vec2 tangent = sn_right_perp(m->normal);
        d->segment(p->point, sn_mul_add(p->point, d->force_scale * ft, tangent), SN_COLOR_FRICTION, d->context);
      }
    }
  }
}

/* Soft-body particles: a solid circle of the particle radius, or a point
 * where the radius is zero or the renderer has no solid_circle. Fixed and
 * kinematic particles have their own colour. */
static int32_t sn_debug_particle_count(const sn_world *w) { return w->particle_count; }

static void sn_draw_particle(const sn_debug_draw *d, sn_vec2 p, float radius, uint32_t color) {
  if (radius > 0.0f && d->solid_circle) {
    d->solid_circle((sn_transform){p, {1.0f, 0.0f}}, radius, color, d->context);
  } else if (d->point) {
    d->point(p, 4.0f, color, d->context);
  }
}

static void sn_draw_particles(const sn_world *w, const sn_debug_draw *d) {
  for (int32_t i = 0; i < w->particles.count; ++i) {
    const sn_particle *pt = w->particles.data + i;
    if (!pt->in_use) continue;
    sn_vec2 p = pt->x;
    float radius = pt->radius;
    if (!sn_visible(d, (sn_aabb){{p.x - radius, p.y - radius}, {p.x + radius, p.y + radius}})) continue;
    sn_draw_particle(d, p, radius, pt->inv_mass == 0.0f ? SN_COLOR_STATIC_PARTICLE : SN_COLOR_PARTICLE);
  }
}

static sn_result sn_check_draw(sn_world *w, const sn_debug_draw *d) {
  if (w == NULL) return SN_ERR_NULL;
  if (d == NULL) return sn_world_error(w, SN_ERR_NULL, "debug draw is NULL");
  if (w->stepping) return sn_world_locked_error(w, "sn_world_draw");
  if (d->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start the debug draw from sn_default_debug_draw()");
  if ((d->flags & ~(uint32_t)SN_DRAW_ALL) != 0)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "unknown debug draw flags 0x%x",
                          (unsigned)(d->flags & ~(uint32_t)SN_DRAW_ALL));
  if (!sn_is_finite(d->force_scale) || !sn_is_finite(d->axis_length))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "force_scale and axis_length must be finite");
  if (d->force_scale < 0.0f || d->axis_length < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "force_scale and axis_length must be >= 0");
  if (d->use_bounds) {
    if (!sn_vec2_is_finite(d->bounds.lower) || !sn_vec2_is_finite(d->bounds.upper))
      return sn_world_error(w, SN_ERR_NOT_FINITE, "draw bounds must be finite");
    if (!sn_aabb_is_valid(d->bounds))
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "draw bounds are inverted (lower > upper)");
  }
  return SN_OK;
}

static void sn_draw_world(sn_world *w, const sn_debug_draw *d);

sn_result sn_world_draw(sn_world *w, const sn_debug_draw *d) {
  sn_result r = sn_check_draw(w, d);
  if (r != SN_OK) return r;
  /* the callbacks (the user's and the constraint types' debug_draw) run on a
   * locked world: the arrays walked here cannot move or shrink under them */
  sn_world_lock(w);
  sn_draw_world(w, d);
  sn_world_unlock(w);
  return SN_OK;
}

static void sn_draw_world(sn_world *w, const sn_debug_draw *d) {
  uint32_t f = d->flags;
  if ((f & SN_DRAW_TREE) && d->segment) {
    sn_draw_tree(d, &w->static_tree);
    sn_draw_tree(d, &w->dynamic_tree);
  }
  if ((f & SN_DRAW_AABBS) && d->segment) {
    for (int32_t i = 0; i < w->shapes.count; ++i) {
      const sn_shape *s = w->shapes.data + i;
      if (s->in_use && sn_visible(d, s->fat_aabb)) sn_draw_aabb(d, s->fat_aabb, SN_COLOR_AABB);
    }
  }
  if (f & SN_DRAW_SHAPES) {
    for (int32_t i = 0; i < w->shapes.count; ++i) {
      const sn_shape *s = w->shapes.data + i;
      if (!s->in_use || !sn_visible(d, s->fat_aabb)) continue;
      const sn_body *b = w->bodies.data + s->body;
      sn_draw_shape(d, s, b->xf, s->is_sensor ? SN_COLOR_SENSOR : sn_body_color(b));
    }
  }
  if (f & SN_DRAW_PARTICLES) sn_draw_particles(w, d);
  if ((f & SN_DRAW_TRANSFORMS) && d->transform) {
    for (int32_t i = 0; i < w->bodies.count; ++i) {
      const sn_body *b = w->bodies.data + i;
      if (b->in_use && sn_visible(d, (sn_aabb){b->xf.p, b->xf.p})) d->transform(b->xf, d->axis_length, d->context);
    }
  }
  if (f & (SN_DRAW_JOINTS | SN_DRAW_CONSTRAINT_FORCES)) sn_draw_constraints(w, d);
  if (f & (SN_DRAW_CONTACT_POINTS | SN_DRAW_CONTACT_NORMALS | SN_DRAW_CONTACT_IMPULSES)) sn_draw_contacts(w, d);
}

static int32_t sn_tree_live_nodes(const sn_tree *t) {
  int32_t n = 0;
  for (int32_t i = 0; i < t->node_capacity; ++i) n += t->nodes[i].height >= 0;
  return n;
}

sn_result sn_world_get_debug_counts(sn_world *w, sn_debug_counts *out) {
  if (w == NULL) return SN_ERR_NULL;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "debug counts output is NULL");
  memset(out, 0, sizeof(*out));
  for (int32_t i = 0; i < w->bodies.count; ++i) {
    const sn_body *b = w->bodies.data + i;
    if (!b->in_use) continue;
    out->bodies++;
    if (b->type == SN_BODY_DYNAMIC) out->dynamic_bodies++;
    if (b->type != SN_BODY_STATIC && b->is_awake) out->awake_bodies++;
  }
  out->shapes = w->shape_count;
  for (int32_t i = 0; i < w->contacts.count; ++i) {
    const sn_contact *c = w->contacts.data + i;
    if (!c->in_use) continue;
    out->contacts++;
    if (c->flags & SN_CONTACT_TOUCHING) {
      out->touching_contacts++;
      out->contact_points += c->manifold.point_count;
    }
  }
  out->constraints = w->constraint_count;
  out->particles = sn_debug_particle_count(w);
  out->tree_nodes = sn_tree_live_nodes(&w->static_tree) + sn_tree_live_nodes(&w->dynamic_tree);
  return SN_OK;
}
