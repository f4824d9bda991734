"""Which ground-truth values of the corpus's scans and photos a text holds.

A port of the rules of crates/documents/tests/documents/ocr_fidelity.rs
(`misses`, `date_renderings`, `renderings`), so that the readings of
scripts/bench-paddle-ocr.sh and scripts/bench-ocr-values.sh are judged as
the fidelity test judges Sift's.

    python3 bench/ocr-values.py MANIFEST.tsv ENGINE_DIR
ENGINE_DIR holds FILE.txt for each corpus FILE; prints one line per
document (found/checked and the misses), then the total.
"""
import sys
from pathlib import Path

MONTHS = [
    ["January", "Jan", "Januar", "Jan"], ["February", "Feb", "Februar", "Feb"],
    ["March", "Mar", "März", "Mär"], ["April", "Apr", "April", "Apr"],
    ["May", "May", "Mai", "Mai"], ["June", "Jun", "Juni", "Jun"],
    ["July", "Jul", "Juli", "Jul"], ["August", "Aug", "August", "Aug"],
    ["September", "Sep", "September", "Sept"], ["October", "Oct", "Oktober", "Okt"],
    ["November", "Nov", "November", "Nov"], ["December", "Dec", "Dezember", "Dez"],
]
CURRENCIES = {"USD": ["USD", "$"], "EUR": ["EUR", "€"], "INR": ["INR", "₹", "Rs"], "CHF": ["CHF"], "MYR": ["MYR", "RM"]}


def squeeze(text):
    return "".join(c for c in text if not c.isspace())


def number(s):
    try:
        return int(s)
    except ValueError:
        return 0


def date_renderings(date):
    parts = date.replace("/", "-").replace(".", "-").split("-")
    if len(parts) != 3:
        return [date]
    a, b, c = parts
    year, month, day = (a, number(b), number(c)) if len(a) == 4 else (c, number(b), number(a))
    out = []
    for y in (year, year[-2:]):
        for d in (f"{day:02}", str(day)):
            for m in (f"{month:02}", str(month)):
                for sep in "/.-":
                    out += [f"{d}{sep}{m}{sep}{y}", f"{m}{sep}{d}{sep}{y}", f"{y}{sep}{m}{sep}{d}"]
            if 1 <= month <= 12:
                for name in MONTHS[month - 1]:
                    out += [f"{d}{name}{y}", f"{d}.{name}{y}", f"{d}-{name}-{y}", f"{name}{d},{y}", f"{name}{d}{y}"]
    return out


def renderings(amount):
    amount = amount.lstrip("-")
    whole, _, frac = amount.partition(".")
    fracs = [frac.ljust(2, "0")]
    if frac.rstrip("0") == "":
        fracs.append("")
    out = []
    for group in ["", ",", ".", " ", "\u00a0", "'", "`", "\u202f"]:
        grouped = ""
        for i, c in enumerate(whole):
            if i > 0 and (len(whole) - i) % 3 == 0:
                grouped += group
            grouped += c
        for f in fracs:
            out += [grouped] if f == "" else [f"{grouped}.{f}", f"{grouped},{f}"]
    return out


def misses(truth, text):
    squeezed = squeeze(text)
    lower = squeezed.lower()
    checked, missed = 0, []
    num = squeeze(truth["number"].lstrip("#"))
    if num:
        checked += 1
        if num not in squeezed:
            missed.append(f"the number {truth['number']!r}")
    if truth["date"]:
        checked += 1
        if not any(squeeze(d).lower() in lower for d in date_renderings(truth["date"])):
            missed.append(f"the date {truth['date']!r}")
    if truth["total"]:
        checked += 1
        if not any(r in text or squeeze(r) in squeezed for r in renderings(truth["total"])):
            missed.append(f"the total {truth['total']!r}")
    if truth["currency"]:
        checked += 1
        if not any(c in squeezed for c in CURRENCIES.get(truth["currency"], [])):
            missed.append(f"the currency {truth['currency']!r}")
    return checked, missed


def main(manifest, engine_dir):
    found_all = checked_all = 0
    for line in Path(manifest).read_text().splitlines()[1:]:
        f = line.split("\t")
        if len(f) <= 7 or not (f[5] or f[7]) or f[4] not in ("image", "scanned-pdf"):
            continue
        truth = {"file": f[0], "number": f[5], "date": f[6], "total": f[7], "currency": f[8] if len(f) > 8 else ""}
        path = Path(engine_dir) / f"{f[0]}.txt"
        text = path.read_text() if path.exists() else ""
        checked, missed = misses(truth, text)
        found_all += checked - len(missed)
        checked_all += checked
        print(f"{f[0]}\t{checked - len(missed)}/{checked}\t{'; '.join(missed)}")
    print(f"total\t{found_all}/{checked_all}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
