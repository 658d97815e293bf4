/* Plugin files on POSIX systems: open once, check the open file and its
 * folders, load the same open file through /proc/self/fd (see
 * plugin_file.h). */
#define _GNU_SOURCE
#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1
#endif
#if SN_HAVE_DLOPEN /* else no file is loaded: the whole unit is empty */
#include "platform/plugin_file.h"
#include "platform/file_io.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// Descriptor numbers tried before giving up (each retry means the dynamic
/// loader answered with another library for the name).
#define SN_PLUGIN_LOAD_TRIES 16

static sn_result sn_fail(sn_result code, char *err, size_t cap, const char *fmt, ...) SN_PRINTF(4, 5);
static sn_result sn_fail(sn_result code, char *err, size_t cap, const char *fmt, ...) {
  if (err != NULL && cap > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, cap, fmt, args);
    va_end(args);
  }
  return code;
}

/* Why a folder on the way to the plugin is unsafe (false if it is safe).
 * own: the plugin's own folder, where no sticky bit excuses others' write. */
static bool sn_folder_unsafe(const struct stat *ds, bool own, uid_t me, char *why, size_t cap) {
  if (!S_ISDIR(ds->st_mode)) return snprintf(why, cap, "is %s", sn_file_kind(ds->st_mode)), true;
  if (ds->st_uid != 0 && ds->st_uid != me) {
    snprintf(why, cap,
             "is owned by uid %u (every folder above a plugin must belong to root or to this process's user, uid %u)",
             (unsigned)ds->st_uid, (unsigned)me);
    return true;
  }
  mode_t w = ds->st_mode & (S_IWGRP | S_IWOTH);
  if (w == 0) return false;
  bool root_sticky = (ds->st_mode & S_ISVTX) != 0 && ds->st_uid == 0;
  if (root_sticky && !own) return false; /* like /tmp: others cannot rename or remove what is ours */
  const char *who = (w & S_IWOTH) ? "others" : "its group";
  if (root_sticky)
    snprintf(why, cap,
             "is writable by %s (the sticky bit is accepted only on a root-owned folder above the plugin's own folder)",
             who);
  else
    snprintf(why, cap, "is writable by %s (chmod %s-w)", who, (w & S_IWOTH) ? "o" : "g");
  return true;
}

/* Walks from "/" down to the folder of real (the open file's path), opening
 * each folder by its name inside the one above (never following a symbolic
 * link), checks each, then checks that the file in the last folder is the
 * open one. */
static sn_result sn_check_folders(const char *given, const struct stat *st, const char *real, char *err, size_t cap) {
  uid_t me = geteuid();
  const char *last = strrchr(real, '/');
  size_t own_end = last == real ? 1 : (size_t)(last - real); /* length of the own folder's path */
  int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open the folder /", given);
  char folder[PATH_MAX], why[256], reason[128];
  size_t end = 1; /* the folder being checked is real[0, end) */
  for (;;) {
    struct stat ds;
    if (fstat(dfd, &ds) != 0) {
      close(dfd);
      return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot check a folder above it", given);
    }
    snprintf(folder, sizeof folder, "%.*s", (int)end, real);
    bool own = end == own_end;
    if (sn_folder_unsafe(&ds, own, me, why, sizeof why)) {
      close(dfd);
      return sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap, "%s: refused, %s %s %s", given,
                     own ? "its folder" : "the folder", folder, why);
    }
    if (own) break;
    size_t start = end == 1 ? 1 : end + 1;
    const char *slash = strchr(real + start, '/');
    size_t next_end = (size_t)(slash - real);
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(next_end - start), real + start);
    int next = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(dfd);
    if (next < 0) {
      sn_file_reason(e, reason, sizeof reason);
      return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open the folder %.*s: %s", given, (int)next_end, real,
                     reason);
    }
    dfd = next;
    end = next_end;
  }
  struct stat fs;
  bool same =
      fstatat(dfd, last + 1, &fs, AT_SYMLINK_NOFOLLOW) == 0 && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino;
  close(dfd);
  if (!same)
    return sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                   "%s: refused, the file was moved or replaced while it was checked", given);
  return SN_OK;
}

sn_result sn_plugin_file_open(const char *path, sn_plugin_file *file, char *err, size_t cap) {
  file->fd = -1;
  file->path[0] = '\0';
  char reason[128];
  /* a first look without opening: a FIFO or a device is never opened */
  struct stat st;
  if (lstat(path, &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: no such file", path);
    sn_file_reason(e, reason, sizeof reason);
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open: %s", path, reason);
  }
  if (S_ISLNK(st.st_mode))
    return sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                   "%s: refused, it is a symbolic link (give the path of the file itself)", path);
  if (!S_ISREG(st.st_mode))
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a regular file (%s)", path, sn_file_kind(st.st_mode));
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ELOOP)
      return sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                     "%s: refused, it is a symbolic link (give the path of the file itself)", path);
    if (e == ENOENT) return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: no such file", path);
    sn_file_reason(e, reason, sizeof reason);
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open: %s", path, reason);
  }
  /* from here on only the open file counts: what the name shows may change */
  sn_result res = SN_OK;
  uid_t me = geteuid();
  if (fstat(fd, &st) != 0)
    res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot check the open file", path);
  else if (!S_ISREG(st.st_mode))
    res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a regular file (%s)", path, sn_file_kind(st.st_mode));
  else if (st.st_uid != 0 && st.st_uid != me)
    res = sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                  "%s: refused, the file is owned by uid %u (a plugin must belong to root or to this process's user, "
                  "uid %u)",
                  path, (unsigned)st.st_uid, (unsigned)me);
  else if (st.st_mode & S_IWOTH)
    res =
        sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap, "%s: refused, the file is writable by others (chmod o-w)", path);
  else if (st.st_mode & S_IWGRP)
    res = sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap, "%s: refused, the file is writable by its group (chmod g-w)",
                  path);
  if (res == SN_OK) {
    /* the kernel's name of the open file: absolute, no symbolic links */
    char link[48];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, file->path, sizeof(file->path) - 1);
    if (n <= 0 || (size_t)n >= sizeof(file->path) - 1 || file->path[0] != '/')
      res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap,
                    "%s: cannot load it: plugins are loaded through /proc/self/fd, which this system does not have",
                    path);
    else
      file->path[n] = '\0';
  }
  if (res == SN_OK) res = sn_check_folders(path, &st, file->path, err, cap);
  if (res != SN_OK) {
    close(fd);
    file->path[0] = '\0';
    return res;
  }
  file->fd = fd;
  file->dev = (uint64_t)st.st_dev;
  file->ino = (uint64_t)st.st_ino;
  return SN_OK;
}

typedef struct sn_object_query {
  ElfW(Addr) addr;
  const char *name;
  const ElfW(Phdr) * phdr;
  ElfW(Half) phnum;
  bool found;
} sn_object_query;

static int sn_find_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  sn_object_query *q = data;
  if (info->dlpi_addr != q->addr || info->dlpi_name == NULL || strcmp(info->dlpi_name, q->name) != 0) return 0;
  q->phdr = info->dlpi_phdr;
  q->phnum = info->dlpi_phnum;
  q->found = true;
  return 1;
}

static bool sn_read_at(int fd, void *buffer, size_t n, off_t at) {
  unsigned char *p = buffer;
  while (n > 0) {
    ssize_t k = pread(fd, p, n, at);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
    at += k;
  }
  return true;
}

/* Does the loaded library `handle` map the open file fd? Its program
 * headers must be the file's, and every executable, read-only segment in
 * memory must hold the file's bytes. */
static bool sn_maps_file(void *handle, int fd) {
  struct link_map *lm = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_name == NULL) return false;
  sn_object_query q = {lm->l_addr, lm->l_name, NULL, 0, false};
  dl_iterate_phdr(sn_find_object, &q);
  if (!q.found || q.phdr == NULL) return false;
  struct stat st;
  ElfW(Ehdr) eh;
  if (fstat(fd, &st) != 0 || !sn_read_at(fd, &eh, sizeof eh, 0)) return false;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum != q.phnum)
    return false;
  for (ElfW(Half) i = 0; i < eh.e_phnum; ++i) {
    ElfW(Phdr) ph;
    if (!sn_read_at(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (ElfW(Off))i * sizeof ph))) return false;
    if (memcmp(&ph, q.phdr + i, sizeof ph) != 0) return false;
  }
  for (ElfW(Half) i = 0; i < eh.e_phnum; ++i) {
    const ElfW(Phdr) *ph = q.phdr + i;
    if (ph->p_type != PT_LOAD || (ph->p_flags & (PF_R | PF_X | PF_W)) != (PF_R | PF_X)) continue;
    if (ph->p_offset > (ElfW(Off))st.st_size || ph->p_filesz > (ElfW(Off))st.st_size - ph->p_offset) return false;
    const unsigned char *memory = (const unsigned char *)(lm->l_addr + ph->p_vaddr);
    unsigned char chunk[4096];
    for (ElfW(Xword) done = 0; done < ph->p_filesz;) {
      size_t n = ph->p_filesz - done < sizeof chunk ? (size_t)(ph->p_filesz - done) : sizeof chunk;
      if (!sn_read_at(fd, chunk, n, (off_t)(ph->p_offset + done)) || memcmp(chunk, memory + done, n) != 0) return false;
      done += n;
    }
  }
  return true;
}

void *sn_plugin_file_load(sn_plugin_file *file, char *err, size_t cap) {
  int tried[SN_PLUGIN_LOAD_TRIES];
  int count = 0, fd = (int)file->fd;
  void *handle = NULL;
  char reason[128];
  for (;;) {
    char name[48];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    /* a library the loader already has under this name or for this file
     * is returned as it is: check that it is this file. A new load through
     * a name nothing answers to yet maps the open file itself. */
    void *existing = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    (void)dlerror();
    handle = existing != NULL ? existing : dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      const char *why = dlerror();
      size_t n = strlen(name);
      if (why != NULL && strncmp(why, name, n) == 0 && strncmp(why + n, ": ", 2) == 0)
        why += n + 2; /* names the file */
      sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a loadable shared object: %s", file->path, why ? why : "?");
      break;
    }
    if (existing == NULL || sn_maps_file(handle, fd)) break;
    /* the loader matched the name to a library loaded earlier through a
     * descriptor of this number, since closed: try another number */
    dlclose(handle);
    handle = NULL;
    if (count == SN_PLUGIN_LOAD_TRIES) {
      sn_fail(SN_ERR_PLUGIN_OPEN, err, cap,
              "%s: the dynamic loader answered with another library for each of %d descriptors", file->path,
              SN_PLUGIN_LOAD_TRIES + 1);
      break;
    }
    int next = fcntl((int)file->fd, F_DUPFD_CLOEXEC, fd + 1);
    if (next < 0) {
      sn_file_reason(errno, reason, sizeof reason);
      sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot duplicate its descriptor: %s", file->path, reason);
      break;
    }
    tried[count++] = next;
    fd = next;
  }
  /* keep the descriptor whose name the library now answers to; close the rest */
  if (handle != NULL && fd != file->fd) {
    close((int)file->fd);
    file->fd = fd;
  }
  for (int i = 0; i < count; ++i) {
    if (tried[i] != file->fd) close(tried[i]);
  }
  return handle;
}

void sn_plugin_file_close(sn_plugin_file *file) {
  if (file->fd >= 0) close((int)file->fd);
  file->fd = -1;
}

void *sn_plugin_library_symbol(void *library, const char *name) { return dlsym(library, name); }

void sn_plugin_library_close(void *library) { dlclose(library); }
#else
typedef int sn_plugin_file_unused; /* ISO C wants a declaration in every unit */
#endif
