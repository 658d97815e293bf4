#!/usr/bin/env python3
"""Writes fuzz/corpus/world/stack: a ground, a few boxes and circles dropped
on it, then ~380 steps, so the penetration invariant of fuzz_world has calm
pairs to check from the first run on; and fuzz/corpus/world/callbacks: the
same pile with a fuzz.reenter constraint, then queries and draws whose
callbacks call back into the world and loops over events that destroy
bodies, between steps; and fuzz/corpus/world/contacts: the pile with sensors,
a filter, the custom filter and pre-solve callbacks, and reads of contacts,
sensor overlaps and events between steps. The byte layout follows fuzz_world.c's decoder (op
byte, then the op's arguments)."""
import os
import random
import struct

out = bytearray()


def u8(v):
    out.append(v & 0xFF)


def fl(lo, hi, v):  # fz_float: tag < 224, then a u16 fraction of [lo, hi]
    u8(0)
    out.extend(struct.pack("<H", round((v - lo) / (hi - lo) * 65535)))


u8(8)  # setup: a static ground box (30 x 1 m, top at y = 0) in bodies[0]
body = 1
for i, (x, y, kind) in enumerate([(0, 0.5, 0), (0, 1.6, 0), (0.2, 2.7, 1), (3, 0.6, 0), (3.1, 1.8, 1), (-3, 3, 0)]):
    u8(0)  # op_create_body
    u8(2)  # dynamic
    fl(-20, 20, x)
    fl(-20, 20, y)
    fl(-7, 7, 0.0)
    u8(0)  # no extra settings
    u8(1)  # keep the cookie
    u8(1)  # op_create_shape
    u8(body)  # bodies[body]
    u8(0)  # default shape def
    if kind == 0:
        u8(3)  # polygon from a box helper
        u8(0)  # sn_make_box
        fl(0, 2, 0.5)
        fl(0, 2, 0.5)
    else:
        u8(0)  # circle
        fl(-1, 1, 0.0)
        fl(-1, 1, 0.0)
        fl(0, 2, 0.5)
    body += 1
for _ in range(4):
    u8(10)  # op_step
    u8(255)  # 94 steps
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "world", "stack")
with open(path, "wb") as f:
    f.write(out)
print(path, len(out), "bytes")

# ---- callbacks: the pile, a fuzz.reenter constraint on the first box, then
# the ops 240..255 (callbacks, event loops) with arguments drawn from a fixed
# seed, between steps
stack = bytes(out)
out = bytearray(stack[: -8])  # the pile without its long steps
u8(7)  # op_create_constraint
u8(12)  # type 12: fuzz.reenter, registered after the 12 plugin types
u8(1)  # the real type name
u8(1)  # bodies[1], the first box
u8(0)  # second body (unused)
u8(1)  # the type's particle count
u8(0)  # no parameters (fz_range: u16 0)
u8(0)
u8(1)  # no break force
u8(0)  # not collide_connected
u8(10)  # op_step, 32 steps: the boxes land (begin events)
u8(224)
rng = random.Random(7)
for round_ in range(24):
    op = 240 + rng.randrange(16)
    u8(op)
    for _ in range(40):  # arguments and the callbacks' calls
        u8(rng.randrange(240))
    u8(10)  # op_step, one to four steps
    u8(rng.randrange(4))
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "world", "callbacks")
with open(path, "wb") as f:
    f.write(out)
print(path, len(out), "bytes")

# ---- contacts: the pile, then the ops of op_contacts (op byte 11): a static
# sensor over the pile and a circle sensor on a box, a filter with a group,
# the custom filter and pre-solve callbacks, then steps with reads of
# contacts, sensor overlaps and events between them
out = bytearray(stack[: -8])
u8(11)  # op_contacts
u8(0)  # a sensor
u8(0)  # on bodies[0], the ground
u8(0)  # default shape def
u8(0)  # flags: a sensor seen by..., no callbacks, a box
u8(0)  # group 0
fl(0.05, 4, 3.0)  # half width
fl(0.05, 4, 2.0)  # half height
u8(11)
u8(0)  # a sensor
u8(2)  # on bodies[2]
u8(0)
u8(32)  # a circle
u8(0)
fl(-1, 1, 0.0)
fl(-1, 1, 0.0)
fl(0.05, 3, 1.5)
u8(11)
u8(1)  # a filter
u8(1)  # shapes[1]
u8(1)  # category 1
u8(1)  # mask: all
u8(2)  # group 2
u8(11)
u8(2)  # the custom filter
u8(1)
u8(11)
u8(3)  # the pre-solve callback
u8(1)
u8(11)
u8(0)  # a solid shape that opts in to both callbacks
u8(6)  # on bodies[6], the box dropped from 3 m
u8(0)
u8(1 | 4 | 8)  # not a sensor, custom filtering, pre-solve events, a box
u8(0)
fl(0.05, 4, 0.45)
fl(0.05, 4, 0.45)
for round_ in range(12):
    u8(10)  # op_step: 4 steps...
    u8(3)
    for sub_op, args in ((4, (round_ % 7, 0, 8, 0, round_ % 6)), (5, (6 + round_ % 2, 0, 16, 0)), (6, ()), (7, (round_ % 8, round_ % 7))):
        u8(11)
        u8(sub_op)
        for a in args:
            u8(a)
u8(10)
u8(255)  # 94 steps
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "world", "contacts")
with open(path, "wb") as f:
    f.write(out)
print(path, len(out), "bytes")

# ---- sleep_chains: a box above a valley chain on the ground, then
# op_body_set's bytes 252..255: sleep thresholds (0.1 m/s, then NaN, refused),
# reading the chain back whole and through a shape, the body def's threshold,
# and steps between
out = bytearray()
u8(8)  # setup: the ground in bodies[0]
u8(0)  # op_create_body: a dynamic box at (0, 3), bodies[1]
u8(2)
fl(-20, 20, 0.0)
fl(-20, 20, 3.0)
fl(-7, 7, 0.0)
u8(0)
u8(1)
u8(1)  # op_create_shape on bodies[1]: a 0.5 m box
u8(1)
u8(0)
u8(3)
u8(0)
fl(0, 2, 0.5)
fl(0, 2, 0.5)
u8(4)  # op_create_chain: 6 points, open, on the ground
out.extend(struct.pack("<H", 6))
for x, y in ((-10, 6), (-8, 5), (-4, 0.5), (4, 0.5), (8, 5), (10, 6)):
    fl(-20, 20, x)
    fl(-20, 20, y)
u8(1)  # the points
u8(1)  # count = 6
u8(0)  # open
fl(0, 1, 0.4)  # friction
fl(0, 1, 0.0)  # restitution
u8(0)  # bodies[0]


def body_set(which, args):
    u8(5)  # op_body_set on bodies[1]
    u8(1)
    u8(1)  # wake
    for _ in range(2):
        fl(-20, 20, 0.0)
    for _ in range(2):
        fl(-1000, 1000, 0.0)
    u8(which)
    for a in args:
        u8(a)


body_set(252, ())
fl(0, 0.5, 0.1)  # sleep threshold 0.1 m/s
u8(10)  # op_step: 4 steps
u8(3)
body_set(253, (0, 65, 0))  # chains[0], capacity 64
body_set(253, (0, 4, 0))  # chains[0], capacity 3
body_set(254, (0, 1, 0))  # shapes[0] (the box: no chain), capacity 0
body_set(255, ())  # the def's threshold
body_set(252, (224, 16))  # NaN: refused
body_set(252, (224, 3))  # -1: refused
u8(10)
u8(255)  # 94 steps
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "world", "sleep_chains")
with open(path, "wb") as f:
    f.write(out)
print(path, len(out), "bytes")
