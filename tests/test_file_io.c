/* File helpers shared by snapshot and scene files (platform/file_io.h):
 * reading never hangs on a FIFO and refuses what is not a regular file;
 * the atomic writer keeps the replaced file's permission bits, writes
 * through a symbolic link, leaves no temporary file after any failure, and
 * none when the process dies while writing (the unnamed temporary file);
 * both ways of making the temporary file are run. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_main.h"
#include "platform/file_io.h"

static void scratch(char *out) {
  snprintf(out, 64, "/tmp/sinew_files_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

static void remove_tree(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *path, const char *text, mode_t mode) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(chmod(path, mode), 0);
}

/* The whole file as text ("" if it cannot be read). */
static void get(const char *path, char *out, size_t cap) {
  out[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (f == NULL) return;
  size_t n = fread(out, 1, cap - 1, f);
  out[n] = '\0';
  fclose(f);
}

/* Names in dir (not . and ..), sorted into one "a,b," string. */
static int listing(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  char names[16][256];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    ck_assert_int_lt(n, 16);
    snprintf(names[n++], 256, "%s", e->d_name);
  }
  closedir(d);
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; --j) {
      char t[256];
      memcpy(t, names[j], 256);
      memcpy(names[j], names[j - 1], 256);
      memcpy(names[j - 1], t, 256);
    }
  }
  out[0] = '\0';
  for (int i = 0; i < n; ++i) {
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s,", names[i]);
  }
  return n;
}

static const int ways[] = {0, SN_FILE_NAMED_TEMP};

START_TEST(test_read_refuses_what_is_no_regular_file) {
  char dir[64], path[128], why[256];
  scratch(dir);
  alarm(20); /* an open that waits for a FIFO writer fails the test instead of hanging */
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  struct stat st;
  ck_assert_int_eq(sn_file_open_read(path, &st, why, sizeof why), -1);
  ck_assert_str_eq(why, "not a regular file (a FIFO)");
  ck_assert_int_eq(sn_file_open_read(dir, &st, why, sizeof why), -1);
  ck_assert_str_eq(why, "not a regular file (a folder)");
  snprintf(path, sizeof path, "%s/missing", dir);
  ck_assert_int_eq(sn_file_open_read(path, &st, why, sizeof why), -1);
  ck_assert_str_eq(why, "cannot open: No such file or directory");
  /* a regular file: open, blocking again, the right size */
  snprintf(path, sizeof path, "%s/plain", dir);
  put(path, "hello", 0644);
  int fd = sn_file_open_read(path, &st, why, sizeof why);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  ck_assert_int_eq(st.st_size, 5);
  close(fd);
  alarm(0);
  remove_tree(dir);
}
END_TEST

START_TEST(test_new_file_mode_from_umask) {
  char dir[64], path[128], why[256];
  scratch(dir);
  snprintf(path, sizeof path, "%s/new", dir);
  mode_t masks[] = {022, 077, 002};
  for (int w = 0; w < 2; ++w) {
    for (int m = 0; m < 3; ++m) {
      mode_t old = umask(masks[m]);
      bool ok = sn_file_write_atomic(path, "abc", 3, ways[w], why, sizeof why);
      umask(old);
      ck_assert_msg(ok, "%s", why);
      struct stat st;
      ck_assert_int_eq(stat(path, &st), 0);
      ck_assert_int_eq(st.st_mode & 07777, 0666 & ~masks[m]);
      ck_assert_int_eq(unlink(path), 0);
    }
  }
  remove_tree(dir);
}
END_TEST

START_TEST(test_replacing_keeps_the_permission_bits) {
  char dir[64], path[128], why[256], text[64], names[512];
  scratch(dir);
  snprintf(path, sizeof path, "%s/kept", dir);
  const mode_t modes[] = {0600, 0640, 0604, 0444};
  for (int w = 0; w < 2; ++w) {
    for (int m = 0; m < 4; ++m) {
      put(path, "old", modes[m]);
      mode_t old = umask(022);
      bool ok = sn_file_write_atomic(path, "new text", 8, ways[w], why, sizeof why);
      umask(old);
      ck_assert_msg(ok, "%s", why);
      struct stat st;
      ck_assert_int_eq(stat(path, &st), 0);
      ck_assert_int_eq(st.st_mode & 07777, modes[m]);
      get(path, text, sizeof text);
      ck_assert_str_eq(text, "new text");
      ck_assert_int_eq(listing(dir, names, sizeof names), 1);
      ck_assert_int_eq(unlink(path), 0);
    }
  }
  remove_tree(dir);
}
END_TEST

/* A symbolic link at the path: the file it points to is replaced (with the
 * temporary file beside it, not beside the link) and the link stays. A link
 * to nothing is refused and creates nothing. */
START_TEST(test_symbolic_link_written_through) {
  char dir[64], a[128], b[128], real[160], link[160], why[512], text[64], names[512];
  scratch(dir);
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  ck_assert_int_eq(mkdir(a, 0755), 0);
  ck_assert_int_eq(mkdir(b, 0755), 0);
  snprintf(real, sizeof real, "%s/real.snap", b);
  snprintf(link, sizeof link, "%s/link.snap", a);
  ck_assert_int_eq(symlink("../b/real.snap", link), 0);
  for (int w = 0; w < 2; ++w) {
    put(real, "old", 0600);
    ck_assert_msg(sn_file_write_atomic(link, "through", 7, ways[w], why, sizeof why), "%s", why);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    get(real, text, sizeof text);
    ck_assert_str_eq(text, "through");
    ck_assert_int_eq(stat(real, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    ck_assert_int_eq(listing(a, names, sizeof names), 1);
    ck_assert_int_eq(listing(b, names, sizeof names), 1);
  }
  /* a link to nothing */
  ck_assert_int_eq(unlink(real), 0);
  ck_assert(!sn_file_write_atomic(link, "x", 1, 0, why, sizeof why));
  ck_assert_msg(strstr(why, "symbolic link") != NULL && strstr(why, link) != NULL, "%s", why);
  ck_assert_int_eq(listing(a, names, sizeof names), 1);
  ck_assert_int_eq(listing(b, names, sizeof names), 0);
  remove_tree(dir);
}
END_TEST

START_TEST(test_target_not_a_regular_file_refused) {
  char dir[64], path[128], why[512], names[512];
  scratch(dir);
  alarm(20);
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  ck_assert(!sn_file_write_atomic(path, "x", 1, 0, why, sizeof why));
  ck_assert_msg(strstr(why, "is not a regular file (a FIFO)") != NULL, "%s", why);
  snprintf(path, sizeof path, "%s/folder", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert(!sn_file_write_atomic(path, "x", 1, 0, why, sizeof why));
  ck_assert_msg(strstr(why, "is not a regular file (a folder)") != NULL, "%s", why);
  ck_assert_int_eq(listing(dir, names, sizeof names), 2);
  alarm(0);
  remove_tree(dir);
}
END_TEST

/* A failure at each step, both ways: the old file is intact and no
 * temporary file is left. */
START_TEST(test_each_failure_leaves_nothing) {
  char dir[64], path[128], why[512], text[64], names[512];
  scratch(dir);
  snprintf(path, sizeof path, "%s/target", dir);
  put(path, "old", 0644);
  const char *steps[] = {NULL, "cannot write the new file", "cannot flush the new file",
                         "cannot rename the new file to"};
  for (int w = 0; w < 2; ++w) {
    for (int fault = SN_FILE_FAULT_WRITE; fault <= SN_FILE_FAULT_RENAME; ++fault) {
      ck_assert(!sn_file_write_atomic(path, "new text", 8, fault | ways[w], why, sizeof why));
      ck_assert_msg(strstr(why, steps[fault]) != NULL, "%s", why);
      get(path, text, sizeof text);
      ck_assert_str_eq(text, "old");
      ck_assert_int_eq(listing(dir, names, sizeof names), 1);
      ck_assert_str_eq(names, "target,");
    }
  }
  /* a folder that does not exist */
  char missing[160];
  snprintf(missing, sizeof missing, "%s/no/such/file", dir);
  ck_assert(!sn_file_write_atomic(missing, "x", 1, 0, why, sizeof why));
  ck_assert_msg(strstr(why, "cannot create a temporary file in") != NULL, "%s", why);
  remove_tree(dir);
}
END_TEST

/* A real failure, no injected fault: the file size limit (RLIMIT_FSIZE)
 * makes the write itself fail with EFBIG. */
START_TEST(test_failed_write_leaves_nothing) {
  char dir[64], path[128], why[512], text[64], names[512];
  scratch(dir);
  snprintf(path, sizeof path, "%s/target", dir);
  put(path, "old", 0644);
  char big[4096];
  memset(big, 'x', sizeof big);
  struct rlimit saved;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  for (int w = 0; w < 2; ++w) {
    struct rlimit small = {1024, saved.rlim_max};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool ok = sn_file_write_atomic(path, big, sizeof big, ways[w], why, sizeof why);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
    ck_assert(!ok);
    ck_assert_msg(strstr(why, "cannot write the new file") != NULL && strstr(why, "File too large") != NULL, "%s", why);
    get(path, text, sizeof text);
    ck_assert_str_eq(text, "old");
    ck_assert_int_eq(listing(dir, names, sizeof names), 1);
  }
  signal(SIGXFSZ, old_handler);
  remove_tree(dir);
}
END_TEST

/* The process dies half way through the write (_exit in a child). With the
 * unnamed temporary file nothing is left; with a named one (where O_TMPFILE
 * is not supported) one "<name>.tmp-XXXXXXXX" is left. The target is
 * intact either way. */
START_TEST(test_killed_while_writing) {
  char dir[64], path[128], text[64], names[512];
  scratch(dir);
  snprintf(path, sizeof path, "%s/target", dir);
  put(path, "old", 0644);
  for (int w = 0; w < 2; ++w) {
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
      char why[256];
      sn_file_write_atomic(path, "new text", 8, SN_FILE_FAULT_EXIT | ways[w], why, sizeof why);
      _exit(0); /* not reached: the fault exits with 70 */
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 70);
    get(path, text, sizeof text);
    ck_assert_str_eq(text, "old");
    if (ways[w] == 0) {
      ck_assert_int_eq(listing(dir, names, sizeof names), 1);
    } else {
      ck_assert_int_eq(listing(dir, names, sizeof names), 2);
      ck_assert_msg(strncmp(names, "target,target.tmp-", 18) == 0 && strlen(names) == 18 + 8 + 1, "%s", names);
    }
  }
  remove_tree(dir);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("file_io");
  TCase *tc = tcase_create("files");
  tcase_add_test(tc, test_read_refuses_what_is_no_regular_file);
  tcase_add_test(tc, test_new_file_mode_from_umask);
  tcase_add_test(tc, test_replacing_keeps_the_permission_bits);
  tcase_add_test(tc, test_symbolic_link_written_through);
  tcase_add_test(tc, test_target_not_a_regular_file_refused);
  tcase_add_test(tc, test_each_failure_leaves_nothing);
  tcase_add_test(tc, test_failed_write_leaves_nothing);
  tcase_add_test(tc, test_killed_while_writing);
  suite_add_tcase(s, tc);
  return s;
}
