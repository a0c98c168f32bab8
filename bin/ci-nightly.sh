#!/usr/bin/env bash
# The nightly suite as CI runs it, here and on a hosted runner (.github/workflows/nightly.yml
# calls this script; .ci/run calls it on a short folder). As root it installs what is missing;
# as another user, through sudo when sudo needs no password.
#   bin/ci-nightly.sh [suite folder] [results folder]     (default: workloads/nightly results)
#   bin/ci-nightly.sh --setup-only                        the set-up alone
#   bin/ci-nightly.sh --matrix <results folder> <matrix.yaml>...   matrices, one after another
# CONVOY_SUITE_SHARD=<i>/<n> runs the i-th of n shares of the suite (CI jobs side by side).
# Exit codes are convoy suite's: 0 every expectation held, 1 one failed, 2 a scenario did not
# load, 3 a run broke (or the set-up failed).
set -uo pipefail
cd "$(dirname "$0")/.."
setup_only=false
matrices=()
if [ "${1:-}" = --setup-only ]; then setup_only=true; shift; fi
if [ "${1:-}" = --matrix ]; then
  shift
  [ $# -ge 2 ] || { echo "usage: bin/ci-nightly.sh --matrix <results folder> <matrix.yaml>..." >&2; exit 2; }
  mresults="$1"; shift; matrices=("$@")
fi
folder="${1:-workloads/nightly}"
results="${2:-results}"
say() { echo "# ci-nightly: $*" >&2; }
say "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), user $(id -un), node $("$(bin/node-select.sh 2>/dev/null)" --version 2>/dev/null || echo missing), go $(go env GOVERSION 2>/dev/null || echo missing)"

# The set-up: npm packages (./convoy's first use), then the Debian packages, broker jars and
# Toxiproxy the suite's brokers need. One line and exit 3 when something cannot be installed.
if ! ./convoy setup; then
  say "set-up failed (see the line above); as a user without root, give it sudo without a password, or run it as root"
  exit 3
fi
if $setup_only; then say "set-up done"; exit 0; fi

# Matrices: each in turn; the exit code is the worst of theirs (3 over 1 over 0; 2 stops).
if [ ${#matrices[@]} -gt 0 ]; then
  worst=0
  for m in "${matrices[@]}"; do
    ./convoy matrix "$m" --results "$mresults"
    c=$?
    say "$m: exit $c"
    [ $c -eq 2 ] && exit 2
    if [ $c -eq 3 ] || { [ $c -eq 1 ] && [ $worst -eq 0 ]; }; then worst=$c; fi
  done
  ./convoy dashboard "$mresults" >/dev/null && say "dashboard: $mresults/dashboard/index.html"
  exit $worst
fi

shard=()
if [ -n "${CONVOY_SUITE_SHARD:-}" ]; then shard=(--shard "$CONVOY_SUITE_SHARD"); say "shard $CONVOY_SUITE_SHARD of the suite"; fi
./convoy suite "$folder" --results "$results" --quiet "${shard[@]}"
code=$?
case $code in
  0) say "every expectation held" ;;
  1) say "an expectation failed (exit 1)" ;;
  2) say "a scenario did not load (exit 2)" ;;
  *) say "a run broke or could not be judged (exit $code)" ;;
esac
say "results: $results (dashboard: $results/dashboard/index.html, JUnit: $results/dashboard/junit.xml)"
exit $code
