#!/usr/bin/env bash
# What llama.cpp's DRY sampler does for answers held to a schema, side by
# side in one run on one llama-server (as Sift starts it on this machine):
# the corpus's 16 text invoices with ground truth through
#   1. `sift extract` with the starter invoice schema (line items: where the
#      small model repeats an item until the answer's token bound), counting
#      the answers cut at max_tokens, and the seconds;
#   2. `sift eval` with a four-field invoice schema (accuracy).
# Each pass runs with DRY off and on, alternating, ROUNDS times. Sift sends
# `dry_multiplier` to llama.cpp; for "off" a loopback proxy between Sift
# and the server drops it from each request, so both use the same build.
#
#   scripts/bench-dry-sampler.sh [ROUNDS]   # needs: cargo build --release -p sift-cli
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-1}
CORPUS=${CORPUS:-../shared/corpus}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
DATA=${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}
MODEL=$DATA/models/SmolLM2-135M-Instruct.Q4_1.gguf
LLAMA_SERVER=$DATA/llama.cpp/bin/llama-server
CORES=$(nproc)
SLOTS=$((CORES < 4 ? CORES : 4))
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
[ -x "$LLAMA_SERVER" ] && [ -f "$MODEL" ] || { echo "run scripts/setup.sh first" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'kill ${server_pid:-} ${proxy_pid:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT
source scripts/bench-corpus.sh
write_four_field_schema "$WORK/four.json"
cat >"$WORK/proxy.py" <<'PY'
# Forwards to the server; with DROP=1, removes dry_multiplier from chat requests.
import http.server, json, os, sys, urllib.error, urllib.request
upstream, drop = sys.argv[2], os.environ.get("DROP") == "1"
class Forward(http.server.BaseHTTPRequestHandler):
    def relay(self, body=None):
        if body is not None and drop and self.path.endswith("/chat/completions"):
            request = json.loads(body); request.pop("dry_multiplier", None); body = json.dumps(request).encode()
        forwarded = urllib.request.Request(upstream + self.path, data=body, method=self.command,
                                           headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(forwarded, timeout=3600) as r: code, data = r.status, r.read()
        except urllib.error.HTTPError as e: code, data = e.code, e.read()
        self.send_response(code); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self): self.relay()
    def do_POST(self): self.relay(self.rfile.read(int(self.headers.get("Content-Length", 0))))
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Forward).serve_forever()
PY

server_port=$(free_port)
start_llama_server "$server_port" "$WORK/llama-server.log"
until curl -sf "http://127.0.0.1:$server_port/v1/models" >/dev/null; do sleep 0.5; done

printf '| Round | DRY | Starter schema: cut at max_tokens | Seconds | Tokens out | Four fields: accuracy |\n|---|---|---|---|---|---|\n'
for round in $(seq "$ROUNDS"); do
  for dry in off on; do
    port=$(free_port)
    DROP=$([ $dry = off ] && echo 1 || echo 0) python3 "$WORK/proxy.py" "$port" "http://127.0.0.1:$server_port" &
    proxy_pid=$!
    until curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null; do sleep 0.2; done
    start=$(date +%s)
    "$SIFT" --db "$WORK/$dry$round-x.db" extract --provider local --base-url "http://127.0.0.1:$port/v1" --jobs 4 \
      --schema crates/core/starter-schemas/invoice.json "${FILES[@]}" >"$WORK/x.out" 2>&1 || true
    seconds=$(($(date +%s) - start))
    cut=$(grep -c 'max_tokens limit' "$WORK/x.out" || true)
    out=$(sed -n 's/.*tokens [0-9]* in, \([0-9]*\) out.*/\1/p' "$WORK/x.out")
    "$SIFT" --db "$WORK/$dry$round-e.db" eval --provider local --base-url "http://127.0.0.1:$port/v1" --jobs 4 \
      --schema "$WORK/four.json" --truth "$CORPUS/MANIFEST.tsv" "${FILES[@]}" >"$WORK/e.out" 2>/dev/null || true
    accuracy=$(awk '$1=="overall" {print $2, $3}' "$WORK/e.out")
    printf '| %s | %s | %s/%s | %s | %s | %s |\n' "$round" "$dry" "$cut" "${#FILES[@]}" "$seconds" "$out" "$accuracy"
    kill $proxy_pid; wait $proxy_pid 2>/dev/null || true
  done
done
