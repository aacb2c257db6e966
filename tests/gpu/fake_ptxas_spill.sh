#!/bin/sh
# Stand-in for ptxas in the drivers' self-test: runs the real ptxas ($REAL_PTXAS) and then
# reports a spill, as ptxas -v does for a kernel that runs out of registers.
"$REAL_PTXAS" "$@" || exit $?
echo "ptxas info    : Function properties for sj_selftest_kernel"
echo "    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads"
