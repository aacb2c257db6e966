// jacobi-2d written naively in CUDA C: the baseline of bench/gpu/gpu_bench.c.
//
// One thread per point, one launch per time step, the C function's A[2][N][M] layout
// (the step reads A[t % 2] and writes A[(t + 1) % 2]), float, and the same arithmetic as
//   A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i+1][j]
//                              + A[t%2][i][j-1] + A[t%2][i][j+1]);
// summed in the same order. No shared memory, no __restrict__, no const, int indexing:
// what a first CUDA port of the loop nest looks like.
//
// bench/baselines/jacobi2d_naive.ptx is this file compiled by
//   nvcc -O3 -arch=sm_80 -ptx --fmad=false jacobi2d_naive.cu -o jacobi2d_naive.ptx
// (checked in; the build regenerates it when nvcc is found). NVRTC compiles this same text
// for the cold-compile comparison.
extern "C" __global__ void jacobi2d_step(int t, int N, int M, float *A) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < N - 1 && j >= 1 && j < M - 1) {
    int in = t % 2, out = (t + 1) % 2;
    A[(out * N + i) * M + j] =
        0.2f * (A[(in * N + i) * M + j] + A[(in * N + i - 1) * M + j] +
                A[(in * N + i + 1) * M + j] + A[(in * N + i) * M + j - 1] +
                A[(in * N + i) * M + j + 1]);
  }
}
