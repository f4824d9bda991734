#!/usr/bin/env bash
# Sift's two ways of reading scans and photos, side by side in one run on
# the corpus's scans and photos with ground truth: Tesseract alone, and
# PaddleOCR's PP-OCRv4 models (crates/documents/src/ocr/paddle) reading
# the words once Tesseract has turned the page upright. Both are
# `sift read --ocr always` from an empty OCR cache; reported are the
# ground-truth values each text holds (the fidelity test's rules,
# bench/ocr-values.py) and the seconds a page.
#
#   scripts/bench-paddle-ocr.sh     # needs a built sift: cargo build --release -p sift-cli
#   CORPUS=DIR scripts/bench-paddle-ocr.sh   # another set: DIR/MANIFEST.tsv, the
#                                            # corpus's columns, files under DIR
#
# PaddleOCR's models and ONNX Runtime are the ones scripts/setup.sh puts
# in the data directory (DATA_DIR/paddle).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
DATA=${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}
PDFIUM=${SIFT_PDFIUM:-$DATA/lib/libpdfium.so}
PADDLE=${SIFT_PADDLE:-$DATA/paddle}
LANGS=eng+deu
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
[ -f "$PADDLE/libonnxruntime.so" ] || { echo "PaddleOCR is not in $PADDLE: run scripts/setup.sh" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mapfile -t FILES < <(awk -F'\t' 'NR>1 && ($5=="image"||$5=="scanned-pdf") && ($6!=""||$8!="") {print $1}' "$CORPUS/MANIFEST.tsv")
now() { date +%s.%N; }
# One engine over every file, one document at a time, an empty OCR cache,
# as an extraction reads. SIFT_PADDLE naming a folder without the models
# leaves Tesseract alone.
run() { # engine paddle-dir
  mkdir -p "$WORK/$1"
  local start; start=$(now)
  for f in "${FILES[@]}"; do
    mkdir -p "$(dirname "$WORK/$1/$f")"
    SIFT_DATA_DIR="$WORK/data-$1" SIFT_PDFIUM="$PDFIUM" SIFT_PADDLE="$2" \
      "$SIFT" read --ocr always --text-only --json --lang "$LANGS" "$CORPUS/$f" >"$WORK/$1/$f.json"
  done
  awk -v s="$start" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }' >"$WORK/$1.seconds"
  # The text, and the pages OCR read.
  for f in "${FILES[@]}"; do
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); open(sys.argv[2],"w").write(d["text"]); print(len(d["ocr"]))' \
      "$WORK/$1/$f.json" "$WORK/$1/$f.txt"
  done | awk '{ n += $1 } END { print n }' >"$WORK/$1.pages"
}
run tesseract "$WORK/no-paddle"
run paddle "$PADDLE"

echo "Values found per document (found/checked, then the misses):"
paste <(python3 bench/ocr-values.py "$CORPUS/MANIFEST.tsv" "$WORK/tesseract") \
  <(python3 bench/ocr-values.py "$CORPUS/MANIFEST.tsv" "$WORK/paddle" | cut -f2-) \
  | awk -F'\t' 'BEGIN { printf "%-40s %-10s %-10s\n", "document", "tesseract", "paddle" }
      $1 == "total" { printf "%-40s %-10s %-10s\n", $1, $2, $3; next }
      { printf "%-40s %-10s %-10s  missed: tesseract [%s], paddle [%s]\n", $1, $2, $4, $3, $5 }'
printf '\n| Reading | Values found | Pages | Seconds | Per page |\n|---|---|---|---|---|\n'
for engine in tesseract paddle; do
  found=$(python3 bench/ocr-values.py "$CORPUS/MANIFEST.tsv" "$WORK/$engine" | awk -F'\t' '$1=="total" {print $2}')
  awk -v e="$engine" -v f="$found" -v p="$(cat "$WORK/$engine.pages")" -v s="$(cat "$WORK/$engine.seconds")" \
    'BEGIN { printf "| %s | %s | %d | %.2f | %.0f ms |\n", e, f, p, s, 1000 * s / p }'
done
