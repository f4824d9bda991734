#!/usr/bin/env bash
# Builds Sift's Debian package with Tauri's bundler:
#
#   scripts/package.sh        -> target/release/bundle/deb/Sift_VERSION_amd64.deb
#
# The package holds the app (/usr/bin/sift-app), the `sift` CLI
# (/usr/bin/sift) and, in /usr/lib/sift (the bundle directory the engine
# looks in, see crates/documents/src/platform.rs): PDFium, llama.cpp's
# llama-server and the default model, Qwen2.5-Coder-1.5B-Instruct (the
# file DEFAULT_MODEL_FILE names in crates/llm/src/local_server/mod.rs), with
# their licences in /usr/share/doc/sift/licenses. All of them come from what
# scripts/setup.sh installs from the registries that reach these machines
# (PyPI wheels and sdists, crates.io, npm, Debian's apt); nothing else is
# downloaded. AppImage is not built: its tools download from GitHub.
#
# llama-server goes into /usr/lib/sift rather than being a Tauri sidecar:
# a .deb sidecar lands in /usr/bin beside the app, where Debian's own
# llama.cpp packages put their llama-server.
#
# Idempotent; the release build takes several minutes the first time.
# Prints the package's path on the last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA_DIR="${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/sift"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
STAGE="$TARGET/package"
# The default model: the one file the engine starts when the user chose none.
MODEL_FILE="$(python3 "$ROOT/scripts/get-model.py" default --file-name)"

log() { printf '\033[1mpackage:\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1mpackage: error:\033[0m %s\n' "$*" >&2; exit 1; }

# PDFium, llama-server, the model and the sources their licences come from.
"$ROOT/scripts/setup.sh" --app

log "staging the bundled files in $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE/licenses/pdfium"
for f in "$DATA_DIR/lib/libpdfium.so" "$DATA_DIR/llama.cpp/bin/llama-server" "$DATA_DIR/models/$MODEL_FILE" \
  "$DATA_DIR"/paddle/{libonnxruntime.so,ch_PP-OCRv4_det_infer.onnx,ch_PP-OCRv4_rec_infer.onnx}; do
  [ -f "$f" ] || die "$f is missing: scripts/setup.sh --app installs it"
done
pdfium_wheel="$(ls "$CACHE_DIR"/wheels/pypdfium2-*manylinux*x86_64*.whl 2>/dev/null | head -n1 || true)"
llama_src="$(ls -d "$CACHE_DIR"/llama-cpp-python-*/vendor/llama.cpp 2>/dev/null | head -n1 || true)"
[ -n "$pdfium_wheel" ] && [ -n "$llama_src" ] \
  || die "the downloads scripts/setup.sh caches in $CACHE_DIR are missing: remove $DATA_DIR/lib and run it again"
# The model's licence: Qwen release it under Apache-2.0, whose text Debian
# keeps in base-files (the part wheels it comes in declare none), and the
# credit with where the file comes from and its digest, from the catalogue.
# The files are named after the model's title without its quantisation
# ("Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)" -> Qwen2.5-Coder-1.5B-Instruct.LICENSE).
model_name="$(python3 - "$ROOT/crates/core/src/models/catalogue.toml" "$MODEL_FILE" <<'PY'
import sys, tomllib
model = next(m for m in tomllib.load(open(sys.argv[1], "rb"))["model"] if m["file"] == sys.argv[2])
print(model["title"].split(" (")[0])
PY
)"
cp /usr/share/common-licenses/Apache-2.0 "$STAGE/licenses/$model_name.LICENSE"
python3 - "$ROOT/crates/core/src/models/catalogue.toml" "$MODEL_FILE" >"$STAGE/licenses/$model_name.NOTICE" <<'PY'
import sys, tomllib
model = next(m for m in tomllib.load(open(sys.argv[1], "rb"))["model"] if m["file"] == sys.argv[2])
print(f"{model['title']}: {model['credit']}, licensed under {model['licence']} (see the .LICENSE file beside this one).")
print(f"The file {model['file']} ({model['size_bytes']} bytes, sha256 {model['sha256']}) is Qwen's own, as published at")
print(model["vendor_url"])
print("It was fetched from PyPI in part wheels, each pinned by sha256, and checked against that digest.")
PY
cp "$llama_src/LICENSE" "$STAGE/licenses/llama.cpp.LICENSE"
unzip -q -o -j "$pdfium_wheel" '*.dist-info/licenses/BUILD_LICENSES/pdfium.txt' \
  '*.dist-info/licenses/BUILD_LICENSES/*.txt' -d "$STAGE/licenses/pdfium" 2>/dev/null || true
[ -f "$STAGE/licenses/pdfium/pdfium.txt" ] || die "PDFium's licence is not in $pdfium_wheel"
# PaddleOCR's models (Apache-2.0, as the rapidocr-onnxruntime wheel's
# metadata says) and ONNX Runtime (MIT, with its third-party notices).
rapidocr_wheel="$(ls "$CACHE_DIR"/wheels/rapidocr_onnxruntime-*.whl 2>/dev/null | head -n1 || true)"
ort_wheel="$(ls "$CACHE_DIR"/wheels/onnxruntime-*manylinux*x86_64*.whl 2>/dev/null | head -n1 || true)"
[ -n "$rapidocr_wheel" ] && [ -n "$ort_wheel" ] \
  || die "the PaddleOCR downloads scripts/setup.sh caches in $CACHE_DIR are missing: remove $DATA_DIR/paddle and run it again"
mkdir -p "$STAGE/licenses/onnxruntime"
unzip -q -o -j "$ort_wheel" 'onnxruntime/LICENSE' 'onnxruntime/ThirdPartyNotices.txt' -d "$STAGE/licenses/onnxruntime"
unzip -q -o -p "$rapidocr_wheel" '*.dist-info/METADATA' >"$STAGE/licenses/PaddleOCR-models.METADATA"
cp "$ROOT/README.md" "$STAGE/README.md"

log "building the sift CLI (release)"
cargo build --release --locked -q -p sift-cli --manifest-path "$ROOT/Cargo.toml"

# The package's extra files and its dependencies, merged into
# tauri.conf.json for this build only (the paths are this machine's).
python3 - "$STAGE" "$DATA_DIR" "$TARGET" "$MODEL_FILE" >"$STAGE/tauri.package.json" <<'PY'
import json, os, sys
stage, data, target, model = sys.argv[1:]
files = {
    "/usr/bin/sift": f"{target}/release/sift",
    "/usr/lib/sift/libpdfium.so": f"{data}/lib/libpdfium.so",
    "/usr/lib/sift/llama-server": f"{data}/llama.cpp/bin/llama-server",
    f"/usr/lib/sift/models/{model}": f"{data}/models/{model}",
    **{f"/usr/lib/sift/paddle/{name}": f"{data}/paddle/{name}" for name in
       ["libonnxruntime.so", "ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx"]},
    "/usr/share/doc/sift/README.md": f"{stage}/README.md",
}
for root, _, names in os.walk(f"{stage}/licenses"):
    for name in names:
        path = os.path.join(root, name)
        files["/usr/share/doc/sift/licenses/" + os.path.relpath(path, f"{stage}/licenses")] = path
print(json.dumps({"bundle": {"linux": {"deb": {
    # Tauri adds WebKitGTK and GTK itself. OCR: Tesseract with English and
    # orientation detection; llama-server: OpenMP, OpenSSL, libstdc++; the
    # keychain: D-Bus and a Secret Service (recommended: a desktop has one).
    "depends": ["tesseract-ocr", "tesseract-ocr-eng", "tesseract-ocr-osd",
                "libgomp1", "libssl3", "libstdc++6", "libdbus-1-3", "util-linux"],
    "recommends": ["gnome-keyring | kwalletmanager | keepassxc"],
    "section": "science",
    "files": files,
}}}}, indent=2))
PY

log "building the app and the package (tauri build --bundles deb)"
(cd "$ROOT/ui" && npm run --silent tauri -- build --bundles deb --config "$STAGE/tauri.package.json" -- -p sift-app) \
  >"$STAGE/build.log" 2>&1 || { tail -40 "$STAGE/build.log" >&2; die "the build failed (log: $STAGE/build.log)"; }
deb="$(ls -t "$TARGET"/release/bundle/deb/*.deb 2>/dev/null | head -n1 || true)"
[ -n "$deb" ] || die "tauri build reported success but left no .deb in $TARGET/release/bundle/deb"
log "built $deb ($(du -h "$deb" | cut -f1))"
echo "$deb"
