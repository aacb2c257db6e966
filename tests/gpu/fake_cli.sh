#!/bin/sh
# Stand-in for the stenciljit CLI in the drivers' self-test: `fake_cli.sh ptx FILE.c ...` prints
# $FAKE_PTX. FAKE_CLI_MODE=fail exits 5 as the CLI does on a device error; =pid appends the
# process id (nondeterministic output); =empty prints nothing.
[ "$1" = ptx ] && [ -r "$2" ] || { echo "fake_cli: usage: fake_cli.sh ptx FILE.c [options]" >&2; exit 1; }
case "${FAKE_CLI_MODE:-}" in
fail) echo "$2: the emu device is not available (fake)" >&2; exit 5 ;;
empty) exit 0 ;;
esac
cat "$FAKE_PTX" || exit 5
[ "${FAKE_CLI_MODE:-}" != pid ] || echo "// printed by process $$"
