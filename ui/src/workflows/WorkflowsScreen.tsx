import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import type { Diagnostic } from "@codemirror/lint";
import { Canvas } from "./Canvas";
import { CommandsConsent } from "./CommandsConsent";
import { NewFile } from "./NewFile";
import { addStep, connect, deleteStep, disconnect, EditError, renameStep, setStepField, type StepField } from "./edit";
import { parseWorkflow, type StepKind } from "./graph";
import { layout } from "./layout";
import { placeProblems } from "./problems";
import { RunPanel } from "./RunPanel";
import type { StepStatus, WorkflowSource } from "./source";
import { StepPanel } from "./StepPanel";
import { Toolbar } from "./Toolbar";
import { useRun } from "./useRun";
import { useWorkflowFile } from "./useWorkflowFile";
import "./workflows.css";

// CodeMirror loads with the screen's first visit.
const YamlEditor = lazy(() => import("./YamlEditor").then((m) => ({ default: m.YamlEditor })));

interface Props {
  source: WorkflowSource;
  /** A folder is open (the lead's frame opens one with the native dialog). */
  folderLabel?: string;
}

/** Workflows: the open folder's YAML files on a canvas, beside their text, with a side panel per step and runs. */
export function WorkflowsScreen({ source, folderLabel }: Props) {
  const file = useWorkflowFile(source);
  const { state: run, history, run: startRun, rerunFrom, cancel, show, consent, allowCommands, dismissCommands } = useRun(source, file.path);
  const [selected, setSelected] = useState<number | null>(null);
  const [tab, setTab] = useState<"step" | "run">("step");
  /** The engine's validate messages for the text (the latest answer). */
  const [engine, setEngine] = useState<string[]>([]);
  const [status, setStatus] = useState("");

  const graph = useMemo(() => parseWorkflow(file.text), [file.text]);
  const drawing = useMemo(() => layout(graph), [graph]);
  const node = graph.nodes.find((n) => n.index === selected) ?? null;

  // The engine's validate, a moment after the text stops changing.
  useEffect(() => {
    if (file.path === null) return;
    const path = file.path;
    const text = file.text;
    let live = true;
    const timer = setTimeout(() => {
      // An answer for a text that has changed since is dropped.
      source.validate(path, text).then(
        (messages) => live && setEngine(messages),
        () => live && setEngine([]),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [source, file.path, file.text]);

  const placed = useMemo(() => placeProblems(file.text, engine, graph), [file.text, engine, graph]);
  const byNode = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const p of placed) for (const key of p.nodes) map.set(key, [...(map.get(key) ?? []), p.message]);
    return map;
  }, [placed]);
  const diagnostics = useMemo<Diagnostic[]>(
    () => [...graph.problems.map((p) => ({ from: p.from, to: p.to, severity: "error" as const, message: p.message })), ...placed.map((p) => ({ from: p.from, to: p.to, severity: "error" as const, message: p.message }))],
    [graph.problems, placed],
  );
  const statuses = useMemo(() => new Map<string, StepStatus>(Object.entries(run.steps).map(([name, s]) => [name, s.status])), [run.steps]);
  const details = useMemo(
    () =>
      new Map(
        Object.entries(run.steps).flatMap(([name, s]) => {
          const r = s.record;
          // A skipped or cancelled step never ran: no time to show.
          if (r === null || (!r.reused && (r.status === "skipped" || r.status === "cancelled"))) return [];
          return [[name, r.reused ? "reused" : `${(r.elapsed_ms / 1000).toFixed(2)} s`] as [string, string]];
        }),
      ),
    [run.steps],
  );

  const edit = (change: (text: string) => string, after?: (text: string) => void) => {
    try {
      const next = change(file.text);
      file.setText(next);
      after?.(next);
      setStatus("");
    } catch (error) {
      if (error instanceof EditError) setStatus(error.message);
      else throw error;
    }
  };
  const indexOf = (key: string) => graph.nodes.find((n) => n.key === key)?.index ?? -1;
  const add = (kind: StepKind) =>
    edit(
      (t) => addStep(t, kind).text,
      (t) => {
        setSelected(Math.max(...parseWorkflow(t).nodes.map((n) => n.index)));
        setTab("step");
      },
    );
  const remove = (index: number) => {
    edit((t) => deleteStep(t, index));
    setSelected(null);
  };
  const names = graph.nodes.map((n) => n.name);

  // The first step of the shown run that Sift closed on (a crash, a kill).
  const interruptedStep = run.status === "interrupted" ? (names.find((n) => run.steps[n]?.status === "interrupted") ?? null) : null;

  const doRun = async (from: string | null, params: [string, string][]) => {
    if (file.dirty && !(await file.save())) return;
    setTab("run");
    if (from === null) await startRun(names, params);
    else await rerunFrom(names, from);
  };

  return (
    <section className="screen wf-screen" aria-labelledby="workflows-title" onKeyDown={(e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "s") {
        e.preventDefault();
        void file.save();
      }
    }}>
      <div className="screen-head">
        <h1 id="workflows-title" tabIndex={-1}>
          Workflows
        </h1>
        <div className="row">
          {folderLabel ? <span className="muted small">{folderLabel}</span> : null}
          <label htmlFor="wf-file" className="visually-hidden">
            Workflow file
          </label>
          <select id="wf-file" data-testid="workflow-file" value={file.path ?? ""} onChange={(e) => {
              if (file.dirty && !window.confirm(`Discard the unsaved changes to ${file.path}?`)) return;
              setSelected(null);
              void file.open(e.target.value);
            }}>
            {file.path === null ? <option value="">No YAML files in the folder</option> : null}
            {file.files.map((f) => (
              <option key={f.path} value={f.path}>
                {f.path}
              </option>
            ))}
          </select>
          <span className="muted small" data-testid="save-state">
            {file.dirty ? "unsaved changes" : "saved"}
          </span>
          <button type="button" onClick={() => void file.save()} disabled={!file.dirty} data-testid="workflow-save">
            Save
          </button>
          <NewFile
            taken={file.files.map((f) => f.path)}
            onCreate={(path) => {
              if (file.dirty && !window.confirm(`Discard the unsaved changes to ${file.path}?`)) return;
              void file.create(path);
            }}
          />
        </div>
      </div>
      {file.error ? <p className="error" role="alert">{file.error}</p> : null}
      {file.diskChanged ? (
        <div className="note row" role="alert" data-testid="disk-changed">
          <span>The file changed on disk while you were editing it.</span>
          <button type="button" onClick={() => void file.reloadFromDisk()}>
            Reload from disk
          </button>
          <button type="button" className="ghost" onClick={file.keepMine}>
            Keep my edits
          </button>
        </div>
      ) : null}
      <Toolbar
        canEdit={file.path !== null}
        hasDags={graph.dags.length > 0}
        canRun={file.path !== null && graph.nodes.length > 0}
        selected={node?.name ?? null}
        run={run}
        history={history}
        onAdd={add}
        onRun={(params) => void doRun(null, params)}
        onRerun={(step) => void doRun(step, [])}
        onCancel={() => void cancel()}
        onShow={(id) => void show(id)}
      />
      {consent !== null ? <CommandsConsent listing={consent} onRun={() => void allowCommands()} onCancel={dismissCommands} /> : null}
      {interruptedStep !== null ? (
        <div className="note row" role="alert" data-testid="run-interrupted">
          <span>
            <strong>Interrupted</strong>: Sift closed while the step {interruptedStep} ran. The steps before it are kept.
          </span>
          <button type="button" className="primary" disabled={file.path === null} onClick={() => void doRun(interruptedStep, [])}>
            Re-run from {interruptedStep}
          </button>
        </div>
      ) : null}
      {status ? (
        <p className="warning small" role="status" data-testid="edit-status">
          {status}
        </p>
      ) : null}
      <div className="wf-main">
        <Canvas
          graph={graph}
          layout={drawing}
          selected={node?.key ?? null}
          problems={byNode}
          statuses={statuses}
          details={details}
          fitKey={file.path ?? ""}
          onSelect={(key) => setSelected(key === null ? null : indexOf(key))}
          onConnect={(from, to) => edit((t) => connect(t, indexOf(from), indexOf(to)))}
          onDisconnect={(e) => edit((t) => disconnect(t, indexOf(e.from), indexOf(e.to)))}
          onDelete={(key) => remove(indexOf(key))}
        />
        <Suspense fallback={<p className="muted">Loading the editor…</p>}>
          <YamlEditor
            value={file.text}
            onChange={file.setText}
            diagnostics={diagnostics}
            reveal={node === null ? null : { from: node.from, to: node.to }}
            onCursor={(offset) => {
              const at = graph.nodes.find((n) => offset >= n.from && offset <= n.to);
              if (at !== undefined) setSelected(at.index);
            }}
            label="Workflow YAML"
          />
        </Suspense>
        <aside className="wf-side" aria-label="Selected step">
          {node === null ? (
            <p className="muted">Select a step on the canvas (or put the cursor in it in the text) to edit it here.</p>
          ) : (
            <>
              <div role="tablist" aria-label="Step details" className="row wf-tabs">
                <button type="button" role="tab" aria-selected={tab === "step"} onClick={() => setTab("step")}>
                  Step
                </button>
                <button type="button" role="tab" aria-selected={tab === "run"} onClick={() => setTab("run")}>
                  Run output
                </button>
              </div>
              <div role="tabpanel">
                {tab === "step" ? (
                  <StepPanel
                    node={node}
                    graph={graph}
                    problems={byNode.get(node.key) ?? []}
                    onField={(field: StepField, value: unknown) => edit((t) => setStepField(t, node.index, field, value))}
                    onRename={(value) => edit((t) => renameStep(t, node.index, value))}
                    onDepends={(from, on) => edit((t) => (on ? connect : disconnect)(t, indexOf(from), node.index))}
                    onDelete={() => remove(node.index)}
                  />
                ) : (
                  <RunPanel node={node} run={run.steps[node.name]} runId={run.runId} />
                )}
              </div>
            </>
          )}
        </aside>
      </div>
      {placed.length > 0 || graph.problems.length > 0 ? (
        <ul className="problems" data-testid="workflow-problems" aria-label="Problems">
          {graph.problems.map((p) => (
            <li key={`y${p.from}`} className="error">
              line {p.line}: {p.message}
            </li>
          ))}
          {placed.map((p, i) => (
            <li key={`e${i}`} className="error">
              {p.line !== null ? `line ${p.line}: ` : ""}
              {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
