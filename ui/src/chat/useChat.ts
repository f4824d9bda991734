import { useCallback, useEffect, useRef, useState } from "react";
import { applyChatEvent, newTurn, type ChatEvent, type PendingApproval, type SessionSummary, type StoredMessage, type TurnState } from "./model";
import type { Attachment, ChatSource, ModelOption, TurnHandle } from "./source";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Chat screen's state: sessions (searched), the open one's messages and approvals, the streaming turn. */
export function useChat(source: ChatSource) {
  const [query, setQuery] = useState("");
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const [messages, setMessages] = useState<StoredMessage[]>([]);
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  const [models, setModels] = useState<ModelOption[]>([]);
  const [turn, setTurn] = useState<TurnState | null>(null);
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [error, setError] = useState<string | null>(null);
  const handle = useRef<TurnHandle | null>(null);
  const generation = useRef(0);

  const refreshList = useCallback(async () => {
    try {
      setSessions(await source.listSessions(query));
    } catch (e) {
      setError(message(e));
    }
  }, [source, query]);

  useEffect(() => {
    const timer = setTimeout(() => void refreshList(), 150);
    return () => clearTimeout(timer);
  }, [refreshList]);

  useEffect(() => {
    source.models().then(setModels, () => setModels([]));
    return source.onFilesDropped((paths) => {
      source.attach(paths).then(
        (read) => setAttachments((a) => [...a, ...read.filter((r) => !a.some((x) => x.path === r.path))]),
        (e) => setError(`Could not read the files: ${message(e)}`),
      );
    });
  }, [source]);

  const reload = useCallback(
    async (id: string) => {
      const [m, p] = await Promise.all([source.messages(id), source.pendingApprovals(id)]);
      setMessages(m);
      setApprovals(p);
    },
    [source],
  );

  const open = useCallback(
    async (id: string) => {
      generation.current++;
      handle.current = null;
      setTurn(null);
      setCurrent(id);
      setError(null);
      try {
        await reload(id);
      } catch (e) {
        setError(`Could not open the chat: ${message(e)}`);
      }
    },
    [reload],
  );

  /** Follows a turn's events; when it ends, the stored messages replace the streamed bubble. */
  const follow = useCallback(
    (id: string) => {
      const mine = ++generation.current;
      setTurn(newTurn());
      return (event: ChatEvent) => {
        if (generation.current !== mine) return;
        setTurn((t) => applyChatEvent(t ?? newTurn(), event));
        if (event.kind === "done" || event.kind === "error") {
          handle.current = null;
          reload(id).then(
            () => {
              if (generation.current !== mine) return;
              if (event.kind === "done") setTurn(null);
              void refreshList();
            },
            (e) => setError(`Could not reload the chat: ${message(e)}`),
          );
        }
      };
    },
    [reload, refreshList],
  );

  const start = useCallback(
    async (id: string, begin: (onEvent: (e: ChatEvent) => void) => Promise<TurnHandle>) => {
      const onEvent = follow(id);
      try {
        handle.current = await begin(onEvent);
      } catch (e) {
        onEvent({ kind: "error", category: "other", message: message(e) });
      }
    },
    [follow],
  );

  const newChat = useCallback(
    async (model: string | null) => {
      const s = await source.createSession({ model_choice: model });
      await refreshList();
      await open(s.id);
      return s.id;
    },
    // A failure here reaches `send`'s catch, or the button's (see ChatScreen).
    [source, refreshList, open],
  );

  const send = useCallback(
    async (text: string, model: string | null) => {
      try {
        const id = current ?? (await newChat(model));
        const files = attachments.filter((a) => a.error === null).map((a) => a.path);
        setAttachments([]);
        await start(id, (onEvent) => source.send(id, { text, attachments: files, model }, onEvent));
        // The user's message is stored before the reply streams.
        await reload(id);
      } catch (e) {
        setError(`Could not send: ${message(e)}`);
      }
    },
    [current, newChat, attachments, reload, start, source],
  );

  const stop = useCallback(async () => {
    await handle.current?.stop();
  }, []);

  const resolve = useCallback(
    async (callId: string, approved: boolean) => {
      if (current === null) return;
      const id = current;
      setApprovals((a) => a.filter((x) => x.id !== callId));
      await start(id, (onEvent) => source.resolveApproval(id, callId, approved, onEvent));
    },
    [current, start, source],
  );

  const editAndRegenerate = useCallback(
    async (seq: number, text: string, model: string | null) => {
      if (current === null) return;
      const from = current;
      let branch: string | null = null;
      const mine = ++generation.current;
      const buffered: ChatEvent[] = [];
      // Events may come before the branch's id: hold them until it is known.
      let forward: ((e: ChatEvent) => void) | null = null;
      try {
        const result = await source.editAndRegenerate(from, seq, text, model, (e) => (forward ? forward(e) : buffered.push(e)));
        if (generation.current !== mine) return;
        branch = result.sessionId;
        setCurrent(branch);
        await reload(branch);
        forward = follow(branch);
        handle.current = result.handle;
        buffered.splice(0).forEach(forward);
        await refreshList();
      } catch (e) {
        setError(`Could not regenerate: ${message(e)}`);
      }
    },
    [current, source, reload, follow, refreshList],
  );

  const discardCut = useCallback(async () => {
    if (current === null) return;
    try {
      await source.discardCutReply(current);
      await reload(current);
    } catch (e) {
      setError(`Could not discard the cut reply: ${message(e)}`);
    }
  }, [current, source, reload]);

  const setModel = useCallback(
    async (model: string) => {
      if (current === null) return;
      try {
        const updated = await source.updateSession(current, { model_choice: model === "" ? null : model });
        setSessions((list) => list.map((s) => (s.id === updated.id ? { ...s, ...updated } : s)));
      } catch (e) {
        setError(`Could not change the model: ${message(e)}`);
      }
    },
    [current, source],
  );

  return {
    query,
    setQuery,
    sessions,
    current: sessions.find((s) => s.id === current) ?? null,
    currentId: current,
    messages,
    approvals,
    models,
    turn,
    attachments,
    removeAttachment: (path: string) => setAttachments((a) => a.filter((x) => x.path !== path)),
    error,
    open,
    newChat,
    send,
    stop,
    resolve,
    editAndRegenerate,
    discardCut,
    setModel,
  };
}
