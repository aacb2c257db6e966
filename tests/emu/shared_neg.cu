// Shared-memory indexing that nvcc turns into 32-bit address arithmetic with negative parts
// (issue 13, item 7): the emulator must wrap it modulo 2^32 as the GPU does.
//
// shared_wrap: tile[t - k + 8] with k = 8 at run time. nvcc keeps tile + (t - k) * 4 in a
// 32-bit register, below tile's base (it wraps) for t < k, and adds +32 in the address:
// [%r + 32] is back inside tile only modulo 2^32.
extern "C" __global__ void __launch_bounds__(256)
    shared_wrap(const float *__restrict__ in, float *__restrict__ out, int k) {
  __shared__ float tile[264];
  int t = threadIdx.x;
  tile[t + 8] = in[blockIdx.x * 256 + t];
  if (t < 8) tile[t] = 0.0f;
  __syncthreads();
  int i = t - k;
  out[blockIdx.x * 256 + t] = tile[i + 8] + 0.5f * tile[i + 9] + 0.25f * tile[i + 12];
}

// shared_negoff: tile[t + k - d] for d = 1, 5, 8 with k = 8 at run time: negative immediate
// offsets, [%r + -4], [%r + -20], [%r + -32].
extern "C" __global__ void __launch_bounds__(256)
    shared_negoff(const float *__restrict__ in, float *__restrict__ out, int k) {
  __shared__ float tile[264];
  int t = threadIdx.x;
  tile[t + 8] = in[blockIdx.x * 256 + t];
  if (t < 8) tile[t] = 0.0f;
  __syncthreads();
  int i = t + k;
  out[blockIdx.x * 256 + t] = tile[i - 1] + 0.5f * tile[i - 5] + 0.25f * tile[i - 8];
}

// shared_rows: a 2D time tile as hybrid-tiled stencils keep it, two rows in a ring indexed by
// (s - c) % 2 for a run-time c, read one row back and one column left.
extern "C" __global__ void __launch_bounds__(128)
    shared_rows(const float *__restrict__ in, float *__restrict__ out, int c, int steps) {
  __shared__ float ring[2][130];
  int t = threadIdx.x;
  ring[0][t + 1] = in[blockIdx.x * 128 + t];
  if (t == 0) ring[0][0] = ring[1][0] = 0.0f;
  if (t == 127) ring[0][129] = ring[1][129] = 0.0f;
  __syncthreads();
  for (int s = c; s < c + steps; s++) {
    int cur = (s - c) % 2, nxt = 1 - cur;
    float v = 0.25f * ring[cur][t] + 0.5f * ring[cur][t + 1] + 0.25f * ring[cur][t + 2];
    __syncthreads();
    ring[nxt][t + 1] = v;
    __syncthreads();
  }
  out[blockIdx.x * 128 + t] = ring[steps % 2][t + 1];
}
