#!/usr/bin/env bash
# The app and the real local model server: with the local provider as the
# default, the app starts the server at launch (no action needed), and the
# server does not outlive the app, even when the app is killed rather than
# closed (it runs under setpriv --pdeathsig KILL). Needs the server that
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
SIFT_LOCAL_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export SIFT_LOCAL_PORT

xvfb-run -a -s "-screen 0 1280x800x24" bash -s "$TARGET/debug/sift-app" "$OUT" <<'INNER' || fail "see $OUT/app.log"
set -euo pipefail
app="$1" out="$2"
models="http://127.0.0.1:$SIFT_LOCAL_PORT/v1/models"
"$app" >"$out/app.log" 2>&1 &
app_pid=$!
# The server answers /v1/models once it is up (loading the model takes a few seconds).
for _ in $(seq 240); do
  curl -sf "$models" >/dev/null && break
  kill -0 "$app_pid" 2>/dev/null || { echo "the app exited early" >&2; exit 1; }
  sleep 0.5
done
curl -sf "$models" | grep -q smollm2 || { echo "the app did not start the local model server at launch" >&2; exit 1; }
kill -9 "$app_pid"
wait "$app_pid" 2>/dev/null || true
# Gone once the kernel sees the app end: a bound far above the need (60 s), for a loaded machine.
for _ in $(seq 240); do
  curl -sf "$models" >/dev/null || exit 0
  sleep 0.25
done
echo "the local model server outlived the app" >&2
exit 1
INNER
echo "local-model: the app started the server at launch; it ended with the app"
