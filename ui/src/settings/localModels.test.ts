import { describe, expect, it } from "vitest";
import type { LocalModel } from "../ipc";
import { addedMessage, formatContext, formatSize, isUsableModel, projectorsOf, serverLine, suggestProjector } from "./localModels";

function model(file: string, patch: Partial<LocalModel> = {}): LocalModel {
  return {
    file,
    name: "A model",
    architecture: "llama",
    sizeBytes: 1,
    quantisation: "Q4_K_M",
    contextLength: 8192,
    hasChatTemplate: true,
    projector: false,
    linked: false,
    bundled: false,
    inUse: false,
    problem: null,
    ...patch,
  };
}

const qwenProjector = model("mmproj-Qwen2-VL-2B-Instruct-f16.gguf", { projector: true, architecture: "clip" });
const gemmaProjector = model("gemma-3-4b-it-mmproj-bf16.gguf", { projector: true, architecture: "clip" });
const broken = model("truncated.gguf", { problem: "truncated.gguf is damaged or incomplete: the file ends inside its header", projector: false });

describe("local models", () => {
  it("shows sizes in megabytes and contexts in tokens", () => {
    expect(formatSize(138_110_400)).toBe("138.1 MB");
    expect(formatSize(1_986_248_000)).toBe("1,986.2 MB");
    expect(formatSize(0)).toBe("0.0 MB");
    expect(formatContext(8192)).toBe("8,192 tokens");
    expect(formatContext(null)).toBe("—");
    expect(formatContext(undefined)).toBe("—");
  });

  it("offers only readable models to use, and only readable projectors beside them", () => {
    const smol = model("SmolLM2-135M-Instruct.Q4_1.gguf");
    const all = [qwenProjector, smol, broken, { ...gemmaProjector, problem: "damaged" }];
    expect(all.map(isUsableModel)).toEqual([false, true, false, false]);
    expect(projectorsOf(all).map((m) => m.file)).toEqual(["mmproj-Qwen2-VL-2B-Instruct-f16.gguf"]);
  });

  it("suggests the projector made for a model, by name, and none when unsure", () => {
    const projectors = [qwenProjector, gemmaProjector];
    expect(suggestProjector(model("Qwen2-VL-2B-Instruct-Q4_K_M.gguf"), projectors)).toBe(qwenProjector.file);
    expect(suggestProjector(model("qwen2-vl-2b-instruct-q8_0.gguf"), projectors)).toBe(qwenProjector.file);
    expect(suggestProjector(model("gemma-3-4b-it-IQ3_XS.gguf"), projectors)).toBe(gemmaProjector.file);
    // A text-only model of the same family takes no projector.
    expect(suggestProjector(model("Qwen2-1.5B-Instruct-Q4_K_M.gguf"), projectors)).toBeNull();
    expect(suggestProjector(model("SmolLM2-135M-Instruct.Q4_1.gguf"), projectors)).toBeNull();
    // Two that fit: the user picks.
    expect(suggestProjector(model("Qwen2-VL-2B-Instruct-Q4_K_M.gguf"), [qwenProjector, { ...qwenProjector, file: "Qwen2-VL-2B-Instruct-mmproj-q8_0.gguf" }])).toBeNull();
    expect(suggestProjector(model("Qwen2-VL-2B-Instruct-Q4_K_M.gguf"), [])).toBeNull();
  });

  it("names the server's state, with a failure's log lines", () => {
    expect(serverLine({ state: "starting" })).toEqual({ label: "Loading the model…", className: "server-starting", log: null });
    expect(serverLine({ state: "running" })).toEqual({ label: "Ready", className: "server-running", log: null });
    expect(serverLine({ state: "stopped" })).toEqual({ label: "Not running", className: "server-stopped", log: null });
    const message = "the local model server exited during start-up (exit status: 1); its log ends with:\nllama_model_load: error loading model\nmain: exiting due to model loading error";
    expect(serverLine({ state: "failed", message })).toEqual({ label: "Failed to start", className: "server-failed", log: message });
  });

  it("says what was added and how", () => {
    expect(addedMessage(model("Qwen2-VL-2B-Instruct-Q4_K_M.gguf", { linked: true }))).toBe("Added Qwen2-VL-2B-Instruct-Q4_K_M.gguf (model, linked).");
    expect(addedMessage(qwenProjector)).toBe("Added mmproj-Qwen2-VL-2B-Instruct-f16.gguf (projector, copied).");
  });
});
