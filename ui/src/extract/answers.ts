// The "Answers" choice of a run: how the job's answers are made (see the
// README's "Right values by default"). Pure, so each rule is unit-tested.
import type { AnswerMode, DefaultAnswers, ProviderKind } from "../ipc";

/** The choices, in the order shown; `null` sends nothing: the default for the provider's kind of model. */
export const ANSWER_CHOICES: readonly { mode: AnswerMode | null; label: string }[] = [
  { mode: null, label: "Default for the model" },
  { mode: "located", label: "Located (no model)" },
  { mode: "hybrid", label: "Hybrid (located values, model for the rest)" },
  { mode: "grounded", label: "Grounded (model picks among candidates)" },
  { mode: "free", label: "Free (model writes values)" },
];

/** A choice as the select's value: "" for the default. */
export function answersValue(mode: AnswerMode | null): string {
  return mode ?? "";
}

/** The select's value as a choice: anything but a mode is the default. */
export function answersFromValue(value: string): AnswerMode | null {
  return value === "located" || value === "hybrid" || value === "grounded" || value === "free" ? value : null;
}

/** What each mode means, in the words the hints use. */
const MEANING: Record<AnswerMode, string> = {
  located: "located, no model is called",
  hybrid: "hybrid, the locator's values and the model for the fields it did not find",
  grounded: "grounded, the model picks among the located candidates",
  free: "free, the model writes the values",
};

/** What the default means for the provider picked (shown under the choice), from the backend's defaults (`SettingsView.defaultAnswers`); null while either is unknown. */
export function defaultAnswersHint(kind: ProviderKind | null, defaults: DefaultAnswers | null): string | null {
  if (kind === null || defaults === null) return null;
  const who = kind === "local" ? "the local model" : "this provider";
  return `The default for ${who}: ${MEANING[defaults[kind]]}`;
}

/** The Settings screen's statement of the defaults. */
export function defaultAnswersLine(defaults: DefaultAnswers): string {
  const local = defaults.local === "located" ? "located (no model call)" : defaults.local;
  const others = defaults.openai === defaults.anthropic
    ? `${defaults.openai} for other providers`
    : `${defaults.openai} for OpenAI, ${defaults.anthropic} for Anthropic`;
  return `Answers by default: ${local} for the local model, ${others}; a run can choose another on the Extract screen.`;
}
