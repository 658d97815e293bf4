/* Files on POSIX systems: reading without hanging, atomic replacement
 * (see file_io.h). */
#define _GNU_SOURCE
#include "platform/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

const char *sn_file_kind(mode_t mode) {
  return S_ISDIR(mode)    ? "a folder"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISLNK(mode)  ? "a symbolic link"
                          : "not a regular file";
}

void sn_file_reason(int e, char *buf, size_t cap) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  const char *s = strerror_r(e, buf, cap); /* the GNU variant: may return a constant string */
  if (s != buf) snprintf(buf, cap, "%s", s);
#else
  if (strerror_r(e, buf, cap) != 0) snprintf(buf, cap, "errno %d", e);
#endif
}

static void sn_why(char *why, size_t cap, const char *what, const char *path, int e) {
  if (why == NULL || cap == 0) return;
  char reason[128];
  sn_file_reason(e, reason, sizeof reason);
  snprintf(why, cap, "cannot %s %s: %s", what, path, reason);
}

int sn_file_open_read(const char *path, struct stat *st, char *why, size_t cap) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  const char *step = "open";
  if (fd >= 0) {
    step = "check";
    if (fstat(fd, st) == 0) {
      if (!S_ISREG(st->st_mode)) {
        if (why != NULL && cap > 0) snprintf(why, cap, "not a regular file (%s)", sn_file_kind(st->st_mode));
        close(fd);
        return -1;
      }
      step = "read";
      int flags = fcntl(fd, F_GETFL);
      if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0) return fd;
    }
  }
  int e = errno;
  if (fd >= 0) close(fd);
  if (why != NULL && cap > 0) {
    char reason[128];
    sn_file_reason(e, reason, sizeof reason);
    snprintf(why, cap, "cannot %s: %s", step, reason);
  }
  return -1;
}

bool sn_file_reader_open(sn_file_reader *file, const char *path, char *why, size_t cap) {
  struct stat st;
  int fd = sn_file_open_read(path, &st, why, cap);
  file->handle = fd;
  file->size = fd >= 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0u;
  return fd >= 0;
}

ptrdiff_t sn_file_reader_read(sn_file_reader *file, void *buffer, size_t n, char *why, size_t cap) {
  for (;;) {
    ssize_t k = read((int)file->handle, buffer, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && why != NULL && cap > 0) sn_file_reason(errno, why, cap);
    return k < 0 ? -1 : (ptrdiff_t)k;
  }
}

void sn_file_reader_close(sn_file_reader *file) {
  if (file->handle >= 0) close((int)file->handle);
  file->handle = -1;
}

bool sn_file_is_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool sn_write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return false;
    if (k == 0) {
      errno = EIO;
      return false;
    }
    p += k;
    n -= (size_t)k;
  }
  return true;
}

/* Eight characters [0-9a-z] from the system's random source (or, if it
 * fails, from the clock, the process id and the attempt). */
static void sn_random_suffix(char out[9], int attempt) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
        (uint64_t)(attempt + 1) * 0x9e3779b97f4a7c15ull;
  }
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  for (int i = 0; i < 8; ++i) {
    out[i] = digits[v % 36u];
    v /= 36u;
  }
  out[8] = '\0';
}

/* "<dir>/<base>.tmp-XXXXXXXX" (base shortened to keep the name short enough). */
static bool sn_temp_name(char *tmp, size_t cap, const char *dir, const char *base, int attempt) {
  char suffix[9];
  sn_random_suffix(suffix, attempt);
  size_t n = strlen(base);
  int w = snprintf(tmp, cap, "%s/%.*s.tmp-%s", dir, (int)(n > 200 ? 200 : n), base, suffix);
  return w > 0 && (size_t)w < cap;
}

bool sn_file_write_atomic(const char *path, const void *bytes, size_t size, int fault, char *why, size_t cap) {
  if (why != NULL && cap > 0) why[0] = '\0';
  int step_fault = fault & SN_FILE_FAULT_MASK;
  /* the file to replace: path, or what a symbolic link at path points to */
  char target[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
  struct stat st;
  bool exists = false;
  if (strlen(path) >= sizeof target) {
    sn_why(why, cap, "write", path, ENAMETOOLONG);
    return false;
  }
  snprintf(target, sizeof target, "%s", path);
  if (lstat(path, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      if (realpath(path, target) == NULL) {
        int e = errno;
        char reason[128];
        sn_file_reason(e, reason, sizeof reason);
        if (why != NULL && cap > 0)
          snprintf(why, cap, "%s is a symbolic link to nothing that can be written (%s)", path, reason);
        return false;
      }
      if (stat(target, &st) != 0) {
        sn_why(why, cap, "check", target, errno);
        return false;
      }
    }
    if (!S_ISREG(st.st_mode)) {
      if (why != NULL && cap > 0)
        snprintf(why, cap, "%s exists and is not a regular file (%s)", target, sn_file_kind(st.st_mode));
      return false;
    }
    exists = true;
  } else if (errno != ENOENT) {
    sn_why(why, cap, "check", path, errno);
    return false;
  }
  const char *slash = strrchr(target, '/');
  const char *base = slash ? slash + 1 : target;
  if (slash == NULL)
    snprintf(dir, sizeof dir, ".");
  else if (slash == target)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - target), target);

  /* the new file: unnamed until complete where the system allows it */
  bool named = false;
  int fd = -1;
  if (!(fault & SN_FILE_NAMED_TEMP) && access("/proc/self/fd", X_OK) == 0)
    fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    named = true;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      if (!sn_temp_name(tmp, sizeof tmp, dir, base, attempt)) {
        sn_why(why, cap, "create a temporary file in", dir, ENAMETOOLONG);
        return false;
      }
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) break; /* EEXIST: another file has that name, draw again */
    }
    if (fd < 0) {
      sn_why(why, cap, "create a temporary file in", dir, errno);
      return false;
    }
  }
  char unnamed[PATH_MAX + 8];
  snprintf(unnamed, sizeof unnamed, "in %s", dir);
  const char *what = named ? tmp : unnamed;
  const char *failed = NULL;
  int e = 0;
  size_t first = step_fault == SN_FILE_FAULT_WRITE || step_fault == SN_FILE_FAULT_EXIT ? size / 2 : size;
  if (!sn_write_all(fd, bytes, first)) {
    failed = "write the new file", e = errno;
  } else if (step_fault == SN_FILE_FAULT_EXIT) {
    _exit(70);
  } else if (step_fault == SN_FILE_FAULT_WRITE) {
    failed = "write the new file", e = EIO;
  }
  if (failed == NULL && exists) {
    /* the replaced file's owner and group where allowed, and its permission bits */
    if (st.st_uid != geteuid() || st.st_gid != getegid()) {
      if (fchown(fd, st.st_uid, st.st_gid) != 0) (void)!fchown(fd, (uid_t)-1, st.st_gid);
    }
    if (fchmod(fd, st.st_mode & 07777) != 0) failed = "set the permissions of the new file", e = errno;
  }
  if (failed == NULL && (step_fault == SN_FILE_FAULT_SYNC || fsync(fd) != 0))
    failed = "flush the new file", e = step_fault == SN_FILE_FAULT_SYNC ? EIO : errno;
  if (failed == NULL && !named) {
    /* complete: give it a name beside the target */
    char self[48];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (!sn_temp_name(tmp, sizeof tmp, dir, base, attempt)) {
        failed = "name the new file", e = ENAMETOOLONG;
        break;
      }
      if (linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
        named = true;
        break;
      }
      if (errno != EEXIST) {
        failed = "name the new file", e = errno;
        break;
      }
    }
    if (failed == NULL && !named) failed = "name the new file", e = EEXIST;
    what = named ? tmp : unnamed;
  }
  if (close(fd) != 0 && failed == NULL) failed = "close the new file", e = errno;
  if (failed == NULL && (step_fault == SN_FILE_FAULT_RENAME || rename(tmp, target) != 0))
    failed = "rename the new file to", e = step_fault == SN_FILE_FAULT_RENAME ? EIO : errno, what = target;
  if (failed != NULL) {
    if (named) unlink(tmp);
    sn_why(why, cap, failed, what, e);
    return false;
  }
  /* make the rename itself durable (best effort: some file systems cannot sync a folder) */
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  return true;
}
