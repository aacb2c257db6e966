// Front end: a function name of 511 characters with two loop nests. Its kernels keep
// distinct names that are valid PTX identifiers (a 128-byte buffer once cut both to one:
// "Duplicate definition of function"), and the generated C holds the whole name (a 512-byte
// line buffer once cut its comment, which TinyCC refused).
// run: N=1
// run: N=7
// run: N=64
void fe_long_name_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_a_function_name_well_beyond_any_fixed_buffer_end(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++)
    A[i] = A[i] * 0.5f + 1.0f;
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i + 1];
}
