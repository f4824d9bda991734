// The Transcripts screen, its timeline (reusable for any messages) and what the lead wires to the IPC.
export { TranscriptsScreen } from "./TranscriptsScreen";
export { Timeline } from "./Timeline";
export { timelineRows, type Transcript, type TranscriptMessage } from "./timeline";
export type { Revision } from "./revisions";
export type { Message, Part, Role, Usage } from "./messages";
export { callTranscript, memoryTranscriptSource, type CallRecord, type TranscriptQuery, type TranscriptSource, type TranscriptSummary } from "./source";
