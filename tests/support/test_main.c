/* The main of every Check test executable, and its preconditions
 * (tests/support/test_main.h says how a test file uses them). */
#include "test_main.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rigid/contact_wide.h"

/// Exit code of an entry whose tests did not run: CTest reports it as
/// skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt and test_parts.cmake).
#define SN_TEST_SKIPPED 77

enum { MAX_PARTS = 8, MAX_REQUIRED = 8, MAX_MODES = 4 };

typedef struct test_part {
  const sn_test_need *need;
  Suite *suite; ///< the part's test cases (a suite named after the need)
} test_part;

typedef struct test_mode {
  const char *option; ///< "--write"
  Suite *suite;       ///< the mode's test cases (a suite named after the option)
} test_mode;

/* What sn_test_suite declared, read by main once it returns (test-only
 * file-scope state: the suite constructor takes no context). */
static test_part g_parts[MAX_PARTS];
static int g_part_count;
static const sn_test_need *g_required[MAX_REQUIRED];
static int g_required_count;
static test_mode g_modes[MAX_MODES];
static int g_mode_count;

static const char *avx2_missing(void) {
  return sn_wide_cpu_has_avx2() ? NULL : "this CPU has no AVX2, or this build has no AVX2 kernels (not x86-64)";
}
/* SN_HAVE_DLOPEN: the build loads plugin files (SINEW_DLOPEN, tests/CMakeLists.txt;
 * bench/shipped.h's sn_shipped_from_files says the same to the tests). */
static const char *plugin_files_missing(void) {
  return SN_HAVE_DLOPEN ? NULL : "this build loads no plugin files (SINEW_DLOPEN=OFF)";
}
static const char *no_file_loading_missing(void) {
  return SN_HAVE_DLOPEN ? "this build loads plugin files (SINEW_DLOPEN=ON); these tests are of a build that links "
                          "the shipped plugins in instead (SINEW_DLOPEN=OFF)"
                        : NULL;
}

const sn_test_need sn_need_avx2 = {"avx2", avx2_missing};
const sn_test_need sn_need_plugin_files = {"plugin_files", plugin_files_missing};
const sn_test_need sn_need_no_file_loading = {"no_file_loading", no_file_loading_missing};

/// A mistake in a test file's declarations: said, and the executable fails.
static void declaration_error(const char *what, const char *name) {
  fprintf(stderr, "test_main: %s: \"%s\"\n", what, name != NULL ? name : "(null)");
  exit(EXIT_FAILURE);
}

static void check_need(const sn_test_need *need) {
  if (need == NULL || need->missing == NULL) declaration_error("a need without a name or a check", NULL);
  const char *c = need->name;
  if (c == NULL || *c == '\0') declaration_error("a need without a name", c);
  for (; *c != '\0'; ++c) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (!ok) declaration_error("a need's name is letters, digits and '_' only", need->name);
  }
}

void sn_test_require(const sn_test_need *need) {
  check_need(need);
  if (g_required_count == MAX_REQUIRED) declaration_error("too many sn_test_require calls", need->name);
  g_required[g_required_count++] = need;
}

void sn_test_add_part(const sn_test_need *need, TCase *tc) {
  check_need(need);
  for (int i = 0; i < g_part_count; ++i) {
    if (strcmp(g_parts[i].need->name, need->name) == 0) {
      suite_add_tcase(g_parts[i].suite, tc);
      return;
    }
  }
  if (g_part_count == MAX_PARTS) declaration_error("too many parts", need->name);
  g_parts[g_part_count].need = need;
  g_parts[g_part_count].suite = suite_create(need->name);
  suite_add_tcase(g_parts[g_part_count].suite, tc);
  g_part_count++;
}

void sn_test_add_mode(const char *option, TCase *tc) {
  if (option == NULL || strncmp(option, "--", 2) != 0 || option[2] == '\0')
    declaration_error("a mode's option is -- and a name", option);
  for (const char *c = option + 2; *c != '\0'; ++c) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-';
    if (!ok) declaration_error("a mode's option is -- and letters, digits and '-' only", option);
  }
  if (strcmp(option, "--part") == 0 || strcmp(option, "--list-parts") == 0)
    declaration_error("a mode's option is the shared main's own", option);
  for (int i = 0; i < g_mode_count; ++i) {
    if (strcmp(g_modes[i].option, option) == 0) {
      suite_add_tcase(g_modes[i].suite, tc);
      return;
    }
  }
  if (g_mode_count == MAX_MODES) declaration_error("too many modes", option);
  g_modes[g_mode_count].option = option;
  g_modes[g_mode_count].suite = suite_create(option + 2);
  suite_add_tcase(g_modes[g_mode_count].suite, tc);
  g_mode_count++;
}

/// True if SN_TEST_PRETEND_MISSING lists name (or "all").
static bool pretended_missing(const char *name) {
  const char *list = getenv("SN_TEST_PRETEND_MISSING");
  if (list == NULL) return false;
  const char *separators = ", \t";
  for (const char *p = list; *p != '\0';) {
    size_t skip = strspn(p, separators);
    p += skip;
    size_t n = strcspn(p, separators);
    if (n == 0) break;
    if ((n == 3 && strncmp(p, "all", 3) == 0) || (n == strlen(name) && strncmp(p, name, n) == 0)) return true;
    p += n;
  }
  return false;
}

/// NULL if need is met, else why not.
static const char *why_missing(const sn_test_need *need) {
  if (pretended_missing(need->name)) return "SN_TEST_PRETEND_MISSING names it";
  return need->missing();
}

/// Runs `chosen` (the file's suite, or a part's) once every need holds;
/// exits 77 without running anything if one does not. entry is the CTest
/// entry's name, for the messages.
static int run_entry(Suite *chosen, const sn_test_need *part_need, const char *entry) {
  SRunner *sr = srunner_create(chosen);
  for (int i = 0; i <= g_required_count; ++i) {
    const sn_test_need *need = i < g_required_count ? g_required[i] : part_need;
    if (need == NULL) continue;
    const char *why = why_missing(need);
    if (why != NULL) {
      printf("%s: skipped: needs %s: %s\n", entry, need->name, why);
      srunner_free(sr);
      return SN_TEST_SKIPPED;
    }
  }
  srunner_run_all(sr, CK_NORMAL);
  int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (run == 0) {
    fprintf(stderr,
            "%s: no test ran (a file needs at least one test outside its parts; or CK_RUN_SUITE / CK_RUN_CASE "
            "selected none)\n",
            entry);
    return EXIT_FAILURE;
  }
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int usage(const char *self) {
  fprintf(stderr,
          "usage: %s              run the tests\n"
          "       %s --part NAME  run the tests that need NAME (exit 77 if it is missing here)\n"
          "       %s --list-parts the names of the parts, one a line\n",
          self, self, self);
  for (int i = 0; i < g_mode_count; ++i) fprintf(stderr, "       %s %s\n", self, g_modes[i].option);
  return EXIT_FAILURE;
}

/// The mode whose option is arg, or NULL.
static const test_mode *find_mode(const char *arg) {
  for (int i = 0; i < g_mode_count; ++i)
    if (strcmp(g_modes[i].option, arg) == 0) return &g_modes[i];
  return NULL;
}

/// The part that needs name, or NULL.
static const test_part *find_part(const char *name) {
  for (int i = 0; i < g_part_count; ++i)
    if (strcmp(g_parts[i].need->name, name) == 0) return &g_parts[i];
  return NULL;
}

int main(int argc, char **argv) {
  Suite *suite = sn_test_suite();
  const char *self = argc > 0 && argv[0] != NULL ? argv[0] : "test";
  const char *slash = strrchr(self, '/');
  if (slash != NULL) self = slash + 1;

  Suite *chosen = NULL;            /* the suite to run, if any */
  const sn_test_need *need = NULL; /* a part's need */
  char entry[256];                 /* the CTest entry's name, for the messages */
  snprintf(entry, sizeof entry, "%s", self);
  int status = EXIT_SUCCESS;
  const test_mode *mode = argc == 2 ? find_mode(argv[1]) : NULL;
  if (argc == 1) {
    chosen = suite;
  } else if (argc == 2 && strcmp(argv[1], "--list-parts") == 0) {
    for (int i = 0; i < g_part_count; ++i) printf("%s\n", g_parts[i].need->name);
  } else if (mode != NULL) {
    chosen = mode->suite;
    snprintf(entry, sizeof entry, "%s %s", self, mode->option);
  } else if (argc == 3 && strcmp(argv[1], "--part") == 0) {
    const test_part *part = find_part(argv[2]);
    if (part == NULL) {
      fprintf(stderr, "%s: no part needs \"%s\" (--list-parts lists them)\n", self, argv[2]);
      status = EXIT_FAILURE;
    } else {
      chosen = part->suite;
      need = part->need;
      snprintf(entry, sizeof entry, "%s.%s", self, need->name);
    }
  } else {
    status = usage(self);
  }
  /* every suite not run is still freed: a runner owns it */
  SRunner *unused = srunner_create(NULL);
  if (suite != chosen) srunner_add_suite(unused, suite);
  for (int i = 0; i < g_part_count; ++i)
    if (g_parts[i].suite != chosen) srunner_add_suite(unused, g_parts[i].suite);
  for (int i = 0; i < g_mode_count; ++i)
    if (g_modes[i].suite != chosen) srunner_add_suite(unused, g_modes[i].suite);
  if (chosen != NULL) status = run_entry(chosen, need, entry);
  srunner_free(unused);
  return status;
}

char *sn_test_read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  ck_assert_msg(n >= 0, "cannot measure %s", path);
  ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
  char *text = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(fread(text, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  text[n] = '\0';
  fclose(f);
  return text;
}
