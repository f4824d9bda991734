// The app's sections. The next issue adds Transcripts, Chat and Workflows here.
export type ScreenId = "extract" | "schemas" | "settings";

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
];

export function screenForKey(key: string): ScreenId | null {
  return SCREENS.find((s) => s.key === key)?.id ?? null;
}
