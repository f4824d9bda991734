#!/usr/bin/env bash
# The Evaluate screen's comparison on the real local model, from the
# command line: the corpus's invoices with ground truth (MANIFEST.tsv: text
# PDFs, .txt, scans and photos) stored as a labelled set, against two
# configurations of the bundled SmolLM2-135M on Sift's own llama-server:
# OCR on (as an extraction reads) and OCR off (scans and photos reach the
# text-only model with no text). Prints the matrix (`sift eval --set`),
# then runs it again to show that nothing is called twice.
# SIFT_BENCH_VIEW=FILE also writes the run as the Evaluate screen shows it
# (`sift eval --set --json`'s `view`) to FILE: the README's screenshots.
#
#   scripts/bench-eval-local.sh     # needs: cargo build --release -p sift-cli
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source scripts/bench-corpus.sh
write_four_field_schema "$WORK/invoice.json"
cat >"$WORK/candidates.yaml" <<'YAML'
- label: SmolLM2 OCR on
- label: SmolLM2 OCR off
  ocr: false
YAML
DB="$WORK/sift.db"
"$SIFT" --db "$DB" sets import corpus --truth "$CORPUS/MANIFEST.tsv" --schema "$WORK/invoice.json"
echo "== first run"
start=$(date +%s)
"$SIFT" --db "$DB" eval --set corpus --provider local --jobs 2 --candidates "$WORK/candidates.yaml"
echo "seconds: $(( $(date +%s) - start ))"
echo "== the same candidates again"
start=$(date +%s)
"$SIFT" --db "$DB" eval --set corpus --provider local --jobs 2 --candidates "$WORK/candidates.yaml"
echo "seconds: $(( $(date +%s) - start ))"
if [ -n "${SIFT_BENCH_VIEW:-}" ]; then
  "$SIFT" --db "$DB" eval --set corpus --provider local --candidates "$WORK/candidates.yaml" --json 2>/dev/null \
    | python3 -c 'import json,sys; json.dump(json.load(sys.stdin)["view"], sys.stdout, indent=1)' >"$SIFT_BENCH_VIEW"
fi
