// Compile-only check: the public header is valid C++ and its argument helpers build an
// argument array the way the C examples do.
#include <stenciljit.h>

#include <vector>

int stenciljit_cxx_header_check(jit_context *ctx, float *a) {
  std::vector<float> b(16);
  const jit_arg args[] = {JIT_INT(3),       JIT_LONG(4L), JIT_FLOAT(0.5f),
                          JIT_DOUBLE(0.25), JIT_PTR(a),   JIT_PTR(b.data())};
  jit_options opts = jit_options();
  opts.source_name = "cxx";
  jit_context_set_options(ctx, &opts);
  jit_stats stats;
  jit_context_stats(ctx, &stats);
  jit_stage_times times = jit_stage_times();
  (void)times;
  static_assert(sizeof(args) / sizeof(args[0]) == 6, "six arguments");
  return jit_stencil_run(ctx, "void f(int n) {}", nullptr, args, 6) + (int)stats.compiles +
         (args[1].kind == JIT_ARG_LONG ? 0 : 1);
}
