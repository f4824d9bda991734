#!/usr/bin/env bash
# The memory each local model needs as Sift serves it: llama-server started
# with the arguments Sift gives it on this machine (slots and threads from
# the cores, 8,192 tokens of context a slot: crates/llm/src/local_server),
# one chat request with a corpus invoice's text, then the server's peak
# resident memory (VmHWM). The catalogue's `memory_bytes`
# (crates/core/src/models/catalogue.toml) come from this.
#
#   scripts/bench-model-memory.sh [MODEL_FILE...]   # files in the data directory's models/
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}
SERVER=${SIFT_LLAMA_SERVER:-$DATA/llama.cpp/bin/llama-server}
CORPUS=${CORPUS:-../shared/corpus}
[ $# -gt 0 ] || set -- SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-0.5b-instruct-q4_k_m.gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
cores=$(nproc)
slots=$(( cores < 4 ? cores : 4 ))
WORK=$(mktemp -d)
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$WORK"' EXIT
# The request: an invoice's text and the ask, as a extraction sends them.
python3 - "$CORPUS/i2d_Orlen.txt" >"$WORK/request.json" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
print(json.dumps({"model": "local", "max_tokens": 64, "messages": [
    {"role": "system", "content": "Extract the invoice's number, date and total as JSON."},
    {"role": "user", "content": text}]}))
PY
key=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
printf '%-45s %10s\n' model "peak MiB"
for model in "$@"; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  LLAMA_API_KEY=$key "$SERVER" --model "$DATA/models/$model" --host 127.0.0.1 --port "$port" --alias local \
    --ctx-size $(( slots * 8192 )) --parallel "$slots" --threads "$cores" --threads-batch "$cores" \
    --jinja --cont-batching >"$WORK/server.log" 2>&1 &
  pid=$!
  # Loading takes seconds; a bound far above the need.
  for _ in $(seq 600); do
    curl -sf -H "Authorization: Bearer $key" "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.5
  done
  curl -sf -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
    --data-binary @"$WORK/request.json" "http://127.0.0.1:$port/v1/chat/completions" >/dev/null
  peak_kib=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  printf '%-45s %10d\n' "$model" $(( peak_kib / 1024 ))
done
