import { describe, expect, it } from "vitest";
import { callTranscript } from "./mapping";

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
