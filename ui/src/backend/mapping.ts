// The IPC's shapes as the screens' where more than one source needs them:
// the one module the adapters of this folder share (none imports another).
import * as ipc from "../ipc";
import type { StoredMessage } from "../chat/model";
import type { Message, Part, Role } from "../transcripts/messages";
import type { Transcript } from "../transcripts/timeline";
import type { StepRecord } from "../workflows/source";

/** What a rejection says, for people: a command's `IpcError`, an `Error`, or anything else. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (ipc.isIpcError(error)) return error.message;
  return String(error);
}

const FINISHED = new Set(["succeeded", "failed", "skipped", "cancelled", "interrupted"]);

/** A step as the IPC reports it, as the canvas's record. A step still `running` belongs to a run that never finished: cancelled. */
export function stepRecord(step: ipc.StepView): StepRecord {
  return {
    id: step.id,
    name: step.name,
    status: (FINISHED.has(step.status) ? step.status : "cancelled") as StepRecord["status"],
    stdout: step.stdout,
    stderr: step.stderr,
    outputs: step.outputs,
    error: step.error,
    messages: step.messages.filter((m): m is Message => m !== null && typeof m === "object" && Array.isArray((m as Message).parts)),
    usage: { input_tokens: step.inputTokens, output_tokens: step.outputTokens },
    elapsed_ms: step.elapsedMs,
    reused: step.reused,
    // The IPC does not report outputs a step declared but did not write.
    absent_outputs: [],
  };
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function part(p: Record<string, unknown>): Part | null {
  const str = (k: string) => (typeof p[k] === "string" ? (p[k] as string) : "");
  switch (p.type) {
    case "text":
      return { type: "text", text: str("text") };
    case "image":
      return { type: "image", mime: str("mime"), data: str("data") };
    case "tool_call":
      return { type: "tool_call", id: str("id"), name: str("name"), arguments: typeof p.arguments === "string" ? p.arguments : JSON.stringify(p.arguments ?? {}) };
    case "tool_result":
      return { type: "tool_result", call_id: str("call_id"), content: str("content"), is_error: p.is_error === true };
    default:
      return null;
  }
}

/** A stored chat message, as Chat's and Transcripts' timelines read it. */
export function storedMessage(m: ipc.MessageView): StoredMessage {
  return {
    id: m.id,
    seq: m.seq,
    role: (ROLES.has(m.role) ? m.role : "assistant") as Role,
    parts: m.parts.map(part).filter((p): p is Part => p !== null),
    // The IPC does not report a message's metadata.
    metadata: {},
    hidden: m.hidden,
    created_at: m.createdAt,
  };
}

/** The parts of the IPC's record of a structured call a timeline needs. */
export type CallRecord = Pick<ipc.CallTranscript, "id" | "kind" | "status" | "request" | "output" | "transcript" | "error" | "errorCode" | "inputTokens" | "outputTokens">;

function isMessage(value: unknown): value is Message {
  const m = value as Message;
  return m !== null && typeof m === "object" && typeof m.role === "string" && Array.isArray(m.parts);
}

/**
 * A call's record as a transcript. Its stored tool loop is the timeline;
 * without one (a call in a session), the request's prompt stands for it.
 */
export function callTranscript(call: CallRecord, title = call.kind): Transcript {
  const stored: Message[] = Array.isArray(call.transcript) ? (call.transcript as unknown[]).filter(isMessage) : [];
  const request = (call.request ?? {}) as Record<string, unknown>;
  const messages = stored.length > 0 ? stored : typeof request.prompt === "string" ? [{ role: "user" as const, parts: [{ type: "text" as const, text: request.prompt }] }] : [];
  return {
    id: call.id,
    title,
    kind: "call",
    status: call.status,
    systemPrompt: typeof request.system === "string" ? request.system : null,
    messages: messages.map((message) => ({ message })),
    usage: { input_tokens: call.inputTokens, output_tokens: call.outputTokens },
    error: call.error !== null ? { message: call.error, category: call.errorCode } : null,
  };
}
