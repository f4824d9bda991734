// A workflow file (dagu-compatible YAML, see docs/WORKFLOWS.md) read as a
// graph: the main DAG's steps are the nodes, their `depends` the edges. The
// text stays the source of truth; edits go through ./edit.ts.
import { isMap, isScalar, isSeq, parseAllDocuments, type Document, type YAMLMap } from "yaml";

export type StepKind = "run" | "chat" | "dag" | "other";

/** The fields of a step the side panel edits, as written in the file. */
export interface StepFields {
  /** `run:`, `command:` or `script:` (a list of words joined by spaces). */
  command: string | null;
  commandKey: "run" | "command" | "script" | null;
  /** `chat.completion` fields (in `with`). */
  provider: string | null;
  /** A name, or a list (fallback): names or `{provider, name, ...}` objects. */
  model: unknown;
  system: string | null;
  prompt: string | null;
  /** The schema, beside `with` or inside it (see `outputSchemaIn`). */
  outputSchema: unknown;
  outputSchemaIn: "step" | "with" | null;
  /** A path or glob, or a list of them. */
  files: string | string[] | null;
  tools: string[] | null;
  /** `dag.run`'s target (`with.dag`, or `call:`). */
  dag: string | null;
  /** `output:` (a shell step's variable). */
  output: string | null;
}

export interface StepNode {
  /** The step's place in the main DAG's `steps`, from 0: what edits address. */
  index: number;
  /** Unique among the nodes: the name, or `name#index` for a duplicate. */
  key: string;
  id: string | null;
  /** `name`, else `id`, else `step_N` (as the engine names it). */
  name: string;
  kind: StepKind;
  /** `depends` as written: step ids or names. */
  depends: string[];
  fields: StepFields;
  /** 1-based lines of the step in the file (first and last). */
  line: number;
  endLine: number;
  /** Offsets of the step's text, for the editor. */
  from: number;
  to: number;
}

export interface Edge {
  /** Node keys: `from` must finish before `to`. */
  from: string;
  to: string;
  /** The id or name `to`'s `depends` used. */
  ref: string;
}

export interface TextProblem {
  message: string;
  /** 1-based line, or null for the file as a whole. */
  line: number | null;
  from: number;
  to: number;
}

export interface WorkflowGraph {
  nodes: StepNode[];
  edges: Edge[];
  /** `depends` entries that name no step: the node's key and the entry. */
  dangling: { node: string; ref: string }[];
  /** The names of the later documents (tools, `dag.run` targets). */
  dags: string[];
  /** YAML syntax errors and shapes the graph could not read. */
  problems: TextProblem[];
}

/** Offsets of each line start; `lineOf` maps an offset to a 1-based line. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

export function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** The documents of a file; the first is the main DAG. */
export function parseDocuments(text: string): Document.Parsed[] {
  return parseAllDocuments(text, { keepSourceTokens: false }) as Document.Parsed[];
}

/** The main DAG's `steps` items (maps), or null when there is no such list. */
export function stepMaps(doc: Document.Parsed | undefined): YAMLMap[] | null {
  if (doc === undefined || !isMap(doc.contents)) return null;
  const steps = doc.contents.get("steps", true);
  if (!isSeq(steps)) return null;
  return steps.items.filter((item): item is YAMLMap => isMap(item));
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringList(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.map((v) => text(v) ?? JSON.stringify(v));
  const one = text(value);
  return one === null ? null : [one];
}

export function readFields(step: Record<string, unknown>): StepFields {
  const withBlock = record(step.with);
  let command: string | null = null;
  let commandKey: StepFields["commandKey"] = null;
  for (const key of ["run", "command", "script"] as const) {
    const value = step[key];
    if (value === undefined || value === null) continue;
    command = Array.isArray(value) ? value.map((w) => text(w) ?? "").join(" ") : text(value);
    commandKey = key;
    break;
  }
  const files = withBlock.files;
  const inStep = "output_schema" in step;
  const inWith = "output_schema" in withBlock;
  return {
    command,
    commandKey,
    provider: text(withBlock.provider),
    model: withBlock.model ?? null,
    system: text(withBlock.system),
    prompt: text(withBlock.prompt),
    outputSchema: inStep ? step.output_schema : inWith ? withBlock.output_schema : null,
    outputSchemaIn: inStep ? "step" : inWith ? "with" : null,
    files: Array.isArray(files) ? (stringList(files) ?? []) : text(files),
    tools: stringList(withBlock.tools),
    dag: text(withBlock.dag) ?? text(step.call),
    output: text(step.output),
  };
}

function kindOf(step: Record<string, unknown>): StepKind {
  if (step.action === "chat.completion") return "chat";
  if (step.action === "dag.run" || step.call !== undefined) return "dag";
  if (step.run !== undefined || step.command !== undefined || step.script !== undefined) return "run";
  return "other";
}

/** Which node a `depends` entry names: a step id first, then a name (as the engine resolves it). */
export function resolveRef(nodes: Pick<StepNode, "id" | "name">[], ref: string): number {
  const byId = nodes.findIndex((n) => n.id === ref);
  return byId >= 0 ? byId : nodes.findIndex((n) => n.name === ref);
}

/** Reads a workflow file into its graph. Never throws: problems are reported. */
export function parseWorkflow(source: string): WorkflowGraph {
  const starts = lineStarts(source);
  const docs = parseDocuments(source);
  const problems: TextProblem[] = [];
  for (const doc of docs) {
    for (const error of doc.errors) {
      const [from, to] = error.pos;
      const message = (error.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
      problems.push({ message, line: lineOf(starts, from), from, to });
    }
  }
  const dags = docs
    .slice(1)
    .map((d): unknown => (isMap(d.contents) ? d.contents.toJSON()?.name : undefined))
    .filter((n): n is string => typeof n === "string");
  const main = docs[0];
  const nodes: StepNode[] = [];
  if (main !== undefined && isMap(main.contents)) {
    const steps = main.contents.get("steps", true);
    if (steps !== undefined && !isSeq(steps) && !(isScalar(steps) && steps.value === null)) {
      const [from, to] = steps.range ?? [0, 0];
      problems.push({ message: "steps must be a list", line: lineOf(starts, from), from, to });
    }
    if (isSeq(steps)) {
      steps.items.forEach((item, index) => {
        if (!isMap(item)) return;
        const step = record(item.toJSON());
        const id = text(step.id);
        const name = text(step.name) ?? id ?? `step_${index + 1}`;
        const [from, , end] = item.range ?? [0, 0, 0];
        const to = end > from && source[end - 1] === "\n" ? end - 1 : end;
        nodes.push({
          index,
          key: name,
          id,
          name,
          kind: kindOf(step),
          depends: stringList(step.depends) ?? [],
          fields: readFields(step),
          line: lineOf(starts, from),
          endLine: lineOf(starts, to),
          from,
          to,
        });
      });
    }
  }
  // Keys are unique even when names are not (the engine reports those).
  const seen = new Set<string>();
  for (const node of nodes) {
    if (seen.has(node.key)) node.key = `${node.name}#${node.index}`;
    seen.add(node.key);
  }
  const edges: Edge[] = [];
  const dangling: WorkflowGraph["dangling"] = [];
  for (const node of nodes) {
    for (const ref of node.depends) {
      const from = nodes[resolveRef(nodes, ref)];
      if (from !== undefined) edges.push({ from: from.key, to: node.key, ref });
      else dangling.push({ node: node.key, ref });
    }
  }
  return { nodes, edges, dangling, dags, problems };
}
