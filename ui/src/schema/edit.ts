// Pure edits of the schema model's field tree, addressed by field id, and the
// checks the visual editor shows beside the fields.
import { isObject, newField, type Field, type FieldType, type JsonValue, type SchemaModel } from "./model";

type FieldMap = (fields: Field[]) => Field[];

/** Applies `change` to the list of fields that holds `id`, wherever it is in the tree. */
function mapListHolding(fields: Field[], id: string, change: FieldMap): Field[] {
  if (fields.some((f) => f.id === id)) return change(fields);
  let touched = false;
  const next = fields.map((f) => {
    if (f.children.length === 0) return f;
    const children = mapListHolding(f.children, id, change);
    if (children === f.children) return f;
    touched = true;
    return { ...f, children };
  });
  return touched ? next : fields;
}

export function updateField(model: SchemaModel, id: string, patch: Partial<Omit<Field, "id">>): SchemaModel {
  const fields = mapListHolding(model.fields, id, (list) =>
    list.map((f) => (f.id === id ? normalise({ ...f, ...patch }, f.type) : f)),
  );
  return { ...model, fields };
}

/** Keeps a field consistent after its type changed: enums only on scalars, children only on containers. */
function normalise(field: Field, previousType: FieldType): Field {
  if (field.type === previousType) return field;
  const container = field.type === "object" || (field.type === "array" && field.itemType === "object");
  const scalar = field.type === "string" || field.type === "number" || field.type === "integer";
  const enumValues = scalar && previousType === field.type ? field.enumValues : [];
  return {
    ...field,
    children: container ? field.children : [],
    enumValues: scalar ? enumValues : [],
    extra: {},
    itemsExtra: {},
    raw: undefined,
  };
}

export function setItemType(model: SchemaModel, id: string, itemType: Field["itemType"]): SchemaModel {
  const fields = mapListHolding(model.fields, id, (list) =>
    list.map((f) =>
      f.id === id ? { ...f, itemType, children: itemType === "object" ? f.children : [], itemsExtra: {} } : f,
    ),
  );
  return { ...model, fields };
}

/** A name not yet used among `siblings`: `field`, `field_2`, ... */
export function freshName(siblings: readonly Field[], base = "field"): string {
  const used = new Set(siblings.map((f) => f.name));
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}_${n}`)) n += 1;
  return `${base}_${n}`;
}

/** Adds a field at the top level (`parentId` null) or inside an object / array-of-objects field. */
export function addField(model: SchemaModel, parentId: string | null, field?: Field): { model: SchemaModel; field: Field } {
  if (parentId === null) {
    const added = field ?? newField(freshName(model.fields));
    return { model: { ...model, fields: [...model.fields, added] }, field: added };
  }
  let added: Field | null = field ?? null;
  const fields = mapListHolding(model.fields, parentId, (list) =>
    list.map((f) => {
      if (f.id !== parentId) return f;
      added = added ?? newField(freshName(f.children));
      return { ...f, children: [...f.children, added] };
    }),
  );
  if (added === null) throw new Error(`no field ${parentId}`);
  return { model: { ...model, fields }, field: added };
}

export function removeField(model: SchemaModel, id: string): SchemaModel {
  return { ...model, fields: mapListHolding(model.fields, id, (list) => list.filter((f) => f.id !== id)) };
}

/** Moves a field up (-1) or down (+1) among its siblings; no change at either end. */
export function moveField(model: SchemaModel, id: string, delta: -1 | 1): SchemaModel {
  const fields = mapListHolding(model.fields, id, (list) => {
    const index = list.findIndex((f) => f.id === id);
    const target = index + delta;
    if (index < 0 || target < 0 || target >= list.length) return list;
    const next = [...list];
    const [moved] = next.splice(index, 1);
    if (moved !== undefined) next.splice(target, 0, moved);
    return next;
  });
  return { ...model, fields };
}

export function findField(fields: readonly Field[], id: string): Field | undefined {
  for (const f of fields) {
    if (f.id === id) return f;
    const inner = findField(f.children, id);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

export interface FieldProblem {
  fieldId: string | null;
  /** Dotted path of names, `[]` for array items: `items[].price`. */
  path: string;
  message: string;
}

/** What the visual editor flags before the schema is saved. */
export function modelProblems(model: SchemaModel): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (model.fields.length === 0) {
    problems.push({ fieldId: null, path: "", message: "Add at least one field." });
  }
  const walk = (fields: readonly Field[], prefix: string) => {
    const seen = new Set<string>();
    for (const f of fields) {
      const path = prefix === "" ? f.name : `${prefix}.${f.name}`;
      if (f.name.trim() === "") problems.push({ fieldId: f.id, path, message: "A field needs a name." });
      else if (seen.has(f.name)) problems.push({ fieldId: f.id, path, message: `The name "${f.name}" is used twice here.` });
      seen.add(f.name);
      if (f.type === "object") walk(f.children, path);
      if (f.type === "array" && f.itemType === "object") {
        if (f.children.length === 0) {
          problems.push({ fieldId: f.id, path, message: "An array of objects needs at least one item field." });
        }
        walk(f.children, `${path}[]`);
      }
    }
  };
  walk(model.fields, "");
  return problems;
}

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/**
 * Structural JSON-Schema checks of the keywords Sift uses (the editor's lint):
 * `type` names real types, `properties` is an object of schemas, `required`
 * a list of strings, `enum` a non-empty list, `items` a schema. Each problem
 * names its JSON pointer.
 */
export function lintJsonSchema(schema: JsonValue, pointer = ""): string[] {
  const at = pointer === "" ? "/" : pointer;
  if (typeof schema === "boolean") return [];
  if (!isObject(schema)) return [`${at}: a schema must be an object`];
  const problems: string[] = [];
  const type = schema.type;
  if (type !== undefined) {
    const names = Array.isArray(type) ? type : [type];
    if (names.length === 0) problems.push(`${at}: "type" is an empty list`);
    for (const name of names) {
      if (typeof name !== "string" || !JSON_TYPES.has(name)) {
        problems.push(`${at}: "type" ${JSON.stringify(name)} is not a JSON Schema type`);
      }
    }
  }
  for (const key of ["description", "title", "format", "pattern"]) {
    if (schema[key] !== undefined && typeof schema[key] !== "string") problems.push(`${at}: "${key}" must be a string`);
  }
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) problems.push(`${at}: "properties" must be an object`);
    else {
      for (const [name, property] of Object.entries(schema.properties)) {
        problems.push(...lintJsonSchema(property, `${pointer}/properties/${name}`));
      }
    }
  }
  if (schema.required !== undefined) {
    const required = schema.required;
    if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
      problems.push(`${at}: "required" must be a list of property names`);
    } else if (new Set(required).size !== required.length) {
      problems.push(`${at}: "required" names a property twice`);
    }
  }
  if (schema.enum !== undefined && (!Array.isArray(schema.enum) || schema.enum.length === 0)) {
    problems.push(`${at}: "enum" must be a non-empty list`);
  }
  if (schema.items !== undefined) {
    if (Array.isArray(schema.items)) problems.push(`${at}: "items" must be one schema (use prefixItems for tuples)`);
    else problems.push(...lintJsonSchema(schema.items, `${pointer}/items`));
  }
  return problems;
}

/**
 * The field a JSON Pointer into the schema is about, as the editor's dotted
 * path (`/properties/lines/items/properties/amount/type` -> `lines[].amount`);
 * null for the schema itself (`""`, `/required/0`, ...).
 */
export function fieldPathOfPointer(pointer: string): string | null {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let path = "";
  let i = 0;
  while (i + 1 < parts.length && parts[i] === "properties") {
    path = path === "" ? parts[i + 1]! : `${path}.${parts[i + 1]!}`;
    i += 2;
    if (parts[i] === "items" && parts[i + 1] === "properties") {
      path += "[]";
      i += 1;
    }
  }
  return path === "" ? null : path;
}
