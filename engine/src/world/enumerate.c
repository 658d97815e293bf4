/* Enumeration and read-back of what a world holds: its bodies and
 * constraints in slot order, and defs that recreate the world settings, a body
 * or a shape as they are now. Used by the scene file writer (scenefile/) and
 * by tools; read-only, so they may be called between steps at any time.
 * Kept apart from the object files so additions here never touch the hot code. */
#include <string.h>

#include "base/math.h"
#include "world/world.h"
#include "world/world_pool.h"

/* ------------------------------------------------------------------------ */
/* World                                                                     */

int32_t sn_world_get_body_count(sn_world *w) { return w ? w->body_count : 0; }

int32_t sn_world_get_bodies(sn_world *w, sn_body_id *bodies, int32_t capacity) {
  if (w == NULL || bodies == NULL || capacity <= 0) return 0;
  int32_t n = 0;
  sn_pool pool = sn_body_pool(w);
  for (int32_t i = sn_pool_next(&pool, -1); i != SN_NULL_INDEX && n < capacity; i = sn_pool_next(&pool, i))
    bodies[n++] = sn_make_body_id(w, i);
  return n;
}

sn_result sn_world_get_def(sn_world *w, sn_world_def *out) {
  if (w == NULL) return SN_ERR_NULL;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out is NULL");
  sn_world_def def = sn_default_world_def();
  sn_world_settings_to_def(&w->settings, &def);
  def.registry = w->registry;
  def.worker_count = w->worker_count;
  def.enqueue_task = w->tasks.enqueue_task;
  def.finish_task = w->tasks.finish_task;
  def.user_task_context = w->tasks.user_task_context;
#define SN_X(name, dflt, doc) def.name = w->name;
  SN_WORLD_LIMITS(SN_X)
#undef SN_X
  *out = def;
  return SN_OK;
}

const struct sn_registry *sn_world_get_registry(sn_world *w) { return w ? w->registry : NULL; }

/* ------------------------------------------------------------------------ */
/* Bodies and shapes                                                         */

/* An angle whose sn_make_rot() is q bit for bit, if one lies within a few
 * ulps of atan2 + 2 pi k for |k| <= 2 (always the case for a rotation made by
 * sn_make_rot from an angle in [-5 pi, 5 pi]); else SN_NO_EXACT_ANGLE. */
#define SN_NO_EXACT_ANGLE INFINITY

static bool sn_same_rot(sn_rot a, sn_rot b) { return memcmp(&a, &b, sizeof a) == 0; }

static float sn_exact_search(sn_rot q) {
  const float a = sn_rot_get_angle(q);
  static const int turns[5] = {0, -1, 1, -2, 2};
  for (int t = 0; t < 5; ++t) {
    float start = (float)((double)a + 6.283185307179586 * turns[t]);
    float lo = start, hi = start;
    for (int i = 0; i < 8; ++i) {
      sn_rot r = sn_make_rot(lo);
      if (sn_same_rot(r, q)) return lo;
      r = sn_make_rot(hi);
      if (sn_same_rot(r, q)) return hi;
      lo = nextafterf(lo, -INFINITY);
      hi = nextafterf(hi, INFINITY);
    }
  }
  return SN_NO_EXACT_ANGLE;
}

/* sn_exact_search, or else (a rotation changed by steps) the angle that
 * sn_exact_search returns for sn_make_rot(atan2): recreating the body from it
 * and reading the def again gives the same angle. */
static float sn_exact_angle(sn_rot q) {
  float a = sn_exact_search(q);
  if (a != SN_NO_EXACT_ANGLE) return a;
  a = sn_rot_get_angle(q);
  float b = sn_exact_search(sn_make_rot(a));
  return b != SN_NO_EXACT_ANGLE ? b : a;
}

sn_result sn_body_get_def(sn_world *w, sn_body_id id, sn_body_def *out) {
  sn_result code;
  sn_body *b = sn_get_body(w, id, &code);
  if (b == NULL) return code;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out is NULL");
  sn_body_def def = sn_default_body_def();
  def.type = b->type;
  def.position = b->xf.p;
  def.angle = sn_exact_angle(b->xf.q);
  /* a rotation no float angle makes: give it as is */
  if (sn_exact_search(b->xf.q) == SN_NO_EXACT_ANGLE) def.rotation = b->xf.q;
  def.linear_velocity = b->v;
  def.angular_velocity = b->w;
  def.linear_damping = b->linear_damping;
  def.angular_damping = b->angular_damping;
  def.gravity_scale = b->gravity_scale;
  def.is_bullet = b->is_bullet;
  def.is_awake = b->is_awake;
  def.enable_sleep = b->enable_sleep;
  def.sleep_threshold = b->sleep_threshold;
  def.fixed_rotation = b->fixed_rotation;
  def.user_data = b->user_data;
  *out = def;
  return SN_OK;
}

sn_result sn_shape_get_def(sn_world *w, sn_shape_id id, sn_shape_def *out) {
  sn_result code;
  sn_shape *s = sn_get_shape(w, id, &code);
  if (s == NULL) return code;
  if (out == NULL) return sn_world_error(w, SN_ERR_NULL, "out is NULL");
  sn_shape_def def = sn_default_shape_def();
  def.density = s->density;
  def.friction = s->friction;
  def.restitution = s->restitution;
  def.rolling_resistance = s->rolling_resistance;
  def.tangent_speed = s->tangent_speed;
  def.material = s->material;
  def.is_sensor = s->is_sensor;
  def.enable_contact_events = s->enable_contact_events;
  def.enable_hit_events = s->enable_hit_events;
  def.enable_sensor_events = s->enable_sensor_events;
  def.enable_custom_filtering = s->enable_custom_filtering;
  def.enable_pre_solve_events = s->enable_pre_solve_events;
  def.category_bits = s->category_bits;
  def.mask_bits = s->mask_bits;
  def.group_index = s->group_index;
  def.user_data = s->user_data;
  *out = def;
  return SN_OK;
}

/* ------------------------------------------------------------------------ */
/* Constraints                                                               */

/* Same checks and messages as constraint.c's lookup (kept private there). */
static sn_constraint *sn_enum_get_constraint(sn_world *w, sn_constraint_id id, sn_result *code) {
  return SN_RESOLVE(w, constraints, sn_constraint, "constraint", id, code);
}

int32_t sn_world_get_constraint_count(sn_world *w) { return w ? w->constraint_count : 0; }

int32_t sn_world_get_constraints(sn_world *w, sn_constraint_id *constraints, int32_t capacity) {
  if (w == NULL || constraints == NULL || capacity <= 0) return 0;
  int32_t n = 0;
  sn_pool pool = sn_constraint_pool(w);
  for (int32_t i = sn_pool_next(&pool, -1); i != SN_NULL_INDEX && n < capacity; i = sn_pool_next(&pool, i))
    constraints[n++] = (sn_constraint_id){i + 1, w->tag, sn_pool_generation(&pool, i)};
  return n;
}

const sn_constraint_type *sn_constraint_get_type(sn_world *w, sn_constraint_id id) {
  sn_constraint *k = sn_enum_get_constraint(w, id, NULL);
  return k ? k->type : NULL;
}

const char *sn_constraint_get_type_name(sn_world *w, sn_constraint_id id) {
  sn_constraint *k = sn_enum_get_constraint(w, id, NULL);
  return k ? k->type->name : NULL;
}

int32_t sn_constraint_get_bodies(sn_world *w, sn_constraint_id id, sn_body_id bodies[SN_MAX_CONSTRAINT_BODIES]) {
  sn_constraint *k = sn_enum_get_constraint(w, id, NULL);
  if (k == NULL) return 0;
  if (bodies == NULL) return sn_world_error(w, SN_ERR_NULL, "bodies is NULL"), 0;
  int32_t n = (int32_t)k->type->body_count;
  for (int32_t i = 0; i < SN_MAX_CONSTRAINT_BODIES; ++i)
    bodies[i] = i < n ? sn_make_body_id(w, k->bodies[i]) : SN_NULL_BODY;
  return n;
}

bool sn_constraint_get_collide_connected(sn_world *w, sn_constraint_id id) {
  sn_constraint *k = sn_enum_get_constraint(w, id, NULL);
  return k ? k->collide_connected : false;
}
