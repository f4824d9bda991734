import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CommandsConsent, commandPlace } from "./CommandsConsent";
import { ConsentNeeded, memoryWorkflowSource, type FolderCommands } from "./source";

const LISTING: FolderCommands = {
  folder: "/home/user/flows",
  fingerprint: "f1",
  commands: [
    { file: "a.yaml", dag: null, step: "fetch", command: 'echo "<img src=x onerror=alert(1)>" && rm -rf ~/tmp/x', env: [] },
    { file: "a.yaml", dag: "tidy", step: "clean", command: "ls\n  -la", env: ["PATH=./bin", "LD_PRELOAD=./x.so"] },
  ],
};

const html = () => renderToStaticMarkup(createElement(CommandsConsent, { listing: LISTING, onRun: () => undefined, onCancel: () => undefined }));

describe("CommandsConsent", () => {
  it("lists each step's place and its exact command as text in monospace blocks, never as HTML", () => {
    const out = html();
    expect(out).toContain('role="dialog"');
    expect(out).toContain("<code>/home/user/flows</code>");
    expect(out).toContain('<pre class="wf-consent-command" data-testid="consent-command-text">echo &quot;&lt;img src=x onerror=alert(1)&gt;&quot; &amp;&amp; rm -rf ~/tmp/x</pre>');
    expect(out).not.toContain("<img");
    expect(out).toContain('<pre class="wf-consent-command" data-testid="consent-command-text">ls\n  -la</pre>');
    expect(out).toContain('<pre class="wf-consent-env">PATH=./bin\nLD_PRELOAD=./x.so</pre>');
    // Two commands, each with its place, in order.
    const places = [...out.matchAll(/data-testid="consent-step">([^<]*)</g)].map((m) => m[1]);
    expect(places).toEqual(["a.yaml › fetch", "a.yaml › tidy › clean"]);
    const buttons = [...out.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);
    expect(buttons).toEqual(["Cancel", "Run them"]);
  });

  it("names a main-DAG step by its file and step, a named DAG's with the DAG between", () => {
    expect(commandPlace(LISTING.commands[0]!)).toBe("a.yaml › fetch");
    expect(commandPlace(LISTING.commands[1]!)).toBe("a.yaml › tidy › clean");
  });
});

describe("the in-memory source's consent", () => {
  const source = () => memoryWorkflowSource({ files: { "a.yaml": "steps: []\n" }, order: () => [], commands: LISTING });

  it("refuses a run with the commands until they are allowed, then runs", async () => {
    const s = source();
    const refusal = await s.run("a.yaml", [], () => undefined).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ConsentNeeded);
    expect((refusal as ConsentNeeded).listing).toEqual(LISTING);
    await s.allowCommands(LISTING);
    expect(s.allowed).toEqual(["f1"]);
    const handle = await s.run("a.yaml", [], () => undefined);
    expect(handle.runId).toBe("run_1");
  });

  it("refuses allowing a fingerprint that is not the folder's now", async () => {
    const s = source();
    const stale = await s.allowCommands({ ...LISTING, fingerprint: "old" }).catch((e: unknown) => e);
    expect((stale as ConsentNeeded).listing.fingerprint).toBe("f1");
    expect(s.allowed).toEqual([]);
  });
});
