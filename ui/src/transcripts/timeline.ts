// A transcript (a structured call, a chat session, a workflow step) as the
// rows of a timeline: messages, tool calls with their results, corrections,
// usage and errors. Pure, so the virtualised list only lays rows out.
import { addUsage, NO_USAGE, type Message, type Role, type Usage } from "./messages";

/** One message of a transcript, with what the store knows about it. */
export interface TranscriptMessage {
  message: Message;
  /** The usage of the model reply that made it (assistant messages), when stored. */
  usage?: Usage;
  /** Milliseconds since the epoch. */
  createdAt?: number;
  /** Session messages: the store's id and 1-based seq. */
  id?: string;
  seq?: number;
}

export interface Transcript {
  /** e.g. `call_…`, `ses_…`, or `RUN_ID/step`. */
  id: string;
  title: string;
  kind: "call" | "session" | "step";
  /** `completed`, `failed`, `turn_limited`, a step status, … */
  status: string | null;
  /** The spec's system prompt when it is not the first message. */
  systemPrompt: string | null;
  messages: TranscriptMessage[];
  /** Tokens over every attempt, as the engine counted them. */
  usage: Usage | null;
  error: { message: string; category: string | null } | null;
}

export type Row =
  | { kind: "message"; key: string; role: Role; text: string; images: number; correction: boolean; usage: Usage | null; attempt: number | null; seq: number | null }
  /** `usage` is the reply's, on its first call when the reply has no text of its own. */
  | { kind: "tool_call"; key: string; callId: string; name: string; arguments: string; valid: boolean; attempt: number | null; usage: Usage | null }
  | { kind: "tool_result"; key: string; callId: string; name: string; content: string; isError: boolean; correction: boolean }
  | { kind: "usage"; key: string; usage: Usage; attempts: number; counted: Usage }
  | { kind: "error"; key: string; message: string; category: string | null };

/** Texts the engine sends back when an answer is rejected (crates/engine structured.rs). */
const CORRECTION_PREFIXES = [
  "The output does not match the schema:",
  "Your answer could not be parsed:",
  "You answered in plain text instead of calling the",
  "Your reply was empty.",
];

export function isCorrection(text: string): boolean {
  return CORRECTION_PREFIXES.some((p) => text.startsWith(p));
}

/** A tool call's arguments pretty-printed when they are JSON (they may not be). */
export function prettyArguments(args: string): { text: string; valid: boolean } {
  if (args.trim() === "") return { text: "{}", valid: true };
  try {
    return { text: JSON.stringify(JSON.parse(args), null, 2), valid: true };
  } catch {
    return { text: args, valid: false };
  }
}

/** The rows of a transcript, in order; the last rows are the total usage and the error, if any. */
export function timelineRows(transcript: Transcript): Row[] {
  const rows: Row[] = [];
  const names = new Map<string, string>();
  let attempt = 0;
  let counted = NO_USAGE;
  const first = transcript.messages[0]?.message;
  if (transcript.systemPrompt !== null && !(first?.role === "system")) {
    rows.push({ kind: "message", key: "system", role: "system", text: transcript.systemPrompt, images: 0, correction: false, usage: null, attempt: null, seq: null });
  }
  transcript.messages.forEach((entry, i) => {
    const { message } = entry;
    const key = entry.id ?? `m${i}`;
    const text = message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
    const images = message.parts.filter((p) => p.type === "image").length;
    const isReply = message.role === "assistant";
    if (isReply) attempt++;
    if (entry.usage) counted = addUsage(counted, entry.usage);
    const ownRow = text !== "" || images > 0 || (message.role !== "tool" && !message.parts.some((p) => p.type === "tool_call" || p.type === "tool_result"));
    let usageShown = ownRow;
    if (ownRow) {
      rows.push({
        kind: "message",
        key,
        role: message.role,
        text,
        images,
        correction: message.role === "user" && isCorrection(text),
        usage: entry.usage ?? null,
        attempt: isReply ? attempt : null,
        seq: entry.seq ?? null,
      });
    }
    message.parts.forEach((part, j) => {
      if (part.type === "tool_call") {
        names.set(part.id, part.name);
        rows.push({ kind: "tool_call", key: `${key}.${j}`, callId: part.id, name: part.name, arguments: part.arguments, valid: prettyArguments(part.arguments).valid, attempt: isReply ? attempt : null, usage: usageShown ? null : (entry.usage ?? null) });
        usageShown = true;
      } else if (part.type === "tool_result") {
        const isError = part.is_error ?? false;
        rows.push({ kind: "tool_result", key: `${key}.${j}`, callId: part.call_id, name: names.get(part.call_id) ?? "", content: part.content, isError, correction: isError && isCorrection(part.content) });
      }
    });
  });
  const usage = transcript.usage ?? (attempt > 0 && (counted.input_tokens > 0 || counted.output_tokens > 0) ? counted : null);
  if (usage !== null) rows.push({ kind: "usage", key: "usage", usage, attempts: attempt, counted });
  if (transcript.error !== null) rows.push({ kind: "error", key: "error", ...transcript.error });
  return rows;
}

/** Long text is folded to its first lines; returns the shown text and whether it was folded. */
export function fold(text: string, maxLines = 6, maxChars = 600): { shown: string; folded: boolean } {
  const lines = text.split("\n");
  let shown = lines.length > maxLines ? lines.slice(0, maxLines).join("\n") : text;
  if (shown.length > maxChars) shown = shown.slice(0, maxChars);
  return { shown, folded: shown.length < text.length };
}

/** A row's estimated height in pixels before it is measured. */
export function estimateHeight(row: Row, expanded: boolean): number {
  const lineHeight = 19;
  const chrome = 44;
  switch (row.kind) {
    case "message": {
      const text = expanded ? row.text : fold(row.text).shown;
      return chrome + lineHeight * Math.max(1, text.split("\n").reduce((n, l) => n + Math.max(1, Math.ceil(l.length / 90)), 0));
    }
    case "tool_call":
    case "tool_result": {
      const body = row.kind === "tool_call" ? prettyArguments(row.arguments).text : row.content;
      const text = expanded ? body : fold(body).shown;
      return chrome + lineHeight * Math.max(1, text.split("\n").length);
    }
    case "usage":
    case "error":
      return 40;
  }
}
