// error: 4:3: static local 'calls' keeps its value between calls: a static local is supported as a constant or a table (static const double c = 0.5; static double w[3] = {...})
// status: unsupported
void k(int N, float A[N]) {
  static int calls = 0;
  A[0] = calls;
}
