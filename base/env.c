/* Switches read from the environment (see env.h). */
#include "base/env.h"

#include <stdlib.h>
#include <string.h>

int sj_env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}
