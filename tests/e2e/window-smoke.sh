#!/usr/bin/env bash
# The real desktop window under Xvfb, end to end: build the app with the UI
# embedded, start it against our scripted model server, type a prompt into
# the window with xdotool and send it, then check the exact request that
# reached the server and that the window is not blank.
#
#   bash tests/e2e/window-smoke.sh      (scripts/test.sh runs it)
#
# SIFT_UPDATE_SCREENSHOT=1 also copies the screenshot to docs/screenshots/app.png.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/target/e2e"
mkdir -p "$OUT"
fail() { printf 'window-smoke: FAILED: %s\n' "$*" >&2; exit 1; }

# The binary cargo test leaves behind loads the dev server; `tauri build`
# relinks it with ui/dist embedded (seconds when nothing changed).
(cd "$ROOT/ui" && npm run --silent tauri -- build --debug --no-bundle -- -p sift-app >"$OUT/build.log" 2>&1) \
  || { tail -30 "$OUT/build.log" >&2; fail "the app did not build"; }
cargo build -q -p sift-scripted-server

cat >"$OUT/script.json" <<'JSON'
{"models": {"scripted-model": [{"text": "Hello from the scripted server.", "repeat": true}]}}
JSON
"$ROOT/target/debug/sift-scripted-server" --script "$OUT/script.json" >"$OUT/server.out" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q listening "$OUT/server.out" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$OUT/server.out")"
[ -n "$url" ] || fail "the scripted server did not start: $(cat "$OUT/server.out")"

export SIFT_PROVIDER=openai SIFT_BASE_URL="$url/v1" SIFT_MODEL=scripted-model SIFT_DATA_DIR="$OUT/data"
PROMPT="ping from the window"

xvfb-run -a -s "-screen 0 1280x800x24" bash -s "$ROOT/target/debug/sift-app" "$OUT" "$PROMPT" <<'INNER' || fail "see $OUT/app.log"
set -euo pipefail
app="$1" out="$2" prompt="$3"
"$app" >"$out/app.log" 2>&1 &
app_pid=$!
trap 'kill $app_pid 2>/dev/null || true' EXIT
window=""
for _ in $(seq 120); do
  window="$(xdotool search --name '^Sift$' 2>/dev/null | head -n1 || true)"
  [ -n "$window" ] && break
  kill -0 "$app_pid" 2>/dev/null || { echo "the app exited early" >&2; exit 1; }
  sleep 0.5
done
[ -n "$window" ] || { echo "no window titled Sift within 60 s" >&2; exit 1; }
sleep 3 # the page loads and focuses the prompt
xdotool windowfocus --sync "$window" || true
xdotool type --delay 20 "$prompt"
xdotool key ctrl+Return
sleep 3
import -window root "$out/window.png"
INNER

requests="$(curl -s "$url/_scripted/requests")"
expected='[{"content":"ping from the window","role":"user"}]'
actual="$(printf '%s' "$requests" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps([m for q in r for m in q["body"]["messages"]], sort_keys=True, separators=(",",":")))')"
[ "$actual" = "$expected" ] || fail "expected the server to receive $expected, got $actual (app log: $OUT/app.log)"
streamed="$(printf '%s' "$requests" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["body"].get("stream"))')"
[ "$streamed" = "True" ] || fail "the window's request was not streamed"

# A blank or crashed page is one flat colour.
spread="$(convert "$OUT/window.png" -colorspace gray -format '%[fx:standard_deviation]' info:)"
python3 -c "import sys; sys.exit(0 if float('$spread') > 0.02 else 1)" || fail "the window looks blank (deviation $spread)"

if [ "${SIFT_UPDATE_SCREENSHOT:-0}" = 1 ]; then
  convert "$OUT/window.png" -crop 1200x800+0+0 +repage "$ROOT/docs/screenshots/app.png"
fi
passed=1

# 2. The default provider: the app starts the real local model server on
# demand, and the server does not outlive the app, even when the app is
# killed rather than closed (the server's stdin watchdog).
unset SIFT_PROVIDER SIFT_BASE_URL SIFT_MODEL
export SIFT_DATA_DIR="${SIFT_REAL_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
SIFT_LOCAL_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export SIFT_LOCAL_PORT
xvfb-run -a -s "-screen 0 1280x800x24" bash -s "$ROOT/target/debug/sift-app" "$OUT" <<'INNER' || fail "local model case; see $OUT/app-local.log"
set -euo pipefail
app="$1" out="$2"
"$app" >"$out/app-local.log" 2>&1 &
app_pid=$!
window=""
for _ in $(seq 120); do
  window="$(xdotool search --name '^Sift$' 2>/dev/null | head -n1 || true)"
  [ -n "$window" ] && break
  sleep 0.5
done
[ -n "$window" ] || { echo "no window" >&2; exit 1; }
sleep 3
xdotool windowfocus --sync "$window" || true
xdotool type --delay 20 "Say hello."
xdotool key ctrl+Return
# The server answers /v1/models once it is up.
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$SIFT_LOCAL_PORT/v1/models" >/dev/null && break
  sleep 0.5
done
curl -sf "http://127.0.0.1:$SIFT_LOCAL_PORT/v1/models" >/dev/null || { echo "the app did not start the local model server" >&2; exit 1; }
sleep 4 # let the reply stream in
import -window root "$out/window-local.png"
kill -9 "$app_pid"
for _ in $(seq 40); do
  curl -sf "http://127.0.0.1:$SIFT_LOCAL_PORT/v1/models" >/dev/null || exit 0
  sleep 0.25
done
echo "the local model server outlived the app" >&2
exit 1
INNER
passed=$((passed + 1))
echo "window-smoke: $passed passed, 0 failed"
