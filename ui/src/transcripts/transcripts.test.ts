import { describe, expect, it } from "vitest";
import type { Message } from "./messages";
import { changedPaths, flatten, revisionTree } from "./revisions";
import { fold, isCorrection, prettyArguments, timelineRows, type Transcript } from "./timeline";
import { RowHeights, visibleRange } from "../virtual/rowHeights";

const text = (role: Message["role"], t: string): Message => ({ role, parts: [{ type: "text", text: t }] });

function call(messages: Transcript["messages"], extra: Partial<Transcript> = {}): Transcript {
  return { id: "call_1", title: "invoice.pdf", kind: "call", status: "completed", systemPrompt: null, messages, usage: null, error: null, ...extra };
}

describe("timelineRows", () => {
  it("shows messages, tool calls with their results, corrections, usage per attempt and in total, and the error", () => {
    const rows = timelineRows(
      call(
        [
          { message: text("system", "Extract the invoice.") },
          { message: text("user", "<file name=\"a.pdf\">...</file>") },
          { message: { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "respond", arguments: '{"total": "x"}' }] }, usage: { input_tokens: 100, output_tokens: 10 } },
          { message: { role: "tool", parts: [{ type: "tool_result", call_id: "c1", content: "The output does not match the schema:\n- /total: not a number\nCall respond again with a corrected answer.", is_error: true }] } },
          { message: { role: "assistant", parts: [{ type: "text", text: "Sure." }, { type: "tool_call", id: "c2", name: "respond", arguments: "{bad" }] }, usage: { input_tokens: 120, output_tokens: 12 } },
          { message: { role: "tool", parts: [{ type: "tool_result", call_id: "c2", content: "Output accepted." }] } },
          { message: text("user", "Your answer could not be parsed: x\nAnswer again with the output alone.") },
        ],
        { usage: { input_tokens: 220, output_tokens: 22 }, error: { message: "the model gave no answer", category: "model" } },
      ),
    );
    expect(rows.map((r) => [r.kind, r.key, "role" in r ? r.role : "name" in r ? r.name : ""])).toEqual([
      ["message", "m0", "system"],
      ["message", "m1", "user"],
      ["tool_call", "m2.0", "respond"],
      ["tool_result", "m3.0", "respond"],
      ["message", "m4", "assistant"],
      ["tool_call", "m4.1", "respond"],
      ["tool_result", "m5.0", "respond"],
      ["message", "m6", "user"],
      ["usage", "usage", ""],
      ["error", "error", ""],
    ]);
    expect(rows[2]).toMatchObject({ attempt: 1, usage: { input_tokens: 100, output_tokens: 10 } });
    expect(rows[3]).toMatchObject({ isError: true, correction: true });
    expect(rows[4]).toMatchObject({ attempt: 2, usage: { input_tokens: 120, output_tokens: 12 }, text: "Sure." });
    // The reply's usage is on its text row, not again on its call.
    expect(rows[5]).toMatchObject({ valid: false, attempt: 2, usage: null });
    expect(rows[6]).toMatchObject({ isError: false, correction: false });
    expect(rows[7]).toMatchObject({ correction: true });
    expect(rows[8]).toEqual({ kind: "usage", key: "usage", usage: { input_tokens: 220, output_tokens: 22 }, attempts: 2, counted: { input_tokens: 220, output_tokens: 22 } });
    expect(rows[9]).toEqual({ kind: "error", key: "error", message: "the model gave no answer", category: "model" });
  });

  it("puts the spec's system prompt first when the messages do not hold it, and sums stored usage without a total", () => {
    const rows = timelineRows(call([{ message: text("user", "hi") }, { message: text("assistant", "hello"), usage: { input_tokens: 3, output_tokens: 2 } }], { systemPrompt: "Be brief." }));
    expect(rows.map((r) => r.kind)).toEqual(["message", "message", "message", "usage"]);
    expect(rows[0]).toMatchObject({ role: "system", text: "Be brief." });
    expect(rows[3]).toMatchObject({ usage: { input_tokens: 3, output_tokens: 2 }, attempts: 1 });
  });

  it("recognises the engine's corrections, pretty-prints arguments and folds long text", () => {
    expect([isCorrection("Your reply was empty. Carry on."), isCorrection("Hello")]).toEqual([true, false]);
    expect(prettyArguments('{"a":1}')).toEqual({ text: '{\n  "a": 1\n}', valid: true });
    expect(prettyArguments("")).toEqual({ text: "{}", valid: true });
    expect(prettyArguments("{oops")).toEqual({ text: "{oops", valid: false });
    expect(fold("a\nb\nc", 2)).toEqual({ shown: "a\nb", folded: true });
    expect(fold("short")).toEqual({ shown: "short", folded: false });
    expect(fold("x".repeat(700)).shown.length).toBe(600);
  });
});

describe("RowHeights", () => {
  it("sums estimates, corrects them as rows are measured, and finds the row at a position", () => {
    const h = new RowHeights(5, (i) => 10 * (i + 1)); // 10 20 30 40 50
    expect([h.offset(0), h.offset(1), h.offset(3), h.total()]).toEqual([0, 10, 60, 150]);
    expect([0, 9, 10, 29, 30, 59, 60, 149, 500].map((y) => h.indexAt(y))).toEqual([0, 0, 1, 1, 2, 2, 3, 4, 4]);
    expect(h.set(1, 100)).toBe(true);
    expect(h.set(1, 100.2)).toBe(false);
    expect([h.offset(2), h.total(), h.indexAt(50), h.indexAt(110)]).toEqual([110, 230, 1, 2]);
    expect(h.isMeasured(1)).toBe(true);
    expect(h.isMeasured(0)).toBe(false);
  });

  it("renders only the rows in view of 10,000", () => {
    const h = new RowHeights(10_000, () => 50);
    expect(visibleRange(h, 0, 600, 2)).toEqual({ start: 0, end: 14 });
    expect(visibleRange(h, 250_000, 600, 2)).toEqual({ start: 4998, end: 5014 });
    expect(visibleRange(h, 10_000 * 50, 600, 2)).toEqual({ start: 9997, end: 10_000 });
    expect(visibleRange(new RowHeights(0, () => 1), 0, 100)).toEqual({ start: 0, end: 0 });
  });
});

describe("revisions", () => {
  it("flattens outputs and finds the changed values", () => {
    expect([...flatten({ a: 1, b: { c: [1, { d: 2 }] }, e: [] })]).toEqual([["a", 1], ["b.c[0]", 1], ["b.c[1].d", 2], ["e", []]]);
    expect(changedPaths({ total: 10, vendor: { name: "A" }, lines: [{ x: 1 }] }, { total: 12, vendor: { name: "A" }, lines: [{ x: 1 }, { x: 2 }], note: null })).toEqual([
      "total",
      "lines[1].x",
      "note",
    ]);
    expect(changedPaths({ a: 1, b: 2 }, { a: 1 })).toEqual(["b"]);
    expect([changedPaths({ a: 1 }, null), changedPaths(null, { a: 1 })]).toEqual([[], ["a"]]);
  });

  it("builds the tree depth-first, children oldest first, orphans as roots", () => {
    const tree = revisionTree([
      { id: "c3", parentId: "c1", createdAt: 3, status: "completed", output: { total: 3 }, note: "total is 3" },
      { id: "c1", parentId: null, createdAt: 1, status: "completed", output: { total: 1 }, note: null },
      { id: "c2", parentId: "c1", createdAt: 2, status: "completed", output: { total: 1 }, note: "check" },
      { id: "c4", parentId: "c2", createdAt: 4, status: "failed", output: null, note: "again" },
      { id: "c5", parentId: "gone", createdAt: 5, status: "completed", output: { total: 5 }, note: null },
    ]);
    expect(tree.map((n) => [n.revision.id, n.depth, n.changed])).toEqual([
      ["c1", 0, []],
      ["c2", 1, []],
      ["c4", 2, []],
      ["c3", 1, ["total"]],
      ["c5", 0, []],
    ]);
  });
});
