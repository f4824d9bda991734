import { describe, expect, it } from "vitest";
import { memoryTranscriptSource } from "./source";
import type { Transcript } from "./timeline";

const t = (id: string, kind: Transcript["kind"], title: string, text: string, createdAt: number) => ({
  id,
  kind,
  title,
  status: null,
  systemPrompt: null,
  messages: [{ message: { role: "user" as const, parts: [{ type: "text" as const, text }] } }],
  usage: null,
  error: null,
  createdAt,
});

describe("memoryTranscriptSource", () => {
  it("lists newest first, by kind and by text in titles and messages", async () => {
    const source = memoryTranscriptSource([t("a", "call", "invoice.pdf", "Total due", 1), t("b", "session", "Chat", "hello there", 2)]);
    expect((await source.list({})).map((s) => s.id)).toEqual(["b", "a"]);
    expect((await source.list({ kind: "call" })).map((s) => s.id)).toEqual(["a"]);
    expect((await source.list({ text: "HELLO" })).map((s) => s.id)).toEqual(["b"]);
    expect((await source.list({ text: "invoice" })).map((s) => s.id)).toEqual(["a"]);
    await expect(source.load("zz")).rejects.toThrow("no transcript zz");
  });

  it("returns a call's whole revision family", async () => {
    const r = (id: string, parentId: string | null) => ({ id, parentId, createdAt: 0, status: "completed", output: null, note: null });
    const source = memoryTranscriptSource([], [r("c1", null), r("c2", "c1"), r("c3", "c2"), r("x", null)]);
    expect((await source.revisions("c3")).map((x) => x.id)).toEqual(["c1", "c2", "c3"]);
    expect(await source.revisions("nope")).toEqual([]);
  });
});
