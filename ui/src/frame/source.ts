// What the frame (the sidebar) needs from the app; `ui/src/backend/frameSource.ts`
// implements it over ui/src/ipc.ts.
import type { LocalServerStatus } from "../ipc";

export interface FrameSource {
  /** "Sift 0.1.0", or null outside the app. */
  appVersion(): Promise<string | null>;
  /** The local model server as the app runs it. */
  localServer(): Promise<LocalServerStatus>;
}
