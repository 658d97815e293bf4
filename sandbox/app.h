/* sinew-sandbox: shared declarations of the sandbox application (not part
 * of the engine). The sandbox sees worlds only through the public API and
 * the debug-draw callbacks of sinew/draw.h. */
#ifndef SINEW_SANDBOX_APP_H
#define SINEW_SANDBOX_APP_H

#include <SDL.h>
#include <stdbool.h>
#include <stdint.h>

#include "report.h"
#include "scenes.h"
#include "sinew/sinew.h"

#define SB_DT (1.0f / 60.0f)

/* ------------------------------------------------------------------ scenes */

/// The character of demo-character: a capsule moved by the world's mover
/// queries (demos.c, sb_character_update), not a body.
typedef struct sb_character {
  sn_vec2 position; ///< centre of the capsule's lower end
  sn_vec2 velocity;
  bool grounded;
  sn_vec2 ground_normal;
  int32_t planes; ///< contact planes of the last frame (overlay)
} sb_character;

/// What a demo's scripted motion needs between steps (joints to drive).
typedef struct sb_demo_state {
  sn_constraint_id joints[4];
  sn_body_id bodies[4];
  int32_t events; ///< scripted events fired so far (demo-explosion: blasts)
  sb_character character;
  double time; ///< the scene time of the last update (demos that draw by it)
  /// soft bodies inside a sensor, kept from the sensor events (sb_update_sensor)
  sn_soft_body_id lit_soft[16];
  int32_t lit_soft_count;
} sb_demo_state;

struct sb_renderer;

/// A scene the sandbox can show: a standard scene of sinew_scenes, or one of
/// the sandbox's own demos.
typedef struct sb_scene_info {
  const char *name;
  const char *description;
  bool standard; ///< built by sn_scene_build_ex
  /// demos: builds into scene (world, tracked bodies); registry has the plugins
  bool (*build)(sn_scene *scene, const sn_registry *registry, sb_demo_state *state);
  /// demos: called before every step with the scene time (scripted motion); may be NULL
  void (*update)(sn_scene *scene, sb_demo_state *state, double time);
  const char *plugins; ///< plugin types the demo needs, space separated ("" = none)
  sn_vec2 view_center; ///< view_height 0 = fit the dynamic bodies
  float view_height;   ///< metres visible vertically
  /// demos: draws over the world after each frame (query results, the
  /// character); may be NULL
  void (*draw)(sn_scene *scene, const sb_demo_state *state, struct sb_renderer *renderer);
} sb_scene_info;

/// Number of scenes (standard ones first, then demos), and the i-th.
int32_t sb_scene_count(void);
const sb_scene_info *sb_scene_at(int32_t index);
/// Scene by name, or NULL.
const sb_scene_info *sb_scene_find(const char *name);
/// Name of the default scene (the rigid + soft showcase).
const char *sb_default_scene(void);
/// Builds a scene; on failure writes a message to err and returns false
/// (the scene is then destroyed).
bool sb_scene_build(const sb_scene_info *info, sn_scene *scene, sb_demo_state *state, const sn_registry *registry,
                    char *err, size_t err_capacity);

/// Spawning at a world point. Jelly: a soft pressure ring (needs the
/// xpbd_distance and xpbd_area plugins in the world's registry).
bool sb_spawn_box(sn_world *world, sn_vec2 p);
bool sb_spawn_ball(sn_world *world, sn_vec2 p);
bool sb_spawn_jelly(sn_world *world, sn_vec2 p);

/// Scene files (FILE.json): the single entry point the scene-file library
/// plugs into. Returns false with a message while no such library is built in.
bool sb_scene_file_load(const char *path, const sn_registry *registry, sn_scene *scene, char *err, size_t err_capacity);
/// True if the argument names a file rather than a built-in scene.
bool sb_is_scene_file(const char *arg);

/* ------------------------------------------------------------------ render */

typedef struct sb_camera {
  sn_vec2 center; ///< world point at the middle of the screen
  float zoom;     ///< pixels per metre
  int width, height;
} sb_camera;

typedef struct sb_renderer {
  SDL_Renderer *sdl;
  sb_camera camera;
  float text_scale;
} sb_renderer;

sn_vec2 sb_screen_to_world(const sb_camera *cam, float x, float y);
/// Frames the scene (its view hint, or its dynamic bodies) in the camera.
void sb_camera_fit(sb_camera *cam, const sb_scene_info *info, const sn_scene *scene);

/// Clears to the background colour.
void sb_render_clear(sb_renderer *r);
/// Draws the world with the given sn_debug_draw flags.
sn_result sb_render_world(sb_renderer *r, sn_world *world, uint32_t flags);
/// Lights what is inside the world's sensors: the shapes each sensor lists
/// (sn_shape_get_sensor_overlaps) and the particles of the soft bodies the
/// demo state holds (lit_soft).
void sb_render_sensors(sb_renderer *r, sn_world *world, const sb_demo_state *state);
/// A world segment (e.g. from a dragged particle to the cursor).
void sb_render_segment(sb_renderer *r, sn_vec2 a, sn_vec2 b, uint32_t rgba);
/// Text at a screen position (top-left), in pixels; returns the line height.
float sb_render_text(sb_renderer *r, float x, float y, const char *text, uint32_t rgba);
/// Reads the renderer's pixels and writes an RGB PNG. False with a message.
bool sb_render_write_png(sb_renderer *r, const char *path, char *err, size_t err_capacity);

/* --------------------------------------------------------------- plugins */

/// Loads the plugin search path (SINEW_PLUGIN_PATH, then the installed folder) into a new
/// registry. Messages for failures go to stderr unless quiet. NULL only if
/// out of memory.
sn_registry *sb_load_plugins(bool quiet);

#endif
