/* Islands and sleeping. Islands of awake bodies are rebuilt each step with
 * union-find over touching contacts between dynamic bodies (static bodies do
 * not join islands; kinematic bodies do not join but keep touching islands
 * awake while they move). An island whose every body has been slow for
 * SN_TIME_TO_SLEEP falls asleep as a unit; its bodies are linked in a cycle
 * through sn_body.sleep_next so that waking any member wakes them all. */
#include "rigid/island.h"

#include "base/constants.h"
#include "base/math.h"
#include "base/union_find.h"
#include "world/world.h"

size_t sn_island_scratch_bytes(int32_t awake_count) {
  /* parent, min_sleep and last below; 16 bytes of alignment each */
  return (size_t)awake_count * (2 * sizeof(int32_t) + sizeof(float)) + 64;
}

void sn_update_sleep(sn_world *w, float dt) {
  (void)dt;
  int32_t n = w->awake_bodies.count;
  if (n == 0) {
    w->island_count = 0;
    return;
  }
  /* scratch from the step arena: parent, island min sleep time, next link */
  sn_arena_reset(&w->arena);
  if (!sn_arena_reserve(&w->arena, &w->mem, sn_island_scratch_bytes(n))) return;
  int32_t *parent = sn_arena_alloc(&w->arena, (size_t)n * sizeof(int32_t));
  float *min_sleep = sn_arena_alloc(&w->arena, (size_t)n * sizeof(float));
  int32_t *last = sn_arena_alloc(&w->arena, (size_t)n * sizeof(int32_t));
  for (int32_t k = 0; k < n; ++k) {
    parent[k] = k;
    const sn_body *b = w->bodies.data + w->awake_bodies.data[k];
    min_sleep[k] = b->enable_sleep ? b->sleep_time : 0.0f;
  }
  /* The touching contacts are the solver's (listed this step, before the
   * substeps, and unchanged since), with their keys: the awake indices of
   * the two bodies (the static slot, n, for a body that is not awake) and
   * whether each can move. Only a pair with a body that cannot move, which
   * may be kinematic, reads its bodies. */
  const sn_wide_key *keys = w->solver_keys.data;
  for (int32_t k = 0; k < w->solver_contacts.count; ++k) {
    const int32_t ia = keys[k].ia, ib = keys[k].ib;
    if (ia >= n || ib >= n) continue;
    if ((keys[k].dynamic & 3u) != 3u) {
      const sn_body *ba = w->bodies.data + w->awake_bodies.data[ia];
      const sn_body *bb = w->bodies.data + w->awake_bodies.data[ib];
      if (ba->type == SN_BODY_KINEMATIC || bb->type == SN_BODY_KINEMATIC) {
        /* a moving kinematic body keeps what it touches awake */
        if (ba->type == SN_BODY_KINEMATIC && ba->sleep_time < SN_TIME_TO_SLEEP) min_sleep[ib] = 0.0f;
        if (bb->type == SN_BODY_KINEMATIC && bb->sleep_time < SN_TIME_TO_SLEEP) min_sleep[ia] = 0.0f;
        continue;
      }
    }
    sn_set_join(parent, ia, ib); /* (the lower root stays: deterministic) */
  }
  /* joints join islands too (the bodies' awake indices and can-move bits
   * from the step's compact copy; the bodies read only when one cannot
   * move, which may be kinematic) */
  const int32_t *index = w->body_solver_index.data;
  for (int32_t i = 0; i < w->constraints.count; ++i) {
    const sn_constraint *k = w->constraints.data + i;
    if (!k->in_use || k->type->body_count < 2) continue;
    const int32_t xa = index[k->bodies[0]], xb = index[k->bodies[1]];
    if (xa < 0 || xb < 0) continue;
    if ((xa & xb & 1) == 0 &&
        (w->bodies.data[k->bodies[0]].type != SN_BODY_DYNAMIC || w->bodies.data[k->bodies[1]].type != SN_BODY_DYNAMIC))
      continue;
    sn_set_join(parent, xa >> 1, xb >> 1);
  }
  /* reduce min sleep time to roots */
  for (int32_t k = 0; k < n; ++k) {
    int32_t r = sn_set_root(parent, k);
    if (min_sleep[k] < min_sleep[r]) min_sleep[r] = min_sleep[k];
  }
  int32_t islands = 0;
  for (int32_t k = 0; k < n; ++k) {
    if (parent[k] == k) islands++;
    last[k] = SN_NULL_INDEX;
  }
  w->island_count = islands;
  /* link members of sleepy islands in solver order, then close the cycles */
  bool any = false;
  for (int32_t k = 0; k < n; ++k) {
    int32_t r = sn_set_root(parent, k);
    if (min_sleep[r] < SN_TIME_TO_SLEEP) continue;
    any = true;
    int32_t bi = w->awake_bodies.data[k];
    w->bodies.data[bi].sleep_next = SN_NULL_INDEX;
    if (last[r] != SN_NULL_INDEX) w->bodies.data[w->awake_bodies.data[last[r]]].sleep_next = bi;
    last[r] = k;
  }
  if (!any) return;
  for (int32_t k = 0; k < n; ++k) {
    if (parent[k] != k || min_sleep[k] < SN_TIME_TO_SLEEP) continue;
    int32_t first = w->awake_bodies.data[k];
    w->bodies.data[w->awake_bodies.data[last[k]]].sleep_next = first;
    sn_body_put_to_sleep(w, first);
    /* the members' move events say so */
    int32_t i = first;
    do {
      w->body_events.data[w->bodies.data[i].solver_index].fell_asleep = true;
      i = w->bodies.data[i].sleep_next;
    } while (i != first);
  }
}
