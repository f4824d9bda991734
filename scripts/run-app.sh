#!/usr/bin/env bash
# Sets up, builds and opens the Sift desktop app.
#
#   scripts/run-app.sh [APP ARGS...]                  open the window on this display
#   SIFT_HEADLESS=1 scripts/run-app.sh [APP ARGS...]  run it on a virtual display (xvfb-run)
#
# Idempotent: when nothing changed, setup returns at once and the build takes a
# few seconds. The first run installs everything (scripts/setup.sh --app) and
# compiles the app: expect several minutes.
#
# The window gets a debug build with the UI embedded (ui/dist), so it needs no
# dev server. For live UI reloading use `cd ui && npm run tauri dev` instead.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { printf '\033[1mrun-app:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1mrun-app: error:\033[0m %s\n' "$*" >&2; exit 1; }

# Check for a display first, so a headless machine fails before a long setup.
headless=0
if [ "${SIFT_HEADLESS:-0}" = 1 ]; then
  headless=1
elif [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  die "no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so the window has nowhere to open.
  Run this from a desktop session, or set SIFT_HEADLESS=1 to run the app on a virtual X display (xvfb-run)."
fi

"$ROOT/scripts/setup.sh" --app

if [ "$headless" = 1 ] && ! command -v xvfb-run >/dev/null; then
  die "SIFT_HEADLESS=1 needs xvfb-run: install it with scripts/setup.sh --system (or apt-get install xvfb xauth)."
fi

# `tauri build` runs the UI build (beforeBuildCommand in tauri.conf.json) and then
# cargo, which embeds ui/dist in the binary. `-p sift-app` builds only the app,
# not the other workspace members.
log "building the UI and the app"
(cd "$ROOT/ui" && npm run --silent tauri -- build --debug --no-bundle -- -p sift-app)

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$ROOT/$target_dir" ;; esac
app="$target_dir/debug/sift-app"
[ -x "$app" ] || die "the build reported success but $app is missing"

if [ "$headless" = 1 ]; then
  log "starting $app on a virtual display (SIFT_HEADLESS=1)"
  exec xvfb-run -a -s "-screen 0 1280x800x24" "$app" "$@"
fi
log "starting $app"
exec "$app" "$@"
