import { describe, expect, it } from "vitest";
import { schemaDiagnostics } from "./diagnostics";

describe("the code editor's diagnostics", () => {
  it("puts a syntax error where it is", () => {
    const text = '{"type": "object", "properties": {"a": }}';
    const [d, ...rest] = schemaDiagnostics(text);
    expect(rest).toEqual([]);
    expect(d?.from).toBe(text.indexOf("}}"));
    expect(d?.to).toBe(text.indexOf("}}") + 1);
    expect(d?.message).toMatch(/^Invalid JSON at line 1, column 40: /);
  });

  it("lists keyword problems, and nothing for a good schema", () => {
    expect(schemaDiagnostics('{"type": "object", "properties": {"a": {"type": "str"}}}')).toEqual([
      { from: 0, to: 1, severity: "error", message: '/properties/a: "type" "str" is not a JSON Schema type' },
    ]);
    expect(schemaDiagnostics('{"type": "object", "properties": {"a": {"type": "string"}}}')).toEqual([]);
  });
});
