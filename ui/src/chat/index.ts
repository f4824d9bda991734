// The Chat screen and its source.
export { ChatScreen } from "./ChatScreen";
export type { ChatEvent, PendingApproval, SessionSummary, StoredMessage } from "./model";
export { exportJson, exportMarkdown } from "./model";
export { memoryChatSource, type Attachment, type ChatSource, type ModelOption, type TurnHandle } from "./source";
