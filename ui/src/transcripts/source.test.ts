import { describe, expect, it } from "vitest";
import { callTranscript, memoryTranscriptSource } from "./source";
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

describe("callTranscript", () => {
  it("uses the stored tool loop, the usage and the error with its category", () => {
    const transcript = callTranscript({
      id: "call_1",
      kind: "extract",
      status: "failed",
      request: { prompt: "Extract", system: "Be exact." },
      output: null,
      transcript: [{ role: "user", parts: [{ type: "text", text: "Extract" }] }, { junk: true }],
      error: "401 Unauthorized",
      errorCode: "auth",
      inputTokens: 5,
      outputTokens: 0,
    });
    expect(transcript).toEqual({
      id: "call_1",
      title: "extract",
      kind: "call",
      status: "failed",
      systemPrompt: "Be exact.",
      messages: [{ message: { role: "user", parts: [{ type: "text", text: "Extract" }] } }],
      usage: { input_tokens: 5, output_tokens: 0 },
      error: { message: "401 Unauthorized", category: "auth" },
    });
  });

  it("falls back to the request's prompt without a stored loop", () => {
    const transcript = callTranscript({ id: "c", kind: "k", status: "completed", request: { prompt: "Hi" }, output: {}, transcript: null, error: null, errorCode: null, inputTokens: 1, outputTokens: 2 }, "a.pdf");
    expect(transcript.messages).toEqual([{ message: { role: "user", parts: [{ type: "text", text: "Hi" }] } }]);
    expect([transcript.title, transcript.error, transcript.systemPrompt]).toEqual(["a.pdf", null, null]);
  });
});
