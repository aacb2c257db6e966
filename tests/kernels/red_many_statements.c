// A kernel of many statements with nothing to unroll but its threads' points: 34 guarded
// integer sums in one loop, each a statement of its own, and at N=1000000 each thread runs 8
// points of each (sj_gpu_block_shape_warp_x), 272 statement instances in one kernel. The
// lowering's bound on unrolled code (astgen/lower.c) applies only where a tile's code may be
// lowered again less unrolled; it once cut this kernel's statements past the 256th.
// fill: a=-1000..1000
// run: N=1
// run: N=37
// run: N=1000000
void red_many_statements(int N, const int a[N], long s[34]) {
  for (int i = 0; i < N; i++) {
    if (i >= 0) s[0] += a[i] * 1;
    if (i >= 1) s[1] += a[i] * 2;
    if (i >= 2) s[2] += a[i] * 3;
    if (i >= 3) s[3] += a[i] * 4;
    if (i >= 4) s[4] += a[i] * 5;
    if (i >= 5) s[5] += a[i] * 1;
    if (i >= 6) s[6] += a[i] * 2;
    if (i >= 7) s[7] += a[i] * 3;
    if (i >= 8) s[8] += a[i] * 4;
    if (i >= 9) s[9] += a[i] * 5;
    if (i >= 10) s[10] += a[i] * 1;
    if (i >= 11) s[11] += a[i] * 2;
    if (i >= 12) s[12] += a[i] * 3;
    if (i >= 13) s[13] += a[i] * 4;
    if (i >= 14) s[14] += a[i] * 5;
    if (i >= 15) s[15] += a[i] * 1;
    if (i >= 16) s[16] += a[i] * 2;
    if (i >= 17) s[17] += a[i] * 3;
    if (i >= 18) s[18] += a[i] * 4;
    if (i >= 19) s[19] += a[i] * 5;
    if (i >= 20) s[20] += a[i] * 1;
    if (i >= 21) s[21] += a[i] * 2;
    if (i >= 22) s[22] += a[i] * 3;
    if (i >= 23) s[23] += a[i] * 4;
    if (i >= 24) s[24] += a[i] * 5;
    if (i >= 25) s[25] += a[i] * 1;
    if (i >= 26) s[26] += a[i] * 2;
    if (i >= 27) s[27] += a[i] * 3;
    if (i >= 28) s[28] += a[i] * 4;
    if (i >= 29) s[29] += a[i] * 5;
    if (i >= 30) s[30] += a[i] * 1;
    if (i >= 31) s[31] += a[i] * 2;
    if (i >= 32) s[32] += a[i] * 3;
    if (i >= 33) s[33] += a[i] * 4;
  }
}
