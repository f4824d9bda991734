// "Models Sift can fetch": the catalogue in the Local models card. Each model
// with its size, licence and sources; Install fetches it (a progress bar and
// Cancel while it downloads), and once installed "Use this model" makes it
// the local server's, through the card's own choice.
import { useEffect, useState } from "react";
import type { CatalogueEntry } from "../ipc";
import { describeError } from "../format";
import { SOURCE_NOTE, afterCancel, afterEvent, fetchMessage, isFetching, isInstalled, percentDone, vendorSource, type CatalogueFetch } from "./catalogue";
import { formatSize } from "./localModels";
import type { SettingsSource } from "./source";

type Source = Pick<SettingsSource, "modelCatalogue" | "getCatalogueModel" | "cancelCatalogueModel">;

interface Props {
  source: Source;
  /** The file the local server starts with, to mark that model in use. */
  inUse: string | null;
  /** A switch of model under way: one at a time. */
  choosing: boolean;
  /** A model was installed: the card lists `models/` again. */
  onInstalled: () => void;
  /** "Use this model": the card's choice of model (no projector). */
  onUse: (file: string) => void;
}

export function CatalogueList({ source, inUse, choosing, onInstalled, onUse }: Props) {
  const [entries, setEntries] = useState<CatalogueEntry[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [fetches, setFetches] = useState<Record<string, CatalogueFetch>>({});

  function update(name: string, next: (fetch: CatalogueFetch | undefined) => CatalogueFetch | undefined) {
    setFetches((all) => {
      const fetch = next(all[name]);
      const { [name]: _, ...rest } = all;
      return fetch === undefined ? rest : { ...rest, [name]: fetch };
    });
  }

  useEffect(() => {
    source.modelCatalogue().then(
      (list) => {
        setEntries(list);
        setLoadError(null);
      },
      (e: unknown) => setLoadError(describeError(e)),
    );
    // Once, when the card first shows; an install updates its own entry.
  }, [source]);

  async function install(entry: CatalogueEntry) {
    update(entry.name, () => ({ phase: "starting" }));
    try {
      await source.getCatalogueModel(entry.name, (event) => {
        update(entry.name, (fetch) => afterEvent(fetch, event));
        if (event.kind === "finished") onInstalled();
      });
    } catch (e) {
      update(entry.name, () => ({ phase: "failed", message: describeError(e) }));
    }
  }

  async function cancel(entry: CatalogueEntry) {
    update(entry.name, afterCancel);
    try {
      await source.cancelCatalogueModel(entry.name);
    } catch (e) {
      update(entry.name, () => ({ phase: "failed", message: describeError(e) }));
    }
  }

  return (
    <section className="catalogue" aria-labelledby="catalogue-title" data-testid="catalogue">
      <h3 id="catalogue-title">Models Sift can fetch</h3>
      {loadError !== null && <p role="alert" className="error">Could not list the models Sift can fetch: {loadError}</p>}
      {entries !== null && (
        <ul>
          {entries.map((entry) => {
            const fetch = fetches[entry.name];
            const installed = isInstalled(entry, fetch);
            const vendor = vendorSource(entry);
            const message = fetchMessage(fetch);
            return (
              <li key={entry.name} data-testid="catalogue-model" data-name={entry.name} data-installed={installed ? "true" : undefined}>
                <div className="row">
                  <strong>{entry.title}</strong>
                  {installed && <span className="badge" data-testid="catalogue-installed">installed</span>}
                  {installed && inUse === entry.file && <span className="badge" data-testid="catalogue-in-use">in use</span>}
                </div>
                <p className="small" data-testid="catalogue-details">
                  {formatSize(entry.sizeBytes)} · needs {formatSize(entry.memoryBytes)} of memory · {entry.licence} · {SOURCE_NOTE}
                </p>
                <p className="muted small" data-testid="catalogue-measured">
                  On Sift's sets: {entry.measured}
                </p>
                {vendor !== null && (
                  <p className="muted small" data-testid="catalogue-vendor">
                    The vendor's file: <code>{vendor}</code>
                  </p>
                )}
                <div className="row">
                  {fetch?.phase === "downloading" && (
                    <progress max={100} value={percentDone(fetch.done, fetch.total)} aria-label={`Downloading ${entry.title}`} data-testid="catalogue-progress" />
                  )}
                  {isFetching(fetch) ? (
                    <button type="button" onClick={() => void cancel(entry)} disabled={fetch?.phase === "downloading" && fetch.cancelling}>
                      Cancel
                    </button>
                  ) : installed ? (
                    inUse !== entry.file && (
                      <button type="button" onClick={() => onUse(entry.file)} disabled={choosing}>
                        Use this model
                      </button>
                    )
                  ) : (
                    <button type="button" onClick={() => void install(entry)}>
                      Install
                    </button>
                  )}
                </div>
                <p role="status" className={fetch?.phase === "failed" ? "error small" : "muted small"} data-testid="catalogue-status">
                  {message}
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
