import type { AnswerMode, DefaultAnswers, ProviderConfig, SchemaSummary } from "../ipc";
import { providerName } from "../settings/logic";
import { ANSWER_CHOICES, answersFromValue, answersValue, defaultAnswersHint } from "./answers";

export interface Setup {
  schemaName: string;
  providerId: string;
  model: string;
  /** Extra instructions for the model ("" for the default prompt). */
  prompt: string;
  /** Documents called at once. */
  concurrency: number;
  /** How the answers are made (null for the default of the provider's kind of model). */
  answers: AnswerMode | null;
}

export const DEFAULT_CONCURRENCY = 4;

interface Props {
  setup: Setup;
  onChange: (setup: Setup) => void;
  schemas: SchemaSummary[];
  providers: ProviderConfig[];
  /** How a run answers by default, by kind of provider (from the settings); null until they are read. */
  defaultAnswers: DefaultAnswers | null;
  models: string[];
  disabled: boolean;
  onNewSchema: () => void;
  /** Asks the model for a schema of the first document; null when there is no document yet. */
  onSuggestSchema: (() => void) | null;
  /** A suggestion is under way. */
  suggesting: boolean;
}

/** Pick the schema and the model of a run. */
export function SetupBar({ setup, onChange, schemas, providers, defaultAnswers, models, disabled, onNewSchema, onSuggestSchema, suggesting }: Props) {
  // What the default answers mean for the provider picked.
  const hint = defaultAnswersHint(providers.find((p) => p.id === setup.providerId)?.kind ?? null, defaultAnswers);
  return (
    <fieldset className="setup row" disabled={disabled}>
      <legend className="visually-hidden">Run settings</legend>
      <label htmlFor="run-schema">Schema</label>
      <select id="run-schema" value={setup.schemaName} onChange={(e) => onChange({ ...setup, schemaName: e.target.value })} data-testid="run-schema">
        <option value="" disabled>Pick a schema…</option>
        {schemas.map((s) => (
          <option key={s.name} value={s.name}>{s.name} (v{s.latestVersion})</option>
        ))}
      </select>
      <button type="button" className="ghost" onClick={onNewSchema}>New schema…</button>
      <button
        type="button"
        className="ghost"
        onClick={onSuggestSchema ?? undefined}
        disabled={onSuggestSchema === null || suggesting}
        title={onSuggestSchema === null ? "Add a document first" : "The model lists the document's fields; the schema opens in the editor for review"}
        data-testid="suggest-schema"
      >
        {suggesting ? "Suggesting…" : "Suggest a schema from this document"}
      </button>
      <label htmlFor="run-provider">Provider</label>
      <select id="run-provider" value={setup.providerId} onChange={(e) => onChange({ ...setup, providerId: e.target.value, model: "" })} data-testid="run-provider">
        {providers.map((p) => <option key={p.id} value={p.id}>{providerName(p)}</option>)}
      </select>
      <label htmlFor="run-model">Model</label>
      <input id="run-model" list="run-models" value={setup.model} placeholder="the default" spellCheck={false} onChange={(e) => onChange({ ...setup, model: e.target.value })} data-testid="run-model" />
      <datalist id="run-models">
        {models.map((m) => <option key={m} value={m} />)}
      </datalist>
      {schemas.length === 0 && <span className="muted small">No schemas yet: create one with “New schema…”, or add a document and let the model suggest one.</span>}
      <details className="run-options">
        <summary>Options</summary>
        <div className="form-grid">
          <label htmlFor="run-answers">Answers</label>
          <select
            id="run-answers"
            value={answersValue(setup.answers)}
            onChange={(e) => onChange({ ...setup, answers: answersFromValue(e.target.value) })}
            data-testid="run-answers"
          >
            {ANSWER_CHOICES.map((c) => <option key={answersValue(c.mode)} value={answersValue(c.mode)}>{c.label}</option>)}
          </select>
          {setup.answers === null && hint !== null && (
            <>
              <span />
              <span className="muted small" data-testid="run-answers-default">{hint}</span>
            </>
          )}
          <label htmlFor="run-prompt">Instructions</label>
          <textarea id="run-prompt" rows={2} value={setup.prompt} placeholder="Extract the fields of the schema from this document." onChange={(e) => onChange({ ...setup, prompt: e.target.value })} data-testid="run-prompt" />
          <label htmlFor="run-concurrency">Documents at once</label>
          <input id="run-concurrency" type="number" min={1} max={16} value={setup.concurrency} onChange={(e) => onChange({ ...setup, concurrency: Math.min(16, Math.max(1, Math.round(Number(e.target.value) || 1))) })} data-testid="run-concurrency" />
        </div>
      </details>
    </fieldset>
  );
}
