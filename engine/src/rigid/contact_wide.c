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

#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SN_HAVE_AVX2 1
#include <immintrin.h>
#else
#define SN_HAVE_AVX2 0
#endif

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
  /* lanes whose body the contact may change (bit l): only those are written
   * back. Static and kinematic bodies may sit in several groups of a colour,
   * and groups of a colour run on different threads. */
  int32_t ia_write, ib_write;
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

/* Index of the lowest clear bit of a word that has one. */
static inline int32_t sn_lowest_zero_bit(uint64_t used) {
#if defined(__GNUC__) || defined(__clang__)
  return (int32_t)__builtin_ctzll(~used);
#else
  int32_t bit = 0;
  while (used & (1ull << bit)) ++bit;
  return bit;
#endif
}

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
      color = sn_lowest_zero_bit(used);
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
  if (l == 0) g->ia_write = g->ib_write = 0;
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
  /* the colouring's test of a body the contact can change */
  if (c->ia < dummy && (c->ma > 0.0f || c->ia_inv > 0.0f)) g->ia_write |= 1 << l;
  if (c->ib < dummy && (c->mb > 0.0f || c->ib_inv > 0.0f)) g->ib_write |= 1 << l;
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
  set->use_avx2 = false;
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
  for (int32_t c = 0; c <= SN_MAX_COLORS; ++c) set->color_first[c] = cursor[c] / 4;
  set->color_first[SN_MAX_COLORS + 1] = group_count;
  for (int32_t i = 0; i < 4 * group_count; ++i) set->lane_constraint[i] = -1;
  for (int32_t k = 0; k < count; ++k) {
    int32_t c = colors[k];
    set->lane_constraint[cursor[c]] = k;
    cursor[c] += c == SN_MAX_COLORS ? 4 : 1;
  }
  (void)cs;
  (void)dummy;
  return true;
}

void sn_wide_fill(const sn_wide_set *set, const sn_contact_constraint *cs, int32_t begin, int32_t end, int32_t dummy) {
  for (int32_t g = begin; g < end; ++g) {
    for (int l = 0; l < 4; ++l) {
      int32_t k = set->lane_constraint[4 * g + l];
      sn_wide_set_lane(set->groups + g, l, k >= 0 ? cs + k : NULL, dummy);
    }
  }
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

static inline void sn_scatter_v(sn_body_state *s, const int32_t *idx, int32_t write, f4 vx, f4 vy, f4 w, f4 pad) {
  f4_transpose(&vx, &vy, &w, &pad);
  if (write == 15) { /* the common case: four dynamic bodies */
    f4_store(&s[idx[0]].v.x, vx);
    f4_store(&s[idx[1]].v.x, vy);
    f4_store(&s[idx[2]].v.x, w);
    f4_store(&s[idx[3]].v.x, pad);
    return;
  }
  if (write & 1) f4_store(&s[idx[0]].v.x, vx);
  if (write & 2) f4_store(&s[idx[1]].v.x, vy);
  if (write & 4) f4_store(&s[idx[2]].v.x, w);
  if (write & 8) f4_store(&s[idx[3]].v.x, pad);
}

/* ---- 4 lanes: one group ---- */
#define V                           f4
#define v_set                       f4_set
#define v_add                       f4_add
#define v_sub                       f4_sub
#define v_mul                       f4_mul
#define v_max                       f4_max
#define v_min                       f4_min
#define v_gt                        f4_gt
#define v_ge                        f4_ge
#define v_lt                        f4_lt
#define v_and                       f4_and
#define v_select                    f4_select
#define LD(f)                       (g0->f)
#define ST(f, x)                    (g0->f = (x))
#define GATHER_V(side, a, b, c, d)  sn_gather_v(states, g0->side, &a, &b, &c, &d)
#define GATHER_D(side, a, b, c, d)  sn_gather_d(states, g0->side, &a, &b, &c, &d)
#define SCATTER_V(side, a, b, c, d) sn_scatter_v(states, g0->side, g0->side##_write, a, b, c, d)
#define KFN(name)                   sn_wide4_##name
#define KATTR
#include "rigid/contact_wide_kernel.inc"
#undef V
#undef v_set
#undef v_add
#undef v_sub
#undef v_mul
#undef v_max
#undef v_min
#undef v_gt
#undef v_ge
#undef v_lt
#undef v_and
#undef v_select
#undef LD
#undef ST
#undef GATHER_V
#undef GATHER_D
#undef SCATTER_V
#undef KFN
#undef KATTR

#if SN_HAVE_AVX2
/* ---- 8 lanes: two groups of one colour, with AVX2 ---- */
#define SN_AVX2 __attribute__((target("avx2")))
typedef __m256 f8;
SN_AVX2 static inline f8 f8_set(float a) { return _mm256_set1_ps(a); }
SN_AVX2 static inline f8 f8_add(f8 a, f8 b) { return _mm256_add_ps(a, b); }
SN_AVX2 static inline f8 f8_sub(f8 a, f8 b) { return _mm256_sub_ps(a, b); }
SN_AVX2 static inline f8 f8_mul(f8 a, f8 b) { return _mm256_mul_ps(a, b); }
SN_AVX2 static inline f8 f8_max(f8 a, f8 b) { return _mm256_max_ps(a, b); }
SN_AVX2 static inline f8 f8_min(f8 a, f8 b) { return _mm256_min_ps(a, b); }
SN_AVX2 static inline f8 f8_gt(f8 a, f8 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OS); }
SN_AVX2 static inline f8 f8_ge(f8 a, f8 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OS); }
SN_AVX2 static inline f8 f8_lt(f8 a, f8 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OS); }
SN_AVX2 static inline f8 f8_and(f8 a, f8 b) { return _mm256_and_ps(a, b); }
SN_AVX2 static inline f8 f8_select(f8 m, f8 a, f8 b) { return _mm256_blendv_ps(b, a, m); }
SN_AVX2 static inline f8 f8_join(f4 lo, f4 hi) { return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1); }
SN_AVX2 static inline f4 f8_lo(f8 a) { return _mm256_castps256_ps128(a); }
SN_AVX2 static inline f4 f8_hi(f8 a) { return _mm256_extractf128_ps(a, 1); }
#define V        f8
#define v_set    f8_set
#define v_add    f8_add
#define v_sub    f8_sub
#define v_mul    f8_mul
#define v_max    f8_max
#define v_min    f8_min
#define v_gt     f8_gt
#define v_ge     f8_ge
#define v_lt     f8_lt
#define v_and    f8_and
#define v_select f8_select
#define LD(f)    f8_join(g0->f, g1->f)
#define ST(f, x)                                                                                                       \
  do {                                                                                                                 \
    f8 st_ = (x);                                                                                                      \
    g0->f = f8_lo(st_);                                                                                                \
    g1->f = f8_hi(st_);                                                                                                \
  } while (0)
#define SN_GATHER8(fn, side, a, b, c, d)                                                                               \
  do {                                                                                                                 \
    f4 a0_, b0_, c0_, d0_, a1_, b1_, c1_, d1_;                                                                         \
    fn(states, g0->side, &a0_, &b0_, &c0_, &d0_);                                                                      \
    fn(states, g1->side, &a1_, &b1_, &c1_, &d1_);                                                                      \
    a = f8_join(a0_, a1_);                                                                                             \
    b = f8_join(b0_, b1_);                                                                                             \
    c = f8_join(c0_, c1_);                                                                                             \
    d = f8_join(d0_, d1_);                                                                                             \
  } while (0)
#define GATHER_V(side, a, b, c, d) SN_GATHER8(sn_gather_v, side, a, b, c, d)
#define GATHER_D(side, a, b, c, d) SN_GATHER8(sn_gather_d, side, a, b, c, d)
#define SCATTER_V(side, a, b, c, d)                                                                                    \
  do {                                                                                                                 \
    sn_scatter_v(states, g0->side, g0->side##_write, f8_lo(a), f8_lo(b), f8_lo(c), f8_lo(d));                          \
    sn_scatter_v(states, g1->side, g1->side##_write, f8_hi(a), f8_hi(b), f8_hi(c), f8_hi(d));                          \
  } while (0)
#define KFN(name) sn_wide8_##name
#define KATTR     SN_AVX2
#include "rigid/contact_wide_kernel.inc"
#endif

bool sn_wide_cpu_has_avx2(void) {
#if SN_HAVE_AVX2
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

_Static_assert(SN_WIDE_COLORS == SN_MAX_COLORS + 1 && SN_WIDE_OVERFLOW == SN_MAX_COLORS, "colour counts");

/* Groups [g, end) of one colour: pairs go 8 lanes wide where allowed, the
 * rest 4 lanes; overflow groups one at a time. Pairs are counted from the
 * colour's first group, so a range must start at an even offset from it. */
void sn_wide_warm_range(const sn_wide_set *set, sn_body_state *states, int32_t color, int32_t g, int32_t end) {
#if SN_HAVE_AVX2
  if (set->use_avx2 && color < SN_MAX_COLORS) {
    for (; g + 1 < end; g += 2) sn_wide8_warm_group(states, set->groups + g, set->groups + g + 1);
  }
#else
  (void)color;
#endif
  for (; g < end; ++g) sn_wide4_warm_group(states, set->groups + g, NULL);
}

void sn_wide_solve_range(const sn_wide_set *set, sn_body_state *states, int32_t color, int32_t g, int32_t end,
                         float inv_h, float push, bool use_bias) {
#if SN_HAVE_AVX2
  if (set->use_avx2 && color < SN_MAX_COLORS) {
    for (; g + 1 < end; g += 2)
      sn_wide8_solve_group(states, set->groups + g, set->groups + g + 1, use_bias, inv_h, push);
  }
#else
  (void)color;
#endif
  for (; g < end; ++g) sn_wide4_solve_group(states, set->groups + g, NULL, use_bias, inv_h, push);
}

void sn_wide_warm_start(const sn_wide_set *set, sn_body_state *states) {
  for (int32_t c = 0; c <= SN_MAX_COLORS; ++c)
    sn_wide_warm_range(set, states, c, set->color_first[c], set->color_first[c + 1]);
}

void sn_wide_solve(const sn_wide_set *set, sn_body_state *states, float inv_h, float push, bool use_bias) {
  for (int32_t c = 0; c <= SN_MAX_COLORS; ++c)
    sn_wide_solve_range(set, states, c, set->color_first[c], set->color_first[c + 1], inv_h, push, use_bias);
}

void sn_wide_store(const sn_wide_set *set, sn_contact_constraint *cs) {
  sn_wide_store_range(set, cs, 0, set->group_count);
}

void sn_wide_store_range(const sn_wide_set *set, sn_contact_constraint *cs, int32_t begin, int32_t end) {
  for (int32_t gi = begin; gi < end; ++gi) {
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
