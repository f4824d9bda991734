// The Transcripts screen, its timeline (reusable for any messages) and its source.
export { TranscriptsScreen } from "./TranscriptsScreen";
export { Timeline } from "./Timeline";
export { timelineRows, type Transcript, type TranscriptMessage } from "./timeline";
export type { Revision } from "./revisions";
export type { Message, Part, Role, Usage } from "./messages";
export { memoryTranscriptSource, type TranscriptQuery, type TranscriptSource, type TranscriptSummary } from "./source";
