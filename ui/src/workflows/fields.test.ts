import { describe, expect, it } from "vitest";
import { newFileProblem } from "./NewFile";
import { modelText, parseFiles, parseModel, parseParams, parseSchemaDraft, schemaText } from "./fields";

describe("side panel fields", () => {
  it("shows and reads the model as a name, a fallback list or JSON", () => {
    expect([modelText(null), modelText("m"), modelText(["a", "b"]), modelText([{ provider: "openai", name: "x" }])]).toEqual(["", "m", "a, b", '[{"provider":"openai","name":"x"}]']);
    expect(parseModel("  m ", null)).toBe("m");
    expect(parseModel("a, b,", null)).toEqual(["a", "b"]);
    expect(parseModel("", "m")).toBeUndefined();
    expect(parseModel('[{"name":"x"}]', null)).toEqual([{ name: "x" }]);
    expect(parseModel('[{"name":', ["old"])).toEqual(["old"]);
  });

  it("reads files one per line", () => {
    expect([parseFiles(""), parseFiles(" a.pdf \n\n"), parseFiles("a\nb/*.png")]).toEqual([undefined, "a.pdf", ["a", "b/*.png"]]);
  });

  it("keeps a schema draft that does not parse, and lets an outside edit win over a stale one", () => {
    const current = { type: "object", properties: { a: { type: "string" } } };
    expect(parseSchemaDraft(null, current)).toEqual({ text: schemaText(current), value: current, error: null });
    expect(parseSchemaDraft('{"type": ', current)).toEqual({ text: '{"type": ', value: undefined, error: "Not valid JSON" });
    expect(parseSchemaDraft("[1]", current).error).toBe("The schema must be a JSON object");
    const typed = '{"type":"object","properties":{"a":{"type":"string"}}}';
    expect(parseSchemaDraft(typed, current)).toEqual({ text: typed, value: current, error: null });
    // The YAML changed the schema since: the draft is stale.
    expect(parseSchemaDraft(typed, { type: "object" })).toEqual({ text: schemaText({ type: "object" }), value: { type: "object" }, error: null });
    expect(parseSchemaDraft("", null)).toEqual({ text: "", value: undefined, error: null });
  });
});

describe("run params", () => {
  it("reads KEY=value pairs and refuses a bare word", () => {
    expect(parseParams(" CITY=Paris\nCODE=0  EMPTY= ")).toEqual({ params: [["CITY", "Paris"], ["CODE", "0"], ["EMPTY", ""]], error: null });
    expect(parseParams("")).toEqual({ params: [], error: null });
    expect(parseParams("A=1 oops")).toEqual({ params: [], error: '"oops" is not KEY=value' });
    expect(parseParams("=x").error).toBe('"=x" is not KEY=value');
  });
});

describe("a new file's name", () => {
  it("must end in .yaml, stay in the folder and be free", () => {
    expect(newFileProblem("flow.yaml", [])).toBeNull();
    expect(newFileProblem("flow.yml", [])).toBeNull();
    expect(newFileProblem(" ", [])).toBe("Give the file a name.");
    expect(newFileProblem("sub/flow.yml", [])).toBe("The file goes directly in the folder, not in a subfolder.");
    expect(newFileProblem("../x.yaml", [])).toBe("The file goes directly in the folder, not in a subfolder.");
    expect(newFileProblem("/etc/x.yaml", [])).toBe("The file goes directly in the folder, not in a subfolder.");
    expect(newFileProblem("flow.txt", [])).toBe("The name must end in .yaml or .yml.");
    expect(newFileProblem("a.yaml", ["a.yaml"])).toBe("a.yaml already exists.");
  });
});
