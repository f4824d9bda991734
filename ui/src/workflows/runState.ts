// The live state of a run on the canvas, folded from its events.
import type { WorkflowGraph } from "./graph";
import type { RunEvent, StepRecord, StepStatus } from "./source";

export interface StepRun {
  status: StepStatus;
  stdout: string;
  stderr: string;
  /** The step's record once it finished. */
  record: StepRecord | null;
}

export interface RunState {
  runId: string | null;
  status: "idle" | "running" | "succeeded" | "failed" | "cancelled" | "interrupted";
  /** By step name, as the engine reports them. */
  steps: Record<string, StepRun>;
  /** Why the run could not go on. */
  error: string | null;
  /** The step a re-run started from. */
  from: string | null;
}

export const IDLE: RunState = { runId: null, status: "idle", steps: {}, error: null, from: null };

/** A run that just started: every step pending. */
export function startRun(names: string[], runId: string | null, from: string | null = null): RunState {
  const steps: Record<string, StepRun> = {};
  for (const name of names) steps[name] = { status: "pending", stdout: "", stderr: "", record: null };
  return { runId, status: "running", steps, error: null, from };
}

function step(state: RunState, name: string): StepRun {
  return state.steps[name] ?? { status: "pending", stdout: "", stderr: "", record: null };
}

export function applyEvent(state: RunState, event: RunEvent): RunState {
  const put = (name: string, run: StepRun): RunState => ({ ...state, steps: { ...state.steps, [name]: run } });
  switch (event.kind) {
    case "step_started":
      return put(event.name, { ...step(state, event.name), status: "running" });
    case "stdout": {
      const s = step(state, event.name);
      return put(event.name, { ...s, stdout: s.stdout + event.text });
    }
    case "stderr": {
      const s = step(state, event.name);
      return put(event.name, { ...s, stderr: s.stderr + event.text });
    }
    case "step_finished": {
      const r = event.step;
      // The record holds the whole output; streamed text was a preview of it.
      return put(r.name, { status: r.status, stdout: r.stdout, stderr: r.stderr, record: r });
    }
    case "run_finished":
      return { ...state, status: event.status };
    case "run_error":
      return { ...state, status: "failed", error: event.message };
  }
}

/** A stored run's steps as a finished state (to show an earlier run). */
export function finishedRun(runId: string, steps: StepRecord[], status: RunState["status"]): RunState {
  const state = startRun([], runId);
  for (const r of steps) state.steps[r.name] = { status: r.status, stdout: r.stdout, stderr: r.stderr, record: r };
  return { ...state, status };
}

/** The steps in an order where each comes after what it depends on (file order otherwise); a cycle's steps last, in file order. */
export function runOrder(graph: WorkflowGraph): { name: string; id: string | null; depends: string[] }[] {
  const placed = new Set<string>();
  const out: WorkflowGraph["nodes"] = [];
  let progress = true;
  while (progress) {
    progress = false;
    for (const node of graph.nodes) {
      if (placed.has(node.key)) continue;
      const parents = graph.edges.filter((e) => e.to === node.key).map((e) => e.from);
      if (parents.every((p) => placed.has(p))) {
        placed.add(node.key);
        out.push(node);
        progress = true;
      }
    }
  }
  for (const node of graph.nodes) if (!placed.has(node.key)) out.push(node);
  return out.map((n) => ({ name: n.name, id: n.id, depends: n.depends }));
}

/** The steps a re-run from `name` runs again: it and everything downstream of it. */
export function downstream(graph: WorkflowGraph, key: string): Set<string> {
  const result = new Set([key]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of graph.edges) {
      if (result.has(e.from) && !result.has(e.to)) {
        result.add(e.to);
        grew = true;
      }
    }
  }
  return result;
}
