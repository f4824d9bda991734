import { describe, expect, it } from "vitest";
import { ANSWER_CHOICES, answersFromValue, answersValue, defaultAnswers, defaultAnswersHint } from "./answers";

describe("answers choice", () => {
  it("lists the default first, then the three modes", () => {
    expect(ANSWER_CHOICES.map((c) => [answersValue(c.mode), c.label])).toEqual([
      ["", "Default for the model"],
      ["located", "Located (no model)"],
      ["grounded", "Grounded (model picks among candidates)"],
      ["free", "Free (model writes values)"],
    ]);
  });

  it("maps the select's value to a mode and back", () => {
    for (const { mode } of ANSWER_CHOICES) expect(answersFromValue(answersValue(mode))).toBe(mode);
    expect(answersFromValue("")).toBeNull();
    expect(answersFromValue("Located")).toBeNull();
  });

  it("defaults to located for the local model and free for the others", () => {
    expect(defaultAnswers("local")).toBe("located");
    expect(defaultAnswers("openai")).toBe("free");
    expect(defaultAnswers("anthropic")).toBe("free");
    expect(defaultAnswersHint("local")).toBe("The default for the local model: located, no model is called");
    expect(defaultAnswersHint("openai")).toBe("The default for this provider: free, the model writes the values");
    expect(defaultAnswersHint(null)).toBeNull();
  });
});
