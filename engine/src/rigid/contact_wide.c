/* Wide contact kernel: graph-coloured contacts solved four at a time.
 *
 * Colouring: contacts are coloured greedily in contact order so that no two
 * contacts of one colour share a dynamic body (static and kinematic bodies
 * are never changed by a contact, so they may repeat). Each colour is cut
 * into groups of four lanes; a group gathers its bodies' states, solves all
 * lanes with 4-wide arithmetic and scatters them back. Because the lanes of a
 * group touch distinct dynamic bodies, this is exactly a Gauss-Seidel sweep
 * in colour order. Contacts that find no free colour (a body with more than
 * 64 contacts) get a group of their own.
 *
 * Every contact is solved as a two-point block (see solver.c for the soft
 * step and the 2x2 LCP): a one-point contact carries a phantom second point
 * that is always separated, and padding lanes have zero mass, so neither can
 * change a velocity. The arithmetic is plain IEEE single precision in a fixed
 * order (no FMA, no reciprocal approximations): results are deterministic. */
#include "rigid/contact_wide.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
typedef __m128 f4;
static inline f4 f4_set(float a) { return _mm_set1_ps(a); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline f4 f4_max(f4 a, f4 b) { return _mm_max_ps(a, b); }
static inline f4 f4_min(f4 a, f4 b) { return _mm_min_ps(a, b); }
static inline f4 f4_gt(f4 a, f4 b) { return _mm_cmpgt_ps(a, b); }
static inline f4 f4_ge(f4 a, f4 b) { return _mm_cmpge_ps(a, b); }
static inline f4 f4_lt(f4 a, f4 b) { return _mm_cmplt_ps(a, b); }
static inline f4 f4_and(f4 a, f4 b) { return _mm_and_ps(a, b); }
static inline f4 f4_or(f4 a, f4 b) { return _mm_or_ps(a, b); }
/// mask ? a : b
static inline f4 f4_select(f4 mask, f4 a, f4 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f4_store(float *p, f4 a) { _mm_storeu_ps(p, a); }
static inline void f4_transpose(f4 *a, f4 *b, f4 *c, f4 *d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }
static inline float f4_lane(f4 a, int i) {
  float t[4];
  _mm_storeu_ps(t, a);
  return t[i];
}
#else
/* Portable fallback with the same semantics lane by lane. */
typedef struct f4 {
  float v[4];
} f4;
#define F4_MAP(expr)                                                                                                   \
  f4 r;                                                                                                                \
  for (int i = 0; i < 4; ++i) r.v[i] = (expr);                                                                         \
  return r
static inline f4 f4_set(float a) { F4_MAP(a); }
static inline f4 f4_add(f4 a, f4 b) { F4_MAP(a.v[i] + b.v[i]); }
static inline f4 f4_sub(f4 a, f4 b) { F4_MAP(a.v[i] - b.v[i]); }
static inline f4 f4_mul(f4 a, f4 b) { F4_MAP(a.v[i] * b.v[i]); }
static inline f4 f4_max(f4 a, f4 b) { F4_MAP(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
static inline f4 f4_min(f4 a, f4 b) { F4_MAP(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
static inline float f4_mask(bool b) { return b ? -1.0f : 0.0f; } /* any nonzero marks true */
static inline f4 f4_gt(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] > b.v[i])); }
static inline f4 f4_ge(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] >= b.v[i])); }
static inline f4 f4_lt(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] < b.v[i])); }
static inline f4 f4_and(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] != 0.0f && b.v[i] != 0.0f)); }
static inline f4 f4_or(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] != 0.0f || b.v[i] != 0.0f)); }
static inline f4 f4_select(f4 m, f4 a, f4 b) { F4_MAP(m.v[i] != 0.0f ? a.v[i] : b.v[i]); }
static inline f4 f4_load(const float *p) { F4_MAP(p[i]); }
static inline void f4_store(float *p, f4 a) {
  for (int i = 0; i < 4; ++i) p[i] = a.v[i];
}
static inline void f4_transpose(f4 *a, f4 *b, f4 *c, f4 *d) {
  f4 m[4] = {*a, *b, *c, *d};
  for (int i = 0; i < 4; ++i) {
    a->v[i] = m[i].v[0];
    b->v[i] = m[i].v[1];
    c->v[i] = m[i].v[2];
    d->v[i] = m[i].v[3];
  }
}
static inline float f4_lane(f4 a, int i) { return a.v[i]; }
#endif

/// Separation given to phantom points and padding lanes: never touching.
#define SN_WIDE_FAR   1.0e6f
#define SN_MAX_COLORS 64

struct sn_wide_group {
  int32_t ia[4], ib[4];
  f4 nx, ny;
  f4 ma, mb, iia, iib;
  f4 friction;
  f4 bias_rate, mass_scale, impulse_scale;
  f4 k11, k12, k22; /* block normal mass matrix */
  f4 n11, n12, n22; /* its inverse */
  f4 nm1, nm2;      /* 1 / k11, 1 / k22 */
  f4 tm1, tm2;      /* tangent masses */
  f4 r1ax, r1ay, r1bx, r1by;
  f4 r2ax, r2ay, r2bx, r2by;
  f4 base1, base2;
  f4 ni1, ni2, ti1, ti2;
  f4 mni1, mni2, rv1, rv2;
};

int32_t sn_wide_color(const sn_contact_constraint *cs, int32_t count, int32_t body_count, int32_t *colors,
                      uint64_t *masks) {
  memset(masks, 0, (size_t)body_count * sizeof(uint64_t));
  int32_t per_color[SN_MAX_COLORS] = {0};
  int32_t overflow = 0;
  for (int32_t k = 0; k < count; ++k) {
    const sn_contact_constraint *c = cs + k;
    /* only bodies a contact can change need exclusivity */
    bool dyn_a = c->ia < body_count && (c->ma > 0.0f || c->ia_inv > 0.0f);
    bool dyn_b = c->ib < body_count && (c->mb > 0.0f || c->ib_inv > 0.0f);
    uint64_t used = (dyn_a ? masks[c->ia] : 0u) | (dyn_b ? masks[c->ib] : 0u);
    int32_t color = SN_MAX_COLORS;
    if (used != UINT64_MAX) {
      color = 0;
      while (used & (1ull << color)) ++color;
      if (dyn_a) masks[c->ia] |= 1ull << color;
      if (dyn_b) masks[c->ib] |= 1ull << color;
      per_color[color]++;
    } else {
      overflow++;
    }
    colors[k] = color;
  }
  int32_t groups = overflow;
  for (int32_t c = 0; c < SN_MAX_COLORS; ++c) groups += (per_color[c] + 3) / 4;
  return groups;
}

size_t sn_wide_bytes(int32_t group_count) {
  return (size_t)group_count * (sizeof(sn_wide_group) + 4 * sizeof(int32_t)) + 64;
}

/* Lane l of group g from constraint c (NULL = padding). */
static void sn_wide_set_lane(sn_wide_group *g, int l, const sn_contact_constraint *c, int32_t dummy) {
  float *F = NULL;
#define LANE(field, value)                                                                                             \
  do {                                                                                                                 \
    F = (float *)&g->field;                                                                                            \
    F[l] = (value);                                                                                                    \
  } while (0)
  if (c == NULL) {
    g->ia[l] = dummy;
    g->ib[l] = dummy;
    LANE(nx, 0.0f);
    LANE(ny, 1.0f);
    LANE(ma, 0.0f);
    LANE(mb, 0.0f);
    LANE(iia, 0.0f);
    LANE(iib, 0.0f);
    LANE(friction, 0.0f);
    LANE(bias_rate, 0.0f);
    LANE(mass_scale, 1.0f);
    LANE(impulse_scale, 0.0f);
    LANE(k11, 1.0f);
    LANE(k12, 0.0f);
    LANE(k22, 1.0f);
    LANE(n11, 1.0f);
    LANE(n12, 0.0f);
    LANE(n22, 1.0f);
    LANE(nm1, 0.0f);
    LANE(nm2, 0.0f);
    LANE(tm1, 0.0f);
    LANE(tm2, 0.0f);
    LANE(r1ax, 0.0f);
    LANE(r1ay, 0.0f);
    LANE(r1bx, 0.0f);
    LANE(r1by, 0.0f);
    LANE(r2ax, 0.0f);
    LANE(r2ay, 0.0f);
    LANE(r2bx, 0.0f);
    LANE(r2by, 0.0f);
    LANE(base1, SN_WIDE_FAR);
    LANE(base2, SN_WIDE_FAR);
    LANE(ni1, 0.0f);
    LANE(ni2, 0.0f);
    LANE(ti1, 0.0f);
    LANE(ti2, 0.0f);
    LANE(mni1, 0.0f);
    LANE(mni2, 0.0f);
    LANE(rv1, 0.0f);
    LANE(rv2, 0.0f);
    return;
  }
  const sn_constraint_point *p1 = c->points, *p2 = c->points + 1;
  bool two = c->point_count == 2;
  g->ia[l] = c->ia;
  g->ib[l] = c->ib;
  LANE(nx, c->normal.x);
  LANE(ny, c->normal.y);
  LANE(ma, c->ma);
  LANE(mb, c->mb);
  LANE(iia, c->ia_inv);
  LANE(iib, c->ib_inv);
  LANE(friction, c->friction);
  LANE(bias_rate, c->soft.bias_rate);
  LANE(mass_scale, c->soft.mass_scale);
  LANE(impulse_scale, c->soft.impulse_scale);
  if (two) {
    LANE(k11, c->k11);
    LANE(k12, c->k12);
    LANE(k22, c->k22);
    LANE(n11, c->n11);
    LANE(n12, c->n12);
    LANE(n22, c->n22);
  } else {
    /* phantom second point: K = diag(k11, 1) */
    float k11 = p1->normal_mass > 0.0f ? 1.0f / p1->normal_mass : 1.0f;
    LANE(k11, k11);
    LANE(k12, 0.0f);
    LANE(k22, 1.0f);
    LANE(n11, p1->normal_mass > 0.0f ? p1->normal_mass : 0.0f);
    LANE(n12, 0.0f);
    LANE(n22, 1.0f);
  }
  LANE(nm1, p1->normal_mass);
  LANE(nm2, two ? p2->normal_mass : 1.0f);
  LANE(tm1, p1->tangent_mass);
  LANE(tm2, two ? p2->tangent_mass : 0.0f);
  LANE(r1ax, p1->ra.x);
  LANE(r1ay, p1->ra.y);
  LANE(r1bx, p1->rb.x);
  LANE(r1by, p1->rb.y);
  LANE(r2ax, two ? p2->ra.x : 0.0f);
  LANE(r2ay, two ? p2->ra.y : 0.0f);
  LANE(r2bx, two ? p2->rb.x : 0.0f);
  LANE(r2by, two ? p2->rb.y : 0.0f);
  LANE(base1, p1->base_separation);
  LANE(base2, two ? p2->base_separation : SN_WIDE_FAR);
  LANE(ni1, p1->normal_impulse);
  LANE(ni2, two ? p2->normal_impulse : 0.0f);
  LANE(ti1, p1->tangent_impulse);
  LANE(ti2, two ? p2->tangent_impulse : 0.0f);
  LANE(mni1, 0.0f);
  LANE(mni2, 0.0f);
  LANE(rv1, p1->relative_velocity);
  LANE(rv2, two ? p2->relative_velocity : 0.0f);
#undef LANE
}

bool sn_wide_build(sn_wide_set *set, sn_arena *arena, const sn_contact_constraint *cs, int32_t count,
                   const int32_t *colors, int32_t group_count, int32_t dummy) {
  set->group_count = group_count;
  set->groups = sn_arena_alloc(arena, (size_t)group_count * sizeof(sn_wide_group) + 1);
  set->lane_constraint = sn_arena_alloc(arena, (size_t)group_count * 4 * sizeof(int32_t) + 1);
  if (set->groups == NULL || set->lane_constraint == NULL) return false;
  int32_t per_color[SN_MAX_COLORS + 1] = {0};
  for (int32_t k = 0; k < count; ++k) per_color[colors[k]]++;
  /* first lane of each colour; overflow contacts get one group each */
  int32_t cursor[SN_MAX_COLORS + 1];
  int32_t group = 0;
  for (int32_t c = 0; c < SN_MAX_COLORS; ++c) {
    cursor[c] = 4 * group;
    group += (per_color[c] + 3) / 4;
  }
  cursor[SN_MAX_COLORS] = 4 * group;
  for (int32_t i = 0; i < 4 * group_count; ++i) set->lane_constraint[i] = -1;
  for (int32_t k = 0; k < count; ++k) {
    int32_t c = colors[k];
    set->lane_constraint[cursor[c]] = k;
    cursor[c] += c == SN_MAX_COLORS ? 4 : 1;
  }
  for (int32_t g = 0; g < group_count; ++g) {
    for (int l = 0; l < 4; ++l) {
      int32_t k = set->lane_constraint[4 * g + l];
      sn_wide_set_lane(set->groups + g, l, k >= 0 ? cs + k : NULL, dummy);
    }
  }
  return true;
}

/* Gathers v.x, v.y, w of four bodies (pad keeps the fourth float as is). */
static inline void sn_gather_v(const sn_body_state *s, const int32_t *idx, f4 *vx, f4 *vy, f4 *w, f4 *pad) {
  *vx = f4_load(&s[idx[0]].v.x);
  *vy = f4_load(&s[idx[1]].v.x);
  *w = f4_load(&s[idx[2]].v.x);
  *pad = f4_load(&s[idx[3]].v.x);
  f4_transpose(vx, vy, w, pad);
}

static inline void sn_gather_d(const sn_body_state *s, const int32_t *idx, f4 *dx, f4 *dy, f4 *qc, f4 *qs) {
  *dx = f4_load(&s[idx[0]].dp.x);
  *dy = f4_load(&s[idx[1]].dp.x);
  *qc = f4_load(&s[idx[2]].dp.x);
  *qs = f4_load(&s[idx[3]].dp.x);
  f4_transpose(dx, dy, qc, qs);
}

static inline void sn_scatter_v(sn_body_state *s, const int32_t *idx, f4 vx, f4 vy, f4 w, f4 pad) {
  f4_transpose(&vx, &vy, &w, &pad);
  f4_store(&s[idx[0]].v.x, vx);
  f4_store(&s[idx[1]].v.x, vy);
  f4_store(&s[idx[2]].v.x, w);
  f4_store(&s[idx[3]].v.x, pad);
}

/* Applies the group's accumulated impulses to gathered velocities. */
static inline void sn_wide_apply_warm(const sn_wide_group *g, f4 *vax, f4 *vay, f4 *wa, f4 *vbx, f4 *vby, f4 *wb) {
  f4 tx = g->ny, ty = f4_sub(f4_set(0.0f), g->nx);
  /* P_j = n ni_j + t ti_j */
  f4 p1x = f4_add(f4_mul(g->nx, g->ni1), f4_mul(tx, g->ti1));
  f4 p1y = f4_add(f4_mul(g->ny, g->ni1), f4_mul(ty, g->ti1));
  f4 p2x = f4_add(f4_mul(g->nx, g->ni2), f4_mul(tx, g->ti2));
  f4 p2y = f4_add(f4_mul(g->ny, g->ni2), f4_mul(ty, g->ti2));
  f4 px = f4_add(p1x, p2x), py = f4_add(p1y, p2y);
  /* torques: cross(r, P) = r.x P.y - r.y P.x */
  f4 ta =
      f4_add(f4_sub(f4_mul(g->r1ax, p1y), f4_mul(g->r1ay, p1x)), f4_sub(f4_mul(g->r2ax, p2y), f4_mul(g->r2ay, p2x)));
  f4 tb =
      f4_add(f4_sub(f4_mul(g->r1bx, p1y), f4_mul(g->r1by, p1x)), f4_sub(f4_mul(g->r2bx, p2y), f4_mul(g->r2by, p2x)));
  *vax = f4_sub(*vax, f4_mul(g->ma, px));
  *vay = f4_sub(*vay, f4_mul(g->ma, py));
  *wa = f4_sub(*wa, f4_mul(g->iia, ta));
  *vbx = f4_add(*vbx, f4_mul(g->mb, px));
  *vby = f4_add(*vby, f4_mul(g->mb, py));
  *wb = f4_add(*wb, f4_mul(g->iib, tb));
}

void sn_wide_warm_start(const sn_wide_set *set, sn_body_state *states) {
  for (int32_t gi = 0; gi < set->group_count; ++gi) {
    const sn_wide_group *g = set->groups + gi;
    f4 vax, vay, wa, pa, vbx, vby, wb, pb;
    sn_gather_v(states, g->ia, &vax, &vay, &wa, &pa);
    sn_gather_v(states, g->ib, &vbx, &vby, &wb, &pb);
    sn_wide_apply_warm(g, &vax, &vay, &wa, &vbx, &vby, &wb);
    sn_scatter_v(states, g->ia, vax, vay, wa, pa);
    sn_scatter_v(states, g->ib, vbx, vby, wb, pb);
  }
}

/* One row of the block: current separation from this step's motion, soft
 * bias (or the speculative approach limit), relative normal velocity vn, and
 * rhs_i = ms_i (vn_i + b_i) - (1 - is_i) (K l)_i. */
static inline f4 sn_wide_normal_rhs(const sn_wide_group *g, bool use_bias, f4 ddx, f4 ddy, f4 qac, f4 qas, f4 qbc,
                                    f4 qbs, f4 vax, f4 vay, f4 wa, f4 vbx, f4 vby, f4 wb, f4 rax, f4 ray, f4 rbx,
                                    f4 rby, f4 base, f4 kl, f4 inv_h, f4 neg_push, f4 *vn_out) {
  const f4 zero = f4_set(0.0f), one = f4_set(1.0f);
  f4 pbx = f4_sub(f4_mul(qbc, rbx), f4_mul(qbs, rby));
  f4 pby = f4_add(f4_mul(qbs, rbx), f4_mul(qbc, rby));
  f4 pax = f4_sub(f4_mul(qac, rax), f4_mul(qas, ray));
  f4 pay = f4_add(f4_mul(qas, rax), f4_mul(qac, ray));
  f4 sx = f4_add(ddx, f4_sub(pbx, pax)), sy = f4_add(ddy, f4_sub(pby, pay));
  f4 sep = f4_add(f4_add(f4_mul(sx, g->nx), f4_mul(sy, g->ny)), base);
  f4 spec = f4_gt(sep, zero);
  f4 bias = zero, ms = one, is = zero;
  if (use_bias) {
    bias = f4_max(f4_mul(g->bias_rate, sep), neg_push);
    ms = g->mass_scale;
    is = g->impulse_scale;
  }
  bias = f4_select(spec, f4_mul(sep, inv_h), bias);
  ms = f4_select(spec, one, ms);
  is = f4_select(spec, zero, is);
  /* relative normal velocity: vB + wB x rB - vA - wA x rA */
  f4 dvx = f4_sub(f4_sub(vbx, f4_mul(wb, rby)), f4_sub(vax, f4_mul(wa, ray)));
  f4 dvy = f4_sub(f4_add(vby, f4_mul(wb, rbx)), f4_add(vay, f4_mul(wa, rax)));
  f4 vn = f4_add(f4_mul(dvx, g->nx), f4_mul(dvy, g->ny));
  *vn_out = vn;
  return f4_sub(f4_mul(ms, f4_add(vn, bias)), f4_mul(f4_sub(one, is), kl));
}

void sn_wide_solve(const sn_wide_set *set, sn_body_state *states, float inv_h_, float push_, bool use_bias) {
  const f4 zero = f4_set(0.0f), inv_h = f4_set(inv_h_), neg_push = f4_set(-push_);
  for (int32_t gi = 0; gi < set->group_count; ++gi) {
    sn_wide_group *g = set->groups + gi;
    f4 vax, vay, wa, pa, vbx, vby, wb, pb;
    f4 dax, day, qac, qas, dbx, dby, qbc, qbs;
    sn_gather_v(states, g->ia, &vax, &vay, &wa, &pa);
    sn_gather_v(states, g->ib, &vbx, &vby, &wb, &pb);
    sn_gather_d(states, g->ia, &dax, &day, &qac, &qas);
    sn_gather_d(states, g->ib, &dbx, &dby, &qbc, &qbs);
    const f4 nx = g->nx, ny = g->ny;
    const f4 ddx = f4_sub(dbx, dax), ddy = f4_sub(dby, day);

    /* --- normal: the two points as one 2x2 block --- */
    f4 vn1, vn2;
    const f4 kl1 = f4_add(f4_mul(g->k11, g->ni1), f4_mul(g->k12, g->ni2));
    const f4 kl2 = f4_add(f4_mul(g->k12, g->ni1), f4_mul(g->k22, g->ni2));
    f4 rhs1 = sn_wide_normal_rhs(g, use_bias, ddx, ddy, qac, qas, qbc, qbs, vax, vay, wa, vbx, vby, wb, g->r1ax,
                                 g->r1ay, g->r1bx, g->r1by, g->base1, kl1, inv_h, neg_push, &vn1);
    f4 rhs2 = sn_wide_normal_rhs(g, use_bias, ddx, ddy, qac, qas, qbc, qbs, vax, vay, wa, vbx, vby, wb, g->r2ax,
                                 g->r2ay, g->r2bx, g->r2by, g->base2, kl2, inv_h, neg_push, &vn2);
    /* LCP by enumeration: both, only 1, only 2, none */
    f4 xa1 = f4_sub(zero, f4_add(f4_mul(g->n11, rhs1), f4_mul(g->n12, rhs2)));
    f4 xa2 = f4_sub(zero, f4_add(f4_mul(g->n12, rhs1), f4_mul(g->n22, rhs2)));
    f4 ok_a = f4_and(f4_ge(xa1, zero), f4_ge(xa2, zero));
    f4 xb1 = f4_sub(zero, f4_mul(rhs1, g->nm1));
    f4 ok_b = f4_and(f4_ge(xb1, zero), f4_ge(f4_add(f4_mul(g->k12, xb1), rhs2), zero));
    f4 xc2 = f4_sub(zero, f4_mul(rhs2, g->nm2));
    f4 ok_c = f4_and(f4_ge(xc2, zero), f4_ge(f4_add(f4_mul(g->k12, xc2), rhs1), zero));
    f4 ok_d = f4_and(f4_ge(rhs1, zero), f4_ge(rhs2, zero));
    /* unsolved lanes keep their impulses */
    f4 x1 = f4_select(ok_d, zero, g->ni1), x2 = f4_select(ok_d, zero, g->ni2);
    x1 = f4_select(ok_c, zero, x1);
    x2 = f4_select(ok_c, xc2, x2);
    x1 = f4_select(ok_b, xb1, x1);
    x2 = f4_select(ok_b, zero, x2);
    x1 = f4_select(ok_a, xa1, x1);
    x2 = f4_select(ok_a, xa2, x2);
    f4 d1 = f4_sub(x1, g->ni1), d2 = f4_sub(x2, g->ni2);
    /* approach speed at impact, for restitution */
    g->rv1 = f4_select(f4_and(f4_gt(x1, zero), f4_lt(vn1, g->rv1)), vn1, g->rv1);
    g->rv2 = f4_select(f4_and(f4_gt(x2, zero), f4_lt(vn2, g->rv2)), vn2, g->rv2);
    g->ni1 = x1;
    g->ni2 = x2;
    g->mni1 = f4_max(g->mni1, d1);
    g->mni2 = f4_max(g->mni2, d2);
    {
      f4 dsum = f4_add(d1, d2);
      f4 px = f4_mul(nx, dsum), py = f4_mul(ny, dsum);
      /* cross(r, n d) = d (r.x n.y - r.y n.x) */
      f4 ta = f4_add(f4_mul(d1, f4_sub(f4_mul(g->r1ax, ny), f4_mul(g->r1ay, nx))),
                     f4_mul(d2, f4_sub(f4_mul(g->r2ax, ny), f4_mul(g->r2ay, nx))));
      f4 tb = f4_add(f4_mul(d1, f4_sub(f4_mul(g->r1bx, ny), f4_mul(g->r1by, nx))),
                     f4_mul(d2, f4_sub(f4_mul(g->r2bx, ny), f4_mul(g->r2by, nx))));
      vax = f4_sub(vax, f4_mul(g->ma, px));
      vay = f4_sub(vay, f4_mul(g->ma, py));
      wa = f4_sub(wa, f4_mul(g->iia, ta));
      vbx = f4_add(vbx, f4_mul(g->mb, px));
      vby = f4_add(vby, f4_mul(g->mb, py));
      wb = f4_add(wb, f4_mul(g->iib, tb));
    }

    /* --- friction, point by point, bounded by friction x normal impulse --- */
    const f4 tx = ny, ty = f4_sub(zero, nx);
#define SN_WIDE_FRICTION(rax, ray, rbx, rby, ni, ti, tm)                                                               \
  do {                                                                                                                 \
    f4 dvx = f4_sub(f4_sub(vbx, f4_mul(wb, g->rby)), f4_sub(vax, f4_mul(wa, g->ray)));                                 \
    f4 dvy = f4_sub(f4_add(vby, f4_mul(wb, g->rbx)), f4_add(vay, f4_mul(wa, g->rax)));                                 \
    f4 vt = f4_add(f4_mul(dvx, tx), f4_mul(dvy, ty));                                                                  \
    f4 max_f = f4_mul(g->friction, g->ni);                                                                             \
    f4 nt = f4_sub(g->ti, f4_mul(g->tm, vt));                                                                          \
    nt = f4_max(f4_sub(zero, max_f), f4_min(nt, max_f));                                                               \
    f4 d = f4_sub(nt, g->ti);                                                                                          \
    g->ti = nt;                                                                                                        \
    f4 px = f4_mul(tx, d), py = f4_mul(ty, d);                                                                         \
    f4 ta = f4_sub(f4_mul(g->rax, py), f4_mul(g->ray, px));                                                            \
    f4 tb = f4_sub(f4_mul(g->rbx, py), f4_mul(g->rby, px));                                                            \
    vax = f4_sub(vax, f4_mul(g->ma, px));                                                                              \
    vay = f4_sub(vay, f4_mul(g->ma, py));                                                                              \
    wa = f4_sub(wa, f4_mul(g->iia, ta));                                                                               \
    vbx = f4_add(vbx, f4_mul(g->mb, px));                                                                              \
    vby = f4_add(vby, f4_mul(g->mb, py));                                                                              \
    wb = f4_add(wb, f4_mul(g->iib, tb));                                                                               \
  } while (0)
    SN_WIDE_FRICTION(r1ax, r1ay, r1bx, r1by, ni1, ti1, tm1);
    SN_WIDE_FRICTION(r2ax, r2ay, r2bx, r2by, ni2, ti2, tm2);
#undef SN_WIDE_FRICTION
    sn_scatter_v(states, g->ia, vax, vay, wa, pa);
    sn_scatter_v(states, g->ib, vbx, vby, wb, pb);
  }
}

void sn_wide_store(const sn_wide_set *set, sn_contact_constraint *cs) {
  for (int32_t gi = 0; gi < set->group_count; ++gi) {
    const sn_wide_group *g = set->groups + gi;
    for (int l = 0; l < 4; ++l) {
      int32_t k = set->lane_constraint[4 * gi + l];
      if (k < 0) continue;
      sn_constraint_point *p1 = cs[k].points, *p2 = cs[k].points + 1;
      p1->normal_impulse = f4_lane(g->ni1, l);
      p1->tangent_impulse = f4_lane(g->ti1, l);
      p1->max_normal_impulse = f4_lane(g->mni1, l);
      p1->relative_velocity = f4_lane(g->rv1, l);
      if (cs[k].point_count == 2) {
        p2->normal_impulse = f4_lane(g->ni2, l);
        p2->tangent_impulse = f4_lane(g->ti2, l);
        p2->max_normal_impulse = f4_lane(g->mni2, l);
        p2->relative_velocity = f4_lane(g->rv2, l);
      }
    }
  }
}
