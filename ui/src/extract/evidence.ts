// Where the values of a row were found in its document, as the Extract
// screen marks, selects and reviews them: pure, so each rule is unit-tested.
//
// An evidence key names one leaf value: a column's key (`total`,
// `vendor.name`), or an item of an array column (`line_items[0].amount`,
// `tags[2]`), the way the Rust side writes them.
import type { Confidence, EvidencePlace, EvidenceStatus, FieldEvidence, PageBox, PageWord, ValueOrigin } from "../ipc";
import { isObject, type JsonValue } from "../schema/model";
import { formatCell, parseInput, rowValues, type Column, type DocRow, type ParsedInput } from "./table";

/** Whether `key` is the column's own key or a value inside it (an array's item, an object's field). */
export function isUnder(key: string, columnKey: string): boolean {
  return key === columnKey || key.startsWith(`${columnKey}[`) || key.startsWith(`${columnKey}.`);
}

/** The column a value belongs to: the one with the longest key it is under (`vendor.name`, not `vendor`). */
export function columnOf(columns: readonly Column[], key: string): Column | null {
  let best: Column | null = null;
  for (const c of columns) if (isUnder(key, c.key) && (best === null || c.key.length > best.key.length)) best = c;
  return best;
}

/** The row's evidence for one column, in the backend's order. */
export function evidenceUnder(row: DocRow, column: Column): FieldEvidence[] {
  return row.evidence.filter((e) => isUnder(e.key, column.key));
}

export function evidenceFor(row: DocRow, key: string): FieldEvidence | null {
  return row.evidence.find((e) => e.key === key) ?? null;
}

/** Found only in another form, or not at all: the values a user should look at. */
export function isDoubtful(status: EvidenceStatus): boolean {
  return status === "not_found" || status === "normalised";
}

/** What the consistency checks found wrong with a value (none: an empty list). */
export function problemsOf(evidence: FieldEvidence): string[] {
  return evidence.problems ?? [];
}

/** Doubtful, or found wrong by a check, and not yet checked by the user. */
export function isUnverified(row: DocRow, evidence: FieldEvidence): boolean {
  return (isDoubtful(evidence.status) || problemsOf(evidence).length > 0) && !row.checked.includes(evidence.key);
}

export interface CellMark {
  /** The most doubtful mark among the cell's unverified values, if any: a check's problem first. */
  evidence: "problem" | "not_found" | "normalised" | null;
  /** The problems of the cell's unverified values, for its tooltip. */
  problems: string[];
  /** Nothing left to look at, and the user checked a value of the cell. */
  checked: boolean;
}

/** How a table cell is marked: a value not found (or found only normalised) until the user checks it, then ✓. */
export function cellMark(row: DocRow, column: Column): CellMark {
  const entries = evidenceUnder(row, column);
  const unverified = entries.filter((e) => isUnverified(row, e));
  const problems = unverified.flatMap(problemsOf);
  if (problems.length > 0) return { evidence: "problem", problems, checked: false };
  if (unverified.some((e) => e.status === "not_found")) return { evidence: "not_found", problems, checked: false };
  if (unverified.length > 0) return { evidence: "normalised", problems, checked: false };
  const checked = row.checked.some((k) => isUnder(k, column.key));
  return { evidence: null, problems, checked };
}

/** One value to review: a row (by position) and an evidence key. */
export interface ReviewItem {
  position: number;
  key: string;
}

export function reviewItemId(item: ReviewItem): string {
  return `${item.position}:${item.key}`;
}

/** The unverified values of the completed rows: row by row, then in column order (a column's items in the backend's order). */
export function reviewOrder(rows: readonly DocRow[], columns: readonly Column[]): ReviewItem[] {
  const out: ReviewItem[] = [];
  for (const row of [...rows].sort((a, b) => a.position - b.position)) {
    if (row.status !== "completed") continue;
    for (const column of columns) {
      for (const e of evidenceUnder(row, column)) if (isUnverified(row, e)) out.push({ position: row.position, key: e.key });
    }
  }
  return out;
}

/** The first value of the review order the walk has not been to yet (accepted, corrected or skipped), or null at the end. */
export function nextReviewItem(rows: readonly DocRow[], columns: readonly Column[], visited: ReadonlySet<string>): ReviewItem | null {
  return reviewOrder(rows, columns).find((item) => !visited.has(reviewItemId(item))) ?? null;
}

/** The value to select when a column is picked: its first unverified value, else its first, else the column itself. */
export function defaultKey(row: DocRow, column: Column): string {
  const entries = evidenceUnder(row, column);
  return (entries.find((e) => isUnverified(row, e)) ?? entries[0])?.key ?? column.key;
}

/** `line_items[0].amount` as the path `revise_value` takes: `["line_items", "0", "amount"]` (a number indexes an array). */
export function keyPath(key: string): string[] {
  const out: string[] = [];
  for (const part of key.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(part[1] ?? part[2] ?? "");
  return out;
}

/** The value a key names in the values shown. */
export function valueOfKey(row: DocRow, key: string): JsonValue | undefined {
  let current: JsonValue | undefined = rowValues(row) ?? undefined;
  for (const name of keyPath(key)) {
    if (Array.isArray(current)) current = current[Number(name)];
    else current = isObject(current) ? current[name] : undefined;
  }
  return current;
}

/** The schema of the property a key names (an item's under the array's `items`); null when the schema does not say. */
function schemaOfKey(schema: JsonValue | null | undefined, key: string): Record<string, JsonValue> | null {
  let node: JsonValue | null | undefined = schema;
  for (const name of keyPath(key)) {
    if (!isObject(node)) return null;
    if (/^\d+$/.test(name) && isObject(node.items)) node = node.items;
    else node = isObject(node.properties) ? node.properties[name] : undefined;
  }
  return isObject(node) ? node : null;
}

/**
 * The value a key names as an editable field: its type from the schema,
 * else from the value itself (a property the schema does not type), so
 * that typed text is parsed as the field's type.
 */
export function leafColumn(schema: JsonValue | null | undefined, row: DocRow, key: string): Column {
  const node = schemaOfKey(schema, key);
  const declared = node?.type;
  let type = typeof declared === "string" ? declared : Array.isArray(declared) ? String(declared.find((t) => t !== "null") ?? "") : "";
  if (type === "") {
    const value = valueOfKey(row, key);
    type = typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string";
  }
  return { key, path: keyPath(key), type, json: type === "array" || type === "object", enumValues: Array.isArray(node?.enum) ? node.enum : [] };
}

/** The text a value is shown and edited as (review mode's box). */
export function keyText(row: DocRow, key: string): string {
  return formatCell(valueOfKey(row, key));
}

/** Typed text as a correction of the value at `key`: the path `revise_value` takes and the value parsed as the field's type. */
export function correction(schema: JsonValue | null | undefined, row: DocRow, key: string, text: string): ParsedInput & { path: string[] } {
  const column = leafColumn(schema, row, key);
  return { ...parseInput(column, text), path: column.path };
}

/** Review mode's Enter: the text as shown accepts the value, anything else corrects it. */
export function reviewAction(row: DocRow, key: string, text: string): "accept" | "correct" {
  return text === keyText(row, key) ? "accept" : "correct";
}

const STATUS_TEXT: Record<EvidenceStatus, string> = {
  exact: "Found exactly",
  normalised: "Found (normalised)",
  not_found: "Not found in the document",
  not_applicable: "Not looked for (a choice, a yes/no or an empty value)",
};

export function statusText(status: EvidenceStatus): string {
  return STATUS_TEXT[status];
}

export function confidenceText(confidence: Confidence | null): string | null {
  return confidence === null ? null : `confidence: ${confidence}`;
}

const ORIGIN_TEXT: Record<ValueOrigin, string> = {
  located: "Found by the locator",
  e_invoice: "Read exactly from the e-invoice XML",
  line_arithmetic: "Read from its line on the page (quantity × unit price = amount)",
};

/** Who gave a value other than the model; null when the model wrote it (no origin). */
export function originText(origin: ValueOrigin | undefined): string | null {
  return origin === undefined ? null : ORIGIN_TEXT[origin];
}

/** "1 value needs a look", "3 values need a look"; nothing at 0. */
export function needsReviewText(count: number): string | null {
  if (count <= 0) return null;
  return count === 1 ? "1 value needs a look" : `${count} values need a look`;
}

/** "2 more places" beside the first place of several; null for one. */
export function morePlacesText(places: readonly EvidencePlace[]): string | null {
  const more = places.length - 1;
  if (more <= 0) return null;
  return more === 1 ? "1 more place" : `${more} more places`;
}

function percent(fraction: number): string {
  // Rounded so that 0.07 shows as 7%, not 7.000000000000001%.
  return `${Number((fraction * 100).toFixed(4))}%`;
}

/** A box on the page as CSS over the page's picture (positioned in a box the picture fills). */
export function boxStyle(box: PageBox): { left: string; top: string; width: string; height: string } {
  return { left: percent(box.x), top: percent(box.y), width: percent(box.width), height: percent(box.height) };
}

/**
 * The line a word is on, left to right: the words whose vertical centres
 * are within half the clicked word's height of its centre (what a
 * shift-click sets a field to).
 */
export function lineOf(words: readonly PageWord[], clicked: PageWord): string {
  const centre = (w: PageWord) => w.box.y + w.box.height / 2;
  const reach = clicked.box.height / 2;
  return words
    .filter((w) => Math.abs(centre(w) - centre(clicked)) <= reach)
    .sort((a, b) => a.box.x - b.box.x)
    .map((w) => w.text)
    .join(" ");
}
