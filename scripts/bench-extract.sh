#!/usr/bin/env bash
# Extraction overhead: 1,000 small documents through the scripted model
# server (answers at once, so all the time measured is overhead) at 64
# concurrent calls, by `sift extract` and by a Python peer using
# `instructor` with the `openai` SDK against the same server.
#
#   scripts/bench-extract.sh [DOCS] [CONCURRENCY] [RUNS]
#
# Prints a table for docs/BENCHMARKS.md. Installs the peer in a venv under
# ~/.cache/sift/bench-extract-venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOCS="${1:-1000}"
CONCURRENCY="${2:-64}"
RUNS="${3:-3}"
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/sift/bench-extract-venv"
WORK="$(mktemp -d)"
trap 'kill ${server_pid:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT

cargo build -q --release -p sift-cli -p sift-scripted-server --manifest-path "$ROOT/Cargo.toml"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import instructor, openai' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q instructor openai
fi

mkdir -p "$WORK/docs"
python3 - "$WORK/docs" "$DOCS" <<'PY'
import sys, pathlib
out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for i in range(1, n + 1):
    (out / f"doc-{i:04d}.txt").write_text(f"INVOICE INV-{i:04d}\nDate: 2024-03-{i % 28 + 1:02d}\nTotal due: {i}.50 EUR\n")
PY
cat >"$WORK/schema.json" <<'JSON'
{"type": "object", "properties": {"number": {"type": "string"}, "total": {"type": "number"}}, "required": ["number", "total"]}
JSON
# Sift's answer tool is submit_output; instructor's is named after its model.
cat >"$WORK/script.json" <<'JSON'
{"models": {
  "sift": [{"tool_calls": [{"name": "submit_output", "arguments": {"number": "INV-1", "total": 1.5}}], "repeat": true}],
  "peer": [{"tool_calls": [{"name": "Invoice", "arguments": {"number": "INV-1", "total": 1.5}}], "repeat": true}]
}}
JSON
"$ROOT/target/release/sift-scripted-server" --script "$WORK/script.json" >"$WORK/server.out" &
server_pid=$!
for _ in $(seq 50); do grep -q listening "$WORK/server.out" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$WORK/server.out")"

cat >"$WORK/peer.py" <<'PY'
import asyncio, json, pathlib, sys, time
import instructor
from openai import AsyncOpenAI
from pydantic import BaseModel

class Invoice(BaseModel):
    number: str
    total: float

async def main(base_url, docs, concurrency, out):
    client = instructor.from_openai(AsyncOpenAI(base_url=base_url, api_key="none", max_retries=0))
    gate = asyncio.Semaphore(concurrency)
    async def one(path):
        async with gate:
            text = path.read_text()
            try:
                invoice = await client.chat.completions.create(
                    model="peer", response_model=Invoice, max_retries=1,
                    messages=[{"role": "user", "content": f"<file name=\"{path.name}\">\n{text}</file>\n\nExtract the fields."}],
                )
                return {"file": path.name, "status": "completed", "values": invoice.model_dump()}
            except Exception as e:  # one failure must not stop the others
                return {"file": path.name, "status": "failed", "error": str(e)}
    paths = sorted(pathlib.Path(docs).glob("*.txt"))
    rows = await asyncio.gather(*(one(p) for p in paths))
    with open(out, "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    failed = sum(r["status"] != "completed" for r in rows)
    if failed:
        sys.exit(f"{failed} failed")

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
PY

now() { date +%s.%N; }
calc() { python3 -c "print($1)"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
sift_times=() peer_times=()
for run in $(seq "$RUNS"); do
  rm -f "$WORK/sift.db"*
  start=$(now)
  "$ROOT/target/release/sift" --db "$WORK/sift.db" extract --schema "$WORK/schema.json" --jobs "$CONCURRENCY" \
    --provider openai --base-url "$url/v1" --model sift --jsonl "$WORK/sift.jsonl" "$WORK"/docs/*.txt 2>/dev/null
  sift_times+=("$(calc "$(now) - $start")")
  curl -s -X DELETE "$url/_scripted/requests" >/dev/null
  start=$(now)
  "$VENV/bin/python" "$WORK/peer.py" "$url/v1" "$WORK/docs" "$CONCURRENCY" "$WORK/peer.jsonl"
  peer_times+=("$(calc "$(now) - $start")")
  curl -s -X DELETE "$url/_scripted/requests" >/dev/null
done
[ "$(wc -l <"$WORK/sift.jsonl")" -eq "$DOCS" ] || { echo "sift wrote $(wc -l <"$WORK/sift.jsonl") rows" >&2; exit 1; }
sift_s="$(printf '%s\n' "${sift_times[@]}" | median)"
peer_s="$(printf '%s\n' "${peer_times[@]}" | median)"
printf '| Tool | %s documents at %s concurrent calls (median of %s) | Per document |\n|---|---|---|\n' "$DOCS" "$CONCURRENCY" "$RUNS"
printf '| sift extract (SQLite rows + JSONL) | %.2f s | %.2f ms |\n' "$sift_s" "$(calc "$sift_s * 1000 / $DOCS")"
printf '| instructor + openai (JSONL) | %.2f s | %.2f ms |\n' "$peer_s" "$(calc "$peer_s * 1000 / $DOCS")"
printf 'sift runs: %s\npeer runs: %s\n' "${sift_times[*]}" "${peer_times[*]}"
