// heat-3d, 27 points, written naively in CUDA C: a baseline of bench/gpu/gpu_timing.c.
//
// One thread per point (x: k, y: j, z: i), one launch per time step,
// tests/kernels/heat3d_27pt.c's A[2][N][M][K] layout (the step reads A[t % 2] and writes
// A[(t + 1) % 2]), float, and the same arithmetic summed in the same order, so that with
// --fmad=false the result is the C function's bit for bit. No shared memory, no
// __restrict__, int indexing: a first CUDA port of the loop nest.
//
// heat3d_27pt_naive.ptx is this file compiled by
//   nvcc -O3 -arch=sm_80 -ptx --fmad=false heat3d_27pt_naive.cu -o heat3d_27pt_naive.ptx
// (checked in; the build regenerates it when nvcc is found).
#define A_(p, i, j, k) A[(((p) * N + (i)) * M + (j)) * K + (k)]

extern "C" __global__ void heat3d_27pt_step(int t, int N, int M, int K, float *A) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= 1 && i < N - 1 && j >= 1 && j < M - 1 && k >= 1 && k < K - 1) {
    int p = t % 2;
    A_((t + 1) % 2, i, j, k) =
        0.25f * A_(p, i, j, k) +
        0.0625f * (A_(p, i - 1, j, k) + A_(p, i + 1, j, k) + A_(p, i, j - 1, k) +
                   A_(p, i, j + 1, k) + A_(p, i, j, k - 1) + A_(p, i, j, k + 1)) +
        0.03125f * (A_(p, i - 1, j - 1, k) + A_(p, i - 1, j + 1, k) + A_(p, i + 1, j - 1, k) +
                    A_(p, i + 1, j + 1, k) + A_(p, i - 1, j, k - 1) + A_(p, i - 1, j, k + 1) +
                    A_(p, i + 1, j, k - 1) + A_(p, i + 1, j, k + 1) + A_(p, i, j - 1, k - 1) +
                    A_(p, i, j - 1, k + 1) + A_(p, i, j + 1, k - 1) + A_(p, i, j + 1, k + 1)) +
        0.015625f *
            (A_(p, i - 1, j - 1, k - 1) + A_(p, i - 1, j - 1, k + 1) + A_(p, i - 1, j + 1, k - 1) +
             A_(p, i - 1, j + 1, k + 1) + A_(p, i + 1, j - 1, k - 1) + A_(p, i + 1, j - 1, k + 1) +
             A_(p, i + 1, j + 1, k - 1) + A_(p, i + 1, j + 1, k + 1));
  }
}
