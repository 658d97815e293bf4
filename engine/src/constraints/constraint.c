/* Constraints of registered types in a world: creation with schema-checked
 * parameters, runtime parameter changes, destruction, reactions, breaking.
 * Params and instance blobs are host memory (aligned as the type asks). */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

sn_constraint_def sn_default_constraint_def(void) {
  sn_constraint_def def;
  memset(&def, 0, sizeof(def));
  def.cookie = SN_DEF_COOKIE;
  return def;
}

static void *sn_aligned_alloc(sn_mem *mem, size_t size, size_t align, void **block, size_t *bytes) {
  *bytes = size + align;
  *block = sn_mem_calloc(mem, *bytes);
  if (*block == NULL) return NULL;
  uintptr_t p = ((uintptr_t)*block + (align - 1)) & ~(uintptr_t)(align - 1);
  return (void *)p;
}

static sn_constraint *sn_get_constraint(sn_world *w, sn_constraint_id id, sn_result *code) {
  return SN_RESOLVE(w, constraints, sn_constraint, "constraint", id, code);
}

bool sn_constraint_is_valid(sn_world *w, sn_constraint_id id) { return SN_POOL_ID_LIVE(w, sn_constraint_pool, id); }

static const sn_param_desc *sn_find_param(const sn_constraint_type *t, const char *name) {
  if (name == NULL) return NULL;
  for (uint32_t i = 0; i < t->param_count; ++i) {
    if (strcmp(t->params[i].name, name) == 0) return t->params + i;
  }
  return NULL;
}

/* Range check (vec2: both components). */
static sn_result sn_check_param(sn_world *w, const sn_constraint_type *t, const sn_param_desc *p, double x, double y) {
  bool vec = p->kind == SN_PARAM_VEC2;
  if (!isfinite(x) || (vec && !isfinite(y)))
    return sn_world_error(w, SN_ERR_NOT_FINITE, "%s.%s must be finite", t->name, p->name);
  if (x < p->min || x > p->max || (vec && (y < p->min || y > p->max)))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s.%s = %g%s outside [%g, %g]", t->name, p->name, x,
                          vec ? " (or y)" : "", p->min, p->max);
  if ((p->kind == SN_PARAM_INT || p->kind == SN_PARAM_BOOL) && x != floor(x))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s.%s must be a whole number", t->name, p->name);
  return SN_OK;
}

static void sn_write_param(void *params, const sn_param_desc *p, double x, double y) {
  char *at = (char *)params + p->offset;
  if (p->kind == SN_PARAM_FLOAT) {
    float f = (float)x;
    memcpy(at, &f, sizeof f);
  } else if (p->kind == SN_PARAM_VEC2) {
    sn_vec2 v = {(float)x, (float)y};
    memcpy(at, &v, sizeof v);
  } else {
    int32_t i = (int32_t)x;
    memcpy(at, &i, sizeof i);
  }
}

static void sn_read_param(const void *params, const sn_param_desc *p, double *x, double *y) {
  const char *at = (const char *)params + p->offset;
  *y = 0.0;
  if (p->kind == SN_PARAM_FLOAT) {
    float f;
    memcpy(&f, at, sizeof f);
    *x = f;
  } else if (p->kind == SN_PARAM_VEC2) {
    sn_vec2 v;
    memcpy(&v, at, sizeof v);
    *x = v.x;
    *y = v.y;
  } else {
    int32_t i;
    memcpy(&i, at, sizeof i);
    *x = i;
  }
}

/* Body view outside a step (create, reactions): no solver state. */
static sn_constraint_body sn_body_view(const sn_world *w, int32_t index, sn_solver_body *state) {
  const sn_body *b = w->bodies.data + index;
  sn_constraint_body v;
  v.state = state;
  bool moves = b->type == SN_BODY_DYNAMIC && b->is_awake;
  v.inv_mass = moves ? b->inv_mass : 0.0f;
  v.inv_inertia = moves ? b->inv_inertia : 0.0f;
  v.center = b->center;
  v.q = b->xf.q;
  v.local_center = b->local_center;
  v.origin = b->xf.p;
  return v;
}

/* Particle view outside a step. */
static sn_constraint_body sn_particle_view(const sn_world *w, int32_t index, sn_solver_body *state) {
  const sn_particle *p = w->particles.data + index;
  sn_constraint_body v;
  v.state = state;
  v.inv_mass = p->kinematic ? 0.0f : p->inv_mass;
  v.inv_inertia = 0.0f;
  v.center = p->x;
  v.q = (sn_rot){1.0f, 0.0f};
  v.local_center = (sn_vec2){0.0f, 0.0f};
  v.origin = p->x;
  return v;
}

/* Views (no solver state) of a constraint's bodies then particles, in
 * memory of the caller's: views and ptrs hold body_count + particle_count. */
static void sn_fill_views(const sn_world *w, const sn_constraint_type *t, const int32_t *bodies,
                          const int32_t *particles, int32_t particle_count, sn_constraint_body *views,
                          const sn_constraint_body **ptrs) {
  int32_t n = 0;
  for (uint32_t i = 0; i < t->body_count; ++i, ++n) {
    views[n] = sn_body_view(w, bodies[i], NULL);
    ptrs[n] = views + n;
  }
  for (int32_t i = 0; i < particle_count; ++i, ++n) {
    views[n] = sn_particle_view(w, particles[i], NULL);
    ptrs[n] = views + n;
  }
}

/* Counts constraints joining a body pair that should not collide. */
static bool sn_join(sn_world *w, int32_t a, int32_t b, int delta) {
  uint64_t key = sn_pair_key(a, b);
  int32_t n = sn_pair_set_find(&w->joined, key);
  if (n < 0) n = 0;
  if (n > 0) sn_pair_set_remove(&w->joined, key);
  n += delta;
  if (n > 0 && !sn_pair_set_add(&w->joined, &w->mem, key, n)) return false;
  return true;
}

/* Move-buffer slots sn_free_constraint(.., true) may need for constraint k. */
static int32_t sn_repair_slots(const sn_world *w, const sn_constraint *k) {
  if (k->type->body_count != 2 || k->collide_connected) return 0;
  return w->bodies.data[k->bodies[0]].shape_count + w->bodies.data[k->bodies[1]].shape_count;
}

/* The last constraint keeping bodies a and b from colliding is gone: queue
 * the shapes of the non-static ones for the next step's pair search, which
 * only looks at moved proxies; two bodies at rest (or overlapping inside
 * their fat boxes) would otherwise never get their contact back. The move
 * buffer has room: sn_destroy_constraint reserves it, and during a step it
 * holds every shape. */
static void sn_repair_pair(sn_world *w, int32_t a, int32_t b) {
  int32_t ends[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    const sn_body *body = w->bodies.data + ends[i];
    if (body->type == SN_BODY_STATIC) continue;
    for (int32_t s = body->shape_list; s != SN_NULL_INDEX; s = w->shapes.data[s].next) {
      sn_shape *shape = w->shapes.data + s;
      if (shape->proxy == SN_NULL_NODE || shape->enlarged) continue;
      if (sn_array_push(&w->mem, w->move_buffer, s)) shape->enlarged = true;
    }
  }
}

/* repair: the bodies stay (not a body or world destruction), so a pair that
 * may collide again is queued for pair finding */
static void sn_free_constraint(sn_world *w, int32_t index, bool repair) {
  sn_constraint *k = w->constraints.data + index;
  /* (a snapshot's loader that refused the file frees constraints whose
   * bodies it did not check) */
  for (uint32_t j = 0; j < k->type->body_count; ++j) {
    if (k->bodies[j] >= 0 && k->bodies[j] < w->bodies.count) w->bodies.data[k->bodies[j]].constraint_count -= 1;
  }
  if (k->type->body_count == 2 && !k->collide_connected) {
    sn_join(w, k->bodies[0], k->bodies[1], -1);
    if (repair && sn_pair_set_find(&w->joined, sn_pair_key(k->bodies[0], k->bodies[1])) <= 0)
      sn_repair_pair(w, k->bodies[0], k->bodies[1]);
  }
  if (k->type->destroy) {
    sn_world_lock(w);
    k->type->destroy(k->instance);
    sn_world_unlock(w);
  }
  sn_mem_free(&w->mem, k->params_block, k->params_bytes);
  sn_mem_free(&w->mem, k->instance_block, k->instance_bytes);
  sn_mem_free(&w->mem, k->particles, (size_t)k->particle_count * sizeof(int32_t));
  k->particles = NULL;
  k->particle_count = 0;
  w->xpbd_topology++;
  sn_pool pool = sn_constraint_pool(w);
  sn_pool_release(&pool, index);
}

sn_constraint_id sn_create_constraint(sn_world *w, const sn_constraint_def *def) {
  if (w == NULL) return SN_NULL_CONSTRAINT;
  if (w->locked) return sn_world_locked_error(w, "sn_create_constraint"), SN_NULL_CONSTRAINT;
  if (def == NULL) return sn_world_error(w, SN_ERR_NULL, "constraint def is NULL"), SN_NULL_CONSTRAINT;
  if (def->cookie != SN_DEF_COOKIE)
    return sn_world_error(w, SN_ERR_UNINITIALIZED_DEF, "start from sn_default_constraint_def()"), SN_NULL_CONSTRAINT;
  if (def->type == NULL) return sn_world_error(w, SN_ERR_NULL, "constraint type name is NULL"), SN_NULL_CONSTRAINT;
  const sn_constraint_type *t = sn_registry_find_type(w->registry, def->type);
  if (t == NULL)
    return sn_world_error(w, SN_ERR_NOT_FOUND, "no constraint type '%s' in the world's registry", def->type),
           SN_NULL_CONSTRAINT;
  if (!isfinite(def->break_force) || def->break_force < 0.0f)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "break_force must be finite and >= 0"), SN_NULL_CONSTRAINT;
  if (def->param_count < 0 || (def->param_count > 0 && def->params == NULL))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "param_count without params"), SN_NULL_CONSTRAINT;
  int32_t bodies[SN_MAX_CONSTRAINT_BODIES] = {SN_NULL_INDEX, SN_NULL_INDEX};
  for (uint32_t i = 0; i < t->body_count; ++i) {
    sn_result code;
    if (sn_get_body(w, def->bodies[i], &code) == NULL) return SN_NULL_CONSTRAINT;
    bodies[i] = def->bodies[i].index1 - 1;
  }
  if (t->body_count == 2 && bodies[0] == bodies[1])
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s joins a body to itself", t->name), SN_NULL_CONSTRAINT;
  int32_t np = def->particle_count;
  if (t->particle_count == SN_ANY_PARTICLES ? (np < 1 || np > SN_MAX_CONSTRAINT_PARTICLES)
                                            : np != (int32_t)t->particle_count)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s joins %s particles, got %d", t->name,
                          t->particle_count == SN_ANY_PARTICLES ? "1..4096" : "a fixed number of",
                          (int)def->particle_count),
           SN_NULL_CONSTRAINT;
  if (np > 0 && def->particles == NULL)
    return sn_world_error(w, SN_ERR_NULL, "%s: particle_count without particles", t->name), SN_NULL_CONSTRAINT;
  for (int32_t i = 0; i < np; ++i) {
    sn_result code;
    if (sn_get_particle(w, def->particles[i], &code) == NULL) return SN_NULL_CONSTRAINT;
    for (int32_t j = 0; j < i && np <= 64; ++j) {
      if (def->particles[j].index1 == def->particles[i].index1)
        return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s joins particle %d twice", t->name, i), SN_NULL_CONSTRAINT;
    }
  }
  for (int32_t i = 0; i < def->param_count; ++i) {
    const sn_param_desc *p = sn_find_param(t, def->params[i].name);
    if (p == NULL)
      return sn_world_error(w, SN_ERR_NOT_FOUND, "%s has no parameter '%s'", t->name,
                            def->params[i].name ? def->params[i].name : "(null)"),
             SN_NULL_CONSTRAINT;
    if (sn_check_param(w, t, p, def->params[i].x, def->params[i].y) != SN_OK) return SN_NULL_CONSTRAINT;
  }
  sn_pool pool = sn_constraint_pool(w);
  if (!sn_world_make_room(w, &pool, 1, w->max_constraints, "max_constraints", "constraints", NULL))
    return SN_NULL_CONSTRAINT;
  sn_constraint k;
  memset(&k, 0, sizeof(k));
  k.type = t;
  k.params = sn_aligned_alloc(&w->mem, t->params_size, t->params_align, &k.params_block, &k.params_bytes);
  k.instance = sn_aligned_alloc(&w->mem, t->instance_size, t->instance_align, &k.instance_block, &k.instance_bytes);
  if (k.params == NULL || k.instance == NULL) {
    sn_mem_free(&w->mem, k.params_block, k.params_bytes);
    sn_mem_free(&w->mem, k.instance_block, k.instance_bytes);
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot allocate constraint"), SN_NULL_CONSTRAINT;
  }
  for (uint32_t i = 0; i < t->param_count; ++i)
    sn_write_param(k.params, t->params + i, t->params[i].def, t->params[i].def);
  for (int32_t i = 0; i < def->param_count; ++i)
    sn_write_param(k.params, sn_find_param(t, def->params[i].name), def->params[i].x, def->params[i].y);
  int32_t nv = (int32_t)t->body_count + np;
  size_t view_bytes = (size_t)nv * (sizeof(sn_constraint_body) + sizeof(sn_constraint_body *));
  void *view_block = sn_mem_alloc(&w->mem, view_bytes + 1);
  if (np > 0) k.particles = sn_mem_alloc(&w->mem, (size_t)np * sizeof(int32_t));
  if (view_block == NULL || (np > 0 && k.particles == NULL)) {
    sn_mem_free(&w->mem, view_block, view_bytes + 1);
    sn_mem_free(&w->mem, k.particles, (size_t)np * sizeof(int32_t));
    sn_mem_free(&w->mem, k.params_block, k.params_bytes);
    sn_mem_free(&w->mem, k.instance_block, k.instance_bytes);
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot allocate constraint"), SN_NULL_CONSTRAINT;
  }
  for (int32_t i = 0; i < np; ++i) k.particles[i] = def->particles[i].index1 - 1;
  k.particle_count = np;
  sn_constraint_body *views = view_block;
  const sn_constraint_body **view_ptrs = (const sn_constraint_body **)(views + nv);
  sn_fill_views(w, t, bodies, k.particles, np, views, view_ptrs);
  char err[256];
  err[0] = '\0';
  /* plugin hooks run on a locked world, as the other callbacks do */
  sn_world_lock(w);
  sn_constraint_create_args args;
  memset(&args, 0, sizeof args);
  args.size = (uint32_t)sizeof args;
  args.host = sn_registry_host_api();
  args.type = t;
  args.params = k.params;
  args.instance = k.instance;
  args.bodies = view_ptrs;
  args.body_count = nv;
  args.err = err;
  args.err_capacity = sizeof(err);
  int failed = t->create(&args);
  sn_world_unlock(w);
  sn_mem_free(&w->mem, view_block, view_bytes + 1);
  if (failed != 0) {
    err[sizeof(err) - 1] = '\0';
    sn_mem_free(&w->mem, k.particles, (size_t)np * sizeof(int32_t));
    sn_mem_free(&w->mem, k.params_block, k.params_bytes);
    sn_mem_free(&w->mem, k.instance_block, k.instance_bytes);
    return sn_world_error(w, SN_ERR_PLUGIN_INIT_FAILED, "%s create() failed: %s", t->name,
                          err[0] ? err : "(no message)"),
           SN_NULL_CONSTRAINT;
  }
  if (t->body_count == 2 && !def->collide_connected) {
    if (!sn_join(w, bodies[0], bodies[1], +1)) {
      if (t->destroy) {
        sn_world_lock(w);
        t->destroy(k.instance);
        sn_world_unlock(w);
      }
      sn_mem_free(&w->mem, k.particles, (size_t)np * sizeof(int32_t));
      sn_mem_free(&w->mem, k.params_block, k.params_bytes);
      sn_mem_free(&w->mem, k.instance_block, k.instance_bytes);
      return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot record the joined pair"), SN_NULL_CONSTRAINT;
    }
    /* existing contacts between them go */
    sn_body *ba = w->bodies.data + bodies[0];
    for (int32_t key = ba->contact_list; key != SN_NULL_INDEX;) {
      sn_contact *c = w->contacts.data + (key >> 1);
      int32_t next = c->edges[key & 1].next_key;
      int32_t other = c->edges[1 - (key & 1)].body;
      if (other == bodies[1]) sn_contact_destroy(w, key >> 1, true);
      key = next;
    }
  }
  int32_t index = sn_pool_acquire(&pool);
  k.generation = w->constraints.data[index].generation;
  k.in_use = true;
  k.next_free = SN_NULL_INDEX;
  k.bodies[0] = bodies[0];
  k.bodies[1] = bodies[1];
  k.break_force = def->break_force;
  k.collide_connected = def->collide_connected;
  k.user_data = def->user_data;
  w->constraints.data[index] = k;
  w->xpbd_topology++;
  for (uint32_t i = 0; i < t->body_count; ++i) {
    w->bodies.data[bodies[i]].constraint_count += 1;
    sn_body_wake(w, bodies[i]);
  }
  return (sn_constraint_id){index + 1, w->tag, k.generation};
}

sn_result sn_destroy_constraint(sn_world *w, sn_constraint_id id) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_destroy_constraint");
  if (!sn_array_reserve(&w->mem, w->move_buffer, w->move_buffer.count + sn_repair_slots(w, k)))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot grow the move buffer");
  for (uint32_t i = 0; i < k->type->body_count; ++i) sn_body_wake(w, k->bodies[i]);
  sn_free_constraint(w, id.index1 - 1, true);
  return SN_OK;
}

void sn_constraints_destroy_all(sn_world *w) {
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    if (w->constraints.data[i].in_use) sn_free_constraint(w, i, false);
  }
}

void sn_constraints_destroy_for_body(sn_world *w, int32_t body_index) {
  /* (a body without constraints, the common case, looks at none: a ragdoll
   * destroyed joints first, then bodies, in a world of 10^4 joints) */
  for (int32_t i = 0; i < w->constraints.count && w->bodies.data[body_index].constraint_count > 0; ++i) {
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    for (uint32_t j = 0; j < k->type->body_count; ++j) {
      if (k->bodies[j] == body_index) {
        for (uint32_t m = 0; m < k->type->body_count; ++m) sn_body_wake(w, k->bodies[m]);
        sn_free_constraint(w, i, false);
        break;
      }
    }
  }
}

sn_result sn_constraint_set_param(sn_world *w, sn_constraint_id id, const char *name, double x, double y) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_constraint_set_param");
  const sn_param_desc *p = sn_find_param(k->type, name);
  if (p == NULL)
    return sn_world_error(w, SN_ERR_NOT_FOUND, "%s has no parameter '%s'", k->type->name, name ? name : "(null)");
  if (!(p->flags & SN_PARAM_RUNTIME))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s.%s cannot change after creation", k->type->name, p->name);
  sn_result r = sn_check_param(w, k->type, p, x, y);
  if (r != SN_OK) return r;
  double ox, oy;
  sn_read_param(k->params, p, &ox, &oy);
  sn_write_param(k->params, p, x, y);
  if (k->type->params_changed) {
    /* the instance as it was, to put back if the type refuses (the ABI lets
     * the host copy instances) */
    size_t bytes = k->type->instance_size;
    void *saved = bytes > 0 ? sn_mem_alloc(&w->mem, bytes) : NULL;
    if (bytes > 0 && saved == NULL) {
      sn_write_param(k->params, p, ox, oy);
      return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot change %s.%s", k->type->name, p->name);
    }
    if (saved != NULL) memcpy(saved, k->instance, bytes);
    char err[256];
    err[0] = '\0';
    sn_world_lock(w);
    int refused = k->type->params_changed(k->params, k->instance, err, sizeof(err));
    sn_world_unlock(w);
    if (refused != 0 && saved != NULL) memcpy(k->instance, saved, bytes);
    sn_mem_free(&w->mem, saved, bytes);
    if (refused != 0) {
      sn_write_param(k->params, p, ox, oy); /* leave it as it was */
      err[sizeof(err) - 1] = '\0';
      return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s refused %s: %s", k->type->name, p->name, err);
    }
  }
  w->xpbd_param_edits++; /* the XPBD schedule's same_params follow */
  for (uint32_t i = 0; i < k->type->body_count; ++i) sn_body_wake(w, k->bodies[i]);
  return SN_OK;
}

sn_result sn_constraint_get_param(sn_world *w, sn_constraint_id id, const char *name, double *x, double *y) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (x == NULL || y == NULL) return sn_world_error(w, SN_ERR_NULL, "x and y must not be NULL");
  const sn_param_desc *p = sn_find_param(k->type, name);
  if (p == NULL)
    return sn_world_error(w, SN_ERR_NOT_FOUND, "%s has no parameter '%s'", k->type->name, name ? name : "(null)");
  sn_read_param(k->params, p, x, y);
  return SN_OK;
}

sn_result sn_constraint_export_params(sn_world *w, sn_constraint_id id, void *out, size_t size) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out must not be NULL");
  if (w->stepping) return sn_world_locked_error(w, "sn_constraint_export_params");
  const sn_constraint_type *t = k->type;
  if (size < t->params_size)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s params take %u bytes, out has %zu", t->name, t->params_size,
                          size);
  if (t->export_params == NULL) {
    memcpy(out, k->params, t->params_size);
    return SN_OK;
  }
  /* the plugin writes an aligned copy; out changes only if all went well */
  void *block = NULL, *views_block = NULL;
  size_t block_bytes = 0;
  void *blob = sn_aligned_alloc(&w->mem, t->params_size, t->params_align, &block, &block_bytes);
  int32_t nv = (int32_t)t->body_count + k->particle_count;
  size_t view_bytes = (size_t)nv * (sizeof(sn_constraint_body) + sizeof(sn_constraint_body *));
  views_block = sn_mem_alloc(&w->mem, view_bytes + 1);
  if (blob == NULL || views_block == NULL) {
    sn_mem_free(&w->mem, block, block_bytes);
    sn_mem_free(&w->mem, views_block, view_bytes + 1);
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot export %s params", t->name);
  }
  memcpy(blob, k->params, t->params_size);
  sn_constraint_body *views = views_block;
  const sn_constraint_body **ptrs = (const sn_constraint_body **)(views + nv);
  sn_fill_views(w, t, k->bodies, k->particles, k->particle_count, views, ptrs);
  sn_result r = SN_OK;
  sn_world_lock(w);
  int failed = t->export_params(k->params, k->instance, ptrs, nv, blob);
  sn_world_unlock(w);
  if (failed != 0) {
    r = sn_world_error(w, SN_ERR_PLUGIN_INIT_FAILED, "%s export_params() failed", t->name);
  } else {
    /* a value the schema refuses could not be loaded back */
    for (uint32_t i = 0; i < t->param_count && r == SN_OK; ++i) {
      const sn_param_desc *p = t->params + i;
      double x, y;
      sn_read_param(blob, p, &x, &y);
      bool vec = p->kind == SN_PARAM_VEC2;
      if (!isfinite(x) || !isfinite(y) || x < p->min || x > p->max || (vec && (y < p->min || y > p->max)))
        r = sn_world_error(w, SN_ERR_PLUGIN_INIT_FAILED, "%s export_params() wrote %s = %g%s outside [%g, %g]", t->name,
                           p->name, x, vec ? " (or y)" : "", p->min, p->max);
    }
  }
  if (r == SN_OK) memcpy(out, blob, t->params_size);
  sn_mem_free(&w->mem, block, block_bytes);
  sn_mem_free(&w->mem, views_block, view_bytes + 1);
  return r;
}

/* Views of a constraint's endpoints for its get_reaction: up to this many
 * on the stack, more from the step's arena or the allocator. */
#define SN_REACTION_LOCAL_VIEWS 8

size_t sn_reaction_bytes(int32_t endpoints) {
  return endpoints > SN_REACTION_LOCAL_VIEWS
             ? (size_t)endpoints * (sizeof(sn_constraint_body) + sizeof(sn_constraint_body *)) + 16
             : 0;
}

size_t sn_breaking_scratch_bytes(const sn_world *w) {
  return sn_reaction_bytes(w->constraint_lists.breakable_endpoints);
}

/* A constraint as one item for a query callback (get_reaction, get_state)
 * over its endpoint views, and the step info of a step of length dt (0:
 * no step yet, rates left zero). */
static sn_constraint_item sn_query_item(const sn_constraint *k, const sn_constraint_body **ptrs, int32_t nv) {
  sn_constraint_item item;
  memset(&item, 0, sizeof(item));
  item.params = k->params;
  item.instance = k->instance;
  item.bodies = (sn_constraint_body *const *)ptrs;
  item.body_count = nv;
  return item;
}
static sn_step_info sn_query_step_info(const sn_world *w, float dt) {
  sn_step_info info;
  memset(&info, 0, sizeof(info));
  info.size = sizeof(info);
  info.substeps = w->settings.substeps;
  info.iterations = 1;
  if (dt > 0.0f) {
    info.dt = dt;
    info.inv_dt = 1.0f / dt;
    info.h = dt / (float)w->settings.substeps;
    info.inv_h = 1.0f / info.h;
  }
  return info;
}

/* The reaction over the last step (zero without get_reaction). The views
 * come from arena (reset first) when not NULL: the step reserved it
 * (sn_solve_reserve); else from the allocator. False when out of memory. */
static bool sn_reaction(sn_world *w, const sn_constraint *k, float dt, sn_arena *arena, sn_vec2 *force, float *torque) {
  *force = (sn_vec2){0.0f, 0.0f};
  *torque = 0.0f;
  if (k->type->get_reaction == NULL || dt <= 0.0f) return true;
  sn_constraint_body local_views[SN_REACTION_LOCAL_VIEWS];
  const sn_constraint_body *local_ptrs[SN_REACTION_LOCAL_VIEWS];
  int32_t nv = (int32_t)k->type->body_count + k->particle_count;
  const bool local = nv <= SN_REACTION_LOCAL_VIEWS;
  size_t view_bytes = (size_t)nv * (sizeof(sn_constraint_body) + sizeof(sn_constraint_body *));
  void *block = NULL;
  if (!local && arena != NULL) {
    sn_arena_reset(arena);
    block = sn_arena_alloc(arena, view_bytes);
  } else if (!local) {
    block = sn_mem_alloc(&w->mem, view_bytes);
  }
  if (!local && block == NULL) return false;
  sn_constraint_body *views = local ? local_views : (sn_constraint_body *)block;
  const sn_constraint_body **ptrs = local ? local_ptrs : (const sn_constraint_body **)(views + nv);
  sn_fill_views(w, k->type, k->bodies, k->particles, k->particle_count, views, ptrs);
  const sn_constraint_item item = sn_query_item(k, ptrs, nv);
  const sn_step_info info = sn_query_step_info(w, dt);
  sn_world_lock(w);
  k->type->get_reaction(&info, &item, force, torque);
  sn_world_unlock(w);
  if (block != NULL && arena == NULL) sn_mem_free(&w->mem, block, view_bytes);
  return true;
}

sn_result sn_constraint_get_reaction(sn_world *w, sn_constraint_id id, sn_vec2 *force, float *torque) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (force == NULL || torque == NULL) return sn_world_error(w, SN_ERR_NULL, "force and torque must not be NULL");
  if (!sn_reaction(w, k, w->last_dt, NULL, force, torque))
    return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "sn_constraint_get_reaction: out of memory for %d endpoint views",
                          (int)(k->type->body_count + (uint32_t)k->particle_count));
  return SN_OK;
}

static const sn_state_desc *sn_find_state(const sn_constraint_type *t, const char *name, uint32_t *index) {
  if (name == NULL) return NULL;
  for (uint32_t i = 0; i < t->state_count; ++i) {
    if (strcmp(t->states[i].name, name) == 0) {
      *index = i;
      return t->states + i;
    }
  }
  return NULL;
}

sn_result sn_constraint_get_state(sn_world *w, sn_constraint_id id, const char *name, double *x, double *y) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (x == NULL || y == NULL) return sn_world_error(w, SN_ERR_NULL, "x and y must not be NULL");
  const sn_constraint_type *t = k->type;
  uint32_t index = 0;
  if (sn_find_state(t, name, &index) == NULL)
    return sn_world_error(w, SN_ERR_NOT_FOUND, "%s has no state '%s'%s", t->name, name ? name : "(null)",
                          t->state_count == 0 ? " (it publishes none)" : "");
  /* inside a step the instances are packed away from their slots */
  if (w->stepping) return sn_world_locked_error(w, "sn_constraint_get_state");
  /* values and views on the stack, the views of a constraint with many
   * particles from the allocator */
  sn_vec2 values[SN_MAX_CONSTRAINT_STATES];
  sn_solver_body local_states[SN_REACTION_LOCAL_VIEWS];
  sn_constraint_body local_views[SN_REACTION_LOCAL_VIEWS];
  const sn_constraint_body *local_ptrs[SN_REACTION_LOCAL_VIEWS];
  int32_t nv = (int32_t)t->body_count + k->particle_count;
  size_t view_bytes = (size_t)nv * (sizeof(sn_solver_body) + sizeof(sn_constraint_body) + sizeof(sn_constraint_body *));
  void *block = NULL;
  if (nv > SN_REACTION_LOCAL_VIEWS) {
    block = sn_mem_alloc(&w->mem, view_bytes);
    if (block == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot read %s state", t->name);
  }
  sn_solver_body *states = block ? (sn_solver_body *)block : local_states;
  sn_constraint_body *views = block ? (sn_constraint_body *)(void *)(states + nv) : local_views;
  const sn_constraint_body **ptrs = block ? (const sn_constraint_body **)(views + nv) : local_ptrs;
  memset(values, 0, sizeof(sn_vec2) * t->state_count);
  memset(states, 0, sizeof(sn_solver_body) * (size_t)nv);
  sn_fill_views(w, t, k->bodies, k->particles, k->particle_count, views, ptrs);
  /* the current velocities, and no motion within a step */
  for (int32_t i = 0; i < nv; ++i) {
    states[i].dq = (sn_rot){1.0f, 0.0f};
    if (i < (int32_t)t->body_count) {
      const sn_body *b = w->bodies.data + k->bodies[i];
      states[i].v = b->v;
      states[i].w = b->w;
    } else {
      states[i].v = w->particles.data[k->particles[i - (int32_t)t->body_count]].v;
    }
    views[i].state = states + i;
  }
  const sn_constraint_item item = sn_query_item(k, ptrs, nv);
  const sn_step_info info = sn_query_step_info(w, w->last_dt);
  sn_world_lock(w);
  t->get_state(&info, &item, values);
  sn_world_unlock(w);
  *x = values[index].x;
  *y = t->states[index].kind == SN_PARAM_VEC2 ? values[index].y : 0.0;
  if (block != NULL) sn_mem_free(&w->mem, block, view_bytes);
  return SN_OK;
}

bool sn_constraint_lists_update(sn_world *w) {
  sn_constraint_lists *l = &w->constraint_lists;
  if (l->valid && l->topology == w->xpbd_topology && l->batch_off == w->xpbd_batch_off) return true;
  l->valid = false;
  l->levels_valid = false;
  l->items.count = l->breakable.count = l->batched.count = l->item_types.count = 0;
  l->batched_count = l->batched_endpoints = l->items_endpoints = l->breakable_endpoints = 0;
  l->batched_packed = l->items_packed = 0;
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    const sn_constraint_type *t = k->type;
    if (k->break_force > 0.0f && t->get_reaction != NULL) {
      if (!sn_array_push(&w->mem, l->breakable, i)) return false;
      l->breakable_endpoints = sn_maxi(l->breakable_endpoints, (int32_t)t->body_count + k->particle_count);
    }
    /* as the solver decides (soft/xpbd_schedule.c, sn_xpbd_batched) */
    if (w->xpbd_batch_off || t->solve_particles == NULL) {
      if (!sn_array_push(&w->mem, l->items, i)) return false;
      l->items_endpoints += (int32_t)t->body_count + k->particle_count;
      l->items_packed += t->params_size + t->params_align + t->instance_size + t->instance_align + 32;
      bool known = false;
      for (int32_t n = l->item_types.count - 1; n >= 0 && !known; --n) known = l->item_types.data[n] == t;
      if (!known && !sn_array_push(&w->mem, l->item_types, t)) return false;
      continue;
    }
    l->batched_count++;
    l->batched_endpoints += (int32_t)t->body_count + k->particle_count;
    l->batched_packed += t->params_size + t->params_align + t->instance_size + t->instance_align + 32;
    bool seen = false;
    for (int32_t b = 0; b < l->batched.count && !seen; ++b) seen = l->batched.data[b].type == t;
    sn_type_first first = {t, i};
    if (!seen && !sn_array_push(&w->mem, l->batched, first)) return false;
  }
  l->topology = w->xpbd_topology;
  l->batch_off = w->xpbd_batch_off;
  l->valid = true;
  return true;
}

void sn_constraints_check_breaking(sn_world *w, float dt) {
  w->last_dt = dt;
  /* only the constraints that may break (every one if the list could not
   * be built); a break frees its slot: the list is rebuilt next time, and
   * later entries are still checked for in_use */
  const bool listed = sn_constraint_lists_update(w);
  const sn_constraint_lists *l = &w->constraint_lists;
  const int32_t count = listed ? l->breakable.count : w->constraints.count;
  /* the reactions' views (within what the step reserved: no allocation) */
  if (listed) sn_arena_reserve(&w->arena, &w->mem, sn_breaking_scratch_bytes(w));
  for (int32_t n = 0; n < count; ++n) {
    int32_t i = listed ? l->breakable.data[n] : n;
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || k->break_force <= 0.0f || k->type->get_reaction == NULL) continue;
    sn_vec2 f;
    float tq;
    bool got = sn_reaction(w, k, dt, &w->arena, &f, &tq); /* (views: the step reserved the arena) */
    assert(got);
    (void)got;
    float mag = sn_length(f);
    if (mag > k->break_force) {
      sn_constraint_broken_event e = {{i + 1, w->tag, k->generation}, k->user_data, mag};
      sn_array_push(&w->mem, w->broken_events, e);
      for (uint32_t j = 0; j < k->type->body_count; ++j) sn_body_wake(w, k->bodies[j]);
      sn_free_constraint(w, i, true);
    }
  }
}

int32_t sn_world_get_broken_constraints(sn_world *w, const sn_constraint_broken_event **events) {
  if (w == NULL) return 0;
  if (events) *events = w->broken_events.data;
  return w->broken_events.count;
}

bool sn_constraints_relocate(sn_world *w) {
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use) continue;
    void *pb, *ib;
    size_t pn, in;
    void *p = sn_aligned_alloc(&w->mem, k->type->params_size, k->type->params_align, &pb, &pn);
    void *n = sn_aligned_alloc(&w->mem, k->type->instance_size, k->type->instance_align, &ib, &in);
    if (p == NULL || n == NULL) {
      sn_mem_free(&w->mem, pb, pn);
      sn_mem_free(&w->mem, ib, in);
      return false;
    }
    memcpy(p, k->params, k->type->params_size);
    memcpy(n, k->instance, k->type->instance_size);
    /* scribble over the old memory so a plugin that kept a pointer fails loudly */
    memset(k->params_block, 0xA5, k->params_bytes);
    memset(k->instance_block, 0xA5, k->instance_bytes);
    sn_mem_free(&w->mem, k->params_block, k->params_bytes);
    sn_mem_free(&w->mem, k->instance_block, k->instance_bytes);
    k->params = p;
    k->instance = n;
    k->params_block = pb;
    k->instance_block = ib;
    k->params_bytes = pn;
    k->instance_bytes = in;
  }
  return true;
}

/* Destroys every constraint that joins a marked particle (mark[i] != 0). */
void sn_constraints_destroy_for_particles(sn_world *w, const uint8_t *mark) {
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || k->particle_count == 0) continue;
    for (int32_t j = 0; j < k->particle_count; ++j) {
      if (mark[k->particles[j]]) {
        for (uint32_t m = 0; m < k->type->body_count; ++m) sn_body_wake(w, k->bodies[m]);
        sn_free_constraint(w, i, true);
        break;
      }
    }
  }
}

int32_t sn_constraint_get_particles(sn_world *w, sn_constraint_id id, sn_particle_id *particles, int32_t capacity) {
  sn_constraint *k = sn_get_constraint(w, id, NULL);
  if (k == NULL || particles == NULL || capacity <= 0) return 0;
  int32_t n = k->particle_count < capacity ? k->particle_count : capacity;
  for (int32_t i = 0; i < n; ++i) particles[i] = sn_make_particle_id(w, k->particles[i]);
  return n;
}

sn_result sn_constraint_set_break_force(sn_world *w, sn_constraint_id id, float force) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  if (w->locked) return sn_world_locked_error(w, "sn_constraint_set_break_force");
  if (!isfinite(force)) return sn_world_error(w, SN_ERR_NOT_FINITE, "break force must be finite");
  if (force < 0.0f) return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "break force must be >= 0");
  k->break_force = force;
  w->constraint_lists.valid = false; /* the breakable list follows */
  return SN_OK;
}

sn_result sn_constraint_set_user_data(sn_world *w, sn_constraint_id id, void *user_data) {
  sn_result code;
  sn_constraint *k = sn_get_constraint(w, id, &code);
  if (k == NULL) return code;
  k->user_data = user_data;
  return SN_OK;
}

void *sn_constraint_get_user_data(sn_world *w, sn_constraint_id id) {
  sn_constraint *k = sn_get_constraint(w, id, NULL);
  return k ? k->user_data : NULL;
}

float sn_constraint_get_break_force(sn_world *w, sn_constraint_id id) {
  sn_constraint *k = sn_get_constraint(w, id, NULL);
  return k ? k->break_force : 0.0f;
}
