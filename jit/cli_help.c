/* The stenciljit tool's help: an overview and one text per command, shown by `stenciljit
 * help [COMMAND]`, `stenciljit COMMAND --help` and after a usage error. The manual page
 * (doc/stenciljit.1) says the same at length, with the environment. */
#include "jit/cli.h"

#include <string.h>

static const char overview[] =
    "usage: stenciljit COMMAND [arguments]\n"
    "commands:\n"
    "  run FILE.c [options]        run the kernel on pseudo-random data and time it\n"
    "  c FILE.c [options]          print the generated C\n"
    "  ptx FILE.c [options]        print the generated PTX\n"
    "  schedule FILE.c [options]   explain the chosen schedule\n"
    "  cache list|clear|size       the on-disk kernel cache\n"
    "  help [COMMAND]              this text, or a command's\n"
    "`stenciljit COMMAND --help` lists a command's options; --version prints the version;\n"
    "`man stenciljit` has the environment variables.\n"
    "exit codes: 0 ok, 1 usage, 2 bad input, 3 unsupported kernel, 4 check failed,\n"
    "            5 device or internal error\n";

#define KERNEL_OPTIONS                                                                             \
  "  -D NAME=VALUE   value of a parameter (every int/long one; float/double default 0.75)\n"       \
  "  --entry F       function to use when FILE.c holds several\n"                                  \
  "  --device D      auto|cpu|emu|cuda (default auto; $JIT_DEVICE overrides auto)\n"               \
  "  --threads N     CPU worker threads (default: $JIT_THREADS, else one per CPU)\n"               \
  "  --tier T        CPU code: tcc (TinyCC only), cc (the system compiler only) or auto\n"         \
  "                  (TinyCC's first, the system compiler's once ready; $JIT_TIER)\n"              \
  "  --tiling M      time tiling: auto, time, hybrid, split or none ($JIT_TILING)\n"               \
  "  --tile SPEC     time tile sizes h=H,w=W0xW1..., or none ($JIT_TILE)\n"                        \
  "  --fast-math     allow contraction and approximate division (implies --reassociate)\n"         \
  "  --reassociate   reductions may run in parallel, rounding differently ($JIT_REASSOCIATE)\n"

static const struct {
  const char *name, *text;
} commands[] = {
    {"run", "usage: stenciljit run FILE.c [options]\n"
            "Compiles the kernel for the -D values, fills its arrays with deterministic\n"
            "pseudo-random data, runs it and prints the compile's stages and each run's time.\n"
            "options:\n" KERNEL_OPTIONS "  --repeat K      run K times, timing each (default 1)\n"
            "  --check         also run the reference (the function itself, compiled by TinyCC)\n"
            "                  as often on the same data: updates/s side by side, and the\n"
            "                  largest difference; exit code 4 unless bit-identical\n"
            "  --fill NAME=LO..HI  array NAME's elements: integers LO..HI, floating values in\n"
            "                  [LO, HI) (default 0..9, a bool 0..1, and [-1, 1)); repeatable\n"
            "  --corrupt-result  testing aid: flip one bit of the result before --check\n"},
    {"c", "usage: stenciljit c FILE.c [options]\n"
          "Prints the C the CPU device compiles (nothing on a GPU device: see ptx).\n"
          "options:\n" KERNEL_OPTIONS},
    {"ptx", "usage: stenciljit ptx FILE.c [options]\n"
            "Prints the PTX of the kernel; without --device on a machine without a GPU, the\n"
            "PTX the emulator device would load.\n"
            "options:\n" KERNEL_OPTIONS},
    {"schedule", "usage: stenciljit schedule FILE.c [options]\n"
                 "Explains the chosen schedule: statements, domains, dependences, the stencil\n"
                 "form if any, the mapping to threads or GPU blocks, and the schedule tree.\n"
                 "options:\n" KERNEL_OPTIONS},
    {"cache", "usage: stenciljit cache list|clear|size\n"
              "The on-disk cache of compiled kernels (PTX, cubins): $JIT_CACHE_DIR, else\n"
              "$XDG_CACHE_HOME/stenciljit, else ~/.cache/stenciljit, at most $JIT_CACHE_SIZE\n"
              "bytes (default 256M; least recently used entries go first). JIT_CACHE=off\n"
              "turns it off for the library; these commands still reach the directory.\n"
              "  list    every entry, most recently used first: last use, size, kind, kernel\n"
              "  clear   remove every entry\n"
              "  size    bytes and entries held, and the bound\n"},
    {"help", "usage: stenciljit help [COMMAND]\n"
             "The overview of the commands, or the options of one.\n"},
};

int sj_cli_help(FILE *f, const char *command) {
  if (!command) {
    fputs(overview, f);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(commands[i].name, command)) {
      fputs(commands[i].text, f);
      return 0;
    }
  return -1;
}
