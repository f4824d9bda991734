// The Workflows screen's source over the Tauri commands (ui/src/ipc.ts):
// one open folder, its files by their names in it, runs with their events.
import * as ipc from "../ipc";
import { ConsentNeeded, type FolderCommands, type RunEvent, type RunHandle, type WorkflowFile, type WorkflowFolders, type WorkflowRunSummary, type WorkflowSource } from "../workflows/source";
import { errorText, stepRecord } from "./mapping";

/** The commands this adapter uses (the real ones by default; tests pass fakes). */
export type WorkflowIpc = Pick<
  typeof ipc,
  | "listWorkflows"
  | "readWorkflow"
  | "saveWorkflow"
  | "checkWorkflow"
  | "watchWorkflows"
  | "runWorkflow"
  | "workflowCommands"
  | "allowWorkflowCommands"
  | "cancelWorkflowRun"
  | "workflowRuns"
  | "workflowRun"
>;

const RUN_STATUSES = new Set(["running", "succeeded", "failed", "cancelled", "interrupted"]);

/** The run's events as the screen's; `undefined` for those only the adapter uses (`started`, `runCreated`). */
export function runEvent(event: ipc.WorkflowRunEvent): RunEvent | undefined {
  switch (event.kind) {
    case "stepStarted":
      return { kind: "step_started", name: event.name };
    case "stdout":
      return { kind: "stdout", name: event.name, text: event.text };
    case "stderr":
      return { kind: "stderr", name: event.name, text: event.text };
    case "stepFinished":
      return { kind: "step_finished", step: stepRecord(event.step) };
    default:
      return undefined;
  }
}

function runStatus(status: string): "succeeded" | "failed" | "cancelled" {
  return status === "succeeded" || status === "cancelled" ? status : "failed";
}

/** The Workflows source for the folder `dir` (an absolute path). */
export function tauriWorkflowSource(dir: string, api: WorkflowIpc = ipc): WorkflowSource & { dir: string } {
  const folder = dir.replace(/\/+$/, "");
  const absolute = (path: string) => (path.startsWith("/") ? path : `${folder}/${path}`);
  const relative = (path: string) => (path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : path);
  const listeners = new Set<(path: string) => void>();
  let watching: Promise<void> | null = null;

  /** A `consent_needed` refusal as the screen's `ConsentNeeded`, with the commands to show; other errors as they are. */
  async function consentOr(error: unknown): Promise<unknown> {
    if (!ipc.isIpcError(error) || error.code !== "consent_needed") return error;
    return new ConsentNeeded(await api.workflowCommands(folder));
  }

  /**
   * Starts a run: resolves once the store has the run (`runCreated`), with
   * the key of `started` to cancel it; the rest of the events, then
   * `run_finished` (or `run_error`), go to `onEvent`.
   */
  function start(request: ipc.WorkflowRunRequest, onEvent: (event: RunEvent) => void): Promise<RunHandle> {
    return new Promise<RunHandle>((resolve, reject) => {
      let key: string | null = null;
      let created = false;
      const handle = (runId: string): RunHandle => ({
        runId,
        cancel: async () => {
          if (key !== null) await api.cancelWorkflowRun(key);
        },
      });
      api
        .runWorkflow(request, (event) => {
          if (event.kind === "started") key = event.key;
          else if (event.kind === "runCreated") {
            created = true;
            resolve(handle(event.runId));
          } else {
            const mapped = runEvent(event);
            if (mapped !== undefined) onEvent(mapped);
          }
        })
        .then(
          (view) => {
            if (!created) {
              created = true;
              resolve(handle(view.runId));
            }
            onEvent({ kind: "run_finished", status: runStatus(view.status) });
          },
          (error: unknown) => {
            if (created) onEvent({ kind: "run_error", message: errorText(error) });
            else
              void consentOr(error).then(
                (refusal) => reject(refusal instanceof ConsentNeeded ? refusal : new Error(errorText(refusal))),
                (failed: unknown) => reject(new Error(errorText(failed))),
              );
          },
        );
    });
  }

  return {
    dir: folder,
    async listFolder(): Promise<WorkflowFile[]> {
      const files = await api.listWorkflows(folder);
      // The IPC gives no modification time.
      return files.map((f) => ({ path: relative(f.path), modifiedAt: 0 })).sort((a, b) => a.path.localeCompare(b.path));
    },
    async readFile(path) {
      return (await api.readWorkflow(absolute(path))).text;
    },
    async writeFile(path, text) {
      await api.saveWorkflow(absolute(path), text);
    },
    async validate(_path, text) {
      return api.checkWorkflow(text);
    },
    run(path, params, onEvent) {
      return start({ path: absolute(path), params: params.map(([name, value]) => ({ name, value })) }, onEvent);
    },
    rerunFrom(path, runId, step, onEvent) {
      return start({ path: absolute(path), params: [], fromStep: step, fromRun: runId }, onEvent);
    },
    async allowCommands(listing: FolderCommands) {
      try {
        await api.allowWorkflowCommands(listing.folder, listing.fingerprint);
      } catch (error) {
        throw await consentOr(error);
      }
    },
    async runs(path): Promise<WorkflowRunSummary[]> {
      const file = absolute(path);
      const all = await api.workflowRuns(200);
      return all
        .filter((r) => r.file === file)
        .map((r) => ({
          id: r.id,
          file: path,
          status: (RUN_STATUSES.has(r.status) ? r.status : "failed") as WorkflowRunSummary["status"],
          from_run: r.fromRun,
          from_step: r.fromStep,
          created_at: r.createdAt,
          finished_at: r.finishedAt,
        }));
    },
    async runSteps(runId) {
      return (await api.workflowRun(runId)).steps.map(stepRecord);
    },
    onFileChanged(listener) {
      listeners.add(listener);
      // One watch per folder (the command replaces the previous one).
      watching ??= api
        .watchWorkflows(folder, (event) => {
          for (const l of [...listeners]) l(relative(event.path));
        })
        .catch(() => {
          watching = null;
        });
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** The folders of workflows the app opens: picked with the native dialog, each watched by its source. */
export function tauriWorkflowFolders(api: WorkflowIpc & Pick<typeof ipc, "pickFolder"> = ipc): WorkflowFolders {
  return {
    pickFolder: () => api.pickFolder("Open a folder of workflows"),
    open: (dir) => tauriWorkflowSource(dir, api),
  };
}
