// The in-memory transcripts the browser harness (ui/e2e/harness) shows.
import type { Message } from "./messages";
import type { Revision } from "./revisions";
import { memoryTranscriptSource, type TranscriptSource } from "./source";
import type { Transcript, TranscriptMessage } from "./timeline";

const text = (role: Message["role"], t: string): Message => ({ role, parts: [{ type: "text", text: t }] });

/** A chat of `count` messages: user and assistant in turn, a tool call (and its result) in every tenth reply. */
export function longChat(count: number): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (let i = 0; out.length < count; i++) {
    if (i % 2 === 0) out.push({ message: text("user", `Question ${i / 2 + 1}: what is line ${i} of the report?`), seq: out.length + 1 });
    else if (i % 20 === 1 && out.length + 2 <= count) {
      out.push({ message: { role: "assistant", parts: [{ type: "tool_call", id: `t${i}`, name: "read_report", arguments: JSON.stringify({ line: i }) }] }, usage: { input_tokens: 200 + i, output_tokens: 12 }, seq: out.length + 1 });
      out.push({ message: { role: "tool", parts: [{ type: "tool_result", call_id: `t${i}`, content: `Line ${i}: revenue grew ${i % 7}%` }] }, seq: out.length + 1 });
    } else {
      const body = i % 9 === 0 ? Array.from({ length: 12 }, (_, k) => `Paragraph ${k + 1} of a long answer to question ${(i + 1) / 2}.`).join("\n") : `Answer ${(i + 1) / 2}: line ${i - 1} says the revenue grew.`;
      out.push({ message: text("assistant", body), usage: { input_tokens: 200 + i, output_tokens: 20 }, seq: out.length + 1 });
    }
  }
  return out;
}

export const INVOICE_CALL: Transcript = {
  id: "call_1",
  title: "invoice-0042.pdf",
  kind: "call",
  status: "completed",
  systemPrompt: "Extract the invoice's fields.",
  messages: [
    { message: text("user", '<file name="invoice-0042.pdf">\n--- page 1 ---\nACME Ltd\nTotal due: 12.50 EUR\n</file>\nExtract the fields.') },
    { message: { role: "assistant", parts: [{ type: "tool_call", id: "r1", name: "respond", arguments: '{"vendor": "ACME Ltd", "total": "12,50"}' }] }, usage: { input_tokens: 410, output_tokens: 22 } },
    { message: { role: "tool", parts: [{ type: "tool_result", call_id: "r1", content: "The output does not match the schema:\n- /total: \"12,50\" is not of type \"number\"\nCall respond again with a corrected answer.", is_error: true }] } },
    { message: { role: "assistant", parts: [{ type: "tool_call", id: "r2", name: "respond", arguments: '{"vendor": "ACME Ltd", "total": 12.5}' }] }, usage: { input_tokens: 470, output_tokens: 21 } },
    { message: { role: "tool", parts: [{ type: "tool_result", call_id: "r2", content: "Output accepted." }] } },
  ],
  usage: { input_tokens: 880, output_tokens: 43 },
  error: null,
};

export const REVISIONS: Revision[] = [
  { id: "call_1", parentId: null, createdAt: 1, status: "completed", output: { vendor: "ACME Ltd", total: 12.5 }, note: null },
  { id: "call_2", parentId: "call_1", createdAt: 2, status: "completed", output: { vendor: "ACME Limited", total: 12.5 }, note: "The vendor's full name is ACME Limited." },
];

export function demoTranscriptSource(bigCount = 10_000): TranscriptSource {
  const revision: Transcript = {
    ...INVOICE_CALL,
    id: "call_2",
    messages: [...INVOICE_CALL.messages, { message: text("user", "The vendor's full name is ACME Limited.") }, { message: { role: "assistant", parts: [{ type: "tool_call", id: "r3", name: "respond", arguments: '{"vendor": "ACME Limited", "total": 12.5}' }] }, usage: { input_tokens: 520, output_tokens: 21 } }],
    usage: { input_tokens: 520, output_tokens: 21 },
  };
  const failed: Transcript = { id: "call_9", title: "scan.png", kind: "call", status: "failed", systemPrompt: null, messages: [{ message: text("user", "Extract the fields.") }], usage: { input_tokens: 0, output_tokens: 0 }, error: { message: "401 Unauthorized: invalid API key", category: "auth" } };
  return memoryTranscriptSource(
    [
      { ...INVOICE_CALL, createdAt: 3 },
      { ...revision, createdAt: 4 },
      { ...failed, createdAt: 2 },
      { id: "ses_big", title: "Quarterly report chat", kind: "session", status: null, systemPrompt: "You answer questions about the report.", messages: longChat(bigCount), usage: null, error: null, createdAt: 1 },
    ],
    REVISIONS,
  );
}
