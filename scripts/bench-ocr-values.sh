#!/usr/bin/env bash
# Which ground-truth values of a set of scans and photos reach the model as
# text: Sift's OCR (`sift read --ocr always --text-only`, an empty cache)
# against the plain `tesseract` program on the same files, with its default
# page segmentation (3) and with 4 and 6, one run, 2 files at a time. Values
# are judged by the OCR fidelity test's rules (bench/ocr-values.py:
# a date in any of its printed forms, a total with either decimal mark, the
# currency's code or sign), and each pair of readers by McNemar's exact test
# on the values they disagree on.
#
#   scripts/bench-ocr-values.sh MANIFEST.tsv [LANGS]   # LANGS default: eng
#   needs: cargo build --release -p sift-cli
# MANIFEST: tab separated with a header naming at least file, kind, date,
# total and currency (the held-out format); rows of kind `image` are read.
set -euo pipefail
cd "$(dirname "$0")/.."
MANIFEST=${1:?usage: scripts/bench-ocr-values.sh MANIFEST.tsv [LANGS]}
LANGS=${2:-eng}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
DIR=$(cd "$(dirname "$MANIFEST")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PDFIUM=${SIFT_PDFIUM:-${SIFT_DATA_DIR:-$HOME/.local/share/sift}/lib/libpdfium.so}
mkdir -p "$WORK/sift" "$WORK/psm3" "$WORK/psm4" "$WORK/psm6"
export SIFT PDFIUM LANGS WORK DIR
read_one() {
  local f=$1
  SIFT_DATA_DIR="$WORK/data" SIFT_PDFIUM="$PDFIUM" "$SIFT" read --ocr always --text-only --lang "$LANGS" "$DIR/$f" >"$WORK/sift/$f.txt" 2>/dev/null || true
  for psm in 3 4 6; do
    OMP_THREAD_LIMIT=1 tesseract "$DIR/$f" - -l "$LANGS" --psm "$psm" >"$WORK/psm$psm/$f.txt" 2>/dev/null || true
  done
}
export -f read_one
python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline=""), delimiter="\t"):
    if r["kind"] == "image":
        print(r["file"])' "$MANIFEST" | xargs -P 2 -I{} bash -c 'read_one "$@"' _ {}
python3 - "$MANIFEST" "$WORK" <<'PY'
import csv, sys
from math import comb
sys.path.insert(0, "bench")
from values import misses
manifest, work = sys.argv[1], sys.argv[2]
readers = ["sift", "psm3", "psm4", "psm6", "sift+psm6", "sift+psm6new"]
# `a+b`: the two texts together; `a+bnew`: a's text and the lines of b
# with a token holding a digit that a's text lacks.
import re
def texts(reader, name):
    read = lambda part: open(f"{work}/{part}/{name}.txt", errors="replace").read()
    parts = reader.split("+")
    if len(parts) == 2 and parts[1].endswith("new"):
        first, second = read(parts[0]), read(parts[1][:-3])
        have = set(re.findall(r"\S*\d\S*", first))
        extra = [l for l in second.splitlines() if any(t not in have for t in re.findall(r"\S*\d\S*", l))]
        return first + "\n" + "\n".join(extra)
    return "\n".join(read(part) for part in parts)
rows = [r for r in csv.DictReader(open(manifest, newline=""), delimiter="\t") if r["kind"] == "image"]
found = {r: {} for r in readers}  # reader -> (file, value kind) -> found
for row in rows:
    truth = {"number": row.get("invoice_number", ""), "date": row["date"], "total": row["total"], "currency": row["currency"]}
    for reader in readers:
        text = texts(reader, row["file"])
        _, missed = misses(truth, text)
        for kind in ("number", "date", "total", "currency"):
            if truth[kind]:
                found[reader][(row["file"], kind)] = not any(m.startswith(f"the {kind}") for m in missed)
keys = sorted(found["sift"])
print(f"{len(rows)} files, {len(keys)} values")
for reader in readers:
    by = {k: sum(found[reader][x] for x in keys if x[1] == k) for k in ("date", "total", "currency")}
    n = sum(found[reader].values())
    print(f"{reader:6} {n}/{len(keys)} ({100*n/len(keys):.1f}%)  date {by['date']}  total {by['total']}  currency {by['currency']}")
def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(0, min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)
for i, a in enumerate(readers):
    for b in readers[i + 1:]:
        only_a = sum(found[a][k] and not found[b][k] for k in keys)
        only_b = sum(found[b][k] and not found[a][k] for k in keys)
        print(f"{a} vs {b}: {only_a + only_b} differ ({only_a} for {a}, {only_b} for {b}), McNemar exact p = {mcnemar(only_a, only_b):.3f}")
PY
