// Edits of a workflow file made on the canvas or in the side panel, applied
// to the YAML text as small splices: only the lines (or the value) an edit
// touches change, so comments, blank lines, quoting and key order elsewhere
// stay byte for byte as they were. Each edit re-reads the text, so offsets
// are never stale.
import { Document, isMap, isScalar, isSeq, visit, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from "yaml";
import { parseDocuments, parseWorkflow, readFields, resolveRef, type StepKind, type WorkflowGraph } from "./graph";

export class EditError extends Error {}

/** What the side panel edits. `command` writes the step's `run:` (or the key it already uses). */
export type StepField =
  | "command"
  | "provider"
  | "model"
  | "system"
  | "prompt"
  | "output_schema"
  | "files"
  | "tools"
  | "dag"
  | "output";

const WITH_FIELDS = new Set<StepField>(["provider", "model", "system", "prompt", "files", "tools", "dag"]);
const FLOW_LISTS = new Set<StepField>(["model", "files", "tools", "output_schema"]);
const TO_STRING = { lineWidth: 0, flowCollectionPadding: false, indent: 2 } as const;

interface Splice {
  from: number;
  to: number;
  insert: string;
}

/** Applies a splice; inserted lines end the way the file's lines do (`\r\n` or `\n`). */
function apply(text: string, { from, to, insert }: Splice): string {
  const crlf = text.includes("\r\n");
  return text.slice(0, from) + (crlf ? insert.replace(/\r?\n/g, "\r\n") : insert) + text.slice(to);
}

/** The length of the line break that ends just before `offset` (0, 1 or 2). */
function breakBefore(text: string, offset: number): number {
  if (text[offset - 1] !== "\n") return 0;
  return text[offset - 2] === "\r" ? 2 : 1;
}

function lineStartAt(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The offset just past the line holding `offset` (or `offset` itself when it starts a line). */
function toLineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === "\n") return offset;
  const newline = text.indexOf("\n", offset);
  return newline < 0 ? text.length : newline + 1;
}

function start(node: { range?: [number, number, number] | null } | null | undefined): number {
  if (!node?.range) throw new EditError("the file changed under the edit");
  return node.range[0];
}

function end(node: { range?: [number, number, number] | null }): number {
  if (!node.range) throw new EditError("the file changed under the edit");
  return node.range[2];
}

/** `value` as YAML text (block style; lists of scalars in flow style when `flow`). */
function yamlOf(value: unknown, flow: boolean): string {
  const doc = new Document(value);
  if (flow) {
    visit(doc, {
      Seq(_, node) {
        if (node.items.every((item) => isScalar(item))) node.flow = true;
      },
    });
  }
  return doc.toString(TO_STRING);
}

/** Every line of `yaml` indented by `column` spaces; ends with a newline. */
function indented(yaml: string, column: number): string {
  const pad = " ".repeat(column);
  return `${yaml
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => (line.length > 0 ? pad + line : line))
    .join("\n")}\n`;
}

/** A scalar's one-line text, in the quoting the old value used; null when it needs more than a line. */
function scalarText(value: string | number | boolean, oldType: Scalar["type"]): string | null {
  if (typeof value === "string") {
    if (value.includes("\n")) return null;
    if (oldType === "QUOTE_DOUBLE") return JSON.stringify(value);
    if (oldType === "QUOTE_SINGLE") return `'${value.replace(/'/g, "''")}'`;
  }
  const yaml = yamlOf(value, false).replace(/\n$/, "");
  return yaml.includes("\n") ? null : yaml;
}

/**
 * Replaces [from, to) on one line with `insert`, keeping a comment after it
 * in its column when there is room (`key: value   # note`).
 */
function replaceInLine(text: string, from: number, to: number, insert: string): Splice {
  const after = /^([ \t]+)#/.exec(text.slice(to));
  if (after === null) return { from, to, insert };
  const spaces = (after[1] ?? " ").length;
  const pad = Math.max(1, spaces - (insert.length - (to - from)));
  return { from, to: to + spaces, insert: insert + " ".repeat(pad) };
}

function isPlainValue(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function findPair(map: YAMLMap, key: string): Pair<Scalar, Node | null> | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Scalar, Node | null> | undefined;
}

/** The offset just past a pair's last line. */
function pairEnd(text: string, pair: Pair<Scalar, Node | null>): number {
  const value = pair.value;
  if (value?.range && value.range[2] > value.range[0]) return toLineEnd(text, value.range[2]);
  return toLineEnd(text, end(pair.key));
}

/** The column of a block map's keys. */
function mapColumn(text: string, map: YAMLMap): number {
  const first = map.items[0];
  const at = first && isScalar(first.key) ? start(first.key) : start(map);
  return at - lineStartAt(text, at);
}

/**
 * Sets (or, with `undefined`, removes) `key` in `map`. A plain value replaces
 * the old one in place (a comment after it stays); anything else rewrites
 * the pair's lines only; a new key goes after the map's last line.
 */
function setPair(text: string, map: YAMLMap, key: string, value: unknown, flow = false): string {
  if (map.flow) {
    const object = (map.toJSON() ?? {}) as Record<string, unknown>;
    if (value === undefined) delete object[key];
    else object[key] = value;
    const doc = new Document(object);
    if (isMap(doc.contents)) doc.contents.flow = true;
    return apply(text, { from: start(map), to: map.range?.[1] ?? end(map), insert: doc.toString(TO_STRING).trimEnd() });
  }
  const pair = findPair(map, key);
  if (pair === undefined) {
    if (value === undefined) return text;
    const at = toLineEnd(text, end(map));
    const lead = at > 0 && text[at - 1] !== "\n" ? "\n" : "";
    return apply(text, { from: at, to: at, insert: lead + indented(yamlOf({ [key]: value }, flow), mapColumn(text, map)) });
  }
  const keyStart = start(pair.key);
  const lineStart = lineStartAt(text, keyStart);
  // The first key of a list item shares its line with the `- `.
  const firstInItem = text.slice(lineStart, keyStart).trim() !== "";
  const stop = pairEnd(text, pair);
  if (value === undefined) {
    if (!firstInItem) return apply(text, { from: lineStart, to: stop, insert: "" });
    const next = map.items[map.items.indexOf(pair) + 1];
    if (next !== undefined) return apply(text, { from: keyStart, to: start(next.key as Node), insert: "" });
    return apply(text, { from: keyStart, to: stop - breakBefore(text, stop), insert: "{}" });
  }
  const old = pair.value;
  if (isScalar(old) && old.range && old.value !== null && isPlainValue(value) && old.type !== "BLOCK_FOLDED" && old.type !== "BLOCK_LITERAL") {
    const inline = scalarText(value, old.type);
    if (inline !== null) return apply(text, replaceInLine(text, old.range[0], old.range[1], inline));
  }
  if ((isSeq(old) || isMap(old)) && old.flow && old.range && Array.isArray(value)) {
    const inline = yamlOf(value, true).replace(/\n$/, "");
    if (!inline.includes("\n")) return apply(text, replaceInLine(text, old.range[0], old.range[1], inline));
  }
  const nonEmpty = (Array.isArray(value) && value.length > 0) || (isRecord(value) && Object.keys(value).length > 0);
  if ((isSeq(old) || isMap(old)) && !old.flow && nonEmpty && Array.isArray(value) === isSeq(old)) {
    // A block value under its key: the key's line (and its comment) stays.
    const valueStart = lineStartAt(text, start(old));
    const valueColumn = start(old) - valueStart;
    return apply(text, { from: valueStart, to: stop, insert: indented(yamlOf(value, flow), valueColumn) });
  }
  const column = keyStart - lineStart;
  const body = indented(yamlOf({ [key]: value }, flow), column);
  return firstInItem
    ? apply(text, { from: keyStart, to: stop, insert: body.slice(column) })
    : apply(text, { from: lineStart, to: stop, insert: body });
}

interface Located {
  main: YAMLMap;
  steps: YAMLSeq | null;
}

function locate(text: string): Located {
  const docs = parseDocuments(text);
  const main = docs[0]?.contents;
  if (docs.some((d) => d.errors.length > 0)) throw new EditError("the YAML has errors: fix the text first");
  if (!isMap(main)) throw new EditError("the file's first document is not a mapping");
  const steps = main.get("steps", true);
  return { main, steps: isSeq(steps) ? steps : null };
}

function stepAt(text: string, index: number): YAMLMap {
  const item = locate(text).steps?.items[index];
  if (!isMap(item)) throw new EditError(`there is no step ${index + 1}`);
  return item;
}

function stepRecord(map: YAMLMap): Record<string, unknown> {
  return (map.toJSON() ?? {}) as Record<string, unknown>;
}

function setWithField(text: string, index: number, key: string, value: unknown, flow: boolean): string {
  const step = stepAt(text, index);
  const block = step.get("with", true);
  if (isMap(block)) {
    const only = block.items.length === 1 && findPair(block, key) !== undefined;
    if (value === undefined && only) return setPair(text, step, "with", undefined);
    return setPair(text, block, key, value, flow);
  }
  if (value === undefined) return text;
  return setPair(text, step, "with", { [key]: value }, flow);
}

/** Sets one field of step `index`; `undefined` removes it. */
export function setStepField(text: string, index: number, field: StepField, value: unknown): string {
  const step = stepAt(text, index);
  const fields = readFields(stepRecord(step));
  const flow = FLOW_LISTS.has(field);
  if (field === "command") return setPair(text, step, fields.commandKey ?? "run", value);
  if (field === "output") return setPair(text, step, "output", value);
  if (field === "output_schema") {
    if (fields.outputSchemaIn === "with") return setWithField(text, index, "output_schema", value, flow);
    return setPair(text, step, "output_schema", value, flow);
  }
  if (WITH_FIELDS.has(field)) return setWithField(text, index, field, value, flow);
  throw new EditError(`unknown field ${field}`);
}

/** A fresh step id: `step1`, `step2`, ... that no step uses as id or name. */
export function freshStepId(graph: WorkflowGraph, base = "step"): string {
  const used = new Set(graph.nodes.flatMap((n) => [n.name, n.id ?? ""]));
  for (let n = graph.nodes.length + 1; ; n++) if (!used.has(`${base}${n}`)) return `${base}${n}`;
}

function template(kind: StepKind, id: string, dags: string[], depends: string[]): Record<string, unknown> {
  const step: Record<string, unknown> = { id };
  if (kind === "chat") Object.assign(step, { action: "chat.completion", with: { prompt: "" } });
  else if (kind === "dag") Object.assign(step, { action: "dag.run", with: { dag: dags[0] ?? "" } });
  else step.run = `echo ${id}`;
  if (depends.length === 1) step.depends = depends[0];
  else if (depends.length > 1) step.depends = depends;
  return step;
}

/** Appends a step to the main DAG; returns the text and the new step's id. */
export function addStep(text: string, kind: StepKind, options: { id?: string; depends?: string[] } = {}): { text: string; id: string } {
  const graph = parseWorkflow(text);
  const id = options.id ?? freshStepId(graph);
  const step = template(kind, id, graph.dags, options.depends ?? []);
  if (text.trim() === "") return { text: yamlOf({ steps: [step] }, true), id };
  const { main, steps } = locate(text);
  const last = steps?.items[steps.items.length - 1];
  if (steps === null || steps.flow || last === undefined) {
    const items = steps === null ? [] : ((steps.toJSON() ?? []) as unknown[]);
    return { text: setPair(text, main, "steps", [...items, step], true), id };
  }
  const column = start(steps) - lineStartAt(text, start(steps));
  const at = toLineEnd(text, end(last as Node));
  const lead = at > 0 && text[at - 1] !== "\n" ? "\n" : "";
  return { text: apply(text, { from: at, to: at, insert: lead + indented(yamlOf([step], true), column) }), id };
}

/** The name other steps use for step `index` in `depends`: its id, else its name. */
function refOf(text: string, index: number): string {
  const node = parseWorkflow(text).nodes.find((n) => n.index === index);
  if (node === undefined) throw new EditError(`there is no step ${index + 1}`);
  return node.id ?? node.name;
}

/** True when an edge `from -> to` would close a cycle (or is a self-loop). */
export function wouldCycle(graph: WorkflowGraph, from: string, to: string): boolean {
  if (from === to) return true;
  // A cycle appears when `from` already (transitively) depends on `to`.
  const parents = new Map<string, string[]>();
  for (const e of graph.edges) parents.set(e.to, [...(parents.get(e.to) ?? []), e.from]);
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const key = stack.pop() as string;
    if (key === to) return true;
    if (seen.has(key)) continue;
    seen.add(key);
    stack.push(...(parents.get(key) ?? []));
  }
  return false;
}

/** Makes step `to` depend on step `from` (adds to its `depends`). */
export function connect(text: string, from: number, to: number): string {
  const graph = parseWorkflow(text);
  const source = graph.nodes.find((n) => n.index === from);
  const target = graph.nodes.find((n) => n.index === to);
  if (source === undefined || target === undefined) throw new EditError("no such step");
  if (graph.edges.some((e) => e.from === source.key && e.to === target.key)) return text;
  if (wouldCycle(graph, source.key, target.key)) throw new EditError(`${target.name} cannot depend on ${source.name}: that would make a cycle`);
  const ref = refOf(text, from);
  const step = stepAt(text, to);
  const depends = step.get("depends", true);
  if (isSeq(depends) && !depends.flow && depends.items.length > 0) {
    const last = depends.items[depends.items.length - 1] as Node;
    const column = start(depends) - lineStartAt(text, start(depends));
    const at = toLineEnd(text, end(last));
    return apply(text, { from: at, to: at, insert: indented(yamlOf([ref], false), column) });
  }
  const current = target.depends;
  return setPair(text, step, "depends", current.length === 0 ? ref : [...current, ref], true);
}

/** Removes every `depends` entry of step `to` that names step `from`. */
export function disconnect(text: string, from: number, to: number): string {
  const graph = parseWorkflow(text);
  const target = graph.nodes.find((n) => n.index === to);
  if (target === undefined) throw new EditError("no such step");
  const names = (ref: string) => graph.nodes[resolveRef(graph.nodes, ref)]?.index === from;
  if (!target.depends.some(names)) return text;
  const step = stepAt(text, to);
  const depends = step.get("depends", true);
  const remaining = target.depends.filter((ref) => !names(ref));
  if (remaining.length === 0) return setPair(text, step, "depends", undefined);
  if (isSeq(depends) && !depends.flow) {
    // Delete the items' lines, last first so offsets hold.
    let out = text;
    for (const item of [...depends.items].reverse()) {
      if (isScalar(item) && names(String(item.value))) {
        const at = lineStartAt(out, start(item));
        out = apply(out, { from: at, to: toLineEnd(out, end(item)), insert: "" });
      }
    }
    return out;
  }
  return setPair(text, step, "depends", remaining.length === 1 && !isSeq(depends) ? remaining[0] : remaining, true);
}

/** Deletes step `index`, its comment lines just above it, and every `depends` entry that named it. */
export function deleteStep(text: string, index: number): string {
  let out = text;
  for (const node of parseWorkflow(text).nodes) if (node.index !== index) out = disconnect(out, index, node.index);
  const { steps } = locate(out);
  const item = steps?.items[index] as Node | undefined;
  if (steps === null || item === undefined) throw new EditError(`there is no step ${index + 1}`);
  if (steps.flow) {
    const items = (steps.toJSON() as unknown[]).filter((_, i) => i !== index);
    return setPair(out, locate(out).main, "steps", items, true);
  }
  let from = lineStartAt(out, start(item));
  const column = start(steps) - lineStartAt(out, start(steps));
  // Comment lines directly above the item belong to it.
  while (from > 0) {
    const above = lineStartAt(out, from - 1);
    const line = out.slice(above, from);
    const trimmed = line.trimStart();
    if (!trimmed.startsWith("#") || line.length - trimmed.length < column) break;
    from = above;
  }
  let to = toLineEnd(out, end(item));
  // Blank lines that separated the item from its neighbours: keep one gap, not two.
  const blankAfter = (at: number) => /^[ \t]*\r?\n/.exec(out.slice(at))?.[0].length ?? 0;
  const blank = (lineEnd: number) => /^[ \t]*\r?$/.test(out.slice(lineStartAt(out, lineEnd - 1), lineEnd - 1));
  const blankBefore = from > 0 && blank(from);
  const first = index === 0;
  const last = index === steps.items.length - 1;
  if (first || blankBefore) for (let n = blankAfter(to); n > 0; n = blankAfter(to)) to += n;
  if (last && !first) {
    while (from > 0 && blank(from)) from = lineStartAt(out, from - 1);
  }
  return apply(out, { from, to, insert: "" });
}

/**
 * Renames step `index`: its `id` (or its `name` when it has no id, or when
 * `which` says so), every `depends` entry that used the old value and every
 * `${steps.OLD.` reference in the main DAG.
 */
export function renameStep(text: string, index: number, value: string, which?: "id" | "name"): string {
  const graph = parseWorkflow(text);
  const node = graph.nodes.find((n) => n.index === index);
  if (node === undefined) throw new EditError(`there is no step ${index + 1}`);
  const field = which ?? (node.id !== null || node.name === `step_${index + 1}` ? "id" : "name");
  const old = field === "id" ? node.id : node.name;
  if (old === value) return text;
  let out = text;
  const step = stepAt(out, index);
  if (field === "id" && node.id === null) {
    const at = start(step);
    const column = at - lineStartAt(out, at);
    out = apply(out, { from: at, to: at, insert: `${yamlOf({ id: value }, false).trimEnd()}\n${" ".repeat(column)}` });
  } else {
    out = setPair(out, step, field, value);
  }
  if (old === null) return out;
  // Entries that named the old value now name the new one.
  for (const other of graph.nodes) {
    if (!other.depends.includes(old)) continue;
    const depends: unknown = stepAt(out, other.index).get("depends", true);
    if (isScalar(depends)) out = setPair(out, stepAt(out, other.index), "depends", value);
    else if (isSeq(depends)) {
      for (const item of [...depends.items].reverse()) {
        if (isScalar(item) && item.value === old && item.range) {
          out = apply(out, replaceInLine(out, item.range[0], item.range[1], scalarText(value, item.type) ?? value));
        }
      }
    }
  }
  const mainEnd = parseDocuments(out)[0]?.range[1] ?? out.length;
  const pattern = new RegExp(`\\$\\{steps\\.${old.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.`, "g");
  return out.slice(0, mainEnd).replace(pattern, `\${steps.${value}.`) + out.slice(mainEnd);
}
