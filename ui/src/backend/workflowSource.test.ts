import { describe, expect, it } from "vitest";
import type * as ipc from "../ipc";
import { ConsentNeeded, type RunEvent } from "../workflows/source";
import { stepRecord } from "./mapping";
import { tauriWorkflowSource, type WorkflowIpc } from "./workflowSource";

const STEP: ipc.StepView = {
  id: "fetch",
  name: "Fetch",
  status: "succeeded",
  stdout: "hello\n",
  stderr: "",
  outputs: { count: 3 },
  error: null,
  messages: [{ role: "assistant", parts: [{ type: "text", text: "hi" }] }, "not a message"],
  inputTokens: 12,
  outputTokens: 4,
  elapsedMs: 31,
  reused: true,
};

type Calls = { cmd: string; args: unknown[] }[];

const LISTING: ipc.WorkflowCommands = {
  folder: "/flows",
  fingerprint: "f1",
  commands: [{ file: "a.yml", dag: null, step: "fetch", command: "curl -s https://example.com > a.txt", env: ["PATH=./bin"] }],
};

/** Fake commands: each call recorded; `runWorkflow` plays `script` then resolves (or rejects) with `end`. */
function fake(script: ipc.WorkflowRunEvent[] = [], end: ipc.WorkflowRunView | Error | ipc.IpcError = { runId: "run_1", status: "succeeded", steps: [] }) {
  const calls: Calls = [];
  const record = (cmd: string, ...args: unknown[]) => calls.push({ cmd, args });
  let watcher: ((e: ipc.WorkflowFileEvent) => void) | null = null;
  let watchStarted: () => void = () => {};
  const watching = new Promise<void>((resolve) => (watchStarted = resolve));
  const api: WorkflowIpc = {
    listWorkflows: async (dir) => (record("listWorkflows", dir), [{ path: `${dir}/b.yaml`, name: "b.yaml" }, { path: `${dir}/a.yml`, name: "a.yml" }]),
    readWorkflow: async (path) => (record("readWorkflow", path), { path, text: "steps: []\n", problems: [] }),
    saveWorkflow: async (path, text) => (record("saveWorkflow", path, text), []),
    checkWorkflow: async (text) => (record("checkWorkflow", text), ["step 'x': bad"]),
    watchWorkflows: async (dir, on) => {
      record("watchWorkflows", dir);
      watcher = on;
      watchStarted();
    },
    runWorkflow: (request, on) => {
      record("runWorkflow", request);
      return new Promise((resolve, reject) => {
        setTimeout(() => {
          for (const e of script) on(e);
          if (end instanceof Error) reject({ code: "workflow", message: end.message });
          else if ("code" in end) reject(end);
          else resolve(end);
        }, 0);
      });
    },
    workflowCommands: async (folder) => (record("workflowCommands", folder), LISTING),
    allowWorkflowCommands: async (folder, fingerprint) => {
      record("allowWorkflowCommands", folder, fingerprint);
      if (fingerprint !== LISTING.fingerprint) throw { code: "consent_needed", message: "the commands changed" };
    },
    cancelWorkflowRun: async (key) => (record("cancelWorkflowRun", key), true),
    workflowRuns: async (limit) => (
      record("workflowRuns", limit),
      [
        { id: "run_2", file: "/flows/a.yml", status: "failed", fromRun: "run_1", fromStep: "Sum", createdAt: 20, finishedAt: 21 },
        { id: "run_x", file: "/elsewhere/a.yml", status: "succeeded", fromRun: null, fromStep: null, createdAt: 15, finishedAt: 16 },
        { id: "run_1", file: "/flows/a.yml", status: "running", fromRun: null, fromStep: null, createdAt: 10, finishedAt: null },
      ]
    ),
    workflowRun: async (runId) => (record("workflowRun", runId), { runId, status: "succeeded", steps: [STEP, { ...STEP, name: "Sum", status: "running" }] }),
  };
  return { api, calls, watching, change: (e: ipc.WorkflowFileEvent) => watcher?.(e) };
}

describe("stepRecord", () => {
  it("maps a step's fields, keeps only messages, and shows a step left running as cancelled", () => {
    expect(stepRecord(STEP)).toEqual({
      id: "fetch",
      name: "Fetch",
      status: "succeeded",
      stdout: "hello\n",
      stderr: "",
      outputs: { count: 3 },
      error: null,
      messages: [{ role: "assistant", parts: [{ type: "text", text: "hi" }] }],
      usage: { input_tokens: 12, output_tokens: 4 },
      elapsed_ms: 31,
      reused: true,
      absent_outputs: [],
    });
    expect(stepRecord({ ...STEP, status: "running" }).status).toBe("cancelled");
  });
});

describe("tauriWorkflowSource", () => {
  it("lists the folder by names, sorted, and reads and writes by absolute path", async () => {
    const { api, calls } = fake();
    const source = tauriWorkflowSource("/flows/", api);
    expect(await source.listFolder()).toEqual([
      { path: "a.yml", modifiedAt: 0 },
      { path: "b.yaml", modifiedAt: 0 },
    ]);
    expect(await source.readFile("a.yml")).toBe("steps: []\n");
    await source.writeFile("a.yml", "x: 1\n");
    expect(await source.validate("a.yml", "y: 2\n")).toEqual(["step 'x': bad"]);
    expect(calls).toEqual([
      { cmd: "listWorkflows", args: ["/flows"] },
      { cmd: "readWorkflow", args: ["/flows/a.yml"] },
      { cmd: "saveWorkflow", args: ["/flows/a.yml", "x: 1\n"] },
      { cmd: "checkWorkflow", args: ["y: 2\n"] },
    ]);
  });

  it("resolves a run with the stored run's id, maps its events in order, ends with run_finished, and cancels by the key", async () => {
    const { api, calls } = fake(
      [
        { kind: "started", key: "wfrun-7" },
        { kind: "runCreated", runId: "run_9" },
        { kind: "stepStarted", name: "Fetch" },
        { kind: "stdout", name: "Fetch", text: "hello\n" },
        { kind: "stderr", name: "Fetch", text: "warn\n" },
        { kind: "stepFinished", step: STEP },
      ],
      { runId: "run_9", status: "succeeded", steps: [STEP] },
    );
    const source = tauriWorkflowSource("/flows", api);
    const events: RunEvent[] = [];
    const finished = new Promise<void>((resolve) => {
      void source
        .run("a.yml", [["who", "me"]], (e) => {
          events.push(e);
          if (e.kind === "run_finished") resolve();
        })
        .then(async (handle) => {
          expect(handle.runId).toBe("run_9");
          await handle.cancel();
        });
    });
    await finished;
    expect(events.map((e) => e.kind)).toEqual(["step_started", "stdout", "stderr", "step_finished", "run_finished"]);
    expect(events[1]).toEqual({ kind: "stdout", name: "Fetch", text: "hello\n" });
    expect(events[4]).toEqual({ kind: "run_finished", status: "succeeded" });
    expect(calls[0]).toEqual({ cmd: "runWorkflow", args: [{ path: "/flows/a.yml", params: [{ name: "who", value: "me" }] }] });
    expect(calls).toContainEqual({ cmd: "cancelWorkflowRun", args: ["wfrun-7"] });
  });

  it("re-runs from a step of a run", async () => {
    const { api, calls } = fake([{ kind: "runCreated", runId: "run_3" }], { runId: "run_3", status: "failed", steps: [] });
    const source = tauriWorkflowSource("/flows", api);
    const last = new Promise<RunEvent>((resolve) => void source.rerunFrom("a.yml", "run_1", "Sum", (e) => resolve(e)));
    expect(await last).toEqual({ kind: "run_finished", status: "failed" });
    expect(calls[0]).toEqual({ cmd: "runWorkflow", args: [{ path: "/flows/a.yml", params: [], fromStep: "Sum", fromRun: "run_1" }] });
  });

  it("rejects a run the engine refused before it was stored, and reports a later failure as run_error", async () => {
    const refused = tauriWorkflowSource("/flows", fake([], new Error("cyclic plan detected: a -> b -> a")).api);
    await expect(refused.run("a.yml", [], () => undefined)).rejects.toThrow("cyclic plan detected: a -> b -> a");
    const broke = tauriWorkflowSource("/flows", fake([{ kind: "runCreated", runId: "run_4" }], new Error("database is locked")).api);
    const last = new Promise<RunEvent>((resolve) => void broke.run("a.yml", [], resolve));
    expect(await last).toEqual({ kind: "run_error", message: "database is locked" });
  });

  it("turns a run refused with consent_needed into ConsentNeeded with the folder's commands, and allows the fingerprint shown", async () => {
    const { api, calls } = fake([], { code: "consent_needed", message: "the workflows in /flows run shell commands you have not allowed yet:\n- a.yml fetch: curl" });
    const source = tauriWorkflowSource("/flows/", api);
    const refusal = await source.run("a.yml", [], () => undefined).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ConsentNeeded);
    expect((refusal as ConsentNeeded).listing).toEqual(LISTING);
    expect(calls.map((c) => c.cmd)).toEqual(["runWorkflow", "workflowCommands"]);
    expect(calls[1]).toEqual({ cmd: "workflowCommands", args: ["/flows"] });

    await source.allowCommands(LISTING);
    expect(calls[2]).toEqual({ cmd: "allowWorkflowCommands", args: ["/flows", "f1"] });
  });

  it("rejects allowing commands that changed since they were shown with the new ones", async () => {
    const { api, calls } = fake();
    const source = tauriWorkflowSource("/flows", api);
    const stale = await source.allowCommands({ ...LISTING, fingerprint: "old" }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ConsentNeeded);
    expect((stale as ConsentNeeded).listing).toEqual(LISTING);
    expect(calls.map((c) => c.cmd)).toEqual(["allowWorkflowCommands", "workflowCommands"]);
  });

  it("lists only this file's runs, in the screen's shape, and reads a run's steps", async () => {
    const source = tauriWorkflowSource("/flows", fake().api);
    expect(await source.runs("a.yml")).toEqual([
      { id: "run_2", file: "a.yml", status: "failed", from_run: "run_1", from_step: "Sum", created_at: 20, finished_at: 21 },
      { id: "run_1", file: "a.yml", status: "running", from_run: null, from_step: null, created_at: 10, finished_at: null },
    ]);
    const steps = await source.runSteps("run_2");
    expect(steps.map((s) => [s.name, s.status])).toEqual([
      ["Fetch", "succeeded"],
      ["Sum", "cancelled"],
    ]);
  });

  it("watches the folder once and tells listeners the changed file's name", async () => {
    const { api, calls, watching, change } = fake();
    const source = tauriWorkflowSource("/flows", api);
    const seen: string[] = [];
    const stop = source.onFileChanged((p) => seen.push(p));
    source.onFileChanged((p) => seen.push(`2:${p}`));
    // The watch is registered (a condition, not a tick of the clock).
    await watching;
    change({ kind: "changed", path: "/flows/a.yml", text: "", problems: [] });
    stop();
    change({ kind: "removed", path: "/flows/b.yaml" });
    expect(seen).toEqual(["a.yml", "2:a.yml", "2:b.yaml"]);
    expect(calls.filter((c) => c.cmd === "watchWorkflows")).toEqual([{ cmd: "watchWorkflows", args: ["/flows"] }]);
  });
});
