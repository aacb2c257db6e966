// Reductions: shared memory with barriers, and warp shuffles.
extern "C" __global__ void reduce_shared(const float *in, float *out, int n) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + t;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  buf[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

extern "C" __global__ void reduce_shfl(const int *in, int *out, int n) {
  __shared__ int partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// Warp votes and the other shuffle modes.
extern "C" __global__ void warpops(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int any = __any_sync(0xffffffffu, v > 100);
  int all = __all_sync(0xffffffffu, v > -100);
  int up = __shfl_up_sync(0xffffffffu, v, 3);
  int idx = __shfl_sync(0xffffffffu, v, (threadIdx.x * 7) & 31);
  int w8 = __shfl_xor_sync(0xffffffffu, v, 5, 8);
  out[6 * i + 0] = (int)ballot;
  out[6 * i + 1] = any;
  out[6 * i + 2] = all;
  out[6 * i + 3] = up;
  out[6 * i + 4] = idx;
  out[6 * i + 5] = w8;
}
