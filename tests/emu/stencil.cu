// 2D 5-point Jacobi step staged through shared memory (tile + halo).
#define BX 32
#define BY 8
extern "C" __global__ void __launch_bounds__(BX *BY)
    stencil2d(int N, int M, const float *__restrict__ in, float *__restrict__ out) {
  __shared__ float tile[BY + 2][BX + 2];
  int j = blockIdx.x * BX + threadIdx.x;
  int i = blockIdx.y * BY + threadIdx.y;
  int tj = threadIdx.x + 1, ti = threadIdx.y + 1;
  if (i < N && j < M) {
    tile[ti][tj] = in[(long)i * M + j];
    if (threadIdx.x == 0 && j > 0) tile[ti][0] = in[(long)i * M + j - 1];
    if ((threadIdx.x == BX - 1 || j == M - 1) && j + 1 < M)
      tile[ti][tj + 1] = in[(long)i * M + j + 1];
    if (threadIdx.y == 0 && i > 0) tile[0][tj] = in[(long)(i - 1) * M + j];
    if ((threadIdx.y == BY - 1 || i == N - 1) && i + 1 < N)
      tile[ti + 1][tj] = in[(long)(i + 1) * M + j];
  }
  __syncthreads();
  if (i > 0 && i < N - 1 && j > 0 && j < M - 1)
    out[(long)i * M + j] = 0.2f * (tile[ti][tj] + tile[ti - 1][tj] + tile[ti + 1][tj] +
                                   tile[ti][tj - 1] + tile[ti][tj + 1]);
}

// The same step without shared memory (the benchmark's plain kernel).
extern "C" __global__ void stencil2d_plain(int N, int M, const float *__restrict__ in,
                                           float *__restrict__ out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < N - 1 && j > 0 && j < M - 1)
    out[i * M + j] = 0.2f * (in[i * M + j] + in[(i - 1) * M + j] + in[(i + 1) * M + j] +
                             in[i * M + j - 1] + in[i * M + j + 1]);
}

// Shared-memory bank conflicts: lanes store and load t[lane * stride].
extern "C" __global__ void bankconf(float *out, int stride) {
  __shared__ float t[32 * 33];
  t[threadIdx.x * stride] = (float)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = t[threadIdx.x * stride];
}
