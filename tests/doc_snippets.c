/* Extracts the C snippets of a Markdown file into one C program, in the
 * order a reader meets them: ```c blocks are statements and go into main()
 * one after the other (so each may use what an earlier one declared),
 * ```c top blocks (callbacks, helpers) go to file scope before main(), and
 * every #include line is hoisted to the top. #line directives point the
 * compiler's messages at the Markdown lines. Blocks in other languages are
 * skipped, and so are ```c excerpt blocks (a piece of a larger file, shown
 * in context: docs/plugins.md's tutorial quotes docs/examples/spring_plugin,
 * which the install test builds). usage: doc_snippets FILE.md OUT.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
  char *data;
  size_t length, capacity;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->length + n + 1 > t->capacity) {
    size_t cap = t->capacity ? 2 * t->capacity : 4096;
    while (cap < t->length + n + 1) cap *= 2;
    char *d = realloc(t->data, cap);
    if (d == NULL) {
      fprintf(stderr, "doc_snippets: out of memory\n");
      exit(2);
    }
    t->data = d;
    t->capacity = cap;
  }
  memcpy(t->data + t->length, s, n + 1);
  t->length += n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: doc_snippets FILE.md OUT.c\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (in == NULL) {
    perror(argv[1]);
    return 2;
  }
  text includes = {0}, top = {0}, body = {0};
  text *mode = NULL;
  int skipping = 0, count = 0, line_no = 0;
  char line[4096], directive[4200];
  while (fgets(line, sizeof line, in)) {
    line_no++;
    if (mode == NULL && !skipping) {
      if (strncmp(line, "```c top", 8) == 0 || strcmp(line, "```c\n") == 0) {
        mode = line[4] == ' ' ? &top : &body;
        snprintf(directive, sizeof directive, "#line %d \"%s\"\n", line_no + 1, argv[1]);
        put(mode, directive);
        count++;
      } else if (strncmp(line, "```", 3) == 0) {
        skipping = 1;
      }
    } else if (strncmp(line, "```", 3) == 0) {
      mode = NULL;
      skipping = 0;
    } else if (mode != NULL) {
      if (strncmp(line, "#include", 8) == 0) {
        put(&includes, line);
        put(mode, "\n");
      } else {
        put(mode, line);
      }
    }
  }
  fclose(in);
  if (count == 0) {
    fprintf(stderr, "doc_snippets: %s has no C snippet\n", argv[1]);
    return 1;
  }
  FILE *out = fopen(argv[2], "w");
  if (out == NULL) {
    perror(argv[2]);
    return 2;
  }
  fprintf(out, "/* %d snippets of %s (tests/doc_snippets.c) */\n#include <stdio.h>\n#include <stdlib.h>\n%s\n%s\n",
          count, argv[1], includes.data ? includes.data : "", top.data ? top.data : "");
  fprintf(out, "int main(void) {\n%s\n  return 0;\n}\n", body.data ? body.data : "");
  int bad = fclose(out) != 0;
  free(includes.data);
  free(top.data);
  free(body.data);
  return bad ? 2 : 0;
}
