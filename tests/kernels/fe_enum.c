// Enumeration constants, as C programs name their radius and widths: at file scope and in
// the function, with and without a tag, in a typedef, defined from earlier ones, sizing a
// table and bounding loops (jit/parse.c, enum_specifier: named int values), and variables of
// the enumeration types.
// fill: a=-1..1
// run: N=5
// run: N=6
// run: N=300
enum { RADIUS = 2, WIDTH = 2 * RADIUS + 1 };
typedef enum { NONE, LEFT = 4, RIGHT } side_t;
enum dir { UP = -1, DOWN = 1, };
static const double w[WIDTH] = {0.1, 0.2, 0.4, 0.2, 0.1};
void fe_enum(int N, double a[N], double b[N], int s[N]) {
  enum { HALF = RADIUS };
  for (int i = HALF; i < N - HALF; i++) {
    double acc = 0;
    for (int k = -RADIUS; k <= RADIUS; k++) acc += w[k + RADIUS] * a[i + k];
    b[i] = acc;
    side_t side = acc > 0 ? RIGHT : LEFT;
    enum dir d = DOWN;
    s[i] = side + d * UP + NONE;
  }
}
