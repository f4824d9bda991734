#!/usr/bin/env python3
"""What a reader process needs (docs/BENCHMARKS.md, "A reader process's
memory and time"): each file of a corpus read alone by `sift read --json
--ocr always` (so in a reader process, with OCR and an empty cache, as an
extraction reads), and for its reader process the wall time, the peak
address space (VmPeak, what RLIMIT_AS bounds) and the peak resident set
(VmHWM), read from /proc every 20 ms while it runs (both are high-water
marks the kernel keeps, so only growth in the last 20 ms can be missed).

    scripts/bench-reader-limits.py CORPUS_DIR [FILE ...]
    SIFT=target/release/sift scripts/bench-reader-limits.py ../shared/corpus
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

READER_ARGUMENT = "__read-document"


def readers_of(parent_pid):
    """The reader processes `parent_pid` started, by pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != parent_pid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if READER_ARGUMENT.encode() in f.read().split(b"\0"):
                    found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(sift, data, path):
    shutil.rmtree(os.path.join(data, "ocr-cache"), ignore_errors=True)
    env = dict(os.environ, SIFT_DATA_DIR=data)
    started = time.monotonic()
    process = subprocess.Popen(
        [sift, "read", "--json", "--ocr", "always", path],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    peak = {"VmPeak": 0, "VmHWM": 0}
    while process.poll() is None:
        for reader in readers_of(process.pid):
            for field in peak:
                peak[field] = max(peak[field], status_kib(reader, field))
        time.sleep(0.02)
    seconds = time.monotonic() - started
    err = process.stderr.read().decode(errors="replace").strip()
    status = "read" if process.returncode == 0 else "refused: " + err.split(": ", 2)[-1]
    return seconds, peak["VmPeak"] // 1024, peak["VmHWM"] // 1024, status


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    corpus = sys.argv[1]
    names = sys.argv[2:] or sorted(os.listdir(corpus))
    sift = os.environ.get("SIFT", "target/release/sift")
    home_data = os.environ.get(
        "SIFT_DATA_DIR", os.path.expanduser("~/.local/share/sift")
    )
    with tempfile.TemporaryDirectory() as data:
        # PDFium and PaddleOCR's models from the data directory; no OCR cache.
        for part in ("lib", "paddle"):
            if os.path.exists(os.path.join(home_data, part)):
                os.symlink(os.path.join(home_data, part), os.path.join(data, part))
        print("file\tseconds\tvm_peak_mib\trss_peak_mib\tstatus")
        for name in names:
            seconds, vm, rss, status = measure(sift, data, os.path.join(corpus, name))
            print(f"{name}\t{seconds:.1f}\t{vm}\t{rss}\t{status}", flush=True)


if __name__ == "__main__":
    main()
