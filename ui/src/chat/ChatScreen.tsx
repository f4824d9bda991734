import { useMemo, useState } from "react";
import { bubbles, exportFileName, exportJson, exportMarkdown } from "./model";
import { Composer } from "./Composer";
import { Conversation } from "./Conversation";
import type { ChatSource } from "./source";
import { useChat } from "./useChat";
import "./chat.css";

/** Chat: sessions searchable across their messages, streamed replies, tool cards and approvals, edit and regenerate, export. */
export function ChatScreen({ source }: { source: ChatSource }) {
  const chat = useChat(source);
  const [model, setModelChoice] = useState("");
  const [status, setStatus] = useState("");
  const shown = useMemo(() => bubbles(chat.messages), [chat.messages]);
  const streaming = chat.turn?.status === "streaming";
  const chosen = chat.current?.model_choice ?? model;

  const doExport = async (format: "md" | "json") => {
    if (chat.current === null) return;
    const content = format === "md" ? exportMarkdown(chat.current, chat.messages) : exportJson(chat.current, chat.messages);
    const name = exportFileName(chat.current, format);
    try {
      setStatus((await source.saveExport(name, content)) ? `Exported ${name}.` : "");
    } catch (e) {
      setStatus(`Could not export: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
    <section className="screen chat-screen" aria-labelledby="chat-title">
      <div className="screen-head">
        <h1 id="chat-title" tabIndex={-1}>
          Chat
        </h1>
        <div className="row">
          <button type="button" onClick={() => void doExport("md")} disabled={chat.current === null} data-testid="export-md">
            Export Markdown
          </button>
          <button type="button" onClick={() => void doExport("json")} disabled={chat.current === null} data-testid="export-json">
            Export JSON
          </button>
          <span className="small muted" role="status" data-testid="chat-status">
            {status}
          </span>
        </div>
      </div>
      <div className="chat-main">
        <nav className="chat-sessions stack" aria-label="Chats">
          <button type="button" className="primary" onClick={() => void chat.newChat(model === "" ? null : model).catch(() => setStatus("Could not start a chat."))} data-testid="new-chat">
            New chat
          </button>
          <label htmlFor="chat-search" className="visually-hidden">
            Search chats
          </label>
          <input id="chat-search" type="search" placeholder="Search all messages" value={chat.query} onChange={(e) => chat.setQuery(e.target.value)} />
          <ul className="plain-list" data-testid="session-list">
            {chat.sessions.map((s) => (
              <li key={s.id}>
                <button type="button" className="list-item" data-session={s.id} aria-current={s.id === chat.currentId ? "true" : undefined} onClick={() => void chat.open(s.id)}>
                  <span className="stack">
                    <strong>{s.title === "" ? "New chat" : s.title}</strong>
                    {s.snippet ? <span className="muted small chat-snippet">{s.snippet}</span> : null}
                  </span>
                </button>
              </li>
            ))}
            {chat.sessions.length === 0 ? <li className="muted small">{chat.query ? "No chat matches." : "No chats yet."}</li> : null}
          </ul>
        </nav>
        <div className="chat-body stack">
          {chat.error ? (
            <p className="error" role="alert">
              {chat.error}
            </p>
          ) : null}
          <Conversation
            bubbles={shown}
            turn={chat.turn}
            approvals={chat.approvals}
            busy={streaming}
            onResolve={(id, ok) => void chat.resolve(id, ok)}
            onEdit={(seq, text) => void chat.editAndRegenerate(seq, text, chosen === "" ? null : chosen)}
            onRegenerate={(prompt) => void chat.send(prompt, chosen === "" ? null : chosen)}
            onDiscardCut={() => void chat.discardCut()}
          />
          <Composer
            models={chat.models}
            model={chosen}
            onModel={(m) => {
              setModelChoice(m);
              void chat.setModel(m);
            }}
            attachments={chat.attachments}
            onRemoveAttachment={chat.removeAttachment}
            streaming={streaming}
            onSend={(text) => void chat.send(text, chosen === "" ? null : chosen)}
            onStop={() => void chat.stop()}
          />
        </div>
      </div>
    </section>
  );
}
