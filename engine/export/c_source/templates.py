"""The fixed parts of a C export: ``main.c`` (reads files, prints outputs) and the Makefile."""

from __future__ import annotations

__all__ = ["MAIN_C", "MAKEFILE"]

MAIN_C = r"""/* A command-line program around model_infer(), written by neurocanvas export c.
 *
 *   ./model FILE...
 *
 * Each FILE is one sample: raw little-endian float32 in the network's input layout (any other
 * extension), an 8-bit binary PGM (.pgm; divided by 255 when MODEL_NORMALIZE is 1, as the
 * dataset's Image Normalization does) or numbers separated by commas or white space (.csv).
 * Each output vector is printed on one line, the values separated by spaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static float input[MODEL_INPUT_SIZE];
static float output[MODEL_OUTPUT_SIZE];

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n >= k && strcmp(s + n - k, tail) == 0;
}

static int read_raw(FILE *f, const char *path) {
  unsigned char b[4];
  long i;
  for (i = 0; i < MODEL_INPUT_SIZE; ++i) {
    unsigned long u;
    float v;
    if (fread(b, 1, 4, f) != 4) {
      fprintf(stderr, "%s: expected %d float32 values (%d bytes)\n", path, MODEL_INPUT_SIZE,
              4 * MODEL_INPUT_SIZE);
      return 0;
    }
    u = (unsigned long)b[0] | ((unsigned long)b[1] << 8) | ((unsigned long)b[2] << 16) |
        ((unsigned long)b[3] << 24);
    memcpy(&v, &u, 4);
    input[i] = v;
  }
  if (fgetc(f) != EOF) {
    fprintf(stderr, "%s: longer than %d float32 values\n", path, MODEL_INPUT_SIZE);
    return 0;
  }
  return 1;
}

static int pgm_number(FILE *f, long *value) {
  int c = fgetc(f);
  while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#') {
    if (c == '#')
      while (c != '\n' && c != EOF) c = fgetc(f);
    c = fgetc(f);
  }
  if (c < '0' || c > '9') return 0;
  *value = 0;
  while (c >= '0' && c <= '9') {
    *value = *value * 10 + (c - '0');
    if (*value > 100000) return 0;
    c = fgetc(f);
  }
  return 1; /* the single white-space character after the number is consumed */
}

static int read_pgm(FILE *f, const char *path) {
  long w, h, maxval, i;
  if (fgetc(f) != 'P' || fgetc(f) != '5' || !pgm_number(f, &w) || !pgm_number(f, &h) ||
      !pgm_number(f, &maxval) || maxval < 1 || maxval > 255) {
    fprintf(stderr, "%s: not an 8-bit binary PGM (P5)\n", path);
    return 0;
  }
  if (w * h != MODEL_INPUT_SIZE) {
    fprintf(stderr, "%s: %ldx%ld pixels; the network takes %d values\n", path, w, h,
            MODEL_INPUT_SIZE);
    return 0;
  }
  for (i = 0; i < MODEL_INPUT_SIZE; ++i) {
    int c = fgetc(f);
    if (c == EOF) {
      fprintf(stderr, "%s: truncated\n", path);
      return 0;
    }
    input[i] = MODEL_NORMALIZE ? (float)c / 255.0f : (float)c;
  }
  return 1;
}

static int read_csv(FILE *f, const char *path) {
  long i = 0;
  int c;
  char token[64];
  size_t n = 0;
  for (;;) {
    c = fgetc(f);
    if (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == EOF) {
      if (n > 0) {
        char *end;
        token[n] = '\0';
        if (i >= MODEL_INPUT_SIZE) {
          fprintf(stderr, "%s: more than %d values\n", path, MODEL_INPUT_SIZE);
          return 0;
        }
        input[i] = strtof(token, &end);
        if (*end != '\0') {
          fprintf(stderr, "%s: value %ld (\"%s\") is not a number\n", path, i + 1, token);
          return 0;
        }
        ++i;
        n = 0;
      }
      if (c == EOF) break;
    } else if (n + 1 < sizeof token) {
      token[n++] = (char)c;
    } else {
      fprintf(stderr, "%s: value %ld is too long\n", path, i + 1);
      return 0;
    }
  }
  if (i != MODEL_INPUT_SIZE) {
    fprintf(stderr, "%s: %ld values; the network takes %d\n", path, i, MODEL_INPUT_SIZE);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  int a, i, ok;
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE...  (raw float32, .pgm or .csv; one sample per file)\n",
            argv[0]);
    return 2;
  }
  for (a = 1; a < argc; ++a) {
    FILE *f = fopen(argv[a], "rb");
    if (f == NULL) {
      fprintf(stderr, "%s: cannot open\n", argv[a]);
      return 1;
    }
    if (ends_with(argv[a], ".pgm"))
      ok = read_pgm(f, argv[a]);
    else if (ends_with(argv[a], ".csv"))
      ok = read_csv(f, argv[a]);
    else
      ok = read_raw(f, argv[a]);
    fclose(f);
    if (!ok) return 1;
    model_infer(input, output);
    for (i = 0; i < MODEL_OUTPUT_SIZE; ++i) printf(i ? " %.9g" : "%.9g", (double)output[i]);
    printf("\n");
  }
  return 0;
}
"""

MAKEFILE = """# Written by neurocanvas export c: `make` builds ./model (C99, libc and libm only).
CC ?= cc
CFLAGS ?= -std=c99 -O2 -Wall -Wextra
SOURCES = main.c model.c parameters.c

model: $(SOURCES) model.h
\t$(CC) $(CFLAGS) -o $@ $(SOURCES) -lm

clean:
\trm -f model

.PHONY: clean
"""
