import { describe, expect, it } from "vitest";
import type { AppSettings } from "./source";
import { addProvider, normaliseSettings, removeProvider, settingsProblems, updateProvider } from "./logic";

const base: AppSettings = {
  providers: [
    { id: "local", kind: "local", label: "Local model", baseUrl: null, apiKeyEnv: null },
    { id: "openai", kind: "openai", label: "OpenAI", baseUrl: null, apiKeyEnv: null },
  ],
  defaultProvider: "local",
  defaultModel: null,
  dataDir: null,
};

describe("settings", () => {
  it("adds providers under fresh ids", () => {
    const one = addProvider(base, "openai");
    expect(one.provider).toEqual({ id: "openai-2", kind: "openai", label: "", baseUrl: null, apiKeyEnv: null });
    const two = addProvider(one.settings, "anthropic");
    expect(two.settings.providers.map((p) => p.id)).toEqual(["local", "openai", "openai-2", "anthropic"]);
  });

  it("renaming the default provider keeps it the default; the default cannot be removed", () => {
    const renamed = updateProvider(base, "local", { id: "mine" });
    expect(renamed.defaultProvider).toBe("mine");
    expect(removeProvider(renamed, "mine")).toBe(renamed);
    expect(removeProvider(renamed, "openai").providers.map((p) => p.id)).toEqual(["mine"]);
  });

  it("lists what stops a save", () => {
    const bad: AppSettings = {
      ...base,
      providers: [...base.providers, { id: "openai", kind: "openai", label: "Gateway", baseUrl: "llm.example.com", apiKeyEnv: "MY-KEY" }],
      defaultProvider: "nope",
    };
    expect(settingsProblems(bad)).toEqual([
      'Provider id "openai" is used twice.',
      "Gateway: the base URL must start with http:// or https://.",
      'Gateway: "MY-KEY" is not an environment variable name.',
      "Pick a default provider.",
    ]);
    expect(settingsProblems(base)).toEqual([]);
  });

  it("stores blanks as unset", () => {
    const s = normaliseSettings({ ...base, defaultModel: "  ", dataDir: " /data ", providers: [{ ...base.providers[1]!, baseUrl: " ", label: " W " }] });
    expect(s).toEqual({ ...base, defaultModel: null, dataDir: "/data", providers: [{ ...base.providers[1]!, baseUrl: null, label: "W" }] });
  });
});
