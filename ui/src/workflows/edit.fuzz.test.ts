// Random sequences of canvas edits: every result must still parse, say what
// the edit meant, and leave the rest of the file (the other documents, the
// header comments) as it was.
import { describe, expect, it } from "vitest";
import { addStep, connect, deleteStep, disconnect, EditError, renameStep, setStepField, type StepField } from "./edit";
import { parseWorkflow, type WorkflowGraph } from "./graph";
import { CLASSIFY, DIAMOND } from "./fixtures";

/** A small seeded generator (mulberry32), so a failure replays. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ["plain", "with: colon", "a # not a comment", "line one\nline two", "'quoted'", '"double"', "${steps.x.outputs.y}", "", "  padded  ", "true", "12.5", "- dash", "ünïcödé ✓"];
const FIELDS: StepField[] = ["command", "prompt", "system", "model", "files", "tools", "output", "provider", "output_schema"];

function valueFor(field: StepField, pick: <T>(xs: T[]) => T): unknown {
  switch (field) {
    case "model":
      return pick([pick(TEXTS), ["a", "b"], undefined]);
    case "files":
      return pick(["docs/*.pdf", ["a.pdf", "b c.png"], undefined]);
    case "tools":
      return pick([["get-weather"], undefined]);
    case "provider":
      return pick(["local", "openai", undefined]);
    case "output_schema":
      return pick([{ type: "object", properties: { total: { type: "number" }, note: { type: "string", description: "a: b # c" } }, required: ["total"] }, undefined]);
    default:
      return pick([pick(TEXTS), undefined]);
  }
}

function read(graph: WorkflowGraph, index: number, field: StepField): unknown {
  const f = graph.nodes.find((n) => n.index === index)?.fields;
  if (f === undefined) return "missing step";
  const map: Record<StepField, unknown> = { command: f.command, prompt: f.prompt, system: f.system, model: f.model, files: f.files, tools: f.tools, output: f.output, provider: f.provider, output_schema: f.outputSchema, dag: f.dag };
  return map[field] ?? undefined;
}

function run(start: string, seed: number, steps: number) {
  const rand = random(seed);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const tail = start.includes("\n---\n") ? start.slice(start.indexOf("\n---\n")) : null;
  const headerComment = start.startsWith("params: CODE=0                 # or a list\n");
  let text = start;
  let fresh = 0;
  for (let i = 0; i < steps; i++) {
    const before = parseWorkflow(text);
    const n = before.nodes.length;
    const op = n === 0 ? "add" : pick(["add", "delete", "connect", "disconnect", "rename", "field", "field", "field"]);
    const at = () => pick(before.nodes).index;
    const where = `seed ${seed}, edit ${i} (${op})`;
    let next = text;
    try {
      if (op === "add") next = addStep(text, pick(["run", "chat", "dag"] as const)).text;
      else if (op === "delete") next = deleteStep(text, at());
      else if (op === "connect") next = connect(text, at(), at());
      else if (op === "disconnect") next = disconnect(text, at(), at());
      else if (op === "rename") next = renameStep(text, at(), `renamed${fresh++}`);
      else {
        const index = at();
        const field = pick(FIELDS);
        const value = valueFor(field, pick);
        next = setStepField(text, index, field, value);
        const expected = field === "model" && value === "" ? "" : value;
        expect(read(parseWorkflow(next), index, field), `${where}: ${field} = ${JSON.stringify(value)}\n${next}`).toEqual(expected);
      }
    } catch (error) {
      // Only refusals are allowed: a cycle, a self-loop.
      if (!(error instanceof EditError)) throw error;
      expect(error.message, where).toMatch(/cycle/);
      continue;
    }
    const after = parseWorkflow(next);
    expect(after.problems, `${where}\n${next}`).toEqual([]);
    if (op === "add") expect(after.nodes.length, where).toBe(n + 1);
    if (op === "delete") {
      expect(after.nodes.length, where).toBe(n - 1);
      expect(after.dangling.length, where).toBeLessThanOrEqual(before.dangling.length);
    }
    if (op === "rename") expect(after.dangling, where).toEqual(before.dangling);
    if (tail !== null) expect(next.endsWith(tail), `${where}: the later documents changed\n${next}`).toBe(true);
    if (headerComment) expect(next.startsWith("params: CODE=0                 # or a list\nenv:\n  - GREETING: hello            # env\nsteps:\n"), where).toBe(true);
    text = next;
  }
  return text;
}

// A fixed amount of work (40 x 40 + 31 x 40 + 16 x 30 = 3,320 edits), each
// one parsed several times: a few seconds on an idle machine, several times
// that on a loaded one. The bound is far above the need, so the result never
// depends on the machine's speed.
const FUZZ = { timeout: 120_000 };

describe("random edit sequences", () => {
  it("keep the file valid and the rest of it unchanged (CLASSIFY)", FUZZ, () => {
    for (let seed = 1; seed <= 40; seed++) run(CLASSIFY, seed, 40);
  });

  it("keep the file valid (DIAMOND, and a CRLF copy)", FUZZ, () => {
    for (let seed = 100; seed <= 130; seed++) run(DIAMOND, seed, 40);
    for (let seed = 200; seed <= 215; seed++) {
      const out = run(CLASSIFY.replace(/\n/g, "\r\n"), seed, 30);
      expect(out.replace(/\r\n/g, ""), `seed ${seed}`).not.toContain("\n");
    }
  });
});
