/* Failure injection (JIT_EMU_FAIL=kind:N): every kind fails the N-th call of its kind with its
 * result and a message naming the call; counters of the per-context kinds start again in a new
 * context, those of init and ctx at a cuInit made while no context exists; a launch or
 * synchronize failure is sticky, the others leave the context usable.
 * Usage: test_fail LIB PTXDIR */
#include "emu_test.h"

static char *ptx;

/* The calls of a context that uses every per-context kind once, in this order. */
static CUresult run_all(CUcontext *ctx, int *failed_step) {
  CUdeviceptr d = 0;
  CUmodule m = NULL;
  CUfunction f = NULL;
  CUevent e0 = NULL, e1 = NULL;
  CUstream s = NULL;
  float host[256] = {0}, ms;
  int n = 256, attr;
  char log[2048];
  CUresult rc;
#define STEP(k, call)                                                                              \
  if ((rc = (call)) != CUDA_SUCCESS) {                                                             \
    *failed_step = k;                                                                              \
    return rc;                                                                                     \
  }
  STEP(1, cu.cuMemAlloc_v2(&d, sizeof host));
  STEP(2, cu.cuMemcpyHtoD_v2(d, host, sizeof host));
  STEP(3, cu.cuMemcpyDtoD_v2(d, d, sizeof host));
  STEP(4, cu.cuMemsetD32_v2(d, 0, 256));
  STEP(5, load_ptx(&m, ptx, log, sizeof log));
  STEP(6, cu.cuModuleGetFunction(&f, m, "vecadd"));
  STEP(7, cu.cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  STEP(8, cu.cuStreamCreate(&s, 0));
  STEP(9, cu.cuEventCreate(&e0, 0));
  void *args[] = {&d, &d, &d, &n};
  STEP(10, cu.cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, s, args, NULL));
  STEP(11, cu.cuCtxSynchronize());
  STEP(12, cu.cuMemcpyDtoH_v2(host, d, sizeof host));
  STEP(13, cu.cuMemFree_v2(d));
  STEP(14, cu.cuEventCreate(&e1, 0));
  STEP(15, cu.cuEventRecord(e0, NULL));
  STEP(16, cu.cuEventRecord(e1, NULL));
  STEP(17, cu.cuEventSynchronize(e1));
  STEP(18, cu.cuEventElapsedTime_v2(&ms, e0, e1));
#undef STEP
  (void)ctx;
  *failed_step = 0;
  return CUDA_SUCCESS;
}

static const struct {
  const char *spec;
  int step;    /* the call that fails */
  CUresult rc; /* with this result */
  int sticky;
} cases[] = {
    {"alloc:1", 1, CUDA_ERROR_OUT_OF_MEMORY, 0},   {"htod:1", 2, CUDA_ERROR_INVALID_VALUE, 0},
    {"dtod:1", 3, CUDA_ERROR_INVALID_VALUE, 0},    {"memset:1", 4, CUDA_ERROR_INVALID_VALUE, 0},
    {"load:1", 5, CUDA_ERROR_INVALID_PTX, 0},      {"function:1", 6, CUDA_ERROR_NOT_FOUND, 0},
    {"attr:1", 7, CUDA_ERROR_INVALID_VALUE, 0},    {"stream:1", 8, CUDA_ERROR_INVALID_HANDLE, 0},
    {"event:1", 9, CUDA_ERROR_INVALID_HANDLE, 0},  {"launch:1", 10, CUDA_ERROR_LAUNCH_FAILED, 1},
    {"sync:1", 11, CUDA_ERROR_LAUNCH_FAILED, 1},   {"dtoh:1", 12, CUDA_ERROR_INVALID_VALUE, 0},
    {"free:1", 13, CUDA_ERROR_INVALID_VALUE, 0},   {"event:2", 14, CUDA_ERROR_INVALID_HANDLE, 0},
    {"event:3", 15, CUDA_ERROR_INVALID_HANDLE, 0}, {"event:5", 17, CUDA_ERROR_INVALID_HANDLE, 0},
    {"event:6", 18, CUDA_ERROR_INVALID_HANDLE, 0},
};

/* Each kind alone, in a fresh context each time. */
static void each_kind(void) {
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    setenv("JIT_EMU_FAIL", cases[k].spec, 1);
    CUcontext ctx;
    CU(cu.cuCtxCreate_v2(&ctx, 0, 0));
    int step = -1;
    CUresult rc = run_all(&ctx, &step);
    if (rc != cases[k].rc || step != cases[k].step)
      fprintf(stderr, "%s: step %d failed with %d, expected step %d with %d\n", cases[k].spec, step,
              (int)rc, cases[k].step, (int)cases[k].rc);
    CHECK(rc == cases[k].rc && step == cases[k].step);
    CHECK(strstr(cu.emuGetLastErrorMessage(), "injected failure") != NULL);
    CHECK(strstr(cu.emuGetLastErrorMessage(), cases[k].spec) != NULL);
    /* sticky failures poison the context; the others leave it usable */
    CUresult after = cu.cuCtxSynchronize();
    CHECK(cases[k].sticky ? after == CUDA_ERROR_LAUNCH_FAILED : after == CUDA_SUCCESS);
    /* the counters are the context's: the same calls in a new context fail the same way */
    CU(cu.cuCtxDestroy_v2(ctx));
    CU(cu.cuCtxCreate_v2(&ctx, 0, 0));
    CHECK(run_all(&ctx, &step) == cases[k].rc && step == cases[k].step);
    CU(cu.cuCtxDestroy_v2(ctx));
  }
  /* without injection the whole sequence works */
  unsetenv("JIT_EMU_FAIL");
  CUcontext ctx;
  CU(cu.cuCtxCreate_v2(&ctx, 0, 0));
  int step = -1;
  CU(run_all(&ctx, &step));
  CU(cu.cuCtxDestroy_v2(ctx));
}

/* The N-th call counts, not the first: alloc:2 lets one allocation through, then one fails,
 * then they work again. */
static void nth_call(void) {
  setenv("JIT_EMU_FAIL", "alloc:2,load:2", 1);
  CUcontext ctx;
  CU(cu.cuCtxCreate_v2(&ctx, 0, 0));
  CUdeviceptr d1, d2, d3;
  CU(cu.cuMemAlloc_v2(&d1, 4096));
  CHECK(cu.cuMemAlloc_v2(&d2, 4096) == CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "cuMemAlloc_v2: injected failure") != NULL);
  CU(cu.cuMemAlloc_v2(&d3, 4096));
  char log[2048];
  CUmodule m;
  CU(load_ptx(&m, ptx, log, sizeof log));
  CHECK(load_ptx(&m, ptx, log, sizeof log) == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(log, "line 1;") != NULL && strstr(log, "injected") != NULL);
  CU(load_ptx(&m, ptx, log, sizeof log));
  /* a successful call clears the message */
  CHECK(cu.emuGetLastErrorMessage()[0] == 0);
  CU(cu.cuCtxDestroy_v2(ctx));
  unsetenv("JIT_EMU_FAIL");
}

/* init and ctx count per process, from a cuInit made while no context exists. */
static void process_kinds(void) {
  int v, count;
  CUdevice dev;
  setenv("JIT_EMU_FAIL", "init:3", 1);
  CU(cu.cuInit(0));                                         /* 1 */
  CU(cu.cuDriverGetVersion(&v));                            /* 2 */
  CHECK(cu.cuDeviceGetCount(&count) == CUDA_ERROR_UNKNOWN); /* 3 */
  CHECK(strstr(cu.emuGetLastErrorMessage(), "cuDeviceGetCount: injected failure") != NULL);
  CU(cu.cuDeviceGet(&dev, 0)); /* 4 */
  CU(cu.cuInit(0));            /* a fresh start: 1 again */
  CU(cu.cuDeviceGet(&dev, 0)); /* 2 */
  CHECK(cu.cuDeviceGet(&dev, 0) == CUDA_ERROR_UNKNOWN);
  setenv("JIT_EMU_FAIL", "ctx:1,ctx:3", 1);
  CU(cu.cuInit(0));
  CUcontext c1, c2;
  CHECK(cu.cuDevicePrimaryCtxRetain(&c1, 0) == CUDA_ERROR_UNKNOWN); /* ctx 1 */
  CU(cu.cuDevicePrimaryCtxRetain(&c1, 0));                          /* ctx 2 */
  CHECK(cu.cuCtxSetCurrent(c1) == CUDA_ERROR_UNKNOWN);              /* ctx 3 */
  CU(cu.cuCtxSetCurrent(c1));                                       /* ctx 4 */
  CU(cu.cuInit(0));                 /* a context exists: no fresh start */
  CU(cu.cuCtxCreate_v2(&c2, 0, 0)); /* ctx 5 */
  CU(cu.cuCtxDestroy_v2(c2));
  CU(cu.cuDevicePrimaryCtxRelease_v2(0));
  unsetenv("JIT_EMU_FAIL");
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB PTXDIR\n", argv[0]);
    return 2;
  }
  CUcontext ctx;
  setup(argv[1], &ctx);
  CU(cu.cuCtxDestroy_v2(ctx));
  ptx = read_file(argv[2], "vecadd.ptx");
  each_kind();
  nth_call();
  process_kinds();
  free(ptx);
  return finish("test_fail");
}
