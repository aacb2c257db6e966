// error: 4:3: preprocessor directive '#define' is not supported
// status: unsupported
#include <math.h>
  #define N 100
void k(int M, float A[M]) { }
