// What the Workflows screen needs from the app: a folder of YAML files, the
// engine's validate, runs with their events, and re-runs from a step.
// `ui/src/backend/workflowSource.ts` implements it over ui/src/ipc.ts;
// `memoryWorkflowSource` serves tests and the browser harness.
import type { Message, Usage } from "../transcripts/messages";

/** A YAML file of the open folder. */
export interface WorkflowFile {
  /** Relative to the folder, e.g. `flows/classify.yaml`. */
  path: string;
  /** Milliseconds since the epoch. */
  modifiedAt: number;
}

/** crates/workflow StepStatus, plus the states of a step still going; `interrupted`: Sift closed (a crash, a kill) while it ran. */
export type StepStatus = "pending" | "running" | "succeeded" | "failed" | "skipped" | "cancelled" | "interrupted";

/** One step's outcome (crates/workflow run.rs StepRecord). */
export interface StepRecord {
  id: string | null;
  name: string;
  status: "succeeded" | "failed" | "skipped" | "cancelled" | "interrupted";
  stdout: string;
  stderr: string;
  outputs: Record<string, unknown>;
  error: string | null;
  /** A chat step's conversation as later steps inherit it. */
  messages: Message[];
  usage: Usage;
  elapsed_ms: number;
  /** Copied from an earlier run instead of running again. */
  reused: boolean;
  absent_outputs: string[];
}

/** What a run reports while it goes (RunEvent), then how it ended. */
export type RunEvent =
  | { kind: "step_started"; name: string }
  | { kind: "stdout"; name: string; text: string }
  | { kind: "stderr"; name: string; text: string }
  | { kind: "step_finished"; step: StepRecord }
  | { kind: "run_finished"; status: "succeeded" | "failed" | "cancelled" }
  /** The run could not start or broke off (e.g. `cyclic plan detected: ...`). */
  | { kind: "run_error"; message: string };

/** A stored run (crates/store workflow.rs WorkflowRun). */
export interface WorkflowRunSummary {
  id: string;
  file: string;
  status: "running" | "succeeded" | "failed" | "cancelled" | "interrupted";
  from_run: string | null;
  from_step: string | null;
  created_at: number;
  finished_at: number | null;
}

/** One shell command a workflow of the folder can run (core's WorkflowCommand). */
export interface FolderCommand {
  file: string;
  /** The named DAG it is in; null for the file's main DAG. */
  dag: string | null;
  step: string;
  /** Exactly as written; `sh -c` runs it. */
  command: string;
  /** The author's `env:` entries that steer the process (`PATH=…`), as `NAME=value`. */
  env: string[];
}

/** Every shell command of the open folder, and the fingerprint the user's consent is kept under. */
export interface FolderCommands {
  folder: string;
  fingerprint: string;
  commands: FolderCommand[];
}

/**
 * A run refused because the folder's shell commands wait for the user's
 * consent (`consent_needed`): the commands to show.
 */
export class ConsentNeeded extends Error {
  constructor(readonly listing: FolderCommands) {
    super(`the workflows in ${listing.folder} run shell commands you have not allowed yet`);
    this.name = "ConsentNeeded";
  }
}

export interface RunHandle {
  runId: string;
  cancel(): Promise<void>;
}

export type Unsubscribe = () => void;

export interface WorkflowSource {
  /** The open folder's YAML files (`*.yaml`, `*.yml`), sorted by path. */
  listFolder(): Promise<WorkflowFile[]>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
  /** The engine's validate: `[]` when the file is valid, else its messages (`step 'x': ...`). */
  validate(path: string, text: string): Promise<string[]>;
  /** Runs the saved file; events arrive in order, `run_finished` last. */
  run(path: string, params: [string, string][], onEvent: (event: RunEvent) => void): Promise<RunHandle>;
  /** Re-runs from `step` (a name), reusing the stored outputs of the steps before it. */
  rerunFrom(path: string, runId: string, step: string, onEvent: (event: RunEvent) => void): Promise<RunHandle>;
  /** `run` and `rerunFrom` reject with `ConsentNeeded` until the user allows the folder's commands, as shown; rejects with `ConsentNeeded` again when they changed since. */
  allowCommands(listing: FolderCommands): Promise<void>;
  /** The file's stored runs, newest first, and one run's steps. */
  runs(path: string): Promise<WorkflowRunSummary[]>;
  runSteps(runId: string): Promise<StepRecord[]>;
  /** Called when a file of the folder changes on disk (the folder watch). */
  onFileChanged(listener: (path: string) => void): Unsubscribe;
}

/** The app's folders of workflows: the native folder dialog, and the source over one folder. */
export interface WorkflowFolders {
  /** Null when the dialog was cancelled. */
  pickFolder(): Promise<string | null>;
  /** The source over `dir` (an absolute path). */
  open(dir: string): WorkflowSource;
}

/** Scripted outcome of a step in the in-memory source. */
export interface ScriptedStep {
  status?: StepRecord["status"];
  stdout?: string;
  stderr?: string;
  outputs?: Record<string, unknown>;
  error?: string;
  messages?: Message[];
  usage?: Usage;
  /** Milliseconds the step "runs". */
  delay?: number;
}

export interface MemorySourceOptions {
  files: Record<string, string>;
  /** How each step (by name) ends; unknown steps succeed with `ok\n`. */
  script?: Record<string, ScriptedStep>;
  /** Returns the validate messages for a text; default none. */
  validate?: (text: string) => string[];
  /** The steps in run order, for a file's text (see `runOrder`). */
  order: (text: string) => { name: string; id: string | null; depends: string[] }[];
  /** The folder's shell commands: runs are refused with `ConsentNeeded` until they are allowed; default none. */
  commands?: FolderCommands;
}

export interface MemoryWorkflowSource extends WorkflowSource {
  /** Simulates a change on disk: stores the text and tells the listeners. */
  changeOnDisk(path: string, text: string): void;
  files: Map<string, string>;
  /** Every run/rerunFrom call, for assertions. */
  calls: { method: "run" | "rerunFrom"; path: string; from?: string; runId?: string; params?: [string, string][] }[];
  /** The fingerprints `allowCommands` recorded. */
  allowed: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function memoryWorkflowSource(options: MemorySourceOptions): MemoryWorkflowSource {
  const files = new Map(Object.entries(options.files));
  const modified = new Map([...files.keys()].map((p) => [p, 0]));
  const listeners = new Set<(path: string) => void>();
  const runs: (WorkflowRunSummary & { steps: StepRecord[] })[] = [];
  const calls: MemoryWorkflowSource["calls"] = [];
  const allowed: string[] = [];
  let clock = 1;
  const requireConsent = () => {
    const listing = options.commands;
    if (listing !== undefined && listing.commands.length > 0 && !allowed.includes(listing.fingerprint)) throw new ConsentNeeded(listing);
  };

  async function execute(path: string, reuse: Map<string, StepRecord>, onEvent: (e: RunEvent) => void, from?: { runId: string; step: string }): Promise<RunHandle> {
    const text = files.get(path);
    if (text === undefined) throw new Error(`no such file: ${path}`);
    const summary = { id: `run_${clock++}`, file: path, status: "running" as const, from_run: from?.runId ?? null, from_step: from?.step ?? null, created_at: clock, finished_at: null, steps: [] };
    const record: WorkflowRunSummary & { steps: StepRecord[] } = summary;
    runs.unshift(record);
    let cancelled = false;
    void (async () => {
      const steps = options.order(text);
      const done = new Map<string, StepRecord>();
      for (const step of steps) {
        await sleep(0);
        const parents = step.depends.map((ref) => done.get(ref) ?? [...done.values()].find((r) => r.id === ref));
        const reused = reuse.get(step.name);
        let out: StepRecord;
        if (reused !== undefined) out = { ...reused, reused: true };
        else if (cancelled || parents.some((p) => p !== undefined && p.status !== "succeeded")) {
          out = blank(step, cancelled ? "cancelled" : "skipped");
        } else {
          onEvent({ kind: "step_started", name: step.name });
          const s = options.script?.[step.name] ?? {};
          if (s.delay) await sleep(s.delay);
          const stdout = s.stdout ?? "ok\n";
          onEvent({ kind: "stdout", name: step.name, text: stdout });
          if (s.stderr) onEvent({ kind: "stderr", name: step.name, text: s.stderr });
          out = { ...blank(step, cancelled ? "cancelled" : (s.status ?? "succeeded")), stdout, stderr: s.stderr ?? "", outputs: s.outputs ?? {}, error: s.error ?? null, messages: s.messages ?? [], usage: s.usage ?? { input_tokens: 0, output_tokens: 0 }, elapsed_ms: s.delay ?? 1 };
        }
        done.set(step.name, out);
        record.steps.push(out);
        onEvent({ kind: "step_finished", step: out });
      }
      const status = cancelled ? "cancelled" : [...done.values()].some((s) => s.status === "failed") ? "failed" : "succeeded";
      Object.assign(record, { status, finished_at: clock++ });
      onEvent({ kind: "run_finished", status });
    })();
    return { runId: record.id, cancel: async () => void (cancelled = true) };
  }

  function blank(step: { name: string; id: string | null }, status: StepRecord["status"]): StepRecord {
    return { id: step.id, name: step.name, status, stdout: "", stderr: "", outputs: {}, error: null, messages: [], usage: { input_tokens: 0, output_tokens: 0 }, elapsed_ms: 0, reused: false, absent_outputs: [] };
  }

  return {
    files,
    calls,
    allowed,
    async allowCommands(listing) {
      const current = options.commands;
      if (current !== undefined && current.fingerprint !== listing.fingerprint) throw new ConsentNeeded(current);
      allowed.push(listing.fingerprint);
    },
    async listFolder() {
      return [...files.keys()].sort().map((path) => ({ path, modifiedAt: modified.get(path) ?? 0 }));
    },
    async readFile(path) {
      const text = files.get(path);
      if (text === undefined) throw new Error(`no such file: ${path}`);
      return text;
    },
    async writeFile(path, text) {
      files.set(path, text);
      modified.set(path, clock++);
    },
    async validate(_path, text) {
      return options.validate?.(text) ?? [];
    },
    async run(path, params, onEvent) {
      calls.push({ method: "run", path, params });
      requireConsent();
      return execute(path, new Map(), onEvent);
    },
    async rerunFrom(path, runId, step, onEvent) {
      calls.push({ method: "rerunFrom", path, runId, from: step });
      requireConsent();
      const earlier = runs.find((r) => r.id === runId);
      if (earlier === undefined) throw new Error(`no such run: ${runId}`);
      // The steps before `step`: all but it and those that depend on it.
      const order = options.order(files.get(path) ?? "");
      const rerun = new Set([step]);
      for (const s of order) if (s.depends.some((d) => rerun.has(d) || order.some((o) => o.id === d && rerun.has(o.name)))) rerun.add(s.name);
      const reuse = new Map(earlier.steps.filter((s) => !rerun.has(s.name)).map((s) => [s.name, s]));
      return execute(path, reuse, onEvent, { runId, step });
    },
    async runs(path) {
      return runs.filter((r) => r.file === path).map(({ steps: _steps, ...summary }) => summary);
    },
    async runSteps(runId) {
      return runs.find((r) => r.id === runId)?.steps ?? [];
    },
    onFileChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changeOnDisk(path, text) {
      files.set(path, text);
      modified.set(path, clock++);
      for (const listener of listeners) listener(path);
    },
  };
}

/** A step as the store keeps it (crates/store workflow.rs StoredStep). */
export interface StoredStep {
  run_id: string;
  position: number;
  name: string;
  step_id: string | null;
  /** `running`, `succeeded`, `failed`, `skipped` or `cancelled`. */
  status: string;
  stdout: string;
  stderr: string;
  outputs: unknown;
  messages: unknown;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  elapsed_ms: number;
  reused: boolean;
}

const FINISHED = new Set(["succeeded", "failed", "skipped", "cancelled"]);

/**
 * A stored step as a record for the canvas (for `runSteps`). A step stored
 * as `running` belongs to a run that never finished (the app quit): it shows
 * as cancelled. The store does not keep `absent_outputs`.
 */
export function fromStoredStep(step: StoredStep): StepRecord {
  const outputs = step.outputs !== null && typeof step.outputs === "object" && !Array.isArray(step.outputs) ? (step.outputs as Record<string, unknown>) : {};
  return {
    id: step.step_id,
    name: step.name,
    status: (FINISHED.has(step.status) ? step.status : "cancelled") as StepRecord["status"],
    stdout: step.stdout,
    stderr: step.stderr,
    outputs,
    error: step.error,
    messages: Array.isArray(step.messages) ? (step.messages as Message[]) : [],
    usage: { input_tokens: step.input_tokens, output_tokens: step.output_tokens },
    elapsed_ms: step.elapsed_ms,
    reused: step.reused,
    absent_outputs: [],
  };
}
