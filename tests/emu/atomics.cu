// Atomics on global and shared memory.
__device__ int g_counter;
__constant__ int c_weights[4] = {1, 2, 3, 4};

extern "C" __global__ void histogram(const int *in, int n, unsigned *hist, int nbins) {
  extern __shared__ unsigned sh[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) sh[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&sh[in[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&hist[b], sh[b]);
}

extern "C" __global__ void atomic_mix(const int *in, int n, int *res, float *fsum,
                                      unsigned long long *u64) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  atomicMin(&res[0], v);
  atomicMax(&res[1], v);
  atomicAnd(&res[2], v | 0x10000);
  atomicOr(&res[3], v & 0xff);
  atomicXor(&res[4], v);
  atomicAdd(&res[5], v * c_weights[i & 3]);
  atomicAdd(fsum, 0.5f);
  atomicAdd(&u64[0], (unsigned long long)(v & 0xffff));
  int old = atomicAdd(&g_counter, 1);
  atomicExch(&res[6], 7);
  atomicCAS(&res[7], old, old + 1000);
  atomicMax((unsigned *)&res[8], (unsigned)v);
}

extern "C" __global__ void read_counter(int *out) {
  out[0] = g_counter;
}
