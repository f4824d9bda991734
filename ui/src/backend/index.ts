// Every screen's source in the app, each a thin adapter over ui/src/ipc.ts.
// The one way a screen reaches the backend: App builds these once and hands
// each screen its own as the `source` prop.
import type { ChatSource } from "../chat/source";
import type { EvaluateSource } from "../evaluate/source";
import type { ExtractSource } from "../extract/source";
import type { FrameSource } from "../frame/source";
import type { SchemaSource } from "../schemas/source";
import type { SettingsSource } from "../settings/source";
import type { TranscriptSource } from "../transcripts/source";
import type { UsageSource } from "../usage/source";
import type { WorkflowFolders } from "../workflows/source";
import { tauriChatSource } from "./chatSource";
import { tauriEvaluateSource, tauriUsageSource } from "./evaluateSource";
import { tauriExtractSource } from "./extractSource";
import { tauriFrameSource } from "./frameSource";
import { tauriSchemaSource } from "./schemaSource";
import { tauriSettingsSource } from "./settingsSource";
import { tauriTranscriptSource } from "./transcriptSource";
import { tauriWorkflowFolders } from "./workflowSource";

export interface AppSources {
  frame: FrameSource;
  extract: ExtractSource;
  schemas: SchemaSource;
  settings: SettingsSource;
  workflows: WorkflowFolders;
  chat: ChatSource;
  transcripts: TranscriptSource;
  evaluate: EvaluateSource;
  usage: UsageSource;
}

/**
 * The sources of the app. `chatAcceptsDrops` says whether a file dropped on
 * the window is for Chat now (Extract takes drops too).
 */
export function appSources(options: { chatAcceptsDrops: () => boolean }): AppSources {
  return {
    frame: tauriFrameSource(),
    extract: tauriExtractSource(),
    schemas: tauriSchemaSource(),
    settings: tauriSettingsSource(),
    workflows: tauriWorkflowFolders(),
    chat: tauriChatSource(undefined, { acceptsDrops: options.chatAcceptsDrops }),
    transcripts: tauriTranscriptSource(),
    evaluate: tauriEvaluateSource(),
    usage: tauriUsageSource(),
  };
}
