#!/usr/bin/env bash
# `cargo test` of the workspace with the real llama.cpp tier: the ignored
# tests are the ones that need the local model server or a keychain, so
# they run here, in a private D-Bus session with its own GNOME Keyring,
# kept in a scratch folder (no real keys touched, and no keyring left from
# an earlier run to unlock). Needs scripts/setup.sh --all first.
#
#   bash scripts/test-rust.sh        (scripts/test.sh and tests/load/run.sh run it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
keyring_home="$(mktemp -d)"
trap 'rm -rf "$keyring_home"' EXIT
dbus-run-session -- bash -c '
  printf sift-tests | XDG_DATA_HOME="$1" gnome-keyring-daemon --unlock --components=secrets >/dev/null
  cargo test --workspace --locked -- --include-ignored
' keyring "$keyring_home" 2> >(grep -v "Failed to set fd limit" >&2)
