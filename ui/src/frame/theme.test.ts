import { describe, expect, it } from "vitest";
import { nextPreference, parsePreference, preferenceLabel, resolveTheme } from "./theme";

describe("theme", () => {
  it("follows the OS unless a theme was picked", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
  });

  it("cycles system, light, dark and reads back only known values", () => {
    expect([nextPreference("system"), nextPreference("light"), nextPreference("dark")]).toEqual(["light", "dark", "system"]);
    expect([parsePreference("dark"), parsePreference("light"), parsePreference("blue"), parsePreference(null)]).toEqual([
      "dark",
      "light",
      "system",
      "system",
    ]);
    expect(preferenceLabel("system", "dark")).toBe("Theme: system (dark)");
    expect(preferenceLabel("light", "light")).toBe("Theme: light");
  });
});
