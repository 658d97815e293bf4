/* The one main of every Check test executable (tests/support/test_main.c).
 *
 * A test file tests/test_<name>.c includes this header and defines its suite;
 * tests/CMakeLists.txt links it with the shared main into the executable
 * test_<name>, registered with CTest as "test_<name>":
 *
 *   Suite *sn_test_suite(void) {
 *     Suite *s = suite_create("name");
 *     TCase *tc = tcase_create("core");
 *     tcase_add_test(tc, test_something);
 *     suite_add_tcase(s, tc);
 *     return s;
 *   }
 *
 * Preconditions. Some tests need what a machine or a build may lack (a CPU
 * feature, file loading, another program, root). Each such need is an
 * sn_test_need, and a test that needs one never passes without it: it
 * reports skipped (exit code 77, which CTest reports as skipped, not passed).
 *
 *   - sn_test_require(&need) in sn_test_suite: every test of the file needs
 *     it; without it the executable runs nothing and exits 77.
 *   - sn_test_add_part(&need, tc) in sn_test_suite, instead of
 *     suite_add_tcase(s, tc): the test case needs it. It runs in a CTest entry
 *     of its own, "test_<name>.<need name>" (the executable with
 *     --part <need name>), which exits 77 without it; the file's other tests
 *     run in "test_<name>". A file has one part per need, which may hold
 *     several test cases.
 *
 * The needs every suite may use are below; a file defines its own as a
 * static const sn_test_need (test_determinism.c: "bench"). Setting
 * SN_TEST_PRETEND_MISSING to need names (separated by commas or spaces, or
 * "all") makes those needs missing, to see their tests report skipped.
 *
 * Modes. A test file may offer a tool beside its checks, run by hand with an
 * option of its own: sn_test_add_mode("--write", tc) runs test case tc, and
 * nothing else, when the executable is given --write (test_settings_doc.c
 * rewrites the docs' tables that way). No CTest entry runs a mode.
 *
 * The executable's command line: no argument runs the suite; --part NAME runs
 * the part that needs NAME; a mode's option runs the mode; --list-parts
 * prints the names of the parts, one a line (tests/support/test_parts.cmake
 * registers a CTest entry for each).
 * An entry that runs no test at all fails: every test file has at least one
 * test outside its parts. Check's own variables (CK_FORK, CK_RUN_CASE...)
 * work as usual. */
#ifndef SN_TEST_MAIN_H
#define SN_TEST_MAIN_H

#include <check.h>

/// Something a test needs that a machine or a build may lack.
typedef struct sn_test_need {
  /// Short name (letters, digits, '_'): the part's CTest suffix and its
  /// name in --part and SN_TEST_PRETEND_MISSING.
  const char *name;
  /// NULL if the need is met here; otherwise why not (one line, printed with
  /// the skip).
  const char *(*missing)(void);
} sn_test_need;

/// The CPU runs the AVX2 kernels (contact solver, box manifolds, XPBD
/// batches), which the build has compiled (x86-64 with GCC or Clang).
extern const sn_test_need sn_need_avx2;
/// The build loads plugin files (SINEW_DLOPEN=ON): the fixture and shipped
/// plugin .so files exist and sn_registry_load_plugin opens them.
extern const sn_test_need sn_need_plugin_files;
/// The build loads no plugin files (SINEW_DLOPEN=OFF): what such a build
/// does in place of loading (the shipped plugins linked in, files refused).
extern const sn_test_need sn_need_no_file_loading;

/// Defined by every test file: its suite, every test case that needs nothing
/// more than the file's requirements (sn_test_require).
Suite *sn_test_suite(void);

/// Every test of the file needs `need` (call from sn_test_suite).
void sn_test_require(const sn_test_need *need);

/// Test case tc needs `need`: it goes in the file's part for that need, not in
/// the suite (call from sn_test_suite, instead of suite_add_tcase).
void sn_test_add_part(const sn_test_need *need, TCase *tc);

/// Test case tc runs only when the executable's one argument is `option`
/// ("--" and letters, digits, '-'), in place of the suite (call from
/// sn_test_suite, instead of suite_add_tcase). The file's requirements
/// (sn_test_require) hold for it too.
void sn_test_add_mode(const char *option, TCase *tc);

/// The whole file at path as a NUL-terminated string (malloc'd, the caller
/// frees it); fails the running test if it cannot be read.
char *sn_test_read_text(const char *path);

#endif /* SN_TEST_MAIN_H */
