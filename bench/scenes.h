/* The standard scenes of docs/benchmark.md, built through the public API only.
 * Shared by sinew-bench, the tests and (later) the sandbox. */
#ifndef SINEW_SCENES_H
#define SINEW_SCENES_H

#include "sinew/sinew.h"

/// A built scene: the world and what the metrics need.
typedef struct sn_scene {
  sn_world *world;
  const char *name;
  int32_t size;
  int32_t default_steps;
  sn_body_id *bodies; ///< dynamic bodies, creation order
  sn_vec2 *initial;   ///< their initial positions
  int32_t body_count;
  int32_t top_body;               ///< index into bodies of the one that started highest
  int32_t ratio_small, ratio_big; ///< ratio scene only, else -1
  bool is_rain;
  sn_registry *registry; ///< owned: constraint types (chain scene)
  float link_half;       ///< chain: half length of a link
  int32_t constraint_count;
  /* soft scenes */
  sn_soft_body_id *softs; ///< soft bodies, creation order
  int32_t soft_count;
  int32_t particle_count;
  int32_t *links; ///< distance constraints as particle slots (2 per link) into `particles`
  float *rest;    ///< their rest lengths
  int32_t link_count;
  int32_t *rings; ///< area constraints: ring_start[k]..ring_start[k+1] into ring_particles
  int32_t *ring_start;
  float *ring_area; ///< target areas
  int32_t ring_count;
  sn_particle_id *particles; ///< every particle, in soft-body order
  /* Box2D v3 suite scenes (bench/box2d_scenes.c) */
  struct sn_box2d_state *box2d; ///< owned; NULL for the other scenes
} sn_scene;

/// Scene metrics, the fields of docs/benchmark.md.
typedef struct sn_scene_metrics {
  double top_drift, max_dx, ke_end, min_y_gap;
  int32_t fallen;
  bool has_min_y_gap;
  double link_error; ///< chain: worst anchor separation / link length
  bool has_link_error;
  double max_strain;     ///< soft: worst |length / rest - 1| of the distance constraints
  double max_area_error; ///< soft: worst |area / target - 1| of the area constraints
  bool has_strain, has_area;
  uint64_t state_hash;
} sn_scene_metrics;

/// Names of the rigid scenes, NULL-terminated.
extern const char *const sn_rigid_scene_names[];
/// Names of the scenes of Box2D v3.1.1's benchmark app as this library builds
/// them (box2d-joint_grid, box2d-large_pyramid, box2d-many_pyramids,
/// box2d-rain, box2d-smash, box2d-spinner, box2d-tumbler), NULL-terminated.
extern const char *const sn_box2d_scene_names[];
/// Names of the soft and mixed scenes (cloth, jelly, mixed), NULL-terminated.
extern const char *const sn_soft_scene_names[];

/// Soft and mixed scenes (bench/soft_scenes.c); called by sn_scene_build.
bool sn_soft_scene_build(sn_scene *scene, const char *name, int32_t size, const sn_world_def *def);
void sn_soft_scene_destroy(sn_scene *scene);
void sn_soft_scene_measure(const sn_scene *scene, sn_scene_metrics *out, uint64_t *hash);
/// Tracks a soft body in scene (its particles, distance links and area
/// constraints, for the metrics; its constraints are counted): for scenes
/// built outside this library (the sandbox's demos). False with a message on
/// stderr if soft is not valid, or out of memory.
bool sn_scene_add_soft(sn_scene *scene, sn_soft_body_id soft);

/// End-of-run figures of a Box2D suite scene (docs/benchmark.md).
typedef struct sn_box2d_metrics {
  int32_t bodies, shapes, joints, contacts, touching_contacts, awake_bodies; ///< world counters
  double joint_separation; ///< joint_grid, rain: worst distance between a joint's two anchors (m)
  double lowest_y;         ///< joint_grid: lowest body origin (m)
  /// joint_grid: joints whose anchors are farther apart than 1 % of the
  /// joint's length (1 m), at the end: how many miss the lattice's bound
  int32_t joints_over_1pct;
  double top_drift;       ///< pyramids: largest displacement of a pyramid's top box from its start (m)
  int32_t fallen;         ///< pyramids: boxes more than 0.5 m below their start
  int32_t live_ragdolls;  ///< rain
  double limit_violation; ///< rain: worst joint angle outside its limits (rad), 0 if none
  /// rain: the two above at their worst after any step of the run (the end
  /// is one moment of a tumbling pile; sn_box2d_scene_observe)
  double joint_separation_max, limit_violation_max;
  int32_t woken;       ///< smash: bodies awake after some step (sn_box2d_scene_observe)
  double ram_speed;    ///< smash: the ram's final speed (m/s)
  double motor_angle;  ///< spinner: the motor joint's state "angle" (rad, in (-pi, pi])
  int32_t outside;     ///< spinner, tumbler: bodies outside the container
  uint64_t state_hash; ///< sn_scene_hash_bytes over every body's pose and velocity
} sn_box2d_metrics;

/// True for the names of sn_box2d_scene_names.
bool sn_box2d_scene_is(const char *name);
/// Step count of the Box2D app for a suite scene; 0 for other names.
int32_t sn_box2d_scene_default_steps(const char *name);
/// Builds a Box2D suite scene (sn_scene_build_def calls it for those names).
/// `size` 0 gives Box2D's scene; else joint_grid is size x size circles (pins
/// size/2 - 3 .. size/2 + 3 of the top row) and many_pyramids size x size
/// pyramids (the smaller scene files); the other scenes ignore it.
bool sn_box2d_scene_build(sn_scene *scene, const char *name, int32_t size, const sn_world_def *def);
void sn_box2d_scene_destroy(sn_scene *scene);
/// The scene's step callback with step index k, called before step k (and
/// with 0 before the first step): rain spawns and recycles ragdolls, spinner
/// reads its motor angle; nothing for the others. False (with a message on
/// stderr) if the world refused a call.
bool sn_box2d_scene_step_callback(sn_scene *scene, int32_t k);
/// Records, after a step, what the metrics follow over time (smash: the bodies awake).
void sn_box2d_scene_observe(sn_scene *scene);
void sn_box2d_scene_measure(const sn_scene *scene, sn_box2d_metrics *out);
/// The 360 points of the spinner's container chain.
void sn_box2d_spinner_points(sn_vec2 out[360]);

/// Builds scene `name` of `size` (0 = its default) with `substeps` (0 = the world default)
/// and sleep off unless `sleep`. Returns false for an unknown name.
bool sn_scene_build(sn_scene *scene, const char *name, int32_t size, int32_t substeps, bool sleep);
/// As sn_scene_build, with the worlds' constraint types taken from `registry`
/// (not owned; it must outlive the scene) when not NULL: the sandbox passes
/// one with every plugin so that any scene can use the mouse joint.
bool sn_scene_build_ex(sn_scene *scene, const char *name, int32_t size, int32_t substeps, bool sleep,
                       const sn_registry *registry);
/// As sn_scene_build_ex, with every world setting taken from `def` (made by
/// sn_default_world_def: its allocator, maximum speed, sleep, registry, ...;
/// the scene sets only its capacity hints): the soak mode passes a counting
/// allocator this way.
bool sn_scene_build_def(sn_scene *scene, const char *name, int32_t size, const sn_world_def *def);
void sn_scene_destroy(sn_scene *scene);
/// Folder with the shipped plugins (.so) for scenes that need them: the
/// The folder of the shipped plugins: the first folder of the plugin search
/// path (SINEW_PLUGIN_PATH, then the folder installed with libsinew, see
/// sn_plugin_search_path) that holds revolute.so. False if none does.
bool sn_scene_plugin_dir(char *out, size_t capacity);

/// The cards scene: cards 0.02 m x 1 m leaning `size` degrees (default 68)
/// from the horizontal in A-frames whose tops are 0.5 mm apart, apexes
/// 1.002 m apart, a flat card across each pair of neighbouring apexes.
#define SN_CARDS_DEFAULT_LEAN  68
#define SN_CARD_HALF_THICKNESS 0.01f
#define SN_CARD_HALF_LENGTH    0.5f
#define SN_CARDS_APEX_GAP      0.0005f
#define SN_CARDS_APEX_SPACING  1.002f
/// Adds a house of cards `storeys` high to s->world (ground top at y = 0):
/// storey k has storeys - k A-frames leaning `lean` radians from the
/// horizontal, the inner top corners of each apex_gap apart, apexes
/// apex_spacing apart, and a flat card across each pair of neighbouring
/// apexes. The cards join s's bodies: s needs room for storeys (storeys + 1)
/// + storeys (storeys - 1) / 2 of them (15 for 3 storeys).
void sn_build_card_house(sn_scene *s, int32_t storeys, float lean, float apex_gap, float apex_spacing);

/// Default size of a scene (pyramid 20, tower 20, rain 2000, ratio 1).
int32_t sn_scene_default_size(const char *name);
void sn_scene_measure(const sn_scene *scene, sn_scene_metrics *out);
/// FNV-1a over bytes, continuing from h (state hashes).
uint64_t sn_scene_hash_bytes(uint64_t h, const void *data, size_t n);

#endif
