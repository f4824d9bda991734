#!/usr/bin/env bash
# How well the consistency checks (crates/core/src/evidence/consistency.rs)
# tell a wrong value from a right one: the starter invoice schema (it has
# subtotal, tax, total and line items, so the checks have something to
# check) run `--answers located` over a labelled manifest, then, for each
# scored value, whether it was right and whether a check flagged it.
# Prints the 2×2 table per field and in all.
#
#   scripts/bench-checks.sh [MANIFEST.tsv]   # default: the corpus's labelled invoices
#   needs: cargo build --release -p sift-cli
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
MANIFEST=${1:-$CORPUS/MANIFEST.tsv}
SIFT=${SIFT:-${CARGO_TARGET_DIR:-target}/release/sift}
[ -x "$SIFT" ] || { echo "build sift first: cargo build --release -p sift-cli" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The manifest's `date` is the starter's `invoice_date`; files made absolute.
python3 - "$MANIFEST" "$WORK/truth.tsv" <<'PY'
import csv, os, sys
src, out = sys.argv[1], sys.argv[2]
base = os.path.dirname(os.path.abspath(src))
with open(src, newline="") as f, open(out, "w", newline="") as g:
    rows = list(csv.reader(f, delimiter="\t"))
    header = ["invoice_date" if c == "date" else c for c in rows[0]]
    w = csv.writer(g, delimiter="\t", lineterminator="\n")
    w.writerow(header)
    i = header.index("file")
    for row in rows[1:]:
        row[i] = os.path.join(base, row[i])
        w.writerow(row)
PY
DB="$WORK/sift.db"
"$SIFT" --db "$DB" schema export invoice >"$WORK/invoice.json"
"$SIFT" --db "$DB" sets import checks --truth "$WORK/truth.tsv" --schema "$WORK/invoice.json" >/dev/null
"$SIFT" --db "$DB" eval --set checks --provider local --answers located --json >"$WORK/eval.json"
python3 - "$WORK/eval.json" "$DB" "$WORK/truth.tsv" <<'PY'
import csv, json, os, sqlite3, sys
from collections import Counter
view = json.load(open(sys.argv[1]))["view"]
# Only values with a truth are scored.
with open(sys.argv[3], newline="") as f:
    truth = {os.path.basename(r["file"]): r for r in csv.DictReader(f, delimiter="\t")}
wrong = {(d["fileName"], d["field"]) for d in view["disagreements"]}
fields = [f for f in ("invoice_number", "invoice_date", "total", "currency")]
db = sqlite3.connect(sys.argv[2])
table = Counter()
for path, evidence in db.execute("SELECT path, evidence FROM extraction_documents WHERE evidence IS NOT NULL"):
    name = os.path.basename(path)
    by_key = {e["key"]: e for e in json.loads(evidence)}
    for field in fields:
        if field not in by_key or not truth.get(name, {}).get(field, "").strip():
            continue
        flagged = bool(by_key[field].get("problems"))
        right = (name, field) not in wrong
        table[(field, right, flagged)] += 1
        table[("all", right, flagged)] += 1
print("field            right+flagged  right+clear  wrong+flagged  wrong+clear")
for field in fields + ["all"]:
    cells = [table[(field, r, f)] for r, f in ((True, True), (True, False), (False, True), (False, False))]
    print(f"{field:16} {cells[0]:13} {cells[1]:12} {cells[2]:14} {cells[3]:12}")
PY
