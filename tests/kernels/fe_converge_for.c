// A solver's iterations as a for loop whose condition also tests convergence on a residual
// kept in an array element (1-D, float): the loop runs to its bound, the body under the
// test. The residual is the sum of squared changes of the last iteration.
// fill: u=-1..1 v=-1..1 res=1..1
// run: maxit=0 N=3 tol=0.5
// run: maxit=4 N=3 tol=0.5
// run: maxit=50 N=12 tol=0.01
// run: maxit=50 N=12 tol=0.00001
// run: maxit=300 N=100 tol=0.05
void fe_converge_for(int maxit, int N, float tol, float *u, float *v, float *res) {
  for (int k = 0; k < maxit && res[0] > tol; k++) {
    float r = 0.0f;
    for (int i = 1; i < N - 1; i++) {
      v[i] = 0.5f * (u[i - 1] + u[i + 1]);
      r += (v[i] - u[i]) * (v[i] - u[i]);
    }
    for (int i = 1; i < N - 1; i++) u[i] = v[i];
    res[0] = r;
  }
}
