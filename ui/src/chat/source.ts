// What the Chat screen needs from the app. `ui/src/backend/chatSource.ts`
// implements it over ui/src/ipc.ts; `memoryChatSource` serves tests and the
// browser harness.
import type { Part } from "../transcripts/messages";
import type { ChatEvent, PendingApproval, SessionSummary, StoredMessage } from "./model";
import { snippet } from "./model";

export interface ModelOption {
  /** What the session stores as `model_choice`: "auto" or a model name. */
  id: string;
  label: string;
}

/** A file dropped on the composer, read by the documents crate. */
export interface Attachment {
  path: string;
  name: string;
  /** What the model will receive: characters of text and images (or an error). */
  chars: number;
  images: number;
  error: string | null;
}

export interface TurnHandle {
  /** Ends the turn now (the stop button); what was streamed so far stays. */
  stop(): Promise<void>;
}

export interface ChatSource {
  /** Newest first; with a query, the sessions whose title or messages match, with a snippet. */
  listSessions(query?: string): Promise<SessionSummary[]>;
  createSession(init: { title?: string; model_choice?: string | null }): Promise<SessionSummary>;
  updateSession(id: string, change: { title?: string; model_choice?: string | null }): Promise<SessionSummary>;
  messages(sessionId: string): Promise<StoredMessage[]>;
  /** Tool calls waiting for approval: a turn suspended before a restart shows again. */
  pendingApprovals(sessionId: string): Promise<PendingApproval[]>;
  /** The models of the configured providers (from the servers' /models). */
  models(): Promise<ModelOption[]>;
  /** Reads dropped files through the documents crate. */
  attach(paths: string[]): Promise<Attachment[]>;
  /** Native file drops on the window (Tauri's drag-drop); returns the unsubscribe. */
  onFilesDropped(listener: (paths: string[]) => void): () => void;
  /** A new user message (with attachments) and the turn it starts; events stream until `done` or `error`. */
  send(sessionId: string, input: { text: string; attachments: string[]; model: string | null }, onEvent: (e: ChatEvent) => void): Promise<TurnHandle>;
  /** Approves or denies a suspended call; the turn resumes and streams on. */
  resolveApproval(sessionId: string, callId: string, approved: boolean, onEvent: (e: ChatEvent) => void): Promise<TurnHandle>;
  /**
   * Edits the user message `seq` and regenerates from it. The conversation
   * branches: a new session with the messages before `seq`, the edited
   * message and the new turn; its id is returned. The original stays.
   */
  editAndRegenerate(sessionId: string, seq: number, text: string, model: string | null, onEvent: (e: ChatEvent) => void): Promise<{ sessionId: string; handle: TurnHandle }>;
  /** Saves an export through the native save dialog; false when the user cancelled. */
  saveExport(suggestedName: string, content: string): Promise<boolean>;
  /** Drops the reply a crash cut, and the message it answered (the chat ends at its stored messages). */
  discardCutReply(sessionId: string): Promise<void>;
}

interface MemorySession {
  summary: SessionSummary;
  messages: StoredMessage[];
  pending: PendingApproval[];
}

export interface MemoryChatSource extends ChatSource {
  sessions: Map<string, MemorySession>;
  exports: { name: string; content: string }[];
  /** Simulates a native drop of files on the window. */
  drop(paths: string[]): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A scripted model: a message mentioning "weather" asks for the
 * `get_weather` tool, which needs approval; anything else is echoed back
 * word by word, `delay` ms apart.
 */
export function memoryChatSource(options: { delay?: number; sessions?: { title: string; messages: [StoredMessage["role"], string][] }[] } = {}): MemoryChatSource {
  const delay = options.delay ?? 30;
  const sessions = new Map<string, MemorySession>();
  const exports: MemoryChatSource["exports"] = [];
  const dropListeners = new Set<(paths: string[]) => void>();
  let clock = 1000;
  let ids = 0;

  const add = (s: MemorySession, role: StoredMessage["role"], parts: Part[], metadata: Record<string, unknown> = {}) => {
    const m: StoredMessage = { id: `msg_${++ids}`, seq: s.messages.length + 1, role, parts, metadata, hidden: false, created_at: clock++ };
    s.messages.push(m);
    s.summary = { ...s.summary, updated_at: clock++ };
    return m;
  };
  const create = (title: string, model: string | null): MemorySession => {
    const id = `ses_${++ids}`;
    const s = { summary: { id, title, model_choice: model, created_at: clock, updated_at: clock++ }, messages: [], pending: [] };
    sessions.set(id, s);
    return s;
  };
  const get = (id: string) => {
    const s = sessions.get(id);
    if (s === undefined) throw new Error(`no session ${id}`);
    return s;
  };

  for (const seed of options.sessions ?? []) {
    const s = create(seed.title, "smollm2");
    for (const [role, text] of seed.messages) add(s, role, [{ type: "text", text }]);
  }

  /** Streams `reply` word by word; stops early when `stopped()`. */
  async function stream(s: MemorySession, reply: string, onEvent: (e: ChatEvent) => void, stopped: () => boolean) {
    let said = "";
    for (const word of reply.split(/(?<= )/)) {
      await sleep(delay);
      if (stopped()) break;
      said += word;
      onEvent({ kind: "text_delta", text: word });
    }
    add(s, "assistant", [{ type: "text", text: said }], stopped() ? { stopped: true } : {});
    const usage = { input_tokens: 10 * s.messages.length, output_tokens: said.split(" ").length };
    onEvent({ kind: "usage", usage });
    onEvent({ kind: "done", usage });
  }

  function turn(s: MemorySession, text: string, onEvent: (e: ChatEvent) => void): TurnHandle {
    let stopped = false;
    void (async () => {
      if (/weather/i.test(text)) {
        await sleep(delay);
        onEvent({ kind: "text_delta", text: "Let me check. " });
        const call = { id: `call_${++ids}`, name: "get_weather", arguments: JSON.stringify({ city: "Paris" }) };
        add(s, "assistant", [{ type: "text", text: "Let me check. " }, { type: "tool_call", ...call }]);
        s.pending.push({ ...call, created_at: clock++ });
        onEvent({ kind: "tool_call_started", id: call.id, name: call.name });
        onEvent({ kind: "approval_required", ...call });
        onEvent({ kind: "done", usage: { input_tokens: 12, output_tokens: 8 } });
        return;
      }
      await stream(s, `You said: ${text}`, onEvent, () => stopped);
    })();
    return { stop: async () => void (stopped = true) };
  }

  return {
    sessions,
    exports,
    drop(paths) {
      for (const l of dropListeners) l(paths);
    },
    async listSessions(query) {
      const all = [...sessions.values()].sort((a, b) => b.summary.updated_at - a.summary.updated_at);
      if (query === undefined || query.trim() === "") return all.map((s) => s.summary);
      const q = query.trim();
      return all.flatMap((s) => {
        const inTitle = snippet(s.summary.title, q);
        const found = inTitle ?? s.messages.map((m) => snippet(m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""), q)).find((x) => x !== null);
        return found === undefined || found === null ? [] : [{ ...s.summary, snippet: found }];
      });
    },
    async createSession(init) {
      return create(init.title ?? "", init.model_choice ?? null).summary;
    },
    async updateSession(id, change) {
      const s = get(id);
      s.summary = { ...s.summary, ...change, updated_at: clock++ };
      return s.summary;
    },
    async messages(id) {
      return [...get(id).messages];
    },
    async pendingApprovals(id) {
      return [...get(id).pending];
    },
    async models() {
      return [
        { id: "auto", label: "Auto (the default model)" },
        { id: "smollm2", label: "smollm2 (local)" },
        { id: "gpt-4o-mini", label: "gpt-4o-mini (openai)" },
      ];
    },
    async attach(paths) {
      return paths.map((path) => {
        const name = path.split("/").pop() ?? path;
        const broken = name.endsWith(".bin");
        return { path, name, chars: broken ? 0 : 1000 + name.length, images: name.endsWith(".png") ? 1 : 0, error: broken ? "unsupported file type" : null };
      });
    },
    onFilesDropped(listener) {
      dropListeners.add(listener);
      return () => dropListeners.delete(listener);
    },
    async send(id, input, onEvent) {
      const s = get(id);
      if (s.summary.title === "") s.summary = { ...s.summary, title: input.text.slice(0, 40) };
      const parts: Part[] = [{ type: "text", text: input.text }];
      for (const path of input.attachments) parts.push({ type: "text", text: `<file name="${path.split("/").pop()}">…</file>` });
      add(s, "user", parts, input.model === null ? {} : { model: input.model });
      return turn(s, input.text, onEvent);
    },
    async resolveApproval(id, callId, approved, onEvent) {
      const s = get(id);
      const call = s.pending.find((p) => p.id === callId);
      if (call === undefined) throw new Error(`no pending call ${callId}`);
      s.pending = s.pending.filter((p) => p.id !== callId);
      let stopped = false;
      void (async () => {
        await sleep(delay);
        const content = approved ? '{"temperature_c": 20, "sky": "clear"}' : "The user denied this tool call.";
        add(s, "tool", [{ type: "tool_result", call_id: callId, content, is_error: !approved }]);
        onEvent({ kind: "tool_call_finished", id: callId, name: call.name, content, is_error: !approved });
        await stream(s, approved ? "It is 20 °C and clear in Paris." : "I could not check the weather.", onEvent, () => stopped);
      })();
      return { stop: async () => void (stopped = true) };
    },
    async editAndRegenerate(id, seq, text, model, onEvent) {
      const from = get(id);
      const branch = create(`${from.summary.title} (edited)`, model ?? from.summary.model_choice);
      for (const m of from.messages.filter((m) => m.seq < seq)) add(branch, m.role, m.parts, m.metadata);
      add(branch, "user", [{ type: "text", text }]);
      return { sessionId: branch.summary.id, handle: turn(branch, text, onEvent) };
    },
    async saveExport(name, content) {
      exports.push({ name, content });
      return true;
    },
    // The memory source has no crash, so no cut reply to drop.
    async discardCutReply() {},
  };
}
