// Evaluate: a labelled set, candidates run over it, and how they compare —
// the matrix by field, the figures, the pairs, the disagreements behind a
// cell, accuracy against cost and latency, the set's earlier runs (a
// cancelled or failed one resumed), and the price table.
import { lazy, Suspense, useEffect, useState } from "react";
import { describeError } from "../format";
import type { EvalRunSummary, LabelledSetSummary, ProviderConfig } from "../ipc";
import { CandidatesEditor } from "./CandidatesEditor";
import { Disagreements } from "./Disagreements";
import { Figures } from "./Figures";
import { History } from "./History";
import { Matrix } from "./Matrix";
import { canResume, emptyCandidate, evaluateRequest, rowsProblem, type CandidateRow } from "./model";
import { PricesPanel } from "./PricesPanel";
import { SetPicker } from "./SetPicker";
import type { EvaluateSource } from "./source";
import { useEvaluation } from "./useEvaluation";
import "./evaluate.css";

// recharts is most of the screen's code: loaded when a run is first shown.
const AccuracyChart = lazy(() => import("./AccuracyChart").then((m) => ({ default: m.AccuracyChart })));

interface Props {
  source: EvaluateSource;
  active: boolean;
  /** Opens a candidate's call in the Transcripts screen. */
  onOpenTranscript?: (callId: string) => void;
}

export function EvaluateScreen({ source, active, onOpenTranscript }: Props) {
  const [sets, setSets] = useState<LabelledSetSummary[]>([]);
  const [setName, setSetName] = useState("");
  const [providers, setProviders] = useState<ProviderConfig[]>([]);
  const [defaultProvider, setDefaultProvider] = useState("");
  const [rows, setRows] = useState<CandidateRow[]>([]);
  const [history, setHistory] = useState<EvalRunSummary[]>([]);
  const [field, setField] = useState<string | null>(null);
  const [error, setError] = useState("");
  const { state, start, resume, load, cancel } = useEvaluation(source);
  const running = state.phase === "running";

  function refreshSets(select?: string) {
    source.listSets().then(
      (list) => {
        setSets(list);
        setSetName((current) => {
          const wanted = select ?? current;
          return list.some((s) => s.name === wanted) ? wanted : (list[0]?.name ?? "");
        });
      },
      (e: unknown) => setError(describeError(e)),
    );
  }

  useEffect(() => {
    if (active) refreshSets();
  }, [active, source]);

  useEffect(() => {
    source.providers().then(
      (p) => {
        setProviders(p.providers);
        setDefaultProvider(p.defaultProvider);
        setRows((r) => (r.length > 0 ? r : [emptyCandidate(p.defaultProvider, p.defaultModel ?? "")]));
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [source]);

  // The set's runs, again after each run ends.
  useEffect(() => {
    if (setName === "") {
      setHistory([]);
      return;
    }
    source.history(setName).then(setHistory, (e: unknown) => setError(describeError(e)));
  }, [source, setName, state.phase === "running"]);

  const problem = setName === "" ? "Choose a labelled set." : rowsProblem(rows);
  const view = state.view !== null && state.view.candidates.length > 0 ? state.view : null;
  const shownError = state.error ?? (error === "" ? null : error);
  const finished = view !== null && state.phase !== "running";
  const resumable = canResume(state);

  return (
    <section className="screen" aria-labelledby="evaluate-title">
      <header className="screen-head">
        <h1 id="evaluate-title" tabIndex={-1}>Evaluate</h1>
      </header>
      <SetPicker source={source} sets={sets} selected={setName} onSelect={setSetName} onChanged={(select) => refreshSets(select)} disabled={running} />
      <CandidatesEditor rows={rows} onChange={setRows} providers={providers} defaultProvider={defaultProvider} disabled={running} progress={state.progress} showProgress={state.phase !== "idle"} />
      <div className="row">
        {running ? (
          <button type="button" className="danger" onClick={() => cancel().catch((e: unknown) => setError(describeError(e)))} disabled={state.runId === null}>Cancel</button>
        ) : (
          <button type="button" className="primary" onClick={() => { setField(null); setError(""); void start(evaluateRequest(setName, rows)); }} disabled={problem !== null} title={problem ?? undefined}>
            Run {rows.length} candidate{rows.length === 1 ? "" : "s"}
          </button>
        )}
        {resumable && view !== null && (
          <button type="button" onClick={() => { setField(null); setError(""); void resume(view.runId); }} title="Run the documents this run has not called yet">
            Resume
          </button>
        )}
        <span role="status" className="muted small" data-testid="evaluate-status">
          {running ? "Running…" : state.phase === "finished" && state.view !== null ? `Run ${state.view.status}.` : (problem ?? "")}
        </span>
      </div>
      {shownError !== null && <p className="error" role="alert" data-testid="evaluate-error">{shownError}</p>}
      {finished && view !== null && (
        <div className="eval-results">
          <div className="eval-main">
            <Matrix view={view} selected={field} onSelect={setField} />
            {field !== null && <Disagreements view={view} field={field} onClose={() => setField(null)} onOpenTranscript={onOpenTranscript} />}
            <Figures view={view} />
          </div>
          <Suspense fallback={<p className="muted small card eval-chart">Loading the chart…</p>}>
            <AccuracyChart candidates={view.candidates} />
          </Suspense>
        </div>
      )}
      <PricesPanel
        source={source}
        providers={providers}
        onChanged={() => {
          // The shown run's cost follows the new price.
          if (finished && state.runId !== null) void load(state.runId);
        }}
      />
      {setName !== "" && <History runs={history} current={state.runId} onOpen={(id) => { setField(null); void load(id); }} disabled={running} />}
    </section>
  );
}
