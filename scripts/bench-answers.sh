#!/usr/bin/env bash
# Right values by default: the ways a job's answers are made, side by side
# as candidates of one `sift eval --set` run on the bundled SmolLM2-135M
# (Sift's own llama-server, OCR on): `free` (the model writes every value),
# `grounded` (the locator's sure fields fixed, the others held to its
# candidates) and `located` (the locator alone, no model). Prints the
# matrix with McNemar's test per pair.
#
#   scripts/bench-answers.sh [MANIFEST.tsv]   # default: the corpus's 25 labelled invoices
#   needs: cargo build --release -p sift-cli
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
MANIFEST=${1:-$CORPUS/MANIFEST.tsv}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source scripts/bench-corpus.sh
write_four_field_schema "$WORK/invoice.json"
DB="$WORK/sift.db"
"$SIFT" --db "$DB" sets import bench --truth "$MANIFEST" --schema "$WORK/invoice.json"
MODES=${MODES:-located grounded free}
args=()
for mode in $MODES; do args+=(--answers "$mode"); done
start=$(date +%s)
"$SIFT" --db "$DB" eval --set bench --provider local --jobs 2 "${args[@]}"
echo "seconds: $(( $(date +%s) - start ))"
