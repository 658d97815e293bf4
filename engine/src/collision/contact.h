/* Contacts (internal): the contact object, kept in the world's contact array
 * (world/world.h), linked into its two bodies' contact lists, and what
 * contact.c does with contacts: pair finding from the broadphase, the
 * narrowphase (manifolds, begin and end events). */
#ifndef SN_COLLISION_CONTACT_H
#define SN_COLLISION_CONTACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

#include "collision/manifold.h"

typedef struct sn_shape sn_shape; /* rigid/shape.h */

/// Contact edge key: (contact index << 1) | side (0 = shape A's body, 1 = B's).
#define SN_EDGE_KEY(contact, side) (((contact) << 1) | (side))

typedef struct sn_contact_edge {
  int32_t body;
  int32_t prev_key, next_key;
} sn_contact_edge;

enum {
  SN_CONTACT_TOUCHING = 1u << 0,
  SN_CONTACT_ENABLE_EVENTS = 1u << 1,
  SN_CONTACT_ENABLE_HIT = 1u << 2,
  SN_CONTACT_HAS_REFERENCE = 1u << 3,    ///< reference holds the last computed manifold (contact.c)
  SN_CONTACT_ENABLE_PRE_SOLVE = 1u << 4, ///< a shape asks for the pre-solve callback
  SN_CONTACT_DISABLED = 1u << 5,         ///< the pre-solve callback left it out of this step's solve
};

/// The manifold as last computed, in the bodies' frames: the relative pose
/// of B in A's frame then, the normal in A's frame and each point's surface
/// points on A (A's frame) and on B (B's frame). While the smaller body has
/// moved less than the world's contact_reuse_distance in the other's frame
/// since then, the manifold keeps its features and the points move with the
/// bodies (contact.c).
typedef struct sn_contact_reference {
  sn_transform relative;
  sn_vec2 normal;
  sn_vec2 local_a[2], local_b[2];
} sn_contact_reference;

typedef struct sn_contact {
  int32_t shape_a, shape_b;
  /* the material, in the first cache line with the shapes: the solver's
   * preparation reads it with the manifold */
  float friction, restitution;
  float tangent_speed;      ///< the two shapes' surface speeds added
  float rolling_resistance; ///< the larger coefficient x rolling radius of the two shapes
  sn_contact_edge edges[2];
  sn_manifold manifold;
  sn_simplex_cache cache;
  sn_contact_reference reference; ///< valid with SN_CONTACT_HAS_REFERENCE
  uint32_t flags;
  bool in_use;
  int32_t next_free;
} sn_contact;

/// A body's contacts up to this many can never land in the colouring's
/// overflow (a contact overflows when its two dynamic bodies use all 64
/// colours between them, so one of them has at least 32 coloured contacts):
/// the overflow is at most w->contact_excess (world/step.c sizes the step by it).
#define SN_COLOR_FREE_CONTACTS 32

/// The group, category and mask rules of sn_filter (no body or sensor test).
bool sn_filters_pass(const sn_shape *a, const sn_shape *b);
/// The tree query mask that finds every shape s may collide with (all
/// categories for a shape of a positive group).
uint64_t sn_shape_query_mask(const sn_shape *s);
/// Whether two shapes make a contact: filters, bodies, sensors, joints, and
/// the custom filter (called under the world lock) when one opted in.
bool sn_should_shapes_collide(sn_world *w, const sn_shape *a, const sn_shape *b);
/// Whether a constraint that keeps them from colliding joins bodies a and b.
bool sn_bodies_joined(const sn_world *w, int32_t a, int32_t b);
/// Copies an internal manifold to its public form (impulses per step: the
/// substep's times substeps).
void sn_manifold_to_public(const sn_manifold *m, int32_t substeps, sn_contact_manifold *out);
void sn_contact_destroy(sn_world *w, int32_t contact_index, bool wake);
/// The contact's material from its two shapes: friction and restitution by
/// the world's mixing rules (its callbacks, else sqrt(fa fb) and max(ra, rb)),
/// tangent speeds added, rolling resistance the larger coefficient x rolling radius.
void sn_contact_mix_materials(const sn_world *w, sn_contact *c);
/// Pair finding from the move buffer into w->new_pairs (after the dynamic
/// tree's sn_tree_rebuild_moved), changing nothing a caller sees; false on OOM.
bool sn_find_new_pairs(sn_world *w);
/// Takes back what sn_find_new_pairs did (a step that failed).
void sn_forget_new_pairs(sn_world *w);
/// Room in the contact array for the new pairs' contacts; false on OOM.
bool sn_reserve_new_contacts(sn_world *w);
/// Makes the contacts of the new pairs (room reserved: no allocation).
void sn_create_new_pairs(sn_world *w);
/// Manifold update of active contacts, begin and end events (everything
/// reserved: no allocation).
void sn_update_contacts(sn_world *w);

/// Arena bytes sn_update_contacts uses (the narrowphase's stage runner).
size_t sn_narrowphase_scratch_bytes(void);

#endif /* SN_COLLISION_CONTACT_H */
