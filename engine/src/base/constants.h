/* Engine-wide tuning constants (internal). Lengths in metres. */
#ifndef SN_BASE_CONSTANTS_H
#define SN_BASE_CONSTANTS_H

#include "sinew/types.h"

/// Collision and constraint tolerance: the allowed gap/overlap noise.
#define SN_LINEAR_SLOP 0.005f
/// Contact points are kept (speculatively) up to this separation.
#define SN_SPECULATIVE_DISTANCE (4.0f * SN_LINEAR_SLOP)
/// Fat AABB margin of the broadphase: a moving shape's box is its tight box
/// grown by this much, and moves once the tight box grown by the speculative
/// distance leaves it (rigid/shape.c).
#define SN_AABB_MARGIN 0.1f
/// The margin of a body that moved farther than SN_AABB_MARGIN over its last
/// step (it leaves any box again within a step).
#define SN_AABB_MARGIN_FAST (SN_SPECULATIVE_DISTANCE + 0.01f)
/// Polygon radius used so that GJK/TOI keep a small gap.
#define SN_POLYGON_RADIUS (2.0f * SN_LINEAR_SLOP)
/// Points closer than this are welded when building polygons.
#define SN_WELD_DISTANCE 0.0005f
/// A body sleeps after this long below the sleep speeds.
#define SN_TIME_TO_SLEEP 0.5f
/// Linear sleep tolerance (m/s) of a body with the default sleep threshold
/// (sn_body_def.sleep_threshold scales all four tolerances).
#define SN_LINEAR_SLEEP_TOLERANCE SN_DEFAULT_SLEEP_THRESHOLD
/// Angular sleep tolerance (rad/s).
#define SN_ANGULAR_SLEEP_TOLERANCE SN_DEFAULT_ANGULAR_SLEEP_THRESHOLD
/// A slow body whose speed has grown by more than this since its sleep timer
/// started is accelerating (a box starting to slide down a slope just past
/// its friction angle): the timer starts again. A fifth of the sleep
/// tolerances: a body accelerating at 0.02 m/s^2 or more (a slope 0.1 degree
/// past the friction angle) never stays within it for SN_TIME_TO_SLEEP, while
/// a settling pile slows down and sleeps as soon as on speed alone.
/// (rigid/solver.c applies 0.2 to each body's own tolerances.)
#define SN_LINEAR_SLEEP_CHANGE  (0.2f * SN_LINEAR_SLEEP_TOLERANCE)
#define SN_ANGULAR_SLEEP_CHANGE (0.2f * SN_ANGULAR_SLEEP_TOLERANCE)
/// Largest rotation per substep (radians).
#define SN_MAX_ROTATION (0.25f * 3.14159265359f)
/// Huge number for initialisation.
#define SN_HUGE 100000.0f

#endif /* SN_BASE_CONSTANTS_H */
