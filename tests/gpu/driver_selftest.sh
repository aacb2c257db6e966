#!/usr/bin/env bash
# Self-test of the two drivers against stand-ins: a fake CLI printing hand-written PTX and a fake
# ptxas reporting spills. Valid PTX must pass; invalid PTX, sm_90-only PTX, a predicated read-only
# load, spills, a failing or silent CLI and nondeterministic output must fail.
#
# usage: driver_selftest.sh KERNEL.c [PTXAS]     exit: 0 ok, 1 a check failed, 77 no ptxas
set -u
here=$(cd "$(dirname "$0")" && pwd)
kernel=${1:?usage: driver_selftest.sh KERNEL.c [PTXAS]}
ptxas=${2:-}
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  ptxas=$(command -v ptxas 2>/dev/null || true)
  [ -n "$ptxas" ] || { [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas; }
fi
fails=0
expect() { # expected-exit description command...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" -eq "$want" ]; then
    echo "ok   $what (exit $got)"
  else
    fails=$((fails + 1))
    echo "FAIL $what: exit $got, expected $want"
    sed -n '1,30s/^/    /p' "$tmp/out"
  fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu_selftest.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cli="$here/fake_cli.sh"
export FAKE_CLI_MODE=""

export FAKE_PTX="$here/valid_sm90.ptx"
expect 0 "determinism: identical output" "$here/gpu_ptx_deterministic.sh" --cli "$cli" "$kernel"
FAKE_CLI_MODE=pid expect 1 "determinism: output differs between processes" \
  "$here/gpu_ptx_deterministic.sh" --cli "$cli" "$kernel"
FAKE_CLI_MODE=fail expect 1 "determinism: the CLI fails" \
  "$here/gpu_ptx_deterministic.sh" --cli "$cli" "$kernel"

if [ -z "$ptxas" ]; then
  echo "driver_selftest: SKIPPED the ptxas checks: ptxas not found"
  [ "$fails" -eq 0 ] && exit 77
  exit 1
fi
run() { "$here/gpu_ptxas.sh" --cli "$cli" --ptxas "$ptxas" "$@" "$kernel"; }
expect 0 "ptxas: valid PTX for sm_90 and sm_80" run
FAKE_CLI_MODE=fail expect 1 "ptxas: the CLI fails" run
FAKE_CLI_MODE=empty expect 1 "ptxas: the CLI prints nothing" run
FAKE_PTX="$here/invalid.ptx" expect 1 "ptxas: invalid PTX" run
FAKE_PTX="$here/sm90_only.ptx" expect 1 "ptxas: PTX valid for sm_90 only" run
sed 's/^\tld.global.f32 %f1, \[%rd3\];/\t@%p2 ld.global.nc.f32 %f1, [%rd3];/' "$here/valid_sm90.ptx" \
  >"$tmp/predicated_nc.ptx"
FAKE_PTX="$tmp/predicated_nc.ptx" expect 1 "ptxas: a predicated ld.global.nc" run
REAL_PTXAS="$ptxas" expect 1 "ptxas: spills reported" \
  "$here/gpu_ptxas.sh" --cli "$cli" --ptxas "$here/fake_ptxas_spill.sh" "$kernel"
printf '// run: T=1 N=3 M=3 junk\n' >"$tmp/bad_run.c"
expect 1 "ptxas: malformed run line" "$here/gpu_ptxas.sh" --cli "$cli" --ptxas "$ptxas" \
  "$tmp/bad_run.c"
echo "driver_selftest: $fails failure(s)"
[ "$fails" -eq 0 ]
