import { describe, expect, it } from "vitest";
import { ANSWER_CHOICES, answersFromValue, answersValue, defaultAnswersHint, defaultAnswersLine } from "./answers";

describe("answers choice", () => {
  it("lists the default first, then the four modes", () => {
    expect(ANSWER_CHOICES.map((c) => [answersValue(c.mode), c.label])).toEqual([
      ["", "Default for the model"],
      ["located", "Located (no model)"],
      ["hybrid", "Hybrid (located values, model for the rest)"],
      ["grounded", "Grounded (model picks among candidates)"],
      ["free", "Free (model writes values)"],
    ]);
  });

  it("maps the select's value to a mode and back", () => {
    for (const { mode } of ANSWER_CHOICES) expect(answersFromValue(answersValue(mode))).toBe(mode);
    expect(answersFromValue("")).toBeNull();
    expect(answersFromValue("Located")).toBeNull();
  });

  it("states the backend's defaults, whatever they are", () => {
    const measured = { local: "located", openai: "free", anthropic: "free" } as const;
    expect(defaultAnswersHint("local", measured)).toBe("The default for the local model: located, no model is called");
    expect(defaultAnswersHint("openai", measured)).toBe("The default for this provider: free, the model writes the values");
    expect(defaultAnswersHint("local", { ...measured, local: "hybrid" })).toBe(
      "The default for the local model: hybrid, the locator's values and the model for the fields it did not find",
    );
    expect(defaultAnswersHint("anthropic", { ...measured, anthropic: "grounded" })).toBe(
      "The default for this provider: grounded, the model picks among the located candidates",
    );
    expect(defaultAnswersHint(null, measured)).toBeNull();
    expect(defaultAnswersHint("local", null)).toBeNull();
    expect(defaultAnswersLine(measured)).toBe(
      "Answers by default: located (no model call) for the local model, free for other providers; a run can choose another on the Extract screen.",
    );
    expect(defaultAnswersLine({ local: "grounded", openai: "free", anthropic: "grounded" })).toBe(
      "Answers by default: grounded for the local model, free for OpenAI, grounded for Anthropic; a run can choose another on the Extract screen.",
    );
  });
});
