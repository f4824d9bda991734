// The schema being edited: its JSON text (what is saved) and the field model
// the visual editor shows, kept in step. A text edit that does not parse keeps
// the last good model and records the problem; a visual edit rewrites the text.
import { addField } from "../schema/edit";
import { emptyModel, newField, parseSchemaText, schemaText, type SchemaModel, type TextProblem } from "../schema/model";

export interface SchemaDoc {
  name: string;
  /** The library version the text came from; null for a new schema. */
  version: number | null;
  /** The text as last loaded or saved, to tell unsaved changes. */
  savedText: string | null;
  text: string;
  model: SchemaModel;
  /** Why the text does not stand for a model right now. */
  textProblem: TextProblem | null;
}

export function newDoc(name: string): SchemaDoc {
  const model = addField(emptyModel(), null, { ...newField("field"), required: true }).model;
  // Nothing to lose yet: the template counts as unchanged (it is saved as version 1 when the user saves).
  const text = schemaText(model);
  return { name, version: null, savedText: text, text, model, textProblem: null };
}

export function loadedDoc(name: string, version: number, text: string): SchemaDoc {
  const parsed = parseSchemaText(text);
  return {
    name,
    version,
    savedText: text,
    text,
    model: parsed.ok ? parsed.model : emptyModel(),
    textProblem: parsed.ok ? null : parsed.problem,
  };
}

/** A schema not yet in the library, opened with its text (nothing saved yet, so it counts as changed). */
export function draftDoc(name: string, text: string): SchemaDoc {
  return withText({ ...newDoc(name), savedText: null }, text);
}

/** The same schema under a free name (`invoice_copy`, `invoice_copy_2`, ...), not yet saved. */
export function copiedDoc(doc: SchemaDoc, taken: string[]): SchemaDoc {
  const base = `${doc.name}_copy`;
  let name = base;
  for (let n = 2; taken.includes(name); n++) name = `${base}_${n}`;
  return { ...doc, name, version: null, savedText: null };
}

export function withModel(doc: SchemaDoc, model: SchemaModel): SchemaDoc {
  return { ...doc, model, text: schemaText(model), textProblem: null };
}

export function withText(doc: SchemaDoc, text: string): SchemaDoc {
  const parsed = parseSchemaText(text);
  return parsed.ok ? { ...doc, text, model: parsed.model, textProblem: null } : { ...doc, text, textProblem: parsed.problem };
}

export function savedDoc(doc: SchemaDoc, version: number): SchemaDoc {
  return { ...doc, version, savedText: doc.text };
}

export function isDirty(doc: SchemaDoc): boolean {
  return doc.text !== doc.savedText;
}

/** Library names: letters, digits, `_`, `-`, `.`; no spaces (they name files on export). */
export function nameProblem(name: string): string | null {
  if (name.trim() === "") return "Give the schema a name.";
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return "Use letters, digits, _, - and . only.";
  return null;
}
