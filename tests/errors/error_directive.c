// error: 4:1: #error define SIZE first
// status: syntax
#ifndef SIZE
#error define SIZE first
#endif
void k(int N, float A[N]) { }
