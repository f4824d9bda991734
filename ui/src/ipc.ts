// The one place the UI talks to the Rust side. Every `invoke` goes through a
// typed function here, so components never name a command or its payload.
// (The payload types will be generated from the Rust structs with ts-rs.)
import { Channel, invoke, isTauri } from "@tauri-apps/api/core";

/** Mirrors `sift_app::AppInfo` (src-tauri/lib.rs). */
export interface AppInfo {
  name: string;
  version: string;
}

/** True inside the desktop app; false when the UI runs in a plain browser. */
export function isDesktopApp(): boolean {
  return isTauri();
}

/** The running app's name and version (`app_info` command). */
export function appInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

/** Mirrors `sift_app::IpcError`: every command rejects with this. */
export interface IpcError {
  code: string;
  message: string;
}

/** Mirrors `sift_app::AskArgs`. Unset fields use the configured defaults. */
export interface AskArgs {
  prompt: string;
  system?: string;
  provider?: "openai" | "anthropic" | "local";
  baseUrl?: string;
  model?: string;
}

/** Mirrors `sift_app::AskEvent`. */
export type AskEvent =
  | { kind: "status"; message: string }
  | { kind: "text"; text: string }
  | { kind: "done"; model: string; inputTokens: number; outputTokens: number };

/** Sends one prompt; `onEvent` sees the reply as it streams in. */
export function ask(args: AskArgs, onEvent: (event: AskEvent) => void): Promise<void> {
  const events = new Channel<AskEvent>();
  events.onmessage = onEvent;
  return invoke<void>("ask", { args, events });
}
