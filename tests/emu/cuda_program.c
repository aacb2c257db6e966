/* A driver-API program as anyone writes it: built with the CUDA toolkit's own cuda.h (whose
 * macros turn cuCtxCreate into cuCtxCreate_v4, cuMemGetInfo into cuMemGetInfo_v2, ...) and
 * linked against the emulator instead of libcuda. It runs vecadd and checks the result, and
 * asks cuGetProcAddress for entry points by name and version.
 * Usage: cuda_program VECADD.PTX */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)
#define CU(call) CHECK((call) == CUDA_SUCCESS)

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

/* cuGetProcAddress gives the newest version a CUDA version knows, or says why not. */
static void proc_addresses(void) {
  void *p = NULL;
  CUdriverProcAddressQueryResult st;
  CU(cuGetProcAddress("cuCtxCreate", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  CHECK(st == CU_GET_PROC_ADDRESS_SUCCESS && p == (void *)cuCtxCreate_v4);
  CU(cuGetProcAddress("cuCtxCreate", &p, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  CHECK(p != NULL && p != (void *)cuCtxCreate_v4); /* the CUDA 3.2 cuCtxCreate_v2 */
  CU(cuGetProcAddress("cuMemAlloc", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  CHECK(p == (void *)cuMemAlloc_v2);
  CU(cuGetProcAddress("cuEventElapsedTime", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  CHECK(p == (void *)cuEventElapsedTime_v2);
  CHECK(cuGetProcAddress("cuMemGetInfo", &p, 3000, CU_GET_PROC_ADDRESS_DEFAULT, &st) ==
        CUDA_ERROR_NOT_FOUND);
  CHECK(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT && p == NULL);
  CHECK(cuGetProcAddress("cuNoSuchCall", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st) ==
        CUDA_ERROR_NOT_FOUND);
  CHECK(st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  /* a pointer obtained so works like the call */
  CU(cuGetProcAddress("cuDriverGetVersion", &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st));
  int v = 0;
  CU(((PFN_cuDriverGetVersion_v2020)p)(&v));
  CHECK(v == 13000);
}

static void vecadd(const char *ptx) {
  enum { N = 1000 };
  float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
  size_t free0 = 0, total = 0, free1 = 0;
  CU(cuMemGetInfo(&free0, &total));
  CHECK(total == (size_t)80 << 30 && free0 <= total);
  CUdeviceptr da, db, dc;
  CU(cuMemAlloc(&da, sizeof a));
  CU(cuMemAlloc(&db, sizeof b));
  CU(cuMemAlloc(&dc, sizeof c));
  CU(cuMemGetInfo(&free1, &total));
  CHECK(free0 - free1 == 3 * sizeof a);
  CU(cuMemcpyHtoD(da, a, sizeof a));
  CU(cuMemcpyHtoD(db, b, sizeof b));
  CUmodule m;
  CUfunction f;
  CU(cuModuleLoadData(&m, ptx));
  CU(cuModuleGetFunction(&f, m, "vecadd"));
  int n = N, threads = 0;
  CU(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  CHECK(threads >= 128);
  void *args[] = {&da, &db, &dc, &n};
  CUstream s;
  CUevent e0, e1;
  CU(cuStreamCreate(&s, CU_STREAM_DEFAULT));
  CU(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  CU(cuEventRecord(e0, s));
  CU(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL));
  CU(cuEventRecord(e1, s));
  CU(cuStreamSynchronize(s));
  CU(cuEventSynchronize(e1));
  float ms = -1;
  CU(cuEventElapsedTime(&ms, e0, e1));
  CHECK(ms >= 0);
  CU(cuMemcpyDtoH(c, dc, sizeof c));
  for (int i = 0; i < N; i++) CHECK(c[i] == a[i] + b[i]);
  /* a failed call's result has a name and a text */
  const char *name = NULL, *text = NULL;
  CUresult rc = cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, s, args, NULL);
  CHECK(rc == CUDA_ERROR_INVALID_VALUE);
  CU(cuGetErrorName(rc, &name));
  CU(cuGetErrorString(rc, &text));
  CHECK(name && !strcmp(name, "CUDA_ERROR_INVALID_VALUE") && text);
  CU(cuEventDestroy(e0));
  CU(cuEventDestroy(e1));
  CU(cuStreamDestroy(s));
  CU(cuModuleUnload(m));
  CU(cuMemFree(da));
  CU(cuMemFree(db));
  CU(cuMemFree(dc));
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECADD.PTX\n", argv[0]);
    return 2;
  }
  char *ptx = read_text(argv[1]);
  if (!ptx) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  CU(cuInit(0));
  int count = 0, major = 0;
  CUdevice dev;
  char name[256];
  size_t bytes = 0;
  CU(cuDeviceGetCount(&count));
  CU(cuDeviceGet(&dev, 0));
  CU(cuDeviceGetName(name, sizeof name, dev));
  CU(cuDeviceTotalMem(&bytes, dev));
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CHECK(count == 1 && major == 9 && bytes == (size_t)80 << 30);
  proc_addresses();
  /* CUDA 13's cuCtxCreate: cuCtxCreate_v4 with no creation parameters */
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, NULL, 0, dev));
  vecadd(ptx);
  CU(cuCtxDestroy(ctx));
  /* the primary context, as the runtime API uses it */
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  vecadd(ptx);
  CU(cuDevicePrimaryCtxRelease(dev));
  free(ptx);
  printf("%s (%s)\n", failures ? "FAILED" : "ok", name);
  return failures ? 1 : 0;
}
