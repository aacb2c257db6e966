/* ptx/: the PTX printer, the GPU target of the AST walk (the emulator lives in ptx/emu). */
#ifndef SJ_PTX_H
#define SJ_PTX_H

#include <isl/ast.h>

#include "sched/sched.h"

/* The module with one .entry per kernel mark of ast, named <function>_k<id>. Kernel
 * parameters, in order: every array (u64 device pointer, by array id), every floating
 * scalar (parameter order), then the host iterators sj_ast_kernel_host_iters lists (s64).
 * version and target are the operands of .version and .target. fast_math contracts
 * a * b + c into fma and divides f32 with div.full (2 ulp): results may then differ from C.
 * malloc'd; deterministic. */
char *sj_print_ptx(const sj_model *m, __isl_keep isl_ast_node *ast, const char *version,
                   const char *target, int fast_math);

#endif
