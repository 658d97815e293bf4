/* The conformance checks every constraint type must pass (internal): the
 * project runs them on its own plugins (tests/test_conformance.c) and
 * sinew-plugin-check runs them on anyone's. A type is created many times with
 * random valid parameters between free bodies and/or particles, no gravity,
 * random velocities, and stepped 2 s. Each run must stay finite; conserve
 * total linear momentum to 1e-5 of the summed |m v| (the type's impulses are
 * equal and opposite; not asked of a type with a parameter named ground_*,
 * which holds bodies to fixed world points that take a share of the load,
 * as the pulley's ground anchors); and give the same bits when repeated, when the host
 * moves every params/instance blob between steps, when the world is saved to
 * a snapshot halfway and the restored copy goes on, and (batched particle
 * types) when solved per item instead of batched. Two-body impulse types are
 * also run as fifteen copies side by side, whose constraints share no body:
 * the host hands them over as independent items (SN_STEP_INDEPENDENT_ITEMS,
 * which a type may solve in SIMD lanes), and the bits must be those of the
 * same world whose calls never say so. */
#ifndef SN_PLUGIN_CONFORMANCE_H
#define SN_PLUGIN_CONFORMANCE_H

#include <stdint.h>
#include <stdio.h>

#include "sinew/plugin.h"
#include "sinew/sinew.h"

/// Ways to run the same seed; all must give the plain run's bits.
typedef enum sn_conf_mode {
  SN_CONF_PLAIN,
  SN_CONF_RELOCATE, ///< params and instances moved between steps
  SN_CONF_SNAPSHOT, ///< saved after 1 s, the restored copy steps the rest
  SN_CONF_ITEMS     ///< batched XPBD types solved per item
} sn_conf_mode;

typedef struct sn_conf_result {
  bool created, finite;
  double p0x, p0y, px, py;
  double scale; ///< largest sum of |m v| over the bodies and particles, start or end
  uint64_t hash;
  char failure[160]; ///< a mode that could not run says why here
} sn_conf_result;

/// True if the checks apply to the type (two-body impulse types, and types
/// that join particles).
bool sn_conf_applies(const sn_constraint_type *t);

/// True if the type has a parameter named ground_* (a fixed world point):
/// its runs are not held to momentum conservation.
bool sn_conf_grounded(const sn_constraint_type *t);

/// One run of the type with parameters drawn from seed.
sn_conf_result sn_conf_run(const sn_registry *registry, const sn_constraint_type *t, uint32_t seed, sn_conf_mode mode);

/// The independent-items check of one seed (a two-body impulse type; 0 for
/// the others): 1 and a line to report (may be NULL) when the bits differ.
int sn_conf_check_lanes(const sn_registry *registry, const sn_constraint_type *t, uint32_t seed, FILE *report);

/// Checks seeds 1..seeds of the type; writes one line per failure to report
/// (may be NULL) and returns the number of failures. *created: how many
/// parameter sets the type accepted (it may refuse some combinations).
int sn_conf_check_type(const sn_registry *registry, const sn_constraint_type *t, uint32_t seeds, int *created,
                       FILE *report);

#endif
