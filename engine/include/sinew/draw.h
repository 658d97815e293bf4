/* Sinew: a 2D physics engine for rigid and soft bodies.
 * draw.h: the debug-draw API. sn_world_draw() walks the world and calls the
 * user's callbacks for what the flags select: shapes, bounding boxes, the
 * broadphase tree, contact points / normals / impulses, constraints (each
 * type draws itself through its plugin's debug_draw), constraint forces,
 * body frames and particles. A renderer (the sandbox, a game's debug view)
 * needs nothing else to show a world: it never reads engine internals.
 *
 * Colours are 0xRRGGBBAA. Positions are world coordinates in metres; sizes
 * of points are in pixels (the renderer decides what a pixel is).
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_DRAW_H
#define SINEW_DRAW_H

#include "sinew/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What sn_world_draw draws (bits of sn_debug_draw.flags).
typedef enum sn_debug_draw_flags {
  SN_DRAW_SHAPES = 1u << 0,           ///< every shape, coloured by body type and sleep state (sensors translucent cyan)
  SN_DRAW_AABBS = 1u << 1,            ///< fat bounding boxes of shapes (as stored in the broadphase)
  SN_DRAW_TREE = 1u << 2,             ///< internal nodes of the broadphase trees (static and dynamic)
  SN_DRAW_CONTACT_POINTS = 1u << 3,   ///< manifold points (touching, speculative, new)
  SN_DRAW_CONTACT_NORMALS = 1u << 4,  ///< contact normals from A to B at each point
  SN_DRAW_CONTACT_IMPULSES = 1u << 5, ///< normal and friction forces of the last step (force_scale)
  SN_DRAW_JOINTS = 1u << 6,           ///< constraints, through their type's debug_draw callback
  SN_DRAW_PARTICLES = 1u << 7,        ///< soft-body particles
  SN_DRAW_CONSTRAINT_FORCES = 1u << 8, ///< reaction force on each constraint's second body, with its value
  SN_DRAW_TRANSFORMS = 1u << 9,        ///< body frames (origin, x and y axes)
  SN_DRAW_ALL = (1u << 10) - 1u
} sn_debug_draw_flags;

/// Callbacks and settings for sn_world_draw. Start from
/// sn_default_debug_draw(); any callback may be NULL (that primitive is then
/// skipped). segment, point and circle have exactly the signatures of
/// sn_draw_api in sinew/plugin.h: plugins draw through them.
typedef struct sn_debug_draw {
  /// Solid convex polygon (world vertices, counter-clockwise), rounded by radius (0 = sharp).
  void (*polygon)(const sn_vec2 *vertices, int32_t count, float radius, uint32_t rgba, void *context);
  /// Solid circle placed by xf (xf.p the centre; xf.q orients a spoke that shows rotation).
  void (*solid_circle)(sn_transform xf, float radius, uint32_t rgba, void *context);
  /// Solid capsule: the segment p1-p2 inflated by radius.
  void (*capsule)(sn_vec2 p1, sn_vec2 p2, float radius, uint32_t rgba, void *context);
  /// Line segment.
  void (*segment)(sn_vec2 a, sn_vec2 b, uint32_t rgba, void *context);
  /// Point of size pixels.
  void (*point)(sn_vec2 p, float size, uint32_t rgba, void *context);
  /// Circle outline.
  void (*circle)(sn_vec2 center, float radius, uint32_t rgba, void *context);
  /// A frame: x axis red, y axis green, axis_length metres long.
  void (*transform)(sn_transform xf, float axis_length, void *context);
  /// A short label anchored at p (the string is only valid during the call).
  void (*string)(sn_vec2 p, const char *text, uint32_t rgba, void *context);
  void *context;     ///< passed to every callback
  uint32_t flags;    ///< sn_debug_draw_flags; default SN_DRAW_SHAPES | SN_DRAW_JOINTS | SN_DRAW_PARTICLES
  float force_scale; ///< metres of line per newton for impulses and forces; default 0.01
  float axis_length; ///< metres, for SN_DRAW_TRANSFORMS and contact normals; default 0.3
  bool use_bounds;   ///< draw only what overlaps bounds (culling); default false
  sn_aabb bounds;    ///< world box to draw when use_bounds
  int32_t cookie;    ///< set by sn_default_debug_draw
} sn_debug_draw;

/// Default debug-draw settings: no callbacks, shapes + joints + particles.
SN_API sn_debug_draw sn_default_debug_draw(void);

/// Calls draw's callbacks for everything its flags select, in this order:
/// tree, AABBs, shapes, particles, transforms, joints, constraint forces,
/// contacts. Call between steps or from a callback (SN_ERR_WORLD_LOCKED
/// inside a step). Every callback, the constraint types' debug_draw
/// included, runs on a locked world: it may read and query the world, and a
/// call that would change it returns SN_ERR_WORLD_LOCKED. Refuses a
/// NULL world or draw (SN_ERR_NULL), a draw not made by sn_default_debug_draw
/// (SN_ERR_UNINITIALIZED_DEF), unknown flag bits, a NaN or negative scale or
/// inverted bounds (SN_ERR_INVALID_ARGUMENT / SN_ERR_NOT_FINITE). Allocates
/// nothing and changes nothing in the world.
SN_API sn_result sn_world_draw(sn_world *world, const sn_debug_draw *draw);

/// What an overlay shows about a world (all counts of live objects).
typedef struct sn_debug_counts {
  int32_t bodies, dynamic_bodies, awake_bodies, shapes;
  int32_t contacts, touching_contacts, contact_points; ///< contact_points: of touching contacts
  int32_t constraints, particles;
  int32_t tree_nodes; ///< internal + leaf nodes of both broadphase trees
} sn_debug_counts;

/// Fills *out (zeroed first). SN_ERR_NULL if world or out is NULL.
SN_API sn_result sn_world_get_debug_counts(sn_world *world, sn_debug_counts *out);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_DRAW_H */
