/* heat2d: 2-D heat diffusion run through stenciljit on the default device.
 *
 *   heat2d [OUT.png] [--size N] [--steps T] [--check-size N] [--check-steps T]
 *
 * 1. checks a small problem against the reference (the same function run unchanged) bit
 *    for bit; 2. runs a large one from a "hot spots" initial condition and reports the
 *    device, sizes, time and updates per second; 3. writes the final field as a PNG with a
 *    heat colour map (default heat2d.png). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime: POSIX, not C99 */
#include <stenciljit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The kernel: a plain C99 function; A[t % 2] holds time step t. */
static const char heat_source[] =
    "void heat2d(int T, int N, float A[2][N][N]) {\n"
    "  for (int t = 0; t < T; t++)\n"
    "    for (int i = 1; i < N - 1; i++)\n"
    "      for (int j = 1; j < N - 1; j++)\n"
    "        A[(t + 1) % 2][i][j] = A[t % 2][i][j]\n"
    "            + 0.2f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j]\n"
    "                      + A[t % 2][i][j - 1] + A[t % 2][i][j + 1] - 4.0f * A[t % 2][i][j]);\n"
    "}\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A few hot discs of different temperatures on a cold plate; both time buffers alike. */
static void hot_spots(float *A, int n) {
  static const struct {
    double x, y, r, temp;
  } spots[] = {{0.25, 0.30, 0.08, 1.0},
               {0.70, 0.25, 0.05, 0.8},
               {0.55, 0.70, 0.12, 0.6},
               {0.20, 0.80, 0.04, 1.0},
               {0.85, 0.85, 0.03, 0.9}};
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double y = (i + 0.5) / n, x = (j + 0.5) / n, v = 0.0;
      for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++) {
        double dx = x - spots[s].x, dy = y - spots[s].y;
        if (dx * dx + dy * dy < spots[s].r * spots[s].r && spots[s].temp > v) v = spots[s].temp;
      }
      A[(size_t)i * n + j] = A[(size_t)n * n + (size_t)i * n + j] = (float)v;
    }
}

/* ---- PNG without zlib: stored deflate blocks, CRC-32 and Adler-32 by hand ---- */
static uint32_t crc_table[256];

static void crc_init(void) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

static void put32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static int write_chunk(FILE *f, const char *type, const unsigned char *data, size_t n) {
  unsigned char head[8], tail[4];
  put32(head, (uint32_t)n);
  memcpy(head + 4, type, 4);
  uint32_t crc = crc_update(0xffffffffu, head + 4, 4);
  crc = crc_update(crc, data, n) ^ 0xffffffffu;
  put32(tail, crc);
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
         fwrite(tail, 1, 4, f) == 4;
}

/* Writes an RGB image; returns 0 on success. */
static int write_png(const char *path, const unsigned char *rgb, int w, int h) {
  size_t row = (size_t)w * 3 + 1, raw_len = row * (size_t)h;
  size_t nblocks = raw_len / 65535 + 1;
  size_t z_len = 2 + raw_len + nblocks * 5 + 4;
  unsigned char *raw = malloc(raw_len), *z = malloc(z_len);
  if (!raw || !z) {
    free(raw);
    free(z);
    return 1;
  }
  for (int y = 0; y < h; y++) {
    raw[(size_t)y * row] = 0; /* filter: none */
    memcpy(raw + (size_t)y * row + 1, rgb + (size_t)y * w * 3, (size_t)w * 3);
  }
  size_t o = 0, left = raw_len, pos = 0;
  z[o++] = 0x78; /* zlib header: deflate, 32K window, no dictionary, check bits */
  z[o++] = 0x01;
  do {
    size_t n = left < 65535 ? left : 65535;
    z[o++] = n == left ? 1 : 0; /* BFINAL, BTYPE=00 (stored) */
    z[o++] = (unsigned char)n;
    z[o++] = (unsigned char)(n >> 8);
    z[o++] = (unsigned char)~n;
    z[o++] = (unsigned char)(~n >> 8);
    memcpy(z + o, raw + pos, n);
    o += n, pos += n, left -= n;
  } while (left > 0);
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < raw_len; i++) {
    a = (a + raw[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  put32(z + o, (b << 16) | a);
  o += 4;

  unsigned char ihdr[13];
  put32(ihdr, (uint32_t)w);
  put32(ihdr + 4, (uint32_t)h);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 2;  /* colour type: RGB */
  ihdr[10] = 0; /* compression */
  ihdr[11] = 0; /* filter */
  ihdr[12] = 0; /* interlace */
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(sig, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
           write_chunk(f, "IDAT", z, o) && write_chunk(f, "IEND", NULL, 0);
  if (f && fclose(f) != 0) ok = 0;
  free(raw);
  free(z);
  return ok ? 0 : 1;
}

/* Black - red - yellow - white. */
static void heat_color(float v, unsigned char *rgb) {
  float c[3] = {3.0f * v, 3.0f * v - 1.0f, 3.0f * v - 2.0f};
  for (int k = 0; k < 3; k++) {
    float x = c[k] < 0.0f ? 0.0f : c[k] > 1.0f ? 1.0f : c[k];
    rgb[k] = (unsigned char)(x * 255.0f + 0.5f);
  }
}

static int parse_pos(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v < 1 || v > 65536) return 0;
  *out = (int)v;
  return 1;
}

int main(int argc, char **argv) {
  const char *out = "heat2d.png";
  int n = 1024, steps = 200, check_n = 67, check_steps = 23;
  for (int i = 1; i < argc; i++) {
    int *target = NULL;
    if (strcmp(argv[i], "--size") == 0)
      target = &n;
    else if (strcmp(argv[i], "--steps") == 0)
      target = &steps;
    else if (strcmp(argv[i], "--check-size") == 0)
      target = &check_n;
    else if (strcmp(argv[i], "--check-steps") == 0)
      target = &check_steps;
    else if (argv[i][0] != '-') {
      out = argv[i];
      continue;
    }
    if (!target || i + 1 >= argc || !parse_pos(argv[i + 1], target)) {
      fprintf(stderr, "usage: heat2d [OUT.png] [--size N] [--steps T] [--check-size N] "
                      "[--check-steps T]\n");
      return 1;
    }
    i++;
  }
  if (n < 3 || check_n < 3) {
    fprintf(stderr, "heat2d: sizes must be at least 3\n");
    return 1;
  }

  jit_context *ctx = jit_context_create(JIT_DEVICE_AUTO);
  if (!ctx) {
    fprintf(stderr, "heat2d: no device: %s\n", jit_last_error());
    return 1;
  }
  jit_options opts;
  memset(&opts, 0, sizeof opts);
  opts.source_name = "heat2d.c:heat_source";
  jit_context_set_options(ctx, &opts);
  printf("device: %s\n", jit_context_info(ctx));
  int status = 1;
  float *A = NULL, *B = NULL;
  unsigned char *img = NULL;

  /* 1. Small problem: stenciljit against the reference, bit for bit. */
  size_t small = 2 * (size_t)check_n * check_n;
  A = malloc(small * sizeof(float));
  B = malloc(small * sizeof(float));
  if (!A || !B) goto out;
  hot_spots(A, check_n);
  memcpy(B, A, small * sizeof(float));
  jit_arg cargs[] = {JIT_INT(check_steps), JIT_INT(check_n), JIT_PTR(A)};
  jit_arg rargs[] = {JIT_INT(check_steps), JIT_INT(check_n), JIT_PTR(B)};
  if (jit_stencil_run(ctx, heat_source, NULL, cargs, 3) != JIT_OK ||
      jit_reference_run(ctx, heat_source, NULL, rargs, 3) != JIT_OK) {
    fprintf(stderr, "heat2d: %s\n", jit_context_error(ctx));
    goto out;
  }
  if (memcmp(A, B, small * sizeof(float)) != 0) {
    fprintf(stderr, "heat2d: check FAILED: %dx%d, %d steps differ from the reference\n", check_n,
            check_n, check_steps);
    goto out;
  }
  printf("check: %dx%d, %d steps: bit-identical to the reference\n", check_n, check_n, check_steps);
  free(A);
  free(B);
  B = NULL;

  /* 2. The large problem: compile (timed apart), then run. */
  size_t big = 2 * (size_t)n * n;
  A = malloc(big * sizeof(float));
  if (!A) goto out;
  hot_spots(A, n);
  jit_arg shape[] = {JIT_INT(steps), JIT_INT(n), JIT_PTR(NULL)};
  jit_kernel *k = NULL;
  double t0 = now_s();
  if (jit_kernel_compile(ctx, heat_source, NULL, shape, 3, &k) != JIT_OK) {
    fprintf(stderr, "heat2d: %s\n", jit_context_error(ctx));
    goto out;
  }
  double t_compile = now_s() - t0;
  jit_kernel_release(k);
  jit_arg args[] = {JIT_INT(steps), JIT_INT(n), JIT_PTR(A)};
  t0 = now_s();
  if (jit_stencil_run(ctx, heat_source, NULL, args, 3) != JIT_OK) {
    fprintf(stderr, "heat2d: %s\n", jit_context_error(ctx));
    goto out;
  }
  double t_run = now_s() - t0;
  double updates = (double)steps * (n - 2) * (n - 2);
  printf("problem: %dx%d, %d steps (%.3g updates)\n", n, n, steps, updates);
  printf("compile: %.1f ms; run: %.1f ms; %.3g updates/s\n", t_compile * 1e3, t_run * 1e3,
         t_run > 0 ? updates / t_run : 0.0);

  /* 3. The final field (A[steps % 2]) as a PNG, scaled to its hottest point. */
  const float *field = A + (size_t)(steps % 2) * n * n;
  float vmax = 0.0f;
  for (size_t i = 0; i < (size_t)n * n; i++)
    if (field[i] > vmax) vmax = field[i];
  img = malloc((size_t)n * n * 3);
  if (!img) goto out;
  for (size_t i = 0; i < (size_t)n * n; i++)
    heat_color(vmax > 0.0f ? field[i] / vmax : 0.0f, img + 3 * i);
  crc_init();
  if (write_png(out, img, n, n) != 0) {
    fprintf(stderr, "heat2d: cannot write %s\n", out);
    goto out;
  }
  printf("wrote %s (%dx%d, hottest %.4f)\n", out, n, n, (double)vmax);
  status = 0;
out:
  free(A);
  free(B);
  free(img);
  jit_context_destroy(ctx);
  return status;
}
