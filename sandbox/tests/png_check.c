/* png_check FILE WIDTH HEIGHT: the PNG decodes, has the given size, and more
 * than one distinct colour (a frame that drew something). Prints the number
 * of colours seen (counted up to 256). Exit 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stb_image.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: png_check FILE WIDTH HEIGHT\n");
    return 2;
  }
  int want_w = atoi(argv[2]), want_h = atoi(argv[3]);
  FILE *f = fopen(argv[1], "rb");
  if (f == NULL) {
    fprintf(stderr, "png_check: %s: cannot open\n", argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fclose(f);
  if (bytes <= 0) {
    fprintf(stderr, "png_check: %s: empty file\n", argv[1]);
    return 1;
  }
  int w = 0, h = 0, n = 0;
  unsigned char *px = stbi_load(argv[1], &w, &h, &n, 3);
  if (px == NULL) {
    fprintf(stderr, "png_check: %s: not a PNG: %s\n", argv[1], stbi_failure_reason());
    return 1;
  }
  int rc = 0;
  if (w != want_w || h != want_h) {
    fprintf(stderr, "png_check: %s: %dx%d, expected %dx%d\n", argv[1], w, h, want_w, want_h);
    rc = 1;
  }
  unsigned seen[256];
  int colours = 0;
  for (size_t i = 0; i < (size_t)w * (size_t)h && colours < 256; ++i) {
    unsigned c = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
    int k = 0;
    while (k < colours && seen[k] != c) k++;
    if (k == colours) seen[colours++] = c;
  }
  if (colours < 2) {
    fprintf(stderr, "png_check: %s: a single colour (#%06x)\n", argv[1], seen[0]);
    rc = 1;
  }
  printf("%s: %dx%d, %ld bytes, %s%d colours\n", argv[1], w, h, bytes, colours >= 256 ? ">= " : "", colours);
  stbi_image_free(px);
  return rc;
}
