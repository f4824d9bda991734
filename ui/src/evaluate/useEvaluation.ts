// A run of the Evaluate screen: started (or resumed) over its source, its
// events folded into the state by `runReducer`, cancelled, or a stored run
// loaded.
import { useCallback, useReducer } from "react";
import { describeError } from "../format";
import type { EvaluateRequest } from "../ipc";
import { idleRun, runReducer } from "./model";
import type { EvaluateSource } from "./source";

export function useEvaluation(source: EvaluateSource) {
  const [state, dispatch] = useReducer(runReducer, idleRun);

  const start = useCallback(
    async (request: EvaluateRequest) => {
      dispatch({ kind: "starting" });
      try {
        const view = await source.startEvaluation(request, (event) => dispatch({ kind: "event", event }));
        dispatch({ kind: "started", view });
      } catch (error) {
        dispatch({ kind: "failed", error: describeError(error) });
      }
    },
    [source],
  );

  const shown = state.view;
  const resume = useCallback(
    async (runId: string) => {
      dispatch({ kind: "resuming", runId });
      try {
        const view = await source.resumeEvaluation(runId, (event) => dispatch({ kind: "event", event }));
        dispatch({ kind: "started", view });
      } catch (error) {
        // Refused (running elsewhere, gone): the run shows again as it was.
        dispatch({ kind: "failed", error: describeError(error), view: shown });
      }
    },
    [source, shown],
  );

  const load = useCallback(
    async (runId: string) => {
      try {
        dispatch({ kind: "loaded", view: await source.run(runId) });
      } catch (error) {
        dispatch({ kind: "failed", error: describeError(error) });
      }
    },
    [source],
  );

  const cancel = useCallback(async () => {
    if (state.runId === null) return;
    await source.cancelEvaluation(state.runId);
  }, [source, state.runId]);

  return { state, start, resume, load, cancel };
}
