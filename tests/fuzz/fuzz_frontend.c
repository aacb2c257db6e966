/* libFuzzer target: the front end alone (lexer, parser, type checks, entry lookup). Fast:
 * the bulk of the inputs. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "jit/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = sj_fuzz_text(data, size);
  sj_error err = {0, {0}};
  sj_program *p = sj_parse(text, SJ_FUZZ_NAME, &err);
  /* with several functions the caller must name the entry: name the first */
  const char *entry = p && p->nfuncs > 1 ? p->funcs[0]->name : NULL;
  if (!p || !sj_program_entry(p, entry, &err)) sj_fuzz_expect_position(err.status, err.msg);
  sj_program_free(p);
  free(text);
  return 0;
}
