/* sinew-plugin-check FILE.so: loads a constraint plugin the way the engine
 * does (every loader check: path, ABI, fingerprint, descriptor, parameter
 * schema) and runs the project's conformance checks on each of its types
 * (conformance.h): finite, momentum-conserving, repeatable bit for bit,
 * independent of where the host keeps its memory, across a snapshot round
 * trip, and batched as per item. Prints one line per check and a verdict;
 * exit 0 if everything passed, 1 if anything failed, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"

int main(int argc, char **argv) {
  uint32_t seeds = 20;
  const char *path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
      long v = strtol(argv[++i], NULL, 10);
      if (v < 1 || v > 1000) {
        fprintf(stderr, "sinew-plugin-check: --seeds wants 1..1000\n");
        return 2;
      }
      seeds = (uint32_t)v;
    } else if (path == NULL && argv[i][0] != '-') {
      path = argv[i];
    } else {
      fprintf(stderr, "usage: sinew-plugin-check [--seeds N] FILE.so\n");
      return 2;
    }
  }
  if (path == NULL) {
    fprintf(stderr, "usage: sinew-plugin-check [--seeds N] FILE.so\n");
    return 2;
  }
  sn_registry *registry = sn_create_registry(NULL);
  char msg[1024];
  sn_result loaded = sn_registry_load_plugin(registry, path, msg, sizeof msg);
  if (loaded != SN_OK) {
    printf("FAIL load: %s (%s)\nverdict: FAIL, %s does not load\n", msg, sn_result_name(loaded), path);
    sn_destroy_registry(registry);
    return 1;
  }
  int32_t count = sn_registry_get_type_count(registry);
  printf("ok   load: %d type%s, every loader check passed\n", (int)count, count == 1 ? "" : "s");
  int failures = 0, checked = 0;
  for (int32_t i = 0; i < count; ++i) {
    const sn_constraint_type *t = sn_registry_get_type(registry, i);
    if (!sn_conf_applies(t)) {
      printf("--   %s: one-body impulse type: conformance runs need two bodies or particles (not checked)\n", t->name);
      continue;
    }
    int created = 0;
    int f = sn_conf_check_type(registry, t, seeds, &created, stdout);
    failures += f;
    checked++;
    if (f == 0)
      printf("ok   %s: %d of %u random parameter sets; finite, momentum to 1e-5, same bits repeated, relocated, "
             "restored from a snapshot%s\n",
             t->name, created, seeds, t->solve_particles ? " and per item" : "");
  }
  if (checked == 0)
    printf("verdict: NOTHING CHECKED, the plugin loads but none of its types can be run by these checks\n");
  else
    printf("verdict: %s, %d type%s checked, %d failure%s\n", failures ? "FAIL" : "PASS", checked,
           checked == 1 ? "" : "s", failures, failures == 1 ? "" : "s");
  sn_destroy_registry(registry);
  return failures ? 1 : 0;
}
