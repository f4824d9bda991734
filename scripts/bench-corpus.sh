# Shared by the benchmarks that run the local model over the corpus
# (bench-local-server.sh, bench-dry-sampler.sh); sourced, not run.
# Needs CORPUS, WORK, LLAMA_SERVER, MODEL, SLOTS and CORES set.

# A free loopback port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# FILES: the corpus's text invoices (text PDFs and .txt) with a ground-truth number.
mapfile -t FILES < <(awk -F'\t' 'NR>1 && ($5=="text-pdf"||$5=="txt") && $6!="" {print "'"$CORPUS"'/"$1}' "$CORPUS/MANIFEST.tsv")

# The four-field invoice schema of MANIFEST.tsv's ground-truth columns, at $1.
write_four_field_schema() {
  cat >"$1" <<'JSON'
{"type": "object", "properties": {
  "invoice_number": {"type": "string", "description": "The invoice's number"},
  "date": {"type": "string", "description": "The invoice's date"},
  "total": {"type": "number", "description": "The total amount due"},
  "currency": {"type": "string", "description": "The currency of the total, as an ISO 4217 code"}
}, "required": ["invoice_number", "date", "total", "currency"]}
JSON
}

# llama-server as Sift starts it on this machine (see
# crates/llm/src/local_server/mod.rs), on port $1, logging to $2; sets server_pid.
start_llama_server() {
  "$LLAMA_SERVER" --model "$MODEL" --host 127.0.0.1 --port "$1" --alias smollm2 \
    --ctx-size $((SLOTS * 8192)) --parallel "$SLOTS" --threads "$CORES" --threads-batch "$CORES" \
    --jinja --cont-batching >"$2" 2>&1 &
  server_pid=$!
}
