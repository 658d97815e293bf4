/* Scene loader: the world built from the checked description. A failure
 * while building destroys what was built. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_loader.h"

/* ------------------------------------------------------------------------ */
/* Building                                                                  */

/// Engine result code named at the start of a last-error message.
static sn_result engine_code(const char *msg) {
  for (int r = 1; r < 64; ++r) {
    const char *name = sn_result_name((sn_result)r);
    size_t n = strlen(name);
    if (strncmp(msg, name, n) == 0 && msg[n] == ':') return (sn_result)r;
  }
  return SN_ERR_INVALID_ARGUMENT;
}

static bool engine_refused(sn_loader *L, sn_world *w, const cJSON *node, const char *what) {
  const char *msg = sn_world_last_error(w);
  sn_result r = engine_code(msg);
  sn_scene_status st = r == SN_ERR_DEGENERATE_POLYGON || r == SN_ERR_NON_CONVEX_POLYGON || r == SN_ERR_WRONG_BODY_TYPE
                           ? SN_SCENE_ERR_GEOMETRY
                           : SN_SCENE_ERR_ENGINE;
  if (r == SN_ERR_OUT_OF_MEMORY) st = SN_SCENE_ERR_OUT_OF_MEMORY;
  return sn_scene_fail(L, st, r, node, false, "the engine refused this %s: %s; expected %s", what, msg,
                       st == SN_SCENE_ERR_GEOMETRY ? sn_scene_geometry_expected(r)
                                                   : "values the engine and the plugin accept");
}

static bool build_bodies(sn_loader *L, sn_world *w, sn_scene_names *names, sn_body_id *ids);
static bool build_constraint(sn_loader *L, sn_world *w, sn_scene_names *names, const sn_body_id *ids, int32_t i);
static bool build_soft_body(sn_loader *L, sn_world *w, sn_scene_names *names, sn_soft_ir *s);

bool sn_scene_build_world(sn_loader *L, sn_registry *reg, sn_loaded_scene *out) {
  sn_world_def wd = L->world_def;
  sn_world_settings_to_def(&L->settings, &wd);
  wd.registry = reg;
  wd.allocator = L->opt->allocator;
  sn_result r;
  sn_world *w = sn_create_world(&wd, &r);
  if (w == NULL)
    return sn_scene_fail(L, r == SN_ERR_OUT_OF_MEMORY ? SN_SCENE_ERR_OUT_OF_MEMORY : SN_SCENE_ERR_ENGINE, r,
                         L->settings_node, false, "the engine refused the world settings: %s (%s)", sn_result_name(r),
                         sn_result_message(r));
  out->world = w;
  if (sn_world_settings_apply_outside_def(w, &L->settings) != SN_OK)
    return engine_refused(L, w, L->settings_node, "setting");
  sn_scene_names *names = out->names;
  sn_body_id *ids = malloc(((size_t)L->body_count + 1) * sizeof *ids);
  if (ids == NULL) return sn_scene_out_of_memory(L);
  int64_t particles = 0;
  for (int32_t i = 0; i < L->soft_count; ++i) {
    L->softs[i].first_particle = (int32_t)particles;
    particles += L->softs[i].particle_count;
  }
  if (particles > INT32_MAX) {
    free(ids);
    return sn_scene_fail(L, SN_SCENE_ERR_RANGE, SN_OK, L->softs[L->soft_count - 1].node, false,
                         "the soft bodies have %lld particles in all; expected at most %d", (long long)particles,
                         INT32_MAX);
  }
  L->particle_ids = malloc(((size_t)particles + 1) * sizeof *L->particle_ids);
  if (L->particle_ids == NULL) {
    free(ids);
    return sn_scene_out_of_memory(L);
  }
  bool ok = build_bodies(L, w, names, ids);
  for (int32_t i = 0; ok && i < L->soft_count; ++i) {
    size_t mark = sn_scene_path_push_key(L, "soft_bodies");
    size_t m2 = sn_scene_path_push_index(L, i);
    ok = build_soft_body(L, w, names, L->softs + i);
    sn_scene_path_pop(L, m2);
    sn_scene_path_pop(L, mark);
  }
  for (int32_t i = 0; ok && i < L->constraint_count; ++i) {
    size_t mark = sn_scene_path_push_key(L, "constraints");
    size_t m2 = sn_scene_path_push_index(L, i);
    ok = build_constraint(L, w, names, ids, i);
    sn_scene_path_pop(L, m2);
    sn_scene_path_pop(L, mark);
  }
  free(ids);
  return ok;
}

static bool build_bodies(sn_loader *L, sn_world *w, sn_scene_names *names, sn_body_id *ids) {
  /* bodies, each followed by its shapes: the order a program building the
   * world body by body would use, so ids and broadphase match it */
  for (int32_t i = 0; i < L->body_count; ++i) {
    const sn_body_ir *b = L->bodies + i;
    size_t mark = sn_scene_path_push_key(L, "bodies");
    size_t m2 = sn_scene_path_push_index(L, i);
    sn_body_id id = sn_create_body(w, &b->def);
    if (id.index1 == 0) return engine_refused(L, w, b->node, "body");
    ids[i] = id;
    if (b->name != NULL && sn_scene_names_set_body(names, id, b->name) != SN_SCENE_OK) return sn_scene_out_of_memory(L);
    for (int32_t j = 0; j < b->shape_count; ++j) {
      const sn_shape_ir *s = L->shapes + b->first_shape + j;
      size_t m3 = sn_scene_path_push_key(L, "shapes");
      size_t m4 = sn_scene_path_push_index(L, j);
      sn_shape_id sid = SN_NULL_SHAPE;
      switch (s->type) {
      case SN_SHAPE_CIRCLE:
        sid = sn_create_circle_shape(w, id, &s->def, &s->circle);
        break;
      case SN_SHAPE_CAPSULE:
        sid = sn_create_capsule_shape(w, id, &s->def, &s->capsule);
        break;
      case SN_SHAPE_SEGMENT:
        sid = sn_create_segment_shape(w, id, &s->def, &s->segment);
        break;
      case SN_SHAPE_POLYGON:
        sid = sn_create_polygon_shape(w, id, &s->def, &s->polygon);
        break;
      case SN_SHAPE_CHAIN_SEGMENT:
        /* its segments go into the body's shape list here, in file order */
        sid.index1 = sn_create_chain(w, id, &s->chain).index1;
        break;
      case SN_SHAPE_TYPE_COUNT:
        break;
      }
      if (sid.index1 == 0) return engine_refused(L, w, s->geometry, "shape");
      sn_scene_path_pop(L, m4);
      sn_scene_path_pop(L, m3);
    }
    /* "velocity" is the centre of mass's: each shape that moves the centre
     * of mass changes it by w x shift, so it is set again after the shapes */
    sn_vec2 v = sn_body_get_linear_velocity(w, id);
    if (b->def.type != SN_BODY_STATIC && memcmp(&v, &b->def.linear_velocity, sizeof v) != 0 &&
        sn_body_set_linear_velocity(w, id, b->def.linear_velocity) != SN_OK)
      return engine_refused(L, w, b->node, "velocity");
    if (!b->enabled && sn_body_disable(w, id) != SN_OK) return engine_refused(L, w, b->node, "enabled");
    sn_scene_path_pop(L, m2);
    sn_scene_path_pop(L, mark);
  }
  return true;
}

/* A constraint of a group (its tuple t) or an entry (t < 0) over particles. */
static sn_constraint_id create_constraint(sn_loader *L, sn_world *w, const sn_constraint_ir *k, const sn_body_id *ids,
                                          int32_t t, sn_particle_id *scratch) {
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = k->type;
  for (int32_t j = 0; j < k->body_count; ++j) cd.bodies[j] = ids[k->bodies[j]];
  if (t >= 0) {
    const sn_soft_ir *s = L->softs + k->soft;
    int32_t n = k->start[t + 1] - k->start[t];
    for (int32_t j = 0; j < n; ++j) scratch[j] = L->particle_ids[s->first_particle + k->indices[k->start[t] + j]];
    cd.particles = scratch;
    cd.particle_count = n;
  } else if (k->particle_count > 0) {
    for (int32_t j = 0; j < k->particle_count; ++j)
      scratch[j] = L->particle_ids[L->softs[k->refs[2 * j]].first_particle + k->refs[2 * j + 1]];
    cd.particles = scratch;
    cd.particle_count = k->particle_count;
  }
  cd.params = k->values;
  cd.param_count = k->param_count;
  cd.break_force = k->break_force;
  cd.collide_connected = k->collide_connected;
  return sn_create_constraint(w, &cd);
}

static bool build_custom(sn_loader *L, sn_world *w, sn_scene_names *names, const sn_soft_ir *s, sn_soft_body_id id) {
  sn_particle_id *pid = L->particle_ids + s->first_particle;
  for (int32_t i = 0; i < s->particle_count; ++i) {
    pid[i] = sn_create_particle(w, id, s->particles + i);
    if (pid[i].index1 == 0) { /* the path is left as is: the load ends here */
      sn_scene_path_push_key(L, "particles");
      sn_scene_path_push_index(L, i);
      return engine_refused(L, w, s->particle_nodes[i], "particle");
    }
  }
  for (int32_t i = 0; i < s->edge_count; ++i) {
    if (sn_soft_body_add_edge(w, id, pid[s->edges[2 * i]], pid[s->edges[2 * i + 1]]) != SN_OK) {
      sn_scene_path_push_key(L, "edges");
      sn_scene_path_push_index(L, i);
      return engine_refused(L, w, s->edge_nodes[i], "edge");
    }
  }
  sn_particle_id *scratch = malloc(SN_MAX_CONSTRAINT_PARTICLES * sizeof *scratch);
  if (scratch == NULL) return sn_scene_out_of_memory(L);
  for (int32_t g = 0; g < s->group_count; ++g) {
    const sn_constraint_ir *k = L->groups + s->first_group + g;
    for (int32_t t = 0; t < k->tuple_count; ++t) {
      sn_constraint_id cid = create_constraint(L, w, k, NULL, t, scratch);
      if (cid.index1 == 0) {
        free(scratch);
        sn_scene_path_push_key(L, "constraints");
        sn_scene_path_push_index(L, g);
        sn_scene_path_push_key(L, "particles");
        sn_scene_path_push_index(L, t);
        return engine_refused(L, w, k->tuple_nodes[t], "constraint");
      }
      if (k->name != NULL && sn_scene_names_set_constraint(names, cid, k->name) != SN_SCENE_OK) {
        free(scratch);
        return sn_scene_out_of_memory(L);
      }
    }
  }
  free(scratch);
  return true;
}

static bool build_soft_body(sn_loader *L, sn_world *w, sn_scene_names *names, sn_soft_ir *s) {
  sn_soft_body_id id = SN_NULL_SOFT_BODY;
  switch (s->kind) {
  case SN_SOFT_ROPE:
    id = sn_create_rope(w, &s->rope);
    break;
  case SN_SOFT_CLOTH:
    id = sn_create_cloth(w, &s->cloth);
    break;
  case SN_SOFT_RING:
    id = sn_create_ring(w, &s->ring);
    break;
  case SN_SOFT_LATTICE:
    id = sn_create_lattice(w, &s->lattice);
    break;
  case SN_SOFT_CUSTOM:
    id = sn_create_soft_body(w, &s->body);
    break;
  }
  if (id.index1 == 0) {
    char what[64];
    snprintf(what, sizeof what, "%s soft body", s->kind_name);
    return engine_refused(L, w, s->node, what);
  }
  if (s->name != NULL && sn_scene_names_set_soft_body(names, id, s->name) != SN_SCENE_OK)
    return sn_scene_out_of_memory(L);
  if (s->kind == SN_SOFT_CUSTOM) return build_custom(L, w, names, s, id);
  int32_t got = sn_soft_body_get_particles(w, id, L->particle_ids + s->first_particle, s->particle_count);
  if (got != s->particle_count || sn_soft_body_get_particle_count(w, id) != s->particle_count)
    return sn_scene_fail(L, SN_SCENE_ERR_ENGINE, SN_OK, s->node, false,
                         "the %s builder made %d particles; expected %d (the format's particle numbering)",
                         s->kind_name, (int)sn_soft_body_get_particle_count(w, id), (int)s->particle_count);
  return true;
}

static bool build_constraint(sn_loader *L, sn_world *w, sn_scene_names *names, const sn_body_id *ids, int32_t i) {
  const sn_constraint_ir *k = L->constraints + i;
  sn_particle_id scratch_local[8];
  sn_particle_id *scratch =
      k->particle_count <= 8 ? scratch_local : malloc((size_t)k->particle_count * sizeof *scratch);
  if (scratch == NULL) return sn_scene_out_of_memory(L);
  sn_constraint_id cid = create_constraint(L, w, k, ids, -1, scratch);
  if (scratch != scratch_local) free(scratch);
  if (cid.index1 == 0) return engine_refused(L, w, k->node, "constraint");
  if (k->name != NULL && sn_scene_names_set_constraint(names, cid, k->name) != SN_SCENE_OK)
    return sn_scene_out_of_memory(L);
  return true;
}
