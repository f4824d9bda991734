// The one place the UI talks to the Rust side. Every `invoke` goes through a
// typed function here, so components never name a command or its payload.
// (The payload types will be generated from the Rust structs with ts-rs.)
import { invoke, isTauri } from "@tauri-apps/api/core";

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
