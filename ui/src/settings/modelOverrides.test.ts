import { describe, expect, it } from "vitest";
import { describeCapabilities, fromOverrideEntries, newOverride, overrideProblems, toOverrideEntry } from "./modelOverrides";

describe("model overrides", () => {
  it("maps the IPC's optional answers to choices and back", () => {
    const entry = toOverrideEntry({ provider: "local", model: "smollm2", images: false, tools: null });
    expect(entry).toEqual({ provider: "local", model: "smollm2", images: "no", tools: "detected" });
    expect(toOverrideEntry({ provider: "work", model: "llava:7b" })).toEqual({ provider: "work", model: "llava:7b", images: "detected", tools: "detected" });
    expect(fromOverrideEntries([entry, { provider: " work ", model: " llava:7b ", images: "yes", tools: "no" }])).toEqual([
      { provider: "local", model: "smollm2", images: false, tools: null },
      { provider: "work", model: "llava:7b", images: true, tools: false },
    ]);
  });

  it("drops rows that say nothing", () => {
    expect(fromOverrideEntries([newOverride("local", "smollm2"), { ...newOverride("local", "  "), images: "yes" }])).toEqual([]);
  });

  it("names duplicates and unknown providers", () => {
    const row = { ...newOverride("local", "smollm2"), images: "no" as const };
    expect(overrideProblems([row, { ...row, model: " smollm2" }], ["local"])).toEqual(["smollm2 (local) has two overrides."]);
    expect(overrideProblems([{ ...row, provider: "gone" }], ["local"])).toEqual(["smollm2: pick one of the providers."]);
    expect(overrideProblems([row], ["local"])).toEqual([]);
  });

  it("says where each answer came from", () => {
    expect(describeCapabilities({ images: false, tools: true, imagesSource: "server", toolsSource: "knownFamily", serverRoute: "GET /props", family: "smollm" })).toBe(
      "images: no (the server, GET /props) · tools: yes (known model family, smollm)",
    );
    expect(describeCapabilities({ images: true, tools: false, imagesSource: "override", toolsSource: "default", serverRoute: null, family: "smollm" })).toBe(
      "images: yes (your override) · tools: no (default for unknown models)",
    );
  });
});
