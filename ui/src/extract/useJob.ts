import { useCallback, useReducer, useRef } from "react";
import { describeError } from "../format";
import type { ExtractRequest, JobTotals, JobView } from "../ipc";
import type { JsonValue } from "../schema/model";
import { createdEvent, followJob, resultFromRow } from "./fromIpc";
import type { ExtractSource } from "./source";
import { applyJobEvent, applyResults, applyRow, idleTable, loadedTable, storedPhase, type JobEvent, type ResultRow, type TableState } from "./table";

type Action =
  | { type: "event"; event: JobEvent }
  | { type: "results"; jobId: string; results: ResultRow[]; totals: JobTotals; needsReview: number }
  | { type: "row"; result: ResultRow }
  | { type: "loaded"; state: TableState }
  | { type: "reset" };

function reducer(state: TableState, action: Action): TableState {
  switch (action.type) {
    case "event":
      return applyJobEvent(state, action.event);
    case "results":
      return applyResults(state, action.jobId, action.results, action.totals, action.needsReview);
    case "row":
      return applyRow(state, action.result);
    case "loaded":
      return action.state;
    case "reset":
      return idleTable;
  }
}

/** A stored job as the screen reopens it. */
export interface OpenedJob {
  jobId: string;
  schemaName: string;
  schema: JsonValue;
  rows: ResultRow[];
}

/** One extraction job at a time: its live table, and run / cancel / revise / check. */
export function useJob(source: ExtractSource) {
  const [table, dispatch] = useReducer(reducer, idleTable);
  const jobId = useRef<string | null>(null);
  const refreshTimer = useRef<number | null>(null);
  // Views asked for so far: an answer older than the latest asked is dropped,
  // so a slow view cannot put back a row a later check or correction changed.
  const views = useRef(0);

  const refresh = useCallback(async () => {
    const id = jobId.current;
    if (id === null) return;
    const asked = ++views.current;
    const job = await source.jobResults(id);
    if (asked !== views.current || id !== jobId.current) return;
    dispatch({ type: "results", jobId: id, results: job.rows.map(resultFromRow), totals: job.totals, needsReview: job.needsReview });
  }, [source]);

  /** Stored values, fetched at most twice a second while documents finish without values in their event. */
  const scheduleRefresh = useCallback(() => {
    if (refreshTimer.current !== null) return;
    refreshTimer.current = window.setTimeout(() => {
      refreshTimer.current = null;
      refresh().catch(() => undefined);
    }, 500);
  }, [refresh]);

  const run = useCallback(
    async (request: ExtractRequest): Promise<string | null> => {
      jobId.current = null;
      dispatch({ type: "reset" });
      try {
        await followJob(
          (onEvent) => source.startExtraction(request, onEvent),
          createdEvent,
          (event) => {
            if (event.kind === "created") jobId.current = event.jobId;
            dispatch({ type: "event", event });
            if (event.kind === "progress" && event.status !== "started" && event.values === undefined) scheduleRefresh();
          },
        );
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
    [source, refresh, scheduleRefresh],
  );

  const resume = useCallback(
    async (providerId: string | null, model: string | null): Promise<string | null> => {
      const id = jobId.current;
      if (id === null) return null;
      try {
        await followJob(
          (onEvent) => source.resumeExtraction(id, providerId, model, onEvent),
          (job: JobView) => ({ kind: "resumed", jobId: job.jobId }),
          (event) => {
            dispatch({ type: "event", event });
            if (event.kind === "progress" && event.status !== "started" && event.values === undefined) scheduleRefresh();
          },
        );
        await refresh();
        return null;
      } catch (error) {
        dispatch({ type: "event", event: { kind: "finished", cancelled: false } });
        await refresh().catch(() => undefined);
        return describeError(error);
      }
    },
    [source, refresh, scheduleRefresh],
  );

  /** Shows a stored job's table; resolves to the job as it was stored. */
  const open = useCallback(
    async (id: string): Promise<OpenedJob> => {
      const job = await source.jobResults(id);
      const rows = job.rows.map(resultFromRow);
      jobId.current = job.jobId;
      dispatch({ type: "loaded", state: loadedTable(job.jobId, storedPhase(job.status), rows, job.totals, job.needsReview) });
      return { jobId: job.jobId, schemaName: job.schemaName, schema: job.schema, rows };
    },
    [source],
  );

  const cancel = useCallback(async () => {
    if (jobId.current !== null) await source.cancelExtraction(jobId.current);
  }, [source]);

  // The row a check or a correction returns is shown at once; the job's view
  // follows for its count of values to look at, which the backend keeps.
  const revise = useCallback(
    async (position: number, path: string[], value: JsonValue) => {
      if (jobId.current === null) return;
      const row = await source.reviseValue(jobId.current, position, path, value);
      dispatch({ type: "row", result: resultFromRow(row) });
      refresh().catch(() => undefined);
    },
    [source, refresh],
  );

  const check = useCallback(
    async (position: number, key: string) => {
      if (jobId.current === null) return;
      const row = await source.checkValue(jobId.current, position, key);
      dispatch({ type: "row", result: resultFromRow(row) });
      refresh().catch(() => undefined);
    },
    [source, refresh],
  );

  return { table, run, resume, open, cancel, revise, check };
}
