// The in-memory chat the browser harness (ui/e2e/harness) uses.
import { memoryChatSource, type MemoryChatSource } from "./source";

export function demoChatSource(): MemoryChatSource {
  return memoryChatSource({
    delay: 40,
    sessions: [
      { title: "Invoice questions", messages: [["user", "Which invoices are overdue?"], ["assistant", "Invoices 0042 and 0057 are overdue."]] },
      { title: "Trip planning", messages: [["user", "Plan a day in Lyon."], ["assistant", "Start at the Vieux Lyon, then the Fourvière hill."]] },
    ],
  });
}
