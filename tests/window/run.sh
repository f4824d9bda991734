#!/usr/bin/env bash
# The real Sift window, driven over WebDriver (tauri-driver in front of
# Debian's WebKitWebDriver) under Xvfb, against the scripted model server,
# with a private database, configuration and data folder:
#
#   bash tests/window/run.sh          (scripts/test.sh runs it)
#
# It builds the app with the UI embedded, scripts the model server, starts
# tauri-driver, and runs tests/window/*.test.mjs (webdriverio). A WebDriver
# cannot drive the native open and save dialogs, so the app is built with
# its `test-hooks` feature (never in a release) and these stand in for them: SIFT_TEST_OPEN_PATHS (the files "picked") and
# SIFT_TEST_SAVE_PATH (where "Export CSV…" saves) and SIFT_TEST_FOLDER_PATH
# (the folder Workflows opens).
#
# Then tests/window/local-model.sh: the app with the real local model
# server (SIFT_SKIP_LOCAL_MODEL=1 skips it).
#
# SIFT_WINDOW_TESTS="chat.test.mjs ..." runs only those files.
# SIFT_UPDATE_SCREENSHOTS=1 also copies the screenshots the suite takes to
# docs/screenshots/. Everything else it leaves is in target/window/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/target/window"
rm -rf "$OUT"
mkdir -p "$OUT/data" "$OUT/shots"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
fail() { printf 'window suite: FAILED: %s\n' "$*" >&2; exit 1; }

command -v tauri-driver >/dev/null || fail "tauri-driver is missing: scripts/setup.sh installs it"
command -v WebKitWebDriver >/dev/null || fail "WebKitWebDriver is missing (apt webkit2gtk-driver): scripts/setup.sh installs it"
command -v sqlite3 >/dev/null || fail "sqlite3 is missing (evidence.test.mjs reads the app's database): scripts/setup.sh installs it"
[ -d "$ROOT/tests/window/node_modules/webdriverio" ] || (cd "$ROOT/tests/window" && npm ci --no-audit --no-fund --loglevel=error)

CORPUS="$(cd "$ROOT/../shared/corpus" 2>/dev/null && pwd)" || fail "the corpus is not at ../shared/corpus"

# The binary cargo leaves behind loads the dev server; `tauri build`
# relinks it with ui/dist embedded.
# SIFT_WINDOW_NO_BUILD=1 uses the app binary as it is (when iterating on
# the tests).
if [ "${SIFT_WINDOW_NO_BUILD:-0}" != 1 ]; then
  (cd "$ROOT/ui" && npm run --silent tauri -- build --debug --no-bundle -- -p sift-app --features test-hooks >"$OUT/build.log" 2>&1) \
    || { tail -30 "$OUT/build.log" >&2; fail "the app did not build"; }
fi
cargo build -q -p sift-scripted-server -p sift-cli

"$TARGET/debug/sift-scripted-server" >"$OUT/server.out" 2>&1 &
server_pid=$!
cleanup() { kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT
# Waits are for a condition, bounded far above the need (60 s) for a loaded machine.
for _ in $(seq 600); do grep -q listening "$OUT/server.out" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$OUT/server.out")"
[ -n "$url" ] || fail "the scripted server did not start: $(cat "$OUT/server.out")"

# The app's settings: one provider, the scripted server, as the default.
cat >"$OUT/config.toml" <<TOML
[defaults]
provider = "scripted"
model = "scripted-model"

[[providers]]
id = "scripted"
kind = "openai"
label = "Scripted server"
base_url = "$url/v1"
api_key_env = "SIFT_WINDOW_TESTS_NO_KEY"
TOML

# The schema the run uses, in the library before the app starts (the
# Schemas screen's own tests are in the browser suite).
cat >"$OUT/invoice.json" <<'JSON'
{
  "type": "object",
  "properties": {
    "invoice_number": {"type": "string", "description": "As printed"},
    "date": {"type": "string", "description": "ISO 8601"},
    "total": {"type": "number"},
    "currency": {"type": "string"}
  },
  "required": ["invoice_number", "date", "total", "currency"]
}
JSON
"$TARGET/debug/sift" --db "$OUT/sift.db" schema import "$OUT/invoice.json" >/dev/null

# PDFium is read from the real data folder; everything else is private.
real_data="${SIFT_REAL_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
export SIFT_PDFIUM="${SIFT_PDFIUM:-$real_data/lib}" SIFT_REAL_DATA_DIR="$real_data"
# The web view's own storage (the theme chosen, ...) stays private too.
export XDG_DATA_HOME="$OUT/xdg/data" XDG_CONFIG_HOME="$OUT/xdg/config" XDG_CACHE_HOME="$OUT/xdg/cache"
export SIFT_CONFIG="$OUT/config.toml" SIFT_DB="$OUT/sift.db" SIFT_DATA_DIR="$OUT/data"
export SIFT_TEST_OPEN_PATHS="$CORPUS/i2d_AmazonWebServices.pdf"
export SIFT_TEST_SAVE_PATH="$OUT/export.csv"
# The folder "picked" for Workflows (workflows.test.mjs writes its file there).
export SIFT_TEST_FOLDER_PATH="$OUT/flows"
export SIFT_APP="$TARGET/debug/sift-app" SIFT_SERVER_URL="$url" SIFT_WINDOW_OUT="$OUT"
# No model server of a developer's environment may leak in.
unset SIFT_PROVIDER SIFT_BASE_URL SIFT_MODEL

xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  tauri-driver --port 4444 --native-port 4445 >"$SIFT_WINDOW_OUT/tauri-driver.log" 2>&1 &
  driver=$!
  trap "kill $driver 2>/dev/null || true" EXIT
  for _ in $(seq 600); do
    curl -sf http://127.0.0.1:4444/status >/dev/null && break
    sleep 0.1
  done
  cd "$1/tests/window" && node --test --test-concurrency=1 ${SIFT_WINDOW_TESTS:-./*.test.mjs}
' window "$ROOT" || {
  # The app's own stderr is in the driver's log: a CI log shows only this.
  printf 'the last lines of tauri-driver.log (the driver and the app):\n' >&2
  tail -40 "$OUT/tauri-driver.log" >&2
  fail "see $OUT (tauri-driver.log, shots/)"
}

if [ "${SIFT_UPDATE_SCREENSHOTS:-0}" = 1 ]; then
  for shot in "$OUT"/shots/*.png; do
    convert "$shot" -crop 1200x800+0+0 +repage "$ROOT/docs/screenshots/$(basename "$shot")"
  done
fi
echo "window suite: passed"

# The real local model server with the app (skip: SIFT_SKIP_LOCAL_MODEL=1).
if [ "${SIFT_SKIP_LOCAL_MODEL:-0}" != 1 ]; then
  bash "$ROOT/tests/window/local-model.sh"
fi
