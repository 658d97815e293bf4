/* Files (internal): opening a path for reading without hanging on a FIFO,
 * and replacing a file atomically. Used by the snapshot files
 * (core/snapshot.c) and, compiled into it too, by the scene library
 * (scenefile/). Messages are one line naming the path and the system's
 * reason. */
#ifndef SN_CORE_FILE_IO_H
#define SN_CORE_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/// "a folder", "a FIFO", "a socket", ... for a mode that is no regular file.
const char *sn_file_kind(mode_t mode);

/// The system's text for errno e (strerror_r), into buf.
void sn_file_reason(int e, char *buf, size_t cap);

/// Opens path read-only. The open never waits (O_NONBLOCK, so a FIFO with no
/// writer cannot hang it); anything but a regular file is refused; then the
/// descriptor is made blocking again for reading. Returns the descriptor
/// and fills *st, or -1 with why, which does not repeat the path ("cannot
/// open: <reason>" or "not a regular file (a FIFO)").
int sn_file_open_read(const char *path, struct stat *st, char *why, size_t cap);

/// Where sn_file_write_atomic pretends to fail (tests only; 0 = nowhere).
typedef enum sn_file_fault {
  SN_FILE_FAULT_NONE = 0,
  SN_FILE_FAULT_WRITE = 1,  ///< after half of the bytes reached the temporary file
  SN_FILE_FAULT_SYNC = 2,   ///< at fsync of the temporary file
  SN_FILE_FAULT_RENAME = 3, ///< at the rename over the target
  SN_FILE_FAULT_EXIT = 4,   ///< _exit(70) after half of the bytes: a process killed while writing
  SN_FILE_FAULT_MASK = 7,
  SN_FILE_NAMED_TEMP = 8 ///< flag: write through a named temporary file from the start (as where
                         ///< O_TMPFILE is not supported)
} sn_file_fault;

/// Replaces the file at path with size bytes, atomically: the bytes go to a
/// new file in the target's folder, which is flushed (fsync), given the
/// permission bits of the file it replaces (new files get 0666 less the
/// umask, as fopen gives), renamed over the target, and the folder is
/// flushed. The new file is unnamed (O_TMPFILE) until it is complete, so a
/// process killed while writing leaves nothing; where that is not
/// supported it is "<name>.tmp-<8 random characters>", created
/// exclusively. A symbolic link at path is followed: the file it points to
/// is replaced and the link kept (a link to nothing is refused). An existing
/// target that is not a regular file is refused. On any failure the target
/// is unchanged, no temporary file is left, and why says which step failed
/// and the system's reason. fault: sn_file_fault (tests).
bool sn_file_write_atomic(const char *path, const void *bytes, size_t size, int fault, char *why, size_t cap);

#endif /* SN_CORE_FILE_IO_H */
