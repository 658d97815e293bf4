/* sinew-bench --handoff: how long two workers take to hand a value back and
 * forth (see handoff.h). The helper runs as a task of a two-worker
 * sinew::threads pool, as a world's helpers do; the caller flips a shared
 * counter to an odd value, the helper answers with the next even one, and the
 * caller times each round trip (a clock read included), after a warm-up. */
#include "handoff.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "platform/platform.h" /* sn_clock_ms, sn_thread_yield */
#include "report.h"            /* sn_scene_timing_of */
#include "sinew/thread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SN_HANDOFF_PAUSE() _mm_pause()
#else
#define SN_HANDOFF_PAUSE() ((void)0)
#endif

/// Spins before a waiting side yields its core (on a single core the other
/// side only runs once this one yields).
#define SN_HANDOFF_SPINS 2048
/// Round trips before the timed ones: the helper's start and the first
/// trips' cold caches are not the machine's hand-off.
#define SN_HANDOFF_WARM_UP 1000
/// Either side gives up after waiting this long for the other (a helper that
/// never started, or a task the pool ran inline).
#define SN_HANDOFF_GIVE_UP_MS 2000.0

typedef struct sn_handoff {
  atomic_int counter; /* odd: the caller's turn handed over; even: answered */
  char apart[64];     /* the counter's line holds nothing else the two sides write */
  atomic_bool stop;
  int32_t trips;
} sn_handoff;

/* Waits until counter == want; false if stop was set or the wait timed out. */
static bool sn_handoff_wait(sn_handoff *h, int want) {
  double started = -1.0;
  for (int32_t spins = 0;; ++spins) {
    if (atomic_load_explicit(&h->counter, memory_order_acquire) == want) return true;
    if (atomic_load_explicit(&h->stop, memory_order_relaxed)) return false;
    if (spins < SN_HANDOFF_SPINS) {
      SN_HANDOFF_PAUSE();
      continue;
    }
    sn_thread_yield();
    if (started < 0.0) started = sn_clock_ms();
    if (sn_clock_ms() - started > SN_HANDOFF_GIVE_UP_MS) return false;
  }
}

static void sn_handoff_helper(int32_t begin, int32_t end, uint32_t worker, void *context) {
  (void)begin, (void)end, (void)worker;
  sn_handoff *h = context;
  for (int32_t k = 0; k < h->trips; ++k) {
    if (!sn_handoff_wait(h, 2 * k + 1)) return;
    atomic_store_explicit(&h->counter, 2 * k + 2, memory_order_release);
  }
}

int sn_handoff_run(int32_t trips) {
  if (trips < 1) trips = 1;
  sn_thread_pool *pool = sn_thread_pool_create(2);
  double *times = malloc((size_t)trips * sizeof(double));
  sn_handoff *h = malloc(sizeof(sn_handoff));
  if (pool == NULL || times == NULL || h == NULL) {
    fprintf(stderr, "sinew-bench: --handoff needs a thread and memory\n");
    if (pool != NULL) sn_thread_pool_destroy(pool);
    free(times);
    free(h);
    return 1;
  }
  atomic_init(&h->counter, 0);
  atomic_init(&h->stop, false);
  h->trips = SN_HANDOFF_WARM_UP + trips;
  void *task = sn_thread_pool_enqueue(sn_handoff_helper, 1, 1, h, pool);
  bool ok = task != NULL; /* NULL: the pool ran the helper here, which gave up */
  int32_t done = 0;
  for (; ok && done < h->trips; ++done) {
    const double t0 = sn_clock_ms();
    atomic_store_explicit(&h->counter, 2 * done + 1, memory_order_release);
    ok = sn_handoff_wait(h, 2 * done + 2);
    if (done >= SN_HANDOFF_WARM_UP) times[done - SN_HANDOFF_WARM_UP] = (sn_clock_ms() - t0) * 1e6; /* ns */
  }
  atomic_store_explicit(&h->stop, true, memory_order_relaxed);
  if (task != NULL) sn_thread_pool_finish(task, pool);
  sn_thread_pool_destroy(pool);
  if (!ok) {
    fprintf(stderr, "sinew-bench: --handoff: the helper did not answer (round trip %d of %d)\n", (int)done,
            (int)h->trips);
    free(times);
    free(h);
    return 1;
  }
  int32_t slow = 0;
  for (int32_t k = 0; k < trips; ++k) slow += times[k] > 20000.0;
  const sn_scene_timing t = sn_scene_timing_of(times, trips); /* (sorts them) */
  const double worst = times[trips - 1];
  printf("{\"probe\": \"handoff\", \"workers\": 2, \"round_trips\": %d, \"round_trip_ns_median\": %.0f, "
         "\"round_trip_ns_p95\": %.0f, \"round_trip_us_max\": %.1f, \"round_trips_over_20us\": %d}\n",
         (int)trips, t.median, t.p95, worst / 1000.0, (int)slow);
  free(times);
  free(h);
  return 0;
}
