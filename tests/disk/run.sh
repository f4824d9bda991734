#!/usr/bin/env bash
# A full disk and a read-only database: `sift extract` on a 600 KB tmpfs,
# against the scripted model server, until the disk is full. The error
# names the file and the cause; what was stored before is intact
# (integrity_check ok, every stored row whole); a resume with room
# completes every document with nothing duplicated; with the file system
# read-only, a new job is refused with the file named, and reading works.
#
#   bash tests/disk/run.sh    # as root, or a user with sudo (for mount)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
fail() { printf 'disk: FAILED: %s\n' "$*" >&2; exit 1; }

cargo build -q --locked -p sift-cli -p sift-scripted-server --manifest-path "$ROOT/Cargo.toml"
SIFT="$TARGET/debug/sift"
WORK="$(mktemp -d)"
MNT="$WORK/mnt"
mkdir -p "$MNT" "$WORK/docs"
cleanup() {
  kill "${server_pid:-}" 2>/dev/null || true
  as_root umount "$MNT" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# 400 documents of 3 KB each: far more than 600 KB of results and calls.
for i in $(seq 1 400); do
  printf 'INVOICE INV-%04d\nTotal due: %d.50 EUR\n%s\n' "$i" "$i" "$(head -c 3000 /dev/zero | tr '\0' x)" >"$WORK/docs/d$i.txt"
done
cat >"$WORK/script.json" <<'JSON'
{"models": {"m": [{"tool_calls": [{"name": "submit_output", "arguments": {"number": "INV-1", "total": 1.5}}], "repeat": true}]}}
JSON
echo '{"type":"object","properties":{"number":{"type":"string"},"total":{"type":"number"}},"required":["number","total"]}' >"$WORK/schema.json"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$TARGET/debug/sift-scripted-server" --port "$port" --script "$WORK/script.json" >"$WORK/server.log" 2>&1 &
server_pid=$!
until curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || fail "the scripted server did not start"
  sleep 0.1
done
sift() {
  env -u SIFT_PROVIDER -u SIFT_BASE_URL -u SIFT_MODEL OPENAI_API_KEY=test SIFT_CONFIG="$WORK/none.toml" \
    "$SIFT" --db "$MNT/sift.db" "$@"
}
extract() {
  sift extract --provider openai --base-url "http://127.0.0.1:$port/v1" --model m --jobs 1 "$@"
}
db() { sqlite3 "$MNT/sift.db" "$1"; }

as_root mount -t tmpfs -o size=600k tmpfs "$MNT"
status=0
extract --schema "$WORK/schema.json" "$WORK"/docs/*.txt >"$WORK/full.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "exit $status on a full disk (expected 1): $(tail -n 3 "$WORK/full.out")"
expected="error (other): storage: cannot write the database $MNT/sift.db: the disk is full; nothing of this change was stored, and what was stored before is intact"
[ "$(tail -n 1 "$WORK/full.out")" = "$expected" ] || fail "the last line was: $(tail -n 1 "$WORK/full.out")"
[ "$(db 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after a full disk"
stored="$(db "SELECT count(*) FROM extraction_documents WHERE status = 'completed'")"
[ "$stored" -gt 0 ] || fail "nothing was stored before the disk was full"
whole="$(db "SELECT count(*) FROM extraction_documents WHERE status = 'completed' AND json_extract(\"values\", '\$.number') = 'INV-1' AND json_extract(\"values\", '\$.total') = 1.5")"
[ "$whole" = "$stored" ] || fail "$stored completed rows, $whole of them whole"
job="$(db 'SELECT id FROM extraction_jobs')"

# Room again: the resume completes every document, none twice.
as_root mount -o remount,size=64m "$MNT"
extract --resume "$job" >"$WORK/resume.out" 2>&1 || fail "the resume failed: $(tail -n 3 "$WORK/resume.out")"
[ "$(db "SELECT count(*) FROM extraction_documents WHERE status = 'completed'")" = 400 ] || fail "not every document completed on the resume"
[ "$(db 'SELECT count(*) FROM extraction_documents')" = 400 ] || fail "documents were duplicated"
[ "$(db 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after the resume"

# Read-only: a new job is refused, the file named, nothing changed.
as_root mount -o remount,ro "$MNT"
status=0
extract --schema "$WORK/schema.json" "$WORK/docs/d1.txt" >"$WORK/ro.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "exit $status on a read-only file system (expected 1)"
expected="error (other): storage: cannot write the database $MNT/sift.db: it is read-only (the file, its folder or its file system cannot be written); nothing of this change was stored, and what was stored before is intact"
[ "$(tail -n 1 "$WORK/ro.out")" = "$expected" ] || fail "the last line was: $(tail -n 1 "$WORK/ro.out")"
# (SQLite reads a WAL database on a read-only file system only as immutable.)
ro="file:$MNT/sift.db?immutable=1"
[ "$(sqlite3 "$ro" 'SELECT count(*) FROM extraction_jobs')" = 1 ] || fail "a job was added on a read-only file system"
[ "$(sqlite3 "$ro" "SELECT count(*) FROM extraction_documents WHERE status = 'completed'")" = 400 ] || fail "rows changed on a read-only file system"
echo "disk: full and read-only databases: the file and the cause named, $stored rows intact, the resume completed all 400"
