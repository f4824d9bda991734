import { describe, expect, it } from "vitest";
import { findJsonError } from "./jsonError";

const at = (text: string) => findJsonError(text);

describe("finding a JSON syntax error", () => {
  it("accepts valid JSON of every kind", () => {
    for (const text of ['{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"], "b": {}}', "[]", ' "s" ', "0"]) {
      expect(at(text)).toBeNull();
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });

  it("points at the first character that cannot be there", () => {
    expect(at('{"a": }')).toEqual({ offset: 6, message: 'Unexpected "}": expected a value' });
    expect(at('{"a": 1,}')).toEqual({ offset: 8, message: "Trailing comma before }" });
    expect(at("[1, 2,]")).toEqual({ offset: 6, message: "Trailing comma before ]" });
    expect(at("{a: 1}")).toEqual({ offset: 1, message: 'Unexpected "a": expected a property name in double quotes' });
    expect(at('{"a" 1}')).toEqual({ offset: 5, message: 'Unexpected "1": expected : after the property name' });
    expect(at('{"a": 1 "b": 2}')).toEqual({ offset: 8, message: 'Unexpected "\\"": expected , or }' });
    expect(at('{"a": tru}')).toEqual({ offset: 9, message: 'Unexpected "}": expected true' });
    expect(at('{"a": 01}')).toEqual({ offset: 7, message: 'Unexpected "1": expected , or }' });
    expect(at('{} x')).toEqual({ offset: 3, message: 'Unexpected "x" after the JSON value' });
    expect(at('{"a": "x\\q"}')).toEqual({ offset: 8, message: "Bad escape \\q in a string" });
    expect(at('{"a": "line\nbreak"}')).toEqual({ offset: 11, message: "A string cannot span lines (unclosed quote?)" });
  });

  it("reports an early end at the text's length", () => {
    expect(at('{"a": [1, 2')).toEqual({ offset: 11, message: "Unexpected the end: expected , or ], but the text ends" });
    expect(at('{"a": "open')).toEqual({ offset: 11, message: "Unclosed string, but the text ends" });
    expect(at("")).toEqual({ offset: 0, message: "Unexpected the end: expected a value, but the text ends" });
  });

  it("agrees with JSON.parse on what is valid", () => {
    const samples = ['{"a":1}', "{'a':1}", "[1,]", "NaN", "-", "1.", ".5", "1e", '"\\u12"', "[[[]]]", '{"a":{"b":[{}]}}'];
    for (const text of samples) {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(at(text) === null, text).toBe(valid);
    }
  });
});
