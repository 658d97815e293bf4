/* The slot pool (base/pool.h): LIFO reuse, generations, retirement of spent
 * slots, growth failures, iteration and the restored-pool check. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "base/alloc.h"
#include "base/array.h"
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
  suite_add_tcase(s, tc);
  return s;
}
