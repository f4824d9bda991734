#!/usr/bin/env bash
# The suites under load: the UI's unit tests, its browser suite and
# `cargo test` with the real llama.cpp tier, ROUNDS times in a row (3
# unless given), while one busy process per core (`yes`, at the suites'
# own priority) keeps every core at 100% beside them. A round stops at the
# first failing suite. The tests' results must not depend on the
# machine's speed; this shows it on the machine it runs on.
#
#   bash tests/load/run.sh [ROUNDS]      (after scripts/setup.sh --all)
#
# The log of each suite is in the printed folder; the summary line per
# suite gives its round, its wall time and its result.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
ROUNDS="${1:-3}"
LOGS="$(mktemp -d /tmp/sift-load-XXXXXX)"
busy=()
stop_busy() { [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true; }
trap stop_busy EXIT
# The browser suite serves the built UI: build it once, before the load.
(cd ui && npm run --silent build) >"$LOGS/build.log" 2>&1 || { cat "$LOGS/build.log" >&2; exit 1; }
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  busy+=($!)
done
echo "load: ${#busy[@]} busy processes beside the suites; logs in $LOGS"

suite() { # round name command...
  local round=$1 name=$2 start rc=0
  shift 2
  start=$(date +%s)
  "$@" >"$LOGS/$round-$name.log" 2>&1 || rc=$?
  printf 'load: round %s %-8s %4ss load average %s: %s\n' "$round" "$name" "$(($(date +%s) - start))" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$([ $rc -eq 0 ] && echo passed || echo "FAILED (exit $rc, $LOGS/$round-$name.log)")"
  return $rc
}

for round in $(seq "$ROUNDS"); do
  suite "$round" vitest bash -c 'cd ui && npm test --silent'
  suite "$round" browser bash -c 'cd ui && npm run --silent test:browser'
  suite "$round" cargo bash scripts/test-rust.sh
done
echo "load: $ROUNDS rounds passed"
