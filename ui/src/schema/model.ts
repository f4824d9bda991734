// The schema editor's model: a tree of fields that converts to and from a
// JSON Schema, both ways, without a DOM. The visual editor edits this tree;
// the JSON text is `toJsonSchema` of it; text typed by the user comes back
// through `parseSchemaText`. Keywords the editor has no control for are kept
// in `extra` (or, for a property it cannot show at all, as a `custom` field
// holding the property's schema), so a round trip loses nothing.
import { findJsonError } from "./jsonError";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The types the visual editor offers. `custom` is a property it cannot show (kept as JSON). */
export type FieldType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "custom";
/** What an array holds. */
export type ItemType = "string" | "number" | "integer" | "boolean" | "object";

export const FIELD_TYPES: readonly FieldType[] = ["string", "number", "integer", "boolean", "object", "array"];
export const ITEM_TYPES: readonly ItemType[] = ["string", "number", "integer", "boolean", "object"];

export interface Field {
  /** Stable identity for the editor (not part of the schema). */
  id: string;
  name: string;
  type: FieldType;
  description: string;
  required: boolean;
  /** `"type": [T, "null"]`: the model may answer null. */
  nullable: boolean;
  /** Allowed values; empty means any. Strings for string fields, numbers for numeric ones. */
  enumValues: JsonValue[];
  /** An object's fields, or the fields of an array's object items. */
  children: Field[];
  /** What an array holds (ignored for other types). */
  itemType: ItemType;
  /** Other keywords of the property (format, minimum, ...), kept as they are. */
  extra: JsonObject;
  /** Other keywords of an array's `items` schema. */
  itemsExtra: JsonObject;
  /** The whole property schema, for `custom` fields. */
  raw?: JsonValue;
}

export interface SchemaModel {
  title: string;
  description: string;
  fields: Field[];
  /** Other top-level keywords ($schema, additionalProperties, ...). */
  extra: JsonObject;
}

let nextId = 0;
export function newFieldId(): string {
  nextId += 1;
  return `f${nextId}`;
}

export function newField(name: string, type: FieldType = "string"): Field {
  return {
    id: newFieldId(),
    name,
    type,
    description: "",
    required: false,
    nullable: false,
    enumValues: [],
    children: [],
    itemType: "object",
    extra: {},
    itemsExtra: {},
  };
}

export function emptyModel(): SchemaModel {
  return { title: "", description: "", fields: [], extra: {} };
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SCALARS = new Set(["string", "number", "integer", "boolean"]);

function splitType(type: JsonValue | undefined): { base: string | undefined; nullable: boolean } | null {
  if (typeof type === "string") return { base: type, nullable: false };
  if (type === undefined) return { base: undefined, nullable: false };
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) {
    const names = type as string[];
    const nonNull = names.filter((t) => t !== "null");
    if (nonNull.length === 1 && names.length === 2) return { base: nonNull[0], nullable: true };
  }
  return null;
}

function typeValue(base: string, nullable: boolean): JsonValue {
  return nullable ? [base, "null"] : base;
}

function without(object: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (!keys.includes(key)) out[key] = value;
  }
  return out;
}

const PROPERTY_KEYS = ["type", "description", "enum", "properties", "required", "items"] as const;
const ITEMS_KEYS = ["type", "properties", "required"] as const;

/** The fields of an object schema's `properties`, `required` setting each one's flag. */
function fieldsOf(schema: JsonObject): Field[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, property]) => fieldFrom(name, property, required.includes(name)));
}

function customField(name: string, property: JsonValue, required: boolean): Field {
  return { ...newField(name, "custom"), required, raw: property };
}

function fieldFrom(name: string, property: JsonValue, required: boolean): Field {
  if (!isObject(property)) return customField(name, property, required);
  const split = splitType(property.type);
  if (split === null || split.base === undefined) return customField(name, property, required);
  const { base, nullable } = split;
  if (property.description !== undefined && typeof property.description !== "string") {
    return customField(name, property, required);
  }
  if (property.enum !== undefined && !Array.isArray(property.enum)) return customField(name, property, required);
  const field: Field = {
    ...newField(name),
    required,
    nullable,
    description: typeof property.description === "string" ? property.description : "",
    enumValues: Array.isArray(property.enum) ? property.enum : [],
  };
  if (SCALARS.has(base)) {
    if (property.properties !== undefined || property.items !== undefined || property.required !== undefined) {
      return customField(name, property, required);
    }
    return { ...field, type: base as FieldType, extra: without(property, PROPERTY_KEYS) };
  }
  if (base === "object") {
    if (property.items !== undefined || property.enum !== undefined) return customField(name, property, required);
    if (property.properties !== undefined && !isObject(property.properties)) return customField(name, property, required);
    return { ...field, type: "object", children: fieldsOf(property), extra: without(property, PROPERTY_KEYS) };
  }
  if (base === "array") {
    const items = property.items;
    if (!isObject(items) || property.properties !== undefined || property.enum !== undefined) {
      return customField(name, property, required);
    }
    const itemSplit = splitType(items.type);
    if (itemSplit === null || itemSplit.nullable || itemSplit.base === undefined) {
      return customField(name, property, required);
    }
    const itemType = itemSplit.base;
    if (itemType === "object") {
      return {
        ...field,
        type: "array",
        itemType: "object",
        children: fieldsOf(items),
        extra: without(property, PROPERTY_KEYS),
        itemsExtra: without(items, ITEMS_KEYS),
      };
    }
    if (SCALARS.has(itemType) && items.properties === undefined) {
      return {
        ...field,
        type: "array",
        itemType: itemType as ItemType,
        extra: without(property, PROPERTY_KEYS),
        itemsExtra: without(items, ["type"]),
      };
    }
  }
  return customField(name, property, required);
}

/** The object part of a schema for a list of fields: `properties` then `required` (if any). */
function objectBody(fields: readonly Field[]): JsonObject {
  const properties: JsonObject = {};
  for (const field of fields) properties[field.name] = fieldToSchema(field);
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return required.length > 0 ? { properties, required } : { properties };
}

export function fieldToSchema(field: Field): JsonValue {
  if (field.type === "custom") return field.raw ?? {};
  const out: JsonObject = { type: typeValue(field.type, field.nullable) };
  if (field.description !== "") out.description = field.description;
  if (field.type === "object") {
    Object.assign(out, objectBody(field.children));
  } else if (field.type === "array") {
    const items: JsonObject =
      field.itemType === "object"
        ? { type: "object", ...objectBody(field.children), ...field.itemsExtra }
        : { type: field.itemType, ...field.itemsExtra };
    out.items = items;
  } else if (field.enumValues.length > 0) {
    out.enum = field.enumValues;
  }
  return { ...out, ...field.extra };
}

/** The JSON Schema the model stands for, keys in a stable order. */
export function toJsonSchema(model: SchemaModel): JsonObject {
  const out: JsonObject = {};
  if (model.title !== "") out.title = model.title;
  if (model.description !== "") out.description = model.description;
  out.type = "object";
  Object.assign(out, objectBody(model.fields));
  return { ...out, ...model.extra };
}

export type FromSchemaResult = { ok: true; model: SchemaModel } | { ok: false; error: string };

/** A model from a parsed schema; fails only when the top level is not an object schema. */
export function fromJsonSchema(schema: JsonValue): FromSchemaResult {
  if (!isObject(schema)) return { ok: false, error: "The schema must be a JSON object." };
  if (schema.type !== undefined && schema.type !== "object") {
    return { ok: false, error: 'The schema\'s top level must have "type": "object".' };
  }
  if (schema.properties !== undefined && !isObject(schema.properties)) {
    return { ok: false, error: '"properties" must be an object.' };
  }
  return {
    ok: true,
    model: {
      title: typeof schema.title === "string" ? schema.title : "",
      description: typeof schema.description === "string" ? schema.description : "",
      fields: fieldsOf(schema),
      extra: without(schema, ["title", "description", "type", "properties", "required"]),
    },
  };
}

export function schemaText(model: SchemaModel): string {
  return `${JSON.stringify(toJsonSchema(model), null, 2)}\n`;
}

export interface TextProblem {
  message: string;
  /** 0-based offsets into the text. */
  from: number;
  to: number;
  line: number;
  column: number;
}

export type ParseTextResult =
  | { ok: true; value: JsonValue; model: SchemaModel }
  | { ok: false; problem: TextProblem; value?: JsonValue };

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

function problemAt(text: string, message: string, from: number, to = from): TextProblem {
  const { line, column } = lineColumn(text, from);
  return { message, from, to: Math.max(from, to), line, column };
}

/** The user's JSON text: parsed, checked to be an object schema, and turned into a model. */
export function parseSchemaText(text: string): ParseTextResult {
  if (text.trim() === "") return { ok: false, problem: problemAt(text, "The text is empty.", 0) };
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    const found = findJsonError(text) ?? { offset: text.length, message: error instanceof Error ? error.message : String(error) };
    const { line, column } = lineColumn(text, found.offset);
    const message = `Invalid JSON at line ${line}, column ${column}: ${found.message}.`;
    return { ok: false, problem: problemAt(text, message, found.offset, Math.min(text.length, found.offset + 1)) };
  }
  const converted = fromJsonSchema(value);
  if (!converted.ok) return { ok: false, value, problem: problemAt(text, converted.error, 0, 1) };
  return { ok: true, value, model: converted.model };
}

/** Parses the enum box: comma-separated values, numbers for numeric fields. Bad numbers are dropped. */
export function parseEnumText(text: string, type: FieldType): JsonValue[] {
  const parts = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (type === "number" || type === "integer") {
    return parts
      .map(Number)
      .filter((n) => Number.isFinite(n) && (type === "number" || Number.isInteger(n)));
  }
  return parts;
}

export function enumText(values: readonly JsonValue[]): string {
  return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
}
