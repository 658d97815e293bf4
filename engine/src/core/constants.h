/* Engine-wide tuning constants (internal). Lengths in metres. */
#ifndef SN_CORE_CONSTANTS_H
#define SN_CORE_CONSTANTS_H

/// Collision and constraint tolerance: the allowed gap/overlap noise.
#define SN_LINEAR_SLOP 0.005f
/// Contact points are kept (speculatively) up to this separation.
#define SN_SPECULATIVE_DISTANCE (4.0f * SN_LINEAR_SLOP)
/// Fat AABB margin of the broadphase.
#define SN_AABB_MARGIN 0.1f
/// Polygon radius used so that GJK/TOI keep a small gap.
#define SN_POLYGON_RADIUS (2.0f * SN_LINEAR_SLOP)
/// Points closer than this are welded when building polygons.
#define SN_WELD_DISTANCE 0.0005f
/// A body sleeps after this long below the sleep speeds.
#define SN_TIME_TO_SLEEP 0.5f
/// Linear sleep tolerance (m/s).
#define SN_LINEAR_SLEEP_TOLERANCE 0.05f
/// Angular sleep tolerance (rad/s).
#define SN_ANGULAR_SLEEP_TOLERANCE (2.0f / 180.0f * 3.14159265359f)
/// Largest rotation per substep (radians).
#define SN_MAX_ROTATION (0.25f * 3.14159265359f)
/// Huge number for initialisation.
#define SN_HUGE 100000.0f

#endif /* SN_CORE_CONSTANTS_H */
