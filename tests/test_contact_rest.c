/* Resting contact between thin boxes: a corner resting on a face stays on
 * the face (the two points of a manifold whose block is too ill-conditioned
 * to invert are both solved), whatever the tilt, the creation order, the
 * manifold reuse setting or the side; two corners meeting push along the
 * bisector of their faces; and the house of cards of the standard scenes
 * stands. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "collision/manifold.h"
#include "scenes.h"
#include "sinew/sinew.h"

#define CARD_HX 0.01f
#define CARD_HY 0.5f
#define PI_F    3.14159265f

/* How far a world point lies inside the flat card (0 if outside). */
static float depth_inside(sn_world *w, sn_body_id card, sn_vec2 p) {
  sn_vec2 l = sn_body_get_local_point(w, card, p);
  float dx = CARD_HX - fabsf(l.x), dy = CARD_HY - fabsf(l.y);
  if (dx <= 0.0f || dy <= 0.0f) return 0.0f;
  return dx < dy ? dx : dy;
}

typedef struct corner_setup {
  float tilt;      /* from vertical, radians; > 0 leans the supports' tops inward */
  float mirror;    /* 1 or -1: the whole setup mirrored in x */
  bool flat_first; /* create the flat card before the supports */
  float reuse;     /* world contact_reuse_distance */
} corner_setup;

/* Two static cards tilted from vertical, their higher top corners 0.96 m
 * apart at y = 1, and a third card laid flat across them (so each support
 * touches it with a corner 2 cm in from its end). Friction 0.6, sleep off,
 * 2 s at the defaults. Writes how deep each support's corners end inside
 * the flat card (depth[0] for the support on the -x side). */
static void corner_rest_depth(corner_setup cs, float depth[2]) {
  sn_world_def wd = sn_default_world_def();
  wd.enable_sleep = false;
  wd.contact_reuse_distance = cs.reuse;
  sn_world *w = sn_create_world(&wd, NULL);
  ck_assert_ptr_nonnull(w);
  sn_polygon card;
  ck_assert_int_eq(sn_make_box(CARD_HX, CARD_HY, &card), SN_OK);
  sn_shape_def sd = sn_default_shape_def();
  sd.friction = 0.6f;
  sn_body_id supports[2], flat = SN_NULL_BODY;
  for (int k = 0; k < 3; ++k) {
    int which = cs.flat_first ? (k + 2) % 3 : k; /* 2 is the flat card */
    sn_body_def bd = sn_default_body_def();
    if (which == 2) {
      bd.type = SN_BODY_DYNAMIC;
      bd.position = (sn_vec2){0.0f, 1.0f + CARD_HX};
      bd.angle = 0.5f * PI_F;
      flat = sn_create_body(w, &bd);
      ck_assert(sn_create_polygon_shape(w, flat, &sd, &card).index1 != 0);
      continue;
    }
    /* support 0 on the -x side leans its top towards +x for tilt > 0 */
    float side = which == 0 ? -1.0f : 1.0f;
    float a = side * cs.tilt;
    float s = sinf(a), c = cosf(a);
    sn_vec2 top = {(a > 0.0f ? CARD_HX : -CARD_HX), CARD_HY}; /* the higher top corner, local */
    sn_vec2 r = {c * top.x - s * top.y, s * top.x + c * top.y};
    bd.position = (sn_vec2){cs.mirror * (side * 0.48f - r.x), 1.0f - r.y};
    bd.angle = cs.mirror * a;
    supports[which] = sn_create_body(w, &bd);
    ck_assert(sn_create_polygon_shape(w, supports[which], &sd, &card).index1 != 0);
  }
  for (int step = 0; step < 120; ++step) ck_assert_int_eq(sn_world_step(w, 1.0f / 60.0f), SN_OK);
  /* the flat card must still lie across the supports */
  sn_vec2 p = sn_body_get_position(w, flat);
  ck_assert_msg(fabsf(p.y - (1.0f + CARD_HX)) < 0.02f && fabsf(p.x) < 0.02f, "flat card moved to (%g, %g)", (double)p.x,
                (double)p.y);
  for (int i = 0; i < 2; ++i) {
    /* in the mirrored world, support i stands on the other side */
    sn_body_id support = supports[cs.mirror > 0.0f ? i : 1 - i];
    depth[i] = 0.0f;
    for (int j = 0; j < 4; ++j) {
      sn_vec2 local = {j & 1 ? CARD_HX : -CARD_HX, j & 2 ? CARD_HY : -CARD_HY};
      float d = depth_inside(w, flat, sn_body_get_world_point(w, support, local));
      if (d > depth[i]) depth[i] = d;
    }
  }
  sn_destroy_world(w);
}

/* A corner resting on a face rests on it (within 0.5 mm; a face on a face
 * rests at about 0.01 mm) for tilts of 5 to 80 degrees either way, both
 * creation orders, manifold reuse on and off; a setup and its mirror image
 * rest within 0.1 mm of each other. A solver that drops the second point of
 * an ill-conditioned two-point manifold leaves the corner millimetres inside
 * on one side and 0.01 mm on the mirrored side. */
START_TEST(test_corner_rests_on_face) {
  float worst = 0.0f, worst_mirror_gap = 0.0f;
  for (int deg = 5; deg <= 80; deg += 5) {
    for (int lean = -1; lean <= 1; lean += 2) {
      for (int order = 0; order < 2; ++order) {
        for (int reuse = 0; reuse < 2; ++reuse) {
          corner_setup cs = {lean * (float)deg * PI_F / 180.0f, 1.0f, order == 1, reuse ? 0.0005f : 0.0f};
          float d[2], dm[2];
          corner_rest_depth(cs, d);
          cs.mirror = -1.0f;
          corner_rest_depth(cs, dm);
          for (int i = 0; i < 2; ++i) {
            ck_assert_msg(d[i] <= 0.0005f && dm[i] <= 0.0005f,
                          "tilt %d deg (lean %d, order %d, reuse %d), side %d: corner %.3f mm inside (mirrored "
                          "%.3f mm)",
                          deg, lean, order, reuse, i, (double)d[i] * 1e3, (double)dm[i] * 1e3);
            /* a side and its mirror image, in the mirrored world */
            ck_assert_msg(fabsf(d[i] - dm[i]) <= 0.0001f, "tilt %d side %d: %.4f mm vs mirrored %.4f mm", deg, i,
                          (double)d[i] * 1e3, (double)dm[i] * 1e3);
            if (d[i] > worst) worst = d[i];
            if (fabsf(d[i] - dm[i]) > worst_mirror_gap) worst_mirror_gap = fabsf(d[i] - dm[i]);
          }
        }
      }
    }
  }
  printf("corner on face: deepest %.4f mm, largest mirror difference %.4f mm\n", (double)worst * 1e3,
         (double)worst_mirror_gap * 1e3);
}
END_TEST

/* Largest displacement of any card of the standard house (three storeys,
 * 15 cards) after 10 s at the given lean and substeps. */
static double card_house_max_dx(int32_t lean_deg, int32_t substeps) {
  sn_scene s;
  ck_assert(sn_scene_build(&s, "cards", lean_deg, substeps, false));
  ck_assert_int_eq(s.body_count, 15);
  for (int step = 0; step < 600; ++step) ck_assert_int_eq(sn_world_step(s.world, 1.0f / 60.0f), SN_OK);
  sn_scene_metrics m;
  sn_scene_measure(&s, &m);
  sn_scene_destroy(&s);
  return m.max_dx;
}

/* The house of cards stands 10 s at every lean from 62 to 75 degrees, at 4
 * and 8 substeps, with less than 1 cm of settling (measured at most 4.9 mm,
 * at 62 degrees and 4 substeps; 1.35 mm at 8 substeps). The apexes, where
 * two cards meet corner to corner, push along the bisector of the cards'
 * faces: with a face normal (the first-created card's) every apex turns the
 * cards' settling impact into a sideways push in the same direction, and the
 * house sways over below 66 degrees. */
START_TEST(test_card_house_stands) {
  /* a lean outside 45..85 degrees builds nothing (and says why on stderr) */
  sn_scene bad;
  ck_assert(!sn_scene_build(&bad, "cards", 30, 0, false));
  ck_assert(!sn_scene_build(&bad, "cards", 86, 0, false));
  for (int32_t lean = 62; lean <= 75; ++lean) {
    for (int32_t substeps = 4; substeps <= 8; substeps += 4) {
      double dx = card_house_max_dx(lean, substeps);
      printf("cards lean %d substeps %d: max_dx %.4f m\n", (int)lean, (int)substeps, dx);
      ck_assert_msg(dx < 0.01, "house of cards at %d deg, %d substeps: a card moved %.3f m", (int)lean, (int)substeps,
                    dx);
    }
  }
}
END_TEST

/* Two cards meeting corner to corner as at an apex (leaning 62 degrees, the
 * inner top corners overlapping by 0.1 mm): one contact point whose normal
 * is the bisector of the two inner faces' normals (horizontal), whichever
 * card is shape A, and the box path and the general polygon path agree bit
 * for bit. */
START_TEST(test_corner_to_corner_normal) {
  sn_polygon card;
  ck_assert_int_eq(sn_make_box(CARD_HX, CARD_HY, &card), SN_OK);
  const float tilt = (90.0f - 62.0f) * PI_F / 180.0f;
  const float s = sinf(tilt), c = cosf(tilt);
  /* inner top corner of the left card (local (+hx, +hy) turned by -tilt) at
   * (+0.00005, 1), of the right card (local (-hx, +hy) turned by +tilt) at
   * (-0.00005, 1): 0.1 mm of overlap along x */
  sn_vec2 lc = {c * CARD_HX + s * CARD_HY, -s * CARD_HX + c * CARD_HY};
  sn_vec2 rc = {-c * CARD_HX - s * CARD_HY, -s * CARD_HX + c * CARD_HY};
  sn_transform left = {{0.00005f - lc.x, 1.0f - lc.y}, sn_make_rot(-tilt)};
  sn_transform right = {{-0.00005f - rc.x, 1.0f - rc.y}, sn_make_rot(tilt)};
  for (int order = 0; order < 2; ++order) {
    sn_transform xa = order ? right : left, xb = order ? left : right;
    sn_manifold m = sn_collide_polygons(&card, xa, &card, xb);
    sn_manifold g = sn_collide_polygons_general(&card, xa, &card, xb, NULL);
    ck_assert_int_eq(m.point_count, 1);
    ck_assert(memcmp(&m, &g, sizeof m) == 0);
    float sign = order ? -1.0f : 1.0f; /* from A to B */
    ck_assert_msg(fabsf(m.normal.x - sign) < 1e-5f && fabsf(m.normal.y) < 1e-5f, "order %d: normal (%g, %g)", order,
                  (double)m.normal.x, (double)m.normal.y);
    ck_assert_msg(fabsf(m.points[0].separation + 0.0001f) < 2e-6f, "separation %g", (double)m.points[0].separation);
    ck_assert_msg(fabsf(m.points[0].point.y - 1.0f) < 1e-5f, "point (%g, %g)", (double)m.points[0].point.x,
                  (double)m.points[0].point.y);
  }
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("contact_rest");
  TCase *tc = tcase_create("rest");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_corner_rests_on_face);
  tcase_add_test(tc, test_card_house_stands);
  tcase_add_test(tc, test_corner_to_corner_normal);
  suite_add_tcase(s, tc);
  return s;
}
