// Two arrays swapped between time steps through pointers, as C codes write it: flat pointers,
// a macro for the subscript, the temporary declared before the loop. Each step's body is kept
// once per parity of the step, with the arrays the names hold then.
// run: nx=3 ny=3 nsteps=0
// run: nx=4 ny=5 nsteps=1
// run: nx=33 ny=17 nsteps=2
// run: nx=40 ny=33 nsteps=7
// run: nx=130 ny=70 nsteps=12
#define IDX(j, i) ((j) * nx + (i))
void fe_swap(int nx, int ny, int nsteps, double alpha, double *u, double *unew) {
  double *tmp;
  for (int s = 0; s < nsteps; s++) {
    for (int j = 1; j < ny - 1; j++)
      for (int i = 1; i < nx - 1; i++)
        unew[IDX(j, i)] = u[IDX(j, i)] + alpha * (u[IDX(j, i + 1)] + u[IDX(j, i - 1)] +
                                                  u[IDX(j + 1, i)] + u[IDX(j - 1, i)] -
                                                  4 * u[IDX(j, i)]);
    tmp = u;
    u = unew;
    unew = tmp;
  }
}
