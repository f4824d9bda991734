import { useCallback, useEffect, useRef, useState } from "react";
import { applyEvent, finishedRun, IDLE, startRun, type RunState } from "./runState";
import { ConsentNeeded, type FolderCommands, type RunEvent, type RunHandle, type WorkflowRunSummary, type WorkflowSource } from "./source";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The run shown on the canvas: a new run, a re-run from a step, or an earlier run picked from the history. */
export function useRun(source: WorkflowSource, path: string | null) {
  const [state, setState] = useState<RunState>(IDLE);
  const [history, setHistory] = useState<WorkflowRunSummary[]>([]);
  /** A run refused until the user allows the folder's commands: what to show, and the run to start once allowed. */
  const [consent, setConsent] = useState<{ listing: FolderCommands; retry: () => Promise<void> } | null>(null);
  const handle = useRef<RunHandle | null>(null);
  // Events of a run that is no longer shown are dropped.
  const generation = useRef(0);

  const loadHistory = useCallback(async () => {
    if (path === null) return setHistory([]);
    try {
      setHistory(await source.runs(path));
    } catch {
      setHistory([]);
    }
  }, [source, path]);

  useEffect(() => {
    generation.current++;
    setState(IDLE);
    void loadHistory();
  }, [loadHistory]);

  const begin = useCallback(
    async (names: string[], from: string | null, start: (onEvent: (e: RunEvent) => void) => Promise<RunHandle>): Promise<void> => {
      const mine = ++generation.current;
      setState(startRun(names, null, from));
      const onEvent = (event: RunEvent) => {
        if (generation.current !== mine) return;
        setState((s) => applyEvent(s, event));
        if (event.kind === "run_finished" || event.kind === "run_error") {
          handle.current = null;
          void loadHistory();
        }
      };
      try {
        const started = await start(onEvent);
        handle.current = started;
        if (generation.current === mine) setState((s) => ({ ...s, runId: started.runId }));
      } catch (error) {
        if (error instanceof ConsentNeeded) {
          // Nothing ran: the canvas goes back to how it was, and the commands wait for the user.
          if (generation.current === mine) setState(IDLE);
          setConsent({ listing: error.listing, retry: () => begin(names, from, start) });
        } else onEvent({ kind: "run_error", message: message(error) });
      }
    },
    [loadHistory],
  );

  /** The user allowed the commands shown: the consent is recorded, then the refused run starts. */
  const allowCommands = useCallback(async () => {
    if (consent === null) return;
    setConsent(null);
    try {
      await source.allowCommands(consent.listing);
    } catch (error) {
      // The commands changed since they were shown: show the new ones.
      if (error instanceof ConsentNeeded) setConsent({ listing: error.listing, retry: consent.retry });
      else setState({ ...IDLE, error: message(error), status: "failed" });
      return;
    }
    await consent.retry();
  }, [consent, source]);

  const dismissCommands = useCallback(() => setConsent(null), []);

  const run = useCallback(
    (names: string[], params: [string, string][] = []) => {
      if (path === null) return Promise.resolve();
      return begin(names, null, (onEvent) => source.run(path, params, onEvent));
    },
    [begin, source, path],
  );

  const rerunFrom = useCallback(
    (names: string[], step: string) => {
      const runId = state.runId;
      if (path === null || runId === null) return Promise.resolve();
      return begin(names, step, (onEvent) => source.rerunFrom(path, runId, step, onEvent));
    },
    [begin, source, path, state.runId],
  );

  const cancel = useCallback(async () => {
    await handle.current?.cancel();
  }, []);

  const show = useCallback(
    async (runId: string) => {
      const mine = ++generation.current;
      const summary = history.find((r) => r.id === runId);
      try {
        const steps = await source.runSteps(runId);
        if (generation.current === mine) setState(finishedRun(runId, steps, summary?.status ?? "succeeded"));
      } catch (error) {
        setState({ ...IDLE, error: message(error), status: "failed" });
      }
    },
    [source, history],
  );

  // After a crash, the run it cut short is shown when its file opens, so that its interrupted step can be re-run from.
  const latest = history[0];
  useEffect(() => {
    if (latest?.status === "interrupted" && state.status === "idle" && state.runId === null) void show(latest.id);
  }, [latest, state.status, state.runId, show]);

  return { state, history, run, rerunFrom, cancel, show, consent: consent?.listing ?? null, allowCommands, dismissCommands };
}
