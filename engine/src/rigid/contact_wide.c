/* Wide contact kernel: graph-coloured contacts solved eight at a time.
 *
 * Colouring: contacts are coloured greedily in contact order so that no two
 * contacts of one colour share a dynamic body (static and kinematic bodies
 * are never changed by a contact, so they may repeat). Each colour is cut
 * into groups of eight lanes (SoA, 32-byte aligned); a group gathers its
 * bodies' states, solves all lanes with 8-wide arithmetic (AVX2) or as two
 * halves of four (SSE2) and scatters them back. Because the lanes of a group
 * touch distinct dynamic bodies, this is exactly a Gauss-Seidel sweep in
 * colour order, and both widths give the same bits. Contacts that find no
 * free colour (a body with more than 64 contacts) get a group of their own.
 *
 * Every contact is solved as a two-point block (see solver.c for the soft
 * step and the 2x2 LCP): a one-point contact carries a phantom second point
 * that is always separated, and padding lanes have zero mass, so neither can
 * change a velocity. A two-point lane whose block is too ill-conditioned to
 * invert solves its points one after the other (seq_lanes). The arithmetic
 * is plain IEEE single precision in a fixed order (no FMA, no reciprocal
 * approximations): results are deterministic. */
#include "rigid/contact_wide.h"

#include "world/world.h"

#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include "base/math.h"
#include "base/simd4.h"
#include "base/union_find.h"

#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SN_HAVE_AVX2 1
#include <immintrin.h>
#else
#define SN_HAVE_AVX2 0
#endif

/// A two-point block is solved as one while k11^2 < this * det(K) (its
/// condition number is then moderate); beyond, its points are solved one
/// after the other.
#define SN_WIDE_MAX_CONDITION 1000.0f
/// Separation given to phantom points and padding lanes: never touching.
#define SN_WIDE_FAR 1.0e6f
#if defined(__GNUC__) || defined(__clang__)
#define SN_PREFETCH(p)       __builtin_prefetch(p)
#define SN_PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define SN_PREFETCH(p)       ((void)(p))
#define SN_PREFETCH_WRITE(p) ((void)(p))
#endif
#define SN_MAX_COLORS 64
#define L             SN_WIDE_LANES

struct sn_wide_group {
  _Alignas(32) float nx[L];
  float ny[L];
  float ma[L], mb[L], iia[L], iib[L];
  float friction[L];
  float bias_rate[L], mass_scale[L], impulse_scale[L];
  float k11[L], k12[L], k22[L]; /* block normal mass matrix */
  float n11[L], n12[L], n22[L]; /* its inverse */
  float nm1[L], nm2[L];         /* 1 / k11, 1 / k22 */
  float tm1[L], tm2[L];         /* tangent masses */
  /* each point's anchors (from the centres of mass, the step's start)
   * across the normal and the tangent, r x n and r x t (r . n = -(r x t)):
   * all the passes need of them */
  float rn1a[L], rn1b[L], rn2a[L], rn2b[L];
  float rt1a[L], rt1b[L], rt2a[L], rt2b[L];
  float base1[L], base2[L];
  float ni1[L], ni2[L], ti1[L], ti2[L];
  float mni1[L], mni2[L], rv1[L], rv2[L];
  float restitution[L];
  float tangent_speed[L];   /* surface speed of a along t plus b's (conveyors): friction drives vt to it */
  float rolling[L];         /* rolling resistance times rolling radius: |rolling impulse| <= it x normal impulse */
  float rolling_mass[L];    /* 1 / (iia + iib) */
  float rolling_impulse[L]; /* accumulated over the step's substeps */
  int32_t ia[L], ib[L];
  /* lanes whose body the contact may change (bit l): only those are written
   * back. Static and kinematic bodies may sit in several groups of a colour,
   * and groups of a colour run on different threads. */
  int32_t ia_write, ib_write;
  /* lanes whose two points are too close to solve as a block (bit l): they
   * are solved one after the other instead (contact_wide_kernel.inc) */
  int32_t seq_lanes;
  /* lanes with rolling resistance, lanes with a tangent speed (bit l): the
   * kernel skips each when a group has none; the other lanes of a group
   * that has some hold zeros (sn_wide_finish_surface) */
  int32_t rolling_lanes, tangent_lanes;
  int32_t lanes; /* lanes in use (the rest is padding) */
  int8_t points[L];
  /* per lane, what the preparation found (SN_LANE_*): each lane is written
   * by the contact it holds alone, the masks above from these once the
   * group is complete (sn_wide_prepare_lanes) */
  int8_t lane_flags[L];
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

sn_wide_key sn_wide_key_of(const sn_contact_constraint *c, int32_t dummy) {
  sn_wide_key k = {c->ia, c->ib, 0u};
  if (c->ia < dummy && (c->ma > 0.0f || c->ia_inv > 0.0f)) k.dynamic |= 1u;
  if (c->ib < dummy && (c->mb > 0.0f || c->ib_inv > 0.0f)) k.dynamic |= 2u;
  return k;
}

int32_t sn_wide_color(const sn_wide_key *keys, int32_t count, int32_t body_count, int32_t *colors, uint64_t *masks) {
  memset(masks, 0, (size_t)body_count * sizeof(uint64_t));
  int32_t per_color[SN_MAX_COLORS] = {0};
  int32_t overflow = 0;
  for (int32_t k = 0; k < count; ++k) {
    const sn_wide_key *c = keys + k;
    /* only bodies a contact can change need exclusivity */
    bool dyn_a = (c->dynamic & 1u) != 0, dyn_b = (c->dynamic & 2u) != 0;
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
  for (int32_t c = 0; c < SN_MAX_COLORS; ++c) groups += (per_color[c] + L - 1) / L;
  return groups;
}

size_t sn_wide_bytes(int32_t group_count) {
  /* the groups, the contact per lane and the lane per contact */
  return (size_t)group_count * (sizeof(sn_wide_group) + 2 * L * sizeof(int32_t)) + 160;
}

/* Lane l of group g as padding: no body it can change, never touching. */
static void sn_wide_pad_lane(sn_wide_group *g, int l, int32_t dummy) {
  g->ia[l] = dummy;
  g->ib[l] = dummy;
  g->points[l] = 0;
  g->nx[l] = 0.0f;
  g->ny[l] = 1.0f;
  g->ma[l] = g->mb[l] = g->iia[l] = g->iib[l] = 0.0f;
  g->friction[l] = 0.0f;
  g->bias_rate[l] = 0.0f;
  g->mass_scale[l] = 1.0f;
  g->impulse_scale[l] = 0.0f;
  g->k11[l] = 1.0f;
  g->k12[l] = 0.0f;
  g->k22[l] = 1.0f;
  g->n11[l] = 1.0f;
  g->n12[l] = 0.0f;
  g->n22[l] = 1.0f;
  g->nm1[l] = g->nm2[l] = g->tm1[l] = g->tm2[l] = 0.0f;
  g->rn1a[l] = g->rn1b[l] = g->rn2a[l] = g->rn2b[l] = 0.0f;
  g->rt1a[l] = g->rt1b[l] = g->rt2a[l] = g->rt2b[l] = 0.0f;
  g->base1[l] = g->base2[l] = SN_WIDE_FAR;
  g->ni1[l] = g->ni2[l] = g->ti1[l] = g->ti2[l] = 0.0f;
  g->mni1[l] = g->mni2[l] = g->rv1[l] = g->rv2[l] = 0.0f;
  g->restitution[l] = 0.0f;
}

/* Rolling resistance and tangent speed of lane l (rolling: the mixed
 * coefficient times the rolling radius), written only when the lane has
 * them: most contacts have neither. */
static inline void sn_wide_set_surface(sn_wide_group *g, int l, float tangent_speed, float rolling, float inv_ia,
                                       float inv_ib) {
  if (tangent_speed != 0.0f) {
    g->tangent_speed[l] = tangent_speed;
    g->tangent_lanes |= 1 << l;
  }
  float k = inv_ia + inv_ib;
  if (rolling > 0.0f && k > 0.0f) {
    g->rolling[l] = rolling;
    g->rolling_mass[l] = 1.0f / k;
    g->rolling_impulse[l] = 0.0f;
    g->rolling_lanes |= 1 << l;
  }
}

/* Once every lane of a group is set: zeros in the lanes without a tangent
 * speed or rolling resistance of a group where some lane has one. */
static inline void sn_wide_finish_surface(sn_wide_group *g) {
  if (g->tangent_lanes != 0) {
    for (int l = 0; l < L; ++l) {
      if (!(g->tangent_lanes & (1 << l))) g->tangent_speed[l] = 0.0f;
    }
  }
  if (g->rolling_lanes != 0) {
    for (int l = 0; l < L; ++l) {
      if (!(g->rolling_lanes & (1 << l))) g->rolling[l] = g->rolling_mass[l] = g->rolling_impulse[l] = 0.0f;
    }
  }
}

void sn_wide_set_lane(const sn_wide_set *set, int32_t group, int l, const sn_contact_constraint *c, int32_t dummy) {
  sn_wide_group *g = set->groups + group;
  if (l == 0) g->ia_write = g->ib_write = g->seq_lanes = g->rolling_lanes = g->tangent_lanes = g->lanes = 0;
  if (c == NULL) {
    sn_wide_pad_lane(g, l, dummy);
    if (l == L - 1) sn_wide_finish_surface(g);
    return;
  }
  const sn_constraint_point *p1 = c->points, *p2 = c->points + 1;
  bool two = c->point_count == 2;
  /* the prepare's test of a block too ill-conditioned to invert */
  bool seq = two && !(c->k11 * c->k11 < SN_WIDE_MAX_CONDITION * (c->k11 * c->k22 - c->k12 * c->k12));
  if (seq) g->seq_lanes |= 1 << l;
  g->lanes = l + 1;
  g->points[l] = (int8_t)c->point_count;
  g->ia[l] = c->ia;
  g->ib[l] = c->ib;
  /* the colouring's test of a body the contact can change */
  sn_wide_key key = sn_wide_key_of(c, dummy);
  if (key.dynamic & 1u) g->ia_write |= 1 << l;
  if (key.dynamic & 2u) g->ib_write |= 1 << l;
  g->nx[l] = c->normal.x;
  g->ny[l] = c->normal.y;
  g->ma[l] = c->ma;
  g->mb[l] = c->mb;
  g->iia[l] = c->ia_inv;
  g->iib[l] = c->ib_inv;
  g->friction[l] = c->friction;
  g->restitution[l] = c->restitution;
  sn_wide_set_surface(g, l, c->tangent_speed, c->rolling_resistance, c->ia_inv, c->ib_inv);
  g->bias_rate[l] = c->soft.bias_rate;
  g->mass_scale[l] = c->soft.mass_scale;
  g->impulse_scale[l] = c->soft.impulse_scale;
  if (two) {
    g->k11[l] = c->k11;
    g->k12[l] = c->k12;
    g->k22[l] = c->k22;
    g->n11[l] = seq ? p1->normal_mass : c->n11;
    g->n12[l] = seq ? 0.0f : c->n12;
    g->n22[l] = seq ? p2->normal_mass : c->n22;
  } else {
    /* phantom second point: K = diag(k11, 1) */
    g->k11[l] = p1->normal_mass > 0.0f ? 1.0f / p1->normal_mass : 1.0f;
    g->k12[l] = 0.0f;
    g->k22[l] = 1.0f;
    g->n11[l] = p1->normal_mass > 0.0f ? p1->normal_mass : 0.0f;
    g->n12[l] = 0.0f;
    g->n22[l] = 1.0f;
  }
  g->nm1[l] = p1->normal_mass;
  g->nm2[l] = two ? p2->normal_mass : 1.0f;
  g->tm1[l] = p1->tangent_mass;
  g->tm2[l] = two ? p2->tangent_mass : 0.0f;
  {
    /* as the direct preparation computes them (t = (ny, -nx)) */
    const float nx = c->normal.x, ny = c->normal.y, tx = ny, ty = 0.0f - nx;
    g->rn1a[l] = p1->ra.x * ny - p1->ra.y * nx;
    g->rn1b[l] = p1->rb.x * ny - p1->rb.y * nx;
    g->rn2a[l] = two ? p2->ra.x * ny - p2->ra.y * nx : 0.0f;
    g->rn2b[l] = two ? p2->rb.x * ny - p2->rb.y * nx : 0.0f;
    g->rt1a[l] = p1->ra.x * ty - p1->ra.y * tx;
    g->rt1b[l] = p1->rb.x * ty - p1->rb.y * tx;
    g->rt2a[l] = two ? p2->ra.x * ty - p2->ra.y * tx : 0.0f;
    g->rt2b[l] = two ? p2->rb.x * ty - p2->rb.y * tx : 0.0f;
  }
  g->base1[l] = p1->base_separation;
  g->base2[l] = two ? p2->base_separation : SN_WIDE_FAR;
  g->ni1[l] = p1->normal_impulse;
  g->ni2[l] = two ? p2->normal_impulse : 0.0f;
  g->ti1[l] = p1->tangent_impulse;
  g->ti2[l] = two ? p2->tangent_impulse : 0.0f;
  g->mni1[l] = 0.0f;
  g->mni2[l] = 0.0f;
  g->rv1[l] = p1->relative_velocity;
  g->rv2[l] = two ? p2->relative_velocity : 0.0f;
  if (l == L - 1) sn_wide_finish_surface(g);
}

/* Solver contacts [k0, k0 + 4) (those below `end`) straight from the world,
 * four at a time, each into its own lane (set->contact_slot): a scalar
 * gather of what each contact needs, then the arithmetic in SIMD lanes, in
 * the order the scalar formulas give (lane by lane: the bits do not depend
 * on which contacts share a vector), then a scatter to the lanes. The
 * group-wide lane masks, the padding lanes and the surface zeros are left
 * to sn_wide_prepare_lanes, once every contact of a group is in. */
typedef struct sn_prepare_input {
  const sn_wide_set *set;
  int32_t begin; ///< the first contact of the call: groups from there on complete in it
  const sn_world *w;
  const int32_t *contacts;
  const sn_wide_key *keys;
  const sn_body_state *states;
  const sn_wide_body *bodies;
  int32_t dummy;
  const sn_softness *soft, *static_soft;
} sn_prepare_input;

/* Lane bits of sn_wide_group.lane_flags (what sn_wide_prepare_lanes folds
 * into the group's masks). */
enum { SN_LANE_WRITE_A = 1, SN_LANE_WRITE_B = 2, SN_LANE_SEQ = 4, SN_LANE_ROLLING = 8, SN_LANE_TANGENT = 16 };

/* Rolling resistance and tangent speed of lane l, as sn_wide_set_surface,
 * but the lane's bits returned (SN_LANE_*) instead of set in the group. */
static inline int sn_wide_lane_surface(sn_wide_group *g, int l, float tangent_speed, float rolling, float inv_ia,
                                       float inv_ib) {
  int bits = 0;
  if (tangent_speed != 0.0f) {
    g->tangent_speed[l] = tangent_speed;
    bits |= SN_LANE_TANGENT;
  }
  float k = inv_ia + inv_ib;
  if (rolling > 0.0f && k > 0.0f) {
    g->rolling[l] = rolling;
    g->rolling_mass[l] = 1.0f / k;
    g->rolling_impulse[l] = 0.0f;
    bits |= SN_LANE_ROLLING;
  }
  return bits;
}

/* The lane rows the arithmetic fills, four contacts each. */
// clang-format off
#define SN_PREP_ROWS(X) \
  X(nx) X(ny) X(ma) X(mb) X(iia) X(iib) \
  X(bias_rate) X(mass_scale) X(impulse_scale) \
  X(k11) X(k12) X(k22) X(n11) X(n12) X(n22) X(nm1) X(nm2) X(tm1) X(tm2) \
  X(rn1a) X(rn1b) X(rn2a) X(rn2b) X(rt1a) X(rt1b) X(rt2a) X(rt2b) \
  X(base1) X(base2) X(ni1) X(ni2) X(ti1) X(ti2) X(rv1) X(rv2)
// clang-format on

/* What a lane reads of one of its bodies, as two rows of four: inverse
 * mass, inverse inertia, centre offset x, y; velocity x, y, angular, pad
 * (and the inverse mass and inertia alone). */
static inline void sn_prepare_body4(const sn_prepare_input *in, int32_t solver_index, int32_t body, f4 *mass, f4 *vel,
                                    float *inv_mass, float *inv_inertia) {
  if (solver_index < in->dummy) {
    const sn_wide_body *b = in->bodies + solver_index;
    *mass = f4_load(&b->inv_mass);
    *vel = f4_load(&in->states[solver_index].v.x);
    *inv_mass = b->inv_mass;
    *inv_inertia = b->inv_inertia;
    return;
  }
  const sn_body *b = in->w->bodies.data + body;
  *mass = f4_make(b->inv_mass, b->inv_inertia, b->center.x - b->xf.p.x, b->center.y - b->xf.p.y);
  *vel = f4_make(b->v.x, b->v.y, b->w, 0.0f);
  *inv_mass = b->inv_mass;
  *inv_inertia = b->inv_inertia;
}

/* Group gi once each of its contacts is in its lane: the masks from the
 * lanes' findings, padding lanes, the surface zeros (the same bytes however
 * often it runs). */
static void sn_wide_finish_group(const sn_wide_set *set, int32_t gi, int32_t dummy) {
  sn_wide_group *g = set->groups + gi;
  const int32_t *lanes = set->lane_constraint + L * gi;
  int32_t a = 0, b = 0, seq = 0, rolling = 0, tangent = 0, used = 0;
  for (int l = 0; l < L; ++l) {
    if (lanes[l] < 0) {
      sn_wide_pad_lane(g, l, dummy);
      continue;
    }
    const int f = g->lane_flags[l];
    used = l + 1;
    if (f & SN_LANE_WRITE_A) a |= 1 << l;
    if (f & SN_LANE_WRITE_B) b |= 1 << l;
    if (f & SN_LANE_SEQ) seq |= 1 << l;
    if (f & SN_LANE_ROLLING) rolling |= 1 << l;
    if (f & SN_LANE_TANGENT) tangent |= 1 << l;
  }
  g->ia_write = a;
  g->ib_write = b;
  g->seq_lanes = seq;
  g->rolling_lanes = rolling;
  g->tangent_lanes = tangent;
  g->lanes = used;
  sn_wide_finish_surface(g);
}

/* Solver contacts ks[0, n) (n <= 4), each into its lane: contact order
 * gives four consecutive contacts, group order a group's lanes. */
static void sn_wide_prepare_four(const sn_prepare_input *in, const int32_t *ks, int n) {
  const sn_wide_set *set = in->set;
  enum { N = 4 };
  /* the gathered inputs, one vector per contact and kind, each a 16-byte
   * load where the memory holds the four floats side by side (bodies,
   * states, a point's anchors, its separation and impulses), then
   * transposed into rows of four contacts: no row is assembled from
   * scalar stores */
  f4 mass_a[N], vel_a[N], mass_b[N], vel_b[N], anchors1[N], sep1[N], anchors2[N], sep2[N], normal[N], soft[N];
  const f4 zero = f4_set(0.0f), one = f4_set(1.0f);
  const f4 soft_dynamic = f4_make(in->soft->bias_rate, in->soft->mass_scale, in->soft->impulse_scale, 0.0f);
  const f4 soft_static =
      f4_make(in->static_soft->bias_rate, in->static_soft->mass_scale, in->static_soft->impulse_scale, 0.0f);
  sn_wide_group *gs[N];
  int ls[N];
  int flags[N];
  for (int i = 0; i < N; ++i) {
    const int32_t k = i < n ? ks[i] : 0;
    if (i >= n) {
      /* neutral inputs (past the range: computed, never stored) */
      mass_a[i] = vel_a[i] = mass_b[i] = vel_b[i] = zero;
      anchors1[i] = sep1[i] = anchors2[i] = sep2[i] = zero;
      normal[i] = f4_make(0.0f, 1.0f, 1.0f, 0.0f);
      soft[i] = f4_make(0.0f, 1.0f, 0.0f, 0.0f);
      continue;
    }
    const int32_t slot = set->contact_slot[k];
    sn_wide_group *g = set->groups + slot / L;
    const int l = slot % L;
    gs[i] = g;
    ls[i] = l;
    const sn_contact *c = in->w->contacts.data + in->contacts[k];
    const sn_manifold *m = &c->manifold;
    const sn_wide_key key = in->keys[k];
    float ima, iia, imb, iib;
    sn_prepare_body4(in, key.ia, c->edges[0].body, mass_a + i, vel_a + i, &ima, &iia);
    sn_prepare_body4(in, key.ib, c->edges[1].body, mass_b + i, vel_b + i, &imb, &iib);
    g->ia[l] = key.ia;
    g->ib[l] = key.ib;
    int bits = (key.dynamic & 1u) ? SN_LANE_WRITE_A : 0;
    if (key.dynamic & 2u) bits |= SN_LANE_WRITE_B;
    g->friction[l] = c->friction;
    g->restitution[l] = c->restitution;
    flags[i] = bits | sn_wide_lane_surface(g, l, c->tangent_speed, c->rolling_resistance, iia, iib);
    soft[i] = (ima == 0.0f || imb == 0.0f) ? soft_static : soft_dynamic;
    const sn_manifold_point *p1 = m->points, *p2 = m->points + 1;
    const bool two = m->point_count == 2;
    normal[i] = f4_make(m->normal.x, m->normal.y, two ? 2.0f : 1.0f, 0.0f);
    anchors1[i] = f4_load(&p1->anchor_a.x);
    sep1[i] = f4_load(&p1->separation);
    /* one point: the second's inputs are zeros */
    anchors2[i] = two ? f4_load(&p2->anchor_a.x) : zero;
    sep2[i] = two ? f4_load(&p2->separation) : zero;
  }
  _Static_assert(offsetof(sn_wide_body, offset) == offsetof(sn_wide_body, inv_mass) + 2 * sizeof(float) &&
                     offsetof(sn_body_state, w) == 2 * sizeof(float) &&
                     offsetof(sn_manifold_point, anchor_b) == offsetof(sn_manifold_point, anchor_a) + 8 &&
                     offsetof(sn_manifold_point, tangent_impulse) == offsetof(sn_manifold_point, separation) + 8,
                 "the gathered floats sit side by side");
  f4 Ma = mass_a[0], Ia = mass_a[1], Oax = mass_a[2], Oay = mass_a[3];
  f4_transpose(&Ma, &Ia, &Oax, &Oay);
  f4 Mb = mass_b[0], Ib = mass_b[1], Obx = mass_b[2], Oby = mass_b[3];
  f4_transpose(&Mb, &Ib, &Obx, &Oby);
  f4 Vax = vel_a[0], Vay = vel_a[1], Wa = vel_a[2], pad_a = vel_a[3];
  f4_transpose(&Vax, &Vay, &Wa, &pad_a);
  f4 Vbx = vel_b[0], Vby = vel_b[1], Wb = vel_b[2], pad_b = vel_b[3];
  f4_transpose(&Vbx, &Vby, &Wb, &pad_b);
  f4 A1x = anchors1[0], A1y = anchors1[1], B1x = anchors1[2], B1y = anchors1[3];
  f4_transpose(&A1x, &A1y, &B1x, &B1y);
  f4 A2x = anchors2[0], A2y = anchors2[1], B2x = anchors2[2], B2y = anchors2[3];
  f4_transpose(&A2x, &A2y, &B2x, &B2y);
  f4 Sep1 = sep1[0], Ni1 = sep1[1], Ti1 = sep1[2], max1 = sep1[3];
  f4_transpose(&Sep1, &Ni1, &Ti1, &max1);
  f4 Sep2 = sep2[0], Ni2 = sep2[1], Ti2 = sep2[2], max2 = sep2[3];
  f4_transpose(&Sep2, &Ni2, &Ti2, &max2);
  f4 Nx = normal[0], Ny = normal[1], Cnt = normal[2], pad_n = normal[3];
  f4_transpose(&Nx, &Ny, &Cnt, &pad_n);
  f4 Br = soft[0], Ms = soft[1], Is = soft[2], pad_s = soft[3];
  f4_transpose(&Br, &Ms, &Is, &pad_s);
  f4 Tx = Ny, Ty = f4_sub(zero, Nx);
  f4 msum = f4_add(Ma, Mb);
  /* one point: anchors from the centres of mass, masses, base separation,
   * approach speed (each line as the scalar formula it replaces) */
#define SN_PREP_POINT(AX, AY, BX, BY, SEP, RAX, RAY, RBX, RBY, RNA, RNB, RTA, RTB, NM, TM, BASE, RV)                   \
  f4 RAX = f4_sub(AX, Oax), RAY = f4_sub(AY, Oay);                                                                     \
  f4 RBX = f4_sub(BX, Obx), RBY = f4_sub(BY, Oby);                                                                     \
  f4 RNA = f4_sub(f4_mul(RAX, Ny), f4_mul(RAY, Nx)), RNB = f4_sub(f4_mul(RBX, Ny), f4_mul(RBY, Nx));                   \
  f4 RTA = f4_sub(f4_mul(RAX, Ty), f4_mul(RAY, Tx)), RTB = f4_sub(f4_mul(RBX, Ty), f4_mul(RBY, Tx));                   \
  f4 NM, TM, BASE, RV;                                                                                                 \
  {                                                                                                                    \
    f4 kn = f4_add(f4_add(msum, f4_mul(f4_mul(Ia, RNA), RNA)), f4_mul(f4_mul(Ib, RNB), RNB));                          \
    NM = f4_select(f4_gt(kn, zero), f4_div(one, kn), zero);                                                            \
    f4 kt = f4_add(f4_add(msum, f4_mul(f4_mul(Ia, RTA), RTA)), f4_mul(f4_mul(Ib, RTB), RTB));                          \
    TM = f4_select(f4_gt(kt, zero), f4_div(one, kt), zero);                                                            \
    f4 dvx = f4_sub(f4_sub(Vbx, f4_mul(Wb, RBY)), f4_sub(Vax, f4_mul(Wa, RAY)));                                       \
    f4 dvy = f4_sub(f4_add(Vby, f4_mul(Wb, RBX)), f4_add(Vay, f4_mul(Wa, RAX)));                                       \
    RV = f4_add(f4_mul(Nx, dvx), f4_mul(Ny, dvy));                                                                     \
    BASE = f4_sub(SEP, f4_add(f4_mul(f4_sub(RBX, RAX), Nx), f4_mul(f4_sub(RBY, RAY), Ny)));                            \
  }
  SN_PREP_POINT(A1x, A1y, B1x, B1y, Sep1, r1ax, r1ay, r1bx, r1by, rn1a, rn1b, rt1a, rt1b, nm1, tm1, base1, rv1)
  SN_PREP_POINT(A2x, A2y, B2x, B2y, Sep2, r2ax, r2ay, r2bx, r2by, rn2a, rn2b, rt2a, rt2b, nm2, tm2, base2, rv2)
#undef SN_PREP_POINT
  /* two points: the 2x2 block (`block`) where it is well conditioned; where
   * the points are so close (for the body's inertia) that it is not, they
   * are solved one after the other (`seq`: K keeps its coupling k12, the
   * block rows hold the decoupled inverse so that the block arithmetic the
   * lane also runs stays finite). One point: the second is a phantom,
   * K = diag(k11, 1). */
  f4 k11 = f4_add(f4_add(msum, f4_mul(f4_mul(Ia, rn1a), rn1a)), f4_mul(f4_mul(Ib, rn1b), rn1b));
  f4 k22 = f4_add(f4_add(msum, f4_mul(f4_mul(Ia, rn2a), rn2a)), f4_mul(f4_mul(Ib, rn2b), rn2b));
  f4 k12 = f4_add(f4_add(msum, f4_mul(f4_mul(Ia, rn1a), rn2a)), f4_mul(f4_mul(Ib, rn1b), rn2b));
  f4 det = f4_sub(f4_mul(k11, k22), f4_mul(k12, k12));
  f4 has2 = f4_gt(Cnt, one);
  f4 kk = f4_mul(k11, k11), limit = f4_mul(f4_set(SN_WIDE_MAX_CONDITION), det);
  f4 block = f4_and(has2, f4_lt(kk, limit));
  f4 seq = f4_and(has2, f4_ge(kk, limit)); /* not block (a NaN lane is neither: one point) */
  f4 two = f4_select(block, block, seq);   /* block or seq: both points are solved */
  f4 inv_det = f4_div(one, det);
  f4 has1 = f4_gt(nm1, zero);
  /* the results, one row of four contacts each, then lane by lane into
   * the groups */
  struct {
#define SN_PREP_ROW(f) float f[N];
    SN_PREP_ROWS(SN_PREP_ROW)
#undef SN_PREP_ROW
  } o;
  f4_store(o.k11, f4_select(two, k11, f4_select(has1, f4_div(one, nm1), one)));
  f4_store(o.k12, f4_select(two, k12, zero));
  f4_store(o.k22, f4_select(two, k22, one));
  f4_store(o.n11, f4_select(block, f4_mul(k22, inv_det), f4_select(has1, nm1, zero)));
  f4_store(o.n12, f4_select(block, f4_mul(f4_sub(zero, k12), inv_det), zero));
  f4_store(o.n22, f4_select(block, f4_mul(k11, inv_det), f4_select(seq, nm2, one)));
  f4_store(o.nx, Nx);
  f4_store(o.ny, Ny);
  f4_store(o.ma, Ma);
  f4_store(o.mb, Mb);
  f4_store(o.iia, Ia);
  f4_store(o.iib, Ib);
  f4_store(o.bias_rate, Br);
  f4_store(o.mass_scale, Ms);
  f4_store(o.impulse_scale, Is);
  f4_store(o.nm1, nm1);
  f4_store(o.nm2, f4_select(two, nm2, one));
  f4_store(o.tm1, tm1);
  f4_store(o.tm2, f4_select(two, tm2, zero));
  f4_store(o.rn1a, rn1a);
  f4_store(o.rn1b, rn1b);
  f4_store(o.rn2a, f4_select(two, rn2a, zero));
  f4_store(o.rn2b, f4_select(two, rn2b, zero));
  f4_store(o.rt1a, rt1a);
  f4_store(o.rt1b, rt1b);
  f4_store(o.rt2a, f4_select(two, rt2a, zero));
  f4_store(o.rt2b, f4_select(two, rt2b, zero));
  f4_store(o.base1, base1);
  f4_store(o.base2, f4_select(two, base2, f4_set(SN_WIDE_FAR)));
  f4_store(o.ni1, Ni1);
  f4_store(o.ni2, f4_select(two, Ni2, zero));
  f4_store(o.ti1, Ti1);
  f4_store(o.ti2, f4_select(two, Ti2, zero));
  f4_store(o.rv1, rv1);
  f4_store(o.rv2, f4_select(two, rv2, zero));
  const int two_bits = f4_mask_bits(two), seq_bits = f4_mask_bits(seq);
  /* four lanes side by side in one group (group order): each row at once */
  bool side_by_side = n == N;
  for (int i = 1; side_by_side && i < N; ++i) side_by_side = gs[i] == gs[0] && ls[i] == ls[0] + i;
  if (side_by_side) {
    sn_wide_group *g = gs[0];
    const int l = ls[0];
#define SN_PREP_ROW(f) memcpy(g->f + l, o.f, sizeof o.f);
    SN_PREP_ROWS(SN_PREP_ROW)
#undef SN_PREP_ROW
  }
  for (int i = 0; i < n; ++i) {
    sn_wide_group *g = gs[i];
    const int l = ls[i];
    if (!side_by_side) {
#define SN_PREP_ROW(f) g->f[l] = o.f[i];
      SN_PREP_ROWS(SN_PREP_ROW)
#undef SN_PREP_ROW
    }
    g->mni1[l] = 0.0f;
    g->mni2[l] = 0.0f;
    g->points[l] = (int8_t)((two_bits >> i) & 1 ? 2 : 1);
    g->lane_flags[l] = (int8_t)(flags[i] | ((seq_bits >> i) & 1 ? SN_LANE_SEQ : 0));
    /* a colour's lanes take its contacts in order: the group's last lane,
     * with its first in this call, completes it here while it is in cache */
    const int32_t slot = (int32_t)(g - set->groups) * L + l;
    if ((l == L - 1 || set->lane_constraint[slot + 1] < 0) && set->lane_constraint[slot - l] >= in->begin)
      sn_wide_finish_group(set, slot / L, in->dummy);
  }
}
#undef SN_PREP_ROWS

/// Solver contacts ahead whose group the preparation fetches for writing.
#define SN_PREPARE_GROUP_AHEAD 16

void sn_wide_prepare_range(const sn_wide_set *set, const sn_world *w, const int32_t *contacts, const sn_wide_key *keys,
                           const sn_body_state *states, const sn_wide_body *bodies, int32_t begin, int32_t end,
                           int32_t dummy, const sn_softness *soft, const sn_softness *static_soft) {
  const sn_prepare_input in = {set, begin, w, contacts, keys, states, bodies, dummy, soft, static_soft};
  for (int32_t k = begin; k < end; k += 4) {
    const int32_t ks[4] = {k, k + 1, k + 2, k + 3};
    /* the contacts are read in array order (the hardware fetches those
     * ahead; fetching them here as well cost more than it saved), the
     * groups in colour order: the group whose first lane a contact further
     * on fills, whole, for writing (each colour fills its groups front to
     * back) */
    for (int32_t a = k + SN_PREPARE_GROUP_AHEAD; a < k + SN_PREPARE_GROUP_AHEAD + 4 && a < end; ++a) {
      const int32_t slot = set->contact_slot[a];
      if (slot % L != 0) continue;
      const char *g = (const char *)(set->groups + slot / L);
      for (size_t at = 0; at < sizeof(sn_wide_group); at += 64) SN_PREFETCH_WRITE(g + at);
    }
    sn_wide_prepare_four(&in, ks, end - k < 4 ? end - k : 4);
  }
}

/// Groups ahead of the one being prepared whose contacts' lines (their
/// manifolds) and keys are fetched, and the group fetched for writing.
#define SN_PREPARE_CONTACTS_AHEAD 2

void sn_wide_prepare_groups(const sn_wide_set *set, const sn_world *w, const int32_t *contacts, const sn_wide_key *keys,
                            const sn_body_state *states, const sn_wide_body *bodies, int32_t begin, int32_t end,
                            int32_t dummy, const sn_softness *soft, const sn_softness *static_soft) {
  /* (begin 0: each group completes at its last lane, sn_wide_prepare_four) */
  const sn_prepare_input in = {set, 0, w, contacts, keys, states, bodies, dummy, soft, static_soft};
  for (int32_t gi = begin; gi < end; ++gi) {
    if (gi + SN_PREPARE_CONTACTS_AHEAD < end) {
      const int32_t ga = gi + SN_PREPARE_CONTACTS_AHEAD;
      const int32_t *ahead = set->lane_constraint + L * ga;
      for (int l = 0; l < L && ahead[l] >= 0; ++l) {
        const char *c = (const char *)(w->contacts.data + contacts[ahead[l]]);
        SN_PREFETCH(c);
        SN_PREFETCH(c + 64);
        SN_PREFETCH(c + 128);
        SN_PREFETCH(keys + ahead[l]);
      }
      const char *g = (const char *)(set->groups + gi + 1);
      for (size_t at = 0; at < sizeof(sn_wide_group); at += 64) SN_PREFETCH_WRITE(g + at);
    }
    const int32_t *lanes = set->lane_constraint + L * gi;
    int used = 0;
    while (used < L && lanes[used] >= 0) ++used;
    if (used == 0) {
      sn_wide_finish_group(set, gi, dummy);
      continue;
    }
    sn_wide_prepare_four(&in, lanes, used < 4 ? used : 4);
    if (used > 4) sn_wide_prepare_four(&in, lanes + 4, used - 4);
  }
}

void sn_wide_prepare_lanes(const sn_wide_set *set, int32_t begin, int32_t end, int32_t dummy, int32_t block) {
  for (int32_t gi = begin; gi < end; ++gi) {
    if (block > 0) {
      /* first and last contact of the group in one block: done there */
      const int32_t *lanes = set->lane_constraint + L * gi;
      int last = L - 1;
      while (last > 0 && lanes[last] < 0) --last;
      if (lanes[0] / block == lanes[last] / block) continue;
    }
    sn_wide_finish_group(set, gi, dummy);
  }
}

bool sn_wide_alloc_groups(sn_wide_set *set, sn_arena *arena, int32_t group_count) {
  set->group_count = group_count;
  set->use_avx2 = false;
  set->batch_count = 0;
  set->batch_runs = NULL;
  set->batch_run_first = NULL;
  set->batch_groups = NULL;
  /* 32-byte aligned groups: every lane row is one aligned 8-float load */
  char *raw = sn_arena_alloc(arena, (size_t)group_count * sizeof(sn_wide_group) + 32);
  if (raw == NULL) return false;
  set->groups = (sn_wide_group *)(void *)(raw + ((32u - ((uintptr_t)raw & 31u)) & 31u));
  return true;
}

bool sn_wide_build(sn_wide_set *set, sn_arena *arena, int32_t count, const int32_t *colors, int32_t group_count) {
  if (!sn_wide_alloc_groups(set, arena, group_count)) return false;
  set->lane_constraint = sn_arena_alloc(arena, (size_t)group_count * L * sizeof(int32_t) + 1);
  if (set->lane_constraint == NULL) return false;
  int32_t per_color[SN_MAX_COLORS + 1] = {0};
  for (int32_t k = 0; k < count; ++k) per_color[colors[k]]++;
  /* first lane of each colour; overflow contacts get one group each */
  int32_t cursor[SN_MAX_COLORS + 1];
  int32_t group = 0;
  for (int32_t c = 0; c < SN_MAX_COLORS; ++c) {
    cursor[c] = L * group;
    group += (per_color[c] + L - 1) / L;
  }
  cursor[SN_MAX_COLORS] = L * group;
  for (int32_t c = 0; c <= SN_MAX_COLORS; ++c) set->color_first[c] = cursor[c] / L;
  set->color_first[SN_MAX_COLORS + 1] = group_count;
  set->contact_slot = sn_arena_alloc(arena, (size_t)count * sizeof(int32_t) + 1);
  if (set->contact_slot == NULL) return false;
  for (int32_t i = 0; i < L * group_count; ++i) set->lane_constraint[i] = -1;
  for (int32_t k = 0; k < count; ++k) {
    int32_t c = colors[k];
    set->lane_constraint[cursor[c]] = k;
    set->contact_slot[k] = cursor[c];
    cursor[c] += c == SN_MAX_COLORS ? L : 1;
  }
  return true;
}

int32_t sn_wide_batches(const sn_wide_key *keys, int32_t count, int32_t body_count, int32_t target, int32_t max_batches,
                        int32_t *runs, int32_t *run_first, int32_t *batch_of, int32_t *parent) {
  if (body_count < 2 || max_batches < 2 || count == 0) return 0;
  /* Bodies made island by island sit near each other in the solver order,
   * and so do the two bodies of nearly every contact. A crowd whose
   * contacts join bodies far apart (a grid of boxes, a scrambled order) is
   * not looked at further: it is one island, or its islands interleave. */
  int32_t far = 0;
  for (int32_t i = 0; i < count; ++i) {
    const int32_t a = keys[i].ia, b = keys[i].ib;
    if (a < body_count && b < body_count && (a > b ? a - b : b - a) > SN_WIDE_BATCH_SPAN) far += 1;
  }
  if (far > count / SN_WIDE_BATCH_FAR_SHARE) return 0;
  /* The islands (every contact between two solver bodies joins them: a
   * kinematic body too, which both sides would otherwise integrate), each
   * rooted at its lowest body, and their contacts counted at the root. */
  for (int32_t k = 0; k < body_count; ++k) {
    parent[k] = k;
    batch_of[k] = 0;
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t a = keys[i].ia, b = keys[i].ib;
    if (a < body_count && b < body_count) sn_set_join(parent, a, b);
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t lo = keys[i].ia < keys[i].ib ? keys[i].ia : keys[i].ib;
    if (lo < body_count) batch_of[sn_set_root(parent, lo)] += 1;
  }
  /* Islands in the order of their lowest bodies join the open batch, which
   * closes once it holds target contacts; each body takes its island's
   * batch (the root comes first: its count becomes the batch). */
  int32_t n = 0, held = 0, largest = 0;
  bool open = false;
  for (int32_t k = 0; k < body_count; ++k) {
    const int32_t root = sn_set_root(parent, k);
    if (root != k) {
      batch_of[k] = batch_of[root];
      continue;
    }
    held += batch_of[k];
    batch_of[k] = n;
    open = true;
    if (held >= target) {
      if (held > largest) largest = held;
      n += 1;
      held = 0;
      open = false;
    }
  }
  if (open) {
    /* the last batch, short of the target */
    if (held > largest) largest = held;
    n += 1;
  }
  if (n < 2 || n > max_batches || 2 * largest > count) return 0;
  /* Each batch's bodies as runs of consecutive solver indices, batch by
   * batch, in index order: run r is [runs[2 r], runs[2 r + 1]), batch b's
   * runs are run_first[b] .. run_first[b + 1] - 1. */
  for (int32_t b = 0; b <= n; ++b) run_first[b] = 0;
  for (int32_t k = 0; k < body_count; ++k) {
    if (k == 0 || batch_of[k] != batch_of[k - 1]) run_first[batch_of[k] + 1] += 1;
  }
  for (int32_t b = 0; b < n; ++b) run_first[b + 1] += run_first[b];
  /* (parent is free again: the cursor of each batch) */
  for (int32_t b = 0; b < n; ++b) parent[b] = run_first[b];
  for (int32_t k = 0; k < body_count; ++k) {
    const int32_t b = batch_of[k];
    if (k == 0 || b != batch_of[k - 1]) {
      runs[2 * parent[b]] = k;
      parent[b] += 1;
    }
    runs[2 * parent[b] - 1] = k + 1;
  }
  return n;
}

/* The batch of contact i: that of its first solver body (both are in it). */
static inline int32_t sn_wide_contact_batch(const sn_wide_key *key, const int32_t *batch_of) {
  return batch_of[key->ia < key->ib ? key->ia : key->ib];
}

int32_t sn_wide_batched_groups(const int32_t *colors, const sn_wide_key *keys, int32_t count, const int32_t *batch_of,
                               int32_t batch_count, int32_t *batch_groups) {
  const int32_t entries = batch_count * SN_WIDE_COLORS;
  for (int32_t e = 0; e <= entries; ++e) batch_groups[e] = 0;
  /* contacts per batch and colour (an overflow contact is a group of its own) */
  for (int32_t i = 0; i < count; ++i)
    batch_groups[sn_wide_contact_batch(keys + i, batch_of) * SN_WIDE_COLORS + colors[i]] += 1;
  int32_t group = 0;
  for (int32_t e = 0; e < entries; ++e) {
    const int32_t n = batch_groups[e];
    batch_groups[e] = group;
    group += e % SN_WIDE_COLORS == SN_WIDE_OVERFLOW ? n : (n + L - 1) / L;
  }
  batch_groups[entries] = group;
  return group;
}

bool sn_wide_build_batches(sn_wide_set *set, sn_arena *arena, int32_t count, const int32_t *colors,
                           const sn_wide_key *keys, const int32_t *batch_of, int32_t batch_count,
                           const int32_t *batch_runs, const int32_t *batch_run_first, const int32_t *batch_groups,
                           int32_t group_count) {
  if (!sn_wide_alloc_groups(set, arena, group_count)) return false;
  set->batch_count = batch_count;
  set->batch_runs = batch_runs;
  set->batch_run_first = batch_run_first;
  set->batch_groups = batch_groups;
  set->lane_constraint = sn_arena_alloc(arena, (size_t)group_count * L * sizeof(int32_t) + 1);
  set->contact_slot = sn_arena_alloc(arena, (size_t)count * sizeof(int32_t) + 1);
  const int32_t entries = set->batch_count * SN_WIDE_COLORS;
  int32_t *cursor = sn_arena_alloc(arena, (size_t)entries * sizeof(int32_t) + 1);
  if (set->lane_constraint == NULL || set->contact_slot == NULL || cursor == NULL) return false;
  for (int32_t e = 0; e < entries; ++e) cursor[e] = L * set->batch_groups[e];
  for (int32_t i = 0; i < L * group_count; ++i) set->lane_constraint[i] = -1;
  for (int32_t k = 0; k < count; ++k) {
    const int32_t c = colors[k], e = sn_wide_contact_batch(keys + k, batch_of) * SN_WIDE_COLORS + c;
    set->lane_constraint[cursor[e]] = k;
    set->contact_slot[k] = cursor[e];
    cursor[e] += c == SN_MAX_COLORS ? L : 1;
  }
  return true;
}

bool sn_wide_index_contacts(sn_wide_set *set, sn_arena *arena, int32_t count) {
  set->contact_slot = sn_arena_alloc(arena, (size_t)count * sizeof(int32_t) + 1);
  if (set->contact_slot == NULL) return false;
  for (int32_t i = 0; i < L * set->group_count; ++i) {
    int32_t k = set->lane_constraint[i];
    if (k >= 0) set->contact_slot[k] = i;
  }
  return true;
}

void sn_wide_fill(const sn_wide_set *set, const sn_contact_constraint *cs, int32_t begin, int32_t end, int32_t dummy) {
  for (int32_t g = begin; g < end; ++g) {
    for (int l = 0; l < L; ++l) {
      int32_t k = set->lane_constraint[L * g + l];
      sn_wide_set_lane(set, g, l, k >= 0 ? cs + k : NULL, dummy);
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

/* ---- 4 lanes: half `off` (0 or 4) of a group ---- */
#define V                          f4
#define v_set                      f4_set
#define v_add                      f4_add
#define v_sub                      f4_sub
#define v_mul                      f4_mul
#define v_max                      f4_max
#define v_min                      f4_min
#define v_gt                       f4_gt
#define v_ge                       f4_ge
#define v_lt                       f4_lt
#define v_and                      f4_and
#define v_select                   f4_select
#define LD(f)                      f4_load(g->f + off)
#define LDP(p)                     f4_load(p)
#define SEQ_BITS                   ((g->seq_lanes >> off) & 15)
#define ROLLING_BITS               ((g->rolling_lanes >> off) & 15)
#define TANGENT_BITS               ((g->tangent_lanes >> off) & 15)
#define ST(f, x)                   f4_store(g->f + off, (x))
#define GATHER_V(side, a, b, c, d) sn_gather_v(states, g->side + off, &a, &b, &c, &d)
#define GATHER_ALL(side, a, b, c, d, e, f, q, r)                                                                       \
  do {                                                                                                                 \
    sn_gather_v(states, g->side + off, &a, &b, &c, &d);                                                                \
    sn_gather_d(states, g->side + off, &e, &f, &q, &r);                                                                \
  } while (0)
#define SCATTER_V(side, a, b, c, d) sn_scatter_v(states, g->side + off, (g->side##_write >> off) & 15, a, b, c, d)
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
#undef LDP
#undef SEQ_BITS
#undef ROLLING_BITS
#undef TANGENT_BITS
#undef ST
#undef GATHER_V
#undef GATHER_ALL
#undef SCATTER_V
#undef KFN
#undef KATTR

#if SN_HAVE_AVX2
/* ---- 8 lanes: a whole group, with AVX2 ---- */
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
#define V            f8
#define v_set        f8_set
#define v_add        f8_add
#define v_sub        f8_sub
#define v_mul        f8_mul
#define v_max        f8_max
#define v_min        f8_min
#define v_gt         f8_gt
#define v_ge         f8_ge
#define v_lt         f8_lt
#define v_and        f8_and
#define v_select     f8_select
#define LD(f)        _mm256_load_ps(g->f)
#define LDP(p)       _mm256_load_ps(p)
#define SEQ_BITS     (g->seq_lanes)
#define ROLLING_BITS (g->rolling_lanes)
#define TANGENT_BITS (g->tangent_lanes)
#define ST(f, x)     _mm256_store_ps(g->f, (x))
/* v.x, v.y, w, pad of eight bodies: rows l and l + 4 share a register,
 * then the inverse of the scatter's 4x8 transpose. */
SN_AVX2 __attribute__((always_inline)) static inline void sn_gather8_v(const sn_body_state *s, const int32_t *idx,
                                                                       f8 *vx, f8 *vy, f8 *w, f8 *pad) {
  f8 u0 = f8_join(f4_load(&s[idx[0]].v.x), f4_load(&s[idx[4]].v.x));
  f8 u1 = f8_join(f4_load(&s[idx[1]].v.x), f4_load(&s[idx[5]].v.x));
  f8 u2 = f8_join(f4_load(&s[idx[2]].v.x), f4_load(&s[idx[6]].v.x));
  f8 u3 = f8_join(f4_load(&s[idx[3]].v.x), f4_load(&s[idx[7]].v.x));
  f8 t0 = _mm256_unpacklo_ps(u0, u1), t1 = _mm256_unpackhi_ps(u0, u1);
  f8 t2 = _mm256_unpacklo_ps(u2, u3), t3 = _mm256_unpackhi_ps(u2, u3);
  *vx = _mm256_shuffle_ps(t0, t2, 0x44);
  *vy = _mm256_shuffle_ps(t0, t2, 0xEE);
  *w = _mm256_shuffle_ps(t1, t3, 0x44);
  *pad = _mm256_shuffle_ps(t1, t3, 0xEE);
}
#define GATHER_V(side, a, b, c, d) sn_gather8_v(states, g->side, &a, &b, &c, &d)
/* The whole 32-byte states of eight bodies, transposed: eight loads and
 * 24 shuffles instead of two 4x4 transposes per half and kind. */
SN_AVX2 __attribute__((always_inline)) static inline void sn_gather8_all(const sn_body_state *s, const int32_t *idx,
                                                                         f8 *out) {
  f8 r0 = _mm256_loadu_ps(&s[idx[0]].v.x), r1 = _mm256_loadu_ps(&s[idx[1]].v.x);
  f8 r2 = _mm256_loadu_ps(&s[idx[2]].v.x), r3 = _mm256_loadu_ps(&s[idx[3]].v.x);
  f8 r4 = _mm256_loadu_ps(&s[idx[4]].v.x), r5 = _mm256_loadu_ps(&s[idx[5]].v.x);
  f8 r6 = _mm256_loadu_ps(&s[idx[6]].v.x), r7 = _mm256_loadu_ps(&s[idx[7]].v.x);
  f8 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  f8 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  f8 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  f8 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  f8 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  f8 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  f8 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  f8 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  out[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  out[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  out[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  out[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  out[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  out[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  out[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  out[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
#define GATHER_ALL(side, a, b, c, d, e, f, q, r)                                                                       \
  do {                                                                                                                 \
    f8 all_[8];                                                                                                        \
    sn_gather8_all(states, g->side, all_);                                                                             \
    a = all_[0];                                                                                                       \
    b = all_[1];                                                                                                       \
    c = all_[2];                                                                                                       \
    d = all_[3];                                                                                                       \
    e = all_[4];                                                                                                       \
    f = all_[5];                                                                                                       \
    q = all_[6];                                                                                                       \
    r = all_[7];                                                                                                       \
  } while (0)
/* Velocities of eight bodies back (lanes whose bit is clear in `write`
 * are left alone): 4x8 transposed into eight 16-byte rows. */
SN_AVX2 __attribute__((always_inline)) static inline void sn_scatter8_v(sn_body_state *s, const int32_t *idx,
                                                                        int32_t write, f8 vx, f8 vy, f8 w, f8 pad) {
  f8 t0 = _mm256_unpacklo_ps(vx, vy), t1 = _mm256_unpackhi_ps(vx, vy);
  f8 t2 = _mm256_unpacklo_ps(w, pad), t3 = _mm256_unpackhi_ps(w, pad);
  f8 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  f8 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  /* u0 holds bodies 0 and 4, u1 1 and 5, u2 2 and 6, u3 3 and 7 */
  f4 r0 = f8_lo(u0), r1 = f8_lo(u1), r2 = f8_lo(u2), r3 = f8_lo(u3);
  f4 r4 = f8_hi(u0), r5 = f8_hi(u1), r6 = f8_hi(u2), r7 = f8_hi(u3);
  if (write == 0xFF) {
    f4_store(&s[idx[0]].v.x, r0);
    f4_store(&s[idx[1]].v.x, r1);
    f4_store(&s[idx[2]].v.x, r2);
    f4_store(&s[idx[3]].v.x, r3);
    f4_store(&s[idx[4]].v.x, r4);
    f4_store(&s[idx[5]].v.x, r5);
    f4_store(&s[idx[6]].v.x, r6);
    f4_store(&s[idx[7]].v.x, r7);
    return;
  }
  if (write & 1) f4_store(&s[idx[0]].v.x, r0);
  if (write & 2) f4_store(&s[idx[1]].v.x, r1);
  if (write & 4) f4_store(&s[idx[2]].v.x, r2);
  if (write & 8) f4_store(&s[idx[3]].v.x, r3);
  if (write & 16) f4_store(&s[idx[4]].v.x, r4);
  if (write & 32) f4_store(&s[idx[5]].v.x, r5);
  if (write & 64) f4_store(&s[idx[6]].v.x, r6);
  if (write & 128) f4_store(&s[idx[7]].v.x, r7);
}
#define SCATTER_V(side, a, b, c, d) sn_scatter8_v(states, g->side, g->side##_write, a, b, c, d)
#define KFN(name)                   sn_wide8_##name
#define KATTR                       SN_AVX2
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
_Static_assert(L == 8 && offsetof(sn_wide_group, ia) % 32 == 0 && sizeof(sn_wide_group) % 32 == 0 &&
                   sizeof(float[L]) == 32,
               "lane rows are 32 bytes");

/// Groups ahead whose bodies' states the solve and relax fetch, and whose
/// body indices they fetch.
#define SN_STATES_AHEAD 3
#define SN_INDEX_AHEAD  6

/* The states of group g's sixteen bodies, for writing (solve and relax).
 * A pass streams the groups (megabytes in a large pile) through the caches
 * and pushes the states out of them. The warm start does not fetch: it
 * gained nothing measurable from this, nor from fetching its groups' lines
 * ahead. */
static inline void sn_wide_prefetch_states(const sn_wide_group *g, const sn_body_state *states) {
  for (int l = 0; l < L; ++l) {
    SN_PREFETCH_WRITE(states + g->ia[l]);
    SN_PREFETCH_WRITE(states + g->ib[l]);
  }
}

/* Groups [g, end): 8 lanes at once with AVX2, else two halves of 4 (the
 * second only if it has a contact). */
void sn_wide_warm_range(const sn_wide_set *set, sn_body_state *states, int32_t g, int32_t end) {
#if SN_HAVE_AVX2
  if (set->use_avx2) {
    for (; g < end; ++g) sn_wide8_warm_group(states, set->groups + g, 0);
    return;
  }
#endif
  for (; g < end; ++g) {
    sn_wide4_warm_group(states, set->groups + g, 0);
    if (set->groups[g].lanes > 4) sn_wide4_warm_group(states, set->groups + g, 4);
  }
}

void sn_wide_solve_range(const sn_wide_set *set, sn_body_state *states, int32_t g, int32_t end, float inv_h, float push,
                         bool use_bias) {
  for (int32_t a = g; a < g + SN_INDEX_AHEAD && a < end; ++a) {
    SN_PREFETCH(set->groups[a].ia);
    SN_PREFETCH(set->groups[a].ib);
  }
  for (int32_t a = g; a < g + SN_STATES_AHEAD && a < end; ++a) sn_wide_prefetch_states(set->groups + a, states);
  for (; g < end; ++g) {
    if (g + SN_INDEX_AHEAD < end) {
      SN_PREFETCH(set->groups[g + SN_INDEX_AHEAD].ia);
      SN_PREFETCH(set->groups[g + SN_INDEX_AHEAD].ib);
    }
    if (g + SN_STATES_AHEAD < end) sn_wide_prefetch_states(set->groups + g + SN_STATES_AHEAD, states);
#if SN_HAVE_AVX2
    if (set->use_avx2) {
      sn_wide8_solve_group(states, set->groups + g, 0, use_bias, inv_h, push);
      continue;
    }
#endif
    sn_wide4_solve_group(states, set->groups + g, 0, use_bias, inv_h, push);
    if (set->groups[g].lanes > 4) sn_wide4_solve_group(states, set->groups + g, 4, use_bias, inv_h, push);
  }
}

void sn_wide_solve(const sn_wide_set *set, sn_body_state *states, float inv_h, float push, bool use_bias) {
  sn_wide_solve_range(set, states, 0, set->group_count, inv_h, push, use_bias);
}

void sn_wide_restitution_range(const sn_wide_set *set, sn_body_state *states, int32_t begin, int32_t end,
                               float threshold) {
  for (int32_t gi = begin; gi < end; ++gi) {
    sn_wide_group *g = set->groups + gi;
    for (int l = 0; l < g->lanes; ++l) {
      float e = g->restitution[l];
      if (e == 0.0f || g->points[l] == 0) continue;
      sn_body_state *a = states + g->ia[l], *b = states + g->ib[l];
      sn_vec2 va = a->v, vb = b->v;
      float wa = a->w, wb = b->w;
      sn_vec2 n = {g->nx[l], g->ny[l]};
      for (int j = 0; j < g->points[l]; ++j) {
        float *rv = j == 0 ? g->rv1 : g->rv2, *mni = j == 0 ? g->mni1 : g->mni2, *ni = j == 0 ? g->ni1 : g->ni2;
        const float *nm = j == 0 ? g->nm1 : g->nm2;
        /* r x n of each body's anchor */
        const float rna = j == 0 ? g->rn1a[l] : g->rn2a[l], rnb = j == 0 ? g->rn1b[l] : g->rn2b[l];
        /* bounce only points that approached fast enough and actually pushed */
        if (rv[l] > -threshold || mni[l] == 0.0f) continue;
        /* (vB + wB x rB - vA - wA x rA) . n, as the passes take it */
        float vn = sn_dot(sn_sub(vb, va), n) + (wb * rnb - wa * rna);
        float impulse = -nm[l] * (vn + e * rv[l]);
        float new_impulse = sn_maxf(ni[l] + impulse, 0.0f);
        impulse = new_impulse - ni[l];
        ni[l] = new_impulse;
        mni[l] = sn_maxf(mni[l], impulse);
        sn_vec2 P = sn_scale(impulse, n);
        va = sn_mul_sub(va, g->ma[l], P);
        wa -= g->iia[l] * (impulse * rna);
        vb = sn_mul_add(vb, g->mb[l], P);
        wb += g->iib[l] * (impulse * rnb);
      }
      /* only bodies the contact can change (the static slot stays still) */
      if (g->ia_write & (1 << l)) {
        a->v = va;
        a->w = wa;
      }
      if (g->ib_write & (1 << l)) {
        b->v = vb;
        b->w = wb;
      }
    }
  }
}

void sn_wide_get_result(const sn_wide_set *set, int32_t group, int l, sn_wide_result *out) {
  const sn_wide_group *g = set->groups + group;
  out->point_count = g->points[l];
  out->normal_impulse[0] = g->ni1[l];
  out->normal_impulse[1] = g->ni2[l];
  out->tangent_impulse[0] = g->ti1[l];
  out->tangent_impulse[1] = g->ti2[l];
  out->max_normal_impulse[0] = g->mni1[l];
  out->max_normal_impulse[1] = g->mni2[l];
  out->relative_velocity[0] = g->rv1[l];
  out->relative_velocity[1] = g->rv2[l];
}

/// Solver contacts ahead whose manifold and lane the impulse store fetches.
#define SN_STORE_AHEAD 8

bool sn_wide_store_range(const sn_wide_set *set, sn_world *w, const int32_t *contacts, int32_t begin, int32_t end) {
  bool hits = false;
  /* (the flags sit in another cache line than the points: read only when
   * some contact has hit events) */
  const bool any_hits = w->hit_contacts > 0;
  for (int32_t k = begin; k < end; ++k) {
    if (k + SN_STORE_AHEAD < end) {
      /* the lines of the manifold's points a little ahead (the contacts
       * are not line-aligned: three or four lines; gaps where a contact
       * does not touch), and the lines of its lane's results: the lanes
       * are in colour order, scattered over the groups */
      const char *p = (const char *)(w->contacts.data + contacts[k + SN_STORE_AHEAD]);
      const char *first = p + offsetof(sn_contact, manifold.points);
      SN_PREFETCH_WRITE(first);
      SN_PREFETCH_WRITE(first + 64);
      SN_PREFETCH_WRITE(p + offsetof(sn_contact, manifold.points[1]));
      SN_PREFETCH_WRITE(p + offsetof(sn_contact, manifold.point_count));
      const int32_t slot = set->contact_slot[k + SN_STORE_AHEAD];
      const sn_wide_group *g = set->groups + slot / L;
      const int l = slot % L;
      SN_PREFETCH(g->points + l);
      SN_PREFETCH(g->ni1 + l);
      SN_PREFETCH(g->ti1 + l);
      SN_PREFETCH(g->mni1 + l);
      SN_PREFETCH(g->rv1 + l);
    }
    sn_contact *c = w->contacts.data + contacts[k];
    hits = hits || (any_hits && (c->flags & SN_CONTACT_ENABLE_HIT) != 0);
    const int32_t slot = set->contact_slot[k];
    sn_wide_result r;
    sn_wide_get_result(set, slot / L, slot % L, &r);
    sn_manifold *m = &c->manifold;
    for (int32_t j = 0; j < m->point_count; ++j) {
      bool kept = j < r.point_count;
      m->points[j].normal_impulse = kept ? r.normal_impulse[j] : 0.0f;
      m->points[j].tangent_impulse = kept ? r.tangent_impulse[j] : 0.0f;
      m->points[j].max_normal_impulse = kept ? r.max_normal_impulse[j] : 0.0f;
      if (kept) m->points[j].normal_velocity = r.relative_velocity[j];
    }
  }
  return hits;
}

void sn_wide_store(const sn_wide_set *set, sn_contact_constraint *cs) {
  for (int32_t gi = 0; gi < set->group_count; ++gi) {
    for (int l = 0; l < L; ++l) {
      int32_t k = set->lane_constraint[L * gi + l];
      if (k < 0) continue;
      sn_wide_result r;
      sn_wide_get_result(set, gi, l, &r);
      for (int j = 0; j < r.point_count; ++j) {
        sn_constraint_point *p = cs[k].points + j;
        p->normal_impulse = r.normal_impulse[j];
        p->tangent_impulse = r.tangent_impulse[j];
        p->max_normal_impulse = r.max_normal_impulse[j];
        p->relative_velocity = r.relative_velocity[j];
      }
    }
  }
}

/* One body: the rotation bounded per substep, then pose and speed. */
static void sn_integrate_one(sn_body_state *s, float h, float max_rotation, float max_speed_sq) {
  /* bound the rotation per substep so the linearised rotation stays sane */
  float dtheta = h * s->w;
  if (dtheta * dtheta > max_rotation * max_rotation) {
    s->w *= max_rotation / sn_absf(dtheta);
    dtheta = h * s->w;
  }
  s->dq = sn_integrate_rotation(s->dq, dtheta);
  /* the speed limit bounds the motion of the substep: the warm start and
   * the solve may have pushed past what the velocity integration clamped */
  s->v = sn_clamp_length(s->v, max_speed_sq);
  s->dp = sn_mul_add(s->dp, h, s->v);
}

void sn_wide_integrate_positions(sn_body_state *states, int32_t begin, int32_t end, float h, float max_rotation,
                                 float max_speed_sq) {
  const f4 vh = f4_set(h), zero = f4_set(0.0f), one = f4_set(1.0f);
  const f4 rot_sq = f4_set(max_rotation * max_rotation), speed_sq = f4_set(max_speed_sq);
  int32_t i = begin;
  for (; i + 4 <= end; i += 4) {
    sn_body_state *s = states + i;
    f4 vx = f4_load(&s[0].v.x), vy = f4_load(&s[1].v.x), w = f4_load(&s[2].v.x), pad = f4_load(&s[3].v.x);
    f4_transpose(&vx, &vy, &w, &pad);
    f4 dtheta = f4_mul(vh, w);
    f4 len_sq = f4_add(f4_mul(vx, vx), f4_mul(vy, vy));
    if (f4_mask_bits(f4_gt(f4_mul(dtheta, dtheta), rot_sq)) | f4_mask_bits(f4_gt(len_sq, speed_sq))) {
      /* a bound applies somewhere: these four one at a time */
      for (int k = 0; k < 4; ++k) sn_integrate_one(s + k, h, max_rotation, max_speed_sq);
      continue;
    }
    f4 dx = f4_load(&s[0].dp.x), dy = f4_load(&s[1].dp.x), qc = f4_load(&s[2].dp.x), qs = f4_load(&s[3].dp.x);
    f4_transpose(&dx, &dy, &qc, &qs);
    /* sn_integrate_rotation, lane by lane in the same order */
    f4 c2 = f4_sub(qc, f4_mul(dtheta, qs)), s2 = f4_add(qs, f4_mul(dtheta, qc));
    f4 mag = f4_sqrt(f4_add(f4_mul(s2, s2), f4_mul(c2, c2)));
    f4 inv = f4_select(f4_gt(mag, zero), f4_div(one, mag), zero);
    qc = f4_mul(c2, inv);
    qs = f4_mul(s2, inv);
    dx = f4_add(dx, f4_mul(vh, vx));
    dy = f4_add(dy, f4_mul(vh, vy));
    f4_transpose(&dx, &dy, &qc, &qs);
    f4_store(&s[0].dp.x, dx);
    f4_store(&s[1].dp.x, dy);
    f4_store(&s[2].dp.x, qc);
    f4_store(&s[3].dp.x, qs);
  }
  for (; i < end; ++i) sn_integrate_one(states + i, h, max_rotation, max_speed_sq);
}
