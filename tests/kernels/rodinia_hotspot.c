// Rodinia's hotspot as its OpenMP version is written: one step as a function of flat arrays
// with a branch per corner and edge of the chip, called in the time loop with the buffers
// swapped after it (constants of the original in macros).
// fill: temp=-1..1 result=-1..1 power=0..1
// run: num_iterations=0 row=3 col=3
// run: num_iterations=1 row=3 col=4
// run: num_iterations=2 row=9 col=17
// run: num_iterations=5 row=33 col=40
#define MAX_PD (3.0e6)
#define PRECISION 0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
#define FACTOR_CHIP 0.5
#define amb_temp 80.0

static void single_iteration(float *result, float *temp, float *power, int row, int col,
                             float Cap_1, float Rx_1, float Ry_1, float Rz_1, float step) {
  float delta;
  int r, c;
  for (r = 0; r < row; ++r) {
    for (c = 0; c < col; ++c) {
      if ((r == 0) && (c == 0)) {
        delta = (step / Cap_1) * (power[0] + (temp[1] - temp[0]) * Rx_1 +
                                  (temp[col] - temp[0]) * Ry_1 + (amb_temp - temp[0]) * Rz_1);
      } else if ((r == 0) && (c == col - 1)) {
        delta = (step / Cap_1) * (power[c] + (temp[c - 1] - temp[c]) * Rx_1 +
                                  (temp[c + col] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
      } else if ((r == row - 1) && (c == col - 1)) {
        delta = (step / Cap_1) *
                (power[r * col + c] + (temp[r * col + c - 1] - temp[r * col + c]) * Rx_1 +
                 (temp[(r - 1) * col + c] - temp[r * col + c]) * Ry_1 +
                 (amb_temp - temp[r * col + c]) * Rz_1);
      } else if ((r == row - 1) && (c == 0)) {
        delta = (step / Cap_1) * (power[r * col] + (temp[r * col + 1] - temp[r * col]) * Rx_1 +
                                  (temp[(r - 1) * col] - temp[r * col]) * Ry_1 +
                                  (amb_temp - temp[r * col]) * Rz_1);
      } else if (r == 0) {
        delta = (step / Cap_1) * (power[c] + (temp[c + 1] + temp[c - 1] - 2.0 * temp[c]) * Rx_1 +
                                  (temp[col + c] - temp[c]) * Ry_1 + (amb_temp - temp[c]) * Rz_1);
      } else if (c == col - 1) {
        delta = (step / Cap_1) *
                (power[r * col + c] +
                 (temp[(r + 1) * col + c] + temp[(r - 1) * col + c] - 2.0 * temp[r * col + c]) *
                     Ry_1 +
                 (temp[r * col + c - 1] - temp[r * col + c]) * Rx_1 +
                 (amb_temp - temp[r * col + c]) * Rz_1);
      } else if (r == row - 1) {
        delta = (step / Cap_1) *
                (power[r * col + c] +
                 (temp[r * col + c + 1] + temp[r * col + c - 1] - 2.0 * temp[r * col + c]) *
                     Rx_1 +
                 (temp[(r - 1) * col + c] - temp[r * col + c]) * Ry_1 +
                 (amb_temp - temp[r * col + c]) * Rz_1);
      } else if (c == 0) {
        delta = (step / Cap_1) *
                (power[r * col] +
                 (temp[(r + 1) * col] + temp[(r - 1) * col] - 2.0 * temp[r * col]) * Ry_1 +
                 (temp[r * col + 1] - temp[r * col]) * Rx_1 + (amb_temp - temp[r * col]) * Rz_1);
      } else {
        delta = (step / Cap_1) *
                (power[r * col + c] +
                 (temp[(r + 1) * col + c] + temp[(r - 1) * col + c] - 2.0 * temp[r * col + c]) *
                     Ry_1 +
                 (temp[r * col + c + 1] + temp[r * col + c - 1] - 2.0 * temp[r * col + c]) *
                     Rx_1 +
                 (amb_temp - temp[r * col + c]) * Rz_1);
      }
      result[r * col + c] = temp[r * col + c] + delta;
    }
  }
}

void rodinia_hotspot(int num_iterations, int row, int col, float Cap, float Rx, float Ry,
                     float Rz, float step, float *result, float *temp, float *power) {
  for (int i = 0; i < num_iterations; i++) {
    single_iteration(result, temp, power, row, col, 1.0f / Cap, 1.0f / Rx, 1.0f / Ry,
                     1.0f / Rz, step);
    float *tmp = temp;
    temp = result;
    result = tmp;
  }
}
