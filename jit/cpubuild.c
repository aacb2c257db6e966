/* The code of a CPU kernel's two tiers. TinyCC compiles in a millisecond but keeps no value
 * in a register: its C has innermost loops unrolled by hand with pointers advanced once per
 * iteration. The system compiler vectorizes plain loops and is slowed by that unrolling
 * (measured: jacobi-2d 4096², one thread, 1.7 G updates/s unrolled against 3.0 G plain), so
 * its C is lowered without it (and from the time-tiled schedule where that pays). Each is
 * the C function's operations in its order on each element: bit-identical. */
#include "jit/jit.h"

#include <stdlib.h>
#include <string.h>

#include "astgen/astgen.h"

/* The C text and the checks of the AST lowered with or without unrolling. */
static int text(const sj_model *m, __isl_keep isl_ast_node *ast, int unroll, char **c,
                sj_cpu_code *code, sj_error *err) {
  sj_ir_module *ir = NULL;
  int rc = sj_lower_cpu(m, ast, unroll, &ir, err);
  if (rc) return rc;
  for (int i = 0; i < ir->nfuncs; i++) sj_ir_optimize(ir->funcs[i]);
  *c = sj_print_c(ir);
  if (ir->ntraps) {
    code->traps = malloc((size_t)ir->ntraps * sizeof *code->traps);
    if (!code->traps) {
      sj_ir_module_free(ir);
      return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    }
    memcpy(code->traps, ir->traps, (size_t)ir->ntraps * sizeof *code->traps);
    code->ntraps = ir->ntraps;
  }
  sj_ir_module_free(ir);
  return 0;
}

int sj_cpu_lower(jit_kernel *k, const sj_model *m, __isl_keep isl_ast_node *ast, int second,
                 sj_error *err) {
  return second ? text(m, ast, 0, &k->c_code2, &k->tier2, err)
                : text(m, ast, 1, &k->c_code, &k->tier1, err);
}

int sj_cpu_compile(jit_kernel *k, sj_error *err) {
  k->code = sj_tcc_compile(k->c_code, "generated kernel", err);
  k->tier1.fn = k->code ? (sj_cpu_fn)sj_tcc_symbol(k->code, "__sj_kernel") : NULL;
  if (!k->tier1.fn)
    return err->status ? err->status : sj_error_set(err, JIT_ERR_INTERNAL, "no kernel symbol");
  k->running = &k->tier1;
  const char *why;
  if (k->ctx->tiers.policy == SJ_POLICY_TCC)
    sj_tier_set(k, SJ_TIER_TCC_ONLY, "tier 1 runs: TinyCC's code, as JIT_TIER=tcc asks");
  else if (!sj_cc_path(&why))
    sj_tier_set(k, SJ_TIER_TCC_ONLY, "tier 1 runs: TinyCC's code; no second tier: %s", why);
  return 0;
}
