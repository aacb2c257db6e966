/* libFuzzer target: the whole compile of the input on the CPU device (parse, model,
 * dependences, stencil recognition, schedule, AST, C printer, TinyCC), or on the emulator
 * with SJ_FUZZ_DEVICE=emu (PTX printer and the emulator's loader instead of the C printer).
 * Integer parameters take small values (1 to 6, from the input's length), so the shapes
 * stay small; pointers are NULL (compiles need only kinds and integer values). Nothing runs.
 * A context per input keeps memory flat: the shape cache would otherwise grow with every
 * input that compiles. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "jit/parse.h"

enum { MAX_PARAMS = 32 };

static jit_device device(void) {
  const char *d = getenv("SJ_FUZZ_DEVICE");
  return d && !strcmp(d, "emu") ? JIT_DEVICE_EMU : JIT_DEVICE_CPU;
}

/* The emulator is a shared library opened by each context and closed with it; its coverage
 * counters are registered with libFuzzer when it is first loaded, so it must stay loaded:
 * one context is kept for the whole run (reachable from here, so that LeakSanitizer's check
 * at exit does not take it for a leak). */
static jit_context *volatile kept; /* volatile: a store never read would go */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  if (device() == JIT_DEVICE_EMU && !(kept = jit_context_create(JIT_DEVICE_EMU))) {
    fprintf(stderr, "no emulator context: %s\n", jit_last_error());
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = sj_fuzz_text(data, size);
  jit_context *ctx = jit_context_create(device());
  if (!ctx) {
    fprintf(stderr, "no context: %s\n", jit_last_error());
    abort();
  }
  jit_options o;
  memset(&o, 0, sizeof o);
  o.source_name = SJ_FUZZ_NAME;
  o.threads = 2;
  o.max_compile_ops = 20000000; /* a few seconds at most: a hang is a finding */
  jit_context_set_options(ctx, &o);
  /* with several functions the caller must name the entry: name the first */
  sj_error err = {0, {0}};
  sj_program *prog = sj_parse(text, SJ_FUZZ_NAME, &err);
  char *entry = prog && prog->nfuncs > 1 ? strdup(prog->funcs[0]->name) : NULL;
  sj_program_free(prog);
  jit_param_info params[MAX_PARAMS];
  int n = 0;
  int st = jit_function_params(ctx, text, entry, params, MAX_PARAMS, &n);
  if (st) sj_fuzz_expect_position(st, jit_context_error(ctx));
  if (!st && n < MAX_PARAMS) {
    jit_arg args[MAX_PARAMS];
    int small = 1 + (int)(size % 6);
    for (int i = 0; i < n; i++) {
      switch (params[i].kind) {
      case JIT_ARG_INT:
        args[i] = JIT_INT(small + i % 2);
        break;
      case JIT_ARG_LONG:
        args[i] = JIT_LONG(small);
        break;
      case JIT_ARG_FLOAT:
        args[i] = JIT_FLOAT(0.5f);
        break;
      case JIT_ARG_DOUBLE:
        args[i] = JIT_DOUBLE(0.25);
        break;
      default:
        args[i] = JIT_PTR(NULL);
      }
    }
    jit_kernel *k = NULL;
    st = jit_kernel_compile(ctx, text, entry, args, n, &k);
    if (st) sj_fuzz_expect_position(st, jit_context_error(ctx));
    jit_kernel_release(k);
  }
  jit_context_destroy(ctx);
  free(entry);
  free(text);
  return 0;
}
