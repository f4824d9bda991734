#!/usr/bin/env bash
# OCR side by side on the corpus's scans and photos, in one run:
#   Sift (`sift read --ocr always`: one Tesseract a core, pages in parallel),
#   the `tesseract` program run page by page (pages rendered beforehand with
#   Ghostscript at 300 dpi; rendering not counted), and `ocrmypdf` on the
#   same PDFs (`--jobs` = cores, `--rotate-pages --force-ocr`); then Sift
#   again with its cache filled (a re-read).
#
#   scripts/bench-ocr.sh            # needs a built sift: cargo build --release -p sift-cli
#
# Prints one line per tool: pages, seconds, pages per second. Installs
# ocrmypdf (and Ghostscript) from apt when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
TARGET=${CARGO_TARGET_DIR:-target}
SIFT=${SIFT:-$TARGET/release/sift}
LANGS=eng+deu
CORES=$(nproc)
PDFS=(docling_ocr_test.pdf docling_ocr_test_rotated_90.pdf ocrmypdf_c02-22.pdf pdfjs_scan-bad.pdf mustang_rasterized_viewer_invoice.pdf)
IMAGES=(i2d_AmazonWebServices.png i2d_FlipkartInvoice.png i2d_oyo.png docling_qr_bill_example.jpg sroie_000.jpg sroie_001.jpg sroie_019.jpg sroie_047.jpg)

if ! command -v ocrmypdf >/dev/null || ! command -v gs >/dev/null; then
  apt-get install -y -q ocrmypdf ghostscript >/dev/null
fi
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Sift with a cache of its own; PDFium from the usual data directory.
PDFIUM=${SIFT_PDFIUM:-${SIFT_DATA_DIR:-$HOME/.local/share/sift}/lib/libpdfium.so}
sift_read() { SIFT_DATA_DIR="$WORK/data" SIFT_PDFIUM="$PDFIUM" "$SIFT" read --ocr always --lang "$LANGS" "$@" >/dev/null; }

now() { date +%s.%N; }
report() { # name pages start end
  awk -v n="$1" -v p="$2" -v s="$3" -v e="$4" 'BEGIN { t = e - s; printf "%-34s %3d pages  %7.2f s  %5.2f pages/s  %6.0f ms/page\n", n, p, t, p / t, 1000 * t / p }'
}

pdf_paths=(); for f in "${PDFS[@]}"; do pdf_paths+=("$CORPUS/$f"); done
image_paths=(); for f in "${IMAGES[@]}"; do image_paths+=("$CORPUS/$f"); done

# The PDFs' pages at 300 dpi, for the tesseract program.
mkdir -p "$WORK/pages"
for f in "${PDFS[@]}"; do
  gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=pnggray -r300 -o "$WORK/pages/${f%.pdf}-%02d.png" "$CORPUS/$f"
done
pdf_pages=$(ls "$WORK/pages" | wc -l)
image_count=${#IMAGES[@]}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(tesseract --version 2>&1 | head -1); $(ocrmypdf --version 2>&1 | head -1 | sed 's/^/ocrmypdf /')"
echo "scanned PDFs: ${PDFS[*]} ($pdf_pages pages); photos: $image_count images"

s=$(now); for p in "$WORK"/pages/*.png; do tesseract "$p" - -l "$LANGS" tsv >/dev/null 2>&1; done; e=$(now)
report "tesseract, page by page (PDFs)" "$pdf_pages" "$s" "$e"
s=$(now); for p in "${image_paths[@]}"; do tesseract "$p" - -l "$LANGS" tsv >/dev/null 2>&1; done; e=$(now)
report "tesseract, page by page (photos)" "$image_count" "$s" "$e"

s=$(now)
for f in "${PDFS[@]}"; do
  ocrmypdf -q -l "$LANGS" --jobs "$CORES" --rotate-pages --force-ocr "$CORPUS/$f" "$WORK/${f%.pdf}.ocr.pdf" >/dev/null 2>&1 || true
done
e=$(now)
report "ocrmypdf --jobs $CORES (PDFs)" "$pdf_pages" "$s" "$e"

s=$(now); sift_read "${pdf_paths[@]}"; e=$(now)
report "sift read --ocr always (PDFs)" "$pdf_pages" "$s" "$e"
s=$(now); sift_read "${image_paths[@]}"; e=$(now)
report "sift read --ocr always (photos)" "$image_count" "$s" "$e"
s=$(now); sift_read "$CORPUS/mustang_rasterized_viewer_invoice.pdf"; e=$(now)
report "sift, cached: the 5-page scan" 5 "$s" "$e"
s=$(now); sift_read "${pdf_paths[@]}" "${image_paths[@]}"; e=$(now)
report "sift, cached: all" "$((pdf_pages + image_count))" "$s" "$e"
# What the cache costs: a cached text-only read (no image rendered) against
# the same read without OCR at all.
s=$(now); sift_read --text-only "$CORPUS/mustang_rasterized_viewer_invoice.pdf"; e=$(now)
report "sift, cached, --text-only (5 pages)" 5 "$s" "$e"
s=$(now); SIFT_PDFIUM="$PDFIUM" "$SIFT" read --ocr off --text-only "$CORPUS/mustang_rasterized_viewer_invoice.pdf" >/dev/null; e=$(now)
report "sift --ocr off --text-only (5 pages)" 5 "$s" "$e"
