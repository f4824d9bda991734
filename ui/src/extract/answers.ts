// The "Answers" choice of a run: how the job's answers are made (see the
// README's "Right values by default"). Pure, so each rule is unit-tested.
import type { AnswerMode, ProviderKind } from "../ipc";

/** The choices, in the order shown; `null` sends nothing: the default for the provider's kind of model. */
export const ANSWER_CHOICES: readonly { mode: AnswerMode | null; label: string }[] = [
  { mode: null, label: "Default for the model" },
  { mode: "located", label: "Located (no model)" },
  { mode: "grounded", label: "Grounded (model picks among candidates)" },
  { mode: "free", label: "Free (model writes values)" },
];

/** A choice as the select's value: "" for the default. */
export function answersValue(mode: AnswerMode | null): string {
  return mode ?? "";
}

/** The select's value as a choice: anything but a mode is the default. */
export function answersFromValue(value: string): AnswerMode | null {
  return value === "located" || value === "grounded" || value === "free" ? value : null;
}

/** The mode a run gets when it names none, as the backend picks it: `located` for the local model, `free` for any other. */
export function defaultAnswers(kind: ProviderKind): AnswerMode {
  return kind === "local" ? "located" : "free";
}

/** What the default means for the provider picked (shown under the choice); null when no provider is known. */
export function defaultAnswersHint(kind: ProviderKind | null): string | null {
  if (kind === null) return null;
  return defaultAnswers(kind) === "located"
    ? "The default for the local model: located, no model is called"
    : "The default for this provider: free, the model writes the values";
}
