#!/usr/bin/env bash
# The bad-input suite: hostile files (tests/badinputs/generate.py writes
# them into a temporary folder) read by `sift read` and by `sift extract
# --answers located` (GGUF headers by `sift models add`), each run under a
# cap on its address space and a time limit of minutes, its wall time and
# peak resident memory measured by GNU time.
#
#   bash tests/badinputs/run.sh [NAME...]    # NAME: run only these cases
#
# A run passes when it exits 0 with output, or exits non-zero with one
# clear refusal naming the file (`sift read`: exactly one line on stderr;
# `sift extract`: exactly one `[1/1] failed FILE: ...` line and `done 0,
# failed 1`), with nothing of a panic or an abort on stderr, in under the
# time limit and under the memory limit. A signal (an abort, a segfault,
# the kernel's OOM kill), a hang or a peak over the limit fails it. Times
# over 10 s are the goal's misses: reported, never failed (a test does not
# depend on the machine's speed).
#
# Environment: BADINPUTS_MB (peak resident memory allowed, default 500),
# BADINPUTS_AS_MB (the address-space cap, default 4000: it counts what
# threads and libraries reserve, not what they use, so it is the backstop
# against a runaway allocation while the peak is what is judged; above the
# 2 GiB a reader process sets itself, which it could not raise past it),
# BADINPUTS_LIMIT_S (per run, default 300), BADINPUTS_TABLE (also write
# the table there as Markdown, for docs/BENCHMARKS.md), BADINPUTS_SIFT (a
# sift binary to run instead of building target/debug/sift).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
MEMORY_MB="${BADINPUTS_MB:-500}"
AS_MB="${BADINPUTS_AS_MB:-4000}"
LIMIT_S="${BADINPUTS_LIMIT_S:-300}"
GOAL_S=10

# Runs ("NAME COMMAND") that fail for a known reason not fixed yet, with
# the reason printed each time they fail and counted apart; a listed run
# that passes says so, to be taken off the list.
declare -A KNOWN=(
  ["truncated.jpg read"]="OCR of a 2048x1536 page peaks over 600 MB, whole or truncated: PaddleOCR's detection runs at the page's size (up to 8,000 px), unbounded by memory"
  ["truncated.jpg extract"]="OCR of a 2048x1536 page peaks over 600 MB, whole or truncated: PaddleOCR's detection runs at the page's size (up to 8,000 px), unbounded by memory"
  ["pixel-limit.png read"]="OCR of a 100-megapixel image peaks over 1 GB and takes minutes (detection scaled to 8,000 px)"
  ["pixel-limit.png extract"]="OCR of a 100-megapixel image peaks over 1 GB and takes minutes (detection scaled to 8,000 px)"
  ["attachment-bomb.pdf extract"]="PDFium inflates the attachment whole (1 GiB) to learn its length before the 16 MB bound is checked: in the reader process, which passes it over and reads the page, but the peak is over 1 GB"
  ["content-bomb.pdf read"]="PDFium inflates a page's content stream whole (1 GiB): the reader process stops at its 2 GiB limit and the file is refused, but the peak is over 1 GB"
  ["content-bomb.pdf extract"]="PDFium inflates a page's content stream whole (1 GiB): the reader process stops at its 2 GiB limit and the file is refused, but the peak is over 1 GB"
)

command -v prlimit >/dev/null || { echo "badinputs: prlimit (util-linux) is missing" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "badinputs: GNU time is missing: run scripts/setup.sh" >&2; exit 1; }

if [ -n "${BADINPUTS_SIFT:-}" ]; then
  SIFT="$BADINPUTS_SIFT"
else
  cargo build -q --locked -p sift-cli --manifest-path "$ROOT/Cargo.toml"
  SIFT="$TARGET/debug/sift"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FILES="$WORK/files"
python3 "$ROOT/tests/badinputs/generate.py" "$FILES"

# A data folder of its own (an empty OCR cache, no database or models of
# yours), with the set-up's PDFium and PaddleOCR models linked in.
REAL_DATA="${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
mkdir -p "$WORK/data"
for part in lib paddle; do
  if [ -e "$REAL_DATA/$part" ]; then ln -s "$REAL_DATA/$part" "$WORK/data/$part"; fi
done
# Without PDFium every PDF would be refused for that, and pass unread.
if [ -z "${SIFT_PDFIUM:-}" ] && [ ! -e "$WORK/data/lib/libpdfium.so" ] && [ ! -e "$(dirname "$SIFT")/libpdfium.so" ]; then
  echo "badinputs: PDFium is not installed (run scripts/setup.sh, or set SIFT_PDFIUM)" >&2
  exit 1
fi
cat >"$WORK/schema.json" <<'JSON'
{"type": "object", "properties": {"invoice_number": {"type": "string"}, "invoice_date": {"type": "string"}, "total": {"type": "number"}, "seller_name": {"type": "string"}}}
JSON

# One run of sift under the caps: its stdout, stderr, exit status, seconds
# and peak resident KiB in $WORK/run.*.
run_capped() {
  local status=0
  # Each run reads afresh: an OCR cache filled by the run before would hide
  # what reading costs.
  rm -rf "$WORK/data/ocr-cache"
  env -u SIFT_PROVIDER -u SIFT_BASE_URL -u SIFT_MODEL -u SIFT_DB -u SIFT_LOCAL_MODEL \
    SIFT_CONFIG="$WORK/none.toml" SIFT_DATA_DIR="$WORK/data" RUST_BACKTRACE=0 \
    /usr/bin/time -f '%e %M' -o "$WORK/run.time" \
    timeout --kill-after=10 "$LIMIT_S" \
    prlimit --as=$((AS_MB * 1000 * 1000)) -- \
    "$SIFT" "$@" </dev/null >"$WORK/run.out" 2>"$WORK/run.err" || status=$?
  echo "$status" >"$WORK/run.status"
}

# The outcome of the last run as one word, or `FAIL: why`.
judge() {
  local how="$1" target="$2" status lines peak_kb
  status="$(cat "$WORK/run.status")"
  peak_kb="$(tail -n 1 "$WORK/run.time" | cut -d' ' -f2)"
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "FAIL: no answer in ${LIMIT_S} s"; return
  fi
  if [ "$status" -ge 128 ]; then
    echo "FAIL: killed by signal $((status - 128)): $(tail -n 1 "$WORK/run.err")"; return
  fi
  if grep -qE 'panicked|RUST_BACKTRACE|Aborted|terminate called|memory allocation of' "$WORK/run.err"; then
    echo "FAIL: $(grep -m1 -E 'panicked|RUST_BACKTRACE|Aborted|terminate called|memory allocation of' "$WORK/run.err")"; return
  fi
  if [ "$peak_kb" -gt $((MEMORY_MB * 1000 * 1000 / 1024)) ]; then
    echo "FAIL: peak $((peak_kb * 1024 / 1000000)) MB, over ${MEMORY_MB} MB"; return
  fi
  # The refusal names the file: its path, or for a pattern its folder.
  local named="$target"
  case "$target" in *'*'*) named="${target%%\**}" ;; esac
  case "$how:$status" in
    read:0 | models:0)
      [ -s "$WORK/run.out" ] && echo "read" || echo "FAIL: exit 0 with nothing on stdout" ;;
    extract:0) echo "extracted" ;;
    read:1 | models:1 | models:2)
      lines="$(wc -l <"$WORK/run.err")"
      if [ "$lines" -eq 1 ] && grep -qF "$named" "$WORK/run.err"; then
        echo "refused"
      else
        echo "FAIL: exit $status with $lines lines on stderr: $(head -c 300 "$WORK/run.err")"
      fi ;;
    extract:1)
      if [ "$(grep -c '^\[1/1\] failed ' "$WORK/run.err")" -eq 1 ] &&
        grep '^\[1/1\] failed ' "$WORK/run.err" | grep -qF "$named" &&
        grep -q '^done 0, failed 1,' "$WORK/run.err"; then
        echo "refused"
      else
        echo "FAIL: exit 1 without one refusal naming the file: $(head -c 300 "$WORK/run.err")"
      fi ;;
    *) echo "FAIL: exit $status: $(head -c 300 "$WORK/run.err")" ;;
  esac
}

failures=0
known=0
slow=0
row() { printf '%-22s %-8s %-10s %8s %8s  %s\n' "$@"; }
row "file" "command" "outcome" "seconds" "peak MB" "message"
if [ -n "${BADINPUTS_TABLE:-}" ]; then
  printf '| File | What it is | Command | Outcome | Seconds | Peak MB |\n|---|---|---|---|---:|---:|\n' >"$BADINPUTS_TABLE"
fi
while IFS=$'\t' read -r name how target what; do
  if [ "$#" -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  case "$how" in
    doc) commands=(read extract) ;;
    gguf) commands=(models) ;;
    *) echo "badinputs: unknown kind $how in cases.tsv" >&2; exit 1 ;;
  esac
  for command in "${commands[@]}"; do
    case "$command" in
      read) run_capped read "$target" ;;
      extract) run_capped --db "$WORK/sift.db" extract --answers located --schema "$WORK/schema.json" "$target" ;;
      models) run_capped --db "$WORK/sift.db" models add "$target" ;;
    esac
    outcome="$(judge "$command" "$target")"
    read -r seconds peak_kb < <(tail -n 1 "$WORK/run.time")
    peak_mb=$((peak_kb * 1024 / 1000000))
    message="$({ grep -v -E '^(job |done |[0-9]+ values? not found|error: 1 of 1 documents)' "$WORK/run.err" || true; } |
      head -n 1 | sed "s|$FILES/||g" | cut -c1-150)"
    short="${outcome%%:*}"
    reason="${KNOWN["$name $command"]:-}"
    if [ "$short" = FAIL ]; then
      if [ -n "$reason" ]; then
        short="known"
        known=$((known + 1))
        message="KNOWN FAILURE ($reason): ${outcome#FAIL: }"
      else
        failures=$((failures + 1))
        message="${outcome#FAIL: }"
      fi
    elif [ -n "$reason" ]; then
      message="listed as a known failure but passed: take it off the list. $message"
    fi
    if awk -v s="$seconds" -v g="$GOAL_S" 'BEGIN { exit !(s > g) }'; then
      slow=$((slow + 1))
    fi
    row "$name" "$command" "$short" "$seconds" "$peak_mb" "$message"
    if [ -n "${BADINPUTS_TABLE:-}" ]; then
      # shellcheck disable=SC2016 # the backquotes are Markdown's, not a command
      printf '| `%s` | %s | %s | %s | %s | %s |\n' "$name" "$what" "$command" "$short" "$seconds" "$peak_mb" >>"$BADINPUTS_TABLE"
    fi
  done
done <"$FILES/cases.tsv"

printf '\nbadinputs: %d failed, %d known failures, %d runs over the %d s goal (peak allowed %d MB, address space %d MB, %d s a run)\n' \
  "$failures" "$known" "$slow" "$GOAL_S" "$MEMORY_MB" "$AS_MB" "$LIMIT_S" >&2
[ "$failures" -eq 0 ]
