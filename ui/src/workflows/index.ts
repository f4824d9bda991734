// The Workflows screen and what the lead wires to the IPC.
export { WorkflowsScreen } from "./WorkflowsScreen";
export type { RunEvent, RunHandle, StepRecord, StepStatus, Unsubscribe, WorkflowFile, WorkflowRunSummary, WorkflowSource } from "./source";
export { fromStoredStep, memoryWorkflowSource, type StoredStep } from "./source";
