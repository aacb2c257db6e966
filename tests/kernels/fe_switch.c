// switch statements whose cases end with break (jit/parse.c, switch_statement): on a boundary
// kind that the sizes decide per point (i % 3, stacked labels, a default in the middle), on
// data (an int array's value: a choice of values, as ifs on data are), with a loop and a
// declaration inside a case, and the last case ending the switch without a break.
// fill: K=-1..4 A=-1..1
// run: T=0 N=1
// run: T=1 N=4
// run: T=3 N=37
// run: T=2 N=301
void fe_switch(int T, int N, const int K[N], float A[N], float B[N], int C[N]) {
  (void)T;
  for (int i = 0; i < N; i++) {
    switch (i % 3) {
    case 0:
      B[i] = A[i] * 2;
      break;
    default:
      B[i] = -A[i];
      break;
    case 1:
    case -1:
      B[i] = A[i] + 1;
      break;
    }
    switch (K[i]) {
    case 0: C[i] = 10; break;
    case 1:
    case 2: {
      int s = 0;
      for (int k = 0; k < 3; k++) s += k * K[i];
      C[i] = s;
      break;
    }
    case 3 + 1:
      A[i] = B[i] * 0.5f;
      break;
    default:
      C[i] = -1;
    }
  }
}
