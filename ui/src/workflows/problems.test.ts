import { describe, expect, it } from "vitest";
import { findCycle, localProblems, placeProblems } from "./problems";
import { parseWorkflow } from "./graph";
import { CLASSIFY } from "./fixtures";

describe("placeProblems", () => {
  it("puts the engine's messages on the nodes and lines they name", () => {
    const text = `steps:
  - id: a
    run: x
  - id: b
    depends: [a, zzz]
    run: y
`;
    const placed = placeProblems(text, [
      "step 'a': unknown action foo (Sift has chat.completion and dag.run)",
      "step b depends on non-existent step zzz",
      "cyclic plan detected: a -> b -> a",
      "step ID 'b' conflicts with another step's name",
      "step name must be unique: a",
      "the workflow has no steps",
    ]);
    expect(placed.map((p) => [p.nodes, p.line, text.slice(p.from, p.to)])).toEqual([
      [["a"], 2, "id: a"],
      [["b"], 5, "zzz"],
      [["a", "b"], 2, "id: a"],
      [["b"], 4, "id: b"],
      [["a"], 2, "id: a"],
      [[], null, "steps:"],
    ]);
  });

  it("places a message about a step that is not there on the file", () => {
    expect(placeProblems(CLASSIFY, ["step 'ghost': with must be a mapping"])).toEqual([
      { message: "step 'ghost': with must be a mapping", nodes: [], line: null, from: 0, to: 14 + 17 + 11 },
    ]);
  });
});

describe("localProblems", () => {
  it("finds the graph-shaped problems in the engine's words", () => {
    const graph = parseWorkflow(`steps:
  - id: my-step
    run: x
  - id: b
    depends: [c, nope]
  - id: c
    depends: b
    action: chat.completion
    with: {prompt: ""}
  - name: c
    run: z
`);
    expect(localProblems(graph)).toEqual([
      "step 'my-step': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')",
      "step 'b': nothing to run: give it run:, command: or action:",
      "step b depends on non-existent step nope",
      "step 'c': with.prompt must be a non-empty string",
      "step name must be unique: c",
      "cyclic plan detected: b -> c -> b",
    ]);
    expect(localProblems(parseWorkflow(CLASSIFY))).toEqual([]);
  });

  it("finds no cycle in a DAG", () => {
    expect(findCycle(parseWorkflow(CLASSIFY))).toBeNull();
  });
});
