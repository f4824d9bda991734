// The engine's validation messages (crates/workflow/src/validate.rs, dagu's
// wording) placed on the canvas and in the text: the nodes a message names
// and the line it is about.
import { lineOf, lineStarts, parseWorkflow, resolveRef, type StepNode, type WorkflowGraph } from "./graph";

export interface PlacedProblem {
  message: string;
  /** Keys of the nodes the message names (empty: the file as a whole). */
  nodes: string[];
  /** 1-based line, or null when it names no place in the text. */
  line: number | null;
  /** The text span to underline (the whole first line of the file when the message names no place). */
  from: number;
  to: number;
}

const STEP_QUOTED = /^step '(.+?)': /;
const DEPENDS_MISSING = /^step (.+) depends on non-existent step (.+)$/;
const CYCLE = /^cyclic plan detected: (.+)$/;
const NOT_UNIQUE = /^step name must be unique: (.+)$/;
const ID_CONFLICT = /^step ID '(.+)' conflicts with another step's name$/;

function span(text: string, starts: number[], from: number, to: number): Pick<PlacedProblem, "line" | "from" | "to"> {
  return { line: lineOf(starts, from), from, to: Math.min(text.length, Math.max(to, from)) };
}

/** The offsets of a `depends` entry `ref` inside step `node`'s text, or of its first line. */
function dependsSpan(text: string, node: StepNode, ref: string): [number, number] {
  const body = text.slice(node.from, node.to);
  const key = body.search(/(^|\n)\s*depends:/);
  if (key >= 0) {
    const found = body.indexOf(ref, key);
    if (found >= 0) return [node.from + found, node.from + found + ref.length];
  }
  return firstLine(text, node);
}

function firstLine(text: string, node: StepNode): [number, number] {
  const newline = text.indexOf("\n", node.from);
  return [node.from, newline < 0 || newline > node.to ? node.to : newline];
}

/** Places each message of `sift validate` (or the app's validate command) on nodes and lines. */
export function placeProblems(text: string, messages: string[], graph: WorkflowGraph = parseWorkflow(text)): PlacedProblem[] {
  const starts = lineStarts(text);
  const byName = (name: string) => graph.nodes.filter((n) => n.name === name);
  const whole = (message: string): PlacedProblem => ({ message, nodes: [], line: null, from: 0, to: Math.max(0, text.indexOf("\n")) });
  const onNodes = (message: string, nodes: StepNode[], place?: [number, number]): PlacedProblem => {
    const first = nodes[0];
    if (first === undefined) return whole(message);
    const [from, to] = place ?? firstLine(text, first);
    return { message, nodes: nodes.map((n) => n.key), ...span(text, starts, from, to) };
  };
  return messages.map((message) => {
    let m = DEPENDS_MISSING.exec(message);
    if (m !== null) {
      const nodes = byName(m[1] ?? "");
      return onNodes(message, nodes, nodes[0] ? dependsSpan(text, nodes[0], m[2] ?? "") : undefined);
    }
    m = STEP_QUOTED.exec(message) ?? NOT_UNIQUE.exec(message);
    if (m !== null) return onNodes(message, byName(m[1] ?? ""));
    m = ID_CONFLICT.exec(message);
    if (m !== null) return onNodes(message, graph.nodes.filter((n) => n.id === m?.[1]));
    m = CYCLE.exec(message);
    if (m !== null) {
      const names = new Set((m[1] ?? "").split(" -> "));
      return onNodes(message, graph.nodes.filter((n) => names.has(n.name)));
    }
    return whole(message);
  });
}

/**
 * A quick check in the window, for the in-memory source and for feedback
 * while typing: the graph-shaped messages of the engine's validate, in its
 * wording. The engine's own validate stays the authority.
 */
export function localProblems(graph: WorkflowGraph): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const node of graph.nodes) {
    if (node.id !== null && !/^[A-Za-z][A-Za-z0-9_]*$/.test(node.id)) {
      problems.push(`step '${node.name}': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')`);
    }
    if (seen.has(node.name)) problems.push(`step name must be unique: ${node.name}`);
    seen.add(node.name);
    if (node.kind === "other") problems.push(`step '${node.name}': nothing to run: give it run:, command: or action:`);
    if (node.kind === "chat" && node.fields.prompt === "") problems.push(`step '${node.name}': with.prompt must be a non-empty string`);
    for (const ref of node.depends) {
      if (resolveRef(graph.nodes, ref) < 0) problems.push(`step ${node.name} depends on non-existent step ${ref}`);
    }
  }
  const cycle = findCycle(graph);
  if (cycle !== null) problems.push(`cyclic plan detected: ${cycle.join(" -> ")}`);
  return problems;
}

/** A cycle as step names, first name repeated at the end; null when there is none. */
export function findCycle(graph: WorkflowGraph): string[] | null {
  const children = new Map<string, string[]>();
  for (const e of graph.edges) children.set(e.from, [...(children.get(e.from) ?? []), e.to]);
  const name = new Map(graph.nodes.map((n) => [n.key, n.name]));
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (key: string): string[] | null => {
    state.set(key, "open");
    path.push(key);
    for (const next of children.get(key) ?? []) {
      if (state.get(next) === "open") return [...path.slice(path.indexOf(next)), next].map((k) => name.get(k) ?? k);
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(key, "done");
    return null;
  };
  for (const node of graph.nodes) {
    if (state.get(node.key) === undefined) {
      const found = visit(node.key);
      if (found !== null) return found;
    }
  }
  return null;
}
