"""What the set scripts of scripts/sets/ share: a source at a pinned
commit (a bare mirror given with --git-dir, else a clone into the cache),
its files read with git, and a set written in the corpus's manifest
format (`file` and a column per field, read by `sift sets import`).
Standard library only; the e-invoice scripts load einvoice-lines.py for
the XML's truth and the PDF work (pypdfium2)."""

import argparse
import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/sets"

# The four-field schema of scripts/bench-corpus.sh (write_four_field_schema),
# the one the locator's tables score unless they name another.
FOUR_FIELDS = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's number"},
        "date": {"type": "string", "description": "The invoice's date"},
        "total": {"type": "number", "description": "The total amount due"},
        "currency": {"type": "string", "description": "The currency of the total, as an ISO 4217 code"},
    },
    "required": ["invoice_number", "date", "total", "currency"],
}


def einvoice_lines():
    """scripts/sets/einvoice-lines.py as a module (its name has a dash)."""
    spec = importlib.util.spec_from_file_location("einvoice_lines", HERE / "einvoice-lines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def arguments(doc, name):
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", action="append", default=[], type=Path,
                    help="a mirror (bare git dir) holding a source's pinned commit; repeat")
    ap.add_argument("--out", type=Path, default=CACHE / name, help=f"default {CACHE / name}")
    ap.add_argument("--cache", type=Path, default=CACHE / "git",
                    help="where a source no --git-dir holds is cloned")
    return ap


def git(git_dir, *args, binary=False):
    out = subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True)
    return out.stdout if binary else out.stdout.decode()


def has_commit(git_dir, commit):
    return subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e", commit + "^{commit}"],
                          capture_output=True).returncode == 0


def source(name, url, commit, args):
    """The git dir holding `commit`: a --git-dir, else a bare clone in the
    cache (made or fetched now). Exits when there is none: a set is built
    whole or not at all."""
    for d in args.git_dir:
        if has_commit(d, commit):
            return d
    args.cache.mkdir(parents=True, exist_ok=True)
    d = args.cache / f"{name}.git"
    try:
        if not d.exists():
            subprocess.run(["git", "clone", "--bare", "--quiet", url, str(d)], check=True, timeout=1200)
        elif not has_commit(d, commit):
            subprocess.run(["git", "--git-dir", str(d), "fetch", "--quiet", "origin", commit],
                           check=True, timeout=1200)
    except (subprocess.SubprocessError, OSError) as e:
        sys.exit(f"{url} at {commit[:12]}: no --git-dir holds it and it cannot be cloned ({e})")
    if not has_commit(d, commit):
        sys.exit(f"{url}: {d} has no commit {commit}")
    return d


def blobs(git_dir, commit, under=""):
    """(path, blob id) of every file at `commit`, in path order."""
    args = ["ls-tree", "-r", "-z", commit] + ([under] if under else [])
    out = []
    for entry in git(git_dir, *args, binary=True).decode().split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        _, kind, blob = meta.split()
        if kind == "blob":
            out.append((path, blob))
    return sorted(out)


def blob(git_dir, blob_id):
    """A blob's bytes, or None when the mirror lacks it (a snapshot may
    list its largest files without holding them)."""
    try:
        return git(git_dir, "cat-file", "blob", blob_id, binary=True)
    except subprocess.CalledProcessError:
        return None


def fresh(folder):
    """`folder`, made and emptied of the files a previous build wrote."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if f.is_file():
            f.unlink()
    return folder


def cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if value != int(value) else f"{value:.1f}"
    return " ".join(str(value).split())


def write_manifest(path, columns, rows):
    """A TSV of `columns` (the first `file`), one row a dict; tabs and line
    breaks in a value become spaces."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        w.writerow(columns)
        for row in rows:
            w.writerow([cell(row.get(c)) for c in columns])


def write_schema(path, schema):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")


def values(rows, fields):
    """Scored values: the cells of `fields` that are not empty, per field and in all."""
    per = {f: sum(1 for r in rows if cell(r.get(f))) for f in fields}
    return sum(per.values()), per


def report(label, rows, fields):
    total, per = values(rows, fields)
    print(f"{label}: {len(rows)} documents, {total} values ("
          + ", ".join(f"{f} {n}" for f, n in per.items()) + ")")
