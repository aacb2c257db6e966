#include "emu_test.h"
int main(int argc, char **argv) {
  CUcontext ctx;
  setup(argv[1], &ctx);
  char *ptx = read_file(argv[2], "vecadd.ptx");
  CUmodule m;
  char log[4096];
  CUresult rc = load_ptx(&m, ptx, log, sizeof log);
  printf("load rc=%d log=%s\n", rc, log);
  if (rc) return 1;
  CUfunction f;
  CU(cu.cuModuleGetFunction(&f, m, "vecadd"));
  int n = 1000;
  float a[1000], b[1000], c[1000];
  for (int i = 0; i < n; i++) a[i] = i * 0.5f, b[i] = 1.0f / (i + 1);
  CUdeviceptr da, db, dc;
  CU(cu.cuMemAlloc_v2(&da, n * 4));
  CU(cu.cuMemAlloc_v2(&db, n * 4));
  CU(cu.cuMemAlloc_v2(&dc, n * 4));
  CU(cu.cuMemcpyHtoD_v2(da, a, n * 4));
  CU(cu.cuMemcpyHtoD_v2(db, b, n * 4));
  void *args[] = {&da, &db, &dc, &n};
  CU(cu.cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(c, dc, n * 4));
  int bad = 0;
  for (int i = 0; i < n; i++) bad += c[i] != a[i] + b[i];
  printf("bad=%d\n", bad);
  free(ptx);
  cu.cuCtxDestroy_v2(ctx);
  return finish("smoke");
}
