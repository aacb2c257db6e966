/* ptx/: the PTX target of the kernel IR (the emulator lives in ptx/emu). */
#ifndef SJ_PTX_H
#define SJ_PTX_H

#include "astgen/ir.h"

/* The module: one .entry per kernel function of mod (every function but the host one),
 * parameters in the function's order (arrays and the error word as u64 global addresses,
 * scalars at their type, host iterators s64), .reqntid the function's block size. version
 * and target are the operands of .version and .target. Short guarded code is predicated
 * (the kernels are rewritten). A jit_status; on success *out is the text (malloc'd,
 * deterministic). */
int sj_print_ptx(sj_ir_module *mod, const char *version, const char *target, char **out,
                 sj_error *err);

#endif
