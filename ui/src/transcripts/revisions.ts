// A structured call and its revisions (each a call whose parent is the one
// it revises) as a tree, with the values that differ from the parent marked.

export interface Revision {
  id: string;
  parentId: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  status: string;
  /** The accepted output (null unless completed). */
  output: unknown;
  /** The correction that asked for this revision (its prompt), if any. */
  note: string | null;
}

export interface RevisionNode {
  revision: Revision;
  depth: number;
  /** Paths (`a.b`, `lines[0].amount`) whose value differs from the parent's output. */
  changed: string[];
}

/** The leaf values of a JSON value by path; an empty object or list is a leaf. */
export function flatten(value: unknown, path = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => flatten(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === "object" && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, path === "" ? k : `${path}.${k}`, out);
  } else out.set(path, value);
  return out;
}

/** The paths whose values differ between two outputs (added, removed or changed), in the child's order then the removed ones. */
export function changedPaths(parent: unknown, child: unknown): string[] {
  // A revision without an output (it failed) has no values to mark.
  if (child === null || child === undefined) return [];
  const a = parent === null || parent === undefined ? new Map<string, unknown>() : flatten(parent);
  const b = flatten(child);
  const changed: string[] = [];
  for (const [path, value] of b) if (!a.has(path) || JSON.stringify(a.get(path)) !== JSON.stringify(value)) changed.push(path);
  for (const path of a.keys()) if (!b.has(path)) changed.push(path);
  return changed;
}

/** Depth-first, children oldest first; revisions whose parent is missing are roots. */
export function revisionTree(revisions: Revision[]): RevisionNode[] {
  const ids = new Set(revisions.map((r) => r.id));
  const children = new Map<string | null, Revision[]>();
  for (const r of revisions) {
    const parent = r.parentId !== null && ids.has(r.parentId) ? r.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  for (const list of children.values()) list.sort((x, y) => x.createdAt - y.createdAt || x.id.localeCompare(y.id));
  const out: RevisionNode[] = [];
  const walk = (parent: Revision | null, depth: number) => {
    for (const r of children.get(parent?.id ?? null) ?? []) {
      out.push({ revision: r, depth, changed: parent === null ? [] : changedPaths(parent.output, r.output) });
      walk(r, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}
