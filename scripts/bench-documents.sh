#!/usr/bin/env bash
# Reading documents: sift-documents against its peers, side by side, in one run.
#
#   scripts/bench-documents.sh            run everything, print a Markdown table
#
# The same corpus files (../shared/corpus) and the same work for everyone:
#   pdf_text     text of 15 text PDFs (19 pages)        vs pypdfium2 (same engine), pdftotext
#   pdf_render   7 scanned pages rendered to a 1568 px  vs pypdfium2 + Pillow PNG, pdftoppm -png
#                long edge and encoded
#   xlsx         4 workbooks, every sheet, row by row   vs python-calamine, openpyxl (read-only)
#   docx         3 documents, paragraphs and tables     vs python-docx
#   image_scale  3 images: EXIF orientation, scaled to  vs Pillow (exif_transpose, resize, JPEG q85)
#                1568 px, re-encoded
# Sift's figures come from the Criterion bench (crates/documents/benches/documents.rs,
# release build); the peers are timed in-process (Python) or per file (poppler's tools,
# which include starting the process, as they are used). Times are per run of a whole case.
#
# Peers live in a venv at ~/.cache/sift/bench-venv (pip) and poppler-utils (apt).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORPUS="$(cd "$ROOT/../shared/corpus" && pwd)"
VENV="${XDG_CACHE_HOME:-$HOME/.cache}/sift/bench-venv"
PDFIUM_LIB="${SIFT_PDFIUM:-${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}/lib/libpdfium.so}"

log() { printf '\033[1mbench:\033[0m %s\n' "$*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import pypdfium2, python_calamine, openpyxl, docx, PIL' 2>/dev/null ||
  "$VENV/bin/pip" install -q pypdfium2==5.15.2 python-calamine openpyxl python-docx Pillow
if ! command -v pdftotext >/dev/null || ! command -v pdftoppm >/dev/null; then
  log "installing poppler-utils"
  if [ "$(id -u)" -eq 0 ]; then apt-get install -y --no-install-recommends poppler-utils >&2; else sudo apt-get install -y --no-install-recommends poppler-utils >&2; fi
fi

log "running the Criterion bench (release build)"
SIFT_OUT="$(mktemp)"
trap 'rm -f "$SIFT_OUT"' EXIT
(cd "$ROOT" && cargo bench -p sift-documents --bench documents -- --output-format bencher 2>/dev/null) | tee /dev/stderr | grep '^test ' >"$SIFT_OUT"

log "running the peers"
SIFT_OUT="$SIFT_OUT" CORPUS="$CORPUS" PDFIUM_LIB="$PDFIUM_LIB" "$VENV/bin/python" - <<'PY'
import io, os, re, subprocess, sys, time

corpus = os.environ["CORPUS"]
EDGE = 1568
CASES = {
    "pdf_text": ["i2d_AmazonWebServices.pdf", "i2d_AzureInterior.pdf", "i2d_FlipkartInvoice.pdf",
                 "i2d_NetpresseInvoice.pdf", "i2d_QualityHosting.pdf", "i2d_coolblue1.pdf", "i2d_free_fiber.pdf",
                 "i2d_oyo.pdf", "i2d_saeco.pdf", "mustang_103767-Invoice.pdf", "mustang_Avoir_AV-2017-0005.pdf",
                 "mustang_EN16931_Einfach.pdf", "mustang_EXTENDED_Fremdwaehrung.pdf",
                 "mustang_Facture_F20180027.pdf", "mustang_RE-20170509_505.pdf"],
    "pdf_render": ["mustang_rasterized_viewer_invoice.pdf", "ocrmypdf_c02-22.pdf", "docling_ocr_test.pdf"],
    "xlsx": ["docling_xlsx_06_edge_cases.xlsx", "calamine_table-multiple.xlsx", "calamine_merge_cells.xlsx",
             "calamine_date.xlsx"],
    "docx": ["docling_word_tables.docx", "docling_docx_rich_cells.docx", "docling_unit_test_headers.docx"],
    "image_scale": ["i2d_AmazonWebServices.png", "i2d_oyo.png", "docling_qr_bill_example.jpg"],
}
paths = {k: [os.path.join(corpus, f) for f in v] for k, v in CASES.items()}

import pypdfium2 as pdfium
from python_calamine import CalamineWorkbook
import openpyxl, docx
from PIL import Image, ImageOps

def pypdfium_text(files):
    out = []
    for f in files:
        pdf = pdfium.PdfDocument(f)
        for page in pdf:
            out.append(page.get_textpage().get_text_range())
        pdf.close()
    return out

def pdftotext(files):
    for f in files:
        subprocess.run(["pdftotext", f, "-"], check=True, stdout=subprocess.DEVNULL)

def scale_for(w, h):
    long = max(w, h)
    return min(EDGE / long, 300 / 72)

def pypdfium_render(files):
    for f in files:
        pdf = pdfium.PdfDocument(f)
        for page in pdf:
            w, h = page.get_size()
            image = page.render(scale=scale_for(w, h)).to_pil()
            image.save(io.BytesIO(), "PNG")
        pdf.close()

def pdftoppm(files):
    for f in files:
        subprocess.run(["pdftoppm", "-png", "-scale-to", str(EDGE), f], check=True, stdout=subprocess.DEVNULL)

def calamine(files):
    for f in files:
        wb = CalamineWorkbook.from_path(f)
        for name in wb.sheet_names:
            for row in wb.get_sheet_by_name(name).to_python():
                " | ".join(str(c) for c in row)

def openpyxl_read(files):
    for f in files:
        wb = openpyxl.load_workbook(f, read_only=True, data_only=True)
        for ws in wb.worksheets:
            for row in ws.iter_rows(values_only=True):
                " | ".join("" if c is None else str(c) for c in row)
        wb.close()

def python_docx(files):
    for f in files:
        d = docx.Document(f)
        lines = [p.text for p in d.paragraphs]
        for t in d.tables:
            for r in t.rows:
                lines.append(" | ".join(c.text for c in r.cells))

def pillow(files):
    for f in files:
        im = ImageOps.exif_transpose(Image.open(f)).convert("RGB")
        im.thumbnail((EDGE, EDGE), Image.LANCZOS)
        im.save(io.BytesIO(), "JPEG", quality=85)

PEERS = {
    "pdf_text": [("pypdfium2", pypdfium_text), ("pdftotext", pdftotext)],
    "pdf_render": [("pypdfium2 + Pillow PNG", pypdfium_render), ("pdftoppm -png", pdftoppm)],
    "xlsx": [("python-calamine", calamine), ("openpyxl", openpyxl_read)],
    "docx": [("python-docx", python_docx)],
    "image_scale": [("Pillow", pillow)],
}

def timed(fn, files, budget=5.0):
    fn(files)  # warm-up
    runs, start = 0, time.perf_counter()
    while True:
        fn(files)
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= budget or runs >= 200:
            return elapsed / runs

# Criterion's bencher lines: "test NAME ... bench:   12,345 ns/iter (+/- 67)"
sift = {}
for line in open(os.environ["SIFT_OUT"]):
    m = re.match(r"test (\S+) \.\.\. bench:\s+([\d,]+) ns/iter", line)
    if m:
        sift[m.group(1)] = int(m.group(2).replace(",", "")) / 1e9

def ms(seconds):
    return f"{seconds * 1000:.1f} ms"

print()
print("| Case | sift-documents | Peer | Peer time | Peer / Sift |")
print("|---|---|---|---|---|")
for case, peers in PEERS.items():
    ours = sift.get(case)
    for peer, fn in peers:
        t = timed(fn, paths[case])
        ratio = f"{t / ours:.2f}x" if ours else "n/a"
        print(f"| {case} | {ms(ours) if ours else 'n/a'} | {peer} | {ms(t)} | {ratio} |", flush=True)
PY
