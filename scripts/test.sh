#!/usr/bin/env bash
# Runs every test Sift has, after installing what they need (idempotent).
#
#   scripts/test.sh
#
# Order: the cheap checks first (format, lint), then the Rust tests
# (including the real llama.cpp tier), then the UI's own tests, then the
# desktop window under Xvfb, then the Debian package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# A clean clone gains nothing from rustc's incremental caches, and they were
# half of target/ (11 of 22 GB): a CI run ran out of disk building the
# package. A developer who wants them sets CARGO_INCREMENTAL=1.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

step "set-up"
bash scripts/setup.sh --all

step "model downloads: a substituted, damaged or missing part is refused"
bash tests/models/get-model.sh

step "cargo fmt"
cargo fmt --all --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "core's and the locator's API docs (every public item documented, every link resolves)"
RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -D rustdoc::private_intra_doc_links" \
  cargo doc -p sift-core -p sift-locate --no-deps --locked --quiet

step "no import cycles between the files or rooms of a crate (and the checker finds its fixtures' circles)"
python3 tests/import-cycles/test_fixtures.py
python3 scripts/check-import-cycles.py

step "the locator's rule catalogue (docs/LOCATOR_RULES.md, regenerated, must equal the committed one)"
python3 scripts/locator-rules.py --check

step "IPC bindings (regenerated, must equal the committed ones)"
bash scripts/check-bindings.sh

step "UI: type check, unit tests, build"
(cd ui && npm run --silent build && npm test --silent)

step "UI in Chromium (Playwright, IPC mocked)"
(cd ui && npm run --silent test:browser)

step "cargo test (with the real llama.cpp tier)"
bash scripts/test-rust.sh

step "a full disk and a read-only database (tmpfs)"
bash tests/disk/run.sh

step "hostile files: refused or read, under 500 MB and a time limit"
bash tests/badinputs/run.sh

step "desktop window under Xvfb (WebDriver), and the local model server with it"
bash tests/window/run.sh

step "the Debian package: built, installed, run on a fresh profile, removed"
# Builds the release app (several minutes the first time). Needs root, as
# CI has; SIFT_SKIP_PACKAGE=1 skips it on a machine where apt-get is not
# yours to run.
if [ "${SIFT_SKIP_PACKAGE:-0}" != 1 ]; then
  bash tests/package/run.sh
fi
