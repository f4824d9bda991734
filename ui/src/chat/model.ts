// Chat's pure parts: the types shaped after the engine (crates/engine
// chat.rs ChatEvent, crates/store Session/Message/PendingApproval), the
// streaming turn's state, the conversation as bubbles with tool cards, and
// the Markdown and JSON exports.
import type { Part, Role, Usage } from "../transcripts/messages";

/** A session (crates/store Session), with a snippet when listed by a search. */
export interface SessionSummary {
  id: string;
  title: string;
  model_choice: string | null;
  created_at: number;
  updated_at: number;
  /** Text around the first match of the search, if listed by one. */
  snippet?: string;
}

/** A stored message (crates/store Message). */
export interface StoredMessage {
  id: string;
  seq: number;
  role: Role;
  parts: Part[];
  metadata: Record<string, unknown>;
  /** Kept for views but never sent to the model. */
  hidden: boolean;
  created_at: number;
}

/** A tool call waiting for the user (crates/store PendingApproval). */
export interface PendingApproval {
  id: string;
  name: string;
  /** As the model produced it: JSON text that may be invalid. */
  arguments: string;
  /** The file the call reads, as it will be read (`~` expanded), for a tool that reads one. */
  reads?: string | null;
  created_at: number;
}

/** What a turn reports while it goes (crates/engine ChatEvent). */
export type ChatEvent =
  | { kind: "text_delta"; text: string }
  | { kind: "tool_call_started"; id: string; name: string }
  | { kind: "tool_call_finished"; id: string; name: string; content: string; is_error: boolean }
  | { kind: "usage"; usage: Usage }
  | { kind: "approval_required"; id: string; name: string; arguments: string; reads?: string | null }
  | { kind: "done"; usage: Usage }
  | { kind: "error"; category: string; message: string };

export interface ToolCard {
  id: string;
  name: string;
  arguments: string;
  /** null while the tool runs (or waits for approval). */
  result: { content: string; is_error: boolean } | null;
}

/** The turn being streamed. */
export interface TurnState {
  status: "streaming" | "awaiting_approval" | "done" | "stopped" | "error";
  text: string;
  tools: ToolCard[];
  approvals: PendingApproval[];
  usage: Usage;
  error: { category: string; message: string } | null;
}

export function newTurn(): TurnState {
  return { status: "streaming", text: "", tools: [], approvals: [], usage: { input_tokens: 0, output_tokens: 0 }, error: null };
}

export function applyChatEvent(turn: TurnState, event: ChatEvent): TurnState {
  switch (event.kind) {
    case "text_delta":
      return { ...turn, text: turn.text + event.text };
    case "tool_call_started":
      return turn.tools.some((t) => t.id === event.id) ? turn : { ...turn, tools: [...turn.tools, { id: event.id, name: event.name, arguments: "", result: null }] };
    case "tool_call_finished": {
      const result = { content: event.content, is_error: event.is_error };
      const known = turn.tools.some((t) => t.id === event.id);
      const tools = known ? turn.tools.map((t) => (t.id === event.id ? { ...t, result } : t)) : [...turn.tools, { id: event.id, name: event.name, arguments: "", result }];
      return { ...turn, tools, approvals: turn.approvals.filter((a) => a.id !== event.id) };
    }
    case "usage":
      return { ...turn, usage: { input_tokens: turn.usage.input_tokens + event.usage.input_tokens, output_tokens: turn.usage.output_tokens + event.usage.output_tokens } };
    case "approval_required": {
      const tools = turn.tools.some((t) => t.id === event.id)
        ? turn.tools.map((t) => (t.id === event.id ? { ...t, arguments: event.arguments } : t))
        : [...turn.tools, { id: event.id, name: event.name, arguments: event.arguments, result: null }];
      return { ...turn, tools, status: "awaiting_approval", approvals: [...turn.approvals, { id: event.id, name: event.name, arguments: event.arguments, reads: event.reads, created_at: 0 }] };
    }
    case "done":
      return { ...turn, status: turn.approvals.length > 0 ? "awaiting_approval" : "done", usage: event.usage };
    case "error":
      return { ...turn, status: "error", error: { category: event.category, message: event.message } };
  }
}

/** One bubble of the conversation: a message with its tool calls as cards (results joined by call id). */
export interface Bubble {
  key: string;
  seq: number;
  role: Role;
  text: string;
  images: string[];
  /** Names of the attached documents (`<file name="...">` blocks, taken out of `text`). */
  files: string[];
  tools: ToolCard[];
  /** A reply a crash cut (Sift closed while it streamed): the message it answered, which Regenerate sends again. */
  cutPrompt?: string;
}

/** The metadata that marks a reply as cut (see the Tauri source's `messages`). */
export const CUT_PROMPT = "cut_prompt";

const FILE_BLOCK = /<file name="([^"]*)">[\s\S]*?<\/file>\n?/g;

/** A user message's text without the documents crate's `<file>` blocks, and the blocks' names. */
export function splitFiles(text: string): { text: string; files: string[] } {
  const files: string[] = [];
  const rest = text.replace(FILE_BLOCK, (_, name: string) => {
    files.push(name);
    return "";
  });
  return { text: files.length > 0 ? rest.trim() : text, files };
}

/** The stored messages as bubbles: tool results join their calls' cards; hidden messages and tool-only messages are left out. */
export function bubbles(messages: StoredMessage[]): Bubble[] {
  const results = new Map<string, { content: string; is_error: boolean }>();
  for (const m of messages) for (const p of m.parts) if (p.type === "tool_result") results.set(p.call_id, { content: p.content, is_error: p.is_error ?? false });
  const out: Bubble[] = [];
  for (const m of messages) {
    if (m.hidden || m.role === "tool") continue;
    const joined = m.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
    const { text, files } = m.role === "user" ? splitFiles(joined) : { text: joined, files: [] };
    const images = m.parts.flatMap((p) => (p.type === "image" ? [p.mime] : []));
    const tools = m.parts.flatMap((p) => (p.type === "tool_call" ? [{ id: p.id, name: p.name, arguments: p.arguments, result: results.get(p.id) ?? null }] : []));
    if (text === "" && images.length === 0 && files.length === 0 && tools.length === 0) continue;
    const cut = m.metadata[CUT_PROMPT];
    out.push({ key: m.id, seq: m.seq, role: m.role, text, images, files, tools, ...(typeof cut === "string" ? { cutPrompt: cut } : {}) });
  }
  return out;
}

/** A fence longer than any run of backticks in `text`, so the block cannot end early. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

function block(text: string, lang = ""): string {
  const fence = fenceFor(text);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function prettyJson(text: string): { text: string; json: boolean } {
  try {
    return { text: JSON.stringify(JSON.parse(text === "" ? "{}" : text), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

const HEADING: Record<Role, string> = { system: "System", user: "User", assistant: "Assistant", tool: "Tool" };

/** The conversation as Markdown: a heading per message, tool calls and results as fenced blocks. Hidden messages are left out. */
export function exportMarkdown(session: SessionSummary, messages: StoredMessage[]): string {
  const out = [`# ${session.title === "" ? "Untitled chat" : session.title}`, ""];
  if (session.model_choice !== null) out.push(`Model: ${session.model_choice}`, "");
  for (const m of messages) {
    if (m.hidden) continue;
    out.push(`## ${HEADING[m.role]}`, "");
    for (const p of m.parts) {
      if (p.type === "text") out.push(p.text, "");
      else if (p.type === "image") out.push(`[image: ${p.mime}]`, "");
      else if (p.type === "tool_call") {
        const args = prettyJson(p.arguments);
        out.push(`**Tool call** \`${p.name}\` (${p.id})`, "", block(args.text, args.json ? "json" : ""), "");
      } else {
        out.push(`**Tool result**${p.is_error ? " (error)" : ""} (${p.call_id})`, "", block(p.content), "");
      }
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** The conversation as JSON: the session and its visible messages with their parts as the engine stores them. */
export function exportJson(session: SessionSummary, messages: StoredMessage[]): string {
  const value = {
    session: { id: session.id, title: session.title, model_choice: session.model_choice, created_at: session.created_at },
    messages: messages.filter((m) => !m.hidden).map((m) => ({ seq: m.seq, role: m.role, parts: m.parts, created_at: m.created_at })),
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A file name for an export: the title's words, or the session id. */
export function exportFileName(session: SessionSummary, format: "md" | "json"): string {
  const base = session.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${base === "" ? session.id : base}.${format}`;
}

/** Text around the first case-insensitive match of `query`, with an ellipsis where it was cut. */
export function snippet(text: string, query: string, radius = 30): string | null {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (query === "" || at < 0) return null;
  const from = Math.max(0, at - radius);
  const to = Math.min(text.length, at + query.length + radius);
  return `${from > 0 ? "…" : ""}${text.slice(from, to).replace(/\s+/g, " ")}${to < text.length ? "…" : ""}`;
}
