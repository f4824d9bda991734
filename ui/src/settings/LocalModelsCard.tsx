// The local server's models: the GGUF files of the data directory's
// `models/` (from their headers), "Add a model…" (copied or linked), the one
// the server starts with, and the server's state after a switch; below them,
// the models Sift can fetch (CatalogueList).
import { useEffect, useRef, useState } from "react";
import type { ImportMode, LocalModel, LocalServerStatus } from "../ipc";
import { describeError } from "../format";
import { CatalogueList } from "./CatalogueList";
import { addedMessage, formatContext, formatSize, isUsableModel, projectorsOf, serverLine, suggestProjector } from "./localModels";
import type { SettingsSource } from "./source";

type Source = Pick<SettingsSource, "localModels" | "addLocalModel" | "chooseLocalModel" | "localServer" | "modelCatalogue" | "getCatalogueModel" | "cancelCatalogueModel">;

export function LocalModelsCard({ source }: { source: Source }) {
  const [models, setModels] = useState<LocalModel[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [server, setServer] = useState<LocalServerStatus | null>(null);
  const [mode, setMode] = useState<ImportMode>("copy");
  const [adding, setAdding] = useState(false);
  const [choosing, setChoosing] = useState<string | null>(null);
  const [projectorFor, setProjectorFor] = useState<Record<string, string>>({});
  const [status, setStatus] = useState("");
  const [error, setError] = useState<string | null>(null);
  // Bumped by each switch, so an answer about an older state is not shown over it.
  const generation = useRef(0);

  async function reload() {
    try {
      setModels(await source.localModels());
      setLoadError(null);
    } catch (e) {
      setLoadError(describeError(e));
    }
  }

  useEffect(() => {
    void reload();
    const asked = generation.current;
    source.localServer().then(
      (s) => {
        if (generation.current === asked) setServer(s);
      },
      () => undefined,
    );
    // Once, when Settings first shows the card.
  }, [source]);

  // A server still starting (at launch, say) is asked again until it settles.
  useEffect(() => {
    if (choosing !== null || server?.state !== "starting") return;
    const asked = generation.current;
    const timer = window.setTimeout(() => {
      source.localServer().then(
        (s) => {
          if (generation.current === asked) setServer(s);
        },
        () => undefined,
      );
    }, 1000);
    return () => window.clearTimeout(timer);
  }, [server, choosing, source]);

  async function add() {
    setAdding(true);
    setStatus("");
    setError(null);
    try {
      const added = await source.addLocalModel(mode);
      if (added !== null) {
        setStatus(addedMessage(added));
        await reload();
      }
    } catch (e) {
      setError(`Could not add the model: ${describeError(e)}`);
    } finally {
      setAdding(false);
    }
  }

  async function use(file: string, projector: string | null) {
    const before = server;
    generation.current += 1;
    setChoosing(file);
    setStatus("");
    setError(null);
    setServer({ state: "starting" });
    try {
      setServer(await source.chooseLocalModel(file, projector));
      await reload();
    } catch (e) {
      setServer(before);
      setError(`Could not use ${file}: ${describeError(e)}`);
    } finally {
      setChoosing(null);
    }
  }

  const projectors = projectorsOf(models ?? []);
  const inUse = models?.find((m) => m.inUse)?.file ?? null;
  const line = server === null ? null : serverLine(server);

  return (
    <section className="card local-models" aria-labelledby="local-models-title" data-testid="local-models">
      <h2 id="local-models-title">Local models</h2>
      <p className="muted small">
        The GGUF models in the data directory's <code>models/</code> folder, each described from its header. The local server starts with the one in use; a model that takes images needs its projector (<code>mmproj</code>).
      </p>
      {line !== null && (
        <div data-testid="local-server-state" data-state={server?.state}>
          <p role="status" className="small">
            Local server: <span className={line.className}>{line.label}</span>
          </p>
          {line.log !== null && (
            <pre className="local-server-log" data-testid="local-server-log" tabIndex={0} aria-label="The local server's message">
              {line.log}
            </pre>
          )}
        </div>
      )}
      {loadError !== null && <p role="alert" className="error">Could not list the models: {loadError}</p>}
      {models !== null && models.length === 0 && <p className="muted" data-testid="local-models-empty">No models yet: add a <code>.gguf</code> file.</p>}
      {models !== null && models.length > 0 && (
        <table className="overrides" data-testid="local-model-table">
          <thead>
            <tr><th>File</th><th>Name</th><th>Quantisation</th><th>Context</th><th>Size</th><th /></tr>
          </thead>
          <tbody>
            {models.map((m) => {
              const projector = projectorFor[m.file] ?? suggestProjector(m, projectors) ?? "";
              return (
                <tr key={m.file} data-testid="local-model-row" data-file={m.file} data-in-use={m.inUse ? "true" : undefined}>
                  <td>
                    <span className="row">
                      <code>{m.file}</code>
                      {m.inUse && <span className="badge" data-testid="local-model-in-use">in use</span>}
                      {m.projector && <span className="badge badge-muted">projector</span>}
                      {m.linked && <span className="badge badge-muted">linked</span>}
                      {m.bundled && <span className="badge badge-muted" title="Shipped with Sift">bundled</span>}
                    </span>
                  </td>
                  {m.problem != null ? (
                    <td colSpan={4} className="error" data-testid="local-model-problem">{m.problem}</td>
                  ) : (
                    <>
                      <td>{m.name ?? "—"}</td>
                      <td className="num">{m.quantisation ?? "—"}</td>
                      <td className="num">{formatContext(m.contextLength)}</td>
                      <td className="num">{formatSize(m.sizeBytes)}</td>
                    </>
                  )}
                  <td className="actions">
                    {isUsableModel(m) && (
                      <span className="row">
                        {projectors.length > 0 && (
                          <select aria-label={`Projector for ${m.file}`} value={projector} onChange={(e) => setProjectorFor({ ...projectorFor, [m.file]: e.target.value })}>
                            <option value="">No projector (text only)</option>
                            {projectors.map((p) => <option key={p.file} value={p.file}>{p.file}</option>)}
                          </select>
                        )}
                        <button type="button" onClick={() => void use(m.file, projector === "" ? null : projector)} disabled={choosing !== null}>
                          Use
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <div className="row">
        <fieldset className="bare row" aria-label="How to add a model">
          <label className="inline"><input type="radio" name="local-model-mode" checked={mode === "copy"} onChange={() => setMode("copy")} /> Copy</label>
          <label className="inline"><input type="radio" name="local-model-mode" checked={mode === "link"} onChange={() => setMode("link")} /> Link</label>
        </fieldset>
        <button type="button" onClick={() => void add()} disabled={adding} data-testid="add-local-model">
          Add a model…
        </button>
        <span className="muted small">Copy: the model stays usable if the file moves. Link: no second copy of a large file.</span>
      </div>
      {error !== null && <p role="alert" className="error" data-testid="local-models-error">{error}</p>}
      <p role="status" className="muted" data-testid="local-models-status">{status}</p>
      <CatalogueList source={source} inUse={inUse} choosing={choosing !== null} onInstalled={() => void reload()} onUse={(file) => void use(file, null)} />
    </section>
  );
}
