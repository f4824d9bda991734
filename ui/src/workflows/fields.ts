// The side panel's text boxes <-> the YAML values of a step's fields.

/** A model field as one line: a name, names joined by commas, or JSON for a list with settings. */
export function modelText(model: unknown): string {
  if (model === null || model === undefined) return "";
  if (typeof model === "string") return model;
  if (Array.isArray(model) && model.every((m) => typeof m === "string")) return model.join(", ");
  return JSON.stringify(model);
}

/** The model value for a typed line; JSON that does not parse keeps `old`. */
export function parseModel(text: string, old: unknown): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return old ?? undefined;
    }
  }
  const names = trimmed
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  return names.length === 1 ? names[0] : names;
}

/** One path or glob per line: nothing, one (a string) or a list. */
export function parseFiles(text: string): string | string[] | undefined {
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  if (lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0] : lines;
}

export function schemaText(schema: unknown): string {
  return schema === null || schema === undefined ? "" : JSON.stringify(schema, null, 2);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What the output-schema editor shows and what it means. `draft` is what the
 * user typed (null: nothing yet). A draft that does not parse is kept, with
 * its error; one that parses but differs from `current` was overtaken by an
 * edit elsewhere (the YAML text), so `current` wins.
 */
export function parseSchemaDraft(draft: string | null, current: unknown): { text: string; value: unknown; error: string | null } {
  const fromCurrent = { text: schemaText(current), value: current ?? undefined, error: null };
  if (draft === null) return fromCurrent;
  if (draft.trim() === "") return current === null || current === undefined ? { text: draft, value: undefined, error: null } : fromCurrent;
  let parsed: unknown;
  try {
    parsed = JSON.parse(draft);
  } catch {
    return { text: draft, value: undefined, error: "Not valid JSON" };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { text: draft, value: undefined, error: "The schema must be a JSON object" };
  if (current !== undefined && current !== null && !same(parsed, current)) return fromCurrent;
  return { text: draft, value: parsed, error: null };
}

/** `KEY=value` pairs separated by spaces or new lines (as `sift run --param`); a word without `=` is refused. */
export function parseParams(text: string): { params: [string, string][]; error: string | null } {
  const params: [string, string][] = [];
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const at = word.indexOf("=");
    if (at <= 0) return { params: [], error: `"${word}" is not KEY=value` };
    params.push([word.slice(0, at), word.slice(at + 1)]);
  }
  return { params, error: null };
}
