/* The library's version, as built (the header's STENCILJIT_VERSION is the one compiled
 * against). */
#include "stenciljit.h"

const char *jit_version(void) {
  return SJ_VERSION;
}
