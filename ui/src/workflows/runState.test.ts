import { describe, expect, it } from "vitest";
import { parseWorkflow } from "./graph";
import { applyEvent, downstream, runOrder, startRun, type RunState } from "./runState";
import { memoryWorkflowSource, type RunEvent } from "./source";
import { CLASSIFY, DIAMOND } from "./fixtures";

const order = (text: string) => runOrder(parseWorkflow(text));

function collect(): { events: RunEvent[]; done: Promise<void>; push: (e: RunEvent) => void } {
  const events: RunEvent[] = [];
  let finish = () => {};
  const done = new Promise<void>((r) => (finish = r));
  return {
    events,
    done,
    push: (e) => {
      events.push(e);
      if (e.kind === "run_finished") finish();
    },
  };
}

describe("run state", () => {
  it("folds events into each step's status and output", () => {
    let state: RunState = startRun(["a", "b"], "run_1");
    expect(state.steps.a!.status).toBe("pending");
    state = applyEvent(state, { kind: "step_started", name: "a" });
    state = applyEvent(state, { kind: "stdout", name: "a", text: "hel" });
    state = applyEvent(state, { kind: "stdout", name: "a", text: "lo\n" });
    state = applyEvent(state, { kind: "stderr", name: "a", text: "warn\n" });
    expect(state.steps.a).toEqual({ status: "running", stdout: "hello\n", stderr: "warn\n", record: null });
    const record = { id: "a", name: "a", status: "failed" as const, stdout: "hello\n", stderr: "warn\n", outputs: {}, error: "exit status 1", messages: [], usage: { input_tokens: 0, output_tokens: 0 }, elapsed_ms: 5, reused: false, absent_outputs: [] };
    state = applyEvent(state, { kind: "step_finished", step: record });
    state = applyEvent(state, { kind: "run_finished", status: "failed" });
    expect(state.steps.a!.status).toBe("failed");
    expect(state.steps.a!.record).toBe(record);
    expect(state.steps.b!.status).toBe("pending");
    expect(state.status).toBe("failed");
    expect(applyEvent(state, { kind: "run_error", message: "cyclic plan detected: a -> b -> a" })).toMatchObject({ status: "failed", error: "cyclic plan detected: a -> b -> a" });
  });

  it("orders steps after their dependencies and finds what a re-run repeats", () => {
    const graph = parseWorkflow("steps:\n  - {name: late, run: x, depends: early}\n  - {name: early, run: x}\n  - {name: other, run: x}\n");
    expect(runOrder(graph).map((s) => s.name)).toEqual(["early", "other", "late"]);
    expect([...downstream(parseWorkflow(DIAMOND), "b")]).toEqual(["b", "d"]);
  });
});

describe("memoryWorkflowSource", () => {
  it("runs steps in order, skips dependents of a failure, and re-runs from a step reusing the rest", async () => {
    const source = memoryWorkflowSource({ files: { "a.yaml": DIAMOND }, order, script: { b: { status: "failed", error: "exit status 1", stdout: "" } } });
    const first = collect();
    const handle = await source.run("a.yaml", [], first.push);
    await first.done;
    const finished = first.events.filter((e) => e.kind === "step_finished").map((e) => (e.kind === "step_finished" ? [e.step.name, e.step.status] : []));
    expect(finished).toEqual([["a", "succeeded"], ["b", "failed"], ["c", "succeeded"], ["d", "skipped"]]);
    expect(first.events.at(-1)).toEqual({ kind: "run_finished", status: "failed" });
    const again = collect();
    const second = await source.rerunFrom("a.yaml", handle.runId, "c", again.push);
    await again.done;
    expect(again.events.filter((e) => e.kind === "step_started").map((e) => (e.kind === "step_started" ? e.name : ""))).toEqual(["c"]);
    const steps = await source.runSteps(second.runId);
    expect(steps.map((s) => [s.name, s.status, s.reused])).toEqual([["a", "succeeded", true], ["b", "failed", true], ["c", "succeeded", false], ["d", "skipped", false]]);
    expect((await source.runs("a.yaml")).map((r) => [r.id, r.status, r.from_run, r.from_step])).toEqual([
      [second.runId, "failed", handle.runId, "c"],
      [handle.runId, "failed", null, null],
    ]);
  });

  it("reads, writes, lists and reports changes on disk", async () => {
    const source = memoryWorkflowSource({ files: { "z.yaml": CLASSIFY, "a.yaml": DIAMOND }, order });
    expect((await source.listFolder()).map((f) => f.path)).toEqual(["a.yaml", "z.yaml"]);
    await source.writeFile("a.yaml", "steps: []\n");
    expect(await source.readFile("a.yaml")).toBe("steps: []\n");
    const seen: string[] = [];
    const stop = source.onFileChanged((p) => seen.push(p));
    source.changeOnDisk("z.yaml", "x: 1\n");
    stop();
    source.changeOnDisk("z.yaml", "x: 2\n");
    expect(seen).toEqual(["z.yaml"]);
    await expect(source.readFile("nope.yaml")).rejects.toThrow("no such file: nope.yaml");
  });
});

describe("fromStoredStep", () => {
  it("maps the store's row to a record; a step left running is shown cancelled", async () => {
    const { fromStoredStep } = await import("./source");
    const row = { run_id: "r", position: 0, name: "ask", step_id: "ask", status: "succeeded", stdout: "x\n", stderr: "", outputs: { a: 1 }, messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }], error: null, input_tokens: 3, output_tokens: 4, elapsed_ms: 12, reused: true };
    expect(fromStoredStep(row)).toEqual({ id: "ask", name: "ask", status: "succeeded", stdout: "x\n", stderr: "", outputs: { a: 1 }, error: null, messages: row.messages, usage: { input_tokens: 3, output_tokens: 4 }, elapsed_ms: 12, reused: true, absent_outputs: [] });
    expect(fromStoredStep({ ...row, status: "running", outputs: null, messages: null })).toMatchObject({ status: "cancelled", outputs: {}, messages: [] });
  });
});
