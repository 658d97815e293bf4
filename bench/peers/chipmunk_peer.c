#define _POSIX_C_SOURCE 200809L
/* Chipmunk 7 driver of sinew-bench --peers (see peer.h).
 *
 * Settings: 30 iterations, as Chipmunk's own stacking demo (PyramidStack;
 * cpSpaceNew's default of 10 lets pyramid 50 and tower 20 collapse: see
 * docs/benchmark.md), collisionSlop 0.005 m (Box2D's linear slop; the
 * default of 0.1 assumes pixel units, 10 cm of overlap here), the rest
 * cpSpaceNew's defaults (collision bias, bounding box tree). Sleeping is off
 * (Chipmunk's default). Chipmunk multiplies the two
 * shapes' frictions while Box2D and Sinew take sqrt(a * b): shapes get
 * sqrt(friction) so that every pair has the scene's friction. Debian's
 * libchipmunk is built with its assertions on. */
#include "peer.h"

#include <chipmunk/chipmunk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SN_CHIPMUNK_ITERATIONS 30
#define SN_CHIPMUNK_SLOP       0.005

typedef struct sn_chipmunk_world {
  cpSpace *space;
  cpBody **bodies; /* dynamic, scene order */
  int32_t body_count;
  cpShape **shapes;
  int32_t shape_count;
  cpConstraint **joints;
  int32_t joint_count;
} sn_chipmunk_world;

static void sn_chipmunk_destroy(void *world) {
  sn_chipmunk_world *w = world;
  if (w == NULL) return;
  if (w->space != NULL) cpSpaceFree(w->space);
  for (int32_t k = 0; k < w->joint_count; ++k) cpConstraintFree(w->joints[k]);
  for (int32_t k = 0; k < w->shape_count; ++k) cpShapeFree(w->shapes[k]);
  for (int32_t k = 0; k < w->body_count; ++k) cpBodyFree(w->bodies[k]);
  free(w->joints);
  free(w->shapes);
  free(w->bodies);
  free(w);
}

static void sn_chipmunk_material(cpShape *shape, const sn_peer_body *d) {
  cpShapeSetFriction(shape, sqrt((double)d->friction));
  cpShapeSetElasticity(shape, sqrt((double)d->restitution));
}

/* A debug build of Chipmunk (Debian's) prints a banner on stdout at its
 * first cpSpaceNew; the benchmark's stdout is JSON lines, so the first space
 * is made with stdout sent to stderr. */
static bool sn_chipmunk_banner_done = false;

static void sn_chipmunk_banner_to_stderr(void) {
  if (sn_chipmunk_banner_done) return;
  sn_chipmunk_banner_done = true;
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  if (saved < 0) return;
  if (dup2(STDERR_FILENO, STDOUT_FILENO) >= 0) {
    cpSpace *space = cpSpaceNew();
    if (space != NULL) cpSpaceFree(space);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
  }
  close(saved);
}

static void *sn_chipmunk_build(const sn_peer_scene *s) {
  sn_chipmunk_banner_to_stderr();
  sn_chipmunk_world *w = calloc(1, sizeof(*w));
  if (w == NULL) return NULL;
  w->bodies = calloc((size_t)s->body_count + 1, sizeof(cpBody *));
  w->shapes = calloc((size_t)(s->body_count + s->static_count) + 1, sizeof(cpShape *));
  w->joints = calloc((size_t)s->joint_count + 1, sizeof(cpConstraint *));
  w->space = cpSpaceNew();
  if (w->bodies == NULL || w->shapes == NULL || w->joints == NULL || w->space == NULL) {
    sn_chipmunk_destroy(w);
    return NULL;
  }
  cpSpace *space = w->space;
  cpSpaceSetGravity(space, cpv(0.0, (double)s->gravity_y));
  cpSpaceSetIterations(space, SN_CHIPMUNK_ITERATIONS);
  cpSpaceSetCollisionSlop(space, SN_CHIPMUNK_SLOP);
  cpBody *ground = cpSpaceGetStaticBody(space);
  for (int32_t k = 0; k < s->static_count; ++k) {
    const sn_peer_body *d = &s->statics[k];
    cpBB bb = cpBBNew(d->x - d->hx, d->y - d->hy, d->x + d->hx, d->y + d->hy);
    cpShape *shape = cpSpaceAddShape(space, cpBoxShapeNew2(ground, bb, 0.0));
    w->shapes[w->shape_count++] = shape;
    sn_chipmunk_material(shape, d);
  }
  for (int32_t k = 0; k < s->body_count; ++k) {
    const sn_peer_body *d = &s->bodies[k];
    cpBody *body = cpSpaceAddBody(space, cpBodyNew(0.0, 0.0));
    w->bodies[w->body_count++] = body;
    cpBodySetPosition(body, cpv(d->x, d->y));
    cpShape *shape = d->shape == SN_PEER_CIRCLE ? cpCircleShapeNew(body, d->hx, cpvzero)
                                                : cpBoxShapeNew(body, 2.0 * d->hx, 2.0 * d->hy, 0.0);
    shape = cpSpaceAddShape(space, shape);
    w->shapes[w->shape_count++] = shape;
    cpShapeSetDensity(shape, d->density);
    sn_chipmunk_material(shape, d);
  }
  for (int32_t k = 0; k < s->joint_count; ++k) {
    const sn_peer_joint *j = &s->joints[k];
    cpBody *a = j->a < 0 ? ground : w->bodies[j->a];
    cpConstraint *c = cpSpaceAddConstraint(space, cpPivotJointNew(a, w->bodies[j->b], cpv(j->x, j->y)));
    cpConstraintSetCollideBodies(c, cpFalse);
    w->joints[w->joint_count++] = c;
  }
  return w;
}

static void sn_chipmunk_step(void *world, float dt) { cpSpaceStep(((sn_chipmunk_world *)world)->space, dt); }

static void sn_chipmunk_state(void *world, int32_t k, sn_peer_state *out) {
  const cpBody *b = ((sn_chipmunk_world *)world)->bodies[k];
  cpVect p = cpBodyGetPosition(b), v = cpBodyGetVelocity(b);
  out->x = p.x;
  out->y = p.y;
  out->angle = cpBodyGetAngle(b);
  out->vx = v.x;
  out->vy = v.y;
  out->w = cpBodyGetAngularVelocity(b);
  out->mass = cpBodyGetMass(b);
  out->inertia = cpBodyGetMoment(b);
}

const sn_peer sn_peer_chipmunk = {
    "chipmunk-7.0.3",
    "iterations=30 collision_slop=0.005 collision_bias=default spatial_index=bbtree sleep=off "
    "(Debian build: assertions on)",
    sn_chipmunk_build,
    sn_chipmunk_step,
    sn_chipmunk_state,
    sn_chipmunk_destroy};
