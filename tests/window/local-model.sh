#!/usr/bin/env bash
# The app and the real local model server: with the local provider as the
# default, the app starts the server at launch (no action needed), and the
# server does not outlive the app, even when the app is killed rather than
# closed (it runs under setpriv --pdeathsig KILL). The server is Sift's
# alone: it asks every request for the key in its record (a 0600 file in
# the runtime directory, here one of this run's own), a request without it
# gets 401, and the key is not on its command line. Needs the server that
# scripts/setup.sh installs; run by tests/window/run.sh after the suite.
#
#   bash tests/window/local-model.sh   (after run.sh has built the app)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/target/window/local-model"
rm -rf "$OUT"
mkdir -p "$OUT"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
fail() { printf 'local-model: FAILED: %s\n' "$*" >&2; exit 1; }
[ -x "$TARGET/debug/sift-app" ] || fail "build the app first (tests/window/run.sh does)"

# Settings with the local provider as the default; the real data folder
# holds the server and its model.
cat >"$OUT/config.toml" <<'TOML'
[defaults]
provider = "local"

[[providers]]
id = "local"
kind = "local"
label = "Local model"
TOML
unset SIFT_PROVIDER SIFT_BASE_URL SIFT_MODEL
export SIFT_CONFIG="$OUT/config.toml" SIFT_DB="$OUT/sift.db"
export SIFT_DATA_DIR="${SIFT_REAL_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
# The server picks a free port at each start; its record (port, pid, key)
# goes in a runtime directory of this run's own, so that no other Sift's
# server is found or disturbed.
unset SIFT_LOCAL_PORT
export XDG_RUNTIME_DIR="$OUT/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"

xvfb-run -a -s "-screen 0 1280x800x24" bash -s "$TARGET/debug/sift-app" "$OUT" <<'INNER' || fail "see $OUT/app.log"
set -euo pipefail
app="$1" out="$2"
"$app" >"$out/app.log" 2>&1 &
app_pid=$!
# The record appears once the server answers (loading the model takes a few seconds).
record=""
for _ in $(seq 240); do
  record="$(ls "$XDG_RUNTIME_DIR"/sift/local-server-*.json 2>/dev/null | head -n1 || true)"
  [ -n "$record" ] && break
  kill -0 "$app_pid" 2>/dev/null || { echo "the app exited early" >&2; exit 1; }
  sleep 0.5
done
[ -n "$record" ] || { echo "the app did not start the local model server at launch (no record)" >&2; exit 1; }
[ "$(stat -c %a "$record")" = 600 ] || { echo "the record is not 0600: $(stat -c %a "$record")" >&2; exit 1; }
[ "$(stat -c %a "$XDG_RUNTIME_DIR/sift")" = 700 ] || { echo "the record's folder is not 0700" >&2; exit 1; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$record" "$1"; }
port="$(field port)" pid="$(field pid)" key="$(field key)"
models="http://127.0.0.1:$port/v1/models"
curl -sf -H "Authorization: Bearer $key" "$models" | grep -qE '"id": ?"local"' || { echo "the server does not answer its key" >&2; exit 1; }
status="$(curl -s -o /dev/null -w '%{http_code}' "$models")"
[ "$status" = 401 ] || { echo "a request without the key got $status, not 401" >&2; exit 1; }
status="$(curl -s -o /dev/null -w '%{http_code}' -H 'Origin: http://example.com' -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port/v1/chat/completions")"
[ "$status" = 401 ] || { echo "a web page's request got $status, not 401" >&2; exit 1; }
tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--port $port" || { echo "the record's pid $pid is not the server" >&2; exit 1; }
if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$key"; then echo "the key is on the server's command line" >&2; exit 1; fi
kill -9 "$app_pid"
wait "$app_pid" 2>/dev/null || true
# Gone once the kernel sees the app end: a bound far above the need (60 s), for a loaded machine.
for _ in $(seq 240); do
  curl -sf -H "Authorization: Bearer $key" "$models" >/dev/null || exit 0
  sleep 0.25
done
echo "the local model server outlived the app" >&2
exit 1
INNER
echo "local-model: the app started the server at launch, with its key (401 without it); it ended with the app"
