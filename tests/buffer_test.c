/* Checked buffers (JIT_BUF) and device-resident arrays (jit_buffer), one case per invocation:
 *
 *   buffer_test CASE DEVICE      DEVICE: cpu, emu, or counted (JIT_DEVICE_CUDA through
 *                                JIT_CUDA_LIBRARY = the counting emulator, count_cuda.c)
 *
 * Results are compared bit for bit with the same function compiled by gcc; on the counted
 * device, the host<->device copies the driver saw are checked too. */
#include <stenciljit.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL(name, ...)                                                                          \
  static const char name##_src[] = #__VA_ARGS__;                                                   \
  __VA_ARGS__

/* A 1-D heat equation, double-buffered: a time loop that can be called in chunks. */
KERNEL(
    heat, void heat1d(int T, int N, float A[2][N]) {
      for (int t = 0; t < T; t++)
        for (int i = 1; i < N - 1; i++)
          A[(t + 1) % 2][i] =
              0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
    })

KERNEL(
    axpy, void axpy(int n, double a, const double x[n], double y[n]) {
      for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
    })

enum { N = 986, STEPS = 100, CHUNKS = 10 };
#define GRID_BYTES (sizeof(float) * 2 * N)

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static jit_device device = JIT_DEVICE_CPU;
static int counted; /* the driver is the counting emulator */

typedef struct sj_count {
  unsigned long long to_device, to_host, bytes_to_device, bytes_to_host, allocs;
} sj_count;

/* The counting driver's counters (zero when the device is not the counted one). */
static sj_count driver_counts(void) {
  sj_count c = {0, 0, 0, 0, 0};
  if (!counted) return c;
  void *lib = dlopen(getenv("JIT_CUDA_LIBRARY"), RTLD_NOW | RTLD_NOLOAD);
  void (*get)(sj_count *) = lib ? (void (*)(sj_count *))dlsym(lib, "sj_count_get") : NULL;
  CHECK(get != NULL, "the counting driver is not loaded: %s", dlerror());
  if (get) get(&c);
  if (lib) dlclose(lib);
  return c;
}

static jit_context *context(void) {
  jit_context *ctx = jit_context_create(device);
  if (!ctx) {
    fprintf(stderr, "jit_context_create: %s\n", jit_last_error());
    exit(1);
  }
  return ctx;
}

static void fill(float *a, size_t n, unsigned seed) {
  uint32_t s = seed * 2654435761u + 7;
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    a[i] = (float)(s >> 8) * 0x1p-23f - 1.0f;
  }
}

/* The grid after `steps` steps of the gcc-compiled function. */
static float *reference_grid(int steps) {
  float *a = malloc(GRID_BYTES);
  fill(a, GRID_BYTES / sizeof(float), 1);
  heat1d(steps, N, (float(*)[N])a);
  return a;
}

static float *start_grid(void) {
  float *a = malloc(GRID_BYTES);
  fill(a, GRID_BYTES / sizeof(float), 1);
  return a;
}

/* JIT_BUF: the exact size and a larger one run; a smaller one is refused, naming the
 * parameter and both sizes, and the array is left as it was. */
static void case_buf(void) {
  jit_context *ctx = context();
  float *a = start_grid(), *want = reference_grid(3);
  jit_arg args[] = {JIT_INT(3), JIT_INT(N), JIT_BUF(a, GRID_BYTES)};
  CHECK(jit_stencil_run(ctx, heat_src, NULL, args, 3) == JIT_OK, "%s", jit_context_error(ctx));
  CHECK(!memcmp(a, want, GRID_BYTES), "JIT_BUF result differs from gcc");

  float *before = malloc(GRID_BYTES);
  memcpy(before, a, GRID_BYTES);
  args[2] = JIT_BUF(a, GRID_BYTES - 4);
  int st = jit_stencil_run(ctx, heat_src, NULL, args, 3);
  const char *msg = jit_context_error(ctx);
  char sizes[64];
  snprintf(sizes, sizeof sizes, "%zu bytes but its declaration needs %zu", GRID_BYTES - 4,
           GRID_BYTES);
  CHECK(st == JIT_ERR_ARGS, "status %d: %s", st, msg);
  CHECK(strstr(msg, "'A'") && strstr(msg, sizes), "message: %s", msg);
  CHECK(!memcmp(a, before, GRID_BYTES), "a refused call modified the array");
  printf("refused: %s\n", msg);

  /* the same through a compiled kernel and through the reference path */
  jit_kernel *k = NULL;
  CHECK(jit_kernel_compile(ctx, heat_src, NULL, args, 3, &k) == JIT_OK, "%s",
        jit_context_error(ctx));
  CHECK(k && jit_kernel_run(k, args, 3) == JIT_ERR_ARGS, "jit_kernel_run took a short buffer");
  /* the declaration's extents for this shape, what a binding checks an array's shape with */
  long ext[3] = {0, 0, 0};
  CHECK(k && jit_kernel_param_shape(k, 2, ext, 3) == 2 && ext[0] == 2 && ext[1] == N,
        "extents of A: %ld %ld", ext[0], ext[1]);
  CHECK(k && jit_kernel_param_shape(k, 1, ext, 3) == 0, "a scalar has rank 0");
  CHECK(k && jit_kernel_param_shape(k, 3, ext, 3) == -1, "index 3 is out of range");
  CHECK(jit_reference_run(ctx, heat_src, NULL, args, 3) == JIT_ERR_ARGS,
        "jit_reference_run took a short buffer");
  CHECK(!memcmp(a, before, GRID_BYTES), "a refused call modified the array");

  float *big = calloc(1, GRID_BYTES + 64);
  memcpy(big, before, GRID_BYTES);
  args[2] = JIT_BUF(big, GRID_BYTES + 64);
  CHECK(k && jit_kernel_run(k, args, 3) == JIT_OK, "%s", jit_context_error(ctx));
  jit_arg ref[] = {JIT_INT(3), JIT_INT(N), JIT_BUF(before, GRID_BYTES)};
  CHECK(jit_reference_run(ctx, heat_src, NULL, ref, 3) == JIT_OK, "%s", jit_context_error(ctx));
  CHECK(!memcmp(big, before, GRID_BYTES), "a larger JIT_BUF differs from the reference");
  jit_kernel_release(k);
  free(big);
  free(before);
  free(a);
  free(want);
  jit_context_destroy(ctx);
}

/* A 100-step time loop in 10 calls of 10 steps on one jit_buffer: bit-identical to gcc, and
 * on the counted driver the data crosses once each way (host arrays: once per call). */
static void case_resident(void) {
  jit_context *ctx = context();
  float *a = start_grid(), *want = reference_grid(STEPS);
  jit_buffer *b = jit_buffer_create(ctx, GRID_BYTES);
  CHECK(b && jit_buffer_size(b) == GRID_BYTES, "%s", jit_context_error(ctx));
  if (!b) exit(1);
  sj_count c0 = driver_counts();
  CHECK(jit_buffer_upload(b, a, GRID_BYTES) == JIT_OK, "%s", jit_context_error(ctx));
  /* an even number of steps per call keeps the newest row in A[0], where the next starts */
  jit_arg args[] = {JIT_INT(STEPS / CHUNKS), JIT_INT(N), JIT_BUFFER(b)};
  for (int c = 0; c < CHUNKS; c++)
    CHECK(jit_stencil_run(ctx, heat_src, NULL, args, 3) == JIT_OK, "%s", jit_context_error(ctx));
  memset(a, 0, GRID_BYTES);
  CHECK(jit_buffer_download(b, a, GRID_BYTES) == JIT_OK, "%s", jit_context_error(ctx));
  sj_count c1 = driver_counts();
  CHECK(!memcmp(a, want, GRID_BYTES), "resident result differs from gcc");
  if (counted) {
    CHECK(c1.to_device - c0.to_device == 1 && c1.to_host - c0.to_host == 1,
          "copies: %llu to the device, %llu to the host", c1.to_device - c0.to_device,
          c1.to_host - c0.to_host);
    CHECK(c1.bytes_to_device - c0.bytes_to_device == GRID_BYTES &&
              c1.bytes_to_host - c0.bytes_to_host == GRID_BYTES,
          "bytes: %llu in, %llu out", c1.bytes_to_device - c0.bytes_to_device,
          c1.bytes_to_host - c0.bytes_to_host);
    /* the same loop on the host array: one copy each way per call */
    float *h = start_grid();
    jit_arg host[] = {JIT_INT(STEPS / CHUNKS), JIT_INT(N), JIT_BUF(h, GRID_BYTES)};
    for (int c = 0; c < CHUNKS; c++)
      CHECK(jit_stencil_run(ctx, heat_src, NULL, host, 3) == JIT_OK, "%s", jit_context_error(ctx));
    sj_count c2 = driver_counts();
    CHECK(c2.to_device - c1.to_device == CHUNKS && c2.to_host - c1.to_host == CHUNKS,
          "host arrays: %llu and %llu copies", c2.to_device - c1.to_device,
          c2.to_host - c1.to_host);
    CHECK(!memcmp(h, want, GRID_BYTES), "host-array result differs from gcc");
    printf("copies with a jit_buffer: %llu in, %llu out; with a host array: %llu in, %llu out\n",
           c1.to_device - c0.to_device, c1.to_host - c0.to_host, c2.to_device - c1.to_device,
           c2.to_host - c1.to_host);
    free(h);
  }
  jit_buffer_destroy(b);
  free(a);
  free(want);
  jit_context_destroy(ctx);
}

/* A jit_buffer beside a host array, a wrapped address, and a second context on the device. */
static void case_mixed(void) {
  enum { LEN = 1000 };
  jit_context *ctx = context(), *other = context();
  double x[LEN], y[LEN], want[LEN];
  for (int i = 0; i < LEN; i++) x[i] = i * 0.5, y[i] = want[i] = 1.0 / (i + 1);
  axpy(LEN, 3.0, x, want);
  jit_buffer *bx = jit_buffer_create(ctx, sizeof x);
  CHECK(bx && jit_buffer_upload(bx, x, sizeof x) == JIT_OK, "%s", jit_context_error(ctx));
  if (!bx) exit(1);
  jit_arg args[] = {JIT_INT(LEN), JIT_DOUBLE(3.0), JIT_BUFFER(bx), JIT_BUF(y, sizeof y)};
  CHECK(jit_stencil_run(other, axpy_src, NULL, args, 4) == JIT_OK, "%s", jit_context_error(other));
  CHECK(!memcmp(y, want, sizeof y), "buffer + host array differs from gcc");

  /* memory another library allocated: wrapped, not copied, not freed by the wrapper */
  jit_buffer *by = jit_buffer_create(ctx, sizeof y);
  jit_buffer *wrapped = by ? jit_buffer_wrap(ctx, jit_buffer_address(by), sizeof y) : NULL;
  CHECK(wrapped && jit_buffer_address(wrapped) == jit_buffer_address(by), "%s",
        jit_context_error(ctx));
  if (!wrapped) exit(1);
  for (int i = 0; i < LEN; i++) y[i] = want[i] = 1.0 / (i + 1);
  axpy(LEN, 3.0, x, want);
  CHECK(jit_buffer_upload(by, y, sizeof y) == JIT_OK, "%s", jit_context_error(ctx));
  args[3] = JIT_BUFFER(wrapped);
  CHECK(jit_stencil_run(ctx, axpy_src, NULL, args, 4) == JIT_OK, "%s", jit_context_error(ctx));
  jit_buffer_destroy(wrapped);
  CHECK(jit_buffer_download(by, y, sizeof y) == JIT_OK, "%s", jit_context_error(ctx));
  CHECK(!memcmp(y, want, sizeof y), "wrapped buffer differs from gcc");
  jit_buffer_destroy(by);
  jit_buffer_destroy(bx);
  jit_context_destroy(other);
  jit_context_destroy(ctx);
}

static void expect_refused(jit_context *ctx, int st, const char *mention) {
  const char *msg = jit_context_error(ctx);
  CHECK(st == JIT_ERR_ARGS, "status %d: %s", st, msg);
  CHECK(strstr(msg, mention), "message should mention '%s': %s", mention, msg);
  printf("refused: %s\n", msg);
}

/* Misuse is refused with JIT_ERR_ARGS and leaves the buffer as it was. */
static void case_errors(void) {
  jit_context *ctx = context();
  float *a = start_grid(), *back = malloc(GRID_BYTES);
  jit_buffer *small = jit_buffer_create(ctx, GRID_BYTES - sizeof(float));
  CHECK(small && jit_buffer_upload(small, a, GRID_BYTES - sizeof(float)) == JIT_OK, "%s",
        jit_context_error(ctx));
  if (!small) exit(1);
  jit_arg args[] = {JIT_INT(2), JIT_INT(N), JIT_BUFFER(small)};
  expect_refused(ctx, jit_stencil_run(ctx, heat_src, NULL, args, 3), "'A'");
  CHECK(jit_buffer_download(small, back, GRID_BYTES - sizeof(float)) == JIT_OK, "%s",
        jit_context_error(ctx));
  CHECK(!memcmp(a, back, GRID_BYTES - sizeof(float)), "a refused call modified the buffer");

  expect_refused(ctx, jit_buffer_upload(small, a, GRID_BYTES), "holds");
  expect_refused(ctx, jit_buffer_download(small, back, GRID_BYTES), "holds");
  expect_refused(ctx, jit_buffer_upload(small, NULL, 4), "NULL");
  args[2] = JIT_BUFFER(NULL);
  expect_refused(ctx, jit_stencil_run(ctx, heat_src, NULL, args, 3), "NULL");
  CHECK(jit_buffer_wrap(ctx, 0, 16) == NULL, "wrapped address 0");

  /* a buffer of another device */
  jit_device elsewhere = device == JIT_DEVICE_CPU ? JIT_DEVICE_EMU : JIT_DEVICE_CPU;
  jit_context *octx = jit_context_create(elsewhere);
  jit_buffer *ob = octx ? jit_buffer_create(octx, GRID_BYTES) : NULL;
  CHECK(ob != NULL, "buffer on the other device: %s", octx ? jit_context_error(octx) : "");
  args[2] = JIT_BUFFER(ob);
  expect_refused(ctx, jit_stencil_run(ctx, heat_src, NULL, args, 3), "device");

  /* the reference reads host memory: a device buffer is refused there, a CPU one runs */
  jit_buffer *full = jit_buffer_create(ctx, GRID_BYTES);
  CHECK(full && jit_buffer_upload(full, a, GRID_BYTES) == JIT_OK, "%s", jit_context_error(ctx));
  args[2] = JIT_BUFFER(full);
  int st = jit_reference_run(ctx, heat_src, NULL, args, 3);
  if (device == JIT_DEVICE_CPU) {
    CHECK(st == JIT_OK, "%s", jit_context_error(ctx));
    float *want = reference_grid(2);
    CHECK(full && jit_buffer_download(full, back, GRID_BYTES) == JIT_OK, "download");
    CHECK(!memcmp(back, want, GRID_BYTES), "reference on a CPU buffer differs from gcc");
    free(want);
  } else {
    expect_refused(ctx, st, "host memory");
  }
  jit_buffer_destroy(full);
  jit_buffer_destroy(ob);
  jit_context_destroy(octx);
  jit_buffer_destroy(small);
  free(a);
  free(back);
  jit_context_destroy(ctx);
}

static const struct {
  const char *name;
  void (*run)(void);
} cases[] = {
    {"buf", case_buf}, {"resident", case_resident}, {"mixed", case_mixed}, {"errors", case_errors}};

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: buffer_test CASE cpu|emu|counted\n"), 2;
  device = !strcmp(argv[2], "cpu")   ? JIT_DEVICE_CPU
           : !strcmp(argv[2], "emu") ? JIT_DEVICE_EMU
                                     : JIT_DEVICE_CUDA;
  counted = !strcmp(argv[2], "counted");
  if (counted && !getenv("JIT_CUDA_LIBRARY"))
    return fprintf(stderr, "counted: JIT_CUDA_LIBRARY must name the counting driver\n"), 2;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (strcmp(argv[1], cases[i].name)) continue;
    cases[i].run();
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
  }
  return fprintf(stderr, "unknown case %s\n", argv[1]), 2;
}
