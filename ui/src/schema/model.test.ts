import { describe, expect, it } from "vitest";
import {
  emptyModel,
  enumText,
  fromJsonSchema,
  newField,
  parseEnumText,
  parseSchemaText,
  schemaText,
  toJsonSchema,
  type Field,
  type JsonValue,
  type SchemaModel,
} from "./model";
import { addField, fieldPathOfPointer, lintJsonSchema, modelProblems, moveField, removeField, setItemType, updateField } from "./edit";

const invoice = {
  title: "Invoice",
  type: "object",
  properties: {
    invoice_number: { type: "string", description: "As printed" },
    date: { type: "string", format: "date" },
    total: { type: ["number", "null"] },
    currency: { type: "string", enum: ["EUR", "USD", "GBP"] },
    paid: { type: "boolean" },
    vendor: {
      type: "object",
      properties: { name: { type: "string" }, vat_id: { type: "string" } },
      required: ["name"],
    },
    line_items: {
      type: "array",
      description: "One per line",
      items: {
        type: "object",
        properties: { description: { type: "string" }, quantity: { type: "integer", minimum: 0 }, price: { type: "number" } },
        required: ["description", "price"],
        additionalProperties: false,
      },
    },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["invoice_number", "total"],
  additionalProperties: false,
} satisfies JsonValue;

function model(schema: JsonValue): SchemaModel {
  const result = fromJsonSchema(schema);
  if (!result.ok) throw new Error(result.error);
  return result.model;
}

/** The field tree without editor ids, to compare shapes. */
function shape(fields: readonly Field[]): unknown[] {
  return fields.map((f) => ({
    name: f.name,
    type: f.type,
    required: f.required,
    ...(f.nullable ? { nullable: true } : {}),
    ...(f.description ? { description: f.description } : {}),
    ...(f.enumValues.length ? { enum: f.enumValues } : {}),
    ...(f.type === "array" ? { itemType: f.itemType } : {}),
    ...(Object.keys(f.extra).length ? { extra: f.extra } : {}),
    ...(Object.keys(f.itemsExtra).length ? { itemsExtra: f.itemsExtra } : {}),
    ...(f.children.length ? { children: shape(f.children) } : {}),
  }));
}

describe("JSON Schema -> fields", () => {
  it("reads every kind of field in property order", () => {
    const m = model(invoice);
    expect(m.title).toBe("Invoice");
    expect(m.extra).toEqual({ additionalProperties: false });
    expect(shape(m.fields)).toEqual([
      { name: "invoice_number", type: "string", required: true, description: "As printed" },
      { name: "date", type: "string", required: false, extra: { format: "date" } },
      { name: "total", type: "number", required: true, nullable: true },
      { name: "currency", type: "string", required: false, enum: ["EUR", "USD", "GBP"] },
      { name: "paid", type: "boolean", required: false },
      {
        name: "vendor",
        type: "object",
        required: false,
        children: [
          { name: "name", type: "string", required: true },
          { name: "vat_id", type: "string", required: false },
        ],
      },
      {
        name: "line_items",
        type: "array",
        required: false,
        description: "One per line",
        itemType: "object",
        itemsExtra: { additionalProperties: false },
        children: [
          { name: "description", type: "string", required: true },
          { name: "quantity", type: "integer", required: false, extra: { minimum: 0 } },
          { name: "price", type: "number", required: true },
        ],
      },
      { name: "tags", type: "array", required: false, itemType: "string" },
    ]);
  });

  it("keeps a property it cannot show as a custom field, unchanged", () => {
    const schema = {
      type: "object",
      properties: { amount: { anyOf: [{ type: "number" }, { type: "string" }] }, x: { type: ["string", "number"] } },
      required: ["amount"],
    } satisfies JsonValue;
    const m = model(schema);
    expect(m.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["amount", "custom", true],
      ["x", "custom", false],
    ]);
    expect(toJsonSchema(m)).toEqual(schema);
  });

  it("refuses a top level that is not an object schema", () => {
    expect(fromJsonSchema([1, 2])).toEqual({ ok: false, error: "The schema must be a JSON object." });
    expect(fromJsonSchema({ type: "array" })).toEqual({
      ok: false,
      error: 'The schema\'s top level must have "type": "object".',
    });
    expect(fromJsonSchema({ type: "object", properties: [] })).toEqual({
      ok: false,
      error: '"properties" must be an object.',
    });
  });
});

describe("fields -> JSON Schema", () => {
  it("writes nested objects, arrays of objects, enums and required lists", () => {
    let m = emptyModel();
    const a = addField(m, null, { ...newField("number"), required: true, description: "Invoice number" });
    m = a.model;
    const status = addField(m, null, { ...newField("status"), enumValues: ["open", "paid"] });
    m = status.model;
    const vendor = addField(m, null, newField("vendor", "object"));
    m = vendor.model;
    m = addField(m, vendor.field.id, { ...newField("name"), required: true }).model;
    const items = addField(m, null, newField("items", "array"));
    m = items.model;
    m = addField(m, items.field.id, { ...newField("price", "number"), required: true }).model;
    m = addField(m, items.field.id, newField("qty", "integer")).model;

    expect(toJsonSchema(m)).toEqual({
      type: "object",
      properties: {
        number: { type: "string", description: "Invoice number" },
        status: { type: "string", enum: ["open", "paid"] },
        vendor: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        items: {
          type: "array",
          items: { type: "object", properties: { price: { type: "number" }, qty: { type: "integer" } }, required: ["price"] },
        },
      },
      required: ["number"],
    });
    expect(Object.keys((toJsonSchema(m).properties as Record<string, unknown>) ?? {})).toEqual([
      "number",
      "status",
      "vendor",
      "items",
    ]);
  });

  it("writes a nullable field as a type list and drops an empty required list", () => {
    const m = addField(emptyModel(), null, { ...newField("total", "number"), nullable: true }).model;
    expect(toJsonSchema(m)).toEqual({ type: "object", properties: { total: { type: ["number", "null"] } } });
  });

  it("round-trips the invoice schema exactly, key order included", () => {
    const back = toJsonSchema(model(invoice));
    expect(back).toEqual(invoice);
    expect(JSON.stringify(back)).toBe(JSON.stringify({ title: invoice.title, type: "object", properties: invoice.properties, required: invoice.required, additionalProperties: false }));
    expect(schemaText(model(JSON.parse(schemaText(model(invoice)))))).toBe(schemaText(model(invoice)));
  });
});

describe("editing the field tree", () => {
  it("changes the type of a field and clears what no longer applies", () => {
    let m = model(invoice);
    const currency = m.fields[3]!;
    m = updateField(m, currency.id, { type: "boolean" });
    expect(toJsonSchema(m).properties).toMatchObject({ currency: { type: "boolean" } });
    expect((toJsonSchema(m).properties as Record<string, Record<string, unknown>>).currency).toEqual({ type: "boolean" });
    const vendor = m.fields[5]!;
    m = updateField(m, vendor.id, { type: "string" });
    expect((toJsonSchema(m).properties as Record<string, unknown>).vendor).toEqual({ type: "string" });
  });

  it("edits, renames, moves and removes nested fields by id", () => {
    let m = model(invoice);
    const lineItems = m.fields[6]!;
    const price = lineItems.children[2]!;
    m = updateField(m, price.id, { name: "unit_price", required: false });
    m = moveField(m, price.id, -1);
    m = moveField(m, lineItems.children[0]!.id, -1); // already first: no change
    const items = (toJsonSchema(m).properties as Record<string, Record<string, Record<string, unknown>>>).line_items!.items!;
    expect(Object.keys(items.properties as object)).toEqual(["description", "unit_price", "quantity"]);
    expect(items.required).toEqual(["description"]);
    m = removeField(m, lineItems.children[0]!.id);
    const after = (toJsonSchema(m).properties as Record<string, Record<string, Record<string, unknown>>>).line_items!.items!;
    expect(Object.keys(after.properties as object)).toEqual(["unit_price", "quantity"]);
    expect(after.required).toBeUndefined();
  });

  it("switches an array between object items and scalar items", () => {
    let m = model(invoice);
    const tags = m.fields[7]!;
    m = setItemType(m, tags.id, "number");
    expect((toJsonSchema(m).properties as Record<string, unknown>).tags).toEqual({ type: "array", items: { type: "number" } });
    m = setItemType(m, m.fields[6]!.id, "string");
    expect((toJsonSchema(m).properties as Record<string, unknown>).line_items).toEqual({
      type: "array",
      description: "One per line",
      items: { type: "string" },
    });
  });

  it("names new fields uniquely among their siblings", () => {
    let m = emptyModel();
    m = addField(m, null).model;
    m = addField(m, null).model;
    m = addField(m, null).model;
    expect(m.fields.map((f) => f.name)).toEqual(["field", "field_2", "field_3"]);
  });

  it("flags empty names, duplicates and empty item lists", () => {
    let m = model(invoice);
    m = updateField(m, m.fields[1]!.id, { name: "invoice_number" });
    m = updateField(m, m.fields[4]!.id, { name: " " });
    m = addField(m, null, newField("rows", "array")).model;
    expect(modelProblems(m).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'invoice_number: The name "invoice_number" is used twice here.',
      " : A field needs a name.",
      "rows: An array of objects needs at least one item field.",
    ]);
    expect(modelProblems(emptyModel()).map((p) => p.message)).toEqual(["Add at least one field."]);
  });
});

describe("the JSON text", () => {
  it("parses valid text into a model", () => {
    const result = parseSchemaText(JSON.stringify(invoice));
    expect(result.ok).toBe(true);
    if (result.ok) expect(toJsonSchema(result.model)).toEqual(invoice);
  });

  it("locates a syntax error by line and column", () => {
    const text = '{\n  "type": "object",\n  "properties": {\n    "a": {"type": "string"},\n  }\n}';
    const result = parseSchemaText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.line).toBe(5);
      expect(result.problem.column).toBe(3);
      expect(result.problem.from).toBe(text.indexOf("}\n}"));
      expect(result.problem.message).toMatch(/^Invalid JSON at line 5, column 3: /);
    }
  });

  it("reports truncated text at its end, and empty text", () => {
    const text = '{"type": "object"';
    const result = parseSchemaText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.from).toBe(text.length);
    const empty = parseSchemaText("  \n");
    expect(empty).toEqual({ ok: false, problem: { message: "The text is empty.", from: 0, to: 0, line: 1, column: 1 } });
  });

  it("keeps the parsed value when it is JSON but not an object schema", () => {
    const result = parseSchemaText('{"type": "array"}');
    expect(result).toEqual({
      ok: false,
      value: { type: "array" },
      problem: { message: 'The schema\'s top level must have "type": "object".', from: 0, to: 1, line: 1, column: 1 },
    });
  });

  it("lints JSON-Schema keywords with their pointers", () => {
    expect(lintJsonSchema(invoice)).toEqual([]);
    expect(
      lintJsonSchema({
        type: "object",
        properties: {
          a: { type: "text" },
          b: { type: "array", items: [{ type: "string" }] },
          c: { type: "string", enum: [] },
          d: { type: "object", properties: { e: 3 }, required: ["e", "e"] },
        },
        required: "a",
      }),
    ).toEqual([
      '/properties/a: "type" "text" is not a JSON Schema type',
      '/properties/b: "items" must be one schema (use prefixItems for tuples)',
      '/properties/c: "enum" must be a non-empty list',
      "/properties/d/properties/e: a schema must be an object",
      '/properties/d: "required" names a property twice',
      '/: "required" must be a list of property names',
    ]);
  });
});

describe("the enum box", () => {
  it("splits on commas and converts numbers for numeric fields", () => {
    expect(parseEnumText(" EUR, USD ,, GBP ", "string")).toEqual(["EUR", "USD", "GBP"]);
    expect(parseEnumText("1, 2.5, x, 3", "number")).toEqual([1, 2.5, 3]);
    expect(parseEnumText("1, 2.5, 3", "integer")).toEqual([1, 3]);
    expect(enumText(["EUR", 2, true])).toBe("EUR, 2, true");
  });
});

describe("the engine's problem paths", () => {
  it("name the field they are about", () => {
    expect(fieldPathOfPointer("/properties/total")).toBe("total");
    expect(fieldPathOfPointer("/properties/total/type")).toBe("total");
    expect(fieldPathOfPointer("/properties/vendor/properties/name/enum")).toBe("vendor.name");
    expect(fieldPathOfPointer("/properties/lines/items/properties/amount/type")).toBe("lines[].amount");
    expect(fieldPathOfPointer("/properties/lines/items")).toBe("lines");
    expect(fieldPathOfPointer("/properties/a~1b")).toBe("a/b");
    expect(fieldPathOfPointer("")).toBeNull();
    expect(fieldPathOfPointer("/required/0")).toBeNull();
    expect(fieldPathOfPointer("/type")).toBeNull();
  });
});
