// The Chat screen's source over the Tauri commands (ui/src/ipc.ts).
import * as ipc from "../ipc";
import type { ChatEvent, PendingApproval, SessionSummary, StoredMessage } from "../chat/model";
import { CUT_PROMPT, snippet } from "../chat/model";
import type { Attachment, ChatSource, ModelOption, TurnHandle } from "../chat/source";
import type { Part, Role, Usage } from "../transcripts/messages";
import { errorText, storedMessage } from "./mapping";

export type ChatIpc = Pick<
  typeof ipc,
  | "listSessions"
  | "newSession"
  | "updateSession"
  | "sessionMessages"
  | "branchSession"
  | "discardCutReply"
  | "sendChatMessage"
  | "answerApproval"
  | "stopChatTurn"
  | "describeAttachments"
  | "writeExport"
  | "pickSavePath"
  | "getSettings"
  | "listModels"
  | "onFileDrop"
>;

/** The model choice the default provider answers. */
export const AUTO = "auto";

export function sessionSummary(s: ipc.SessionView, query?: string): SessionSummary {
  const summary: SessionSummary = { id: s.id, title: s.title, model_choice: s.modelChoice, created_at: s.createdAt, updated_at: s.updatedAt };
  const found = query === undefined || query.trim() === "" ? null : snippet(s.title, query.trim());
  return found === null ? summary : { ...summary, snippet: found };
}

export function pendingApproval(a: ipc.ApprovalView): PendingApproval {
  return { id: a.callId, name: a.name, arguments: a.arguments, reads: a.reads, created_at: 0 };
}

/**
 * A turn's events as the screen's. `usage` events are summed into the
 * `done` event's usage (the engine's Done carries it, the IPC's does not).
 */
export function chatEventMapper(onEvent: (e: ChatEvent) => void): { map: (e: ipc.ChatTurnEvent) => void; ended: () => boolean; usage: () => Usage } {
  let usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let ended = false;
  return {
    ended: () => ended,
    usage: () => usage,
    map(e) {
      switch (e.kind) {
        case "started":
          return;
        case "text":
          return onEvent({ kind: "text_delta", text: e.text });
        case "toolStarted":
          return onEvent({ kind: "tool_call_started", id: e.id, name: e.name });
        case "toolFinished":
          return onEvent({ kind: "tool_call_finished", id: e.id, name: e.name, content: e.content, is_error: e.isError });
        case "usage": {
          const one = { input_tokens: e.inputTokens, output_tokens: e.outputTokens };
          usage = { input_tokens: usage.input_tokens + one.input_tokens, output_tokens: usage.output_tokens + one.output_tokens };
          return onEvent({ kind: "usage", usage: one });
        }
        case "approvalRequired":
          return onEvent({ kind: "approval_required", id: e.id, name: e.name, arguments: e.arguments, reads: e.reads });
        case "done":
          ended = true;
          return onEvent({ kind: "done", usage });
        case "error":
          ended = true;
          return onEvent({ kind: "error", category: e.code, message: e.message });
      }
    },
  };
}

/**
 * The Chat source of the app. `acceptsDrops` says whether a file dropped on
 * the window is for Chat now (the other screens take drops too).
 */
export function tauriChatSource(api: ChatIpc = ipc, options: { acceptsDrops?: () => boolean } = {}): ChatSource {
  /** The provider of each model offered (a model name is what the session stores). */
  const providerOf = new Map<string, string>();
  /** The model each session last used, for the approvals that resume its turn. */
  const lastModel = new Map<string, string | null>();
  /** Sessions known to have no title yet: their first message names them. */
  const untitled = new Set<string>();
  const seen = (v: ipc.SessionView): ipc.SessionView => {
    if (v.title.trim() === "") untitled.add(v.id);
    else untitled.delete(v.id);
    return v;
  };
  /** What a turn that now waits for approval showed (the store holds its messages aside). */
  const suspended = new Map<string, { user: string; assistant: string }>();

  const choice = (model: string | null | undefined): ipc.ModelChoice =>
    model === null || model === undefined || model === "" || model === AUTO ? { providerId: null, model: null } : { providerId: providerOf.get(model) ?? null, model };

  /** Runs a turn command; resolves with its handle as soon as it started. */
  function turn(begin: (onEvent: (e: ipc.ChatTurnEvent) => void) => Promise<ipc.ChatTurnView>, onEvent: (e: ChatEvent) => void): Promise<TurnHandle> {
    const mapper = chatEventMapper(onEvent);
    let key: string | null = null;
    let stopRequested = false;
    return new Promise<TurnHandle>((resolve) => {
      const handle: TurnHandle = {
        stop: async () => {
          stopRequested = true;
          if (key !== null) await api.stopChatTurn(key);
        },
      };
      begin((e) => {
        if (e.kind === "started") {
          key = e.key;
          resolve(handle);
          if (stopRequested) void api.stopChatTurn(e.key);
        }
        mapper.map(e);
      }).then(
        () => {
          resolve(handle);
          // A stopped turn, or one waiting for an approval, may end without `done`.
          if (!mapper.ended()) onEvent({ kind: "done", usage: mapper.usage() });
        },
        (error: unknown) => {
          resolve(handle);
          if (!mapper.ended()) onEvent({ kind: "error", category: ipc.isIpcError(error) ? error.code : "other", message: errorText(error) });
        },
      );
    });
  }

  async function send(sessionId: string, input: { text: string; attachments: string[]; model: string | null }, onEvent: (e: ChatEvent) => void) {
    lastModel.set(sessionId, input.model);
    suspended.delete(sessionId);
    if (untitled.has(sessionId) && input.text.trim() !== "") {
      // A new chat is named after its first message (as the list shows it).
      const title = input.text.trim().replace(/\s+/g, " ");
      seen(await api.updateSession(sessionId, { title: title.length > 40 ? `${title.slice(0, 39).trimEnd()}…` : title, modelChoice: null }));
    }
    let said = "";
    const watch = (e: ChatEvent) => {
      if (e.kind === "text_delta") said += e.text;
      // The store keeps a suspended turn's messages aside until it resumes: remember what the turn showed.
      if (e.kind === "approval_required") suspended.set(sessionId, { user: input.text, assistant: said });
      onEvent(e);
    };
    return turn((events) => api.sendChatMessage(sessionId, input.text, choice(input.model), events, input.attachments), watch);
  }

  /**
   * The session's stored messages and, while a turn waits for approval,
   * the messages it holds aside (the store writes them when it resumes):
   * the question and the reply so far when this window sent them, and the
   * calls that wait, so that their cards (and Approve/Deny) show.
   */
  async function messages(sessionId: string): Promise<StoredMessage[]> {
    const [stored, list] = await Promise.all([api.sessionMessages(sessionId), api.listSessions("")]);
    const out = stored.map(storedMessage);
    const session = list.find((s) => s.id === sessionId);
    const approvals = session?.approvals ?? [];
    let seq = out.reduce((max, m) => Math.max(max, m.seq), 0);
    const at = out.at(-1)?.created_at ?? 0;
    const add = (role: Role, parts: Part[], metadata: Record<string, unknown> = { pending: true }) =>
      out.push({ id: `pending-${seq + 1}`, seq: ++seq, role, parts, metadata, hidden: false, created_at: at });
    const cut = session?.cutReply;
    if (cut) {
      // A reply a crash cut, with the message it answered: neither is stored among the messages.
      add("user", [{ type: "text", text: cut.prompt }], { cut: true });
      add("assistant", [{ type: "text", text: cut.reply }], { [CUT_PROMPT]: cut.prompt });
    }
    if (approvals.length === 0) return out;
    const held = suspended.get(sessionId);
    if (held?.user) add("user", [{ type: "text", text: held.user }]);
    const calls: Part[] = approvals.map((a) => ({ type: "tool_call", id: a.callId, name: a.name, arguments: a.arguments }));
    add("assistant", held?.assistant ? [{ type: "text", text: held.assistant }, ...calls] : calls);
    return out;
  }

  return {
    async listSessions(query) {
      const q = query?.trim() ?? "";
      return (await api.listSessions(q)).map((s) => sessionSummary(seen(s), q));
    },
    async createSession(init) {
      const created = seen(await api.newSession(init.title ?? "", null));
      const model = init.model_choice ?? null;
      if (model === null || model === AUTO) return sessionSummary(created);
      return sessionSummary(await api.updateSession(created.id, { title: null, modelChoice: model }));
    },
    async updateSession(id, change) {
      const modelChoice = change.model_choice === undefined ? null : (change.model_choice ?? "");
      return sessionSummary(seen(await api.updateSession(id, { title: change.title ?? null, modelChoice })));
    },
    messages,
    async pendingApprovals(sessionId) {
      // No command reads one session: its view comes with the list.
      const session = (await api.listSessions("")).find((s) => s.id === sessionId);
      return (session?.approvals ?? []).map(pendingApproval);
    },
    async models(): Promise<ModelOption[]> {
      const { settings } = await api.getSettings();
      const options: ModelOption[] = [{ id: AUTO, label: "Auto (a refused turn goes to the next model)" }];
      for (const provider of settings.providers) {
        let names: string[] = [];
        try {
          names = await api.listModels(provider);
        } catch {
          continue; // A provider that does not answer offers no models.
        }
        for (const name of names) {
          if (providerOf.has(name)) continue;
          providerOf.set(name, provider.id);
          options.push({ id: name, label: `${name} (${provider.label})` });
        }
      }
      return options;
    },
    async attach(paths): Promise<Attachment[]> {
      const ok = (v: ipc.AttachmentView): Attachment => ({ path: v.path, name: v.name, chars: v.chars, images: v.images, error: null });
      try {
        return (await api.describeAttachments(paths)).map(ok);
      } catch {
        // The command stops at the first refusal: each file on its own says which.
        return Promise.all(
          paths.map(async (path) => {
            try {
              const [one] = await api.describeAttachments([path]);
              if (one === undefined) throw new Error(`${path}: nothing to read`);
              return ok(one);
            } catch (error) {
              return { path, name: path.split(/[\\/]/).pop() ?? path, chars: 0, images: 0, error: errorText(error) };
            }
          }),
        );
      }
    },
    onFilesDropped(listener) {
      let stopped = false;
      let unlisten: (() => void) | null = null;
      api
        .onFileDrop((event) => {
          if (event.kind === "drop" && (options.acceptsDrops?.() ?? true)) listener(event.paths);
        })
        .then(
          (fn) => {
            if (stopped) fn();
            else unlisten = fn;
          },
          () => undefined,
        );
      return () => {
        stopped = true;
        unlisten?.();
      };
    },
    send,
    resolveApproval(sessionId, callId, approved, onEvent) {
      suspended.delete(sessionId);
      const model = lastModel.get(sessionId) ?? null;
      return turn((events) => api.answerApproval(sessionId, callId, approved, choice(model), events), onEvent);
    },
    async editAndRegenerate(sessionId, seq, text, model, onEvent) {
      const branch = await api.branchSession(sessionId, seq);
      const handle = await send(branch.id, { text, attachments: [], model }, onEvent);
      return { sessionId: branch.id, handle };
    },
    async discardCutReply(sessionId) {
      await api.discardCutReply(sessionId);
    },
    async saveExport(suggestedName, content) {
      const ext = suggestedName.split(".").pop() ?? "md";
      const path = await api.pickSavePath({ title: "Export the conversation", defaultName: suggestedName, filters: [{ name: ext.toUpperCase(), extensions: [ext] }] });
      if (path === null) return false;
      await api.writeExport(path, content);
      return true;
    },
  };
}
