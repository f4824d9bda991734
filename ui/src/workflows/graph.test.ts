import { describe, expect, it } from "vitest";
import { lineOf, lineStarts, parseWorkflow } from "./graph";
import { CLASSIFY, DIAMOND } from "./fixtures";

describe("parseWorkflow", () => {
  it("reads the main DAG's steps, their kinds, fields and depends edges", () => {
    const graph = parseWorkflow(CLASSIFY);
    expect(graph.nodes.map((n) => [n.key, n.id, n.name, n.kind, n.depends, n.line, n.endLine])).toEqual([
      ["classify", "classify", "classify", "chat", [], 6, 17],
      ["record", "record", "record", "run", ["classify"], 19, 22],
    ]);
    expect(graph.edges).toEqual([{ from: "classify", to: "record", ref: "classify" }]);
    expect(graph.dags).toEqual(["get-weather"]);
    expect(graph.problems).toEqual([]);
    expect(graph.dangling).toEqual([]);
    const chat = graph.nodes[0]!.fields;
    expect(chat).toEqual({
      command: null,
      commandKey: null,
      provider: "local",
      model: "smollm2",
      system: null,
      prompt: "Classify this note: please refund my 12.50",
      outputSchema: {
        type: "object",
        properties: { category: { type: "string", enum: ["refund", "complaint", "question"] }, amount: { type: "number" } },
        required: ["category"],
      },
      outputSchemaIn: "step",
      files: null,
      tools: null,
      dag: null,
      output: null,
    });
    expect(graph.nodes[1]!.fields.command).toBe('echo "${steps.classify.outputs.category}"');
    expect(graph.nodes[1]!.fields.commandKey).toBe("run");
    expect(graph.nodes[1]!.fields.output).toBe("LINE");
    // The step's text: from its first key to the end of its last line.
    expect(CLASSIFY.slice(graph.nodes[1]!.from, graph.nodes[1]!.to)).toBe(
      'id: record\n    depends: classify          # a step id\n    run: echo "${steps.classify.outputs.category}"\n    output: LINE               # stdout',
    );
  });

  it("resolves depends given as a string, a flow list or a block list, by name", () => {
    const graph = parseWorkflow(DIAMOND);
    expect(graph.nodes.map((n) => [n.key, n.id, n.kind])).toEqual([
      ["a", null, "run"],
      ["b", null, "run"],
      ["c", null, "run"],
      ["d", null, "run"],
    ]);
    expect(graph.edges.map((e) => `${e.from}->${e.to}`)).toEqual(["a->b", "a->c", "b->d", "c->d"]);
  });

  it("resolves a reference by id before name, names unnamed steps step_N and keeps keys unique", () => {
    const graph = parseWorkflow(`steps:
  - id: x
    name: first
    run: "true"
  - name: x
    run: "true"
  - run: "true"
    depends: [x, first, nope]
  - name: x
    run: "true"
`);
    expect(graph.nodes.map((n) => [n.key, n.name])).toEqual([
      ["first", "first"],
      ["x", "x"],
      ["step_3", "step_3"],
      ["x#3", "x"],
    ]);
    expect(graph.edges).toEqual([
      { from: "first", to: "step_3", ref: "x" },
      { from: "first", to: "step_3", ref: "first" },
    ]);
    expect(graph.dangling).toEqual([{ node: "step_3", ref: "nope" }]);
  });

  it("reads dag.run, call, script, command lists, tools, files and a schema inside with", () => {
    const graph = parseWorkflow(`steps:
  - id: sub
    action: dag.run
    with: {dag: helper, params: "X=1"}
  - id: called
    call: helper
  - id: words
    command: [echo, hi]
  - id: scripted
    script: |
      echo one
  - id: ask
    action: chat.completion
    with:
      model: [a, {provider: openai, name: b}]
      prompt: hi
      tools: [helper]
      files: docs/*.pdf
      output_schema: {type: object, properties: {x: {type: string}}}
  - id: odd
    foo: bar
---
name: helper
steps:
  - run: "true"
`);
    const f = (i: number) => graph.nodes[i]!.fields;
    expect(graph.nodes.map((n) => n.kind)).toEqual(["dag", "dag", "run", "run", "chat", "other"]);
    expect([f(0).dag, f(1).dag]).toEqual(["helper", "helper"]);
    expect([f(2).command, f(2).commandKey]).toEqual(["echo hi", "command"]);
    expect([f(3).command, f(3).commandKey]).toEqual(["echo one\n", "script"]);
    expect(f(4).model).toEqual(["a", { provider: "openai", name: "b" }]);
    expect([f(4).tools, f(4).files, f(4).outputSchemaIn]).toEqual([["helper"], "docs/*.pdf", "with"]);
    expect(f(4).outputSchema).toEqual({ type: "object", properties: { x: { type: "string" } } });
  });

  it("reports YAML errors with their line and never throws", () => {
    const graph = parseWorkflow("steps:\n  - id: a\n    id: b\n");
    expect(graph.problems.map((p) => [p.message, p.line])).toEqual([["Map keys must be unique", 3]]);
    expect(parseWorkflow("").nodes).toEqual([]);
    expect(parseWorkflow("steps: 3\n").problems.map((p) => [p.message, p.line])).toEqual([["steps must be a list", 1]]);
  });

  it("maps offsets to lines", () => {
    const starts = lineStarts("a\nbb\n\nc");
    expect(starts).toEqual([0, 2, 5, 6]);
    expect([0, 1, 2, 4, 5, 6, 7].map((o) => lineOf(starts, o))).toEqual([1, 1, 2, 2, 3, 4, 4]);
  });
});
