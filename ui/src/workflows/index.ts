// The Workflows screen and its source.
export { WorkflowsScreen } from "./WorkflowsScreen";
export type { RunEvent, RunHandle, StepRecord, StepStatus, Unsubscribe, WorkflowFile, WorkflowRunSummary, WorkflowSource } from "./source";
export { fromStoredStep, memoryWorkflowSource, type StoredStep } from "./source";
