#!/usr/bin/env bash
# The manual page keeps up with the code: every environment variable the library, the tool
# and the emulator read is described in its ENVIRONMENT section, every command of
# `stenciljit help` in its COMMANDS section, and groff renders it without a warning.
# usage: man_test.sh SOURCE_DIR STENCILJIT_TOOL
set -u
src=$1 tool=$2
page=$src/doc/stenciljit.1
status=0
section() { # the lines of one .SH section
  awk -v s="$1" '/^\.SH /{on = ($2 == s)} on' "$page"
}
vars=$(cd "$src" && grep -rhoE '(getenv|sj_env_flag)\("[A-Za-z_0-9]+"\)' base sched astgen ptx host jit |
  sed -E 's/.*\("([^"]+)"\)/\1/' | sort -u)
[ -n "$vars" ] || { echo "FAIL: no getenv found under $src"; exit 1; }
# require SECTION REGEX WHAT: the section has a line matching REGEX, else WHAT is reported.
require() {
  section "$1" | grep -qE "$2" && return
  echo "FAIL: $3"
  status=1
}
for v in $vars; do
  require ENVIRONMENT "^\.B $v$" "$v is read (grep getenv) but not described under ENVIRONMENT"
done
commands=$("$tool" help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && !/^  /{on=0}')
[ -n "$commands" ] || { echo "FAIL: no commands in 'stenciljit help'"; exit 1; }
for c in $commands; do
  require COMMANDS "^\.BR? $c( |$)" "command '$c' of 'stenciljit help' is not under COMMANDS"
done
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || { echo "FAIL: groff: $warnings"; status=1; }
fi
[ "$status" -eq 0 ] && echo "manual page: $(echo $vars | wc -w) variables, $(echo $commands | wc -w) commands described"
exit "$status"
