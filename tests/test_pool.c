/* The slot pool (base/pool.h): LIFO reuse, generations, retirement of spent
 * slots, growth failures, iteration and the restored-pool check. And the
 * pair set (base/pair_set.h) against a plain table of every pair. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "base/alloc.h"
#include "base/array.h"
#include "base/pair_set.h"
#include "base/pool.h"

/* An element with its bookkeeping in the middle, as the world's objects. */
typedef struct item {
  int32_t value;
  uint16_t generation;
  bool in_use;
  double payload;
  int32_t next_free;
} item;

/* The same without a generation (as contacts). */
typedef struct plain {
  bool in_use;
  int32_t next_free;
  int32_t value;
} plain;

/// Allocator that refuses while closed, counting the calls it refused.
typedef struct gate {
  bool open;
  int32_t refused;
} gate;

static void *gate_alloc(size_t size, void *context) {
  gate *g = context;
  g->refused += g->open ? 0 : 1;
  return g->open ? malloc(size) : NULL;
}

static void gate_free(void *memory, size_t size, void *context) {
  (void)size, (void)context;
  free(memory);
}

typedef struct holder {
  gate gate;
  sn_mem mem;
  SN_ARRAY(item) items;
  int32_t free;
  int32_t live;
} holder;

static void holder_init(holder *h, bool open) {
  memset(h, 0, sizeof(*h));
  h->gate.open = open;
  sn_allocator user = {gate_alloc, gate_free, &h->gate};
  sn_mem_init(&h->mem, &user);
  h->free = -1;
}

static sn_pool holder_pool(holder *h) { return SN_POOL(&h->mem, h->items, h->free, &h->live, SN_POOL_LAYOUT(item)); }

static void holder_destroy(holder *h) {
  sn_array_free(&h->mem, h->items);
  ck_assert_uint_eq(h->mem.live_bytes, 0);
}

START_TEST(test_acquire_release_lifo) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  for (int32_t i = 0; i < 5; ++i) {
    ck_assert_int_eq(sn_pool_acquire(&p), i);
    ck_assert_uint_eq(h.items.data[i].generation, 1);
    ck_assert(h.items.data[i].in_use);
    ck_assert_int_eq(h.items.data[i].next_free, -1);
    h.items.data[i].value = 10 + i;
  }
  ck_assert_int_eq(h.live, 5);
  ck_assert_int_eq(h.items.count, 5);
  /* released 1, 3, 0: reused 0, 3, 1 (last in, first out) */
  sn_pool_release(&p, 1);
  sn_pool_release(&p, 3);
  sn_pool_release(&p, 0);
  ck_assert_int_eq(h.live, 2);
  ck_assert_int_eq(sn_pool_free_count(&p), 3);
  ck_assert(!h.items.data[3].in_use);
  ck_assert_int_eq(h.items.data[3].value, 13); /* release leaves the rest */
  ck_assert_int_eq(h.free, 0);
  ck_assert_int_eq(h.items.data[0].next_free, 3);
  ck_assert_int_eq(h.items.data[3].next_free, 1);
  ck_assert_int_eq(h.items.data[1].next_free, -1);
  const int32_t order[] = {0, 3, 1};
  for (int32_t k = 0; k < 3; ++k) {
    int32_t i = sn_pool_acquire(&p);
    ck_assert_int_eq(i, order[k]);
    ck_assert_uint_eq(h.items.data[i].generation, 2);
    ck_assert_int_eq(h.items.data[i].value, 0); /* zeroed */
  }
  ck_assert_int_eq(sn_pool_acquire(&p), 5); /* free list empty: a new slot */
  ck_assert_int_eq(h.live, 6);
  ck_assert_int_eq(sn_pool_free_count(&p), 0);
  holder_destroy(&h);
}
END_TEST

START_TEST(test_generations) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  int32_t a = sn_pool_acquire(&p);
  ck_assert(sn_pool_is_live(&p, a + 1, 1));
  ck_assert(!sn_pool_is_live(&p, a + 1, 2));
  ck_assert(!sn_pool_is_live(&p, 0, 1));     /* the null id */
  ck_assert(!sn_pool_is_live(&p, -5, 1));    /* out of range */
  ck_assert(!sn_pool_is_live(&p, a + 2, 1)); /* past the end */
  ck_assert(!sn_pool_is_live(&p, INT32_MIN, 1));
  sn_pool_release(&p, a);
  ck_assert(!sn_pool_is_live(&p, a + 1, 1)); /* stale */
  ck_assert_int_eq(sn_pool_acquire(&p), a);
  ck_assert(!sn_pool_is_live(&p, a + 1, 1)); /* still stale: the slot lives again */
  ck_assert(sn_pool_is_live(&p, a + 1, 2));
  ck_assert_uint_eq(sn_pool_generation(&p, a), 2);
  holder_destroy(&h);
}
END_TEST

/* A slot whose generation is spent retires on release instead of wrapping. */
START_TEST(test_spent_slot_retires) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  int32_t a = sn_pool_acquire(&p);
  int32_t b = sn_pool_acquire(&p);
  h.items.data[a].generation = SN_GENERATION_SPENT - 1;
  sn_pool_release(&p, a);
  ck_assert_int_eq(sn_pool_acquire(&p), a);
  ck_assert_uint_eq(h.items.data[a].generation, SN_GENERATION_SPENT);
  ck_assert(sn_pool_is_live(&p, a + 1, SN_GENERATION_SPENT));
  sn_pool_release(&p, a);
  ck_assert_int_eq(h.free, -1); /* retired: off the free list */
  ck_assert_int_eq(h.items.data[a].next_free, -1);
  ck_assert_int_eq(h.live, 1);
  char msg[128];
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));
  /* the next acquisition takes a new slot; the retired one stays free */
  int32_t c = sn_pool_acquire(&p);
  ck_assert_int_ne(c, a);
  ck_assert_int_ne(c, b);
  ck_assert_uint_eq(h.items.data[c].generation, 1);
  sn_pool_release(&p, c);
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));
  /* a retired slot put back on the list would revive old ids: damage */
  h.items.data[a].next_free = h.free;
  h.free = a;
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  ck_assert_str_eq(msg, "items: broken free list");
  holder_destroy(&h);
}
END_TEST

START_TEST(test_without_generation) {
  gate open = {true, 0};
  sn_allocator user = {gate_alloc, gate_free, &open};
  sn_mem mem;
  sn_mem_init(&mem, &user);
  SN_ARRAY(plain) arr = {NULL, 0, 0};
  int32_t head = -1, live = 0;
  sn_pool p = SN_POOL(&mem, arr, head, &live, SN_POOL_LAYOUT_NO_GENERATION(plain));
  int32_t a = sn_pool_acquire(&p);
  ck_assert_int_eq(a, 0);
  ck_assert(arr.data[a].in_use);
  ck_assert_uint_eq(sn_pool_generation(&p, a), 0);
  for (int i = 0; i < 70000; ++i) { /* never retires */
    sn_pool_release(&p, a);
    ck_assert_int_eq(head, a);
    ck_assert_int_eq(sn_pool_acquire(&p), a);
  }
  ck_assert_int_eq(live, 1);
  ck_assert_int_eq(arr.count, 1);
  sn_pool_release(&p, a);
  char msg[128];
  ck_assert(sn_pool_check(&p, "plain", msg, sizeof msg));
  sn_array_free(&mem, arr);
  ck_assert_uint_eq(mem.live_bytes, 0);
}
END_TEST

/* Growth that fails changes nothing; free slots need no growth. */
START_TEST(test_growth_failure) {
  holder h;
  holder_init(&h, false);
  sn_pool p = holder_pool(&h);
  ck_assert_int_eq(sn_pool_acquire(&p), -1);
  ck_assert_ptr_null(h.items.data);
  ck_assert_int_eq(h.items.count, 0);
  ck_assert_int_eq(h.live, 0);
  ck_assert_int_eq(h.free, -1);
  ck_assert(!sn_pool_reserve(&p, 1));
  ck_assert(sn_pool_reserve(&p, 0));

  ck_assert_int_eq(h.gate.refused, 2);
  h.gate.open = true;
  ck_assert(sn_pool_reserve(&p, 3));
  h.gate.open = false;
  int32_t cap = h.items.capacity;
  ck_assert_int_ge(cap, 3);
  for (int32_t i = 0; i < cap; ++i) ck_assert_int_eq(sn_pool_acquire(&p), i);
  item *data = h.items.data;
  ck_assert_int_eq(sn_pool_acquire(&p), -1); /* full, growth refused */
  ck_assert_ptr_eq(h.items.data, data);
  ck_assert_int_eq(h.items.count, cap);
  ck_assert_int_eq(h.items.capacity, cap);
  ck_assert_int_eq(h.live, cap);
  ck_assert_int_eq(h.free, -1);

  sn_pool_release(&p, 1);
  sn_pool_release(&p, 2);
  ck_assert(sn_pool_reserve(&p, 2)); /* two free slots: no allocation */
  int32_t refused = h.gate.refused;
  ck_assert(!sn_pool_reserve(&p, 3)); /* one more would grow */
  ck_assert_int_eq(h.gate.refused, refused + 1);
  ck_assert_int_eq(h.items.capacity, cap);
  ck_assert_int_eq(sn_pool_acquire(&p), 2);
  ck_assert_int_eq(sn_pool_acquire(&p), 1);
  ck_assert_int_eq(sn_pool_acquire(&p), -1);
  ck_assert_int_eq(h.live, cap);

  h.gate.open = true;
  ck_assert_int_eq(sn_pool_acquire(&p), cap);
  ck_assert_int_gt(h.items.capacity, cap);
  ck_assert_int_eq(h.items.data[cap].generation, 1);
  holder_destroy(&h);
}
END_TEST

/* index1 = slot + 1 must stay an int32_t: no slot past INT32_MAX - 2. */
START_TEST(test_index_limit) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  int32_t count = INT32_MAX - 1, capacity = INT32_MAX - 1;
  p.count = &count;
  p.capacity = &capacity;
  ck_assert(!sn_pool_reserve(&p, 1));
  ck_assert_int_eq(sn_pool_acquire(&p), -1);
  ck_assert_int_eq(count, INT32_MAX - 1);
  ck_assert_int_eq(h.live, 0);
  count = INT32_MAX - 3;
  ck_assert(!sn_pool_reserve(&p, 3));
  holder_destroy(&h);
}
END_TEST

START_TEST(test_iteration) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  ck_assert_int_eq(sn_pool_next(&p, -1), -1);
  for (int32_t i = 0; i < 6; ++i) sn_pool_acquire(&p);
  sn_pool_release(&p, 0);
  sn_pool_release(&p, 3);
  sn_pool_release(&p, 5);
  int32_t seen[6], n = 0;
  for (int32_t i = sn_pool_next(&p, -1); i != -1; i = sn_pool_next(&p, i)) seen[n++] = i;
  ck_assert_int_eq(n, 3);
  ck_assert_int_eq(seen[0], 1);
  ck_assert_int_eq(seen[1], 2);
  ck_assert_int_eq(seen[2], 4);
  holder_destroy(&h);
}
END_TEST

/* The restored-pool check: every way the bookkeeping can disagree. */
START_TEST(test_check) {
  holder h;
  holder_init(&h, true);
  sn_pool p = holder_pool(&h);
  char msg[128];
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));
  for (int32_t i = 0; i < 4; ++i) sn_pool_acquire(&p);
  sn_pool_release(&p, 2);
  sn_pool_release(&p, 0);
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));

  h.live = 3;
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  ck_assert_str_eq(msg, "items: count says 3 live, 2 slots in use");
  h.live = 2;

  h.free = 2; /* slot 0 left off the list */
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  ck_assert_str_eq(msg, "items: 2 reusable free slots, 1 on the free list");
  h.free = 0;

  h.items.data[2].next_free = 0; /* a cycle */
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  ck_assert_str_eq(msg, "items: broken free list");
  h.items.data[2].next_free = 1; /* a slot in use */
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  h.items.data[2].next_free = 9; /* out of range */
  ck_assert(!sn_pool_check(&p, "items", msg, sizeof msg));
  h.items.data[2].next_free = -1;
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));

  p.live = NULL; /* an uncounted pool */
  h.live = 99;
  ck_assert(sn_pool_check(&p, "items", msg, sizeof msg));
  holder_destroy(&h);
}
END_TEST

/* The pair set against a table of all pairs of N indices: a long run of
 * adds, value changes and removals (a linear congruential sequence, so every
 * run is the same) through several doublings; every pair's lookup checked
 * against the table every few changes. */
enum { PAIR_N = 48 };

static uint32_t lcg_next(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static void pair_set_matches(const sn_pair_set *set, int32_t model[PAIR_N][PAIR_N], uint32_t count) {
  ck_assert_uint_eq(set->count, count);
  for (int32_t a = 0; a < PAIR_N; ++a) {
    for (int32_t b = a; b < PAIR_N; ++b) {
      const uint64_t key = sn_pair_key(b, a); /* either order names the pair */
      ck_assert_int_eq(sn_pair_set_find(set, key), model[a][b]);
      ck_assert(sn_pair_set_contains(set, key) == (model[a][b] != -1));
    }
  }
}

START_TEST(test_pair_set_against_model) {
  holder h;
  holder_init(&h, true);
  sn_pair_set set = {0};
  ck_assert(!sn_pair_set_contains(&set, sn_pair_key(0, 0)));
  ck_assert_int_eq(sn_pair_set_find(&set, sn_pair_key(0, 0)), -1);
  ck_assert(!sn_pair_set_remove(&set, sn_pair_key(0, 0)));
  static int32_t model[PAIR_N][PAIR_N];
  for (int32_t a = 0; a < PAIR_N; ++a)
    for (int32_t b = 0; b < PAIR_N; ++b) model[a][b] = -1;
  uint32_t count = 0, state = 7u, peak = 0;
  for (int32_t step = 0; step < 20000; ++step) {
    int32_t a = (int32_t)(lcg_next(&state) % PAIR_N), b = (int32_t)(lcg_next(&state) % PAIR_N);
    if (a > b) {
      int32_t t = a;
      a = b;
      b = t;
    }
    const uint64_t key = sn_pair_key(a, b);
    /* mostly adds early on, then as many removals as adds */
    const uint32_t roll = lcg_next(&state) % 10u;
    if (model[a][b] == -1) {
      if (roll < (step < 6000 ? 8u : 5u)) {
        const int32_t value = (int32_t)(lcg_next(&state) % 1000u) - 2; /* -2 (pending) too */
        ck_assert(sn_pair_set_add(&set, &h.mem, key, value == -1 ? 5 : value));
        model[a][b] = value == -1 ? 5 : value;
        count += 1;
      } else {
        ck_assert(!sn_pair_set_assign(&set, key, 3));
        ck_assert(!sn_pair_set_remove(&set, key));
      }
    } else if (roll < 5u) {
      ck_assert(sn_pair_set_remove(&set, key));
      model[a][b] = -1;
      count -= 1;
    } else {
      ck_assert(sn_pair_set_assign(&set, key, step));
      model[a][b] = step;
    }
    if (count > peak) peak = count;
    if (step % 97 == 0) pair_set_matches(&set, model, count);
  }
  pair_set_matches(&set, model, count);
  ck_assert_uint_ge(peak, 600); /* grown from 64 slots to 2048 at least */
  ck_assert_uint_ge(set.capacity, 2048);
  /* emptied one by one, it finds nothing */
  for (int32_t a = 0; a < PAIR_N; ++a) {
    for (int32_t b = a; b < PAIR_N; ++b) {
      if (model[a][b] == -1) continue;
      ck_assert(sn_pair_set_remove(&set, sn_pair_key(a, b)));
      model[a][b] = -1;
      count -= 1;
    }
  }
  pair_set_matches(&set, model, 0);
  for (uint32_t i = 0; i < set.capacity; ++i) ck_assert(set.keys[i] == 0);
  sn_pair_set_destroy(&set, &h.mem);
  ck_assert(set.keys == NULL && set.capacity == 0 && set.count == 0);
  holder_destroy(&h);
}
END_TEST

/* A set kept at 31 pairs (64 slots, the most before it doubles) while pairs
 * come and go: its runs cross the table's end (the last slot and the first
 * both taken) many times, and removals shift entries back across it. The
 * pairs are (i, i + 5000) for i below 4096; model[i] is the value or -1. */
/* A random index below n whose model entry is -1 (not in the set). */
static int32_t unused_index(uint32_t *state, const int32_t *model, int32_t n) {
  int32_t i;
  do i = (int32_t)(lcg_next(state) % (uint32_t)n);
  while (model[i] != -1);
  return i;
}

START_TEST(test_pair_set_churn_across_the_end) {
  holder h;
  holder_init(&h, true);
  sn_pair_set set = {0};
  enum { UNIVERSE = 4096, LIVE = 31 };
  static int32_t model[UNIVERSE];
  static int32_t live[LIVE];
  for (int32_t i = 0; i < UNIVERSE; ++i) model[i] = -1;
  uint32_t state = 11u;
  for (int32_t k = 0; k < LIVE; ++k) {
    const int32_t i = unused_index(&state, model, UNIVERSE);
    ck_assert(sn_pair_set_add(&set, &h.mem, sn_pair_key(i, i + 5000), k));
    model[i] = k;
    live[k] = i;
  }
  int32_t across = 0;
  for (int32_t step = 0; step < 20000; ++step) {
    /* one out, one new in */
    const int32_t k = (int32_t)(lcg_next(&state) % LIVE);
    ck_assert(sn_pair_set_remove(&set, sn_pair_key(live[k] + 5000, live[k])));
    model[live[k]] = -1;
    const int32_t i = unused_index(&state, model, UNIVERSE);
    ck_assert(sn_pair_set_add(&set, &h.mem, sn_pair_key(i, i + 5000), step));
    model[i] = step;
    live[k] = i;
    ck_assert_uint_eq(set.capacity, 64);
    ck_assert_uint_eq(set.count, LIVE);
    if (set.keys[63] != 0 && set.keys[0] != 0) across += 1;
    for (int32_t j = 0; j < LIVE; ++j)
      ck_assert_int_eq(sn_pair_set_find(&set, sn_pair_key(live[j], live[j] + 5000)), model[live[j]]);
    const int32_t absent = (int32_t)(lcg_next(&state) % UNIVERSE);
    ck_assert(sn_pair_set_contains(&set, sn_pair_key(absent, absent + 5000)) == (model[absent] != -1));
  }
  ck_assert_int_gt(across, 1000);
  int32_t occupied = 0;
  for (uint32_t j = 0; j < set.capacity; ++j) occupied += set.keys[j] != 0;
  ck_assert_int_eq(occupied, LIVE);
  sn_pair_set_destroy(&set, &h.mem);
  holder_destroy(&h);
}
END_TEST

/* A doubling that finds no memory adds nothing and leaves the set whole. */
START_TEST(test_pair_set_growth_failure) {
  holder h;
  holder_init(&h, true);
  sn_pair_set set = {0};
  for (int32_t i = 0; i < 32; ++i) ck_assert(sn_pair_set_add(&set, &h.mem, sn_pair_key(i, i + 1), i));
  ck_assert_uint_eq(set.capacity, 64);
  h.gate.open = false;
  ck_assert(!sn_pair_set_add(&set, &h.mem, sn_pair_key(100, 200), 7));
  ck_assert_int_eq(h.gate.refused, 1);
  ck_assert_uint_eq(set.count, 32);
  ck_assert_uint_eq(set.capacity, 64);
  ck_assert(!sn_pair_set_contains(&set, sn_pair_key(100, 200)));
  for (int32_t i = 0; i < 32; ++i) ck_assert_int_eq(sn_pair_set_find(&set, sn_pair_key(i + 1, i)), i);
  h.gate.open = true;
  ck_assert(sn_pair_set_add(&set, &h.mem, sn_pair_key(100, 200), 7));
  ck_assert_uint_eq(set.capacity, 128);
  for (int32_t i = 0; i < 32; ++i) ck_assert_int_eq(sn_pair_set_find(&set, sn_pair_key(i, i + 1)), i);
  ck_assert_int_eq(sn_pair_set_find(&set, sn_pair_key(200, 100)), 7);
  sn_pair_set_destroy(&set, &h.mem);
  holder_destroy(&h);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("pool");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_acquire_release_lifo);
  tcase_add_test(tc, test_generations);
  tcase_add_test(tc, test_spent_slot_retires);
  tcase_add_test(tc, test_without_generation);
  tcase_add_test(tc, test_growth_failure);
  tcase_add_test(tc, test_index_limit);
  tcase_add_test(tc, test_iteration);
  tcase_add_test(tc, test_check);
  tcase_add_test(tc, test_pair_set_against_model);
  tcase_add_test(tc, test_pair_set_churn_across_the_end);
  tcase_add_test(tc, test_pair_set_growth_failure);
  suite_add_tcase(s, tc);
  return s;
}
