/* Runs a fuzz target over files without libFuzzer: every file named on the
 * command line, or every file in a named folder. The normal (gcc, Release and
 * ASan) builds register one CTest test per target that replays its seed corpus
 * in fuzz/corpus/<target>/, so crashes found once stay fixed.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL) return 1;
  /* an exact-size copy so ASan catches reads past the input */
  uint8_t *exact = malloc(n ? n : 1);
  if (exact == NULL) return free(buf), 1;
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      failures += run_file(argv[i]);
      files++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (d == NULL) return 1;
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (e->d_name[0] == '.') continue;
      char **more = realloc(names, (count + 1) * sizeof(char *));
      if (more == NULL) return 1;
      names = more;
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[count] = malloc(len);
      if (names[count] == NULL) return 1;
      snprintf(names[count++], len, "%s/%s", argv[i], e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof(char *), cmp_names);
    for (size_t k = 0; k < count; ++k) {
      failures += run_file(names[k]);
      files++;
      free(names[k]);
    }
    free(names);
  }
  printf("replay: %d inputs, %d unreadable\n", files, failures);
  return failures == 0 && files > 0 ? 0 : 1;
}
