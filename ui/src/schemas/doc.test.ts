import { describe, expect, it } from "vitest";
import { isDirty, loadedDoc, nameProblem, newDoc, savedDoc, withModel, withText } from "./doc";
import { updateField } from "../schema/edit";

const text = '{\n  "type": "object",\n  "properties": {\n    "total": { "type": "number" }\n  }\n}\n';

describe("the schema being edited", () => {
  it("starts a new schema with one required field, not saved and with nothing to lose", () => {
    const doc = newDoc("receipts");
    expect(JSON.parse(doc.text)).toEqual({ type: "object", properties: { field: { type: "string" } }, required: ["field"] });
    expect(doc.version).toBeNull();
    expect(isDirty(doc)).toBe(false);
    expect(isDirty(withText(doc, doc.text.replace("field", "x")))).toBe(true);
  });

  it("follows a visual edit in the text", () => {
    let doc = loadedDoc("inv", 2, text);
    expect(isDirty(doc)).toBe(false);
    doc = withModel(doc, updateField(doc.model, doc.model.fields[0]!.id, { name: "amount", required: true }));
    expect(JSON.parse(doc.text)).toEqual({ type: "object", properties: { amount: { type: "number" } }, required: ["amount"] });
    expect(isDirty(doc)).toBe(true);
    expect(isDirty(savedDoc(doc, 3))).toBe(false);
    expect(savedDoc(doc, 3).version).toBe(3);
  });

  it("follows a text edit in the fields, and keeps the last good fields on bad text", () => {
    let doc = loadedDoc("inv", 1, text);
    doc = withText(doc, text.replace('"total"', '"sum"'));
    expect(doc.model.fields.map((f) => f.name)).toEqual(["sum"]);
    expect(doc.textProblem).toBeNull();
    doc = withText(doc, '{"type": "object", "properties": {"x": ');
    expect(doc.model.fields.map((f) => f.name)).toEqual(["sum"]);
    expect(doc.textProblem?.line).toBe(1);
    expect(doc.text).toBe('{"type": "object", "properties": {"x": ');
    doc = withText(doc, '{"type": "object", "properties": {"x": {"type": "boolean"}}}');
    expect(doc.model.fields.map((f) => [f.name, f.type])).toEqual([["x", "boolean"]]);
    expect(doc.textProblem).toBeNull();
  });

  it("checks library names", () => {
    expect(nameProblem("invoice_v2.1")).toBeNull();
    expect(nameProblem(" ")).toBe("Give the schema a name.");
    expect(nameProblem("my schema")).toBe("Use letters, digits, _, - and . only.");
  });
});
