/* sinew-bench --handoff: the machine's hand-off time between two workers.
 *
 * A world on two workers hands its stages' data between the cores hundreds
 * of times a step; what one hand-off costs depends on where the host put the
 * two cores (one cache or two), and decides how much a second worker gains.
 * The probe runs round trips of a shared counter between the calling thread
 * and a sinew::threads helper and prints one JSON line: the median and 95th
 * percentile round trip (ns), the worst (us) and how many took over 20 us
 * (the helper lost its core). docs/benchmark.md tells how to read it. */
#ifndef SN_BENCH_HANDOFF_H
#define SN_BENCH_HANDOFF_H

#include <stdint.h>

/// Runs trips round trips and prints the JSON line; 0, or 1 on a failure
/// (message on stderr).
int sn_handoff_run(int32_t trips);

#endif
