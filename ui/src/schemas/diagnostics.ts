// What the code editor underlines: a syntax error at its place, else the
// JSON-Schema keyword problems (on the first character; their JSON Pointer
// is in the message).
import { lintJsonSchema } from "../schema/edit";
import { parseSchemaText } from "../schema/model";

export interface EditorDiagnostic {
  from: number;
  to: number;
  severity: "error";
  message: string;
}

export function schemaDiagnostics(text: string): EditorDiagnostic[] {
  const parsed = parseSchemaText(text);
  if (!parsed.ok) {
    const from = Math.min(parsed.problem.from, text.length);
    const to = Math.min(text.length, Math.max(parsed.problem.to, from));
    return [{ from, to, severity: "error", message: parsed.problem.message }];
  }
  return lintJsonSchema(parsed.value).map((message) => ({ from: 0, to: Math.min(1, text.length), severity: "error", message }));
}
