#!/usr/bin/env bash
# Sift's OCR (Tesseract, `sift read --ocr always`) against PaddleOCR's
# PP-OCRv4 models run through ONNX Runtime from Rust (bench/paddle-ocr),
# side by side in one run on the corpus's scans and photos with ground
# truth: the ground-truth values each engine's text holds (the fidelity
# test's rules, bench/paddle-ocr/values.py) and the seconds a page.
#
#   scripts/bench-paddle-ocr.sh     # needs a built sift: cargo build --release -p sift-cli
#   CORPUS=DIR scripts/bench-paddle-ocr.sh   # another set: DIR/MANIFEST.tsv, the
#                                            # corpus's columns, files under DIR
#
# The models come from the rapidocr-onnxruntime wheel and the library from
# the onnxruntime wheel (PyPI), kept in ~/.cache/sift/paddle; Ghostscript
# (apt) renders the PDFs' pages at 300 dpi for PaddleOCR (not counted in
# its time; Sift's time includes its own rendering with PDFium).
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
PDFIUM=${SIFT_PDFIUM:-${SIFT_DATA_DIR:-$HOME/.local/share/sift}/lib/libpdfium.so}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/sift/paddle
LANGS=eng+deu
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
command -v gs >/dev/null || apt-get install -y -q ghostscript >/dev/null

MODELS=$CACHE/rapidocr/rapidocr_onnxruntime/models
ORT_LIB=$CACHE/ort/onnxruntime/capi/libonnxruntime.so.1.32.0
if [ ! -f "$MODELS/ch_PP-OCRv4_rec_infer.onnx" ] || [ ! -f "$ORT_LIB" ]; then
  mkdir -p "$CACHE"
  python3 -m pip download -q --no-deps --only-binary=:all: rapidocr-onnxruntime==1.4.4 onnxruntime==1.32.0 -d "$CACHE"
  unzip -o -q "$CACHE"/rapidocr_onnxruntime-1.4.4-*.whl -d "$CACHE/rapidocr"
  unzip -o -q "$CACHE"/onnxruntime-1.32.0-*.whl 'onnxruntime/capi/libonnxruntime.so*' -d "$CACHE/ort"
fi
cargo build -q --release --manifest-path bench/paddle-ocr/Cargo.toml --target-dir "$CACHE/target"
PADDLE=$CACHE/target/release/sift-bench-paddle-ocr

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/pages" "$WORK/page-text" "$WORK/tesseract" "$WORK/paddle"
mapfile -t FILES < <(awk -F'\t' 'NR>1 && ($5=="image"||$5=="scanned-pdf") && ($6!=""||$8!="") {print $1}' "$CORPUS/MANIFEST.tsv")

# The pages as images: a photo as it is, a PDF rendered at 300 dpi; a
# file in a folder of the set (`files/a.jpg`) is named `files_a.jpg` here.
declare -A PAGES
for f in "${FILES[@]}"; do
  flat=${f//\//_}
  mkdir -p "$(dirname "$WORK/tesseract/$f")" "$(dirname "$WORK/paddle/$f")"
  case "$f" in
    *.pdf) gs -q -dNOPAUSE -dBATCH -r300 -sDEVICE=png16m -o "$WORK/pages/$flat-%03d.png" "$CORPUS/$f" ;;
    *) cp "$CORPUS/$f" "$WORK/pages/$flat-001.${f##*.}" ;;
  esac
  PAGES[$f]=$(ls "$WORK/pages" | grep -c "^$flat-")
done
total_pages=0; for f in "${FILES[@]}"; do total_pages=$((total_pages + PAGES[$f])); done

now() { date +%s.%N; }
# Sift: one document at a time, an empty OCR cache, as an extraction reads.
start=$(now)
for f in "${FILES[@]}"; do
  SIFT_DATA_DIR="$WORK/data" SIFT_PDFIUM="$PDFIUM" "$SIFT" read --ocr always --text-only --lang "$LANGS" "$CORPUS/$f" >"$WORK/tesseract/$f.txt"
done
tesseract_s=$(awk -v s="$start" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }')

# PaddleOCR: every page in one process (the models load once, as Sift's
# engine would hold them), both cores as ONNX Runtime's threads.
start=$(now)
"$PADDLE" --ort "$ORT_LIB" --models "$MODELS" --threads "$(nproc)" --out "$WORK/page-text" "$WORK"/pages/* >"$WORK/paddle-times.tsv"
paddle_s=$(awk -v s="$start" -v e="$(now)" 'BEGIN { printf "%.2f", e - s }')
for f in "${FILES[@]}"; do cat "$WORK/page-text/${f//\//_}"-*.txt >"$WORK/paddle/$f.txt"; done

echo "Values found per document (found/checked, then the misses):"
paste <(python3 bench/paddle-ocr/values.py "$CORPUS/MANIFEST.tsv" "$WORK/tesseract") \
  <(python3 bench/paddle-ocr/values.py "$CORPUS/MANIFEST.tsv" "$WORK/paddle" | cut -f2-) \
  | awk -F'\t' 'BEGIN { printf "%-40s %-10s %-10s\n", "document", "tesseract", "paddle" }
      $1 == "total" { printf "%-40s %-10s %-10s\n", $1, $2, $3; next }
      { printf "%-40s %-10s %-10s  missed: tesseract [%s], paddle [%s]\n", $1, $2, $4, $3, $5 }'
printf '\n| Engine | Values found | Pages | Seconds | Per page |\n|---|---|---|---|---|\n'
for engine in tesseract paddle; do
  found=$(python3 bench/paddle-ocr/values.py "$CORPUS/MANIFEST.tsv" "$WORK/$engine" | awk -F'\t' '$1=="total" {print $2}')
  seconds=$([ $engine = tesseract ] && echo "$tesseract_s" || echo "$paddle_s")
  awk -v e="$engine" -v f="$found" -v p="$total_pages" -v s="$seconds" 'BEGIN { printf "| %s | %s | %d | %.2f | %.0f ms |\n", e, f, p, s, 1000 * s / p }'
done
