import { describe, expect, it } from "vitest";
import { applyAskEvent, failed, idle, isBusy, started } from "./askState";

describe("ask panel state", () => {
  it("accumulates streamed text and ends with usage", () => {
    let state = started();
    state = applyAskEvent(state, { kind: "status", message: "Starting the local model…" });
    expect(state).toEqual({ phase: "waiting", status: "Starting the local model…", reply: "" });
    state = applyAskEvent(state, { kind: "text", text: "Hel" });
    state = applyAskEvent(state, { kind: "text", text: "lo" });
    expect(state).toEqual({ phase: "streaming", reply: "Hello" });
    expect(isBusy(state)).toBe(true);
    state = applyAskEvent(state, { kind: "done", model: "smollm2", inputTokens: 12, outputTokens: 2 });
    expect(state).toEqual({ phase: "done", reply: "Hello", model: "smollm2", inputTokens: 12, outputTokens: 2 });
    expect(isBusy(state)).toBe(false);
  });

  it("keeps the partial reply and shows the error code on failure", () => {
    const partial = applyAskEvent(started(), { kind: "text", text: "part" });
    expect(failed(partial, { code: "network", message: "the stream was cut" })).toEqual({
      phase: "failed",
      reply: "part",
      error: "the stream was cut (network)",
    });
    expect(failed(idle, "boom")).toEqual({ phase: "failed", reply: "", error: "boom" });
  });
});
