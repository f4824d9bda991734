import { lazy, Suspense, useEffect, useState } from "react";
import type { StepField } from "./edit";
import { wouldCycle } from "./edit";
import type { StepNode, WorkflowGraph } from "./graph";
import { modelText, parseFiles, parseModel, parseSchemaDraft } from "./fields";

// CodeMirror is most of the bundle: the schema editor loads with the first chat step shown.
const JsonEditor = lazy(() => import("../schemas/JsonEditor").then((m) => ({ default: m.JsonEditor })));

interface Props {
  node: StepNode;
  graph: WorkflowGraph;
  problems: string[];
  onField: (field: StepField, value: unknown) => void;
  onRename: (value: string) => void;
  onDepends: (fromKey: string, on: boolean) => void;
  onDelete: () => void;
}

/** A text box that writes through on each change and shows what was typed while it has focus. */
function TextField(props: { id: string; label: string; value: string; multiline?: boolean; rows?: number; onChange: (text: string) => void; hint?: string }) {
  const [draft, setDraft] = useState<string | null>(null);
  const common = {
    id: props.id,
    value: draft ?? props.value,
    onChange: (e: { target: { value: string } }) => {
      setDraft(e.target.value);
      props.onChange(e.target.value);
    },
    onBlur: () => setDraft(null),
    "aria-describedby": props.hint ? `${props.id}-hint` : undefined,
  };
  return (
    <div className="wf-field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.multiline ? <textarea rows={props.rows ?? 3} spellCheck={false} {...common} /> : <input type="text" spellCheck={false} {...common} />}
      {props.hint ? (
        <span id={`${props.id}-hint`} className="muted small">
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}

/** The side-panel form of one step. Every change is written into the YAML at once. */
export function StepPanel({ node, graph, problems, onField, onRename, onDepends, onDelete }: Props) {
  const [name, setName] = useState(node.id ?? node.name);
  const [schemaDraft, setSchemaDraft] = useState<string | null>(null);
  useEffect(() => {
    setName(node.id ?? node.name);
    setSchemaDraft(null);
  }, [node.key, node.id, node.name]);
  const f = node.fields;
  const id = (field: string) => `wf-${field}`;
  const others = graph.nodes.filter((n) => n.key !== node.key);
  const parents = new Set(graph.edges.filter((e) => e.to === node.key).map((e) => e.from));
  const commitName = () => {
    if (name.trim() !== "" && name !== (node.id ?? node.name)) onRename(name.trim());
  };
  const schema = parseSchemaDraft(schemaDraft, f.outputSchema);

  return (
    <form className="wf-panel stack" aria-label={`Step ${node.name}`} data-testid="step-panel" onSubmit={(e) => e.preventDefault()}>
      <div className="wf-field">
        <label htmlFor={id("name")}>{node.id !== null || node.name === `step_${node.index + 1}` ? "Step id" : "Step name"}</label>
        <input
          id={id("name")}
          type="text"
          value={name}
          spellCheck={false}
          onChange={(e) => setName(e.target.value)}
          onBlur={commitName}
          onKeyDown={(e) => {
            if (e.key === "Enter") commitName();
          }}
        />
        <span className="muted small">{{ run: "Shell step", chat: "chat.completion step", dag: "dag.run step", other: "Step with nothing to run" }[node.kind]} · line {node.line}</span>
      </div>
      {problems.length > 0 ? (
        <ul className="problems wf-problems" data-testid="step-problems" aria-label="Problems of this step">
          {problems.map((p) => (
            <li key={p} className="error">
              {p}
            </li>
          ))}
        </ul>
      ) : null}
      <fieldset className="wf-depends">
        <legend>Depends on</legend>
        {others.length === 0 ? <span className="muted small">No other steps.</span> : null}
        {others.map((other) => {
          const on = parents.has(other.key);
          const cycle = !on && wouldCycle(graph, other.key, node.key);
          return (
            <label key={other.key} className="inline" title={cycle ? "That would make a cycle" : undefined}>
              <input type="checkbox" checked={on} disabled={cycle} onChange={(e) => onDepends(other.key, e.target.checked)} />
              {other.name}
            </label>
          );
        })}
      </fieldset>
      {node.kind === "run" || node.kind === "other" ? (
        <>
          <TextField id={id("command")} label="Command" value={f.command ?? ""} multiline onChange={(t) => onField("command", t === "" ? undefined : t)} />
          <TextField id={id("output")} label="Output variable" value={f.output ?? ""} onChange={(t) => onField("output", t === "" ? undefined : t)} hint="The trimmed stdout becomes ${NAME}." />
        </>
      ) : null}
      {node.kind === "chat" ? (
        <>
          <div className="wf-field">
            <label htmlFor={id("provider")}>Provider</label>
            <select id={id("provider")} value={f.provider ?? ""} onChange={(e) => onField("provider", e.target.value === "" ? undefined : e.target.value)}>
              <option value="">(the DAG's llm block, or local)</option>
              <option value="local">local</option>
              <option value="openai">openai</option>
              <option value="anthropic">anthropic</option>
            </select>
          </div>
          <TextField id={id("model")} label="Model" value={modelText(f.model)} onChange={(t) => onField("model", parseModel(t, f.model))} hint="Several, separated by commas, are tried in order." />
          <TextField id={id("system")} label="System prompt" value={f.system ?? ""} multiline rows={2} onChange={(t) => onField("system", t === "" ? undefined : t)} />
          <TextField id={id("prompt")} label="Prompt" value={f.prompt ?? ""} multiline rows={4} onChange={(t) => onField("prompt", t)} />
          <TextField id={id("files")} label="Files" value={Array.isArray(f.files) ? f.files.join("\n") : (f.files ?? "")} multiline rows={2} onChange={(t) => onField("files", parseFiles(t))} hint="A path or glob per line." />
          <fieldset>
            <legend>Tools</legend>
            {graph.dags.length === 0 ? <span className="muted small">The file has no named DAGs to offer as tools.</span> : null}
            {graph.dags.map((dag) => {
              const tools = f.tools ?? [];
              return (
                <label key={dag} className="inline">
                  <input
                    type="checkbox"
                    checked={tools.includes(dag)}
                    onChange={(e) => {
                      const next = e.target.checked ? [...tools, dag] : tools.filter((t) => t !== dag);
                      onField("tools", next.length === 0 ? undefined : next);
                    }}
                  />
                  {dag}
                </label>
              );
            })}
          </fieldset>
          <div className="wf-field">
            <span id={id("schema-label")}>Output schema (JSON)</span>
            <Suspense fallback={<p className="muted small">Loading the editor…</p>}>
              <JsonEditor
                label={`Output schema of ${node.name}`}
                value={schema.text}
                onChange={(text) => {
                  setSchemaDraft(text);
                  const parsed = parseSchemaDraft(text, undefined);
                  if (parsed.value !== undefined || text.trim() === "") onField("output_schema", parsed.value);
                }}
              />
            </Suspense>
            {schema.error ? (
              <span className="error small" data-testid="schema-draft-error">
                {schema.error}: the YAML keeps the last valid schema.
              </span>
            ) : (
              <span className="muted small">Empty for a plain text answer.</span>
            )}
          </div>
        </>
      ) : null}
      {node.kind === "dag" ? (
        <div className="wf-field">
          <label htmlFor={id("dag")}>DAG to run</label>
          <select id={id("dag")} value={f.dag ?? ""} onChange={(e) => onField("dag", e.target.value)}>
            {f.dag !== null && !graph.dags.includes(f.dag) ? <option value={f.dag}>{f.dag} (not in this file)</option> : null}
            {graph.dags.map((dag) => (
              <option key={dag} value={dag}>
                {dag}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div className="row">
        <button type="button" className="danger" onClick={onDelete} data-testid="delete-step">
          Delete step
        </button>
      </div>
    </form>
  );
}
