// The in-memory workflow source the browser harness (ui/e2e/harness) uses.
import { CLASSIFY, DIAMOND } from "./fixtures";
import { parseWorkflow } from "./graph";
import { localProblems } from "./problems";
import { runOrder } from "./runState";
import { memoryWorkflowSource, type MemoryWorkflowSource } from "./source";

export function demoWorkflowSource(): MemoryWorkflowSource {
  return memoryWorkflowSource({
    files: { "classify.yaml": CLASSIFY, "diamond.yaml": DIAMOND },
    order: (text) => runOrder(parseWorkflow(text)),
    validate: (text) => localProblems(parseWorkflow(text)),
    script: {
      classify: {
        delay: 150,
        stdout: '{"amount":12.5,"category":"refund"}\n',
        outputs: { category: "refund", amount: 12.5 },
        usage: { input_tokens: 120, output_tokens: 18 },
        messages: [
          { role: "system", parts: [{ type: "text", text: "Classify the note." }] },
          { role: "user", parts: [{ type: "text", text: "Classify this note: please refund my 12.50" }] },
          { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "respond", arguments: '{"category":"refund","amount":12.5}' }] },
          { role: "tool", parts: [{ type: "tool_result", call_id: "call_1", content: "Output accepted." }] },
        ],
      },
      record: { delay: 100, stdout: "refund 12.5\n", outputs: { LINE: "refund 12.5" } },
      b: { status: "failed", error: "exit status 1", stdout: "", stderr: "b: not found\n" },
    },
  });
}
