// The "Try a model" panel's state, as a pure reducer over IPC events so the
// streaming logic is tested without a window.
import type { AskEvent } from "./ipc";
import { describeError } from "./format";

export type AskState =
  | { phase: "idle" }
  | { phase: "waiting"; status: string; reply: string }
  | { phase: "streaming"; reply: string }
  | { phase: "done"; reply: string; model: string; inputTokens: number; outputTokens: number }
  | { phase: "failed"; reply: string; error: string };

export const idle: AskState = { phase: "idle" };

export function started(): AskState {
  return { phase: "waiting", status: "Sending…", reply: "" };
}

export function applyAskEvent(state: AskState, event: AskEvent): AskState {
  const reply = state.phase === "idle" ? "" : state.reply;
  switch (event.kind) {
    case "status":
      return { phase: "waiting", status: event.message, reply };
    case "text":
      return { phase: "streaming", reply: reply + event.text };
    case "done":
      return {
        phase: "done",
        reply,
        model: event.model,
        inputTokens: event.inputTokens,
        outputTokens: event.outputTokens,
      };
  }
}

/** The command rejected: keep what streamed so far, and say why. */
export function failed(state: AskState, error: unknown): AskState {
  const reply = state.phase === "idle" ? "" : state.reply;
  const code =
    typeof error === "object" && error !== null && "code" in error
      ? String((error as { code: unknown }).code)
      : "";
  const message = describeError(error);
  return { phase: "failed", reply, error: code ? `${message} (${code})` : message };
}

export function isBusy(state: AskState): boolean {
  return state.phase === "waiting" || state.phase === "streaming";
}
