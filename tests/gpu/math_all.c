#include <math.h>
// Every function of the math library, float and double, for ptxas (gpu_ptxas_math): on a GPU
// the transcendental ones are within doc/math.md's bounds, not bit-identical, so this kernel
// is not among tests/kernels (math_ulp_test checks the values).
// run: N=1000
void math_all(int N, const double X[N], const double Y[N], double R[N], const float F[N],
              const float G[N], float S[N]) {
  for (int i = 0; i < N; i++) {
    R[i] = sqrt(X[i]) + fabs(X[i]) + fmin(X[i], Y[i]) + fmax(X[i], Y[i]) + floor(X[i]) +
           ceil(X[i]) + trunc(X[i]) + round(X[i]) + fmod(X[i], Y[i]) + exp(X[i]) + exp2(X[i]) +
           expm1(X[i]) + log(X[i]) + log2(X[i]) + log10(X[i]) + log1p(X[i]) + pow(X[i], Y[i]) +
           sin(X[i]) + cos(X[i]) + tan(X[i]) + sinh(X[i]) + cosh(X[i]) + tanh(X[i]) +
           copysign(X[i], Y[i]) + fma(X[i], Y[i], R[i]);
    S[i] = sqrtf(F[i]) + fabsf(F[i]) + fminf(F[i], G[i]) + fmaxf(F[i], G[i]) + floorf(F[i]) +
           ceilf(F[i]) + truncf(F[i]) + roundf(F[i]) + fmodf(F[i], G[i]) + expf(F[i]) +
           exp2f(F[i]) + expm1f(F[i]) + logf(F[i]) + log2f(F[i]) + log10f(F[i]) + log1pf(F[i]) +
           powf(F[i], G[i]) + sinf(F[i]) + cosf(F[i]) + tanf(F[i]) + sinhf(F[i]) + coshf(F[i]) +
           tanhf(F[i]) + copysignf(F[i], G[i]) + fmaf(F[i], G[i], S[i]);
  }
}
