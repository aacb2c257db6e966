/* A counting libcuda for tests and benchmarks: the emulator, with the host<->device copies
 * and allocations counted on the way through. Loaded as JIT_CUDA_LIBRARY with
 * JIT_DEVICE=cuda; every other driver entry point resolves to the emulator, this library's
 * dependency. The counters are read back with sj_count_get (dlopen this library again). The
 * three entry points have cuda.h's ABI: CUresult is an int-sized enum, CUdeviceptr an
 * unsigned long long. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stddef.h>

typedef struct sj_count {
  unsigned long long to_device, to_host, bytes_to_device, bytes_to_host, allocs;
} sj_count;

static sj_count counts;

void sj_count_get(sj_count *out);
void sj_count_get(sj_count *out) {
  out->to_device = __atomic_load_n(&counts.to_device, __ATOMIC_SEQ_CST);
  out->to_host = __atomic_load_n(&counts.to_host, __ATOMIC_SEQ_CST);
  out->bytes_to_device = __atomic_load_n(&counts.bytes_to_device, __ATOMIC_SEQ_CST);
  out->bytes_to_host = __atomic_load_n(&counts.bytes_to_host, __ATOMIC_SEQ_CST);
  out->allocs = __atomic_load_n(&counts.allocs, __ATOMIC_SEQ_CST);
}

/* The emulator's own entry point of that name (the next definition after this library). */
static void *next(const char *name) {
  return dlsym(RTLD_NEXT, name);
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes);
int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
  __atomic_add_fetch(&counts.to_device, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&counts.bytes_to_device, bytes, __ATOMIC_SEQ_CST);
  int (*f)(unsigned long long, const void *, size_t) = next("cuMemcpyHtoD_v2");
  return f ? f(dst, src, bytes) : 999; /* CUDA_ERROR_UNKNOWN */
}

int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes);
int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
  __atomic_add_fetch(&counts.to_host, 1, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&counts.bytes_to_host, bytes, __ATOMIC_SEQ_CST);
  int (*f)(void *, unsigned long long, size_t) = next("cuMemcpyDtoH_v2");
  return f ? f(dst, src, bytes) : 999;
}

int cuMemAlloc_v2(unsigned long long *out, size_t bytes);
int cuMemAlloc_v2(unsigned long long *out, size_t bytes) {
  __atomic_add_fetch(&counts.allocs, 1, __ATOMIC_SEQ_CST);
  int (*f)(unsigned long long *, size_t) = next("cuMemAlloc_v2");
  return f ? f(out, bytes) : 999;
}
