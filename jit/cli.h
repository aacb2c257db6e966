/* The stenciljit tool's parts besides its main (cli.c): the help texts (cli_help.c) and the
 * cache command (cli_cache.c). */
#ifndef SJ_CLI_H
#define SJ_CLI_H

#include <stdio.h>

/* Exit codes of the tool. */
enum {
  SJ_EXIT_USAGE = 1,
  SJ_EXIT_INPUT = 2,
  SJ_EXIT_UNSUPPORTED = 3,
  SJ_EXIT_CHECK = 4,
  SJ_EXIT_DEVICE = 5
};

/* Writes the help of command (NULL: the overview) to f; 0, or -1 for an unknown command. */
int sj_cli_help(FILE *f, const char *command);
/* stenciljit cache list|clear|size: argv[0] is "cache"; returns the exit code. */
int sj_cli_cache(int argc, char **argv);

#endif
