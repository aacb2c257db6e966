/* Runs the CUDA kernels of tests/emu (compiled to PTX by nvcc) through the driver API and
 * compares every result with a C reference; ops.ptx (hand-written) checks rounding modes.
 * Usage: test_kernels LIB PTXDIR SRCDIR */
#include <limits.h>
#include <unistd.h>
#include <fenv.h>
#include "emu_test.h"

static CUmodule load_module(const char *dir, const char *file) {
  char *ptx = read_file(dir, file), log[8192];
  CUmodule m = NULL;
  CUresult rc = load_ptx(&m, ptx, log, sizeof log);
  if (rc) {
    fprintf(stderr, "loading %s failed (%d):\n%s\n", file, (int)rc, log);
    exit(1);
  }
  free(ptx);
  return m;
}

static CUfunction get(CUmodule m, const char *name) {
  CUfunction f = NULL;
  CU(cu.cuModuleGetFunction(&f, m, name));
  return f;
}

static CUdeviceptr dalloc(size_t n) {
  CUdeviceptr d = 0;
  CU(cu.cuMemAlloc_v2(&d, n));
  CU(cu.cuMemsetD8_v2(d, 0, n));
  return d;
}

static uint32_t rng = 12345;
static uint32_t rnd(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static void test_vecadd_saxpy(CUmodule m) {
  int n = 1000;
  float a[1000], b[1000], c[1000], y[1000];
  for (int i = 0; i < n; i++) a[i] = (float)(rnd() % 1000) / 7.0f, b[i] = 1.0f / (float)(i + 1);
  CUdeviceptr da = dalloc(4 * n), db = dalloc(4 * n), dc = dalloc(4 * n);
  CU(cu.cuMemcpyHtoD_v2(da, a, 4 * n));
  CU(cu.cuMemcpyHtoD_v2(db, b, 4 * n));
  void *args[] = {&da, &db, &dc, &n};
  CU(cu.cuLaunchKernel(get(m, "vecadd"), (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(c, dc, 4 * n));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += c[i] != a[i] + b[i];
  CHECK(bad == 0);
  /* saxpy through the `extra` parameter buffer: y = alpha * x + y */
  float alpha = 2.5f;
  struct {
    int n;
    float alpha;
    CUdeviceptr x, y;
  } pb = {n, alpha, da, db};
  size_t size = sizeof pb;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &pb, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  CU(cu.cuLaunchKernel(get(m, "saxpy"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra));
  CU(cu.cuMemcpyDtoH_v2(y, db, 4 * n));
  bad = 0;
  for (int i = 0; i < n; i++) {
    float p = alpha * a[i];
    bad += y[i] != p + b[i];
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(da), cu.cuMemFree_v2(db), cu.cuMemFree_v2(dc);
}

static void test_index64(CUmodule m) {
  long long n = 5000, stride = 3;
  size_t bytes = (size_t)(n * stride) * 8;
  CUdeviceptr d = dalloc(bytes);
  void *args[] = {&n, &stride, &d};
  CU(cu.cuLaunchKernel(get(m, "index64"), 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  double *out = malloc(bytes);
  CU(cu.cuMemcpyDtoH_v2(out, d, bytes));
  int bad = 0;
  for (long long i = 0; i < n * stride; i++) {
    double want = i % stride ? 0.0 : (double)(i / stride) * 0.5 + (double)((i / stride) >> 3);
    bad += out[i] != want;
  }
  CHECK(bad == 0);
  free(out);
  cu.cuMemFree_v2(d);
}

static void test_collatz(CUmodule m) {
  int n = 777;
  unsigned in[777], steps[777], peak[777];
  for (int i = 0; i < n; i++) in[i] = i == 5 ? 0 : 1 + rnd() % 10000;
  CUdeviceptr di = dalloc(4 * n), ds = dalloc(4 * n), dp = dalloc(4 * n);
  CU(cu.cuMemcpyHtoD_v2(di, in, 4 * n));
  void *args[] = {&di, &ds, &dp, &n};
  CU(cu.cuLaunchKernel(get(m, "collatz"), (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(steps, ds, 4 * n));
  CU(cu.cuMemcpyDtoH_v2(peak, dp, 4 * n));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    unsigned v = in[i], s = 0, p = v;
    while (v != 1 && v != 0) {
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      p = v > p ? v : p;
      s++;
    }
    bad += steps[i] != s || peak[i] != p;
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(ds), cu.cuMemFree_v2(dp);
}

static void test_intmix(CUmodule m) {
  enum { N = 500 };
  int a[N], b[N], out[8 * N];
  for (int i = 0; i < N; i++) {
    a[i] = (int)(rnd() * 37u) - (1 << 29);
    b[i] = i % 7 == 0 ? 0 : (int)(rnd() % 2001) - 1000;
    if (i == 3) a[i] = INT_MAX, b[i] = -1;
  }
  int n = N;
  CUdeviceptr da = dalloc(sizeof a), db = dalloc(sizeof b), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(da, a, sizeof a));
  CU(cu.cuMemcpyHtoD_v2(db, b, sizeof b));
  void *args[] = {&da, &db, &dout, &n};
  CU(cu.cuLaunchKernel(get(m, "intmix"), 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
  int bad = 0;
  for (int i = 0; i < N; i++) {
    int x = a[i], y = b[i];
    long long w = (long long)x * y;
    int want[8] = {y != 0 ? x / y : 0,
                   y != 0 ? x % y : 0,
                   (int)((unsigned)x >> (y & 31)),
                   x >> (y & 31),
                   (int)(((long long)x * y) >> 32),
                   (int)(w >> 17),
                   (x < y ? x : y) ^ (x > y ? x : y),
                   (x < 0 ? -x : x) - (x & y) + (x | ~y)};
    for (int k = 0; k < 8; k++) bad += out[8 * i + k] != want[k];
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(da), cu.cuMemFree_v2(db), cu.cuMemFree_v2(dout);
}

static void test_floatmix(CUmodule m) {
  enum { N = 300 };
  float a[N], fo[4 * N];
  double d[N], dout[3 * N];
  int io[4 * N];
  for (int i = 0; i < N; i++) {
    a[i] = ((float)(int)(rnd() % 20001) - 10000.0f) / 37.0f;
    d[i] = ((double)(int)(rnd() % 20001) - 10000.0) / 3.0;
    if (i == 1) a[i] = 2.5f; /* ties for the rounding conversion */
    if (i == 2) a[i] = -3.5f;
    if (i == 4) a[i] = 1e-40f; /* subnormal */
  }
  int n = N;
  CUdeviceptr da = dalloc(sizeof a), dd = dalloc(sizeof d), dfo = dalloc(sizeof fo),
              ddo = dalloc(sizeof dout), dio = dalloc(sizeof io);
  CU(cu.cuMemcpyHtoD_v2(da, a, sizeof a));
  CU(cu.cuMemcpyHtoD_v2(dd, d, sizeof d));
  void *args[] = {&da, &dd, &dfo, &ddo, &dio, &n};
  CU(cu.cuLaunchKernel(get(m, "floatmix"), 3, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(fo, dfo, sizeof fo));
  CU(cu.cuMemcpyDtoH_v2(dout, ddo, sizeof dout));
  CU(cu.cuMemcpyDtoH_v2(io, dio, sizeof io));
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float x = a[i];
    double y = d[i];
    float x2 = x * x, den = x2 + 1.0f;
    float f0 = x / den, f1 = sqrtf(fabsf(x)), f2 = fmaf(x, x, -2.0f);
    float f3 = fminf(x, 1.5f) + fmaxf(x, -1.5f);
    double e0 = y / (y + 3.0), e1 = sqrt(fabs(y)), e2 = (double)x * y;
    int i0 = (int)x, i1 = (int)rintf(x), i2 = (int)(unsigned char)(int)y;
    double ym = y * 1e3;
    int i3 = (int)(long long)ym;
    bad += memcmp(&fo[4 * i], &f0, 4) || memcmp(&fo[4 * i + 1], &f1, 4) ||
           memcmp(&fo[4 * i + 2], &f2, 4) || memcmp(&fo[4 * i + 3], &f3, 4);
    bad += dout[3 * i] != e0 || dout[3 * i + 1] != e1 || dout[3 * i + 2] != e2;
    bad += io[4 * i] != i0 || io[4 * i + 1] != i1 || io[4 * i + 2] != i2 || io[4 * i + 3] != i3;
    if (bad) {
      fprintf(stderr, "floatmix mismatch at %d\n", i);
      break;
    }
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(da), cu.cuMemFree_v2(dd), cu.cuMemFree_v2(dfo), cu.cuMemFree_v2(ddo);
  cu.cuMemFree_v2(dio);
}

static void test_reduce_shared(CUmodule m) {
  enum { N = 3000, B = 256 };
  int n = N, grid = (N + 2 * B - 1) / (2 * B);
  float in[N], out[8];
  for (int i = 0; i < N; i++) in[i] = (float)(rnd() % 1000) / 3.0f;
  CUdeviceptr di = dalloc(sizeof in), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  void *args[] = {&di, &dout, &n};
  CU(cu.cuLaunchKernel(get(m, "reduce_shared"), (unsigned)grid, 1, 1, B, 1, 1, B * 4, NULL, args,
                       NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof(float) * (size_t)grid));
  int bad = 0;
  for (int g = 0; g < grid; g++) {
    float buf[B];
    for (int t = 0; t < B; t++) {
      int i = g * B * 2 + t;
      float v = 0.0f;
      if (i < N) v = in[i];
      if (i + B < N) v += in[i + B];
      buf[t] = v;
    }
    for (int s = B / 2; s > 0; s >>= 1)
      for (int t = 0; t < s; t++) buf[t] += buf[t + s];
    bad += out[g] != buf[0];
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(dout);
}

static void test_reduce_shfl(CUmodule m) {
  enum { N = 2000, B = 256 };
  int n = N, grid = (N + B - 1) / B, in[N], out[8];
  for (int i = 0; i < N; i++) in[i] = (int)(rnd() % 100001) - 50000;
  CUdeviceptr di = dalloc(sizeof in), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  void *args[] = {&di, &dout, &n};
  CU(cu.cuLaunchKernel(get(m, "reduce_shfl"), (unsigned)grid, 1, 1, B, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof(int) * (size_t)grid));
  for (int g = 0; g < grid; g++) {
    int s = 0;
    for (int i = g * B; i < (g + 1) * B && i < N; i++) s += in[i];
    CHECK(out[g] == s);
  }
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(dout);
}

static void test_warpops(CUmodule m) {
  enum { T = 128 };
  int in[T], out[6 * T];
  for (int i = 0; i < T; i++) in[i] = (int)(rnd() % 301) - 150;
  for (int i = 32; i < 64; i++) in[i] = 1 + i; /* a warp where all votes are true */
  CUdeviceptr di = dalloc(sizeof in), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  void *args[] = {&di, &dout};
  CU(cu.cuLaunchKernel(get(m, "warpops"), 2, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
  int bad = 0;
  for (int w = 0; w < T / 32; w++) {
    const int *v = in + 32 * w;
    unsigned ballot = 0;
    int any = 0, all = 1;
    for (int l = 0; l < 32; l++) {
      ballot |= (unsigned)(v[l] > 0) << l;
      any |= v[l] > 100;
      all &= v[l] > -100;
    }
    for (int l = 0; l < 32; l++) {
      int t = 32 * w + l, tid = t % 64;
      int want[6] = {(int)ballot, any, all, l >= 3 ? v[l - 3] : v[l], v[(tid * 7) & 31], v[l ^ 5]};
      for (int k = 0; k < 6; k++) bad += out[6 * t + k] != want[k];
    }
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(dout);
}

static float ref_point(const float *in, int M, int i, int j) {
  float s = in[i * M + j] + in[(i - 1) * M + j];
  s = s + in[(i + 1) * M + j];
  s = s + in[i * M + j - 1];
  s = s + in[i * M + j + 1];
  return 0.2f * s;
}

static void test_stencil(CUmodule m, const char *kernel, unsigned bx, unsigned by) {
  int N = 70, M = 100;
  size_t bytes = (size_t)N * M * 4;
  float *in = malloc(bytes), *out = malloc(bytes);
  for (int i = 0; i < N * M; i++) in[i] = (float)(rnd() % 10000) / 9.0f;
  CUdeviceptr di = dalloc(bytes), dout = dalloc(bytes);
  CU(cu.cuMemcpyHtoD_v2(di, in, bytes));
  CU(cu.cuMemsetD32_v2(dout, 0x7fc00001u, (size_t)N * M));
  void *args[] = {&N, &M, &di, &dout};
  CU(cu.cuLaunchKernel(get(m, kernel), (M + bx - 1) / bx, (N + by - 1) / by, 1, bx, by, 1, 0, NULL,
                       args, NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, bytes));
  int bad = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      float got = out[i * M + j];
      if (i > 0 && i < N - 1 && j > 0 && j < M - 1) {
        float want = ref_point(in, M, i, j);
        bad += memcmp(&got, &want, 4) != 0;
      } else {
        uint32_t u;
        memcpy(&u, &got, 4);
        bad += u != 0x7fc00001u;
      }
    }
  if (bad) fprintf(stderr, "%s: %d mismatches\n", kernel, bad);
  CHECK(bad == 0);
  free(in), free(out);
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(dout);
}

static void test_atomics(CUmodule m) {
  enum { N = 5000, BINS = 64 };
  int in[N], n = N, nbins = BINS;
  for (int i = 0; i < N; i++) in[i] = (int)(rnd() % 1000);
  in[17] = -5;
  CUdeviceptr di = dalloc(sizeof in), dh = dalloc(4 * BINS);
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  in[17] = 5; /* the histogram kernel needs non-negative values */
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  void *hargs[] = {&di, &n, &dh, &nbins};
  CU(cu.cuLaunchKernel(get(m, "histogram"), 4, 1, 1, 128, 1, 1, 4 * BINS, NULL, hargs, NULL));
  unsigned hist[BINS], want[BINS] = {0};
  CU(cu.cuMemcpyDtoH_v2(hist, dh, sizeof hist));
  for (int i = 0; i < N; i++) want[in[i] % BINS]++;
  CHECK(memcmp(hist, want, sizeof hist) == 0);

  in[17] = -5;
  CU(cu.cuMemcpyHtoD_v2(di, in, sizeof in));
  int res[9] = {INT_MAX, INT_MIN, -1, 0, 0, 0, 0, 0, 0};
  CUdeviceptr dr = dalloc(sizeof res), dfs = dalloc(4), du = dalloc(8);
  CU(cu.cuMemcpyHtoD_v2(dr, res, sizeof res));
  void *args[] = {&di, &n, &dr, &dfs, &du};
  CU(cu.cuLaunchKernel(get(m, "atomic_mix"), (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args,
                       NULL));
  float fs;
  unsigned long long u64;
  CU(cu.cuMemcpyDtoH_v2(res, dr, sizeof res));
  CU(cu.cuMemcpyDtoH_v2(&fs, dfs, 4));
  CU(cu.cuMemcpyDtoH_v2(&u64, du, 8));
  int mn = INT_MAX, mx = INT_MIN, an = -1, o = 0, x = 0, sum = 0;
  unsigned umax = 0;
  unsigned long long usum = 0;
  static const int w[4] = {1, 2, 3, 4};
  for (int i = 0; i < N; i++) {
    int v = in[i];
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    an &= v | 0x10000;
    o |= v & 0xff;
    x ^= v;
    sum += v * w[i & 3];
    umax = (unsigned)v > umax ? (unsigned)v : umax;
    usum += (unsigned long long)(v & 0xffff);
  }
  CHECK(res[0] == mn && res[1] == mx && res[2] == an && res[3] == o && res[4] == x);
  CHECK(res[5] == sum && res[6] == 7 && (unsigned)res[8] == umax);
  CHECK(res[7] % 1000 == 0 && res[7] >= 1000 && res[7] <= 5000);
  CHECK(fs == 0.5f * N);
  CHECK(u64 == usum);
  /* the __device__ counter: through a kernel and through cuModuleGetGlobal */
  CUdeviceptr gc, dc = dalloc(4);
  size_t gsize = 0;
  CU(cu.cuModuleGetGlobal_v2(&gc, &gsize, m, "g_counter"));
  CHECK(gsize == 4);
  int counter = 0, counter2 = 0;
  CU(cu.cuMemcpyDtoH_v2(&counter, gc, 4));
  CHECK(counter == N);
  void *cargs[] = {&dc};
  CU(cu.cuLaunchKernel(get(m, "read_counter"), 1, 1, 1, 1, 1, 1, 0, NULL, cargs, NULL));
  CU(cu.cuMemcpyDtoH_v2(&counter2, dc, 4));
  CHECK(counter2 == N);
  /* the __constant__ array with its initializer */
  CUdeviceptr cw;
  int cwv[4] = {0};
  CU(cu.cuModuleGetGlobal_v2(&cw, &gsize, m, "c_weights"));
  CHECK(gsize == 16);
  CU(cu.cuMemcpyDtoH_v2(cwv, cw, 16));
  CHECK(cwv[0] == 1 && cwv[1] == 2 && cwv[2] == 3 && cwv[3] == 4);
  cu.cuMemFree_v2(di), cu.cuMemFree_v2(dh), cu.cuMemFree_v2(dr), cu.cuMemFree_v2(dfs);
  cu.cuMemFree_v2(du), cu.cuMemFree_v2(dc);
}

/* Reads the last JSON line of the stats file and returns the value of a numeric key. */
static long long stat_of(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192], last[8192] = "";
  while (fgets(line, sizeof line, f)) strcpy(last, line);
  fclose(f);
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(last, pat);
  return p ? atoll(p + strlen(pat)) : -1;
}

static void test_stats(CUmodule mv, CUmodule ms, CUmodule mr) {
  char path[] = "/tmp/emu_stats_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  setenv("JIT_EMU_STATS", path, 1);
  int n = 1000;
  CUdeviceptr da = dalloc(4 * n), db = dalloc(4 * n), dc = dalloc(4 * n);
  void *args[] = {&da, &db, &dc, &n};
  CU(cu.cuLaunchKernel(get(mv, "vecadd"), 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  /* 8 blocks of 4 warps: 2 loads and 1 store per warp; 12000 bytes = 375 sectors */
  CHECK(stat_of(path, "global_load_requests") == 64);
  CHECK(stat_of(path, "global_store_requests") == 32);
  CHECK(stat_of(path, "global_load_bytes") == 8000);
  CHECK(stat_of(path, "global_store_bytes") == 4000);
  CHECK(stat_of(path, "global_sectors") == 375);
  CHECK(stat_of(path, "unique_sectors") == 375);
  CHECK(stat_of(path, "instructions") > 1000 * 10);
  CHECK(stat_of(path, "float") == 1000);
  /* the last block has 104 threads with work, the other seven 128 */
  CHECK(stat_of(path, "blocks") == 8);
  CHECK(stat_of(path, "min") < stat_of(path, "median"));
  CHECK(stat_of(path, "median") == stat_of(path, "max"));
  CHECK(stat_of(path, "max") == stat_of(path, "busiest_block_instructions"));
  /* bank conflicts: stride 1 and 33 are conflict-free, stride 32 puts all 32 lanes in one bank */
  CUdeviceptr dout = dalloc(4 * 32);
  int strides[3] = {1, 33, 32};
  long long want[3] = {0, 0, 62};
  for (int k = 0; k < 3; k++) {
    void *bargs[] = {&dout, &strides[k]};
    CU(cu.cuLaunchKernel(get(ms, "bankconf"), 1, 1, 1, 32, 1, 1, 0, NULL, bargs, NULL));
    CHECK(stat_of(path, "bank_conflicts") == want[k]);
    CHECK(stat_of(path, "shared_loads") == 1 && stat_of(path, "shared_stores") == 1);
    CHECK(stat_of(path, "barriers") == 1);
    float o[32];
    CU(cu.cuMemcpyDtoH_v2(o, dout, sizeof o));
    for (int l = 0; l < 32; l++) CHECK(o[l] == (float)l);
  }
  /* barriers: 1 + log2(256) per block of the shared-memory reduction */
  int rn = 2048;
  CUdeviceptr ri = dalloc(4 * rn), ro = dalloc(4 * 4);
  void *rargs[] = {&ri, &ro, &rn};
  CU(cu.cuLaunchKernel(get(mr, "reduce_shared"), 4, 1, 1, 256, 1, 1, 1024, NULL, rargs, NULL));
  CHECK(stat_of(path, "barriers") == 4 * 9);
  /* four blocks alike: the busiest ran a quarter of the instructions and its 9 barriers */
  CHECK(stat_of(path, "busiest_block_barriers") == 9);
  CHECK(4 * stat_of(path, "busiest_block_instructions") == stat_of(path, "instructions"));
  CHECK(stat_of(path, "blocks") == 4 && stat_of(path, "min") == stat_of(path, "max"));
  /* the stencil re-reads its neighbours: more sectors per request than distinct sectors */
  int N = 64, M = 64;
  CUdeviceptr si = dalloc(4 * N * M), so = dalloc(4 * N * M);
  void *sargs[] = {&N, &M, &si, &so};
  CU(cu.cuLaunchKernel(get(ms, "stencil2d_plain"), 2, 8, 1, 32, 8, 1, 0, NULL, sargs, NULL));
  long long gs = stat_of(path, "global_sectors"), us = stat_of(path, "unique_sectors");
  CHECK(us ==
        2 * N * M * 4 / 32 - 2 * 2 /* first and last rows are not written */ * 64 * 4 / 32 / 2);
  CHECK(gs > us);
  FILE *f = fopen(path, "r");
  int lines = 0;
  char line[8192];
  while (f && fgets(line, sizeof line, f)) {
    lines++;
    CHECK(strstr(line, "\"kernel\":\"") && strstr(line, "\"grid\":[") &&
          strstr(line, "\"instructions_by_class\":{"));
  }
  if (f) fclose(f);
  CHECK(lines == 6);
  unsetenv("JIT_EMU_STATS");
  close(fd);
  unlink(path);
  cu.cuMemFree_v2(da), cu.cuMemFree_v2(db), cu.cuMemFree_v2(dc), cu.cuMemFree_v2(dout);
  cu.cuMemFree_v2(ri), cu.cuMemFree_v2(ro), cu.cuMemFree_v2(si), cu.cuMemFree_v2(so);
}

static float ftz(float f) {
  return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

/* Rounding modes, saturation and NaN rules (ops.ptx) against C under fesetround. */
static void test_ops(const char *dir) {
  enum { T = 64 };
  float fin[2 * T], out[16 * T];
  long long iin[T];
  for (int t = 0; t < T; t++) {
    uint32_t u = rnd() | (rnd() << 24), w = rnd() | (rnd() << 24);
    memcpy(&fin[2 * t], &u, 4);
    memcpy(&fin[2 * t + 1], &w, 4);
    if (isnan(fin[2 * t]) || t % 4 == 0) fin[2 * t] = ((float)(int)(rnd() % 20001) - 1e4f) / 7.0f;
    if (isnan(fin[2 * t + 1]) || t % 4 == 1)
      fin[2 * t + 1] = (float)(int)(rnd() % 2001) / 3.0f - 333.0f;
    if (fin[2 * t + 1] == 0) fin[2 * t + 1] = 1.5f;
    iin[t] = (long long)(((uint64_t)rnd() << 40) ^ ((uint64_t)rnd() << 16) ^ rnd());
    if (t & 1) iin[t] = -iin[t];
  }
  fin[2 * 5] = NAN;  /* min/max return the other operand */
  fin[2 * 6] = 3e9f; /* conversions saturate */
  fin[2 * 7] = -3e9f;
  fin[2 * 8] = 1e-39f; /* subnormal: flushed by .ftz */
  fin[2 * 8 + 1] = 1e-39f;
  fin[2 * 9] = 300.7f;
  fin[2 * 10] = -7.9f;
  char *ptx = read_file(dir, "ops.ptx"), log[4096];
  CUmodule m;
  CUfunction f;
  CU(load_ptx(&m, ptx, log, sizeof log));
  CU(cu.cuModuleGetFunction(&f, m, "fops"));
  CUdeviceptr df = dalloc(sizeof fin), di = dalloc(sizeof iin), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(df, fin, sizeof fin));
  CU(cu.cuMemcpyHtoD_v2(di, iin, sizeof iin));
  void *args[] = {&df, &di, &dout};
  CU(cu.cuLaunchKernel(f, 1, 1, 1, T, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
  int bad = 0;
  for (int t = 0; t < T; t++) {
    volatile float a = fin[2 * t], b = fin[2 * t + 1];
    volatile long long i = iin[t];
    float want[14];
    fesetround(FE_TOWARDZERO);
    want[0] = a + b;
    want[4] = a / b;
    want[8] = (float)i;
    fesetround(FE_DOWNWARD);
    want[1] = a + b;
    want[3] = a * b;
    want[6] = sqrtf(fabsf(a));
    want[9] = (float)i;
    fesetround(FE_UPWARD);
    want[2] = a + b;
    want[5] = fmaf(a, b, a);
    want[10] = (float)i;
    fesetround(FE_TONEAREST);
    want[7] = (float)i;
    want[11] = isnan(a) ? b : fminf(a, b);
    float mx = isnan(a) ? b : fmaxf(a, b);
    float tr = truncf(a);
    int r2 = isnan(a) ? 0 : tr >= 2147483648.0f ? INT_MAX : tr < -2147483648.0f ? INT_MIN : (int)tr;
    int r3 = r2 < 0 ? 0 : r2 > 255 ? 255 : r2;
    float fz = ftz(ftz(a) + ftz(b));
    const float *o = &out[16 * t];
    for (int k = 0; k < 12; k++)
      if (memcmp(&o[k], &want[k], 4)) {
        fprintf(stderr, "op %d: got %a want %a\n", k, (double)o[k], (double)want[k]);
        bad++;
      }
    bad += memcmp(&o[12], &mx, 4) != 0;
    int g2, g3;
    memcpy(&g2, &o[13], 4);
    memcpy(&g3, &o[14], 4);
    bad += g2 != r2 || g3 != r3;
    bad += memcmp(&o[15], &fz, 4) != 0;
    if (bad) {
      fprintf(stderr, "ops mismatch for thread %d (a=%a b=%a i=%lld)\n", t, (double)a, (double)b,
              (long long)i);
      break;
    }
  }
  CHECK(bad == 0);
  CU(cu.cuModuleUnload(m));
  free(ptx);
  cu.cuMemFree_v2(df), cu.cuMemFree_v2(di), cu.cuMemFree_v2(dout);
}

/* Shared memory through 32-bit addresses with negative parts (shared_neg.cu): base registers
 * that wrap below the array, negative offsets, a ring of rows; bit-identical to C. */
static void test_shared_neg(CUmodule m) {
  enum { BLOCKS = 3, N = 256 * BLOCKS };
  float in[N], out[N], tile[264], want;
  for (int i = 0; i < N; i++) in[i] = (float)(rnd() % 1000) * 0.125f;
  CUdeviceptr din = dalloc(sizeof in), dout = dalloc(sizeof out);
  CU(cu.cuMemcpyHtoD_v2(din, in, sizeof in));
  int k = 8, bad = 0;
  void *args[] = {&din, &dout, &k};
  for (int kernel = 0; kernel < 2; kernel++) {
    CU(cu.cuLaunchKernel(get(m, kernel ? "shared_negoff" : "shared_wrap"), BLOCKS, 1, 1, 256, 1, 1,
                         0, NULL, args, NULL));
    CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int b = 0; b < BLOCKS; b++) {
      memset(tile, 0, sizeof tile);
      memcpy(tile + 8, in + 256 * b, 256 * sizeof *in);
      for (int t = 0; t < 256; t++) {
        int i = kernel ? t + k : t - k;
        want = kernel ? tile[i - 1] + 0.5f * tile[i - 5] + 0.25f * tile[i - 8]
                      : tile[i + 8] + 0.5f * tile[i + 9] + 0.25f * tile[i + 12];
        bad += memcmp(&out[256 * b + t], &want, 4) != 0;
      }
    }
  }
  CHECK(bad == 0);
  /* the ring of rows: steps of a 3-point smoothing, odd and even counts */
  for (int steps = 3; steps <= 4; steps++) {
    int c = 5;
    void *rargs[] = {&din, &dout, &c, &steps};
    CU(cu.cuLaunchKernel(get(m, "shared_rows"), N / 128, 1, 1, 128, 1, 1, 0, NULL, rargs, NULL));
    CU(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int b = 0; b < N / 128; b++) {
      float ring[2][130] = {{0}};
      memcpy(&ring[0][1], in + 128 * b, 128 * sizeof *in);
      for (int s = 0; s < steps; s++)
        for (int t = 0; t < 128; t++)
          ring[(s + 1) % 2][t + 1] =
              0.25f * ring[s % 2][t] + 0.5f * ring[s % 2][t + 1] + 0.25f * ring[s % 2][t + 2];
      bad += memcmp(out + 128 * b, &ring[steps % 2][1], 128 * sizeof *out) != 0;
    }
  }
  CHECK(bad == 0);
  cu.cuMemFree_v2(din), cu.cuMemFree_v2(dout);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s LIB PTXDIR SRCDIR\n", argv[0]);
    return 2;
  }
  CUcontext ctx;
  setup(argv[1], &ctx);
  CUmodule mv = load_module(argv[2], "vecadd.ptx"), mr = load_module(argv[2], "reduce.ptx");
  CUmodule ms = load_module(argv[2], "stencil.ptx"), ma = load_module(argv[2], "atomics.ptx");
  CUmodule mn = load_module(argv[2], "shared_neg.ptx");
  test_vecadd_saxpy(mv);
  test_index64(mv);
  test_collatz(mv);
  test_intmix(mv);
  test_floatmix(mv);
  test_reduce_shared(mr);
  test_reduce_shfl(mr);
  test_warpops(mr);
  test_stencil(ms, "stencil2d", 32, 8);
  test_stencil(ms, "stencil2d_plain", 16, 16);
  test_stencil(ms, "stencil2d_plain", 32, 4);
  test_atomics(ma);
  test_shared_neg(mn);
  test_stats(mv, ms, mr);
  test_ops(argv[3]);
  CU(cu.cuModuleUnload(mv));
  CU(cu.cuModuleUnload(mr));
  CU(cu.cuModuleUnload(ms));
  CU(cu.cuModuleUnload(ma));
  CU(cu.cuModuleUnload(mn));
  CU(cu.cuCtxDestroy_v2(ctx));
  return finish("test_kernels");
}
