#!/usr/bin/env python3
"""Fails when the modules of a crate import each other in a circle: two
files, or two rooms of a folder at any depth.

    scripts/check-import-cycles.py [--root DIR]

DIR (default: this repository) is a workspace, whose crates are
`crates/*/src` and `src-tauri`, or a single crate (`DIR/src/lib.rs`), as
the fixtures under `tests/import-cycles/` are. In each crate the module
tree is followed from its root (`lib.rs`, and `main.rs` as a crate of its
own) through its `mod x;` declarations.

An edge A -> B is drawn when file A refers to file B through a `use`
(`crate::…`, `super::…`, `self::…`, or a child module's name) or through a
path in code (`crate::b::f()`, `super::f()`). A name re-exported by
`pub use` is followed to the file that defines it, whichever way it is
reached: `use crate::Limits` (the crate root's re-export) and
`use super::locator::home_currency_place` (a folder's `mod.rs`) both point
at the file the item lives in. The facade a name is taken through counts
too (`use crate::settings::X` depends on `settings/mod.rs`, whose own
imports come with it).

What is not an import, and so draws no edge:
- `mod x;` and any reference from a module down into its own children
  (a parent owns them through the `mod` tree; only the way back up, a
  child using its parent, is an import), and `pub use` re-exports (a
  facade naming what it exposes);
- a reference that lands in the same file, such as `use super::*` in an
  inline `#[cfg(test)] mod tests { … }`;
- comments and string literals.

Two checks are made on these edges:
1. Files: a circle of files importing each other.
2. Rooms: the children of every folder (the crate's top level, `evidence/`,
   `evidence/locator/`, …) are its rooms, a child file or a child folder
   with everything below it, and an import from a file in one room to a
   file in another is an arrow between the two. Each import is an arrow
   in exactly one folder, the deepest one holding both of its files. A
   circle of rooms means an import runs back up from a lower room to a
   higher one even when no two files form a circle. That is the case the
   file check cannot see: `evidence/matching.rs` takes
   `home_currency_place` from `locator/country.rs` (through the
   re-export in `locator/mod.rs`) while `locator/propose.rs` and
   `dates.rs` take `Run` and `value_runs` from `matching.rs`; no file
   reaches back to the one it came from, but `matching.rs` and `locator/`
   need each other, so neither can be moved, tested or understood without
   the other. Checking only the top-level rooms missed it, because both
   sit in `evidence/`.
Each circle is listed with the file imports that draw its arrows (three
per arrow, and how many more), so the one running back up can be found.

Not followed: glob re-exports (`pub use x::*`), macros' paths, and names
of other crates (each crate is checked on its own).

Exits 1 listing every circle (one per strongly connected group of files,
or of the rooms of one folder), else prints how many crates and files it
checked and exits 0.
"""

import argparse
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments_and_strings(text):
    """The text with comments and string/char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)

    def blank(s):
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'(b?r)(#*)"', text[i:])
            end = '"' + m.group(2)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (c == "b" and text.startswith('b"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            m = re.match(r"'(\\(u\{[0-9A-Fa-f]+\}|x[0-9A-Fa-f]{2}|.)|[^\\'])'", text[i:], re.S)
            if m:
                out.append(blank(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_top(s, sep=","):
    """Splits on `sep` outside braces."""
    parts, depth, cur = [], 0, []
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def expand_use_tree(tree, prefix=()):
    """`a::{b, c::{self, d as e}}` -> [(path segments, name bound)]."""
    tree = tree.strip()
    if tree.startswith("::"):
        tree = tree[2:]
    brace = tree.find("{")
    if brace >= 0 and tree.endswith("}"):
        head = [s for s in tree[:brace].split("::") if s.strip()]
        head = tuple(s.strip() for s in head)
        leaves = []
        for part in split_top(tree[brace + 1:-1]):
            leaves.extend(expand_use_tree(part, prefix + head))
        return leaves
    alias = None
    m = re.match(r"(.*?)\s+as\s+(" + IDENT + r")$", tree, re.S)
    if m:
        tree, alias = m.group(1), m.group(2)
    segs = tuple(s.strip() for s in tree.split("::") if s.strip())
    if segs and segs[-1] == "self":
        segs = segs[:-1]
    path = prefix + segs
    if not path:
        return []
    return [(path, alias or path[-1])]


class Crate:
    def __init__(self, name, root_file):
        self.name = name
        self.files = {}  # module path (tuple) -> file
        self.text = {}  # module path -> stripped text
        self.reexports = {}  # module path -> {name: absolute segments}
        self._collect((), root_file)

    def _collect(self, module, path):
        if not os.path.exists(path):
            return
        self.files[module] = path
        with open(path, encoding="utf-8") as f:
            text = strip_comments_and_strings(f.read())
        self.text[module] = text
        base = os.path.dirname(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        # A non-root file `x.rs` keeps its children in `x/`.
        if module and stem != "mod":
            base = os.path.join(base, stem)
        for m in re.finditer(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", text):
            child = m.group(1)
            for candidate in (os.path.join(base, child + ".rs"), os.path.join(base, child, "mod.rs")):
                if os.path.exists(candidate):
                    self._collect(module + (child,), candidate)
                    break

    def inline_mod_depth(self, text):
        """For each offset, how many inline `mod x { … }` blocks enclose it."""
        opens = {m.end() - 1 for m in re.finditer(r"\bmod\s+" + IDENT + r"\s*\{", text)}
        depth_at, stack, depth = [], [], 0
        for i, c in enumerate(text):
            if c == "{":
                stack.append(i in opens)
                if i in opens:
                    depth += 1
            elif c == "}" and stack:
                if stack.pop():
                    depth -= 1
            depth_at.append(depth)
        return depth_at

    def absolute(self, module, segs, inline_depth):
        """Segments of a path written in `module` made absolute; None when
        the path is not into this crate or lands in the same file."""
        if not segs:
            return None
        first = segs[0]
        if first == "crate":
            return segs[1:]
        if first in ("self", "super"):
            rest = list(segs)
            supers = 0
            while rest and rest[0] in ("self", "super"):
                if rest.pop(0) == "super":
                    supers += 1
            # The first supers only leave inline modules of this same file.
            ups = supers - inline_depth
            if ups < 0 or (supers == 0 and inline_depth > 0):
                return None
            if ups > len(module):
                return None
            return module[: len(module) - ups] + tuple(rest)
        if module + (first,) in self.files:
            return module + tuple(segs)
        return None

    def target_files(self, segs, seen=None):
        """The modules (files) an absolute path depends on: the one it
        lands in, following re-exports, and every facade it passes through
        on the way (a name taken from `settings` depends on `settings/mod.rs`
        too: the facade's own imports come with it)."""
        seen = seen or set()
        module = ()
        i = 0
        while i < len(segs) and module + (segs[i],) in self.files:
            module += (segs[i],)
            i += 1
        if i < len(segs):
            name = segs[i]
            key = (module, name)
            target = self.reexports.get(module, {}).get(name)
            if target is not None and key not in seen:
                seen.add(key)
                return [module] + self.target_files(target + tuple(segs[i + 1:]), seen)
        return [module]

    def build_reexports(self):
        for module, text in self.text.items():
            exports = {}
            depth = self.inline_mod_depth(text)
            for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
                if depth[m.start()]:
                    continue
                for segs, bound in expand_use_tree(m.group(1)):
                    absolute = self.absolute(module, segs, 0)
                    if absolute is not None and segs[-1] != "*":
                        exports[bound] = absolute
            self.reexports[module] = exports

    def edges(self):
        self.build_reexports()
        edges = {}
        for module, text in self.text.items():
            depth = self.inline_mod_depth(text)
            refs = []
            uses = list(re.finditer(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text))
            for m in uses:
                if m.group(1):
                    continue  # a re-export: the facade, not a dependency
                for segs, _ in expand_use_tree(m.group(2)):
                    segs = tuple(s for s in segs if s != "*")
                    refs.append((segs, depth[m.start()]))
            covered = [(m.start(), m.end()) for m in uses]
            children = "|".join(re.escape(c[-1]) for c in self.files if len(c) == len(module) + 1 and c[:-1] == module)
            pattern = r"(?<![A-Za-z0-9_:])((?:crate|self|super)(?:::" + IDENT + r")+"
            if children:
                pattern += r"|(?:" + children + r")(?:::" + IDENT + r")+"
            pattern += r")"
            for m in re.finditer(pattern, text):
                if any(a <= m.start() < b for a, b in covered):
                    continue
                refs.append((tuple(m.group(1).split("::")), depth[m.start()]))
            for segs, inline_depth in refs:
                absolute = self.absolute(module, segs, inline_depth)
                if absolute is None:
                    continue
                for target in self.target_files(absolute):
                    # A module reaching into its own descendants goes through
                    # the `mod` tree it declared; only the way back up is an
                    # import.
                    if target[: len(module)] != module:
                        edges.setdefault(module, set()).add(target)
        return edges


def strongly_connected(nodes, edges):
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return groups


def one_cycle(group, edges):
    """A shortest cycle through the group's first file, as a list of modules."""
    members = set(group)
    start = group[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w == start:
                return paths[v] + [start]
            if w in members and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return group


def room_arrows(edges):
    """Each file import between two rooms, by the folder whose rooms they are.

    A folder's rooms are its children: a child file, or a child folder with
    everything below it. An import from file A to file B is an arrow between
    the rooms of the deepest folder holding both, so it is compared exactly
    once, at the level where A and B part: `evidence/matching.rs` ->
    `evidence/locator/country.rs` is the arrow matching.rs -> locator/ among
    the rooms of `evidence/`. An import into a file's own ancestor (a child
    taking its parent's type) stays inside one room and is no arrow.
    """
    arrows = {}  # folder module -> {(source room, target room): [(file, file)]}
    for source, targets in edges.items():
        for target in targets:
            depth = 0
            while depth < min(len(source), len(target)) and source[depth] == target[depth]:
                depth += 1
            if depth == len(source) or depth == len(target):
                continue
            folder = source[:depth]
            pair = (source[: depth + 1], target[: depth + 1])
            arrows.setdefault(folder, {}).setdefault(pair, []).append((source, target))
    return arrows


def room_cycles(edges):
    """Circles between the rooms of every folder, top level and inner ones
    alike, each with the file imports that draw its arrows."""
    found = []
    for folder, pairs in sorted(room_arrows(edges).items()):
        room_edges = {}
        for source, target in pairs:
            room_edges.setdefault(source, set()).add(target)
        rooms = set(room_edges) | {t for ts in room_edges.values() for t in ts}
        for group in strongly_connected(list(rooms), room_edges):
            members = set(group)
            arrows = sorted(
                (pair, imports)
                for pair, imports in pairs.items()
                if pair[0] in members and pair[1] in members
            )
            found.append((folder, group, arrows))
    return found


def crate_roots(root):
    """(name, root file) of each crate under `root`: `crates/*`, `src-tauri`,
    and `root` itself when it is a crate (`src/lib.rs`), as a fixture is."""
    roots = []
    own = os.path.join(root, "src")
    for file in ("lib.rs", "main.rs"):
        if os.path.exists(os.path.join(own, file)):
            roots.append((f"{os.path.basename(os.path.abspath(root))} ({file})", os.path.join(own, file)))
    crates_dir = os.path.join(root, "crates")
    if os.path.isdir(crates_dir):
        for name in sorted(os.listdir(crates_dir)):
            src = os.path.join(crates_dir, name, "src")
            for file in ("lib.rs", "main.rs"):
                if os.path.exists(os.path.join(src, file)):
                    roots.append((f"crates/{name} ({file})", os.path.join(src, file)))
    tauri = os.path.join(root, "src-tauri", "lib.rs")
    if os.path.exists(tauri):
        roots.append(("src-tauri (lib.rs)", tauri))
    return roots


def room_name(crate, module):
    """A room as its path below the crate's root folder: `locator/` for a
    module with modules of its own (everything below it is the room),
    else its file (`matching.rs`)."""
    has_children = any(len(m) > len(module) and m[: len(module)] == module for m in crate.files)
    if has_children:
        return "/".join(module) + "/"
    base = os.path.dirname(crate.files[()])
    return os.path.relpath(crate.files[module], base)


def main(argv):
    parser = argparse.ArgumentParser(description="Fails on an import cycle between files or rooms.")
    parser.add_argument(
        "--root",
        default=REPO,
        help="the tree to check: a workspace (crates/*, src-tauri) or one crate (src/lib.rs); default the repository",
    )
    root = os.path.abspath(parser.parse_args(argv).root)
    failures = 0
    files = 0
    roots = crate_roots(root)
    if not roots:
        print(f"no crate under {root}")
        return 2
    for name, root_file in roots:
        crate = Crate(name, root_file)
        files += len(crate.files)
        edges = crate.edges()
        rel = lambda m: os.path.relpath(crate.files[m], root)
        for group in strongly_connected(list(crate.files), edges):
            failures += 1
            print(f"{name}: import cycle between {', '.join(rel(m) for m in group)}")
            print("    " + " -> ".join(rel(m) for m in one_cycle(group, edges)))
        for folder, group, arrows in room_cycles(edges):
            failures += 1
            where = "the crate's top level" if not folder else room_name(crate, folder)
            rooms = ", ".join(room_name(crate, m) for m in group)
            print(f"{name}: import circle between the rooms of {where}: {rooms}")
            for (source, target), imports in arrows:
                shown = ", ".join(f"{rel(a)} -> {rel(b)}" for a, b in sorted(imports)[:3])
                more = f" and {len(imports) - 3} more" if len(imports) > 3 else ""
                print(f"    {room_name(crate, source)} -> {room_name(crate, target)}: {shown}{more}")
    if failures:
        print(f"{failures} import cycle(s) or circle(s) of rooms")
        return 1
    print(f"no import cycles between files or rooms ({len(roots)} crates, {files} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
