#!/usr/bin/env bash
# The local model server side by side, in one run, with the local model
# (SmolLM2-135M) and the corpus's 16 text invoices that have ground truth:
#
#   1. llama.cpp's `llama-server` as Sift starts it (slots and threads from
#      the cores: see crates/llm/src/local_server/mod.rs);
#   2. llama-cpp-python's server as Sift started it before (one request at
#      a time, one thread).
#
# For each: `sift extract --jobs 4` over the 16 invoices (documents per
# minute), the median first-token latency of 5 streamed chat replies on an
# idle server, and `sift eval` accuracy. Then, on llama-server, what its
# prompt cache saves: the 16 requests as Sift sends them (`sift read`'s
# text after the schema's instruction), sent one after another with
# `cache_prompt` off and then on, their prompt-processing times summed.
#
#   scripts/bench-local-server.sh     # needs: cargo build --release -p sift-cli
#
# llama-cpp-python is built once into ~/.cache/sift/bench-llama-cpp-python
# (about 6 minutes on 2 cores) unless LLAMA_CPP_PYTHON names a Python that
# has it.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
TARGET=${CARGO_TARGET_DIR:-target}
SIFT=${SIFT:-$TARGET/release/sift}
DATA=${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sift
MODEL=$DATA/models/SmolLM2-135M-Instruct.Q4_1.gguf
LLAMA_SERVER=$DATA/llama.cpp/bin/llama-server
CORES=$(nproc)
SLOTS=$((CORES < 4 ? CORES : 4))
JOBS=4

[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
[ -x "$LLAMA_SERVER" ] && [ -f "$MODEL" ] || { echo "run scripts/setup.sh first" >&2; exit 1; }

PY=${LLAMA_CPP_PYTHON:-$CACHE/bench-llama-cpp-python/bin/python}
if ! "$PY" -c 'import llama_cpp.server' 2>/dev/null; then
  python3 -m venv "$CACHE/bench-llama-cpp-python"
  PY=$CACHE/bench-llama-cpp-python/bin/python
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
    "$PY" -m pip install -q "llama-cpp-python[server]==0.3.36"
fi

WORK=$(mktemp -d)
trap 'kill ${server_pid:-} 2>/dev/null || true; rm -rf "$WORK"' EXIT
source scripts/bench-corpus.sh
write_four_field_schema "$WORK/invoice.json"

start_server() { # name port
  case "$1" in
    llama-server)
      start_llama_server "$2" "$WORK/$1.log"
      ;;
    llama-cpp-python)
      "$PY" -m llama_cpp.server --model "$MODEL" --host 127.0.0.1 --port "$2" --model_alias smollm2 \
        --n_ctx 8192 --n_threads 1 --n_threads_batch 1 --interrupt_requests False >"$WORK/$1.log" 2>&1 &
      ;;
  esac
  server_pid=$!
  until curl -sf "http://127.0.0.1:$2/v1/models" >/dev/null; do sleep 0.5; done
}

first_token_ms() { # port: the median of 5 streamed replies' first content delta
  python3 - "$1" <<'PY'
import json, statistics, sys, time, urllib.request
port = sys.argv[1]
times = []
for _ in range(5):
    body = {"model": "smollm2", "stream": True, "max_tokens": 16,
            "messages": [{"role": "user", "content": "Say hello to the new user of Sift."}]}
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                     json.dumps(body).encode(), {"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request) as response:
        for line in response:
            line = line.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            choices = json.loads(line[6:]).get("choices") or [{}]
            if choices[0].get("delta", {}).get("content"):
                times.append((time.perf_counter() - start) * 1000)
                break
print(f"{statistics.median(times):.0f}")
PY
}

printf '| Server | Slots | Documents | Seconds | Documents/min | First token (ms) | Accuracy |\n|---|---|---|---|---|---|---|\n'
for name in llama-server llama-cpp-python; do
  port=$(free_port)
  start_server "$name" "$port"
  slots=$([ "$name" = llama-server ] && echo "$SLOTS" || echo 1)
  ftl=$(first_token_ms "$port")
  start=$(date +%s.%N)
  "$SIFT" --db "$WORK/$name.db" extract --provider local --base-url "http://127.0.0.1:$port/v1" --jobs "$JOBS" \
    --schema "$WORK/invoice.json" "${FILES[@]}" >"$WORK/$name.extract" 2>&1 || true
  seconds=$(python3 -c "print($(date +%s.%N) - $start)")
  "$SIFT" --db "$WORK/$name-eval.db" eval --provider local --base-url "http://127.0.0.1:$port/v1" --jobs "$JOBS" \
    --schema "$WORK/invoice.json" --truth "$CORPUS/MANIFEST.tsv" "${FILES[@]}" >"$WORK/$name.eval" 2>"$WORK/$name.eval.err" || true
  accuracy=$(awk '$1=="overall" {print $2, $3}' "$WORK/$name.eval")
  printf '| %s | %s | %s | %.0f | %.1f | %s | %s |\n' "$name" "$slots" "${#FILES[@]}" "$seconds" \
    "$(python3 -c "print(${#FILES[@]} * 60 / $seconds)")" "$ftl" "$accuracy"
  if [ "$name" = llama-server ]; then
    # What the prompt cache saves: the requests as Sift sends them.
    for f in "${FILES[@]}"; do "$SIFT" read "$f" >"$WORK/$(basename "$f").read" 2>/dev/null || true; done
    python3 - "$port" "$WORK" "${FILES[@]}" >"$WORK/cache.txt" <<'PY'
import json, os, sys, urllib.request
port, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
schema = json.load(open(os.path.join(work, "invoice.json")))
instruction = ("Answer with one JSON object, and nothing else, that matches this JSON Schema:\n"
               + json.dumps(schema, separators=(",", ":")))
def run(cache):
    # Each pass marks its documents apart, first in the user message, so
    # that only the shared prefix (the template's start and the schema's
    # instruction) can come from the cache: llama-server also keeps whole
    # earlier prompts, which a repeated document would hit.
    total_ms = cached = prompt = 0
    for f in files:
        text = open(os.path.join(work, os.path.basename(f) + ".read")).read()
        mark = f"[{'cached' if cache else 'uncached'}] "
        body = {"model": "smollm2", "max_tokens": 1, "cache_prompt": cache,
                "messages": [{"role": "system", "content": instruction},
                             {"role": "user", "content": mark + text + "\n\nExtract the fields of the schema from this document."}]}
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                         json.dumps(body).encode(), {"Content-Type": "application/json"})
        timings = json.load(urllib.request.urlopen(request))["timings"]
        total_ms += timings["prompt_ms"]; prompt += timings["prompt_n"]; cached += timings.get("cache_n", 0)
    return total_ms, prompt, cached
off = run(False)
on = run(True)
print(f"prompt cache off: {off[0]:.0f} ms for {off[1]} prompt tokens; "
      f"on: {on[0]:.0f} ms for {on[1]} tokens ({on[2]} reused); saved {100 * (1 - on[0] / off[0]):.1f}%")
PY
  fi
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
done
echo
cat "$WORK/cache.txt"
for name in llama-server llama-cpp-python; do
  echo; echo "$name: sift extract"; tail -n 3 "$WORK/$name.extract"
  echo "$name: sift eval"; cat "$WORK/$name.eval"; sort "$WORK/$name.eval.err" | uniq -c | head -5
done
