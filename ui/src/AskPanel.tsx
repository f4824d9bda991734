import { useState, type FormEvent } from "react";
import type { SettingsSource } from "./settings/source";
import { applyAskEvent, failed, idle, isBusy, started, type AskState } from "./askState";

/** Sends one prompt to the configured model (the local one by default). */
export function AskPanel({ source }: { source: Pick<SettingsSource, "ask" | "canAsk"> }) {
  const [prompt, setPrompt] = useState("");
  const [state, setState] = useState<AskState>(idle);
  const busy = isBusy(state);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!prompt.trim() || busy) return;
    setState(started());
    try {
      await source.ask({ prompt }, (e) => setState((s) => applyAskEvent(s, e)));
    } catch (error) {
      setState((s) => failed(s, error));
    }
  }

  return (
    <section className="card" aria-labelledby="ask-title">
      <h2 id="ask-title">Try a model</h2>
      <p className="muted">
        Sends one prompt to the configured model: the local one unless <code>SIFT_PROVIDER</code> says
        otherwise. It starts on first use and stops when Sift closes.
      </p>
      <form onSubmit={submit} className="ask-form">
        <label htmlFor="ask-prompt" className="visually-hidden">
          Prompt
        </label>
        <textarea
          id="ask-prompt"
          value={prompt}
          rows={3}
          placeholder="Ask something…"
          onChange={(e) => setPrompt(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
          }}
        />
        <button type="submit" disabled={busy || !prompt.trim() || !source.canAsk()}>
          {busy ? "Asking…" : "Ask"}
        </button>
      </form>
      <AskOutput state={state} />
    </section>
  );
}

function AskOutput({ state }: { state: AskState }) {
  if (state.phase === "idle") return null;
  return (
    <div className="ask-output" aria-live="polite">
      {state.phase === "waiting" && <p className="muted">{state.status}</p>}
      {state.reply && <pre className="reply">{state.reply}</pre>}
      {state.phase === "done" && (
        <p className="muted">
          {state.model}
          {state.inputTokens + state.outputTokens > 0 &&
            ` · ${state.inputTokens} tokens in, ${state.outputTokens} out`}
        </p>
      )}
      {state.phase === "failed" && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}
