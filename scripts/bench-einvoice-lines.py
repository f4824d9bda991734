#!/usr/bin/env python3
"""Sift on the e-invoice line-items set (scripts/sets/einvoice-lines.py):
hybrid e-invoice PDFs with their XML taken out, read from their pages, each
value scored against the XML's.

  scripts/bench-einvoice-lines.py [--set DIR] [--split held-out|tune|tune-more] [--limit N]
  MODES="located grounded free"  the answer modes (located runs once: no model)
  MODELS="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"  files of the data directory's
      models/, each passed as SIFT_LOCAL_MODEL (default: the file DEFAULT_MODEL_FILE
      names, asked of scripts/get-model.py)
  SIFT=target/release/sift  JOBS=2  SIFT_DATA_DIR (a folder of one's own keeps the run's
      model server apart from other runs': symbolic links to models/, llama.cpp/, lib/)  SIFT_EXTRA="--flag ..." (more `sift extract` flags)

Scoring. A line row is right when its description holds the truth's or
the reverse (case and spaces ignored) and its quantity, unit price (the
XML's net price, or its gross price, which a page may print before the
line's discount; where the XML gives no price, the amount over the
quantity or none) and amount are the XML's numbers exactly; rows are
matched one to one (a maximum matching of right rows). Cells: each truth
row's best row by cells right, one to one, greedy. The other fields are
exact after normalising: dates as ISO (YYYY-MM-DD, or DD.MM.YYYY read as
ISO), amounts as numbers (to the cent), names, numbers and currencies with
case and spaces ignored; a field the XML leaves empty is not scored.
On the tuning splits it lists each document's misses; on held-out only the
totals (the split is frozen: measured, its misses not read).
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ["invoice_number", "invoice_date", "currency", "total",
          "due_date", "seller_name", "buyer_name", "subtotal", "tax"]
# The four fields of the locator's first rules; the others came later.
FOUR = FIELDS[:4]


def squash(s):
    return re.sub(r"\s+", "", str(s)).casefold() if s is not None else ""


def number(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v).strip())
    except ValueError:
        return None


def same_number(a, b):
    a, b = number(a), number(b)
    return a is not None and b is not None and abs(a - b) < 0.005


def iso(v):
    if not isinstance(v, str):
        return None
    v = v.strip()
    if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:T.*)?", v):
        return "-".join(m.groups())
    if m := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})", v):
        return f"{m[3]}-{int(m[2]):02}-{int(m[1]):02}"
    return None


def field_right(key, truth, got):
    if key in ("invoice_date", "due_date"):
        return iso(got) == truth
    if key in ("total", "subtotal", "tax"):
        return same_number(truth, got)
    return got is not None and squash(got) == squash(truth)


def cells(t, row):
    """Which of a row's four cells are right, against truth row `t`."""
    if not isinstance(row, dict):
        return [False] * 4
    d, td = squash(row.get("description")), squash(t["description"])
    desc = bool(d) and (td in d or d in td)
    if t["quantity"] is None:
        qty = row.get("quantity") is None
    else:
        qty = same_number(t["quantity"], row.get("quantity"))
    prices = [p for p in (t["unit_price"], t.get("unit_price_gross")) if p is not None]
    if prices:
        price = any(same_number(p, row.get("unit_price")) for p in prices)
    else:
        # The XML gives no price: the page's, if it prints one, is the
        # amount over the quantity; none is right too.
        implied = (number(t["amount"]) / number(t["quantity"])
                   if number(t["amount"]) is not None and number(t["quantity"]) else None)
        price = row.get("unit_price") is None or same_number(implied, row.get("unit_price"))
    amount = same_number(t["amount"], row.get("amount"))
    return [desc, qty, price, amount]


def rows_right(truth_rows, rows):
    """The largest one-to-one matching of wholly right rows (Kuhn's)."""
    ok = [[all(cells(t, r)) for r in rows] for t in truth_rows]
    owner = [-1] * len(rows)

    def augment(i, seen):
        for j in range(len(rows)):
            if ok[i][j] and j not in seen:
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(truth_rows)))


def cells_right(truth_rows, rows):
    pairs = sorted(((sum(cells(t, r)), i, j) for i, t in enumerate(truth_rows)
                    for j, r in enumerate(rows)), reverse=True)
    used_t, used_r, total = set(), set(), 0
    for score, i, j in pairs:
        if i not in used_t and j not in used_r:
            used_t.add(i)
            used_r.add(j)
            total += score
    return total


def score(truth, result):
    values = (result or {}).get("values") or {}
    rows = values.get("lines") if isinstance(values.get("lines"), list) else []
    out = {"rows": rows_right(truth["lines"], rows), "truth_rows": len(truth["lines"]),
           "got_rows": len(rows), "cells": cells_right(truth["lines"], rows),
           "truth_cells": 4 * len(truth["lines"]), "fields": {}, "misses": []}
    for key in FIELDS:
        if truth.get(key) is None:
            continue
        right = field_right(key, truth[key], values.get(key))
        out["fields"][key] = right
        if not right:
            out["misses"].append(f"{key}: {values.get(key)!r} for {truth[key]!r}")
    return out


def read_answers(out):
    """The answers of a run: its JSONL, else (a run stopped before it
    wrote one) the documents its database holds."""
    results = {}
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            results[Path(r["file"]).name] = r
    elif out.with_suffix(".db").exists():
        db = sqlite3.connect(f"file:{out.with_suffix('.db')}?mode=ro", uri=True)
        for path, status, values in db.execute(
                'SELECT path, status, "values" FROM extraction_documents WHERE job_id = '
                '(SELECT id FROM extraction_jobs ORDER BY created_at LIMIT 1)'):
            results[Path(path).name] = {"status": status,
                                        "values": json.loads(values) if values else None}
    return results


def run(sift, schema, files, mode, model, jobs, extra, work, reuse):
    tag = f"{mode}-{model or 'default'}".replace("/", "_")
    out = work / f"{tag}.jsonl"
    if reuse:  # never asks: a run not there scores as unanswered
        seconds = work / f"{tag}.seconds"
        return read_answers(out), float(seconds.read_text()) if seconds.exists() else float("nan")
    env = dict(os.environ)
    if model:
        data = Path(os.environ.get("SIFT_DATA_DIR") or
                    Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local/share")) / "sift")
        env["SIFT_LOCAL_MODEL"] = str(data / "models" / model)
    cmd = [sift, "--db", str(work / f"{tag}.db"), "extract", "--schema", str(schema),
           "--answers", mode, "--provider", "local", "--jobs", str(jobs),
           "--jsonl", str(out), *extra, *map(str, files)]
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.monotonic() - start
    (work / f"{tag}.seconds").write_text(f"{seconds:.1f}\n")
    results = read_answers(out)
    if proc.returncode not in (0, 1):
        print(proc.stderr[-2000:], file=sys.stderr)
    return results, seconds


def pct(a, b):
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "0/0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/sets/einvoice-lines")
    ap.add_argument("--split", default="held-out", choices=["held-out", "tune", "tune-more"])
    ap.add_argument("--limit", type=int, default=0, help="the first N documents only (by name)")
    ap.add_argument("--keep", type=Path, help="keep the JSONL answers in this folder")
    ap.add_argument("--answered", action="store_true",
                    help="score only the documents every run reached, answered or failed (runs stopped early)")
    ap.add_argument("--reuse", action="store_true",
                    help="score the answers --keep already holds (its JSONL, else its database's first job); ask nothing")
    args = ap.parse_args()
    sift = os.environ.get("SIFT", str(ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "release/sift"))
    modes = os.environ.get("MODES", "located grounded free").split()
    # The default model named, not left to the binary: an older build's
    # default is another model.
    models = os.environ.get("MODELS", "").split() or [subprocess.run(
        [sys.executable, str(ROOT / "scripts/get-model.py"), "default", "--file-name"],
        check=True, capture_output=True, text=True).stdout.strip()]
    jobs = int(os.environ.get("JOBS", "2"))
    extra = os.environ.get("SIFT_EXTRA", "").split()
    files = sorted((args.set / args.split).glob("*.pdf"))
    if args.limit:
        files = files[:args.limit]
    if not files:
        sys.exit(f"no documents in {args.set / args.split}: run scripts/sets/einvoice-lines.py first")
    truths = {f.name: json.loads(f.with_suffix(".truth.json").read_text()) for f in files}
    print(f"{len(files)} documents of {args.split}, {sum(len(t['lines']) for t in truths.values())} "
          f"truth rows; sift {sift} {' '.join(extra)}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sift-einvoice-"))
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    for model in models:
        for mode in modes:
            if mode == "located" and any(r[1] == "located" for r in runs):
                continue  # no model: the same answers
            results, seconds = run(sift, args.set / "schema.json", files, mode,
                                   model if mode != "located" else "", jobs, extra, work, args.reuse)
            runs.append((model.removesuffix(".gguf"), mode, results, seconds))
    if args.answered:
        files = [f for f in files if all(
            (r[2].get(f.name) or {}).get("status") in ("completed", "failed") for r in runs)]
        print(f"scored on the {len(files)} documents every run reached (a failed one scores nothing), "
              f"{sum(len(truths[f.name]['lines']) for f in files)} truth rows")
    header = ("model", "mode", "rows right", "cells right", "fields right", "four fields",
              "fields beyond", "rows given", "failed", "seconds")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    by_field = []
    for model, mode, results, seconds in runs:
        sums = {"rows": 0, "truth_rows": 0, "cells": 0, "truth_cells": 0, "got_rows": 0}
        per_field, failed = {}, 0
        for f in files:
            r = results.get(f.name)
            if not r or r.get("status") != "completed":
                failed += 1
            s = score(truths[f.name], r)
            for k in sums:
                sums[k] += s[k]
            for k, right in s["fields"].items():
                per_field.setdefault(k, [0, 0])
                per_field[k][0] += right
                per_field[k][1] += 1
            if args.split != "held-out" and (s["misses"] or s["rows"] < s["truth_rows"]):
                print(f"  {mode} {f.name}: rows {s['rows']}/{s['truth_rows']} (given {s['got_rows']}); "
                      + "; ".join(s["misses"]), file=sys.stderr)
        right = lambda keys: (sum(per_field.get(k, [0, 0])[0] for k in keys),
                              sum(per_field.get(k, [0, 0])[1] for k in keys))
        beyond = [k for k in FIELDS if k not in FOUR]
        print(f"| {model if mode != 'located' else '(no model)'} | {mode} | "
              f"{pct(sums['rows'], sums['truth_rows'])} | {pct(sums['cells'], sums['truth_cells'])} | "
              f"{pct(*right(FIELDS))} | {pct(*right(FOUR))} | {pct(*right(beyond))} | "
              f"{sums['got_rows']} | {failed} | {seconds:.0f} |")
        by_field.append(f"{model if mode != 'located' else '(no model)'} {mode}: " + ", ".join(
            f"{k} {per_field[k][0]}/{per_field[k][1]}" for k in FIELDS if k in per_field))
    print()
    print("by field:")
    for line in by_field:
        print("  " + line)
    if not args.keep:
        print(f"(answers in {work})")


if __name__ == "__main__":
    main()
