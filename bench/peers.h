/* sinew-bench --peers: the standard rigid scenes run on Sinew and on the peer
 * engines built in (Box2D 2.4, Chipmunk 7; bench/peers/), interleaved in one
 * process, with one JSON line per engine per scene and a ratio line. */
#ifndef SINEW_BENCH_PEERS_H
#define SINEW_BENCH_PEERS_H

#include <stdint.h>

typedef struct sn_peers_options {
  const char *scene;      ///< NULL: every rigid scene at its standard sizes
  int32_t size;           ///< 0: the scene's standard size(s)
  int32_t steps;          ///< 0: each scene's default
  int32_t substeps;       ///< Sinew's substeps, 0: its default
  int32_t block;          ///< steps per turn of each engine, 0: 10
  const char *svg_path;   ///< if set: plot of ms/step against bodies (pyramid runs)
  const char *table_path; ///< if set: a Markdown table of the runs
} sn_peers_options;

/// Runs the peers comparison; prints to stdout. Returns 0 on success (also
/// when no peer was built in: it says so and runs nothing).
int sn_peers_run(const sn_peers_options *options);

#endif
