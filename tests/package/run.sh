#!/usr/bin/env bash
# The Debian package as a user gets it: built by scripts/package.sh,
# installed with apt-get, run with an empty HOME from another directory
# while the checkout's target/ is moved away, then removed.
#
#   bash tests/package/run.sh        (scripts/test.sh runs it; needs root)
#
# Checks:
# - the package holds the app, the CLI, PDFium, llama-server, the default
#   model, PaddleOCR's models with ONNX Runtime, and their licences, and
#   depends on Tesseract and the keychain;
# - `sift read` and `sift extract` from the package work on corpus files,
#   the extraction with the bundled local model;
# - the window opens on Extract on a fresh profile, and a newcomer drops
#   a corpus invoice, picks the starter "invoice" schema, gets a row from
#   the bundled local model and exports the CSV
#   (tests/package/first-run.test.mjs); neither the app nor its model
#   server maps or opens a file of the checkout;
# - removing the package removes its files and keeps the user's data.
# A clean root (debootstrap) is not made here: it would download Debian
# from the network for every run. The empty HOME, the other directory and
# the moved target/ stand in for it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
fail() { printf 'package suite: FAILED: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "installing a package needs root"
CORPUS="$(cd "$ROOT/../shared/corpus" 2>/dev/null && pwd)" || fail "the corpus is not at ../shared/corpus"
[ -d "$ROOT/tests/window/node_modules/webdriverio" ] || (cd "$ROOT/tests/window" && npm ci --no-audit --no-fund --loglevel=error)
DRIVER="$(command -v tauri-driver)" || fail "tauri-driver is missing: scripts/setup.sh installs it"

deb="$(bash "$ROOT/scripts/package.sh" | tail -n1)"
WORK="$(mktemp -d /tmp/sift-package-XXXXXX)"
cp "$deb" "$WORK/"
deb="$WORK/$(basename "$deb")"
echo "package suite: installing $(basename "$deb")"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "$deb" >"$WORK/apt-install.log" 2>&1 \
  || { tail -20 "$WORK/apt-install.log" >&2; fail "apt-get install failed"; }

# What the package holds and needs.
for f in /usr/bin/sift-app /usr/bin/sift /usr/lib/sift/libpdfium.so /usr/lib/sift/llama-server \
  /usr/lib/sift/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
  /usr/share/doc/sift/licenses/Qwen2.5-Coder-1.5B-Instruct.LICENSE \
  /usr/share/doc/sift/licenses/Qwen2.5-Coder-1.5B-Instruct.NOTICE /usr/share/doc/sift/licenses/llama.cpp.LICENSE \
  /usr/share/doc/sift/licenses/pdfium/pdfium.txt /usr/lib/sift/paddle/libonnxruntime.so \
  /usr/lib/sift/paddle/ch_PP-OCRv4_det_infer.onnx /usr/lib/sift/paddle/ch_PP-OCRv4_rec_infer.onnx \
  /usr/share/doc/sift/licenses/onnxruntime/LICENSE /usr/share/doc/sift/licenses/PaddleOCR-models.METADATA; do
  dpkg -S "$f" >/dev/null 2>&1 || fail "the package does not hold $f"
done
depends="$(dpkg-query -W -f='${Depends}' sift)"
for d in libwebkit2gtk-4.1-0 tesseract-ocr tesseract-ocr-eng libdbus-1-3; do
  grep -q "$d" <<<"$depends" || fail "Depends does not name $d: $depends"
done
grep -q "Apache License" /usr/share/doc/sift/licenses/Qwen2.5-Coder-1.5B-Instruct.LICENSE || fail "the model's licence is not Apache-2.0's text"
grep -q "^Qwen2.5-Coder-1.5B-Instruct (Q4_K_M): Qwen2.5-Coder by the Qwen team, Alibaba Cloud, licensed under Apache-2.0" \
  /usr/share/doc/sift/licenses/Qwen2.5-Coder-1.5B-Instruct.NOTICE || fail "the model's credit to Qwen: $(cat /usr/share/doc/sift/licenses/Qwen2.5-Coder-1.5B-Instruct.NOTICE)"
[ "$(sha256sum /usr/lib/sift/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf | cut -d' ' -f1)" = cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 ] \
  || fail "the bundled model is not Qwen's file"

# A user with nothing: an empty HOME, another directory, no Sift variable,
# and no target/ to fall back on.
export HOME="$WORK/home"
mkdir -p "$HOME"
unset XDG_DATA_HOME XDG_CONFIG_HOME XDG_CACHE_HOME
for v in $(env | sed -n 's/^\(SIFT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
restore() { [ -d "$ROOT/target.package-test" ] && mv "$ROOT/target.package-test" "$ROOT/target"; true; }
trap restore EXIT
[ -d "$ROOT/target" ] && mv "$ROOT/target" "$ROOT/target.package-test"
cd "$WORK"
# The local server on a port of its own, so no other server answers for it.
SIFT_LOCAL_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
export SIFT_LOCAL_PORT

# The CLI from the package.
sift read "$CORPUS/i2d_AmazonWebServices.pdf" >"$WORK/read.txt" || fail "sift read failed"
grep -q "42183017" "$WORK/read.txt" || fail "sift read did not give the invoice's text: $(head -c 400 "$WORK/read.txt")"
# A receipt photo's words, read by the package's PaddleOCR and ONNX Runtime.
sift read --ocr always --text-only "$CORPUS/sroie_000.jpg" >"$WORK/receipt.txt" || fail "sift read of a receipt photo failed"
grep -q "9.00" "$WORK/receipt.txt" || fail "sift read did not give the receipt's total: $(head -c 400 "$WORK/receipt.txt")"
cat >"$WORK/invoice.json" <<'JSON'
{"type": "object",
 "properties": {"invoice_number": {"type": "string", "description": "The invoice's number"},
                "total": {"type": "number", "description": "The amount due"}},
 "required": ["invoice_number", "total"]}
JSON
# The default answers mode (hybrid) takes the locator's values and asks the
# bundled model for any field the locator did not find; a model answer cut
# at its token bound leaves those fields for review and the row completed.
# So the row is the document's, completed (exit 0); any other outcome (the
# server, PDFium, the store) fails the suite.
rc=0
sift extract --schema "$WORK/invoice.json" --csv "$WORK/cli.csv" "$CORPUS/i2d_AmazonWebServices.pdf" 2>"$WORK/extract.err" || rc=$?
# CSV lines end in CRLF (RFC 4180).
[ "$(head -n1 "$WORK/cli.csv")" = $'file,invoice_number,total,status,error\r' ] || fail "the CLI's CSV header: $(head -n1 "$WORK/cli.csv")"
[ "$(wc -l <"$WORK/cli.csv")" -eq 2 ] || fail "the CLI's CSV has not one row: $(cat "$WORK/cli.csv")"
row="$(sed -n 2p "$WORK/cli.csv" | tr -d '\r')"
case "$rc:$row" in
  "0:$CORPUS/i2d_AmazonWebServices.pdf,"*",completed,") ;;
  *) cat "$WORK/extract.err" >&2; fail "sift extract with the bundled local model (exit $rc), its CSV row: $row" ;;
esac
echo "package suite: the CLI extracted with the bundled model: $row"
# PDFium runs only in reader processes (`sift __read-document`), loaded
# from the package's own copy: the dynamic loader's log of every process
# of one read names the library it loaded.
mkdir -p "$WORK/ld"
LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/ld/log" sift read "$CORPUS/i2d_AmazonWebServices.pdf" >/dev/null 2>&1 \
  || fail "sift read failed under the loader's log"
pdfium="$(grep -ho 'file=[^ ]*libpdfium[^ ]*' "$WORK"/ld/log.* | sort -u)"
[ "$pdfium" = "file=/usr/lib/sift/libpdfium.so" ] || fail "PDFium was loaded from: ${pdfium:-nowhere}"
[ -f "$HOME/.local/share/sift/sift.db" ] || fail "the CLI did not create its database in the data directory"

# The window, on a fresh profile (the CLI's database is moved away, so the
# app starts with a new one, as on a first run).
mv "$HOME/.local/share/sift/sift.db" "$WORK/cli.db"
rm -f "$HOME/.local/share/sift/sift.db-wal" "$HOME/.local/share/sift/sift.db-shm"
export SIFT_PACKAGE_OUT="$WORK" SIFT_PACKAGE_INVOICE="$CORPUS/i2d_AmazonWebServices.pdf" SIFT_PACKAGE_CHECKOUT="$ROOT"
# A release build answers no dialog from the environment: the test hooks
# (the `test-hooks` feature) are not compiled in.
if grep -q SIFT_TEST_ /usr/bin/sift-app; then fail "/usr/bin/sift-app holds the dialogs' test hooks (SIFT_TEST_*)"; fi
mkdir -p "$WORK/shots"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  "$1" --port 4444 --native-port 4445 >"$SIFT_PACKAGE_OUT/tauri-driver.log" 2>&1 &
  driver=$!
  trap "kill $driver 2>/dev/null || true" EXIT
  for _ in $(seq 600); do
    curl -sf http://127.0.0.1:4444/status >/dev/null && break
    sleep 0.1
  done
  node --test --test-concurrency=1 "$2/tests/package/first-run.test.mjs"
' package "$DRIVER" "$ROOT" || fail "the window test failed (see $WORK: tauri-driver.log, shots/)"
[ -f "$HOME/.local/share/sift/sift.db" ] || fail "the app did not create its database in the data directory"

# Removed: the program files go, the user's data stays.
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq sift >"$WORK/apt-remove.log" 2>&1 || fail "apt-get remove failed"
for f in /usr/bin/sift-app /usr/bin/sift /usr/lib/sift; do
  [ ! -e "$f" ] || fail "$f is still there after apt-get remove"
done
[ -f "$HOME/.local/share/sift/sift.db" ] || fail "removing the package removed the user's database"
echo "package suite: passed ($(basename "$deb"), $(du -h "$deb" | cut -f1))"
