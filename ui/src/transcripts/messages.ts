// The provider-neutral message model, as crates/llm/src/message.rs
// serialises it (serde: `{"role", "parts": [{"type": "text", ...}]}`).

export type Role = "system" | "user" | "assistant" | "tool";

export type Part =
  | { type: "text"; text: string }
  /** Image bytes as base64 (serde's `base64_bytes`); stored transcripts may hold a placeholder instead. */
  | { type: "image"; mime: string; data: string }
  /** `arguments` exactly as the model produced them: JSON text that may be invalid. */
  | { type: "tool_call"; id: string; name: string; arguments: string }
  | { type: "tool_result"; call_id: string; content: string; is_error?: boolean };

export interface Message {
  role: Role;
  parts: Part[];
}

/** Tokens of one model reply or a sum of them (crates/llm Usage). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export const NO_USAGE: Usage = { input_tokens: 0, output_tokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return { input_tokens: a.input_tokens + b.input_tokens, output_tokens: a.output_tokens + b.output_tokens };
}

/** All text parts joined, in order (Message::text_content). */
export function textOf(message: Message): string {
  return message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}
