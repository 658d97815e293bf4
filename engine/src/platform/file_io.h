/* Files (internal, part of the platform layer: platform.h): reading a path
 * without hanging on a FIFO, and replacing a file atomically. Used by the
 * snapshot files (world/snapshot_file.c) and, compiled into it too, by the scene
 * library (scenefile/). Messages are one line naming the path and the
 * system's reason. file_io_posix.c or file_io_win32.c implements it. */
#ifndef SN_PLATFORM_FILE_IO_H
#define SN_PLATFORM_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The system's text for errno e (strerror_r), into buf.
void sn_file_reason(int e, char *buf, size_t cap);

/// A file open for reading (sn_file_reader_open).
typedef struct sn_file_reader {
  intptr_t handle; ///< the descriptor (POSIX) or HANDLE (Windows); -1 when closed
  uint64_t size;   ///< its size when it was opened
} sn_file_reader;

/// Opens path for reading: never waits (a FIFO with no writer cannot hang
/// it) and refuses anything but a regular file. false with why, which does
/// not repeat the path ("cannot open: <reason>" or "not a regular file (a
/// FIFO)").
bool sn_file_reader_open(sn_file_reader *file, const char *path, char *why, size_t cap);

/// Reads up to n bytes: how many, 0 at the end of the file, -1 on an error
/// (why gets the system's reason).
ptrdiff_t sn_file_reader_read(sn_file_reader *file, void *buffer, size_t n, char *why, size_t cap);

/// Closes the file (again is harmless).
void sn_file_reader_close(sn_file_reader *file);

/// True if path names a regular file (following symbolic links).
bool sn_file_is_regular(const char *path);

#if !defined(_WIN32)
#include <sys/stat.h>
#include <sys/types.h>

/// "a folder", "a FIFO", "a socket", ... for a mode that is no regular file.
const char *sn_file_kind(mode_t mode);

/// Opens path read-only. The open never waits (O_NONBLOCK, so a FIFO with no
/// writer cannot hang it); anything but a regular file is refused; then the
/// descriptor is made blocking again for reading. Returns the descriptor
/// and fills *st, or -1 with why, which does not repeat the path ("cannot
/// open: <reason>" or "not a regular file (a FIFO)"). POSIX only: what
/// sn_file_reader_open does there.
int sn_file_open_read(const char *path, struct stat *st, char *why, size_t cap);
#endif

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
///
/// On Windows: the new file is always the named one, flushed with
/// FlushFileBuffers and moved over the target with MoveFileEx
/// (MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH); a process killed
/// while writing leaves that temporary file behind; the replaced file's
/// attributes and ACL are not copied; a symbolic link at path is followed
/// (GetFinalPathNameByHandle).
bool sn_file_write_atomic(const char *path, const void *bytes, size_t size, int fault, char *why, size_t cap);

#endif /* SN_PLATFORM_FILE_IO_H */
