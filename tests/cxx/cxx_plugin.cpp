// A constraint plugin written in C++: SN_DEFINE_PLUGIN_TYPES (through
// SN_DEFINE_PLUGIN) gives the entry C linkage, so the host finds it. The type
// "cxx.hold" keeps one particle where it was created (an XPBD type: it moves
// the particle back every sweep).
#include "sinew/plugin.h"

#include <cstdio>

namespace {

struct hold_instance {
  sn_vec2 anchor;
};

int hold_create(const sn_constraint_create_args *args) {
  if (args->body_count != 1) {
    std::snprintf(args->err, args->err_capacity, "cxx.hold holds 1 particle, got %d",
                  static_cast<int>(args->body_count));
    return 1;
  }
  static_cast<hold_instance *>(args->instance)->anchor = args->bodies[0]->center;
  return 0;
}

void hold_solve(const sn_step_info *, sn_constraint_item *items, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    const sn_vec2 anchor = static_cast<const hold_instance *>(items[i].instance)->anchor;
    const sn_constraint_body *p = items[i].bodies[0];
    if (p->inv_mass == 0.0f) continue;
    p->state->dp = sn_vec2{anchor.x - p->center.x, anchor.y - p->center.y};
  }
}

sn_constraint_type make_type() {
  sn_constraint_type t{};
  t.struct_size = sizeof t;
  t.name = "cxx.hold";
  t.flags = SN_CONSTRAINT_XPBD;
  t.body_count = 0;
  t.params_size = 0;
  t.params_align = 4;
  t.instance_size = sizeof(hold_instance);
  t.instance_align = alignof(hold_instance);
  t.create = hold_create;
  t.solve_position = hold_solve;
  t.particle_count = 1;
  return t;
}

const sn_constraint_type hold_type = make_type();

} // namespace

SN_DEFINE_PLUGIN_TYPES("test.cxx", "1.0.0", &hold_type);
