import { describe, expect, it } from "vitest";
import { applyChatEvent, bubbles, splitFiles, exportFileName, exportJson, exportMarkdown, fenceFor, newTurn, snippet, type ChatEvent, type SessionSummary, type StoredMessage } from "./model";

const session: SessionSummary = { id: "ses_1", title: "Weather in Paris", model_choice: "smollm2", created_at: 1000, updated_at: 2000 };
let seq = 0;
const msg = (role: StoredMessage["role"], parts: StoredMessage["parts"], hidden = false): StoredMessage => {
  seq++;
  return { id: `msg_${seq}`, seq, role, parts, metadata: {}, hidden, created_at: 1000 + seq };
};
const messages: StoredMessage[] = [
  msg("system", [{ type: "text", text: "Be brief." }]),
  msg("user", [{ type: "text", text: "Weather in Paris?" }, { type: "image", mime: "image/png", data: "AAAA" }]),
  msg("assistant", [{ type: "text", text: "Let me check." }, { type: "tool_call", id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' }]),
  msg("tool", [{ type: "tool_result", call_id: "c1", content: "```20 °C```", is_error: false }]),
  msg("assistant", [{ type: "tool_call", id: "c2", name: "forecast", arguments: "{bad" }]),
  msg("tool", [{ type: "tool_result", call_id: "c2", content: "Error: tool \"forecast\" not found", is_error: true }]),
  msg("assistant", [{ type: "text", text: "It is 20 °C." }]),
  msg("assistant", [{ type: "text", text: "compacted summary" }], true),
];

describe("exports", () => {
  it("writes Markdown with a heading per message and fenced tool calls and results", () => {
    expect(exportMarkdown(session, messages)).toBe(`# Weather in Paris

Model: smollm2

## System

Be brief.

## User

Weather in Paris?

[image: image/png]

## Assistant

Let me check.

**Tool call** \`get_weather\` (c1)

\`\`\`json
{
  "city": "Paris"
}
\`\`\`

## Tool

**Tool result** (c1)

\`\`\`\`
\`\`\`20 °C\`\`\`
\`\`\`\`

## Assistant

**Tool call** \`forecast\` (c2)

\`\`\`
{bad
\`\`\`

## Tool

**Tool result** (error) (c2)

\`\`\`
Error: tool "forecast" not found
\`\`\`

## Assistant

It is 20 °C.
`);
  });

  it("writes JSON with the session and the visible messages' parts", () => {
    const parsed = JSON.parse(exportJson(session, messages));
    expect(parsed.session).toEqual({ id: "ses_1", title: "Weather in Paris", model_choice: "smollm2", created_at: 1000 });
    expect(parsed.messages).toHaveLength(7);
    expect(parsed.messages[2]).toEqual({ seq: 3, role: "assistant", parts: messages[2]!.parts, created_at: 1003 });
    expect(exportJson(session, []).endsWith("\n")).toBe(true);
    expect(exportMarkdown({ ...session, title: "", model_choice: null }, [])).toBe("# Untitled chat\n");
  });

  it("names the file after the title, else the id; fences outgrow the content's backticks", () => {
    expect(exportFileName(session, "md")).toBe("weather-in-paris.md");
    expect(exportFileName({ ...session, title: "¿?" }, "json")).toBe("ses_1.json");
    expect([fenceFor("plain"), fenceFor("a `b` c"), fenceFor("````x")]).toEqual(["```", "```", "`````"]);
  });
});

describe("bubbles", () => {
  it("joins tool results to their calls and leaves out tool and hidden messages", () => {
    const b = bubbles(messages);
    expect(b.map((x) => [x.seq, x.role, x.text, x.images, x.tools.map((t) => [t.name, t.result?.is_error ?? null])])).toEqual([
      [1, "system", "Be brief.", [], []],
      [2, "user", "Weather in Paris?", ["image/png"], []],
      [3, "assistant", "Let me check.", [], [["get_weather", false]]],
      [5, "assistant", "", [], [["forecast", true]]],
      [7, "assistant", "It is 20 °C.", [], []],
    ]);
  });
});

describe("attached documents", () => {
  it("takes the documents crate's file blocks out of a user message", () => {
    expect(splitFiles('<file name="a.pdf">\n--- page 1 ---\nx\n</file>\n<file name="b.txt">y</file>\nSummarise them')).toEqual({ text: "Summarise them", files: ["a.pdf", "b.txt"] });
    expect(splitFiles("  plain  ")).toEqual({ text: "  plain  ", files: [] });
    const [b] = bubbles([{ id: "m", seq: 1, role: "user", parts: [{ type: "text", text: "Sum up" }, { type: "text", text: '<file name="r.pdf">…</file>' }], metadata: {}, hidden: false, created_at: 0 }]);
    expect([b!.text, b!.files]).toEqual(["Sum up", ["r.pdf"]]);
  });
});

describe("the streamed turn", () => {
  it("streams text, tool cards, an approval, usage and the end", () => {
    const events: ChatEvent[] = [
      { kind: "text_delta", text: "Let me " },
      { kind: "text_delta", text: "check." },
      { kind: "tool_call_started", id: "c1", name: "get_weather" },
      { kind: "usage", usage: { input_tokens: 10, output_tokens: 5 } },
      { kind: "approval_required", id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { kind: "done", usage: { input_tokens: 10, output_tokens: 5 } },
    ];
    const turn = events.reduce(applyChatEvent, newTurn());
    expect(turn).toEqual({
      status: "awaiting_approval",
      text: "Let me check.",
      tools: [{ id: "c1", name: "get_weather", arguments: '{"city":"Paris"}', result: null }],
      approvals: [{ id: "c1", name: "get_weather", arguments: '{"city":"Paris"}', created_at: 0 }],
      usage: { input_tokens: 10, output_tokens: 5 },
      error: null,
    });
    const resumed = [
      { kind: "tool_call_finished", id: "c1", name: "get_weather", content: "20 °C", is_error: false } as const,
      { kind: "done", usage: { input_tokens: 3, output_tokens: 2 } } as const,
    ].reduce(applyChatEvent, turn);
    expect(resumed.status).toBe("done");
    expect(resumed.tools[0]!.result).toEqual({ content: "20 °C", is_error: false });
    expect(resumed.approvals).toEqual([]);
    expect(applyChatEvent(newTurn(), { kind: "error", category: "network", message: "connection refused" })).toMatchObject({ status: "error", error: { category: "network", message: "connection refused" } });
  });
});

describe("snippet", () => {
  it("cuts the text around the match", () => {
    expect(snippet("The weather in Paris is mild today, with sun.", "paris", 8)).toBe("…ther in Paris is mild…");
    expect(snippet("short", "sh")).toBe("short");
    expect(snippet("abc", "x")).toBeNull();
  });
});
