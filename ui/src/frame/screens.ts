// The app's sections.
export type ScreenId = "extract" | "schemas" | "settings" | "workflows" | "chat" | "transcripts" | "evaluate" | "usage";

export interface ScreenInfo {
  id: ScreenId;
  label: string;
  /** Alt+key switches to it. */
  key: string;
}

export const SCREENS: readonly ScreenInfo[] = [
  { id: "extract", label: "Extract", key: "1" },
  { id: "schemas", label: "Schemas", key: "2" },
  { id: "settings", label: "Settings", key: "3" },
  { id: "workflows", label: "Workflows", key: "4" },
  { id: "chat", label: "Chat", key: "5" },
  { id: "transcripts", label: "Transcripts", key: "6" },
  { id: "evaluate", label: "Evaluate", key: "7" },
  { id: "usage", label: "Usage", key: "8" },
];

export function screenForKey(key: string): ScreenId | null {
  return SCREENS.find((s) => s.key === key)?.id ?? null;
}
