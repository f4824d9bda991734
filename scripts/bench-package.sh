#!/usr/bin/env bash
# The installed package's footprint (docs/BENCHMARKS.md, "Package"):
#   - the .deb's size and its Installed-Size;
#   - the time from launching /usr/bin/sift-app to its first painted window
#     (RUNS launches, median), under Xvfb;
#   - the app's memory when idle with the local model server stopped: the
#     resident and proportional set sizes (RSS, PSS) of sift-app and its
#     WebKit processes, 10 s after the window painted.
#
#   bash scripts/bench-package.sh [DEB]     (root; installs DEB when given)
#
# A benchmark, not a test: run it on a quiet machine.
set -euo pipefail
RUNS="${RUNS:-5}"
fail() { printf 'bench-package: %s\n' "$*" >&2; exit 1; }
if [ -n "${1:-}" ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "$(realpath "$1")" >/dev/null
  ls -l "$1" | awk '{printf "package file: %.1f MB (%d bytes)\n", $5/1e6, $5}'
fi
[ -x /usr/bin/sift-app ] || fail "install the package first (scripts/package.sh, then apt-get install)"
echo "installed size: $(dpkg-query -W -f='${Installed-Size}' sift) KiB"
echo "of which: $(du -sh /usr/lib/sift | cut -f1) in /usr/lib/sift (PDFium, llama-server, the model), app $(du -h /usr/bin/sift-app | cut -f1), CLI $(du -h /usr/bin/sift | cut -f1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A profile whose default provider is not the local one, so that the model
# server does not start: the app's own footprint.
mkdir -p "$WORK/home"
cat >"$WORK/config.toml" <<'TOML'
[defaults]
provider = "remote"

[[providers]]
id = "remote"
kind = "openai"
label = "Remote"
base_url = "http://127.0.0.1:9/v1"
TOML

xvfb-run -a -s "-screen 0 1280x800x24" bash -s "$RUNS" "$WORK" <<'INNER'
set -euo pipefail
runs="$1" work="$2"
export HOME="$work/home" SIFT_CONFIG="$work/config.toml"
unset XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME SIFT_DB SIFT_DATA_DIR
times=()
for run in $(seq "$runs"); do
  start=$(date +%s%N)
  /usr/bin/sift-app >"$work/app.log" 2>&1 &
  pid=$!
  # Painted: the window is mapped and its picture holds more than the
  # background colour (the sidebar and the Extract heading).
  while :; do
    win="$(xdotool search --onlyvisible --name '^Sift$' 2>/dev/null | head -n1 || true)"
    if [ -n "$win" ] && [ "$(import -window "$win" -format '%k' info: 2>/dev/null || echo 0)" -gt 20 ]; then break; fi
    kill -0 "$pid" 2>/dev/null || { echo "the app exited: $(tail -5 "$work/app.log")" >&2; exit 1; }
    sleep 0.02
  done
  times+=($(( ($(date +%s%N) - start) / 1000000 )))
  if [ "$run" = "$runs" ]; then
    sleep 10
    pids="$pid $(pgrep -P "$pid" | tr '\n' ' ')"
    rss=0 pss=0
    for p in $pids; do
      rss=$((rss + $(awk '/^Rss:/{print $2}' "/proc/$p/smaps_rollup")))
      pss=$((pss + $(awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup")))
      echo "  $(cat "/proc/$p/comm"): RSS $(awk '/^Rss:/{print $2}' "/proc/$p/smaps_rollup") KiB"
    done
    echo "idle memory (local server stopped), $(wc -w <<<"$pids") processes: RSS $((rss / 1024)) MiB, PSS $((pss / 1024)) MiB"
    pgrep -f llama-server >/dev/null && echo "warning: a llama-server is running" >&2
  fi
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "launch to first painted window: median ${sorted[$((runs / 2))]} ms over $runs launches (all: ${times[*]} ms)"
INNER
