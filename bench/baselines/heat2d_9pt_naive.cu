// heat-2d, 9 points, written naively in CUDA C: a baseline of bench/gpu/gpu_timing.c.
//
// One thread per point, one launch per time step, tests/kernels/heat2d_9pt.c's A[2][N][M]
// layout (the step reads A[t % 2] and writes A[(t + 1) % 2]), float, and the same arithmetic
// summed in the same order, so that with --fmad=false the result is the C function's bit for
// bit. No shared memory, no __restrict__, int indexing: a first CUDA port of the loop nest.
//
// heat2d_9pt_naive.ptx is this file compiled by
//   nvcc -O3 -arch=sm_80 -ptx --fmad=false heat2d_9pt_naive.cu -o heat2d_9pt_naive.ptx
// (checked in; the build regenerates it when nvcc is found).
extern "C" __global__ void heat2d_9pt_step(int t, int N, int M, float *A) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < N - 1 && j >= 1 && j < M - 1) {
    const float *a = A + (t % 2) * N * M;
    float *b = A + ((t + 1) % 2) * N * M;
    b[i * M + j] = 0.5f * a[i * M + j] +
                   0.0625f * (a[(i - 1) * M + j - 1] + a[(i - 1) * M + j] +
                              a[(i - 1) * M + j + 1] + a[i * M + j - 1] + a[i * M + j + 1] +
                              a[(i + 1) * M + j - 1] + a[(i + 1) * M + j] +
                              a[(i + 1) * M + j + 1]);
  }
}
