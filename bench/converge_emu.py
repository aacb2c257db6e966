#!/usr/bin/env python3
"""What the steps after convergence cost: solvers whose time loop ends on a test of the data
(a test in the loop's condition, an integer flag the body sets, a break), on the emulator.

A loop that ends early runs to its bound with its body under the test (jit/parse.c): each
step after the test fails still launches its kernels. Each solver runs twice through
`stenciljit run --device emu --check`: with its bound at the steps it needs (`live`) and with a
bound ten times that (`bound 10x`, nine tenths of the steps skipped); the difference divided by
the skipped steps is what one skipped step costs, beside what one live step costs. Every figure
is the emulator's MODEL (JIT_EMU_STATS, summed over launches), not a GPU measurement.
Usage: converge_emu.py BUILD_DIR RESULTS.md [--quick]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SOLVERS = {
    "heat-1d, test in the for loop's condition, arrays swapped": """
#include <math.h>
void s(int T, int N, float tol, float *u, float *v, int steps[1]) {
  float err = 1.0f;
  int t;
  v[0] = u[0]; /* the swapped arrays share their boundary */
  v[N - 1] = u[N - 1];
  for (t = 0; t < T && err > tol; t++) {
    err = 0.0f;
    for (int i = 1; i < N - 1; i++) {
      v[i] = 0.5f * u[i] + 0.25f * (u[i - 1] + u[i + 1]);
      err = fmaxf(err, fabsf(v[i] - u[i]));
    }
    float *w = u;
    u = v;
    v = w;
  }
  steps[0] = t;
}
""",
    "heat-1d, while on an integer flag, copy-back": """
#include <math.h>
void s(int T, int N, float tol, float *u, float *v, int steps[1]) {
  int changed = 1, t = 0;
  while (t < T && changed) {
    changed = 0;
    for (int i = 1; i < N - 1; i++) {
      v[i] = 0.5f * u[i] + 0.25f * (u[i - 1] + u[i + 1]);
      if (fabsf(v[i] - u[i]) > tol) changed = 1;
    }
    for (int i = 1; i < N - 1; i++) u[i] = v[i];
    t++;
  }
  steps[0] = t;
}
""",
    "heat-2d, break on the change, copy-back": """
#include <math.h>
void s(int T, int N, float tol, float u[N][N], float v[N][N], int steps[1]) {
  int t;
  for (t = 0; t < T; t++) {
    float d = 0.0f;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++) {
        v[i][j] = 0.5f * u[i][j] + 0.125f * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        d = fmaxf(d, fabsf(v[i][j] - u[i][j]));
      }
    if (d < tol) break;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++) u[i][j] = v[i][j];
  }
  steps[0] = t;
}
""",
}
SIZES = {"N": 65536, "tol": 0.02}
SIZES_2D = {"N": 512, "tol": 0.02}


def run(cli, path, sizes, stats):
    env = dict(os.environ, JIT_EMU_STATS=stats, JIT_CACHE="off")
    if os.path.exists(stats):
        os.remove(stats)
    args = [cli, "run", path, "--device", "emu", "--check"]
    for k, v in sizes.items():
        args += ["-D", "%s=%s" % (k, v)]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    text = out.stdout + out.stderr
    if "bit-identical to the reference" not in text:
        sys.exit("not bit-identical: %s\n%s" % (" ".join(args), text))
    launches = [json.loads(line) for line in open(stats) if line.strip()]
    return {
        "launches": len(launches),
        "instr": sum(l["instructions"] for l in launches),
        "sectors": sum(l["global_sectors"] for l in launches),
        "dram": sum(l["l2_model_dram_bytes"] for l in launches),
    }


def steps_taken(cc, src, sizes, bound):
    """The steps the solver runs before its test ends it: the C function itself, on the data the
    CLI gives its arrays (jit/cli.c, fill: parameter k's floats from splitmix seeded 0x5eed0000
    + k; u and v are parameters 3 and 4)."""
    with tempfile.TemporaryDirectory() as tmp:
        main = os.path.join(tmp, "main.c")
        n = sizes["N"]
        two_d = "u[N][N]" in src
        count = n * n if two_d else n
        cast = "(float (*)[N])" if two_d else ""
        with open(main, "w") as f:
            f.write(src.replace("void s(", "static void s(") + """
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static void fill(float *p, long n, uint64_t seed) {
  for (long i = 0; i < n; i++) p[i] = (float)(splitmix(&seed) >> 40) * 0x1p-23f - 1.0f;
}
int main(void) {
  int N = %d, steps[1];
  float *u = malloc(%d * sizeof *u), *v = malloc(%d * sizeof *v);
  fill(u, %d, 0x5eed0003u);
  fill(v, %d, 0x5eed0004u);
  s(%d, N, %rf, %su, %sv, steps);
  printf("%%d\\n", steps[0]);
  return 0;
}
""" % (n, count, count, count, count, bound, sizes["tol"], cast, cast))
        exe = os.path.join(tmp, "main")
        subprocess.run([cc, "-O1", "-o", exe, main, "-lm"], check=True)
        return int(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cli = os.path.join(sys.argv[1], "stenciljit")
    quick = "--quick" in sys.argv
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        stats = os.path.join(tmp, "stats.jsonl")
        for label, src in SOLVERS.items():
            sizes = dict(SIZES_2D if "2d" in label else SIZES)
            if quick:
                sizes["N"] = 64
            path = os.path.join(tmp, "s.c")
            with open(path, "w") as f:
                f.write(src)
            live = steps_taken("cc", src, sizes, 100000)
            sizes["T"] = live
            a = run(cli, path, sizes, stats)
            sizes["T"] = 10 * live
            b = run(cli, path, sizes, stats)
            skipped = 9 * live
            rows.append((label, sizes["N"], live, a, b, skipped))
    lines = [
        "# What the steps after convergence cost (emulator model)",
        "",
        "Written by `bench/converge_emu.py`. Solvers whose time loop ends on a test of the data run",
        "with their bound at the steps they need (live) and at ten times that: the loop then runs",
        "to its bound with its body under the test, and the difference over the skipped steps is",
        "what a skipped step costs. Every figure is the emulator's MODEL, summed over launches, not",
        "a GPU measurement; every run bit-identical to the C function (`--check`).",
        "",
        "| solver | N | live steps | launches live / 10x | instructions per live step | "
        "per skipped step | global sectors per live step | per skipped step | "
        "L2-model DRAM B per live step | per skipped step |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, n, live, a, b, skipped in rows:
        per = lambda k, r, d: r[k] / d
        lines.append(
            "| %s | %d | %d | %d / %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |"
            % (label, n, live, a["launches"], b["launches"], per("instr", a, live),
               (b["instr"] - a["instr"]) / skipped, per("sectors", a, live),
               (b["sectors"] - a["sectors"]) / skipped, per("dram", a, live),
               (b["dram"] - a["dram"]) / skipped))
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
