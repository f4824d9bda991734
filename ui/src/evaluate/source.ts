// What the Evaluate screen needs from the app. It speaks the IPC's shapes
// (ui/src/bindings); `ui/src/backend/evaluateSource.ts` implements it over
// ui/src/ipc.ts.
import type { EvalRunSummary, EvalRunView, EvaluateEvent, EvaluateRequest, LabelledSetSummary, LabelledSetView, Price, ProviderConfig, SchemaSummary } from "../ipc";

export interface EvaluateSource {
  listSets(): Promise<LabelledSetSummary[]>;
  getSet(name: string): Promise<LabelledSetView>;
  /** The open dialog for a ground-truth TSV; null when cancelled. */
  pickTsv(): Promise<string | null>;
  /** `schemaVersion` null: the schema's latest. */
  importSet(name: string, path: string, schemaName: string, schemaVersion: number | null): Promise<LabelledSetSummary>;
  /** The save dialog for a TSV; null when cancelled. */
  pickSaveTsv(defaultName: string): Promise<string | null>;
  /** Resolves to the rows written. */
  exportSet(name: string, path: string): Promise<number>;
  deleteSet(name: string): Promise<boolean>;

  listSchemas(): Promise<SchemaSummary[]>;
  /** The settings' providers and the default one. */
  providers(): Promise<{ providers: ProviderConfig[]; defaultProvider: string; defaultModel: string | null }>;

  /** Starts a run: resolves with it as it starts; `onEvent` sees `candidate`, `document`, then `finished` or `error`. */
  startEvaluation(request: EvaluateRequest, onEvent: (event: EvaluateEvent) => void): Promise<EvalRunView>;
  /** Runs the rest of a cancelled or cut-short run: resolves with it as it restarts; events as `startEvaluation`'s. */
  resumeEvaluation(runId: string, onEvent: (event: EvaluateEvent) => void): Promise<EvalRunView>;
  cancelEvaluation(runId: string): Promise<void>;
  run(runId: string): Promise<EvalRunView>;
  /** A set's runs, newest first. */
  history(setName: string): Promise<EvalRunSummary[]>;

  /** The price table: the user's prices, then the defaults they have not replaced. */
  prices(): Promise<Price[]>;
  /** Sets the user's price of a model (`providerId` `*`: on any provider); resolves with the table. */
  setPrice(providerId: string, model: string, inputPerMtok: number, outputPerMtok: number): Promise<Price[]>;
  /** Removes the user's price; resolves with the table. */
  deletePrice(providerId: string, model: string): Promise<Price[]>;
}
