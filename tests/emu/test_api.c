/* Driver API behaviour of the emulator: device properties (an H100), contexts, memory,
 * modules with their logs, attributes, launch validation, streams, events, error strings.
 * Usage: test_api LIB PTXDIR */
#include <unistd.h>
#include "emu_test.h"

/* What a failed launch writes to stderr: nothing, unless JIT_EMU_VERBOSE asks for it. */
static long stderr_bytes_of_bad_launch(CUfunction f, void **args) {
  char path[] = "/tmp/emu_stderr_XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  fflush(stderr);
  dup2(fd, 2);
  CHECK(cu.cuLaunchKernel(f, 1, 1, 1, 32, 16, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_VALUE);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long n = lseek(fd, 0, SEEK_END);
  close(fd);
  unlink(path);
  return n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB PTXDIR\n", argv[0]);
    return 2;
  }
  load_api(argv[1]);
  CUdeviceptr d;
  CHECK(cu.cuMemAlloc_v2(&d, 16) == CUDA_ERROR_NOT_INITIALIZED);
  CU(cu.cuInit(0));
  int v = 0, count = 0;
  CU(cu.cuDriverGetVersion(&v));
  CHECK(v == 13000);
  CU(cu.cuDeviceGetCount(&count));
  CHECK(count == 1);
  CUdevice dev = -1;
  CU(cu.cuDeviceGet(&dev, 0));
  CHECK(dev == 0);
  CHECK(cu.cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE);
  char name[128];
  CU(cu.cuDeviceGetName(name, sizeof name, 0));
  CHECK(strstr(name, "H100") != NULL);
  size_t total = 0;
  CU(cu.cuDeviceTotalMem_v2(&total, 0));
  CHECK(total == (size_t)80 << 30);
  static const struct {
    CUdevice_attribute a;
    int v;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 227 * 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
  };
  for (size_t k = 0; k < sizeof attrs / sizeof *attrs; k++) {
    int x = -1;
    CU(cu.cuDeviceGetAttribute(&x, attrs[k].a, 0));
    CHECK(x == attrs[k].v);
  }
  int x;
  CHECK(cu.cuDeviceGetAttribute(&x, (CUdevice_attribute)100000, 0) == CUDA_ERROR_INVALID_VALUE);

  /* no current context yet */
  CHECK(cu.cuMemAlloc_v2(&d, 16) == CUDA_ERROR_INVALID_CONTEXT);
  /* primary context */
  CUcontext pc = NULL, cur = NULL;
  CU(cu.cuDevicePrimaryCtxRetain(&pc, 0));
  CU(cu.cuCtxSetCurrent(pc));
  CU(cu.cuCtxGetCurrent(&cur));
  CHECK(cur == pc);
  CU(cu.cuMemAlloc_v2(&d, 1024));
  /* memset, copies */
  unsigned char bytes[1024];
  CU(cu.cuMemsetD8_v2(d, 0xab, 1024));
  CU(cu.cuMemcpyDtoH_v2(bytes, d, 1024));
  CHECK(bytes[0] == 0xab && bytes[1023] == 0xab);
  CU(cu.cuMemsetD32_v2(d, 0x01020304u, 256));
  unsigned words[256];
  CU(cu.cuMemcpyDtoH_v2(words, d, sizeof words));
  CHECK(words[0] == 0x01020304u && words[255] == 0x01020304u);
  CHECK(cu.cuMemsetD32_v2(d + 2, 0, 4) == CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr d2;
  CU(cu.cuMemAlloc_v2(&d2, 1024));
  for (int k = 0; k < 256; k++) words[k] = (unsigned)k * 3u;
  CU(cu.cuMemcpyHtoD_v2(d, words, sizeof words));
  CU(cu.cuMemcpyDtoD_v2(d2, d, sizeof words));
  unsigned back[256];
  CU(cu.cuMemcpyDtoH_v2(back, d2, sizeof back));
  CHECK(memcmp(back, words, sizeof back) == 0);
  CHECK(cu.cuMemcpyDtoH_v2(back, d2 + 1000, 100) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cu.cuMemcpyHtoD_v2(d2 - 8, words, 16) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cu.cuMemAlloc_v2(&d2, 0) == CUDA_ERROR_INVALID_VALUE);
  CU(cu.cuMemFree_v2(d2));
  CHECK(cu.cuMemFree_v2(d2) == CUDA_ERROR_INVALID_VALUE);

  /* modules: logs, wall time, functions, attributes */
  char *ptx = read_file(argv[2], "stencil.ptx");
  char elog[1024], ilog[1024];
  CUjit_option opt[5] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_WALL_TIME};
  void *val[5] = {elog, (void *)(uintptr_t)sizeof elog, ilog, (void *)(uintptr_t)sizeof ilog, NULL};
  CUmodule m;
  CU(cu.cuModuleLoadDataEx(&m, ptx, 5, opt, val));
  float ms = -1;
  memcpy(&ms, &val[4], sizeof ms);
  CHECK(ms >= 0 && ms < 10000);
  CHECK((uintptr_t)val[1] == 0 && elog[0] == 0);
  CHECK((uintptr_t)val[3] == strlen(ilog) + 1 && strstr(ilog, "stencil2d") != NULL);
  CUfunction f, g;
  CU(cu.cuModuleGetFunction(&f, m, "stencil2d"));
  CHECK(cu.cuModuleGetFunction(&g, m, "nope") == CUDA_ERROR_NOT_FOUND);
  int a = 0;
  CU(cu.cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  CHECK(a == 256);
  CU(cu.cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  CHECK(a == 10 * 34 * 4);
  CU(cu.cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  CHECK(a >= 80);
  CU(cu.cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  CHECK(a > 0);
  /* launch validation: .maxntid 256, block limits, missing parameters */
  int N = 16, M = 16;
  void *args[] = {&N, &M, &d, &d};
  CHECK(cu.cuLaunchKernel(f, 1, 1, 1, 32, 16, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "maxntid") != NULL);
  unsetenv("JIT_EMU_VERBOSE");
  CHECK(stderr_bytes_of_bad_launch(f, args) == 0);
  setenv("JIT_EMU_VERBOSE", "1", 1);
  CHECK(stderr_bytes_of_bad_launch(f, args) > 0);
  unsetenv("JIT_EMU_VERBOSE");
  CHECK(cu.cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cu.cuLaunchKernel(f, 1, 1, 1, 32, 8, 1, 0, NULL, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cu.cuLaunchKernel(f, 1, 1, 1, 32, 8, 1, 64 * 1024, NULL, args, NULL) ==
        CUDA_ERROR_INVALID_VALUE);
  /* the opt-in raises the dynamic shared memory limit */
  CUfunction fb;
  CU(cu.cuModuleGetFunction(&fb, m, "bankconf"));
  int stride = 1;
  void *bargs[] = {&d, &stride};
  CHECK(cu.cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 100 * 1024, NULL, bargs, NULL) ==
        CUDA_ERROR_INVALID_VALUE);
  /* the kernel's limit: 48 KB less its 4224 bytes of static shared memory */
  CHECK(strstr(cu.emuGetLastErrorMessage(), "102400 bytes of dynamic shared memory exceed") &&
        strstr(cu.emuGetLastErrorMessage(), "(44928 bytes of dynamic shared memory"));
  CU(cu.cuFuncSetAttribute(fb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024));
  CU(cu.cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fb));
  CHECK(a == 100 * 1024);
  CU(cu.cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 100 * 1024, NULL, bargs, NULL));
  /* beyond what the kernel opted in to, or the device's opt-in maximum: refused, saying why */
  CHECK(cu.cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 100 * 1024 + 16, NULL, bargs, NULL) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "(102400 bytes of dynamic shared memory"));
  CHECK(cu.cuFuncSetAttribute(fb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "opt-in maximum per block (232448 bytes)"));
  CHECK(cu.cuFuncSetAttribute(fb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024) ==
        CUDA_ERROR_INVALID_VALUE); /* with the static: over */
  CU(cu.cuFuncSetAttribute(fb, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024 - 4224));
  CU(cu.cuLaunchKernel(fb, 1, 1, 1, 32, 1, 1, 227 * 1024 - 4224, NULL, bargs, NULL));
  /* streams and events */
  CUstream s;
  CUevent e0, e1;
  CU(cu.cuStreamCreate(&s, 0));
  CU(cu.cuEventCreate(&e0, 0));
  CU(cu.cuEventCreate(&e1, 0));
  CU(cu.cuEventRecord(e0, s));
  CU(cu.cuLaunchKernel(f, 1, 2, 1, 32, 8, 1, 0, s, args, NULL));
  CU(cu.cuEventRecord(e1, s));
  CU(cu.cuStreamSynchronize(s));
  CU(cu.cuEventSynchronize(e1));
  float el = -1;
  CU(cu.cuEventElapsedTime_v2(&el, e0, e1));
  CHECK(el >= 0);
  /* events without timing, or never recorded, have no elapsed time */
  CUevent nt, fresh;
  CU(cu.cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
  CU(cu.cuEventCreate(&fresh, CU_EVENT_DEFAULT));
  CU(cu.cuEventRecord(nt, NULL));
  CHECK(cu.cuEventElapsedTime_v2(&el, e0, nt) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "DISABLE_TIMING") != NULL);
  CHECK(cu.cuEventElapsedTime(&el, e0, fresh) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cu.cuEventCreate(&fresh, 0x100) == CUDA_ERROR_INVALID_VALUE);
  CU(cu.cuEventDestroy_v2(nt));
  CHECK(cu.cuEventDestroy_v2(nt) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cu.cuEventRecord(nt, NULL) == CUDA_ERROR_INVALID_HANDLE);
  CU(cu.cuEventDestroy_v2(e0));
  CU(cu.cuEventDestroy_v2(e1));
  CU(cu.cuStreamDestroy_v2(s));
  CU(cu.cuCtxSynchronize());
  /* error strings */
  const char *str = NULL;
  CU(cu.cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &str));
  CHECK(str && !strcmp(str, "CUDA_ERROR_ILLEGAL_ADDRESS"));
  CU(cu.cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &str));
  CHECK(str && !strcmp(str, "out of memory"));
  CHECK(cu.cuGetErrorName((CUresult)12345, &str) == CUDA_ERROR_INVALID_VALUE);
  /* images that are not PTX */
  CHECK(cu.cuModuleLoadData(&m, "\x7f"
                                "ELF....") == CUDA_ERROR_INVALID_IMAGE);
  CU(cu.cuModuleUnload(m));
  CHECK(cu.cuModuleUnload(m) == CUDA_ERROR_INVALID_HANDLE);
  CU(cu.cuMemFree_v2(d));
  CU(cu.cuDevicePrimaryCtxRelease_v2(0));
  CHECK(cu.cuMemAlloc_v2(&d, 16) == CUDA_ERROR_INVALID_CONTEXT);
  /* a second, created context; module handles do not cross contexts */
  CUcontext c2;
  CU(cu.cuCtxCreate_v2(&c2, 0, 0));
  CU(cu.cuCtxGetCurrent(&cur));
  CHECK(cur == c2);
  CU(cu.cuMemAlloc_v2(&d, 64));
  size_t mfree = 0, mtotal = 0;
  CU(cu.cuMemGetInfo_v2(&mfree, &mtotal));
  CHECK(mtotal == (size_t)80 << 30 && mfree <= mtotal - 64);
  CU(cu.cuCtxDestroy_v2(c2));
  /* CUDA 13's cuCtxCreate: no creation parameters here */
  CHECK(cu.cuCtxCreate_v4(&c2, (CUctxCreateParams *)&mfree, 0, 0) == CUDA_ERROR_NOT_SUPPORTED);
  CU(cu.cuCtxCreate_v4(&c2, NULL, 0, 0));
  CU(cu.cuCtxDestroy_v2(c2));
  CU(cu.cuCtxGetCurrent(&cur));
  CHECK(cur == NULL);
  free(ptx);
  return finish("test_api");
}
