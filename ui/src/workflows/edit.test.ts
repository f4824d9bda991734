import { describe, expect, it } from "vitest";
import { addStep, connect, deleteStep, disconnect, EditError, renameStep, setStepField, wouldCycle } from "./edit";
import { parseWorkflow } from "./graph";
import { CLASSIFY, DIAMOND } from "./fixtures";

/** `text` with each [old, new] replaced once; fails when `old` is not there exactly once. */
function changed(text: string, ...edits: [string, string][]): string {
  let out = text;
  for (const [from, to] of edits) {
    expect(out.split(from).length - 1, `"${from}" once`).toBe(1);
    out = out.replace(from, () => to);
  }
  return out;
}

describe("round trips", () => {
  it("an edit and its inverse give back the exact text", () => {
    expect(disconnect(connect(CLASSIFY, 0, 1), 0, 1)).not.toBe(CLASSIFY); // record already depended on classify
    const added = addStep(CLASSIFY, "run");
    expect(deleteStep(added.text, 2)).toBe(CLASSIFY);
    expect(renameStep(renameStep(CLASSIFY, 0, "sort"), 0, "classify")).toBe(CLASSIFY);
    expect(setStepField(setStepField(CLASSIFY, 1, "command", "echo hi"), 1, "command", 'echo "${steps.classify.outputs.category}"')).toBe(CLASSIFY);
    expect(setStepField(setStepField(CLASSIFY, 0, "system", "Be brief."), 0, "system", undefined)).toBe(CLASSIFY);
    expect(disconnect(connect(DIAMOND, 0, 3), 0, 3)).toBe(DIAMOND);
  });

  it("an edit that changes nothing leaves the text as it is", () => {
    expect(connect(CLASSIFY, 0, 1)).toBe(CLASSIFY);
    expect(disconnect(CLASSIFY, 1, 0)).toBe(CLASSIFY);
    expect(renameStep(CLASSIFY, 0, "classify")).toBe(CLASSIFY);
    expect(setStepField(CLASSIFY, 0, "prompt", "Classify this note: please refund my 12.50")).toBe(CLASSIFY);
    expect(setStepField(CLASSIFY, 1, "files", undefined)).toBe(CLASSIFY);
  });
});

describe("addStep", () => {
  it("appends a shell step after the last step, before the next document", () => {
    const { text, id } = addStep(CLASSIFY, "run");
    expect(id).toBe("step3");
    expect(text).toBe(changed(CLASSIFY, ["    output: LINE               # stdout\n", "    output: LINE               # stdout\n  - id: step3\n    run: echo step3\n"]));
    expect(parseWorkflow(text).nodes.map((n) => n.key)).toEqual(["classify", "record", "step3"]);
  });

  it("adds chat and dag.run steps with their fields and depends", () => {
    const chat = addStep(DIAMOND, "chat", { id: "ask", depends: ["d"] });
    expect(chat.text).toBe(`${DIAMOND}  - id: ask\n    action: chat.completion\n    with:\n      prompt: ""\n    depends: d\n`);
    const dag = addStep(CLASSIFY, "dag", { depends: ["classify", "record"] });
    expect(dag.text).toBe(
      changed(CLASSIFY, [
        "    output: LINE               # stdout\n",
        "    output: LINE               # stdout\n  - id: step3\n    action: dag.run\n    with:\n      dag: get-weather\n    depends: [classify, record]\n",
      ]),
    );
  });

  it("starts a file, or a steps list, when there is none", () => {
    expect(addStep("", "run").text).toBe("steps:\n  - id: step1\n    run: echo step1\n");
    expect(addStep("name: x # the name\n", "run").text).toBe("name: x # the name\nsteps:\n  - id: step1\n    run: echo step1\n");
    expect(addStep("name: x\nsteps:\n", "run").text).toBe("name: x\nsteps:\n  - id: step1\n    run: echo step1\n");
  });

  it("keeps the list's own indentation", () => {
    const text = "steps:\n- id: a\n  run: x\n";
    expect(addStep(text, "run").text).toBe("steps:\n- id: a\n  run: x\n- id: step2\n  run: echo step2\n");
  });
});

describe("connect and disconnect", () => {
  it("adds depends as a string, then turns it into a flow list", () => {
    const added = addStep(CLASSIFY, "run").text;
    const one = connect(added, 1, 2);
    expect(one).toBe(changed(added, ["    run: echo step3\n", "    run: echo step3\n    depends: record\n"]));
    const two = connect(one, 0, 2);
    expect(two).toBe(changed(one, ["    depends: record\n", "    depends: [record, classify]\n"]));
    expect(disconnect(two, 1, 2)).toBe(changed(one, ["    depends: record\n", "    depends: [classify]\n"]));
  });

  it("appends to a block list and removes the item's line", () => {
    const text = addStep(DIAMOND, "run", { id: "e" }).text;
    const joined = connect(text, 4, 3);
    expect(joined).toBe(changed(text, ["      - c\n", "      - c\n      - e\n"]));
    expect(disconnect(joined, 1, 3)).toBe(changed(joined, ["      - b   # first\n", ""]));
  });

  it("removes depends when its last entry goes, keeping the other lines", () => {
    expect(disconnect(CLASSIFY, 0, 1)).toBe(changed(CLASSIFY, ["    depends: classify          # a step id\n", ""]));
    expect(disconnect(DIAMOND, 0, 2)).toBe(changed(DIAMOND, ["    depends: [a]\n", ""]));
  });

  it("refuses a cycle or a self-loop, and tells which", () => {
    expect(() => connect(DIAMOND, 3, 0)).toThrow(new EditError("a cannot depend on d: that would make a cycle"));
    expect(() => connect(DIAMOND, 1, 1)).toThrow(EditError);
    const graph = parseWorkflow(DIAMOND);
    expect([wouldCycle(graph, "d", "a"), wouldCycle(graph, "a", "d"), wouldCycle(graph, "b", "c")]).toEqual([true, false, false]);
  });
});

describe("deleteStep", () => {
  it("removes the step, its comment and the edges to it", () => {
    expect(deleteStep(CLASSIFY, 0)).toBe(
      CLASSIFY.replace(/ {2}# classify the note\n[\s\S]*?\n\n/, "").replace("    depends: classify          # a step id\n", ""),
    );
    expect(deleteStep(CLASSIFY, 1)).toBe(CLASSIFY.replace(/\n {2}- id: record[\s\S]*?# stdout\n/, "\n").replace("required: [category]\n\n", "required: [category]\n"));
  });

  it("removes a middle step and its entries in block and flow lists", () => {
    expect(deleteStep(DIAMOND, 1)).toBe(`steps:
  - name: a
    command: echo a
  - name: c
    depends: [a]
    command: echo c
  - name: d
    depends:
      - c
    command: echo d
`);
    expect(deleteStep(DIAMOND, 0)).toBe(`steps:
  - name: b
    command: echo b
  - name: c
    command: echo c
  - name: d
    depends:
      - b   # first
      - c
    command: echo d
`);
  });

  it("leaves an empty steps key when the last step goes, and a step can be added again", () => {
    const none = deleteStep("steps:\n  - id: a\n    run: x\n", 0);
    expect(none).toBe("steps:\n");
    expect(addStep(none, "run").text).toBe("steps:\n  - id: step1\n    run: echo step1\n");
  });
});

describe("renameStep", () => {
  it("renames the id, the depends entries and ${steps.ID.} references, keeping comment columns", () => {
    expect(renameStep(CLASSIFY, 0, "sort")).toBe(
      changed(
        CLASSIFY,
        ["  - id: classify               # the id", "  - id: sort                   # the id"],
        ["    depends: classify          # a step id", "    depends: sort              # a step id"],
        ["${steps.classify.outputs.category}", "${steps.sort.outputs.category}"],
      ),
    );
  });

  it("renames a name in block and flow lists, and gives an unnamed step an id", () => {
    expect(renameStep(DIAMOND, 0, "start")).toBe(
      changed(DIAMOND, ["  - name: a\n", "  - name: start\n"], ["depends: a\n", "depends: start\n"], ["depends: [a]", "depends: [start]"]),
    );
    expect(renameStep(DIAMOND, 1, "bee")).toBe(changed(DIAMOND, ["  - name: b\n", "  - name: bee\n"], ["      - b   # first", "      - bee # first"]));
    expect(renameStep("steps:\n  - run: x\n", 0, "first")).toBe("steps:\n  - id: first\n    run: x\n");
  });

  it("quotes a value YAML would misread and keeps the old quoting", () => {
    expect(renameStep("steps:\n  - id: 'a'\n    run: x\n", 0, "it's")).toBe("steps:\n  - id: 'it''s'\n    run: x\n");
    expect(renameStep("steps:\n  - name: a\n    run: x\n", 0, "true")).toBe('steps:\n  - name: "true"\n    run: x\n');
  });
});

describe("setStepField", () => {
  it("replaces a scalar in place, keeping its quotes and the comment after it", () => {
    expect(setStepField(CLASSIFY, 0, "prompt", "Say hi")).toBe(changed(CLASSIFY, ['prompt: "Classify this note: please refund my 12.50"', 'prompt: "Say hi"']));
    expect(setStepField(CLASSIFY, 0, "provider", "openai")).toBe(changed(CLASSIFY, ["provider: local          # local", "provider: openai         # local"]));
    expect(setStepField(CLASSIFY, 1, "output", "OUT")).toBe(changed(CLASSIFY, ["output: LINE               # stdout", "output: OUT                # stdout"]));
  });

  it("writes multi-line text as a block scalar and back", () => {
    const block = setStepField(CLASSIFY, 0, "prompt", "Line one\nLine two");
    expect(block).toBe(changed(CLASSIFY, ['      prompt: "Classify this note: please refund my 12.50"\n', "      prompt: |-\n        Line one\n        Line two\n"]));
    expect(setStepField(block, 0, "prompt", "one line")).toBe(changed(CLASSIFY, ['      prompt: "Classify this note: please refund my 12.50"\n', "      prompt: one line\n"]));
  });

  it("adds a with field after the others, and with itself when missing", () => {
    expect(setStepField(CLASSIFY, 0, "system", "Be brief.")).toBe(changed(CLASSIFY, ['12.50"\n', '12.50"\n      system: Be brief.\n']));
    const text = "steps:\n  - id: ask   # asks\n    action: chat.completion\n";
    expect(setStepField(text, 0, "prompt", "hi")).toBe(`${text}    with:\n      prompt: hi\n`);
    expect(setStepField(setStepField(text, 0, "prompt", "hi"), 0, "prompt", undefined)).toBe(text);
  });

  it("sets lists in flow style: model fallback, tools, files", () => {
    expect(setStepField(CLASSIFY, 0, "model", ["a", "b"])).toBe(changed(CLASSIFY, ["model: smollm2", "model: [a, b]"]));
    const tools = setStepField(CLASSIFY, 0, "tools", ["get-weather"]);
    expect(tools).toBe(changed(CLASSIFY, ['12.50"\n', '12.50"\n      tools: [get-weather]\n']));
    expect(setStepField(tools, 0, "tools", ["get-weather", "other"])).toBe(changed(CLASSIFY, ['12.50"\n', '12.50"\n      tools: [get-weather, other]\n']));
    expect(setStepField(CLASSIFY, 0, "files", "in/*.pdf")).toBe(changed(CLASSIFY, ['12.50"\n', '12.50"\n      files: in/*.pdf\n']));
  });

  it("replaces output_schema under its key, keeping the key's comment, beside with or inside it", () => {
    const schema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };
    expect(setStepField(CLASSIFY, 0, "output_schema", schema)).toBe(
      CLASSIFY.replace(
        /( {4}output_schema: {13}# beside with\n)[\s\S]*?required: \[category\]\n/,
        "$1      type: object\n      properties:\n        total:\n          type: number\n      required: [total]\n",
      ),
    );
    const inside = "steps:\n  - id: a\n    action: chat.completion\n    with:\n      prompt: hi\n      output_schema: {type: object}\n";
    expect(setStepField(inside, 0, "output_schema", { type: "object", properties: { x: { type: "string" } } })).toBe(
      "steps:\n  - id: a\n    action: chat.completion\n    with:\n      prompt: hi\n      output_schema:\n        type: object\n        properties:\n          x:\n            type: string\n",
    );
    expect(setStepField(CLASSIFY, 0, "output_schema", undefined)).toBe(CLASSIFY.replace(/ {4}output_schema:[\s\S]*?required: \[category\]\n/, ""));
  });

  it("sets the command under the key the step already uses, and edits flow maps", () => {
    expect(setStepField(DIAMOND, 0, "command", "echo A")).toBe(changed(DIAMOND, ["command: echo a", "command: echo A"]));
    const flow = "steps:\n  - id: s\n    action: dag.run\n    with: {dag: x, params: Y=1}\n";
    expect(setStepField(flow, 0, "dag", "z")).toBe("steps:\n  - id: s\n    action: dag.run\n    with: {dag: z, params: Y=1}\n");
  });

  it("refuses to edit a file with YAML errors", () => {
    expect(() => setStepField("steps:\n  - id: a\n    id: b\n", 0, "command", "x")).toThrow(EditError);
  });
});

describe("CRLF files", () => {
  it("keeps \\r\\n line ends in every edit", () => {
    const crlf = CLASSIFY.replace(/\n/g, "\r\n");
    const lf = (text: string) => text.replace(/\r\n/g, "\n");
    const added = addStep(crlf, "run").text;
    expect(added).toBe(addStep(CLASSIFY, "run").text.replace(/\n/g, "\r\n"));
    expect(lf(deleteStep(crlf, 0))).toBe(deleteStep(CLASSIFY, 0));
    expect(lf(deleteStep(crlf, 1))).toBe(deleteStep(CLASSIFY, 1));
    expect(lf(setStepField(crlf, 0, "prompt", "a\nb"))).toBe(setStepField(CLASSIFY, 0, "prompt", "a\nb"));
    expect(lf(connect(addStep(DIAMOND.replace(/\n/g, "\r\n"), "run", { id: "e" }).text, 4, 3))).toBe(connect(addStep(DIAMOND, "run", { id: "e" }).text, 4, 3));
    expect(lf(renameStep(crlf, 0, "sort"))).toBe(renameStep(CLASSIFY, 0, "sort"));
    for (const text of [added, deleteStep(crlf, 0), setStepField(crlf, 0, "prompt", "a\nb"), setStepField(crlf, 0, "output_schema", { type: "object", properties: { x: { type: "string" } } })]) {
      expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    }
  });
});

describe("edge cases", () => {
  it("adds after a last line without a newline, and to a file with a leading ---", () => {
    expect(addStep("steps:\n  - id: a\n    run: x", "run").text).toBe("steps:\n  - id: a\n    run: x\n  - id: step2\n    run: echo step2\n");
    expect(addStep("---\nsteps:\n  - id: a\n    run: x\n", "run").text).toBe("---\nsteps:\n  - id: a\n    run: x\n  - id: step2\n    run: echo step2\n");
  });

  it("removes the first key of a step, moving the next one up to the dash", () => {
    expect(setStepField("steps:\n  - output: X\n    run: x\n", 0, "output", undefined)).toBe("steps:\n  - run: x\n");
    expect(setStepField("steps:\n  - run: x\n", 0, "command", undefined)).toBe("steps:\n  - {}\n");
  });

  it("connects a step whose depends is an empty list, and keeps a comment between steps", () => {
    expect(connect("steps:\n  - id: a\n    run: x\n  - id: b\n    depends: []\n    run: y\n", 0, 1)).toBe("steps:\n  - id: a\n    run: x\n  - id: b\n    depends: a\n    run: y\n");
    const text = "steps:\n  - id: a\n    run: x\n# the second part\n  - id: b\n    run: y\n";
    expect(deleteStep(text, 0)).toBe("steps:\n# the second part\n  - id: b\n    run: y\n");
  });

  it("replaces a block scalar with a plain one and sets an unquoted number-like string quoted", () => {
    expect(setStepField("steps:\n  - id: a\n    run: |\n      echo 1\n      echo 2\n    output: X\n", 0, "command", "echo 3")).toBe("steps:\n  - id: a\n    run: echo 3\n    output: X\n");
    expect(setStepField("steps:\n  - id: a\n    action: chat.completion\n    with:\n      model: m\n", 0, "model", "4")).toBe('steps:\n  - id: a\n    action: chat.completion\n    with:\n      model: "4"\n');
  });

  it("never touches the later documents", () => {
    const tail = CLASSIFY.slice(CLASSIFY.indexOf("---\n"));
    for (const text of [addStep(CLASSIFY, "chat").text, deleteStep(CLASSIFY, 1), renameStep(CLASSIFY, 1, "write"), setStepField(CLASSIFY, 1, "command", "true")]) {
      expect(text.endsWith(tail)).toBe(true);
    }
  });
});
