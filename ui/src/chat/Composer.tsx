import { useState } from "react";
import type { Attachment, ModelOption } from "./source";

interface Props {
  models: ModelOption[];
  model: string;
  onModel: (model: string) => void;
  attachments: Attachment[];
  onRemoveAttachment: (path: string) => void;
  streaming: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

/** The message box: attachments dropped on the window, the model picker, send and stop. */
export function Composer({ models, model, onModel, attachments, onRemoveAttachment, streaming, onSend, onStop }: Props) {
  const [text, setText] = useState("");
  const submit = () => {
    if (text.trim() === "" || streaming) return;
    onSend(text.trim());
    setText("");
  };
  return (
    <form
      className="chat-composer stack"
      aria-label="New message"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {attachments.length > 0 ? (
        <ul className="chips" aria-label="Attachments" data-testid="attachments">
          {attachments.map((a) => (
            <li key={a.path} className={`chip${a.error ? " error" : ""}`} title={a.path}>
              {a.name}
              <span className="muted small">{a.error ? ` · ${a.error}` : ` · ${a.chars.toLocaleString("en-US")} chars${a.images > 0 ? ` · ${a.images} image${a.images > 1 ? "s" : ""}` : ""}`}</span>
              <button type="button" className="icon" aria-label={`Remove ${a.name}`} onClick={() => onRemoveAttachment(a.path)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">Drop files on the window to attach them.</p>
      )}
      <label htmlFor="chat-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="chat-input"
        rows={3}
        value={text}
        placeholder="Write a message (Enter sends, Shift+Enter for a new line, Escape stops a reply)"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            submit();
          } else if (e.key === "Escape" && streaming) {
            e.preventDefault();
            onStop();
          }
        }}
      />
      <div className="row">
        <label htmlFor="chat-model" className="small">
          Model
        </label>
        <select id="chat-model" value={model} onChange={(e) => onModel(e.target.value)} data-testid="chat-model">
          <option value="">Default</option>
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
        <span className="grow" />
        {streaming ? (
          <button type="button" className="danger" onClick={onStop} data-testid="chat-stop">
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={text.trim() === ""} data-testid="chat-send">
            Send
          </button>
        )}
      </div>
    </form>
  );
}
