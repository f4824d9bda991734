#!/usr/bin/env bash
# The local models side by side: each model of MODELS (files in the data
# directory's models/) runs the answer modes of MODES as candidates of one
# `sift eval --set` run on Sift's own llama-server, over the corpus's
# labelled invoices (the four-field schema of MANIFEST.tsv). Prints each
# run's matrix (McNemar's test per pair) and its wall-clock seconds, from
# which documents a minute = documents x modes x 60 / seconds.
#
#   scripts/bench-models.sh [MANIFEST.tsv]
#   MODELS="SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" MODES="free grounded"
#   needs: cargo build -p sift-cli (SIFT=path/to/sift picks the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
MANIFEST=${1:-$CORPUS/MANIFEST.tsv}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
DATA=${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}
MODELS=${MODELS:-SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-0.5b-instruct-q4_k_m.gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}
MODES=${MODES:-grounded free}
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source scripts/bench-corpus.sh
write_four_field_schema "$WORK/invoice.json"
args=()
for mode in $MODES; do args+=(--answers "$mode"); done
for model in $MODELS; do
  DB="$WORK/$model.db"
  "$SIFT" --db "$DB" sets import bench --truth "$MANIFEST" --schema "$WORK/invoice.json" >/dev/null
  echo "== $model ($MODES)"
  start=$(date +%s)
  SIFT_LOCAL_MODEL="$DATA/models/$model" "$SIFT" --db "$DB" eval --set bench --provider local --jobs 2 "${args[@]}"
  echo "seconds: $(( $(date +%s) - start ))"
done
