// A name of 121 characters: the kernels get a shortened name (48 characters and a digest)
// and the time step reaches them as a parameter, whose name is the kernel's plus _param_N.
// run: T=0 N=3
// run: T=1 N=3
// run: T=3 N=33
// run: T=4 N=64
void jacobi_with_a_name_long_enough_to_be_shortened_for_the_kernel_and_its_parameters_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] = 0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
}
