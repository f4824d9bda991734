// The price table, collapsed under the results: the user's prices and the
// defaults they have not replaced, per million tokens. A price is set (for
// a settings provider, or `*` for any) or a price of the user's removed;
// the store's refusal is shown as it says it. `onChanged` follows a change
// (the shown run's cost is read again).
import { useState } from "react";
import { describeError } from "../format";
import type { Price, ProviderConfig } from "../ipc";
import { formatPerMtok, parsePerMtok, priceSourceText } from "./model";
import type { EvaluateSource } from "./source";

interface Props {
  source: EvaluateSource;
  providers: ProviderConfig[];
  onChanged: () => void;
}

const ANY = "*";

interface Draft {
  providerId: string;
  model: string;
  input: string;
  output: string;
}

const emptyDraft: Draft = { providerId: ANY, model: "", input: "", output: "" };

function providerText(id: string): string {
  return id === ANY ? "any provider" : id;
}

export function PricesPanel({ source, providers, onChanged }: Props) {
  const [prices, setPrices] = useState<Price[] | null>(null);
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");

  function load() {
    source.prices().then(setPrices, (e: unknown) => setError(describeError(e)));
  }

  async function change(what: () => Promise<Price[]>, done: string) {
    setError("");
    setStatus("");
    try {
      setPrices(await what());
      setStatus(done);
      onChanged();
    } catch (e) {
      setError(describeError(e));
    }
  }

  const input = parsePerMtok(draft.input);
  const output = parsePerMtok(draft.output);
  const model = draft.model.trim();
  const problem = model === "" ? "Name the model." : input === null || output === null ? "Enter both prices as numbers." : null;
  // The settings' providers, any provider, and the one being edited if it is neither (a default's kind).
  const ids = [ANY, ...providers.map((p) => p.id)];
  if (!ids.includes(draft.providerId)) ids.push(draft.providerId);
  const label = (id: string) => (id === ANY ? "* (any provider)" : (providers.find((p) => p.id === id)?.label ?? id));

  return (
    <details className="card eval-prices" data-testid="prices" onToggle={(e) => { if (e.currentTarget.open && prices === null) load(); }}>
      <summary>
        <h2 id="prices-title">Prices</h2>
      </summary>
      <p className="muted small">US dollars per million tokens. Yours win over the defaults; a model served on this machine is free.</p>
      {prices !== null && (
        <table className="eval-price-table" aria-labelledby="prices-title" data-testid="price-table">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Model</th>
              <th scope="col">$ in / Mtok</th>
              <th scope="col">$ out / Mtok</th>
              <th scope="col">Source</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {prices.map((p) => (
              <tr key={`${p.source}|${p.providerId}|${p.model}`} data-testid="price-row">
                <td>{providerText(p.providerId)}</td>
                <td>{p.model}</td>
                <td>{formatPerMtok(p.inputPerMtok)}</td>
                <td>{formatPerMtok(p.outputPerMtok)}</td>
                <td>{priceSourceText(p.source)}</td>
                <td className="row">
                  <button
                    type="button"
                    className="ghost small"
                    aria-label={`Edit the price of ${p.model} on ${providerText(p.providerId)}`}
                    onClick={() => setDraft({ providerId: p.providerId, model: p.model, input: String(p.inputPerMtok), output: String(p.outputPerMtok) })}
                  >
                    Edit
                  </button>
                  {p.source === "user" && (
                    <button
                      type="button"
                      className="ghost small"
                      aria-label={`Remove the price of ${p.model} on ${providerText(p.providerId)}`}
                      onClick={() => void change(() => source.deletePrice(p.providerId, p.model), `Removed the price of ${p.model} on ${providerText(p.providerId)}.`)}
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="row eval-price-form"
        aria-label="Set a price"
        onSubmit={(e) => {
          e.preventDefault();
          if (problem !== null || input === null || output === null) return;
          void change(() => source.setPrice(draft.providerId, model, input, output), `Saved the price of ${model} on ${providerText(draft.providerId)}.`);
        }}
      >
        <label className="inline">
          Provider
          <select value={draft.providerId} onChange={(e) => setDraft({ ...draft, providerId: e.target.value })} data-testid="price-provider">
            {ids.map((id) => (
              <option key={id} value={id}>{label(id)}</option>
            ))}
          </select>
        </label>
        <label className="inline">
          Model
          <input value={draft.model} onChange={(e) => setDraft({ ...draft, model: e.target.value })} spellCheck={false} data-testid="price-model" />
        </label>
        <label className="inline">
          $ in / Mtok
          <input className="eval-price-number" inputMode="decimal" value={draft.input} onChange={(e) => setDraft({ ...draft, input: e.target.value })} data-testid="price-in" />
        </label>
        <label className="inline">
          $ out / Mtok
          <input className="eval-price-number" inputMode="decimal" value={draft.output} onChange={(e) => setDraft({ ...draft, output: e.target.value })} data-testid="price-out" />
        </label>
        <button type="submit" className="primary" disabled={problem !== null} title={problem ?? undefined}>Save the price</button>
      </form>
      {error !== "" && <p className="error small" role="alert" data-testid="price-error">{error}</p>}
      <p role="status" className="muted small" data-testid="price-status">{status}</p>
    </details>
  );
}
