/* The platform layer on POSIX systems (see platform.h). */
#define _GNU_SOURCE /* dladdr */
#include "platform/platform.h"

#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1 /* the build sets it (CMake option SINEW_DLOPEN) */
#endif

#include <dirent.h>
#if SN_HAVE_DLOPEN
#include <dlfcn.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#if !defined(__STDC_NO_THREADS__)
#include <threads.h>
#else
#include <sched.h>
#endif

double sn_clock_ms(void) {
#if defined(CLOCK_MONOTONIC)
  struct timespec t;
  if (clock_gettime(CLOCK_MONOTONIC, &t) == 0) return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
#endif
  struct timespec u;
  if (timespec_get(&u, TIME_UTC) != TIME_UTC) return 0.0;
  return (double)u.tv_sec * 1e3 + (double)u.tv_nsec * 1e-6;
}

double sn_thread_cpu_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void sn_thread_yield(void) {
#if !defined(__STDC_NO_THREADS__)
  thrd_yield();
#else
  sched_yield();
#endif
}

bool sn_path_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool sn_path_real(const char *path, char *out, size_t cap) {
  char real[PATH_MAX];
  if (realpath(path, real) == NULL) return false;
  size_t n = strlen(real);
  if (n + 1 > cap) return false;
  memcpy(out, real, n + 1);
  return true;
}

bool sn_self_path(char *out, size_t cap) {
#if SN_HAVE_DLOPEN
  Dl_info info;
  if (dladdr((const void *)(uintptr_t)&sn_self_path, &info) == 0 || info.dli_fname == NULL) return false;
  return sn_path_real(info.dli_fname, out, cap);
#else
  (void)out, (void)cap;
  return false;
#endif
}

bool sn_dir_list(const char *dir, sn_dir_entry_fcn *fcn, void *context) {
  DIR *d = opendir(dir);
  if (d == NULL) return false;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (!fcn(e->d_name, context)) break;
  }
  closedir(d);
  return true;
}
