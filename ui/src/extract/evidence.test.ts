import { describe, expect, it } from "vitest";
import type { FieldEvidence, PageWord } from "../ipc";
import type { JsonValue } from "../schema/model";
import {
  boxStyle,
  cellMark,
  columnOf,
  correction,
  defaultKey,
  keyPath,
  keyText,
  leafColumn,
  lineOf,
  morePlacesText,
  needsReviewText,
  nextReviewItem,
  originText,
  reviewAction,
  reviewItemId,
  reviewOrder,
  statusText,
  valueOfKey,
} from "./evidence";
import { schemaColumns, type DocRow } from "./table";

const schema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    date: { type: "string" },
    total: { type: ["number", "null"] },
    vendor: { type: "object", properties: { name: { type: "string" } } },
    line_items: { type: "array", items: { type: "object", properties: { name: { type: "string" }, amount: { type: "number" }, qty: { type: "integer" } } } },
    paid: { type: "boolean" },
    meta: { type: "object" },
  },
} satisfies JsonValue;
const columns = schemaColumns(schema);
const column = (key: string) => columns.find((c) => c.key === key)!;

function ev(key: string, status: FieldEvidence["status"]): FieldEvidence {
  const found = status === "exact" || status === "normalised";
  return {
    key,
    status,
    confidence: status === "exact" ? "high" : status === "normalised" ? "medium" : status === "not_found" ? "low" : null,
    places: found ? [{ page: 1, quote: key, box: { x: 0.1, y: 0.1, width: 0.2, height: 0.02 }, labelled: false }] : [],
  };
}

const values = {
  invoice_number: "INV-1",
  date: "2024-03-01",
  total: 1234.5,
  vendor: { name: "ACME" },
  line_items: [
    { name: "Bolts", amount: 4.5, qty: 3 },
    { name: "Nuts", amount: 2, qty: 10 },
  ],
  paid: false,
  meta: { pages: 2 },
};

function docRow(position: number, evidence: FieldEvidence[], patch: Partial<DocRow> = {}): DocRow {
  return {
    position,
    path: `/d/${position}.pdf`,
    name: `${position}.pdf`,
    status: "completed",
    modelValues: values,
    revised: null,
    inputTokens: 1,
    outputTokens: 1,
    error: null,
    callId: null,
    evidence,
    checked: [],
    ...patch,
  };
}

describe("cell marks", () => {
  const row = docRow(0, [
    ev("invoice_number", "exact"),
    ev("date", "normalised"),
    ev("total", "not_found"),
    ev("vendor.name", "exact"),
    ev("line_items[0].name", "exact"),
    ev("line_items[0].amount", "normalised"),
    ev("line_items[1].amount", "not_found"),
    ev("paid", "not_applicable"),
  ]);

  it("mark a value not found, or found only normalised, and nothing else", () => {
    expect(columns.map((c) => [c.key, cellMark(row, c)])).toEqual([
      ["invoice_number", { evidence: null, problems: [], checked: false }],
      ["date", { evidence: "normalised", problems: [], checked: false }],
      ["total", { evidence: "not_found", problems: [], checked: false }],
      ["vendor.name", { evidence: null, problems: [], checked: false }],
      // An array column: its most doubtful item.
      ["line_items", { evidence: "not_found", problems: [], checked: false }],
      ["paid", { evidence: null, problems: [], checked: false }],
      ["meta", { evidence: null, problems: [], checked: false }],
    ]);
  });

  it("show a checked cell as checked instead, once every doubtful value in it is checked", () => {
    const checked = { ...row, checked: ["total", "date", "line_items[1].amount"] };
    expect(cellMark(checked, column("total"))).toEqual({ evidence: null, problems: [], checked: true });
    expect(cellMark(checked, column("date"))).toEqual({ evidence: null, problems: [], checked: true });
    // One item still found only normalised.
    expect(cellMark(checked, column("line_items"))).toEqual({ evidence: "normalised", problems: [], checked: false });
    const all = { ...checked, checked: [...checked.checked, "line_items[0].amount"] };
    expect(cellMark(all, column("line_items"))).toEqual({ evidence: null, problems: [], checked: true });
    // A corrected value the backend marked checked, found exactly.
    expect(cellMark({ ...row, checked: ["invoice_number"] }, column("invoice_number"))).toEqual({ evidence: null, problems: [], checked: true });
  });

  it("mark a value a check found wrong first, with its problems, until it is checked", () => {
    const sum = "net 100.00 + tax 19.00 = 119.00, not the total 120.00";
    const flagged = docRow(0, [{ ...ev("total", "exact"), problems: [sum] }, ev("date", "not_found")]);
    expect(cellMark(flagged, column("total"))).toEqual({ evidence: "problem", problems: [sum], checked: false });
    expect(reviewOrder([flagged], columns)).toEqual([
      { position: 0, key: "date" },
      { position: 0, key: "total" },
    ]);
    const checked = { ...flagged, checked: ["total"] };
    expect(cellMark(checked, column("total"))).toEqual({ evidence: null, problems: [], checked: true });
  });

  it("do not count a key that only starts like the column's", () => {
    const other = docRow(0, [ev("total_net", "not_found")]);
    expect(cellMark(other, column("total"))).toEqual({ evidence: null, problems: [], checked: false });
    expect(columnOf(columns, "line_items[1].amount")?.key).toBe("line_items");
    expect(columnOf(columns, "vendor.name")?.key).toBe("vendor.name");
    expect(columnOf(columns, "total_net")).toBeNull();
  });
});

describe("the review order", () => {
  const rows = [
    docRow(1, [ev("total", "not_found"), ev("invoice_number", "normalised")]),
    docRow(0, [ev("invoice_number", "exact"), ev("line_items[1].amount", "not_found"), ev("line_items[0].amount", "normalised"), ev("date", "normalised")], { checked: ["date"] }),
    docRow(2, [ev("total", "not_found")], { status: "failed" }),
    docRow(3, [ev("paid", "not_applicable"), ev("vendor.name", "exact")]),
  ];

  it("walks the unverified values row by row, in column order, items in the backend's order", () => {
    expect(reviewOrder(rows, columns)).toEqual([
      { position: 0, key: "line_items[1].amount" },
      { position: 0, key: "line_items[0].amount" },
      { position: 1, key: "invoice_number" },
      { position: 1, key: "total" },
    ]);
  });

  it("goes on past the values visited in the walk, and ends", () => {
    const visited = new Set<string>();
    expect(nextReviewItem(rows, columns, visited)).toEqual({ position: 0, key: "line_items[1].amount" });
    visited.add(reviewItemId({ position: 0, key: "line_items[1].amount" }));
    visited.add("0:line_items[0].amount");
    expect(nextReviewItem(rows, columns, visited)).toEqual({ position: 1, key: "invoice_number" });
    visited.add("1:invoice_number").add("1:total");
    expect(nextReviewItem(rows, columns, visited)).toBeNull();
    // A value checked meanwhile is not in the order at all.
    const checked = rows.map((r) => (r.position === 1 ? { ...r, checked: ["invoice_number"] } : r));
    expect(nextReviewItem(checked, columns, new Set(["0:line_items[1].amount", "0:line_items[0].amount"]))).toEqual({ position: 1, key: "total" });
  });

  it("selects a column's first unverified value when the column is picked", () => {
    const row = rows[1]!;
    expect(defaultKey(row, column("line_items"))).toBe("line_items[1].amount");
    expect(defaultKey(row, column("invoice_number"))).toBe("invoice_number");
    expect(defaultKey(docRow(0, [ev("line_items[0].name", "exact"), ev("line_items[1].name", "exact")]), column("line_items"))).toBe("line_items[0].name");
    expect(defaultKey(docRow(0, []), column("meta"))).toBe("meta");
  });
});

describe("typed text as a correction", () => {
  const row = docRow(0, []);

  it("reads a key as the path revise_value takes, and the value it names", () => {
    expect(keyPath("total")).toEqual(["total"]);
    expect(keyPath("vendor.name")).toEqual(["vendor", "name"]);
    expect(keyPath("line_items[1].amount")).toEqual(["line_items", "1", "amount"]);
    expect(keyPath("tags[2]")).toEqual(["tags", "2"]);
    expect(valueOfKey(row, "line_items[1].amount")).toBe(2);
    expect(valueOfKey(row, "vendor.name")).toBe("ACME");
    expect(valueOfKey(row, "line_items[5].amount")).toBeUndefined();
    expect(keyText(row, "total")).toBe("1234.5");
    expect(keyText(row, "line_items[0].name")).toBe("Bolts");
  });

  it("parses the text as the field's type: numbers, integers, booleans, else a string", () => {
    expect(correction(schema, row, "total", "1,250.00")).toEqual({ ok: true, value: 1250, path: ["total"] });
    expect(correction(schema, row, "line_items[1].amount", "3.75")).toEqual({ ok: true, value: 3.75, path: ["line_items", "1", "amount"] });
    expect(correction(schema, row, "line_items[0].qty", "2.5")).toEqual({ ok: false, error: "Not a whole number.", path: ["line_items", "0", "qty"] });
    expect(correction(schema, row, "paid", "true")).toEqual({ ok: true, value: true, path: ["paid"] });
    expect(correction(schema, row, "vendor.name", "ACME Ltd")).toEqual({ ok: true, value: "ACME Ltd", path: ["vendor", "name"] });
    expect(correction(schema, row, "invoice_number", "00123")).toEqual({ ok: true, value: "00123", path: ["invoice_number"] });
    expect(correction(schema, row, "total", "twelve")).toEqual({ ok: false, error: "Not a number.", path: ["total"] });
    // A property the schema does not type takes its value's type.
    expect(leafColumn(schema, row, "meta.pages").type).toBe("number");
    expect(correction(schema, row, "meta.pages", "3")).toEqual({ ok: true, value: 3, path: ["meta", "pages"] });
  });

  it("accepts the text as shown and corrects anything else", () => {
    expect(reviewAction(row, "total", "1234.5")).toBe("accept");
    expect(reviewAction(row, "total", "1234.50")).toBe("correct");
    expect(reviewAction(row, "vendor.name", "ACME")).toBe("accept");
  });
});

describe("the line of a clicked word", () => {
  const word = (text: string, x: number, y: number, height = 0.02): PageWord => ({ text, box: { x, y, width: 0.08, height } });
  const words = [
    word("EUR", 0.6, 0.501),
    word("Total", 0.1, 0.5),
    word("1.250,00", 0.4, 0.504),
    // A line below: its centre 0.02 lower, a whole word height.
    word("VAT", 0.1, 0.52),
    // Taller, but its centre within reach of the clicked word's.
    word("(incl.)", 0.8, 0.495, 0.035),
  ];

  it("is the words whose centres are within half a word height, left to right", () => {
    expect(lineOf(words, words[1]!)).toBe("Total 1.250,00 EUR (incl.)");
    expect(lineOf(words, words[3]!)).toBe("VAT");
    expect(lineOf([words[1]!], words[1]!)).toBe("Total");
  });
});

describe("what the evidence says", () => {
  it("names the status, the count and the places", () => {
    expect(["exact", "normalised", "not_found"].map((s) => statusText(s as FieldEvidence["status"]))).toEqual([
      "Found exactly",
      "Found (normalised)",
      "Not found in the document",
    ]);
    expect([0, 1, 7].map(needsReviewText)).toEqual([null, "1 value needs a look", "7 values need a look"]);
    const place = ev("total", "exact").places[0]!;
    expect([[place], [place, place], [place, place, place]].map(morePlacesText)).toEqual([null, "1 more place", "2 more places"]);
  });

  it("names who gave a value other than the model, and nothing for the model's own", () => {
    expect(originText("located")).toBe("Found by the locator");
    expect(originText("e_invoice")).toBe("Read exactly from the e-invoice XML");
    expect(originText("line_arithmetic")).toBe("Read from its line on the page (quantity × unit price = amount)");
    expect(originText(undefined)).toBeNull();
    const fromXml: FieldEvidence = { ...ev("total", "exact"), origin: "e_invoice" };
    expect(originText(fromXml.origin)).toBe("Read exactly from the e-invoice XML");
    expect(originText(ev("total", "exact").origin)).toBeNull();
  });

  it("places a box in percent of the page", () => {
    expect(boxStyle({ x: 0.07, y: 0.25, width: 0.333333, height: 0.0125 })).toEqual({ left: "7%", top: "25%", width: "33.3333%", height: "1.25%" });
  });
});
