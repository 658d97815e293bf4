/* The common interface of sinew-bench's peer engines (Box2D 2.4, Chipmunk 7).
 *
 * bench/peers.c describes a standard scene once (sn_peer_scene: static boxes,
 * dynamic boxes and circles, pin joints), each driver instantiates it in its
 * engine, steps it and reports the dynamic bodies' states in creation order;
 * peers.c then measures every engine with the same code. Plain C so the
 * Box2D driver (C++) and the Chipmunk driver (C) share it. */
#ifndef SINEW_BENCH_PEER_H
#define SINEW_BENCH_PEER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sn_peer_shape { SN_PEER_BOX = 0, SN_PEER_CIRCLE = 1 } sn_peer_shape;

/// A body of a scene: a box of half extents (hx, hy) or a circle of radius hx,
/// centred on its body, at rest at (x, y) with angle 0.
typedef struct sn_peer_body {
  sn_peer_shape shape;
  float hx, hy;
  float x, y;
  float density, friction, restitution;
} sn_peer_body;

/// A pin (revolute) joint at world point (x, y) between dynamic body a (or a
/// static body with no shape when a < 0) and dynamic body b; joined bodies
/// do not collide with each other.
typedef struct sn_peer_joint {
  int32_t a, b;
  float x, y;
} sn_peer_joint;

/// One standard scene, in SI units; gravity (0, gravity_y), sleeping off.
typedef struct sn_peer_scene {
  const sn_peer_body *statics;
  int32_t static_count;
  const sn_peer_body *bodies; ///< dynamic, creation order
  int32_t body_count;
  const sn_peer_joint *joints;
  int32_t joint_count;
  float gravity_y;
} sn_peer_scene;

/// A dynamic body's state for the metrics.
typedef struct sn_peer_state {
  double x, y, angle;
  double vx, vy, w;
  double mass, inertia; ///< inertia about the centre of mass
} sn_peer_state;

/// A peer engine. `build` returns NULL on failure; the scene's arrays may be
/// freed once it returns.
typedef struct sn_peer {
  const char *engine;   ///< "box2d-2.4.1", as printed in the JSON line
  const char *settings; ///< what decides its cost and quality
  void *(*build)(const sn_peer_scene *scene);
  void (*step)(void *world, float dt);
  void (*state)(void *world, int32_t body, sn_peer_state *out);
  void (*destroy)(void *world);
} sn_peer;

#ifdef SINEW_HAVE_BOX2D
extern const sn_peer sn_peer_box2d;
#endif
#ifdef SINEW_HAVE_CHIPMUNK
extern const sn_peer sn_peer_chipmunk;
#endif

#ifdef __cplusplus
}
#endif

#endif
