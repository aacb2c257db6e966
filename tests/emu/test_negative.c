/* Negative tests: every strict check of the emulator fires with the right error code and
 * reports the PTX line, block and thread; malformed PTX fails to load with its line in the
 * error log. Usage: test_negative LIB DIR (DIR holds neg/ and bad/). */
#include "emu_test.h"

static const char *dir;

static int contains(const char *s, const char *sub) {
  if (!strstr(s, sub)) {
    fprintf(stderr, "message \"%s\" lacks \"%s\"\n", s, sub);
    return 0;
  }
  return 1;
}

/* Launches neg/<name>.ptx's kernel <name> on one block of `threads` threads with a 128-byte
 * buffer; checks the result code and that the message names the line and the thread. */
static void expect_launch(CUcontext *ctx, const char *name, unsigned threads, CUresult want,
                          int line, const char *thread, const char *what) {
  char file[256], log[4096];
  snprintf(file, sizeof file, "neg/%s.ptx", name);
  char *ptx = read_file(dir, file);
  CUmodule m;
  CUfunction f;
  CU(load_ptx(&m, ptx, log, sizeof log));
  CU(cu.cuModuleGetFunction(&f, m, name));
  CUdeviceptr buf;
  CU(cu.cuMemAlloc_v2(&buf, 128));
  void *args[] = {&buf};
  CUresult rc = cu.cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
  if (rc != want) fprintf(stderr, "%s: got %d, want %d\n", name, (int)rc, (int)want);
  CHECK(rc == want);
  const char *msg = cu.emuGetLastErrorMessage();
  char sline[64];
  snprintf(sline, sizeof sline, "PTX line %d,", line);
  CHECK(contains(msg, sline));
  CHECK(contains(msg, name));
  CHECK(contains(msg, "block (0,0,0)"));
  if (thread) CHECK(contains(msg, thread));
  CHECK(contains(msg, what));
  if (want != CUDA_SUCCESS) {
    /* the error is sticky, as on a GPU: the context must be destroyed */
    CUdeviceptr d;
    CHECK(cu.cuMemAlloc_v2(&d, 16) == want);
    CHECK(cu.cuCtxSynchronize() == want);
    CU(cu.cuCtxDestroy_v2(*ctx));
    CU(cu.cuCtxCreate_v2(ctx, 0, 0));
  } else {
    CU(cu.cuModuleUnload(m));
    CU(cu.cuMemFree_v2(buf));
  }
  free(ptx);
}

static void expect_load_error(const char *name, CUresult want, int line, const char *what) {
  char file[256], log[4096], sline[64];
  snprintf(file, sizeof file, "bad/%s.ptx", name);
  char *ptx = read_file(dir, file);
  CUmodule m = NULL;
  CUresult rc = load_ptx(&m, ptx, log, sizeof log);
  if (rc != want) fprintf(stderr, "%s: got %d, want %d; log: %s\n", name, (int)rc, (int)want, log);
  CHECK(rc == want);
  snprintf(sline, sizeof sline, "line %d;", line);
  CHECK(contains(log, sline));
  CHECK(contains(log, what));
  CHECK(contains(cu.emuGetLastErrorMessage(), sline));
  free(ptx);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB DIR\n", argv[0]);
    return 2;
  }
  dir = argv[2];
  CUcontext ctx;
  setup(argv[1], &ctx);
  expect_launch(&ctx, "oob_global", 64, CUDA_ERROR_ILLEGAL_ADDRESS, 17, "thread (32,0,0)",
                "out-of-bounds global access");
  expect_launch(&ctx, "oob_shared", 64, CUDA_ERROR_ILLEGAL_ADDRESS, 14, "thread (16,0,0)",
                "out-of-bounds shared access");
  expect_launch(&ctx, "unwritten", 64, CUDA_ERROR_LAUNCH_FAILED, 18, "thread (1,0,0)",
                "read of register %r2");
  expect_launch(&ctx, "barrier", 64, CUDA_ERROR_LAUNCH_FAILED, 13, "thread (40,0,0)",
                "barrier divergence");
  expect_launch(&ctx, "race", 64, CUDA_ERROR_LAUNCH_FAILED, 18, "thread (0,0,0)",
                "race (read-after-write)");
  expect_launch(&ctx, "race_waw", 64, CUDA_ERROR_LAUNCH_FAILED, 12, "thread (1,0,0)",
                "race (write-after-write)");
  expect_launch(&ctx, "misaligned", 1, CUDA_ERROR_MISALIGNED_ADDRESS, 12, "thread (0,0,0)",
                "misaligned");
  expect_launch(&ctx, "shfl_diverged", 32, CUDA_ERROR_LAUNCH_FAILED, 14, NULL,
                "does not execute this warp-synchronous instruction");
  {
    /* the fixed exchange runs and gives the neighbour's index */
    char *ptx = read_file(dir, "neg/race_fixed.ptx"), log[4096];
    CUmodule m;
    CUfunction f;
    CU(load_ptx(&m, ptx, log, sizeof log));
    CU(cu.cuModuleGetFunction(&f, m, "race_fixed"));
    CUdeviceptr buf;
    CU(cu.cuMemAlloc_v2(&buf, 256));
    void *args[] = {&buf};
    CU(cu.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    unsigned out[64];
    CU(cu.cuMemcpyDtoH_v2(out, buf, sizeof out));
    for (unsigned t = 0; t < 64; t++) CHECK(out[t] == (t == 63 ? 0 : t + 1));
    CHECK(cu.emuGetLastErrorMessage()[0] == 0);
    free(ptx);
  }
  static const struct {
    const char *name, *what;
    int line;
    CUresult rc;
  } bad[] = {
      {"unknown_instruction", "known instruction: 'foo'", 13, CUDA_ERROR_INVALID_PTX},
      {"type_mismatch", "Arguments mismatch for instruction 'add'", 13, CUDA_ERROR_INVALID_PTX},
      {"size_mismatch", "Arguments mismatch for instruction 'add'", 13, CUDA_ERROR_INVALID_PTX},
      {"undeclared_register", "Unknown symbol '%r9'", 13, CUDA_ERROR_INVALID_PTX},
      {"missing_semicolon", "expected ';'", 14, CUDA_ERROR_INVALID_PTX},
      {"unknown_label", "Unknown symbol 'NOWHERE'", 13, CUDA_ERROR_INVALID_PTX},
      {"cvt_needs_rounding", "Rounding modifier required", 13, CUDA_ERROR_INVALID_PTX},
      {"div_needs_rounding", "Rounding modifier or '.approx'", 14, CUDA_ERROR_INVALID_PTX},
      {"mul_needs_mode", "'.lo', '.hi' or '.wide' required", 13, CUDA_ERROR_INVALID_PTX},
      {"int_literal_for_float", "Arguments mismatch for instruction 'mov'", 13,
       CUDA_ERROR_INVALID_PTX},
      {"bad_operand", "malformed operand", 13, CUDA_ERROR_INVALID_PTX},
      {"nc_on_store", "Illegal modifier '.nc'", 13, CUDA_ERROR_INVALID_PTX},
      {"abs_unsigned", "applies only to signed numeric types", 13, CUDA_ERROR_INVALID_PTX},
      {"setp_type", "Arguments mismatch for instruction 'setp'", 13, CUDA_ERROR_INVALID_PTX},
      {"wrong_operand_count", "Arguments mismatch for instruction 'add'", 13,
       CUDA_ERROR_INVALID_PTX},
      {"version", "Unsupported .version 9.9", 1, CUDA_ERROR_UNSUPPORTED_PTX_VERSION},
      {"target", "sm_100", 2, CUDA_ERROR_INVALID_PTX},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
    expect_load_error(bad[k].name, bad[k].rc, bad[k].line, bad[k].what);
  CU(cu.cuCtxDestroy_v2(ctx));
  return finish("test_negative");
}
