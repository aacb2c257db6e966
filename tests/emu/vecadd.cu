// Elementwise kernels for the PTX emulator tests.
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float alpha, const float *__restrict__ x,
                                 float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

// 64-bit indexing: a grid-stride loop over a long index with a 64-bit stride.
extern "C" __global__ void index64(long long n, long long stride, double *out) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long step = (long long)gridDim.x * blockDim.x;
  for (; i < n; i += step) out[i * stride] = (double)i * 0.5 + (double)(i >> 3);
}

// Predication and loops: data-dependent branches and a loop with a variable trip count.
extern "C" __global__ void collatz(const unsigned *in, unsigned *steps, unsigned *peak, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], s = 0, p = v;
  while (v != 1 && v != 0) {
    if (v & 1)
      v = 3 * v + 1;
    else
      v >>= 1;
    p = v > p ? v : p;
    s++;
  }
  steps[i] = s;
  peak[i] = p;
}

// Integer arithmetic mix: signed division and remainder, shifts, min/max, mul.hi.
extern "C" __global__ void intmix(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    int q = y != 0 ? x / y : 0;
    int r = y != 0 ? x % y : 0;
    unsigned u = (unsigned)x >> (y & 31);
    int s = x >> (y & 31);
    int hi = __mulhi(x, y);
    long long w = (long long)x * y;
    out[8 * i + 0] = q;
    out[8 * i + 1] = r;
    out[8 * i + 2] = (int)u;
    out[8 * i + 3] = s;
    out[8 * i + 4] = hi;
    out[8 * i + 5] = (int)(w >> 17);
    out[8 * i + 6] = min(x, y) ^ max(x, y);
    out[8 * i + 7] = abs(x) - (x & y) + (x | ~y);
  }
}

// Float and conversions: division, sqrt, fma, float<->int conversions with rounding.
extern "C" __global__ void floatmix(const float *a, const double *d, float *fo, double *dout,
                                    int *io, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i];
    double y = d[i];
    fo[4 * i + 0] = x / (x * x + 1.0f);
    fo[4 * i + 1] = sqrtf(fabsf(x));
    fo[4 * i + 2] = fmaf(x, x, -2.0f);
    fo[4 * i + 3] = fminf(x, 1.5f) + fmaxf(x, -1.5f);
    dout[3 * i + 0] = y / (y + 3.0);
    dout[3 * i + 1] = sqrt(fabs(y));
    dout[3 * i + 2] = (double)x * y;
    io[4 * i + 0] = (int)x;
    io[4 * i + 1] = __float2int_rn(x);
    io[4 * i + 2] = (int)(unsigned char)(int)y;
    io[4 * i + 3] = (int)(long long)(y * 1e3);
  }
}
