import { useCallback, useReducer, useRef } from "react";
import { useBackend } from "../backend/context";
import type { RunRequest } from "../backend/types";
import { describeError } from "../format";
import type { JsonValue } from "../schema/model";
import { applyJobEvent, applyResults, applyRow, idleTable, loadedTable, type JobEvent, type ResultRow, type TableState } from "./table";

type Action =
  | { type: "event"; event: JobEvent }
  | { type: "results"; jobId: string; results: ResultRow[] }
  | { type: "row"; result: ResultRow }
  | { type: "loaded"; state: TableState }
  | { type: "reset" };

function reducer(state: TableState, action: Action): TableState {
  switch (action.type) {
    case "event":
      return applyJobEvent(state, action.event);
    case "results":
      return applyResults(state, action.jobId, action.results);
    case "row":
      return applyRow(state, action.result);
    case "loaded":
      return action.state;
    case "reset":
      return idleTable;
  }
}

/** One extraction job at a time: its live table, and run / cancel / revise. */
export function useJob() {
  const backend = useBackend();
  const [table, dispatch] = useReducer(reducer, idleTable);
  const jobId = useRef<string | null>(null);
  const refreshTimer = useRef<number | null>(null);

  const refresh = useCallback(async () => {
    const id = jobId.current;
    if (id === null) return;
    const results = await backend.jobResults(id);
    dispatch({ type: "results", jobId: id, results });
  }, [backend]);

  /** Stored values, fetched at most twice a second while documents finish without values in their event. */
  const scheduleRefresh = useCallback(() => {
    if (refreshTimer.current !== null) return;
    refreshTimer.current = window.setTimeout(() => {
      refreshTimer.current = null;
      refresh().catch(() => undefined);
    }, 500);
  }, [refresh]);

  const run = useCallback(
    async (request: RunRequest): Promise<string | null> => {
      jobId.current = null;
      dispatch({ type: "reset" });
      try {
        await backend.runExtraction(request, (event) => {
          if (event.kind === "created") jobId.current = event.jobId;
          dispatch({ type: "event", event });
          if (event.kind === "progress" && event.status !== "started" && event.values === undefined) scheduleRefresh();
        });
        await refresh();
        return null;
      } catch (error) {
        if (jobId.current !== null) {
          dispatch({ type: "event", event: { kind: "finished", cancelled: false } });
          await refresh().catch(() => undefined);
        }
        return describeError(error);
      }
    },
    [backend, refresh, scheduleRefresh],
  );

  const resume = useCallback(
    async (providerId: string | null, model: string | null): Promise<string | null> => {
      const id = jobId.current;
      if (id === null) return null;
      try {
        await backend.resumeExtraction(id, providerId, model, (event) => {
          dispatch({ type: "event", event });
          if (event.kind === "progress" && event.status !== "started" && event.values === undefined) scheduleRefresh();
        });
        await refresh();
        return null;
      } catch (error) {
        dispatch({ type: "event", event: { kind: "finished", cancelled: false } });
        await refresh().catch(() => undefined);
        return describeError(error);
      }
    },
    [backend, refresh, scheduleRefresh],
  );

  /** Shows a stored job's table; resolves to the schema it ran with. */
  const open = useCallback(
    async (id: string) => {
      const job = await backend.openJob(id);
      jobId.current = job.jobId;
      dispatch({ type: "loaded", state: loadedTable(job.jobId, job.cancelled, job.rows) });
      return job;
    },
    [backend],
  );

  const cancel = useCallback(async () => {
    if (jobId.current !== null) await backend.cancelExtraction(jobId.current);
  }, [backend]);

  const revise = useCallback(
    async (position: number, path: string[], value: JsonValue) => {
      if (jobId.current === null) return;
      const result = await backend.reviseValue(jobId.current, position, path, value);
      dispatch({ type: "row", result });
    },
    [backend],
  );

  return { table, run, resume, open, cancel, revise };
}
