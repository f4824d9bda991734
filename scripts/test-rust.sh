#!/usr/bin/env bash
# `cargo test` of the workspace with the real llama.cpp tier: the ignored
# tests are the ones that need the local model server or a keychain, so
# they run here, in a private D-Bus session with its own GNOME Keyring,
# kept in a scratch folder (no real keys touched, and no keyring left from
# an earlier run to unlock). Needs scripts/setup.sh --all first.
#
#   bash scripts/test-rust.sh        (scripts/test.sh and tests/load/run.sh run it)
#
# The private bus starts no service on demand. With the standard session
# config, the first client to ask for the Secret Service before our daemon
# had claimed the name got a second daemon started by D-Bus, one without
# the unlocked login keyring, and every keychain test then failed with
# "no result found" (CI, stop 40). Here the only Secret Service is the one
# this script starts, and the tests wait until it holds the name and
# answers with its login collection.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cat > "$scratch/bus.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
mkdir -p "$scratch/keyrings"
dbus-run-session --config-file="$scratch/bus.conf" -- bash -c '
  set -euo pipefail
  scratch="$1"
  printf sift-tests | XDG_DATA_HOME="$scratch/keyrings" \
    gnome-keyring-daemon --foreground --unlock --components=secrets \
    >/dev/null 2>"$scratch/keyring.log" &
  daemon=$!
  has_owner() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q "boolean true"
  }
  # Polls the bus, not the clock: the loop ends when the daemon holds the
  # name or when it has exited.
  until has_owner; do
    if ! kill -0 "$daemon" 2>/dev/null; then
      echo "gnome-keyring-daemon exited before it held org.freedesktop.secrets:" >&2
      cat "$scratch/keyring.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  default="$(dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
    org.freedesktop.Secret.Service.ReadAlias string:default | tail -1)"
  case "$default" in
    *collection/login*) ;;
    *) echo "the test keyring has no default collection ($default)" >&2; exit 1 ;;
  esac
  status=0
  cargo test --workspace --locked -- --include-ignored || status=$?
  if ! kill -0 "$daemon" 2>/dev/null; then
    echo "gnome-keyring-daemon exited during the tests:" >&2
    cat "$scratch/keyring.log" >&2
    status=1
  fi
  kill "$daemon" 2>/dev/null || true
  exit "$status"
' keyring "$scratch" 2> >(grep -v "Failed to set fd limit" >&2)
