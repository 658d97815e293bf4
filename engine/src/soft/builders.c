/* Soft-body builders: rope, cloth, ring ("jelly") and lattice.
 *
 * Built on the public API only (sn_create_soft_body, sn_create_particle,
 * sn_create_constraint with a particle list, sn_destroy_soft_body), plus the
 * world's error recorder and allocator. Each builder validates every field
 * of its def first, checks that the constraint types it needs are in the
 * world's registry, and then creates one soft body with its particles and
 * constraints; on any failure it destroys the soft body (and with it every
 * particle and constraint made so far), so nothing remains.
 *
 * Mass: the def's total mass is spread evenly over all particles; a pinned
 * particle is fixed (mass 0), its share carried by the pin.
 * Material (sn_soft_material): compliance and damping go to every stretch
 * link (xpbd_distance), tear_force becomes their break_force; shear
 * diagonals use shear_compliance, bending (xpbd_bend on every three
 * consecutive particles of a line) bend_compliance; a negative value leaves
 * those constraints out. */
#include <math.h>
#include <string.h>

#include "world/world.h"
#include "world/world_pool.h"

/* Most particles one builder makes (keeps index arithmetic in int32_t). */
#define SN_BUILDER_MAX_PARTICLES (1 << 20)
/* Upper ends of the plugin parameter ranges the builders pass on. */
#define SN_BUILDER_MAX_COMPLIANCE 1e6f
#define SN_BUILDER_MAX_DAMPING    1e3f
#define SN_BUILDER_MAX_PRESSURE   100.0f

/* ------------------------------------------------------------------------ */
/* Defaults                                                                  */

sn_soft_material sn_default_soft_material(void) {
  sn_soft_material m;
  memset(&m, 0, sizeof m);
  m.compliance = 0.0f;
  m.damping = 0.0f;
  m.shear_compliance = -1.0f;
  m.bend_compliance = -1.0f;
  m.tear_force = 0.0f;
  return m;
}

sn_rope_def sn_default_rope_def(void) {
  sn_rope_def d;
  memset(&d, 0, sizeof d);
  d.body = sn_default_soft_body_def();
  d.material = sn_default_soft_material();
  d.start = (sn_vec2){0.0f, 0.0f};
  d.end = (sn_vec2){1.0f, 0.0f};
  d.count = 11;
  d.mass = 1.0f;
  d.radius = 0.05f;
  d.tethers = true; /* a pinned inextensible rope stays so under heavy loads */
  d.cookie = SN_DEF_COOKIE;
  return d;
}

sn_cloth_def sn_default_cloth_def(void) {
  sn_cloth_def d;
  memset(&d, 0, sizeof d);
  d.body = sn_default_soft_body_def();
  d.material = sn_default_soft_material();
  d.top_left = (sn_vec2){0.0f, 0.0f};
  d.columns = 10;
  d.rows = 10;
  d.spacing = 0.1f;
  d.mass = 1.0f;
  d.radius = 0.02f;
  d.pins = 0u;
  d.tethers = true;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

sn_ring_def sn_default_ring_def(void) {
  sn_ring_def d;
  memset(&d, 0, sizeof d);
  d.body = sn_default_soft_body_def();
  d.material = sn_default_soft_material();
  /* soft edges: with inextensible edges the regular polygon is the only
   * shape of the rest area, the ring is rigid and its edge and area
   * constraints fight (degenerate gradients) */
  d.material.compliance = 1e-3f;
  d.center = (sn_vec2){0.0f, 0.0f};
  d.radius = 0.5f;
  d.count = 24;
  d.mass = 1.0f;
  d.particle_radius = 0.05f;
  d.pressure = 1.0f;
  d.area_compliance = 0.0f;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

sn_lattice_def sn_default_lattice_def(void) {
  sn_lattice_def d;
  memset(&d, 0, sizeof d);
  d.body = sn_default_soft_body_def();
  d.material = sn_default_soft_material();
  d.material.shear_compliance = 0.0f; /* a lattice keeps its shape: rigid diagonals */
  d.center = (sn_vec2){0.0f, 0.0f};
  d.columns = 5;
  d.rows = 5;
  d.spacing = 0.1f;
  d.mass = 1.0f;
  d.radius = 0.0f; /* 0 = half the spacing */
  d.area_compliance = 0.0f;
  d.cookie = SN_DEF_COOKIE;
  return d;
}

/* ------------------------------------------------------------------------ */
/* Validation                                                                */

static bool sn_check_finite(sn_world *w, const char *fn, const char *field, float x) {
  if (isfinite(x)) return true;
  sn_world_error(w, SN_ERR_NOT_FINITE, "%s: %s must be finite", fn, field);
  return false;
}

/* lo <= x <= hi and finite */
static bool sn_check_range(sn_world *w, const char *fn, const char *field, float x, float lo, float hi) {
  if (!sn_check_finite(w, fn, field, x)) return false;
  if (x >= lo && x <= hi) return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: %s = %g outside [%g, %g]", fn, field, (double)x, (double)lo,
                 (double)hi);
  return false;
}

static bool sn_check_positive(sn_world *w, const char *fn, const char *field, float x) {
  if (!sn_check_finite(w, fn, field, x)) return false;
  if (x > 0.0f) return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: %s = %g must be > 0", fn, field, (double)x);
  return false;
}

static bool sn_check_vec2(sn_world *w, const char *fn, const char *field, sn_vec2 v) {
  if (isfinite(v.x) && isfinite(v.y)) return true;
  sn_world_error(w, SN_ERR_NOT_FINITE, "%s: %s must be finite", fn, field);
  return false;
}

/* a "negative = none" compliance: finite, at most the plugins' maximum */
static bool sn_check_optional(sn_world *w, const char *fn, const char *field, float x) {
  if (!sn_check_finite(w, fn, field, x)) return false;
  if (x <= SN_BUILDER_MAX_COMPLIANCE) return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: %s = %g above %g", fn, field, (double)x,
                 (double)SN_BUILDER_MAX_COMPLIANCE);
  return false;
}

static bool sn_check_material(sn_world *w, const char *fn, const sn_soft_material *m) {
  return sn_check_range(w, fn, "material.compliance", m->compliance, 0.0f, SN_BUILDER_MAX_COMPLIANCE) &&
         sn_check_range(w, fn, "material.damping", m->damping, 0.0f, SN_BUILDER_MAX_DAMPING) &&
         sn_check_optional(w, fn, "material.shear_compliance", m->shear_compliance) &&
         sn_check_optional(w, fn, "material.bend_compliance", m->bend_compliance) &&
         sn_check_range(w, fn, "material.tear_force", m->tear_force, 0.0f, INFINITY);
}

#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1 /* the build sets it (CMake option SINEW_DLOPEN) */
#endif

/* The world's registry has the type, or an error says which plugin to load
 * (or, in a build that loads no files, to register linked in). */
static bool sn_check_type(sn_world *w, const char *fn, const char *type) {
  if (w->registry != NULL && sn_registry_find_type(w->registry, type) != NULL) return true;
  sn_world_error(w, SN_ERR_NOT_FOUND,
                 SN_HAVE_DLOPEN ? "%s: constraint type '%s' is not registered; load plugins/%s.so into the world's "
                                  "registry (sn_registry_load_plugin) first"
                                : "%s: constraint type '%s' is not registered; register the linked-in plugin %s in the "
                                  "world's registry (sn_registry_add_shipped_plugin, sinew/plugins_static.h) first",
                 fn, type, type);
  return false;
}

static bool sn_check_count(sn_world *w, const char *fn, const char *field, int32_t n, int32_t lo, int32_t hi) {
  if (n >= lo && n <= hi) return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: %s = %d outside [%d, %d]", fn, field, (int)n, (int)lo, (int)hi);
  return false;
}

/* The soft body, its particles and its constraints fit under the world's
 * limits (sn_world_def.max_*): checked before anything is allocated, so a
 * grid too large is refused at once instead of after building part of it. */
static bool sn_check_room(sn_world *w, const char *fn, int64_t particles, int64_t constraints) {
  sn_pool soft = sn_soft_body_pool(w), points = sn_particle_pool(w), links = sn_constraint_pool(w);
  return sn_world_limit_ok(w, &soft, 1, w->max_soft_bodies, "max_soft_bodies", "soft bodies", fn) &&
         sn_world_limit_ok(w, &points, particles, w->max_particles, "max_particles", "particles", fn) &&
         sn_world_limit_ok(w, &links, constraints, w->max_constraints, "max_constraints", "constraints", fn);
}

/* Constraints sn_build_grid makes on a columns x rows grid. */
static int64_t sn_grid_constraints(const sn_soft_material *m, int64_t columns, int64_t rows) {
  int64_t n = rows * (columns - 1) + columns * (rows - 1);
  if (m->shear_compliance >= 0.0f) n += 2 * (rows - 1) * (columns - 1);
  if (m->bend_compliance >= 0.0f) n += rows * (columns - 2) + columns * (rows - 2);
  return n;
}

/* ------------------------------------------------------------------------ */
/* Building                                                                  */

typedef struct sn_build {
  sn_world *w;
  const char *fn;
  sn_soft_body_id soft;
  sn_particle_id *ids;
  int32_t count, capacity;
  bool failed;
} sn_build;

static bool sn_build_begin(sn_build *b, sn_world *w, const char *fn, const sn_soft_body_def *body, int32_t capacity) {
  memset(b, 0, sizeof *b);
  b->w = w;
  b->fn = fn;
  b->ids = sn_mem_alloc(&w->mem, (size_t)capacity * sizeof(sn_particle_id));
  if (b->ids == NULL) {
    sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "%s: cannot allocate %d particle ids", fn, (int)capacity);
    return false;
  }
  b->capacity = capacity;
  b->soft = sn_create_soft_body(w, body);
  if (!sn_soft_body_is_valid(w, b->soft)) {
    sn_mem_free(&w->mem, b->ids, (size_t)capacity * sizeof(sn_particle_id));
    b->ids = NULL;
    return false;
  }
  return true;
}

/* A collision edge between particles i and j (other soft bodies cannot
 * pass through it). */
static void sn_build_edge(sn_build *b, int32_t i, int32_t j) {
  if (b->failed) return;
  if (sn_soft_body_add_edge(b->w, b->soft, b->ids[i], b->ids[j]) != SN_OK) b->failed = true;
}

/* The outline of a columns x rows grid as collision edges. */
static void sn_build_grid_outline(sn_build *b, int32_t columns, int32_t rows) {
  for (int32_t c = 0; c + 1 < columns; ++c) {
    sn_build_edge(b, c, c + 1);
    sn_build_edge(b, (rows - 1) * columns + c, (rows - 1) * columns + c + 1);
  }
  for (int32_t r = 0; r + 1 < rows; ++r) {
    sn_build_edge(b, r * columns, (r + 1) * columns);
    sn_build_edge(b, r * columns + columns - 1, (r + 1) * columns + columns - 1);
  }
}

static void sn_build_particle(sn_build *b, sn_vec2 position, float mass, float radius) {
  if (b->failed) return;
  sn_particle_def pd = sn_default_particle_def();
  pd.position = position;
  pd.mass = mass;
  pd.radius = radius;
  sn_particle_id id = sn_create_particle(b->w, b->soft, &pd);
  if (!sn_particle_is_valid(b->w, id)) {
    b->failed = true;
    return;
  }
  b->ids[b->count++] = id;
}

/* A constraint of type over the particles with the given indices. */
static void sn_build_constraint(sn_build *b, const char *type, const int32_t *index, int32_t n,
                                const sn_param_value *params, int32_t param_count, float break_force) {
  if (b->failed) return;
  sn_particle_id local[4];
  sn_particle_id *ids = local;
  if (n > 4) {
    ids = sn_mem_alloc(&b->w->mem, (size_t)n * sizeof(sn_particle_id));
    if (ids == NULL) {
      sn_world_error(b->w, SN_ERR_OUT_OF_MEMORY, "%s: cannot allocate a particle list", b->fn);
      b->failed = true;
      return;
    }
  }
  for (int32_t i = 0; i < n; ++i) ids[i] = b->ids[index[i]];
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = type;
  cd.particles = ids;
  cd.particle_count = n;
  cd.params = params;
  cd.param_count = param_count;
  cd.break_force = break_force;
  sn_constraint_id id = sn_create_constraint(b->w, &cd);
  if (n > 4) sn_mem_free(&b->w->mem, ids, (size_t)n * sizeof(sn_particle_id));
  if (!sn_constraint_is_valid(b->w, id)) b->failed = true;
}

/* A stretch link i-j with the given compliance (material damping and tear force). */
static void sn_build_link(sn_build *b, const sn_soft_material *m, int32_t i, int32_t j, float compliance) {
  const int32_t index[2] = {i, j};
  const sn_param_value v[2] = {{"compliance", compliance, 0.0}, {"damping", m->damping, 0.0}};
  sn_build_constraint(b, "xpbd_distance", index, 2, v, 2, m->tear_force);
}

static void sn_build_bend(sn_build *b, const sn_soft_material *m, int32_t i, int32_t j, int32_t k) {
  const int32_t index[3] = {i, j, k};
  const sn_param_value v[2] = {{"compliance", m->bend_compliance, 0.0}, {"damping", m->damping, 0.0}};
  sn_build_constraint(b, "xpbd_bend", index, 3, v, 2, 0.0f);
}

/* Finishes: the soft body, or (after a failure) nothing at all. */
static sn_soft_body_id sn_build_end(sn_build *b) {
  sn_world *w = b->w;
  sn_mem_free(&w->mem, b->ids, (size_t)b->capacity * sizeof(sn_particle_id));
  b->ids = NULL;
  if (!b->failed) return b->soft;
  /* keep the message of the call that failed: destroying does not set one,
   * but save it anyway in case it ever does */
  char message[sizeof w->last_error];
  memcpy(message, w->last_error, sizeof message);
  sn_destroy_soft_body(w, b->soft);
  memcpy(w->last_error, message, sizeof message);
  return SN_NULL_SOFT_BODY;
}

/* Common entry checks: world, def pointer and cookie. */
#define SN_BUILDER_ENTRY(w, def, fn)                                                                                   \
  do {                                                                                                                 \
    if ((w) == NULL) return SN_NULL_SOFT_BODY;                                                                         \
    if ((w)->locked) return sn_world_locked_error((w), fn), SN_NULL_SOFT_BODY;                                         \
    if ((def) == NULL) return sn_world_error((w), SN_ERR_NULL, "%s: def is NULL", fn), SN_NULL_SOFT_BODY;              \
    if ((def)->cookie != SN_DEF_COOKIE)                                                                                \
      return sn_world_error((w), SN_ERR_UNINITIALIZED_DEF, "%s: start from its sn_default_*_def()", fn),               \
             SN_NULL_SOFT_BODY;                                                                                        \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Rope                                                                      */

sn_soft_body_id sn_create_rope(sn_world *w, const sn_rope_def *def) {
  const char *fn = "sn_create_rope";
  SN_BUILDER_ENTRY(w, def, fn);
  const sn_soft_material *m = &def->material;
  if (!sn_check_count(w, fn, "count", def->count, 2, SN_BUILDER_MAX_PARTICLES) ||
      !sn_check_vec2(w, fn, "start", def->start) || !sn_check_vec2(w, fn, "end", def->end) ||
      !sn_check_positive(w, fn, "mass", def->mass) || !sn_check_range(w, fn, "radius", def->radius, 0.0f, INFINITY) ||
      !sn_check_material(w, fn, m))
    return SN_NULL_SOFT_BODY;
  sn_vec2 span = {def->end.x - def->start.x, def->end.y - def->start.y};
  if (!(span.x * span.x + span.y * span.y > 0.0f))
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: start and end coincide", fn), SN_NULL_SOFT_BODY;
  const bool bend = m->bend_compliance >= 0.0f && def->count >= 3;
  /* tethers hold a particle at its rest distance from a pin: only for
   * inextensible links (a compliant rope is meant to stretch) */
  const bool tethers = def->tethers && (def->pin_start || def->pin_end) && m->compliance == 0.0f;
  if (!sn_check_type(w, fn, "xpbd_distance") || (bend && !sn_check_type(w, fn, "xpbd_bend")) ||
      (tethers && !sn_check_type(w, fn, "xpbd_tether")))
    return SN_NULL_SOFT_BODY;
  {
    const int64_t pins = (def->pin_start ? 1 : 0) + (def->pin_end ? 1 : 0);
    const int64_t links = (int64_t)def->count - 1 + (bend ? (int64_t)def->count - 2 : 0);
    if (!sn_check_room(w, fn, def->count, links + (tethers ? pins * ((int64_t)def->count - pins) : 0)))
      return SN_NULL_SOFT_BODY;
  }

  sn_build b;
  if (!sn_build_begin(&b, w, fn, &def->body, def->count)) return SN_NULL_SOFT_BODY;
  const int32_t n = def->count;
  const float share = def->mass / (float)n;
  for (int32_t i = 0; i < n; ++i) {
    float t = (float)i / (float)(n - 1);
    sn_vec2 p = {def->start.x + t * span.x, def->start.y + t * span.y};
    if (i == n - 1) p = def->end;
    bool pinned = (i == 0 && def->pin_start) || (i == n - 1 && def->pin_end);
    sn_build_particle(&b, p, pinned ? 0.0f : share, def->radius);
  }
  for (int32_t i = 0; i + 1 < n; ++i) sn_build_link(&b, m, i, i + 1, m->compliance);
  for (int32_t i = 0; i + 1 < n; ++i) sn_build_edge(&b, i, i + 1);
  if (bend)
    for (int32_t i = 1; i + 1 < n; ++i) sn_build_bend(&b, m, i - 1, i, i + 1);
  if (tethers) {
    /* Long-range attachments (Kim et al. 2012): each free particle hangs
     * from each pinned end on a tether as long as the rope between them at
     * creation (the rope is straight then). With links alone, one sweep per
     * substep carries a load down a chain of light particles only partly:
     * a 20-particle rope of 0.05 kg particles holding a 10 kg box sat 8 %
     * long and bounced (pin force swinging -7 .. 232 N); the tethers hold
     * every particle to the pin in one projection (0.9 %, 110 N at rest). */
    for (int side = 0; side < 2; ++side) {
      if (side == 0 ? !def->pin_start : !def->pin_end) continue;
      int32_t anchor = side == 0 ? 0 : n - 1;
      for (int32_t i = 0; i < n; ++i) {
        if ((i == 0 && def->pin_start) || (i == n - 1 && def->pin_end)) continue; /* pinned */
        const int32_t index[2] = {anchor, i};
        sn_build_constraint(&b, "xpbd_tether", index, 2, NULL, 0, 0.0f);
      }
    }
  }
  return sn_build_end(&b);
}

/* ------------------------------------------------------------------------ */
/* Cloth                                                                     */

#define SN_PIN_ALL (SN_PIN_TOP_LEFT | SN_PIN_TOP_RIGHT | SN_PIN_TOP_ROW | SN_PIN_BOTTOM_LEFT | SN_PIN_BOTTOM_RIGHT)

/* grid sizes: each at least 2, the product at most the builder limit */
static bool sn_check_grid(sn_world *w, const char *fn, int32_t columns, int32_t rows) {
  if (!sn_check_count(w, fn, "columns", columns, 2, SN_BUILDER_MAX_PARTICLES) ||
      !sn_check_count(w, fn, "rows", rows, 2, SN_BUILDER_MAX_PARTICLES))
    return false;
  if ((int64_t)columns * rows <= SN_BUILDER_MAX_PARTICLES) return true;
  sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: columns x rows = %lld particles, more than %d", fn,
                 (long long)columns * rows, SN_BUILDER_MAX_PARTICLES);
  return false;
}

/* Structural links, optional shear diagonals and bending along rows and
 * columns of a columns x rows grid indexed r * columns + c. Links are made
 * family by family (horizontal links of even then odd columns, vertical
 * links of even then odd rows, each diagonal family the same way): the XPBD
 * stage's levels of the creation order are then eight large sets of
 * independent links (split across workers, regular SIMD lanes) instead of
 * hundreds of small ones. The price: a sweep no longer carries tension from
 * the pins to the far rows in one pass (cloth 32's worst strain with tethers
 * 0.18 % instead of 0.11 %, docs/soft-bodies.md). */
static void sn_build_grid(sn_build *b, const sn_soft_material *m, int32_t columns, int32_t rows) {
#define SN_AT(c, r) ((r)*columns + (c))
  for (int32_t parity = 0; parity < 2; ++parity)
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t c = parity; c + 1 < columns; c += 2)
        sn_build_link(b, m, SN_AT(c, r), SN_AT(c + 1, r), m->compliance);
  for (int32_t parity = 0; parity < 2; ++parity)
    for (int32_t r = parity; r + 1 < rows; r += 2)
      for (int32_t c = 0; c < columns; ++c) sn_build_link(b, m, SN_AT(c, r), SN_AT(c, r + 1), m->compliance);
  if (m->shear_compliance >= 0.0f) {
    for (int32_t parity = 0; parity < 2; ++parity)
      for (int32_t r = parity; r + 1 < rows; r += 2)
        for (int32_t c = 0; c + 1 < columns; ++c)
          sn_build_link(b, m, SN_AT(c, r), SN_AT(c + 1, r + 1), m->shear_compliance);
    for (int32_t parity = 0; parity < 2; ++parity)
      for (int32_t r = parity; r + 1 < rows; r += 2)
        for (int32_t c = 0; c + 1 < columns; ++c)
          sn_build_link(b, m, SN_AT(c + 1, r), SN_AT(c, r + 1), m->shear_compliance);
  }
  if (m->bend_compliance >= 0.0f) {
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t c = 1; c + 1 < columns; ++c) sn_build_bend(b, m, SN_AT(c - 1, r), SN_AT(c, r), SN_AT(c + 1, r));
    for (int32_t r = 1; r + 1 < rows; ++r)
      for (int32_t c = 0; c < columns; ++c) sn_build_bend(b, m, SN_AT(c, r - 1), SN_AT(c, r), SN_AT(c, r + 1));
  }
#undef SN_AT
}

sn_soft_body_id sn_create_cloth(sn_world *w, const sn_cloth_def *def) {
  const char *fn = "sn_create_cloth";
  SN_BUILDER_ENTRY(w, def, fn);
  const sn_soft_material *m = &def->material;
  if (!sn_check_grid(w, fn, def->columns, def->rows) || !sn_check_vec2(w, fn, "top_left", def->top_left) ||
      !sn_check_positive(w, fn, "spacing", def->spacing) || !sn_check_positive(w, fn, "mass", def->mass) ||
      !sn_check_range(w, fn, "radius", def->radius, 0.0f, INFINITY) || !sn_check_material(w, fn, m))
    return SN_NULL_SOFT_BODY;
  if ((def->pins & ~SN_PIN_ALL) != 0u)
    return sn_world_error(w, SN_ERR_INVALID_ARGUMENT, "%s: pins 0x%x has bits that are no SN_PIN_* flag", fn,
                          (unsigned)def->pins),
           SN_NULL_SOFT_BODY;
  const sn_vec2 far = {def->top_left.x + def->spacing * (float)(def->columns - 1),
                       def->top_left.y - def->spacing * (float)(def->rows - 1)};
  if (!sn_check_vec2(w, fn, "the far corner", far)) return SN_NULL_SOFT_BODY;
  if (!sn_check_type(w, fn, "xpbd_distance") || (m->bend_compliance >= 0.0f && !sn_check_type(w, fn, "xpbd_bend")) ||
      (def->tethers && def->pins != 0u && !sn_check_type(w, fn, "xpbd_tether")))
    return SN_NULL_SOFT_BODY;

  const int32_t cols = def->columns, rows = def->rows, n = cols * rows;
  const float share = def->mass / (float)n;
  {
    /* tethers join every particle made with mass 0 (the pinned ones; all of
     * them if the share rounds to 0) to every other */
    const uint32_t p = def->pins;
    int64_t pinned = (p & SN_PIN_TOP_ROW) ? cols : ((p & SN_PIN_TOP_LEFT) ? 1 : 0) + ((p & SN_PIN_TOP_RIGHT) ? 1 : 0);
    pinned += ((p & SN_PIN_BOTTOM_LEFT) ? 1 : 0) + ((p & SN_PIN_BOTTOM_RIGHT) ? 1 : 0);
    const int64_t fixed = share == 0.0f ? n : pinned;
    const int64_t tethers = def->tethers && p != 0u ? fixed * (n - fixed) : 0;
    if (!sn_check_room(w, fn, n, sn_grid_constraints(m, cols, rows) + tethers)) return SN_NULL_SOFT_BODY;
  }
  sn_build b;
  if (!sn_build_begin(&b, w, fn, &def->body, n)) return SN_NULL_SOFT_BODY;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < cols; ++c) {
      bool pinned = (r == 0 && (def->pins & SN_PIN_TOP_ROW)) || (r == 0 && c == 0 && (def->pins & SN_PIN_TOP_LEFT)) ||
                    (r == 0 && c == cols - 1 && (def->pins & SN_PIN_TOP_RIGHT)) ||
                    (r == rows - 1 && c == 0 && (def->pins & SN_PIN_BOTTOM_LEFT)) ||
                    (r == rows - 1 && c == cols - 1 && (def->pins & SN_PIN_BOTTOM_RIGHT));
      sn_vec2 p = {def->top_left.x + def->spacing * (float)c, def->top_left.y - def->spacing * (float)r};
      sn_build_particle(&b, p, pinned ? 0.0f : share, def->radius);
    }
  }
  sn_build_grid(&b, m, cols, rows);
  sn_build_grid_outline(&b, cols, rows);
  if (def->tethers && def->pins != 0u && !b.failed) {
    /* Long-range attachments (Kim et al. 2012): each free particle may be no
     * farther from a pinned particle than at creation. A hanging cloth then
     * cannot stretch even where Gauss-Seidel has not carried the load from
     * the pins yet (cloth 32 at 8 substeps: 18 % strain without, see
     * docs/soft-bodies.md). Pinned particles are the ones made with mass 0. */
    for (int32_t pin = 0; pin < n; ++pin) {
      if (sn_particle_get_mass(w, b.ids[pin]) != 0.0f) continue;
      for (int32_t i = 0; i < n; ++i) {
        if (sn_particle_get_mass(w, b.ids[i]) == 0.0f) continue;
        const int32_t index[2] = {pin, i};
        sn_build_constraint(&b, "xpbd_tether", index, 2, NULL, 0, 0.0f);
      }
    }
  }
  return sn_build_end(&b);
}

/* ------------------------------------------------------------------------ */
/* Ring                                                                      */

sn_soft_body_id sn_create_ring(sn_world *w, const sn_ring_def *def) {
  const char *fn = "sn_create_ring";
  SN_BUILDER_ENTRY(w, def, fn);
  const sn_soft_material *m = &def->material;
  if (!sn_check_count(w, fn, "count", def->count, 3, SN_MAX_CONSTRAINT_PARTICLES) ||
      !sn_check_vec2(w, fn, "center", def->center) || !sn_check_positive(w, fn, "radius", def->radius) ||
      !sn_check_positive(w, fn, "mass", def->mass) ||
      !sn_check_range(w, fn, "particle_radius", def->particle_radius, 0.0f, INFINITY) ||
      !sn_check_range(w, fn, "pressure", def->pressure, 0.0f, SN_BUILDER_MAX_PRESSURE) ||
      !sn_check_range(w, fn, "area_compliance", def->area_compliance, 0.0f, SN_BUILDER_MAX_COMPLIANCE) ||
      !sn_check_material(w, fn, m))
    return SN_NULL_SOFT_BODY;
  if (!sn_check_type(w, fn, "xpbd_distance") || !sn_check_type(w, fn, "xpbd_area") ||
      (m->bend_compliance >= 0.0f && !sn_check_type(w, fn, "xpbd_bend")))
    return SN_NULL_SOFT_BODY;

  const int32_t n = def->count;
  if (!sn_check_room(w, fn, n, (int64_t)n + 1 + (m->bend_compliance >= 0.0f ? n : 0))) return SN_NULL_SOFT_BODY;
  sn_build b;
  if (!sn_build_begin(&b, w, fn, &def->body, n)) return SN_NULL_SOFT_BODY;
  const float share = def->mass / (float)n;
  /* Counter-clockwise (as xpbd_area wants), half a segment off +x, and
   * mirror-exact about the vertical axis: particle k and n/2 - 1 - k (n
   * even) get x offsets of opposite sign and equal y bit for bit. With the
   * edges solved in mirror pairs (below), a ring dropped upright stays
   * mirror-symmetric to rounding: it neither drifts nor spins by itself. */
  sn_vec2 *offset = sn_mem_alloc(&w->mem, (size_t)n * sizeof(sn_vec2));
  if (offset == NULL) {
    sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "%s: cannot allocate the ring's layout", fn);
    b.failed = true;
  }
  for (int32_t i = 0; i < n && offset != NULL; ++i) {
    double a = 2.0 * 3.14159265358979323846 * ((double)i + 0.5) / (double)n;
    offset[i] = (sn_vec2){(float)((double)def->radius * cos(a)), (float)((double)def->radius * sin(a))};
  }
  if (offset != NULL && n % 2 == 0) {
    for (int32_t i = 0; i < n; ++i) {
      int32_t j = ((n / 2 - 1 - i) % n + n) % n;
      if (j > i) offset[j] = (sn_vec2){-offset[i].x, offset[i].y};
    }
  }
  for (int32_t i = 0; i < n && offset != NULL; ++i)
    sn_build_particle(&b, (sn_vec2){def->center.x + offset[i].x, def->center.y + offset[i].y}, share,
                      def->particle_radius);
  sn_mem_free(&w->mem, offset, (size_t)n * sizeof(sn_vec2));
  /* Edges in mirror pairs (edge e and n/2 - 2 - e, which share no particle
   * for even n): Gauss-Seidel then has no circulation around the ring and
   * keeps the mirror symmetry (in ring order it spins a wobbling ring up
   * and rolls a resting jelly away: 237 mm in 5 s). */
  for (int32_t e = 0; e < n; ++e) {
    int32_t mirror = n % 2 == 0 ? ((n / 2 - 2 - e) % n + n) % n : e;
    if (mirror < e) continue; /* emitted with its mirror */
    sn_build_link(&b, m, e, (e + 1) % n, m->compliance);
    if (mirror != e) sn_build_link(&b, m, mirror, (mirror + 1) % n, m->compliance);
  }
  if (!b.failed) {
    int32_t *all = sn_mem_alloc(&w->mem, (size_t)n * sizeof(int32_t));
    if (all == NULL) {
      sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "%s: cannot allocate the area constraint's list", fn);
      b.failed = true;
    } else {
      for (int32_t i = 0; i < n; ++i) all[i] = i;
      const sn_param_value v[3] = {
          {"pressure", def->pressure, 0.0}, {"compliance", def->area_compliance, 0.0}, {"damping", m->damping, 0.0}};
      sn_build_constraint(&b, "xpbd_area", all, n, v, 3, 0.0f);
      sn_mem_free(&w->mem, all, (size_t)n * sizeof(int32_t));
    }
  }
  if (m->bend_compliance >= 0.0f)
    for (int32_t i = 0; i < n; ++i) sn_build_bend(&b, m, (i + n - 1) % n, i, (i + 1) % n);
  for (int32_t i = 0; i < n; ++i) sn_build_edge(&b, i, (i + 1) % n);
  return sn_build_end(&b);
}

/* ------------------------------------------------------------------------ */
/* Lattice                                                                   */

sn_soft_body_id sn_create_lattice(sn_world *w, const sn_lattice_def *def) {
  const char *fn = "sn_create_lattice";
  SN_BUILDER_ENTRY(w, def, fn);
  const sn_soft_material *m = &def->material;
  if (!sn_check_grid(w, fn, def->columns, def->rows) || !sn_check_vec2(w, fn, "center", def->center) ||
      !sn_check_positive(w, fn, "spacing", def->spacing) || !sn_check_positive(w, fn, "mass", def->mass) ||
      !sn_check_range(w, fn, "radius", def->radius, 0.0f, INFINITY) ||
      !sn_check_optional(w, fn, "area_compliance", def->area_compliance) || !sn_check_material(w, fn, m))
    return SN_NULL_SOFT_BODY;
  const int32_t cols = def->columns, rows = def->rows, n = cols * rows;
  const float half_w = 0.5f * def->spacing * (float)(cols - 1), half_h = 0.5f * def->spacing * (float)(rows - 1);
  const sn_vec2 corner = {def->center.x - half_w, def->center.y + half_h}; /* particle (0, 0): top left */
  if (!sn_check_vec2(w, fn, "the lattice extent", (sn_vec2){half_w, half_h}) ||
      !sn_check_vec2(w, fn, "the top-left corner", corner))
    return SN_NULL_SOFT_BODY;
  const bool area = def->area_compliance >= 0.0f;
  if (!sn_check_type(w, fn, "xpbd_distance") || (area && !sn_check_type(w, fn, "xpbd_area")) ||
      (m->bend_compliance >= 0.0f && !sn_check_type(w, fn, "xpbd_bend")))
    return SN_NULL_SOFT_BODY;
  if (!sn_check_room(w, fn, n, sn_grid_constraints(m, cols, rows) + (area ? (int64_t)(rows - 1) * (cols - 1) : 0)))
    return SN_NULL_SOFT_BODY;

  sn_build b;
  if (!sn_build_begin(&b, w, fn, &def->body, n)) return SN_NULL_SOFT_BODY;
  const float share = def->mass / (float)n;
  const float radius = def->radius > 0.0f ? def->radius : 0.5f * def->spacing;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < cols; ++c) {
      sn_vec2 p = {corner.x + def->spacing * (float)c, corner.y - def->spacing * (float)r};
      sn_build_particle(&b, p, share, radius);
    }
  }
  sn_build_grid(&b, m, cols, rows);
  if (area) {
    const sn_param_value v[2] = {{"compliance", def->area_compliance, 0.0}, {"damping", m->damping, 0.0}};
    for (int32_t r = 0; r + 1 < rows; ++r) {
      for (int32_t c = 0; c + 1 < cols; ++c) {
        /* counter-clockwise: bottom left, bottom right, top right, top left (rows grow downwards) */
        const int32_t cell[4] = {(r + 1) * cols + c, (r + 1) * cols + c + 1, r * cols + c + 1, r * cols + c};
        sn_build_constraint(&b, "xpbd_area", cell, 4, v, 2, 0.0f);
      }
    }
  }
  sn_build_grid_outline(&b, cols, rows);
  return sn_build_end(&b);
}
