// Where JSON text stops being JSON. JSON.parse's messages differ between
// engines and often give no position (V8: `Unexpected token '}', ..."a": }"
// is not valid JSON`; JavaScriptCore: `JSON Parse error: ...`), so this small
// scanner finds the first offending character itself, with a plain message.

export interface JsonError {
  /** 0-based offset of the first character that cannot be there (the text's length at an early end). */
  offset: number;
  message: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** The first syntax error of `text`, or null when it is valid JSON. */
export function findJsonError(text: string): JsonError | null {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new Stop(at, at >= text.length ? `${message}, but the text ends` : message);
  };
  const describe = (at: number) => (at >= text.length ? "the end" : JSON.stringify(text[at]));
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i] ?? "")) i += 1;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k += 1) {
      if (text[i + k] !== word[k]) fail(`Unexpected ${describe(i + k)}: expected ${word}`, i + k);
    }
    i += word.length;
  };
  const string = () => {
    i += 1; // the opening quote
    while (i < text.length) {
      const c = text[i] ?? "";
      if (c === '"') {
        i += 1;
        return;
      }
      if (c === "\\") {
        const e = text[i + 1] ?? "";
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("Bad \\u escape in a string", i);
          i += 6;
        } else if ('"\\/bfnrt'.includes(e) && e !== "") i += 2;
        else fail(`Bad escape \\${e} in a string`, i);
      } else if (c < " ") {
        fail(c === "\n" ? "A string cannot span lines (unclosed quote?)" : "Control character in a string", i);
      } else i += 1;
    }
    fail("Unclosed string", text.length);
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m === null || m[0] === "" || m[0] === "-") fail(`Unexpected ${describe(i)}`);
    else i += m[0].length;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{") {
      i += 1;
      space();
      if (text[i] === "}") {
        i += 1;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail(text[i] === "}" ? "Trailing comma before }" : `Unexpected ${describe(i)}: expected a property name in double quotes`);
        string();
        space();
        if (text[i] !== ":") fail(`Unexpected ${describe(i)}: expected : after the property name`);
        i += 1;
        value();
        space();
        if (text[i] === ",") {
          i += 1;
          continue;
        }
        if (text[i] === "}") {
          i += 1;
          return;
        }
        fail(`Unexpected ${describe(i)}: expected , or }`);
      }
    }
    if (c === "[") {
      i += 1;
      space();
      if (text[i] === "]") {
        i += 1;
        return;
      }
      for (;;) {
        space();
        if (text[i] === "]") fail("Trailing comma before ]");
        value();
        space();
        if (text[i] === ",") {
          i += 1;
          continue;
        }
        if (text[i] === "]") {
          i += 1;
          return;
        }
        fail(`Unexpected ${describe(i)}: expected , or ]`);
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    fail(`Unexpected ${describe(i)}: expected a value`);
  };
  try {
    value();
    space();
    if (i < text.length) fail(`Unexpected ${describe(i)} after the JSON value`);
    return null;
  } catch (error) {
    if (error instanceof Stop) return { offset: Math.min(error.offset, text.length), message: error.message };
    throw error;
  }
}
