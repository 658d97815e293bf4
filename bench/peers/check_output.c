#define _POSIX_C_SOURCE 200809L
/* ctest bench_peers: runs `sinew-bench --peers ...` (argv[1..]) and checks
 * its output: every line is a JSON object (or a "peer not built" notice),
 * each scene has a Sinew line, one line per peer built in with the stability
 * fields of docs/benchmark.md, and a ratio line with a ratio per peer. No
 * timing is asserted. Exits 77 (skipped) when no peer is built in. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int failures = 0;

static void fail(const char *what, const char *line) {
  fprintf(stderr, "bench_peers: %s\n  line: %s\n", what, line);
  failures++;
}

static bool is_number(const cJSON *o, const char *key) {
  return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, key));
}

static bool is_number_or_null(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) || cJSON_IsNull(v);
}

static void check_engine_line(const cJSON *o, const char *line) {
  static const char *const numbers[] = {"size",     "steps",     "bodies", "ms_step_median", "ms_step_p95",
                                        "ms_total", "top_drift", "max_dx", "fallen",         "ke_end"};
  for (size_t k = 0; k < sizeof(numbers) / sizeof(numbers[0]); ++k) {
    if (!is_number(o, numbers[k])) {
      char msg[96];
      snprintf(msg, sizeof msg, "field %s missing or not a number", numbers[k]);
      fail(msg, line);
    }
  }
  if (!is_number_or_null(o, "min_y_gap") || !is_number_or_null(o, "link_error"))
    fail("min_y_gap / link_error missing", line);
  if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "state_hash")) ||
      !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "settings")) ||
      !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "scene")))
    fail("scene / settings / state_hash missing", line);
  double dx = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "max_dx"));
  double ke = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "ke_end"));
  if (!isfinite(dx) || !isfinite(ke) || ke < 0.0) fail("max_dx / ke_end not finite", line);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: check_peers_output SINEW-BENCH ARGS...\n");
    return 2;
  }
  char cmd[4096] = "";
  for (int i = 1; i < argc; ++i) {
    strncat(cmd, "'", sizeof cmd - strlen(cmd) - 1);
    strncat(cmd, argv[i], sizeof cmd - strlen(cmd) - 1);
    strncat(cmd, "' ", sizeof cmd - strlen(cmd) - 1);
  }
  FILE *p = popen(cmd, "r");
  if (p == NULL) {
    perror("popen");
    return 1;
  }
  int not_built = 0, sinew_lines = 0, peer_lines = 0, ratio_lines = 0, peers_in_scene = 0;
  char peer_keys[4][32];
  char line[8192];
  while (fgets(line, sizeof line, p) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    printf("%s\n", line);
    if (strncmp(line, "sinew-bench: peer not built:", 28) == 0) {
      not_built++;
      continue;
    }
    cJSON *o = cJSON_Parse(line);
    if (!cJSON_IsObject(o)) {
      fail("not a JSON object", line);
      cJSON_Delete(o);
      continue;
    }
    const cJSON *engine = cJSON_GetObjectItemCaseSensitive(o, "engine");
    if (cJSON_IsString(engine)) {
      check_engine_line(o, line);
      if (strncmp(engine->valuestring, "sinew-", 6) == 0) {
        sinew_lines++;
        peers_in_scene = 0;
      } else {
        peer_lines++;
        if (peers_in_scene < 4) {
          size_t n = strcspn(engine->valuestring, "-");
          if (n >= sizeof peer_keys[0]) n = sizeof peer_keys[0] - 1;
          memcpy(peer_keys[peers_in_scene], engine->valuestring, n);
          peer_keys[peers_in_scene][n] = '\0';
        }
        peers_in_scene++;
      }
    } else {
      ratio_lines++;
      if (peers_in_scene == 0) fail("ratio line without peer lines before it", line);
      for (int k = 0; k < peers_in_scene && k < 4; ++k) {
        char key[160];
        snprintf(key, sizeof key, "ratio_%s", peer_keys[k]);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!cJSON_IsNumber(r) || !(r->valuedouble > 0.0) || !isfinite(r->valuedouble)) fail("ratio missing", line);
      }
    }
    cJSON_Delete(o);
  }
  int status = pclose(p);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_peers: sinew-bench failed (status %d)\n", status);
    return 1;
  }
  if (peer_lines == 0 && not_built > 0) {
    printf("bench_peers: no peer built in; skipped\n");
    return 77;
  }
  if (sinew_lines == 0 || peer_lines == 0 || ratio_lines != sinew_lines) {
    fprintf(stderr, "bench_peers: expected Sinew, peer and ratio lines (got %d, %d, %d)\n", sinew_lines, peer_lines,
            ratio_lines);
    failures++;
  }
  if (failures == 0) printf("bench_peers: %d scene(s), %d peer line(s): ok\n", sinew_lines, peer_lines);
  return failures == 0 ? 0 : 1;
}
