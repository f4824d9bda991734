#!/usr/bin/env bash
# The CLI's peak resident memory over a large extraction job: small text
# documents through the scripted model server (it answers at once), at 64
# calls at once, for 1,000 and for 10,000 documents in one run. Flat memory
# means the peak does not grow with the job.
#
#   scripts/bench-memory.sh [SIZES...]     # default: 1000 10000
#
# Prints one line per size: documents, seconds, peak RSS in MB.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
SIZES=("${@:-1000 10000}")
read -r -a SIZES <<<"${SIZES[*]}"
cargo build -q --release -p sift-cli -p sift-scripted-server --manifest-path "$ROOT/Cargo.toml"
WORK="$(mktemp -d)"
trap 'kill ${server_pid:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT
cat >"$WORK/script.json" <<'JSON'
{"models": {"m": [{"tool_calls": [{"name": "submit_output", "arguments": {"number": "INV-1", "total": 1.5}}], "repeat": true}]}}
JSON
echo '{"type":"object","properties":{"number":{"type":"string"},"total":{"type":"number"}},"required":["number","total"]}' >"$WORK/schema.json"
"$TARGET/release/sift-scripted-server" --script "$WORK/script.json" >"$WORK/server.out" &
server_pid=$!
for _ in $(seq 100); do grep -q listening "$WORK/server.out" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$WORK/server.out")"
printf '| Documents | Seconds | Peak RSS (MB) |\n|---|---|---|\n'
for n in "${SIZES[@]}"; do
  rm -rf "$WORK/docs" "$WORK"/sift.db*
  mkdir -p "$WORK/docs"
  python3 - "$WORK/docs" "$n" <<'PY'
import sys, pathlib
out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for i in range(1, n + 1):
    (out / f"doc-{i:05d}.txt").write_text(f"INVOICE INV-{i:05d}\nDate: 2024-03-{i % 28 + 1:02d}\nTotal due: {i}.50 EUR\n")
PY
  start=$(date +%s.%N)
  env -u SIFT_PROVIDER -u SIFT_BASE_URL -u SIFT_MODEL OPENAI_API_KEY=test SIFT_CONFIG="$WORK/none.toml" \
    /usr/bin/time -f '%M' -o "$WORK/rss" "$TARGET/release/sift" --db "$WORK/sift.db" extract \
    --provider openai --base-url "$url/v1" --model m --jobs 64 --schema "$WORK/schema.json" \
    "$WORK"/docs/*.txt >/dev/null 2>"$WORK/err" || { tail -n 3 "$WORK/err"; exit 1; }
  seconds=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")
  printf '| %s | %s | %s |\n' "$n" "$seconds" "$(python3 -c "print(round($(cat "$WORK/rss") / 1024, 1))")"
done
