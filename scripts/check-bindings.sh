#!/usr/bin/env bash
# The IPC's TypeScript types (ui/src/bindings, generated from the Rust types
# with ts-rs) must be the committed ones: regenerate them and fail on any
# difference, a changed, missing or new file.
#
#   bash scripts/check-bindings.sh      (scripts/test.sh and CI run it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo test -q -p sift-app --lib --locked bindings >/dev/null
if ! git diff --exit-code --stat -- ui/src/bindings \
  || [ -n "$(git status --porcelain --untracked-files=all -- ui/src/bindings)" ]; then
  git status --short -- ui/src/bindings >&2
  echo "check-bindings: ui/src/bindings differs from the Rust types: run 'cargo test -p sift-app --lib bindings' and commit the result" >&2
  exit 1
fi
echo "check-bindings: ui/src/bindings is current"
