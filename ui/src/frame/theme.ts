// Light and dark themes: follow the OS unless the user picked one. Pure
// helpers; `useTheme` (in Frame) applies the result to <html data-theme>.

export type ThemePreference = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export const THEME_KEY = "sift.theme";

export function resolveTheme(preference: ThemePreference, osPrefersDark: boolean): Theme {
  if (preference === "system") return osPrefersDark ? "dark" : "light";
  return preference;
}

/** The toggle's cycle: system -> light -> dark -> system. */
export function nextPreference(preference: ThemePreference): ThemePreference {
  return preference === "system" ? "light" : preference === "light" ? "dark" : "system";
}

export function parsePreference(stored: string | null): ThemePreference {
  return stored === "light" || stored === "dark" ? stored : "system";
}

export function preferenceLabel(preference: ThemePreference, theme: Theme): string {
  return preference === "system" ? `Theme: system (${theme})` : `Theme: ${preference}`;
}
