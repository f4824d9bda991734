import { useCallback, useEffect, useState } from "react";
import { THEME_KEY, nextPreference, parsePreference, resolveTheme, type Theme, type ThemePreference } from "./theme";

function readStored(): string | null {
  try {
    return window.localStorage.getItem(THEME_KEY);
  } catch {
    return null;
  }
}

/** The theme in force (applied to <html data-theme>), following the OS until the user picks one. */
export function useTheme(): { preference: ThemePreference; theme: Theme; cycle: () => void } {
  const query = "(prefers-color-scheme: dark)";
  const [preference, setPreference] = useState<ThemePreference>(() => parsePreference(readStored()));
  const [osDark, setOsDark] = useState(() => window.matchMedia(query).matches);

  useEffect(() => {
    const media = window.matchMedia(query);
    const listener = (e: MediaQueryListEvent) => setOsDark(e.matches);
    media.addEventListener("change", listener);
    return () => media.removeEventListener("change", listener);
  }, []);

  const theme = resolveTheme(preference, osDark);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  const cycle = useCallback(() => {
    setPreference((p) => {
      const next = nextPreference(p);
      try {
        if (next === "system") window.localStorage.removeItem(THEME_KEY);
        else window.localStorage.setItem(THEME_KEY, next);
      } catch {
        // storage unavailable: the choice lasts for this session
      }
      return next;
    });
  }, []);

  return { preference, theme, cycle };
}
