// Parboil's 7-point stencil as its CPU reference is written: a step function over flat
// arrays indexed through a macro, called in the time loop, the buffers swapped after it.
// fill: A0=-1..1 Anext=-1..1
// run: iteration=0 nx=3 ny=3 nz=3
// run: iteration=1 nx=3 ny=4 nz=5
// run: iteration=2 nx=9 ny=7 nz=8
// run: iteration=3 nx=20 ny=17 nz=12
#define Index3D(_nx, _ny, _i, _j, _k) ((_i) + _nx * ((_j) + _ny * (_k)))

void cpu_stencil(float c0, float c1, float *A0, float *Anext, const int nx, const int ny,
                 const int nz) {
  int i, j, k;
  for (i = 1; i < nx - 1; i++) {
    for (j = 1; j < ny - 1; j++) {
      for (k = 1; k < nz - 1; k++) {
        Anext[Index3D(nx, ny, i, j, k)] =
            (A0[Index3D(nx, ny, i, j, k + 1)] + A0[Index3D(nx, ny, i, j, k - 1)] +
             A0[Index3D(nx, ny, i, j + 1, k)] + A0[Index3D(nx, ny, i, j - 1, k)] +
             A0[Index3D(nx, ny, i + 1, j, k)] + A0[Index3D(nx, ny, i - 1, j, k)]) * c1 -
            A0[Index3D(nx, ny, i, j, k)] * c0;
      }
    }
  }
}

void parboil_stencil(int iteration, int nx, int ny, int nz, float c0, float c1, float *A0,
                     float *Anext) {
  int t;
  for (t = 0; t < iteration; t++) {
    cpu_stencil(c0, c1, A0, Anext, nx, ny, nz);
    float *temp = A0;
    A0 = Anext;
    Anext = temp;
  }
}
