// Box2D 2.4 driver of sinew-bench --peers (see peer.h).
// Settings as Box2D's testbed: 8 velocity and 3 position iterations, warm
// starting and continuous collision on (its defaults); sleeping off. Box2D
// mixes friction as sqrt(a * b), like Sinew, so shapes take the scene's
// friction as is. Debian's libbox2d is built with its assertions on.
#include "peer.h"

#include <box2d/box2d.h>

#include <cmath>
#include <new>
#include <vector>

namespace {

struct Box2dWorld {
  b2World world{b2Vec2(0.0f, -10.0f)};
  std::vector<b2Body *> bodies;
};

b2Body *make_body(b2World &world, const sn_peer_body &d, b2BodyType type) {
  b2BodyDef bd;
  bd.type = type;
  bd.position.Set(d.x, d.y);
  bd.allowSleep = false;
  b2Body *body = world.CreateBody(&bd);
  b2FixtureDef fd;
  b2PolygonShape box;
  b2CircleShape circle;
  if (d.shape == SN_PEER_CIRCLE) {
    circle.m_radius = d.hx;
    fd.shape = &circle;
  } else {
    box.SetAsBox(d.hx, d.hy);
    fd.shape = &box;
  }
  fd.density = type == b2_staticBody ? 0.0f : d.density;
  fd.friction = d.friction;
  fd.restitution = d.restitution;
  body->CreateFixture(&fd);
  return body;
}

void *box2d_build(const sn_peer_scene *s) {
  Box2dWorld *w = new (std::nothrow) Box2dWorld;
  if (w == nullptr) return nullptr;
  w->world.SetGravity(b2Vec2(0.0f, s->gravity_y));
  w->world.SetAllowSleeping(false);
  for (int32_t k = 0; k < s->static_count; ++k) make_body(w->world, s->statics[k], b2_staticBody);
  w->bodies.reserve(static_cast<size_t>(s->body_count));
  for (int32_t k = 0; k < s->body_count; ++k) w->bodies.push_back(make_body(w->world, s->bodies[k], b2_dynamicBody));
  for (int32_t k = 0; k < s->joint_count; ++k) {
    const sn_peer_joint &j = s->joints[k];
    b2Body *a;
    if (j.a < 0) {
      b2BodyDef bd;
      bd.position.Set(j.x, j.y);
      a = w->world.CreateBody(&bd);
    } else {
      a = w->bodies[static_cast<size_t>(j.a)];
    }
    b2RevoluteJointDef jd;
    jd.Initialize(a, w->bodies[static_cast<size_t>(j.b)], b2Vec2(j.x, j.y));
    jd.collideConnected = false;
    w->world.CreateJoint(&jd);
  }
  return w;
}

void box2d_step(void *world, float dt) { static_cast<Box2dWorld *>(world)->world.Step(dt, 8, 3); }

void box2d_state(void *world, int32_t k, sn_peer_state *out) {
  const b2Body *b = static_cast<Box2dWorld *>(world)->bodies[static_cast<size_t>(k)];
  const b2Vec2 &p = b->GetPosition();
  const b2Vec2 &v = b->GetLinearVelocity();
  b2Vec2 c = b->GetLocalCenter();
  out->x = p.x;
  out->y = p.y;
  out->angle = b->GetAngle();
  out->vx = v.x;
  out->vy = v.y;
  out->w = b->GetAngularVelocity();
  out->mass = b->GetMass();
  out->inertia = b->GetInertia() - b->GetMass() * static_cast<double>(b2Dot(c, c));
}

void box2d_destroy(void *world) { delete static_cast<Box2dWorld *>(world); }

} // namespace

extern "C" const sn_peer sn_peer_box2d = {
    "box2d-2.4.1",
    "velocity_iterations=8 position_iterations=3 warm_starting=on continuous=on sleep=off "
    "(Debian build: assertions on)",
    box2d_build,
    box2d_step,
    box2d_state,
    box2d_destroy};
