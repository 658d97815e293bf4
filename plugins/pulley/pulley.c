/* pulley: two bodies hang from two fixed world points (the ground anchors)
 * by one rope over two pulleys: length_a + ratio length_b = constant, each
 * length from a ground anchor to its body's anchor. The constant is the
 * sum at creation (or `length` with pinned). The rope holds both ways (an
 * equality, as Box2D 2.4's pulley); a ratio other than 1 is a block and
 * tackle: B's side carries ratio times the tension of A's, so masses with
 * m_b = ratio m_a balance.
 *
 * One row: C = |pA - gA| + ratio |pB - gB| - constant, u_a and u_b the unit
 * vectors from the ground anchors to the body anchors,
 * Cdot = u_a . (vA + wA x rA) + ratio u_b . (vB + wB x rB), effective mass
 * 1 / (mA^-1 + IA^-1 (rA x u_a)^2 + ratio^2 (mB^-1 + IB^-1 (rB x u_b)^2)).
 * Soft position feedback in the biased pass, none in the relax pass,
 * accumulated and warm-started; the position stage projects what is left
 * of C. The ground anchors take the rope's pull, so linear momentum is not
 * conserved (the conformance checks skip momentum for a type with a
 * parameter named ground_*).
 *
 * Built as its own shared object against sinew/plugin.h (and the header-only
 * sinew/plugin_math.h) only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/plugin_math.h"

typedef struct pulley_params {
  sn_vec2 ground_anchor_a, ground_anchor_b; /* fixed world points */
  sn_vec2 anchor_a, anchor_b;               /* world points on the bodies at creation */
  float ratio;
  /* pinned definition (export_params writes it) */
  int32_t pinned;
  sn_vec2 local_anchor_a, local_anchor_b; /* body frames, from the origins */
  float length;                           /* the constant length_a + ratio length_b */
} pulley_params;

typedef struct pulley_instance {
  sn_vec2 local_a, local_b;
  float constant;
  float impulse;      /* accumulated, along the row (A's side; B takes ratio times) */
  float step_impulse; /* sum over the step of impulse + projection / h */
  int32_t samples;
  /* per step */
  sn_vec2 ra, rb; /* arms from the centres of mass, world frame, step start */
  float bias_rate, mass_scale, impulse_scale;
} pulley_instance;

typedef struct pulley_frame {
  sn_vec2 ra, rb, ua, ub;
  float la, lb, ka, kb; /* lengths; lever arms rA x u_a, rB x u_b */
} pulley_frame;

static float length_of(sn_vec2 d, sn_vec2 *unit) {
  float len = sqrtf(sn_pm_dot(d, d));
  *unit = len > 1e-6f ? sn_pm_scale(1.0f / len, d) : sn_pm_vec2(0.0f, 0.0f);
  return len;
}

/* the rope inside a substep: arms turned by dq, anchors moved by dp */
static pulley_frame frame_at(const pulley_params *p, const pulley_instance *j, const sn_constraint_body *a,
                             const sn_constraint_body *b) {
  pulley_frame f;
  f.ra = sn_pm_rotate(a->state->dq, j->ra);
  f.rb = sn_pm_rotate(b->state->dq, j->rb);
  sn_vec2 pa = sn_pm_add(sn_pm_add(a->center, a->state->dp), f.ra);
  sn_vec2 pb = sn_pm_add(sn_pm_add(b->center, b->state->dp), f.rb);
  f.la = length_of(sn_pm_sub(pa, p->ground_anchor_a), &f.ua);
  f.lb = length_of(sn_pm_sub(pb, p->ground_anchor_b), &f.ub);
  f.ka = sn_pm_cross(f.ra, f.ua);
  f.kb = sn_pm_cross(f.rb, f.ub);
  return f;
}

static float row_mass(const pulley_params *p, const sn_constraint_body *a, const sn_constraint_body *b,
                      const pulley_frame *f) {
  float k = a->inv_mass + a->inv_inertia * f->ka * f->ka +
            p->ratio * p->ratio * (b->inv_mass + b->inv_inertia * f->kb * f->kb);
  return sn_pm_inv_or_zero(k);
}

static void apply(const pulley_params *p, const sn_constraint_body *a, const sn_constraint_body *b,
                  const pulley_frame *f, float impulse) {
  sn_pm_apply_body(a, sn_pm_scale(impulse, f->ua), impulse * f->ka);
  float ib = p->ratio * impulse;
  sn_pm_apply_body(b, sn_pm_scale(ib, f->ub), ib * f->kb);
}

static int pulley_create(const sn_constraint_create_args *args) {
  const pulley_params *p = args->params;
  pulley_instance *j = args->instance;
  const sn_constraint_body *a = args->bodies[0], *b = args->bodies[1];
  if (p->pinned) {
    j->local_a = p->local_anchor_a;
    j->local_b = p->local_anchor_b;
    j->constant = p->length;
  } else {
    j->local_a = sn_pm_local_point(a, p->anchor_a);
    j->local_b = sn_pm_local_point(b, p->anchor_b);
    sn_vec2 u;
    float la = length_of(sn_pm_sub(p->anchor_a, p->ground_anchor_a), &u);
    float lb = length_of(sn_pm_sub(p->anchor_b, p->ground_anchor_b), &u);
    j->constant = la + p->ratio * lb;
  }
  if (!(j->constant > 0.0f)) {
    snprintf(args->err, args->err_capacity, "the rope has no length (length_a + ratio length_b = %g)",
             (double)j->constant);
    return 1;
  }
  j->impulse = j->step_impulse = 0.0f;
  j->samples = 0;
  return 0;
}

static int pulley_export(const void *params, const void *instance, const sn_constraint_body *const *bodies,
                         int32_t count, void *out_params) {
  (void)params, (void)bodies, (void)count;
  const pulley_instance *j = instance;
  pulley_params *out = out_params;
  out->pinned = 1;
  out->local_anchor_a = j->local_a;
  out->local_anchor_b = j->local_b;
  out->length = j->constant;
  return 0;
}

static void pulley_prepare(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  const sn_pm_softness soft = sn_pm_soft(info->joint_hertz, info->joint_damping_ratio, info->h);
  for (int32_t i = 0; i < count; ++i) {
    pulley_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    j->ra = sn_pm_arm(a, j->local_a);
    j->rb = sn_pm_arm(b, j->local_b);
    j->bias_rate = soft.bias_rate;
    j->mass_scale = soft.mass_scale;
    j->impulse_scale = soft.impulse_scale;
    j->step_impulse = 0.0f;
    j->samples = 0;
  }
}

static void pulley_warm_start(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const pulley_params *p = items[i].params;
    const pulley_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    pulley_frame f = frame_at(p, j, a, b);
    apply(p, a, b, &f, j->impulse);
  }
}

static void pulley_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) {
    const pulley_params *p = items[i].params;
    pulley_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    pulley_frame f = frame_at(p, j, a, b);
    float mass = row_mass(p, a, b, &f);
    if (mass == 0.0f) continue;
    const sn_solver_body *sa = a->state, *sb = b->state;
    float cdot = sn_pm_dot(f.ua, sa->v) + f.ka * sa->w + p->ratio * (sn_pm_dot(f.ub, sb->v) + f.kb * sb->w);
    float bias = 0.0f, ms = 1.0f, is = 0.0f;
    if (use_bias) {
      bias = j->bias_rate * (f.la + p->ratio * f.lb - j->constant);
      ms = j->mass_scale;
      is = j->impulse_scale;
    }
    float impulse = -mass * ms * (cdot + bias) - is * j->impulse;
    j->impulse += impulse;
    apply(p, a, b, &f, impulse);
  }
}

/* position stage: remove what is left of C (clamped), with the velocity */
static void pulley_project(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const pulley_params *p = items[i].params;
    pulley_instance *j = items[i].instance;
    const sn_constraint_body *a = items[i].bodies[0], *b = items[i].bodies[1];
    if (sn_pm_reaction_sample(info, &j->samples)) j->step_impulse += j->impulse;
    pulley_frame f = frame_at(p, j, a, b);
    float mass = row_mass(p, a, b, &f);
    if (mass == 0.0f) continue;
    const float max = SN_PM_MAX_PROJECTION_SPEED * info->h;
    float l = -mass * sn_pm_clamp(f.la + p->ratio * f.lb - j->constant, -max, max);
    sn_pm_project_body(a, sn_pm_scale(l, f.ua), l * f.ka, info->inv_h);
    float lb = p->ratio * l;
    sn_pm_project_body(b, sn_pm_scale(lb, f.ub), lb * f.kb, info->inv_h);
    j->step_impulse += sn_pm_reaction_correction(info, l);
  }
}

/* the rope's pull on B over the last step (toward its ground anchor) */
static void pulley_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  const pulley_params *p = item->params;
  const pulley_instance *j = item->instance;
  const sn_constraint_body *b = item->bodies[1];
  sn_vec2 ub;
  length_of(sn_pm_sub(sn_pm_world_point(b, j->local_b), p->ground_anchor_b), &ub);
  float row = sn_pm_reaction_average(j->step_impulse, j->samples, j->impulse);
  *force = sn_pm_scale(info->inv_h * p->ratio * row, ub);
  *torque = 0.0f;
}

/* each side's length (m) and the rope's tension on A's side (N) */
static void pulley_state(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *values) {
  const pulley_params *p = item->params;
  const pulley_instance *j = item->instance;
  sn_vec2 u;
  values[0].x = length_of(sn_pm_sub(sn_pm_world_point(item->bodies[0], j->local_a), p->ground_anchor_a), &u);
  values[1].x = length_of(sn_pm_sub(sn_pm_world_point(item->bodies[1], j->local_b), p->ground_anchor_b), &u);
  values[2].x = -info->inv_h * sn_pm_reaction_average(j->step_impulse, j->samples, j->impulse);
}

static void pulley_draw(const sn_constraint_item *item, const sn_draw_api *draw) {
  const pulley_params *p = item->params;
  const pulley_instance *j = item->instance;
  sn_vec2 pa = sn_pm_world_point(item->bodies[0], j->local_a), pb = sn_pm_world_point(item->bodies[1], j->local_b);
  draw->segment(p->ground_anchor_a, pa, 0xc0c0c0ffu, draw->context);
  draw->segment(p->ground_anchor_b, pb, 0xc0c0c0ffu, draw->context);
  draw->segment(p->ground_anchor_a, p->ground_anchor_b, 0x808080ffu, draw->context);
  draw->point(p->ground_anchor_a, 5.0f, 0xffffffffu, draw->context);
  draw->point(p->ground_anchor_b, 5.0f, 0xffffffffu, draw->context);
}

static const sn_param_desc pulley_param_desc[] = {
    {1, SN_PARAM_VEC2, "ground_anchor_a", offsetof(pulley_params, ground_anchor_a), 0, -1e6, 1e6, 0.0,
     "fixed world point A's rope hangs from"},
    {2, SN_PARAM_VEC2, "ground_anchor_b", offsetof(pulley_params, ground_anchor_b), 0, -1e6, 1e6, 0.0,
     "fixed world point B's rope hangs from"},
    {3, SN_PARAM_VEC2, "anchor_a", offsetof(pulley_params, anchor_a), 0, -1e6, 1e6, 0.0,
     "world point on body A at creation"},
    {4, SN_PARAM_VEC2, "anchor_b", offsetof(pulley_params, anchor_b), 0, -1e6, 1e6, 0.0,
     "world point on body B at creation"},
    {5, SN_PARAM_FLOAT, "ratio", offsetof(pulley_params, ratio), 0, 0.01, 100, 1,
     "length_a + ratio length_b = constant; B's side carries ratio times the tension"},
    {6, SN_PARAM_BOOL, "pinned", offsetof(pulley_params, pinned), 0, 0, 1, 0,
     "1 = local_anchor_a/b and length define the rope instead of anchor_a/b and the bodies' poses"},
    {7, SN_PARAM_VEC2, "local_anchor_a", offsetof(pulley_params, local_anchor_a), 0, -1e9, 1e9, 0.0,
     "anchor in body A's frame (with pinned)"},
    {8, SN_PARAM_VEC2, "local_anchor_b", offsetof(pulley_params, local_anchor_b), 0, -1e9, 1e9, 0.0,
     "anchor in body B's frame (with pinned)"},
    {9, SN_PARAM_FLOAT, "length", offsetof(pulley_params, length), 0, 0, 1e7, 0,
     "m, the constant length_a + ratio length_b (with pinned)"},
};

static const sn_state_desc pulley_state_desc[] = {
    {1, SN_PARAM_FLOAT, "length_a", "m, ground anchor A to body A's anchor"},
    {2, SN_PARAM_FLOAT, "length_b", "m, ground anchor B to body B's anchor"},
    {3, SN_PARAM_FLOAT, "tension", "N, the rope's tension on A's side over the last step (B's: ratio times)"},
};

static const sn_constraint_type pulley_type = {
    .struct_size = sizeof(sn_constraint_type),
    .name = "pulley",
    .flags = SN_CONSTRAINT_IMPULSE,
    .body_count = 2,
    .params_size = sizeof(pulley_params),
    .params_align = _Alignof(pulley_params),
    .instance_size = sizeof(pulley_instance),
    .instance_align = _Alignof(pulley_instance),
    .param_count = sizeof(pulley_param_desc) / sizeof(pulley_param_desc[0]),
    .params = pulley_param_desc,
    .create = pulley_create,
    .prepare = pulley_prepare,
    .warm_start = pulley_warm_start,
    .solve_velocity = pulley_solve,
    .project = pulley_project,
    .get_reaction = pulley_reaction,
    .debug_draw = pulley_draw,
    .export_params = pulley_export,
    .state_count = sizeof(pulley_state_desc) / sizeof(pulley_state_desc[0]),
    .states = pulley_state_desc,
    .get_state = pulley_state,
};

SN_DEFINE_PLUGIN_TYPES("sinew.pulley", "0.1.0", &pulley_type);
