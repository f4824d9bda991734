#!/usr/bin/env python3
"""Fails when the files (modules) of a crate import each other in a cycle.

    scripts/check-import-cycles.py

For every crate under `crates/*/src` and for `src-tauri`, the module tree is
followed from the crate's root (`lib.rs`, and `main.rs` as a crate of its
own) through its `mod x;` declarations. An edge A -> B is drawn when file A
refers to file B through a `use` (`crate::…`, `super::…`, `self::…`, or a
child module's name) or through a path in code (`crate::b::f()`,
`super::f()`). A name re-exported by `pub use` is followed to the file that
defines it, so `use crate::Limits` points at the file `Limits` lives in, and
the facade it was taken through counts too (`use crate::settings::X` depends
on `settings/mod.rs`, whose own imports come with it).

What is not an import, and so draws no edge:
- `mod x;` and any reference from a module down into its own children
  (a parent owns them through the `mod` tree; only the way back up, a
  child using its parent, is an import), and `pub use` re-exports (a
  facade naming what it exposes);
- a reference that lands in the same file, such as `use super::*` in an
  inline `#[cfg(test)] mod tests { … }`;
- comments and string literals.

The same is then asked one level up, of a crate's top-level modules: each
folder (`extract/` with everything below it) or root file is one room, and
an import from one room into another is an arrow between them. A circle of
rooms means some import runs back up from a lower room to a higher one,
even when no two files form a circle: `workspace.rs` opening `schemas/`
while `schemas/mod.rs` takes the workspace, say. Each such circle is listed
with the file imports that draw it.

Exits 1 listing every cycle (one per strongly connected group of files or
rooms), else prints how many crates and files it checked and exits 0.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def room_cycles(edges):
    """Circles between a crate's top-level modules (its rooms), each with
    the file imports that draw its arrows."""
    room_edges, why = {}, {}
    for source, targets in edges.items():
        for target in targets:
            # The crate root only declares and re-exports; it is no room.
            if not source or not target or source[0] == target[0]:
                continue
            room_edges.setdefault(source[0], set()).add(target[0])
            why.setdefault((source[0], target[0]), []).append((source, target))
    rooms = set(room_edges) | {t for ts in room_edges.values() for t in ts}
    found = []
    for group in strongly_connected(list(rooms), room_edges):
        members = set(group)
        arrows = sorted(
            (pair, why[pair]) for pair in why if pair[0] in members and pair[1] in members
        )
        found.append((group, arrows))
    return found


def crate_roots():
    roots = []
    crates_dir = os.path.join(ROOT, "crates")
    for name in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, name, "src")
        for root in ("lib.rs", "main.rs"):
            if os.path.exists(os.path.join(src, root)):
                roots.append((f"crates/{name} ({root})", os.path.join(src, root)))
    tauri = os.path.join(ROOT, "src-tauri", "lib.rs")
    if os.path.exists(tauri):
        roots.append(("src-tauri (lib.rs)", tauri))
    return roots


def main():
    failures = 0
    files = 0
    roots = crate_roots()
    for name, root in roots:
        crate = Crate(name, root)
        files += len(crate.files)
        edges = crate.edges()
        rel = lambda m: os.path.relpath(crate.files[m], ROOT)
        for group in strongly_connected(list(crate.files), edges):
            failures += 1
            print(f"{name}: import cycle between {', '.join(rel(m) for m in group)}")
            print("    " + " -> ".join(rel(m) for m in one_cycle(group, edges)))
        for group, arrows in room_cycles(edges):
            failures += 1
            print(f"{name}: import circle between the rooms {', '.join(group)}")
            for (source, target), imports in arrows:
                shown = ", ".join(
                    f"{rel(a)} -> {rel(b)}" for a, b in sorted(imports)[:3]
                )
                more = f" and {len(imports) - 3} more" if len(imports) > 3 else ""
                print(f"    {source} -> {target}: {shown}{more}")
    if failures:
        print(f"{failures} import cycle(s) or circle(s) of rooms")
        return 1
    print(f"no import cycles between files or rooms ({len(roots)} crates, {files} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
