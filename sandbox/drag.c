/* sinew-sandbox: picking and dragging particles (see drag.h). */
#include "drag.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SB_DRAG_PI 3.14159265358979f

static bool sb_soft_listed(const sn_soft_body_id *list, int32_t n, sn_soft_body_id s) {
  for (int32_t i = n - 1; i >= 0; --i) {
    if (list[i].index1 == s.index1 && list[i].generation == s.generation) return true;
  }
  return false;
}

int32_t sb_world_soft_bodies(sn_world *w, const sn_soft_body_id *extra, int32_t extra_count, sn_soft_body_id *out,
                             int32_t capacity) {
  int32_t n = 0;
  for (int32_t i = 0; i < extra_count; ++i) {
    if (sn_soft_body_is_valid(w, extra[i]) && !sb_soft_listed(out, n < capacity ? n : capacity, extra[i])) {
      if (n < capacity) out[n] = extra[i];
      n++;
    }
  }
  int32_t nc = sn_world_get_constraint_count(w);
  if (nc <= 0) return n;
  sn_constraint_id *ids = malloc((size_t)nc * sizeof(sn_constraint_id));
  if (ids == NULL) return n;
  nc = sn_world_get_constraints(w, ids, nc);
  sn_particle_id parts[64];
  sn_soft_body_id last = SN_NULL_SOFT_BODY;
  for (int32_t k = 0; k < nc; ++k) {
    /* builders' constraints join particles of one body: the first few tell */
    int32_t np = sn_constraint_get_particles(w, ids[k], parts, 64);
    for (int32_t i = 0; i < np; ++i) {
      sn_soft_body_id s = sn_particle_get_soft_body(w, parts[i]);
      if (s.index1 == 0 || (s.index1 == last.index1 && s.generation == last.generation)) continue;
      last = s;
      if (sb_soft_listed(out, n < capacity ? n : capacity, s)) continue;
      if (n < capacity) out[n] = s;
      n++;
    }
  }
  free(ids);
  return n;
}

sn_particle_id sb_pick_particle(sn_world *w, sn_vec2 p, float slop, const sn_soft_body_id *extra, int32_t extra_count) {
  sn_particle_id best = SN_NULL_PARTICLE;
  if (w == NULL) return best;
  int32_t n = sb_world_soft_bodies(w, extra, extra_count, NULL, 0);
  if (n <= 0) return best;
  sn_soft_body_id *softs = malloc((size_t)n * sizeof(sn_soft_body_id));
  if (softs == NULL) return best;
  n = sb_world_soft_bodies(w, extra, extra_count, softs, n);
  float best_d = INFINITY;
  for (int32_t s = 0; s < n; ++s) {
    int32_t np = sn_soft_body_get_particle_count(w, softs[s]);
    if (np <= 0) continue;
    sn_particle_id *parts = malloc((size_t)np * sizeof(sn_particle_id));
    if (parts == NULL) break;
    np = sn_soft_body_get_particles(w, softs[s], parts, np);
    for (int32_t i = 0; i < np; ++i) {
      if (sn_particle_is_kinematic(w, parts[i]) || sn_particle_get_mass(w, parts[i]) <= 0.0f) continue;
      sn_vec2 x = sn_particle_get_position(w, parts[i]);
      float d = hypotf(x.x - p.x, x.y - p.y);
      if (d <= sn_particle_get_radius(w, parts[i]) + slop && d < best_d) {
        best_d = d;
        best = parts[i];
      }
    }
    free(parts);
  }
  free(softs);
  return best;
}

bool sb_particle_drag_active(const sb_particle_drag *d) { return d->hand.index1 != 0; }

bool sb_particle_drag_begin(sb_particle_drag *d, sn_world *w, sn_particle_id particle, sn_vec2 target, char *err,
                            size_t cap) {
  memset(d, 0, sizeof(*d));
  if (w == NULL || !sn_particle_is_valid(w, particle)) {
    snprintf(err, cap, "no particle to drag");
    return false;
  }
  const sn_registry *reg = sn_world_get_registry(w);
  if (reg == NULL || sn_registry_find_type(reg, "xpbd_distance") == NULL) {
    snprintf(err, cap, "dragging particles needs the xpbd_distance plugin (not in this world's registry)");
    return false;
  }
  if (sn_particle_is_kinematic(w, particle) || !(sn_particle_get_mass(w, particle) > 0.0f)) {
    snprintf(err, cap, "the particle is fixed or kinematic: it moves only as its owner says");
    return false;
  }
  /* the spring acts on the whole soft body (fixed particles excluded) */
  float mass = sn_soft_body_get_mass(w, sn_particle_get_soft_body(w, particle));
  if (!(mass > 0.0f)) mass = sn_particle_get_mass(w, particle);
  const float omega = 2.0f * SB_DRAG_PI * SB_DRAG_HERTZ;
  const float compliance = 1.0f / (mass * omega * omega);
  const float damping = 2.0f * SB_DRAG_DAMPING / omega; /* beta = c / k, c = 2 zeta M omega */

  sn_soft_body_def hd = sn_default_soft_body_def();
  hd.collide_rigid = false;
  hd.collide_soft = false;
  sn_soft_body_id hand = sn_create_soft_body(w, &hd);
  if (!sn_soft_body_is_valid(w, hand)) {
    snprintf(err, cap, "%s", sn_world_last_error(w));
    return false;
  }
  sn_particle_def pd = sn_default_particle_def();
  pd.position = sn_particle_get_position(w, particle);
  pd.radius = 0.0f;
  pd.kinematic = true;
  sn_particle_id handle = sn_create_particle(w, hand, &pd);
  sn_constraint_id link = SN_NULL_CONSTRAINT;
  if (sn_particle_is_valid(w, handle)) {
    sn_particle_id pair[2] = {handle, particle};
    sn_param_value v[3] = {{"rest_length", 0.0, 0.0}, {"compliance", compliance, 0.0}, {"damping", damping, 0.0}};
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = "xpbd_distance";
    cd.particles = pair;
    cd.particle_count = 2;
    cd.params = v;
    cd.param_count = 3;
    link = sn_create_constraint(w, &cd);
  }
  if (!sn_constraint_is_valid(w, link)) {
    snprintf(err, cap, "%s", sn_world_last_error(w));
    sn_destroy_soft_body(w, hand);
    return false;
  }
  d->hand = hand;
  d->handle = handle;
  d->grabbed = particle;
  d->link = link;
  d->target = target;
  d->max_force = SB_DRAG_FORCE_PER_KG * mass;
  d->reach = d->max_force * compliance;
  return true;
}

void sb_particle_drag_set_target(sb_particle_drag *d, sn_vec2 target) { d->target = target; }

bool sb_particle_drag_update(sb_particle_drag *d, sn_world *w) {
  if (!sb_particle_drag_active(d)) return false;
  if (w == NULL || !sn_particle_is_valid(w, d->grabbed) || !sn_particle_is_valid(w, d->handle) ||
      !sn_constraint_is_valid(w, d->link)) {
    sb_particle_drag_end(d, w);
    return false;
  }
  sn_vec2 g = sn_particle_get_position(w, d->grabbed);
  sn_vec2 off = {d->target.x - g.x, d->target.y - g.y};
  float len = hypotf(off.x, off.y);
  if (len > d->reach && len > 0.0f) {
    off.x *= d->reach / len;
    off.y *= d->reach / len;
  }
  sn_particle_set_target(w, d->handle, (sn_vec2){g.x + off.x, g.y + off.y});
  return true;
}

void sb_particle_drag_end(sb_particle_drag *d, sn_world *w) {
  if (w != NULL && sb_particle_drag_active(d) && sn_soft_body_is_valid(w, d->hand)) sn_destroy_soft_body(w, d->hand);
  memset(d, 0, sizeof(*d));
}
